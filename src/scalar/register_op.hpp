// A register-only scalar record as plain data: the ALU operations that have a
// register-only variant (alu_register_only_variant) and the plain
// immediate-offset loads (agu_register_only_variant), with their operands
// pre-extracted, so the run loop's fused blocks can execute them inline
// (docs/architecture.md "Fused loop blocks").  The values are the same
// ScalarBinary / ScalarBinaryW / NormalizeScalarLoadResult rules the
// handlers apply (asl/scalar/model/alu/semantics.asl,
// asl/scalar/model/agu/memory.asl).  The scalar floating-point (FSU) forms
// whose operands are all GPRs run their own handler; the op also says what
// that handler computes when it is carrier arithmetic, so the translation
// tier may inline it (docs/architecture.md "FSU forms").
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
    Fsu,              // the FSU record `insn`: its handler (float_op: what it computes)
    CommitTarget,     // SETC.TGT: BARG.bpcn = left (SetCommitTarget)
  };
  // What an FSU record's handler computes (asl/scalar/model/dispatch/fsu.asl).
  // Handler: nothing simpler is claimed (profile arithmetic with flags,
  // FMIN/FMAX, compares).  Abs: the model's sign-bit clear in every profile
  // (`imm` the mask).  The rest are what the reference profile's hooks
  // compute (asl/arch/profile/reference-profile.asl; no flags): the
  // carriers modulo 2^64 (Add, Sub, Mul; MAdd..NMSub with `index` the
  // addend: product + a, product - a, -(product + a), -(product - a)),
  // value + 1 (Increment: FEXP), the value itself (Identity: FSQRT and the
  // conversions).  Sources are normalised to `in_bits` (sign- or
  // zero-extended by in_signed), the result to `out_bits` (by out_signed).
  enum class FloatOp : std::uint8_t { Handler, Abs, Add, Sub, Mul, MAdd, MSub, NMAdd, NMSub, Increment, Identity };
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
  Word imm = 0;           // BinaryImmediate: the right operand; Load, Store: the scaled offset; Fsu Abs: the mask
  // Fsu: the record (in the run's step pool), what its handler computes,
  // and the source and result normalisation widths.
  const DecodedInsn* insn = nullptr;
  FloatOp float_op = FloatOp::Handler;
  bool in_signed = false, out_signed = false;
  std::uint8_t in_bits = 64, out_bits = 64;
};

// True when `op`'s FloatOp is what the handler computes in every numeric
// profile (Abs); the other named ones hold in the reference profile only.
constexpr bool profile_free(RegisterOp::FloatOp op) { return op == RegisterOp::FloatOp::Abs; }

// The record as a RegisterOp when predecode gave it a register-only variant
// (every operand a GPR, the destination not R0, no right modifier), or it is
// a load or store without address update whose address is a GPR plus an
// immediate or a GPR offset without modifier, whose data are GPRs (a load's
// destination not R0), or an FSU record with no admission pre-check (every
// source a GPR).  An Fsu op points at `d`, which must outlive it.
std::optional<RegisterOp> register_op_of(const DecodedInsn& d);
// The parts, defined beside the variants and handlers (src/scalar/alu.cpp,
// agu.cpp, fsu.cpp); `execute` is left null.
std::optional<RegisterOp> alu_register_op(const DecodedInsn& d);
std::optional<RegisterOp> agu_register_op(const DecodedInsn& d);
std::optional<RegisterOp> fsu_register_op(const DecodedInsn& d);
// SETC.TGT reading GPR `source` inside a fused STD/FP block, where its
// applicability (BundleCommitTargetWritable) holds by construction
// (asl/scalar/model/sys/semantics.asl SetCommitTarget).
RegisterOp commit_target_op(std::uint8_t source);

}  // namespace pto::scalar
