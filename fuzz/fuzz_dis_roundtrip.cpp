// libFuzzer target: arbitrary bytes as a code section (`pto dis --raw
// --reassemble`): the reassembly source the CLI prints must assemble back to
// the same bytes at the same address.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "dis/reassemble.hpp"

namespace {

constexpr std::uint64_t kBase = 0x1000;
constexpr std::size_t kMaxBytes = 1024;

[[noreturn]] void fail(const std::string& source, const std::string& why) {
  std::fprintf(stderr, "%s\n--- reassembly source ---\n%s", why.c_str(), source.c_str());
  std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0 || size > kMaxBytes) return 0;
  const std::vector<pto::dis::Region> regions{
      {".text", kBase, pto::elf::SHF_ALLOC | pto::elf::SHF_EXECINSTR, {data, data + size}}};
  std::map<std::uint64_t, std::string> labels;
  const auto listings = pto::dis::disassemble_regions(regions, {}, labels);
  const std::string source = pto::dis::reassembly_source({regions, listings, labels, {}, {}});
  const auto r = pto::as::assemble(source, "reassembly.s");
  if (!r.ok()) fail(source, r.diagnostics.front().format());
  for (const auto& s : r.image->sections) {
    if (s.name != ".text") continue;
    if (s.addr != kBase || s.data != regions.front().bytes) fail(source, "reassembled .text differs");
    return 0;
  }
  fail(source, "no .text section");
}
