#include "isa/decoder.hpp"

#include "isa/tile_start.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace pto::isa {
namespace {

using generated::kDecodeEntries;
using generated::kDecodeSlots;

constexpr std::uint64_t low_bits(unsigned width) { return (std::uint64_t{1} << width) - 1; }

// A constraint on the raw field bits (Bitmap fields are at most 6 bits wide).
bool check_holds(const ConstraintCheck& c, std::uint64_t bits) {
  const std::uint64_t raw = (bits >> c.lsb) & low_bits(c.width);
  switch (c.op) {
    case CheckOp::Bitmap: return (c.arg >> raw) & 1;
    case CheckOp::Equal: return raw == c.arg;
    case CheckOp::NotEqual: return raw != c.arg;
  }
  return false;
}

// Field index of the first failing check in kConstraintChecks[begin +: count], or -1.
int first_failed_check(unsigned begin, unsigned count, std::uint64_t bits) {
  for (const ConstraintCheck& c : std::span(generated::kConstraintChecks + begin, count)) {
    if (!check_holds(c, bits)) return c.field;
  }
  return -1;
}

// The leaf of the decode tree (tools/gen_isa_tables.py) that holds every
// candidate `bits` can match.  Most words reach it at the root.
template <unsigned Length>
DecodeEntry leaf_for(std::uint64_t bits) {
  constexpr DecodeRoot r = generated::kDecodeRoots[Length / 16 - 1];
  const auto key = ((bits >> r.lsb0) & low_bits(r.width0)) | (((bits >> r.lsb1) & low_bits(r.width1)) << r.width0);
  DecodeEntry e = kDecodeEntries[r.first + key];
  while (e.width != 0) e = kDecodeEntries[e.begin + ((bits >> e.lsb_or_count) & low_bits(e.width))];
  return e;
}

// Field index of the first constraint of the slot's form that `bits` violate, or -1.
int slot_failed_field(const DecodeSlot& s, std::uint64_t bits) {
  return s.check_count != 0 ? first_failed_check(s.check_begin, s.check_count, bits) : -1;
}

Decoded accepted_form(const DecodeSlot& s, int failed_field) {
  if (failed_field >= 0) return {DecodeStatus::ConstraintViolation, s.form, failed_field};
  return {DecodeStatus::Accepted, s.form, -1};
}

// The first candidate of the leaf that decides: its mask matches and it is not
// an extension reservation whose constraints fail (Fixup payloads need
// simm17 != 0).  Extension reservations come first in decode order.
Decoded decode_in_leaf(std::uint64_t bits, DecodeEntry leaf) {
  for (const DecodeSlot& s : std::span(kDecodeSlots + leaf.begin, leaf.lsb_or_count)) {
    if ((bits & s.mask) != s.match) continue;
    const int failed = slot_failed_field(s, bits);
    switch (s.kind) {
      case DecodeOutcomeKind::ExtensionReserved:
        if (failed >= 0) continue;
        return {DecodeStatus::ExtensionReserved, s.form, -1};
      case DecodeOutcomeKind::ReservedInPto: return {DecodeStatus::ReservedInPto, s.form, -1};
      case DecodeOutcomeKind::TileStart:
        // TEPL selector holes (tile-operations.json reserved.tepl_selector_ranges).
        if (failed < 0 && !tile_op_of_start(bits)) return {DecodeStatus::ReservedTileSelector, s.form, -1};
        return accepted_form(s, failed);
      case DecodeOutcomeKind::Accepted: return accepted_form(s, failed);
    }
  }
  return {};
}

template <unsigned Length>
Decoded decode_length(std::uint64_t bits) {
  bits &= generated::kDecodeRoots[Length / 16 - 1].length_mask;
  const DecodeEntry leaf = leaf_for<Length>(bits);
  // Fast path: the leaf's first candidate matches and is an accepted form (an
  // empty leaf starts at a slot that matches no word).
  const DecodeSlot& s = kDecodeSlots[leaf.begin];
  if ((bits & s.mask) == s.match && s.kind == DecodeOutcomeKind::Accepted) [[likely]] {
    return accepted_form(s, slot_failed_field(s, bits));
  }
  return decode_in_leaf(bits, leaf);
}

}  // namespace

std::uint64_t field_raw(const FieldDesc& fd, std::uint64_t bits) {
  std::uint64_t v = 0;
  for (const FieldPiece& p : pieces_of(fd)) {
    const std::uint64_t piece = (bits >> p.instruction_lsb) & ((1ull << p.width) - 1);
    v |= piece << p.value_lsb;
  }
  return v;
}

std::uint64_t field_bits(const FieldDesc& fd, std::uint64_t raw) {
  std::uint64_t bits = 0;
  for (const FieldPiece& p : pieces_of(fd)) bits |= ((raw >> p.value_lsb) & ((1ull << p.width) - 1)) << p.instruction_lsb;
  return bits;
}

std::int64_t field_value(const FieldDesc& fd, std::uint64_t bits) {
  const std::uint64_t raw = field_raw(fd, bits);
  if (fd.signedness == Signedness::Signed && fd.width < 64) {
    const unsigned shift = 64 - fd.width;
    return static_cast<std::int64_t>(raw << shift) >> shift;
  }
  return static_cast<std::int64_t>(raw);
}

std::int64_t field_value(const FormDesc& f, std::string_view name, std::uint64_t bits) {
  const int i = field_index(f, name);
  if (i < 0) throw std::out_of_range(fmt::format("{} has no field {}", f.mnemonic, name));
  return field_value(fields_of(f)[static_cast<std::size_t>(i)], bits);
}

bool constraint_holds(const ConstraintDesc& c, std::int64_t value) {
  if (c.one_of_bitmap != 0) {
    return value >= 0 && value < 64 && ((c.one_of_bitmap >> value) & 1);
  }
  const auto vals = values_of(c);
  if (c.op == ConstraintOp::OneOf) return std::find(vals.begin(), vals.end(), value) != vals.end();
  return value != vals[0];
}

int first_failed_constraint(const FormDesc& f, std::uint64_t bits) {
  return first_failed_check(f.constraint_begin, f.constraint_count, bits);
}

Decoded decode(std::uint64_t bits, unsigned length_bits) {
  switch (length_bits) {
    case 16: return decode_length<16>(bits);
    case 32: return decode_length<32>(bits);
    case 48: return decode_length<48>(bits);
    case 64: return decode_length<64>(bits);
    default: return {};
  }
}

FieldRange field_range(const FieldDesc& fd) {
  if (fd.signedness == Signedness::Signed) {
    return {-(std::int64_t{1} << (fd.width - 1)), (std::int64_t{1} << (fd.width - 1)) - 1};
  }
  return {0, fd.width >= 63 ? INT64_MAX : (std::int64_t{1} << fd.width) - 1};
}

std::uint64_t field_value_bits(const FieldDesc& fd) {
  std::uint64_t bits = 0;
  for (const FieldPiece& p : pieces_of(fd)) bits |= ((1ull << p.width) - 1) << p.value_lsb;
  return bits;
}

std::string describe_constraint(const FormDesc& f, const ConstraintDesc& c) {
  const auto vals = values_of(c);
  const char* name = fields_of(f)[c.field].name;
  if (c.op == ConstraintOp::NotEqual) return fmt::format("{} must not be {}", name, vals[0]);
  return fmt::format("{} must be one of {{{}}}", name, fmt::join(vals, ", "));
}

std::variant<std::uint64_t, EncodeError> encode(const FormDesc& f, std::span<const std::int64_t> values) {
  const auto fields = fields_of(f);
  if (values.size() != fields.size()) {
    return EncodeError{fmt::format("{} ({}): expected {} field values, got {}", f.mnemonic, f.form_id,
                                   fields.size(), values.size())};
  }
  std::uint64_t bits = f.match;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    const FieldRange r = field_range(fields[i]);
    if (values[i] < r.min || values[i] > r.max) {
      return EncodeError{fmt::format("{} ({}): field {} value {} out of range [{}, {}]", f.mnemonic, f.form_id,
                                     fields[i].name, values[i], r.min, r.max)};
    }
    const std::uint64_t raw = static_cast<std::uint64_t>(values[i]) & length_mask(fields[i].width);
    if (raw & ~field_value_bits(fields[i])) {
      return EncodeError{fmt::format("{} ({}): field {} value {} must be a multiple of {}", f.mnemonic, f.form_id,
                                     fields[i].name, values[i], field_step(fields[i]))};
    }
    bits |= field_bits(fields[i], raw);
  }
  for (const ConstraintDesc& c : constraints_of(f)) {
    if (!constraint_holds(c, values[c.field])) {
      return EncodeError{fmt::format("{} ({}): {} (got {})", f.mnemonic, f.form_id, describe_constraint(f, c),
                                     values[c.field])};
    }
  }
  return bits;
}

std::string_view decode_status_name(DecodeStatus s) {
  switch (s) {
    case DecodeStatus::Accepted: return "accepted";
    case DecodeStatus::ConstraintViolation: return "constraint-violation";
    case DecodeStatus::ReservedInPto: return "reserved-in-pto";
    case DecodeStatus::ExtensionReserved: return "extension-reserved";
    case DecodeStatus::ReservedTileSelector: return "reserved-tile-selector";
    case DecodeStatus::NoForm: return "no-form";
  }
  return "?";
}

}  // namespace pto::isa
