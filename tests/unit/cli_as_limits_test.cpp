// `pto as` / `pto dis` / `pto decode` command lines: repeatable options take
// one value each, unsigned options reject negative values, input is bounded,
// every output write is checked, and each assembler limit fails with its
// error and writes no file.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <string>

#include "test_paths.hpp"
#include "elf/elf.hpp"

namespace pto {
namespace {

namespace fs = std::filesystem;

// Per process: the gtest shards run in parallel.
fs::path temp(const std::string& name) {
  return fs::temp_directory_path() / fmt::format("pto-cli-as-test-{}-{}", ::getpid(), name);
}

void write(const fs::path& p, const std::string& text) { std::ofstream(p, std::ios::binary) << text; }

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

struct Outcome {
  int status = -1;  // exit status
  std::string err;  // stderr
};

// Runs `pto ARGS` with stdout discarded.
Outcome pto(const std::string& args) {
  const fs::path err = temp("stderr.txt");
  const int raw = std::system(fmt::format("{} {} >/dev/null 2>{}", PTO_CLI_PATH, args, err.string()).c_str());
  return {WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, read_text(err)};
}

// Assembles `source` with `options`; expects exit status 1, stderr starting
// with `first_line` and no output file.
void expect_as_failure(const std::string& source, const std::string& options, const std::string& first_line) {
  const fs::path s = temp("in.s"), out = temp("out.bin");
  write(s, source);
  fs::remove(out);
  const Outcome o = pto(fmt::format("as {} {} -o {}", options, s.string(), out.string()));
  EXPECT_EQ(o.status, 1) << o.err;
  EXPECT_EQ(o.err.substr(0, o.err.find('\n') + 1), fmt::format(fmt::runtime(first_line), s.string()));
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliAs, RepeatableSectionStartLeavesThePositionalAlone) {
  const fs::path s = temp("prog.s"), out = temp("prog.elf");
  write(s, "BSTOP\n.data\n.byte 1\n");
  const Outcome o = pto(fmt::format("as --section-start .text=0x100 --section-start .data=0x200 {} -o {}", s.string(),
                                    out.string()));
  ASSERT_EQ(o.status, 0) << o.err;
  const std::string bytes = read_text(out);
  auto r = elf::read_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  ASSERT_TRUE(std::holds_alternative<elf::Image>(r));
  std::map<std::string, std::uint64_t> addr;
  for (const auto& sec : std::get<elf::Image>(r).sections) addr[sec.name] = sec.addr;
  EXPECT_EQ(addr[".text"], 0x100u);
  EXPECT_EQ(addr[".data"], 0x200u);
}

TEST(CliAs, NegativeAndMalformedNumbersAreRejected) {
  const fs::path s = temp("neg.s"), out = temp("neg.elf");
  write(s, "BSTOP\n");
  fs::remove(out);
  Outcome o = pto(fmt::format("as --section-start .text=-1 {} -o {}", s.string(), out.string()));
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err,
            "pto as: error: --section-start expects NAME=ADDR (ADDR decimal, 0x hex or 0b binary), got '.text=-1'\n");
  o = pto(fmt::format("as --max-output -1 {} -o {}", s.string(), out.string()));
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err,
            "pto as: error: --max-output expects a byte count such as 4096, 0x1000, 1e9 or 64MiB, got '-1'\n");
  EXPECT_FALSE(fs::exists(out));
  o = pto("dis --raw --base -1 " + s.string());
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "pto dis: error: --base expects an address (decimal, 0x hex or 0b binary), got '-1'\n");
  EXPECT_EQ(pto("decode --length -1 0x0001").status, 2);
}

TEST(CliAs, MaxOutputAcceptsTheHelpNotation) {
  // --help writes 1GiB, 1e6 and 64MiB; 1e3 is 1000 bytes.
  expect_as_failure(".zero 1001\n", "--max-output 1e3",
                    "{}:1:7: error: output would exceed the limit of 1000 bytes (--max-output)\n");
  const fs::path s = temp("fits.s"), out = temp("fits.elf");
  write(s, ".zero 1000\n");
  EXPECT_EQ(pto(fmt::format("as --max-output 1e3 {} -o {}", s.string(), out.string())).status, 0);
  EXPECT_EQ(pto(fmt::format("as --max-output 1GiB {} -o {}", s.string(), out.string())).status, 0);
  EXPECT_EQ(pto(fmt::format("as --max-output 0x3e8 {} -o {}", s.string(), out.string())).status, 0);
}

TEST(CliAs, EveryLimitFailsWithItsErrorAndNoFile) {
  expect_as_failure(".byte " + std::string(30000, '(') + "1" + std::string(30000, ')') + "\n", "",
                    "{}:1:263: error: expression is nested too deeply (more than 256 levels of parentheses and "
                    "unary operators)\n");
  expect_as_failure(".byte " + std::string(100000, '-') + "1\n", "",
                    "{}:1:263: error: expression is nested too deeply (more than 256 levels of parentheses and "
                    "unary operators)\n");
  expect_as_failure(".org 0xfffffffffffffff0\n.zero 32\n", "",
                    "{}:2:7: error: section .text would extend past the end of the 64-bit address space (it starts "
                    "at 0xfffffffffffffff0, placed by .org 0xfffffffffffffff0 (line 1))\n");
  expect_as_failure("BSTOP\nBSTOP\n", "--section-start .text=0xfffffffffffffffa",
                    "{}:2:1: error: section .text would extend past the end of the 64-bit address space (it starts "
                    "at 0xfffffffffffffffa, placed by --section-start .text=0xfffffffffffffffa)\n");
  expect_as_failure("BSTOP\n.section .hi, \"a\", @progbits, 0xffff000000000000\n.byte 1\n", "-O binary",
                    "{}: error: -O binary: the image spans [0x0, 0xffff000000000001), 18446462598732840961 bytes, "
                    "more than the limit of 1073741824 bytes (--max-output)\n");
  expect_as_failure(".zero 0xfffffff\n.zero 0xfffffff\n", "--max-output 64MiB",
                    "{}:1:7: error: output would exceed the limit of 67108864 bytes (--max-output)\n");
  expect_as_failure("BSTOP\n.org 0x7fffffffffffffff\n", "-O binary",
                    "{}:2:6: error: output would exceed the limit of 1073741824 bytes (--max-output)\n");
  expect_as_failure(".bss\n.byte 1\n", "",
                    "{}:2:7: error: non-zero data in section .bss, which holds no data (only zero fill is allowed: "
                    ".zero, .skip, .space)\n");
  expect_as_failure(".macro r\nr\n.endm\nr\n", "",
                    "{}:4:1: error: macro expansion is nested too deeply (more than 100 levels); is macro 'r' "
                    "recursive?\n");
}

TEST(CliAs, InputIsBounded) {
  const fs::path out = temp("never.elf");
  fs::remove(out);
  Outcome o = pto("as /dev/zero -o " + out.string());
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, "pto as: error: cannot read '/dev/zero': input is larger than the limit of 268435456 bytes\n");
  const fs::path big = temp("big.s");
  { std::ofstream(big, std::ios::binary | std::ios::trunc); }
  fs::resize_file(big, (std::uintmax_t{256} << 20) + 1);  // sparse
  o = pto(fmt::format("as {} -o {}", big.string(), out.string()));
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, fmt::format("pto as: error: cannot read '{}': the file has 268435457 bytes, more than the limit "
                               "of 268435456 bytes\n",
                               big.string()));
  o = pto("dis --raw " + big.string());  // the same reader
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, fmt::format("pto dis: error: cannot read '{}': the file has 268435457 bytes, more than the limit "
                               "of 268435456 bytes\n",
                               big.string()));
  fs::remove(big);
  const fs::path dir = fs::temp_directory_path();
  o = pto(fmt::format("as {} -o {}", dir.string(), out.string()));
  EXPECT_EQ(o.status, 2);
  EXPECT_EQ(o.err, fmt::format("pto as: error: cannot read '{}': it is a directory\n", dir.string()));
  EXPECT_FALSE(fs::exists(out));
}

TEST(CliAs, WriteFailuresAreReported) {
  const fs::path s = temp("w.s");
  write(s, "BSTOP\n");
  Outcome o = pto(fmt::format("as {} -o /dev/full", s.string()));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, "pto as: error: cannot write '/dev/full': No space left on device\n");
  EXPECT_TRUE(fs::is_character_file("/dev/full"));  // written in place, never replaced
  o = pto(fmt::format("as -O binary {} -o /dev/full", s.string()));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(pto(fmt::format("as {} -o /dev/null", s.string())).status, 0);
  EXPECT_TRUE(fs::is_character_file("/dev/null"));
  // Standard output that cannot be written fails the command too.
  const fs::path err = temp("stdout-err.txt");
  for (const std::string cmd : {"dis --hex 0x0001", "decode 0x0001"}) {
    const int raw = std::system(fmt::format("{} {} >/dev/full 2>{}", PTO_CLI_PATH, cmd, err.string()).c_str());
    EXPECT_EQ(WIFEXITED(raw) ? WEXITSTATUS(raw) : -1, 1) << cmd;
    const std::string text = read_text(err);
    EXPECT_NE(text.find("No space left on device"), std::string::npos) << cmd << ": " << text;
  }
  const fs::path missing = temp("no-such-dir") / "out.elf";
  o = pto(fmt::format("as {} -o {}", s.string(), missing.string()));
  EXPECT_EQ(o.status, 1);
  EXPECT_EQ(o.err, fmt::format("pto as: error: cannot write '{}': No such file or directory\n", missing.string()));
}

}  // namespace
}  // namespace pto
