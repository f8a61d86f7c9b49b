// TIMG2COL (asl/tile/model/state/feature-map-descriptors.asl,
// asl/tile/model/legality/image-to-column.asl,
// asl/tile/model/execution/image-to-column.asl): one window of the
// standard Left matrix of an NC1HWC0 / NDC1HWC0 feature map.
//
// The feature-map descriptor is per-tile state the ASL only writes through
// ConfigureTileFeatureMapDescriptor, which no instruction calls (allocation
// and reset invalidate it), so every architecturally reachable source reads
// as invalid and a TIMG2COL bundle raises Fault_TileLegality.  The legality
// and mapping below take the descriptor explicitly so they are exercised with
// the descriptors the spec's test points configure.
#pragma once

#include <cstdint>

#include "tile/ops_common.hpp"

namespace pto::tile::ops {

enum class FeatureMapLayout : std::uint8_t { NC1HWC0, NDC1HWC0 };

// TileFeatureMapDescriptor (dimensions 1..65535, paddings 0..65535).
struct FeatureMapDescriptor {
  bool valid = false;
  FeatureMapLayout layout = FeatureMapLayout::NC1HWC0;
  std::uint32_t batches = 1, depth = 1, channel_groups = 1, height = 1, width = 1, channels_per_group = 1;
  std::uint32_t filter_height = 1, filter_width = 1, stride_height = 1, stride_width = 1;
  std::uint32_t dilation_height = 1, dilation_width = 1;
  std::uint32_t pad_left = 0, pad_right = 0, pad_top = 0, pad_bottom = 0;
  std::uint32_t logical_channels = 1;
  std::uint64_t padding = 0;  // the typed padding value's Word
  bool transposed = false;
};

// ReadTileFeatureMapDescriptor as this model holds it: invalid for every
// tile (see above).
FeatureMapDescriptor feature_map_descriptor(const TileFile& f, TileIndex i) noexcept;

// TileOperandsLegal_TIMG2COL with the source's descriptor given.
bool img2col_operands_legal(const TileFile& f, TileIndex destination, TileIndex source,
                            const FeatureMapDescriptor& descriptor, std::uint32_t position_m, std::uint32_t position_k);

// TIMG2COL: destination valid element [row, column] is the source element of
// logical matrix coordinate (posM + row, posK + column), or the descriptor's
// padding value outside the image or the logical channels; then the valid
// region is defined, padding Null, location Matrix.  Precondition:
// img2col_operands_legal.
void img2col(Tile& destination, const Tile& source, const FeatureMapDescriptor& descriptor, std::uint32_t position_m,
             std::uint32_t position_k);

}  // namespace pto::tile::ops
