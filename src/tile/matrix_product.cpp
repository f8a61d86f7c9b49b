#include "tile/matrix_product.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cstring>
#include <span>
#include <type_traits>

#include "numerics/convert_span.hpp"
#include "numerics/f16c_span.hpp"
#include "numerics/format.hpp"
#include "tile/matrix_kernels.hpp"
#include "tile/ops_matrix.hpp"

namespace pto::tile {
namespace {

std::atomic<bool> g_kernels_enabled{true};

// Per-thread buffers reused from one product to the next: a fresh 64-128 KiB
// heap block per operand would cost page faults and zero-filling comparable
// to the product itself.  Slots: 0 left elements, 1 right elements, 2 left
// panel, 3 sums.
template <typename T>
std::span<T> scratch(unsigned slot, std::size_t n) {
  thread_local std::array<std::vector<T>, 4> buffers;
  std::vector<T>& b = buffers[slot];
  if (b.size() < n) b.resize(n);
  return {b.data(), n};
}

// The exact path's widening of one element (ops_matrix.cpp to_fp32).
float fp32_of(DataType t, std::uint64_t raw) noexcept {
  return std::bit_cast<float>(static_cast<std::uint32_t>(num::convert(t, DataType::FP32, raw, num::RoundingMode::RNE).bits));
}

// Payload elements [0, extent) hold the valid region.
std::size_t extent(const Tile::Offsets& o) noexcept {
  return std::size_t{*std::max_element(o.row.begin(), o.row.end())} + *std::max_element(o.column.begin(), o.column.end()) +
         1;
}

template <typename Element, typename Out, typename Map>
void map_payload(const Tile& t, std::span<Out> out, Map map) {
  const auto* in = reinterpret_cast<const Element*>(t.payload().data());
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = map(in[i]);
}

// The binary32 value of every element of `out`, as the exact path widens it
// (the FP16 span converters are bit-identical to num::convert up to NaN
// payloads, and every NaN operand ends as the canonical NaN either way).
void fp32_elements(const Tile& t, std::span<float> out) {
  const DataType type = t.data_type();
  if (type == DataType::FP32) return map_payload<std::uint32_t>(t, out, [](std::uint32_t x) { return std::bit_cast<float>(x); });
  if (type == DataType::BF16)
    return map_payload<std::uint16_t>(t, out, [](std::uint16_t x) { return std::bit_cast<float>(std::uint32_t{x} << 16); });
  if (type == DataType::FP16)
    return kernels::widen_fp16(reinterpret_cast<const std::uint16_t*>(t.payload().data()), out.data(), out.size());
  if (element_bits(type) > 8) {
    for (std::size_t i = 0; i < out.size(); ++i) out[i] = fp32_of(type, t.read_raw(static_cast<std::uint32_t>(i)));
    return;
  }
  std::array<float, 256> table{};  // every 8- or 4-bit code
  for (std::uint32_t code = 0; code < (1U << element_bits(type)); ++code) table[code] = fp32_of(type, code);
  for (std::size_t i = 0; i < out.size(); ++i) out[i] = table[t.read_raw(static_cast<std::uint32_t>(i))];
}

// The Word of every element of `out` (Tile::read_word: signed integers
// sign-extend, all others zero-extend) as the kernel's 32-bit operand.
template <typename Operand>
void word_elements(const Tile& t, std::span<Operand> out) {
  const bool sign = data_type_is_signed_integer(t.data_type());
  const auto extend = [](auto x) { return static_cast<Operand>(x); };
  switch (element_bits(t.data_type())) {
    case 8: return sign ? map_payload<std::int8_t>(t, out, extend) : map_payload<std::uint8_t>(t, out, extend);
    case 16: return sign ? map_payload<std::int16_t>(t, out, extend) : map_payload<std::uint16_t>(t, out, extend);
    default:
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = static_cast<Operand>(t.read_word(static_cast<std::uint32_t>(i)));
  }
}

// ieee FP32 accumulation: binary32 operands, one host FMA per step
// (TileProfileMatrixAccumulate), MX scaling and the bias as one host
// multiply and add in the same mode (ieee_binary MUL / ADD).
struct Fp32Arithmetic {
  using Operand = float;
  using Sum = float;
  static void elements(const Tile& t, std::span<float> out) { fp32_elements(t, out); }
  static float scale(std::uint64_t raw) noexcept {
    static const std::array<float, 256> kE8M0 = [] {
      std::array<float, 256> table{};
      for (std::uint32_t code = 0; code < 256; ++code) table[code] = fp32_of(DataType::E8M0, code);
      return table;
    }();
    return kE8M0[raw & 0xFF];
  }
  static float sum_of(std::uint64_t word) noexcept { return std::bit_cast<float>(static_cast<std::uint32_t>(word)); }
  static void product(const kernels::Panels<float, float>& p) noexcept { kernels::fused_product(p); }
  // inf + -inf: the canonical NaN as ieee_binary ADD gives it.
  static void after_bias(std::span<float> sums) noexcept { kernels::canonical_nans(sums.data(), sums.size()); }
};

// Word accumulation (integer classes, and the reference profile for every
// type): MultiplyWord and Word addition modulo 2^64.  Every operand Word is
// the extension of a 32-bit value; MX-scaled operands (at most 16-bit
// values times an 8-bit E8M0 carrier) stay below 2^24.
template <typename Operand_>
struct WordArithmetic {
  using Operand = Operand_;
  using Sum = std::uint64_t;
  static void elements(const Tile& t, std::span<Operand> out) { word_elements(t, out); }
  static Operand scale(std::uint64_t raw) noexcept { return static_cast<Operand>(raw); }
  static std::uint64_t sum_of(std::uint64_t word) noexcept { return word; }
  static void product(const kernels::Panels<Operand, std::uint64_t>& p) noexcept { kernels::word_product(p); }
  static void after_bias(std::span<std::uint64_t>) noexcept {}
};

std::uint64_t word_at(const Tile& t, std::uint32_t r, std::uint32_t c) { return t.read_word(t.linear_index(r, c)); }

// The k-major left panel of `rows` lanes (rows past m are zero), each
// element MX-scaled by its row's block scale when present.
template <class A>
std::span<const typename A::Operand> left_panel(const ProductTiles& t, std::uint32_t rows) {
  using Operand = typename A::Operand;
  const Tile::Offsets o = t.left->valid_offsets();
  const std::span<Operand> elements = scratch<Operand>(0, extent(o));
  A::elements(*t.left, elements);
  const auto m = static_cast<std::uint32_t>(o.row.size()), k = static_cast<std::uint32_t>(o.column.size());
  const std::span<Operand> panel = scratch<Operand>(2, std::size_t{k} * rows);
  for (std::uint32_t i = 0; i < k; ++i) {
    Operand* lanes = panel.data() + std::size_t{i} * rows;
    for (std::uint32_t r = 0; r < m; ++r) lanes[r] = elements[o(r, i)];
    std::fill(lanes + m, lanes + rows, Operand{0});
    if (t.left_scaled)
      for (std::uint32_t r = 0; r < m; ++r) lanes[r] *= A::scale(word_at(*t.left_scale, r, i / 32));
  }
  return panel;
}

// The right operand in its own storage order, MX-scaled in place.
template <class A>
std::span<const typename A::Operand> right_elements(const ProductTiles& t, const Tile::Offsets& o) {
  // An unscaled FP32 payload already holds the binary32 operands.
  if constexpr (std::is_same_v<typename A::Operand, float>)
    if (t.right->data_type() == DataType::FP32 && !t.right_scaled)
      return {reinterpret_cast<const float*>(t.right->payload().data()), extent(o)};
  const std::span<typename A::Operand> elements = scratch<typename A::Operand>(1, extent(o));
  A::elements(*t.right, elements);
  if (t.right_scaled)
    for (std::uint32_t i = 0; i < o.row.size(); ++i)
      for (std::uint32_t c = 0; c < o.column.size(); ++c) elements[o(i, c)] *= A::scale(word_at(*t.right_scale, i / 32, c));
  return elements;
}

// Panels, one kernel call, the bias: MatrixProductResultFromTiles (or the
// MX form) and MatrixBiasResult.
template <class A>
std::span<const typename A::Sum> product_columns(const ProductTiles& t, std::uint32_t rows) {
  using Sum = typename A::Sum;
  const std::uint32_t m = t.left->descriptor().valid_rows, n = t.right->descriptor().valid_columns;
  const std::span<const typename A::Operand> left = left_panel<A>(t, rows);
  const Tile::Offsets ro = t.right->valid_offsets();
  const std::span<const typename A::Operand> right = right_elements<A>(t, ro);
  // The kernels write whole blocks of eight columns.
  const std::span<Sum> sums = scratch<Sum>(3, std::size_t{(n + 7) / 8 * 8} * rows);
  if (t.accumulate) {
    const Tile::Offsets ao = t.accumulator->valid_offsets();
    for (std::uint32_t c = 0; c < n; ++c)
      for (std::uint32_t r = 0; r < rows; ++r)
        sums[std::size_t{c} * rows + r] = r < m ? A::sum_of(t.accumulator->read_word(ao(r, c))) : Sum{0};
  }
  A::product({rows, n, t.left->descriptor().valid_columns, left.data(), right.data(), ro.row.data(), ro.column.data(),
              sums.data(), t.accumulate});
  if (t.add_bias) {
    for (std::uint32_t c = 0; c < n; ++c) {
      const Sum bias = A::sum_of(word_at(*t.bias, 0, c));
      for (std::uint32_t r = 0; r < m; ++r) sums[std::size_t{c} * rows + r] += bias;
    }
    A::after_bias(sums);
  }
  return sums;
}

}  // namespace

std::uint64_t ProductColumns::word(std::uint32_t r, std::uint32_t c) const noexcept {
  const std::size_t i = std::size_t{c} * rows + r;
  return fp32.empty() ? words[i] : std::bit_cast<std::uint32_t>(fp32[i]);
}

void set_matrix_kernels_enabled(bool enabled) noexcept { g_kernels_enabled.store(enabled, std::memory_order_relaxed); }
bool matrix_kernels_enabled() noexcept { return g_kernels_enabled.load(std::memory_order_relaxed); }

std::optional<ProductColumns> fast_product(const ProductTiles& t, NumericProfile profile, num::RoundingMode mode) {
  const std::uint32_t m = t.left->descriptor().valid_rows;
  if (!matrix_kernels_enabled() || m > 32) return std::nullopt;
  ProductColumns p{m, t.right->descriptor().valid_columns, m <= 16 ? 16U : 32U, {}, {}};
  const DataType accumulator = (t.left_scaled || t.right_scaled) ? DataType::FP32 : matrix_accumulator_type(t.left->data_type());
  if (profile == NumericProfile::Ieee && accumulator == DataType::FP32) {
    const kernels::HostRounding rounding(mode);
    if (!rounding.active()) return std::nullopt;
    p.fp32 = product_columns<Fp32Arithmetic>(t, p.rows);
  } else if (accumulator == DataType::S32) {
    p.words = product_columns<WordArithmetic<std::int32_t>>(t, p.rows);
  } else {
    p.words = product_columns<WordArithmetic<std::uint32_t>>(t, p.rows);
  }
  return p;
}

std::vector<std::uint64_t> row_major_words(const ProductColumns& p) {
  std::vector<std::uint64_t> out(std::size_t{p.m} * p.n);
  for (std::uint32_t r = 0; r < p.m; ++r)
    for (std::uint32_t c = 0; c < p.n; ++c) out[std::size_t{r} * p.n + c] = p.word(r, c);
  return out;
}

void publish_columns(Tile& destination, const ProductColumns& p) {
  destination.configure(destination.descriptor());
  const Tile::Offsets o = destination.valid_offsets();
  auto* out = destination.row_data<std::uint32_t>(0);
  // A column's rows are consecutive elements in CUBE_M32 (and N8) storage.
  const bool rows_contiguous = o.row.back() == o.row.front() + p.m - 1;
  for (std::uint32_t c = 0; c < p.n; ++c) {
    std::uint32_t* column = out + o.column[c];
    const std::size_t first = std::size_t{c} * p.rows;
    if (!p.fp32.empty() && rows_contiguous) {
      std::memcpy(column + o.row.front(), p.fp32.data() + first, std::size_t{p.m} * sizeof(float));
    } else if (!p.fp32.empty()) {
      for (std::uint32_t r = 0; r < p.m; ++r) column[o.row[r]] = std::bit_cast<std::uint32_t>(p.fp32[first + r]);
    } else {
      for (std::uint32_t r = 0; r < p.m; ++r) column[o.row[r]] = static_cast<std::uint32_t>(p.words[first + r]);
    }
  }
  destination.mark_valid_region_defined();
}

}  // namespace pto::tile
