#include "tile/cube_layout.hpp"

#include <bit>

namespace pto::tile {
namespace {

// log2 of a power of two: every quotient below is of powers of two (element
// widths of 4 to 32 bits, 128-byte CELLs), so shifts replace the divisions
// of a function that runs several times per CUBE operation.
unsigned log2_of(std::uint32_t power_of_two) noexcept { return static_cast<unsigned>(std::countr_zero(power_of_two)); }

// TileCubeCellRows / TileCubeCellColumns: a 128-byte CELL.  M layouts fix
// the rows (16 or 32) and fit the columns; N8 fixes 8 columns.
void cell_shape(TileLayout layout, DataType t, std::uint32_t& rows, std::uint32_t& columns) noexcept {
  rows = columns = 0;
  if (!layout_is_cube(layout) || !cube_data_type_supported(t)) return;
  const std::uint32_t cell_elements = (kTileCellBytes * 8) >> log2_of(element_bits(t));
  if (layout == TileLayout::CubeN8) {
    columns = 8;
    rows = cell_elements / 8;
  } else {
    rows = layout == TileLayout::CubeM16 ? 16 : 32;
    columns = cell_elements >> log2_of(rows);
  }
}

// TileCubeAlignedExtent: value rounded up to a multiple of quantum (a power
// of two; 0 when it leaves the 16-bit range).
std::uint32_t aligned_extent(std::uint32_t value, std::uint32_t quantum) noexcept {
  if (value == 0) return 0;
  const std::uint64_t aligned = (std::uint64_t{value} + quantum - 1) & ~std::uint64_t{quantum - 1};
  return aligned > 65535 ? 0 : static_cast<std::uint32_t>(aligned);
}

}  // namespace

bool cube_data_type_supported(DataType t) noexcept {
  return t != DataType::HiF4X2 && element_bits(t) != 64;
}

CubeGeometry cube_geometry(TileLayout layout, std::uint32_t valid_rows, std::uint32_t valid_columns,
                           DataType t) noexcept {
  CubeGeometry g;
  cell_shape(layout, t, g.cell_rows, g.cell_columns);
  if (g.cell_rows == 0 || valid_rows == 0 || valid_columns == 0) return {};
  const bool n8 = layout == TileLayout::CubeN8;
  g.storage_rows = n8 ? aligned_extent(valid_rows, g.cell_rows) : (valid_rows > g.cell_rows ? 0 : g.cell_rows);
  g.storage_columns = aligned_extent(valid_columns, g.cell_columns);
  if (g.storage_rows == 0 || g.storage_columns == 0) return {};
  g.k_repeat = n8 ? g.storage_rows >> log2_of(g.cell_rows) : g.storage_columns >> log2_of(g.cell_columns);
  g.n_repeat = n8 ? g.storage_columns / 8 : 1;
  const std::uint64_t cells = std::uint64_t{g.k_repeat} * g.n_repeat;
  if (cells > 16384) return {};  // TileCubeCellCount
  g.cell_count = static_cast<std::uint32_t>(cells);
  g.storage_bytes = g.cell_count * kTileCellBytes;
  return g;
}

bool cube_descriptor_shape_legal(std::uint32_t capacity_bytes, std::uint32_t valid_rows,
                                 std::uint32_t valid_columns, DataType t, TileLayout layout,
                                 std::uint32_t model_tile_elements) noexcept {
  // TileCapacityIsLegal: whole CELLs within the per-PE maximum.
  if (capacity_bytes < kTileCellBytes || capacity_bytes % kTileCellBytes != 0 || capacity_bytes > kLocalTileMaxBytes)
    return false;
  const CubeGeometry g = cube_geometry(layout, valid_rows, valid_columns, t);
  return g.valid() && cube_storage_elements(g) <= model_tile_elements && g.storage_bytes <= capacity_bytes;
}

namespace {

// TileCubePayloadIndex with the descriptor's geometry already derived.  A
// CELL's rows and columns are powers of two (128 bytes of power-of-two
// elements), so the divisions are shifts: the per-operation offset tables
// (cube_payload_offsets) are built without a division per element.
struct CellIndexer {
  const TileDescriptor& d;
  const CubeGeometry& g;
  unsigned row_shift = static_cast<unsigned>(std::countr_zero(g.cell_rows));
  unsigned column_shift = static_cast<unsigned>(std::countr_zero(g.cell_columns));

  std::uint32_t operator()(std::uint32_t row, std::uint32_t column) const noexcept {
    const std::uint32_t inner_column = column & (g.cell_columns - 1);
    std::uint32_t cell = column >> column_shift, local = 0;
    if (d.layout == TileLayout::CubeN8) {
      // TileCubeCellElementIndex: N8 cells are column-major.
      cell = cell * g.k_repeat + (row >> row_shift);
      local = inner_column * g.cell_rows + (row & (g.cell_rows - 1));
    } else {
      // A four-bit M16 cell swaps its column quads 4..7 and 8..11.
      std::uint32_t mapped = inner_column;
      if (d.layout == TileLayout::CubeM16 && element_bits(d.data_type) == 4) {
        if (inner_column >= 4 && inner_column < 8) mapped = inner_column + 4;
        else if (inner_column >= 8 && inner_column < 12) mapped = inner_column - 4;
      }
      local = row * g.cell_columns + mapped;
    }
    return cell * g.cell_rows * g.cell_columns + local;
  }
};

}  // namespace

std::uint32_t cube_payload_index(const TileDescriptor& d, std::uint32_t row, std::uint32_t column) noexcept {
  const CubeGeometry g = cube_geometry(d.layout, d.valid_rows, d.valid_columns, d.data_type);
  return CellIndexer{d, g}(row, column);
}

void cube_payload_offsets(const TileDescriptor& d, std::vector<std::uint32_t>& row, std::vector<std::uint32_t>& column) {
  const CubeGeometry g = cube_geometry(d.layout, d.valid_rows, d.valid_columns, d.data_type);
  const CellIndexer index{d, g};
  row.resize(d.valid_rows);
  column.resize(d.valid_columns);
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) row[r] = index(r, 0);
  for (std::uint32_t c = 0; c < d.valid_columns; ++c) column[c] = index(0, c);
}

bool cube_descriptor_legal(const TileDescriptor& d, std::uint32_t model_tile_elements) noexcept {
  if (!d.allocated || d.storage_kind != TileStorageKind::Numeric || d.location != TileLocation::Matrix ||
      !cube_descriptor_shape_legal(d.capacity_bytes, d.valid_rows, d.valid_columns, d.data_type, d.layout,
                                   model_tile_elements))
    return false;
  const CubeGeometry g = cube_geometry(d.layout, d.valid_rows, d.valid_columns, d.data_type);
  return d.rows == g.storage_rows && d.columns == g.storage_columns;
}

}  // namespace pto::tile
