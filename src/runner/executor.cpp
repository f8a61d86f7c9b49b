#include "runner/executor.hpp"

#include <fmt/format.h>

#include <cassert>
#include <cstdlib>
#include <new>
#include <type_traits>
#include <utility>

#include "block/bundle_engine.hpp"
#include "block/control.hpp"
#include "isa/length.hpp"

namespace pto::runner {
namespace {

using arch::FaultCode;
using arch::Machine;
using arch::Word;
using scalar::DecodedInsn;
using scalar::ExecOutcome;

// Fetch faults (docs/semantics-notes.md "Instruction fetch"): an odd TPC and
// a fetch outside the address space are cached like any decode result.
ExecOutcome instruction_pc_fault(Machine& m, const DecodedInsn&) {
  return m.set_fault(FaultCode::Fault_InstructionPC, m.state.pc);
}

ExecOutcome instruction_page_fault(Machine& m, const DecodedInsn&) {
  return m.set_fault(FaultCode::Fault_InstructionPage, m.state.pc);
}

// The host request's registers (PE 0's a7 and a0, as the reference runner
// reads them).
constexpr unsigned kHostRequestNumberGpr = 9;
constexpr unsigned kHostRequestArgumentGpr = 2;

DecodedInsn fetch_fault_record(scalar::Handler h) {
  DecodedInsn d;
  d.handler = h;
  return d;
}

}  // namespace

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::StopPc: return "stop-pc";
    case StopReason::HostRequest: return "host-request";
    case StopReason::MaxSteps: return "max-steps";
    case StopReason::Fault: return "fault";
    case StopReason::NotImplemented: return "not-implemented";
    case StopReason::HostLimit: return "host-limit";
  }
  return "?";
}

void Executor::FreeDeleter::operator()(void* p) const noexcept { std::free(p); }

template <typename T>
std::unique_ptr<T[], Executor::FreeDeleter> Executor::zeroed_table(std::size_t count) {
  static_assert(std::is_aggregate_v<T> && std::is_trivially_destructible_v<T>,
                "calloc'd memory holds implicitly created objects only for implicit-lifetime types");
  void* p = std::calloc(count, sizeof(T));
  if (p == nullptr) throw std::bad_alloc();
  return std::unique_ptr<T[], FreeDeleter>(static_cast<T*>(p));
}

namespace {

bool translation_by_default() {
  const char* off = std::getenv("PTO_NO_JIT");
  return off == nullptr || *off == '\0' || std::string_view(off) == "0";
}

}  // namespace

Executor::Executor(Machine& m)
    : m_(m),
      cache_(zeroed_table<Entry>(kCacheMask + 1)),
      runs_(zeroed_table<Run>(kRunMask + 1)),
      translate_(translation_by_default() && translation_supported()) {
  run_pool_.reserve(kRunPoolCapacity);  // fusions point into it
  m_.memory.set_code_write_hook(&Executor::on_code_write, this);
}

Executor::~Executor() { m_.memory.set_code_write_hook(nullptr, nullptr); }

void Executor::empty_decode_cache() {
  for (Word i = 0; i <= kCacheMask; ++i) cache_[i].key = kEmptyKey;
}

void Executor::flush_decode_cache() {
  empty_decode_cache();
  watched_valid_ = false;
  flush_runs();
}

void Executor::forget_runs() {
  ++link_epoch_;
  for (Word i = 0; i <= kRunMask; ++i) runs_[i].key = kEmptyKey;
}

void Executor::flush_runs() {
  forget_runs();
  run_pool_.clear();
  fusions_.clear();
  fused_ops_.clear();
}

void Executor::invalidate_runs(Word address, Word last) {
  // A run starts at most kMaxRunSpan + 8 bytes (its last step and the
  // lookahead halfword) before the last byte it covers; odd starts are
  // single fetch-fault steps, probed too.
  ++link_epoch_;
  const Word reach = kMaxRunSpan + 8;
  const Word first = address >= reach ? address - reach : 0;
  if (last - first >= 2 * (kRunMask + 1)) {
    forget_runs();  // the pool stays: a run may be executing from it
    return;
  }
  for (Word n = last - first + 1, pc = first; n > 0; --n, ++pc) {
    const Word i = run_index(pc);
    Run& run = runs_[i];
    if (run.key == run_key(pc) && pc <= last && address <= run.last) run.key = kEmptyKey;
  }
}

void Executor::on_code_write(void* self, Word address, Word size) {
  auto* ex = static_cast<Executor*>(self);
  if (size == 0) return;
  const Word last = address + (size - 1) < address ? ~Word{0} : address + (size - 1);
  if (ex->run_stop_ != 0 && ex->active_start_ <= last && address <= ex->active_last_) ex->run_stop_ = 0;
  ex->invalidate_runs(address, last);
  // An instruction starting up to 6 bytes before the write may cover it (or
  // look ahead into it for the fused-call length rule); decodes at odd PCs
  // are fetch faults that read nothing.
  const Word first = address >= 6 ? (address - 6) & ~Word{1} : 0;
  if (ex->watched_pc_ >= first && ex->watched_pc_ <= last) ex->watched_valid_ = false;
  if (last - first >= 2 * (kCacheMask + 1)) {
    ex->empty_decode_cache();
    return;
  }
  for (Word n = (last - first) / 2 + 1, pc = first; n > 0; --n, pc += 2) ex->evict(pc);
}

DecodedInsn Executor::fetch_and_decode(Word pc) {
  if (pc & 1) return fetch_fault_record(instruction_pc_fault);
  const arch::Memory& mem = m_.memory;
  const Word limit = mem.config().address_limit;
  auto halfword = [&](unsigned i) -> std::optional<std::uint16_t> {
    const Word a = pc + 2 * i;
    if (a < pc || a > limit - 2) return std::nullopt;
    return static_cast<std::uint16_t>(mem.read(a, 2));
  };
  const unsigned length = isa::instruction_length_bits(halfword);
  if (length == 0 || !mem.access_permitted(pc, length / 8, 0)) return fetch_fault_record(instruction_page_fault);
  std::uint64_t bits = 0;
  for (unsigned i = 0; i < length / 16; ++i) bits |= std::uint64_t{*halfword(i)} << (16 * i);
  return predecode(bits, length);
}

DecodedInsn Executor::decode_at(Word pc) {
  ++misses_;
  DecodedInsn d = fetch_and_decode(pc);
  block::bind_to_pc(d, pc);
  if (d.length_bytes != 0) {
    m_.memory.mark_code_page(pc);
    m_.memory.mark_code_page(pc + d.length_bytes + 1);  // lookahead halfword
  }
  return d;
}

void Executor::fill(Entry& e, Word pc) {
  e.insn = decode_at(pc);
  e.key = cache_key(pc);
}

const DecodedInsn& Executor::decoded_at(Word pc) { return lookup(pc); }

ExecOutcome Executor::step() { return execute(m_, lookup(m_.state.pc)); }

namespace {

bool is_body_instruction(const DecodedInsn& d) {
  return (d.traits & scalar::kTraitDecoded) &&
         !(d.traits & (scalar::kTraitBlockHeader | scalar::kTraitBlockBoundary));
}

// A body instruction of these families never changes _BundleActive or
// _BundleBodyActive (only block commands and SYS trap returns change them),
// so after it succeeded the body entry rule is settled for the next step.
bool settles_body_entry(const DecodedInsn& d) {
  if (!is_body_instruction(d) || (d.traits & scalar::kTraitCommand)) return false;
  const isa::Family f = d.desc().family;
  return f == isa::Family::ALU || f == isa::Family::AGU || f == isa::Family::BRU || f == isa::Family::FSU ||
         f == isa::Family::AMO;
}

// After a successful attempt of these the fault record is clear (their
// faults all go through set_fault with a Fault outcome) and no SYS terminal
// is pending: the families above never set it, and a block start clears it
// (BeginBundleAt, after the retiring commit's ClearBundleHeaderState).
bool leaves_attempt_clean(const DecodedInsn& d) {
  return settles_body_entry(d) ||
         ((d.traits & scalar::kTraitDecoded) && std::string_view(d.desc().semantic_handler) == "ExecuteBundleStart");
}

// A step after which the run cannot continue sequentially: a fetch fault or
// an illegal / unimplemented word, the commit of a block, a jump.
bool ends_run(const DecodedInsn& d) {
  if (d.length_bytes == 0 || !(d.traits & scalar::kTraitDecoded) || d.handler == not_implemented) return true;
  return (d.traits & scalar::kTraitBlockStop) || d.mnemonic == isa::Mnemonic::J || d.mnemonic == isa::Mnemonic::JR;
}

}  // namespace

void Executor::build_run(Run& run, Word pc, const Watch& watch) {
  if (run_pool_.size() + kMaxRunLength > kRunPoolCapacity) {
    flush_runs();  // `run` is a directory slot: still valid, now empty
  }
  const auto first = static_cast<std::uint32_t>(run_pool_.size());
  Word at = pc;
  Word last = pc;
  for (unsigned n = 0; n < kMaxRunLength; ++n) {
    if (n > 0 && (watch.watched(at) || at - pc >= kMaxRunSpan)) break;
    const DecodedInsn& d = lookup(at);
    const bool settled = n > 0 && settles_body_entry(run_pool_.back().insn);
    const bool clean = n > 0 && leaves_attempt_clean(run_pool_.back().insn);
    RunStep& step = run_pool_.emplace_back();
    step.pc = at;
    step.next_pc = at + d.length_bytes;
    if (d.prechecks != 0) step.admission |= kAdmitFully;
    if (is_body_instruction(d) && !settled) step.admission |= kAdmitBodyEntry;
    if (!clean) step.admission |= kAdmitFresh;
    step.insn = d;
    // The lookahead halfword of the length rule ends at pc + length + 1.
    const Word step_last = at + d.length_bytes + 1;
    last = step_last < at ? ~Word{0} : step_last;
    if (ends_run(d)) break;
    at = step.next_pc;
  }
  if (run.key != kEmptyKey) ++link_epoch_;  // the slot's run is replaced
  run.key = run_key(pc);
  run.start = pc;
  run.last = last;
  run.first = first;
  run.count = static_cast<std::uint32_t>(run_pool_.size()) - first;
  run.fusion = fuse_run(run);
}

std::uint32_t Executor::fuse_run(const Run& run) {
  if (run.count < 2) return kNoFusion;
  const RunStep* steps = &run_pool_[run.first];
  const RunStep& stop = steps[run.count - 1];
  const std::optional<block::BoundStart> start = block::fusable_bound_start(steps[0].insn);
  if (!start || !block::is_block_stop(stop.insn)) return kNoFusion;
  arch::BundleArgumentRegister barg;
  barg.transfer_type = start->transfer;
  barg.bpcn = start->target;
  Fusion f;
  f.first = static_cast<std::uint32_t>(fused_ops_.size());
  barg.taken = true;
  f.commit_taken = block::commit_pc(barg, stop.next_pc);
  barg.taken = false;
  f.commit_not_taken = block::commit_pc(barg, stop.next_pc);
  for (std::uint32_t i = 1; i + 1 < run.count; ++i) {
    const DecodedInsn& d = steps[i].insn;
    const bool admitted_by_handler = (steps[i].admission & kAdmitFully) == 0;
    std::optional<scalar::RegisterOp> op = scalar::register_op_of(d);
    if (op && admitted_by_handler) {
      fused_ops_.push_back(*op);
      continue;
    }
    // One SETC.TGT reading a GPR: its only pre-check, applicability
    // (BundleCommitTargetWritable: an active STD/FP block), holds in every
    // pass.  C.SETC.TGT (once per block, a flag) is not fused.
    // A FALL block commits to its continuation whatever BPCN holds: its
    // SETC.TGT is not fused.
    if (d.mnemonic == isa::Mnemonic::SETC_TGT && d.prechecks == scalar::kCheckApplicability &&
        d.reg(0) < arch::kAbsoluteGprCount && start->transfer != arch::BundleTransfer::Fallthrough &&
        !f.sets_target()) {
      f.target_index = i - 1;
      f.target_taken = true;
      f.target_not_taken = start->transfer != arch::BundleTransfer::Conditional;
      fused_ops_.push_back(scalar::commit_target_op(static_cast<std::uint8_t>(d.reg(0))));
      continue;
    }
    // The one SETC of a COND block body is applicable (the condition is not
    // yet set); a second one would fault.
    const block::CommitCondition condition = block::commit_condition_of(d);
    if (condition != nullptr && admitted_by_handler && start->transfer == arch::BundleTransfer::Conditional &&
        f.condition == nullptr) {
      f.split = i - 1;
      f.condition = condition;
      f.condition_insn = &d;
      fused_ops_.emplace_back();
      continue;
    }
    fused_ops_.resize(f.first);
    return kNoFusion;
  }
  if (f.condition == nullptr) f.split = run.count - 2;
  if (!f.sets_target()) f.target_index = run.count - 2;
  if (start->writes_return_address()) f.return_target = start->return_target;
  f.returns = start->reads_return_address();
  fusions_.push_back(std::move(f));
  return static_cast<std::uint32_t>(fusions_.size() - 1);
}

const TranslatedBlock* Executor::translation_of(const Run& run) {
  Fusion& f = fusions_[run.fusion];
  if (!f.translation_tried) {
    f.translation_tried = true;
    FusedBlockShape shape;
    shape.body = {fused_ops_.data() + f.first, run.count - 2};
    shape.split = f.split;
    shape.condition = f.condition;
    shape.condition_insn = f.condition_insn;
    if (f.condition_insn != nullptr) shape.test = block::commit_test_of(*f.condition_insn);
    shape.return_target = f.return_target;
    shape.returns = f.returns;
    shape.target_taken = f.target_taken;
    shape.target_not_taken = f.target_not_taken;
    shape.start = run.start;
    shape.commit_taken = f.commit_taken;
    shape.commit_not_taken = f.commit_not_taken;
    shape.count = run.count;
    shape.link_epoch = &link_epoch_;
    f.translated = translate_fused_block(m_, shape);
  }
  return f.translated.get();
}

namespace {

// Executes body ops [from, to) of a fused pass; returns the index of the
// first op that left the fast path, or `to`.
std::uint32_t run_register_ops(Machine& m, Word* gpr, const scalar::RegisterOp* body, std::uint32_t from,
                               std::uint32_t to) {
  for (std::uint32_t i = from; i < to; ++i) {
    if (!body[i].execute(m, gpr, body[i])) [[unlikely]] return i;
  }
  return to;
}

}  // namespace

PassExit Executor::interpret_fused_passes(const Run& run, std::uint64_t& steps, std::uint64_t max_steps) {
  Machine& m = m_;
  arch::State& s = m.state;
  const Fusion& f = fusions_[run.fusion];
  const scalar::RegisterOp* body = fused_ops_.data() + f.first;  // an empty body may sit at the end
  const std::uint32_t body_count = run.count - 2;
  const std::uint32_t split = f.split;
  Word* gpr = s.gpr[s.current_pe].data();
  const bool call = f.return_target.has_value();
  const Word return_target = f.return_target.value_or(0);
  for (;;) {
    // The BSTART: a RET's target is _ReturnAddress, an odd one faulting
    // before any effect (asl/block/model/dispatch/start.asl), so that pass
    // runs step by step from its start.
    if (f.returns && (s.return_address & 1) != 0) [[unlikely]] return {PassExit::kBeforeStart, false};
    // A CALL's BeginBundleAt writes _ReturnAddress and ra
    // (asl/block/model/lifecycle/begin.asl) before any body op runs.
    if (call) {
      s.return_address = return_target;
      gpr[arch::kRegRa] = return_target;
    }
    // BARG.taken at the stop: a COND block's starts clear (the other
    // transfers commit to the same PC either way).
    bool holds = false;
    std::uint32_t i = run_register_ops(m, gpr, body, 0, split);
    if (i < split) [[unlikely]] return {i, holds};
    if (split < body_count) {
      holds = f.condition(s, *f.condition_insn);
      s.commit_argument = holds ? 1 : 0;
      i = run_register_ops(m, gpr, body, split + 1, body_count);
      if (i < body_count) [[unlikely]] return {i, holds};
    }
    // BARGCommitPC: no body op writes _ReturnAddress, so a RET commits to
    // what its start read; a SETC.TGT's BPCN when the transfer selects it.
    Word commit = f.returns ? s.return_address : holds ? f.commit_taken : f.commit_not_taken;
    if (f.sets_target()) [[unlikely]] {
      if (holds ? f.target_taken : f.target_not_taken) commit = s.block.barg.bpcn;
      // An odd one faults at the BSTOP (asl/block/model/commit/validation.asl).
      if ((commit & 1) != 0) return {body_count, holds};
      s.block.barg.bpcn = 0;  // StopBundleAt clears BARG
    }
    s.sysregs.cycle += run.count;
    steps += run.count;
    ++fused_passes_;
    s.pc = commit;
    if (s.pc != run.start || max_steps - steps < run.count) return {};
  }
}

PassExit Executor::run_translated_passes(const TranslatedBlock& code, std::uint64_t& steps,
                                         std::uint64_t max_steps, const TranslatedBlock*& exited) {
  arch::State& s = m_.state;
  PassContext ctx{s.gpr[s.current_pe].data(), steps, max_steps, 0, nullptr};
  const PassExit exit = code.run(ctx);
  steps = ctx.steps;
  fused_passes_ += ctx.passes;
  translated_passes_ += ctx.passes;
  exited = ctx.block;
  return exit;
}

std::uint32_t Executor::run_fused(Run*& run, std::uint64_t& steps, std::uint64_t max_steps,
                                  const TranslatedBlock* link_from) {
  const TranslatedBlock* code = translate_ ? translation_of(*run) : nullptr;
  PassExit exit;
  if (code != nullptr) {
    if (link_from != nullptr) link_from->link(*code, link_epoch_);
    const TranslatedBlock* exited = nullptr;
    exit = run_translated_passes(*code, steps, max_steps, exited);
    if (exit.op == PassExit::kCompleted) {
      chain_from_ = exited;
      chain_epoch_ = link_epoch_;
      return run->count;
    }
    // The passes chained into the run at `exited`'s start: linked at this
    // epoch, it is still in the directory.
    run = &runs_[run_index(exited->start())];
  } else {
    exit = interpret_fused_passes(*run, steps, max_steps);
    if (exit.op == PassExit::kCompleted) return run->count;
  }
  // A RET block's start would fault: its pass runs step by step from the
  // BSTART, which takes the fault with the idle state a whole pass left.
  if (exit.op == PassExit::kBeforeStart) return 0;
  // Body op i left the fast path (i = the body's length: an odd SETC.TGT
  // commit, which the BSTOP faults on).  Step by step from there: the block
  // as its BSTART began it (from the idle state a whole pass leaves), the
  // body entered, the condition as set so far, time advanced by the
  // attempts done.  A CALL's handler writes _ReturnAddress and ra again:
  // the pass wrote the same return target to both at its start, and body
  // ops before i may have written ra since, so ra keeps the value they
  // left.  Likewise the handler sets BARG.bpcn to the start's target: a
  // SETC.TGT before i wrote it since.
  arch::State& s = m_.state;
  const Fusion& f = fusions_[run->fusion];
  const std::uint32_t i = exit.op;
  const Word ra = s.gpr[s.current_pe][arch::kRegRa];
  const Word bpcn = s.block.barg.bpcn;
  begin_fused_block(&run_pool_[run->first], run->count - 2);
  s.gpr[s.current_pe][arch::kRegRa] = ra;
  if (f.target_index < i) s.block.barg.bpcn = bpcn;
  if (f.split < i) block::set_commit_condition(s, exit.holds);
  s.sysregs.cycle += i;
  return i + 1;
}

void Executor::begin_fused_block(const RunStep* begin, std::uint32_t body_count) {
  arch::State& s = m_.state;
  ++s.sysregs.cycle;  // AdvanceArchitecturalTime
  s.pc = begin[0].pc;
  begin[0].insn.handler(m_, begin[0].insn);
  if (body_count > 0) s.block.bundle_body_active = true;
}

std::uint32_t Executor::first_fused_pass(const Run& run, const RunStep* begin, std::uint64_t& steps) {
  Machine& m = m_;
  arch::State& s = m.state;
  const Fusion& f = fusions_[run.fusion];
  const scalar::RegisterOp* body = fused_ops_.data() + f.first;
  const std::uint32_t body_count = run.count - 2;
  const std::uint32_t split = f.split;
  Word* gpr = s.gpr[s.current_pe].data();
  // A RET start with an odd target faults: step by step from the start.
  if (f.returns && (s.return_address & 1) != 0) return 0;
  // BeginArchitecturalInstructionAttempt of the run's first step clears the
  // fault record (a SYS terminal pending changes nothing for a block start).
  s.last_fault = FaultCode::Fault_None;
  s.fault_address = 0;
  begin_fused_block(begin, body_count);
  std::uint32_t i = run_register_ops(m, gpr, body, 0, split);
  if (i == split && split < body_count) {
    block::set_commit_condition(s, f.condition(s, *f.condition_insn));
    i = run_register_ops(m, gpr, body, split + 1, body_count);
  }
  s.sysregs.cycle += i;
  if (i < body_count) return i + 1;  // body op i left the fast path: step by step from it
  const RunStep& stop = begin[run.count - 1];
  // An odd commit PC (a SETC.TGT's) faults at the BSTOP: step by step from it.
  if (f.sets_target() && (block::commit_pc(s.block.barg, stop.next_pc) & 1) != 0) return run.count - 1;
  // The BSTOP attempt: on this block (bound start, clean header, Control
  // class, even commit PC) it takes BSTOP's short commit, which cannot fault.
  ++s.sysregs.cycle;  // AdvanceArchitecturalTime
  s.pc = stop.pc;
  stop.insn.handler(m, stop.insn);
  steps += run.count;
  ++fused_passes_;
  return run.count;
}

bool Executor::stops_after(ExecOutcome o, const DecodedInsn& d, Word pc, const RunLimits& limits,
                           RunResult& r) const {
  if (o == ExecOutcome::NotImplemented) {
    r.reason = StopReason::NotImplemented;
    r.fault_pc = pc;
    // A tile block stopped at its terminator names the tile operation (tile engine).
    const std::string tile_detail = block::tile_not_implemented_detail(m_);
    r.detail = tile_detail.empty() ? fmt::format("not implemented in this model: {}", d.desc().mnemonic) : tile_detail;
    return true;
  }
  const arch::State& s = m_.state;
  const FaultCode fault = scalar::fault_of(o);
  assert(fault == s.last_fault);  // the outcome carries what set_fault recorded
  // The host-request test comes before the rejection test (reference runner).
  if (limits.host_request && host_request_raised(*limits.host_request)) {
    r.reason = StopReason::HostRequest;
    r.fault = fault;
    r.fault_address = s.fault_address;
    r.fault_pc = pc;
    return true;
  }
  // Only when asked, a fault delivered to a ring with a vector goes on there;
  // with EVBASE = 0 TrapVectorEntry resumes at the fault address, so nothing
  // would handle it.
  if (limits.run_trap_handlers && s.banked_reg(s.current_acr, arch::kEvbaseLow) != 0) return false;
  r.reason = StopReason::Fault;
  r.fault = fault;
  r.fault_address = s.fault_address;
  r.fault_pc = pc;
  r.detail = fmt::format("{} at pc {:#x}, fault address {:#x}", arch::fault_name(fault), pc, s.fault_address);
  return true;
}

bool Executor::host_request_raised(const HostRequest& h) const {
  const arch::State& s = m_.state;
  return s.last_fault == FaultCode::Fault_ServiceRequest &&
         (s.bookkeeping.control_request_operand & 0xF) == h.service_request_type &&
         s.trap_contexts[s.current_acr].tpc == h.return_pc && s.gpr[0][kHostRequestNumberGpr] == h.number &&
         s.gpr[0][kHostRequestArgumentGpr] == h.argument0;
}

RunResult Executor::fast_loop(const RunLimits& limits) {
  // Each iteration executes one run: a straight line of pre-decoded steps
  // starting at TPC.  Per attempt the loop does what `execute` does
  // (BeginArchitecturalInstructionAttempt, admission, the handler, TPC), with
  // TPC stored before the handler so it sees the one-step state; the parts
  // a step after a clean one can skip (see Admission) run only where flagged.
  Machine& m = m_;
  arch::State& s = m.state;
  RunResult r;
  Watch watch;
  watch.stop = limits.stop_pc.has_value();
  watch.stop_pc = limits.stop_pc.value_or(0);
  const std::uint64_t max_steps = limits.max_steps;
  std::uint64_t hits = 0;
  std::uint64_t steps = 0;
  // The stop PC stays out of every cache for the whole run: each arrival
  // there takes the miss path, which counts the hit, so runs need no
  // per-instruction compare.
  if (watch.stop) {
    evict(watch.stop_pc);
    invalidate_runs(watch.stop_pc, watch.stop_pc);
  }
  const RunStep* current = nullptr;
  const RunStep* run_begin = nullptr;
  // The last run ended with a whole pass through a fused run that committed
  // elsewhere: the block state is the idle state such a pass leaves, so a
  // fused run entered next skips its first pass through the handlers
  // (chaining, docs/architecture.md "Chaining fused blocks").
  bool chained = false;
  try {
    while (steps < max_steps) {
      const bool entered_idle = std::exchange(chained, false);
      const Word pc = s.pc;
      Run* run = &runs_[run_index(pc)];
      if (run->key != run_key(pc)) [[unlikely]] {
        if (watch.watched(pc)) {
          // The TPC an attempt left is a hit; the start PC is not.
          if (steps > 0 && ++hits >= limits.stop_after_hits) {
            r.reason = StopReason::StopPc;
            break;
          }
          // A stop PC before its last hit executes uncached, as one step.
          if (!watched_valid_ || watched_pc_ != pc) {
            watched_ = decode_at(pc);
            watched_pc_ = pc;
            watched_valid_ = true;
          }
          const DecodedInsn& d = watched_;
          const ExecOutcome o = execute(m, d);
          ++steps;
          if (scalar::stops_run(o) && stops_after(o, d, pc, limits, r)) break;
          continue;
        }
        build_run(*run, pc, watch);
      }
      run_begin = &run_pool_[run->first];
      active_start_ = run->start;
      active_last_ = run->last;
      ExecOutcome o;
      // Passes through the run: after a commit back to its start (a loop
      // block) the next pass starts here, as the next outer iteration would
      // when the directory still maps TPC to this run (so TPC is not watched,
      // and no store hit the run's bytes: that drops it from the directory).
      // whole_pass: the block state is the idle state a whole pass through a
      // fused run leaves (the last pass ran every step of this run, or of
      // the fused run before it).
      const bool fused_run = run->fusion != kNoFusion;
      bool whole_pass = entered_idle;
      do {
        std::uint32_t first = 0;
        // A link from the translated block whose whole pass committed here
        // (the pass just before this one), while no run was dropped since.
        const TranslatedBlock* link_from = std::exchange(chain_from_, nullptr);
        if (!whole_pass || chain_epoch_ != link_epoch_) link_from = nullptr;
        if (fused_run && max_steps - steps >= run->count &&
            (whole_pass || (!s.block.bundle_active && !s.block.header_dirty))) {
          if (!whole_pass) first = first_fused_pass(*run, run_begin, steps);
          if (whole_pass || (first == run->count && s.pc == run->start && max_steps - steps >= run->count)) {
            first = run_fused(run, steps, max_steps, link_from);
            run_begin = &run_pool_[run->first];
            active_start_ = run->start;
            active_last_ = run->last;
          }
          if (first == run->count) {
            current = run_begin + run->count;
            o = ExecOutcome::PcWritten;  // BSTOP's commit
            whole_pass = true;
            continue;
          }
        }
        // Attempts left in the budget bound this pass through the run.
        const std::uint64_t budget = max_steps - steps;
        run_stop_ = reinterpret_cast<std::uintptr_t>(run_begin + (budget < run->count ? budget : run->count));
        current = run_begin + first;
        for (;;) {
          const DecodedInsn& d = current->insn;
          s.pc = current->pc;
          ++s.sysregs.cycle;  // AdvanceArchitecturalTime
          if (const std::uint8_t admission = current->admission; admission != 0) [[unlikely]] {
            if (admission & kAdmitFresh) {
              s.last_fault = FaultCode::Fault_None;
              s.fault_address = 0;
            }
            if ((admission & kAdmitFully) || ((admission & kAdmitFresh) && s.block.system_block_terminal_pending)) {
              o = admit(m, d) ? d.handler(m, d) : m.raised();
            } else {
              // kAdmitBodyEntry marks body instructions only: the body entry
              // rule reduces to its state condition.
              if ((admission & kAdmitBodyEntry) && s.block.bundle_active) s.block.bundle_body_active = true;
              o = d.handler(m, d);
            }
          } else {
            o = d.handler(m, d);
          }
          ++current;
          if (o == ExecOutcome::Next) [[likely]] {
            if (reinterpret_cast<std::uintptr_t>(current) >= run_stop_) break;
            continue;
          }
          // BSTART writes TPC to its own successor: the run goes on.
          if (o == ExecOutcome::PcWritten && s.pc == current[-1].next_pc &&
              reinterpret_cast<std::uintptr_t>(current) < run_stop_) {
            continue;
          }
          break;
        }
        steps += static_cast<std::uint64_t>(current - run_begin);
        whole_pass = current == run_begin + run->count;
      } while (o == ExecOutcome::PcWritten && s.pc == run->start && steps < max_steps);
      chained = fused_run && whole_pass && o == ExecOutcome::PcWritten;
      const RunStep& last = current[-1];
      current = nullptr;
      run_stop_ = 0;
      if (o == ExecOutcome::Next) {
        s.pc = last.next_pc;
      } else if (scalar::stops_run(o) && stops_after(o, last.insn, last.pc, limits, r)) {
        break;
      }
    }
  } catch (const arch::HostMemoryExhausted& e) {
    // The throwing attempt is not counted (as in the one-step loop).
    if (current != nullptr) steps += static_cast<std::uint64_t>(current - run_begin);
    run_stop_ = 0;
    r.reason = StopReason::HostLimit;
    r.detail = e.what();
  }
  if (r.reason == StopReason::MaxSteps && watch.stop && steps > 0 && s.pc == watch.stop_pc &&
      hits + 1 >= limits.stop_after_hits) {
    r.reason = StopReason::StopPc;  // the last attempt of the budget reached the stop PC
  }
  r.steps = steps;
  r.pc = s.pc;
  return r;
}

RunResult Executor::observed_loop(const RunLimits& limits, Observer& observer) {
  arch::State& s = m_.state;
  RunResult r;
  std::uint64_t hits = 0;
  std::vector<arch::MemoryAccess> accesses;
  m_.set_access_log(&accesses);
  try {
    while (r.steps < limits.max_steps) {
      const Word pc = s.pc;
      if (r.steps > 0 && limits.stop_pc && pc == *limits.stop_pc && ++hits >= limits.stop_after_hits) {
        r.reason = StopReason::StopPc;
        break;
      }
      const DecodedInsn& d = lookup(pc);
      const unsigned pe = s.current_pe;
      const auto gprs_before = s.gpr[pe];
      const auto t_before = s.t_queue.pushes;
      const auto u_before = s.u_queue.pushes;
      accesses.clear();
      const ExecOutcome o = execute(m_, d);
      Retired ev;
      ev.pe = pe;
      ev.pc = pc;
      ev.insn = &d;
      ev.outcome = o;
      ev.fault_address = s.fault_address;
      for (unsigned i = 1; i < arch::kAbsoluteGprCount; ++i) {
        if (s.gpr[pe][i] != gprs_before[i]) ev.gpr_writes.emplace_back(i, s.gpr[pe][i]);
      }
      for (auto n = std::min<std::uint64_t>(s.t_queue.pushes - t_before, arch::kTemporaryQueueDepth); n > 0; --n) {
        ev.t_pushes.push_back(s.t_queue.value[n - 1]);
      }
      for (auto n = std::min<std::uint64_t>(s.u_queue.pushes - u_before, arch::kTemporaryQueueDepth); n > 0; --n) {
        ev.u_pushes.push_back(s.u_queue.value[n - 1]);
      }
      ev.accesses = accesses;
      ev.next_pc = s.pc;
      ++r.steps;
      observer.on_retire(m_, ev);
      if (scalar::stops_run(o) && stops_after(o, d, pc, limits, r)) break;
    }
  } catch (const arch::HostMemoryExhausted& e) {
    r.reason = StopReason::HostLimit;
    r.detail = e.what();
  }
  if (r.reason == StopReason::MaxSteps && r.steps > 0 && limits.stop_pc && s.pc == *limits.stop_pc &&
      hits + 1 >= limits.stop_after_hits) {
    r.reason = StopReason::StopPc;
  }
  m_.set_access_log(nullptr);
  r.pc = s.pc;
  return r;
}

RunResult Executor::run(const RunLimits& limits, Observer* observer) {
  return observer ? observed_loop(limits, *observer) : fast_loop(limits);
}

}  // namespace pto::runner
