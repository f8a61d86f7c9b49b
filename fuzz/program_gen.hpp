// Structure-aware code for the run and loader targets: the fuzz input is read
// as a stream of choices, each drawing one legal word of a catalog form (its
// mask/match bits, field values in range, constraint values from their lists)
// or a whole bundle (a block start, its descriptors), so that almost every
// input decodes and runs deep instead of stopping at the first illegal word.
// Raw halfwords stay reachable, so nothing random bytes could reach is lost.
//
// Record layout (tools/make_fuzz_corpus.py writes seeds in it):
//   tag byte; tag % 8 selects the record:
//     0..3  one non-block form: selector u16, then its field choices
//     4..5  a bundle: block-start selector u16 and fields, then (tag >> 3) % 6
//           descriptors, each a selector byte and fields
//     6     a block stop: selector byte
//     7     a raw halfword: two bytes
//   A field choice is one byte for fields of up to 8 bits.  Wider fields take
//   a mode byte: below 0xC0 a small value (mode % 64 - 16 steps), otherwise
//   ceil(width / 8) more bytes of raw bits.  OneOf fields take one byte
//   selecting a listed value.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <variant>
#include <vector>

#include "isa/catalog.hpp"
#include "isa/decoder.hpp"

namespace pto::fuzz {

// Reads choices; past the end every choice is 0.
class ChoiceReader {
 public:
  explicit ChoiceReader(std::span<const std::uint8_t> data) : data_(data) {}
  bool done() const { return pos_ >= data_.size(); }
  std::uint8_t byte() { return done() ? 0 : data_[pos_++]; }
  // A reader over the next n choices (fewer at the end), which this one skips.
  ChoiceReader split(std::size_t n) {
    const std::size_t k = std::min(n, data_.size() - pos_);
    const ChoiceReader part(data_.subspan(pos_, k));
    pos_ += k;
    return part;
  }
  std::uint64_t little_endian(unsigned bytes) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bytes; ++i) v |= std::uint64_t{byte()} << (8 * i);
    return v;
  }

 private:
  std::span<const std::uint8_t> data_;
  std::size_t pos_ = 0;
};

// Accepted catalog forms by the role they play in a generated program.
struct FormPools {
  std::vector<isa::FormIndex> plain, block_start, block_body, block_stop;
};

inline const FormPools& form_pools() {
  static const FormPools pools = [] {
    FormPools p;
    for (const isa::FormDesc& f : isa::catalog_forms()) {
      if (f.status != isa::FormStatus::Accepted) continue;
      const std::string_view m = f.mnemonic;
      std::vector<isa::FormIndex>& pool =
          m.starts_with("BSTART") || m.starts_with("C.BSTART") ? p.block_start
          : m.starts_with("B.") || m.starts_with("C.B.")       ? p.block_body
          : m.ends_with("BSTOP")                                ? p.block_stop
                                                                : p.plain;
      pool.push_back(isa::index_of(f));
    }
    return p;
  }();
  return pools;
}

// Sign-extends the low `width` bits of a signed field.
inline std::int64_t field_from_raw(const isa::FieldDesc& fd, std::uint64_t raw) {
  raw &= isa::length_mask(fd.width) & isa::field_value_bits(fd);
  if (fd.signedness == isa::Signedness::Signed && fd.width < 64 && ((raw >> (fd.width - 1)) & 1))
    raw |= ~isa::length_mask(fd.width);
  return static_cast<std::int64_t>(raw);
}

inline const isa::ConstraintDesc* one_of_constraint(const isa::FormDesc& f, std::size_t field) {
  for (const isa::ConstraintDesc& c : isa::constraints_of(f))
    if (c.field == field && c.op == isa::ConstraintOp::OneOf) return &c;
  return nullptr;
}

inline std::int64_t draw_field(ChoiceReader& in, const isa::FormDesc& f, std::size_t field) {
  const isa::FieldDesc& fd = isa::fields_of(f)[field];
  if (const isa::ConstraintDesc* c = one_of_constraint(f, field)) {
    const auto values = isa::values_of(*c);
    return values[in.byte() % values.size()];
  }
  if (fd.width <= 8) return field_from_raw(fd, std::uint64_t{in.byte()} * isa::field_step(fd));
  const std::uint8_t mode = in.byte();
  if (mode < 0xC0) {
    // Small magnitudes: the offsets and immediates that stay inside the
    // fuzzing memory.
    return field_from_raw(fd, static_cast<std::uint64_t>((mode % 64 - 16) * isa::field_step(fd)));
  }
  return field_from_raw(fd, in.little_endian((fd.width + 7) / 8));
}

// One word of form f; a NotEqual constraint a drawn value breaks leaves the
// form's bare match bits (itself a legal test of the constraint check).
inline std::uint64_t draw_word(ChoiceReader& in, const isa::FormDesc& f) {
  std::vector<std::int64_t> values;
  for (std::size_t i = 0; i < f.field_count; ++i) values.push_back(draw_field(in, f, i));
  const auto bits = isa::encode(f, values);
  return std::holds_alternative<std::uint64_t>(bits) ? std::get<std::uint64_t>(bits) : f.match;
}

inline void append_word(std::vector<std::uint8_t>& code, std::uint64_t bits, unsigned length_bits) {
  for (unsigned i = 0; i < length_bits / 8; ++i) code.push_back(static_cast<std::uint8_t>(bits >> (8 * i)));
}

inline void append_form(std::vector<std::uint8_t>& code, ChoiceReader& in, std::span<const isa::FormIndex> pool,
                        std::uint64_t selector) {
  const isa::FormDesc& f = isa::form(pool[selector % pool.size()]);
  append_word(code, draw_word(in, f), f.length_bits);
}

inline void append_record(std::vector<std::uint8_t>& code, ChoiceReader& in) {
  const FormPools& pools = form_pools();
  const std::uint8_t tag = in.byte();
  switch (tag % 8) {
    case 4:
    case 5:
      append_form(code, in, pools.block_start, in.little_endian(2));
      for (unsigned i = 0; i < (tag >> 3) % 6u; ++i) append_form(code, in, pools.block_body, in.byte());
      break;
    case 6:
      append_form(code, in, pools.block_stop, in.byte());
      break;
    case 7:
      append_word(code, in.little_endian(2), 16);
      break;
    default:
      append_form(code, in, pools.plain, in.little_endian(2));
  }
}

// Code from the choices, at most `max_bytes` (the last record may be cut).
inline std::vector<std::uint8_t> generate_code(ChoiceReader& in, std::size_t max_bytes) {
  std::vector<std::uint8_t> code;
  while (!in.done() && code.size() < max_bytes) append_record(code, in);
  if (code.size() > max_bytes) code.resize(max_bytes);
  return code;
}

}  // namespace pto::fuzz
