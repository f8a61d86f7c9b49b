// The tile bundle engine inside the machine: the tile register file attached
// to an arch::Machine, the generic complete-bundle commit
// (ExecuteBundleTileOperationLocallyWithAcceptedApplicabilityRules,
// asl/block/model/dispatch/tile-execution.asl) and its observability record.
//
// The pending header state has exactly one home: arch::State::block
// (arch::BlockState), which the trap context snapshots whole.  The header
// handlers (bundle_headers.cpp) write it, the commit reads it and writes only
// the renamed destinations of its bindings (rolled back on failure), so
// RecoverTrapContext + re-executing the terminator commits again.
//
// Per-operation rules live in tile::TileKernel (src/tile/tile_ops.hpp).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "arch/machine.hpp"
#include "isa/catalog.hpp"
#include "scalar/execute.hpp"
#include "tile/tile_ops.hpp"

namespace pto::block {

// Observability record of the last tile commit attempt.
struct BundleTrace {
  std::uint64_t cycle = 0;  // CYCLE of the terminator attempt that produced it
  std::string operation;    // e.g. "TADD.U32"
  std::vector<std::uint8_t> sources;
  std::vector<std::uint8_t> destinations;  // renamed destination registers
  std::vector<std::uint64_t> scalar_inputs;  // address / scalar inputs, ADR 0058 order
  std::vector<arch::BundleSharedBinding> shared_bindings;  // B.IOS bindings after the commit (consumed)
  std::uint64_t elements_written = 0;
  bool zero_mask_no_op = false;
  std::string outcome;  // "ok", a fault name, or the not-implemented message

  // The empty trace (BundleTrace{}), keeping the allocated storage.
  void clear() noexcept {
    cycle = 0;
    operation.clear();
    sources.clear();
    destinations.clear();
    scalar_inputs.clear();
    shared_bindings.clear();
    elements_written = 0;
    zero_mask_no_op = false;
    outcome.clear();
  }
};

// The machine's tile state (attached as an arch::MachineExtension on first
// use, so Machine::reset releases every tile).
struct TileMachineState final : arch::MachineExtension {
  tile::TileFile file;
  tile::NumericProfile profile = tile::NumericProfile::Reference;
  BundleTrace trace;
  void reset() override {
    file.reset();
    trace = {};
  }
};
TileMachineState& tile_state(arch::Machine& m);
const TileMachineState* find_tile_state(const arch::Machine& m);

// SelectedBundleTileMaskIsZero: every selected tile binding has PE mask 0000
// (or the bundle bound none after a zero-participation binding); the commit
// is then a no-op (ADR 0096).
bool selected_mask_is_zero(const arch::BlockState& b);

// The trace of the tile commit made by the attempt that is retiring now
// (same CYCLE), or nullptr; and its one-line rendering.
const BundleTrace* current_bundle_trace(const arch::Machine& m);
std::string describe_bundle(const BundleTrace& t);

// `--dump-state` member "tiles": every allocated Local and valid Shared tile
// (descriptor, definedness summary, typed payload; tile/tile_render.hpp).
nlohmann::json tiles_state_json(const arch::Machine& m);
// `pto run --print-tile NAME` (NAME = T#1..N#16 or 0..63): the tile's valid
// region as a table in `out`; false with a precise message in `out` otherwise.
bool print_tile_table(const arch::Machine& m, std::string_view name, std::string& out);

// "not implemented in this model: <OP>" for a tile block the machine stops
// at its terminator, or empty when the pending block is not such a block.
std::string tile_not_implemented_detail(const arch::Machine& m);

// The generic commit of the pending tile block's operation.  Next on success;
// Fault after raising the fault (destinations rolled back); NotImplemented for
// an operation without a kernel or a dedicated path this model lacks.
scalar::ExecOutcome commit_tile_bundle(arch::Machine& m, isa::TileOp op);

}  // namespace pto::block
