// Elementwise tile-tile kernels (asl/tile/model/execution/elementwise.asl
// ExecuteTileBinary).  Each kernel is one template over contiguous typed rows;
// definedness is published at word granularity after all payload effects.
#pragma once

#include <cstdint>

#include "tile/tile_state.hpp"

namespace pto::tile {

// Floating-point interpretation of TEPL arithmetic.
//  Reference: asl/arch/profile/reference-profile.asl ScalarFPBinaryProfile
//             (FloatingBinary_ADD is the raw carrier sum) — the conformance
//             profile the spec's test points assert.
//  Ieee:      IEEE 754 arithmetic via src/numerics (pto ieee profile).
enum class NumericProfile : std::uint8_t { Reference, Ieee };

// TileVecArithmeticDataTypeSupported: the data types TADD accepts.
bool vec_arithmetic_data_type_supported(DataType t) noexcept;

// ExecuteTileBinary(TileBinary_ADD): destination valid region = left + right,
// then the valid region is marked defined and padding (CurrentBundlePadValue)
// is applied outside it.  Preconditions (checked by the caller's legality):
// matching shapes and types, RowMajor layout, both sources completely
// defined, a supported data type.
void tadd(Tile& destination, const Tile& left, const Tile& right, PadValue pad, NumericProfile profile);

}  // namespace pto::tile
