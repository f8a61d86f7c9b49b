// libFuzzer target: the assembler must report errors, never crash, on any
// source text; whatever it accepts must disassemble and reassemble to the
// same text-section bytes.  The output and expansion limits are lowered (the
// limits themselves are what is exercised) so that one input stays fast and
// small; fuzz/fuzz_asm.dict lists the directive and operator tokens.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "asm/assembler.hpp"
#include "dis/disassembler.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view src(reinterpret_cast<const char*>(data), size);
  pto::as::Options options;
  options.max_output = std::uint64_t{1} << 20;
  options.max_expansion_statements = std::size_t{1} << 12;
  const auto r = pto::as::assemble(src, "fuzz.s", options);
  if (!r.ok()) return 0;
  for (const auto& s : r.image->sections) {
    if (!(s.flags & pto::elf::SHF_EXECINSTR)) continue;
    std::string again = ".section " + s.name + ", \"ax\", @progbits, " + std::to_string(s.addr) + "\n";
    for (const auto& l : pto::dis::disassemble(s.data, s.addr, {})) (again += l.text()) += "\n";
    const auto r2 = pto::as::assemble(again, "again.s");
    if (!r2.ok()) std::abort();
  }
  return 0;
}
