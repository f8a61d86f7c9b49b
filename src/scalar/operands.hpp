// Scalar operand preparation shared by the ALU, AGU and BRU handlers
// (asl/scalar/model/types/operands.asl, asl/scalar/model/alu/semantics.asl,
// asl/scalar/model/dispatch/decode.asl).  Pure, constexpr, header-only so the
// handler templates inline them.
#pragma once

#include <array>
#include <cstdint>

#include "arch/state.hpp"

namespace pto::scalar {

using arch::Word;

constexpr Word sign_extend(Word value, unsigned bits) {
  if (bits >= 64) return value;
  const Word sign = Word{1} << (bits - 1);
  const Word low = value & ((Word{1} << bits) - 1);
  return (low ^ sign) - sign;
}

constexpr Word zero_extend(Word value, unsigned bits) {
  return bits >= 64 ? value : value & ((Word{1} << bits) - 1);
}

// ScalarRightModifier
enum class RightModifier : std::uint8_t { None, SignedWord, UnsignedWord, NegateOrNot };

// DecodeScalarBinaryRightModifier (ALU register forms): 00 .sw, 01 .uw,
// 10 .neg/.not, 11 none.
inline constexpr std::array<RightModifier, 4> kBinaryRightModifier = {
    RightModifier::SignedWord, RightModifier::UnsignedWord, RightModifier::NegateOrNot, RightModifier::None};
// DecodeScalarComparisonRightModifier and DecodeScalarAddressRightModifier
// (CMP.*, SETC.*, AGU register offsets): 00 none, 01 .sw, 10 .uw, 11 .neg/.not.
inline constexpr std::array<RightModifier, 4> kOrderedRightModifier = {
    RightModifier::None, RightModifier::SignedWord, RightModifier::UnsignedWord, RightModifier::NegateOrNot};

// ApplyScalarRightModifier: the logical family inverts, the arithmetic family negates.
constexpr Word apply_right_modifier(Word value, RightModifier modifier, bool logical_family) {
  switch (modifier) {
    case RightModifier::None: return value;
    case RightModifier::SignedWord: return sign_extend(value, 32);
    case RightModifier::UnsignedWord: return zero_extend(value, 32);
    case RightModifier::NegateOrNot: return logical_family ? ~value : Word{0} - value;
  }
  return value;
}

// ApplyRestrictedCompareModifier: CMP.* / SETC.* ignore .neg.
constexpr Word apply_restricted_compare_modifier(Word value, RightModifier modifier) {
  return modifier == RightModifier::NegateOrNot ? value : apply_right_modifier(value, modifier, false);
}

// PrepareScalarRight: transform, then logical left shift (amount 0..63).
constexpr Word prepare_scalar_right(Word value, RightModifier modifier, unsigned shift_amount,
                                    bool logical_family) {
  return apply_right_modifier(value, modifier, logical_family) << (shift_amount & 63u);
}

}  // namespace pto::scalar
