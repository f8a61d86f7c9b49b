// libFuzzer target: the elementwise tile fast paths (tile/tile_elementwise.hpp
// span_binary: the vector loops of every tier the host has, capped per input
// with num::simd::limit_tier) against the per-element semantics they replace
// (ops::binary_element), bit for bit, on operands from the input.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>

#include "numerics/simd_span.hpp"
#include "tile/ops_common.hpp"
#include "tile/ops_elementwise.hpp"
#include "tile/tile_elementwise.hpp"
#include "tile/tile_state.hpp"

namespace {

using pto::tile::DataType;
using pto::tile::NumericProfile;
using pto::tile::ops::Binary;

constexpr DataType kTypes[] = {DataType::FP16, DataType::BF16, DataType::FP32, DataType::FP64,
                               DataType::S32,  DataType::U16,  DataType::S8,   DataType::U64};
constexpr Binary kOps[] = {Binary::ADD, Binary::SUB, Binary::MUL, Binary::DIV, Binary::MAX, Binary::MIN};
constexpr pto::num::simd::Tier kTiers[] = {pto::num::simd::Tier::Portable, pto::num::simd::Tier::Avx2,
                                           pto::num::simd::Tier::Avx512};

class Bytes {
 public:
  explicit Bytes(std::span<const std::uint8_t> b) : b_(b) {}
  std::uint8_t next() { return at_ < b_.size() ? b_[at_++] : 0; }
  std::uint64_t element(unsigned bits) {
    std::uint64_t v = 0;
    for (unsigned i = 0; i < bits / 8; ++i) v |= std::uint64_t{next()} << (8 * i);
    return v;
  }

 private:
  std::span<const std::uint8_t> b_;
  std::size_t at_ = 0;
};

pto::tile::Tile make_tile(DataType t, std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t valid_columns) {
  pto::tile::TileDescriptor d;
  d.allocated = true;
  d.capacity_bytes = 4096;
  d.columns = columns;
  d.rows = pto::tile::derived_tile_rows(d.capacity_bytes, columns, t);
  d.valid_rows = std::min(valid_rows, d.rows);
  d.valid_columns = valid_columns;
  d.data_type = t;
  pto::tile::Tile tile;
  tile.configure(d);
  return tile;
}

}  // namespace

// bytes: type, operation, profile and tier, columns, valid rows, valid
// columns, then the left and right elements (zeros once the input ends).
extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 6) return 0;
  Bytes in({data, size});
  const DataType t = kTypes[in.next() % std::size(kTypes)];
  const Binary op = kOps[in.next() % std::size(kOps)];
  const std::uint8_t mode = in.next();
  const NumericProfile profile = (mode & 1) ? NumericProfile::Ieee : NumericProfile::Reference;
  const unsigned bits = pto::tile::element_bits(t);
  const std::uint32_t columns = std::max<std::uint32_t>(1, in.next() % (4096 * 8 / bits / 2 + 1));
  const std::uint32_t rows = 1 + in.next() % 8;
  const std::uint32_t valid_columns = 1 + in.next() % columns;
  pto::tile::Tile left = make_tile(t, columns, rows, valid_columns);
  pto::tile::Tile right = left, out = left;
  const auto& d = left.descriptor();
  for (pto::tile::Tile* tile : {&left, &right})
    for (std::uint32_t r = 0; r < d.valid_rows; ++r)
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) tile->write_element(r, c, in.element(bits));
  pto::num::simd::limit_tier(kTiers[(mode >> 1) % std::size(kTiers)]);
  const bool fast = pto::tile::span_binary(op, out, left, right, profile);
  pto::num::simd::limit_tier(pto::num::simd::Tier::Avx512);
  if (!fast) return 0;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const std::uint32_t e = left.linear_index(r, c);
      const auto exact = pto::tile::ops::binary_element(op, t, left.read_raw(e), right.read_raw(e), profile);
      if (out.read_raw(e) != exact.bits) std::abort();
    }
  return 0;
}
