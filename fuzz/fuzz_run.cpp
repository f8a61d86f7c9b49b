// libFuzzer target: arbitrary bytes as code, run by the fast loop (runs,
// fused loop blocks) and by the observed loop (one `execute` per attempt);
// the stops and the whole state dumps must agree.  The reference
// configuration keeps guest memory at 4096 bytes.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "arch/machine.hpp"
#include "runner/executor.hpp"
#include "runner/state_dump.hpp"

namespace {

constexpr pto::arch::Word kCode = 0x100;
constexpr std::size_t kMaxCodeBytes = 2048;

struct IgnoringObserver : pto::runner::Observer {
  void on_retire(const pto::arch::Machine&, const pto::runner::Retired&) override {}
};

struct Outcome {
  pto::runner::RunResult result;
  nlohmann::json state;
};

// data[0]: step budget and whether faults have a vector; the rest: code.
Outcome run(std::span<const std::uint8_t> data, bool observed) {
  pto::arch::Machine m(pto::arch::MachineConfig::reference());
  const auto code = data.subspan(1, std::min(data.size() - 1, kMaxCodeBytes));
  m.memory.write_bytes(kCode, code);
  m.state.pc = kCode;
  if (data[0] & 1) m.state.banked_reg(0, pto::arch::kEvbaseLow) = kCode;
  pto::runner::Executor ex(m);
  pto::runner::RunLimits limits;
  limits.max_steps = 8 + 4 * std::uint64_t{data[0]};
  limits.run_trap_handlers = true;  // faults with a vector run their handler
  IgnoringObserver observer;
  Outcome o{ex.run(limits, observed ? &observer : nullptr), {}};
  o.state = pto::runner::dump_state(m);
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 3) return 0;
  const std::span<const std::uint8_t> bytes(data, size);
  const Outcome fast = run(bytes, false);
  const Outcome slow = run(bytes, true);
  if (fast.result.reason != slow.result.reason || fast.result.steps != slow.result.steps ||
      fast.result.pc != slow.result.pc || fast.result.fault != slow.result.fault || fast.state != slow.state) {
    std::abort();
  }
  return 0;
}
