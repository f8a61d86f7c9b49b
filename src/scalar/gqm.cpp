// General Queue Management model and the HL.QMT / HL.QPUSH / HL.QPOP
// command handlers.  Sources: asl/arch/programming-model/general-queue-management.asl
// (queue model), asl/block/model/commit/effects.asl (ExecuteQueueManager*),
// asl/block/model/dispatch/commands.asl (flag and selector checks, all before
// any source read or effect), asl/block/lifecycle/HL.Q*.asl.
#include "scalar/gqm.hpp"

#include <algorithm>

#include "scalar/handler_support.hpp"

namespace pto::scalar {
namespace gqm {

namespace {

// FindGQMQueue for a const or mutable state: the first valid slot at `address`.
template <class GqmState>
auto* first_queue_at(GqmState& g, Word address) {
  decltype(&g.queues.front()) found = nullptr;
  for (auto& q : g.queues) {
    if (q.valid && q.address == address) {
      found = &q;
      break;
    }
  }
  return found;
}

}  // namespace

arch::GqmQueue* find_queue(arch::GqmState& g, Word address) { return first_queue_at(g, address); }
const arch::GqmQueue* find_queue(const arch::GqmState& g, Word address) { return first_queue_at(g, address); }

unsigned remaining(const arch::GqmState& g, Word address) {
  const arch::GqmQueue* q = find_queue(g, address);
  return q == nullptr ? 0u : static_cast<unsigned>(q->capacity - q->count);
}

void initialize_queue(arch::GqmState& g, Word address, unsigned capacity) {
  arch::GqmQueue* q = find_queue(g, address);
  if (q == nullptr) {
    // FindFreeGQMQueue; the slot count is backing, not an architectural limit.
    const auto free_slot = std::find_if(g.queues.begin(), g.queues.end(), [](const arch::GqmQueue& c) { return !c.valid; });
    q = free_slot != g.queues.end() ? &*free_slot : &g.queues.emplace_back();
  }
  q->valid = true;
  q->address = address;
  q->capacity = static_cast<std::uint16_t>(std::min(capacity, arch::kGqmMaxCapacity));
  q->count = 0;
  q->head = 0;
  q->suspended = false;
  q->corrupt = false;
  q->entries.assign(q->capacity, arch::GqmEntry{});
}

void set_suspended(arch::GqmState& g, Word address, bool suspended) {
  if (arch::GqmQueue* q = find_queue(g, address)) q->suspended = suspended;
}

void set_corrupt(arch::GqmState& g, Word address, bool corrupt) {
  if (arch::GqmQueue* q = find_queue(g, address)) q->corrupt = corrupt;
}

namespace {

// BroadcastGQMEvent
void broadcast_event(arch::GqmState& g, Word address) {
  ++g.event_epoch;
  g.last_event_address = address;
}

}  // namespace

Word push_entry(arch::GqmState& g, Word address, Word value, bool at_head, bool relaxed, bool notify_event) {
  arch::GqmQueue* q = find_queue(g, address);
  if (q == nullptr || q->corrupt) return result(0, Status::Invalid);
  const unsigned free_entries = q->capacity - q->count;
  if (q->suspended || free_entries == 0) return result(free_entries, Status::Retry);
  unsigned index;
  if (at_head) {
    index = q->head == 0 ? q->capacity - 1u : q->head - 1u;
    q->head = static_cast<std::uint16_t>(index);
  } else {
    index = (q->head + q->count) % q->capacity;
  }
  // Release ordering numbers the entry; a relaxed push carries epoch 0.
  const std::uint64_t release_epoch = relaxed ? 0 : ++g.release_epoch;
  q->entries[index] = {value, release_epoch};
  ++q->count;
  if (notify_event) broadcast_event(g, address);
  return result(q->capacity - q->count, Status::Done);
}

PopResult pop_entry(arch::GqmState& g, Word address, bool relaxed, bool notify_event) {
  arch::GqmQueue* q = find_queue(g, address);
  if (q == nullptr || q->corrupt) return {0, result(0, Status::Invalid)};
  if (q->count == 0) return {0, result(0, Status::Retry)};
  const arch::GqmEntry entry = q->entries[q->head];
  q->head = static_cast<std::uint16_t>((q->head + 1u) % q->capacity);
  --q->count;
  if (q->count == 0) q->head = 0;
  // Acquire ordering observes the entry's release epoch.
  if (!relaxed && entry.release_epoch != 0) g.last_acquire_epoch = entry.release_epoch;
  if (notify_event) broadcast_event(g, address);
  return {entry.value, result(q->count, Status::Done)};
}

}  // namespace gqm

namespace {

using M = isa::Mnemonic;

// The command forms' fields, by name (catalog order is per form).
struct QueueFields {
  int reg_dst, reg_dst1, src_l, src_r, e, i, r, s, h;
};

QueueFields queue_fields(M m) {
  return {field_slot(m, m == M::HL_QPOP ? "RegDst0" : "RegDst"), field_slot(m, "RegDst1"), field_slot(m, "SrcL"),
          field_slot(m, "SrcR"), field_slot(m, "e"), field_slot(m, "i"), field_slot(m, "r"), field_slot(m, "s"),
          field_slot(m, "h")};
}

bool flag(const DecodedInsn& d, int slot) { return slot >= 0 && (d.u(static_cast<unsigned>(slot)) & 1) != 0; }

// Fault_IllegalInstruction at the command (ReadTPC()).
ExecOutcome reject(arch::Machine& m) {
  return m.set_fault(arch::FaultCode::Fault_IllegalInstruction, m.state.pc);
}

// ScalarSourceSelectorLegal for a command's Reg5 source field.
bool source_available(const arch::State& st, const DecodedInsn& d, int slot) {
  return st.reg5_source_available(d.reg(static_cast<unsigned>(slot)));
}

Word read(const arch::State& st, const DecodedInsn& d, int slot) { return st.read_reg5(d.reg(static_cast<unsigned>(slot))); }

void record_last_queue(arch::GqmState& g, Word left, Word right, unsigned flags) {
  g.last_queue_left = left;
  g.last_queue_right = right;
  g.last_queue_flags = static_cast<std::uint8_t>(flags);
}

// ExecuteQueueManagerMove (HL.QMT[.i .e .s .r]): initialize (i, capacity
// from SrcR[9:0]) or query, then on success the event and the suspend or
// restore control.  s with r is illegal; SrcR is read only with i.
ExecOutcome execute_queue_move(arch::Machine& m, const DecodedInsn& d) {
  static const QueueFields f = queue_fields(M::HL_QMT);
  arch::State& st = m.state;
  const bool initialize = flag(d, f.i), notify_event = flag(d, f.e), suspend = flag(d, f.s), restore = flag(d, f.r);
  if (suspend && restore) return reject(m);
  if (!source_available(st, d, f.src_l) || (initialize && !source_available(st, d, f.src_r))) return reject(m);
  const Word address = read(st, d, f.src_l);
  const Word capacity_source = initialize ? read(st, d, f.src_r) : 0;
  arch::GqmState& g = st.gqm;
  Word outcome = gqm::result(0, gqm::Status::Retry);
  bool succeeded = false;
  if (initialize) {
    const auto capacity = static_cast<unsigned>(capacity_source & 0x3FF);
    gqm::initialize_queue(g, address, capacity);
    outcome = gqm::result(capacity * 8, gqm::Status::Done);  // bytes of 64-bit entries
    succeeded = true;
  } else if (const arch::GqmQueue* q = gqm::find_queue(g, address); q != nullptr && !q->corrupt) {
    outcome = gqm::result(gqm::remaining(g, address), gqm::Status::Done);
    succeeded = true;
  }
  if (succeeded) {
    if (notify_event) gqm::broadcast_event(g, address);
    if (suspend || restore) gqm::set_suspended(g, address, suspend);
  }
  record_last_queue(g, address, capacity_source,
                    (unsigned{initialize} << 3) | (unsigned{notify_event} << 2) | (unsigned{suspend} << 1) | restore);
  st.write_reg5(d.reg(static_cast<unsigned>(f.reg_dst)), outcome);
  return ExecOutcome::Next;
}

// ExecuteQueueManagerPush (HL.QPUSH[.h .e .r]): SrcL names the queue, SrcR
// is the entry; the GQMResult goes to RegDst.
ExecOutcome execute_queue_push(arch::Machine& m, const DecodedInsn& d) {
  static const QueueFields f = queue_fields(M::HL_QPUSH);
  arch::State& st = m.state;
  if (!source_available(st, d, f.src_l) || !source_available(st, d, f.src_r)) return reject(m);
  const bool at_head = flag(d, f.h), notify_event = flag(d, f.e), relaxed = flag(d, f.r);
  const Word address = read(st, d, f.src_l);
  const Word entry = read(st, d, f.src_r);
  const Word outcome = gqm::push_entry(st.gqm, address, entry, at_head, relaxed, notify_event);
  record_last_queue(st.gqm, address, entry, (unsigned{at_head} << 3) | (unsigned{notify_event} << 2) | relaxed);
  st.write_reg5(d.reg(static_cast<unsigned>(f.reg_dst)), outcome);
  return ExecOutcome::Next;
}

// ExecuteQueueManagerPop (HL.QPOP[.e .r]): the data goes to RegDst0 before
// the GQMResult goes to RegDst1.
ExecOutcome execute_queue_pop(arch::Machine& m, const DecodedInsn& d) {
  static const QueueFields f = queue_fields(M::HL_QPOP);
  arch::State& st = m.state;
  if (!source_available(st, d, f.src_l)) return reject(m);
  const bool notify_event = flag(d, f.e), relaxed = flag(d, f.r);
  const Word address = read(st, d, f.src_l);
  const gqm::PopResult response = gqm::pop_entry(st.gqm, address, relaxed, notify_event);
  record_last_queue(st.gqm, address, 0, (unsigned{notify_event} << 1) | relaxed);
  st.write_reg5(d.reg(static_cast<unsigned>(f.reg_dst)), response.data);
  st.write_reg5(d.reg(static_cast<unsigned>(f.reg_dst1)), response.result);
  return ExecOutcome::Next;
}

constexpr HandlerEntry kGqmHandlers[] = {
    {M::HL_QMT, &execute_queue_move},
    {M::HL_QPUSH, &execute_queue_push},
    {M::HL_QPOP, &execute_queue_pop},
};

}  // namespace

std::span<const HandlerEntry> gqm_handlers() { return kGqmHandlers; }

}  // namespace pto::scalar
