// PTO integer, logic, shift, multiply/divide and bitfield value rules
// (asl/scalar/model/alu/semantics.asl, PTO-REQ-SCALAR-ALU-001, and the
// per-mnemonic contracts under asl/scalar/alu/).  Pure constexpr functions on
// 64-bit words; all arithmetic is unsigned (modulo 2^64) so nothing is UB.
#pragma once

#include <bit>
#include <cstdint>

#include "scalar/operands.hpp"

namespace pto::scalar {

__extension__ using U128 = unsigned __int128;

// ScalarBinaryOperation
enum class BinaryOp : std::uint8_t { ADD, SUB, AND, OR, XOR, SLL, SRL, SRA, MIN, MINU, MAX, MAXU };

constexpr std::int64_t as_signed(Word v) { return static_cast<std::int64_t>(v); }

// ScalarBinary: shifts use right[5:0].
constexpr Word scalar_binary(BinaryOp op, Word left, Word right) {
  switch (op) {
    case BinaryOp::ADD: return left + right;
    case BinaryOp::SUB: return left - right;
    case BinaryOp::AND: return left & right;
    case BinaryOp::OR: return left | right;
    case BinaryOp::XOR: return left ^ right;
    case BinaryOp::SLL: return left << (right & 63);
    case BinaryOp::SRL: return left >> (right & 63);
    case BinaryOp::SRA: return static_cast<Word>(as_signed(left) >> (right & 63));
    case BinaryOp::MIN: return as_signed(left) < as_signed(right) ? left : right;
    case BinaryOp::MINU: return left < right ? left : right;
    case BinaryOp::MAX: return as_signed(left) > as_signed(right) ? left : right;
    case BinaryOp::MAXU: return left > right ? left : right;
  }
  return 0;
}

// ScalarBinaryW: 32-bit operation on the low words (shifts use right[4:0]),
// result sign-extended.  MIN/MAX have no word form.
constexpr Word scalar_binary_w(BinaryOp op, Word left, Word right) {
  const std::uint32_t l = static_cast<std::uint32_t>(left);
  const std::uint32_t r = static_cast<std::uint32_t>(right);
  std::uint32_t result = 0;
  switch (op) {
    case BinaryOp::ADD: result = l + r; break;
    case BinaryOp::SUB: result = l - r; break;
    case BinaryOp::AND: result = l & r; break;
    case BinaryOp::OR: result = l | r; break;
    case BinaryOp::XOR: result = l ^ r; break;
    case BinaryOp::SLL: result = l << (right & 31); break;
    case BinaryOp::SRL: result = l >> (right & 31); break;
    case BinaryOp::SRA: result = static_cast<std::uint32_t>(static_cast<std::int32_t>(l) >> (right & 31)); break;
    default: break;
  }
  return sign_extend(result, 32);
}

// ---- multiply / divide ----

// MultiplyWord: low 64 bits of the product (MUL and MULU are the same).
constexpr Word multiply_word(Word left, Word right) { return left * right; }

// ScalarMultiplyW: low 32 bits of the product, sign-extended.
constexpr Word scalar_multiply_w(Word left, Word right) { return sign_extend(left * right, 32); }

// ScalarMultiplyAdd / ScalarMultiplyAddW
constexpr Word scalar_multiply_add(Word addend, Word left, Word right) { return addend + left * right; }
constexpr Word scalar_multiply_add_w(Word addend, Word left, Word right) {
  return sign_extend(left * right + addend, 32);
}

// ScalarMultiplyImmediateAdd (HL.MIADD / HL.MISUB)
constexpr Word scalar_multiply_immediate_add(Word left, Word right, Word immediate, bool subtract) {
  const Word product = right * immediate;
  return subtract ? left - product : left + product;
}

constexpr U128 multiply_wide_unsigned(Word left, Word right) { return U128{left} * U128{right}; }

// MultiplyWideSigned: magnitudes multiplied, negated when the signs differ.
constexpr U128 multiply_wide_signed(Word left, Word right) {
  const bool left_negative = as_signed(left) < 0;
  const bool right_negative = as_signed(right) < 0;
  const U128 magnitude = multiply_wide_unsigned(left_negative ? Word{0} - left : left,
                                                right_negative ? Word{0} - right : right);
  return left_negative != right_negative ? U128{0} - magnitude : magnitude;
}

// ScalarDivideUnsigned / ScalarRemainderUnsigned: x / 0 = 0, x % 0 = x.
constexpr Word scalar_divide_unsigned(Word dividend, Word divisor) {
  return divisor == 0 ? 0 : dividend / divisor;
}
constexpr Word scalar_remainder_unsigned(Word dividend, Word divisor) {
  return divisor == 0 ? dividend : dividend % divisor;
}

// ScalarDivideSigned: magnitude division truncating toward zero; x / 0 = 0,
// INT64_MIN / -1 = INT64_MIN (the magnitude wraps).
constexpr Word scalar_divide_signed(Word dividend, Word divisor) {
  if (divisor == 0) return 0;
  const bool dividend_negative = as_signed(dividend) < 0;
  const bool divisor_negative = as_signed(divisor) < 0;
  const Word magnitude = (dividend_negative ? Word{0} - dividend : dividend) /
                         (divisor_negative ? Word{0} - divisor : divisor);
  return dividend_negative != divisor_negative ? Word{0} - magnitude : magnitude;
}

// ScalarRemainderSigned: dividend - quotient * divisor; x % 0 = x,
// INT64_MIN % -1 = 0.
constexpr Word scalar_remainder_signed(Word dividend, Word divisor) {
  if (divisor == 0) return dividend;
  return dividend - scalar_divide_signed(dividend, divisor) * divisor;
}

// Word forms: operate on the extended low words, sign-extend the low result.
constexpr Word scalar_divide_unsigned_w(Word dividend, Word divisor) {
  return sign_extend(scalar_divide_unsigned(zero_extend(dividend, 32), zero_extend(divisor, 32)), 32);
}
constexpr Word scalar_remainder_unsigned_w(Word dividend, Word divisor) {
  return sign_extend(scalar_remainder_unsigned(zero_extend(dividend, 32), zero_extend(divisor, 32)), 32);
}
constexpr Word scalar_divide_signed_w(Word dividend, Word divisor) {
  return sign_extend(scalar_divide_signed(sign_extend(dividend, 32), sign_extend(divisor, 32)), 32);
}
constexpr Word scalar_remainder_signed_w(Word dividend, Word divisor) {
  return sign_extend(scalar_remainder_signed(sign_extend(dividend, 32), sign_extend(divisor, 32)), 32);
}

// ---- bitfields (width 1..64, offset 0..63) ----

constexpr Word low_mask(unsigned width) { return width >= 64 ? ~Word{0} : (Word{1} << width) - 1; }

// ExtractBitfield: rotate right by offset, keep `width` bits, optionally sign-extend.
constexpr Word extract_bitfield(Word value, unsigned width, unsigned offset, bool signed_result) {
  const Word field = std::rotr(value, static_cast<int>(offset)) & low_mask(width);
  return signed_result ? sign_extend(field, width) : field;
}

enum class BitCount : std::uint8_t { LeadingZeros, TrailingZeros, Population };

// CountBitfield: counts inside the extracted field (an all-zero field counts `width`).
constexpr Word count_bitfield(Word value, unsigned width, unsigned offset, BitCount kind) {
  const Word field = extract_bitfield(value, width, offset, false);
  switch (kind) {
    case BitCount::Population: return static_cast<Word>(std::popcount(field));
    case BitCount::LeadingZeros: return static_cast<Word>(std::countl_zero(field) - (64 - static_cast<int>(width)));
    case BitCount::TrailingZeros:
      return field == 0 ? width : static_cast<Word>(std::countr_zero(field));
  }
  return 0;
}

// ModifyBitfield (BIC / BIS): clear or set `width` bits starting at `offset`, wrapping.
constexpr Word modify_bitfield(Word value, unsigned width, unsigned offset, bool set_bits) {
  const Word mask = std::rotl(low_mask(width), static_cast<int>(offset));
  return set_bits ? value | mask : value & ~mask;
}

// ReverseBitfieldBytes (REV): byte-reverse the extracted field; zero unless
// the width is a whole number of bytes.
constexpr Word reverse_bitfield_bytes(Word value, unsigned width, unsigned offset) {
  if (width % 8 != 0) return 0;
  return __builtin_bswap64(extract_bitfield(value, width, offset, false)) >> (64 - width);
}

// InsertBitfield (HL.BFI): source[width-1:0] into base at bits first..last (wrapping).
constexpr Word insert_bitfield(Word base, Word source, unsigned first, unsigned last) {
  const unsigned width = ((last - first + 64u) % 64u) + 1u;
  const Word mask = std::rotl(low_mask(width), static_cast<int>(first));
  return (base & ~mask) | (std::rotl(source & low_mask(width), static_cast<int>(first)));
}

// ---- concatenation shifts (HL.CCAT / HL.CCATW): {left, right} >> shamt ----
struct WordPair {
  Word first;
  Word second;
};

// InstructionContractLowResult_HL_CCAT / InstructionContractHighResult_HL_CCAT
constexpr WordPair concatenate_shift(Word left, Word right, unsigned shift_amount) {
  const U128 packed = (U128{left} << 64) | right;
  const U128 shifted = shift_amount >= 128 ? U128{0} : packed >> shift_amount;
  return {static_cast<Word>(shifted), static_cast<Word>(shifted >> 64)};
}

// HL.CCATW: {left[31:0], right[31:0]} >> shamt, both halves sign-extended;
// shifts 64..127 give two zeros.
constexpr WordPair concatenate_shift_w(Word left, Word right, unsigned shift_amount) {
  if (shift_amount >= 64) return {0, 0};
  const Word packed = (zero_extend(left, 32) << 32) | zero_extend(right, 32);
  const Word shifted = packed >> shift_amount;
  return {sign_extend(shifted, 32), sign_extend(shifted >> 32, 32)};
}

// ---- materialisation ----
constexpr Word materialize_lui(Word imm20) { return sign_extend(imm20, 20) << 12; }            // LUI
constexpr Word materialize_long_upper(Word imm32) { return zero_extend(imm32, 32) << 32; }     // HL.LUI
constexpr Word materialize_long_signed(Word imm32) { return sign_extend(imm32, 32); }          // HL.LIS
constexpr Word materialize_long_unsigned(Word imm32) { return zero_extend(imm32, 32); }        // HL.LIU

// ExtendScalarValue (C.SEXT.* / C.ZEXT.*)
constexpr Word extend_scalar_value(Word value, unsigned width, bool signed_result) {
  return signed_result ? sign_extend(value, width) : zero_extend(value, width);
}

// ApplySelectModifier + ScalarConditionalSelect (CSEL)
constexpr Word scalar_conditional_select(Word predicate, Word selected_true, Word selected_false) {
  return predicate != 0 ? selected_true : selected_false;
}

}  // namespace pto::scalar
