// Catalog-derived per-operation contracts the generic commit checks before
// any operation-specific rule: the B.DATR fields an operation allows to be
// nonzero (catalog datr_contract, TileOperationDATRFieldsLegal and
// SelectedBundleTileDataAttributesLegal in
// asl/block/model/dispatch/tile-schema.asl) and which operands the generic
// source-definedness step checks (ExecuteTileInstructionWithoutTime..., ADR 0014).
#pragma once

#include <cstdint>

#include "arch/state.hpp"
#include "isa/catalog.hpp"
#include "tile/tile_types.hpp"

namespace pto::tile {

// Bit positions of the allowed-nonzero mask (tools/gen_tile_contracts.py).
enum class DatrField : std::uint8_t { CMode, PadValue, Sat, Canonicalize, DataType, RMode, Layout };
// TileDATRPadUnion.
enum class PadUnion : std::uint8_t { MustZero, PadValue, HistogramByteId };

struct DatrContract {
  std::uint8_t allowed_nonzero = 0;  // 1 << DatrField
  PadUnion pad_union = PadUnion::MustZero;

  bool allows(DatrField f) const noexcept { return (allowed_nonzero >> static_cast<unsigned>(f)) & 1U; }
};

const DatrContract& datr_contract(isa::TileOp op) noexcept;
// The catalog name the contract row was generated for (drift check in tests).
const char* datr_contract_name(isa::TileOp op) noexcept;

// SelectedBundleTileDataAttributesLegal for a non-matrix operation: an
// explicit (present) B.DATR may only set the allowed fields; ordinary
// TLOAD/TSTORE require PadValue zero unless the layout is a CUBE conversion.
bool datr_fields_legal(isa::TileOp op, const arch::BlockState& bundle) noexcept;

// The catalog operands the generic step checks with TileSourceContentsDefined:
// fields starting with "source" or with role "bias", unless the semantic
// handler owns source definedness (TILE_LEGALITY_OWNS_SOURCE_DEFINEDNESS).
// Bit i = source i (source0..source7); bias operands map to their field.
std::uint8_t generic_defined_sources(isa::TileOp op) noexcept;

// TileDataLayoutSourceLayout / TileDataLayoutDestinationLayout of the
// bundle's B.DATR Layout (CurrentBundleTileSourceLayout and
// CurrentBundleTileLayout, asl/block/model/state/control-state.asl); an
// omitted B.DATR selects NORM.  The CUBE conversion codes 21..26 have no
// pair (the ASL marks them unreachable there): valid is false and both
// layouts read RowMajor.
struct BundleTileLayouts {
  bool valid = true;
  TileLayout source = TileLayout::RowMajor;
  TileLayout destination = TileLayout::RowMajor;
};
BundleTileLayouts bundle_tile_layouts(const arch::BlockState& bundle) noexcept;

}  // namespace pto::tile
