// BRU compare handlers (asl/scalar/model/dispatch/bru.asl,
// asl/scalar/model/bru/semantics.asl).  CMP.* publish 1/0 to a Reg5
// destination; C.CMP.* compare t#1 and push to T.  The control-transfer and
// commit-argument forms (J, JR, SETRET, ADDTPC, SETC.*) belong to the block
// layer (src/scalar/execute.hpp).
#include "block/control.hpp"
#include "scalar/handler_support.hpp"

namespace pto::scalar {
namespace {

using M = isa::Mnemonic;

using block::Condition;

// ConditionHolds, shared with SETC.* (src/block/control.hpp).
template <Condition C>
inline bool condition_holds(Word left, Word right) {
  return block::condition_holds(C, left, right);
}

// ExecuteDecodedCompareRegister: right = Restricted(SrcR, SrcRType) (.neg ignored).
template <M Mn, Condition C>
ExecOutcome execute_compare_register(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word right =
      apply_restricted_compare_modifier(read_source<s.src_r>(st, d), kOrderedRightModifier[d.u(s.src_r_type) & 3]);
  write_destination<s.reg_dst>(st, d, Word{condition_holds<C>(read_source<s.src_l>(st, d), right)});
  return ExecOutcome::Next;
}

// ExecuteDecodedCompareImmediate (CMP.*I, HL.CMP.*I).
template <M Mn, Condition C>
ExecOutcome execute_compare_immediate(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  write_destination<s.reg_dst>(st, d, Word{condition_holds<C>(read_source<s.src_l>(st, d), field_word<s.imm>(d))});
  return ExecOutcome::Next;
}

// C.CMP.EQI / C.CMP.NEI: ExecuteCompare(->t, t#1, simm5).
template <M Mn, Condition C>
ExecOutcome execute_compressed_compare(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  st.t_queue.push(Word{condition_holds<C>(st.read_reg5(kReg5T1), field_word<s.imm>(d))});
  return ExecOutcome::Next;
}

// ExecuteCompareLogical: (left AND/OR right) != 0.
template <bool CombineOr>
constexpr Word compare_logical(Word left, Word right) {
  return Word{(CombineOr ? (left | right) : (left & right)) != 0};
}

// ExecuteDecodedCompareLogicalRegister: right = Modify(SrcR, SrcRType), .not inverts.
template <M Mn, bool CombineOr>
ExecOutcome execute_compare_logical_register(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word right =
      apply_right_modifier(read_source<s.src_r>(st, d), kOrderedRightModifier[d.u(s.src_r_type) & 3], true);
  write_destination<s.reg_dst>(st, d, compare_logical<CombineOr>(read_source<s.src_l>(st, d), right));
  return ExecOutcome::Next;
}

// ExecuteDecodedCompareLogicalImmediate
template <M Mn, bool CombineOr>
ExecOutcome execute_compare_logical_immediate(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  write_destination<s.reg_dst>(st, d, compare_logical<CombineOr>(read_source<s.src_l>(st, d), field_word<s.imm>(d)));
  return ExecOutcome::Next;
}

template <M Mn, Condition C>
constexpr HandlerEntry cmp_reg = {Mn, &execute_compare_register<Mn, C>};
template <M Mn, Condition C>
constexpr HandlerEntry cmp_imm = {Mn, &execute_compare_immediate<Mn, C>};

using C = Condition;

constexpr HandlerEntry kBruHandlers[] = {
    cmp_reg<M::CMP_EQ, C::EQ>,        cmp_reg<M::CMP_NE, C::NE>,        cmp_reg<M::CMP_LT, C::LT>,
    cmp_reg<M::CMP_GE, C::GE>,        cmp_reg<M::CMP_LTU, C::LTU>,      cmp_reg<M::CMP_GEU, C::GEU>,
    cmp_imm<M::CMP_EQI, C::EQ>,       cmp_imm<M::CMP_NEI, C::NE>,       cmp_imm<M::CMP_LTI, C::LT>,
    cmp_imm<M::CMP_GEI, C::GE>,       cmp_imm<M::CMP_LTUI, C::LTU>,     cmp_imm<M::CMP_GEUI, C::GEU>,
    cmp_imm<M::HL_CMP_EQI, C::EQ>,    cmp_imm<M::HL_CMP_NEI, C::NE>,    cmp_imm<M::HL_CMP_LTI, C::LT>,
    cmp_imm<M::HL_CMP_GEI, C::GE>,    cmp_imm<M::HL_CMP_LTUI, C::LTU>,  cmp_imm<M::HL_CMP_GEUI, C::GEU>,
    {M::C_CMP_EQI, &execute_compressed_compare<M::C_CMP_EQI, C::EQ>},
    {M::C_CMP_NEI, &execute_compressed_compare<M::C_CMP_NEI, C::NE>},
    {M::CMP_AND, &execute_compare_logical_register<M::CMP_AND, false>},
    {M::CMP_OR, &execute_compare_logical_register<M::CMP_OR, true>},
    {M::CMP_ANDI, &execute_compare_logical_immediate<M::CMP_ANDI, false>},
    {M::CMP_ORI, &execute_compare_logical_immediate<M::CMP_ORI, true>},
    {M::HL_CMP_ANDI, &execute_compare_logical_immediate<M::HL_CMP_ANDI, false>},
    {M::HL_CMP_ORI, &execute_compare_logical_immediate<M::HL_CMP_ORI, true>},
};

}  // namespace

std::span<const HandlerEntry> bru_handlers() { return kBruHandlers; }

}  // namespace pto::scalar
