// The PTO assembler: GNU-as-style source text -> ELF image (docs/assembly.md).
//
// The object model (sections with bytes, symbols bound to sections) is the one
// a relocatable-object writer and a linker would share; today every symbol is
// resolved at assembly time and the result is an executable Image.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "elf/elf.hpp"

namespace pto::as {

struct LinkerScript;  // asm/linker_script.hpp

struct Options {
  std::map<std::string, std::uint64_t> section_start;  // --section-start NAME=ADDR
  std::optional<std::string> entry;                     // --entry SYM (default _start)
  std::uint64_t default_text_start = 0;                 // .text when not placed explicitly
  bool listing = false;                                 // fill Result::listing
  // -T SCRIPT: the script places the sections (parse_linker_script).
  std::shared_ptr<const LinkerScript> linker_script;
};

struct Diagnostic {
  std::string file;
  std::size_t line = 0;    // 1-based
  std::size_t column = 0;  // 1-based
  std::string message;
  std::string source;  // the offending source line
  // "file:line:col: error: message" followed by the quoted line and a caret.
  std::string format() const;
};

struct ListingEntry {
  std::string section;
  std::uint64_t address = 0;
  std::vector<std::uint8_t> bytes;
  std::size_t line = 0;
  std::string source;
};

struct Result {
  std::optional<elf::Image> image;  // set only when there are no diagnostics
  std::vector<Diagnostic> diagnostics;
  std::vector<ListingEntry> listing;
  bool ok() const { return image.has_value(); }
};

// Assembles one source file.  All errors of the run are reported; no image is
// produced when any error occurs.
Result assemble(std::string_view source, std::string_view file_name, const Options& options = {});

// Flat binary of an image's loadable segments from the lowest address
// (gaps zero-filled); `base` receives that address.
std::vector<std::uint8_t> flat_binary(const elf::Image& image, std::uint64_t& base);

}  // namespace pto::as
