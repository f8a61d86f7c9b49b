// Bulk element conversion for tile kernels (ieee profile semantics).
// Returns the OR of all element flags. Output spans must be at least as long
// as the input spans. Fast branch-free paths exist for the common pairs;
// everything else goes through the exact scalar encoder.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "numerics/datatypes.hpp"
#include "numerics/rounding.hpp"

namespace pto::num {

Flags convert_span(std::span<const std::uint16_t> fp16, std::span<std::uint32_t> fp32_out);  // FP16 -> FP32 (exact)
Flags convert_span_bf16(std::span<const std::uint16_t> bf16, std::span<std::uint32_t> fp32_out);  // BF16 -> FP32
Flags convert_span_e4m3(std::span<const std::uint8_t> e4m3, std::span<std::uint32_t> fp32_out);   // E4M3 -> FP32
Flags convert_span_to_fp16(std::span<const std::uint32_t> fp32, std::span<std::uint16_t> fp16_out,
                           RoundingMode mode = RoundingMode::RNE);
Flags convert_span_to_bf16(std::span<const std::uint32_t> fp32, std::span<std::uint16_t> bf16_out,
                           RoundingMode mode = RoundingMode::RNE);

// Generic carrier conversion over raw bytes. Element i of a packed four-bit
// type lives in byte i/2, low nibble for even i (ADR 0033); other types use
// little-endian carriers of carrier_bits(t)/8 bytes. Returns OR of flags.
Flags convert_span(DataType src, DataType dst, std::span<const std::uint8_t> in, std::span<std::uint8_t> out,
                   std::size_t count, RoundingMode mode, bool saturate = false);

}  // namespace pto::num
