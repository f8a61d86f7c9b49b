// What one execution attempt returns to the run loop (the handler contract
// is in src/scalar/execute.hpp): success, not implemented, or the fault the
// attempt raised.  One byte: a fault outcome is the FaultCode itself, offset
// past NotImplemented, so the outcome carries its fault without widening the
// value every handler returns in the interpreter's loop, and "the run may
// stop here" stays one comparison (stops_run).
#pragma once

#include <cstdint>

#include "arch/state.hpp"

namespace pto::arch {

enum class ExecOutcome : std::uint8_t {
  Next,            // success; the dispatcher advances TPC by the length
  PcWritten,       // success; the handler wrote state.pc itself
  NotImplemented,  // this model does not execute the form: stop the run
  // NotImplemented + c for every FaultCode c other than Fault_None: the
  // handler raised c with Machine::set_fault (state.pc is the trap vector,
  // state.last_fault == c).  Built by fault_outcome only.
};

inline constexpr ExecOutcome fault_outcome(FaultCode c) {
  return static_cast<ExecOutcome>(static_cast<std::uint8_t>(ExecOutcome::NotImplemented) +
                                  static_cast<std::uint8_t>(c));
}
// Every FaultCode (Fault_ModelTileElements is the last) fits in the byte.
static_assert(static_cast<unsigned>(ExecOutcome::NotImplemented) +
                  static_cast<unsigned>(FaultCode::Fault_ModelTileElements) <= 0xFFu);

inline constexpr bool is_fault(ExecOutcome o) { return o > ExecOutcome::NotImplemented; }

// The fault a fault outcome carries; Fault_None for every other outcome.
inline constexpr FaultCode fault_of(ExecOutcome o) {
  return is_fault(o) ? static_cast<FaultCode>(static_cast<std::uint8_t>(o) -
                                              static_cast<std::uint8_t>(ExecOutcome::NotImplemented))
                     : FaultCode::Fault_None;
}

inline constexpr bool is_success(ExecOutcome o) { return o == ExecOutcome::Next || o == ExecOutcome::PcWritten; }

// A fault or NotImplemented: the outcomes after which the run loop asks
// whether to stop (one comparison, as before faults carried their code).
inline constexpr bool stops_run(ExecOutcome o) { return o >= ExecOutcome::NotImplemented; }

static_assert(fault_of(fault_outcome(FaultCode::Fault_BundleControl)) == FaultCode::Fault_BundleControl);
static_assert(!is_fault(ExecOutcome::NotImplemented) && stops_run(ExecOutcome::NotImplemented));
static_assert(is_fault(fault_outcome(FaultCode::Fault_ExecutionStateCheck)));

}  // namespace pto::arch
