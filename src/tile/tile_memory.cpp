#include "tile/tile_memory.hpp"

#include <array>
#include <cstring>
#include <vector>
#include <limits>

namespace pto::tile {
namespace {

struct RowSpan {
  std::uint64_t base;   // address of the row's first accessed byte
  std::uint64_t bytes;  // bytes touched by the valid columns of the row
  bool wraps;           // the row crosses the top of the 64-bit address space
};

RowSpan row_span(const TileDescriptor& d, std::uint64_t base, std::uint64_t stride, std::uint32_t row) {
  const std::uint64_t row_base = strided_byte_address(base, row, 0, stride, d.data_type);
  const std::uint64_t bytes = num::is_packed4(d.data_type)
                                  ? (std::uint64_t{d.valid_columns} + 1) / 2
                                  : std::uint64_t{d.valid_columns} * memory_element_bytes(d.data_type);
  return {row_base, bytes, bytes != 0 && row_base > std::numeric_limits<std::uint64_t>::max() - (bytes - 1)};
}

// Element-granular ProbeDataAccess in row-major order: the first failing
// element names the fault and its address (alignment before permission).
MemoryOutcome probe_elements(const TileDescriptor& d, const TileMemoryPort& memory, std::uint64_t base,
                             std::uint64_t stride, bool write) {
  const unsigned size = memory_element_bytes(d.data_type);
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const std::uint64_t a = strided_byte_address(base, r, c, stride, d.data_type);
      if (a % size != 0) return {Fault::DataAlignment, a};
      if (memory.check(a, size, write) != Fault::None) return {Fault::DataPage, a};
    }
  }
  return {};
}

// Complete-footprint preflight: one permission check per row on the fast
// path, element probing only when something may fail.
MemoryOutcome preflight(const TileDescriptor& d, const TileMemoryPort& memory, std::uint64_t base,
                        std::uint64_t stride, bool write) {
  const unsigned size = memory_element_bytes(d.data_type);
  const bool aligned = base % size == 0 && (d.valid_rows <= 1 || stride % size == 0);
  bool rows_permitted = aligned;
  for (std::uint32_t r = 0; rows_permitted && r < d.valid_rows; ++r) {
    const RowSpan s = row_span(d, base, stride, r);
    rows_permitted = !s.wraps && memory.check(s.base, s.bytes, write) == Fault::None;
  }
  return rows_permitted ? MemoryOutcome{} : probe_elements(d, memory, base, stride, write);
}

bool row_contiguous(const TileDescriptor& d, const RowSpan& s) { return d.layout == TileLayout::RowMajor && !s.wraps; }

void load_packed_row(Tile& t, const std::byte* src, std::uint32_t row) {
  const TileDescriptor& d = t.descriptor();
  const std::uint32_t first = row * d.columns;
  if (d.columns % 2 == 0) {  // element parity equals column parity: whole bytes line up
    std::memcpy(t.payload().data() + first / 2, src, d.valid_columns / 2);
    if (d.valid_columns % 2)
      t.store_raw(first + d.valid_columns - 1, num::packed4_get(static_cast<std::uint8_t>(src[d.valid_columns / 2]), 0));
    return;
  }
  for (std::uint32_t c = 0; c < d.valid_columns; ++c)
    t.store_raw(first + c, num::packed4_get(static_cast<std::uint8_t>(src[c / 2]), c & 1U));
}

// `dst` holds the row's current memory bytes: the sibling nibble is preserved.
void store_packed_row(const Tile& t, std::byte* dst, std::uint32_t row) {
  const TileDescriptor& d = t.descriptor();
  const std::uint32_t first = row * d.columns;
  std::uint32_t c = 0;
  if (d.columns % 2 == 0) {
    std::memcpy(dst, t.payload().data() + first / 2, d.valid_columns / 2);
    c = d.valid_columns & ~1U;
  }
  for (; c < d.valid_columns; ++c) {
    auto& byte = dst[c / 2];
    byte = static_cast<std::byte>(
        num::packed4_set(static_cast<std::uint8_t>(byte), c & 1U, static_cast<std::uint8_t>(t.read_raw(first + c))));
  }
}

void load_element(Tile& t, TileMemoryPort& memory, std::uint64_t base, std::uint64_t stride, std::uint32_t r,
                  std::uint32_t c) {
  const TileDescriptor& d = t.descriptor();
  const unsigned size = memory_element_bytes(d.data_type);
  std::array<std::byte, 8> buffer{};
  memory.read(strided_byte_address(base, r, c, stride, d.data_type), {buffer.data(), size});
  std::uint64_t raw = 0;
  std::memcpy(&raw, buffer.data(), size);
  t.store_raw(t.linear_index(r, c), num::is_packed4(d.data_type) ? num::packed4_get(static_cast<std::uint8_t>(raw), c & 1U) : raw);
}

void store_element(const Tile& t, TileMemoryPort& memory, std::uint64_t base, std::uint64_t stride, std::uint32_t r,
                   std::uint32_t c) {
  const TileDescriptor& d = t.descriptor();
  const unsigned size = memory_element_bytes(d.data_type);
  const std::uint64_t address = strided_byte_address(base, r, c, stride, d.data_type);
  std::uint64_t v = t.read_raw(t.linear_index(r, c));
  if (num::is_packed4(d.data_type)) {
    std::byte old{};
    memory.read(address, {&old, 1});
    v = num::packed4_set(static_cast<std::uint8_t>(old), c & 1U, static_cast<std::uint8_t>(v));
  }
  std::array<std::byte, 8> buffer{};
  std::memcpy(buffer.data(), &v, size);
  memory.write(address, {buffer.data(), size});
}

}  // namespace

MemoryOutcome tload(Tile& destination, TileMemoryPort& memory, std::uint64_t base, std::uint64_t row_stride_bytes) {
  const TileDescriptor& d = destination.descriptor();
  if (const MemoryOutcome o = preflight(d, memory, base, row_stride_bytes, false); !o.ok()) return o;
  const bool packed = num::is_packed4(d.data_type);
  const unsigned size = memory_element_bytes(d.data_type);
  std::vector<std::byte> row_buffer;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    const RowSpan s = row_span(d, base, row_stride_bytes, r);
    if (!row_contiguous(d, s)) {
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) load_element(destination, memory, base, row_stride_bytes, r, c);
    } else if (packed) {
      row_buffer.resize(s.bytes);
      memory.read(s.base, row_buffer);
      load_packed_row(destination, row_buffer.data(), r);
    } else {
      memory.read(s.base, destination.payload().subspan(std::size_t{r} * d.columns * size, s.bytes));
    }
  }
  destination.mark_valid_region_defined();  // full-destination writer (ADR 0014)
  return {};
}

MemoryOutcome tstore(const Tile& source, TileMemoryPort& memory, std::uint64_t base, std::uint64_t row_stride_bytes) {
  const TileDescriptor& d = source.descriptor();
  if (const MemoryOutcome o = preflight(d, memory, base, row_stride_bytes, true); !o.ok()) return o;
  const bool packed = num::is_packed4(d.data_type);
  const unsigned size = memory_element_bytes(d.data_type);
  std::vector<std::byte> row_buffer;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    const RowSpan s = row_span(d, base, row_stride_bytes, r);
    if (!row_contiguous(d, s)) {
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) store_element(source, memory, base, row_stride_bytes, r, c);
    } else if (packed) {
      row_buffer.resize(s.bytes);
      memory.read(s.base, row_buffer);
      store_packed_row(source, row_buffer.data(), r);
      memory.write(s.base, row_buffer);
    } else {
      memory.write(s.base, source.payload().subspan(std::size_t{r} * d.columns * size, s.bytes));
    }
  }
  return {};
}

}  // namespace pto::tile
