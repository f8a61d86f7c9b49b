#include "runner/loader.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace pto::runner {
namespace {

using arch::Word;

bool segment_fits(const arch::Machine& m, Word vaddr, Word memsz) {
  return memsz == 0 || m.memory.access_permitted(vaddr, memsz, 0);
}

// Two loaded segments sharing an address (read_image rejects this for files;
// images built in memory are checked here).  Segments already fit the
// address space, so the ends do not wrap.
std::optional<std::pair<Word, Word>> overlapping_segments(const std::vector<elf::Segment>& segments) {
  std::vector<std::pair<Word, Word>> ranges;  // [begin, end)
  for (const elf::Segment& s : segments) {
    if (s.memsz != 0) ranges.emplace_back(s.vaddr, s.vaddr + s.memsz);
  }
  std::sort(ranges.begin(), ranges.end());
  for (std::size_t i = 1; i < ranges.size(); ++i) {
    if (ranges[i].first < ranges[i - 1].second) return std::pair{ranges[i - 1].first, ranges[i].first};
  }
  return std::nullopt;
}

// Zero-fills [address, address + count) (a segment's memsz tail).  Absent
// pages already read zero, so only resident pages are touched: a huge .bss
// costs nothing and never iterates over its page numbers one by one.
void zero_fill(arch::Machine& m, Word address, Word count) {
  if (count == 0) return;
  const Word end = address + count;  // the segment fits: no wrap
  std::vector<std::pair<Word, Word>> ranges;
  m.memory.for_each_page([&](Word base, std::span<const std::uint8_t> bytes) {
    const Word lo = std::max(base, address), hi = std::min(base + bytes.size(), end);
    if (lo < hi) ranges.emplace_back(lo, hi - lo);
  });
  for (const auto& [at, n] : ranges) m.memory.fill(at, n, 0);
}

// The reference runner's PT_LOAD rules beyond ours (parse_elf of
// PTO-ISA/asl-model): only R/W/X permission bits, vaddr == paddr, offset
// congruent to vaddr modulo p_align.  Images built in memory carry no file
// facts and pass.
std::optional<std::string> reference_segment_error(const elf::Segment& s) {
  if (!s.file) return std::nullopt;
  const auto where = fmt::format("program header {} (PT_LOAD at {:#x})", s.file->index, s.vaddr);
  if (s.flags & ~(elf::PF_R | elf::PF_W | elf::PF_X)) {
    return fmt::format("{}: p_flags {:#x} has permission bits other than R, W, X", where, s.flags);
  }
  if (s.file->paddr != s.vaddr) {
    return fmt::format("{}: p_paddr {:#x} differs from p_vaddr (the reference profile requires identical addresses)",
                       where, s.file->paddr);
  }
  if (s.file->align > 1 && s.vaddr % s.file->align != s.file->offset % s.file->align) {
    return fmt::format("{}: p_offset {:#x} is not congruent to p_vaddr modulo p_align {:#x}", where, s.file->offset,
                       s.file->align);
  }
  return std::nullopt;
}

std::vector<LoadedSegment> loaded_segments(const std::vector<elf::Segment>& segments) {
  std::vector<LoadedSegment> out;
  for (const elf::Segment& s : segments) out.push_back({s.vaddr, s.data.size(), s.memsz, s.flags});
  std::sort(out.begin(), out.end(), [](const LoadedSegment& a, const LoadedSegment& b) { return a.address < b.address; });
  return out;
}

}  // namespace

LoadResult load_elf(arch::Machine& m, std::span<const std::uint8_t> bytes, bool check_identity) {
  auto parsed = elf::read_image(bytes);
  if (auto* e = std::get_if<elf::Error>(&parsed)) return LoadError{"invalid ELF image: " + e->message};
  return load_image(m, std::move(std::get<elf::Image>(parsed)), check_identity);
}

LoadResult load_image(arch::Machine& m, elf::Image image, bool check_identity) {
  if (image.machine != elf::EM_PTO) {
    return LoadError{fmt::format("ELF machine {:#x} is not PTO ({:#x})", image.machine, elf::EM_PTO)};
  }
  if (image.type != elf::ET_EXEC) return LoadError{fmt::format("ELF type {} is not an executable (ET_EXEC)", image.type)};
  if (check_identity) {
    // Load policy (abi-vectors.json elf_identity): the identity must match exactly.
    const elf::IdentityCheck c = elf::check_load_identity(image.identity);
    if (c != elf::IdentityCheck::Match) {
      return LoadError{fmt::format("ISA identity check failed: {} (use --no-identity-check for foreign images)",
                                   elf::identity_check_reason(c))};
    }
  }
  if (image.segments.empty()) return LoadError{"ELF image has no loadable segment"};
  // Everything is validated before the first byte is written: a rejected
  // image leaves guest memory untouched.
  bool entry_ok = false;
  for (const elf::Segment& s : image.segments) {
    if (s.data.size() > s.memsz) {
      return LoadError{fmt::format("segment at {:#x}: file size {} exceeds memory size {}", s.vaddr, s.data.size(),
                                   s.memsz)};
    }
    if (!segment_fits(m, s.vaddr, s.memsz)) {
      return LoadError{fmt::format("segment [{:#x}, +{:#x}) lies outside the guest address space (limit {:#x})",
                                   s.vaddr, s.memsz, m.memory.config().address_limit)};
    }
    if (m.memory.config().profile == arch::MemoryProfile::Reference) {
      if (auto e = reference_segment_error(s)) return LoadError{*e};
    }
    if ((s.flags & elf::PF_X) && image.entry >= s.vaddr && image.entry - s.vaddr < s.memsz) entry_ok = true;
  }
  if (auto o = overlapping_segments(image.segments)) {
    return LoadError{fmt::format("segments at {:#x} and {:#x} overlap", o->first, o->second)};
  }
  if (!entry_ok) return LoadError{fmt::format("entry point {:#x} lies outside every executable segment", image.entry)};
  LoadedProgram p;
  p.image_begin = ~Word{0};
  for (const elf::Segment& s : image.segments) {
    if (s.memsz == 0) continue;
    m.memory.write_bytes(s.vaddr, s.data);
    zero_fill(m, s.vaddr + s.data.size(), s.memsz - s.data.size());
    p.image_begin = std::min(p.image_begin, s.vaddr);
    p.image_end = std::max(p.image_end, s.vaddr + s.memsz);
  }
  p.entry = image.entry;
  p.segments = loaded_segments(image.segments);
  p.symbols = std::move(image.symbols);
  p.identity = std::move(image.identity);
  return p;
}

LoadResult load_raw(arch::Machine& m, std::span<const std::uint8_t> bytes, Word base) {
  if (bytes.empty()) return LoadError{"flat binary is empty"};
  if (!segment_fits(m, base, bytes.size())) {
    return LoadError{fmt::format("flat binary [{:#x}, +{:#x}) lies outside the guest address space (limit {:#x})", base,
                                 bytes.size(), m.memory.config().address_limit)};
  }
  m.memory.write_bytes(base, bytes);
  LoadedProgram p;
  p.entry = base;
  p.segments = {{base, bytes.size(), bytes.size(), elf::PF_R | elf::PF_W | elf::PF_X}};
  p.image_begin = base;
  p.image_end = base + bytes.size();
  return p;
}

std::optional<Word> symbol_value(const LoadedProgram& p, std::string_view name) {
  for (const elf::Symbol& s : p.symbols) {
    if (s.name == name && s.shndx != elf::SHN_UNDEF) return s.value;
  }
  return std::nullopt;
}

}  // namespace pto::runner
