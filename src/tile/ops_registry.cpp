#include "tile/ops_registry.hpp"

#include "tile/ops_kernels.hpp"

namespace pto::tile {

void register_vec_sfu_tile_kernels(TileKernelTable& table) {
  ops::register_elementwise_kernels(table);
  ops::register_reduce_kernels(table);
  ops::register_convert_kernels(table);
  ops::register_layout_kernels(table);
  ops::register_irregular_kernels(table);
  ops::register_sort_kernels(table);
  ops::register_compare_kernels(table);
  ops::register_histogram_kernels(table);
  ops::register_img2col_kernels(table);
}

}  // namespace pto::tile
