// Dedicated TLSU commit paths (asl/block/model/dispatch/{tlsu-mgather,
// tlsu-mgather-mask,tlsu-mgather-cas,tlsu-mscatter,tlsu-mscatter-mask,
// tlsu-prefetch,tlsu-gmov,shared-tlsu}.asl) and the TLSU TileKernels.
// Each path keeps its ASL unit's check order; every check precedes the
// first effect, and the engine rolls back destinations on any fault.
#include "tile/ops_compare.hpp"
#include "tile/ops_tlsu.hpp"
#include "tile/tile_contracts.hpp"

namespace pto::tile {
namespace {

using arch::BlockState;
using arch::BundleTileBinding;

struct Dimensions {
  std::uint32_t valid_columns = 1, valid_rows = 1, columns = 1;
};

bool dimension_in_range(const BlockState& b, unsigned i) noexcept {
  return b.dimensions[i] >= 1 && b.dimensions[i] <= 65535;
}

// Present dimensions are 1..65535 (an encoded zero is a value, not absence).
bool present_dimensions_positive(const BlockState& b) noexcept {
  for (unsigned i = 0; i < arch::kBundleDimensionCount; ++i)
    if (b.dimension_present[i] && !dimension_in_range(b, i)) return false;
  return true;
}

// ValidCol = LB0, ValidRow = LB1 (default 1), Col = LB2 (default ValidCol).
Dimensions loop_dimensions(const BlockState& b) noexcept {
  Dimensions d;
  d.valid_columns = static_cast<std::uint32_t>(b.dimensions[0]);
  d.valid_rows = b.dimension_present[1] ? static_cast<std::uint32_t>(b.dimensions[1]) : 1;
  d.columns = b.dimension_present[2] ? static_cast<std::uint32_t>(b.dimensions[2]) : d.valid_columns;
  return d;
}

// The footprint part of BundleTPREFETCHDimensionsLegal, BundleMGATHERDimensionsLegal
// and TileOperandsLegal_TPREFETCH: ValidRow x ValidCol within PTO_MODEL_TILE_ELEMENTS.
bool footprint_legal(const Dimensions& d, const TileFile& f) noexcept {
  return d.valid_columns <= d.columns && is_nonzero_power_of_two(d.columns) &&
         f.within_model_tile_elements(std::uint64_t{d.valid_rows} * d.valid_columns);
}

// BundleMGATHERDimensionsLegal (shared by MGATHER*, MSCATTER*).
bool indexed_dimensions_legal(const BlockState& b, const TileFile& f) noexcept {
  return b.dimension_present[0] && present_dimensions_positive(b) && footprint_legal(loop_dimensions(b), f);
}

// BundleDestinationValidColumns/ValidRows/PhysicalColumns(FALSE, 0): LB
// values, else the single legal Shared binding's descriptor, else 1.
Dimensions destination_dimensions(const BlockState& b, const TileFile& f) noexcept {
  const SharedTile* s = nullptr;
  if (shared_binding_count(b) == 1 && shared_descriptor_legal(f, b.shared_bindings[0].shared_id))
    s = &f.shared(b.shared_bindings[0].shared_id);
  const auto pick = [&](unsigned i, std::uint32_t shared_value, std::uint32_t otherwise) {
    return dimension_in_range(b, i) ? static_cast<std::uint32_t>(b.dimensions[i]) : s ? shared_value : otherwise;
  };
  Dimensions d;
  d.valid_columns = pick(0, s ? s->tile.descriptor().valid_columns : 0, 1);
  d.valid_rows = pick(1, s ? s->tile.descriptor().valid_rows : 0, 1);
  d.columns = pick(2, s ? s->tile.descriptor().columns : 0, d.valid_columns);
  return d;
}

bool valid_shape_is(const Tile& t, const Dimensions& d) noexcept {
  return t.descriptor().valid_rows == d.valid_rows && t.descriptor().valid_columns == d.valid_columns;
}

// CurrentBundleTileLayout: the destination layout of the B.DATR Layout pair
// (RowMajor for NORM or an omitted B.DATR).  The dedicated paths compare
// their source tiles and Shared views with it, and place their destinations
// in it; the CUBE codes never get here (BundleCubeTransportSelected).
TileLayout current_layout(const BlockState& b) noexcept { return bundle_tile_layouts(b).destination; }

DestinationPlan explicit_plan(const Dimensions& d, DataType t) noexcept {
  DestinationPlan p;
  p.explicit_shape = true;
  p.valid_rows = d.valid_rows;
  p.valid_columns = d.valid_columns;
  p.columns = d.columns;
  p.primary_type = t;
  return p;
}

TlsuBundleResult fault(FaultCode f) {
  TlsuBundleResult r;
  r.fault = f;
  return r;
}
TlsuBundleResult memory_fault(const MemoryOutcome& o) {
  TlsuBundleResult r;
  r.fault = o.fault;
  r.fault_address_is_data = true;
  r.fault_address = o.address;
  return r;
}
TlsuBundleResult written(std::uint64_t elements) {
  TlsuBundleResult r;
  r.elements_written = elements;
  return r;
}
TlsuBundleResult no_op() {
  TlsuBundleResult r;
  r.no_op = true;
  return r;
}

// The common schema prefix of the indexed paths (MGATHER*, MSCATTER*).
bool indexed_schema_legal(const BlockState& b, const TileFile& f, isa::TileOp op, const TlsuBundleHost& host) {
  return shared_binding_count(b) == 0 && b.scalar_bindings[0].valid && host.bindings_complete(op) &&
         host.gpr_binding_values_legal(op) && host.masks_legal() && indexed_dimensions_legal(b, f);
}

std::uint64_t base_address(const BlockState& b, const TlsuBundleHost& host) {
  return host.read_pe_gpr(host.current_pe(), b.scalar_bindings[0].source0);
}

// ExecuteBundleMGATHEROperation / ExecuteBundleMGATHERMASKOperation.
TlsuBundleResult run_mgather(BlockState& b, TileFile& f, isa::TileOp op, TlsuBundleHost& host) {
  if (host.mask_is_zero()) return no_op();
  const bool masked = op == isa::TileOp::MGATHER_MASK;
  const BundleTileBinding& binding = b.tile_bindings[0];
  const bool bindings_legal = masked ? binding.valid && binding.destination_valid && binding.source0_valid &&
                                           binding.source1_valid && binding.last
                                     : true;
  if (!indexed_schema_legal(b, f, op, host) || tile_binding_count(b) != 1 || !bindings_legal)
    return fault(FaultCode::Fault_TileLegality);
  if (!datr_fields_legal(op, b)) return fault(FaultCode::Fault_TileLegality);
  const TileIndex indices = binding.source0;
  const auto type = operation_data_type(b);
  const Dimensions dims = loop_dimensions(b);
  if (masked) {
    const TileIndex mask = binding.source1;
    if (!f.source_contents_defined(indices) || !ops::predicate_values_legal(f, mask) ||
        !indexed_index_type_legal(f.tile(indices).data_type()) || !type || !indexed_transfer_type_legal(*type) ||
        f.tile(indices).descriptor().layout != current_layout(b) ||
        f.tile(mask).descriptor().layout != current_layout(b) ||
        !valid_shape_is(f.tile(indices), dims) || !valid_shape_is(f.tile(mask), dims))
      return fault(FaultCode::Fault_TileLegality);
  } else {
    if (!binding.destination_valid || !binding.source0_valid || binding.source1_valid || !binding.last ||
        !f.source_contents_defined(indices) || !indexed_index_type_legal(f.tile(indices).data_type()) || !type ||
        !indexed_transfer_type_legal(*type) || !valid_shape_is(f.tile(indices), dims))
      return fault(FaultCode::Fault_TileLegality);
  }
  if (const FaultCode a = host.resolve_destinations(explicit_plan(dims, *type)); a != FaultCode::Fault_None) return fault(a);
  const TileIndex destination = b.tile_bindings[0].destination;
  const Tile& d = f.tile(destination);
  // TileOperandsLegal_MGATHER / _MGATHER_MASK.
  if (!f.descriptor_legal(destination) || !f.descriptor_legal(indices) || !valid_shape_is(f.tile(indices), dims) ||
      !valid_shape_is(d, dims) || (masked && d.descriptor().layout != f.tile(indices).descriptor().layout))
    return fault(FaultCode::Fault_TileLegality);
  const Tile* mask = masked ? &f.tile(binding.source1) : nullptr;
  const MemoryOutcome o = mgather(f.tile(destination), host.memory(), host.current_pe(), base_address(b, host),
                                  f.tile(indices), mask, current_pad_value(b));
  return o.ok() ? written(d.valid_element_count()) : memory_fault(o);
}

// ExecuteBundleMGATHERCASOperation.
TlsuBundleResult run_mgather_cas(BlockState& b, TileFile& f, TlsuBundleHost& host) {
  constexpr isa::TileOp op = isa::TileOp::MGATHER_CAS;
  if (host.mask_is_zero()) return no_op();
  const BundleTileBinding& first = b.tile_bindings[0];
  const BundleTileBinding& second = b.tile_bindings[1];
  const bool bindings_legal = tile_binding_count(b) == 2 && first.valid && !first.destination_valid &&
                              first.source0_valid && first.source1_valid && !first.last &&
                              first.destination_size == 0 && second.valid && second.destination_valid &&
                              second.source0_valid && !second.source1_valid && second.last;
  if (!indexed_schema_legal(b, f, op, host) || !bindings_legal) return fault(FaultCode::Fault_TileLegality);
  if (!datr_fields_legal(op, b)) return fault(FaultCode::Fault_TileLegality);
  const TileIndex indices = first.source0, expected = first.source1, replacement = second.source0;
  const auto type = operation_data_type(b);
  const Dimensions dims = loop_dimensions(b);
  if (!f.source_contents_defined(indices) || !f.source_contents_defined(expected) ||
      !f.source_contents_defined(replacement) || !indexed_index_type_legal(f.tile(indices).data_type()) || !type ||
      !indexed_transfer_type_legal(*type) || f.tile(expected).data_type() != *type ||
      f.tile(replacement).data_type() != *type)
    return fault(FaultCode::Fault_TileLegality);
  for (const TileIndex t : {indices, expected, replacement})
    if (!valid_shape_is(f.tile(t), dims)) return fault(FaultCode::Fault_TileLegality);
  if (const FaultCode a = host.resolve_destinations(explicit_plan(dims, *type)); a != FaultCode::Fault_None) return fault(a);
  const TileIndex destination = b.tile_bindings[1].destination;
  if (!f.descriptor_legal(destination) || !valid_shape_is(f.tile(destination), dims) ||
      f.tile(destination).data_type() != *type)  // TileOperandsLegal_MGATHER_CAS
    return fault(FaultCode::Fault_TileLegality);
  const MemoryOutcome o = mgather_cas(f.tile(destination), host.memory(), host.current_pe(), base_address(b, host),
                                      f.tile(indices), f.tile(expected), f.tile(replacement), current_pad_value(b));
  return o.ok() ? written(f.tile(destination).valid_element_count()) : memory_fault(o);
}

// ExecuteBundleMSCATTEROperation / ExecuteBundleMSCATTERMASKOperation.
TlsuBundleResult run_mscatter(BlockState& b, TileFile& f, isa::TileOp op, TlsuBundleHost& host) {
  if (host.mask_is_zero()) return no_op();
  const bool masked = op == isa::TileOp::MSCATTER_MASK;
  const BundleTileBinding& first = b.tile_bindings[0];
  const BundleTileBinding& second = b.tile_bindings[1];
  const bool first_legal = first.valid && !first.destination_valid && first.destination_size == 0 &&
                           first.source0_valid && first.source1_valid && first.last != masked;
  const bool bindings_legal = masked ? tile_binding_count(b) == 2 && first_legal && second.valid &&
                                           !second.destination_valid && second.destination_size == 0 &&
                                           second.source0_valid && !second.source1_valid && second.last
                                     : tile_binding_count(b) == 1 && first_legal;
  if (!indexed_schema_legal(b, f, op, host) || !bindings_legal) return fault(FaultCode::Fault_TileLegality);
  if (!datr_fields_legal(op, b)) return fault(FaultCode::Fault_TileLegality);
  const TileIndex source = first.source0, indices = first.source1;
  const auto type = operation_data_type(b);
  const Dimensions dims = loop_dimensions(b);
  const Tile& s = f.tile(source);
  const Tile& i = f.tile(indices);
  if (!f.source_contents_defined(source) || !f.source_contents_defined(indices) ||
      (masked && !ops::predicate_values_legal(f, second.source0)) || !type || s.data_type() != *type ||
      !indexed_index_type_legal(i.data_type()) || !indexed_transfer_type_legal(*type) || !valid_shape_is(s, dims) ||
      s.descriptor().columns != dims.columns || !valid_shape_is(i, dims) ||
      (masked && !valid_shape_is(f.tile(second.source0), dims)) || s.descriptor().layout != current_layout(b) ||
      i.descriptor().layout != current_layout(b) ||
      (masked && f.tile(second.source0).descriptor().layout != current_layout(b)))
    return fault(FaultCode::Fault_TileLegality);
  const Tile* mask = masked ? &f.tile(second.source0) : nullptr;
  const MemoryOutcome o = mscatter(s, host.memory(), host.current_pe(), base_address(b, host), i, mask);
  return o.ok() ? written(0) : memory_fault(o);
}

// ExecuteBundleTPREFETCHOperation: implicit participation 1111, no tile operand.
TlsuBundleResult run_tprefetch(BlockState& b, const TileFile& f, TlsuBundleHost& host) {
  constexpr isa::TileOp op = isa::TileOp::TPREFETCH;
  const auto type = operation_data_type(b);
  if (!type || !carrier_or_packed_type_supported(*type)) return fault(FaultCode::Fault_TileLegality);
  const Dimensions dims = destination_dimensions(b, f);
  if (tile_binding_count(b) != 0 || shared_binding_count(b) != 0 || !host.bindings_complete(op) ||
      !host.gpr_binding_values_legal(op) || !present_dimensions_positive(b) || !footprint_legal(dims, f))
    return fault(FaultCode::Fault_TileLegality);
  if (!datr_fields_legal(op, b)) return fault(FaultCode::Fault_TileLegality);
  const arch::BundleScalarBinding& s = b.scalar_bindings[0];
  PeWords bases{}, strides{};
  for (unsigned pe = 0; pe < kPeCount; ++pe) {
    bases[pe] = s.valid ? host.read_pe_gpr(pe, s.source0) : 0;
    strides[pe] = s.valid ? host.read_pe_gpr(pe, s.source1) : dims.columns;
  }
  const MemoryOutcome o = tprefetch(host.memory(), bases, strides, {dims.valid_columns, dims.valid_rows, dims.columns, *type});
  return o.ok() ? written(0) : memory_fault(o);
}

// ExecuteBundleGMOVOperation: the Core4 source snapshot copied to a renamed
// destination; every PE's peer identifier is range-checked first.
TlsuBundleResult run_gmov(BlockState& b, TileFile& f, TlsuBundleHost& host) {
  constexpr isa::TileOp op = isa::TileOp::GMOV;
  if (shared_binding_count(b) != 0 || !host.bindings_complete(op) || !host.gpr_binding_values_legal(op) ||
      !host.masks_legal() || tile_binding_count(b) != 1)
    return fault(FaultCode::Fault_TileLegality);
  if (!datr_fields_legal(op, b)) return fault(FaultCode::Fault_TileLegality);
  const BundleTileBinding& binding = b.tile_bindings[0];
  const auto type = operation_data_type(b);
  const TileIndex source = binding.source0;
  const Tile& s = f.tile(source);
  const bool core4_ready = f.source_contents_defined(source) && f.allocation_mask(source) == 0b1111;
  if (!binding.destination_valid || !binding.source0_valid || binding.source1_valid || !binding.last ||
      !core4_ready || !local_size_code_legal(binding.destination_size) ||
      size_code_bytes(binding.destination_size) != s.descriptor().capacity_bytes || !type ||
      !carrier_or_packed_type_supported(*type) || s.data_type() != *type || s.descriptor().layout != current_layout(b))
    return fault(FaultCode::Fault_TileLegality);
  for (unsigned i = 0; i < arch::kBundleDimensionCount; ++i)
    if (b.dimension_present[i]) return fault(FaultCode::Fault_TileLegality);
  const arch::BundleScalarBinding& scalar = b.scalar_bindings[0];
  for (unsigned pe = 0; pe < kPeCount; ++pe)
    if (scalar.valid && host.read_pe_gpr(pe, scalar.source0) >= kPeCount) return fault(FaultCode::Fault_TileLegality);
  if (const FaultCode a = host.resolve_destinations(default_destinations(b, f)); a != FaultCode::Fault_None) return fault(a);
  const TileIndex destination = b.tile_bindings[0].destination;
  const TileDescriptor& d = f.tile(destination).descriptor();
  // TileOperandsLegal_GMOV (the snapshot is the resolved peer source).
  if (!f.descriptor_legal(destination) || d.valid_rows != s.descriptor().valid_rows ||
      d.valid_columns != s.descriptor().valid_columns || d.data_type != s.data_type() ||
      d.layout != s.descriptor().layout || d.location == TileLocation::Matrix ||
      s.descriptor().location == TileLocation::Matrix)
    return fault(FaultCode::Fault_TileLegality);
  f.copy_tile(destination, source, f.allocation_mask(destination));
  return written(f.tile(destination).valid_element_count());
}

// BundleSharedStoreValidColumns / ValidRows / Columns.
Dimensions shared_store_dimensions(const BlockState& b, const SharedTile& s) noexcept {
  const auto pick = [&](unsigned i, std::uint32_t shared_value, std::uint32_t otherwise) -> std::uint32_t {
    if (b.dimension_present[i]) return b.dimensions[i] <= 65535 ? static_cast<std::uint32_t>(b.dimensions[i]) : 0;
    return s.descriptor_valid ? shared_value : otherwise;
  };
  Dimensions d;
  d.valid_columns = pick(0, s.tile.descriptor().valid_columns, 1);
  d.valid_rows = pick(1, s.tile.descriptor().valid_rows, 1);
  d.columns = pick(2, s.tile.descriptor().columns, d.valid_columns);
  return d;
}

// Per-PE base addresses and byte strides (B.IOR RegSrc0/RegSrc1; omitted:
// zero base and the dense stride).
void shared_addresses(const BlockState& b, const TlsuBundleHost& host, std::uint64_t dense_stride, PeWords& bases,
                      PeWords& strides) {
  const arch::BundleScalarBinding& s = b.scalar_bindings[0];
  for (unsigned pe = 0; pe < kPeCount; ++pe) {
    bases[pe] = s.valid ? host.read_pe_gpr(pe, s.source0) : 0;
    strides[pe] = s.valid ? host.read_pe_gpr(pe, s.source1) : dense_stride;
  }
}

TlsuBundleResult run_shared_tload(BlockState& b, TileFile& f, const arch::BundleSharedBinding& sb, DataType type,
                                  TlsuBundleHost& host) {
  if (sb.size_code == 0 || !size_code_legal(sb.size_code) || tile_binding_count(b) != 0)
    return fault(FaultCode::Fault_TileLegality);
  // Raw LB values: an omitted dimension reads as zero here.
  const std::uint64_t vc = b.dimensions[0], vr = b.dimensions[1], cols = b.dimensions[2];
  if (vc < 1 || vc > 65535 || vr < 1 || vr > 65535 || cols < 1 || cols > 65535 || vc > cols)
    return fault(FaultCode::Fault_TileLegality);
  SharedShape shape{size_code_bytes(sb.size_code), static_cast<std::uint32_t>(cols), static_cast<std::uint32_t>(vr),
                    static_cast<std::uint32_t>(vc), type, current_layout(b)};
  PeWords bases{}, strides{};
  shared_addresses(b, host, dense_row_stride_bytes(shape.columns, type), bases, strides);
  const MemoryOutcome o = tload_shared(f, sb.shared_id, host.memory(), bases, strides, shape, sb.pe_mask);
  if (o.fault == FaultCode::Fault_TileLegality) return fault(o.fault);
  return o.ok() ? written(std::uint64_t{shape.valid_rows} * shape.valid_columns) : memory_fault(o);
}

TlsuBundleResult run_shared_tstore(BlockState& b, TileFile& f, const arch::BundleSharedBinding& sb, unsigned function,
                                   DataType type, TlsuBundleHost& host) {
  const bool mask_legal = sb.pe_mask == 0 || (function == 1 ? sb.pe_mask == 0b1111 : function == 14);
  if (!mask_legal || sb.size_code != 0 || tile_binding_count(b) != 0) return fault(FaultCode::Fault_TileLegality);
  const Dimensions dims = shared_store_dimensions(b, f.shared(sb.shared_id));
  if (dims.valid_columns < 1 || dims.valid_rows < 1 || dims.columns < 1 || dims.valid_columns > dims.columns)
    return fault(FaultCode::Fault_TileLegality);
  const auto schema =
      shared_read_schema(f, sb.shared_id, {0, dims.columns, dims.valid_rows, dims.valid_columns, type, current_layout(b)});
  if (!schema) return fault(FaultCode::Fault_TileLegality);
  PeWords bases{}, strides{};
  shared_addresses(b, host, dense_row_stride_bytes(dims.columns, type), bases, strides);
  const MemoryOutcome o =
      tstore_shared(f, sb.shared_id, host.memory(), bases, strides, shared_descriptor(*schema), sb.pe_mask);
  if (o.fault == FaultCode::Fault_TileLegality) return fault(o.fault);
  return o.ok() ? written(0) : memory_fault(o);
}

// BundleSharedTMOVLocalSchemaLegal + TMOVLocalToShared (INSERT / PUBLISH).
TlsuBundleResult run_tmov_to_shared(BlockState& b, TileFile& f, const arch::BundleSharedBinding& sb, bool publish) {
  const BundleTileBinding& t = b.tile_bindings[0];
  if (shared_binding_count(b) != 1 || tile_binding_count(b) != 1 || !t.valid || t.destination_valid ||
      !t.source0_valid || t.source1_valid || !t.last || t.destination_size != 0 || !size_code_legal(sb.size_code) ||
      t.pe_mask != sb.pe_mask)
    return fault(FaultCode::Fault_TileLegality);
  TileDescriptor candidate = f.tile(t.source0).descriptor();  // SharedTileFromLocal
  candidate.location = TileLocation::Any;
  if (!f.source_contents_defined(t.source0) || candidate.capacity_bytes != size_code_bytes(sb.size_code) ||
      !shared_update_compatible(f, sb.shared_id, candidate, sb.pe_mask))
    return fault(FaultCode::Fault_TileLegality);
  if (const FaultCode e = tmov_local_to_shared(f, sb.shared_id, t.source0, sb.size_code, sb.pe_mask, publish);
      e != FaultCode::Fault_None)
    return fault(e);
  return written(f.tile(t.source0).valid_element_count());
}

// BundleSharedTMOVDestinationSchemaLegal + TMOVSharedToLocal (BROADCAST / EXTRACT).
TlsuBundleResult run_tmov_from_shared(BlockState& b, TileFile& f, const arch::BundleSharedBinding& sb,
                                      unsigned function, DataType type, TlsuBundleHost& host) {
  const BundleTileBinding& t = b.tile_bindings[0];
  if (shared_binding_count(b) != 1 || tile_binding_count(b) != 1 || !t.valid || !t.destination_valid ||
      t.source0_valid || t.source1_valid || !t.last || !local_size_code_legal(t.destination_size) ||
      sb.size_code != 0 || t.pe_mask != sb.pe_mask || !host.masks_legal())
    return fault(FaultCode::Fault_TileLegality);
  const Dimensions dims = destination_dimensions(b, f);
  const SharedShape shape{size_code_bytes(t.destination_size), dims.columns, dims.valid_rows, dims.valid_columns,
                          type, current_layout(b)};
  if (dims.valid_rows < 1 || dims.valid_columns < 1 || dims.columns < 1 || dims.valid_columns > dims.columns ||
      !shared_read_schema_legal_at_capacity(f, sb.shared_id, shape))
    return fault(FaultCode::Fault_TileLegality);
  const SharedTile& s = f.shared(sb.shared_id);
  if (function == 11 && !(sb.pe_mask == 0b1111 && s.allocation_mask == 0b1111 && shared_published(s)))
    return fault(FaultCode::Fault_TileLegality);
  const TileDescriptor view = shared_descriptor(shape);
  DestinationPlan plan = explicit_plan(dims, type);
  plan.primary_type.reset();  // ResolveBundleTileDestinations: the effective bundle type
  if (const FaultCode a = host.resolve_destinations(plan); a != FaultCode::Fault_None) return fault(a);
  const TileIndex destination = b.tile_bindings[0].destination;
  const TileDescriptor& d = f.tile(destination).descriptor();
  // An unallocated register's view may have an illegal fractal shape
  // (TileGenericIndexingPermitted): rejected as tload_shared does.
  if (d.rows != view.rows || d.columns != view.columns || d.valid_rows != view.valid_rows ||
      d.valid_columns != view.valid_columns || d.data_type != view.data_type || d.layout != view.layout ||
      !f.tile(destination).generic_indexing_permitted())
    return fault(FaultCode::Fault_TileLegality);
  tmov_shared_to_local(f, destination, sb.shared_id, view, sb.pe_mask);
  return written(f.tile(destination).valid_element_count());
}

// ExecuteBundleSharedTLSUOperation.
TlsuBundleResult run_shared(BlockState& b, TileFile& f, isa::TileOp op, TlsuBundleHost& host) {
  if (shared_binding_count(b) != 1) return fault(FaultCode::Fault_TileLegality);
  const arch::BundleSharedBinding sb = b.shared_bindings[0];
  if (sb.pe_mask == 0) return no_op();
  const unsigned function = b.operation.selector & 31U;
  const auto type = operation_data_type(b);
  if ((function == 0 || function == 1 || function == 14) && !type) return fault(FaultCode::Fault_TileLegality);
  if (!host.scalar_binding_schema_legal(op)) return fault(FaultCode::Fault_BundleControl);
  if (!datr_fields_legal(op, b)) return fault(FaultCode::Fault_TileLegality);
  TlsuBundleResult r;
  if (function == 0) {
    r = run_shared_tload(b, f, sb, *type, host);
  } else if (function == 1 || function == 14) {
    r = run_shared_tstore(b, f, sb, function, *type, host);
  } else if (function == 9 || function == 10) {
    r = run_tmov_to_shared(b, f, sb, function == 10);
  } else if ((function == 11 || function == 12) && type) {
    r = run_tmov_from_shared(b, f, sb, function, *type, host);
  } else {
    return fault(FaultCode::Fault_TileLegality);
  }
  if (r.fault == FaultCode::Fault_None) b.shared_bindings[0].consumed = true;  // ConsumeBundleSharedBindings(1)
  return r;
}

bool shared_tlsu_selected(const BlockState& b) noexcept {
  if (!b.operation.valid || b.operation.operation_class != arch::BundleOperationClass::TileMemory ||
      !b.operation.selector_valid)
    return false;
  const unsigned function = b.operation.selector & 31U;
  return shared_binding_count(b) > 0 || (function >= 9 && function <= 12) || function == 14;
}

// ---- TileKernels (direct-operation semantic handlers) ----

// ResolveBundleTileDestinations for Local TMOV: with DTYPE_NONE and no B.DATR
// type the first configured bound source supplies the type
// (ResolveBundleEffectiveDataType, BundleTMOVSelected).
DestinationPlan tmov_destinations(const BlockState& b, const TileFile& f) {
  DestinationPlan p;
  for (const BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    if (t.source0_valid && f.descriptor_configured(t.source0)) p.inferred_type = f.tile(t.source0).data_type();
    else if (t.source1_valid && f.descriptor_configured(t.source1)) p.inferred_type = f.tile(t.source1).data_type();
    if (p.inferred_type) break;
  }
  return p;
}

bool tmov_legal(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  return same_shape_and_type(f, o.destination[0], o.source[0]);  // TileOperandsLegal_TMOV
}

TileResult copy_execute(TileExecutionContext& c) {  // TMOV, GMOV: payload and definedness
  const TileIndex d = c.operands.destination[0];
  c.tiles.copy_tile(d, c.operands.source[0], c.tiles.allocation_mask(d));
  return TileResult::written(c.tiles.tile(d).valid_element_count());
}

bool gmov_legal(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  return o.scalar0 < kPeCount && f.descriptor_legal(d) && f.source_contents_defined(s) &&
         f.tile(d).descriptor().valid_rows == f.tile(s).descriptor().valid_rows &&
         f.tile(d).descriptor().valid_columns == f.tile(s).descriptor().valid_columns &&
         carrier_or_packed_type_supported(f.tile(s).data_type()) && f.tile(d).data_type() == f.tile(s).data_type() &&
         f.tile(d).descriptor().layout == f.tile(s).descriptor().layout;
}

bool mgather_legal(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], i = o.source[0];
  return f.descriptor_legal(d) && f.descriptor_legal(i) && f.tile(i).contents_defined() &&
         valid_shape_is(f.tile(i), {f.tile(d).descriptor().valid_columns, f.tile(d).descriptor().valid_rows, 0}) &&
         indexed_index_type_legal(f.tile(i).data_type()) && indexed_transfer_type_legal(f.tile(d).data_type());
}

// MGATHER (source0 = indices) and MGATHER_MASK (source1 = predicate mask).
template <bool Masked>
TileResult mgather_execute(TileExecutionContext& c) {
  const TileOperands& o = c.operands;
  Tile& d = c.tiles.tile(o.destination[0]);
  const Tile* mask = Masked ? &c.tiles.tile(o.source[1]) : nullptr;
  return TileResult::from_memory(mgather(d, c.memory, 0, o.address, c.tiles.tile(o.source[0]), mask, c.pad_value),
                                 d.valid_element_count());
}

bool mgather_mask_legal(const TileFile& f, const TileOperands& o, const arch::BlockState& b) {
  return mgather_legal(f, o, b) && ops::predicate_values_legal(f, o.source[1]) &&
         valid_shape_is(f.tile(o.source[1]), {f.tile(o.destination[0]).descriptor().valid_columns,
                                              f.tile(o.destination[0]).descriptor().valid_rows, 0});
}

bool mgather_cas_legal(const TileFile& f, const TileOperands& o, const arch::BlockState& b) {
  const TileIndex d = o.destination[0];
  const Dimensions dims{f.tile(d).descriptor().valid_columns, f.tile(d).descriptor().valid_rows, 0};
  return mgather_legal(f, o, b) && f.source_contents_defined(o.source[1]) && f.source_contents_defined(o.source[2]) &&
         valid_shape_is(f.tile(o.source[1]), dims) && valid_shape_is(f.tile(o.source[2]), dims) &&
         f.tile(o.source[1]).data_type() == f.tile(d).data_type() &&
         f.tile(o.source[2]).data_type() == f.tile(d).data_type();
}

TileResult mgather_cas_execute(TileExecutionContext& c) {
  const TileOperands& o = c.operands;
  Tile& d = c.tiles.tile(o.destination[0]);
  return TileResult::from_memory(mgather_cas(d, c.memory, 0, o.address, c.tiles.tile(o.source[0]),
                                             c.tiles.tile(o.source[1]), c.tiles.tile(o.source[2]), c.pad_value),
                                 d.valid_element_count());
}

bool mscatter_legal(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex s = o.source[0], i = o.source[1];
  return f.source_contents_defined(s) && f.source_contents_defined(i) &&
         indexed_index_type_legal(f.tile(i).data_type()) && indexed_transfer_type_legal(f.tile(s).data_type()) &&
         valid_shape_is(f.tile(i), {f.tile(s).descriptor().valid_columns, f.tile(s).descriptor().valid_rows, 0}) &&
         f.tile(s).descriptor().layout == f.tile(i).descriptor().layout;
}

bool mscatter_mask_legal(const TileFile& f, const TileOperands& o, const arch::BlockState& b) {
  const Tile& s = f.tile(o.source[0]);
  return mscatter_legal(f, o, b) && ops::predicate_values_legal(f, o.source[2]) &&
         valid_shape_is(f.tile(o.source[2]), {s.descriptor().valid_columns, s.descriptor().valid_rows, 0}) &&
         f.tile(o.source[2]).descriptor().layout == s.descriptor().layout;
}

// MSCATTER (source0 = values, source1 = indices) and MSCATTER_MASK (source2 = mask).
template <bool Masked>
TileResult mscatter_execute(TileExecutionContext& c) {
  const TileOperands& o = c.operands;
  const Tile* mask = Masked ? &c.tiles.tile(o.source[2]) : nullptr;
  return TileResult::from_memory(mscatter(c.tiles.tile(o.source[0]), c.memory, 0, o.address, c.tiles.tile(o.source[1]), mask), 0);
}

// TileOperandsLegal_TPREFETCH (asl/tile/model/legality/memory-schema.asl).
bool tprefetch_legal(const TileFile& f, const TileOperands& o, const arch::BlockState& b) {
  const auto type = operation_data_type(b);
  return footprint_legal({o.positive0, o.positive1, o.positive2}, f) && type && carrier_or_packed_type_supported(*type);
}

TileResult tprefetch_execute(TileExecutionContext& c) {  // TPREFETCHAllPEs
  const TileOperands& o = c.operands;
  PeWords bases{}, strides{};
  bases.fill(o.address);
  strides.fill(o.scalar0);
  return TileResult::from_memory(
      tprefetch(c.memory, bases, strides, {o.positive0, o.positive1, o.positive2, *operation_data_type(c.bundle)}), 0);
}

}  // namespace

bool tlsu_dedicated_path(const BlockState& b, isa::TileOp op) noexcept {
  switch (op) {
    case isa::TileOp::GMOV: case isa::TileOp::MGATHER: case isa::TileOp::MGATHER_MASK: case isa::TileOp::MGATHER_CAS:
    case isa::TileOp::MSCATTER: case isa::TileOp::MSCATTER_MASK: case isa::TileOp::TPREFETCH: return true;
    default: return shared_tlsu_selected(b);
  }
}

TlsuBundleResult execute_tlsu_bundle(BlockState& b, TileFile& f, isa::TileOp op, TlsuBundleHost& host) {
  switch (op) {
    case isa::TileOp::MGATHER: case isa::TileOp::MGATHER_MASK: return run_mgather(b, f, op, host);
    case isa::TileOp::MGATHER_CAS: return run_mgather_cas(b, f, host);
    case isa::TileOp::MSCATTER: case isa::TileOp::MSCATTER_MASK: return run_mscatter(b, f, op, host);
    case isa::TileOp::TPREFETCH: return run_tprefetch(b, f, host);
    case isa::TileOp::GMOV: return run_gmov(b, f, host);
    default: return run_shared(b, f, op, host);
  }
}

void register_tlsu_tile_kernels(TileKernelTable& t) {
  t.set(isa::TileOp::TMOV, {nullptr, tmov_destinations, false, tmov_legal, copy_execute});
  t.set(isa::TileOp::GMOV, {nullptr, nullptr, true, gmov_legal, copy_execute});
  t.set(isa::TileOp::MGATHER, {nullptr, nullptr, true, mgather_legal, mgather_execute<false>});
  t.set(isa::TileOp::MGATHER_MASK, {nullptr, nullptr, true, mgather_mask_legal, mgather_execute<true>});
  t.set(isa::TileOp::MGATHER_CAS, {nullptr, nullptr, true, mgather_cas_legal, mgather_cas_execute});
  t.set(isa::TileOp::MSCATTER, {nullptr, nullptr, true, mscatter_legal, mscatter_execute<false>});
  t.set(isa::TileOp::MSCATTER_MASK, {nullptr, nullptr, true, mscatter_mask_legal, mscatter_execute<true>});
  t.set(isa::TileOp::TPREFETCH, {nullptr, nullptr, false, tprefetch_legal, tprefetch_execute});
}

}  // namespace pto::tile
