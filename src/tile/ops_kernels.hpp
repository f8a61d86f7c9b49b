// Per-family registration functions behind register_vec_sfu_tile_kernels.
//
// Numeric status flags: the ASL records flags for TileScalar, TileUnary,
// TFMA, reductions, expansions, TCVT/TQUANT/TDEQUANT, TPART*, TCMP/TCMPS and
// (signalling NaN sources) TSORT/TMRGSORT (RecordNumericStatusFlags /
// ScalarFPRecordFlags) and none for TileBinary, TSEL/TSELS and the layout
// operations.  Kernels return them in TileResult::flags; the engine ORs them
// into CORE_STATE[36:32] after a successful step.
#pragma once

#include "tile/tile_ops.hpp"

namespace pto::tile::ops {

void register_elementwise_kernels(TileKernelTable& table);
void register_reduce_kernels(TileKernelTable& table);
void register_convert_kernels(TileKernelTable& table);
void register_layout_kernels(TileKernelTable& table);
void register_irregular_kernels(TileKernelTable& table);
void register_sort_kernels(TileKernelTable& table);
void register_compare_kernels(TileKernelTable& table);    // ops_compare.cpp
void register_histogram_kernels(TileKernelTable& table);  // ops_histogram.cpp
void register_img2col_kernels(TileKernelTable& table);    // ops_img2col.cpp

}  // namespace pto::tile::ops
