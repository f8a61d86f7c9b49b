// The run loop (src/runner/executor.hpp): stop conditions counted exactly,
// the fast and the observed loop agreeing with a host reference of the same
// kernel, and the decode cache following stores into code that already ran.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string_view>
#include <utility>
#include <vector>

#include "arch/machine.hpp"
#include "encode_mnemonic.hpp"
#include "isa/decoder.hpp"
#include "runner/executor.hpp"

namespace {

using pto::arch::Word;
using pto::runner::Executor;
using pto::test::enc;
using pto::runner::RunLimits;
using pto::runner::StopReason;

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

// The reference runner's stop test looks at the TPC each attempt leaves, so
// the start PC is never a hit: hits 1, 2, 3 follow iterations 1, 2, 3.
TEST(RunnerExecutor, StopAfterHitsCountsArrivalsAfterAttemptsNotTheStart) {
  pto::arch::Machine m;
  load_checksum_kernel(m, 100);
  RunLimits limits;
  limits.stop_pc = kCode;  // the loop head, also the start PC
  limits.stop_after_hits = 3;
  Executor ex(m);
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 3u * kKernelLength);
  EXPECT_EQ(r.pc, kCode);
  EXPECT_EQ(m.state.read_gpr(a0), 3u);
  EXPECT_EQ(m.state.read_gpr(a4), reference_checksum(3));
}

// A stop reached by the last attempt of the budget is a stop, not max-steps
// (the reference tests the stop after the attempt, inside the loop).
TEST(RunnerExecutor, StopReachedByTheLastBudgetedAttemptPasses) {
  for (const bool observed : {false, true}) {
    pto::arch::Machine m;
    load_checksum_kernel(m, 100);
    RunLimits limits;
    limits.stop_pc = kCode;
    limits.stop_after_hits = 2;
    limits.max_steps = 2 * kKernelLength;
    Executor ex(m);
    CountingObserver observer;
    auto r = ex.run(limits, observed ? &observer : nullptr);
    EXPECT_EQ(r.reason, StopReason::StopPc) << observed;
    EXPECT_EQ(r.steps, 2u * kKernelLength);
    // One attempt less: the second hit is never reached.
    pto::arch::Machine m2;
    load_checksum_kernel(m2, 100);
    limits.max_steps = 2 * kKernelLength - 1;
    Executor ex2(m2);
    r = ex2.run(limits, observed ? &observer : nullptr);
    EXPECT_EQ(r.reason, StopReason::MaxSteps) << observed;
    EXPECT_EQ(r.steps, 2u * kKernelLength - 1);
  }
}

// A stop PC equal to the start PC with one hit: the loop must come back once.
TEST(RunnerExecutor, StopPcAtTheStartNeedsOneArrival) {
  pto::arch::Machine m;
  load_checksum_kernel(m, 100);
  RunLimits limits;
  limits.stop_pc = kCode;
  Executor ex(m);
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, kKernelLength);
  EXPECT_EQ(m.state.read_gpr(a0), 1u);
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

// The stop PC in the middle of the loop body: the first attempt that leaves
// TPC there (the ANDI of iteration 1) stops the run.
TEST(RunnerExecutor, StopPcInsideTheBodyStopsAfterTheAttemptThatReachesIt) {
  pto::arch::Machine m;
  load_checksum_kernel(m, 100);
  RunLimits limits;
  limits.stop_pc = kCode + 4 * 3;  // after BSTART, ADDI, ANDI
  Executor ex(m);
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
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

// ---- straight-line runs (docs/architecture.md "Execution") ----

// Budgets ending at every position of the run, with the runs already built
// by a first pass: after k attempts the loop has executed BSTART (attempt
// 1 mod 8), ADDI (2 mod 8), ..., BSTOP (0 mod 8), so TPC is kCode + 4*(k mod 8)
// and a0 counts the attempts that were ADDIs.
TEST(RunnerExecutor, MaxStepsLandsExactlyAtEveryPositionOfACachedRun) {
  for (std::uint64_t k = 1; k <= 3 * kKernelLength; ++k) {
    pto::arch::Machine m;
    load_checksum_kernel(m, 100);
    Executor ex(m);
    RunLimits warm;
    warm.max_steps = kKernelLength;  // one full iteration builds the run
    ASSERT_EQ(ex.run(warm).steps, kKernelLength);
    m.state.pc = kCode;  // registers back to the start; the code stays cached
    m.state.sysregs.cycle = 0;
    m.state.write_gpr(a0, 0);
    m.state.write_gpr(a4, 0);
    RunLimits limits;
    limits.max_steps = k;
    const auto r = ex.run(limits);
    EXPECT_EQ(r.reason, StopReason::MaxSteps) << k;
    EXPECT_EQ(r.steps, k);
    EXPECT_EQ(r.pc, kCode + 4 * (k % kKernelLength)) << k;
    EXPECT_EQ(m.state.pc, r.pc);
    EXPECT_EQ(m.state.sysregs.cycle, k);
    EXPECT_EQ(m.state.read_gpr(a0), (k + 6) / kKernelLength) << k;
    EXPECT_EQ(m.state.block.bundle_active, k % kKernelLength != 0) << k;
  }
}

// A stop PC in the middle of a run built by an earlier, unlimited run: the
// third arrival at the first ADD (attempt 4 of each iteration) stops before it.
TEST(RunnerExecutor, StopPcInsideAnAlreadyBuiltRun) {
  pto::arch::Machine m;
  const Word exit = load_checksum_kernel(m, 5);
  Executor ex(m);
  RunLimits warm;
  warm.stop_pc = exit;
  ASSERT_EQ(ex.run(warm).steps, 5u * kKernelLength);
  m.state.pc = kCode;  // registers back to the start; the code stays cached
  m.state.write_gpr(a0, 0);
  m.state.write_gpr(a4, 0);
  RunLimits limits;
  limits.stop_pc = kCode + 12;
  limits.stop_after_hits = 3;
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 2u * kKernelLength + 3);
  EXPECT_EQ(r.pc, kCode + 12);
  EXPECT_EQ(m.state.read_gpr(a0), 3u);
  EXPECT_EQ(m.state.read_gpr(a4), reference_checksum(2));
}

// A data-alignment fault at the LDI (attempt 5) of a cached run: the run
// stops there with exactly the state before the LDI, plus the fault record;
// with EVBASE 0 TPC is the fault address (SetFaultWithCause / TrapVectorEntry).
TEST(RunnerExecutor, FaultInTheMiddleOfACachedRunLeavesExactState) {
  pto::arch::Machine m;
  load_checksum_kernel(m, 100);
  Executor ex(m);
  RunLimits warm;
  warm.max_steps = 2 * kKernelLength;
  ASSERT_EQ(ex.run(warm).steps, 2u * kKernelLength);
  const Word sum_before = m.state.read_gpr(a4);
  const Word loaded_before = m.state.read_gpr(a2);
  m.state.write_gpr(a3, kData + 1);  // every LDI address is now odd
  const auto r = ex.run(RunLimits{});
  EXPECT_EQ(r.reason, StopReason::Fault);
  EXPECT_EQ(r.steps, 5u);
  EXPECT_EQ(r.fault, pto::arch::FaultCode::Fault_DataAlignment);
  EXPECT_EQ(r.fault_pc, kCode + 16);
  const Word address = kData + 1 + (3 << 3);  // a0 = 3 after the third ADDI
  EXPECT_EQ(r.fault_address, address);
  EXPECT_EQ(r.pc, address);
  EXPECT_EQ(m.state.sysregs.cycle, 3u * kKernelLength - 3);
  EXPECT_EQ(m.state.read_gpr(a0), 3u);
  EXPECT_EQ(m.state.read_gpr(a6), address);
  EXPECT_EQ(m.state.read_gpr(a2), loaded_before);  // the faulting load wrote nothing
  EXPECT_EQ(m.state.read_gpr(a4), sum_before);
}

// loop: BSTART.STD COND loop ; ADDI a0, 1 -> a0 ; SWI a1 -> [a3, 0] ;
//       SETC.NE a0, a2 ; BSTOP.  The SWI overwrites the already executed
// ADDI (a3 = its address) with ADDI a0, 5: a0 goes 1, 6, 11 and the loop
// leaves after three iterations when a0 = a2 = 11.
TEST(RunnerExecutor, StoreIntoAnEarlierStepOfTheRunningRunIsSeenNextIteration) {
  pto::arch::Machine m;
  store_words(m, kCode,
              {0x00003001, enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
               enc("SWI", {{"SrcL", a1}, {"SrcR", a3}, {"simm12", 0}}),
               enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a2}, {"SrcRType", 0}}), enc("BSTOP", {})});
  m.state.pc = kCode;
  m.state.write_gpr(a1, enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 5}}));
  m.state.write_gpr(a2, 11);
  m.state.write_gpr(a3, kCode + 4);
  Executor ex(m);
  RunLimits limits;
  limits.stop_pc = kCode + 20;
  limits.max_steps = 100;
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 15u);
  EXPECT_EQ(m.state.read_gpr(a0), 11u);
}

// Every 64-bit PC is reachable (odd ones raise Fault_InstructionPC): no PC
// may alias an empty decode slot or an unset stop PC.
TEST(RunnerExecutor, AllOnesPcIsAnOrdinaryPc) {
  pto::arch::Machine m;
  Executor ex(m);
  for (const Word pc : {Word{0}, Word{2}, ~Word{0}, ~Word{1}, Word{0x4000}}) {
    const auto misses = ex.decode_misses();
    ex.decoded_at(pc);
    EXPECT_EQ(ex.decode_misses(), misses + 1) << pc;  // never an empty slot's tag
  }
  m.state.pc = ~Word{0};
  auto r = ex.run(RunLimits{});
  EXPECT_EQ(r.reason, StopReason::Fault);
  EXPECT_EQ(r.steps, 1u);
  EXPECT_EQ(r.fault, pto::arch::FaultCode::Fault_InstructionPC);
  EXPECT_EQ(r.fault_address, ~Word{0});

  m.state.pc = ~Word{0};
  RunLimits at_all_ones;
  at_all_ones.stop_pc = ~Word{0};
  r = ex.run(at_all_ones);  // the start PC is no hit: the fetch fault ends the run
  EXPECT_EQ(r.reason, StopReason::Fault);
  EXPECT_EQ(r.steps, 1u);
  EXPECT_EQ(r.fault, pto::arch::FaultCode::Fault_InstructionPC);
}

// B.CATR atomic in one block must not leak into the next: LSRGET 2 packs the
// BARG control word (kind STD = 0, transfer FALL = 0 << 4, taken << 7,
// atomic << 8; PackCurrentBARGControlWord), and BSTART clears the header
// (ClearBundleHeaderState).
TEST(RunnerExecutor, BlockHeaderIsClearedAfterABlockWithAttributes) {
  pto::arch::Machine m;
  constexpr Word kFall = 0x00001001;  // BSTART.STD FALL
  constexpr Word kCatrAtomic = 0x00000023 | (1u << 17);
  store_words(m, kCode,
              {kFall, kCatrAtomic, enc("LSRGET", {{"LSR_ID", 2}, {"RegDst", a1}}), enc("BSTOP", {}), kFall,
               enc("LSRGET", {{"LSR_ID", 2}, {"RegDst", a2}}), enc("BSTOP", {})});
  for (int pass = 0; pass < 2; ++pass) {  // the second pass runs from built runs
    m.state.pc = kCode;
    m.state.write_gpr(a1, 0);
    m.state.write_gpr(a2, 0);
    Executor ex(m);
    RunLimits limits;
    limits.stop_pc = kCode + 28;
    const auto r = ex.run(limits);
    EXPECT_EQ(r.reason, StopReason::StopPc);
    EXPECT_EQ(r.steps, 7u);
    EXPECT_EQ(m.state.read_gpr(a1), 0x180u);
    EXPECT_EQ(m.state.read_gpr(a2), 0x80u);
    EXPECT_FALSE(m.state.block.control_attributes.atomic);
  }
}

// Register-only ALU variants apply only to GPR operands: a ->t destination
// (31, WriteScalarDestination pushes T), an R0 destination (discarded) and a
// t#1 source (24) keep their Reg5 meaning inside a run.
TEST(RunnerExecutor, QueueAndZeroOperandsKeepTheirReg5Meaning) {
  pto::arch::Machine m;
  store_words(m, kCode,
              {enc("ADDI", {{"RegDst", 31}, {"SrcL", 0}, {"uimm12", 7}}),
               enc("ADD", {{"RegDst", 0}, {"SrcL", a0}, {"SrcR", a0}, {"SrcRType", 3}, {"shamt", 0}}),
               enc("ADD", {{"RegDst", a4}, {"SrcL", 24}, {"SrcR", a0}, {"SrcRType", 3}, {"shamt", 1}})});
  m.state.pc = kCode;
  m.state.write_gpr(a0, 3);
  Executor ex(m);
  RunLimits limits;
  limits.stop_pc = kCode + 12;
  const auto r = ex.run(limits);
  EXPECT_EQ(r.reason, StopReason::StopPc);
  EXPECT_EQ(r.steps, 3u);
  EXPECT_EQ(m.state.read_gpr(0), 0u);
  EXPECT_EQ(m.state.t_queue.value[0], 7u);
  EXPECT_TRUE(m.state.t_queue.valid[0]);
  EXPECT_EQ(m.state.read_gpr(a4), 7u + (3u << 1));
}

}  // namespace
