#include "tile/matrix_kernels.hpp"

#include <array>
#include <atomic>
#include <bit>
#include <cfenv>
#include <cmath>

#include "numerics/convert_span.hpp"
#include "numerics/f16c_span.hpp"
#include "tile/matrix_kernel_loops.hpp"
#include "tile/matrix_kernels_isa.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PTO_MATRIX_X86 1
#endif

namespace pto::tile::kernels {
namespace {

// One lane per "register": std::fma is the correctly rounded fused
// multiply-add in the current rounding mode (C11 7.12.13.1, F.10.10.1).
struct Portable {
  using Reg = float;
  static constexpr int kWidth = 1;
  static Reg load(const float* p) noexcept { return *p; }
  static void store(float* p, Reg v) noexcept { *p = v; }
  static Reg broadcast(const float* p) noexcept { return *p; }
  static Reg zero() noexcept { return 0.0f; }
  static Reg canonical_nan(Reg v) noexcept { return v != v ? std::bit_cast<float>(kCanonicalNaN) : v; }
  static Reg fma(Reg a, Reg b, Reg c) noexcept { return std::fma(a, b, c); }
};

// One 32-bit lane holding a pair of 16-bit values, or a 32-bit sum.
struct PortablePairs {
  using Reg = std::int32_t;
  static constexpr int kWidth = 1;
  static Reg load(const std::int16_t* p) noexcept {
    return static_cast<Reg>(static_cast<std::uint32_t>(static_cast<std::uint16_t>(p[0])) |
                            static_cast<std::uint32_t>(static_cast<std::uint16_t>(p[1])) << 16);
  }
  static Reg broadcast(const std::int16_t* p) noexcept { return load(p); }
  static Reg madd(Reg a, Reg b) noexcept { return low(a) * low(b) + high(a) * high(b); }
  static Reg add(Reg a, Reg b) noexcept { return a + b; }
  static Reg zero() noexcept { return 0; }
  static void store(std::int32_t* p, Reg v) noexcept { *p = v; }

 private:
  static Reg low(Reg v) noexcept { return static_cast<std::int16_t>(static_cast<std::uint32_t>(v) & 0xFFFFU); }
  static Reg high(Reg v) noexcept { return static_cast<std::int16_t>(static_cast<std::uint32_t>(v) >> 16); }
};

// One 64-bit Word lane: the host's 64-bit multiply and add wrap modulo
// 2^64, and a sign- or zero-extended operand's product is the Word product.
struct PortableWords {
  using Reg = std::uint64_t;
  static constexpr int kWidth = 1;
  static Reg widen(const std::uint32_t* p) noexcept { return *p; }
  static Reg widen(const std::int32_t* p) noexcept { return static_cast<Reg>(std::int64_t{*p}); }
  static Reg splat(std::uint32_t v) noexcept { return v; }
  static Reg splat(std::int32_t v) noexcept { return static_cast<Reg>(std::int64_t{v}); }
  template <typename Operand>
  static Reg multiply(Reg a, Reg b, Operand) noexcept { return a * b; }
  static Reg add(Reg a, Reg b) noexcept { return a + b; }
  static Reg load(const std::uint64_t* p) noexcept { return *p; }
  static void store(std::uint64_t* p, Reg v) noexcept { *p = v; }
  static Reg zero() noexcept { return 0; }
};

// Ordered by capability: an AVX-512F CPU has AVX2, FMA and F16C.
enum class Isa : std::uint8_t { Portable, Avx2, Avx512 };

Isa detect_isa() noexcept {
#ifdef PTO_MATRIX_X86
  // __builtin_cpu_supports includes the OS's saving of the wider registers.
  if (__builtin_cpu_supports("avx512f")) return Isa::Avx512;
  if (__builtin_cpu_supports("fma") && num::f16c::available()) return Isa::Avx2;  // F16C and AVX2
#endif
  return Isa::Portable;
}

std::atomic<Isa>& selected_isa() noexcept {
  static std::atomic<Isa> selected{detect_isa()};
  return selected;
}

Isa isa() noexcept { return selected_isa().load(std::memory_order_relaxed); }

constexpr std::array<std::string_view, 3> kIsaNames{"portable", "avx2", "avx512"};  // by Isa

template <typename Operand>
void word_dispatch(const Panels<Operand, std::uint64_t>& p) noexcept {
#ifdef PTO_MATRIX_X86
  if (isa() == Isa::Avx512) return word_product_avx512(p);
  if (isa() == Isa::Avx2) return word_product_avx2(p);
#endif
  word_columns<PortableWords, 1, 1>(p);
}

// The host's default floating-point environment: round to nearest, and on
// x86 neither DAZ (MXCSR bit 6) nor FTZ (bit 15).
bool default_environment() noexcept {
  if (std::fegetround() != FE_TONEAREST) return false;
#ifdef PTO_MATRIX_X86
  return (_mm_getcsr() & 0x8040U) == 0;
#else
  return true;
#endif
}

int host_mode(num::RoundingMode mode) noexcept {
  switch (mode) {
    case num::RoundingMode::RNE: return FE_TONEAREST;
    case num::RoundingMode::RTZ: return FE_TOWARDZERO;
    case num::RoundingMode::RTP: return FE_UPWARD;
    case num::RoundingMode::RTM: return FE_DOWNWARD;
    default: return -1;  // RNA, RTO, RHB: no host mode
  }
}

}  // namespace

void fused_product(const Panels<float, float>& p) noexcept {
#ifdef PTO_MATRIX_X86
  if (isa() == Isa::Avx512) return fused_product_avx512(p);
  if (isa() == Isa::Avx2) return fused_product_avx2(p);
#endif
  fused_rows<Portable, 1, 1>(p);
}

void fused_gemv(const GemvPanels& p) noexcept {
#ifdef PTO_MATRIX_X86
  if (isa() == Isa::Avx512) return fused_gemv_avx512(p);
  if (isa() == Isa::Avx2) return fused_gemv_avx2(p);
#endif
  gemv_columns<Portable, 4>(p);
}

void widen_fp16(const std::uint16_t* in, float* out, std::size_t n) noexcept {
#ifdef PTO_MATRIX_X86
  if (isa() == Isa::Avx512) return widen_fp16_avx512(in, out, n);
  if (isa() == Isa::Avx2) return widen_fp16_avx2(in, out, n);
#endif
  for (std::size_t i = 0; i < n; ++i) out[i] = std::bit_cast<float>(num::lane::fp16_bits_to_fp32(in[i]));
}

void pair_product(const PairPanels& p) noexcept {
#ifdef PTO_MATRIX_X86
  static const bool avx512bw = __builtin_cpu_supports("avx512bw");
  if (isa() == Isa::Avx512 && avx512bw) return pair_product_avx512bw(p);
  if (isa() != Isa::Portable) return pair_product_avx2(p);
#endif
  pair_columns<PortablePairs, 1, 1>(p);
}

void word_product(const Panels<std::int32_t, std::uint64_t>& p) noexcept { word_dispatch(p); }
void word_product(const Panels<std::uint32_t, std::uint64_t>& p) noexcept { word_dispatch(p); }

void canonical_nans(float* values, std::size_t n) noexcept {
  // A compare-and-select loop that vectorises.
  const float canonical = std::bit_cast<float>(kCanonicalNaN);
  for (std::size_t i = 0; i < n; ++i) values[i] = values[i] != values[i] ? canonical : values[i];
}

// The default environment already rounds to nearest: RNE changes nothing
// (two fesetround calls are a sizable part of a 16 x 16 x 16 product).
HostRounding::HostRounding(num::RoundingMode mode) noexcept {
  const int host = host_mode(mode);
  active_ = host >= 0 && default_environment();
  changed_ = active_ && host != FE_TONEAREST;
  if (changed_) active_ = std::fesetround(host) == 0;
}

HostRounding::~HostRounding() {
  if (changed_ && active_) std::fesetround(FE_TONEAREST);
}

std::string_view kernel_isa() noexcept { return kIsaNames[static_cast<std::size_t>(isa())]; }

bool select_kernel_isa(std::string_view name) noexcept {
  for (std::size_t i = 0; i < kIsaNames.size(); ++i) {
    const auto wanted = static_cast<Isa>(i);
    if (kIsaNames[i] != name || wanted > detect_isa()) continue;
    selected_isa().store(wanted, std::memory_order_relaxed);
    return true;
  }
  return false;
}

}  // namespace pto::tile::kernels
