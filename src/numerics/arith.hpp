// IEEE 754-2019 arithmetic on PTO carriers (software, no host FP state).
// Used by the `ieee` numeric profile (pto-hardware-numeric-0.58.3-ieee-v1).
#pragma once

#include <cstdint>

#include "numerics/datatypes.hpp"
#include "numerics/format.hpp"
#include "numerics/rounding.hpp"

namespace pto::num {

// asl/arch/data-types/floating-point.asl operation vocabularies.
enum class BinaryOp : std::uint8_t { ADD, SUB, MUL, DIV, MIN, MAX };
enum class CompareOp : std::uint8_t { EQ, NE, LT, LE, GT, GE };
enum class UnaryOp : std::uint8_t { ABS, SQRT, EXP, RECIP, LOG, RSQRT };
enum class FusedOp : std::uint8_t { MADD, MSUB, NMADD, NMSUB };

// Exact results on the wide intermediate (jammed to 64 bits) + NV/DZ flags.
struct WideResult {
  Unpacked value;
  Flags flags = 0;
};
WideResult wide_add(const Unpacked& a, const Unpacked& b, RoundingMode mode);
WideResult wide_mul(const Unpacked& a, const Unpacked& b);
WideResult wide_div(const Unpacked& a, const Unpacked& b);
WideResult wide_sqrt(const Unpacked& a);
WideResult wide_rsqrt(const Unpacked& a);
WideResult wide_fma(const Unpacked& a, const Unpacked& b, const Unpacked& c, RoundingMode mode);  // a*b + c

// Correctly rounded operations on carriers of type t (all operands type t).
Result ieee_binary(BinaryOp op, DataType t, std::uint64_t a, std::uint64_t b, RoundingMode mode);
Result ieee_fused(FusedOp op, DataType t, std::uint64_t addend, std::uint64_t left, std::uint64_t right,
                  RoundingMode mode);
// SQRT, RECIP, RSQRT, ABS are correctly rounded/exact. EXP and LOG use
// an 80-bit extended intermediate; see docs/numerics.md for the bound.
Result ieee_unary(UnaryOp op, DataType t, std::uint64_t a, RoundingMode mode);

// ADR 0050 MIN/MAX: one NaN selects the other operand unchanged, two NaNs
// give the canonical NaN, sNaN reports NV, mixed-sign zero tie -> -0 for MIN
// and +0 for MAX.
Result ieee_min_max(bool maximum, DataType t, std::uint64_t a, std::uint64_t b);

// Comparison: NaN -> unordered (NE true, others false). Quiet compares raise
// NV only for sNaN; signalling compares raise NV for any NaN.
struct CompareResult {
  bool value = false;
  Flags flags = 0;
};
CompareResult ieee_compare(CompareOp op, DataType t, std::uint64_t a, std::uint64_t b, bool signaling = false);

}  // namespace pto::num
