// Elementwise VEC/SFU tile semantics (asl/tile/model/execution/
// {elementwise,unary,fused-multiply-add}.asl).  Each function writes the
// destination valid region, publishes it (ADR 0014) and applies padding; the
// caller has checked legality (operands_legal) first.  The returned flags are
// the NV/DZ/OF/UF/NX bits the ASL records (RecordNumericStatusFlags /
// ScalarFPRecordFlags); TileBinary records none.
#pragma once

#include <cstdint>

#include "numerics/rounding.hpp"
#include "tile/ops_common.hpp"

namespace pto::tile::ops {

// One element of TileProfileBinaryWithFlags for the given profile (also the
// step function of reductions and expansions).
num::Result binary_element(Binary op, DataType t, std::uint64_t left, std::uint64_t right, NumericProfile profile);

// One SFU element (TEXP..TRSQRT): TileSFUUnarySpecialValue, then the
// profile hook (the reference profile's TileUnaryValue on the raw word).
num::Result sfu_element(Unary op, DataType t, std::uint64_t value, NumericProfile profile);

// ExecuteTileBinary (TADD..TREM tile-tile); records no flags.
void tile_binary(Binary op, Tile& destination, const Tile& left, const Tile& right, PadValue pad,
                 NumericProfile profile);
// ExecuteTileScalar (TADDS..TREMS): right operand = TileRawElementValue(scalar).
num::Flags tile_scalar(Binary op, Tile& destination, const Tile& source, std::uint64_t scalar, PadValue pad,
                       NumericProfile profile);
// ExecuteTileUnary (TABS..TRSQRT).
num::Flags tile_unary(Unary op, Tile& destination, const Tile& source, PadValue pad, NumericProfile profile);
// ExecuteTileFillScalar (TEXPANDS).
void tile_fill_scalar(Tile& destination, std::uint64_t scalar, PadValue pad);
// TFMA: destination = left * right + addend (TileFixedFusedMultiplyAddValue).
num::Flags tile_fma(Tile& destination, const Tile& left, const Tile& right, const Tile& addend, PadValue pad,
                    NumericProfile profile);

}  // namespace pto::tile::ops
