// TileKernel entries of the reduce-and-expand class: schema
// (asl/block/model/dispatch/{reduction,expansion}-schema.asl), destination
// shape (destination-shape.asl), operand legality
// (asl/tile/model/legality/reduction-and-expansion.asl) and semantics
// (ops_reduce.hpp).
#include "tile/ops_kernels.hpp"
#include "tile/ops_reduce.hpp"

namespace pto::tile::ops {
namespace {

// ---- ExecuteTileReduction ----

bool returns_index(Reduction op) noexcept { return op == Reduction::ARGMAX || op == Reduction::ARGMIN; }

// SelectedBundleClosedReductionSchemaLegal, source included (before allocation).
bool reduction_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  const auto t = operation_data_type(b);
  return single_binding_schema(b, true, false) && !b.scalar_bindings[0].valid && t &&
         vec_arithmetic_data_type_supported(*t) && bundle_source_legal(v.tiles, b.tile_bindings[0].source0, *t, b);
}

// The destination takes the reduced source shape and U32 (index
// reductions) or the source type.
template <Reduction Op, TileAxis Axis>
DestinationPlan reduction_destinations(const arch::BlockState& b, const TileFile& f) {
  const TileIndex s = b.tile_bindings[0].source0;
  const TileDescriptor& sd = f.tile(s).descriptor();
  DestinationPlan p;
  p.explicit_shape = true;
  p.valid_rows = Axis == TileAxis::Row ? sd.valid_rows : 1;
  p.valid_columns = Axis == TileAxis::Row ? 1 : sd.valid_columns;
  p.columns = Axis == TileAxis::Row ? 1 : sd.columns;
  p.primary_type = returns_index(Op) ? DataType::U32 : sd.data_type;
  return p;
}

// TileOperandsLegal_ExecuteTileReduction.
template <Reduction Op, TileAxis Axis>
bool reduction_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (d == s || !numeric_row_major(f, d) || !numeric_row_major(f, s) || !f.source_contents_defined(s)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  const bool type_legal = returns_index(Op) ? a9_type(sd.data_type) : vec_arithmetic_data_type_supported(sd.data_type);
  if (sd.valid_rows == 0 || sd.valid_columns == 0 || !type_legal || !source_encodings_valid(f, s)) return false;
  if (returns_index(Op) ? (dd.data_type != DataType::S32 && dd.data_type != DataType::U32) : dd.data_type != sd.data_type)
    return false;
  if (Axis == TileAxis::Row)
    return dd.rows >= sd.valid_rows && dd.columns == 1 && dd.valid_rows == sd.valid_rows && dd.valid_columns == 1;
  return dd.rows >= 1 && dd.columns == sd.columns && dd.valid_rows == 1 && dd.valid_columns == sd.valid_columns;
}

template <Reduction Op, TileAxis Axis>
TileResult reduction_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const num::Flags flags = tile_reduce(Op, Axis, d, c.tiles.tile(c.operands.source[0]), c.pad_value, c.profile);
  return TileResult::written(d.valid_element_count(), flags);  // RecordNumericStatusFlags
}

template <Reduction Op, TileAxis Axis>
constexpr TileKernel reduction_kernel() {
  return {reduction_schema, reduction_destinations<Op, Axis>, false, reduction_operands<Op, Axis>,
          reduction_execute<Op, Axis>};
}

// ---- ExecuteTileExpand ----

// TileExpandExpdifTypePairLegal.
bool expdif_pair_legal(DataType s, DataType d) noexcept {
  return (s == DataType::FP16 && (d == DataType::FP16 || d == DataType::FP32)) ||
         (s == DataType::BF16 && (d == DataType::BF16 || d == DataType::FP32)) ||
         (s == DataType::FP32 && d == DataType::FP32);
}

// SelectedBundleExpansionExponentialDifferenceTypes: source from BSTART,
// destination from a concrete B.DATR DataType (DTYPE_NONE keeps the source).
struct ExpandTypes {
  bool legal = false;
  DataType source = DataType::FP64, destination = DataType::FP64;
};

template <Expand Op>
ExpandTypes expand_types(const arch::BlockState& b) {
  const auto s = operation_data_type(b);
  if (!s) return {};
  if (Op != Expand::EXPDIF) return {vec_arithmetic_data_type_supported(*s), *s, *s};
  DataType d = *s;
  if (b.data_attributes_present && b.data_attributes.data_type != num::kDataTypeNoneCode) {
    const auto explicit_type = num::data_type_from_code(b.data_attributes.data_type);
    if (!explicit_type) return {};
    d = *explicit_type;
  }
  return {expdif_pair_legal(*s, d), *s, d};
}


// Broadcast shape against the loop dimensions (SelectedBundleExpansionBroadcastShapeMatches).
template <TileAxis Axis>
bool broadcast_matches_bundle(const arch::BlockState& b, const TileDescriptor& t) {
  const auto valid_columns = static_cast<std::uint32_t>(b.dimensions[0]);
  const std::uint32_t valid_rows = b.dimension_present[1] ? static_cast<std::uint32_t>(b.dimensions[1]) : 1;
  const std::uint32_t columns = b.dimension_present[2] ? static_cast<std::uint32_t>(b.dimensions[2]) : valid_columns;
  if (Axis == TileAxis::Row) return t.valid_rows == valid_rows && t.valid_columns == 1 && t.columns == 1;
  return t.valid_rows == 1 && t.valid_columns == valid_columns && t.columns == columns;
}

// TileBroadcastPayloadNonzero over the broadcast elements the loop reads.
template <TileAxis Axis>
bool broadcast_nonzero(const Tile& source, const Tile& broadcast) {
  const TileDescriptor& sd = source.descriptor();
  const std::uint32_t n = Axis == TileAxis::Row ? sd.valid_rows : sd.valid_columns;
  for (std::uint32_t i = 0; i < n; ++i)
    if (broadcast.read_raw(Axis == TileAxis::Row ? broadcast.linear_index(i, 0) : broadcast.linear_index(0, i)) == 0)
      return false;
  return true;
}

// SelectedBundleClosedExpansionSchemaLegal, sources included (before
// allocation): the broadcast with its own shape rule, then (non-copy) the
// loop-shaped source and the integer DIV nonzero broadcast.
template <Expand Op, TileAxis Axis>
bool expand_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  const TileFile& f = v.tiles;
  const bool copy = Op == Expand::COPY;
  const ExpandTypes types = expand_types<Op>(b);
  if (!single_binding_schema(b, true, !copy) || b.scalar_bindings[0].valid || !types.legal) return false;
  const arch::BundleTileBinding& binding = b.tile_bindings[0];
  const TileIndex broadcast = copy ? binding.source0 : binding.source1;
  if (!numeric_row_major(f, broadcast) || f.tile(broadcast).data_type() != types.source ||
      !source_encodings_valid(f, broadcast) || !broadcast_matches_bundle<Axis>(b, f.tile(broadcast).descriptor()))
    return false;
  if (copy) return true;
  const TileIndex s = binding.source0;
  return bundle_source_legal(f, s, types.source, b) &&
         (Op != Expand::DIV || !num::is_integer(types.destination) || broadcast_nonzero<Axis>(f.tile(s), f.tile(broadcast)));
}

// The closed-loop destination shape with the EXPDIF destination type.
template <Expand Op, TileAxis Axis>
DestinationPlan expand_destinations(const arch::BlockState& b, const TileFile& f) {
  const ExpandTypes types = expand_types<Op>(b);
  DestinationPlan p = closed_loop_destinations(b, f);
  if (Op == Expand::EXPDIF) p.primary_type = types.destination;
  return p;
}

// TileOperandsLegal_ExecuteTileExpand.  COPY binds one source that is both
// the source and the broadcast.
template <Expand Op, TileAxis Axis>
bool expand_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0], bc = Op == Expand::COPY ? o.source[0] : o.source[1];
  if (!numeric_row_major(f, d) || !numeric_row_major(f, s) || !numeric_row_major(f, bc)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  const TileDescriptor& bd = f.tile(bc).descriptor();
  const bool expdif = Op == Expand::EXPDIF;
  const bool type_legal = expdif ? expdif_pair_legal(sd.data_type, dd.data_type)
                                 : vec_arithmetic_data_type_supported(dd.data_type);
  if (dd.valid_rows == 0 || dd.valid_columns == 0 || !type_legal ||
      bd.data_type != (expdif ? sd.data_type : dd.data_type) || !f.source_contents_defined(bc) ||
      (Op != Expand::COPY && !source_encodings_valid(f, bc)))
    return false;
  if (Op != Expand::COPY) {
    const bool shape = expdif ? logical_shape_match(f, d, s) : same_shape_and_type(f, d, s);
    if (!shape || !f.source_contents_defined(s) || !source_encodings_valid(f, s)) return false;
  }
  const bool broadcast_shape = Axis == TileAxis::Row
                                   ? bd.valid_rows == dd.valid_rows && bd.valid_columns == 1 && bd.columns == 1
                                   : bd.valid_rows == 1 && bd.valid_columns == dd.valid_columns && bd.columns == dd.columns;
  if (!broadcast_shape) return false;
  if (Op == Expand::DIV && num::is_integer(dd.data_type)) return broadcast_nonzero<Axis>(f.tile(s), f.tile(bc));
  return true;
}

template <Expand Op, TileAxis Axis>
TileResult expand_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const Tile& s = c.tiles.tile(c.operands.source[0]);
  const Tile& bc = c.tiles.tile(Op == Expand::COPY ? c.operands.source[0] : c.operands.source[1]);
  const num::Flags flags = tile_expand(Op, Axis, d, s, bc, c.pad_value, c.profile);
  return TileResult::written(d.valid_element_count(), flags);  // RecordNumericStatusFlags
}

template <Expand Op, TileAxis Axis>
constexpr TileKernel expand_kernel() {
  return {expand_schema<Op, Axis>, expand_destinations<Op, Axis>, false, expand_operands<Op, Axis>, expand_execute<Op, Axis>};
}

}  // namespace

void register_reduce_kernels(TileKernelTable& t) {
  using isa::TileOp;
  constexpr TileAxis R = TileAxis::Row, C = TileAxis::Column;
  t.set(TileOp::TROWSUM, reduction_kernel<Reduction::SUM, R>());
  t.set(TileOp::TROWPROD, reduction_kernel<Reduction::PRODUCT, R>());
  t.set(TileOp::TROWMAX, reduction_kernel<Reduction::MAX, R>());
  t.set(TileOp::TROWMIN, reduction_kernel<Reduction::MIN, R>());
  t.set(TileOp::TROWARGMAX, reduction_kernel<Reduction::ARGMAX, R>());
  t.set(TileOp::TROWARGMIN, reduction_kernel<Reduction::ARGMIN, R>());
  t.set(TileOp::TCOLSUM, reduction_kernel<Reduction::SUM, C>());
  t.set(TileOp::TCOLPROD, reduction_kernel<Reduction::PRODUCT, C>());
  t.set(TileOp::TCOLMAX, reduction_kernel<Reduction::MAX, C>());
  t.set(TileOp::TCOLMIN, reduction_kernel<Reduction::MIN, C>());
  t.set(TileOp::TCOLARGMAX, reduction_kernel<Reduction::ARGMAX, C>());
  t.set(TileOp::TCOLARGMIN, reduction_kernel<Reduction::ARGMIN, C>());
  t.set(TileOp::TROWEXPAND, expand_kernel<Expand::COPY, R>());
  t.set(TileOp::TROWEXPANDADD, expand_kernel<Expand::ADD, R>());
  t.set(TileOp::TROWEXPANDSUB, expand_kernel<Expand::SUB, R>());
  t.set(TileOp::TROWEXPANDMUL, expand_kernel<Expand::MUL, R>());
  t.set(TileOp::TROWEXPANDDIV, expand_kernel<Expand::DIV, R>());
  t.set(TileOp::TROWEXPANDMAX, expand_kernel<Expand::MAX, R>());
  t.set(TileOp::TROWEXPANDMIN, expand_kernel<Expand::MIN, R>());
  t.set(TileOp::TROWEXPANDEXPDIF, expand_kernel<Expand::EXPDIF, R>());
  t.set(TileOp::TCOLEXPAND, expand_kernel<Expand::COPY, C>());
  t.set(TileOp::TCOLEXPANDADD, expand_kernel<Expand::ADD, C>());
  t.set(TileOp::TCOLEXPANDSUB, expand_kernel<Expand::SUB, C>());
  t.set(TileOp::TCOLEXPANDMUL, expand_kernel<Expand::MUL, C>());
  t.set(TileOp::TCOLEXPANDDIV, expand_kernel<Expand::DIV, C>());
  t.set(TileOp::TCOLEXPANDMAX, expand_kernel<Expand::MAX, C>());
  t.set(TileOp::TCOLEXPANDMIN, expand_kernel<Expand::MIN, C>());
  t.set(TileOp::TCOLEXPANDEXPDIF, expand_kernel<Expand::EXPDIF, C>());
}

}  // namespace pto::tile::ops
