#include "numerics/format.hpp"

#include <array>
#include <bit>
#include <cmath>

namespace pto::num {

namespace {

constexpr std::uint64_t ones(unsigned n) { return n >= 64 ? ~0ULL : ((1ULL << n) - 1ULL); }

FormatInfo make_fixed(std::uint8_t carrier, std::uint8_t lane, std::uint8_t ebits, std::uint8_t fbits,
                      std::int16_t bias, std::uint8_t low_zero, std::uint8_t high_zero, bool ieee_specials,
                      bool e4m3_nan, bool subnormal, std::uint64_t cnan) {
  FormatInfo f;
  f.kind = FormatKind::FixedBinary;
  f.carrier_bits = carrier;
  f.lane_bits = lane;
  f.sign_bit = static_cast<std::uint8_t>(lane - 1);
  f.exp_bits = ebits;
  f.frac_bits = fbits;
  f.low_zero_bits = low_zero;
  f.high_zero_bits = high_zero;
  f.bias = bias;
  f.has_signed_zero = true;
  f.has_subnormal = subnormal;
  f.has_infinity = ieee_specials;
  f.has_nan = ieee_specials || e4m3_nan;
  f.has_signaling_nan = ieee_specials;
  f.canonical_nan = cnan;
  f.emin = static_cast<std::int16_t>(1 - bias);
  f.precision = static_cast<std::uint8_t>(fbits + 1);
  std::uint64_t emaxf = ieee_specials ? ones(ebits) - 1 : ones(ebits);
  std::uint64_t fmax = e4m3_nan ? ones(fbits) - 1 : ones(fbits);
  f.max_finite = ((emaxf << fbits) | fmax) << low_zero;
  return f;
}

std::array<FormatInfo, 32> build_formats() {
  std::array<FormatInfo, 32> t{};
  // Canonical NaNs: evidence canonical_nan group / *CanonicalNaN() in ASL.
  t[code_of(DataType::FP64)] = make_fixed(64, 64, 11, 52, 1023, 0, 0, true, false, true, 0x7FF8000000000000ULL);
  t[code_of(DataType::FP32)] = make_fixed(32, 32, 8, 23, 127, 0, 0, true, false, true, 0x7FC00000ULL);
  t[code_of(DataType::TF32)] = make_fixed(32, 32, 8, 10, 127, 13, 0, true, false, true, 0x7FC00000ULL);
  t[code_of(DataType::HF32)] = make_fixed(32, 32, 8, 11, 127, 12, 0, true, false, true, 0x7FC00000ULL);
  t[code_of(DataType::FP16)] = make_fixed(16, 16, 5, 10, 15, 0, 0, true, false, true, 0x7E00ULL);
  t[code_of(DataType::BF16)] = make_fixed(16, 16, 8, 7, 127, 0, 0, true, false, true, 0x7FC0ULL);
  t[code_of(DataType::E4M3)] = make_fixed(8, 8, 4, 3, 7, 0, 0, false, true, true, 0x7FULL);
  t[code_of(DataType::E5M2)] = make_fixed(8, 8, 5, 2, 15, 0, 0, true, false, true, 0x7EULL);
  t[code_of(DataType::E3M2)] = make_fixed(8, 6, 3, 2, 3, 0, 2, false, false, true, 0);
  t[code_of(DataType::E2M3)] = make_fixed(8, 6, 2, 3, 1, 0, 2, false, false, true, 0);
  // Four-bit lanes: no subnormal class, no NaN/inf (e2m1x2.asl, e1m2x2.asl, hif4x2.asl).
  t[code_of(DataType::E2M1X2)] = make_fixed(8, 4, 2, 1, 1, 0, 0, false, false, false, 0);
  t[code_of(DataType::E1M2X2)] = make_fixed(8, 4, 1, 2, 1, 0, 0, false, false, false, 0);
  t[code_of(DataType::HiF4X2)] = make_fixed(8, 4, 1, 2, 1, 0, 0, false, false, false, 0);
  {
    FormatInfo h;  // hif8.asl: dynamic dot field, +0 only, 0x80 NaN, 0x6F/0xEF inf
    h.kind = FormatKind::HiF8;
    h.carrier_bits = 8;
    h.lane_bits = 8;
    h.sign_bit = 7;
    h.exp_bits = 4;
    h.frac_bits = 3;
    h.has_signed_zero = false;
    h.has_subnormal = true;
    h.has_infinity = true;
    h.has_nan = true;
    h.canonical_nan = 0x80;
    h.max_finite = 0x6E;  // 32768
    h.emin = -15;
    h.precision = 0;
    t[code_of(DataType::HiF8)] = h;
  }
  {
    FormatInfo e;  // e8m0.asl
    e.kind = FormatKind::E8M0;
    e.carrier_bits = 8;
    e.lane_bits = 8;
    e.exp_bits = 8;
    e.bias = 127;
    e.has_nan = true;
    e.canonical_nan = 0xFF;
    e.max_finite = 0xFE;
    e.emin = -127;
    t[code_of(DataType::E8M0)] = e;
  }
  return t;
}

// Function-local static: safe to use from other translation units' static
// initialisers (no initialisation-order dependency).
const std::array<FormatInfo, 32>& formats() {
  static const std::array<FormatInfo, 32> t = build_formats();
  return t;
}

ValueClass finite_class(bool neg, bool zero, bool sub) {
  if (zero) return neg ? ValueClass::NegativeZero : ValueClass::PositiveZero;
  if (sub) return neg ? ValueClass::NegativeSubnormal : ValueClass::PositiveSubnormal;
  return neg ? ValueClass::NegativeNormal : ValueClass::PositiveNormal;
}

std::uint64_t lane_of(DataType t, std::uint64_t bits) {
  const unsigned eb = element_width(t);
  if (t == DataType::E3M2 || t == DataType::E2M3) return bits & 0xFFU;  // high bits are validity-checked
  return bits & ones(eb);
}

struct HiF8Fields {
  int exp = 0;       // unbiased exponent of the hidden bit
  unsigned mbits = 0;
  std::uint64_t mant = 0;
  bool denormal = false;
};

// HiF8 finite fields (hif8.asl HiF8FiniteDecomposition). After the dot field
// come n exponent bits in sign-magnitude form whose magnitude has an
// implicit leading one: |exp| = 2^(n-1) + low n-1 bits (D0: exp 0).
// Denormals (dot '0000') are 2^(mantissa - 23).
HiF8Fields hif8_fields(std::uint8_t v) {
  const HiF8DotFieldInfo dot = hif8_decode_dot_field(v);
  HiF8Fields f;
  f.mbits = dot.fraction_bits;
  f.mant = v & ones(dot.fraction_bits);
  if (dot.field == HiF8DotField::Denormal) {
    f.denormal = true;
    f.mbits = 0;
    f.exp = static_cast<int>(f.mant) - 23;
    return f;
  }
  if (dot.exponent_bits == 0) return f;
  const unsigned n = dot.exponent_bits;
  const unsigned efield = (v >> dot.fraction_bits) & static_cast<unsigned>(ones(n));
  const int mag = static_cast<int>((1U << (n - 1)) | (efield & static_cast<unsigned>(ones(n - 1))));
  f.exp = ((efield >> (n - 1)) & 1U) ? -mag : mag;
  return f;
}

// Encode positive HiF8 magnitude m * 2^q (m != 0) that is known finite.
std::uint8_t hif8_encode_mag(std::uint64_t m, int q) {
  const int top = 63 - std::countl_zero(m);
  const int e = q + top;
  if (e < -15) return static_cast<std::uint8_t>(e + 23);  // denormal: power of two
  const int a = e < 0 ? -e : e;
  const std::uint64_t frac = m & ones(static_cast<unsigned>(top));  // bits below hidden
  unsigned mbits = a <= 3 ? 3 : (a <= 7 ? 2 : 1);
  // Align fraction to mbits (m has exactly the needed precision after rounding).
  std::uint64_t f = top >= static_cast<int>(mbits) ? (frac >> (top - static_cast<int>(mbits)))
                                                   : (frac << (static_cast<int>(mbits) - top));
  const unsigned es = e < 0 ? 1U : 0U;
  if (a == 0) return static_cast<std::uint8_t>(0x08 | f);
  if (a == 1) return static_cast<std::uint8_t>(0x10 | (es << 3) | f);
  if (a <= 3) return static_cast<std::uint8_t>(0x20 | (es << 4) | (static_cast<unsigned>(a - 2) << 3) | f);
  if (a <= 7) return static_cast<std::uint8_t>(0x40 | (es << 4) | (static_cast<unsigned>(a - 4) << 2) | f);
  return static_cast<std::uint8_t>(0x60 | (es << 4) | (static_cast<unsigned>(a - 8) << 1) | f);
}

int hif8_precision(int e) {
  const int a = e < 0 ? -e : e;
  if (e < -15) return 1;
  if (a <= 3) return 4;
  if (a <= 7) return 3;
  return 2;
}

bool round_up(bool kept_odd, int cmp_half /* -1,0,1 */, bool negative, RoundingMode mode) {
  switch (mode) {
    case RoundingMode::RNE: return cmp_half > 0 || (cmp_half == 0 && kept_odd);
    case RoundingMode::RNA: return cmp_half >= 0;
    case RoundingMode::RHB: return cmp_half > 0 || (cmp_half == 0 && !negative);
    case RoundingMode::RTZ: return false;
    case RoundingMode::RTP: return !negative;
    case RoundingMode::RTM: return negative;
    case RoundingMode::RTO: return !kept_odd;
  }
  return false;
}

// Overflow disposition: true -> infinity (or NaN where no infinity).
bool overflow_to_infinity(bool negative, RoundingMode mode) {
  switch (mode) {
    case RoundingMode::RNE:
    case RoundingMode::RNA:
    case RoundingMode::RHB: return true;
    case RoundingMode::RTZ:
    case RoundingMode::RTO: return false;
    case RoundingMode::RTP: return !negative;
    case RoundingMode::RTM: return negative;
  }
  return true;
}

std::uint64_t with_sign(const FormatInfo& f, bool neg, std::uint64_t mag) {
  return neg ? (mag | (1ULL << f.sign_bit)) : mag;
}

Result pack_nan(const FormatInfo& f, bool signaling) {
  Flags fl = signaling ? kNV : 0;
  if (f.has_nan) return {f.canonical_nan, fl};
  // No NaN encoding (E3M2, E2M3, four-bit): decision D4 in docs/numerics.md.
  return {0, kNV};
}

Result pack_overflow(const FormatInfo& f, bool neg, RoundingMode mode, bool sat, Flags fl) {
  if (!sat && overflow_to_infinity(neg, mode)) {
    if (f.has_infinity) {
      const std::uint64_t inf = f.kind == FormatKind::HiF8 ? 0x6F : (ones(f.exp_bits) << (f.frac_bits + f.low_zero_bits));
      return {with_sign(f, neg, inf), fl};
    }
    if (f.has_nan) return {f.canonical_nan, fl};
  }
  return {with_sign(f, neg, f.max_finite), fl};
}

Result pack_fixed(const FormatInfo& f, const Unpacked& u, RoundingMode mode, bool sat) {
  const bool neg = u.negative;
  const int p = f.precision;
  const int e_msb = u.exp + 63;
  const int qmin = f.emin - (p - 1);
  int q = e_msb - (p - 1);
  if (q < qmin) q = qmin;
  Rounded r = round_at(u.sig, u.exp, q, neg, mode);
  Flags fl = r.inexact ? kNX : 0;
  // Tininess after rounding (ADR 0049): rounded with unbounded exponent < 2^emin.
  if (f.has_subnormal && r.inexact && e_msb < f.emin) {
    Rounded ru = round_at(u.sig, u.exp, e_msb - (p - 1), neg, mode);
    const bool reaches = (e_msb == f.emin - 1) && ru.m == (1ULL << p);
    if (!reaches) fl |= kUF;
  }
  std::uint64_t m = r.m;
  if (m == 0) return {with_sign(f, neg, 0), fl};
  if (m >> p) {  // carry to next binade
    m >>= 1;
    ++q;
  }
  std::uint64_t efield, frac;
  if (m < (1ULL << (p - 1))) {  // subnormal (q == qmin)
    efield = 0;
    frac = m;
  } else {
    efield = static_cast<std::uint64_t>(q + (p - 1) + f.bias);
    frac = m - (1ULL << (p - 1));
  }
  const std::uint64_t emaxfield = ones(f.exp_bits);
  const std::uint64_t mag = ((efield << f.frac_bits) | frac) << f.low_zero_bits;
  if (efield > emaxfield || mag > f.max_finite) return pack_overflow(f, neg, mode, sat, fl | kOF | kNX);
  return {with_sign(f, neg, mag), fl};
}

Result pack_hif8(const FormatInfo& f, const Unpacked& u, RoundingMode mode, bool sat) {
  const bool neg = u.negative;
  const int e_msb = u.exp + 63;
  int q;
  std::uint64_t parity_xor = 0;
  if (e_msb < -15) {
    // Denormals are powers of two 2^q with code q + 23; ties-to-even and
    // round-to-odd use the parity of the encoding (decision D5).
    q = e_msb < -22 ? -22 : e_msb;
    if (e_msb >= -22) parity_xor = 1U ^ (static_cast<unsigned>(q + 23) & 1U);
  } else {
    q = e_msb - (hif8_precision(e_msb) - 1);
  }
  Rounded r = round_at(u.sig, u.exp, q, neg, mode, parity_xor);
  Flags fl = r.inexact ? kNX : 0;
  if (r.inexact && e_msb < -15) {  // min normal 2^-15 has two significant bits
    Rounded ru = round_at(u.sig, u.exp, e_msb - 1, neg, mode);
    const bool reaches = e_msb == -16 && ru.m == 4;
    if (!reaches) fl |= kUF;
  }
  if (r.m == 0) return {0, fl};  // HiF8 has a single zero (+0)
  // Overflow: magnitude above 2^15 (0x6E).
  const int top = 63 - std::countl_zero(r.m);
  const int e = q + top;
  const bool above = e > 15 || (e == 15 && (r.m & ones(static_cast<unsigned>(top))) != 0);
  if (above) return pack_overflow(f, neg, mode, sat, fl | kOF | kNX);
  return {with_sign(f, neg, hif8_encode_mag(r.m, q)), fl};
}

Result pack_integer_impl(unsigned w, bool is_s, const Unpacked& u, RoundingMode mode, bool sat) {
  const std::uint64_t mask = ones(w);
  const std::uint64_t smin = 1ULL << (w - 1);  // magnitude of minimum signed
  const std::uint64_t indefinite = is_s ? smin : mask;  // invalid_float_to_integer vectors
  if (u.kind == Kind::NaN || u.kind == Kind::Invalid) return {sat ? 0ULL : indefinite, kNV};
  if (u.kind == Kind::Zero) return {0, 0};
  auto clamp = [&](bool neg) -> std::uint64_t {
    if (is_s) return neg ? smin : (smin - 1);
    return neg ? 0 : mask;
  };
  if (u.kind == Kind::Inf) return {sat ? clamp(u.negative) : indefinite, kNV};
  const int e_msb = u.exp + 63;
  bool out = e_msb >= 64;
  std::uint64_t m = 0;
  bool inexact = false;
  if (!out) {
    if (u.exp >= 0) {
      m = u.sig;  // e_msb == 63 exactly
    } else {
      Rounded r = round_at(u.sig, u.exp, 0, u.negative, mode);
      m = r.m;
      inexact = r.inexact;
      if (e_msb == 63 && r.m == 0 && !r.inexact) out = true;  // unreachable guard
    }
  }
  if (!out) {
    if (is_s) out = u.negative ? (m > smin) : (m >= smin);
    else out = u.negative ? (m != 0) : (w < 64 && m > mask);
  }
  if (out) return {sat ? clamp(u.negative) : indefinite, kNV};
  const std::uint64_t v = u.negative ? (0ULL - m) & mask : m & mask;
  return {v, inexact ? kNX : Flags{0}};
}

Result pack_e8m0(const Unpacked& u, RoundingMode mode, bool sat) {
  // ReferenceFloatToE8M0 generalised to the wide intermediate.
  if (u.kind == Kind::NaN || u.kind == Kind::Invalid || u.kind == Kind::Zero || u.negative) return {0xFF, kNV};
  if (u.kind == Kind::Inf) return {sat ? 0xFEULL : 0xFFULL, kOF | kNX};
  const int fl = u.exp + 63;
  const bool exact_power = u.sig == (1ULL << 63);
  if (fl < -127) return {sat ? 0x00ULL : 0xFFULL, kUF | kNX};
  if (fl > 127 || (fl == 127 && !exact_power)) return {sat ? 0xFEULL : 0xFFULL, kOF | kNX};
  if (exact_power) return {static_cast<std::uint64_t>(fl + 127), 0};
  const int fe = fl, ce = fl + 1;
  int r;
  switch (mode) {
    case RoundingMode::RTM: r = fe; break;
    case RoundingMode::RTP: r = ce; break;
    case RoundingMode::RTZ: r = fe < 0 ? ce : fe; break;
    case RoundingMode::RTO: r = (fe % 2 != 0) ? fe : ce; break;
    default: {
      // Nearest in the exponent domain: compare sig^2 with 2^127 (the
      // geometric midpoint); equality is impossible for integers.
      __extension__ using u128 = unsigned __int128;
      const u128 sq = static_cast<u128>(u.sig) * u.sig;
      r = sq < (static_cast<u128>(1) << 127) ? fe : ce;
      break;
    }
  }
  return {static_cast<std::uint64_t>(r + 127), kNX};
}

Result pack_integer(DataType t, const Unpacked& u, RoundingMode mode, bool sat) {
  return pack_integer_impl(element_width(t), info(t).kind == DataTypeKind::Signed, u, mode, sat);
}

}  // namespace

Result pack_integer_width(unsigned width, bool is_signed, const Unpacked& u, RoundingMode mode, bool saturate) noexcept {
  return pack_integer_impl(width, is_signed, u, mode, saturate);
}

const char* value_class_name(ValueClass c) noexcept {
  switch (c) {
    case ValueClass::InvalidEncoding: return "invalid-encoding";
    case ValueClass::PositiveZero: return "positive-zero";
    case ValueClass::NegativeZero: return "negative-zero";
    case ValueClass::PositiveSubnormal: return "positive-subnormal";
    case ValueClass::NegativeSubnormal: return "negative-subnormal";
    case ValueClass::PositiveNormal: return "positive-normal";
    case ValueClass::NegativeNormal: return "negative-normal";
    case ValueClass::PositiveInfinity: return "positive-infinity";
    case ValueClass::NegativeInfinity: return "negative-infinity";
    case ValueClass::QuietNaN: return "quiet-nan";
    case ValueClass::SignalingNaN: return "signaling-nan";
  }
  return "?";
}

const FormatInfo& format_info(DataType t) noexcept { return formats()[code_of(t) & 31U]; }

bool encoding_valid(DataType t, std::uint64_t bits) noexcept {
  const auto& f = format_info(t);
  if (f.kind != FormatKind::FixedBinary) return true;
  if (f.low_zero_bits && (bits & ones(f.low_zero_bits))) return false;
  if (f.high_zero_bits && ((bits >> 6) & 3U)) return false;
  return true;
}

ValueClass classify(DataType t, std::uint64_t bits) noexcept {
  const auto& f = format_info(t);
  if (!encoding_valid(t, bits)) return ValueClass::InvalidEncoding;
  switch (f.kind) {
    case FormatKind::Unavailable: {
      const unsigned w = element_width(t);
      const std::uint64_t v = bits & ones(w);
      if (v == 0) return ValueClass::PositiveZero;
      if (info(t).kind == DataTypeKind::Signed && ((v >> (w - 1)) & 1U)) return ValueClass::NegativeNormal;
      return ValueClass::PositiveNormal;
    }
    case FormatKind::E8M0:
      return (bits & 0xFF) == 0xFF ? ValueClass::QuietNaN : ValueClass::PositiveNormal;
    case FormatKind::HiF8: {
      const auto v = static_cast<std::uint8_t>(bits);
      if (v == 0x80) return ValueClass::QuietNaN;
      if (v == 0x6F) return ValueClass::PositiveInfinity;
      if (v == 0xEF) return ValueClass::NegativeInfinity;
      if (v == 0x00) return ValueClass::PositiveZero;
      return finite_class(v & 0x80, false, (v & 0x7F) <= 7);
    }
    case FormatKind::FixedBinary: break;
  }
  const std::uint64_t lane = lane_of(t, bits);
  const bool neg = (lane >> f.sign_bit) & 1U;
  const std::uint64_t e = (lane >> (f.frac_bits + f.low_zero_bits)) & ones(f.exp_bits);
  const std::uint64_t m = (lane >> f.low_zero_bits) & ones(f.frac_bits);
  if (f.has_infinity && e == ones(f.exp_bits)) {
    if (m == 0) return neg ? ValueClass::NegativeInfinity : ValueClass::PositiveInfinity;
    return ((m >> (f.frac_bits - 1)) & 1U) ? ValueClass::QuietNaN : ValueClass::SignalingNaN;
  }
  if (t == DataType::E4M3 && e == 15 && m == 7) return ValueClass::QuietNaN;
  if (!f.has_subnormal) return finite_class(neg, e == 0 && m == 0, false);
  return finite_class(neg, e == 0 && m == 0, e == 0 && m != 0);
}

Decomposition decompose(DataType t, std::uint64_t bits) noexcept {
  const auto& f = format_info(t);
  Decomposition d;
  if (!encoding_valid(t, bits)) return d;
  const ValueClass c = classify(t, bits);
  if (is_nan(c) || is_inf(c) || f.kind == FormatKind::Unavailable) return d;
  if (f.kind == FormatKind::E8M0) return {true, false, 1, static_cast<int>(bits & 0xFF) - 127};
  if (f.kind == FormatKind::HiF8) {
    const auto v = static_cast<std::uint8_t>(bits);
    if (v == 0) return {true, false, 0, 0};
    const HiF8Fields h = hif8_fields(v);
    if (h.denormal) return {true, (v & 0x80) != 0, 1, h.exp};
    return {true, (v & 0x80) != 0, (1ULL << h.mbits) | h.mant, h.exp - static_cast<int>(h.mbits)};
  }
  const std::uint64_t lane = lane_of(t, bits);
  d.available = true;
  d.negative = (lane >> f.sign_bit) & 1U;
  const std::uint64_t e = (lane >> (f.frac_bits + f.low_zero_bits)) & ones(f.exp_bits);
  const std::uint64_t m = (lane >> f.low_zero_bits) & ones(f.frac_bits);
  if (e == 0) {
    d.significand = m;
    d.exponent = m == 0 ? 0 : 1 - f.bias - f.frac_bits;
  } else {
    d.significand = (1ULL << f.frac_bits) | m;
    d.exponent = static_cast<int>(e) - f.bias - f.frac_bits;
  }
  return d;
}

OptionalBits canonical_nan(DataType t) noexcept {
  const auto& f = format_info(t);
  return {f.has_nan, f.canonical_nan};
}

Unpacked make_finite(bool negative, std::uint64_t sig, int exp) noexcept {
  Unpacked u;
  u.negative = negative;
  if (sig == 0) {
    u.kind = Kind::Zero;
    return u;
  }
  const int lz = std::countl_zero(sig);
  u.kind = Kind::Finite;
  u.sig = sig << lz;
  u.exp = exp - lz;
  return u;
}

Unpacked unpack(DataType t, std::uint64_t bits) noexcept {
  const auto& f = format_info(t);
  Unpacked u;
  if (f.kind == FormatKind::Unavailable) {  // integer
    const unsigned w = element_width(t);
    std::uint64_t v = bits & ones(w);
    bool neg = false;
    if (info(t).kind == DataTypeKind::Signed && ((v >> (w - 1)) & 1U)) {
      neg = true;
      v = (0ULL - v) & ones(w);
      if (v == 0) v = 1ULL << (w - 1);  // minimum value (w == 64 handled by mask)
    }
    return make_finite(neg, v, 0);
  }
  const ValueClass c = classify(t, bits);
  switch (c) {
    case ValueClass::InvalidEncoding: u.kind = Kind::Invalid; return u;
    case ValueClass::QuietNaN:
    case ValueClass::SignalingNaN:
      u.kind = Kind::NaN;
      u.signaling = c == ValueClass::SignalingNaN;
      return u;
    case ValueClass::PositiveInfinity:
    case ValueClass::NegativeInfinity:
      u.kind = Kind::Inf;
      u.negative = c == ValueClass::NegativeInfinity;
      return u;
    default: break;
  }
  const Decomposition d = decompose(t, bits);
  return make_finite(d.negative, d.significand, d.exponent);
}

Unpacked from_double(double d) noexcept { return unpack(DataType::FP64, std::bit_cast<std::uint64_t>(d)); }

Unpacked from_long_double(long double d, bool inexact) noexcept {
  Unpacked u;
  if (std::isnan(d)) {
    u.kind = Kind::NaN;
    return u;
  }
  u.negative = std::signbit(d);
  if (std::isinf(d)) {
    u.kind = Kind::Inf;
    return u;
  }
  if (d == 0) {
    u.kind = Kind::Zero;
    return u;
  }
  int e = 0;
  long double fr = std::frexp(std::fabs(d), &e);  // [0.5, 1)
  const auto sig = static_cast<std::uint64_t>(std::ldexp(fr, 64));
  u = make_finite(u.negative, sig, e - 64);
  if (inexact) u.sig |= 1U;
  return u;
}

double to_double(const Unpacked& u) noexcept {
  switch (u.kind) {
    case Kind::Zero: return u.negative ? -0.0 : 0.0;
    case Kind::Inf: return u.negative ? -HUGE_VAL : HUGE_VAL;
    case Kind::NaN:
    case Kind::Invalid: return std::nan("");
    case Kind::Finite: break;
  }
  const double m = std::ldexp(static_cast<double>(u.sig >> 11), u.exp + 11);  // exact for <=53-bit sigs
  return u.negative ? -m : m;
}

double decode_to_double(DataType t, std::uint64_t bits) noexcept { return to_double(unpack(t, bits)); }

Rounded round_at(std::uint64_t sig, int exp, int q, bool negative, RoundingMode mode, std::uint64_t parity_xor) noexcept {
  const int sh = q - exp;
  if (sh <= 0) return {sh <= -64 ? 0 : (sig << -sh), false};  // caller ensures no overflow
  std::uint64_t kept, rem;
  int cmp;
  if (sh >= 65) {
    kept = 0;
    rem = sig;
    cmp = -1;
  } else if (sh == 64) {
    kept = 0;
    rem = sig;
    const std::uint64_t half = 1ULL << 63;
    cmp = rem < half ? -1 : (rem == half ? 0 : 1);
  } else {
    kept = sig >> sh;
    rem = sig & ones(static_cast<unsigned>(sh));
    const std::uint64_t half = 1ULL << (sh - 1);
    cmp = rem < half ? -1 : (rem == half ? 0 : 1);
  }
  if (rem == 0) return {kept, false};
  if (round_up((kept ^ parity_xor) & 1U, cmp, negative, mode)) ++kept;
  return {kept, true};
}

Result pack(DataType t, const Unpacked& u, RoundingMode mode, bool saturate) noexcept {
  const auto& f = format_info(t);
  if (f.kind == FormatKind::Unavailable) return pack_integer(t, u, mode, saturate);
  if (f.kind == FormatKind::E8M0) return pack_e8m0(u, mode, saturate);
  switch (u.kind) {
    case Kind::NaN: return pack_nan(f, u.signaling);
    case Kind::Invalid: return pack_nan(f, true);
    case Kind::Inf:
      if (saturate) return {with_sign(f, u.negative, f.max_finite), kOF | kNX};  // decision D3
      if (f.has_infinity) return pack_overflow(f, u.negative, RoundingMode::RNE, false, 0);
      if (f.has_nan) return {f.canonical_nan, 0};  // E4M3: TLOG contract (0x7F, no OF)
      return {with_sign(f, u.negative, f.max_finite), kOF | kNX};
    case Kind::Zero:
      if (f.kind == FormatKind::HiF8) return {0, 0};
      return {with_sign(f, u.negative, 0), 0};
    case Kind::Finite: break;
  }
  if (f.kind == FormatKind::HiF8) return pack_hif8(f, u, mode, saturate);
  return pack_fixed(f, u, mode, saturate);
}

Result convert(DataType src, DataType dst, std::uint64_t bits, RoundingMode mode, bool saturate) noexcept {
  if (is_integer(src) && is_integer(dst)) {
    // Integer narrowing: saturate or wrap (decision D6). No flags.
    const Unpacked u = unpack(src, bits);
    if (saturate) {
      Result r = pack_integer(dst, u, RoundingMode::RTZ, true);
      r.flags = 0;
      return r;
    }
    std::uint64_t v = u.kind == Kind::Zero ? 0 : (u.exp >= 0 ? u.sig << u.exp : u.sig >> -u.exp);
    if (u.negative) v = 0ULL - v;
    return {v & ones(element_width(dst)), 0};
  }
  return pack(dst, unpack(src, bits), mode, saturate);
}

Result encode_double(DataType dst, double d, RoundingMode mode, bool saturate) noexcept {
  return pack(dst, from_double(d), mode, saturate);
}

Result float_to_e8m0(DataType src, std::uint64_t bits, RoundingMode mode, bool saturate) noexcept {
  return pack_e8m0(unpack(src, bits), mode, saturate);
}

NumericFormatDescriptor numeric_format_descriptor(DataType t) noexcept {
  const FormatInfo& f = format_info(t);
  NumericFormatDescriptor d;
  if (f.kind == FormatKind::Unavailable) return d;
  const bool hif8 = f.kind == FormatKind::HiF8;
  d.available = true;
  d.kind = f.kind;
  d.carrier_bits = f.carrier_bits;
  d.lane_bits = f.lane_bits;
  d.lanes_per_carrier = lanes_per_carrier(t);
  d.sign_bits = f.kind == FormatKind::E8M0 ? 0U : 1U;  // E8M0 is unsigned
  d.sign_bit = f.sign_bit;
  d.exponent_bits_min = hif8 ? 0U : f.exp_bits;
  d.exponent_bits_max = f.exp_bits;
  d.fraction_bits_min = hif8 ? 1U : f.frac_bits;
  d.fraction_bits_max = f.frac_bits;
  d.exponent_bias_available = !hif8;
  d.exponent_bias = static_cast<unsigned>(f.bias);
  d.required_low_zero_bits = f.low_zero_bits;
  d.required_high_zero_bits = f.high_zero_bits;
  d.has_zero = f.kind != FormatKind::E8M0;  // E8M0 encodes only powers of two
  d.has_signed_zero = f.has_signed_zero;
  d.has_subnormal = f.has_subnormal;
  d.has_infinity = f.has_infinity;
  d.has_quiet_nan = f.has_nan;
  d.has_signaling_nan = f.has_signaling_nan;
  return d;
}

SignedZeroEncodings signed_zero_encodings(DataType t) noexcept {
  const FormatInfo& f = format_info(t);
  if (!f.has_signed_zero) return {};
  return {true, 0, 1ULL << f.sign_bit};
}

namespace {
constexpr std::uint32_t kFP19ExponentMask = 0xFFU << 10;
constexpr std::uint32_t kFP19FractionMask = 0x3FFU;
}  // namespace

ValueClass fp19_classify(std::uint32_t bits) noexcept {
  const bool neg = (bits >> 18) & 1U;
  const std::uint32_t e = bits & kFP19ExponentMask;
  const std::uint32_t m = bits & kFP19FractionMask;
  if (e == kFP19ExponentMask) {
    if (m == 0) return neg ? ValueClass::NegativeInfinity : ValueClass::PositiveInfinity;
    return (m >> 9) ? ValueClass::QuietNaN : ValueClass::SignalingNaN;
  }
  return finite_class(neg, e == 0 && m == 0, e == 0 && m != 0);
}

double fp19_finite_value(std::uint32_t bits) noexcept {
  const std::uint32_t e = (bits & kFP19ExponentMask) >> 10;
  const std::uint32_t m = bits & kFP19FractionMask;
  if (e == 0xFF) return std::nan("");
  const double mag = e == 0 ? std::ldexp(m, -136) : std::ldexp(1024 + m, static_cast<int>(e) - 137);
  return ((bits >> 18) & 1U) ? -mag : mag;
}

bool fp19_scale_legal(std::uint32_t bits) noexcept { return fp19_classify(bits) == ValueClass::PositiveNormal; }

bool fp19_activation_parameter_legal(std::uint32_t bits) noexcept {
  const ValueClass c = fp19_classify(bits);
  return c == ValueClass::PositiveZero || c == ValueClass::PositiveNormal;
}

std::uint32_t fp32_to_fp19(std::uint32_t fp32) noexcept {
  if (is_nan(classify(DataType::FP32, fp32))) return 0x3FF00;
  // Sign, exponent and fraction move down by 13 bits; the discarded 13 bits
  // round to nearest, ties to even. A fraction carry increments the exponent
  // (the field layout makes this the plain integer increment).
  const std::uint32_t kept = fp32 >> 13;
  const std::uint32_t discarded = fp32 & 0x1FFFU;
  const bool up = discarded > 0x1000U || (discarded == 0x1000U && (kept & 1U));
  const std::uint32_t sign = kept & (1U << 18);
  return sign | ((kept & ~sign) + (up ? 1U : 0U));
}

}  // namespace pto::num
