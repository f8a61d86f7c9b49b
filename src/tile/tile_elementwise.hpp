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

#include "numerics/rounding.hpp"
#include "tile/tile_state.hpp"

namespace pto::tile {

namespace ops {
enum class Binary : std::uint8_t;  // ops_common.hpp
enum class Unary : std::uint8_t;
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

// ExecuteTileScalar payload step likewise (right operand: `scalar`, the
// TileRawElementValue of the scalar): raw-carrier ADD/SUB/MUL (integer
// types, reference profile), ieee FP32/FP64/FP16/BF16 ADD/SUB/MUL/DIV (host
// arithmetic, the flags from the host's MXCSR; x86) and MAX/MIN; `flags` =
// the OR of the element flags (RecordNumericStatusFlags).  Returns false, with no effect, for
// the rest.
bool span_scalar(ops::Binary op, Tile& destination, const Tile& source, std::uint64_t scalar, NumericProfile profile,
                 num::Flags& flags);

// ExecuteTileUnary payload step for the operations and types with a span
// fast path (TEXP: FP32 in the ieee profile; FP64/FP32/FP16/BF16 in the
// reference profile; TSQRT/TRECIP/TRSQRT/TLOG: FP32 in the ieee profile): destination valid region = op(source), bit-identical
// to ops::sfu_element, and `flags` = the OR of the element flags
// (ScalarFPRecordFlags).  Returns false, with no effect, otherwise.  Preconditions as for ops::tile_unary; the destination may be
// the source.  The caller publishes the destination.
bool span_unary(ops::Unary op, Tile& destination, const Tile& source, NumericProfile profile, num::Flags& flags);

}  // namespace pto::tile
