// Test harness for the scalar family handlers: a reference-profile Machine
// driven through the machine's public per-instruction entry point
// (runner::execute_instruction = ExecutePTOInstruction at state.pc, with the
// process-wide handler table: block layer first, then the scalar families).
#pragma once

#include <cstdint>
#include <initializer_list>
#include <stdexcept>
#include <string>
#include <variant>
#include <vector>

#include "arch/machine.hpp"
#include "isa/catalog.hpp"
#include "isa/decoder.hpp"
#include "runner/dispatch.hpp"
#include "scalar/execute.hpp"

namespace pto::test {

enum class ScalarResult { Executed, Rejected, NotImplemented };

class ScalarHarness {
 public:
  explicit ScalarHarness(arch::Word model_bytes = 4096) : machine(arch::MachineConfig::reference(model_bytes)) {}
  explicit ScalarHarness(const arch::MachineConfig& config) : machine(config) {}

  arch::Machine machine;

  arch::State& state() { return machine.state; }

  ScalarResult execute(std::uint64_t bits, unsigned length_bits) {
    const scalar::ExecOutcome o = runner::execute_instruction(machine, bits, length_bits);
    if (scalar::is_success(o)) return ScalarResult::Executed;
    return scalar::is_fault(o) ? ScalarResult::Rejected : ScalarResult::NotImplemented;
  }
};

// Encodes the single form of `m` from field values in catalog field order.
inline std::uint64_t encode_insn(isa::Mnemonic m, std::initializer_list<std::int64_t> values) {
  const auto forms = isa::forms_of_mnemonic(m);
  if (forms.size() != 1) throw std::invalid_argument("mnemonic has no single form");
  const std::vector<std::int64_t> v(values);
  const auto r = isa::encode(isa::form(forms[0]), v);
  if (const auto* e = std::get_if<isa::EncodeError>(&r)) throw std::invalid_argument(e->message);
  return std::get<std::uint64_t>(r);
}

inline unsigned length_of(isa::Mnemonic m) { return isa::form(isa::forms_of_mnemonic(m)[0]).length_bits; }

}  // namespace pto::test
