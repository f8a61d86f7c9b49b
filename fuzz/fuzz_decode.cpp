// libFuzzer target: decode arbitrary words of every length; every accepted
// decode must re-encode to the same bits on every bit the form defines (its
// mask and its fields; a few forms leave bits that are neither, e.g. B.IOT
// source-only forms at [8:7], which decode ignores), and rendering must not
// fault.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "dis/render.hpp"
#include "isa/decoder.hpp"
#include "isa/length.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 9) return 0;
  std::uint64_t bits = 0;
  std::memcpy(&bits, data, 8);
  static constexpr unsigned kLengths[4] = {16, 32, 48, 64};
  const unsigned length = kLengths[data[8] & 3];
  bits &= pto::isa::length_mask(length);
  const pto::isa::Decoded d = pto::isa::decode(bits, length);
  if (d.status == pto::isa::DecodeStatus::NoForm) return 0;
  const auto& f = d.desc();
  if ((bits & f.mask) != f.match) std::abort();
  if (d.status == pto::isa::DecodeStatus::Accepted || d.status == pto::isa::DecodeStatus::ReservedInPto) {
    std::vector<std::int64_t> values;
    for (const auto& fd : pto::isa::fields_of(f)) values.push_back(pto::isa::field_value(fd, bits));
    auto enc = pto::isa::encode(f, values);
    std::uint64_t defined = f.mask;
    for (const auto& fd : pto::isa::fields_of(f)) {
      for (const auto& p : pto::isa::pieces_of(fd)) defined |= ((1ull << p.width) - 1) << p.instruction_lsb;
    }
    if (!std::holds_alternative<std::uint64_t>(enc) || std::get<std::uint64_t>(enc) != (bits & defined)) std::abort();
    (void)pto::dis::render_standalone(d, bits);
  }
  return 0;
}
