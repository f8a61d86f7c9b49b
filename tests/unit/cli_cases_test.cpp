// `pto cases`: the example corpus passes with its literal parameters; cases
// that need a compiler or name another release are skipped with that reason;
// a wrong golden, a golden whose hash differs and a failing run are failures;
// sharding, JSON and JUnit reports and the exit status.
#include <gtest/gtest.h>

#include <algorithm>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "cli_run_harness.hpp"
#include "runner/sha256.hpp"

namespace pto::test {
namespace {

const fs::path kExamples = fs::path(PTO_SOURCE_DIR) / "examples" / "cases";

// A copy of one example case under `root`, with case.yaml edited by `edit`.
fs::path copy_case(const fs::path& root, const std::string& from, const std::string& to,
                   const std::function<void(nlohmann::json&)>& edit) {
  const fs::path dir = root / to;
  fs::create_directories(dir);
  for (const auto& e : fs::directory_iterator(kExamples / from)) {
    fs::copy_file(e.path(), dir / e.path().filename(), fs::copy_options::overwrite_existing);
  }
  nlohmann::json doc = read_json(dir / "case.yaml");
  doc["case_id"] = to;
  edit(doc);
  const std::string text = doc.dump(2);
  write_bytes(dir / "case.yaml", std::vector<std::uint8_t>(text.begin(), text.end()));
  return dir;
}

std::map<std::string, nlohmann::json> by_id(const nlohmann::json& report) {
  std::map<std::string, nlohmann::json> out;
  for (const auto& c : report) out[c.at("case_id")] = c;
  return out;
}

TEST(CliCases, ExampleCorpusPasses) {
  const fs::path d = scratch_dir("cases-examples");
  const CliResult r = run_pto("cases -j 2 " + quoted(kExamples.string()) + " --json " + quoted((d / "r.json").string()), d);
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const auto cases = by_id(read_json(d / "r.json"));
  ASSERT_EQ(cases.size(), 4u);
  for (const auto& [id, c] : cases) EXPECT_EQ(c.at("status"), "passed") << id << ": " << c.at("reason");
  // Final TPCs derived from the layouts in each case.ld.
  EXPECT_EQ(cases.at("scalar_stop_pc").at("final_tpc"), 0x114);
  EXPECT_EQ(cases.at("scalar_stop_pc").at("steps"), 6);
  EXPECT_EQ(cases.at("block_64_stop_pc").at("final_tpc"), 0x280);
  EXPECT_EQ(cases.at("host_exit_group").at("final_tpc"), 0x10e);  // the saved trap TPC
  EXPECT_EQ(cases.at("tile_tadd_stop_pc").at("steps"), 18);
  EXPECT_NE(r.out.find("4 passed, 0 failed, 0 skipped"), std::string::npos) << r.out;
}

TEST(CliCases, SkipsFailuresAndReports) {
  const fs::path d = scratch_dir("cases-mixed");
  fs::remove_all(d / "corpus");
  const fs::path corpus = d / "corpus";
  copy_case(corpus, "scalar_stop_pc", "needs_compiler", [](nlohmann::json& c) {
    c["lane"] = "c";
    c["source"] = "source.c";
  });
  copy_case(corpus, "scalar_stop_pc", "other_release", [](nlohmann::json& c) { c["profile"] = "pto-reference-0.58.7-v1"; });
  const fs::path wrong = copy_case(corpus, "scalar_stop_pc", "wrong_golden", [](nlohmann::json& c) {
    c["golden"]["sha256"] = runner::sha256_hex(std::vector<std::uint8_t>{'1', '9', '0', '0', '0', '0', '0', '1', '\n'});
  });
  write_bytes(wrong / "golden.hex", {'1', '9', '0', '0', '0', '0', '0', '1', '\n'});
  copy_case(corpus, "scalar_stop_pc", "bad_hash", [](nlohmann::json& c) { c["golden"]["sha256"] = std::string(64, '0'); });
  copy_case(corpus, "scalar_stop_pc", "short_budget", [](nlohmann::json& c) { c["execution"]["max_steps"] = 5; });
  copy_case(corpus, "scalar_stop_pc", "passing", [](nlohmann::json&) {});

  const CliResult r = run_pto("cases -j 3 " + quoted(corpus.string()) + " --json " + quoted((d / "r.json").string()) +
                                  " --junit " + quoted((d / "r.xml").string()),
                              d);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  const auto cases = by_id(read_json(d / "r.json"));
  ASSERT_EQ(cases.size(), 6u);
  EXPECT_EQ(cases.at("passing").at("status"), "passed");
  EXPECT_EQ(cases.at("needs_compiler").at("status"), "skipped");
  EXPECT_NE(cases.at("needs_compiler").at("reason").get<std::string>().find("needs a compiler"), std::string::npos);
  EXPECT_EQ(cases.at("other_release").at("status"), "skipped");
  EXPECT_NE(cases.at("other_release").at("reason").get<std::string>().find("names release 0.58.7"), std::string::npos);
  EXPECT_EQ(cases.at("wrong_golden").at("status"), "failed");
  EXPECT_NE(cases.at("wrong_golden").at("reason").get<std::string>().find("at byte 3: got 0x00, expected 0x01"),
            std::string::npos)
      << cases.at("wrong_golden").at("reason");
  EXPECT_EQ(cases.at("bad_hash").at("status"), "failed");
  EXPECT_NE(cases.at("bad_hash").at("reason").get<std::string>().find("SHA-256"), std::string::npos);
  EXPECT_EQ(cases.at("short_budget").at("status"), "failed");
  EXPECT_NE(cases.at("short_budget").at("reason").get<std::string>().find("unfinished after 5 steps"), std::string::npos);
  const std::string xml = read_text(d / "r.xml");
  EXPECT_NE(xml.find("tests=\"6\" failures=\"3\" skipped=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("<testcase classname=\"pto.cases\" name=\"passing\""), std::string::npos) << xml;

  // Only skipped cases and passes: exit 0.
  fs::remove_all(corpus / "wrong_golden");
  fs::remove_all(corpus / "bad_hash");
  fs::remove_all(corpus / "short_budget");
  EXPECT_EQ(run_pto("cases --quiet " + quoted(corpus.string()), d).exit_code, 0);
}

TEST(CliCases, ShardsPartitionTheSortedCases) {
  const fs::path d = scratch_dir("cases-shards");
  std::vector<std::string> seen;
  for (int i = 1; i <= 3; ++i) {
    const fs::path out = d / ("shard" + std::to_string(i) + ".json");
    const CliResult r = run_pto("cases --quiet --shard " + std::to_string(i) + "/3 " + quoted(kExamples.string()) + " --json " +
                                    quoted(out.string()),
                                d);
    ASSERT_EQ(r.exit_code, 0) << r.err;
    for (const auto& c : read_json(out)) seen.push_back(c.at("case_id"));
  }
  std::sort(seen.begin(), seen.end());
  EXPECT_EQ(seen, (std::vector<std::string>{"block_64_stop_pc", "host_exit_group", "scalar_stop_pc", "tile_tadd_stop_pc"}));
  for (const char* bad : {"0/3", "4/3", "1/0", "x/2", "2"}) {
    EXPECT_EQ(run_pto(std::string("cases --shard ") + bad + " " + quoted(kExamples.string()), d).exit_code, 2) << bad;
  }
  EXPECT_EQ(run_pto("cases /nonexistent/corpus", d).exit_code, 2);
}

}  // namespace
}  // namespace pto::test
