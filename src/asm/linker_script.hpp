// GNU ld linker-script subset for `pto as -T` (docs/assembly.md, "Linker
// scripts"): ENTRY, PHDRS (PT_LOAD), SECTIONS with location-counter and
// symbol assignments, output section statements, input-section patterns,
// KEEP and /DISCARD/.  Anything outside the subset is a located error.
//
// The assembler's sections are the input sections; `layout_script` places
// them and builds the image's sections and segments.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "asm/assembler.hpp"
#include "elf/elf.hpp"

namespace pto::as {

// A name in the script and the byte offset where it was written.
struct ScriptName {
  std::string name;
  std::size_t at = 0;
};

// `name = expr;` or `. = expr;`.  The expression is kept as its offset in the
// script text and evaluated when the layout runs.
struct ScriptAssignment {
  ScriptName target;  // "." for the location counter
  std::size_t expr = 0;
  bool outside_sections = false;  // '.' is not available there
  bool provide = false;           // PROVIDE(name = expr): only if the source references and does not define it
};

// `*(pattern ...)` or `KEEP(*(pattern ...))`.
struct ScriptInputDescription {
  std::vector<ScriptName> patterns;  // glob patterns; COMMON matches nothing
  std::size_t at = 0;
};

using ScriptOutputItem = std::variant<ScriptAssignment, ScriptInputDescription>;

struct ScriptOutputSection {
  ScriptName name;  // "/DISCARD/" discards what its patterns match
  std::optional<std::size_t> address;  // expression offset
  std::optional<std::size_t> load_address;  // AT(expr): must equal the address
  std::vector<ScriptOutputItem> items;
  std::vector<ScriptName> phdrs;  // :phdr ...
  bool discard() const { return name.name == "/DISCARD/"; }
};

using ScriptCommand = std::variant<ScriptAssignment, ScriptOutputSection>;

struct ScriptPhdr {
  ScriptName name;
  std::optional<std::size_t> flags;  // FLAGS(expr)
};

struct LinkerScript {
  std::string file;  // for diagnostics
  std::string text;
  std::optional<ScriptName> entry;  // ENTRY(symbol)
  bool has_phdrs = false;
  std::vector<ScriptPhdr> phdrs;
  std::vector<ScriptCommand> commands;  // top-level assignments and SECTIONS contents, in order
};

// Parses a script; the first syntax error or unsupported construct is
// returned as a diagnostic "file:line:col: error: ...".
std::variant<LinkerScript, Diagnostic> parse_linker_script(std::string_view text, std::string_view file);

// One assembler section as the layout sees it.
struct InputSection {
  std::string name;
  std::uint32_t type = elf::SHT_PROGBITS;
  std::uint64_t flags = elf::SHF_ALLOC;
  std::uint64_t size = 0;
  std::uint64_t align = 1;
  std::span<const std::uint8_t> data;  // empty for SHT_NOBITS
};

struct ScriptSymbol {
  std::string name;
  std::uint64_t value = 0;
  std::size_t at = 0;  // offset of the assignment in the script
  bool provide = false;
};

struct ScriptLayout {
  // Per input section: its address, and the index of its output section in
  // `sections` (nullopt when discarded).
  std::vector<std::uint64_t> input_address;
  std::vector<std::optional<std::size_t>> input_output;
  std::vector<elf::Section> sections;
  std::vector<elf::Segment> segments;
  std::vector<ScriptSymbol> symbols;  // in definition order
  std::vector<std::string> used_symbols;  // symbols read by the script's own expressions
  std::vector<Diagnostic> diagnostics;
};

// A program header whose file image (its members' bytes and the gaps between
// them) would exceed max_output bytes is an error at its PHDRS entry.
ScriptLayout layout_script(const LinkerScript& script, std::span<const InputSection> inputs,
                           std::uint64_t max_output);

// A diagnostic at byte offset `at` of the script.
Diagnostic script_diagnostic(const LinkerScript& script, std::size_t at, std::string message);

}  // namespace pto::as
