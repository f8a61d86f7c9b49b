// Vector span loops of the compare/select fast paths (TCMP, TCMPS, TSEL,
// TSELS): the order relations of carriers as bit vectors, and the raw
// carrier selection under a bit vector.  Tiers as in simd_span.hpp
// (active_tier): an AVX-512 loop (mask registers, masked loads for the
// tail) and a portable loop with the same contract.  Neither reads host
// floating-point state: floating carriers compare as integer order keys.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pto::num::simd {

// How carriers order.  Floating: an IEEE interchange-style sign-magnitude
// encoding ordered by TileFloatingOrderKey except that -0 == +0, whose NaNs
// are exactly the magnitudes above `nan_above` (the +infinity encoding, or
// the largest finite one for formats without infinity such as E4M3).
enum class Order : std::uint8_t { Signed, Unsigned, Floating };

// For i < n: bit i % 64 of less[i / 64] is a[i] < b[i] and of equal[i / 64]
// is a[i] == b[i] under `order` (b == nullptr: every a[i] against
// `scalar`).  less and equal hold (n + 63) / 64 words; their bits at n and
// above are zero.  Returns true when some pair holds a NaN (Floating
// only): the bits of such pairs are unspecified and the caller decides
// them.
bool compare_bits(Order order, std::uint8_t nan_above, const std::uint8_t* a, const std::uint8_t* b,
                  std::uint8_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept;
bool compare_bits(Order order, std::uint16_t nan_above, const std::uint16_t* a, const std::uint16_t* b,
                  std::uint16_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept;
bool compare_bits(Order order, std::uint32_t nan_above, const std::uint32_t* a, const std::uint32_t* b,
                  std::uint32_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept;
bool compare_bits(Order order, std::uint64_t nan_above, const std::uint64_t* a, const std::uint64_t* b,
                  std::uint64_t scalar, std::size_t n, std::uint64_t* less, std::uint64_t* equal) noexcept;

// For i < n: out[i] = bit i % 64 of take[i / 64] ? on_true[i] : on_false[i]
// (on_false == nullptr: `scalar`).  out may be on_true or on_false (each
// element is read before its result is written).
void select_bits(const std::uint64_t* take, const std::uint8_t* on_true, const std::uint8_t* on_false,
                 std::uint8_t scalar, std::uint8_t* out, std::size_t n) noexcept;
void select_bits(const std::uint64_t* take, const std::uint16_t* on_true, const std::uint16_t* on_false,
                 std::uint16_t scalar, std::uint16_t* out, std::size_t n) noexcept;
void select_bits(const std::uint64_t* take, const std::uint32_t* on_true, const std::uint32_t* on_false,
                 std::uint32_t scalar, std::uint32_t* out, std::size_t n) noexcept;
void select_bits(const std::uint64_t* take, const std::uint64_t* on_true, const std::uint64_t* on_false,
                 std::uint64_t scalar, std::uint64_t* out, std::size_t n) noexcept;

}  // namespace pto::num::simd
