#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <exception>

#include "cli/command.hpp"
#include "isa/catalog.hpp"

namespace pto::cli {
std::vector<Command>& registry() {
  static std::vector<Command> r;
  return r;
}

// Output on stdout that could not be written (`pto dis > /dev/full`) fails
// the command: the flush reports what the buffered writes could not.
int check_stdout(const std::string& command, int status) {
  errno = 0;
  if (std::fflush(stdout) == 0 && !std::ferror(stdout)) return status;
  fmt::print(stderr, "pto {}: error: cannot write standard output: {}\n", command,
             errno != 0 ? std::strerror(errno) : "write error");
  return status == kExitOk ? kExitFailure : status;
}
}  // namespace pto::cli

int main(int argc, char** argv) {
  using namespace pto;
  CLI::App app{"pto: PTO ISA 0.58.3 assembler, disassembler, decoder and simulator"};
  app.require_subcommand(0, 1);
  bool version = false;
  app.add_flag("--version", version, "Print the release identity and exit");

  // A subcommand's options are set up only when the command line names it
  // (issue 18: start-up); the top-level help lists names and descriptions.
  std::vector<std::pair<CLI::App*, cli::Runner>> commands(cli::registry().size());
  for (std::size_t i = 0; i < commands.size(); ++i) {
    const cli::Command& c = cli::registry()[i];
    auto& entry = commands[i];
    entry.first = app.add_subcommand(c.name, c.description);
    entry.first->preparse_callback([&c, &entry](std::size_t) { entry.second = c.setup(entry.first); });
  }

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? cli::kExitOk : cli::kExitUsage;
  }
  if (version) {
    fmt::print("pto {}\nrelease: {}\nencoding_abi: {}\nencoding_projection_sha256: {}\n", PTO_VERSION,
               isa::kRelease, isa::kEncodingAbi, isa::kEncodingProjectionSha256);
    return cli::kExitOk;
  }
  for (auto& [sub, run] : commands) {
    if (sub->parsed()) {
      int status = cli::kExitFailure;
      try {
        status = run();
      } catch (const std::exception& e) {
        fmt::print(stderr, "pto {}: error: {}\n", sub->get_name(), e.what());
        return cli::kExitFailure;
      }
      return cli::check_stdout(sub->get_name(), status);
    }
  }
  fmt::print("{}", app.help());
  return cli::kExitUsage;
}
