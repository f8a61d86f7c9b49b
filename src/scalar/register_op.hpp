// A register-only scalar record as plain data: the ALU operations that have a
// register-only variant (alu_register_only_variant) and the plain
// immediate-offset loads (agu_register_only_variant), with their operands
// pre-extracted, so the run loop's fused blocks can execute them inline
// (docs/architecture.md "Fused loop blocks").  The values are the same
// ScalarBinary / ScalarBinaryW / NormalizeScalarLoadResult rules the
// handlers apply (asl/scalar/model/alu/semantics.asl,
// asl/scalar/model/agu/memory.asl).
#pragma once

#include <cstdint>
#include <optional>

#include "arch/machine.hpp"
#include "scalar/alu_semantics.hpp"
#include "scalar/execute.hpp"

namespace pto::scalar {

struct RegisterOp;
// Executes `op` on the register file `gpr` of the current PE: true after
// writing dst (or memory); false, with no effect, for a load or store that
// leaves arch::Machine::load_fast / store_fast (the caller then runs the
// record's handler).
using RegisterOpFn = bool (*)(arch::Machine& m, Word* gpr, const RegisterOp& op);

struct RegisterOp {
  enum class Kind : std::uint8_t {
    Binary,           // dst = left OP (right << shamt)
    BinaryImmediate,  // dst = left OP imm
    Load,             // dst = NormalizeScalarLoadResult(mem[address])
    Store,            // mem[address] = right (size bytes)
  };
  // Load, Store: address = left + imm, or left + (index << shamt) when indexed.
  RegisterOpFn execute = nullptr;  // specialised for kind, op, word, size and sign
  Kind kind = Kind::Binary;
  BinaryOp op = BinaryOp::ADD;
  bool word = false;  // the W form: 32-bit operation, result sign-extended
  bool sign = false;  // Load: sign-extend the loaded bytes
  bool indexed = false;
  std::uint8_t dst = 0, left = 0, right = 0;  // GPR numbers; dst is never R0 (Store: left base, right data)
  std::uint8_t index = 0;  // Load, Store with indexed: the offset register
  std::uint8_t shamt = 0;
  std::uint8_t size = 0;  // Load, Store: access bytes (1, 2, 4, 8)
  Word imm = 0;           // BinaryImmediate: the right operand; Load, Store: the scaled offset
};

// The record as a RegisterOp when predecode gave it a register-only variant
// (every operand a GPR, the destination not R0, no right modifier), or it is
// a load or store without address update whose address is a GPR plus an
// immediate or a GPR offset without modifier, whose data are GPRs (a load's
// destination not R0).
std::optional<RegisterOp> register_op_of(const DecodedInsn& d);
// The halves, defined beside the variants (src/scalar/alu.cpp, agu.cpp);
// `execute` is left null.
std::optional<RegisterOp> alu_register_op(const DecodedInsn& d);
std::optional<RegisterOp> agu_register_op(const DecodedInsn& d);

}  // namespace pto::scalar
