// Hand-assembled scalar programs shared by the run-loop benchmarks
// (bench/bench_run.cpp) and the exactness tests that check those very
// programs (tests/unit/runner_run_loop_exactness_test.cpp), and the encoder
// they are written with.  No test framework here: the benchmark links none.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "isa/decoder.hpp"

namespace pto::support {

using NamedFields = std::initializer_list<std::pair<std::string_view, std::int64_t>>;

// Encodes the first form of `mnemonic` whose assembly template contains
// `variant` (any form for "") from named field values; unnamed fields are 0.
inline std::uint64_t encode_named(std::string_view mnemonic, NamedFields named, std::string_view variant = "") {
  const auto m = isa::mnemonic_from_name(mnemonic);
  if (!m) throw std::invalid_argument("unknown mnemonic " + std::string(mnemonic));
  for (const auto i : isa::forms_of_mnemonic(*m)) {
    const auto& f = isa::form(i);
    if (std::string_view(f.asm_template).find(variant) == std::string_view::npos) continue;
    std::vector<std::int64_t> values(isa::fields_of(f).size(), 0);
    for (const auto& [name, v] : named) values.at(static_cast<std::size_t>(isa::field_index(f, name))) = v;
    return std::get<std::uint64_t>(isa::encode(f, values));
  }
  throw std::invalid_argument("no " + std::string(variant) + " form of " + std::string(mnemonic));
}

// The checksum kernel's registers (GPR numbers).
enum ChecksumGpr : unsigned { kA0 = 2, kA1 = 3, kA2 = 4, kA3 = 5, kA4 = 6, kA5 = 7, kA6 = 8 };

// loop: BSTART.STD COND loop            ; commit back to loop while a0 != a1
//       addi a0, 1 -> a0 ; andi a0, 511 -> a5 ; add a3, a5<<3 -> a6
//       ldi [a6, 0] -> a2 ; add a4, a2 -> a4 ; setc.ne a0, a1 ; BSTOP
// exit: (stop pc)
inline std::vector<std::uint64_t> checksum_kernel() {
  return {encode_named("BSTART.STD", {{"simm17", 0}}, "COND"),  // offset 0: the block loops onto itself
          encode_named("ADDI", {{"RegDst", kA0}, {"SrcL", kA0}, {"uimm12", 1}}),
          encode_named("ANDI", {{"RegDst", kA5}, {"SrcL", kA0}, {"simm12", 511}}),
          encode_named("ADD", {{"RegDst", kA6}, {"SrcL", kA3}, {"SrcR", kA5}, {"SrcRType", 3}, {"shamt", 3}}),
          encode_named("LDI", {{"RegDst", kA2}, {"SrcL", kA6}, {"simm12", 0}}),
          encode_named("ADD", {{"RegDst", kA4}, {"SrcL", kA4}, {"SrcR", kA2}, {"SrcRType", 3}, {"shamt", 0}}),
          encode_named("SETC.NE", {{"SrcL", kA0}, {"SrcR", kA1}, {"SrcRType", 0}}),
          encode_named("BSTOP", {})};
}

}  // namespace pto::support
