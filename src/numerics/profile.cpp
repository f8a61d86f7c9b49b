#include "numerics/profile.hpp"

#include <optional>

namespace pto::num {

namespace {

constexpr std::uint64_t kOnes = ~0ULL;

// The floating DataType a scalar FP type code selects (DataTypeKind Float or
// Scale in the generated table); any other code reads as FP64 (code 0).
DataType fp_code(std::uint8_t code) {
  const std::optional<DataType> t = data_type_from_code(code);
  return t && is_float(*t) ? *t : DataType::FP64;
}

// ---------------------------------------------------------------------------
// Reference profile (asl/arch/profile/reference-profile.asl).

// ScalarFPCarrierIsZero: FP32 checks bits [31:0]; every other code uses the
// FP64 interpretation of the whole word.
bool ref_carrier_is_zero(std::uint64_t v, std::uint8_t code) {
  if (code == 1) return (v & 0x7FFFFFFFULL) == 0;
  return (v & 0x7FFFFFFFFFFFFFFFULL) == 0;
}

Result ref_fused(FusedOp op, std::uint64_t addend, std::uint64_t left, std::uint64_t right) {
  const std::uint64_t product = left * right;  // MultiplyWord: modulo 2^64
  switch (op) {
    case FusedOp::MADD: return {product + addend, 0};
    case FusedOp::MSUB: return {product - addend, 0};
    case FusedOp::NMADD: return {0 - (product + addend), 0};
    case FusedOp::NMSUB: return {0 - (product - addend), 0};
  }
  return {};
}

// TileFloatingOrderKey (asl/tile/model/execution/comparison.asl).
bool order_key(DataType t, std::uint64_t v, std::uint64_t& key) {
  std::uint64_t sign, width;
  switch (t) {
    case DataType::FP64: sign = 1ULL << 63; width = kOnes; break;
    case DataType::FP32:
    case DataType::TF32:
    case DataType::HF32: v &= 0xFFFFFFFFULL; sign = 0x80000000ULL; width = 0xFFFFFFFFULL; break;
    case DataType::FP16:
    case DataType::BF16: v &= 0xFFFFULL; sign = 0x8000ULL; width = 0xFFFFULL; break;
    case DataType::E4M3:
    case DataType::E5M2: v &= 0xFFULL; sign = 0x80ULL; width = 0xFFULL; break;
    default: return false;
  }
  key = (v & sign) ? (~v & width) : (v | sign);
  return true;
}

class ReferenceProfile final : public NumericProfile {
 public:
  std::string_view id() const noexcept override { return kReferenceProfileId; }

  Result scalar_binary(BinaryOp op, RoundingMode, std::uint8_t code, std::uint64_t l,
                       std::uint64_t r) const override {
    switch (op) {
      case BinaryOp::ADD: return {l + r, 0};
      case BinaryOp::SUB: return {l - r, 0};
      case BinaryOp::MUL: return {l * r, 0};
      case BinaryOp::DIV:
        if (ref_carrier_is_zero(r, code)) return {kOnes, kDZ};
        return {l / r, 0};
      case BinaryOp::MIN:
        return {static_cast<std::int64_t>(l) <= static_cast<std::int64_t>(r) ? l : r, 0};
      case BinaryOp::MAX:
        return {static_cast<std::int64_t>(l) >= static_cast<std::int64_t>(r) ? l : r, 0};
    }
    return {};
  }
  Result scalar_unary(UnaryOp op, RoundingMode, std::uint8_t code, std::uint64_t v) const override {
    switch (op) {
      case UnaryOp::ABS:
        if (code == 1) return {v & 0x7FFFFFFFULL, 0};
        return {v & 0x7FFFFFFFFFFFFFFFULL, 0};
      case UnaryOp::SQRT: return {v, 0};
      case UnaryOp::EXP: return {v + 1, 0};
      case UnaryOp::RECIP:
        if (ref_carrier_is_zero(v, code)) return {kOnes, kDZ};
        return {kOnes / v, 0};
      case UnaryOp::LOG:    // TileLogarithm
      case UnaryOp::RSQRT:  // TileReciprocalSquareRoot
        return {v, 0};
    }
    return {};
  }
  Result scalar_fused(FusedOp op, RoundingMode, std::uint8_t, std::uint64_t a, std::uint64_t l,
                      std::uint64_t r) const override {
    return ref_fused(op, a, l, r);
  }
  Result scalar_to_integer(RoundingMode, std::uint8_t, std::uint8_t, std::uint64_t v) const override { return {v, 0}; }
  Result scalar_convert(RoundingMode, std::uint8_t, std::uint8_t, std::uint64_t v) const override { return {v, 0}; }
  Result scalar_from_integer(RoundingMode, std::uint8_t, std::uint8_t, std::uint64_t v) const override { return {v, 0}; }

  // TileProfileBinaryWithFlags floating arms: MIN/MAX use the architecture
  // rule (TileFloatingMinMaxValue / ADR 0050); ADD..DIV use the scalar hook
  // with TileDataTypeToEncoding.
  Result binary(BinaryOp op, DataType t, std::uint64_t a, std::uint64_t b, RoundingMode) const override {
    if (op == BinaryOp::MIN || op == BinaryOp::MAX) return ieee_min_max(op == BinaryOp::MAX, t, a, b);
    return scalar_binary(op, RoundingMode::RNE, code_of(t), a, b);
  }
  // Tile SFU hooks: TileSquareRoot/TileLogarithm/TileReciprocalSquareRoot
  // identity, TileExponential value+1, TileReciprocal Ones/value.
  Result unary(UnaryOp op, DataType t, std::uint64_t a, RoundingMode) const override {
    switch (op) {
      case UnaryOp::ABS: {
        const auto& f = format_info(t);
        if (f.kind == FormatKind::FixedBinary || f.kind == FormatKind::HiF8) return {a & ~(1ULL << f.sign_bit), 0};
        return {a, 0};
      }
      case UnaryOp::RECIP:
        if (a == 0) return {kOnes, kDZ};
        return {kOnes / a, 0};
      case UnaryOp::EXP: return {a + 1, 0};
      default: return {a, 0};
    }
  }
  Result fused(FusedOp op, DataType, std::uint64_t addend, std::uint64_t l, std::uint64_t r,
               RoundingMode) const override {
    return ref_fused(op, addend, l, r);
  }
  // TileProfileFloatingCompare.
  CompareResult compare(CompareOp op, DataType t, std::uint64_t a, std::uint64_t b) const override {
    const ValueClass ca = classify(t, a), cb = classify(t, b);
    const bool snan = ca == ValueClass::SignalingNaN || cb == ValueClass::SignalingNaN;
    if (is_nan(ca) || is_nan(cb)) return {op == CompareOp::NE, snan ? kNV : Flags{0}};
    const bool both_zero = is_zero(ca) && is_zero(cb);
    const bool equal = both_zero || a == b;
    std::uint64_t ka = 0, kb = 0;
    if (!order_key(t, a, ka) || !order_key(t, b, kb)) return ieee_compare(op, t, a, b);
    const bool less = both_zero ? false : ka < kb;
    bool v = false;
    switch (op) {
      case CompareOp::EQ: v = equal; break;
      case CompareOp::NE: v = !equal; break;
      case CompareOp::LT: v = less; break;
      case CompareOp::LE: v = less || equal; break;
      case CompareOp::GT: v = !less && !equal; break;
      case CompareOp::GE: v = !less; break;
    }
    return {v, 0};
  }
  // TileProfileConvert (asl/arch/profile/e8m0-conversion.asl).
  Result convert(std::uint64_t v, DataType src, DataType dst, NumericControl c) const override {
    if (dst == DataType::E8M0) return float_to_e8m0(src, v, c.mode, c.saturate);
    if (!is_float(dst)) {
      // NormalizeTileInteger: sign-/zero-extend the low element bits to 64.
      const unsigned w = element_width(dst);
      if (w == 64) return {v, 0};
      const std::uint64_t m = (1ULL << w) - 1;
      std::uint64_t x = v & m;
      if (info(dst).kind == DataTypeKind::Signed && ((x >> (w - 1)) & 1U)) x |= ~m;
      return {x, 0};
    }
    return {v, 0};
  }
};

// ---------------------------------------------------------------------------
// IEEE hardware profile.

class IeeeProfile final : public NumericProfile {
 public:
  std::string_view id() const noexcept override { return kIeeeProfileId; }

  Result scalar_binary(BinaryOp op, RoundingMode mode, std::uint8_t code, std::uint64_t l,
                       std::uint64_t r) const override {
    return ieee_binary(op, fp_code(code), l, r, mode);
  }
  Result scalar_unary(UnaryOp op, RoundingMode mode, std::uint8_t code, std::uint64_t v) const override {
    return ieee_unary(op, fp_code(code), v, mode);
  }
  Result scalar_fused(FusedOp op, RoundingMode mode, std::uint8_t code, std::uint64_t a, std::uint64_t l,
                      std::uint64_t r) const override {
    return ieee_fused(op, fp_code(code), a, l, r, mode);
  }
  Result scalar_to_integer(RoundingMode mode, std::uint8_t int_type, std::uint8_t fp_type,
                           std::uint64_t v) const override {
    const auto it = scalar_integer_type(int_type);
    return pack_integer_width(it.width, it.is_signed, unpack(fp_code(fp_type), v), mode, false);
  }
  Result scalar_convert(RoundingMode mode, std::uint8_t dst, std::uint8_t src, std::uint64_t v) const override {
    return pto::num::convert(fp_code(src), fp_code(dst), v, mode, false);
  }
  Result scalar_from_integer(RoundingMode mode, std::uint8_t int_type, std::uint8_t dst,
                             std::uint64_t v) const override {
    const auto it = scalar_integer_type(int_type);
    std::uint64_t x = it.width == 64 ? v : (v & ((1ULL << it.width) - 1));
    bool neg = false;
    if (it.is_signed && ((x >> (it.width - 1)) & 1U)) {
      neg = true;
      x = (0ULL - x) & (it.width == 64 ? kOnes : ((1ULL << it.width) - 1));
      if (x == 0) x = 1ULL << (it.width - 1);
    }
    return pack(fp_code(dst), make_finite(neg, x, 0), mode, false);
  }

  Result binary(BinaryOp op, DataType t, std::uint64_t a, std::uint64_t b, RoundingMode mode) const override {
    return ieee_binary(op, t, a, b, mode);
  }
  Result unary(UnaryOp op, DataType t, std::uint64_t a, RoundingMode mode) const override {
    return ieee_unary(op, t, a, mode);
  }
  Result fused(FusedOp op, DataType t, std::uint64_t addend, std::uint64_t l, std::uint64_t r,
               RoundingMode mode) const override {
    return ieee_fused(op, t, addend, l, r, mode);
  }
  CompareResult compare(CompareOp op, DataType t, std::uint64_t a, std::uint64_t b) const override {
    return ieee_compare(op, t, a, b, false);
  }
  Result convert(std::uint64_t v, DataType src, DataType dst, NumericControl c) const override {
    return pto::num::convert(src, dst, v, c.mode, c.saturate);
  }
};

const ReferenceProfile kReference;
const IeeeProfile kIeee;

}  // namespace

const NumericProfile& reference_profile() noexcept { return kReference; }
const NumericProfile& ieee_profile() noexcept { return kIeee; }
const NumericProfile* profile_by_id(std::string_view id) noexcept {
  if (id == kReferenceProfileId) return &kReference;
  if (id == kIeeeProfileId) return &kIeee;
  return nullptr;
}

}  // namespace pto::num
