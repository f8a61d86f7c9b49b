// Instruction dispatch: pre-decoding into the cached record and one
// execution attempt (ExecutePTOInstruction, asl/arch/dispatch/top-level.asl).
// The contract with handlers is in src/scalar/execute.hpp.
#pragma once

#include <cstdint>

#include "arch/machine.hpp"
#include "scalar/execute.hpp"

namespace pto::runner {

// Decode `length_bits` bits into the record the decode cache keeps.  Never
// fails: undecodable words get a handler that raises Fault_IllegalInstruction,
// accepted forms without a handler one that reports NotImplemented.
scalar::DecodedInsn predecode(std::uint64_t bits, unsigned length_bits);

// The admission checks of ExecuteScalarInstruction / ExecuteCommandInstruction
// that depend on state (body entry, applicability, SYS-terminal pending, Reg5
// queue validity).  Returns false after raising the fault.
bool admit(arch::Machine& m, const scalar::DecodedInsn& d);

// Body entry (docs/semantics-notes.md "Block body entry"): the first decoded
// instruction of an active block that is neither a header command nor a
// block boundary enters the body.
inline void enter_body_if_body_instruction(arch::BlockState& b, const scalar::DecodedInsn& d) {
  if (b.bundle_active && !b.bundle_body_active && (d.traits & scalar::kTraitDecoded) &&
      !(d.traits & (scalar::kTraitBlockHeader | scalar::kTraitBlockBoundary))) {
    b.bundle_body_active = true;
  }
}

// BeginArchitecturalInstructionAttempt: clears the fault record and
// advances time by one unit per attempt (AdvanceArchitecturalTime).
inline void begin_attempt(arch::State& s) {
  s.last_fault = arch::FaultCode::Fault_None;
  s.fault_address = 0;
  ++s.sysregs.cycle;
}

// Admission and the handler of one attempt at state.pc, after begin_attempt;
// TPC is not advanced.
inline scalar::ExecOutcome admit_and_run(arch::Machine& m, const scalar::DecodedInsn& d) {
  arch::State& s = m.state;
  if (d.prechecks != 0 || s.block.system_block_terminal_pending) {
    if (!admit(m, d)) return m.raised();
  } else {
    // Without pre-checks and with no SYS terminal pending every decoded form
    // is applicable (see admit): only the body entry rule remains.
    enter_body_if_body_instruction(s.block, d);
  }
  return d.handler(m, d);
}

// One execution attempt at state.pc: BeginArchitecturalInstructionAttempt,
// admission, the handler, then the sequential TPC advance.
inline scalar::ExecOutcome execute(arch::Machine& m, const scalar::DecodedInsn& d) {
  arch::State& s = m.state;
  begin_attempt(s);
  const scalar::ExecOutcome o = admit_and_run(m, d);
  if (o == scalar::ExecOutcome::Next) s.pc += d.length_bytes;
  return o;
}

// ExecutePTOInstruction(bits, length_bits) at state.pc, without fetch: the
// entry the spec's test points use.
scalar::ExecOutcome execute_instruction(arch::Machine& m, std::uint64_t bits, unsigned length_bits);

// Handler shared by every undecodable or rejected word.
scalar::ExecOutcome illegal_instruction(arch::Machine& m, const scalar::DecodedInsn& d);
scalar::ExecOutcome not_implemented(arch::Machine& m, const scalar::DecodedInsn& d);

}  // namespace pto::runner
