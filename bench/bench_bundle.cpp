// Whole bundles through the machine's dispatcher (runner::execute with
// pre-decoded words, as the run loop does): TLOAD, TLOAD, a VEC operation
// (TADD, TMUL, TMAX) and TSTORE on 64 KiB tiles (one PE, definedness
// tracking on), FP32, FP16 and BF16 (and the U32 TADD of the first
// measurement) in the reference and ieee profiles, against a host memcpy
// of the same bytes measured in the same run.  The sources in memory are
// finite values in [0.5, 2) of the type.
//
// Bytes per iteration: two 64 KiB loads, a 64 KiB operation (128 KiB in)
// and a 64 KiB store; the baseline copies 4 x 64 KiB between distinct,
// pre-touched 64 KiB buffers.  Counter `memcpy_fraction` = bundle
// throughput / memcpy throughput (issue 21's target is >= 0.3).
#include <benchmark/benchmark.h>

#include <bit>
#include <random>
#include <vector>

#include "arch/machine.hpp"
#include "block/bundle_engine.hpp"
#include "isa/length.hpp"
#include "isa/tile_start.hpp"
#include "memcpy_baseline.hpp"
#include "runner/dispatch.hpp"

namespace {

using namespace pto;
using tile::DataType;
using tile::element_bits;

constexpr std::uint64_t kTileBytes = 65536;
constexpr unsigned kCopiesPerIteration = 4;
constexpr std::uint32_t kRows = 128;
constexpr std::uint32_t kRowBytes = kTileBytes / kRows;

// Encodings from the catalog layouts (checked by `pto dis`): BSTART words
// carry the data type code in bits [31:27] and the tile function in
// [26:20] (BSTART.TLOAD U32 = 0xC8011181, BSTART.TSTORE U32 = 0xC8111181,
// BSTART.VEC TADD, U32 = 0xC8019181; TMUL is function 2, TMAX 11);
// B.DIM zero, v, ->LBn; B.IOT with SizeCode 10, PEMode 100 (PE3 only), L;
// B.IOR RegSrc0, RegSrc1.
std::uint64_t bstart(std::uint32_t base, DataType t, unsigned function = 0) {
  return base | std::uint64_t{static_cast<std::uint8_t>(t)} << 27 | std::uint64_t{function} << 20;
}
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
    if (scalar::stops_run(o)) return false;
  }
  return true;
}

// An element in [0.5, 2) of type t (U32: the binary32 bits).
std::uint64_t finite_element(DataType t, std::mt19937& g) {
  const std::uint32_t f = std::bit_cast<std::uint32_t>(std::uniform_real_distribution<float>(0.5f, 2.0f)(g));
  if (t == DataType::BF16) return f >> 16;
  if (t == DataType::FP16) return 0x3c00 | (f & 0x3ff);
  return f;
}

// Args: data type, profile (1 = ieee), tile function (0 TADD, 2 TMUL, 11 TMAX).
void BM_TileLoadLoadOpStore(benchmark::State& state) {
  const auto type = static_cast<DataType>(state.range(0));
  const auto function = static_cast<unsigned>(state.range(2));
  arch::MachineConfig config = arch::MachineConfig::real();
  config.numeric_profile = state.range(1) ? arch::NumericProfileKind::Ieee : arch::NumericProfileKind::Reference;
  arch::Machine m(config);
  const unsigned bytes = element_bits(type) / 8;
  std::mt19937 g(7);
  for (std::uint64_t a = 0; a < 2 * kTileBytes; a += bytes) m.memory.write(a, bytes, finite_element(type, g));
  m.state.gpr[0][2] = 0;
  m.state.gpr[0][3] = kRowBytes;
  m.state.gpr[0][4] = kTileBytes;
  m.state.gpr[0][5] = 2 * kTileBytes;
  m.state.pc = 0x1000000;
  tile::TileFile& file = block::tile_state(m).file;
  const unsigned columns = kRowBytes / bytes;
  const std::uint64_t op_word = bstart(0x00019181, type, function);
  const auto load_a = predecode({bstart(0x00011181, type), bdim(0, columns), bdim(1, kRows), biot_dst(1), bior(2, 3), 1});
  const auto load_b = predecode({bstart(0x00011181, type), bdim(0, columns), bdim(1, kRows), biot_dst(1), bior(4, 3), 1});
  const auto op = predecode({op_word, bdim(0, columns), bdim(1, kRows), biot_src_src_dst(16, 17), 1});
  const auto store = predecode({bstart(0x00111181, type), biot_src(0), bior(5, 3), 1});
  if (!isa::tile_op_of_start(op_word)) {
    state.SkipWithError("not a tile operation");
    return;
  }
  const double start = bench::thread_seconds();
  for (auto _ : state) {
    if (!(run_block(m, load_a) && run_block(m, load_b) && run_block(m, op) && run_block(m, store))) {
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

void float_types(benchmark::internal::Benchmark* b, int function) {
  for (DataType t : {DataType::FP32, DataType::FP16, DataType::BF16})
    for (int ieee : {0, 1}) b->Args({static_cast<int>(t), ieee, function});
}

BENCHMARK(BM_TileLoadLoadOpStore)
    ->Name("BM_TileLoadLoadAddStore")
    ->Args({static_cast<int>(DataType::U32), 1, 0})
    ->Apply([](benchmark::internal::Benchmark* b) { float_types(b, 0); })
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TileLoadLoadOpStore)
    ->Name("BM_TileLoadLoadMulStore")
    ->Apply([](benchmark::internal::Benchmark* b) { float_types(b, 2); })
    ->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_TileLoadLoadOpStore)
    ->Name("BM_TileLoadLoadMaxStore")
    ->Apply([](benchmark::internal::Benchmark* b) { float_types(b, 11); })
    ->Unit(benchmark::kMicrosecond);

}  // namespace
