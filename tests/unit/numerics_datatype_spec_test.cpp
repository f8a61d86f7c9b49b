// The spec's data-type test points (tests/asl/arch/data-types/**, extracted
// by tools/extract_datatype_vectors.py into
// tests/data/spec_datatype_vectors.json; one test per AVS id) and the
// constant tables of the format units (asl/arch/data-types/formats/*.asl; one
// test per unit id) run against the public numerics API. Every ASL model function a check calls is mapped to
// that API below; its result is rendered in the data file's value encoding
// and compared with the value the test point asserts.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <cmath>
#include <fstream>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>

#include "test_paths.hpp"
#include "numerics/datatypes.hpp"
#include "numerics/format.hpp"

namespace {

using nlohmann::json;
using namespace pto::num;

const json& points() {
  static const json v = [] {
    std::ifstream in(std::string(PTO_TEST_DATA_DIR) + "/spec_datatype_vectors.json");
    return in ? json::parse(in) : json::array();
  }();
  return v;
}

// ---- value encoding of the data file ---------------------------------------
json bits(std::uint64_t value, unsigned width) { return {{"bits", fmt::format("{:#x}", value)}, {"width", width}}; }
json enumeration(const std::string& name) { return {{"enum", name}}; }

// ASL enumeration spellings, in the order of our enums (which follow the ASL).
constexpr const char* kValueClassNames[] = {
    "NumericValue_InvalidEncoding",    "NumericValue_PositiveZero",      "NumericValue_NegativeZero",
    "NumericValue_PositiveSubnormal",  "NumericValue_NegativeSubnormal", "NumericValue_PositiveNormal",
    "NumericValue_NegativeNormal",     "NumericValue_PositiveInfinity",  "NumericValue_NegativeInfinity",
    "NumericValue_QuietNaN",           "NumericValue_SignalingNaN"};
constexpr const char* kFormatKindNames[] = {"NumericFormatKind_Unavailable", "NumericFormatKind_FixedBinary",
                                            "NumericFormatKind_HiF8", "NumericFormatKind_E8M0"};
constexpr const char* kDotFieldNames[] = {"HiF8DotField_Denormal", "HiF8DotField_D0", "HiF8DotField_D1",
                                          "HiF8DotField_D2",       "HiF8DotField_D3", "HiF8DotField_D4"};

json value_class(ValueClass c) { return enumeration(kValueClassNames[static_cast<unsigned>(c)]); }
json data_type(DataType t) { return enumeration("TileDataType_" + std::string(name(t))); }

DataType data_type_arg(const json& a) {
  const std::string n = a.at("enum").get<std::string>();
  const auto t = n.starts_with("TileDataType_") ? data_type_from_name(n.substr(13)) : std::nullopt;
  if (!t) throw std::invalid_argument("not a TileDataType: " + n);
  return *t;
}
std::uint64_t bits_arg(const json& a, unsigned width) {
  if (a.at("width").get<unsigned>() != width) throw std::invalid_argument("argument width: " + a.dump());
  return std::stoull(a.at("bits").get<std::string>(), nullptr, 16);
}
ValueClass value_class_arg(const json& a) {
  const std::string n = a.at("enum").get<std::string>();
  for (unsigned i = 0; i < std::size(kValueClassNames); ++i)
    if (n == kValueClassNames[i]) return static_cast<ValueClass>(i);
  throw std::invalid_argument("not a NumericValueClass: " + n);
}

json descriptor(const NumericFormatDescriptor& d) {
  return {{"available", d.available},
          {"kind", enumeration(kFormatKindNames[static_cast<unsigned>(d.kind)])},
          {"carrier_bits", d.carrier_bits},
          {"lane_bits", d.lane_bits},
          {"lanes_per_carrier", d.lanes_per_carrier},
          {"sign_bits", d.sign_bits},
          {"sign_bit", d.sign_bit},
          {"exponent_bits_min", d.exponent_bits_min},
          {"exponent_bits_max", d.exponent_bits_max},
          {"fraction_bits_min", d.fraction_bits_min},
          {"fraction_bits_max", d.fraction_bits_max},
          {"exponent_bias_available", d.exponent_bias_available},
          {"exponent_bias", d.exponent_bias},
          {"required_low_zero_bits", d.required_low_zero_bits},
          {"required_high_zero_bits", d.required_high_zero_bits},
          {"has_zero", d.has_zero},
          {"has_signed_zero", d.has_signed_zero},
          {"has_subnormal", d.has_subnormal},
          {"has_infinity", d.has_infinity},
          {"has_quiet_nan", d.has_quiet_nan},
          {"has_signaling_nan", d.has_signaling_nan}};
}

constexpr unsigned kWord = 64;  // PTO_XLEN
constexpr unsigned kFP19 = 19;

std::uint32_t fp19_arg(const json& a) { return static_cast<std::uint32_t>(bits_arg(a, kFP19)); }

// ASL model function -> public API. Tuples are arrays, records objects.
using Model = std::function<json(const json& args)>;
const std::map<std::string, Model>& models() {
  static const std::map<std::string, Model> m{
      {"TileDataTypeEncodingValid",
       [](const json& a) { return json(data_type_code_valid(static_cast<std::uint8_t>(bits_arg(a[0], 5)))); }},
      {"TileDataTypeToEncoding", [](const json& a) { return bits(code_of(data_type_arg(a[0])), 5); }},
      {"TileDataTypeFromEncoding",
       [](const json& a) {
         const auto t = data_type_from_code(static_cast<std::uint8_t>(bits_arg(a[0], 5)));
         if (!t) throw std::invalid_argument("reserved encoding " + a[0].dump());
         return data_type(*t);
       }},
      {"TileNumericFormatDescriptor",
       [](const json& a) { return descriptor(numeric_format_descriptor(data_type_arg(a[0]))); }},
      {"UnavailableNumericFormatDescriptor", [](const json&) { return descriptor(NumericFormatDescriptor{}); }},
      {"TileNumericFiniteDecomposition",
       [](const json& a) {
         const Decomposition d = decompose(data_type_arg(a[0]), bits_arg(a[1], kWord));
         return json::array({d.available, d.negative, bits(d.significand, kWord), d.exponent});
       }},
      {"TileNumericValueClass",
       [](const json& a) { return value_class(classify(data_type_arg(a[0]), bits_arg(a[1], kWord))); }},
      {"NumericValueClassIsInfinity", [](const json& a) { return json(is_inf(value_class_arg(a[0]))); }},
      {"TileNumericEncodingValid",
       [](const json& a) { return json(encoding_valid(data_type_arg(a[0]), bits_arg(a[1], kWord))); }},
      // The scalar FSU's NaN predicates share the format classification.
      {"ScalarFP64IsNaN", [](const json& a) { return json(is_nan(classify(DataType::FP64, bits_arg(a[0], kWord)))); }},
      {"ScalarFP64IsSignalingNaN",
       [](const json& a) { return json(classify(DataType::FP64, bits_arg(a[0], kWord)) == ValueClass::SignalingNaN); }},
      {"ScalarFP32IsNaN", [](const json& a) { return json(is_nan(classify(DataType::FP32, bits_arg(a[0], 32)))); }},
      {"ScalarFP32IsSignalingNaN",
       [](const json& a) { return json(classify(DataType::FP32, bits_arg(a[0], 32)) == ValueClass::SignalingNaN); }},
      {"TileNumericCanonicalNaN",
       [](const json& a) {
         const OptionalBits n = canonical_nan(data_type_arg(a[0]));
         return json::array({n.available, bits(n.bits, kWord)});
       }},
      {"HardwareNumericTypeHasSubnormals",
       [](const json& a) { return json(format_info(data_type_arg(a[0])).has_subnormal); }},
      {"HardwareNumericSignedZeroEncodings",
       [](const json& a) {
         const SignedZeroEncodings z = signed_zero_encodings(data_type_arg(a[0]));
         return json::array({z.available, bits(z.positive, kWord), bits(z.negative, kWord)});
       }},
      {"HardwareNumericScaleBlockElements", [](const json&) { return json(kScaleBlockElements); }},
      {"HiF8DecodeDotField",
       [](const json& a) {
         const HiF8DotFieldInfo f = hif8_decode_dot_field(static_cast<std::uint8_t>(bits_arg(a[0], 8)));
         return json::array(
             {enumeration(kDotFieldNames[static_cast<unsigned>(f.field)]), f.exponent_bits, f.fraction_bits});
       }},
      {"FP32ToFP19",
       [](const json& a) { return bits(fp32_to_fp19(static_cast<std::uint32_t>(bits_arg(a[0], kWord))), kFP19); }},
      {"FP19ValueClass", [](const json& a) { return value_class(fp19_classify(fp19_arg(a[0]))); }},
      {"FP19FiniteValue", [](const json& a) { return json{{"real", fp19_finite_value(fp19_arg(a[0]))}}; }},
      {"FP19ScaleLegal", [](const json& a) { return json(fp19_scale_legal(fp19_arg(a[0]))); }},
      {"FP19ActivationParameterLegal",
       [](const json& a) { return json(fp19_activation_parameter_legal(fp19_arg(a[0]))); }},
  };
  return m;
}

// Evaluates a check operand: literals stay, calls run through models().
json evaluate(const json& e) {
  if (!e.is_object()) return e;
  if (e.contains("call")) {
    const auto name = e["call"].get<std::string>();
    const auto it = models().find(name);
    if (it == models().end()) throw std::invalid_argument("no API mapping for model function " + name);
    json args = json::array();
    for (const auto& a : e["args"]) args.push_back(evaluate(a));
    return it->second(args);
  }
  if (e.contains("field")) return evaluate(e["of"]).at(e["field"].get<std::string>());
  if (e.contains("item")) return evaluate(e["of"]).at(e["item"].get<std::size_t>());
  return e;
}

// AVS id of a test point, unit id of a format table.
std::string record_id(const json& p) { return p.value("avs_id", p.value("unit_id", std::string{})); }

class SpecDataTypePoint : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SpecDataTypePoint, Checks) {
  const json& p = points()[GetParam()];
  SCOPED_TRACE(record_id(p) + " (" + p["source"].get<std::string>() + ")");
  ASSERT_FALSE(p.contains("problems")) << p["problems"].dump();
  for (const json& c : p["checks"]) {
    json actual, expected;
    try {
      actual = evaluate(c["actual"]);
      expected = evaluate(c["expected"]);
    } catch (const std::exception& ex) {
      ADD_FAILURE() << c.dump() << ": " << ex.what();
      continue;
    }
    if (c.value("negate", false))
      EXPECT_NE(actual, expected) << c.dump();
    else
      EXPECT_EQ(actual, expected) << c.dump();
  }
}

std::vector<std::size_t> point_indices() {
  std::vector<std::size_t> v(points().size());
  for (std::size_t i = 0; i < v.size(); ++i) v[i] = i;
  return v;
}

INSTANTIATE_TEST_SUITE_P(AVS, SpecDataTypePoint, ::testing::ValuesIn(point_indices()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           std::string n = record_id(points()[info.param]);
                           for (char& ch : n)
                             if (ch == '-') ch = '_';
                           return n;
                         });
TEST(SpecDataTypeVectors, FilePresent) { EXPECT_GE(points().size(), 36u); }  // a truncated file fails

// FP32ToFP19 / FP19FiniteValue edge cases the points do not reach, derived
// by hand from asl/arch/data-types/fp19.asl: the low 13 FP32 bits round to
// nearest, ties to even; a carry out of the largest finite value reaches
// infinity; every NaN becomes 0x3FF00.
TEST(SpecDataTypeFP19, ConversionEdges) {
  const std::pair<std::uint32_t, std::uint32_t> cases[] = {
      {0x3F801000, 0x1FC00},  // tie, kept fraction even: down
      {0x3F803000, 0x1FC02},  // tie, kept fraction odd: up
      {0x3F801001, 0x1FC01},  // above the tie: up
      {0x3F800FFF, 0x1FC00},  // below the tie: down
      {0xBF800000, 0x5FC00},  // sign moves to bit 18
      {0x00001000, 0x00000},  // FP32 subnormal tie to even zero
      {0x00003000, 0x00002},  // FP32 subnormal tie, odd: up
      {0x007FF000, 0x00400},  // subnormal carries into the minimum normal
      {0x7F7FFFFF, 0x3FC00},  // carry out of the largest finite: +infinity
      {0x7F800000, 0x3FC00},  // +infinity
      {0xFF800000, 0x7FC00},  // -infinity
      {0x7FC00000, 0x3FF00},  // quiet NaN
      {0xFF800001, 0x3FF00},  // signalling NaN, negative
  };
  for (const auto& [fp32, fp19] : cases) EXPECT_EQ(fp32_to_fp19(fp32), fp19) << std::hex << fp32;
  EXPECT_EQ(fp19_finite_value(0x00001), std::ldexp(1.0, -136));             // minimum subnormal
  EXPECT_EQ(fp19_finite_value(0x003FF), std::ldexp(1023.0, -136));          // maximum subnormal
  EXPECT_EQ(fp19_finite_value(0x3FBFF), std::ldexp(2047.0, 117));           // maximum finite
  EXPECT_EQ(fp19_finite_value(0x40000), -0.0);
  EXPECT_TRUE(std::signbit(fp19_finite_value(0x40000)));
  EXPECT_TRUE(std::isnan(fp19_finite_value(0x3FC00)));  // no finite value (semantics-notes)
  EXPECT_EQ(fp19_classify(0x00001), ValueClass::PositiveSubnormal);
  EXPECT_EQ(fp19_classify(0x40001), ValueClass::NegativeSubnormal);
  EXPECT_EQ(fp19_classify(0x3FC01), ValueClass::SignalingNaN);
  EXPECT_EQ(fp19_classify(0x7FC00), ValueClass::NegativeInfinity);
}

// The data file is present and holds every non-static data-type point but
// the three that drive trap/system-register state (see the extractor), the
// arch/profile value-class point (EXTRA_POINTS), and the constant tables of
// the 15 format units.
TEST(SpecDataTypeVectors, Present) {
  std::size_t avs = 0, tables = 0;
  for (const json& p : points()) (p.contains("avs_id") ? avs : tables) += 1;
  EXPECT_EQ(avs, 21U);
  EXPECT_EQ(tables, 15U);
}

}  // namespace
