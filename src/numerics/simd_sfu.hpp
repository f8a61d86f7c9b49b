// FP32 square root and reciprocal over spans (TSQRT and TRECIP, ieee
// profile; docs/numerics.md, fast paths): the host's correctly rounded
// square root and division in the default environment (round to nearest
// even, no FTZ/DAZ; the caller checks the rounding mode), NX from an exact
// FMA residual.  Tiers as in simd_span.hpp: an AVX-512 loop, and a portable
// loop with the same contract.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pto::num::simd {

enum class RootOp : std::uint8_t { SQRT, RECIP };

struct RootSummary {
  bool slow = false;     // some element is marked slow
  bool inexact = false;  // some element not marked slow was rounded
};

// For i < n: out[i] is sqrt(x) (SQRT) or 1/x (RECIP) of the binary32
// in[i] rounded to nearest even, or bit i % 64 of slow[i / 64] is set and
// out[i] is unspecified.  An element that is not marked slow has a normal,
// finite result and no flag but NX.  Marked slow: SQRT of a negative,
// zero, infinite or NaN operand or one below 2^-100; RECIP of an operand
// with magnitude below 2^-125 or from 2^125 on (zeros, infinities and NaNs
// among them).  slow holds (n + 63) / 64 words, bits from n on clear.
RootSummary root_fp32(RootOp op, const std::uint32_t* in, std::uint32_t* out, std::uint64_t* slow,
                      std::size_t n) noexcept;

}  // namespace pto::num::simd
