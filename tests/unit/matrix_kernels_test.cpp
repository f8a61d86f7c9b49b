// Differential tests of the CUBE host kernels (tile/matrix_product.hpp,
// tile/matrix_kernels.hpp) against the exact per-element path they replace,
// which stays the oracle: every TMATMUL / TGEMV form runs twice through its
// semantic handler, host kernels on and off, on random shapes up to the
// largest legal tiles, every input type, every B.DATR rounding mode, both
// profiles, with NaN / infinity / subnormal / overflowing inputs.  The
// destination's whole payload (padding included) and its definedness must
// agree bit for bit; the product raises no status flags in either profile
// (TileProfileMatrixAccumulate returns a Word), and the direct handlers
// report none.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <random>
#include <string_view>

#include "cube_harness.hpp"

namespace pto::test {
namespace {

using namespace cube;

// Random legal dimensions up to the largest tiles: M <= 32 (CUBE_M32), K
// and N bounded by the 64 KiB tiles and PTO_MODEL_TILE_ELEMENTS.
bool random_shape(CubeHarness& h, bool gemv, std::mt19937_64& rng) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::uint32_t m = gemv ? 1 : 1 + static_cast<std::uint32_t>(rng() % 32);
    const auto dimension = [&rng] {
      return static_cast<std::uint32_t>(rng() % 8 == 0 ? 1 + rng() % 1024 : 1 + rng() % 64);
    };
    const std::uint32_t k = dimension(), n = dimension();
    const TileLayout layout = m <= 16 && rng() % 2 ? TileLayout::CubeM16 : TileLayout::CubeM32;
    if (h.shape(m, k, n, layout)) return true;
  }
  return false;
}

// The exact path once, then the host kernels of every variant.
void expect_same(CubeHarness& h, const std::string& what) {
  const CubeHarness::Outcome exact = h.run(false);
  ASSERT_TRUE(exact.legal && exact.executed) << what;
  EXPECT_EQ(exact.flags, 0U) << what;
  const std::string_view widest = tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    tile::kernels::select_kernel_isa(isa);
    const CubeHarness::Outcome fast = h.run(true);
    ASSERT_TRUE(fast.legal && fast.executed) << what << " " << isa;
    EXPECT_EQ(fast.defined, exact.defined) << what << " " << isa;
    EXPECT_EQ(fast.flags, exact.flags) << what << " " << isa;
    ASSERT_EQ(fast.payload.size(), exact.payload.size()) << what;
    const auto mismatch = std::mismatch(fast.payload.begin(), fast.payload.end(), exact.payload.begin());
    EXPECT_TRUE(mismatch.first == fast.payload.end())
        << what << " " << isa << ": first differing payload byte " << (mismatch.first - fast.payload.begin());
  }
  tile::kernels::select_kernel_isa(widest);
}

// A right type of the left one's class: the left one half the time.
DataType right_type(const Form& form, DataType left, std::mt19937_64& rng) {
  const std::vector<DataType> same = right_types(form, left);
  return rng() % 2 ? left : same[rng() % same.size()];
}

std::string describe(const Form& f, DataType l, DataType r, NumericProfile p, unsigned rounding, const CubeHarness& h) {
  return std::string(num::name(l)) + "x" + std::string(num::name(r)) + " function " +
         std::to_string(f.function) + (p == NumericProfile::Ieee ? " ieee" : " reference") + " rmode " +
         std::to_string(rounding) + " " + std::to_string(h.m_) + "x" + std::to_string(h.k_) + "x" + std::to_string(h.n_);
}

// Every form, type, mode and profile on random shapes and inputs.
TEST(MatrixKernels, DifferentialAgainstExactPath) {
  std::mt19937_64 rng(20261202);
  for (const Form& form : kForms) {
    for (const NumericProfile profile : {NumericProfile::Ieee, NumericProfile::Reference}) {
      for (const DataType left : left_types(form)) {
        for (unsigned rounding = 0; rounding < kRoundingCodes; ++rounding) {
          const DataType right = right_type(form, left, rng);
          CubeHarness h(form, left, right, profile, rounding);
          ASSERT_TRUE(random_shape(h, tile::matrix_function(form.function).gemv, rng));
          RandomDraw draw(std::array{0.0, 0.002, 0.05, 1.0}[rng() % 4], rng);
          ASSERT_TRUE(h.fill(draw));
          expect_same(h, describe(form, left, right, profile, rounding, h));
        }
      }
    }
  }
}

// The host kernels run exactly where the module says they do: every mode the
// host has, and never RNA / RTO / RHB for ieee FP32 accumulation (there the
// handler's result comes from the exact path, checked above).
TEST(MatrixKernels, FastPathSelection) {
  std::mt19937_64 rng(7);
  for (unsigned rounding = 0; rounding < kRoundingCodes; ++rounding) {
    for (const NumericProfile profile : {NumericProfile::Ieee, NumericProfile::Reference}) {
      for (const DataType left : {DataType::FP16, DataType::S8}) {
        CubeHarness h(kForms[0], left, left, profile, rounding);
        ASSERT_TRUE(h.shape(16, 32, 24, TileLayout::CubeM16));
        RandomDraw draw(0.0, rng);
        ASSERT_TRUE(h.fill(draw));
        const bool floating = profile == NumericProfile::Ieee && left == DataType::FP16;
        const auto modes = std::array{num::RoundingMode::RNE, num::RoundingMode::RNE, num::RoundingMode::RTZ,
                                      num::RoundingMode::RTM, num::RoundingMode::RTP, num::RoundingMode::RNA,
                                      num::RoundingMode::RTO, num::RoundingMode::RHB};
        EXPECT_EQ(tile::fast_product(h.product_tiles(), profile, modes[rounding]).has_value(),
                  !floating || host_has_mode(rounding))
            << rounding;
      }
    }
  }
}

// The largest legal shapes of each benchmark type, every host mode, with
// specials mixed in.
TEST(MatrixKernels, LargestShapes) {
  std::mt19937_64 rng(99);
  struct Largest {
    DataType type;
    std::uint32_t k, n;
  };
  for (const Largest& s : {Largest{DataType::FP32, 32, 512}, Largest{DataType::FP16, 64, 512},
                           Largest{DataType::BF16, 1024, 32}, Largest{DataType::S8, 64, 512}}) {
    for (const NumericProfile profile : {NumericProfile::Ieee, NumericProfile::Reference}) {
      for (unsigned rounding = 1; rounding <= 4; ++rounding) {
        CubeHarness h(kForms[2], s.type, s.type, profile, rounding);  // TMATMUL_ACC
        ASSERT_TRUE(h.shape(32, s.k, s.n, TileLayout::CubeM32)) << num::name(s.type);
        RandomDraw draw(0.001, rng);
        ASSERT_TRUE(h.fill(draw));
        expect_same(h, describe(kForms[2], s.type, s.type, profile, rounding, h));
      }
    }
  }
}

// The sums written straight into D (32-row CUBE_M32 binary32 destinations
// whose valid columns are whole blocks of eight): every form with FP32
// accumulation, every mode, specials mixed in; and D == A, where the
// product must read A before D changes.
TEST(MatrixKernels, SumsInPlace) {
  std::mt19937_64 rng(32);
  for (const Form& form : kForms) {
    if (tile::matrix_function(form.function).gemv) continue;
    const DataType left = tile::matrix_function(form.function).mx ? DataType::BF16 : DataType::FP32;
    for (unsigned rounding = 0; rounding < kRoundingCodes; ++rounding) {
      CubeHarness h(form, left, left, NumericProfile::Ieee, rounding);
      ASSERT_TRUE(h.shape(32, 1 + static_cast<std::uint32_t>(rng() % 128), 8 * (1 + static_cast<std::uint32_t>(rng() % 16)),
                          TileLayout::CubeM32));
      RandomDraw draw(0.01, rng);
      ASSERT_TRUE(h.fill(draw));
      expect_same(h, describe(form, left, left, NumericProfile::Ieee, rounding, h));
    }
  }
  CubeHarness h(kForms[0], DataType::FP32, DataType::FP32, NumericProfile::Ieee, 1);
  ASSERT_TRUE(h.shape(32, 64, 64, TileLayout::CubeM32));
  RandomDraw draw(0.0, rng);
  ASSERT_TRUE(h.fill(draw));
  h.alias_destination_to_left();
  expect_same(h, "D == A " + describe(kForms[0], DataType::FP32, DataType::FP32, NumericProfile::Ieee, 1, h));
}

// One-row products across the columns (fused_gemv): TGEMV, +BIAS, +ACC on
// FP32 / FP16 / BF16, whole and partial blocks of 16 columns (an FP32 right
// operand of whole blocks is transposed straight into the kernel's rows),
// every host mode, specials mixed in.
TEST(MatrixKernels, GemvAcrossColumns) {
  std::mt19937_64 rng(116);
  for (const Form& form : {kForms[6], kForms[7], kForms[8]})
    for (const DataType type : {DataType::FP32, DataType::FP16, DataType::BF16})
      for (const std::uint32_t n : {16U, 48U, 37U, 128U})
        for (unsigned rounding = 0; rounding <= 4; ++rounding) {
          CubeHarness h(form, type, type, NumericProfile::Ieee, rounding);
          ASSERT_TRUE(h.shape(1, 1 + static_cast<std::uint32_t>(rng() % 100), n, TileLayout::CubeM16));
          RandomDraw draw(0.01, rng);
          ASSERT_TRUE(h.fill(draw));
          expect_same(h, describe(form, type, type, NumericProfile::Ieee, rounding, h));
        }
}

// Hand-derived sums on the host kernels: the fused step rounds once (an
// unfused multiply-then-add would lose the low product bits), directed modes
// round the same way the spec's fused step does, and a NaN result is the
// canonical one whatever payload the inputs carry.
TEST(MatrixKernels, FusedStepByHand) {
  CubeHarness h(kForms[0], DataType::FP32, DataType::FP32, NumericProfile::Ieee, 2);  // RTZ
  ASSERT_TRUE(h.shape(1, 2, 2, TileLayout::CubeM16));
  const auto word = [](float v) { return std::uint64_t{std::bit_cast<std::uint32_t>(v)}; };
  const float e = std::ldexp(1.0f, -23);
  // Column 0: -(1 + 2^-22) + (1 + 2^-23)^2 = 2^-46 exactly; an unfused
  // second step would round the product to 1 + 2^-22 (RTZ) and give 0.
  h.tile(kA).write_element(0, 0, word(-1.0f));
  h.tile(kA).write_element(0, 1, word(1 + e));
  h.tile(kB).write_element(0, 0, word(1 + 2 * e));
  h.tile(kB).write_element(1, 0, word(1 + e));
  // Column 1: a signalling NaN with a payload, then 0 x (1 + 2^-23).
  h.tile(kB).write_element(0, 1, 0x7F800001U);
  h.tile(kB).write_element(1, 1, word(0.0f));
  const tile::ProductTiles t = h.product_tiles();
  const std::string_view widest = tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    tile::kernels::select_kernel_isa(isa);
    const auto p = tile::fast_product(t, NumericProfile::Ieee, num::RoundingMode::RTZ);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->word(0, 0), word(std::ldexp(1.0f, -46))) << isa;
    EXPECT_EQ(p->word(0, 1), 0x7FC00000U) << isa;
  }
  tile::kernels::select_kernel_isa(widest);
}

// Narrow integer inputs at their extremes (-128, 127, 255 and neighbours)
// and 32-bit accumulators and biases at theirs, so the Words wrap past 32
// bits; the sums of kernels::pair_product must match the exact
// MultiplyWord loop.
class ExtremeDraw {
 public:
  explicit ExtremeDraw(std::mt19937_64& rng) : rng_(rng) {}
  std::uint64_t element(DataType t) {
    static constexpr std::uint64_t kNarrow[] = {0x80, 0x7F, 0xFF, 0x81, 0x00, 0x01, 0xFE};
    static constexpr std::uint64_t kWide[] = {0x7FFFFFFF, 0x80000000, 0xFFFFFFFF, 0x00000000};
    const std::uint64_t narrow = rng_() % 4 ? kNarrow[rng_() % 3] : kNarrow[rng_() % 7];
    if (tile::element_bits(t) <= 8) return narrow & ((1ULL << tile::element_bits(t)) - 1);
    return rng_() % 2 ? kWide[rng_() % 4] : rng_() & 0xFFFFFFFF;
  }
  std::uint64_t scale() { return 127; }

 private:
  std::mt19937_64& rng_;
};

// S8 / U8 (and the 4-bit integers) on the pair kernel, both profiles,
// ordinary, BIAS and ACC forms (TMATMUL and TGEMV): random shapes up to the
// largest tiles, and the largest S8 shape.
TEST(MatrixKernels, NarrowWordsAtExtremes) {
  std::mt19937_64 rng(8128);
  for (const Form& form : {kForms[0], kForms[1], kForms[2], kForms[6], kForms[7], kForms[8]})
    for (const DataType type : {DataType::S8, DataType::U8, DataType::S4X2, DataType::U4X2})
      for (const NumericProfile profile : {NumericProfile::Ieee, NumericProfile::Reference}) {
        const bool gemv = tile::matrix_function(form.function).gemv;
        const bool largest = type == DataType::S8 && !gemv;  // then the 32 x 64 x 512 shape too
        for (int i = 0; i < (largest ? 4 : 3); ++i) {
          CubeHarness h(form, type, type, profile, 1);
          if (i == 3) {
            ASSERT_TRUE(h.shape(32, 64, 512, TileLayout::CubeM32));
          } else {
            ASSERT_TRUE(random_shape(h, gemv, rng));
          }
          ExtremeDraw draw(rng);
          ASSERT_TRUE(h.fill(draw));
          expect_same(h, describe(form, type, type, profile, 1, h));
        }
      }
}

// More pairs than one 32-bit block holds, by hand: 3 x kPairBlock pairs of
// 255 x 255 + 255 x 255 are 3196108800 > 2^31 (a single 32-bit lane would
// wrap), onto the initial Word 2^64 - 1.
TEST(MatrixKernels, PairBlocksByHand) {
  constexpr std::uint32_t kRows = 16, kPairs = 3 * tile::kernels::kPairBlock;
  const std::vector<std::int16_t> left(std::size_t{kPairs} * kRows * 2, 255), right(std::size_t{kPairs} * 2, 255);
  const std::string_view widest = tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    tile::kernels::select_kernel_isa(isa);
    std::vector<std::uint64_t> sums(kRows, ~0ULL);
    tile::kernels::pair_product({kRows, 1, kPairs, left.data(), right.data(), sums.data(), true});
    for (const std::uint64_t s : sums) EXPECT_EQ(s, 3196108799ULL) << isa;
    tile::kernels::pair_product({kRows, 1, kPairs, left.data(), right.data(), sums.data(), false});
    for (const std::uint64_t s : sums) EXPECT_EQ(s, 3196108800ULL) << isa;
  }
  tile::kernels::select_kernel_isa(widest);
}

// A wrap by hand: 64 steps of -128 x 127 onto the S32 accumulator
// 0x80000000 are the Word -2^31 - 64 x 16256 = -2148524032, whose low 32
// bits D stores are 2146443264 = 0x7FF02000.
TEST(MatrixKernels, NarrowWordWrapByHand) {
  CubeHarness h(kForms[2], DataType::S8, DataType::S8, NumericProfile::Ieee, 1);  // TMATMUL_ACC
  ASSERT_TRUE(h.shape(1, 64, 1, TileLayout::CubeM16));
  for (std::uint32_t i = 0; i < 64; ++i) {
    h.tile(kA).write_element(0, i, 0x80);
    h.tile(kB).write_element(i, 0, 0x7F);
  }
  h.tile(kC).write_element(0, 0, 0x80000000U);
  const std::string_view widest = tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    tile::kernels::select_kernel_isa(isa);
    const auto p = tile::fast_product(h.product_tiles(), NumericProfile::Ieee, num::RoundingMode::RNE);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->word(0, 0), static_cast<std::uint64_t>(std::int64_t{-2148524032LL})) << isa;
    const CubeHarness::Outcome out = h.run(true);
    ASSERT_TRUE(out.executed);
    std::uint32_t stored = 0;
    std::memcpy(&stored, out.payload.data(), sizeof stored);  // D(0, 0) is payload element 0
    EXPECT_EQ(stored, 0x7FF02000U) << isa;
  }
  tile::kernels::select_kernel_isa(widest);
}

// The reference profile's floating operands are their zero-extended
// carriers (TileProfileMatrixAccumulate: accumulator + MultiplyWord), so the
// kernels' 32 x 32-bit products must be exact and the Word sums wrap modulo
// 2^64: carriers at their extremes (all ones, the sign bit alone, infinity
// and NaN codes, zero, one) push FP32 products to 2^64 - 2^33 + 1.
class CarrierDraw {
 public:
  explicit CarrierDraw(std::mt19937_64& rng) : rng_(rng) {}
  std::uint64_t element(DataType t) {
    const unsigned bits = tile::element_bits(t);
    const std::uint64_t mask = (1ULL << bits) - 1, top = 1ULL << (bits - 1);
    const std::uint64_t extremes[] = {mask, top, mask >> 1, top | (top >> 1), 0, 1, rng_() & mask};
    return extremes[rng_() % std::size(extremes)];
  }
  std::uint64_t scale() { return rng_() % 2 ? 0xFF : rng_() & 0xFF; }

 private:
  std::mt19937_64& rng_;
};

// FP16 / BF16 / FP32 under the reference profile on the Word kernels: every
// form (ordinary, BIAS, ACC, MX; TMATMUL and TGEMV) on random shapes, and
// the largest shapes, at the carriers' extremes.
TEST(MatrixKernels, ReferenceFloatWordsAtExtremes) {
  std::mt19937_64 rng(4093);
  for (const Form& form : kForms)
    for (const DataType type : {DataType::FP16, DataType::BF16, DataType::FP32}) {
      const tile::MatrixFunction f = tile::matrix_function(form.function);
      if (f.mx && type == DataType::FP32) continue;  // no FP32 MX operands
      for (int i = 0; i < (f.gemv ? 3 : 4); ++i) {
        CubeHarness h(form, type, type, NumericProfile::Reference, 1);
        if (i == 3) {
          ASSERT_TRUE(h.shape(32, type == DataType::FP32 ? 32 : 64, 512, TileLayout::CubeM32)) << num::name(type);
        } else {
          ASSERT_TRUE(random_shape(h, f.gemv, rng));
        }
        CarrierDraw draw(rng);
        ASSERT_TRUE(h.fill(draw));
        expect_same(h, describe(form, type, type, NumericProfile::Reference, 1, h));
      }
    }
}

// The Word kernels by hand: 2^32 - 1 squared is 2^64 - 2^33 + 1, so three
// such products onto the Word 2^33 are 2^33 + 3 (2^64 - 2^33 + 1) =
// 2^64 - 2^34 + 3 (mod 2^64); signed operands -1 x -1 add 1 each.
TEST(MatrixKernels, WordProductByHand) {
  constexpr std::uint32_t kRows = 32, kK = 3, kColumns = 5;
  const std::vector<std::uint32_t> left(std::size_t{kK} * kRows, 0xFFFFFFFFU), right(kK, 0xFFFFFFFFU);
  const std::vector<std::int32_t> signed_left(left.size(), -1), signed_right(kK, -1);
  const std::vector<std::uint32_t> rows = {0, 1, 2}, columns(kColumns, 0);
  const std::string_view widest = tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    tile::kernels::select_kernel_isa(isa);
    std::vector<std::uint64_t> sums(8 * kRows, 1ULL << 33);
    tile::kernels::word_product(tile::kernels::Panels<std::uint32_t, std::uint64_t>{
        kRows, kColumns, kK, left.data(), right.data(), rows.data(), columns.data(), sums.data(), true});
    for (std::size_t e = 0; e < kColumns * kRows; ++e) ASSERT_EQ(sums[e], 0xFFFFFFFC00000003ULL) << isa << " " << e;
    tile::kernels::word_product(tile::kernels::Panels<std::int32_t, std::uint64_t>{
        kRows, kColumns, kK, signed_left.data(), signed_right.data(), rows.data(), columns.data(), sums.data(), false});
    for (std::size_t e = 0; e < kColumns * kRows; ++e) ASSERT_EQ(sums[e], 3U) << isa << " " << e;
  }
  tile::kernels::select_kernel_isa(widest);
}

// TileLinearIndex splits into a row part and a column part for every layout
// the product reads (Tile::valid_offsets).
TEST(MatrixKernels, OffsetsAreSeparable) {
  for (const TileLayout layout : {TileLayout::CubeM16, TileLayout::CubeM32, TileLayout::CubeN8}) {
    for (const DataType t : {DataType::FP32, DataType::FP16, DataType::S8, DataType::E2M1X2}) {
      tile::TileFile f;
      const std::uint32_t rows = layout == TileLayout::CubeN8 ? 40 : (layout == TileLayout::CubeM16 ? 13 : 29);
      const tile::CubeGeometry g = tile::cube_geometry(layout, rows, 37, t);
      ASSERT_TRUE(g.valid());
      const tile::ConfigureRequest r{.capacity_bytes = pow2_capacity(g.storage_bytes), .valid_rows = rows,
                                     .valid_columns = 37, .data_type = t, .layout = layout,
                                     .location = TileLocation::Matrix, .mask = 0b0001};
      ASSERT_EQ(f.configure_cube(0, r), arch::FaultCode::Fault_None);
      const tile::Tile& tile = f.tile(0);
      const tile::Tile::Offsets o = tile.valid_offsets();
      for (std::uint32_t row = 0; row < rows; ++row)
        for (std::uint32_t c = 0; c < 37; ++c) ASSERT_EQ(o(row, c), tile.linear_index(row, c)) << row << "," << c;
    }
  }
}

}  // namespace
}  // namespace pto::test
