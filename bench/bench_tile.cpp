// TLOAD + TLOAD + TADD + TSTORE on 64 KiB U32 tiles (128 x 128, one PE,
// definedness tracking on), executed through the machine's dispatcher
// (runner::execute with pre-decoded words, as the run loop does), against a
// host memcpy of the same bytes measured in the same run.
//
// Bytes per iteration: two 64 KiB loads, a 64 KiB add (128 KiB in) and a
// 64 KiB store; the baseline copies 4 x 64 KiB between distinct, pre-touched
// 64 KiB buffers.  Counter `memcpy_fraction` = tile throughput / memcpy
// throughput (the target is >= 0.25).
#include <benchmark/benchmark.h>

#include <vector>

#include "arch/machine.hpp"
#include "block/bundle_engine.hpp"
#include "isa/length.hpp"
#include "memcpy_baseline.hpp"
#include "runner/dispatch.hpp"

namespace {

using namespace pto;

constexpr std::uint64_t kTileBytes = 65536;
constexpr unsigned kCopiesPerIteration = 4;

// Encodings from the catalog layouts (checked by `pto dis`):
// BSTART.TLOAD U32 = 0xC8011181, BSTART.TSTORE U32 = 0xC8111181,
// BSTART.VEC TADD, U32 = 0xC8019181; B.DIM zero, v, ->LBn; B.IOT with
// SizeCode 10, PEMode 100 (PE3 only), L; B.IOR RegSrc0, RegSrc1.
std::uint64_t bdim(unsigned lb, unsigned v) { return 0x43 | (lb << 12) | (std::uint64_t{v} << 20); }
std::uint64_t biot_dst(unsigned hand) { return 0x6013 | (hand << 7) | (4U << 9) | (10U << 15) | (1U << 19); }
std::uint64_t biot_src_src_dst(unsigned a, unsigned b) {
  return 0x4013 | (4U << 9) | (10U << 15) | (1U << 19) | (std::uint64_t{a} << 20) | (std::uint64_t{b} << 26);
}
std::uint64_t biot_src(unsigned a) { return 0x00005013ULL | (4U << 9) | (1U << 19) | (std::uint64_t{a} << 20); }
std::uint64_t bior(unsigned s0, unsigned s1) { return 0x13 | (s0 << 15) | (s1 << 20); }

std::vector<scalar::DecodedInsn> predecode(const std::vector<std::uint64_t>& words) {
  std::vector<scalar::DecodedInsn> out;
  for (auto w : words) out.push_back(runner::predecode(w, isa::base_length_bits(static_cast<std::uint16_t>(w))));
  return out;
}

bool run_block(arch::Machine& m, const std::vector<scalar::DecodedInsn>& block) {
  for (const scalar::DecodedInsn& d : block) {
    const scalar::ExecOutcome o = runner::execute(m, d);
    if (o == scalar::ExecOutcome::Fault || o == scalar::ExecOutcome::NotImplemented) return false;
  }
  return true;
}

void BM_TileLoadLoadAddStore(benchmark::State& state) {
  arch::Machine m(arch::MachineConfig::real());
  for (std::uint64_t a = 0; a < 3 * kTileBytes; a += 8) m.memory.write(a, 8, a * 0x9E3779B97F4A7C15ULL);
  m.state.gpr[0][2] = 0;
  m.state.gpr[0][3] = 512;  // 128 U32 columns
  m.state.gpr[0][4] = kTileBytes;
  m.state.gpr[0][5] = 2 * kTileBytes;
  m.state.pc = 0x1000000;
  tile::TileFile& file = block::tile_state(m).file;
  const auto load_a = predecode({0xC8011181, bdim(0, 128), bdim(1, 128), biot_dst(1), bior(2, 3), 1});
  const auto load_b = predecode({0xC8011181, bdim(0, 128), bdim(1, 128), biot_dst(1), bior(4, 3), 1});
  const auto add = predecode({0xC8019181, bdim(0, 128), bdim(1, 128), biot_src_src_dst(16, 17), 1});
  const auto store = predecode({0xC8111181, biot_src(0), bior(5, 3), 1});
  const double start = bench::thread_seconds();
  for (auto _ : state) {
    if (!(run_block(m, load_a) && run_block(m, load_b) && run_block(m, add) && run_block(m, store))) {
      state.SkipWithError("bundle failed");
      return;
    }
    file.release(0);
    file.release(16);
    file.release(17);
    benchmark::ClobberMemory();
  }
  const double tile_seconds = bench::thread_seconds() - start;
  bench::report_against_memcpy(state, state.iterations() * kCopiesPerIteration * kTileBytes, tile_seconds,
                               kCopiesPerIteration * kTileBytes);
}
BENCHMARK(BM_TileLoadLoadAddStore)->Unit(benchmark::kMicrosecond);

}  // namespace
