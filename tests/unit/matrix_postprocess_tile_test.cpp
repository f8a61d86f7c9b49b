// B.FPATR post-processing of a whole tile (postprocess::post_process_tile):
// differential against the exact element path (postprocess::post_process,
// itself checked against the ASL test points in matrix_postprocess_test.cpp),
// bit for bit and flag for flag, over every legal PreQuantMode, every ReLU
// mode, every rounding mode, Sat on and off, and sources that reach NaN,
// infinity, signed zeros, subnormals, exact ties, overflow and products
// beyond the kernel's integer range.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "numerics/f16c_span.hpp"
#include "numerics/format.hpp"
#include "simd_tiers.hpp"
#include "tile/matrix_postprocess.hpp"
#include "tile/ops_matrix.hpp"

namespace pto::test {
namespace {

namespace pp = tile::postprocess;
namespace fpatr = tile::fpatr;
using num::DataType;
using num::RoundingMode;

// FP19: sign 18, exponent 17..10 (bias 127 + 10 fraction bits), fraction 9..0.
std::uint32_t fp19(std::uint32_t exponent, std::uint32_t fraction) { return (exponent << 10) | (fraction & 0x3FFU); }

class Sources {
 public:
  explicit Sources(std::uint32_t seed) : rng_(seed) {}

  std::uint32_t bits() { return static_cast<std::uint32_t>(rng_()); }
  std::uint32_t below(std::uint32_t n) { return bits() % n; }

  // FP32 carriers: every class, ties at the FP16 / BF16 / integer rounding
  // points, values near each destination's overflow and subnormal range.
  std::uint64_t fp32() {
    const std::uint32_t sign = below(2) << 31;
    switch (below(11)) {
      case 0: return bits();
      case 1: return sign | (0x7f800000U + below(3) * (0x400000U + below(0x400000U)));  // inf, qNaN, sNaN-ish
      case 2: return sign | below(0x800000U);                                          // zero or subnormal
      case 3: return sign | ((below(254) + 1) << 23) | (bits() & 0x7FE000U) | 0x1000U;  // FP16 tie
      case 4: return sign | ((below(254) + 1) << 23) | (bits() & 0x7F0000U) | 0x8000U;  // BF16 tie
      case 5: return sign | ((127 + 14 + below(4)) << 23) | (bits() & 0x7FFFFFU);        // around FP16's maximum
      case 6: return sign | ((127 - 27 + below(14)) << 23) | (bits() & 0x7FFFFFU);       // FP16 subnormal range
      case 7: return sign | ((127 + below(24)) << 23) | (bits() & 0x7FC000U);           // integer or half-integer
      case 8: return sign | ((127 + 60 + below(70)) << 23) | (bits() & 0x7FFFFFU);       // beyond 2^62
      case 9: return sign | ((127 - 12 + below(22)) << 23) | (bits() & 0x700000U) | 0x80000U;  // E4M3 tie
      default: return std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<int>(below(512)) - 256) * 0.5F);
    }
  }

  // S32 carriers (the low 32 bits; the upper ones are not read).
  std::uint64_t s32() {
    switch (below(5)) {
      case 0: return bits();
      case 1: return static_cast<std::uint32_t>(static_cast<int>(below(1024)) - 512);
      case 2: return static_cast<std::uint32_t>(static_cast<int>(below(200000)) - 100000);
      case 3: return below(2) != 0 ? 0x80000000U : 0x7fffffffU;
      default: return static_cast<std::uint32_t>(static_cast<int>(below(80)) - 40);
    }
  }

  // A positive normal FP19 scale: often an exact power of two (ties), often
  // near 1, sometimes at either end of the range.
  std::uint32_t scale() {
    switch (below(4)) {
      case 0: return fp19(137 - below(12), 0);
      case 1: return fp19(130 + below(14), bits());
      case 2: return fp19(below(2) != 0 ? 1 + below(8) : 254 - below(8), bits());
      default: return fp19(1 + below(254), bits());
    }
  }

  std::uint64_t quant_word(unsigned mode) {
    if (fpatr::pre_quant_mode(mode).shift) return pp::shift_parameter(below(16));
    const unsigned width = pp::mode_offset_width(mode);
    return pp::quant_parameter(scale(), bits(), width);
  }

  std::uint64_t relu_word() { return below(4) == 0 ? 0 : scale(); }

 private:
  std::mt19937 rng_;
};

std::vector<DataType> outputs_of(unsigned mode) {
  if (mode == 0) return {DataType::FP32, DataType::S32, DataType::U32};
  return {fpatr::output_type(mode)};
}

// DataType of the accumulator the mode reads (the output without pre-quantisation).
bool s32_source(unsigned mode, DataType output) {
  return mode == 0 ? output != DataType::FP32 : fpatr::accumulator_type_legal(mode, DataType::S32);
}

struct Tile {
  std::vector<std::uint64_t> values;
  std::vector<pp::ColumnWords> columns;
};

Tile random_tile(Sources& s, unsigned mode, unsigned relu, bool s32, std::uint32_t rows, std::uint32_t columns) {
  Tile t;
  // Scalar parameters repeat; vector ones differ per column.
  const bool vector_quant = fpatr::mode_uses_vector_parameter(mode), vector_relu = fpatr::relu_uses_vector_parameter(relu);
  const bool quantised = vector_quant || fpatr::mode_uses_scalar_parameter(mode);
  const std::uint64_t scalar_quant = quantised ? s.quant_word(mode) : 1, scalar_relu = relu == 2 ? s.relu_word() : 0;
  for (std::uint32_t c = 0; c < columns; ++c)
    t.columns.push_back({vector_quant ? s.quant_word(mode) : scalar_quant, vector_relu ? s.relu_word() : scalar_relu});
  for (std::uint32_t e = 0; e < rows * columns; ++e) t.values.push_back(s32 ? s.s32() : s.fp32());
  return t;
}

std::string describe(unsigned mode, unsigned relu, DataType output, pp::Control control) {
  return "mode " + std::to_string(mode) + " relu " + std::to_string(relu) + " " + std::string(num::name(output)) +
         " " + std::string(num::rounding_mode_name(control.rounding)) + (control.saturating ? " sat" : "");
}

// Every element and the flags of the tile kernel equal the exact element path's.
void expect_tile_matches_exact(const Tile& t, unsigned mode, unsigned relu, DataType output, pp::Control control) {
  const std::size_t n = t.columns.size();
  std::vector<std::uint64_t> fast = t.values;
  const num::Flags flags = pp::post_process_tile(fast, t.columns, mode, relu, output, control);
  num::Flags exact_flags = 0;
  for (std::size_t e = 0; e < t.values.size(); ++e) {
    const pp::ColumnWords& w = t.columns[e % n];
    const num::Result r = pp::post_process(t.values[e], mode, relu, output, w.quant, w.relu, control);
    exact_flags |= r.flags;
    ASSERT_EQ(fast[e], r.bits) << describe(mode, relu, output, control) << " element " << e << " source 0x" << std::hex
                               << t.values[e] << " quant 0x" << w.quant << " relu 0x" << w.relu;
  }
  EXPECT_EQ(flags, exact_flags) << describe(mode, relu, output, control);
}

TEST(MatrixPostprocessTile, EveryModeReluRoundingAndSatMatchesTheExactPath) {
  Sources s(20261202);
  unsigned tiles = 0, fast_tiles = 0;
  for (unsigned mode = 0; mode < 64; ++mode) {
    if (!fpatr::pre_quant_mode(mode).legal) continue;
    for (const DataType output : outputs_of(mode))
      for (unsigned relu = 0; relu < 4; ++relu)
        for (const RoundingMode rounding : num::kAllRoundingModes)
          for (const bool saturating : {false, true}) {
            const pp::Control control{rounding, saturating};
            const Tile t = random_tile(s, mode, relu, s32_source(mode, output), 1 + s.below(8), 1 + s.below(16));
            expect_tile_matches_exact(t, mode, relu, output, control);
            ++tiles;
            fast_tiles += unsigned{pp::tile_kernel_applies(mode, output, control)};
          }
  }
  EXPECT_EQ(tiles, (26 + 3) * 4 * 7 * 2U);  // 26 nonzero legal modes, mode 0 with three accumulators
  EXPECT_GT(fast_tiles, tiles / 2);
}

TEST(MatrixPostprocessTile, LargestTilesMatchTheExactPath) {
  Sources s(17);
  for (const unsigned mode : {1U, 2U, 4U, 13U, 16U, 19U, 24U, 33U, 38U})
    for (const RoundingMode rounding : {RoundingMode::RNE, RoundingMode::RTZ, RoundingMode::RHB}) {
      const DataType output = outputs_of(mode).front();
      const Tile t = random_tile(s, mode, mode % 4, s32_source(mode, output), 64, 128);
      expect_tile_matches_exact(t, mode, mode % 4, output, {rounding, mode % 2 == 0});
    }
}

// The AVX2 row kernels on every mode whose destination they take: the shift
// modes, integer destinations (S32 or FP32 sources, with and without the
// pre-quantisation intermediate and offset) and floating ones (FP32, FP16,
// BF16, E4M3) from S32 or FP32, whole groups of four columns plus a
// remainder, every rounding mode, Sat on and off.  On a host with AVX2 and
// F16C the row kernel takes every such tile (HiF8's modes round RHB).
TEST(MatrixPostprocessTile, RowKernelModesMatchTheExactPath) {
  Sources s(1212);
  unsigned row_kernel_tiles = 0;
  for (unsigned mode = 0; mode < 64; ++mode) {
    if (!fpatr::pre_quant_mode(mode).legal || mode == 0) continue;
    for (const DataType output : outputs_of(mode))
      for (unsigned relu = 0; relu < 4; ++relu)
        for (const RoundingMode rounding : num::kAllRoundingModes)
          for (const bool saturating : {false, true}) {
            const pp::Control control{rounding, saturating};
            const Tile t = random_tile(s, mode, relu, s32_source(mode, output), 6, 38);
            expect_tile_matches_exact(t, mode, relu, output, control);
            const bool taken = pp::row_kernel_applies(mode, output, control);
            row_kernel_tiles += unsigned{taken};
            if (num::f16c::available()) {
              EXPECT_TRUE(taken) << describe(mode, relu, output, control);
            }
          }
  }
  if (num::f16c::available()) {
    EXPECT_EQ(row_kernel_tiles, 26 * 4 * 7 * 2U);
  }
}

// Ties of every nearest mode at each floating destination's rounding point
// (HiF8's at each exponent's significand width, down to its linear grid
// below 2^-22), with a power-of-two scale (1, 1/2 or 1/4) so that the
// product is the tie itself, and the E4M3 values around its largest finite
// 448 and its subnormals.  Each value fills a one-row tile of five columns
// (four for the row kernel, one for the scalar one) with one scale, so the
// tile's flags are that value's.
TEST(MatrixPostprocessTile, RowKernelTiesAndFP8RangesMatchTheExactPath) {
  Sources s(4242);
  for (const unsigned mode : {1U, 16U, 26U, 25U})  // FP16, BF16, E4M3, HiF8 outputs of FP32 accumulators
    for (const RoundingMode rounding : num::kAllRoundingModes)
      for (const bool saturating : {false, true})
        for (unsigned sample = 0; sample < 100; ++sample) {
          const std::uint32_t sign = s.below(2) << 31, hif8_fraction = s.below(4);  // HiF8: the significand width
          std::uint32_t value = 0;
          switch (sample % 5) {
            case 0: value = 0x43e00000U | (s.below(2) * s.below(8) << 17); break;  // 448 and beyond
            case 1: value = ((127 - 10 + s.below(5)) << 23) | (s.below(4) << 20); break;  // E4M3 subnormals
            case 2: value = ((127 + s.below(8)) << 23) | (s.below(8) << 20) | 0x80000U; break;  // E4M3 tie
            case 3:  // HiF8 tie
              value = ((127 - 25 + s.below(42)) << 23) | (s.bits() & 0x7FFFFFU & ~((0x800000U >> hif8_fraction) - 1)) |
                      (0x400000U >> hif8_fraction);
              break;
            default: value = ((127 + s.below(8)) << 23) | (s.below(1024) << 13) | 0x1000U; break;  // FP16 tie
          }
          const pp::ColumnWords words{pp::quant_parameter(fp19(127 - s.below(3), 0), 0, 0), 0};
          const Tile t{std::vector<std::uint64_t>(5, sign | value), std::vector<pp::ColumnWords>(5, words)};
          expect_tile_matches_exact(t, mode, 0, outputs_of(mode).front(), {rounding, saturating});
        }
}

// FP32 sources probing HiF8's grids, positive (the tests add the sign): at
// every binary exponent e from below its denormal powers (2^-26) to past its
// largest finite (2^16), each grid point of e's significand width (3, 2, 1
// or 0 fraction bits as |e| <= 3, 7, 15, else 0: the dot-field decode of
// ReferenceFP8FiniteValue), the tie after it and the tie's FP32 neighbours,
// and a random significand; then the range edges: 2^15 (the largest finite)
// and its FP32 successor (overflow), 1.75 * 2^15 (beyond), values that
// carry into 2^15 and into 2^-15 (the tie of 2^-16's grid of no fraction
// bits and a value above it), 2^-15's neighbours (tininess), 2^-22 (the least denormal
// power), the tie 2^-23 below it and its neighbours (zero or 2^-22), and
// FP32 subnormals.
std::vector<std::uint32_t> hif8_probes(Sources& s) {
  std::vector<std::uint32_t> probes;
  const auto add = [&](float v) { probes.push_back(std::bit_cast<std::uint32_t>(v)); };
  const auto neighbours = [&](float v) {
    add(std::nextafter(v, 0.0F));
    add(v);
    add(std::nextafter(v, 1e30F));
  };
  for (int e = -26; e <= 16; ++e) {
    const int a = std::abs(e), fraction_bits = a <= 3 ? 3 : a <= 7 ? 2 : a <= 15 ? 1 : 0;
    const float power = std::ldexp(1.0F, e), step = std::ldexp(1.0F, e - fraction_bits);
    for (int k = 0; k < (1 << fraction_bits); ++k) {
      add(power + static_cast<float>(k) * step);
      neighbours(power + (static_cast<float>(k) + 0.5F) * step);
    }
    add(std::bit_cast<float>(static_cast<std::uint32_t>(e + 127) << 23 | (s.bits() & 0x7FFFFFU)));
  }
  for (const float edge : {0x1p15F, 0x1.cp15F, 0x1.ep14F, 0x1.8p-16F, 0x1.ep-16F, 0x1p-15F, 0x1p-22F, 0x1p-23F})
    neighbours(edge);
  add(std::bit_cast<float>(1U));
  add(std::bit_cast<float>(0x7FFFFFU));
  return probes;
}

// HiF8 (modes 25 and 28, whose rounding is RHB whatever B.DATR RMode says)
// value by value: each probe with either sign, under each ReLU mode (the
// ReLU word a power of two or a random FP19), each B.DATR rounding and Sat,
// with a scale of 1, 2^-1 or a random FP19 fills a one-row tile of four
// columns, one row-kernel step, so the tile's flags are that value's; every
// tier the host has runs it (the portable tier the scalar kernel, the
// others the AVX2 row kernel) against the exact path's result.
TEST(MatrixPostprocessTile, HiF8GridsTiesAndRangeEdgesMatchTheExactPathValueByValue) {
  Sources s(1515);
  const std::vector<std::uint32_t> probes = hif8_probes(s);
  unsigned values = 0;
  std::set<num::Flags> outcomes;
  for (const unsigned mode : {25U, 28U})
    for (unsigned relu = 0; relu < 4; ++relu)
      for (const RoundingMode rounding : num::kAllRoundingModes)
        for (const bool saturating : {false, true}) {
          const pp::Control control{rounding, saturating};
          for (const std::uint32_t probe : probes) {
            const std::uint32_t scale = s.below(3) == 0 ? s.scale() : fp19(127 - s.below(2), 0);
            const std::uint64_t relu_word = s.below(2) == 0 ? fp19(126 + s.below(3), 0) : s.scale();
            const pp::ColumnWords words{pp::quant_parameter(scale, 0, 0), relu_word};
            const std::uint64_t value = probe | (s.below(2) << 31);
            const num::Result exact = pp::post_process(value, mode, relu, DataType::HiF8, words.quant, words.relu, control);
            outcomes.insert(exact.flags);
            for_each_tier([&] {
              ASSERT_EQ(pp::row_kernel_applies(mode, DataType::HiF8, control), num::f16c::available());
              std::vector<std::uint64_t> tile(4, value);
              const num::Flags flags =
                  pp::post_process_tile(tile, std::vector<pp::ColumnWords>(4, words), mode, relu, DataType::HiF8, control);
              ASSERT_EQ(tile, std::vector<std::uint64_t>(4, exact.bits))
                  << describe(mode, relu, DataType::HiF8, control) << " source 0x" << std::hex << value << " quant 0x"
                  << words.quant << " relu 0x" << words.relu;
              ASSERT_EQ(flags, exact.flags) << describe(mode, relu, DataType::HiF8, control) << " source 0x" << std::hex
                                            << value << " quant 0x" << words.quant << " relu 0x" << words.relu;
            });
            ++values;
          }
        }
  EXPECT_EQ(values, 2 * 4 * 7 * 2 * probes.size());
  EXPECT_GT(probes.size(), 300U);
  // Exact values, inexact ones, tiny and overflowing ones all occur.
  EXPECT_EQ(outcomes, (std::set<num::Flags>{0, num::kNX, num::kUF | num::kNX, num::kOF | num::kNX}));
}

// The same probes side by side: four different values a step (each lane
// on its own exponent's grid), scalar and vector parameters, in every tier.
TEST(MatrixPostprocessTile, HiF8MixedLanesMatchTheExactPath) {
  Sources s(2828);
  const std::vector<std::uint32_t> probes = hif8_probes(s);
  for (const unsigned mode : {25U, 28U})
    for (unsigned relu = 0; relu < 4; ++relu)
      for (const bool saturating : {false, true}) {
        Tile t = random_tile(s, mode, relu, false, static_cast<std::uint32_t>(probes.size() / 16), 16);
        for (std::size_t e = 0; e < t.values.size(); ++e) t.values[e] = probes[e] | (s.below(2) << 31);
        for_each_tier([&] { expect_tile_matches_exact(t, mode, relu, DataType::HiF8, {RoundingMode::RHB, saturating}); });
      }
}

// The kernel declines exactly what the header names: accumulators other
// than S32 / FP32.
TEST(MatrixPostprocessTile, KernelAppliesWhereDocumented) {
  EXPECT_TRUE(pp::tile_kernel_applies(1, DataType::FP16, {}));
  EXPECT_TRUE(pp::tile_kernel_applies(16, DataType::BF16, {RoundingMode::RTO, false}));  // fixed RNE
  EXPECT_TRUE(pp::tile_kernel_applies(24, DataType::S8, {RoundingMode::RHB, true}));
  EXPECT_TRUE(pp::tile_kernel_applies(13, DataType::S16, {}));
  EXPECT_TRUE(pp::tile_kernel_applies(0, DataType::S32, {RoundingMode::RTM, false}));
  EXPECT_TRUE(pp::tile_kernel_applies(24, DataType::S8, {RoundingMode::RTO, false}));
  EXPECT_TRUE(pp::tile_kernel_applies(26, DataType::E4M3, {}));
  EXPECT_TRUE(pp::tile_kernel_applies(25, DataType::HiF8, {}));  // fixed RHB
  EXPECT_FALSE(pp::tile_kernel_applies(0, DataType::U32, {}));
}

}  // namespace
}  // namespace pto::test
