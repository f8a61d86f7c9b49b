// SYS family handlers that need no block state of their own: system-register
// get/set/swap, software breakpoints and ASSERT (asl/scalar/model/dispatch/sys.asl,
// asl/scalar/model/sys/{registers,semantics}.asl).  The dispatcher applies the
// SYS-block applicability rule before any of them runs.  The epoch-keeping
// forms (FENCE.*, cache/TLB maintenance, BSE/BWE/BWI/BWT) and ACRC/ACRE are
// not registered here (see docs/semantics-notes.md "Scalar SYS forms").
#include "scalar/system_registers.hpp"

#include <algorithm>
#include <bit>

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

// IsBaseSystemRegisterAddress
bool is_base_address(SystemRegisterAddress address) {
  constexpr SystemRegisterAddress kBase[] = {0x000, 0x001, 0x010, 0x020, 0x021, 0x022, 0x023,
                                             0x024, 0x025, 0x026, 0x027, 0x050, 0x051, 0xC00};
  return std::find(std::begin(kBase), std::end(kBase), address) != std::end(kBase);
}

// SystemRegisterIsWritable
bool base_register_writable(SystemRegisterAddress address) {
  return address == 0x000 || address == 0x001 || address == kCoreStateAddress || address == 0x025;
}

// Raises Fault_IllegalInstruction at the instruction (ReadPC()); returns false.
bool illegal(arch::Machine& m) {
  m.set_fault(FaultCode::Fault_IllegalInstruction, m.state.pc);
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
    return ExecOutcome::Fault;
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
    illegal(m);
    return ExecOutcome::Fault;
  }
  if (!write_system_register(m, address, read_source<s.src_l>(m.state, d))) return ExecOutcome::Fault;
  return ExecOutcome::Next;
}

// ExecuteSystemRegisterSwap (SSRSWAP): fields RegDst, SSR_ID, SrcL.  Both
// permissions and the access class are checked before the read.
ExecOutcome execute_ssrswap(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(M::SSRSWAP);
  const auto address = static_cast<SystemRegisterAddress>(d.u(1) & 0xFFFFFF);
  if (!swap_permitted(m, address)) {
    illegal(m);
    return ExecOutcome::Fault;
  }
  const Word value = read_source<s.src_l>(m.state, d);
  Word old_value;
  if (!read_system_register(m, address, old_value)) return ExecOutcome::Fault;
  if (!write_system_register(m, address, value)) return ExecOutcome::Fault;
  write_destination<s.reg_dst>(m.state, d, old_value);
  return ExecOutcome::Next;
}

// SoftwareBreakpoint: the tag (EBREAK imm4, C.EBREAK imm5; the only field)
// is the cause.
ExecOutcome execute_software_breakpoint(arch::Machine& m, const DecodedInsn& d) {
  m.set_fault(FaultCode::Fault_SoftwareBreakpoint, m.state.pc, static_cast<std::uint32_t>(d.u(0) & 0x1F));
  return ExecOutcome::Fault;
}

// ArchitectureAssert: Fault_Assert when SrcL is zero.
ExecOutcome execute_assert(arch::Machine& m, const DecodedInsn& d) {
  if (read_source<slots_of(M::ASSERT).src_l>(m.state, d) != 0) return ExecOutcome::Next;
  m.set_fault(FaultCode::Fault_Assert, m.state.pc);
  return ExecOutcome::Fault;
}

constexpr HandlerEntry kSysHandlers[] = {
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
    if (!base_register_writable(address)) return illegal(m);
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

}  // namespace pto::scalar
