// AMO family handlers: LR/SC, atomic read-modify-write, CAS and DMA
// (asl/scalar/model/dispatch/amo.asl, asl/scalar/model/amo/semantics.asl,
// asl/arch/memory-model/atomicity.asl).  Every access is probed (alignment
// before page) before any memory, reservation or register effect; the only
// effect that precedes a fault is the one the ASL orders first: a matching
// SC clears the reservation before its store probe (StoreConditional).
#include <algorithm>
#include <array>

#include "scalar/amo_semantics.hpp"
#include "scalar/handler_support.hpp"

namespace pto::scalar {
namespace {

using M = isa::Mnemonic;
using arch::MemoryOrder;

// ScalarDecodedMemoryOrder: forms without aq (or rl) read it as 0.
template <M Mn>
MemoryOrder decoded_memory_order(const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  bool acquire = false;
  bool release = false;
  if constexpr (s.aq >= 0) acquire = (d.u(s.aq) & 1) != 0;
  if constexpr (s.rl >= 0) release = (d.u(s.rl) & 1) != 0;
  if (acquire && release) return MemoryOrder::AcquireRelease;
  if (acquire) return MemoryOrder::Acquire;
  return release ? MemoryOrder::Release : MemoryOrder::Relaxed;
}

// Probe for an access that reads and writes the same location (the read and
// write probes of AtomicReadModifyWrite/CompareAndSwap check the same range
// with the same alignment; translation is the identity).
bool probe_or_fault(arch::Machine& m, Word address, Word size, unsigned alignment) {
  const arch::FaultCode f = m.probe_data(address, size, alignment);
  if (f == arch::FaultCode::Fault_None) return true;
  m.set_fault(f, address);
  return false;
}

// StoreTranslated without a store event (the atomic records one
// MemoryEvent_Atomic through Machine::record_atomic): raw write plus the
// reservation rule
// (a store overlapping the reservation granule clears it).
void store_translated(arch::Machine& m, Word address, unsigned size, Word value) {
  m.memory.write(address, size, value);
  arch::State& st = m.state;
  const Word granule = st.reservation_address & ~Word{arch::kReservationGranuleBytes - 1};
  if (st.reservation_valid && address < granule + arch::kReservationGranuleBytes && granule < address + size) {
    st.reservation_valid = false;
  }
}

// ExecuteDecodedLoadReserved: a faulting LR keeps any older reservation.
template <M Mn, unsigned Size>
ExecOutcome execute_load_reserved(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word address = read_source<s.src_l>(st, d);  // AtomicAddress: identity
  Word value;
  if (!m.load(address, Size, value, decoded_memory_order<Mn>(d))) return m.raised();
  st.reservation_valid = true;
  st.reservation_address = address;
  st.reservation_size = Size;
  write_destination<s.reg_dst>(st, d, normalize_atomic_return(value, Size));
  return ExecOutcome::Next;
}

// ExecuteDecodedStoreConditional: status 0 on success, 1 on a reservation miss
// (probe-free).  Every attempt clears the reservation, even one that faults.
template <M Mn, unsigned Size>
ExecOutcome execute_store_conditional(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word address = read_source<s.src_r>(st, d);
  const Word value = read_source<s.src_l>(st, d);
  constexpr Word kGranuleMask = ~Word{arch::kReservationGranuleBytes - 1};
  const bool succeeds = st.reservation_valid && (st.reservation_address & kGranuleMask) == (address & kGranuleMask);
  st.reservation_valid = false;
  if (succeeds) {
    if (!probe_or_fault(m, address, Size, Size)) return m.raised();
    m.write_probed(address, Size, value, decoded_memory_order<Mn>(d));
  }
  write_destination<s.reg_dst>(st, d, succeeds ? 0 : 1);
  return ExecOutcome::Next;
}

// ExecuteDecodedAtomicReadModifyWrite: LD.*/LW.*/SWAP* return the old value,
// SD.*/SW.* (no RegDst) do not.
template <M Mn, AtomicOp Op, unsigned Size>
ExecOutcome execute_atomic_rmw(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word address = read_source<s.src_l>(st, d);
  const Word operand = read_source<s.src_r>(st, d);
  if (!probe_or_fault(m, address, Size, Size)) return m.raised();
  const Word old_value = m.memory.read(address, Size);
  const Word new_value = atomic_value_sized(Op, old_value, operand, Size);
  store_translated(m, address, Size, new_value);
  m.record_atomic(address, Size, old_value, new_value, decoded_memory_order<Mn>(d), true);
  if constexpr (s.reg_dst >= 0) write_destination<s.reg_dst>(st, d, normalize_atomic_return(old_value, Size));
  return ExecOutcome::Next;
}

// ExecuteDecodedCompareAndSwap: stores SrcD when memory equals SrcR (both
// size-normalized); always returns the old value.
template <M Mn, unsigned Size>
ExecOutcome execute_compare_and_swap(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word address = read_source<s.src_l>(st, d);
  const Word expected = read_source<s.src_r>(st, d);
  const Word desired = read_source<s.src_d>(st, d);
  if (!probe_or_fault(m, address, Size, Size)) return m.raised();
  const Word old_value = m.memory.read(address, Size);
  const bool succeeds = old_value == zero_extend(expected, 8 * Size);
  if (succeeds) store_translated(m, address, Size, desired);
  m.record_atomic(address, Size, old_value, desired, decoded_memory_order<Mn>(d), succeeds);
  write_destination<s.reg_dst>(st, d, normalize_atomic_return(old_value, Size));
  return ExecOutcome::Next;
}

// ExecuteScalarDMACopy64: both 64-byte ranges probed (byte alignment) before
// any access; the source is read completely before the destination is
// written (memmove semantics); events are eight 8-byte loads then stores.
ExecOutcome execute_dma(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(M::DMA);
  constexpr unsigned kBytes = 64;
  constexpr unsigned kChunks = kBytes / 8;
  const Word source = read_source<s.src_l>(m.state, d);
  const Word destination = read_source<s.src_r>(m.state, d);
  if (!probe_or_fault(m, source, kBytes, 1) || !probe_or_fault(m, destination, kBytes, 1)) {
    return m.raised();
  }
  std::array<Word, kChunks> snapshot{};
  for (unsigned i = 0; i < kChunks; ++i) snapshot[i] = m.read_probed(source + 8 * i, 8);
  for (unsigned i = 0; i < kChunks; ++i) m.write_probed(destination + 8 * i, 8, snapshot[i]);
  return ExecOutcome::Next;
}

template <M Mn, AtomicOp Op, unsigned Size>
constexpr HandlerEntry rmw = {Mn, &execute_atomic_rmw<Mn, Op, Size>};
template <M Mn, unsigned Size>
constexpr HandlerEntry lr = {Mn, &execute_load_reserved<Mn, Size>};
template <M Mn, unsigned Size>
constexpr HandlerEntry sc = {Mn, &execute_store_conditional<Mn, Size>};
template <M Mn, unsigned Size>
constexpr HandlerEntry cas = {Mn, &execute_compare_and_swap<Mn, Size>};

using A = AtomicOp;

constexpr HandlerEntry kAmoHandlers[] = {
    {M::DMA, &execute_dma},
    lr<M::LR_B, 1>, lr<M::LR_H, 2>, lr<M::LR_W, 4>, lr<M::LR_D, 8>,
    sc<M::SC_B, 1>, sc<M::SC_H, 2>, sc<M::SC_W, 4>, sc<M::SC_D, 8>,
    cas<M::CASB, 1>, cas<M::CASH, 2>, cas<M::CASW, 4>, cas<M::CASD, 8>,
    cas<M::HL_CASB, 1>, cas<M::HL_CASH, 2>, cas<M::HL_CASW, 4>, cas<M::HL_CASD, 8>,
    rmw<M::SWAPB, A::SWAP, 1>, rmw<M::SWAPH, A::SWAP, 2>, rmw<M::SWAPW, A::SWAP, 4>, rmw<M::SWAPD, A::SWAP, 8>,
    rmw<M::LW_ADD, A::ADD, 4>, rmw<M::LW_AND, A::AND, 4>, rmw<M::LW_OR, A::OR, 4>, rmw<M::LW_XOR, A::XOR, 4>,
    rmw<M::LW_SMIN, A::SMIN, 4>, rmw<M::LW_SMAX, A::SMAX, 4>, rmw<M::LW_UMIN, A::UMIN, 4>, rmw<M::LW_UMAX, A::UMAX, 4>,
    rmw<M::LD_ADD, A::ADD, 8>, rmw<M::LD_AND, A::AND, 8>, rmw<M::LD_OR, A::OR, 8>, rmw<M::LD_XOR, A::XOR, 8>,
    rmw<M::LD_SMIN, A::SMIN, 8>, rmw<M::LD_SMAX, A::SMAX, 8>, rmw<M::LD_UMIN, A::UMIN, 8>, rmw<M::LD_UMAX, A::UMAX, 8>,
    rmw<M::SW_ADD, A::ADD, 4>, rmw<M::SW_AND, A::AND, 4>, rmw<M::SW_OR, A::OR, 4>, rmw<M::SW_XOR, A::XOR, 4>,
    rmw<M::SW_SMIN, A::SMIN, 4>, rmw<M::SW_SMAX, A::SMAX, 4>, rmw<M::SW_UMIN, A::UMIN, 4>, rmw<M::SW_UMAX, A::UMAX, 4>,
    rmw<M::SD_ADD, A::ADD, 8>, rmw<M::SD_AND, A::AND, 8>, rmw<M::SD_OR, A::OR, 8>, rmw<M::SD_XOR, A::XOR, 8>,
    rmw<M::SD_SMIN, A::SMIN, 8>, rmw<M::SD_SMAX, A::SMAX, 8>, rmw<M::SD_UMIN, A::UMIN, 8>, rmw<M::SD_UMAX, A::UMAX, 8>,
};

}  // namespace

std::span<const HandlerEntry> amo_handlers() { return kAmoHandlers; }

}  // namespace pto::scalar
