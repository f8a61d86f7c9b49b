// The translation tier: a fused loop block (docs/architecture.md "Fused loop
// blocks") compiled to host code, which runs its passes exactly as
// Executor::run_fused does through RegisterOp function pointers
// (docs/architecture.md "Translation tier").  x86-64 hosts with xbyak only;
// elsewhere translate_fused_block declines and the interpreter runs.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <span>

#include "arch/machine.hpp"
#include "block/control.hpp"
#include "scalar/register_op.hpp"

namespace pto::runner {

// What a pass of a fused loop block does (Executor::Fusion and its Run).
struct FusedBlockShape {
  // One op per body step; the SETC's slot (index split) is not executed.
  std::span<const scalar::RegisterOp> body;
  // The body index of a COND block's SETC, body.size() if none: ops
  // [0, split) run before its condition, (split, body.size()) after.
  std::uint32_t split = 0;
  block::CommitCondition condition = nullptr;
  const scalar::DecodedInsn* condition_insn = nullptr;
  // The same test spelled out (block::commit_test_of): evaluated inline
  // when present, else `condition` is called.
  std::optional<block::CommitTest> test;
  arch::Word start = 0;  // the BSTART's PC: passes go on while they commit to it
  // A CALL block's return target, written to _ReturnAddress and GPR ra at
  // the start of each pass (BeginBundleAt); absent for the other transfers.
  std::optional<arch::Word> return_target;
  // A RET block: each pass reads _ReturnAddress at its start, leaves before
  // the start (PassExit::kBeforeStart) when it is odd, and commits to it
  // (commit_taken / commit_not_taken unused); its links are keyed by that
  // run-time target.
  bool returns = false;
  // A SETC.TGT in the body (RegisterOp::Kind::CommitTarget) writes
  // BARG.bpcn, which the commit takes when BARG.taken is set
  // (target_taken) / clear (target_not_taken); an odd commit PC leaves
  // before the BSTOP, which faults on it (PassExit op = body.size()), and
  // the links are keyed by the run-time target as a RET block's.
  bool target_taken = false, target_not_taken = false;
  arch::Word commit_taken = 0, commit_not_taken = 0;
  std::uint32_t count = 0;  // attempts per pass: BSTART, body (SETC included), BSTOP
  // The executor's link epoch (Executor::link_epoch_): a link made by
  // TranslatedBlock::link is followed while this still holds the value it
  // was made at.  Null: the code never chains.
  const std::uint64_t* link_epoch = nullptr;
};

class TranslatedBlock;

// In and out of a translated block's passes.
struct PassContext {
  arch::Word* gpr = nullptr;  // the current PE's registers
  std::uint64_t steps = 0;    // attempts so far (advanced by count per whole pass)
  std::uint64_t max_steps = 0;
  std::uint64_t passes = 0;   // whole passes run
  // Out: the block whose code exited (another than the one entered when
  // its passes chained into it).
  const TranslatedBlock* block = nullptr;
};

// How a translated run of passes ended.
struct PassExit {
  static constexpr std::uint32_t kCompleted = ~std::uint32_t{0};
  static constexpr std::uint32_t kBeforeStart = kCompleted - 1;
  // kCompleted: the last whole pass committed elsewhere than the start, or
  // the budget holds no further pass.  kBeforeStart: a RET block's pass did
  // not begin, its start would fault (odd _ReturnAddress); nothing done.
  // Otherwise the body op (an index into FusedBlockShape::body) that left
  // the fast path, with no effect; body.size(): the pass's commit PC (a
  // SETC.TGT's) is odd, and the BSTOP would fault on it.
  std::uint32_t op = kCompleted;
  bool holds = false;  // the SETC's result in the pass that left
};

class TranslatedBlock {
 public:
  virtual ~TranslatedBlock() = default;
  // Passes while they return to the start and the budget holds a whole
  // pass (at least one pass runs); a pass committing to a block this one is
  // linked to goes on there while the link holds (docs/architecture.md
  // "Chaining fused blocks").
  virtual PassExit run(PassContext& ctx) const = 0;
  // The BSTART's PC (FusedBlockShape::start).
  virtual arch::Word start() const = 0;
  // After a whole pass that commits to `to`'s start (a commit PC other than
  // this block's start), continue in `to`'s code while `*link_epoch` equals
  // `epoch` and the budget holds a whole pass of `to` (a RET block: when its
  // run-time commit PC is `to`'s start; it keeps a few such links).  The caller
  // guarantees the link is exact for as long as the epoch holds.  Links are
  // a cache of the executor's directory, hence const.
  virtual void link(const TranslatedBlock& to, std::uint64_t epoch) const = 0;
};

// Host code for the block, or null when the host has no translator or the
// block holds an operation the translator does not cover.  The code embeds
// the addresses of `m`'s state: it runs on that machine only.
std::unique_ptr<TranslatedBlock> translate_fused_block(arch::Machine& m, const FusedBlockShape& shape);

// True when this build translates (x86-64 with xbyak).
bool translation_supported();

}  // namespace pto::runner
