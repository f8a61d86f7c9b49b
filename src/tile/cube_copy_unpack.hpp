// The unpack networks of the CUBE block copies (cube_copy.cpp), written
// once over a vector trait V and included by one translation unit per ISA
// (cube_copy.cpp SSE2, cube_copy_avx2.cpp AVX2, cube_copy_avx512.cpp
// AVX-512).  One call transposes a
// B x B block of U-byte units per 128-bit lane: out[c * os + r * U] =
// in[r * is + c * U]; lane L reads at in + L * in_lane and writes at
// out + L * out_lane, so two lanes handle two blocks anywhere (side by side
// in one matrix, or two CELLs).  Internal to the including unit.
//
// V provides: Reg, load(p, in_lane), store(p, out_lane,
// v), and the per-lane unpacks lo8 / hi8 / lo16 / hi16 / lo32 / hi32 / lo64 /
// hi64.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pto::tile {
namespace {

// B: 8 units of 2 bytes, 4 of 4, 2 of 8 (one 16-byte row per lane).
template <std::size_t U>
constexpr std::uint32_t kUnpackBlock = static_cast<std::uint32_t>(16 / U);

// Rows a[0 .. B - 1] of a block in, its columns out (column c in a[c]).
template <class V, std::size_t U>
inline void unpack_block_rounds(typename V::Reg (&a)[kUnpackBlock<U>]) noexcept {
  using Reg = typename V::Reg;
  if constexpr (U == 8) {
    const Reg c0 = V::lo64(a[0], a[1]), c1 = V::hi64(a[0], a[1]);
    a[0] = c0;
    a[1] = c1;
  } else if constexpr (U == 4) {
    const Reg t0 = V::lo32(a[0], a[1]), t1 = V::hi32(a[0], a[1]), t2 = V::lo32(a[2], a[3]), t3 = V::hi32(a[2], a[3]);
    a[0] = V::lo64(t0, t2);
    a[1] = V::hi64(t0, t2);
    a[2] = V::lo64(t1, t3);
    a[3] = V::hi64(t1, t3);
  } else {
    static_assert(U == 2, "units of 2, 4 or 8 bytes");
    Reg t[8], u[8];
    for (std::size_t i = 0; i < 4; ++i) {  // t[2i]: columns 0..3 of rows 2i, 2i + 1; t[2i + 1]: columns 4..7
      t[2 * i] = V::lo16(a[2 * i], a[2 * i + 1]);
      t[2 * i + 1] = V::hi16(a[2 * i], a[2 * i + 1]);
    }
    for (std::size_t i = 0; i < 2; ++i)
      for (std::size_t h = 0; h < 2; ++h) {  // u[4i + 2h], u[4i + 2h + 1]: columns 4h .. 4h + 3 of rows 4i .. 4i + 3
        u[4 * i + 2 * h] = V::lo32(t[4 * i + h], t[4 * i + h + 2]);
        u[4 * i + 2 * h + 1] = V::hi32(t[4 * i + h], t[4 * i + h + 2]);
      }
    for (std::size_t i = 0; i < 4; ++i) {  // u[i]: columns 2i, 2i + 1 of rows 0..3; u[i + 4] of rows 4..7
      a[2 * i] = V::lo64(u[i], u[i + 4]);
      a[2 * i + 1] = V::hi64(u[i], u[i + 4]);
    }
  }
}

template <class V, std::size_t U>
inline void unpack_block(std::byte* out, std::size_t os, std::size_t out_lane, const std::byte* in, std::size_t is,
                         std::size_t in_lane) noexcept {
  constexpr std::size_t B = kUnpackBlock<U>;
  typename V::Reg a[B];
  for (std::size_t i = 0; i < B; ++i) a[i] = V::load(in + i * is, in_lane);
  unpack_block_rounds<V, U>(a);
  for (std::size_t c = 0; c < B; ++c) V::store(out + c * os, out_lane, a[c]);
}

// A 16 x 16 block of bytes per lane whose rows and columns come in two
// halves of 8: row i at in + (i / 8) * in_half + (i % 8) * is, column c
// written at out + (c / 8) * out_half + (c % 8) * os (two side-by-side N8
// CELLs, or one image block when half = 8 * stride).  Rows are loaded in
// bit-reversed order (register kReversed[i] holds row i, the permutation
// is its own inverse) so that four rounds of pairing register k with k + 8
// (unpacks of 8, 16, 32, 64 bits, unpack_bytes_rounds) leave column c in
// register c (unpack_bytes_registers), which unpack_bytes stores.
inline constexpr std::size_t kReversed[16] = {0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15};

template <class V>
inline void unpack_bytes_rounds(typename V::Reg (&r)[16]) noexcept {
  using Reg = typename V::Reg;
  Reg n[16];
  const auto round = [&](auto lo, auto hi) {
    for (std::size_t k = 0; k < 8; ++k) {
      n[2 * k] = lo(r[k], r[k + 8]);
      n[2 * k + 1] = hi(r[k], r[k + 8]);
    }
    for (std::size_t k = 0; k < 16; ++k) r[k] = n[k];
  };
  round([](Reg a, Reg b) { return V::lo8(a, b); }, [](Reg a, Reg b) { return V::hi8(a, b); });
  round([](Reg a, Reg b) { return V::lo16(a, b); }, [](Reg a, Reg b) { return V::hi16(a, b); });
  round([](Reg a, Reg b) { return V::lo32(a, b); }, [](Reg a, Reg b) { return V::hi32(a, b); });
  round([](Reg a, Reg b) { return V::lo64(a, b); }, [](Reg a, Reg b) { return V::hi64(a, b); });
}

template <class V>
inline void unpack_bytes_registers(typename V::Reg (&r)[16], const std::byte* in, std::size_t is, std::size_t in_half,
                                   std::size_t in_lane) noexcept {
  for (std::size_t row = 0; row < 16; ++row) r[kReversed[row]] = V::load(in + (row / 8) * in_half + (row % 8) * is, in_lane);
  unpack_bytes_rounds<V>(r);
}

template <class V>
inline void unpack_bytes(std::byte* out, std::size_t os, std::size_t out_half, std::size_t out_lane, const std::byte* in,
                         std::size_t is, std::size_t in_half, std::size_t in_lane) noexcept {
  typename V::Reg r[16];
  unpack_bytes_registers<V>(r, in, is, in_half, in_lane);
  for (std::size_t c = 0; c < 16; ++c) V::store(out + (c / 8) * out_half + (c % 8) * os, out_lane, r[c]);
}

}  // namespace
}  // namespace pto::tile
