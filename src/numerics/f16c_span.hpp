// FP16 <-> binary32 span loops on the x86 F16C conversion instructions
// (VCVTPH2PS / VCVTPS2PH, eight elements at a time), selected at run time.
// Each function is bit- and flag-identical to the portable lane converters
// of convert_span.hpp (numerics_f16c_span_test.cpp checks every FP16 code
// and the binary32 rounding boundaries): the instructions are exact
// (widening) or round to nearest even with gradual underflow (narrowing),
// and NaN results are replaced by the canonical NaN the lane converters
// produce.  Callers check available() first and keep the portable path for
// other hosts; the host must run in the default floating-point environment
// (round to nearest even, no DAZ/FTZ), like the lane converters.
#pragma once

#include <cstddef>
#include <cstdint>

#include "numerics/rounding.hpp"

namespace pto::num::f16c {

// True when the CPU has F16C and AVX2 (queried once) and simd::limit_tier
// allows AVX2; binary_via_fp32 takes 512-bit steps in the Avx512 tier.
bool available() noexcept;

// FP16 -> FP32 as lane::fp16_bits_to_fp32; returns true when an element
// is a signalling NaN (the conversion's NV).
bool widen(const std::uint16_t* in, std::uint32_t* out, std::size_t n) noexcept;

// FP32 -> FP16 RNE as lane::fp32_bits_to_fp16_rne; returns the OR of the
// element flags.
Flags narrow_rne(const std::uint32_t* in, std::uint16_t* out, std::size_t n) noexcept;

// FP16 a op b through binary32: out[i] = the RNE narrowing of the binary32
// result of the widened operands (some NaN encoding for a NaN result).
// Returns true when some result is a NaN.
enum class Op : std::uint8_t { ADD, SUB, MUL, DIV };
bool binary_via_fp32(Op op, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) noexcept;

}  // namespace pto::num::f16c
