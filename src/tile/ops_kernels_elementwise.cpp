// TileKernel entries of the elementwise tile-tile and tile-scalar classes:
// schema (asl/block/model/dispatch/{tile,tile-scalar}-schema.asl), operand
// legality (asl/tile/model/legality/operand-schema.asl, indexed-layout.asl)
// and the semantic step (ops_elementwise.hpp).
#include "tile/ops_elementwise.hpp"
#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {
namespace {

const Tile& src(const TileExecutionContext& c, unsigned i) { return c.tiles.tile(c.operands.source[i]); }
Tile& dst(TileExecutionContext& c) { return c.tiles.tile(c.operands.destination[0]); }

bool operation_type_is(const arch::BlockState& b, bool (*supported)(DataType)) {
  const auto t = operation_data_type(b);
  return t && supported(*t);
}

// ---- ExecuteTileBinary ----

constexpr bool closed_binary(Binary op) noexcept {  // TileOperationUsesClosedBinarySchema
  return op == Binary::ADD || op == Binary::SUB || op == Binary::MUL || op == Binary::DIV || op == Binary::REM ||
         op == Binary::MAX || op == Binary::MIN;
}

// SelectedBundleClosedBinarySchemaLegal.
template <Binary Op>
bool binary_schema(const arch::BlockState& b) {
  const auto t = operation_data_type(b);
  return single_binding_schema(b, true, true) && t && vec_arithmetic_data_type_supported(*t) &&
         bundle_layout_row_major(b);
}

// TileOperandsLegal_ExecuteTileBinary.
template <Binary Op>
bool binary_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], l = o.source[0], r = o.source[1];
  if (!same_shape_and_type(f, l, r) || !same_shape_and_type(f, d, l)) return false;
  const DataType t = f.tile(l).data_type();
  if (!f.source_contents_defined(l) || !f.source_contents_defined(r) || !binary_type_supported(Op, t) ||
      f.tile(l).descriptor().layout != TileLayout::RowMajor)
    return false;
  if ((Op == Binary::MAX || Op == Binary::MIN) && num::is_float(t) &&
      (!source_encodings_valid(f, l) || !source_encodings_valid(f, r)))
    return false;
  if ((Op == Binary::DIV || Op == Binary::REM) && num::is_integer(t)) return payload_nonzero(f, r);
  return true;
}

// tile_binary takes the span fast path (tile_elementwise.hpp) where it
// exists and publishes the destination (ADR 0014).
template <Binary Op>
TileResult binary_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  tile_binary(Op, d, src(c, 0), src(c, 1), c.pad_value, c.profile);
  return TileResult::written(d.valid_element_count());
}

template <Binary Op>
constexpr TileKernel binary_kernel() {
  if (closed_binary(Op)) return {bundle_schema<binary_schema<Op>>, closed_loop_destinations, false, binary_operands<Op>, binary_execute<Op>};
  return {nullptr, nullptr, false, binary_operands<Op>, binary_execute<Op>};
}

// ---- ExecuteTileUnary ----

bool closed_unary_schema_op(Unary op) noexcept {  // TileOperationUsesClosedUnarySchema
  return op == Unary::ABS || op == Unary::NOT || op == Unary::NEG || op == Unary::RELU;
}

template <Unary Op>
bool unary_schema(const arch::BlockState& b) {
  const auto t = operation_data_type(b);
  return single_binding_schema(b, true, false) && t && unary_type_supported(Op, *t) && bundle_layout_row_major(b);
}

// TileOperandsLegal_ExecuteTileUnary (every TEPL unary uses the complete schema).
template <Unary Op>
bool unary_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!same_shape_and_type(f, d, s) || !f.source_contents_defined(s)) return false;
  const DataType t = f.tile(s).data_type();
  if (!unary_type_supported(Op, t) || f.tile(s).descriptor().layout != TileLayout::RowMajor) return false;
  return !num::is_float(t) || source_encodings_valid(f, s);
}

template <Unary Op>
TileResult unary_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const num::Flags flags = tile_unary(Op, d, src(c, 0), c.pad_value, c.profile);  // ScalarFPRecordFlags
  return TileResult::written(d.valid_element_count(), flags);
}

template <Unary Op>
constexpr TileKernel unary_kernel() {
  if (closed_unary_schema_op(Op)) return {bundle_schema<unary_schema<Op>>, closed_loop_destinations, false, unary_operands<Op>, unary_execute<Op>};
  return {nullptr, nullptr, false, unary_operands<Op>, unary_execute<Op>};
}

// ---- ExecuteTileScalar ----

// SelectedBundleClosedTileScalarBinarySchemaLegal: the source and the B.IOR
// scalar (encoding, integer DIV/REM by zero) are checked here, before any
// destination is allocated.
template <Binary Op>
bool scalar_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  const auto t = operation_data_type(b);
  if (!single_binding_schema(b, true, false) || !t || !binary_type_supported(Op, *t) || !bundle_layout_row_major(b) ||
      !bundle_source_legal(v.tiles, b.tile_bindings[0].source0, *t, b))
    return false;
  const std::uint64_t scalar = raw_element_value(v.scalar_raw, *t);
  if (!num::encoding_valid(*t, scalar)) return false;
  if ((Op == Binary::DIV || Op == Binary::REM) && num::is_integer(*t)) return scalar != 0;
  return true;
}

// TileOperandsLegal_ExecuteTileScalar.
template <Binary Op>
bool scalar_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!same_shape_and_type(f, d, s) || !numeric_row_major(f, s) || !f.source_contents_defined(s)) return false;
  const DataType t = f.tile(s).data_type();
  if (!binary_type_supported(Op, t)) return false;
  const bool carrier_logical = (Op == Binary::AND || Op == Binary::OR || Op == Binary::XOR) && vec_scalar_integer_type(t);
  const std::uint64_t scalar = raw_element_value(o.scalar0, t);
  if (!carrier_logical && (!source_encodings_valid(f, s) || !num::encoding_valid(t, scalar))) return false;
  if ((Op == Binary::DIV || Op == Binary::REM) && num::is_integer(t)) return scalar != 0;
  return true;
}

template <Binary Op>
TileResult scalar_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const num::Flags flags = tile_scalar(Op, d, src(c, 0), c.operands.scalar0, c.pad_value, c.profile);
  return TileResult::written(d.valid_element_count(), flags);  // RecordNumericStatusFlags
}

template <Binary Op>
constexpr TileKernel scalar_kernel() {
  return {scalar_schema<Op>, closed_loop_destinations, false, scalar_operands<Op>, scalar_execute<Op>};
}

// ---- TEXPANDS: ExecuteTileFillScalar ----

bool fill_schema(const arch::BlockState& b) {  // SelectedBundleClosedTEXPANDSSchemaLegal
  return single_binding_schema(b, false, false) && operation_type_is(b, vec_arithmetic_data_type_supported) &&
         bundle_layout_row_major(b);
}

bool fill_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0];
  return numeric_row_major(f, d) && vec_arithmetic_data_type_supported(f.tile(d).data_type());
}

TileResult fill_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  tile_fill_scalar(d, c.operands.scalar0, c.pad_value);
  return TileResult::written(d.valid_element_count());
}

// ---- TFMA ----

bool tfma_schema(const arch::BlockState& b) {  // SelectedBundleClosedTFMASchemaLegal
  return paired_binding_schema(b) && !b.scalar_bindings[0].valid &&
         operation_type_is(b, vec_arithmetic_data_type_supported) && bundle_layout_row_major(b);
}

// TileOperandsLegal_TFMA: sources are left, right (first B.IOT) and addend.
bool tfma_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0];
  const std::array<TileIndex, 3> s{o.source[0], o.source[1], o.source[2]};
  if (!f.descriptor_legal(d)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  if (!vec_arithmetic_data_type_supported(dd.data_type) || dd.layout != TileLayout::RowMajor) return false;
  for (TileIndex i : s) {
    if (!f.source_contents_defined(i) || !logical_shape_match(f, d, i) || f.tile(i).data_type() != dd.data_type)
      return false;
    if (num::is_float(dd.data_type) && !source_encodings_valid(f, i)) return false;
  }
  return true;
}

TileResult tfma_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const num::Flags flags = tile_fma(d, src(c, 0), src(c, 1), src(c, 2), c.pad_value, c.profile);  // ScalarFPRecordFlags
  return TileResult::written(d.valid_element_count(), flags);
}

constexpr TileKernel kFillKernel{bundle_schema<fill_schema>, closed_loop_destinations, false, fill_operands, fill_execute};
constexpr TileKernel kTfmaKernel{bundle_schema<tfma_schema>, closed_loop_destinations, false, tfma_operands, tfma_execute};

}  // namespace

void register_elementwise_kernels(TileKernelTable& t) {
  using isa::TileOp;
  t.set(TileOp::TADD, kTaddKernel);
  t.set(TileOp::TSUB, binary_kernel<Binary::SUB>());
  t.set(TileOp::TMUL, binary_kernel<Binary::MUL>());
  t.set(TileOp::TDIV, binary_kernel<Binary::DIV>());
  t.set(TileOp::TREM, binary_kernel<Binary::REM>());
  t.set(TileOp::TMAX, binary_kernel<Binary::MAX>());
  t.set(TileOp::TMIN, binary_kernel<Binary::MIN>());
  t.set(TileOp::TAND, binary_kernel<Binary::AND>());
  t.set(TileOp::TOR, binary_kernel<Binary::OR>());
  t.set(TileOp::TXOR, binary_kernel<Binary::XOR>());
  t.set(TileOp::TSHL, binary_kernel<Binary::SHL>());
  t.set(TileOp::TSHR, binary_kernel<Binary::SHR>());
  t.set(TileOp::TABS, unary_kernel<Unary::ABS>());
  t.set(TileOp::TNOT, unary_kernel<Unary::NOT>());
  t.set(TileOp::TNEG, unary_kernel<Unary::NEG>());
  t.set(TileOp::TRELU, unary_kernel<Unary::RELU>());
  t.set(TileOp::TEXP, unary_kernel<Unary::EXP>());
  t.set(TileOp::TLOG, unary_kernel<Unary::LOG>());
  t.set(TileOp::TRECIP, unary_kernel<Unary::RECIP>());
  t.set(TileOp::TSQRT, unary_kernel<Unary::SQRT>());
  t.set(TileOp::TRSQRT, unary_kernel<Unary::RSQRT>());
  t.set(TileOp::TFMA, kTfmaKernel);
  t.set(TileOp::TADDS, scalar_kernel<Binary::ADD>());
  t.set(TileOp::TSUBS, scalar_kernel<Binary::SUB>());
  t.set(TileOp::TMULS, scalar_kernel<Binary::MUL>());
  t.set(TileOp::TDIVS, scalar_kernel<Binary::DIV>());
  t.set(TileOp::TREMS, scalar_kernel<Binary::REM>());
  t.set(TileOp::TANDS, scalar_kernel<Binary::AND>());
  t.set(TileOp::TORS, scalar_kernel<Binary::OR>());
  t.set(TileOp::TXORS, scalar_kernel<Binary::XOR>());
  t.set(TileOp::TSHLS, scalar_kernel<Binary::SHL>());
  t.set(TileOp::TSHRS, scalar_kernel<Binary::SHR>());
  t.set(TileOp::TMAXS, scalar_kernel<Binary::MAX>());
  t.set(TileOp::TMINS, scalar_kernel<Binary::MIN>());
  t.set(TileOp::TEXPANDS, kFillKernel);
}

}  // namespace pto::tile::ops

namespace pto::tile {

constinit const TileKernel kTaddKernel = ops::binary_kernel<ops::Binary::ADD>();  // the one TADD kernel

}  // namespace pto::tile
