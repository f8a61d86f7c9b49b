// What the host allows the VEC kernels of bench_ops.cpp: loops of the same
// shape with no model around them (no checks, no exact path, no dispatch),
// on buffers laid out like the benchmark's tiles (4 KiB aligned, sources and
// destination at equal offsets modulo 4 KiB), counted and compared with the
// same memcpy as the kernels.  A kernel's memcpy_fraction cannot beat its
// floor's; issue 21's targets are read against these figures (README,
// "VEC/SFU kernels").
//   BM_Floor_Int16Add       64 KiB + 64 KiB -> 64 KiB, a 16-bit integer add:
//                           any two-source 16-bit elementwise kernel (the
//                           reference TADD FP16/BF16 is this loop).
//   BM_Floor_Fp16AddF16c    the same tiles as FP16 through binary32: four
//                           VCVTPH2PS, two FMAs (x * 1 + y, the kernel's
//                           add), two VCVTPS2PH per 32 elements (TADD FP16
//                           ieee without its NaN check).
//   BM_Floor_Fp32ToBf16     64 KiB FP32 -> 32 KiB BF16 by VCVTNE2PS2BF16
//                           (TCVT FP32->BF16 ieee without its checks).
// AVX-512 loops (the kernels' widest tier); skipped on hosts without it.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

#include "memcpy_baseline.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>
#define PTO_FLOOR_LOOPS 1
#endif

namespace {

constexpr std::size_t kTileBytes = 65536;

// Three 64 KiB tiles, back to back from a 4 KiB boundary: sources 0 and 1,
// destination 2.  The sources hold FP16 values in [1, 2) (0x3C00 with a
// varying fraction), read as FP32 pairs by the BF16 loop.
struct FloorTiles {
  std::unique_ptr<std::byte[], decltype(&std::free)> storage{
      static_cast<std::byte*>(std::aligned_alloc(4096, 3 * kTileBytes)), &std::free};
  FloorTiles() {
    auto* halves = reinterpret_cast<std::uint16_t*>(storage.get());
    for (std::size_t i = 0; i < kTileBytes; ++i) halves[i] = static_cast<std::uint16_t>(0x3C00U | ((i * 37U) & 0x3FFU));
    std::memset(storage.get() + 2 * kTileBytes, 0, kTileBytes);
  }
  template <typename T>
  T* tile(int k) {
    return reinterpret_cast<T*>(storage.get() + static_cast<std::size_t>(k) * kTileBytes);
  }
};

// Runs loop(tiles) per iteration and reports `destination_bytes` per
// iteration against the memcpy, as bench_ops.cpp's Bench::run does.
template <typename Loop>
void run_floor(benchmark::State& state, bool supported, std::size_t destination_bytes, Loop loop) {
  if (!supported) {
    state.SkipWithError("the host lacks the loop's AVX-512 instructions");
    return;
  }
  FloorTiles tiles;
  const double start = pto::bench::thread_seconds();
  for (auto _ : state) {
    benchmark::DoNotOptimize(tiles.storage.get());
    loop(tiles);
    benchmark::ClobberMemory();
  }
  const double seconds = pto::bench::thread_seconds() - start;
  pto::bench::report_against_memcpy(state, state.iterations() * destination_bytes, seconds, kTileBytes);
}

#ifdef PTO_FLOOR_LOOPS

__attribute__((target("avx512f,avx512bw"))) void int16_add(FloorTiles& t) {
  const auto* a = t.tile<const std::uint16_t>(0);
  const auto* b = t.tile<const std::uint16_t>(1);
  auto* out = t.tile<std::uint16_t>(2);
  for (std::size_t i = 0; i < kTileBytes / 2; i += 32)
    _mm512_storeu_si512(out + i, _mm512_add_epi16(_mm512_loadu_si512(a + i), _mm512_loadu_si512(b + i)));
}

__attribute__((target("avx512f"))) __m512 widen16(const std::uint16_t* p) {
  return _mm512_maskz_cvtph_ps(0xFFFF, _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}

__attribute__((target("avx512f"))) void fp16_add_f16c(FloorTiles& t) {
  const auto* a = t.tile<const std::uint16_t>(0);
  const auto* b = t.tile<const std::uint16_t>(1);
  auto* out = t.tile<std::uint16_t>(2);
  const __m512 one = _mm512_set1_ps(1.0f);
  for (std::size_t i = 0; i < kTileBytes / 2; i += 32) {
    const __m512 z0 = _mm512_fmadd_ps(widen16(a + i), one, widen16(b + i));
    const __m512 z1 = _mm512_fmadd_ps(widen16(a + i + 16), one, widen16(b + i + 16));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i), _mm512_maskz_cvtps_ph(0xFFFF, z0, _MM_FROUND_TO_NEAREST_INT));
    _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + i + 16),
                        _mm512_maskz_cvtps_ph(0xFFFF, z1, _MM_FROUND_TO_NEAREST_INT));
  }
}

__attribute__((target("avx512f,avx512bw,avx512bf16"))) void fp32_to_bf16(FloorTiles& t) {
  const auto* in = t.tile<const float>(0);
  auto* out = t.tile<std::uint16_t>(2);
  for (std::size_t i = 0; i < kTileBytes / 4; i += 32) {
    const __m512bh r = _mm512_cvtne2ps_pbh(_mm512_loadu_ps(in + i + 16), _mm512_loadu_ps(in + i));
    _mm512_storeu_si512(out + i, (__m512i)r);  // a vector bit cast
  }
}

// __builtin_cpu_supports takes string literals only.
bool avx512bw() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw");
}
bool avx512bf16() { return avx512bw() && __builtin_cpu_supports("avx512bf16"); }

void BM_Floor_Int16Add(benchmark::State& s) { run_floor(s, avx512bw(), kTileBytes, int16_add); }
void BM_Floor_Fp16AddF16c(benchmark::State& s) { run_floor(s, avx512bw(), kTileBytes, fp16_add_f16c); }
void BM_Floor_Fp32ToBf16(benchmark::State& s) { run_floor(s, avx512bf16(), kTileBytes / 2, fp32_to_bf16); }

#else

void skip(FloorTiles&) {}
void BM_Floor_Int16Add(benchmark::State& s) { run_floor(s, false, kTileBytes, skip); }
void BM_Floor_Fp16AddF16c(benchmark::State& s) { run_floor(s, false, kTileBytes, skip); }
void BM_Floor_Fp32ToBf16(benchmark::State& s) { run_floor(s, false, kTileBytes / 2, skip); }

#endif

BENCHMARK(BM_Floor_Int16Add);
BENCHMARK(BM_Floor_Fp16AddF16c);
BENCHMARK(BM_Floor_Fp32ToBf16);

}  // namespace
