// FSU family handlers: scalar floating point on FP64/FP32 carriers in GPRs
// (asl/scalar/model/dispatch/fsu.asl, asl/scalar/model/fsu/{profile,arithmetic}.asl).
// The model fixes carriers, ABS, MIN/MAX, comparisons, flags and result
// normalisation; arithmetic and conversions cross the numeric profile hooks
// (src/numerics/profile.hpp).  SrcType is constrained to {0 FP64, 1 FP32} and
// DstType to 0..14 by the catalog, so the ASL's type-support checks cannot
// fail once the dispatcher has applied the field constraints.
#include "numerics/profile.hpp"
#include "scalar/alu_semantics.hpp"
#include "scalar/handler_support.hpp"
#include "scalar/register_op.hpp"

namespace pto::scalar {
namespace {

using M = isa::Mnemonic;
using num::DataType;

// The profile behind the hooks, chosen by the machine configuration: the
// ASL reference profile the spec's tests observe, or IEEE results
// (docs/semantics-notes.md "Scalar FSU numeric profile", docs/numerics.md).
const num::NumericProfile& numeric_profile(const arch::Machine& m) {
  return m.config().numeric_profile == arch::NumericProfileKind::Reference ? num::reference_profile()
                                                                            : num::ieee_profile();
}

// ScalarFPActiveRoundingMode: CORE_STATE[39:37].
num::RoundingMode active_rounding_mode(const arch::State& st) {
  return num::decode_scalar_frm(static_cast<unsigned>(st.sysregs.core_state >> arch::kCoreStateRoundingShift));
}

// RecordNumericStatusFlags: sticky OR into CORE_STATE[36:32].
void record_flags(arch::State& st, num::Flags flags) {
  st.sysregs.core_state |= static_cast<Word>(flags & 0x1F) << arch::kCoreStateFlagsShift;
}

// ScalarFPSourceTypeCode for the two legal SrcType values (0 FP64, 1 FP32).
template <M Mn>
std::uint8_t fp_source_type(const DecodedInsn& d) {
  return static_cast<std::uint8_t>(d.u(slots_of(Mn).src_type) & 1);
}

DataType fp_data_type(std::uint8_t code) { return code == 1 ? DataType::FP32 : DataType::FP64; }

// NormalizeScalarFPSource: an FP32 carrier is the low word.
Word normalize_fp_source(Word value, std::uint8_t type) { return type == 1 ? zero_extend(value, 32) : value; }

// NormalizeScalarFPResult: the carrier width of each FP type code 0..14.
std::uint8_t fp_result_width(std::uint8_t type) {
  constexpr std::uint8_t kWidth[15] = {64, 32, 19, 32, 16, 16, 8, 8, 8, 6, 6, 4, 4, 8, 9};
  return kWidth[type % 15];
}
Word normalize_fp_result(Word value, std::uint8_t type) { return zero_extend(value, fp_result_width(type)); }

// NormalizeScalarIntegerResult: integer type codes 0..14 (0..7 unsigned, 8..14 signed).
Word normalize_integer_result(Word value, std::uint8_t type) {
  const num::ScalarIntegerType t = num::scalar_integer_type(type);
  return t.is_signed ? sign_extend(value, t.width) : zero_extend(value, t.width);
}

// NormalizeScalarIntegerSource: code 1 (U32) zero-extends, 9 (S32) sign-extends.
Word normalize_integer_source(Word value, std::uint8_t type) {
  if (type == 1) return zero_extend(value, 32);
  if (type == 9) return sign_extend(value, 32);
  return value;
}

template <M Mn>
void write_result(arch::Machine& m, const DecodedInsn& d, Word value) {
  write_destination<slots_of(Mn).reg_dst>(m.state, d, value);
}

// ExecuteDecodedFPUnary: ABS is a sign-bit clear in the model; the rest use
// the profile.
template <M Mn, num::UnaryOp Op>
ExecOutcome execute_fp_unary(arch::Machine& m, const DecodedInsn& d) {
  const std::uint8_t type = fp_source_type<Mn>(d);
  const Word value = normalize_fp_source(read_source<slots_of(Mn).src_l>(m.state, d), type);
  num::Result r;
  if constexpr (Op == num::UnaryOp::ABS) {
    r.bits = value & (type == 1 ? Word{0x7FFFFFFF} : Word{0x7FFFFFFFFFFFFFFF});
  } else {
    r = numeric_profile(m).scalar_unary(Op, active_rounding_mode(m.state), type, value);
  }
  record_flags(m.state, r.flags);
  write_result<Mn>(m, d, normalize_fp_result(r.bits, type));
  return ExecOutcome::Next;
}

// ExecuteDecodedFPBinary: MIN/MAX follow the model's ScalarFPMinMax (one NaN
// selects the other operand, two give the canonical NaN, NV for an sNaN),
// which is the ADR 0050 rule of num::ieee_min_max; the rest use the profile.
template <M Mn, num::BinaryOp Op>
ExecOutcome execute_fp_binary(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  const std::uint8_t type = fp_source_type<Mn>(d);
  const Word left = normalize_fp_source(read_source<s.src_l>(m.state, d), type);
  const Word right = normalize_fp_source(read_source<s.src_r>(m.state, d), type);
  num::Result r;
  if constexpr (Op == num::BinaryOp::MIN || Op == num::BinaryOp::MAX) {
    r = num::ieee_min_max(Op == num::BinaryOp::MAX, fp_data_type(type), left, right);
  } else {
    r = numeric_profile(m).scalar_binary(Op, active_rounding_mode(m.state), type, left, right);
  }
  record_flags(m.state, r.flags);
  write_result<Mn>(m, d, normalize_fp_result(r.bits, type));
  return ExecOutcome::Next;
}

// ExecuteDecodedFPFused
template <M Mn, num::FusedOp Op>
ExecOutcome execute_fp_fused(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  const std::uint8_t type = fp_source_type<Mn>(d);
  const Word addend = normalize_fp_source(read_source<s.src_a>(m.state, d), type);
  const Word left = normalize_fp_source(read_source<s.src_l>(m.state, d), type);
  const Word right = normalize_fp_source(read_source<s.src_r>(m.state, d), type);
  const num::Result r = numeric_profile(m).scalar_fused(Op, active_rounding_mode(m.state), type, addend, left, right);
  record_flags(m.state, r.flags);
  write_result<Mn>(m, d, normalize_fp_result(r.bits, type));
  return ExecOutcome::Next;
}

// ScalarFPEncodingCompare: any NaN makes every relation (NE included) false;
// zeros compare equal; otherwise the IEEE order of the encodings.
bool encoding_compare(num::CompareOp op, DataType t, Word left, Word right) {
  const num::ValueClass lc = num::classify(t, left);
  const num::ValueClass rc = num::classify(t, right);
  if (num::is_nan(lc) || num::is_nan(rc)) return false;
  const bool both_zero = num::is_zero(lc) && num::is_zero(rc);
  const unsigned sign = t == DataType::FP32 ? 31 : 63;
  // ScalarFP32OrderKey / ScalarFP64OrderKey: monotonic unsigned keys.
  const auto key = [sign](Word v) { return (v >> sign) & 1 ? ~v & low_mask(sign + 1) : v ^ (Word{1} << sign); };
  const bool equal = left == right || both_zero;
  const bool less = !both_zero && key(left) < key(right);
  switch (op) {
    case num::CompareOp::EQ: return equal;
    case num::CompareOp::NE: return !equal;
    case num::CompareOp::LT: return less;
    case num::CompareOp::LE: return less || equal;
    case num::CompareOp::GT: return !less && !equal;
    case num::CompareOp::GE: return !less;
  }
  return false;
}

// ExecuteDecodedFPCompare: NV for any sNaN, or any NaN when signaling.
template <M Mn, num::CompareOp Op, bool Signaling>
ExecOutcome execute_fp_compare(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  const std::uint8_t type = fp_source_type<Mn>(d);
  const DataType t = fp_data_type(type);
  const Word left = normalize_fp_source(read_source<s.src_l>(m.state, d), type);
  const Word right = normalize_fp_source(read_source<s.src_r>(m.state, d), type);
  const num::ValueClass lc = num::classify(t, left);
  const num::ValueClass rc = num::classify(t, right);
  const bool any_nan = num::is_nan(lc) || num::is_nan(rc);
  const bool any_signaling = lc == num::ValueClass::SignalingNaN || rc == num::ValueClass::SignalingNaN;
  if ((Signaling && any_nan) || any_signaling) record_flags(m.state, num::kNV);
  write_result<Mn>(m, d, Word{encoding_compare(Op, t, left, right)});
  return ExecOutcome::Next;
}

// ExecuteDecodedFPConvert, one template per conversion kind.
enum class Conversion : std::uint8_t { FloatToFloat, FloatToInteger, SignedToFloat, UnsignedToFloat };

template <M Mn, Conversion Kind, num::RoundingMode Fixed = num::RoundingMode::RNE>
ExecOutcome execute_fp_convert(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  const auto selector = static_cast<std::uint8_t>(d.u(s.src_type) & 1);
  const auto destination = static_cast<std::uint8_t>(d.u(s.dst_type) & 31);
  const Word value = read_source<s.src_l>(m.state, d);
  const num::NumericProfile& p = numeric_profile(m);
  num::Result r;
  Word result;
  if constexpr (Kind == Conversion::FloatToFloat) {  // FCVT
    r = p.scalar_convert(active_rounding_mode(m.state), destination, selector, normalize_fp_source(value, selector));
    result = normalize_fp_result(r.bits, destination);
  } else if constexpr (Kind == Conversion::FloatToInteger) {  // FCVTA/M/N/P/Z
    r = p.scalar_to_integer(Fixed, destination, selector, normalize_fp_source(value, selector));
    result = normalize_integer_result(r.bits, destination);
  } else {  // SCVTF (S64/S32 = codes 8/9), UCVTF (U64/U32 = codes 0/1)
    const std::uint8_t source = Kind == Conversion::SignedToFloat ? selector + 8 : selector;
    r = p.scalar_from_integer(active_rounding_mode(m.state), source, destination,
                              normalize_integer_source(value, source));
    result = normalize_fp_result(r.bits, destination);
  }
  record_flags(m.state, r.flags);
  write_result<Mn>(m, d, result);
  return ExecOutcome::Next;
}

using U = num::UnaryOp;
using B = num::BinaryOp;
using F = num::FusedOp;
using C = num::CompareOp;
using R = num::RoundingMode;

constexpr HandlerEntry kFsuHandlers[] = {
    {M::FABS, &execute_fp_unary<M::FABS, U::ABS>},
    {M::FEXP, &execute_fp_unary<M::FEXP, U::EXP>},
    {M::FRECIP, &execute_fp_unary<M::FRECIP, U::RECIP>},
    {M::FSQRT, &execute_fp_unary<M::FSQRT, U::SQRT>},
    {M::FADD, &execute_fp_binary<M::FADD, B::ADD>},
    {M::FSUB, &execute_fp_binary<M::FSUB, B::SUB>},
    {M::FMUL, &execute_fp_binary<M::FMUL, B::MUL>},
    {M::FDIV, &execute_fp_binary<M::FDIV, B::DIV>},
    {M::FMIN, &execute_fp_binary<M::FMIN, B::MIN>},
    {M::FMAX, &execute_fp_binary<M::FMAX, B::MAX>},
    {M::FEQ, &execute_fp_compare<M::FEQ, C::EQ, false>},
    {M::FEQS, &execute_fp_compare<M::FEQS, C::EQ, true>},
    {M::FNE, &execute_fp_compare<M::FNE, C::NE, false>},
    {M::FNES, &execute_fp_compare<M::FNES, C::NE, true>},
    {M::FLT, &execute_fp_compare<M::FLT, C::LT, false>},
    {M::FLTS, &execute_fp_compare<M::FLTS, C::LT, true>},
    {M::FGE, &execute_fp_compare<M::FGE, C::GE, false>},
    {M::FGES, &execute_fp_compare<M::FGES, C::GE, true>},
    {M::FMADD, &execute_fp_fused<M::FMADD, F::MADD>},
    {M::FMSUB, &execute_fp_fused<M::FMSUB, F::MSUB>},
    {M::FNMADD, &execute_fp_fused<M::FNMADD, F::NMADD>},
    {M::FNMSUB, &execute_fp_fused<M::FNMSUB, F::NMSUB>},
    {M::FCVT, &execute_fp_convert<M::FCVT, Conversion::FloatToFloat>},
    {M::FCVTA, &execute_fp_convert<M::FCVTA, Conversion::FloatToInteger, R::RNA>},
    {M::FCVTM, &execute_fp_convert<M::FCVTM, Conversion::FloatToInteger, R::RTM>},
    {M::FCVTN, &execute_fp_convert<M::FCVTN, Conversion::FloatToInteger, R::RNE>},
    {M::FCVTP, &execute_fp_convert<M::FCVTP, Conversion::FloatToInteger, R::RTP>},
    {M::FCVTZ, &execute_fp_convert<M::FCVTZ, Conversion::FloatToInteger, R::RTZ>},
    {M::SCVTF, &execute_fp_convert<M::SCVTF, Conversion::SignedToFloat>},
    {M::UCVTF, &execute_fp_convert<M::UCVTF, Conversion::UnsignedToFloat>},
};

// ---- FSU records as RegisterOps (scalar/register_op.hpp) ----

using FloatOp = RegisterOp::FloatOp;

// How a form's handler normalises its sources and its result.
enum class Carriers : std::uint8_t {
  Fp,            // NormalizeScalarFPSource / NormalizeScalarFPResult of SrcType
  FpToFp,        // FCVT: SrcType in, DstType's FP carrier out
  FpToInteger,   // FCVTA..FCVTZ: SrcType in, NormalizeScalarIntegerResult of DstType
  SignedToFp,    // SCVTF: S64/S32 in (NormalizeScalarIntegerSource), DstType's FP carrier out
  UnsignedToFp,  // UCVTF: U64/U32 in
};

struct FsuRecipe {
  M mnemonic;
  FloatOp op;
  Carriers carriers;
};

// What each handler computes (register_op.hpp FloatOp): ABS in the model,
// the rest through the reference profile's hooks (src/numerics/profile.cpp,
// asl/arch/profile/reference-profile.asl), whose results for these forms
// carry no flags.  FRECIP and FDIV (DZ), FMIN/FMAX and the compares are
// Handler: nothing simpler is claimed.
constexpr FsuRecipe kFsuRecipes[] = {
    {M::FABS, FloatOp::Abs, Carriers::Fp},           {M::FEXP, FloatOp::Increment, Carriers::Fp},
    {M::FSQRT, FloatOp::Identity, Carriers::Fp},     {M::FADD, FloatOp::Add, Carriers::Fp},
    {M::FSUB, FloatOp::Sub, Carriers::Fp},           {M::FMUL, FloatOp::Mul, Carriers::Fp},
    {M::FMADD, FloatOp::MAdd, Carriers::Fp},         {M::FMSUB, FloatOp::MSub, Carriers::Fp},
    {M::FNMADD, FloatOp::NMAdd, Carriers::Fp},       {M::FNMSUB, FloatOp::NMSub, Carriers::Fp},
    {M::FCVT, FloatOp::Identity, Carriers::FpToFp},  {M::FCVTA, FloatOp::Identity, Carriers::FpToInteger},
    {M::FCVTM, FloatOp::Identity, Carriers::FpToInteger}, {M::FCVTN, FloatOp::Identity, Carriers::FpToInteger},
    {M::FCVTP, FloatOp::Identity, Carriers::FpToInteger}, {M::FCVTZ, FloatOp::Identity, Carriers::FpToInteger},
    {M::SCVTF, FloatOp::Identity, Carriers::SignedToFp},  {M::UCVTF, FloatOp::Identity, Carriers::UnsignedToFp},
};

FsuRecipe recipe_of(M mnemonic) {
  for (const FsuRecipe& r : kFsuRecipes) {
    if (r.mnemonic == mnemonic) return r;
  }
  return {mnemonic, FloatOp::Handler, Carriers::Fp};
}

bool has_fsu_handler(const DecodedInsn& d) {
  for (const HandlerEntry& e : kFsuHandlers) {
    if (e.mnemonic == d.mnemonic) return e.handler == d.handler;
  }
  return false;
}

std::uint8_t field_register(const DecodedInsn& d, int slot) {
  return slot < 0 ? std::uint8_t{0} : static_cast<std::uint8_t>(d.reg(static_cast<unsigned>(slot)));
}

// The widths the handler's normalisations use for this record.
void set_carriers(RegisterOp& op, Carriers carriers, std::uint8_t selector, std::uint8_t destination) {
  op.in_bits = selector == 1 ? 32 : 64;  // FP32 (selector 1), U32 (code 1) and S32 (code 9) are 32-bit
  op.in_signed = carriers == Carriers::SignedToFp;
  switch (carriers) {
    case Carriers::Fp: op.out_bits = fp_result_width(selector); break;
    case Carriers::FpToFp:
    case Carriers::SignedToFp:
    case Carriers::UnsignedToFp: op.out_bits = fp_result_width(destination); break;
    case Carriers::FpToInteger: {
      const num::ScalarIntegerType t = num::scalar_integer_type(destination);
      op.out_bits = static_cast<std::uint8_t>(t.width);
      op.out_signed = t.is_signed;
      break;
    }
  }
}

}  // namespace

std::span<const HandlerEntry> fsu_handlers() { return kFsuHandlers; }

std::optional<RegisterOp> fsu_register_op(const DecodedInsn& d) {
  // No pre-check: every Reg5 source is a GPR, nothing to admit.
  if (d.prechecks != 0 || !has_fsu_handler(d)) return std::nullopt;
  const ScalarFormSlots s = slots_of(d.mnemonic);
  const FsuRecipe recipe = recipe_of(d.mnemonic);
  RegisterOp op;
  op.kind = RegisterOp::Kind::Fsu;
  op.insn = &d;
  op.float_op = recipe.op;
  op.dst = field_register(d, s.reg_dst);
  op.left = field_register(d, s.src_l);
  op.right = field_register(d, s.src_r);
  op.index = field_register(d, s.src_a);
  const auto selector = static_cast<std::uint8_t>(d.u(static_cast<unsigned>(s.src_type)) & 1);
  const auto destination =
      s.dst_type < 0 ? std::uint8_t{0} : static_cast<std::uint8_t>(d.u(static_cast<unsigned>(s.dst_type)) & 31);
  set_carriers(op, recipe.carriers, selector, destination);
  if (recipe.op == FloatOp::Abs) op.imm = selector == 1 ? Word{0x7FFFFFFF} : Word{0x7FFFFFFFFFFFFFFF};
  return op;
}

}  // namespace pto::scalar
