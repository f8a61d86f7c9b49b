// `pto run --numeric-profile reference|ieee`: the profile behind FSU
// arithmetic follows the option (default: ieee, reference with --profile
// reference) and is recorded in the manifest and the state dump.
// Expected values: FADD of FP32 1.0 + 1.0 is 2.0 (0x40000000) in IEEE 754
// and the integer sum of the carriers (0x3F800000 + 0x3F800000 = 0x7F000000)
// in the reference profile (ScalarFPBinaryProfile,
// asl/arch/profile/reference-profile.asl).
#include <gtest/gtest.h>

#include <fstream>
#include <string>

#include "cli_run_harness.hpp"

namespace pto::test {
namespace {

constexpr const char* kFaddProgram = R"(
        .globl _start
_start: BSTART.STD FALL
        hl.liu 0x3F800000, ->a0
        fadd.fs a0, a0, ->a1
        BSTOP
        .globl done
done:   BSTART.STD FALL
        BSTOP
)";

struct ProfileRun {
  CliResult cli;
  nlohmann::json manifest, state;
};

ProfileRun run_fadd(const std::string& test, const std::string& options) {
  const fs::path d = scratch_dir(test);
  const fs::path program = d / "fadd.s";
  std::ofstream(program) << kFaddProgram;
  const fs::path manifest = d / "manifest.json", state = d / "state.json";
  ProfileRun r;
  r.cli = run_pto("run " + quoted(program.string()) + " --stop-symbol done --quiet --manifest-out " +
                      quoted(manifest.string()) + " --dump-state " + quoted(state.string()) + " " + options,
                  d);
  if (r.cli.exit_code == kRunExitStopped) {
    r.manifest = read_json(manifest);
    r.state = read_json(state);
  }
  return r;
}

// a1 is absolute GPR 3 of PE0 in the state dump.
std::string a1(const ProfileRun& r) { return r.state["gpr"][0][3].get<std::string>(); }

TEST(CliRunNumericProfile, DefaultIsIeee) {
  const ProfileRun r = run_fadd("numeric-default", "");
  ASSERT_EQ(r.cli.exit_code, kRunExitStopped) << r.cli.err;
  EXPECT_EQ(a1(r), "0x0000000040000000");
  EXPECT_EQ(r.manifest["configuration"]["numeric_profile"], "ieee");
  EXPECT_EQ(r.state["numeric_profile"], "ieee");
}

TEST(CliRunNumericProfile, ReferenceOption) {
  const ProfileRun r = run_fadd("numeric-reference", "--numeric-profile reference");
  ASSERT_EQ(r.cli.exit_code, kRunExitStopped) << r.cli.err;
  EXPECT_EQ(a1(r), "0x000000007f000000");
  EXPECT_EQ(r.manifest["configuration"]["numeric_profile"], "reference");
  EXPECT_EQ(r.state["numeric_profile"], "reference");
}

TEST(CliRunNumericProfile, ReferenceConfigurationDefaultsToReferenceAndCanBeOverridden) {
  const ProfileRun reference = run_fadd("numeric-refconf", "--profile reference");
  ASSERT_EQ(reference.cli.exit_code, kRunExitStopped) << reference.cli.err;
  EXPECT_EQ(a1(reference), "0x000000007f000000");
  EXPECT_EQ(reference.manifest["configuration"]["numeric_profile"], "reference");
  const ProfileRun ieee = run_fadd("numeric-refconf-ieee", "--profile reference --numeric-profile ieee");
  ASSERT_EQ(ieee.cli.exit_code, kRunExitStopped) << ieee.cli.err;
  EXPECT_EQ(a1(ieee), "0x0000000040000000");
  EXPECT_EQ(ieee.state["numeric_profile"], "ieee");
}

TEST(CliRunNumericProfile, UnknownProfileIsAUsageError) {
  const ProfileRun r = run_fadd("numeric-bad", "--numeric-profile fast");
  EXPECT_EQ(r.cli.exit_code, kRunExitUsage);
  EXPECT_NE(r.cli.err.find("--numeric-profile"), std::string::npos) << r.cli.err;
}

}  // namespace
}  // namespace pto::test
