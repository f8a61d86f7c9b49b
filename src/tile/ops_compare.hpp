// Packed predicate tiles and the compare/select family TCMP, TCMPS, TSEL,
// TSELS (asl/tile/model/execution/comparison.asl,
// asl/tile/model/definedness/elements.asl TilePredicate*,
// asl/tile/model/state/allocation.asl ConfigurePredicateTileForMask).
//
// A predicate tile is a U8 RowMajor descriptor of predicate storage kind
// whose Row x Col logical elements are single bits: logical index
// i = row * Col + column lives in bit i mod 8 of payload byte floor(i / 8),
// and its definedness is the element bit i of the tile's definedness set.
#pragma once

#include <cstdint>

#include "tile/ops_common.hpp"

namespace pto::tile::ops {

// TileLogicalShapeMatch over both storage kinds.
bool logical_shape_match_any_storage(const TileFile& f, TileIndex a, TileIndex b) noexcept;
// TilePredicateValuesLegal: a legal, completely defined predicate-kind tile.
bool predicate_values_legal(const TileFile& f, TileIndex i) noexcept;
// TilePredicateBitFromInfo.
bool predicate_bit(const Tile& predicate, std::uint32_t row, std::uint32_t column) noexcept;

// TileCompareBoolean.
bool compare_boolean(TileComparison comparison, bool left_less, bool equal) noexcept;

struct CompareOutcome {
  bool value = false;
  num::Flags flags = 0;
  friend bool operator==(const CompareOutcome&, const CompareOutcome&) = default;
};
// TileCompareElement on raw carriers of type t: integers by
// TileIntegerOperandValue (signed or unsigned order), floating types by
// TileProfileFloatingCompare (reference profile) or the quiet IEEE compare
// (ieee profile); both: NaN unordered (NE true), NV only for a signalling
// NaN, -0 == +0.
CompareOutcome compare_element(TileComparison comparison, DataType t, std::uint64_t left, std::uint64_t right,
                               NumericProfile profile);

// ExecuteTileCompare (right != nullptr) / ExecuteTileCompareScalar (right ==
// nullptr: every element against TileRawElementValue(scalar)).  Writes the
// predicate bits of the valid region, defines it, applies
// PredicateTileWithPadding (Max: one bits, Zero/Min: zero bits, both
// defined; Null: zero bits, undefined) and returns the flags to record.
num::Flags tile_compare(TileComparison comparison, Tile& predicate, const Tile& left, const Tile* right,
                        std::uint64_t scalar, PadValue pad, NumericProfile profile);

// ExecuteTileSelect (on_false != nullptr) / ExecuteTileSelectScalar (the
// false value is TileRawElementValue(scalar_false)): exact carrier copies, no
// flags; then the valid region is defined and padded with `pad`.
void tile_select(Tile& destination, const Tile& mask, const Tile& on_true, const Tile* on_false,
                 std::uint64_t scalar_false, PadValue pad);

}  // namespace pto::tile::ops
