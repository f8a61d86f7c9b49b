// `pto as` / `pto dis` end to end: --reassemble reproduces the same bytes at
// the same addresses; failed assembly writes no file; bad ELF input reports
// a precise error.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_paths.hpp"
#include "elf/elf.hpp"

namespace pto {
namespace {

namespace fs = std::filesystem;

fs::path temp(const std::string& name) {
  return fs::temp_directory_path() / ("pto-asm-test-" + std::to_string(::getpid()) + "-" + name);
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

int sh(const std::string& cmd) { return std::system(cmd.c_str()); }

elf::Image image_of(const fs::path& p) {
  auto r = elf::read_image(read_bytes(p));
  if (auto* e = std::get_if<elf::Error>(&r)) ADD_FAILURE() << e->message;
  return std::get<elf::Image>(r);
}

TEST(AsDisCli, ReassembleReproducesSegments) {
  const std::string src = R"(
    .globl _start
_start: BSTART.TLOAD FP16
    B.DIM a0, 16, ->LB0
    B.IOR a1, a2
    B.IOT mask=1110, last, ->U<3>
    BSTOP
1:  hl.addi t#1, 16777215, ->u
    lr.w.aqrl [a0], ->a1
    fcvtz.fd2sw a0, ->a1
    j 1b
    .word 0x00021181          # reserved: BSTART.VPAR
    BSTART COND, _start
    C.BSTOP
    .data
v:  .dword v
    .bss
    .zero 12
)";
  const auto s1 = temp("a.s"), e1 = temp("a.elf"), s2 = temp("b.s"), e2 = temp("b.elf");
  write(s1, src);
  const std::string pto = PTO_CLI_PATH;
  ASSERT_EQ(sh(pto + " as " + s1.string() + " -o " + e1.string()), 0);
  ASSERT_EQ(sh(pto + " dis --reassemble " + e1.string() + " > " + s2.string()), 0);
  ASSERT_EQ(sh(pto + " as " + s2.string() + " -o " + e2.string()), 0);
  const elf::Image a = image_of(e1), b = image_of(e2);
  ASSERT_EQ(a.segments.size(), b.segments.size());
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    EXPECT_EQ(a.segments[i].vaddr, b.segments[i].vaddr);
    EXPECT_EQ(a.segments[i].memsz, b.segments[i].memsz);
    EXPECT_EQ(a.segments[i].data, b.segments[i].data);
  }
  EXPECT_EQ(a.entry, b.entry);
}

// `.org` takes an absolute address (and an optional fill byte); --reassemble
// prints zero runs of 16 bytes or more as `.org` and still round-trips.
TEST(AsDisCli, OrgGapsRoundTripThroughReassemble) {
  const std::string src = R"(
    .section .text, "ax", @progbits, 0x1000
    .globl _start
_start: BSTART.STD FALL
    BSTOP
    .org 0x1040
far: BSTART.TMOV.L2S.INSERT U8
    BSTOP
    .org 0x1050, 0xff
    .data
tab: .word 1
    .org 0x2000
    .byte 7
)";
  const auto s1 = temp("org.s"), e1 = temp("org.elf"), s2 = temp("org2.s"), e2 = temp("org2.elf");
  write(s1, src);
  const std::string pto = PTO_CLI_PATH;
  ASSERT_EQ(sh(pto + " as " + s1.string() + " -o " + e1.string()), 0);
  const elf::Image a = image_of(e1);
  // .text: 8 bytes of code, zeros to 0x1040, 8 bytes, 0xff to 0x1050.
  const auto text_section = std::find_if(a.sections.begin(), a.sections.end(), [](const elf::Section& s) { return s.name == ".text"; });
  ASSERT_NE(text_section, a.sections.end());
  EXPECT_EQ(text_section->addr, 0x1000u);
  ASSERT_EQ(text_section->data.size(), 0x50u);
  EXPECT_EQ(text_section->data[0x20], 0x00);
  EXPECT_EQ(text_section->data[0x4f], 0xff);
  ASSERT_EQ(sh(pto + " dis --reassemble " + e1.string() + " > " + s2.string()), 0);
  std::ifstream in(s2);
  const std::string text((std::istreambuf_iterator<char>(in)), {});
  EXPECT_NE(text.find("    .org 0x1040\nfar:\n    BSTART.TMOV.L2S.INSERT U8\n"), std::string::npos) << text;
  EXPECT_NE(text.find("    .org 0x2000\n    .byte 0x07\n"), std::string::npos) << text;
  ASSERT_EQ(sh(pto + " as " + s2.string() + " -o " + e2.string()), 0);
  const elf::Image b = image_of(e2);
  ASSERT_EQ(a.segments.size(), b.segments.size());
  for (std::size_t i = 0; i < a.segments.size(); ++i) {
    EXPECT_EQ(a.segments[i].vaddr, b.segments[i].vaddr);
    EXPECT_EQ(a.segments[i].data, b.segments[i].data);
  }
}

std::string read_text(const fs::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), {}};
}

// `pto dis --syntax llvm` prints the LinxISA llvm-objdump spellings (CHECK
// lines of v058-pto-common-roundtrip.s, v058-vector-simt.s,
// v058-pto-raw-abi.s, v0583-scalar-contract-order.s) and its --reassemble
// output assembles back to the same bytes, as does the B.IOT word whose
// bits 8:7 no field owns.
TEST(AsDisCli, LlvmSyntaxListingAndReassembly) {
  const std::string src = R"(
    B.IOR [s0]
    B.IOT t#1, mask=1100, last, ->u<128B>
    B.CATR trap, atomic, aqrl, far, dr
    B.FPATR 1, 2, 3, 1, 0, 1, 1
    HL.LUI 0x12345678, ->a0
    .word 0x2b784393
)";
  const auto s1 = temp("llvm.s"), e1 = temp("llvm.elf"), s2 = temp("llvm2.s"), e2 = temp("llvm2.elf"),
             out = temp("llvm.txt");
  write(s1, src);
  const std::string pto = PTO_CLI_PATH;
  ASSERT_EQ(sh(pto + " as " + s1.string() + " -o " + e1.string()), 0);
  ASSERT_EQ(sh(pto + " dis --syntax llvm --no-bytes " + e1.string() + " > " + out.string()), 0);
  const std::string listing = read_text(out);
  for (const char* want : {"B.IOR [s0, zero, zero], ->zero\n", "B.IOT t#1, mask=1100, last, ->u<128B>\n",
                           "B.CATR trap, atomic, aqrl, far, dr\n", "B.FPATR 1, 2, 3, 1, 0, 1, 1\n",
                           "hl.lui 305419896, ->a0\n", ".word 0x2b784393  # B.IOT n#8, t#11, mask=1000, last"})
    EXPECT_NE(listing.find(want), std::string::npos) << want << "\n" << listing;
  ASSERT_EQ(sh(pto + " dis --syntax llvm --reassemble " + e1.string() + " > " + s2.string()), 0);
  ASSERT_EQ(sh(pto + " as " + s2.string() + " -o " + e2.string()), 0) << read_text(s2);
  const elf::Image a = image_of(e1), b = image_of(e2);
  ASSERT_EQ(a.segments.size(), b.segments.size());
  for (std::size_t i = 0; i < a.segments.size(); ++i) EXPECT_EQ(a.segments[i].data, b.segments[i].data);
  // The default stays canonical.
  ASSERT_EQ(sh(pto + " dis --no-bytes " + e1.string() + " > " + out.string()), 0);
  EXPECT_NE(read_text(out).find("B.IOT T#1, mask=1100, last, ->U<1>\n"), std::string::npos) << read_text(out);
  EXPECT_NE(sh(pto + " dis --syntax gnu " + e1.string() + " > /dev/null 2>&1"), 0);
}

TEST(AsDisCli, FailedAssemblyWritesNoFile) {
  const auto s = temp("bad.s"), e = temp("bad.elf");
  fs::remove(e);
  write(s, "BSTOP\nnot_an_instruction\n");
  EXPECT_NE(sh(std::string(PTO_CLI_PATH) + " as " + s.string() + " -o " + e.string() + " 2>/dev/null"), 0);
  EXPECT_FALSE(fs::exists(e));
}

TEST(AsDisCli, TruncatedElfIsReported) {
  const auto s = temp("t.s"), e = temp("t.elf"), cut = temp("cut.elf"), out = temp("cut.txt");
  write(s, "BSTOP\n");
  ASSERT_EQ(sh(std::string(PTO_CLI_PATH) + " as " + s.string() + " -o " + e.string()), 0);
  auto bytes = read_bytes(e);
  bytes.resize(40);
  std::ofstream(cut, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()), 40);
  EXPECT_NE(sh(std::string(PTO_CLI_PATH) + " dis " + cut.string() + " 2> " + out.string()), 0);
  std::ifstream in(out);
  const std::string msg((std::istreambuf_iterator<char>(in)), {});
  EXPECT_EQ(msg, "pto dis: error: " + cut.string() +
                     ": truncated ELF header: file has 40 bytes, need 64 (use --raw --base ADDR for a flat binary)\n");
}

}  // namespace
}  // namespace pto
