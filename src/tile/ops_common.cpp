#include "tile/ops_common.hpp"

namespace pto::tile::ops {

bool vec_scalar_integer_type(DataType t) noexcept {
  switch (t) {
    case DataType::S64: case DataType::S32: case DataType::S16: case DataType::S8:
    case DataType::U64: case DataType::U32: case DataType::U16: case DataType::U8: return true;
    default: return false;
  }
}

bool floating_elementwise_type(DataType t) noexcept {
  switch (t) {
    case DataType::FP64: case DataType::FP32: case DataType::TF32: case DataType::HF32:
    case DataType::FP16: case DataType::BF16: case DataType::E4M3: case DataType::E5M2: return true;
    default: return false;
  }
}

bool a9_type(DataType t) noexcept {
  switch (t) {
    case DataType::S32: case DataType::U32: case DataType::FP32: case DataType::S16: case DataType::U16:
    case DataType::FP16: case DataType::BF16: case DataType::S8: case DataType::U8: return true;
    default: return false;
  }
}

bool binary_type_supported(Binary op, DataType t) noexcept {
  switch (op) {
    case Binary::AND: case Binary::OR: case Binary::XOR: case Binary::SHL: case Binary::SHR:
      return vec_scalar_integer_type(t);
    default: return vec_arithmetic_data_type_supported(t);
  }
}

bool unary_type_supported(Unary op, DataType t) noexcept {
  switch (op) {
    case Unary::NOT: return vec_scalar_integer_type(t);
    case Unary::ABS: case Unary::NEG: case Unary::RELU: return vec_arithmetic_data_type_supported(t);
    default: return floating_elementwise_type(t);
  }
}

bool logical_shape_match(const TileFile& f, TileIndex a, TileIndex b) noexcept {
  if (!f.descriptor_legal(a) || !f.descriptor_legal(b)) return false;
  const TileDescriptor& x = f.tile(a).descriptor();
  const TileDescriptor& y = f.tile(b).descriptor();
  return x.rows == y.rows && x.columns == y.columns && x.valid_rows == y.valid_rows &&
         x.valid_columns == y.valid_columns && x.layout == y.layout;
}

namespace {

// Only TF32/HF32/E3M2/E2M3 constrain their encodings (TileNumericEncodingValid).
bool type_constrains_encoding(DataType t) noexcept {
  return t == DataType::TF32 || t == DataType::HF32 || t == DataType::E3M2 || t == DataType::E2M3;
}

template <typename Pred>
bool all_valid_elements(const Tile& t, Pred pred) {
  const TileDescriptor& d = t.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c)
      if (!pred(t.read_raw(t.linear_index(r, c)))) return false;
  return true;
}

}  // namespace

bool source_encodings_valid(const TileFile& f, TileIndex i) noexcept {
  if (!f.source_contents_defined(i) || !f.tile(i).generic_indexing_permitted()) return false;
  const Tile& t = f.tile(i);
  if (!type_constrains_encoding(t.data_type())) return true;
  return all_valid_elements(t, [&](std::uint64_t v) { return num::encoding_valid(t.data_type(), v); });
}

bool payload_nonzero(const TileFile& f, TileIndex i) noexcept {
  if (!f.source_contents_defined(i)) return false;
  return all_valid_elements(f.tile(i), [](std::uint64_t v) { return v != 0; });
}

bool numeric_row_major(const TileFile& f, TileIndex i) noexcept {
  if (!f.descriptor_legal(i)) return false;
  const TileDescriptor& d = f.tile(i).descriptor();
  return d.storage_kind == TileStorageKind::Numeric && d.layout == TileLayout::RowMajor;
}

std::uint64_t raw_element_value(std::uint64_t scalar, DataType t) noexcept {
  const unsigned bits = element_bits(t);
  return bits >= 64 ? scalar : scalar & ((std::uint64_t{1} << bits) - 1);
}

bool bundle_shape_matches(const arch::BlockState& b, const Tile& t) noexcept {
  const auto valid_columns = static_cast<std::uint32_t>(b.dimensions[0]);
  const std::uint32_t valid_rows = b.dimension_present[1] ? static_cast<std::uint32_t>(b.dimensions[1]) : 1;
  const std::uint32_t columns = b.dimension_present[2] ? static_cast<std::uint32_t>(b.dimensions[2]) : valid_columns;
  const TileDescriptor& d = t.descriptor();
  return d.valid_rows == valid_rows && d.valid_columns == valid_columns && d.columns == columns;
}

bool bundle_source_legal(const TileFile& f, TileIndex s, DataType t, const arch::BlockState& b) noexcept {
  return numeric_row_major(f, s) && f.tile(s).data_type() == t && bundle_shape_matches(b, f.tile(s)) &&
         source_encodings_valid(f, s);
}

bool single_binding_schema(const arch::BlockState& b, bool source0, bool source1) noexcept {
  if (!closed_loop_dimensions_legal(b)) return false;
  const arch::BundleTileBinding& t = b.tile_bindings[0];
  return t.source0_valid == source0 && t.source1_valid == source1;
}

bool paired_binding_schema(const arch::BlockState& b) noexcept {
  if (tile_binding_count(b) != 2 || shared_binding_count(b) != 0) return false;
  const arch::BundleTileBinding& inputs = b.tile_bindings[0];
  const arch::BundleTileBinding& result = b.tile_bindings[1];
  if (!inputs.valid || inputs.destination_valid || !inputs.source0_valid || !inputs.source1_valid || inputs.last)
    return false;
  if (!result.valid || !result.destination_valid || result.destination_allocated_by_bundle ||
      !local_size_code_legal(result.destination_size) || !result.source0_valid || result.source1_valid ||
      !result.last)
    return false;
  if (!dimension_positive(b, 0)) return false;
  for (unsigned i = 1; i < 3; ++i)
    if (b.dimension_present[i] && !dimension_positive(b, i)) return false;
  return true;
}

bool bundle_layout_row_major(const arch::BlockState& b) noexcept {
  return !b.data_attributes_present || b.data_attributes.data_layout == 0;
}

}  // namespace pto::tile::ops
