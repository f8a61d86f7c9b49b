// Decoder throughput (issue #2 target: >= 100 M decodes/s on one core for BM_DecodeMix).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

#include "isa/catalog.hpp"
#include "isa/decoder.hpp"

namespace {

struct Word {
  std::uint64_t bits;
  unsigned length;
};
constexpr std::size_t kWords = 4096;  // a power of two: the loop wraps with a mask

// A word of form `f` with random bits outside its mask.
Word random_word(const pto::isa::FormDesc& f, std::mt19937_64& rng) {
  return {(rng() & ~f.mask & pto::isa::length_mask(f.length_bits)) | f.match, f.length_bits};
}

// What a word does in a program, with its share of a realistic instruction
// stream: compressed and 32-bit scalar code, some 48-bit HL forms, and tile
// work as bundles (a BSTART/BSTOP header per few block-body words: B.DIM,
// B.IOT, B.IOR, C.B.DIMI, ... as in examples/tadd.s).
enum class WordClass { Scalar16, Scalar32, Scalar48, BlockBody, BundleHeader };
struct ClassShare {
  WordClass cls;
  int percent;
};
constexpr ClassShare kProgramMix[] = {{WordClass::Scalar16, 30},  {WordClass::Scalar32, 30},
                                      {WordClass::Scalar48, 5},   {WordClass::BlockBody, 25},
                                      {WordClass::BundleHeader, 10}};

WordClass class_of(const pto::isa::FormDesc& f) {
  const std::string_view m = f.mnemonic;
  if (m.find("BSTART") != m.npos || m.find("BSTOP") != m.npos) return WordClass::BundleHeader;
  if (m.starts_with("B.") || m.starts_with("C.B.")) return WordClass::BlockBody;
  if (f.length_bits == 16) return WordClass::Scalar16;
  return f.length_bits == 32 ? WordClass::Scalar32 : WordClass::Scalar48;
}

// A word of form `f` whose one-of constrained fields hold one of their values.
Word constrained_word(const pto::isa::FormDesc& f, std::mt19937_64& rng) {
  Word w = random_word(f, rng);
  for (const auto& c : pto::isa::constraints_of(f)) {
    if (c.op != pto::isa::ConstraintOp::OneOf) continue;
    const auto values = pto::isa::values_of(c);
    const auto v = static_cast<std::uint64_t>(values[rng() % values.size()]);
    for (const auto& p : pto::isa::pieces_of(pto::isa::fields_of(f)[c.field])) {
      const std::uint64_t piece = pto::isa::length_mask(p.width);
      w.bits = (w.bits & ~(piece << p.instruction_lsb)) | (((v >> p.value_lsb) & piece) << p.instruction_lsb);
    }
  }
  return w;
}

// Words a program contains: accepted forms only, with field values that pass
// the form's constraints (drawn from one-of sets, redrawn until the word
// decodes as accepted), classes weighted as kProgramMix, forms uniform within
// a class.
std::vector<Word> make_program_mix() {
  std::mt19937_64 rng(7);
  std::vector<std::vector<const pto::isa::FormDesc*>> by_class(std::size(kProgramMix));
  for (const auto& f : pto::isa::catalog_forms()) {
    if (f.status == pto::isa::FormStatus::Accepted) by_class[static_cast<std::size_t>(class_of(f))].push_back(&f);
  }
  std::vector<WordClass> classes;
  for (const ClassShare& s : kProgramMix) classes.insert(classes.end(), static_cast<std::size_t>(s.percent), s.cls);
  std::vector<Word> words;
  while (words.size() < kWords) {
    const auto& forms = by_class[static_cast<std::size_t>(classes[rng() % classes.size()])];
    const auto& f = *forms[rng() % forms.size()];
    for (int attempt = 0;; ++attempt) {
      const Word w = constrained_word(f, rng);
      if (pto::isa::decode(w.bits, w.length).ok()) {
        words.push_back(w);
        break;
      }
      if (attempt == 10000) throw std::runtime_error(std::string("no accepted word for ") + f.form_id);
    }
  }
  return words;
}

// Every catalog form equally likely (incl. reserved-in-PTO forms), random
// field bits (so some words violate a constraint), 32-bit forms weighted 6,
// 16-bit 3, others 1: a stress mix of rare and invalid words (the words of
// BM_DecodeMix before it modelled a program).
std::vector<Word> make_any_form_mix() {
  std::mt19937_64 rng(7);
  std::vector<Word> words;
  const auto forms = pto::isa::catalog_forms();
  for (std::size_t i = 0; i < kWords; ++i) {
    const auto& f = forms[rng() % forms.size()];
    const int weight = f.length_bits == 32 ? 6 : f.length_bits == 16 ? 3 : 1;
    for (int k = 0; k < weight; ++k) words.push_back(random_word(f, rng));
  }
  std::shuffle(words.begin(), words.end(), rng);
  words.resize(kWords);
  return words;
}

void run_decode(benchmark::State& state, const std::vector<Word>& words) {
  std::size_t i = 0;
  for (auto _ : state) {
    const Word& w = words[i++ & (kWords - 1)];
    benchmark::DoNotOptimize(pto::isa::decode(w.bits, w.length));
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_DecodeMix(benchmark::State& state) { run_decode(state, make_program_mix()); }
BENCHMARK(BM_DecodeMix);

void BM_DecodeAnyForm(benchmark::State& state) { run_decode(state, make_any_form_mix()); }
BENCHMARK(BM_DecodeAnyForm);

}  // namespace
