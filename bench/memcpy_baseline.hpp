// The host-memcpy baseline the tile benchmarks report against
// (counter memcpy_fraction = kernel throughput / memcpy throughput), measured
// in the same run and in thread CPU time, so a loaded host (other processes
// on the shared cores) skews neither side of the ratio.
#pragma once

#include <benchmark/benchmark.h>

#include <time.h>

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <memory>

namespace pto::bench {

inline double thread_seconds() {
  timespec t{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_nsec) * 1e-9;
}

// CPU seconds to copy `total_bytes` as 64 KiB memcpys cycling through a
// `buffer_bytes` source and destination.  Page-aligned, pre-touched
// buffers: heap buffers 16 bytes apart modulo 4 KiB hit 4K store/load
// aliasing on every copy (~2 GB/s instead of ~30 GB/s).
inline double memcpy_seconds(std::uint64_t total_bytes, std::size_t buffer_bytes) {
  constexpr std::size_t kCopyBytes = 65536;
  using PageBuffer = std::unique_ptr<std::byte[], decltype(&std::free)>;
  const PageBuffer src{static_cast<std::byte*>(std::aligned_alloc(4096, buffer_bytes)), &std::free};
  const PageBuffer dst{static_cast<std::byte*>(std::aligned_alloc(4096, buffer_bytes)), &std::free};
  for (std::size_t i = 0; i < buffer_bytes; ++i) src[i] = static_cast<std::byte>(i * 7);
  std::memset(dst.get(), 0, buffer_bytes);  // pre-touch: no page faults inside the timed loop
  const double start = thread_seconds();
  std::size_t offset = 0;
  for (std::uint64_t done = 0; done < total_bytes; done += kCopyBytes) {
    benchmark::DoNotOptimize(src.get());
    std::memcpy(dst.get() + offset, src.get() + offset, kCopyBytes);
    benchmark::DoNotOptimize(dst.get());
    benchmark::ClobberMemory();
    offset = (offset + kCopyBytes) % buffer_bytes;
  }
  return thread_seconds() - start;
}

// Sets bytes/s and the counters memcpy_GBps and memcpy_fraction for a
// kernel that moved `total_bytes` in `kernel_seconds` of thread CPU time.
inline void report_against_memcpy(benchmark::State& state, std::uint64_t total_bytes, double kernel_seconds,
                                  std::size_t buffer_bytes) {
  state.SetBytesProcessed(static_cast<std::int64_t>(total_bytes));
  const double copy_seconds = memcpy_seconds(total_bytes, buffer_bytes);
  state.counters["memcpy_GBps"] = static_cast<double>(total_bytes) / copy_seconds / 1e9;
  state.counters["memcpy_fraction"] = copy_seconds / kernel_seconds;
}

}  // namespace pto::bench
