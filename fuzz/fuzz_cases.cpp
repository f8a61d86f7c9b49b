// libFuzzer target: any case.yaml text (`pto cases`, src/runner/cases.cpp)
// ends in a passed, failed or skipped outcome with a reason, never a crash.
// The example cases (examples/cases, copied once into a scratch directory)
// give the file the sources, linker scripts and goldens it names; an input
// runs in the example directory its case_id names (the reader requires the
// directory name), otherwise in the first one.
#include <unistd.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "runner/cases.hpp"

namespace {

namespace fs = std::filesystem;

// Longer runs test the run loop, not the case reader (fuzz_run does that).
constexpr std::uint64_t kMaxSteps = 4096;

struct Scratch {
  fs::path root = fs::temp_directory_path() / ("pto-fuzz-cases-" + std::to_string(::getpid()));
  std::vector<fs::path> cases;
  Scratch() {
    fs::create_directories(root / "work");
    for (const auto& entry : fs::directory_iterator(PTO_EXAMPLE_CASES_DIR)) {
      fs::copy(entry.path(), root / entry.path().filename(), fs::copy_options::recursive);
      cases.push_back(root / entry.path().filename());
    }
    std::sort(cases.begin(), cases.end());
  }
  ~Scratch() {
    std::error_code ec;
    fs::remove_all(root, ec);
  }
};

const Scratch& scratch() {
  static const Scratch s;
  return s;
}

// The example directory the document's case_id names, or the first; nothing
// for a document whose step budget is too long to fuzz.
const fs::path* case_directory(const nlohmann::json& doc) {
  const auto& s = scratch();
  if (!doc.is_object()) return &s.cases.front();
  if (const auto e = doc.find("execution"); e != doc.end() && e->is_object()) {
    if (const auto steps = e->find("max_steps"); steps != e->end() && steps->is_number_unsigned() &&
                                                  steps->get<std::uint64_t>() > kMaxSteps)
      return nullptr;
  }
  for (const fs::path& p : s.cases)
    if (const auto id = doc.find("case_id"); id != doc.end() && *id == p.filename().string()) return &p;
  return &s.cases.front();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  const fs::path* directory = case_directory(nlohmann::json::parse(text, nullptr, false));
  if (directory == nullptr) return 0;
  std::ofstream(*directory / "case.yaml", std::ios::binary | std::ios::trunc) << text;
  pto::runner::CaseOptions options;
  options.work_directory = scratch().root / "work";
  const pto::runner::CaseOutcome out = pto::runner::run_case(*directory, options);
  if (out.status != pto::runner::CaseStatus::Passed && out.reason.empty()) std::abort();
  return 0;
}
