// The CUBE product on host kernels (matrix_kernels.hpp): the operands of
// MatrixProductResultFromTiles / MatrixMXProductResultFromTiles and
// MatrixBiasResult widened once into panels, then one kernel call.  It is
// bit-identical to the per-element exact path in ops_matrix.cpp (the
// oracle, kept as the fallback) and declines, returning nullopt, where the
// host cannot give the same bits:
//  * ieee FP32 accumulation in RNA, RTO or RHB (no host mode), or when the
//    host environment is not the default one (HostRounding);
//  * nothing else: every input type widens exactly (the exact path's own
//    conversions), and the Word arithmetic of integer classes and of the
//    reference profile fits the 32-bit operand kernels (operands of at
//    most 8 bits take the 16-bit pair kernel, kernels::PairPanels).
// The product raises no status flags in either profile
// (TileProfileMatrixAccumulate returns a Word only), so neither path has
// flags to report.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "numerics/rounding.hpp"
#include "tile/tile_elementwise.hpp"
#include "tile/tile_state.hpp"

namespace pto::tile {

// The tiles one product reads (Local tiles or materialised Shared ones) and
// which of the optional ones take part.
struct ProductTiles {
  const Tile *left = nullptr, *right = nullptr, *left_scale = nullptr, *right_scale = nullptr;
  const Tile *accumulator = nullptr, *bias = nullptr;
  bool left_scaled = false, right_scaled = false, accumulate = false, add_bias = false;
};

// The M x N sums, column-major with `rows` lanes per column (result rows at
// or beyond m are padding): binary32 bits for ieee FP32 accumulation, else
// the Words.  They live in per-thread scratch, valid until the thread's next
// fast_product.
struct ProductColumns {
  std::uint32_t m = 0, n = 0, rows = 0;
  std::span<const float> fp32;
  std::span<const std::uint64_t> words;

  std::uint64_t word(std::uint32_t r, std::uint32_t c) const noexcept;
};

// Whether products may use the host kernels (default true).  The exact path
// stays the oracle: tests and benchmarks switch the kernels off to compare.
void set_matrix_kernels_enabled(bool enabled) noexcept;
bool matrix_kernels_enabled() noexcept;

std::optional<ProductColumns> fast_product(const ProductTiles& t, NumericProfile profile, num::RoundingMode mode);

// The sums in row-major order (the exact path's value block).
std::vector<std::uint64_t> row_major_words(const ProductColumns& p);

// CommitMatrixResult for a 32-bit destination without B.FPATR outputs:
// definedness cleared, the low 32 bits of every sum written at its storage
// index, the valid region marked defined (ADR 0014).
void publish_columns(Tile& destination, const ProductColumns& p);

// The product published into `destination` (CommitMatrixResult without
// B.FPATR outputs) when the kernels apply: the binary32 sums go straight
// into its payload when it stores them as the kernels do, else through
// fast_product and publish_columns.  False (nothing changed) where
// fast_product declines.
bool fast_product_into(Tile& destination, const ProductTiles& t, NumericProfile profile, num::RoundingMode mode);

}  // namespace pto::tile
