// `pto dis`: bundle-aware disassembly of ELF images, flat binaries or hex words.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <iterator>
#include <map>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "cli/hex_word.hpp"
#include "dis/disassembler.hpp"
#include "dis/reassemble.hpp"
#include "elf/elf.hpp"

namespace pto::cli {
namespace {

struct DisOptions {
  std::vector<std::string> inputs;
  bool raw = false;
  std::string base = "0";
  bool hex = false;
  bool no_bytes = false;
  bool json = false;
  bool reassemble = false;
  bool no_bundles = false;
  std::string syntax = "canonical";
};

struct Input {
  std::vector<dis::Region> regions;
  std::vector<elf::Section> nobits;  // .bss-like sections (reassembly only)
  std::map<std::uint64_t, std::string> symbols;
  std::vector<std::string> globals;
  std::optional<elf::Image> image;
};

// Hex words: each word's digit count gives its halfwords; bytes little-endian.
std::optional<std::vector<std::uint8_t>> parse_hex_words(const std::vector<std::string>& words) {
  std::vector<std::uint8_t> out;
  for (const std::string& text : words) {
    const auto w = parse_hex_word(text);
    if (!w) return std::nullopt;
    const std::uint64_t v = w->value;
    const std::size_t halfwords = w->halfwords;
    for (std::size_t i = 0; i < 2 * halfwords; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  return out;
}

// True when a section's bytes lie inside a PT_LOAD segment (an identity
// note outside every segment is metadata, not program bytes).
bool loaded(const elf::Image& image, const elf::Section& s) {
  return std::any_of(image.segments.begin(), image.segments.end(), [&](const elf::Segment& g) {
    return s.addr >= g.vaddr && s.addr - g.vaddr < g.memsz && s.size <= g.memsz - (s.addr - g.vaddr);
  });
}

std::optional<Input> load(const DisOptions& opt, std::string& error) {
  Input in;
  const auto parsed_base = parse_unsigned(opt.base);
  if (!parsed_base) {
    error = fmt::format("--base expects an address (decimal, 0x hex or 0b binary), got '{}'", opt.base);
    return std::nullopt;
  }
  const std::uint64_t base = *parsed_base;
  if (opt.hex) {
    std::vector<std::string> words = opt.inputs;
    if (words.empty()) {
      std::string w;
      while (std::cin >> w) words.push_back(w);
    }
    auto bytes = parse_hex_words(words);
    if (!bytes) {
      error = "hex input must be hexadecimal instruction words";
      return std::nullopt;
    }
    in.regions.push_back({".text", base, elf::SHF_ALLOC | elf::SHF_EXECINSTR, std::move(*bytes)});
    return in;
  }
  if (opt.inputs.size() != 1) {
    error = "expected one input file (or --hex WORD...)";
    return std::nullopt;
  }
  const auto file = read_input(opt.inputs[0], error);
  if (!file) return std::nullopt;
  std::vector<std::uint8_t> bytes(file->begin(), file->end());
  if (opt.raw) {
    in.regions.push_back({".text", base, elf::SHF_ALLOC | elf::SHF_EXECINSTR, std::move(bytes)});
    return in;
  }
  auto r = elf::read_image(bytes);
  if (auto* e = std::get_if<elf::Error>(&r)) {
    error = fmt::format("{}: {} (use --raw --base ADDR for a flat binary)", opt.inputs[0], e->message);
    return std::nullopt;
  }
  in.image = std::get<elf::Image>(std::move(r));
  if (in.image->machine != elf::EM_PTO) {
    error = fmt::format("{}: ELF machine {:#x} is not PTO ({:#x}, EM_LINXISA); use --raw --base ADDR to read the bytes anyway",
                        opt.inputs[0], in.image->machine, elf::EM_PTO);
    return std::nullopt;
  }
  for (const auto& s : in.image->sections) {
    if (!(s.flags & elf::SHF_ALLOC) || (s.type == elf::SHT_NOTE && !loaded(*in.image, s))) continue;
    if (s.type == elf::SHT_NOBITS) {
      in.nobits.push_back(s);
      continue;
    }
    in.regions.push_back({s.name, s.addr, s.flags, s.data});
  }
  for (const auto& s : in.image->symbols) {
    if (s.name.empty() || s.type == elf::STT_SECTION) continue;
    in.symbols.emplace(s.value, s.name);
    if (s.bind == elf::STB_GLOBAL) in.globals.push_back(s.name);
  }
  return in;
}

std::string bytes_text(std::span<const std::uint8_t> b) {
  as::TextBuffer out;
  dis::append_bytes_text(out, b);
  return std::string(out.view());
}

void print_identity(const elf::Image& im) {
  if (!im.identity) {
    fmt::print("identity: none (no .note.pto.isa; the loader rejects this image)\n");
    return;
  }
  const auto check = elf::check_load_identity(im.identity);
  fmt::print("identity: release {}, encoding_abi {}, encoding_projection_sha256 {} ({})\n", im.identity->release,
             im.identity->encoding_abi, im.identity->encoding_projection_sha256,
             check == elf::IdentityCheck::Match ? "matches this implementation"
                                                : fmt::format("{}", elf::identity_check_reason(check)));
}

void write_stdout(as::TextBuffer& out) {
  std::fwrite(out.view().data(), 1, out.size(), stdout);
  out.clear();
}

// Objdump-style listing of one code region: symbol headers and one line per
// instruction, rendered into one buffer that is written in large blocks.
void print_listing(const dis::Listing& lines, const std::map<std::uint64_t, std::string>& labels,
                   bool with_bytes) {
  constexpr std::size_t kBlockBytes = std::size_t{1} << 16;
  as::TextBuffer out;
  auto label = labels.lower_bound(lines.empty() ? 0 : lines.front().address);
  for (const dis::Line& l : lines) {
    while (label != labels.end() && label->first < l.address) ++label;
    if (label != labels.end() && label->first == l.address) {
      out += '\n';
      as::append_hex_digits(out, l.address, 16);
      out += " <";
      out += label->second;
      out += ">:\n";
    }
    dis::append_listing_line(out, l, with_bytes);
    if (out.size() >= kBlockBytes) write_stdout(out);
  }
  write_stdout(out);
}

int run_dis(const DisOptions& opt) {
  std::string error;
  auto in = load(opt, error);
  if (!in) {
    fmt::print(stderr, "pto dis: error: {}\n", error);
    return kExitUsage;
  }
  std::map<std::uint64_t, std::string> labels = in->symbols;
  dis::Options dopt;
  dopt.bundle_aware = !opt.no_bundles;
  dopt.syntax = opt.syntax == "llvm" ? as::Syntax::Llvm : as::Syntax::Canonical;
  const std::vector<dis::Listing> all = dis::disassemble_regions(in->regions, dopt, labels);

  if (opt.json) {
    nlohmann::json j = nlohmann::json::array();
    for (std::size_t i = 0; i < in->regions.size(); ++i) {
      for (const auto& l : all[i]) {
        nlohmann::json e = {{"section", in->regions[i].name},
                            {"address", l.address},
                            {"bytes", bytes_text(l.bytes())},
                            {"length_bits", l.length_bits},
                            {"text", l.text()}};
        if (!l.comment().empty()) e["comment"] = l.comment();
        if (l.form) e["form_id"] = isa::form(*l.form).form_id;
        if (auto it = labels.find(l.address); it != labels.end()) e["label"] = it->second;
        j.push_back(std::move(e));
      }
    }
    fmt::print("{}\n", j.dump(2));
    return kExitOk;
  }
  if (opt.reassemble) {
    fmt::print("{}", dis::reassembly_source({in->regions, all, labels, in->globals, in->nobits}));
    return kExitOk;
  }
  if (in->image) {
    fmt::print("{}: ELF64 PTO image, entry {:#x}\n", opt.inputs[0], in->image->entry);
    print_identity(*in->image);
  }
  for (std::size_t i = 0; i < in->regions.size(); ++i) {
    if (!(in->regions[i].flags & elf::SHF_EXECINSTR)) continue;
    fmt::print("\nDisassembly of section {}:\n", in->regions[i].name);
    print_listing(all[i], labels, !opt.no_bytes);
  }
  return kExitOk;
}

const Registrar reg{"dis", "Bundle-aware disassembly of an ELF image, a flat binary or hex words", [](CLI::App* sub) {
  auto opt = std::make_shared<DisOptions>();
  sub->add_option("inputs", opt->inputs, "ELF file, flat binary (--raw) or hex words (--hex)");
  sub->add_flag("--raw", opt->raw, "Input is a flat binary");
  sub->add_option("--base", opt->base, "Load address of --raw/--hex input (default 0)");
  sub->add_flag("--hex", opt->hex, "Inputs are hexadecimal instruction words (stdin when none)");
  sub->add_flag("--no-bytes", opt->no_bytes, "Omit instruction bytes");
  sub->add_flag("--json", opt->json, "JSON output");
  sub->add_flag("--reassemble", opt->reassemble, "Print source that `pto as` turns back into the same bytes");
  sub->add_flag("--no-bundles", opt->no_bundles, "Render every word standalone (raw B.IOR)");
  sub->add_option("--syntax", opt->syntax, "Spellings: canonical (default) or llvm (LinxISA llvm-objdump)")
      ->check(CLI::IsMember({"canonical", "llvm"}));
  return Runner{[opt] { return run_dis(*opt); }};
}};

}  // namespace
}  // namespace pto::cli
