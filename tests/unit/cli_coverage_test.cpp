// `pto coverage --json` against the counts the spec states: 466 scalar forms
// plus 74 bundle/command forms (540), and 109 direct tile operations of which
// 31 VEC and 56 SFU (tile-operations.json TEPL classes), 12 CUBE and 10 TLSU.
#include <gtest/gtest.h>

#include <map>

#include "cli_run_harness.hpp"

namespace pto::test {
namespace {

nlohmann::json coverage_json() {
  const fs::path dir = scratch_dir("cli-coverage");
  const CliResult r = run_pto("coverage --json", dir);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return nlohmann::json::parse(r.out);
}

TEST(CliCoverage, EveryFormAndTileOperationIsListedWithItsStatus) {
  const nlohmann::json j = coverage_json();
  ASSERT_EQ(j["forms"].size(), 540U);
  for (const auto& f : j["forms"]) {
    EXPECT_FALSE(f["mnemonic"].get<std::string>().empty());
    EXPECT_FALSE(f["form_id"].get<std::string>().empty());
    EXPECT_EQ(f["status"], "executable") << f["form_id"];
  }
  ASSERT_EQ(j["tile_operations"].size(), 109U);
  std::map<std::string, unsigned> per_engine;
  for (const auto& o : j["tile_operations"]) {
    ++per_engine[o["engine"].get<std::string>()];
    EXPECT_EQ(o["status"], "executable") << o["name"];
  }
  EXPECT_EQ(per_engine["VEC"], 31U);
  EXPECT_EQ(per_engine["SFU"], 56U);
  EXPECT_EQ(per_engine["CUBE"], 12U);
  EXPECT_EQ(per_engine["TLSU"], 10U);
}

TEST(CliCoverage, NoUnexecutedPathsRemainInsideExecutableOperations) {
  // B.FPATR post-processing and the B.DATR layouts execute: the list is empty.
  const nlohmann::json j = coverage_json();
  EXPECT_TRUE(j["unexecuted_paths"].empty()) << j["unexecuted_paths"].dump();
  const fs::path dir = scratch_dir("cli-coverage-text");
  const CliResult text = run_pto("coverage", dir);
  EXPECT_NE(text.out.find("forms: 540/540 executable; tile operations: 109/109 executable; 0 paths inside them not "
                          "implemented"),
            std::string::npos)
      << text.out;
}

}  // namespace
}  // namespace pto::test
