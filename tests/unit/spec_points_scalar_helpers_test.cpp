// Hand translations of scalar spec points the execution extractor cannot
// express (tools/extract_exec_vectors.py): the right-modifier decoder points
// of PRF, CSEL and CMP.EQ, which assert on ASL decoder helpers only, and the
// two DMA points, which compare memory with memory and keep the expected
// bytes in a local array.  Each test is named after its AVS id and observes
// the helper's effect through an executed instruction (or, for PRF, whose
// prefetch has no architectural effect, through the offset the model's AGU
// handler forms: ScalarDecodedAGUOffset).  Expected values come from the
// points and the ASL definitions they name (ApplyScalarRightModifier,
// ApplyRestrictedCompareModifier, ApplySelectModifier in
// asl/scalar/model/alu/semantics.asl), never from the model.
#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>

#include "arch/machine.hpp"
#include "encode_mnemonic.hpp"
#include "runner/dispatch.hpp"
#include "block/control.hpp"
#include "scalar/alu_semantics.hpp"
#include "scalar/execute.hpp"
#include "scalar/operands.hpp"
#include "scalar_harness.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using arch::Word;
using M = isa::Mnemonic;

// A right operand that every modifier changes differently: bit 32 set (the
// word modifiers drop it), bit 31 set (signed and unsigned word differ).
constexpr Word kRight = 0x0000'0001'8000'0000;
constexpr Word kSignedWord = 0xFFFF'FFFF'8000'0000;  // SignExtend(kRight[31:0])
constexpr Word kUnsignedWord = 0x8000'0000;          // ZeroExtend(kRight[31:0])
constexpr Word kNegated = 0 - kRight;                // Zeros - kRight
constexpr unsigned kDst = 5;

class SpecPointsScalarHelpers : public ::testing::Test {
 protected:
  ScalarHarness h;
  arch::State& st = h.state();

  void exec(std::uint64_t word, M m) {
    const ScalarResult result = h.execute(word, length_of(m));
    ASSERT_EQ(result, ScalarResult::Executed) << isa::mnemonic_name(m) << ": " << arch::fault_name(st.last_fault);
  }
  // MN's single form from field values in catalog order.
  void ok(M m, std::initializer_list<std::int64_t> fields) { exec(encode_insn(m, fields), m); }
  Word r(unsigned i) const { return st.read_gpr(i); }
  void set(unsigned i, Word v) { st.write_gpr(i, v); }
  // SETC.* sets the condition of the body of an active conditional STD
  // block (the ASL helper is called without one): begin one at TPC and
  // enter its body.
  void enter_standard_block() {
    block::begin_bundle_at(h.machine, st.pc, arch::BundleKind::Standard, arch::BundleTransfer::Conditional, 0x1000,
                           st.pc + 4, 0, false);
    block::enter_bundle_body(h.machine);
    ASSERT_EQ(st.last_fault, FaultCode::Fault_None);
  }
};

// PTO-AVS-SCALAR-PRF-MODIFIER-001 (asl/scalar/agu/PRF.asl): PRF's address
// modifier decoder (DecodeScalarAddressRightModifier) maps raw SrcRType 00,
// 01, 10, 11 to None, SignedWord, UnsignedWord, NegateOrNot.  A prefetch has
// no architectural effect, so each code is observed as the offset PRF's AGU
// handler adds to the base (ScalarDecodedAGUOffset, shamt 0): the right
// operand unmodified, its low word sign- or zero-extended, or negated
// (ApplyScalarRightModifier, PRF is not of the logical family).
TEST_F(SpecPointsScalarHelpers, PTO_AVS_SCALAR_PRF_MODIFIER_001) {
  st.write_gpr(1, 0x100);
  st.write_gpr(2, kRight);
  const std::pair<std::int64_t, Word> kCases[] = {{0, kRight}, {1, kSignedWord}, {2, kUnsignedWord}, {3, kNegated}};
  for (const auto& [code, offset] : kCases) {
    const std::uint64_t word = enc("PRF", {{"SrcL", 1}, {"SrcR", 2}, {"SrcRType", code}});
    const scalar::DecodedInsn d = runner::predecode(word, length_of(M::PRF));
    ASSERT_EQ(d.mnemonic, M::PRF);
    EXPECT_EQ(scalar::decoded_agu_offset(st, d), std::optional<Word>(offset)) << "SrcRType " << code;
    exec(word, M::PRF);  // non-faulting hint: executes whatever the address
  }
}

// PTO-AVS-SCALAR-CSEL-MODIFIER-001 (asl/scalar/alu/CSEL.asl): CSEL's modifier
// decoder (InstructionContractRightModifier_CSEL) keeps raw 00, 01 and 10 as
// None and maps 11 to NegateOrNot; ApplySelectModifier leaves the selected
// right value alone except under NegateOrNot, which negates it.  Observed
// with a zero predicate (CSEL selects SrcR): the point's value 7 under codes
// 10 and 11 (7, Zeros - 7), and kRight under every code, which a word
// modifier would change.
TEST_F(SpecPointsScalarHelpers, PTO_AVS_SCALAR_CSEL_MODIFIER_001) {
  const auto selected = [&](Word right, std::int64_t code) {
    st.write_gpr(1, 0x1111);  // SrcL: the value selected when the predicate holds
    st.write_gpr(2, right);
    st.write_gpr(3, 0);  // SrcP: false
    exec(enc("CSEL", {{"RegDst", kDst}, {"SrcL", 1}, {"SrcP", 3}, {"SrcR", 2}, {"SrcRType", code}}), M::CSEL);
    return st.read_gpr(kDst);
  };
  EXPECT_EQ(selected(7, 2), 7u);
  EXPECT_EQ(selected(7, 3), Word{0} - 7);
  EXPECT_EQ(selected(kRight, 0), kRight);
  EXPECT_EQ(selected(kRight, 1), kRight);
  EXPECT_EQ(selected(kRight, 2), kRight);
  EXPECT_EQ(selected(kRight, 3), kNegated);
}

// PTO-AVS-SCALAR-CMP-EQ-MODIFIER-001 (asl/scalar/bru/CMP.EQ.asl): the
// comparison modifier decoder (DecodeScalarComparisonRightModifier) maps raw
// 00, 01, 10, 11 to None, SignedWord, UnsignedWord, NegateOrNot, and
// ApplyRestrictedCompareModifier treats NegateOrNot as no modifier (the
// point: Ones under code 11 stays Ones).  Observed as CMP.EQ's result
// (ExecuteCompare: 1 when SrcL equals the modified SrcR, else 0): for each
// code exactly one of the candidate left values compares equal.
TEST_F(SpecPointsScalarHelpers, PTO_AVS_SCALAR_CMP_EQ_MODIFIER_001) {
  const auto equal = [&](Word left, Word right, std::int64_t code) {
    st.write_gpr(1, left);
    st.write_gpr(2, right);
    exec(enc("CMP.EQ", {{"RegDst", kDst}, {"SrcL", 1}, {"SrcR", 2}, {"SrcRType", code}}), M::CMP_EQ);
    return st.read_gpr(kDst);
  };
  EXPECT_EQ(equal(~Word{0}, ~Word{0}, 3), 1u);
  const std::pair<std::int64_t, Word> kCases[] = {{0, kRight}, {1, kSignedWord}, {2, kUnsignedWord}, {3, kRight}};
  for (const auto& [code, modified] : kCases) {
    for (const Word left : {kRight, kSignedWord, kUnsignedWord, kNegated}) {
      EXPECT_EQ(equal(left, kRight, code), left == modified ? 1u : 0u) << "SrcRType " << code << " left " << std::hex << left;
    }
  }
}

// PTO-AVS-SCALAR-ADD-EXECUTION-001 (asl/scalar/alu/ADD.asl,
// TestScalarInteger): the integer helpers of asl/scalar/model/{alu,bru}/
// semantics.asl with the point's operands.  Pure value helpers are checked on
// scalar/alu_semantics.hpp and scalar/operands.hpp (the model's
// implementation of the same ASL functions, which its handlers call),
// ConditionHolds on block::condition_holds; the Execute*/SetReturnAddress/
// Jump* procedures through the instructions whose handler they are
// (HL.MULU, HL.DIVU, HL.DIVUW, HL.CCAT, HL.CCATW, HL.MADD, CMP.LT, CMP.OR,
// CMP.AND, SETC.EQ, SETC.OR, SETC.AND, C.SETRET, J, JR); MoveScalarValue
// through C.MOVR and ApplySelectModifier through CSEL.  No counterpart:
// BranchRelative (no scalar form has it as handler; conditional transfers
// are block-level), so its two assertions (PC 106 taken, 104 not taken)
// are not checked here.
TEST_F(SpecPointsScalarHelpers, PTO_AVS_SCALAR_ADD_EXECUTION_001) {
  using scalar::BinaryOp;
  constexpr Word kOnes = ~Word{0};
  constexpr Word kMin32Sext = 0xFFFF'FFFF'8000'0000;
  constexpr Word kSignedMin = Word{1} << 63;
  EXPECT_EQ(scalar::scalar_binary(BinaryOp::ADD, kOnes, 1), 0u);
  EXPECT_EQ(scalar::scalar_binary(BinaryOp::SUB, 0, 1), kOnes);
  EXPECT_EQ(scalar::scalar_binary(BinaryOp::SLL, 1, 65), 2u);
  EXPECT_EQ(scalar::scalar_binary_w(BinaryOp::ADD, 0x7fffffff, 1), kMin32Sext);
  EXPECT_TRUE(block::condition_holds(block::Condition::EQ, kOnes, kOnes));
  EXPECT_TRUE(block::condition_holds(block::Condition::LT, kOnes, 0));
  EXPECT_TRUE(block::condition_holds(block::Condition::LTU, 0, kOnes));
  EXPECT_EQ(scalar::scalar_divide_unsigned(10, 3), 3u);
  EXPECT_EQ(scalar::scalar_remainder_unsigned(10, 3), 1u);
  EXPECT_EQ(scalar::scalar_divide_signed(Word{0} - 10, 3), Word{0} - 3);
  EXPECT_EQ(scalar::scalar_remainder_signed(Word{0} - 10, 3), Word{0} - 1);

  set(1, kOnes);
  set(2, 2);
  ok(M::HL_MULU, {8, 9, 1, 2});  // ExecuteScalarMultiplyPair(8, 9, ones, 2, FALSE)
  EXPECT_EQ(r(8), Word{0} - 2);
  EXPECT_EQ(r(9), 1u);
  set(1, 23);
  set(2, 5);
  ok(M::HL_DIVU, {8, 9, 1, 2});  // ExecuteScalarDividePair(8, 9, 23, 5, FALSE)
  EXPECT_EQ(r(8), 4u);
  EXPECT_EQ(r(9), 3u);

  EXPECT_EQ(scalar::scalar_divide_signed_w(0xfffffff6, 3), kOnes - 2);
  EXPECT_EQ(scalar::scalar_remainder_unsigned_w(0xffffffff, 16), 15u);
  EXPECT_EQ(scalar::scalar_multiply_w(0x80000000, 1), kMin32Sext);
  using scalar::RightModifier;
  EXPECT_EQ(scalar::apply_right_modifier(0xffffffff, RightModifier::SignedWord, false), kOnes);
  EXPECT_EQ(scalar::apply_right_modifier(3, RightModifier::NegateOrNot, true), ~Word{3});
  EXPECT_EQ(scalar::apply_restricted_compare_modifier(7, RightModifier::NegateOrNot), 7u);
  set(1, 0x1111);
  set(2, 7);
  set(3, 0);
  ok(M::CSEL, {kDst, 1, 3, 2, 3});  // ApplySelectModifier(7, NegateOrNot): the selected SrcR.neg
  EXPECT_EQ(r(kDst), Word{0} - 7);
  EXPECT_EQ(scalar::materialize_lui(0x80000), kMin32Sext);
  EXPECT_EQ(scalar::materialize_long_unsigned(0xffffffff), 0xffffffffu);
  set(1, 0x1234);
  ok(M::C_MOVR, {kDst, 1});  // MoveScalarValue
  EXPECT_EQ(r(kDst), 0x1234u);
  EXPECT_EQ(scalar::scalar_multiply_immediate_add(100, 7, 3, false), 121u);
  EXPECT_EQ(scalar::scalar_multiply_immediate_add(100, 7, 3, true), 79u);
  EXPECT_EQ(scalar::insert_bitfield(0, 0xf, 62, 1), 0xc000000000000003u);

  set(1, 0x11);
  set(2, 0x22);
  ok(M::HL_CCAT, {6, 7, 1, 2, 4});  // ExecuteConcatenatePair(6, 7, 0x11, 0x22, 4)
  EXPECT_EQ(r(6), 0x1000000000000002u);
  EXPECT_EQ(r(7), 1u);
  set(1, 0x80000000);
  set(2, 1);
  ok(M::HL_CCATW, {6, 7, 1, 2, 0});  // ExecuteConcatenatePairW(6, 7, 0x80000000, 1, 0)
  EXPECT_EQ(r(6), 1u);
  EXPECT_EQ(r(7), kMin32Sext);
  EXPECT_EQ(scalar::extend_scalar_value(0x80, 8, true), 0xffffffffffffff80u);
  set(11, 1);
  set(12, 2);
  set(13, 3);
  ok(M::HL_MADD, {6, 7, 11, 12, 13});  // ExecuteScalarMultiplyAddPair(6, 7, 1, 2, 3, FALSE)
  EXPECT_EQ(r(6), 7u);
  EXPECT_EQ(r(7), 0u);

  using scalar::BitCount;
  EXPECT_EQ(scalar::extract_bitfield(0xf0, 8, 4, false), 0x0fu);
  EXPECT_EQ(scalar::count_bitfield(0xf0, 8, 4, BitCount::Population), 4u);
  EXPECT_EQ(scalar::count_bitfield(0xf0, 8, 4, BitCount::LeadingZeros), 4u);
  EXPECT_EQ(scalar::modify_bitfield(0, 3, 4, true), 0x70u);
  EXPECT_EQ(scalar::reverse_bitfield_bytes(0x11223344, 32, 0), 0x44332211u);
  EXPECT_EQ(scalar::reverse_bitfield_bytes(kOnes, 7, 0), 0u);

  st.pc = 100;
  set(1, kOnes);
  set(2, 0);
  ok(M::CMP_LT, {10, 1, 2, 0});  // ExecuteCompare(10, LT, ones, 0)
  EXPECT_EQ(r(10), 1u);
  set(1, 7);
  set(2, 7);
  enter_standard_block();
  ok(M::SETC_EQ, {1, 2, 0});  // ExecuteSetCommit(EQ, 7, 7)
  EXPECT_EQ(st.commit_argument, 1u);
  block::reset_bundle_control(st);
  st.pc = 100;
  ok(M::C_SETRET, {3});  // SetReturnAddress(3) at TPC 100
  EXPECT_EQ(st.return_address, 106u);
  EXPECT_EQ(r(10), 106u);
  EXPECT_EQ(scalar::materialize_long_signed(0x80000000), kMin32Sext);
  EXPECT_EQ(scalar::multiply_word(3, 4), 12u);
  EXPECT_EQ(scalar::scalar_conditional_select(0, 1, 2), 2u);
  EXPECT_EQ(scalar::scalar_divide_unsigned_w(0xffffffff, 16), 0x0fffffffu);
  EXPECT_EQ(scalar::scalar_remainder_signed_w(0xfffffff6, 3), kOnes);
  EXPECT_EQ(scalar::scalar_multiply_add(5, 3, 4), 17u);
  EXPECT_EQ(scalar::scalar_multiply_add_w(5, 0xffffffff, 3), 2u);

  // Non-trapping division: zero divisor, signed minimum / -1, both widths.
  EXPECT_EQ(scalar::scalar_divide_unsigned(0x1234, 0), 0u);
  EXPECT_EQ(scalar::scalar_remainder_unsigned(0x1234, 0), 0x1234u);
  EXPECT_EQ(scalar::scalar_divide_signed(kSignedMin, kOnes), kSignedMin);
  EXPECT_EQ(scalar::scalar_remainder_signed(kSignedMin, kOnes), 0u);
  EXPECT_EQ(scalar::scalar_divide_signed_w(0x80000000, kOnes), kMin32Sext);
  EXPECT_EQ(scalar::scalar_remainder_signed_w(0x80000000, kOnes), 0u);
  set(1, 23);
  set(2, 5);
  ok(M::HL_DIVUW, {8, 9, 1, 2});  // ExecuteScalarDividePairW(8, 9, 23, 5, FALSE)
  EXPECT_EQ(r(8), 4u);
  EXPECT_EQ(r(9), 3u);

  set(1, 1);
  set(2, 2);
  ok(M::CMP_OR, {10, 1, 2, 0});  // ExecuteCompareLogical(10, 1, 2, TRUE)
  EXPECT_EQ(r(10), 1u);
  ok(M::CMP_AND, {10, 1, 2, 0});  // ExecuteCompareLogical(10, 1, 2, FALSE)
  EXPECT_EQ(r(10), 0u);
  enter_standard_block();
  ok(M::SETC_OR, {1, 2, 0});  // ExecuteSetCommitLogical(1, 2, TRUE)
  EXPECT_EQ(st.commit_argument, 1u);
  block::reset_bundle_control(st);  // one condition per block
  enter_standard_block();
  ok(M::SETC_AND, {1, 2, 0});  // ExecuteSetCommitLogical(1, 2, FALSE)
  EXPECT_EQ(st.commit_argument, 0u);
  block::reset_bundle_control(st);

  st.pc = 100;
  ok(M::J, {4});  // JumpRelative(4): PC + 2 * 4
  EXPECT_EQ(st.pc, 108u);
  set(1, 200);
  ok(M::JR, {1, 0, 0});  // JumpRegister(200)
  EXPECT_EQ(st.pc, 200u);
  h.machine.clear_fault();
  set(1, 201);
  EXPECT_EQ(h.execute(encode_insn(M::JR, {1, 0, 0}), length_of(M::JR)), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_InstructionPC);  // JumpRegister(201)
}

// ---- DMA (asl/scalar/amo/DMA.asl, ExecuteScalarDMACopy64) ----
constexpr unsigned kCopyBytes = 64;  // InstructionContractCopySizeBytes_DMA

// PTO-AVS-SCALAR-DMA-COPY-001: a disjoint 64-byte copy (source bytes 1..64,
// destination 0xAA) copies every byte, clears the reservation of the
// destination, advances TPC by 4, and records 16 relaxed events: eight
// 8-byte loads of the source chunks, then eight 8-byte stores of the same
// values to the destination chunks (InstructionContractEventChunkSizeBytes
// 8, EventChunkCount 8).
TEST_F(SpecPointsScalarHelpers, PTO_AVS_SCALAR_DMA_COPY_001) {
  constexpr Word kSource = 0x100;
  constexpr Word kDestination = 0x200;
  for (unsigned i = 0; i < kCopyBytes; ++i) {
    h.machine.memory.write(kSource + i, 1, i + 1);
    h.machine.memory.write(kDestination + i, 1, 0xAA);
  }
  st.reservation_valid = true;
  st.reservation_address = kDestination;
  st.reservation_size = 8;
  st.write_gpr(1, kSource);
  st.write_gpr(2, kDestination);
  st.pc = 0x40;
  h.machine.start_memory_event_capture(0);
  exec(enc("DMA", {{"SrcL", 1}, {"SrcR", 2}}), M::DMA);
  EXPECT_FALSE(st.reservation_valid);
  EXPECT_EQ(st.pc, 0x44u);
  for (unsigned i = 0; i < kCopyBytes; ++i) {
    EXPECT_EQ(h.machine.memory.read(kDestination + i, 1), h.machine.memory.read(kSource + i, 1)) << i;
    EXPECT_EQ(h.machine.memory.read(kDestination + i, 1), i + 1) << i;
  }
  ASSERT_EQ(st.memory_event_count, 16u);
  for (unsigned chunk = 0; chunk < 8; ++chunk) {
    const arch::MemoryEvent& load = st.memory_events[chunk];
    const arch::MemoryEvent& store = st.memory_events[chunk + 8];
    EXPECT_EQ(load.kind, arch::MemoryEventKind::Load) << chunk;
    EXPECT_EQ(load.address, kSource + 8 * chunk);
    EXPECT_EQ(load.size_bytes, 8u);
    EXPECT_EQ(load.order, arch::MemoryOrder::Relaxed);
    EXPECT_EQ(store.kind, arch::MemoryEventKind::Store) << chunk;
    EXPECT_EQ(store.address, kDestination + 8 * chunk);
    EXPECT_EQ(store.size_bytes, 8u);
    EXPECT_EQ(store.order, arch::MemoryOrder::Relaxed);
    EXPECT_EQ(store.write_value, load.read_value) << chunk;
  }
}

// PTO-AVS-SCALAR-DMA-OVERLAP-001: a forward-overlapping copy (destination =
// source + 8) with both addresses from queue sources (SrcL T#1, SrcR U#1)
// has memmove bytes (the destination receives the source's original bytes
// 0x80..0xBF), leaves the input queues as they were, keeps a nonoverlapping
// reservation (0x300) and advances TPC by 4.
TEST_F(SpecPointsScalarHelpers, PTO_AVS_SCALAR_DMA_OVERLAP_001) {
  constexpr Word kSource = 0x100;
  constexpr Word kDestination = kSource + 8;
  constexpr unsigned kT1 = 24;
  constexpr unsigned kU1 = 28;
  for (unsigned i = 0; i < kCopyBytes; ++i) h.machine.memory.write(kSource + i, 1, 0x80 + i);
  st.t_queue.push(kSource);
  st.u_queue.push(kDestination);
  st.reservation_valid = true;
  st.reservation_address = 0x300;
  st.reservation_size = 8;
  st.pc = 0x80;
  h.machine.start_memory_event_capture(1);
  exec(enc("DMA", {{"SrcL", kT1}, {"SrcR", kU1}}), M::DMA);
  EXPECT_EQ(st.t_queue.value[0], kSource);
  EXPECT_EQ(st.u_queue.value[0], kDestination);
  EXPECT_TRUE(st.reservation_valid);
  EXPECT_EQ(st.reservation_address, 0x300u);
  EXPECT_EQ(st.pc, 0x84u);
  for (unsigned i = 0; i < kCopyBytes; ++i) EXPECT_EQ(h.machine.memory.read(kDestination + i, 1), 0x80u + i) << i;
}

}  // namespace
}  // namespace pto::test
