// VEC/SFU kernels on 64 KiB tiles against a host memcpy measured in the
// same benchmark: TADD, TMUL, TMAX, TFMA, TADDS, TMULS, TDIVS (FP32, FP16,
// BF16, FP64), TEXP (FP32), TROWSUM, TROWMAX, TCOLSUM, TCOLMAX (FP32), TCVT
// (FP32 <-> BF16, FP16, S32), TCMP and TSEL (FP32, FP16, BF16, FP64), TLOG,
// TSQRT, TRSQRT, TRECIP (FP32), each in the reference and ieee profiles.
// Kernels run through their registered TileKernel::execute (steps 10-11 of
// the commit path); bytes/s counts the destination bytes (TROWSUM: the 64 KiB
// source).  Counter `memcpy_fraction` = kernel throughput / throughput of a
// memcpy of the same byte count between page-aligned, pre-touched buffers,
// both in thread CPU time (issue 21 targets: TADD/TMUL/TMAX and TCVT
// FP32->BF16 >= 0.5, TROWSUM >= 0.3, TEXP FP32 ieee >= 0.2).
#include <benchmark/benchmark.h>

#include <bit>
#include <random>

#include "memcpy_baseline.hpp"
#include "tile/ops_registry.hpp"
#include "tile/tile_ops.hpp"

namespace {

using namespace pto;
using namespace pto::tile;

constexpr std::uint32_t kTileBytes = 65536;

const TileKernelTable& kernels() {
  static const TileKernelTable table = [] {
    TileKernelTable t;
    register_vec_sfu_tile_kernels(t);
    register_builtin_tile_kernels(t);
    return t;
  }();
  return table;
}

// Tiles 0 and 1 are random sources (finite values of the type), 2 the destination.
struct Bench {
  TileFile tiles;
  arch::BlockState bundle;
  std::array<std::byte, 64> storage{};
  FlatTileMemory memory{storage};
  TileOperands operands;
  bool configured = true;

  Bench(DataType source, DataType destination, std::uint32_t destination_columns, std::uint32_t destination_rows,
        std::uint32_t destination_bytes = kTileBytes, std::uint32_t source_bytes = kTileBytes) {
    const std::uint32_t columns = 64;
    const std::uint32_t rows = source_bytes * 8 / (columns * element_bits(source));
    configure(0, source, columns, rows, source_bytes);
    configure(1, source, columns, rows, source_bytes);
    configure(2, destination, destination_columns, destination_rows, destination_bytes);
    std::mt19937 g(7);
    std::uniform_real_distribution<float> value(0.5f, 2.0f);
    for (TileIndex i = 0; i < 2; ++i)
      for (std::uint32_t r = 0; r < rows; ++r)
        for (std::uint32_t c = 0; c < columns; ++c) {
          const float v = value(g);
          const std::uint32_t f = std::bit_cast<std::uint32_t>(v);
          const std::uint64_t half = source == DataType::BF16 ? f >> 16 : 0x3c00 | (f & 0x3ff);
          const std::uint64_t wide = std::bit_cast<std::uint64_t>(static_cast<double>(v) * (1.0 + 0x1p-30 * c));
          const unsigned bits = element_bits(source);
          tiles.tile(i).write_element(r, c, bits == 16 ? half : bits == 64 ? wide : f);
        }
    operands.destination[0] = 2;
    operands.source[0] = 0;
    operands.source[1] = 1;
  }
  void configure(TileIndex i, DataType t, std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t bytes) {
    ConfigureRequest r;
    r.capacity_bytes = bytes;
    r.columns = columns;
    r.valid_rows = valid_rows;
    r.valid_columns = columns;
    r.data_type = t;
    r.mask = 0b1000;  // one PE: three 64 KiB tiles fit TILE_CAPACITY
    configured = configured && tiles.configure(i, r) == FaultCode::Fault_None;
  }
  // `counted_bytes` per iteration; 0 counts the destination's valid bytes.
  void run(benchmark::State& state, isa::TileOp op, NumericProfile profile, std::uint64_t counted_bytes = 0) {
    const TileKernel* k = kernels().get(op);
    if (!configured || k == nullptr || !k->operands_legal(tiles, operands, bundle)) {
      state.SkipWithError("kernel missing or operands illegal");
      return;
    }
    const double start = bench::thread_seconds();
    for (auto _ : state) {
      TileExecutionContext c{tiles, memory, bundle, operands, PadValue::Null, false, profile};
      benchmark::DoNotOptimize(k->execute(c));
    }
    const double kernel_seconds = bench::thread_seconds() - start;
    const TileDescriptor& d = tiles.tile(2).descriptor();
    const std::uint64_t bytes = std::uint64_t{d.valid_rows} * d.valid_columns * element_bits(d.data_type) / 8;
    bench::report_against_memcpy(state, state.iterations() * (counted_bytes != 0 ? counted_bytes : bytes),
                                 kernel_seconds, kTileBytes);
  }
};

NumericProfile profile_of(const benchmark::State& s) {
  return s.range(1) ? NumericProfile::Ieee : NumericProfile::Reference;
}
DataType type_of(const benchmark::State& s) { return static_cast<DataType>(s.range(0)); }

void elementwise(benchmark::State& state, isa::TileOp op) {
  const DataType t = type_of(state);
  const std::uint32_t rows = kTileBytes * 8 / (64 * element_bits(t));
  Bench b(t, t, 64, rows);
  b.run(state, op, profile_of(state));
}

void BM_TADD(benchmark::State& s) { elementwise(s, isa::TileOp::TADD); }
void BM_TMUL(benchmark::State& s) { elementwise(s, isa::TileOp::TMUL); }
void BM_TMAX(benchmark::State& s) { elementwise(s, isa::TileOp::TMAX); }
void BM_TEXP(benchmark::State& s) { elementwise(s, isa::TileOp::TEXP); }

void float_types(benchmark::internal::Benchmark* b) {
  for (DataType t : {DataType::FP32, DataType::FP16, DataType::BF16, DataType::FP64})
    for (int ieee : {0, 1}) b->Args({static_cast<int>(t), ieee});
}
void fp32_only(benchmark::internal::Benchmark* b) {
  for (int ieee : {0, 1}) b->Args({static_cast<int>(DataType::FP32), ieee});
}
BENCHMARK(BM_TADD)->Apply(float_types);
BENCHMARK(BM_TMUL)->Apply(float_types);
BENCHMARK(BM_TMAX)->Apply(float_types);
BENCHMARK(BM_TEXP)->Apply(fp32_only);

// TFMA: tile 3 = tile 0 * tile 1 + tile 2, four 64 KiB tiles (all of
// TILE_CAPACITY), the addend a copy of tile 0; bytes/s counts the 64 KiB
// destination.  FP32, FP16, BF16, FP64, both profiles.
void BM_TFMA(benchmark::State& state) {
  const DataType t = type_of(state);
  const std::uint32_t rows = kTileBytes * 8 / (64 * element_bits(t));
  Bench b(t, t, 64, rows);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < 64; ++c) b.tiles.tile(2).write_element(r, c, b.tiles.tile(0).read_raw(b.tiles.tile(0).linear_index(r, c)));
  b.configure(3, t, 64, rows, kTileBytes);
  b.operands.destination[0] = 3;
  b.operands.source[2] = 2;
  b.run(state, isa::TileOp::TFMA, profile_of(state));
}
BENCHMARK(BM_TFMA)->Apply(float_types);

// Tile-scalar forms, which record flags: TADDS/TMULS/TDIVS by 0.3
// (inexact results, so the ieee profile raises NX), FP32, FP64, FP16, BF16.
std::uint64_t point_three(DataType t) {
  switch (t) {
    case DataType::FP64: return std::bit_cast<std::uint64_t>(0.3);
    case DataType::FP16: return 0x34CD;  // 0.3 rounded to FP16
    case DataType::BF16: return 0x3E9A;  // 0.3 rounded to BF16
    default: return std::bit_cast<std::uint32_t>(0.3f);
  }
}
void tile_scalar(benchmark::State& state, isa::TileOp op) {
  const DataType t = type_of(state);
  const std::uint32_t rows = kTileBytes * 8 / (64 * element_bits(t));
  Bench b(t, t, 64, rows);
  b.operands.scalar0 = point_three(t);
  b.run(state, op, profile_of(state));
}
void BM_TADDS(benchmark::State& s) { tile_scalar(s, isa::TileOp::TADDS); }
void BM_TMULS(benchmark::State& s) { tile_scalar(s, isa::TileOp::TMULS); }
void BM_TDIVS(benchmark::State& s) { tile_scalar(s, isa::TileOp::TDIVS); }
BENCHMARK(BM_TADDS)->Apply(float_types);
BENCHMARK(BM_TMULS)->Apply(float_types);
BENCHMARK(BM_TDIVS)->Apply(float_types);

// Row reductions: 256 x 64 FP32 source into a 256 x 1 destination; column
// reductions: into a 1 x 64 destination.  bytes/s counts the 64 KiB source
// here (a reduction writes almost nothing).
void row_reduction(benchmark::State& state, isa::TileOp op) {
  Bench b(DataType::FP32, DataType::FP32, 1, 256, 1024);  // 256 x 1 FP32 destination
  b.run(state, op, profile_of(state), kTileBytes);
}
void column_reduction(benchmark::State& state, isa::TileOp op) {
  Bench b(DataType::FP32, DataType::FP32, 64, 1, 4096);  // 1 x 64 FP32 destination
  b.run(state, op, profile_of(state), kTileBytes);
}
void BM_TROWSUM(benchmark::State& s) { row_reduction(s, isa::TileOp::TROWSUM); }
void BM_TROWMAX(benchmark::State& s) { row_reduction(s, isa::TileOp::TROWMAX); }
void BM_TCOLSUM(benchmark::State& s) { column_reduction(s, isa::TileOp::TCOLSUM); }
void BM_TCOLMAX(benchmark::State& s) { column_reduction(s, isa::TileOp::TCOLMAX); }
BENCHMARK(BM_TROWSUM)->Apply(fp32_only);
BENCHMARK(BM_TROWMAX)->Apply(fp32_only);
BENCHMARK(BM_TCOLSUM)->Apply(fp32_only);
BENCHMARK(BM_TCOLMAX)->Apply(fp32_only);

// TCVT on 256 x 64 tiles (64 KiB for 32-bit elements, 32 KiB for 16-bit
// ones), the destination's bytes counted: FP32 -> BF16 (issue 21's pair),
// the other FP32 <-> FP16/BF16 directions, and FP32 <-> S32.
void conversion(benchmark::State& state, DataType source, DataType destination) {
  const std::uint32_t elements = 256 * 64;
  Bench b(source, destination, 64, 256, elements * element_bits(destination) / 8, elements * element_bits(source) / 8);
  b.run(state, isa::TileOp::TCVT, profile_of(state));
}
void BM_TCVT_FP32_BF16(benchmark::State& s) { conversion(s, DataType::FP32, DataType::BF16); }
void BM_TCVT_FP32_FP16(benchmark::State& s) { conversion(s, DataType::FP32, DataType::FP16); }
void BM_TCVT_FP16_FP32(benchmark::State& s) { conversion(s, DataType::FP16, DataType::FP32); }
void BM_TCVT_BF16_FP32(benchmark::State& s) { conversion(s, DataType::BF16, DataType::FP32); }
void BM_TCVT_FP32_S32(benchmark::State& s) { conversion(s, DataType::FP32, DataType::S32); }
void BM_TCVT_S32_FP32(benchmark::State& s) { conversion(s, DataType::S32, DataType::FP32); }
BENCHMARK(BM_TCVT_FP32_BF16)->Apply(fp32_only);
BENCHMARK(BM_TCVT_FP32_FP16)->Apply(fp32_only);
BENCHMARK(BM_TCVT_FP16_FP32)->Apply(fp32_only);
BENCHMARK(BM_TCVT_BF16_FP32)->Apply(fp32_only);
BENCHMARK(BM_TCVT_FP32_S32)->Apply(fp32_only);
BENCHMARK(BM_TCVT_S32_FP32)->Apply(fp32_only);

// TCMP (LT) of the two 64 KiB sources into a packed predicate tile 2 (one
// bit an element); bytes/s counts one 64 KiB source, as for the reductions.
void BM_TCMP(benchmark::State& state) {
  const DataType t = type_of(state);
  const std::uint32_t rows = kTileBytes * 8 / (64 * element_bits(t));
  Bench b(t, t, 64, rows);
  b.tiles.configure_predicate(2, rows * 64, rows, 64, rows, 64, 0b1000);
  b.operands.comparison = TileComparison::LT;
  b.run(state, isa::TileOp::TCMP, profile_of(state), kTileBytes);
}
BENCHMARK(BM_TCMP)->Apply(float_types);

// TSEL: tile 2 = predicate tile 3 ? source 0 : source 1, the predicate
// bits random; bytes/s counts the 64 KiB destination, as for TADD.
void BM_TSEL(benchmark::State& state) {
  const DataType t = type_of(state);
  const std::uint32_t rows = kTileBytes * 8 / (64 * element_bits(t));
  Bench b(t, t, 64, rows);
  b.tiles.configure_predicate(3, rows * 64, rows, 64, rows, 64, 0b1000);
  Tile& mask = b.tiles.tile(3);
  std::mt19937 g(3);
  for (std::byte& byte : mask.payload()) byte = static_cast<std::byte>(g());
  mask.mark_valid_region_defined();
  b.operands.source = {3, 0, 1};
  b.run(state, isa::TileOp::TSEL, profile_of(state));
}
BENCHMARK(BM_TSEL)->Apply(float_types);

// The other SFU unaries on the FP32 sources (values in [0.5, 2): positive,
// finite, so every element is a regular result).
void BM_TLOG(benchmark::State& s) { elementwise(s, isa::TileOp::TLOG); }
void BM_TSQRT(benchmark::State& s) { elementwise(s, isa::TileOp::TSQRT); }
void BM_TRSQRT(benchmark::State& s) { elementwise(s, isa::TileOp::TRSQRT); }
void BM_TRECIP(benchmark::State& s) { elementwise(s, isa::TileOp::TRECIP); }
BENCHMARK(BM_TLOG)->Apply(fp32_only);
BENCHMARK(BM_TSQRT)->Apply(fp32_only);
BENCHMARK(BM_TRSQRT)->Apply(fp32_only);
BENCHMARK(BM_TRECIP)->Apply(fp32_only);

}  // namespace
