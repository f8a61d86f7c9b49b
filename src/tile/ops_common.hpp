// Shared building blocks of the VEC/SFU tile kernels (ops_*.cpp): carrier
// dispatch, typed row loops, the TEPL legality predicates of
// asl/tile/model/legality/{dtype-layout,operand-schema}.asl and the element
// normalisations of asl/tile/model/execution/elementwise.asl.
#pragma once

#include <cstdint>
#include <type_traits>

#include "numerics/format.hpp"
#include "numerics/rounding.hpp"
#include "tile/tile_ops.hpp"

namespace pto::tile::ops {

// TileBinaryOperation (asl/tile/model/state/types.asl).
enum class Binary : std::uint8_t { ADD, SUB, MUL, DIV, REM, MAX, MIN, AND, OR, XOR, SHL, SHR };
// TileUnaryOperation.
enum class Unary : std::uint8_t { ABS, NOT, NEG, RELU, EXP, LOG, RECIP, SQRT, RSQRT };

// Calls f.template operator()<T>() with the unsigned carrier of t's
// element width (8/16/32/64 bits; packed four-bit types never reach here).
template <typename F>
decltype(auto) visit_carrier(DataType t, F&& f) {
  switch (element_bits(t)) {
    case 8: return f.template operator()<std::uint8_t>();
    case 16: return f.template operator()<std::uint16_t>();
    case 32: return f.template operator()<std::uint32_t>();
    default: return f.template operator()<std::uint64_t>();
  }
}

// Modular arithmetic on carrier T without integer-promotion UB.
template <typename T>
using Wide = std::conditional_t<(sizeof(T) < 8), std::uint32_t, std::uint64_t>;
template <typename T>
constexpr T wrap_add(T a, T b) noexcept { return static_cast<T>(Wide<T>{a} + Wide<T>{b}); }
template <typename T>
constexpr T wrap_sub(T a, T b) noexcept { return static_cast<T>(Wide<T>{a} - Wide<T>{b}); }
template <typename T>
constexpr T wrap_mul(T a, T b) noexcept { return static_cast<T>(Wide<T>{a} * Wide<T>{b}); }
template <typename T>
constexpr T carrier_ones() noexcept { return static_cast<T>(~T{0}); }
template <typename T>
constexpr std::make_signed_t<T> as_signed(T v) noexcept { return static_cast<std::make_signed_t<T>>(v); }

// Elementwise row loops over the valid region.  The destination may alias a
// source: every output element depends only on the inputs at its own index
// and is written after they are read, so read-before-write holds.
template <typename T, typename Op>
void map_rows(Tile& destination, const Tile& source, Op op) {
  const TileDescriptor& d = destination.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    const T* a = source.row_data<T>(r);
    T* out = destination.row_data<T>(r);
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) out[c] = op(a[c]);
  }
}
template <typename T, typename Op>
void map_rows(Tile& destination, const Tile& left, const Tile& right, Op op) {
  const TileDescriptor& d = destination.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    const T* a = left.row_data<T>(r);
    const T* b = right.row_data<T>(r);
    T* out = destination.row_data<T>(r);
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) out[c] = op(a[c], b[c]);
  }
}

// Full-destination publication (ADR 0014): valid region defined, then the
// physical elements outside it take the bundle's PadValue.
inline void publish(Tile& destination, PadValue pad) {
  destination.mark_valid_region_defined();
  destination.apply_padding(pad);
}

// ---- data-type sets (asl/tile/model/legality/dtype-layout.asl) ----
bool vec_scalar_integer_type(DataType t) noexcept;              // TileVecScalarIntegerDataTypeSupported
bool floating_elementwise_type(DataType t) noexcept;            // TileFloatingElementwiseDataTypeSupported
bool a9_type(DataType t) noexcept;                               // TileA9DataTypeSupported
bool binary_type_supported(Binary op, DataType t) noexcept;     // TileBinaryDataTypeSupported
bool unary_type_supported(Unary op, DataType t) noexcept;       // TileUnaryDataTypeSupported

// ---- tile predicates (asl/tile/model/legality, definedness) ----
bool logical_shape_match(const TileFile& f, TileIndex a, TileIndex b) noexcept;  // TileLogicalShapeMatch
// TileSourceEncodingsValid: defined, generically indexable, every valid
// element a valid encoding of the type (TF32/HF32/E3M2/E2M3 constraints).
bool source_encodings_valid(const TileFile& f, TileIndex i) noexcept;
// TilePayloadNonzero: defined and no valid element is all-zero bits.
bool payload_nonzero(const TileFile& f, TileIndex i) noexcept;
// Numeric, RowMajor, allocated, legal descriptor.
bool numeric_row_major(const TileFile& f, TileIndex i) noexcept;

// TileRawElementValue: the low element bits of an XLEN scalar.
std::uint64_t raw_element_value(std::uint64_t scalar, DataType t) noexcept;
// TileIntegerOperandValue is_zero test on a raw element of an integer type.
inline bool integer_element_zero(std::uint64_t raw, DataType t) noexcept {
  return raw_element_value(raw, t) == 0;
}

// The first source/destination shape the closed loop schemas require
// (SelectedBundleComparisonShapeMatches): ValidCol = LB0, ValidRow = LB1
// (default 1), Col = LB2 (default ValidCol).
bool bundle_shape_matches(const arch::BlockState& b, const Tile& t) noexcept;
// SelectedBundleTileScalarSourceLegal: a numeric RowMajor source of type t,
// completely defined with valid encodings, matching the loop shape.
bool bundle_source_legal(const TileFile& f, TileIndex source, DataType t, const arch::BlockState& b) noexcept;

// ---- schema helpers (asl/block/model/dispatch/*-schema.asl) ----
// One binding, one new local destination, sources as given, LB0..LB2 legal,
// no Shared binding.
bool single_binding_schema(const arch::BlockState& b, bool source0, bool source1) noexcept;
// Two bindings: inputs (two sources, no destination, not last) then result
// (destination, source0 only, last) — the TFMA/TSEL shape.
bool paired_binding_schema(const arch::BlockState& b) noexcept;
// B.DATR layout field selects RowMajor (CurrentBundleTileLayout).
bool bundle_layout_row_major(const arch::BlockState& b) noexcept;

}  // namespace pto::tile::ops
