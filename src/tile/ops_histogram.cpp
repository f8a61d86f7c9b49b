// THISTOGRAM: schema (asl/block/model/dispatch/histogram-schema.asl),
// destination shape (destination-shape.asl: source ValidRow x 256 U32),
// legality (asl/tile/model/legality/indexed-layout.asl TileHistogram*,
// TileOperandsLegal_THISTOGRAM) and semantics
// (asl/tile/model/execution/complex.asl THISTOGRAM).  The handler owns
// source definedness: an unfiltered ByteId never reads the filter.
#include "tile/ops_common.hpp"
#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {
namespace {

constexpr std::uint32_t kBins = 256;

bool histogram_source_type(DataType t) noexcept {  // TileHistogramSourceDataTypeSupported
  return t == DataType::U16 || t == DataType::U32;
}

bool selected_byte_supported(DataType t, unsigned byte) noexcept {  // TileHistogramSelectedByteSupported
  return t == DataType::U16 ? byte <= 1 : t == DataType::U32;
}

// U32 sources match the 3 - ByteId more significant bytes against the
// global prefix filter[0..,0] (ByteId 3 is unfiltered).
unsigned u32_prefix_rows(unsigned byte) noexcept { return byte >= 3 ? 0 : 3 - byte; }

// Every filter[row, 0] for row < rows is defined (and inside the valid region).
bool filter_column_defined(const Tile& filter, std::uint32_t rows) {
  const TileDescriptor& d = filter.descriptor();
  if (d.valid_rows < rows || d.valid_columns < 1) return false;
  for (std::uint32_t r = 0; r < rows; ++r)
    if (!filter.element_defined_at(r, 0)) return false;
  return true;
}

// TileHistogramInputsLegal.
bool inputs_legal(const TileFile& f, TileIndex source, TileIndex filter, unsigned byte) {
  if (!f.source_contents_defined(source) || !f.descriptor_legal(filter)) return false;
  const TileDescriptor& s = f.tile(source).descriptor();
  const TileDescriptor& fl = f.tile(filter).descriptor();
  if (s.storage_kind != TileStorageKind::Numeric || fl.storage_kind != TileStorageKind::Numeric ||
      s.layout != TileLayout::RowMajor || fl.data_type != DataType::U8 || !selected_byte_supported(s.data_type, byte))
    return false;
  if (s.data_type == DataType::U16) return byte == 1 || filter_column_defined(f.tile(filter), s.valid_rows);
  const unsigned rows = u32_prefix_rows(byte);  // TileHistogramPrefixDefined
  return rows == 0 || filter_column_defined(f.tile(filter), rows);
}

unsigned selected_byte(const arch::BlockState& b) noexcept { return b.data_attributes.pad_value & 3U; }

// SelectedBundleClosedHistogramSchemaLegal, bundle part: one terminating
// binding with two sources and a new destination, no B.DIM, a mandatory
// B.DATR whose secondary DataType is U32, a U16/U32 BSTART type, RowMajor.
bool histogram_bundle_legal(const arch::BlockState& b) {
  if (tile_binding_count(b) != 1 || shared_binding_count(b) != 0) return false;
  const arch::BundleTileBinding& t = b.tile_bindings[0];
  if (!t.destination_valid || t.destination_allocated_by_bundle || !local_size_code_legal(t.destination_size) ||
      !t.source0_valid || !t.source1_valid || !t.last)
    return false;
  for (unsigned i = 0; i < 3; ++i)
    if (b.dimension_present[i]) return false;
  if (!b.data_attributes_present || !b.data_attributes.data_type_present ||
      num::data_type_from_code(b.data_attributes.data_type) != DataType::U32)
    return false;
  const auto s = operation_data_type(b);
  return s && histogram_source_type(*s) && bundle_layout_row_major(b);
}

// SelectedBundleClosedHistogramSchemaLegal: the bundle part, then
// TileHistogramInputsLegal on the two sources (before allocation).
bool histogram_schema(const SchemaView& v) {
  const arch::BundleTileBinding& t = v.bundle.tile_bindings[0];
  return histogram_bundle_legal(v.bundle) && inputs_legal(v.tiles, t.source0, t.source1, selected_byte(v.bundle));
}

// Source ValidRow x 256 with 256 physical columns of the B.DATR type (U32).
DestinationPlan histogram_destinations(const arch::BlockState& b, const TileFile& f) {
  const arch::BundleTileBinding& t = b.tile_bindings[0];
  DestinationPlan p;
  p.explicit_shape = true;
  p.valid_rows = f.tile(t.source0).descriptor().valid_rows;
  p.valid_columns = kBins;
  p.columns = kBins;
  return p;
}

// TileOperandsLegal_THISTOGRAM.
bool histogram_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0], filter = o.source[1];
  if (d == s || d == filter || !f.descriptor_legal(d) || !inputs_legal(f, s, filter, o.selected_byte)) return false;
  const TileDescriptor& r = f.tile(d).descriptor();
  return r.storage_kind == TileStorageKind::Numeric && r.data_type == DataType::U32 &&
         r.layout == TileLayout::RowMajor && r.valid_rows == f.tile(s).descriptor().valid_rows &&
         r.valid_columns == kBins && r.rows >= r.valid_rows && r.columns >= kBins;
}

std::uint64_t word_byte(std::uint64_t value, unsigned index) noexcept { return (value >> (8 * index)) & 0xFF; }  // ExtractWordByte

std::uint64_t filter_byte(const Tile& filter, std::uint32_t row) { return filter.read_raw(filter.linear_index(row, 0)) & 0xFF; }

// Whether `value` passes the ByteId filter of source `row`.
bool selected(DataType t, unsigned byte, std::uint64_t value, const Tile& filter, std::uint32_t row) {
  if (t == DataType::U16) return byte != 0 || word_byte(value, 1) == filter_byte(filter, row);
  for (unsigned k = 0; k < u32_prefix_rows(byte); ++k)  // bytes 3, 2, 1 against filter rows 0, 1, 2
    if (word_byte(value, 3 - k) != filter_byte(filter, k)) return false;
  return true;
}

TileResult histogram_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);  // distinct from both sources (operands_legal)
  const Tile& s = c.tiles.tile(c.operands.source[0]);
  const Tile& filter = c.tiles.tile(c.operands.source[1]);
  const TileDescriptor& sd = s.descriptor();
  const unsigned byte = c.operands.selected_byte;
  for (std::uint32_t r = 0; r < sd.valid_rows; ++r) {
    std::uint64_t counts[kBins] = {};
    for (std::uint32_t col = 0; col < sd.valid_columns; ++col) {
      const std::uint64_t value = s.read_raw(s.linear_index(r, col));
      if (selected(sd.data_type, byte, value, filter, r)) ++counts[word_byte(value, byte)];
    }
    std::uint32_t* out = d.row_data<std::uint32_t>(r);
    std::uint64_t cumulative = 0;  // inclusive prefix count
    for (std::uint32_t bin = 0; bin < kBins; ++bin) out[bin] = static_cast<std::uint32_t>(cumulative += counts[bin]);
  }
  publish(d, PadValue::Null);  // physical padding is always Null
  return TileResult::written(d.valid_element_count());
}

constexpr TileKernel kThistogram{histogram_schema, histogram_destinations, true, histogram_operands,
                                 histogram_execute};

}  // namespace

void register_histogram_kernels(TileKernelTable& t) { t.set(isa::TileOp::THISTOGRAM, kThistogram); }

}  // namespace pto::tile::ops
