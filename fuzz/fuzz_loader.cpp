// libFuzzer target: loading arbitrary bytes as a program must end in a
// LoadedProgram or a LoadError, never a crash; a loaded program then runs a
// few hundred steps, which must end in a clean stop reason.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <variant>

#include "arch/machine.hpp"
#include "runner/executor.hpp"
#include "runner/loader.hpp"

namespace {

// Small enough that a hostile image cannot exhaust the fuzzing host.
constexpr std::uint64_t kHostCapBytes = std::uint64_t{16} << 20;
constexpr std::uint64_t kMaxSteps = 512;

void load_and_run(std::span<const std::uint8_t> bytes, bool check_identity) {
  pto::arch::MachineConfig config = pto::arch::MachineConfig::real();
  config.memory.host_cap_bytes = kHostCapBytes;
  pto::arch::Machine m(config);
  try {
    const pto::runner::LoadResult r = pto::runner::load_elf(m, bytes, check_identity);
    const auto* program = std::get_if<pto::runner::LoadedProgram>(&r);
    if (program == nullptr) return;
    if (program->image_begin > program->entry || program->entry >= program->image_end) std::abort();
    m.state.pc = program->entry;
    pto::runner::Executor ex(m);
    pto::runner::RunLimits limits;
    limits.max_steps = kMaxSteps;
    const pto::runner::RunResult run = ex.run(limits);
    if (run.steps > kMaxSteps) std::abort();
  } catch (const pto::arch::HostMemoryExhausted&) {
    // A clean, reported resource limit (pto run exits with its host-limit code).
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::span<const std::uint8_t> bytes(data, size);
  load_and_run(bytes, true);
  load_and_run(bytes, false);
  return 0;
}
