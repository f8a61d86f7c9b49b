// Elementwise vocabulary shared by every tile kernel (numeric profile, the
// VEC arithmetic type set) and the contiguous-span fast paths of the
// elementwise tile-tile kernels (asl/tile/model/execution/elementwise.asl
// ExecuteTileBinary).
//
// The fast paths run typed loops over the valid region as a few contiguous
// spans (one span when the valid columns fill every row) that the compiler
// vectorises; any element whose fast result is not provably the element
// semantics (NaN operands or results, BF16 results below the binary32 normal
// range) is recomputed with ops::binary_element.  Results are therefore
// bit-identical to the per-element semantics.
#pragma once

#include <cstdint>

#include "tile/tile_state.hpp"

namespace pto::tile {

namespace ops {
enum class Binary : std::uint8_t;  // ops_common.hpp
}

// Floating-point interpretation of TEPL arithmetic.
//  Reference: asl/arch/profile/reference-profile.asl ScalarFPBinaryProfile
//             (FloatingBinary_ADD is the raw carrier sum) — the conformance
//             profile the spec's test points assert.
//  Ieee:      IEEE 754 arithmetic via src/numerics (pto ieee profile).
enum class NumericProfile : std::uint8_t { Reference, Ieee };

// TileVecArithmeticDataTypeSupported: the data types TADD accepts.
bool vec_arithmetic_data_type_supported(DataType t) noexcept;

// ExecuteTileBinary payload step for the operations and types with a span
// fast path: destination valid region = left op right.  Returns false, with
// no effect, when (op, type, profile) has none.  Preconditions as for
// ops::tile_binary (legal, same shape and type, RowMajor, sources defined);
// the destination may be a source.  The caller publishes the destination.
bool span_binary(ops::Binary op, Tile& destination, const Tile& left, const Tile& right, NumericProfile profile);

}  // namespace pto::tile
