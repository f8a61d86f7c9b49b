// The reference corpus's case format (`pto-avs-case-v1`, PTO-ISA/asl-model
// avs/cases): a directory with case.yaml (JSON-form YAML), the source, a
// linker script and a golden result.  A case is assembled with its linker
// script, run as a hosted run with its own execution and model parameters,
// and its result bytes compared with the golden (`pto cases`).
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "arch/machine.hpp"

namespace pto::runner {

enum class CaseStatus { Passed, Failed, Skipped };
std::string_view case_status_name(CaseStatus s);  // "passed" | "failed" | "skipped"

struct CaseOutcome {
  std::string case_id;  // the directory name when case.yaml cannot be read
  std::filesystem::path directory;
  CaseStatus status = CaseStatus::Failed;
  std::string reason;  // why it failed or was skipped; the stop for a pass
  std::uint64_t steps = 0;
  std::optional<std::uint64_t> final_tpc;
  double seconds = 0;
};

struct CaseOptions {
  // Numeric profile of the runs (the reference runner computes with the
  // ASL's reference profile).
  arch::NumericProfileKind numeric_profile = arch::NumericProfileKind::Reference;
  // Where each case's ELF, manifest and result go (a fresh temporary
  // directory per case when empty; removed afterwards).
  std::filesystem::path work_directory;
};

// The case directories under each of `roots` (a root that holds case.yaml
// is itself a case), sorted by path.  Throws std::runtime_error for a root
// that does not exist.
std::vector<std::filesystem::path> discover_cases(const std::vector<std::filesystem::path>& roots);

// Reads, builds, runs and compares one case; never throws.
CaseOutcome run_case(const std::filesystem::path& directory, const CaseOptions& options);

// Reports: JSON (one object per case) and JUnit XML.
nlohmann::json cases_json(const std::vector<CaseOutcome>& outcomes);
std::string cases_junit(const std::vector<CaseOutcome>& outcomes);

}  // namespace pto::runner
