#include "numerics/convert_span.hpp"

#include <array>
#include <bit>
#include <cfenv>
#include <cstring>

#include "numerics/format.hpp"

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

// Branch-free helpers: masks are all-ones/all-zero uint32 values so that
// the loops below vectorise (no short-circuit control flow).
inline std::uint32_t mask_if(bool c) { return 0U - static_cast<std::uint32_t>(c); }
inline std::uint32_t sel(std::uint32_t m, std::uint32_t a, std::uint32_t b) { return (a & m) | (b & ~m); }

// FP16 -> FP32, exact. NaN -> canonical 0x7FC00000.
inline std::uint32_t h2f(std::uint32_t h) {
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
inline std::uint32_t f2h_rne(std::uint32_t x) {
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
inline std::uint32_t f2bf_rne(std::uint32_t x) {
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

// Hot loops: integer-only, branch-free; an AVX2 clone provides variable
// vector shifts where the CPU supports them (runtime ifunc dispatch).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define PTO_NUM_CLONES __attribute__((target_clones("avx2", "default")))
#else
#define PTO_NUM_CLONES
#endif

PTO_NUM_CLONES std::uint32_t h2f_loop(const std::uint16_t* src, std::uint32_t* dst, std::size_t n) {
  std::uint32_t snan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t h = src[i];
    dst[i] = h2f(h);
    snan |= mask_if((h & 0x7E00U) == 0x7C00U) & mask_if((h & 0x1FFU) != 0);
  }
  return snan;
}

PTO_NUM_CLONES std::uint32_t f2h_loop(const std::uint32_t* src, std::uint16_t* dst, std::size_t n) {
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t r = f2h_rne(src[i]);
    dst[i] = static_cast<std::uint16_t>(r);
    flags |= r >> 16;
  }
  return flags;
}

PTO_NUM_CLONES std::uint32_t f2bf_loop(const std::uint32_t* src, std::uint16_t* dst, std::size_t n) {
  std::uint32_t flags = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t r = f2bf_rne(src[i]);
    dst[i] = static_cast<std::uint16_t>(r);
    flags |= r >> 16;
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
  return h2f_loop(in.data(), out.data(), in.size()) ? kNV : Flags{0};
}

Flags convert_span_bf16(std::span<const std::uint16_t> in, std::span<std::uint32_t> out) {
  const std::size_t n = in.size();
  std::uint32_t snan = 0;
  for (std::size_t i = 0; i < n; ++i) {
    const std::uint32_t h = in[i];
    const bool nan = (h & 0x7FFFU) > 0x7F80U;
    snan |= nan & ((h & 0x40U) == 0);
    out[i] = nan ? 0x7FC00000U : (h << 16);
  }
  return snan ? kNV : Flags{0};
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
    return static_cast<Flags>(f2h_loop(in.data(), out.data(), n));
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
  if (mode == RoundingMode::RNE) return static_cast<Flags>(f2bf_loop(in.data(), out.data(), n));
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
