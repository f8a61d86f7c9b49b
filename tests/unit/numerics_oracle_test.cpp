// Exhaustive and sampled checks against an independent MPFR oracle.
// The oracle rounds by explicit neighbour search (grid quantum or an
// enumerated value list) with MPFR arithmetic; expected encodings come from
// an independent field decoder written here, never from the implementation.
#include <gtest/gtest.h>

#ifdef PTO_HAVE_MPFR
#include <mpfr.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <map>
#include <random>
#include <vector>

#include "numerics/profile.hpp"

using namespace pto::num;

namespace {

// ---------------------------------------------------------------- decoder --
struct Spec {
  DataType t;
  int ebits, fbits, bias;
  enum Specials { IEEE, E4M3FN, NONE } specials;
  bool uf;  // formats with subnormals report underflow
};
const Spec kSpecs[] = {
    {DataType::FP16, 5, 10, 15, Spec::IEEE, true},   {DataType::BF16, 8, 7, 127, Spec::IEEE, true},
    {DataType::E4M3, 4, 3, 7, Spec::E4M3FN, true},   {DataType::E5M2, 5, 2, 15, Spec::IEEE, true},
    {DataType::E3M2, 3, 2, 3, Spec::NONE, true},     {DataType::E2M3, 2, 3, 1, Spec::NONE, true},
    {DataType::E2M1X2, 2, 1, 1, Spec::NONE, false},  {DataType::E1M2X2, 1, 2, 1, Spec::NONE, false},
    {DataType::HiF4X2, 1, 2, 1, Spec::NONE, false},
};

// Independent decode: returns NaN for NaN codes.
double ref_decode(const Spec& s, unsigned code) {
  const int w = 1 + s.ebits + s.fbits;
  const bool neg = (code >> (w - 1)) & 1U;
  const int e = static_cast<int>((code >> s.fbits) & ((1U << s.ebits) - 1));
  const int f = static_cast<int>(code & ((1U << s.fbits) - 1));
  const int emax_field = (1 << s.ebits) - 1;
  if (s.specials == Spec::IEEE && e == emax_field) return f ? std::nan("") : (neg ? -HUGE_VAL : HUGE_VAL);
  if (s.specials == Spec::E4M3FN && e == emax_field && f == (1 << s.fbits) - 1) return std::nan("");
  double v = e == 0 ? std::ldexp(f, 1 - s.bias - s.fbits) : std::ldexp((1 << s.fbits) + f, e - s.bias - s.fbits);
  return neg ? -v : v;
}

// HiF8 independent decode from the dot-field table.
double ref_hif8(unsigned c) {
  if (c == 0x80) return std::nan("");
  if (c == 0x6F) return HUGE_VAL;
  if (c == 0xEF) return -HUGE_VAL;
  const double sgn = (c & 0x80) ? -1.0 : 1.0;
  const unsigned b = c & 0x7F;
  if (b == 0) return 0.0;
  if (b < 8) return sgn * std::ldexp(1.0, static_cast<int>(b) - 23);
  int e;
  double m;
  if (b < 0x10) {
    e = 0;
    m = 1 + (b & 7) / 8.0;
  } else if (b < 0x20) {
    e = (b & 8) ? -1 : 1;
    m = 1 + (b & 7) / 8.0;
  } else if (b < 0x40) {
    const int mag = 2 + ((b >> 3) & 1);
    e = (b & 0x10) ? -mag : mag;
    m = 1 + (b & 7) / 8.0;
  } else if (b < 0x60) {
    const int mag = 4 + ((b >> 2) & 3);
    e = (b & 0x10) ? -mag : mag;
    m = 1 + (b & 3) / 4.0;
  } else {
    const int mag = 8 + ((b >> 1) & 7);
    e = (b & 0x10) ? -mag : mag;
    m = 1 + (b & 1) / 2.0;
  }
  return sgn * std::ldexp(m, e);
}

// ----------------------------------------------------------------- oracle --
struct Fmt {
  int p = 0;             // precision (grid formats)
  int emin = 0;          // exponent of min normal
  double maxf = 0;       // max finite magnitude
  bool has_inf = false, has_nan = false, uf = true;
  const std::vector<double>* list = nullptr;  // enumerated magnitudes (HiF8), ascending, incl. 0
  double virt_next = 0;  // list formats: magnitude of the grid point above max
  int p_tiny = 0;        // precision used for after-rounding tininess
};
struct Expect {
  double value = 0;  // signed; +-inf; NaN
  Flags flags = 0;
};

struct M {
  mpfr_t v;
  explicit M(mpfr_prec_t prec = 4096) { mpfr_init2(v, prec); }
  explicit M(double d, mpfr_prec_t prec = 4096) {
    mpfr_init2(v, prec);
    mpfr_set_d(v, d, MPFR_RNDN);
  }
  ~M() { mpfr_clear(v); }
  M(const M&) = delete;
  M& operator=(const M&) = delete;
};

bool choose_up(int cmp_mid, bool low_odd, bool neg, RoundingMode m) {
  switch (m) {
    case RoundingMode::RNE: return cmp_mid > 0 || (cmp_mid == 0 && low_odd);
    case RoundingMode::RNA: return cmp_mid >= 0;
    case RoundingMode::RHB: return cmp_mid > 0 || (cmp_mid == 0 && !neg);
    case RoundingMode::RTZ: return false;
    case RoundingMode::RTP: return !neg;
    case RoundingMode::RTM: return neg;
    case RoundingMode::RTO: return !low_odd;
  }
  return false;
}

// Round magnitude a on a grid with precision p (exponent floor emin unless
// unbounded). Returns chosen magnitude (double) and exactness.
void grid_round_m(mpfr_srcptr a, int p, int emin, bool bounded, bool neg, RoundingMode m, bool& exact, mpfr_ptr out) {
  const long ex = mpfr_get_exp(a) - 1;
  long q = ex - p + 1;
  if (bounded && ex < emin) q = emin - p + 1;
  const mpfr_prec_t pr = mpfr_get_prec(a) + 64;
  M t(pr), fl(pr), low(pr), up(pr), mid(pr);
  mpfr_mul_2si(t.v, a, -q, MPFR_RNDN);
  mpfr_floor(fl.v, t.v);
  exact = mpfr_equal_p(fl.v, t.v);
  mpfr_mul_2si(low.v, fl.v, q, MPFR_RNDN);
  if (exact) {
    mpfr_set(out, low.v, MPFR_RNDN);
    return;
  }
  mpfr_add_ui(up.v, fl.v, 1, MPFR_RNDN);
  mpfr_mul_2si(up.v, up.v, q, MPFR_RNDN);
  mpfr_add(mid.v, low.v, up.v, MPFR_RNDN);
  mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);
  const bool low_odd = mpfr_get_ui(fl.v, MPFR_RNDN) & 1U;  // fl < 2^64 here
  const bool go_up = choose_up(mpfr_cmp(a, mid.v), low_odd, neg, m);
  mpfr_set(out, go_up ? up.v : low.v, MPFR_RNDN);
}

double grid_round(mpfr_srcptr a, int p, int emin, bool bounded, bool neg, RoundingMode m, bool& exact) {
  M out(mpfr_get_prec(a) + 64);
  grid_round_m(a, p, emin, bounded, neg, m, exact, out.v);
  return mpfr_get_d(out.v, MPFR_RNDN);  // exact: bounded results are representable
}

double list_round(mpfr_srcptr a, const Fmt& f, bool neg, RoundingMode m, bool& exact, const std::map<double, unsigned>& codes) {
  const auto& L = *f.list;
  if (mpfr_cmp_d(a, f.virt_next) >= 0) {  // beyond the last grid point: overflow for every mode
    exact = false;
    return f.virt_next * 2;
  }
  std::size_t i = 0;
  while (i + 1 < L.size() && mpfr_cmp_d(a, L[i + 1]) >= 0) ++i;
  const double low = L[i];
  exact = mpfr_cmp_d(a, low) == 0;
  if (exact) return low;
  const double up = i + 1 < L.size() ? L[i + 1] : f.virt_next;
  M mid(static_cast<mpfr_prec_t>(128));
  mpfr_set_d(mid.v, low, MPFR_RNDN);
  mpfr_add_d(mid.v, mid.v, up, MPFR_RNDN);
  mpfr_div_2ui(mid.v, mid.v, 1, MPFR_RNDN);
  const bool low_odd = low == 0 ? false : (codes.at(low) & 1U);
  return choose_up(mpfr_cmp(a, mid.v), low_odd, neg, m) ? up : low;
}

Expect oracle(mpfr_srcptr x, const Fmt& f, RoundingMode m, bool sat, const std::map<double, unsigned>* codes = nullptr) {
  Expect e;
  if (mpfr_zero_p(x)) {
    e.value = mpfr_signbit(x) ? -0.0 : 0.0;
    return e;
  }
  const bool neg = mpfr_signbit(x);
  M a(mpfr_get_prec(x));
  mpfr_abs(a.v, x, MPFR_RNDN);
  bool exact = false;
  double mag = f.list ? list_round(a.v, f, neg, m, exact, *codes) : grid_round(a.v, f.p, f.emin, true, neg, m, exact);
  if (!exact) e.flags |= kNX;
  if (mag > f.maxf) {
    e.flags |= kOF | kNX;
    bool to_inf = false;
    switch (m) {
      case RoundingMode::RNE:
      case RoundingMode::RNA:
      case RoundingMode::RHB: to_inf = true; break;
      case RoundingMode::RTZ:
      case RoundingMode::RTO: to_inf = false; break;
      case RoundingMode::RTP: to_inf = !neg; break;
      case RoundingMode::RTM: to_inf = neg; break;
    }
    if (sat || !to_inf || (!f.has_inf && !f.has_nan)) mag = f.maxf;
    else if (f.has_inf) mag = HUGE_VAL;
    else mag = std::nan("");
  }
  if (f.uf && !exact && mpfr_cmp_d(a.v, std::ldexp(1.0, f.emin)) < 0) {
    bool ex2 = false;
    M u(mpfr_get_prec(a.v) + 64);
    grid_round_m(a.v, f.p_tiny, f.emin, false, neg, m, ex2, u.v);
    if (mpfr_cmp_d(u.v, std::ldexp(1.0, f.emin)) < 0) e.flags |= kUF;
  }
  e.value = neg ? -mag : mag;
  return e;
}

struct Table {
  const Spec* spec = nullptr;  // null for HiF8
  DataType t{};
  Fmt fmt;
  std::vector<double> mags;                // ascending positive finite incl. 0
  std::map<double, unsigned> pos_codes;    // magnitude -> positive code
  unsigned sign_mask = 0;
  unsigned ncodes = 0;
  double decode(unsigned c) const { return spec ? ref_decode(*spec, c) : ref_hif8(c); }
  std::uint64_t encode_expected(double v) const {
    if (std::isnan(v)) return canonical_nan(t).bits;
    const double a = std::fabs(v);
    unsigned c = 0;
    if (std::isinf(v)) c = t == DataType::HiF8 ? 0x6F : (((1U << spec->ebits) - 1) << spec->fbits);
    else c = pos_codes.at(a);
    if (std::signbit(v) && !(t == DataType::HiF8 && a == 0)) c |= sign_mask;
    return c;
  }
};

Table make_table(const Spec* s, DataType t) {
  Table tb;
  tb.spec = s;
  tb.t = t;
  const int w = s ? 1 + s->ebits + s->fbits : 8;
  tb.ncodes = 1U << w;
  tb.sign_mask = 1U << (w - 1);
  for (unsigned c = 0; c < tb.sign_mask; ++c) {
    const double v = tb.decode(c);
    if (std::isfinite(v)) {
      tb.mags.push_back(v);
      tb.pos_codes.emplace(v, c);
    }
  }
  std::sort(tb.mags.begin(), tb.mags.end());
  Fmt& f = tb.fmt;
  f.maxf = tb.mags.back();
  if (s) {
    f.p = s->fbits + 1;
    f.emin = 1 - s->bias;
    f.has_inf = s->specials == Spec::IEEE;
    f.has_nan = s->specials != Spec::NONE;
    f.uf = s->uf;
    f.p_tiny = f.p;
  } else {
    f.list = &tb.mags;
    f.emin = -15;
    f.has_inf = f.has_nan = true;
    f.virt_next = 49152.0;
    f.p_tiny = 2;
  }
  return tb;
}

std::vector<Table>& tables() {
  static std::vector<Table> t = [] {
    std::vector<Table> v;
    for (const auto& s : kSpecs) v.push_back(make_table(&s, s.t));
    v.push_back(make_table(nullptr, DataType::HiF8));
    for (auto& tb : v)
      if (tb.fmt.list) tb.fmt.list = &tb.mags;  // re-point after move
    return v;
  }();
  return t;
}

std::uint64_t expected_fp64(double v) { return std::isnan(v) ? 0x7FF8000000000000ULL : std::bit_cast<std::uint64_t>(v); }

}  // namespace

// Every code of every <=16-bit floating format: classification-consistent
// exact decode and exact widening to FP32 and FP64.
TEST(NumericsOracle, ExhaustiveDecodeAndWiden) {
  std::size_t checked = 0;
  for (const auto& tb : tables()) {
    for (unsigned c = 0; c < tb.ncodes; ++c) {
      const double ref = tb.decode(c);
      const double got = decode_to_double(tb.t, c);
      if (std::isnan(ref)) {
        EXPECT_TRUE(std::isnan(got)) << name(tb.t) << " " << c;
        EXPECT_TRUE(is_nan(classify(tb.t, c)));
      } else {
        EXPECT_EQ(std::bit_cast<std::uint64_t>(got), std::bit_cast<std::uint64_t>(ref)) << name(tb.t) << " " << c;
      }
      const Result r64 = convert(tb.t, DataType::FP64, c, RoundingMode::RNE);
      EXPECT_EQ(r64.bits, expected_fp64(ref)) << name(tb.t) << " " << c;
      const Result r32 = convert(tb.t, DataType::FP32, c, RoundingMode::RNE);
      const std::uint64_t e32 = std::isnan(ref) ? 0x7FC00000ULL : std::bit_cast<std::uint32_t>(static_cast<float>(ref));
      EXPECT_EQ(r32.bits, e32) << name(tb.t) << " " << c;
      EXPECT_EQ(r32.flags & ~kNV, 0) << name(tb.t) << " " << c;
      ++checked;
    }
  }
  // FP16/BF16 as 16-bit: 2^16 codes each
  EXPECT_GT(checked, 131072U);
}

// Every value, every midpoint between neighbours, and +-1 FP64 ulp around
// each midpoint, both signs, all 7 modes, saturation off/on, from FP64 and
// (when exact) from FP32.
TEST(NumericsOracle, ExhaustiveNarrowingAllModes) {
  std::size_t checked = 0;
  for (const auto& tb : tables()) {
    std::vector<double> inputs;
    const auto& m = tb.mags;
    for (std::size_t i = 0; i < m.size(); ++i) {
      inputs.push_back(m[i]);
      const double next = i + 1 < m.size() ? m[i + 1] : (tb.fmt.list ? tb.fmt.virt_next : m[i] + (m[i] - m[i - 1]));
      const double mid = (m[i] + next) / 2;
      inputs.push_back(mid);
      inputs.push_back(std::nextafter(mid, 0.0));
      inputs.push_back(std::nextafter(mid, HUGE_VAL));
      inputs.push_back((m[i] + mid) / 2);
    }
    inputs.push_back(m.back() * 4);
    inputs.push_back(1e300);
    inputs.push_back(m[1] / 3);  // below the smallest non-zero
    inputs.push_back(std::ldexp(1.0, -1074));
    for (double x : inputs) {
      for (double sx : {x, -x}) {
        M mx(sx, 64);
        for (RoundingMode mode : kAllRoundingModes) {
          for (bool sat : {false, true}) {
            const Expect e = oracle(mx.v, tb.fmt, mode, sat, &tb.pos_codes);
            const std::uint64_t eb = tb.encode_expected(e.value);
            const Result r = encode_double(tb.t, sx, mode, sat);
            ASSERT_EQ(r.bits, eb) << name(tb.t) << " x=" << sx << " " << rounding_mode_name(mode) << " sat=" << sat;
            ASSERT_EQ(r.flags, e.flags) << name(tb.t) << " x=" << sx << " " << rounding_mode_name(mode)
                                        << " sat=" << sat << " got " << flags_to_string(r.flags);
            const float fx = static_cast<float>(sx);
            if (static_cast<double>(fx) == sx) {
              const Result r32 = convert(DataType::FP32, tb.t, std::bit_cast<std::uint32_t>(fx), mode, sat);
              ASSERT_EQ(r32, r) << name(tb.t) << " fp32 x=" << sx;
            }
            ++checked;
          }
        }
      }
    }
  }
  EXPECT_GT(checked, 1000000U);
}

// Infinity / NaN sources into every format.
TEST(NumericsOracle, SpecialSources) {
  for (const auto& tb : tables()) {
    const Result pinf = encode_double(tb.t, HUGE_VAL, RoundingMode::RNE, false);
    if (tb.fmt.has_inf) {
      EXPECT_EQ(pinf.bits, tb.encode_expected(HUGE_VAL)) << name(tb.t);
    }
    const Result psat = encode_double(tb.t, -HUGE_VAL, RoundingMode::RNE, true);
    EXPECT_EQ(psat.bits, tb.encode_expected(-tb.fmt.maxf)) << name(tb.t);
  }
}

namespace {

struct BinFmt {
  DataType t;
  int p, emin;
  double maxf;
};

std::uint64_t to_bits(DataType t, double v) {
  if (t == DataType::FP64) return expected_fp64(v);
  if (t == DataType::FP32) return std::isnan(v) ? 0x7FC00000ULL : std::bit_cast<std::uint32_t>(static_cast<float>(v));
  // FP16 via the independent table
  for (const auto& tb : tables())
    if (tb.t == t) return tb.encode_expected(v);
  return 0;
}

double random_operand(std::mt19937_64& rng, const BinFmt& f) {
  // Mix of random bit patterns and values near interesting boundaries.
  std::uniform_int_distribution<int> pick(0, 9);
  const int k = pick(rng);
  std::uint64_t bits = rng();
  double v;
  if (f.t == DataType::FP64) v = std::bit_cast<double>(bits);
  else if (f.t == DataType::FP32) v = std::bit_cast<float>(static_cast<std::uint32_t>(bits));
  else v = decode_to_double(f.t, bits & 0xFFFF);
  if (k < 3) {  // near 1 / near min normal / near max
    const double base = k == 0 ? 1.0 : (k == 1 ? std::ldexp(1.0, f.emin) : f.maxf);
    const int sh = f.p + static_cast<int>(rng() % 8);
    v = base * (1 + std::ldexp(static_cast<double>(rng() % 64) - 32, -sh));
    v = std::ldexp(std::round(std::ldexp(v, f.p - 1 - std::ilogb(v))), std::ilogb(v) - f.p + 1);
    if (rng() & 1) v = -v;
  }
  if (!std::isfinite(v)) v = (rng() & 1) ? 1.5 : -0.75;
  // snap to the format
  return decode_to_double(f.t, encode_double(f.t, v, RoundingMode::RTZ).bits);
}

}  // namespace

// Sampled correctly rounded arithmetic for FP16/FP32/FP64 in all modes.
TEST(NumericsOracle, SampledArithmetic) {
  const BinFmt fmts[] = {{DataType::FP16, 11, -14, 65504.0},
                         {DataType::FP32, 24, -126, static_cast<double>(3.4028234663852886e38)},
                         {DataType::FP64, 53, -1022, 1.7976931348623157e308}};
  std::mt19937_64 rng(0x5EED0583);
  std::size_t checked = 0;
  for (const auto& bf : fmts) {
    Fmt f;
    f.p = bf.p;
    f.emin = bf.emin;
    f.maxf = bf.maxf;
    f.has_inf = f.has_nan = true;
    f.p_tiny = bf.p;
    const int iters = bf.t == DataType::FP64 ? 6000 : 4000;
    for (int it = 0; it < iters; ++it) {
      const double a = random_operand(rng, bf), b = random_operand(rng, bf), c = random_operand(rng, bf);
      const std::uint64_t ab = to_bits(bf.t, a), bb = to_bits(bf.t, b), cb = to_bits(bf.t, c);
      for (int op = 0; op < 6; ++op) {
        M x, ma(a), mb(b), mc(c);
        if (op == 4 && a < 0) continue;
        if (op == 3 && b == 0) continue;
        switch (op) {
          case 0: mpfr_add(x.v, ma.v, mb.v, MPFR_RNDN); break;
          case 1: mpfr_sub(x.v, ma.v, mb.v, MPFR_RNDN); break;
          case 2: mpfr_mul(x.v, ma.v, mb.v, MPFR_RNDN); break;
          case 3: mpfr_div(x.v, ma.v, mb.v, MPFR_RNDN); break;
          case 4: mpfr_sqrt(x.v, ma.v, MPFR_RNDN); break;
          case 5: mpfr_fma(x.v, ma.v, mb.v, mc.v, MPFR_RNDN); break;
        }
        for (RoundingMode mode : kAllRoundingModes) {
          Expect e = oracle(x.v, f, mode, false);
          if (mpfr_zero_p(x.v) && (op <= 1 || op == 5)) {
            if (op == 5) continue;  // fused exact-zero sign corner is not sampled here
            // IEEE 754 exact-zero sum sign: equal-signed zeros keep the sign,
            // otherwise +0 except -0 under RTM.
            const bool eff_b_neg = op == 1 ? !std::signbit(b) : std::signbit(b);
            if (a == 0 && b == 0 && std::signbit(a) == eff_b_neg) e.value = std::signbit(a) ? -0.0 : 0.0;
            else e.value = mode == RoundingMode::RTM ? -0.0 : 0.0;
          }
          Result r;
          switch (op) {
            case 0: r = ieee_binary(BinaryOp::ADD, bf.t, ab, bb, mode); break;
            case 1: r = ieee_binary(BinaryOp::SUB, bf.t, ab, bb, mode); break;
            case 2: r = ieee_binary(BinaryOp::MUL, bf.t, ab, bb, mode); break;
            case 3: r = ieee_binary(BinaryOp::DIV, bf.t, ab, bb, mode); break;
            case 4: r = ieee_unary(UnaryOp::SQRT, bf.t, ab, mode); break;
            case 5: r = ieee_fused(FusedOp::MADD, bf.t, cb, ab, bb, mode); break;
          }
          ASSERT_EQ(r.bits, to_bits(bf.t, e.value))
              << name(bf.t) << " op" << op << " a=" << a << " b=" << b << " c=" << c << " " << rounding_mode_name(mode);
          ASSERT_EQ(r.flags, e.flags) << name(bf.t) << " op" << op << " a=" << a << " b=" << b << " c=" << c << " "
                                      << rounding_mode_name(mode) << " got " << flags_to_string(r.flags);
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 300000U);
}

// FP16 and BF16 exp/log/rsqrt/sqrt match the correctly rounded MPFR value
// for every finite input, in the directed modes and RTO as well.
TEST(NumericsOracle, Fp16Bf16TranscendentalsExhaustive) {
  std::size_t checked = 0;
  for (const DataType t : {DataType::FP16, DataType::BF16}) {
    const auto& tb = *std::find_if(tables().begin(), tables().end(), [t](const Table& x) { return x.t == t; });
    for (unsigned c = 0; c < 0x10000; ++c) {
      const double x = tb.decode(c);
      if (!std::isfinite(x) || x == 0) continue;
      M mx(x, 64), y(static_cast<mpfr_prec_t>(160));
      // exp of |x| > 1000 leaves MPFR's exponent range (BF16 reaches 3e38);
      // e^+-1000 over- or underflows both formats the same way in every mode.
      M clamped(std::clamp(x, -1000.0, 1000.0), 64);
      for (int op = 0; op < 4; ++op) {
        if (op != 0 && x < 0) continue;
        if (op == 0) mpfr_exp(y.v, clamped.v, MPFR_RNDN);
        else if (op == 1) mpfr_log(y.v, mx.v, MPFR_RNDN);
        else if (op == 2) mpfr_rec_sqrt(y.v, mx.v, MPFR_RNDN);
        else mpfr_sqrt(y.v, mx.v, MPFR_RNDN);
        for (RoundingMode mode :
             {RoundingMode::RNE, RoundingMode::RTZ, RoundingMode::RTP, RoundingMode::RTM, RoundingMode::RTO}) {
          const Expect e = oracle(y.v, tb.fmt, mode, false);
          const UnaryOp u = op == 0 ? UnaryOp::EXP : op == 1 ? UnaryOp::LOG : op == 2 ? UnaryOp::RSQRT : UnaryOp::SQRT;
          const Result r = ieee_unary(u, t, c, mode);
          ASSERT_EQ(r.bits, tb.encode_expected(e.value))
              << name(t) << " op" << op << " x=" << x << " " << rounding_mode_name(mode);
          ASSERT_EQ(r.flags & ~kNX, e.flags & ~kNX) << name(t) << " op" << op << " x=" << x;
          ++checked;
        }
      }
    }
  }
  EXPECT_GT(checked, 1000000U);
}

// FP32 reciprocal square root is correctly rounded (sampled).
TEST(NumericsOracle, Fp32RsqrtSampledCorrectlyRounded) {
  Fmt f;
  f.p = 24;
  f.emin = -126;
  f.maxf = 3.4028234663852886e38;
  f.has_inf = f.has_nan = true;
  f.p_tiny = 24;
  std::mt19937_64 rng(7);
  for (int i = 0; i < 200000; ++i) {
    const auto bits = static_cast<std::uint32_t>(rng() & 0x7FFFFFFFU);
    const float x = std::bit_cast<float>(bits);
    if (!std::isfinite(x) || x == 0) continue;
    M mx(x, 64), y(static_cast<mpfr_prec_t>(160));
    mpfr_rec_sqrt(y.v, mx.v, MPFR_RNDN);
    const Expect e = oracle(y.v, f, RoundingMode::RNE, false);
    const Result r = ieee_unary(UnaryOp::RSQRT, DataType::FP32, bits, RoundingMode::RNE);
    ASSERT_EQ(r.bits, std::bit_cast<std::uint32_t>(static_cast<float>(e.value))) << x;
  }
}

// exp of arguments near zero, both signs, in every directed mode and RTO:
// exp(-2^-70) lies just below 1, so RTZ/RTM/RTO give the binary32/binary64
// value below 1 and RTP gives 1 (an 80-bit evaluation returns exactly 1
// there).  Every binade from the smallest subnormal to 2^-20, three
// significands each, against the correctly rounded MPFR value.
TEST(NumericsOracle, ExpNearZeroAllModes) {
  struct Type {
    DataType t;
    int p, emin, min_exponent;
    double maxf;
  };
  const Type types[] = {{DataType::FP32, 24, -126, -149, 3.4028234663852886e38},
                        {DataType::FP64, 53, -1022, -1074, 1.7976931348623157e308}};
  std::size_t checked = 0;
  for (const Type& ty : types) {
    Fmt f;
    f.p = f.p_tiny = ty.p;
    f.emin = ty.emin;
    f.maxf = ty.maxf;
    f.has_inf = f.has_nan = true;
    for (int e = ty.min_exponent; e <= -20; ++e)
      for (const double m : {1.0, 1.5, 2.0 - std::ldexp(1.0, -23)})
        for (const double sign : {1.0, -1.0}) {
          const double x = sign * std::ldexp(m, e);
          if (ty.t == DataType::FP32 && static_cast<double>(static_cast<float>(x)) != x) continue;  // subnormal grid
          const std::uint64_t bits = ty.t == DataType::FP32 ? std::bit_cast<std::uint32_t>(static_cast<float>(x))
                                                             : std::bit_cast<std::uint64_t>(x);
          M mx(x, 64), y(static_cast<mpfr_prec_t>(2200));
          mpfr_exp(y.v, mx.v, MPFR_RNDN);
          for (const RoundingMode mode : {RoundingMode::RNE, RoundingMode::RTZ, RoundingMode::RTP, RoundingMode::RTM,
                                          RoundingMode::RTO}) {
            const Expect want = oracle(y.v, f, mode, false);
            const std::uint64_t want_bits = ty.t == DataType::FP32
                                                ? std::bit_cast<std::uint32_t>(static_cast<float>(want.value))
                                                : std::bit_cast<std::uint64_t>(want.value);
            const Result r = ieee_unary(UnaryOp::EXP, ty.t, bits, mode);
            ASSERT_EQ(r.bits, want_bits) << "x=" << x << " " << rounding_mode_name(mode);
            ASSERT_EQ(r.flags, kNX) << "x=" << x;
            ++checked;
          }
        }
  }
  EXPECT_GT(checked, 10000U);
}

#else
TEST(NumericsOracle, SkippedWithoutMpfr) { GTEST_SKIP() << "MPFR not found"; }
#endif
