// Run-loop throughput on a scalar checksum kernel (real configuration,
// tracing off) and the start-up cost of a tiny program.
#include <benchmark/benchmark.h>

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

#include "arch/machine.hpp"
#include "isa/decoder.hpp"
#include "runner/executor.hpp"
#include "scalar_kernels.hpp"

namespace {

using pto::arch::Word;

Word enc(std::string_view mnemonic, pto::support::NamedFields named, std::string_view variant = "") {
  return pto::support::encode_named(mnemonic, named, variant);
}

constexpr Word kCode = 0x10000, kData = 0x20000;
enum : unsigned { a0 = 2, a1 = 3, a2 = 4, a3 = 5, a4 = 6, a5 = 7, a6 = 8 };

using pto::support::checksum_kernel;

// The same loop as three blocks, each committing to the next (12 attempts
// per iteration): every pass enters another block (docs/architecture.md
// "Chaining fused blocks").
// a: BSTART.STD FALL ; addi a0, 1 -> a0 ; andi a0, 511 -> a5 ; BSTOP
// b: BSTART.STD FALL ; add a3, a5<<3 -> a6 ; ldi [a6, 0] -> a2 ; BSTOP
// c: BSTART.STD COND a ; add a4, a2 -> a4 ; setc.ne a0, a1 ; BSTOP
std::vector<Word> chained_kernel() {
  const Word fall = enc("BSTART.STD", {}, "FALL");
  return {fall,
          enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
          enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 511}}),
          enc("BSTOP", {}),
          fall,
          enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 3}}),
          enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}}),
          enc("BSTOP", {}),
          enc("BSTART.STD", {{"simm17", -32 / 2}}, "COND"),
          enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a2}, {"SrcRType", 3}, {"shamt", 0}}),
          enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
          enc("BSTOP", {})};
}

// The loop as a call and a return (12 attempts per iteration): a calls f,
// f returns through _ReturnAddress to c, c loops to a.  All three blocks
// run fused and chain into one another; f's link to c is keyed by the
// target its start reads (docs/architecture.md "Returns").
// a (kCode):      BSTART.CALL f, ->ra = c ; addi a0, 1 -> a0 ; BSTOP
// c (kCode + 12): BSTART.STD COND a ; add a4, a2 -> a4 ; setc.ne a0, a1 ; BSTOP
// exit (kCode + 28), never executed
// f (kCode + 32): BSTART.STD RET ; andi a0, 511 -> a5 ; add a3, a5<<3 -> a6 ;
//                 ldi [a6, 0] -> a2 ; BSTOP
constexpr Word kCallExit = kCode + 28;
std::vector<Word> call_return_kernel() {
  return {enc("BSTART.CALL", {{"simm12", 32 / 2}, {"uimm5", (12 - 2) / 2}}),
          enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
          enc("BSTOP", {}),
          enc("BSTART.STD", {{"simm17", -12 / 2}}, "COND"),
          enc("ADD", {{"RegDst", a4}, {"SrcL", a4}, {"SrcR", a2}, {"SrcRType", 3}, {"shamt", 0}}),
          enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
          enc("BSTOP", {}),
          enc("BSTOP", {}),  // the exit (the stop PC)
          enc("BSTART.STD", {}, "RET"),
          enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 511}}),
          enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 3}}),
          enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}}),
          enc("BSTOP", {})};
}

// The checksum loop with two FSU forms (9 attempts per iteration):
// loop: BSTART.STD COND loop ; addi a0, 1 -> a0 ; andi a0, 511 -> a5 ;
//       add a3, a5<<3 -> a6 ; ldi [a6, 0] -> a2 ;
//       fmadd.d a2 * a2 + a4 -> a4 ; fadd.s r9 + a2 -> r9 ;
//       setc.ne a0, a1 ; BSTOP
// In the reference profile both are carrier arithmetic the translated code
// inlines; in the ieee profile they call their handlers (docs/architecture.md
// "FSU forms").
std::vector<Word> fsu_kernel() {
  return {enc("BSTART.STD", {{"simm17", 0}}, "COND"),
          enc("ADDI", {{"RegDst", a0}, {"SrcL", a0}, {"uimm12", 1}}),
          enc("ANDI", {{"RegDst", a5}, {"SrcL", a0}, {"simm12", 511}}),
          enc("ADD", {{"RegDst", a6}, {"SrcL", a3}, {"SrcR", a5}, {"SrcRType", 3}, {"shamt", 3}}),
          enc("LDI", {{"RegDst", a2}, {"SrcL", a6}, {"simm12", 0}}),
          enc("FMADD", {{"RegDst", a4}, {"SrcA", a4}, {"SrcL", a2}, {"SrcR", a2}, {"SrcType", 0}}),
          enc("FADD", {{"RegDst", 9}, {"SrcL", 9}, {"SrcR", a2}, {"SrcType", 1}}),
          enc("SETC.NE", {{"SrcL", a0}, {"SrcR", a1}, {"SrcRType", 0}}),
          enc("BSTOP", {})};
}

Word load_words(pto::arch::Machine& m, const std::vector<Word>& words) {
  Word pc = kCode;
  for (Word w : words) {
    m.memory.write(pc, 4, w);
    pc += 4;
  }
  for (Word i = 0; i < 512; ++i) m.memory.write(kData + 8 * i, 8, i * 0x9E3779B97F4A7C15ull);
  return pc;  // exit address
}

Word load_kernel(pto::arch::Machine& m) { return load_words(m, checksum_kernel()); }

// In both tiers: fused passes translated to host code, or interpreted.
// The stop PC is the end of the words unless `exit` says otherwise.
void run_kernel(benchmark::State& bs, bool translated, const std::vector<Word>& words,
                std::optional<Word> exit = std::nullopt,
                pto::arch::NumericProfileKind profile = pto::arch::NumericProfileKind::Ieee) {
  if (translated && !pto::runner::translation_supported()) {
    bs.SkipWithError("this build has no translation tier");
    return;
  }
  const std::uint64_t iterations = static_cast<std::uint64_t>(bs.range(0));
  std::uint64_t steps = 0;
  pto::arch::MachineConfig config = pto::arch::MachineConfig::real();
  config.numeric_profile = profile;
  for (auto _ : bs) {
    pto::arch::Machine m(config);
    const Word end = load_words(m, words);
    m.state.pc = kCode;
    m.state.write_gpr(a1, iterations);
    m.state.write_gpr(a3, kData);
    pto::runner::Executor ex(m);
    ex.set_translation(translated);
    pto::runner::RunLimits limits;
    limits.stop_pc = exit.value_or(end);
    const auto r = ex.run(limits);
    if (r.reason != pto::runner::StopReason::StopPc) bs.SkipWithError("kernel did not reach its exit");
    steps += r.steps;
    benchmark::DoNotOptimize(m.state.gpr[0][a4]);
  }
  bs.counters["MIPS"] = benchmark::Counter(static_cast<double>(steps) / 1e6, benchmark::Counter::kIsRate);
}

void BM_ChecksumKernel(benchmark::State& bs, bool translated) { run_kernel(bs, translated, checksum_kernel()); }
void BM_ChainedBlocks(benchmark::State& bs, bool translated) { run_kernel(bs, translated, chained_kernel()); }
void BM_CallReturnLoop(benchmark::State& bs, bool translated) {
  run_kernel(bs, translated, call_return_kernel(), kCallExit);
}
void BM_FsuLoop(benchmark::State& bs, bool translated, pto::arch::NumericProfileKind profile) {
  run_kernel(bs, translated, fsu_kernel(), std::nullopt, profile);
}
// CPU time (the machines are shared): the MIPS counter is per CPU second.
BENCHMARK_CAPTURE(BM_ChecksumKernel, translated, true)->Arg(40'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChecksumKernel, interpreted, false)->Arg(40'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChainedBlocks, translated, true)->Arg(20'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_ChainedBlocks, interpreted, false)->Arg(20'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CallReturnLoop, translated, true)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_CallReturnLoop, interpreted, false)->Arg(10'000'000)->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FsuLoop, translated_reference, true, pto::arch::NumericProfileKind::Reference)
    ->Arg(20'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FsuLoop, interpreted_reference, false, pto::arch::NumericProfileKind::Reference)
    ->Arg(20'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FsuLoop, translated_ieee, true, pto::arch::NumericProfileKind::Ieee)
    ->Arg(5'000'000)
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_FsuLoop, interpreted_ieee, false, pto::arch::NumericProfileKind::Ieee)
    ->Arg(5'000'000)
    ->Unit(benchmark::kMillisecond);

// Machine construction, program load and a 10-iteration run.
void BM_StartupTinyProgram(benchmark::State& bs) {
  for (auto _ : bs) {
    pto::arch::Machine m;
    const Word exit = load_kernel(m);
    m.state.pc = kCode;
    m.state.write_gpr(a1, 10);
    m.state.write_gpr(a3, kData);
    pto::runner::Executor ex(m);
    pto::runner::RunLimits limits;
    limits.stop_pc = exit;
    benchmark::DoNotOptimize(ex.run(limits).steps);
  }
}
BENCHMARK(BM_StartupTinyProgram)->Unit(benchmark::kMicrosecond);

}  // namespace
