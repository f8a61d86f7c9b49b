#include "tile/tile_elementwise.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cfenv>
#include <cmath>
#include <cstring>
#include <span>
#include <type_traits>

#include "numerics/convert_span.hpp"
#include "numerics/f16c_span.hpp"
#include "numerics/format.hpp"
#include "numerics/simd_sfu.hpp"
#include "numerics/simd_span.hpp"
#include "tile/ops_elementwise.hpp"

namespace pto::tile {
namespace {

using ops::Binary;

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

// When the destination is a source, results are produced a chunk at a
// time into a local buffer, so the operands stay intact for the exact
// recomputation of the chunk's flagged elements (ChunkOutput).
constexpr std::size_t kChunk = 2048;

// Where a chunk's results are produced before the exact recomputations:
// straight into the destination, unless it is a source (tiles alias whole
// or not at all) whose operands the recomputations still read; then into a
// local buffer copied out afterwards.
template <typename T, std::size_t Chunk = kChunk>
class ChunkOutput {
 public:
  ChunkOutput(T* out, const T* a, const T* b) : out_(out), buffered_(out == a || out == b) {}
  T* at(std::size_t i) { return buffered_ ? buffer_.data() : out_ + i; }
  // How many of a span's n elements one piece takes: a chunk when
  // buffered, else all of them, so an unaliased span is one call of the
  // vector loop (a call a chunk cost about 5% of the TADD BF16 ieee kernel,
  // perf, 64 KiB tiles).
  std::size_t piece(std::size_t n) const { return buffered_ ? Chunk : n; }
  void commit(std::size_t i, std::size_t m) {
    if (buffered_) std::memcpy(out_ + i, buffer_.data(), m * sizeof(T));
  }

 private:
  T* out_;
  bool buffered_;
  std::array<T, Chunk> buffer_;
};

// Calls f(i, m, z) for consecutive pieces [i, i + m) of an n-element span
// (ChunkOutput::piece), z where the piece's results go, and commits each.
template <typename T, std::size_t Chunk, typename F>
void for_each_piece(ChunkOutput<T, Chunk>& sink, std::size_t n, F f) {
  const std::size_t piece = sink.piece(n);
  for (std::size_t i = 0; i < n; i += piece) {
    const std::size_t m = std::min(piece, n - i);
    f(i, m, sink.at(i));
    sink.commit(i, m);
  }
}

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

// ieee FP32/FP64 ADD/SUB/MUL/DIV on the host: binary32/binary64 arithmetic
// in the default environment (round to nearest even, no flush to zero) is
// the IEEE 754 operation, bit for bit, except that NaN results carry host
// payloads where PTO returns the canonical NaN; those are recomputed.
template <Binary Op, typename T>
PTO_NUM_CLONES void host_float_span(ElementContext& e, const T* a, const T* b, T* out, std::size_t n) {
  using F = std::conditional_t<sizeof(T) == 4, float, double>;
  const T inf = static_cast<T>(infinity_bits(e.type));
  // A plain loop, not for_each_piece: a lambda would leave this clone's
  // target and the loop unvectorised (TADD FP32 ieee 0.50 -> 0.21).
  ChunkOutput<T> sink(out, a, b);
  const std::size_t piece = sink.piece(n);
  for (std::size_t i = 0; i < n; i += piece) {
    const std::size_t m = std::min(piece, n - i);
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

// ieee ADD/SUB/MUL/DIV by a scalar with the operation's flags (TADDS..TDIVS
// record them), FP32/FP64/FP16/BF16: the host computes the span in binary32
// or binary64, a chunk a call, and its MXCSR records the IEEE flags
// (num::simd::HostFlagScope, one for the span; docs/numerics.md, fast
// paths).  `host` is the num::simd *_scalar_with_flags function of the
// type; the elements `special` picks (a superset of those its report
// covers: NaN results, whose PTO encoding is the canonical NaN, and the
// type's lanes whose host flags may fall short) are recomputed exactly,
// their exact flags joining the span's, the host's flags taken before and
// cleared after (the exact path's own host arithmetic, if any, must not
// count).  `host_mask` keeps the host flags the type trusts (BF16: not UF).
template <typename T, typename Host, typename Special>
void host_flags_span(ElementContext& e, Host host, Special special, num::Flags host_mask, T scalar, const T* a, T* out,
                     std::size_t n) {
  ChunkOutput<T> sink(out, a, a);
  num::simd::HostFlagScope scope;
  num::Flags host_flags = 0;
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    T* z = sink.at(i);
    const num::simd::HostFlags r = *host(a + i, scalar, z, m);  // the dispatcher checked availability
    e.flags |= r.flags;
    if (r.special) {
      host_flags |= scope.take();
      for (std::size_t j = 0; j < m; ++j)
        if (special(z[j])) z[j] = e.exact(a[i + j], scalar);
      (void)scope.take();
    }
    sink.commit(i, m);
  }
  e.flags |= (host_flags | scope.take()) & host_mask;
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

// A BF16 result of the flagged path with exponent field 0, 1 or all ones
// (num::simd::bf16_scalar_with_flags: its `special` elements).
constexpr bool bf16_special_result(std::uint16_t h) noexcept {
  const unsigned field = h & 0x7F80U;
  return field <= 0x0080U || field == 0x7F80U;
}

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
  for_each_piece(sink, n, [&](std::size_t i, std::size_t m, std::uint16_t* z) {
    if (num::f16c::binary_via_fp32(half_op(Op), a + i, b + i, z, m))  // a NaN narrows to a NaN
      for (std::size_t j = 0; j < m; ++j)
        if (is_nan_bits(z[j], std::uint16_t{0x7c00})) z[j] = e.exact(a[i + j], b[i + j]);
  });
}

// The binary32 result of a BF16 operation: BF16 is the top half of binary32.
template <Binary Op>
std::uint32_t bf16_wide(std::uint16_t a, std::uint16_t b) noexcept {
  return std::bit_cast<std::uint32_t>(
      host_op<Op>(std::bit_cast<float>(std::uint32_t{a} << 16), std::bit_cast<float>(std::uint32_t{b} << 16)));
}

// BF16: widening is a shift and RNE narrowing a carry-add (exact for every
// result not recomputed), in num::simd's AVX2 or portable loop; the rare
// flagged chunks redo the binary32 operation to find their elements.
template <Binary Op>
void bf16_span(ElementContext& e, const std::uint16_t* a, const std::uint16_t* b, std::uint16_t* out, std::size_t n) {
  ChunkOutput<std::uint16_t> sink(out, a, b);
  for_each_piece(sink, n, [&](std::size_t i, std::size_t m, std::uint16_t* z) {
    if (num::simd::bf16_binary_via_fp32(half_op(Op), a + i, b + i, z, m))
      for (std::size_t j = 0; j < m; ++j)
        if (bf16_needs_exact(bf16_wide<Op>(a[i + j], b[i + j]))) z[j] = e.exact(a[i + j], b[i + j]);
  });
}

// MAX/MIN, both profiles (num::ieee_min_max): num::simd::min_max (ADR
// 0050 order of the non-NaN operands); pairs holding a NaN are recomputed.
template <Binary Op, typename T>
void min_max_span(ElementContext& e, const T* a, const T* b, T* out, std::size_t n) {
  const T inf = static_cast<T>(infinity_bits(e.type));
  // Chunks even when unaliased: one call for the whole run measured 2-3%
  // slower for the 16-bit types (five interleaved runs, 64 KiB tiles).
  ChunkOutput<T> sink(out, a, b);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    T* z = sink.at(i);
    if (num::simd::min_max(Op == Binary::MAX, inf, a + i, b + i, z, m))
      for (std::size_t j = 0; j < m; ++j)
        if (is_nan_bits(a[i + j], inf) || is_nan_bits(b[i + j], inf)) z[j] = e.exact(a[i + j], b[i + j]);
    sink.commit(i, m);
  }
}

// ---- TEXP ----

struct UnaryContext {
  ops::Unary op;
  DataType type;
  NumericProfile profile;
  num::Flags flags = 0;  // of the elements recomputed exactly
  template <typename T>
  T exact(T v) {
    const num::Result r = ops::sfu_element(op, type, v, profile);
    flags |= r.flags;
    return static_cast<T>(r.bits);
  }
};

// FP32, ieee profile: num::simd::exp_fp32 (binary32 evaluation, then
// binary64 for the elements it leaves open) marks every element whose
// binary32 rounding it cannot vouch for (outside 0 < |x| <= 87, or too near
// a midpoint: about one in 2^18); the exact path (80-bit evaluation, error
// below 2^-62 before its one rounding, docs/numerics.md) recomputes those.
// Every other element rounds as the exact path does, to a normal, inexact
// result: its only flag is NX.  Chunks of 8192: the binary64 evaluation
// runs once per chunk on the few open lanes (about one in 500), so fewer,
// fuller calls keep its vectors busy.
constexpr std::size_t kExpChunk = 8192;

void exp_fp32_span(UnaryContext& e, const std::uint32_t* a, std::uint32_t* out, std::size_t n) {
  std::array<std::uint64_t, kExpChunk / 64> slow;
  ChunkOutput<std::uint32_t, kExpChunk> sink(out, a, a);
  for (std::size_t i = 0; i < n; i += kExpChunk) {
    const std::size_t m = std::min(kExpChunk, n - i);
    std::uint32_t* z = sink.at(i);
    std::size_t slow_count = 0;
    if (num::simd::exp_fp32(a + i, z, slow.data(), m))
      for (std::size_t w = 0; w < (m + 63) / 64; ++w)
        for (std::uint64_t bits = slow[w]; bits != 0; bits &= bits - 1) {
          const std::size_t j = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
          z[j] = e.exact(a[i + j]);
          ++slow_count;
        }
    if (slow_count < m) e.flags |= num::kNX;  // some element took a fast evaluation
    sink.commit(i, m);
  }
}

// FP32 TSQRT/TRECIP/TRSQRT/TLOG, ieee profile: num::simd::root_fp32 (the host's
// correctly rounded square root or division; RSQRT and LOG in binary64) marks every
// element outside its fast range or too near a rounding boundary
// (docs/numerics.md); the exact path recomputes those.  The
// other elements round as the exact path does, to normal results whose
// only flag is NX, raised when one of them was inexact.
void root_fp32_span(UnaryContext& e, const std::uint32_t* a, std::uint32_t* out, std::size_t n) {
  const num::simd::RootOp op = e.op == ops::Unary::SQRT    ? num::simd::RootOp::SQRT
                               : e.op == ops::Unary::RECIP ? num::simd::RootOp::RECIP
                               : e.op == ops::Unary::LOG   ? num::simd::RootOp::LOG
                                                           : num::simd::RootOp::RSQRT;
  std::array<std::uint64_t, kChunk / 64 + 1> slow;
  ChunkOutput<std::uint32_t> sink(out, a, a);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    std::uint32_t* z = sink.at(i);
    const num::simd::RootSummary s = num::simd::root_fp32(op, a + i, z, slow.data(), m);
    if (s.slow)
      for (std::size_t w = 0; w < (m + 63) / 64; ++w)
        for (std::uint64_t bits = slow[w]; bits != 0; bits &= bits - 1) {
          const std::size_t j = w * 64 + static_cast<std::size_t>(std::countr_zero(bits));
          z[j] = e.exact(a[i + j]);
        }
    if (s.inexact) e.flags |= num::kNX;
    sink.commit(i, m);
  }
}

// Reference profile, IEEE-like formats: TileSFUUnarySpecialValue for zero,
// negative, infinite and NaN operands, else the profile's TileExponential,
// value + 1 on the carrier (asl/arch/profile/reference-profile.asl).  One
// loop adds and scans; a chunk holding a special operand (v - 1 wraps or
// reaches inf - 1) is recomputed element by element.
template <typename T>
PTO_NUM_CLONES void reference_exp_span(UnaryContext& e, const T* a, T* out, std::size_t n) {
  const T inf = static_cast<T>(infinity_bits(e.type));
  ChunkOutput<T> sink(out, a, a);
  for (std::size_t i = 0; i < n; i += kChunk) {
    const std::size_t m = std::min(kChunk, n - i);
    T* z = sink.at(i);
    T special = 0;  // no short circuit: the loop vectorises
    for (std::size_t j = 0; j < m; ++j) {
      const T v = a[i + j];
      z[j] = static_cast<T>(v + 1);
      special |= static_cast<T>(static_cast<T>(v - 1) >= static_cast<T>(inf - 1));
    }
    if (special)
      for (std::size_t j = 0; j < m; ++j) z[j] = e.exact(a[i + j]);
    sink.commit(i, m);
  }
}

// The valid region of a RowMajor tile as runs of (source, destination).
template <typename T, typename F>
void for_each_span(Tile& destination, const Tile& source, F f) {
  const T* a = source.row_data<T>(0);
  T* out = destination.row_data<T>(0);
  for_each_valid_run(destination.descriptor(), [&](std::size_t first, std::size_t n) { f(a + first, out + first, n); });
}

// ---- dispatch ----

constexpr auto kEveryFlag = static_cast<num::Flags>(num::kNV | num::kDZ | num::kOF | num::kUF | num::kNX);

// TADDS..TDIVS (ieee, default host rounding): host_flags_span for the
// type, false (the exact path) where the host lacks the loop.
template <Binary Op>
bool host_flags_op(Tile& d, const Tile& l, std::uint64_t scalar, ElementContext& e, num::Flags& flags) {
  constexpr num::f16c::Op op = half_op(Op);
  const DataType t = e.type;
  const auto run = [&]<typename T>(auto host, auto special, num::Flags host_mask = kEveryFlag) {
    for_each_span<T>(d, l, [&](const T* a, T* out, std::size_t n) {
      host_flags_span<T>(e, host, special, host_mask, static_cast<T>(scalar), a, out, n);
    });
    flags = e.flags;
    return true;
  };
  if (!num::simd::host_flags_available()) return false;
  if (t == DataType::FP32 || t == DataType::FP64) {
    const auto wide = [&]<typename T>() {
      const T inf = static_cast<T>(infinity_bits(t));
      return run.template operator()<T>(
          [](const T* a, T y, T* out, std::size_t n) { return num::simd::scalar_with_flags(op, a, y, out, n); },
          [inf](T z) { return is_nan_bits(z, inf); });
    };
    return t == DataType::FP32 ? wide.template operator()<std::uint32_t>() : wide.template operator()<std::uint64_t>();
  }
  using H = std::uint16_t;
  if (t == DataType::FP16 && num::f16c::available())
    return run.template operator()<H>(
        [](const H* a, H y, H* out, std::size_t n) { return num::simd::fp16_scalar_with_flags(op, a, y, out, n); },
        [](H z) { return is_nan_bits(z, H{0x7C00}); });
  if (t == DataType::BF16 && num::simd::avx2_available())
    return run.template operator()<H>(
        [](const H* a, H y, H* out, std::size_t n) { return num::simd::bf16_scalar_with_flags(op, a, y, out, n); },
        [](H z) { return bf16_special_result(z); }, static_cast<num::Flags>(kEveryFlag & ~num::kUF));
  return false;
}

// `r` null: the right operand is `scalar` (ExecuteTileScalar), whose
// flags the caller records: the ieee arithmetic takes host_flags_op
// instead of the flagless host loops.  `flags`: the recorded flags.
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
    if (p != NumericProfile::Ieee || std::fegetround() != FE_TONEAREST) return false;
    if (r == nullptr) return host_flags_op<Op>(d, l, scalar, e, flags);  // TADDS..TDIVS: flags recorded
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
  const bool root = (op == ops::Unary::SQRT || op == ops::Unary::RECIP || op == ops::Unary::RSQRT ||
                     op == ops::Unary::LOG) &&
                    t == DataType::FP32 && profile == NumericProfile::Ieee;
  if ((op != ops::Unary::EXP && !root) || infinity_bits(t) == 0 ||
      destination.descriptor().layout != TileLayout::RowMajor)
    return false;
  UnaryContext e{op, t, profile};
  if (root) {
    if (std::fegetround() != FE_TONEAREST) return false;
    for_each_span<std::uint32_t>(destination, source, [&](const std::uint32_t* a, std::uint32_t* out, std::size_t n) {
      root_fp32_span(e, a, out, n);
    });
  } else if (profile == NumericProfile::Reference) {
    ops::visit_carrier(t, [&]<typename T>() {
      for_each_span<T>(destination, source, [&](const T* a, T* out, std::size_t n) { reference_exp_span<T>(e, a, out, n); });
    });
  } else if (t == DataType::FP32 && std::fegetround() == FE_TONEAREST) {
    for_each_span<std::uint32_t>(destination, source, [&](const std::uint32_t* a, std::uint32_t* out, std::size_t n) {
      exp_fp32_span(e, a, out, n);
    });
  } else {
    return false;
  }
  flags = e.flags;
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
