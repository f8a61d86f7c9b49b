// PTO atomic value rules (asl/scalar/model/amo/semantics.asl,
// PTO-REQ-SCALAR-AMO-001): the returned old value and the new memory value of
// an atomic read-modify-write.  Pure constexpr functions on 64-bit words; the
// AMO handlers (src/scalar/amo.cpp) instantiate them with constant sizes.
#pragma once

#include <cstdint>

#include "scalar/alu_semantics.hpp"

namespace pto::scalar {

// AtomicOperation
enum class AtomicOp : std::uint8_t { SWAP, ADD, AND, OR, XOR, SMIN, SMAX, UMIN, UMAX };

// NormalizeAtomicReturn: bytes and halfwords zero-extend, words sign-extend.
constexpr Word normalize_atomic_return(Word value, unsigned size_bytes) {
  return size_bytes == 4 ? sign_extend(value, 32) : zero_extend(value, 8 * size_bytes);
}

// AtomicValueSized: the new memory value, computed on size-normalized operands.
constexpr Word atomic_value_sized(AtomicOp op, Word old_value, Word operand, unsigned size_bytes) {
  const unsigned bits = 8 * size_bytes;
  const Word old_u = zero_extend(old_value, bits);
  const Word operand_u = zero_extend(operand, bits);
  const auto old_s = as_signed(sign_extend(old_value, bits));
  const auto operand_s = as_signed(sign_extend(operand, bits));
  switch (op) {
    case AtomicOp::SWAP: return operand_u;
    case AtomicOp::ADD: return zero_extend(old_u + operand_u, bits);
    case AtomicOp::AND: return old_u & operand_u;
    case AtomicOp::OR: return old_u | operand_u;
    case AtomicOp::XOR: return old_u ^ operand_u;
    case AtomicOp::SMIN: return old_s < operand_s ? old_u : operand_u;
    case AtomicOp::SMAX: return old_s > operand_s ? old_u : operand_u;
    case AtomicOp::UMIN: return old_u < operand_u ? old_u : operand_u;
    case AtomicOp::UMAX: return old_u > operand_u ? old_u : operand_u;
  }
  return 0;
}

}  // namespace pto::scalar
