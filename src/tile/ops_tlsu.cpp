// Semantic handlers of the indexed, prefetch, peer and Shared TLSU
// operations (see ops_tlsu.hpp).  Every handler probes its complete
// footprint before its first effect, so a fault leaves tiles, Shared state and
// memory unchanged.
#include "tile/ops_tlsu.hpp"

#include <vector>

#include "tile/ops_compare.hpp"

namespace pto::tile {
namespace {

// One active lane of an indexed operation.
struct Lane {
  std::uint32_t row, column;
  std::uint64_t address;
};

// The active lanes of the valid region in row-major order with their byte
// displacement addresses, each probed for reading and/or writing (the first
// failing probe is the fault, ProbeTileMemoryAccess + RaiseDataAccessFault).
MemoryOutcome collect_lanes(const TileDescriptor& region, const Tile& indices, const Tile* mask, std::uint64_t base,
                            DataType transfer, TileMemoryPort& memory, bool read, bool write,
                            std::vector<Lane>& lanes) {
  const unsigned size = memory_element_bytes(transfer);
  const DataType index_type = indices.data_type();
  lanes.reserve(std::size_t{region.valid_rows} * region.valid_columns);
  for (std::uint32_t r = 0; r < region.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < region.valid_columns; ++c) {
      if (mask != nullptr && !ops::predicate_bit(*mask, r, c)) continue;
      const std::uint64_t address = base + index_byte_displacement(indices.read_raw(indices.linear_index(r, c)), index_type);
      for (const bool w : {false, true}) {
        if (!(w ? write : read)) continue;
        if (const FaultCode f = probe_element(memory, address, size, w); f != FaultCode::Fault_None) return {f, address};
      }
      lanes.push_back({r, c, address});
    }
  }
  return {};
}

// The physical region padded, then MarkTilePhysicalRegionDefined.
void pad_physical_region(Tile& t, PadValue pad) {
  const TileDescriptor& d = t.descriptor();
  const std::uint64_t value = pad_value_for_data_type(pad, d.data_type);
  for (std::uint32_t e = 0; e < d.rows * d.columns; ++e) t.store_raw(e, value);
}

void mark_physical_region_defined(Tile& t) {
  const TileDescriptor& d = t.descriptor();
  t.define_range(0, d.rows * d.columns);
  t.mark_valid_region_defined();
}

// LoadTileMemoryElement: the raw element, the nibble for four-bit types.
std::uint64_t decode_element(std::uint64_t raw, DataType t, std::uint32_t column) noexcept {
  return num::is_packed4(t) ? num::packed4_get(static_cast<std::uint8_t>(raw), column & 1U) : raw;
}

// TileMemoryIndexedAddress of a strided element index.
std::uint64_t indexed_address(std::uint64_t base, std::uint64_t index, DataType t) noexcept {
  return num::is_packed4(t) ? base + (index >> 1) : base + index * memory_element_bytes(t);
}

// A Shared view (the TLOADShared candidate, MaterializeSharedTileForReadSchema)
// as a tile of its descriptor: its linear_index is TileLogicalLinearIndex in
// the view's layout (B.DATR CurrentBundleTileLayout), which also selects the
// owning quarter (SharedTileElementRegion) of each logical element.
Tile view_tile(const TileDescriptor& d) {
  Tile t;
  t.configure(d);
  return t;
}

}  // namespace

bool indexed_index_type_legal(DataType t) noexcept {
  return num::is_integer(t);
}

bool indexed_transfer_type_legal(DataType t) noexcept { return !num::is_packed4(t); }

bool carrier_or_packed_type_supported(DataType t) noexcept {
  return num::is_packed4(t) || num::carrier_bits(t) <= 32;
}

std::uint64_t index_byte_displacement(std::uint64_t raw, DataType index_type) noexcept {
  const unsigned bits = element_bits(index_type);
  if (bits == 64) return raw;
  const std::uint64_t value = raw & ((1ULL << bits) - 1);
  if (!data_type_is_signed_integer(index_type)) return value;
  const unsigned shift = 64 - bits;
  return static_cast<std::uint64_t>(static_cast<std::int64_t>(value << shift) >> shift);
}

MemoryOutcome mgather(Tile& destination, TileMemoryPort& memory, unsigned agent, std::uint64_t base,
                      const Tile& indices, const Tile* mask, PadValue pad) {
  const DataType t = destination.data_type();
  std::vector<Lane> lanes;
  if (const MemoryOutcome o = collect_lanes(destination.descriptor(), indices, mask, base, t, memory, true, false, lanes);
      !o.ok())
    return o;
  pad_physical_region(destination, pad);
  const unsigned size = memory_element_bytes(t);
  for (const Lane& l : lanes)
    destination.store_raw(destination.linear_index(l.row, l.column), memory.load_element(agent, l.address, size));
  mark_physical_region_defined(destination);
  return {};
}

MemoryOutcome mgather_cas(Tile& destination, TileMemoryPort& memory, unsigned agent, std::uint64_t base,
                          const Tile& indices, const Tile& expected, const Tile& replacement, PadValue pad) {
  const DataType t = destination.data_type();
  std::vector<Lane> lanes;
  if (const MemoryOutcome o = collect_lanes(destination.descriptor(), indices, nullptr, base, t, memory, true, true, lanes);
      !o.ok())
    return o;
  pad_physical_region(destination, pad);
  const unsigned size = memory_element_bytes(t);
  // Lanes serialise in row-major order (the ASL leaves the order open).
  for (const Lane& l : lanes) {
    const std::uint64_t old = memory.compare_and_swap(agent, l.address, size,
                                                      expected.read_raw(expected.linear_index(l.row, l.column)),
                                                      replacement.read_raw(replacement.linear_index(l.row, l.column)));
    destination.store_raw(destination.linear_index(l.row, l.column), old);
  }
  mark_physical_region_defined(destination);
  return {};
}

MemoryOutcome mscatter(const Tile& source, TileMemoryPort& memory, unsigned agent, std::uint64_t base,
                       const Tile& indices, const Tile* mask) {
  const DataType t = source.data_type();
  std::vector<Lane> lanes;
  if (const MemoryOutcome o = collect_lanes(source.descriptor(), indices, mask, base, t, memory, false, true, lanes);
      !o.ok())
    return o;
  const unsigned size = memory_element_bytes(t);
  for (const Lane& l : lanes)
    memory.store_element(agent, l.address, size, source.read_raw(source.linear_index(l.row, l.column)));
  return {};
}

MemoryOutcome tprefetch(TileMemoryPort& memory, const PeWords& bases, const PeWords& row_stride_elements,
                        const PrefetchShape& shape) {
  const unsigned size = memory_element_bytes(shape.data_type);
  std::vector<std::uint64_t> addresses;
  addresses.reserve(std::size_t{kPeCount} * shape.valid_rows * shape.valid_columns);
  for (unsigned pe = 0; pe < kPeCount; ++pe) {
    for (std::uint32_t r = 0; r < shape.valid_rows; ++r) {
      for (std::uint32_t c = 0; c < shape.valid_columns; ++c) {
        const std::uint64_t index = std::uint64_t{r} * row_stride_elements[pe] + c;  // TileMemoryStridedIndex
        const std::uint64_t address = indexed_address(bases[pe], index, shape.data_type);
        if (const FaultCode f = probe_element(memory, address, size, false); f != FaultCode::Fault_None) return {f, address};
        addresses.push_back(address);
      }
    }
  }
  const std::size_t per_pe = std::size_t{shape.valid_rows} * shape.valid_columns;
  for (std::size_t i = 0; i < addresses.size(); ++i)
    static_cast<void>(memory.load_element(static_cast<unsigned>(i / per_pe), addresses[i], size));
  return {};
}

MemoryOutcome tload_shared(TileFile& f, unsigned shared_id, TileMemoryPort& memory, const PeWords& bases,
                           const PeWords& row_stride_bytes, const SharedShape& shape, PeMask mask) {
  if (mask == 0) return {};
  const TileDescriptor d = shared_descriptor(shape);
  if (d.rows == 0 || d.rows < shape.valid_rows ||
      !descriptor_shape_legal(d.capacity_bytes, d.columns, d.valid_rows, d.valid_columns, d.data_type) ||
      std::uint64_t{d.rows} * d.columns > logical_element_capacity(d.capacity_bytes, d.data_type) ||
      !shared_update_compatible(f, shared_id, d, mask))
    return {FaultCode::Fault_TileLegality, 0};
  Tile candidate = view_tile(d);
  // A fractal layout needs a legal fractal shape (TileLinearIndex asserts
  // TileGenericIndexingPermitted): this model rejects it before any access.
  if (!candidate.generic_indexing_permitted()) return {FaultCode::Fault_TileLegality, 0};
  const unsigned size = memory_element_bytes(d.data_type);
  std::vector<Lane> lanes;  // selected elements with their quarter's PE in `row`-major order
  std::vector<unsigned> agents;
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) {
      const unsigned region = shared_element_region(d, candidate.linear_index(r, c));
      if (!region_selected(mask, region)) continue;
      const std::uint64_t address = strided_byte_address(bases[region], r, c, row_stride_bytes[region], d.data_type);
      if (const FaultCode fault = probe_element(memory, address, size, false); fault != FaultCode::Fault_None) return {fault, address};
      lanes.push_back({r, c, address});
      agents.push_back(region);
    }
  }
  for (std::size_t i = 0; i < lanes.size(); ++i) {
    const Lane& l = lanes[i];
    candidate.write_element(l.row, l.column, decode_element(memory.load_element(agents[i], l.address, size), d.data_type, l.column));
  }
  static_cast<void>(atomic_update_shared(f, shared_id, candidate, mask, true));  // compatibility checked above
  return {};
}

MemoryOutcome tstore_shared(const TileFile& f, unsigned shared_id, TileMemoryPort& memory, const PeWords& bases,
                            const PeWords& row_stride_bytes, const TileDescriptor& view, PeMask mask) {
  if (mask == 0) return {};
  const Tile layout = view_tile(view);
  // Only an unallocated register's view can have an illegal fractal shape
  // (SharedTileDescriptorLegal covers an allocated one), see tload_shared.
  if (!layout.generic_indexing_permitted()) return {FaultCode::Fault_TileLegality, 0};
  const unsigned size = memory_element_bytes(view.data_type);
  const auto selected_address = [&](std::uint32_t r, std::uint32_t c, unsigned region) {
    return strided_byte_address(bases[region], r, c, row_stride_bytes[region], view.data_type);
  };
  for (std::uint32_t r = 0; r < view.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < view.valid_columns; ++c) {
      const unsigned region = shared_element_region(view, layout.linear_index(r, c));
      if (!region_selected(mask, region)) continue;
      const std::uint64_t address = selected_address(r, c, region);
      if (const FaultCode fault = probe_element(memory, address, size, true); fault != FaultCode::Fault_None) return {fault, address};
    }
  }
  const SharedTile& s = f.shared(shared_id);
  for (std::uint32_t r = 0; r < view.valid_rows; ++r) {
    for (std::uint32_t c = 0; c < view.valid_columns; ++c) {
      const std::uint32_t e = layout.linear_index(r, c);
      const unsigned region = shared_element_region(view, e);
      if (!region_selected(mask, region)) continue;
      const std::uint64_t address = selected_address(r, c, region);
      std::uint64_t value = read_shared_word(s, shared_id, e);
      if (num::is_packed4(view.data_type)) {  // StoreTileMemoryElement keeps the sibling nibble,
        std::byte old{};                       // read by LoadTranslatedUnsigned: no memory event
        memory.read(address, {&old, 1});
        value = num::packed4_set(static_cast<std::uint8_t>(old), c & 1U, static_cast<std::uint8_t>(value));
      }
      memory.store_element(region, address, size, value);
    }
  }
  return {};
}

FaultCode tmov_local_to_shared(TileFile& f, unsigned shared_id, TileIndex source, unsigned size_code, PeMask mask,
                           bool publish) {
  if (mask == 0) return FaultCode::Fault_None;
  Tile candidate = f.tile(source);  // SharedTileFromLocal
  candidate.set_location(TileLocation::Any);
  if (candidate.descriptor().capacity_bytes != size_code_bytes(size_code)) return FaultCode::Fault_TileLegality;
  if (publish && !shared_prospective_fully_initialized(f, shared_id, candidate.descriptor(), mask))
    return FaultCode::Fault_TileLegality;
  return atomic_update_shared(f, shared_id, candidate, mask, publish) ? FaultCode::Fault_None : FaultCode::Fault_TileLegality;
}

void tmov_shared_to_local(TileFile& f, TileIndex destination, unsigned shared_id, const TileDescriptor& view,
                          PeMask mask) {
  if (mask == 0) return;
  Tile& d = f.tile(destination);
  const SharedTile& s = f.shared(shared_id);
  // The destination has the view's geometry and layout: one storage index.
  for (std::uint32_t r = 0; r < view.rows; ++r) {
    for (std::uint32_t c = 0; c < view.columns; ++c) {
      const std::uint32_t e = d.linear_index(r, c);
      if (region_selected(mask, shared_element_region(view, e))) d.write_element(r, c, read_shared_word(s, shared_id, e));
    }
  }
  if (mask == 0b1111) d.mark_valid_region_defined();
}

}  // namespace pto::tile
