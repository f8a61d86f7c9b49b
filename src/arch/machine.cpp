#include "arch/machine.hpp"

#include <algorithm>
#include <cassert>
#include <stdexcept>

#include <fmt/format.h>

namespace pto::arch {

Word normalize_memory_access_value(Word v, unsigned size_bytes) {
  return size_bytes >= 8 ? v : v & ((Word{1} << (8 * size_bytes)) - 1);
}

namespace {

// TrapTargetForFault (asl/arch/system-registers/access-control.asl).
unsigned trap_target_for_fault(unsigned source) { return source == 0 ? 0 : 1; }

// MemoryEventIsWrite (asl/arch/memory-model/memory-events.asl).
bool is_write_event(const MemoryEvent& e) {
  return e.kind == MemoryEventKind::InitialWrite || e.kind == MemoryEventKind::Store ||
         (e.kind == MemoryEventKind::Atomic && e.write_performed);
}

// NextMemoryCoherenceRank (asl/arch/memory-model/atomicity.asl), clamped to
// the last rank the bounded log can hold.
std::uint8_t next_coherence_rank(const State& s, Word address, unsigned size) {
  unsigned rank = 1;
  for (unsigned i = 0; i < s.memory_event_count; ++i) {
    const MemoryEvent& w = s.memory_events[i];
    if (is_write_event(w) && w.address == address && w.size_bytes == size && w.coherence_rank >= rank) {
      rank = w.coherence_rank + 1u;
    }
  }
  return static_cast<std::uint8_t>(std::min<unsigned>(rank, kMemoryEvents - 1));
}

// ResolveCapturedReadFrom for the event about to be appended: the latest
// earlier write of the same location and value (0 when there is none).
std::uint8_t captured_read_from(const State& s, Word address, unsigned size, Word read_value) {
  std::uint8_t source = 0;
  for (unsigned i = 0; i < s.memory_event_count; ++i) {
    const MemoryEvent& w = s.memory_events[i];
    if (is_write_event(w) && w.address == address && w.size_bytes == size && w.write_value == read_value) {
      source = static_cast<std::uint8_t>(i);
    }
  }
  return source;
}

}  // namespace

void MachineConfig::set_tile_elements(std::uint64_t elements) {
  if (elements < kModelTileElementsMin || elements > kModelTileElementsMax) {
    throw std::invalid_argument(fmt::format("tile elements {} is outside the PTO_MODEL_TILE_ELEMENTS range {}..{}",
                                            elements, kModelTileElementsMin, kModelTileElementsMax));
  }
  tile_elements = static_cast<std::uint32_t>(elements);
}

Machine::Machine(const MachineConfig& config) : memory(config.memory), config_(config) { reset(); }

void Machine::reset() {
  state = State{};
  // ResetProfileState: interrupts (external, timer) enabled in every ring bank.
  for (unsigned ring = 0; ring < kAcrCount; ++ring) state.banked_reg(ring, kInterruptEnableLow) = 3;
  memory.clear();
  for (auto& e : extensions) e->reset();
  update_fast_access();
}

void Machine::set_current_acr(unsigned ring) {
  state.current_acr = static_cast<std::uint8_t>(ring);
  state.sysregs.core_state = (state.sysregs.core_state & ~kCoreStateAcrMask) | ring;
}

Word Machine::trap_vector_entry(unsigned ring, Word fault_address) const {
  const Word base = state.banked_reg(ring, kEvbaseLow);
  return base == 0 ? fault_address : base;
}

void Machine::save_trap_context(unsigned target, unsigned source) {
  TrapContext& c = state.trap_contexts[target];
  c.valid = true;
  c.source_acr = static_cast<std::uint8_t>(source);
  c.tpc = state.pc;
  c.bpc = state.bpc;
  c.core_state = state.sysregs.core_state;
  c.commit_argument = state.commit_argument;
  c.return_address = state.return_address;
  c.block = state.block;
  c.t_queue = state.t_queue;
  c.u_queue = state.u_queue;
  c.predicates = state.predicates;
  write_visible_trap_context(target, source);
}

// The software-visible half of SaveTrapContext (asl/arch/profile/
// reference-profile.asl): ECSTATE and the EBARG words of the target ring,
// which a handler may read and rewrite before ACRE recovers from them.
void Machine::write_visible_trap_context(unsigned target, unsigned source) {
  const BlockState& b = state.block;
  const Word ring = source & kCoreStateAcrMask;
  state.banked_reg(target, kEcstateLow) =
      (state.sysregs.core_state & ~Word{0x1F}) | ring | Word{b.bundle_body_active} << 4;
  state.banked_reg(target, kEbargControlLow) =
      ring | Word{1} << 4 | Word{b.bundle_active} << 5 | Word{b.bundle_body_active} << 6 |
      Word{bundle_kind_code(b.barg.block_type)} << 7 | Word{bundle_transfer_code(b.barg.transfer_type)} << 11 |
      Word{b.barg.taken} << 14;
  state.banked_reg(target, kEbargBpcLow) = state.bpc;
  state.banked_reg(target, kEbargBpcnLow) = b.barg.bpcn;
  state.banked_reg(target, kEbargTpcLow) = state.pc;
  state.banked_reg(target, kEbargReturnAddressLow) = state.return_address;
  for (unsigned i = 0; i < kTemporaryQueueDepth; ++i) {
    state.banked_reg(target, kEbargTQueueLow + i) = state.t_queue.value[i];
    state.banked_reg(target, kEbargUQueueLow + i) = state.u_queue.value[i];
  }
  state.banked_reg(target, kEbargLoopBoundLow) = 0;
  state.banked_reg(target, kEbargLoopCountLow) = 0;
}

ExecOutcome Machine::set_fault(FaultCode code, Word address, std::uint32_t cause) {
  assert(code != FaultCode::Fault_None);  // SetFaultWithCause(Fault_None) is never raised
  const unsigned source = state.current_acr;
  const unsigned ring = trap_target_for_fault(source);
  save_trap_context(ring, source);
  state.last_fault = code;
  state.fault_address = address;
  TrapStatus& t = state.trap_status[ring];
  t.asynchronous = false;
  t.argument_valid = true;
  t.cause = cause & 0xFFFFFFu;
  t.number = trap_number(code);
  t.argument0 = address;
  set_current_acr(ring);
  state.pc = trap_vector_entry(ring, address);
  return fault_outcome(code);
}

void Machine::clear_fault() {
  state.last_fault = FaultCode::Fault_None;
  state.fault_address = 0;
  state.trap_status[state.current_acr] = TrapStatus{};
}

namespace {
// PTOv0EBARGControlLegal (asl/block/model/schema/profile-encoding.asl).
bool ebarg_control_legal(Word control) {
  const auto kind = static_cast<unsigned>((control >> 7) & 0xF);
  return (control >> 15) == 0 && (kind <= 2 || (kind >= 5 && kind <= 8)) && ((control >> 11) & 7) <= 6 &&
         ((control >> 6 & 1) == 0 || (control >> 5 & 1) == 1);
}
}  // namespace

// TrapContextRecoverable (asl/arch/profile/trap-context-recovery.asl): the
// saved record must be valid and the visible EBARG words, as software left
// them, consistent.
bool Machine::trap_context_recoverable(unsigned ring) const {
  const Word control = state.banked_reg(ring, kEbargControlLow);
  const Word ecstate = state.banked_reg(ring, kEcstateLow);
  return state.trap_contexts[ring].valid && (control >> 4 & 1) == 1 && ebarg_control_legal(control) &&
         (control & kCoreStateAcrMask) == (ecstate & kCoreStateAcrMask) &&
         (state.banked_reg(ring, kEbargBpcLow) & 1) == 0 && (state.banked_reg(ring, kEbargTpcLow) & 1) == 0;
}

// RecoverTrapContext (asl/arch/profile/trap-context-recovery.asl): PCs,
// CORE_STATE, the ring, the BARG fields, the return address and the queue
// words come from the visible registers; the rest from the saved record.
bool Machine::recover_trap_context(unsigned ring) {
  if (!trap_context_recoverable(ring)) return false;
  TrapContext& c = state.trap_contexts[ring];
  const Word control = state.banked_reg(ring, kEbargControlLow);
  const Word ecstate = state.banked_reg(ring, kEcstateLow);
  state.pc = state.banked_reg(ring, kEbargTpcLow);
  state.bpc = state.banked_reg(ring, kEbargBpcLow);
  state.sysregs.core_state = ecstate;
  state.commit_argument = c.commit_argument;
  state.block = c.block;
  state.block.bundle_active = (control >> 5 & 1) != 0;
  state.block.bundle_body_active = (control >> 6 & 1) != 0;
  state.block.barg.block_type = bundle_kind_of(static_cast<unsigned>(control >> 7 & 0xF));
  state.block.barg.transfer_type = bundle_transfer_of(static_cast<unsigned>(control >> 11 & 7));
  state.block.barg.taken = (control >> 14 & 1) != 0;
  state.block.barg.bpcn = state.banked_reg(ring, kEbargBpcnLow);
  state.return_address = state.banked_reg(ring, kEbargReturnAddressLow);
  state.t_queue = c.t_queue;
  state.u_queue = c.u_queue;
  for (unsigned i = 0; i < kTemporaryQueueDepth; ++i) {
    state.t_queue.value[i] = state.banked_reg(ring, kEbargTQueueLow + i);
    state.u_queue.value[i] = state.banked_reg(ring, kEbargUQueueLow + i);
  }
  state.predicates = c.predicates;
  state.current_acr = static_cast<std::uint8_t>(ecstate & kCoreStateAcrMask);
  state.banked_reg(ring, kEbargControlLow) = control & ~(Word{1} << 4);
  c.valid = false;
  update_fast_access();
  return true;
}

Word Machine::pack_trap_status(unsigned ring) const {
  const TrapStatus& t = state.trap_status[ring];
  return (Word{t.asynchronous} << 63) | (Word{t.argument_valid} << 62) | (Word{t.cause} << 24) | t.number;
}

void Machine::update_fast_access() {
  const MemoryConfig& mc = memory.config();
  const Word limit = mc.user_limit != 0 ? std::min(mc.user_limit, mc.address_limit) : mc.address_limit;
  // An aligned access of at most 8 bytes starting below limit - 7 ends at or below limit.
  const bool fast = access_log_ == nullptr && !state.memory_event_capture && limit >= 8;
  fast_end_ = fast ? limit - 7 : 0;
  memory.set_fast_path(access_log_ == nullptr);
}

void Machine::set_access_log(std::vector<MemoryAccess>* log) {
  access_log_ = log;
  update_fast_access();
}

void Machine::start_memory_event_capture(unsigned agent) {
  state.memory_event_count = 0;  // ResetMemoryExecution
  state.current_pe = static_cast<std::uint8_t>(agent);
  state.memory_event_capture = true;
  update_fast_access();
}

void Machine::stop_memory_event_capture() {
  state.memory_event_capture = false;
  update_fast_access();
}

// The event log is bounded verification infrastructure (PTO_MODEL_MEMORY_EVENTS);
// capture stops when it is full (docs/semantics-notes.md "Memory event capture").
bool Machine::capture_slot_available() {
  if (!state.memory_event_capture) return false;
  if (state.memory_event_count < kMemoryEvents) return true;
  state.memory_event_capture = false;
  update_fast_access();
  return false;
}

void Machine::record_event(MemoryEventKind kind, Word address, unsigned size, Word read_value, Word write_value,
                           MemoryOrder order) {
  if (!capture_slot_available()) return;
  MemoryEvent e;
  e.kind = kind;
  e.agent = state.current_pe;
  e.address = address;
  e.size_bytes = static_cast<std::uint8_t>(size);
  e.order = order;
  if (kind == MemoryEventKind::Load) {
    e.read_value = normalize_memory_access_value(read_value, size);
    e.read_from = captured_read_from(state, address, size, e.read_value);
  } else {
    e.write_value = normalize_memory_access_value(write_value, size);
    e.write_performed = true;
    e.coherence_rank = next_coherence_rank(state, address, size);
  }
  state.memory_events[state.memory_event_count++] = e;
}

void Machine::record_atomic(Word address, unsigned size, Word read_value, Word write_value, MemoryOrder order,
                            bool write_performed) {
  if (access_log_) {
    access_log_->push_back(
        {address, static_cast<std::uint8_t>(size), false, normalize_memory_access_value(read_value, size)});
    if (write_performed) {
      access_log_->push_back(
          {address, static_cast<std::uint8_t>(size), true, normalize_memory_access_value(write_value, size)});
    }
  }
  if (!capture_slot_available()) return;
  // AddAtomicOutcomeEvent: a rank only when the write is performed.
  MemoryEvent e;
  e.kind = MemoryEventKind::Atomic;
  e.agent = state.current_pe;
  e.address = address;
  e.size_bytes = static_cast<std::uint8_t>(size);
  e.read_value = normalize_memory_access_value(read_value, size);
  e.write_value = normalize_memory_access_value(write_value, size);
  e.write_performed = write_performed;
  e.order = order;
  e.coherence_rank = write_performed ? next_coherence_rank(state, address, size) : 0;
  e.read_from = captured_read_from(state, address, size, e.read_value);
  state.memory_events[state.memory_event_count++] = e;
}

void Machine::record_fence(std::uint8_t predecessor, std::uint8_t successor) {
  if (!capture_slot_available()) return;
  // AddDataFenceEvent: address 0, one byte, acquire-release.
  MemoryEvent e;
  e.kind = MemoryEventKind::Fence;
  e.agent = state.current_pe;
  e.order = MemoryOrder::AcquireRelease;
  e.fence_predecessor = predecessor;
  e.fence_successor = successor;
  state.memory_events[state.memory_event_count++] = e;
}

void Machine::clear_overlapping_reservation(Word address, Word size) noexcept {
  if (!state.reservation_valid || size == 0) return;
  const Word granule = state.reservation_address & ~Word{kReservationGranuleBytes - 1};
  // Inclusive ends: nothing wraps past the top of the address space.
  if (address <= granule + (kReservationGranuleBytes - 1) && granule <= address + (size - 1))
    state.reservation_valid = false;
}

Word Machine::read_probed(Word address, unsigned size, MemoryOrder order) {
  const Word v = memory.read(address, size);
  if (access_log_) access_log_->push_back({address, static_cast<std::uint8_t>(size), false, v});
  record_event(MemoryEventKind::Load, address, size, v, 0, order);
  return v;
}

void Machine::write_probed(Word address, unsigned size, Word value, MemoryOrder order) {
  memory.write(address, size, value);
  clear_overlapping_reservation(address, size);
  if (access_log_) {
    access_log_->push_back({address, static_cast<std::uint8_t>(size), true, normalize_memory_access_value(value, size)});
  }
  record_event(MemoryEventKind::Store, address, size, 0, value, order);
}

bool Machine::load_slow(Word address, unsigned size, Word& out, MemoryOrder order) {
  const FaultCode f = probe_data(address, size, size);
  if (f != FaultCode::Fault_None) {
    set_fault(f, address);
    return false;
  }
  out = read_probed(address, size, order);
  return true;
}

bool Machine::store_slow(Word address, unsigned size, Word value, MemoryOrder order) {
  const FaultCode f = probe_data(address, size, size);
  if (f != FaultCode::Fault_None) {
    set_fault(f, address);
    return false;
  }
  write_probed(address, size, value, order);
  return true;
}

}  // namespace pto::arch
