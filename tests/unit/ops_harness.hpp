// Test harness for the VEC/SFU kernels: a private TileKernelTable filled by
// register_vec_sfu_tile_kernels, a TileFile and a bundle whose loop shape
// and data type the closed schemas read.  Kernels are driven through their
// TileKernel entries exactly as the generic commit path calls them.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <cstdint>
#include <initializer_list>

#include "tile/ops_registry.hpp"
#include "tile/tile_ops.hpp"
#include "tile_request.hpp"

namespace pto::tile::test {

// Host binary16 reference, written out by hand (clang 14 has no _Float16 on
// x86): exact decode, and round-to-nearest-even encode of a float.
inline float host_fp16_to_float(std::uint16_t h) {
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  const int exp = (h >> 10) & 0x1F;
  const int mant = h & 0x3FF;
  if (exp == 0x1F) return mant ? std::numeric_limits<float>::quiet_NaN() : sign * INFINITY;
  if (exp == 0) return sign * std::ldexp(static_cast<float>(mant), -24);
  return sign * std::ldexp(static_cast<float>(1024 + mant), exp - 25);
}

inline std::uint16_t host_float_to_fp16(float f) {
  const std::uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isnan(f)) return 0x7E00;
  const double a = std::fabs(static_cast<double>(f));
  if (a >= 65520.0) return sign | 0x7C00;  // rounds to infinity
  if (a < std::ldexp(1.0, -14)) {          // subnormal range, quantum 2^-24
    return sign | static_cast<std::uint16_t>(std::nearbyint(a * std::ldexp(1.0, 24)));
  }
  int x = 0;
  (void)std::frexp(a, &x);  // a = m * 2^x, m in [0.5, 1)
  int e = x - 1;
  double q = std::nearbyint(std::ldexp(a, 10 - e));  // in [1024, 2048]
  if (q == 2048.0) {
    q = 1024.0;
    ++e;
  }
  if (e + 15 >= 31) return sign | 0x7C00;
  return sign | static_cast<std::uint16_t>(((e + 15) << 10) | (static_cast<int>(q) - 1024));
}

struct OpsHarness {
  TileFile tiles;
  TileKernelTable table;
  arch::BlockState bundle;
  std::array<std::byte, 64> storage{};
  FlatTileMemory memory{storage};

  OpsHarness() { register_vec_sfu_tile_kernels(table); }

  // What a kernel's closed schema reads (step 5): the bundle, the tiles and
  // the B.IOR scalar / flag0 values.
  SchemaView schema_view(std::uint64_t scalar_raw = 0, bool descending = false) const {
    return {bundle, tiles, scalar_raw, descending};
  }

  // ConfigureTile in the points' argument order (capacity, columns,
  // valid_rows, valid_columns, type), on the one PE configure() uses.
  void configure_tile(TileIndex i, std::uint32_t capacity, std::uint32_t columns, std::uint32_t valid_rows,
                      std::uint32_t valid_columns, DataType t) {
    configure(i, t, columns, valid_rows, valid_columns, capacity);
  }
  // ConfigureTile(index, capacity, columns, ..., valid_rows, valid_columns, type).
  void configure(TileIndex i, DataType t, std::uint32_t columns, std::uint32_t valid_rows,
                 std::uint32_t valid_columns, std::uint32_t capacity = 128, TileLayout layout = TileLayout::RowMajor,
                 TileLocation location = TileLocation::Any) {
    // One PE: TILE_CAPACITY covers several 32 KiB tiles.
    const ConfigureRequest r = tile_request(capacity, columns, valid_rows, valid_columns, t, 0b1000, layout, location);
    ASSERT_EQ(tiles.configure(i, r), FaultCode::Fault_None) << "tile " << unsigned{i};
  }

  // ConfigurePredicateTile(index, capacity, rows, columns, valid_rows,
  // valid_columns) (asl/tile/model/state/allocation.asl), on every PE.
  void configure_predicate(TileIndex i, std::uint32_t capacity, std::uint32_t rows, std::uint32_t columns,
                           std::uint32_t valid_rows, std::uint32_t valid_columns) {
    tiles.configure_predicate(i, capacity, rows, columns, valid_rows, valid_columns, 0b1111);
  }
  // WriteTilePredicateBit.
  void set_predicate_bit(TileIndex i, std::uint32_t row, std::uint32_t column, bool value) {
    write_predicate_bit(tiles.tile(i), row, column, value);
  }
  // ReadTilePredicateByte / TilePredicateBitDefined.
  unsigned predicate_byte(TileIndex i, std::uint32_t n) const {
    return static_cast<unsigned>(tiles.tile(i).payload()[n]);
  }
  bool predicate_bit_defined(TileIndex i, std::uint32_t row, std::uint32_t column) const {
    const Tile& t = tiles.tile(i);
    return t.element_defined(row * t.descriptor().columns + column);
  }
  void set(TileIndex i, std::uint32_t row, std::uint32_t column, std::uint64_t v) {
    tiles.tile(i).write_element(row, column, v);
  }
  // Writes every valid element, row-major, from `values` (cycled).
  void fill(TileIndex i, std::initializer_list<std::uint64_t> values) {
    const TileDescriptor& d = tiles.tile(i).descriptor();
    auto it = values.begin();
    for (std::uint32_t r = 0; r < d.valid_rows; ++r)
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
        set(i, r, c, *it);
        if (++it == values.end()) it = values.begin();
      }
  }
  std::uint64_t raw(TileIndex i, std::uint32_t row, std::uint32_t column) const {
    const Tile& t = tiles.tile(i);
    return t.read_raw(t.linear_index(row, column));
  }
  // ReadTileElement: signed integer types sign-extend.
  std::uint64_t word(TileIndex i, std::uint32_t row, std::uint32_t column) const {
    const Tile& t = tiles.tile(i);
    return t.read_word(t.linear_index(row, column));
  }

  // The loop shape B.DIM LB0=ValidCol, LB1=ValidRow, LB2=Col and BSTART DataType.
  void loop(DataType t, std::uint32_t valid_columns, std::uint32_t valid_rows, std::uint32_t columns) {
    bundle.operation.data_type_valid = true;
    bundle.operation.data_type = num::code_of(t);
    bundle.dimensions[0] = valid_columns;
    bundle.dimensions[1] = valid_rows;
    bundle.dimensions[2] = columns;
    bundle.dimension_present[0] = bundle.dimension_present[1] = bundle.dimension_present[2] = true;
  }

  static TileOperands operands(TileIndex destination, std::initializer_list<TileIndex> sources,
                               std::uint64_t scalar = 0) {
    TileOperands o;
    o.destination[0] = destination;
    unsigned n = 0;
    for (TileIndex s : sources) o.source[n++] = s;
    o.scalar0 = scalar;
    return o;
  }

  bool legal(isa::TileOp op, const TileOperands& o) const {
    const TileKernel* k = table.get(op);
    return k != nullptr && k->operands_legal(tiles, o, bundle);
  }

  // operands_legal then execute, as steps 10 and 11 of the commit path.
  bool run(isa::TileOp op, const TileOperands& o, NumericProfile profile = NumericProfile::Reference,
           PadValue pad = PadValue::Null) {
    const TileKernel* k = table.get(op);
    if (k == nullptr) {
      ADD_FAILURE() << "no kernel for op " << static_cast<unsigned>(op);
      return false;
    }
    if (!k->operands_legal(tiles, o, bundle)) return false;
    TileExecutionContext c{tiles, memory, bundle, o, pad, false, profile};
    const TileResult r = k->execute(c);
    EXPECT_TRUE(r.ok());
    last_flags = r.flags;
    return r.ok();
  }
  num::Flags last_flags = 0;  // TileResult::flags of the last run
};

}  // namespace pto::tile::test
