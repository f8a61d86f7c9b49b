// Operand spellings whose encoding depends on per-unit decode rules of the
// ASL: SrcRType modifiers, the BSTART.CALL return label, SETC.*I immediates.
// Every expected word is derived by hand from the catalog field layout and
// the ASL (cited per case), never from our own output.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "dis/disassembler.hpp"

namespace pto::as {
namespace {

struct Case {
  const char* text;        // canonical assembly at address 0
  std::uint32_t word;      // hand-derived encoding
};

std::vector<std::uint8_t> assemble_text(const std::string& src) {
  const Result r = assemble(src + "\n", "t.s", {});
  if (!r.ok()) {
    ADD_FAILURE() << src << ": " << r.diagnostics.front().format();
    return {};
  }
  for (const auto& s : r.image->sections)
    if (s.name == ".text") return s.data;
  return {};
}

std::uint32_t word_of(const std::vector<std::uint8_t>& b) {
  if (b.size() != 4) {
    ADD_FAILURE() << "expected 4 bytes, got " << b.size();
    return 0;
  }
  return std::uint32_t{b[0]} | std::uint32_t{b[1]} << 8 | std::uint32_t{b[2]} << 16 | std::uint32_t{b[3]} << 24;
}

std::string disassemble_word(std::uint32_t w) {
  const std::vector<std::uint8_t> b = {static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(w >> 8),
                                       static_cast<std::uint8_t>(w >> 16), static_cast<std::uint8_t>(w >> 24)};
  const auto lines = dis::disassemble(b, 0, {});
  return lines.empty() ? std::string() : std::string(lines.front().text());
}

void check(const Case& c) {
  SCOPED_TRACE(c.text);
  EXPECT_EQ(word_of(assemble_text(c.text)), c.word);
  EXPECT_EQ(disassemble_word(c.word), c.text);
}

// Register numbers (ADR 0055): a0=2, a1=3, a2=4, a3=5, a4=6.
// Address forms decode SrcRType with DecodeScalarAddressRightModifier
// (asl/scalar/model/dispatch/decode.asl): 00 none, 01 .sw, 10 .uw, 11 .neg.
// LB: match 0x09, RegDst[11:7], SrcL[19:15], SrcR[24:20], SrcRType[26:25], shamt[31:27].
// SW: match 0x2049, SrcL[19:15], SrcR[24:20], SrcRType[26:25], SrcD[31:27].
TEST(AsmRightModifier, AddressFormsUseTheAddressDecoder) {
  const Case cases[] = {
      {"lb [a2, a4], ->a0", 0x00620109u},             // 2<<7 | 4<<15 | 6<<20 | 0<<25
      {"lb [a2, a4.sw<<3], ->a0", 0x1A620109u},       // | 1<<25 | 3<<27
      {"lb [a2, a4.uw], ->a0", 0x04620109u},          // | 2<<25
      {"lb [a2, a4.neg], ->a0", 0x06620109u},         // | 3<<25
      // SW scales the offset by its access size (ScalarAGUOffsetScaleOfForm): '<<2' is fixed text.
      {"sw a1, [a2, a4<<2]", 0x18622049u},            // 3<<27 | 4<<15 | 6<<20
      {"sw a1, [a2, a4.neg<<2]", 0x1E622049u},        // | 3<<25
  };
  for (const Case& c : cases) check(c);
  EXPECT_EQ(word_of(assemble_text("sw a1, [a2, a4]")), 0x18622049u);  // the scale may be left implicit
  EXPECT_FALSE(assemble(std::string("sw a1, [a2, a4<<3]\n"), "t.s", {}).ok());
}

// Arithmetic forms keep DecodeScalarBinaryRightModifier: 00 .sw, 01 .uw, 10 .neg/.not, 11 none.
// ADD: match 0x05, same field layout as LB.
TEST(AsmRightModifier, BinaryFormsUseTheBinaryDecoder) {
  const Case cases[] = {
      {"add a0, a1, ->a2", 0x06310205u},      // 4<<7 | 2<<15 | 3<<20 | 3<<25
      {"add a0, a1.sw, ->a2", 0x00310205u},
      {"add a0, a1.neg<<4, ->a2", 0x24310205u},  // 2<<25 | 4<<27
  };
  for (const Case& c : cases) check(c);
}

// SETC register forms decode with DecodeScalarComparisonRightModifier:
// 00 none, 01 .sw, 10 .uw (asl/scalar/model/dispatch/bru.asl -> decode.asl).
// SETC.EQ: match 0x65, SrcL[19:15], SrcR[24:20], SrcRType[26:25].
TEST(AsmRightModifier, SetcRegisterFormsUseTheComparisonDecoder) {
  const Case cases[] = {
      {"setc.eq a0, a1", 0x00310065u},
      {"setc.eq a0, a1.sw", 0x02310065u},
      {"setc.eq a0, a1.uw", 0x04310065u},
  };
  for (const Case& c : cases) check(c);
  // Code 11 has no effect for restricted comparisons (ApplyRestrictedCompareModifier)
  // but keeps its decoder's spelling .neg, so the encoding round-trips.
  check({"setc.eq a0, a1.neg", 0x06310065u});
}

// CSEL decodes with DecodeScalarSelectRightModifier: 11 .neg, anything else none.
// CSEL: match 0x77, RegDst[11:7], SrcL[19:15], SrcR[24:20], SrcRType[26:25], SrcP[31:27].
TEST(AsmRightModifier, CselUsesTheSelectDecoder) {
  const Case cases[] = {
      {"csel a0, a1, a2, ->a3", 0x104182F7u},      // 2<<27 | 3<<15 | 4<<20 | 5<<7
      {"csel a0, a1, a2.neg, ->a3", 0x164182F7u},  // | 3<<25
  };
  for (const Case& c : cases) check(c);
}

// The fused call's return target is P + (length_bits/8 - 2) + 2*uimm5
// (asl/block/model/dispatch/start.asl), i.e. P + 2 + 2*uimm5 for these 32-bit forms.
// BSTART.CALL: match 0x50160002, simm12[15:4] (target = P + 2*simm12), uimm5[26:22].
TEST(AsmFusedCall, ReturnLabelCountsFromTheSetretHalfword) {
  const Case cases[] = {
      {"BSTART.CALL 0x40, 0xa, ->ra", 0x51160202u},  // simm12 = 0x20, uimm5 = (0xa-2)/2 = 4
      {"BSTART.ICALL 0xa, ->ra", 0x51166001u},       // match 0x50166001 | 4<<22
      {"BSTART.ICALL 0x2, ->ra", 0x50166001u},       // uimm5 = 0 returns to P+2
  };
  for (const Case& c : cases) check(c);
}

// SETC.NEI SrcL, simm: shamt (not in the template) shifts the immediate and is
// zero when omitted (ExecuteDecodedSetCommitImmediate).
// SETC.NEI: match 0x1075, shamt[11:7], SrcL[19:15], simm12[31:20].
TEST(AsmSetcImmediate, TemplateSpellingWithoutShamt) {
  check({"setc.nei a0, 16", 0x01011075u});  // 2<<15 | 16<<20
  check({"setc.nei a0, 16, shamt=3", 0x010111F5u});  // | 3<<7 (0x180), printed only when non-zero
}

}  // namespace
}  // namespace pto::as
