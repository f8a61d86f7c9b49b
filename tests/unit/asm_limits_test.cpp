// Assembler limits (docs/assembly.md "Limits"): input that used to overflow
// the stack, wrap the address space or exhaust memory is a located error and
// produces no image.  Columns are counted by hand from the source text.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "asm/assembler.hpp"

namespace pto::as {
namespace {

Result run(const std::string& src, const Options& o = {}) { return assemble(src, "t.s", o); }

// "line:col: message" of the only diagnostic; also checks that there is no image.
std::string only_error(const std::string& src, const Options& o = {}) {
  const Result r = run(src, o);
  EXPECT_FALSE(r.ok());
  if (r.diagnostics.size() != 1) return fmt::format("({} diagnostics)", r.diagnostics.size());
  const auto& d = r.diagnostics.front();
  return fmt::format("{}:{}: {}", d.line, d.column, d.message);
}

std::string repeated(char c, std::size_t n) { return std::string(n, c); }

constexpr const char* kTooDeep =
    "expression is nested too deeply (more than 256 levels of parentheses and unary operators)";

TEST(AsmLimits, ExpressionNesting) {
  // ".byte " is columns 1-6, so the k-th '(' is at column 6 + k: the 257th at 263.
  EXPECT_EQ(only_error(".byte " + repeated('(', 30000) + "1" + repeated(')', 30000)), fmt::format("1:263: {}", kTooDeep));
  EXPECT_EQ(only_error(".byte " + repeated('-', 100000) + "1"), fmt::format("1:263: {}", kTooDeep));
  EXPECT_EQ(only_error(".byte " + repeated('~', 100000) + "1"), fmt::format("1:263: {}", kTooDeep));
  // 256 levels are fine: 256 negations of 1 give 1.
  EXPECT_TRUE(run(".byte " + repeated('(', 256) + "1" + repeated(')', 256)).ok());
  const Result r = run(".data\n.byte " + repeated('-', 256) + "1");
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.image->sections.back().data, std::vector<std::uint8_t>{1});
  // Inside an instruction operand as well (column 10 + 256 = 266 for "addi a0, ").
  EXPECT_EQ(only_error("addi a0, " + repeated('(', 300) + "1"), fmt::format("1:266: {}", kTooDeep));
}

TEST(AsmLimits, AddressSpaceEnd) {
  constexpr const char* kOrgWrap =
      "2:7: section .text would extend past the end of the 64-bit address space (it starts at 0xfffffffffffffff0, "
      "placed by .org 0xfffffffffffffff0 (line 1))";
  EXPECT_EQ(only_error(".org 0xfffffffffffffff0\n.zero 32\n"), kOrgWrap);
  // The last byte may be at 0xfffffffffffffffe (the end address must be representable).
  EXPECT_TRUE(run(".org 0xfffffffffffffff0\n.zero 15\n").ok());
  EXPECT_EQ(only_error(".org 0xfffffffffffffff0\n.zero 16\n"), kOrgWrap);
  Options o;
  o.section_start[".text"] = 0xfffffffffffffffa;
  // BSTOP is 4 bytes: the first ends at ...fffe, the second would wrap.
  EXPECT_EQ(only_error("BSTOP\nBSTOP\n", o),
            "2:1: section .text would extend past the end of the 64-bit address space (it starts at "
            "0xfffffffffffffffa, placed by --section-start .text=0xfffffffffffffffa)");
  EXPECT_EQ(only_error(".section .hi, \"a\", @progbits, 0xffffffffffffff00\n.zero 0x100\n"),
            "2:7: section .hi would extend past the end of the 64-bit address space (it starts at "
            "0xffffffffffffff00, placed by .section .hi, ..., 0xffffffffffffff00 (line 1))");
}

TEST(AsmLimits, FlatBinarySpan) {
  const std::string src = "BSTOP\n.section .hi, \"a\", @progbits, 0xffff000000000000\n.byte 1\n";
  ASSERT_TRUE(run(src).ok());  // an ELF file holds both segments
  EXPECT_FALSE(flat_binary(*run(src).image).has_value());
  Options o;
  o.flat_binary = true;
  // [0, 0xffff000000000001) is 2^64 - 2^48 + 1 = 18446462598732840961 bytes.
  EXPECT_EQ(only_error(src, o),
            "0:0: -O binary: the image spans [0x0, 0xffff000000000001), 18446462598732840961 bytes, more than the "
            "limit of 1073741824 bytes (--max-output)");
}

TEST(AsmLimits, OutputSize) {
  EXPECT_EQ(only_error(".zero 0x40000001\n"), "1:7: output would exceed the limit of 1073741824 bytes (--max-output)");
  EXPECT_EQ(only_error(".bss\n.zero 0x40000001\n"),
            "2:7: output would exceed the limit of 1073741824 bytes (--max-output)");
  Options o;
  o.max_output = 1 << 20;
  // 2 * 0x7ffff = 0xffffe fits in 0x100000; the third does not.
  EXPECT_EQ(only_error(".zero 0x7ffff\n.zero 0x7ffff\n.zero 0x7ffff\n", o),
            "3:7: output would exceed the limit of 1048576 bytes (--max-output)");
  o.max_output = 4096;
  EXPECT_EQ(only_error(".data\n.zero 3000\n.section .d2, \"aw\"\n.zero 3000\n", o),
            "4:7: output would exceed the limit of 4096 bytes (--max-output)");
  EXPECT_EQ(only_error(".zero 1\n.org 8192\n", o), "2:6: output would exceed the limit of 4096 bytes (--max-output)");
  EXPECT_TRUE(run(".zero 4096\n", o).ok());
}

TEST(AsmLimits, NoDataInBss) {
  const Result ok = run(".bss\n.zero 4\n.byte 0\n.skip 2\n.space 1, 0\n.balign 16\n");
  ASSERT_TRUE(ok.ok());
  EXPECT_EQ(ok.image->sections.back().name, ".bss");
  EXPECT_EQ(ok.image->sections.back().size, 16u);
  constexpr const char* kNoData =
      "non-zero data in section {}, which holds no data (only zero fill is allowed: .zero, .skip, .space)";
  EXPECT_EQ(only_error(".bss\n.byte 1\n"), "2:7: " + fmt::format(kNoData, ".bss"));
  EXPECT_EQ(only_error(".bss\n.zero 2, 3\n"), "2:7: " + fmt::format(kNoData, ".bss"));
  EXPECT_EQ(only_error(".bss\n.ascii \"a\"\n"), "2:8: " + fmt::format(kNoData, ".bss"));
  EXPECT_EQ(only_error(".section .nb, \"aw\", @nobits\n.word 5\n"), "2:7: " + fmt::format(kNoData, ".nb"));
  EXPECT_EQ(only_error(".bss\nBSTOP\n"), "2:1: instruction in section .bss which holds no data");
}

}  // namespace
}  // namespace pto::as
