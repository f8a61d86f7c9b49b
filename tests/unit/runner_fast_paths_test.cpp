// The specialised handlers predecode installs (src/runner/dispatch.cpp):
// the self-checking SETC.* (ScalarOperationApplicable,
// asl/scalar/model/sys/semantics.asl) and the register-only immediate loads
// (ProbeDataAccess, asl/scalar/model/agu/memory.asl) must raise exactly the
// faults, in the order, of the generic admission and handlers.
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "arch/machine.hpp"
#include "encode_mnemonic.hpp"
#include "isa/decoder.hpp"
#include "runner/dispatch.hpp"
#include "runner/executor.hpp"

namespace {

using pto::arch::FaultCode;
using pto::arch::Word;
using pto::runner::Executor;
using pto::test::enc;
using pto::runner::RunLimits;
using pto::runner::StopReason;
using pto::scalar::ExecOutcome;

constexpr Word kCode = 0x10000, kData = 0x20000;
constexpr Word kBstartCondSelf = 0x00003001;  // BSTART.STD COND, offset 0
constexpr unsigned kT1 = 24;                  // Reg5 selector of t#1
enum : unsigned { a0 = 2, a1 = 3, a2 = 4, a6 = 8 };

void store_words(pto::arch::Machine& m, Word pc, const std::vector<Word>& words) {
  for (Word w : words) {
    m.memory.write(pc, 4, w);
    pc += 4;
  }
}

// Runs `words` from kCode in the fast loop until it stops.
pto::runner::RunResult run_program(pto::arch::Machine& m, const std::vector<Word>& words) {
  store_words(m, kCode, words);
  m.state.pc = kCode;
  Executor ex(m);
  RunLimits limits;
  limits.max_steps = 100;
  return ex.run(limits);
}

pto::scalar::Handler table_handler(const pto::scalar::DecodedInsn& d) {
  return pto::scalar::handler_table().get(d.mnemonic);
}

TEST(RunnerFastPaths, PredecodeSpecialisesOnlyRecordsWithoutOtherPreChecks) {
  const auto setc = pto::runner::predecode(enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}}), 32);
  EXPECT_EQ(setc.prechecks, 0u);
  EXPECT_NE(setc.handler, table_handler(setc));
  const auto setc_queue = pto::runner::predecode(enc("SETC.NE", {{"SrcL", kT1}, {"SrcR", a1}}), 32);
  EXPECT_NE(setc_queue.prechecks & pto::scalar::kCheckApplicability, 0u);
  EXPECT_EQ(setc_queue.handler, table_handler(setc_queue));

  const auto ldi = pto::runner::predecode(enc("LDI", {{"RegDst", a2}, {"SrcL", a6}}), 32);
  EXPECT_NE(ldi.handler, table_handler(ldi));
  const auto ldi_r0 = pto::runner::predecode(enc("LDI", {{"RegDst", 0}, {"SrcL", a6}}), 32);
  EXPECT_EQ(ldi_r0.handler, table_handler(ldi_r0));
  const auto ldi_queue = pto::runner::predecode(enc("LDI", {{"RegDst", a2}, {"SrcL", kT1}}), 32);
  EXPECT_EQ(ldi_queue.handler, table_handler(ldi_queue));
}

// A second condition setter in one COND block is not applicable: the fault
// comes before any effect (the first SETC's result stays).
TEST(RunnerFastPaths, SecondConditionSetterInABlockFaultsBundleControl) {
  pto::arch::Machine m;
  m.state.write_gpr(a0, 1);
  m.state.write_gpr(a1, 2);
  const auto r = run_program(m, {kBstartCondSelf, enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}}),
                                 enc("SETC.EQ", {{"SrcL", a0}, {"SrcR", a1}}), enc("BSTOP", {})});
  EXPECT_EQ(r.reason, StopReason::Fault);
  EXPECT_EQ(r.steps, 3u);
  EXPECT_EQ(r.fault, FaultCode::Fault_BundleControl);
  EXPECT_EQ(r.fault_pc, kCode + 8);
  EXPECT_EQ(r.fault_address, kCode + 8);
  EXPECT_EQ(m.state.commit_argument, 1u);  // SETC.NE 1, 2 held; SETC.EQ wrote nothing
  EXPECT_TRUE(m.state.block.barg.taken);
  EXPECT_EQ(m.state.sysregs.cycle, 3u);
}

// Applicability is decided before Reg5 queue validity (ExecuteScalarInstruction).
TEST(RunnerFastPaths, ApplicabilityFaultPrecedesAnInvalidQueueOperand) {
  pto::arch::Machine m;
  const auto r = run_program(m, {kBstartCondSelf, enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}}),
                                 enc("SETC.EQ", {{"SrcL", kT1}, {"SrcR", a1}}), enc("BSTOP", {})});
  EXPECT_EQ(r.fault, FaultCode::Fault_BundleControl);
  EXPECT_EQ(r.fault_pc, kCode + 8);
}

TEST(RunnerFastPaths, ApplicableSetterWithAnEmptyQueueOperandIsIllegal) {
  pto::arch::Machine m;
  const auto r = run_program(m, {kBstartCondSelf, enc("SETC.EQ", {{"SrcL", kT1}, {"SrcR", a1}}), enc("BSTOP", {})});
  EXPECT_EQ(r.fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(r.fault_pc, kCode + 4);
  EXPECT_FALSE(m.state.block.condition_set);
}

TEST(RunnerFastPaths, ConditionSetterOutsideABlockFaultsWithoutEffect) {
  pto::arch::Machine m;
  m.state.pc = kCode;
  m.state.commit_argument = 5;
  const auto o = pto::runner::execute_instruction(m, enc("SETC.EQ", {{"SrcL", a0}, {"SrcR", a1}}), 32);
  EXPECT_EQ(o, pto::scalar::fault_outcome(FaultCode::Fault_BundleControl));
  EXPECT_EQ(m.state.last_fault, FaultCode::Fault_BundleControl);
  EXPECT_EQ(m.state.fault_address, kCode);
  EXPECT_EQ(m.state.commit_argument, 5u);
  EXPECT_FALSE(m.state.block.condition_set);
}

struct LoadCase {
  const char* mnemonic;
  Word base;
  FaultCode fault;  // Fault_None: loads `expected`
  Word expected;
};

// One load through the predecoded (specialised) record and one through the
// table handler, on separate machines: the same outcome, fault record,
// destination and TPC, and both equal to the hand-derived result.
TEST(RunnerFastPaths, RegisterOnlyLoadsMatchTheGenericHandler) {
  constexpr Word kLimit = Word{1} << 48;  // MemoryConfig::address_limit (default)
  const LoadCase cases[] = {
      {"LDI", kData, FaultCode::Fault_None, 0x8877665544332211ull},
      {"LWI", kData + 8, FaultCode::Fault_None, 0xFFFFFFFF88776655ull},  // simm12 1 << 2: the upper word, sign-extended
      {"LWUI", kData + 8, FaultCode::Fault_None, 0x88776655ull},
      {"LDI", kData + 4, FaultCode::Fault_DataAlignment, 0},  // alignment before page
      {"LDI", kLimit - 8, FaultCode::Fault_DataPage, 0},      // + 8: past the address limit
      {"LWI", kLimit - 4, FaultCode::Fault_DataPage, 0},
  };
  for (const LoadCase& c : cases) {
    SCOPED_TRACE(std::string(c.mnemonic) + " base " + std::to_string(c.base));
    pto::scalar::DecodedInsn fast = pto::runner::predecode(enc(c.mnemonic, {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 1}}), 32);
    ASSERT_NE(fast.handler, table_handler(fast));
    pto::scalar::DecodedInsn generic = fast;
    generic.handler = table_handler(fast);
    const Word address = c.base + (std::string_view(c.mnemonic) == "LDI" ? 8 : 4);
    for (const auto* d : {&fast, &generic}) {
      pto::arch::Machine m;
      m.memory.write(kData, 8, 0x1122334455667788ull);
      m.memory.write(kData + 8, 8, 0x8877665544332211ull);
      m.state.pc = kCode;
      m.state.write_gpr(a6, c.base);
      m.state.write_gpr(a2, 0xABCD);
      const ExecOutcome o = pto::runner::execute(m, *d);
      EXPECT_EQ(m.state.last_fault, c.fault);
      if (c.fault == FaultCode::Fault_None) {
        EXPECT_EQ(o, ExecOutcome::Next);
        EXPECT_EQ(m.state.read_gpr(a2), c.expected);
        EXPECT_EQ(m.state.pc, kCode + 4);
      } else {
        EXPECT_EQ(o, pto::scalar::fault_outcome(c.fault));
        EXPECT_EQ(m.state.fault_address, address);
        EXPECT_EQ(m.state.read_gpr(a2), 0xABCDu);  // legality before effects
      }
    }
  }
}

}  // namespace
