#include "numerics/convert_span.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cfenv>
#include <cstring>

#include "numerics/f16c_span.hpp"
#include "numerics/format.hpp"
#include "numerics/simd_span.hpp"

namespace pto::num {

namespace {

std::array<std::uint32_t, 256> build_e4m3_table() {
  std::array<std::uint32_t, 256> t{};
  for (unsigned i = 0; i < 256; ++i) t[i] = static_cast<std::uint32_t>(convert(DataType::E4M3, DataType::FP32, i, RoundingMode::RNE).bits);
  return t;
}
const std::array<std::uint32_t, 256>& e4m3_table() {
  static const std::array<std::uint32_t, 256> t = build_e4m3_table();
  return t;
}

// FP32 -> BF16 RNE over a span; returns the OR of the element flags.
// simd::bf16_narrow_blocks narrows the span with integer carry-adds (or
// VCVTNE2PS2BF16) and names the blocks holding some value that is not
// common (zero, subnormal, tiny, overflow, infinity, NaN); those blocks
// are redone by the lane converter for their values and flags, and NX is
// the only flag of the others.  (FP16 <-> FP32 spans: f16c_span.hpp.)
std::uint32_t bf16_narrow_loop(const std::uint32_t* src, std::uint16_t* dst, std::size_t n) {
  constexpr std::size_t kCall = simd::kNarrowBlock * simd::kNarrowBlocks;
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i < n; i += kCall) {
    const std::size_t m = std::min(kCall, n - i);
    const simd::NarrowBlocks s = simd::bf16_narrow_blocks(src + i, dst + i, m);
    if (s.inexact) flags |= kNX;
    for (std::uint64_t left = s.uncommon; left != 0; left &= left - 1) {
      const std::size_t first = i + static_cast<std::size_t>(std::countr_zero(left)) * simd::kNarrowBlock;
      const std::size_t end = std::min(first + simd::kNarrowBlock, n);
      for (std::size_t j = first; j < end; ++j) {
        const std::uint32_t r = lane::fp32_bits_to_bf16_rne(src[j]);
        dst[j] = static_cast<std::uint16_t>(r);
        flags |= r >> 16;
      }
    }
  }
  return flags;
}

std::uint64_t load(DataType t, const std::uint8_t* p, std::size_t i) {
  if (is_packed4(t)) return packed4_get(p[i / 2], static_cast<unsigned>(i & 1U));
  const unsigned nb = carrier_bits(t) / 8;
  std::uint64_t v = 0;
  for (unsigned b = 0; b < nb; ++b) v |= static_cast<std::uint64_t>(p[i * nb + b]) << (8 * b);
  return v;
}
void store(DataType t, std::uint8_t* p, std::size_t i, std::uint64_t v) {
  if (is_packed4(t)) {
    p[i / 2] = packed4_set(p[i / 2], static_cast<unsigned>(i & 1U), static_cast<std::uint8_t>(v));
    return;
  }
  const unsigned nb = carrier_bits(t) / 8;
  for (unsigned b = 0; b < nb; ++b) p[i * nb + b] = static_cast<std::uint8_t>(v >> (8 * b));
}

}  // namespace

Flags convert_span(std::span<const std::uint16_t> in, std::span<std::uint32_t> out) {
  return f16c::widen(in.data(), out.data(), in.size()) ? kNV : Flags{0};
}

namespace {

// BF16 is the top half of binary32: a shift, and the canonical NaN for
// NaNs; returns whether some element is a signalling NaN (the conversion's
// NV).  Cloned: the baseline build of this loop ran at 0.15 of memcpy
// (TCVT BF16 -> FP32, 64 KiB destination).
PTO_NUM_CLONES bool bf16_widen_loop(const std::uint16_t* in, std::uint32_t* out, std::size_t n) {
  std::uint32_t snan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t h = in[i];
    const bool nan = (h & 0x7FFFU) > 0x7F80U;
    snan |= nan & ((h & 0x40U) == 0);
    out[i] = nan ? 0x7FC00000U : (h << 16);
  }
  return snan != 0;
}

}  // namespace

Flags convert_span_bf16(std::span<const std::uint16_t> in, std::span<std::uint32_t> out) {
  return bf16_widen_loop(in.data(), out.data(), in.size()) ? kNV : Flags{0};
}

Flags convert_span_e4m3(std::span<const std::uint8_t> in, std::span<std::uint32_t> out) {
  const std::size_t n = in.size();
  const std::uint32_t* tab = e4m3_table().data();
  for (std::size_t i = 0; i < n; ++i) out[i] = tab[in[i]];
  return 0;  // E4M3 has only quiet NaN
}

Flags convert_span_to_fp16(std::span<const std::uint32_t> in, std::span<std::uint16_t> out, RoundingMode mode) {
  const std::size_t n = in.size();
  std::uint32_t flags = 0;
  if (mode == RoundingMode::RNE && std::fegetround() == FE_TONEAREST)
    return f16c::narrow_rne(in.data(), out.data(), n);
  for (std::size_t i = 0; i < n; ++i) {
    const Result r = convert(DataType::FP32, DataType::FP16, in[i], mode);
    out[i] = static_cast<std::uint16_t>(r.bits);
    flags |= r.flags;
  }
  return static_cast<Flags>(flags);
}

Flags convert_span_to_bf16(std::span<const std::uint32_t> in, std::span<std::uint16_t> out, RoundingMode mode) {
  const std::size_t n = in.size();
  std::uint32_t flags = 0;
  if (mode == RoundingMode::RNE) return static_cast<Flags>(bf16_narrow_loop(in.data(), out.data(), n));
  for (std::size_t i = 0; i < n; ++i) {
    const Result r = convert(DataType::FP32, DataType::BF16, in[i], mode);
    out[i] = static_cast<std::uint16_t>(r.bits);
    flags |= r.flags;
  }
  return static_cast<Flags>(flags);
}

Flags convert_span(DataType src, DataType dst, std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                   std::size_t count, RoundingMode mode, bool saturate) {
  Flags flags = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Result r = convert(src, dst, load(src, in.data(), i), mode, saturate);
    store(dst, out.data(), i, r.bits);
    flags |= r.flags;
  }
  return flags;
}

}  // namespace pto::num
