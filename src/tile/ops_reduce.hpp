// Reductions and broadcast expansions by row and column
// (asl/tile/model/execution/{reduction,expansion}.asl, ADR 0092).
#pragma once

#include <cstdint>

#include "numerics/rounding.hpp"
#include "tile/ops_common.hpp"

namespace pto::tile::ops {

// TileReductionOperation.
enum class Reduction : std::uint8_t { SUM, PRODUCT, MAX, MIN, ARGMAX, ARGMIN };
// TileExpandOperation.
enum class Expand : std::uint8_t { COPY, ADD, SUB, MUL, DIV, MAX, MIN, EXPDIF };

// ExecuteTileReduction: each output is the strictly sequential fold of its
// row (TileAxis_Row) or column in increasing index order; ARG* store the
// first index reaching the extreme as U32/S32.  destination != source.
num::Flags tile_reduce(Reduction op, TileAxis axis, Tile& destination, const Tile& source, PadValue pad,
                       NumericProfile profile);

// ExecuteTileExpand: destination(r,c) = source(r,c) <op> broadcast(r,0) for
// TileAxis_Row or broadcast(0,c) for TileAxis_Column; COPY writes the
// broadcast element.  Sources are snapshotted when they alias the destination.
num::Flags tile_expand(Expand op, TileAxis axis, Tile& destination, const Tile& source, const Tile& broadcast,
                       PadValue pad, NumericProfile profile);

}  // namespace pto::tile::ops
