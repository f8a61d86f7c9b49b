// FP32 square root, reciprocal, reciprocal square root and natural
// logarithm over spans (TSQRT, TRECIP, TRSQRT, TLOG, ieee profile;
// docs/numerics.md, fast paths): the
// host's correctly rounded square root and division in the default
// environment (round to nearest even, no FTZ/DAZ; the caller checks the
// rounding mode), NX from an exact FMA residual; RSQRT and LOG evaluated
// in binary64 and kept only where that value is far from every binary32
// number and midpoint.  Tiers as in simd_span.hpp: an AVX-512 loop, and a portable
// loop with the same contract.  The ieee profile's TileSquareRoot,
// TileReciprocal, TileReciprocalSquareRoot and TileLogarithm (impdef hooks
// of PTO-TILE-MODEL-EXECUTION-ELEMENTWISE,
// asl/tile/model/execution/elementwise.asl: RSQRT is one profile
// operation, one rounding, not two steps).
#pragma once

#include <cstddef>
#include <cstdint>

namespace pto::num::simd {

// The operations with a correctly rounded FP32 fast path (LOG: natural
// logarithm).
enum class RootOp : std::uint8_t { SQRT, RECIP, RSQRT, LOG };

struct RootSummary {
  bool slow = false;     // some element is marked slow
  bool inexact = false;  // some element not marked slow was rounded
};

// For i < n: out[i] is sqrt(x) (SQRT), 1/x (RECIP), 1/sqrt(x) (RSQRT) or
// log(x) (LOG) of the binary32 in[i] rounded to nearest even, or bit i % 64 of
// slow[i / 64] is set and out[i] is unspecified.  An element that is not
// marked slow has a normal, finite result and no flag but NX.  Marked
// slow: SQRT of a negative, zero, infinite or NaN operand or one below
// 2^-100; RECIP of an operand with magnitude below 2^-125 or from 2^125 on
// (zeros, infinities and NaNs among them); RSQRT of a negative, zero,
// infinite or NaN operand, and of one whose binary64 value lies within
// 2^10 binary64 ulps of a binary32 number or midpoint (exact results
// among them); LOG as RSQRT (log(1) = 0 among the values near a binary32
// number).  slow holds (n + 63) / 64 words, bits from n on clear.
RootSummary root_fp32(RootOp op, const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow,
                      std::size_t n) noexcept;

}  // namespace pto::num::simd
