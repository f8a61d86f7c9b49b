#include "dis/reassemble.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

namespace pto::dis {
namespace {

// Runs of at least this many zero bytes print as `.org END` (`.org` fills
// with zeros, so the bytes are the same).
constexpr std::size_t kOrgRunBytes = 16;

using Labels = std::map<std::uint64_t, std::string>;

void append_label_at(std::string& out, const Labels& labels, std::uint64_t address) {
  if (auto it = labels.find(address); it != labels.end()) fmt::format_to(std::back_inserter(out), "{}:\n", it->second);
}

std::string line_text(const Line& l) {
  return l.comment().empty() ? std::string(l.text()) : fmt::format("{}  # {}", l.text(), l.comment());
}

// Code: one line per instruction; a run of all-zero C.BSTOP halfwords with no
// label inside becomes `.org`.
void append_code_source(std::string& out, const Listing& lines, const Labels& labels) {
  auto zero_halfword = [](const Line& l) { return l.size == 2 && l.raw[0] == 0 && l.raw[1] == 0; };
  for (std::size_t i = 0; i < lines.size(); ++i) {
    append_label_at(out, labels, lines[i].address);
    std::size_t j = i;
    while (j < lines.size() && zero_halfword(lines[j]) && (j == i || !labels.count(lines[j].address))) ++j;
    if (2 * (j - i) >= kOrgRunBytes) {
      fmt::format_to(std::back_inserter(out), "    .org {:#x}\n", lines[j - 1].address + 2);
      i = j - 1;
      continue;
    }
    fmt::format_to(std::back_inserter(out), "    {}\n", line_text(lines[i]));
  }
}

// Data: up to 16 bytes per `.byte` line, split at labels; zero runs become `.org`.
void append_data_source(std::string& out, const Region& r, const Labels& labels) {
  std::size_t k = 0;
  while (k < r.bytes.size()) {
    append_label_at(out, labels, r.address + k);
    std::size_t z = k;
    while (z < r.bytes.size() && r.bytes[z] == 0 && (z == k || !labels.count(r.address + z))) ++z;
    if (z - k >= kOrgRunBytes) {
      fmt::format_to(std::back_inserter(out), "    .org {:#x}\n", r.address + z);
      k = z;
      continue;
    }
    out += "    .byte ";
    const std::size_t first = k, end = std::min(r.bytes.size(), k + 16);
    for (; k < end && (k == first || !labels.count(r.address + k)); ++k)
      fmt::format_to(std::back_inserter(out), "{}{:#04x}", k == first ? "" : ", ", r.bytes[k]);
    out += '\n';
  }
}

void append_nobits_source(std::string& out, const elf::Section& s, const Labels& labels) {
  fmt::format_to(std::back_inserter(out), "    .section {}, \"a{}\", @nobits, {:#x}\n", s.name,
                 (s.flags & elf::SHF_WRITE) ? "w" : "", s.addr);
  std::uint64_t done = 0;
  for (auto it = labels.lower_bound(s.addr); it != labels.end() && it->first < s.addr + s.size; ++it) {
    if (it->first > s.addr + done) fmt::format_to(std::back_inserter(out), "    .zero {}\n", it->first - s.addr - done);
    done = it->first - s.addr;
    fmt::format_to(std::back_inserter(out), "{}:\n", it->second);
  }
  if (s.size > done) fmt::format_to(std::back_inserter(out), "    .zero {}\n", s.size - done);
}

}  // namespace

std::vector<Listing> disassemble_regions(std::span<const Region> regions, const Options& options, Labels& labels) {
  Options named = options;
  named.symbolize = [&labels](std::uint64_t a) -> std::optional<std::string> {
    const auto it = labels.find(a);
    if (it == labels.end()) return std::nullopt;
    return it->second;
  };
  Options decode_only = named;
  decode_only.text = false;
  std::vector<Listing> all;
  for (const Region& r : regions) {
    all.emplace_back();
    if (!(r.flags & elf::SHF_EXECINSTR)) continue;
    const Listing lines = disassemble(r.bytes, r.address, decode_only);
    std::map<std::uint64_t, bool> boundaries;
    for (const auto& l : lines) boundaries[l.address] = true;
    for (std::uint64_t t : label_targets(lines))
      if (boundaries.count(t) && !labels.count(t)) labels.emplace(t, fmt::format(".L{:x}", t));
  }
  for (std::size_t i = 0; i < regions.size(); ++i)
    if (regions[i].flags & elf::SHF_EXECINSTR) all[i] = disassemble(regions[i].bytes, regions[i].address, named);
  return all;
}

std::string reassembly_source(const ReassemblyInput& in) {
  std::string out = "# reassemblable output of pto dis\n";
  for (const auto& g : in.globals) fmt::format_to(std::back_inserter(out), "    .globl {}\n", g);
  for (std::size_t i = 0; i < in.regions.size(); ++i) {
    const Region& r = in.regions[i];
    std::string flags = "a";
    if (r.flags & elf::SHF_WRITE) flags += 'w';
    if (r.flags & elf::SHF_EXECINSTR) flags += 'x';
    fmt::format_to(std::back_inserter(out), "    .section {}, \"{}\", @progbits, {:#x}\n", r.name, flags, r.address);
    if (r.flags & elf::SHF_EXECINSTR) append_code_source(out, in.listings[i], in.labels);
    else append_data_source(out, r, in.labels);
  }
  for (const auto& s : in.nobits) append_nobits_source(out, s, in.labels);
  return out;
}

}  // namespace pto::dis
