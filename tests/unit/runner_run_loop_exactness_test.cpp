// The fast run loop's shortcuts (src/runner/executor.cpp) against the
// one-attempt-at-a-time semantics of ExecutePTOInstruction
// (asl/arch/dispatch/top-level.asl): BSTART records bound to their PC,
// BSTOP's scalar commit path, the fault-record clear and SYS-terminal check
// skipped after clean attempts, and the guest memory hot page.  Each program
// runs in the fast loop and in the observed loop (which executes every attempt
// through `execute`), and the results and whole state dumps must agree;
// expected values are derived by hand from the programs.
#include <gtest/gtest.h>

#include <array>
#include <cstdlib>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "arch/machine.hpp"
#include "encode_mnemonic.hpp"
#include "scalar_kernels.hpp"
#include "isa/decoder.hpp"
#include "runner/executor.hpp"
#include "runner/state_dump.hpp"

namespace {

using pto::arch::FaultCode;
using pto::arch::Machine;
using pto::arch::Word;
using pto::runner::Executor;
using pto::runner::RunLimits;
using pto::runner::RunResult;
using pto::runner::StopReason;
using pto::test::enc;

constexpr Word kCode = 0x10000, kData = 0x20000, kVector = 0x18000;
enum : unsigned { a0 = 2, a1 = 3, a2 = 4, a3 = 5, a4 = 6, a5 = 7, a6 = 8 };

// The form of `mnemonic` whose assembly template contains `variant`.
Word enc_variant(std::string_view mnemonic, std::string_view variant, pto::support::NamedFields named) {
  try {
    return pto::support::encode_named(mnemonic, named, variant);
  } catch (const std::invalid_argument& e) {
    ADD_FAILURE() << e.what();
    return 0;
  }
}

// BSTART.STD DIRECT/COND with a byte offset (the simm17 field is in halfwords).
Word bstart(std::string_view variant, std::int64_t byte_offset) {
  return enc_variant("BSTART.STD", variant, {{"simm17", byte_offset / 2}});
}

// BSTART.CALL to a byte offset with return target P + 2 + 2 * uimm5
// (simm12 in halfwords; asl/block/execution/BSTART.CALL.asl).
Word bstart_call(std::int64_t byte_offset, std::int64_t uimm5) {
  return enc_variant("BSTART.CALL", "CALL", {{"simm12", byte_offset / 2}, {"uimm5", uimm5}});
}

struct Program {
  std::vector<Word> code;                  // 32-bit words from code_base
  std::vector<Word> vector_code;           // 32-bit words from kVector (EVBASE of ring 0 when present)
  void (*setup)(Machine&) = nullptr;
  // Faults taken to the vector go on there (the loops' trap paths are what
  // these programs exercise).
  RunLimits limits = [] {
    RunLimits l;
    l.run_trap_handlers = true;
    return l;
  }();
  bool reference = false;  // the reference configuration (4096 bytes, no data table)
  // The numeric profile of the FSU hooks, when not the configuration's.
  std::optional<pto::arch::NumericProfileKind> numeric;
  Word code_base = kCode;
};

Machine make_machine(const Program& p) {
  pto::arch::MachineConfig config = p.reference ? pto::arch::MachineConfig::reference() : pto::arch::MachineConfig::real();
  if (p.numeric) config.numeric_profile = *p.numeric;
  return Machine(config);
}

void load(Machine& m, const Program& p) {
  Word pc = p.code_base;
  for (Word w : p.code) m.memory.write(std::exchange(pc, pc + 4), 4, w);
  pc = kVector;
  for (Word w : p.vector_code) m.memory.write(std::exchange(pc, pc + 4), 4, w);
  if (!p.vector_code.empty()) m.state.banked_reg(0, pto::arch::kEvbaseLow) = kVector;
  if (!p.reference) {
    for (Word i = 0; i < 512; ++i) m.memory.write(kData + 8 * i, 8, i * 0x9E3779B97F4A7C15ull);
  }
  m.state.pc = p.code_base;
  if (p.setup) p.setup(m);
}

struct CountingObserver : pto::runner::Observer {
  std::uint64_t loads = 0;
  void on_retire(const Machine&, const pto::runner::Retired& r) override {
    for (const auto& a : r.accesses) loads += a.write ? 0 : 1;
  }
};

struct Outcome {
  RunResult result;
  nlohmann::json state;
  std::uint64_t fused_passes = 0;
  std::uint64_t translated_passes = 0;
};

// The fast loop, with fused blocks translated to host code (where the build
// can) or interpreted.
enum class Tier { Translated, Interpreted };

Outcome run_fast(const Program& p, Tier tier = Tier::Translated) {
  Machine m = make_machine(p);
  load(m, p);
  Executor ex(m);
  ex.set_translation(tier == Tier::Translated);
  Outcome o{ex.run(p.limits), {}};
  o.state = pto::runner::dump_state(m);
  o.fused_passes = ex.fused_passes();
  o.translated_passes = ex.translated_passes();
  return o;
}

Outcome run_observed(const Program& p, CountingObserver& observer) {
  Machine m = make_machine(p);
  load(m, p);
  Executor ex(m);
  Outcome o{ex.run(p.limits, &observer), {}};
  o.state = pto::runner::dump_state(m);
  return o;
}

void expect_same_run(const Outcome& a, const Outcome& b, std::string_view what) {
  EXPECT_EQ(a.result.reason, b.result.reason) << what;
  EXPECT_EQ(a.result.steps, b.result.steps) << what;
  EXPECT_EQ(a.result.pc, b.result.pc) << what;
  EXPECT_EQ(a.result.fault, b.result.fault) << what;
  EXPECT_EQ(a.result.fault_pc, b.result.fault_pc) << what;
  EXPECT_EQ(a.state, b.state) << what << ": state dumps differ";
}

// Runs the fast loop in both tiers and the observed loop, expects the same
// stop and state from all three, returns the translated fast one.
Outcome run_both(const Program& p) {
  CountingObserver observer;
  const Outcome translated = run_fast(p, Tier::Translated);
  const Outcome interpreted = run_fast(p, Tier::Interpreted);
  const Outcome slow = run_observed(p, observer);
  expect_same_run(translated, slow, "translated fast loop vs observed loop");
  expect_same_run(interpreted, slow, "interpreted fast loop vs observed loop");
  EXPECT_EQ(translated.fused_passes, interpreted.fused_passes);
  EXPECT_EQ(interpreted.translated_passes, 0u);
  return translated;
}

Program kernel_program(Word iterations) {
  Program p;
  p.code = pto::support::checksum_kernel();  // the program BM_ChecksumKernel runs
  static Word n;
  n = iterations;
  p.setup = [](Machine& m) {
    m.state.write_gpr(a1, n);
    m.state.write_gpr(a3, kData);
  };
  p.limits.stop_pc = kCode + 4 * p.code.size();
  return p;
}

TEST(RunnerRunLoopExactness, ChecksumKernelMatchesTheObservedLoop) {
  const Outcome o = run_both(kernel_program(700));  // 700 > 512: the index wraps
  EXPECT_EQ(o.result.reason, StopReason::StopPc);
  EXPECT_EQ(o.result.steps, 700u * 8);
  Word sum = 0;
  for (Word i = 1; i <= 700; ++i) sum += (i & 511) * 0x9E3779B97F4A7C15ull;
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(sum)) << o.state["gpr"][0];
}

// Entered on an idle block, every pass of the loop block runs fused (the
// first through its BSTART and BSTOP handlers).
TEST(RunnerRunLoopExactness, ChecksumKernelPassesRunFused) {
  EXPECT_EQ(run_fast(kernel_program(700)).fused_passes, 700u);
  EXPECT_EQ(run_fast(kernel_program(1)).fused_passes, 1u);
}

// After the first pass (through the block's handlers) the translation tier
// runs the other 699 as host code; interpreted, none.
TEST(RunnerRunLoopExactness, ChecksumKernelPassesRunTranslated) {
  if (!pto::runner::translation_supported()) GTEST_SKIP() << "this build has no translation tier";
  EXPECT_EQ(run_fast(kernel_program(700), Tier::Translated).translated_passes, 699u);
  EXPECT_EQ(run_fast(kernel_program(700), Tier::Interpreted).translated_passes, 0u);
}

// PTO_NO_JIT (anything but "" or "0") turns the tier off by default.
TEST(RunnerRunLoopExactness, NoJitEnvironmentSelectsTheInterpreter) {
  Machine m;
  for (const char* value : {"1", "yes"}) {
    ::setenv("PTO_NO_JIT", value, 1);
    EXPECT_FALSE(Executor(m).translation()) << value;
  }
  for (const char* value : {"", "0"}) {
    ::setenv("PTO_NO_JIT", value, 1);
    EXPECT_EQ(Executor(m).translation(), pto::runner::translation_supported()) << value;
  }
  ::unsetenv("PTO_NO_JIT");
  EXPECT_EQ(Executor(m).translation(), pto::runner::translation_supported());
}

// The step budget may end a pass at any attempt of the loop body.
TEST(RunnerRunLoopExactness, StepBudgetEndingAtEveryAttemptOfTheBody) {
  for (Word budget = 1; budget <= 26; ++budget) {
    Program p = kernel_program(100);
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    EXPECT_EQ(o.result.reason, StopReason::MaxSteps) << budget;
    EXPECT_EQ(o.result.steps, budget);
    // One attempt per step: attempt k runs the body word (k - 1) mod 8.
    EXPECT_EQ(o.result.pc, kCode + 4 * (budget % 8)) << budget;
  }
}

// A commit back to the run's own start begins the next pass inside the run
// (executor.cpp): the budget still ends the 301st pass at any attempt, and
// time counts every attempt of every pass.
TEST(RunnerRunLoopExactness, StepBudgetEndingDeepInALoopOfPasses) {
  for (Word budget = 8 * 300; budget < 8 * 301; ++budget) {
    Program p = kernel_program(1000);
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    EXPECT_EQ(o.result.reason, StopReason::MaxSteps) << budget;
    EXPECT_EQ(o.result.steps, budget);
    EXPECT_EQ(o.result.pc, kCode + 4 * (budget % 8)) << budget;
    // ADDI is attempt 2 of each pass; time starts at 0 and counts attempts.
    const Word passes_with_addi = budget / 8 + (budget % 8 >= 2 ? 1 : 0);
    EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(passes_with_addi)) << budget;
    EXPECT_EQ(o.state["system_registers"]["CYCLE"], pto::runner::hex_word(budget)) << budget;
  }
}

// CYCLE and TIME read mid-block count every attempt so far, the reading one
// included (BeginArchitecturalInstructionAttempt advances time first).
TEST(RunnerRunLoopExactness, CycleAndTimeReadMidRunCountEveryAttempt) {
  Program p;
  p.code = {enc_variant("BSTART.SYS", "FALL", {}),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("SSRGET", {{"RegDst", a2}, {"SSR_ID", 0xC00}}),  // CYCLE
            enc("SSRGET", {{"RegDst", a3}, {"SSR_ID", 0x010}}),  // TIME
            enc("BSTOP", {})};
  p.setup = [](Machine& m) { m.state.sysregs.cycle = 1000; };
  p.limits.stop_pc = kCode + 4 * p.code.size();
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(1004));
  EXPECT_EQ(o.state["gpr"][0][a3], pto::runner::hex_word(1005));
  EXPECT_EQ(o.state["system_registers"]["CYCLE"], pto::runner::hex_word(1006));
}

// A BSTART reached while a block is active commits the retiring block first
// (the bound record falls back to the generic start): here the DIRECT block
// at kCode retires at kCode + 8 and its target is not taken.
TEST(RunnerRunLoopExactness, BoundStartRetiringAnActiveBlock) {
  Program p;
  p.code = {bstart("DIRECT", 0x40),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            bstart("DIRECT", 0x20),  // at kCode + 8: target kCode + 0x28
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 2}}),
            enc("BSTOP", {})};
  p.code.resize(0x40 / 4, enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}));
  p.code.push_back(enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 100}}));
  p.limits.max_steps = 8;
  const Outcome o = run_both(p);
  EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(3));
  // BSTOP at kCode + 16 commits to kCode + 0x28; three more attempts there.
  EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(3));
  EXPECT_EQ(o.result.pc, kCode + 0x28 + 12);
}

// A store that rewrites a BSTART already executed (and bound to its PC)
// takes effect at its next execution: the new offset, not the bound one.
TEST(RunnerRunLoopExactness, StoreIntoABoundStartRebindsIt) {
  Program p;
  // kCode: BSTART.STD COND +0 (loops while a0 != a1); body: a0 += 1, SW
  // a2 -> [a3] (a3 = kCode: rewrites this BSTART), SETC.NE, BSTOP.
  p.code = {bstart("COND", 0),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("SWI", {{"SrcL", a2}, {"SrcR", a3}, {"simm12", 0}}),
            enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
            enc("BSTOP", {})};
  p.code.resize(0x40 / 4 + 2, enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 1}}));
  static Word rewritten;
  rewritten = bstart("COND", 0x40);  // the same block, branching to kCode + 0x40
  p.setup = [](Machine& m) {
    m.state.write_gpr(a1, 5);
    m.state.write_gpr(a2, rewritten);
    m.state.write_gpr(a3, kCode);
  };
  p.limits.max_steps = 5 + 5 + 2;
  const Outcome o = run_both(p);
  // Pass 1 runs the original BSTART and stores the new one; pass 2 runs the
  // new BSTART, so its BSTOP commits to kCode + 0x40 (a0 = 2 != 5).
  EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(2));
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(2));
  EXPECT_EQ(o.result.pc, kCode + 0x40 + 8);
}

// ---- fused loop blocks (docs/architecture.md "Fused loop blocks") ----

// loop: BSTART.STD COND loop ; a0 += 1 ; [setc.ne a0, a1] ; a5 = a0 & 4 ;
//       a5 >>= 2 ; a6 = a3 + a5 ; a2 = [a6] ; a4 += a2 ; [setc.ne a0, a1] ; BSTOP
// The load address is odd (misaligned) once a0 reaches 4: pass 4 faults at
// its LDI (attempt 3 * 9 + 7 with the SETC first, else 3 * 9 + 6) and
// traps to the vector.
Program misaligning_loop(bool condition_first) {
  Program p;
  const Word setc = enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}});
  p.code = {bstart("COND", 0), enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}})};
  if (condition_first) p.code.push_back(setc);
  for (Word w : {enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 4}}),
                 enc("SRLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 2}}),
                 enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
                 enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}}),
                 enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a2}, {"SrcRType", 3}, {"shamt", 0}})}) {
    p.code.push_back(w);
  }
  if (!condition_first) p.code.push_back(setc);
  p.code.push_back(enc("BSTOP", {}));
  p.vector_code.assign(16, enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 100}}));
  p.setup = [](Machine& m) {
    m.state.write_gpr(a1, 10);
    m.state.write_gpr(a3, kData);
  };
  return p;
}

// A fused pass whose load leaves the fast path continues step by step from
// that load: the fault, its trap context (the active block, its body
// entered, the condition set or not yet) and every budget around it agree
// with the observed loop.
TEST(RunnerRunLoopExactness, FusedPassFaultingAtItsLoad) {
  for (const bool condition_first : {true, false}) {
    const Word fault_attempt = 3 * 9 + (condition_first ? 7 : 6);
    for (Word budget = 1; budget <= 45; ++budget) {
      Program p = misaligning_loop(condition_first);
      p.limits.max_steps = budget;
      const Outcome o = run_both(p);
      EXPECT_EQ(o.result.steps, budget) << budget;
      if (budget > fault_attempt) {
        EXPECT_EQ(o.result.pc, kVector + 4 * (budget - fault_attempt)) << budget;
        const auto& context = o.state["rings"][0]["trap_context"];
        EXPECT_EQ(context["tpc"], pto::runner::hex_word(kCode + 20 + (condition_first ? 4 : 0))) << budget;
        EXPECT_EQ(context["block"]["active"], true);
        EXPECT_EQ(context["block"]["body_active"], true);
        EXPECT_EQ(context["block"]["condition_set"], condition_first);
        EXPECT_EQ(context["block"]["barg"]["taken"], condition_first);  // a0 = 4 != 10
        // Passes 1 to 3 ran fused; pass 4 left the fused path at its load.
        EXPECT_EQ(o.fused_passes, 3u) << budget;
      }
    }
  }
}

// Loads the fast path never takes (the reference configuration's top
// 1024 bytes, which ACR >= 2 may not access) run through the handler from
// the fused pass, which finishes step by step; the next pass is fused again.
TEST(RunnerRunLoopExactness, FusedPassesWithLoadsBeyondTheFastPath) {
  Program p;
  p.reference = true;
  p.code_base = 0x100;
  // a5 = (a0 & 3) << 3 ; a2 = [3056 + a5]: 3056, 3064 (fast), 3072, 3080 (not)
  p.code = {bstart("COND", 0),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 3}}),
            enc("SLLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 3}}),
            enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}}),
            enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a2}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
            enc("BSTOP", {})};
  p.setup = [](Machine& m) {
    m.state.write_gpr(a1, 20);
    m.state.write_gpr(a3, 3056);
    for (Word i = 0; i < 4; ++i) m.memory.write(3056 + 8 * i, 8, Word{1} << (8 * i));
  };
  p.limits.stop_pc = 0x100 + 4 * p.code.size();
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 20u * 9);
  // a0 = 1..20: a0 & 3 is 1, 2, 3, 0 five times each.
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(5 * (0x1 + 0x100 + 0x10000 + 0x1000000)));
  // Fused: the passes with a0 & 3 in {0, 1} (a0 = 1, 4, 5, 8, 9, ..., 17, 20).
  EXPECT_EQ(o.fused_passes, 10u);
}

// Stores in fused passes: a page holding decoded code never takes the
// fused store (its writes must reach the decode cache), nor a page not yet
// written; both continue the pass step by step.
// loop: BSTART.STD COND loop ; a0 += 1 ; a5 = (a0 & 4) << 15 ;
//       a6 = a3 + a5 ; SD a0 -> [a6] ; setc.ne a0, a1 ; BSTOP
// then a2 = [kCode + 0x800], a4 = [0x30800].
TEST(RunnerRunLoopExactness, FusedPassesWithStores) {
  Program p;
  p.code = {bstart("COND", 0),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 4}}),
            enc("SLLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 15}}),
            enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("SDI", {{"SrcL", a0}, {"SrcR", a6}, {"simm12", 0}}),
            enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
            enc("BSTOP", {}),
            enc("LDI", {{"RegDst", a2}, {"SrcL", a3}, {"simm12", 0}}),
            enc("LDI", {{"RegDst", a4}, {"SrcL", 9}, {"simm12", 0}})};
  p.setup = [](Machine& m) {
    m.state.write_gpr(a1, 16);
    m.state.write_gpr(a3, kCode + 0x800);  // the code page; + 0x20000 a page nothing wrote yet
    m.state.write_gpr(9, kCode + 0x800 + 0x20000);
  };
  p.limits.stop_pc = kCode + 4 * p.code.size();
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 16u * 8 + 2);
  // a0 & 4 == 0 stores to the code page (last a0 = 16), else to 0x30800 (last 15).
  EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(16));
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(15));
  // Fused: the passes storing to the data page once it is resident and
  // written (a0 = 4 wrote it first): a0 = 5, 6, 7, 12, 13, 14, 15.
  EXPECT_EQ(o.fused_passes, 7u);
}

// Register-offset loads and stores in fused passes: copy the table to a
// fresh page (the first store, in pass 1, allocates it: that pass goes on
// step by step) and sum it.
// loop: BSTART.STD COND loop ; a0 += 1 ; a5 = a0 & 511 ; a2 = [a3 + (a5 << 3)] ;
//       a4 += a2 ; SD a2 -> [r9 + (a5 << 3)] ; setc.ne a0, a1 ; BSTOP
// then a6 = [r9 + 8 * 20].
TEST(RunnerRunLoopExactness, FusedPassesWithRegisterOffsets) {
  Program p;
  p.code = {bstart("COND", 0),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 511}}),
            enc("LD", {{"RegDst", a2}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 0}, {"shamt", 3}}),
            enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a2}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("SD", {{"SrcD", a2}, {"SrcL", 9}, {"SrcR", a5}, {"SrcRType", 0}}),
            enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
            enc("BSTOP", {}),
            enc("LDI", {{"RegDst", a6}, {"SrcL", 9}, {"simm12", 20}})};  // LDI scales by 8
  p.setup = [](Machine& m) {
    m.state.write_gpr(a1, 20);
    m.state.write_gpr(a3, kData);
    m.state.write_gpr(9, kData + 0x10000);
  };
  p.limits.stop_pc = kCode + 4 * p.code.size();
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 20u * 8 + 1);
  Word sum = 0;
  for (Word i = 1; i <= 20; ++i) sum += i * 0x9E3779B97F4A7C15ull;
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(sum));
  EXPECT_EQ(o.state["gpr"][0][a6], pto::runner::hex_word(20 * 0x9E3779B97F4A7C15ull));
  EXPECT_EQ(o.fused_passes, 19u);
}

// A loop block with an empty body (BSTART.STD DIRECT to itself, BSTOP) is a
// fusion too: 101 attempts are 50 fused passes and the BSTART of a 51st.
TEST(RunnerRunLoopExactness, EmptyLoopBlock) {
  Program p;
  p.code = {bstart("DIRECT", 0), enc("BSTOP", {})};
  p.limits.max_steps = 101;
  const Outcome o = run_both(p);
  EXPECT_EQ(o.result.reason, StopReason::MaxSteps);
  EXPECT_EQ(o.result.pc, kCode + 4);
  EXPECT_EQ(o.fused_passes, 50u);
  EXPECT_EQ(o.state["system_registers"]["CYCLE"], pto::runner::hex_word(101));
}

// A fused loop block entered right after a vectored fault: its first pass
// clears the fault record as the BSTART attempt does.
TEST(RunnerRunLoopExactness, FusedLoopBlockAtATrapVector) {
  Program p;
  p.code = {enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}})};  // a6 odd: misaligned
  p.vector_code = {bstart("COND", 0), enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}),
                   enc("SETC.NE", {{"SrcL", a1}, {"SrcR", a3}, {"SrcRType", 0}}), enc("BSTOP", {})};
  p.setup = [](Machine& m) {
    m.state.write_gpr(a6, kData + 1);
    m.state.write_gpr(a3, 5);
  };
  p.limits.stop_pc = kVector + 16;
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 1u + 5 * 4);
  EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(5));
  EXPECT_EQ(o.state["fault"]["last_fault"], "Fault_None");
  EXPECT_EQ(o.fused_passes, 5u);
}

// ---- chained fused blocks (docs/architecture.md "Chaining fused blocks") ----

// a: BSTART.STD DIRECT b ; a0 += 1 ; BSTOP
// b: BSTART.STD COND a   ; a2 += 2 ; setc.ne a0, a1 ; BSTOP
// exit (kCode + 28): a1 passes of each block, 3 + 4 attempts per round.
Program ping_pong(Word rounds) {
  Program p;
  p.code = {bstart("DIRECT", 12), enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}), enc("BSTOP", {}),
            bstart("COND", -12),  enc("ADDI", {{"RegDst", a2}, {"SrcL", a2}, {"uimm12", 2}}),
            enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}), enc("BSTOP", {})};
  static Word n;
  n = rounds;
  p.setup = [](Machine& m) { m.state.write_gpr(a1, n); };
  p.limits.stop_pc = kCode + 28;
  return p;
}

// Neither block commits to itself, so without chaining every pass would be
// a first pass through the block's handlers; chained, only the very first
// is, and the translation tier runs the other 199.
TEST(RunnerRunLoopExactness, ChainedBlocksRunFusedAfterTheFirstPass) {
  const Outcome o = run_both(ping_pong(100));
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 100u * 7);
  EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(100));
  EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(200));
  EXPECT_EQ(o.state["system_registers"]["CYCLE"], pto::runner::hex_word(700));
  EXPECT_EQ(o.fused_passes, 200u);
  if (pto::runner::translation_supported()) {
    EXPECT_EQ(o.translated_passes, 199u);
  }
}

// The budget ends a chain at every attempt of a round, deep in the chain.
TEST(RunnerRunLoopExactness, StepBudgetEndingInAChainOfBlocks) {
  for (Word budget = 7 * 40; budget <= 7 * 42; ++budget) {
    Program p = ping_pong(100);
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    EXPECT_EQ(o.result.reason, StopReason::MaxSteps) << budget;
    EXPECT_EQ(o.result.steps, budget);
    // Attempt k of a round is at kCode + 4k (the blocks are contiguous).
    EXPECT_EQ(o.result.pc, kCode + 4 * (budget % 7)) << budget;
    EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(budget / 7 + (budget % 7 >= 2 ? 1 : 0))) << budget;
  }
}

// A stop PC at a chained block's start breaks the chain there: the fifth
// arrival at b stops the run before b's fifth pass.
TEST(RunnerRunLoopExactness, StopPcAtAChainedBlock) {
  Program p = ping_pong(100);
  p.limits.stop_pc = kCode + 12;
  p.limits.stop_after_hits = 5;
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 5u * 3 + 4u * 4);
  EXPECT_EQ(o.result.pc, kCode + 12);
  EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(8));
}

// A chained pass that stores into the next block's code: the store drops
// that block's run, which is decoded again before it is entered.
// a (kCode): BSTART.STD FALL ; a0 += 1 ; a5 = (a0 & 2) << 14 ; a6 = a3 + a5 ;
//            SW a2 -> [a6] ; BSTOP          (pass 2 stores over b's BSTART)
// b (kCode + 28): BSTART.STD DIRECT a ; BSTOP, rewritten to DIRECT x
// x (kCode + 0x40): a4 += 1, ...
TEST(RunnerRunLoopExactness, ChainedPassStoringIntoTheNextBlock) {
  constexpr Word kB = kCode + 28, kX = kCode + 0x40;
  Program p;
  p.code = {enc_variant("BSTART.STD", "FALL", {}),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 2}}),
            enc("SLLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 14}}),
            enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("SWI", {{"SrcL", a2}, {"SrcR", a6}, {"simm12", 0}}),
            enc("BSTOP", {}),
            bstart("DIRECT", -static_cast<std::int64_t>(kB - kCode)),
            enc("BSTOP", {})};
  p.code.resize((kX - kCode) / 4, enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}));
  p.code.resize((kX - kCode) / 4 + 8, enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 1}}));
  static Word rewritten;
  rewritten = bstart("DIRECT", static_cast<std::int64_t>(kX - kB));
  p.setup = [](Machine& m) {
    m.state.write_gpr(a2, rewritten);
    m.state.write_gpr(a3, kB - (Word{2} << 14));  // pass 1 stores below the code
  };
  // Passes a, b, a (storing), b rewritten, then three attempts at x.
  p.limits.max_steps = 7 + 2 + 7 + 2 + 3;
  const Outcome o = run_both(p);
  EXPECT_EQ(o.result.reason, StopReason::MaxSteps);
  EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(2));
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(3));
  EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(0));
  EXPECT_EQ(o.result.pc, kX + 12);
}

// Translated blocks linked to each other (a to b, b to a) stop following a
// link once a store rewrites a linked block: here a, in round 4, rewrites
// b's body, and later rounds must run the new body.
// a (kCode): BSTART.STD FALL ; a0 += 1 ; a5 = (a0 & 4) << 13 ; a6 = a3 + a5 ;
//            SW a2 -> [a6] ; BSTOP
// b (kCode + 28): BSTART.STD DIRECT a ; a1 += 1 (rewritten to a1 += 100) ; BSTOP
TEST(RunnerRunLoopExactness, LinkedBlockRewrittenByAStore) {
  constexpr Word kB = kCode + 28;
  Program p;
  p.code = {enc_variant("BSTART.STD", "FALL", {}),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 4}}),
            enc("SLLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 13}}),
            enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("SWI", {{"SrcL", a2}, {"SrcR", a6}, {"simm12", 0}}),
            enc("BSTOP", {}),
            bstart("DIRECT", -static_cast<std::int64_t>(kB - kCode)),
            enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}),
            enc("BSTOP", {})};
  static Word rewritten;
  rewritten = enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 100}});
  p.setup = [](Machine& m) {
    m.state.write_gpr(a2, rewritten);
    m.state.write_gpr(a3, kB + 4 - (Word{4} << 13));  // a0 & 4 == 0 stores below the code
  };
  p.limits.max_steps = 10 * 10;  // ten rounds of 7 + 3 attempts
  const Outcome o = run_both(p);
  EXPECT_EQ(o.result.reason, StopReason::MaxSteps);
  EXPECT_EQ(o.result.pc, kCode);
  EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(10));
  EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(3 + 7 * 100));
}

// ---- CALL blocks (docs/architecture.md "Fused loop blocks") ----

// loop: BSTART.CALL loop, ->ra = kCode + 4 ; a4 += ra ; ra += 8 ; BSTOP
// Each pass's start writes the return target to _ReturnAddress and ra
// (BeginBundleAt) before the body reads ra and writes it again.  203
// attempts are 50 passes and the BSTART, ADD and ADDI of a 51st.
TEST(RunnerRunLoopExactness, CallBlockWritesTheReturnAddressEveryPass) {
  constexpr Word kReturn = kCode + 4;
  Program p;
  p.code = {bstart_call(0, 1), enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", 10}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("ADDI", {{"RegDst", 10}, {"SrcL", 10}, {"uimm12", 8}}), enc("BSTOP", {})};
  p.limits.max_steps = 4 * 50 + 3;
  const Outcome o = run_both(p);
  EXPECT_EQ(o.result.reason, StopReason::MaxSteps);
  EXPECT_EQ(o.result.pc, kCode + 12);
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(51 * kReturn));
  EXPECT_EQ(o.state["gpr"][0][10], pto::runner::hex_word(kReturn + 8));
  EXPECT_EQ(o.state["return_address"], pto::runner::hex_word(kReturn));
  EXPECT_EQ(o.state["system_registers"]["CYCLE"], pto::runner::hex_word(4 * 50 + 3));
  EXPECT_EQ(o.fused_passes, 50u);
  if (pto::runner::translation_supported()) {
    EXPECT_EQ(o.translated_passes, 49u);
  }
}

// A CALL block whose body writes ra and then loads from a misaligned
// address in its fourth pass (a0 = 4):
// loop: BSTART.CALL loop, ->ra = kCode + 4 ; a0 += 1 ; ra = a0 + 1000 ;
//       a5 = (a0 & 4) >> 2 ; a6 = a3 + a5 ; a2 = [a6] ; a4 += ra ; BSTOP
// The load is attempt 3 * 9 + 7 = 34; the fused pass that leaves there is
// continued step by step with the body's ra (1004), not the return target
// its BSTART's handler would write again; the trap context saves it.
TEST(RunnerRunLoopExactness, CallBlockLeavingTheFastPathKeepsTheBodysRa) {
  constexpr Word kReturn = kCode + 4, kFaultAttempt = 3 * 9 + 7;
  for (Word budget = 1; budget <= 45; ++budget) {
    Program p;
    p.code = {bstart_call(0, 1),
              enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
              enc("ADDI", {{"RegDst", 10}, {"SrcL", a0}, {"uimm12", 1000}}),
              enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 4}}),
              enc("SRLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 2}}),
              enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
              enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}}),
              enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", 10}, {"SrcRType", 3}, {"shamt", 0}}),
              enc("BSTOP", {})};
    p.vector_code.assign(16, enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 100}}));
    p.setup = [](Machine& m) { m.state.write_gpr(a3, kData); };
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    EXPECT_EQ(o.result.steps, budget);
    EXPECT_EQ(o.state["return_address"], pto::runner::hex_word(kReturn)) << budget;
    if (budget >= kFaultAttempt) {
      EXPECT_EQ(o.result.pc, kVector + 4 * (budget - kFaultAttempt)) << budget;
      EXPECT_EQ(o.state["gpr"][0][10], pto::runner::hex_word(1004)) << budget;
      EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(1001 + 1002 + 1003)) << budget;
      const auto& context = o.state["rings"][0]["trap_context"];
      EXPECT_EQ(context["tpc"], pto::runner::hex_word(kCode + 24)) << budget;
      EXPECT_EQ(context["block"]["active"], true);
      EXPECT_EQ(context["block"]["body_active"], true);
      EXPECT_EQ(o.fused_passes, 3u) << budget;
    }
  }
}

// a (kCode):      BSTART.CALL b, ->ra = kCode + 4  ; a4 += ra ; BSTOP
// b (kCode + 12): BSTART.CALL a, ->ra = kCode + 20 ; a5 += ra ; BSTOP
// Chained CALL blocks: each pass writes its own return target to
// _ReturnAddress and ra.  The budget ends at every attempt of rounds 50
// and 51: after b's pass _ReturnAddress is b's return target, from a's
// BSTART on a's.
TEST(RunnerRunLoopExactness, CallBlocksCallingEachOther) {
  constexpr Word kReturnA = kCode + 4, kReturnB = kCode + 20;
  for (Word budget = 6 * 50; budget < 6 * 52; ++budget) {
    Program p;
    p.code = {bstart_call(12, 1),
              enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", 10}, {"SrcRType", 3}, {"shamt", 0}}),
              enc("BSTOP", {}),
              bstart_call(-12, 3),
              enc("ADD", {{"RegDst", a5}, {"SrcL", a5}, {"SrcR", 10}, {"SrcRType", 3}, {"shamt", 0}}),
              enc("BSTOP", {})};
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    const Word rounds = budget / 6, attempt = budget % 6;  // attempt k of a round is at kCode + 4k
    const Word ra = attempt >= 1 && attempt <= 3 ? kReturnA : kReturnB;
    EXPECT_EQ(o.result.reason, StopReason::MaxSteps);
    EXPECT_EQ(o.result.pc, kCode + 4 * attempt) << budget;
    EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word((rounds + (attempt >= 2)) * kReturnA)) << budget;
    EXPECT_EQ(o.state["gpr"][0][a5], pto::runner::hex_word((rounds + (attempt >= 5)) * kReturnB)) << budget;
    EXPECT_EQ(o.state["gpr"][0][10], pto::runner::hex_word(ra)) << budget;
    EXPECT_EQ(o.state["return_address"], pto::runner::hex_word(ra)) << budget;
    // Whole passes are fused: 2 a round, and a's when the budget holds it.
    EXPECT_EQ(o.fused_passes, 2 * rounds + (attempt >= 3)) << budget;
    if (pto::runner::translation_supported()) {
      EXPECT_EQ(o.translated_passes, o.fused_passes - 1) << budget;  // all but the very first
    }
  }
}

// a (kCode):      BSTART.CALL f, ->ra = c ; a0 += 1 ; BSTOP
// c (kCode + 12): BSTART.STD COND a ; a4 += a2 ; setc.ne a0, a1 ; BSTOP
// exit (kCode + 28)
// f (kCode + 32): BSTART.STD RET ; a2 = a0 * 3 (a0 + a0 << 1) ; BSTOP
// A call and a return per iteration (the loop of BM_CallReturnLoop).
// Attempt k (0-based) of a round of 10 is at kCallReturnPc[k].
constexpr std::array<Word, 10> kCallReturnPc = {kCode,      kCode + 4,  kCode + 8,  kCode + 32, kCode + 36,
                                                kCode + 40, kCode + 12, kCode + 16, kCode + 20, kCode + 24};
Program call_return_loop(Word iterations) {
  Program p;
  p.code = {bstart_call(32, (12 - 2) / 2),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("BSTOP", {}),
            bstart("COND", -12),
            enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a2}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
            enc("BSTOP", {}),
            enc("BSTOP", {}),
            enc_variant("BSTART.STD", "RET", {}),
            enc("ADD", {{"RegDst", a2}, {"SrcL", a0}, {"SrcR", a0}, {"SrcRType", 3}, {"shamt", 1}}),
            enc("BSTOP", {})};
  static Word n;
  n = iterations;
  p.setup = [](Machine& m) { m.state.write_gpr(a1, n); };
  p.limits.stop_pc = kCode + 28;
  return p;
}

// Every pass is fused: a's chained from c's, f's RET from a's (its target,
// _ReturnAddress = c, read at each start), c's from f's; the translation
// tier runs all but the very first, chaining through the RET's run-time link.
TEST(RunnerRunLoopExactness, CallAndReturnLoop) {
  constexpr Word kIterations = 40;
  const Outcome o = run_both(call_return_loop(kIterations));
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, kIterations * 10);
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(3 * kIterations * (kIterations + 1) / 2));
  EXPECT_EQ(o.state["gpr"][0][10], pto::runner::hex_word(kCode + 12));
  EXPECT_EQ(o.state["return_address"], pto::runner::hex_word(kCode + 12));
  EXPECT_EQ(o.fused_passes, 3 * kIterations);
  if (pto::runner::translation_supported()) {
    EXPECT_EQ(o.translated_passes, 3 * kIterations - 1);
  }
}

// One function called from two sites whose return targets share a slot
// of the RET block's link cache ((target >> 1) & 3 = 2 for both): each
// pass must go on in the block it returns to, never in the other one.
// a  (kCode):      BSTART.CALL f, ->ra = c1 ; a0 += 1 ; BSTOP
// c1 (kCode + 12): BSTART.STD DIRECT b ; a4 += 1 ; BSTOP
// b  (kCode + 24): BSTART.CALL f, ->ra = c2 ; a0 += 1 ; BSTOP
// c2 (kCode + 36): BSTART.STD COND a ; a5 += 1 ; setc.ne a0, a1 ; BSTOP
// exit (kCode + 52)
// f  (kCode + 56): BSTART.STD RET ; a2 += a0 ; BSTOP
TEST(RunnerRunLoopExactness, ReturnBlockCalledFromTwoSites) {
  constexpr Word kRounds = 30;
  Program p;
  p.code = {bstart_call(56, 5),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("BSTOP", {}),
            bstart("DIRECT", 12),
            enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 1}}),
            enc("BSTOP", {}),
            bstart_call(32, 5),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("BSTOP", {}),
            bstart("COND", -36),
            enc("ADDI", {{"RegDst", a5}, {"SrcL", a5}, {"uimm12", 1}}),
            enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
            enc("BSTOP", {}),
            enc("BSTOP", {}),
            enc_variant("BSTART.STD", "RET", {}),
            enc("ADD", {{"RegDst", a2}, {"SrcL", a2}, {"SrcR", a0}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("BSTOP", {})};
  p.setup = [](Machine& m) { m.state.write_gpr(a1, 2 * kRounds); };
  p.limits.stop_pc = kCode + 52;
  p.limits.max_steps = 19 * kRounds + 100;  // a wrong chain stops on the budget, not never
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 19 * kRounds);
  EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(kRounds * (2 * kRounds + 1)));
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(kRounds));
  EXPECT_EQ(o.state["gpr"][0][a5], pto::runner::hex_word(kRounds));
  EXPECT_EQ(o.state["return_address"], pto::runner::hex_word(kCode + 36));
  EXPECT_EQ(o.fused_passes, 6 * kRounds);
  if (pto::runner::translation_supported()) {
    EXPECT_EQ(o.translated_passes, 6 * kRounds - 1);
  }
}

// Compressed STD starts select their transfer by BrType (C.BSTART.STD
// {FALL, IND, RET}: 1 FALL, 7 RET; 0 is C.BSTOP): bound to their PC and
// fused like the 32-bit ones, their descriptor recording the branch type.
// a (kCode):      BSTART.CALL f, ->ra = c ; a0 += 1 ; BSTOP
// c (kCode + 12): BSTART.STD COND a ; a4 += a0 ; setc.ne a0, a1 ; BSTOP
// exit (kCode + 28)
// f (kCode + 32): C.BSTART.STD FALL ; C.BSTOP
// g (kCode + 36): C.BSTART.STD RET ; C.BSTOP
// 11 attempts a round; the budget ends at every attempt of rounds 10 and 11.
TEST(RunnerRunLoopExactness, CompressedFallAndReturnBlocks) {
  constexpr Word kCFall = 1u << 11, kCRet = 7u << 11, kCBstop = 0;
  constexpr std::array<Word, 11> kPc = {kCode,      kCode + 4,  kCode + 8,  kCode + 32, kCode + 34, kCode + 36,
                                        kCode + 38, kCode + 12, kCode + 16, kCode + 20, kCode + 24};
  for (Word budget = 11 * 10; budget < 11 * 12; ++budget) {
    Program p;
    p.code = {bstart_call(32, (12 - 2) / 2),
              enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
              enc("BSTOP", {}),
              bstart("COND", -12),
              enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a0}, {"SrcRType", 3}, {"shamt", 0}}),
              enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
              enc("BSTOP", {}),
              enc("BSTOP", {}),
              kCFall | kCBstop << 16,
              kCRet | kCBstop << 16};
    p.setup = [](Machine& m) { m.state.write_gpr(a1, 100); };
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    const Word rounds = budget / 11, attempt = budget % 11;
    EXPECT_EQ(o.result.reason, StopReason::MaxSteps) << budget;
    EXPECT_EQ(o.result.pc, kPc[attempt]) << budget;
    const Word added = rounds + (attempt >= 9);
    EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(added * (added + 1) / 2)) << budget;
    // Inside f or g the block's descriptor holds the BrType.
    const auto& block = o.state["block"];
    if (attempt == 4 || attempt == 6) {
      EXPECT_EQ(block["operation"]["branch_type"], attempt == 4 ? 1 : 7) << budget;
      EXPECT_EQ(block["barg"]["bpcn"], pto::runner::hex_word(attempt == 4 ? kCode + 34 : kCode + 12)) << budget;
    }
    const Word fused = 4 * rounds + (attempt >= 3) + (attempt >= 5) + (attempt >= 7);
    EXPECT_EQ(o.fused_passes, fused) << budget;
    if (pto::runner::translation_supported()) {
      EXPECT_EQ(o.translated_passes, fused - 1) << budget;
    }
  }
}

// The budget ends the call/return loop at every attempt of rounds 20 and
// 21: the stop PC, the registers and time follow attempt by attempt, and
// every whole pass (only those) is fused.
TEST(RunnerRunLoopExactness, StepBudgetEndingInACallReturnLoop) {
  for (Word budget = 10 * 20; budget < 10 * 22; ++budget) {
    Program p = call_return_loop(100);
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    const Word rounds = budget / 10, attempt = budget % 10;
    EXPECT_EQ(o.result.reason, StopReason::MaxSteps) << budget;
    EXPECT_EQ(o.result.steps, budget);
    EXPECT_EQ(o.result.pc, kCallReturnPc[attempt]) << budget;
    const Word a0_now = rounds + (attempt >= 2);
    EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(a0_now)) << budget;
    EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(3 * (rounds + (attempt >= 5)))) << budget;
    const Word added = rounds + (attempt >= 8);  // c's ADD: a4 = 3 (1 + ... + added)
    EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(3 * added * (added + 1) / 2)) << budget;
    EXPECT_EQ(o.state["system_registers"]["CYCLE"], pto::runner::hex_word(budget)) << budget;
    const Word fused = 3 * rounds + (attempt >= 3) + (attempt >= 6);
    EXPECT_EQ(o.fused_passes, fused) << budget;
    if (pto::runner::translation_supported()) {
      EXPECT_EQ(o.translated_passes, fused - 1) << budget;
    }
  }
}

// A stop PC at the return target (c) is never linked to: the fifth arrival
// there, by the RET's commit, stops the run before c's fifth pass.
TEST(RunnerRunLoopExactness, StopPcAtTheReturnTarget) {
  Program p = call_return_loop(100);
  p.limits.stop_pc = kCode + 12;
  p.limits.stop_after_hits = 5;
  const Outcome o = run_both(p);
  ASSERT_EQ(o.result.reason, StopReason::StopPc) << o.result.detail;
  EXPECT_EQ(o.result.steps, 5u * 6 + 4u * 4);
  EXPECT_EQ(o.result.pc, kCode + 12);
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(3 * (1 + 2 + 3 + 4)));
  EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(3 * 5));
}

// A RET start whose _ReturnAddress is odd raises Fault_InstructionPC with
// the target as fault address at the BSTART attempt, before any effect
// (asl/block/model/dispatch/start.asl): the trap context holds the idle
// block at the BSTART's PC.  Entered first (`chained` false) and after a
// whole fused pass of a DIRECT block (chained into the RET block).
// a (kCode):      BSTART.STD DIRECT f ; a0 += 1 ; BSTOP
// f (kCode + 12): BSTART.STD RET ; a2 += 1 ; BSTOP
TEST(RunnerRunLoopExactness, ReturnToAnOddTargetFaultsAtItsStart) {
  constexpr Word kOdd = kCode + 0x41;
  for (const bool chained : {false, true}) {
    for (Word budget = 1; budget <= 7; ++budget) {
      Program p;
      p.code = {bstart("DIRECT", 12), enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}), enc("BSTOP", {}),
                enc_variant("BSTART.STD", "RET", {}), enc("ADDI", {{"RegDst", a2}, {"SrcL", a2}, {"uimm12", 1}}),
                enc("BSTOP", {})};
      p.code_base = chained ? kCode : kCode + 12;
      if (!chained) p.code.erase(p.code.begin(), p.code.begin() + 3);
      p.vector_code.assign(16, enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}));
      p.setup = [](Machine& m) { m.state.return_address = kOdd; };
      p.limits.max_steps = budget;
      const Outcome o = run_both(p);
      const Word fault_attempt = chained ? 4 : 1;
      EXPECT_EQ(o.result.steps, budget);
      EXPECT_EQ(o.state["gpr"][0][a2], pto::runner::hex_word(0)) << budget;
      EXPECT_EQ(o.state["system_registers"]["CYCLE"], pto::runner::hex_word(budget)) << budget;
      if (budget < fault_attempt) continue;
      EXPECT_EQ(o.result.pc, kVector + 4 * (budget - fault_attempt)) << budget;
      EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(budget - fault_attempt)) << budget;
      EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(chained ? 1 : 0)) << budget;
      EXPECT_EQ(o.state["return_address"], pto::runner::hex_word(kOdd)) << budget;
      const auto& context = o.state["rings"][0]["trap_context"];
      EXPECT_EQ(context["tpc"], pto::runner::hex_word(kCode + 12)) << budget;
      EXPECT_EQ(context["block"]["active"], false) << budget;
      EXPECT_EQ(o.fused_passes, chained ? 1u : 0u) << budget;
      if (budget == fault_attempt) {
        EXPECT_EQ(o.state["fault"]["last_fault"], "Fault_InstructionPC");
        EXPECT_EQ(o.state["fault"]["fault_address"], pto::runner::hex_word(kOdd));
      }
    }
  }
}

// The block a RET returns to, rewritten by a store: the RET's link to it
// (keyed by its run-time target) must die, and later rounds run the new body.
// a (kCode):      BSTART.CALL f, ->ra = c ; a0 += 1 ; a5 = (a0 & 4) << 13 ;
//                 a6 = a3 + a5 ; SW a2 -> [a6] ; BSTOP   (round 4 rewrites c)
// c (kCode + 28): BSTART.STD DIRECT a ; a1 += 1 (rewritten to a1 += 100) ; BSTOP
// f (kCode + 40): BSTART.STD RET ; a4 += 1 ; BSTOP
TEST(RunnerRunLoopExactness, ReturnTargetRewrittenByAStore) {
  constexpr Word kC = kCode + 28;
  Program p;
  p.code = {bstart_call(40, (28 - 2) / 2),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 4}}),
            enc("SLLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 13}}),
            enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
            enc("SWI", {{"SrcL", a2}, {"SrcR", a6}, {"simm12", 0}}),
            enc("BSTOP", {}),
            bstart("DIRECT", -28),
            enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}),
            enc("BSTOP", {}),
            enc_variant("BSTART.STD", "RET", {}),
            enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 1}}),
            enc("BSTOP", {})};
  static Word rewritten;
  rewritten = enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 100}});
  p.setup = [](Machine& m) {
    m.state.write_gpr(a2, rewritten);
    m.state.write_gpr(a3, kC + 4 - (Word{4} << 13));  // a0 & 4 == 0 stores below the code
  };
  p.limits.max_steps = 10 * 13;  // ten rounds of 7 + 3 + 3 attempts
  const Outcome o = run_both(p);
  EXPECT_EQ(o.result.reason, StopReason::MaxSteps);
  EXPECT_EQ(o.result.pc, kCode);
  EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(10));
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(10));
  EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(3 + 7 * 100));
}

// Indirect starts (not fused: they read the retiring block's BPCN) with a
// target that alternates between two fused blocks, which commit back:
// a  (kCode):      BSTART.STD FALL ; a0 += 1 ; a5 = (a0 & 1) << 4 ;
//                  a6 = a3 + a5 ; SETC.TGT a6 ; (no BSTOP)
// i  (kCode + 24): BSTART.STD IND, or BSTART.ICALL ->ra = kCode + 36 ;
//                  a2 += 1 ; BSTOP      (commits to a's BPCN: b1 or b2)
// b1 (kCode + 36): BSTART.STD DIRECT a ; a1 += 1 ; a1 += 0 ; BSTOP
// b2 (kCode + 52): BSTART.STD DIRECT a ; a4 += 1 ; a4 += 0 ; BSTOP
// 13 attempts a round; the budget ends at every attempt of rounds 6 and 7.
// With a3 odd the indirect start faults at its attempt (the 7th), before
// retiring a (asl/block/model/dispatch/start.asl).
TEST(RunnerRunLoopExactness, IndirectStartsWithVaryingTargets) {
  constexpr Word kB1 = kCode + 36;
  for (const bool call : {false, true}) {
    for (const bool odd : {false, true}) {
      for (Word budget = 13 * 6; budget < 13 * 8; ++budget) {
        Program p;
        p.code = {enc_variant("BSTART.STD", "FALL", {}),
                  enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
                  enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 1}}),
                  enc("SLLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 4}}),
                  enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
                  enc("SETC.TGT", {{"SrcL", a6}}),
                  call ? enc_variant("BSTART.ICALL", "", {{"uimm5", 5}}) : enc_variant("BSTART.STD", "IND", {}),
                  enc("ADDI", {{"RegDst", a2}, {"SrcL", a2}, {"uimm12", 1}}),
                  enc("BSTOP", {}),
                  bstart("DIRECT", -36),
                  enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}),
                  enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 0}}),
                  enc("BSTOP", {}),
                  bstart("DIRECT", -52),
                  enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 1}}),
                  enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 0}}),
                  enc("BSTOP", {})};
        p.vector_code.assign(100, enc("ADDI", {{"RegDst", 9}, {"SrcL", 9}, {"uimm12", 1}}));
        p.setup = odd ? +[](Machine& m) { m.state.write_gpr(a3, kB1 + 1); }
                      : +[](Machine& m) { m.state.write_gpr(a3, kB1); };
        p.limits.max_steps = budget;
        const Outcome o = run_both(p);
        EXPECT_EQ(o.result.steps, budget);
        if (odd) {
          EXPECT_EQ(o.result.pc, kVector + 4 * (budget - 7)) << budget;
          const auto& context = o.state["rings"][0]["trap_context"];
          EXPECT_EQ(context["tpc"], pto::runner::hex_word(kCode + 24)) << budget;
          EXPECT_EQ(context["block"]["active"], true) << budget;  // a, not retired
          EXPECT_EQ(context["block"]["barg"]["bpcn"], pto::runner::hex_word(kB1 + 1 + 16)) << budget;
          continue;
        }
        const Word rounds = budget / 13, attempt = budget % 13;
        const Word a0_now = rounds + (attempt >= 2);
        EXPECT_EQ(o.state["gpr"][0][a0], pto::runner::hex_word(a0_now)) << budget;
        // Rounds with a0 even went to b1, odd to b2.
        const Word b_passes = rounds + (attempt >= 11);
        EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(b_passes / 2)) << budget;
        EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word((b_passes + 1) / 2)) << budget;
        if (call && a0_now > 0 && (rounds > 0 || attempt >= 7)) {
          EXPECT_EQ(o.state["gpr"][0][10], pto::runner::hex_word(kB1)) << budget;
          EXPECT_EQ(o.state["return_address"], pto::runner::hex_word(kB1)) << budget;
        }
        EXPECT_EQ(o.fused_passes, rounds) << budget;  // b1 or b2, entered after the indirect block
      }
    }
  }
}

// ---- generated loop blocks: fused passes against the observed loop ----

// Forms a generated loop body draws from: fusable ones (register-only ALU,
// loads and stores, SETC) and a few that are not (MUL, SLL), so runs with
// and without a fusion, faults and queue reads all occur.
constexpr std::string_view kBodyForms[] = {
    "ADD",  "SUB",  "AND",  "OR",   "XOR",   "ADDW",  "SUBW",  "ANDW", "ORW",  "XORW",  "ADDI", "SUBI",
    "ANDI", "ORI",  "XORI", "ADDIW", "SUBIW", "SLLI", "SRLI",  "SRAI", "SLLIW", "SRLIW", "SRAIW", "MUL",
    "SLL",  "SRL",  "SRA",  "MIN",  "MINU",  "MAX",   "MAXU",  "LBI",  "LBUI", "LHI",  "LHUI",  "LWI",   "LWUI",  "LDI",  "LB",   "LBU",  "LH",   "LHU",
    "LW",   "LWU",  "LD",   "SBI",  "SHI",   "SWI",   "SDI",   "SB",   "SH",   "SW",   "SD"};
constexpr std::string_view kSetcForms[] = {"SETC.EQ",  "SETC.NE",  "SETC.LT",  "SETC.GE",  "SETC.LTU",
                                           "SETC.GEU", "SETC.EQI", "SETC.NEI", "SETC.LTI", "SETC.GEUI",
                                           "SETC.AND", "SETC.OR",  "SETC.ANDI"};

// Base registers of memory forms (never written by the body): the data
// table, a misaligned pointer into it, and the code page.
constexpr std::array<std::int64_t, 3> kBaseRegisters = {11, 12, 13};

class LoopGenerator {
 public:
  explicit LoopGenerator(std::uint64_t seed) : rng_(seed) {}

  std::int64_t uniform(std::int64_t lo, std::int64_t hi) {
    return std::uniform_int_distribution<std::int64_t>(lo, hi)(rng_);
  }
  Word bits() { return rng_(); }

  // One word of `mnemonic` with random operands in the ranges above.
  Word word(std::string_view mnemonic) {
    const auto& f = pto::isa::form(pto::isa::forms_of_mnemonic(*pto::isa::mnemonic_from_name(mnemonic)).front());
    const std::string_view text(f.asm_template);
    const auto bracket = text.find('[');
    const std::string_view base =
        bracket == std::string_view::npos ? std::string_view{} : text.substr(bracket + 1, 4);
    const auto fields = pto::isa::fields_of(f);
    for (;;) {
      std::vector<std::int64_t> values;
      for (const auto& field : fields) values.push_back(field_value(field, base));
      const auto encoded = pto::isa::encode(f, values);
      if (const auto* w = std::get_if<std::uint64_t>(&encoded)) return *w;
    }
  }

 private:
  std::int64_t field_value(const pto::isa::FieldDesc& field, std::string_view base) {
    const std::string_view name(field.name);
    if (name == "RegDst") return uniform(2, 10);
    if (name == base) return kBaseRegisters[static_cast<std::size_t>(uniform(0, 2))];
    // FSU carriers: FP64 or FP32 (2 and 3 break the catalog constraint now
    // and then), destination type codes 0..14 (above, rarely).
    if (name == "SrcType") return uniform(0, 15) == 0 ? uniform(2, 3) : uniform(0, 1);
    if (name == "DstType") return uniform(0, 30) == 0 ? uniform(15, 31) : uniform(0, 14);
    if (name.starts_with("Src") && name != "SrcRType") return uniform(0, 40) == 0 ? 24 : uniform(0, 10);  // t#1 rarely
    const std::int64_t top = (std::int64_t{1} << std::min<unsigned>(field.width, 12)) - 1;
    if (name == "SrcRType") return uniform(0, 3);
    if (name == "shamt") return uniform(0, std::min<std::int64_t>(top, 7));
    if (field.signedness == pto::isa::Signedness::Signed) return uniform(-4, 40);
    return uniform(0, std::min<std::int64_t>(top, 40));
  }

  std::mt19937_64 rng_;
};

// Seeds' register values and _ReturnAddress for the set-up hook (a plain
// function pointer).
std::array<Word, 11> g_initial_registers;
Word g_return_address = 0;
Word g_commit_target = 0;  // r14, which generated SETC.TGTs mostly read

// What generated bodies draw from besides kBodyForms and the SETCs: FSU
// forms (half the words), and a SETC.TGT now and then (three bodies in
// four; in one in fifteen of those a second one).
struct Mix {
  bool fsu = false;
  bool commit_target = false;
};

// The FSU forms (every scalar floating-point mnemonic): with GPR operands
// fused (docs/architecture.md "FSU forms"), with a queue source not.
constexpr std::string_view kFsuForms[] = {
    "FABS", "FEXP", "FRECIP", "FSQRT", "FADD",  "FSUB",   "FMUL",   "FDIV",  "FMIN",  "FMAX",
    "FEQ",  "FEQS", "FNE",    "FNES",  "FLT",   "FLTS",   "FGE",    "FGES",  "FMADD", "FMSUB",
    "FNMADD", "FNMSUB", "FCVT", "FCVTA", "FCVTM", "FCVTN", "FCVTP", "FCVTZ", "SCVTF", "UCVTF"};

// A random block body: 1 to 10 words of kBodyForms (with `fsu`, half of
// them kFsuForms), in a COND block mostly one SETC (twice faults the
// second), in half of them an ADD of ra.
std::vector<Word> generated_body(LoopGenerator& g, bool conditional, Mix mix = {}) {
  const auto body = static_cast<std::size_t>(g.uniform(1, 10));
  // COND blocks mostly set their condition once; twice faults the second.
  const std::int64_t setcs = conditional ? (g.uniform(0, 19) == 0 ? 2 : g.uniform(0, 9) != 0) : 0;
  std::vector<Word> words;
  for (std::size_t i = 0; i < body; ++i) {
    if (mix.fsu && g.uniform(0, 1) == 0) {
      words.push_back(g.word(kFsuForms[static_cast<std::size_t>(g.uniform(0, std::size(kFsuForms) - 1))]));
      continue;
    }
    words.push_back(g.word(kBodyForms[static_cast<std::size_t>(g.uniform(0, std::size(kBodyForms) - 1))]));
  }
  for (std::int64_t i = 0; i < setcs; ++i) {
    const auto at = static_cast<std::ptrdiff_t>(g.uniform(0, static_cast<std::int64_t>(words.size())));
    words.insert(words.begin() + at,
                 g.word(kSetcForms[static_cast<std::size_t>(g.uniform(0, std::size(kSetcForms) - 1))]));
  }
  // SETC.TGT of r14 (the commit target the set-up chose), or of a data
  // register now and then.
  const std::int64_t targets = mix.commit_target && g.uniform(0, 3) != 0 ? 1 + (g.uniform(0, 14) == 0) : 0;
  for (std::int64_t i = 0; i < targets; ++i) {
    const std::int64_t source = g.uniform(0, 7) == 0 ? g.uniform(2, 10) : 14;
    const auto at = static_cast<std::ptrdiff_t>(g.uniform(0, static_cast<std::int64_t>(words.size())));
    words.insert(words.begin() + at, enc("SETC.TGT", {{"SrcL", source}}));
  }
  // Now and then r14 flips its low bit after the SETC.TGTs: a target even
  // in one pass is odd in the next, so fused passes meet the BSTOP fault.
  if (targets > 0 && g.uniform(0, 3) == 0) words.push_back(enc("XORI", {{"RegDst", 14}, {"SrcL", 14}, {"simm12", 1}}));
  // Half the bodies add ra to a register somewhere, so the ra each pass of
  // a CALL block sees (its start's return target, or what the body wrote
  // before) reaches the state dump.
  if (g.uniform(0, 1) == 0) {
    const std::int64_t r = g.uniform(2, 9);
    const auto at = static_cast<std::ptrdiff_t>(g.uniform(0, static_cast<std::int64_t>(words.size())));
    words.insert(words.begin() + at, enc("ADD", {{"RegDst", r}, {"SrcL", r}, {"SrcR", 10}, {"SrcRType", 3}, {"shamt", 0}}));
  }
  return words;
}

// Carriers FSU bodies meet besides small integers: FP64 and FP32 ones,
// zeros of both signs, infinities, quiet and signalling NaNs.
constexpr Word kFpValues[] = {0x3FF0000000000000, 0xC008000000000000, 0x8000000000000000, 0x7FF0000000000000,
                              0x7FF8000000000000, 0x7FF0000000000001, 0x3F800000,         0xBFC00000,
                              0x80000000,         0x7F800000,         0x7FC00000,         0x7F800001,
                              0xFFFFFFFF80000000, 0x000FFFFFFFFFFFFF};

// The vector of a generated program (a loop block counting a1 up to a2,
// entered with the fault record of the trap still set), its registers
// (with `fsu`, a third of them FP carriers and a third random words) and
// _ReturnAddress (`return_address`, or now and then an odd one, which a
// RET start faults on).
// With mix.commit_target, r14 = `commit_target`, or now and then that plus 1
// (odd: the BSTOP after a SETC.TGT of it faults).
void generated_machine(LoopGenerator& g, Program& p, Word return_address, Mix mix = {}, Word commit_target = 0) {
  g_return_address = g.uniform(0, 9) == 0 ? return_address + 1 : return_address;
  g_commit_target = mix.commit_target && g.uniform(0, 7) == 0 ? commit_target + 1 : commit_target;
  p.vector_code = {bstart("COND", 0), enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}),
                   enc("SETC.NE", {{"SrcL", a1}, {"SrcR", a2}, {"SrcRType", 0}}), enc("BSTOP", {})};
  for (std::size_t r = 0; r < 9; ++r) {
    const std::int64_t kind = mix.fsu ? g.uniform(0, 2) : 0;
    g_initial_registers[r] = kind == 0   ? static_cast<Word>(g.uniform(0, 64))
                             : kind == 1 ? kFpValues[static_cast<std::size_t>(g.uniform(0, std::size(kFpValues) - 1))]
                                         : g.bits();
  }
  p.setup = [](Machine& m) {
    for (unsigned r = 2; r <= 10; ++r) m.state.write_gpr(r, g_initial_registers[r - 2]);
    m.state.write_gpr(11, kData);
    m.state.write_gpr(12, kData + 0x803);
    m.state.write_gpr(13, kCode + 0x400);
    m.state.return_address = g_return_address;
    m.state.write_gpr(14, g_commit_target);
  };
}

// BSTART.STD RET: commits to _ReturnAddress as the start reads it.
Word bstart_ret() { return enc_variant("BSTART.STD", "RET", {}); }

// A CALL block's start to `byte_offset`, with a random return target
// (the body may read ra, and writes it: RegDst reaches 10).
Word generated_call(LoopGenerator& g, std::int64_t byte_offset) { return bstart_call(byte_offset, g.uniform(0, 31)); }

// A CALL loop body that adds ra to a register first and writes ra later:
// each pass must see its start's return target, not the last pass's write.
void read_then_write_ra(LoopGenerator& g, std::vector<Word>& words) {
  const std::int64_t r = g.uniform(2, 9);
  words.insert(words.begin(), enc("ADD", {{"RegDst", r}, {"SrcL", r}, {"SrcR", 10}, {"SrcRType", 3}, {"shamt", 0}}));
  const auto at = static_cast<std::ptrdiff_t>(g.uniform(1, static_cast<std::int64_t>(words.size())));
  words.insert(words.begin() + at, enc("ADDI", {{"RegDst", 10}, {"SrcL", g.uniform(2, 9)}, {"uimm12", g.uniform(0, 40)}}));
}

// A loop block: DIRECT, CALL, COND or RET onto itself (a RET's
// _ReturnAddress its start, odd now and then, or the vector).
Program generated_loop(LoopGenerator& g, Mix mix = {}) {
  Program p;
  const std::int64_t transfer = g.uniform(0, 11);  // 0: DIRECT, 1 to 3: CALL, 4 to 9: COND, else RET
  const bool conditional = transfer >= 4 && transfer <= 9;
  p.code.push_back(conditional     ? bstart("COND", 0)
                   : transfer == 0 ? bstart("DIRECT", 0)
                   : transfer <= 3 ? generated_call(g, 0)
                                   : bstart_ret());
  std::vector<Word> words = generated_body(g, conditional, mix);
  if (transfer >= 1 && transfer <= 3 && g.uniform(0, 1) == 0) read_then_write_ra(g, words);
  p.code.insert(p.code.end(), words.begin(), words.end());
  p.code.push_back(enc("BSTOP", {}));
  const Word return_address = g.uniform(0, 7) == 0 ? kVector : kCode;
  generated_machine(g, p, return_address, mix, mix.commit_target && g.uniform(0, 5) == 0 ? kVector : kCode);
  p.limits.max_steps = static_cast<std::uint64_t>(g.uniform(1, 700));
  return p;
}

// A chain's CALL block at `pc` to `byte_offset`: half the time returning to
// `next` (the block after it) when the return offset reaches it
// (P + 2 + 2 * uimm5), else to a random return target.
Word call_in_chain(LoopGenerator& g, std::int64_t byte_offset, Word pc, Word next) {
  const Word reach = pc + 2 + 2 * 31;
  if (next <= reach && g.uniform(0, 1) == 0) return bstart_call(byte_offset, static_cast<std::int64_t>(next - pc - 2) / 2);
  return generated_call(g, byte_offset);
}

// Two to four generated blocks laid out one after the other, then an empty
// DIRECT block back to the first.  Each block commits to another (or
// itself): a COND block to a random block when its condition holds, else
// to the next; the others DIRECT or CALL to a random block, FALL to the
// next, or RET to _ReturnAddress (a CALL's return target is the next
// block's start when the encoding reaches it, half the time; the initial
// one a random block's start, odd now and then).
// So whole passes chain from block to block in every pattern.
Program generated_chain(LoopGenerator& g, Mix mix = {}) {
  Program p;
  const auto count = static_cast<std::size_t>(g.uniform(2, 4));
  std::vector<bool> conditional(count);
  std::vector<std::vector<Word>> bodies(count);
  std::vector<Word> starts(count);
  Word at = kCode;
  for (std::size_t k = 0; k < count; ++k) {
    conditional[k] = g.uniform(0, 2) != 0;
    bodies[k] = generated_body(g, conditional[k], mix);
    starts[k] = at;
    at += 4 * (bodies[k].size() + 2);
  }
  for (std::size_t k = 0; k < count; ++k) {
    const Word target = starts[static_cast<std::size_t>(g.uniform(0, static_cast<std::int64_t>(count) - 1))];
    const auto offset = static_cast<std::int64_t>(target - starts[k]);
    if (conditional[k]) {
      p.code.push_back(bstart("COND", offset));
    } else {
      const std::int64_t transfer = g.uniform(0, 3);
      p.code.push_back(transfer == 0   ? bstart("DIRECT", offset)
                       : transfer == 1 ? call_in_chain(g, offset, starts[k], k + 1 < count ? starts[k + 1] : at)
                       : transfer == 2 ? enc_variant("BSTART.STD", "FALL", {})
                                       : bstart_ret());
    }
    p.code.insert(p.code.end(), bodies[k].begin(), bodies[k].end());
    p.code.push_back(enc("BSTOP", {}));
  }
  p.code.push_back(bstart("DIRECT", static_cast<std::int64_t>(kCode - at)));
  p.code.push_back(enc("BSTOP", {}));
  const auto random_start = [&] { return starts[static_cast<std::size_t>(g.uniform(0, static_cast<std::int64_t>(count) - 1))]; };
  const Word return_address = random_start();
  generated_machine(g, p, return_address, mix, mix.commit_target ? random_start() : 0);
  p.limits.max_steps = static_cast<std::uint64_t>(g.uniform(1, 2000));
  return p;
}

// Programs made from seeds 1..count (each generator seeded with seed ^ salt)
// run in both tiers against the observed loop (run_both); `floor` is the
// number of fused and of translated passes the batch must reach, a sanity
// floor showing the fast paths ran, not a result.
template <class MakeProgram>
void expect_generated_programs_match(std::uint64_t count, std::uint64_t salt, std::uint64_t floor,
                                     MakeProgram make_program) {
  std::uint64_t fused = 0, translated = 0;
  for (std::uint64_t seed = 1; seed <= count; ++seed) {
    SCOPED_TRACE(::testing::Message() << "seed " << seed);
    LoopGenerator g(seed ^ salt);
    const Outcome o = run_both(make_program(g, seed));
    fused += o.fused_passes;
    translated += o.translated_passes;
    if (::testing::Test::HasFailure()) break;
  }
  EXPECT_GT(fused, floor);
  if (pto::runner::translation_supported()) {
    EXPECT_GT(translated, floor);
  }
}

// Each generated loop runs in the fast loop (fused where it can) and in the
// observed loop; the stops and the whole state dumps must agree.
TEST(RunnerRunLoopExactness, GeneratedLoopBlocksMatchTheObservedLoop) {
  expect_generated_programs_match(400, 0, 1000, [](LoopGenerator& g, std::uint64_t) { return generated_loop(g); });
}

// Generated chains of blocks (generated_chain) in both tiers against the
// observed loop: passes that commit to another fused block enter it fused.
TEST(RunnerRunLoopExactness, GeneratedBlockChainsMatchTheObservedLoop) {
  expect_generated_programs_match(300, 0xC4A1'0000'0000ull, 5000,
                                  [](LoopGenerator& g, std::uint64_t) { return generated_chain(g); });
}

// ---- FSU forms in fused blocks (docs/architecture.md "FSU forms") ----

using pto::arch::NumericProfileKind;

// FSU words with GPR operands.  SrcType 0 is FP64, 1 FP32; DstType is a
// destination carrier code (asl/scalar/model/fsu/profile.asl).
Word fsu_binary(std::string_view mnemonic, unsigned dst, unsigned left, unsigned right, unsigned type) {
  return enc(mnemonic, {{"RegDst", dst}, {"SrcL", left}, {"SrcR", right}, {"SrcType", type}});
}
Word fsu_unary(std::string_view mnemonic, unsigned dst, unsigned src, unsigned type) {
  return enc(mnemonic, {{"RegDst", dst}, {"SrcL", src}, {"SrcType", type}});
}
Word fsu_convert(std::string_view mnemonic, unsigned dst, unsigned src, unsigned type, unsigned dst_type) {
  return enc(mnemonic, {{"RegDst", dst}, {"SrcL", src}, {"SrcType", type}, {"DstType", dst_type}});
}

// A COND loop block counting a1 up to a2 around `body`.
Program fsu_loop(std::vector<Word> body, Word iterations, NumericProfileKind profile) {
  Program p;
  p.code.push_back(bstart("COND", 0));
  p.code.insert(p.code.end(), body.begin(), body.end());
  p.code.push_back(enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}));
  p.code.push_back(enc("SETC.NE", {{"SrcL", a1}, {"SrcR", a2}, {"SrcRType", 0}}));
  p.code.push_back(enc("BSTOP", {}));
  p.numeric = profile;
  static Word n;
  n = iterations;
  p.setup = [](Machine& m) {
    m.state.write_gpr(a2, n);
    m.state.write_gpr(a0, 0x0123456789ABCDEF);
    m.state.write_gpr(a4, 0xFEDCBA9876543211);
    m.state.write_gpr(a5, 0x1111111180000003);
    m.state.write_gpr(a6, 0x22222222FFFFFFFD);
    m.state.write_gpr(14, 0x00000000FFFF8001);
    m.state.write_gpr(17, 0xAAAAAAAAFFFFFFFE);
    m.state.write_gpr(19, 0xBBBBBBBB12345678);
    m.state.write_gpr(20, 7);
    m.state.write_gpr(21, 0x8000000000000000);  // FP64 -0: ScalarFPCarrierIsZero
  };
  p.limits.stop_pc = kCode + 4 * p.code.size();
  return p;
}

// The reference profile's FSU arithmetic (asl/arch/profile/reference-profile.asl,
// asl/scalar/model/dispatch/fsu.asl) on raw carriers, in a loop block whose
// passes run fused and translated: each register below derived by hand per
// pass (FP32 sources and results are the low word; FDIV by a zero carrier
// gives all ones and DZ).
TEST(RunnerRunLoopExactness, FsuLoopBlockInTheReferenceProfile) {
  constexpr Word kIterations = 300;
  const Program p = fsu_loop(
      {
          fsu_binary("FADD", a0, a0, a4, 0),                                         // FP64: a0 + a4
          fsu_binary("FMUL", a5, a5, a6, 1),                                         // FP32: low words' product
          enc("FNMSUB", {{"RegDst", 14}, {"SrcA", a0}, {"SrcL", 14}, {"SrcR", a4}, {"SrcType", 0}}),  // -(r14*a4 - a0)
          fsu_convert("FCVTZ", 15, a0, 0, 10),                                       // to S16: sign-extend a0[15:0]
          fsu_convert("SCVTF", 16, 14, 1, 1),                                        // S32 -> FP32: r14's low word
          fsu_unary("FEXP", 17, 17, 1),                                              // FP32: low word + 1
          fsu_unary("FABS", 18, 14, 0),                                              // FP64: sign bit clear
          fsu_unary("FSQRT", 19, 19, 1),                                             // FP32: the low word
          fsu_binary("FDIV", 22, 20, 21, 0),                                         // by -0: all ones, DZ
          fsu_convert("FCVT", 23, a4, 0, 4),                                         // FP64 -> FP16: a4[15:0]
      },
      kIterations, NumericProfileKind::Reference);
  const Outcome o = run_both(p);
  EXPECT_EQ(o.result.reason, StopReason::StopPc);
  EXPECT_EQ(o.result.steps, kIterations * 14);
  Word x = 0x0123456789ABCDEF, y = 0x1111111180000003, z = 0xFFFF8001, e = 0xAAAAAAAAFFFFFFFE;
  Word r15 = 0, r16 = 0, r18 = 0;
  for (Word i = 0; i < kIterations; ++i) {
    x += 0xFEDCBA9876543211;
    y = (y & 0xFFFFFFFF) * 0xFFFFFFFD & 0xFFFFFFFF;
    z = x - z * 0xFEDCBA9876543211;
    r15 = static_cast<Word>(static_cast<std::int16_t>(x & 0xFFFF));
    r16 = z & 0xFFFFFFFF;
    e = ((e & 0xFFFFFFFF) + 1) & 0xFFFFFFFF;
    r18 = z & 0x7FFFFFFFFFFFFFFF;
  }
  const auto& gpr = o.state["gpr"][0];
  EXPECT_EQ(gpr[a0], pto::runner::hex_word(x));
  EXPECT_EQ(gpr[a5], pto::runner::hex_word(y));
  EXPECT_EQ(gpr[14], pto::runner::hex_word(z));
  EXPECT_EQ(gpr[15], pto::runner::hex_word(r15));
  EXPECT_EQ(gpr[16], pto::runner::hex_word(r16));
  EXPECT_EQ(gpr[17], pto::runner::hex_word(e));
  EXPECT_EQ(gpr[18], pto::runner::hex_word(r18));
  EXPECT_EQ(gpr[19], pto::runner::hex_word(0x12345678));
  EXPECT_EQ(gpr[22], pto::runner::hex_word(~Word{0}));
  EXPECT_EQ(gpr[23], pto::runner::hex_word(0x3211));
  // DZ (CORE_STATE[33]) from FDIV; nothing else raises a flag here.
  EXPECT_EQ(o.state["system_registers"]["CORE_STATE"], pto::runner::hex_word(Word{1} << 33));
  EXPECT_EQ(o.fused_passes, kIterations);
  if (pto::runner::translation_supported()) {
    EXPECT_EQ(o.translated_passes, kIterations - 1);
  }
}

// In the ieee profile the FSU forms run their handlers inside fused passes
// (translated code calls them): 1.0 added 200 times is 200.0 exactly, FP32
// 0.5 * 3.0 = 1.5, and FMAX of an FP32 sNaN and 2.0 is 2.0 with NV
// (ADR 0050; CORE_STATE[32]).
TEST(RunnerRunLoopExactness, FsuLoopBlockInTheIeeeProfile) {
  constexpr Word kIterations = 200;
  Program p = fsu_loop({fsu_binary("FADD", 15, 15, 16, 0), fsu_binary("FMUL", 17, 18, 19, 1),
                        fsu_binary("FMAX", 20, 21, 22, 1)},
                       kIterations, NumericProfileKind::Ieee);
  p.setup = [](Machine& m) {
    m.state.write_gpr(a2, kIterations);
    m.state.write_gpr(16, 0x3FF0000000000000);  // 1.0
    m.state.write_gpr(18, 0x3F000000);          // 0.5f
    m.state.write_gpr(19, 0x40400000);          // 3.0f
    m.state.write_gpr(21, 0x7F800001);          // sNaN (FP32)
    m.state.write_gpr(22, 0x40000000);          // 2.0f
  };
  const Outcome o = run_both(p);
  EXPECT_EQ(o.result.reason, StopReason::StopPc);
  const auto& gpr = o.state["gpr"][0];
  EXPECT_EQ(gpr[15], pto::runner::hex_word(0x4069000000000000));  // 200.0
  EXPECT_EQ(gpr[17], pto::runner::hex_word(0x3FC00000));          // 1.5f
  EXPECT_EQ(gpr[20], pto::runner::hex_word(0x40000000));
  EXPECT_EQ(o.state["system_registers"]["CORE_STATE"], pto::runner::hex_word(Word{1} << 32));
  EXPECT_EQ(o.fused_passes, kIterations);
  if (pto::runner::translation_supported()) {
    EXPECT_EQ(o.translated_passes, kIterations - 1);
  }
}

// An FSU form reading a queue (t#1) has an admission pre-check: its block
// is not fused, and runs step by step (the pop faults on an empty queue).
TEST(RunnerRunLoopExactness, FsuFormReadingAQueueIsNotFused) {
  const Program p = fsu_loop({fsu_binary("FADD", 15, 15, 24, 0)}, 10, NumericProfileKind::Reference);
  const Outcome o = run_both(p);
  EXPECT_EQ(o.fused_passes, 0u);
}

// Even seeds in the reference profile, odd ones in the ieee profile.
Program in_alternating_profile(Program p, std::uint64_t seed) {
  p.numeric = seed % 2 == 0 ? NumericProfileKind::Reference : NumericProfileKind::Ieee;
  return p;
}

// Generated loop blocks and chains whose bodies mix FSU forms (random
// types, carriers, queue sources) with the other body forms, in both
// numeric profiles, in both tiers against the observed loop.
TEST(RunnerRunLoopExactness, GeneratedFsuLoopBlocksMatchTheObservedLoop) {
  expect_generated_programs_match(400, 0xF5F5'0000'0000ull, 1000, [](LoopGenerator& g, std::uint64_t seed) {
    return in_alternating_profile(generated_loop(g, {.fsu = true}), seed);
  });
}

TEST(RunnerRunLoopExactness, GeneratedFsuBlockChainsMatchTheObservedLoop) {
  expect_generated_programs_match(200, 0xF5C4'0000'0000ull, 2000, [](LoopGenerator& g, std::uint64_t seed) {
    return in_alternating_profile(generated_chain(g, {.fsu = true}), seed);
  });
}

// ---- SETC.TGT in fused blocks (docs/architecture.md "Commit targets") ----

// a (kCode): BSTART.STD DIRECT a ; addi a0, 1 ; andi a0, 1 -> a5 ;
//            slli a5, 4 ; add a3, a5 -> a6 ; setc.tgt a6 ; BSTOP
// b1 (a + 28): BSTART.STD DIRECT a ; addi a1, 1 ; addi a1, 0 ; BSTOP
// b2 (a + 44): BSTART.STD DIRECT a ; addi a4, 1 ; addi a4, 0 ; BSTOP
// SetCommitTarget replaces a's BPCN (its own start) with a6: b1 when a0 is
// even after the increment, b2 (16 bytes on) when odd; each b commits back
// to a.  With `odd`, b2's second ADDI adds 1 to a3 instead: after the
// first round, which goes to b2, the target is b1 + 1 and a's BSTOP in
// the second round — a fused pass, entered from b2 — faults
// (Fault_InstructionPC, the odd commit PC as fault address, a still
// active in the trap context: asl/block/model/commit/validation.asl); the
// vector runs ADDIs of r9.  `conditional`: a is a COND block whose
// condition (a5 == 0) holds on even rounds, and a3 starts at b2: even
// rounds take the target (a3 + 0 = b2), odd rounds commit to the
// continuation, b1 (the target, a3 + 16, is past b2).
constexpr Word kTargetB1 = kCode + 28;
Program commit_target_program(bool odd, bool conditional) {
  Program p;
  p.code = {conditional ? bstart("COND", 0) : bstart("DIRECT", 0),
            enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 1}}),
            enc("SLLI", {{"RegDst", a5}, {"SrcL", a5}, {"shamt", 4}}),
            enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 0}}),
            conditional ? enc("SETC.EQI", {{"SrcL", a5}, {"simm12", 0}}) : enc("SETC.TGT", {{"SrcL", a6}}),
            conditional ? enc("SETC.TGT", {{"SrcL", a6}}) : enc("BSTOP", {})};
  if (conditional) p.code.push_back(enc("BSTOP", {}));
  const Word b1 = kCode + 4 * p.code.size();
  p.code.insert(p.code.end(), {bstart("DIRECT", -static_cast<std::int64_t>(b1 - kCode)),
                               enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}),
                               enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 0}}), enc("BSTOP", {}),
                               bstart("DIRECT", -static_cast<std::int64_t>(b1 + 16 - kCode)),
                               enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 1}}),
                               odd ? enc("ADDI", {{"RegDst", a3}, {"SrcL", a3}, {"uimm12", 1}})
                                   : enc("ADDI", {{"RegDst", a4}, {"SrcL", a4}, {"uimm12", 0}}),
                               enc("BSTOP", {})});
  p.vector_code.assign(100, enc("ADDI", {{"RegDst", 9}, {"SrcL", 9}, {"uimm12", 1}}));
  static Word a3_value;
  a3_value = conditional ? b1 + 16 : b1;
  p.setup = [](Machine& m) { m.state.write_gpr(a3, a3_value); };
  return p;
}

// Every budget of two rounds (11 attempts each), then a long run: the
// counts by hand, and all but the first pass through each block fused and
// translated; with the odd target every budget up to the fault (the 18th
// attempt) and past it.
TEST(RunnerRunLoopExactness, CommitTargetSelectsTheNextBlock) {
  for (const bool odd : {false, true}) {
    for (Word budget = 1; budget <= 2 * 11 + 3; ++budget) {
      Program p = commit_target_program(odd, false);
      p.limits.max_steps = budget;
      const Outcome o = run_both(p);
      ASSERT_EQ(o.result.steps, budget);
      const auto& gpr = o.state["gpr"][0];
      if (odd) {
        // a's BSTOP in the second round (the 18th attempt) faults; the
        // vector runs from the 19th.
        EXPECT_EQ(gpr[9], pto::runner::hex_word(budget > 18 ? budget - 18 : 0)) << budget;
        if (budget == 18) {  // the vector's first attempt clears the fault record
          EXPECT_EQ(o.state["fault"]["last_fault"], "Fault_InstructionPC");
          EXPECT_EQ(o.state["fault"]["fault_address"], pto::runner::hex_word(kTargetB1 + 1));
        }
        if (budget >= 18) {
          const auto& context = o.state["rings"][0]["trap_context"];
          EXPECT_EQ(context["tpc"], pto::runner::hex_word(kCode + 24)) << budget;
          EXPECT_EQ(context["block"]["active"], true) << budget;
          EXPECT_EQ(context["block"]["barg"]["bpcn"], pto::runner::hex_word(kTargetB1 + 1)) << budget;
        }
        continue;
      }
      const Word rounds = budget / 11, attempt = budget % 11;
      const Word a0_now = rounds + (attempt >= 2);
      EXPECT_EQ(gpr[a0], pto::runner::hex_word(a0_now)) << budget;
      // Rounds with a0 even after the increment went to b1, odd to b2.
      const Word b_passes = rounds + (attempt >= 9);
      EXPECT_EQ(gpr[a1], pto::runner::hex_word(b_passes / 2)) << budget;
      EXPECT_EQ(gpr[a4], pto::runner::hex_word((b_passes + 1) / 2)) << budget;
    }
  }
  Program p = commit_target_program(false, false);
  p.limits.max_steps = 11 * 1000;
  const Outcome o = run_both(p);
  EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(500));
  EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(500));
  EXPECT_EQ(o.fused_passes, 2000u);
  if (pto::runner::translation_supported()) {
    EXPECT_GE(o.translated_passes, 1990u);  // all but the first passes through a, b1, b2
  }
}

// A COND block with SETC.TGT commits to the target only when its condition
// holds (BARGCommitPC): odd rounds go on to b1, even ones to the target
// b2; with `odd`, b2 (in round 2) makes the target odd and a's BSTOP in
// round 4 faults, the 44th attempt.
TEST(RunnerRunLoopExactness, CommitTargetOfAConditionalBlock) {
  for (const bool odd : {false, true}) {
    for (Word budget = 1; budget <= 4 * 12 + 3; ++budget) {
      Program p = commit_target_program(odd, true);
      p.limits.max_steps = budget;
      const Outcome o = run_both(p);
      ASSERT_EQ(o.result.steps, budget);
      if (odd) {
        EXPECT_EQ(o.state["gpr"][0][9], pto::runner::hex_word(budget > 44 ? budget - 44 : 0)) << budget;
        if (budget == 44) {  // b2 + 1 (b1 is 4 bytes later than in the DIRECT program)
          EXPECT_EQ(o.state["fault"]["fault_address"], pto::runner::hex_word(kTargetB1 + 4 + 16 + 1));
        }
        continue;
      }
      const Word rounds = budget / 12, attempt = budget % 12;
      const Word b_passes = rounds + (attempt >= 10);  // b's ADDI is the 10th attempt of a round
      EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word((b_passes + 1) / 2)) << budget;
      EXPECT_EQ(o.state["gpr"][0][a4], pto::runner::hex_word(b_passes / 2)) << budget;
    }
  }
  Program p = commit_target_program(false, true);
  p.limits.max_steps = 12 * 1000;
  const Outcome o = run_both(p);
  EXPECT_EQ(o.state["gpr"][0][a1], pto::runner::hex_word(500));
  EXPECT_EQ(o.fused_passes, 2000u);
}

// Generated loops and chains with SETC.TGT in their bodies (of r14: the
// block itself, another block, the vector, odd now and then; or of a data
// register), in both tiers against the observed loop.
TEST(RunnerRunLoopExactness, GeneratedCommitTargetBlocksMatchTheObservedLoop) {
  expect_generated_programs_match(300, 0x7A67'0000'0000ull, 2000, [](LoopGenerator& g, std::uint64_t seed) {
    return seed % 2 == 0 ? generated_loop(g, {.commit_target = true}) : generated_chain(g, {.commit_target = true});
  });
}

// A fault taken to a vector (EVBASE != 0) leaves the fault record set; the
// next attempt, at the vector, clears it again.
TEST(RunnerRunLoopExactness, FaultRecordClearedByTheAttemptAfterAVectoredFault) {
  Program p;
  p.code = {enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
            enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}})};  // a6 odd: misaligned
  p.vector_code = {enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}}),
                   enc("ADDI", {{"RegDst", a1}, {"SrcL", a1}, {"uimm12", 1}})};
  p.setup = [](Machine& m) { m.state.write_gpr(a6, kData + 1); };
  for (Word budget : {Word{2}, Word{3}, Word{4}}) {
    p.limits.max_steps = budget;
    const Outcome o = run_both(p);
    const bool faulted_last = budget == 2;
    EXPECT_EQ(o.state["fault"]["last_fault"], faulted_last ? "Fault_DataAlignment" : "Fault_None") << budget;
    EXPECT_EQ(o.state["fault"]["fault_address"], pto::runner::hex_word(faulted_last ? kData + 1 : 0)) << budget;
    EXPECT_EQ(o.result.pc, budget == 2 ? kVector : kVector + 4 * (budget - 2));
  }
}

// The observed loop records every load even after the fast loop used the
// hot page on the same machine.
TEST(RunnerRunLoopExactness, ObservedLoadsAfterFastLoads) {
  Program p = kernel_program(20);
  Machine m;
  load(m, p);
  Executor ex(m);
  p.limits.stop_pc.reset();
  p.limits.max_steps = 8 * 10;
  ASSERT_EQ(ex.run(p.limits).steps, 80u);
  CountingObserver observer;
  p.limits.max_steps = 8 * 5;
  ASSERT_EQ(ex.run(p.limits, &observer).steps, 40u);
  EXPECT_EQ(observer.loads, 5u);  // one LDI per iteration
}

// ---- the hot page of Memory::read_aligned ----

TEST(RunnerRunLoopExactness, HotPageFollowsWritesAndClear) {
  pto::arch::Memory mem;
  mem.write(kData, 8, 0x1122334455667788ull);
  EXPECT_EQ(mem.read_aligned(kData, 8), 0x1122334455667788ull);
  EXPECT_EQ(mem.read_aligned(kData + 8, 8), 0u);
  mem.write(kData + 8, 4, 0xAABBCCDDu);  // same page, after it became hot
  EXPECT_EQ(mem.read_aligned(kData + 8, 4), 0xAABBCCDDu);
  const std::uint8_t bytes[2] = {0x5A, 0xA5};
  mem.write_bytes(kData + 16, bytes);
  EXPECT_EQ(mem.read_aligned(kData + 16, 2), 0xA55Au);
  mem.fill(kData, 8, 0xEE);
  EXPECT_EQ(mem.read_aligned(kData, 8), 0xEEEEEEEEEEEEEEEEull);
  EXPECT_EQ(mem.read_aligned(kData + 0x1000, 8), 0u);  // another (absent) page
  EXPECT_EQ(mem.read_aligned(kData, 1), 0xEEu);
  mem.clear();  // ResetProfileState: every byte zero, the hot page dropped
  EXPECT_EQ(mem.read_aligned(kData, 8), 0u);
  EXPECT_EQ(mem.resident_bytes(), 0u);
}

// Data stores put a page in the fast write path before a program on it is
// decoded; a later guest store into the decoded word must be fetched again.
TEST(RunnerRunLoopExactness, StoreIntoCodeOnAPageStoredToBeforeDecode) {
  Machine m;
  Word v = 0;
  ASSERT_TRUE(m.store(kCode + 0x800, 8, 7));
  ASSERT_TRUE(m.load(kCode + 0x800, 8, v));
  EXPECT_EQ(v, 7u);
  m.memory.write(kCode, 4, enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}));
  m.state.pc = kCode;
  Executor ex(m);
  RunLimits one;
  one.max_steps = 1;
  ASSERT_EQ(ex.run(one).steps, 1u);
  ASSERT_TRUE(m.store(kCode, 4, enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 5}})));
  m.state.pc = kCode;
  ASSERT_EQ(ex.run(one).steps, 1u);
  EXPECT_EQ(m.state.read_gpr(a0), 6u);  // 1, then the rewritten + 5
}

// The fast path ends where an access could fault for some ACR: the
// reference profile limits ACR >= 2 to the first 3072 bytes
// (asl/arch/profile/reference-profile.asl), the model to 4096.
TEST(RunnerRunLoopExactness, LoadsAtTheFastPathLimit) {
  Machine m(pto::arch::MachineConfig::reference());
  m.memory.write(3064, 8, 0x0102030405060708ull);
  m.memory.write(3072, 8, 0x1112131415161718ull);
  m.state.pc = 0x100;
  Word v = 0;
  ASSERT_TRUE(m.load(3064, 8, v));
  EXPECT_EQ(v, 0x0102030405060708ull);
  ASSERT_TRUE(m.load(3072, 8, v));  // ACR0: below the model limit
  EXPECT_EQ(v, 0x1112131415161718ull);
  ASSERT_TRUE(m.load(4088, 8, v));
  EXPECT_FALSE(m.load(4096, 8, v));
  EXPECT_EQ(m.state.last_fault, FaultCode::Fault_DataPage);
  m.reset();
  m.set_current_acr(2);
  m.memory.write(3064, 8, 7);
  ASSERT_TRUE(m.load(3064, 8, v));
  EXPECT_EQ(v, 7u);
  EXPECT_FALSE(m.load(3072, 8, v));
  EXPECT_EQ(m.state.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(m.state.fault_address, 3072u);
}

}  // namespace
