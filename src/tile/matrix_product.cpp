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
#include "tile/cube_copy.hpp"
#include "tile/cube_layout.hpp"
#include "tile/matrix_kernels.hpp"
#include "tile/ops_matrix.hpp"

namespace pto::tile {
namespace {

std::atomic<bool> g_kernels_enabled{true};

// Per-thread buffers reused from one product to the next: a fresh 64-128 KiB
// heap block per operand would cost page faults and zero-filling comparable
// to the product itself.  Slots: 0 left elements (bytes: the TGEMV right
// row image), 1 right elements, 2 left panel, 3 sums.
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
    case 32: return sign ? map_payload<std::int32_t>(t, out, extend) : map_payload<std::uint32_t>(t, out, extend);
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

// A CUBE_M16 / CUBE_M32 payload holds CELLs of R rows x CC columns, row-major,
// one after another along the columns: element (r, c) sits at
// (c / CC) * R * CC + r * CC + c % CC (TileCubePayloadIndex).  Column i of
// the left operand (its rows r < m) into the panel's lanes, zero past m.
template <std::uint32_t CC, typename Operand>
void cell_columns(const Operand* elements, Operand* panel, std::uint32_t cell_rows, std::uint32_t m, std::uint32_t k,
                  std::uint32_t rows) {
  for (std::uint32_t i = 0; i < k; ++i) {
    const Operand* column = elements + std::size_t{i / CC} * cell_rows * CC + i % CC;
    Operand* lanes = panel + std::size_t{i} * rows;
    for (std::uint32_t r = 0; r < m; ++r) lanes[r] = column[std::size_t{r} * CC];
    std::fill(lanes + m, lanes + rows, Operand{0});
  }
}

// The same through the offset tables: every layout, including the 4-bit
// CUBE_M16 CELL whose column quads are permuted.
template <typename Operand>
void offset_columns(const Tile& left, const Operand* elements, Operand* panel, std::uint32_t rows) {
  const Tile::Offsets o = left.valid_offsets();
  const auto m = static_cast<std::uint32_t>(o.row.size()), k = static_cast<std::uint32_t>(o.column.size());
  for (std::uint32_t i = 0; i < k; ++i) {
    Operand* lanes = panel + std::size_t{i} * rows;
    for (std::uint32_t r = 0; r < m; ++r) lanes[r] = elements[o(r, i)];
    std::fill(lanes + m, lanes + rows, Operand{0});
  }
}

template <typename Operand>
void left_columns(const Tile& left, const Operand* elements, Operand* panel, std::uint32_t rows) {
  const TileDescriptor& d = left.descriptor();
  const CubeGeometry g = cube_geometry(d.layout, d.valid_rows, d.valid_columns, d.data_type);
  const std::uint32_t m = d.valid_rows, k = d.valid_columns;
  const bool permuted = d.layout == TileLayout::CubeM16 && element_bits(d.data_type) == 4;
  if (d.layout == TileLayout::CubeN8 || permuted) return offset_columns(left, elements, panel, rows);
  switch (g.cell_columns) {
    case 1: return cell_columns<1>(elements, panel, g.cell_rows, m, k, rows);
    case 2: return cell_columns<2>(elements, panel, g.cell_rows, m, k, rows);
    case 4: return cell_columns<4>(elements, panel, g.cell_rows, m, k, rows);
    case 8: return cell_columns<8>(elements, panel, g.cell_rows, m, k, rows);
    default: return offset_columns(left, elements, panel, rows);
  }
}

// Whether a CUBE_M32 tile of 32-bit elements with 32 valid rows stores
// element (r, c) at c * 32 + r: the kernels' column-major sums (and an
// FP32 left operand's panel) as they are.
bool column_major_32(const Tile& t) noexcept {
  const TileDescriptor& d = t.descriptor();
  return d.layout == TileLayout::CubeM32 && element_bits(d.data_type) == 32 && d.valid_rows == 32;
}

// The k-major left panel of `rows` lanes (rows past m are zero), each
// element MX-scaled by its row's block scale when present.
template <class A>
std::span<const typename A::Operand> left_panel(const ProductTiles& t, std::uint32_t rows) {
  using Operand = typename A::Operand;
  const std::uint32_t m = t.left->descriptor().valid_rows, k = t.left->descriptor().valid_columns;
  // An unscaled FP32 CUBE_M32 payload of 32 rows is the panel.
  if constexpr (std::is_same_v<Operand, float>)
    if (t.left->data_type() == DataType::FP32 && !t.left_scaled && column_major_32(*t.left) && rows == 32)
      return {reinterpret_cast<const float*>(t.left->payload().data()), std::size_t{k} * rows};
  const std::span<Operand> elements = scratch<Operand>(0, t.left->descriptor().rows * std::size_t{t.left->descriptor().columns});
  A::elements(*t.left, elements);
  const std::span<Operand> panel = scratch<Operand>(2, std::size_t{k} * rows);
  left_columns(*t.left, elements.data(), panel.data(), rows);
  if (t.left_scaled)
    for (std::uint32_t i = 0; i < k; ++i)
      for (std::uint32_t r = 0; r < m; ++r) panel[std::size_t{i} * rows + r] *= A::scale(word_at(*t.left_scale, r, i / 32));
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

// The accumulator C into the column-major sums (rows past m are zero).
template <class A>
void initial_sums(const Tile& c, std::span<typename A::Sum> sums, std::uint32_t m, std::uint32_t n, std::uint32_t rows) {
  using Sum = typename A::Sum;
  if constexpr (std::is_same_v<Sum, float>)
    if (column_major_32(c) && rows == 32) {
      std::memcpy(sums.data(), c.payload().data(), std::size_t{n} * rows * sizeof(float));
      return;
    }
  const Tile::Offsets o = c.valid_offsets();
  for (std::uint32_t col = 0; col < n; ++col)
    for (std::uint32_t r = 0; r < rows; ++r) sums[std::size_t{col} * rows + r] = r < m ? A::sum_of(c.read_word(o(r, col))) : Sum{0};
}

// TGEMV-shaped products (one row, `rows` 1) run across the columns: the
// right operand as k-major rows of binary32, from its row image (the CUBE
// block copies, cube_copy.hpp) widened row by row.  Unscaled FP32, FP16 and
// BF16 right operands; the others take the panel kernels.
bool gemv_applies(const ProductTiles& t) noexcept {
  const DataType r = t.right->data_type();
  return t.left->descriptor().valid_rows == 1 && !t.left_scaled && !t.right_scaled &&
         (r == DataType::FP32 || r == DataType::FP16 || r == DataType::BF16) &&
         cube_block_copy_applies(t.right->descriptor());
}

// The exact path's widening of one image row of n elements.
void widen_row(DataType t, const std::byte* in, float* out, std::uint32_t n) noexcept {
  if (t == DataType::FP32) return static_cast<void>(std::memcpy(out, in, std::size_t{n} * sizeof(float)));
  if (t == DataType::FP16) return kernels::widen_fp16(reinterpret_cast<const std::uint16_t*>(in), out, n);
  for (std::uint32_t c = 0; c < n; ++c) {  // BF16: the high half of binary32
    std::uint16_t bits = 0;
    std::memcpy(&bits, in + std::size_t{c} * 2, 2);
    out[c] = std::bit_cast<float>(std::uint32_t{bits} << 16);
  }
}

// Padded columns (up to the next 16) sum zeros nobody reads.
std::uint32_t gemv_stride(std::uint32_t n) noexcept { return (n + 15) / 16 * 16; }

void gemv_kernel(const ProductTiles& t, std::span<float> sums) {
  const TileDescriptor& rd = t.right->descriptor();
  const std::uint32_t k = rd.valid_rows, n = rd.valid_columns, stride = gemv_stride(n);
  const std::size_t row_bytes = std::size_t{n} * memory_element_bytes(rd.data_type);
  const std::span<float> right = scratch<float>(1, std::size_t{k} * stride);
  const bool fp32_rows = rd.data_type == DataType::FP32 && n == stride;  // the image is the panel
  const std::span<std::byte> image =
      fp32_rows ? std::as_writable_bytes(right) : scratch<std::byte>(0, row_bytes * k);
  cube_payload_to_image(*t.right, image.data(), row_bytes, Band{0, k});
  for (std::uint32_t i = 0; i < k && !fp32_rows; ++i) {
    float* row = right.data() + std::size_t{i} * stride;
    widen_row(rd.data_type, image.data() + i * row_bytes, row, n);
    std::fill(row + n, row + stride, 0.0f);
  }
  const std::span<const float> left = left_panel<Fp32Arithmetic>(t, 1);
  kernels::fused_gemv({k, stride, left.data(), right.data(), sums.data(), t.accumulate});
}

// Unscaled operands of at most 8 bits (S8, U8, the 4-bit integers, and in
// the reference profile the codes of FP8 / FP4 formats): every Word is the
// extension of a value in [-128, 255], so the products fit the pair
// kernel's 32-bit lanes (kernels::PairPanels).
bool narrow_words(const ProductTiles& t) noexcept {
  return !t.left_scaled && !t.right_scaled && element_bits(t.left->data_type()) <= 8 &&
         element_bits(t.right->data_type()) <= 8;
}

// The Word panels re-packed in pairs along k (zero past k) for
// kernels::pair_product.
template <typename Operand>
void pair_kernel(const ProductTiles& t, std::uint32_t rows, std::span<const Operand> left, std::span<const Operand> right,
                 const Tile::Offsets& ro, std::span<std::uint64_t> sums) {
  const std::uint32_t k = t.left->descriptor().valid_columns, n = t.right->descriptor().valid_columns;
  const std::uint32_t pairs = (k + 1) / 2;
  const std::span<std::int16_t> left_pairs = scratch<std::int16_t>(0, std::size_t{pairs} * rows * 2);
  const std::span<std::int16_t> right_pairs = scratch<std::int16_t>(1, std::size_t{pairs} * n * 2);
  const auto narrow = [](Operand v) { return static_cast<std::int16_t>(static_cast<std::int32_t>(v)); };
  for (std::uint32_t i = 0; i < 2 * pairs; ++i)
    for (std::uint32_t r = 0; r < rows; ++r)
      left_pairs[(std::size_t{i / 2} * rows + r) * 2 + i % 2] = i < k ? narrow(left[std::size_t{i} * rows + r]) : 0;
  for (std::uint32_t c = 0; c < n; ++c)
    for (std::uint32_t i = 0; i < 2 * pairs; ++i)
      right_pairs[std::size_t{c} * pairs * 2 + i] = i < k ? narrow(right[ro(i, c)]) : 0;
  kernels::pair_product({rows, n, pairs, left_pairs.data(), right_pairs.data(), sums.data(), t.accumulate});
}

// The kernel call of MatrixProductResultFromTiles (or the MX form) on
// `sums`, which hold the accumulator when `accumulate`.
template <class A>
void kernel_sums(const ProductTiles& t, std::uint32_t rows, std::span<typename A::Sum> sums) {
  if constexpr (std::is_same_v<A, Fp32Arithmetic>)
    if (rows == 1) return gemv_kernel(t, sums);
  const std::span<const typename A::Operand> left = left_panel<A>(t, rows);
  const Tile::Offsets ro = t.right->valid_offsets();
  const std::span<const typename A::Operand> right = right_elements<A>(t, ro);
  if constexpr (!std::is_same_v<A, Fp32Arithmetic>)
    if (narrow_words(t)) return pair_kernel(t, rows, left, right, ro, sums);
  A::product({rows, t.right->descriptor().valid_columns, t.left->descriptor().valid_columns, left.data(), right.data(),
              ro.row.data(), ro.column.data(), sums.data(), t.accumulate});
}

// Panels, one kernel call, the bias: MatrixProductResultFromTiles (or the
// MX form) and MatrixBiasResult, into `sums` (column-major, `rows` lanes,
// whole blocks of eight columns: the kernels write them).
template <class A>
void product_into(const ProductTiles& t, std::uint32_t rows, std::span<typename A::Sum> sums) {
  using Sum = typename A::Sum;
  const std::uint32_t m = t.left->descriptor().valid_rows, n = t.right->descriptor().valid_columns;
  if (t.accumulate) initial_sums<A>(*t.accumulator, sums, m, n, rows);
  kernel_sums<A>(t, rows, sums);
  if (t.add_bias) {
    for (std::uint32_t c = 0; c < n; ++c) {
      const Sum bias = A::sum_of(word_at(*t.bias, 0, c));
      for (std::uint32_t r = 0; r < m; ++r) sums[std::size_t{c} * rows + r] += bias;
    }
    A::after_bias(sums);
  }
}

template <class A>
std::span<const typename A::Sum> product_columns(const ProductTiles& t, std::uint32_t rows) {
  const std::uint32_t n = t.right->descriptor().valid_columns;
  // Whole blocks of eight columns (panel kernels) or of 16 (gemv_stride).
  const std::span<typename A::Sum> sums = scratch<typename A::Sum>(3, std::size_t{gemv_stride(n)} * rows);
  product_into<A>(t, rows, sums);
  return sums;
}

DataType accumulator_type(const ProductTiles& t) noexcept {
  return (t.left_scaled || t.right_scaled) ? DataType::FP32 : matrix_accumulator_type(t.left->data_type());
}

// Whether the binary32 sums can be written straight into D's payload: D
// stores them column-major as the kernels do (32 rows of CUBE_M32), the
// kernels' whole blocks of eight columns stay inside its valid columns, and
// D is none of the tiles the product reads.
bool sums_in_place(const Tile& d, const ProductTiles& t, NumericProfile profile) noexcept {
  const bool reads_d = &d == t.left || &d == t.right || (t.accumulate && &d == t.accumulator) ||
                       (t.add_bias && &d == t.bias) || (t.left_scaled && &d == t.left_scale) ||
                       (t.right_scaled && &d == t.right_scale);
  return profile == NumericProfile::Ieee && accumulator_type(t) == DataType::FP32 && d.data_type() == DataType::FP32 &&
         column_major_32(d) && t.left->descriptor().valid_rows == 32 && d.descriptor().valid_columns % 8 == 0 && !reads_d;
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
  const DataType accumulator = accumulator_type(t);
  if (profile == NumericProfile::Ieee && accumulator == DataType::FP32) {
    const kernels::HostRounding rounding(mode);
    if (!rounding.active()) return std::nullopt;
    if (gemv_applies(t)) p.rows = 1;
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
  const std::uint32_t m = p.m;  // locals: the stores below may alias p's and o's members
  const std::uint32_t* row = o.row.data();
  // A column's rows are consecutive elements in CUBE_M32 (and N8) storage.
  const bool rows_contiguous = row[m - 1] == row[0] + m - 1;
  for (std::uint32_t c = 0; c < p.n; ++c) {
    std::uint32_t* column = out + o.column[c];
    const std::size_t first = std::size_t{c} * p.rows;
    if (!p.fp32.empty() && rows_contiguous) {
      std::memcpy(column + row[0], p.fp32.data() + first, std::size_t{m} * sizeof(float));
    } else if (!p.fp32.empty()) {
      const float* sums = p.fp32.data() + first;
      for (std::uint32_t r = 0; r < m; ++r) column[row[r]] = std::bit_cast<std::uint32_t>(sums[r]);
    } else {
      const std::uint64_t* sums = p.words.data() + first;
      for (std::uint32_t r = 0; r < m; ++r) column[row[r]] = static_cast<std::uint32_t>(sums[r]);
    }
  }
  destination.mark_valid_region_defined();
}

bool fast_product_into(Tile& destination, const ProductTiles& t, NumericProfile profile, num::RoundingMode mode) {
  if (!matrix_kernels_enabled()) return false;
  if (sums_in_place(destination, t, profile)) {
    const kernels::HostRounding rounding(mode);
    if (!rounding.active()) return false;
    destination.configure(destination.descriptor());
    const std::size_t sums = std::size_t{destination.descriptor().valid_columns} * 32;
    product_into<Fp32Arithmetic>(t, 32, {destination.row_data<float>(0), sums});
    destination.mark_valid_region_defined();
    return true;
  }
  const std::optional<ProductColumns> fast = fast_product(t, profile, mode);
  if (fast) publish_columns(destination, *fast);
  return fast.has_value();
}

}  // namespace pto::tile
