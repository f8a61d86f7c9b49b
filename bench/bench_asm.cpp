// Assembler and disassembler throughput on a large generated program
// (targets: >= 1 M instructions/s assembled, >= 5 M/s disassembled).
#include <benchmark/benchmark.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "asm/syntax.hpp"
#include "dis/disassembler.hpp"
#include "isa/decoder.hpp"

namespace {

// One canonical line per accepted form with random legal fields, repeated.
struct Program {
  std::string source;
  std::vector<std::uint8_t> text;
  std::size_t instructions = 0;
};

const Program& program() {
  static const Program p = [] {
    Program out;
    std::mt19937_64 rng(42);
    std::vector<std::string> lines;
    for (const auto& f : pto::isa::catalog_forms()) {
      if (f.status != pto::isa::FormStatus::Accepted) continue;
      for (int k = 0; k < 8; ++k) {
        std::vector<std::int64_t> v(f.field_count, 0);
        for (std::size_t i = 0; i < v.size(); ++i) {
          const auto& fd = pto::isa::fields_of(f)[i];
          std::int64_t val = 0;
          bool fixed = false;
          for (const auto& c : pto::isa::constraints_of(f))
            if (c.field == i && c.op == pto::isa::ConstraintOp::OneOf) {
              const auto vals = pto::isa::values_of(c);
              val = vals[rng() % vals.size()];
              fixed = true;
            }
          if (!fixed) {
            const auto r = pto::isa::field_range(fd);
            const auto step = pto::isa::field_step(fd);
            val = r.min + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>((r.max - r.min) / step + 1)) * step;
          }
          v[i] = val;
        }
        auto e = pto::isa::encode(f, v);
        if (!std::holds_alternative<std::uint64_t>(e)) continue;
        const auto bits = std::get<std::uint64_t>(e);
        const auto d = pto::isa::decode(bits, f.length_bits);
        if (!d.ok() || d.form != pto::isa::index_of(f)) continue;
        // Labels print relative to '.', so any placement reassembles.
        lines.push_back(pto::as::print_instruction(f, bits, {}));
      }
    }
    const std::size_t target = 200000;
    for (std::size_t i = 0; out.instructions < target; ++i, ++out.instructions)
      out.source += lines[i % lines.size()] + "\n";
    const auto r = pto::as::assemble(out.source, "bench.s");
    if (!r.ok()) throw std::runtime_error(r.diagnostics.front().format());
    out.text = r.image->sections.front().data;
    return out;
  }();
  return p;
}

void BM_Assemble(benchmark::State& state) {
  const Program& p = program();
  for (auto _ : state) {
    auto r = pto::as::assemble(p.source, "bench.s");
    benchmark::DoNotOptimize(r);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.instructions));
}
BENCHMARK(BM_Assemble)->Unit(benchmark::kMillisecond);

void BM_Disassemble(benchmark::State& state) {
  const Program& p = program();
  for (auto _ : state) {
    auto lines = pto::dis::disassemble(p.text, 0, {});
    benchmark::DoNotOptimize(lines);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.instructions));
}
BENCHMARK(BM_Disassemble)->Unit(benchmark::kMillisecond);

// The `pto dis` listing path: disassembly plus objdump-style lines (address,
// bytes, text) rendered into one buffer.
void BM_DisassembleListing(benchmark::State& state) {
  const Program& p = program();
  pto::as::TextBuffer out;
  for (auto _ : state) {
    out.clear();
    for (const auto& l : pto::dis::disassemble(p.text, 0, {})) pto::dis::append_listing_line(out, l, true);
    benchmark::DoNotOptimize(out.view().data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * p.instructions));
}
BENCHMARK(BM_DisassembleListing)->Unit(benchmark::kMillisecond);

}  // namespace
