// AMO handlers: LR/SC with the 64-byte reservation granule, read-modify-write,
// CAS and DMA, driven by encoded instructions.  Expected values are hand
// derived from asl/scalar/model/amo/semantics.asl.
#include <gtest/gtest.h>

#include <vector>

#include "scalar_harness.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using arch::Word;
using M = isa::Mnemonic;

class AmoHandlers : public ::testing::Test {
 protected:
  ScalarHarness h;
  arch::State& st = h.state();

  ScalarResult run(M m, std::initializer_list<std::int64_t> fields) {
    return h.execute(encode_insn(m, fields), length_of(m));
  }
  void ok(M m, std::initializer_list<std::int64_t> fields) {
    ASSERT_EQ(run(m, fields), ScalarResult::Executed) << isa::mnemonic_name(m);
    EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
  }
  Word r(unsigned i) const { return st.read_gpr(i); }
  void set(unsigned i, Word v) { st.write_gpr(i, v); }
  Word mem(Word a, unsigned size) { return h.machine.memory.read(a, size); }
};

TEST_F(AmoHandlers, LoadReservedThenStoreConditionalInTheSameGranule) {
  h.machine.memory.write(0x100, 4, 0x80000001);
  set(1, 0x100);
  ok(M::LR_W, {3, 1, 0, 1, 0, 0});  // RegDst, SrcL, SrcZero, aq, far, rl
  EXPECT_EQ(r(3), 0xFFFFFFFF80000001u);  // NormalizeAtomicReturn sign-extends words
  EXPECT_TRUE(st.reservation_valid);
  EXPECT_EQ(st.reservation_address, 0x100u);
  EXPECT_EQ(st.reservation_size, 4);
  set(2, 0x138);  // another address inside the same 64-byte line
  set(4, 0xABCD);
  ok(M::SC_D, {5, 4, 2, 0, 0, 1});  // RegDst, SrcL (value), SrcR (address), aq, far, rl
  EXPECT_EQ(r(5), 0u);
  EXPECT_EQ(mem(0x138, 8), 0xABCDu);
  EXPECT_FALSE(st.reservation_valid);
  ok(M::SC_D, {5, 4, 2, 0, 0, 0});  // no reservation: status 1, no store
  EXPECT_EQ(r(5), 1u);
}

TEST_F(AmoHandlers, ReservationMissIsProbeFree) {
  set(2, 0x5003);  // misaligned and outside the model memory
  ok(M::SC_W, {5, 4, 2, 0, 0, 0});
  EXPECT_EQ(r(5), 1u);
}

TEST_F(AmoHandlers, MatchingScThatFaultsStillClearsTheReservation) {
  set(1, 0x100);
  ok(M::LR_D, {3, 1, 0, 0, 0, 0});
  set(2, 0x104);  // same granule, misaligned for 8 bytes
  set(5, 0x77);
  EXPECT_EQ(run(M::SC_D, {5, 4, 2, 0, 0, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(st.fault_address, 0x104u);
  EXPECT_FALSE(st.reservation_valid);
  EXPECT_EQ(r(5), 0x77u);
}

TEST_F(AmoHandlers, FaultingLoadReservedKeepsTheOlderReservation) {
  set(1, 0x100);
  ok(M::LR_D, {3, 1, 0, 0, 0, 0});
  set(1, 0x1000);
  EXPECT_EQ(run(M::LR_D, {3, 1, 0, 0, 0, 0}), ScalarResult::Rejected);
  EXPECT_TRUE(st.reservation_valid);
  EXPECT_EQ(st.reservation_address, 0x100u);
}

TEST_F(AmoHandlers, ReadModifyWriteReturnsTheOldValue) {
  h.machine.memory.write(0x200, 4, 0x7FFFFFFF);
  set(1, 0x200);
  set(2, 1);
  ok(M::LW_ADD, {3, 1, 2, 0, 0, 0});  // RegDst, SrcL, SrcR, aq, far, rl
  EXPECT_EQ(r(3), 0x7FFFFFFFu);
  EXPECT_EQ(mem(0x200, 4), 0x80000000u);
  set(2, 5);
  ok(M::LW_SMIN, {3, 1, 2, 0, 0, 0});  // 0x80000000 is negative as a word
  EXPECT_EQ(r(3), 0xFFFFFFFF80000000u);
  EXPECT_EQ(mem(0x200, 4), 0x80000000u);
  ok(M::LW_UMIN, {3, 1, 2, 0, 0, 0});
  EXPECT_EQ(mem(0x200, 4), 5u);
  ok(M::SW_XOR, {1, 2, 0, 0});  // SrcL, SrcR, far, rl: no result
  EXPECT_EQ(mem(0x200, 4), 0u);
  h.machine.memory.write(0x210, 1, 0xF0);
  set(1, 0x210);
  set(2, 0x1AB);
  ok(M::SWAPB, {3, 1, 2, 0, 0, 0});
  EXPECT_EQ(r(3), 0xF0u);  // bytes zero-extend
  EXPECT_EQ(mem(0x210, 2), 0xABu);
}

TEST_F(AmoHandlers, AtomicStoreClearsAnOverlappingReservation) {
  set(1, 0x100);
  ok(M::LR_D, {3, 1, 0, 0, 0, 0});
  set(1, 0x13C);
  set(2, 1);
  ok(M::SW_ADD, {1, 2, 0, 0});
  EXPECT_FALSE(st.reservation_valid);
}

TEST_F(AmoHandlers, CompareAndSwap) {
  h.machine.memory.write(0x300, 2, 0x8001);
  set(1, 0x300);
  set(2, 0xFFFF8001);  // compared on its low 16 bits
  set(4, 0x1234);
  ok(M::CASH, {3, 4, 1, 2, 0, 0});  // RegDst, SrcD, SrcL, SrcR, aq, rl
  EXPECT_EQ(r(3), 0x8001u);
  EXPECT_EQ(mem(0x300, 2), 0x1234u);
  ok(M::CASH, {3, 4, 1, 2, 0, 0});  // now fails: memory unchanged
  EXPECT_EQ(r(3), 0x1234u);
  EXPECT_EQ(mem(0x300, 2), 0x1234u);
  set(1, 0x301);
  EXPECT_EQ(run(M::CASH, {3, 4, 1, 2, 0, 0}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataAlignment);
}

TEST_F(AmoHandlers, AtomicEventsAreCaptured) {
  h.machine.memory.write(0x200, 8, 10);
  h.machine.start_memory_event_capture(2);
  set(1, 0x200);
  set(2, 3);
  ok(M::LD_ADD, {3, 1, 2, 1, 0, 1});
  ASSERT_EQ(st.memory_event_count, 1);
  const arch::MemoryEvent& e = st.memory_events[0];
  EXPECT_EQ(e.kind, arch::MemoryEventKind::Atomic);
  EXPECT_EQ(e.agent, 2);
  EXPECT_EQ(e.address, 0x200u);
  EXPECT_EQ(e.read_value, 10u);
  EXPECT_EQ(e.write_value, 13u);
  EXPECT_TRUE(e.write_performed);
  EXPECT_EQ(e.order, arch::MemoryOrder::AcquireRelease);
  EXPECT_EQ(e.coherence_rank, 1);
}

// RecordAtomicEvent: a failed CAS records write_performed = FALSE and no
// coherence rank; read_from names the latest earlier write of the value it
// read (ResolveCapturedReadFrom); ranks follow the location's earlier writes.
TEST_F(AmoHandlers, AtomicEventsResolveReadFromAndRanks) {
  h.machine.start_memory_event_capture(1);
  set(1, 0x200);
  set(2, 7);
  ASSERT_TRUE(h.machine.store(0x200, 8, 5));  // event 0: store 5, rank 1
  ok(M::LD_ADD, {3, 1, 2, 0, 0, 0});          // event 1: reads 5 (from 0), writes 12, rank 2
  set(2, 99);                                 // expected value that does not match 12
  set(4, 1);
  ok(M::CASD, {3, 4, 1, 2, 0, 0});            // event 2: reads 12 (from 1), no write
  ASSERT_EQ(st.memory_event_count, 3);
  const arch::MemoryEvent& add = st.memory_events[1];
  EXPECT_EQ(add.read_from, 0);
  EXPECT_EQ(add.coherence_rank, 2);
  const arch::MemoryEvent& cas = st.memory_events[2];
  EXPECT_EQ(cas.kind, arch::MemoryEventKind::Atomic);
  EXPECT_FALSE(cas.write_performed);
  EXPECT_EQ(cas.coherence_rank, 0);
  EXPECT_EQ(cas.read_value, 12u);
  EXPECT_EQ(cas.write_value, 1u);
  EXPECT_EQ(cas.read_from, 1);
}

// A full event log ends capture for atomics as for loads and stores.
TEST_F(AmoHandlers, AtomicEventsStopAtAFullLog) {
  h.machine.start_memory_event_capture(0);
  set(1, 0x200);
  set(2, 1);
  for (unsigned i = 0; i < arch::kMemoryEvents; ++i) ok(M::SD_ADD, {1, 2, 0, 0});
  EXPECT_EQ(st.memory_event_count, arch::kMemoryEvents);
  EXPECT_TRUE(st.memory_event_capture);
  ok(M::SD_ADD, {1, 2, 0, 0});
  EXPECT_FALSE(st.memory_event_capture);
  EXPECT_EQ(st.memory_event_count, arch::kMemoryEvents);
  EXPECT_EQ(h.machine.memory.read(0x200, 8), arch::kMemoryEvents + 1u);
}

// Atomic accesses reach an attached access log (the tracer's view): the
// read, and the write when it is performed.
TEST_F(AmoHandlers, AtomicAccessesAreTraced) {
  std::vector<arch::MemoryAccess> log;
  h.machine.set_access_log(&log);
  h.machine.memory.write(0x300, 4, 0x10);
  set(1, 0x300);
  set(2, 0x3);
  ok(M::LW_OR, {3, 1, 2, 0, 0, 0});
  ASSERT_EQ(log.size(), 2u);
  EXPECT_FALSE(log[0].write);
  EXPECT_EQ(log[0].address, 0x300u);
  EXPECT_EQ(log[0].size, 4);
  EXPECT_EQ(log[0].value, 0x10u);
  EXPECT_TRUE(log[1].write);
  EXPECT_EQ(log[1].value, 0x13u);
  log.clear();
  set(4, 0x99);
  ok(M::CASW, {3, 4, 1, 2, 0, 0});  // 0x13 != 3: no write
  ASSERT_EQ(log.size(), 1u);
  EXPECT_FALSE(log[0].write);
  h.machine.set_access_log(nullptr);
}

TEST_F(AmoHandlers, DmaCopiesWithMemmoveSemanticsAndFaultsBeforeWriting) {
  for (unsigned i = 0; i < 64; ++i) h.machine.memory.write(0x100 + i, 1, i);
  set(1, 0x100);
  set(2, 0x108);  // overlapping destination
  ok(M::DMA, {1, 2});
  for (unsigned i = 0; i < 64; ++i) ASSERT_EQ(mem(0x108 + i, 1), i) << i;
  set(2, 0xFC1);  // destination ends past the 4096-byte model memory
  EXPECT_EQ(run(M::DMA, {1, 2}), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, 0xFC1u);
  EXPECT_EQ(mem(0xFC1, 8), 0u);
}

// PTO-AVS-SCALAR-DMA-PRECISE-001 (scalar/amo/DMA; ExecuteScalarDMACopy64,
// asl/arch/memory-model/fault-precision.asl): the point's own run.  At ACR2,
// with ACR1's EVBASE (context register 0xF01) 0x900, a reservation of 8
// bytes at 0x500 and event capture on for agent 2, DMA x1 = 0x100 (64 source
// bytes 1..64) to x2 = PTO_MODEL_MEMORY_BYTES - 32 (the last 32 bytes hold
// 0xA5) is Fault_DataPage at that address before any access: no event, the
// destination and the reservation unchanged, the trap taken to ACR1 at 0x900
// with the context's TPC 0x100.  RecoverTrapContext(1) returns to ACR2 at
// 0x100; the reissue with x2 = 0x300 executes once: TPC 0x104, 16 events
// (eight 8-byte loads, then eight stores), the reservation kept, the 64
// bytes at 0x300 equal to the source.
TEST(AmoSpecPoints, PTO_AVS_SCALAR_DMA_PRECISE_001) {
  ScalarHarness h;  // the reference 4096-byte model memory
  arch::Machine& m = h.machine;
  arch::State& st = m.state;
  const Word source = 0x100, fault_address = 4096 - 32, legal_destination = 0x300;
  for (unsigned i = 0; i < 64; ++i) m.memory.write(source + i, 1, i + 1);
  for (unsigned i = 0; i < 32; ++i) m.memory.write(fault_address + i, 1, 0xa5);
  st.reservation_valid = true;
  st.reservation_address = 0x500;
  st.reservation_size = 8;
  m.start_memory_event_capture(2);
  st.write_gpr(1, source);
  st.write_gpr(2, fault_address);
  m.set_current_acr(2);
  st.banked_reg(1, 0x0f01) = 0x900;
  st.pc = 0x100;
  m.clear_fault();
  const std::uint64_t dma = encode_insn(M::DMA, {1, 2});
  ASSERT_EQ(dma, 0x0000700bu | (1u << 15) | (2u << 20));  // the point's word
  ASSERT_EQ(h.execute(dma, 32), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(st.fault_address, fault_address);
  EXPECT_EQ(st.memory_event_count, 0u);
  EXPECT_TRUE(st.reservation_valid);
  EXPECT_EQ(st.reservation_address, 0x500u);
  for (unsigned i = 0; i < 32; ++i) EXPECT_EQ(m.memory.read(fault_address + i, 1), 0xa5u) << i;
  EXPECT_EQ(st.current_acr, 1);
  EXPECT_EQ(st.pc, 0x900u);
  EXPECT_EQ(st.trap_contexts[1].tpc, 0x100u);

  ASSERT_TRUE(m.recover_trap_context(1));
  EXPECT_EQ(st.current_acr, 2);
  EXPECT_EQ(st.pc, 0x100u);

  st.write_gpr(2, legal_destination);
  m.clear_fault();
  ASSERT_EQ(h.execute(dma, 32), ScalarResult::Executed);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_None);
  EXPECT_EQ(st.pc, 0x104u);
  EXPECT_EQ(st.memory_event_count, 16u);
  EXPECT_TRUE(st.reservation_valid);
  for (unsigned i = 0; i < 64; ++i) {
    EXPECT_EQ(m.memory.read(legal_destination + i, 1), i + 1) << i;
    EXPECT_EQ(m.memory.read(legal_destination + i, 1), m.memory.read(source + i, 1)) << i;
  }
}

}  // namespace
}  // namespace pto::test
