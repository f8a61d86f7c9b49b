// Decoder throughput on a realistic word mix (scalar ALU/AGU, C.*, HL.*, bundle headers).
#include <benchmark/benchmark.h>

#include <random>
#include <vector>

#include "isa/catalog.hpp"
#include "isa/decoder.hpp"

namespace {

struct Word {
  std::uint64_t bits;
  unsigned length;
};

// A mix weighted like compiled code: mostly 32-bit scalar forms, some 16-bit
// compressed and 48-bit HL forms, and bundle commands.
std::vector<Word> make_mix() {
  std::mt19937_64 rng(7);
  std::vector<Word> words;
  const auto forms = pto::isa::catalog_forms();
  for (int i = 0; i < 4096; ++i) {
    const auto& f = forms[rng() % forms.size()];
    const int weight = f.length_bits == 32 ? 6 : f.length_bits == 16 ? 3 : 1;
    for (int k = 0; k < weight; ++k) {
      words.push_back({(rng() & ~f.mask & pto::isa::length_mask(f.length_bits)) | f.match, f.length_bits});
    }
  }
  std::shuffle(words.begin(), words.end(), rng);
  return words;
}

void BM_DecodeMix(benchmark::State& state) {
  const auto words = make_mix();
  std::size_t i = 0;
  for (auto _ : state) {
    const Word& w = words[i++ & 4095];
    benchmark::DoNotOptimize(pto::isa::decode(w.bits, w.length));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}
BENCHMARK(BM_DecodeMix);

}  // namespace
