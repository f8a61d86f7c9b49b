// End-to-end programs (tests/data/programs/*.s) assembled in memory and run
// with `pto run`: loops, calls and returns, loads/stores of every width and a
// fault with its trap context.  Every expected value is derived by hand in
// the program's header comment from the ASL rules it cites.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "cli_run_harness.hpp"

namespace pto::test {
namespace {

std::string program(const std::string& name) { return quoted((fs::path(PTO_TEST_DATA_DIR) / "programs" / name).string()); }

// Little-endian bytes of consecutive dwords.
std::vector<std::uint8_t> dwords(std::initializer_list<std::uint64_t> values) {
  std::vector<std::uint8_t> b;
  for (std::uint64_t v : values) {
    for (unsigned i = 0; i < 8; ++i) b.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  }
  return b;
}

struct ProgramRun {
  CliResult cli;
  std::vector<std::uint8_t> result;
  nlohmann::json manifest, state;
};

// `pto run PROGRAM ARGS` writing the result bytes, manifest and state dump.
ProgramRun run_program(const std::string& test, const std::string& name, const std::string& args) {
  const fs::path d = scratch_dir(test);
  const fs::path result = d / "result.bin", manifest = d / "manifest.json", state = d / "state.json";
  fs::remove(result);
  ProgramRun r;
  r.cli = run_pto("run " + program(name) + " " + args + " --result-out " + quoted(result.string()) +
                      " --manifest-out " + quoted(manifest.string()) + " --dump-state " + quoted(state.string()),
                  d);
  r.result = read_bytes(result);
  if (fs::exists(manifest)) r.manifest = read_json(manifest);
  if (fs::exists(state)) r.state = read_json(state);
  return r;
}

TEST(E2eProgram, LoopSumsOneToTen) {
  const ProgramRun r = run_program("loop", "loop_sum.s", "--stop-symbol done --result-symbol result --result-size 8");
  ASSERT_EQ(r.cli.exit_code, kRunExitStopped) << r.cli.err;
  EXPECT_EQ(r.result, dwords({55}));
  // 4 (first block) + 10 iterations x 5 + 3 (store block) attempts.
  EXPECT_EQ(r.manifest.at("pto").at("steps"), 57);
  EXPECT_EQ(r.manifest.at("pto").at("stop_reason"), "stop-pc");
  EXPECT_EQ(r.manifest.at("pto").at("fault"), nullptr);
}

TEST(E2eProgram, CallsAndReturns) {
  const ProgramRun r = run_program("call", "call_return.s", "--stop-symbol done --result-symbol out --result-size 24");
  ASSERT_EQ(r.cli.exit_code, kRunExitStopped) << r.cli.err;
  // square(7) = 49 via BSTART.CALL; square(49) = 2401 via SETRET + DIRECT;
  // ra = back2 (0x2c: 11 words of code precede it).
  EXPECT_EQ(r.result, dwords({49, 2401, 0x2c}));
  EXPECT_EQ(r.manifest.at("pto").at("steps"), 21);
}

TEST(E2eProgram, LoadsAndStoresOfEveryWidth) {
  const ProgramRun r = run_program("mem", "memory_widths.s", "--stop-symbol done --result-symbol loads --result-size 200");
  ASSERT_EQ(r.cli.exit_code, kRunExitStopped) << r.cli.err;
  std::vector<std::uint8_t> expected = dwords({
      0xFFFFFFFFFFFFFF87,  // 0 lbi   byte 0
      0x0000000000000087,  // 1 lbui  byte 0
      0xFFFFFFFFFFFF9687,  // 2 lhi   half 0
      0x0000000000009687,  // 3 lhui  half 0
      0xFFFFFFFFB4A59687,  // 4 lwi   word 0
      0x00000000B4A59687,  // 5 lwui  word 0
      0xF0E1D2C3B4A59687,  // 6 ldi
      0xFFFFFFFFFFFFFFF0,  // 7 lbi   byte 7
      0xFFFFFFFFFFFFFFB4,  // 8 lb    byte 3
      0x00000000000000E1,  // 9 lbu   byte 6
      0xFFFFFFFFFFFFB4A5,  // 10 lh   bytes 2..3
      0x000000000000F0E1,  // 11 lhu  bytes 6..7
      0xFFFFFFFFF0E1D2C3,  // 12 lw   bytes 4..7
      0x00000000F0E1D2C3,  // 13 lwu  bytes 4..7
      0xF0E1D2C3B4A59687,  // 14 ld
      0xFFFFFFFFFFFFF0E1,  // 15 lhi  [a2, 3] = bytes 6..7
      0x00000000F0E1D2C3,  // 16 lwui [a2, 1] = bytes 4..7
      // stores
      0x0000000000000087,  // sbi
      0x0000000000009687,  // shi [a5, 4] -> byte 8
      0x00000000B4A59687,  // swi [a5, 4] -> byte 16
      0xF0E1D2C3B4A59687,  // sdi [a5, 3] -> byte 24
      0x0000000000008700,  // sb  byte 33
      0x0000000096870000,  // sh  bytes 42..43
      0xB4A5968700000000,  // sw  bytes 52..55
      0xF0E1D2C3B4A59687,  // sd  bytes 56..63
  });
  EXPECT_EQ(r.result, expected);
}

// The fault handler at EVBASE reads the trap status the fault left behind.
TEST(E2eProgram, FaultTrapsToEvbaseWithItsContext) {
  const ProgramRun r =
      run_program("trap", "fault_trap.s", "--run-trap-handlers --stop-symbol done --result-symbol out --result-size 32");
  ASSERT_EQ(r.cli.exit_code, kRunExitStopped) << r.cli.err;
  // TRAPNO = bit 62 (argument valid) | 34 (Fault_DataAlignment); TRAPARG0 =
  // src + 2 = 0x62 (src at 0x60); a4 untouched (5); a3 = half at src + 2.
  EXPECT_EQ(r.result, dwords({0x4000000000000022, 0x62, 5, 0x5566}));
  const auto& ring0 = r.state.at("rings").at(0);
  EXPECT_EQ(ring0.at("trap_context").at("valid"), true);
  EXPECT_EQ(ring0.at("trap_context").at("tpc"), "0x0000000000000020");  // `faulting`
  EXPECT_EQ(ring0.at("trap_context").at("bpc"), "0x0000000000000010");  // its block
  EXPECT_EQ(r.state.at("current_acr"), 0);
}

// With EVBASE = 0 the fault is unhandled: TPC = the fault address.
TEST(E2eProgram, UnhandledFaultStopsAtTheFaultAddress) {
  const ProgramRun r = run_program("unhandled", "fault_trap.s", "--start-symbol unhandled");
  ASSERT_EQ(r.cli.exit_code, kRunExitFault) << r.cli.err;
  EXPECT_EQ(r.manifest.at("pto").at("stop_reason"), "fault");
  EXPECT_EQ(r.manifest.at("status"), "failed");
  EXPECT_EQ(r.manifest.at("pto").at("fault").at("code"), "Fault_DataAlignment");
  EXPECT_EQ(r.manifest.at("pto").at("fault").at("address"), 0x62);
  EXPECT_EQ(r.manifest.at("pto").at("fault").at("pc"), 0x20);
  EXPECT_EQ(r.manifest.at("final_tpc"), 0x62);
  EXPECT_EQ(r.manifest.at("pto").at("steps"), 5);  // the faulting attempt counts
  const auto& ring0 = r.state.at("rings").at(0);
  EXPECT_EQ(ring0.at("trap_status"), "0x4000000000000022");
  EXPECT_EQ(ring0.at("trap_argument0"), "0x0000000000000062");
  EXPECT_EQ(ring0.at("trap_context").at("tpc"), "0x0000000000000020");
  EXPECT_EQ(r.state.at("fault").at("last_fault"), "Fault_DataAlignment");
  EXPECT_EQ(r.state.at("gpr").at(0).at(6), "0x0000000000000005");  // a4 kept
  EXPECT_NE(r.cli.err.find("Fault_DataAlignment"), std::string::npos) << r.cli.err;
}

TEST(E2eProgram, TraceShowsEveryAttempt) {
  const fs::path d = scratch_dir("trace");
  const CliResult r = run_pto("run " + program("loop_sum.s") + " --stop-symbol done --trace --quiet", d);
  ASSERT_EQ(r.exit_code, kRunExitStopped) << r.err;
  std::vector<std::string> lines;
  for (std::size_t at = 0, nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(r.out.substr(at, nl - at));
  }
  ASSERT_EQ(lines.size(), 57u);
  EXPECT_NE(lines[0].find("BSTART.STD FALL"), std::string::npos) << lines[0];
  EXPECT_NE(lines[1].find("a0=0xa"), std::string::npos) << lines[1];  // addi zero, 10 -> a0
  // The store of the sum (55) to `result` (0x40, after 0x40 bytes of code).
  EXPECT_NE(lines[55].find("st8 [0x40] 0x37"), std::string::npos) << lines[55];
  EXPECT_TRUE(r.err.empty()) << r.err;  // --quiet: no summary line
}

TEST(E2eProgram, JsonTraceRecordsWritesAndAccesses) {
  const fs::path d = scratch_dir("trace-json");
  const CliResult r = run_pto("run " + program("loop_sum.s") + " --stop-symbol done --trace-json --quiet", d);
  ASSERT_EQ(r.exit_code, kRunExitStopped) << r.err;
  std::vector<nlohmann::json> lines;
  for (std::size_t at = 0, nl; (nl = r.out.find('\n', at)) != std::string::npos; at = nl + 1) {
    lines.push_back(nlohmann::json::parse(r.out.substr(at, nl - at)));
  }
  ASSERT_EQ(lines.size(), 57u);
  EXPECT_EQ(lines[1].at("pc"), "0x4");
  EXPECT_EQ(lines[1].at("gpr").at("a0"), "0xa");
  EXPECT_EQ(lines[1].at("next_pc"), "0x8");
  const auto& store = lines[55].at("mem").at(0);
  EXPECT_EQ(store.at("addr"), "0x40");
  EXPECT_EQ(store.at("size"), 8);
  EXPECT_EQ(store.at("value"), "0x37");
  EXPECT_EQ(store.at("write"), true);
}

}  // namespace
}  // namespace pto::test
