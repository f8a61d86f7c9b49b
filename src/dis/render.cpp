#include "dis/render.hpp"

#include <fmt/format.h>

#include "asm/syntax.hpp"

namespace pto::dis {

// Without bundle context B.IOR prints all four raw fields (ADR 0055); every
// other word prints its canonical text from the shared operand syntax.
std::string render_standalone(const isa::Decoded& d, std::uint64_t bits, const RenderContext& ctx) {
  if (d.status == isa::DecodeStatus::NoForm) return fmt::format(".word {:#x}", bits);
  const isa::FormDesc& f = d.desc();
  if (f.status == isa::FormStatus::ExtensionReserved) return std::string(f.mnemonic);
  as::PrintContext pc;
  pc.pc = ctx.pc;
  return as::print_instruction(f, bits, pc);
}

}  // namespace pto::dis
