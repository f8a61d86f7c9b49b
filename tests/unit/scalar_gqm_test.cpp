// General Queue Management: the queue model (src/scalar/gqm.hpp) and the
// HL.QMT / HL.QPUSH / HL.QPOP commands.  The tests translate the spec's test
// points tests/asl/block/lifecycle/HL.Q*/** and
// tests/asl/arch/programming-model/general-queue-management/** (AVS id in
// each test name); the rest are hand derived from
// asl/arch/programming-model/general-queue-management.asl and
// asl/block/model/commit/effects.asl.
#include <gtest/gtest.h>

#include "runner/state_dump.hpp"
#include "scalar/gqm.hpp"
#include "scalar_harness.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using arch::Word;
namespace gqm = scalar::gqm;

// Command words as the spec's tests build them (catalog encodings of
// hl_qmt_48 / hl_qpush_48 / hl_qpop_48).
std::uint64_t qmt(unsigned dst, unsigned src_l, unsigned src_r, bool i, bool e, bool s, bool r) {
  return 0x00007d000eull | (std::uint64_t{dst} << 23) | (std::uint64_t{src_l} << 31) | (std::uint64_t{src_r} << 36) |
         (std::uint64_t{i} << 44) | (std::uint64_t{e} << 41) | (std::uint64_t{s} << 43) | (std::uint64_t{r} << 42);
}
std::uint64_t qpush(unsigned dst, unsigned src_l, unsigned src_r, bool h, bool e, bool r) {
  return 0x107d000eull | (std::uint64_t{dst} << 23) | (std::uint64_t{src_l} << 31) | (std::uint64_t{src_r} << 36) |
         (std::uint64_t{h} << 43) | (std::uint64_t{e} << 41) | (std::uint64_t{r} << 42);
}
std::uint64_t qpop(unsigned dst0, unsigned dst1, unsigned src_l, bool e, bool r) {
  return 0x207d000eull | (std::uint64_t{dst0} << 23) | (std::uint64_t{dst1} << 11) | (std::uint64_t{src_l} << 31) |
         (std::uint64_t{e} << 41) | (std::uint64_t{r} << 42);
}

unsigned status_of(Word result) { return static_cast<unsigned>(result >> 62); }
unsigned primary_of(Word result) { return static_cast<unsigned>(result & 0x1FFF); }

class Gqm : public ::testing::Test {
 protected:
  ScalarHarness h;
  arch::State& st = h.state();
  arch::GqmState& g = st.gqm;
  ScalarResult run(std::uint64_t bits) { return h.execute(bits, 48); }
  const arch::GqmQueue& queue(Word address) {
    const arch::GqmQueue* q = gqm::find_queue(g, address);
    if (q == nullptr) throw std::runtime_error("no queue");
    return *q;
  }
};

TEST_F(Gqm, PTO_AVS_BLOCK_HL_QMT_INIT_001) {
  st.pc = 0x700;
  st.write_gpr(1, 0x1000);
  st.write_gpr(2, 3);
  ASSERT_EQ(run(qmt(3, 1, 2, true, false, false, false)), ScalarResult::Executed);
  EXPECT_EQ(status_of(st.read_gpr(3)), 0b00u);
  EXPECT_EQ(primary_of(st.read_gpr(3)), 24u);  // capacity 3 x 8 bytes
  ASSERT_NE(gqm::find_queue(g, 0x1000), nullptr);
  EXPECT_EQ(gqm::remaining(g, 0x1000), 3u);
  EXPECT_FALSE(queue(0x1000).suspended);
  ASSERT_EQ(run(qmt(4, 1, 0, false, false, false, false)), ScalarResult::Executed);
  EXPECT_EQ(status_of(st.read_gpr(4)), 0b00u);
  EXPECT_EQ(primary_of(st.read_gpr(4)), 3u);
  EXPECT_EQ(st.pc, 0x70cu);
  // _LastQueue*: the query reads no SrcR.
  EXPECT_EQ(g.last_queue_left, 0x1000u);
  EXPECT_EQ(g.last_queue_right, 0u);
  EXPECT_EQ(g.last_queue_flags, 0u);
}

// s and r together are illegal before the (invalid t#1/t#2) sources are checked.
TEST_F(Gqm, PTO_AVS_BLOCK_HL_QMT_FLAGS_001) {
  st.pc = 0x740;
  st.write_gpr(3, 0x55);
  ASSERT_EQ(run(qmt(3, 24, 25, false, false, true, true)), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(st.read_gpr(3), 0x55u);
  EXPECT_EQ(g.event_epoch, 0u);
  EXPECT_EQ(st.pc, 0x740u);
}

// PTO-AVS-BLOCK-HL-QMT-FLAGS-001's rule with every source available
// (PTO-HL-QMT-GQM-001; the catalog: "s+r raises Fault_IllegalInstruction
// before operand reads or effects").  The point above reaches the rejection
// with invalid t#1/t#2 sources, which reject on their own; here only s+r
// can reject.  Twin: .s alone on the same queue executes and suspends it.
TEST_F(Gqm, QmtSuspendWithRestoreRejectsWithAvailableSources) {
  gqm::initialize_queue(g, 0x1100, 2);
  st.pc = 0x740;
  st.write_gpr(1, 0x1100);
  st.write_gpr(3, 0x55);
  ASSERT_EQ(run(qmt(3, 1, 0, false, false, true, true)), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(st.read_gpr(3), 0x55u);
  EXPECT_FALSE(queue(0x1100).suspended);
  EXPECT_EQ(st.pc, 0x740u);
  h.machine.clear_fault();
  ASSERT_EQ(run(qmt(3, 1, 0, false, false, true, false)), ScalarResult::Executed);
  EXPECT_EQ(status_of(st.read_gpr(3)), 0b00u);
  EXPECT_TRUE(queue(0x1100).suspended);
}

TEST_F(Gqm, PTO_AVS_BLOCK_HL_QMT_CONTROL_001) {
  st.write_gpr(1, 0x1100);
  st.write_gpr(2, 2);
  ASSERT_EQ(run(qmt(3, 1, 2, true, true, true, false)), ScalarResult::Executed);  // .ies
  EXPECT_EQ(status_of(st.read_gpr(3)), 0b00u);
  EXPECT_TRUE(queue(0x1100).suspended);
  EXPECT_EQ(g.event_epoch, 1u);
  EXPECT_EQ(g.last_event_address, 0x1100u);
  ASSERT_EQ(run(qmt(4, 1, 0, false, false, false, true)), ScalarResult::Executed);  // .r
  EXPECT_FALSE(queue(0x1100).suspended);
  st.write_gpr(1, 0x2200);
  ASSERT_EQ(run(qmt(5, 1, 0, false, true, false, false)), ScalarResult::Executed);  // .e on a missing queue
  EXPECT_EQ(status_of(st.read_gpr(5)), 0b01u);
  EXPECT_EQ(primary_of(st.read_gpr(5)), 0u);
  EXPECT_EQ(gqm::find_queue(g, 0x2200), nullptr);
  EXPECT_EQ(g.event_epoch, 1u);
}

// Selector failures (an invalid queue slot) are illegal before any effect;
// SrcR is read (and checked) only with .i.
TEST_F(Gqm, QueueSourcesMustBeAvailable) {
  st.write_gpr(1, 0x1000);
  ASSERT_EQ(run(qmt(3, 1, 24, false, false, false, false)), ScalarResult::Executed);  // SrcR ignored
  ASSERT_EQ(run(qmt(3, 1, 24, true, false, false, false)), ScalarResult::Rejected);
  EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_EQ(gqm::find_queue(g, 0x1000), nullptr);
  ASSERT_EQ(run(qpush(3, 1, 28, false, false, false)), ScalarResult::Rejected);
  ASSERT_EQ(run(qpop(3, 4, 25, false, false)), ScalarResult::Rejected);
  EXPECT_EQ(g.last_queue_left, 0x1000u);  // still the accepted query's record
  EXPECT_EQ(g.last_queue_right, 0u);
}

TEST_F(Gqm, PTO_AVS_BLOCK_HL_QPUSH_ORDER_001) {
  gqm::initialize_queue(g, 0x1200, 3);
  st.write_gpr(1, 0x1200);
  st.write_gpr(2, 0x11);
  ASSERT_EQ(run(qpush(3, 1, 2, false, false, false)), ScalarResult::Executed);  // tail
  EXPECT_EQ(status_of(st.read_gpr(3)), 0b00u);
  EXPECT_EQ(st.read_gpr(3) & 0x3FF, 2u);
  st.write_gpr(2, 0x22);
  ASSERT_EQ(run(qpush(4, 1, 2, true, false, false)), ScalarResult::Executed);  // .h
  EXPECT_EQ(st.read_gpr(4) & 0x3FF, 1u);
  const arch::GqmQueue& q = queue(0x1200);
  EXPECT_EQ(q.entries[q.head].value, 0x22u);
  EXPECT_EQ(q.entries[q.head].release_epoch, 2u);
  EXPECT_EQ(g.last_queue_right, 0x22u);
  EXPECT_EQ(g.last_queue_flags, 0b1000u);
}

TEST_F(Gqm, PTO_AVS_BLOCK_HL_QPUSH_STATUS_001) {
  gqm::initialize_queue(g, 0x1300, 1);
  gqm::push_entry(g, 0x1300, 0xAA, false, false, false);
  const auto release_before = g.release_epoch;
  const auto events_before = g.event_epoch;
  EXPECT_EQ(status_of(gqm::push_entry(g, 0x1300, 0xBB, false, false, true)), 0b01u);  // full
  EXPECT_EQ(queue(0x1300).entries[queue(0x1300).head].value, 0xAAu);
  gqm::set_suspended(g, 0x1300, true);
  EXPECT_EQ(status_of(gqm::push_entry(g, 0x1300, 0xCC, false, false, true)), 0b01u);  // suspended
  EXPECT_EQ(status_of(gqm::push_entry(g, 0x2300, 0xDD, false, false, true)), 0b10u);  // missing
  gqm::set_corrupt(g, 0x1300, true);
  EXPECT_EQ(status_of(gqm::push_entry(g, 0x1300, 0xEE, false, false, true)), 0b10u);  // corrupt
  EXPECT_EQ(g.release_epoch, release_before);
  EXPECT_EQ(g.event_epoch, events_before);
}

TEST_F(Gqm, PTO_AVS_BLOCK_HL_QPOP_ACQUIRE_001) {
  gqm::initialize_queue(g, 0x1400, 2);
  gqm::push_entry(g, 0x1400, 0x1234, false, false, false);
  st.write_gpr(1, 0x1400);
  ASSERT_EQ(run(qpop(2, 3, 1, true, false)), ScalarResult::Executed);  // .e
  EXPECT_EQ(st.read_gpr(2), 0x1234u);
  EXPECT_EQ(status_of(st.read_gpr(3)), 0b00u);
  EXPECT_EQ(primary_of(st.read_gpr(3)), 0u);
  EXPECT_EQ(gqm::remaining(g, 0x1400), 2u);
  EXPECT_EQ(g.last_acquire_epoch, 1u);
  EXPECT_EQ(g.event_epoch, 1u);
}

// Bits [40:36] of HL.QPOP are fixed zero: any other value is an illegal word.
TEST_F(Gqm, PTO_AVS_BLOCK_HL_QPOP_RESERVED_001) {
  st.pc = 0x780;
  st.write_gpr(2, 0xAA);
  st.write_gpr(3, 0xBB);
  for (std::uint64_t reserved = 1; reserved <= 31; ++reserved) {
    ASSERT_EQ(run(qpop(2, 3, 24, false, false) | (reserved << 36)), ScalarResult::Rejected) << reserved;
    EXPECT_EQ(st.last_fault, FaultCode::Fault_IllegalInstruction);
    EXPECT_EQ(st.read_gpr(2), 0xAAu);
    EXPECT_EQ(st.read_gpr(3), 0xBBu);
    EXPECT_EQ(g.event_epoch, 0u);
    EXPECT_EQ(st.pc, 0x780u);
    h.machine.clear_fault();
  }
}

TEST_F(Gqm, PTO_AVS_BLOCK_HL_QPOP_STATUS_001) {
  gqm::initialize_queue(g, 0x1500, 0);
  const gqm::PopResult empty = gqm::pop_entry(g, 0x1500, false, true);
  EXPECT_EQ(empty.data, 0u);
  EXPECT_EQ(status_of(empty.result), 0b01u);
  const gqm::PopResult missing = gqm::pop_entry(g, 0x2500, false, true);
  EXPECT_EQ(missing.data, 0u);
  EXPECT_EQ(status_of(missing.result), 0b10u);
  gqm::set_corrupt(g, 0x1500, true);
  const gqm::PopResult corrupt = gqm::pop_entry(g, 0x1500, false, true);
  EXPECT_EQ(corrupt.data, 0u);
  EXPECT_EQ(status_of(corrupt.result), 0b10u);
  EXPECT_EQ(g.last_acquire_epoch, 0u);
  EXPECT_EQ(g.event_epoch, 0u);
}

TEST_F(Gqm, PTO_AVS_ARCH_GQM_RESET_001) {
  gqm::initialize_queue(g, 0x1000, 2);
  gqm::push_entry(g, 0x1000, 0x55, false, false, true);
  ASSERT_NE(gqm::find_queue(g, 0x1000), nullptr);
  h.machine.reset();
  EXPECT_EQ(gqm::find_queue(st.gqm, 0x1000), nullptr);
  EXPECT_EQ(st.gqm.release_epoch, 0u);
  EXPECT_EQ(st.gqm.last_acquire_epoch, 0u);
  EXPECT_EQ(st.gqm.event_epoch, 0u);
  EXPECT_EQ(st.gqm.last_event_address, 0u);
}

// FIFO order through the ring buffer with wrap-around, relaxed entries
// (release epoch 0) leaving the acquire epoch alone, and the popped data
// written before the status (RegDst0 == RegDst1 keeps the status).
TEST_F(Gqm, FifoWrapsAroundAndRelaxedEntriesCarryNoReleaseEpoch) {
  st.write_gpr(1, 0x3000);
  st.write_gpr(2, 2);
  ASSERT_EQ(run(qmt(0, 1, 2, true, false, false, false)), ScalarResult::Executed);
  for (Word v : {Word{0xA}, Word{0xB}}) {
    st.write_gpr(2, v);
    ASSERT_EQ(run(qpush(3, 1, 2, false, false, v == 0xB)), ScalarResult::Executed);  // 0xB relaxed
  }
  EXPECT_EQ(status_of(st.read_gpr(3)), 0b00u);
  EXPECT_EQ(primary_of(st.read_gpr(3)), 0u);
  ASSERT_EQ(run(qpop(4, 5, 1, false, false)), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(4), 0xAu);
  EXPECT_EQ(g.last_acquire_epoch, 1u);
  st.write_gpr(2, 0xC);
  ASSERT_EQ(run(qpush(3, 1, 2, false, false, false)), ScalarResult::Executed);  // wraps to entry 0
  ASSERT_EQ(run(qpop(4, 4, 1, false, false)), ScalarResult::Executed);
  EXPECT_EQ(status_of(st.read_gpr(4)), 0b00u);
  EXPECT_EQ(primary_of(st.read_gpr(4)), 1u);
  EXPECT_EQ(g.last_acquire_epoch, 1u);  // 0xB was relaxed
  ASSERT_EQ(run(qpop(4, 5, 1, false, false)), ScalarResult::Executed);
  EXPECT_EQ(st.read_gpr(4), 0xCu);
  EXPECT_EQ(g.last_acquire_epoch, 2u);
  EXPECT_EQ(queue(0x3000).head, 0u);  // an emptied queue restarts at entry 0
}

// More queues than PTO_MODEL_GQM_QUEUE_SLOTS (4) are backed on demand, and
// re-initialization reuses (and empties) the queue at the same address.
TEST_F(Gqm, MoreQueuesThanTheModelSlotsAndReinitialization) {
  for (Word a = 1; a <= 6; ++a) gqm::initialize_queue(g, a * 0x100, static_cast<unsigned>(a));
  EXPECT_EQ(g.queues.size(), 6u);
  for (Word a = 1; a <= 6; ++a) EXPECT_EQ(gqm::remaining(g, a * 0x100), a);
  gqm::push_entry(g, 0x300, 7, false, false, false);
  gqm::initialize_queue(g, 0x300, 1023);
  EXPECT_EQ(g.queues.size(), 6u);
  EXPECT_EQ(gqm::remaining(g, 0x300), 1023u);
}

TEST_F(Gqm, StateDumpListsQueuesHeadFirst) {
  gqm::initialize_queue(g, 0x1200, 3);
  gqm::push_entry(g, 0x1200, 0x11, false, false, false);
  gqm::push_entry(g, 0x1200, 0x22, /*at_head=*/true, /*relaxed=*/false, /*notify_event=*/true);
  const nlohmann::json j = runner::dump_state(h.machine)["gqm"];
  ASSERT_EQ(j["queues"].size(), 1u);
  EXPECT_EQ(j["queues"][0]["address"], "0x0000000000001200");
  EXPECT_EQ(j["queues"][0]["entries"][0]["value"], "0x0000000000000022");
  EXPECT_EQ(j["queues"][0]["entries"][1]["value"], "0x0000000000000011");
  EXPECT_EQ(j["release_epoch"], 2);
  EXPECT_EQ(j["event_epoch"], 1);
}

}  // namespace
}  // namespace pto::test
