// B.FPATR matrix post-processing, element level (tile/matrix_postprocess.hpp):
// the ASL test points of tests/asl/arch/profile/matrix-{postprocess,quantization}
// and tests/asl/block/attributes/B.FPATR (AVS ids in the test names) and the
// "matrix_postprocess" group of the hardware numeric vectors.  Expected
// values are the ones those points assert.
#include <gtest/gtest.h>

#include <string>

#include "numerics/format.hpp"
#include "test_util.hpp"
#include "tile/matrix_postprocess.hpp"

namespace pto::test {
namespace {

namespace pp = tile::postprocess;
using num::DataType;
using num::RoundingMode;

constexpr num::Flags kOverflow = num::kOF | num::kNX, kUnderflow = num::kUF | num::kNX;
constexpr std::uint64_t kSignExtended = ~std::uint64_t{0};  // Zeros{64} + 0xffff...

std::uint32_t fp19_of(std::uint32_t fp32) { return num::fp32_to_fp19(fp32); }  // FP32ToFP19
const std::uint32_t kOne = fp19_of(0x3f800000), kTwo = fp19_of(0x40000000), kHalf = fp19_of(0x3f000000);

// TileProfileMatrixPostProcessWithFlags(value, mode, relu, 0, type, quant, relu_param, control).
num::Result post(std::uint64_t value, unsigned mode, unsigned relu, DataType t, std::uint64_t quant,
                 std::uint64_t relu_param = 0, pp::Control control = {}) {
  return pp::post_process(value, mode, relu, t, quant, relu_param, control);
}

constexpr pp::Control kSaturating{RoundingMode::RNE, true};

void expect(const num::Result& r, std::uint64_t bits, num::Flags flags, const std::string& what) {
  EXPECT_EQ(r.bits, bits) << what;
  EXPECT_EQ(r.flags, flags) << what;
}

TEST(MatrixPostprocessAvs, ArchMatrixPost001) {  // PTO-AVS-ARCH-MATRIX-POST-001 (post-processing part)
  // ReLU of FP32 -2.0 under REQ8-style QF322B8 (mode 24): multiplier 0.
  expect(post(0xc0000000, 24, 1, DataType::S8, pp::quant_parameter(kOne, 0, 9)), 0, 0, "relu");
}

TEST(MatrixPostprocessAvs, ArchMatrixPostprocessPipeline002) {  // PTO-AVS-ARCH-MATRIX-POSTPROCESS-PIPELINE-002
  // One rounding from the exact product to FP16 (no FP32 intermediate).
  expect(post(0xbf000bb0, 32, 2, DataType::FP16, pp::quant_parameter(kOne, 0, 0), fp19_of(0x3f400000)), 0xb601,
         num::kNX, "lrelu 0.75");
}

TEST(MatrixPostprocessAvs, ArchMatrixIntermediate002) {  // PTO-AVS-ARCH-MATRIX-INTERMEDIATE-002
  const auto check = [](double v, unsigned w, RoundingMode m, std::int32_t value, num::Flags flags) {
    const pp::Intermediate r = pp::round_and_saturate_signed(v, w, m);
    EXPECT_EQ(r.value, value) << v << " S" << w;
    EXPECT_EQ(r.flags, flags) << v << " S" << w;
  };
  check(15.0, 5, RoundingMode::RNE, 15, 0);
  check(15.5, 5, RoundingMode::RNE, 15, kOverflow);
  check(-16.5, 5, RoundingMode::RNA, -16, kOverflow);
  check(255.75, 9, RoundingMode::RNE, 255, kOverflow);
  check(-256.75, 9, RoundingMode::RNE, -256, kOverflow);
  check(65535.4, 17, RoundingMode::RTZ, 65535, num::kNX);
  const RoundingMode modes[] = {RoundingMode::RNE, RoundingMode::RNA, RoundingMode::RTP, RoundingMode::RTM, RoundingMode::RTZ};
  const std::int32_t positive[] = {0, 1, 1, 0, 0}, negative[] = {0, -1, 0, -1, 0};
  for (int i = 0; i < 5; ++i) {
    EXPECT_EQ(pp::round_and_saturate_signed(0.5, 9, modes[i]).value, positive[i]) << i;
    EXPECT_EQ(pp::round_and_saturate_signed(-0.5, 9, modes[i]).value, negative[i]) << i;
  }
  expect(pp::shift_s32_to_s16(0xffffffdfU, 1), 0xffffffffffffffefULL, 0, "shift negative");
  expect(pp::shift_s32_to_s16(0x7fffffffU, 1), 0x7fff, kOverflow, "shift high");
}

TEST(MatrixPostprocessAvs, ArchMatrixQuant001) {  // PTO-AVS-ARCH-MATRIX-QUANT-001
  const std::uint64_t parameter = pp::quant_parameter(kOne, 0x1ff, 9);
  EXPECT_EQ((parameter >> 13) & 0x7FFFF, kOne);
  EXPECT_EQ(pp::quant_offset(parameter, 9), -1);
  EXPECT_EQ((pp::shift_parameter(15) >> 32) & 0xF, 0xFU);
  expect(pp::integer_encoding(130.0, DataType::S8, {}), 0xffffffffffffff82ULL, kOverflow, "wrap");
  expect(pp::floating_encoding(1.5, DataType::FP16, {}), 0x3e00, 0, "fp16");
  expect(pp::floating_encoding(1.5, DataType::E4M3, {}), 0x3c, 0, "e4m3");
  expect(pp::floating_encoding(1.5, DataType::HiF8, {}), 0x0c, 0, "hif8");
  expect(pp::floating_encoding(-1.00390625, DataType::BF16, {RoundingMode::RHB, false}), 0xbf80, num::kNX, "rhb");
}

TEST(MatrixPostprocessAvs, BlockBFpatrAct004) {  // PTO-AVS-BLOCK-B-FPATR-ACT-004
  const std::uint64_t scale_one = pp::quant_parameter(kOne, 0, 9);
  expect(post(0xc0000000, 24, 1, DataType::S8, scale_one), 0, 0, "relu");
  expect(post(0xc0800000, 24, 2, DataType::S8, scale_one, kHalf), kSignExtended - 1, 0, "scalar lrelu");
  expect(post(0xc0800000, 24, 3, DataType::S8, scale_one, kHalf), kSignExtended - 1, 0, "vector prelu");
}

TEST(MatrixPostprocessAvs, BlockBFpatrAllModes007) {  // PTO-AVS-BLOCK-B-FPATR-ALL-MODES-007
  const std::uint64_t p0 = pp::quant_parameter(kOne, 0, 0), p5 = pp::quant_parameter(kOne, 0, 5);
  const std::uint64_t p9 = pp::quant_parameter(kOne, 0, 9), p17 = pp::quant_parameter(kOne, 0, 17);
  const std::uint64_t shift = pp::shift_parameter(0), f1 = 0x3f800000;
  struct Case {
    unsigned mode;
    std::uint64_t source;
    DataType type;
    std::uint64_t parameter, expected;
  };
  const Case cases[] = {
      {0, f1, DataType::FP32, 0, f1},          {1, f1, DataType::FP16, 0, 0x3c00},      {2, 1, DataType::S8, p9, 1},
      {3, 1, DataType::S8, p9, 1},             {4, 1, DataType::FP16, p0, 0x3c00},      {5, 1, DataType::FP16, p0, 0x3c00},
      {12, 2, DataType::S16, shift, 1},        {13, 2, DataType::S16, shift, 1},        {16, f1, DataType::BF16, 0, 0x3f80},
      {17, 1, DataType::S4X2, p5, 1},          {18, 1, DataType::S4X2, p5, 1},          {19, 1, DataType::S16, p17, 1},
      {20, 1, DataType::S16, p17, 1},          {23, f1, DataType::S8, p9, 1},           {24, f1, DataType::S8, p9, 1},
      {25, f1, DataType::HiF8, p0, 0x08},      {26, f1, DataType::E4M3, p0, 0x38},      {27, f1, DataType::FP32, p0, f1},
      {28, f1, DataType::HiF8, p0, 0x08},      {32, f1, DataType::FP16, p0, 0x3c00},    {33, f1, DataType::FP16, p0, 0x3c00},
      {34, f1, DataType::BF16, p0, 0x3f80},    {35, 1, DataType::BF16, p0, 0x3f80},     {36, f1, DataType::BF16, p0, 0x3f80},
      {37, f1, DataType::E4M3, p0, 0x38},      {38, f1, DataType::FP32, p0, f1},        {39, 1, DataType::BF16, p0, 0x3f80},
  };
  for (const Case& c : cases) expect(post(c.source, c.mode, 0, c.type, c.parameter), c.expected, 0, "mode " + std::to_string(c.mode));
}

TEST(MatrixPostprocessAvs, BlockBFpatrFormats003) {  // PTO-AVS-BLOCK-B-FPATR-FORMATS-003
  const std::uint64_t v = 0x3fc00000, scale_one = pp::quant_parameter(kOne, 0, 0);
  expect(post(v, 1, 0, DataType::FP16, 0), 0x3e00, 0, "fp16");
  expect(post(v, 16, 0, DataType::BF16, 0), 0x3fc0, 0, "bf16");
  expect(post(v, 26, 0, DataType::E4M3, scale_one), 0x3c, 0, "e4m3");
  expect(post(v, 25, 0, DataType::HiF8, scale_one), 0x0c, 0, "hif8");
  expect(post(v, 27, 0, DataType::FP32, pp::quant_parameter(kHalf, 0, 0)), 0x3f400000, 0, "scaled fp32");
}

TEST(MatrixPostprocessAvs, BlockBFpatrQuant002) {  // PTO-AVS-BLOCK-B-FPATR-QUANT-002
  const std::uint64_t offset_minus_one = pp::quant_parameter(kTwo, 0x1ff, 9), plain = pp::quant_parameter(kTwo, 0, 9);
  expect(post(3, 3, 0, DataType::S8, offset_minus_one), 5, 0, "ordinary");
  expect(post(70, 3, 0, DataType::S8, plain), 0xffffffffffffff8cULL, kOverflow, "wrapped");
  expect(post(70, 3, 0, DataType::S8, plain, 0, kSaturating), 127, kOverflow, "clamped");
  expect(post(0xffffffffffffffdfULL, 13, 0, DataType::S16, pp::shift_parameter(0)), 0xffffffffffffffefULL, 0, "shift");
  expect(post(0x7fffffff, 13, 0, DataType::S16, pp::shift_parameter(0), 0, kSaturating), 0x7fff, kOverflow, "shift sat");
}

TEST(MatrixPostprocessAvs, BlockBFpatrRounding008) {  // PTO-AVS-BLOCK-B-FPATR-ROUNDING-008
  // The intermediate saturates before the offset; the final encoding wraps.
  expect(post(300, 3, 0, DataType::S8, pp::quant_parameter(kOne, 1, 9)), 0, kOverflow, "req8");
  expect(post(20, 17, 0, DataType::S4X2, pp::quant_parameter(kOne, 1, 5)), 0, kOverflow, "req4");
  expect(post(70000, 19, 0, DataType::S16, pp::quant_parameter(kOne, 1, 17)), 0, kOverflow, "deqs16");
  expect(post(0x7fffffff, 13, 0, DataType::S16, pp::shift_parameter(0)), 0x7fff, kOverflow, "shift");
}

TEST(MatrixPostprocessAvs, BlockBFpatrSpecial005) {  // PTO-AVS-BLOCK-B-FPATR-SPECIAL-005
  const std::uint64_t p9 = pp::quant_parameter(kOne, 0, 9), p0 = pp::quant_parameter(kOne, 0, 0);
  expect(post(0x7fc00000, 24, 0, DataType::S8, p9), 0xffffffffffffff80ULL, num::kNV, "nan");
  expect(post(0x7f800000, 24, 0, DataType::S8, p9), 0xffffffffffffff80ULL, num::kNV, "+inf");
  expect(post(0xff800000, 24, 0, DataType::S8, p9), 0xffffffffffffff80ULL, num::kNV, "-inf");
  expect(post(0x7fc00000, 24, 0, DataType::S8, p9, 0, kSaturating), 0, num::kNV, "sat nan");
  expect(post(0x7f800000, 24, 0, DataType::S8, p9, 0, kSaturating), 127, kOverflow, "sat +inf");
  expect(post(0x7fc00000, 26, 0, DataType::E4M3, p0), 0x7f, 0, "e4m3 nan");
  expect(post(0x7fc00000, 32, 0, DataType::FP16, p0, 0, kSaturating), 0, 0, "sat qnan fp16");
  expect(post(0x7f800001, 32, 0, DataType::FP16, p0, 0, kSaturating), 0, num::kNV, "sat snan fp16");
  expect(post(0x7f800000, 32, 0, DataType::FP16, p0, 0, kSaturating), 0x7bff, kOverflow, "sat +inf fp16");
  expect(post(0x7fc00000, 32, 0, DataType::FP16, p0), 0x7e00, 0, "qnan fp16");
  expect(post(0x7fc00000, 25, 0, DataType::HiF8, p0), 0x80, 0, "qnan hif8");
}

TEST(MatrixPostprocessAvs, BlockBFpatrZeroAffine009) {  // PTO-AVS-BLOCK-B-FPATR-ZERO-AFFINE-009
  const std::uint64_t plus5 = pp::quant_parameter(kOne, 5, 9), minus5 = pp::quant_parameter(kOne, 0x1fb, 9);
  expect(post(0, 24, 0, DataType::S8, plus5), 5, 0, "+0 +5");
  expect(post(0x80000000, 24, 0, DataType::S8, plus5), 5, 0, "-0 +5");
  expect(post(0, 24, 0, DataType::S8, minus5), kSignExtended - 4, 0, "+0 -5");
  expect(post(0x80000000, 24, 0, DataType::S8, pp::quant_parameter(kOne, 0, 9)), 0, 0, "-0 0");
}

TEST(MatrixPostprocessAvs, BlockBFpatrControls010) {  // PTO-AVS-BLOCK-B-FPATR-CONTROLS-010 (execution part)
  // Fixed floating modes ignore the programmable rounding (MatrixFPATREffectiveControl).
  const std::uint64_t p0 = pp::quant_parameter(kOne, 0, 0);
  expect(post(0x3f801000, 32, 0, DataType::FP16, p0, 0, {RoundingMode::RTP, false}), 0x3c00, num::kNX, "fp16 RNE");
  expect(post(0x3f880000, 26, 0, DataType::E4M3, p0, 0, {RoundingMode::RNA, false}), 0x38, num::kNX, "e4m3 RNE");
  expect(post(0x3f880000, 25, 0, DataType::HiF8, p0), 0x09, num::kNX, "hif8 RHB");
  for (const unsigned mode : {1U, 16U, 25U, 26U, 32U, 33U, 34U, 36U, 37U})
    EXPECT_NE(pp::effective_control(mode, {RoundingMode::RTP, false}).rounding, RoundingMode::RTP) << mode;
  for (const unsigned mode : {3U, 19U, 35U})
    EXPECT_EQ(pp::effective_control(mode, {RoundingMode::RTP, true}).rounding, RoundingMode::RTP) << mode;
}

// Hand-derived from MatrixPostQuantBaseWithFlags: ReLU of -infinity is an
// ordinary zero (the special result is skipped when the multiplier is 0),
// while the FP32 -0 keeps its sign only without ReLU.
TEST(MatrixPostprocess, ReluOfNegativeInfinityIsZeroAndNegativeZeroKeepsItsSign) {
  expect(post(0xff800000, 0, 1, DataType::FP32, 1), 0, 0, "relu -inf");
  expect(post(0xff800000, 0, 2, DataType::FP32, 1, kHalf), 0xff800000, 0, "lrelu -inf");
  expect(post(0x80000000, 0, 2, DataType::FP32, 1, kHalf), 0x80000000, 0, "lrelu -0");
  expect(post(0x80000000, 0, 1, DataType::FP32, 1), 0, 0, "relu -0");
  expect(post(0xfffffffd, 0, 1, DataType::S32, 1), 0, 0, "relu S32 -3");
  expect(post(0xfffffffc, 0, 2, DataType::S32, 1, kHalf), kSignExtended - 1, 0, "lrelu S32 -4");
  expect(post(0x80000001, 0, 1, DataType::U32, 1), 0x80000001, 0, "relu U32 is identity");
  // 2^-150 * 2^-1 under FP32: below half the smallest subnormal, RNE -> +0 with UF|NX.
  expect(post(0x00000001, 0, 2, DataType::FP32, 1, kHalf), 0x00000001, 0, "positive untouched");
  expect(post(0x80000001, 0, 2, DataType::FP32, 1, kHalf), 0x80000000, kUnderflow, "-2^-149 * 0.5 -> -0");
}

// The "matrix_postprocess" group of evidence/pto-isa-0583-hardware-numeric-vectors.json
// (the ieee profile; B.FPATR post-processing is bit-exact in both profiles).
TEST(MatrixPostprocess, HardwareNumericVectors) {
  const nlohmann::json j = load_json(data_path("numerics_hardware_vectors.json"));
  const auto hex = [](const nlohmann::json& s) { return std::stoull(s.get<std::string>(), nullptr, 16); };
  const auto fp19 = [](const nlohmann::json& s) {
    return num::fp32_to_fp19(static_cast<std::uint32_t>(num::encode_double(DataType::FP32, std::stod(s.get<std::string>()),
                                                                           RoundingMode::RNE).bits));
  };
  unsigned checked = 0;
  for (const auto& v : j.at("vector_groups").at("matrix_postprocess")) {
    const std::string id = v.at("id");
    const unsigned mode = v.at("mode");
    const DataType destination = num::data_type_from_name(v.at("destination").get<std::string>()).value();
    const unsigned width = pp::mode_offset_width(mode);
    const std::string offset_text = v.value("signed_offset", std::string("0"));
    const auto offset = static_cast<std::uint64_t>(std::stoll(offset_text));  // two's complement, masked to the width
    const std::uint32_t scale = v.contains("fp19_scale") ? fp19(v.at("fp19_scale")) : kOne;
    const std::uint64_t quant = pp::quant_parameter(scale, offset, width);
    const std::uint64_t alpha = v.contains("fp19_alpha") ? fp19(v.at("fp19_alpha")) : 0;
    std::uint64_t input = 0;
    if (v.contains("input_raw")) input = hex(v.at("input_raw"));
    else if (v.at("input") == "qNaN") input = 0x7fc00000;
    else input = static_cast<std::uint32_t>(std::stoi(v.at("input").get<std::string>()));  // S32 accumulator
    const pp::Control control{RoundingMode::RNE, v.value("sat", false)};
    const num::Result r = post(input, mode, v.value("relu_mode", 0U), destination, quant, alpha, control);
    num::Flags flags = 0;
    for (const auto& f : v.value("expected_flags", nlohmann::json::array()))
      flags |= f == "NV" ? num::kNV : f == "OF" ? num::kOF : f == "UF" ? num::kUF : f == "NX" ? num::kNX : num::kDZ;
    const unsigned bits = num::element_width(destination);
    EXPECT_EQ(r.bits & ((std::uint64_t{1} << bits) - 1), hex(v.at("expected_raw"))) << id;
    EXPECT_EQ(r.flags, flags) << id;
    ++checked;
  }
  EXPECT_EQ(checked, 8U);
}

}  // namespace
}  // namespace pto::test
