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
Word normalize_fp_result(Word value, std::uint8_t type) {
  constexpr std::uint8_t kWidth[15] = {64, 32, 19, 32, 16, 16, 8, 8, 8, 6, 6, 4, 4, 8, 9};
  return zero_extend(value, kWidth[type % 15]);
}

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

}  // namespace

std::span<const HandlerEntry> fsu_handlers() { return kFsuHandlers; }

}  // namespace pto::scalar
