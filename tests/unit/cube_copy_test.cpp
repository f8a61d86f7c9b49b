// Differential tests of the CUBE block copies (tile/cube_copy.hpp) behind
// TLOAD / TSTORE on CUBE_M16 / CUBE_M32 / CUBE_N8 tiles against the element
// path they replace (one memory access and one TileCubePayloadIndex per
// element, kept as the fallback): random legal shapes of every element
// size, dense, padded and overlapping row strides; the destination payload
// (padding included) and definedness after TLOAD, and every memory byte
// after TSTORE, must agree bit for bit.  Each block-copy case runs over the
// routes of the bands: in place in host memory (FlatTileMemory), through
// the row image (a port without an in-place view), and the machine's paged
// memory (arch::Memory: bands inside one chunk of pages in place, across
// page boundaries too, the others through the image), placed across a
// chunk boundary, and with a page of decoded code in the footprint (stores
// there must take write_bytes, whose code hook must see every byte written
// on that page).
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstddef>
#include <memory>
#include <utility>
#include <random>
#include <vector>

#include "arch/memory.hpp"
#include "simd_tiers.hpp"
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

enum class Route { InPlace, Image, Paged, PagedAcrossChunks, PagedWithCode };
constexpr Route kRoutes[] = {Route::InPlace, Route::Image, Route::Paged, Route::PagedAcrossChunks, Route::PagedWithCode};

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
// Memory::in_place_range.  Holds `storage` at guest address `origin` while
// it lives and copies it back on destruction.  With `code`, the page holding
// the middle of the storage is marked as decoded code, and the code hook's
// ranges are recorded.
class PagedPort final : public tile::TileMemoryPort {
 public:
  PagedPort(std::span<std::byte> storage, std::uint64_t origin, bool code) : storage_(storage), origin_(origin) {
    memory_.write_bytes(origin, {reinterpret_cast<const std::uint8_t*>(storage.data()), storage.size()});
    if (code) {
      code_page_ = (origin + storage.size() / 2) & ~(arch::Memory::kPageBytes - 1);
      memory_.mark_code_page(code_page_);
      memory_.set_code_write_hook(
          [](void* self, arch::Word address, arch::Word size) {
            static_cast<PagedPort*>(self)->hooked_.emplace_back(address, size);
          },
          this);
    }
  }
  ~PagedPort() override {
    memory_.read_bytes(origin_, {reinterpret_cast<std::uint8_t*>(storage_.data()), storage_.size()});
  }
  PagedPort(const PagedPort&) = delete;
  PagedPort& operator=(const PagedPort&) = delete;
  arch::FaultCode check(std::uint64_t address, std::uint64_t size, bool) const override {
    return address <= storage_.size() && size <= storage_.size() - address ? arch::FaultCode::Fault_None
                                                                           : arch::FaultCode::Fault_DataPage;
  }
  void read(std::uint64_t address, std::span<std::byte> out) override {
    memory_.read_bytes(origin_ + address, {reinterpret_cast<std::uint8_t*>(out.data()), out.size()});
  }
  void write(std::uint64_t address, std::span<const std::byte> in) override {
    memory_.write_bytes(origin_ + address, {reinterpret_cast<const std::uint8_t*>(in.data()), in.size()});
  }
  std::byte* in_place(std::uint64_t address, std::uint64_t size, bool write) override {
    return reinterpret_cast<std::byte*>(memory_.in_place_range(origin_ + address, size, write));
  }
  // Whether the code hook saw the storage byte at `address` (only bytes on
  // the code page are asked about).
  bool hooked(std::uint64_t address) const {
    const std::uint64_t a = origin_ + address;
    return std::any_of(hooked_.begin(), hooked_.end(), [&](const auto& r) { return a >= r.first && a - r.first < r.second; });
  }
  bool on_code_page(std::uint64_t address) const {
    return code_page_ != kNoCode && origin_ + address - code_page_ < arch::Memory::kPageBytes;
  }

 private:
  static constexpr std::uint64_t kNoCode = ~std::uint64_t{0};
  arch::Memory memory_;
  std::span<std::byte> storage_;
  std::uint64_t origin_;
  std::uint64_t code_page_ = kNoCode;
  std::vector<std::pair<arch::Word, arch::Word>> hooked_;
};

// The guest address of a paged route's storage: page 3 (bands inside a
// chunk), or 1000 bytes before a chunk boundary.
std::uint64_t paged_origin(Route route) {
  return route == Route::PagedAcrossChunks ? 5 * arch::Memory::kChunkBytes - 1000 : 3 * arch::Memory::kPageBytes;
}

// TLOAD or TSTORE through the route's port over `memory`; `after` sees the
// paged port once the transfer is done.
template <typename F, typename After>
void with_port(Route route, std::vector<std::byte>& memory, F f, After after) {
  if (route == Route::InPlace) {
    tile::FlatTileMemory port(memory);
    f(port);
  } else if (route == Route::Image) {
    ImagePort port(memory);
    f(port);
  } else {
    PagedPort port(memory, paged_origin(route), route == Route::PagedWithCode);
    f(port);
    after(port);
  }
}

template <typename F>
void with_port(Route route, std::vector<std::byte>& memory, F f) {
  with_port(route, memory, f, [](const PagedPort&) {});
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

// Every byte of the stored rows that lies on a code page went through
// the code hook (PagedWithCode).
void expect_code_hooked(const Case& c, const PagedPort& port) {
  const std::uint64_t row_bytes = std::uint64_t{c.columns} * tile::memory_element_bytes(c.type);
  std::uint64_t missed = 0;
  for (std::uint32_t r = 0; r < c.rows; ++r)
    for (std::uint64_t a = c.base + r * c.stride; a < c.base + r * c.stride + row_bytes; ++a)
      missed += port.on_code_page(a) && !port.hooked(a) ? 1 : 0;
  EXPECT_EQ(missed, 0U);
}

std::vector<std::byte> store(const Case& c, std::vector<std::byte> memory, std::mt19937_64::result_type seed,
                             bool blocks, Route route = Route::InPlace) {
  tile::TileFile f;
  tile::Tile& t = configure(f, c);
  std::mt19937_64 rng(seed);
  for (std::uint32_t r = 0; r < c.rows; ++r)
    for (std::uint32_t col = 0; col < c.columns; ++col) t.write_element(r, col, rng() & ((1ULL << tile::element_bits(c.type)) - 1));
  tile::set_cube_block_copies_enabled(blocks);
  with_port(
      route, memory, [&](tile::TileMemoryPort& port) { EXPECT_TRUE(tile::tstore(t, port, c.base, c.stride).ok()); },
      [&](const PagedPort& port) { expect_code_hooked(c, port); });
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

// Byte, 16-bit and 32-bit CUBE_N8 tiles wide enough for the multi-CELL
// blocks: bytes four CELLs (32 columns of full 16-row CELLs) on AVX2 and
// eight (64 columns) on AVX-512, 16-bit units two CELLs on AVX2 and four on
// AVX-512, 32-bit units two on AVX-512, lane-exchanged on the payload side
// in both directions; with
// partial CELLs at the edges (91 columns: three full blocks and a partial
// one after 64; 120: seven full blocks after 64),
// dense and padded, TLOAD and TSTORE over every route, in every num::simd
// tier the host has (SSE2 blocks, AVX2, AVX-512).
TEST(CubeCopy, N8MultiCellBlocksMatchElementPathInEveryTier) {
  for_each_tier([] {
    std::mt19937_64 rng(1719);
    unsigned cases = 0;
    for (const unsigned width : {1U, 2U, 4U})
      for (const std::uint32_t rows : {16U, 40U, 128U})
        for (const std::uint32_t columns : {32U, 72U, 91U, 120U, 136U, 200U})
          for (const std::uint64_t padding : {0U, 7U}) {
            const bool pick = rng() % 2 != 0;
            const DataType type = width == 1   ? (pick ? DataType::S8 : DataType::E4M3)
                                  : width == 2 ? (pick ? DataType::FP16 : DataType::BF16)
                                               : (pick ? DataType::FP32 : DataType::S32);
            const unsigned size = tile::memory_element_bytes(type);
            const Case c{TileLayout::CubeN8, type, rows, columns, size * (rng() % 64), (columns + padding) * size};
            const tile::CubeGeometry g = tile::cube_geometry(c.layout, rows, columns, c.type);
            if (!g.valid() || !tile::cube_descriptor_shape_legal(capacity(g), rows, columns, c.type, c.layout)) continue;
            ++cases;
            const std::vector<std::byte> memory = random_bytes(rng, footprint(c));
            const Loaded exact_load = load(c, memory, false);
            const auto seed = rng();
            const std::vector<std::byte> exact_store = store(c, memory, seed, false);
            for (const Route route : kRoutes) {
              EXPECT_TRUE(load(c, memory, true, route).payload == exact_load.payload)
                  << describe(c) << " route " << static_cast<int>(route);
              EXPECT_TRUE(store(c, memory, seed, true, route) == exact_store) << describe(c) << " route " << static_cast<int>(route);
            }
          }
    EXPECT_GE(cases, 60U);
  });
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

// Memory::in_place_range: one chunk of pages (host-contiguous, across page
// boundaries), allocated for reads (absent pages in it read zero), no
// decoded code on any page for writes (a write allocates the pages as
// write_bytes would), and within the host cap.
TEST(CubeCopy, MemoryInPlaceRangeIsOneChunkWithoutCode) {
  arch::Memory m;
  constexpr arch::Word kPage = arch::Memory::kPageBytes, kChunk = arch::Memory::kChunkBytes;
  EXPECT_EQ(m.in_place_range(kPage, 16, false), nullptr);  // no chunk: reads zero, no bytes
  std::uint8_t* page = m.in_place_range(kPage, kPage, true);
  ASSERT_NE(page, nullptr);
  page[5] = 0x5A;
  EXPECT_EQ(m.read(kPage + 5, 1), 0x5AU);
  EXPECT_EQ(m.in_place_range(kPage + 5, 1, false), page + 5);
  EXPECT_EQ(m.resident_bytes(), kPage);
  // Across a page boundary: the next page's bytes follow (absent, zero).
  std::uint8_t* across = m.in_place_range(kPage + 1, kPage, false);
  ASSERT_EQ(across, page + 1);
  EXPECT_EQ(across[kPage - 1], 0);
  ASSERT_EQ(m.in_place_range(2 * kPage - 8, 16, true), page + kPage - 8);  // allocates page 2
  EXPECT_EQ(m.resident_bytes(), 2 * kPage);
  page[kPage + 3] = 0x77;
  EXPECT_EQ(m.read(2 * kPage + 3, 1), 0x77U);
  EXPECT_EQ(m.in_place_range(kChunk - 8, 16, false), nullptr);  // crosses a chunk boundary
  EXPECT_EQ(m.in_place_range(kChunk - 8, 16, true), nullptr);
  EXPECT_EQ(m.in_place_range(~arch::Word{0} - 3, 8, false), nullptr);  // wraps
  EXPECT_EQ(m.in_place_range(kPage, 0, false), nullptr);
  m.mark_code_page(2 * kPage);
  EXPECT_EQ(m.in_place_range(kPage, 2 * kPage, true), nullptr);  // stores into code take write_bytes (the hook)
  EXPECT_EQ(m.in_place_range(kPage, 16, true), page);
  EXPECT_EQ(m.in_place_range(kPage, 2 * kPage, false), page);
}

TEST(CubeCopy, MemoryInPlaceRangeRespectsTheHostCap) {
  arch::MemoryConfig config;
  config.host_cap_bytes = 2 * arch::Memory::kPageBytes;
  arch::Memory m(config);
  constexpr arch::Word kPage = arch::Memory::kPageBytes;
  EXPECT_EQ(m.in_place_range(0, 3 * kPage, true), nullptr);  // three new pages: write_bytes throws, in order
  EXPECT_EQ(m.resident_bytes(), 0U);
  EXPECT_NE(m.in_place_range(kPage - 4, 8, true), nullptr);
  EXPECT_EQ(m.resident_bytes(), 2 * kPage);
}

}  // namespace
}  // namespace pto::test
