// Which spellings the printer uses (kept apart from syntax.hpp so the
// disassembler's options need not include the whole grammar).
#pragma once

#include <cstdint>

namespace pto::as {

// Operand spellings to print: ours (docs/assembly.md), or those of the
// LinxISA LLVM toolchain's llvm-objdump (`pto dis --syntax llvm`).
enum class Syntax : std::uint8_t { Canonical, Llvm };

}  // namespace pto::as
