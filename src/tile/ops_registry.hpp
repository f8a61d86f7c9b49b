// Registration of the VEC and SFU TEPL kernels (tile-operations.json classes
// elementwise-tile-tile, tile-scalar-and-immediate, reduce-and-expand,
// layout-and-rearrangement, irregular-and-complex).  Operations without a
// kernel here stay unregistered and report "not implemented in this model".
#pragma once

#include "tile/tile_ops.hpp"

namespace pto::tile {

// Installs every VEC/SFU kernel this model executes (TADD stays with the
// reference kernel of tile_ops.cpp; TileKernelTable::set keeps the first).
void register_vec_sfu_tile_kernels(TileKernelTable& table);

}  // namespace pto::tile
