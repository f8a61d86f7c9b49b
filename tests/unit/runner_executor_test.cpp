// The run loop (src/runner/executor.hpp): stop conditions counted exactly,
// the fast and the observed loop agreeing with a host reference of the same
// kernel, and the decode cache following stores into code that already ran.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "arch/machine.hpp"
#include "isa/decoder.hpp"
#include "runner/executor.hpp"

namespace {

using pto::arch::Word;
using pto::runner::Executor;
using pto::runner::RunLimits;
using pto::runner::StopReason;

// Encodes the single form of `mnemonic` from named field values.
Word enc(std::string_view mnemonic, std::initializer_list<std::pair<std::string_view, std::int64_t>> named) {
  const auto m = pto::isa::mnemonic_from_name(mnemonic);
  EXPECT_TRUE(m.has_value()) << mnemonic;
  const auto& f = pto::isa::form(pto::isa::forms_of_mnemonic(*m).front());
  std::vector<std::int64_t> values(pto::isa::fields_of(f).size(), 0);
  for (const auto& [name, v] : named) values.at(static_cast<std::size_t>(pto::isa::field_index(f, name))) = v;
  return std::get<std::uint64_t>(pto::isa::encode(f, values));
}

constexpr Word kCode = 0x10000, kData = 0x20000;
enum : unsigned { a0 = 2, a1 = 3, a2 = 4, a3 = 5, a4 = 6, a5 = 7, a6 = 8 };
constexpr Word kDataWords = 512;
constexpr Word kDataStep = 0x9E3779B97F4A7C15ull;
constexpr unsigned kKernelLength = 8;  // instructions per loop iteration

void store_words(pto::arch::Machine& m, Word pc, const std::vector<Word>& words) {
  for (Word w : words) {
    m.memory.write(pc, 4, w);
    pc += 4;
  }
}

// loop: BSTART.STD COND loop (word 0x00003001: offset 0, the block commits
//       back onto itself while the condition holds)
//       addi a0, 1 -> a0 ; andi a0, 511 -> a5 ; add a3, a5<<3 -> a6
//       ldi [a6, 0] -> a2 ; add a4, a2 -> a4 ; setc.ne a0, a1 ; BSTOP
// exit: kCode + 32
Word load_checksum_kernel(pto::arch::Machine& m, Word iterations) {
  store_words(m, kCode,
              {0x00003001, enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
               enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 511}}),
               enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 3}}),
               enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}}),
               enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a2}, {"SrcRType", 3}, {"shamt", 0}}),
               enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}), enc("BSTOP", {})});
  for (Word i = 0; i < kDataWords; ++i) m.memory.write(kData + 8 * i, 8, i * kDataStep);
  m.state.pc = kCode;
  m.state.write_gpr(a1, iterations);
  m.state.write_gpr(a3, kData);
  return kCode + 4 * kKernelLength;
}

// The kernel's sum computed on the host: iteration i (1-based) adds data[i mod 512].
Word reference_checksum(Word iterations) {
  Word sum = 0;
  for (Word i = 1; i <= iterations; ++i) sum += (i % kDataWords) * kDataStep;
  return sum;
}

struct CountingObserver : pto::runner::Observer {
  std::uint64_t attempts = 0;
  void on_retire(const pto::arch::Machine&, const pto::runner::Retired&) override { ++attempts; }
};

TEST(RunnerExecutor, FastLoopMatchesTheHostReference) {
  pto::arch::Machine m;
  RunLimits limits;
  limits.stop_pc = load_checksum_kernel(m, 1000);
  Executor ex(m);
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 1000u * kKernelLength);
  EXPECT_EQ(r.pc, kCode + 4 * kKernelLength);
  EXPECT_EQ(m.state.sysregs.cycle, 1000u * kKernelLength);  // one unit per attempt
  EXPECT_EQ(m.state.read_gpr(a0), 1000u);
  EXPECT_EQ(m.state.read_gpr(a4), reference_checksum(1000));
  EXPECT_FALSE(m.state.block.bundle_active);
}

TEST(RunnerExecutor, ObservedLoopReportsEveryAttemptAndAgrees) {
  pto::arch::Machine m;
  RunLimits limits;
  limits.stop_pc = load_checksum_kernel(m, 600);  // wraps past the 512 data words
  Executor ex(m);
  CountingObserver observer;
  const auto r = ex.run(limits, &observer);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 600u * kKernelLength);
  EXPECT_EQ(observer.attempts, r.steps);
  EXPECT_EQ(m.state.read_gpr(a4), reference_checksum(600));
}

TEST(RunnerExecutor, StopAfterHitsCountsEveryArrivalIncludingTheFirst) {
  pto::arch::Machine m;
  load_checksum_kernel(m, 100);
  RunLimits limits;
  limits.stop_pc = kCode;  // the loop head: arrival 1 is the start, 2 and 3 follow iterations 1 and 2
  limits.stop_after_hits = 3;
  Executor ex(m);
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 2u * kKernelLength);
  EXPECT_EQ(r.pc, kCode);
  EXPECT_EQ(m.state.read_gpr(a0), 2u);
  EXPECT_EQ(m.state.read_gpr(a4), reference_checksum(2));
}

TEST(RunnerExecutor, MaxStepsStopsAfterExactlyThatManyAttempts) {
  pto::arch::Machine m;
  load_checksum_kernel(m, 100);
  RunLimits limits;
  limits.max_steps = 13;  // one iteration, then BSTART, ADDI, ANDI, ADD, LDI
  Executor ex(m);
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::MaxSteps);
  EXPECT_EQ(r.steps, 13u);
  EXPECT_EQ(r.pc, kCode + 4 * 5);
  EXPECT_EQ(m.state.sysregs.cycle, 13u);
  EXPECT_EQ(m.state.read_gpr(a0), 2u);
  EXPECT_TRUE(m.state.block.bundle_active);
}

TEST(RunnerExecutor, ReturnPcStopsBeforeExecutingIt) {
  pto::arch::Machine m;
  load_checksum_kernel(m, 100);
  RunLimits limits;
  limits.return_pc = kCode + 4 * 3;  // after BSTART, ADDI, ANDI
  Executor ex(m);
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::ReturnPc);
  EXPECT_EQ(r.steps, 3u);
  EXPECT_EQ(r.pc, kCode + 12);
  EXPECT_EQ(m.state.read_gpr(a5), 1u);
  EXPECT_EQ(m.state.read_gpr(a6), 0u);
}

// SWI a1 -> [a3, 0] ; ADDI a0, 1 -> a0 ; (stop).  The first run caches the
// ADDI; the second stores another ADDI over it, which must execute.
TEST(RunnerExecutor, StoreIntoCachedCodeIsSeenByTheNextFetch) {
  pto::arch::Machine m;
  store_words(m, kCode, {enc("SWI", {{"SrcL", a1}, {"SrcR", a3}, {"simm12", 0}}),
                         enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}})});
  RunLimits limits;
  limits.stop_pc = kCode + 8;
  Executor ex(m);

  m.state.pc = kCode;
  m.state.write_gpr(a3, kData);  // a harmless store first
  auto r = ex.run(limits);
  ASSERT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(m.state.read_gpr(a0), 1u);
  const auto misses = ex.decode_misses();

  m.state.pc = kCode;
  m.state.write_gpr(a1, enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 5}}));
  m.state.write_gpr(a3, kCode + 4);
  r = ex.run(limits);
  ASSERT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 2u);
  EXPECT_EQ(m.state.read_gpr(a0), 6u);  // 1 + 5: the new instruction ran
  EXPECT_EQ(ex.decode_misses(), misses + 1);  // only the overwritten word was decoded again
}

}  // namespace
