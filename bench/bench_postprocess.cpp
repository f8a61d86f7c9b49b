// B.FPATR post-processing of a largest CUBE output tile (32 x 256
// accumulators) against the exact element path it replaces.
//
// BM_MatrixPostprocess/<mode>/<relu>/<rounding>/<path>: `tile` is
// postprocess::post_process_tile (the per-tile kernel with its exact
// fallbacks), `scalar` the same under num::simd::limit_tier(Portable) (the
// scalar kernel, no row kernel), `element` the exact
// postprocess::post_process per element with its column's words (what the
// tile kernel is checked against).  Counters: melements = elements per
// second / 1e6 and, on `tile`, speedup = its rate over the element path's
// rate and over_scalar = its rate over the scalar kernel's, both on the same
// tile measured in the same process.
#include <benchmark/benchmark.h>

#include <bit>
#include <cstdint>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "memcpy_baseline.hpp"
#include "numerics/datatypes.hpp"
#include "numerics/simd_span.hpp"
#include "tile/matrix_postprocess.hpp"
#include "tile/ops_matrix.hpp"

namespace {

using namespace pto;
namespace pp = tile::postprocess;
using bench::thread_seconds;
using num::DataType;
using num::RoundingMode;

constexpr std::uint32_t kRows = 32, kColumns = 256;

struct Case {
  unsigned mode, relu;
  RoundingMode rounding;
};

DataType output_of(const Case& c) { return c.mode == 0 ? DataType::FP32 : tile::fpatr::output_type(c.mode); }

// Accumulators as a product would leave them: FP32 values of magnitude up to
// ~2^10, or S32 values up to ~2^20, both signs; scales 2^-6 with a fraction.
struct Workload {
  std::vector<std::uint64_t> values;
  std::vector<pp::ColumnWords> columns;
};

Workload workload(const Case& c) {
  std::mt19937_64 rng(7);
  const bool s32 = c.mode != 0 && tile::fpatr::accumulator_type_legal(c.mode, DataType::S32);
  Workload w;
  for (std::uint32_t i = 0; i < kRows * kColumns; ++i) {
    const auto fp = std::bit_cast<std::uint32_t>(std::uniform_real_distribution<float>(-1024, 1024)(rng));
    const auto integer = static_cast<std::uint32_t>(std::uniform_int_distribution<std::int32_t>(-1 << 20, 1 << 20)(rng));
    w.values.push_back(s32 ? integer : fp);
  }
  const unsigned width = pp::mode_offset_width(c.mode);
  for (std::uint32_t col = 0; col < kColumns; ++col) {
    const std::uint32_t scale = ((127 + 10 - 6) << 10) | static_cast<std::uint32_t>(rng() & 0x3FF);  // FP19 ~2^-6
    const std::uint64_t quant = tile::fpatr::pre_quant_mode(c.mode).shift ? pp::shift_parameter(rng() & 7)
                                                                          : pp::quant_parameter(scale, rng(), width);
    w.columns.push_back({quant, ((127 + 10 - 2) << 10) | static_cast<std::uint32_t>(rng() & 0x3FF)});
  }
  return w;
}

enum class Path : std::uint8_t { Tile, Scalar, Element };

// Caps num::simd at the portable tier for the scalar path while it lives.
class TierCap {
 public:
  explicit TierCap(Path p) : capped_(p == Path::Scalar) {
    if (capped_) num::simd::limit_tier(num::simd::Tier::Portable);
  }
  ~TierCap() {
    if (capped_) num::simd::limit_tier(num::simd::Tier::Avx512);
  }
  TierCap(const TierCap&) = delete;
  TierCap& operator=(const TierCap&) = delete;

 private:
  bool capped_;
};

// Elements per second of one path over the workload, in thread CPU time.
double rate(benchmark::State* state, const Case& c, Path path, std::uint64_t repeats) {
  const TierCap cap(path);
  const Workload w = workload(c);
  const pp::Control control{c.rounding, false};
  const DataType output = output_of(c);
  std::vector<std::uint64_t> values;
  std::uint64_t rounds = 0;
  num::Flags flags = 0;
  const auto once = [&] {
    values = w.values;
    if (path != Path::Element) {
      flags |= pp::post_process_tile(values, w.columns, c.mode, c.relu, output, control);
    } else {
      for (std::size_t e = 0; e < values.size(); ++e) {
        const pp::ColumnWords& words = w.columns[e % kColumns];
        const num::Result r = pp::post_process(values[e], c.mode, c.relu, output, words.quant, words.relu, control);
        values[e] = r.bits;
        flags |= r.flags;
      }
    }
    benchmark::DoNotOptimize(values.data());
    benchmark::ClobberMemory();
    ++rounds;
  };
  const double start = thread_seconds();
  if (state != nullptr) {
    for (auto _ : *state) once();
  } else {
    for (std::uint64_t i = 0; i < repeats; ++i) once();
  }
  benchmark::DoNotOptimize(flags);
  return static_cast<double>(rounds) * kRows * kColumns / (thread_seconds() - start);
}

std::string rounding_name(RoundingMode m) { return std::string(num::rounding_mode_name(m)); }

std::string path_name(Path p) { return p == Path::Tile ? "tile" : p == Path::Scalar ? "scalar" : "element"; }

std::string case_name(const Case& c) {
  return std::string(tile::fpatr::pre_quant_mode(c.mode).name) + "/relu" + std::to_string(c.relu) + "/" + rounding_name(c.rounding);
}

// A reference path's rate on a case, measured once per process.
double reference_rate(const Case& c, Path p) {
  static std::map<std::string, double> rates;
  const std::string key = case_name(c) + "/" + path_name(p);
  if (rates.count(key) == 0) rates[key] = rate(nullptr, c, p, p == Path::Element ? 8 : 64);
  return rates[key];
}

const int kRegistered = [] {
  for (const Case c : {Case{1, 0, RoundingMode::RNE}, Case{16, 1, RoundingMode::RNE}, Case{0, 2, RoundingMode::RNE},
                       Case{24, 1, RoundingMode::RNE}, Case{2, 3, RoundingMode::RTZ}, Case{5, 0, RoundingMode::RTP},
                       Case{13, 0, RoundingMode::RNE}, Case{26, 0, RoundingMode::RNE}, Case{0, 2, RoundingMode::RNA},
                       Case{27, 0, RoundingMode::RHB}, Case{5, 0, RoundingMode::RTO}, Case{24, 1, RoundingMode::RNA},
                       Case{35, 0, RoundingMode::RHB}, Case{25, 0, RoundingMode::RHB}, Case{28, 3, RoundingMode::RHB}})
    for (const Path path : {Path::Tile, Path::Scalar, Path::Element}) {
      const std::string name = "BM_MatrixPostprocess/" + case_name(c) + "/" + path_name(path);
      benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
        const double r = rate(&state, c, path, 0);
        state.counters["melements"] = r / 1e6;
        if (path != Path::Tile) return;
        state.counters["speedup"] = r / reference_rate(c, Path::Element);
        state.counters["over_scalar"] = r / reference_rate(c, Path::Scalar);
      });
    }
  return 0;
}();

}  // namespace
