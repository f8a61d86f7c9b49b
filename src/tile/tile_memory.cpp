#include "tile/tile_memory.hpp"

#include <array>
#include <cstring>
#include <limits>
#include <vector>

#include "tile/cube_copy.hpp"

namespace pto::tile {
namespace {

// The guest bytes of `rows` consecutive rows starting at `row`, when they
// form one range (a single row, or back-to-back rows of a dense stride).
struct RowRun {
  std::uint32_t row = 0;
  std::uint32_t rows = 1;
  std::uint64_t base = 0;   // address of the first accessed byte
  std::uint64_t bytes = 0;  // bytes touched by the valid columns of these rows
  bool wraps = false;       // the range crosses the top of the 64-bit address space
};

std::uint64_t valid_row_bytes(const TileDescriptor& d) {
  return num::is_packed4(d.data_type) ? (std::uint64_t{d.valid_columns} + 1) / 2
                                      : std::uint64_t{d.valid_columns} * memory_element_bytes(d.data_type);
}

RowRun row_run(const TileDescriptor& d, std::uint64_t base, std::uint64_t stride, std::uint32_t row,
               std::uint32_t rows) {
  const std::uint64_t first = strided_byte_address(base, row, 0, stride, d.data_type);
  const std::uint64_t bytes = valid_row_bytes(d) * rows;
  return {row, rows, first, bytes, bytes != 0 && first > std::numeric_limits<std::uint64_t>::max() - (bytes - 1)};
}

// Calls f(RowRun) over the valid rows: one run for the whole region when the
// stride equals the accessed row bytes and the region does not wrap (the
// rows are back to back), else one run per row.
template <typename F>
void for_each_row_run(const TileDescriptor& d, std::uint64_t base, std::uint64_t stride, F f) {
  if (d.valid_rows == 0) return;
  const RowRun whole = row_run(d, base, stride, 0, d.valid_rows);
  if (stride == valid_row_bytes(d) && !whole.wraps) {
    f(whole);
    return;
  }
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) f(row_run(d, base, stride, r, 1));
}

// Element-granular ProbeDataAccess in row-major order: the first failing
// element names the fault and its address (alignment before permission).
MemoryOutcome probe_elements(const TileDescriptor& d, const TileMemoryPort& memory, std::uint64_t base,
                             std::uint64_t stride, bool write) {
  const unsigned size = memory_element_bytes(d.data_type);
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const std::uint64_t a = strided_byte_address(base, r, c, stride, d.data_type);
      if (a % size != 0) return {FaultCode::Fault_DataAlignment, a};
      if (memory.check(a, size, write) != FaultCode::Fault_None) return {FaultCode::Fault_DataPage, a};
    }
  }
  return {};
}

// Complete-footprint preflight: one permission check per run of rows on the
// fast path (a permitted range has only permitted bytes, TileMemoryPort),
// element probing only when something may fail.
MemoryOutcome preflight(const TileDescriptor& d, const TileMemoryPort& memory, std::uint64_t base,
                        std::uint64_t stride, bool write) {
  const unsigned size = memory_element_bytes(d.data_type);
  bool permitted = base % size == 0 && (d.valid_rows <= 1 || stride % size == 0);
  if (permitted)
    for_each_row_run(d, base, stride, [&](const RowRun& run) {
      permitted = permitted && !run.wraps && memory.check(run.base, run.bytes, write) == FaultCode::Fault_None;
    });
  return permitted ? MemoryOutcome{} : probe_elements(d, memory, base, stride, write);
}

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

// The payload effects of a preflighted TLOAD / TSTORE while memory events
// are captured (load-store.asl TLOAD / TSTORE second loops): each valid
// element in row-major (row, column) order is one access of its memory
// element size at TileMemoryStridedByteAddress, recorded by the port in
// CurrentBundleMemoryOrder -- a Load event with the raw bytes read, or a
// Store event with the normalized stored value.  A packed four-bit element
// is a one-byte access: a load reads the whole byte and keeps its nibble; a
// store (StoreTileMemoryElement) first reads the current byte without an
// event, then stores and records the merged byte, so two nibbles of one byte
// are two accesses of that byte.  Same memory and payload results as the
// bulk path.
template <bool Store, typename TileRef>
void move_elements_recorded(TileRef& t, TileMemoryPort& memory, std::uint64_t base, std::uint64_t stride) {
  const TileDescriptor& d = t.descriptor();
  const unsigned size = memory_element_bytes(d.data_type);
  const bool packed = num::is_packed4(d.data_type);
  const unsigned agent = memory.event_agent();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const std::uint64_t address = strided_byte_address(base, r, c, stride, d.data_type);
      const std::uint32_t element = t.linear_index(r, c);
      if constexpr (Store) {
        std::uint64_t v = t.read_raw(element);
        if (packed) {
          std::byte old{};
          memory.read(address, {&old, 1});
          v = num::packed4_set(static_cast<std::uint8_t>(old), c & 1U, static_cast<std::uint8_t>(v));
        }
        memory.store_element(agent, address, size, v);
      } else {
        const std::uint64_t raw = memory.load_element(agent, address, size);
        t.store_raw(element, packed ? num::packed4_get(static_cast<std::uint8_t>(raw), c & 1U) : raw);
      }
    }
  }
}

// The guest bytes of a band's rows, [its first row's address, its last
// row's end), in place (TileMemoryPort::in_place), or nullptr: when the
// span overflows or wraps, when the port has no view of it, and for stores
// whose rows overlap (the copies below write them in row order).
template <bool Store>
std::byte* band_in_place(TileMemoryPort& memory, const TileDescriptor& d, std::uint64_t base, std::uint64_t stride,
                         const Band& band, std::uint64_t row_bytes) {
  if (Store && band.rows > 1 && stride < row_bytes) return nullptr;
  std::uint64_t span = 0;
  if (__builtin_mul_overflow(std::uint64_t{band.rows - 1}, stride, &span) || __builtin_add_overflow(span, row_bytes, &span) ||
      span == 0)
    return nullptr;
  const std::uint64_t first = strided_byte_address(base, band.first, 0, stride, d.data_type);
  if (first > std::numeric_limits<std::uint64_t>::max() - (span - 1)) return nullptr;
  return memory.in_place(first, span, Store);
}

// CUBE layouts: the valid rows pass, a band at a time (cube_band_rows),
// between the payload and the band's guest bytes in place when the port
// has a view of them, else a row-major image (one memory access per run of
// rows), placed CELL by CELL (cube_copy.hpp).  Rows are written in row
// order, so overlapping rows end as the element path leaves them.  False,
// with nothing done, when a run wraps the address space.
template <bool Store, typename TileRef>
bool move_cube_image(TileRef& t, TileMemoryPort& memory, std::uint64_t base, std::uint64_t stride) {
  const TileDescriptor& d = t.descriptor();
  bool wraps = false;
  for_each_row_run(d, base, stride, [&](const RowRun& run) { wraps = wraps || run.wraps; });
  if (wraps) return false;
  const std::uint64_t row_bytes = valid_row_bytes(d);
  const std::uint32_t band_rows = cube_band_rows(d);
  thread_local std::vector<std::byte> buffer;
  if (buffer.size() < row_bytes * band_rows) buffer.resize(row_bytes * band_rows);
  const bool dense = stride == row_bytes;
  for (std::uint32_t first = 0; first < d.valid_rows; first += band_rows) {
    const Band band{first, std::min(band_rows, d.valid_rows - first)};
    // One run for a band of back-to-back rows, else one per row.
    const auto for_each_run = [&](auto access) {
      for (std::uint32_t r = first; r < first + band.rows; r += dense ? band.rows : 1) {
        const RowRun run = row_run(d, base, stride, r, dense ? band.rows : 1);
        access(run.base, std::span<std::byte>(buffer.data() + (r - first) * row_bytes, run.bytes));
      }
    };
    if (std::byte* view = band_in_place<Store>(memory, d, base, stride, band, row_bytes)) {
      if constexpr (Store) {
        cube_payload_to_image(t, view, stride, band);
        for_each_run([&](std::uint64_t address, std::span<std::byte> rows) { memory.wrote_in_place(address, rows.size()); });
      } else {
        cube_image_to_payload(t, view, stride, band);
      }
    } else if constexpr (Store) {
      cube_payload_to_image(t, buffer.data(), row_bytes, band);
      for_each_run([&](std::uint64_t address, std::span<std::byte> rows) { memory.write(address, rows); });
    } else {
      for_each_run([&](std::uint64_t address, std::span<std::byte> rows) { memory.read(address, rows); });
      cube_image_to_payload(t, buffer.data(), row_bytes, band);
    }
  }
  return true;
}

// One TLOAD (Store false, TileRef Tile) or TSTORE (Store true, const Tile):
// the complete-footprint preflight, then the payload effects in as few host
// copies as the layout allows: a row image for 8- to 32-bit CUBE layouts;
// one copy per run of unpacked RowMajor rows whose valid columns are
// contiguous in the payload too (whole rows, or a single row); a row buffer
// per packed four-bit row; element by element for other layouts and for
// rows that wrap.
template <bool Store, typename TileRef>
MemoryOutcome move_tile(TileRef& t, TileMemoryPort& memory, std::uint64_t base, std::uint64_t stride) {
  const TileDescriptor& d = t.descriptor();
  // A fault is raised by the preflight, before any access or event.
  if (const MemoryOutcome o = preflight(d, memory, base, stride, Store); !o.ok()) return o;
  if (memory.capturing_events()) {  // verification mode only: the fast paths below record nothing
    move_elements_recorded<Store>(t, memory, base, stride);
    if constexpr (!Store) t.mark_valid_region_defined();
    return {};
  }
  if (cube_block_copy_applies(d) && move_cube_image<Store>(t, memory, base, stride)) {
    if constexpr (!Store) t.mark_valid_region_defined();
    return {};
  }
  const bool row_major = d.layout == TileLayout::RowMajor;
  const bool packed = num::is_packed4(d.data_type);
  const std::uint64_t payload_row_bytes = std::uint64_t{d.columns} * element_bits(d.data_type) / 8;
  const auto copy = [&](std::uint64_t address, std::uint64_t offset, std::uint64_t bytes) {
    if constexpr (Store) memory.write(address, t.payload().subspan(offset, bytes));
    else memory.read(address, t.payload().subspan(offset, bytes));
  };
  std::vector<std::byte> row_buffer;
  const auto packed_row = [&](const RowRun& row) {
    row_buffer.resize(row.bytes);
    memory.read(row.base, row_buffer);
    if constexpr (Store) {
      store_packed_row(t, row_buffer.data(), row.row);
      memory.write(row.base, row_buffer);
    } else {
      load_packed_row(t, row_buffer.data(), row.row);
    }
  };
  for_each_row_run(d, base, stride, [&](const RowRun& run) {
    if (row_major && !packed && !run.wraps && (run.rows == 1 || d.valid_columns == d.columns)) {
      copy(run.base, run.row * payload_row_bytes, run.bytes);
      return;
    }
    for (std::uint32_t r = run.row; r < run.row + run.rows; ++r) {
      const RowRun row = row_run(d, base, stride, r, 1);
      if (!row_major || row.wraps) {
        for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
          if constexpr (Store) store_element(t, memory, base, stride, r, c);
          else load_element(t, memory, base, stride, r, c);
        }
      } else if (packed) {
        packed_row(row);
      } else {
        copy(row.base, r * payload_row_bytes, row.bytes);
      }
    }
  });
  if constexpr (!Store) t.mark_valid_region_defined();  // full-destination writer (ADR 0014)
  return {};
}

}  // namespace

std::byte* TileMemoryPort::in_place(std::uint64_t, std::uint64_t, bool) { return nullptr; }

void TileMemoryPort::wrote_in_place(std::uint64_t, std::uint64_t) {}

std::uint64_t TileMemoryPort::load_element(unsigned, std::uint64_t address, unsigned size) {
  std::array<std::byte, 8> buffer{};
  read(address, {buffer.data(), size});
  std::uint64_t v = 0;
  std::memcpy(&v, buffer.data(), size);
  return v;
}

void TileMemoryPort::store_element(unsigned, std::uint64_t address, unsigned size, std::uint64_t value) {
  std::array<std::byte, 8> buffer{};
  std::memcpy(buffer.data(), &value, size);
  write(address, {buffer.data(), size});
}

std::uint64_t TileMemoryPort::compare_and_swap(unsigned agent, std::uint64_t address, unsigned size,
                                               std::uint64_t expected, std::uint64_t replacement) {
  const std::uint64_t old = load_element(agent, address, size);
  if (old == expected) store_element(agent, address, size, replacement);
  return old;
}

FaultCode probe_element(const TileMemoryPort& memory, std::uint64_t address, unsigned size, bool write) {
  if (address % size != 0) return FaultCode::Fault_DataAlignment;
  return memory.check(address, size, write) == FaultCode::Fault_None ? FaultCode::Fault_None : FaultCode::Fault_DataPage;
}

MemoryOutcome tload(Tile& destination, TileMemoryPort& memory, std::uint64_t base, std::uint64_t row_stride_bytes) {
  return move_tile<false>(destination, memory, base, row_stride_bytes);
}

MemoryOutcome tstore(const Tile& source, TileMemoryPort& memory, std::uint64_t base, std::uint64_t row_stride_bytes) {
  return move_tile<true>(source, memory, base, row_stride_bytes);
}

}  // namespace pto::tile
