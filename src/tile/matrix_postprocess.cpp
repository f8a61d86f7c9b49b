#include "tile/matrix_postprocess.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

#include "numerics/format.hpp"
#include "tile/ops_matrix.hpp"

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
  const DataType source = mode == 0                                            ? output
                          : fpatr::accumulator_type_legal(mode, DataType::S32) ? DataType::S32
                                                                               : DataType::FP32;
  const auto low = static_cast<std::uint32_t>(value);
  const ValueClass source_class = source == DataType::FP32 ? num::classify(DataType::FP32, value) : ValueClass::PositiveNormal;
  const bool source_negative = source == DataType::S32 ? static_cast<std::int32_t>(low) < 0 : class_negative(source_class);
  const bool parameterised = fpatr::mode_uses_scalar_parameter(mode) || fpatr::mode_uses_vector_parameter(mode);
  const double scale = parameterised ? fp19_value(quant_param >> 13) : 1.0;
  const double multiplier = selected_multiplier(source_negative, relu_mode, scale, relu_param);
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

}  // namespace pto::tile::postprocess
