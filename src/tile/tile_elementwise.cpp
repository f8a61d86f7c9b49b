#include "tile/tile_elementwise.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cfenv>
#include <cstring>
#include <span>
#include <type_traits>

#include "numerics/convert_span.hpp"
#include "numerics/f16c_span.hpp"
#include "numerics/format.hpp"
#include "tile/ops_elementwise.hpp"

namespace pto::tile {
namespace {

using ops::Binary;

// The valid region of a RowMajor tile as contiguous element runs: one run
// when the valid columns fill every row, else one per valid row.
template <typename F>
void for_each_valid_run(const TileDescriptor& d, F f) {
  if (d.valid_columns == d.columns) {
    f(std::size_t{0}, std::size_t{d.valid_rows} * d.columns);
    return;
  }
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) f(std::size_t{r} * d.columns, std::size_t{d.valid_columns});
}

// Calls f(a, b, out, n) for each run of the (equally shaped) operands.
template <typename T, typename F>
void for_each_span(Tile& destination, const Tile& left, const Tile& right, F f) {
  const T* a = left.row_data<T>(0);
  const T* b = right.row_data<T>(0);
  T* out = destination.row_data<T>(0);
  for_each_valid_run(destination.descriptor(),
                     [&](std::size_t first, std::size_t n) { f(a + first, b + first, out + first, n); });
}

// ---- raw carrier ADD/SUB/MUL: integer types and the reference profile ----

// Wraps at the element width like ops::integer_value / the reference
// profile's raw carrier arithmetic.  Plain loops with local bounds: the
// compiler vectorises them (the destination may alias a source element for
// element, which its runtime overlap check allows).
template <Binary Op, typename T>
PTO_NUM_CLONES void carrier_span(const T* a, const T* b, T* out, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    if constexpr (Op == Binary::ADD) out[i] = ops::wrap_add(a[i], b[i]);
    else if constexpr (Op == Binary::SUB) out[i] = ops::wrap_sub(a[i], b[i]);
    else out[i] = ops::wrap_mul(a[i], b[i]);
  }
}

// ---- checked fast paths ----

// Results are produced a chunk at a time into a local buffer, so the
// operands stay intact (even when the destination is a source) for the
// exact recomputation of the chunk's flagged elements.
constexpr std::size_t kChunk = 512;

// Where a chunk's results are produced before the exact recomputations:
// straight into the destination, unless it is a source (tiles alias whole
// or not at all) whose operands the recomputations still read; then into a
// local buffer copied out afterwards.
template <typename T>
class ChunkOutput {
 public:
  ChunkOutput(T* out, const T* a, const T* b) : out_(out), buffered_(out == a || out == b) {}
  T* at(std::size_t i) { return buffered_ ? buffer_.data() : out_ + i; }
  void commit(std::size_t i, std::size_t m) {
    if (buffered_) std::memcpy(out_ + i, buffer_.data(), m * sizeof(T));
  }

 private:
  T* out_;
  bool buffered_;
  std::array<T, kChunk> buffer_;
};

// Calls f(a, b, out, n) for each run of the source with b a broadcast of
// `scalar` (ExecuteTileScalar), in pieces of at most kChunk elements.
template <typename T, typename F>
void for_each_broadcast_span(Tile& destination, const Tile& left, T scalar, F f) {
  std::array<T, kChunk> b;
  b.fill(scalar);
  const T* a = left.row_data<T>(0);
  T* out = destination.row_data<T>(0);
  for_each_valid_run(destination.descriptor(), [&](std::size_t first, std::size_t n) {
    for (std::size_t i = 0; i < n; i += kChunk) f(a + first + i, b.data(), out + first + i, std::min(kChunk, n - i));
  });
}

template <Binary Op, typename F>
F host_op(F a, F b) noexcept {
  if constexpr (Op == Binary::ADD) return a + b;
  else if constexpr (Op == Binary::SUB) return a - b;
  else if constexpr (Op == Binary::MUL) return a * b;
  else return a / b;
}

struct ElementContext {
  Binary op;
  DataType type;
  NumericProfile profile;
  num::Flags flags = 0;  // of the elements recomputed exactly
  template <typename T>
  T exact(T a, T b) {
    const num::Result r = ops::binary_element(op, type, a, b, profile);
    flags |= r.flags;
    return static_cast<T>(r.bits);
  }
};

// The +infinity encoding of the IEEE interchange-style formats the fast
// paths take, whose NaNs are exactly the encodings above it; 0 otherwise.
std::uint64_t infinity_bits(DataType t) noexcept {
  if (t != DataType::FP64 && t != DataType::FP32 && t != DataType::FP16 && t != DataType::BF16) return 0;
  const num::FormatInfo& f = num::format_info(t);
  return ((std::uint64_t{1} << f.exp_bits) - 1) << f.frac_bits;
}

// A NaN encoding of such a format: magnitude above the infinity encoding.
// Both sides are below the sign bit, so the comparison is a signed one
// (one vector instruction on x86).
template <typename T>
constexpr bool is_nan_bits(T v, T inf) noexcept {
  using S = std::make_signed_t<T>;
  constexpr T magnitude = static_cast<T>(~(T{1} << (sizeof(T) * 8 - 1)));
  return static_cast<S>(v & magnitude) > static_cast<S>(inf);
}

// Either operand a NaN: one signed maximum of the magnitudes, one compare.
template <typename T>
constexpr bool either_nan_bits(T x, T y, T inf) noexcept {
  using S = std::make_signed_t<T>;
  constexpr T magnitude = static_cast<T>(~(T{1} << (sizeof(T) * 8 - 1)));
  return std::max(static_cast<S>(x & magnitude), static_cast<S>(y & magnitude)) > static_cast<S>(inf);
}

// ieee FP32/FP64 ADD/SUB/MUL/DIV on the host: binary32/binary64 arithmetic
// in the default environment (round to nearest even, no flush to zero) is
// the IEEE 754 operation, bit for bit, except that NaN results carry host
// payloads where PTO returns the canonical NaN; those are recomputed.
template <Binary Op, typename T>
PTO_NUM_CLONES void host_float_span(ElementContext& e, const T* a, const T* b, T* out, std::size_t n) {
  using F = std::conditional_t<sizeof(T) == 4, float, double>;
  const T inf = static_cast<T>(infinity_bits(e.type));
  ChunkOutput<T> sink(out, a, b);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    T* z = sink.at(i);
    T nan = 0;  // an integer OR-reduction, so the loop vectorises
    for (std::size_t j = 0; j < m; ++j) {
      z[j] = std::bit_cast<T>(host_op<Op>(std::bit_cast<F>(a[i + j]), std::bit_cast<F>(b[i + j])));
      nan |= static_cast<T>(is_nan_bits(z[j], inf));
    }
    if (nan)
      for (std::size_t j = 0; j < m; ++j)
        if (is_nan_bits(z[j], inf)) z[j] = e.exact(a[i + j], b[i + j]);
    sink.commit(i, m);
  }
}

// ieee FP16/BF16 ADD/SUB/MUL/DIV through binary32.
//
// Why one binary32 operation then one RNE narrowing is the correctly
// rounded FP16/BF16 result.  Widening is exact.  For the exact real result
// x of a +, -, * or / of two p-bit values, rounding x to p' bits and then to
// p bits equals rounding x to p bits once whenever p' >= 2p + 2 (Figueroa,
// "When is double rounding innocuous?", 1995, for +, -, *, / and sqrt);
// binary32 has p' = 24, FP16 p = 11 (24 >= 24), BF16 p = 8.  The theorem
// assumes the binary32 step rounds at full
// precision, i.e. x is not in the binary32 subnormal range:
//  - FP16: every nonzero exact sum is a multiple of 2^-24 (>= 2^-24), every
//    product of nonzero values >= 2^-48, every quotient >= 2^-40, and all
//    magnitudes are below 2^41: always inside the binary32 normal range,
//    never overflowing binary32.  (A product is even exact: 22 significant
//    bits.  A sum is not always exact, e.g. 65504 + 2^-24, hence the theorem.)
//  - BF16 shares the binary32 exponent range, so a BF16 + BF16 sum is not
//    always exact (2^100 + 1) and products and quotients can underflow or
//    overflow binary32.  Overflow is harmless (binary32 overflows only above
//    the BF16 overflow threshold, and both then give infinity); results that
//    are zero or subnormal in binary32 are recomputed exactly.
//  - FP16 results in the FP16 subnormal range round to the 2^-24 grid, not
//    to 11 bits: there sums and products are exact in binary32 (one
//    rounding) and quotients stay clear of the grid's midpoints by more
//    than half a binary32 ulp (docs/numerics.md, fast paths).
// The narrowing rounds to nearest even with an unbounded exponent and then
// overflows to infinity, so the overflow decision agrees too.  NaN results
// (including every NaN operand) are recomputed: PTO returns the canonical NaN.

// A binary32 result the BF16 narrowing may not take as is.
constexpr bool bf16_needs_exact(std::uint32_t wide) noexcept {
  return is_nan_bits(wide, std::uint32_t{0x7f800000}) || (wide & 0x7f800000U) == 0;
}

constexpr num::f16c::Op half_op(Binary op) noexcept {
  switch (op) {
    case Binary::ADD: return num::f16c::Op::ADD;
    case Binary::SUB: return num::f16c::Op::SUB;
    case Binary::MUL: return num::f16c::Op::MUL;
    default: return num::f16c::Op::DIV;
  }
}

// FP16: the F16C conversions where the host has them (num::f16c), else
// the portable lane converters.
template <Binary Op>
void fp16_span(ElementContext& e, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) {
  ChunkOutput<std::uint16_t> sink(out, a, b);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    std::uint16_t* z = sink.at(i);
    if (num::f16c::binary_via_fp32(half_op(Op), a + i, b + i, z, m))  // a NaN narrows to a NaN
      for (std::size_t j = 0; j < m; ++j)
        if (is_nan_bits(z[j], std::uint16_t{0x7c00})) z[j] = e.exact(a[i + j], b[i + j]);
    sink.commit(i, m);
  }
}

// The binary32 result of a BF16 operation: BF16 is the top half of binary32.
template <Binary Op>
std::uint32_t bf16_wide(std::uint16_t a, std::uint16_t b) noexcept {
  return std::bit_cast<std::uint32_t>(
      host_op<Op>(std::bit_cast<float>(std::uint32_t{a} << 16), std::bit_cast<float>(std::uint32_t{b} << 16)));
}

// BF16: widening is a shift and RNE narrowing a carry-add (exact for every
// result not recomputed), fused in one loop; the rare recomputed chunks
// redo the binary32 operation to find their elements.
template <Binary Op>
PTO_NUM_CLONES void bf16_span(ElementContext& e, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out,
                              std::size_t n) {
  ChunkOutput<std::uint16_t> sink(out, a, b);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    std::uint16_t* z = sink.at(i);
    std::uint32_t flagged = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint32_t w = bf16_wide<Op>(a[i + j], b[i + j]);
      flagged |= static_cast<std::uint32_t>(bf16_needs_exact(w));
      z[j] = static_cast<std::uint16_t>((w + 0x7FFFU + ((w >> 16) & 1U)) >> 16);
    }
    if (flagged)
      for (std::size_t j = 0; j < m; ++j)
        if (bf16_needs_exact(bf16_wide<Op>(a[i + j], b[i + j]))) z[j] = e.exact(a[i + j], b[i + j]);
    sink.commit(i, m);
  }
}

// TileFloatingOrderKey on a carrier, as a signed integer: monotonic in
// value with -0 (key -1) below +0 (key 0), so ADR 0050 MAX/MIN of non-NaN
// operands (ties: MAX +0, MIN -0, else equal bits) is a signed key
// comparison that keeps the left operand on ties.  Negative encodings flip
// their magnitude bits.
template <typename T>
constexpr std::make_signed_t<T> order_key(T v) noexcept {
  using S = std::make_signed_t<T>;
  constexpr unsigned shift = sizeof(T) * 8 - 1;
  const T flip = static_cast<T>(static_cast<T>(0 - static_cast<T>(v >> shift)) >> 1);
  return static_cast<S>(static_cast<T>(v ^ flip));
}

// MAX/MIN, both profiles (num::ieee_min_max); NaN operands are recomputed.
template <Binary Op, typename T>
PTO_NUM_CLONES void min_max_span(ElementContext& e, const T* a, const T* b, T* out, std::size_t n) {
  const T inf = static_cast<T>(infinity_bits(e.type));
  ChunkOutput<T> sink(out, a, b);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    T* z = sink.at(i);
    T nan = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const T x = a[i + j], y = b[i + j];
      const bool left = Op == Binary::MAX ? order_key(x) >= order_key(y) : order_key(x) <= order_key(y);
      nan |= static_cast<T>(either_nan_bits(x, y, inf));
      z[j] = left ? x : y;
    }
    if (nan)
      for (std::size_t j = 0; j < m; ++j)
        if (either_nan_bits(a[i + j], b[i + j], inf)) z[j] = e.exact(a[i + j], b[i + j]);
    sink.commit(i, m);
  }
}

// ---- TEXP on FP32, ieee profile ----
//
// The exact path (ops::sfu_element -> num::ieee_unary) evaluates exp in the
// 80-bit extended format and rounds once: docs/numerics.md bounds its error
// before that rounding by 2^-62 relative.  Here exp(x) is evaluated in
// binary64 with a relative error below 2^-45 (argument reduction
// x = n ln2 + r with a two-part ln2, |r| <= ln2/2, degree-11 Taylor
// polynomial: truncation < 2^-46, evaluation a few 2^-53), and the binary64
// value is rounded to binary32.  When that value lies more than 2^-39
// (relative) from every binary32 value and every midpoint between two,
// both paths round the exact value the same way and neither sees an exact
// result; every other element is recomputed exactly.  The fast range
// 0 < |x| <= 87 keeps the result normal (e^-87 > 2^-126, e^87 < 2^128), so
// the only flag is NX, which the exact path raises for each of them.
constexpr std::uint32_t kExpFastLimit = 0x42ae0000;  // 87.0f
constexpr std::uint32_t kExpTolerance = 1U << 14;    // binary64 ulps: >= 2^-39 relative

struct UnaryContext {
  ops::Unary op;
  DataType type;
  NumericProfile profile;
};

double exp_binary64(double x) noexcept {
  constexpr double kInvLn2 = 0x1.71547652b82fep0;
  constexpr double kLn2Hi = 0x1.62e42feep-1;  // 32 significant bits: n * kLn2Hi is exact for |n| < 2^21
  constexpr double kLn2Lo = 0x1.a39ef35793c76p-33;
  constexpr double kRound = 0x1.8p52;  // adding it rounds to an integer (|value| < 2^51)
  const double shifted = x * kInvLn2 + kRound;
  const double n = shifted - kRound;
  const double r = (x - n * kLn2Hi) - n * kLn2Lo;
  // Horner form of sum r^i / i!, i <= 11, written out so the loop calling
  // this vectorises.
  const double p =
      ((((((((((r * (1.0 / 39916800.0) + 1.0 / 3628800.0) * r + 1.0 / 362880.0) * r + 1.0 / 40320.0) * r + 1.0 / 5040.0) * r +
             1.0 / 720.0) * r + 1.0 / 120.0) * r + 1.0 / 24.0) * r + 1.0 / 6.0) * r + 0.5) * r + 1.0) * r + 1.0;
  const std::uint64_t exponent = std::bit_cast<std::uint64_t>(shifted) - std::bit_cast<std::uint64_t>(kRound) + 1023;
  return p * std::bit_cast<double>(exponent << 52);
}

// A binary64 value within kExpTolerance ulps of a binary32 value or of a
// midpoint between two (the 29 fraction bits binary32 drops).
constexpr bool near_fp32_boundary(std::uint64_t bits) noexcept {
  constexpr std::uint32_t dropped = (1U << 29) - 1;
  const auto low = static_cast<std::uint32_t>(bits) & dropped;
  const bool near_value = ((low + kExpTolerance) & dropped) < 2 * kExpTolerance;
  const bool near_midpoint = ((low + kExpTolerance - (1U << 28)) & dropped) < 2 * kExpTolerance;
  return near_value | near_midpoint;  // no short circuit: the caller's loop vectorises
}

PTO_NUM_CLONES num::Flags exp_fp32_span(const UnaryContext& e, const std::uint32_t* a, std::uint32_t* out,
                                        std::size_t n) {
  std::array<std::uint32_t, kChunk> slow;
  ChunkOutput<std::uint32_t> sink(out, a, a);
  num::Flags flags = 0;
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    std::uint32_t* z = sink.at(i);
    std::uint32_t any_slow = 0, any_fast = 0;
    for (std::size_t j = 0; j < m; ++j) {
      const std::uint32_t v = a[i + j];
      const bool in_range = (v & 0x7fffffffU) - 1U < kExpFastLimit;  // 0 < |x| <= 87
      // Other lanes evaluate exp(+0), branch-free.
      const double x = static_cast<double>(std::bit_cast<float>(v & (0U - static_cast<std::uint32_t>(in_range))));
      const double y = exp_binary64(x);
      slow[j] = static_cast<std::uint32_t>(!in_range) | static_cast<std::uint32_t>(near_fp32_boundary(std::bit_cast<std::uint64_t>(y)));
      any_slow |= slow[j];
      any_fast |= slow[j] ^ 1U;
      z[j] = std::bit_cast<std::uint32_t>(static_cast<float>(y));
    }
    if (any_fast) flags |= num::kNX;
    if (any_slow)
      for (std::size_t j = 0; j < m; ++j)
        if (slow[j]) {
          const num::Result r = ops::sfu_element(e.op, e.type, a[i + j], e.profile);
          z[j] = static_cast<std::uint32_t>(r.bits);
          flags |= r.flags;
        }
    sink.commit(i, m);
  }
  return flags;
}

// The valid region of a RowMajor tile as runs of (source, destination).
template <typename T, typename F>
void for_each_span(Tile& destination, const Tile& source, F f) {
  const T* a = source.row_data<T>(0);
  T* out = destination.row_data<T>(0);
  for_each_valid_run(destination.descriptor(), [&](std::size_t first, std::size_t n) { f(a + first, out + first, n); });
}

// ---- dispatch ----

// `r` null: the right operand is `scalar` (ExecuteTileScalar), whose
// flags the caller records, so the host float arithmetic (no flags) is
// declined for it.  `flags`: those of the exactly recomputed elements.
template <Binary Op>
bool span_binary_op(Tile& d, const Tile& l, const Tile* r, std::uint64_t scalar, NumericProfile p, num::Flags& flags) {
  const DataType t = d.data_type();
  ElementContext e{Op, t, p};
  constexpr bool arithmetic = Op == Binary::ADD || Op == Binary::SUB || Op == Binary::MUL || Op == Binary::DIV;
  const auto run = [&]<typename T>(auto kernel) {
    if (r) for_each_span<T>(d, l, *r, kernel);
    else for_each_broadcast_span<T>(d, l, static_cast<T>(scalar), kernel);
    flags = e.flags;
    return true;
  };
  if constexpr (Op == Binary::MAX || Op == Binary::MIN) {
    if (infinity_bits(t) == 0) return false;
    const auto kernel = [&](const auto* a, const auto* b, auto* out, std::size_t n) { min_max_span<Op>(e, a, b, out, n); };
    switch (element_bits(t)) {
      case 16: return run.template operator()<std::uint16_t>(kernel);
      case 32: return run.template operator()<std::uint32_t>(kernel);
      default: return run.template operator()<std::uint64_t>(kernel);
    }
  } else if constexpr (arithmetic) {
    if (Op != Binary::DIV && (num::is_integer(t) || p == NumericProfile::Reference)) {
      const auto kernel = [](const auto* a, const auto* b, auto* out, std::size_t n) { carrier_span<Op>(a, b, out, n); };
      switch (element_bits(t)) {
        case 8: return run.template operator()<std::uint8_t>(kernel);
        case 16: return run.template operator()<std::uint16_t>(kernel);
        case 32: return run.template operator()<std::uint32_t>(kernel);
        default: return run.template operator()<std::uint64_t>(kernel);
      }
    }
    // The host arithmetic below is IEEE 754 only in the default rounding mode.
    if (r == nullptr || p != NumericProfile::Ieee || std::fegetround() != FE_TONEAREST) return false;
    const auto host = [&](const auto* a, const auto* b, auto* out, std::size_t n) { host_float_span<Op>(e, a, b, out, n); };
    if (t == DataType::FP32) return run.template operator()<std::uint32_t>(host);
    if (t == DataType::FP64) return run.template operator()<std::uint64_t>(host);
    if (t == DataType::FP16)
      return run.template operator()<std::uint16_t>(
          [&](const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) {
            fp16_span<Op>(e, a, b, out, n);
          });
    if (t == DataType::BF16)
      return run.template operator()<std::uint16_t>(
          [&](const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) {
            bf16_span<Op>(e, a, b, out, n);
          });
    return false;
  } else {
    return false;
  }
}

bool span_binary_dispatch(Binary op, Tile& d, const Tile& l, const Tile* r, std::uint64_t scalar, NumericProfile p,
                          num::Flags& flags) {
  if (d.descriptor().layout != TileLayout::RowMajor || num::is_packed4(d.data_type())) return false;
  switch (op) {
    case Binary::ADD: return span_binary_op<Binary::ADD>(d, l, r, scalar, p, flags);
    case Binary::SUB: return span_binary_op<Binary::SUB>(d, l, r, scalar, p, flags);
    case Binary::MUL: return span_binary_op<Binary::MUL>(d, l, r, scalar, p, flags);
    case Binary::DIV: return span_binary_op<Binary::DIV>(d, l, r, scalar, p, flags);
    case Binary::MAX: return span_binary_op<Binary::MAX>(d, l, r, scalar, p, flags);
    case Binary::MIN: return span_binary_op<Binary::MIN>(d, l, r, scalar, p, flags);
    default: return false;
  }
}

}  // namespace

bool vec_arithmetic_data_type_supported(DataType t) noexcept {
  switch (t) {
    case DataType::FP64: case DataType::FP32: case DataType::TF32: case DataType::HF32:
    case DataType::FP16: case DataType::BF16: case DataType::E4M3: case DataType::E5M2:
    case DataType::S64: case DataType::S32: case DataType::S16: case DataType::S8:
    case DataType::U64: case DataType::U32: case DataType::U16: case DataType::U8: return true;
    default: return false;
  }
}

bool span_unary(ops::Unary op, Tile& destination, const Tile& source, NumericProfile profile, num::Flags& flags) {
  const DataType t = destination.data_type();
  if (op != ops::Unary::EXP || t != DataType::FP32 || profile != NumericProfile::Ieee ||
      destination.descriptor().layout != TileLayout::RowMajor || std::fegetround() != FE_TONEAREST)
    return false;
  const UnaryContext e{op, t, profile};
  flags = 0;
  for_each_span<std::uint32_t>(destination, source, [&](const std::uint32_t* a, std::uint32_t* out, std::size_t n) {
    flags |= exp_fp32_span(e, a, out, n);
  });
  return true;
}

bool span_binary(Binary op, Tile& destination, const Tile& left, const Tile& right, NumericProfile profile) {
  num::Flags ignored = 0;  // TileBinary records no flags
  return span_binary_dispatch(op, destination, left, &right, 0, profile, ignored);
}

bool span_scalar(Binary op, Tile& destination, const Tile& source, std::uint64_t scalar, NumericProfile profile,
                 num::Flags& flags) {
  return span_binary_dispatch(op, destination, source, nullptr, scalar, profile, flags);
}

}  // namespace pto::tile
