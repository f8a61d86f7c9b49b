#include "numerics/arith.hpp"

#include <bit>
#include <cmath>

namespace pto::num {

namespace {

__extension__ using u128 = unsigned __int128;

int clz128(u128 v) {
  const auto hi = static_cast<std::uint64_t>(v >> 64);
  if (hi) return std::countl_zero(hi);
  return 64 + std::countl_zero(static_cast<std::uint64_t>(v));
}

// Normalise a non-zero u128 value (value = v * 2^exp) into a jammed 64-bit Unpacked.
Unpacked jam64(bool neg, u128 v, int exp) {
  const int lz = clz128(v);
  v <<= lz;
  exp -= lz;
  const auto hi = static_cast<std::uint64_t>(v >> 64);
  const auto lo = static_cast<std::uint64_t>(v);
  Unpacked u;
  u.kind = Kind::Finite;
  u.negative = neg;
  u.sig = hi | (lo != 0 ? 1U : 0U);
  u.exp = exp + 64;
  return u;
}

Unpacked nan_value() {
  Unpacked u;
  u.kind = Kind::NaN;
  return u;
}
Unpacked inf_value(bool neg) {
  Unpacked u;
  u.kind = Kind::Inf;
  u.negative = neg;
  return u;
}
Unpacked zero_value(bool neg) {
  Unpacked u;
  u.kind = Kind::Zero;
  u.negative = neg;
  return u;
}

bool nanlike(const Unpacked& u) { return u.kind == Kind::NaN || u.kind == Kind::Invalid; }
bool sig_nan(const Unpacked& u) { return (u.kind == Kind::NaN && u.signaling) || u.kind == Kind::Invalid; }

// Shift right with sticky jam into bit 0.
u128 shr_jam(u128 v, int n) {
  if (n <= 0) return v;
  if (n >= 128) return v != 0 ? 1 : 0;
  const u128 lost = v & ((static_cast<u128>(1) << n) - 1);
  return (v >> n) | (lost != 0 ? 1 : 0);
}

// Exact (jammed) sum of two non-zero finite values A*2^ea and B*2^eb.
WideResult add128(bool na, u128 a, int ea, bool nb, u128 b, int eb, RoundingMode mode) {
  // Normalise both to msb at bit 124.
  auto norm = [](u128& v, int& e) {
    const int msb = 127 - clz128(v);
    if (msb > 124) {
      v = shr_jam(v, msb - 124);
      e += msb - 124;
    } else {
      v <<= (124 - msb);
      e -= (124 - msb);
    }
  };
  norm(a, ea);
  norm(b, eb);
  if (ea < eb || (ea == eb && b > a)) {
    std::swap(a, b);
    std::swap(ea, eb);
    std::swap(na, nb);
  }
  b = shr_jam(b, ea - eb);
  u128 s;
  bool neg = na;
  if (na == nb) {
    s = a + b;
  } else {
    s = a - b;  // a >= b by construction
  }
  if (s == 0) return {zero_value(mode == RoundingMode::RTM), 0};
  return {jam64(neg, s, ea), 0};
}

std::uint64_t isqrt128(u128 r, bool& exact) {
  u128 rem = 0, root = 0;
  for (int i = 0; i < 64; ++i) {
    root <<= 1;
    rem = (rem << 2) | (r >> 126);
    r <<= 2;
    const u128 t = (root << 1) | 1;
    if (rem >= t) {
      rem -= t;
      root |= 1;
    }
  }
  exact = rem == 0;
  return static_cast<std::uint64_t>(root);
}

long double to_ld(const Unpacked& u) {
  const long double m = std::ldexp(static_cast<long double>(u.sig), u.exp);
  return u.negative ? -m : m;
}

Unpacked huge(bool neg) { return make_finite(neg, 1ULL << 63, 1 << 20); }
Unpacked tiny(bool neg) {
  Unpacked u = make_finite(neg, 1ULL << 63, -(1 << 20));
  u.sig |= 1U;
  return u;
}

Unpacked ld_result(long double y) {
  if (std::isinf(y)) return huge(std::signbit(y));
  if (y == 0) return tiny(std::signbit(y));
  return from_long_double(y, true);
}

// exp(x) for 0 < |x| < 1 as the exact sum 1 + expm1(x).  An 80-bit exp
// result near 1 carries only 2^-64 absolute precision and can land exactly
// on a rounding boundary (1 itself for |x| < 2^-64; 1 + 2^-23 for the FP32
// argument 0x33FFFFFF), where its always-upward sticky bit then decides
// RTZ/RTM/RTP/RTO the wrong way.  expm1 keeps 2^-63 relative precision in the
// small part, so the sum is within |expm1(x)| 2^-63 of exp(x); for |x| below
// 2^-63 it returns x itself, and the sticky bit moves 1 + x toward exp(x) >
// 1 + x for x > 0 and stays below 1 for x < 0.
Unpacked exp_below_one(const Unpacked& x) {
  const Unpacked small = from_long_double(std::expm1(to_ld(x)), true);
  return wide_add(make_finite(false, 1, 0), small, RoundingMode::RNE).value;
}

int cmp_values(const Unpacked& a, const Unpacked& b) {
  auto key_sign = [](const Unpacked& u) { return u.kind == Kind::Zero ? 0 : (u.negative ? -1 : 1); };
  const int sa = key_sign(a), sb = key_sign(b);
  if (sa != sb) return sa < sb ? -1 : 1;
  if (sa == 0) return 0;
  // same sign, both non-zero: compare magnitudes
  int mag;
  if (a.kind == Kind::Inf || b.kind == Kind::Inf) {
    mag = (a.kind == Kind::Inf) - (b.kind == Kind::Inf);
  } else {
    const int ea = a.exp + 63, eb = b.exp + 63;
    if (ea != eb) mag = ea < eb ? -1 : 1;
    else mag = a.sig < b.sig ? -1 : (a.sig == b.sig ? 0 : 1);
  }
  return sa > 0 ? mag : -mag;
}

}  // namespace

WideResult wide_add(const Unpacked& a, const Unpacked& b, RoundingMode mode) {
  if (nanlike(a) || nanlike(b)) return {nan_value(), (sig_nan(a) || sig_nan(b)) ? kNV : Flags{0}};
  if (a.kind == Kind::Inf || b.kind == Kind::Inf) {
    if (a.kind == Kind::Inf && b.kind == Kind::Inf && a.negative != b.negative) return {nan_value(), kNV};
    return {inf_value(a.kind == Kind::Inf ? a.negative : b.negative), 0};
  }
  if (a.kind == Kind::Zero && b.kind == Kind::Zero) {
    const bool neg = a.negative == b.negative ? a.negative : (mode == RoundingMode::RTM);
    return {zero_value(neg), 0};
  }
  if (a.kind == Kind::Zero) return {b, 0};
  if (b.kind == Kind::Zero) return {a, 0};
  return add128(a.negative, a.sig, a.exp, b.negative, b.sig, b.exp, mode);
}

WideResult wide_mul(const Unpacked& a, const Unpacked& b) {
  if (nanlike(a) || nanlike(b)) return {nan_value(), (sig_nan(a) || sig_nan(b)) ? kNV : Flags{0}};
  const bool neg = a.negative != b.negative;
  if (a.kind == Kind::Inf || b.kind == Kind::Inf) {
    if (a.kind == Kind::Zero || b.kind == Kind::Zero) return {nan_value(), kNV};
    return {inf_value(neg), 0};
  }
  if (a.kind == Kind::Zero || b.kind == Kind::Zero) return {zero_value(neg), 0};
  return {jam64(neg, static_cast<u128>(a.sig) * b.sig, a.exp + b.exp), 0};
}

WideResult wide_div(const Unpacked& a, const Unpacked& b) {
  if (nanlike(a) || nanlike(b)) return {nan_value(), (sig_nan(a) || sig_nan(b)) ? kNV : Flags{0}};
  const bool neg = a.negative != b.negative;
  if (a.kind == Kind::Inf) {
    if (b.kind == Kind::Inf) return {nan_value(), kNV};
    return {inf_value(neg), 0};
  }
  if (b.kind == Kind::Inf) return {zero_value(neg), 0};
  if (b.kind == Kind::Zero) {
    if (a.kind == Kind::Zero) return {nan_value(), kNV};
    return {inf_value(neg), kDZ};
  }
  if (a.kind == Kind::Zero) return {zero_value(neg), 0};
  const u128 num = static_cast<u128>(a.sig) << 64;
  const u128 q = num / b.sig;
  const u128 r = num % b.sig;
  return {jam64(neg, (q << 1) | (r != 0 ? 1 : 0), a.exp - b.exp - 64 - 1), 0};
}

WideResult wide_sqrt(const Unpacked& a) {
  if (nanlike(a)) return {nan_value(), sig_nan(a) ? kNV : Flags{0}};
  if (a.kind == Kind::Zero) return {a, 0};
  if (a.negative) return {nan_value(), kNV};
  if (a.kind == Kind::Inf) return {a, 0};
  int e = a.exp;
  u128 r = static_cast<u128>(a.sig) << 64;  // msb at 127
  if (e & 1) {
    r >>= 1;  // low 64 bits of r are zero, nothing is lost
    e += 1;
  }
  // value = r * 2^(e-64); sqrt = sqrt(r) * 2^((e-64)/2)
  bool exact = false;
  const std::uint64_t root = isqrt128(r, exact);
  Unpacked u = make_finite(false, root, (e - 64) / 2);
  if (!exact) u.sig |= 1U;
  return {u, 0};
}

WideResult wide_rsqrt(const Unpacked& a) {
  if (nanlike(a)) return {nan_value(), sig_nan(a) ? kNV : Flags{0}};
  if (a.kind == Kind::Zero) return {inf_value(a.negative), kDZ};
  if (a.negative) return {nan_value(), kNV};
  if (a.kind == Kind::Inf) return {zero_value(false), 0};
  // x = m * 2^e with m < 2^54 (carriers have <= 53 significant bits).
  std::uint64_t m = a.sig >> 11;
  const bool lost = (a.sig & 0x7FFU) != 0;
  int e = a.exp + 11;
  if (e & 1) {
    m <<= 1;
    e -= 1;
  }
  // N = floor(2^178 / m); 1/sqrt(x) = sqrt(N') * 2^(-(178 + e)/2)
  const u128 n1 = static_cast<u128>(1) << 114;
  const u128 hi = n1 / m;
  const u128 r1 = n1 % m;
  const u128 lo = (r1 << 64) / m;
  const u128 r2 = (r1 << 64) % m;
  const u128 n = (hi << 64) | lo;
  bool exact = false;
  const std::uint64_t root = isqrt128(n, exact);
  Unpacked u = make_finite(false, root, -(178 + e) / 2);
  if (!exact || r2 != 0 || lost) u.sig |= 1U;
  return {u, 0};
}

WideResult wide_fma(const Unpacked& a, const Unpacked& b, const Unpacked& c, RoundingMode mode) {
  const bool any_snan = sig_nan(a) || sig_nan(b) || sig_nan(c);
  const bool inf_times_zero = (a.kind == Kind::Inf && b.kind == Kind::Zero) ||
                              (a.kind == Kind::Zero && b.kind == Kind::Inf);
  if (nanlike(a) || nanlike(b) || nanlike(c))
    return {nan_value(), (any_snan || inf_times_zero) ? kNV : Flags{0}};
  if (inf_times_zero) return {nan_value(), kNV};
  const bool pneg = a.negative != b.negative;
  if (a.kind == Kind::Inf || b.kind == Kind::Inf) {
    if (c.kind == Kind::Inf && c.negative != pneg) return {nan_value(), kNV};
    return {inf_value(pneg), 0};
  }
  if (c.kind == Kind::Inf) return {c, 0};
  if (a.kind == Kind::Zero || b.kind == Kind::Zero) return wide_add(zero_value(pneg), c, mode);
  const u128 p = static_cast<u128>(a.sig) * b.sig;
  if (c.kind == Kind::Zero) return {jam64(pneg, p, a.exp + b.exp), 0};
  return add128(pneg, p, a.exp + b.exp, c.negative, c.sig, c.exp, mode);
}

Result ieee_binary(BinaryOp op, DataType t, std::uint64_t a, std::uint64_t b, RoundingMode mode) {
  if (op == BinaryOp::MIN || op == BinaryOp::MAX) return ieee_min_max(op == BinaryOp::MAX, t, a, b);
  const Unpacked ua = unpack(t, a);
  Unpacked ub = unpack(t, b);
  WideResult w;
  switch (op) {
    case BinaryOp::ADD: w = wide_add(ua, ub, mode); break;
    case BinaryOp::SUB:
      ub.negative = !ub.negative;
      w = wide_add(ua, ub, mode);
      break;
    case BinaryOp::MUL: w = wide_mul(ua, ub); break;
    case BinaryOp::DIV: w = wide_div(ua, ub); break;
    default: break;
  }
  Result r = pack(t, w.value, mode);
  r.flags |= w.flags;
  return r;
}

Result ieee_fused(FusedOp op, DataType t, std::uint64_t addend, std::uint64_t left, std::uint64_t right,
                  RoundingMode mode) {
  Unpacked a = unpack(t, left), b = unpack(t, right), c = unpack(t, addend);
  switch (op) {
    case FusedOp::MADD: break;
    case FusedOp::MSUB: c.negative = !c.negative; break;
    case FusedOp::NMADD:
      a.negative = !a.negative;
      c.negative = !c.negative;
      break;
    case FusedOp::NMSUB: a.negative = !a.negative; break;
  }
  const WideResult w = wide_fma(a, b, c, mode);
  Result r = pack(t, w.value, mode);
  r.flags |= w.flags;
  return r;
}

Result ieee_unary(UnaryOp op, DataType t, std::uint64_t a, RoundingMode mode) {
  const auto& f = format_info(t);
  const Unpacked u = unpack(t, a);
  if (op == UnaryOp::ABS) {
    if (u.kind == Kind::Invalid) return pack(t, u, mode);
    if (f.kind == FormatKind::HiF8 && (a & 0xFF) == 0x80) return {a & 0xFF, 0};  // NaN has no sign
    if (f.kind == FormatKind::E8M0) return {a & 0xFF, 0};
    const std::uint64_t sb = 1ULL << f.sign_bit;
    if (f.kind == FormatKind::HiF8 && (a & 0x7F) == 0) return {0, 0};
    return {a & ~sb, 0};
  }
  WideResult w;
  switch (op) {
    case UnaryOp::SQRT: w = wide_sqrt(u); break;
    case UnaryOp::RSQRT: w = wide_rsqrt(u); break;
    case UnaryOp::RECIP: w = wide_div(make_finite(false, 1, 0), u); break;
    case UnaryOp::EXP:
      if (nanlike(u)) w = {nan_value(), sig_nan(u) ? kNV : Flags{0}};
      else if (u.kind == Kind::Inf) w = {u.negative ? zero_value(false) : inf_value(false), 0};
      else if (u.kind == Kind::Zero) w = {make_finite(false, 1, 0), 0};
      else if (u.exp <= -64) w = {exp_below_one(u), 0};  // |x| < 1: top significand bit 63
      else w = {ld_result(std::exp(to_ld(u))), 0};
      break;
    case UnaryOp::LOG:
      if (nanlike(u)) w = {nan_value(), sig_nan(u) ? kNV : Flags{0}};
      else if (u.kind == Kind::Zero) w = {inf_value(true), kDZ};
      else if (u.negative) w = {nan_value(), kNV};
      else if (u.kind == Kind::Inf) w = {u, 0};
      else if (u.sig == (1ULL << 63) && u.exp == -63) w = {zero_value(false), 0};
      else w = {ld_result(std::log(to_ld(u))), 0};
      break;
    default: break;
  }
  Result r = pack(t, w.value, mode);
  r.flags |= w.flags;
  return r;
}

Result ieee_min_max(bool maximum, DataType t, std::uint64_t a, std::uint64_t b) {
  const ValueClass ca = classify(t, a), cb = classify(t, b);
  const auto& f = format_info(t);
  const bool inv = ca == ValueClass::InvalidEncoding || cb == ValueClass::InvalidEncoding;
  if (inv) return {f.has_nan ? f.canonical_nan : 0, kNV};
  const Flags fl = (ca == ValueClass::SignalingNaN || cb == ValueClass::SignalingNaN) ? kNV : Flags{0};
  if (is_nan(ca) && is_nan(cb)) return {f.canonical_nan, fl};
  if (is_nan(ca)) return {b, fl};
  if (is_nan(cb)) return {a, fl};
  if (is_zero(ca) && is_zero(cb)) {
    if (maximum) {
      if (ca == ValueClass::NegativeZero && cb == ValueClass::NegativeZero) return {a, 0};
      return {0, 0};
    }
    if (ca == ValueClass::NegativeZero) return {a, 0};
    if (cb == ValueClass::NegativeZero) return {b, 0};
    return {0, 0};
  }
  const int c = cmp_values(unpack(t, a), unpack(t, b));
  if (maximum) return {c >= 0 ? a : b, 0};
  return {c <= 0 ? a : b, 0};
}

CompareResult ieee_compare(CompareOp op, DataType t, std::uint64_t a, std::uint64_t b, bool signaling) {
  const ValueClass ca = classify(t, a), cb = classify(t, b);
  if (is_nan(ca) || is_nan(cb) || ca == ValueClass::InvalidEncoding || cb == ValueClass::InvalidEncoding) {
    const bool snan = ca == ValueClass::SignalingNaN || cb == ValueClass::SignalingNaN ||
                      ca == ValueClass::InvalidEncoding || cb == ValueClass::InvalidEncoding;
    return {op == CompareOp::NE, (snan || signaling) ? kNV : Flags{0}};
  }
  const int c = cmp_values(unpack(t, a), unpack(t, b));
  bool v = false;
  switch (op) {
    case CompareOp::EQ: v = c == 0; break;
    case CompareOp::NE: v = c != 0; break;
    case CompareOp::LT: v = c < 0; break;
    case CompareOp::LE: v = c <= 0; break;
    case CompareOp::GT: v = c > 0; break;
    case CompareOp::GE: v = c >= 0; break;
  }
  return {v, 0};
}

}  // namespace pto::num
