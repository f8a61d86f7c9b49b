// Hand translations of spec test points under tests/asl/block/{lifecycle,
// encoding,operands,model/*} and tests/asl/arch/{state,programming-model,
// memory-model} that the automatic extractor skips (they poke model state or
// call ASL helpers).  Each test drives the architectural counterpart: encoded
// instruction words through runner::execute_instruction (the spec's
// ExecuteCommandInstruction), or the machine API that implements the same ASL
// function (Machine::set_fault = SetFaultWithCause, recover_trap_context =
// RecoverTrapContext, block::begin_bundle_at / stop_bundle_at /
// complete_bundle / enter_bundle_body).  Expected values are the points' own
// assertions.  ResetProfileState = a fresh reference-profile machine.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <utility>
#include <vector>

#include "arch/machine.hpp"
#include "block/control.hpp"
#include "bundle_test_host.hpp"
#include "isa/length.hpp"
#include "runner/dispatch.hpp"
#include "scalar_harness.hpp"
#include "tile/tile_state.hpp"

namespace pto::test {
namespace {

using arch::BundleKind;
using arch::BundleTransfer;
using arch::FaultCode;
using arch::Word;

enum class Cmd { Executed, Rejected, NotImplemented };

// A reference-profile machine (ResetProfileState) and the
// ExecuteCommandInstruction(raw, length) entry.
constexpr Word kEvbaseRing1 = 0x900;  // PTOv0WriteContextRegister(1, 0x0f01, 0x900)

struct Core {
  arch::Machine m{arch::MachineConfig::reference()};
  arch::State& s = m.state;

  Cmd exec(std::uint64_t raw, unsigned length_bits = 32) {
    const scalar::ExecOutcome o = runner::execute_instruction(m, raw, length_bits);
    if (scalar::is_success(o)) return Cmd::Executed;
    return scalar::is_fault(o) ? Cmd::Rejected : Cmd::NotImplemented;
  }
  std::uint8_t byte(Word a) const { return static_cast<std::uint8_t>(m.memory.read(a, 1)); }
  void poke(Word a, std::uint8_t v) { m.memory.write(a, 1, v); }
  // The restart points run at `pc` under ACR2, whose faults trap into ring 1
  // (TrapTargetForFault) at kEvbaseRing1.
  void run_in_acr2_at(Word pc) {
    m.set_current_acr(2);
    s.banked_reg(1, arch::kEvbaseLow) = kEvbaseRing1;
    s.pc = pc;
    m.clear_fault();
  }
  // RecoverTrapContext(1), then the retry runs under ACR0.
  void recover_for_retry() {
    ASSERT_TRUE(m.recover_trap_context(1));
    m.set_current_acr(0);
    m.clear_fault();
  }
  // The ring-1 context holds a frame template that adjusted sp and restored
  // nothing yet.
  void expect_saved_template_unstarted() const {
    const arch::FrameTemplateState& f = s.trap_contexts[1].block.frame_template;
    EXPECT_TRUE(f.active);
    EXPECT_TRUE(f.stack_adjusted);
    EXPECT_EQ(f.progress, 0U);
  }
};

// Frame-template words: FENTRY 0x0041, FEXIT 0x1041, FRET.STK 0x3041;
// Begin [19:15], End [24:20], size[9:3] -> [31:25], size[14:10] -> [11:7].
constexpr std::uint64_t frame_word(std::uint32_t match, unsigned begin, unsigned end, Word size) {
  return match | (std::uint64_t{begin} << 15) | (std::uint64_t{end} << 20) | (((size >> 3) & 0x7F) << 25) |
         (((size >> 10) & 0x1F) << 7);
}
constexpr std::uint64_t fentry(unsigned b, unsigned e, Word size) { return frame_word(0x00000041, b, e, size); }
constexpr std::uint64_t fexit(unsigned b, unsigned e, Word size) { return frame_word(0x00001041, b, e, size); }
constexpr std::uint64_t fret_stk(unsigned b, unsigned e, Word size) { return frame_word(0x00003041, b, e, size); }
// MCOPY: RegSrc0 (destination) [19:15], RegSrc1 (source) [24:20], RegSrc2 (length) [31:27].
constexpr std::uint64_t mcopy(unsigned dst, unsigned src, unsigned len) {
  return 0x00000031 | (std::uint64_t{dst} << 15) | (std::uint64_t{src} << 20) | (std::uint64_t{len} << 27);
}
// SETC.TGT SrcL [19:15]; SETC.EQ SrcL [19:15], SrcR [24:20], SrcRType 0 (GPR).
constexpr std::uint64_t setc_tgt(unsigned src) { return 0x0000403b | (std::uint64_t{src} << 15); }
constexpr std::uint64_t setc_eq(unsigned l, unsigned r) {
  return 0x00000065 | (std::uint64_t{l} << 15) | (std::uint64_t{r} << 20);
}
constexpr std::uint64_t kBstartTloadU64 = 0x00011181;  // BSTART.TLSU Function 0, DataType 0 (as the points)

// ================================================================ B.HINT

// PTO-AVS-BLOCK-B-HINT-DUPLICATE-001 (asl/block/lifecycle/B.HINT.asl,
// dispatch/commands.asl): a header takes one ordinary B.HINT; the second is
// Fault_BundleControl and the first decoded payload stays.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_B_HINT_DUPLICATE_001) {
  Core c;
  c.s.pc = 0x100;
  ASSERT_EQ(c.exec(kBstartTloadU64), Cmd::Executed);
  const std::uint64_t first =
      0x00000033 | (1ULL << 15) | (1ULL << 16) | (3ULL << 17) | (std::uint64_t{64} << 20);  // V, L/UL, temp 3, size 64
  ASSERT_EQ(c.exec(first), Cmd::Executed);
  const Word saved = c.s.last_bundle_hint_payload;
  const std::uint64_t second = 0x00000033 | (1ULL << 15) | (1ULL << 17);  // V, temp 1
  EXPECT_EQ(c.exec(second), Cmd::Rejected);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_BundleControl);
  EXPECT_EQ(c.s.last_bundle_hint_payload, saved);
}

// PTO-AVS-BLOCK-B-HINT-PLACEMENT-001: an ordinary B.HINT outside a block and
// in a block body is Fault_BundleControl and records no hint.  The ASL's
// _BundleHintEpoch (a model counter) maps to "no hint recorded": our hint
// payload record and the header's hint.present stay clear.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_B_HINT_PLACEMENT_001) {
  {
    Core c;
    c.s.pc = 0x200;
    EXPECT_EQ(c.exec(0x00000033), Cmd::Rejected);
    EXPECT_EQ(c.s.last_fault, FaultCode::Fault_BundleControl);
    EXPECT_EQ(c.s.last_bundle_hint_payload, 0U);
    EXPECT_FALSE(c.s.block.hint.present);
  }
  {
    Core c;
    c.s.pc = 0x240;
    ASSERT_EQ(c.exec(kBstartTloadU64), Cmd::Executed);
    block::enter_bundle_body(c.m);
    EXPECT_EQ(c.exec(0x00000033), Cmd::Rejected);
    EXPECT_EQ(c.s.last_fault, FaultCode::Fault_BundleControl);
    EXPECT_EQ(c.s.last_bundle_hint_payload, 0U);
    EXPECT_FALSE(c.s.block.hint.present);
  }
}

// ================================================================ BSTART / BSTOP

// PTO-AVS-BLOCK-BSTART-BPCN-ALIGN-001 (BSTART.asl, commit/validation.asl):
// SETC.TGT (the instruction whose semantics is SetCommitTarget) moves BPCN to
// an odd 0x501; the commit raises Fault_InstructionPC before clearing BARG,
// and the saved trap context holds the active block with that BPCN.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_BSTART_BPCN_ALIGN_001) {
  Core c;
  c.s.pc = 0x300;
  block::begin_bundle_at(c.m, c.s.pc, BundleKind::Standard, BundleTransfer::Direct, 0x500, 0x304, 0, true);
  ASSERT_EQ(c.s.last_fault, FaultCode::Fault_None);
  block::enter_bundle_body(c.m);
  c.s.write_gpr(5, 0x501);
  ASSERT_EQ(c.exec(setc_tgt(5)), Cmd::Executed);
  EXPECT_TRUE(scalar::is_fault(block::complete_bundle(c.m, 0x304)));
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_InstructionPC);
  EXPECT_EQ(c.s.trap_contexts[0].block.barg.bpcn, 0x501U);
  EXPECT_TRUE(c.s.trap_contexts[0].block.bundle_active);
  EXPECT_EQ(c.s.block.barg.bpcn, 0x501U);
}

// PTO-AVS-BLOCK-BSTART-COND-SETC-001 (BSTART.asl, bru/semantics.asl): BSTART
// COND (offset 4 halfwords -> BPCN 0x208) starts with TAKEN false; a true
// SETC.EQ in the body (ExecuteSetCommit(EQ, 1, 1)) makes the commit select BPCN.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_BSTART_COND_SETC_001) {
  Core c;
  c.s.pc = 0x200;
  const std::uint64_t conditional = 0x00000021 | (std::uint64_t{4} << 7);
  ASSERT_EQ(c.exec(conditional), Cmd::Executed);
  EXPECT_FALSE(c.s.block.barg.taken);
  block::enter_bundle_body(c.m);
  c.s.write_gpr(2, 1);
  c.s.write_gpr(3, 1);
  ASSERT_EQ(c.exec(setc_eq(2, 3)), Cmd::Executed);
  EXPECT_FALSE(scalar::is_fault(block::complete_bundle(c.m, 0x280)));
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(c.s.pc, 0x208U);
}

// PTO-AVS-BLOCK-BSTOP-CLEAR-001 (BSTOP.asl, lifecycle/enter-stop.asl): a
// successful retirement clears dimensions, scalar bindings, the hint and the
// active/header state.  The ASL's direct helper calls become the header
// commands B.DIM LB0 #7, B.IOR and an ordinary B.HINT.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_BSTOP_CLEAR_001) {
  Core c;
  c.s.pc = 0x300;
  ASSERT_EQ(c.exec(0x00000011), Cmd::Executed);
  ASSERT_EQ(c.exec(bdim(0, 7)), Cmd::Executed);
  ASSERT_EQ(c.exec(bior(2, 3, 4)), Cmd::Executed);
  ASSERT_EQ(c.exec(0x00000033 | (1ULL << 15)), Cmd::Executed);
  ASSERT_TRUE(c.s.block.dimension_present[0]);
  ASSERT_TRUE(c.s.block.scalar_bindings[0].valid);
  ASSERT_TRUE(c.s.block.hint.present);
  EXPECT_FALSE(scalar::is_fault(block::complete_bundle(c.m, 0x380)));
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_FALSE(c.s.block.bundle_active);
  EXPECT_FALSE(c.s.block.bundle_body_active);
  EXPECT_FALSE(c.s.block.dimension_present[0]);
  EXPECT_FALSE(c.s.block.scalar_bindings[0].valid);
  EXPECT_FALSE(c.s.block.hint.present);
  EXPECT_FALSE(c.s.block.operation.valid);
}

// ================================================================ reserved forms

// Shared body of PTO-AVS-BLOCK-ERCOV-RSVD-001 / ESAVE-RSVD-001: the boundary
// selector forms are Fault_IllegalInstruction at the current TPC with the
// memory-command, control-request and frame records untouched.
void expect_context_command_reserved(std::uint64_t raw, Word pc) {
  Core c;
  c.s.pc = pc;
  c.s.last_memory_command_address = ~Word{0};
  c.s.last_memory_command_size = ~Word{0};
  c.s.bookkeeping.control_request_operand = ~Word{0};
  c.s.last_frame_begin = 31;
  EXPECT_EQ(c.exec(raw), Cmd::Rejected) << std::hex << raw;
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(c.s.pc, pc);
  EXPECT_EQ(c.s.last_memory_command_address, ~Word{0});
  EXPECT_EQ(c.s.last_memory_command_size, ~Word{0});
  EXPECT_EQ(c.s.bookkeeping.control_request_operand, ~Word{0});
  EXPECT_EQ(c.s.last_frame_begin, 31U);
}

// PTO-AVS-BLOCK-ERCOV-RSVD-001 (ERCOV.asl)
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_ERCOV_RSVD_001) {
  expect_context_command_reserved(0x00003031, 0x500);
  expect_context_command_reserved(0xf9ffb031, 0x500);
}

// PTO-AVS-BLOCK-ESAVE-RSVD-001 (ESAVE.asl)
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_ESAVE_RSVD_001) {
  expect_context_command_reserved(0x00002031, 0x540);
  expect_context_command_reserved(0xf9ffa031, 0x540);
}

// PTO-AVS-BLOCK-XB-RSVD-001 (encoding/XB.asl): both boundary forms are
// Fault_IllegalInstruction at the current TPC and leave BARG alone.  Not
// expressed: _LastCrossBlockACR / _LastCrossBlockID (our model keeps no
// cross-block record because XB is unsupported, which is the point's
// InstructionContractSupported_XB() == FALSE) and the contract-table query
// itself (a model helper).
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_XB_RSVD_001) {
  for (const std::uint64_t raw : {std::uint64_t{0x00006f81}, std::uint64_t{0xffffef81}}) {
    Core c;
    c.s.pc = 0x240;
    c.s.block.barg.transfer_type = BundleTransfer::Return;
    EXPECT_EQ(c.exec(raw), Cmd::Rejected) << std::hex << raw;
    EXPECT_EQ(c.s.last_fault, FaultCode::Fault_IllegalInstruction);
    EXPECT_EQ(c.s.pc, 0x240U);
    EXPECT_EQ(c.s.block.barg.transfer_type, BundleTransfer::Return);
  }
}

// ================================================================ frame templates

// PTO-AVS-BLOCK-FENTRY-RANGE-001 (FENTRY.asl, lifecycle/lifetime.asl): a
// begin below R2, an end above R23 and a frame smaller than the saved
// registers are Fault_IllegalInstruction with sp, memory, frame depth, the
// template and TPC unchanged.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_FENTRY_RANGE_001) {
  struct Case {
    unsigned begin, end;
    Word size;
  };
  for (const Case k : {Case{1, 3, 16}, Case{2, 24, 16}, Case{2, 4, 16}}) {
    Core c;
    c.s.pc = 0x540;
    c.s.write_gpr(2, 0x300);
    c.poke(0x2f8, 0xaa);
    EXPECT_EQ(c.exec(fentry(k.begin, k.end, k.size)), Cmd::Rejected) << k.begin << ".." << k.end;
    EXPECT_EQ(c.s.last_fault, FaultCode::Fault_IllegalInstruction);
    EXPECT_EQ(c.s.read_gpr(2), 0x300U);
    EXPECT_EQ(c.byte(0x2f8), 0xaaU);
    EXPECT_EQ(c.s.frame_depth, 0U);
    EXPECT_FALSE(c.s.block.frame_template.active);
    EXPECT_EQ(c.s.pc, 0x540U);
  }
}

// PTO-AVS-BLOCK-FEXIT-RESTART-001 (FEXIT.asl, arch/state/trap-context.asl):
// under ACR2 the restore load from 3072 page-faults after sp was adjusted;
// the ring-1 trap context keeps the template with zero progress.  After
// recovery under ACR0 the retry completes once without adding sp again.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_FEXIT_RESTART_001) {
  Core c;
  const Word instruction_pc = 0x5c0;
  c.poke(3072, 0x77);
  c.s.write_gpr(2, 3072);
  c.run_in_acr2_at(instruction_pc);
  const std::uint64_t word = fexit(3, 3, 8);
  EXPECT_EQ(c.exec(word), Cmd::Rejected);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(c.s.read_gpr(2), 3080U);
  c.expect_saved_template_unstarted();

  c.recover_for_retry();
  EXPECT_EQ(c.exec(word), Cmd::Executed);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(c.s.read_gpr(2), 3080U);
  EXPECT_EQ(c.s.read_gpr(3) & 0xFF, 0x77U);
  EXPECT_FALSE(c.s.block.frame_template.active);
  EXPECT_EQ(c.s.pc, instruction_pc + 4);
}

// PTO-AVS-BLOCK-FRET-STK-RANGE-001 (FRET.STK.asl): the restore range must
// begin at ra (R10); begin R9 is Fault_IllegalInstruction before any effect.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_FRET_STK_RANGE_001) {
  Core c;
  c.s.pc = 0x680;
  c.s.write_gpr(2, 0x2f8);
  c.s.frame_depth = 1;
  EXPECT_EQ(c.exec(fret_stk(9, 10, 16)), Cmd::Rejected);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(c.s.read_gpr(2), 0x2f8U);
  EXPECT_EQ(c.s.pc, 0x680U);
  EXPECT_EQ(c.s.frame_depth, 1U);
  EXPECT_FALSE(c.s.block.frame_template.active);
}

// PTO-AVS-BLOCK-FRET-STK-RESTART-003 (FRET.STK.asl, trap-context.asl): the
// slot-zero target load from 3072 page-faults under ACR2 after sp moved to
// 3080; the retry after recovery loads 0x900 into ra and jumps there once.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_FRET_STK_RESTART_003) {
  Core c;
  const Word instruction_pc = 0x6c0;
  c.poke(3072, 0x00);
  c.poke(3073, 0x09);
  c.s.write_gpr(2, 3072);
  c.s.write_gpr(10, 0x777);
  c.s.return_address = 0x777;
  c.s.frame_depth = 1;
  c.run_in_acr2_at(instruction_pc);
  const std::uint64_t word = fret_stk(10, 10, 8);
  EXPECT_EQ(c.exec(word), Cmd::Rejected);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(c.s.read_gpr(2), 3080U);
  EXPECT_EQ(c.s.read_gpr(10), 0x777U);
  c.expect_saved_template_unstarted();

  c.recover_for_retry();
  EXPECT_EQ(c.exec(word), Cmd::Executed);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(c.s.read_gpr(2), 3080U);
  EXPECT_EQ(c.s.read_gpr(10), 0x900U);
  EXPECT_EQ(c.s.return_address, 0x900U);
  EXPECT_EQ(c.s.pc, 0x900U);
  EXPECT_EQ(c.s.frame_depth, 0U);
  EXPECT_FALSE(c.s.block.frame_template.active);
}

// PTO-AVS-BLOCK-FRET-STK-ODD-TARGET-002 (FRET.STK.asl): the slot-zero target
// 0x901 is odd: Fault_InstructionPC at 0x901 with sp adjusted, ra and
// _ReturnAddress untouched and the template live with zero progress.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_FRET_STK_ODD_TARGET_002) {
  Core c;
  c.s.pc = 0x680;
  c.s.write_gpr(2, 0x2f8);
  c.s.write_gpr(10, 0x777);
  c.poke(0x2f8, 0x01);
  c.poke(0x2f9, 0x09);
  c.s.return_address = 0x777;
  c.s.frame_depth = 1;
  EXPECT_EQ(c.exec(fret_stk(10, 10, 8)), Cmd::Rejected);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_InstructionPC);
  EXPECT_EQ(c.s.fault_address, 0x901U);
  EXPECT_EQ(c.s.read_gpr(2), 0x300U);
  EXPECT_EQ(c.s.read_gpr(10), 0x777U);
  EXPECT_EQ(c.s.return_address, 0x777U);
  EXPECT_TRUE(c.s.trap_contexts[0].valid);
  EXPECT_EQ(c.s.trap_contexts[0].tpc, 0x680U);
  EXPECT_EQ(c.s.frame_depth, 1U);
  EXPECT_TRUE(c.s.block.frame_template.active);
  EXPECT_TRUE(c.s.block.frame_template.stack_adjusted);
  EXPECT_EQ(c.s.block.frame_template.progress, 0U);
  EXPECT_FALSE(c.s.block.frame_template.return_target_valid);
}

// ================================================================ MCOPY

// PTO-AVS-BLOCK-MCOPY-XLEN-001 (MCOPY.asl, commit/effects.asl): a 70-byte
// disjoint copy (above the obsolete 63-byte bound) copies every byte, records
// the full length, clears the overlapping reservation, advances TPC once.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_MCOPY_XLEN_001) {
  Core c;
  c.s.pc = 0x640;
  c.s.write_gpr(2, 0x200);
  c.s.write_gpr(3, 0x100);
  c.s.write_gpr(4, 70);
  c.s.reservation_valid = true;
  c.s.reservation_address = 0x200;
  c.s.reservation_size = 8;
  for (unsigned i = 0; i < 70; ++i) c.poke(0x100 + i, static_cast<std::uint8_t>(i + 1));
  EXPECT_EQ(c.exec(mcopy(2, 3, 4)), Cmd::Executed);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  for (unsigned i = 0; i < 70; ++i) EXPECT_EQ(c.byte(0x200 + i), c.byte(0x100 + i)) << i;
  EXPECT_EQ(c.byte(0x200 + 69), 70U);  // the copy really happened
  EXPECT_EQ(c.s.last_memory_command_address, 0x200U);
  EXPECT_EQ(c.s.last_memory_command_size, 70U);
  EXPECT_FALSE(c.s.reservation_valid);
  EXPECT_EQ(c.s.pc, 0x644U);
}

// PTO-AVS-BLOCK-MCOPY-RESTART-001 (MCOPY.asl, trap-context.asl): under ACR2
// the second 8-byte step (destination 3072) page-faults after the first
// committed (two events); recovery retries only the second step from the
// saved operands (the clobbered GPRs are not re-read) and retires once.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_MCOPY_RESTART_001) {
  Core c;
  const Word source = 0x100, destination = 3064, instruction_pc = 0x700;
  for (unsigned i = 0; i < 16; ++i) c.poke(source + i, static_cast<std::uint8_t>(i + 1));
  c.s.write_gpr(2, destination);
  c.s.write_gpr(3, source);
  c.s.write_gpr(4, 16);
  c.m.start_memory_event_capture(0);
  c.run_in_acr2_at(instruction_pc);
  const std::uint64_t word = mcopy(2, 3, 4);

  EXPECT_EQ(c.exec(word), Cmd::Rejected);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(c.s.fault_address, destination + 8);
  EXPECT_EQ(c.s.current_acr, 1U);
  EXPECT_EQ(c.s.pc, kEvbaseRing1);
  EXPECT_EQ(c.s.memory_event_count, 2U);
  for (unsigned i = 0; i < 8; ++i) EXPECT_EQ(c.byte(destination + i), c.byte(source + i)) << i;
  for (unsigned i = 8; i < 16; ++i) EXPECT_EQ(c.byte(destination + i), 0U) << i;
  EXPECT_TRUE(c.s.trap_contexts[1].block.memory_copy_template.active);
  EXPECT_EQ(c.s.trap_contexts[1].block.memory_copy_template.progress, 8U);

  c.s.write_gpr(2, 0x20);
  c.s.write_gpr(3, 0x40);
  c.s.write_gpr(4, 0);
  c.recover_for_retry();
  EXPECT_EQ(c.s.pc, instruction_pc);

  EXPECT_EQ(c.exec(word), Cmd::Executed);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(c.s.memory_event_count, 4U);
  for (unsigned i = 0; i < 16; ++i) EXPECT_EQ(c.byte(destination + i), c.byte(source + i)) << i;
  EXPECT_EQ(c.byte(destination + 15), 16U);
  EXPECT_FALSE(c.s.block.memory_copy_template.active);
  EXPECT_EQ(c.s.last_memory_command_address, destination);
  EXPECT_EQ(c.s.last_memory_command_size, 16U);
  EXPECT_EQ(c.s.pc, instruction_pc + 4);
}

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// ================================================================ model/faults, model/lifecycle

// PTO-AVS-BLOCK-TESTBUNDLEFAULTS-FAULT-001 (block/model/faults/rollback.asl):
// a stop without an active block is Fault_BundleControl (TRAPNO 5 in the
// current ring); a block start with the odd target 0x401 is
// Fault_InstructionPC and activates nothing.  StopBundle/BeginBundle are the
// helpers our stop_bundle_at / begin_bundle_at implement.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLEFAULTS_FAULT_001) {
  Core c;
  block::reset_bundle_control(c.s);
  c.s.pc = 0x300;
  c.m.clear_fault();
  EXPECT_TRUE(scalar::is_fault(block::stop_bundle_at(c.m, c.s.pc)));
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_BundleControl);
  EXPECT_EQ(c.s.trap_status[c.s.current_acr].number, 5U);

  block::reset_bundle_control(c.s);
  c.m.clear_fault();
  block::begin_bundle_at(c.m, c.s.pc, BundleKind::Standard, BundleTransfer::Direct, 0x401, 0x304, 0x304, true);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_InstructionPC);
  EXPECT_FALSE(c.s.block.bundle_active);
}

// PTO-AVS-BLOCK-TESTBUNDLESTATELIFECYCLE-STATE-TRANSITION-001
// (block/model/lifecycle/begin.asl): begin -> header (TPC = sequential 0x104,
// BPC = 0x100), body entry, stop -> TPC = BPCN 0x200, nothing active.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLESTATELIFECYCLE_STATE_TRANSITION_001) {
  Core c;
  block::reset_bundle_control(c.s);
  c.s.pc = 0x100;
  c.m.clear_fault();
  block::begin_bundle_at(c.m, c.s.pc, BundleKind::Standard, BundleTransfer::Direct, 0x200, 0x104, 0x104, true);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_TRUE(c.s.block.bundle_active);
  EXPECT_FALSE(c.s.block.bundle_body_active);
  EXPECT_EQ(c.s.pc, 0x104U);
  EXPECT_EQ(c.s.bpc, 0x100U);
  block::enter_bundle_body(c.m);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_TRUE(c.s.block.bundle_body_active);
  EXPECT_FALSE(scalar::is_fault(block::stop_bundle_at(c.m, c.s.pc)));
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_FALSE(c.s.block.bundle_active);
  EXPECT_FALSE(c.s.block.bundle_body_active);
  EXPECT_EQ(c.s.pc, 0x200U);
}

// ================================================================ arch/state

// PTO-AVS-ARCH-NUMERIC-STATUS-001 (asl/arch/state/numeric-status.asl,
// PTO-NUMERIC-STATUS-STICKY-001): with OF (CORE_STATE[34]) already set, an
// operation that raises only DZ leaves OF|DZ = 00110.  RecordNumericStatusFlags
// is reached architecturally through FDIV FP64 1.0 / 0.0 (IEEE profile: DZ
// alone, result +inf).
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_NUMERIC_STATUS_001) {
  arch::Machine m(arch::MachineConfig::real());
  m.state.pc = 0x100;
  m.state.sysregs.core_state |= Word{0b00100} << arch::kCoreStateFlagsShift;
  m.state.write_gpr(1, 0x3FF0000000000000ULL);  // 1.0
  m.state.write_gpr(2, 0);                      // +0.0
  const std::uint64_t fdiv_d = 0x0000304b | (3ULL << 7) | (1ULL << 15) | (2ULL << 20);  // SrcType 0 = FP64
  ASSERT_FALSE(scalar::is_fault(runner::execute_instruction(m, fdiv_d, 32)));
  EXPECT_EQ(m.state.read_gpr(3), 0x7FF0000000000000ULL);
  EXPECT_EQ((m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F, 0b00110U);
}

// PTO-AVS-ARCH-QUEUE-READINESS-RECOVERY-001 (asl/arch/state/trap-context.asl,
// PTO-REQ-STATE-001): the saved newest T/U entries come back available, the
// older unsupplied ones unavailable, and pushes after the save are dropped.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_QUEUE_READINESS_RECOVERY_001) {
  Core c;
  c.s.t_queue.push(0x11);
  c.s.u_queue.push(0x22);
  c.m.save_trap_context(1, 0);
  c.s.t_queue.push(0x33);
  c.s.u_queue.push(0x44);
  EXPECT_TRUE(c.s.t_queue.valid[1]);
  EXPECT_TRUE(c.s.u_queue.valid[1]);
  ASSERT_TRUE(c.m.recover_trap_context(1));
  EXPECT_TRUE(c.s.t_queue.valid[0]);
  EXPECT_FALSE(c.s.t_queue.valid[1]);
  EXPECT_TRUE(c.s.u_queue.valid[0]);
  EXPECT_FALSE(c.s.u_queue.valid[1]);
  EXPECT_EQ(c.s.t_queue.value[0], 0x11U);
  EXPECT_EQ(c.s.u_queue.value[0], 0x22U);
  // The same through the architectural Reg5 sources t#1/t#2, u#1/u#2.
  EXPECT_TRUE(c.s.reg5_source_available(arch::kReg5TQueueFirst));
  EXPECT_FALSE(c.s.reg5_source_available(arch::kReg5TQueueFirst + 1));
  EXPECT_TRUE(c.s.reg5_source_available(arch::kReg5UQueueFirst));
  EXPECT_FALSE(c.s.reg5_source_available(arch::kReg5UQueueFirst + 1));
}

// PTO-AVS-ARCH-TESTTRAPROUTINGPOLICY-FAULT-001 (trap-context.asl): faults
// from ACR0 stay in ring 0, from every other ring go to ring 1
// (TrapTargetForFault, observed as the ring SetFaultWithCause switches to);
// TRAPNO 4 for IllegalInstruction, 35 for DataPage with argument0 the
// address.  Not expressed: TrapTargetForInterrupt (no interrupt delivery in
// our machine).
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_TESTTRAPROUTINGPOLICY_FAULT_001) {
  for (const unsigned ring : {0U, 1U, 2U, 15U}) {
    Core c;
    c.m.set_current_acr(ring);
    c.s.pc = 0x100;
    c.m.set_fault(FaultCode::Fault_IllegalInstruction, 0x100);
    EXPECT_EQ(c.s.current_acr, ring == 0 ? 0U : 1U) << ring;
  }
  {
    Core c;
    c.m.set_current_acr(1);
    c.s.pc = 0x100;
    c.m.set_fault(FaultCode::Fault_IllegalInstruction, 0x100);
    EXPECT_EQ(c.s.current_acr, 1U);
    EXPECT_EQ(c.s.trap_contexts[1].source_acr, 1U);
    EXPECT_EQ(c.s.trap_status[1].number, 4U);
  }
  {
    Core c;
    c.m.set_current_acr(15);
    c.s.pc = 0x200;
    c.m.set_fault(FaultCode::Fault_DataPage, 0x300);
    EXPECT_EQ(c.s.current_acr, 1U);
    EXPECT_EQ(c.s.trap_contexts[1].source_acr, 15U);
    EXPECT_EQ(c.s.trap_status[1].number, 35U);
    EXPECT_EQ(c.s.trap_status[1].argument0, 0x300U);
  }
}

// PTO-AVS-ARCH-TRAP-CONTROL-FAULT-001 (trap-context.asl): a DataPage trap
// from ACR15 saves every control-flow and block-control leaf in ring 1;
// after the live leaves are overwritten, RecoverTrapContext(1) restores them
// all (ring, TPC, BPC, CORE_STATE ring bits, arguments, BARG, sequential PC,
// frame-stack return target, return address) and invalidates the context.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_TRAP_CONTROL_FAULT_001) {
  Core c;
  c.m.set_current_acr(15);
  c.s.sysregs.core_state = 0xabc0;
  c.m.set_current_acr(15);
  c.s.pc = 0x1200;
  c.s.bpc = 0x2200;
  c.s.block.bundle_argument = 0x3300;
  c.s.commit_argument = 0x4400;
  c.s.block.bundle_active = true;
  c.s.block.bundle_body_active = true;
  c.s.block.barg = {BundleKind::TileMatrix, BundleTransfer::Conditional, false, 0x5500};
  c.s.block.sequential_pc = 0x6600;
  c.s.block.frame_stack_return_target = 0x7700;
  c.s.return_address = 0x8800;
  c.s.block.bundle_argument_kind = 5;
  c.m.set_fault(FaultCode::Fault_DataPage, 0xdead);
  EXPECT_EQ(c.s.current_acr, 1U);
  EXPECT_EQ(c.s.trap_status[1].number, 35U);
  EXPECT_EQ(c.s.trap_status[1].argument0, 0xdeadU);
  const arch::TrapContext& t = c.s.trap_contexts[1];
  EXPECT_TRUE(t.valid);
  EXPECT_EQ(t.source_acr, 15U);
  EXPECT_EQ(t.tpc, 0x1200U);
  EXPECT_EQ(t.bpc, 0x2200U);
  EXPECT_EQ(t.core_state & 0xF, 0xFU);
  EXPECT_EQ(t.block.bundle_argument, 0x3300U);
  EXPECT_EQ(t.commit_argument, 0x4400U);
  EXPECT_TRUE(t.block.bundle_active);
  EXPECT_TRUE(t.block.bundle_body_active);
  EXPECT_EQ(t.block.barg.block_type, BundleKind::TileMatrix);
  EXPECT_EQ(t.block.barg.transfer_type, BundleTransfer::Conditional);
  EXPECT_FALSE(t.block.barg.taken);
  EXPECT_EQ(t.block.barg.bpcn, 0x5500U);
  EXPECT_EQ(t.block.sequential_pc, 0x6600U);
  EXPECT_EQ(t.block.frame_stack_return_target, 0x7700U);
  EXPECT_EQ(t.return_address, 0x8800U);
  EXPECT_EQ(t.block.bundle_argument_kind, 5U);

  c.m.set_current_acr(0);
  c.s.pc = 0;
  c.s.bpc = 0;
  c.s.sysregs.core_state = 0;
  c.s.block.bundle_argument = 0;
  c.s.commit_argument = 0;
  c.s.block.bundle_active = false;
  c.s.block.bundle_body_active = false;
  c.s.block.barg = {BundleKind::Standard, BundleTransfer::Fallthrough, true, 0};
  c.s.block.bundle_argument_kind = 0;
  c.s.block.sequential_pc = 0;
  c.s.block.frame_stack_return_target = 0;
  c.s.return_address = 0;

  ASSERT_TRUE(c.m.recover_trap_context(1));
  EXPECT_EQ(c.s.current_acr, 15U);
  EXPECT_EQ(c.s.pc, 0x1200U);
  EXPECT_EQ(c.s.bpc, 0x2200U);
  EXPECT_EQ(c.s.sysregs.core_state & 0xF, 0xFU);
  EXPECT_EQ(c.s.block.bundle_argument, 0x3300U);
  EXPECT_EQ(c.s.commit_argument, 0x4400U);
  EXPECT_TRUE(c.s.block.bundle_active);
  EXPECT_TRUE(c.s.block.bundle_body_active);
  EXPECT_EQ(c.s.block.barg.block_type, BundleKind::TileMatrix);
  EXPECT_EQ(c.s.block.barg.transfer_type, BundleTransfer::Conditional);
  EXPECT_FALSE(c.s.block.barg.taken);
  EXPECT_EQ(c.s.block.barg.bpcn, 0x5500U);
  EXPECT_EQ(c.s.block.sequential_pc, 0x6600U);
  EXPECT_EQ(c.s.block.frame_stack_return_target, 0x7700U);
  EXPECT_EQ(c.s.return_address, 0x8800U);
  EXPECT_EQ(c.s.block.bundle_argument_kind, 5U);
  EXPECT_FALSE(c.s.trap_contexts[1].valid);
}

// PTO-AVS-ARCH-TRAP-ATTRIBUTES-FAULT-003 (trap-context.asl): B.CATR, B.DATR
// and B.FPATR attributes, all T/U queue entries and predicates are saved by
// the trap and restored exactly by recovery.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_TRAP_ATTRIBUTES_FAULT_003) {
  Core c;
  c.m.set_current_acr(15);
  auto& b = c.s.block;
  // SetBundleControlAttributeState(trap, atomic, acquire, release, far, reduction)
  b.control_attributes = {true, true, true, true, false, true, false};
  b.data_attributes.data_type = 0x11;
  b.data_attributes.data_layout = 0;
  b.data_attributes.pad_value = 2;
  b.data_attributes.comparison_mode = 3;
  b.data_attributes.rounding_mode = 4;
  b.data_attributes.saturating = true;
  b.data_attributes.canonicalize = true;
  b.fixed_point_attributes.valid = true;
  b.fixed_point_attributes.pre_quant_mode = 0b000011;
  b.fixed_point_attributes.relu_mode = 0b010;
  b.fixed_point_attributes.group_n_code = 0b0001;
  b.fixed_point_attributes.row_max_en = true;
  b.fixed_point_attributes.group_max_en = true;
  b.fixed_point_attributes.row_max_init = true;
  b.fixed_point_attributes.max_abs_en = true;
  b.header_dirty = true;  // not architectural: the model's "header written" marker
  for (unsigned i = 0; i < arch::kTemporaryQueueDepth; ++i) {
    c.s.t_queue.value[i] = 0x900 + i;
    c.s.u_queue.value[i] = 0xa00 + i;
  }
  c.s.predicates[1] = 0x1111;
  c.s.predicates[7] = 0x7777;
  c.m.set_fault(FaultCode::Fault_DataPage, 0xdead);
  EXPECT_EQ(c.s.current_acr, 1U);
  EXPECT_EQ(c.s.trap_status[1].number, 35U);
  EXPECT_EQ(c.s.trap_status[1].argument0, 0xdeadU);
  const arch::TrapContext& t = c.s.trap_contexts[1];
  const auto check_attributes = [](const arch::BlockState& x) {
    EXPECT_TRUE(x.control_attributes.trap_enabled);
    EXPECT_TRUE(x.control_attributes.atomic);
    EXPECT_TRUE(x.control_attributes.acquire);
    EXPECT_FALSE(x.control_attributes.release);
    EXPECT_TRUE(x.control_attributes.far);
    EXPECT_TRUE(x.control_attributes.present);
    EXPECT_FALSE(x.control_attributes.dimension_reduction);
    EXPECT_EQ(x.data_attributes.data_type, 0x11U);
    EXPECT_EQ(x.data_attributes.data_layout, 0U);
    EXPECT_EQ(x.data_attributes.pad_value, 2U);
    EXPECT_EQ(x.data_attributes.comparison_mode, 3U);
    EXPECT_EQ(x.data_attributes.rounding_mode, 4U);
    EXPECT_TRUE(x.data_attributes.saturating);
    EXPECT_TRUE(x.data_attributes.canonicalize);
    EXPECT_TRUE(x.fixed_point_attributes.valid);
    EXPECT_EQ(x.fixed_point_attributes.pre_quant_mode, 0b000011U);
    EXPECT_EQ(x.fixed_point_attributes.relu_mode, 0b010U);
    EXPECT_EQ(x.fixed_point_attributes.group_n_code, 0b0001U);
    EXPECT_TRUE(x.fixed_point_attributes.row_max_en);
    EXPECT_TRUE(x.fixed_point_attributes.group_max_en);
    EXPECT_TRUE(x.fixed_point_attributes.row_max_init);
    EXPECT_TRUE(x.fixed_point_attributes.max_abs_en);
  };
  check_attributes(t.block);
  EXPECT_EQ(t.t_queue.value[0], 0x900U);
  EXPECT_EQ(t.t_queue.value[3], 0x903U);
  EXPECT_EQ(t.u_queue.value[0], 0xa00U);
  EXPECT_EQ(t.u_queue.value[3], 0xa03U);
  EXPECT_EQ(t.predicates[1], 0x1111U);
  EXPECT_EQ(t.predicates[7], 0x7777U);

  b.control_attributes = {true, false, false, false, true, false, true};
  b.data_attributes.data_type = 0;
  b.data_attributes.data_layout = 1;
  b.data_attributes.pad_value = 0;
  b.data_attributes.comparison_mode = 0;
  b.data_attributes.rounding_mode = 0;
  b.data_attributes.saturating = false;
  b.data_attributes.canonicalize = false;
  b.fixed_point_attributes = {};
  c.s.t_queue.value[3] = 0;
  c.s.u_queue.value[3] = 0;
  c.s.predicates[7] = 0;

  ASSERT_TRUE(c.m.recover_trap_context(1));
  check_attributes(c.s.block);
  EXPECT_EQ(c.s.t_queue.value[3], 0x903U);
  EXPECT_EQ(c.s.u_queue.value[3], 0xa03U);
  EXPECT_EQ(c.s.read_predicate(1), 0x1111U);
  EXPECT_EQ(c.s.read_predicate(7), 0x7777U);
  EXPECT_FALSE(c.s.trap_contexts[1].valid);
}

// PTO-AVS-ARCH-TRAP-BINDINGS-FAULT-002 (trap-context.asl): the operation
// descriptor, dimensions, scalar, Tile and shared bindings of an active block
// are saved by a DataPage trap from ACR15 and recovered exactly.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_TRAP_BINDINGS_FAULT_002) {
  Core c;
  c.m.set_current_acr(15);
  auto& b = c.s.block;
  b.bundle_active = true;
  b.bundle_body_active = true;
  const arch::BundleOperationDescriptor op{true, 0x45, arch::BundleOperationClass::TileMatrix, true, 0x155, true,
                                           0x11, true, 2, true, 5};
  b.operation = op;
  b.dimensions = {0x101, 0x102, 0x103};
  b.dimension_present = {true, true, true};
  b.scalar_bindings[0] = {true, 31, 24, 25, 26, 3};
  b.scalar_bindings[31] = {true, 23, 1, 2, 3, 2};
  // SetBundleTileBinding(index, dst_valid, hand, size, mask, s0_valid, s1_valid, s0, s1, last)
  b.tile_bindings[0] = {true, true, 2, 2, false, 7, 0xF, true, true, 40, 41, false};
  b.tile_bindings[15] = {true, true, 3, 3, false, 7, 0xF, true, false, 63, 0, true};
  b.shared_bindings[0] = {true, 0x12, 0, 0xF, true};
  b.shared_bindings[1] = {true, 0x34, 7, 0xF, false};
  b.header_dirty = true;  // not architectural: the model's "header written" marker
  c.m.set_fault(FaultCode::Fault_DataPage, 0xdead);
  EXPECT_EQ(c.s.current_acr, 1U);
  EXPECT_EQ(c.s.trap_status[1].number, 35U);
  EXPECT_EQ(c.s.trap_status[1].argument0, 0xdeadU);
  const auto check = [](const arch::BlockState& x) {
    EXPECT_TRUE(x.operation.valid);
    EXPECT_EQ(x.operation.form_identity, 0x45U);
    EXPECT_EQ(x.operation.operation_class, arch::BundleOperationClass::TileMatrix);
    EXPECT_TRUE(x.operation.selector_valid);
    EXPECT_EQ(x.operation.selector, 0x155U);
    EXPECT_TRUE(x.operation.data_type_valid);
    EXPECT_EQ(x.operation.data_type, 0x11U);
    EXPECT_TRUE(x.operation.mode_valid);
    EXPECT_EQ(x.operation.mode, 2U);
    EXPECT_TRUE(x.operation.branch_type_valid);
    EXPECT_EQ(x.operation.branch_type, 5U);
    EXPECT_EQ(x.dimensions[0], 0x101U);
    EXPECT_EQ(x.dimensions[2], 0x103U);
    const arch::BundleScalarBinding& s0 = x.scalar_bindings[0];
    EXPECT_TRUE(s0.valid);
    EXPECT_EQ(s0.destination, 31U);
    EXPECT_EQ(s0.source0, 24U);
    EXPECT_EQ(s0.source1, 25U);
    EXPECT_EQ(s0.source2, 26U);
    EXPECT_EQ(s0.source_count, 3U);
    EXPECT_TRUE(x.scalar_bindings[31].valid);
    const arch::BundleTileBinding& t0 = x.tile_bindings[0];
    EXPECT_TRUE(t0.valid);
    EXPECT_TRUE(t0.destination_valid);
    EXPECT_EQ(t0.destination, 2U);
    EXPECT_EQ(t0.destination_hand, 2U);
    EXPECT_FALSE(t0.destination_allocated_by_bundle);
    EXPECT_EQ(t0.destination_size, 7U);
    EXPECT_EQ(t0.pe_mask, 0xFU);
    EXPECT_TRUE(t0.source0_valid);
    EXPECT_TRUE(t0.source1_valid);
    EXPECT_EQ(t0.source0, 40U);
    EXPECT_EQ(t0.source1, 41U);
    EXPECT_FALSE(t0.last);
    EXPECT_TRUE(x.tile_bindings[15].valid);
    const arch::BundleSharedBinding& sh = x.shared_bindings[0];
    EXPECT_TRUE(sh.valid);
    EXPECT_EQ(sh.shared_id, 0x12U);
    EXPECT_EQ(sh.size_code, 0U);
    EXPECT_EQ(sh.pe_mask, 0xFU);
    EXPECT_TRUE(sh.consumed);
  };
  check(c.s.trap_contexts[1].block);

  b.operation = {};
  b.dimensions[2] = 0;
  b.scalar_bindings[0] = {};
  b.tile_bindings[0] = {false, false, 0, 0, true, 0, 0, false, false, 0, 0, true};
  b.shared_bindings[0] = {false, 0, 3, 0b0101, false};

  ASSERT_TRUE(c.m.recover_trap_context(1));
  check(c.s.block);
  EXPECT_FALSE(c.s.trap_contexts[1].valid);
}

// PTO-AVS-ARCH-TRAP-PORTABLE-FAULT-004 (trap-context.asl): a context saved in
// ring 2 from ring 15 (SavePortableTrapContext; our save_trap_context)
// restores the bundle argument and its kind, the commit argument, the frame
// stack return target and the return address.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_TRAP_PORTABLE_FAULT_004) {
  Core c;
  c.m.set_current_acr(15);
  c.s.block.bundle_argument = 0x1110;
  c.s.commit_argument = 0x2220;
  c.s.block.frame_stack_return_target = 0x3330;
  c.s.return_address = 0x4440;
  c.s.block.bundle_argument_kind = 6;
  c.m.save_trap_context(2, 15);
  c.s.block.bundle_argument = 0;
  c.s.commit_argument = 0;
  c.s.block.frame_stack_return_target = 0;
  c.s.return_address = 0;
  c.s.block.bundle_argument_kind = 0;
  ASSERT_TRUE(c.m.recover_trap_context(2));
  EXPECT_EQ(c.s.block.bundle_argument, 0x1110U);
  EXPECT_EQ(c.s.commit_argument, 0x2220U);
  EXPECT_EQ(c.s.block.frame_stack_return_target, 0x3330U);
  EXPECT_EQ(c.s.return_address, 0x4440U);
  EXPECT_EQ(c.s.block.bundle_argument_kind, 6U);
}

}  // namespace
}  // namespace pto::test


namespace pto::test {
namespace {

// ConfigureTile(index, capacity, rows, columns, valid_rows, valid_columns,
// type, RowMajor, Any) = ConfigureTileForMask(..., '0001') (asl/tile/model/
// state/allocation.asl) followed by WriteTileElement(index, 0, 0, value): the
// test-fixture setup of the points, done on the machine's tile file.
void configure_u64(BundleTestHost& h, tile::TileIndex i, std::uint32_t capacity, std::uint64_t value) {
  tile::ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = 1;
  r.valid_rows = 1;
  r.valid_columns = 1;
  r.data_type = tile::DataType::U64;
  r.mask = 0b0001;
  ASSERT_EQ(h.file.configure(i, r), arch::FaultCode::Fault_None);
  h.file.tile(i).write_element(0, 0, value);
}

constexpr unsigned kU64 = 24;
// B.IOT SrcTile0, SrcTile1, mask, L, ->DstTile<SizeCode> (0x4013): PEMode
// [11:9], DstTile hand [8:7], SizeCode [18:15], L [19], Src0 [25:20], Src1 [31:26].
constexpr std::uint64_t iot_binary(unsigned pe_mode, unsigned hand, unsigned size_code, unsigned s0, unsigned s1) {
  return 0x00004013 | (std::uint64_t{pe_mode} << 9) | (std::uint64_t{hand} << 7) |
         (std::uint64_t{size_code} << 15) | (1ULL << 19) | (std::uint64_t{s0} << 20) | (std::uint64_t{s1} << 26);
}
// B.IOT SrcTile0, mask, L (0x5013).
constexpr std::uint64_t iot_source(unsigned pe_mode, unsigned s0) {
  return 0x00005013 | (std::uint64_t{pe_mode} << 9) | (1ULL << 19) | (std::uint64_t{s0} << 20);
}

// B.IOT ->T<0> (SizeCode 0), mask 1111, L: rejected by the catalog constraint.
constexpr std::uint64_t raw_biot_size0() { return 0x00006013 | (7ULL << 9) | (1ULL << 19); }
std::uint64_t word_at(const BundleTestHost& h, tile::TileIndex t) { return element_at(h, t, 0, 0); }

// PTO-AVS-BLOCK-B-IOT-SOURCE-PERSIST-001 (asl/block/operands/B.IOT.asl,
// model/operands/tile-bindings.asl): L ends the binding sequence, not the
// Local source's lifetime.  The ASL's AddBundleTileBinding +
// FinalizeBundleTileAttempt(Executed) become a committed TSTORE block whose
// only B.IOT names T7 as source with L.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_B_IOT_SOURCE_PERSIST_001) {
  BundleTestHost h(arch::MachineConfig::reference());
  configure_u64(h, 7, 128, 0x55);
  h.gpr[2] = 0x200;
  h.gpr[3] = 8;
  const auto o = h.run({tstore_start(kU64), iot_source(4 /* PE mask 0001 */, 7), bior(2, 3), kBstop});
  ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
  EXPECT_EQ(h.m.memory.read(0x200, 8), 0x55U);  // the block really committed
  EXPECT_TRUE(h.file.tile(7).allocated());
  EXPECT_EQ(word_at(h, 7), 0x55U);
}

// PTO-AVS-BLOCK-TESTBUNDLETILECOMMITLIFECYCLE-STATE-TRANSITION-001
// (block/model/commit/effects.asl): TEPL TADD U64 of T0 (7) and T1 (9) into
// hand 2 commits at BSTOP: the destination is the first free tile of hand M
// (T32 = 16) while physical T2 (99) is untouched; a following scalar BSTART
// is also a commit boundary and then installs its own Control descriptor.
// The ASL's SetBundleDimension(0, 1) is the header word B.DIM LB0 #1 here,
// so TPC ends one word later (0x110 / 0x210 for the ASL's 0x10c / 0x20c) and
// CYCLE counts one attempt more than the ASL's 3.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLETILECOMMITLIFECYCLE_STATE_TRANSITION_001) {
  {
    BundleTestHost h(arch::MachineConfig::reference());
    configure_u64(h, 0, 256, 7);
    configure_u64(h, 1, 256, 9);
    configure_u64(h, 2, 256, 99);
    h.m.state.pc = 0x100;
    ASSERT_TRUE(h.run({tepl_start(0, kU64)}).ok());
    EXPECT_TRUE(h.state().bundle_active);
    EXPECT_EQ(h.m.state.pc, 0x104U);
    ASSERT_TRUE(h.run({bdim(0, 1)}).ok());
    const auto binding = h.run({iot_binary(4, 2, 2, 0, 1)});
    ASSERT_TRUE(binding.ok()) << arch::fault_name(binding.fault);
    EXPECT_EQ(h.m.state.pc, 0x10cU);
    const auto stop = h.run({kBstop});
    ASSERT_TRUE(stop.ok()) << arch::fault_name(stop.fault) << " " << stop.message;
    EXPECT_FALSE(h.state().bundle_active);
    EXPECT_EQ(h.m.state.pc, 0x110U);
    EXPECT_TRUE(h.file.tile(32).allocated());
    EXPECT_EQ(word_at(h, 32), 16U);
    EXPECT_EQ(word_at(h, 2), 99U);
    EXPECT_EQ(h.m.state.sysregs.cycle, 4U);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    configure_u64(h, 0, 256, 2);
    configure_u64(h, 1, 256, 3);
    configure_u64(h, 2, 256, 99);
    h.m.state.pc = 0x200;
    const std::uint64_t next_start = 0x00000011 | (std::uint64_t{4} << 7);
    const auto o = h.run({tepl_start(0, kU64), bdim(0, 1), iot_binary(4, 2, 2, 0, 1), next_start});
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    EXPECT_TRUE(h.file.tile(32).allocated());
    EXPECT_EQ(word_at(h, 32), 5U);
    EXPECT_EQ(word_at(h, 2), 99U);
    EXPECT_EQ(h.state().operation.operation_class, arch::BundleOperationClass::Control);
    EXPECT_FALSE(h.state().operation.selector_valid);
    EXPECT_TRUE(h.state().bundle_active);
    EXPECT_EQ(h.m.state.pc, 0x210U);
    EXPECT_EQ(h.m.state.sysregs.cycle, 4U);
  }
}

// PTO-AVS-BLOCK-TESTBUNDLETILECOMMITROLLBACK-EXECUTION-001
// (block/model/faults/rollback.asl): a tile block without B.IOT faults
// BundleControl at BSTOP with no destination update; an illegal next start
// (reserved TEPL selector 14) is rejected before it commits the live block,
// which the ring-0 trap context keeps (active, selector 0).
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLETILECOMMITROLLBACK_EXECUTION_001) {
  {
    BundleTestHost h(arch::MachineConfig::reference());
    configure_u64(h, 2, 256, 99);
    h.m.state.pc = 0x100;
    ASSERT_TRUE(h.run({tepl_start(0, kU64)}).ok());
    const auto stop = h.run({kBstop});
    EXPECT_EQ(stop.status, BundleStatus::Fault);
    EXPECT_EQ(stop.fault, FaultCode::Fault_BundleControl);
    EXPECT_EQ(word_at(h, 2), 99U);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    configure_u64(h, 0, 256, 2);
    configure_u64(h, 1, 256, 3);
    configure_u64(h, 2, 256, 99);
    h.m.state.pc = 0x300;
    ASSERT_TRUE(h.run({tepl_start(0, kU64), iot_binary(2, 2, 3, 0, 1)}).ok());
    const auto next = h.run({tepl_start(14, kU64)});
    EXPECT_EQ(next.status, BundleStatus::Fault);
    EXPECT_EQ(next.fault, FaultCode::Fault_IllegalInstruction);
    EXPECT_EQ(word_at(h, 2), 99U);
    EXPECT_TRUE(h.m.state.trap_contexts[0].block.bundle_active);
    EXPECT_EQ(h.m.state.trap_contexts[0].block.operation.selector, 0U);
  }
}

// PTO-AVS-BLOCK-TESTBUNDLECONFIGURATIONSTATE-STATE-TRANSITION-001
// (block/model/state/control-state.asl): the ASL's SetBundleDimension /
// SetBundleScalarBinding / SetBundleTileBinding calls become the header
// words that perform them inside a TEPL block: B.DIM LB1 R2 + #7 (R2 = 33 ->
// 40), B.IOR R2, R3, R4 -> R5, and B.IOT T10, T11, mask 1111, L, ->hand 2
// SizeCode 7.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLECONFIGURATIONSTATE_STATE_TRANSITION_001) {
  Core c;
  c.s.pc = 0x100;
  c.s.write_gpr(2, 33);
  ASSERT_EQ(c.exec(tepl_start(0, kU64)), Cmd::Executed);
  ASSERT_EQ(c.exec(bdim(1, 7, 2)), Cmd::Executed);
  EXPECT_EQ(c.s.block.dimensions[1], 40U);
  ASSERT_EQ(c.exec(bior(2, 3, 4, 5)), Cmd::Executed);
  EXPECT_TRUE(c.s.block.scalar_bindings[0].valid);
  EXPECT_EQ(c.s.block.scalar_bindings[0].destination, 5U);
  EXPECT_EQ(c.s.block.scalar_bindings[0].source2, 4U);
  ASSERT_EQ(c.exec(iot_binary(7, 2, 7, 10, 11)), Cmd::Executed);
  const arch::BundleTileBinding& t = c.s.block.tile_bindings[0];
  EXPECT_TRUE(t.valid);
  EXPECT_TRUE(t.destination_valid);
  EXPECT_EQ(t.destination, 2U);
  EXPECT_EQ(t.source0, 10U);
  EXPECT_EQ(t.pe_mask, 0xFU);
  EXPECT_TRUE(t.last);
}

// PTO-AVS-BLOCK-TESTBUNDLEOPERATIONDESCRIPTORFIELDS-EXECUTION-001
// (block/model/state/descriptor-state.asl): a TEPL start keeps selector and
// DataType exactly; the BSTART DataType domain is {0..14, 16..20, 24..28};
// the compressed BrType domain is {FALL, IND, RET}; reserved selectors,
// unsupported DataTypes, CUBE holes and FIXP fault before a descriptor is
// installed.  Not expressed: form_identity == the ASL's command-form number
// (the model's form numbering has no architectural meaning) and the
// BundleTileDataType enum mapping (a decode helper; the DataType codes are
// checked through BSTART acceptance instead).
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLEOPERATIONDESCRIPTORFIELDS_EXECUTION_001) {
  {
    Core c;
    c.s.pc = 0x100;
    ASSERT_EQ(c.exec(tepl_start(0x2b & 0x1F, kU64, 0x2b >> 5)), Cmd::Executed);
    EXPECT_TRUE(c.s.block.operation.valid);
    EXPECT_EQ(c.s.block.operation.operation_class, arch::BundleOperationClass::TileElement);
    // The ASL descriptor's selector is the 7-bit TEPL code Mode:Function
    // (CommandTileCodeOfForm); our descriptor keeps Function in `selector`
    // and Mode in `mode` (src/block/start_stop.cpp descriptor_of), so the
    // preserved code 0x2b is checked as the pair; no instruction reads the
    // descriptor's selector as one field.
    EXPECT_TRUE(c.s.block.operation.mode_valid);
    EXPECT_EQ(c.s.block.operation.selector | (c.s.block.operation.mode << 5), 0x2bU);
    EXPECT_EQ(c.s.block.operation.data_type, 24U);
  }
  for (unsigned code = 0; code < 32; ++code) {
    const bool expected = code <= 14 || (16 <= code && code <= 20) || (24 <= code && code <= 28);
    Core c;
    c.s.pc = 0x100;
    const Cmd r = c.exec(tepl_start(0x2b & 0x1F, code, 0x2b >> 5));
    EXPECT_EQ(r, expected ? Cmd::Executed : Cmd::Rejected) << "DataType " << code;
    if (!expected) {
      EXPECT_EQ(c.s.last_fault, FaultCode::Fault_IllegalInstruction) << code;
    }
  }
  for (unsigned branch_type = 1; branch_type <= 7; ++branch_type) {
    Core c;
    block::reset_bundle_control(c.s);
    c.m.set_current_acr(0);
    c.m.clear_fault();
    c.s.pc = 0x300;
    if (branch_type == 5) {
      block::begin_bundle_at(c.m, c.s.pc, BundleKind::Standard, BundleTransfer::Direct, 0x440, 0x302, 0x302, true);
    } else if (branch_type == 7) {
      c.s.return_address = 0x520;
    }
    const std::uint64_t compressed = std::uint64_t{branch_type} << 11;
    const Cmd r = c.exec(compressed, 16);
    if (branch_type == 1 || branch_type == 5 || branch_type == 7) {
      EXPECT_EQ(r, Cmd::Executed) << branch_type;
      EXPECT_TRUE(c.s.block.operation.branch_type_valid) << branch_type;
      EXPECT_EQ(c.s.block.operation.branch_type, branch_type);
      const BundleTransfer want = branch_type == 1   ? BundleTransfer::Fallthrough
                                  : branch_type == 5 ? BundleTransfer::Indirect
                                                     : BundleTransfer::Return;
      EXPECT_EQ(c.s.block.barg.transfer_type, want) << branch_type;
    } else {
      EXPECT_EQ(r, Cmd::Rejected) << branch_type;
      EXPECT_EQ(c.s.last_fault, FaultCode::Fault_IllegalInstruction) << branch_type;
      EXPECT_FALSE(c.s.trap_contexts[0].block.operation.valid) << branch_type;
    }
  }
  const auto rejected_before_descriptor = [](std::uint64_t word, Word pc) {
    Core c;
    c.s.pc = pc;
    EXPECT_EQ(c.exec(word), Cmd::Rejected) << std::hex << word;
    EXPECT_EQ(c.s.last_fault, FaultCode::Fault_IllegalInstruction) << std::hex << word;
    EXPECT_FALSE(c.s.trap_contexts[0].block.operation.valid) << std::hex << word;
  };
  rejected_before_descriptor(tepl_start(14, kU64), 0x400);                       // reserved selector
  rejected_before_descriptor(tepl_start(0, 31), 0x500);                          // unsupported DataType
  rejected_before_descriptor(tile_start(0x00031181, 3, kU64), 0x600);            // CUBE hole
  rejected_before_descriptor(0x00039181 | (std::uint64_t{kU64} << 27), 0x700);  // FIXP
}

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// ================================================================ B.IOR schema and ordered GPR inputs

// A Local source (mask 0001, RowMajor) of `columns` elements in one row.
void configure_row(BundleTestHost& h, tile::TileIndex i, tile::DataType t, std::initializer_list<std::uint64_t> row) {
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = static_cast<std::uint32_t>(row.size());
  r.valid_rows = 1;
  r.valid_columns = static_cast<std::uint32_t>(row.size());
  r.data_type = t;
  r.mask = 0b0001;
  ASSERT_EQ(h.file.configure(i, r), arch::FaultCode::Fault_None);
  std::uint32_t c = 0;
  for (const std::uint64_t v : row) h.file.tile(i).write_element(0, c++, v);
}
constexpr unsigned kPe0001 = 4;  // PEMode 100 -> mask 0001
std::uint64_t iot_dst_only(unsigned pe_mode, bool last, unsigned hand = 0) {
  return encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", pe_mode}, {"L", last ? 1 : 0}, {"DstTile", hand}});
}
std::uint64_t iot_src_to_dst(unsigned src, unsigned pe_mode, bool last, unsigned hand = 0) {
  return encode_form(kBIotSrcDst,
                     {{"SrcTile0", src}, {"SizeCode", 1}, {"PEMode", pe_mode}, {"L", last ? 1 : 0}, {"DstTile", hand}});
}
std::uint64_t iot_two_to_dst(unsigned s0, unsigned s1, unsigned pe_mode) {
  return encode_form(kBIotSrcSrcDst,
                     {{"SrcTile0", s0}, {"SrcTile1", s1}, {"SizeCode", 1}, {"PEMode", pe_mode}, {"L", 1}});
}
// Raw B.IOR (the point's BundleTestScalarBinding): RegDst [11:7], RegSrc0
// [19:15], RegSrc1 [24:20], RegSrc2 [31:27]; no catalog constraint applied.
constexpr std::uint64_t raw_bior(unsigned dst, unsigned s0, unsigned s1, unsigned s2) {
  return 0x00000013 | (std::uint64_t{dst} << 7) | (std::uint64_t{s0} << 15) | (std::uint64_t{s1} << 20) |
         (std::uint64_t{s2} << 27);
}
// TEPL selector code Mode:Function (the point's BundleTestTEPLStart).
std::uint64_t tepl_code(unsigned code, unsigned dt) { return tepl_start(code & 0x1F, dt, code >> 5); }
constexpr std::uint64_t kFp32One = 0x3f800000, kFp32Two = 0x40000000, kFp32Three = 0x40400000,
                        kFp32Four = 0x40800000;

// PTO-AVS-BLOCK-B-IOR-DEFAULTS-EXEC-001 (asl/block/operands/B.IOR.asl,
// TestBundleScalarBindingSchemaDefaults).  The ASL reads the resolved
// operands with BundleOperationBindingsComplete /
// BundleTileInstructionOperands; here the same facts are observed on
// committed bundles: TADDS results (scalar0), Fault_BundleControl for an
// incomplete schema (the first generic commit check, src/tile/tile_ops.hpp
// step 3), and the TLOAD address / row stride the commit resolved (the
// bundle trace's scalar inputs, taken before the memory access).
void bior_schema_defaults() {
  // Selectors 24..31 in any field reject before B.IOR state changes.
  for (unsigned sel = 24; sel < 32; ++sel) {
    for (const std::uint64_t w : {raw_bior(sel, 0, 0, 0), raw_bior(0, sel, 0, 0), raw_bior(0, 0, sel, 0),
                                  raw_bior(0, 0, 0, sel)}) {
      Core c;
      EXPECT_EQ(c.exec(w), Cmd::Rejected) << std::hex << w;
      EXPECT_FALSE(c.s.block.scalar_bindings[0].valid);
    }
  }
  {  // a second B.IOR is Fault_BundleControl and keeps the first
    Core c;
    ASSERT_EQ(c.exec(tepl_code(0x20, kU64)), Cmd::Executed);
    EXPECT_EQ(c.exec(raw_bior(0, 2, 0, 0)), Cmd::Executed);
    EXPECT_EQ(c.exec(raw_bior(0, 3, 0, 0)), Cmd::Rejected);
    EXPECT_EQ(c.s.last_fault, FaultCode::Fault_BundleControl);
    EXPECT_TRUE(c.s.block.scalar_bindings[0].valid);
    EXPECT_EQ(c.s.block.scalar_bindings[0].source0, 2U);
  }
  // TADDS (selector 0x20) of T0 = 5; every GPR but R0 holds 100.  The
  // point's DataType U64 only feeds its completeness query; TADDS executes
  // U32 (not U64), and LB0 = 1 is its required ValidCol.
  const auto tadds = [](std::optional<std::uint64_t> ior) {
    BundleTestHost h(arch::MachineConfig::reference());
    configure_row(h, 0, tile::DataType::U32, {5});
    for (unsigned r = 1; r < arch::kAbsoluteGprCount; ++r) h.gpr[r] = 100;
    std::vector<std::uint64_t> w{tepl_code(0x20, kU32), bdim(0, 1), iot_src_to_dst(0, kPe0001, true)};
    if (ior) w.push_back(*ior);
    w.push_back(kBstop);
    const BundleOutcome o = h.run(w);
    return std::make_pair(o, o.ok() ? element_at(h, h.destination(), 0, 0) : ~std::uint64_t{0});
  };
  {
    const auto [o, v] = tadds(std::nullopt);  // omitted: complete, scalar0 = 0
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    EXPECT_EQ(v, 5U);
  }
  {
    const auto [o, v] = tadds(raw_bior(0, 0, 0, 0));  // encoded zero: R0
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault);
    EXPECT_EQ(v, 5U);
  }
  {
    const auto [o, v] = tadds(raw_bior(0, 2, 0, 0));  // control: RegSrc0 is read
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault);
    EXPECT_EQ(v, 105U);
  }
  {
    const auto [o, v] = tadds(raw_bior(0, 2, 3, 4));  // fields outside the one-source schema
    EXPECT_EQ(o.fault, FaultCode::Fault_BundleControl);
  }
  {  // TQUANT (0x6a) consumes two sources; one GPR for both is complete.
    BundleTestHost h(arch::MachineConfig::reference());
    configure_row(h, 0, tile::DataType::U64, {5});
    const BundleOutcome o =
        h.run({tepl_code(0x6a, kU64), iot_src_to_dst(0, kPe0001, true), raw_bior(0, 5, 5, 0), kBstop});
    EXPECT_NE(o.fault, FaultCode::Fault_BundleControl);
    BundleTestHost g(arch::MachineConfig::reference());  // control: a surplus RegSrc2 is incomplete
    configure_row(g, 0, tile::DataType::U64, {5});
    EXPECT_EQ(g.run({tepl_code(0x6a, kU64), iot_src_to_dst(0, kPe0001, true), raw_bior(0, 5, 5, 5), kBstop}).fault,
              FaultCode::Fault_BundleControl);
  }
  // TLOAD U64 ->T<1> mask 1111: RegSrc0 = base, RegSrc1 = byte row stride;
  // omission = base 0 and the dense stride LB2 x 8 bytes.  The point uses
  // LB2 = 7 (stride 56) in an operand query only; an executing load needs a
  // power-of-two physical Col (see the undersized-allocation point), so the
  // same rule is checked with LB2 = 8 -> 64.  LB0 = 1 (ValidCol) and LB1 = 2
  // (ValidRow) make the second row show the stride; memory holds 0x1000 +
  // address at 0 and 64.
  const auto tload = [](std::optional<std::uint64_t> ior, Word r2, Word r3) {
    BundleTestHost h(arch::MachineConfig::reference());
    h.m.memory.write(0, 8, 0x1000);
    h.m.memory.write(64, 8, 0x1040);
    h.gpr[2] = r2;
    h.gpr[3] = r3;
    std::vector<std::uint64_t> w{tload_start(kU64), bdim(0, 1), bdim(1, 2), bdim(2, 8), iot_dst_only(7, true)};
    if (ior) w.push_back(*ior);
    w.push_back(kBstop);
    const BundleOutcome o = h.run(w);
    std::uint64_t row1 = ~0ULL;
    if (o.ok()) row1 = element_at(h, h.destination(), 1, 0);
    return std::make_pair(o, row1);
  };
  {
    const auto [o, row1] = tload(std::nullopt, 0, 0);
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    EXPECT_EQ(o.trace.scalar_inputs, (std::vector<std::uint64_t>{0, 64}));
    EXPECT_EQ(row1, 0x1040U);
  }
  {
    const auto [o, row1] = tload(raw_bior(0, 0, 0, 0), 0, 0);
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault);
    EXPECT_EQ(o.trace.scalar_inputs, (std::vector<std::uint64_t>{0, 0}));
    EXPECT_EQ(row1, 0x1000U);
  }
  {  // base 11 is not 8-byte aligned: DataAlignment at 11 after the operands resolved
    const auto [o, row1] = tload(raw_bior(0, 2, 3, 0), 11, 13);
    EXPECT_EQ(o.fault, FaultCode::Fault_DataAlignment);
    EXPECT_EQ(o.fault_address, 11U);
    EXPECT_EQ(o.trace.scalar_inputs, (std::vector<std::uint64_t>{11, 13}));
  }
}

TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_B_IOR_DEFAULTS_EXEC_001) { bior_schema_defaults(); }

// TestBundleOrderedGPRControls (asl/block/operands/B.IOR.asl), shared by
// PTO-AVS-BLOCK-B-IOR-ORDER-EXEC-002, -ORDERED-GPR-EXECUTION-001 and
// -EXECUTION-001 (three copies of the same ASL function).  The operands
// BundleTileInstructionOperands packs are observed in committed results:
// TCI (start, descending), TTRI (diagonal, upper), TSORT / TMRGSORT
// (descending); illegal raw values are Fault_TileLegality, a nonzero RegDst
// or surplus source Fault_BundleControl.
using U64Pair = std::pair<std::uint64_t, std::uint64_t>;

void ordered_gpr_controls() {
  const auto tci = [](std::optional<std::uint64_t> ior) {
    BundleTestHost h(arch::MachineConfig::reference());
    h.gpr[2] = 5;
    h.gpr[3] = 1;
    std::vector<std::uint64_t> w{tepl_code(0x66, kU32), bdim(0, 2), iot_dst_only(kPe0001, true)};
    if (ior) w.push_back(*ior);
    w.push_back(kBstop);
    const BundleOutcome o = h.run(w);
    EXPECT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    return o.ok() ? U64Pair{element_at(h, h.destination(), 0, 0), element_at(h, h.destination(), 0, 1)}
                  : U64Pair{~0ULL, ~0ULL};
  };
  // scalar0 = R2 = 5, flag0 = R3 = 1 (descending): 5, 4.
  EXPECT_EQ(tci(raw_bior(0, 2, 3, 0)), (U64Pair{5, 4}));
  // omitted: 0, ascending.
  EXPECT_EQ(tci(std::nullopt), (U64Pair{0, 1}));

  // TTRI U32 1x2: diagonal from RegSrc0, upper from RegSrc1.
  const auto ttri = [](Word diagonal, Word upper, unsigned upper_reg) {
    BundleTestHost h(arch::MachineConfig::reference());
    h.gpr[4] = diagonal;
    h.gpr[5] = upper;
    const BundleOutcome o = h.run(
        {tepl_code(0x67, kU32), bdim(0, 2), iot_dst_only(kPe0001, true), raw_bior(0, 4, upper_reg, 0), kBstop});
    U64Pair v{~0ULL, ~0ULL};
    if (o.ok()) v = {element_at(h, h.destination(), 0, 0), element_at(h, h.destination(), 0, 1)};
    return std::make_pair(o, v);
  };
  {  // diagonal -65535, upper: c >= r - 65535 everywhere -> 1, 1
    const auto [o, v] = ttri(~Word{65534}, 1, 5);
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault);
    EXPECT_EQ(v, (U64Pair{1, 1}));
  }
  {  // diagonal +65535, lower (R0): c <= r + 65535 everywhere -> 1, 1
    const auto [o, v] = ttri(65535, 0, 0);
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault);
    EXPECT_EQ(v, (U64Pair{1, 1}));
  }
  EXPECT_EQ(ttri(65536, 0, 0).first.fault, FaultCode::Fault_TileLegality);

  // TSORT FP32 of M#0 = 1, 2, 3, 4 with flag0 from RegSrc0 (R6).
  const auto tsort = [](Word flag, std::uint64_t ior) {
    BundleTestHost h(arch::MachineConfig::reference());
    configure_row(h, 32, tile::DataType::FP32, {kFp32One, kFp32Two, kFp32Three, kFp32Four});
    h.gpr[6] = flag;
    const BundleOutcome o = h.run({tepl_code(0x6c, kFP32), iot_src_to_dst(32, kPe0001, false),
                                   iot_dst_only(kPe0001, true, 1), ior, kBstop});
    std::uint64_t first = ~0ULL;
    if (o.ok()) first = element_at(h, h.destination(), 0, 0);
    return std::make_pair(o, first);
  };
  {
    const auto [o, first] = tsort(1, raw_bior(0, 6, 0, 0));  // descending
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    EXPECT_EQ(first, kFp32Four);
  }
  {
    const auto [o, first] = tsort(0, raw_bior(0, 6, 0, 0));  // control: ascending
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault);
    EXPECT_EQ(first, kFp32One);
  }
  EXPECT_EQ(tsort(2, raw_bior(0, 6, 0, 0)).first.fault, FaultCode::Fault_TileLegality);  // raw boolean 2
  EXPECT_EQ(tsort(1, raw_bior(1, 0, 0, 0)).first.fault, FaultCode::Fault_BundleControl);  // RegDst
  EXPECT_EQ(tsort(1, raw_bior(0, 6, 0, 1)).first.fault, FaultCode::Fault_BundleControl);  // surplus RegSrc2

  {  // TMRGSORT FP32 of two descending runs with flag0 = 1: 4, 3, 2, 1.
    BundleTestHost h(arch::MachineConfig::reference());
    configure_row(h, 32, tile::DataType::FP32, {kFp32Two, kFp32One});
    configure_row(h, 33, tile::DataType::FP32, {kFp32Four, kFp32Three});
    h.gpr[6] = 1;
    const BundleOutcome o =
        h.run({tepl_code(0x6d, kFP32), iot_two_to_dst(32, 33, kPe0001), raw_bior(0, 6, 0, 0), kBstop});
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    EXPECT_EQ(element_at(h, h.destination(), 0, 0), kFp32Four);
    EXPECT_EQ(element_at(h, h.destination(), 0, 3), kFp32One);
  }
}

TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_B_IOR_ORDER_EXEC_002) { ordered_gpr_controls(); }
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_B_IOR_ORDERED_GPR_EXECUTION_001) { ordered_gpr_controls(); }
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_B_IOR_EXECUTION_001) { ordered_gpr_controls(); }

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// ================================================================ model/lifecycle/lifetime

bool any_allocated(const BundleTestHost& h, unsigned first, unsigned last) {
  for (unsigned i = first; i <= last; ++i)
    if (h.file.tile(static_cast<tile::TileIndex>(i)).allocated()) return true;
  return false;
}

// PTO-AVS-BLOCK-TESTBUNDLETILEUNDERSIZEDALLOCATION-EXECUTION-001
// (block/model/lifecycle/lifetime.asl): a destination whose SizeCode is too
// small for the derived shape, and a non-power-of-two physical Col (LB2 = 3),
// are Fault_TileAllocation with no hand-T tile allocated and the source
// intact.  The ASL installs a TEPL selector 0 / U64 descriptor and calls
// ResolveBundleTileDestinations; here a complete TADDS U32 bundle (one Local
// source, as the point's binding) and a TLOAD reach the same destination
// resolution.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLETILEUNDERSIZEDALLOCATION_EXECUTION_001) {
  {
    BundleTestHost h(arch::MachineConfig::reference());
    tile::ConfigureRequest r;  // U16 (hand U): 128 x 1 U32, capacity 1024
    r.capacity_bytes = 1024;
    r.columns = 1;
    r.valid_rows = 128;
    r.valid_columns = 1;
    r.data_type = tile::DataType::U32;
    r.mask = 0b0001;
    ASSERT_EQ(h.file.configure(16, r), arch::FaultCode::Fault_None);
    for (std::uint32_t row = 0; row < 128; ++row) h.file.tile(16).write_element(row, 0, row);
    // ->T<SizeCode 1> = 128 bytes per PE < 128 x 4 bytes.
    const BundleOutcome o = h.run({tepl_code(0x20, kU32), bdim(0, 1), bdim(1, 128), iot_src_to_dst(16, kPe0001, true),
                                   kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileAllocation);
    EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
    EXPECT_TRUE(h.file.tile(16).allocated());
    EXPECT_EQ(element_at(h, 16, 127, 0), 127U);
    EXPECT_FALSE(any_allocated(h, 0, 15));
  }
  {
    // LB0 = 2 (ValidCol), LB1 = 2, LB2 = 3 (physical Col): a TLOAD (no source
    // whose shape TADDS would compare first) reaches destination resolution.
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o = h.run({tload_start(kU64), bdim(0, 2), bdim(1, 2), bdim(2, 3), iot_dst_only(7, true), kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileAllocation);
    EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
    EXPECT_FALSE(any_allocated(h, 0, 15));
  }
}

// PTO-AVS-BLOCK-TESTBUNDLETILEALLOCATIONANDLIFETIME-EXECUTION-001
// (block/model/lifecycle/lifetime.asl): two 256-byte sources use 512 bytes;
// an attempt rejected after destination allocation rolls the destination
// back (512 again, sources kept); a successful attempt keeps its destination
// and both sources (L ends the bindings, not the source lifetimes).  The ASL
// binds SizeCode 3 with mask 1111 (2560 = 512 + 4 x 512) without executing
// an operation; an executing TADD needs the destination to match its
// 256-byte, one-PE sources (SizeCode 2, mask 0001), so 512 + 256 = 768.  The ASL forces the rejection with
// FinalizeBundleTileAttempt(Rejected); architecturally the same rollback
// follows the source-definedness check that runs after allocation (an
// undefined T1, src/tile/tile_ops.hpp step 9).  Not expressed: the capacity
// while the rejected attempt is in flight (2560, internal to one attempt).
// The final AddBundleTileBinding with SizeCode 0 is the helper's
// Fault_TileLegality; the encoded B.IOT with SizeCode 0 is already rejected
// by its catalog constraint (Fault_IllegalInstruction, ADR 0096), which is
// what is checked.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTBUNDLETILEALLOCATIONANDLIFETIME_EXECUTION_001) {
  BundleTestHost h(arch::MachineConfig::reference());
  tile::ConfigureRequest r;
  r.capacity_bytes = 256;
  r.columns = 1;
  r.valid_rows = 1;
  r.valid_columns = 1;
  r.data_type = tile::DataType::U32;
  r.mask = 0b0001;
  ASSERT_EQ(h.file.configure(0, r), arch::FaultCode::Fault_None);
  ASSERT_EQ(h.file.configure(1, r), arch::FaultCode::Fault_None);
  h.file.tile(0).write_element(0, 0, 7);
  EXPECT_EQ(h.file.core_capacity_in_use(), 512U);
  // TADD U32 T0, T1 -> hand M (2), SizeCode 2 (256 bytes), mask 0001.
  const std::vector<std::uint64_t> tadd{tepl_code(0, kU32), bdim(0, 1), iot_binary(kPe0001, 2, 2, 0, 1), kBstop};
  const BundleOutcome rejected = h.run(tadd);
  EXPECT_EQ(rejected.fault, FaultCode::Fault_TileLegality);
  EXPECT_FALSE(rejected.trace.destinations.empty());  // the destination had been resolved (allocated)
  EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
  EXPECT_EQ(h.file.core_capacity_in_use(), 512U);
  EXPECT_FALSE(any_allocated(h, 32, 47));
  EXPECT_TRUE(h.file.tile(0).allocated());
  EXPECT_TRUE(h.file.tile(1).allocated());

  h.file.tile(1).write_element(0, 0, 9);
  ASSERT_TRUE(h.m.recover_trap_context(0));  // the terminator re-executes
  const BundleOutcome committed = h.run({kBstop});
  ASSERT_TRUE(committed.ok()) << arch::fault_name(committed.fault) << " " << committed.message;
  const tile::TileIndex d = h.destination();
  EXPECT_TRUE(h.file.tile(d).allocated());
  EXPECT_EQ(h.file.allocation_mask(d), 0b0001U);
  EXPECT_EQ(h.file.core_capacity_in_use(), 512U + 256U);
  EXPECT_EQ(element_at(h, d, 0, 0), 16U);
  EXPECT_TRUE(h.file.tile(0).allocated());
  EXPECT_TRUE(h.file.tile(1).allocated());

  ASSERT_TRUE(h.run({tepl_code(0, kU32)}).ok());
  h.m.clear_fault();
  EXPECT_EQ(h.run({raw_biot_size0()}).fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_FALSE(h.state().tile_bindings[0].valid);
}

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// ================================================================ trap route and recover

// The live block state of the route-and-recover point
// (block-fault-trap-context-route-and-recover-001.asl) before its fault: a
// TEPL selector 0 / U64 descriptor in an active block body from ACR2, with
// dimensions, bindings, attributes and queue entries set by the ASL helpers
// (written here as the same state leaves).
struct RouteFixture {
  Core c;
  arch::BundleOperationDescriptor tepl;

  RouteFixture() {
    Core scratch;  // the descriptor our BSTART TEPL selector 0, U64 installs
    scratch.s.pc = 0x100;
    EXPECT_EQ(scratch.exec(tepl_start(0, 24)), Cmd::Executed);
    tepl = scratch.s.block.operation;

    c.m.set_current_acr(0);
    c.s.banked_reg(1, arch::kEvbaseLow) = kEvbaseRing1;  // WriteSystemRegisterAddress(0x1f01, 0x900)
    c.m.set_current_acr(2);
    c.s.pc = 0x300;
    c.s.bpc = 0x340;
    c.s.t_queue.push(0x11);
    c.s.u_queue.push(0x22);
    block::begin_bundle_at(c.m, c.s.pc, BundleKind::Standard, BundleTransfer::Direct, 0x500, 0x304, 0x304, true);
    // SetBundleArgument(0x55)
    c.s.block.bundle_argument = 0x55;
    c.s.block.bundle_argument_kind = 1;
    c.s.commit_argument = 0x55;
    arch::BlockState& b = c.s.block;
    b.operation = tepl;
    block::enter_bundle_body(c.m);
    b.dimensions[2] = 0x33;
    b.dimension_present[2] = true;
    b.scalar_bindings[31] = {true, 5, 2, 3, 4, 3};
    b.tile_bindings[15] = {true, true, 2, 2, false, 7, 0xF, true, true, 10, 11, true};
    b.control_attributes = {true, true, true, true, true, true, true};
    b.data_attributes.data_type = 1;
    b.data_attributes.data_layout = 3;
    b.data_attributes.pad_value = 3;
    b.data_attributes.comparison_mode = 1;
    b.data_attributes.rounding_mode = 2;
    b.data_attributes.saturating = true;
    b.data_attributes.canonicalize = false;
    b.header_dirty = true;  // not architectural: the model's "header written" marker
  }
};

// The route-and-recover point (tests/asl/block/model/faults/rollback/
// block-fault-trap-context-route-and-recover-001.asl, rollback.asl): a
// DataPage fault from ACR2 routes to ring 1 (TPC = EVBASE 0x900, TRAPNO 35)
// and saves the whole block state; after the live state is corrupted, ACRE
// (request 1) in ring 1's system block commits that block and recovers the
// context exactly.  The point's EBARG / ECSTATE context-register assertions
// are in TrapContextRouteAndRecoverContextRegisters below.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_BLOCK_TESTTRAPCONTEXTROUTEANDRECOVER_FAULT_001) {
  RouteFixture f;
  Core& c = f.c;
  EXPECT_EQ(c.s.current_acr, 2U);
  EXPECT_EQ(c.s.sysregs.core_state & 0xF, 0b0010U);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  c.m.set_fault(FaultCode::Fault_DataPage, 0x2222);
  EXPECT_EQ(c.s.current_acr, 1U);
  EXPECT_EQ(c.s.pc, kEvbaseRing1);
  EXPECT_EQ(c.s.trap_status[1].number, 35U);
  EXPECT_EQ(c.s.trap_status[1].argument0, 0x2222U);
  const arch::TrapContext& t = c.s.trap_contexts[1];
  EXPECT_TRUE(t.valid);
  EXPECT_EQ(t.source_acr, 2U);
  EXPECT_EQ(t.tpc, 0x304U);
  EXPECT_EQ(t.bpc, 0x300U);
  EXPECT_EQ(t.block.bundle_argument, 0x55U);
  EXPECT_TRUE(t.block.operation.valid);
  EXPECT_EQ(t.block.operation.form_identity, f.tepl.form_identity);
  EXPECT_EQ(t.block.operation.selector, 0U);
  EXPECT_EQ(t.block.operation.data_type, 24U);
  EXPECT_TRUE(t.block.bundle_body_active);
  EXPECT_EQ(t.block.dimensions[2], 0x33U);
  EXPECT_EQ(t.block.scalar_bindings[31].destination, 5U);
  EXPECT_EQ(t.block.tile_bindings[15].destination, 2U);
  EXPECT_TRUE(t.block.control_attributes.atomic);
  EXPECT_TRUE(t.block.data_attributes.saturating);
  EXPECT_EQ(t.t_queue.value[0], 0x11U);
  EXPECT_EQ(t.u_queue.value[0], 0x22U);

  // Corrupt the live state (the ASL avoids a second B.DIM for the same reason).
  c.s.pc = 0xabc;
  c.s.t_queue.push(0x99);
  c.s.block.dimensions[2] = ~Word{0};
  c.s.block.scalar_bindings[31] = {true, 1, 1, 1, 1, 1};
  c.s.block.tile_bindings[15] = {true, false, 1, 1, false, 0, 0b0011, false, false, 1, 1, false};
  c.s.block.control_attributes = {true, false, false, false, false, false, false};
  c.s.block.data_attributes = {};
  EXPECT_EQ(c.s.current_acr, 1U);
  EXPECT_TRUE(c.s.trap_contexts[1].valid);

  // The handler's live system block: no block, cleared header, SYS block at 0xa00.
  c.m.clear_fault();
  c.s.block = arch::BlockState{};
  c.s.pc = 0xa00;
  block::begin_bundle_at(c.m, c.s.pc, BundleKind::System, BundleTransfer::Fallthrough, 0, 0xa04, 0xa04, false);
  block::enter_bundle_body(c.m);
  EXPECT_EQ(c.s.current_acr, 1U);
  EXPECT_TRUE(c.m.trap_context_recoverable(1));
  EXPECT_EQ(c.exec(encode_insn(isa::Mnemonic::ACRE, {1}), 32), Cmd::Executed);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_None);
  EXPECT_FALSE(c.s.trap_contexts[1].valid);
  EXPECT_EQ(c.s.current_acr, 2U);
  EXPECT_EQ(c.s.pc, 0x304U);
  EXPECT_EQ(c.s.bpc, 0x300U);
  EXPECT_EQ(c.s.block.bundle_argument, 0x55U);
  EXPECT_TRUE(c.s.block.operation.valid);
  EXPECT_EQ(c.s.block.operation.form_identity, f.tepl.form_identity);
  EXPECT_EQ(c.s.block.operation.selector, 0U);
  EXPECT_EQ(c.s.block.operation.data_type, 24U);
  EXPECT_EQ(c.s.commit_argument, 0x55U);
  EXPECT_TRUE(c.s.block.bundle_body_active);
  EXPECT_EQ(c.s.t_queue.value[0], 0x11U);
  EXPECT_EQ(c.s.u_queue.value[0], 0x22U);
  EXPECT_EQ(c.s.block.dimensions[2], 0x33U);
  EXPECT_EQ(c.s.block.scalar_bindings[31].destination, 5U);
  EXPECT_EQ(c.s.block.scalar_bindings[31].source_count, 3U);
  EXPECT_EQ(c.s.block.tile_bindings[15].destination, 2U);
  EXPECT_EQ(c.s.block.tile_bindings[15].pe_mask, 0xFU);
  EXPECT_TRUE(c.s.block.control_attributes.atomic);
  EXPECT_TRUE(c.s.block.control_attributes.release);
  EXPECT_EQ(c.s.block.data_attributes.data_type, 1U);
  EXPECT_TRUE(c.s.block.data_attributes.saturating);
}

// The context-register part of the route-and-recover point: the reference
// profile's trap save (asl/arch/profile/reference-profile.asl) also writes
// the target ring's ECSTATE (0x0f00: CORE_STATE with [3:0] = source ring)
// and EBARG registers (0x0f40 control: [3:0] source ring, [4] = 1, ...;
// 0x0f41 = BPC, 0x0f43 = TPC), as Machine::save_trap_context does.
TEST(SpecPointsBlockLifecycleArch, TrapContextRouteAndRecoverContextRegisters) {
  RouteFixture f;
  Core& c = f.c;
  c.m.set_fault(FaultCode::Fault_DataPage, 0x2222);
  const Word control = c.s.banked_reg(1, 0xF40);
  const Word ecstate = c.s.banked_reg(1, arch::kEcstateLow);
  EXPECT_EQ((control >> 4) & 1, 1U);
  EXPECT_EQ(control & 0xF, ecstate & 0xF);
  EXPECT_EQ(control & 0xF, 0b0010U);
  EXPECT_EQ(c.s.banked_reg(1, 0xF41) & 1, 0U);
  EXPECT_EQ(c.s.banked_reg(1, arch::kEbargTpcLow), 0x304U);
  EXPECT_EQ(c.s.banked_reg(1, 0xF41), 0x300U);
}

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// ================================================================ predicate registers

// PTO-AVS-ARCH-TESTPREDICATESTATECONTRACT-STATE-TRANSITION-001
// (asl/arch/programming-model/predicate-registers.asl): P0 reads all ones
// (also after a write of zero), P1..P7 reset to zero; block begin, body and
// stop leave the predicates alone; a trap saves them and recovery restores
// them; an ACRE without a recoverable context is Fault_ExecutionStateCheck
// and leaves them alone.  Not expressed: PredicateRegisterHasInstructionConsumer
// (no instruction reads predicates, so there is nothing to execute) and
// ReadBranchPredicate (a BRU helper returning _CommitArgument, no
// instruction of its own); ArchitectureEnterRequest is issued as the ACRE
// instruction in a system block body.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_TESTPREDICATESTATECONTRACT_STATE_TRANSITION_001) {
  Core c;
  EXPECT_EQ(c.s.read_predicate(0), 0xFFFFFFFFU);
  for (unsigned i = 1; i < arch::kPredicateRegisterCount; ++i) EXPECT_EQ(c.s.read_predicate(i), 0U) << i;
  c.s.predicates[0] = 0;
  EXPECT_EQ(c.s.read_predicate(0), 0xFFFFFFFFU);
  c.s.predicates[1] = 0x11;
  c.s.predicates[7] = 0x80000001;
  c.s.commit_argument = 0xcc;
  block::begin_bundle_at(c.m, c.s.pc, BundleKind::Standard, BundleTransfer::Conditional, 0x80, 4, 4, false);
  EXPECT_TRUE(c.s.block.bundle_active);
  EXPECT_EQ(c.s.read_predicate(0), 0xFFFFFFFFU);
  block::enter_bundle_body(c.m);
  EXPECT_EQ(c.s.read_predicate(1), 0x11U);
  EXPECT_EQ(c.s.read_predicate(7), 0x80000001U);
  EXPECT_FALSE(scalar::is_fault(block::stop_bundle_at(c.m, 4)));
  EXPECT_FALSE(c.s.block.bundle_active);

  c.m.set_current_acr(15);
  c.s.pc = 0x200;
  c.m.set_fault(FaultCode::Fault_Assert, 0x200);
  EXPECT_EQ(c.s.current_acr, 1U);
  c.s.predicates[1] = 0;
  c.s.predicates[7] = 0;
  ASSERT_TRUE(c.m.recover_trap_context(c.s.current_acr));
  EXPECT_EQ(c.s.read_predicate(0), 0xFFFFFFFFU);
  EXPECT_EQ(c.s.read_predicate(1), 0x11U);
  EXPECT_EQ(c.s.read_predicate(7), 0x80000001U);

  block::begin_bundle_at(c.m, c.s.pc, BundleKind::System, BundleTransfer::Fallthrough, 0, c.s.pc + 4, 0, false);
  block::enter_bundle_body(c.m);
  EXPECT_EQ(c.exec(encode_insn(isa::Mnemonic::ACRE, {1}), 32), Cmd::Rejected);
  EXPECT_EQ(c.s.last_fault, FaultCode::Fault_ExecutionStateCheck);
  EXPECT_EQ(c.s.read_predicate(7), 0x80000001U);
}

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// ================================================================ global memory access

// PTO-AVS-ARCH-GLOBAL-MEMORY-ACCESS-MASK-BOUNDARY-001
// (asl/arch/memory-model/global-memory-access.asl SharedStorePEMaskLegal,
// used by block/model/dispatch/shared-tlsu.asl): a Shared TSTORE (TLSU
// Function 1) accepts PE_MASK 0000 or 1111 only, the partition store
// (Function 14) zero and every nonzero subset; an illegal mask is
// Fault_TileLegality.  Run as Shared stores of S7 (B.IOS SizeCode 0 =
// source) to 0x700.  Not expressed: SharedStorePEMaskLegal(2, 1111) ==
// FALSE, a helper query for a Function that is not a Shared store and so
// never reaches this rule.
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_GLOBAL_MEMORY_ACCESS_MASK_BOUNDARY_001) {
  const auto shared_store = [](unsigned function, unsigned pe_mode) {
    BundleTestHost h;
    h.gpr[2] = 0x700;
    const std::uint64_t ios_source =
        encode_form(kBIos, {{"SharedTID", 7}, {"SizeCode", 0}, {"PEMode", pe_mode}});
    return h.run({tile_start(0x00011181, function, kU8), ios_source, bior(2, 0), kBstop});
  };
  // PEMode: 0 -> 0000, 4 -> 0001, 5 -> 1100, 7 -> 1111.
  EXPECT_TRUE(shared_store(1, 0).ok());
  EXPECT_TRUE(shared_store(1, 7).ok());
  EXPECT_EQ(shared_store(1, 4).fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(shared_store(1, 5).fault, FaultCode::Fault_TileLegality);
  for (const unsigned pe_mode : {0U, 4U, 5U, 7U}) EXPECT_TRUE(shared_store(14, pe_mode).ok()) << pe_mode;
}

}  // namespace
}  // namespace pto::test

namespace pto::test {
namespace {

// ================================================================ memory-model ordering

// PTO-AVS-ARCH-TILE-EVENTS-ORDER-003 (tests/asl/arch/memory-model/ordering/
// arch-order-tile-events-003.asl, TestProductionTileEventExtraction): TLOAD,
// TSTORE, MGATHER and MSCATTER of one U64 element each capture exactly one
// Load / Store event (TLOAD with the capturing agent and the element address,
// TSTORE with the element address; load-store.asl TLOAD / TSTORE call
// RecordLoadEvent / RecordStoreEvent per element); a scalar store and a
// following TLOAD share one event domain and program order, and the load
// reads from that store; a TPREFETCH of the all-ones base faults DataPage
// before any event, and one of 0x500 (stride 2, 2x1 of Col 2, U8) records
// eight loads grouped by PE (agents 0, 1, 2, 3 at events 0, 2, 4, 6).  The
// ASL's direct helper calls are complete one-PE bundles here (mask 0001 =
// PE3: the captures use agent 3 and PE3's a2 holds the base; TPREFETCH is
// implicitly all four PEs, each PE's a2/a3 set); its AddInitialWriteEvent at
// index 0 is a captured scalar store of the same value.  Not expressed:
// MemoryCandidateExecutionValid / MemoryExecutionAllowedTSO and the
// TestTSOMixedSizeAndConditionalAtomicPolicy part (axiomatic checks over
// hand-built candidate executions; our machine has no such checker).
TEST(SpecPointsBlockLifecycleArch, PTO_AVS_ARCH_TILE_EVENTS_ORDER_003) {
  const Word source = 0x500, destination = 0x508;
  const auto host = [&](BundleTestHost& h) {
    h.m.memory.write(source, 8, 7);
    configure_row(h, 41, tile::DataType::U64, {7});
    configure_row(h, 42, tile::DataType::U64, {0});  // displacement / index 0
  };
  {  // TLOAD
    BundleTestHost h(arch::MachineConfig::reference());
    host(h);
    h.m.state.gpr[3][2] = source;  // PE3's a2: the base the one-PE (mask 0001) access reads
    h.m.start_memory_event_capture(3);
    ASSERT_TRUE(h.run({tload_start(kU64), bdim(0, 1), iot_dst_only(kPe0001, true), bior(2, 0), kBstop}).ok());
    EXPECT_EQ(h.m.state.memory_event_count, 1U);
    EXPECT_EQ(h.m.state.memory_events[0].kind, arch::MemoryEventKind::Load);
    EXPECT_EQ(h.m.state.memory_events[0].agent, 3U);
    EXPECT_EQ(h.m.state.memory_events[0].address, source);
  }
  {  // TSTORE
    BundleTestHost h(arch::MachineConfig::reference());
    host(h);
    h.m.state.gpr[3][2] = destination;
    h.m.start_memory_event_capture(3);
    ASSERT_TRUE(h.run({tstore_start(kU64), iot_source(kPe0001, 41), bior(2, 0), kBstop}).ok());
    EXPECT_EQ(h.m.state.memory_event_count, 1U);
    EXPECT_EQ(h.m.state.memory_events[0].kind, arch::MemoryEventKind::Store);
    EXPECT_EQ(h.m.state.memory_events[0].address, destination);
  }
  {  // MGATHER
    BundleTestHost h(arch::MachineConfig::reference());
    host(h);
    h.m.state.gpr[3][2] = source;
    h.m.start_memory_event_capture(3);
    const BundleOutcome o = h.run({tile_start(0x00011181, 4, kU64), bdim(0, 1), iot_src_to_dst(42, kPe0001, true),
                                   bior(2, 0), kBstop});
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    EXPECT_EQ(h.m.state.memory_event_count, 1U);
    EXPECT_EQ(h.m.state.memory_events[0].kind, arch::MemoryEventKind::Load);
  }
  {  // MSCATTER
    BundleTestHost h(arch::MachineConfig::reference());
    host(h);
    h.m.state.gpr[3][2] = destination;
    h.m.start_memory_event_capture(3);
    const std::uint64_t iot_values_displacements =
        encode_form(kBIotSrcSrc, {{"SrcTile0", 41}, {"SrcTile1", 42}, {"PEMode", kPe0001}, {"L", 1}});
    const BundleOutcome o = h.run({tile_start(0x00011181, 5, kU64), bdim(0, 1), bdim(2, 1), iot_values_displacements,
                                   bior(2, 0), kBstop});
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    EXPECT_EQ(h.m.state.memory_event_count, 1U);
    EXPECT_EQ(h.m.state.memory_events[0].kind, arch::MemoryEventKind::Store);
  }
  {  // scalar store, then TLOAD: one domain, same agent, read-from the store
    BundleTestHost h(arch::MachineConfig::reference());
    host(h);
    h.m.state.gpr[3][2] = source;
    h.m.start_memory_event_capture(3);
    ASSERT_TRUE(h.m.store(source, 8, 7));  // stands for the ASL's initial write (event 0)
    ASSERT_TRUE(h.m.store(source, 8, 8));
    ASSERT_TRUE(h.run({tload_start(kU64), bdim(0, 1), iot_dst_only(kPe0001, true), bior(2, 0), kBstop}).ok());
    EXPECT_EQ(h.m.state.memory_event_count, 3U);
    EXPECT_EQ(h.m.state.memory_events[1].kind, arch::MemoryEventKind::Store);
    EXPECT_EQ(h.m.state.memory_events[2].kind, arch::MemoryEventKind::Load);
    EXPECT_EQ(h.m.state.memory_events[1].agent, h.m.state.memory_events[2].agent);
    EXPECT_EQ(h.m.state.memory_events[2].read_from, 1U);
    EXPECT_EQ(element_at(h, h.destination(), 0, 0), 8U);
  }
  // TPREFETCHAllPEs(base, stride 2, ValidCol 2, ValidRow 1, Col 2, U8).
  const auto prefetch = [](BundleTestHost& h, Word base) {
    for (unsigned pe = 0; pe < 4; ++pe) {
      h.m.state.gpr[pe][2] = base;
      h.m.state.gpr[pe][3] = 2;
    }
    h.m.start_memory_event_capture(0);
    return h.run({tile_start(0x00011181, 3, kU8), bdim(0, 2), bdim(1, 1), bdim(2, 2), bior(2, 3), kBstop});
  };
  {
    BundleTestHost h(arch::MachineConfig::reference());
    EXPECT_EQ(prefetch(h, ~Word{0}).fault, FaultCode::Fault_DataPage);
    EXPECT_EQ(h.m.state.memory_event_count, 0U);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference());
    const BundleOutcome o = prefetch(h, source);
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
    ASSERT_EQ(h.m.state.memory_event_count, 8U);
    EXPECT_EQ(h.m.state.memory_events[0].kind, arch::MemoryEventKind::Load);
    EXPECT_EQ(h.m.state.memory_events[1].kind, arch::MemoryEventKind::Load);
    EXPECT_EQ(h.m.state.memory_events[0].agent, 0U);
    EXPECT_EQ(h.m.state.memory_events[2].agent, 1U);
    EXPECT_EQ(h.m.state.memory_events[4].agent, 2U);
    EXPECT_EQ(h.m.state.memory_events[6].agent, 3U);
  }
}

}  // namespace
}  // namespace pto::test
