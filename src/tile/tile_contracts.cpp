#include "tile/tile_contracts.hpp"

#include <array>
#include <string_view>

#include "tile/cube_transport.hpp"

namespace pto::tile {
namespace {

struct ContractRow {
  const char* name;
  std::uint8_t allowed_nonzero;
  PadUnion pad_union;
};

constexpr ContractRow kRows[] = {
#include "tile/generated/tile_contracts.inc"
};
static_assert(std::size(kRows) == isa::kTileOpCount, "tile_contracts.inc is stale: rerun tools/gen_tile_contracts.py");

// TILE_LEGALITY_OWNS_SOURCE_DEFINEDNESS (the spec's decoder generator).
constexpr std::array<std::string_view, 15> kHandlersOwningDefinedness{
    "TGATHER", "THISTOGRAM", "TIMG2COL", "TGEMV", "TGEMV_ACC", "TGEMV_BIAS", "TGEMV_MX", "TGEMV_MX_ACC",
    "TGEMV_MX_BIAS", "TMATMUL", "TMATMUL_ACC", "TMATMUL_BIAS", "TMATMUL_MX", "TMATMUL_MX_ACC", "TMATMUL_MX_BIAS"};

}  // namespace

const DatrContract& datr_contract(isa::TileOp op) noexcept {
  static const std::array<DatrContract, isa::kTileOpCount> table = [] {
    std::array<DatrContract, isa::kTileOpCount> t{};
    for (std::size_t i = 0; i < t.size(); ++i) t[i] = {kRows[i].allowed_nonzero, kRows[i].pad_union};
    return t;
  }();
  return table[static_cast<std::size_t>(op)];
}

const char* datr_contract_name(isa::TileOp op) noexcept { return kRows[static_cast<std::size_t>(op)].name; }

bool datr_fields_legal(isa::TileOp op, const arch::BlockState& bundle) noexcept {
  // Omitted B.DATR: inherited values are inputs, not encoded fields.
  const bool present = bundle.data_attributes_present;
  const arch::BundleDataAttributes& d = bundle.data_attributes;
  const unsigned pad = present ? d.pad_value : 0;
  const unsigned layout = present ? d.data_layout : 0;
  const DatrContract& c = datr_contract(op);
  const std::array<std::pair<DatrField, bool>, 7> nonzero{{
      {DatrField::CMode, present && d.comparison_mode != 0},
      {DatrField::PadValue, pad != 0},
      {DatrField::Sat, present && d.saturating},
      {DatrField::Canonicalize, present && d.canonicalize},
      {DatrField::DataType, present && d.data_type != 0},
      {DatrField::RMode, present && d.rounding_mode != 0},
      {DatrField::Layout, layout != 0},
  }};
  for (const auto& [field, set] : nonzero)
    if (set && !c.allows(field)) return false;
  // Ordinary TLOAD/TSTORE keep the zero-only PadValue union rule.
  if ((op == isa::TileOp::TLOAD || op == isa::TileOp::TSTORE) && cube_conversion(layout) == nullptr && pad != 0)
    return false;
  return !(pad != 0 && c.pad_union == PadUnion::MustZero);
}

std::uint8_t generic_defined_sources(isa::TileOp op) noexcept {
  const isa::TileOpDesc& desc = isa::tile_op(op);
  for (std::string_view h : kHandlersOwningDefinedness)
    if (h == desc.semantic_handler) return 0;
  std::uint8_t mask = 0;
  for (const isa::TileOperandRole& r : isa::operands_of(desc)) {
    const std::string_view field = r.field;
    if (!field.starts_with("source") || field.size() != 7) continue;  // bias operands are source<N> fields
    mask = static_cast<std::uint8_t>(mask | (1U << (field[6] - '0')));
  }
  return mask;
}

BundleTileLayouts bundle_tile_layouts(const arch::BlockState& bundle) noexcept {
  // TileDataLayoutOfCode, then TileDataLayoutSource/DestinationLayout (the
  // generated pairs); an omitted B.DATR reads NORM (code 0).
  const unsigned code = bundle.data_attributes_present ? bundle.data_attributes.data_layout : 0;
  for (const generated::LayoutPair& p : generated::kLayoutPairs)
    if (p.code == code) return {true, p.source, p.destination};
  return {false, TileLayout::RowMajor, TileLayout::RowMajor};  // a CUBE conversion: no generic pair
}

}  // namespace pto::tile
