// The spec's decode-positive test points (tests/asl/**, kind decode-positive),
// extracted with their AVS ids by tools/extract_decode_vectors.py into
// tests/data/spec_decode_positive.json: each (bits, length) decodes to the
// stated form with the stated field values.
#include <gtest/gtest.h>

#include "isa/decoder.hpp"
#include "test_util.hpp"

using namespace pto;

TEST(SpecDecodePositive, EveryTestPointDecodesAsStated) {
  const auto points = test::load_json(test::data_path("spec_decode_positive.json"));
  ASSERT_GE(points.size(), 528u);
  std::size_t assertions = 0;
  for (const auto& tp : points) {
    const std::string avs = tp["avs_id"];
    for (const auto& a : tp["assertions"]) {
      const std::uint64_t bits = test::parse_hex(a["bits"]);
      const unsigned length = a["length_bits"];
      const isa::Decoded d = isa::decode(bits, length);
      // ESAVE/ERCOV/XB decode to their (reserved-in-PTO) forms, which the model
      // then rejects; every other decode-positive point is an accepted form.
      const bool decodes = d.ok() || d.status == isa::DecodeStatus::ReservedInPto;
      ASSERT_TRUE(decodes) << avs << ": " << a.dump() << " -> " << isa::decode_status_name(d.status);
      EXPECT_EQ(std::string(d.desc().mnemonic), a["expected_mnemonic"].get<std::string>()) << avs;
      if (a.contains("expected_form_id") && !a["expected_form_id"].is_null()) {
        EXPECT_EQ(std::string(d.desc().form_id), a["expected_form_id"].get<std::string>()) << avs;
      }
      if (a.contains("fields")) {
        for (const auto& [name, value] : a["fields"].items()) {
          EXPECT_EQ(isa::field_value(d.desc(), name, bits), value.get<std::int64_t>()) << avs << " field " << name;
        }
      }
      ++assertions;
    }
  }
  EXPECT_GE(assertions, 553u);
}
