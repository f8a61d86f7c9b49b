// End to end through the CLI: an assembled CUBE program (pto as) moves two
// S8 matrices from memory into CUBE_M16 / CUBE_N8 tiles (TLOAD with B.DATR
// ND2M16 / ND2N8), multiplies them with TMATMUL (B.FPATR None), and stores
// the S32 product back row-major (TSTORE with B.DATR M162ND); `pto run`
// writes the result bytes, checked against a host loop.  The same with FP16
// operands in a loop, under the ieee profile, against a host FMA loop.
#include <gtest/gtest.h>
#include <fmt/format.h>

#include <unistd.h>

#include <bit>
#include <cmath>
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

template <typename T>
std::string bytes_section(const char* name, unsigned address, const std::vector<T>& v) {
  std::vector<std::uint8_t> bytes(v.size() * sizeof(T));
  std::memcpy(bytes.data(), v.data(), bytes.size());  // little-endian, as the target
  std::string s = fmt::format("    .section {}, \"aw\", @progbits, {:#x}\n", name, address);
  for (std::size_t i = 0; i < bytes.size(); i += 8) {
    s += "    .byte ";
    for (std::size_t j = i; j < i + 8 && j < bytes.size(); ++j) s += fmt::format("{}{:#x}", j == i ? "" : ", ", bytes[j]);
    s += "\n";
  }
  return s;
}

// Registers a0..a5 = A, A row pitch, B, C, B row pitch, C row pitch (bytes).
std::string setup(unsigned a_pitch, unsigned b_pitch, unsigned c_pitch) {
  return fmt::format(R"(    .text
    .globl _start
_start:
    HL.ADDI zero, {a:#x}, ->a0
    HL.ADDI zero, {b:#x}, ->a2
    HL.ADDI zero, {c:#x}, ->a3
    ADDI zero, {ap}, ->a1
    ADDI zero, {bp}, ->a4
    ADDI zero, {cp}, ->a5
)",
                     fmt::arg("a", kA), fmt::arg("b", kB), fmt::arg("c", kC), fmt::arg("ap", a_pitch),
                     fmt::arg("bp", b_pitch), fmt::arg("cp", c_pitch));
}

// TLOAD A (ND2M16), TLOAD B (ND2N8), TMATMUL (B.FPATR None) and TSTORE D
// (M162ND) on 1 KiB-per-PE tiles (SizeCode 4), from the registers of setup().
std::string matmul_blocks(const char* in, const char* out, unsigned m, unsigned k, unsigned n) {
  return fmt::format(R"(    BSTART.TLOAD {in}
    B.DATR ND2M16, DTYPE_NONE, Zero, EQ, Default, 0, 0
    B.DIM zero, {k}, ->LB0
    B.DIM zero, {m}, ->LB1
    B.IOT mask=1111, last, ->M<4>
    B.IOR a0, a1
    BSTART.TLOAD {in}
    B.DATR ND2N8, DTYPE_NONE, Zero, EQ, Default, 0, 0
    B.DIM zero, {n}, ->LB0
    B.DIM zero, {k}, ->LB1
    B.IOT mask=1111, last, ->M<4>
    B.IOR a2, a4
    BSTART.TMATMUL {in}
    B.FPATR None, None, 0, 0, 0, 0, 0, 0, 0
    B.DIM zero, {m}, ->LB0
    B.DIM zero, {n}, ->LB1
    B.DIM zero, {k}, ->LB2
    B.IOT M#1, M#2, mask=1111, last, ->T<4>
    BSTART.TSTORE {out}
    B.DATR M162ND, DTYPE_NONE, Zero, EQ, Default, 0, 0
    B.DIM zero, {n}, ->LB0
    B.DIM zero, {m}, ->LB1
    B.IOT T#1, mask=1111, last
    B.IOR a3, a5
)",
                     fmt::arg("in", in), fmt::arg("out", out), fmt::arg("m", m), fmt::arg("n", n), fmt::arg("k", k));
}

std::string program(const std::vector<std::int8_t>& a, const std::vector<std::int8_t>& b) {
  // A has 5 CELLs, B 6, D 6 (128 bytes each).
  return setup(kK, kN, kN * 4) + matmul_blocks("S8", "S32", kM, kK, kN) + "    BSTOP\ndone:\n    BSTOP\n" +
         bytes_section(".a", kA, a) + bytes_section(".b", kB, b);
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// `pto as` and `pto run` on a program; the bytes at [address, address + size).
std::vector<char> assemble_and_run(const std::string& source, unsigned address, std::size_t size) {
  const auto dir = std::filesystem::temp_directory_path() / fmt::format("pto_e2e_cube_{}", ::getpid());
  std::filesystem::create_directories(dir);
  const auto src = dir / "prog.s", elf = dir / "prog.elf", out = dir / "c.bin", log = dir / "run.log";
  std::ofstream(src) << source;
  const std::string cli = PTO_CLI_PATH;
  EXPECT_EQ(std::system(fmt::format("'{}' as '{}' -o '{}' > '{}' 2>&1", cli, src.string(), elf.string(), log.string()).c_str()), 0)
      << read_text(log);
  EXPECT_EQ(std::system(fmt::format("'{}' run '{}' --stop-symbol done --result-address {:#x} --result-size {} "
                                    "--result-out '{}' --quiet > '{}' 2>&1",
                                    cli, elf.string(), address, size, out.string(), log.string())
                            .c_str()),
            0)
      << read_text(log);
  std::ifstream in(out, std::ios::binary);
  std::vector<char> c{std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
  std::filesystem::remove_all(dir);
  return c;
}

TEST(EndToEndCube, AssembledS8MatmulThroughCubeTransportAndPtoRun) {
  std::mt19937 rng(7);
  std::vector<std::int8_t> a(kM * kK), b(kK * kN);
  for (auto& x : a) x = static_cast<std::int8_t>(rng());
  for (auto& x : b) x = static_cast<std::int8_t>(rng());
  const std::vector<char> c = assemble_and_run(program(a, b), kC, kM * kN * 4);
  ASSERT_EQ(c.size(), kM * kN * 4);
  for (unsigned r = 0; r < kM; ++r)
    for (unsigned col = 0; col < kN; ++col) {
      std::int32_t expected = 0;
      for (unsigned i = 0; i < kK; ++i) expected += a[r * kK + i] * b[i * kN + col];
      std::int32_t got;
      std::memcpy(&got, c.data() + (r * kN + col) * 4, 4);
      ASSERT_EQ(got, expected) << "r" << r << " c" << col;
    }
}

// An FP16 kernel: per iteration TLOAD A (ND2M16), TLOAD B (ND2N8), TMATMUL
// (FP32 accumulation, B.FPATR None, RNE) and TSTORE C_i (M162ND), looping
// back from a conditional block kIterations times.  Each TLOAD allocates
// the lowest free tile of its hand while the TMATMUL's M#1 / M#2 name fixed
// tiles, so every iteration loads the same A and B (from the same
// addresses) and the products are stored side by side.
constexpr unsigned kIterations = 3, kFm = 16, kFk = 32, kFn = 16;

std::string fp16_loop_program(const std::vector<std::uint16_t>& a, const std::vector<std::uint16_t>& b) {
  // A, B and D are 8 CELLs each.
  return setup(kFk * 2, kFn * 2, kFn * 4) + fmt::format("    ADDI zero, {}, ->a6\nloop:\n", kIterations) +
         matmul_blocks("FP16", "FP32", kFm, kFk, kFn) +
         fmt::format(R"(    BSTART.STD COND, loop
    addi a3, {}, ->a3
    subi a6, 1, ->a6
    setc.ne a6, zero
    BSTOP
done:
    BSTOP
)",
                     kFm * kFn * 4) +
         bytes_section(".a", kA, a) + bytes_section(".b", kB, b);
}

// binary16 -> binary32, exact (written out: no host _Float16 needed).
float fp16_value(std::uint16_t h) {
  const float sign = (h & 0x8000) ? -1.0f : 1.0f;
  const int exponent = (h >> 10) & 0x1F, fraction = h & 0x3FF;
  if (exponent == 0) return sign * std::ldexp(static_cast<float>(fraction), -24);
  return sign * std::ldexp(static_cast<float>(1024 + fraction), exponent - 25);
}

TEST(EndToEndCube, AssembledFp16MatmulLoopMatchesHostFmaLoop) {
  std::mt19937 rng(11);
  // Finite FP16 values of both signs: exponent fields 0 .. 17 (zeros, subnormals, normals below 8).
  const auto random_fp16 = [&rng] {
    const auto v = static_cast<std::uint16_t>(rng());
    return static_cast<std::uint16_t>((v & 0x83FF) | ((v >> 10) % 18) << 10);
  };
  std::vector<std::uint16_t> a(kFm * kFk), b(kFk * kFn);
  for (auto& x : a) x = random_fp16();
  for (auto& x : b) x = random_fp16();
  const std::vector<char> c = assemble_and_run(fp16_loop_program(a, b), kC, kIterations * kFm * kFn * 4);
  ASSERT_EQ(c.size(), kIterations * kFm * kFn * 4);
  for (unsigned it = 0; it < kIterations; ++it)
    for (unsigned r = 0; r < kFm; ++r)
      for (unsigned col = 0; col < kFn; ++col) {
        // TileProfileMatrixAccumulate (ieee): one binary32 fused step per k, in k order, RNE.
        float expected = 0.0f;
        for (unsigned i = 0; i < kFk; ++i)
          expected = std::fma(fp16_value(a[r * kFk + i]), fp16_value(b[i * kFn + col]), expected);
        std::uint32_t got;
        std::memcpy(&got, c.data() + ((it * kFm + r) * kFn + col) * 4, 4);
        ASSERT_EQ(got, std::bit_cast<std::uint32_t>(expected)) << "iteration " << it << " r" << r << " c" << col;
      }
}

}  // namespace
}  // namespace pto::test
