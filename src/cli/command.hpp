// Subcommand registry: each cli/cmd_*.cpp registers itself with a static
// Registrar, so adding a subcommand touches only its own file.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <utility>
#include <vector>

namespace pto::cli {

// Exit codes shared by all subcommands (documented in README.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // e.g. reserved/unknown word, assembly errors
inline constexpr int kExitUsage = 2;

using Runner = std::function<int()>;
// Adds a subcommand to `app` and returns it with the function that runs it.
using Setup = std::function<std::pair<CLI::App*, Runner>(CLI::App& app)>;

std::vector<Setup>& registry();

struct Registrar {
  explicit Registrar(Setup s) { registry().push_back(std::move(s)); }
};

}  // namespace pto::cli
