// The loops of the CUBE micro-kernels (matrix_kernels.hpp), written once
// over an ISA's vector traits V and included by one translation unit per ISA
// (matrix_kernels.cpp portable, matrix_kernels_avx2.cpp,
// matrix_kernels_avx512.cpp, each compiled for its ISA).  Everything here is
// internal to the including unit, and nothing calls a library template that
// could be emitted out of line with the unit's instructions.
//
// V provides: Reg, kWidth (binary32 lanes), load, store, broadcast, zero, fma
// (one fused multiply-add per lane in the current host rounding mode) and
// canonical_nan (every NaN lane replaced by 0x7FC00000).
#pragma once

#include <cstddef>
#include <cstdint>
#include <type_traits>

#include "tile/matrix_kernels.hpp"

namespace pto::tile::kernels {
namespace {

constexpr std::uint32_t kCanonicalNaN = 0x7FC00000U;  // TileNumericCanonicalNaN(FP32)

// Columns c0 .. c0 + NB - 1 (the result holds whole blocks of eight; columns
// past the last read the last one's right operand): NB x RV registers of
// sums, each k step one left column per register row, one splat of the
// right operand per column and NB x RV multiply-adds, in k order per
// element.  S (FusedSums, WordSums below) says what a sum is: Reg, kWidth,
// Operand and Sum (the panels' element types), left (kWidth operands),
// splat (one right operand to every lane), step (sum + left x right),
// load, store and zero of sums.
template <class S, int RV, int NB>
inline void column_block(const Panels<typename S::Operand, typename S::Sum>& p, std::uint32_t c0) {
  using Operand = typename S::Operand;
  typename S::Reg sum[NB][RV];
  const Operand* right[NB];
  for (int j = 0; j < NB; ++j) {
    const std::uint32_t c = c0 + j < p.columns ? c0 + j : p.columns - 1;
    right[j] = p.right + p.right_column[c];
    for (int v = 0; v < RV; ++v)
      sum[j][v] = p.accumulate ? S::load(p.result + std::size_t{c0 + j} * p.rows + v * S::kWidth) : S::zero();
  }
  const Operand* left = p.left;
  for (std::uint32_t i = 0; i < p.k; ++i, left += p.rows) {
    const std::uint32_t o = p.right_row[i];
    typename S::Reg a[RV];
    for (int v = 0; v < RV; ++v) a[v] = S::left(left + v * S::kWidth);
    for (int j = 0; j < NB; ++j) {
      const typename S::Reg b = S::splat(right[j] + o);
      for (int v = 0; v < RV; ++v) sum[j][v] = S::step(sum[j][v], a[v], b);
    }
  }
  for (int j = 0; j < NB; ++j)
    for (int v = 0; v < RV; ++v) S::store(p.result + std::size_t{c0 + j} * p.rows + v * S::kWidth, sum[j][v]);
}

// Sixteen or thirty-two rows; blocks sized to the ISA's register file
// (NB x RV sums plus RV left operands and a splat).
template <class S, int NB16, int NB32>
inline void column_blocks(const Panels<typename S::Operand, typename S::Sum>& p) {
  static_assert(8 % NB16 == 0 && 8 % NB32 == 0, "column blocks tile the result's blocks of eight");
  if (p.rows == 32)
    for (std::uint32_t c0 = 0; c0 < p.columns; c0 += NB32) column_block<S, 32 / S::kWidth, NB32>(p, c0);
  else
    for (std::uint32_t c0 = 0; c0 < p.columns; c0 += NB16) column_block<S, 16 / S::kWidth, NB16>(p, c0);
}

// Binary32 sums: one host FMA per step, NaN results canonical when stored.
template <class V>
struct FusedSums {
  using Reg = typename V::Reg;
  using Operand = float;
  using Sum = float;
  static constexpr int kWidth = V::kWidth;
  static Reg left(const float* p) noexcept { return V::load(p); }
  static Reg splat(const float* p) noexcept { return V::broadcast(p); }
  static Reg step(Reg sum, Reg a, Reg b) noexcept { return V::fma(a, b, sum); }
  static Reg load(const float* p) noexcept { return V::load(p); }
  static void store(float* p, Reg v) noexcept { V::store(p, V::canonical_nan(v)); }
  static Reg zero() noexcept { return V::zero(); }
};

template <class V, int NB16, int NB32>
inline void fused_rows(const Panels<float, float>& p) {
  column_blocks<FusedSums<V>, NB16, NB32>(p);
}

// TGEMV: RV registers of columns from c0, the left element broadcast per k
// step, one FMA per column and step in k order.
template <class V, int RV>
inline void gemv_block(const GemvPanels& p, std::uint32_t c0) {
  typename V::Reg sum[RV];
  for (int v = 0; v < RV; ++v) sum[v] = p.accumulate ? V::load(p.result + c0 + v * V::kWidth) : V::zero();
  const float* right = p.right + c0;
  for (std::uint32_t i = 0; i < p.k; ++i, right += p.stride) {
    const typename V::Reg a = V::broadcast(p.left + i);
    for (int v = 0; v < RV; ++v) sum[v] = V::fma(a, V::load(right + v * V::kWidth), sum[v]);
  }
  for (int v = 0; v < RV; ++v) V::store(p.result + c0 + v * V::kWidth, V::canonical_nan(sum[v]));
}

// Blocks of RV registers (enough independent sums to cover the FMA
// latency), then single registers up to the stride.
template <class V, int RV>
inline void gemv_columns(const GemvPanels& p) {
  std::uint32_t c0 = 0;
  for (; c0 + RV * V::kWidth <= p.stride; c0 += RV * V::kWidth) gemv_block<V, RV>(p, c0);
  for (; c0 < p.stride; c0 += V::kWidth) gemv_block<V, 1>(p, c0);
}

// Word sums (MultiplyWord, modulo 2^64) of 32-bit operands, in k order per
// element (the ring makes any order give the same Words).  W provides Reg,
// kWidth (64-bit lanes), widen (kWidth operands sign- or zero-extended as
// their type into 64-bit lanes), splat (one operand so extended into every
// lane), multiply (the lanes' exact 64-bit products of their low 32 bits,
// signed or unsigned as the Operand tag says: a 32 x 32-bit product fits 64
// bits, so this is the Word product), add (modulo 2^64), load, store and
// zero (64-bit Words).
template <class W, typename OperandType>
struct WordSums {
  using Reg = typename W::Reg;
  using Operand = OperandType;
  using Sum = std::uint64_t;
  static constexpr int kWidth = W::kWidth;
  static Reg left(const Operand* p) noexcept { return W::widen(p); }
  static Reg splat(const Operand* p) noexcept { return W::splat(*p); }
  static Reg step(Reg sum, Reg a, Reg b) noexcept { return W::add(sum, W::multiply(a, b, Operand{})); }
  static Reg load(const std::uint64_t* p) noexcept { return W::load(p); }
  static void store(std::uint64_t* p, Reg v) noexcept { W::store(p, v); }
  static Reg zero() noexcept { return W::zero(); }
};

template <class W, int NB16, int NB32, typename Operand>
inline void word_columns(const Panels<Operand, std::uint64_t>& p) {
  column_blocks<WordSums<W, Operand>, NB16, NB32>(p);
}

// Narrow Word sums (PairPanels): V provides Reg, kWidth (32-bit lanes),
// load (kWidth pairs of 16-bit values), broadcast (one pair to every lane),
// madd (per lane lo * lo + hi * hi in 32 bits), add, zero and store (kWidth
// 32-bit lanes).  Columns c0 .. c0 + NB - 1 (past the last: the last one's
// operands, not stored): NB x RV registers of 32-bit sums per block of
// kPairBlock pairs, then each lane sign-extended into its Word.
template <class V, int RV, int NB>
inline void pair_block(const PairPanels& p, std::uint32_t c0) {
  const std::int16_t* right[NB];
  for (int j = 0; j < NB; ++j) right[j] = p.right + std::size_t{c0 + j < p.columns ? c0 + j : p.columns - 1} * p.pairs * 2;
  const std::uint32_t stored = p.columns - c0 < NB ? p.columns - c0 : NB;
  std::uint64_t* result = p.result + std::size_t{c0} * p.rows;
  if (!p.accumulate)
    for (std::size_t e = 0; e < std::size_t{stored} * p.rows; ++e) result[e] = 0;
  for (std::uint32_t i0 = 0; i0 < p.pairs; i0 += kPairBlock) {
    const std::uint32_t end = p.pairs - i0 < kPairBlock ? p.pairs : i0 + kPairBlock;
    typename V::Reg sum[NB][RV];
    for (int j = 0; j < NB; ++j)
      for (int v = 0; v < RV; ++v) sum[j][v] = V::zero();
    const std::int16_t* left = p.left + std::size_t{i0} * p.rows * 2;
    for (std::uint32_t i = i0; i < end; ++i, left += p.rows * 2) {
      typename V::Reg a[RV];
      for (int v = 0; v < RV; ++v) a[v] = V::load(left + v * V::kWidth * 2);
      for (int j = 0; j < NB; ++j) {
        const typename V::Reg b = V::broadcast(right[j] + std::size_t{i} * 2);
        for (int v = 0; v < RV; ++v) sum[j][v] = V::add(sum[j][v], V::madd(a[v], b));
      }
    }
    for (std::uint32_t j = 0; j < stored; ++j)
      for (int v = 0; v < RV; ++v) {
        std::int32_t lanes[V::kWidth];
        V::store(lanes, sum[j][v]);
        for (int l = 0; l < V::kWidth; ++l)
          result[std::size_t{j} * p.rows + v * V::kWidth + l] += static_cast<std::uint64_t>(std::int64_t{lanes[l]});
      }
  }
}

template <class V, int NB16, int NB32>
inline void pair_columns(const PairPanels& p) {
  if (p.rows == 32)
    for (std::uint32_t c0 = 0; c0 < p.columns; c0 += NB32) pair_block<V, 32 / V::kWidth, NB32>(p, c0);
  else
    for (std::uint32_t c0 = 0; c0 < p.columns; c0 += NB16) pair_block<V, 16 / V::kWidth, NB16>(p, c0);
}

// FP16 -> binary32 in whole vectors of W lanes: the tail goes through a
// zero-padded copy (no library inline function is called from an ISA unit,
// where it could be emitted with that unit's instructions).
template <std::size_t W, typename Convert>
inline void widen_fp16_vectors(const std::uint16_t* in, float* out, std::size_t n, Convert convert) noexcept {
  std::size_t i = 0;
  for (; i + W <= n; i += W) convert(in + i, out + i);
  if (i == n) return;
  std::uint16_t tail_in[W] = {};
  float tail_out[W];
  for (std::size_t j = 0; i + j < n; ++j) tail_in[j] = in[i + j];
  convert(tail_in, tail_out);
  for (std::size_t j = 0; i + j < n; ++j) out[i + j] = tail_out[j];
}

}  // namespace
}  // namespace pto::tile::kernels
