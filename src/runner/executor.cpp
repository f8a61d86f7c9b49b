#include "runner/executor.hpp"

#include <fmt/format.h>

#include "block/bundle_engine.hpp"
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
  m.set_fault(FaultCode::Fault_InstructionPC, m.state.pc);
  return ExecOutcome::Fault;
}

ExecOutcome instruction_page_fault(Machine& m, const DecodedInsn&) {
  m.set_fault(FaultCode::Fault_InstructionPage, m.state.pc);
  return ExecOutcome::Fault;
}

DecodedInsn fetch_fault_record(scalar::Handler h) {
  DecodedInsn d;
  d.handler = h;
  return d;
}

}  // namespace

std::string_view stop_reason_name(StopReason r) {
  switch (r) {
    case StopReason::StopPc: return "stop-pc";
    case StopReason::ReturnPc: return "return-pc";
    case StopReason::MaxSteps: return "max-steps";
    case StopReason::UnhandledFault: return "unhandled-fault";
    case StopReason::NotImplemented: return "not-implemented";
    case StopReason::HostLimit: return "host-limit";
  }
  return "?";
}

Executor::Executor(Machine& m) : m_(m), cache_(new Entry[kCacheMask + 1]) {
  m_.memory.set_code_write_hook(&Executor::on_code_write, this);
}

Executor::~Executor() { m_.memory.set_code_write_hook(nullptr, nullptr); }

void Executor::flush_decode_cache() {
  for (Word i = 0; i <= kCacheMask; ++i) cache_[i].tag = ~Word{0};
  for (Entry& w : watched_) w.tag = ~Word{0};
}

void Executor::on_code_write(void* self, Word address, Word size) {
  // An instruction starting up to 6 bytes before the write may cover it (or
  // look ahead into it for the fused-call length rule).
  auto* ex = static_cast<Executor*>(self);
  const Word first = address >= 6 ? (address - 6) & ~Word{1} : 0;
  const Word last = address + size;
  if (last - first > 2 * (kCacheMask + 1)) {
    ex->flush_decode_cache();
    return;
  }
  for (Word pc = first; pc < last; pc += 2) ex->evict(pc);
  for (Entry& w : ex->watched_) {
    if (w.tag >= first && w.tag < last) w.tag = ~Word{0};
  }
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

void Executor::fill(Entry& e, Word pc) {
  ++misses_;
  e.insn = fetch_and_decode(pc);
  e.tag = pc;
  if (e.insn.length_bytes != 0) {
    m_.memory.mark_code_page(pc);
    m_.memory.mark_code_page(pc + e.insn.length_bytes + 1);  // lookahead halfword
  }
}

const DecodedInsn& Executor::decoded_at(Word pc) { return lookup(pc); }

ExecOutcome Executor::step() { return execute(m_, lookup(m_.state.pc)); }

bool Executor::stops_after(ExecOutcome o, const DecodedInsn& d, Word pc, RunResult& r) const {
  if (o == ExecOutcome::NotImplemented) {
    r.reason = StopReason::NotImplemented;
    r.fault_pc = pc;
    // A tile block stopped at its terminator names the tile operation (tile engine).
    const std::string tile_detail = block::tile_not_implemented_detail(m_);
    r.detail = tile_detail.empty() ? fmt::format("not implemented in this model: {}", d.desc().mnemonic) : tile_detail;
    return true;
  }
  // A fault whose target ring has no vector (EVBASE = 0) resumes at the
  // fault address: nothing handles it, so the run stops.
  const arch::State& s = m_.state;
  if (m_.state.banked_reg(s.current_acr, arch::kEvbaseLow) != 0) return false;
  r.reason = StopReason::UnhandledFault;
  r.fault = s.last_fault;
  r.fault_address = s.fault_address;
  r.fault_pc = pc;
  r.detail = fmt::format("{} at pc {:#x}, fault address {:#x}", arch::fault_name(s.last_fault), pc, s.fault_address);
  return true;
}

RunResult Executor::fast_loop(const RunLimits& limits) {
  // TPC and the step count live in registers: the next lookup depends on a
  // register add, not on a store-to-load round trip through State.  TPC is
  // written back after every sequential step, so a handler sees exactly the
  // state the one-step `execute` gives it.
  Machine& m = m_;
  arch::State& s = m.state;
  Entry* const cache = cache_.get();
  RunResult r;
  const Word stop_pc = limits.stop_pc.value_or(~Word{0});
  const Word return_pc = limits.return_pc.value_or(~Word{0});
  const std::uint64_t max_steps = limits.max_steps;
  std::uint64_t hits = 0;
  std::uint64_t steps = 0;
  // The stop and return PCs stay out of the cache for the whole run: every
  // arrival there misses, and the miss path does the stop checks (and counts
  // stop-PC hits), so the hit path needs no per-instruction compare.
  evict(stop_pc);
  evict(return_pc);
  Word pc = s.pc;
  try {
    while (steps < max_steps) {
      Entry* e = &cache[(pc >> 1) & kCacheMask];
      if (e->tag != pc) [[unlikely]] {
        if (pc == stop_pc || pc == return_pc) {
          if (pc == stop_pc && ++hits >= limits.stop_after_hits) {
            r.reason = StopReason::StopPc;
            break;
          }
          if (pc == return_pc) {
            r.reason = StopReason::ReturnPc;
            break;
          }
          e = &watched_[pc == stop_pc ? 0 : 1];
        }
        if (e->tag != pc) fill(*e, pc);
      }
      const DecodedInsn& d = e->insn;
      begin_attempt(s);
      const ExecOutcome o = admit_and_run(m, d);
      ++steps;
      if (o == ExecOutcome::Next) [[likely]] {
        pc += d.length_bytes;
        s.pc = pc;
        continue;
      }
      const Word insn_pc = pc;
      pc = s.pc;
      if (o >= ExecOutcome::Fault && stops_after(o, d, insn_pc, r)) break;
    }
  } catch (const arch::HostMemoryExhausted& e) {
    r.reason = StopReason::HostLimit;
    r.detail = e.what();
  }
  r.steps = steps;
  r.pc = s.pc;
  return r;
}

RunResult Executor::observed_loop(const RunLimits& limits, Observer& observer) {
  arch::State& s = m_.state;
  RunResult r;
  const Word stop_pc = limits.stop_pc.value_or(~Word{0});
  const Word return_pc = limits.return_pc.value_or(~Word{0});
  std::uint64_t hits = 0;
  std::vector<arch::MemoryAccess> accesses;
  m_.set_access_log(&accesses);
  try {
    while (r.steps < limits.max_steps) {
      const Word pc = s.pc;
      if (pc == stop_pc && ++hits >= limits.stop_after_hits) {
        r.reason = StopReason::StopPc;
        break;
      }
      if (pc == return_pc) {
        r.reason = StopReason::ReturnPc;
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
      ev.fault = s.last_fault;
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
      if (o >= ExecOutcome::Fault && stops_after(o, d, pc, r)) break;
    }
  } catch (const arch::HostMemoryExhausted& e) {
    r.reason = StopReason::HostLimit;
    r.detail = e.what();
  }
  m_.set_access_log(nullptr);
  r.pc = s.pc;
  return r;
}

RunResult Executor::run(const RunLimits& limits, Observer* observer) {
  return observer ? observed_loop(limits, *observer) : fast_loop(limits);
}

}  // namespace pto::runner
