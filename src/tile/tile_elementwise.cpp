#include "tile/tile_elementwise.hpp"

#include "numerics/arith.hpp"

namespace pto::tile {
namespace {

// One row loop for every element type: `op` sees carriers of type T.
template <typename T, typename Op>
void binary_rows(Tile& destination, const Tile& left, const Tile& right, Op op) {
  const TileDescriptor& d = destination.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    const T* a = left.row_data<T>(r);
    const T* b = right.row_data<T>(r);
    T* out = destination.row_data<T>(r);
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) out[c] = op(a[c], b[c]);
  }
}

// Integer types and the reference profile's raw-carrier FloatingBinary_ADD
// both wrap at the element width (NormalizeTileInteger).
template <typename T>
void carrier_add(Tile& destination, const Tile& left, const Tile& right) {
  binary_rows<T>(destination, left, right, [](T a, T b) { return static_cast<T>(a + b); });
}

template <typename T>
void ieee_add(Tile& destination, const Tile& left, const Tile& right) {
  const DataType t = destination.data_type();
  binary_rows<T>(destination, left, right, [t](T a, T b) {
    return static_cast<T>(num::ieee_binary(num::BinaryOp::ADD, t, a, b, num::RoundingMode::RNE).bits);
  });
}

template <typename T>
void add_for_width(Tile& destination, const Tile& left, const Tile& right, bool ieee) {
  if (ieee) ieee_add<T>(destination, left, right);
  else carrier_add<T>(destination, left, right);
}

}  // namespace

bool vec_arithmetic_data_type_supported(DataType t) noexcept {
  switch (t) {
    case DataType::FP64: case DataType::FP32: case DataType::TF32: case DataType::HF32:
    case DataType::FP16: case DataType::BF16: case DataType::E4M3: case DataType::E5M2:
    case DataType::S64: case DataType::S32: case DataType::S16: case DataType::S8:
    case DataType::U64: case DataType::U32: case DataType::U16: case DataType::U8: return true;
    default: return false;
  }
}

void tadd(Tile& destination, const Tile& left, const Tile& right, PadValue pad, NumericProfile profile) {
  const DataType t = destination.data_type();
  const bool ieee = profile == NumericProfile::Ieee && num::is_float(t);
  switch (element_bits(t)) {
    case 8: add_for_width<std::uint8_t>(destination, left, right, ieee); break;
    case 16: add_for_width<std::uint16_t>(destination, left, right, ieee); break;
    case 32: add_for_width<std::uint32_t>(destination, left, right, ieee); break;
    default: add_for_width<std::uint64_t>(destination, left, right, ieee); break;
  }
  destination.mark_valid_region_defined();
  destination.apply_padding(pad);  // TileBinaryUsesClosedElementwiseContract(ADD)
}

}  // namespace pto::tile
