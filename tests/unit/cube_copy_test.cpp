// Differential tests of the CUBE block copies (tile/cube_copy.hpp) behind
// TLOAD / TSTORE on CUBE_M16 / CUBE_M32 / CUBE_N8 tiles against the element
// path they replace (one memory access and one TileCubePayloadIndex per
// element, kept as the fallback): random legal shapes of every element
// size, dense, padded and overlapping row strides; the destination payload
// (padding included) and definedness after TLOAD, and every memory byte
// after TSTORE, must agree bit for bit.  Each block-copy case runs over the
// three routes of the bands: in place in host memory (FlatTileMemory),
// through the row image (a port without an in-place view), and the
// machine's paged memory (arch::Memory: bands inside one resident page in
// place, the others through the image).
#include <gtest/gtest.h>

#include <bit>
#include <cstddef>
#include <memory>
#include <random>
#include <vector>

#include "arch/memory.hpp"
#include "tile/cube_copy.hpp"
#include "tile/cube_layout.hpp"
#include "tile/tile_memory.hpp"

namespace pto::test {
namespace {

using tile::DataType;
using tile::TileLayout;

constexpr DataType kTypes[] = {DataType::FP32, DataType::S32, DataType::FP16, DataType::BF16,
                               DataType::S8,   DataType::E4M3, DataType::E4M3};
constexpr TileLayout kLayouts[] = {TileLayout::CubeM16, TileLayout::CubeM32, TileLayout::CubeN8};

struct Case {
  TileLayout layout;
  DataType type;
  std::uint32_t rows, columns;
  std::uint64_t base, stride;
};

std::uint32_t capacity(const tile::CubeGeometry& g) {
  return std::bit_ceil(std::max(g.storage_bytes, tile::kTileCellBytes));
}

// A legal CUBE tile shape of the layout and a stride of whole elements:
// dense, padded, or (one case in eight) shorter than a row.
bool random_case(std::mt19937_64& rng, Case& c) {
  c.layout = kLayouts[rng() % 3];
  c.type = kTypes[rng() % std::size(kTypes)];
  const std::uint32_t limit = c.layout == TileLayout::CubeM16 ? 16 : c.layout == TileLayout::CubeM32 ? 32 : 200;
  c.rows = 1 + static_cast<std::uint32_t>(rng() % limit);
  c.columns = 1 + static_cast<std::uint32_t>(rng() % 200);
  const tile::CubeGeometry g = tile::cube_geometry(c.layout, c.rows, c.columns, c.type);
  if (!g.valid() || !tile::cube_descriptor_shape_legal(capacity(g), c.rows, c.columns, c.type, c.layout)) return false;
  const unsigned size = tile::memory_element_bytes(c.type);
  const std::uint64_t dense = std::uint64_t{c.columns} * size;
  const unsigned pick = static_cast<unsigned>(rng() % 8);
  c.stride = pick == 0 ? size * (1 + rng() % c.columns) : dense + (pick < 4 ? 0 : size * (rng() % 16));
  c.base = size * (rng() % 64);
  return true;
}

tile::Tile& configure(tile::TileFile& f, const Case& c) {
  const tile::CubeGeometry g = tile::cube_geometry(c.layout, c.rows, c.columns, c.type);
  const tile::ConfigureRequest r{.capacity_bytes = capacity(g),
                                 .valid_rows = c.rows, .valid_columns = c.columns, .data_type = c.type,
                                 .layout = c.layout, .location = tile::TileLocation::Matrix, .mask = 0b0001};
  EXPECT_EQ(f.configure_cube(0, r), arch::FaultCode::Fault_None);
  return f.tile(0);
}

std::vector<std::byte> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::byte> bytes(n);
  for (std::byte& b : bytes) b = static_cast<std::byte>(rng());
  return bytes;
}

std::size_t footprint(const Case& c) {
  return c.base + (c.rows - 1) * c.stride + std::uint64_t{c.columns} * tile::memory_element_bytes(c.type) + 64;
}

enum class Route { InPlace, Image, Paged };
constexpr Route kRoutes[] = {Route::InPlace, Route::Image, Route::Paged};

// FlatTileMemory's bytes without its in-place view.
class ImagePort final : public tile::TileMemoryPort {
 public:
  explicit ImagePort(std::span<std::byte> storage) : flat_(storage) {}
  arch::FaultCode check(std::uint64_t address, std::uint64_t size, bool write) const override {
    return flat_.check(address, size, write);
  }
  void read(std::uint64_t address, std::span<std::byte> out) override { flat_.read(address, out); }
  void write(std::uint64_t address, std::span<const std::byte> in) override { flat_.write(address, in); }

 private:
  tile::FlatTileMemory flat_;
};

// The machine's memory as the bundle engine's port uses it: bulk copies and
// Memory::in_place_range.  Holds `storage` at address 0 while it lives and
// copies it back on destruction.
class PagedPort final : public tile::TileMemoryPort {
 public:
  explicit PagedPort(std::span<std::byte> storage) : storage_(storage) {
    memory_.write_bytes(0, {reinterpret_cast<const std::uint8_t*>(storage.data()), storage.size()});
  }
  ~PagedPort() override { memory_.read_bytes(0, {reinterpret_cast<std::uint8_t*>(storage_.data()), storage_.size()}); }
  PagedPort(const PagedPort&) = delete;
  PagedPort& operator=(const PagedPort&) = delete;
  arch::FaultCode check(std::uint64_t address, std::uint64_t size, bool) const override {
    return address <= storage_.size() && size <= storage_.size() - address ? arch::FaultCode::Fault_None
                                                                           : arch::FaultCode::Fault_DataPage;
  }
  void read(std::uint64_t address, std::span<std::byte> out) override {
    memory_.read_bytes(address, {reinterpret_cast<std::uint8_t*>(out.data()), out.size()});
  }
  void write(std::uint64_t address, std::span<const std::byte> in) override {
    memory_.write_bytes(address, {reinterpret_cast<const std::uint8_t*>(in.data()), in.size()});
  }
  std::byte* in_place(std::uint64_t address, std::uint64_t size, bool write) override {
    return reinterpret_cast<std::byte*>(memory_.in_place_range(address, size, write));
  }

 private:
  arch::Memory memory_;
  std::span<std::byte> storage_;
};

// TLOAD or TSTORE through the route's port over `memory`.
template <typename F>
void with_port(Route route, std::vector<std::byte>& memory, F f) {
  if (route == Route::InPlace) {
    tile::FlatTileMemory port(memory);
    f(port);
  } else if (route == Route::Image) {
    ImagePort port(memory);
    f(port);
  } else {
    PagedPort port(memory);
    f(port);
  }
}

struct Loaded {
  std::vector<std::byte> payload;
  std::uint64_t defined = 0;
};

Loaded load(const Case& c, std::vector<std::byte> memory, bool blocks, Route route = Route::InPlace) {
  tile::TileFile f;
  tile::Tile& t = configure(f, c);
  std::fill(t.payload().begin(), t.payload().end(), std::byte{0xA5});
  tile::set_cube_block_copies_enabled(blocks);
  with_port(route, memory, [&](tile::TileMemoryPort& port) { EXPECT_TRUE(tile::tload(t, port, c.base, c.stride).ok()); });
  tile::set_cube_block_copies_enabled(true);
  return {{t.payload().begin(), t.payload().end()}, t.defined_element_count()};
}

std::vector<std::byte> store(const Case& c, std::vector<std::byte> memory, std::mt19937_64::result_type seed,
                             bool blocks, Route route = Route::InPlace) {
  tile::TileFile f;
  tile::Tile& t = configure(f, c);
  std::mt19937_64 rng(seed);
  for (std::uint32_t r = 0; r < c.rows; ++r)
    for (std::uint32_t col = 0; col < c.columns; ++col) t.write_element(r, col, rng() & ((1ULL << tile::element_bits(c.type)) - 1));
  tile::set_cube_block_copies_enabled(blocks);
  with_port(route, memory, [&](tile::TileMemoryPort& port) { EXPECT_TRUE(tile::tstore(t, port, c.base, c.stride).ok()); });
  tile::set_cube_block_copies_enabled(true);
  return memory;
}

std::string describe(const Case& c) {
  return std::to_string(static_cast<int>(c.layout)) + " " + std::string(num::name(c.type)) + " " + std::to_string(c.rows) +
         "x" + std::to_string(c.columns) + " base " + std::to_string(c.base) + " stride " + std::to_string(c.stride);
}

TEST(CubeCopy, LoadMatchesElementPath) {
  std::mt19937_64 rng(1717);
  for (int i = 0; i < 400;) {
    Case c;
    if (!random_case(rng, c)) continue;
    ++i;
    const std::vector<std::byte> memory = random_bytes(rng, footprint(c));
    const Loaded exact = load(c, memory, false);
    for (const Route route : kRoutes) {
      const Loaded fast = load(c, memory, true, route);
      EXPECT_EQ(fast.defined, exact.defined) << describe(c);
      EXPECT_EQ(fast.defined, std::uint64_t{c.rows} * c.columns) << describe(c);
      EXPECT_TRUE(fast.payload == exact.payload) << describe(c) << " route " << static_cast<int>(route);
    }
  }
}

TEST(CubeCopy, StoreMatchesElementPath) {
  std::mt19937_64 rng(1718);
  for (int i = 0; i < 400;) {
    Case c;
    if (!random_case(rng, c)) continue;
    ++i;
    const std::vector<std::byte> memory = random_bytes(rng, footprint(c));
    const auto seed = rng();
    const std::vector<std::byte> exact = store(c, memory, seed, false);
    for (const Route route : kRoutes)
      EXPECT_TRUE(store(c, memory, seed, true, route) == exact) << describe(c) << " route " << static_cast<int>(route);
  }
}

// Hand-placed elements: an 8 x 9 FP16 CUBE_N8 tile (CELLs of 8 rows x 8
// columns, column-major) puts (r, c) of column block 0 at c * 8 + r and
// column 8 in the second column block's CELL (k_repeat 1) at 64 + r; a
// 3 x 5 FP32 CUBE_M16 tile (CELLs of 16 rows x 2 columns, row-major) puts
// (r, c) at (c / 2) * 32 + r * 2 + c % 2.
TEST(CubeCopy, CellPlacementByHand) {
  const auto run = [](TileLayout layout, DataType type, std::uint32_t rows, std::uint32_t columns, auto index) {
    const Case c{layout, type, rows, columns, 0, std::uint64_t{columns} * tile::memory_element_bytes(type)};
    const unsigned size = tile::memory_element_bytes(type);
    std::vector<std::byte> memory(footprint(c));
    for (std::uint32_t r = 0; r < rows; ++r)
      for (std::uint32_t col = 0; col < columns; ++col) memory[(r * columns + col) * size] = static_cast<std::byte>(r * 16 + col);
    const Loaded l = load(c, memory, true);
    for (std::uint32_t r = 0; r < rows; ++r)
      for (std::uint32_t col = 0; col < columns; ++col)
        EXPECT_EQ(l.payload[index(r, col) * size], static_cast<std::byte>(r * 16 + col)) << r << "," << col;
  };
  run(TileLayout::CubeN8, DataType::FP16, 8, 9, [](std::uint32_t r, std::uint32_t c) { return c < 8 ? c * 8 + r : 64 + r; });
  run(TileLayout::CubeM16, DataType::FP32, 3, 5, [](std::uint32_t r, std::uint32_t c) { return (c / 2) * 32 + r * 2 + c % 2; });
}

// Memory::in_place_range: one page only, resident for reads, no decoded
// code for writes (a write allocates the page as write_bytes would).
TEST(CubeCopy, MemoryInPlaceRangeIsOnePageWithoutCode) {
  arch::Memory m;
  constexpr arch::Word kPage = arch::Memory::kPageBytes;
  EXPECT_EQ(m.in_place_range(kPage, 16, false), nullptr);  // absent: reads zero, no bytes
  std::uint8_t* page = m.in_place_range(kPage, kPage, true);
  ASSERT_NE(page, nullptr);
  page[5] = 0x5A;
  EXPECT_EQ(m.read(kPage + 5, 1), 0x5AU);
  EXPECT_EQ(m.in_place_range(kPage + 5, 1, false), page + 5);
  EXPECT_EQ(m.in_place_range(kPage + 1, kPage, false), nullptr);  // crosses into the next page
  EXPECT_EQ(m.in_place_range(kPage, 0, false), nullptr);
  m.mark_code_page(kPage);
  EXPECT_EQ(m.in_place_range(kPage, 16, true), nullptr);  // stores into code take write_bytes (the hook)
  EXPECT_EQ(m.in_place_range(kPage, 16, false), page);
}

}  // namespace
}  // namespace pto::test
