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

constexpr const char* kIeeeSum = "0x0000000040000000";       // FP32 1.0 + 1.0 = 2.0
constexpr const char* kReferenceSum = "0x000000007f000000";  // integer sum of the carriers

// One run of the FADD program: its options and the profile they select.
struct ProfileCase {
  const char* name;     // test name and scratch directory suffix
  const char* options;  // pto run options
  const char* profile;  // numeric_profile in the manifest and the state dump
  const char* a1;       // FADD result
};

constexpr ProfileCase kProfileCases[] = {
    {"DefaultIsIeee", "", "ieee", kIeeeSum},
    {"ReferenceOption", "--numeric-profile reference", "reference", kReferenceSum},
    {"ReferenceConfigurationDefaultsToReference", "--profile reference", "reference", kReferenceSum},
    {"ReferenceConfigurationOverriddenByIeee", "--profile reference --numeric-profile ieee", "ieee", kIeeeSum},
};

class CliRunNumericProfileCase : public ::testing::TestWithParam<ProfileCase> {};

TEST_P(CliRunNumericProfileCase, SelectsProfile) {
  const ProfileCase& c = GetParam();
  const ProfileRun r = run_fadd(std::string("numeric-") + c.name, c.options);
  ASSERT_EQ(r.cli.exit_code, kRunExitStopped) << r.cli.err;
  EXPECT_EQ(a1(r), c.a1);
  EXPECT_EQ(r.manifest["pto"]["numeric_profile"], c.profile);
  EXPECT_EQ(r.state["numeric_profile"], c.profile);
}

INSTANTIATE_TEST_SUITE_P(CliRunNumericProfile, CliRunNumericProfileCase, ::testing::ValuesIn(kProfileCases),
                         [](const ::testing::TestParamInfo<ProfileCase>& info) { return std::string(info.param.name); });

TEST(CliRunNumericProfile, UnknownProfileIsAUsageError) {
  const ProfileRun r = run_fadd("numeric-bad", "--numeric-profile fast");
  EXPECT_EQ(r.cli.exit_code, kRunExitUsage);
  EXPECT_NE(r.cli.err.find("--numeric-profile"), std::string::npos) << r.cli.err;
}

}  // namespace
}  // namespace pto::test
