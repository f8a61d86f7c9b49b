// SYS family handlers (asl/scalar/model/dispatch/sys.asl,
// asl/scalar/model/sys/{registers,semantics}.asl): system-register
// get/set/swap, software breakpoints, ASSERT, the data/instruction fences,
// cache/TLB maintenance, the execution-control requests BSE/BWE/BWI/BWT and
// the architecture requests ACRC/ACRE.  The dispatcher applies the SYS-block
// applicability rule (and the SYS-terminal-pending rule) before any of them
// runs.
#include "scalar/system_registers.hpp"

#include <algorithm>
#include <bit>

#include "block/control.hpp"
#include "scalar/handler_support.hpp"

namespace pto::scalar {
namespace {

using M = isa::Mnemonic;
using arch::FaultCode;

constexpr unsigned kBankShift = 12;
constexpr unsigned kLowMask = 0xFFF;

// Context-register low indices with behaviour beyond plain storage.
constexpr unsigned kTrapStatusLow = 0xF02;        // TRAPNO: PackTrapStatus
constexpr unsigned kTrapArgument0Low = 0xF03;     // TRAPARG0
constexpr unsigned kInterruptPendingLow = 0xF08;  // IPENDING
constexpr unsigned kTopInterruptLow = 0xF09;      // TOPEI
constexpr unsigned kEndOfInterruptLow = 0xF0A;    // EOIEI
constexpr unsigned kTimerTimeLow = 0xF20;         // TIMER_TIME
constexpr unsigned kTimerCompareLow = 0xF21;      // TIMER_TIMECMP

unsigned ring_of(SystemRegisterAddress address) { return (address >> kBankShift) & 0xF; }

// ---- interrupts and timer (asl/arch/system-registers/{interrupt,timer}.asl) ----

unsigned timer_interrupt_id(unsigned ring) { return ring == 0 ? 1 : 3; }  // TimerInterruptId

// RefreshTopPendingInterrupt: the lowest pending id, 0 when none is pending.
void refresh_top_pending_interrupt(arch::State& st, unsigned ring) {
  const Word pending = st.banked_reg(ring, kInterruptPendingLow);
  st.banked_reg(ring, kTopInterruptLow) = pending == 0 ? 0 : static_cast<Word>(std::countr_zero(pending));
}

void set_interrupt_pending(arch::State& st, unsigned ring, unsigned id, bool pending) {
  Word& reg = st.banked_reg(ring, kInterruptPendingLow);
  reg = pending ? reg | (Word{1} << id) : reg & ~(Word{1} << id);
  refresh_top_pending_interrupt(st, ring);
}

// RefreshTimerPending: pending while TIMECMP != 0 and cycle >= TIMECMP.
void refresh_timer_pending(arch::State& st, unsigned ring) {
  const Word comparison = st.banked_reg(ring, kTimerCompareLow);
  set_interrupt_pending(st, ring, timer_interrupt_id(ring), comparison != 0 && st.sysregs.cycle >= comparison);
}

// EndOfInterrupt
void end_of_interrupt(arch::State& st, unsigned ring, Word value) {
  if ((value >> 6) == 0) set_interrupt_pending(st, ring, static_cast<unsigned>(value), false);
  st.trap_status[ring].asynchronous = false;
  st.trap_status[ring].argument_valid = false;
}

// UnpackTrapStatus
void unpack_trap_status(arch::State& st, unsigned ring, Word value) {
  arch::TrapStatus& t = st.trap_status[ring];
  t.asynchronous = (value >> 63) != 0;
  t.argument_valid = ((value >> 62) & 1) != 0;
  t.cause = static_cast<std::uint32_t>((value >> 24) & 0xFFFFFF);
  t.number = static_cast<std::uint8_t>(value & 0x3F);
}

// ---- base registers (ReadSystemRegister / WriteSystemRegister) ----

// The storage of a base register, or nullptr for TIME (read through the
// monotonic time source) and unknown addresses.
Word* base_register(arch::BaseSystemRegisters& r, SystemRegisterAddress address) {
  switch (address) {
    case 0x000: return &r.thread_ptr;
    case 0x001: return &r.global_ptr;
    case 0x020: return &r.core_state;
    case 0x021: return &r.core_id;
    case 0x022: return &r.vendor;
    case 0x023: return &r.version;
    case 0x024: return &r.core_feature;
    case 0x025: return &r.core_feature_enable;
    case 0x026: return &r.thread_id;
    case 0x027: return &r.tile_capacity;
    case 0x050: return &r.blocknum;
    case 0x051: return &r.blockid;
    case 0xC00: return &r.cycle;
    default: return nullptr;
  }
}

constexpr SystemRegisterAddress kTimeAddress = 0x010;
constexpr SystemRegisterAddress kCoreStateAddress = 0x020;

// IsBaseSystemRegisterAddress: the catalog's base registers.
bool is_base_address(SystemRegisterAddress address) {
  const auto registers = isa::system_registers();
  return std::any_of(registers.begin(), registers.end(),
                     [address](const isa::SystemRegisterDesc& r) { return r.is_base && r.address == address; });
}

// Raises Fault_IllegalInstruction at the instruction (ReadPC()); returns its outcome.
ExecOutcome illegal_outcome(arch::Machine& m) {
  return m.set_fault(FaultCode::Fault_IllegalInstruction, m.state.pc);
}

// The same for a legality helper: returns false.
bool illegal(arch::Machine& m) {
  illegal_outcome(m);
  return false;
}

// SystemRegisterWritePermitted
bool write_permitted(const arch::Machine& m, SystemRegisterAddress address) {
  const SystemRegisterAccess access = system_register_access_of(address);
  return system_register_access_permitted(address, m.state.current_acr) && access != SystemRegisterAccess::Unknown &&
         access != SystemRegisterAccess::ReadOnly;
}

// SystemRegisterSwapPermitted
bool swap_permitted(const arch::Machine& m, SystemRegisterAddress address) {
  return system_register_access_permitted(address, m.state.current_acr) &&
         system_register_access_of(address) == SystemRegisterAccess::ReadWrite;
}

// ---- handlers ----

// ExecuteSystemRegisterGet (SSRGET, HL.SSRGET: fields RegDst, SSR_ID) and
// ExecuteCompressedSystemRegisterGet (C.SSRGET: field SSRID, result pushed to T).
template <M Mn>
ExecOutcome execute_system_register_get(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  constexpr unsigned kAddressSlot = s.reg_dst >= 0 ? 1 : 0;
  Word value;
  if (!read_system_register(m, static_cast<SystemRegisterAddress>(d.u(kAddressSlot) & 0xFFFFFF), value)) {
    return m.raised();
  }
  if constexpr (s.reg_dst >= 0) {
    write_destination<s.reg_dst>(m.state, d, value);
  } else {
    m.state.t_queue.push(value);
  }
  return ExecOutcome::Next;
}

// ExecuteSystemRegisterSet (SSRSET, HL.SSRSET): fields SSR_ID, SrcL.
template <M Mn>
ExecOutcome execute_system_register_set(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  static_assert(s.src_l == 1, "SSR_ID precedes SrcL");
  const auto address = static_cast<SystemRegisterAddress>(d.u(0) & 0xFFFFFF);
  if (!write_permitted(m, address)) {
    return illegal_outcome(m);
  }
  if (!write_system_register(m, address, read_source<s.src_l>(m.state, d))) return m.raised();
  return ExecOutcome::Next;
}

// ExecuteSystemRegisterSwap (SSRSWAP): fields RegDst, SSR_ID, SrcL.  Both
// permissions and the access class are checked before the read.
ExecOutcome execute_ssrswap(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(M::SSRSWAP);
  const auto address = static_cast<SystemRegisterAddress>(d.u(1) & 0xFFFFFF);
  if (!swap_permitted(m, address)) {
    return illegal_outcome(m);
  }
  const Word value = read_source<s.src_l>(m.state, d);
  Word old_value;
  if (!read_system_register(m, address, old_value)) return m.raised();
  if (!write_system_register(m, address, value)) return m.raised();
  write_destination<s.reg_dst>(m.state, d, old_value);
  return ExecOutcome::Next;
}

// SoftwareBreakpoint: the tag (EBREAK imm4, C.EBREAK imm5; the only field)
// is the cause.
ExecOutcome execute_software_breakpoint(arch::Machine& m, const DecodedInsn& d) {
  return m.set_fault(FaultCode::Fault_SoftwareBreakpoint, m.state.pc, static_cast<std::uint32_t>(d.u(0) & 0x1F));
}

// ArchitectureAssert: Fault_Assert when SrcL is zero.
ExecOutcome execute_assert(arch::Machine& m, const DecodedInsn& d) {
  if (read_source<slots_of(M::ASSERT).src_l>(m.state, d) != 0) return ExecOutcome::Next;
  return m.set_fault(FaultCode::Fault_Assert, m.state.pc);
}

// ---- fences (FenceData, FenceInstruction) ----

// The FENCE.D mask bit that names instruction visibility (MemoryEventClass).
constexpr unsigned kFenceInstructionBit = 0x8;

// FenceData: FENCE.D PRED_IMM, SUCC_IMM.
ExecOutcome execute_fence_data(arch::Machine& m, const DecodedInsn& d) {
  static const int kPredecessor = field_slot(M::FENCE_D, "PRED_IMM");
  static const int kSuccessor = field_slot(M::FENCE_D, "SUCC_IMM");
  fence_data(m, static_cast<std::uint8_t>(d.u(kPredecessor) & 0xF), static_cast<std::uint8_t>(d.u(kSuccessor) & 0xF));
  return ExecOutcome::Next;
}

ExecOutcome execute_fence_instruction(arch::Machine& m, const DecodedInsn&) {
  fence_instruction(m);
  return ExecOutcome::Next;
}

// ---- cache and TLB maintenance (ExecuteMaintenance) ----

using Maintenance = arch::MaintenanceOperation;

constexpr bool is_tlb_maintenance(Maintenance op) {
  return op == Maintenance::TLB_IV || op == Maintenance::TLB_IAV || op == Maintenance::TLB_IA ||
         op == Maintenance::TLB_IALL;
}

// The epoch a successful operation advances (one per family).
std::uint64_t& maintenance_epoch(arch::SystemBookkeeping& b, Maintenance op) {
  if (is_tlb_maintenance(op)) return b.tlb_epoch;
  if (op == Maintenance::IC_IALL || op == Maintenance::IC_IVA) return b.instruction_cache_epoch;
  if (op == Maintenance::BC_IALL || op == Maintenance::BC_IVA) return b.bundle_cache_epoch;
  return b.data_cache_epoch;
}

// IsCanonicalAddress48: bits 63:48 repeat bit 47.
constexpr bool is_canonical_address48(Word address) { return sign_extend(address, 48) == address; }

// Operand legality after the privilege check: TLB.IV/TLB.IAV take a
// canonical 48-bit address (Fault_DataPage at the operand), TLB.IA an ASID
// token in bits 15:0 (Fault_IllegalInstruction).  Cache operands are opaque
// scope tokens (ADR 0031).
bool maintenance_operand_legal(arch::Machine& m, Maintenance op, Word operand) {
  if ((op == Maintenance::TLB_IV || op == Maintenance::TLB_IAV) && !is_canonical_address48(operand)) {
    m.set_fault(FaultCode::Fault_DataPage, operand);
    return false;
  }
  if (op == Maintenance::TLB_IA && (operand >> 16) != 0) return illegal(m);
  return true;
}

// ExecuteMaintenance: forms without SrcL (*.IALL) pass operand zero.  Cache
// maintenance is permitted at every ACR, TLB maintenance at ACR0 only
// (MaintenanceAccessPermitted).  No memory is accessed: DC.ZVA too only
// records its scope token (docs/semantics-notes.md "Scalar SYS forms").
template <M Mn, Maintenance Op>
ExecOutcome execute_maintenance(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  Word operand = 0;
  if constexpr (s.src_l >= 0) operand = read_source<s.src_l>(m.state, d);
  if (is_tlb_maintenance(Op) && m.state.current_acr != 0) {
    return illegal_outcome(m);
  }
  if (!maintenance_operand_legal(m, Op, operand)) return m.raised();
  arch::SystemBookkeeping& b = m.state.bookkeeping;
  ++maintenance_epoch(b, Op);
  b.last_maintenance_operation = Op;
  b.last_maintenance_operand = operand;
  return ExecOutcome::Next;
}

// ---- execution control (ExecuteControlRequest) ----

// BSE/BWE/BWI/BWT: a nonblocking handoff that publishes the request and its
// operand (ADR 0031: no sleep or wake state).
template <M Mn, arch::ExecutionControlRequest Request>
ExecOutcome execute_control_request(arch::Machine& m, const DecodedInsn& d) {
  arch::SystemBookkeeping& b = m.state.bookkeeping;
  b.last_control_request = Request;
  b.control_request_operand = read_source<slots_of(Mn).src_l>(m.state, d);
  ++b.architecture_request_epoch;
  return ExecOutcome::Next;
}

// ---- architecture requests (ArchitectureCloseRequest, ArchitectureEnterRequest) ----

// ServiceRequestPermitted (asl/arch/system-registers/access-control.asl).
constexpr bool service_request_permitted(unsigned source, unsigned request_type) {
  if (source == 1) return request_type == 0 || request_type == 2;
  return source >= 2 && request_type <= 2;
}

// ServiceRequestTarget: request 1 goes to ACR1, the others to ACR0.
constexpr unsigned service_request_target(unsigned request_type) { return request_type == 1 ? 1 : 0; }

// Records a completed request: _ArchitectureRequestEpoch and
// _ControlRequestOperand[3:0].
void publish_architecture_request(arch::SystemBookkeeping& b, unsigned request_type) {
  ++b.architecture_request_epoch;
  b.control_request_operand = (b.control_request_operand & ~Word{0xF}) | request_type;
}

// RaiseServiceRequest (asl/arch/memory-model/fault-precision.asl) after the
// permission check: the saved context resumes after the instruction (TPC+4,
// also in EBARG_TPC), the trap enters the request's target ring.
void raise_service_request(arch::Machine& m, unsigned request_type) {
  arch::State& st = m.state;
  const unsigned source = st.current_acr;
  const Word source_tpc = st.pc;
  const Word resume_tpc = source_tpc + 4;
  const unsigned target = service_request_target(request_type);
  m.save_trap_context(target, source);
  st.trap_contexts[target].tpc = resume_tpc;
  st.banked_reg(target, arch::kEbargTpcLow) = resume_tpc;
  st.last_fault = FaultCode::Fault_ServiceRequest;
  st.fault_address = source_tpc;
  arch::TrapStatus& t = st.trap_status[target];
  t.asynchronous = false;
  t.argument_valid = true;
  t.cause = request_type;
  t.number = arch::trap_number(FaultCode::Fault_ServiceRequest);
  t.argument0 = source_tpc;
  m.set_current_acr(target);
  st.pc = m.trap_vector_entry(target, source_tpc);
}

// ArchitectureCloseRequest (ACRC RST_Type): marks the SYS block's final
// scalar position, then traps with Fault_ServiceRequest; the recovered
// context resumes with the terminal marker set, so only BSTOP or a BSTART
// may follow.
ExecOutcome execute_architecture_close_request(arch::Machine& m, const DecodedInsn& d) {
  const auto request_type = static_cast<unsigned>(d.u(0) & 0xF);
  if (!service_request_permitted(m.state.current_acr, request_type)) {
    return illegal_outcome(m);
  }
  m.state.block.system_block_terminal_pending = true;
  raise_service_request(m, request_type);
  publish_architecture_request(m.state.bookkeeping, request_type);
  return m.raised();
}

// ArchitectureEnterRequest (ACRE RRA_Type 0 or 1, aliases in PTO v0; the
// catalog's one-of constraint rejects 2..15 before the handler runs):
// validate the current ring's saved context, commit the SYS block at its
// sequential continuation, then recover the context.  A fault on the way
// keeps the saved context as it was (the fault's own save is undone).
ExecOutcome execute_architecture_enter_request(arch::Machine& m, const DecodedInsn& d) {
  const auto request_type = static_cast<unsigned>(d.u(0) & 0xF);
  arch::State& st = m.state;
  const unsigned target = st.current_acr;
  const arch::TrapContext recovery_context = st.trap_contexts[target];
  if (!m.trap_context_recoverable(target)) {
    m.set_fault(FaultCode::Fault_ExecutionStateCheck, st.pc);
    if (recovery_context.valid) st.trap_contexts[target] = recovery_context;
    return m.raised();
  }
  const ExecOutcome committed = block::complete_bundle(m, st.block.sequential_pc);
  if (committed != ExecOutcome::PcWritten) {
    st.trap_contexts[target] = recovery_context;
    return committed;
  }
  m.recover_trap_context(target);  // recoverable: checked above, untouched by the commit
  publish_architecture_request(st.bookkeeping, request_type);
  return ExecOutcome::PcWritten;
}

template <M Mn, Maintenance Op>
constexpr HandlerEntry maintenance = {Mn, &execute_maintenance<Mn, Op>};
template <M Mn, arch::ExecutionControlRequest Request>
constexpr HandlerEntry control = {Mn, &execute_control_request<Mn, Request>};

using Control = arch::ExecutionControlRequest;

constexpr HandlerEntry kSysHandlers[] = {
    {M::FENCE_D, &execute_fence_data},
    {M::FENCE_I, &execute_fence_instruction},
    {M::ACRC, &execute_architecture_close_request},
    {M::ACRE, &execute_architecture_enter_request},
    maintenance<M::DC_IALL, Maintenance::DC_IALL>, maintenance<M::DC_IVA, Maintenance::DC_IVA>,
    maintenance<M::DC_ISW, Maintenance::DC_ISW>,   maintenance<M::DC_ZVA, Maintenance::DC_ZVA>,
    maintenance<M::DC_CVA, Maintenance::DC_CVA>,   maintenance<M::DC_CIVA, Maintenance::DC_CIVA>,
    maintenance<M::DC_CSW, Maintenance::DC_CSW>,   maintenance<M::DC_CISW, Maintenance::DC_CISW>,
    maintenance<M::IC_IALL, Maintenance::IC_IALL>, maintenance<M::IC_IVA, Maintenance::IC_IVA>,
    maintenance<M::BC_IALL, Maintenance::BC_IALL>, maintenance<M::BC_IVA, Maintenance::BC_IVA>,
    maintenance<M::TLB_IV, Maintenance::TLB_IV>,   maintenance<M::TLB_IAV, Maintenance::TLB_IAV>,
    maintenance<M::TLB_IA, Maintenance::TLB_IA>,   maintenance<M::TLB_IALL, Maintenance::TLB_IALL>,
    control<M::BSE, Control::SendEvent>,           control<M::BWE, Control::WaitEvent>,
    control<M::BWI, Control::WaitInterrupt>,       control<M::BWT, Control::WaitTimeout>,
    {M::SSRGET, &execute_system_register_get<M::SSRGET>},
    {M::HL_SSRGET, &execute_system_register_get<M::HL_SSRGET>},
    {M::C_SSRGET, &execute_system_register_get<M::C_SSRGET>},
    {M::SSRSET, &execute_system_register_set<M::SSRSET>},
    {M::HL_SSRSET, &execute_system_register_set<M::HL_SSRSET>},
    {M::SSRSWAP, &execute_ssrswap},
    {M::EBREAK, &execute_software_breakpoint},
    {M::C_EBREAK, &execute_software_breakpoint},
    {M::ASSERT, &execute_assert},
};

}  // namespace

SystemRegisterAccess system_register_access_of(SystemRegisterAddress address) {
  for (const isa::SystemRegisterDesc& r : isa::system_registers()) {
    bool match;
    if (r.is_base) {
      match = address == r.address;
    } else if (r.fixed_context >= 0) {
      match = address == ((static_cast<SystemRegisterAddress>(r.fixed_context) << kBankShift) | r.address);
    } else {
      match = (address >> 16) == 0 && (address & kLowMask) == r.address;
    }
    if (!match) continue;
    const std::string_view a = r.access;
    if (a == "RO") return SystemRegisterAccess::ReadOnly;
    if (a == "WO") return SystemRegisterAccess::WriteOnly;
    return SystemRegisterAccess::ReadWrite;
  }
  return SystemRegisterAccess::Unknown;
}

bool read_system_register(arch::Machine& m, SystemRegisterAddress address, Word& value) {
  if (!system_register_access_permitted(address, m.state.current_acr)) return illegal(m);
  const SystemRegisterAccess access = system_register_access_of(address);
  if (access == SystemRegisterAccess::Unknown || access == SystemRegisterAccess::WriteOnly) return illegal(m);
  arch::State& st = m.state;
  if (is_base_address(address)) {
    // ReadMonotonicTime is the cycle count in the reference profile.
    value = address == kTimeAddress ? st.sysregs.cycle : *base_register(st.sysregs, address);
    return true;
  }
  const unsigned ring = ring_of(address);
  switch (const unsigned low = address & kLowMask) {
    case kTrapStatusLow: value = m.pack_trap_status(ring); break;
    case kTrapArgument0Low: value = st.trap_status[ring].argument0; break;
    case kInterruptPendingLow:
    case kTopInterruptLow:
      refresh_timer_pending(st, ring);  // ReadInterruptPending / ReadTopPendingInterrupt
      value = st.banked_reg(ring, low);
      break;
    case kTimerTimeLow: value = st.sysregs.cycle; break;
    default: value = st.banked_reg(ring, low); break;
  }
  return true;
}

bool write_system_register(arch::Machine& m, SystemRegisterAddress address, Word value) {
  if (!write_permitted(m, address)) return illegal(m);
  arch::State& st = m.state;
  if (is_base_address(address)) {
    // write_permitted: a catalog RW base register (SystemRegisterIsWritable), all of which have storage.
    *base_register(st.sysregs, address) = value;
    if (address == kCoreStateAddress) m.set_current_acr(static_cast<unsigned>(value & arch::kCoreStateAcrMask));
    return true;
  }
  const unsigned ring = ring_of(address);
  switch (const unsigned low = address & kLowMask) {
    case kTrapStatusLow: unpack_trap_status(st, ring, value); break;
    case kTrapArgument0Low: st.trap_status[ring].argument0 = value; break;
    case kEndOfInterruptLow: end_of_interrupt(st, ring, value); break;
    default:
      st.banked_reg(ring, low) = value;
      if (low == kTimerCompareLow) refresh_timer_pending(st, ring);
      break;
  }
  return true;
}

std::span<const HandlerEntry> sys_handlers() { return kSysHandlers; }

void fence_data(arch::Machine& m, std::uint8_t predecessor, std::uint8_t successor) {
  arch::SystemBookkeeping& b = m.state.bookkeeping;
  m.state.reservation_valid = false;
  b.last_fence_predecessor = predecessor;
  b.last_fence_successor = successor;
  if (((predecessor | successor) & kFenceInstructionBit) != 0) ++b.instruction_cache_epoch;
  m.record_fence(predecessor, successor);
}

// The model's instruction and data storage are coherent (the decode cache
// follows code writes); the epoch is the visible effect.
void fence_instruction(arch::Machine& m) {
  m.state.reservation_valid = false;
  ++m.state.bookkeeping.instruction_cache_epoch;
}

}  // namespace pto::scalar
