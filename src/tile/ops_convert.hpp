// TCVT (asl/tile/model/numeric/formats.asl, asl/tile/elementwise-tile-tile/
// format-conversion/TCVT.asl): elementwise type conversion between any
// layouts of equal logical shape.
#pragma once

#include "numerics/rounding.hpp"
#include "tile/ops_common.hpp"

namespace pto::tile::ops {

// TileConvertValue for one element (source word as TileReadLogicalElement
// returns it): integer pairs use TileConvertIntegerValue, every pair with a
// floating side the profile conversion.
num::Result convert_element(std::uint64_t value, DataType source, DataType destination, num::RoundingMode mode,
                            bool saturating, NumericProfile profile);

// The rounding mode a TCVT uses: B.DATR RMode, or its default (RTZ for a
// floating source and integer destination, RNE otherwise).
num::RoundingMode tcvt_rounding(const NumericSelection& selection, DataType source, DataType destination) noexcept;

// TCVT: converts the valid region, publishes it with padding; returns the
// accumulated flags.  The destination may be the source (snapshotted).
num::Flags tile_convert(Tile& destination, const Tile& source, num::RoundingMode mode, bool saturating, PadValue pad,
                        NumericProfile profile);

// One TQUANT element (TileProfileQuantize): FP32 x, FP32 scale, zero point
// of the S8/U8 destination type d (the same exact definition in both profiles).
num::Result quantize_element(std::uint64_t x, std::uint64_t scale, std::uint64_t zero_point, DataType d,
                             num::RoundingMode mode, bool saturating, NumericProfile profile);
// One TDEQUANT element (TileProfileDequantize): S8/U8 q of type s to FP32.
num::Result dequantize_element(std::uint64_t q, std::uint64_t scale, std::uint64_t zero_point, DataType s,
                               num::RoundingMode mode, NumericProfile profile);

}  // namespace pto::tile::ops
