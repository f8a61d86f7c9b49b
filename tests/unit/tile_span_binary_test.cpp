// The span fast paths of ExecuteTileBinary (tile_elementwise.hpp) against
// the per-element semantics ops::binary_element, element by element: random
// and special encodings (zeros, subnormals, infinities, quiet and signalling
// NaNs, overflow and underflow operands), full and partial valid regions, and
// a destination that is one of the sources.  Every (op, type, profile) with a
// fast path is covered; the expected value of each element is
// binary_element on the original operands, which the spec's
// TileProfileBinaryWithFlags defines.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "tile/ops_elementwise.hpp"
#include "tile/tile_elementwise.hpp"

namespace pto::tile::test {
namespace {

using ops::Binary;

// Encodings every float test includes, per width (low bits of the carrier).
std::vector<std::uint64_t> specials(DataType t) {
  switch (t) {
    case DataType::FP32:
      return {0, 0x80000000, 1, 0x807fffff, 0x00800000, 0x7f7fffff, 0xff7fffff, 0x7f800000, 0xff800000,
              0x7fc00000, 0x7f800001, 0xffc12345, 0x3f800000, 0xbf800000, 0x33800000, 0x4b800001};
    case DataType::FP64:
      return {0, 0x8000000000000000ULL, 1, 0x7fefffffffffffffULL, 0x7ff0000000000000ULL, 0xfff0000000000000ULL,
              0x7ff8000000000000ULL, 0x7ff0000000000001ULL, 0x3ff0000000000000ULL, 0x0010000000000000ULL};
    case DataType::FP16:
      return {0, 0x8000, 1, 0x83ff, 0x0400, 0x7bff, 0xfbff, 0x7c00, 0xfc00, 0x7e00, 0x7c01, 0xfd55, 0x3c00, 0x0001};
    case DataType::BF16:
      return {0, 0x8000, 1, 0x807f, 0x0080, 0x7f7f, 0xff7f, 0x7f80, 0xff80, 0x7fc0, 0x7f81, 0xffa0, 0x3f80, 0x0081};
    default:
      return {0, 1, 0x7f, 0x80, 0xff};
  }
}

struct Case {
  Binary op;
  DataType type;
  NumericProfile profile;
};

class SpanBinary : public ::testing::TestWithParam<Case> {};

// Fills a tile's valid region: every pair of specials appears in the first
// rows, random carriers (and random specials) after them.
void fill(Tile& t, std::mt19937_64& g, const std::vector<std::uint64_t>& s, bool right) {
  const TileDescriptor& d = t.descriptor();
  const std::uint64_t mask = element_bits(d.data_type) == 64 ? ~0ULL : (1ULL << element_bits(d.data_type)) - 1;
  std::uint64_t i = 0;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c, ++i) {
      std::uint64_t v = g() & mask;
      if (i < s.size() * s.size()) v = right ? s[i % s.size()] : s[i / s.size()];
      else if (g() % 8 == 0) v = s[g() % s.size()];
      t.write_element(r, c, v);
    }
}

TileDescriptor descriptor(DataType t, std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t valid_columns) {
  TileDescriptor d;
  d.allocated = true;
  d.capacity_bytes = 65536;
  d.columns = columns;
  d.rows = derived_tile_rows(d.capacity_bytes, columns, t);
  d.valid_rows = valid_rows;
  d.valid_columns = valid_columns;
  d.data_type = t;
  return d;
}

void check(const Case& k, std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t valid_columns,
           int alias) {
  std::mt19937_64 g(static_cast<std::uint64_t>(k.op) * 131 + static_cast<std::uint64_t>(k.type) * 7 + columns);
  const TileDescriptor d = descriptor(k.type, columns, valid_rows, valid_columns);
  Tile left, right, out;
  left.configure(d);
  right.configure(d);
  out.configure(d);
  fill(left, g, specials(k.type), false);
  fill(right, g, specials(k.type), true);
  const Tile left0 = left, right0 = right;
  Tile& destination = alias == 0 ? out : alias == 1 ? left : right;
  ASSERT_TRUE(span_binary(k.op, destination, left, right, k.profile));
  for (std::uint32_t r = 0; r < valid_rows; ++r)
    for (std::uint32_t c = 0; c < valid_columns; ++c) {
      const std::uint32_t e = left0.linear_index(r, c);
      const std::uint64_t a = left0.read_raw(e), b = right0.read_raw(e);
      const std::uint64_t want = ops::binary_element(k.op, k.type, a, b, k.profile).bits;
      ASSERT_EQ(destination.read_raw(e), want) << "row " << r << " column " << c << " operands 0x" << std::hex << a
                                               << " 0x" << b << " alias " << alias;
    }
}

TEST_P(SpanBinary, MatchesElementSemantics) {
  const Case k = GetParam();
  for (int alias = 0; alias < 3; ++alias) {
    check(k, 64, 40, 64, alias);    // one contiguous run (several chunks)
    check(k, 64, 9, 37, alias);     // partial rows
    check(k, 1024, 3, 1000, alias);  // rows longer than a chunk
  }
}

std::vector<Case> cases() {
  std::vector<Case> out;
  for (NumericProfile p : {NumericProfile::Reference, NumericProfile::Ieee}) {
    for (DataType t : {DataType::FP32, DataType::FP64, DataType::FP16, DataType::BF16}) {
      for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL, Binary::MAX, Binary::MIN}) out.push_back({op, t, p});
      if (p == NumericProfile::Ieee) out.push_back({Binary::DIV, t, p});
    }
    for (DataType t : {DataType::U8, DataType::S16, DataType::U32, DataType::S64})
      for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL}) out.push_back({op, t, p});
  }
  for (DataType t : {DataType::E4M3, DataType::TF32})  // raw carrier arithmetic of the reference profile
    for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL}) out.push_back({op, t, NumericProfile::Reference});
  return out;
}

INSTANTIATE_TEST_SUITE_P(AllFastPaths, SpanBinary, ::testing::ValuesIn(cases()));

// Operations and types without a fast path are left to the element semantics.
TEST(SpanBinaryScope, DeclinesOtherOperationsWithoutEffect) {
  const TileDescriptor d = descriptor(DataType::FP32, 8, 1, 8);
  Tile left, right, out;
  left.configure(d);
  right.configure(d);
  out.configure(d);
  for (std::uint32_t c = 0; c < 8; ++c) {
    left.write_element(0, c, 0x3f800000);
    right.write_element(0, c, 0x40000000);
  }
  EXPECT_FALSE(span_binary(Binary::REM, out, left, right, NumericProfile::Ieee));
  EXPECT_FALSE(span_binary(Binary::DIV, out, left, right, NumericProfile::Reference));
  for (std::uint32_t c = 0; c < 8; ++c) EXPECT_EQ(out.read_raw(c), 0U);  // a fresh payload reads zero
  const TileDescriptor e = descriptor(DataType::E4M3, 8, 1, 8);
  Tile l8, r8, o8;
  l8.configure(e);
  r8.configure(e);
  o8.configure(e);
  EXPECT_FALSE(span_binary(Binary::MAX, o8, l8, r8, NumericProfile::Ieee));
  EXPECT_FALSE(span_binary(Binary::ADD, o8, l8, r8, NumericProfile::Ieee));
}

}  // namespace
}  // namespace pto::tile::test
