// Instruction length pre-decode.  The ASL takes the length from its caller
// (ExecutePTOInstruction(bits, length_bits)); the rule below is derived from the
// catalogs and documented with its evidence in docs/encoding.md.
#pragma once

#include <cstdint>
#include <optional>

namespace pto::isa {

// Length in bits implied by the first halfword alone:
// insn[3:0] = 1111 -> 64 (L.* prefix), 1110 -> 48 (HL.*), odd -> 32, else 16.
constexpr unsigned base_length_bits(std::uint16_t first_halfword) {
  const unsigned low = first_halfword & 0xFu;
  if (low == 0xFu) return 64;
  if (low == 0xEu) return 48;
  return (low & 1u) ? 32 : 16;
}

// C.SETRET halfword (mask 0xf83f, match 0x5016).
constexpr bool is_c_setret(std::uint16_t h) { return (h & 0xF83Fu) == 0x5016u; }
// C.BSTART DIRECT halfword (mask 0x000f, match 0x0002).
constexpr bool is_c_bstart_direct(std::uint16_t h) { return (h & 0xFu) == 0x2u; }
// 32-bit BSTART DIRECT word (low7 0x11).
constexpr bool is_bstart_direct32(std::uint32_t w) { return (w & 0x7Fu) == 0x11u; }

// Full length rule with the fused-call exceptions, given the instruction
// stream from the fetch address.  `halfword(i)` returns the i-th halfword or
// nullopt past the end of fetchable memory.
//  - BSTART.CALL (mask 0xf83f000f, match 0x50160002): a C.BSTART DIRECT halfword
//    followed by a C.SETRET halfword is one 32-bit form.
//  - HL.BSTART.CALL (reserved, mask 0xf83f0000007f, match 0x501600000011): a
//    32-bit BSTART DIRECT followed by C.SETRET is one 48-bit (reserved) form.
template <typename HalfwordAt>
constexpr unsigned instruction_length_bits(HalfwordAt&& halfword) {
  const std::optional<std::uint16_t> h0 = halfword(0);
  if (!h0) return 0;
  const unsigned base = base_length_bits(*h0);
  if (base == 16 && is_c_bstart_direct(*h0)) {
    const std::optional<std::uint16_t> h1 = halfword(1);
    if (h1 && is_c_setret(*h1)) return 32;
  } else if (base == 32 && is_bstart_direct32(*h0)) {
    const std::optional<std::uint16_t> h2 = halfword(2);
    if (h2 && is_c_setret(*h2)) return 48;
  }
  return base;
}

}  // namespace pto::isa
