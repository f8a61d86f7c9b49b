// The run loop: fetch with the length rule, a decode cache keyed by PC, and
// two loops chosen once per run — a fast one with no observation that
// executes cached straight-line runs of pre-decoded steps, and a slow one that
// reports every attempt to an observer (tracing, state capture).  Design and
// exactness rules: docs/architecture.md "Execution".
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arch/machine.hpp"
#include "block/control.hpp"
#include "runner/dispatch.hpp"
#include "runner/translator.hpp"
#include "scalar/register_op.hpp"

namespace pto::runner {

// How a run ended.  The reference runner's step contract
// (docs/semantics-notes.md "Step and stop contract"): after each attempt,
// first the host-request test, then a rejected attempt ends the run, then
// the stop-PC test on the TPC the attempt left.
enum class StopReason : std::uint8_t {
  StopPc,          // the TPC after an attempt reached --stop-pc (--stop-after-hits times)
  HostRequest,     // the configured host service request was raised
  MaxSteps,        // the step budget ran out
  Fault,           // an attempt was rejected (Fault_*)
  NotImplemented,  // an instruction this model does not execute
  HostLimit,       // guest memory exceeded the host cap
};
std::string_view stop_reason_name(StopReason r);
// True for the outcomes the reference runner reports as passed.
inline bool stop_passed(StopReason r) { return r == StopReason::StopPc || r == StopReason::HostRequest; }

// The hosted runner's terminal service request (e.g. Linux exit_group): an
// attempt rejected with Fault_ServiceRequest of this type whose saved trap
// context resumes at `return_pc`, with a7 = number and a0 = argument0.
struct HostRequest {
  std::uint64_t number = 0;
  std::uint64_t argument0 = 0;
  unsigned service_request_type = 0;  // _ControlRequestOperand[3:0]
  arch::Word return_pc = 0;
};

struct RunLimits {
  std::uint64_t max_steps = std::numeric_limits<std::uint64_t>::max();
  std::optional<arch::Word> stop_pc;
  std::uint64_t stop_after_hits = 1;
  std::optional<HostRequest> host_request;
  // false (the reference runner's contract): every rejected attempt ends the
  // run.  true: a fault delivered to a ring with a trap vector (EVBASE != 0)
  // goes on in its handler, as on hardware.
  bool run_trap_handlers = false;
};

struct RunResult {
  StopReason reason = StopReason::MaxSteps;
  std::uint64_t steps = 0;  // execution attempts, faulting ones included
  arch::Word pc = 0;        // final TPC
  arch::FaultCode fault = arch::FaultCode::Fault_None;
  arch::Word fault_address = 0;
  arch::Word fault_pc = 0;  // PC of the faulting / unimplemented instruction
  std::string detail;       // e.g. "not implemented in this model: FADD.S"
};

// One execution attempt as an observer sees it.
struct Retired {
  unsigned pe = 0;
  arch::Word pc = 0;
  const scalar::DecodedInsn* insn = nullptr;
  scalar::ExecOutcome outcome = scalar::ExecOutcome::Next;  // carries the fault raised
  arch::Word fault_address = 0;
  std::vector<std::pair<unsigned, arch::Word>> gpr_writes;  // changed registers
  std::vector<arch::Word> t_pushes, u_pushes;
  std::vector<arch::MemoryAccess> accesses;
  arch::Word next_pc = 0;

  arch::FaultCode fault() const { return scalar::fault_of(outcome); }
};

class Observer {
 public:
  virtual ~Observer() = default;
  virtual void on_retire(const arch::Machine& m, const Retired& r) = 0;
};

class Executor {
 public:
  explicit Executor(arch::Machine& m);
  ~Executor();
  Executor(const Executor&) = delete;
  Executor& operator=(const Executor&) = delete;

  // Runs until a stop condition.  With an observer the slow loop runs.
  RunResult run(const RunLimits& limits, Observer* observer = nullptr);
  // Fetches, decodes (through the cache) and executes one instruction.
  scalar::ExecOutcome step();
  // The decoded record for the instruction at `pc` (through the cache).
  const scalar::DecodedInsn& decoded_at(arch::Word pc);
  // Drops every cached decode (after loading a program or resetting memory).
  void flush_decode_cache();

  std::uint64_t decode_misses() const { return misses_; }
  // The translation tier (docs/architecture.md "Translation tier"): on by
  // default where the build supports it, unless PTO_NO_JIT is set to
  // anything but "" or "0"; off, fused blocks run interpreted.
  void set_translation(bool enabled) { translate_ = enabled && translation_supported(); }
  bool translation() const { return translate_; }
  // Fused passes run by translated code (a subset of fused_passes).
  std::uint64_t translated_passes() const { return translated_passes_; }
  // Passes run as fused loop blocks (docs/architecture.md "Fused loop blocks").
  std::uint64_t fused_passes() const { return fused_passes_; }

 private:
  // Slots of the decode cache and the run directory are keyed by
  // slot_key: the PC XOR a PC that maps to a different slot of the same
  // table.  So no PC (every 64-bit value is reachable: odd ones through
  // fetch faults) has key 0, and all-zero memory is an empty table: both
  // tables come zeroed from calloc, and start-up touches only the pages of
  // the slots a run fills.
  template <unsigned kBits>
  static constexpr arch::Word slot_key(arch::Word pc) {
    constexpr arch::Word kMask = (arch::Word{1} << kBits) - 1;
    return pc ^ ((((pc >> 1) + 1) & kMask) << 1);
  }
  static constexpr arch::Word kEmptyKey = 0;
  struct FreeDeleter {
    void operator()(void* p) const noexcept;
  };
  // `count` zeroed objects of an aggregate (implicit-lifetime) type.
  template <typename T>
  static std::unique_ptr<T[], FreeDeleter> zeroed_table(std::size_t count);

  struct Entry {
    arch::Word key = kEmptyKey;  // cache_key of the PC decoded here
    scalar::DecodedInsn insn;
  };
  static constexpr unsigned kCacheBits = 13;
  static constexpr arch::Word kCacheMask = (arch::Word{1} << kCacheBits) - 1;
  static arch::Word cache_index(arch::Word pc) { return (pc >> 1) & kCacheMask; }
  static constexpr arch::Word cache_key(arch::Word pc) { return slot_key<kCacheBits>(pc); }

  const scalar::DecodedInsn& lookup(arch::Word pc) {
    Entry& e = cache_[cache_index(pc)];
    if (e.key != cache_key(pc)) fill(e, pc);
    return e.insn;
  }
  void fill(Entry& e, arch::Word pc);
  // Fetches and decodes the instruction at `pc` for the cache (a miss).
  scalar::DecodedInsn decode_at(arch::Word pc);
  void empty_decode_cache();
  void evict(arch::Word pc) {
    Entry& e = cache_[cache_index(pc)];
    if (e.key == cache_key(pc)) e.key = kEmptyKey;
  }
  scalar::DecodedInsn fetch_and_decode(arch::Word pc);
  static void on_code_write(void* self, arch::Word address, arch::Word size);

  // ---- straight-line runs (docs/architecture.md "Execution") ----
  // One attempt of a run: the cached decode copied with its PC, so a run
  // executes from contiguous memory with no per-instruction tag check.
  struct RunStep {
    arch::Word pc = 0;
    arch::Word next_pc = 0;  // pc + length: the sequential successor
    std::uint8_t admission = 0;  // Admission bits: what runs before the handler
    scalar::DecodedInsn insn;
  };
  // A step whose admission bits are all clear runs its handler directly:
  // the step before it in the run left the attempt clean
  // (leaves_attempt_clean in executor.cpp), so the fault-record clear of
  // BeginArchitecturalInstructionAttempt and the SYS-terminal check would
  // change nothing.
  enum Admission : std::uint8_t {
    kAdmitFully = 1u << 0,      // pre-checks: the whole `admit`
    kAdmitBodyEntry = 1u << 1,  // the body entry rule may change state here
    kAdmitFresh = 1u << 2,      // clear the fault record; a SYS terminal may be pending
  };
  // A run starting at `start`: pool steps [first, first + count).  Its
  // decodes read only bytes in [start, last] (the fused-call lookahead
  // included; `last` saturates at the top of the address space).
  struct Run {
    arch::Word key = kEmptyKey;  // run_key of `start`
    arch::Word start = 0;
    arch::Word last = 0;
    std::uint32_t first = 0;
    std::uint32_t count = 0;
    std::uint32_t fusion = 0;  // kNoFusion, or an index into fusions_
  };
  static constexpr std::uint32_t kNoFusion = ~std::uint32_t{0};

  // ---- fused loop blocks (docs/architecture.md "Fused loop blocks") ----
  // A run that is one whole plain scalar block: a bound STD/FP BSTART
  // (block::fusable_bound_start; a CALL included), body steps that are
  // register-only ALU operations, loads and stores without address update
  // or (COND blocks only) one register-only SETC, and a BSTOP.  Once a pass
  // through it has run step by step, the block state at its end no longer
  // depends on the state before it, so later passes that return to its
  // start run the body alone.
  struct Fusion {
    // BARGCommitPC after the BSTOP with BARG.taken set (only a COND block's
    // SETC sets it) and clear.
    arch::Word commit_taken = 0, commit_not_taken = 0;
    std::uint32_t first = 0;  // fused_ops_ index of the first body step
    // The SETC: its body index (the body's length if none), condition and record.
    std::uint32_t split = 0;
    block::CommitCondition condition = nullptr;
    const scalar::DecodedInsn* condition_insn = nullptr;  // in run_pool_
    // A CALL block's return target: each pass writes it to _ReturnAddress
    // and GPR ra before the body, as its BSTART does (BeginBundleAt).
    std::optional<arch::Word> return_target;
    // A RET block: each pass commits to _ReturnAddress as its start read
    // it (no body op writes it); an odd one faults at the start, so such a
    // pass does not begin fused (PassExit::kBeforeStart).
    bool returns = false;
    // A SETC.TGT in the body (at most one): its op writes BARG.bpcn, which
    // the commit takes instead of the constant when the transfer selects
    // BPCN — with BARG.taken set (target_taken) or clear
    // (target_not_taken) — and an odd commit PC faults at the BSTOP, so
    // such a pass leaves before it (PassExit op = the body's length).
    std::uint32_t target_index = 0;  // its body index; the body's length if none
    bool target_taken = false, target_not_taken = false;
    bool sets_target() const { return target_taken || target_not_taken; }
    // Host code for its passes (translation tier), made when run_fused
    // first enters the block; null when declined or not yet tried.
    std::unique_ptr<TranslatedBlock> translated;
    bool translation_tried = false;
  };
  std::uint32_t fuse_run(const Run& run);  // a fusions_ index, or kNoFusion
  // The fused run's translation, made on first use when the tier is on.
  const TranslatedBlock* translation_of(const Run& run);
  // Passes through a fused run at its start while they return to it and
  // the budget holds a whole pass.  Returns the index of the step the
  // step-by-step loop resumes at: run.count after the last whole pass, a
  // body load that left the fast path, with the state put where step-by-step
  // execution would have it, or 0 when a RET block's start would fault.
  // Translated passes may chain into other fused runs (linked from
  // `link_from`, the translated block whose whole pass committed to this
  // run's start, when not null): `run` is then the run the last pass was in.
  std::uint32_t run_fused(Run*& run, std::uint64_t& steps, std::uint64_t max_steps,
                          const TranslatedBlock* link_from);
  // run_fused's passes, by the interpreter or by translated code: the same
  // effects, and the same exit (PassExit).
  PassExit interpret_fused_passes(const Run& run, std::uint64_t& steps, std::uint64_t max_steps);
  PassExit run_translated_passes(const TranslatedBlock& code, std::uint64_t& steps, std::uint64_t max_steps,
                                 const TranslatedBlock*& exited);
  // The first pass through a fused run entered on an idle block (none
  // active, clean header), whose other block state may differ from the one
  // a whole pass leaves: its BSTART and BSTOP run through their handlers and
  // its SETC sets the block's condition, so the pass leaves that state; the
  // body runs fused.  Returns as run_fused (one pass at most; 0, nothing
  // done, when the start faults).
  std::uint32_t first_fused_pass(const Run& run, const RunStep* begin, std::uint64_t& steps);
  // A fused run's BSTART attempt on an idle block (time advanced, the bound
  // start's handler), then the body entry of its first body step.
  void begin_fused_block(const RunStep* begin, std::uint32_t body_count);
  static constexpr unsigned kRunBits = 12;
  static constexpr arch::Word kRunMask = (arch::Word{1} << kRunBits) - 1;
  static constexpr unsigned kMaxRunLength = 32;
  static constexpr arch::Word kMaxRunSpan = 128;  // bytes from the start to the last step
  static constexpr std::size_t kRunPoolCapacity = std::size_t{1} << 15;
  static arch::Word run_index(arch::Word pc) { return (pc >> 1) & kRunMask; }
  static constexpr arch::Word run_key(arch::Word pc) { return slot_key<kRunBits>(pc); }

  // The PC a fast run must reach through the miss path (the stop PC).
  struct Watch {
    bool stop = false;
    arch::Word stop_pc = 0;
    bool watched(arch::Word pc) const { return stop && pc == stop_pc; }
  };
  void build_run(Run& run, arch::Word pc, const Watch& watch);
  void forget_runs();  // empties the directory
  void flush_runs();   // and the step pool (never while a run executes)
  // Drops every run whose bytes overlap [address, last] (inclusive, so no
  // range wraps past the top of the address space).
  void invalidate_runs(arch::Word address, arch::Word last);

  // The hot loop: no observer, runs of pre-decoded steps.
  RunResult fast_loop(const RunLimits& limits);
  // Reports every attempt (registers, queues, memory accesses) to `observer`.
  RunResult observed_loop(const RunLimits& limits, Observer& observer);
  // The configured host request was raised by the attempt just rejected.
  bool host_request_raised(const HostRequest& h) const;
  // Classifies a non-success outcome; true when the run stops.
  bool stops_after(scalar::ExecOutcome o, const scalar::DecodedInsn& d, arch::Word pc, const RunLimits& limits,
                   RunResult& r) const;

  arch::Machine& m_;
  std::unique_ptr<Entry[], FreeDeleter> cache_;
  // The decode of the stop PC during a fast run.
  scalar::DecodedInsn watched_;
  arch::Word watched_pc_ = 0;
  bool watched_valid_ = false;
  std::unique_ptr<Run[], FreeDeleter> runs_;
  std::vector<RunStep> run_pool_;
  std::vector<Fusion> fusions_;  // emptied with run_pool_
  std::vector<scalar::RegisterOp> fused_ops_;  // one per body step (the SETC's unused)
  // The bytes of the run being executed: a store into them stops the run
  // after the storing attempt, and the next fetch re-decodes.
  arch::Word active_start_ = 0, active_last_ = 0;  // meaningful while run_stop_ != 0
  // Address of the step the executing run stops before; the code-write hook
  // sets it to 0 to stop the run after the current attempt.
  std::uintptr_t run_stop_ = 0;
  // Translated blocks linked to each other (TranslatedBlock::link) follow a
  // link only while this holds the value it was made at: every change to
  // the run directory that could drop or replace a linked run (a code
  // write, forgetting or flushing runs, a slot taken over by another run)
  // advances it (docs/architecture.md "Chaining fused blocks").
  std::uint64_t link_epoch_ = 0;
  // The translated block whose whole pass ended the last pass of a run
  // (null if another pass came last), and the epoch then: a link from it to
  // the fused run entered next is made while the epoch holds.
  const TranslatedBlock* chain_from_ = nullptr;
  std::uint64_t chain_epoch_ = 0;
  std::uint64_t misses_ = 0;
  std::uint64_t fused_passes_ = 0;
  std::uint64_t translated_passes_ = 0;
  bool translate_;
};

}  // namespace pto::runner
