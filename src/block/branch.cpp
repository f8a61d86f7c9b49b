// Scalar operations that steer blocks: SETC.* (commit condition), SETC.TGT
// (commit target), J, JR, SETRET, ADDTPC and LSRGET.  Sources:
// asl/scalar/model/bru/semantics.asl, asl/scalar/model/dispatch/bru.asl,
// asl/scalar/model/sys/semantics.asl, asl/block/model/state/barg.asl.
#include <array>
#include <iterator>
#include <utility>

#include "block/control.hpp"
#include "block/handlers.hpp"

namespace pto::block {
namespace {

using arch::FaultCode;
using arch::Machine;
using arch::State;
using arch::Word;
using isa::Mnemonic;
using scalar::DecodedInsn;
using scalar::ExecOutcome;

Word sign_extend(Word v, unsigned bits) {
  const Word m = Word{1} << (bits - 1);
  v &= (bits >= 64) ? ~Word{0} : (Word{1} << bits) - 1;
  return (v ^ m) - m;
}

// SrcRType of compare-family register forms (DecodeScalarComparisonRightModifier):
// 00 none, 01 sign-extended word, 10 zero-extended word, 11 negate / not.
Word compare_right(Word v, unsigned type, bool logical) {
  switch (type & 3) {
    case 1: return sign_extend(v, 32);
    case 2: return v & 0xFFFFFFFFu;
    case 3:
      // ApplyRestrictedCompareModifier ignores negation; the logical family
      // applies NOT (ApplyScalarRightModifier with logical_family).
      return logical ? ~v : v;
    default: return v;
  }
}

enum class SetcOperand : std::uint8_t { Register, Immediate, LogicalRegister, LogicalImmediate };

struct SetcForm {
  Mnemonic mnemonic;
  SetcOperand operand;
  Condition condition;  // compare forms
  bool combine_or;      // logical forms
};

constexpr SetcForm kSetcForms[] = {
    {Mnemonic::SETC_EQ, SetcOperand::Register, Condition::EQ, false},
    {Mnemonic::SETC_NE, SetcOperand::Register, Condition::NE, false},
    {Mnemonic::SETC_LT, SetcOperand::Register, Condition::LT, false},
    {Mnemonic::SETC_GE, SetcOperand::Register, Condition::GE, false},
    {Mnemonic::SETC_LTU, SetcOperand::Register, Condition::LTU, false},
    {Mnemonic::SETC_GEU, SetcOperand::Register, Condition::GEU, false},
    {Mnemonic::SETC_EQI, SetcOperand::Immediate, Condition::EQ, false},
    {Mnemonic::SETC_NEI, SetcOperand::Immediate, Condition::NE, false},
    {Mnemonic::SETC_LTI, SetcOperand::Immediate, Condition::LT, false},
    {Mnemonic::SETC_GEI, SetcOperand::Immediate, Condition::GE, false},
    {Mnemonic::SETC_LTUI, SetcOperand::Immediate, Condition::LTU, false},
    {Mnemonic::SETC_GEUI, SetcOperand::Immediate, Condition::GEU, false},
    {Mnemonic::HL_SETC_EQI, SetcOperand::Immediate, Condition::EQ, false},
    {Mnemonic::HL_SETC_NEI, SetcOperand::Immediate, Condition::NE, false},
    {Mnemonic::HL_SETC_LTI, SetcOperand::Immediate, Condition::LT, false},
    {Mnemonic::HL_SETC_GEI, SetcOperand::Immediate, Condition::GE, false},
    {Mnemonic::HL_SETC_LTUI, SetcOperand::Immediate, Condition::LTU, false},
    {Mnemonic::HL_SETC_GEUI, SetcOperand::Immediate, Condition::GEU, false},
    {Mnemonic::SETC_AND, SetcOperand::LogicalRegister, Condition::EQ, false},
    {Mnemonic::SETC_OR, SetcOperand::LogicalRegister, Condition::EQ, true},
    {Mnemonic::SETC_ANDI, SetcOperand::LogicalImmediate, Condition::EQ, false},
    {Mnemonic::SETC_ORI, SetcOperand::LogicalImmediate, Condition::EQ, true},
    {Mnemonic::HL_SETC_ANDI, SetcOperand::LogicalImmediate, Condition::EQ, false},
    {Mnemonic::HL_SETC_ORI, SetcOperand::LogicalImmediate, Condition::EQ, true},
    // C.SETC.EQ/NE compare two Reg5 sources without modifier.
    {Mnemonic::C_SETC_EQ, SetcOperand::Register, Condition::EQ, false},
    {Mnemonic::C_SETC_NE, SetcOperand::Register, Condition::NE, false},
};

// A Reg5 source of a SETC record; `Gprs`: the record's sources are all GPRs.
template <bool Gprs>
Word setc_source(const State& s, unsigned sel) {
  if constexpr (Gprs) {
    return s.gpr[s.current_pe][sel];
  } else {
    return s.read_reg5(sel);
  }
}

// Field order (catalog): register forms SrcL, SrcR[, SrcRType]; immediate
// forms SrcL, shamt, imm.
unsigned setc_right_type(const DecodedInsn& d) { return d.field_count > 2 ? static_cast<unsigned>(d.field[2]) & 3 : 0; }
Word setc_immediate(const DecodedInsn& d) { return static_cast<Word>(d.field[2]) << (d.field[1] & 63); }  // LSL(imm, shamt)

// The right operand of a SETC form.
template <bool Gprs>
Word setc_right(const State& s, const DecodedInsn& d, const SetcForm& f) {
  switch (f.operand) {
    case SetcOperand::Register:
    case SetcOperand::LogicalRegister: {
      const Word v = setc_source<Gprs>(s, d.reg(1));
      return compare_right(v, setc_right_type(d), f.operand == SetcOperand::LogicalRegister);
    }
    case SetcOperand::Immediate:
    case SetcOperand::LogicalImmediate: return setc_immediate(d);
  }
  return 0;
}

// ExecuteSetCommit / ExecuteSetCommitLogical, one instance per row of
// kSetcForms.  Applicability (active COND block body, condition not yet
// set) is checked by the dispatcher.
template <std::size_t Row, bool Gprs = false>
bool setc_holds(const State& s, const DecodedInsn& d) {
  constexpr SetcForm f = kSetcForms[Row];
  const Word left = setc_source<Gprs>(s, d.reg(0));
  const Word right = setc_right<Gprs>(s, d, f);
  if (f.operand == SetcOperand::LogicalRegister || f.operand == SetcOperand::LogicalImmediate) {
    return (f.combine_or ? (left | right) : (left & right)) != 0;
  }
  return condition_holds(f.condition, left, right);
}

template <std::size_t Row, bool Gprs = false>
ExecOutcome SETC(Machine& m, const DecodedInsn& d) {
  set_commit_condition(m.state, setc_holds<Row, Gprs>(m.state, d));
  return ExecOutcome::Next;
}

// SETC with its applicability checked here instead of by the dispatcher
// (the record has no other pre-check): the same order, the fault first.
// `Gprs`: every Reg5 source of the record names a GPR.
template <std::size_t Row, bool Gprs>
ExecOutcome SETC_self_admitting(Machine& m, const DecodedInsn& d) {
  if (!commit_condition_setter_applicable(m.state.block)) {
    return m.set_fault(FaultCode::Fault_BundleControl, m.state.pc);
  }
  return SETC<Row, Gprs>(m, d);
}

// SetCommitTarget / SetCompressedCommitTarget: BARG.BPCN = SrcL.
ExecOutcome SETC_TGT(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  s.block.barg.bpcn = s.read_reg5(d.reg(0));
  if (d.mnemonic == Mnemonic::C_SETC_TGT) s.block.commit_target_set = true;
  return ExecOutcome::Next;
}

// JumpRelative: TPC += simm22 * 2.
ExecOutcome J(Machine& m, const DecodedInsn& d) {
  m.state.pc += static_cast<Word>(d.field[0]) << 1;
  return ExecOutcome::PcWritten;
}

// JumpRegister: SrcL + simm12 * 2, odd targets fault.
ExecOutcome JR(Machine& m, const DecodedInsn& d) {
  static const int kSimm12 = scalar::field_slot(Mnemonic::JR, "simm12");
  const Word target = m.state.read_reg5(d.reg(0)) + (static_cast<Word>(d.field[kSimm12]) << 1);
  if (target & 1) {
    return m.set_fault(FaultCode::Fault_InstructionPC, target);
  }
  m.state.pc = target;
  return ExecOutcome::PcWritten;
}

// SetReturnAddress: ra = _ReturnAddress = TPC + offset * 2 (offset zero-extended).
ExecOutcome SETRET(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  const unsigned width = isa::fields_of(d.desc())[0].width;
  const Word offset = static_cast<Word>(d.field[0]) & ((Word{1} << width) - 1);
  const Word target = s.pc + (offset << 1);
  s.write_gpr(arch::kRegRa, target);
  s.return_address = target;
  return ExecOutcome::Next;
}

// AddToPC: RegDst = TPC + (sign-extended imm << 12).
ExecOutcome ADDTPC(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  const unsigned width = isa::fields_of(d.desc())[1].width;
  s.write_reg5(d.reg(0), s.pc + (sign_extend(static_cast<Word>(d.field[1]), width) << 12));
  return ExecOutcome::Next;
}

// ExecuteLocalStateRegisterGet: BARG words 0 (BPC), 1 (BPCN, STD/FP only), 2
// (control word).  The dispatcher admitted it in an active block body
// (ScalarOperationApplicable, Applicability::BlockBody).
ExecOutcome LSRGET(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  static const int kId = scalar::field_slot(Mnemonic::LSRGET, "LSR_ID");
  static const int kDst = scalar::field_slot(Mnemonic::LSRGET, "RegDst");
  const auto& b = s.block;
  const bool candidate = b.barg.block_type == arch::BundleKind::Standard ||
                         b.barg.block_type == arch::BundleKind::Floating;
  const auto id = d.field[kId];
  if (id > 2 || (id == 1 && !candidate)) {
    return m.set_fault(FaultCode::Fault_BundleControl, s.pc);
  }
  Word value = 0;
  if (id == 0) {
    value = s.bpc;
  } else if (id == 1) {
    value = b.barg.bpcn;
  } else {
    // PackCurrentBARGControlWord (PTOv0BundleKindCode / PTOv0BundleTransferCode).
    value = arch::bundle_kind_code(b.barg.block_type);
    if (candidate) {
      value |= Word{arch::bundle_transfer_code(b.barg.transfer_type)} << 4;
      value |= Word{b.barg.taken} << 7;
    }
    const auto& a = b.control_attributes;
    value |= Word{a.atomic} << 8 | Word{a.acquire} << 9 | Word{a.release} << 10 | Word{a.far} << 11 |
             Word{a.dimension_reduction} << 12;
  }
  s.write_reg5(d.reg(static_cast<unsigned>(kDst)), value);
  return ExecOutcome::Next;
}

template <std::size_t... Rows>
void register_setc_handlers(scalar::HandlerTable& t, std::index_sequence<Rows...>) {
  (t.set(kSetcForms[Rows].mnemonic, SETC<Rows>), ...);
}

template <bool Gprs, std::size_t... Rows>
constexpr std::array<scalar::Handler, sizeof...(Rows)> make_self_admitting_setc(std::index_sequence<Rows...>) {
  return {SETC_self_admitting<Rows, Gprs>...};
}

// [gprs][i]: the self-admitting SETC of kSetcForms[i], reading its sources
// as Reg5 selectors (0) or as GPRs (1).
constexpr std::array kSelfAdmittingSetc = {
    make_self_admitting_setc<false>(std::make_index_sequence<std::size(kSetcForms)>{}),
    make_self_admitting_setc<true>(std::make_index_sequence<std::size(kSetcForms)>{})};

template <std::size_t... Rows>
constexpr std::array<CommitCondition, sizeof...(Rows)> make_gpr_setc_conditions(std::index_sequence<Rows...>) {
  return {setc_holds<Rows, true>...};
}

// [i]: the condition of kSelfAdmittingSetc[1][i].
constexpr auto kGprSetcConditions = make_gpr_setc_conditions(std::make_index_sequence<std::size(kSetcForms)>{});

// The record's Reg5 sources (SrcL, and SrcR of register forms) are GPRs.
bool setc_sources_are_gprs(const DecodedInsn& d, const SetcForm& f) {
  const bool register_form = f.operand == SetcOperand::Register || f.operand == SetcOperand::LogicalRegister;
  return d.reg(0) < arch::kAbsoluteGprCount && (!register_form || d.reg(1) < arch::kAbsoluteGprCount);
}

}  // namespace

scalar::Handler self_admitting_variant(const DecodedInsn& d) {
  if (d.applicability != scalar::Applicability::CommitConditionSetter) return nullptr;
  for (std::size_t i = 0; i < std::size(kSetcForms); ++i) {
    if (kSetcForms[i].mnemonic == d.mnemonic) return kSelfAdmittingSetc[setc_sources_are_gprs(d, kSetcForms[i])][i];
  }
  return nullptr;
}

CommitCondition commit_condition_of(const DecodedInsn& d) {
  for (std::size_t i = 0; i < std::size(kSetcForms); ++i) {
    if (kSelfAdmittingSetc[1][i] == d.handler) return kGprSetcConditions[i];
  }
  return nullptr;
}

std::optional<CommitTest> commit_test_of(const DecodedInsn& d) {
  for (std::size_t i = 0; i < std::size(kSetcForms); ++i) {
    if (kSelfAdmittingSetc[1][i] != d.handler) continue;
    const SetcForm& f = kSetcForms[i];
    CommitTest t;
    t.logical = f.operand == SetcOperand::LogicalRegister || f.operand == SetcOperand::LogicalImmediate;
    t.combine_or = f.combine_or;
    t.condition = f.condition;
    t.left = static_cast<std::uint8_t>(d.reg(0));
    t.right_is_register = f.operand == SetcOperand::Register || f.operand == SetcOperand::LogicalRegister;
    if (t.right_is_register) {
      t.right = static_cast<std::uint8_t>(d.reg(1));
      t.right_type = static_cast<std::uint8_t>(setc_right_type(d));
    } else {
      t.immediate = setc_immediate(d);
    }
    return t;
  }
  return std::nullopt;
}

void register_branch_handlers(scalar::HandlerTable& t) {
  register_setc_handlers(t, std::make_index_sequence<std::size(kSetcForms)>{});
  t.set(Mnemonic::SETC_TGT, SETC_TGT);
  t.set(Mnemonic::C_SETC_TGT, SETC_TGT);
  t.set(Mnemonic::J, J);
  t.set(Mnemonic::JR, JR);
  t.set(Mnemonic::SETRET, SETRET);
  t.set(Mnemonic::HL_SETRET, SETRET);
  t.set(Mnemonic::ADDTPC, ADDTPC);
  t.set(Mnemonic::HL_ADDTPC, ADDTPC);
  t.set(Mnemonic::LSRGET, LSRGET);
}

}  // namespace pto::block
