// Tile operation executors run at the block commit: every tile operation
// goes through the generic commit of the bundle engine, which stops the run
// as "not implemented in this model: <OP>" for an operation without a
// tile::TileKernel (src/tile/tile_ops.hpp).
#include "block/bundle_engine.hpp"
#include "block/control.hpp"

namespace pto::block {

void register_tile_operation_executors(TileExecutorTable& table) {
  for (std::size_t i = 0; i < isa::kTileOpCount; ++i) table.set(static_cast<isa::TileOp>(i), commit_tile_bundle);
}

}  // namespace pto::block
