// Numeric profiles. A profile maps typed operations to result bits + flags.
// No global state: rounding mode in, Result out. Callers OR flags into
// CORE_STATE[36:32] (ADR 0038).
//
//  * reference_profile(): bit-for-bit the 0.58.3 ASL reference profile
//    ("pto-v0", asl/arch/profile/reference-profile.asl), a deterministic
//    raw-carrier placeholder (e.g. FADD adds carriers as 64-bit integers).
//  * ieee_profile(): pto-hardware-numeric-0.58.3-ieee-v1, IEEE 754-2019
//    correctly rounded arithmetic with PTO special-value rules (ADR 0047,
//    0049, 0050) and the documented choices in docs/numerics.md.
#pragma once

#include <cstdint>
#include <string_view>

#include "numerics/arith.hpp"
#include "numerics/datatypes.hpp"
#include "numerics/format.hpp"
#include "numerics/rounding.hpp"

namespace pto::num {

// NumericExecutionControl (rounding.asl).
struct NumericControl {
  RoundingMode mode = RoundingMode::RNE;
  bool saturate = false;
};

// Scalar FSU integer type codes are a separate namespace from DataType
// (NormalizeScalarIntegerResult, asl/scalar/model/fsu/profile.asl):
// 0 U64, 1 U32, 2 U16, 3 U8, 4 U4, 5 U2, 6/7 U1, 8 S64, 9 S32, 10 S16,
// 11 S8, 12 S4, 13 S2, 14 S1. Scalar FP type codes equal DataType codes 0..14.
struct ScalarIntegerType {
  unsigned width;
  bool is_signed;
};
constexpr ScalarIntegerType scalar_integer_type(std::uint8_t code) noexcept {
  constexpr unsigned widths[8] = {64, 32, 16, 8, 4, 2, 1, 1};
  return {widths[(code & 0x0F) < 8 ? (code & 7) : ((code - 8) & 7)], code >= 8};
}

class NumericProfile {
 public:
  virtual ~NumericProfile() = default;
  virtual std::string_view id() const noexcept = 0;

  // --- Scalar FSU hooks (asl/scalar/model/fsu/profile.asl) ---------------
  // type codes are raw 5-bit codes; FP codes 0..14 (FP64=0, FP32=1, ...).
  virtual Result scalar_binary(BinaryOp op, RoundingMode mode, std::uint8_t fp_type, std::uint64_t left,
                               std::uint64_t right) const = 0;
  virtual Result scalar_unary(UnaryOp op, RoundingMode mode, std::uint8_t fp_type, std::uint64_t value) const = 0;
  virtual Result scalar_fused(FusedOp op, RoundingMode mode, std::uint8_t fp_type, std::uint64_t addend,
                              std::uint64_t left, std::uint64_t right) const = 0;
  virtual Result scalar_to_integer(RoundingMode mode, std::uint8_t int_type, std::uint8_t fp_type,
                                   std::uint64_t value) const = 0;
  virtual Result scalar_convert(RoundingMode mode, std::uint8_t dst_fp_type, std::uint8_t src_fp_type,
                                std::uint64_t value) const = 0;
  virtual Result scalar_from_integer(RoundingMode mode, std::uint8_t int_type, std::uint8_t dst_fp_type,
                                     std::uint64_t value) const = 0;

  // --- Typed element operations (tile engines) ---------------------------
  virtual Result binary(BinaryOp op, DataType t, std::uint64_t a, std::uint64_t b, RoundingMode mode) const = 0;
  virtual Result unary(UnaryOp op, DataType t, std::uint64_t a, RoundingMode mode) const = 0;
  virtual Result fused(FusedOp op, DataType t, std::uint64_t addend, std::uint64_t left, std::uint64_t right,
                       RoundingMode mode) const = 0;
  virtual CompareResult compare(CompareOp op, DataType t, std::uint64_t a, std::uint64_t b) const = 0;
  // TCVT-style element conversion.
  virtual Result convert(std::uint64_t value, DataType src, DataType dst, NumericControl control) const = 0;
};

inline constexpr std::string_view kReferenceProfileId = "pto-v0";
inline constexpr std::string_view kIeeeProfileId = "pto-hardware-numeric-0.58.3-ieee-v1";

const NumericProfile& reference_profile() noexcept;
const NumericProfile& ieee_profile() noexcept;
// Unknown identities return nullptr (ADR 0037: reject before effects).
const NumericProfile* profile_by_id(std::string_view id) noexcept;

// ---- Scalar-FSU-facing IEEE entry points (FP64/FP32/FP16/BF16 carriers) --
inline Result fp_binary(BinaryOp op, DataType t, std::uint64_t a, std::uint64_t b, RoundingMode mode) {
  return ieee_binary(op, t, a, b, mode);
}
inline Result fp32_add(std::uint32_t a, std::uint32_t b, RoundingMode m) { return ieee_binary(BinaryOp::ADD, DataType::FP32, a, b, m); }
inline Result fp32_sub(std::uint32_t a, std::uint32_t b, RoundingMode m) { return ieee_binary(BinaryOp::SUB, DataType::FP32, a, b, m); }
inline Result fp32_mul(std::uint32_t a, std::uint32_t b, RoundingMode m) { return ieee_binary(BinaryOp::MUL, DataType::FP32, a, b, m); }
inline Result fp32_div(std::uint32_t a, std::uint32_t b, RoundingMode m) { return ieee_binary(BinaryOp::DIV, DataType::FP32, a, b, m); }
inline Result fp64_add(std::uint64_t a, std::uint64_t b, RoundingMode m) { return ieee_binary(BinaryOp::ADD, DataType::FP64, a, b, m); }
inline Result fp64_sub(std::uint64_t a, std::uint64_t b, RoundingMode m) { return ieee_binary(BinaryOp::SUB, DataType::FP64, a, b, m); }
inline Result fp64_mul(std::uint64_t a, std::uint64_t b, RoundingMode m) { return ieee_binary(BinaryOp::MUL, DataType::FP64, a, b, m); }
inline Result fp64_div(std::uint64_t a, std::uint64_t b, RoundingMode m) { return ieee_binary(BinaryOp::DIV, DataType::FP64, a, b, m); }

}  // namespace pto::num
