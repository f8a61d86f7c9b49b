// ALU family handlers (asl/scalar/model/dispatch/alu.asl ExecuteDecodedALUForm,
// asl/scalar/model/alu/semantics.asl, asl/scalar/alu/*.asl).  One template per
// ASL execution shape; the table at the bottom binds every ALU mnemonic to
// its shape and operation.  None of these forms can fault once the
// dispatcher's legality checks have passed.
#include "scalar/alu_semantics.hpp"
#include "scalar/handler_support.hpp"
#include "scalar/register_op.hpp"

namespace pto::scalar {
namespace {

using M = isa::Mnemonic;
using BinaryFn = Word (*)(Word, Word);
using PairFn = WordPair (*)(Word, Word);

template <BinaryOp Op, bool WordOperation>
constexpr Word binary_operation(Word left, Word right) {
  return WordOperation ? scalar_binary_w(Op, left, right) : scalar_binary(Op, left, right);
}

// ExecuteDecodedBinary: right = LSL(Modify(SrcR, SrcRType), shamt).
template <M Mn, BinaryOp Op, bool LogicalFamily, bool WordOperation>
ExecOutcome execute_binary(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word left = read_source<s.src_l>(st, d);
  const Word right = prepare_scalar_right(read_source<s.src_r>(st, d), kBinaryRightModifier[d.u(s.src_r_type) & 3],
                                          static_cast<unsigned>(d.u(s.shamt)), LogicalFamily);
  write_destination<s.reg_dst>(st, d, binary_operation<Op, WordOperation>(left, right));
  return ExecOutcome::Next;
}

// ExecuteDecodedImmediateBinary and ExecuteDecodedShiftImmediate: the right
// operand is the decoded immediate (or shamt) word.
template <M Mn, BinaryOp Op, bool WordOperation>
ExecOutcome execute_immediate_binary(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  constexpr int kRight = s.imm >= 0 ? s.imm : s.shamt;
  arch::State& st = m.state;
  const Word result = binary_operation<Op, WordOperation>(read_source<s.src_l>(st, d), field_word<kRight>(d));
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

// ExecuteDecodedSimpleBinary and the divide/multiply forms: RegDst = Fn(SrcL, SrcR).
template <M Mn, BinaryFn Fn>
ExecOutcome execute_register_binary(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  write_destination<s.reg_dst>(st, d, Fn(read_source<s.src_l>(st, d), read_source<s.src_r>(st, d)));
  return ExecOutcome::Next;
}

// ExecuteDecodedCompressedBinary, C.ADDI, C.SLLI, C.SRLI: 64-bit result pushed
// to T (WriteCompressedTResult).  Left is SrcL or the implicit t#1; right is
// SrcR or the immediate.
template <M Mn, BinaryOp Op>
ExecOutcome execute_compressed_binary(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  Word left;
  if constexpr (s.src_l >= 0) {
    left = read_source<s.src_l>(st, d);
  } else {
    left = st.read_reg5(kReg5T1);
  }
  Word right;
  if constexpr (s.src_r >= 0) {
    right = read_source<s.src_r>(st, d);
  } else {
    right = field_word<s.imm>(d);
  }
  st.t_queue.push(scalar_binary(Op, left, right));
  return ExecOutcome::Next;
}

// MADD / MADDW: RegDst = Fn(SrcD, SrcL, SrcR).
template <M Mn, Word (*Fn)(Word, Word, Word)>
ExecOutcome execute_multiply_add(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word result = Fn(read_source<s.src_d>(st, d), read_source<s.src_l>(st, d), read_source<s.src_r>(st, d));
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

// Two-result forms: Dst0 receives `first`, then Dst1 receives `second`
// (equal GPR destinations keep the second; equal queues push in order).
template <M Mn>
void write_pair(arch::State& st, const DecodedInsn& d, WordPair results) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  write_destination<s.reg_dst0>(st, d, results.first);
  write_destination<s.reg_dst1>(st, d, results.second);
}

// ExecuteScalarMultiplyPair / ExecuteScalarDividePair(W) / ExecuteScalarRemainderPair(W).
template <M Mn, PairFn Fn>
ExecOutcome execute_pair(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  write_pair<Mn>(st, d, Fn(read_source<s.src_l>(st, d), read_source<s.src_r>(st, d)));
  return ExecOutcome::Next;
}

template <bool Signed>
constexpr WordPair multiply_pair(Word left, Word right) {  // {low, high}
  const U128 product = Signed ? multiply_wide_signed(left, right) : multiply_wide_unsigned(left, right);
  return {static_cast<Word>(product), static_cast<Word>(product >> 64)};
}

// {quotient, remainder} (HL.DIV*) or {remainder, quotient} (HL.REM*).
template <BinaryFn Quotient, BinaryFn Remainder, bool RemainderFirst>
constexpr WordPair divide_pair(Word left, Word right) {
  const Word q = Quotient(left, right);
  const Word r = Remainder(left, right);
  return RemainderFirst ? WordPair{r, q} : WordPair{q, r};
}

// ExecuteScalarMultiplyAddPair: signed 128-bit (or word) multiply-accumulate.
template <M Mn, bool WordOperation>
ExecOutcome execute_multiply_add_pair(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  Word addend = read_source<s.src_d>(st, d);
  Word left = read_source<s.src_l>(st, d);
  Word right = read_source<s.src_r>(st, d);
  if constexpr (WordOperation) {
    addend = sign_extend(addend, 32);
    left = sign_extend(left, 32);
    right = sign_extend(right, 32);
  }
  // Converting the signed addend to U128 sign-extends it to 128 bits.
  const U128 accumulator = multiply_wide_signed(left, right) + static_cast<U128>(as_signed(addend));
  const Word low = static_cast<Word>(accumulator);
  if constexpr (WordOperation) {
    write_pair<Mn>(st, d, {sign_extend(low, 32), sign_extend(low >> 32, 32)});
  } else {
    write_pair<Mn>(st, d, {low, static_cast<Word>(accumulator >> 64)});
  }
  return ExecOutcome::Next;
}

// ExecuteConcatenatePair(W): 7-bit shamt.
template <M Mn, WordPair (*Fn)(Word, Word, unsigned)>
ExecOutcome execute_concatenate(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const unsigned shift_amount = static_cast<unsigned>(d.u(s.shamt) & 127);
  write_pair<Mn>(st, d, Fn(read_source<s.src_l>(st, d), read_source<s.src_r>(st, d), shift_amount));
  return ExecOutcome::Next;
}

// ScalarMultiplyImmediateAdd (HL.MIADD / HL.MISUB): SrcL +/- SrcR * uimm19.
template <M Mn, bool Subtract>
ExecOutcome execute_multiply_immediate_add(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word result =
      scalar_multiply_immediate_add(read_source<s.src_l>(st, d), read_source<s.src_r>(st, d), field_word<s.imm>(d), Subtract);
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

// ScalarDecodedBitfieldWidth: imml + 1.
template <M Mn>
unsigned bitfield_width(const DecodedInsn& d) {
  return static_cast<unsigned>(d.u(slots_of(Mn).imml) & 63) + 1;
}

template <M Mn, bool Signed>
ExecOutcome execute_extract_bitfield(arch::Machine& m, const DecodedInsn& d) {  // BXS / BXU
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word result =
      extract_bitfield(read_source<s.src_l>(st, d), bitfield_width<Mn>(d), static_cast<unsigned>(d.u(s.imms) & 63), Signed);
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

template <M Mn, BitCount Kind>
ExecOutcome execute_count_bitfield(arch::Machine& m, const DecodedInsn& d) {  // CLZ / CTZ / BCNT
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word result =
      count_bitfield(read_source<s.src_l>(st, d), bitfield_width<Mn>(d), static_cast<unsigned>(d.u(s.imms) & 63), Kind);
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

template <M Mn, bool SetBits>
ExecOutcome execute_modify_bitfield(arch::Machine& m, const DecodedInsn& d) {  // BIC / BIS
  constexpr ScalarFormSlots s = slots_of(Mn);
  arch::State& st = m.state;
  const Word result =
      modify_bitfield(read_source<s.src_l>(st, d), bitfield_width<Mn>(d), static_cast<unsigned>(d.u(s.imms) & 63), SetBits);
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

ExecOutcome execute_rev(arch::Machine& m, const DecodedInsn& d) {  // ReverseBitfieldBytes
  constexpr ScalarFormSlots s = slots_of(M::REV);
  arch::State& st = m.state;
  const Word result = reverse_bitfield_bytes(read_source<s.src_l>(st, d), bitfield_width<M::REV>(d),
                                             static_cast<unsigned>(d.u(s.immr) & 63));
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

ExecOutcome execute_hl_bfi(arch::Machine& m, const DecodedInsn& d) {  // InsertBitfield
  constexpr ScalarFormSlots s = slots_of(M::HL_BFI);
  arch::State& st = m.state;
  const Word result = insert_bitfield(read_source<s.src_l>(st, d), read_source<s.src_r>(st, d),
                                      static_cast<unsigned>(d.u(s.immr) & 63), static_cast<unsigned>(d.u(s.imms) & 63));
  write_destination<s.reg_dst>(st, d, result);
  return ExecOutcome::Next;
}

// CSEL: SrcP != 0 ? SrcL : Select(SrcR) where SrcRType 11 negates
// (DecodeScalarSelectRightModifier + ApplySelectModifier).
ExecOutcome execute_csel(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(M::CSEL);
  arch::State& st = m.state;
  const Word right = read_source<s.src_r>(st, d);
  const Word selected_false = (d.u(s.src_r_type) & 3) == 3 ? Word{0} - right : right;
  write_destination<s.reg_dst>(
      st, d, scalar_conditional_select(read_source<s.src_p>(st, d), read_source<s.src_l>(st, d), selected_false));
  return ExecOutcome::Next;
}

// LUI / HL.LUI / HL.LIS / HL.LIU / C.MOVI: RegDst = Fn(immediate).
template <M Mn, Word (*Fn)(Word)>
ExecOutcome execute_materialize(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  write_destination<s.reg_dst>(m.state, d, Fn(field_word<s.imm>(d)));
  return ExecOutcome::Next;
}

// MoveScalarValue
constexpr Word move_scalar_value(Word value) { return value; }

ExecOutcome execute_c_movr(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(M::C_MOVR);
  write_destination<s.reg_dst>(m.state, d, move_scalar_value(read_source<s.src_l>(m.state, d)));
  return ExecOutcome::Next;
}

// C.SEXT.* / C.ZEXT.*: ExtendScalarValue pushed to T.
template <M Mn, unsigned Width, bool Signed>
ExecOutcome execute_compressed_extend(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  m.state.t_queue.push(extend_scalar_value(read_source<s.src_l>(m.state, d), Width, Signed));
  return ExecOutcome::Next;
}

// C.SETRET: SetReturnAddress(uimm5): ra (GPR 10) and _ReturnAddress = TPC + 2*uimm5.
ExecOutcome execute_c_setret(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(M::C_SETRET);
  arch::State& st = m.state;
  const Word target = st.pc + (field_word<s.imm>(d) << 1);
  st.write_gpr(arch::kRegRa, target);
  st.return_address = target;
  return ExecOutcome::Next;
}

// ---- register-only fast variants (predecode installs them through
// alu_register_only_variant when every operand is a GPR and the destination
// is not R0): the same results without the Reg5 queue cases. ----

// execute_binary with SrcRType 11 (no modifier): right = SrcR << shamt.
template <M Mn, BinaryOp Op, bool WordOperation>
ExecOutcome execute_binary_gprs(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  auto& gpr = m.state.gpr[m.state.current_pe];
  const Word right = gpr[d.reg(s.src_r)] << (d.u(s.shamt) & 63u);
  gpr[d.reg(s.reg_dst)] = binary_operation<Op, WordOperation>(gpr[d.reg(s.src_l)], right);
  return ExecOutcome::Next;
}

template <M Mn, BinaryOp Op, bool WordOperation>
ExecOutcome execute_immediate_binary_gprs(arch::Machine& m, const DecodedInsn& d) {
  constexpr ScalarFormSlots s = slots_of(Mn);
  constexpr int kRight = s.imm >= 0 ? s.imm : s.shamt;
  auto& gpr = m.state.gpr[m.state.current_pe];
  gpr[d.reg(s.reg_dst)] = binary_operation<Op, WordOperation>(gpr[d.reg(s.src_l)], field_word<kRight>(d));
  return ExecOutcome::Next;
}

struct RegisterOnlyVariant {
  M mnemonic;
  ScalarFormSlots slots;
  Handler handler;
  RegisterOp::Kind kind;
  BinaryOp op;
  bool word;
};

template <M Mn, BinaryOp Op, bool W>
constexpr RegisterOnlyVariant binary_gprs = {
    Mn, slots_of(Mn), &execute_binary_gprs<Mn, Op, W>, RegisterOp::Kind::Binary, Op, W};
template <M Mn, BinaryOp Op, bool W>
constexpr RegisterOnlyVariant immediate_gprs = {
    Mn, slots_of(Mn), &execute_immediate_binary_gprs<Mn, Op, W>, RegisterOp::Kind::BinaryImmediate, Op, W};

constexpr RegisterOnlyVariant kRegisterOnlyVariants[] = {
    binary_gprs<M::ADD, BinaryOp::ADD, false>,       binary_gprs<M::ADDW, BinaryOp::ADD, true>,
    binary_gprs<M::SUB, BinaryOp::SUB, false>,       binary_gprs<M::SUBW, BinaryOp::SUB, true>,
    binary_gprs<M::AND, BinaryOp::AND, false>,       binary_gprs<M::ANDW, BinaryOp::AND, true>,
    binary_gprs<M::OR, BinaryOp::OR, false>,         binary_gprs<M::ORW, BinaryOp::OR, true>,
    binary_gprs<M::XOR, BinaryOp::XOR, false>,       binary_gprs<M::XORW, BinaryOp::XOR, true>,
    immediate_gprs<M::ADDI, BinaryOp::ADD, false>,   immediate_gprs<M::ADDIW, BinaryOp::ADD, true>,
    immediate_gprs<M::SUBI, BinaryOp::SUB, false>,   immediate_gprs<M::SUBIW, BinaryOp::SUB, true>,
    immediate_gprs<M::ANDI, BinaryOp::AND, false>,   immediate_gprs<M::ANDIW, BinaryOp::AND, true>,
    immediate_gprs<M::ORI, BinaryOp::OR, false>,     immediate_gprs<M::ORIW, BinaryOp::OR, true>,
    immediate_gprs<M::XORI, BinaryOp::XOR, false>,   immediate_gprs<M::XORIW, BinaryOp::XOR, true>,
    immediate_gprs<M::HL_ADDI, BinaryOp::ADD, false>, immediate_gprs<M::HL_ADDIW, BinaryOp::ADD, true>,
    immediate_gprs<M::HL_SUBI, BinaryOp::SUB, false>, immediate_gprs<M::HL_SUBIW, BinaryOp::SUB, true>,
    immediate_gprs<M::HL_ANDI, BinaryOp::AND, false>, immediate_gprs<M::HL_ANDIW, BinaryOp::AND, true>,
    immediate_gprs<M::HL_ORI, BinaryOp::OR, false>,  immediate_gprs<M::HL_ORIW, BinaryOp::OR, true>,
    immediate_gprs<M::HL_XORI, BinaryOp::XOR, false>, immediate_gprs<M::HL_XORIW, BinaryOp::XOR, true>,
    immediate_gprs<M::SLLI, BinaryOp::SLL, false>,   immediate_gprs<M::SLLIW, BinaryOp::SLL, true>,
    immediate_gprs<M::SRLI, BinaryOp::SRL, false>,   immediate_gprs<M::SRLIW, BinaryOp::SRL, true>,
    immediate_gprs<M::SRAI, BinaryOp::SRA, false>,   immediate_gprs<M::SRAIW, BinaryOp::SRA, true>,
};

// The variant's precondition: sources are GPRs (never t#/u#), the
// destination a GPR other than R0 (writes to R0 and 24..29 are discarded,
// 30/31 push), and a register right operand has no modifier.
bool register_only_operands(const ScalarFormSlots& s, const DecodedInsn& d) {
  auto gpr = [&d](int slot) { return slot < 0 || d.reg(static_cast<unsigned>(slot)) < arch::kAbsoluteGprCount; };
  const bool unmodified = s.src_r_type < 0 || kBinaryRightModifier[d.u(static_cast<unsigned>(s.src_r_type)) & 3] ==
                                                  RightModifier::None;
  return gpr(s.src_l) && gpr(s.src_r) && s.reg_dst >= 0 && gpr(s.reg_dst) &&
         d.reg(static_cast<unsigned>(s.reg_dst)) != 0 && unmodified;
}

template <M Mn, BinaryOp Op, bool Logical, bool W>
constexpr HandlerEntry binary = {Mn, &execute_binary<Mn, Op, Logical, W>};
template <M Mn, BinaryOp Op, bool W>
constexpr HandlerEntry immediate = {Mn, &execute_immediate_binary<Mn, Op, W>};
template <M Mn, BinaryFn Fn>
constexpr HandlerEntry reg_binary = {Mn, &execute_register_binary<Mn, Fn>};
template <M Mn, BinaryOp Op>
constexpr HandlerEntry compressed = {Mn, &execute_compressed_binary<Mn, Op>};
template <M Mn, PairFn Fn>
constexpr HandlerEntry pair = {Mn, &execute_pair<Mn, Fn>};
template <M Mn, Word (*Fn)(Word)>
constexpr HandlerEntry materialize = {Mn, &execute_materialize<Mn, Fn>};
template <M Mn, unsigned Width, bool Signed>
constexpr HandlerEntry extend = {Mn, &execute_compressed_extend<Mn, Width, Signed>};

using B = BinaryOp;

constexpr HandlerEntry kAluHandlers[] = {
    binary<M::ADD, B::ADD, false, false>, binary<M::ADDW, B::ADD, false, true>,
    binary<M::SUB, B::SUB, false, false>, binary<M::SUBW, B::SUB, false, true>,
    binary<M::AND, B::AND, true, false>,  binary<M::ANDW, B::AND, true, true>,
    binary<M::OR, B::OR, true, false>,    binary<M::ORW, B::OR, true, true>,
    binary<M::XOR, B::XOR, true, false>,  binary<M::XORW, B::XOR, true, true>,

    immediate<M::ADDI, B::ADD, false>,    immediate<M::ADDIW, B::ADD, true>,
    immediate<M::SUBI, B::SUB, false>,    immediate<M::SUBIW, B::SUB, true>,
    immediate<M::ANDI, B::AND, false>,    immediate<M::ANDIW, B::AND, true>,
    immediate<M::ORI, B::OR, false>,      immediate<M::ORIW, B::OR, true>,
    immediate<M::XORI, B::XOR, false>,    immediate<M::XORIW, B::XOR, true>,
    immediate<M::HL_ADDI, B::ADD, false>, immediate<M::HL_ADDIW, B::ADD, true>,
    immediate<M::HL_SUBI, B::SUB, false>, immediate<M::HL_SUBIW, B::SUB, true>,
    immediate<M::HL_ANDI, B::AND, false>, immediate<M::HL_ANDIW, B::AND, true>,
    immediate<M::HL_ORI, B::OR, false>,   immediate<M::HL_ORIW, B::OR, true>,
    immediate<M::HL_XORI, B::XOR, false>, immediate<M::HL_XORIW, B::XOR, true>,
    immediate<M::SLLI, B::SLL, false>,    immediate<M::SLLIW, B::SLL, true>,
    immediate<M::SRLI, B::SRL, false>,    immediate<M::SRLIW, B::SRL, true>,
    immediate<M::SRAI, B::SRA, false>,    immediate<M::SRAIW, B::SRA, true>,

    reg_binary<M::SLL, binary_operation<B::SLL, false>>, reg_binary<M::SLLW, binary_operation<B::SLL, true>>,
    reg_binary<M::SRL, binary_operation<B::SRL, false>>, reg_binary<M::SRLW, binary_operation<B::SRL, true>>,
    reg_binary<M::SRA, binary_operation<B::SRA, false>>, reg_binary<M::SRAW, binary_operation<B::SRA, true>>,
    reg_binary<M::MIN, binary_operation<B::MIN, false>>, reg_binary<M::MINU, binary_operation<B::MINU, false>>,
    reg_binary<M::MAX, binary_operation<B::MAX, false>>, reg_binary<M::MAXU, binary_operation<B::MAXU, false>>,
    reg_binary<M::DIV, scalar_divide_signed>,            reg_binary<M::DIVU, scalar_divide_unsigned>,
    reg_binary<M::DIVW, scalar_divide_signed_w>,         reg_binary<M::DIVUW, scalar_divide_unsigned_w>,
    reg_binary<M::REM, scalar_remainder_signed>,         reg_binary<M::REMU, scalar_remainder_unsigned>,
    reg_binary<M::REMW, scalar_remainder_signed_w>,      reg_binary<M::REMUW, scalar_remainder_unsigned_w>,
    reg_binary<M::MUL, multiply_word>,                   reg_binary<M::MULU, multiply_word>,
    reg_binary<M::MULW, scalar_multiply_w>,              reg_binary<M::MULUW, scalar_multiply_w>,

    compressed<M::C_ADD, B::ADD>,  compressed<M::C_SUB, B::SUB>, compressed<M::C_AND, B::AND>,
    compressed<M::C_OR, B::OR>,    compressed<M::C_ADDI, B::ADD>, compressed<M::C_SLLI, B::SLL>,
    compressed<M::C_SRLI, B::SRL>,

    {M::MADD, &execute_multiply_add<M::MADD, scalar_multiply_add>},
    {M::MADDW, &execute_multiply_add<M::MADDW, scalar_multiply_add_w>},

    pair<M::HL_MUL, multiply_pair<true>>,
    pair<M::HL_MULU, multiply_pair<false>>,
    pair<M::HL_DIV, divide_pair<scalar_divide_signed, scalar_remainder_signed, false>>,
    pair<M::HL_DIVU, divide_pair<scalar_divide_unsigned, scalar_remainder_unsigned, false>>,
    pair<M::HL_DIVW, divide_pair<scalar_divide_signed_w, scalar_remainder_signed_w, false>>,
    pair<M::HL_DIVUW, divide_pair<scalar_divide_unsigned_w, scalar_remainder_unsigned_w, false>>,
    pair<M::HL_REM, divide_pair<scalar_divide_signed, scalar_remainder_signed, true>>,
    pair<M::HL_REMU, divide_pair<scalar_divide_unsigned, scalar_remainder_unsigned, true>>,
    pair<M::HL_REMW, divide_pair<scalar_divide_signed_w, scalar_remainder_signed_w, true>>,
    pair<M::HL_REMUW, divide_pair<scalar_divide_unsigned_w, scalar_remainder_unsigned_w, true>>,
    {M::HL_MADD, &execute_multiply_add_pair<M::HL_MADD, false>},
    {M::HL_MADDW, &execute_multiply_add_pair<M::HL_MADDW, true>},
    {M::HL_CCAT, &execute_concatenate<M::HL_CCAT, concatenate_shift>},
    {M::HL_CCATW, &execute_concatenate<M::HL_CCATW, concatenate_shift_w>},
    {M::HL_MIADD, &execute_multiply_immediate_add<M::HL_MIADD, false>},
    {M::HL_MISUB, &execute_multiply_immediate_add<M::HL_MISUB, true>},

    {M::BXS, &execute_extract_bitfield<M::BXS, true>},
    {M::BXU, &execute_extract_bitfield<M::BXU, false>},
    {M::CLZ, &execute_count_bitfield<M::CLZ, BitCount::LeadingZeros>},
    {M::CTZ, &execute_count_bitfield<M::CTZ, BitCount::TrailingZeros>},
    {M::BCNT, &execute_count_bitfield<M::BCNT, BitCount::Population>},
    {M::BIC, &execute_modify_bitfield<M::BIC, false>},
    {M::BIS, &execute_modify_bitfield<M::BIS, true>},
    {M::REV, &execute_rev},
    {M::HL_BFI, &execute_hl_bfi},
    {M::CSEL, &execute_csel},

    materialize<M::LUI, materialize_lui>,
    materialize<M::HL_LUI, materialize_long_upper>,
    materialize<M::HL_LIS, materialize_long_signed>,
    materialize<M::HL_LIU, materialize_long_unsigned>,
    materialize<M::C_MOVI, move_scalar_value>,
    {M::C_MOVR, &execute_c_movr},
    extend<M::C_SEXT_B, 8, true>,  extend<M::C_ZEXT_B, 8, false>,
    extend<M::C_SEXT_H, 16, true>, extend<M::C_ZEXT_H, 16, false>,
    extend<M::C_SEXT_W, 32, true>, extend<M::C_ZEXT_W, 32, false>,
    {M::C_SETRET, &execute_c_setret},
    // C.SETC.TGT (SetCompressedCommitTarget) belongs to the block layer.
};

}  // namespace

std::span<const HandlerEntry> alu_handlers() { return kAluHandlers; }

Handler alu_register_only_variant(const DecodedInsn& d) {
  for (const RegisterOnlyVariant& v : kRegisterOnlyVariants) {
    if (v.mnemonic == d.mnemonic) return register_only_operands(v.slots, d) ? v.handler : nullptr;
  }
  return nullptr;
}

std::optional<RegisterOp> alu_register_op(const DecodedInsn& d) {
  for (const RegisterOnlyVariant& v : kRegisterOnlyVariants) {
    if (v.handler != d.handler) continue;
    const ScalarFormSlots& s = v.slots;
    RegisterOp op;
    op.kind = v.kind;
    op.op = v.op;
    op.word = v.word;
    op.dst = static_cast<std::uint8_t>(d.reg(static_cast<unsigned>(s.reg_dst)));
    op.left = static_cast<std::uint8_t>(d.reg(static_cast<unsigned>(s.src_l)));
    if (v.kind == RegisterOp::Kind::Binary) {
      op.right = static_cast<std::uint8_t>(d.reg(static_cast<unsigned>(s.src_r)));
      op.shamt = static_cast<std::uint8_t>(d.u(static_cast<unsigned>(s.shamt)) & 63u);
    } else {
      // The right operand execute_immediate_binary_gprs reads: the
      // immediate, or the shift amount of the shift-immediate forms.
      op.imm = d.u(static_cast<unsigned>(s.imm >= 0 ? s.imm : s.shamt));
    }
    return op;
  }
  return std::nullopt;
}

}  // namespace pto::scalar
