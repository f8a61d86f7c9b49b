// Vector span loops of the compare/select fast paths (TCMP, TCMPS, TSEL,
// TSELS): the order relations of carriers as bit vectors, and the raw
// carrier selection under a bit vector.  Tiers as in simd_span.hpp
// (active_tier): an AVX-512 loop (mask registers, masked loads for the
// tail), an AVX2 compare loop (lane masks to bits by VPMOVMSKB/VMOVMSKPS/
// VMOVMSKPD; the last partial 64-lane word portable) and a portable loop
// with the same contract.  Floating carriers
// compare as integer order keys, except that the AVX-512 loop compares
// binary32/binary64 carriers with the host's quiet compares when MXCSR.DAZ
// is clear (the only host state they depend on; the rounding mode plays no
// part in a compare); the AVX2 loop likewise.
#pragma once

#include <cstddef>
#include <cstdint>

namespace pto::num::simd {

// How carriers order.  Floating: an IEEE interchange-style sign-magnitude
// encoding ordered by TileFloatingOrderKey except that -0 == +0, whose NaNs
// are exactly the magnitudes above `nan_above` (the +infinity encoding, or
// the largest finite one for formats without infinity such as E4M3);
// 32- and 64-bit Floating carriers must be binary32 and binary64 encodings
// (FP32, TF32 and HF32 valid encodings, FP64).
enum class Order : std::uint8_t { Signed, Unsigned, Floating };

// The relations a predicate holds for: TileCompareBoolean as the set of
// outcomes (less, equal, greater) it is true for (EQ: equal; LE: less and
// equal; NE: less and greater; ...).
struct Outcomes {
  bool less = false, equal = false, greater = false;
};

// For i < n: bit i % 64 of out[i / 64] is whether the outcome of a[i]
// against b[i] under `order` (b == nullptr: every a[i] against `scalar`)
// is one of `holds`.  out holds (n + 63) / 64 words; its bits at n and
// above are zero.  Returns true when some pair holds a NaN (Floating
// only): the bits of such pairs are unspecified and the caller decides
// them.
bool compare_bits(Order order, Outcomes holds, std::uint8_t nan_above, const std::uint8_t* a, const std::uint8_t* b,
                  std::uint8_t scalar, std::size_t n, std::uint64_t* out) noexcept;
bool compare_bits(Order order, Outcomes holds, std::uint16_t nan_above, const std::uint16_t* a,
                  const std::uint16_t* b, std::uint16_t scalar, std::size_t n, std::uint64_t* out) noexcept;
bool compare_bits(Order order, Outcomes holds, std::uint32_t nan_above, const std::uint32_t* a,
                  const std::uint32_t* b, std::uint32_t scalar, std::size_t n, std::uint64_t* out) noexcept;
bool compare_bits(Order order, Outcomes holds, std::uint64_t nan_above, const std::uint64_t* a,
                  const std::uint64_t* b, std::uint64_t scalar, std::size_t n, std::uint64_t* out) noexcept;

// For i < n: out[i] = bit i % 64 of take[i / 64] ? on_true[i] : on_false[i]
// (on_false == nullptr: `scalar`); bits of take from n on are ignored.  out may be on_true or on_false (each
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
