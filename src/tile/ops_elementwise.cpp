#include "tile/ops_elementwise.hpp"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "numerics/arith.hpp"
#include "numerics/convert_span.hpp"
#include "numerics/simd_span.hpp"
#include "numerics/format.hpp"

namespace pto::tile::ops {
namespace {

using num::Flags;
using num::Result;

template <Binary Op>
using BinaryTag = std::integral_constant<Binary, Op>;

// Calls f(BinaryTag<op>{}) so each operation gets its own loop instance.
template <typename F>
decltype(auto) with_binary(Binary op, F&& f) {
  switch (op) {
    case Binary::ADD: return f(BinaryTag<Binary::ADD>{});
    case Binary::SUB: return f(BinaryTag<Binary::SUB>{});
    case Binary::MUL: return f(BinaryTag<Binary::MUL>{});
    case Binary::DIV: return f(BinaryTag<Binary::DIV>{});
    case Binary::REM: return f(BinaryTag<Binary::REM>{});
    case Binary::MAX: return f(BinaryTag<Binary::MAX>{});
    case Binary::MIN: return f(BinaryTag<Binary::MIN>{});
    case Binary::AND: return f(BinaryTag<Binary::AND>{});
    case Binary::OR: return f(BinaryTag<Binary::OR>{});
    case Binary::XOR: return f(BinaryTag<Binary::XOR>{});
    case Binary::SHL: return f(BinaryTag<Binary::SHL>{});
    default: return f(BinaryTag<Binary::SHR>{});
  }
}

// ---- integer element semantics (TileIntegerBinaryValue, TileIntegerDivRemValue) ----

// ScalarDivideSigned on sign-extended 64-bit words: magnitudes, truncation.
constexpr std::uint64_t divide_signed(std::uint64_t n, std::uint64_t d) noexcept {
  const bool nn = (n >> 63) != 0, dn = (d >> 63) != 0;
  const std::uint64_t q = (nn ? 0 - n : n) / (dn ? 0 - d : d);
  return nn != dn ? 0 - q : q;
}

// TileSignedModulo: the remainder takes the divisor's sign.
constexpr std::uint64_t signed_modulo(std::uint64_t n, std::uint64_t d) noexcept {
  const std::uint64_t rem = n - divide_signed(n, d) * d;
  if (rem == 0 || (rem >> 63) == (d >> 63)) return rem;
  return rem + d;
}

template <typename T, bool Signed>
constexpr std::uint64_t operand_word(T v) noexcept {  // TileIntegerOperandValue
  if constexpr (Signed) return static_cast<std::uint64_t>(static_cast<std::int64_t>(as_signed(v)));
  else return v;
}

template <Binary Op, typename T, bool Signed>
constexpr T integer_value(T a, T b) noexcept {
  constexpr unsigned shift_mask = sizeof(T) * 8 - 1;  // TileIntegerShiftAmount
  if constexpr (Op == Binary::ADD) return wrap_add(a, b);
  else if constexpr (Op == Binary::SUB) return wrap_sub(a, b);
  else if constexpr (Op == Binary::MUL) return wrap_mul(a, b);
  else if constexpr (Op == Binary::AND) return static_cast<T>(a & b);
  else if constexpr (Op == Binary::OR) return static_cast<T>(a | b);
  else if constexpr (Op == Binary::XOR) return static_cast<T>(a ^ b);
  else if constexpr (Op == Binary::SHL) return static_cast<T>(Wide<T>{a} << (b & shift_mask));
  else if constexpr (Op == Binary::SHR) {
    if constexpr (Signed) return static_cast<T>(as_signed(a) >> (b & shift_mask));
    else return static_cast<T>(a >> (b & shift_mask));
  } else if constexpr (Op == Binary::MAX || Op == Binary::MIN) {
    // TileIntegerMinMaxValue: ties keep the left operand.
    const bool left_wins = Signed ? (Op == Binary::MAX ? as_signed(a) >= as_signed(b) : as_signed(a) <= as_signed(b))
                                  : (Op == Binary::MAX ? a >= b : a <= b);
    return left_wins ? a : b;
  } else if constexpr (Op == Binary::DIV) {
    if constexpr (Signed) return static_cast<T>(divide_signed(operand_word<T, true>(a), operand_word<T, true>(b)));
    else return static_cast<T>(a / b);
  } else {
    static_assert(Op == Binary::REM);
    if constexpr (Signed) return static_cast<T>(signed_modulo(operand_word<T, true>(a), operand_word<T, true>(b)));
    else return static_cast<T>(a % b);
  }
}

// ---- floating element semantics ----

// ScalarFPCarrierIsZero(value, TileDataTypeToEncoding(t)) on a zero-extended
// carrier: FP32 tests bits [30:0]; every other code the FP64 magnitude.
bool reference_carrier_is_zero(DataType t, std::uint64_t v) noexcept {
  return t == DataType::FP32 ? (v & 0x7FFFFFFFULL) == 0 : (v & 0x7FFFFFFFFFFFFFFFULL) == 0;
}

std::uint64_t carrier_mask(DataType t) noexcept { return raw_element_value(~0ULL, t); }

// Reference profile (asl/arch/profile/reference-profile.asl): raw 64-bit
// carrier arithmetic truncated to the element, ADR 0050 MIN/MAX.
Result reference_float_binary(Binary op, DataType t, std::uint64_t a, std::uint64_t b) noexcept {
  const std::uint64_t m = carrier_mask(t);
  switch (op) {
    case Binary::ADD: return {(a + b) & m, 0};
    case Binary::SUB: return {(a - b) & m, 0};
    case Binary::MUL: return {(a * b) & m, 0};
    case Binary::DIV:  // ScalarFPBinaryProfile DIV: zero divisor -> Ones with DZ
      if (reference_carrier_is_zero(t, b)) return {m, num::kDZ};
      return {(a / b) & m, 0};
    case Binary::REM:  // TileProfileFloatingModulo; flags hook keeps its zero default
      if (reference_carrier_is_zero(t, b)) return {m, 0};
      return {(a - (a / b) * b) & m, 0};
    case Binary::MAX: case Binary::MIN: return num::ieee_min_max(op == Binary::MAX, t, a, b);
    default: return {0, 0};  // integer-only operations never reach a floating type
  }
}

// ieee profile TREM/TREMS: the exact truncated remainder (C fmod) of the
// decoded values, encoded back without rounding error (docs/semantics-notes.md).
Result ieee_float_remainder(DataType t, std::uint64_t a, std::uint64_t b) noexcept {
  const num::ValueClass ca = num::classify(t, a), cb = num::classify(t, b);
  // NV: a signalling NaN, or (no NaN) an infinite dividend or zero divisor.
  const bool snan = ca == num::ValueClass::SignalingNaN || cb == num::ValueClass::SignalingNaN;
  const bool quiet_nan = num::is_nan(ca) || num::is_nan(cb);
  const bool invalid = snan || (!quiet_nan && (num::is_inf(ca) || num::is_zero(cb)));
  if (quiet_nan || invalid) return {num::canonical_nan(t).bits, invalid ? num::kNV : Flags{0}};
  const double r = std::fmod(num::decode_to_double(t, a), num::decode_to_double(t, b));
  return num::encode_double(t, r, num::RoundingMode::RNE);
}

Result ieee_float_binary(Binary op, DataType t, std::uint64_t a, std::uint64_t b) noexcept {
  switch (op) {
    case Binary::ADD: return num::ieee_binary(num::BinaryOp::ADD, t, a, b, num::RoundingMode::RNE);
    case Binary::SUB: return num::ieee_binary(num::BinaryOp::SUB, t, a, b, num::RoundingMode::RNE);
    case Binary::MUL: return num::ieee_binary(num::BinaryOp::MUL, t, a, b, num::RoundingMode::RNE);
    case Binary::DIV: return num::ieee_binary(num::BinaryOp::DIV, t, a, b, num::RoundingMode::RNE);
    case Binary::REM: return ieee_float_remainder(t, a, b);
    case Binary::MAX: case Binary::MIN: return num::ieee_min_max(op == Binary::MAX, t, a, b);
    default: return {0, 0};
  }
}

template <typename T>
Result integer_element(Binary op, DataType t, T a, T b) noexcept {
  const bool s = data_type_is_signed_integer(t);
  return with_binary(op, [&](auto tag) -> Result {
    constexpr Binary Op = decltype(tag)::value;
    return {s ? integer_value<Op, T, true>(a, b) : integer_value<Op, T, false>(a, b), 0};
  });
}

// ---- row drivers ----

// Integer types: one instance per (op, carrier, signedness); no flags.
template <typename T, typename Apply>
void integer_rows(Binary op, bool is_signed, Apply apply) {
  with_binary(op, [&](auto tag) {
    constexpr Binary Op = decltype(tag)::value;
    if (is_signed) apply([](T a, T b) { return integer_value<Op, T, true>(a, b); });
    else apply([](T a, T b) { return integer_value<Op, T, false>(a, b); });
  });
}

// IEEE-like formats whose NaNs are exactly the encodings above +infinity.
std::uint64_t infinity_bits(DataType t) noexcept {
  switch (t) {
    case DataType::FP64: return 0x7ff0000000000000ULL;
    case DataType::FP32: return 0x7f800000;
    case DataType::FP16: return 0x7c00;
    case DataType::BF16: return 0x7f80;
    default: return 0;
  }
}

Flags exact_float_rows_impl(Binary op, Tile& d, const Tile& l, const Tile* r, std::uint64_t scalar,
                            NumericProfile p) {
  const DataType t = d.data_type();
  Flags flags = 0;
  visit_carrier(t, [&]<typename T>() {
    const TileDescriptor& desc = d.descriptor();
    for (std::uint32_t row = 0; row < desc.valid_rows; ++row) {
      const T* a = l.row_data<T>(row);
      const T* b = r ? r->row_data<T>(row) : nullptr;
      T* out = d.row_data<T>(row);
      for (std::uint32_t c = 0; c < desc.valid_columns; ++c) {
        const std::uint64_t y = b ? b[c] : scalar;
        const Result v = p == NumericProfile::Ieee ? ieee_float_binary(op, t, a[c], y)
                                                   : reference_float_binary(op, t, a[c], y);
        out[c] = static_cast<T>(v.bits);
        flags |= v.flags;
      }
    }
  });
  return flags;
}

// The element semantics of ExecuteTileBinary / ExecuteTileScalar, for
// what the span fast paths (tile_elementwise.hpp) decline.  `r` null means
// the right operand is the normalised scalar.  Aliasing of d with l or r is
// safe: each output element is produced from its own index only.
Flags binary_rows(Binary op, Tile& d, const Tile& l, const Tile* r, std::uint64_t scalar, NumericProfile p) {
  const DataType t = d.data_type();
  if (!num::is_integer(t)) return exact_float_rows_impl(op, d, l, r, scalar, p);
  visit_carrier(t, [&]<typename T>() {
    const T s = static_cast<T>(scalar);
    integer_rows<T>(op, data_type_is_signed_integer(t), [&](auto fn) {
      if (r) map_rows<T>(d, l, *r, fn);
      else map_rows<T>(d, l, [&](T a) { return fn(a, s); });
    });
  });
  return 0;
}

// ---- unary (asl/tile/model/execution/unary.asl) ----

bool closed_unary(Unary op) noexcept {
  return op == Unary::ABS || op == Unary::NOT || op == Unary::NEG || op == Unary::RELU;
}

std::uint64_t sign_mask(DataType t) noexcept { return std::uint64_t{1} << (element_bits(t) - 1); }

std::uint64_t one_encoding(DataType t) noexcept {  // TileFloatingUnaryOneEncoding
  switch (t) {
    case DataType::FP64: return 0x3ff0000000000000ULL;
    case DataType::FP16: return 0x3c00;
    case DataType::BF16: return 0x3f80;
    case DataType::E4M3: return 0x38;
    case DataType::E5M2: return 0x3c;
    default: return 0x3f800000;  // FP32, TF32, HF32
  }
}

// TileFloatingUnaryUnboundedResult: signed infinity, or the canonical NaN
// for E4M3 (no infinity).
std::uint64_t unbounded(DataType t, bool negative) noexcept {
  std::uint64_t inf = 0;
  switch (t) {
    case DataType::FP64: inf = 0x7ff0000000000000ULL; break;
    case DataType::FP16: inf = 0x7c00; break;
    case DataType::BF16: inf = 0x7f80; break;
    case DataType::E5M2: inf = 0x7c; break;
    case DataType::E4M3: return num::canonical_nan(t).bits;
    default: inf = 0x7f800000; break;
  }
  return negative ? inf | sign_mask(t) : inf;
}

bool class_negative(num::ValueClass c) noexcept {
  return c == num::ValueClass::NegativeZero || c == num::ValueClass::NegativeSubnormal ||
         c == num::ValueClass::NegativeNormal || c == num::ValueClass::NegativeInfinity;
}

// TileSFUUnarySpecialValue: handled, result, flags.
struct Special {
  bool handled = false;
  Result value;
};

// TileNumericValueClass inline for the IEEE-interchange-like formats (their
// NaNs are the encodings above +infinity, quiet when the top fraction bit
// is set); other formats use the numerics classifier.
num::ValueClass value_class(DataType t, std::uint64_t v) noexcept {
  using C = num::ValueClass;
  const std::uint64_t inf = infinity_bits(t);
  if (inf == 0) return num::classify(t, v);
  const std::uint64_t sign = sign_mask(t);
  const std::uint64_t magnitude = v & carrier_mask(t) & ~sign;
  const bool negative = (v & sign) != 0;
  if (magnitude > inf) return (magnitude & ((inf & (0 - inf)) >> 1)) ? C::QuietNaN : C::SignalingNaN;
  if (magnitude == inf) return negative ? C::NegativeInfinity : C::PositiveInfinity;
  if (magnitude == 0) return negative ? C::NegativeZero : C::PositiveZero;
  if ((magnitude & inf) == 0) return negative ? C::NegativeSubnormal : C::PositiveSubnormal;
  return negative ? C::NegativeNormal : C::PositiveNormal;
}

Special sfu_special(Unary op, DataType t, std::uint64_t v) noexcept {
  using C = num::ValueClass;
  const C c = value_class(t, v);
  const bool common = !num::is_nan(c) && !num::is_zero(c) && !num::is_inf(c) && !class_negative(c);
  if (common && !(op == Unary::LOG && v == one_encoding(t))) return {};  // positive finite: the profile hook
  const std::uint64_t qnan = num::canonical_nan(t).bits;
  if (num::is_nan(c)) return {true, {qnan, c == C::SignalingNaN ? num::kNV : Flags{0}}};
  const std::uint64_t neg_zero = sign_mask(t);
  switch (op) {
    case Unary::EXP:
      if (num::is_zero(c)) return {true, {one_encoding(t), 0}};
      if (c == C::PositiveInfinity) return {true, {v, 0}};
      if (c == C::NegativeInfinity) return {true, {0, 0}};
      break;
    case Unary::LOG:
      if (v == one_encoding(t)) return {true, {0, 0}};
      if (num::is_zero(c)) return {true, {unbounded(t, true), num::kDZ}};
      if (c == C::PositiveInfinity) return {true, {v, 0}};
      if (class_negative(c)) return {true, {qnan, num::kNV}};
      break;
    case Unary::RECIP:
      if (num::is_zero(c)) return {true, {unbounded(t, c == C::NegativeZero), num::kDZ}};
      if (c == C::NegativeInfinity) return {true, {neg_zero, 0}};
      if (c == C::PositiveInfinity) return {true, {0, 0}};
      break;
    case Unary::SQRT:
      if (num::is_zero(c) || c == C::PositiveInfinity) return {true, {v, 0}};
      if (class_negative(c)) return {true, {qnan, num::kNV}};
      break;
    default:  // RSQRT
      if (num::is_zero(c)) return {true, {unbounded(t, c == C::NegativeZero), num::kDZ}};
      if (c == C::PositiveInfinity) return {true, {0, 0}};
      if (class_negative(c)) return {true, {qnan, num::kNV}};
      break;
  }
  return {};
}

num::UnaryOp numerics_unary(Unary op) noexcept {
  switch (op) {
    case Unary::EXP: return num::UnaryOp::EXP;
    case Unary::LOG: return num::UnaryOp::LOG;
    case Unary::RECIP: return num::UnaryOp::RECIP;
    case Unary::SQRT: return num::UnaryOp::SQRT;
    default: return num::UnaryOp::RSQRT;
  }
}

}  // namespace

Result sfu_element(Unary op, DataType t, std::uint64_t v, NumericProfile p) {
  const Special s = sfu_special(op, t, v);
  if (s.handled) return s.value;
  if (p == NumericProfile::Ieee) return num::ieee_unary(numerics_unary(op), t, v, num::RoundingMode::RNE);
  const std::uint64_t m = carrier_mask(t);
  switch (op) {
    case Unary::EXP: return {(v + 1) & m, 0};            // TileExponential
    case Unary::RECIP: return {(~0ULL / v) & m, 0};      // TileReciprocal (v != 0 here)
    default: return {v, 0};                              // SQRT, LOG, RSQRT identity hooks
  }
}

namespace {

// TileFloatingUnaryValue for ABS/NEG/RELU; the bool is the NV flag.
Result float_closed_unary(Unary op, DataType t, std::uint64_t v) noexcept {
  const std::uint64_t sign = sign_mask(t);
  if (op == Unary::ABS) return {v & ~sign, 0};
  if (op == Unary::NEG) return {v ^ sign, 0};
  using C = num::ValueClass;
  const C c = num::classify(t, v);
  if (num::is_nan(c)) return {num::canonical_nan(t).bits, c == C::SignalingNaN ? num::kNV : Flags{0}};
  if (c == C::PositiveSubnormal || c == C::PositiveNormal || c == C::PositiveInfinity) return {v, 0};
  return {0, 0};
}

template <Unary Op, typename T, bool Signed>
constexpr T integer_unary(T v) noexcept {  // TileIntegerUnaryValue
  if constexpr (Op == Unary::ABS) {
    if constexpr (Signed) return as_signed(v) < 0 ? wrap_sub(T{0}, v) : v;
    else return v;
  } else if constexpr (Op == Unary::NOT) {
    return static_cast<T>(~v);
  } else if constexpr (Op == Unary::NEG) {
    return wrap_sub(T{0}, v);
  } else {
    if constexpr (Signed) return as_signed(v) < 0 ? T{0} : v;
    else return v;
  }
}

template <typename T, Unary Op>
void integer_unary_rows(Tile& d, const Tile& s, bool is_signed) {
  if (is_signed) map_rows<T>(d, s, [](T v) { return integer_unary<Op, T, true>(v); });
  else map_rows<T>(d, s, [](T v) { return integer_unary<Op, T, false>(v); });
}

template <typename T>
void integer_unary_dispatch(Unary op, Tile& d, const Tile& s, bool is_signed) {
  switch (op) {
    case Unary::ABS: integer_unary_rows<T, Unary::ABS>(d, s, is_signed); break;
    case Unary::NOT: integer_unary_rows<T, Unary::NOT>(d, s, is_signed); break;
    case Unary::NEG: integer_unary_rows<T, Unary::NEG>(d, s, is_signed); break;
    default: integer_unary_rows<T, Unary::RELU>(d, s, is_signed); break;
  }
}

// Floating ABS/NEG are pure sign-bit operations: vectorisable loops.
template <typename T>
void sign_bit_rows(Unary op, Tile& d, const Tile& s) {
  constexpr T sign = static_cast<T>(T{1} << (sizeof(T) * 8 - 1));
  if (op == Unary::ABS) map_rows<T>(d, s, [](T v) { return static_cast<T>(v & ~sign); });
  else map_rows<T>(d, s, [](T v) { return static_cast<T>(v ^ sign); });
}

template <typename T, typename Element>
Flags element_rows(Tile& d, const Tile& s, Element element) {
  Flags flags = 0;
  map_rows<T>(d, s, [&](T v) {
    const Result r = element(v);
    flags |= r.flags;
    return static_cast<T>(r.bits);
  });
  return flags;
}

// Reference-profile SFU rows for IEEE-like formats, over the valid region
// as contiguous runs (one when the valid columns fill every row) in pieces
// of at most 2048 elements.  A piece whose elements are all positive,
// finite and nonzero (and, for LOG, not 1) takes the profile's raw-word
// hook in a vectorisable loop (TileExponential v + 1, TileReciprocal
// Ones / v, identity for SQRT/LOG/RSQRT, whose copy the scan writes as it
// reads); any other piece goes element by element through
// TileSFUUnarySpecialValue (sfu_element).  A piece is read completely
// before anything but its own values is written, so the destination may
// be the source.  Cloned (x86-64-v4, AVX2): the baseline build of the scan
// held TSQRT/TLOG/TRSQRT FP32 reference at 0.18 of memcpy, 512-element
// pieces and a separate copy at 0.50; now about 0.67.
template <typename T>
PTO_NUM_CLONES Flags reference_sfu_rows(Unary op, Tile& d, const Tile& s) {
  constexpr std::size_t kPiece = 2048;
  const DataType t = d.data_type();
  const T inf = static_cast<T>(infinity_bits(t));
  const T one = static_cast<T>(one_encoding(t));  // LOG(1) is a special value
  const T log = op == Unary::LOG ? T{1} : T{0};
  const bool identity = op == Unary::SQRT || op == Unary::LOG || op == Unary::RSQRT;
  const TileDescriptor& desc = d.descriptor();
  const bool whole_rows = desc.valid_columns == desc.columns;
  const std::uint32_t runs = whole_rows ? 1 : desc.valid_rows;
  const std::size_t length = whole_rows ? std::size_t{desc.valid_rows} * desc.columns : desc.valid_columns;
  Flags flags = 0;
  for (std::uint32_t run = 0; run < runs; ++run)
    for (std::size_t first = 0; first < length; first += kPiece) {
      const std::size_t n = std::min(kPiece, length - first);
      const T* in = s.row_data<T>(run) + first;
      T* out = d.row_data<T>(run) + first;
      T special = 0;  // no short circuit: the scan vectorises
      for (std::size_t c = 0; c < n; ++c) {
        const T v = in[c];
        // Zero, negative, infinite or NaN: v - 1 wraps or reaches inf - 1.
        special |= static_cast<T>(static_cast<T>(v - 1) >= static_cast<T>(inf - 1)) |
                   static_cast<T>(log & static_cast<T>(v == one));
        if (identity) out[c] = v;  // the identity hooks' result, in the same pass
      }
      if (special != 0) {
        for (std::size_t c = 0; c < n; ++c) {
          const Result r = sfu_element(op, t, in[c], NumericProfile::Reference);
          flags |= r.flags;
          out[c] = static_cast<T>(r.bits);
        }
      } else if (op == Unary::EXP) {
        for (std::size_t c = 0; c < n; ++c) out[c] = static_cast<T>(in[c] + 1);
      } else if (op == Unary::RECIP) {
        for (std::size_t c = 0; c < n; ++c) out[c] = static_cast<T>(~std::uint64_t{0} / in[c]);
      }
    }
  return flags;
}

}  // namespace

Result binary_element(Binary op, DataType t, std::uint64_t a, std::uint64_t b, NumericProfile p) {
  if (num::is_integer(t)) {
    return visit_carrier(t, [&]<typename T>() {
      const Result r = integer_element<T>(op, t, static_cast<T>(a), static_cast<T>(b));
      return Result{r.bits & carrier_mask(t), 0};
    });
  }
  return p == NumericProfile::Ieee ? ieee_float_binary(op, t, a, b) : reference_float_binary(op, t, a, b);
}

void tile_binary(Binary op, Tile& destination, const Tile& left, const Tile& right, PadValue pad,
                 NumericProfile profile) {
  if (!span_binary(op, destination, left, right, profile)) binary_rows(op, destination, left, &right, 0, profile);
  publish(destination, pad);  // TileBinaryUsesClosedElementwiseContract: every TEPL binary
}

Flags tile_scalar(Binary op, Tile& destination, const Tile& source, std::uint64_t scalar, PadValue pad,
                  NumericProfile profile) {
  const std::uint64_t right = raw_element_value(scalar, source.data_type());
  Flags flags = 0;
  if (!span_scalar(op, destination, source, right, profile, flags))
    flags = binary_rows(op, destination, source, nullptr, right, profile);
  publish(destination, pad);
  return flags;
}

Flags tile_unary(Unary op, Tile& destination, const Tile& source, PadValue pad, NumericProfile profile) {
  const DataType t = source.data_type();
  Flags flags = 0;
  if (span_unary(op, destination, source, profile, flags)) {
    publish(destination, pad);
    return flags;
  }
  visit_carrier(t, [&]<typename T>() {
    if (num::is_integer(t)) {
      integer_unary_dispatch<T>(op, destination, source, data_type_is_signed_integer(t));
    } else if (op == Unary::ABS || op == Unary::NEG) {
      sign_bit_rows<T>(op, destination, source);
    } else if (closed_unary(op)) {
      flags = element_rows<T>(destination, source, [t](T v) { return float_closed_unary(Unary::RELU, t, v); });
    } else if (profile == NumericProfile::Reference && infinity_bits(t) != 0) {
      flags = reference_sfu_rows<T>(op, destination, source);
    } else {
      flags = element_rows<T>(destination, source, [&](T v) { return sfu_element(op, t, v, profile); });
    }
  });
  publish(destination, pad);
  return flags;
}

void tile_fill_scalar(Tile& destination, std::uint64_t scalar, PadValue pad) {
  const std::uint64_t value = raw_element_value(scalar, destination.data_type());
  visit_carrier(destination.data_type(), [&]<typename T>() {
    const TileDescriptor& d = destination.descriptor();
    for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
      T* out = destination.row_data<T>(r);
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) out[c] = static_cast<T>(value);
    }
  });
  publish(destination, pad);
}

namespace {

// TileFixedFusedMultiplyAddValue for a floating element.
Result float_fma_element(DataType t, std::uint64_t l, std::uint64_t r, std::uint64_t a, NumericProfile p) noexcept {
  using C = num::ValueClass;
  const C cl = num::classify(t, l), cr = num::classify(t, r), ca = num::classify(t, a);
  const bool snan = cl == C::SignalingNaN || cr == C::SignalingNaN || ca == C::SignalingNaN;
  const bool zero_times_inf = (num::is_zero(cl) && num::is_inf(cr)) || (num::is_inf(cl) && num::is_zero(cr));
  const bool product_inf = num::is_inf(cl) || num::is_inf(cr);
  const bool product_negative = class_negative(cl) != class_negative(cr);
  const bool opposite_inf = product_inf && num::is_inf(ca) && product_negative != class_negative(ca);
  if (snan || zero_times_inf || opposite_inf) return {num::canonical_nan(t).bits, num::kNV};  // TileProfileFusedInvalidResult
  if (p == NumericProfile::Ieee) return num::ieee_fused(num::FusedOp::MADD, t, a, l, r, num::RoundingMode::RNE);
  return {(l * r + a) & carrier_mask(t), 0};  // ScalarFPFusedProfile MADD on raw carriers
}

// TFMA rows on raw carriers: the integers' TileFixedFusedMultiplyAddValue
// (`inf` 0), and for an IEEE-like float type (`inf` its infinity encoding)
// the reference profile's MADD on the carriers (ScalarFPFusedProfile) when
// no operand of the row is a NaN or an infinity, without which
// TileProfileFusedInvalidResult (a signalling NaN, zero times infinity,
// opposite infinities) cannot apply.  False, with nothing written, for a
// float row holding such an operand.  Cloned: the loops vectorise.
template <typename T>
PTO_NUM_CLONES bool carrier_fma_row(const T* l, const T* r, const T* a, T* out, std::size_t n, T inf) {
  if (inf != 0) {
    constexpr auto magnitude = static_cast<T>(~(T{1} << (sizeof(T) * 8 - 1)));
    T special = 0;  // no short circuit: the scan vectorises
    for (std::size_t c = 0; c < n; ++c)
      special |= static_cast<T>(static_cast<T>(l[c] & magnitude) >= inf) |
                 static_cast<T>(static_cast<T>(r[c] & magnitude) >= inf) |
                 static_cast<T>(static_cast<T>(a[c] & magnitude) >= inf);
    if (special != 0) return false;
  }
  for (std::size_t c = 0; c < n; ++c) out[c] = wrap_add(wrap_mul(l[c], r[c]), a[c]);
  return true;
}

// What a host TFMA loop did: `count` elements from the start, whose flags
// beyond the host's are `extra`.
struct FmaPrefix {
  std::size_t count;
  Flags extra;
};

// TFMA in the ieee profile on the host: `prefix` (num::simd's
// fma_ordinary_prefix or half_fma_ordinary_prefix) computes up to each
// element it leaves, which takes float_fma_element (TileProfileFusedInvalidResult,
// or the exact fused operation) with its own flags.  The host's flags, of
// which `host_mask` keeps the operation's, are taken from one HostFlagScope
// before that element, and what the exact path's arithmetic may raise is
// discarded after it.  False, with nothing written, when the host has no
// such loop.
template <typename T, typename Prefix>
bool host_fma_rows(Tile& d, const Tile& left, const Tile& right, const Tile& addend, Flags host_mask, Prefix prefix,
                   Flags& flags) {
  const DataType t = d.data_type();
  if (!num::simd::host_flags_available() ||
      !prefix(left.row_data<T>(0), right.row_data<T>(0), addend.row_data<T>(0), d.row_data<T>(0), 0))
    return false;
  // The operands share the destination's shape (TileOperandsLegal_TFMA).
  num::simd::HostFlagScope scope;
  for_each_valid_run(d.descriptor(), [&](std::size_t first, std::size_t length) {
    const T* l = left.row_data<T>(0) + first;
    const T* r = right.row_data<T>(0) + first;
    const T* a = addend.row_data<T>(0) + first;
    T* out = d.row_data<T>(0) + first;
    for (std::size_t c = 0; c < length; ++c) {
      const FmaPrefix done = *prefix(l + c, r + c, a + c, out + c, length - c);
      flags |= done.extra;
      c += done.count;
      if (c == length) break;
      flags |= scope.take() & host_mask;
      const Result v = float_fma_element(t, l[c], r[c], a[c], NumericProfile::Ieee);
      out[c] = static_cast<T>(v.bits);
      flags |= v.flags;
      (void)scope.take();
    }
  });
  flags |= scope.take() & host_mask;
  return true;
}

// FP32/FP64: the host's FMA, every IEEE flag from MXCSR.  FP16/BF16: one
// binary32 FMA then the narrowing, NX alone from MXCSR
// (num::simd::half_fma_ordinary_prefix).
bool host_fma(Tile& d, const Tile& left, const Tile& right, const Tile& addend, Flags& flags) {
  constexpr auto kEvery = static_cast<Flags>(num::kNV | num::kDZ | num::kOF | num::kUF | num::kNX);
  const DataType t = d.data_type();
  const auto wide = [](const auto* l, const auto* r, const auto* a, auto* out, std::size_t n) -> std::optional<FmaPrefix> {
    const std::optional<std::size_t> k = num::simd::fma_ordinary_prefix(l, r, a, out, n);
    if (!k) return std::nullopt;
    return FmaPrefix{*k, 0};
  };
  const auto half = [bf16 = t == DataType::BF16](const std::uint16_t* l, const std::uint16_t* r, const std::uint16_t* a,
                                                 std::uint16_t* out, std::size_t n) -> std::optional<FmaPrefix> {
    const auto k = num::simd::half_fma_ordinary_prefix(bf16, l, r, a, out, n);
    if (!k) return std::nullopt;
    return FmaPrefix{k->count, k->inexact ? num::kNX : Flags{0}};
  };
  switch (t) {
    case DataType::FP32: return host_fma_rows<std::uint32_t>(d, left, right, addend, kEvery, wide, flags);
    case DataType::FP64: return host_fma_rows<std::uint64_t>(d, left, right, addend, kEvery, wide, flags);
    case DataType::FP16:
    case DataType::BF16: return host_fma_rows<std::uint16_t>(d, left, right, addend, num::kNX, half, flags);
    default: return false;
  }
}

}  // namespace

Flags tile_fma(Tile& destination, const Tile& left, const Tile& right, const Tile& addend, PadValue pad,
               NumericProfile profile) {
  const DataType t = destination.data_type();
  Flags flags = 0;
  if (profile == NumericProfile::Ieee && host_fma(destination, left, right, addend, flags)) {
    publish(destination, pad);
    return flags;
  }
  // Pieces of at most 2048 elements: a NaN or infinity sends only its
  // piece element by element.
  constexpr std::size_t kPiece = 2048;
  visit_carrier(t, [&]<typename T>() {
    const bool integer = num::is_integer(t);
    const auto inf = static_cast<T>(integer ? 0 : infinity_bits(t));
    const bool carrier = integer || (profile == NumericProfile::Reference && inf != 0);
    for_each_valid_run(destination.descriptor(), [&](std::size_t run, std::size_t length) {
      for (std::size_t first = run; first < run + length; first += kPiece) {
        const std::size_t n = std::min(kPiece, run + length - first);
        const T* l = left.row_data<T>(0) + first;
        const T* r = right.row_data<T>(0) + first;
        const T* a = addend.row_data<T>(0) + first;
        T* out = destination.row_data<T>(0) + first;
        if (carrier && carrier_fma_row<T>(l, r, a, out, n, inf)) continue;
        for (std::size_t c = 0; c < n; ++c) {
          const Result v = float_fma_element(t, l[c], r[c], a[c], profile);
          flags |= v.flags;
          out[c] = static_cast<T>(v.bits);
        }
      }
    });
  });
  publish(destination, pad);
  return flags;
}

}  // namespace pto::tile::ops
