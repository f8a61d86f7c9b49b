#include "tile/tile_state.hpp"

#include "tile/cube_layout.hpp"

#include <algorithm>
#include <cassert>
#include <cstring>

namespace pto::tile {

std::string_view layout_name(TileLayout l) noexcept {
  switch (l) {
    case TileLayout::RowMajor: return "RowMajor";
    case TileLayout::ColumnMajor: return "ColumnMajor";
    case TileLayout::ZN: return "ZN";
    case TileLayout::NZ: return "NZ";
    case TileLayout::CubeM16: return "CUBE_M16";
    case TileLayout::CubeM32: return "CUBE_M32";
    case TileLayout::CubeN8: return "CUBE_N8";
    case TileLayout::ImplementationDefined: return "ImplementationDefined";
  }
  return "?";
}

std::string_view location_name(TileLocation l) noexcept {
  switch (l) {
    case TileLocation::Any: return "Any";
    case TileLocation::Vector: return "Vector";
    case TileLocation::Matrix: return "Matrix";
  }
  return "?";
}

std::string_view pad_value_name(PadValue p) noexcept {
  switch (p) {
    case PadValue::Zero: return "Zero";
    case PadValue::Max: return "Max";
    case PadValue::Min: return "Min";
    case PadValue::Null: return "Null";
  }
  return "?";
}

std::uint32_t derived_tile_rows(std::uint32_t capacity_bytes, std::uint32_t columns, DataType t) noexcept {
  if (capacity_bytes == 0 || !is_nonzero_power_of_two(columns)) return 0;
  const std::uint64_t capacity_bits = std::uint64_t{capacity_bytes} * 8;
  const std::uint64_t row_bits = std::uint64_t{columns} * element_bits(t);
  if (capacity_bits % row_bits != 0) return 0;
  const std::uint64_t rows = capacity_bits / row_bits;
  return rows == 0 || rows > 65535 ? 0 : static_cast<std::uint32_t>(rows);
}

bool descriptor_shape_legal(std::uint32_t capacity_bytes, std::uint32_t columns, std::uint32_t valid_rows,
                            std::uint32_t valid_columns, DataType t) noexcept {
  const std::uint32_t rows = derived_tile_rows(capacity_bytes, columns, t);
  return rows != 0 && valid_rows <= rows && valid_columns <= columns &&
         std::uint64_t{valid_rows} * valid_columns <= logical_element_capacity(capacity_bytes, t);
}

std::uint64_t pad_value_for_data_type(PadValue p, DataType t) noexcept {
  // TilePadValueForDataType (asl/tile/model/definedness/elements.asl).
  if (p == PadValue::Zero || p == PadValue::Null) return 0;
  const bool max = p == PadValue::Max;
  switch (t) {
    case DataType::FP64: return max ? 0x7fefffffffffffffULL : 0xffefffffffffffffULL;
    case DataType::FP32: return max ? 0x7f7fffffULL : 0xff7fffffULL;
    case DataType::TF32: return max ? 0x7f7fe000ULL : 0xff7fe000ULL;
    case DataType::HF32: return max ? 0x7f7ff000ULL : 0xff7ff000ULL;
    case DataType::FP16: return max ? 0x7bffULL : 0xfbffULL;
    case DataType::BF16: return max ? 0x7f7fULL : 0xff7fULL;
    case DataType::E4M3: return max ? 0x7eULL : 0xfeULL;
    case DataType::E5M2: return max ? 0x7bULL : 0xfbULL;
    case DataType::U8: return max ? 0xffULL : 0;
    case DataType::U16: return max ? 0xffffULL : 0;
    case DataType::U32: return max ? 0xffffffffULL : 0;
    case DataType::U64: return max ? ~0ULL : 0;
    case DataType::U4X2: return max ? ~0ULL : 0;
    case DataType::S8: return max ? 0x7fULL : 0x80ULL;
    case DataType::S16: return max ? 0x7fffULL : 0x8000ULL;
    case DataType::S32: return max ? 0x7fffffffULL : 0x80000000ULL;
    case DataType::S64: return max ? 0x7fffffffffffffffULL : 0x8000000000000000ULL;
    default: return max ? ~0ULL : 0x8000000000000000ULL;
  }
}

// ---------------------------------------------------------------- Tile

Tile::Tile(const Tile& other) : d_(other.d_), defined_(other.defined_), defined_valid_(other.defined_valid_) {
  reserve_payload(other.d_.capacity_bytes);
  if (d_.capacity_bytes) std::memcpy(payload_.get(), other.payload_.get(), d_.capacity_bytes);
}

Tile& Tile::operator=(const Tile& other) {
  if (this == &other) return *this;
  reserve_payload(other.d_.capacity_bytes);
  d_ = other.d_;
  defined_ = other.defined_;
  defined_valid_ = other.defined_valid_;
  if (d_.capacity_bytes) std::memcpy(payload_.get(), other.payload_.get(), d_.capacity_bytes);
  return *this;
}

void Tile::reserve_payload(std::uint32_t bytes) {
  if (bytes <= payload_size_) return;
  // Zero on first growth only: later reconfiguration reuses the bytes, whose
  // old contents are unobservable because definedness is cleared.
  payload_.reset(new (std::align_val_t{kPayloadAlignment}) std::byte[bytes]());
  payload_size_ = bytes;
}

std::uint32_t Tile::logical_capacity() const noexcept {
  return d_.allocated ? logical_element_capacity(d_.capacity_bytes, d_.data_type) : 0;
}

std::uint64_t Tile::defined_element_count() const noexcept {
  std::uint64_t n = 0;
  for (const std::uint64_t w : defined_) n += static_cast<std::uint64_t>(__builtin_popcountll(w));
  return n;
}

bool Tile::generic_indexing_permitted() const noexcept {
  // TileLayoutShapeLegal + TileGenericIndexingPermitted.
  switch (d_.layout) {
    case TileLayout::RowMajor:
    case TileLayout::ColumnMajor: return true;
    case TileLayout::ZN:
    case TileLayout::NZ: return d_.rows % 16 == 0 && d_.columns % (256 / element_bits(d_.data_type)) == 0;
    default: return false;
  }
}

std::uint32_t Tile::linear_index(std::uint32_t row, std::uint32_t column) const noexcept {
  switch (d_.layout) {
    case TileLayout::ColumnMajor: return column * d_.rows + row;
    case TileLayout::ZN:
    case TileLayout::NZ: {
      // 16-row fractals of 32 bytes per row (TileFractalInnerElements).
      const std::uint32_t inner = 256 / element_bits(d_.data_type);
      const std::uint32_t block_rows = d_.rows / 16;
      const std::uint32_t block_columns = d_.columns / inner;
      const std::uint32_t block_elements = 16 * inner;
      const std::uint32_t br = row / 16, bc = column / inner, ir = row % 16, ic = column % inner;
      if (d_.layout == TileLayout::ZN) return (br * block_columns + bc) * block_elements + ic * 16 + ir;
      return (bc * block_rows + br) * block_elements + ir * inner + ic;
    }
    case TileLayout::CubeM16:
    case TileLayout::CubeM32:
    case TileLayout::CubeN8: return cube_payload_index(d_, row, column);  // TileStorageIndex
    default: return row * d_.columns + column;
  }
}

Tile::Offsets Tile::valid_offsets() const {
  Offsets o;
  if (layout_is_cube(d_.layout)) {  // index(r, 0) + index(0, c), index(0, 0) = 0
    cube_payload_offsets(d_, o.row, o.column);
    return o;
  }
  o.row.resize(d_.valid_rows);
  o.column.resize(d_.valid_columns);
  for (std::uint32_t r = 0; r < d_.valid_rows; ++r) o.row[r] = linear_index(r, 0);
  const std::uint32_t origin = o.row.empty() ? 0 : o.row[0];
  for (std::uint32_t c = 0; c < d_.valid_columns; ++c) o.column[c] = linear_index(0, c) - origin;
  return o;
}

std::uint64_t Tile::read_raw(std::uint32_t element) const noexcept {
  const unsigned bits = element_bits(d_.data_type);
  if (bits == 4) {
    const auto byte = static_cast<std::uint8_t>(payload_[element >> 1]);
    return num::packed4_get(byte, element & 1U);
  }
  std::uint64_t v = 0;
  std::memcpy(&v, payload_.get() + std::size_t{element} * (bits / 8), bits / 8);  // little-endian host
  return v;
}

std::uint64_t Tile::read_word(std::uint32_t element) const noexcept {
  const std::uint64_t raw = read_raw(element);
  const unsigned bits = element_bits(d_.data_type);
  if (bits == 4 || bits == 64 || !data_type_is_signed_integer(d_.data_type)) return raw;
  const unsigned shift = 64 - bits;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(raw << shift) >> shift);
}

void Tile::store_raw(std::uint32_t element, std::uint64_t value) noexcept {
  const unsigned bits = element_bits(d_.data_type);
  if (bits == 4) {
    auto& byte = payload_[element >> 1];
    byte = static_cast<std::byte>(num::packed4_set(static_cast<std::uint8_t>(byte), element & 1U,
                                                   static_cast<std::uint8_t>(value)));
    return;
  }
  std::memcpy(payload_.get() + std::size_t{element} * (bits / 8), &value, bits / 8);
}

void Tile::set_defined(std::uint32_t element, bool defined) noexcept {
  const std::uint64_t bit = 1ULL << (element & 63);
  if (defined) defined_[element >> 6] |= bit;
  else defined_[element >> 6] &= ~bit;
}

void Tile::write_element(std::uint32_t row, std::uint32_t column, std::uint64_t value) noexcept {
  const std::uint32_t element = linear_index(row, column);
  const bool was_defined = element_defined(element);
  store_raw(element, value);
  set_defined(element, true);
  // Outside the valid region the bit is set but the summary does not count it.
  if (!was_defined && row < d_.valid_rows && column < d_.valid_columns) ++defined_valid_;
}

void Tile::define_range(std::uint32_t first, std::uint32_t count) noexcept { assign_defined_range(first, count, true); }

void Tile::assign_defined_range(std::uint32_t first, std::uint32_t count, bool defined) noexcept {
  std::uint32_t i = first;
  const std::uint32_t end = first + count;
  while (i < end && (i & 63)) set_defined(i++, defined);
  const std::uint32_t words = (end - i) >> 6;
  std::fill_n(defined_.data() + (i >> 6), words, defined ? ~0ULL : 0ULL);
  i += words << 6;
  while (i < end) set_defined(i++, defined);
}

void Tile::mark_valid_region_defined() noexcept {
  // Every valid element is already defined: defined_valid_ never exceeds
  // the number of set bits inside the valid region (ADR 0014 summary).
  if (defined_valid_ == valid_element_count()) return;
  if (d_.layout == TileLayout::RowMajor) {
    if (d_.valid_columns == d_.columns) {
      define_range(0, d_.valid_rows * d_.columns);
    } else {
      for (std::uint32_t r = 0; r < d_.valid_rows; ++r) define_range(r * d_.columns, d_.valid_columns);
    }
  } else if (layout_is_cube(d_.layout)) {
    define_cube_valid_region();
  } else {
    for (std::uint32_t r = 0; r < d_.valid_rows; ++r)
      for (std::uint32_t c = 0; c < d_.valid_columns; ++c) set_defined(linear_index(r, c), true);
  }
  defined_valid_ = valid_element_count();
}

namespace {

// The start of each maximal run of consecutive offsets and its length.
template <typename Visit>
void for_each_run(const std::vector<std::uint32_t>& offsets, Visit visit) {
  for (std::size_t i = 0; i < offsets.size();) {
    std::size_t j = i + 1;
    while (j < offsets.size() && offsets[j] == offsets[j - 1] + 1) ++j;
    visit(offsets[i], static_cast<std::uint32_t>(j - i));
    i = j;
  }
}

}  // namespace

// The valid region of a CUBE layout through its separable offsets
// (valid_offsets): one range when the region fills a contiguous block of
// CELLs, else the runs along whichever dimension is contiguous.
void Tile::define_cube_valid_region() noexcept {
  // An M layout whose valid region fills whole CELLs of every row: the
  // first valid_element_count() elements, without the offset tables.
  const CubeGeometry g = cube_geometry(d_.layout, d_.valid_rows, d_.valid_columns, d_.data_type);
  if (d_.layout != TileLayout::CubeN8 && d_.valid_rows == g.cell_rows && d_.valid_columns % g.cell_columns == 0) {
    define_range(0, static_cast<std::uint32_t>(valid_element_count()));
    return;
  }
  const Offsets o = valid_offsets();
  const auto [row_min, row_max] = std::minmax_element(o.row.begin(), o.row.end());
  const auto [column_min, column_max] = std::minmax_element(o.column.begin(), o.column.end());
  const std::uint32_t first = *row_min + *column_min;
  if (*row_max + *column_max - first + 1 == valid_element_count()) {
    define_range(first, static_cast<std::uint32_t>(valid_element_count()));
    return;
  }
  const bool rows_contiguous = o.row.size() > 1 && o.row[1] == o.row[0] + 1;
  const std::vector<std::uint32_t>& outer = rows_contiguous ? o.column : o.row;
  const std::vector<std::uint32_t>& inner = rows_contiguous ? o.row : o.column;
  for (const std::uint32_t base : outer)
    for_each_run(inner, [&](std::uint32_t start, std::uint32_t length) { define_range(base + start, length); });
}

namespace {

template <typename T>
void fill_carriers(std::byte* payload, std::uint32_t first, std::uint32_t count, std::uint64_t value) noexcept {
  std::fill_n(reinterpret_cast<T*>(payload) + first, count, static_cast<T>(value));
}

}  // namespace

bool Tile::pad_row_major_runs(bool defined, std::uint64_t value) noexcept {
  const unsigned bits = element_bits(d_.data_type);
  if (d_.layout != TileLayout::RowMajor || bits == 4) return false;
  for (std::uint32_t r = 0; r < d_.rows; ++r) {
    const std::uint32_t first_column = r < d_.valid_rows ? d_.valid_columns : 0;
    const std::uint32_t first = r * d_.columns + first_column, count = d_.columns - first_column;
    switch (bits) {
      case 8: fill_carriers<std::uint8_t>(payload_.get(), first, count, value); break;
      case 16: fill_carriers<std::uint16_t>(payload_.get(), first, count, value); break;
      case 32: fill_carriers<std::uint32_t>(payload_.get(), first, count, value); break;
      default: fill_carriers<std::uint64_t>(payload_.get(), first, count, value); break;
    }
    assign_defined_range(first, count, defined);
  }
  return true;
}

void Tile::apply_padding(PadValue pad) noexcept {
  if (d_.valid_rows == d_.rows && d_.valid_columns == d_.columns) return;  // no padding element
  const bool defined = pad != PadValue::Null;
  const std::uint64_t value = pad_value_for_data_type(pad, d_.data_type);
  if (pad_row_major_runs(defined, value)) return;  // the same elements and bits, a row's run at a time
  for (std::uint32_t r = 0; r < d_.rows; ++r) {
    const std::uint32_t first_column = r < d_.valid_rows ? d_.valid_columns : 0;
    for (std::uint32_t c = first_column; c < d_.columns; ++c) {
      const std::uint32_t e = linear_index(r, c);
      store_raw(e, value);
      set_defined(e, defined);
    }
  }
}

void Tile::clear_definedness() noexcept {
  std::fill(defined_.begin(), defined_.end(), 0ULL);
  defined_valid_ = 0;
}

void Tile::configure(const TileDescriptor& d) {
  reserve_payload(d.capacity_bytes);
  d_ = d;
  const std::uint32_t elements = logical_element_capacity(d.capacity_bytes, d.data_type);
  defined_.assign((elements + 63) / 64, 0ULL);
  defined_valid_ = 0;
}

void Tile::release() noexcept {
  d_ = TileDescriptor{};
  clear_definedness();
}

// ---------------------------------------------------------------- TileFile

TileFile::TileFile() : shared_(kSharedTileCount) {}

std::uint64_t TileFile::local_capacity_in_use_except(int excluded) const noexcept {
  // A zero mask counts zero bytes, so the compact mask array is scanned
  // first and only the masked registers' descriptors are read.
  std::uint64_t total = 0;
  for (unsigned i = 0; i < kTileRegisterCount; ++i)
    if (masks_[i] != 0 && static_cast<int>(i) != excluded && tiles_[i].allocated())
      total += core_allocation_bytes(masks_[i], tiles_[i].descriptor().capacity_bytes);
  return total;
}

void TileFile::set_model_tile_elements(std::uint32_t elements) noexcept {
  assert(elements >= 1 && elements <= kModelTileElementsMax);
  model_tile_elements_ = elements;
}

bool TileFile::payload_representable(const TileDescriptor& d) const noexcept {
  const std::uint64_t elements = std::uint64_t{d.rows} * d.columns;
  if (layout_is_cube(d.layout) || elements == 0) return true;
  const unsigned bits = element_bits(d.data_type);
  // TileUsesPackedCarrierRepresentation: four-bit types and tiles beyond
  // the limit keep 64 / bits elements per payload Word (carrier).
  const bool packed = bits == 4 || !within_model_tile_elements(elements);
  const std::uint64_t last = elements - 1;  // TileWithPadding visits every physical element
  const std::uint64_t slot = packed ? last / (64 / bits) : last;  // TilePackedCarrierIndex : TileStorageIndex
  return slot < model_tile_elements_;
}

std::uint64_t TileFile::shared_capacity_in_use() const noexcept {
  if (!shared_handed_out_) return 0;
  std::uint64_t total = 0;
  for (const SharedTile& s : shared_)
    if (s.descriptor_valid) total += core_allocation_bytes(s.allocation_mask, s.tile.descriptor().capacity_bytes);
  return total;
}

bool TileFile::local_capacity_legal(std::uint32_t bytes) const noexcept {
  return bytes >= kTileCellBytes && bytes % kTileCellBytes == 0 && bytes <= kLocalTileMaxBytes &&
         bytes <= capacity_limit_;
}

bool TileFile::shared_capacity_legal(std::uint32_t bytes) const noexcept {
  return bytes >= kTileCellBytes && bytes % kTileCellBytes == 0 && bytes <= kSharedTileMaxBytes &&
         bytes <= capacity_limit_;
}

FaultCode TileFile::check_configure(TileIndex i, const ConfigureRequest& r) const noexcept {
  if (i >= kTileRegisterCount || r.mask == 0 || r.mask > 0xF || !local_capacity_legal(r.capacity_bytes) ||
      layout_is_cube(r.layout))
    return FaultCode::Fault_TileLegality;
  if (!descriptor_shape_legal(r.capacity_bytes, r.columns, r.valid_rows, r.valid_columns, r.data_type))
    return FaultCode::Fault_TileAllocation;
  const std::uint32_t rows = derived_tile_rows(r.capacity_bytes, r.columns, r.data_type);
  if (std::uint64_t{rows} * r.columns > logical_element_capacity(r.capacity_bytes, r.data_type))
    return FaultCode::Fault_TileAllocation;
  if (local_capacity_in_use_except(i) + shared_capacity_in_use() + core_allocation_bytes(r.mask, r.capacity_bytes) >
      capacity_limit_)
    return FaultCode::Fault_TileAllocation;
  return FaultCode::Fault_None;
}

FaultCode TileFile::configure(TileIndex i, const ConfigureRequest& r) {
  if (const FaultCode f = check_configure(i, r); f != FaultCode::Fault_None) return f;
  install(i,
          {.allocated = true, .capacity_bytes = r.capacity_bytes,
           .rows = derived_tile_rows(r.capacity_bytes, r.columns, r.data_type), .columns = r.columns,
           .valid_rows = r.valid_rows, .valid_columns = r.valid_columns, .data_type = r.data_type,
           .layout = r.layout, .location = r.location},
          r.mask);
  return FaultCode::Fault_None;
}

FaultCode TileFile::configure_cube(TileIndex i, const ConfigureRequest& r) {
  // ConfigureCubeTileForMask: storage rows/columns derive from the valid
  // region (asl/tile/model/shape/cube-cell.asl); r.columns is not used.
  if (i >= kTileRegisterCount || r.mask == 0 || r.mask > 0xF || r.location != TileLocation::Matrix ||
      !local_capacity_legal(r.capacity_bytes) ||
      !cube_descriptor_shape_legal(r.capacity_bytes, r.valid_rows, r.valid_columns, r.data_type, r.layout,
                                   model_tile_elements_))
    return FaultCode::Fault_TileLegality;
  if (local_capacity_in_use_except(i) + shared_capacity_in_use() + core_allocation_bytes(r.mask, r.capacity_bytes) >
      capacity_limit_)
    return FaultCode::Fault_TileAllocation;
  const CubeGeometry g = cube_geometry(r.layout, r.valid_rows, r.valid_columns, r.data_type);
  install(i,
          {.allocated = true, .capacity_bytes = r.capacity_bytes, .rows = g.storage_rows,
           .columns = g.storage_columns, .valid_rows = r.valid_rows, .valid_columns = r.valid_columns,
           .data_type = r.data_type, .layout = r.layout, .location = r.location},
          r.mask);
  return FaultCode::Fault_None;
}

void TileFile::configure_predicate(TileIndex i, std::uint32_t capacity_bytes, std::uint32_t rows,
                                   std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t valid_columns,
                                   PeMask mask) {
  install(i,
          {.allocated = true, .storage_kind = TileStorageKind::Predicate, .capacity_bytes = capacity_bytes,
           .rows = rows, .columns = columns, .valid_rows = valid_rows, .valid_columns = valid_columns,
           .data_type = DataType::U8},
          mask);
}

void TileFile::install(TileIndex i, const TileDescriptor& d, PeMask mask) {
  tiles_[i].configure(d);
  masks_[i] = mask;
}

void TileFile::release(TileIndex i) noexcept {
  tiles_[i].release();
  masks_[i] = 0;
}

void TileFile::reset() noexcept {
  for (unsigned i = 0; i < kTileRegisterCount; ++i) release(static_cast<TileIndex>(i));
  for (SharedTile& s : shared_) {
    s.descriptor_valid = false;
    s.allocation_mask = 0;
    s.initialized_mask = 0;
    s.published = false;
    s.tile.release();
  }
  shared_handed_out_ = false;
  capacity_limit_ = kTileCapacityBytes;
}

// TileDescriptorConfigured (asl/tile/model/legality/descriptor-shape.asl):
// a predicate descriptor keeps its source's rows; a numeric one derives them.
bool TileFile::descriptor_configured(TileIndex i) const noexcept {
  const TileDescriptor& d = tiles_[i].descriptor();
  const bool shape = d.storage_kind == TileStorageKind::Predicate
                         ? d.rows > 0 && d.columns > 0 && predicate_storage_bytes(d.rows, d.columns) <= d.capacity_bytes
                         : derived_tile_rows(d.capacity_bytes, d.columns, d.data_type) == d.rows && d.rows != 0;
  return d.allocated && local_capacity_legal(d.capacity_bytes) && shape && d.valid_rows <= d.rows &&
         d.valid_columns <= d.columns &&
         std::uint64_t{d.rows} * d.columns <= logical_element_capacity(d.capacity_bytes, d.data_type);
}

// TileDescriptorLegal: predicate storage needs no generic-indexing check.
bool TileFile::descriptor_legal(TileIndex i) const noexcept {
  return descriptor_configured(i) &&
         (tiles_[i].descriptor().storage_kind == TileStorageKind::Predicate || tiles_[i].generic_indexing_permitted());
}

void TileFile::copy_tile(TileIndex destination, TileIndex source, PeMask mask) {
  tiles_[destination] = tiles_[source];
  masks_[destination] = mask;
}

}  // namespace pto::tile
