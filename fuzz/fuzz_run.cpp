// libFuzzer target: a generated program (fuzz/program_gen.hpp: legal words
// of the catalog's forms and whole bundles, drawn from the input) run by the
// fast loop (runs, fused loop blocks) and by the observed loop (one `execute`
// per attempt); the stops and the state digests must agree.  The reference
// configuration keeps guest memory at 4096 bytes.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <vector>

#include "arch/machine.hpp"
#include "program_gen.hpp"
#include "rig.hpp"
#include "runner/executor.hpp"
#include "runner/state_digest.hpp"

namespace {

constexpr pto::arch::Word kCode = 0x100;
constexpr std::size_t kMaxCodeBytes = 2048;
// GPR i starts at i * kRegisterSpacing: every register is a distinct, aligned
// address inside the 4096-byte memory, so loads, stores and memory commands
// reach memory instead of faulting on their first address.
constexpr pto::arch::Word kRegisterSpacing = 0x80;

struct IgnoringObserver : pto::runner::Observer {
  void on_retire(const pto::arch::Machine&, const pto::runner::Retired&) override {}
};

struct Outcome {
  pto::runner::RunResult result;
  pto::runner::StateDigest state;
};

void seed_registers(pto::arch::State& s) {
  for (auto& file : s.gpr)
    for (unsigned i = 1; i < pto::arch::kAbsoluteGprCount; ++i) file[i] = i * kRegisterSpacing;
}

// control: step budget and whether faults have a vector.
Outcome run(pto::fuzz::Rig& rig, std::span<const std::uint8_t> code, std::uint8_t control, bool observed) {
  rig.reset();
  pto::arch::Machine& m = rig.m;
  m.memory.write_bytes(kCode, code);
  m.state.pc = kCode;
  seed_registers(m.state);
  if (control & 1) m.state.banked_reg(0, pto::arch::kEvbaseLow) = kCode;
  pto::runner::RunLimits limits;
  limits.max_steps = 8 + std::uint64_t{control};
  limits.run_trap_handlers = true;  // faults with a vector run their handler
  IgnoringObserver observer;
  const pto::runner::RunResult result = rig.ex.run(limits, observed ? &observer : nullptr);
  return {result, pto::runner::state_digest(m)};
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  pto::fuzz::ChoiceReader choices(std::span<const std::uint8_t>(data + 1, size - 1));
  const std::vector<std::uint8_t> code = pto::fuzz::generate_code(choices, kMaxCodeBytes);
  // One machine per loop kind, reset for each input (rig.hpp).
  static pto::fuzz::Rig fast_rig(pto::arch::MachineConfig::reference()), observed_rig(pto::arch::MachineConfig::reference());
  const Outcome fast = run(fast_rig, code, data[0], false);
  const Outcome slow = run(observed_rig, code, data[0], true);
  if (fast.result.reason != slow.result.reason || fast.result.steps != slow.result.steps ||
      fast.result.pc != slow.result.pc || fast.result.fault != slow.result.fault || !(fast.state == slow.state)) {
    std::abort();
  }
  return 0;
}
