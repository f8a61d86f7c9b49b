// Assembler: spec examples, directives, labels, ELF output and exact error
// messages.  Expected encodings are hand-derived from catalog match values.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "asm/assembler.hpp"
#include "dis/disassembler.hpp"
#include "test_util.hpp"

namespace pto::as {
namespace {

Result run(const std::string& src, const Options& o = {}) { return assemble(src, "t.s", o); }

std::vector<std::uint8_t> text_bytes(const Result& r) {
  for (const auto& s : r.image->sections)
    if (s.name == ".text") return s.data;
  return {};
}

std::string first_error(const std::string& src) {
  const Result r = run(src);
  if (r.diagnostics.empty()) return "(no error)";
  const auto& d = r.diagnostics.front();
  return fmt::format("{}:{}: {}", d.line, d.column, d.message);
}

std::uint64_t le(const std::vector<std::uint8_t>& b, std::size_t at, std::size_t n) {
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < n; ++i) v |= std::uint64_t{b[at + i]} << (8 * i);
  return v;
}

// Every concrete example of the spec's instruction contracts that is valid
// 0.58.3 text assembles; given encodings match; disassembly reassembles to
// the same bytes (tests/data/asm_spec_examples.json, unit ids per entry).
TEST(AsmSpecExamples, AcceptedExamplesAssembleAndRoundTrip) {
  const auto data = test::load_json(test::data_path("asm_spec_examples.json"));
  int accepted = 0;
  for (const auto& e : data.at("examples")) {
    if (e.at("expect") != "accept") continue;
    ++accepted;
    const std::string text = e.at("text");
    SCOPED_TRACE(e.at("id").get<std::string>() + ": " + text);
    const Result r = run(text + "\ntarget:\n");
    ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
    const auto bytes = text_bytes(r);
    if (e.contains("encoding")) {
      const std::string enc = e.at("encoding");
      const std::size_t n = (enc.size() - 2) / 2;
      ASSERT_EQ(bytes.size(), n);
      EXPECT_EQ(le(bytes, 0, n), test::parse_hex(enc));
    }
    // Canonical text reassembles to the same bits.
    const auto lines = dis::disassemble(bytes, 0, {});
    ASSERT_FALSE(lines.empty());
    std::string again;
    for (const auto& l : lines) (again += l.text()) += "\n";
    const Result r2 = run(again);
    ASSERT_TRUE(r2.ok()) << again << r2.diagnostics.front().format();
    EXPECT_EQ(text_bytes(r2), bytes) << again;
  }
  EXPECT_GE(accepted, 600);
}

TEST(AsmSpecExamples, DivergentExamplesAreRejectedWithAReason) {
  const auto data = test::load_json(test::data_path("asm_spec_examples.json"));
  for (const auto& e : data.at("examples")) {
    if (e.at("expect") != "divergent") continue;
    EXPECT_FALSE(e.at("reason").get<std::string>().empty());
    const std::string text = e.at("text");
    EXPECT_FALSE(run(text + "\n").ok()) << e.at("id").get<std::string>() << ": " << text;
  }
}

TEST(Asm, HandDerivedEncodings) {
  // BSTART.STD FALL 0x00001001; BSTOP 0x00000001; C.BSTOP 0x0000 (catalog match values).
  const Result r = run("BSTART.STD FALL\nBSTOP\nC.BSTOP\n");
  ASSERT_TRUE(r.ok());
  const auto b = text_bytes(r);
  ASSERT_EQ(b.size(), 10u);
  EXPECT_EQ(le(b, 0, 4), 0x00001001u);
  EXPECT_EQ(le(b, 4, 4), 0x00000001u);
  EXPECT_EQ(le(b, 8, 2), 0x0000u);
}

TEST(Asm, AlternativeSpellingsEncodeLikeCanonical) {
  // B.DIM LB0, 64 == B.DIM zero, 64, ->LB0 == B.DIM LB0=64; B.IOT size=1, ->T == ->T<1>;
  // R-number registers; case-insensitive mnemonics; BSTART.TEPL input == BSTART.VEC.
  const char* pairs[][2] = {
      {"B.DIM LB0, 64", "B.DIM zero, 64, ->LB0"},
      {"B.DIM LB2=8", "B.DIM zero, 8, ->LB2"},
      {"B.IOT T#1, mask=0001, size=1, ->T", "B.IOT T#1, mask=0001, ->T<1>"},
      {"B.IOT mask=1111, ->T<1>, last", "B.IOT mask=1111, last, ->T<1>"},
      {"ADD R2, R3, ->R4", "add a0, a1, ->a2"},
      {"BSTART.TEPL 0, 0, FP32", "BSTART.VEC TADD, FP32"},
      {"b.ior r2, r3", "B.IOR a0, a1, zero, ->zero"},
  };
  for (const auto& p : pairs) {
    const Result a = run(p[0]), b = run(p[1]);
    ASSERT_TRUE(a.ok()) << p[0] << ": " << a.diagnostics.front().format();
    ASSERT_TRUE(b.ok()) << p[1];
    EXPECT_EQ(text_bytes(a), text_bytes(b)) << p[0] << " vs " << p[1];
  }
}

TEST(Asm, LabelsDirectivesAndExpressions) {
  const Result r = run(R"(
        .text
        .globl _start
_start: j 1f                 # forward local label
        BSTART DIRECT, done  // label resolved against the BSTART address
1:      BSTOP ; BSTOP
done:   .set K, (3 + 4) * 2 << 1
        .data
tab:    .byte 1, -1, K
        .half 0x1234
        .word tab
        .dword -1
        .ascii "ab"
        .asciz "c"
        .p2align 3
        .balign 4
        .zero 3
        .bss
buf:    .space 16
)");
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const auto& im = *r.image;
  EXPECT_EQ(im.entry, 0u);
  const auto b = text_bytes(r);
  // j: simm22 halfwords to 1f at 0x8: (0x8 - 0x0) / 2 = 4.  BSTART DIRECT at 4: (0x10-0x4)/2 = 6.
  const auto j = isa::decode(le(b, 0, 4), 32);
  ASSERT_TRUE(j.ok());
  EXPECT_EQ(isa::field_value(j.desc(), "simm22", le(b, 0, 4)), 4);
  const auto bs = isa::decode(le(b, 4, 4), 32);
  EXPECT_EQ(isa::field_value(bs.desc(), "simm25", le(b, 4, 4)), 6);
  const elf::Section* data = nullptr;
  for (const auto& s : im.sections)
    if (s.name == ".data") data = &s;
  ASSERT_NE(data, nullptr);
  EXPECT_EQ(data->addr, 0x10u);  // packed after .text, 16-byte aligned
  const std::vector<std::uint8_t> expect = {1, 0xff, 28, 0x34, 0x12, 0x10, 0, 0, 0,   0xff, 0xff, 0xff,
                                            0xff, 0xff, 0xff, 0xff, 0xff, 'a', 'b', 'c', 0, 0, 0, 0, 0, 0, 0};  // NUL, 3 pad to 0x28, 3 zero
  EXPECT_EQ(data->data, expect);
  bool global_start = false;
  for (const auto& s : im.symbols)
    if (s.name == "_start") global_start = s.bind == elf::STB_GLOBAL;
  EXPECT_TRUE(global_start);
  EXPECT_EQ(elf::check_load_identity(im.identity), elf::IdentityCheck::Match);
}

TEST(Asm, SectionStartEntryAndFlatBinary) {
  Options o;
  o.section_start[".text"] = 0x400;
  o.entry = "go";
  const Result r = run("BSTOP\ngo: C.BSTOP\n", o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.image->entry, 0x404u);
  const auto flat = flat_binary(*r.image);
  ASSERT_TRUE(flat.has_value());
  EXPECT_EQ(flat->base, 0x400u);
  EXPECT_EQ(flat->bytes, (std::vector<std::uint8_t>{1, 0, 0, 0, 0, 0}));
  // The written ELF carries the identity note and reads back.
  const auto bytes = elf::write_image(*r.image);
  auto back = elf::read_image(bytes);
  ASSERT_TRUE(std::holds_alternative<elf::Image>(back));
  EXPECT_EQ(std::get<elf::Image>(back).identity, elf::our_identity());
}

TEST(AsmErrors, ExactMessages) {
  EXPECT_EQ(first_error("  frobnicate a0"), "1:3: unknown mnemonic 'frobnicate'");
  EXPECT_EQ(first_error("addi a0, 4096, ->a1"), "1:10: ADDI uimm12: value 4096 is out of range [0, 4095]");
  EXPECT_EQ(first_error("add a0, q7, ->a1"),
            "1:9: ADD SrcR: 'q7' is not a register; expected zero, sp, a0..a7, ra, s0..s8, x0..x3, R0..R31, t#1..t#4 or u#1..u#4");
  EXPECT_EQ(first_error("j nowhere"), "1:3: undefined symbol 'nowhere'");
  EXPECT_EQ(first_error("B.IOR a0, t#3, zero"),
            "1:11: B.IOR RegSrc1: selector 26 is reserved (24..31); expected zero, sp, a0..a7, ra, s0..s8, x0..x3 or R0..R23");
  EXPECT_EQ(first_error("TALLOC"), "1:1: 'TALLOC' was deleted in PTO 0.58 (catalog deleted_names) and is not an instruction");
  EXPECT_EQ(first_error("BSTART.VEC TFREE, FP16"),
            "1:12: 'TFREE' was deleted in PTO 0.58 (catalog deleted_names) and is not an instruction");
  EXPECT_EQ(first_error("B.EQ a0, a1, 4"),
            "1:1: reserved encoding space B.EQ (catalog reservation: PTO reserved two-level block-body conditional "
            "branch extension space, extension-encoding-reservations.json); it cannot be assembled");
  EXPECT_EQ(first_error("ESAVE [a0, a1, a2]"), "1:1: 'ESAVE' is reserved in PTO 0.58.3: it decodes but the model rejects it");
  EXPECT_EQ(first_error("BSTART.SFU TADD, FP16"), "1:12: tile operation TADD runs on VEC, not SFU");
  EXPECT_EQ(first_error("x: BSTOP\nx: BSTOP"), "2:1: symbol 'x' is already defined (line 1)");
  EXPECT_EQ(first_error(".frob 1"), "1:1: unknown directive '.frob'");
  EXPECT_EQ(first_error(".byte 256"), "1:7: value 256 does not fit in 1 byte");
  EXPECT_EQ(first_error("BSTART DIRECT, 3"), "1:16: BSTART simm25: target 0x3 is not a multiple of 2 bytes from 0x0");
  // Numeric local labels are unsigned 32-bit numbers (a fuzz_asm finding).
  EXPECT_EQ(first_error("666666000000000742377524:"),
            "1:1: local label number '666666000000000742377524' is too large (at most 4294967295)");
  EXPECT_EQ(first_error("j 4294967297b"), "1:3: local label number is too large (at most 4294967295)");
}

TEST(AsmErrors, AllErrorsReportedAndNoImage) {
  const Result r = run("bogus\naddi a0, -1, ->a1\nBSTOP\nj missing\n");
  EXPECT_FALSE(r.ok());
  ASSERT_EQ(r.diagnostics.size(), 3u);
  EXPECT_EQ(r.diagnostics[0].line, 1u);
  EXPECT_EQ(r.diagnostics[1].line, 2u);
  EXPECT_EQ(r.diagnostics[2].line, 4u);
  EXPECT_EQ(r.diagnostics[1].format(),
            "t.s:2:10: error: ADDI uimm12: value -1 is out of range [0, 4095]\n  addi a0, -1, ->a1\n           ^\n");
}

}  // namespace
}  // namespace pto::as
