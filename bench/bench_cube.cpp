// CUBE products against the host's FMA peak, measured in the same process.
//
// BM_HostFmaPeak: single-core binary32 FMA throughput with independent
// accumulators on the widest FMA the CPU has (AVX-512F, else AVX2+FMA, else
// std::fma), in thread CPU time.
//
// BM_TMATMUL/<shape>/<type>/<profile> and BM_TGEMV/<type>/<profile>: one
// TMATMUL (TGEMV) semantic handler through its TileKernel entry (legality
// checked once; the timed loop is execute(): panels, kernel, publication of
// the destination with definedness; timed as a whole), on random finite
// inputs.  Counters:
// gmacs = multiply-adds per second / 1e9 and fma_peak_fraction = that rate
// over BM_HostFmaPeak's FMA rate.  `large` is a largest legal CUBE shape
// of the type: M = 32 and B at its 64 KiB or PTO_MODEL_TILE_ELEMENTS bound,
// K x N = 16384 for FP32 and 32768 for FP16, BF16 and S8, the most
// multiply-adds one TMATMUL can do (here with K = N: 32x128x128 FP32,
// 32x128x256 the others); `small` is 16x16x16; BM_TGEMV the large K x N
// with M = 1.
//
// BM_CubeTransport/<conversion>/<type>/<path>: TLOAD (ND2M32 / ND2M16 /
// ND2N8) into or TSTORE (M322ND / M162ND / N82ND) from a 32 KiB CUBE tile
// over a dense row-major memory image (tile::tload / tile::tstore, the
// transport's payload effects), by CELL block copies (`block`) or the
// element path they replace (`element`), with counter memcpy_fraction =
// its byte rate over host memcpy's in the same run (memcpy_baseline.hpp).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "memcpy_baseline.hpp"
#include "numerics/datatypes.hpp"
#include "tile/cube_copy.hpp"
#include "tile/cube_layout.hpp"
#include "tile/tile_memory.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/tile_ops.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PTO_BENCH_X86 1
#endif

namespace {

using namespace pto;

using bench::thread_seconds;

constexpr int kAccumulators = 12;  // FMA latency x ports, with room to spare
constexpr std::uint64_t kPeakSteps = 1 << 22;

// FMAs (lanes) per second over kPeakSteps x kAccumulators vector FMAs.
#ifdef PTO_BENCH_X86
__attribute__((target("avx512f"))) double fma_rate_avx512() {
  __m512 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_set1_ps(static_cast<float>(i));
  const __m512 a = _mm512_set1_ps(0.999999f), b = _mm512_set1_ps(1e-7f);
  const double start = thread_seconds();
  for (std::uint64_t s = 0; s < kPeakSteps; ++s)
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm512_fmadd_ps(acc[i], a, b);
  const double seconds = thread_seconds() - start;
  for (const __m512& v : acc) benchmark::DoNotOptimize(v);
  return static_cast<double>(kPeakSteps) * kAccumulators * 16 / seconds;
}

__attribute__((target("avx2,fma"))) double fma_rate_avx2() {
  __m256 acc[kAccumulators];
  for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_set1_ps(static_cast<float>(i));
  const __m256 a = _mm256_set1_ps(0.999999f), b = _mm256_set1_ps(1e-7f);
  const double start = thread_seconds();
  for (std::uint64_t s = 0; s < kPeakSteps; ++s)
    for (int i = 0; i < kAccumulators; ++i) acc[i] = _mm256_fmadd_ps(acc[i], a, b);
  const double seconds = thread_seconds() - start;
  for (const __m256& v : acc) benchmark::DoNotOptimize(v);
  return static_cast<double>(kPeakSteps) * kAccumulators * 8 / seconds;
}
#endif

double fma_rate_portable() {
  std::array<float, kAccumulators> acc{};
  const double start = thread_seconds();
  for (std::uint64_t s = 0; s < kPeakSteps / 16; ++s)
    for (float& v : acc) v = std::fma(v, 0.999999f, 1e-7f);
  const double seconds = thread_seconds() - start;
  benchmark::DoNotOptimize(acc);
  return static_cast<double>(kPeakSteps / 16) * kAccumulators / seconds;
}

double fma_rate() {
#ifdef PTO_BENCH_X86
  if (__builtin_cpu_supports("avx512f")) return fma_rate_avx512();
  if (__builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma")) return fma_rate_avx2();
#endif
  return fma_rate_portable();
}

// The best of three measurements, once per process.
double host_fma_peak() {
  static const double peak = std::max({fma_rate(), fma_rate(), fma_rate()});
  return peak;
}

void BM_HostFmaPeak(benchmark::State& state) {
  double rate = 0;
  for (auto _ : state) rate = std::max(rate, fma_rate());
  state.counters["gflops_fma"] = rate / 1e9;
  state.counters["gfma_peak"] = host_fma_peak() / 1e9;
}
BENCHMARK(BM_HostFmaPeak)->Iterations(3);

// One direct CUBE operation on Local tiles: D (0) = A (2) x B (4) [+ C (1)].
struct CubeOperation {
  tile::TileFile file;
  arch::BlockState bundle;
  tile::TileOperands operands;
  const tile::TileKernel* kernel = nullptr;

  CubeOperation(isa::TileOp op, unsigned function, tile::DataType t, std::uint32_t m, std::uint32_t k, std::uint32_t n) {
    bundle.operation.valid = true;
    bundle.operation.operation_class = arch::BundleOperationClass::TileMatrix;
    bundle.operation.selector_valid = true;
    bundle.operation.selector = static_cast<std::uint16_t>(function);
    bundle.operation.data_type_valid = true;
    bundle.operation.data_type = num::code_of(t);
    const tile::TileLayout layout = m <= 16 ? tile::TileLayout::CubeM16 : tile::TileLayout::CubeM32;
    const tile::DataType result = tile::matrix_accumulator_type(t);
    cube(2, m, k, t, layout);
    cube(4, k, n, t, tile::TileLayout::CubeN8);
    cube(0, m, n, result, layout);
    std::mt19937_64 rng(1);
    fill(2, t, rng);
    fill(4, t, rng);
    operands.destination[0] = 0;
    operands.source[0] = 2;
    operands.source[1] = 4;
    kernel = tile::tile_kernel_table().get(op);
    if (!kernel->operands_legal(file, operands, bundle)) kernel = nullptr;
  }

  void cube(tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, tile::DataType t, tile::TileLayout layout) {
    const tile::CubeGeometry g = tile::cube_geometry(layout, rows, columns, t);
    const tile::ConfigureRequest r{.capacity_bytes = std::bit_ceil(std::max(g.storage_bytes, tile::kTileCellBytes)),
                                   .valid_rows = rows, .valid_columns = columns, .data_type = t, .layout = layout,
                                   .location = tile::TileLocation::Matrix, .mask = 0b0001};
    static_cast<void>(file.configure_cube(i, r));
  }

  // Finite values of moderate magnitude (integers: any code).
  void fill(tile::TileIndex i, tile::DataType t, std::mt19937_64& rng) {
    tile::Tile& tile = file.tile(i);
    for (std::uint32_t r = 0; r < tile.descriptor().valid_rows; ++r)
      for (std::uint32_t c = 0; c < tile.descriptor().valid_columns; ++c) {
        const float v = std::uniform_real_distribution<float>(-2, 2)(rng);
        std::uint64_t raw = rng();
        if (t == tile::DataType::FP32) raw = std::bit_cast<std::uint32_t>(v);
        if (t == tile::DataType::BF16) raw = std::bit_cast<std::uint32_t>(v) >> 16;
        if (t == tile::DataType::FP16) raw = 0x3C00 | (rng() & 0x83FF);  // +-[1, 2)
        tile.write_element(r, c, raw & ((1ULL << tile::element_bits(t)) - 1));
      }
  }
};

void run_cube(benchmark::State& state, isa::TileOp op, unsigned function, tile::DataType t, tile::NumericProfile profile,
              std::uint32_t m, std::uint32_t k, std::uint32_t n) {
  CubeOperation c(op, function, t, m, k, n);
  if (c.kernel == nullptr) {
    state.SkipWithError("illegal operands");
    return;
  }
  std::array<std::byte, 16> no_memory{};
  tile::FlatTileMemory memory(no_memory);
  tile::TileExecutionContext context{c.file, memory, c.bundle, c.operands};
  context.profile = profile;
  // One clock reading per loop: the thread CPU clock is a system call, which
  // on a virtual machine costs a sizable part of a small TMATMUL.
  const double start = thread_seconds();
  for (auto _ : state) benchmark::DoNotOptimize(c.kernel->execute(context));
  const double seconds = thread_seconds() - start;
  const double macs = static_cast<double>(m) * k * n * static_cast<double>(state.iterations());
  state.counters["gmacs"] = macs / seconds / 1e9;
  state.counters["fma_peak_fraction"] = macs / seconds / host_fma_peak();
}

struct Shape {
  const char* name;
  std::uint32_t m, k, n;
};

Shape largest(tile::DataType t) {
  return t == tile::DataType::FP32 ? Shape{"large", 32, 128, 128} : Shape{"large", 32, 128, 256};
}

struct Transport {
  const char* conversion;
  bool store;
  tile::TileLayout layout;
  tile::DataType type;
  std::uint32_t rows, columns;
};

void run_transport(benchmark::State& state, const Transport& t, bool blocks) {
  tile::TileFile file;
  const tile::CubeGeometry g = tile::cube_geometry(t.layout, t.rows, t.columns, t.type);
  const tile::ConfigureRequest r{.capacity_bytes = std::bit_ceil(std::max(g.storage_bytes, tile::kTileCellBytes)),
                                 .valid_rows = t.rows, .valid_columns = t.columns, .data_type = t.type,
                                 .layout = t.layout, .location = tile::TileLocation::Matrix, .mask = 0b0001};
  if (file.configure_cube(0, r) != arch::FaultCode::Fault_None) {
    state.SkipWithError("illegal tile");
    return;
  }
  tile::Tile& tile = file.tile(0);
  const std::uint64_t row_bytes = std::uint64_t{t.columns} * tile::memory_element_bytes(t.type);
  const std::size_t bytes = row_bytes * t.rows;
  std::vector<std::byte> image(bytes);
  for (std::size_t i = 0; i < bytes; ++i) image[i] = static_cast<std::byte>(i * 13);
  tile::FlatTileMemory memory(image);
  static_cast<void>(tile::tload(tile, memory, 0, row_bytes));  // a defined source for TSTORE
  tile::set_cube_block_copies_enabled(blocks);
  const double start = thread_seconds();
  for (auto _ : state) {
    const tile::MemoryOutcome o = t.store ? tile::tstore(tile, memory, 0, row_bytes) : tile::tload(tile, memory, 0, row_bytes);
    benchmark::DoNotOptimize(o);
    benchmark::ClobberMemory();
  }
  const double seconds = thread_seconds() - start;
  tile::set_cube_block_copies_enabled(true);
  bench::report_against_memcpy(state, state.iterations() * bytes, seconds, 2 * bytes);
}

const int kRegistered = [] {
  using tile::DataType;
  using tile::NumericProfile;
  for (const DataType t : {DataType::FP16, DataType::BF16, DataType::FP32, DataType::S8})
    for (const NumericProfile p : {NumericProfile::Ieee, NumericProfile::Reference})
      for (const Shape s : {largest(t), Shape{"small", 16, 16, 16}}) {
        const std::string name = std::string("BM_TMATMUL/") + s.name + "/" + std::string(num::name(t)) + "/" +
                                 (p == NumericProfile::Ieee ? "ieee" : "reference");
        benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
          run_cube(state, isa::TileOp::TMATMUL, 0, t, p, s.m, s.k, s.n);
        });
      }
  for (const DataType t : {DataType::FP16, DataType::FP32}) {
    const std::string name = std::string("BM_TGEMV/") + std::string(num::name(t)) + "/ieee";
    const Shape s = largest(t);
    benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
      run_cube(state, isa::TileOp::TGEMV, 16, t, NumericProfile::Ieee, 1, s.k, s.n);
    });
  }
  using tile::DataType;
  using tile::TileLayout;
  for (const Transport t : {Transport{"ND2M16", false, TileLayout::CubeM16, DataType::FP16, 16, 1024},
                            Transport{"ND2M32", false, TileLayout::CubeM32, DataType::FP16, 32, 512},
                            Transport{"ND2N8", false, TileLayout::CubeN8, DataType::FP16, 128, 128},
                            Transport{"ND2N8", false, TileLayout::CubeN8, DataType::S8, 128, 256},
                            Transport{"M162ND", true, TileLayout::CubeM16, DataType::FP32, 16, 512},
                            Transport{"M322ND", true, TileLayout::CubeM32, DataType::FP32, 32, 256},
                            Transport{"N82ND", true, TileLayout::CubeN8, DataType::FP32, 128, 64},
                            Transport{"N82ND", true, TileLayout::CubeN8, DataType::FP16, 128, 128},
                            Transport{"N82ND", true, TileLayout::CubeN8, DataType::S8, 128, 256}})
    for (const bool blocks : {true, false}) {
      const std::string name = std::string("BM_CubeTransport/") + t.conversion + "/" + std::string(num::name(t.type)) +
                               (blocks ? "/block" : "/element");
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) { run_transport(state, t, blocks); });
    }
  return 0;
}();

}  // namespace
