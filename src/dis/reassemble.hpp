// `pto dis --reassemble`: assembly source that `pto as` turns back into the
// same section bytes, from the regions of an image (code regions as
// instructions with labels at branch targets, data as `.byte`, zero runs as
// `.org`, NOBITS sections as `.zero`).  In the library so that the fuzz
// target fuzz/fuzz_dis_roundtrip.cpp checks the CLI's exact text.
#pragma once

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <vector>

#include "dis/disassembler.hpp"
#include "elf/elf.hpp"

namespace pto::dis {

// A section's bytes at its address (ELF SHF_* flags).
struct Region {
  std::string name;
  std::uint64_t address;
  std::uint64_t flags;
  std::vector<std::uint8_t> bytes;
};

// Listings of `regions` (empty for data regions).  Code is decoded twice: a
// decode-only pass adds a local label `.L<hex address>` to `labels` for every
// branch target on an instruction boundary that has no name, then the text
// pass renders label operands with the final names.
std::vector<Listing> disassemble_regions(std::span<const Region> regions, const Options& options,
                                         std::map<std::uint64_t, std::string>& labels);

struct ReassemblyInput {
  std::span<const Region> regions;
  std::span<const Listing> listings;  // disassemble_regions of `regions`
  const std::map<std::uint64_t, std::string>& labels;
  std::span<const std::string> globals;
  std::span<const elf::Section> nobits;
};

std::string reassembly_source(const ReassemblyInput& in);

}  // namespace pto::dis
