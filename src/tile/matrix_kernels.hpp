// Host micro-kernels of the CUBE product (TMATMUL / TGEMV and their BIAS,
// ACC and MX forms): the loop of MatrixProductResultFromTiles with each
// output accumulated in k order, one fused rounding per step, vectorised
// across the rows and columns of the output.
//
// Floating (ieee profile, FP32 accumulation): TileProfileMatrixAccumulate is
// the binary32 fused multiply-add of the widened operands, rounded once in
// the B.DATR mode.  A host FMA on binary32 operands is that step for the
// modes the host has (RNE, RTZ, RTP, RTM) in the default environment (no
// DAZ/FTZ); NaN results differ only in payload (PTO produces the canonical
// NaN, ADR 0050), which the kernel's store and canonical_nans() restore.  The kernels run in the
// caller's host rounding mode (HostRounding).
//
// Integer (both profiles' wrapping Word arithmetic, and the reference
// profile for every type): accumulator + left * right modulo 2^64.
//
// Runtime dispatch: AVX-512F, AVX2+FMA+F16C, or portable loops (std::fma).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string_view>

#include "numerics/rounding.hpp"

namespace pto::tile::kernels {

// One product over panels.  Left is k-major with `rows` (16 or 32) lanes
// per k: left[i * rows + r].  Right is any storage whose element (i, c)
// sits at right[right_row[i] + right_column[c]].  The result is column-major,
// result[c * rows + r]; it holds the initial sums on entry when `accumulate`
// (else they are zero) and the sums after `k` steps on return.  Rows at or beyond the
// valid ones compute values nobody reads.
template <typename Operand, typename Sum>
struct Panels {
  std::uint32_t rows = 0, columns = 0, k = 0;
  const Operand* left = nullptr;
  const Operand* right = nullptr;
  const std::uint32_t* right_row = nullptr;
  const std::uint32_t* right_column = nullptr;
  Sum* result = nullptr;
  bool accumulate = false;
};

// binary32 sums: result += left * right, one host FMA per step; NaN sums
// are stored as the canonical NaN.
void fused_product(const Panels<float, float>& p) noexcept;

// One row (TGEMV): right is k-major with `stride` (a multiple of 16) lanes
// per k, right[i * stride + c]; result[c] for c < stride, vectorised across
// the columns, each still summed in k order.
struct GemvPanels {
  std::uint32_t k = 0, stride = 0;
  const float* left = nullptr;
  const float* right = nullptr;
  float* result = nullptr;
  bool accumulate = false;
};
void fused_gemv(const GemvPanels& p) noexcept;
// Word sums (MultiplyWord, modulo 2^64) of operands whose Word is their
// sign-extended int32 or zero-extended uint32 value.
void word_product(const Panels<std::int32_t, std::uint64_t>& p) noexcept;
void word_product(const Panels<std::uint32_t, std::uint64_t>& p) noexcept;

// Word sums of narrow operands (every value fits in 16 signed bits, so a
// product of two fits in 31): left is k-pair-major with `rows` (16 or 32)
// lanes, left[(i * rows + r) * 2 + h] = A(r, 2i + h); right is column-major
// in pairs, right[(c * pairs + i) * 2 + h] = B(2i + h, c); an odd k pads the
// last pair with zeros.  result[c * rows + r] holds the initial Words on
// entry when `accumulate` (else they are zero) and those plus every product
// on return, modulo 2^64.  The products are summed in 32-bit lanes over
// blocks of kPairBlock pairs (no 32-bit overflow: 2 * 2^15 * 2^15 *
// kPairBlock < 2^31 needs |values| <= 255, which callers guarantee), each
// block then added into the Word.  Addition modulo 2^64 is associative and
// commutative, so these are the Words of the k-ordered MultiplyWord loop.
struct PairPanels {
  std::uint32_t rows = 0, columns = 0, pairs = 0;
  const std::int16_t* left = nullptr;
  const std::int16_t* right = nullptr;
  std::uint64_t* result = nullptr;
  bool accumulate = false;
};
inline constexpr std::uint32_t kPairBlock = 8192;
void pair_product(const PairPanels& p) noexcept;

// FP16 -> binary32, exact (VCVTPH2PS, or the portable lane converter):
// num::convert's value for every non-NaN code, some NaN for a NaN code.
void widen_fp16(const std::uint16_t* in, float* out, std::size_t n) noexcept;

// Replace every NaN among n binary32 values with the canonical 0x7FC00000.
void canonical_nans(float* values, std::size_t n) noexcept;

// The host rounding of a PTO mode for the duration of a scope: active() is
// false when the host has no such mode (RNA, RTO, RHB) or its floating-point
// environment is not the default one (a rounding mode other than nearest, or
// DAZ/FTZ), and then nothing changes.
class HostRounding {
 public:
  explicit HostRounding(num::RoundingMode mode) noexcept;
  ~HostRounding();
  HostRounding(const HostRounding&) = delete;
  HostRounding& operator=(const HostRounding&) = delete;
  bool active() const noexcept { return active_; }

 private:
  bool active_ = false;
  bool changed_ = false;  // the host mode was set (and is restored)
};

// The ISA the kernels dispatch to: "avx512", "avx2" or "portable" (the
// widest the CPU has unless select_kernel_isa chose a narrower one, which
// tests do to cover every variant; false when the CPU lacks it).
std::string_view kernel_isa() noexcept;
bool select_kernel_isa(std::string_view name) noexcept;

}  // namespace pto::tile::kernels
