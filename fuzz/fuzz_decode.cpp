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
#include "isa/tile_start.hpp"

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
  // Encoding variants (catalog `encoding_variants`: BSTART.TMOV functions
  // 9..12, BSTART.TSTORE 14) decode as their carrier form with another
  // Function in bits [24:20], which is no field: compare outside them.
  const std::uint64_t variant_bits = pto::isa::is_tile_start(f) ? std::uint64_t{0x1F} << 20 : 0;
  if ((bits & f.mask & ~variant_bits) != (f.match & ~variant_bits)) std::abort();
  if (d.status == pto::isa::DecodeStatus::Accepted || d.status == pto::isa::DecodeStatus::ReservedInPto) {
    std::vector<std::int64_t> values;
    for (const auto& fd : pto::isa::fields_of(f)) values.push_back(pto::isa::field_value(fd, bits));
    auto enc = pto::isa::encode(f, values);
    std::uint64_t defined = f.mask;
    for (const auto& fd : pto::isa::fields_of(f)) {
      for (const auto& p : pto::isa::pieces_of(fd)) defined |= ((1ull << p.width) - 1) << p.instruction_lsb;
    }
    if (!std::holds_alternative<std::uint64_t>(enc) ||
        (std::get<std::uint64_t>(enc) & ~variant_bits) != (bits & defined & ~variant_bits)) {
      std::abort();
    }
    (void)pto::dis::render_standalone(d, bits);
  }
  return 0;
}
