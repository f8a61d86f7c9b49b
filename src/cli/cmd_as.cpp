// `pto as`: assemble PTO source into an ELF64 executable or a flat binary.
#include <fmt/format.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "cli/command.hpp"
#include "elf/elf.hpp"

namespace pto::cli {
namespace {

struct AsOptions {
  std::string input;
  std::string output = "a.out";
  std::string format = "elf";
  std::string entry;
  std::vector<std::string> section_starts;
  bool listing = false;
};

std::optional<std::string> read_text(const std::string& path) {
  if (path == "-") return std::string(std::istreambuf_iterator<char>(std::cin), {});
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  return std::string(std::istreambuf_iterator<char>(in), {});
}

// Writes through a temporary file and renames it, so a failed run never
// leaves a partial output file.
bool write_atomically(const std::string& path, const std::vector<std::uint8_t>& bytes) {
  const std::string tmp = path + ".tmp-pto-as";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) return false;
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    if (!out) {
      std::remove(tmp.c_str());
      return false;
    }
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  if (ec) std::remove(tmp.c_str());
  return !ec;
}

void print_listing(const as::Result& r) {
  for (const auto& e : r.listing) {
    std::string hex;
    for (auto b : e.bytes) hex += fmt::format("{:02x} ", b);
    if (hex.size() > 24) hex = hex.substr(0, 23) + "+";
    fmt::print("{:>8x}  {:<24} {:>5}: {}\n", e.address, hex, e.line, e.source);
  }
}

int run_as(const AsOptions& opt) {
  const auto text = read_text(opt.input);
  if (!text) {
    fmt::print(stderr, "pto as: error: cannot read '{}'\n", opt.input);
    return kExitUsage;
  }
  as::Options ao;
  if (!opt.entry.empty()) ao.entry = opt.entry;
  ao.listing = opt.listing;
  for (const std::string& s : opt.section_starts) {
    const auto eq = s.find('=');
    std::uint64_t addr = 0;
    try {
      std::size_t used = 0;
      addr = std::stoull(s.substr(eq + 1), &used, 0);
      if (eq == std::string::npos || eq == 0 || used != s.size() - eq - 1) throw std::invalid_argument(s);
    } catch (const std::exception&) {
      fmt::print(stderr, "pto as: error: --section-start expects NAME=ADDR, got '{}'\n", s);
      return kExitUsage;
    }
    ao.section_start[s.substr(0, eq)] = addr;
  }
  const as::Result r = as::assemble(*text, opt.input == "-" ? "<stdin>" : opt.input, ao);
  for (const auto& d : r.diagnostics) fmt::print(stderr, "{}", d.format());
  if (!r.ok()) {
    fmt::print(stderr, "pto as: {} error{}; no output written\n", r.diagnostics.size(), r.diagnostics.size() == 1 ? "" : "s");
    return kExitFailure;
  }
  if (opt.listing) print_listing(r);
  std::vector<std::uint8_t> bytes;
  if (opt.format == "binary") {
    bytes = as::flat_binary(*r.image, ao.max_output)->bytes;  // the assembler checked the span
  } else {
    bytes = elf::write_image(*r.image);
  }
  if (!write_atomically(opt.output, bytes)) {
    fmt::print(stderr, "pto as: error: cannot write '{}'\n", opt.output);
    return kExitFailure;
  }
  return kExitOk;
}

const Registrar reg{[](CLI::App& app) {
  auto opt = std::make_shared<AsOptions>();
  CLI::App* sub = app.add_subcommand("as", "Assemble PTO source (GNU-as style) into an ELF64 executable");
  sub->add_option("input", opt->input, "Source file ('-' for stdin)")->required();
  sub->add_option("-o,--output", opt->output, "Output file (default a.out)");
  sub->add_option("-O,--output-format", opt->format, "Output format: elf (default) or binary")
      ->check(CLI::IsMember({"elf", "binary"}));
  sub->add_option("--entry", opt->entry, "Entry symbol (default _start)");
  sub->add_option("--section-start", opt->section_starts, "Place a section: NAME=ADDR (repeatable)");
  sub->add_flag("--listing", opt->listing, "Print a listing (address, bytes, source line) to stdout");
  return std::pair<CLI::App*, Runner>{sub, [opt] { return run_as(*opt); }};
}};

}  // namespace
}  // namespace pto::cli
