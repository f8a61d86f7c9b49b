// MCOPY (restartable copy template) and MSET (bounded fill)
// (asl/block/model/commit/effects.asl).
#include <limits>

#include "block/control.hpp"
#include "block/handlers.hpp"

namespace pto::block {
namespace {

using arch::FaultCode;
using arch::Machine;
using arch::MemoryCopyTemplateState;
using arch::State;
using arch::Word;
using scalar::DecodedInsn;
using scalar::ExecOutcome;

bool range_wraps(Word address, Word length) { return length != 0 && address + length < address; }

bool copy_ranges_overlap(Word destination, Word source, Word length) {
  return length != 0 && destination < source + length && source < destination + length;
}

// MemoryCopyStepSize
unsigned step_size(Word remaining) { return remaining >= 8 ? 8 : remaining >= 4 ? 4 : remaining >= 2 ? 2 : 1; }

// ExecuteMemoryCopyStep: both accesses probed before the source is read.
bool copy_step(Machine& m, MemoryCopyTemplateState& t) {
  const unsigned size = step_size(t.length - t.progress);
  const Word source = t.source + t.progress;
  const Word destination = t.destination + t.progress;
  for (const auto& [address, fault] : {std::pair{source, m.probe_data(source, size, 1)},
                                       std::pair{destination, m.probe_data(destination, size, 1)}}) {
    if (fault != FaultCode::Fault_None) {
      m.set_fault(fault, address);
      return false;
    }
  }
  const Word value = m.read_probed(source, size);
  m.write_probed(destination, size, value);
  t.progress += size;
  return true;
}

void complete_copy(State& s) {
  s.last_memory_command_address = s.block.memory_copy_template.destination;
  s.last_memory_command_size = s.block.memory_copy_template.length;
  s.block.memory_copy_template.active = false;
}

// The ASL bounds one MCOPY execution to PTO_MODEL_MEMORY_BYTES steps; the
// real configuration completes the copy (docs/semantics-notes.md "MCOPY").
std::uint64_t copy_step_limit(const Machine& m) {
  return m.memory.config().profile == arch::MemoryProfile::Reference ? m.memory.config().address_limit
                                                                      : std::numeric_limits<std::uint64_t>::max();
}

// ExecuteMemoryCopyTemplate
ExecOutcome MCOPY(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  MemoryCopyTemplateState& t = s.block.memory_copy_template;
  if (!t.active) {
    const Word destination = s.read_gpr(d.reg(0));
    const Word source = s.read_gpr(d.reg(1));
    const Word length = s.read_gpr(d.reg(2));
    if (range_wraps(destination, length) || range_wraps(source, length) ||
        copy_ranges_overlap(destination, source, length)) {
      return m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
    }
    t = {true, s.pc, destination, source, length, 0};
  }
  if (t.instruction_pc != s.pc) {
    return m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
  }
  const std::uint64_t limit = copy_step_limit(m);
  for (std::uint64_t step = 0; step < limit && t.active; ++step) {
    if (t.progress == t.length) {
      complete_copy(s);
    } else if (!copy_step(m, t)) {
      return m.raised();
    }
  }
  if (t.active && t.progress == t.length) complete_copy(s);
  return ExecOutcome::Next;
}

// ExecuteBoundedMemorySet: at most 63 bytes of the low byte of RegSrc1.
ExecOutcome MSET(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  const Word destination = s.read_gpr(d.reg(0));
  const Word value = s.read_gpr(d.reg(1));
  const Word length = s.read_gpr(d.reg(2));
  if (length > 63) {
    return m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
  }
  if (length != 0) {
    const FaultCode f = m.probe_data(destination, length, 1);
    if (f != FaultCode::Fault_None) {
      return m.set_fault(f, destination);
    }
    for (Word i = 0; i < length; ++i) m.memory.write(destination + i, 1, value & 0xFF);
    if (s.reservation_valid) {
      const Word granule = s.reservation_address & ~Word{arch::kReservationGranuleBytes - 1};
      if (destination < granule + arch::kReservationGranuleBytes && granule < destination + length) {
        s.reservation_valid = false;
      }
    }
  }
  s.last_memory_command_address = destination;
  s.last_memory_command_size = length;
  return ExecOutcome::Next;
}

}  // namespace

void register_memory_command_handlers(scalar::HandlerTable& t) {
  t.set(isa::Mnemonic::MCOPY, MCOPY);
  t.set(isa::Mnemonic::MSET, MSET);
}

}  // namespace pto::block
