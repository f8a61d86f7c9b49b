#include "tile/tile_ops.hpp"

#include <algorithm>

#include "tile/ops_matrix.hpp"
#include "tile/ops_registry.hpp"
#include "tile/ops_tlsu.hpp"

namespace pto::tile {
namespace {

std::uint32_t dimension_value(const arch::BlockState& b, unsigned i) noexcept {
  return static_cast<std::uint32_t>(b.dimensions[i]);
}

// ---- TLOAD / TSTORE (asl/tile/model/memory/load-store.asl, ADR 0074) ----

// TileRegularTLSUDataTypeSupported = TileTeplRawCarrierTypeSupported: every
// architectural tile type.
bool regular_tlsu_type_supported(DataType t) noexcept { return num::data_type_code_valid(num::code_of(t)); }

bool tload_operands_legal(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0];
  return f.descriptor_legal(d) && regular_tlsu_type_supported(f.tile(d).data_type());
}

TileResult tload_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  return TileResult::from_memory(tload(d, c.memory, c.operands.address, c.operands.scalar0), d.valid_element_count());
}

bool tstore_operands_legal(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex s = o.source[0];
  return f.descriptor_legal(s) && regular_tlsu_type_supported(f.tile(s).data_type());
}

TileResult tstore_execute(TileExecutionContext& c) {
  const Tile& s = c.tiles.tile(c.operands.source[0]);
  return TileResult::from_memory(tstore(s, c.memory, c.operands.address, c.operands.scalar0), s.valid_element_count());
}

}  // namespace

// ---- building blocks ----

DestinationPlan default_destinations(const arch::BlockState&, const TileFile&) { return {}; }

DestinationPlan closed_loop_destinations(const arch::BlockState& b, const TileFile&) {
  DestinationPlan p;
  p.explicit_shape = true;
  p.valid_columns = dimension_value(b, 0);
  p.valid_rows = b.dimension_present[1] ? dimension_value(b, 1) : 1;
  p.columns = b.dimension_present[2] ? dimension_value(b, 2) : p.valid_columns;
  return p;
}

PadValue current_pad_value(const arch::BlockState& b) noexcept {
  return static_cast<PadValue>(b.data_attributes.pad_value & 3U);  // Null ('11') after ClearBundleHeaderState
}

std::optional<DataType> operation_data_type(const arch::BlockState& b) noexcept {
  if (!b.operation.data_type_valid) return std::nullopt;
  return num::data_type_from_code(b.operation.data_type);
}

std::optional<DataType> effective_data_type(const arch::BlockState& b) noexcept {
  if (b.data_attributes.data_type_present)
    if (auto t = num::data_type_from_code(b.data_attributes.data_type)) return t;
  return operation_data_type(b);
}

unsigned tile_binding_count(const arch::BlockState& b) noexcept {
  return static_cast<unsigned>(std::count_if(b.tile_bindings.begin(), b.tile_bindings.end(),
                                             [](const arch::BundleTileBinding& t) { return t.valid; }));
}

unsigned shared_binding_count(const arch::BlockState& b) noexcept {
  return static_cast<unsigned>(std::count_if(b.shared_bindings.begin(), b.shared_bindings.end(),
                                             [](const arch::BundleSharedBinding& s) { return s.valid; }));
}

bool stream_terminated(const arch::BlockState& b) noexcept {
  unsigned n = 0;
  bool seen_last = false;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    if (seen_last) return false;
    ++n;
    seen_last = t.last;
  }
  return n > 0 && seen_last;
}

BindingTally tally_tile_bindings(const arch::BlockState& b) noexcept {
  BindingTally tally;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    tally.sources += unsigned{t.source0_valid} + unsigned{t.source1_valid};
    if (t.destination_valid) {
      ++tally.destinations;
      tally.destinations_fresh =
          tally.destinations_fresh && !t.destination_allocated_by_bundle && local_size_code_legal(t.destination_size);
    }
    tally.terminated = t.last;
  }
  return tally;
}

bool dimension_positive(const arch::BlockState& b, unsigned i) noexcept {
  return b.dimension_present[i] && b.dimensions[i] >= 1 && b.dimensions[i] <= 65535;
}

bool closed_loop_dimensions_legal(const arch::BlockState& b) noexcept {
  if (tile_binding_count(b) != 1 || shared_binding_count(b) != 0) return false;
  const arch::BundleTileBinding& t = b.tile_bindings[0];
  if (!t.destination_valid || t.destination_allocated_by_bundle || !local_size_code_legal(t.destination_size) ||
      !t.last)
    return false;
  if (!dimension_positive(b, 0)) return false;
  for (unsigned i = 1; i < arch::kBundleDimensionCount; ++i)
    if (b.dimension_present[i] && !dimension_positive(b, i)) return false;
  return true;
}

bool same_shape_and_type(const TileFile& f, TileIndex a, TileIndex b) noexcept {
  if (!f.descriptor_legal(a) || !f.descriptor_legal(b)) return false;
  const TileDescriptor& x = f.tile(a).descriptor();
  const TileDescriptor& y = f.tile(b).descriptor();
  return x.rows == y.rows && x.columns == y.columns && x.valid_rows == y.valid_rows &&
         x.valid_columns == y.valid_columns && x.layout == y.layout && x.storage_kind == y.storage_kind &&
         x.data_type == y.data_type;
}

// ---- registry ----

bool TileKernelTable::set(isa::TileOp op, const TileKernel& kernel) noexcept {
  TileKernel& slot = table_[static_cast<std::size_t>(op)];
  if (slot.execute != nullptr || kernel.execute == nullptr || kernel.operands_legal == nullptr) return false;
  slot = kernel;
  return true;
}

const TileKernelTable& tile_kernel_table() {
  static const TileKernelTable table = [] {
    TileKernelTable t;
    register_builtin_tile_kernels(t);
    return t;
  }();
  return table;
}

const TileKernel kTloadKernel{nullptr, nullptr, false, tload_operands_legal, tload_execute};
const TileKernel kTstoreKernel{nullptr, nullptr, false, tstore_operands_legal, tstore_execute};

void register_builtin_tile_kernels(TileKernelTable& t) {
  t.set(isa::TileOp::TLOAD, kTloadKernel);
  t.set(isa::TileOp::TSTORE, kTstoreKernel);
  register_vec_sfu_tile_kernels(t);  // src/tile/ops_registry.cpp
  register_matrix_tile_kernels(t);   // src/tile/ops_matrix.cpp
  register_tlsu_tile_kernels(t);     // src/tile/ops_tlsu_bundle.cpp
}

}  // namespace pto::tile
