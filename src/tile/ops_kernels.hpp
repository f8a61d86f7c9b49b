// Per-family registration functions behind register_vec_sfu_tile_kernels.
//
// Numeric status flags: the ASL records flags for TileScalar, TileUnary,
// TFMA, reductions, expansions (RecordNumericStatusFlags /
// ScalarFPRecordFlags) and none for TileBinary.  The semantic functions
// return them (ops_elementwise.hpp, ops_reduce.hpp); TileResult has no flags
// field yet, so kernels cannot publish them to CORE_STATE[36:32] until the
// tile integration adds one.
#pragma once

#include "tile/tile_ops.hpp"

namespace pto::tile::ops {

void register_elementwise_kernels(TileKernelTable& table);
void register_reduce_kernels(TileKernelTable& table);
void register_convert_kernels(TileKernelTable& table);
void register_layout_kernels(TileKernelTable& table);
void register_irregular_kernels(TileKernelTable& table);
void register_sort_kernels(TileKernelTable& table);

}  // namespace pto::tile::ops
