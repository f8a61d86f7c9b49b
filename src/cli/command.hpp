// Subcommand registry: each cli/cmd_*.cpp registers itself with a static
// Registrar, so adding a subcommand touches only its own file.
#pragma once

#include <CLI/CLI.hpp>

#include <functional>
#include <vector>

namespace pto::cli {

// Exit codes shared by all subcommands (documented in README.md).
inline constexpr int kExitOk = 0;
inline constexpr int kExitFailure = 1;  // e.g. reserved/unknown word, assembly errors
inline constexpr int kExitUsage = 2;

using Runner = std::function<int()>;
// Adds a subcommand's options to `sub` and returns the function that runs it.
using Setup = std::function<Runner(CLI::App* sub)>;

struct Command {
  const char* name;
  const char* description;
  Setup setup;
};

std::vector<Command>& registry();

struct Registrar {
  Registrar(const char* name, const char* description, Setup s) {
    registry().push_back({name, description, std::move(s)});
  }
};

}  // namespace pto::cli
