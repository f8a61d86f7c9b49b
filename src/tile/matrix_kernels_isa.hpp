// The per-ISA entry points behind matrix_kernels.hpp's dispatch; each is
// defined in a unit compiled for its ISA and called only when the CPU has it.
#pragma once

#include <cstddef>

#include "tile/matrix_kernels.hpp"

namespace pto::tile::kernels {

void fused_product_avx512(const Panels<float, float>& p) noexcept;
void fused_gemv_avx512(const GemvPanels& p) noexcept;
void word_product_avx512(const Panels<std::int32_t, std::uint64_t>& p) noexcept;
void word_product_avx512(const Panels<std::uint32_t, std::uint64_t>& p) noexcept;
void widen_fp16_avx512(const std::uint16_t* in, float* out, std::size_t n) noexcept;
void fused_product_avx2(const Panels<float, float>& p) noexcept;
void fused_gemv_avx2(const GemvPanels& p) noexcept;
void word_product_avx2(const Panels<std::int32_t, std::uint64_t>& p) noexcept;
void word_product_avx2(const Panels<std::uint32_t, std::uint64_t>& p) noexcept;
void pair_product_avx512bw(const PairPanels& p) noexcept;  // AVX-512F CPUs with AVX-512BW
void pair_product_avx2(const PairPanels& p) noexcept;       // also the other AVX-512F CPUs' kernel
void widen_fp16_avx2(const std::uint16_t* in, float* out, std::size_t n) noexcept;

}  // namespace pto::tile::kernels
