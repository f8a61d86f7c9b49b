#include "tile/matrix_postprocess.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <vector>
#include <utility>

#include "numerics/f16c_span.hpp"
#include "numerics/format.hpp"
#include "tile/matrix_postprocess_isa.hpp"
#include "tile/ops_matrix.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <xmmintrin.h>
#define PTO_POSTPROCESS_X86 1
#endif

namespace pto::tile::postprocess {

namespace {

using num::RoundingMode;
using num::ValueClass;

constexpr num::Flags kOverflow = num::kOF | num::kNX;   // 0x14
constexpr num::Flags kUnderflow = num::kUF | num::kNX;  // 0x18

// FloatingToInteger (asl/scalar/model/fsu/arithmetic.asl) with the reference
// profile's FloatingRoundNearest (ties to even).  The result is an exact
// integer held in a double (|value| >= 2^52 has no fraction to round).
double to_integer(double value, RoundingMode mode) noexcept {
  const double lower = std::floor(value);
  const double fraction = value - lower;
  const bool lower_odd = std::fmod(lower, 2.0) != 0.0;
  switch (mode) {
    case RoundingMode::RNE:
      if (fraction != 0.5) return fraction < 0.5 ? lower : lower + 1;
      return lower_odd ? lower + 1 : lower;
    case RoundingMode::RTP: return std::ceil(value);
    case RoundingMode::RTM: return lower;
    case RoundingMode::RTZ: return std::trunc(value);
    case RoundingMode::RNA:
      if (fraction != 0.5) return fraction < 0.5 ? lower : lower + 1;
      return value < 0.0 ? lower : lower + 1;
    case RoundingMode::RTO: return fraction == 0.0 || lower_odd ? lower : lower + 1;
    case RoundingMode::RHB: return fraction < 0.5 ? lower : lower + 1;
  }
  return lower;
}

// MatrixRoundMagnitude: a magnitude rounds with RTP/RTM swapped for a
// negative value; RHB keeps the halfway magnitude of a negative value.
double round_magnitude(double magnitude, RoundingMode mode, bool negative) noexcept {
  if (negative && mode == RoundingMode::RHB) {
    const double lower = std::floor(magnitude);
    return magnitude - lower <= 0.5 ? lower : lower + 1;
  }
  if (negative && mode == RoundingMode::RTP) mode = RoundingMode::RTM;
  else if (negative && mode == RoundingMode::RTM) mode = RoundingMode::RTP;
  return to_integer(magnitude, mode);
}

// Zeros{64} + integer: the low 64 bits of an exact integer's two's complement.
std::uint64_t integer_word(double integer) noexcept {
  if (!std::isfinite(integer)) return 0;  // unreachable under the documented preconditions
  if (std::fabs(integer) < 0x1p63) return static_cast<std::uint64_t>(static_cast<std::int64_t>(integer));
  int exponent = 0;
  const double fraction = std::frexp(std::fabs(integer), &exponent);  // |integer| = fraction * 2^exponent
  const auto significand = static_cast<std::uint64_t>(std::ldexp(fraction, 53));
  const int shift = exponent - 53;  // >= 11: |integer| >= 2^63
  const std::uint64_t magnitude = shift >= 64 ? 0 : significand << shift;
  return integer < 0 ? 0 - magnitude : magnitude;
}

unsigned integer_bits(DataType t) noexcept { return num::is_packed4(t) ? 4 : num::element_width(t); }

// NormalizeTileInteger (asl/tile/model/numeric/formats.asl).
std::uint64_t normalize_integer(std::uint64_t v, DataType t) noexcept {
  const unsigned bits = integer_bits(t);
  if (bits >= 64) return v;
  const std::uint64_t low = v & ((std::uint64_t{1} << bits) - 1);
  if (!num::is_signed(t)) return low;
  const unsigned shift = 64 - bits;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(low << shift) >> shift);
}

// ReferenceIntegerValue of TileIntegerMinimum / TileIntegerMaximum.
std::pair<double, double> integer_range(DataType t) noexcept {
  const int bits = static_cast<int>(integer_bits(t));
  if (num::is_signed(t)) return {-std::ldexp(1.0, bits - 1), std::ldexp(1.0, bits - 1) - 1};
  return {0.0, std::ldexp(1.0, bits) - 1};
}

std::uint64_t integer_minimum(DataType t) noexcept { return integer_word(integer_range(t).first); }
std::uint64_t integer_maximum(DataType t) noexcept { return integer_word(integer_range(t).second); }

// floor(log2(magnitude)) clamped to -149..128, the exponent the ASL
// normalisation loops reach.
int binary_exponent(double magnitude) noexcept {
  int exponent = 0;
  std::frexp(magnitude, &exponent);
  return std::clamp(exponent - 1, -149, 128);
}

// ReferenceFP32FiniteEncoding (asl/arch/profile/reference-quantization.asl).
num::Result fp32_encoding(double value, RoundingMode mode) noexcept {
  if (value == 0.0) return {0, 0};
  const bool negative = value < 0.0;
  const std::uint64_t sign = negative ? 0x80000000U : 0;
  const int exponent = binary_exponent(std::fabs(value));
  if (exponent > 127) return {sign | 0x7f800000U, kOverflow};
  if (exponent < -126) {
    const double scaled = std::ldexp(value, 149);
    const double rounded = to_integer(scaled, mode);
    const auto magnitude = static_cast<std::uint64_t>(std::fabs(rounded));
    if (magnitude == 0) return {sign, kUnderflow};
    return {sign + magnitude, rounded == scaled ? num::Flags{0} : kUnderflow};
  }
  const double scaled = std::ldexp(value, 23 - exponent);
  const double rounded = to_integer(scaled, mode);
  auto magnitude = static_cast<std::uint64_t>(std::fabs(rounded));
  std::uint64_t encoded_exponent = static_cast<std::uint64_t>(exponent + 127);
  if (magnitude == 0x1000000U) {
    magnitude = 0x800000U;
    ++encoded_exponent;
  }
  if (encoded_exponent >= 255) return {sign | 0x7f800000U, kOverflow};
  return {sign + encoded_exponent * 0x800000U + (magnitude - 0x800000U), rounded == scaled ? num::Flags{0} : num::kNX};
}

// ReferenceBinary16Encoding: FP16 or BF16.
num::Result binary16_encoding(double value, DataType t, Control control) noexcept {
  if (value == 0.0) return {0, 0};
  const bool bf16 = t == DataType::BF16;
  const int fraction_bits = bf16 ? 7 : 10, bias = bf16 ? 127 : 15;
  const int minimum_exponent = bf16 ? -126 : -14, minimum_subnormal_exponent = bf16 ? -133 : -24;
  const std::uint64_t fraction_scale = std::uint64_t{1} << fraction_bits;
  const bool negative = value < 0.0;
  const double magnitude = std::fabs(value);
  const std::uint64_t sign = negative ? 0x8000U : 0;
  const num::Result overflow{sign + (control.saturating ? (bf16 ? 0x7f7fU : 0x7bffU) : (bf16 ? 0x7f80U : 0x7c00U)),
                             kOverflow};
  const int exponent = binary_exponent(magnitude);
  if (exponent > bias) return overflow;  // maximum exponent = bias
  if (exponent < minimum_exponent) {
    const double scaled = std::ldexp(magnitude, -minimum_subnormal_exponent);
    const double rounded = round_magnitude(scaled, control.rounding, negative);
    const num::Flags flags = rounded == scaled ? num::Flags{0} : kUnderflow;
    if (rounded >= static_cast<double>(fraction_scale)) return {sign + fraction_scale, flags};
    return {sign + static_cast<std::uint64_t>(std::max(rounded, 0.0)), flags};
  }
  const double scaled = std::ldexp(magnitude, fraction_bits - exponent);
  auto rounded = static_cast<std::uint64_t>(round_magnitude(scaled, control.rounding, negative));
  int encoded_exponent = exponent + bias;
  if (rounded == 2 * fraction_scale) {
    rounded = fraction_scale;
    ++encoded_exponent;
  }
  if (encoded_exponent >= 2 * bias + 1) return overflow;
  const std::uint64_t encoded = static_cast<std::uint64_t>(encoded_exponent) * fraction_scale + (rounded - fraction_scale);
  return {sign + encoded, static_cast<double>(rounded) == scaled ? num::Flags{0} : num::kNX};
}

// ReferenceFP8FiniteValue: E4M3 or HiF8 (the dot-field decode of HiF8).
double fp8_finite_value(DataType t, unsigned code) noexcept {
  double magnitude = 0.0;
  if (t == DataType::E4M3) {
    const unsigned exponent = (code >> 3) & 0xFU, fraction = code & 7U;
    magnitude = exponent == 0 ? fraction * 0x1p-9 : (1.0 + fraction / 8.0) * std::ldexp(1.0, static_cast<int>(exponent) - 7);
  } else {
    const unsigned body = code & 0x7FU;
    const auto signed_exponent = [](unsigned field, unsigned half, unsigned absolute) {
      return field < half ? static_cast<int>(absolute) : -static_cast<int>(absolute);
    };
    if (body <= 7) {
      magnitude = body == 0 ? 0.0 : std::ldexp(1.0, static_cast<int>(body) - 23);
    } else if (body <= 15) {
      magnitude = 1.0 + (body - 8) / 8.0;
    } else if (body <= 31) {
      magnitude = (1.0 + (code & 7U) / 8.0) * std::ldexp(1.0, ((code >> 3) & 1U) == 0 ? 1 : -1);
    } else if (body <= 63) {
      magnitude = (1.0 + (code & 7U) / 8.0) * std::ldexp(1.0, signed_exponent((code >> 3) & 3U, 2, 2 + ((code >> 3) & 1U)));
    } else if (body <= 95) {
      magnitude = (1.0 + (code & 3U) / 4.0) * std::ldexp(1.0, signed_exponent((code >> 2) & 7U, 4, 4 + ((code >> 2) & 3U)));
    } else {
      magnitude = (1.0 + (code & 1U) / 2.0) * std::ldexp(1.0, signed_exponent((code >> 1) & 15U, 8, 8 + ((code >> 1) & 7U)));
    }
  }
  return (code & 0x80U) != 0 ? -magnitude : magnitude;
}

struct Fp8Candidate {
  unsigned code;
  double value;
};

// The finite encodings of E4M3 / HiF8 in code order (the ASL candidate loop
// skips NaN, infinity and invalid encodings).
struct Fp8Candidates {
  std::array<Fp8Candidate, 256> entries{};
  unsigned count = 0;
};

Fp8Candidates build_fp8_candidates(DataType t) noexcept {
  Fp8Candidates c;
  for (unsigned code = 0; code < 256; ++code) {
    const ValueClass k = num::classify(t, code);
    if (!num::is_nan(k) && !num::is_inf(k) && k != ValueClass::InvalidEncoding)
      c.entries[c.count++] = {code, fp8_finite_value(t, code)};
  }
  return c;
}

const Fp8Candidates& fp8_candidates(DataType t) noexcept {
  static const Fp8Candidates e4m3 = build_fp8_candidates(DataType::E4M3);
  static const Fp8Candidates hif8 = build_fp8_candidates(DataType::HiF8);
  return t == DataType::E4M3 ? e4m3 : hif8;
}

bool toward_zero(RoundingMode mode) noexcept { return mode == RoundingMode::RTZ || mode == RoundingMode::RTO; }

// The candidate filter of ReferenceFP8Encoding.
bool fp8_eligible(double candidate, double value, bool negative, RoundingMode mode) noexcept {
  if (mode == RoundingMode::RTP) return candidate >= value;
  if (mode == RoundingMode::RTM) return candidate <= value;
  if (toward_zero(mode)) return negative ? candidate <= 0.0 && candidate >= value : candidate >= 0.0 && candidate <= value;
  return true;
}

// ReferenceNearestFP8CandidateBetter and the directed comparisons.
bool fp8_better(const Fp8Candidate& candidate, const Fp8Candidate& best, double value, bool negative,
                RoundingMode mode) noexcept {
  if (mode == RoundingMode::RTP) return candidate.value < best.value;
  if (mode == RoundingMode::RTM) return candidate.value > best.value;
  if (toward_zero(mode)) return negative ? candidate.value < best.value : candidate.value > best.value;
  const double candidate_distance = std::fabs(candidate.value - value), best_distance = std::fabs(best.value - value);
  if (candidate_distance != best_distance) return candidate_distance < best_distance;
  if (mode == RoundingMode::RNE) return candidate.code % 2 == 0 && best.code % 2 != 0;
  if (mode == RoundingMode::RNA) return std::fabs(candidate.value) > std::fabs(best.value);
  return candidate.value > best.value;  // RHB
}

// ReferenceFP8Encoding: E4M3 or HiF8 by exhaustive candidate search.
num::Result fp8_encoding(double value, DataType t, Control control) noexcept {
  if (value == 0.0) return {0, 0};
  const bool e4m3 = t == DataType::E4M3;
  const bool negative = value < 0.0;
  const double magnitude = std::fabs(value);
  if (magnitude > (e4m3 ? 448.0 : 32768.0)) {
    const std::uint64_t saturated = e4m3 ? (negative ? 0xfeU : 0x7eU) : (negative ? 0xeeU : 0x6eU);
    const std::uint64_t unsaturated = e4m3 ? 0x7fU : (negative ? 0xefU : 0x6fU);
    return {control.saturating ? saturated : unsaturated, kOverflow};
  }
  const Fp8Candidates& candidates = fp8_candidates(t);
  const RoundingMode mode = control.rounding;
  const Fp8Candidate* best = nullptr;
  for (unsigned i = 0; i < candidates.count; ++i) {
    const Fp8Candidate& c = candidates.entries[i];
    if (fp8_eligible(c.value, value, negative, mode) && (best == nullptr || fp8_better(c, *best, value, negative, mode)))
      best = &c;
  }
  Fp8Candidate selected = best != nullptr ? *best : Fp8Candidate{0, 0.0};  // |value| <= maximum: never null
  if (mode == RoundingMode::RTO && selected.value != value && selected.code % 2 == 0) {
    // The nearest odd code beyond the truncated candidate, away from zero.
    const Fp8Candidate* odd = nullptr;
    for (unsigned i = 0; i < candidates.count; ++i) {
      const Fp8Candidate& c = candidates.entries[i];
      const bool away = negative ? c.value < selected.value : c.value > selected.value;
      if (c.code % 2 == 1 && away && (odd == nullptr || (negative ? c.value > odd->value : c.value < odd->value)))
        odd = &c;
    }
    if (odd != nullptr) selected = *odd;
  }
  const double minimum_normal = e4m3 ? 0x1p-6 : 0x1p-15;
  const bool inexact = selected.value != value;
  const num::Flags flags = !inexact ? num::Flags{0} : magnitude < minimum_normal ? kUnderflow : num::kNX;
  return {selected.code, flags};
}

// MatrixFloatingSignedZero / MatrixFloatingInfinity / MatrixFloatingLargestFinite,
// from the format tables (FP32, FP16, BF16, E4M3, HiF8 are the only outputs).
std::uint64_t sign_mask(DataType t, bool negative) noexcept {
  return negative ? std::uint64_t{1} << num::format_info(t).sign_bit : 0;
}

std::uint64_t negative_zero(DataType t) noexcept {
  const num::SignedZeroEncodings zero = num::signed_zero_encodings(t);
  return zero.available ? zero.negative : 0;  // HiF8 has a single zero
}

std::uint64_t floating_infinity(DataType t, bool negative) noexcept {
  const num::FormatInfo& f = num::format_info(t);
  if (!f.has_infinity) return num::canonical_nan(t).bits;  // E4M3
  if (f.kind == num::FormatKind::HiF8) return 0x6FU | sign_mask(t, negative);
  return ((((std::uint64_t{1} << f.exp_bits) - 1) << (f.frac_bits + f.low_zero_bits))) | sign_mask(t, negative);
}

std::uint64_t largest_finite(DataType t, bool negative) noexcept {
  return num::format_info(t).max_finite | sign_mask(t, negative);
}

// MatrixPostQuantSpecialValue: NaN and infinity sources have fixed results.
struct Special {
  bool hit = false;
  num::Result result;
};

Special special_value(std::uint64_t value, DataType source, DataType destination, Control control) noexcept {
  if (!num::is_float(source)) return {};
  const ValueClass k = num::classify(source, value);
  if (num::is_nan(k)) {
    const num::Flags signaling = k == ValueClass::SignalingNaN ? num::kNV : num::Flags{0};
    if (num::is_integer(destination))
      return {true, {control.saturating ? 0 : integer_minimum(destination), num::kNV}};
    if (control.saturating) return {true, {0, signaling}};
    return {true, {num::canonical_nan(destination).bits, signaling}};
  }
  if (!num::is_inf(k)) return {};
  const bool negative = k == ValueClass::NegativeInfinity;
  if (num::is_integer(destination)) {
    if (!control.saturating) return {true, {integer_minimum(destination), num::kNV}};
    return {true, {negative ? integer_minimum(destination) : integer_maximum(destination), kOverflow}};
  }
  if (control.saturating) return {true, {largest_finite(destination, negative), kOverflow}};
  return {true, {floating_infinity(destination, negative), destination == DataType::E4M3 ? kOverflow : num::Flags{0}}};
}

// MatrixValueClassNegative.
bool class_negative(ValueClass k) noexcept {
  return k == ValueClass::NegativeNormal || k == ValueClass::NegativeSubnormal || k == ValueClass::NegativeInfinity ||
         k == ValueClass::NegativeZero;
}

double fp19_value(std::uint64_t carrier) noexcept {  // FP19FiniteValue(carrier[18:0])
  return num::fp19_finite_value(static_cast<std::uint32_t>(carrier & 0x7FFFFU));
}

// MatrixSelectedMultiplier: ReLU zeroes and LReLU/PReLU replace the
// quantisation scale on the negative path.
double selected_multiplier(bool source_negative, unsigned relu_mode, double scale, std::uint64_t relu_param) noexcept {
  if (!source_negative || relu_mode == 0) return scale;
  if (relu_mode == 1) return 0.0;
  return fp19_value(relu_param);
}

// The accumulator type MatrixPostQuantBaseWithFlags reads: the output type
// without pre-quantisation, else S32 or FP32 as the mode's accumulator.
DataType source_type(unsigned mode, DataType output) noexcept {
  if (mode == 0) return output;
  return fpatr::accumulator_type_legal(mode, DataType::S32) ? DataType::S32 : DataType::FP32;
}

double quant_scale(unsigned mode, std::uint64_t quant_param) noexcept {
  const bool parameterised = fpatr::mode_uses_scalar_parameter(mode) || fpatr::mode_uses_vector_parameter(mode);
  return parameterised ? fp19_value(quant_param >> 13) : 1.0;
}

// MatrixEncodeReal.
num::Result encode_real(double value, DataType t, Control control) noexcept {
  return num::is_integer(t) ? integer_encoding(value, t, control) : floating_encoding(value, t, control);
}

}  // namespace

Intermediate round_and_saturate_signed(double value, unsigned width, RoundingMode mode) noexcept {
  const double rounded = to_integer(value, mode);
  const double minimum = -std::ldexp(1.0, static_cast<int>(width) - 1), maximum = -minimum - 1;
  const bool overflow = rounded < minimum || rounded > maximum;
  const double selected = rounded < minimum ? minimum : rounded > maximum ? maximum : rounded;
  const num::Flags flags = overflow ? kOverflow : rounded != value ? num::kNX : num::Flags{0};
  return {static_cast<std::int32_t>(std::isnan(selected) ? 0.0 : selected), flags};
}

num::Result shift_s32_to_s16(std::uint32_t value, unsigned shift) noexcept {
  const std::int32_t shifted = static_cast<std::int32_t>(value) >> shift;  // ASR
  if (shifted < -32768) return {0xffffffffffff8000ULL, kOverflow};
  if (shifted > 32767) return {0x7fffU, kOverflow};
  return {static_cast<std::uint64_t>(std::int64_t{shifted}), 0};
}

num::Result integer_encoding(double value, DataType destination, Control control) noexcept {
  const double rounded = to_integer(value, control.rounding);
  const auto [minimum, maximum] = integer_range(destination);
  const bool overflow = rounded < minimum || rounded > maximum;
  double selected = rounded;
  if (control.saturating && overflow) selected = rounded < minimum ? minimum : maximum;
  const num::Flags flags = overflow ? kOverflow : rounded != value ? num::kNX : num::Flags{0};
  return {normalize_integer(integer_word(selected), destination), flags};
}

num::Result floating_encoding(double value, DataType destination, Control control) noexcept {
  if (destination == DataType::FP32) {
    num::Result r = fp32_encoding(value, control.rounding);
    if (control.saturating && (r.flags & num::kOF) != 0) r.bits = (r.bits & 0x80000000U) | 0x7f7fffffU;
    return r;
  }
  if (destination == DataType::FP16 || destination == DataType::BF16) return binary16_encoding(value, destination, control);
  return fp8_encoding(value, destination, control);
}

std::uint64_t quant_parameter(std::uint32_t fp19, std::uint64_t offset, unsigned offset_width) noexcept {
  std::uint64_t result = std::uint64_t{fp19 & 0x7FFFFU} << 13;
  if (offset_width != 0) result |= (offset & ((std::uint64_t{1} << offset_width) - 1)) << 37;
  return result;
}

std::uint64_t shift_parameter(unsigned code) noexcept { return std::uint64_t{code & 0xFU} << 32; }

std::int32_t quant_offset(std::uint64_t parameter, unsigned width) noexcept {
  if (width == 0) return 0;
  const std::uint64_t field = (parameter >> 37) & ((std::uint64_t{1} << width) - 1);
  const std::uint64_t sign = std::uint64_t{1} << (width - 1);
  return static_cast<std::int32_t>(static_cast<std::int64_t>(field ^ sign) - static_cast<std::int64_t>(sign));
}

unsigned mode_offset_width(unsigned m) noexcept { return fpatr::pre_quant_mode(m).offset_width; }

Control effective_control(unsigned pre_quant_mode, Control control) noexcept {
  switch (fpatr::pre_quant_mode(pre_quant_mode).rounding) {
    case fpatr::PreQuantRounding::RHB: control.rounding = RoundingMode::RHB; break;
    case fpatr::PreQuantRounding::RNE: control.rounding = RoundingMode::RNE; break;
    case fpatr::PreQuantRounding::Programmable: break;
  }
  return control;
}

// MatrixPostQuantBaseWithFlags under MatrixFPATREffectiveControl.
num::Result post_process(std::uint64_t value, unsigned mode, unsigned relu_mode, DataType output,
                         std::uint64_t quant_param, std::uint64_t relu_param, Control control) noexcept {
  if (mode == 0 && relu_mode == 0) return {value, 0};
  control = effective_control(mode, control);
  if (fpatr::pre_quant_mode(mode).shift)
    return shift_s32_to_s16(static_cast<std::uint32_t>(value), static_cast<unsigned>((quant_param >> 32) & 0xFU) + 1);
  const DataType source = source_type(mode, output);
  const auto low = static_cast<std::uint32_t>(value);
  const ValueClass source_class = source == DataType::FP32 ? num::classify(DataType::FP32, value) : ValueClass::PositiveNormal;
  const bool source_negative = source == DataType::S32 ? static_cast<std::int32_t>(low) < 0 : class_negative(source_class);
  const double multiplier = selected_multiplier(source_negative, relu_mode, quant_scale(mode, quant_param), relu_param);
  const Special special = special_value(value, source, output, control);
  // ReLU of -infinity is an ordinary zero, not the special result.
  if (special.hit && !(source_class == ValueClass::NegativeInfinity && multiplier == 0.0)) return special.result;

  const double source_value = source == DataType::S32                     ? static_cast<double>(static_cast<std::int32_t>(low))
                              : source == DataType::U32                   ? static_cast<double>(low)
                              : source_class == ValueClass::NegativeInfinity ? 0.0
                                                                          : num::decode_to_double(DataType::FP32, low);
  const double activated = source_value * multiplier;  // MatrixActivationWithFlags (no flags)
  const unsigned width = mode_offset_width(mode);
  const std::int32_t offset = quant_offset(quant_param, width);
  if (source_class == ValueClass::NegativeZero && multiplier != 0.0 && offset == 0 && num::is_float(output))
    return {negative_zero(output), 0};
  if (width != 0) {  // MatrixQuantizedAffine with scale 1.0
    const Intermediate intermediate = round_and_saturate_signed(activated, width, control.rounding);
    const num::Result encoded = integer_encoding(static_cast<double>(intermediate.value + offset), output, control);
    return {encoded.bits, static_cast<num::Flags>(intermediate.flags | encoded.flags)};
  }
  return encode_real(activated + offset, output, control);
}


// ---- the per-tile kernel (post_process_tile) ----
//
// Every quantity it rounds is the exact binary64 real of post_process (a
// product of an S32 / FP32 source and an FP19 multiplier); scaling by a
// power of two, truncation to an integer below 2^62 and the difference of
// the two are exact, so each rounding below sees the same real and makes the
// same decision as the ASL's FloatingToInteger / MatrixRoundMagnitude.

namespace {

// The rounding of a magnitude, after MatrixRoundMagnitude's sign handling.
enum class MagnitudeRounding : std::uint8_t { NearestEven, NearestAway, NearestDown, Up, Down, Odd };

struct SignedRounding {
  MagnitudeRounding positive, negative;
};

// A signed value rounded in `mode` is its magnitude rounded by
// SignedRounding[sign]: RTP / RTM swap for negatives, RHB (ties toward
// +infinity) keeps the lower magnitude of a negative tie; RTO (the lower
// value with its last bit ORed with inexactness) is symmetric.
SignedRounding signed_rounding(RoundingMode mode) noexcept {
  using M = MagnitudeRounding;
  switch (mode) {
    case RoundingMode::RNE: return {M::NearestEven, M::NearestEven};
    case RoundingMode::RNA: return {M::NearestAway, M::NearestAway};
    case RoundingMode::RHB: return {M::NearestAway, M::NearestDown};
    case RoundingMode::RTZ: return {M::Down, M::Down};
    case RoundingMode::RTP: return {M::Up, M::Down};
    case RoundingMode::RTM: return {M::Down, M::Up};
    case RoundingMode::RTO: return {M::Odd, M::Odd};
  }
  return {M::NearestEven, M::NearestEven};
}

struct Rounded {
  std::uint64_t value;
  bool inexact;
};

// 0 <= magnitude < 2^62.
Rounded round_magnitude_fast(double magnitude, MagnitudeRounding r) noexcept {
  const auto lower = static_cast<std::uint64_t>(magnitude);
  const double fraction = magnitude - static_cast<double>(lower);
  bool up = false;
  switch (r) {
    case MagnitudeRounding::NearestEven: up = fraction > 0.5 || (fraction == 0.5 && (lower & 1U) != 0); break;
    case MagnitudeRounding::NearestAway: up = fraction >= 0.5; break;
    case MagnitudeRounding::NearestDown: up = fraction > 0.5; break;
    case MagnitudeRounding::Up: up = fraction != 0.0; break;
    case MagnitudeRounding::Down: break;
    case MagnitudeRounding::Odd: up = fraction != 0.0 && (lower & 1U) == 0; break;
  }
  return {lower + std::uint64_t{up}, fraction != 0.0};
}

constexpr double kFastLimit = 0x1p62;

// 2^e for the exponents of normal binary64 values.
double power_of_two(int e) noexcept {
  return std::bit_cast<double>(static_cast<std::uint64_t>(e + 1023) << 52);
}

// floor(log2(magnitude)) of a normal binary64 magnitude.
int normal_exponent(double magnitude) noexcept {
  return static_cast<int>((std::bit_cast<std::uint64_t>(magnitude) >> 52) & 0x7FFU) - 1023;
}

struct SignedRounded {
  std::int64_t value;
  bool inexact;
};

SignedRounded round_signed(double value, const SignedRounding& r) noexcept {  // |value| < 2^62
  const bool negative = value < 0.0;
  const Rounded m = round_magnitude_fast(std::fabs(value), negative ? r.negative : r.positive);
  const auto magnitude = static_cast<std::int64_t>(m.value);
  return {negative ? -magnitude : magnitude, m.inexact};
}

struct IntegerRange {
  std::int64_t minimum, maximum;
};

IntegerRange integer_range_of(unsigned bits, bool is_signed) noexcept {
  if (is_signed) return {-(std::int64_t{1} << (bits - 1)), (std::int64_t{1} << (bits - 1)) - 1};
  return {0, (std::int64_t{1} << bits) - 1};
}

// The destination side of a tile: its format and the effective control.
struct Encoder {
  DataType output;
  SignedRounding rounding;
  bool saturating;
  IntegerRange range;  // integer destinations
  // floating destinations (FP32, FP16, BF16, E4M3)
  int fraction_bits, bias, minimum_subnormal_exponent;
  double overflow_at;                  // a magnitude at or above it overflows
  std::uint64_t sign, infinity;        // a rounded code at or above infinity overflows
  std::uint64_t overflow[2];           // the overflow result of a positive / negative value
  bool unsigned_zero;                  // E4M3: a magnitude rounded to zero is +0
};

// ReferenceMatrixIntegerEncoding of an integer already rounded.
num::Result encode_integer_fast(std::int64_t rounded, bool inexact, const Encoder& e) noexcept {
  const bool overflow = rounded < e.range.minimum || rounded > e.range.maximum;
  std::int64_t selected = rounded;
  if (e.saturating && overflow) selected = rounded < e.range.minimum ? e.range.minimum : e.range.maximum;
  const num::Flags flags = overflow ? kOverflow : inexact ? num::kNX : num::Flags{0};
  return {normalize_integer(static_cast<std::uint64_t>(selected), e.output), flags};
}

// ReferenceFP32FiniteEncoding / ReferenceBinary16Encoding /
// ReferenceFP8Encoding (E4M3) of a nonzero normal binary64 value (with the
// Sat replacement of an overflow).  E4M3's candidate search is this rounding:
// its finite codes are sign-magnitude with 3 fraction bits, 448 the largest
// (larger magnitudes overflow before rounding, so none rounds past it), its
// RNE tie takes the even code (the even fraction), RTO the odd code next
// away from the truncated one, and a negative value whose magnitude rounds
// to zero selects code 0, the first zero in code order.
num::Result encode_binary_fast(double value, const Encoder& e) noexcept {
  const bool negative = value < 0.0;
  const double magnitude = std::fabs(value);
  std::uint64_t sign = negative ? e.sign : 0;
  const num::Result overflow{e.overflow[negative ? 1 : 0], kOverflow};
  if (magnitude >= e.overflow_at) return overflow;
  const int exponent = normal_exponent(magnitude);
  const MagnitudeRounding mode = negative ? e.rounding.negative : e.rounding.positive;
  if (exponent < 1 - e.bias) {  // subnormal: a carry to 2^F is the smallest normal encoding
    const Rounded m = round_magnitude_fast(magnitude * power_of_two(-e.minimum_subnormal_exponent), mode);
    if (m.value == 0 && e.unsigned_zero) sign = 0;
    return {sign + m.value, m.inexact ? kUnderflow : num::Flags{0}};
  }
  // m in [2^F, 2^(F+1)]: a carry to 2^(F+1) adds into the exponent field.
  const Rounded m = round_magnitude_fast(magnitude * power_of_two(e.fraction_bits - exponent), mode);
  const std::uint64_t encoded = (static_cast<std::uint64_t>(exponent + e.bias - 1) << e.fraction_bits) + m.value;
  if (encoded >= e.infinity) return overflow;
  return {sign + encoded, m.inexact ? num::kNX : num::Flags{0}};
}

// HiF8's grid at binary exponent e (-22 <= e <= 15), from the dot-field
// decode of ReferenceFP8FiniteValue: the significand's fraction bits (3 for
// |e| <= 3, 2 to |e| = 7, 1 to 15, none for the denormal powers of two
// 2^-22 .. 2^-16, whose grid below 2^-22 is 0 and 2^-22) and the code of 2^e.
struct HiF8Grid {
  int fraction_bits;
  std::uint64_t code;
};

HiF8Grid hif8_grid(int e) noexcept {
  const int a = std::abs(e);
  const auto code = [](int c) { return static_cast<std::uint64_t>(c); };
  if (e < -15) return {0, code(e + 23)};
  if (a == 0) return {3, 8};
  if (a == 1) return {3, code(e > 0 ? 16 : 24)};
  if (a <= 3) return {3, code(32 + (a - 2) * 8 + (e > 0 ? 0 : 16))};
  if (a <= 7) return {2, code(64 + (a - 4) * 4 + (e > 0 ? 0 : 16))};
  return {1, code(96 + (a - 8) * 2 + (e > 0 ? 0 : 16))};
}

// The row kernel's copy of the grid, one word per exponent -22..15 (2^15
// never carries: larger magnitudes overflow before rounding).
const HiF8GridTable& hif8_grid_table() noexcept {
  static const HiF8GridTable table = [] {
    HiF8GridTable t{};
    for (int e = kHiF8GridMinimumExponent; e <= kHiF8GridMaximumExponent; ++e) {
      const HiF8Grid g = hif8_grid(e);
      const auto index = static_cast<std::size_t>(e - kHiF8GridMinimumExponent);
      t[index] = hif8_grid_word(e, g.fraction_bits, g.code, hif8_grid(e + 1).code);
    }
    return t;
  }();
  return table;
}

// ReferenceFP8Encoding (HiF8) of a nonzero normal binary64 value in a mode
// whose choice is by value (RHB, the only one its modes use, RNA, RTZ, RTP,
// RTM): the candidate search selects the magnitude rounded on the grid of
// its exponent (a carry is the next power of two, a code of that exponent),
// the single zero for a magnitude that rounds to it, UF|NX when inexact
// below 2^-15.
num::Result encode_hif8_fast(double value, const Encoder& e) noexcept {
  const bool negative = value < 0.0;
  const double magnitude = std::fabs(value);
  if (magnitude >= e.overflow_at) return {e.overflow[negative ? 1 : 0], kOverflow};
  const int exponent = std::max(normal_exponent(magnitude), -22);
  const HiF8Grid g = hif8_grid(exponent);
  const Rounded m = round_magnitude_fast(magnitude * power_of_two(g.fraction_bits - exponent),
                                         negative ? e.rounding.negative : e.rounding.positive);
  const std::uint64_t one = std::uint64_t{1} << g.fraction_bits;
  const std::uint64_t code = m.value == 0 ? 0 : m.value == 2 * one ? hif8_grid(exponent + 1).code : g.code + (m.value - one);
  const num::Flags flags = !m.inexact ? num::Flags{0} : magnitude < 0x1p-15 ? kUnderflow : num::kNX;
  return {negative && code != 0 ? code | e.sign : code, flags};
}

// The per-tile decode; false when the tile keeps the exact path.
struct TilePlan {
  Encoder encoder{};
  RoundingMode rounding = RoundingMode::RNE;  // the effective control's
  bool s32_source = false;
  unsigned width = 0;  // MatrixQuantizedAffine intermediate width (0: none)
  bool shift = false;
};

bool plan_tile(unsigned mode, DataType output, Control control, TilePlan& plan) noexcept {
  control = effective_control(mode, control);
  plan.shift = fpatr::pre_quant_mode(mode).shift;
  const DataType source = source_type(mode, output);
  plan.s32_source = source == DataType::S32;
  plan.width = mode_offset_width(mode);
  Encoder& e = plan.encoder;
  e.output = output;
  e.saturating = control.saturating;
  plan.rounding = control.rounding;
  e.rounding = signed_rounding(control.rounding);
  if (!plan.s32_source && source != DataType::FP32) return false;
  if (num::is_integer(output)) {
    const unsigned bits = integer_bits(output);
    if (bits > 32) return false;
    e.range = integer_range_of(bits, num::is_signed(output));
    return true;
  }
  const bool e4m3 = output == DataType::E4M3, hif8 = output == DataType::HiF8;
  // HiF8's RNE tie and RTO pick by code parity, which its denormal powers of
  // two do not share with a significand (its modes round RHB).
  if (hif8 && (control.rounding == RoundingMode::RNE || control.rounding == RoundingMode::RTO)) return false;
  const num::FormatInfo& f = num::format_info(output);
  e.fraction_bits = static_cast<int>(f.frac_bits);
  e.bias = (1 << (f.exp_bits - 1)) - 1;
  e.minimum_subnormal_exponent = 1 - e.bias - e.fraction_bits;
  e.overflow_at = e4m3 ? std::nextafter(448.0, 1024.0) : hif8 ? std::nextafter(32768.0, 65536.0) : std::ldexp(1.0, e.bias + 1);
  e.sign = std::uint64_t{1} << f.sign_bit;
  e.infinity = floating_infinity(output, false);
  for (const bool negative : {false, true})
    e.overflow[negative ? 1 : 0] = control.saturating ? largest_finite(output, negative)
                                   : e4m3                ? floating_infinity(output, false)  // 0x7F, unsigned
                                                         : floating_infinity(output, negative);
  e.unsigned_zero = e4m3;
  return true;
}

// A column's multipliers: the scale on the positive path, the ReLU / LReLU /
// PReLU choice on the negative one; the offset; the shift count of the
// shift modes (MatrixShiftParameter + 1).  Columns whose multipliers are not
// finite (outside the parameter-word legality) keep the exact path; the
// shift modes read no multiplier.
struct ColumnPlan {
  double positive, negative;
  std::int32_t offset;
  std::int32_t shift;
  bool fast;
};

ColumnPlan plan_column(unsigned mode, unsigned relu_mode, const TilePlan& p, const ColumnWords& w) noexcept {
  const double scale = quant_scale(mode, w.quant), negative = selected_multiplier(true, relu_mode, scale, w.relu);
  return {scale, negative, quant_offset(w.quant, p.width), static_cast<std::int32_t>((w.quant >> 32) & 0xFU) + 1,
          p.shift || (std::isfinite(scale) && std::isfinite(negative))};
}

// The source real and sign; false for what keeps the exact path: FP32 NaN,
// infinity and -0 (and carriers beyond 32 bits).
bool source_real(std::uint64_t value, bool s32, double& real) noexcept {
  const auto low = static_cast<std::uint32_t>(value);
  if (s32) {
    real = static_cast<double>(static_cast<std::int32_t>(low));
    return true;
  }
  if ((value >> 32) != 0 || (low & 0x7f800000U) == 0x7f800000U || low == 0x80000000U) return false;
  real = static_cast<double>(std::bit_cast<float>(low));
  return true;
}

// One element on the fast path; false when it keeps the exact path.
bool fast_element(std::uint64_t value, const TilePlan& p, const ColumnPlan& c, num::Result& out) noexcept {
  if (!c.fast) return false;
  if (p.shift) {
    out = shift_s32_to_s16(static_cast<std::uint32_t>(value), static_cast<unsigned>(c.shift));
    return true;
  }
  double real = 0.0;
  if (!source_real(value, p.s32_source, real)) return false;
  const double activated = real * (real < 0.0 ? c.negative : c.positive);  // MatrixActivationWithFlags
  if (!(std::fabs(activated) < kFastLimit) && (p.width != 0 || num::is_integer(p.encoder.output))) return false;
  if (p.width != 0) {  // MatrixRoundAndSaturateSigned, then the offset and the integer encoding
    const SignedRounded r = round_signed(activated, p.encoder.rounding);
    const std::int64_t maximum = (std::int64_t{1} << (p.width - 1)) - 1, minimum = -maximum - 1;
    const bool clamped = r.value < minimum || r.value > maximum;
    const std::int64_t intermediate = std::clamp(r.value, minimum, maximum);
    const num::Flags flags = clamped ? kOverflow : r.inexact ? num::kNX : num::Flags{0};
    out = encode_integer_fast(intermediate + c.offset, false, p.encoder);
    out.flags |= flags;
    return true;
  }
  if (num::is_integer(p.encoder.output)) {
    const SignedRounded r = round_signed(activated, p.encoder.rounding);
    out = encode_integer_fast(r.value, r.inexact, p.encoder);
    return true;
  }
  if (activated == 0.0) out = {0, 0};
  else if (p.encoder.output == DataType::HiF8) out = encode_hif8_fast(activated, p.encoder);
  else out = encode_binary_fast(activated, p.encoder);
  return true;
}

// The AVX2 row kernel that takes a tile's whole groups of four columns
// (matrix_postprocess_isa.hpp): the shift modes (Shift); S32 / FP32 sources
// without pre-quantisation offset to FP32 / FP16 / BF16 / E4M3 destinations
// in every rounding mode and to HiF8 in RHB, its modes' rounding (Binary),
// or S32 / FP32 sources to integer destinations (Integer, with or without
// the intermediate and offset) in every rounding mode; finite multipliers,
// on a CPU with AVX2 and F16C (as num::simd's tier cap allows) under the
// default MXCSR (round to nearest, no FTZ / DAZ).  None keeps the scalar
// kernel.
enum class RowKernel : std::uint8_t { None, Shift, Binary, Integer };

RowKernel row_kernel(const TilePlan& p, const std::vector<ColumnPlan>& columns) noexcept {
#ifdef PTO_POSTPROCESS_X86
  if (!num::f16c::available() || (_mm_getcsr() & ~0x3FU) != 0x1F80U) return RowKernel::None;  // AVX2 and F16C
  if (p.shift) return RowKernel::Shift;
  for (const ColumnPlan& c : columns)
    if (!c.fast) return RowKernel::None;
  const DataType t = p.encoder.output;
  if (num::is_integer(t)) return RowKernel::Integer;
  if (t == DataType::HiF8 && p.rounding != RoundingMode::RHB) return RowKernel::None;
  return p.width == 0 ? RowKernel::Binary : RowKernel::None;
#else
  static_cast<void>(p);
  static_cast<void>(columns);
  return RowKernel::None;
#endif
}

// The row kernel's per-column operands and its call on one row's first
// `columns` elements (whole groups of four); returns the flags.
class RowKernelCall {
 public:
  RowKernelCall(RowKernel kernel, const TilePlan& p, const std::vector<ColumnPlan>& plans, std::size_t columns)
      : kernel_(kernel), positive_(columns), negative_(columns), offset_(columns), shift_(columns), declined_(columns) {
    for (std::size_t c = 0; c < columns; ++c) {
      positive_[c] = plans[c].positive;
      negative_[c] = plans[c].negative;
      offset_[c] = plans[c].offset;
      shift_[c] = plans[c].shift;
    }
    const DataType t = p.encoder.output;
    binary_ = {simd_destination(t), p.rounding, p.encoder.saturating, positive_.data(), negative_.data(), p.s32_source,
               &hif8_grid_table()};
    integer_ = {p.rounding, p.encoder.saturating, p.s32_source, p.width, num::is_integer(t) ? integer_bits(t) : 32,
                num::is_signed(t), positive_.data(), negative_.data(), offset_.data()};
  }
  num::Flags run(std::uint64_t* row, std::size_t columns) noexcept {
#ifdef PTO_POSTPROCESS_X86
    if (kernel_ == RowKernel::Shift) return shift_row_avx2(row, columns, shift_.data());
    if (kernel_ == RowKernel::Binary) return fp32_row_avx2(row, columns, binary_, declined_.data());
    if (kernel_ == RowKernel::Integer) return integer_row_avx2(row, columns, integer_, declined_.data());
#else
    static_cast<void>(row);
    static_cast<void>(columns);
#endif
    return 0;
  }
  bool declined(std::size_t c) const noexcept { return declined_[c] != 0; }

 private:
  static SimdDestination simd_destination(DataType t) noexcept {
    switch (t) {
      case DataType::FP16: return SimdDestination::FP16;
      case DataType::BF16: return SimdDestination::BF16;
      case DataType::E4M3: return SimdDestination::E4M3;
      case DataType::HiF8: return SimdDestination::HiF8;
      default: return SimdDestination::FP32;
    }
  }

  RowKernel kernel_;
  std::vector<double> positive_, negative_, offset_;
  std::vector<std::int32_t> shift_;
  std::vector<std::uint8_t> declined_;
  SimdRowPlan binary_;
  IntegerRowPlan integer_;
};

}  // namespace

bool tile_kernel_applies(unsigned mode, DataType output, Control control) noexcept {
  TilePlan plan;
  return plan_tile(mode, output, control, plan);
}

bool row_kernel_applies(unsigned mode, DataType output, Control control) noexcept {
  TilePlan plan;
  return plan_tile(mode, output, control, plan) && row_kernel(plan, {}) != RowKernel::None;
}

num::Flags post_process_tile(std::span<std::uint64_t> values, std::span<const ColumnWords> columns, unsigned mode,
                             unsigned relu_mode, DataType output, Control control) noexcept {
  num::Flags flags = 0;
  const std::size_t n = columns.size();
  if ((mode == 0 && relu_mode == 0) || n == 0) return flags;  // MatrixPostQuantBaseWithFlags: identity
  TilePlan plan;
  const bool fast = plan_tile(mode, output, control, plan);
  std::vector<ColumnPlan> column_plans(n);
  for (std::size_t c = 0; c < n; ++c) column_plans[c] = plan_column(mode, relu_mode, plan, columns[c]);
  // The AVX2 row kernel takes whole groups of four columns where it applies.
  const RowKernel kernel = fast ? row_kernel(plan, column_plans) : RowKernel::None;
  const std::size_t simd_columns = kernel != RowKernel::None ? n / 4 * 4 : 0;
  RowKernelCall simd(kernel, plan, column_plans, simd_columns);
  for (std::size_t row = 0; row < values.size(); row += n) {
    const std::size_t vector_columns = row + n <= values.size() ? simd_columns : 0;
    if (vector_columns != 0) flags |= simd.run(values.data() + row, vector_columns);
    for (std::size_t c = 0; c < n && row + c < values.size(); ++c) {
      if (c < vector_columns && !simd.declined(c)) continue;
      std::uint64_t& value = values[row + c];
      num::Result r;
      if (!fast || !fast_element(value, plan, column_plans[c], r))
        r = post_process(value, mode, relu_mode, output, columns[c].quant, columns[c].relu, control);
      value = r.bits;
      flags |= r.flags;
    }
  }
  return flags;
}

}  // namespace pto::tile::postprocess
