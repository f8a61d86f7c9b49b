// Codec tests: every catalog form round-trips, reservations and overlaps
// resolve as the catalogs say, the length rule holds for every encoding.
#include <gtest/gtest.h>

#include <bit>
#include <random>
#include <set>

#include "isa/decoder.hpp"
#include "isa/length.hpp"
#include "isa/tile_start.hpp"
#include "test_util.hpp"

using namespace pto;
using namespace pto::isa;

namespace {

// A random value for a field that satisfies the form's constraints on it.
std::int64_t random_legal_value(const FormDesc& f, std::size_t field, std::mt19937_64& rng) {
  const FieldDesc& fd = fields_of(f)[field];
  const FieldRange r = field_range(fd);
  for (int attempt = 0; attempt < 1000; ++attempt) {
    std::int64_t v = r.min + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(r.max - r.min + 1));
    v -= v % field_step(fd);
    bool ok = true;
    for (const ConstraintDesc& c : constraints_of(f)) {
      if (c.field == field && !constraint_holds(c, v)) ok = false;
    }
    if (ok) return v;
  }
  for (const ConstraintDesc& c : constraints_of(f)) {
    if (c.field == field && c.op == ConstraintOp::OneOf) return values_of(c)[rng() % c.value_count];
  }
  ADD_FAILURE() << f.form_id << ": no legal value for " << fd.name;
  return 0;
}

}  // namespace

TEST(CatalogTables, Counts) {
  EXPECT_EQ(kScalarFormCount, 466u);
  EXPECT_EQ(kCommandFormCount, 74u);
  EXPECT_EQ(kExtensionReservationCount, 40u);
  EXPECT_EQ(kTileOpCount, 109u);
  EXPECT_EQ(kSystemRegisterCount, 72u);
  std::size_t by_engine[4] = {};
  for (const TileOpDesc& t : tile_ops()) ++by_engine[static_cast<int>(t.engine)];
  // Catalog and generated TileEngineOfIndex: 31 VEC, 56 SFU, 10 TLSU, 12 CUBE.
  EXPECT_EQ(by_engine[static_cast<int>(TileEngine::VEC)], 31u);
  EXPECT_EQ(by_engine[static_cast<int>(TileEngine::SFU)], 56u);
  EXPECT_EQ(by_engine[static_cast<int>(TileEngine::TLSU)], 10u);
  EXPECT_EQ(by_engine[static_cast<int>(TileEngine::CUBE)], 12u);
  EXPECT_STREQ(kRelease, "0.58.3");
  EXPECT_STREQ(kEncodingAbi, "pto-isa-0.58.3-mode-function-v1");
  EXPECT_STREQ(kEncodingProjectionSha256, "8a48b80e04484c70870f155bf9efc79d2a805cf99e809f4e4e8a7e6a7eb34172");
}

TEST(LengthRule, EveryFormAndReservation) {
  for (const FormDesc& f : all_forms()) {
    const auto half = [&](unsigned i) -> std::optional<std::uint16_t> {
      if (i * 16 >= f.length_bits) return std::nullopt;
      return static_cast<std::uint16_t>(f.match >> (16 * i));
    };
    EXPECT_EQ(instruction_length_bits(half), f.length_bits) << f.mnemonic << " " << f.form_id;
  }
}

TEST(LengthRule, FusedCallForms) {
  // BSTART.CALL: C.BSTART DIRECT halfword + C.SETRET halfword = one 32-bit form.
  const std::uint16_t call[2] = {0x0002, 0x5016};
  EXPECT_EQ(instruction_length_bits([&](unsigned i) -> std::optional<std::uint16_t> {
              return i < 2 ? std::optional<std::uint16_t>(call[i]) : std::nullopt;
            }),
            32u);
  // A C.BSTART DIRECT followed by anything else stays 16-bit.
  const std::uint16_t plain[2] = {0x0002, 0x0008};
  EXPECT_EQ(instruction_length_bits([&](unsigned i) -> std::optional<std::uint16_t> {
              return i < 2 ? std::optional<std::uint16_t>(plain[i]) : std::nullopt;
            }),
            16u);
  EXPECT_EQ(base_length_bits(0x000f), 64u);
  EXPECT_EQ(base_length_bits(0x000e), 48u);
  EXPECT_EQ(base_length_bits(0x0001), 32u);
  EXPECT_EQ(base_length_bits(0x0008), 16u);
}

TEST(Decoder, EveryFormMatchValueAndRandomFieldsRoundTrip) {
  std::mt19937_64 rng(0x5eed0583);
  for (const FormDesc& f : catalog_forms()) {
    const auto nf = fields_of(f).size();
    for (int trial = 0; trial < 64; ++trial) {
      std::vector<std::int64_t> values(nf);
      for (std::size_t i = 0; i < nf; ++i) values[i] = random_legal_value(f, i, rng);
      auto enc = encode(f, values);
      ASSERT_TRUE(std::holds_alternative<std::uint64_t>(enc))
          << f.form_id << ": " << std::get<EncodeError>(enc).message;
      const std::uint64_t bits = std::get<std::uint64_t>(enc);
      ASSERT_EQ(bits & f.mask, f.match) << f.form_id;
      const Decoded d = decode(bits, f.length_bits);
      ASSERT_NE(d.status, DecodeStatus::NoForm) << f.form_id;
      if (f.mnem == Mnemonic::BSTART_TEPL && !tile_op_of_start(bits)) {
        EXPECT_EQ(d.status, DecodeStatus::ReservedTileSelector);
        continue;
      }
      ASSERT_EQ(d.form, index_of(f)) << f.form_id << " bits " << std::hex << bits << " decoded as "
                                     << d.desc().form_id;
      EXPECT_EQ(d.status, f.status == FormStatus::ReservedInPto ? DecodeStatus::ReservedInPto
                                                                 : DecodeStatus::Accepted)
          << f.form_id;
      for (std::size_t i = 0; i < nf; ++i) EXPECT_EQ(field_value(fields_of(f)[i], bits), values[i]) << f.form_id;
      // Re-encoding the decoded field values reproduces the bits.
      std::vector<std::int64_t> back(nf);
      for (std::size_t i = 0; i < nf; ++i) back[i] = field_value(fields_of(f)[i], bits);
      EXPECT_EQ(std::get<std::uint64_t>(encode(f, back)), bits) << f.form_id;
    }
  }
}

TEST(Decoder, ExtensionReservationsNeverDecodeAsAcceptedForms) {
  std::mt19937_64 rng(40);
  for (const FormDesc& f : all_forms().subspan(kCatalogFormCount)) {
    ASSERT_EQ(f.status, FormStatus::ExtensionReserved);
    for (int trial = 0; trial < 256; ++trial) {
      std::uint64_t bits = (rng() & ~f.mask & length_mask(f.length_bits)) | f.match;
      if (first_failed_constraint(f, bits) >= 0) continue;  // Fixup: simm17 != 0
      const Decoded d = decode(bits, f.length_bits);
      EXPECT_EQ(d.status, DecodeStatus::ExtensionReserved) << f.mnemonic << std::hex << " " << bits;
    }
  }
}

TEST(Decoder, FixupPayloadVersusFallForm) {
  // BSTART.STD FALL requires simm17 = 0; nonzero simm17 is the reserved Fixup payload (ADR 0077).
  EXPECT_EQ(decode(0x00001001, 32).status, DecodeStatus::Accepted);
  EXPECT_STREQ(decode(0x00001001, 32).desc().mnemonic, "BSTART.STD");
  const Decoded fix = decode(0x00009001, 32);
  EXPECT_EQ(fix.status, DecodeStatus::ExtensionReserved);
  EXPECT_STREQ(fix.desc().mnemonic, "BSTART.STD.FIXUP");
}

TEST(Decoder, ReviewedOverlapPairs) {
  // C.BSTOP (0x0000) wins over C.BSTART.STD with BrType 0.
  EXPECT_STREQ(decode(0x0000, 16).desc().mnemonic, "C.BSTOP");
  // C.SETRET (mask 0xf83f, match 0x5016) wins over C.MOVI.
  EXPECT_STREQ(decode(0x5016, 16).desc().mnemonic, "C.SETRET");
  // B.IOT source-only form (SizeCode 0) vs destination form (SizeCode 1..10).
  const Decoded src_only = decode(0x00005013u | (5u << 20), 32);
  const Decoded with_dst = decode(0x4508CE13u, 32);
  EXPECT_STREQ(src_only.desc().mnemonic, "B.IOT");
  EXPECT_STREQ(with_dst.desc().mnemonic, "B.IOT");
  EXPECT_EQ(src_only.desc().form_id, std::string("b_iot_32_c11eb189dd83"));
  EXPECT_NE(src_only.form, with_dst.form);
  // Same opcode with SizeCode 3: the destination form.
  EXPECT_EQ(decode(0x00005013u | (5u << 20) | (3u << 15), 32).desc().form_id, std::string("b_iot_32_10db6db84f5d"));
}

TEST(Decoder, SetretAddtpcAndConstraintViolation) {
  // SETRET is ADDTPC with RegDst = ra (10); ADDTPC itself forbids RegDst 10.
  const FormDesc* addtpc = nullptr;
  const FormDesc* setret = nullptr;
  for (const FormDesc& f : catalog_forms()) {
    if (std::string_view(f.mnemonic) == "ADDTPC") addtpc = &f;
    if (std::string_view(f.mnemonic) == "SETRET") setret = &f;
  }
  ASSERT_TRUE(addtpc && setret);
  const int rd = field_index(*addtpc, "RegDst");
  ASSERT_GE(rd, 0);
  std::vector<std::int64_t> v(fields_of(*addtpc).size(), 0);
  v[static_cast<std::size_t>(rd)] = 10;
  EXPECT_TRUE(std::holds_alternative<EncodeError>(encode(*addtpc, v)));
  // The same bits decode as SETRET (the more specific mask).
  const std::uint64_t bits = addtpc->match | (std::uint64_t{10} << pieces_of(fields_of(*addtpc)[rd])[0].instruction_lsb);
  EXPECT_STREQ(decode(bits, 32).desc().mnemonic, "SETRET");
}

TEST(Decoder, EncodingTotalityRawVectors) {
  const auto j = test::load_json(test::data_path("spec-evidence/pto-isa-0583-encoding-totality.json"));
  for (const auto& v : j["positive_raw_vectors"]) {
    const std::uint64_t raw = test::parse_hex(v["raw"]);
    const Decoded d = decode(raw, 32);
    ASSERT_EQ(d.status, DecodeStatus::Accepted) << v.dump();
    auto op = tile_op_of_start(raw);
    ASSERT_TRUE(op.has_value());
    EXPECT_EQ(tile_op(*op).name, v["name"].get<std::string>());
    EXPECT_EQ(tile_op(*op).function, v["function"].get<int>());
    EXPECT_EQ(tile_op(*op).mode, v["mode"].get<int>());
  }
  int negatives = 0;
  for (const auto& v : j["negative_raw_vectors"]) {
    const Decoded d = decode(test::parse_hex(v["raw"]), 32);
    EXPECT_FALSE(d.ok()) << v.dump();
    ++negatives;
  }
  EXPECT_EQ(negatives, 21);
}

TEST(Decoder, TeplSelectorMapMatchesCatalogReservedRanges) {
  // Every TEPL selector either names exactly one operation or lies in a
  // reserved range; reserved ones decode as ReservedTileSelector.
  int named = 0;
  for (unsigned sel = 0; sel < 128; ++sel) {
    const std::uint64_t bits = 0x00019181u | (std::uint64_t{sel} << 20) | (std::uint64_t{1} << 27);
    const Decoded d = decode(bits, 32);
    if (tile_op_of_start(bits)) {
      ++named;
      EXPECT_EQ(d.status, DecodeStatus::Accepted);
    } else {
      EXPECT_EQ(d.status, DecodeStatus::ReservedTileSelector);
    }
  }
  EXPECT_EQ(named, 87);
}

TEST(Decoder, DataTypeCodesOutsideTheTwentyFiveAreIllegal) {
  // BSTART.TLOAD accepts the 25 data-type codes; 15, 21..23, 29..31 violate the constraint.
  for (unsigned code = 0; code < 32; ++code) {
    const Decoded d = decode(0x00011181u | (std::uint64_t{code} << 27), 32);
    const bool valid = code <= 14 || (code >= 16 && code <= 20) || (code >= 24 && code <= 28);
    EXPECT_EQ(d.status, valid ? DecodeStatus::Accepted : DecodeStatus::ConstraintViolation) << code;
  }
}

TEST(Encoder, ErrorsNameFormFieldAndRange) {
  const FormDesc& f = form(*form_by_id("hl_addi_48_9d3818bfbe64"));
  std::vector<std::int64_t> v(fields_of(f).size(), 0);
  v[static_cast<std::size_t>(field_index(f, "uimm24"))] = 1 << 24;
  auto r = encode(f, v);
  ASSERT_TRUE(std::holds_alternative<EncodeError>(r));
  EXPECT_NE(std::get<EncodeError>(r).message.find("HL.ADDI"), std::string::npos);
  EXPECT_NE(std::get<EncodeError>(r).message.find("uimm24"), std::string::npos);
  EXPECT_NE(std::get<EncodeError>(r).message.find("[0, 16777215]"), std::string::npos);
}

TEST(Decoder, SpecMapMinimalBundleEncodings) {
  // Hand-derived from the catalog (SPEC-MAP section 3).
  EXPECT_STREQ(decode(0xC8019181, 32).desc().mnemonic, "BSTART.TEPL");
  EXPECT_EQ(tile_op(*tile_op_of_start(0xC8019181)).name, std::string("TADD"));
  EXPECT_STREQ(decode(0x023C, 16).desc().mnemonic, "C.B.DIMI");
  EXPECT_STREQ(decode(0x4508CE13, 32).desc().mnemonic, "B.IOT");
  EXPECT_STREQ(decode(0x00000001, 32).desc().mnemonic, "BSTOP");
  EXPECT_STREQ(decode(0xC8011181, 32).desc().mnemonic, "BSTART.TLOAD");
  EXPECT_STREQ(decode(0x00200043, 32).desc().mnemonic, "B.DIM");
  EXPECT_STREQ(decode(0x00310013, 32).desc().mnemonic, "B.IOR");
  EXPECT_STREQ(decode(0x000000010000000full, 64).desc().mnemonic, "L.BSTOP");
}
