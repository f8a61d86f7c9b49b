#include "tile/ops_img2col.hpp"

#include <initializer_list>
#include <limits>
#include <optional>

#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {
namespace {

// Products of up to six 16-bit dimensions exceed 64 bits; the legality
// comparisons only need to know they exceed every tile bound.
std::uint64_t mul_saturating(std::uint64_t a, std::uint64_t b) noexcept {
  if (a != 0 && b > std::numeric_limits<std::uint64_t>::max() / a) return std::numeric_limits<std::uint64_t>::max();
  return a * b;
}

// TileImageToColumnOutputHeight / ...Width.
std::uint64_t output_extent(std::uint64_t size, std::uint64_t pad_before, std::uint64_t pad_after,
                            std::uint64_t filter, std::uint64_t dilation, std::uint64_t stride) noexcept {
  const std::uint64_t receptive = dilation * (filter - 1) + 1;
  const std::uint64_t padded = size + pad_before + pad_after;
  return padded < receptive ? 0 : (padded - receptive) / stride + 1;
}

// The decomposition both the referenced-definedness check and the copy use.
class Img2ColMap {
 public:
  explicit Img2ColMap(const FeatureMapDescriptor& d)
      : d_(d),
        output_height_(output_extent(d.height, d.pad_top, d.pad_bottom, d.filter_height, d.dilation_height,
                                     d.stride_height)),
        output_width_(output_extent(d.width, d.pad_left, d.pad_right, d.filter_width, d.dilation_width,
                                    d.stride_width)),
        rows_per_depth_(output_height_ * output_width_),
        rows_per_batch_(d.depth * rows_per_depth_),
        columns_per_filter_row_(std::uint64_t{d.filter_width} * d.channels_per_group),
        columns_per_group_(d.filter_height * columns_per_filter_row_) {}

  bool output_nonempty() const noexcept { return output_height_ > 0 && output_width_ > 0; }
  std::uint64_t logical_rows() const noexcept {
    return mul_saturating(mul_saturating(d_.batches, d_.depth), rows_per_depth_);
  }
  std::uint64_t logical_columns() const noexcept {
    return mul_saturating(d_.channel_groups, columns_per_group_);
  }

  // The source logical element of matrix coordinate (row, column), or none
  // where the window reads padding (outside the image or the logical channels).
  std::optional<std::uint64_t> source_index(std::uint64_t row, std::uint64_t column) const noexcept {
    const std::uint64_t batch = row / rows_per_batch_, batch_rest = row % rows_per_batch_;
    const std::uint64_t depth = batch_rest / rows_per_depth_, depth_rest = batch_rest % rows_per_depth_;
    const std::uint64_t output_row = depth_rest / output_width_, output_column = depth_rest % output_width_;
    const std::uint64_t group = column / columns_per_group_, group_rest = column % columns_per_group_;
    const std::uint64_t filter_row = group_rest / columns_per_filter_row_;
    const std::uint64_t filter_rest = group_rest % columns_per_filter_row_;
    const std::uint64_t filter_column = filter_rest / d_.channels_per_group;
    const std::uint64_t channel = filter_rest % d_.channels_per_group;
    const auto input_row = static_cast<std::int64_t>(output_row * d_.stride_height + filter_row * d_.dilation_height) -
                           static_cast<std::int64_t>(d_.pad_top);
    const auto input_column =
        static_cast<std::int64_t>(output_column * d_.stride_width + filter_column * d_.dilation_width) -
        static_cast<std::int64_t>(d_.pad_left);
    if (group * d_.channels_per_group + channel >= d_.logical_channels || input_row < 0 || input_row >= d_.height ||
        input_column < 0 || input_column >= d_.width)
      return std::nullopt;
    // TileImageToColumnSourceIndex.
    return ((((batch * d_.depth + depth) * d_.channel_groups + group) * d_.height + static_cast<std::uint64_t>(input_row)) *
                d_.width +
            static_cast<std::uint64_t>(input_column)) *
               d_.channels_per_group +
           channel;
  }

 private:
  const FeatureMapDescriptor& d_;
  std::uint64_t output_height_, output_width_, rows_per_depth_, rows_per_batch_, columns_per_filter_row_,
      columns_per_group_;
};

// TileFeatureMapDescriptorStructurallyValid.
bool structurally_valid(const Tile& t, const FeatureMapDescriptor& d) noexcept {
  if (!d.valid || d.transposed || (d.layout == FeatureMapLayout::NC1HWC0 && d.depth != 1)) return false;
  // The record's integer {1..65535} fields (a zero would divide by zero below).
  for (const std::uint32_t v : {d.batches, d.depth, d.channel_groups, d.height, d.width, d.channels_per_group,
                                d.filter_height, d.filter_width, d.stride_height, d.stride_width, d.dilation_height,
                                d.dilation_width, d.logical_channels})
    if (v == 0 || v > 65535) return false;
  for (const std::uint32_t v : {d.pad_left, d.pad_right, d.pad_top, d.pad_bottom})
    if (v > 65535) return false;
  if (d.logical_channels > std::uint64_t{d.channel_groups} * d.channels_per_group) return false;
  std::uint64_t physical = 1;
  for (const std::uint32_t v : {d.batches, d.depth, d.channel_groups, d.height, d.width, d.channels_per_group})
    physical = mul_saturating(physical, v);
  const TileDescriptor& td = t.descriptor();
  return physical <= logical_element_capacity(td.capacity_bytes, td.data_type) &&
         physical <= std::uint64_t{td.rows} * td.columns;
}

// TileCarrierOnlyDataTypeSupported: an unpacked carrier of at most 32 bits.
bool carrier_only_type(DataType t) noexcept { return !num::is_packed4(t) && element_bits(t) <= 32; }

// TileImageToColumnReferencedSourcesDefined.
bool referenced_sources_defined(const Tile& source, const TileDescriptor& destination, const Img2ColMap& map,
                                std::uint32_t position_m, std::uint32_t position_k) {
  const TileDescriptor& s = source.descriptor();
  const std::uint64_t capacity = logical_element_capacity(s.capacity_bytes, s.data_type);
  for (std::uint32_t r = 0; r < destination.valid_rows; ++r)
    for (std::uint32_t c = 0; c < destination.valid_columns; ++c) {
      const auto index = map.source_index(std::uint64_t{position_m} + r, std::uint64_t{position_k} + c);
      if (index && (*index >= capacity || !source.element_defined(static_cast<std::uint32_t>(*index)))) return false;
    }
  return true;
}

}  // namespace

FeatureMapDescriptor feature_map_descriptor(const TileFile&, TileIndex) noexcept { return {}; }

bool img2col_operands_legal(const TileFile& f, TileIndex destination, TileIndex source,
                            const FeatureMapDescriptor& descriptor, std::uint32_t position_m, std::uint32_t position_k) {
  if (!f.descriptor_legal(destination) || !f.descriptor_legal(source) ||
      !structurally_valid(f.tile(source), descriptor))
    return false;
  const TileDescriptor& d = f.tile(destination).descriptor();
  const TileDescriptor& s = f.tile(source).descriptor();
  if (!carrier_only_type(s.data_type) || d.data_type != s.data_type || d.layout != TileLayout::RowMajor ||
      s.layout != TileLayout::RowMajor || d.location != TileLocation::Matrix || s.location != TileLocation::Matrix)
    return false;
  const Img2ColMap map(descriptor);
  if (!map.output_nonempty() || std::uint64_t{position_m} + d.valid_rows > map.logical_rows() ||
      std::uint64_t{position_k} + d.valid_columns > map.logical_columns())
    return false;
  return referenced_sources_defined(f.tile(source), d, map, position_m, position_k);
}

void img2col(Tile& destination, const Tile& source0, const FeatureMapDescriptor& descriptor, std::uint32_t position_m,
             std::uint32_t position_k) {
  const Tile copy = &source0 == &destination ? source0 : Tile{};  // the source is read-old when aliased
  const Tile& source = &source0 == &destination ? copy : source0;
  const Img2ColMap map(descriptor);
  const std::uint64_t padding = raw_element_value(descriptor.padding, source.data_type());
  const TileDescriptor& d = destination.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const auto index = map.source_index(std::uint64_t{position_m} + r, std::uint64_t{position_k} + c);
      destination.store_raw(destination.linear_index(r, c),
                            index ? source.read_raw(static_cast<std::uint32_t>(*index)) : padding);
    }
  publish(destination, PadValue::Null);  // location stays Matrix (a legal destination already is)
}

namespace {

// TIMG2COL's operands: posM / posK are the natural views of LB0 / LB1
// (BundleTileInstructionOperands fills natural0/natural1 from the loop
// dimensions).
bool img2col_kernel_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex s = o.source[0];
  return img2col_operands_legal(f, o.destination[0], s, feature_map_descriptor(f, s), o.natural0, o.natural1);
}

TileResult img2col_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const TileIndex s = c.operands.source[0];
  img2col(d, c.tiles.tile(s), feature_map_descriptor(c.tiles, s), c.operands.natural0, c.operands.natural1);
  return TileResult::written(d.valid_element_count());
}

// No closed schema: ResolveBundleTileDestinations; the handler owns source
// definedness (only referenced elements must be defined).
constexpr TileKernel kTimg2col{nullptr, nullptr, true, img2col_kernel_operands, img2col_execute};

}  // namespace

void register_img2col_kernels(TileKernelTable& t) { t.set(isa::TileOp::TIMG2COL, kTimg2col); }

}  // namespace pto::tile::ops
