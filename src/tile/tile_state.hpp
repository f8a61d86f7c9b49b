// Tile register state: one Tile (descriptor + packed payload + per-element
// definedness) and the core's register file (64 Local tiles, their allocation
// masks, 256 Shared tiles, the TILE_CAPACITY budget).
//
// Sources: asl/tile/model/state/{types,allocation,descriptors,shared-registers}.asl,
// asl/tile/model/definedness/{elements,packed-boundary}.asl,
// asl/tile/model/shape/{rows-columns,valid-region}.asl,
// asl/tile/model/capacity/{local,shared}.asl, ADR 0013, ADR 0014, ADR 0096.
//
// Storage is sized by the real per-PE capacity and packed per data type
// (element i occupies bits [i*w, i*w+w) of the payload, little-endian; packed
// four-bit element i is the low nibble of byte i/2 when i is even, ADR 0033).
// Definedness is a word-level bitset with one bit per logical element and a
// count of defined elements inside the valid region; contents_defined() is
// derived from that count and never stored (ADR 0014).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <span>
#include <vector>

#include "tile/tile_types.hpp"

namespace pto::tile {

struct TileDescriptor {
  bool allocated = false;
  TileStorageKind storage_kind = TileStorageKind::Numeric;
  std::uint32_t capacity_bytes = 0;  // per PE
  std::uint32_t rows = 0;
  std::uint32_t columns = 0;
  std::uint32_t valid_rows = 0;
  std::uint32_t valid_columns = 0;
  DataType data_type = DataType::U8;
  TileLayout layout = TileLayout::RowMajor;
  TileLocation location = TileLocation::Any;
};

// The valid region of a RowMajor tile as contiguous element runs, f(first
// linear index, length): one run when the valid columns fill every row, else
// one per valid row.  The span fast paths walk tiles this way.
template <typename F>
void for_each_valid_run(const TileDescriptor& d, F f) {
  if (d.valid_columns == d.columns) {
    f(std::size_t{0}, std::size_t{d.valid_rows} * d.columns);
    return;
  }
  for (std::uint32_t r = 0; r < d.valid_rows; ++r) f(std::size_t{r} * d.columns, std::size_t{d.valid_columns});
}

// IsNonzeroPowerOfTwo over 16-bit dimensions.
constexpr bool is_nonzero_power_of_two(std::uint32_t v) noexcept { return v != 0 && v <= 65535 && (v & (v - 1)) == 0; }
// DerivedTileRows: physical rows from capacity, columns and type; 0 = no legal row count.
std::uint32_t derived_tile_rows(std::uint32_t capacity_bytes, std::uint32_t columns, DataType t) noexcept;
// TileLogicalElementCapacity.
constexpr std::uint32_t logical_element_capacity(std::uint32_t capacity_bytes, DataType t) noexcept {
  return static_cast<std::uint32_t>(std::uint64_t{capacity_bytes} * 8 / element_bits(t));
}
// TileDescriptorShapeLegal.
bool descriptor_shape_legal(std::uint32_t capacity_bytes, std::uint32_t columns, std::uint32_t valid_rows,
                            std::uint32_t valid_columns, DataType t) noexcept;
// TilePadValueForDataType: the raw element a padding choice writes.
std::uint64_t pad_value_for_data_type(PadValue p, DataType t) noexcept;

class Tile {
 public:
  const TileDescriptor& descriptor() const noexcept { return d_; }
  bool allocated() const noexcept { return d_.allocated; }
  DataType data_type() const noexcept { return d_.data_type; }
  // SharedTileFromLocal: a Shared candidate takes location Any.
  void set_location(TileLocation l) noexcept { d_.location = l; }

  // ADR 0014: the summary is derived from the valid-region count.
  std::uint64_t valid_element_count() const noexcept { return std::uint64_t{d_.valid_rows} * d_.valid_columns; }
  std::uint64_t defined_valid_elements() const noexcept { return defined_valid_; }
  bool contents_defined() const noexcept { return d_.allocated && defined_valid_ == valid_element_count(); }
  // Logical elements addressable in this descriptor (capacity / element width).
  std::uint32_t logical_capacity() const noexcept;
  std::uint64_t defined_element_count() const noexcept;  // all bits set, inside or outside the valid region

  // TileGenericIndexingPermitted: not CUBE and a legal fractal shape.
  bool generic_indexing_permitted() const noexcept;
  // TileLinearIndex / TilePackedLinearIndex (RowMajor, ColumnMajor, ZN, NZ).
  std::uint32_t linear_index(std::uint32_t row, std::uint32_t column) const noexcept;

  // TileLinearIndex of every layout is separable: the fractal or CELL index
  // and the index inside it each add a part that depends on the row only and
  // a part that depends on the column only, so linear_index(r, c) =
  // row[r] + column[c] over the valid region.  Block copies and the CUBE
  // kernels compute these once per operation instead of the geometry once
  // per element.
  struct Offsets {
    std::vector<std::uint32_t> row, column;  // valid_rows and valid_columns entries
    std::uint32_t operator()(std::uint32_t r, std::uint32_t c) const noexcept { return row[r] + column[c]; }
  };
  Offsets valid_offsets() const;

  bool element_defined(std::uint32_t element) const noexcept {
    return (defined_[element >> 6] >> (element & 63)) & 1U;
  }
  bool element_defined_at(std::uint32_t row, std::uint32_t column) const noexcept {
    return element_defined(linear_index(row, column));
  }
  // Raw element bits, zero-extended (no definedness check: callers that model
  // a generic read must check element_defined first, ADR 0014).
  std::uint64_t read_raw(std::uint32_t element) const noexcept;
  // The element as an XLEN Word: signed integer types sign-extend
  // (NormalizeLoadedValue / NormalizeTileInteger); all others zero-extend.
  std::uint64_t read_word(std::uint32_t element) const noexcept;

  // WriteTileElement: defines only this element; counts it once when it lies
  // in the valid region and was not defined before (ADR 0014).
  void write_element(std::uint32_t row, std::uint32_t column, std::uint64_t value) noexcept;
  // Store raw bits without touching definedness (kernel building block).
  void store_raw(std::uint32_t element, std::uint64_t value) noexcept;

  // Bulk definedness: set the bits of [first, first+count).
  void define_range(std::uint32_t first, std::uint32_t count) noexcept;
  // MarkTileValidRegionDefined: after a full-destination write.
  void mark_valid_region_defined() noexcept;
  // TileWithPadding: physical elements outside the valid region receive the
  // padding value; Null leaves them undefined, others define them.
  void apply_padding(PadValue pad) noexcept;

  // Raw payload bytes (capacity_bytes long) for typed kernels.  The buffer is
  // a std::byte array, so typed views below are implicitly created objects.
  std::span<std::byte> payload() noexcept { return {payload_.get(), d_.capacity_bytes}; }
  std::span<const std::byte> payload() const noexcept { return {payload_.get(), d_.capacity_bytes}; }
  // Row-major rows of a non-packed tile as typed element pointers.
  template <typename T>
  T* row_data(std::uint32_t row) noexcept {
    return reinterpret_cast<T*>(payload_.get()) + std::size_t{row} * d_.columns;
  }
  template <typename T>
  const T* row_data(std::uint32_t row) const noexcept {
    return reinterpret_cast<const T*>(payload_.get()) + std::size_t{row} * d_.columns;
  }

  Tile() = default;
  Tile(const Tile& other);
  Tile& operator=(const Tile& other);
  Tile(Tile&&) noexcept = default;
  Tile& operator=(Tile&&) noexcept = default;

  // Allocation/reconfiguration: install a descriptor, clear all definedness.
  void configure(const TileDescriptor& d);
  // ReleaseTile: descriptor back to the reset values, definedness cleared.
  void release() noexcept;

 private:
  void clear_definedness() noexcept;
  void define_cube_valid_region() noexcept;
  void set_defined(std::uint32_t element, bool defined) noexcept;
  void assign_defined_range(std::uint32_t first, std::uint32_t count, bool defined) noexcept;
  // apply_padding of RowMajor tiles of whole-byte elements (false: other layouts).
  bool pad_row_major_runs(bool defined, std::uint64_t value) noexcept;

  void reserve_payload(std::uint32_t bytes);

  // Payloads start on a host page: every tile's element i sits at the same
  // page offset, so elementwise loops over two sources and a destination
  // never stall on false (4 KiB-aliased) store-to-load dependencies.
  static constexpr std::size_t kPayloadAlignment = 4096;
  struct PayloadDelete {
    void operator()(std::byte* p) const noexcept { ::operator delete[](p, std::align_val_t{kPayloadAlignment}); }
  };

  TileDescriptor d_;
  std::unique_ptr<std::byte[], PayloadDelete> payload_;
  std::uint32_t payload_size_ = 0;  // allocated bytes (>= capacity_bytes)
  std::vector<std::uint64_t> defined_;
  std::uint64_t defined_valid_ = 0;
};

// One Shared register S0..S255 (SharedTileInfo).
struct SharedTile {
  bool descriptor_valid = false;
  PeMask allocation_mask = 0;
  PeMask initialized_mask = 0;  // one bit per fixed-offset quarter
  bool published = false;
  Tile tile;

  bool any_quarter_initialized() const noexcept { return descriptor_valid && initialized_mask != 0; }
  bool fully_initialized() const noexcept {
    return descriptor_valid && initialized_mask == allocation_mask && tile.contents_defined();
  }
};

// PredicateTileStorageBytes: one bit per logical element.
constexpr std::uint64_t predicate_storage_bytes(std::uint32_t rows, std::uint32_t columns) noexcept {
  return (std::uint64_t{rows} * columns + 7) / 8;
}

struct ConfigureRequest {
  std::uint32_t capacity_bytes = 0;
  std::uint32_t columns = 0;
  std::uint32_t valid_rows = 0;
  std::uint32_t valid_columns = 0;
  DataType data_type = DataType::U8;
  TileLayout layout = TileLayout::RowMajor;
  TileLocation location = TileLocation::Any;
  PeMask mask = 0;
};

class TileFile {
 public:
  TileFile();

  Tile& tile(TileIndex i) noexcept { return tiles_[i]; }
  const Tile& tile(TileIndex i) const noexcept { return tiles_[i]; }
  PeMask allocation_mask(TileIndex i) const noexcept { return masks_[i]; }
  SharedTile& shared(unsigned id) noexcept {
    shared_handed_out_ = true;  // the caller may make it valid
    return shared_[id];
  }
  const SharedTile& shared(unsigned id) const noexcept { return shared_[id]; }

  // TILE_CAPACITY (system register 0x27); reset value PTO_TILE_CAPACITY_BYTES.
  std::uint32_t capacity_limit() const noexcept { return capacity_limit_; }
  void set_capacity_limit(std::uint32_t bytes) noexcept { capacity_limit_ = bytes; }

  // PTO_MODEL_TILE_ELEMENTS of this machine (asl/arch/features/tile-allocation.asl),
  // set from arch::MachineConfig::tile_elements when the machine's tile state
  // is created; precondition 1..kModelTileElementsMax (the MachineConfig
  // setter validates).  Reset keeps it: it is configuration, not state.
  std::uint32_t model_tile_elements() const noexcept { return model_tile_elements_; }
  void set_model_tile_elements(std::uint32_t elements) noexcept;
  // `elements <= PTO_MODEL_TILE_ELEMENTS`, the bound the ASL's footprint and
  // shape checks apply (BundleTPREFETCHDimensionsLegal, TileMatrixShapeLegal,
  // TileCubeStorageElements, ...).
  bool within_model_tile_elements(std::uint64_t elements) const noexcept { return elements <= model_tile_elements_; }
  // Whether every physical element of tile i has an ASL payload slot below
  // PTO_MODEL_TILE_ELEMENTS: TileStorageIndex / TilePackedCarrierIndex assert
  // it for each element TileWithPadding reaches.  Always true for CUBE
  // layouts (TileCubeDescriptorShapeLegal bounds their storage) and at the
  // default limit (a 256 KiB payload is 32768 carriers).
  bool payload_representable(const TileDescriptor& d) const noexcept;
  bool payload_representable(TileIndex i) const noexcept { return payload_representable(tiles_[i].descriptor()); }

  std::uint64_t local_capacity_in_use_except(int excluded) const noexcept;
  std::uint64_t local_capacity_in_use() const noexcept { return local_capacity_in_use_except(-1); }
  std::uint64_t shared_capacity_in_use() const noexcept;
  std::uint64_t core_capacity_in_use() const noexcept { return local_capacity_in_use() + shared_capacity_in_use(); }

  // TileCapacityIsLegal / SharedTileCapacityIsLegal.
  bool local_capacity_legal(std::uint32_t bytes) const noexcept;
  bool shared_capacity_legal(std::uint32_t bytes) const noexcept;

  // ConfigureTileForMask preconditions, checked: FaultCode::Fault_None on success.
  FaultCode check_configure(TileIndex i, const ConfigureRequest& r) const noexcept;
  // ConfigureTileForMask: rows are derived, definedness cleared.
  FaultCode configure(TileIndex i, const ConfigureRequest& r);
  // ConfigureCubeTileForMask (CUBE_M16/M32/N8, Matrix location): the storage
  // shape derives from the valid region; FaultCode::Fault_None on success.
  FaultCode configure_cube(TileIndex i, const ConfigureRequest& r);
  // ConfigurePredicateTileForMask (asl/tile/model/state/allocation.asl): a U8
  // RowMajor predicate-kind descriptor with the given (not derived) rows; the
  // caller has checked capacity and budget (ResolveBundlePredicateDestination).
  void configure_predicate(TileIndex i, std::uint32_t capacity_bytes, std::uint32_t rows, std::uint32_t columns,
                           std::uint32_t valid_rows, std::uint32_t valid_columns, PeMask mask);
  void release(TileIndex i) noexcept;
  // Reset: every Local and Shared register released, capacity limit restored.
  void reset() noexcept;

  // TileDescriptorConfigured / TileDescriptorLegal / TileSourceContentsDefined.
  bool descriptor_configured(TileIndex i) const noexcept;
  bool descriptor_legal(TileIndex i) const noexcept;
  bool source_contents_defined(TileIndex i) const noexcept {
    return descriptor_legal(i) && tiles_[i].contents_defined();
  }

  // Descriptor-and-payload copy (carries definedness, ADR 0014).
  void copy_tile(TileIndex destination, TileIndex source, PeMask mask);

 private:
  // Installs a new descriptor: allocation clears every definedness bit (ADR 0014).
  void install(TileIndex i, const TileDescriptor& d, PeMask mask);

  std::array<Tile, kTileRegisterCount> tiles_;
  std::array<PeMask, kTileRegisterCount> masks_{};
  std::vector<SharedTile> shared_;
  // False while no shared register has been handed out for writing since
  // construction or reset(): then none is valid and shared_capacity_in_use
  // (asked on every tile allocation) needs no scan of the 256 registers.
  bool shared_handed_out_ = false;
  std::uint32_t capacity_limit_ = kTileCapacityBytes;
  std::uint32_t model_tile_elements_ = kModelTileElementsMax;
};

}  // namespace pto::tile
