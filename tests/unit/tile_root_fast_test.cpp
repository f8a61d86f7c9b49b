// Differential tests of the FP32 TSQRT/TRECIP/TRSQRT/TLOG fast path in the ieee
// profile (tile_elementwise.cpp root_fp32_span over num::simd::root_fp32)
// against the exact per-element path ops::sfu_element, in every vector tier
// the host has: every element's bits, and the tile's flags against the OR
// of the elements' flags.  Values: every class of encoding (zeros,
// subnormals, normals across the whole exponent range and the fast-range
// limits, infinities, NaNs, both signs), exact results (perfect squares,
// powers of two, log(1) = 0) alone or beside one inexact element at several
// positions, the destination the source itself, and a host rounding mode
// other than nearest (the fast path must decline).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cfenv>
#include <random>
#include <vector>

#include "simd_tiers.hpp"
#include "tile/ops_elementwise.hpp"
#include "tile/tile_elementwise.hpp"

namespace pto::tile::test {
namespace {

using pto::test::for_each_tier;

constexpr std::array kOps = {ops::Unary::SQRT, ops::Unary::RECIP, ops::Unary::RSQRT, ops::Unary::LOG};

Tile fp32_tile(std::uint32_t columns, std::uint32_t rows, std::uint32_t valid_columns) {
  TileDescriptor d;
  d.allocated = true;
  d.capacity_bytes = columns * rows * 4;
  d.rows = rows;
  d.columns = columns;
  d.valid_rows = rows;
  d.valid_columns = valid_columns;
  d.data_type = DataType::FP32;
  Tile t;
  t.configure(d);
  return t;
}

// Runs the op on s (into a fresh tile, or in place) and compares each valid
// element and the flags with the exact path.
void check(ops::Unary op, const Tile& s, bool in_place) {
  Tile source = s;
  Tile separate = fp32_tile(s.descriptor().columns, s.descriptor().rows, s.descriptor().valid_columns);
  Tile& out = in_place ? source : separate;
  const num::Flags flags = ops::tile_unary(op, out, source, PadValue::Null, NumericProfile::Ieee);
  num::Flags want_flags = 0;
  const TileDescriptor& sd = s.descriptor();
  for (std::uint32_t r = 0; r < sd.valid_rows; ++r)
    for (std::uint32_t c = 0; c < sd.valid_columns; ++c) {
      const std::uint64_t x = s.read_raw(s.linear_index(r, c));
      const num::Result want = ops::sfu_element(op, DataType::FP32, x, NumericProfile::Ieee);
      want_flags |= want.flags;
      ASSERT_EQ(out.read_raw(out.linear_index(r, c)), want.bits) << "operand 0x" << std::hex << x;
    }
  EXPECT_EQ(flags, want_flags);
}

// Encodings of every class: specials, the fast-range limits and their
// neighbours (SQRT from 2^-100, RECIP from 2^-125 to 2^125), random bits.
std::uint32_t draw(std::mt19937& g) {
  static constexpr std::uint32_t kSpecials[] = {0x00000000, 0x00000001, 0x007fffff, 0x00800000, 0x0d800000,
                                                0x0d7fffff, 0x0d800001, 0x01000000, 0x00ffffff, 0x7e000000,
                                                0x7dffffff, 0x7e000001, 0x7f7fffff, 0x7f800000, 0x7f800001,
                                                0x7fc00000, 0x3f800000, 0x40800000, 0x3f800001,
                                                0x3f7fffff, 0x3f3504f3, 0x3fb504f3, 0x3fb504f4};
  switch (g() % 4) {
    case 0: return kSpecials[g() % std::size(kSpecials)] | (g() % 2 ? 0x80000000U : 0);
    case 1: return static_cast<std::uint32_t>(g() % 0x10000000U + 0x38000000U);  // around 1
    default: return static_cast<std::uint32_t>(g());
  }
}

TEST(TileRootFastPath, RandomEncodingsOfEveryClassMatchTheExactPath) {
  for_each_tier([] {
    std::mt19937 g(41);
    for (ops::Unary op : kOps)
      for (std::uint32_t valid : {64U, 61U, 7U})
        for (int round = 0; round < 6; ++round) {
          Tile s = fp32_tile(64, 37, valid);
          for (std::uint32_t r = 0; r < 37; ++r)
            for (std::uint32_t c = 0; c < valid; ++c) s.write_element(r, c, draw(g));
          SCOPED_TRACE(testing::Message() << "op " << static_cast<int>(op) << " valid " << valid << " round " << round);
          check(op, s, round % 2 == 1);
          if (testing::Test::HasFatalFailure()) return;
        }
  });
}

// Exact results only (no flag), then one inexact element among them at
// the first, a middle, a word's last and the last position.
TEST(TileRootFastPath, OneInexactElementAmongExactOnesRaisesNx) {
  for_each_tier([] {
    for (ops::Unary op : kOps) {
      const auto exact = [op](std::uint32_t i) {  // (i % 7 + 1)^2, +-2^(i % 9 - 4), 4^(i % 9 - 4) or 1
        const float v = op == ops::Unary::SQRT    ? static_cast<float>((i % 7 + 1) * (i % 7 + 1))
                        : op == ops::Unary::RECIP ? std::ldexp(i % 2 ? -1.0f : 1.0f, static_cast<int>(i % 9) - 4)
                        : op == ops::Unary::LOG   ? 1.0f
                                                  : std::ldexp(1.0f, 2 * (static_cast<int>(i % 9) - 4));
        return std::bit_cast<std::uint32_t>(v);
      };
      for (int at : {-1, 0, 700, 2047, 2048, 4095}) {
        Tile s = fp32_tile(64, 64, 64);
        for (std::uint32_t i = 0; i < 4096; ++i) s.write_element(i / 64, i % 64, exact(i));
        if (at >= 0) s.write_element(static_cast<std::uint32_t>(at) / 64, static_cast<std::uint32_t>(at) % 64, std::bit_cast<std::uint32_t>(3.0f));
        SCOPED_TRACE(testing::Message() << "op " << static_cast<int>(op) << " inexact at " << at);
        check(op, s, false);
      }
    }
  });
}

TEST(TileRootFastPath, DirectedHostRoundingTakesTheExactPath) {
  std::mt19937 g(43);
  Tile s = fp32_tile(64, 8, 64);
  for (std::uint32_t r = 0; r < 8; ++r)
    for (std::uint32_t c = 0; c < 64; ++c) s.write_element(r, c, draw(g));
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  for (ops::Unary op : kOps) check(op, s, false);
  std::fesetround(FE_TONEAREST);
}

}  // namespace
}  // namespace pto::tile::test
