// Layout-and-rearrangement (TCONCAT, TEXTRACT, TINSERT, TTRANS, TFILLPAD;
// TGATHER/TSCATTER from the irregular class, indexed-rearrangement.asl;
// asl/tile/model/execution/rearrangement.asl, generation.asl,
// asl/tile/model/legality/layout-rearrangement.asl) and the generation
// operations TCI and TTRI (asl/tile/model/execution/generation.asl,
// asl/block/model/dispatch/generation-schema.asl).  Every loop copies raw
// elements through TileLogicalLinearIndex, so any generically indexable
// layout works; a source that is the destination is snapshotted first.
#include <optional>
#include <vector>

#include "tile/ops_common.hpp"
#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {
namespace {

Tile& dst(TileExecutionContext& c) { return c.tiles.tile(c.operands.destination[0]); }

// The source as read before any destination write.
struct Snapshot {
  Tile copy;
  const Tile* tile;
  Snapshot(const Tile& source, const Tile& destination) : copy(&source == &destination ? source : Tile{}),
                                                          tile(&source == &destination ? &copy : &source) {}
};

std::uint64_t read(const Tile& t, std::uint32_t r, std::uint32_t c) { return t.read_raw(t.linear_index(r, c)); }
void store(Tile& t, std::uint32_t r, std::uint32_t c, std::uint64_t v) { t.store_raw(t.linear_index(r, c), v); }

// TileCarrierOnlyDataTypeSupported / TileMove24DataTypeSupported.
bool carrier_only(DataType t) noexcept { return !num::is_packed4(t) && element_bits(t) <= 32; }
bool move24(DataType t) noexcept { return t != DataType::HiF4X2; }

// A numeric, generically indexable descriptor (TileLayoutShapeLegal for
// the layouts TileLogicalLinearIndex serves).
bool indexable(const TileFile& f, TileIndex i) {
  return f.descriptor_legal(i) && f.tile(i).descriptor().storage_kind == TileStorageKind::Numeric &&
         f.tile(i).generic_indexing_permitted();
}

// A defined source whose encodings are valid unless the type is carrier-only.
bool readable_source(const TileFile& f, TileIndex s) {
  return f.source_contents_defined(s) && (carrier_only(f.tile(s).data_type()) || source_encodings_valid(f, s));
}

// ---- TEXTRACT ----

bool textract_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!indexable(f, d) || !indexable(f, s) || !readable_source(f, s)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  return move24(dd.data_type) && dd.data_type == sd.data_type &&
         std::uint64_t{o.natural0} + dd.valid_rows <= sd.valid_rows &&
         std::uint64_t{o.natural1} + dd.valid_columns <= sd.valid_columns;
}

TileResult textract_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const Snapshot s(c.tiles.tile(c.operands.source[0]), d);
  const TileDescriptor& dd = d.descriptor();
  for (std::uint32_t r = 0; r < dd.valid_rows; ++r)
    for (std::uint32_t col = 0; col < dd.valid_columns; ++col)
      store(d, r, col, read(*s.tile, r + c.operands.natural0, col + c.operands.natural1));
  publish(d, c.pad_value);
  return TileResult::written(d.valid_element_count());
}

// ---- TINSERT: old destination (source 0) with the source (source 1) inserted ----

bool tinsert_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], old = o.source[0], s = o.source[1];
  if (!indexable(f, d) || !indexable(f, old) || !indexable(f, s) || !readable_source(f, old) || !readable_source(f, s))
    return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  return move24(dd.data_type) && same_shape_and_type(f, d, old) && dd.data_type == sd.data_type &&
         std::uint64_t{o.natural0} + sd.valid_rows <= dd.valid_rows &&
         std::uint64_t{o.natural1} + sd.valid_columns <= dd.valid_columns;
}

TileResult tinsert_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const Snapshot s(c.tiles.tile(c.operands.source[1]), d);
  const Tile& old = c.tiles.tile(c.operands.source[0]);
  if (&old != &d) {  // payload and definedness of the old destination
    for (std::uint32_t e = 0; e < old.logical_capacity(); ++e) {
      d.store_raw(e, old.read_raw(e));
      if (old.element_defined(e)) d.define_range(e, 1);
    }
  }
  const TileDescriptor& sd = s.tile->descriptor();
  for (std::uint32_t r = 0; r < sd.valid_rows; ++r)
    for (std::uint32_t col = 0; col < sd.valid_columns; ++col)
      store(d, r + c.operands.natural0, col + c.operands.natural1, read(*s.tile, r, col));
  d.mark_valid_region_defined();
  return TileResult::written(s.tile->valid_element_count());
}

// ---- TTRANS ----

bool ttrans_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!indexable(f, d) || !indexable(f, s) || !readable_source(f, s)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  return move24(dd.data_type) && dd.valid_rows == sd.valid_columns && dd.valid_columns == sd.valid_rows &&
         dd.data_type == sd.data_type;
}

TileResult ttrans_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const Snapshot s(c.tiles.tile(c.operands.source[0]), d);
  const TileDescriptor& sd = s.tile->descriptor();
  for (std::uint32_t r = 0; r < sd.valid_rows; ++r)
    for (std::uint32_t col = 0; col < sd.valid_columns; ++col) store(d, col, r, read(*s.tile, r, col));
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count());
}

// ---- TCONCAT: columns of the left source then the right source ----

bool tconcat_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], l = o.source[0], r = o.source[1];
  if (!indexable(f, d) || !indexable(f, l) || !indexable(f, r) || !f.source_contents_defined(l) ||
      !f.source_contents_defined(r))
    return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& ld = f.tile(l).descriptor();
  const TileDescriptor& rd = f.tile(r).descriptor();
  if (dd.data_type != ld.data_type || dd.data_type != rd.data_type) return false;
  if (!carrier_only(ld.data_type) && (!source_encodings_valid(f, l) || !source_encodings_valid(f, r))) return false;
  return move24(dd.data_type) && ld.valid_rows > 0 && ld.valid_rows == rd.valid_rows && dd.valid_rows == ld.valid_rows &&
         dd.valid_columns == ld.valid_columns + rd.valid_columns;
}

TileResult tconcat_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const Snapshot l(c.tiles.tile(c.operands.source[0]), d);
  const Snapshot r(c.tiles.tile(c.operands.source[1]), d);
  const TileDescriptor& dd = d.descriptor();
  const std::uint32_t split = l.tile->descriptor().valid_columns;
  for (std::uint32_t row = 0; row < dd.valid_rows; ++row)
    for (std::uint32_t col = 0; col < dd.valid_columns; ++col)
      store(d, row, col, col < split ? read(*l.tile, row, col) : read(*r.tile, row, col - split));
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count());
}

// ---- TFILLPAD: every physical element, source inside its valid region ----

bool tfillpad_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!indexable(f, d) || !indexable(f, s) || !readable_source(f, s)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  return carrier_only(dd.data_type) && dd.data_type == sd.data_type && dd.rows >= sd.rows && dd.columns >= sd.columns &&
         dd.valid_rows >= sd.valid_rows && dd.valid_columns >= sd.valid_columns;
}

TileResult tfillpad_execute(TileExecutionContext& c) {
  Tile& d = dst(c);
  const Snapshot s(c.tiles.tile(c.operands.source[0]), d);
  const TileDescriptor& dd = d.descriptor();
  const TileDescriptor& sd = s.tile->descriptor();
  const std::uint64_t padding = raw_element_value(c.operands.scalar0, dd.data_type);
  for (std::uint32_t r = 0; r < dd.rows; ++r)
    for (std::uint32_t col = 0; col < dd.columns; ++col)
      d.write_element(r, col, r < sd.valid_rows && col < sd.valid_columns ? read(*s.tile, r, col) : padding);
  return TileResult::written(std::uint64_t{dd.rows} * dd.columns);
}

// ---- TGATHER / TSCATTER (asl/tile/model/execution/indexed-rearrangement.asl) ----

bool index_type(DataType t) noexcept {
  return t == DataType::S16 || t == DataType::U16 || t == DataType::S32 || t == DataType::U32 ||
         t == DataType::S64 || t == DataType::U64;
}

// TileIndexedRowIsNegative / TileIndexedRowValue: the row an index element
// names, or nullopt for a negative signed index.
std::optional<std::uint64_t> indexed_row(const Tile& indices, std::uint32_t r, std::uint32_t c) {
  const std::uint64_t raw = read(indices, r, c);
  if (data_type_is_signed_integer(indices.data_type()) && static_cast<std::int64_t>(indices.read_word(indices.linear_index(r, c))) < 0)
    return std::nullopt;
  return raw;
}

// TileOperandsLegal_TGATHER (the handler owns source definedness: only the
// referenced source elements must be defined, TileGatherReferencesLegal).
bool tgather_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0], x = o.source[1];
  if (!indexable(f, d) || !indexable(f, s) || !indexable(f, x)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  const TileDescriptor& xd = f.tile(x).descriptor();
  if (num::is_packed4(sd.data_type) || !index_type(xd.data_type) || dd.data_type != sd.data_type ||
      dd.valid_rows == 0 || dd.valid_columns == 0 || dd.valid_rows != xd.valid_rows ||
      dd.valid_columns != xd.valid_columns || sd.valid_columns < dd.valid_columns || !source_encodings_valid(f, x))
    return false;
  const Tile& source = f.tile(s);
  for (std::uint32_t r = 0; r < xd.valid_rows; ++r)
    for (std::uint32_t c = 0; c < xd.valid_columns; ++c) {
      const auto row = indexed_row(f.tile(x), r, c);
      if (!row || *row >= sd.valid_rows || !source.element_defined_at(static_cast<std::uint32_t>(*row), c)) return false;
    }
  return true;
}

TileResult tgather_execute(TileExecutionContext& c) {  // destination[r,c] = source[index[r,c], c]
  Tile& d = dst(c);
  const Snapshot s(c.tiles.tile(c.operands.source[0]), d);
  const Snapshot x(c.tiles.tile(c.operands.source[1]), d);
  const TileDescriptor& dd = d.descriptor();
  for (std::uint32_t r = 0; r < dd.valid_rows; ++r)
    for (std::uint32_t col = 0; col < dd.valid_columns; ++col)
      store(d, r, col, read(*s.tile, static_cast<std::uint32_t>(*indexed_row(*x.tile, r, col)), col));
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count());
}

// TileOperandsLegal_TSCATTER with TileScatterReferencesLegal (rows in range,
// no destination element targeted twice).
bool tscatter_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0], x = o.source[1];
  if (!indexable(f, d) || !indexable(f, s) || !indexable(f, x)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  const TileDescriptor& xd = f.tile(x).descriptor();
  if (dd.data_type != sd.data_type || num::is_packed4(sd.data_type) || !index_type(xd.data_type) ||
      sd.valid_rows == 0 || sd.valid_columns == 0 || sd.valid_rows != xd.valid_rows ||
      sd.valid_columns != xd.valid_columns || dd.valid_rows == 0 || dd.valid_columns != sd.valid_columns ||
      !f.source_contents_defined(s) || !source_encodings_valid(f, x))
    return false;
  std::vector<bool> selected(std::size_t{dd.rows} * dd.columns);
  for (std::uint32_t r = 0; r < xd.valid_rows; ++r)
    for (std::uint32_t c = 0; c < xd.valid_columns; ++c) {
      const auto row = indexed_row(f.tile(x), r, c);
      if (!row || *row >= dd.valid_rows) return false;
      const std::size_t slot = static_cast<std::size_t>(*row) * dd.columns + c;
      if (selected[slot]) return false;
      selected[slot] = true;
    }
  return true;
}

TileResult tscatter_execute(TileExecutionContext& c) {  // zero everything, then destination[index[r,c], c] = source[r,c]
  Tile& d = dst(c);
  const Snapshot s(c.tiles.tile(c.operands.source[0]), d);
  const Snapshot x(c.tiles.tile(c.operands.source[1]), d);
  const TileDescriptor& dd = d.descriptor();
  for (std::uint32_t r = 0; r < dd.rows; ++r)
    for (std::uint32_t col = 0; col < dd.columns; ++col) d.write_element(r, col, 0);
  const TileDescriptor& sd = s.tile->descriptor();
  for (std::uint32_t r = 0; r < sd.valid_rows; ++r)
    for (std::uint32_t col = 0; col < sd.valid_columns; ++col)
      store(d, static_cast<std::uint32_t>(*indexed_row(*x.tile, r, col)), col, read(*s.tile, r, col));
  return TileResult::written(std::uint64_t{dd.rows} * dd.columns);
}

// ---- TCI / TTRI (closed generation schema) ----

bool tci_type(DataType t) noexcept {
  return t == DataType::S32 || t == DataType::S16 || t == DataType::U32 || t == DataType::U16;
}
bool ttri_type(DataType t) noexcept { return tci_type(t) || t == DataType::FP32 || t == DataType::FP16; }

// SelectedBundleClosedGenerationSchemaLegal.
template <bool Tci>
bool generation_schema(const arch::BlockState& b) {
  if (tile_binding_count(b) != 1 || shared_binding_count(b) != 0) return false;
  const arch::BundleTileBinding& t = b.tile_bindings[0];
  if (!t.destination_valid || t.destination_allocated_by_bundle || !local_size_code_legal(t.destination_size) ||
      t.source0_valid || t.source1_valid || !t.last)
    return false;
  if (!dimension_positive(b, 0)) return false;
  if (b.dimension_present[2] && (b.dimensions[2] < b.dimensions[0] || b.dimensions[2] > 65535)) return false;
  if (b.dimension_present[1] && (Tci ? b.dimensions[1] != 1 : !dimension_positive(b, 1))) return false;
  const auto t_type = operation_data_type(b);
  return t_type && (Tci ? tci_type(*t_type) : ttri_type(*t_type)) && bundle_layout_row_major(b);
}

bool generation_destination(const TileFile& f, TileIndex d, bool (*type_ok)(DataType) noexcept) {
  return numeric_row_major(f, d) && type_ok(f.tile(d).data_type());
}

bool tci_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {  // TileOperandsLegal_TCI
  const TileIndex d = o.destination[0];
  if (!generation_destination(f, d, tci_type)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  return dd.valid_rows == 1 && dd.valid_columns >= 1 && dd.columns >= dd.valid_columns;
}

TileResult tci_execute(TileExecutionContext& c) {  // start + or - the column index, wrapped to the element
  Tile& d = dst(c);
  const DataType t = d.data_type();
  const std::uint64_t start = raw_element_value(c.operands.scalar0, t);
  const bool descending = c.operands.flag0;
  visit_carrier(t, [&]<typename T>() {
    T* out = d.row_data<T>(0);
    for (std::uint32_t col = 0; col < d.descriptor().valid_columns; ++col)
      out[col] = static_cast<T>(descending ? start - col : start + col);
  });
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count());
}

bool ttri_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {  // TileOperandsLegal_TTRI
  const TileIndex d = o.destination[0];
  if (!generation_destination(f, d, ttri_type)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  return dd.valid_rows >= 1 && dd.valid_columns >= 1 && dd.rows >= dd.valid_rows && dd.columns >= dd.valid_columns;
}

std::uint64_t ttri_one(DataType t) noexcept {  // TileTTRIOneEncoding
  return t == DataType::FP32 ? 0x3f800000 : t == DataType::FP16 ? 0x3c00 : 1;
}

TileResult ttri_execute(TileExecutionContext& c) {  // one on and above (upper) / below (lower) the diagonal
  Tile& d = dst(c);
  const DataType t = d.data_type();
  const std::int64_t diagonal = c.operands.diagonal;
  const bool upper = c.operands.flag0;
  visit_carrier(t, [&]<typename T>() {
    const T one = static_cast<T>(ttri_one(t));
    for (std::uint32_t r = 0; r < d.descriptor().valid_rows; ++r) {
      T* out = d.row_data<T>(r);
      const std::int64_t boundary = std::int64_t{r} + diagonal;
      for (std::uint32_t col = 0; col < d.descriptor().valid_columns; ++col) {
        const bool selected = upper ? std::int64_t{col} >= boundary : std::int64_t{col} <= boundary;
        out[col] = selected ? one : T{0};
      }
    }
  });
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count());
}

constexpr TileKernel kTextract{nullptr, nullptr, false, textract_operands, textract_execute};
constexpr TileKernel kTinsert{nullptr, nullptr, false, tinsert_operands, tinsert_execute};
constexpr TileKernel kTtrans{nullptr, nullptr, false, ttrans_operands, ttrans_execute};
constexpr TileKernel kTconcat{nullptr, nullptr, false, tconcat_operands, tconcat_execute};
constexpr TileKernel kTfillpad{nullptr, nullptr, false, tfillpad_operands, tfillpad_execute};
constexpr TileKernel kTgather{nullptr, nullptr, true, tgather_operands, tgather_execute};
constexpr TileKernel kTscatter{nullptr, nullptr, false, tscatter_operands, tscatter_execute};
constexpr TileKernel kTci{bundle_schema<generation_schema<true>>, closed_loop_destinations, false, tci_operands, tci_execute};
constexpr TileKernel kTtri{bundle_schema<generation_schema<false>>, closed_loop_destinations, false, ttri_operands, ttri_execute};

}  // namespace

void register_layout_kernels(TileKernelTable& t) {
  using isa::TileOp;
  t.set(TileOp::TEXTRACT, kTextract);
  t.set(TileOp::TINSERT, kTinsert);
  t.set(TileOp::TTRANS, kTtrans);
  t.set(TileOp::TCONCAT, kTconcat);
  t.set(TileOp::TFILLPAD, kTfillpad);
  t.set(TileOp::TGATHER, kTgather);
  t.set(TileOp::TSCATTER, kTscatter);
  t.set(TileOp::TCI, kTci);
  t.set(TileOp::TTRI, kTtri);
}

}  // namespace pto::tile::ops
