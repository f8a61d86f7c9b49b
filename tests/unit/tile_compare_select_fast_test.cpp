// Differential tests of the compare/select span fast paths (ops_compare.cpp
// over num::simd::compare_bits / select_bits) against the exact per-element
// semantics, in every vector tier the host has:
//  - TCMP/TCMPS (ops::tile_compare): every predicate bit against
//    ops::compare_element (TileCompareElement: integer order, reference
//    TileProfileFloatingCompare or the ieee quiet compare), the OR of its
//    flags (NV for a signalling NaN), padding bits and definedness
//    (PredicateTileWithPadding), and the payload bits past Row x Col kept;
//    every compare type, all six comparisons, both profiles, tile-tile and
//    tile-scalar, aligned and unaligned row offsets, spans past a chunk;
//  - TSEL/TSELS (ops::tile_select): every element the exact carrier the
//    predicate bit selects (ExecuteTileSelect), also with the destination
//    one of the sources.
#include <gtest/gtest.h>

#include <array>
#include <random>
#if defined(__x86_64__)
#include <xmmintrin.h>
#endif
#include <vector>

#include "numerics/format.hpp"
#include "simd_tiers.hpp"
#include "tile/ops_compare.hpp"
#include "tile/tile_elementwise.hpp"

namespace pto::tile::test {
namespace {

using pto::test::for_each_tier;

constexpr std::array kComparisons = {TileComparison::EQ, TileComparison::NE, TileComparison::LT,
                                     TileComparison::GT, TileComparison::LE, TileComparison::GE};

// TileCompareDataTypeSupported (= TileVecArithmeticDataTypeSupported).
constexpr std::array kCompareTypes = {DataType::FP64, DataType::FP32, DataType::TF32, DataType::HF32,
                                      DataType::FP16, DataType::BF16, DataType::E4M3, DataType::E5M2,
                                      DataType::S64,  DataType::S32,  DataType::S16,  DataType::S8,
                                      DataType::U64,  DataType::U32,  DataType::U16,  DataType::U8};

struct Shape {
  std::uint32_t rows, columns, valid_rows, valid_columns;
};
// Full rows (one run, byte-aligned words), partial rows at odd bit offsets,
// rows longer than a word, and a run longer than the 4096-element chunk.
constexpr std::array kShapes = {Shape{40, 64, 40, 64}, Shape{9, 13, 7, 11}, Shape{3, 200, 3, 199},
                                Shape{5, 3, 2, 1}, Shape{70, 64, 70, 64}};

TileDescriptor numeric(DataType t, const Shape& s) {
  TileDescriptor d;
  d.allocated = true;
  d.capacity_bytes = s.rows * s.columns * element_bits(t) / 8;
  d.rows = s.rows;
  d.columns = s.columns;
  d.valid_rows = s.valid_rows;
  d.valid_columns = s.valid_columns;
  d.data_type = t;
  return d;
}

TileDescriptor predicate_of(const Shape& s) {
  TileDescriptor d = numeric(DataType::U8, s);
  // Definedness is tracked per U8 element of the capacity, so the capacity
  // covers Row x Col elements (bytes past the packed grid stay untouched).
  d.capacity_bytes = s.rows * s.columns + 3;
  d.storage_kind = TileStorageKind::Predicate;
  return d;
}

Tile make_tile(const TileDescriptor& d) {
  Tile t;
  t.configure(d);
  return t;
}

std::uint64_t width_mask(DataType t) {
  return element_bits(t) == 64 ? ~0ULL : (std::uint64_t{1} << element_bits(t)) - 1;
}

// The special encodings of a floating type (zeros, smallest subnormal,
// largest finite, infinities, quiet and signalling NaNs) that are valid
// encodings, or the integer extremes.
std::vector<std::uint64_t> specials(DataType t) {
  const std::uint64_t mask = width_mask(t), sign = (mask >> 1) + 1;
  std::vector<std::uint64_t> out;
  const auto add_signed = [&](std::uint64_t v) {
    if (num::encoding_valid(t, v)) out.push_back(v);
    if (num::encoding_valid(t, v | sign)) out.push_back(v | sign);
  };
  if (!num::is_float(t)) {
    for (std::uint64_t v : {std::uint64_t{0}, std::uint64_t{1}, mask, sign, sign - 1, sign + 1}) out.push_back(v);
    return out;
  }
  const num::FormatInfo& f = num::format_info(t);
  const std::uint64_t ulp = std::uint64_t{1} << f.low_zero_bits;
  const std::uint64_t inf = ((std::uint64_t{1} << f.exp_bits) - 1) << (f.frac_bits + f.low_zero_bits);
  for (std::uint64_t v : {std::uint64_t{0}, ulp, f.max_finite, inf, inf + ulp, inf | (inf >> 1), f.canonical_nan,
                          (inf | (inf >> 1)) - ulp})
    add_signed(v);
  return out;
}

// A valid encoding of t: a special, the other operand, a neighbour of it,
// or random bits (rejection-sampled to valid encodings).
std::uint64_t draw(DataType t, const std::vector<std::uint64_t>& s, std::mt19937_64& g, std::uint64_t other) {
  const std::uint64_t mask = width_mask(t);
  const std::uint64_t ulp = std::uint64_t{1} << (num::is_float(t) ? num::format_info(t).low_zero_bits : 0);
  for (;;) {
    std::uint64_t v = 0;
    switch (g() % 6) {
      case 0: v = s[g() % s.size()]; break;
      case 1: v = other; break;
      case 2: v = (other + (g() % 2 ? ulp : mask * ulp)) & mask; break;
      case 3: v = (other ^ ((mask >> 1) + 1)); break;  // the other sign
      default: v = g() & mask;
    }
    if (!num::is_float(t) || num::encoding_valid(t, v)) return v;
  }
}

// Predicate payload expected after the compare: the valid region's exact
// bits, padding bits (one for Max) over the rest of Row x Col, and every
// bit past the grid as it was.
void check_compare(DataType t, const Shape& shape, TileComparison cmp, NumericProfile profile, bool scalar_form,
                   PadValue pad, std::mt19937_64& g) {
  Tile left = make_tile(numeric(t, shape)), right = make_tile(numeric(t, shape));
  const std::vector<std::uint64_t> s = specials(t);
  const std::uint64_t scalar = draw(t, s, g, 0);
  for (std::uint32_t r = 0; r < shape.valid_rows; ++r)
    for (std::uint32_t c = 0; c < shape.valid_columns; ++c) {
      const std::uint64_t l = draw(t, s, g, scalar);
      left.write_element(r, c, l);
      right.write_element(r, c, draw(t, s, g, l));
    }
  Tile predicate = make_tile(predicate_of(shape));
  for (std::byte& b : predicate.payload()) b = static_cast<std::byte>(g());
  std::vector<std::byte> want(predicate.payload().begin(), predicate.payload().end());
  num::Flags want_flags = 0;
  const auto set_bit = [&](std::uint32_t i, bool v) {
    const auto bit = static_cast<std::byte>(1U << (i % 8));
    want[i / 8] = v ? (want[i / 8] | bit) : (want[i / 8] & ~bit);
  };
  for (std::uint32_t r = 0; r < shape.rows; ++r)
    for (std::uint32_t c = 0; c < shape.columns; ++c) {
      const std::uint32_t i = r * shape.columns + c;
      if (r >= shape.valid_rows || c >= shape.valid_columns) {
        set_bit(i, pad == PadValue::Max);
        continue;
      }
      const ops::CompareOutcome o = ops::compare_element(cmp, t, left.read_raw(i), scalar_form ? scalar : right.read_raw(i), profile);
      set_bit(i, o.value);
      want_flags |= o.flags;
    }
  const num::Flags flags =
      ops::tile_compare(cmp, predicate, left, scalar_form ? nullptr : &right, scalar, pad, profile);
  EXPECT_EQ(flags, want_flags);
  for (std::size_t i = 0; i < want.size(); ++i)
    ASSERT_EQ(static_cast<unsigned>(predicate.payload()[i]), static_cast<unsigned>(want[i])) << "payload byte " << i;
  for (std::uint32_t r = 0; r < shape.rows; ++r)
    for (std::uint32_t c = 0; c < shape.columns; ++c) {
      const bool valid = r < shape.valid_rows && c < shape.valid_columns;
      ASSERT_EQ(predicate.element_defined(r * shape.columns + c), valid || pad != PadValue::Null)
          << "row " << r << " column " << c;
    }
}

TEST(TileCompareFastPath, EveryTypeComparisonProfileAndShapeMatchesElementSemantics) {
  for_each_tier([] {
    std::mt19937_64 g(21);
    for (DataType t : kCompareTypes)
      for (const Shape& shape : kShapes)
        for (TileComparison cmp : kComparisons)
          for (NumericProfile profile : {NumericProfile::Reference, NumericProfile::Ieee})
            for (bool scalar_form : {false, true}) {
              SCOPED_TRACE(testing::Message() << num::name(t) << " " << shape.valid_rows << "x" << shape.valid_columns
                                              << " of " << shape.rows << "x" << shape.columns << " cmp "
                                              << static_cast<int>(cmp) << " ieee " << (profile == NumericProfile::Ieee)
                                              << " scalar " << scalar_form);
              const auto pad = static_cast<PadValue>(g() % 4);
              check_compare(t, shape, cmp, profile, scalar_form, pad, g);
              if (testing::Test::HasFatalFailure()) return;
            }
  });
}

#if defined(__x86_64__)
// With MXCSR.DAZ set the host's compares would see subnormals as zero: the
// binary32/binary64 loops then compare integer keys instead.
TEST(TileCompareFastPath, DenormalsAreZeroHostStillComparesSubnormals) {
  struct RestoreCsr {
    unsigned csr = _mm_getcsr();
    ~RestoreCsr() { _mm_setcsr(csr); }
  } restore;
  _mm_setcsr(restore.csr | 0x0040U);  // DAZ
  for_each_tier([] {
    std::mt19937_64 g(40);
    for (DataType t : {DataType::FP32, DataType::TF32, DataType::FP64})
      for (TileComparison cmp : kComparisons)
        for (bool scalar_form : {false, true}) {
          SCOPED_TRACE(testing::Message() << num::name(t) << " cmp " << static_cast<int>(cmp) << " scalar " << scalar_form);
          check_compare(t, kShapes[1], cmp, NumericProfile::Ieee, scalar_form, PadValue::Null, g);
          check_compare(t, kShapes[0], cmp, NumericProfile::Reference, scalar_form, PadValue::Max, g);
          if (testing::Test::HasFatalFailure()) return;
        }
  });
}
#endif

// A NaN scalar makes every pair unordered; a signalling one raises NV once.
TEST(TileCompareFastPath, NaNScalarAndNaNFreeTilesRaiseOnlyTheirFlags) {
  for_each_tier([] {
    const Shape shape{16, 64, 16, 64};
    for (std::uint64_t scalar : {std::uint64_t{0x7FC00000}, std::uint64_t{0x7F800001}, std::uint64_t{0x3F800000}}) {
      Tile left = make_tile(numeric(DataType::FP32, shape)), predicate = make_tile(predicate_of(shape));
      for (std::uint32_t i = 0; i < 16 * 64; ++i) left.write_element(i / 64, i % 64, 0x3F800000U + (i % 3));
      for (TileComparison cmp : kComparisons) {
        const num::Flags flags =
            ops::tile_compare(cmp, predicate, left, nullptr, scalar, PadValue::Zero, NumericProfile::Ieee);
        EXPECT_EQ(flags, scalar == 0x7F800001 ? num::kNV : num::Flags{0});
        for (std::uint32_t i = 0; i < 16 * 64; ++i) {
          const bool want = ops::compare_element(cmp, DataType::FP32, 0x3F800000U + (i % 3), scalar,
                                                 NumericProfile::Ieee).value;
          ASSERT_EQ(ops::predicate_bit(predicate, i / 64, i % 64), want) << i;
        }
      }
    }
  });
}

void check_select(DataType t, const Shape& shape, bool scalar_form, int alias, std::mt19937_64& g) {
  const std::uint64_t mask = width_mask(t);
  Tile on_true = make_tile(numeric(t, shape)), on_false = make_tile(numeric(t, shape));
  Tile predicate = make_tile(predicate_of(shape));
  for (std::uint32_t r = 0; r < shape.valid_rows; ++r)
    for (std::uint32_t c = 0; c < shape.valid_columns; ++c) {
      on_true.write_element(r, c, g() & mask);
      on_false.write_element(r, c, g() & mask);
    }
  for (std::byte& b : predicate.payload()) b = static_cast<std::byte>(g());
  const std::uint64_t scalar = g();
  const Tile true_copy = on_true, false_copy = on_false;
  Tile out = make_tile(numeric(t, shape));
  Tile& destination = alias == 1 ? on_true : alias == 2 ? on_false : out;
  ops::tile_select(destination, predicate, on_true, scalar_form ? nullptr : &on_false, scalar, PadValue::Zero);
  for (std::uint32_t r = 0; r < shape.valid_rows; ++r)
    for (std::uint32_t c = 0; c < shape.valid_columns; ++c) {
      const std::uint32_t i = r * shape.columns + c;
      const bool take = (static_cast<unsigned>(predicate.payload()[i / 8]) >> (i % 8)) & 1U;
      const std::uint64_t want = take ? true_copy.read_raw(i) : scalar_form ? (scalar & mask) : false_copy.read_raw(i);
      ASSERT_EQ(destination.read_raw(i), want) << "row " << r << " column " << c;
    }
}

TEST(TileSelectFastPath, EveryWidthShapeAndAliasMatchesElementSemantics) {
  for_each_tier([] {
    std::mt19937_64 g(26);
    for (DataType t : {DataType::U8, DataType::FP16, DataType::FP32, DataType::S64})
      for (const Shape& shape : kShapes)
        for (bool scalar_form : {false, true})
          for (int alias = 0; alias < (scalar_form ? 2 : 3); ++alias) {
            SCOPED_TRACE(testing::Message() << num::name(t) << " " << shape.valid_rows << "x" << shape.valid_columns
                                            << " scalar " << scalar_form << " alias " << alias);
            check_select(t, shape, scalar_form, alias, g);
            if (testing::Test::HasFatalFailure()) return;
          }
  });
}

}  // namespace
}  // namespace pto::tile::test
