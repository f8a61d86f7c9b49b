// Local CUBE tile layouts: the 128-byte CELL geometry of CUBE_M16, CUBE_M32
// and CUBE_N8, the storage shape derived from the valid region, and the
// payload index of a logical (row, column).
//
// Source: asl/tile/model/shape/cube-cell.asl (PTO-CUBE-CELL-STATE-001),
// asl/tile/model/state/allocation.asl (ConfigureCubeTileForMask),
// asl/tile/model/legality/descriptor-shape.asl (TileCubeDescriptorLegal).
//
// Storage depends only on the valid region and the data type, never on the
// per-PE capacity (which must merely be large enough).  An M layout holds at
// most 16 (M16) or 32 (M32) rows in one row of cells along the columns; N8
// stacks cells of 8 columns, K-major inside each column group.
#pragma once

#include <cstdint>
#include <vector>

#include "tile/tile_state.hpp"

namespace pto::tile {

// Derived CUBE storage of one descriptor; all zero when the shape is illegal.
struct CubeGeometry {
  std::uint32_t cell_rows = 0, cell_columns = 0;        // TileCubeCellRows/Columns
  std::uint32_t storage_rows = 0, storage_columns = 0;  // TileCubeStorageRows/Columns
  std::uint32_t k_repeat = 0, n_repeat = 0, cell_count = 0;
  std::uint32_t storage_bytes = 0;                      // TileCubeRequiredBytes
  bool valid() const noexcept { return storage_bytes != 0; }
};

// TileCubeDataTypeSupported: every type except HiF4X2 and the 64-bit ones.
bool cube_data_type_supported(DataType t) noexcept;
// The geometry of (layout, valid rows, valid columns, type): TileCubeCellCount
// and the storage it derives, not yet bounded by PTO_MODEL_TILE_ELEMENTS.
CubeGeometry cube_geometry(TileLayout layout, std::uint32_t valid_rows, std::uint32_t valid_columns,
                           DataType t) noexcept;
// TileCubeStorageElements before its PTO_MODEL_TILE_ELEMENTS bound: the
// elements of every CELL (0 for an illegal geometry).
constexpr std::uint64_t cube_storage_elements(const CubeGeometry& g) noexcept {
  return std::uint64_t{g.cell_count} * g.cell_rows * g.cell_columns;
}
// TileCubeDescriptorShapeLegal; model_tile_elements is the run's
// PTO_MODEL_TILE_ELEMENTS (TileFile::model_tile_elements; the default is the
// ASL's default configuration), which bounds TileCubeStorageElements.
bool cube_descriptor_shape_legal(std::uint32_t capacity_bytes, std::uint32_t valid_rows,
                                 std::uint32_t valid_columns, DataType t, TileLayout layout,
                                 std::uint32_t model_tile_elements = kModelTileElementsMax) noexcept;
// TileCubePayloadIndex for a descriptor whose shape is legal.
std::uint32_t cube_payload_index(const TileDescriptor& d, std::uint32_t row, std::uint32_t column) noexcept;
// Its row part (column 0) and column part (row 0) over the valid region,
// the geometry derived once (Tile::valid_offsets).
void cube_payload_offsets(const TileDescriptor& d, std::vector<std::uint32_t>& row, std::vector<std::uint32_t>& column);
// TileCubeDescriptorLegal (allocated numeric Matrix tile with its derived
// storage) under PTO_MODEL_TILE_ELEMENTS = model_tile_elements.
bool cube_descriptor_legal(const TileDescriptor& d, std::uint32_t model_tile_elements = kModelTileElementsMax) noexcept;
// TileMatrixMLayoutLegal: CUBE_M16 holds m <= 16 rows, CUBE_M32 m <= 32.
constexpr bool matrix_m_layout_legal(TileLayout layout, std::uint32_t m) noexcept {
  return (layout == TileLayout::CubeM16 && m <= 16) || (layout == TileLayout::CubeM32 && m <= 32);
}

}  // namespace pto::tile
