#include "tile/shared_tile.hpp"

namespace pto::tile {
namespace {

// The shape checks SharedTileUpdateCompatible applies to any candidate.
bool candidate_shape_legal(const TileFile& f, const TileDescriptor& d) noexcept {
  return !layout_is_cube(d.layout) && f.shared_capacity_legal(d.capacity_bytes) &&
         derived_tile_rows(d.capacity_bytes, d.columns, d.data_type) == d.rows && d.rows != 0 &&
         d.valid_rows <= d.rows && d.valid_columns <= d.columns &&
         std::uint64_t{d.rows} * d.columns <= logical_element_capacity(d.capacity_bytes, d.data_type);
}

// SharedTileDescriptorsCompatible (no CUBE layouts, so the CUBE fields agree).
bool descriptors_compatible(const TileDescriptor& a, const TileDescriptor& b) noexcept {
  return a.allocated && b.allocated && !layout_is_cube(a.layout) && !layout_is_cube(b.layout) &&
         a.capacity_bytes == b.capacity_bytes && a.rows == b.rows && a.columns == b.columns &&
         a.valid_rows == b.valid_rows && a.valid_columns == b.valid_columns && a.data_type == b.data_type &&
         a.layout == b.layout && a.location == b.location;
}

}  // namespace

unsigned shared_element_region(const TileDescriptor& d, std::uint32_t element) noexcept {
  const std::uint64_t byte_offset = std::uint64_t{element} * element_bits(d.data_type) / 8;
  return static_cast<unsigned>(byte_offset * 4 / d.capacity_bytes);
}

std::uint64_t read_shared_word(const SharedTile& s, unsigned shared_id, std::uint32_t element) noexcept {
  if (!s.descriptor_valid || element >= s.tile.logical_capacity() ||
      !region_selected(s.initialized_mask, shared_element_region(s.tile.descriptor(), element)))
    return undefined_shared_word(shared_id, element);
  return s.tile.read_raw(element);
}

bool shared_descriptor_legal(const TileFile& f, unsigned shared_id) noexcept {
  const SharedTile& s = f.shared(shared_id);
  return s.descriptor_valid && s.tile.allocated() && s.allocation_mask != 0 &&
         (s.initialized_mask & ~s.allocation_mask) == 0 && candidate_shape_legal(f, s.tile.descriptor()) &&
         s.tile.generic_indexing_permitted();
}

bool shared_fully_initialized(const SharedTile& s) noexcept {
  return s.descriptor_valid && s.initialized_mask == s.allocation_mask && s.tile.contents_defined();
}

bool shared_published(const SharedTile& s) noexcept { return shared_fully_initialized(s) && s.published; }

bool shared_cooperative_matrix_ready(const TileFile& f, unsigned shared_id) noexcept {
  const SharedTile& s = f.shared(shared_id);
  return shared_descriptor_legal(f, shared_id) && s.allocation_mask == 0xF && s.initialized_mask == 0xF && s.published &&
         s.tile.contents_defined();
}

std::uint32_t minimum_capacity_for_shape(std::uint32_t columns, std::uint32_t valid_rows,
                                         std::uint32_t valid_columns, DataType t) noexcept {
  for (unsigned code = 1; code <= 12; ++code)
    if (descriptor_shape_legal(size_code_bytes(code), columns, valid_rows, valid_columns, t))
      return size_code_bytes(code);
  return 0;
}

TileDescriptor shared_descriptor(const SharedShape& shape) noexcept {
  TileDescriptor d;
  d.allocated = true;
  d.capacity_bytes = shape.capacity_bytes;
  d.rows = derived_tile_rows(shape.capacity_bytes, shape.columns, shape.data_type);
  d.columns = shape.columns;
  d.valid_rows = shape.valid_rows;
  d.valid_columns = shape.valid_columns;
  d.data_type = shape.data_type;
  d.layout = shape.layout;
  d.location = TileLocation::Any;
  return d;
}

bool shared_update_compatible(const TileFile& f, unsigned shared_id, const TileDescriptor& d, PeMask mask) noexcept {
  if (mask == 0) return true;
  if (!candidate_shape_legal(f, d)) return false;
  const SharedTile& old = f.shared(shared_id);
  if (old.descriptor_valid)
    return (mask & ~old.allocation_mask) == 0 && descriptors_compatible(old.tile.descriptor(), d);
  return f.core_capacity_in_use() + core_allocation_bytes(mask, d.capacity_bytes) <= f.capacity_limit();
}

bool shared_prospective_fully_initialized(const TileFile& f, unsigned shared_id, const TileDescriptor& d,
                                          PeMask mask) noexcept {
  if (mask == 0 || !shared_update_compatible(f, shared_id, d, mask)) return false;
  const SharedTile& old = f.shared(shared_id);
  return !old.descriptor_valid || (old.initialized_mask | mask) == old.allocation_mask;
}

bool shared_read_schema_legal_at_capacity(const TileFile& f, unsigned shared_id, const SharedShape& shape) noexcept {
  if (layout_is_cube(shape.layout)) return false;
  const SharedTile& s = f.shared(shared_id);
  if (s.descriptor_valid) {
    const TileDescriptor& d = s.tile.descriptor();
    return shared_descriptor_legal(f, shared_id) && d.capacity_bytes == shape.capacity_bytes &&
           d.columns == shape.columns && shape.valid_rows <= d.valid_rows && shape.valid_columns <= d.valid_columns &&
           d.data_type == shape.data_type && d.layout == shape.layout;
  }
  const std::uint32_t rows = derived_tile_rows(shape.capacity_bytes, shape.columns, shape.data_type);
  return f.shared_capacity_legal(shape.capacity_bytes) &&
         descriptor_shape_legal(shape.capacity_bytes, shape.columns, shape.valid_rows, shape.valid_columns,
                                shape.data_type) &&
         std::uint64_t{rows} * shape.columns <= logical_element_capacity(shape.capacity_bytes, shape.data_type);
}

std::optional<SharedShape> shared_read_schema(const TileFile& f, unsigned shared_id, SharedShape shape) noexcept {
  const SharedTile& s = f.shared(shared_id);
  shape.capacity_bytes = s.descriptor_valid ? s.tile.descriptor().capacity_bytes
                                            : minimum_capacity_for_shape(shape.columns, shape.valid_rows,
                                                                         shape.valid_columns, shape.data_type);
  if (shape.capacity_bytes == 0 || !shared_read_schema_legal_at_capacity(f, shared_id, shape)) return std::nullopt;
  return shape;
}

bool atomic_update_shared(TileFile& f, unsigned shared_id, const Tile& source, PeMask mask, bool publish) {
  if (mask == 0) return true;
  const TileDescriptor& d = source.descriptor();
  if (!shared_update_compatible(f, shared_id, d, mask)) return false;
  SharedTile& s = f.shared(shared_id);
  if (!s.descriptor_valid) {
    s.descriptor_valid = true;
    s.allocation_mask = mask;
    s.initialized_mask = mask;
    s.published = publish;
    s.tile = source;
    s.tile.mark_valid_region_defined();  // a fresh register is defined in its selected quarters
    return true;
  }
  for (std::uint32_t r = 0; r < d.rows; ++r) {
    for (std::uint32_t c = 0; c < d.columns; ++c) {
      const std::uint32_t e = source.linear_index(r, c);
      if (region_selected(mask, shared_element_region(d, e)) && source.element_defined(e))
        s.tile.write_element(r, c, source.read_raw(e));
    }
  }
  s.initialized_mask |= mask;
  // Complementary quarter updates complete the aggregate value.
  const bool complete = s.initialized_mask == s.allocation_mask;
  if (complete) s.tile.mark_valid_region_defined();
  s.published = s.published || (publish && complete);
  return true;
}

}  // namespace pto::tile
