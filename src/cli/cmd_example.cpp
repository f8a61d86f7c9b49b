// `pto example`: the built-in example.  Decodes and prints the minimal TLOAD +
// TADD bundle program of the spec map (SPEC-MAP section 3) word by word.
#include <fmt/format.h>

#include <array>

#include "cli/command.hpp"
#include "dis/render.hpp"
#include "isa/decoder.hpp"
#include "isa/tile_start.hpp"

namespace pto::cli {
namespace {

struct ExampleWord {
  std::uint64_t bits;
  unsigned length;
};

// BSTART.TLOAD U32; B.DIM zero,2,->LB0; B.DIM zero,2,->LB1; B.IOT ->T<1>;
// B.IOR a0, a1; BSTOP; BSTART.VEC TADD, U32; C.B.DIMI 8, ->LB0;
// B.IOT U#1, U#2, ->T<1>; BSTOP.
constexpr std::array<ExampleWord, 10> kExample{{{0xC8011181, 32},
                                                {0x00200043, 32},
                                                {0x00201043, 32},
                                                {0x0008EE13, 32},
                                                {0x00310013, 32},
                                                {0x00000001, 32},
                                                {0xC8019181, 32},
                                                {0x023C, 16},
                                                {0x4508CE13, 32},
                                                {0x00000001, 32}}};

int run_example() {
  std::uint64_t pc = 0x1000;
  for (const ExampleWord& w : kExample) {
    const isa::Decoded d = isa::decode(w.bits, w.length);
    fmt::print("{:8x}:  {:<10}  {}\n", pc, fmt::format("{:0{}x}", w.bits, w.length / 4),
               dis::render_standalone(d, w.bits, {pc}));
    pc += w.length / 8;
  }
  return kExitOk;
}

const Registrar reg{[](CLI::App& app) {
  CLI::App* sub = app.add_subcommand("example", "Run the built-in example program");
  return std::pair<CLI::App*, Runner>{sub, [] { return run_example(); }};
}};

}  // namespace
}  // namespace pto::cli
