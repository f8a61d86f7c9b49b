// B.DATR / B.FPATR attribute spellings, encoding variants and B.FPATR-aware
// B.IOR shaping.  Expected words are hand-derived from the catalog fields:
//   B.DATR  0x1023 | Layout<<7 | RMode<<15 | DataType<<20 | Canonicalize<<25
//           | Sat<<26 | PadValueOrByteId<<27 | CMode<<29
//   B.FPATR 0x2023 | TransA<<7 | TransB<<8 | MaxAbsEn<<15 | RowMaxInit<<16
//           | GroupMaxEn<<17 | RowMaxEn<<18 | GroupNCode<<19 | ReluMode<<23
//           | PreQuantMode<<26
// Layout codes: asl/block/model/state/control-state.asl (TileDataLayoutOfCode);
// PreQuantMode codes: ADR 0085 decision 179; data type codes:
// asl/arch/data-types/tile-data-types.asl (FP32 1, FP16 4, S8 19, U32 25,
// U8 27, DTYPE_NONE 31).
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "asm/assembler.hpp"
#include "dis/disassembler.hpp"

namespace pto::as {
namespace {

std::vector<std::uint8_t> text_bytes(const Result& r) {
  for (const auto& s : r.image->sections)
    if (s.name == ".text") return s.data;
  return {};
}

std::uint32_t word_of(const std::string& src) {
  const Result r = assemble(src, "t.s");
  if (!r.ok()) {
    ADD_FAILURE() << src << ": " << r.diagnostics.front().format();
    return 0;
  }
  const auto b = text_bytes(r);
  EXPECT_EQ(b.size(), 4u) << src;
  if (b.size() < 4) return 0;
  return b[0] | b[1] << 8 | b[2] << 16 | std::uint32_t{b[3]} << 24;
}

std::string first_error(const std::string& src) {
  const Result r = assemble(src, "t.s");
  if (r.diagnostics.empty()) return "(no error)";
  const auto& d = r.diagnostics.front();
  return fmt::format("{}:{}: {}", d.line, d.column, d.message);
}

std::vector<std::uint8_t> bytes_of(std::initializer_list<std::uint32_t> ws) {
  std::vector<std::uint8_t> b;
  for (auto w : ws)
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
  return b;
}

std::string dis_one(std::uint32_t w) { return std::string(dis::disassemble(bytes_of({w}), 0).front().text()); }

struct Example {
  const char* id;  // spec unit the spelling comes from
  const char* text;
  std::uint32_t word;
};

// Every B.DATR / B.FPATR example of the spec pages that is valid 0.58.3.
TEST(AsmAttributes, SpecExamplesEncode) {
  const Example examples[] = {
      {"PTO-BLOCK-B-DATR", "B.DATR {NORM, FP32, Zero, None, RNE, 0, 0}", 0x00109023},
      {"PTO-BLOCK-B-DATR", "B.DATR {ND2M16, DTYPE_NONE, Null, None, Default, 0, 0}", 0x19f01b23},
      {"PTO-BLOCK-BSTART-TLOAD", "B.DATR {ND2M16, DTYPE_NONE, Null, EQ, Default, 0, 0}", 0x19f01b23},
      {"PTO-BLOCK-BSTART-TSTORE", "B.DATR {M162ND, DTYPE_NONE, Null, EQ, Default, 0, 0}", 0x19f01ca3},
      {"PTO-TILE-TSTORE", "B.DATR {M162ND, DTYPE_NONE, Null, EQ, Default, 0, 0}", 0x19f01ca3},
      {"PTO-TILE-TLOAD", "B.DATR {ND2N8, DTYPE_NONE, Max, EQ, Default, 0, 0}", 0x09f01ba3},
      {"PTO-TILE-TDEQUANT", "B.DATR FP32, RNE", 0x00109023},
      {"PTO-TILE-TQUANT", "B.DATR S8, RNE, Sat=1", 0x05309023},
      {"PTO-TILE-THISTOGRAM", "B.DATR U32, ByteId=0", 0x01901023},
      {"PTO-TILE-TCMP", "B.DATR EQ, Null", 0x18001023},
      // ADR 0064: "canonical None word 0x00002023".
      {"PTO-BLOCK-B-FPATR", "B.FPATR None, None, 0, 0, 0, 0, 0, 0, 0", 0x00002023},
  };
  for (const Example& e : examples) EXPECT_EQ(word_of(e.text), e.word) << e.id << ": " << e.text;
}

TEST(AsmAttributes, CanonicalTextIsTheTemplateOrderWithNames) {
  // B.DATR {layout, datatype, padvalue_or_byteid, cmode, rmode, sat, canonicalize}.
  EXPECT_EQ(dis_one(0x19f01b23), "B.DATR {ND2M16, DTYPE_NONE, Null, EQ, Default, 0, 0}");
  EXPECT_EQ(dis_one(0x05309023), "B.DATR {NORM, S8, Zero, EQ, RNE, 1, 0}");
  EXPECT_EQ(dis_one(0x00109023), "B.DATR {NORM, FP32, Zero, EQ, RNE, 0, 0}");
  // CMode 5 (GE) and RMode 7 (RHB), Canonicalize: 0x1023 | 7<<15 | 25<<20 | 1<<25 | 5<<29.
  EXPECT_EQ(dis_one(0x1023u | 7u << 15 | 25u << 20 | 1u << 25 | 5u << 29), "B.DATR {NORM, U32, Zero, GE, RHB, 0, 1}");
  // B.FPATR PreQuantMode, ReluMode, GroupNCode, RowMaxEn, GroupMaxEn, RowMaxInit, MaxAbsEn, TransA, TransB.
  EXPECT_EQ(dis_one(0x00002023), "B.FPATR None, None, 0, 0, 0, 0, 0, 0, 0");
  EXPECT_EQ(dis_one(0x0917a1a3), "B.FPATR VREQ8, LReLU, 2, 1, 1, 1, 1, 1, 1");
  EXPECT_EQ(dis_one(0x2023u | 39u << 26 | 3u << 23), "B.FPATR VQS322BF16_PRE, PReLU, 0, 0, 0, 0, 0, 0, 0");
}

TEST(AsmAttributes, AlternativeSpellingsEncodeLikeCanonical) {
  EXPECT_EQ(word_of("B.FPATR VREQ8, LReLU, 2, 1, 1, 1, 1, 1, 1"), 0x0917a1a3u);
  EXPECT_EQ(word_of("B.FPATR PreQuantMode=VREQ8, ReluMode=LReLU, GroupNCode=2, RowMaxEn=1, GroupMaxEn=1, "
                    "RowMaxInit=1, MaxAbsEn=1, TransA=1, TransB=1"),
            0x0917a1a3u);
  EXPECT_EQ(word_of("B.FPATR REQ8, ReLU"), 0x2023u | 3u << 26 | 1u << 23);
  EXPECT_EQ(word_of("b.fpatr noquant, none, 0, 0, 0, 0, 0, 0, 0"), 0x00002023u);
  EXPECT_EQ(word_of("B.DATR Layout=ND2M16, DataType=DTYPE_NONE, PadValue=Null"), 0x19f01b23u);
  EXPECT_EQ(word_of("B.DATR DstDataType=U32, ByteId=2"), 0x01901023u | 2u << 27);
  EXPECT_EQ(word_of("B.DATR {22, 31, 3, 0, 0, 0, 0}"), 0x19f01b23u);
  EXPECT_EQ(word_of("B.DATR NORM, FP32, Zero, EQ, RNE, 0, 0"), 0x00109023u);
  EXPECT_EQ(word_of(".set L, 25\nB.DATR Layout=L"), 0x1023u | 25u << 7);
}

TEST(AsmAttributes, CanonicalTextIsAFixedPoint) {
  for (const std::uint32_t w : {0x19f01b23u, 0x05309023u, 0x0917a1a3u, 0x00002023u, 0x1023u | 30u << 7 | 4u << 15}) {
    const std::string text = dis_one(w);
    EXPECT_EQ(word_of(text), w) << text;
  }
}

TEST(AsmAttributes, ErrorsNameTheFieldAndTheChoices) {
  // B.FPATR page example: S8Vector is not in the ADR 0085 PreQuantMode table.
  EXPECT_EQ(first_error("B.FPATR S8Vector, LReLU, 2, 1, 1, 1, 1, 1, 1"),
            "1:9: B.FPATR PreQuantMode: 'S8Vector' is not a value name; expected None, F322F16, VREQ8, REQ8, "
            "VDEQF16, DEQF16, VSHIFTS322S16, SHIFTS322S16, F322BF16, REQ4, VREQ4, DEQS16, VDEQS16, VQF322B8_PRE, "
            "QF322B8_PRE, QF322HIF8_PRE, QF322FP8_PRE, QF322F32_PRE, VQF322HIF8_PRE, QF322F16_PRE, VQF322F16_PRE, "
            "QF322BF16_PRE, QS322BF16_PRE, VQF322BF16_PRE, VQF322FP8_PRE, VQF322F32_PRE, VQS322BF16_PRE or an integer");
  EXPECT_EQ(first_error("B.FPATR None"),
            "1:9: 'None' is ambiguous in B.FPATR (PreQuantMode, ReluMode); write Field=None");
  EXPECT_EQ(first_error("B.DATR {NORM, FP32}"),
            "1:9: B.DATR takes 7 positional values (Layout, DataType, PadValueOrByteId, CMode, RMode, Sat, "
            "Canonicalize), got 2");
  EXPECT_EQ(first_error("B.DATR FP32, FP16"), "1:14: B.DATR DataType is given twice");
  EXPECT_EQ(first_error("B.DATR Foo"), "1:8: 'Foo' is not a value of any B.DATR field; write Field=value");
  EXPECT_EQ(first_error("B.DATR 3"),
            "1:8: a bare B.DATR value needs its position: write all 7 values (Layout, DataType, PadValueOrByteId, "
            "CMode, RMode, Sat, Canonicalize) or Field=value");
  EXPECT_EQ(first_error("B.DATR Bogus=1"),
            "1:8: B.DATR has no field 'Bogus'; fields are Layout, DataType, PadValueOrByteId, CMode, RMode, Sat, "
            "Canonicalize");
  EXPECT_EQ(first_error("B.DATR {Layout=NORM}"),
            "1:9: a braced B.DATR list is positional: give the 7 values in template order without 'Field='");
  EXPECT_EQ(first_error("B.DATR"),
            "1:7: B.DATR needs its attribute values (Layout, DataType, PadValueOrByteId, CMode, RMode, Sat, "
            "Canonicalize)");
  // Layout 2 is reserved (control-state.asl TileDataLayoutCodeAccepted).
  EXPECT_NE(first_error("B.DATR {2, FP32, Zero, EQ, RNE, 0, 0}").find("Layout"), std::string::npos);
}

// Catalog encoding_variants: BSTART.TMOV functions 9..12 and BSTART.TSTORE 14
// (match values 0x00911181, 0x00a11181, 0x00b11181, 0x00c11181, 0x00e11181;
// DataType at [31:27]).
TEST(AsmEncodingVariants, PrintTheirOwnSpellingAndRoundTrip) {
  const Example variants[] = {
      {"BSTART.TMOV", "BSTART.TMOV.L2S.INSERT U8", 0x00911181u | 27u << 27},
      {"BSTART.TMOV", "BSTART.TMOV.L2S.PUBLISH U8", 0x00a11181u | 27u << 27},
      {"BSTART.TMOV", "BSTART.TMOV.S2L.BROADCAST FP16", 0x00b11181u | 4u << 27},
      {"BSTART.TMOV", "BSTART.TMOV.S2L.EXTRACT DTYPE_NONE", 0x00c11181u | 31u << 27},
      {"BSTART.TSTORE", "BSTART.TSTORE.SPART FP16", 0x00e11181u | 4u << 27},
  };
  for (const Example& v : variants) {
    EXPECT_EQ(word_of(v.text), v.word) << v.text;
    EXPECT_EQ(dis_one(v.word), v.text);
  }
  EXPECT_EQ(word_of("bstart.tmov.l2s.insert u8"), 0x00911181u | 27u << 27);
  // The carrier's own encodings keep the carrier spelling (TMOV function 2, TSTORE 1).
  EXPECT_EQ(dis_one(0x00211181u | 27u << 27), "BSTART.TMOV U8");
  EXPECT_EQ(dis_one(0x00111181u | 4u << 27), "BSTART.TSTORE FP16");
}

// ADR 0064 / asl/block/model/dispatch/tile-schema.asl: a CUBE Matrix bundle's
// B.IOR carries the B.FPATR scalar parameters densely: pre-quantization
// (PreQuantMode 3, 5, 13, 17, 19, 24..27, 32, 34, 35), then LReLU (ReluMode 2).
TEST(DisBundleFpatr, CubeBiorFollowsTheFpatrSchema) {
  constexpr std::uint32_t kTmatmulFp16 = 0x00031181u | 4u << 27;  // CUBE family 6, Function 0
  constexpr std::uint32_t kBstop = 0x00000001;
  constexpr std::uint32_t kBior = 0x13;
  const std::uint32_t a0a1 = kBior | 2u << 15 | 3u << 20;
  auto bior_text = [&](std::uint32_t fpatr, std::uint32_t bior) {
    const auto lines = dis::disassemble(bytes_of({kTmatmulFp16, fpatr, bior, kBstop}), 0);
    return std::string(lines[2].text()) + (lines[2].comment().empty() ? "" : "  # ") + std::string(lines[2].comment());
  };
  const std::uint32_t req8_lrelu = 0x2023u | 3u << 26 | 2u << 23;    // scalar quant + scalar LReLU: 2 inputs
  const std::uint32_t deqf16_relu = 0x2023u | 5u << 26 | 1u << 23;   // scalar quant only: 1 input
  const std::uint32_t vreq8_lrelu = 0x2023u | 2u << 26 | 2u << 23;   // vector quant, scalar LReLU: 1 input
  const std::uint32_t none = 0x00002023u;                            // no parameters
  EXPECT_EQ(bior_text(req8_lrelu, a0a1), "B.IOR a0, a1");
  EXPECT_EQ(bior_text(vreq8_lrelu, kBior | 2u << 15), "B.IOR a0");
  EXPECT_EQ(bior_text(deqf16_relu, kBior), "B.IOR zero");
  EXPECT_EQ(bior_text(none, kBior), "B.IOR");
  EXPECT_EQ(bior_text(deqf16_relu, a0a1),
            "B.IOR a0, a1, zero, ->zero  # field not consumed by the TMATMUL schema is non-zero (rejected at commit)");
  // The shaped text reassembles to the same bundle.
  const auto lines = dis::disassemble(bytes_of({kTmatmulFp16, req8_lrelu, a0a1, kBstop}), 0);
  std::string source;
  for (const auto& l : lines) (source += l.text()) += "\n";
  const Result r = assemble(source, "t.s");
  ASSERT_TRUE(r.ok()) << source << r.diagnostics.front().format();
  EXPECT_EQ(text_bytes(r), bytes_of({kTmatmulFp16, req8_lrelu, a0a1, kBstop})) << source;
}

}  // namespace
}  // namespace pto::as
