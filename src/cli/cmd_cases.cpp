// `pto cases DIR...`: runs reference-corpus cases (pto-avs-case-v1) —
// assemble with the case's linker script, run with its parameters, compare
// with its golden — in parallel, shardable, with JSON and JUnit reports
// (runner/cases.hpp).  Exit 0 only when every case that ran passed.
#include <fmt/format.h>
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cli/command.hpp"
#include "cli/unsigned_option.hpp"
#include "runner/cases.hpp"
#include "runner/hosted_run.hpp"

namespace pto::cli {
namespace {

namespace fs = std::filesystem;

struct CasesOptions {
  std::vector<std::string> roots;
  std::string jobs = "0", shard, json_out, junit_out, work, numeric_profile = "reference";
  bool quiet = false;
};

struct UsageError {
  std::string message;
};

// "I/N" with 1 <= I <= N (LLVM lit's --run-shard I of --num-shards N).
std::pair<std::uint64_t, std::uint64_t> shard_of(const std::string& text) {
  const auto slash = text.find('/');
  const UnsignedParse i = parse_unsigned(text.substr(0, slash), "--shard I");
  const UnsignedParse n = parse_unsigned(slash == std::string::npos ? "" : text.substr(slash + 1), "--shard N");
  if (!i.value || !n.value || *i.value == 0 || *i.value > *n.value) {
    throw UsageError{fmt::format("--shard: '{}' is not I/N with 1 <= I <= N", text)};
  }
  return {*i.value, *n.value};
}

std::vector<fs::path> selected_cases(const CasesOptions& o) {
  std::vector<fs::path> roots(o.roots.begin(), o.roots.end());
  std::vector<fs::path> all;
  try {
    all = runner::discover_cases(roots);
  } catch (const std::runtime_error& e) {
    throw UsageError{e.what()};
  }
  if (o.shard.empty()) return all;
  const auto [index, count] = shard_of(o.shard);
  std::vector<fs::path> mine;
  for (std::size_t k = 0; k < all.size(); ++k) {
    if (k % count == index - 1) mine.push_back(all[k]);
  }
  return mine;
}

// Runs every case on `jobs` threads; outcomes keep the discovery order.
std::vector<runner::CaseOutcome> run_all(const std::vector<fs::path>& cases, unsigned jobs,
                                         const runner::CaseOptions& options, bool progress) {
  std::vector<runner::CaseOutcome> outcomes(cases.size());
  std::atomic<std::size_t> next{0}, done{0};
  std::mutex print;
  auto worker = [&] {
    for (std::size_t k = next++; k < cases.size(); k = next++) {
      outcomes[k] = runner::run_case(cases[k], options);
      const std::size_t finished = ++done;
      if (progress) {
        std::lock_guard lock(print);
        fmt::print(stderr, "\r\033[K[{}/{}] {} {}", finished, cases.size(), outcomes[k].case_id,
                   runner::case_status_name(outcomes[k].status));
      }
    }
  };
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < jobs && t < cases.size(); ++t) threads.emplace_back(worker);
  worker();
  for (std::thread& t : threads) t.join();
  if (progress && !cases.empty()) fmt::print(stderr, "\r\033[K");
  return outcomes;
}

void print_summary(const std::vector<runner::CaseOutcome>& outcomes) {
  std::size_t width = 4;
  for (const auto& o : outcomes) width = std::max(width, o.case_id.size());
  std::size_t passed = 0, failed = 0, skipped = 0;
  fmt::print("{:<{}}  {:<7}  {:>8}  {}\n", "case", width, "status", "seconds", "detail");
  for (const auto& o : outcomes) {
    fmt::print("{:<{}}  {:<7}  {:>8.3f}  {}\n", o.case_id, width, runner::case_status_name(o.status), o.seconds, o.reason);
    (o.status == runner::CaseStatus::Passed ? passed : o.status == runner::CaseStatus::Failed ? failed : skipped)++;
  }
  fmt::print("{} passed, {} failed, {} skipped\n", passed, failed, skipped);
}

void write_report(const std::string& path, const std::string& text) {
  runner::write_output_file(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

int run(const CasesOptions& o) {
  try {
    const UnsignedParse jobs = parse_unsigned(o.jobs, "-j");
    if (!jobs.value) throw UsageError{jobs.error};
    const auto cases = selected_cases(o);
    runner::CaseOptions options;
    options.numeric_profile =
        o.numeric_profile == "ieee" ? arch::NumericProfileKind::Ieee : arch::NumericProfileKind::Reference;
    options.work_directory = o.work;
    const unsigned threads = *jobs.value != 0 ? static_cast<unsigned>(std::min<std::uint64_t>(*jobs.value, 256))
                                              : std::max(1u, std::thread::hardware_concurrency());
    const auto outcomes = run_all(cases, threads, options, !o.quiet && isatty(fileno(stderr)));
    if (!o.quiet) print_summary(outcomes);
    if (!o.json_out.empty()) write_report(o.json_out, runner::cases_json(outcomes).dump(2) + "\n");
    if (!o.junit_out.empty()) write_report(o.junit_out, runner::cases_junit(outcomes));
    const bool all_passed = std::none_of(outcomes.begin(), outcomes.end(),
                                         [](const auto& c) { return c.status == runner::CaseStatus::Failed; });
    return all_passed ? kExitOk : kExitFailure;
  } catch (const UsageError& e) {
    fmt::print(stderr, "pto cases: error: {}\n", e.message);
    return kExitUsage;
  } catch (const runner::HostedRunError& e) {
    fmt::print(stderr, "pto cases: error: {}\n", e.what());
    return kExitFailure;
  }
}

const Registrar reg{"cases", "Run reference-corpus cases (pto-avs-case-v1 directories)", [](CLI::App* sub) {
  auto o = std::make_shared<CasesOptions>();
  sub->add_option("dirs", o->roots, "Case directories or directories holding them")->required();
  sub->add_option("-j,--jobs", o->jobs, "Cases run in parallel (default: the number of cores)")->expected(1)->allow_extra_args(false);
  sub->add_option("--shard", o->shard, "Run only shard I of N (I/N, 1-based) of the sorted cases")->expected(1)->allow_extra_args(false);
  sub->add_option("--json", o->json_out, "Write one JSON object per case to FILE")->expected(1)->allow_extra_args(false);
  sub->add_option("--junit", o->junit_out, "Write JUnit XML to FILE")->expected(1)->allow_extra_args(false);
  sub->add_option("--work-dir", o->work, "Keep each case's ELF, manifest and result under DIR/<case_id>")
      ->expected(1)
      ->allow_extra_args(false);
  sub->add_option("--numeric-profile", o->numeric_profile, "reference (default, as the reference runner) or ieee")
      ->expected(1)
      ->allow_extra_args(false)
      ->check(CLI::IsMember({"reference", "ieee"}));
  sub->add_flag("--quiet", o->quiet, "No progress line and no summary table");
  return Runner{[o] { return run(*o); }};
}};

}  // namespace
}  // namespace pto::cli
