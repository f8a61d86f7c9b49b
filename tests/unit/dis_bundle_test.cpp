// Bundle-aware disassembly: the ADR 0055 cases as golden tests.  Encodings
// are hand-derived: B.IOR match 0x13, RegDst@7, RegSrc0@15, RegSrc1@20,
// RegSrc2@27; BSTART.TLOAD U8 = 0x00011181 | 27<<27; BSTOP = 0x00000001.
#include <gtest/gtest.h>

#include "dis/disassembler.hpp"

namespace pto::dis {
namespace {

constexpr std::uint32_t kTloadU8 = 0xd8011181;
constexpr std::uint32_t kTaddFp32 = 0x08019181;  // TEPL, TADD selector 0, FP32
constexpr std::uint32_t kBstop = 0x00000001;
constexpr std::uint32_t kBior = 0x13;

std::vector<std::uint8_t> words(std::initializer_list<std::uint32_t> ws) {
  std::vector<std::uint8_t> b;
  for (auto w : ws)
    for (int i = 0; i < 4; ++i) b.push_back(static_cast<std::uint8_t>(w >> (8 * i)));
  return b;
}

std::vector<std::string> texts(const Listing& lines) {
  std::vector<std::string> out;
  for (const auto& l : lines) out.push_back(std::string(l.text()) + (l.comment().empty() ? "" : "  # ") + std::string(l.comment()));
  return out;
}

TEST(DisBundle, OmittedBiorProducesNoLine) {
  EXPECT_EQ(texts(disassemble(words({kTloadU8, kBstop}), 0)),
            (std::vector<std::string>{"BSTART.TLOAD U8", "BSTOP"}));
}

TEST(DisBundle, EncodedAllZeroBiorShowsConsumedZeroOperands) {
  // TLOAD consumes address and scalar0 (row stride): two operands.
  EXPECT_EQ(texts(disassemble(words({kTloadU8, kBior, kBstop}), 0))[1], "B.IOR zero, zero");
  // TADD consumes no GPR operand.
  EXPECT_EQ(texts(disassemble(words({kTaddFp32, kBior, kBstop}), 0))[1], "B.IOR");
}

TEST(DisBundle, SchemaShapedOperands) {
  EXPECT_EQ(texts(disassemble(words({kTloadU8, kBior | 2u << 20, kBstop}), 0))[1], "B.IOR zero, a0");
}

TEST(DisBundle, UnusedNonZeroFieldRendersRaw) {
  EXPECT_EQ(texts(disassemble(words({kTloadU8, kBior | 2u << 27, kBstop}), 0))[1],
            "B.IOR zero, zero, a0, ->zero  # field not consumed by the TLOAD schema is non-zero (rejected at commit)");
  EXPECT_EQ(texts(disassemble(words({kTloadU8, kBior | 2u << 7, kBstop}), 0))[1],
            "B.IOR zero, zero, zero, ->a0  # field not consumed by the TLOAD schema is non-zero (rejected at commit)");
}

TEST(DisBundle, SecondBiorIsMarked) {
  const auto t = texts(disassemble(words({kTloadU8, kBior | 2u << 20, kBior | 3u << 20, kBstop}), 0));
  EXPECT_EQ(t[1], "B.IOR zero, a0");
  EXPECT_EQ(t[2], "B.IOR zero, a1, zero, ->zero  # second B.IOR in the bundle (bundle-control fault; does not overwrite the first)");
}

TEST(DisBundle, ReservedSelectorsPrintAsData) {
  // RegSrc0 = 24 (t#1 in the generic Reg5 namespace) is reserved in B.IOR.
  const auto t = texts(disassemble(words({kTloadU8, kBior | 24u << 15, kBstop}), 0));
  EXPECT_EQ(t[1],
            ".word 0x000c0013  # illegal: B.IOR RegSrc0: selector 24 is reserved (24..31); expected zero, sp, a0..a7, "
            "ra, s0..s8, x0..x3 or R0..R23");
}

TEST(DisBundle, NoBundleContextRendersRaw) {
  EXPECT_EQ(texts(disassemble(words({kBior | 2u << 20}), 0))[0], "B.IOR zero, a0, zero, ->zero");
  // An unterminated bundle has no complete context either.
  EXPECT_EQ(texts(disassemble(words({kTloadU8, kBior}), 0))[1], "B.IOR zero, zero, zero, ->zero");
}

TEST(DisBundle, ReservedWordsPrintAsDataAndDisassemblyGoesOn) {
  // BSTART.VPAR (mask 0xf9ffffff, match 0x00021181) is an extension reservation.
  const auto t = texts(disassemble(words({0x00021181, kBstop}), 0));
  EXPECT_EQ(t[0], ".word 0x00021181  # reserved: BSTART.VPAR (PTO reserved two-level vector extension space)");
  EXPECT_EQ(t[1], "BSTOP");
}

}  // namespace
}  // namespace pto::dis
