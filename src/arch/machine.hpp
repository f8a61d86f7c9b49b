// One PTO core: architectural state, guest memory and the architectural
// helpers every instruction handler uses (fault raising, data access with
// probes, trap-context recovery, reset).  The run loop lives in
// src/runner/executor.hpp; the handler contract in src/scalar/execute.hpp.
#pragma once

#include <cassert>
#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "arch/memory.hpp"
#include "arch/outcome.hpp"
#include "arch/state.hpp"

namespace pto::arch {

// NormalizeMemoryAccessValue (asl/scalar/model/agu/memory.asl): the low
// size_bytes of a value, as memory events record read and write values.
Word normalize_memory_access_value(Word v, unsigned size_bytes);

// The numeric profile behind the FSU and tile arithmetic hooks
// (src/numerics/profile.hpp): the ASL reference placeholder the spec's test
// points observe, or IEEE 754 results (docs/numerics.md).
enum class NumericProfileKind : std::uint8_t { Reference, Ieee };

// config PTO_MODEL_TILE_ELEMENTS : integer {1..32768} = 32768
// (asl/arch/features/tile-allocation.asl): the element slots of one tile
// payload in the ASL model.  The default is the maximum.
inline constexpr std::uint32_t kModelTileElementsMin = 1;
inline constexpr std::uint32_t kModelTileElementsMax = 32768;
inline constexpr std::uint32_t kModelTileElementsDefault = kModelTileElementsMax;

struct MachineConfig {
  MemoryConfig memory;
  NumericProfileKind numeric_profile = NumericProfileKind::Ieee;
  // PTO_MODEL_TILE_ELEMENTS for this run (the reference runner's
  // --tile-elements).  It bounds the footprint and shape legality checks the
  // ASL ties to it (TPREFETCH/MGATHER dimensions, CUBE storage, matrix
  // shapes) and the tile payload the model can represent: an operation whose
  // tile needs more element slots stops the run as the ASL's assertion does
  // (docs/semantics-notes.md, "PTO_MODEL_TILE_ELEMENTS").  Set it through
  // set_tile_elements, which validates the range.
  std::uint32_t tile_elements = kModelTileElementsDefault;

  // Validates 1..32768 (kModelTileElementsMin..Max); throws
  // std::invalid_argument naming PTO_MODEL_TILE_ELEMENTS and the range
  // otherwise, leaving the configuration unchanged.  Takes 64 bits so a
  // parsed command-line value is checked before any narrowing.
  void set_tile_elements(std::uint64_t elements);

  // TrapVectorEntry with EVBASE = 0 sends TPC to the fault address in both
  // configurations (asl/arch/system-registers/access-control.asl).
  static MachineConfig reference(Word model_bytes = 4096) {
    MachineConfig c;
    c.memory = MemoryConfig::reference(model_bytes);
    c.numeric_profile = NumericProfileKind::Reference;
    return c;
  }
  static MachineConfig real() { return {}; }
};

// A data access observed by a tracer (recorded only while an observer is
// attached; see Machine::set_access_log).
struct MemoryAccess {
  Word address;
  std::uint8_t size;
  bool write;
  Word value;
};

// State owned by other engines (tiles, GQM) that must follow reset.
struct MachineExtension {
  virtual ~MachineExtension() = default;
  virtual void reset() = 0;
};

class Machine {
 public:
  explicit Machine(const MachineConfig& config = MachineConfig::real());
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  State state;
  Memory memory;

  const MachineConfig& config() const { return config_; }

  // ResetProfileState (asl/arch/profile/reset.asl): every register to its
  // reset value, memory zeroed, no block active, ACR0, no fault.
  void reset();

  // ---- faults and traps (asl/arch/memory-model/fault-precision.asl) ----
  // SetFaultWithCause: save the trap context in the target ring (ACR0 -> 0,
  // others -> 1), record _LastFault/_FaultAddress and the trap status, switch
  // ACR, TPC = EVBASE of the target ring or the fault address when it is 0.
  // Returns the outcome carrying `code`, so a handler ends with
  // `return m.set_fault(...)`; `code` is a fault (not Fault_None).
  ExecOutcome set_fault(FaultCode code, Word address, std::uint32_t cause = 0);
  // The outcome of the fault this attempt already raised (last_fault), for a
  // handler whose callee (load, store, a probe helper) raised it.
  ExecOutcome raised() const {
    assert(state.last_fault != FaultCode::Fault_None);
    return fault_outcome(state.last_fault);
  }
  // ClearFault: the current ring's trap status and the fault record.
  void clear_fault();
  // RecoverTrapContext (asl/arch/profile/trap-context-recovery.asl); false
  // when trap_context_recoverable(ring) is.
  bool recover_trap_context(unsigned ring);
  // SetCurrentACR: also mirrors the ring into CORE_STATE[3:0].
  void set_current_acr(unsigned ring);
  // SaveTrapContext (asl/arch/profile/reference-profile.asl): the saved
  // record and the target ring's visible ECSTATE/EBARG words; also used by
  // trap entries other than SetFaultWithCause (RaiseServiceRequest).
  void save_trap_context(unsigned target, unsigned source);
  // TrapContextRecoverable (asl/arch/profile/trap-context-recovery.asl):
  // a valid record whose visible EBARG words are consistent.
  bool trap_context_recoverable(unsigned ring) const;
  Word trap_vector_entry(unsigned ring, Word fault_address) const;
  Word pack_trap_status(unsigned ring) const;  // PackTrapStatus

  // ---- data access (asl/scalar/model/agu/memory.asl) ----
  // ProbeDataAccess for the current ACR: alignment before page/permission.
  FaultCode probe_data(Word address, Word size, unsigned alignment) const {
    return memory.probe(address, size, alignment, state.current_acr);
  }
  // LoadWithOrder: natural alignment, little-endian, zero-extended.  On a
  // fault raises it (address = the data address) and returns false.
  bool load(Word address, unsigned size, Word& out, MemoryOrder order = MemoryOrder::Relaxed) {
    return load_fast(address, size, out) || load_slow(address, size, out, order);
  }
  // load's fast path alone: an aligned access below fast_end_ (nothing there
  // can fault or is being recorded).  False, with no effect, otherwise.
  bool load_fast(Word address, unsigned size, Word& out) const {
    if ((address & (size - 1)) == 0 && address < fast_end_) {
      out = memory.read_aligned(address, size);
      return true;
    }
    return false;
  }
  // Where the fast-path bound lives, for translated code (runner/translator).
  const Word* fast_end_location() const { return &fast_end_; }
  // StoreWithOrder: also clears an overlapping LR/SC reservation.
  bool store(Word address, unsigned size, Word value, MemoryOrder order = MemoryOrder::Relaxed) {
    if ((address & (size - 1)) == 0 && address < fast_end_ && !state.reservation_valid) {
      memory.write(address, size, value);
      return true;
    }
    return store_slow(address, size, value, order);
  }
  // store's fast path on a write-cached page alone (Memory::write_cached: no
  // allocation, no decoded code to invalidate).  False, with no effect,
  // otherwise.
  bool store_fast(Word address, unsigned size, Word value) {
    return (address & (size - 1)) == 0 && address < fast_end_ && !state.reservation_valid &&
           memory.write_cached(address, size, value);
  }
  // StoreTranslated's reservation rule: a store of `size` bytes at `address`
  // overlapping the LR/SC reservation granule clears the reservation.
  void clear_overlapping_reservation(Word address, Word size) noexcept;
  // Raw access after a successful probe (records trace/events like load/store).
  Word read_probed(Word address, unsigned size, MemoryOrder order = MemoryOrder::Relaxed);
  void write_probed(Word address, unsigned size, Word value, MemoryOrder order = MemoryOrder::Relaxed);

  // Appends every data access to `log` (nullptr stops recording).  Recording
  // disables the fast paths.
  void set_access_log(std::vector<MemoryAccess>* log);

  // Memory event capture (StartMemoryEventCapture / StopMemoryEventCapture).
  void start_memory_event_capture(unsigned agent);
  void stop_memory_event_capture();
  // RecordAtomicEvent (asl/arch/memory-model/atomicity.asl) for an atomic
  // access already performed on probed memory: traces the read (and the
  // write when performed) and captures one MemoryEvent_Atomic.
  void record_atomic(Word address, unsigned size, Word read_value, Word write_value, MemoryOrder order,
                     bool write_performed);
  // RecordDataFenceEvent: one MemoryEvent_Fence while capture is on.
  void record_fence(std::uint8_t predecessor, std::uint8_t successor);

  // Engines with their own state (tiles, GQM) attach here to follow reset.
  std::vector<std::unique_ptr<MachineExtension>> extensions;

 private:
  void write_visible_trap_context(unsigned target, unsigned source);
  bool load_slow(Word address, unsigned size, Word& out, MemoryOrder order);
  bool store_slow(Word address, unsigned size, Word value, MemoryOrder order);
  void record_event(MemoryEventKind kind, Word address, unsigned size, Word read_value, Word write_value,
                    MemoryOrder order);
  void update_fast_access();
  bool capture_slot_available();

  MachineConfig config_;
  std::vector<MemoryAccess>* access_log_ = nullptr;
  // Fast loads/stores skip the probe for naturally aligned accesses (size
  // <= 8) starting below fast_end_: nothing there can fault for any ACR.  0
  // (no fast access) while accesses are recorded or event capture is on.
  Word fast_end_ = 0;
};

}  // namespace pto::arch
