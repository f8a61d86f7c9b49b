// Bulk conversion throughput over 64 KiB source buffers (one core).
#include <benchmark/benchmark.h>

#include <cstdint>
#include <random>
#include <vector>

#include "numerics/convert_span.hpp"

namespace {

constexpr std::size_t kBytes = 64 * 1024;

template <typename T>
std::vector<T> random_buffer(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> v(n);
  for (auto& x : v) x = static_cast<T>(rng());
  return v;
}

std::vector<std::uint32_t> random_fp32(std::size_t n) {
  // Finite values spread over the whole exponent range plus a few specials.
  auto v = random_buffer<std::uint32_t>(n, 3);
  for (std::size_t i = 0; i < n; ++i)
    if ((v[i] & 0x7F800000U) == 0x7F800000U && (i % 64) != 0) v[i] &= 0xBFFFFFFFU;
  return v;
}

void BM_FP16_to_FP32(benchmark::State& st) {
  const auto in = random_buffer<std::uint16_t>(kBytes / 2, 1);
  std::vector<std::uint32_t> out(in.size());
  for (auto _ : st) {
    benchmark::DoNotOptimize(pto::num::convert_span(in, out));
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * in.size()));
}
BENCHMARK(BM_FP16_to_FP32);

void BM_FP32_to_BF16_RNE(benchmark::State& st) {
  const auto in = random_fp32(kBytes / 4);
  std::vector<std::uint16_t> out(in.size());
  for (auto _ : st) {
    benchmark::DoNotOptimize(pto::num::convert_span_to_bf16(in, out, pto::num::RoundingMode::RNE));
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * in.size()));
}
BENCHMARK(BM_FP32_to_BF16_RNE);

void BM_E4M3_to_FP32(benchmark::State& st) {
  const auto in = random_buffer<std::uint8_t>(kBytes, 2);
  std::vector<std::uint32_t> out(in.size());
  for (auto _ : st) {
    benchmark::DoNotOptimize(pto::num::convert_span_e4m3(in, out));
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * in.size()));
}
BENCHMARK(BM_E4M3_to_FP32);

void BM_FP32_to_FP16_RNE(benchmark::State& st) {
  const auto in = random_fp32(kBytes / 4);
  std::vector<std::uint16_t> out(in.size());
  for (auto _ : st) {
    benchmark::DoNotOptimize(pto::num::convert_span_to_fp16(in, out, pto::num::RoundingMode::RNE));
    benchmark::ClobberMemory();
  }
  st.SetItemsProcessed(static_cast<std::int64_t>(st.iterations() * in.size()));
}
BENCHMARK(BM_FP32_to_FP16_RNE);

}  // namespace
