// Shared tile registers S0..S255 (SharedTileInfo): quarter ownership,
// update compatibility, the atomic publish/initialise commit, and the
// read-only materialisation Shared consumers see.
//
// Sources: asl/tile/model/state/shared-registers.asl,
// asl/tile/model/memory/shared-movement.asl (SharedTileElementRegion),
// asl/arch/features/{shared-tile-state,tile-allocation}.asl.
//
// A Shared payload of capacity C bytes per PE is split into four fixed
// quarters of C/4 bytes; quarter q belongs to PE q (mask bit 3 - q).  Reading
// an unallocated register or an uninitialised quarter is an undefined-register
// read: it yields UndefinedSharedTileWord and never changes Shared state.
#pragma once

#include <cstdint>
#include <optional>

#include "tile/tile_state.hpp"

namespace pto::tile {

// The shape a Shared operation names (rows are always derived).
struct SharedShape {
  std::uint32_t capacity_bytes = 0;  // per PE
  std::uint32_t columns = 0;
  std::uint32_t valid_rows = 0;
  std::uint32_t valid_columns = 0;
  DataType data_type = DataType::U8;
  TileLayout layout = TileLayout::RowMajor;
};

// SharedTileElementRegion: the quarter (= PE) that owns logical element `e`.
unsigned shared_element_region(const TileDescriptor& d, std::uint32_t element) noexcept;
// PE mask bit of quarter `region` is set in `mask`.
constexpr bool region_selected(PeMask mask, unsigned region) noexcept { return (mask >> pe_mask_bit_of_pe(region)) & 1U; }

// UndefinedSharedTileWord: the deterministic model value of an undefined read.
constexpr std::uint64_t undefined_shared_word(unsigned shared_id, std::uint32_t element) noexcept {
  return std::uint64_t{shared_id} ^ std::uint64_t{element};
}
// ReadSharedTileWord (raw element bits; undefined reads as above).
std::uint64_t read_shared_word(const SharedTile& s, unsigned shared_id, std::uint32_t element) noexcept;

// SharedTileDescriptorLegal / SharedTileFullyInitialized / SharedTilePublished.
bool shared_descriptor_legal(const TileFile& f, unsigned shared_id) noexcept;
bool shared_fully_initialized(const SharedTile& s) noexcept;
bool shared_published(const SharedTile& s) noexcept;
// SharedTileCooperativeMatrixReady: legal, allocated and initialised in all
// four quarters, published and defined (a Shared CUBE Matrix operand).
bool shared_cooperative_matrix_ready(const TileFile& f, unsigned shared_id) noexcept;

// MinimumTileCapacityBytesForShape: the smallest SizeCode capacity (1..12)
// whose descriptor holds the shape, or 0.
std::uint32_t minimum_capacity_for_shape(std::uint32_t columns, std::uint32_t valid_rows,
                                         std::uint32_t valid_columns, DataType t) noexcept;

// A descriptor for `shape` (rows derived, location Any).
TileDescriptor shared_descriptor(const SharedShape& shape) noexcept;

// SharedTileUpdateCompatible: the candidate descriptor may update the
// selected quarters (fresh register: within the TILE_CAPACITY budget).
bool shared_update_compatible(const TileFile& f, unsigned shared_id, const TileDescriptor& d, PeMask mask) noexcept;
// SharedTileProspectiveFullyInitialized.
bool shared_prospective_fully_initialized(const TileFile& f, unsigned shared_id, const TileDescriptor& d,
                                          PeMask mask) noexcept;

// SharedTileReadSchemaLegalAtCapacity / SharedTileReadSchemaLegal (the
// latter takes the register's capacity, or the minimum one when unallocated).
bool shared_read_schema_legal_at_capacity(const TileFile& f, unsigned shared_id, const SharedShape& shape) noexcept;
std::optional<SharedShape> shared_read_schema(const TileFile& f, unsigned shared_id, SharedShape shape) noexcept;

// AtomicUpdateSharedTileWithPublication: one record commit.  `source` holds
// the candidate descriptor and payload; its defined elements of the selected
// quarters are copied.  False (nothing changed) when not compatible.
bool atomic_update_shared(TileFile& f, unsigned shared_id, const Tile& source, PeMask mask, bool publish);

}  // namespace pto::tile
