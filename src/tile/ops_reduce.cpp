#include "tile/ops_reduce.hpp"

#include "numerics/arith.hpp"
#include "tile/ops_elementwise.hpp"
#include "tile/ops_kernels.hpp"

namespace pto::tile::ops {
namespace {

using num::Flags;
using num::Result;

Binary step_operation(Reduction op) noexcept {  // TileReductionStepWithFlags
  switch (op) {
    case Reduction::SUM: return Binary::ADD;
    case Reduction::PRODUCT: return Binary::MUL;
    case Reduction::MAX: case Reduction::ARGMAX: return Binary::MAX;
    default: return Binary::MIN;
  }
}

std::uint64_t one_encoding(DataType t) noexcept {  // TileReductionOneEncoding
  switch (t) {
    case DataType::FP64: return 0x3ff0000000000000ULL;
    case DataType::FP32: case DataType::TF32: case DataType::HF32: return 0x3f800000;
    case DataType::FP16: return 0x3c00;
    case DataType::BF16: return 0x3f80;
    case DataType::E4M3: return 0x38;
    case DataType::E5M2: return 0x3c;
    default: return 1;
  }
}

bool is_arg(Reduction op) noexcept { return op == Reduction::ARGMAX || op == Reduction::ARGMIN; }

// Carrier SUM/PRODUCT that wrap at the element width: integer types, and the
// reference profile's raw-carrier FloatingBinary_ADD/MUL.  Modular addition
// and multiplication give the sequential fold's bits in any grouping, so
// these loops may vectorise.
template <typename T>
void wrapping_fold(Reduction op, TileAxis axis, Tile& d, const Tile& s) {
  const TileDescriptor& sd = s.descriptor();
  const T init = static_cast<T>(op == Reduction::SUM ? 0 : one_encoding(s.data_type()));
  const bool sum = op == Reduction::SUM;
  if (axis == TileAxis::Row) {
    for (std::uint32_t r = 0; r < sd.valid_rows; ++r) {
      const T* row = s.row_data<T>(r);
      T acc = init;
      if (sum) for (std::uint32_t c = 0; c < sd.valid_columns; ++c) acc = wrap_add(acc, row[c]);
      else for (std::uint32_t c = 0; c < sd.valid_columns; ++c) acc = wrap_mul(acc, row[c]);
      d.row_data<T>(r)[0] = acc;
    }
    return;
  }
  T* out = d.row_data<T>(0);
  for (std::uint32_t c = 0; c < sd.valid_columns; ++c) out[c] = init;
  for (std::uint32_t r = 0; r < sd.valid_rows; ++r) {
    const T* row = s.row_data<T>(r);
    if (sum) for (std::uint32_t c = 0; c < sd.valid_columns; ++c) out[c] = wrap_add(out[c], row[c]);
    else for (std::uint32_t c = 0; c < sd.valid_columns; ++c) out[c] = wrap_mul(out[c], row[c]);
  }
}

// The general sequential fold: TileProfileReductionInitial then one
// TileReductionStepWithFlags per remaining element in index order.
template <typename T>
Flags sequential_fold(Reduction op, TileAxis axis, Tile& d, const Tile& s, NumericProfile p) {
  const TileDescriptor& sd = s.descriptor();
  const DataType t = s.data_type();
  const Binary step = step_operation(op);
  const bool identity = op == Reduction::SUM || op == Reduction::PRODUCT;
  const std::uint32_t outer_count = axis == TileAxis::Row ? sd.valid_rows : sd.valid_columns;
  const std::uint32_t inner_count = axis == TileAxis::Row ? sd.valid_columns : sd.valid_rows;
  auto at = [&](std::uint32_t outer, std::uint32_t inner) -> std::uint64_t {
    return axis == TileAxis::Row ? s.row_data<T>(outer)[inner] : s.row_data<T>(inner)[outer];
  };
  Flags flags = 0;
  for (std::uint32_t outer = 0; outer < outer_count; ++outer) {
    std::uint64_t acc = identity ? (op == Reduction::SUM ? 0 : one_encoding(t)) : at(outer, 0);
    std::uint32_t selected = 0;
    for (std::uint32_t inner = identity ? 0 : 1; inner < inner_count; ++inner) {
      const std::uint64_t value = at(outer, inner);
      const Result next = binary_element(step, t, acc, value, p);
      flags |= next.flags;
      if (next.bits == value && next.bits != acc) selected = inner;  // ties keep the first index
      acc = next.bits;
    }
    const std::uint64_t result = is_arg(op) ? selected : acc;
    d.store_raw(axis == TileAxis::Row ? d.linear_index(outer, 0) : d.linear_index(0, outer), result);
  }
  return flags;
}

}  // namespace

Flags tile_reduce(Reduction op, TileAxis axis, Tile& d, const Tile& s, PadValue pad, NumericProfile p) {
  const DataType t = s.data_type();
  const bool wrapping = (op == Reduction::SUM || op == Reduction::PRODUCT) &&
                        (num::is_integer(t) || p == NumericProfile::Reference);
  Flags flags = 0;
  visit_carrier(t, [&]<typename T>() {
    if (wrapping) wrapping_fold<T>(op, axis, d, s);
    else flags = sequential_fold<T>(op, axis, d, s, p);
  });
  publish(d, pad);
  return flags;
}

namespace {

// ExactWidenFP16ToFP32 / ExactWidenBF16ToFP32 (a NaN FP16 widens to the
// canonical quiet FP32 NaN 0x7fc00000).
std::uint64_t widen_to_fp32(DataType t, std::uint64_t v) {
  if (t == DataType::BF16) return (v & 0xFFFF) << 16;
  const std::uint32_t sign = static_cast<std::uint32_t>(v >> 15 & 1) << 31;
  const std::uint32_t exponent = v >> 10 & 0x1F, fraction = v & 0x3FF;
  if (exponent == 0x1F) return fraction ? 0x7FC00000U : (sign | 0x7F800000U);
  if (exponent != 0) return sign | ((exponent + 112) << 23) | (fraction << 13);
  if (fraction == 0) return sign;
  std::uint32_t normalized = fraction, shifts = 0;
  while (!(normalized & 0x200)) normalized <<= 1, ++shifts;
  return sign | ((112 - shifts) << 23) | ((normalized & 0x1FF) << 14);
}

Binary expand_binary(Expand op) noexcept {  // TileExpandBinaryOperation
  switch (op) {
    case Expand::ADD: return Binary::ADD;
    case Expand::SUB: return Binary::SUB;
    case Expand::MUL: return Binary::MUL;
    case Expand::DIV: return Binary::DIV;
    case Expand::MAX: return Binary::MAX;
    default: return Binary::MIN;
  }
}

// exp(left - broadcast) in type t: subtraction flags OR the EXP flags.
Result exponential_difference(DataType t, std::uint64_t left, std::uint64_t broadcast, NumericProfile p) {
  const Result difference = binary_element(Binary::SUB, t, left, broadcast, p);
  const Result e = sfu_element(Unary::EXP, t, difference.bits, p);
  return {e.bits, static_cast<Flags>(difference.flags | e.flags)};
}

// TileExpandValueWithTypesAndFlags for every non-COPY operation.
Result expand_element(Expand op, DataType source_type, DataType destination_type, std::uint64_t left,
                      std::uint64_t broadcast, NumericProfile p) {
  if (op != Expand::EXPDIF) return binary_element(expand_binary(op), destination_type, left, broadcast, p);
  if (source_type == destination_type) return exponential_difference(destination_type, left, broadcast, p);
  const std::uint64_t wl = widen_to_fp32(source_type, left), wb = widen_to_fp32(source_type, broadcast);
  if (p == NumericProfile::Reference) {  // HardwareNumericMixedExpdifDiscriminator
    if (wl == 0x3c000000 && wb == 0x33800000) return {0x3f810100, 0};
    if (wl == 0x3f800000 && wb == 0x3b000000) return {0x402da16e, 0};
  }
  return exponential_difference(DataType::FP32, wl, wb, p);
}

template <typename S, typename D>
Flags expand_rows(Expand op, TileAxis axis, Tile& d, const Tile& s, const Tile& b, NumericProfile p) {
  const TileDescriptor& dd = d.descriptor();
  const DataType st = s.data_type(), dt = d.data_type();
  Flags flags = 0;
  for (std::uint32_t r = 0; r < dd.valid_rows; ++r) {
    const S* in = s.row_data<S>(r);
    D* out = d.row_data<D>(r);
    const S* brow = b.row_data<S>(axis == TileAxis::Row ? r : 0);
    const S row_value = brow[0];
    if (op == Expand::COPY) {
      for (std::uint32_t c = 0; c < dd.valid_columns; ++c) out[c] = static_cast<D>(axis == TileAxis::Row ? row_value : brow[c]);
      continue;
    }
    for (std::uint32_t c = 0; c < dd.valid_columns; ++c) {
      const Result v = expand_element(op, st, dt, in[c], axis == TileAxis::Row ? row_value : brow[c], p);
      flags |= v.flags;
      out[c] = static_cast<D>(v.bits);
    }
  }
  return flags;
}

}  // namespace

Flags tile_expand(Expand op, TileAxis axis, Tile& d, const Tile& s, const Tile& b, PadValue pad, NumericProfile p) {
  // A broadcast aliasing the destination would be overwritten before its
  // later rows/columns are read, so it is snapshotted whole.
  const Tile broadcast_copy = (&b == &d) ? b : Tile{};
  const Tile& broadcast = (&b == &d) ? broadcast_copy : b;
  Flags flags = 0;
  if (s.data_type() != d.data_type()) {
    flags = s.data_type() == DataType::FP16 || s.data_type() == DataType::BF16
                ? expand_rows<std::uint16_t, std::uint32_t>(op, axis, d, s, broadcast, p)
                : 0;
  } else {
    visit_carrier(d.data_type(), [&]<typename T>() { flags = expand_rows<T, T>(op, axis, d, s, broadcast, p); });
  }
  publish(d, pad);
  return flags;
}

}  // namespace pto::tile::ops
