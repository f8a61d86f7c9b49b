// Internal helpers for the scalar family handler files (not part of the
// public API): operand reads by compile-time slot, and the registration
// record each family file exports.
#pragma once

#include <span>

#include "arch/machine.hpp"
#include "scalar/execute.hpp"
#include "scalar/operands.hpp"
#include "scalar/tables.hpp"

namespace pto::scalar {

struct HandlerEntry {
  isa::Mnemonic mnemonic;
  Handler handler;
};

// One list per family, installed by register_scalar_family_handlers.
std::span<const HandlerEntry> alu_handlers();
std::span<const HandlerEntry> agu_handlers();
std::span<const HandlerEntry> bru_handlers();
std::span<const HandlerEntry> amo_handlers();
std::span<const HandlerEntry> sys_handlers();
std::span<const HandlerEntry> fsu_handlers();
std::span<const HandlerEntry> gqm_handlers();  // HL.QMT/QPUSH/QPOP commands (gqm.cpp)

// ReadDecodedScalarRegister for a field known at compile time.  The
// dispatcher has already checked queue validity (execute.hpp step 5).
template <int Slot>
inline Word read_source(const arch::State& s, const DecodedInsn& d) {
  static_assert(Slot >= 0, "the form has no such source field");
  return s.read_reg5(d.reg(Slot));
}

// WriteScalarDestination for a field known at compile time.
template <int Slot>
inline void write_destination(arch::State& s, const DecodedInsn& d, Word value) {
  static_assert(Slot >= 0, "the form has no such destination field");
  s.write_reg5(d.reg(Slot), value);
}

// ScalarDecodedWord: the decoder already sign-extends signed fields.
template <int Slot>
inline Word field_word(const DecodedInsn& d) {
  static_assert(Slot >= 0, "the form has no such field");
  return d.u(Slot);
}

// Source selector 24 = t#1 (C.* implicit sources).
inline constexpr unsigned kReg5T1 = arch::kReg5TQueueFirst;

}  // namespace pto::scalar
