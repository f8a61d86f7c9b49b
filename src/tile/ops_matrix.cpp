#include "tile/ops_matrix.hpp"

#include <bit>
#include <utility>
#include <vector>

#include "numerics/arith.hpp"
#include "numerics/format.hpp"
#include "tile/cube_layout.hpp"
#include "tile/matrix_postprocess.hpp"
#include "tile/matrix_product.hpp"
#include "tile/ops_common.hpp"
#include "tile/ops_elementwise.hpp"
#include "tile/shared_tile.hpp"

namespace pto::tile {

// ============================================================ B.FPATR

namespace fpatr {
namespace {

// FP19 carrier (asl/arch/data-types/fp19.asl): sign [18], exponent [17:10],
// fraction [9:0].
bool fp19_positive_normal(std::uint64_t v) noexcept {
  const std::uint64_t exponent = (v >> 10) & 0xFF;
  return ((v >> 18) & 1U) == 0 && exponent != 0 && exponent != 0xFF;
}

// Bits [hi:lo] of v are zero.
constexpr bool zero_bits(std::uint64_t v, unsigned hi, unsigned lo) noexcept {
  const std::uint64_t mask = (hi == 63 ? ~0ULL : ((1ULL << (hi + 1)) - 1)) & ~((1ULL << lo) - 1);
  return (v & mask) == 0;
}

}  // namespace

const PreQuantMode& pre_quant_mode(unsigned m) noexcept {
  return m < kPreQuantModes.size() ? kPreQuantModes[m] : kReservedPreQuantMode;
}

const ReluMode& relu_mode(unsigned code) noexcept {
  return code < kReluModes.size() ? kReluModes[code] : kReservedReluMode;
}

const GroupNCode& group_n_code(unsigned code) noexcept {
  return code < kGroupNCodes.size() ? kGroupNCodes[code] : kReservedGroupNCode;
}

bool fields_legal(const arch::BundleFixedPointAttributes& a) noexcept {
  if (!pre_quant_mode(a.pre_quant_mode).legal || !relu_mode(a.relu_mode).legal || !group_n_code(a.group_n_code).legal)
    return false;
  if (!a.row_max_en && a.row_max_init) return false;
  if (a.group_max_en != (a.group_n_code != 0)) return false;
  return a.row_max_en || a.group_max_en || !a.max_abs_en;
}

bool mode_uses_vector_parameter(unsigned m) noexcept { return pre_quant_mode(m).vector_parameter; }

bool mode_uses_scalar_parameter(unsigned m) noexcept { return pre_quant_mode(m).scalar_parameter; }

bool accumulator_type_legal(unsigned m, DataType t) noexcept {
  if (m == 0) return t == DataType::FP32 || t == DataType::S32 || t == DataType::U32;
  if (!pre_quant_mode(m).legal) return false;
  return t == (pre_quant_mode(m).s32_accumulator ? DataType::S32 : DataType::FP32);
}

DataType output_type(unsigned m) noexcept { return pre_quant_mode(m).output; }

// Shift modes carry the shift code in [35:32]; the others an FP19 scale in
// [31:13] and, with a nonzero BundleFPATRModeOffsetWidth, a signed offset from
// bit 37 (MatrixQuantOffset); every other bit is reserved.
bool quant_parameter_word_legal(unsigned m, std::uint64_t v) noexcept {
  const PreQuantMode& mode = pre_quant_mode(m);
  if (mode.shift) return zero_bits(v, 31, 0) && zero_bits(v, 63, 36);
  if (!mode.scalar_parameter && !mode.vector_parameter) return false;
  const bool scale = zero_bits(v, 12, 0) && fp19_positive_normal(v >> 13);
  if (mode.offset_width == 0) return scale && zero_bits(v, 63, 32);
  return scale && zero_bits(v, 36, 32) && zero_bits(v, 63, 37U + mode.offset_width);
}

bool relu_parameter_word_legal(std::uint64_t v) noexcept {
  // FP19ActivationParameterLegal: positive zero or positive normal.
  return zero_bits(v, 63, 19) && (v == 0 || fp19_positive_normal(v));
}

unsigned group_n(unsigned code) noexcept { return group_n_code(code).columns; }

}  // namespace fpatr

// ============================================================ functions and types

bool matrix_function_assigned(unsigned c) noexcept {
  const unsigned base = c & 15U;
  return c < 32 && (c & 8U) == 0 && base != 3 && base <= 6;
}

MatrixFunction matrix_function(unsigned c) noexcept {
  const unsigned base = c & 7U;
  const bool gemv = c >= 16 && c <= 22 && base != 3;  // TileMatrixFunctionIsGEMV: 16-18, 20-22
  return {base == 1 || base == 5, base == 2 || base == 6, base >= 4, gemv};
}

bool MatrixFunction::shared_operands_allowed() const noexcept { return !gemv; }

DataType matrix_accumulator_type(DataType t) noexcept {
  if (data_type_is_signed_integer(t)) return DataType::S32;
  if (num::info(t).kind == num::DataTypeKind::Unsigned) return DataType::U32;
  return DataType::FP32;
}

namespace {

bool ordinary_input_supported(DataType t) noexcept {  // TileOrdinaryMatrixInputTypeSupported
  switch (t) {
    case DataType::FP32: case DataType::TF32: case DataType::HF32: case DataType::FP16: case DataType::BF16:
    case DataType::HiF8: case DataType::E4M3: case DataType::E5M2: case DataType::E3M2: case DataType::E2M3:
    case DataType::E2M1X2: case DataType::E1M2X2: case DataType::S16: case DataType::S8: case DataType::S4X2:
    case DataType::U16: case DataType::U8: case DataType::U4X2: return true;
    default: return false;
  }
}

bool mx_input_supported(DataType t) noexcept {  // TileMXInputTypeSupported
  return t == DataType::FP16 || t == DataType::BF16 || t == DataType::E4M3 || t == DataType::E5M2 ||
         t == DataType::E2M1X2 || t == DataType::E1M2X2;
}

}  // namespace

bool ordinary_matrix_types_same_class(DataType l, DataType r) noexcept {
  if (!ordinary_input_supported(l) || !ordinary_input_supported(r)) return false;
  return matrix_accumulator_type(l) == matrix_accumulator_type(r);  // floating / signed / unsigned classes
}

bool mx_operand_pair_legal(DataType l, DataType r) noexcept { return mx_input_supported(l) && mx_input_supported(r); }

bool mx_type_needs_scale(DataType t) noexcept { return t != DataType::FP16 && t != DataType::BF16; }

// ============================================================ product kernel

namespace {

// The operands one semantic step reads, resolved by either entry point.
struct MatrixOperandSet {
  MatrixFunction function;
  TileIndex destination = 0, accumulator = 0, left = 0, left_scale = 0, right = 0, right_scale = 0, bias = 0;
  bool left_scale_present = false, right_scale_present = false;
};

// Payload indices of a tile's valid region, row-major (TileStorageIndex).
std::vector<std::uint32_t> region_indices(const Tile& t, std::uint32_t rows, std::uint32_t columns) {
  std::vector<std::uint32_t> v(std::size_t{rows} * columns);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < columns; ++c) v[std::size_t{r} * columns + c] = t.linear_index(r, c);
  return v;
}

std::uint32_t to_fp32(DataType t, std::uint64_t raw) noexcept {
  return static_cast<std::uint32_t>(num::convert(t, DataType::FP32, raw, num::RoundingMode::RNE).bits);
}

// One element operand with its optional MX scale, as the accumulate step sees it.
struct ScaledElement {
  std::uint64_t value;
  std::uint64_t scale;
  bool scaled;
};

// TileProfileMatrixScaledAccumulate / TileProfileMatrixAccumulate.
std::uint64_t accumulate_step(std::uint64_t sum, const ScaledElement& l, DataType lt, const ScaledElement& r,
                              DataType rt, bool ieee_fp32, num::RoundingMode mode) {
  if (!ieee_fp32) {
    const std::uint64_t left = l.scaled ? l.value * l.scale : l.value;
    const std::uint64_t right = r.scaled ? r.value * r.scale : r.value;
    return sum + left * right;  // reference: Word arithmetic, wrapping
  }
  std::uint64_t left = to_fp32(lt, l.value), right = to_fp32(rt, r.value);
  if (l.scaled) left = num::ieee_binary(num::BinaryOp::MUL, DataType::FP32, left, to_fp32(DataType::E8M0, l.scale), mode).bits;
  if (r.scaled) right = num::ieee_binary(num::BinaryOp::MUL, DataType::FP32, right, to_fp32(DataType::E8M0, r.scale), mode).bits;
  return num::ieee_fused(num::FusedOp::MADD, DataType::FP32, sum, left, right, mode).bits;
}

// The tiles one semantic step reads (matrix_product.hpp): Local tiles of the
// file or, on the bundle path, read-only materialisations of Shared
// registers.
ProductTiles local_tiles(const TileFile& f, const MatrixOperandSet& o) noexcept {
  return {&f.tile(o.left),        &f.tile(o.right),
          &f.tile(o.left_scale),  &f.tile(o.right_scale),
          &f.tile(o.accumulator), &f.tile(o.bias),
          o.function.mx && o.left_scale_present, o.function.mx && o.right_scale_present,
          o.function.accumulate,  o.function.bias};
}

// MatrixProductResultFromTiles / MatrixMXProductResultFromTiles followed by
// MatrixBiasResult, element by element: the M x N results in row-major
// order.  The oracle of the host kernels (matrix_product.hpp) and their
// fallback.  Sources are read completely before the destination changes
// (C == D reads the old C).
std::vector<std::uint64_t> exact_matrix_values(const ProductTiles& t, const MatrixOperandSet& o, NumericProfile profile,
                                               num::RoundingMode mode) {
  const Tile& left = *t.left;
  const Tile& right = *t.right;
  const std::uint32_t m = left.descriptor().valid_rows, k = left.descriptor().valid_columns;
  const std::uint32_t n = right.descriptor().valid_columns;
  const DataType lt = left.data_type(), rt = right.data_type();
  const DataType result_type = o.function.mx ? DataType::FP32 : matrix_accumulator_type(lt);
  const bool ieee_fp32 = profile == NumericProfile::Ieee && result_type == DataType::FP32;
  const std::vector<std::uint32_t> li = region_indices(left, m, k), ri = region_indices(right, k, n);
  std::vector<std::uint64_t> out(std::size_t{m} * n);
  for (std::uint32_t row = 0; row < m; ++row) {
    for (std::uint32_t column = 0; column < n; ++column) {
      std::uint64_t sum = 0;
      if (o.function.accumulate) sum = t.accumulator->read_word(t.accumulator->linear_index(row, column));
      for (std::uint32_t inner = 0; inner < k; ++inner) {
        ScaledElement l{left.read_word(li[std::size_t{row} * k + inner]), 0, o.function.mx && o.left_scale_present};
        ScaledElement r{right.read_word(ri[std::size_t{inner} * n + column]), 0, o.function.mx && o.right_scale_present};
        if (l.scaled) l.scale = t.left_scale->read_word(t.left_scale->linear_index(row, inner / 32));
        if (r.scaled) r.scale = t.right_scale->read_word(t.right_scale->linear_index(inner / 32, column));
        sum = accumulate_step(sum, l, lt, r, rt, ieee_fp32, mode);
      }
      if (o.function.bias) {
        const std::uint64_t bias = t.bias->read_word(t.bias->linear_index(0, column));
        sum = ieee_fp32 ? num::ieee_binary(num::BinaryOp::ADD, DataType::FP32, sum, bias, mode).bits : sum + bias;
      }
      out[std::size_t{row} * n + column] = sum;
    }
  }
  return out;
}

std::vector<std::uint64_t> matrix_values(const ProductTiles& t, const MatrixOperandSet& o, NumericProfile profile,
                                         num::RoundingMode mode) {
  if (const std::optional<ProductColumns> fast = fast_product(t, profile, mode)) return row_major_words(*fast);
  return exact_matrix_values(t, o, profile, mode);
}

// Publish an M x N value block into a tile's valid region: definedness is
// cleared first and the valid region marked defined after all writes
// (MarkLocalTileValidRegionDefined, ADR 0014).
void publish(Tile& t, const std::vector<std::uint64_t>& values, std::uint32_t columns) {
  t.configure(t.descriptor());
  const TileDescriptor& d = t.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) t.store_raw(t.linear_index(r, c), values[std::size_t{r} * columns + c]);
  t.mark_valid_region_defined();
}

num::RoundingMode datr_rounding(const arch::BlockState& b) noexcept {
  // DecodeBundleRoundingSelection: NONE (0) = the operation default, RNE.
  constexpr std::array<num::RoundingMode, 8> kModes{num::RoundingMode::RNE, num::RoundingMode::RNE, num::RoundingMode::RTZ,
                                                    num::RoundingMode::RTM, num::RoundingMode::RTP, num::RoundingMode::RNA,
                                                    num::RoundingMode::RTO, num::RoundingMode::RHB};
  return kModes[b.data_attributes.rounding_mode & 7U];
}

// ============================================================ selected types

struct SelectedTypes {
  bool valid = false;
  DataType left = DataType::U8, right = DataType::U8;
};

// Left from the BSTART DataType, right from B.DATR DataType when B.DATR is present.
SelectedTypes selected_types(const arch::BlockState& b) noexcept {
  const auto left = b.operation.data_type_valid ? num::data_type_from_code(b.operation.data_type) : std::nullopt;
  if (!left) return {};
  const auto right = b.data_attributes_present ? num::data_type_from_code(b.data_attributes.data_type) : left;
  if (!right) return {};
  return {true, *left, *right};
}

// ============================================================ direct handlers

bool info_contents_legal(const TileFile& f, TileIndex i) noexcept {  // TileInfoDescriptorLegal (generic tiles)
  return f.source_contents_defined(i);
}

// TileMatrixLocalPrimaryInfoLegal with the tile's own type.
bool cube_primary_legal(const TileFile& f, TileIndex i, std::uint32_t rows, std::uint32_t columns,
                        TileLayout layout) noexcept {
  const Tile& t = f.tile(i);
  const TileDescriptor& d = t.descriptor();
  return cube_descriptor_legal(d, f.model_tile_elements()) && t.contents_defined() && d.valid_rows == rows && d.valid_columns == columns &&
         d.layout == layout;
}

// TileMatrixShapeLegal (Local CUBE primaries): M x N within PTO_MODEL_TILE_ELEMENTS.
bool matrix_shape_legal(const TileFile& f, const arch::BlockState& b, TileIndex left, TileIndex right) noexcept {
  const TileDescriptor& l = f.tile(left).descriptor();
  const TileDescriptor& r = f.tile(right).descriptor();
  const std::uint32_t m = l.valid_rows, n = r.valid_columns, k = l.valid_columns;
  return b.operation.valid && m != 0 && n != 0 && k != 0 && matrix_m_layout_legal(l.layout, m) &&
         cube_primary_legal(f, left, m, k, l.layout) && cube_primary_legal(f, right, k, n, TileLayout::CubeN8) &&
         f.within_model_tile_elements(std::uint64_t{m} * n);
}

bool operand_types_legal(const TileFile& f, const arch::BlockState& b, const MatrixOperandSet& o) noexcept {
  const SelectedTypes s = selected_types(b);
  if (!s.valid || f.tile(o.left).data_type() != s.left || f.tile(o.right).data_type() != s.right) return false;
  return o.function.mx ? mx_operand_pair_legal(s.left, s.right) : ordinary_matrix_types_same_class(s.left, s.right);
}

bool output_converted(const arch::BlockState& b) noexcept {
  return b.fixed_point_attributes.valid && b.fixed_point_attributes.pre_quant_mode != 0;
}

// TileMatrixDestinationLegal (the accumulator type follows the left type;
// MX is always floating, so FP32).
bool destination_legal(const TileFile& f, const arch::BlockState& b, const MatrixOperandSet& o) noexcept {
  const TileDescriptor& d = f.tile(o.destination).descriptor();
  const TileDescriptor& l = f.tile(o.left).descriptor();
  const DataType expected = output_converted(b) ? fpatr::output_type(b.fixed_point_attributes.pre_quant_mode)
                                                : matrix_accumulator_type(l.data_type);
  return cube_descriptor_legal(d, f.model_tile_elements()) && d.valid_rows == l.valid_rows &&
         d.valid_columns == f.tile(o.right).descriptor().valid_columns && d.data_type == expected && d.layout == l.layout;
}

// TileMatrixInfoOptionalScalesLegal (scale side).
bool scales_legal(const TileFile& f, const MatrixOperandSet& o) noexcept {
  const TileDescriptor& l = f.tile(o.left).descriptor();
  const TileDescriptor& r = f.tile(o.right).descriptor();
  if (o.left_scale_present != mx_type_needs_scale(l.data_type) || o.right_scale_present != mx_type_needs_scale(r.data_type))
    return false;
  const std::uint32_t blocks = (l.valid_columns + 31) / 32;
  const auto scale_ok = [&](TileIndex s, std::uint32_t rows, std::uint32_t columns) {
    const TileDescriptor& d = f.tile(s).descriptor();
    return info_contents_legal(f, s) && d.data_type == DataType::E8M0 && d.layout == TileLayout::RowMajor &&
           d.valid_rows == rows && d.valid_columns == columns;
  };
  return (!o.left_scale_present || scale_ok(o.left_scale, l.valid_rows, blocks)) &&
         (!o.right_scale_present || scale_ok(o.right_scale, blocks, r.valid_columns));
}

// TileMatrixBiasShapeLegal plus the bias type.
bool bias_legal(const TileFile& f, const MatrixOperandSet& o) noexcept {
  const TileDescriptor& d = f.tile(o.bias).descriptor();
  const DataType result = o.function.mx ? DataType::FP32 : matrix_accumulator_type(f.tile(o.left).data_type());
  return f.source_contents_defined(o.bias) && d.valid_rows == 1 &&
         d.valid_columns == f.tile(o.right).descriptor().valid_columns && d.layout == TileLayout::RowMajor &&
         d.data_type == result;
}

// TileOperandsLegal_TMATMUL_ACC's accumulator part.
bool accumulator_legal(const TileFile& f, const arch::BlockState& b, const MatrixOperandSet& o) noexcept {
  const TileDescriptor& c = f.tile(o.accumulator).descriptor();
  const TileDescriptor& d = f.tile(o.destination).descriptor();
  const TileDescriptor& l = f.tile(o.left).descriptor();
  return o.destination != o.accumulator && cube_descriptor_legal(c, f.model_tile_elements()) &&
         f.tile(o.accumulator).contents_defined() &&
         c.valid_rows == l.valid_rows && c.valid_columns == f.tile(o.right).descriptor().valid_columns &&
         c.data_type == matrix_accumulator_type(l.data_type) && c.layout == l.layout && c.layout == d.layout &&
         (output_converted(b) || c.capacity_bytes == d.capacity_bytes);
}

// TileOperandsLegal_<TMATMUL..TGEMV_MX_ACC>.
bool direct_operands_legal(const TileFile& f, const arch::BlockState& b, const MatrixOperandSet& o) noexcept {
  if (!matrix_shape_legal(f, b, o.left, o.right) || !operand_types_legal(f, b, o)) return false;
  if (o.function.mx && !scales_legal(f, o)) return false;
  if (!destination_legal(f, b, o)) return false;
  if (o.function.bias && !bias_legal(f, o)) return false;
  if (o.function.accumulate && !accumulator_legal(f, b, o)) return false;
  return !o.function.gemv || f.tile(o.left).descriptor().valid_rows == 1;
}

// The catalog operand order: [C], A, [A scale], B, [B scale], [bias]; the
// direct MX forms always carry both scale slots.
MatrixOperandSet direct_operands(unsigned code, const TileFile& f, const TileOperands& ops) noexcept {
  MatrixOperandSet o;
  o.function = matrix_function(code);
  o.destination = ops.destination[0];
  unsigned next = 0;
  if (o.function.accumulate) o.accumulator = ops.source[next++];
  o.left = ops.source[next++];
  if (o.function.mx) o.left_scale = ops.source[next++];
  o.right = ops.source[next++];
  if (o.function.mx) o.right_scale = ops.source[next++];
  if (o.function.bias) o.bias = ops.source[next];
  if (o.function.mx) {
    const DataType lt = f.tile(o.left).data_type(), rt = f.tile(o.right).data_type();
    o.left_scale_present = mx_input_supported(lt) && mx_type_needs_scale(lt);
    o.right_scale_present = mx_input_supported(rt) && mx_type_needs_scale(rt);
  }
  return o;
}

template <unsigned Code>
bool direct_legal(const TileFile& f, const TileOperands& ops, const arch::BlockState& b) {
  return direct_operands_legal(f, b, direct_operands(Code, f, ops));
}

template <unsigned Code>
TileResult direct_execute(TileExecutionContext& c) {
  const MatrixOperandSet o = direct_operands(Code, c.tiles, c.operands);
  const ProductTiles tiles = local_tiles(c.tiles, o);
  const num::RoundingMode mode = datr_rounding(c.bundle);
  // CommitMatrixResult (no B.FPATR outputs).
  Tile& destination = c.tiles.tile(o.destination);
  if (fast_product_into(destination, tiles, c.profile, mode)) return TileResult::written(destination.valid_element_count());
  const std::vector<std::uint64_t> values = exact_matrix_values(tiles, o, c.profile, mode);
  publish(c.tiles.tile(o.destination), values, c.tiles.tile(o.right).descriptor().valid_columns);
  return TileResult::written(values.size());
}

template <unsigned Code>
constexpr TileKernel kMatrixKernel{nullptr, nullptr, true, direct_legal<Code>, direct_execute<Code>};

// ============================================================ bundle path

// BundleMatrixSourceAt / BundleMatrixDestinationAt: Local sources and
// destinations in binding order.
TileIndex source_at(const arch::BlockState& b, unsigned ordinal) noexcept {
  unsigned seen = 0;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    if (t.source0_valid && seen++ == ordinal) return t.source0;
    if (t.source1_valid && seen++ == ordinal) return t.source1;
  }
  return 0;
}

TileIndex destination_at(const arch::BlockState& b, unsigned ordinal) noexcept {
  unsigned seen = 0;
  for (const arch::BundleTileBinding& t : b.tile_bindings)
    if (t.valid && t.destination_valid && seen++ == ordinal) return t.destination;
  return 0;
}

unsigned local_source_count(const arch::BlockState& b) noexcept {
  unsigned n = 0;
  for (const arch::BundleTileBinding& t : b.tile_bindings)
    if (t.valid) n += unsigned{t.source0_valid} + unsigned{t.source1_valid};
  return n;
}

unsigned local_destination_count(const arch::BlockState& b) noexcept {
  unsigned n = 0;
  for (const arch::BundleTileBinding& t : b.tile_bindings) n += t.valid && t.destination_valid;
  return n;
}

// The Matrix schema as the dedicated path resolves it.
struct MatrixSchema {
  unsigned code = 0;
  MatrixFunction function;
  SelectedTypes types;
  bool left_scale_present = false, right_scale_present = false;
  DataType result_type = DataType::FP32;
  std::uint32_t m = 1, n = 1, k = 1;
  unsigned shared = 0;  // BundleSharedBindingCount

  unsigned left_group() const noexcept { return 1 + unsigned{left_scale_present}; }    // TileMatrixLeftGroupSourceCount
  unsigned right_group() const noexcept { return 1 + unsigned{right_scale_present}; }  // ...RightGroupSourceCount
  // Shared operand groups: none, the right group, or both groups (TGEMV is
  // Local-only).  TileMatrixSharedSourceCountLegal.
  bool shared_count_legal() const noexcept {
    if (!function.shared_operands_allowed() || shared == 0) return shared == 0;
    return shared == right_group() || shared == left_group() + right_group();
  }
  bool left_shared() const noexcept { return shared != 0 && shared != right_group(); }
  bool left_local() const noexcept { return !left_shared(); }
  // TileMatrixLocalMathematicalSourceCount: [C], Local groups, [bias].
  unsigned mathematical_sources() const noexcept {
    const unsigned supplementary = unsigned{function.bias || function.accumulate};
    if (shared == 0) return left_group() + right_group() + supplementary;
    return (left_shared() ? 0 : left_group()) + supplementary;
  }
};

const arch::BundleFixedPointAttributes& fp(const arch::BlockState& b) noexcept { return b.fixed_point_attributes; }

unsigned post_process_source_count(const arch::BlockState& b) noexcept {  // BundleMatrixPostProcessSourceCount
  return unsigned{fp(b).row_max_en && fp(b).row_max_init} + unsigned{fpatr::mode_uses_vector_parameter(fp(b).pre_quant_mode)} +
         unsigned{fpatr::relu_uses_vector_parameter(fp(b).relu_mode)};
}

unsigned scalar_parameter_count(const arch::BlockState& b) noexcept {  // BundleOperationGPRInputCount (Matrix)
  return unsigned{fpatr::mode_uses_scalar_parameter(fp(b).pre_quant_mode)} +
         unsigned{fpatr::relu_uses_scalar_parameter(fp(b).relu_mode)};
}

// BundleOperationScalarBindingSchemaLegal and BundleOperationGPRBindingValuesLegal
// for a Matrix block: the B.FPATR scalar parameters pack densely into RegSrc0..1.
bool scalar_bindings_legal(const arch::BlockState& b, const std::array<std::uint64_t, 3>& in) noexcept {
  const arch::BundleScalarBinding& s = b.scalar_bindings[0];
  if (!s.valid) return true;
  const unsigned inputs = scalar_parameter_count(b);
  if ((inputs < 3 && s.source2 != 0) || (inputs < 2 && s.source1 != 0) || (inputs < 1 && s.source0 != 0) ||
      s.destination != 0)
    return false;
  unsigned slot = 0;
  if (fpatr::mode_uses_scalar_parameter(fp(b).pre_quant_mode) &&
      !fpatr::quant_parameter_word_legal(fp(b).pre_quant_mode, in[slot++]))
    return false;
  return !fpatr::relu_uses_scalar_parameter(fp(b).relu_mode) || fpatr::relu_parameter_word_legal(in[slot]);
}

// BundleCubeDimensionValue: omitted = 1, beyond 16 bits = 0.
std::uint32_t cube_dimension(const arch::BlockState& b, unsigned i) noexcept {
  if (!b.dimension_present[i]) return 1;
  return b.dimensions[i] <= 65535 ? static_cast<std::uint32_t>(b.dimensions[i]) : 0;
}

// BundleTMATMULMasksAgree: every Local and Shared binding names one mask.
bool masks_agree(const arch::BlockState& b) noexcept {
  std::optional<std::uint8_t> first;
  const auto agree = [&first](std::uint8_t mask) {
    const bool same = !first || *first == mask;
    first = mask;
    return same;
  };
  for (const arch::BundleTileBinding& t : b.tile_bindings)
    if (t.valid && !agree(t.pe_mask)) return false;
  for (const arch::BundleSharedBinding& t : b.shared_bindings)
    if (t.valid && !agree(t.pe_mask)) return false;
  return first.has_value();
}

// BundleTMATMULSharedMasksAreZero.
bool shared_masks_zero(const arch::BlockState& b) noexcept {
  for (const arch::BundleSharedBinding& t : b.shared_bindings)
    if (t.valid && t.pe_mask != 0) return false;
  return true;
}

// BundleTMATMULDimensionsLegal: Shared operands need power-of-two M, N, K.
bool dimensions_legal(std::uint32_t m, std::uint32_t n, std::uint32_t k, unsigned shared) noexcept {
  if (shared == 0) return m != 0 && n != 0 && k != 0;
  return std::has_single_bit(m) && std::has_single_bit(n) && std::has_single_bit(k);
}

bool datr_legal(const arch::BlockState& b) noexcept {  // BundleTMATMULDataAttributesLegal
  const arch::BundleDataAttributes& d = b.data_attributes;
  return !b.data_attributes_present ||
         (d.data_layout == 0 && d.pad_value == 0 && d.comparison_mode == 0 && !d.canonicalize);
}

// TileMatrixAuxiliarySourceSchemaLegal.
bool auxiliary_source_legal(const TileFile& f, TileIndex s, std::uint32_t rows, std::uint32_t columns, DataType t) {
  const TileDescriptor& d = f.tile(s).descriptor();
  return f.source_contents_defined(s) && d.valid_rows == rows && d.valid_columns == columns && d.data_type == t &&
         d.layout == TileLayout::RowMajor && d.location == TileLocation::Any;
}

// TileMatrixVector{Quant,Relu}ContentsLegal: every parameter word of row 0.
template <typename Legal>
bool vector_parameters_legal(const Tile& t, Legal legal) {
  for (std::uint32_t c = 0; c < t.descriptor().valid_columns; ++c)
    if (!legal(t.read_word(t.linear_index(0, c)))) return false;
  return true;
}

// BundleMatrixPostProcessSourcesLegal.
bool post_process_sources_legal(const arch::BlockState& b, const TileFile& f, const MatrixSchema& s) {
  if (!fpatr::accumulator_type_legal(fp(b).pre_quant_mode, s.result_type)) return false;
  unsigned ordinal = s.mathematical_sources();
  if (fp(b).row_max_en && fp(b).row_max_init && !auxiliary_source_legal(f, source_at(b, ordinal++), s.m, 1, s.result_type))
    return false;
  if (fpatr::mode_uses_vector_parameter(fp(b).pre_quant_mode)) {
    const TileIndex q = source_at(b, ordinal++);
    const unsigned mode = fp(b).pre_quant_mode;
    if (!auxiliary_source_legal(f, q, 1, s.n, DataType::U64) ||
        !vector_parameters_legal(f.tile(q), [mode](std::uint64_t w) { return fpatr::quant_parameter_word_legal(mode, w); }))
      return false;
  }
  if (fpatr::relu_uses_vector_parameter(fp(b).relu_mode)) {
    const TileIndex r = source_at(b, ordinal);
    if (!auxiliary_source_legal(f, r, 1, s.n, DataType::U64) ||
        !vector_parameters_legal(f.tile(r), fpatr::relu_parameter_word_legal))
      return false;
  }
  return true;
}

std::uint32_t primary_destination_capacity(const arch::BlockState& b) noexcept {
  for (const arch::BundleTileBinding& t : b.tile_bindings)
    if (t.valid && t.destination_valid) return local_size_code_legal(t.destination_size) ? size_code_bytes(t.destination_size) : 0;
  return 0;
}

// The layout of the Local tile that fixes the CUBE M layout: A when A is
// Local, else C (ACC); nullopt without either.
std::optional<TileLayout> local_m_layout(const arch::BlockState& b, const TileFile& f, const MatrixSchema& s) noexcept {
  if (s.left_local()) return f.tile(source_at(b, s.function.accumulate ? 1 : 0)).descriptor().layout;
  if (s.function.accumulate) return f.tile(source_at(b, 0)).descriptor().layout;
  return std::nullopt;
}

// BundleMatrixLocalMathematicalSourcesLegal: C, the Local A group (absent
// when A is Shared), the Local B group (absent with any Shared operand), bias.
bool local_sources_legal(const arch::BlockState& b, const TileFile& f, const MatrixSchema& s) {
  unsigned ordinal = 0;
  const TileLayout m_layout = local_m_layout(b, f, s).value_or(TileLayout::RowMajor);
  const auto primary = [&](TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t, TileLayout layout) {
    return cube_primary_legal(f, i, rows, columns, layout) && f.tile(i).data_type() == t;
  };
  const auto scale = [&](TileIndex i, std::uint32_t rows, std::uint32_t columns) {
    const TileDescriptor& d = f.tile(i).descriptor();
    return f.source_contents_defined(i) && d.valid_rows == rows && d.valid_columns == columns &&
           d.data_type == DataType::E8M0 && d.layout == TileLayout::RowMajor;
  };
  const std::uint32_t blocks = (s.k + 31) / 32;
  if (s.function.accumulate) {
    const TileIndex c = source_at(b, ordinal++);
    const bool converted = fp(b).pre_quant_mode != 0;
    if (!primary(c, s.m, s.n, s.result_type, m_layout) ||
        !(converted || f.tile(c).descriptor().capacity_bytes == primary_destination_capacity(b)))
      return false;
  }
  if (s.left_local()) {
    const TileIndex left = source_at(b, ordinal++);
    if (!matrix_m_layout_legal(f.tile(left).descriptor().layout, s.m) ||
        !primary(left, s.m, s.k, s.types.left, f.tile(left).descriptor().layout))
      return false;
    if (s.left_scale_present && !scale(source_at(b, ordinal++), s.m, blocks)) return false;
  }
  if (s.shared == 0) {
    if (!primary(source_at(b, ordinal++), s.k, s.n, s.types.right, TileLayout::CubeN8)) return false;
    if (s.right_scale_present && !scale(source_at(b, ordinal++), blocks, s.n)) return false;
  }
  if (s.function.bias) {
    const TileIndex bias = source_at(b, ordinal);
    const TileDescriptor& d = f.tile(bias).descriptor();
    if (!f.source_contents_defined(bias) || d.valid_rows != 1 || d.valid_columns != s.n || d.data_type != s.result_type ||
        d.layout != TileLayout::RowMajor)
      return false;
  }
  return true;
}

// ---- Shared operands (asl/block/model/dispatch/shared-cube-matrix.asl)

// The RowMajor read schema of a Shared Matrix source.
SharedShape shared_matrix_shape(std::uint32_t valid_rows, std::uint32_t valid_columns, std::uint32_t columns,
                                DataType t) noexcept {
  SharedShape shape;
  shape.columns = columns;
  shape.valid_rows = valid_rows;
  shape.valid_columns = valid_columns;
  shape.data_type = t;
  return shape;
}

// BundleMatrixSharedSourceSchemaLegal: a source binding (B.IOS SizeCode 0)
// of a cooperatively ready register with a legal RowMajor read schema.
bool shared_source_legal(const arch::BlockState& b, const TileFile& f, unsigned ordinal, const SharedShape& shape) {
  if (ordinal >= b.shared_bindings.size() || !b.shared_bindings[ordinal].valid) return false;
  const arch::BundleSharedBinding& binding = b.shared_bindings[ordinal];
  return binding.size_code == 0 && shared_cooperative_matrix_ready(f, binding.shared_id) &&
         shared_read_schema(f, binding.shared_id, shape).has_value();
}

// BundleMatrixSharedPrimarySchemaLegal: B.FPATR TransA/TransB name a
// register stored transposed (logical rows x columns stored columns x rows).
bool shared_primary_legal(const arch::BlockState& b, const TileFile& f, unsigned ordinal, std::uint32_t rows,
                          std::uint32_t columns, DataType t, bool transpose) {
  const std::uint32_t stored_rows = transpose ? columns : rows, stored_columns = transpose ? rows : columns;
  return shared_source_legal(b, f, ordinal, shared_matrix_shape(stored_rows, stored_columns, stored_columns, t));
}

// BundleMatrixSharedSchemasLegal: without Shared operands TransA/TransB must
// be clear; TransA needs a Shared A; the Shared groups fill the stream exactly.
bool shared_schemas_legal(const arch::BlockState& b, const TileFile& f, const MatrixSchema& s) {
  if (s.shared == 0) return !fp(b).trans_a && !fp(b).trans_b;
  if (fp(b).trans_a && !s.left_shared()) return false;
  const std::uint32_t blocks = (s.k + 31) / 32;
  unsigned ordinal = 0;
  if (s.left_shared()) {
    if (!shared_primary_legal(b, f, ordinal++, s.m, s.k, s.types.left, fp(b).trans_a)) return false;
    if (s.left_scale_present &&
        !shared_source_legal(b, f, ordinal++, shared_matrix_shape(s.m, blocks, blocks, DataType::E8M0)))
      return false;
  }
  if (!shared_primary_legal(b, f, ordinal++, s.k, s.n, s.types.right, fp(b).trans_b)) return false;
  if (s.right_scale_present && !shared_source_legal(b, f, ordinal++, shared_matrix_shape(blocks, s.n, s.n, DataType::E8M0)))
    return false;
  return ordinal == s.shared;
}

// MaterializeBundleSharedMatrixSource / ...Primary: a read-only RowMajor
// copy of Shared register words at the register's capacity.  Element
// (row, column) reads the stored element (column, row) when transposed;
// undefined quarters read UndefinedSharedTileWord.
Tile materialize_shared(const arch::BlockState& b, const TileFile& f, unsigned ordinal, std::uint32_t rows,
                        std::uint32_t columns, DataType t, bool transpose) {
  const unsigned id = b.shared_bindings[ordinal].shared_id;
  const SharedTile& shared = f.shared(id);
  SharedShape shape = shared_matrix_shape(rows, columns, columns, t);
  shape.capacity_bytes = shared.tile.descriptor().capacity_bytes;
  Tile tile;
  tile.configure(shared_descriptor(shape));
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < columns; ++c)
      tile.store_raw(tile.linear_index(r, c),
                     read_shared_word(shared, id, transpose ? shared.tile.linear_index(c, r) : shared.tile.linear_index(r, c)));
  tile.mark_valid_region_defined();
  return tile;
}

// BundleMatrixCooperativeMLayout: D takes the Local A (or C) M layout, else
// the smallest CUBE M layout holding M.
std::optional<TileLayout> cooperative_m_layout(const arch::BlockState& b, const TileFile& f, const MatrixSchema& s) {
  TileLayout layout = local_m_layout(b, f, s).value_or(s.m <= 16   ? TileLayout::CubeM16
                                                        : s.m <= 32 ? TileLayout::CubeM32
                                                                    : TileLayout::RowMajor);
  if (!matrix_m_layout_legal(layout, s.m)) return std::nullopt;
  return layout;
}

// BundleMatrixAccumulatorDestinationIndicesDistinct: the ASL compares C's
// TileIndex with the zero-extended DstTile hand code (PTO-CUBE-ACCUMULATOR-OUTPUT-001).
bool accumulator_distinct(const arch::BlockState& b, const MatrixSchema& s) noexcept {
  if (!s.function.accumulate) return true;
  for (const arch::BundleTileBinding& t : b.tile_bindings)
    if (t.valid && t.destination_valid) return source_at(b, 0) != t.destination_hand;
  return false;
}

std::uint32_t group_max_columns(const arch::BlockState& b, std::uint32_t columns) noexcept {  // BundleGroupMaxColumns
  const unsigned g = fpatr::group_n(fp(b).group_n_code);
  return !fp(b).group_max_en || g == 0 ? columns : (columns + g - 1) / g;
}

// ResolveBundleTMATMULCubeDestinationGroup: rename, budget, shape of every
// destination (D in the CUBE layout, RowMax/GroupMax RowMajor), then
// allocate all or nothing.
FaultCode resolve_cube_destinations(arch::BlockState& b, TileFile& f, const MatrixSchema& s, TileLayout layout,
                                std::vector<std::uint8_t>& allocated) {
  const auto pending = [](const arch::BundleTileBinding& t) {
    return t.valid && t.destination_valid && !t.destination_allocated_by_bundle;
  };
  std::array<bool, kTileRegisterCount> reserved{};
  std::array<TileIndex, arch::kBundleTileBindingCount> resolved{};
  std::uint64_t required = 0;
  for (unsigned i = 0; i < arch::kBundleTileBindingCount; ++i) {
    const arch::BundleTileBinding& t = b.tile_bindings[i];
    if (!pending(t)) continue;
    required += core_allocation_bytes(t.pe_mask, size_code_bytes(t.destination_size));
    bool found = false;
    for (unsigned offset = 0; offset < kTilesPerHand && !found; ++offset) {
      const auto index = static_cast<TileIndex>(t.destination_hand * kTilesPerHand + offset);
      if (!f.tile(index).allocated() && !reserved[index]) {
        resolved[i] = index;
        reserved[index] = found = true;
      }
    }
    if (!found) return FaultCode::Fault_TileAllocation;
  }
  if (f.core_capacity_in_use() + required > f.capacity_limit()) return FaultCode::Fault_TileAllocation;
  const DataType output = fp(b).pre_quant_mode == 0 ? s.result_type : fpatr::output_type(fp(b).pre_quant_mode);
  std::vector<std::pair<unsigned, ConfigureRequest>> requests;
  for (unsigned i = 0; i < arch::kBundleTileBindingCount; ++i) {
    const arch::BundleTileBinding& t = b.tile_bindings[i];
    if (!pending(t)) continue;
    ConfigureRequest r;
    r.capacity_bytes = size_code_bytes(t.destination_size);
    r.mask = t.pe_mask;
    const unsigned ordinal = static_cast<unsigned>(requests.size());
    if (ordinal == 0) {
      if (!matrix_m_layout_legal(layout, s.m) ||
          !cube_descriptor_shape_legal(r.capacity_bytes, s.m, s.n, output, layout, f.model_tile_elements()))
        return FaultCode::Fault_TileAllocation;
      r.valid_rows = s.m;
      r.valid_columns = s.n;
      r.data_type = output;
      r.layout = layout;
      r.location = TileLocation::Matrix;
    } else {
      const bool row_auxiliary = fp(b).row_max_en && ordinal == 1;
      const bool group_auxiliary = fp(b).group_max_en && ordinal == (fp(b).row_max_en ? 2U : 1U);
      const std::uint32_t columns = row_auxiliary ? 1 : group_auxiliary ? group_max_columns(b, s.n) : s.n;
      // RowMax/GroupMax: rows * auxiliary_columns within PTO_MODEL_TILE_ELEMENTS.
      if (!descriptor_shape_legal(r.capacity_bytes, columns, s.m, columns, s.result_type) ||
          !f.within_model_tile_elements(std::uint64_t{derived_tile_rows(r.capacity_bytes, columns, s.result_type)} *
                                        columns))
        return FaultCode::Fault_TileAllocation;
      r.columns = r.valid_columns = columns;
      r.valid_rows = s.m;
      r.data_type = s.result_type;
    }
    requests.emplace_back(i, r);
  }
  for (std::size_t j = 0; j < requests.size(); ++j) {
    const auto& [i, r] = requests[j];
    // Budget and every shape were checked above for the whole group.
    static_cast<void>(j == 0 ? f.configure_cube(resolved[i], r) : f.configure(resolved[i], r));
    b.tile_bindings[i].destination = resolved[i];
    b.tile_bindings[i].destination_allocated_by_bundle = true;
    allocated.push_back(resolved[i]);
  }
  return FaultCode::Fault_None;
}

// MatrixReductionAbsoluteWithFlags (asl/arch/profile/matrix-postprocess.asl):
// U32 as is, S32 magnitude (INT_MIN saturates with OF), FP32 without its sign.
std::uint64_t reduction_absolute(std::uint64_t v, DataType t, num::Flags& flags) noexcept {
  const auto low = static_cast<std::uint32_t>(v);
  if (t == DataType::U32) return low;
  if (t == DataType::S32) {
    if ((low >> 31) == 0) return low;
    if (low == 0x80000000U) {
      flags |= num::kOF;
      return 0x7fffffffU;
    }
    return static_cast<std::uint64_t>(static_cast<std::int64_t>(static_cast<std::int32_t>(0U - low)));
  }
  return low & 0x7fffffffU;  // TileFloatingUnaryValue ABS: clear the sign
}

// TileProfileMatrixReductionStepWithFlags: the MAX of TileProfileBinary
// (ops::binary_element) over the values or, with MaxAbsEn, their magnitudes.
std::uint64_t reduction_step(std::uint64_t current, std::uint64_t candidate, bool max_abs, DataType t,
                             NumericProfile profile, num::Flags& flags) {
  if (max_abs) {
    current = reduction_absolute(current, t, flags);
    candidate = reduction_absolute(candidate, t, flags);
  }
  const num::Result r = ops::binary_element(ops::Binary::MAX, t, current, candidate, profile);
  flags |= r.flags;
  return r.bits;
}

// MatrixRowMaxResult (group = 0, optional RowMaxIn) and MatrixGroupMaxResult
// (group = GroupN columns per output column) over the unconverted product.
std::vector<std::uint64_t> matrix_reduction(const std::vector<std::uint64_t>& product, std::uint32_t m, std::uint32_t n,
                                            unsigned group, const Tile* row_max_in, bool max_abs, DataType t,
                                            NumericProfile profile, num::Flags& flags) {
  const std::uint32_t width = group == 0 ? n : group;
  const std::uint32_t groups = (n + width - 1) / width;
  std::vector<std::uint64_t> out(std::size_t{m} * groups);
  for (std::uint32_t r = 0; r < m; ++r)
    for (std::uint32_t g = 0; g < groups; ++g) {
      const std::uint64_t* row = product.data() + std::size_t{r} * n;
      std::uint64_t value = row[g * width];
      if (max_abs) value = reduction_step(value, value, true, t, profile, flags);
      for (std::uint32_t c = g * width + 1; c < std::min(n, (g + 1) * width); ++c)
        value = reduction_step(value, row[c], max_abs, t, profile, flags);
      if (row_max_in != nullptr)
        value = reduction_step(row_max_in->read_word(row_max_in->linear_index(r, 0)), value, max_abs, t, profile, flags);
      out[std::size_t{r} * groups + g] = value;
    }
  return out;
}

// The scalar B.FPATR parameters (BundleTileInstructionOperands
// post_quant_param / post_lrelu_param): dense from RegSrc0, quantisation
// first; absent ones read as zero.
struct ScalarParameters {
  std::uint64_t quant = 0, lrelu = 0;
};

ScalarParameters scalar_parameters(const arch::BlockState& b, const std::array<std::uint64_t, 3>& in) noexcept {
  ScalarParameters p;
  unsigned slot = 0;
  if (fpatr::mode_uses_scalar_parameter(fp(b).pre_quant_mode)) p.quant = in[slot++];
  if (fpatr::relu_uses_scalar_parameter(fp(b).relu_mode)) p.lrelu = in[slot];
  return p;
}

// MatrixPostProcessResult: every D element through
// TileProfileMatrixPostProcessWithFlags (postprocess::post_process_tile) with
// the numeric control of ResolveTileNumericExecutionControl (B.DATR RMode,
// NONE = RNE, and Sat).  Vector parameters are row 0, column c, of the Local
// sources after the mathematical ones and RowMaxIn, quantisation first.
std::vector<std::uint64_t> post_processed(const arch::BlockState& b, const TileFile& f, std::vector<std::uint64_t> values,
                                          std::uint32_t n, unsigned math_sources, DataType output,
                                          const ScalarParameters& scalars, num::Flags& flags) {
  const unsigned mode = fp(b).pre_quant_mode, relu = fp(b).relu_mode;
  if (mode == 0 && relu == 0) return values;  // MatrixPostQuantBaseWithFlags: identity
  const unsigned quant_ordinal = math_sources + unsigned{fp(b).row_max_en && fp(b).row_max_init};
  const bool vector_quant = fpatr::mode_uses_vector_parameter(mode);
  const Tile* quant_tile = vector_quant ? &f.tile(source_at(b, quant_ordinal)) : nullptr;
  const Tile* relu_tile =
      fpatr::relu_uses_vector_parameter(relu) ? &f.tile(source_at(b, quant_ordinal + unsigned{vector_quant})) : nullptr;
  const std::uint64_t scalar_quant = fpatr::mode_uses_scalar_parameter(mode) ? scalars.quant : 1;
  const postprocess::Control control{datr_rounding(b), b.data_attributes.saturating};
  std::vector<postprocess::ColumnWords> columns(n);
  for (std::uint32_t c = 0; c < n; ++c) {
    columns[c].quant = quant_tile ? quant_tile->read_word(quant_tile->linear_index(0, c)) : scalar_quant;
    columns[c].relu = relu_tile ? relu_tile->read_word(relu_tile->linear_index(0, c)) : scalars.lrelu;
  }
  flags |= postprocess::post_process_tile(values, columns, mode, relu, output, control);
  return values;
}

}  // namespace

MatrixBundleResult execute_matrix_bundle(arch::BlockState& b, TileFile& f, const std::array<std::uint64_t, 3>& in,
                                         NumericProfile profile, std::vector<std::uint8_t>& allocated) {
  MatrixBundleResult result;
  const auto legality = [&result]() -> MatrixBundleResult& {
    result.fault = FaultCode::Fault_TileLegality;
    return result;
  };
  MatrixSchema s;
  s.code = b.operation.selector & 31U;
  s.function = matrix_function(s.code);
  // Zero-mask bindings install nothing; their participation marker exits first.
  bool any_binding = false, nonzero = false;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    any_binding |= t.valid;
    nonzero |= t.valid && t.pe_mask != 0;
  }
  s.shared = shared_binding_count(b);
  const bool tile_masks_zero = (any_binding && !nonzero) || (!any_binding && s.shared == 0 && b.zero_participation_seen);
  if (tile_masks_zero && shared_masks_zero(b)) {
    result.no_op = true;
    return result;
  }
  if (!fp(b).valid) {
    result.fault = FaultCode::Fault_BundleControl;
    return result;
  }
  s.types = selected_types(b);
  if (!s.types.valid) return legality();
  const bool types_legal = s.function.mx ? mx_operand_pair_legal(s.types.left, s.types.right)
                                         : ordinary_matrix_types_same_class(s.types.left, s.types.right);
  if (!types_legal) return legality();
  s.left_scale_present = s.function.mx && mx_type_needs_scale(s.types.left);
  s.right_scale_present = s.function.mx && mx_type_needs_scale(s.types.right);
  s.result_type = s.function.mx ? DataType::FP32 : matrix_accumulator_type(s.types.left);
  s.m = cube_dimension(b, 0);
  s.n = cube_dimension(b, 1);
  s.k = cube_dimension(b, 2);
  // BundleMatrixDynamicBindingsComplete, B.DATR, dimensions, masks.
  const bool bindings = s.shared_count_legal() &&
                        local_source_count(b) == s.mathematical_sources() + post_process_source_count(b) &&
                        local_destination_count(b) == 1U + fp(b).row_max_en + fp(b).group_max_en &&
                        stream_terminated(b) && scalar_bindings_legal(b, in);
  if (!bindings || !datr_legal(b) || !dimensions_legal(s.m, s.n, s.k, s.shared) || !masks_agree(b)) return legality();
  if (s.function.gemv && s.m != 1) return legality();
  if (!shared_schemas_legal(b, f, s)) return legality();
  if (!post_process_sources_legal(b, f, s) || !local_sources_legal(b, f, s) || !accumulator_distinct(b, s))
    return legality();
  const std::optional<TileLayout> layout = cooperative_m_layout(b, f, s);
  if (!layout) return legality();
  // Every legality check has run: allocate the output group, then snapshot.
  if (const FaultCode fault = resolve_cube_destinations(b, f, s, *layout, allocated); fault != FaultCode::Fault_None) {
    result.fault = fault;
    return result;
  }
  // Every check has passed: snapshot, compute and publish the output group.
  MatrixOperandSet o;
  o.function = s.function;
  o.left_scale_present = s.left_scale_present;
  o.right_scale_present = s.right_scale_present;
  o.destination = destination_at(b, 0);
  unsigned ordinal = 0;
  if (s.function.accumulate) o.accumulator = source_at(b, ordinal++);
  if (s.left_local()) {
    o.left = source_at(b, ordinal++);
    if (s.left_scale_present) o.left_scale = source_at(b, ordinal++);
  }
  if (s.shared == 0) {
    o.right = source_at(b, ordinal++);
    if (s.right_scale_present) o.right_scale = source_at(b, ordinal++);
  }
  if (s.function.bias) o.bias = source_at(b, ordinal);
  ProductTiles operands = local_tiles(f, o);
  // Shared groups in stream order: [A, A scale], B, [B scale].
  std::array<Tile, 4> shared_tiles;
  unsigned shared_ordinal = 0;
  const std::uint32_t blocks = (s.k + 31) / 32;
  const auto materialize = [&](std::uint32_t rows, std::uint32_t columns, DataType t, bool transpose) {
    shared_tiles[shared_ordinal] = materialize_shared(b, f, shared_ordinal, rows, columns, t, transpose);
    return &shared_tiles[shared_ordinal++];
  };
  if (s.left_shared()) {
    operands.left = materialize(s.m, s.k, s.types.left, fp(b).trans_a);
    if (s.left_scale_present) operands.left_scale = materialize(s.m, blocks, DataType::E8M0, false);
  }
  if (s.shared > 0) {
    operands.right = materialize(s.k, s.n, s.types.right, fp(b).trans_b);
    if (s.right_scale_present) operands.right_scale = materialize(blocks, s.n, DataType::E8M0, false);
  }
  std::vector<std::uint64_t> values = matrix_values(operands, o, profile, datr_rounding(b));
  // CommitMatrixResult: every output is prepared from pre-commit state
  // (RowMax and GroupMax reduce the unconverted product; RowMaxIn follows
  // the mathematical sources), then D, RowMax and GroupMax publish together.
  std::vector<std::uint64_t> row_max, group_max;
  const unsigned math_sources = s.mathematical_sources();
  if (fp(b).row_max_en) {
    const Tile* input = fp(b).row_max_init ? &f.tile(source_at(b, math_sources)) : nullptr;
    row_max = matrix_reduction(values, s.m, s.n, 0, input, fp(b).max_abs_en, s.result_type, profile, result.flags);
  }
  if (fp(b).group_max_en)
    group_max = matrix_reduction(values, s.m, s.n, fpatr::group_n(fp(b).group_n_code), nullptr, fp(b).max_abs_en,
                                 s.result_type, profile, result.flags);
  const DataType output = fp(b).pre_quant_mode == 0 ? s.result_type : fpatr::output_type(fp(b).pre_quant_mode);
  const std::vector<std::uint64_t> d =
      post_processed(b, f, std::move(values), s.n, math_sources, output, scalar_parameters(b, in), result.flags);
  publish(f.tile(o.destination), d, s.n);
  if (fp(b).row_max_en) publish(f.tile(destination_at(b, 1)), row_max, 1);
  if (fp(b).group_max_en)
    publish(f.tile(destination_at(b, fp(b).row_max_en ? 2 : 1)), group_max, group_max_columns(b, s.n));
  result.elements_written = d.size() + row_max.size() + group_max.size();
  for (unsigned i = 0; i < s.shared; ++i) b.shared_bindings[i].consumed = true;  // ConsumeBundleSharedBindings
  return result;
}

void register_matrix_tile_kernels(TileKernelTable& t) {
  t.set(isa::TileOp::TMATMUL, kMatrixKernel<0>);
  t.set(isa::TileOp::TMATMUL_BIAS, kMatrixKernel<1>);
  t.set(isa::TileOp::TMATMUL_ACC, kMatrixKernel<2>);
  t.set(isa::TileOp::TMATMUL_MX, kMatrixKernel<4>);
  t.set(isa::TileOp::TMATMUL_MX_BIAS, kMatrixKernel<5>);
  t.set(isa::TileOp::TMATMUL_MX_ACC, kMatrixKernel<6>);
  t.set(isa::TileOp::TGEMV, kMatrixKernel<16>);
  t.set(isa::TileOp::TGEMV_BIAS, kMatrixKernel<17>);
  t.set(isa::TileOp::TGEMV_ACC, kMatrixKernel<18>);
  t.set(isa::TileOp::TGEMV_MX, kMatrixKernel<20>);
  t.set(isa::TileOp::TGEMV_MX_BIAS, kMatrixKernel<21>);
  t.set(isa::TileOp::TGEMV_MX_ACC, kMatrixKernel<22>);
}

}  // namespace pto::tile
