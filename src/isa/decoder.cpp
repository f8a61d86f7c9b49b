#include "isa/decoder.hpp"

#include "isa/tile_start.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <stdexcept>

namespace pto::isa {
namespace {

// Dispatch keys; must match KEY_BITS in tools/gen_isa_tables.py.
inline unsigned key32(std::uint64_t w) {
  return static_cast<unsigned>((w & 0x7F) | (((w >> 12) & 0x7) << 7));
}

inline const DecodeBucket& bucket_for(std::uint64_t bits, unsigned length_bits) {
  switch (length_bits) {
    case 16: return generated::kDecodeBuckets16[bits & 0x3F];
    case 32: return generated::kDecodeBuckets32[key32(bits)];
    case 48: return generated::kDecodeBuckets48[key32(bits >> 16)];
    default: return generated::kDecodeBuckets64[0];
  }
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
  const auto fields = fields_of(f);
  for (const ConstraintDesc& c : constraints_of(f)) {
    if (!constraint_holds(c, field_value(fields[c.field], bits))) return c.field;
  }
  return -1;
}

Decoded decode(std::uint64_t bits, unsigned length_bits) {
  Decoded d;
  if (length_bits != 16 && length_bits != 32 && length_bits != 48 && length_bits != 64) return d;
  bits &= length_mask(length_bits);
  const DecodeBucket* b = &bucket_for(bits, length_bits);
  if (b->sub_width != 0) {
    b = &generated::kDecodeSubBuckets[b->begin + ((bits >> b->sub_lsb) & ((1u << b->sub_width) - 1))];
  }
  const DecodeCandidate* cand = generated::kDecodeCandidates + b->begin;
  for (unsigned i = 0; i < b->count; ++i) {
    const DecodeCandidate& c = cand[i];
    if ((bits & c.mask) != c.match) continue;
    int failed = -1;
    if (c.flags & kCandidateHasConstraints) failed = first_failed_constraint(generated::kForms[c.form], bits);
    if (c.flags & kCandidateExtensionReserved) {
      if (failed >= 0) continue;  // e.g. Fixup payloads need simm17 != 0
      d.status = DecodeStatus::ExtensionReserved;
    } else if (c.flags & kCandidateReservedInPto) {
      d.status = DecodeStatus::ReservedInPto;
    } else {
      d.status = failed >= 0 ? DecodeStatus::ConstraintViolation : DecodeStatus::Accepted;
      d.failed_field = static_cast<std::int16_t>(failed);
      // TEPL selector holes (tile-operations.json reserved.tepl_selector_ranges)
      // are rejected as reserved; TLSU/CUBE forms fix their function in the mask.
      if (d.status == DecodeStatus::Accepted && generated::kForms[c.form].mnem == Mnemonic::BSTART_TEPL &&
          !tile_op_of_start(bits)) {
        d.status = DecodeStatus::ReservedTileSelector;
      }
    }
    d.form = c.form;
    return d;
  }
  return d;
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
    for (const FieldPiece& p : pieces_of(fields[i])) {
      bits |= ((raw >> p.value_lsb) & ((1ull << p.width) - 1)) << p.instruction_lsb;
    }
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
