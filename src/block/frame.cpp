// Frame templates FENTRY, FEXIT, FRET.RA, FRET.STK
// (asl/block/model/lifecycle/lifetime.asl).  A template keeps its progress in
// _FrameTemplate so a memory fault can be recovered and the same instruction
// resumed.  The frame stack pointer is GPR 2 (PTO_FRAME_SP_INDEX).
#include "block/control.hpp"
#include "block/handlers.hpp"

namespace pto::block {
namespace {

using arch::FaultCode;
using arch::FrameTemplateKind;
using arch::FrameTemplateState;
using arch::Machine;
using arch::State;
using arch::Word;
using scalar::DecodedInsn;
using scalar::ExecOutcome;

bool endpoint_legal(unsigned r) { return r >= 2 && r <= 23; }

// FrameRegisterRangeCount: inclusive ring over 2..23.
unsigned range_count(unsigned begin, unsigned end) { return end >= begin ? end - begin + 1 : (24 - begin) + end - 1; }

// FrameRegisterAt
unsigned register_at(unsigned begin, unsigned ordinal) {
  const unsigned r = begin + ordinal;
  return r <= 23 ? r : r - 22;
}

Word slot_address(Word caller_sp, unsigned ordinal) { return caller_sp - Word{(ordinal + 1) * 8}; }

// FrameTemplateOperandsLegal
bool operands_legal(FrameTemplateKind kind, unsigned begin, unsigned end, Word size) {
  if (!endpoint_legal(begin) || !endpoint_legal(end)) return false;
  if (kind == FrameTemplateKind::ReturnStack && begin != arch::kRegRa) return false;
  return (size & 7) == 0 && size >= Word{range_count(begin, end)} * 8;
}

// StartFrameTemplate
bool start_template(Machine& m, FrameTemplateKind kind, unsigned begin, unsigned end, Word size) {
  State& s = m.state;
  if (!operands_legal(kind, begin, end, size)) {
    m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
    return false;
  }
  FrameTemplateState& t = s.block.frame_template;
  const unsigned count = range_count(begin, end);
  const Word sp = s.read_gpr(arch::kFrameSpIndex);
  t.active = true;
  t.kind = kind;
  t.instruction_pc = s.pc;
  t.begin_reg = static_cast<std::uint8_t>(begin);
  t.end_reg = static_cast<std::uint8_t>(end);
  t.register_count = static_cast<std::uint8_t>(count);
  t.frame_size = size;
  t.caller_sp = kind == FrameTemplateKind::Entry ? sp : sp + size;
  t.stack_adjusted = false;
  t.progress = 0;
  t.return_target_valid = kind == FrameTemplateKind::ReturnAddress;
  t.return_target = t.return_target_valid ? s.return_address : 0;
  if (t.return_target_valid && (t.return_target & 1)) {
    t.active = false;
    m.set_fault(FaultCode::Fault_InstructionPC, t.return_target);
    return false;
  }
  if (kind == FrameTemplateKind::Entry) {
    // FENTRY snapshots every source before the destructive sp update.
    for (unsigned i = 0; i < t.source_values.size(); ++i) {
      t.source_values[i] = i < count ? s.read_gpr(register_at(begin, i)) : 0;
    }
  }
  return true;
}

// ExecuteFrameStoreStep / ExecuteFrameLoadStep: false after a fault.
bool frame_step(Machine& m) {
  State& s = m.state;
  FrameTemplateState& t = s.block.frame_template;
  const unsigned ordinal = t.progress;
  const Word address = slot_address(t.caller_sp, ordinal);
  const FaultCode probe = m.probe_data(address, 8, 8);
  if (probe != FaultCode::Fault_None) {
    m.set_fault(probe, address);
    return false;
  }
  if (t.kind == FrameTemplateKind::Entry) {
    m.write_probed(address, 8, t.source_values[ordinal]);
  } else {
    const Word value = m.memory.read(address, 8);
    if (t.kind == FrameTemplateKind::ReturnStack && ordinal == 0) {
      if (value & 1) {
        m.set_fault(FaultCode::Fault_InstructionPC, value);
        return false;
      }
      t.return_target = value;
      t.return_target_valid = true;
    }
    m.read_probed(address, 8);  // records the load event
    const unsigned reg = register_at(t.begin_reg, ordinal);
    s.write_gpr(reg, value);
    if (reg == arch::kRegRa) s.return_address = value;
  }
  ++t.progress;
  return true;
}

// CompleteFrameTemplate: true when it wrote TPC (the return forms).
bool complete_template(State& s) {
  FrameTemplateState& t = s.block.frame_template;
  s.last_frame_begin = t.begin_reg;
  s.last_frame_end = t.end_reg;
  s.last_frame_size = t.frame_size;
  t.active = false;
  if (t.kind == FrameTemplateKind::Entry) {
    if (s.frame_depth != arch::kMemoryEvents) ++s.frame_depth;
    return false;
  }
  if (s.frame_depth != 0) --s.frame_depth;
  if (t.kind == FrameTemplateKind::ReturnAddress || t.kind == FrameTemplateKind::ReturnStack) {
    s.pc = t.return_target;
    return true;
  }
  return false;
}

// ExecuteFrameTemplate
ExecOutcome run_template(Machine& m, const DecodedInsn& d, FrameTemplateKind kind) {
  State& s = m.state;
  FrameTemplateState& t = s.block.frame_template;
  const unsigned begin = d.reg(0);
  const unsigned end = d.reg(1);
  const Word size = static_cast<Word>(d.field[2]);
  if (!t.active && !start_template(m, kind, begin, end, size)) return m.raised();
  if (t.instruction_pc != s.pc || t.kind != kind) {
    return m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
  }
  if (!t.stack_adjusted) {
    // AdjustFrameStackPointer
    s.write_gpr(arch::kFrameSpIndex, kind == FrameTemplateKind::Entry ? t.caller_sp - t.frame_size : t.caller_sp);
    t.stack_adjusted = true;
  }
  while (t.progress < t.register_count) {
    if (!frame_step(m)) return m.raised();
  }
  return complete_template(s) ? ExecOutcome::PcWritten : ExecOutcome::Next;
}

ExecOutcome FENTRY(Machine& m, const DecodedInsn& d) { return run_template(m, d, FrameTemplateKind::Entry); }
ExecOutcome FEXIT(Machine& m, const DecodedInsn& d) { return run_template(m, d, FrameTemplateKind::Exit); }
ExecOutcome FRET_RA(Machine& m, const DecodedInsn& d) { return run_template(m, d, FrameTemplateKind::ReturnAddress); }
ExecOutcome FRET_STK(Machine& m, const DecodedInsn& d) { return run_template(m, d, FrameTemplateKind::ReturnStack); }

}  // namespace

void register_frame_handlers(scalar::HandlerTable& t) {
  t.set(isa::Mnemonic::FENTRY, FENTRY);
  t.set(isa::Mnemonic::FEXIT, FEXIT);
  t.set(isa::Mnemonic::FRET_RA, FRET_RA);
  t.set(isa::Mnemonic::FRET_STK, FRET_STK);
}

}  // namespace pto::block
