// DataType table (tile-data-types.asl), selector namespaces, reference
// profile (reference-profile.asl) and bulk-span consistency.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <vector>

#include "numerics/convert_span.hpp"
#include "numerics/profile.hpp"

using namespace pto::num;

TEST(NumericsDataTypes, CodesNamesWidths) {
  // Code assignment from PTO-FIELD-BLOCK-DATATYPE.
  const std::pair<const char*, unsigned> expected[] = {
      {"FP64", 0},    {"FP32", 1},    {"TF32", 2},  {"HF32", 3},    {"FP16", 4},  {"BF16", 5},  {"HiF8", 6},
      {"E4M3", 7},    {"E5M2", 8},    {"E3M2", 9},  {"E2M3", 10},   {"E2M1X2", 11}, {"E1M2X2", 12}, {"E8M0", 13},
      {"HiF4X2", 14}, {"S64", 16},    {"S32", 17},  {"S16", 18},    {"S8", 19},   {"S4X2", 20}, {"U64", 24},
      {"U32", 25},    {"U16", 26},    {"U8", 27},   {"U4X2", 28}};
  for (const auto& [n, c] : expected) {
    auto t = data_type_from_name(n);
    ASSERT_TRUE(t.has_value()) << n;
    EXPECT_EQ(code_of(*t), c);
    EXPECT_EQ(name(*t), n);
    EXPECT_EQ(data_type_from_code(static_cast<std::uint8_t>(c)), t);
  }
  for (unsigned c : {15U, 21U, 22U, 23U, 29U, 30U, 31U}) EXPECT_FALSE(data_type_from_code(static_cast<std::uint8_t>(c)));
  EXPECT_EQ(kDataTypeNoneCode, 31);
  EXPECT_EQ(data_type_from_name_ci("hif8"), DataType::HiF8);
  EXPECT_FALSE(data_type_from_name("hif8"));
  EXPECT_EQ(element_width(DataType::E3M2), 6U);
  EXPECT_EQ(carrier_bits(DataType::E3M2), 8U);
  EXPECT_EQ(element_width(DataType::E2M1X2), 4U);
  EXPECT_TRUE(is_packed4(DataType::S4X2));
  EXPECT_FALSE(is_packed4(DataType::E8M0));
  EXPECT_TRUE(is_float(DataType::E8M0));
  EXPECT_TRUE(is_scale(DataType::E8M0));
  EXPECT_FALSE(is_signed(DataType::U8));
  EXPECT_TRUE(is_signed(DataType::S8));
  EXPECT_EQ(packed4_set(0xAB, 1, 0x3), 0x3B);
  EXPECT_EQ(packed4_set(0xAB, 0, 0x3), 0xA3);
}

TEST(NumericsDataTypes, ClassificationBoundaries) {
  // HardwareNumericSubnormalBoundaries (mx-formats.asl).
  struct B { DataType t; std::uint64_t min_sub, max_sub, min_norm; };
  const B bs[] = {{DataType::FP64, 1, 0x000fffffffffffffULL, 0x0010000000000000ULL},
                  {DataType::FP32, 1, 0x007fffff, 0x00800000},
                  {DataType::TF32, 0x2000, 0x007fe000, 0x00800000},
                  {DataType::HF32, 0x1000, 0x007ff000, 0x00800000},
                  {DataType::FP16, 1, 0x3ff, 0x400},
                  {DataType::BF16, 1, 0x7f, 0x80},
                  {DataType::HiF8, 1, 7, 8},
                  {DataType::E4M3, 1, 7, 8},
                  {DataType::E5M2, 1, 3, 4},
                  {DataType::E3M2, 1, 3, 4},
                  {DataType::E2M3, 1, 7, 8}};
  for (const auto& b : bs) {
    EXPECT_EQ(classify(b.t, b.min_sub), ValueClass::PositiveSubnormal) << name(b.t);
    EXPECT_EQ(classify(b.t, b.max_sub), ValueClass::PositiveSubnormal) << name(b.t);
    EXPECT_EQ(classify(b.t, b.min_norm), ValueClass::PositiveNormal) << name(b.t);
  }
  EXPECT_EQ(classify(DataType::TF32, 0x3F800001), ValueClass::InvalidEncoding);
  EXPECT_EQ(classify(DataType::E3M2, 0x40), ValueClass::InvalidEncoding);
  EXPECT_EQ(classify(DataType::E4M3, 0xFF), ValueClass::QuietNaN);
  EXPECT_EQ(classify(DataType::E5M2, 0x7D), ValueClass::SignalingNaN);
  EXPECT_EQ(classify(DataType::E2M1X2, 0x1), ValueClass::PositiveNormal);  // no subnormal class
  EXPECT_EQ(classify(DataType::S8, 0x80), ValueClass::NegativeNormal);
  EXPECT_EQ(classify(DataType::U4X2, 0x0), ValueClass::PositiveZero);
  const auto d = decompose(DataType::HiF8, 0x6E);
  EXPECT_TRUE(d.available);
  EXPECT_EQ(static_cast<double>(d.significand) * std::ldexp(1.0, d.exponent), 32768.0);
}

TEST(NumericsDataTypes, FlagBitsAndSelectors) {
  EXPECT_EQ(kNV, 1);
  EXPECT_EQ(kDZ, 2);
  EXPECT_EQ(kOF, 4);
  EXPECT_EQ(kUF, 8);
  EXPECT_EQ(kNX, 16);
  EXPECT_EQ(flags_to_string(kOF | kNX), "OF|NX");
  EXPECT_EQ(decode_bundle_rmode(7).mode, RoundingMode::RHB);
  EXPECT_TRUE(decode_bundle_rmode(0).use_operation_default);
  EXPECT_EQ(resolve_bundle_rmode(0, false), RoundingMode::RNE);
  EXPECT_EQ(fixed_conversion_mode(FixedConversion::FCVTA), RoundingMode::RNA);
}

// reference-profile.asl placeholder semantics (raw carrier arithmetic).
TEST(NumericsReferenceProfile, RawCarrierHooks) {
  const auto& p = reference_profile();
  EXPECT_EQ(p.id(), "pto-v0");
  EXPECT_EQ(p.scalar_binary(BinaryOp::ADD, RoundingMode::RNE, 1, 0x3F800000, 0x3F800000).bits, 0x7F000000U);
  EXPECT_EQ(p.scalar_binary(BinaryOp::SUB, RoundingMode::RNE, 0, 1, 2).bits, ~0ULL);
  EXPECT_EQ(p.scalar_binary(BinaryOp::MUL, RoundingMode::RNE, 0, 1ULL << 63, 2).bits, 0U);
  EXPECT_EQ(p.scalar_binary(BinaryOp::DIV, RoundingMode::RNE, 1, 10, 0x80000000).bits, ~0ULL);  // -0 divisor
  EXPECT_EQ(p.scalar_binary(BinaryOp::DIV, RoundingMode::RNE, 1, 10, 0x80000000).flags, kDZ);
  EXPECT_EQ(p.scalar_binary(BinaryOp::DIV, RoundingMode::RNE, 1, 10, 3).bits, 3U);
  EXPECT_EQ(p.scalar_binary(BinaryOp::MIN, RoundingMode::RNE, 0, ~0ULL, 1).bits, ~0ULL);  // SInt compare
  EXPECT_EQ(p.scalar_unary(UnaryOp::ABS, RoundingMode::RNE, 1, 0xFFFFFFFFBF800000ULL).bits, 0x3F800000U);
  EXPECT_EQ(p.scalar_unary(UnaryOp::EXP, RoundingMode::RNE, 0, 41).bits, 42U);
  EXPECT_EQ(p.scalar_unary(UnaryOp::SQRT, RoundingMode::RNE, 0, 41).bits, 41U);
  EXPECT_EQ(p.scalar_unary(UnaryOp::RECIP, RoundingMode::RNE, 0, 0).flags, kDZ);
  EXPECT_EQ(p.scalar_fused(FusedOp::NMSUB, RoundingMode::RNE, 0, 1, 2, 3).bits, 0ULL - 5);
  EXPECT_EQ(p.scalar_convert(RoundingMode::RTZ, 4, 1, 0x12345678).bits, 0x12345678U);
  EXPECT_EQ(p.convert(0xFF, DataType::U32, DataType::S8, {}).bits, ~0ULL);  // NormalizeTileInteger sign-extends
  EXPECT_EQ(p.unary(UnaryOp::EXP, DataType::FP16, 7, RoundingMode::RNE).bits, 8U);
}

TEST(NumericsIeeeProfile, ScalarHooks) {
  const auto& p = ieee_profile();
  // FP32 1 + 2^-24 under each directed mode.
  EXPECT_EQ(p.scalar_binary(BinaryOp::ADD, RoundingMode::RTP, 1, 0x3F800000, 0x33800000).bits, 0x3F800001U);
  EXPECT_EQ(p.scalar_binary(BinaryOp::ADD, RoundingMode::RNE, 1, 0x3F800000, 0x33800000).bits, 0x3F800000U);
  EXPECT_EQ(p.scalar_binary(BinaryOp::ADD, RoundingMode::RNE, 1, 0x3F800000, 0x33800000).flags, kNX);
  EXPECT_EQ(fp32_div(0x3F800000, 0, RoundingMode::RNE), (Result{0x7F800000, kDZ}));
  EXPECT_EQ(fp64_mul(0x7FF0000000000000ULL, 0, RoundingMode::RNE), (Result{0x7FF8000000000000ULL, kNV}));
  // FP32 max * 2 overflows: RTZ gives max, RNE gives inf.
  EXPECT_EQ(fp32_mul(0x7F7FFFFF, 0x40000000, RoundingMode::RTZ), (Result{0x7F7FFFFF, kOF | kNX}));
  EXPECT_EQ(fp32_mul(0x7F7FFFFF, 0x40000000, RoundingMode::RNE), (Result{0x7F800000, kOF | kNX}));
  // int codes: 9 = S32 -> FP32 (16777217 rounds to even)
  EXPECT_EQ(p.scalar_from_integer(RoundingMode::RNE, 9, 1, 16777217).bits, 0x4B800000U);
  EXPECT_EQ(p.scalar_from_integer(RoundingMode::RNE, 9, 1, 0xFFFFFFFFULL).bits, 0xBF800000U);
  EXPECT_EQ(p.scalar_to_integer(RoundingMode::RNA, 9, 1, 0xC0200000).bits, 0xFFFFFFFDU);  // -2.5 -> -3
  EXPECT_EQ(p.scalar_convert(RoundingMode::RNE, 4, 1, 0x3F800000).bits, 0x3C00U);
  EXPECT_EQ(ieee_unary(UnaryOp::SQRT, DataType::FP32, 0xBF800000, RoundingMode::RNE), (Result{0x7FC00000, kNV}));
  EXPECT_EQ(ieee_unary(UnaryOp::LOG, DataType::FP32, 0, RoundingMode::RNE), (Result{0xFF800000, kDZ}));
  // E4M3 log(0): no infinity, canonical NaN 0x7F with DZ only (TLOG contract).
  EXPECT_EQ(ieee_unary(UnaryOp::LOG, DataType::E4M3, 0, RoundingMode::RNE), (Result{0x7F, kDZ}));
}

TEST(NumericsSpans, MatchScalarEncoder) {
  // All FP16 / BF16 / E4M3 codes widened.
  std::vector<std::uint16_t> h(65536);
  for (unsigned i = 0; i < 65536; ++i) h[i] = static_cast<std::uint16_t>(i);
  std::vector<std::uint32_t> w(65536);
  convert_span(h, w);
  for (unsigned i = 0; i < 65536; ++i)
    ASSERT_EQ(w[i], convert(DataType::FP16, DataType::FP32, i, RoundingMode::RNE).bits) << i;
  convert_span_bf16(h, w);
  for (unsigned i = 0; i < 65536; ++i)
    ASSERT_EQ(w[i], convert(DataType::BF16, DataType::FP32, i, RoundingMode::RNE).bits) << i;
  std::vector<std::uint8_t> b(256);
  for (unsigned i = 0; i < 256; ++i) b[i] = static_cast<std::uint8_t>(i);
  convert_span_e4m3(b, std::span<std::uint32_t>(w.data(), 256));
  for (unsigned i = 0; i < 256; ++i) ASSERT_EQ(w[i], convert(DataType::E4M3, DataType::FP32, i, RoundingMode::RNE).bits);
  // FP32 -> FP16 / BF16 RNE: random patterns plus values around every FP16
  // and BF16 boundary; per-element flags equal the scalar encoder's.
  std::vector<std::uint32_t> in;
  std::mt19937_64 rng(11);
  for (int i = 0; i < 200000; ++i) in.push_back(static_cast<std::uint32_t>(rng()));
  for (unsigned i = 0; i < 65536; ++i) {
    const auto f = static_cast<std::uint32_t>(convert(DataType::FP16, DataType::FP32, i, RoundingMode::RNE).bits);
    for (int d = -4097; d <= 4097; d += 1024) in.push_back(f + static_cast<std::uint32_t>(d));
    in.push_back(f + 0x1000);
    in.push_back(static_cast<std::uint32_t>(i) << 16 | 0x8000);
    in.push_back(static_cast<std::uint32_t>(i) << 16 | 0x7FFF);
    in.push_back(static_cast<std::uint32_t>(i) << 16 | 0x8001);
  }
  for (std::uint32_t x : in) {
    std::uint16_t o = 0;
    const Flags fh = convert_span_to_fp16(std::span<const std::uint32_t>(&x, 1), std::span<std::uint16_t>(&o, 1));
    const Result rh = convert(DataType::FP32, DataType::FP16, x, RoundingMode::RNE);
    ASSERT_EQ(o, rh.bits) << std::hex << x;
    ASSERT_EQ(fh, rh.flags) << std::hex << x;
    const Flags fb = convert_span_to_bf16(std::span<const std::uint32_t>(&x, 1), std::span<std::uint16_t>(&o, 1));
    const Result rb = convert(DataType::FP32, DataType::BF16, x, RoundingMode::RNE);
    ASSERT_EQ(o, rb.bits) << std::hex << x;
    ASSERT_EQ(fb, rb.flags) << std::hex << x;
  }
}
