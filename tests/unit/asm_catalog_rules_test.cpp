// Catalog and ASL rules checked at assembly, their disassembly as data, the
// B.IOT bits no field owns, and diagnostics (issue 16).  Expected words are
// derived by hand from the catalog field layouts cited per case.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "asm/syntax.hpp"
#include "dis/disassembler.hpp"
#include "isa/decoder.hpp"

namespace pto::as {
namespace {

Result run(const std::string& src) { return assemble(src + "\n", "t.s", {}); }

std::string first_error(const std::string& src) {
  const Result r = run(src);
  if (r.ok()) return "(assembled)";
  return r.diagnostics.front().message;
}

std::vector<std::uint8_t> le32(std::uint32_t w) {
  return {static_cast<std::uint8_t>(w), static_cast<std::uint8_t>(w >> 8), static_cast<std::uint8_t>(w >> 16),
          static_cast<std::uint8_t>(w >> 24)};
}

std::vector<std::uint8_t> le48(std::uint64_t w) {
  std::vector<std::uint8_t> b;
  for (int i = 0; i < 6; ++i) b.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
  return b;
}

std::string dis_text(const std::vector<std::uint8_t>& bytes) {
  const auto lines = dis::disassemble(bytes, 0, {});
  return lines.empty() ? std::string() : std::string(lines.front().text());
}

std::string dis_comment(const std::vector<std::uint8_t>& bytes) {
  const auto lines = dis::disassemble(bytes, 0, {});
  return lines.empty() ? std::string() : std::string(lines.front().comment());
}

// tile-operations.json reserved.tepl_selector_ranges: 0x005, 0x018..0x019,
// 0x075..0x07F, ... (selector = Mode * 32 + Function).
TEST(AsmCatalogRules, ReservedTeplSelectors) {
  EXPECT_EQ(first_error("BSTART.TEPL 0, 5, FP16"),
            "BSTART.TEPL Mode 0, Function 5 (selector 0x005) is reserved in PTO 0.58.3 (catalog tile-operations.json "
            "reserved.tepl_selector_ranges)");
  EXPECT_NE(first_error("BSTART.TEPL 3, 21, FP16").find("(selector 0x075) is reserved"), std::string::npos);
  EXPECT_NE(first_error("BSTART.TEPL 3, 30, FP16").find("(selector 0x07e) is reserved"), std::string::npos);
  EXPECT_NE(first_error("BSTART.TEPL 3, 31, FP16").find("(selector 0x07f) is reserved"), std::string::npos);
  // 0x01C is TFMA, next to the reserved 0x018..0x019.
  EXPECT_EQ(first_error("BSTART.TEPL 0, 28, FP16"), "(assembled)");
}

// HL.QMT: the catalog suffix list .{i,e,s,r,ie,is,ir,es,er,ies,ier} has no
// s with r (legality: s+r raises Fault_IllegalInstruction).
TEST(AsmCatalogRules, QueueMoveSuffixesWithSAndR) {
  for (const char* line : {"HL.QMT.sr a0, ->a2", "HL.QMT.esr a0, ->a2", "HL.QMT.isr a0, a1, ->a2",
                           "HL.QMT.iesr a0, a1, ->a2"}) {
    SCOPED_TRACE(line);
    EXPECT_NE(first_error(line).find("not in the catalog suffix list .{i,e,s,r,ie,is,ir,es,er,ies,ier} of HL.QMT"),
              std::string::npos);
  }
  // The word (HL.QMT match 0x7d000e, e 41, r 42, s 43) disassembles as data.
  const std::uint64_t esr = 0x7d000eull | 1ull << 41 | 1ull << 42 | 1ull << 43;
  EXPECT_EQ(dis_text(le48(esr)), ".half 0x000e, 0x007d, 0x0e00");
  EXPECT_NE(dis_comment(le48(esr)).find("illegal: hl.qmt.esr: not in the catalog suffix list"), std::string::npos);
}

// FrameTemplateOperandsLegal (asl/block/model/lifecycle/lifetime.asl):
// endpoints in R2..R23, FRET.STK begins at ra, uimm >= 8 * registers.
TEST(AsmCatalogRules, FrameTemplatesThatAlwaysFault) {
  EXPECT_NE(first_error("FENTRY [s0 ~ s2], sp!, 16")
                .find("FENTRY: a frame of 16 bytes is smaller than 8 bytes per saved register (3 registers need at "
                      "least 24)"),
            std::string::npos);
  EXPECT_EQ(first_error("FENTRY [s0 ~ s2], sp!, 24"), "(assembled)");
  // s8 (R19) .. a0 (R2) wraps: (24 - 19) + 2 - 1 = 6 registers.
  EXPECT_NE(first_error("FEXIT [s8 ~ a0], sp!, 40").find("(6 registers need at least 48)"), std::string::npos);
  EXPECT_EQ(first_error("FEXIT [s8 ~ a0], sp!, 48"), "(assembled)");
  // The endpoint rules are also catalog constraints (FRET.STK DstBegin one-of {10}).
  EXPECT_NE(first_error("FRET.STK [a0 ~ a1], sp!, 16").find("DstBegin must be one of {10} (got 2)"), std::string::npos);
  EXPECT_NE(first_error("FRET.STK [ra ~ s2], sp!, 24").find("(4 registers need at least 32)"), std::string::npos);
  EXPECT_EQ(first_error("FRET.RA [a0 ~ a1], sp!, 16"), "(assembled)");
  // A too-small frame disassembles as data with the rule (FENTRY fields in
  // catalog order: SrcBegin s0 = 11, SrcEnd s2 = 13, uimm 16).
  const auto& f = isa::form(*isa::form_by_id("fentry_32_a47584ec13b6"));
  ASSERT_EQ(isa::field_index(f, "uimm"), 2);
  const auto small = std::get<std::uint64_t>(isa::encode(f, std::vector<std::int64_t>{11, 13, 16}));
  EXPECT_NE(dis_comment(le32(static_cast<std::uint32_t>(small))).find("illegal: FENTRY: a frame of 16 bytes"),
            std::string::npos);
}

// Extension reservations (extension-encoding-reservations.json) are named.
TEST(AsmCatalogRules, ReservedEncodingSpaces) {
  EXPECT_EQ(first_error("BSTART.MSEQ 0"),
            "reserved encoding space BSTART.MSEQ (catalog reservation: PTO reserved two-level machine-block extension "
            "space, extension-encoding-reservations.json); it cannot be assembled");
  EXPECT_NE(first_error("BSTART.VPAR 0").find("reserved encoding space BSTART.VPAR"), std::string::npos);
  EXPECT_NE(first_error("C.BSTART.VSEQ").find("reserved encoding space C.BSTART.VSEQ"), std::string::npos);
  EXPECT_NE(first_error("v.fadd vt#1, zero, ->vt").find("reserved encoding space V.* (catalog reservation: PTO "
                                                        "reserved two-level vector extension space"),
            std::string::npos);
  EXPECT_NE(first_error("L.BSTART.STD.CALL x").find("reserved encoding space L.BSTART.STD.CALL"), std::string::npos);
  EXPECT_NE(first_error("HL.BSTART.FP.COND x").find("reserved encoding space HL.BSTART.FP.COND"), std::string::npos);
}

// B.IOT source-only forms (catalog b_iot_32_2c07e7177fad mask 0x0007f07f,
// b_iot_32_c11eb189dd83 mask 0xfc07f07f) own neither bit 7 nor bit 8: their
// fields are SrcTile1 [31:26], SrcTile0 [25:20], L 19, PEMode [11:9].  The
// ASL (BindBundleTileIO, asl/block/model/dispatch/commands.asl) reads DstTile
// only for forms that have it, so those bits are ignored; the words print as
// data so that reassembly keeps them.
TEST(AsmCatalogRules, BiotBitsNoFieldOwns) {
  EXPECT_EQ(unowned_bits(isa::form(*isa::form_by_id("b_iot_32_2c07e7177fad"))), 0x180u);
  EXPECT_EQ(unowned_bits(isa::form(*isa::form_by_id("b_iot_32_c11eb189dd83"))), 0x180u);
  EXPECT_EQ(unowned_bits(isa::form(*isa::form_by_id("b_iot_32_8b8bce6bffe8"))), 0u);
  EXPECT_EQ(dis_text(le32(0x2b784393)), ".word 0x2b784393");
  EXPECT_EQ(dis_text(le32(0x2b784313)), ".word 0x2b784313");
  EXPECT_NE(dis_comment(le32(0x2b784393)).find("with bits 0x180 set, which no field of b_iot_32_2c07e7177fad owns"),
            std::string::npos);
  // Bits 8:7 clear: SrcTile1 = 0x2b>>2 = 10 (T#11), SrcTile0 = 0x2b7 & 63 = 55
  // (N#8), L = 1, PEMode = 1 (mask 1000).
  EXPECT_EQ(dis_text(le32(0x2b784213)), "B.IOT N#8, T#11, mask=1000, last");
}

// When several forms share a mnemonic, the one that parsed most operands
// reports (B.DIM has one form per LB; only the ->LB1 form reaches the value).
TEST(AsmDiagnostics, BestMatchingFormReports) {
  EXPECT_EQ(first_error("B.DIM zero, 0xffffff, ->LB1"), "B.DIM uimm17: value 16777215 is out of range [0, 131071]");
  EXPECT_EQ(first_error("B.IOT mask=1111, ->U<14>"),
            "B.IOT SizeCode: size code 14 is out of range; B.IOT takes 1..10 (128B..64KB) (catalog SizeCode "
            "constraint)");
  EXPECT_EQ(first_error("B.IOT T#1, mask=1111, ->U<384B>"),
            "B.IOT SizeCode: tile size 384B is not a TileSizeCodeBytes size; expected 1..10 (128B..64KB)");
  EXPECT_EQ(first_error("B.IOS mask=1111, ->S3<512KB>"),
            "B.IOS SizeCode: tile size 512KB is not a TileSizeCodeBytes size; expected 0..12 (128B..256KB)");
}

// Control bytes of the input are escaped in messages and in the quoted line.
TEST(AsmDiagnostics, ControlBytesAreEscaped) {
  const Result r = run(std::string("frob\x01\x1b[2J a0"));
  ASSERT_FALSE(r.ok());
  const Diagnostic& d = r.diagnostics.front();
  EXPECT_EQ(d.message, "unknown mnemonic 'frob\\x01\\x1b[2J'");
  const std::string shown = d.format();
  EXPECT_EQ(shown.find('\x01'), std::string::npos);
  EXPECT_EQ(shown.find('\x1b'), std::string::npos);
  EXPECT_NE(shown.find("frob\\x01\\x1b[2J a0"), std::string::npos);
  EXPECT_EQ(escape_control("a\tb\x7f"), "a\tb\\x7f");
}

// The caret stays under the failing column after escaped bytes.
TEST(AsmDiagnostics, CaretAfterEscapedBytes) {
  const Result r = run(std::string("B.IOT mask=1111, ->U<14> # \x01"));
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.front().format(),
            "t.s:1:22: error: B.IOT SizeCode: size code 14 is out of range; B.IOT takes 1..10 (128B..64KB) (catalog "
            "SizeCode constraint)\n  B.IOT mask=1111, ->U<14> # \\x01\n                       ^\n");
}

}  // namespace
}  // namespace pto::as
