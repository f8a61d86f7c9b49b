// The AVX2 entries of the CUBE block copies (cube_copy_avx2.cpp, compiled
// for AVX2, called only when the CPU has it): two unpack blocks of `unit`
// (2, 4 or 8) bytes, cube_copy_unpack.hpp's unpack_block over two lanes;
// two 16 x 16 byte blocks, its unpack_bytes over two lanes (for both: the
// lanes of one side, in_lane or else out_lane, are 16 bytes apart, two
// adjacent blocks of one matrix, and move as one 32-byte access; for the
// bytes, the other side is N8 CELLs with 16-byte columns, is or os = 16);
// one W x W block
// of `unit` (4 or 8) bytes, W = 32 / unit, out[c * os + r * unit] =
// in[r * is + c * unit], with whole 32-byte loads and stores.
#pragma once

#include <cstddef>

namespace pto::tile {

void unpack_pair_avx2(std::size_t unit, std::byte* out, std::size_t os, std::size_t out_lane, const std::byte* in,
                      std::size_t is, std::size_t in_lane) noexcept;
void transpose_wide_avx2(std::size_t unit, std::byte* out, std::size_t os, const std::byte* in, std::size_t is) noexcept;
void unpack_bytes_pair_avx2(std::byte* out, std::size_t os, std::size_t out_half, std::size_t out_lane,
                            const std::byte* in, std::size_t is, std::size_t in_half, std::size_t in_lane) noexcept;

}  // namespace pto::tile
