// Block control flow: BSTART/BSTOP and the block commit, B.HINT, B.CATR,
// frame templates, MCOPY/MSET and the scalar operations that steer a block
// (SETC.*, SETC.TGT, J, JR, SETRET, ADDTPC).  Sources: asl/block/model/**,
// asl/scalar/model/bru/semantics.asl, asl/scalar/model/sys/semantics.asl.
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "arch/machine.hpp"
#include "isa/catalog.hpp"
#include "scalar/execute.hpp"

namespace pto::block {

// Installs every handler this layer owns (see src/scalar/execute.hpp).
void register_block_handlers(scalar::HandlerTable& table);

// Header binding commands of the tile bundle engine (B.DATR, B.DIM, C.B.DIMI,
// B.IOR, B.IOT, B.IOS, B.FPATR).  Defined in src/block/bundle_headers.cpp,
// which the tile engineer owns.
void register_bundle_header_handlers(scalar::HandlerTable& table);

// ---- tile operations executed at the block commit ----
// Runs the tile operation the pending block selects (the
// ExecuteBundleTileOperation step of CompleteBundleAt).  Returns Next on
// success; on failure raises the fault itself (and rolls back) and returns
// Fault; NotImplemented stops the run.  The block state is still pending when
// it runs: the executor reads descriptor, bindings and attributes from
// Machine::state.block.
using TileOperationExecutor = scalar::ExecOutcome (*)(arch::Machine& m, isa::TileOp op);

class TileExecutorTable {
 public:
  bool set(isa::TileOp op, TileOperationExecutor e) {
    TileOperationExecutor& slot = table_[static_cast<std::size_t>(op)];
    if (slot != nullptr) return false;
    slot = e;
    return true;
  }
  TileOperationExecutor get(isa::TileOp op) const { return table_[static_cast<std::size_t>(op)]; }

 private:
  std::array<TileOperationExecutor, isa::kTileOpCount> table_{};
};

// Defined in src/block/tile_executors.cpp (the tile engineer's file).
void register_tile_operation_executors(TileExecutorTable& table);
const TileExecutorTable& tile_executor_table();

// The tile operation of the pending block's descriptor, if it selects one.
std::optional<isa::TileOp> pending_tile_operation(const arch::State& s);

// CompleteBundleAt(continuation) (asl/block/model/commit/validation.asl):
// validates the continuation, runs the tile operation, stops the block and
// raises the B.CATR post-commit trap.  TPC is the selected continuation on
// success.
scalar::ExecOutcome complete_bundle(arch::Machine& m, arch::Word continuation);

// BeginBundleAt (asl/block/model/lifecycle/begin.asl) as the spec's test
// helpers call it: Fault_BundleControl when a block is active,
// Fault_InstructionPC for an odd target.
void begin_bundle_at(arch::Machine& m, arch::Word start_pc, arch::BundleKind kind, arch::BundleTransfer transfer,
                     arch::Word target, arch::Word sequential, arch::Word return_target, bool taken);
// StopBundleAt (asl/block/model/lifecycle/enter-stop.asl): commit without
// the tile step; Fault_BundleControl when no block is active.
scalar::ExecOutcome stop_bundle_at(arch::Machine& m, arch::Word continuation);
// EnterBundleBody (test helper of the ASL; the run loop applies the body
// entry rule of docs/semantics-notes.md instead).
void enter_bundle_body(arch::Machine& m);
// ResetBundleControlState (asl/block/model/lifecycle/reset.asl), which also
// invalidates every trap context.
void reset_bundle_control(arch::State& s);

// ConditionHolds (asl/scalar/model/bru/semantics.asl).
enum class Condition : std::uint8_t { EQ, NE, LT, GE, LTU, GEU };
// Inline so a handler with a fixed condition folds the switch.
constexpr bool condition_holds(Condition c, arch::Word left, arch::Word right) {
  const auto sl = static_cast<std::int64_t>(left);
  const auto sr = static_cast<std::int64_t>(right);
  switch (c) {
    case Condition::EQ: return left == right;
    case Condition::NE: return left != right;
    case Condition::LT: return sl < sr;
    case Condition::GE: return sl >= sr;
    case Condition::LTU: return left < right;
    case Condition::GEU: return left >= right;
  }
  return false;
}

// ScalarOperationApplicable for a commit-condition setter (SETC.*): the body
// of an active COND block whose condition is not yet set.
inline bool commit_condition_setter_applicable(const arch::BlockState& b) {
  return b.bundle_active && b.bundle_body_active && b.barg.transfer_type == arch::BundleTransfer::Conditional &&
         !b.condition_set;
}

// BARGSelectsBPCN / BARGCommitPC (asl/block/model/state/barg.asl): the PC a
// block with this BARG commits to after `continuation`.
constexpr arch::Word commit_pc(const arch::BundleArgumentRegister& barg, arch::Word continuation) {
  switch (barg.transfer_type) {
    case arch::BundleTransfer::Direct:
    case arch::BundleTransfer::Call:
    case arch::BundleTransfer::Indirect:
    case arch::BundleTransfer::IndirectCall:
    case arch::BundleTransfer::Return: return barg.bpcn;
    case arch::BundleTransfer::Conditional: return barg.taken ? barg.bpcn : continuation;
    case arch::BundleTransfer::Fallthrough: return continuation;
  }
  return continuation;
}

// The commit condition a register-only SETC record computes (its sources
// all GPRs, its handler the self-admitting variant), or nullptr.  For the
// run loop's fused blocks, which know the SETC is applicable.
using CommitCondition = bool (*)(const arch::State& s, const scalar::DecodedInsn& d);
CommitCondition commit_condition_of(const scalar::DecodedInsn& d);

// The test such a record makes, spelled out for code that evaluates it
// inline (runner/translator): ConditionHolds(condition, left, right), or
// for SETC.AND/OR[I] (left AND / OR right) != 0 (ExecuteSetCommit,
// ExecuteSetCommitLogical).  The right operand is GPR `right` under its
// SrcRType modifier, or the shifted immediate.
struct CommitTest {
  bool logical = false, combine_or = false;
  Condition condition = Condition::EQ;
  std::uint8_t left = 0;
  bool right_is_register = false;
  std::uint8_t right = 0;
  std::uint8_t right_type = 0;  // SrcRType: 1 sign-extends the low word, 2 zero-extends it, 3 inverts (logical)
  arch::Word immediate = 0;
};
std::optional<CommitTest> commit_test_of(const scalar::DecodedInsn& d);

// A scalar BSTART bound to its PC (bind_to_pc) whose block the run loop may
// fuse: a STD or FP block with a fallthrough, direct, conditional or call
// transfer, whose targets are constants, or a return.  `target` is its BPCN
// (a return's is _ReturnAddress when it starts, checked even there:
// asl/block/model/dispatch/start.asl); a call's start also writes
// `return_target` to _ReturnAddress and GPR ra (BeginBundleAt,
// asl/block/model/lifecycle/begin.asl), the others no GPR.
struct BoundStart {
  arch::BundleTransfer transfer = arch::BundleTransfer::Fallthrough;
  arch::Word target = 0;
  arch::Word return_target = 0;
  bool writes_return_address() const { return transfer == arch::BundleTransfer::Call; }
  bool reads_return_address() const { return transfer == arch::BundleTransfer::Return; }
};
std::optional<BoundStart> fusable_bound_start(const scalar::DecodedInsn& d);
// The record is a BSTOP / C.BSTOP / L.BSTOP (ExecuteBundleStop).
bool is_block_stop(const scalar::DecodedInsn& d);

// A handler for this fully decoded record that checks the record's
// applicability itself (Fault_BundleControl before any effect), or nullptr.
// Predecode installs it when applicability is the only pre-check, so the
// dispatcher can skip the generic admission.  Defined in src/block/branch.cpp.
scalar::Handler self_admitting_variant(const scalar::DecodedInsn& d);

// Specialises a record for the PC it is cached at (the run loop's decode
// cache; a record so bound must only execute at `pc`): a scalar BSTART gets
// a handler with its targets precomputed.  Other records stay unchanged.
// Defined in src/block/start_stop.cpp.
void bind_to_pc(scalar::DecodedInsn& d, arch::Word pc);

// ExecuteSetCommit's effect: _CommitArgument, BARG.taken, condition marker.
inline void set_commit_condition(arch::State& s, bool holds) {
  s.commit_argument = holds ? 1 : 0;
  if (s.block.bundle_active) s.block.barg.taken = holds;
  s.block.condition_set = true;
}

// The tile engine's name for a tile-start selector (for messages).
const char* tile_operation_name(isa::TileOp op);

}  // namespace pto::block
