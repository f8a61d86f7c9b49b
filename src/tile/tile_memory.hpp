// TLOAD / TSTORE kernels (asl/tile/model/memory/{load-store,stride,addressing}.asl,
// ADR 0074 byte row stride, ADR 0033 packed nibbles) against a narrow
// memory-access port, so the kernels are testable without the machine.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>

#include "tile/tile_state.hpp"

namespace pto::tile {

// The machine's data memory as the tile model needs it.  Translation is the
// reference profile's identity (TranslateDataAddress).
class TileMemoryPort {
 public:
  virtual ~TileMemoryPort() = default;
  // DataAccessPermitted plus model bounds for [address, address+size):
  // FaultCode::Fault_None or FaultCode::Fault_DataPage.  Alignment is the caller's check.
  // Permission is a property of each byte: a permitted range has only
  // permitted sub-ranges (the kernels check a run of rows at once).
  virtual FaultCode check(std::uint64_t address, std::uint64_t size, bool write) const = 0;
  // Raw copies of a range for which check() returned FaultCode::Fault_None.
  virtual void read(std::uint64_t address, std::span<std::byte> out) = 0;
  virtual void write(std::uint64_t address, std::span<const std::byte> in) = 0;

  // Bulk access in place: the host bytes of [address, address + size) when
  // the port holds them contiguously and reading (writing) through the
  // pointer is exactly read() (write()) of the range, for a range check()
  // permitted; nullptr otherwise (the caller then copies through read() /
  // write()).  After writing through the pointer, the caller reports each
  // written range with wrote_in_place(), which does what write() does beyond
  // the copy.  The defaults have no such view.
  virtual std::byte* in_place(std::uint64_t address, std::uint64_t size, bool write);
  virtual void wrote_in_place(std::uint64_t address, std::uint64_t size);

  // Element accesses of the indexed, prefetch and Shared TLSU paths, which
  // the ASL records as memory events of PE `agent` (RecordLoadEventForAgent,
  // RecordStoreEventForAgent, RecordAtomicEvent).  `size` is 1, 2, 4 or 8;
  // the range was checked.  The defaults are the raw little-endian accesses.
  virtual std::uint64_t load_element(unsigned agent, std::uint64_t address, unsigned size);
  virtual void store_element(unsigned agent, std::uint64_t address, unsigned size, std::uint64_t value);
  // One atomic read-modify-write: returns the old value and writes
  // `replacement` when the old value equals `expected` (MGATHER_CAS lane).
  virtual std::uint64_t compare_and_swap(unsigned agent, std::uint64_t address, unsigned size,
                                         std::uint64_t expected, std::uint64_t replacement);

  // Memory-event capture (StartMemoryEventCapture, asl/arch/memory-model/
  // memory-events.asl).  While it is on, TLOAD / TSTORE access each valid
  // element through load_element / store_element with agent event_agent()
  // (the ASL's RecordLoadEvent / RecordStoreEvent name _CurrentMemoryAgent)
  // instead of the bulk read / write, so every access is one event.  The
  // default port never captures.
  virtual bool capturing_events() const { return false; }
  virtual unsigned event_agent() const { return 0; }
};

// ProbeTileMemoryAccess for one element of `size` bytes: natural alignment
// before permission (FaultCode::Fault_None, DataAlignment or DataPage).
FaultCode probe_element(const TileMemoryPort& memory, std::uint64_t address, unsigned size, bool write);

// A flat little-endian memory of `size` bytes at address 0, every byte
// permitted (the unit-test and benchmark port).
class FlatTileMemory final : public TileMemoryPort {
 public:
  explicit FlatTileMemory(std::span<std::byte> storage) : storage_(storage) {}
  FaultCode check(std::uint64_t address, std::uint64_t size, bool) const override {
    return address <= storage_.size() && size <= storage_.size() - address ? FaultCode::Fault_None : FaultCode::Fault_DataPage;
  }
  void read(std::uint64_t address, std::span<std::byte> out) override {
    std::copy_n(storage_.data() + address, out.size(), out.data());
  }
  void write(std::uint64_t address, std::span<const std::byte> in) override {
    std::copy_n(in.data(), in.size(), storage_.data() + address);
  }
  std::byte* in_place(std::uint64_t address, std::uint64_t size, bool) override {
    return check(address, size, false) == FaultCode::Fault_None ? storage_.data() + address : nullptr;
  }

 private:
  std::span<std::byte> storage_;
};

struct MemoryOutcome {
  FaultCode fault = FaultCode::Fault_None;
  std::uint64_t address = 0;  // faulting element address
  bool ok() const noexcept { return fault == FaultCode::Fault_None; }
};

// TileDenseRowStrideBytes: ceil(columns * bits / 8).
constexpr std::uint64_t dense_row_stride_bytes(std::uint32_t columns, DataType t) noexcept {
  return (std::uint64_t{columns} * element_bits(t) + 7) / 8;
}
// TileMemoryStridedByteAddress (wrapping XLEN arithmetic).
constexpr std::uint64_t strided_byte_address(std::uint64_t base, std::uint32_t row, std::uint32_t column,
                                             std::uint64_t row_stride_bytes, DataType t) noexcept {
  const std::uint64_t row_base = base + std::uint64_t{row} * row_stride_bytes;
  return num::is_packed4(t) ? row_base + column / 2 : row_base + std::uint64_t{column} * memory_element_bytes(t);
}

// TLOAD into an allocated, generically indexed destination: the complete
// footprint is probed (alignment, then permission, in row-major element
// order) before any payload change; on success the valid region is written
// and marked defined (ADR 0014).  Elements outside the valid region keep
// their definedness.  Under event capture, one Load event per valid
// element in row-major order after the preflight (none when it faults).
MemoryOutcome tload(Tile& destination, TileMemoryPort& memory, std::uint64_t base, std::uint64_t row_stride_bytes);

// TSTORE of a source whose valid region is completely defined (the caller
// checks TileSourceContentsDefined).  Packed four-bit stores preserve the
// sibling nibble.  No byte is written unless the whole footprint is legal.
// Under event capture, one Store event per valid element in row-major order
// (the merged byte for a packed element; the sibling read records nothing).
MemoryOutcome tstore(const Tile& source, TileMemoryPort& memory, std::uint64_t base, std::uint64_t row_stride_bytes);

}  // namespace pto::tile
