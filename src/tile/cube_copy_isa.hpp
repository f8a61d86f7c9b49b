// The AVX2 and AVX-512 entries of the CUBE block copies (cube_copy_avx2.cpp,
// compiled for AVX2, and cube_copy_avx512.cpp, for AVX-512F and BW; called
// only when the CPU has them and num::simd's tier allows).  Two N8 CELLs per call, one
// per 128-bit lane, between them and an image block whose lanes are
// adjacent (in_lane or else out_lane = 16: one 32-byte access): two 8 x 8
// blocks of 16-bit units (unpack_pair_avx2, cube_copy_unpack.hpp's
// unpack_block) or two 16 x 16 byte blocks (unpack_bytes_pair_avx2, its
// unpack_bytes); the CELL side has 16-byte columns (is or os = 16), whose
// adjacent pairs move as 32-byte accesses after a lane exchange; one N8
// CELL of 32-bit units the same way on its own.  And one
// W x W block of `unit` (4 or 8) bytes, W = 32 / unit, out[c * os + r *
// unit] = in[r * is + c * unit], with whole 32-byte loads and stores.
#pragma once

#include <cstddef>

namespace pto::tile {

void unpack_pair_avx2(std::byte* out, std::size_t os, std::size_t out_lane, const std::byte* in, std::size_t is,
                      std::size_t in_lane) noexcept;
void transpose_wide_avx2(std::size_t unit, std::byte* out, std::size_t os, const std::byte* in, std::size_t is) noexcept;
// One N8 CELL of 32-bit elements (4 rows x 8 columns) from or to 4 image
// rows of 32 bytes, `row_bytes` apart, with 32-byte accesses on both sides.
void image_to_cell32_avx2(std::byte* cell, const std::byte* image, std::size_t row_bytes) noexcept;
void cell32_to_image_avx2(std::byte* image, std::size_t row_bytes, const std::byte* cell) noexcept;
void unpack_bytes_pair_avx2(std::byte* out, std::size_t os, std::size_t out_half, std::size_t out_lane,
                            const std::byte* in, std::size_t is, std::size_t in_half, std::size_t in_lane) noexcept;
// unpack_pair_avx2 for four 8 x 8 blocks of 16-bit units (four CELLs;
// cube_copy_avx512.cpp, compiled for AVX-512F and BW): lane l at in + l *
// in_lane, out + l * out_lane, in_lane or else out_lane = 16 (the image
// side, one 64-byte access), the CELL side's 16-byte columns in groups of
// four.
void unpack_quad_avx512(std::byte* out, std::size_t os, std::size_t out_lane, const std::byte* in, std::size_t is,
                        std::size_t in_lane) noexcept;
// Two adjacent N8 CELLs of 32-bit elements (`lane` bytes apart) from or to
// 4 image rows of 64 bytes, `row_bytes` apart (cube_copy_avx512.cpp).
void image_to_cell32_pair_avx512(std::byte* cell, std::size_t lane, const std::byte* image, std::size_t row_bytes) noexcept;
void cell32_pair_to_image_avx512(std::byte* image, std::size_t row_bytes, const std::byte* cell, std::size_t lane) noexcept;
// unpack_bytes_pair_avx2 for four 16 x 16 byte blocks (eight CELLs; cube_copy_avx512.cpp,
// compiled for AVX-512F and BW): lane l at in + l * in_lane, out + l *
// out_lane, in_lane or else out_lane = 16 (the image side, one 64-byte
// access), the CELL side's 16-byte columns in groups of four.
void unpack_bytes_quad_avx512(std::byte* out, std::size_t os, std::size_t out_half, std::size_t out_lane,
                              const std::byte* in, std::size_t is, std::size_t in_half, std::size_t in_lane) noexcept;

}  // namespace pto::tile
