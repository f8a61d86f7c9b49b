#include "runner/translator.hpp"

#include <array>
#include <cstddef>
#include <vector>

#if defined(PTO_HAVE_XBYAK)
#include <xbyak/xbyak.h>
#endif

namespace pto::runner {

#if defined(PTO_HAVE_XBYAK)

namespace {

using arch::Word;
using scalar::BinaryOp;
using scalar::RegisterOp;
using Kind = RegisterOp::Kind;

// The helpers translated code calls for what it does not inline: the
// slow half of Memory::read_aligned (a page other than the last one read)
// and the whole of Machine::store_fast.
Word read_aligned(const arch::Memory* memory, Word address, unsigned size) {
  return memory->read_aligned(address, size);
}
bool store_fast(arch::Machine* m, Word address, unsigned size, Word value) {
  return m->store_fast(address, size, value);
}

// The W forms have no MIN/MAX (ScalarBinaryW, scalar/alu_semantics.hpp).
bool translatable(const RegisterOp& op) {
  if (op.kind == Kind::Fsu || op.kind == Kind::CommitTarget) return true;
  if (op.kind == Kind::Load || op.kind == Kind::Store) return op.size == 1 || op.size == 2 || op.size == 4 || op.size == 8;
  switch (op.op) {
    case BinaryOp::MIN:
    case BinaryOp::MINU:
    case BinaryOp::MAX:
    case BinaryOp::MAXU: return !op.word;
    default: return true;
  }
}

bool fits_int32(Word v) {
  const auto s = static_cast<std::int64_t>(v);
  return s >= INT32_MIN && s <= INT32_MAX;
}

// The passes of one fused block as x86-64 code, one small sequence per
// RegisterOp computing exactly what its RegisterOpFn computes.
//
// Registers: rbx the GPR file, r12 the PassContext, r13 the SETC's result
// (all callee-saved, so they survive helper calls); rax, rcx, rdx and the
// argument registers are scratch.  GPRs live in memory (gpr[n] at
// rbx + 8n): the code is a straight line of loads and stores the host
// forwards, with no register allocation to get wrong.
class PassCode final : public TranslatedBlock, private Xbyak::CodeGenerator {
 public:
  PassCode(arch::Machine& m, const FusedBlockShape& b)
      : Xbyak::CodeGenerator(code_bytes(b), Xbyak::DontSetProtectRWE), m_(m), b_(b) {
    emit();
    setProtectModeRE();
    fn_ = getCode<std::uint64_t (*)(PassContext*)>();
  }

  PassExit run(PassContext& ctx) const override {
    const std::uint64_t r = fn_(&ctx);
    return {static_cast<std::uint32_t>(r), (r >> 32) != 0};
  }

  arch::Word start() const override { return b_.start; }

  void link(const TranslatedBlock& to, std::uint64_t epoch) const override {
    // The only TranslatedBlock there is.
    const auto& target = static_cast<const PassCode&>(to);
    const Link made{epoch, target.entry_, target.b_.count, target.b_.start};
    if (target.b_.start == b_.start) return;  // a pass committing to its own start loops
    if (keyed_links()) {
      links_[return_slot(target.b_.start)] = made;
      return;
    }
    for (std::size_t k = 0; k < successor_count(); ++k) {
      if (successor(k) == target.b_.start) links_[k] = made;
    }
  }

 private:
  static std::size_t code_bytes(const FusedBlockShape& b) {
    return 640 + (b.return_target ? 32 : 0) + (b.returns ? 128 : 0) + (sets_target(b) ? 192 : 0) +
           192 * b.body.size();
  }
  static bool sets_target(const FusedBlockShape& b) { return b.target_taken || b.target_not_taken; }
  // Links keyed by the run-time commit PC: a RET's, or a SETC.TGT's.
  bool keyed_links() const { return b_.returns || sets_target(b_); }

  // Where a pass may chain.  A block with constant commit PCs: [0] the
  // commit PC with BARG.taken clear, [1] with it set (a COND block's SETC).
  // A RET block: a direct-mapped cache of its run-time targets
  // (return_slot), each link valid for its own `target` only.
  struct Link {
    std::uint64_t epoch = ~std::uint64_t{0};  // no link (the executor's epoch never gets there)
    const std::uint8_t* entry = nullptr;      // the target's pass loop, after its prologue
    std::uint64_t count = 0;                  // the target's attempts per pass
    Word target = 0;                          // the target's start
  };
  static constexpr std::size_t kLinkSlots = 4;  // a power of two
  static_assert(sizeof(Link) == 32, "emit_return_chain scales the slot index by 32");
  static std::size_t return_slot(Word target) { return (target >> 1) & (kLinkSlots - 1); }
  Word successor(std::size_t k) const { return k == 0 ? b_.commit_not_taken : b_.commit_taken; }
  std::size_t successor_count() const { return b_.split < b_.body.size() ? 2 : 1; }

  template <typename T>
  static std::uint64_t address(const T* p) {
    return reinterpret_cast<std::uint64_t>(p);
  }
  Xbyak::Address gpr(unsigned n) { return qword[rbx + 8 * n]; }
  Xbyak::Address context(std::size_t offset) { return qword[r12 + static_cast<std::uint32_t>(offset)]; }
  // `call` through rax: the helpers are not within rel32 of the code buffer.
  void call_helper(std::uint64_t function) {
    mov(rax, function);
    call(rax);
  }

  void emit() {
    // The return address and three pushes keep calls 16-byte aligned.
    for (const Xbyak::Reg64& r : {rbx, r12, r13}) push(r);
    mov(r12, rdi);
    mov(rbx, context(offsetof(PassContext, gpr)));

    Xbyak::Label pass, completed, before_start, epilogue;
    std::vector<Xbyak::Label> leave(b_.body.size() + 1);  // [body.size()]: before the BSTOP
    L(pass);
    if (b_.returns) emit_return_check(before_start);
    if (b_.return_target) emit_return_address(*b_.return_target);
    xor_(r13d, r13d);  // BARG.taken: clear unless a COND block's SETC sets it
    const auto body_count = static_cast<std::uint32_t>(b_.body.size());
    for (std::uint32_t i = 0; i < body_count; ++i) {
      if (i == b_.split) emit_condition();
      else emit_op(b_.body[i], leave[i]);
    }
    Xbyak::Label chain;
    emit_pass_end(pass, chain, completed, leave[body_count]);
    L(chain);
    emit_chain(completed);

    L(completed);
    mov(eax, PassExit::kCompleted);
    jmp(epilogue, T_NEAR);
    if (b_.returns) {
      L(before_start);
      mov(eax, PassExit::kBeforeStart);
      jmp(epilogue, T_NEAR);
    }
    for (std::uint32_t i = 0; i <= body_count; ++i) {
      // The SETC's slot never leaves; body_count is the exit before the BSTOP.
      if (i == body_count ? !sets_target(b_) : i == b_.split) continue;
      L(leave[i]);
      mov(eax, i);
      mov(rdx, r13);
      shl(rdx, 32);
      or_(rax, rdx);
      jmp(epilogue, T_NEAR);
    }
    L(epilogue);
    mov(rcx, address(static_cast<const TranslatedBlock*>(this)));
    mov(context(offsetof(PassContext, block)), rcx);
    for (const Xbyak::Reg64& r : {r13, r12, rbx}) pop(r);
    ret();
    entry_ = pass.getAddress();
  }

  // rax = a commit PC other than the start.  A live link for it whose
  // target's whole pass fits the budget: jump into the target's pass loop
  // (every block keeps rbx, r12 and r13 and the same stack frame, so its
  // epilogue returns for this one); else leave.
  void emit_chain(Xbyak::Label& completed) {
    if (b_.link_epoch == nullptr) return;
    if (keyed_links()) {
      emit_return_chain(completed);
      return;
    }
    for (std::size_t k = 0; k < successor_count(); ++k) {
      if (successor(k) == b_.start) continue;
      Xbyak::Label other;
      mov(rcx, successor(k));
      cmp(rax, rcx);
      jne(other, T_NEAR);
      mov(rdx, address(&links_[k]));
      emit_follow_link(completed);
      L(other);
    }
  }

  // rax = a run-time commit PC (a RET's or a SETC.TGT's; not the start):
  // the link in its slot, when made for that very target.
  void emit_return_chain(Xbyak::Label& completed) {
    mov(rdx, rax);
    shr(rdx, 1);
    and_(edx, static_cast<std::uint32_t>(kLinkSlots - 1));
    shl(rdx, 5);
    mov(rcx, address(links_.data()));
    add(rdx, rcx);
    cmp(rax, qword[rdx + offsetof(Link, target)]);
    jne(completed, T_NEAR);
    emit_follow_link(completed);
  }

  // rdx = a Link for the commit PC: jump through it while its epoch holds
  // and the budget holds a whole pass of its target; else leave.
  void emit_follow_link(Xbyak::Label& completed) {
    mov(rcx, address(b_.link_epoch));
    mov(rcx, qword[rcx]);
    cmp(rcx, qword[rdx + offsetof(Link, epoch)]);
    jne(completed, T_NEAR);
    mov(rcx, context(offsetof(PassContext, max_steps)));
    sub(rcx, context(offsetof(PassContext, steps)));
    cmp(rcx, qword[rdx + offsetof(Link, count)]);
    jb(completed, T_NEAR);
    jmp(qword[rdx + offsetof(Link, entry)]);
  }

  // A RET's start reads _ReturnAddress and faults when it is odd, before
  // any effect (asl/block/model/dispatch/start.asl): that pass does not
  // begin here.
  void emit_return_check(Xbyak::Label& before_start) {
    mov(rcx, address(&m_.state.return_address));
    test(byte[rcx], 1);
    jnz(before_start, T_NEAR);
  }

  // A CALL's start (BeginBundleAt): _ReturnAddress and ra = the return target.
  void emit_return_address(Word return_target) {
    mov(rax, return_target);
    mov(gpr(arch::kRegRa), rax);
    mov(rcx, address(&m_.state.return_address));
    mov(qword[rcx], rax);
  }

  // The SETC: its condition, kept for the commit, and _CommitArgument.
  void emit_condition() {
    if (b_.test) {
      emit_test(*b_.test);
    } else {
      mov(rdi, address(&m_.state));
      mov(rsi, address(b_.condition_insn));
      call_helper(reinterpret_cast<std::uint64_t>(b_.condition));
    }
    movzx(r13d, al);
    mov(rcx, address(&m_.state.commit_argument));
    mov(qword[rcx], r13);
  }

  // al = the SETC's test (block::CommitTest): ConditionHolds by compare and
  // SETcc, the logical forms by AND/OR and SETNZ.
  void emit_test(const block::CommitTest& t) {
    mov(rax, gpr(t.left));
    if (t.right_is_register) {
      mov(rcx, gpr(t.right));
      if (t.right_type == 1) movsxd(rcx, ecx);
      if (t.right_type == 2) mov(ecx, ecx);
      if (t.right_type == 3 && t.logical) not_(rcx);
    } else {
      mov(rcx, t.immediate);
    }
    if (t.logical) {
      if (t.combine_or) or_(rax, rcx);
      else and_(rax, rcx);
      setnz(al);
      return;
    }
    cmp(rax, rcx);
    switch (t.condition) {
      case block::Condition::EQ: sete(al); break;
      case block::Condition::NE: setne(al); break;
      case block::Condition::LT: setl(al); break;
      case block::Condition::GE: setge(al); break;
      case block::Condition::LTU: setb(al); break;
      case block::Condition::GEU: setae(al); break;
    }
  }

  // Time, steps and passes advanced by a whole pass; the commit; the next
  // pass while it returns to the start and the budget holds it; a commit
  // elsewhere goes to `chain`.
  void emit_pass_end(Xbyak::Label& pass, Xbyak::Label& chain, Xbyak::Label& completed, Xbyak::Label& before_stop) {
    if (b_.returns) {
      // No body op writes _ReturnAddress: the target the start read.
      mov(rcx, address(&m_.state.return_address));
      mov(rax, qword[rcx]);
    } else {
      mov(rax, b_.commit_not_taken);
    }
    if (b_.split < b_.body.size()) {
      mov(rcx, b_.commit_taken);
      test(r13, r13);
      cmovnz(rax, rcx);
    }
    if (sets_target(b_)) emit_commit_target(before_stop);
    mov(rcx, address(&m_.state.sysregs.cycle));
    add(qword[rcx], b_.count);
    add(context(offsetof(PassContext, steps)), b_.count);
    add(context(offsetof(PassContext, passes)), 1);
    mov(rcx, address(&m_.state.pc));
    mov(qword[rcx], rax);
    mov(rcx, b_.start);
    cmp(rax, rcx);
    jne(chain, T_NEAR);
    mov(rax, context(offsetof(PassContext, max_steps)));
    sub(rax, context(offsetof(PassContext, steps)));
    cmp(rax, b_.count);
    jb(completed, T_NEAR);
    jmp(pass, T_NEAR);
  }

  // rax = the constant commit PC: BARG.bpcn as the SETC.TGT wrote it when
  // the transfer selects BPCN (BARGCommitPC, asl/block/model/state/barg.asl);
  // an odd one leaves before the BSTOP (commit/validation.asl), else BARG
  // is cleared as StopBundleAt clears it.
  void emit_commit_target(Xbyak::Label& before_stop) {
    mov(rcx, address(&m_.state.block.barg.bpcn));
    mov(rdx, qword[rcx]);
    if (b_.target_not_taken) {
      mov(rax, rdx);
    } else {
      test(r13, r13);
      cmovnz(rax, rdx);
    }
    test(al, 1);
    jnz(before_stop, T_NEAR);
    mov(qword[rcx], 0);
  }

  void emit_op(const RegisterOp& op, Xbyak::Label& leave) {
    switch (op.kind) {
      case Kind::Binary:
      case Kind::BinaryImmediate: emit_binary(op); break;
      case Kind::Load: emit_load(op, leave); break;
      case Kind::Store: emit_store(op, leave); break;
      case Kind::Fsu: emit_fsu(op); break;
      case Kind::CommitTarget:  // SetCommitTarget: BARG.bpcn = the register
        mov(rax, gpr(op.left));
        mov(rcx, address(&m_.state.block.barg.bpcn));
        mov(qword[rcx], rax);
        break;
    }
  }

  // An FSU record: what its handler computes inline when the op names it
  // for this machine's numeric profile (RegisterOp::FloatOp) and the
  // destination is a GPR other than R0; otherwise a call of the handler
  // itself, which reads and writes the GPRs in memory as the code does and
  // cannot fault or throw (src/scalar/fsu.cpp).
  void emit_fsu(const RegisterOp& op) {
    using FloatOp = RegisterOp::FloatOp;
    const bool reference = m_.config().numeric_profile == arch::NumericProfileKind::Reference;
    const bool inline_op = op.float_op != FloatOp::Handler && (reference || scalar::profile_free(op.float_op)) &&
                           op.dst != 0 && op.dst < arch::kAbsoluteGprCount;
    if (!inline_op) {
      mov(rdi, address(&m_));
      mov(rsi, address(op.insn));
      call_helper(reinterpret_cast<std::uint64_t>(op.insn->handler));
      return;
    }
    fsu_source(rax, op.left, op);
    switch (op.float_op) {
      case FloatOp::Abs: mov(rcx, op.imm), and_(rax, rcx); break;
      case FloatOp::Add: fsu_source(rcx, op.right, op), add(rax, rcx); break;
      case FloatOp::Sub: fsu_source(rcx, op.right, op), sub(rax, rcx); break;
      case FloatOp::Mul: fsu_source(rcx, op.right, op), imul(rax, rcx); break;
      case FloatOp::MAdd:
      case FloatOp::MSub:
      case FloatOp::NMAdd:
      case FloatOp::NMSub: emit_fused_product(op); break;
      case FloatOp::Increment: add(rax, 1); break;
      case FloatOp::Identity:
      case FloatOp::Handler: break;
    }
    fsu_result(op);
    mov(gpr(op.dst), rax);
  }

  // rax = left * right + or - the addend (index), negated for the N forms:
  // the reference profile's wrapping fused forms.
  void emit_fused_product(const RegisterOp& op) {
    using FloatOp = RegisterOp::FloatOp;
    fsu_source(rcx, op.right, op);
    imul(rax, rcx);
    fsu_source(rcx, op.index, op);
    if (op.float_op == FloatOp::MAdd || op.float_op == FloatOp::NMAdd) add(rax, rcx);
    else sub(rax, rcx);
    if (op.float_op == FloatOp::NMAdd || op.float_op == FloatOp::NMSub) neg(rax);
  }

  // r = gpr[n] normalised as the handler's source (its low in_bits, sign-
  // or zero-extended).
  void fsu_source(const Xbyak::Reg64& r, unsigned n, const RegisterOp& op) {
    mov(r, gpr(n));
    if (op.in_bits == 64) return;
    const Xbyak::Reg32 low(r.getIdx());
    if (op.in_signed) movsxd(r, low);
    else mov(low, low);
  }

  // rax normalised as the handler's result: its low out_bits, sign- or
  // zero-extended.
  void fsu_result(const RegisterOp& op) {
    const unsigned bits = op.out_bits;
    if (bits >= 64) return;
    if (op.out_signed) {
      shl(rax, 64 - bits);
      sar(rax, 64 - bits);
    } else if (bits == 32) {
      mov(eax, eax);
    } else if (bits < 32) {
      and_(eax, static_cast<std::uint32_t>((Word{1} << bits) - 1));
    } else {
      mov(rcx, (Word{1} << bits) - 1);
      and_(rax, rcx);
    }
  }

  // rcx = the right operand: gpr[right] << shamt, or the immediate.
  void right_operand(const RegisterOp& op) {
    if (op.kind == Kind::BinaryImmediate) {
      mov(rcx, op.imm);
      return;
    }
    mov(rcx, gpr(op.right));
    if (op.shamt != 0) shl(rcx, op.shamt);
  }

  // scalar_binary / scalar_binary_w (ScalarBinary, ScalarBinaryW).  x86
  // masks shift counts to 6 bits (5 for 32-bit operands) as the spec's
  // right[5:0] / right[4:0].
  void emit_binary(const RegisterOp& op) {
    right_operand(op);
    mov(rax, gpr(op.left));
    const Xbyak::Reg& l = op.word ? static_cast<const Xbyak::Reg&>(eax) : rax;
    const Xbyak::Reg& r = op.word ? static_cast<const Xbyak::Reg&>(ecx) : rcx;
    switch (op.op) {
      case BinaryOp::ADD: add(l, r); break;
      case BinaryOp::SUB: sub(l, r); break;
      case BinaryOp::AND: and_(l, r); break;
      case BinaryOp::OR: or_(l, r); break;
      case BinaryOp::XOR: xor_(l, r); break;
      case BinaryOp::SLL: shl(l, cl); break;
      case BinaryOp::SRL: shr(l, cl); break;
      case BinaryOp::SRA: sar(l, cl); break;
      case BinaryOp::MIN: cmp(rax, rcx), cmovg(rax, rcx); break;
      case BinaryOp::MINU: cmp(rax, rcx), cmova(rax, rcx); break;
      case BinaryOp::MAX: cmp(rax, rcx), cmovl(rax, rcx); break;
      case BinaryOp::MAXU: cmp(rax, rcx), cmovb(rax, rcx); break;
    }
    if (op.word) movsxd(rax, eax);
    mov(gpr(op.dst), rax);
  }

  // rax = the access address: left + imm, or left + (index << shamt).
  void access_address(const RegisterOp& op) {
    mov(rax, gpr(op.left));
    if (op.indexed) {
      mov(rcx, gpr(op.index));
      if (op.shamt != 0) shl(rcx, op.shamt);
      add(rax, rcx);
    } else if (fits_int32(op.imm)) {
      if (op.imm != 0) add(rax, static_cast<std::uint32_t>(op.imm));
    } else {
      mov(rcx, op.imm);
      add(rax, rcx);
    }
  }

  // Machine::load_fast (aligned, below fast_end), then Memory::read_aligned
  // inline on the page it read last; NormalizeScalarLoadResult.
  void emit_load(const RegisterOp& op, Xbyak::Label& leave) {
    access_address(op);
    if (op.size > 1) {
      test(al, op.size - 1);
      jnz(leave, T_NEAR);
    }
    mov(rcx, address(m_.fast_end_location()));
    cmp(rax, qword[rcx]);
    jae(leave, T_NEAR);
    Xbyak::Label miss, loaded;
    const arch::Memory::HotPage hot = m_.memory.hot_page();
    mov(rdx, rax);
    shr(rdx, arch::Memory::kPageBits);
    mov(rcx, address(hot.tag));
    cmp(rdx, qword[rcx]);
    jne(miss, T_NEAR);
    mov(rcx, address(hot.data));
    mov(rcx, qword[rcx]);
    and_(eax, static_cast<std::uint32_t>(arch::Memory::kPageMask));
    switch (op.size) {
      case 1: movzx(eax, byte[rcx + rax]); break;
      case 2: movzx(eax, word[rcx + rax]); break;
      case 4: mov(eax, dword[rcx + rax]); break;
      default: mov(rax, qword[rcx + rax]); break;
    }
    L(loaded);
    if (op.sign) {
      switch (op.size) {
        case 1: movsx(rax, al); break;
        case 2: movsx(rax, ax); break;
        case 4: movsxd(rax, eax); break;
        default: break;
      }
    }
    mov(gpr(op.dst), rax);
    // The other page, out of line: read_aligned returns the bytes zero-extended.
    Xbyak::Label after;
    jmp(after, T_NEAR);
    L(miss);
    mov(rdi, address(&m_.memory));
    mov(rsi, rax);
    mov(edx, op.size);
    call_helper(reinterpret_cast<std::uint64_t>(&read_aligned));
    jmp(loaded, T_NEAR);
    L(after);
  }

  // Machine::store_fast; a store it declines leaves the fast path.
  void emit_store(const RegisterOp& op, Xbyak::Label& leave) {
    access_address(op);
    mov(rdi, address(&m_));
    mov(rsi, rax);
    mov(edx, op.size);
    mov(rcx, gpr(op.right));
    call_helper(reinterpret_cast<std::uint64_t>(&store_fast));
    test(al, al);
    jz(leave, T_NEAR);
  }

  arch::Machine& m_;
  FusedBlockShape b_;
  std::uint64_t (*fn_)(PassContext*) = nullptr;
  const std::uint8_t* entry_ = nullptr;  // the pass loop (label `pass`)
  mutable std::array<Link, kLinkSlots> links_{};
};

}  // namespace

std::unique_ptr<TranslatedBlock> translate_fused_block(arch::Machine& m, const FusedBlockShape& shape) {
  for (std::uint32_t i = 0; i < shape.body.size(); ++i) {
    if (i != shape.split && !translatable(shape.body[i])) return nullptr;
  }
  try {
    return std::make_unique<PassCode>(m, shape);
  } catch (const Xbyak::Error&) {
    return nullptr;  // no executable memory: the interpreter runs the block
  }
}

bool translation_supported() { return true; }

#else

std::unique_ptr<TranslatedBlock> translate_fused_block(arch::Machine&, const FusedBlockShape&) { return nullptr; }

bool translation_supported() { return false; }

#endif

}  // namespace pto::runner
