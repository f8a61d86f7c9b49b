// End to end through the CLI: an assembled program (pto as) TLOADs two 64x64
// tiles with a non-dense byte row stride (ADR 0074), TADDs them, TSTOREs the
// result; `pto run` writes the result bytes, which are checked against host
// arithmetic.  FP32 runs under the reference profile the spec's test points
// assert (FloatingBinary_ADD is the raw carrier sum, low 32 bits kept; see
// docs/semantics-notes.md "Tile payload storage").
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <unistd.h>

#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace pto::test {
namespace {

constexpr unsigned kN = 64;
constexpr unsigned kStride = 320;  // 256 dense bytes + a 64-byte gap per row
constexpr unsigned kA = 0x100000, kB = 0x108000, kC = 0x110000;

std::string data_section(const char* name, unsigned address, const std::vector<std::uint32_t>& v) {
  std::string s = fmt::format("    .section {}, \"aw\", @progbits, {:#x}\n", name, address);
  for (unsigned r = 0; r < kN; ++r) {
    s += "    .word ";
    for (unsigned c = 0; c < kN; ++c) s += fmt::format("{}{:#x}", c ? ", " : "", v[r * kN + c]);
    s += fmt::format("\n    .zero {}\n", kStride - kN * 4);
  }
  return s;
}

std::string program(const char* type, const std::vector<std::uint32_t>& a, const std::vector<std::uint32_t>& b) {
  std::string s = fmt::format(R"(    .text
    .globl _start
_start:
    HL.ADDI zero, {:#x}, ->a0
    HL.ADDI zero, {:#x}, ->a2
    HL.ADDI zero, {:#x}, ->a3
    ADDI zero, {}, ->a1
    BSTART.TLOAD {t}
    B.DIM zero, 64, ->LB0
    B.DIM zero, 64, ->LB1
    B.IOT mask=1111, last, ->U<8>
    B.IOR a0, a1
    BSTART.TLOAD {t}
    B.DIM zero, 64, ->LB0
    B.DIM zero, 64, ->LB1
    B.IOT mask=1111, last, ->U<8>
    B.IOR a2, a1
    BSTART.VEC TADD, {t}
    B.DIM zero, 64, ->LB0
    B.DIM zero, 64, ->LB1
    B.IOT U#1, U#2, mask=1111, last, ->T<8>
    BSTART.TSTORE {t}
    B.IOT T#1, mask=1111, last
    B.IOR a3, a1
    BSTOP
done:
    BSTOP
)",
                              kA, kB, kC, kStride, fmt::arg("t", type));
  return s + data_section(".a", kA, a) + data_section(".b", kB, b);
}

std::vector<std::uint8_t> read_bytes(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void run_end_to_end(const char* type, std::uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<std::uint32_t> a(kN * kN), b(kN * kN);
  for (unsigned i = 0; i < kN * kN; ++i) {
    a[i] = rng();
    b[i] = rng();
  }
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("pto_e2e_tile_{}_{}", type, ::getpid());
  std::filesystem::create_directories(dir);
  const auto src = dir / "prog.s", elf = dir / "prog.elf", out = dir / "c.bin", log = dir / "run.log";
  std::ofstream(src) << program(type, a, b);
  const std::string cli = PTO_CLI_PATH;
  ASSERT_EQ(std::system(fmt::format("'{}' as '{}' -o '{}' > '{}' 2>&1", cli, src.string(), elf.string(), log.string()).c_str()), 0)
      << read_text(log);
  // The expected sums are the reference profile's (FP32 carriers add as
  // integers); `pto run` defaults to the ieee profile.
  ASSERT_EQ(std::system(fmt::format("'{}' run '{}' --stop-symbol done --result-address {:#x} --result-size {} "
                                    "--numeric-profile reference --result-out '{}' --quiet > '{}' 2>&1",
                                    cli, elf.string(), kC, kN * kStride, out.string(), log.string())
                            .c_str()),
            0)
      << read_text(log);
  const std::vector<std::uint8_t> c = read_bytes(out);
  ASSERT_EQ(c.size(), kN * kStride);
  for (unsigned r = 0; r < kN; ++r) {
    for (unsigned col = 0; col < kN; ++col) {
      std::uint32_t got;
      std::memcpy(&got, c.data() + r * kStride + col * 4, 4);
      ASSERT_EQ(got, a[r * kN + col] + b[r * kN + col]) << type << " r" << r << " c" << col;
    }
    for (unsigned g = kN * 4; g < kStride; ++g) ASSERT_EQ(c[r * kStride + g], 0U) << "stride gap written, row " << r;
  }
  std::filesystem::remove_all(dir);
}

TEST(EndToEndTile, AssembledU32TloadTaddTstoreThroughPtoRun) { run_end_to_end("U32", 11); }
TEST(EndToEndTile, AssembledFp32TloadTaddTstoreThroughPtoRun) { run_end_to_end("FP32", 12); }

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// Observability: --trace shows each tile bundle as one unit at its
// terminator, --print-tile prints the result tile, --dump-state has "tiles".
TEST(EndToEndTile, TracePrintTileAndDumpStateShowTheBundle) {
  const std::string source = R"(    .text
    .globl _start
_start:
    HL.ADDI zero, 0x20000, ->a0
    ADDI zero, 16, ->a1
    BSTART.TLOAD U32
    B.DIM zero, 2, ->LB0
    B.DIM zero, 2, ->LB1
    B.IOT mask=1111, last, ->U<1>
    B.IOR a0, a1
    BSTART.VEC TADD, U32
    C.B.DIMI 2, ->LB0
    C.B.DIMI 2, ->LB1
    B.IOT U#1, U#1, mask=1111, last, ->T<1>
    BSTOP
done:
    BSTOP
    .section .a, "aw", @progbits, 0x20000
    .word 1, 2, 0, 0, 3, 4, 0, 0
)";
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("pto_e2e_tile_obs_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto src = dir / "t.s", elf = dir / "t.elf", out = dir / "out.txt", state = dir / "state.json";
  std::ofstream(src) << source;
  const std::string cli = PTO_CLI_PATH;
  ASSERT_EQ(std::system(fmt::format("'{}' as '{}' -o '{}' > '{}' 2>&1", cli, src.string(), elf.string(), out.string()).c_str()), 0)
      << read_text(out);
  ASSERT_EQ(std::system(fmt::format("'{}' run '{}' --stop-symbol done --trace --print-tile T#1 --dump-state '{}' --quiet > '{}' 2>&1",
                                    cli, elf.string(), state.string(), out.string())
                            .c_str()),
            0)
      << read_text(out);
  const std::string text = read_text(out);
  EXPECT_NE(text.find("[bundle TLOAD.U32 dst=U#1 in=0x20000 in=0x10 elements=4 ok]"), std::string::npos) << text;
  EXPECT_NE(text.find("[bundle TADD.U32 src=U#1,U#1 dst=T#1 elements=4 ok]"), std::string::npos) << text;
  // 1+1, 2+2 / 3+3, 4+4 (row 1 read at base + 16 bytes).
  EXPECT_NE(text.find("0x00000002 0x00000004\n0x00000006 0x00000008"), std::string::npos) << text;
  std::ifstream in(state);
  const auto j = nlohmann::json::parse(in);
  ASSERT_TRUE(j.contains("tiles"));
  EXPECT_EQ(j["tiles"]["local"].size(), 2U);  // U#1 and T#1
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pto::test
