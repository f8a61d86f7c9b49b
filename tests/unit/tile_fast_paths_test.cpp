// Differential tests of the vectorised fast paths against the exact
// per-element semantics they must reproduce bit for bit, flags included:
//  - TEXP FP32, ieee (tile_elementwise.hpp span_unary, num::simd::exp_fp32)
//    vs ops::sfu_element, random values and dense sweeps;
//  - reference-profile SFU rows vs ops::sfu_element;
//  - TROWSUM FP32, ieee (vectorised across rows) vs the sequential fold of
//    ops::binary_element ADD along each row (ADR 0092); TCOLSUM FP32/FP64,
//    ieee (vectorised across columns) and TROWMAX/MIN, TCOLMAX/MIN (both
//    profiles, num::simd row/column extremes) vs the same folds;
//  - TADDS/TMAXS/TMINS spans (span_scalar) vs ops::binary_element, and
//    TADDS..TDIVS with the host's MXCSR flags (FP32/FP64 per element of a
//    list, FP16/BF16 every encoding per element), the caller's MXCSR
//    ignored (DAZ, FTZ, stale flags) and restored;
//  - FP16 and BF16 ADD/SUB/MUL/DIV through binary32 (one binary32
//    operation, one narrowing) vs the exact operation, for a sample of left
//    operands against every encoding on the right;
//  - the F16C conversion spans (num::f16c) vs the scalar encoder
//    num::convert, every FP16 code and the FP32 values around every FP16
//    rounding boundary;
//  - TMAX/TMIN (num::simd::min_max) vs ops::binary_element in both
//    profiles, NaN, zero, infinity and subnormal operands included.
// The vector loops run in every tier the host has (num::simd::limit_tier):
// portable, AVX2/F16C and AVX-512.
// Expected values are the exact paths' (the spec's TileProfileBinaryWithFlags
// / TileSFUUnarySpecialValue, ieee profile of docs/numerics.md).
#include <gtest/gtest.h>

#include <array>
#include <bit>
#include <cfenv>
#include <cmath>
#include <functional>
#include <random>
#include <span>
#include <utility>
#include <vector>

#if defined(__x86_64__)
#include <xmmintrin.h>
#endif

#include "numerics/convert_span.hpp"
#include "numerics/f16c_span.hpp"
#include "numerics/format.hpp"
#include "numerics/simd_span.hpp"
#include "simd_tiers.hpp"
#include "tile/ops_convert.hpp"
#include "tile/ops_elementwise.hpp"
#include "tile/ops_reduce.hpp"
#include "tile/tile_elementwise.hpp"

namespace pto::tile::test {
namespace {

using ops::Binary;
using ops::Unary;

TileDescriptor descriptor(DataType t, std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t valid_columns,
                          std::uint32_t capacity = 65536) {
  TileDescriptor d;
  d.allocated = true;
  d.capacity_bytes = capacity;
  d.columns = columns;
  d.rows = derived_tile_rows(d.capacity_bytes, columns, t);
  d.valid_rows = valid_rows;
  d.valid_columns = valid_columns;
  d.data_type = t;
  return d;
}

Tile make_tile(const TileDescriptor& d) {
  Tile t;
  t.configure(d);
  return t;
}

std::uint32_t f32(float f) { return std::bit_cast<std::uint32_t>(f); }

using pto::test::for_each_tier;

// FP32 encodings around the TEXP fast range and the IEEE special classes.
const std::vector<std::uint32_t> kExpSpecials = {
    0, 0x80000000, 1, 0x80000001, 0x007fffff, 0x00800000, 0x7f800000, 0xff800000, 0x7fc00000, 0xffc00001,
    0x7f800001, 0xff812345, f32(87.0f), f32(-87.0f), 0x42ae0001, 0xc2ae0001, f32(88.72283f), f32(88.7229f),
    f32(-103.97208f), f32(-87.33654f), f32(-87.33655f), f32(1e-30f), f32(-1e-30f), f32(0x1p-24f), f32(-0x1p-25f),
    f32(1.0f), f32(-1.0f), f32(0.5f), f32(10.0f), f32(-10.0f), 0x7f7fffff, 0xff7fffff};

// Fills a tile's valid region with specials first, then values drawn by `draw`.
template <typename Draw>
void fill(Tile& t, const std::vector<std::uint32_t>& specials, Draw draw) {
  const TileDescriptor& d = t.descriptor();
  std::size_t i = 0;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c, ++i) t.write_element(r, c, i < specials.size() ? specials[i] : draw());
}

// ---- TEXP ----

void check_unary(Unary op, DataType type, NumericProfile p, const Tile& source, bool alias) {
  Tile copy = source;
  Tile out = make_tile(source.descriptor());
  Tile& destination = alias ? copy : out;
  const num::Flags flags = ops::tile_unary(op, destination, copy, PadValue::Null, p);
  num::Flags want_flags = 0;
  const TileDescriptor& d = source.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const std::uint64_t x = source.read_raw(source.linear_index(r, c));
      const num::Result want = ops::sfu_element(op, type, x, p);
      want_flags |= want.flags;
      ASSERT_EQ(destination.read_raw(destination.linear_index(r, c)), want.bits)
          << "operand 0x" << std::hex << x << " row " << std::dec << r << " column " << c;
    }
  EXPECT_EQ(flags, want_flags);
}

void check_exp_fp32_random_tiles() {
  std::mt19937_64 g(11);
  std::uniform_real_distribution<float> wide(-104.0f, 90.0f), narrow(-1.0f, 1.0f);
  for (int round = 0; round < 8; ++round) {
    Tile s = make_tile(descriptor(DataType::FP32, 256, 64, round % 2 ? 256 : 201));
    fill(s, round == 0 ? kExpSpecials : std::vector<std::uint32_t>{}, [&]() -> std::uint32_t {
      switch (g() % 4) {
        case 0: return f32(wide(g));
        case 1: return f32(narrow(g));
        case 2: return static_cast<std::uint32_t>(g());  // any encoding
        default: return f32(std::ldexp(narrow(g), -static_cast<int>(g() % 40)));  // near exp(x) = 1
      }
    });
    // Each width in place and not: a 256-column tile is one run of 16384
    // elements, two of exp_fp32_span's 8192-element chunks.
    check_unary(Unary::EXP, DataType::FP32, NumericProfile::Ieee, s, round / 2 % 2 == 1);
  }
}

TEST(TileFastPaths, ExpFp32IeeeMatchesElementSemantics) {
  for_each_tier(check_exp_fp32_random_tiles);
}

// A tile whose every element takes the fast path records exactly NX (every
// exp of a nonzero finite value in range is inexact and normal).
TEST(TileFastPaths, ExpFp32IeeeFlagsOfFastElements) {
  Tile s = make_tile(descriptor(DataType::FP32, 64, 4, 64));
  std::mt19937_64 g(5);
  std::uniform_real_distribution<float> v(-80.0f, 80.0f);
  fill(s, {}, [&] { return f32(v(g)); });
  Tile d = make_tile(s.descriptor());
  EXPECT_EQ(ops::tile_unary(Unary::EXP, d, s, PadValue::Null, NumericProfile::Ieee), num::kNX);
  s.write_element(3, 5, 0x7f800001);  // a signalling NaN adds NV
  EXPECT_EQ(ops::tile_unary(Unary::EXP, d, s, PadValue::Null, NumericProfile::Ieee), num::kNX | num::kNV);
  EXPECT_EQ(d.read_raw(d.linear_index(3, 5)), 0x7fc00000U);  // canonical NaN
  s.write_element(0, 0, f32(100.0f));  // overflow: OF and NX
  EXPECT_EQ(ops::tile_unary(Unary::EXP, d, s, PadValue::Null, NumericProfile::Ieee), num::kNX | num::kNV | num::kOF);
  EXPECT_EQ(d.read_raw(0), 0x7f800000U);
}

// Dense sweeps of FP32 encodings (a fixed encoding step) in several binades
// of the fast range, across its limits (87, the overflow and subnormal
// results) and around exp(x) = 1 (results within the rounding-boundary
// window, recomputed exactly), each element against the exact path.
TEST(TileFastPaths, ExpFp32IeeeDenseSweeps) {
  const std::vector<std::pair<float, std::uint32_t>> sweeps = {
      {0x1p-30f, 1}, {-0x1p-20f, 3}, {0.5f, 97}, {-0.75f, 89}, {1.0f, 101}, {9.0f, 103},
      {-40.0f, 107}, {86.0f, 47}, {-87.0f, 29}, {-86.9f, 31}, {64.0f, 113}};
  for (const auto& sweep : sweeps) {
    Tile s = make_tile(descriptor(DataType::FP32, 256, 64, 256));
    const std::uint32_t step = sweep.second;  // a plain local: clang 14 lambdas cannot capture bindings
    std::uint32_t v = f32(sweep.first);
    fill(s, {}, [&] {
      const std::uint32_t x = v;
      v += step;  // away from zero for either sign
      return x;
    });
    check_unary(Unary::EXP, DataType::FP32, NumericProfile::Ieee, s, false);
  }
}

TEST(TileFastPaths, ReferenceSfuRowsMatchElementSemantics) {
  std::mt19937_64 g(3);
  for (Unary op : {Unary::EXP, Unary::LOG, Unary::RECIP, Unary::SQRT, Unary::RSQRT})
    for (DataType t : {DataType::FP32, DataType::FP16, DataType::BF16})
      for (std::uint32_t columns : {50U, 64U}) {  // row runs; one run of whole rows
        const std::uint32_t mask = element_bits(t) == 32 ? 0x7fffffffU : 0x7fffU;
        const std::uint32_t one = t == DataType::FP32 ? 0x3f800000U : t == DataType::FP16 ? 0x3c00U : 0x3f80U;
        Tile s = make_tile(descriptor(t, 64, columns == 64 ? 40 : 12, columns));
        // Positive finite pieces (the vector path) and pieces with a special.
        fill(s, {}, [&] { return static_cast<std::uint32_t>(g() % (mask >> 1)) + 1; });
        s.write_element(3, 7, 0);
        s.write_element(5, 0, mask + 1);  // -0
        s.write_element(7, 49, one);
        s.write_element(9, 20, t == DataType::FP32 ? 0x7f800001U : t == DataType::FP16 ? 0x7c01U : 0x7f81U);
        check_unary(op, t, NumericProfile::Reference, s, false);
        check_unary(op, t, NumericProfile::Reference, s, true);
      }
}

// Reference TEXP on FP64 (the span covers every IEEE-like type): chunks of
// positive finite values take value + 1; chunks with a zero, negative,
// infinite or NaN operand go element by element.
TEST(TileFastPaths, ReferenceExpFp64MatchesElementSemantics) {
  std::mt19937_64 g(41);
  Tile s = make_tile(descriptor(DataType::FP64, 64, 20, 64));
  const TileDescriptor& d = s.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) s.write_element(r, c, (g() >> 2) + 1);  // positive finite
  s.write_element(12, 3, 0);
  s.write_element(13, 4, 0x8000000000000000ULL);       // -0
  s.write_element(14, 5, 0x7ff0000000000000ULL);       // +inf
  s.write_element(15, 6, 0xfff0000000000000ULL);       // -inf
  s.write_element(16, 7, 0x7ff0000000000001ULL);       // sNaN: NV
  s.write_element(17, 8, 0xbff0000000000000ULL);       // -1
  s.write_element(18, 9, 0x7fefffffffffffffULL);       // largest finite: + 1 is +inf's encoding
  check_unary(Unary::EXP, DataType::FP64, NumericProfile::Reference, s, false);
  check_unary(Unary::EXP, DataType::FP64, NumericProfile::Reference, s, true);
}

// ---- TROWSUM ----

// tile_reduce against the ADR 0092 sequential fold of ops::binary_element
// along each row (TileAxis_Row) or down each column: SUM from +0
// (TileProfileReductionInitial), MAX/MIN from the first element, every
// step's flags ORed.
void check_reduce(ops::Reduction op, TileAxis axis, NumericProfile p, const Tile& s) {
  const TileDescriptor& sd = s.descriptor();
  const DataType t = s.data_type();
  const bool row = axis == TileAxis::Row;
  Tile d = make_tile(row ? descriptor(t, 1, sd.valid_rows, 1, 4096) : descriptor(t, sd.columns, 1, sd.valid_columns, 4096));
  const num::Flags flags = ops::tile_reduce(op, axis, d, s, PadValue::Null, p);
  const Binary step = op == ops::Reduction::SUM ? Binary::ADD : op == ops::Reduction::MAX ? Binary::MAX : Binary::MIN;
  const std::uint32_t lines = row ? sd.valid_rows : sd.valid_columns, length = row ? sd.valid_columns : sd.valid_rows;
  num::Flags want_flags = 0;
  for (std::uint32_t line = 0; line < lines; ++line) {
    const auto at = [&](std::uint32_t i) { return s.read_raw(row ? s.linear_index(line, i) : s.linear_index(i, line)); };
    const bool sum = op == ops::Reduction::SUM;
    std::uint64_t acc = sum ? 0 : at(0);
    for (std::uint32_t i = sum ? 0 : 1; i < length; ++i) {
      const num::Result next = ops::binary_element(step, t, acc, at(i), p);
      want_flags |= next.flags;
      acc = next.bits;
    }
    ASSERT_EQ(d.read_raw(row ? d.linear_index(line, 0) : d.linear_index(0, line)), acc)
        << (row ? "row " : "column ") << line;
  }
  EXPECT_EQ(flags, want_flags);
}

void check_row_sum(const Tile& s) { check_reduce(ops::Reduction::SUM, TileAxis::Row, NumericProfile::Ieee, s); }

// 13 and 37 rows: partial groups of the 8- and 16-lane loops; 61 of 64,
// 300 and 7 columns: partial column blocks.
TEST(TileFastPaths, RowSumFp32IeeeRandomRows) {
  for_each_tier([] {
    std::mt19937_64 g(17);
    std::uniform_real_distribution<float> v(-1000.0f, 1000.0f);
    for (std::uint32_t rows : {13U, 37U})
      for (std::uint32_t columns : {64U, 300U, 7U}) {
        Tile s = make_tile(descriptor(DataType::FP32, columns, rows, columns == 64 ? 61 : columns));
        fill(s, {}, [&]() -> std::uint32_t {
          switch (g() % 8) {
            case 0: return static_cast<std::uint32_t>(g() & 0x807fffffU);  // subnormals and zeros
            case 1: return f32(std::ldexp(v(g), static_cast<int>(g() % 60) - 30));
            default: return f32(v(g));
          }
        });
        check_row_sum(s);
      }
  });
}

// One inexact step in a tile of exact rows (flags are per tile): 2^24 + 1
// rounds, with the larger operand as the running sum or as the element,
// at the first, last and next-group lanes and at columns inside the first
// block, at a block's end and in the partial last block.
TEST(TileFastPaths, RowSumFp32IeeeOneInexactStep) {
  for_each_tier([] {
    for (std::uint32_t row : {0U, 7U, 15U, 16U, 19U})
      for (std::uint32_t column : {1U, 15U, 16U, 36U})
        for (bool large_first : {true, false}) {
          Tile s = make_tile(descriptor(DataType::FP32, 37, 20, 37));
          fill(s, {}, [] { return 0x80000000U; });  // -0: exact, the sums stay zero
          s.write_element(row, 0, f32(large_first ? 0x1p24f : 1.0f));
          s.write_element(row, column, f32(large_first ? 1.0f : 0x1p24f));
          SCOPED_TRACE(testing::Message() << "row " << row << " column " << column << " large first " << large_first);
          check_row_sum(s);
        }
  });
}

// Rows that are exact (no flags), order-dependent, overflowing, or hold
// NaNs and infinities; each row checked against the sequential fold.
void check_special_row_sums() {
  Tile s = make_tile(descriptor(DataType::FP32, 16, 11, 16));
  const auto row = [&](std::uint32_t r, std::vector<std::uint32_t> values) {
    for (std::uint32_t c = 0; c < 16; ++c) s.write_element(r, c, c < values.size() ? values[c] : 0x80000000U);  // -0 pads
  };
  row(0, {f32(1), f32(2), f32(3)});                                       // exact: no flags
  row(1, {f32(1e8f), f32(1), f32(-1e8f), f32(1)});                        // order matters: 1 + rounding
  row(2, {0x7f7fffff, 0x7f7fffff, 0xff7fffff});                           // overflow, stays infinite
  row(3, {0x7f800000, 0xff800000});                                       // inf - inf: NV
  row(4, {f32(1), 0x7f800001, f32(2)});                                   // sNaN
  row(5, {0x7fc00000, f32(1)});                                           // qNaN
  row(6, {0x80000000});                                                   // all -0: +0 + -0 = +0
  row(7, {0x00000001, 0x80000003, 0x00400000});                           // subnormal, exact
  row(8, {f32(0x1p-126f), f32(-0x1.000002p-126f)});                       // exact difference below normal
  row(9, {f32(3.0f), f32(0x1p-30f)});                                     // inexact
  row(10, {0xff7fffff, 0xff7fffff, 0x7f7fffff, 0x7f7fffff});              // negative overflow
  check_row_sum(s);
  Tile exact = make_tile(descriptor(DataType::FP32, 16, 1, 16));
  for (std::uint32_t c = 0; c < 16; ++c) exact.write_element(0, c, f32(static_cast<float>(c)));
  Tile d = make_tile(descriptor(DataType::FP32, 1, 1, 1, 4096));
  EXPECT_EQ(ops::tile_reduce(ops::Reduction::SUM, TileAxis::Row, d, exact, PadValue::Null, NumericProfile::Ieee), 0);
  EXPECT_EQ(d.read_raw(0), f32(120.0f));
}

TEST(TileFastPaths, RowSumFp32IeeeSpecialRows) {
  for_each_tier(check_special_row_sums);
}

// ---- TCOLSUM (ieee FP32/FP64, vectorised across columns) ----

// Finite values of every class: subnormals and zeros of both signs, wide
// exponents (inexact steps, cancellation), ordinary values.
std::uint64_t random_finite(DataType t, std::mt19937_64& g) {
  std::uniform_real_distribution<double> v(-1000.0, 1000.0);
  const double x = std::ldexp(v(g), static_cast<int>(g() % 60) - 30);
  switch (g() % 6) {
    case 0: return t == DataType::FP32 ? (g() & 0x807fffffU) : (g() & 0x800fffffffffffffULL);  // subnormal or zero
    case 1: return t == DataType::FP32 ? f32(static_cast<float>(x)) : std::bit_cast<std::uint64_t>(x);
    default: return t == DataType::FP32 ? f32(static_cast<float>(v(g))) : std::bit_cast<std::uint64_t>(v(g));
  }
}

Tile random_tile(DataType t, std::uint32_t columns, std::uint32_t rows, std::uint32_t valid_columns,
                 std::mt19937_64& g, std::uint64_t (*draw)(DataType, std::mt19937_64&)) {
  Tile s = make_tile(descriptor(t, columns, rows, valid_columns));
  const TileDescriptor& d = s.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) s.write_element(r, c, draw(t, g));
  return s;
}

// 1, 5 and 27 rows; 61 of 64, 7 and 300 columns (partial vectors).
TEST(TileFastPaths, ColumnSumFloatIeeeRandomColumns) {
  std::mt19937_64 g(23);
  for (DataType t : {DataType::FP32, DataType::FP64})
    for (std::uint32_t rows : {1U, 5U, 27U})
      for (std::uint32_t columns : {64U, 7U, 300U}) {
        SCOPED_TRACE(testing::Message() << "type " << static_cast<int>(t) << " rows " << rows << " columns " << columns);
        check_reduce(ops::Reduction::SUM, TileAxis::Column, NumericProfile::Ieee,
                     random_tile(t, columns, rows, columns == 64 ? 61 : columns, g, random_finite));
      }
}

// Columns that are exact (no flags), order-dependent, overflowing, or
// hold NaNs and infinities (each refolded exactly: their flags, not NX);
// one inexact step in an otherwise exact tile, at several columns.
TEST(TileFastPaths, ColumnSumFp32IeeeSpecialColumns) {
  const std::vector<std::vector<std::uint32_t>> columns = {
      {f32(1), f32(2), f32(3)},                 {f32(1e8f), f32(1), f32(-1e8f), f32(1)},
      {0x7f7fffff, 0x7f7fffff, 0xff7fffff},     {0x7f800000, 0xff800000},
      {f32(1), 0x7f800001, f32(2)},             {0x7fc00000, f32(1)},
      {0x80000000},                             {0x00000001, 0x80000003, 0x00400000},
      {f32(0x1p-126f), f32(-0x1.000002p-126f)}, {0xff7fffff, 0xff7fffff, 0x7f7fffff, 0x7f7fffff}};
  for (std::size_t only = 0; only <= columns.size(); ++only) {  // each column alone (its flags), then all together
    const std::size_t width = only < columns.size() ? 1 : columns.size();
    Tile s = make_tile(descriptor(DataType::FP32, static_cast<std::uint32_t>(width), 4, static_cast<std::uint32_t>(width)));
    for (std::size_t k = 0; k < width; ++k) {
      const std::vector<std::uint32_t>& values = columns[only < columns.size() ? only : k];
      for (std::uint32_t r = 0; r < 4; ++r)
        s.write_element(r, static_cast<std::uint32_t>(k), r < values.size() ? values[r] : 0x80000000U);  // -0 pads
    }
    SCOPED_TRACE(testing::Message() << "case " << only);
    check_reduce(ops::Reduction::SUM, TileAxis::Column, NumericProfile::Ieee, s);
  }
  for (std::uint32_t column : {0U, 15U, 16U, 36U}) {
    Tile s = make_tile(descriptor(DataType::FP32, 37, 3, 37));
    fill(s, {}, [] { return 0x80000000U; });
    s.write_element(0, column, f32(0x1p24f));
    s.write_element(2, column, f32(1.0f));
    SCOPED_TRACE(testing::Message() << "inexact column " << column);
    check_reduce(ops::Reduction::SUM, TileAxis::Column, NumericProfile::Ieee, s);
  }
}

// A host rounding mode other than nearest: the fast path must decline
// (its host adds would round upwards), the exact fold rounds to nearest.
TEST(TileFastPaths, ColumnSumFp32IeeeUnderDirectedHostRounding) {
  std::mt19937_64 g(29);
  const Tile s = random_tile(DataType::FP32, 33, 9, 33, g, random_finite);
  ASSERT_EQ(std::fesetround(FE_UPWARD), 0);
  check_reduce(ops::Reduction::SUM, TileAxis::Column, NumericProfile::Ieee, s);
  std::fesetround(FE_TONEAREST);
}

// NX comes from the host's inexact flag around the row and column loops:
// the caller's floating-point flags are neither cleared nor added to, a
// flag already raised (inexact included) does not become the tile's NX,
// and FP64 lines and non-finite lines beside inexact ones keep their own
// flags.
TEST(TileFastPaths, RowAndColumnSumIeeeLeaveTheHostFlagsAsTheyWere) {
  std::mt19937_64 g(31);
  Tile exact = make_tile(descriptor(DataType::FP32, 5, 4, 5));
  fill(exact, {}, [] { return f32(1.0f); });
  Tile inexact = make_tile(descriptor(DataType::FP64, 5, 4, 5));
  fill(inexact, {}, [] { return std::bit_cast<std::uint64_t>(1.0); });
  inexact.write_element(1, 3, std::bit_cast<std::uint64_t>(0x1p-60));  // 1 + 2^-60 rounds
  Tile mixed = random_tile(DataType::FP32, 9, 6, 9, g, random_finite);
  mixed.write_element(2, 4, 0x7f800000);  // +inf: that column is refolded exactly
  mixed.write_element(5, 7, 0x7fc00000);
  for_each_tier([&] {
    for (int raised : {0, FE_INEXACT, FE_DIVBYZERO | FE_INVALID})
      for (TileAxis axis : {TileAxis::Row, TileAxis::Column})
        for (const Tile* s : {&exact, &inexact, &mixed}) {
          std::feclearexcept(FE_ALL_EXCEPT);
          if (raised != 0) std::feraiseexcept(raised);
          SCOPED_TRACE(testing::Message() << "raised " << raised << " row " << (axis == TileAxis::Row) << " type "
                                          << static_cast<int>(s->data_type()));
          check_reduce(ops::Reduction::SUM, axis, NumericProfile::Ieee, *s);
          EXPECT_EQ(std::fetestexcept(FE_ALL_EXCEPT), raised);
        }
  });
  std::feclearexcept(FE_ALL_EXCEPT);
}

// ---- TROWMAX/TROWMIN/TCOLMAX/TCOLMIN (num::simd row/column extremes) ----

// Any encoding of the type but NaNs (those tiles take the exact fold; the
// NaN tests put them in on purpose): both zeros, infinities, subnormals.
std::uint64_t random_non_nan(DataType t, std::mt19937_64& g) {
  const num::FormatInfo& f = num::format_info(t);
  const unsigned bits = static_cast<unsigned>(f.exp_bits + f.frac_bits + 1);
  const std::uint64_t mask = bits == 64 ? ~0ULL : (1ULL << bits) - 1;
  const std::uint64_t inf = ((1ULL << f.exp_bits) - 1) << f.frac_bits, sign = 1ULL << (bits - 1);
  static constexpr std::uint64_t kSpecialMagnitudes[] = {0, 1};
  for (;;) {
    std::uint64_t v = g() & mask;
    if (g() % 8 == 0) v = (v & sign) | (g() % 2 ? inf : kSpecialMagnitudes[g() % 2]);  // +-inf, +-0, +-min subnormal
    if (g() % 4 == 0) v = (v & sign) | (g() % 16);  // near the ordering of the zeros
    if ((v & ~sign) <= inf) return v;
  }
}

TEST(TileFastPaths, ExtremesMatchSequentialFold) {
  std::mt19937_64 g(31);
  for (DataType t : {DataType::FP16, DataType::BF16, DataType::FP32, DataType::FP64})
    for (NumericProfile p : {NumericProfile::Reference, NumericProfile::Ieee})
      for (ops::Reduction op : {ops::Reduction::MAX, ops::Reduction::MIN})
        for (TileAxis axis : {TileAxis::Row, TileAxis::Column})
          for (int nan_case = 0; nan_case < 3; ++nan_case) {  // none, one quiet NaN, one signalling NaN
            const bool wide = element_bits(t) <= 32;
            Tile s = random_tile(t, wide ? 70 : 33, 19, wide ? 67 : 33, g, random_non_nan);
            if (nan_case != 0) {
              const num::FormatInfo& f = num::format_info(t);
              const std::uint64_t inf = ((1ULL << f.exp_bits) - 1) << f.frac_bits;
              const std::uint64_t quiet = 1ULL << (f.frac_bits - 1);
              s.write_element(static_cast<std::uint32_t>(g() % 19), static_cast<std::uint32_t>(g() % 33),
                              nan_case == 1 ? inf | quiet : inf | 1);
            }
            SCOPED_TRACE(testing::Message() << "type " << static_cast<int>(t) << " profile " << static_cast<int>(p)
                                            << (op == ops::Reduction::MAX ? " MAX" : " MIN")
                                            << (axis == TileAxis::Row ? " row" : " column") << " nan " << nan_case);
            check_reduce(op, axis, p, s);
          }
}

// The zeros: MAX prefers +0, MIN -0, in any order within a line; one line
// of a single element.
TEST(TileFastPaths, ExtremesOfZerosAndSingleElements) {
  for (ops::Reduction op : {ops::Reduction::MAX, ops::Reduction::MIN})
    for (TileAxis axis : {TileAxis::Row, TileAxis::Column}) {
      Tile s = make_tile(descriptor(DataType::FP32, 4, 4, 4));
      const std::uint32_t zeros[4][4] = {{0x80000000, 0, 0x80000000, 0x80000000},
                                         {0, 0x80000000, 0, 0},
                                         {0x80000000, 0x80000000, 0x80000000, 0x80000000},
                                         {0, 0, 0, 0}};
      for (std::uint32_t r = 0; r < 4; ++r)
        for (std::uint32_t c = 0; c < 4; ++c) s.write_element(r, c, zeros[r][c]);
      check_reduce(op, axis, NumericProfile::Ieee, s);
      Tile one = make_tile(descriptor(DataType::FP32, 1, 1, 1));
      one.write_element(0, 0, 0xff800000);
      check_reduce(op, axis, NumericProfile::Ieee, one);
    }
}

// ---- TileScalar spans ----

TEST(TileFastPaths, ScalarSpansMatchElementSemantics) {
  std::mt19937_64 g(23);
  const std::vector<std::uint64_t> scalars = {0, 0x80000000, 0x7f800001, 0x7fc00000, 0x3f800000, 0xff800000, 0x1234};
  for (NumericProfile p : {NumericProfile::Reference, NumericProfile::Ieee})
    for (Binary op : {Binary::MAX, Binary::MIN, Binary::ADD, Binary::SUB, Binary::MUL})
      for (DataType t : {DataType::FP32, DataType::FP16, DataType::BF16, DataType::S16})
        for (std::uint64_t scalar : scalars) {
          Tile s = make_tile(descriptor(t, 64, 9, 60));
          const std::uint32_t mask = element_bits(t) == 32 ? 0xffffffffU : 0xffffU;
          fill(s, {0, 0x8000, 0x80000000, 0x7f800001, 0x7c01, 0x7f81, 0x7fc00000}, [&] {
            return static_cast<std::uint32_t>(g()) & mask;
          });
          Tile d = make_tile(s.descriptor());
          const num::Flags flags = ops::tile_scalar(op, d, s, scalar, PadValue::Null, p);
          const std::uint64_t right = ops::raw_element_value(scalar, t);
          num::Flags want_flags = 0;
          for (std::uint32_t r = 0; r < 9; ++r)
            for (std::uint32_t c = 0; c < 60; ++c) {
              const std::uint32_t e = s.linear_index(r, c);
              const num::Result want = ops::binary_element(op, t, s.read_raw(e), right, p);
              want_flags |= want.flags;
              ASSERT_EQ(d.read_raw(e), want.bits) << "operand 0x" << std::hex << s.read_raw(e) << " scalar 0x" << right;
            }
          EXPECT_EQ(flags, want_flags) << "scalar 0x" << std::hex << scalar;
        }
}

// ieee FP32/FP64 TADDS/TSUBS/TMULS through the host with vectorised NX:
// each operand of a list (every class, the common-result thresholds of
// tile_elementwise.cpp, overflow and underflow neighbours, random values)
// sits alone at some position among fillers whose result is exact (0 for
// ADD/SUB, 1 for MUL), so a missing or extra flag of that one element
// shows; bits of every element and the recorded flags vs binary_element.
std::vector<std::uint64_t> host_flag_operands(DataType t, std::mt19937_64& g) {
  const bool f64 = t == DataType::FP64;
  const auto enc = [&](double v) { return f64 ? std::bit_cast<std::uint64_t>(v) : std::uint64_t{f32(static_cast<float>(v))}; };
  const std::uint64_t sign = f64 ? 0x8000000000000000ULL : 0x80000000ULL;
  const int frac = f64 ? 52 : 23;
  std::vector<std::uint64_t> v;
  const auto field = [&](std::uint64_t e, std::uint64_t m) { return (e << frac) | m; };
  const std::uint64_t top = std::uint64_t{1} << (frac - 1);
  for (int e : {0, 1, 2, 3, frac + 3, frac + 4, f64 ? 1023 : 127, f64 ? 2046 : 254, f64 ? 2047 : 255})
    for (std::uint64_t m : {std::uint64_t{0}, std::uint64_t{1}, 2 * top - 1, top, top + 1})
      for (std::uint64_t s : {std::uint64_t{0}, sign}) v.push_back(field(static_cast<std::uint64_t>(e), m) | s);
  for (double x : {1.0, 3.0, 0.1, -0.75, 1e10, 1e-30, 65536.0}) v.push_back(enc(x));
  // Products and sums near the smallest common result, 2^(emin + prec + 2) or 2^(emin + 1).
  for (int k : {-1, 0, 1}) {
    const int half = f64 ? (-1022 + 53 + 2) / 2 : (-126 + 24 + 2) / 2;
    v.push_back(enc(std::ldexp(1.0 + k * (f64 ? 0x1p-52 : 0x1p-23), half)));
    v.push_back(enc(std::ldexp(1.5, half + k)));
  }
  for (int i = 0; i < 24; ++i) {
    const std::uint64_t r = g();
    v.push_back(f64 ? r : (r & 0xffffffffU));
  }
  return v;
}

void check_host_flag_operand(Binary op, DataType t, std::uint64_t operand, std::uint64_t scalar, std::uint32_t at) {
  Tile s = make_tile(descriptor(t, 64, 1, 64));
  // x + 0, x - 0, 1 * x and 0 / x are exact (0 / x raises NV only where
  // every element does: x zero or NaN).
  const std::uint64_t filler = op == Binary::MUL ? (t == DataType::FP64 ? 0x3FF0000000000000ULL : 0x3F800000U) : 0;
  for (std::uint32_t c = 0; c < 64; ++c) s.write_element(0, c, c == at ? operand : filler);
  Tile d = make_tile(s.descriptor());
  const num::Flags flags = ops::tile_scalar(op, d, s, scalar, PadValue::Null, NumericProfile::Ieee);
  num::Flags want_flags = 0;
  for (std::uint32_t c = 0; c < 64; ++c) {
    const num::Result want = ops::binary_element(op, t, s.read_raw(c), scalar, NumericProfile::Ieee);
    want_flags |= want.flags;
    ASSERT_EQ(d.read_raw(c), want.bits) << "column " << c;
  }
  ASSERT_EQ(flags, want_flags);
}

TEST(TileFastPaths, HostScalarArithmeticFlagsPerElement) {
  std::mt19937_64 g(29);
  for (DataType t : {DataType::FP32, DataType::FP64}) {
    const std::vector<std::uint64_t> operands = host_flag_operands(t, g);
    for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV})
      for (std::size_t k = 0; k < operands.size(); k += 3)  // a third of the list as scalars
        for (std::size_t i = 0; i < operands.size(); ++i) {
          SCOPED_TRACE(testing::Message() << num::name(t) << " op " << static_cast<int>(op) << std::hex << " operand 0x"
                                          << operands[i] << " scalar 0x" << operands[k]);
          check_host_flag_operand(op, t, operands[i], operands[k], static_cast<std::uint32_t>((i * 7 + k) % 64));
          if (HasFatalFailure()) return;
        }
  }
}

// ieee tile_scalar(op) of s's valid region (into a copy of s when `alias`,
// else a fresh tile) against binary_element of every valid element: bits
// of each element and the union of the element flags.
void expect_tile_scalar_matches_elements(Binary op, DataType t, const Tile& s, std::uint64_t scalar, bool alias) {
  Tile copy = s, out = make_tile(s.descriptor());
  Tile& d = alias ? copy : out;
  const num::Flags flags = ops::tile_scalar(op, d, copy, scalar, PadValue::Null, NumericProfile::Ieee);
  num::Flags want_flags = 0;
  for (std::uint32_t r = 0; r < s.descriptor().valid_rows; ++r)
    for (std::uint32_t c = 0; c < s.descriptor().valid_columns; ++c) {
      const std::uint32_t e = s.linear_index(r, c);
      const num::Result want = ops::binary_element(op, t, s.read_raw(e), scalar, NumericProfile::Ieee);
      want_flags |= want.flags;
      ASSERT_EQ(d.read_raw(e), want.bits) << "row " << r << " column " << c;
    }
  EXPECT_EQ(flags, want_flags) << num::name(t) << " op " << static_cast<int>(op) << " alias " << alias;
}

// Random tiles (exact and inexact elements mixed), spans past a chunk, and
// the destination the source.
TEST(TileFastPaths, HostScalarArithmeticRandomTiles) {
  std::mt19937_64 g(31);
  std::uniform_int_distribution<int> small(-64, 64);
  for (DataType t : {DataType::FP32, DataType::FP64})
    for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV})
      for (bool integers : {false, true})
        for (bool alias : {false, true}) {
          const bool f64 = t == DataType::FP64;
          const auto enc = [&](double v) { return f64 ? std::bit_cast<std::uint64_t>(v) : std::uint64_t{f32(static_cast<float>(v))}; };
          Tile s = make_tile(descriptor(t, 128, 40, 125, 128 * 40 * 8));
          fill(s, {}, [&] { return integers ? enc(small(g)) : enc(std::ldexp(static_cast<double>(g() % 1000000), small(g))); });
          const std::uint64_t scalar = integers ? enc(3.0) : enc(0.3);
          SCOPED_TRACE(testing::Message() << "integers " << integers);
          expect_tile_scalar_matches_elements(op, t, s, scalar, alias);
        }
}

// ieee FP16/BF16 TADDS/TSUBS/TMULS/TDIVS through binary32 with the host's
// flags (num::simd::fp16_binary_with_flags, bf16_binary_with_flags): every
// encoding as the tile operand, alone in a one-element tile (the vector
// loop pads it with 1 op 1 lanes), against scalars of every class and the
// boundaries where the host's flags and the exact ones could part (tiny
// quotients, BF16 results near 2^-126, overflow); bits and flags vs
// binary_element.  `stride` samples the encodings (1: all of them).
void check_half_flags_per_element(DataType t, const std::vector<std::uint16_t>& scalars, std::uint32_t stride) {
  Tile s = make_tile(descriptor(t, 16, 1, 1, 32));
  Tile d = make_tile(s.descriptor());
  for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV})
    for (std::uint16_t scalar : scalars)
      for (std::uint32_t x = 0; x < 65536; x += stride) {
        s.write_element(0, 0, x);
        const num::Flags flags = ops::tile_scalar(op, d, s, scalar, PadValue::Null, NumericProfile::Ieee);
        const num::Result want = ops::binary_element(op, t, x, scalar, NumericProfile::Ieee);
        ASSERT_EQ(d.read_raw(0), want.bits) << num::name(t) << " op " << static_cast<int>(op) << std::hex << " 0x" << x
                                            << " scalar 0x" << scalar;
        ASSERT_EQ(flags, want.flags) << num::name(t) << " op " << static_cast<int>(op) << std::hex << " 0x" << x
                                     << " scalar 0x" << scalar;
      }
}

std::vector<std::uint16_t> half_scalars(std::vector<std::uint16_t> v) {
  std::mt19937_64 g(37);
  for (int i = 0; i < 4; ++i) v.push_back(static_cast<std::uint16_t>(g()));
  return v;
}

// The widest tier sees every encoding, narrower ones a sample.
void for_each_tier_sampled(const std::function<void(std::uint32_t)>& body) {
  const num::simd::Tier widest = num::simd::active_tier();
  for_each_tier([&] { body(num::simd::active_tier() == widest ? 1 : 13); });
}

TEST(TileFastPaths, Fp16ScalarArithmeticFlagsPerElement) {
  const std::vector<std::uint16_t> scalars =
      half_scalars({0x0000, 0x8000, 0x0001, 0x8001, 0x03ff, 0x0400, 0x3c00, 0xbc00, 0x3c01, 0x7bff, 0xfbff, 0x7c00,
                    0xfc00, 0x7e00, 0x7d00, 0x3555, 0x0200, 0x1400, 0x5bff, 0x6400, 0x2e66, 0x7000, 0x0c00});
  for_each_tier_sampled([&](std::uint32_t stride) { check_half_flags_per_element(DataType::FP16, scalars, stride); });
}

TEST(TileFastPaths, Bf16ScalarArithmeticFlagsPerElement) {
  const std::vector<std::uint16_t> scalars =
      half_scalars({0x0000, 0x8000, 0x0001, 0x007f, 0x0080, 0x0081, 0x00ff, 0x3f80, 0xbf80, 0x3f81, 0x7f7f, 0xff7f,
                    0x7f80, 0xff80, 0x7fc0, 0x7f81, 0x0100, 0x3f00, 0x4000, 0x1f80, 0x5f7f, 0x3eaa, 0x7f00, 0x4300});
  for_each_tier_sampled([&](std::uint32_t stride) { check_half_flags_per_element(DataType::BF16, scalars, stride); });
}

// Random FP16/BF16 tiles over several chunks, partial rows (runs not a
// multiple of the vector step), specials mixed in, and the destination the
// source: bits of every element and the union of the flags.
TEST(TileFastPaths, HalfScalarArithmeticRandomTiles) {
  std::mt19937_64 g(41);
  for_each_tier([&] {
    for (DataType t : {DataType::FP16, DataType::BF16})
      for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV})
        for (bool alias : {false, true}) {
          Tile s = make_tile(descriptor(t, 128, 100, 125, 128 * 100 * 2));
          const std::uint32_t one = t == DataType::FP16 ? 0x3c00 : 0x3f80;
          fill(s, {0, 0x8000, 1, 0x7c00, 0x7f80, 0x7e01}, [&] { return one + static_cast<std::uint32_t>(g() % 0x1000) - 0x800; });
          const std::uint64_t scalar = t == DataType::FP16 ? 0x34cd : 0x3e9a;  // 0.3
          expect_tile_scalar_matches_elements(op, t, s, scalar, alias);
        }
  });
}

#if defined(__x86_64__)
// The flagged host paths set their own MXCSR (RNE, no DAZ/FTZ, flags clear)
// and give the caller's back: with DAZ and FTZ set, MXCSR's rounding
// control toward zero and a stale PE before the call, subnormal operands
// and results still come out exact, an exact span reports no NX, inexact
// products round to nearest, and MXCSR afterwards is what the caller had.
num::Flags scalar_under_mxcsr(unsigned mxcsr, Binary op, Tile& d, const Tile& s, std::uint64_t scalar) {
  const unsigned before = _mm_getcsr();
  _mm_setcsr(mxcsr);
  const num::Flags flags = ops::tile_scalar(op, d, s, scalar, PadValue::Null, NumericProfile::Ieee);
  const unsigned after = _mm_getcsr();
  _mm_setcsr(before);
  EXPECT_EQ(after, mxcsr);
  return flags;
}

TEST(TileFastPaths, HostFlagsIgnoreAndRestoreCallerMxcsr) {
  const unsigned caller = 0x1F80U | 0x8040U | 0x6000U | 0x20U;  // masked, FTZ + DAZ, toward zero, PE set
  for (DataType t : {DataType::FP32, DataType::FP16, DataType::BF16, DataType::FP64}) {
    const bool f64 = t == DataType::FP64, f32 = t == DataType::FP32, f16 = t == DataType::FP16;
    const std::uint64_t tiny_normal = f64 ? 0x0010000000000000ULL : f32 ? 0x00800000U : f16 ? 0x0400U : 0x0080U;
    const std::uint64_t one = f64 ? 0x3FF0000000000000ULL : f32 ? 0x3F800000U : f16 ? 0x3C00U : 0x3F80U;
    const std::uint64_t third = f64 ? 0x3FD5555555555555ULL : f32 ? 0x3EAAAAABU : f16 ? 0x3555U : 0x3EABU;
    for (Binary op : {Binary::ADD, Binary::MUL, Binary::DIV})
      for (bool exact : {true, false}) {
        SCOPED_TRACE(testing::Message() << num::name(t) << " op " << static_cast<int>(op) << " exact " << exact);
        Tile s = make_tile(descriptor(t, 64, 1, 64, 512));
        for (std::uint32_t c = 0; c < 64; ++c) s.write_element(0, c, c % 2 ? c + 1 : tiny_normal + c);
        // + a subnormal, * 1 and / 1 are exact; * 1/3 and / 1/3 round.
        const std::uint64_t scalar = op == Binary::ADD ? (exact ? 1 : third) : (exact ? one : third);
        Tile d = make_tile(s.descriptor());
        const num::Flags flags = scalar_under_mxcsr(caller, op, d, s, scalar);
        num::Flags want_flags = 0;
        for (std::uint32_t c = 0; c < 64; ++c) {
          const num::Result want = ops::binary_element(op, t, s.read_raw(c), scalar, NumericProfile::Ieee);
          want_flags |= want.flags;
          ASSERT_EQ(d.read_raw(c), want.bits) << "column " << c;
        }
        EXPECT_EQ(want_flags == 0, exact);  // the test's own premise
        EXPECT_EQ(flags, want_flags);
      }
  }
}
#endif

// Reference-profile TCVT between a floating and another type stores the
// source word's low element bits (TileProfileConvert returns the source
// carrier): FP32 0x3f80a0RC -> BF16 0xa0RC (R row, C column), over whole
// rows (one run) and over 5 of 16 columns (a run per row).
TEST(TileFastPaths, ReferenceTcvtTruncatesWholeAndPartialRows) {
  for (const std::uint32_t valid_columns : {16U, 5U}) {
    Tile s = make_tile(descriptor(DataType::FP32, 16, 8, valid_columns, 512));  // 8 x 16 FP32
    Tile d = make_tile(descriptor(DataType::BF16, 16, 8, valid_columns, 256));  // 8 x 16 BF16
    for (std::uint32_t r = 0; r < 8; ++r)
      for (std::uint32_t c = 0; c < valid_columns; ++c) s.write_element(r, c, 0x3f80a000U | r << 4 | c);
    EXPECT_EQ(ops::tile_convert(d, s, num::RoundingMode::RNE, false, PadValue::Null, NumericProfile::Reference), 0);
    for (std::uint32_t r = 0; r < 8; ++r)
      for (std::uint32_t c = 0; c < valid_columns; ++c)
        ASSERT_EQ(d.read_raw(d.linear_index(r, c)), 0xa000U | r << 4 | c) << r << " " << c;
    EXPECT_TRUE(d.contents_defined());
    EXPECT_EQ(d.defined_element_count(), 8 * valid_columns);
  }
}

// ieee TCVT FP16/BF16 -> FP32 (exact widenings through the span
// converters): every 16-bit encoding in two 128 x 256 tiles, whole rows
// (one run) and 250 of 256 columns (a run per row), against
// convert_element bit by bit and the union of its flags (NV from the
// signalling NaNs; a tile of the quiet half alone raises nothing).  The
// mode cannot matter to an exact widening: RNE and RTZ.
TEST(TileFastPaths, IeeeTcvtWideningMatchesConvertElement) {
  for (DataType t : {DataType::FP16, DataType::BF16})
    for (std::uint32_t valid_columns : {256U, 250U})
      for (num::RoundingMode mode : {num::RoundingMode::RNE, num::RoundingMode::RTZ})
        for (std::uint32_t half = 0; half < 2; ++half) {
          SCOPED_TRACE(testing::Message() << num::name(t) << " columns " << valid_columns << " half " << half);
          Tile s = make_tile(descriptor(t, 256, 128, valid_columns, 256 * 128 * 2));
          Tile d = make_tile(descriptor(DataType::FP32, 256, 128, valid_columns, 256 * 128 * 4));
          for (std::uint32_t r = 0; r < 128; ++r)
            for (std::uint32_t c = 0; c < valid_columns; ++c) s.write_element(r, c, half << 15 | r << 8 | c);
          num::Flags want_flags = 0;
          const num::Flags flags = ops::tile_convert(d, s, mode, false, PadValue::Null, NumericProfile::Ieee);
          for (std::uint32_t r = 0; r < 128; ++r)
            for (std::uint32_t c = 0; c < valid_columns; ++c) {
              const std::uint64_t x = half << 15 | r << 8 | c;
              const num::Result want = ops::convert_element(x, t, DataType::FP32, mode, false, NumericProfile::Ieee);
              want_flags |= want.flags;
              ASSERT_EQ(d.read_raw(d.linear_index(r, c)), want.bits) << std::hex << "0x" << x;
            }
          EXPECT_EQ(flags, want_flags);
          EXPECT_EQ(d.defined_element_count(), 128 * valid_columns);
        }
  // Quiet values only (no signalling NaN): no flag.
  for (DataType t : {DataType::FP16, DataType::BF16}) {
    Tile s = make_tile(descriptor(t, 8, 1, 8, 16));
    Tile d = make_tile(descriptor(DataType::FP32, 8, 1, 8, 32));
    const std::vector<std::uint64_t> quiet = t == DataType::FP16
                                                 ? std::vector<std::uint64_t>{0x3c00, 0x7e00, 0xfc00, 0x0001, 0x8000, 0x7bff, 0xfe01, 0x0400}
                                                 : std::vector<std::uint64_t>{0x3f80, 0x7fc0, 0xff80, 0x0001, 0x8000, 0x7f7f, 0xffc1, 0x0080};
    for (std::uint32_t c = 0; c < 8; ++c) s.write_element(0, c, quiet[c]);
    EXPECT_EQ(ops::tile_convert(d, s, num::RoundingMode::RNE, false, PadValue::Null, NumericProfile::Ieee), 0)
        << num::name(t);
  }
}

// ieee TCVT FP32 <-> S32 (the host's conversions with its NX, runs holding
// a NaN or |x| >= 2^31 converted exactly): against convert_element, in every
// tier, FP32 -> S32 toward zero, to nearest even and toward +inf (the exact
// path), S32 -> FP32 to nearest even.  (1) Random tiles mixing the
// boundary values in, whole rows (one run) and 61 of 64 columns (a run per
// row), bits and the union of the flags; (2) each boundary value alone
// among exact values (small integers) in a 32-element run: flags exactly
// the value's.
TEST(TileFastPaths, IeeeTcvtFp32S32MatchesConvertElement) {
  const std::vector<std::uint32_t> fp32_edges = {
      0x00000000, 0x80000000, 0x00000001, 0x807FFFFF, 0x3F000000, 0xBF000000, 0x3FC00000, 0xBFC00000, 0x40200000,
      0x3F800001, 0x4B000001, 0x4EFFFFFF, 0xCEFFFFFF, 0x4F000000, 0xCF000000, 0xCF000001, 0x7F7FFFFF, 0x7F800000,
      0xFF800000, 0x7FC00000, 0x7F800001, 0xFFC00123, 0x3EFFFFFF, 0xBF7FFFFF};
  const std::vector<std::uint32_t> s32_edges = {0,          1,          0xFFFFFFFF, 0x01000000, 0x01000001, 0x01000003,
                                                0x7FFFFFFF, 0x80000000, 0x80000001, 0xFEFFFFFF, 0x7FFFFFC0, 0x7FFFFFBF};
  struct Case {
    DataType source, destination;
    num::RoundingMode mode;
  };
  const std::vector<Case> cases = {{DataType::FP32, DataType::S32, num::RoundingMode::RTZ},
                                   {DataType::FP32, DataType::S32, num::RoundingMode::RNE},
                                   {DataType::FP32, DataType::S32, num::RoundingMode::RTP},
                                   {DataType::S32, DataType::FP32, num::RoundingMode::RNE}};
  const auto want_of = [](const Case& k, std::uint64_t x) {
    return ops::convert_element(x, k.source, k.destination, k.mode, false, NumericProfile::Ieee);
  };
  std::mt19937_64 g(43);
  for_each_tier([&] {
    for (const Case& k : cases) {
      const bool from_float = k.source == DataType::FP32;
      const std::vector<std::uint32_t>& edges = from_float ? fp32_edges : s32_edges;
      const auto draw = [&]() -> std::uint32_t {
        if (g() % 8 == 0) return edges[g() % edges.size()];
        if (!from_float) return static_cast<std::uint32_t>(g());
        // Magnitudes from 2^-3 to 2^32 (in and out of S32 range), both signs.
        const float v = std::ldexp(static_cast<float>(g() % 1000000) / 1000000.0f + 1.0f, static_cast<int>(g() % 36) - 3);
        return std::bit_cast<std::uint32_t>(g() % 2 ? -v : v);
      };
      for (std::uint32_t valid_columns : {64U, 61U}) {
        SCOPED_TRACE(testing::Message() << num::name(k.source) << " -> " << num::name(k.destination) << " mode "
                                        << static_cast<int>(k.mode) << " columns " << valid_columns);
        Tile s = make_tile(descriptor(k.source, 64, 40, valid_columns, 64 * 40 * 4));
        Tile d = make_tile(descriptor(k.destination, 64, 40, valid_columns, 64 * 40 * 4));
        for (std::uint32_t r = 0; r < 40; ++r)
          for (std::uint32_t c = 0; c < valid_columns; ++c) s.write_element(r, c, draw());
        const num::Flags flags = ops::tile_convert(d, s, k.mode, false, PadValue::Null, NumericProfile::Ieee);
        num::Flags want_flags = 0;
        for (std::uint32_t r = 0; r < 40; ++r)
          for (std::uint32_t c = 0; c < valid_columns; ++c) {
            const std::uint64_t x = s.read_raw(s.linear_index(r, c));
            const num::Result want = want_of(k, x);
            want_flags |= want.flags;
            ASSERT_EQ(d.read_raw(d.linear_index(r, c)), want.bits) << std::hex << "0x" << x;
          }
        EXPECT_EQ(flags, want_flags);
      }
      Tile s = make_tile(descriptor(k.source, 32, 1, 32, 128));
      Tile d = make_tile(descriptor(k.destination, 32, 1, 32, 128));
      for (std::size_t at = 0; at < edges.size(); ++at) {
        for (std::uint32_t c = 0; c < 32; ++c) s.write_element(0, c, from_float ? f32(static_cast<float>(c)) : c);
        const std::uint32_t slot = static_cast<std::uint32_t>(at * 7 % 32);
        s.write_element(0, slot, edges[at]);
        const num::Result want = want_of(k, edges[at]);
        ASSERT_EQ(ops::tile_convert(d, s, k.mode, false, PadValue::Null, NumericProfile::Ieee), want.flags)
            << std::hex << "0x" << edges[at] << " mode " << static_cast<int>(k.mode);
        ASSERT_EQ(d.read_raw(slot), want.bits) << std::hex << "0x" << edges[at];
      }
    }
  });
}

// ---- TFMA FP32/FP64, ieee ----

// The element path's TFMA (no tier below Avx512 has the host loop).
num::Flags exact_fma(Tile& d, const Tile& l, const Tile& r, const Tile& a) {
  num::simd::limit_tier(num::simd::Tier::Portable);
  const num::Flags flags = ops::tile_fma(d, l, r, a, PadValue::Null, NumericProfile::Ieee);
  num::simd::limit_tier(num::simd::Tier::Avx512);
  return flags;
}

// Zeros, subnormal and normal boundaries, 1 and its neighbour, the largest
// finite values, infinities, quiet and signalling NaNs, and powers of two
// whose products underflow or overflow.
std::vector<std::uint64_t> fma_edges(DataType t) {
  if (t == DataType::FP16)
    return {0x0000, 0x8000, 0x0001, 0x8001, 0x03FF, 0x0400, 0x3C00, 0xBC00, 0x3C01, 0x7BFF, 0xFBFF,
            0x7C00, 0xFC00, 0x7E00, 0x7D00, 0x2000, 0x5C00, 0x3D56, 0x3A00, 0x5BFF};
  if (t == DataType::BF16)
    return {0x0000, 0x8000, 0x0001, 0x8001, 0x007F, 0x0080, 0x3F80, 0xBF80, 0x3F81, 0x7F7F, 0xFF7F,
            0x7F80, 0xFF80, 0x7FC0, 0x7FA0, 0x1F80, 0x5F80, 0x3F94, 0x3F60, 0x3380};
  if (t == DataType::FP32)
    return {0x00000000, 0x80000000, 0x00000001, 0x80000001, 0x007FFFFF, 0x00800000, 0x3F800000, 0xBF800000,
            0x3F800001, 0x7F7FFFFF, 0xFF7FFFFF, 0x7F800000, 0xFF800000, 0x7FC00000, 0x7FA00000, 0x1F800000,
            0x20000000, 0x9F800000, 0x5F800000};
  return {0x0000000000000000, 0x8000000000000000, 0x0000000000000001, 0x000FFFFFFFFFFFFF, 0x0010000000000000,
          0x3FF0000000000000, 0xBFF0000000000000, 0x3FF0000000000001, 0x7FEFFFFFFFFFFFFF, 0x7FF0000000000000,
          0xFFF0000000000000, 0x7FF8000000000000, 0x7FF4000000000000, 0x1FF0000000000000, 0x5FF0000000000000,
          0x9FF0000000000000};
}

// Random tiles (edges mixed in; exponents spread so products land from
// subnormal to overflow), rows of 61 and of 64 valid columns, the
// destination a fourth tile or each source in turn: every element's bits
// and the union of the flags equal the element path's, in every tier.
TEST(TileFastPaths, IeeeFmaMatchesElementPath) {
  std::mt19937_64 g(47);
  for_each_tier([&] {
    for (DataType t : {DataType::FP32, DataType::FP64, DataType::FP16, DataType::BF16}) {
      const bool wide = t == DataType::FP64, half = element_bits(t) == 16;
      const std::vector<std::uint64_t> edges = fma_edges(t);
      const auto draw = [&]() -> std::uint64_t {
        if (g() % 6 == 0) return edges[g() % edges.size()];
        if (g() % 4 == 0) return wide ? g() : g() & (half ? 0xFFFF : 0xFFFFFFFF);
        if (half) {  // any finite exponent field, random fraction and sign
          const bool bf16 = t == DataType::BF16;
          const std::uint64_t field = 1 + g() % (bf16 ? 254 : 30);
          return (g() & 0x8000) | field << (bf16 ? 7 : 10) | (g() & (bf16 ? 0x7F : 0x3FF));
        }
        const int exponent = static_cast<int>(g() % (wide ? 1400 : 180)) - (wide ? 700 : 90);
        const double v = std::ldexp(1.0 + static_cast<double>(g() % 1000003) / 1000003.0, exponent) * (g() % 2 ? -1 : 1);
        return wide ? std::bit_cast<std::uint64_t>(v) : f32(static_cast<float>(v));
      };
      for (std::uint32_t valid_columns : {61U, 64U})
        for (int alias = 0; alias < 4; ++alias) {
          SCOPED_TRACE(testing::Message() << num::name(t) << " columns " << valid_columns << " alias " << alias);
          const TileDescriptor desc = descriptor(t, 64, 40, valid_columns, 64 * 40 * 8);
          Tile l = make_tile(desc), r = make_tile(desc), a = make_tile(desc), third = make_tile(desc);
          for (Tile* x : {&l, &r, &a})
            for (std::uint32_t row = 0; row < 40; ++row)
              for (std::uint32_t c = 0; c < valid_columns; ++c) x->write_element(row, c, draw());
          Tile want_l = l, want_r = r, want_a = a, want_third = third;
          Tile* sources[] = {&third, &l, &r, &a};
          Tile* want_sources[] = {&want_third, &want_l, &want_r, &want_a};
          const num::Flags want_flags = exact_fma(*want_sources[alias], want_l, want_r, want_a);
          const num::Flags flags = ops::tile_fma(*sources[alias], l, r, a, PadValue::Null, NumericProfile::Ieee);
          EXPECT_EQ(flags, want_flags);
          for (std::uint32_t row = 0; row < 40; ++row)
            for (std::uint32_t c = 0; c < valid_columns; ++c) {
              const std::uint32_t e = desc.columns * row + c;
              ASSERT_EQ(sources[alias]->read_raw(e), want_sources[alias]->read_raw(e))
                  << std::hex << "0x" << want_l.read_raw(e) << " 0x" << want_r.read_raw(e) << " 0x" << want_a.read_raw(e);
            }
        }
    }
  });
}

// Every triple of edges alone among exact elements (1 * 1 + 0) in a
// 32-element row, at a position moving with the triple (vector steps and
// the tail): bits and flags exactly the element path's.
TEST(TileFastPaths, IeeeFmaFlagsPerTriple) {
  for (DataType t : {DataType::FP32, DataType::FP64, DataType::FP16, DataType::BF16}) {
    const std::vector<std::uint64_t> edges = fma_edges(t);
    const std::uint64_t one = num::convert(DataType::FP32, t, 0x3F800000, num::RoundingMode::RNE).bits;
    const TileDescriptor desc = descriptor(t, 32, 1, 29, 32 * 8);
    Tile l = make_tile(desc), r = make_tile(desc), a = make_tile(desc), d = make_tile(desc), want = make_tile(desc);
    for (std::uint32_t c = 0; c < 29; ++c) {
      l.write_element(0, c, one);
      r.write_element(0, c, one);
      a.write_element(0, c, 0);
    }
    std::uint32_t slot = 0;
    for (std::uint64_t x : edges)
      for (std::uint64_t y : edges)
        for (std::uint64_t z : edges) {
          slot = (slot + 7) % 29;
          l.write_element(0, slot, x);
          r.write_element(0, slot, y);
          a.write_element(0, slot, z);
          const num::Flags want_flags = exact_fma(want, l, r, a);
          ASSERT_EQ(ops::tile_fma(d, l, r, a, PadValue::Null, NumericProfile::Ieee), want_flags)
              << num::name(t) << std::hex << " 0x" << x << " 0x" << y << " 0x" << z;
          ASSERT_EQ(d.read_raw(slot), want.read_raw(slot)) << num::name(t) << std::hex << " 0x" << x << " 0x" << y << " 0x" << z;
          l.write_element(0, slot, one);
          r.write_element(0, slot, one);
          a.write_element(0, slot, 0);
        }
  }
}

// FP16/BF16 TFMA through binary32, where the binary32 FMA rounds onto a
// midpoint of the narrow format (hand-derived).  FP16: 0x3D56 (683 2^-9)
// times 0x3A00 (0.75) is 2049 2^-11 = 1 + 2^-11, the midpoint between 1
// and 1 + 2^-10; adding 2^-24 (0x0001) gives a binary32 tie that rounds to
// even, back onto the midpoint, but the exact sum lies above it: 0x3C01,
// and with -2^-24 (0x8001) below it: 0x3C00.  BF16: 0x3F94 (37 2^-5) times
// 0x3F60 (7 2^-3) is 259 2^-8, the midpoint between 1 + 2^-7 and 1 + 2^-6;
// with 2^-24 (0x3380) the result is 0x3F82, with -2^-24 (0xB380) 0x3F81.
// All inexact (NX only).
TEST(TileFastPaths, IeeeFmaHalfDoubleRoundingMidpoints) {
  struct Case {
    DataType type;
    std::uint64_t l, r, a, want;
  };
  for_each_tier([] {
    for (const Case& k : {Case{DataType::FP16, 0x3D56, 0x3A00, 0x0001, 0x3C01}, Case{DataType::FP16, 0x3D56, 0x3A00, 0x8001, 0x3C00},
                          Case{DataType::BF16, 0x3F94, 0x3F60, 0x3380, 0x3F82}, Case{DataType::BF16, 0x3F94, 0x3F60, 0xB380, 0x3F81}}) {
      const TileDescriptor desc = descriptor(k.type, 32, 1, 32, 64);
      Tile l = make_tile(desc), r = make_tile(desc), a = make_tile(desc), d = make_tile(desc);
      for (std::uint32_t c = 0; c < 32; ++c) {  // the case everywhere: vector steps and any tail
        l.write_element(0, c, k.l);
        r.write_element(0, c, k.r);
        a.write_element(0, c, k.a);
      }
      EXPECT_EQ(ops::tile_fma(d, l, r, a, PadValue::Null, NumericProfile::Ieee), num::kNX) << std::hex << k.a;
      for (std::uint32_t c = 0; c < 32; ++c) ASSERT_EQ(d.read_raw(c), k.want) << num::name(k.type) << std::hex << " 0x" << k.a;
    }
  });
}

// Reference-profile TFMA of IEEE-like floats (TileFixedFusedMultiplyAddValue
// with ScalarFPFusedProfile MADD): a signalling NaN, zero times infinity or
// opposite infinities give the canonical NaN with NV, anything else
// l * r + a on the raw carriers, no flags.  Random finite rows (they take
// the carrier loop), and every other row with one triple holding an
// infinity, NaN or zero in one chosen place, so each operand's check alone
// decides its row; 61 of 64 columns, the destination a fourth tile or the
// addend.
TEST(TileFastPaths, ReferenceFmaRowsFollowTheCarrierRule) {
  std::mt19937_64 g(53);
  for (DataType t : {DataType::FP32, DataType::FP16, DataType::BF16, DataType::FP64})
    for (bool in_place : {false, true}) {
      const unsigned bits = element_bits(t);
      const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
      const num::FormatInfo& f = num::format_info(t);
      const std::uint64_t inf = ((std::uint64_t{1} << f.exp_bits) - 1) << f.frac_bits;
      const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
      const std::uint64_t one = num::convert(DataType::FP32, t, 0x3F800000, num::RoundingMode::RNE).bits;
      const std::uint64_t snan = inf | 1, qnan = inf | (std::uint64_t{1} << (f.frac_bits - 1));
      const std::vector<std::array<std::uint64_t, 3>> triples = {
          {inf, 0, one},    {0, inf | sign, one}, {one, sign, inf},  {inf, one, inf | sign}, {one, inf, inf | sign},
          {snan, one, 0},   {one, snan, 0},       {one, one, snan},  {qnan, one, 0},         {one, qnan, 0},
          {one, one, qnan}, {inf, one, inf},      {one, one, inf | sign}};
      const TileDescriptor desc = descriptor(t, 64, 26, 61, 64 * 26 * 8);
      Tile l = make_tile(desc), r = make_tile(desc), a = make_tile(desc), third = make_tile(desc);
      for (std::uint32_t row = 0; row < 26; ++row)
        for (std::uint32_t c = 0; c < 61; ++c)
          for (Tile* x : {&l, &r, &a}) x->write_element(row, c, (g() & mask & ~inf) | (g() % 3 ? 0 : inf / 2));
      for (std::uint32_t k = 0; k < triples.size(); ++k) {
        const std::uint32_t row = 2 * k, c = (7 * k) % 61;
        l.write_element(row, c, triples[k][0]);
        r.write_element(row, c, triples[k][1]);
        a.write_element(row, c, triples[k][2]);
      }
      const Tile want_l = l, want_r = r, want_a = a;
      Tile& d = in_place ? a : third;
      const num::Flags flags = ops::tile_fma(d, l, r, a, PadValue::Null, NumericProfile::Reference);
      num::Flags want_flags = 0;
      for (std::uint32_t row = 0; row < 26; ++row)
        for (std::uint32_t c = 0; c < 61; ++c) {
          const std::uint32_t e = 64 * row + c;
          const std::uint64_t x = want_l.read_raw(e), y = want_r.read_raw(e), z = want_a.read_raw(e);
          using C = num::ValueClass;
          const C cx = num::classify(t, x), cy = num::classify(t, y), cz = num::classify(t, z);
          const bool snan = cx == C::SignalingNaN || cy == C::SignalingNaN || cz == C::SignalingNaN;
          const bool zero_inf = (num::is_zero(cx) && num::is_inf(cy)) || (num::is_inf(cx) && num::is_zero(cy));
          const bool product_inf = num::is_inf(cx) || num::is_inf(cy);
          const bool product_negative = ((x ^ y) & sign) != 0;
          const bool opposite = product_inf && num::is_inf(cz) && product_negative != ((z & sign) != 0);
          const bool invalid = snan || zero_inf || opposite;
          want_flags |= invalid ? num::kNV : 0;
          const std::uint64_t want = invalid ? num::canonical_nan(t).bits : (x * y + z) & mask;
          ASSERT_EQ(d.read_raw(e), want) << num::name(t) << std::hex << " 0x" << x << " 0x" << y << " 0x" << z;
        }
      EXPECT_EQ(flags, want_flags) << num::name(t);
    }
}

// ---- FP16 and BF16 arithmetic through binary32 ----

// One binary32 operation on widened operands followed by one RNE narrowing
// is the correctly rounded FP16/BF16 result (docs/numerics.md, fast paths);
// the span must equal the exact operation for every right operand (zeros of
// both signs, subnormals, infinities, NaNs with payloads, halfway sums) and
// a sample of left operands: `edges` plus random encodings.  The
// destination is a third tile (one vector-loop call for the whole span) or
// the left source (chunks through a buffer).
void check_every_right_operand(DataType t, std::vector<std::uint16_t> lefts) {
  std::mt19937_64 g(29);
  while (lefts.size() < 24) lefts.push_back(static_cast<std::uint16_t>(g()));
  Tile left = make_tile(descriptor(t, 256, 128, 256));
  Tile right = make_tile(left.descriptor());
  Tile third = make_tile(left.descriptor());
  for (bool alias : {false, true})
    for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV})
      for (std::uint16_t a : lefts)
        for (std::uint32_t half = 0; half < 2; ++half) {
          Tile& out = alias ? left : third;
          std::uint16_t* l = left.row_data<std::uint16_t>(0);
          std::uint16_t* r = right.row_data<std::uint16_t>(0);
          for (std::uint32_t i = 0; i < 32768; ++i) {
            l[i] = a;
            r[i] = static_cast<std::uint16_t>(half * 32768 + i);
          }
          left.mark_valid_region_defined();
          right.mark_valid_region_defined();
          ASSERT_TRUE(span_binary(op, out, left, right, NumericProfile::Ieee));
          for (std::uint32_t i = 0; i < 32768; ++i) {
            const std::uint64_t b = half * 32768 + i;
            const std::uint64_t want = ops::binary_element(op, t, a, b, NumericProfile::Ieee).bits;
            ASSERT_EQ(out.read_raw(i), want) << "op " << static_cast<int>(op) << " alias " << alias << " 0x" << std::hex
                                             << a << " 0x" << b;
          }
        }
}

TEST(TileFastPaths, Fp16ThroughBinary32IsCorrectlyRounded) {
  for_each_tier([] {
    check_every_right_operand(DataType::FP16, {0x0000, 0x8000, 0x0001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0x7d00,
                                               0x3c00, 0x3c01, 0xbc01, 0x3bff, 0x1400, 0x0200, 0x5bff});
  });
}

// BF16 shares the binary32 exponent range: the left operands include the
// subnormal and overflow boundaries (results recomputed exactly), 1 + ulp
// (halfway sums with 2^-8 multiples) and NaNs with payloads.
TEST(TileFastPaths, Bf16ThroughBinary32IsCorrectlyRounded) {
  for_each_tier([] {
    check_every_right_operand(DataType::BF16, {0x0000, 0x8000, 0x0001, 0x007f, 0x0080, 0x0081, 0x8080, 0x7f7f, 0xff7f,
                                               0x7f80, 0xff80, 0x7fc1, 0x7f81, 0x3f80, 0x3f81, 0xbf81, 0x3f7f, 0x1f80,
                                               0x5f7f, 0x2000});
  });
}

// ---- TMAX/TMIN ----

// Operands drawn from the type's special encodings (zeros, smallest and
// largest subnormals and normals, infinities, quiet and signalling NaNs
// with payloads, both signs) or at random, so equal keys, -0 against +0
// and NaN pairs all occur; 61 of 64 columns valid (a run per row, tails
// shorter than every vector width), destination separate or the left
// source.
void check_min_max(DataType t, NumericProfile p, bool alias) {
  const unsigned bits = element_bits(t);
  const num::FormatInfo& f = num::format_info(t);
  const std::uint64_t inf = ((std::uint64_t{1} << f.exp_bits) - 1) << f.frac_bits;
  const std::uint64_t sign = std::uint64_t{1} << (bits - 1);
  const std::uint64_t quiet = std::uint64_t{1} << (f.frac_bits - 1);
  const std::vector<std::uint64_t> specials = {0, 1, quiet - 1, std::uint64_t{1} << f.frac_bits, inf - 1, inf,
                                               inf | quiet, inf | 1, inf | quiet | 5, 0x3};
  std::mt19937_64 g(41 + bits);
  const std::uint64_t mask = bits == 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << bits) - 1;
  const auto draw = [&] {
    const std::uint64_t v = g() % 3 ? specials[g() % specials.size()] : g() & mask;
    return g() % 2 ? v ^ sign : v;
  };
  const TileDescriptor d = descriptor(t, 64, 40, 61);
  Tile left = make_tile(d), right = make_tile(d), out = make_tile(d);
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      left.write_element(r, c, draw());
      right.write_element(r, c, draw());
    }
  for (Binary op : {Binary::MAX, Binary::MIN}) {
    Tile copy = left;
    Tile& destination = alias ? copy : out;
    ASSERT_TRUE(span_binary(op, destination, copy, right, p));
    for (std::uint32_t r = 0; r < d.valid_rows; ++r)
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
        const std::uint32_t e = left.linear_index(r, c);
        const std::uint64_t a = left.read_raw(e), b = right.read_raw(e);
        ASSERT_EQ(destination.read_raw(e), ops::binary_element(op, t, a, b, p).bits)
            << (op == Binary::MAX ? "MAX" : "MIN") << " 0x" << std::hex << a << " 0x" << b;
      }
  }
}

TEST(TileFastPaths, MinMaxMatchesElementSemantics) {
  for_each_tier([] {
    for (DataType t : {DataType::FP16, DataType::BF16, DataType::FP32, DataType::FP64})
      for (NumericProfile p : {NumericProfile::Reference, NumericProfile::Ieee})
        for (bool alias : {false, true}) check_min_max(t, p, alias);
  });
}

// ---- F16C conversion spans ----

// In every tier: all codes in one span (NaNs present), the non-NaN codes
// alone (the AVX-512 loop keeps its vector results), quiet NaNs only, and
// one signalling NaN at each position of a 45-element span (a 32-element
// step and a tail): bits as num::convert, NV exactly when a sNaN is there.
TEST(F16cSpans, WidenEveryFp16Code) {
  const auto check = [](const std::vector<std::uint16_t>& in, num::Flags want_flags) {
    std::vector<std::uint32_t> out(in.size());
    EXPECT_EQ(num::convert_span(in, out), want_flags);
    for (std::size_t i = 0; i < in.size(); ++i)
      ASSERT_EQ(out[i], num::convert(DataType::FP16, DataType::FP32, in[i], num::RoundingMode::RNE).bits)
          << std::hex << "0x" << in[i];
  };
  for_each_tier([&] {
    std::vector<std::uint16_t> every(65536 + 5), not_nan;
    for (std::size_t i = 0; i < every.size(); ++i) {
      every[i] = static_cast<std::uint16_t>(i);
      if ((every[i] & 0x7FFFU) <= 0x7C00U) not_nan.push_back(every[i]);
    }
    check(every, num::kNV);  // the sNaN codes
    check(not_nan, 0);
    std::vector<std::uint16_t> quiet(40);
    for (std::size_t i = 0; i < quiet.size(); ++i) quiet[i] = static_cast<std::uint16_t>((i % 2 ? 0x7E00 : 0xFE00) + i);
    check(quiet, 0);
    for (std::size_t at = 0; at < 45; ++at) {
      std::vector<std::uint16_t> one(45, 0x3C01);
      one[at] = 0x7D00;  // signalling: quiet bit clear, payload nonzero
      check(one, num::kNV);
    }
  });
  RecordProperty("f16c", num::f16c::available() ? "yes" : "no");
}

// binary_via_fp32 takes sixteen (AVX2) or thirty-two (AVX-512) elements a
// step and the rest (here thirteen) in the lane loop; a NaN result in either
// half of a step, or in the tail, is reported.  1.0 + 2.0 = 3.0: 0x3c00 + 0x4000 = 0x4200; 1.5 * 2.0 = 0x4200.
TEST(F16cSpans, BinaryStepsReportNaNInEitherHalfAndTail) {
  for_each_tier([] {
    for (const std::size_t nan_at : {std::size_t{99}, std::size_t{3}, std::size_t{9}, std::size_t{18}, std::size_t{40}}) {
      std::vector<std::uint16_t> a(45, 0x3c00), b(45, 0x4000), out(45);
      if (nan_at < a.size()) a[nan_at] = 0x7e00;
      EXPECT_EQ(num::f16c::binary_via_fp32(num::f16c::Op::ADD, a.data(), b.data(), out.data(), a.size()),
                nan_at < a.size())
          << nan_at;
      for (std::size_t i = 0; i < out.size(); ++i) {
        if (i != nan_at) {
          ASSERT_EQ(out[i], 0x4200U) << nan_at << " " << i;
        } else {
          EXPECT_EQ(out[i] & 0x7c00U, 0x7c00U) << nan_at;  // some NaN encoding
        }
      }
    }
    std::vector<std::uint16_t> a(32, 0x3e00), b(32, 0x4000), out(32);
    EXPECT_FALSE(num::f16c::binary_via_fp32(num::f16c::Op::MUL, a.data(), b.data(), out.data(), a.size()));
    for (std::uint16_t v : out) ASSERT_EQ(v, 0x4200U);
  });
}

// Every FP16 value's binary32 image, the midpoints to its neighbours and
// one binary32 ulp either side, both signs, plus random encodings; values
// checked one by one, flags per aligned group of eight (the vector width).
TEST(F16cSpans, NarrowAroundEveryRoundingBoundary) {
  std::vector<std::uint32_t> in;
  for (std::uint32_t h = 0; h < 0x7c00; ++h) {
    const std::uint32_t lo = static_cast<std::uint32_t>(num::convert(DataType::FP16, DataType::FP32, h, num::RoundingMode::RNE).bits);
    const std::uint32_t hi = static_cast<std::uint32_t>(num::convert(DataType::FP16, DataType::FP32, h + 1, num::RoundingMode::RNE).bits);
    const std::uint32_t mid = f32((std::bit_cast<float>(lo) + std::bit_cast<float>(hi)) / 2);  // exact
    for (std::uint32_t v : {lo, mid - 1, mid, mid + 1}) {
      in.push_back(v);
      in.push_back(v | 0x80000000U);
    }
  }
  std::mt19937_64 g(31);
  for (int i = 0; i < 200000; ++i) in.push_back(static_cast<std::uint32_t>(g()));
  for (std::uint32_t v : {0x7f800000U, 0xff800000U, 0x7fc00000U, 0x7f800001U, 0xffa00000U, 0x477fefffU, 0x477ff000U,
                          0x387fefffU, 0x387ff000U, 0x33000000U, 0x33000001U, 0x7f7fffffU})
    in.push_back(v);
  in.resize(in.size() + 8 - in.size() % 8 + 3);  // a tail shorter than the vector width
  const auto expected = [](std::uint32_t v) { return num::convert(DataType::FP32, DataType::FP16, v, num::RoundingMode::RNE); };
  for_each_tier([&] {
    std::vector<std::uint16_t> out(in.size());
    num::Flags all = 0;
    for (std::uint32_t v : in) all |= expected(v).flags;
    EXPECT_EQ(num::convert_span_to_fp16(in, out), all);
    for (std::size_t i = 0; i < in.size(); ++i) ASSERT_EQ(out[i], expected(in[i]).bits) << "0x" << std::hex << in[i];
    for (std::size_t i = 0; i + 8 <= in.size(); i += 8) {
      num::Flags want = 0;
      for (std::size_t k = i; k < i + 8; ++k) want |= expected(in[k]).flags;
      std::array<std::uint16_t, 8> group{};
      ASSERT_EQ(num::convert_span_to_fp16(std::span<const std::uint32_t>(in.data() + i, 8), group), want)
          << "group at " << i << " first 0x" << std::hex << in[i];
    }
    // Each value among exact ones (1.0) in a 32-element span, at position
    // i % 32: whole vector steps (16 lanes in the AVX-512 loop), whose
    // flags must be exactly the value's.
    std::array<std::uint32_t, 32> span;
    std::array<std::uint16_t, 32> narrowed;
    for (std::size_t i = 0; i < in.size(); ++i) {
      span.fill(0x3F800000U);
      span[i % 32] = in[i];
      const num::Result want = expected(in[i]);
      ASSERT_EQ(num::convert_span_to_fp16(span, narrowed), want.flags) << "0x" << std::hex << in[i];
      ASSERT_EQ(narrowed[i % 32], want.bits) << "0x" << std::hex << in[i];
    }
  });
}

// FP32 -> BF16 RNE spans (the common-case chunks and the chunks redone by
// the lane converter): values one by one, flags per span, for spans of
// common values alone and with one value at or across each flag boundary.
TEST(Bf16NarrowSpan, MatchesScalarEncoder) {
  for_each_tier([] {
    std::mt19937_64 g(37);
    std::uniform_real_distribution<float> v(-1e30f, 1e30f);
    const std::vector<std::uint32_t> edges = {0x007fc000, 0x007fbfff, 0x807fc000, 0x007f8000, 0x00000001, 0x80000000,
                                              0,          0x7f7f8000, 0x7f7f7fff, 0xff7f8000, 0x7f7fffff, 0x7f800000,
                                              0xff800000, 0x7fc00000, 0x7f800001, 0xffa00001, 0x3f808000, 0x3f818000,
                                              0x00800000, 0x0080ffff, 0x00ff8000, 0x01000000, 0x007fffff, 0x80807fff,
                                              0x7f7f7fff, 0x7effffff, 0x7f000000, 0xfe800000};
    for (std::uint32_t edge : edges)
      for (std::size_t length : {1U, 15U, 16U, 17U, 255U, 256U, 700U, 1024U, 1025U, 2100U}) {
        std::vector<std::uint32_t> in(length);
        for (auto& x : in) x = g() % 4 ? f32(v(g)) : f32(static_cast<float>(g() % 1000));
        in[g() % length] = edge;
        std::vector<std::uint16_t> out(length);
        num::Flags want = 0;
        for (std::uint32_t x : in) want |= num::convert(DataType::FP32, DataType::BF16, x, num::RoundingMode::RNE).flags;
        ASSERT_EQ(num::convert_span_to_bf16(in, out), want) << "edge 0x" << std::hex << edge << " length " << length;
        for (std::size_t i = 0; i < length; ++i)
          ASSERT_EQ(out[i], num::convert(DataType::FP32, DataType::BF16, in[i], num::RoundingMode::RNE).bits)
              << "0x" << std::hex << in[i];
      }
    std::vector<std::uint32_t> exact(300);
    for (std::size_t i = 0; i < exact.size(); ++i) exact[i] = f32(static_cast<float>(i));  // exact up to 256
    std::vector<std::uint16_t> out(exact.size());
    num::Flags want = 0;
    for (std::uint32_t x : exact) want |= num::convert(DataType::FP32, DataType::BF16, x, num::RoundingMode::RNE).flags;
    EXPECT_EQ(num::convert_span_to_bf16(exact, out), want);
    EXPECT_EQ(num::convert_span_to_bf16(std::span<const std::uint32_t>(exact.data(), 200), out), 0);  // 0..199 exact
  });
}

// FP32 -> BF16 RNE spans over many narrowing blocks (num::simd::kNarrowBlock
// elements, kNarrowBlocks a call): each value at its place in a span of
// exact values (integers below 256), so the span's flags are exactly the
// placed values' (convert(), hand-checked encodings): a NaN whose low half
// is nonzero must not add NX (its block is redone exactly), an inexact
// value in the second call's blocks adds NX, a tiny value in the short last
// block UF and NX.  Every output against convert().
TEST(Bf16NarrowSpan, BlocksAreSummarisedApart) {
  constexpr std::size_t block = num::simd::kNarrowBlock;
  const std::size_t length = (num::simd::kNarrowBlocks + 6) * block + 5;
  struct Placed {
    std::size_t at;
    std::uint32_t value;
  };
  struct Case {
    std::vector<Placed> placed;
    num::Flags flags;  // hand-derived
  };
  const std::vector<Case> cases = {
      {{}, 0},
      {{{3 * block + 7, 0x7f800001U}}, num::kNV},  // sNaN: NV only
      {{{3 * block + 7, 0x7f800001U}, {66 * block + 1, 0x3f808001U}}, num::kNV | num::kNX},  // NX, second call
      {{{length - 2, 0x007fbfffU}}, num::kUF | num::kNX},  // tiny (0x7F.BFFF x 2^-133), short last block
      // 0x7f7f.8000: a tie above the largest odd BF16, to infinity; 0x3f81.8000 a tie to 0x3f82; a zero.
      {{{block - 1, 0x7f7f8000U}, {block, 0x3f818000U}, {2 * block, 0U}}, num::kOF | num::kNX}};
  for_each_tier([&] {
    for (const auto& [placed, flags] : cases) {
      std::vector<std::uint32_t> in(length);
      for (std::size_t i = 0; i < length; ++i) in[i] = f32(static_cast<float>(i % 256));
      for (const Placed& p : placed) in[p.at] = p.value;
      num::Flags want = 0;
      for (const Placed& p : placed)
        want |= num::convert(DataType::FP32, DataType::BF16, p.value, num::RoundingMode::RNE).flags;
      ASSERT_EQ(want, flags) << placed.size() << " placed";
      std::vector<std::uint16_t> out(length);
      ASSERT_EQ(num::convert_span_to_bf16(in, out), want) << placed.size() << " placed";
      for (std::size_t i = 0; i < length; ++i)
        ASSERT_EQ(out[i], num::convert(DataType::FP32, DataType::BF16, in[i], num::RoundingMode::RNE).bits) << i;
    }
  });
}

}  // namespace
}  // namespace pto::tile::test
