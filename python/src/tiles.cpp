// Machine.tile, tile_defined, tile_info and set_tile: the tile register file
// of the bundle engine (block::tile_state) read and set up through its own
// descriptor, allocation and element-write rules (tile/tile_state.hpp).
#include <pybind11/stl.h>

#include <fmt/format.h>

#include "bindings.hpp"
#include "block/bundle_engine.hpp"
#include "tile/tile_render.hpp"

namespace pto::python {
namespace {

using tile::TileIndex;

TileIndex tile_index(const py::object& key) {
  if (py::isinstance<py::str>(key)) {
    if (auto i = tile::parse_tile_name(key.cast<std::string>())) return *i;
    throw py::key_error(fmt::format("'{}' is not a tile register (T#1..N#16 or 0..63)", key.cast<std::string>()));
  }
  const auto i = key.cast<std::int64_t>();
  if (i < 0 || i >= tile::kTileRegisterCount) throw py::index_error(fmt::format("tile registers are 0..63, not {}", i));
  return static_cast<TileIndex>(i);
}

// The tile a read names; unallocated ones have no element type or values.
const tile::Tile& allocated_tile(Machine& m, const py::object& key) {
  const TileIndex i = tile_index(key);
  const block::TileMachineState* state = block::find_tile_state(m.core());
  if (state == nullptr || !state->file.tile(i).allocated()) {
    throw py::value_error(fmt::format("{} is not allocated", tile::tile_name(i)));
  }
  return state->file.tile(i);
}

// Calls f(row, column, element) over the valid region, row by row.
template <typename F>
void for_valid_region(const tile::Tile& t, F&& f) {
  const tile::TileDescriptor& d = t.descriptor();
  for (std::uint32_t r = 0; r < d.valid_rows; ++r)
    for (std::uint32_t c = 0; c < d.valid_columns; ++c) f(r, c, t.linear_index(r, c));
}

std::vector<py::ssize_t> valid_shape(const tile::Tile& t) {
  return {static_cast<py::ssize_t>(t.descriptor().valid_rows), static_cast<py::ssize_t>(t.descriptor().valid_columns)};
}

// Undefined elements read as zero: their carriers are not architectural
// values (ADR 0014); tile_defined tells which they are.
py::object tile_values(Machine& m, const py::object& key) {
  const tile::Tile& t = allocated_tile(m, key);
  std::vector<std::uint64_t> raw;
  raw.reserve(t.valid_element_count());
  for_valid_region(t, [&](std::uint32_t, std::uint32_t, std::uint32_t e) {
    raw.push_back(t.element_defined(e) ? t.read_raw(e) : 0);
  });
  const py::object array = carriers_to_array(raw, t.data_type(), valid_shape(t))
                               .attr("view")(py::module_::import("pto").attr("TileArray"));
  array.attr("pto_dtype") = t.data_type();
  return array;
}

py::array tile_defined(Machine& m, const py::object& key) {
  const tile::Tile& t = allocated_tile(m, key);
  py::array_t<bool> out(valid_shape(t));
  bool* p = out.mutable_data();
  for_valid_region(t, [&](std::uint32_t, std::uint32_t, std::uint32_t e) { *p++ = t.element_defined(e); });
  return out;
}

py::object tile_info(Machine& m, const py::object& key) {
  const TileIndex i = tile_index(key);
  const block::TileMachineState* state = block::find_tile_state(m.core());
  py::dict info;
  info["name"] = tile::tile_name(i);
  info["index"] = i;
  info["allocated"] = state != nullptr && state->file.tile(i).allocated();
  if (info["allocated"].cast<bool>()) {
    const tile::Tile& t = state->file.tile(i);
    const tile::TileDescriptor& d = t.descriptor();
    info["dtype"] = d.data_type;
    info["shape"] = py::make_tuple(d.rows, d.columns);
    info["valid_shape"] = py::make_tuple(d.valid_rows, d.valid_columns);
    info["layout"] = std::string(tile::layout_name(d.layout));
    info["location"] = std::string(tile::location_name(d.location));
    info["storage"] = d.storage_kind == tile::TileStorageKind::Numeric ? "Numeric" : "Predicate";
    info["capacity_bytes"] = d.capacity_bytes;
    info["mask"] = state->file.allocation_mask(i);
    info["contents_defined"] = t.contents_defined();
    info["defined_valid_elements"] = t.defined_valid_elements();
  }
  return py::module_::import("types").attr("SimpleNamespace")(**info);
}

// The element type of values given without one: the numpy types that are
// tile types themselves.
num::DataType inferred_type(const py::array& values) {
  using num::DataType;
  for (DataType t : {DataType::FP64, DataType::FP32, DataType::FP16, DataType::S64, DataType::S32, DataType::S16,
                     DataType::S8, DataType::U64, DataType::U32, DataType::U16, DataType::U8}) {
    if (values.dtype().is(numpy_dtype_of(t))) return t;
  }
  throw py::type_error(fmt::format("no tile type matches numpy dtype {}; give dtype=pto.DataType...",
                                   py::str(values.dtype()).cast<std::string>()));
}

std::uint32_t power_of_two_at_least(std::uint32_t n) {
  std::uint32_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// The smallest Local size (128 << (code - 1) bytes per PE) that holds the shape.
std::uint32_t smallest_capacity(std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t valid_columns,
                                num::DataType t) {
  for (unsigned code = 1; tile::local_size_code_legal(code); ++code) {
    if (tile::descriptor_shape_legal(tile::size_code_bytes(code), columns, valid_rows, valid_columns, t)) {
      return tile::size_code_bytes(code);
    }
  }
  throw py::value_error(fmt::format("a {}x{} {} tile does not fit a Local tile (at most 64 KiB)", valid_rows, valid_columns,
                                    num::name(t)));
}

// Allocates the tile as ConfigureTileForMask does (RowMajor, location Any)
// and writes each element of the valid region, which defines it; elements
// where `defined` is False stay undefined.
void set_tile(Machine& m, const py::object& key, const py::object& values, std::optional<num::DataType> dtype,
              unsigned mask, std::optional<std::uint32_t> capacity_bytes, std::optional<std::uint32_t> columns,
              const py::object& defined) {
  const TileIndex i = tile_index(key);
  if (mask == 0 || mask > 0xF) throw py::value_error("mask is a four-bit PE mask (0b0001..0b1111)");
  py::array array = py::module_::import("numpy").attr("asarray")(values);
  if (array.ndim() == 1) array = array.attr("reshape")(1, -1);
  if (array.ndim() != 2 || array.size() == 0) throw py::value_error("tile values must be a non-empty 1-D or 2-D array");
  const num::DataType t = dtype.value_or(inferred_type(array));
  const auto valid_rows = static_cast<std::uint32_t>(array.shape(0));
  const auto valid_columns = static_cast<std::uint32_t>(array.shape(1));
  tile::ConfigureRequest r;
  r.columns = columns.value_or(power_of_two_at_least(valid_columns));
  r.valid_rows = valid_rows;
  r.valid_columns = valid_columns;
  r.data_type = t;
  r.mask = static_cast<tile::PeMask>(mask);
  r.capacity_bytes = capacity_bytes.value_or(smallest_capacity(r.columns, valid_rows, valid_columns, t));
  const std::vector<std::uint64_t> carriers = array_to_carriers(array, t);
  std::vector<bool> keep(carriers.size(), true);
  if (!defined.is_none()) {
    const py::array_t<bool> flags = py::module_::import("numpy").attr("asarray")(defined, "bool").attr("reshape")(valid_rows, valid_columns);
    for (std::size_t k = 0; k < keep.size(); ++k) keep[k] = flags.data()[k];
  }
  block::TileMachineState& state = block::tile_state(m.core());
  state.file.set_capacity_limit(static_cast<std::uint32_t>(m.core().state.sysregs.tile_capacity));  // TILE_CAPACITY
  if (const arch::FaultCode f = state.file.configure(i, r); f != arch::FaultCode::Fault_None) {
    throw py::value_error(fmt::format("cannot allocate {} ({} {}x{} in {} bytes, columns {}, mask {:04b}): {}",
                                      tile::tile_name(i), num::name(t), valid_rows, valid_columns, r.capacity_bytes,
                                      r.columns, mask, arch::fault_name(f)));
  }
  tile::Tile& target = state.file.tile(i);
  std::size_t k = 0;
  for (std::uint32_t row = 0; row < valid_rows; ++row) {
    for (std::uint32_t column = 0; column < valid_columns; ++column, ++k) {
      if (keep[k]) target.write_element(row, column, carriers[k]);
    }
  }
}

}  // namespace

void bind_tiles(py::class_<Machine>& machine) {
  machine
      .def("tile", &tile_values, py::arg("tile"),
           "The valid region of a tile (T#1..N#16 or 0..63) as a numpy array of its element type (raw carriers for "
           "BF16, FP8, FP4 ...; .pto_dtype names the type).  Undefined elements read as 0 (see tile_defined).")
      .def("tile_defined", &tile_defined, py::arg("tile"), "Per-element definedness of the valid region (ADR 0014)")
      .def("tile_info", &tile_info, py::arg("tile"),
           "The descriptor: allocated, dtype, shape, valid_shape, layout, location, storage, capacity_bytes, mask, "
           "contents_defined, defined_valid_elements")
      .def("set_tile", &set_tile, py::arg("tile"), py::arg("values"), py::arg("dtype") = py::none(), py::kw_only(),
           py::arg("mask") = 0b1111, py::arg("capacity_bytes") = py::none(), py::arg("columns") = py::none(),
           py::arg("defined") = py::none(),
           "Allocate a RowMajor tile with the architecture's allocation rules (capacity, TILE_CAPACITY budget, "
           "shape) and write its valid region; dtype defaults from the numpy dtype.  Where `defined` is False the "
           "element stays undefined.");
}

}  // namespace pto::python
