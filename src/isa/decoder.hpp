// Table-driven decoder and encoder over the generated catalog tables.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <variant>

#include "isa/catalog.hpp"

namespace pto::isa {

enum class DecodeStatus : std::uint8_t {
  Accepted,             // an accepted form whose constraints hold
  ConstraintViolation,  // mask matched, a form constraint fails (Fault_IllegalInstruction)
  ReservedInPto,        // ESAVE/ERCOV/XB: decode, then rejected by the model
  ExtensionReserved,    // one of the 40 extension reservations
  ReservedTileSelector, // BSTART.TEPL whose Mode:Function selector is a reserved hole
  NoForm,               // no form of this length matches
};

struct Decoded {
  DecodeStatus status = DecodeStatus::NoForm;
  FormIndex form = 0;           // meaningful unless status == NoForm
  std::int32_t failed_field = -1;  // ConstraintViolation: index of the field (32-bit: an 8-byte
                                   // Decoded is returned in one register)

  bool ok() const { return status == DecodeStatus::Accepted; }
  const FormDesc& desc() const { return isa::form(form); }
};

// Decode `length_bits` (16, 32, 48 or 64) bits.  Bits above the length are ignored.
Decoded decode(std::uint64_t bits, unsigned length_bits);

constexpr std::uint64_t length_mask(unsigned length_bits) {
  return length_bits >= 64 ? ~0ull : ((1ull << length_bits) - 1);
}

// Field value assembled from its pieces; signed fields are sign-extended.
std::int64_t field_value(const FieldDesc& fd, std::uint64_t bits);
// Raw unsigned field value assembled from its pieces.
std::uint64_t field_raw(const FieldDesc& fd, std::uint64_t bits);
// The inverse: raw field value placed at its pieces' instruction bits (no
// range or constraint check; encode() adds those).
std::uint64_t field_bits(const FieldDesc& fd, std::uint64_t raw);
// Field by name (throws std::out_of_range when the form has no such field).
std::int64_t field_value(const FormDesc& f, std::string_view name, std::uint64_t bits);

// Index of the first field violating a constraint, or -1.
int first_failed_constraint(const FormDesc& f, std::uint64_t bits);
bool constraint_holds(const ConstraintDesc& c, std::int64_t value);

// Allowed range of a field's value.
struct FieldRange {
  std::int64_t min;
  std::int64_t max;
};
FieldRange field_range(const FieldDesc& fd);
// Value bits the encoding carries; fields whose lowest piece starts above value
// bit 0 are scaled (e.g. FENTRY uimm is a multiple of 8).
std::uint64_t field_value_bits(const FieldDesc& fd);
// Smallest non-zero encodable magnitude (1 for unscaled fields).
inline std::int64_t field_step(const FieldDesc& fd) {
  const std::uint64_t b = field_value_bits(fd);
  return b ? static_cast<std::int64_t>(b & (~b + 1)) : 1;
}

struct EncodeError {
  std::string message;  // names the form, the field and the allowed range
};

// Encode a form from field values given in the form's field order.
std::variant<std::uint64_t, EncodeError> encode(const FormDesc& f, std::span<const std::int64_t> values);

std::string describe_constraint(const FormDesc& f, const ConstraintDesc& c);
std::string_view decode_status_name(DecodeStatus s);

}  // namespace pto::isa
