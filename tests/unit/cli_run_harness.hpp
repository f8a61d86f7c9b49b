// Runs the built `pto` CLI (PTO_CLI_PATH) in a shell and captures its exit
// code, stdout, stderr and output files, for the `pto run` end-to-end and
// bad-input tests.
#pragma once

#include <sys/wait.h>
#include <unistd.h>

#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "test_paths.hpp"

namespace pto::test {

namespace fs = std::filesystem;

// Exit codes of `pto run` (src/cli/cmd_run.cpp, docs/semantics-notes.md).
inline constexpr int kRunExitStopped = 0;
inline constexpr int kRunExitBadInput = 1;
inline constexpr int kRunExitUsage = 2;
inline constexpr int kRunExitMaxSteps = 3;
inline constexpr int kRunExitFault = 4;
inline constexpr int kRunExitNotImplemented = 5;
inline constexpr int kRunExitHostLimit = 6;

struct CliResult {
  int exit_code = -1;  // -1: killed by a signal (a crash)
  std::string out, err;
};

// A per-test, per-process scratch directory under the system temporary
// directory (suites of several checkouts may run at once).
inline fs::path scratch_dir(const std::string& test_name) {
  const fs::path d = fs::temp_directory_path() / ("pto-run-test-" + std::to_string(::getpid()) + "-" + test_name);
  fs::create_directories(d);
  return d;
}

inline std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

inline std::vector<std::uint8_t> read_bytes(const fs::path& p) {
  const std::string s = read_text(p);
  return {s.begin(), s.end()};
}

inline void write_bytes(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream(p, std::ios::binary).write(reinterpret_cast<const char*>(bytes.data()),
                                           static_cast<std::streamsize>(bytes.size()));
}

inline std::string quoted(const std::string& s) { return "'" + s + "'"; }

// `pto ARGS` with stdout/stderr captured in `dir`.
inline CliResult run_pto(const std::string& args, const fs::path& dir) {
  const fs::path out = dir / "stdout.txt", err = dir / "stderr.txt";
  const std::string cmd = quoted(PTO_CLI_PATH) + " " + args + " > " + quoted(out.string()) + " 2> " +
                          quoted(err.string());
  const int status = std::system(cmd.c_str());
  CliResult r;
  // The shell reports a signal-killed child as 128 + signal.
  if (status != -1 && WIFEXITED(status) && WEXITSTATUS(status) < 128) r.exit_code = WEXITSTATUS(status);
  r.out = read_text(out);
  r.err = read_text(err);
  return r;
}

inline nlohmann::json read_json(const fs::path& p) { return nlohmann::json::parse(read_text(p)); }

}  // namespace pto::test
