// The run loop: fetch with the length rule, a decode cache keyed by PC, and
// two loops chosen once per run — a fast one with no observation, and a slow
// one that reports every attempt to an observer (tracing, state capture).
#pragma once

#include <array>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "arch/machine.hpp"
#include "runner/dispatch.hpp"

namespace pto::runner {

enum class StopReason : std::uint8_t {
  StopPc,          // reached --stop-pc (after --stop-after-hits hits)
  ReturnPc,        // reached --return-pc (the program returned)
  MaxSteps,        // the step budget ran out
  UnhandledFault,  // a fault trapped to a ring whose EVBASE is 0
  NotImplemented,  // an instruction this model does not execute
  HostLimit,       // guest memory exceeded the host cap
};
std::string_view stop_reason_name(StopReason r);

struct RunLimits {
  std::uint64_t max_steps = std::numeric_limits<std::uint64_t>::max();
  std::optional<arch::Word> stop_pc;
  std::uint64_t stop_after_hits = 1;
  std::optional<arch::Word> return_pc;
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
  scalar::ExecOutcome outcome = scalar::ExecOutcome::Next;
  arch::FaultCode fault = arch::FaultCode::Fault_None;
  arch::Word fault_address = 0;
  std::vector<std::pair<unsigned, arch::Word>> gpr_writes;  // changed registers
  std::vector<arch::Word> t_pushes, u_pushes;
  std::vector<arch::MemoryAccess> accesses;
  arch::Word next_pc = 0;
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

 private:
  struct Entry {
    arch::Word tag = ~arch::Word{0};
    scalar::DecodedInsn insn;
  };
  static constexpr unsigned kCacheBits = 13;
  static constexpr arch::Word kCacheMask = (arch::Word{1} << kCacheBits) - 1;

  const scalar::DecodedInsn& lookup(arch::Word pc) {
    Entry& e = cache_[(pc >> 1) & kCacheMask];
    if (e.tag != pc) fill(e, pc);
    return e.insn;
  }
  void fill(Entry& e, arch::Word pc);
  // Drops the cached decode of `pc` (the fast loop keeps stop and return PCs
  // out of the cache so that arriving there always takes the miss path).
  void evict(arch::Word pc) {
    Entry& e = cache_[(pc >> 1) & kCacheMask];
    if (e.tag == pc) e.tag = ~arch::Word{0};
  }
  scalar::DecodedInsn fetch_and_decode(arch::Word pc);
  static void on_code_write(void* self, arch::Word address, arch::Word size);

  // The hot loop: no observer, stop checks on locals, the cache inline.
  RunResult fast_loop(const RunLimits& limits);
  // Reports every attempt (registers, queues, memory accesses) to `observer`.
  RunResult observed_loop(const RunLimits& limits, Observer& observer);
  // Classifies a non-success outcome; true when the run stops.
  bool stops_after(scalar::ExecOutcome o, const scalar::DecodedInsn& d, arch::Word pc, RunResult& r) const;

  arch::Machine& m_;
  std::unique_ptr<Entry[]> cache_;
  // Decodes of the stop PC [0] and the return PC [1] during a fast run.
  std::array<Entry, 2> watched_;
  std::uint64_t misses_ = 0;
};

}  // namespace pto::runner
