// Irregular-and-complex operations: TPARTADD/MUL/MAX/MIN
// (asl/tile/model/execution/complex.asl ExecuteTilePartial,
// asl/tile/model/legality/{indexed-layout,allocation-capacity}.asl,
// asl/block/model/dispatch/partial-schema.asl).
#include "tile/ops_elementwise.hpp"
#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {
namespace {

// TilePartialDataTypeSupported.
bool partial_type(DataType t) noexcept {
  switch (t) {
    case DataType::FP32: case DataType::FP16: case DataType::BF16: case DataType::S32: case DataType::S16:
    case DataType::S8: case DataType::U32: case DataType::U16: case DataType::U8: return true;
    default: return false;
  }
}

// The loop's ValidRow/ValidCol (LB1 default one, LB0).
std::uint32_t loop_valid_rows(const arch::BlockState& b) {
  return b.dimension_present[1] ? static_cast<std::uint32_t>(b.dimensions[1]) : 1;
}
std::uint32_t loop_valid_columns(const arch::BlockState& b) { return static_cast<std::uint32_t>(b.dimensions[0]); }

// SelectedBundleClosedPartialSchemaLegal, bundle part: two Local sources,
// one destination, no B.IOR/B.IOS/B.DATR, terminated stream, legal loop.
bool partial_bundle_legal(const arch::BlockState& b) {
  const BindingTally tally = tally_tile_bindings(b);
  if (tally.sources != 2 || tally.destinations != 1 || !tally.destinations_fresh || shared_binding_count(b) != 0 ||
      b.scalar_bindings[0].valid || b.data_attributes_present || !tally.terminated || !dimension_positive(b, 0))
    return false;
  for (unsigned i = 1; i < 3; ++i)
    if (b.dimension_present[i] && !dimension_positive(b, i)) return false;
  if (b.dimension_present[2] && b.dimensions[2] < b.dimensions[0]) return false;
  const auto t = operation_data_type(b);
  return t && partial_type(*t);
}

// Source valid region nonempty and within rows x columns.
bool partial_within(const TileDescriptor& s, std::uint32_t rows, std::uint32_t columns) {
  return s.valid_rows >= 1 && s.valid_columns >= 1 && s.valid_rows <= rows && s.valid_columns <= columns;
}

// SelectedBundleClosedPartialSchemaLegal: the two sources (binding order,
// BundlePartialSourceAt) are checked against the loop before allocation,
// one of them covering it.
bool partial_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  const TileFile& f = v.tiles;
  if (!partial_bundle_legal(b)) return false;
  const DataType t = *operation_data_type(b);
  std::array<TileIndex, 2> sources{};
  unsigned n = 0;
  for (const arch::BundleTileBinding& binding : b.tile_bindings) {
    if (!binding.valid) continue;
    if (binding.source0_valid && n < 2) sources[n++] = binding.source0;
    if (binding.source1_valid && n < 2) sources[n++] = binding.source1;
  }
  const std::uint32_t vr = loop_valid_rows(b), vc = loop_valid_columns(b);
  bool covered = false;
  for (TileIndex s : sources) {
    if (!numeric_row_major(f, s) || f.tile(s).data_type() != t || !partial_within(f.tile(s).descriptor(), vr, vc) ||
        !f.source_contents_defined(s))
      return false;
    covered = covered || (f.tile(s).descriptor().valid_rows == vr && f.tile(s).descriptor().valid_columns == vc);
  }
  return covered && (!num::is_float(t) || (source_encodings_valid(f, sources[0]) && source_encodings_valid(f, sources[1])));
}

// TileOperandsLegal_ExecuteTilePartial.
bool partial_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], l = o.source[0], r = o.source[1];
  if (!f.descriptor_legal(d) || !numeric_row_major(f, l) || !numeric_row_major(f, r)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& ld = f.tile(l).descriptor();
  const TileDescriptor& rd = f.tile(r).descriptor();
  const auto covers = [&](const TileDescriptor& s) { return s.valid_rows == dd.valid_rows && s.valid_columns == dd.valid_columns; };
  // TilePartialCoverageLegal: with both anchored at the origin, every
  // destination element is covered exactly when one source covers it all
  // or the two valid rectangles tile it.
  bool covered = true;
  for (std::uint32_t row = 0; row < dd.valid_rows && covered; ++row)
    for (std::uint32_t col = 0; col < dd.valid_columns && covered; ++col)
      covered = (row < ld.valid_rows && col < ld.valid_columns) || (row < rd.valid_rows && col < rd.valid_columns);
  if (!partial_within(ld, dd.valid_rows, dd.valid_columns) ||
      !partial_within(rd, dd.valid_rows, dd.valid_columns) || !covered || !(covers(ld) || covers(rd)))
    return false;
  const DataType t = dd.data_type;
  if (!partial_type(t) || ld.data_type != t || rd.data_type != t || dd.layout != TileLayout::RowMajor ||
      !f.source_contents_defined(l) || !f.source_contents_defined(r))
    return false;
  return !num::is_float(t) || (source_encodings_valid(f, l) && source_encodings_valid(f, r));
}

template <Binary Op>
TileResult partial_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const Tile& l0 = c.tiles.tile(c.operands.source[0]);
  const Tile& r0 = c.tiles.tile(c.operands.source[1]);
  const Tile lcopy = &l0 == &d ? l0 : Tile{}, rcopy = &r0 == &d ? r0 : Tile{};
  const Tile& l = &l0 == &d ? lcopy : l0;
  const Tile& r = &r0 == &d ? rcopy : r0;
  const TileDescriptor& dd = d.descriptor();
  const TileDescriptor& ld = l.descriptor();
  const TileDescriptor& rd = r.descriptor();
  const DataType t = dd.data_type;
  num::Flags flags = 0;  // ExecuteTilePartial records them
  for (std::uint32_t row = 0; row < dd.valid_rows; ++row)
    for (std::uint32_t col = 0; col < dd.valid_columns; ++col) {
      const bool lv = row < ld.valid_rows && col < ld.valid_columns;
      const bool rv = row < rd.valid_rows && col < rd.valid_columns;
      std::uint64_t value = 0;
      if (lv && rv) {
        const num::Result v = binary_element(Op, t, l.read_raw(l.linear_index(row, col)),
                                             r.read_raw(r.linear_index(row, col)), c.profile);
        value = v.bits;
        flags |= v.flags;
      } else {
        const Tile& s = lv ? l : r;
        value = s.read_raw(s.linear_index(row, col));
      }
      d.store_raw(d.linear_index(row, col), value);
    }
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count(), flags);
}

template <Binary Op>
constexpr TileKernel partial_kernel() {
  return {partial_schema, nullptr, false, partial_operands, partial_execute<Op>};
}

}  // namespace

void register_irregular_kernels(TileKernelTable& t) {
  using isa::TileOp;
  t.set(TileOp::TPARTADD, partial_kernel<Binary::ADD>());
  t.set(TileOp::TPARTMUL, partial_kernel<Binary::MUL>());
  t.set(TileOp::TPARTMAX, partial_kernel<Binary::MAX>());
  t.set(TileOp::TPARTMIN, partial_kernel<Binary::MIN>());
}

}  // namespace pto::tile::ops
