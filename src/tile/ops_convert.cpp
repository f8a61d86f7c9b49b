#include "tile/ops_convert.hpp"

#include <algorithm>
#include <span>

#include "numerics/arith.hpp"
#include "numerics/convert_span.hpp"
#include "numerics/format.hpp"
#include "numerics/profile.hpp"
#include "numerics/simd_span.hpp"
#include "tile/ops_kernels.hpp"
#include "tile/tile_contracts.hpp"

namespace pto::tile::ops {
namespace {

// NormalizeTileInteger as raw element bits, sign- or zero-extended to 64.
std::uint64_t normalize_integer(std::uint64_t v, DataType t) noexcept {
  const unsigned w = element_bits(t);
  if (w == 64) return v;
  const std::uint64_t mask = (std::uint64_t{1} << w) - 1;
  v &= mask;
  if (data_type_is_signed_integer(t) && ((v >> (w - 1)) & 1)) v |= ~mask;
  return v;
}

// TileConvertIntegerSaturating.
std::uint64_t saturate_integer(std::uint64_t v, DataType s, DataType d) noexcept {
  const std::uint64_t source = normalize_integer(v, s);
  const unsigned w = element_bits(d);
  const bool d_signed = data_type_is_signed_integer(d);
  const auto maximum = static_cast<std::uint64_t>(d_signed ? (w == 64 ? INT64_MAX : (std::int64_t{1} << (w - 1)) - 1)
                                                           : (w == 64 ? ~0ULL : (std::uint64_t{1} << w) - 1));
  const std::uint64_t minimum = d_signed ? ~maximum : 0;  // sign-extended minimum
  if (data_type_is_signed_integer(s)) {
    const auto x = static_cast<std::int64_t>(source);
    if (!d_signed && x < 0) return minimum;
    if (d_signed) {
      if (x < static_cast<std::int64_t>(minimum)) return minimum;
      if (x > static_cast<std::int64_t>(maximum)) return maximum;
    } else if (source > maximum) {
      return maximum;
    }
  } else if (source > maximum) {
    return maximum;
  }
  return normalize_integer(source, d);
}

}  // namespace

num::RoundingMode tcvt_rounding(const NumericSelection& selection, DataType source, DataType destination) noexcept {
  if (!selection.use_operation_default) return selection.rounding_mode;
  return num::is_float(source) && num::is_integer(destination) ? num::RoundingMode::RTZ : num::RoundingMode::RNE;
}

num::Result convert_element(std::uint64_t value, DataType s, DataType d, num::RoundingMode mode, bool saturating,
                            NumericProfile p) {
  if (num::is_integer(s) && num::is_integer(d))
    return {saturating ? saturate_integer(value, s, d) : normalize_integer(normalize_integer(value, s), d), 0};
  const num::NumericProfile& profile = p == NumericProfile::Ieee ? num::ieee_profile() : num::reference_profile();
  return profile.convert(value, s, d, num::NumericControl{mode, saturating});
}

namespace {

// The valid region of row-major tiles d and s as `count` runs of `length`
// elements, run r starting at row r of each: one run when the valid
// columns fill whole rows of both tiles.
struct RowRuns {
  std::uint32_t count;
  std::size_t length;
};
RowRuns row_runs(const TileDescriptor& d, const TileDescriptor& s) noexcept {
  if (d.valid_columns == d.columns && s.columns == d.columns) return {1, std::size_t{d.valid_rows} * d.columns};
  return {d.valid_rows, d.valid_columns};
}

// Row-major conversions between FP32 and BF16/FP16 in the ieee profile,
// not saturating: the numerics span converters, which equal num::convert
// (the ieee profile's conversion) element for element, flags included.
// FP32 -> BF16/FP16 rounds in `mode`; the widenings are exact, so the mode
// cannot matter there.
bool fast_half_conversion(Tile& d, const Tile& s, num::RoundingMode mode, bool saturating, NumericProfile p,
                          num::Flags& flags) {
  const TileDescriptor& dd = d.descriptor();
  const DataType st = s.data_type(), dt = d.data_type();
  const bool half_source = st == DataType::BF16 || st == DataType::FP16;
  const bool half_destination = dt == DataType::BF16 || dt == DataType::FP16;
  const bool narrowing = st == DataType::FP32 && half_destination, widening = half_source && dt == DataType::FP32;
  if (p != NumericProfile::Ieee || saturating || (!narrowing && !widening) ||
      s.descriptor().layout != TileLayout::RowMajor || dd.layout != TileLayout::RowMajor)
    return false;
  const auto [runs, length] = row_runs(dd, s.descriptor());
  for (std::uint32_t r = 0; r < runs; ++r) {
    if (narrowing) {
      const std::span<const std::uint32_t> in(s.row_data<std::uint32_t>(r), length);
      const std::span<std::uint16_t> out(d.row_data<std::uint16_t>(r), length);
      flags |= dt == DataType::BF16 ? num::convert_span_to_bf16(in, out, mode) : num::convert_span_to_fp16(in, out, mode);
    } else {
      const std::span<const std::uint16_t> in(s.row_data<std::uint16_t>(r), length);
      const std::span<std::uint32_t> out(d.row_data<std::uint32_t>(r), length);
      flags |= st == DataType::BF16 ? num::convert_span_bf16(in, out) : num::convert_span(in, out);
    }
  }
  return true;
}

// Row-major FP32 <-> S32 in the ieee profile, not saturating: FP32 -> S32
// toward zero (TCVT's default for float to integer) or to nearest even,
// S32 -> FP32 to nearest even, by the host's conversions under one
// HostFlagScope, whose NX is num::convert's (num::simd's
// fp32_to_s32_with_flags).  A run holding a source the host cannot convert
// as num::convert does (a NaN, |x| >= 2^31) is converted exactly and its
// host flags discarded.
bool fast_s32_conversion(Tile& d, const Tile& s, num::RoundingMode mode, bool saturating, NumericProfile p,
                         num::Flags& flags) {
  const DataType st = s.data_type(), dt = d.data_type();
  const bool nearest = mode == num::RoundingMode::RNE;
  const bool to_s32 = st == DataType::FP32 && dt == DataType::S32 && (nearest || mode == num::RoundingMode::RTZ);
  const bool from_s32 = st == DataType::S32 && dt == DataType::FP32 && nearest;
  if (p != NumericProfile::Ieee || saturating || (!to_s32 && !from_s32) || !num::simd::host_flags_available() ||
      s.descriptor().layout != TileLayout::RowMajor || d.descriptor().layout != TileLayout::RowMajor)
    return false;
  const auto [runs, length] = row_runs(d.descriptor(), s.descriptor());
  num::simd::HostFlagScope scope;
  for (std::uint32_t r = 0; r < runs; ++r) {
    const std::uint32_t* in = s.row_data<std::uint32_t>(r);
    std::uint32_t* out = d.row_data<std::uint32_t>(r);
    const num::simd::HostFlags h = to_s32 ? *num::simd::fp32_to_s32_with_flags(in, out, length, !nearest)
                                          : *num::simd::s32_to_fp32_with_flags(in, out, length);
    const num::Flags host = scope.take();
    if (!h.special) {
      flags |= host;
      continue;
    }
    for (std::size_t c = 0; c < length; ++c) {
      const num::Result v = convert_element(in[c], st, dt, mode, false, p);
      out[c] = static_cast<std::uint32_t>(v.bits);
      flags |= v.flags;
    }
    (void)scope.take();  // the exact path's own host arithmetic, if any
  }
  return true;
}

// Reference profile between two non-E8M0 types with a floating side: the
// profile returns the source word, stored into the destination's element
// bits (TileProfileConvert / NormalizeTileInteger), so row-major tiles of
// whole-byte types copy the low bits with a typed loop.
template <typename S, typename D>
PTO_NUM_CLONES void truncating_rows(Tile& d, const Tile& s) {
  const auto [runs, length] = row_runs(d.descriptor(), s.descriptor());
  // Sign extension only shows in a wider destination; one loop per case so
  // each vectorises.
  const bool sign_extend = sizeof(D) > sizeof(S) && data_type_is_signed_integer(s.data_type());
  for (std::uint32_t r = 0; r < runs; ++r) {
    const S* in = s.row_data<S>(r);
    D* out = d.row_data<D>(r);
    if (sign_extend)
      for (std::size_t c = 0; c < length; ++c)
        out[c] = static_cast<D>(static_cast<std::uint64_t>(static_cast<std::int64_t>(as_signed(in[c]))));
    else
      for (std::size_t c = 0; c < length; ++c) out[c] = static_cast<D>(in[c]);
  }
}

bool fast_reference(Tile& d, const Tile& s, NumericProfile p) {
  const DataType st = s.data_type(), dt = d.data_type();
  if (p != NumericProfile::Reference || dt == DataType::E8M0 || (num::is_integer(st) && num::is_integer(dt)) ||
      num::is_packed4(st) || num::is_packed4(dt) || s.descriptor().layout != TileLayout::RowMajor ||
      d.descriptor().layout != TileLayout::RowMajor)
    return false;
  visit_carrier(st, [&]<typename S>() { visit_carrier(dt, [&]<typename D>() { truncating_rows<S, D>(d, s); }); });
  return true;
}

}  // namespace

num::Flags tile_convert(Tile& d, const Tile& source, num::RoundingMode mode, bool saturating, PadValue pad,
                        NumericProfile p) {
  const Tile snapshot = (&d == &source) ? source : Tile{};
  const Tile& s = (&d == &source) ? snapshot : source;
  num::Flags flags = 0;
  if (!fast_half_conversion(d, s, mode, saturating, p, flags) && !fast_s32_conversion(d, s, mode, saturating, p, flags) &&
      !fast_reference(d, s, p)) {
    const TileDescriptor& dd = d.descriptor();
    for (std::uint32_t r = 0; r < dd.valid_rows; ++r)
      for (std::uint32_t c = 0; c < dd.valid_columns; ++c) {
        const num::Result v =
            convert_element(s.read_word(s.linear_index(r, c)), s.data_type(), d.data_type(), mode, saturating, p);
        d.store_raw(d.linear_index(r, c), v.bits);
        flags |= v.flags;
      }
  }
  publish(d, pad);
  return flags;
}

namespace {

// HardwareTCVTTypePairSupported.
bool tcvt_pair_supported(DataType s, DataType d) noexcept {
  return d != DataType::E8M0 || s == DataType::FP16 || s == DataType::BF16 || s == DataType::FP32;
}

bool bundle_canonicalize(const arch::BlockState& b) { return b.data_attributes_present && b.data_attributes.canonicalize; }

// The shared source/location/layout rule of the schema and TileOperandsLegal_TCVT.
bool tcvt_source_layout_legal(const arch::BlockState& b, const TileDescriptor& s, const TileDescriptor* d) {
  const bool private_cube_source = s.location == TileLocation::Matrix;
  if (private_cube_source != bundle_canonicalize(b)) return false;
  if (private_cube_source)
    return bundle_layout_row_major(b) && s.layout == TileLayout::RowMajor &&
           (d == nullptr || d->layout == TileLayout::RowMajor);
  const BundleTileLayouts layouts = bundle_tile_layouts(b);  // CurrentBundleTileSourceLayout / TileLayout
  return layouts.valid && s.layout == layouts.source && (d == nullptr || d->layout == layouts.destination);
}

// SelectedBundleClosedTCVTSchemaLegal, source included (before allocation).
bool tcvt_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  if (!single_binding_schema(b, true, false) || b.scalar_bindings[0].valid) return false;
  const TileIndex s = b.tile_bindings[0].source0;
  const auto source_type = operation_data_type(b);
  const auto destination_type = effective_data_type(b);
  return source_encodings_valid(v.tiles, s) && source_type && v.tiles.tile(s).data_type() == *source_type &&
         destination_type && tcvt_pair_supported(*source_type, *destination_type) &&
         tcvt_source_layout_legal(b, v.tiles.tile(s).descriptor(), nullptr);
}

// TileOperandsLegal_TCVT.
bool tcvt_operands(const TileFile& f, const TileOperands& o, const arch::BlockState& b) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!f.descriptor_legal(d) || !source_encodings_valid(f, s)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  return tcvt_pair_supported(sd.data_type, dd.data_type) && dd.rows == sd.rows && dd.columns == sd.columns &&
         dd.valid_rows == sd.valid_rows && dd.valid_columns == sd.valid_columns && tcvt_source_layout_legal(b, sd, &dd);
}

TileResult tcvt_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const Tile& s = c.tiles.tile(c.operands.source[0]);
  const NumericSelection& n = c.operands.numeric_control;
  const num::Flags flags =
      tile_convert(d, s, tcvt_rounding(n, s.data_type(), d.data_type()), n.saturating, c.pad_value, c.profile);
  return TileResult::written(d.valid_element_count(), flags);  // TileCommitConversionResult
}

constexpr TileKernel kTcvtKernel{tcvt_schema, closed_loop_destinations, false, tcvt_operands, tcvt_execute};

}  // namespace

// ---- TQUANT / TDEQUANT (asl/tile/model/numeric/formats.asl) ----

// TileProfileQuantize (asl/arch/profile/reference-quantization.asl): the
// exact affine x * scale + zero_point rounded once to an integer with the
// control's mode (NX when inexact); Sat clamps to the destination range,
// otherwise the integer wraps (NormalizeTileInteger).  NaN gives zero with
// NV; an infinity gives the signed range limit with OF|NX.  Both numeric
// profiles use this exact real-number definition.
num::Result quantize_element(std::uint64_t x, std::uint64_t scale, std::uint64_t zero_point, DataType d,
                             num::RoundingMode mode, bool saturating, NumericProfile) {
  const bool is_signed = data_type_is_signed_integer(d);
  const std::int64_t minimum = is_signed ? -128 : 0, maximum = is_signed ? 127 : 255;
  const num::ValueClass c = num::classify(DataType::FP32, x & 0xFFFFFFFF);
  if (num::is_nan(c)) return {0, num::kNV};
  if (num::is_inf(c))
    return {raw_element_value(static_cast<std::uint64_t>((x >> 31) & 1 ? minimum : maximum), d),
            static_cast<num::Flags>(num::kOF | num::kNX)};
  const num::WideResult product =
      num::wide_mul(num::unpack(DataType::FP32, x & 0xFFFFFFFF), num::unpack(DataType::FP32, scale & 0xFFFFFFFF));
  const num::WideResult affine = num::wide_add(product.value, num::unpack(d, raw_element_value(zero_point, d)), mode);
  const num::Result rounded = num::pack_integer_width(64, true, affine.value, mode, true);
  auto selected = static_cast<std::int64_t>(rounded.bits);
  if (saturating) selected = std::clamp(selected, minimum, maximum);
  return {raw_element_value(static_cast<std::uint64_t>(selected), d), static_cast<num::Flags>(rounded.flags & num::kNX)};
}

// TileProfileDequantize: FP32(q - zero_point) is exact (|difference| <= 510),
// then one rounding of the product with the control's mode.
num::Result dequantize_element(std::uint64_t q, std::uint64_t scale, std::uint64_t zero_point, DataType s,
                               num::RoundingMode mode, NumericProfile) {
  const std::uint64_t difference = normalize_integer(q, s) - normalize_integer(zero_point, s);
  const num::Result widened = num::convert(DataType::S64, DataType::FP32, difference, num::RoundingMode::RNE);
  return num::ieee_binary(num::BinaryOp::MUL, DataType::FP32, widened.bits, scale & 0xFFFFFFFF, mode);
}

namespace {

bool quant_integer(DataType t) noexcept { return t == DataType::S8 || t == DataType::U8; }

// TileQuantizationScaleLegal: a positive finite nonzero FP32.
bool quant_scale_legal(std::uint64_t scale) noexcept {
  const auto bits = static_cast<std::uint32_t>(scale);
  if (bits >> 31) return false;
  const num::ValueClass c = num::classify(DataType::FP32, bits);
  return !num::is_nan(c) && !num::is_inf(c) && !num::is_zero(c);
}

// TileQuantizationZeroPointLegal: the word is its own NormalizeTileInteger.
bool quant_zero_point_legal(std::uint64_t zero_point, DataType t) noexcept {
  return quant_integer(t) && normalize_integer(zero_point, t) == zero_point;
}

// SelectedBundleClosedQuantizationSchemaLegal, source included (before
// allocation): a legal RowMajor source of the BSTART type, completely defined
// with valid encodings, in the loop shape.
template <bool Quantize>
bool quant_schema(const SchemaView& v) {
  const arch::BlockState& b = v.bundle;
  if (!single_binding_schema(b, true, false)) return false;
  const arch::BundleDataAttributes& a = b.data_attributes;
  if (!b.data_attributes_present || !a.data_type_present || a.comparison_mode != 0 || a.pad_value != 0 ||
      a.canonicalize || a.data_layout != 0)
    return false;
  const auto s = operation_data_type(b);
  const auto d = num::data_type_from_code(a.data_type);
  if (!s || !d) return false;
  if (Quantize ? (*s != DataType::FP32 || !quant_integer(*d)) : (!quant_integer(*s) || *d != DataType::FP32 || a.saturating))
    return false;
  const TileIndex source = b.tile_bindings[0].source0;
  return v.tiles.descriptor_legal(source) && v.tiles.tile(source).data_type() == *s &&
         v.tiles.tile(source).descriptor().layout == TileLayout::RowMajor && source_encodings_valid(v.tiles, source) &&
         bundle_shape_matches(b, v.tiles.tile(source));
}

// TileOperandsLegal_TQUANT / TileOperandsLegal_TDEQUANT.
template <bool Quantize>
bool quant_operands(const TileFile& f, const TileOperands& o, const arch::BlockState&) {
  const TileIndex d = o.destination[0], s = o.source[0];
  if (!numeric_row_major(f, d) || !numeric_row_major(f, s)) return false;
  const TileDescriptor& dd = f.tile(d).descriptor();
  const TileDescriptor& sd = f.tile(s).descriptor();
  const DataType integer = Quantize ? dd.data_type : sd.data_type;
  const DataType real = Quantize ? sd.data_type : dd.data_type;
  if (!quant_integer(integer) || real != DataType::FP32 || dd.valid_rows != sd.valid_rows ||
      dd.valid_columns != sd.valid_columns || dd.valid_rows == 0 || dd.valid_columns == 0 ||
      !source_encodings_valid(f, s) || !quant_scale_legal(o.scalar0))
    return false;
  if (!Quantize && o.numeric_control.saturating) return false;
  return quant_zero_point_legal(o.scalar1, integer);
}

template <bool Quantize>
TileResult quant_execute(TileExecutionContext& c) {
  Tile& d = c.tiles.tile(c.operands.destination[0]);
  const Tile& s0 = c.tiles.tile(c.operands.source[0]);
  const Tile copy = &s0 == &d ? s0 : Tile{};
  const Tile& s = &s0 == &d ? copy : s0;
  const NumericSelection& n = c.operands.numeric_control;
  const num::RoundingMode mode = n.use_operation_default ? num::RoundingMode::RNE : n.rounding_mode;
  num::Flags flags = 0;  // TileCommitConversionResult records them
  const TileDescriptor& dd = d.descriptor();
  for (std::uint32_t r = 0; r < dd.valid_rows; ++r)
    for (std::uint32_t col = 0; col < dd.valid_columns; ++col) {
      const std::uint64_t v = s.read_raw(s.linear_index(r, col));
      const num::Result out =
          Quantize ? quantize_element(v, c.operands.scalar0, c.operands.scalar1, dd.data_type, mode, n.saturating, c.profile)
                   : dequantize_element(v, c.operands.scalar0, c.operands.scalar1, s.data_type(), mode, c.profile);
      d.store_raw(d.linear_index(r, col), out.bits);
      flags |= out.flags;
    }
  publish(d, PadValue::Null);
  return TileResult::written(d.valid_element_count(), flags);
}

constexpr TileKernel kTquantKernel{quant_schema<true>, closed_loop_destinations, false, quant_operands<true>,
                                   quant_execute<true>};
constexpr TileKernel kTdequantKernel{quant_schema<false>, closed_loop_destinations, false, quant_operands<false>,
                                     quant_execute<false>};

}  // namespace

void register_convert_kernels(TileKernelTable& t) {
  t.set(isa::TileOp::TCVT, kTcvtKernel);
  t.set(isa::TileOp::TQUANT, kTquantKernel);
  t.set(isa::TileOp::TDEQUANT, kTdequantKernel);
}

}  // namespace pto::tile::ops
