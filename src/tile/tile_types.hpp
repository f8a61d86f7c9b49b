// Tile-model vocabulary: register file geometry, hands, PE masks, size codes,
// layouts, locations, padding and the fault kinds the tile model reports.
// Sources: asl/tile/model/state/{types,descriptors}.asl,
// asl/arch/features/tile-allocation.asl,
// asl/arch/programming-model/core-pe-topology.asl,
// asl/block/model/schema/profile-encoding.asl (PTOv0PEMaskOfPEMode), ADR 0096.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "arch/state.hpp"
#include "numerics/datatypes.hpp"
#include "tile/generated/pe_mode_masks.hpp"

namespace pto::tile {

using num::DataType;

inline constexpr unsigned kTileRegisterCount = 64;      // PTO_TILE_REGISTER_COUNT
inline constexpr unsigned kSharedTileCount = 256;       // PTO_SHARED_TILE_COUNT
inline constexpr unsigned kTilesPerHand = 16;
inline constexpr unsigned kPeCount = 4;                 // PTO_MODEL_MEMORY_AGENTS
inline constexpr std::uint32_t kTileCellBytes = 128;                // PTO_TILE_CELL_BYTES
inline constexpr std::uint32_t kTileCapacityBytes = 262144;         // PTO_TILE_CAPACITY_BYTES
inline constexpr std::uint32_t kLocalTileMaxBytes = 65536;          // PTO_TILE_MAX_ALLOCATION_BYTES
inline constexpr std::uint32_t kSharedTileMaxBytes = 262144;        // PTO_SHARED_TILE_MAX_ALLOCATION_BYTES
// PTO_MODEL_TILE_ELEMENTS default and maximum (asl/arch/features/tile-allocation.asl);
// the run's value comes from arch::MachineConfig::tile_elements (TileFile::model_tile_elements).
inline constexpr std::uint32_t kModelTileElementsMax = 32768;

using TileIndex = std::uint8_t;  // 0..63

// TileHand_T/U/M/N own indices 0-15, 16-31, 32-47, 48-63 (TileHandOf).
enum class TileHand : std::uint8_t { T = 0, U = 1, M = 2, N = 3 };

constexpr TileHand hand_of(TileIndex index) noexcept { return static_cast<TileHand>(index / kTilesPerHand); }
// TileIndexWithinHand: 1..16 (the "#k" spelling).
constexpr unsigned index_within_hand(TileIndex index) noexcept { return index % kTilesPerHand + 1; }
constexpr char hand_letter(TileHand h) noexcept { return "TUMN"[static_cast<unsigned>(h)]; }

// Architectural four-bit PE mask; bit 3 is PE0 (PTOPEMaskBitOfPEIdentity).
using PeMask = std::uint8_t;
constexpr unsigned pe_mask_bit_of_pe(unsigned pe) noexcept { return 3 - pe; }
constexpr unsigned pe_mask_population(PeMask m) noexcept {
  return ((m >> 0) & 1U) + ((m >> 1) & 1U) + ((m >> 2) & 1U) + ((m >> 3) & 1U);
}
// PTOv0PEMaskOfPEMode (ADR 0096).
constexpr PeMask pe_mask_of_pe_mode(unsigned mode) noexcept { return generated::kPeMaskOfPeMode[mode & 7U]; }
// TileCoreAllocationBytes.
constexpr std::uint64_t core_allocation_bytes(PeMask m, std::uint64_t per_pe_bytes) noexcept {
  return pe_mask_population(m) * per_pe_bytes;
}

// SizeCode k -> 128 << (k-1) bytes per PE (TileSizeCodeBytes).
constexpr bool size_code_legal(unsigned code) noexcept { return code >= 1 && code <= 12; }
constexpr bool local_size_code_legal(unsigned code) noexcept { return code >= 1 && code <= 10; }
constexpr std::uint32_t size_code_bytes(unsigned code) noexcept { return kTileCellBytes << (code - 1); }

// TileLayout (asl/tile/model/state/types.asl users; ZN/NZ are fractal).
enum class TileLayout : std::uint8_t { RowMajor, ColumnMajor, ZN, NZ, CubeM16, CubeM32, CubeN8, ImplementationDefined };
enum class TileLocation : std::uint8_t { Any, Vector, Matrix };
enum class TileStorageKind : std::uint8_t { Numeric, Predicate };
// TilePadValue; B.DATR PadValue 00/01/10/11 = Zero/Max/Min/Null.
enum class PadValue : std::uint8_t { Zero = 0, Max = 1, Min = 2, Null = 3 };

constexpr bool layout_is_cube(TileLayout l) noexcept {
  return l == TileLayout::CubeM16 || l == TileLayout::CubeM32 || l == TileLayout::CubeN8;
}
std::string_view layout_name(TileLayout l) noexcept;
std::string_view location_name(TileLocation l) noexcept;
std::string_view pad_value_name(PadValue p) noexcept;

// Faults the tile and bundle model raise: the architectural FaultCode
// (asl/arch/data-types/fault.asl).
using arch::FaultCode;

// TileElementBits / TileElementBytes / TileMemoryElementBytes.
constexpr unsigned element_bits(DataType t) noexcept { return num::is_packed4(t) ? 4U : num::carrier_bits(t); }
constexpr unsigned memory_element_bytes(DataType t) noexcept { return num::is_packed4(t) ? 1U : num::carrier_bits(t) / 8U; }
// TileDataTypeIsSigned: the two's-complement integer types only.
constexpr bool data_type_is_signed_integer(DataType t) noexcept { return num::info(t).kind == num::DataTypeKind::Signed; }

}  // namespace pto::tile
