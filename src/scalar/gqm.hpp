// General Queue Management: the queue model of
// asl/arch/programming-model/general-queue-management.asl over
// arch::State::gqm, and the HL.QMT/HL.QPUSH/HL.QPOP command handlers
// (asl/block/model/commit/effects.asl ExecuteQueueManager*), registered with
// the scalar families.
#pragma once

#include <cstdint>

#include "arch/state.hpp"

namespace pto::scalar::gqm {

using arch::Word;

// GQMResult status field [63:62].
enum class Status : std::uint8_t {
  Done = 0b00,     // the operation took place
  Retry = 0b01,    // full, empty, suspended, or (HL.QMT query) no usable queue
  Invalid = 0b10,  // no queue at the address, or the queue is corrupt
};

// GQMResult: primary value in [12:0], status in [63:62].
constexpr Word result(unsigned primary, Status status) {
  return (Word{primary} & 0x1FFF) | (Word{static_cast<std::uint8_t>(status)} << 62);
}

// FindGQMQueue: the initialized queue at `address`, or nullptr.
arch::GqmQueue* find_queue(arch::GqmState& g, Word address);
const arch::GqmQueue* find_queue(const arch::GqmState& g, Word address);
// GQMQueueRemaining: free entries, 0 for a missing queue.
unsigned remaining(const arch::GqmState& g, Word address);
// InitializeGQMQueue (capacity 0..1023): reuses the queue at `address` or
// the first free slot.
void initialize_queue(arch::GqmState& g, Word address, unsigned capacity);
// SetGQMQueueSuspended / SetGQMQueueCorrupt: no effect on a missing queue.
void set_suspended(arch::GqmState& g, Word address, bool suspended);
void set_corrupt(arch::GqmState& g, Word address, bool corrupt);
// PushGQMQueueEntry: the GQMResult (remaining entries on success).
Word push_entry(arch::GqmState& g, Word address, Word value, bool at_head, bool relaxed, bool notify_event);
// PopGQMQueueEntry: the head entry and the GQMResult (entries left).
struct PopResult {
  Word data = 0;
  Word result = 0;
};
PopResult pop_entry(arch::GqmState& g, Word address, bool relaxed, bool notify_event);

}  // namespace pto::scalar::gqm
