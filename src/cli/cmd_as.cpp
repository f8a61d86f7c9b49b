// `pto as`: assemble PTO source into an ELF64 executable or a flat binary.
#include <fmt/format.h>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "asm/assembler.hpp"
#include "asm/linker_script.hpp"
#include "cli/command.hpp"
#include "cli/file_io.hpp"
#include "elf/elf.hpp"

namespace pto::cli {
namespace {

struct AsOptions {
  std::string input;
  std::string output = "a.out";
  std::string format = "elf";
  std::string entry;
  std::vector<std::string> section_starts;
  std::string script;  // -T / --script
  std::string max_output;
  bool listing = false;
};

// --section-start NAME=ADDR; nullopt (after the message) when malformed.
std::optional<std::pair<std::string, std::uint64_t>> section_start(const std::string& s) {
  const auto eq = s.find('=');
  if (eq != std::string::npos && eq != 0) {
    if (const auto addr = parse_unsigned(std::string_view(s).substr(eq + 1))) return std::pair{s.substr(0, eq), *addr};
  }
  fmt::print(stderr, "pto as: error: --section-start expects NAME=ADDR (ADDR decimal, 0x hex or 0b binary), got '{}'\n", s);
  return std::nullopt;
}

// The assembler options from the command line; nullopt (after the message)
// on a malformed value.
std::optional<as::Options> assembler_options(const AsOptions& opt) {
  as::Options ao;
  if (!opt.entry.empty()) ao.entry = opt.entry;
  ao.listing = opt.listing;
  ao.flat_binary = opt.format == "binary";
  for (const std::string& s : opt.section_starts) {
    const auto placed = section_start(s);
    if (!placed) return std::nullopt;
    ao.section_start[placed->first] = placed->second;
  }
  if (!opt.max_output.empty()) {
    const auto limit = parse_unsigned(opt.max_output, true);
    if (!limit) {
      fmt::print(stderr, "pto as: error: --max-output expects a byte count such as 4096, 0x1000, 1e9 or 64MiB, got '{}'\n",
                 opt.max_output);
      return std::nullopt;
    }
    ao.max_output = *limit;
  }
  return ao;
}

void print_listing(const as::Result& r) {
  for (const auto& e : r.listing) {
    std::string hex;
    for (auto b : e.bytes) hex += fmt::format("{:02x} ", b);
    if (hex.size() > 24) hex = hex.substr(0, 23) + "+";
    fmt::print("{:>8x}  {:<24} {:>5}: {}\n", e.address, hex, e.line, e.source);
  }
}

// Reads and parses -T SCRIPT into `ao`; an exit code after printing the error.
int load_script(const std::string& path, as::Options& ao) {
  std::string error;
  const auto text = read_input(path, error);
  if (!text) {
    fmt::print(stderr, "pto as: error: linker script: {}\n", error);
    return kExitUsage;
  }
  auto parsed = as::parse_linker_script(*text, path);
  if (const auto* d = std::get_if<as::Diagnostic>(&parsed)) {
    fmt::print(stderr, "{}pto as: 1 error; no output written\n", d->format());
    return kExitFailure;
  }
  ao.linker_script = std::make_shared<const as::LinkerScript>(std::get<as::LinkerScript>(std::move(parsed)));
  return kExitOk;
}

int run_as(const AsOptions& opt) {
  const auto ao = assembler_options(opt);
  if (!ao) return kExitUsage;
  std::string error;
  const auto text = read_input(opt.input, error);
  if (!text) {
    fmt::print(stderr, "pto as: error: {}\n", error);
    return kExitUsage;
  }
  as::Options options = *ao;
  if (!opt.script.empty())
    if (const int rc = load_script(opt.script, options); rc != kExitOk) return rc;
  const as::Result r = as::assemble(*text, opt.input == "-" ? "<stdin>" : opt.input, options);
  for (const auto& d : r.diagnostics) fmt::print(stderr, "{}", d.format());
  if (!r.ok()) {
    fmt::print(stderr, "pto as: {} error{}; no output written\n", r.diagnostics.size(), r.diagnostics.size() == 1 ? "" : "s");
    return kExitFailure;
  }
  if (opt.listing) print_listing(r);
  // The assembler has checked the -O binary span against the limit.
  const std::vector<std::uint8_t> bytes =
      opt.format == "binary" ? as::flat_binary(*r.image, ao->max_output)->bytes : elf::write_image(*r.image);
  if (const auto failure = write_output(opt.output, bytes)) {
    fmt::print(stderr, "pto as: error: {}\n", *failure);
    return kExitFailure;
  }
  return kExitOk;
}

const Registrar reg{"as", "Assemble PTO source (GNU-as style) into an ELF64 executable", [](CLI::App* sub) {
  auto opt = std::make_shared<AsOptions>();
  sub->add_option("input", opt->input, "Source file ('-' for stdin)")->required();
  sub->add_option("-o,--output", opt->output, "Output file (default a.out)");
  sub->add_option("-O,--output-format", opt->format, "Output format: elf (default) or binary")
      ->check(CLI::IsMember({"elf", "binary"}));
  sub->add_option("--entry", opt->entry, "Entry symbol (default _start)");
  // One value per occurrence, so a following positional stays positional.
  sub->add_option("--section-start", opt->section_starts, "Place a section: NAME=ADDR (repeatable)")
      ->allow_extra_args(false);
  sub->add_option("--max-output", opt->max_output,
                  "Largest output in bytes: all sections together, each section, and the -O binary image "
                  "(default 1GiB; e.g. 4096, 0x1000, 1e6, 64MiB)");
  sub->add_option("-T,--script", opt->script, "Lay out sections with a GNU ld linker script (docs/assembly.md)")
      ->allow_extra_args(false);
  sub->add_flag("--listing", opt->listing, "Print a listing (address, bytes, source line) to stdout");
  return Runner{[opt] { return run_as(*opt); }};
}};

}  // namespace
}  // namespace pto::cli
