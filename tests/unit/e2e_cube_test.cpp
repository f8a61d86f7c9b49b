// End to end through the CLI: an assembled CUBE program (pto as) moves two
// S8 matrices from memory into CUBE_M16 / CUBE_N8 tiles (TLOAD with B.DATR
// ND2M16 / ND2N8), multiplies them with TMATMUL (B.FPATR None), and stores
// the S32 product back row-major (TSTORE with B.DATR M162ND); `pto run`
// writes the result bytes, checked against a host loop.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

#include "test_paths.hpp"

namespace pto::test {
namespace {

constexpr unsigned kM = 16, kK = 40, kN = 12;  // M16 holds up to 16 rows
constexpr unsigned kA = 0x20000, kB = 0x21000, kC = 0x22000;

std::string bytes_section(const char* name, unsigned address, const std::vector<std::int8_t>& v) {
  std::string s = fmt::format("    .section {}, \"aw\", @progbits, {:#x}\n", name, address);
  for (std::size_t i = 0; i < v.size(); i += 8) {
    s += "    .byte ";
    for (std::size_t j = i; j < i + 8 && j < v.size(); ++j)
      s += fmt::format("{}{:#x}", j == i ? "" : ", ", static_cast<std::uint8_t>(v[j]));
    s += "\n";
  }
  return s;
}

std::string program(const std::vector<std::int8_t>& a, const std::vector<std::int8_t>& b) {
  // SizeCode 4 = 1 KiB per PE: A has 5 CELLs, B 6, D 6 (128 bytes each).
  return fmt::format(R"(    .text
    .globl _start
_start:
    HL.ADDI zero, {a:#x}, ->a0
    HL.ADDI zero, {b:#x}, ->a2
    HL.ADDI zero, {c:#x}, ->a3
    ADDI zero, {k}, ->a1
    ADDI zero, {n}, ->a4
    ADDI zero, {cstride}, ->a5
    BSTART.TLOAD S8
    B.DATR ND2M16, DTYPE_NONE, Zero, EQ, Default, 0, 0
    B.DIM zero, {k}, ->LB0
    B.DIM zero, {m}, ->LB1
    B.IOT mask=1111, last, ->M<4>
    B.IOR a0, a1
    BSTART.TLOAD S8
    B.DATR ND2N8, DTYPE_NONE, Zero, EQ, Default, 0, 0
    B.DIM zero, {n}, ->LB0
    B.DIM zero, {k}, ->LB1
    B.IOT mask=1111, last, ->M<4>
    B.IOR a2, a4
    BSTART.TMATMUL S8
    B.FPATR None, None, 0, 0, 0, 0, 0, 0, 0
    B.DIM zero, {m}, ->LB0
    B.DIM zero, {n}, ->LB1
    B.DIM zero, {k}, ->LB2
    B.IOT M#1, M#2, mask=1111, last, ->T<4>
    BSTART.TSTORE S32
    B.DATR M162ND, DTYPE_NONE, Zero, EQ, Default, 0, 0
    B.DIM zero, {n}, ->LB0
    B.DIM zero, {m}, ->LB1
    B.IOT T#1, mask=1111, last
    B.IOR a3, a5
    BSTOP
done:
    BSTOP
)",
                     fmt::arg("a", kA), fmt::arg("b", kB), fmt::arg("c", kC), fmt::arg("m", kM), fmt::arg("n", kN),
                     fmt::arg("k", kK), fmt::arg("cstride", kN * 4)) +
         bytes_section(".a", kA, a) + bytes_section(".b", kB, b);
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(EndToEndCube, AssembledS8MatmulThroughCubeTransportAndPtoRun) {
  std::mt19937 rng(7);
  std::vector<std::int8_t> a(kM * kK), b(kK * kN);
  for (auto& x : a) x = static_cast<std::int8_t>(rng());
  for (auto& x : b) x = static_cast<std::int8_t>(rng());
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("pto_e2e_cube_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto src = dir / "prog.s", elf = dir / "prog.elf", out = dir / "c.bin", log = dir / "run.log";
  std::ofstream(src) << program(a, b);
  const std::string cli = PTO_CLI_PATH;
  ASSERT_EQ(std::system(fmt::format("'{}' as '{}' -o '{}' > '{}' 2>&1", cli, src.string(), elf.string(), log.string()).c_str()), 0)
      << read_text(log);
  ASSERT_EQ(std::system(fmt::format("'{}' run '{}' --stop-symbol done --result-address {:#x} --result-size {} "
                                    "--result-out '{}' --quiet > '{}' 2>&1",
                                    cli, elf.string(), kC, kM * kN * 4, out.string(), log.string())
                            .c_str()),
            0)
      << read_text(log);
  std::ifstream in(out, std::ios::binary);
  const std::vector<char> c{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  ASSERT_EQ(c.size(), kM * kN * 4);
  for (unsigned r = 0; r < kM; ++r)
    for (unsigned col = 0; col < kN; ++col) {
      std::int32_t expected = 0;
      for (unsigned i = 0; i < kK; ++i) expected += a[r * kK + i] * b[i * kN + col];
      std::int32_t got;
      std::memcpy(&got, c.data() + (r * kN + col) * 4, 4);
      ASSERT_EQ(got, expected) << "r" << r << " c" << col;
    }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace pto::test
