// Program loading into guest memory: ELF images (identity note checked per
// the abi-vectors load policy) and flat binaries.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "arch/machine.hpp"
#include "elf/elf.hpp"

namespace pto::runner {

// A loaded PT_LOAD segment as the run manifest records it.
struct LoadedSegment {
  arch::Word address = 0;
  std::uint64_t filesz = 0, memsz = 0;
  std::uint32_t flags = 0;  // PF_R | PF_W | PF_X
  bool operator==(const LoadedSegment&) const = default;
};

struct LoadedProgram {
  arch::Word entry = 0;
  std::vector<LoadedSegment> segments;  // by address
  std::vector<elf::Symbol> symbols;
  std::optional<elf::Identity> identity;
  arch::Word image_begin = 0, image_end = 0;  // lowest / past-highest loaded address
};

struct LoadError {
  std::string message;
};

using LoadResult = std::variant<LoadedProgram, LoadError>;

// Loads the PT_LOAD segments (file bytes, then zero fill up to memsz).
// Errors: malformed ELF, wrong machine or type, identity mismatch (unless
// `check_identity` is false), a segment outside the address space, an entry
// point outside every executable segment; in the reference configuration
// also the reference runner's segment rules (reference_segment_error).
LoadResult load_elf(arch::Machine& m, std::span<const std::uint8_t> bytes, bool check_identity);

// The same checks and loading for an image already in memory (e.g. the
// assembler's output).
LoadResult load_image(arch::Machine& m, elf::Image image, bool check_identity);

// Copies a flat binary to `base`; the entry is `base`.
LoadResult load_raw(arch::Machine& m, std::span<const std::uint8_t> bytes, arch::Word base);

// The value of a defined symbol, if any.
std::optional<arch::Word> symbol_value(const LoadedProgram& p, std::string_view name);

}  // namespace pto::runner
