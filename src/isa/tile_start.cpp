#include "isa/tile_start.hpp"

namespace pto::isa {

bool is_tile_start(const FormDesc& f) {
  // Tile starts are the 32-bit BSTART carriers with kind [8:7] = 11 and a TLSU,
  // TEPL or CUBE family selector (asl/block/model/encoding).
  if (f.length_bits != 32 || f.family != Family::CMD) return false;
  if ((f.mask & 0x1FF) != 0x1FF || (f.match & 0x7F) != 0x01 || ((f.match >> 7) & 3) != 3) return false;
  if ((f.mask & 0xF8000) != 0xF8000) return false;
  const auto fam = static_cast<unsigned>((f.match >> 15) & 0x1F);
  return fam == 2 || fam == 3 || fam == 6;
}

std::optional<TileOp> tile_op_of_start(std::uint64_t bits) {
  const auto fam = static_cast<TileStartFamily>((bits >> 15) & 0x1F);
  const unsigned function = (bits >> 20) & 0x1F;
  std::int8_t idx = -1;
  switch (fam) {
    case TileStartFamily::TEPL: idx = generated::kTeplSelectorMap[tile_start_selector(bits)]; break;
    case TileStartFamily::TLSU: idx = generated::kTlsuFunctionMap[function]; break;
    case TileStartFamily::CUBE: idx = generated::kCubeFunctionMap[function]; break;
    default: return std::nullopt;
  }
  if (idx < 0) return std::nullopt;
  return static_cast<TileOp>(idx);
}

}  // namespace pto::isa
