// Bulk element conversion for tile kernels (ieee profile semantics).
// Returns the OR of all element flags. Output spans must be at least as long
// as the input spans. Fast branch-free paths exist for the common pairs;
// everything else goes through the exact scalar encoder.
#pragma once

#include <cstddef>
#include <bit>
#include <cstdint>
#include <span>

#include "numerics/datatypes.hpp"
#include "numerics/rounding.hpp"

// Hot span loops get x86-64-v4 (AVX-512 F/BW/DQ/VL) and AVX2 clones next
// to the baseline one, picked at load time by the CPU (GCC's runtime ifunc
// dispatch; other compilers: baseline).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PTO_NUM_CLONES __attribute__((target_clones("arch=x86-64-v4", "avx2", "default")))
#else
#define PTO_NUM_CLONES
#endif

namespace pto::num {

Flags convert_span(std::span<const std::uint16_t> fp16, std::span<std::uint32_t> fp32_out);  // FP16 -> FP32 (exact)
Flags convert_span_bf16(std::span<const std::uint16_t> bf16, std::span<std::uint32_t> fp32_out);  // BF16 -> FP32
Flags convert_span_e4m3(std::span<const std::uint8_t> e4m3, std::span<std::uint32_t> fp32_out);   // E4M3 -> FP32
Flags convert_span_to_fp16(std::span<const std::uint32_t> fp32, std::span<std::uint16_t> fp16_out,
                           RoundingMode mode = RoundingMode::RNE);
Flags convert_span_to_bf16(std::span<const std::uint32_t> fp32, std::span<std::uint16_t> bf16_out,
                           RoundingMode mode = RoundingMode::RNE);

// Generic carrier conversion over raw bytes. Element i of a packed four-bit
// type lives in byte i/2, low nibble for even i (ADR 0033); other types use
// little-endian carriers of carrier_bits(t)/8 bytes. Returns OR of flags.
Flags convert_span(DataType src, DataType dst, std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                   std::size_t count, RoundingMode mode, bool saturate = false);

// Branch-free element converters behind the span functions, for fused
// loops elsewhere: no short-circuit control flow, so loops over them
// vectorise.  The FP16 narrowing's subnormal branch rounds with a host add:
// it assumes the host's default round-to-nearest-even mode.
namespace lane {

// Masks are all-ones/all-zero uint32 values.
inline std::uint32_t mask_if(bool c) { return 0U - static_cast<std::uint32_t>(c); }
inline std::uint32_t sel(std::uint32_t m, std::uint32_t a, std::uint32_t b) { return (a & m) | (b & ~m); }

// FP16 -> FP32, exact. NaN -> canonical 0x7FC00000.
inline std::uint32_t fp16_bits_to_fp32(std::uint32_t h) {
  const std::uint32_t sign = (h & 0x8000U) << 16;
  const std::uint32_t e = (h >> 10) & 0x1FU;
  const std::uint32_t m = h & 0x3FFU;
  const std::uint32_t normal = ((e + 112U) << 23) | (m << 13);
  // Subnormal m * 2^-24: int->float of m < 2^10 and the power-of-two scale
  // are both exact, so no host rounding mode is involved.
  const std::uint32_t sub = std::bit_cast<std::uint32_t>(static_cast<float>(static_cast<std::int32_t>(m)) * 0x1p-24f);
  const std::uint32_t is_e0 = mask_if(e == 0), is_e31 = mask_if(e == 31), m_nz = mask_if(m != 0);
  std::uint32_t r = sel(is_e0, sub, normal);
  r = sel(is_e31, sel(m_nz, 0x7FC00000U, 0x7F800000U), r);
  return r | (sign & ~(is_e31 & m_nz));
}

// FP32 -> FP16 RNE. Returns (h | flags << 16).
inline std::uint32_t fp32_bits_to_fp16_rne(std::uint32_t x) {
  const std::uint32_t sign = (x >> 16) & 0x8000U;
  const std::uint32_t a = x & 0x7FFFFFFFU;
  const std::uint32_t nan = mask_if(a > 0x7F800000U);
  const std::uint32_t inf = mask_if(a == 0x7F800000U);
  const std::uint32_t special = nan | inf;
  // Normal range.
  const std::uint32_t rounded = a + 0xFFFU + ((a >> 13) & 1U);
  const std::uint32_t ovf = mask_if(rounded >= 0x47800000U) & ~special;
  const std::uint32_t hn = sel(ovf, 0x7C00U, (rounded - 0x38000000U) >> 13);
  const std::uint32_t nx_n = mask_if((a & 0x1FFFU) != 0);
  // Subnormal range (a < 2^-14): y = |x| * 2^24 is exact (< 1024); adding
  // 2^23 rounds y to an integer under the host default round-to-nearest-even
  // (convert_span_to_fp16 checks fegetround() and otherwise uses the exact
  // scalar encoder).
  const std::uint32_t small = mask_if(a < 0x38800000U);
  const float y = std::bit_cast<float>(a & sel(small, 0x7FFFFFFFU, 0U)) * 0x1p24f;
  const float yr = y + 0x1p23f;
  const std::uint32_t nonzero = mask_if(a != 0);
  const std::uint32_t hs = std::bit_cast<std::uint32_t>(yr) - 0x4B000000U;
  const std::uint32_t nx_s = mask_if((yr - 0x1p23f) != y) & nonzero;
  std::uint32_t h = sel(small, hs, hn);
  h = sel(inf, 0x7C00U, h) | sign;
  h = sel(nan, 0x7E00U, h);
  const std::uint32_t nx = sel(small, nx_s, nx_n | ovf) & ~special;
  // Tininess after rounding: values >= (1 - 2^-12) * 2^-14 round to 2^-14.
  const std::uint32_t uf = small & nx_s & mask_if(a < 0x387FF000U);
  const std::uint32_t snan = nan & mask_if(((a >> 22) & 1U) == 0);
  const std::uint32_t flags = (snan & kNV) | (ovf & kOF) | (nx & kNX) | (uf & kUF);
  return h | (flags << 16);
}

// FP32 -> BF16 RNE. Returns (b | flags << 16).
inline std::uint32_t fp32_bits_to_bf16_rne(std::uint32_t x) {
  const std::uint32_t a = x & 0x7FFFFFFFU;
  const std::uint32_t nan = mask_if(a > 0x7F800000U);
  const std::uint32_t r = (x + 0x7FFFU + ((x >> 16) & 1U)) >> 16;
  const std::uint32_t nx = mask_if((x & 0xFFFFU) != 0) & ~nan;
  const std::uint32_t ovf = nx & mask_if((r & 0x7F80U) == 0x7F80U);
  // tiny: rounded (unbounded) result below 2^-126; (1-2^-9)*2^-126 rounds up
  const std::uint32_t uf = nx & mask_if(a < 0x007FC000U);
  const std::uint32_t snan = nan & mask_if(((a >> 22) & 1U) == 0);
  const std::uint32_t flags = (snan & kNV) | (ovf & kOF) | (nx & kNX) | (uf & kUF);
  return sel(nan, 0x7FC0U, r & 0xFFFFU) | (flags << 16);
}

}  // namespace lane

}  // namespace pto::num
