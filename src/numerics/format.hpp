// Floating/scale formats: descriptors, classification, exact decode to a wide
// intermediate, and correctly rounded encode with every PTO rounding mode.
// Sources: asl/arch/data-types/formats/*.asl, numeric-formats.asl,
// numeric-classification.asl, asl/arch/features/mx-formats.asl,
// asl/arch/profile/e8m0-conversion.asl, ADR 0047/0048/0049/0050.
#pragma once

#include <cstdint>

#include "numerics/datatypes.hpp"
#include "numerics/rounding.hpp"

namespace pto::num {

// NumericValueClass (numeric-classification.asl).
enum class ValueClass : std::uint8_t {
  InvalidEncoding,
  PositiveZero,
  NegativeZero,
  PositiveSubnormal,
  NegativeSubnormal,
  PositiveNormal,
  NegativeNormal,
  PositiveInfinity,
  NegativeInfinity,
  QuietNaN,
  SignalingNaN,
};
constexpr bool is_nan(ValueClass c) noexcept { return c == ValueClass::QuietNaN || c == ValueClass::SignalingNaN; }
constexpr bool is_inf(ValueClass c) noexcept {
  return c == ValueClass::PositiveInfinity || c == ValueClass::NegativeInfinity;
}
constexpr bool is_zero(ValueClass c) noexcept {
  return c == ValueClass::PositiveZero || c == ValueClass::NegativeZero;
}
constexpr bool is_subnormal(ValueClass c) noexcept {
  return c == ValueClass::PositiveSubnormal || c == ValueClass::NegativeSubnormal;
}
const char* value_class_name(ValueClass c) noexcept;

enum class FormatKind : std::uint8_t { Unavailable, FixedBinary, HiF8, E8M0 };

// NumericFormatDescriptor plus derived constants used by encode/decode.
struct FormatInfo {
  FormatKind kind = FormatKind::Unavailable;
  std::uint8_t carrier_bits = 0;
  std::uint8_t lane_bits = 0;
  std::uint8_t sign_bit = 0;
  std::uint8_t exp_bits = 0;   // max for HiF8
  std::uint8_t frac_bits = 0;  // max for HiF8
  std::uint8_t low_zero_bits = 0;   // TF32 13, HF32 12
  std::uint8_t high_zero_bits = 0;  // E3M2/E2M3 2
  std::int16_t bias = 0;
  bool has_signed_zero = false;
  bool has_subnormal = false;  // HardwareNumericTypeHasSubnormals (mx-formats.asl)
  bool has_infinity = false;
  bool has_nan = false;
  bool has_signaling_nan = false;
  std::uint64_t canonical_nan = 0;  // valid iff has_nan (ADR 0050 / vectors)
  std::uint64_t max_finite = 0;     // positive maximum finite encoding
  std::int16_t emin = 0;            // unbiased exponent of the minimum normal
  std::uint8_t precision = 0;       // significant bits incl. hidden (FixedBinary)
};
const FormatInfo& format_info(DataType t) noexcept;

// NumericFormatDescriptor (asl/arch/data-types/format-descriptor.asl), the
// architectural view of a format. Integer types report the default
// (unavailable) descriptor, exactly UnavailableNumericFormatDescriptor().
struct NumericFormatDescriptor {
  bool available = false;
  FormatKind kind = FormatKind::Unavailable;
  unsigned carrier_bits = 0;
  unsigned lane_bits = 0;
  unsigned lanes_per_carrier = 0;
  unsigned sign_bits = 0;
  unsigned sign_bit = 0;
  unsigned exponent_bits_min = 0;  // HiF8: the dot field selects 0..4
  unsigned exponent_bits_max = 0;
  unsigned fraction_bits_min = 0;  // HiF8: 1..3
  unsigned fraction_bits_max = 0;
  bool exponent_bias_available = false;  // HiF8 has no fixed bias
  unsigned exponent_bias = 0;
  unsigned required_low_zero_bits = 0;
  unsigned required_high_zero_bits = 0;
  bool has_zero = false;
  bool has_signed_zero = false;
  bool has_subnormal = false;
  bool has_infinity = false;
  bool has_quiet_nan = false;
  bool has_signaling_nan = false;
};
NumericFormatDescriptor numeric_format_descriptor(DataType t) noexcept;  // TileNumericFormatDescriptor

// HardwareNumericSignedZeroEncodings (mx-formats.asl): +0 and -0 carriers of
// the formats with a signed zero; unavailable for HiF8, E8M0 and integers.
struct SignedZeroEncodings {
  bool available = false;
  std::uint64_t positive = 0;
  std::uint64_t negative = 0;
};
SignedZeroEncodings signed_zero_encodings(DataType t) noexcept;

// HardwareNumericScaleBlockElements (formats/e8m0.asl): elements per E8M0
// MX scale block.
inline constexpr unsigned kScaleBlockElements = 32;

// HiF8 dot field (formats/hif8.asl HiF8DecodeDotField): the prefix of bits
// [6:3] selecting how many exponent and fraction bits follow.
enum class HiF8DotField : std::uint8_t { Denormal, D0, D1, D2, D3, D4 };
struct HiF8DotFieldInfo {
  HiF8DotField field;
  unsigned exponent_bits;  // 0..4
  unsigned fraction_bits;  // 1..3
};
constexpr HiF8DotFieldInfo hif8_decode_dot_field(std::uint8_t v) noexcept {
  if (((v >> 3) & 0xFU) == 0) return {HiF8DotField::Denormal, 0, 3};
  if (((v >> 3) & 0xFU) == 1) return {HiF8DotField::D0, 0, 3};
  if (((v >> 4) & 0x7U) == 1) return {HiF8DotField::D1, 1, 3};
  if (((v >> 5) & 0x3U) == 1) return {HiF8DotField::D2, 2, 3};
  if (((v >> 5) & 0x3U) == 2) return {HiF8DotField::D3, 3, 2};
  return {HiF8DotField::D4, 4, 1};
}

// ---- FP19 parameter carrier (asl/arch/data-types/fp19.asl) ---------------
// One sign bit, eight-bit bias-127 exponent, ten-bit fraction; the B.FPATR
// scale / activation parameter carrier (PTO-FP19-PARAMETER-CARRIER-001).
// Carriers are the low 19 bits of the argument.
ValueClass fp19_classify(std::uint32_t bits) noexcept;  // FP19ValueClass
// FP19FiniteValue: exact value of a finite carrier (every FP19 value is a
// binary64 value); NaN for infinities and NaNs, which have no finite value.
double fp19_finite_value(std::uint32_t bits) noexcept;
// B.FPATR scales must be positive normal; activation parameters positive
// zero or positive normal (FP19ScaleLegal / FP19ActivationParameterLegal).
bool fp19_scale_legal(std::uint32_t bits) noexcept;
bool fp19_activation_parameter_legal(std::uint32_t bits) noexcept;
// FP32ToFP19: keep the FP32 exponent, round the fraction to ten bits ties to
// even (a carry out of the largest finite value reaches infinity); every NaN
// becomes the positive quiet NaN 0x3FF00 (fraction 0b1100000000).
std::uint32_t fp32_to_fp19(std::uint32_t fp32) noexcept;

// Bit-exact classification (TileNumericValueClass). Integer types classify
// as zero / normal (ClassifySignedInteger / ClassifyUnsignedInteger).
// Packed four-bit types classify logical lane bits [3:0].
ValueClass classify(DataType t, std::uint64_t bits) noexcept;
bool encoding_valid(DataType t, std::uint64_t bits) noexcept;  // TileNumericEncodingValid

// TileNumericFiniteDecomposition: value = (-1)^negative * significand * 2^exponent.
struct Decomposition {
  bool available = false;
  bool negative = false;
  std::uint64_t significand = 0;
  int exponent = 0;
};
Decomposition decompose(DataType t, std::uint64_t bits) noexcept;

// Canonical NaN (TileNumericCanonicalNaN); has_value false if no NaN.
struct OptionalBits {
  bool available = false;
  std::uint64_t bits = 0;
};
OptionalBits canonical_nan(DataType t) noexcept;

// ---- Wide intermediate ---------------------------------------------------
// Finite non-zero values have sig normalised with bit 63 set; bit 0 may be a
// sticky ("jam") bit, which keeps every later rounding to <= 61 significant
// bits correct (round-to-odd argument).
enum class Kind : std::uint8_t { Zero, Finite, Inf, NaN, Invalid };
struct Unpacked {
  Kind kind = Kind::Zero;
  bool negative = false;
  bool signaling = false;  // NaN only
  int exp = 0;             // value = sig * 2^exp
  std::uint64_t sig = 0;
};

// Exact decode of a float, scale or integer carrier (lane bits for X2 types).
Unpacked unpack(DataType t, std::uint64_t bits) noexcept;
// Build from raw significand/exponent (normalises; exact).
Unpacked make_finite(bool negative, std::uint64_t sig, int exp) noexcept;
Unpacked from_double(double d) noexcept;       // exact
Unpacked from_long_double(long double d, bool inexact) noexcept;  // exact + optional sticky
// Exact value as double when representable in binary64 (all formats except
// nothing: every PTO format embeds in FP64); NaN/inf mapped naturally.
double to_double(const Unpacked& u) noexcept;
double decode_to_double(DataType t, std::uint64_t bits) noexcept;

// Encode with rounding mode and saturation. Applies: overflow (OF|NX),
// gradual underflow with tininess after rounding (UF when tiny and
// inexact, only for formats with subnormals), NX, canonical NaN for NaN
// inputs (NV if signalling), saturation of overflow and infinities.
// Integer destinations: IEEE convertToInteger with PTO invalid results.
Result pack(DataType t, const Unpacked& u, RoundingMode mode, bool saturate = false) noexcept;

// Float/integer -> integer of `width` bits (1..64), IEEE convertToInteger:
// round once, then range check (ADR 0047 rounding before saturation).
// Non-saturating invalid/out-of-range -> signed minimum / unsigned all-ones
// with NV; saturating -> clamp (NaN -> 0) with NV. Result zero-extended.
Result pack_integer_width(unsigned width, bool is_signed, const Unpacked& u, RoundingMode mode, bool saturate) noexcept;

// Convenience: value conversion between any two data types.
Result convert(DataType src, DataType dst, std::uint64_t bits, RoundingMode mode, bool saturate = false) noexcept;
Result encode_double(DataType dst, double d, RoundingMode mode, bool saturate = false) noexcept;

// Round |sig * 2^exp| to a multiple of 2^q. Exposed for tests/diagnostics.
struct Rounded {
  std::uint64_t m = 0;
  bool inexact = false;
};
// parity_xor flips the parity used for ties-to-even / round-to-odd (HiF8
// denormals, whose evenness is that of the encoding).
Rounded round_at(std::uint64_t sig, int exp, int q, bool negative, RoundingMode mode,
                 std::uint64_t parity_xor = 0) noexcept;

// ReferenceFloatToE8M0 (asl/arch/profile/e8m0-conversion.asl): FP16/BF16/FP32
// (any float accepted here) to E8M0 with exponent-domain rounding.
Result float_to_e8m0(DataType src, std::uint64_t bits, RoundingMode mode, bool saturate) noexcept;

// HardwareNumericSubnormalConfigurationValid (mx-formats.asl, ADR 0049): the
// named hardware profile admits no FTZ, DAZ or operation-local override.
constexpr bool subnormal_configuration_valid(bool flush_to_zero, bool denormals_are_zero,
                                             bool operation_override) noexcept {
  return !flush_to_zero && !denormals_are_zero && !operation_override;
}

}  // namespace pto::num
