// Hand translations of the spec's scalar-model test points
// (tests/asl/scalar/model/** and tests/asl/arch/data-types/**) that the
// automatic extractor skips because they call ASL model helpers directly or
// poke model-internal state.  Each test is named after its AVS id and drives
// the architectural counterpart of what the point asserts: encoded
// instructions through the machine's per-instruction entry point, or the
// public model API that implements the same ASL function.  Assertions with
// no architectural counterpart are listed in a comment on each test.
//
// Several points only call a validator that the spec generates
// (scripts/generate-asl-decoders --kind monolithic, e.g.
// ValidateCanonicalScalarSYSEffects).  Those validators are straight-line
// case lists.  Where the cases follow a simple rule (FENCE.D totality,
// SSRSWAP aliases) the test is a loop; otherwise
// tools/extract_sys_validator_tables.py converts the cases into data tables
// (tests/unit/generated/spec_sys_validator_tables.inc, namespace sysv: raw
// encodings, operand values and expected outcomes) run by sysv::run_steps.
#include <gtest/gtest.h>

#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <iterator>

#include "arch/machine.hpp"
#include "block/control.hpp"
#include "scalar/alu_semantics.hpp"
#include "scalar/system_registers.hpp"
#include "scalar_harness.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using arch::Word;
using M = isa::Mnemonic;

constexpr Word kOnes = ~Word{0};
constexpr Word kSignedMin = Word{1} << 63;
constexpr Word kSignedMax = kSignedMin - 1;
constexpr Word kMin32Sext = 0xFFFFFFFF80000000u;  // SignExtend(0x80000000)

Word fp_flags(const arch::State& st) { return (st.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F; }

void set_fp_flags(arch::State& st, Word flags) {
  st.sysregs.core_state = (st.sysregs.core_state & ~(Word{0x1F} << arch::kCoreStateFlagsShift)) |
                          ((flags & 0x1F) << arch::kCoreStateFlagsShift);
}

class SpecPointsScalarModel : public ::testing::Test {
 protected:
  ScalarHarness h;
  arch::State& st = h.state();
  // IEEE profile: the floating-point points are about rounding-mode
  // selection and sticky flags, which IEEE results make observable.
  ScalarHarness hi{arch::MachineConfig::real()};
  arch::State& si = hi.state();

  ScalarResult run(M m, std::initializer_list<std::int64_t> fields) {
    return h.execute(encode_insn(m, fields), length_of(m));
  }
  void ok(M m, std::initializer_list<std::int64_t> fields) {
    ASSERT_EQ(run(m, fields), ScalarResult::Executed) << isa::mnemonic_name(m);
    EXPECT_EQ(st.last_fault, FaultCode::Fault_None) << isa::mnemonic_name(m);
  }
  Word r(unsigned i) const { return st.read_gpr(i); }
  void set(unsigned i, Word v) { st.write_gpr(i, v); }
  ScalarResult runi(M m, std::initializer_list<std::int64_t> fields) {
    return hi.execute(encode_insn(m, fields), length_of(m));
  }
  void reset() { h.machine.reset(); }
  // An active SYS block whose body starts at `body_pc` (header at body_pc - 4;
  // the ASL points' BeginBundle(System) + EnterBundleBody).
  void enter_system_block(Word body_pc) {
    st.pc = body_pc - 4;
    block::begin_bundle_at(h.machine, body_pc - 4, arch::BundleKind::System, arch::BundleTransfer::Fallthrough, 0,
                           body_pc, body_pc, false);
    block::enter_bundle_body(h.machine);
    ASSERT_EQ(st.last_fault, FaultCode::Fault_None);
    ASSERT_EQ(st.pc, body_pc);
  }
  Word sysreg(scalar::SystemRegisterAddress a) {
    Word v = 0;
    EXPECT_TRUE(scalar::read_system_register(h.machine, a, v)) << std::hex << a;
    return v;
  }
  void set_sysreg(scalar::SystemRegisterAddress a, Word v) {
    EXPECT_TRUE(scalar::write_system_register(h.machine, a, v)) << std::hex << a;
  }
};

// ---------------------------------- table-driven generated validators ----

// The generated SYS validators (scripts/generate-asl-decoders) are long
// straight-line sequences of reset / setup / one raw encoding / checks.  The
// generated tables included below hold each validator's cases as data
// (encodings, operand values and expected outcomes; each case starts at
// Op::Reset), and run_steps drives them through our machine.  BeginSys is the
// validators' common BeginBundle(System, Fallthrough, 0, 0x100, 0, FALSE).
namespace sysv {

enum Op : std::uint8_t {
  Reset, SetAcr, ClearFault, WriteTpc, WriteBpc, Begin, BeginSys, Enter, WriteGpr, SetTQ, SetUQ, Exec, Fault, TlbEpoch,
  ArchEpoch, MaintOp, MaintOperand, CtrlReq, CtrlOperand, CtrlOperandLow4, Bpcn, TrapNumber, TrapCause, Acr, CtxTpc,
  Tpc, Gpr, SaveCtx, WriteSysreg, InitGprs, InitTQ, InitUQ, SetThreadPtr, RecordSource, RecordCycle,
  ThreadPtrEqSource, CycleDelta, TQ, UQ, ReadSysreg, ReadValue, SaveRead, ReadEqSaved, Banked, Bpc, ClearReservation,
  SetReservation, ReservationValid, SetReservationSize, SetReservationAddress, StartCapture, StopCapture, EventCount,
  EventIsFence, EventFenceSucc, EventFencePred, EventAgent, FencePred, FenceSucc, PushTQ, SetCycle, Cycle,
  SetTLBEpoch, SetArchitectureRequestEpoch, SetInstructionCacheEpoch, SetDataCacheEpoch, SetBundleCacheEpoch,
  InstructionCacheEpoch, DataCacheEpoch, BundleCacheEpoch, SetReturnAddress, SetCommitArgument, CtxValid, CtxSource,
  FaultAddress, ThreadPtr, SelectAgent, Store, Mem, EventKind, EventOrder, EventWrote, EventSize, EventRead,
  EventWriteValue, ReservationSize, ReservationAddress, ReturnAddress, CommitArgument,
};
struct Step {
  Op op;
  std::uint64_t a = 0, b = 0, c = 0, d = 0, e = 0;
};
template <typename E>
constexpr std::uint64_t U(E e) {
  return static_cast<std::uint64_t>(e);
}
using Kind = arch::BundleKind;
using Transfer = arch::BundleTransfer;
using Maint = arch::MaintenanceOperation;
using Ctrl = arch::ExecutionControlRequest;
using EvKind = arch::MemoryEventKind;
using Order = arch::MemoryOrder;
constexpr std::uint64_t kNone = U(FaultCode::Fault_None);
constexpr std::uint64_t kIllegalInstruction = U(FaultCode::Fault_IllegalInstruction);
constexpr std::uint64_t kExecutionStateCheck = U(FaultCode::Fault_ExecutionStateCheck);
constexpr std::uint64_t kServiceRequest = U(FaultCode::Fault_ServiceRequest);
constexpr std::uint64_t kSoftwareBreakpoint = U(FaultCode::Fault_SoftwareBreakpoint);
constexpr std::uint64_t kAssert = U(FaultCode::Fault_Assert);
constexpr std::uint64_t kDataPage = U(FaultCode::Fault_DataPage);

void run_steps(ScalarHarness& h, const Step* steps, std::size_t count) {
  arch::Machine& m = h.machine;
  arch::State& st = h.state();
  arch::SystemBookkeeping& b = st.bookkeeping;
  int case_no = -1;
  Word source = 0, cycle = 0, read = 0, saved = 0;
  for (std::size_t i = 0; i < count; ++i) {
    const Step& s = steps[i];
    const auto where = [&] { return testing::Message() << "case " << case_no << " step " << i; };
    switch (s.op) {
      case Op::Reset: ++case_no; m.reset(); break;
      case Op::SetAcr: m.set_current_acr(static_cast<unsigned>(s.a)); break;
      case Op::ClearFault: m.clear_fault(); break;
      case Op::WriteTpc: st.pc = s.a; break;
      case Op::WriteBpc: st.bpc = s.a; break;
      case Op::Begin:
        block::begin_bundle_at(m, st.pc, static_cast<Kind>(s.a), static_cast<Transfer>(s.b), s.c, s.d, s.e, false);
        break;
      case Op::BeginSys:  // the validators' common SYS block: body at 0x100
        block::begin_bundle_at(m, st.pc, Kind::System, Transfer::Fallthrough, 0, 0x100, 0, false);
        break;
      case Op::Enter: block::enter_bundle_body(m); break;
      case Op::WriteGpr: st.write_gpr(static_cast<unsigned>(s.a), s.b); break;
      case Op::SetTQ:
        st.t_queue.value[s.a] = s.b;
        st.t_queue.valid[s.a] = true;
        break;
      case Op::SetUQ:
        st.u_queue.value[s.a] = s.b;
        st.u_queue.valid[s.a] = true;
        break;
      case Op::Exec:
        EXPECT_EQ(h.execute(s.a, static_cast<unsigned>(s.b)), s.c ? ScalarResult::Executed : ScalarResult::Rejected)
            << where() << " bits 0x" << std::hex << s.a;
        break;
      case Op::Fault: EXPECT_EQ(U(st.last_fault), s.a) << where(); break;
      case Op::TlbEpoch: EXPECT_EQ(b.tlb_epoch, s.a) << where(); break;
      case Op::ArchEpoch: EXPECT_EQ(b.architecture_request_epoch, s.a) << where(); break;
      case Op::MaintOp: EXPECT_EQ(U(b.last_maintenance_operation), s.a) << where(); break;
      case Op::MaintOperand: EXPECT_EQ(b.last_maintenance_operand, s.a) << where(); break;
      case Op::CtrlReq: EXPECT_EQ(U(b.last_control_request), s.a) << where(); break;
      case Op::CtrlOperand: EXPECT_EQ(b.control_request_operand, s.a) << where(); break;
      case Op::CtrlOperandLow4: EXPECT_EQ(b.control_request_operand & 0xF, s.a) << where(); break;
      case Op::Bpcn: EXPECT_EQ(st.block.barg.bpcn, s.a) << where(); break;
      case Op::TrapNumber: EXPECT_EQ(st.trap_status[s.a].number, s.b) << where(); break;
      case Op::TrapCause: EXPECT_EQ(st.trap_status[s.a].cause, s.b) << where(); break;
      case Op::Acr: EXPECT_EQ(st.current_acr, s.a) << where(); break;
      case Op::CtxTpc: EXPECT_EQ(st.trap_contexts[s.a].tpc, s.b) << where(); break;
      case Op::Tpc: EXPECT_EQ(st.pc, s.a) << where(); break;
      case Op::Gpr: EXPECT_EQ(st.read_gpr(static_cast<unsigned>(s.a)), s.b) << where(); break;
      case Op::SaveCtx: m.save_trap_context(static_cast<unsigned>(s.a), static_cast<unsigned>(s.b)); break;
      case Op::InitGprs:  // GPR i = a + i for every absolute GPR
        for (unsigned g = 0; g < arch::kAbsoluteGprCount; ++g) st.write_gpr(g, s.a + g);
        break;
      case Op::InitTQ:  // t queue entry i = a + i, all valid
        for (unsigned q = 0; q < arch::kTemporaryQueueDepth; ++q) {
          st.t_queue.value[q] = s.a + q;
          st.t_queue.valid[q] = true;
        }
        break;
      case Op::InitUQ:
        for (unsigned q = 0; q < arch::kTemporaryQueueDepth; ++q) {
          st.u_queue.value[q] = s.a + q;
          st.u_queue.valid[q] = true;
        }
        break;
      case Op::SetThreadPtr: st.sysregs.thread_ptr = s.a; break;
      case Op::RecordSource: source = st.read_reg5(static_cast<unsigned>(s.a)); break;
      case Op::RecordCycle: cycle = st.sysregs.cycle; break;
      case Op::ThreadPtrEqSource: EXPECT_EQ(st.sysregs.thread_ptr, source) << where(); break;
      case Op::CycleDelta: EXPECT_EQ(st.sysregs.cycle, cycle + s.a) << where(); break;
      case Op::TQ: EXPECT_EQ(st.t_queue.value[s.a], s.b) << where(); break;
      case Op::UQ: EXPECT_EQ(st.u_queue.value[s.a], s.b) << where(); break;
      case Op::WriteSysreg:  // outcome checked by the Fault steps that follow
        static_cast<void>(scalar::write_system_register(m, static_cast<scalar::SystemRegisterAddress>(s.a), s.b));
        break;
      case Op::ReadSysreg:  // an illegal read yields zero
        read = 0;
        static_cast<void>(scalar::read_system_register(m, static_cast<scalar::SystemRegisterAddress>(s.a), read));
        break;
      case Op::ReadValue: EXPECT_EQ(read, s.a) << where(); break;
      case Op::SaveRead: saved = read; break;
      case Op::ReadEqSaved: EXPECT_EQ(read, saved) << where(); break;
      case Op::Bpc: EXPECT_EQ(st.bpc, s.a) << where(); break;
      case Op::ClearReservation: st.reservation_valid = false; break;
      case Op::SetReservation: st.reservation_valid = true; break;
      case Op::ReservationValid: EXPECT_EQ(st.reservation_valid, s.a != 0) << where(); break;
      case Op::SetReservationSize: st.reservation_size = static_cast<std::uint8_t>(s.a); break;
      case Op::SetReservationAddress: st.reservation_address = s.a; break;
      case Op::StartCapture: m.start_memory_event_capture(static_cast<unsigned>(s.a)); break;
      case Op::StopCapture: m.stop_memory_event_capture(); break;
      case Op::EventCount: EXPECT_EQ(st.memory_event_count, s.a) << where(); break;
      case Op::EventIsFence: EXPECT_EQ(st.memory_events[s.a].kind, arch::MemoryEventKind::Fence) << where(); break;
      case Op::EventFenceSucc: EXPECT_EQ(st.memory_events[s.a].fence_successor, s.b) << where(); break;
      case Op::EventFencePred: EXPECT_EQ(st.memory_events[s.a].fence_predecessor, s.b) << where(); break;
      case Op::EventAgent: EXPECT_EQ(st.memory_events[s.a].agent, s.b) << where(); break;
      case Op::FencePred: EXPECT_EQ(b.last_fence_predecessor, s.a) << where(); break;
      case Op::FenceSucc: EXPECT_EQ(b.last_fence_successor, s.a) << where(); break;
      case Op::PushTQ: st.t_queue.push(s.a); break;
      case Op::SetCycle: st.sysregs.cycle = s.a; break;
      case Op::Cycle: EXPECT_EQ(st.sysregs.cycle, s.a) << where(); break;
      case Op::SetTLBEpoch: b.tlb_epoch = s.a; break;
      case Op::SetArchitectureRequestEpoch: b.architecture_request_epoch = s.a; break;
      case Op::SetInstructionCacheEpoch: b.instruction_cache_epoch = s.a; break;
      case Op::SetDataCacheEpoch: b.data_cache_epoch = s.a; break;
      case Op::SetBundleCacheEpoch: b.bundle_cache_epoch = s.a; break;
      case Op::InstructionCacheEpoch: EXPECT_EQ(b.instruction_cache_epoch, s.a) << where(); break;
      case Op::DataCacheEpoch: EXPECT_EQ(b.data_cache_epoch, s.a) << where(); break;
      case Op::BundleCacheEpoch: EXPECT_EQ(b.bundle_cache_epoch, s.a) << where(); break;
      case Op::SetReturnAddress: st.return_address = s.a; break;
      case Op::SetCommitArgument: st.commit_argument = s.a; break;
      case Op::CtxValid: EXPECT_EQ(st.trap_contexts[s.a].valid, s.b != 0) << where(); break;
      case Op::CtxSource: EXPECT_EQ(st.trap_contexts[s.a].source_acr, s.b) << where(); break;
      case Op::FaultAddress: EXPECT_EQ(st.fault_address, s.a) << where(); break;
      case Op::ThreadPtr: EXPECT_EQ(st.sysregs.thread_ptr, s.a) << where(); break;
      case Op::SelectAgent: st.current_pe = static_cast<std::uint8_t>(s.a); break;  // SelectMemoryEventAgent
      case Op::Store: EXPECT_TRUE(m.store(s.a, static_cast<unsigned>(s.b), s.c)) << where(); break;
      case Op::Mem: {
        Word v = 0;
        EXPECT_TRUE(m.load(s.a, static_cast<unsigned>(s.b), v)) << where();
        EXPECT_EQ(v, s.c) << where() << " address 0x" << std::hex << s.a;
        break;
      }
      case Op::EventKind: EXPECT_EQ(U(st.memory_events[s.a].kind), s.b) << where(); break;
      case Op::EventOrder: EXPECT_EQ(U(st.memory_events[s.a].order), s.b) << where(); break;
      case Op::EventWrote: EXPECT_EQ(st.memory_events[s.a].write_performed, s.b != 0) << where(); break;
      case Op::EventSize: EXPECT_EQ(st.memory_events[s.a].size_bytes, s.b) << where(); break;
      case Op::EventRead: EXPECT_EQ(st.memory_events[s.a].read_value, s.b) << where(); break;
      case Op::EventWriteValue: EXPECT_EQ(st.memory_events[s.a].write_value, s.b) << where(); break;
      case Op::ReservationSize: EXPECT_EQ(st.reservation_size, s.a) << where(); break;
      case Op::ReservationAddress: EXPECT_EQ(st.reservation_address, s.a) << where(); break;
      case Op::ReturnAddress: EXPECT_EQ(st.return_address, s.a) << where(); break;
      case Op::CommitArgument: EXPECT_EQ(st.commit_argument, s.a) << where(); break;
      case Op::Banked: EXPECT_EQ(st.banked_reg(static_cast<unsigned>(s.a >> 12), s.a & 0xFFF), s.b) << where(); break;
    }
  }
}

// The step tables (kMaintLegality ... kAmoEffects) are generated from the
// validators by tools/extract_sys_validator_tables.py; rerun it after a
// spec update instead of editing the .inc.
#include "generated/spec_sys_validator_tables.inc"

}  // namespace sysv

// ------------------------------------------------------------------ ALU ----

// PTO-AVS-SCALAR-TESTSCALARALUBOUNDARYMATRIX-BOUNDARY-001
// (asl/scalar/model/alu/semantics.asl, TestScalarALUBoundaryMatrix).  The
// value rules are checked on scalar/alu_semantics.hpp (our implementation of
// the same ASL functions); the Execute*Pair helpers through the HL.* pair
// instructions that call them.  Not expressed: ApplySelectModifier (the
// select-modifier helper has no separate entry point in our model; CSEL
// tests cover it), SetCommitTarget's _BARG.bpcn bookkeeping and the
// SetReturnAddress case with TPC = all ones (an odd TPC cannot execute an
// instruction); the SetReturnAddress case with TPC = 0 runs as C.SETRET.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARALUBOUNDARYMATRIX_BOUNDARY_001) {
  using scalar::BinaryOp;
  using scalar::scalar_binary;
  using scalar::scalar_binary_w;
  EXPECT_EQ(scalar_binary(BinaryOp::ADD, 0, 0), 0u);
  EXPECT_EQ(scalar_binary(BinaryOp::ADD, kOnes, 1), 0u);
  EXPECT_EQ(scalar_binary(BinaryOp::SUB, 0, 1), kOnes);
  EXPECT_EQ(scalar_binary(BinaryOp::AND, kOnes, 0), 0u);
  EXPECT_EQ(scalar_binary(BinaryOp::OR, 0, kOnes), kOnes);
  EXPECT_EQ(scalar_binary(BinaryOp::XOR, kOnes, kOnes), 0u);
  EXPECT_EQ(scalar_binary(BinaryOp::SLL, 1, 0), 1u);
  EXPECT_EQ(scalar_binary(BinaryOp::SLL, 1, 63), kSignedMin);
  EXPECT_EQ(scalar_binary(BinaryOp::SLL, 1, 64), 1u);
  EXPECT_EQ(scalar_binary(BinaryOp::SRL, kSignedMin, 63), 1u);
  EXPECT_EQ(scalar_binary(BinaryOp::SRA, kSignedMin, 63), kOnes);
  EXPECT_EQ(scalar_binary(BinaryOp::MIN, kSignedMin, kSignedMax), kSignedMin);
  EXPECT_EQ(scalar_binary(BinaryOp::MAX, kSignedMin, kSignedMax), kSignedMax);
  EXPECT_EQ(scalar_binary(BinaryOp::MINU, 0, kOnes), 0u);
  EXPECT_EQ(scalar_binary(BinaryOp::MAXU, 0, kOnes), kOnes);

  EXPECT_EQ(scalar_binary_w(BinaryOp::ADD, 0x7fffffff, 1), kMin32Sext);
  EXPECT_EQ(scalar_binary_w(BinaryOp::SUB, 0, 1), kOnes);
  EXPECT_EQ(scalar_binary_w(BinaryOp::AND, kOnes, 0x80000000), kMin32Sext);
  EXPECT_EQ(scalar_binary_w(BinaryOp::SLL, 1, 31), kMin32Sext);
  EXPECT_EQ(scalar_binary_w(BinaryOp::SLL, 1, 32), 1u);
  EXPECT_EQ(scalar_binary_w(BinaryOp::SRA, 0x80000000, 31), kOnes);

  EXPECT_EQ(scalar::multiply_word(0, kOnes), 0u);
  EXPECT_EQ(scalar::multiply_word(kOnes, kOnes), 1u);
  EXPECT_EQ(scalar::scalar_multiply_w(0x80000000, 1), kMin32Sext);
  const scalar::U128 unsigned_square = scalar::multiply_wide_unsigned(kOnes, kOnes);
  EXPECT_EQ(static_cast<Word>(unsigned_square), 1u);
  EXPECT_EQ(static_cast<Word>(unsigned_square >> 64), kOnes - 1);
  const scalar::U128 signed_overflow = scalar::multiply_wide_signed(kSignedMin, kOnes);
  EXPECT_EQ(static_cast<Word>(signed_overflow), kSignedMin);
  EXPECT_EQ(static_cast<Word>(signed_overflow >> 64), 0u);

  EXPECT_EQ(scalar::scalar_divide_unsigned(kOnes, 0), 0u);
  EXPECT_EQ(scalar::scalar_remainder_unsigned(kOnes, 0), kOnes);
  EXPECT_EQ(scalar::scalar_divide_unsigned(kOnes, 1), kOnes);
  EXPECT_EQ(scalar::scalar_remainder_unsigned(kOnes, 1), 0u);
  EXPECT_EQ(scalar::scalar_divide_signed(kSignedMin, kOnes), kSignedMin);
  EXPECT_EQ(scalar::scalar_remainder_signed(kSignedMin, kOnes), 0u);
  EXPECT_EQ(scalar::scalar_divide_signed_w(0x80000000, kOnes), kMin32Sext);
  EXPECT_EQ(scalar::scalar_remainder_signed_w(0x80000000, kOnes), 0u);
  EXPECT_EQ(scalar::scalar_divide_unsigned_w(kOnes, 0), 0u);
  EXPECT_EQ(scalar::scalar_remainder_unsigned_w(kOnes, 0), kOnes);
  EXPECT_EQ(scalar::scalar_multiply_add(kOnes, 1, 1), 0u);
  EXPECT_EQ(scalar::scalar_multiply_add_w(0x7fffffff, 1, 1), kMin32Sext);
  EXPECT_EQ(scalar::scalar_multiply_immediate_add(0, kOnes, 0x7FFFF, false), Word{0} - 0x7FFFF);
  EXPECT_EQ(scalar::scalar_multiply_immediate_add(0, kOnes, 0x7FFFF, true), Word{0x7FFFF});

  // Execute*Pair through the pair instructions (RegDst0, RegDst1, sources).
  st.pc = 0x100;
  set(1, kOnes);
  set(2, kOnes);
  ok(M::HL_MULU, {4, 5, 1, 2});  // ExecuteScalarMultiplyPair(.., FALSE)
  EXPECT_EQ(r(4), 1u);
  EXPECT_EQ(r(5), kOnes - 1);
  set(2, 0);
  ok(M::HL_DIVU, {4, 5, 1, 2});  // ExecuteScalarDividePair(.., ones, zero, FALSE)
  EXPECT_EQ(r(4), 0u);
  EXPECT_EQ(r(5), kOnes);
  set(1, 0x80000000);
  set(2, kOnes);
  ok(M::HL_DIVW, {4, 5, 1, 2});  // ExecuteScalarDividePairW(.., TRUE)
  EXPECT_EQ(r(4), kMin32Sext);
  EXPECT_EQ(r(5), 0u);
  set(6, kOnes);  // addend
  set(1, 1);
  set(2, 1);
  ok(M::HL_MADD, {4, 5, 6, 1, 2});  // ExecuteScalarMultiplyAddPair(.., ones, one, one, FALSE)
  EXPECT_EQ(r(4), 0u);
  EXPECT_EQ(r(5), 0u);

  // ExecuteConcatenatePair / ExecuteConcatenatePairW: left = R1, right = R2.
  struct Ccat {
    unsigned shamt;
    Word low, high;
  };
  set(1, kSignedMin + 1);
  set(2, 2);
  for (const Ccat c : {Ccat{0, 2, kSignedMin + 1}, Ccat{63, 2, 1}, Ccat{64, kSignedMin + 1, 0}, Ccat{127, 1, 0}}) {
    ok(M::HL_CCAT, {4, 5, 1, 2, c.shamt});
    EXPECT_EQ(r(4), c.low) << "HL.CCAT shamt " << c.shamt;
    EXPECT_EQ(r(5), c.high) << "HL.CCAT shamt " << c.shamt;
  }
  set(1, 0x80000001);
  const Word left_w = 0xFFFFFFFF80000001u;
  for (const Ccat c : {Ccat{0, 2, left_w}, Ccat{31, 2, 1}, Ccat{32, left_w, 0}, Ccat{63, 1, 0}, Ccat{64, 0, 0},
                       Ccat{127, 0, 0}}) {
    ok(M::HL_CCATW, {4, 5, 1, 2, c.shamt});
    EXPECT_EQ(r(4), c.low) << "HL.CCATW shamt " << c.shamt;
    EXPECT_EQ(r(5), c.high) << "HL.CCATW shamt " << c.shamt;
  }

  // Bitfields.
  using scalar::BitCount;
  EXPECT_EQ(scalar::extract_bitfield(1, 1, 0, false), 1u);
  EXPECT_EQ(scalar::extract_bitfield(1, 64, 1, false), kSignedMin);
  EXPECT_EQ(scalar::extract_bitfield(1, 1, 0, true), kOnes);
  EXPECT_EQ(scalar::extract_bitfield(kSignedMin + 1, 2, 63, false), 3u);
  EXPECT_EQ(scalar::count_bitfield(0, 64, 0, BitCount::LeadingZeros), 64u);
  EXPECT_EQ(scalar::count_bitfield(0, 64, 0, BitCount::TrailingZeros), 64u);
  EXPECT_EQ(scalar::count_bitfield(kOnes, 64, 0, BitCount::Population), 64u);
  EXPECT_EQ(scalar::count_bitfield(kOnes, 64, 0, BitCount::LeadingZeros), 0u);
  EXPECT_EQ(scalar::modify_bitfield(kOnes, 64, 0, false), 0u);
  EXPECT_EQ(scalar::modify_bitfield(0, 64, 0, true), kOnes);
  EXPECT_EQ(scalar::reverse_bitfield_bytes(0x1122, 16, 0), 0x2211u);
  EXPECT_EQ(scalar::reverse_bitfield_bytes(kOnes, 1, 63), 0u);
  EXPECT_EQ(scalar::insert_bitfield(kOnes, 0, 0, 63), 0u);
  EXPECT_EQ(scalar::insert_bitfield(0, 3, 63, 0), kSignedMin + 1);

  // Materialisation, extension, selection.
  EXPECT_EQ(scalar::materialize_lui(0), 0u);
  EXPECT_EQ(scalar::materialize_lui(0xFFFFF), 0xfffffffffffff000u);
  EXPECT_EQ(scalar::materialize_long_signed(0x7fffffff), 0x7fffffffu);
  EXPECT_EQ(scalar::materialize_long_signed(0x80000000), kMin32Sext);
  EXPECT_EQ(scalar::materialize_long_unsigned(0xFFFFFFFF), 0xffffffffu);
  EXPECT_EQ(scalar::extend_scalar_value(0x80, 8, true), 0xffffffffffffff80u);
  EXPECT_EQ(scalar::extend_scalar_value(0xff, 8, false), 0xffu);
  EXPECT_EQ(scalar::extend_scalar_value(0x8000, 16, true), 0xffffffffffff8000u);
  EXPECT_EQ(scalar::extend_scalar_value(0xffff, 16, false), 0xffffu);
  EXPECT_EQ(scalar::extend_scalar_value(0x80000000, 32, true), 0xffffffff80000000u);
  EXPECT_EQ(scalar::extend_scalar_value(0xffffffff, 32, false), 0xffffffffu);
  EXPECT_EQ(scalar::scalar_conditional_select(0, 1, 2), 2u);
  EXPECT_EQ(scalar::scalar_conditional_select(1, 1, 2), 1u);
  EXPECT_EQ(scalar::scalar_conditional_select(kOnes, 1, 2), 1u);

  // SetReturnAddress(31) at TPC 0: R10 = _ReturnAddress = 62 (C.SETRET uimm5).
  st.pc = 0;
  ok(M::C_SETRET, {31});
  EXPECT_EQ(r(10), 62u);
  EXPECT_EQ(st.return_address, 62u);
}

// ------------------------------------------------------------- FP (FSU) ----

// PTO-AVS-SCALAR-FP-ROUND-001 (asl/scalar/model/dispatch/fsu.asl, generated
// ValidateScalarFPRoundingHelpers): CORE_STATE[39:37] selects RNE/RTM/RTP/RTZ
// for 0..3 and RNE for the reserved 4..7 (ScalarFPActiveRoundingMode);
// FCVTA/M/N/P/Z use RNA/RTM/RNE/RTP/RTZ whatever the active mode
// (ScalarFPFixedConversionRoundingMode).  Observed through SCVTF to FP32 of
// +-(2^24 + 3), a halfway case between 2^24+2 (odd) and 2^24+4 (even):
// RNE -> (+4, -4), RTM -> (+2, -4), RTP -> (+4, -2), RTZ -> (+2, -2).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_FP_ROUND_001) {
  constexpr Word kPlus = (Word{1} << 24) + 3;
  constexpr Word kMinus = Word{0} - kPlus;
  constexpr Word kPos2 = 0x4B800001u, kPos4 = 0x4B800002u, kNeg2 = 0xCB800001u, kNeg4 = 0xCB800002u;
  struct Expect {
    Word frm, pos, neg;
  };
  for (const Expect e : {Expect{0, kPos4, kNeg4}, Expect{1, kPos2, kNeg4}, Expect{2, kPos4, kNeg2},
                         Expect{3, kPos2, kNeg2}, Expect{4, kPos4, kNeg4}, Expect{5, kPos4, kNeg4},
                         Expect{6, kPos4, kNeg4}, Expect{7, kPos4, kNeg4}}) {
    si.sysregs.core_state = e.frm << arch::kCoreStateRoundingShift;
    si.write_gpr(1, kPlus);
    ASSERT_EQ(runi(M::SCVTF, {1, 3, 1, 0}), ScalarResult::Executed);  // DstType FP32, RegDst, SrcL, S64
    EXPECT_EQ(si.read_gpr(3), e.pos) << "frm " << e.frm;
    si.write_gpr(1, kMinus);
    ASSERT_EQ(runi(M::SCVTF, {1, 3, 1, 0}), ScalarResult::Executed);
    EXPECT_EQ(si.read_gpr(3), e.neg) << "frm " << e.frm;
  }
  // Fixed-mode conversions of +-2.5 to S64, with RTP active to show it is ignored.
  struct Fixed {
    M m;
    Word pos, neg;
  };
  const Word m2 = Word{0} - 2, m3 = Word{0} - 3;
  for (const Fixed f : {Fixed{M::FCVTA, 3, m3}, Fixed{M::FCVTM, 2, m3}, Fixed{M::FCVTN, 2, m2},
                        Fixed{M::FCVTP, 3, m2}, Fixed{M::FCVTZ, 2, m2}}) {
    for (const Word frm : {Word{0}, Word{2}}) {
      si.sysregs.core_state = frm << arch::kCoreStateRoundingShift;
      si.write_gpr(1, 0x4004000000000000u);  // 2.5
      ASSERT_EQ(runi(f.m, {8, 3, 1, 0}), ScalarResult::Executed);
      EXPECT_EQ(si.read_gpr(3), f.pos) << isa::mnemonic_name(f.m);
      si.write_gpr(1, 0xC004000000000000u);  // -2.5
      ASSERT_EQ(runi(f.m, {8, 3, 1, 0}), ScalarResult::Executed);
      EXPECT_EQ(si.read_gpr(3), f.neg) << isa::mnemonic_name(f.m);
    }
  }
}

// FP64 operands raising a known IEEE flag set; CORE_STATE[36:32] holds NV
// (bit 32) DZ OF UF NX (bit 36), as in PTO-AVS-FSU-FLTS-FLAGS-001 where NV
// reads as 0x01.
constexpr Word kFlagNV = 0x01, kFlagDZ = 0x02, kFlagOF = 0x04, kFlagUF = 0x08, kFlagNX = 0x10;
struct FlagOp {
  M m;
  Word left, right, flags;
};
constexpr FlagOp kFlagOps[] = {
    {M::FDIV, 0, 0, kFlagNV},                                            // 0/0
    {M::FDIV, 0x3FF0000000000000u, 0, kFlagDZ},                          // 1/0
    {M::FMUL, 0x7FEFFFFFFFFFFFFFu, 0x4000000000000000u, kFlagOF | kFlagNX},  // DBL_MAX * 2
    {M::FMUL, 1, 0x3FE0000000000000u, kFlagUF | kFlagNX},                // min subnormal * 0.5
    {M::FDIV, 0x3FF0000000000000u, 0x4008000000000000u, kFlagNX},        // 1/3
};

// PTO-AVS-SCALAR-FP-FLAGS-001 (asl/scalar/model/dispatch/fsu.asl, generated
// ValidateScalarFPFlagHelpers): for seeds 0,1,2,4,8,16,31 in CORE_STATE[36:32],
// recording a flag set leaves seed | incoming (ScalarFPRecordFlags).  The
// incoming sets come from real FP instructions: NV, DZ and NX alone; OF and
// UF cannot be raised without NX by any IEEE operation, so they are checked
// as OF|NX and UF|NX.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_FP_FLAGS_001) {
  for (const Word seed : {0, 1, 2, 4, 8, 16, 31}) {
    for (const FlagOp& op : kFlagOps) {
      si.sysregs.core_state = 0;
      set_fp_flags(si, seed);
      si.write_gpr(1, op.left);
      si.write_gpr(2, op.right);
      ASSERT_EQ(runi(op.m, {3, 1, 2, 0}), ScalarResult::Executed);
      EXPECT_EQ(fp_flags(si), seed | op.flags) << "seed " << seed << " incoming " << op.flags;
    }
  }
}

// PTO-AVS-SCALAR-TESTSCALARFPFLAGLIFECYCLE-STATE-TRANSITION-001
// (asl/scalar/model/fsu/arithmetic.asl, TestScalarFPFlagLifecycle): flags
// accumulate without touching the rest of CORE_STATE, a software CORE_STATE
// write replaces them without changing the ring, a trap's saved CORE_STATE
// restores them on recovery, and a rejected FSU encoding records none.
// ScalarFPRecordFlags('10101') is raised as NV (0/0) then OF|NX (overflow);
// '01010' as DZ (1/0) then UF|NX (underflow).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARFPFLAGLIFECYCLE_STATE_TRANSITION_001) {
  EXPECT_EQ(fp_flags(si), 0u);
  si.sysregs.core_state |= (Word{0xFFFFFF} << 40) | (Word{0xFFFFFFF} << 4);
  hi.machine.set_current_acr(15);
  auto fp = [&](const FlagOp& op) {
    si.write_gpr(1, op.left);
    si.write_gpr(2, op.right);
    ASSERT_EQ(runi(op.m, {3, 1, 2, 0}), ScalarResult::Executed);
  };
  fp(kFlagOps[0]);
  fp(kFlagOps[2]);
  EXPECT_EQ(fp_flags(si), 0b10101u);
  EXPECT_EQ(si.sysregs.core_state >> 40, 0xFFFFFFu);
  EXPECT_EQ((si.sysregs.core_state >> 4) & 0xFFFFFFF, 0xFFFFFFFu);
  fp(kFlagOps[1]);
  fp(kFlagOps[3]);
  EXPECT_EQ(fp_flags(si), 0x1Fu);

  Word software_state = si.sysregs.core_state;
  software_state = (software_state & ~(Word{0x1F} << 32)) | (Word{0b00101} << 32);
  ASSERT_TRUE(scalar::write_system_register(hi.machine, 0x020, software_state));  // CORE_STATE
  EXPECT_EQ(si.current_acr, 15);
  EXPECT_EQ(fp_flags(si), 0b00101u);

  si.pc = 0x200;
  hi.machine.set_fault(FaultCode::Fault_Assert, 0x200);
  EXPECT_EQ(si.current_acr, 1);
  set_fp_flags(si, 0);  // the handler clears the live flags
  ASSERT_TRUE(hi.machine.recover_trap_context(si.current_acr));
  EXPECT_EQ(si.current_acr, 15);
  EXPECT_EQ(fp_flags(si), 0b00101u);

  // Opcode 0x4b with [26:25] = '10' (a reserved SrcType): illegal.
  const std::uint64_t rejected = 0x4bu | (4u << 7) | (2u << 15) | (3u << 20) | (2u << 25);
  EXPECT_EQ(hi.execute(rejected, 32), ScalarResult::Rejected);
  EXPECT_EQ(si.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(fp_flags(si), 0b00101u);
}

// ---------------------------------------------------------- traps (arch) ----

// PTO-AVS-ARCH-TESTCOMPLETETRAPENVELOPE-FAULT-001
// (asl/arch/data-types/fault.asl, TestCompleteTrapEnvelope): every synchronous
// fault code maps to its trap number with argument valid, synchronous, cause
// 0 and argument = fault address, saves the ACR15 context in ACR1 and
// recovers it; the service request (ACRC '0001' from ACR2, the instruction
// form of RaiseServiceRequest) saves TPC+4 and vectors to EVBASE.
// Not expressed: the RaiseInterrupt case (trap 44, asynchronous) - our model
// has no interrupt-delivery entry point (interrupts only update IPENDING).
TEST_F(SpecPointsScalarModel, PTO_AVS_ARCH_TESTCOMPLETETRAPENVELOPE_FAULT_001) {
  struct Mapping {
    FaultCode code;
    unsigned number;
  };
  for (const Mapping mp : {Mapping{FaultCode::Fault_ExecutionStateCheck, 0},
                           Mapping{FaultCode::Fault_IllegalInstruction, 4}, Mapping{FaultCode::Fault_BundleControl, 5},
                           Mapping{FaultCode::Fault_BundlePostCommit, 5}, Mapping{FaultCode::Fault_TileLegality, 5},
                           Mapping{FaultCode::Fault_TileAllocation, 5}, Mapping{FaultCode::Fault_ServiceRequest, 6},
                           Mapping{FaultCode::Fault_InstructionPC, 32}, Mapping{FaultCode::Fault_InstructionPage, 33},
                           Mapping{FaultCode::Fault_DataAlignment, 34}, Mapping{FaultCode::Fault_DataPage, 35},
                           Mapping{FaultCode::Fault_HardwareBreakpoint, 49},
                           Mapping{FaultCode::Fault_SoftwareBreakpoint, 50},
                           Mapping{FaultCode::Fault_HardwareWatchpoint, 51}, Mapping{FaultCode::Fault_Assert, 52}}) {
    SCOPED_TRACE(static_cast<int>(mp.code));
    reset();
    h.machine.set_current_acr(15);
    st.pc = 0x1000;
    h.machine.set_fault(mp.code, 0x2000);
    EXPECT_EQ(st.current_acr, 1);
    EXPECT_EQ(st.trap_status[1].number, mp.number);
    EXPECT_TRUE(st.trap_status[1].argument_valid);
    EXPECT_FALSE(st.trap_status[1].asynchronous);
    EXPECT_EQ(st.trap_status[1].cause, 0u);
    EXPECT_EQ(st.trap_status[1].argument0, 0x2000u);
    EXPECT_TRUE(st.trap_contexts[1].valid);
    EXPECT_EQ(st.trap_contexts[1].source_acr, 15);
    EXPECT_EQ(st.trap_contexts[1].tpc, 0x1000u);
    ASSERT_TRUE(h.machine.recover_trap_context(st.current_acr));
    EXPECT_EQ(st.current_acr, 15);
    EXPECT_EQ(st.pc, 0x1000u);
    EXPECT_FALSE(st.trap_contexts[1].valid);
  }

  // CheckServiceRequestTrapMapping
  reset();
  set_sysreg(0x1f01, 0x900);  // EVBASE of ACR1
  h.machine.set_current_acr(2);
  enter_system_block(0x400);
  EXPECT_EQ(run(M::ACRC, {1}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_ServiceRequest);
  EXPECT_EQ(st.fault_address, 0x400u);
  EXPECT_EQ(st.current_acr, 1);
  EXPECT_EQ(st.trap_status[1].number, 6u);
  EXPECT_EQ(st.trap_status[1].argument0, 0x400u);
  EXPECT_EQ(st.trap_status[1].cause, 1u);
  EXPECT_FALSE(st.trap_status[1].asynchronous);
  EXPECT_TRUE(st.trap_status[1].argument_valid);
  EXPECT_EQ(st.trap_contexts[1].source_acr, 2);
  EXPECT_EQ(st.trap_contexts[1].tpc, 0x404u);
  EXPECT_EQ(st.banked_reg(1, arch::kEbargTpcLow), 0x404u);  // visible restart (EBARG_TPC)
  EXPECT_EQ(st.pc, 0x900u);
  ASSERT_TRUE(h.machine.recover_trap_context(st.current_acr));
  EXPECT_EQ(st.current_acr, 2);
  EXPECT_EQ(st.pc, 0x404u);
  EXPECT_FALSE(st.trap_contexts[1].valid);
}

// PTO-AVS-ARCH-TESTVISIBLETRAPCONTEXTREGISTERS-FAULT-001
// (asl/arch/data-types/trap-context.asl, TestVisibleTrapContextRegisters;
// PTO-REQ-SCALAR-SSR-001): EBARG words are banked per ring and writable from
// ACR0 only; they reset to zero; a trap save clears the saved LB/LC words
// (0x.f4d/0x.f4e) and keeps EXTCTX_PTR/EXTCTX_META/TPLFLAGS (0x.f4f..0x.f51);
// recovery consumes none of the five.
// The reference-profile SaveTrapContext writes the target bank's visible
// ECSTATE/EBARG words and zeroes EBARG_LB/LC (0x.f4d/0x.f4e), as
// arch::Machine::save_trap_context does.
TEST_F(SpecPointsScalarModel, PTO_AVS_ARCH_TESTVISIBLETRAPCONTEXTREGISTERS_FAULT_001) {
  reset();
  h.machine.set_current_acr(0);
  set_sysreg(0x0f40, 0x40);
  set_sysreg(0x1f45, 0x145);
  set_sysreg(0xff51, 0xf51);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(sysreg(0x0f40), 0x40u);
  EXPECT_EQ(sysreg(0x1f45), 0x145u);
  EXPECT_EQ(sysreg(0xff51), 0xf51u);
  EXPECT_EQ(sysreg(0x1f40), 0u);

  h.machine.set_current_acr(1);
  EXPECT_FALSE(scalar::write_system_register(h.machine, 0x1f40, kOnes));
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(st.current_acr, 1);

  reset();
  EXPECT_EQ(sysreg(0x0f40), 0u);
  EXPECT_EQ(sysreg(0x1f45), 0u);
  EXPECT_EQ(sysreg(0xff51), 0u);

  h.machine.set_current_acr(0);
  for (const unsigned low : {0xf4du, 0xf4eu, 0xf4fu, 0xf50u, 0xf51u}) set_sysreg(0x1000 | low, low & 0xFF);
  st.pc = 0x200;
  st.bpc = 0x100;
  h.machine.save_trap_context(1, 2);
  EXPECT_EQ(sysreg(0x1f4d), 0u);
  EXPECT_EQ(sysreg(0x1f4e), 0u);
  EXPECT_EQ(sysreg(0x1f4f), 0x4fu);
  EXPECT_EQ(sysreg(0x1f50), 0x50u);
  EXPECT_EQ(sysreg(0x1f51), 0x51u);

  for (const unsigned low : {0xf4du, 0xf4eu, 0xf4fu, 0xf50u, 0xf51u}) set_sysreg(0x1000 | low, 0x100 | (low & 0xFF));
  ASSERT_TRUE(h.machine.recover_trap_context(1));
  EXPECT_EQ(st.current_acr, 2);
  h.machine.set_current_acr(0);
  EXPECT_EQ(sysreg(0x1f4d), 0x14du);
  EXPECT_EQ(sysreg(0x1f4e), 0x14eu);
  EXPECT_EQ(sysreg(0x1f4f), 0x14fu);
  EXPECT_EQ(sysreg(0x1f50), 0x150u);
  EXPECT_EQ(sysreg(0x1f51), 0x151u);
}

// ---------------------------------------------------------- memory (AGU) ----

// PTO-AVS-SCALAR-TESTSCALARMEMORY-EXECUTION-001
// (asl/scalar/model/agu/memory.asl, TestScalarMemory): little-endian
// stores/loads, prefetch address wrap and side-effect freedom (no fault,
// no memory event, reservation kept, every prefetch model), alignment before
// the page/permission check, and the pre/post-index and pair forms
// (HL.SHI.PR, HL.LHUI.PO, HL.SHIP, HL.LHUIP; immediates are scaled by the
// access size, so byte offsets 8/2/6 are encoded as 4/1/3).  Prefetch models
// 3..31 of the helper loop are not encodable (see below).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARMEMORY_EXECUTION_001) {
  arch::Machine& m = h.machine;
  ASSERT_TRUE(m.store(16, 4, 0x44332211));
  Word byte = 0;
  ASSERT_TRUE(m.load(16, 1, byte));
  EXPECT_EQ(byte, 0x11u);
  ASSERT_TRUE(m.load(19, 1, byte));
  EXPECT_EQ(byte, 0x44u);
  Word loaded = 0;
  ASSERT_TRUE(m.load(16, 4, loaded));
  EXPECT_EQ(loaded, 0x44332211u);

  // ScalarPrefetchAddress(ones, 8) == 7: HL.PRFI.UA returns the address.
  st.pc = 0x100;
  set(1, kOnes);
  ok(M::HL_PRFI_UA, {3, 1, 0, 8});  // RegDst, SrcL, model, simm17 (unscaled)
  EXPECT_EQ(r(3), 7u);
  m.set_current_acr(2);
  st.reservation_valid = true;
  st.reservation_address = 64;
  m.start_memory_event_capture(0);
  // The helper is called with prefetch models 0..31; the encoded `model`
  // field only admits 0..2, so those are the architecturally reachable ones.
  for (int model = 0; model < 3; ++model) ok(M::HL_PRFI_U, {1, model, 8});
  EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(st.memory_event_count, 0);
  EXPECT_TRUE(st.reservation_valid);
  m.stop_memory_event_capture();

  // Alignment precedes the page/permission check.
  m.clear_fault();
  EXPECT_FALSE(m.load(3073, 8, loaded));
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(st.fault_address, 3073u);
  m.clear_fault();
  m.set_current_acr(2);
  EXPECT_FALSE(m.load(3072, 8, loaded));
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, 3072u);
  m.set_current_acr(0);
  m.clear_fault();
  EXPECT_FALSE(m.load(17, 4, loaded));
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(st.fault_address, 17u);

  m.clear_fault();
  st.pc = 0x100;
  set(2, 64);
  set(3, 0x1122);
  ok(M::HL_SHI_PR, {2, 3, 2, 4});  // [R2 + 8] = R3 (halfword), R2 += 8
  EXPECT_EQ(r(2), 72u);
  ok(M::HL_LHUI_PO, {4, 2, 2, 1});  // R4 = [R2], R2 += 2
  EXPECT_EQ(r(4), 0x1122u);
  EXPECT_EQ(r(2), 74u);
  set(5, 0x3344);
  ok(M::HL_SHIP, {3, 5, 2, 3});   // [R2 + 6] = R3, [R2 + 8] = R5
  ok(M::HL_LHUIP, {6, 7, 2, 3});  // R6 = [R2 + 6], R7 = [R2 + 8]
  EXPECT_EQ(r(6), 0x1122u);
  EXPECT_EQ(r(7), 0x3344u);
}

// PTO-AVS-SCALAR-TESTSCALARPAIRMEMORYCOMPLETION-EXECUTION-001
// (asl/scalar/model/agu/memory.asl + addressing.asl, PTO-REQ-MEMORY-COMPLETION-001):
// a pair access whose second half faults writes no register and no memory
// (HL.LDIP / HL.SDIP, 8-byte halves, the model memory ends at 4096).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARPAIRMEMORYCOMPLETION_EXECUTION_001) {
  arch::Machine& m = h.machine;
  st.pc = 0x100;
  set(2, 4088);
  set(6, 0x66);
  set(7, 0x77);
  ASSERT_TRUE(m.store(4088, 8, 0x88));
  m.clear_fault();
  EXPECT_EQ(run(M::HL_LDIP, {6, 7, 2, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, 4096u);
  EXPECT_EQ(r(6), 0x66u);
  EXPECT_EQ(r(7), 0x77u);
  EXPECT_EQ(r(2), 4088u);

  set(3, 0x33);
  set(5, 0x55);
  m.clear_fault();
  st.pc = 0x100;
  EXPECT_EQ(run(M::HL_SDIP, {3, 5, 2, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, 4096u);
  EXPECT_EQ(r(2), 4088u);
  m.clear_fault();
  Word preserved_first = 0;
  ASSERT_TRUE(m.load(4088, 8, preserved_first));
  EXPECT_EQ(preserved_first, 0x88u);

  set(2, 4096);
  set(6, 0x66);
  set(7, 0x77);
  m.clear_fault();
  st.pc = 0x100;
  EXPECT_EQ(run(M::HL_LDIP, {6, 7, 2, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, 4096u);
  EXPECT_EQ(r(6), 0x66u);
  EXPECT_EQ(r(7), 0x77u);

  ASSERT_TRUE(m.store(4000, 8, 0x11));
  ASSERT_TRUE(m.store(4008, 8, 0x22));
  set(2, 4000);
  m.clear_fault();
  st.pc = 0x100;
  ok(M::HL_LDIP, {6, 7, 2, 0});
  EXPECT_EQ(r(6), 0x11u);
  EXPECT_EQ(r(7), 0x22u);
  EXPECT_EQ(r(2), 4000u);
}

// PTO-AVS-SCALAR-TESTSCALARATOMICS-ATOMICITY-001
// (asl/scalar/model/amo/semantics.asl, TestScalarAtomics): LR/SC success and
// failure, fetch-add, CAS, and the 64-byte DMA copy (helper call and decoded
// encoding 0x0000700b), whose destination page fault leaves memory intact.
// Not expressed: the byte-wide AtomicReadModifyWrite(SMIN) case - PTO has no
// byte-sized fetch-and-op instruction (only the D and W forms).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARATOMICS_ATOMICITY_001) {
  arch::Machine& m = h.machine;
  st.pc = 0x100;
  ASSERT_TRUE(m.store(128, 8, 10));
  set(1, 128);
  ok(M::LR_D, {3, 1, 0, 1, 0, 0});  // acquire
  EXPECT_EQ(r(3), 10u);
  set(4, 11);
  ok(M::SC_D, {5, 4, 1, 0, 0, 1});  // release: success -> 0
  EXPECT_EQ(r(5), 0u);
  Word v = 0;
  ASSERT_TRUE(m.load(128, 8, v));
  EXPECT_EQ(v, 11u);
  set(4, 12);
  ok(M::SC_D, {5, 4, 1, 0, 0, 0});  // no reservation -> 1
  EXPECT_EQ(r(5), 1u);
  ASSERT_TRUE(m.load(128, 8, v));
  EXPECT_EQ(v, 11u);

  set(2, 9);
  ok(M::LD_ADD, {3, 1, 2, 1, 0, 1});  // acquire-release
  EXPECT_EQ(r(3), 11u);
  ASSERT_TRUE(m.load(128, 8, v));
  EXPECT_EQ(v, 20u);

  set(2, 20);  // expected
  set(4, 99);  // new value
  ok(M::CASD, {3, 4, 1, 2, 1, 1});
  EXPECT_EQ(r(3), 20u);
  ASSERT_TRUE(m.load(128, 8, v));
  EXPECT_EQ(v, 99u);

  for (Word i = 0; i < 64; ++i) {
    ASSERT_TRUE(m.store(256 + i, 1, i));
    ASSERT_TRUE(m.store(320 + i, 1, 0xaa));
  }
  m.clear_fault();
  set(1, 256);
  set(2, 320);
  ok(M::DMA, {1, 2});  // ExecuteScalarDMACopy64(256, 320)
  for (Word i = 0; i < 64; ++i) {
    ASSERT_TRUE(m.load(320 + i, 1, v));
    EXPECT_EQ(v, i) << i;
  }
  set(2, 320);
  set(3, 384);
  m.clear_fault();
  EXPECT_EQ(h.execute(0x700bu | (2u << 15) | (3u << 20), 32), ScalarResult::Executed);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
  for (Word i = 0; i < 64; ++i) {
    ASSERT_TRUE(m.load(384 + i, 1, v));
    EXPECT_EQ(v, i) << i;
  }
  ASSERT_TRUE(m.store(480, 1, 0x55));
  m.clear_fault();
  set(1, 320);
  set(2, 4080);
  EXPECT_EQ(run(M::DMA, {1, 2}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  m.clear_fault();
  ASSERT_TRUE(m.load(480, 1, v));
  EXPECT_EQ(v, 0x55u);
}

// ------------------------------------------------------- dispatch (raw) ----

// PTO-AVS-SCALAR-TESTSCALARDISPATCHEFFECTS-EXECUTION-001
// (asl/scalar/model/alu/semantics.asl, TestScalarDispatchEffects): the
// point's raw encodings through the per-instruction entry point.  The
// ExecuteSetCommit(EQ, 0, 1) helper call is expressed as SETC.EQ with
// registers holding 0 and 1.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARDISPATCHEFFECTS_EXECUTION_001) {
  arch::Machine& m = h.machine;
  m.clear_fault();
  st.pc = 0x100;
  set(2, 10);
  set(3, 3);
  const std::uint64_t add = 0x5u | (5u << 7) | (2u << 15) | (3u << 20) | (2u << 25) | (1u << 27);
  ASSERT_EQ(h.execute(add, 32), ScalarResult::Executed);
  EXPECT_EQ(r(5), 4u);
  EXPECT_EQ(st.pc, 0x104u);

  const std::uint64_t addi = 0x15u | (6u << 7) | (2u << 15) | (7u << 20);
  ASSERT_EQ(h.execute(addi, 32), ScalarResult::Executed);
  EXPECT_EQ(r(6), 17u);

  set(2, 0x7fffffff);
  set(3, 1);
  set(4, 1);
  const std::uint64_t maddw = 0x7047u | (7u << 7) | (3u << 15) | (4u << 20) | (2u << 27);
  ASSERT_EQ(h.execute(maddw, 32), ScalarResult::Executed);
  EXPECT_EQ(r(7), kMin32Sext);

  set(2, 8);
  set(3, 9);
  const std::uint64_t compressed_add = 0x0008u | (2u << 6) | (3u << 11);
  ASSERT_EQ(h.execute(compressed_add, 16), ScalarResult::Executed);
  EXPECT_EQ(st.t_queue.value[0], 17u);
  EXPECT_EQ(st.pc, 0x10eu);

  m.clear_fault();
  st.pc = 100;
  ASSERT_EQ(h.execute(0x0016u | (10u << 11), 16), ScalarResult::Executed);
  EXPECT_EQ(st.return_address, 100u);
  EXPECT_EQ(r(10), 100u);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_None);

  set(2, 0x0f);
  set(3, 0xf0);
  std::uint64_t compare_and = 0x2045u | (8u << 7) | (2u << 15) | (3u << 20);
  ASSERT_EQ(h.execute(compare_and, 32), ScalarResult::Executed);
  EXPECT_EQ(r(8), 0u);
  compare_and |= 3u << 25;
  ASSERT_EQ(h.execute(compare_and, 32), ScalarResult::Executed);
  EXPECT_EQ(r(8), 1u);

  // Conditional block, SETC immediate form (0x75) true -> target 106.
  set(2, 8);
  block::begin_bundle_at(m, st.pc, arch::BundleKind::Standard, arch::BundleTransfer::Conditional, 106, 104, 0, false);
  block::enter_bundle_body(m);
  const std::uint64_t set_commit_immediate = 0x75u | (3u << 7) | (2u << 15) | (1u << 20);
  ASSERT_EQ(h.execute(set_commit_immediate, 32), ScalarResult::Executed);
  EXPECT_EQ(st.commit_argument, 1u);
  EXPECT_FALSE(scalar::is_fault(block::complete_bundle(m, 104)));
  EXPECT_EQ(st.pc, 106u);

  // Condition false (EQ 0, 1) -> fall through to 104.
  block::begin_bundle_at(m, st.pc, arch::BundleKind::Standard, arch::BundleTransfer::Conditional, 106, 104, 0, false);
  block::enter_bundle_body(m);
  set(11, 0);
  set(12, 1);
  ok(M::SETC_EQ, {11, 12, 0});
  EXPECT_FALSE(scalar::is_fault(block::complete_bundle(m, 104)));
  EXPECT_EQ(st.pc, 104u);

  set(2, 200);
  const std::uint64_t jump_register = 0x6027u | (2u << 15) | (2u << 25);
  ASSERT_EQ(h.execute(jump_register, 32), ScalarResult::Executed);
  EXPECT_EQ(st.pc, 204u);

  m.clear_fault();
  EXPECT_EQ(h.execute(0, 32), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
}

// PTO-AVS-SCALAR-TESTSCALARSYSTEMDISPATCHEFFECTS-EXECUTION-001
// (asl/scalar/model/sys/semantics.asl, TestScalarSystemDispatchEffects): the
// point's raw SYS encodings in a SYS block body; the fence/maintenance/request
// bookkeeping is our SystemBookkeeping (the same ASL variables).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARSYSTEMDISPATCHEFFECTS_EXECUTION_001) {
  arch::Machine& m = h.machine;
  const arch::SystemBookkeeping& b = st.bookkeeping;
  m.set_current_acr(0);
  m.clear_fault();
  enter_system_block(0x84);
  set(5, 0x55);
  ASSERT_EQ(h.execute(0x103bu | (5u << 15), 32), ScalarResult::Executed);  // SSRSET THREAD_PTR
  EXPECT_EQ(st.sysregs.thread_ptr, 0x55u);
  ASSERT_EQ(h.execute(0x003bu | (6u << 7), 32), ScalarResult::Executed);  // SSRGET
  EXPECT_EQ(r(6), 0x55u);
  set(7, 0x66);
  ASSERT_EQ(h.execute(0x203bu | (8u << 7) | (7u << 15), 32), ScalarResult::Executed);  // SSRSWAP
  EXPECT_EQ(r(8), 0x55u);
  EXPECT_EQ(st.sysregs.thread_ptr, 0x66u);
  ASSERT_EQ(h.execute(0x802cu, 16), ScalarResult::Executed);  // C.SSRGET -> t
  EXPECT_EQ(st.t_queue.value[0], 0x66u);

  set(5, 0x1234);
  const std::uint64_t long_set =
      0x0000103b000eu | (std::uint64_t{0xf10} << 36) | (std::uint64_t{1} << 4) | (std::uint64_t{5} << 31);
  ASSERT_EQ(h.execute(long_set, 48), ScalarResult::Executed);
  EXPECT_EQ(sysreg(0x1f10), 0x1234u);

  const std::uint64_t before_data_cache = b.data_cache_epoch;
  ASSERT_EQ(h.execute(0x0030602bu | (5u << 15), 32), ScalarResult::Executed);
  EXPECT_EQ(b.data_cache_epoch, before_data_cache + 1);

  set(5, 17);
  ASSERT_EQ(h.execute(0x0010002bu | (5u << 15), 32), ScalarResult::Executed);  // BWE
  EXPECT_EQ(b.last_control_request, arch::ExecutionControlRequest::WaitEvent);
  EXPECT_EQ(b.control_request_operand, 17u);

  const std::uint64_t before_instruction = b.instruction_cache_epoch;
  ASSERT_EQ(h.execute(0x0000202bu | (0b1010u << 24) | (0b0101u << 20), 32), ScalarResult::Executed);
  EXPECT_EQ(b.last_fence_predecessor, 0b1010u);
  EXPECT_EQ(b.last_fence_successor, 0b0101u);
  EXPECT_EQ(b.instruction_cache_epoch, before_instruction + 1);

  block::reset_bundle_control(st);
  st.pc = 0x100;
  block::begin_bundle_at(m, 0x100, arch::BundleKind::Standard, arch::BundleTransfer::Direct, 0x200, 0x102, 0x102,
                         false);
  set(5, 0x800);
  ASSERT_EQ(h.execute(0x0000403bu | (5u << 15), 32), ScalarResult::Executed);  // SETC.TGT
  EXPECT_EQ(st.block.barg.bpcn, 0x800u);
  block::reset_bundle_control(st);

  m.set_current_acr(2);
  enter_system_block(0x304);
  const std::uint64_t before_request = b.architecture_request_epoch;
  EXPECT_EQ(h.execute(0x0000302bu | (1u << 20), 32), ScalarResult::Rejected);  // ACRC '0001'
  EXPECT_EQ(st.last_fault, FaultCode::Fault_ServiceRequest);
  EXPECT_EQ(st.current_acr, 1);
  EXPECT_EQ(b.architecture_request_epoch, before_request + 1);
  EXPECT_EQ(b.control_request_operand & 0xF, 1u);

  m.clear_fault();
  block::reset_bundle_control(st);
  enter_system_block(0x404);
  EXPECT_EQ(h.execute(0x0100302bu | (2u << 20), 32), ScalarResult::Rejected);  // ACRE '0010'
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);

  m.clear_fault();
  st.pc = 0x400;
  EXPECT_EQ(h.execute(0x0010102bu | (0b1001u << 24), 32), ScalarResult::Rejected);  // EBREAK 9
  EXPECT_EQ(st.last_fault, FaultCode::Fault_SoftwareBreakpoint);
  EXPECT_EQ(st.trap_status[st.current_acr].cause, 9u);
  EXPECT_EQ(st.fault_address, 0x400u);

  m.clear_fault();
  EXPECT_EQ(h.execute(0x0000102bu, 32), ScalarResult::Rejected);  // ASSERT
  EXPECT_EQ(st.last_fault, FaultCode::Fault_Assert);
}

// ------------------------------------------------ service requests (SYS) ----

// PTO-AVS-SCALAR-TESTSERVICEREQUESTCONTROL-EXECUTION-001
// (asl/scalar/model/sys/semantics.asl + asl/arch/system-registers/access-control.asl,
// TestServiceRequestControl).  ServiceRequestPermitted/ServiceRequestTarget
// are observed through ACRC: a permitted request traps with
// Fault_ServiceRequest into its target ring, a refused one is illegal.  ACRC
// runs in a SYS block body (the helper is called bare in the point).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSERVICEREQUESTCONTROL_EXECUTION_001) {
  arch::Machine& m = h.machine;
  struct Permit {
    unsigned source, request;
    bool permitted;
    unsigned target;
  };
  for (const Permit p : {Permit{0, 0, false, 0}, Permit{1, 0, true, 0}, Permit{1, 1, false, 1}, Permit{1, 2, true, 0},
                         Permit{2, 1, true, 1}, Permit{15, 2, true, 0}, Permit{15, 3, false, 1}}) {
    SCOPED_TRACE(testing::Message() << "source " << p.source << " request " << p.request);
    reset();
    m.set_current_acr(p.source);
    enter_system_block(0x200);
    EXPECT_EQ(run(M::ACRC, {p.request}), ScalarResult::Rejected);
    EXPECT_EQ(st.last_fault, p.permitted ? FaultCode::Fault_ServiceRequest : FaultCode::Fault_IllegalInstruction);
    EXPECT_EQ(st.current_acr, p.target);
  }

  // Refused at ACR0: illegal instruction trap (4), no request published.
  reset();
  enter_system_block(0x100);
  std::uint64_t epoch = st.bookkeeping.architecture_request_epoch;
  EXPECT_EQ(run(M::ACRC, {0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(st.trap_status[0].number, 4u);
  EXPECT_EQ(st.bookkeeping.architecture_request_epoch, epoch);

  // ACR2 request 1 -> ACR1 through EVBASE(ACR1); ACRE returns after the ACRC.
  reset();
  set_sysreg(0x1f01, 0x900);
  m.set_current_acr(2);
  enter_system_block(0x400);
  epoch = st.bookkeeping.architecture_request_epoch;
  EXPECT_EQ(run(M::ACRC, {1}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_ServiceRequest);
  EXPECT_EQ(st.current_acr, 1);
  EXPECT_EQ(st.pc, 0x900u);
  EXPECT_EQ(st.trap_status[1].number, 6u);
  EXPECT_EQ(st.trap_status[1].cause & 0xF, 1u);
  EXPECT_EQ(st.trap_status[1].argument0, 0x400u);
  EXPECT_EQ(st.banked_reg(1, arch::kEbargTpcLow), 0x404u);
  EXPECT_EQ(st.bookkeeping.architecture_request_epoch, epoch + 1);
  m.clear_fault();
  st.block = arch::BlockState{};  // _BundleActive/_BundleBodyActive FALSE, header state cleared
  enter_system_block(0x904);
  ok(M::ACRE, {1});
  EXPECT_EQ(st.current_acr, 2);
  EXPECT_EQ(st.pc, 0x404u);

  // ACR1 request 0 -> ACR0 through EVBASE(ACR0).
  reset();
  set_sysreg(0x0f01, 0x800);
  m.set_current_acr(1);
  enter_system_block(0x500);
  EXPECT_EQ(run(M::ACRC, {0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_ServiceRequest);
  EXPECT_EQ(st.current_acr, 0);
  EXPECT_EQ(st.pc, 0x800u);
  EXPECT_EQ(st.banked_reg(0, arch::kEbargTpcLow), 0x504u);

  // ACR15 request 2 -> ACR0.
  reset();
  m.set_current_acr(15);
  enter_system_block(0x600);
  EXPECT_EQ(run(M::ACRC, {2}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_ServiceRequest);
  EXPECT_EQ(st.current_acr, 0);
  EXPECT_EQ(st.trap_status[0].number, 6u);

  // ACR2 request 3: refused, illegal instruction trap into ACR1.
  reset();
  m.set_current_acr(2);
  enter_system_block(0x700);
  EXPECT_EQ(run(M::ACRC, {3}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(st.current_acr, 1);
  EXPECT_EQ(st.trap_status[1].number, 4u);
}

// PTO-AVS-SCALAR-TESTSCALARSYSTEM-EXECUTION-001
// (asl/scalar/model/sys/semantics.asl + registers.asl, TestScalarSystem).
// Register accesses use scalar::read/write_system_register (our
// Read/WriteSystemRegisterAddress); the SYS helpers run as their
// instructions (FENCE.D, SSRSWAP, TLB.IV, TLB.IALL, ASSERT, ACRE, BWE,
// SETC.TGT, SSRSET/SSRGET, C.SSRGET, FENCE.I, ACRC, EBREAK) in SYS block
// bodies.  Not expressed: the RaiseInterrupt/EOIEI trap-status case - our
// model has no interrupt trap-delivery entry point.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARSYSTEM_EXECUTION_001) {
  arch::Machine& m = h.machine;
  const arch::SystemBookkeeping& b = st.bookkeeping;
  auto fresh_block = [&](Word body_pc) {
    m.clear_fault();
    st.block = arch::BlockState{};
    enter_system_block(body_pc);
  };
  set_sysreg(0x0000, 123);  // THREAD_PTR
  EXPECT_EQ(sysreg(0x0000), 123u);
  set_sysreg(0x0001, 321);  // GLOBAL_PTR
  EXPECT_EQ(sysreg(0x0001), 321u);
  set_sysreg(0x0020, 3);  // CORE_STATE selects the ring
  EXPECT_EQ(st.current_acr, 3);
  m.set_current_acr(0);
  EXPECT_EQ(sysreg(0x0026), 0u);       // THREAD_ID
  EXPECT_EQ(sysreg(0x0027), 262144u);  // TILE_CAPACITY = PTO_MODEL_MAX_TILE_CAPACITY_BYTES
  EXPECT_EQ(sysreg(0x0051), 0u);       // BLOCKID
  EXPECT_FALSE(scalar::write_system_register(m, 0x0022, kOnes));  // VENDOR is RO
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);

  fresh_block(0x84);
  ok(M::FENCE_D, {0b0010, 0b0001});
  EXPECT_EQ(b.last_fence_predecessor, 0b0010u);
  EXPECT_EQ(b.last_fence_successor, 0b0001u);
  set(5, 456);
  ok(M::SSRSWAP, {6, 0x000, 5});
  EXPECT_EQ(r(6), 123u);
  EXPECT_EQ(sysreg(0x0000), 456u);
  const std::uint64_t before_tlb = b.tlb_epoch;
  set(5, 0x1000);
  ok(M::TLB_IV, {5});
  EXPECT_EQ(b.tlb_epoch, before_tlb + 1);
  EXPECT_EQ(b.last_maintenance_operation, arch::MaintenanceOperation::TLB_IV);
  EXPECT_EQ(b.last_maintenance_operand, 0x1000u);
  set(5, 0x0001000000000000u);
  EXPECT_EQ(run(M::TLB_IV, {5}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(b.tlb_epoch, before_tlb + 1);
  EXPECT_EQ(b.last_maintenance_operand, 0x1000u);
  m.set_current_acr(2);
  fresh_block(0x84);
  EXPECT_EQ(run(M::TLB_IALL, {}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(b.tlb_epoch, before_tlb + 1);
  m.set_current_acr(0);

  // A rejected swap of the RO IPENDING preflights both access classes: the
  // timer-backed read must not refresh IPENDING/TOPEI before the fault.
  st.sysregs.cycle = 10;
  set_sysreg(0x0f21, 9);  // TIMECMP(ACR0)
  st.banked_reg(0, 0xF08) = 0;
  st.banked_reg(0, 0xF09) = 0;
  fresh_block(0x84);
  set(1, kOnes);
  set(7, 0xAB);
  EXPECT_EQ(run(M::SSRSWAP, {7, 0xf08, 1}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(r(7), 0xABu);
  EXPECT_EQ(st.banked_reg(0, 0xF08), 0u);
  EXPECT_EQ(st.banked_reg(0, 0xF09), 0u);

  fresh_block(0x84);
  EXPECT_EQ(run(M::ASSERT, {0}), ScalarResult::Rejected);  // ArchitectureAssert(0)
  EXPECT_EQ(st.last_fault, FaultCode::Fault_Assert);
  // ArchitectureEnterRequest('0001') recovers the context the assert saved.
  const std::uint64_t before_request = b.architecture_request_epoch;
  fresh_block(0x84);
  ok(M::ACRE, {1});
  EXPECT_EQ(b.architecture_request_epoch, before_request + 1);
  fresh_block(0x84);
  set(5, 17);
  ok(M::BWE, {5});  // ExecuteControlRequest(WaitEvent, 17)
  EXPECT_EQ(b.last_control_request, arch::ExecutionControlRequest::WaitEvent);
  EXPECT_EQ(b.control_request_operand, 17u);
  block::reset_bundle_control(st);
  st.pc = 0x100;
  block::begin_bundle_at(m, 0x100, arch::BundleKind::Standard, arch::BundleTransfer::Direct, 0x200, 0x102, 0x102,
                         false);
  set(5, 0x800);
  ok(M::SETC_TGT, {5});
  EXPECT_EQ(st.block.barg.bpcn, 0x800u);
  block::reset_bundle_control(st);

  m.clear_fault();
  set_sysreg(0x1f10, 0x1234);  // TTBR0 (fixed ACR1 bank)
  EXPECT_EQ(sysreg(0x1f10), 0x1234u);

  m.set_fault(FaultCode::Fault_DataPage, 0x4000);
  const Word trap_status = sysreg(0x0f02);
  EXPECT_EQ((trap_status >> 62) & 1, 1u);
  EXPECT_EQ(trap_status & 0x3F, 35u);
  EXPECT_EQ(sysreg(0x0f03), 0x4000u);
  m.set_current_acr(2);
  m.set_fault(FaultCode::Fault_Assert, 0x2222);
  EXPECT_EQ(st.current_acr, 1);
  m.set_current_acr(0);
  EXPECT_EQ(sysreg(0x1f02) & 0x3F, 52u);
  EXPECT_EQ(sysreg(0x0f02) & 0x3F, 35u);
  EXPECT_EQ(sysreg(0x1f03), 0x2222u);

  m.clear_fault();
  EXPECT_FALSE(scalar::write_system_register(m, 0x0010, kOnes));  // TIME is RO
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  m.clear_fault();
  Word unknown = 0;
  EXPECT_FALSE(scalar::read_system_register(m, 0x100000, unknown));
  EXPECT_EQ(unknown, 0u);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);

  fresh_block(0x84);
  set(5, 0x55);
  ok(M::SSRSET, {0x000, 5});
  ok(M::SSRGET, {6, 0x000});
  EXPECT_EQ(r(6), 0x55u);
  set(5, 0x66);
  ok(M::SSRSWAP, {6, 0x000, 5});
  EXPECT_EQ(r(6), 0x55u);
  EXPECT_EQ(sysreg(0x0000), 0x66u);
  set_sysreg(0x0000, 0x77);
  ok(M::C_SSRGET, {0x000});
  EXPECT_EQ(st.read_reg5(24), 0x77u);  // t#1
  const std::uint64_t before_instruction_fence = b.instruction_cache_epoch;
  ok(M::FENCE_I, {});
  EXPECT_EQ(b.instruction_cache_epoch, before_instruction_fence + 1);
  const std::uint64_t before_close = b.architecture_request_epoch;
  EXPECT_EQ(run(M::ACRC, {3}), ScalarResult::Rejected);
  EXPECT_EQ(b.architecture_request_epoch, before_close);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);

  fresh_block(0x400);
  EXPECT_EQ(run(M::EBREAK, {9}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_SoftwareBreakpoint);
  EXPECT_EQ(st.fault_address, 0x400u);
  EXPECT_EQ(st.trap_status[0].cause, 9u);
}

// PTO-AVS-SCALAR-TESTSCALARFLOATING-EXECUTION-001
// (asl/scalar/model/fsu/arithmetic.asl, TestScalarFloating), IEEE profile:
// 1.5 + 2.25, -2 * 4, -1 < 0, 5 >= 5, 1 + 2*3 (FMADD), sqrt 9, 3.75 -> 3
// rounding toward minus infinity (FCVTM) and -3.75 -> -3 toward zero (FCVTZ).
// Not expressed: the type-code helpers (ScalarFP/Signed/UnsignedSourceTypeCode,
// Scalar*TypeCodeSupported) - the catalog's field constraints reject the
// unsupported codes before any handler runs, so only the legal codes reach
// our model (SCVTF/UCVTF with SrcType 0/1 cover the mapping); and the
// ConvertFloatingEncoding identity helper, which has no instruction.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_TESTSCALARFLOATING_EXECUTION_001) {
  constexpr Word k1_5 = 0x3FF8000000000000u, k2_25 = 0x4002000000000000u, k3_75 = 0x400E000000000000u;
  constexpr Word kM2 = 0xC000000000000000u, k4 = 0x4010000000000000u, kM8 = 0xC020000000000000u;
  constexpr Word kM1 = 0xBFF0000000000000u, k5 = 0x4014000000000000u, k1 = 0x3FF0000000000000u;
  constexpr Word k2 = 0x4000000000000000u, k3 = 0x4008000000000000u, k7 = 0x401C000000000000u;
  constexpr Word k9 = 0x4022000000000000u, kM3_75 = 0xC00E000000000000u;
  auto binary = [&](M mn, Word a, Word c) {
    si.write_gpr(1, a);
    si.write_gpr(2, c);
    EXPECT_EQ(runi(mn, {3, 1, 2, 0}), ScalarResult::Executed) << isa::mnemonic_name(mn);
    return si.read_gpr(3);
  };
  EXPECT_EQ(binary(M::FADD, k1_5, k2_25), k3_75);
  EXPECT_EQ(binary(M::FMUL, kM2, k4), kM8);
  EXPECT_EQ(binary(M::FLT, kM1, 0), 1u);
  EXPECT_EQ(binary(M::FGE, k5, k5), 1u);
  si.write_gpr(4, k1);  // addend
  si.write_gpr(1, k2);
  si.write_gpr(2, k3);
  ASSERT_EQ(runi(M::FMADD, {3, 4, 1, 2, 0}), ScalarResult::Executed);  // RegDst, SrcA, SrcL, SrcR, SrcType
  EXPECT_EQ(si.read_gpr(3), k7);
  si.write_gpr(1, k9);
  ASSERT_EQ(runi(M::FSQRT, {3, 1, 0}), ScalarResult::Executed);
  EXPECT_EQ(si.read_gpr(3), k3);
  si.write_gpr(1, k3_75);
  ASSERT_EQ(runi(M::FCVTM, {8, 3, 1, 0}), ScalarResult::Executed);  // S64
  EXPECT_EQ(si.read_gpr(3), 3u);
  si.write_gpr(1, kM3_75);
  ASSERT_EQ(runi(M::FCVTZ, {8, 3, 1, 0}), ScalarResult::Executed);
  EXPECT_EQ(si.read_gpr(3), Word{0} - 3);
}

// ------------------------------------------- generated SYS validators ----

// The generated SYS validators (scripts/generate-asl-decoders) each start
// from reset with a SYS block whose body begins at 0x100 (BeginBundle at
// TPC 0, sequential 0x100) and run one raw encoding.
class SysValidatorCase {
 public:
  explicit SysValidatorCase(arch::BundleKind kind = arch::BundleKind::System) {
    st.pc = 0;
    block::begin_bundle_at(h.machine, 0, kind, arch::BundleTransfer::Fallthrough, 0, 0x100, 0, false);
    block::enter_bundle_body(h.machine);
  }
  ScalarHarness h;
  arch::State& st = h.state();
};

// PTO-AVS-SCALAR-SYS-FENCE-TOTALITY-001 (asl/scalar/model/dispatch/sys.asl,
// generated ValidateCanonicalScalarSYSFenceTotality): FENCE.D executes for
// every predecessor/successor pair and records both (_LastFence*).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_FENCE_TOTALITY_001) {
  for (unsigned pred = 0; pred < 16; ++pred) {
    for (unsigned succ = 0; succ < 16; ++succ) {
      SysValidatorCase c;
      ASSERT_EQ(c.st.last_fault, FaultCode::Fault_None);
      EXPECT_EQ(c.h.execute(0x202bu | (pred << 24) | (succ << 20), 32), ScalarResult::Executed);
      EXPECT_EQ(c.st.bookkeeping.last_fence_predecessor, pred);
      EXPECT_EQ(c.st.bookkeeping.last_fence_successor, succ);
    }
  }
}

// PTO-AVS-SCALAR-SYS-CANON-001 (asl/scalar/model/dispatch/top-level.asl,
// generated ValidateCanonicalScalarSYSExecution): one canonical encoding per
// SYS form, its status and fault (the encodings and outcomes are the
// validator's).  Case 0 runs at ACR2; case 1 (ACRE) first saves a valid ACR0
// trap context (SaveTrapContext(0, 0)); SETC.TGT (0x403b) runs in a
// standard block.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_CANON_001) {
  struct Case {
    std::uint64_t bits;
    unsigned length;
    bool executed;
    FaultCode fault;
  };
  using F = FaultCode;
  const Case cases[] = {
      {0x302b, 32, false, F::Fault_ServiceRequest},  // ACRC 0 at ACR2
      {0x100302b, 32, true, F::Fault_None},          // ACRE 1 after SaveTrapContext(0, 0)
      {0x102b, 32, false, F::Fault_Assert},
      {0x10402b, 32, true, F::Fault_None},
      {0x402b, 32, true, F::Fault_None},
      {0x2b, 32, true, F::Fault_None},
      {0x10002b, 32, true, F::Fault_None},
      {0x20002b, 32, true, F::Fault_None},
      {0x30002b, 32, true, F::Fault_None},
      {0xc02c, 16, false, F::Fault_SoftwareBreakpoint},
      {0x802c, 16, true, F::Fault_None},
      {0x60602b, 32, true, F::Fault_None},
      {0x30602b, 32, true, F::Fault_None},
      {0x50602b, 32, true, F::Fault_None},
      {0x20602b, 32, true, F::Fault_None},
      {0x10602b, 32, true, F::Fault_None},
      {0x40602b, 32, true, F::Fault_None},
      {0x602b, 32, true, F::Fault_None},
      {0x70602b, 32, true, F::Fault_None},
      {0x10102b, 32, false, F::Fault_SoftwareBreakpoint},
      {0x202b, 32, true, F::Fault_None},
      {0x1000202b, 32, true, F::Fault_None},
      {0x3b000e, 48, true, F::Fault_None},
      {0x103b000e, 48, true, F::Fault_None},
      {0x10502b, 32, true, F::Fault_None},
      {0x502b, 32, true, F::Fault_None},
      {0x303b, 32, true, F::Fault_None},
      {0x403b, 32, true, F::Fault_None},  // SETC.TGT, standard block
      {0x3b, 32, true, F::Fault_None},
      {0x103b, 32, true, F::Fault_None},
      {0x203b, 32, true, F::Fault_None},
      {0x702b, 32, true, F::Fault_None},
      {0x30702b, 32, true, F::Fault_None},
      {0x20702b, 32, true, F::Fault_None},
      {0x10702b, 32, true, F::Fault_None},
  };
  for (std::size_t i = 0; i < std::size(cases); ++i) {
    const Case& k = cases[i];
    SCOPED_TRACE(testing::Message() << "case " << i << " bits 0x" << std::hex << k.bits);
    ScalarHarness hc;
    arch::State& sc = hc.state();
    if (i == 0) hc.machine.set_current_acr(2);
    if (i == 1) {
      hc.machine.save_trap_context(0, 0);
      hc.machine.clear_fault();
    }
    sc.pc = 0;
    block::begin_bundle_at(hc.machine, 0, k.bits == 0x403b ? arch::BundleKind::Standard : arch::BundleKind::System,
                           arch::BundleTransfer::Fallthrough, 0, 0x100, 0, false);
    block::enter_bundle_body(hc.machine);
    ASSERT_EQ(sc.last_fault, F::Fault_None);
    EXPECT_EQ(hc.execute(k.bits, k.length), k.executed ? ScalarResult::Executed : ScalarResult::Rejected);
    EXPECT_EQ(sc.last_fault, k.fault);
    if (i + 1 == std::size(cases)) {
      hc.machine.clear_fault();
      EXPECT_EQ(hc.execute(0, 32), ScalarResult::Rejected);
      EXPECT_EQ(sc.last_fault, F::Fault_IllegalInstruction);
    }
  }
}

// PTO-AVS-SCALAR-SYS-MAINT-LEGALITY-001 (asl/scalar/model/dispatch/sys.asl,
// generated ValidateCanonicalScalarSYSMaintenanceLegalityTotality): TLB
// maintenance is illegal outside ACR0 (no TLB epoch change), TLB operands
// beyond the address range fault, and every maintenance form records its
// operation and operand.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_MAINT_LEGALITY_001) {
  sysv::run_steps(h, sysv::kMaintLegality, std::size(sysv::kMaintLegality));
}

// PTO-AVS-SCALAR-SYS-MAINT-SELECTOR-001 (generated
// ValidateCanonicalScalarSYSMaintenanceSelectorTotality): every maintenance
// form reads its operand through each of the 32 Reg5 source selectors
// (GPRs and the t/u queue entries).
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_MAINT_SELECTOR_001) {
  sysv::run_steps(h, sysv::kMaintSelector, std::size(sysv::kMaintSelector));
}

// PTO-AVS-SCALAR-SYS-REQUEST-TOTALITY-001 (generated
// ValidateCanonicalScalarSYSRequestTotality): ASSERT with every source
// selector and value 0/1, BSE/BWE/BWI/BWT with every source selector, and
// SETC.TGT with every source selector.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_REQUEST_TOTALITY_001) {
  sysv::run_steps(h, sysv::kRequest, std::size(sysv::kRequest));
}

// PTO-AVS-SCALAR-SYS-TRAP-RECOVERY-001 (generated
// ValidateCanonicalScalarSYSTrapAndRecoveryTotality): EBREAK/C.EBREAK causes,
// ACRC permission and target for every ring and request type, and ACRE
// recovery / execution-state-check outcomes.
// The "acre/malformed-control" cases (one per request type) zero the saved
// EBARG control word (0x0f40) after SaveTrapContext; the reference profile's
// TrapContextRecoverable reads the visible EBARG/ECSTATE words, so ACRE
// fails with ExecutionStateCheck.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_TRAP_RECOVERY_001) {
  sysv::run_steps(h, sysv::kTrapRecovery, std::size(sysv::kTrapRecovery));
}

// PTO-AVS-SCALAR-SYS-SWAP-ALIAS-{0-7,8-15,16-23,24-31}-001
// (asl/scalar/model/dispatch/sys.asl, generated
// ValidateCanonicalScalarSYSSwapAliases<first>To<last>): SSRSWAP of
// THREAD_PTR for source selectors first..last and every destination selector,
// with all GPRs and both queues filled with distinct values: the register
// takes the source operand, the destination gets the old value (GPR 1..23,
// ->u (30), ->t (31)); R0 and the discard selectors 24..29 leave the GPRs and
// queues as they were; each executed instruction advances CYCLE by one.
// The operand values are our own distinct fill (the validator's own
// constants differ per case; only their distinctness matters).
void check_swap_aliases(unsigned first_source) {
  for (unsigned src = first_source; src < first_source + 8; ++src) {
    for (unsigned dst = 0; dst < 32; ++dst) {
      SCOPED_TRACE(testing::Message() << "src " << src << " dst " << dst);
      ScalarHarness h;
      arch::State& st = h.state();
      st.pc = 0;
      block::begin_bundle_at(h.machine, 0, arch::BundleKind::System, arch::BundleTransfer::Fallthrough, 0, 0x100, 0,
                             false);
      block::enter_bundle_body(h.machine);
      const Word base = 0x400000 + Word{src} * 0x1000 + Word{dst} * 0x40;
      for (unsigned i = 0; i < arch::kAbsoluteGprCount; ++i) st.write_gpr(i, base + i);
      for (unsigned i = 0; i < arch::kTemporaryQueueDepth; ++i) {
        st.t_queue.value[i] = base + 0x18 + i;
        st.u_queue.value[i] = base + 0x1c + i;
        st.t_queue.valid[i] = true;
        st.u_queue.valid[i] = true;
      }
      const Word old_tp = 0x220000 + Word{src} * 0x100 + dst;
      st.sysregs.thread_ptr = old_tp;
      const Word source = st.read_reg5(src);
      const Word cycle = st.sysregs.cycle;
      ASSERT_EQ(h.execute(0x203bu | (dst << 7) | (src << 15), 32), ScalarResult::Executed);  // SSRSWAP dst, 0x000, src
      EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
      EXPECT_EQ(st.sysregs.thread_ptr, source);
      if (dst == 0) {
        EXPECT_EQ(st.read_gpr(0), 0u);
      } else if (dst < 24) {
        EXPECT_EQ(st.read_gpr(dst), old_tp);
      } else if (dst < 28) {
        EXPECT_EQ(st.t_queue.value[dst - 24], base + 0x18 + (dst - 24));
      } else if (dst < 30) {
        EXPECT_EQ(st.u_queue.value[dst - 28], base + 0x1c + (dst - 28));
      } else if (dst == 30) {
        EXPECT_EQ(st.u_queue.value[0], old_tp);
      } else {
        EXPECT_EQ(st.t_queue.value[0], old_tp);
      }
      EXPECT_EQ(st.sysregs.cycle, cycle + 1);
    }
  }
}

TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_SWAP_ALIAS_0_7_001) { check_swap_aliases(0); }
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_SWAP_ALIAS_8_15_001) { check_swap_aliases(8); }
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_SWAP_ALIAS_16_23_001) { check_swap_aliases(16); }
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_SWAP_ALIAS_24_31_001) { check_swap_aliases(24); }

// PTO-AVS-SCALAR-SYS-RW-ALIASES-001 (asl/scalar/model/dispatch/sys.asl,
// generated ValidateCanonicalScalarSYSSelectorReadWriteAliases): SSRGET /
// HL.SSRGET / the local read of THREAD_PTR and TPC into every destination
// selector (GPRs, ->t, ->u, discards), SSRSET / HL.SSRSET from every source
// selector, each advancing CYCLE by one.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_RW_ALIASES_001) {
  sysv::run_steps(h, sysv::kSelectorAliases, std::size(sysv::kSelectorAliases));
}

// PTO-AVS-ARCH-SYSREG-RESET-ACCESS-001 (asl/arch/data-types/system-registers.asl,
// generated ValidateSystemRegisterResetAndAccess): every catalogued system
// register address reads its reset value at ACR0 without a fault, RW
// registers read back what was written, RO writes are illegal and leave the
// value, and the write-only EOIEI storage of every ring bank stays zero.
TEST_F(SpecPointsScalarModel, PTO_AVS_ARCH_SYSREG_RESET_ACCESS_001) {
  sysv::run_steps(h, sysv::kSysregResetAccess, std::size(sysv::kSysregResetAccess));
}

// PTO-AVS-SCALAR-SYS-EFFECTS-001 (asl/scalar/model/dispatch/sys.asl,
// generated ValidateCanonicalScalarSYSEffects): the architectural effects of
// each SYS form from a fully seeded state (epochs, CYCLE, reservation, return
// and commit arguments): which epoch/record each form changes, TPC advance,
// fence memory event, reservation clearing, and the trap effects of the
// faulting forms.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_SYS_EFFECTS_001) {
  sysv::run_steps(h, sysv::kSysEffects, std::size(sysv::kSysEffects));
}

// PTO-AVS-SCALAR-AMO-EFFECTS-001 (asl/scalar/model/dispatch/amo.asl,
// generated ValidateCanonicalScalarAMOEffects): every AMO form (CAS*, SWAP*,
// LR/SC, fetch-and-op, DMA) from a seeded state: its memory result, the
// captured memory events (kind, agent, order, size, values, write
// performed), the reservation effects, TPC/CYCLE advance, the untouched
// commit/return arguments, and the DMA destination page fault.
TEST_F(SpecPointsScalarModel, PTO_AVS_SCALAR_AMO_EFFECTS_001) {
  sysv::run_steps(h, sysv::kAmoEffects, std::size(sysv::kAmoEffects));
}

}  // namespace
}  // namespace pto::test
