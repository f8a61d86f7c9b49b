// `pto run` on bad input: truncated or corrupt ELF images, overlapping
// segments, an entry outside the image, segments outside the address space,
// wild addresses, runaway programs, bad options.  Each ends with a precise
// message and its documented exit code (src/cli/cmd_run.cpp), never a crash.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "cli_run_harness.hpp"
#include "elf/elf.hpp"

namespace pto::test {
namespace {

// A one-block program: BSTART.STD FALL; BSTOP; then `done`.
elf::Image tiny_image() {
  const as::Result r = as::assemble(".globl _start\n_start: BSTART.STD FALL\nBSTOP\n.globl done\ndone: BSTOP\n", "tiny.s");
  if (!r.ok()) throw std::runtime_error(r.diagnostics.front().format());
  return *r.image;
}

struct Case {
  std::string name;
  CliResult cli;
};

// Writes `bytes` to a file and runs `pto run FILE ARGS`.
CliResult run_bytes(const std::string& test, const std::vector<std::uint8_t>& bytes, const std::string& args = "",
                    const std::string& file_name = "program.elf") {
  const fs::path d = scratch_dir(test);
  const fs::path p = d / file_name;
  write_bytes(p, bytes);
  return run_pto("run " + quoted(p.string()) + " " + args, d);
}

CliResult run_source(const std::string& test, const std::string& source, const std::string& args = "") {
  return run_bytes(test, std::vector<std::uint8_t>(source.begin(), source.end()), args, "program.s");
}

void expect_error(const CliResult& r, int code, const std::string& fragment) {
  EXPECT_EQ(r.exit_code, code) << r.err;
  EXPECT_NE(r.err.find(fragment), std::string::npos) << "stderr: " << r.err;
}

TEST(CliRunBadInput, ValidTinyImageRuns) {
  const CliResult r = run_bytes("tiny", elf::write_image(tiny_image()), "--stop-symbol done");
  EXPECT_EQ(r.exit_code, kRunExitStopped) << r.err;
}

TEST(CliRunBadInput, MissingFile) {
  const fs::path d = scratch_dir("missing");
  expect_error(run_pto("run " + quoted((d / "no-such-file.elf").string()), d), kRunExitBadInput, "cannot open");
}

TEST(CliRunBadInput, TruncatedElfAtEveryLength) {
  const std::vector<std::uint8_t> full = elf::write_image(tiny_image());
  // Cut inside the ELF header, the program headers and the segment data; a
  // 4-byte prefix is only the magic.
  for (std::size_t cut : {std::size_t{4}, std::size_t{20}, std::size_t{63}, std::size_t{64}, std::size_t{100},
                          full.size() / 2, full.size() - 1}) {
    SCOPED_TRACE(cut);
    std::vector<std::uint8_t> bytes(full.begin(), full.begin() + static_cast<std::ptrdiff_t>(cut));
    const CliResult r = run_bytes("truncated", bytes);
    EXPECT_EQ(r.exit_code, kRunExitBadInput) << r.err;
    EXPECT_NE(r.err.find("invalid ELF image"), std::string::npos) << r.err;
  }
}

TEST(CliRunBadInput, CorruptElfHeaderFields) {
  const std::vector<std::uint8_t> full = elf::write_image(tiny_image());
  struct Patch {
    std::size_t offset;
    std::uint8_t value;
  };
  // e_ident[EI_CLASS] = 1 (ELF32), e_ident[EI_DATA] = 2 (big-endian),
  // e_phoff (offset 32) pointing far beyond the file, e_phentsize (54) wrong.
  for (const Patch p : {Patch{4, 1}, Patch{5, 2}, Patch{39, 0x40}, Patch{54, 0x10}}) {
    SCOPED_TRACE(p.offset);
    std::vector<std::uint8_t> bytes = full;
    bytes[p.offset] = p.value;
    expect_error(run_bytes("corrupt", bytes), kRunExitBadInput, "invalid ELF image");
  }
}

TEST(CliRunBadInput, WrongMachineAndType) {
  elf::Image image = tiny_image();
  image.machine = 0x3E;  // x86-64
  expect_error(run_bytes("machine", elf::write_image(image)), kRunExitBadInput, "is not PTO");
  image = tiny_image();
  image.type = elf::ET_DYN;
  expect_error(run_bytes("type", elf::write_image(image)), kRunExitBadInput, "not an executable");
}

TEST(CliRunBadInput, IdentityNoteIsChecked) {
  elf::Image image = tiny_image();
  image.identity->release = "0.58.2";
  const auto bytes = elf::write_image(image);
  expect_error(run_bytes("identity", bytes), kRunExitBadInput, "release-mismatch");
  EXPECT_EQ(run_bytes("identity", bytes, "--no-identity-check --stop-symbol done").exit_code, kRunExitStopped);
  image.identity.reset();
  expect_error(run_bytes("identity", elf::write_image(image)), kRunExitBadInput, "missing-identity");
}

TEST(CliRunBadInput, OverlappingSegments) {
  elf::Image image = tiny_image();
  elf::Segment extra = image.segments.front();
  extra.vaddr += 4;  // shares bytes with the text segment
  extra.flags = elf::PF_R;
  image.segments.push_back(extra);
  expect_error(run_bytes("overlap", elf::write_image(image)), kRunExitBadInput, "overlap");
}

TEST(CliRunBadInput, EntryOutsideTheImage) {
  elf::Image image = tiny_image();
  image.entry = 0x5000;
  expect_error(run_bytes("entry", elf::write_image(image)), kRunExitBadInput,
               "entry point 0x5000 lies outside every executable segment");
  // Inside a segment that is not executable is no better.
  image = tiny_image();
  image.segments.front().flags = elf::PF_R | elf::PF_W;
  expect_error(run_bytes("entry-nx", elf::write_image(image)), kRunExitBadInput, "outside every executable segment");
}

TEST(CliRunBadInput, SegmentOutsideTheAddressSpace) {
  elf::Image image = tiny_image();
  for (auto& s : image.segments) s.vaddr += 0x10000;
  image.entry += 0x10000;
  for (auto& s : image.sections) s.addr += 0x10000;
  for (auto& s : image.symbols) s.value += 0x10000;
  const auto bytes = elf::write_image(image);
  expect_error(run_bytes("space", bytes, "--memory-bytes 4096"), kRunExitBadInput,
               "lies outside the guest address space");
  expect_error(run_bytes("space-ref", bytes, "--profile reference"), kRunExitBadInput,
               "lies outside the guest address space");
  EXPECT_EQ(run_bytes("space-ok", bytes, "--stop-symbol done").exit_code, kRunExitStopped);
}

TEST(CliRunBadInput, HugeBssIsFreeAndLoads) {
  // A 2^40-byte zero-filled segment costs nothing: absent pages read zero.
  elf::Image image = tiny_image();
  image.segments.push_back({0x100000000, std::uint64_t{1} << 40, elf::PF_R | elf::PF_W, {}});
  const CliResult r = run_bytes("bss", elf::write_image(image), "--stop-symbol done --memory-cap 65536");
  EXPECT_EQ(r.exit_code, kRunExitStopped) << r.err;
}

TEST(CliRunBadInput, NotAProgram) {
  expect_error(run_bytes("text", {'h', 'e', 'l', 'l', 'o'}, "", "notes.txt"), kRunExitBadInput, "is not an ELF image");
  expect_error(run_bytes("empty-raw", {}, "--raw"), kRunExitBadInput, "flat binary is empty");
  expect_error(run_bytes("raw-far", {1, 0x10, 0, 0}, "--raw --base 0x10000 --memory-bytes 4096"), kRunExitBadInput,
               "outside the guest address space");
}

TEST(CliRunBadInput, AssemblyErrorsAreReportedWithTheirLine) {
  const CliResult r = run_source("asm-error", "_start: BSTART.STD FALL\n  addi zero, ->a0\n  frobnicate a0\n");
  EXPECT_EQ(r.exit_code, kRunExitBadInput);
  EXPECT_NE(r.err.find("cannot assemble"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("program.s:2:"), std::string::npos) << r.err;
  EXPECT_NE(r.err.find("program.s:3:"), std::string::npos) << r.err;
}

TEST(CliRunBadInput, BadOptionValues) {
  const auto bytes = elf::write_image(tiny_image());
  expect_error(run_bytes("opt", bytes, "--stop-pc twelve"), kRunExitUsage, "--stop-pc: 'twelve' is not an unsigned integer");
  expect_error(run_bytes("opt", bytes, "--stop-symbol nowhere"), kRunExitBadInput, "no symbol named 'nowhere'");
  expect_error(run_bytes("opt", bytes, "--result-size 8"), kRunExitUsage, "--result-size needs");
  expect_error(run_bytes("opt", bytes, "--stop-pc 4 --stop-symbol done"), kRunExitUsage, "exclusive");
  expect_error(run_bytes("opt", bytes, "--profile reference --memory-bytes 100"), kRunExitUsage, "--memory-bytes");
  expect_error(run_bytes("opt", bytes, "--profile reference --memory-bytes 16777217"), kRunExitUsage, "--memory-bytes");
  expect_error(run_bytes("opt", bytes, "--result-address 0xffffffffffffff00 --result-size 512"), kRunExitBadInput,
               "is outside guest memory");
  expect_error(run_bytes("opt", bytes, "--max-steps -1"), kRunExitUsage, "negative values are refused");
  EXPECT_EQ(run_bytes("opt", bytes, "--no-such-option").exit_code, kRunExitUsage);
}

TEST(CliRunBadInput, RunawayProgramStopsAtMaxSteps) {
  const CliResult r = run_source("runaway", "_start: BSTART.STD DIRECT, _start\nBSTOP\n", "--max-steps 1000");
  expect_error(r, kRunExitMaxSteps, "max-steps after 1000 steps");
}

TEST(CliRunBadInput, WildDataAddressFaults) {
  // lui 0xFFFFF -> a2 gives a sign-extended address far beyond 2^48.
  const CliResult r = run_source("wild-data", "_start: BSTART.STD FALL\n lui 0xFFFFF, ->a2\n ldi [a2, 0], ->a3\n BSTOP\n");
  expect_error(r, kRunExitFault, "Fault_DataPage");
}

TEST(CliRunBadInput, WildAndOddStartPcFault) {
  const auto bytes = elf::write_image(tiny_image());
  // The start PC must lie in an executable segment (the reference runner's rule).
  expect_error(run_bytes("wild-pc", bytes, "--start-pc 0x7000000000000000"), kRunExitBadInput,
               "start PC 0x7000000000000000 is outside an executable PT_LOAD");
  expect_error(run_bytes("odd-pc", bytes, "--start-pc 0x3"), kRunExitFault, "Fault_InstructionPC");
}

TEST(CliRunBadInput, HostMemoryCapIsACleanStop) {
  // Stores to 16 distinct pages with a 4-page host cap.
  const CliResult r = run_source("cap",
                                 "_start: BSTART.STD FALL\n"
                                 " addi zero, 16, ->a2\n"
                                 "loop: BSTART.STD COND, loop\n"
                                 " addi a0, 1, ->a0\n"
                                 " slli a0, 12, ->a1\n"
                                 " sdi a0, [a1, 0]\n"
                                 " setc.ne a0, a2\n"
                                 " BSTOP\n",
                                 "--memory-cap 16384");
  EXPECT_EQ(r.exit_code, kRunExitHostLimit) << r.err;
}

}  // namespace
}  // namespace pto::test
