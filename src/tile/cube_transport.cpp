#include "tile/cube_transport.hpp"

#include "numerics/datatypes.hpp"
#include "tile/cube_layout.hpp"
#include "tile/tile_ops.hpp"

namespace pto::tile {
namespace {


// BundleCubeTransportDimensionsLegal: LB0 (valid columns) and LB1 (valid
// rows) in 1..65535, no LB2.
bool dimensions_legal(const arch::BlockState& b) noexcept {
  if (!b.dimension_present[0] || !b.dimension_present[1] || b.dimension_present[2]) return false;
  return b.dimensions[0] >= 1 && b.dimensions[0] <= 65535 && b.dimensions[1] >= 1 && b.dimensions[1] <= 65535;
}

// BundleCubeTransportDataAttributesLegal: TLOAD takes a load conversion,
// TSTORE a store conversion; no type, comparison or numeric controls.
bool data_attributes_legal(const arch::BlockState& b) noexcept {
  const arch::BundleDataAttributes& d = b.data_attributes;
  const generated::CubeConversion* conversion = cube_conversion(d.data_layout);
  if (!b.data_attributes_present || d.data_type != num::kDataTypeNoneCode || conversion == nullptr ||
      d.comparison_mode != 0 || d.rounding_mode != 0 || d.saturating || d.canonicalize)
    return false;
  if (!b.operation.valid || b.operation.operation_class != arch::BundleOperationClass::TileMemory ||
      !b.operation.selector_valid)
    return false;
  const unsigned function = b.operation.selector & 31U;
  return function == 0 ? conversion->load : function == 1 && !conversion->load;
}

// BundleCubeTransportBindingsLegal after the generic checks: one binding,
// a fresh destination (TLOAD) or one source (TSTORE).
bool bindings_legal(const arch::BlockState& b) noexcept {
  if (shared_binding_count(b) != 0 || tile_binding_count(b) != 1) return false;
  const arch::BundleTileBinding& t = b.tile_bindings[0];
  if (!t.valid || !t.last) return false;
  if ((b.operation.selector & 31U) == 0)
    return t.destination_valid && !t.destination_allocated_by_bundle && local_size_code_legal(t.destination_size) &&
           !t.source0_valid && !t.source1_valid;
  return !t.destination_valid && t.source0_valid && !t.source1_valid;
}

// ResolveBundleCubeTransportDestination.
FaultCode resolve_destination(arch::BlockState& b, TileFile& f, std::uint32_t rows, std::uint32_t columns, DataType t,
                          TileLayout layout, std::vector<std::uint8_t>& allocated) {
  arch::BundleTileBinding& binding = b.tile_bindings[0];
  ConfigureRequest r;
  r.capacity_bytes = size_code_bytes(binding.destination_size);
  r.valid_rows = rows;
  r.valid_columns = columns;
  r.data_type = t;
  r.layout = layout;
  r.location = TileLocation::Matrix;
  r.mask = binding.pe_mask;
  if (!cube_descriptor_shape_legal(r.capacity_bytes, rows, columns, t, layout, f.model_tile_elements()) ||
      f.core_capacity_in_use() + core_allocation_bytes(r.mask, r.capacity_bytes) > f.capacity_limit())
    return FaultCode::Fault_TileAllocation;
  for (unsigned offset = 0; offset < kTilesPerHand; ++offset) {
    const auto index = static_cast<TileIndex>(binding.destination_hand * kTilesPerHand + offset);
    if (f.tile(index).allocated()) continue;
    if (f.configure_cube(index, r) != FaultCode::Fault_None) return FaultCode::Fault_TileAllocation;
    binding.destination = index;
    binding.destination_allocated_by_bundle = true;
    allocated.push_back(index);
    return FaultCode::Fault_None;
  }
  return FaultCode::Fault_TileAllocation;
}

}  // namespace

const generated::CubeConversion* cube_conversion(unsigned code) noexcept {
  for (const generated::CubeConversion& c : generated::kCubeConversions)
    if (c.code == code) return &c;
  return nullptr;
}

bool cube_transport_selected(const arch::BlockState& b) noexcept {
  return b.data_attributes_present && cube_conversion(b.data_attributes.data_layout) != nullptr;
}

CubeTransportResult execute_cube_transport(arch::BlockState& b, TileFile& f, TileMemoryPort& memory,
                                           bool generic_bindings_legal, std::uint64_t base, std::uint64_t stride,
                                           std::vector<std::uint8_t>& allocated) {
  const auto faulted = [](FaultCode fault) { return CubeTransportResult{fault, false, 0, 0}; };
  if (!dimensions_legal(b) || !data_attributes_legal(b) || !generic_bindings_legal || !bindings_legal(b) ||
      b.fixed_point_attributes.valid)
    return faulted(FaultCode::Fault_TileLegality);
  const auto type = effective_data_type(b);
  if (!type || !cube_data_type_supported(*type)) return faulted(FaultCode::Fault_TileLegality);
  const auto columns = static_cast<std::uint32_t>(b.dimensions[0]);
  const auto rows = static_cast<std::uint32_t>(b.dimensions[1]);
  const TileLayout layout = cube_conversion(b.data_attributes.data_layout)->layout;
  // An omitted B.IOR reads base zero and the dense byte pitch of the valid columns.
  if (!b.scalar_bindings[0].valid) {
    base = 0;
    stride = dense_row_stride_bytes(columns, *type);
  }
  const arch::BundleTileBinding& binding = b.tile_bindings[0];
  MemoryOutcome outcome;
  std::uint64_t elements = std::uint64_t{rows} * columns;
  if ((b.operation.selector & 31U) == 0) {
    if (const FaultCode fault = resolve_destination(b, f, rows, columns, *type, layout, allocated); fault != FaultCode::Fault_None)
      return faulted(fault);
    Tile& destination = f.tile(b.tile_bindings[0].destination);
    outcome = tload(destination, memory, base, stride);
    // The ASL TLOAD pads a CUBE destination's CELL storage (TileWithPadding).
    if (outcome.ok()) destination.apply_padding(current_pad_value(b));
  } else {
    const TileIndex source = binding.source0;
    const Tile& t = f.tile(source);
    const TileDescriptor& d = t.descriptor();
    if (!cube_descriptor_legal(d, f.model_tile_elements()) || !t.contents_defined() || d.data_type != *type || d.layout != layout ||
        d.valid_rows != rows || d.valid_columns != columns ||
        (f.allocation_mask(source) & binding.pe_mask) != binding.pe_mask)
      return faulted(FaultCode::Fault_TileLegality);
    outcome = tstore(t, memory, base, stride);
  }
  if (!outcome.ok()) return {outcome.fault, true, outcome.address, 0};
  return {FaultCode::Fault_None, false, 0, elements};
}

}  // namespace pto::tile
