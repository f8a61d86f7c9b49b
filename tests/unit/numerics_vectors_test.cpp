// Every vector of evidence/pto-isa-0583-hardware-numeric-vectors.json
// (committed as tests/data/numerics_hardware_vectors.json by
// tools/gen_numerics_vectors.py). Expected values come from the spec file.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "numerics/convert_span.hpp"
#include "numerics/profile.hpp"
#include "test_util.hpp"

using namespace pto::num;
using nlohmann::json;

namespace {

const json& vectors() {
  static const json j = pto::test::load_json(pto::test::data_path("numerics_hardware_vectors.json"));
  return j;
}
const json& group(const char* name) { return vectors().at("vector_groups").at(name); }

// Parse a spec value spelling into a double.
double parse_value(std::string s) {
  if (s.rfind("qNaN", 0) == 0 || s == "NaN" || s == "canonical-qNaN") return std::nan("");
  if (s == "+infinity") return HUGE_VAL;
  if (s == "-infinity") return -HUGE_VAL;
  if (s == "+0") return 0.0;
  if (s == "-0") return -0.0;
  if (s.rfind("2^", 0) == 0) return std::ldexp(1.0, std::stoi(s.substr(2)));
  return std::stod(s);
}

DataType dt(const std::string& n) {
  auto t = data_type_from_name(n);
  EXPECT_TRUE(t.has_value()) << n;
  return t.value_or(DataType::FP32);
}

RoundingMode mode(const std::string& n) {
  auto m = rounding_mode_from_name(n);
  EXPECT_TRUE(m.has_value()) << n;
  return m.value_or(RoundingMode::RNE);
}

Flags flags_of(const json& arr) {
  Flags f = 0;
  for (const auto& s : arr) {
    const std::string n = s.get<std::string>();
    if (n == "NV") f |= kNV;
    else if (n == "DZ") f |= kDZ;
    else if (n == "OF") f |= kOF;
    else if (n == "UF") f |= kUF;
    else if (n == "NX") f |= kNX;
    else ADD_FAILURE() << "unknown flag " << n;
  }
  return f;
}

std::uint64_t f32(double d) { return encode_double(DataType::FP32, d, RoundingMode::RNE).bits; }
std::uint64_t hx(const json& j) { return pto::test::parse_hex(j.get<std::string>()); }

const NumericProfile& hw() { return ieee_profile(); }

}  // namespace

TEST(NumericsVectors, Provenance) {
  EXPECT_EQ(vectors().at("hardware_profile_id").get<std::string>(), std::string(kIeeeProfileId));
  EXPECT_EQ(vectors().at("reference_profile").at("profile_id").get<std::string>(), std::string(kReferenceProfileId));
  EXPECT_NE(profile_by_id(kIeeeProfileId), nullptr);
  EXPECT_EQ(profile_by_id("pto-unknown-profile"), nullptr);
}

TEST(NumericsVectors, CanonicalNaN) {
  for (const auto& v : group("canonical_nan")) {
    const DataType t = dt(v.at("data_type"));
    const std::uint64_t expected = hx(v.at("expected"));
    const auto c = canonical_nan(t);
    ASSERT_TRUE(c.available);
    EXPECT_EQ(c.bits, expected) << name(t);
    // Any NaN input produces the canonical NaN (quiet and signalling FP64 sources).
    EXPECT_EQ(hw().convert(0x7FF8000000000001ULL, DataType::FP64, t, {}).bits, expected) << name(t);
    const Result s = hw().convert(0xFFF0000000000001ULL, DataType::FP64, t, {});
    EXPECT_EQ(s.bits, expected) << name(t);
    EXPECT_TRUE(s.flags & kNV) << name(t);
    EXPECT_TRUE(is_nan(classify(t, expected)));
  }
}

TEST(NumericsVectors, Comparison) {
  for (const auto& v : group("comparison")) {
    const std::string m = v.at("mode");
    const CompareOp op = m == "EQ" ? CompareOp::EQ : m == "NE" ? CompareOp::NE : m == "LT" ? CompareOp::LT
                         : m == "LE" ? CompareOp::LE : m == "GT" ? CompareOp::GT : CompareOp::GE;
    const auto a = f32(parse_value(v.at("inputs")[0])), b = f32(parse_value(v.at("inputs")[1]));
    const auto r = hw().compare(op, DataType::FP32, a, b);
    EXPECT_EQ(r.value ? 1 : 0, v.at("expected").get<int>()) << v.dump();
    EXPECT_EQ(r.flags, 0) << v.dump();  // quiet NaN only
    const auto rr = reference_profile().compare(op, DataType::FP32, a, b);
    EXPECT_EQ(rr.value ? 1 : 0, v.at("expected").get<int>()) << "reference " << v.dump();
  }
}

TEST(NumericsVectors, InvalidFloatToInteger) {
  for (const auto& v : group("invalid_float_to_integer")) {
    const DataType d = dt(v.at("destination"));
    const bool sat = v.at("sat");
    const std::uint64_t in = encode_double(DataType::FP64, parse_value(v.at("input")), RoundingMode::RNE).bits;
    const Result r = hw().convert(in, DataType::FP64, d, {RoundingMode::RTZ, sat});
    const std::uint64_t expected = v.contains("expected_raw") ? hx(v.at("expected_raw")) : hx(v.at("expected_lane_raw"));
    EXPECT_EQ(r.bits, expected) << v.dump();
    EXPECT_TRUE(r.flags & kNV) << v.dump();
  }
}

TEST(NumericsVectors, LowPrecisionEncoding) {
  for (const auto& v : group("low_precision_encoding")) {
    const DataType t = dt(v.at("data_type"));
    const std::uint64_t raw = hx(v.at("raw"));
    const std::string e = v.at("expected");
    const double d = decode_to_double(t, raw);
    if (e == "NaN") {
      EXPECT_TRUE(is_nan(classify(t, raw))) << v.dump();
      continue;
    }
    EXPECT_EQ(d, parse_value(e)) << v.dump();
    EXPECT_EQ(std::signbit(d), std::signbit(parse_value(e))) << v.dump();
    // Encoding the value back is exact and returns the same raw code.
    const Result back = encode_double(t, parse_value(e), RoundingMode::RNE);
    EXPECT_EQ(back.bits, raw) << v.dump();
    EXPECT_EQ(back.flags, 0) << v.dump();
  }
}

TEST(NumericsVectors, PackedLaneOrder) {
  for (const auto& v : group("packed_lane_order")) {
    const DataType t = dt(v.at("data_type"));
    const auto byte = static_cast<std::uint8_t>(hx(v.at("raw_byte")));
    for (unsigned lane = 0; lane < 2; ++lane) {
      const double got = decode_to_double(t, packed4_get(byte, lane));
      EXPECT_EQ(got, parse_value(v.at("expected_logical_lanes")[lane])) << v.dump() << " lane " << lane;
    }
    // Bulk span conversion reads the same lanes.
    const std::uint8_t in[1] = {byte};
    std::uint8_t out[8] = {};
    convert_span(t, DataType::FP32, in, out, 2, RoundingMode::RNE);
    std::uint32_t l0, l1;
    std::memcpy(&l0, out, 4);
    std::memcpy(&l1, out + 4, 4);
    EXPECT_EQ(std::bit_cast<float>(l0), parse_value(v.at("expected_logical_lanes")[0]));
    EXPECT_EQ(std::bit_cast<float>(l1), parse_value(v.at("expected_logical_lanes")[1]));
  }
}

TEST(NumericsVectors, RoundingToInteger) {
  for (const auto& v : group("rounding")) {
    const DataType d = dt(v.at("destination"));
    const std::uint64_t in = encode_double(DataType::FP64, parse_value(v.at("input")), RoundingMode::RNE).bits;
    const Result r = hw().convert(in, DataType::FP64, d, {mode(v.at("mode")), false});
    const auto expected = static_cast<std::int64_t>(std::stoll(v.at("expected").get<std::string>()));
    EXPECT_EQ(r.bits, static_cast<std::uint64_t>(expected) & 0xFFFFFFFFULL) << v.dump();
    const bool exact = std::floor(parse_value(v.at("input"))) == parse_value(v.at("input"));
    EXPECT_EQ(r.flags, exact ? 0 : kNX) << v.dump();
  }
}

TEST(NumericsVectors, RoundingBeforeSaturation) {
  for (const auto& v : group("rounding_before_saturation")) {
    const DataType d = dt(v.at("destination"));
    const std::uint64_t in = encode_double(DataType::FP64, parse_value(v.at("input")), RoundingMode::RNE).bits;
    const Result r = hw().convert(in, DataType::FP64, d, {mode(v.at("mode")), v.at("sat").get<bool>()});
    const auto expected = static_cast<std::int64_t>(std::stoll(v.at("expected").get<std::string>()));
    EXPECT_EQ(r.bits, static_cast<std::uint64_t>(expected) & 0xFFULL) << v.dump();
    // Without saturation the rounded intermediate is out of range: invalid.
    const Result ns = hw().convert(in, DataType::FP64, d, {mode(v.at("mode")), false});
    EXPECT_EQ(ns.bits, 0x80U) << v.dump();
    EXPECT_TRUE(ns.flags & kNV);
  }
}

TEST(NumericsVectors, RoundingSelection) {
  for (const auto& v : group("rounding_selection")) {
    const std::string ns = v.at("namespace");
    const unsigned raw = v.at("raw");
    if (ns == "scalar-core-state-frm") {
      EXPECT_EQ(decode_scalar_frm(raw), mode(v.at("expected_mode"))) << v.dump();
    } else if (ns == "bundle-rmode") {
      EXPECT_EQ(resolve_bundle_rmode(raw, true), mode(v.at("expected_mode"))) << v.dump();
    } else if (ns == "public-conversion") {
      const auto b = public_cast_to_bundle_rmode(raw);
      if (v.contains("expected")) {
        EXPECT_FALSE(b.has_value()) << v.dump();
      } else {
        ASSERT_TRUE(b.has_value()) << v.dump();
        EXPECT_EQ(*b, v.at("bundle_rmode").get<unsigned>()) << v.dump();
      }
    } else {
      ADD_FAILURE() << "unknown namespace " << ns;
    }
  }
}

TEST(NumericsVectors, Saturation) {
  for (const auto& v : group("saturation")) {
    const DataType d = dt(v.at("destination"));
    const std::uint64_t in = encode_double(DataType::FP64, parse_value(v.at("input")), RoundingMode::RNE).bits;
    const Result r = hw().convert(in, DataType::FP64, d, {RoundingMode::RNE, v.at("sat").get<bool>()});
    const std::string e = v.at("expected");
    std::uint64_t expected;
    if (e.rfind("0x", 0) == 0) expected = pto::test::parse_hex(e);
    else expected = static_cast<std::uint64_t>(std::stoll(e)) & ((element_width(d) == 64) ? ~0ULL : ((1ULL << element_width(d)) - 1));
    EXPECT_EQ(r.bits, expected) << v.dump();
  }
}

TEST(NumericsVectors, SignedZero) {
  for (const auto& v : group("signed_zero")) {
    const auto a = f32(parse_value(v.at("inputs")[0])), b = f32(parse_value(v.at("inputs")[1]));
    const std::string op = v.at("operation");
    const RoundingMode m = v.contains("rounding") ? mode(v.at("rounding")) : RoundingMode::RNE;
    BinaryOp bop = op == "multiply" ? BinaryOp::MUL : op == "add" ? BinaryOp::ADD
                   : op == "minimum" ? BinaryOp::MIN : BinaryOp::MAX;
    EXPECT_EQ(hw().binary(bop, DataType::FP32, a, b, m).bits, hx(v.at("expected"))) << v.dump();
    EXPECT_EQ(hw().binary(bop, DataType::FP32, b, a, m).bits, hx(v.at("expected"))) << "swapped " << v.dump();
  }
}

TEST(NumericsVectors, SubnormalPolicy) {
  for (const auto& v : group("subnormal_policy")) {
    if (v.contains("expected")) {
      const bool ok = subnormal_configuration_valid(v.at("ftz"), v.at("daz"), v.at("operation_override"));
      EXPECT_EQ(ok, v.at("expected").get<std::string>() == "accept") << v.dump();
      continue;
    }
    const DataType t = dt(v.at("data_type"));
    const std::uint64_t raw = hx(v.at("raw"));
    EXPECT_EQ(std::string(value_class_name(classify(t, raw))), v.at("expected_class").get<std::string>()) << v.dump();
    // Preserve exact source value; gradual underflow; tininess after rounding.
    EXPECT_EQ(hw().convert(raw, t, DataType::FP64, {}).bits,
              std::bit_cast<std::uint64_t>(static_cast<double>(std::bit_cast<float>(static_cast<std::uint32_t>(raw)))));
  }
  // Tininess after rounding: FP64 value just below 2^-126 that rounds to the
  // minimum normal reports NX without UF; one that stays subnormal reports UF.
  const double below = std::nextafter(std::ldexp(1.0, -126), 0.0);
  const Result r1 = encode_double(DataType::FP32, below, RoundingMode::RNE);
  EXPECT_EQ(r1.bits, 0x00800000U);
  EXPECT_EQ(r1.flags, kNX);
  const Result r2 = encode_double(DataType::FP32, std::ldexp(1.0, -140) * 1.25000001, RoundingMode::RNE);
  EXPECT_EQ(r2.flags, kNX | kUF);
}

TEST(NumericsVectors, TcvtE8M0) {
  const auto& g = group("tcvt_e8m0");
  for (const auto& v : g.at("vectors")) {
    const DataType s = dt(v.at("source_type"));
    const NumericControl c{mode(v.at("rmode")), v.at("sat").get<bool>()};
    for (const NumericProfile* p : {&reference_profile(), &ieee_profile()}) {
      const Result r = p->convert(hx(v.at("input")), s, DataType::E8M0, c);
      EXPECT_EQ(r.bits, hx(v.at("expected"))) << p->id() << " " << v.dump();
      EXPECT_EQ(r.flags, flags_of(v.at("flags"))) << p->id() << " " << v.dump();
    }
  }
  const auto& k = g.at("contract");
  // Invalid inputs: zero, negative, NaN -> 0xFF with NV.
  const std::uint64_t invalid_inputs[] = {0x0000, 0x8000, 0xBF80, 0xFF80, 0x7FC0, 0x7F81};
  for (auto in : invalid_inputs) {
    const Result r = reference_profile().convert(in, DataType::BF16, DataType::E8M0, {});
    EXPECT_EQ(r.bits, hx(k.at("invalid").at("result")));
    EXPECT_EQ(r.flags, flags_of(k.at("invalid").at("flags")));
  }
  for (bool sat : {false, true}) {
    const Result inf = reference_profile().convert(0x7F80, DataType::BF16, DataType::E8M0, {RoundingMode::RNE, sat});
    EXPECT_EQ(inf.bits, hx(k.at("positive_infinity").at(sat ? "sat1_result" : "sat0_result")));
    EXPECT_EQ(inf.flags, flags_of(k.at("positive_infinity").at("flags")));
  }
  // Every non-power-of-two in-range source records NX; powers of two are exact.
  for (int e = -127; e <= 127; ++e) {
    const auto p2 = encode_double(DataType::FP32, std::ldexp(1.0, e), RoundingMode::RNE).bits;
    const Result r = reference_profile().convert(p2, DataType::FP32, DataType::E8M0, {});
    EXPECT_EQ(r.bits, static_cast<std::uint64_t>(e + 127));
    EXPECT_EQ(r.flags, 0);
  }
}

TEST(NumericsVectors, MixedExpdif) {
  const auto& g = group("mixed_expdif");
  for (const auto& v : g.at("discriminator_vectors")) {
    const DataType s = dt(v.at("source_type"));
    const auto a = hx(v.at("a")), b = hx(v.at("b"));
    const Result wa = hw().convert(a, s, DataType::FP32, {}), wb = hw().convert(b, s, DataType::FP32, {});
    EXPECT_EQ(wa.flags | wb.flags, 0);  // exact widening
    const Result sub = hw().binary(BinaryOp::SUB, DataType::FP32, wa.bits, wb.bits, RoundingMode::RNE);
    EXPECT_EQ(sub.bits, hx(v.at("widen_first_sub"))) << v.dump();
    const Result ex = hw().unary(UnaryOp::EXP, DataType::FP32, sub.bits, RoundingMode::RNE);
    EXPECT_EQ(ex.bits, hx(v.at("widen_first_exp"))) << v.dump();
    // Source-precision pipeline (the rejected alternative) is distinguishable.
    const Result ssub = hw().binary(BinaryOp::SUB, s, a, b, RoundingMode::RNE);
    const Result swid = hw().convert(ssub.bits, s, DataType::FP32, {});
    EXPECT_EQ(swid.bits, hx(v.at("source_precision_sub_then_widen"))) << v.dump();
    EXPECT_EQ(hw().unary(UnaryOp::EXP, DataType::FP32, swid.bits, RoundingMode::RNE).bits,
              hx(v.at("source_precision_exp")))
        << v.dump();
  }
}

TEST(NumericsVectors, Reduction) {
  for (const auto& v : group("reduction")) {
    const std::string op = v.at("operation");
    std::vector<std::uint64_t> x;
    for (const auto& s : v.at("inputs")) x.push_back(f32(parse_value(s)));
    if (op == "ARGMAX") {
      std::size_t best = 0;
      for (std::size_t i = 1; i < x.size(); ++i)
        if (hw().compare(CompareOp::GT, DataType::FP32, x[i], x[best]).value) best = i;
      EXPECT_EQ(best, v.at("expected_index").get<std::size_t>());
      continue;
    }
    std::uint64_t acc = x[0];
    for (std::size_t i = 1; i < x.size(); ++i) {
      const BinaryOp b = op == "MIN" ? BinaryOp::MIN : op == "MAX" ? BinaryOp::MAX : BinaryOp::ADD;
      acc = hw().binary(b, DataType::FP32, acc, x[i], RoundingMode::RNE).bits;
    }
    const std::string e = v.at("expected");
    if (e == "canonical-qNaN") EXPECT_EQ(acc, 0x7FC00000U);
    else EXPECT_EQ(acc, f32(parse_value(e))) << v.dump();
  }
}

TEST(NumericsVectors, MatrixFmaChains) {
  for (const auto& v : group("matrix")) {
    const std::string id = v.at("id");
    auto fma = [](std::uint64_t acc, std::uint64_t l, std::uint64_t r) {
      return hw().fused(FusedOp::MADD, DataType::FP32, acc, l, r, RoundingMode::RNE).bits;
    };
    if (id == "fp32-matmul-2x2") {
      for (int i = 0; i < 2; ++i)
        for (int j = 0; j < 2; ++j) {
          std::uint64_t acc = 0;
          for (int k : v.at("k_order")) acc = fma(acc, f32(parse_value(v.at("left")[i][k])), f32(parse_value(v.at("right")[k][j])));
          EXPECT_EQ(acc, f32(parse_value(v.at("expected")[i][j]))) << id;
        }
    } else if (id == "fp32-matmul-bias" || id == "fp32-matmul-acc") {
      const char* other = id == "fp32-matmul-bias" ? "bias" : "prior_acc";
      for (int j = 0; j < 2; ++j) {
        const auto r = hw().binary(BinaryOp::ADD, DataType::FP32, f32(parse_value(v.at("dot_products")[j])),
                                   f32(parse_value(v.at(other)[j])), RoundingMode::RNE);
        EXPECT_EQ(r.bits, f32(parse_value(v.at("expected_acc")[j]))) << id;
      }
    } else if (id == "mx-e8m0-scale") {
      const auto scale = hw().convert(hx(v.at("e8m0")), DataType::E8M0, DataType::FP32, {}).bits;
      const auto r = hw().binary(BinaryOp::MUL, DataType::FP32, f32(parse_value(v.at("base"))), scale, RoundingMode::RNE);
      EXPECT_EQ(r.bits, f32(parse_value(v.at("expected"))));
    } else if (id == "mx-k-block-33") {
      const DataType lt = dt(v.at("left_type")), rt = dt(v.at("right_type"));
      const auto one_l = encode_double(lt, 1.0, RoundingMode::RNE).bits, one_r = encode_double(rt, 1.0, RoundingMode::RNE).bits;
      auto scaled = [&](DataType t, std::uint64_t x, const json& s) {
        const auto w = hw().convert(x, t, DataType::FP32, {}).bits;
        const auto sc = hw().convert(hx(s), DataType::E8M0, DataType::FP32, {}).bits;
        return hw().binary(BinaryOp::MUL, DataType::FP32, w, sc, RoundingMode::RNE).bits;
      };
      auto run = [&](std::uint64_t init) {
        std::uint64_t acc = init;
        for (int k = 0; k < 33; ++k)
          acc = fma(acc, scaled(lt, one_l, v.at("scale_a")[k / 32]), scaled(rt, one_r, v.at("scale_b")[k / 32]));
        return acc;
      };
      EXPECT_EQ(run(0), f32(parse_value(v.at("expected_acc"))));
      EXPECT_EQ(run(f32(3)), f32(parse_value(v.at("expected_acc_with_prior_3"))));
      EXPECT_EQ(hw().binary(BinaryOp::ADD, DataType::FP32, run(0), f32(2), RoundingMode::RNE).bits,
                f32(parse_value(v.at("expected_acc_with_bias_2"))));
    } else {
      ADD_FAILURE() << "unknown matrix vector " << id;
    }
  }
}

// Only the conversion-shaped postprocess vectors belong to numerics; the
// B.FPATR requantisation (req8-*) and LReLU vectors are owned by the matrix
// postprocess implementation and are checked there.
TEST(NumericsVectors, MatrixPostprocessConversions) {
  int checked = 0;
  for (const auto& v : group("matrix_postprocess")) {
    const std::string id = v.at("id");
    if (id == "f32-e4m3-exact" || id == "f32-hif8-exact") {
      const Result r = hw().convert(hx(v.at("input_raw")), DataType::FP32, dt(v.at("destination")), {});
      EXPECT_EQ(r.bits, hx(v.at("expected_raw"))) << id;
      EXPECT_EQ(r.flags, 0) << id;
      ++checked;
    } else if (id == "nan-indefinite" || id == "nan-saturating-zero") {
      const Result r = hw().convert(0x7FC00000, DataType::FP32, dt(v.at("destination")),
                                    {RoundingMode::RNE, v.at("sat").get<bool>()});
      EXPECT_EQ(r.bits, hx(v.at("expected_raw"))) << id;
      EXPECT_EQ(r.flags, flags_of(v.at("expected_flags"))) << id;
      ++checked;
    }
  }
  EXPECT_EQ(checked, 4);
}

TEST(NumericsVectors, SortOrderWithCompare) {
  for (const auto& v : group("sort")) {
    std::vector<std::uint64_t> x;
    for (const auto& s : v.at("input_values")) x.push_back(f32(parse_value(s)));
    auto run = [&](bool descending) {
      std::vector<std::size_t> idx(x.size());
      std::iota(idx.begin(), idx.end(), 0);
      std::stable_sort(idx.begin(), idx.end(), [&](std::size_t a, std::size_t b) {
        const bool an = is_nan(classify(DataType::FP32, x[a])), bn = is_nan(classify(DataType::FP32, x[b]));
        if (an || bn) return !an && bn;  // NaNs last, stable
        return hw().compare(descending ? CompareOp::GT : CompareOp::LT, DataType::FP32, x[a], x[b]).value;
      });
      return idx;
    };
    EXPECT_EQ(run(false), v.at("ascending_expected_original_indices").get<std::vector<std::size_t>>());
    EXPECT_EQ(run(true), v.at("descending_expected_original_indices").get<std::vector<std::size_t>>());
  }
}
