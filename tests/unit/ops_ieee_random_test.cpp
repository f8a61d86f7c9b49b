// Independent checks of every registered VEC/SFU kernel in the ieee
// profile: random tiles of several shapes, valid regions and types, compared
// with a plain host loop written here (host binary32/binary64/binary16
// arithmetic, a local BF16 rounding, C++ integer arithmetic).  Results are
// bit-exact except EXP/LOG/RSQRT (<= 1 ulp, docs/numerics.md bound).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstring>
#include <functional>
#include <random>
#include <vector>

#include "ops_harness.hpp"
#include "tile/ops_convert.hpp"
#include "tile/ops_elementwise.hpp"
#include "tile/ops_reduce.hpp"

namespace pto::tile::test {
namespace {

using isa::TileOp;
using ops::Binary;
using ops::Unary;

constexpr auto kIeee = NumericProfile::Ieee;

struct Shape {
  std::uint32_t columns, valid_rows, valid_columns, capacity;
};
// Several physical shapes and partial valid regions (capacity in bytes).
constexpr Shape kShapes[] = {{8, 1, 8, 256}, {16, 3, 13, 512}, {64, 5, 61, 4096}};

// ---- host references ----

constexpr std::uint32_t kFp32Nan = 0x7fc00000;
constexpr std::uint16_t kFp16Nan = 0x7e00;
constexpr std::uint16_t kBf16Nan = 0x7fc0;
constexpr std::uint64_t kFp64Nan = 0x7ff8000000000000ULL;

float f32(std::uint64_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b)); }
std::uint64_t bits32(float f) { return std::isnan(f) ? kFp32Nan : std::bit_cast<std::uint32_t>(f); }
double f64(std::uint64_t b) { return std::bit_cast<double>(b); }
std::uint64_t bits64(double d) { return std::isnan(d) ? kFp64Nan : std::bit_cast<std::uint64_t>(d); }
float f16(std::uint64_t b) { return host_fp16_to_float(static_cast<std::uint16_t>(b)); }
std::uint64_t bits16(float f) {
  return std::isnan(f) ? kFp16Nan : host_float_to_fp16(f);
}
float bf16(std::uint64_t b) { return std::bit_cast<float>(static_cast<std::uint32_t>(b << 16)); }
std::uint64_t bitsbf16(float f) {  // round to nearest even (normal-range results only)
  if (std::isnan(f)) return kBf16Nan;
  const std::uint32_t u = std::bit_cast<std::uint32_t>(f);
  return (u + 0x7FFF + ((u >> 16) & 1)) >> 16;
}

// A floating format as the host sees it.
struct HostFloat {
  DataType type;
  std::function<double(std::uint64_t)> decode;
  std::function<std::uint64_t(double)> encode;  // round once from an exact-enough host value
  std::function<std::uint64_t(std::mt19937_64&)> random;
  std::uint64_t canonical_nan;
  std::uint64_t sign;
};

std::uint64_t random_bits(std::mt19937_64& g, unsigned bits) {
  return bits == 64 ? g() : g() & ((std::uint64_t{1} << bits) - 1);
}

const HostFloat kFp32{DataType::FP32, [](std::uint64_t b) { return double{f32(b)}; },
                      [](double d) { return bits32(static_cast<float>(d)); },
                      [](std::mt19937_64& g) { return random_bits(g, 32); }, kFp32Nan, 0x80000000};
const HostFloat kFp16{DataType::FP16, [](std::uint64_t b) { return double{f16(b)}; },
                      [](double d) { return bits16(static_cast<float>(d)); },
                      [](std::mt19937_64& g) { return random_bits(g, 16); }, kFp16Nan, 0x8000};
// BF16 operands keep exponents in [112, 143] so results stay normal (one
// float rounding then one BF16 rounding is exact there).
const HostFloat kBf16{DataType::BF16, [](std::uint64_t b) { return double{bf16(b)}; },
                      [](double d) { return bitsbf16(static_cast<float>(d)); },
                      [](std::mt19937_64& g) {
                        const std::uint64_t e = 112 + g() % 32;
                        return (g() & 0x8000) | (e << 7) | (g() & 0x7F);
                      },
                      kBf16Nan, 0x8000};
const HostFloat kFp64{DataType::FP64, [](std::uint64_t b) { return f64(b); }, [](double d) { return bits64(d); },
                      [](std::mt19937_64& g) { return g(); }, kFp64Nan, 0x8000000000000000ULL};

// Host arithmetic of each binary op in the operand's own precision: FP16 and
// BF16 in binary32 (exact-then-round by the 2p+2 rule), FP32 in binary32,
// FP64 in binary64.
double host_binary(Binary op, DataType t, double a, double b) {
  if (t == DataType::FP64) {
    switch (op) {
      case Binary::ADD: return a + b;
      case Binary::SUB: return a - b;
      case Binary::MUL: return a * b;
      default: return a / b;
    }
  }
  const float x = static_cast<float>(a), y = static_cast<float>(b);
  switch (op) {
    case Binary::ADD: return x + y;
    case Binary::SUB: return x - y;
    case Binary::MUL: return x * y;
    default: return x / y;
  }
}

// ADR 0050 MIN/MAX in the test's own words.
std::uint64_t host_min_max(const HostFloat& f, bool maximum, std::uint64_t a, std::uint64_t b) {
  const double x = f.decode(a), y = f.decode(b);
  if (std::isnan(x) && std::isnan(y)) return f.canonical_nan;
  if (std::isnan(x)) return b;
  if (std::isnan(y)) return a;
  if (x == 0 && y == 0) {
    const bool a_negative = (a & f.sign) != 0;  // +0 wins MAX, -0 wins MIN
    if (maximum) return a_negative ? b : a;
    return a_negative ? a : b;
  }
  return (maximum ? x >= y : x <= y) ? a : b;
}

std::uint64_t host_float_binary(const HostFloat& f, Binary op, std::uint64_t a, std::uint64_t b) {
  if (op == Binary::MAX || op == Binary::MIN) return host_min_max(f, op == Binary::MAX, a, b);
  return f.encode(host_binary(op, f.type, f.decode(a), f.decode(b)));
}

// Integer semantics of asl/tile/model/execution/elementwise.asl in plain C++.
std::uint64_t host_integer_binary(Binary op, DataType t, std::uint64_t a, std::uint64_t b) {
  const unsigned w = element_bits(t);
  const std::uint64_t mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
  const bool s = data_type_is_signed_integer(t);
  auto sx = [&](std::uint64_t v) -> std::int64_t {
    v &= mask;
    if (s && w < 64 && (v >> (w - 1)) & 1) v |= ~mask;
    return static_cast<std::int64_t>(v);
  };
  const std::int64_t x = sx(a), y = sx(b);
  std::uint64_t r = 0;
  switch (op) {
    case Binary::ADD: r = a + b; break;
    case Binary::SUB: r = a - b; break;
    case Binary::MUL: r = a * b; break;
    case Binary::AND: r = a & b; break;
    case Binary::OR: r = a | b; break;
    case Binary::XOR: r = a ^ b; break;
    case Binary::SHL: r = (a & mask) << (b & (w - 1)); break;
    case Binary::SHR: r = s ? static_cast<std::uint64_t>(x >> (b & (w - 1))) : (a & mask) >> (b & (w - 1)); break;
    case Binary::MAX: r = s ? (x >= y ? a : b) : ((a & mask) >= (b & mask) ? a : b); break;
    case Binary::MIN: r = s ? (x <= y ? a : b) : ((a & mask) <= (b & mask) ? a : b); break;
    case Binary::DIV:
      if (!s) r = (a & mask) / (b & mask);
      else if (x == INT64_MIN && y == -1) r = static_cast<std::uint64_t>(x);
      else r = static_cast<std::uint64_t>(x / y);
      break;
    case Binary::REM:
      if (!s) {
        r = (a & mask) % (b & mask);
      } else if (y == -1) {
        r = 0;
      } else {
        std::int64_t m = x % y;  // floor modulo: the result takes the divisor's sign
        if (m != 0 && ((m < 0) != (y < 0))) m += y;
        r = static_cast<std::uint64_t>(m);
      }
      break;
  }
  return r & mask;
}

constexpr DataType kIntegerTypes[] = {DataType::S8,  DataType::U8,  DataType::S16, DataType::U16,
                                      DataType::S32, DataType::U32, DataType::S64, DataType::U64};

std::uint32_t type_bytes(DataType t) { return element_bits(t) / 8; }

// Capacity scaled for the element width so every shape fits.
std::uint32_t capacity_for(const Shape& s, DataType t) { return s.capacity * type_bytes(t); }

void configure_like(OpsHarness& h, TileIndex i, DataType t, const Shape& s) {
  h.configure(i, t, s.columns, s.valid_rows, s.valid_columns, capacity_for(s, t));
}

template <typename Gen>
void random_fill(OpsHarness& h, TileIndex i, Gen gen) {
  const TileDescriptor& d = h.tiles.tile(i).descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) h.set(i, r, c, gen());
}

// Checks destination 2 against expect(left, right) element by element (the
// right operand is tile 1 when it is allocated) and that the padding (Zero)
// is defined and zero.
template <typename Expect>
void check_binary(OpsHarness& h, const Shape& s, Expect expect, const char* what) {
  const bool right = h.tiles.tile(1).allocated();
  const bool left = h.tiles.tile(0).allocated();
  for (std::uint32_t r = 0; r < s.valid_rows; ++r)
    for (std::uint32_t c = 0; c < s.valid_columns; ++c)
      ASSERT_EQ(h.raw(2, r, c), expect(left ? h.raw(0, r, c) : 0, right ? h.raw(1, r, c) : 0))
          << what << " r" << r << " c" << c;
  const Tile& d = h.tiles.tile(2);
  EXPECT_TRUE(d.contents_defined()) << what;
  if (s.valid_columns < s.columns) {
    EXPECT_EQ(h.raw(2, 0, s.columns - 1), 0U) << what;
    EXPECT_TRUE(d.element_defined_at(0, s.columns - 1)) << what;
  }
}

TileOp tile_tile_op(Binary op) {
  switch (op) {
    case Binary::ADD: return TileOp::TADD;
    case Binary::SUB: return TileOp::TSUB;
    case Binary::MUL: return TileOp::TMUL;
    case Binary::DIV: return TileOp::TDIV;
    case Binary::REM: return TileOp::TREM;
    case Binary::MAX: return TileOp::TMAX;
    case Binary::MIN: return TileOp::TMIN;
    case Binary::AND: return TileOp::TAND;
    case Binary::OR: return TileOp::TOR;
    case Binary::XOR: return TileOp::TXOR;
    case Binary::SHL: return TileOp::TSHL;
    default: return TileOp::TSHR;
  }
}

TileOp tile_scalar_op(Binary op) {
  switch (op) {
    case Binary::ADD: return TileOp::TADDS;
    case Binary::SUB: return TileOp::TSUBS;
    case Binary::MUL: return TileOp::TMULS;
    case Binary::DIV: return TileOp::TDIVS;
    case Binary::REM: return TileOp::TREMS;
    case Binary::MAX: return TileOp::TMAXS;
    case Binary::MIN: return TileOp::TMINS;
    case Binary::AND: return TileOp::TANDS;
    case Binary::OR: return TileOp::TORS;
    case Binary::XOR: return TileOp::TXORS;
    case Binary::SHL: return TileOp::TSHLS;
    default: return TileOp::TSHRS;
  }
}

constexpr Binary kAllBinary[] = {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV, Binary::REM, Binary::MAX,
                                 Binary::MIN, Binary::AND, Binary::OR,  Binary::XOR, Binary::SHL, Binary::SHR};
constexpr Binary kFloatBinary[] = {Binary::SUB, Binary::MUL, Binary::DIV, Binary::MAX, Binary::MIN};

// ---------------------------------------------------------------- tile-tile

TEST(OpsIeeeRandom, IntegerTileTileBinary) {
  std::mt19937_64 g(1);
  for (Binary op : kAllBinary) {
    if (op == Binary::ADD) continue;  // TADD is the tile_ops.cpp reference kernel
    for (DataType t : kIntegerTypes)
      for (const Shape& s : kShapes) {
        OpsHarness h;
        for (TileIndex i = 0; i < 3; ++i) configure_like(h, i, t, s);
        const bool divides = op == Binary::DIV || op == Binary::REM;
        random_fill(h, 0, [&] { return random_bits(g, element_bits(t)); });
        random_fill(h, 1, [&] {
          const std::uint64_t v = random_bits(g, element_bits(t));
          return divides && v == 0 ? 1 : v;
        });
        ASSERT_TRUE(h.run(tile_tile_op(op), OpsHarness::operands(2, {0, 1}), kIeee, PadValue::Zero));
        check_binary(h, s, [&](std::uint64_t a, std::uint64_t b) { return host_integer_binary(op, t, a, b); },
                     num::name(t).data());
      }
  }
}

TEST(OpsIeeeRandom, FloatTileTileBinary) {
  std::mt19937_64 g(2);
  for (const HostFloat* f : {&kFp32, &kFp16, &kBf16, &kFp64})
    for (Binary op : kFloatBinary)
      for (const Shape& s : kShapes) {
        OpsHarness h;
        for (TileIndex i = 0; i < 3; ++i) configure_like(h, i, f->type, s);
        random_fill(h, 0, [&] { return f->random(g); });
        random_fill(h, 1, [&] { return f->random(g); });
        ASSERT_TRUE(h.run(tile_tile_op(op), OpsHarness::operands(2, {0, 1}), kIeee, PadValue::Zero));
        check_binary(h, s, [&](std::uint64_t a, std::uint64_t b) { return host_float_binary(*f, op, a, b); },
                     num::name(f->type).data());
      }
}

// The FP32 fast path recomputes NaN results exactly even when the
// destination aliases both sources.
TEST(OpsIeeeRandom, Fp32AliasedSourcesKeepCanonicalNaN) {
  OpsHarness h;
  h.configure(0, DataType::FP32, 4, 1, 4);
  h.fill(0, {0x7f800001, 0x3f800000, 0x7fc00001, 0xff800000});
  ASSERT_TRUE(h.run(TileOp::TSUB, OpsHarness::operands(0, {0, 0}), kIeee));
  EXPECT_EQ(h.raw(0, 0, 0), kFp32Nan);  // sNaN - sNaN
  EXPECT_EQ(h.raw(0, 0, 1), 0U);        // 1 - 1 = +0
  EXPECT_EQ(h.raw(0, 0, 2), kFp32Nan);
  EXPECT_EQ(h.raw(0, 0, 3), kFp32Nan);  // -inf - -inf
}

// --------------------------------------------------------------- tile-scalar

TEST(OpsIeeeRandom, IntegerTileScalar) {
  std::mt19937_64 g(3);
  for (Binary op : kAllBinary)
    for (DataType t : kIntegerTypes)
      for (const Shape& s : kShapes) {
        OpsHarness h;
        configure_like(h, 0, t, s);
        configure_like(h, 2, t, s);
        h.loop(t, s.valid_columns, s.valid_rows, s.columns);
        random_fill(h, 0, [&] { return random_bits(g, element_bits(t)); });
        std::uint64_t scalar = g();  // upper bits beyond the element are ignored
        if ((op == Binary::DIV || op == Binary::REM) && ops::raw_element_value(scalar, t) == 0) scalar |= 1;
        ASSERT_TRUE(h.run(tile_scalar_op(op), OpsHarness::operands(2, {0}, scalar), kIeee, PadValue::Zero));
        check_binary(h, s, [&](std::uint64_t a, std::uint64_t) { return host_integer_binary(op, t, a, scalar); },
                     num::name(t).data());
      }
}

TEST(OpsIeeeRandom, FloatTileScalar) {
  std::mt19937_64 g(4);
  for (const HostFloat* f : {&kFp32, &kFp16, &kBf16, &kFp64})
    for (Binary op : {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV, Binary::MAX, Binary::MIN})
      for (const Shape& s : kShapes) {
        OpsHarness h;
        configure_like(h, 0, f->type, s);
        configure_like(h, 2, f->type, s);
        h.loop(f->type, s.valid_columns, s.valid_rows, s.columns);
        random_fill(h, 0, [&] { return f->random(g); });
        const std::uint64_t scalar = f->random(g);
        ASSERT_TRUE(h.run(tile_scalar_op(op), OpsHarness::operands(2, {0}, scalar), kIeee, PadValue::Zero));
        check_binary(h, s, [&](std::uint64_t a, std::uint64_t) { return host_float_binary(*f, op, a, scalar); },
                     num::name(f->type).data());
      }
}

// ieee TREMS on floats: the exact truncated remainder (fmod).
TEST(OpsIeeeRandom, Fp32ScalarRemainderIsFmod) {
  std::mt19937_64 g(5);
  OpsHarness h;
  const Shape s{16, 3, 13, 512};
  configure_like(h, 0, DataType::FP32, s);
  configure_like(h, 2, DataType::FP32, s);
  h.loop(DataType::FP32, s.valid_columns, s.valid_rows, s.columns);
  random_fill(h, 0, [&] { return random_bits(g, 32); });
  const std::uint64_t scalar = std::bit_cast<std::uint32_t>(1.75f);
  ASSERT_TRUE(h.run(TileOp::TREMS, OpsHarness::operands(2, {0}, scalar), kIeee, PadValue::Zero));
  check_binary(h, s, [&](std::uint64_t a, std::uint64_t) { return bits32(std::fmod(f32(a), 1.75f)); }, "fmod");
}

TEST(OpsIeeeRandom, FillScalar) {
  for (DataType t : {DataType::U8, DataType::S16, DataType::FP32, DataType::U64}) {
    OpsHarness h;
    const Shape s{16, 3, 13, 512};
    configure_like(h, 2, t, s);
    ASSERT_TRUE(h.run(TileOp::TEXPANDS, OpsHarness::operands(2, {}, 0x0123456789abcdefULL), kIeee, PadValue::Zero));
    check_binary(h, s, [&](std::uint64_t, std::uint64_t) { return ops::raw_element_value(0x0123456789abcdefULL, t); },
                 num::name(t).data());
  }
}

// ---------------------------------------------------------------- unary

std::uint64_t host_integer_unary(Unary op, DataType t, std::uint64_t v) {
  const unsigned w = element_bits(t);
  const std::uint64_t mask = w == 64 ? ~0ULL : (1ULL << w) - 1;
  const bool negative = data_type_is_signed_integer(t) && ((v >> (w - 1)) & 1);
  switch (op) {
    case Unary::ABS: return (negative ? 0 - v : v) & mask;
    case Unary::NOT: return ~v & mask;
    case Unary::NEG: return (0 - v) & mask;
    default: return negative ? 0 : v & mask;
  }
}

void run_unary(OpsHarness& h, TileOp op, const Shape& s) {
  ASSERT_TRUE(h.run(op, OpsHarness::operands(2, {0}), kIeee, PadValue::Zero));
  EXPECT_TRUE(h.tiles.tile(2).contents_defined());
  (void)s;
}

TEST(OpsIeeeRandom, IntegerUnary) {
  std::mt19937_64 g(6);
  const std::pair<Unary, TileOp> cases[] = {
      {Unary::ABS, TileOp::TABS}, {Unary::NOT, TileOp::TNOT}, {Unary::NEG, TileOp::TNEG}, {Unary::RELU, TileOp::TRELU}};
  for (const auto& [op, tile_op] : cases)
    for (DataType t : kIntegerTypes)
      for (const Shape& s : kShapes) {
        OpsHarness h;
        configure_like(h, 0, t, s);
        configure_like(h, 2, t, s);
        random_fill(h, 0, [&] { return random_bits(g, element_bits(t)); });
        run_unary(h, tile_op, s);
        for (std::uint32_t r = 0; r < s.valid_rows; ++r)
          for (std::uint32_t c = 0; c < s.valid_columns; ++c)
            ASSERT_EQ(h.raw(2, r, c), host_integer_unary(op, t, h.raw(0, r, c))) << num::name(t);
      }
}

// Units in the last place between two finite FP32 encodings of one sign.
std::uint64_t ulp_distance(std::uint64_t a, std::uint64_t b) { return a > b ? a - b : b - a; }

TEST(OpsIeeeRandom, FloatUnary) {
  std::mt19937_64 g(7);
  for (const HostFloat* f : {&kFp32, &kFp16, &kBf16}) {
    for (const Shape& s : kShapes) {
      OpsHarness h;
      configure_like(h, 0, f->type, s);
      configure_like(h, 2, f->type, s);
      random_fill(h, 0, [&] { return f->random(g); });
      run_unary(h, TileOp::TABS, s);
      for (std::uint32_t c = 0; c < s.valid_columns; ++c)
        ASSERT_EQ(h.raw(2, 0, c), h.raw(0, 0, c) & ~f->sign);
      run_unary(h, TileOp::TNEG, s);
      for (std::uint32_t c = 0; c < s.valid_columns; ++c)
        ASSERT_EQ(h.raw(2, 0, c), h.raw(0, 0, c) ^ f->sign);
      run_unary(h, TileOp::TRELU, s);
      for (std::uint32_t c = 0; c < s.valid_columns; ++c) {
        const double x = f->decode(h.raw(0, 0, c));
        const std::uint64_t expected = std::isnan(x) ? f->canonical_nan : x > 0 ? h.raw(0, 0, c) : 0;
        ASSERT_EQ(h.raw(2, 0, c), expected);
      }
      // Correctly rounded SQRT and RECIP.
      run_unary(h, TileOp::TSQRT, s);
      for (std::uint32_t c = 0; c < s.valid_columns; ++c)
        ASSERT_EQ(h.raw(2, 0, c), f->encode(std::sqrt(static_cast<float>(f->decode(h.raw(0, 0, c))))))
            << num::name(f->type) << " sqrt of " << h.raw(0, 0, c);
      run_unary(h, TileOp::TRECIP, s);
      for (std::uint32_t c = 0; c < s.valid_columns; ++c)
        ASSERT_EQ(h.raw(2, 0, c), f->encode(1.0f / static_cast<float>(f->decode(h.raw(0, 0, c)))))
            << num::name(f->type) << " recip of " << h.raw(0, 0, c);
    }
  }
}

// EXP, LOG and RSQRT of positive finite FP32 inputs within one ulp of the
// binary64 host result rounded to binary32.
TEST(OpsIeeeRandom, Fp32TranscendentalWithinOneUlp) {
  std::mt19937_64 g(8);
  std::uniform_real_distribution<float> exp_arg(-80.0f, 80.0f), positive(1e-30f, 1e30f);
  const Shape s{64, 5, 61, 4096};
  struct Case {
    TileOp op;
    std::function<float()> input;
    double (*host)(double);
  };
  const Case cases[] = {{TileOp::TEXP, [&] { return exp_arg(g); }, [](double x) { return std::exp(x); }},
                        {TileOp::TLOG, [&] { return positive(g); }, [](double x) { return std::log(x); }},
                        {TileOp::TRSQRT, [&] { return positive(g); }, [](double x) { return 1.0 / std::sqrt(x); }}};
  for (const Case& k : cases) {
    OpsHarness h;
    configure_like(h, 0, DataType::FP32, s);
    configure_like(h, 2, DataType::FP32, s);
    random_fill(h, 0, [&] { return std::bit_cast<std::uint32_t>(k.input()); });
    run_unary(h, k.op, s);
    for (std::uint32_t r = 0; r < s.valid_rows; ++r)
      for (std::uint32_t c = 0; c < s.valid_columns; ++c) {
        const std::uint64_t expected = bits32(static_cast<float>(k.host(f32(h.raw(0, r, c)))));
        ASSERT_LE(ulp_distance(h.raw(2, r, c), expected), 1U) << static_cast<unsigned>(k.op) << " of " << f32(h.raw(0, r, c));
      }
  }
}

// ------------------------------------------------------------------- TFMA

TEST(OpsIeeeRandom, FusedMultiplyAdd) {
  std::mt19937_64 g(9);
  for (const Shape& s : kShapes) {
    OpsHarness h;
    for (TileIndex i = 0; i < 4; ++i) configure_like(h, i, DataType::FP32, s);
    for (TileIndex i = 0; i < 3; ++i) random_fill(h, i, [&] { return random_bits(g, 32); });
    ASSERT_TRUE(h.run(TileOp::TFMA, OpsHarness::operands(3, {0, 1, 2}), kIeee));
    for (std::uint32_t r = 0; r < s.valid_rows; ++r)
      for (std::uint32_t c = 0; c < s.valid_columns; ++c)
        ASSERT_EQ(h.raw(3, r, c), bits32(std::fma(f32(h.raw(0, r, c)), f32(h.raw(1, r, c)), f32(h.raw(2, r, c)))));
  }
  for (DataType t : kIntegerTypes) {
    OpsHarness h;
    const Shape s{16, 3, 13, 512};
    for (TileIndex i = 0; i < 4; ++i) configure_like(h, i, t, s);
    for (TileIndex i = 0; i < 3; ++i) random_fill(h, i, [&] { return random_bits(g, element_bits(t)); });
    ASSERT_TRUE(h.run(TileOp::TFMA, OpsHarness::operands(3, {0, 1, 2}), kIeee));
    const std::uint64_t mask = element_bits(t) == 64 ? ~0ULL : (1ULL << element_bits(t)) - 1;
    for (std::uint32_t c = 0; c < s.valid_columns; ++c)
      ASSERT_EQ(h.raw(3, 1, c), (h.raw(0, 1, c) * h.raw(1, 1, c) + h.raw(2, 1, c)) & mask) << num::name(t);
  }
}

// ------------------------------------------------------------- reductions

struct ReductionCase {
  TileOp row, column;
  Binary step;
  bool identity, arg;
};

constexpr ReductionCase kReductions[] = {
    {TileOp::TROWSUM, TileOp::TCOLSUM, Binary::ADD, true, false},
    {TileOp::TROWPROD, TileOp::TCOLPROD, Binary::MUL, true, false},
    {TileOp::TROWMAX, TileOp::TCOLMAX, Binary::MAX, false, false},
    {TileOp::TROWMIN, TileOp::TCOLMIN, Binary::MIN, false, false},
    {TileOp::TROWARGMAX, TileOp::TCOLARGMAX, Binary::MAX, false, true},
    {TileOp::TROWARGMIN, TileOp::TCOLARGMIN, Binary::MIN, false, true},
};

// Sequential fold in index order with the test's own step function.
template <typename Step>
std::uint64_t host_fold(const std::vector<std::uint64_t>& v, std::uint64_t init, bool identity, bool arg, Step step) {
  std::uint64_t acc = identity ? init : v[0];
  std::uint64_t index = 0;
  for (std::size_t i = identity ? 0 : 1; i < v.size(); ++i) {
    const std::uint64_t next = step(acc, v[i]);
    if (next == v[i] && next != acc) index = i;
    acc = next;
  }
  return arg ? index : acc;
}

template <typename Step>
void check_reductions(DataType t, std::uint64_t one, std::function<std::uint64_t()> gen, Step step_of) {
  for (const ReductionCase& k : kReductions) {
    if (k.arg && !ops::a9_type(t)) continue;
    for (bool row_axis : {true, false})
      for (const Shape& s : kShapes) {
        OpsHarness h;
        configure_like(h, 0, t, s);
        const DataType dt = k.arg ? DataType::U32 : t;
        if (row_axis) h.configure(1, dt, 1, s.valid_rows, 1, 256);
        else h.configure(1, dt, s.columns, 1, s.valid_columns, capacity_for(s, DataType::U64));
        random_fill(h, 0, gen);
        ASSERT_TRUE(h.run(row_axis ? k.row : k.column, OpsHarness::operands(1, {0}), kIeee, PadValue::Zero))
            << num::name(t);
        const std::uint32_t outer = row_axis ? s.valid_rows : s.valid_columns;
        const std::uint32_t inner = row_axis ? s.valid_columns : s.valid_rows;
        for (std::uint32_t o = 0; o < outer; ++o) {
          std::vector<std::uint64_t> values;
          for (std::uint32_t i = 0; i < inner; ++i) values.push_back(row_axis ? h.raw(0, o, i) : h.raw(0, i, o));
          const std::uint64_t init = k.step == Binary::ADD ? 0 : one;
          const std::uint64_t expected = host_fold(values, init, k.identity, k.arg, step_of(k.step));
          ASSERT_EQ(row_axis ? h.raw(1, o, 0) : h.raw(1, 0, o), expected)
              << num::name(t) << " op " << static_cast<unsigned>(k.row) << (row_axis ? " row " : " column ") << o;
        }
      }
  }
}

TEST(OpsIeeeRandom, IntegerReductions) {
  std::mt19937_64 g(10);
  for (DataType t : kIntegerTypes)
    check_reductions(t, 1, [&] { return random_bits(g, element_bits(t)); }, [t](Binary op) {
      return [op, t](std::uint64_t a, std::uint64_t b) { return host_integer_binary(op, t, a, b); };
    });
}

TEST(OpsIeeeRandom, FloatReductions) {
  std::mt19937_64 g(11);
  const std::pair<const HostFloat*, std::uint64_t> formats[] = {{&kFp32, 0x3f800000}, {&kFp16, 0x3c00}, {&kFp64, 0x3ff0000000000000ULL}};
  for (const auto& [f, one] : formats)
    check_reductions(f->type, one, [&, f = f] { return f->random(g); }, [f = f](Binary op) {
      return [op, f](std::uint64_t a, std::uint64_t b) { return host_float_binary(*f, op, a, b); };
    });
}

// ------------------------------------------------------------- expansions

struct ExpandOp {
  TileOp row, column;
  int kind;  // 0 COPY, 1 binary, 2 EXPDIF
  Binary op;
};

constexpr ExpandOp kExpands[] = {
    {TileOp::TROWEXPAND, TileOp::TCOLEXPAND, 0, Binary::ADD},
    {TileOp::TROWEXPANDADD, TileOp::TCOLEXPANDADD, 1, Binary::ADD},
    {TileOp::TROWEXPANDSUB, TileOp::TCOLEXPANDSUB, 1, Binary::SUB},
    {TileOp::TROWEXPANDMUL, TileOp::TCOLEXPANDMUL, 1, Binary::MUL},
    {TileOp::TROWEXPANDDIV, TileOp::TCOLEXPANDDIV, 1, Binary::DIV},
    {TileOp::TROWEXPANDMAX, TileOp::TCOLEXPANDMAX, 1, Binary::MAX},
    {TileOp::TROWEXPANDMIN, TileOp::TCOLEXPANDMIN, 1, Binary::MIN},
};

template <typename Expect>
void check_expansion(DataType t, const ExpandOp& k, bool row_axis, std::function<std::uint64_t()> gen, Expect expect) {
  const Shape s{16, 3, 13, 512};
  OpsHarness h;
  configure_like(h, 0, t, s);
  if (row_axis) h.configure(1, t, 1, s.valid_rows, 1, 128);
  else configure_like(h, 1, t, Shape{s.columns, 1, s.valid_columns, s.capacity});
  configure_like(h, 2, t, s);
  h.loop(t, s.valid_columns, s.valid_rows, s.columns);
  random_fill(h, 0, gen);
  random_fill(h, 1, gen);
  const TileOperands o = k.kind == 0 ? OpsHarness::operands(2, {1}) : OpsHarness::operands(2, {0, 1});
  ASSERT_TRUE(h.run(row_axis ? k.row : k.column, o, kIeee, PadValue::Zero)) << num::name(t);
  for (std::uint32_t r = 0; r < s.valid_rows; ++r)
    for (std::uint32_t c = 0; c < s.valid_columns; ++c) {
      const std::uint64_t b = row_axis ? h.raw(1, r, 0) : h.raw(1, 0, c);
      ASSERT_EQ(h.raw(2, r, c), k.kind == 0 ? b : expect(k.op, h.raw(0, r, c), b))
          << num::name(t) << " op " << static_cast<unsigned>(k.row) << (row_axis ? " row" : " column");
    }
}

TEST(OpsIeeeRandom, Expansions) {
  std::mt19937_64 g(12);
  for (const ExpandOp& k : kExpands)
    for (bool row_axis : {true, false}) {
      for (DataType t : kIntegerTypes)
        check_expansion(t, k, row_axis, [&] {
          const std::uint64_t v = random_bits(g, element_bits(t));
          return v == 0 ? 1 : v;  // integer DIV requires nonzero broadcast elements
        }, [t](Binary op, std::uint64_t a, std::uint64_t b) { return host_integer_binary(op, t, a, b); });
      for (const HostFloat* f : {&kFp32, &kBf16})
        check_expansion(f->type, k, row_axis, [&] { return f->random(g); },
                        [f](Binary op, std::uint64_t a, std::uint64_t b) { return host_float_binary(*f, op, a, b); });
    }
}

// EXPDIF: exp(left - broadcast) for FP32 within one ulp, and the mixed
// FP16 -> FP32 form (exact widening, FP32 subtraction).
TEST(OpsIeeeRandom, ExponentialDifference) {
  std::mt19937_64 g(13);
  std::uniform_real_distribution<float> arg(-40.0f, 40.0f);
  for (bool row_axis : {true, false})
    for (DataType source : {DataType::FP32, DataType::FP16}) {
      const Shape s{16, 3, 13, 512};
      OpsHarness h;
      configure_like(h, 0, source, s);
      if (row_axis) h.configure(1, source, 1, s.valid_rows, 1, 128);
      else configure_like(h, 1, source, Shape{s.columns, 1, s.valid_columns, s.capacity});
      configure_like(h, 2, DataType::FP32, s);
      const auto encode = [&](float x) -> std::uint64_t {
        return source == DataType::FP32 ? std::bit_cast<std::uint32_t>(x) : bits16(x);
      };
      const auto decode = [&](std::uint64_t b) { return source == DataType::FP32 ? f32(b) : f16(b); };
      random_fill(h, 0, [&] { return encode(arg(g)); });
      random_fill(h, 1, [&] { return encode(arg(g)); });
      ASSERT_TRUE(h.run(row_axis ? TileOp::TROWEXPANDEXPDIF : TileOp::TCOLEXPANDEXPDIF,
                        OpsHarness::operands(2, {0, 1}), kIeee));
      for (std::uint32_t r = 0; r < s.valid_rows; ++r)
        for (std::uint32_t c = 0; c < s.valid_columns; ++c) {
          const float b = decode(row_axis ? h.raw(1, r, 0) : h.raw(1, 0, c));
          const float difference = decode(h.raw(0, r, c)) - b;  // exact-then-round FP32 subtraction
          const std::uint64_t expected = bits32(static_cast<float>(std::exp(double{difference})));
          ASSERT_LE(ulp_distance(h.raw(2, r, c), expected), 1U) << num::name(source);
        }
    }
}

// ------------------------------------------------------------------- TCVT

void convert_and_check(DataType from, DataType to, std::function<std::uint64_t(std::mt19937_64&)> gen,
                       std::function<std::uint64_t(std::uint64_t)> host) {
  std::mt19937_64 g(14);
  for (const Shape& s : kShapes) {
    OpsHarness h;
    configure_like(h, 0, from, s);
    configure_like(h, 2, to, s);
    random_fill(h, 0, [&] { return gen(g); });
    ASSERT_TRUE(h.run(TileOp::TCVT, OpsHarness::operands(2, {0}), kIeee, PadValue::Zero));
    for (std::uint32_t r = 0; r < s.valid_rows; ++r)
      for (std::uint32_t c = 0; c < s.valid_columns; ++c)
        ASSERT_EQ(h.raw(2, r, c), host(h.raw(0, r, c))) << num::name(from) << "->" << num::name(to) << " of " << h.raw(0, r, c);
    EXPECT_TRUE(h.tiles.tile(2).contents_defined());
  }
}

TEST(OpsIeeeRandom, ConvertFp32ToBf16AndFp16) {
  convert_and_check(DataType::FP32, DataType::BF16, [](std::mt19937_64& g) { return random_bits(g, 32); },
                    [](std::uint64_t v) { return bitsbf16(f32(v)); });
  convert_and_check(DataType::FP32, DataType::FP16, [](std::mt19937_64& g) { return random_bits(g, 32); },
                    [](std::uint64_t v) { return bits16(f32(v)); });
}

TEST(OpsIeeeRandom, ConvertWideningAndIntegers) {
  convert_and_check(DataType::FP16, DataType::FP32, [](std::mt19937_64& g) { return random_bits(g, 16); },
                    [](std::uint64_t v) { return bits32(f16(v)); });
  convert_and_check(DataType::S32, DataType::FP32, [](std::mt19937_64& g) { return random_bits(g, 32); },
                    [](std::uint64_t v) { return bits32(static_cast<float>(static_cast<std::int32_t>(v))); });
  // FP32 -> S32 defaults to RTZ; inputs stay in range.
  convert_and_check(DataType::FP32, DataType::S32, [](std::mt19937_64& g) {
        return std::bit_cast<std::uint32_t>(std::uniform_real_distribution<float>(-2e9f, 2e9f)(g));
      },
      [](std::uint64_t v) { return static_cast<std::uint64_t>(static_cast<std::uint32_t>(static_cast<std::int32_t>(f32(v)))); });
  convert_and_check(DataType::S16, DataType::U8, [](std::mt19937_64& g) { return random_bits(g, 16); },
                    [](std::uint64_t v) { return v & 0xff; });
}

}  // namespace
}  // namespace pto::tile::test
