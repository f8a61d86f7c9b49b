// Differential tests of num::simd::exp_fp32 (the TEXP FP32 ieee span loop;
// its AVX-512 and AVX2 tiers) and of its portable loop
// num::simd::exp_fp32_portable against the exact
// per-element path ops::sfu_element (TEXP, FP32, ieee profile): every
// element a loop does not mark slow must carry the exact path's bits, and
// the exact path must raise exactly NX for it (docs/numerics.md, TEXP FP32).
// Elements outside 0 < |x| <= 87 (zeros, subnormal results, overflow,
// infinities, NaNs) must be marked slow.  The values: random encodings,
// dense sweeps of consecutive encodings across binades and the range
// limits, and arguments whose exp lies close to a binary32 midpoint (the
// cases the binary32 evaluation must hand on).  Expected values are the
// exact path's (docs/numerics.md, ieee profile).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "numerics/simd_span.hpp"
#include "tile/ops_elementwise.hpp"

namespace pto::num::simd::test {
namespace {

using Loop = bool (*)(const std::uint32_t*, std::uint32_t*, std::uint64_t*, std::size_t) noexcept;

struct NamedLoop {
  const char* name;
  Loop loop;
};
// exp_fp32 with the tier capped at `T` (the cap lifted afterwards): the
// AVX-512 (16 lanes) and AVX2+FMA (8 lanes) loops where the host has them.
template <Tier T>
bool exp_fp32_capped(const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow, std::size_t n) noexcept {
  limit_tier(T);
  const bool any = exp_fp32(in, out, slow, n);
  limit_tier(Tier::Avx512);
  return any;
}
const NamedLoop kLoops[] = {
    {"widest", exp_fp32_capped<Tier::Avx512>}, {"avx2", exp_fp32_capped<Tier::Avx2>}, {"portable", exp_fp32_portable}};

constexpr std::uint32_t kFastLimit = 0x42ae0000;  // 87.0f

bool in_fast_range(std::uint32_t x) {
  const std::uint32_t m = x & 0x7fffffffU;
  return m != 0 && m <= kFastLimit;
}

struct Counts {
  std::size_t in_range = 0;
  std::size_t slow_in_range = 0;
};

// Runs `loop` on x (from x[offset]) and checks each element against the
// exact path.  A guard word after the slow words must stay untouched, and
// the bits of the last word beyond n must stay clear.
Counts check(const NamedLoop& l, const std::vector<std::uint32_t>& all, std::size_t offset = 0) {
  const std::uint32_t* x = all.data() + offset;
  const std::size_t n = all.size() - offset;
  const std::size_t words = (n + 63) / 64;
  std::vector<std::uint32_t> out(n, 0xdeadbeef);
  constexpr std::uint64_t kGuard = 0x0123456789abcdefULL;
  std::vector<std::uint64_t> slow(words + 1, ~std::uint64_t{0});
  slow[words] = kGuard;
  const bool any = l.loop(x, out.data(), slow.data(), n);
  EXPECT_EQ(slow[words], kGuard) << l.name;
  if (n % 64 != 0) {
    EXPECT_EQ(slow[words - 1] >> (n % 64), 0U) << l.name << " n " << n;
  }
  Counts c;
  bool seen = false;
  for (std::size_t i = 0; i < n; ++i) {
    const bool s = ((slow[i / 64] >> (i % 64)) & 1U) != 0;
    seen = seen || s;
    if (!in_fast_range(x[i])) {
      EXPECT_TRUE(s) << l.name << " operand 0x" << std::hex << x[i];
      continue;
    }
    ++c.in_range;
    if (s) {
      ++c.slow_in_range;
      continue;
    }
    const Result want = tile::ops::sfu_element(tile::ops::Unary::EXP, DataType::FP32, x[i], tile::NumericProfile::Ieee);
    EXPECT_EQ(out[i], want.bits) << l.name << " operand 0x" << std::hex << x[i] << " (" << std::bit_cast<float>(x[i])
                                 << ")";
    EXPECT_EQ(want.flags, kNX) << l.name << " operand 0x" << std::hex << x[i];
    if (out[i] != want.bits) break;  // one report per call
  }
  EXPECT_EQ(any, seen) << l.name;
  return c;
}

std::uint32_t f32(float f) { return std::bit_cast<std::uint32_t>(f); }

// Both loops decide all but a small share of the in-range elements: the
// binary64 evaluation leaves ~2^-17 of them, the binary32 one ~0.5% before
// the binary64 evaluation takes them.
void expect_mostly_decided(const Counts& c, double share) {
  ASSERT_GT(c.in_range, 0U);
  EXPECT_LE(static_cast<double>(c.slow_in_range), share * static_cast<double>(c.in_range) + 2.0)
      << c.slow_in_range << " of " << c.in_range;
}

TEST(SimdExp, RandomEncodingsMatchExactPath) {
  std::mt19937_64 g(2026);
  std::uniform_real_distribution<float> wide(-90.0f, 90.0f), unit(-1.0f, 1.0f);
  std::vector<std::uint32_t> x(1 << 16);
  for (std::uint32_t& v : x) {
    switch (g() % 4) {
      case 0: v = f32(wide(g)); break;
      case 1: v = f32(unit(g)); break;
      case 2: v = f32(std::ldexp(unit(g), -static_cast<int>(g() % 60))); break;  // down to ~2^-60
      default: v = static_cast<std::uint32_t>(g()); break;                      // any encoding
    }
  }
  for (const NamedLoop& l : kLoops) expect_mostly_decided(check(l, x), 0.001);
}

// Consecutive encodings (away from zero for either sign) from several
// starting points: tiny arguments (exp(x) within 2^-24 of 1), binades of
// both signs, and across the range limits 87 and -87 into the overflow and
// subnormal-result ranges (marked slow).
TEST(SimdExp, DenseSweepsMatchExactPath) {
  const std::pair<float, std::uint32_t> sweeps[] = {
      {0x1p-40f, 4096},  {-0x1p-30f, 4096}, {0x1p-25f, 8192}, {-0x1.fffp-26f, 8192}, {0x1p-6f, 4096},
      {-0.75f, 4096},    {1.0f, 4096},      {-2.0f, 4096},    {9.0f, 4096},          {-40.0f, 4096},
      {64.0f, 4096},     {86.9995f, 4096},  {-86.9995f, 4096}, {88.72f, 512},        {-103.9f, 512}};
  for (const auto& sweep : sweeps) {
    std::vector<std::uint32_t> x(sweep.second);
    std::uint32_t v = f32(sweep.first);
    for (std::uint32_t& e : x) e = v++;
    for (const NamedLoop& l : kLoops) check(l, x);
  }
}

// Arguments whose exp lies within 2^-8 ulp of a binary32 midpoint (found
// with a long double exp, ~2^-63 accurate): the binary32 evaluation marks
// most of them, the binary64 one decides nearly all of those.
TEST(SimdExp, NearMidpointArgumentsMatchExactPath) {
  std::vector<std::uint32_t> x;
  std::mt19937_64 g(7);
  std::uniform_real_distribution<float> wide(-87.0f, 87.0f);
  for (int i = 0; i < (1 << 19) && x.size() < 4000; ++i) {
    const float a = i % 2 ? wide(g) : std::ldexp(wide(g), -static_cast<int>(g() % 12));
    const long double e = std::exp(static_cast<long double>(a));
    const float f = static_cast<float>(e);
    const float other = std::nextafter(f, e > f ? INFINITY : 0.0f);
    const long double gap = std::fabs(static_cast<long double>(other) - f);
    const long double to_midpoint = std::fabs(std::fabs(e - f) - gap / 2) / gap;
    if (to_midpoint < 0x1p-8L) x.push_back(f32(a));
  }
  ASSERT_GE(x.size(), 1000U);
  for (const NamedLoop& l : kLoops) expect_mostly_decided(check(l, x), 0.01);
}

// Span lengths 0..80 from unaligned starts, so the vector loop, its
// partial last word and the tail lanes all run; NaNs, zeros and infinities
// inside the vectors and the tails.
TEST(SimdExp, SpanLengthsAndSpecials) {
  std::mt19937_64 g(11);
  std::uniform_real_distribution<float> v(-20.0f, 20.0f);
  std::vector<std::uint32_t> base(90);
  for (std::uint32_t& e : base) e = f32(v(g));
  base[5] = 0x7fc00000;   // qNaN
  base[13] = 0x80000000;  // -0
  base[22] = 0x7f800000;  // +inf
  base[30] = 0xff800001;  // sNaN
  base[41] = 0x00000001;  // subnormal argument: exp rounds to 1, inexact
  base[64] = f32(87.5f);  // above the range
  base[75] = 0;           // +0
  for (std::size_t n = 0; n <= 80; ++n)
    for (std::size_t offset : {std::size_t{0}, std::size_t{3}}) {
      std::vector<std::uint32_t> x(base.begin() + static_cast<std::ptrdiff_t>(offset),
                                   base.begin() + static_cast<std::ptrdiff_t>(offset + n));
      x.insert(x.begin(), 0x3f800000);  // a leading element, so check() can start at an odd offset
      for (const NamedLoop& l : kLoops) check(l, x, 1);
    }
}

}  // namespace
}  // namespace pto::num::simd::test
