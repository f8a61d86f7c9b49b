// Runs the tile-bundle and tile-state vectors extracted from the spec's ASL
// test points (tests/data/spec_bundle_exec.json, tools/extract_bundle_vectors.py)
// through the public execution API: state set-up, encoded instructions
// executed with runner::execute_instruction (test-only helpers such as
// SetBundleDimension / AddBundleTileBinding / ExecuteBundleTileOperation are
// already rewritten to B.DIM / B.IOT / BSTOP words by the extractor), and
// observations of tile and pending-bundle state.  One test per AVS id;
// expected values come from the ASL assertions.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <optional>
#include <string>
#include <utility>
#include <variant>

#include "arch/machine.hpp"
#include "block/bundle_engine.hpp"
#include "block/control.hpp"
#include "block/generated/data_layouts.hpp"
#include "isa/decoder.hpp"
#include "numerics/datatypes.hpp"
#include "numerics/rounding.hpp"
#include "runner/dispatch.hpp"
#include "tile/shared_tile.hpp"
#include "tile/tile_contracts.hpp"
#include "tile/tile_elementwise.hpp"
#include "tile/tile_ops.hpp"
#include "tile/cube_layout.hpp"
#include "spec_vector_runner.hpp"
#include "tile_datr_steps.hpp"
#include "tile_request.hpp"

namespace {

using namespace pto::test::spec_vectors;  // json, Machine, Word, num, check_vector, ...

const json& bundle_vectors() {
  static const json v = load_vectors("spec_bundle_exec.json");
  return v;
}

unsigned u(const json& v) { return static_cast<unsigned>(num(v)); }
std::string hex(Word v) { return fmt::format("{:#x}", v); }

// Expected value as text: enumerations keep their ASL name, numbers print in hex.
std::string expected(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "true" : "false";
  if (v.is_string() && !v.get<std::string>().starts_with("0x")) return v.get<std::string>();
  return hex(num(v));
}
std::string flag(bool b) { return b ? "true" : "false"; }

template <typename E, std::size_t N>
E enum_named(const std::string& name, const char* const (&names)[N]) {
  for (std::size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<E>(i);
  }
  throw std::runtime_error("unknown enumeration value " + name);
}
constexpr const char* kLayouts[] = {"RowMajor", "ColumnMajor", "ZN", "NZ", "CUBE_M16", "CUBE_M32", "CUBE_N8"};
constexpr const char* kLocations[] = {"Any", "Vector", "Matrix"};
constexpr const char* kKinds[] = {"BundleKind_Standard",    "BundleKind_Floating",   "BundleKind_System",
                                  "BundleKind_TileElement", "BundleKind_TileMemory", "BundleKind_TileMatrix",
                                  "BundleKind_FrameTemplate"};
constexpr const char* kTransfers[] = {"BundleTransfer_Fallthrough", "BundleTransfer_Direct",
                                      "BundleTransfer_Conditional", "BundleTransfer_Call",
                                      "BundleTransfer_Return",      "BundleTransfer_Indirect",
                                      "BundleTransfer_IndirectCall"};
constexpr const char* kEventKinds[] = {"MemoryEvent_InitialWrite", "MemoryEvent_Load", "MemoryEvent_Store",
                                       "MemoryEvent_Atomic", "MemoryEvent_Fence"};
constexpr const char* kOrders[] = {"MemoryOrder_Relaxed", "MemoryOrder_Acquire", "MemoryOrder_Release",
                                   "MemoryOrder_AcquireRelease"};

pto::tile::TileFile& tiles(Machine& m) { return pto::block::tile_state(m).file; }

// A tile named by index, or by the renamed destination of binding i (read
// after the commit: the pending binding, else the commit's trace).
unsigned tile_index(Machine& m, const json& s) {
  if (s.contains("index")) return u(s["index"]);
  if (s.contains("destination_ordinal")) {  // BundleMatrixDestinationAt: the allocation order
    const auto& d = pto::block::tile_state(m).trace.destinations;
    const unsigned i = u(s["destination_ordinal"]);
    return i < d.size() ? d[i] : 0;
  }
  const unsigned b = u(s["binding"]);
  const auto& binding = m.state.block.tile_bindings[b];
  if (binding.valid) return binding.destination;
  const auto& d = pto::block::tile_state(m).trace.destinations;
  return b < d.size() ? d[b] : 0;
}

std::string tile_field(const pto::tile::TileFile& f, unsigned i, const std::string& field) {
  const pto::tile::Tile& t = f.tile(static_cast<pto::tile::TileIndex>(i));
  const auto& d = t.descriptor();
  if (field == "allocated") return flag(d.allocated);
  if (field == "contents_defined") return flag(t.contents_defined());
  if (field == "defined_valid_elements") return hex(t.defined_valid_elements());
  if (field == "defined_element_count") return hex(t.defined_element_count());
  if (field == "capacity_bytes") return hex(d.capacity_bytes);
  if (field == "rows") return hex(d.rows);
  if (field == "columns") return hex(d.columns);
  if (field == "valid_rows") return hex(d.valid_rows);
  if (field == "valid_columns") return hex(d.valid_columns);
  if (field == "allocation_mask") return hex(f.allocation_mask(static_cast<pto::tile::TileIndex>(i)));
  if (field == "data_type") return "TileDataType_" + std::string(pto::num::info(d.data_type).name);
  if (field == "layout") return "TileLayout_" + std::string(pto::tile::layout_name(d.layout));
  if (field == "location") return "TileLocation_" + std::string(pto::tile::location_name(d.location));
  // Derived CUBE storage (zero for a non-CUBE or unallocated descriptor).
  const pto::tile::CubeGeometry g = d.allocated ? pto::tile::cube_geometry(d.layout, d.valid_rows, d.valid_columns,
                                                                           d.data_type)
                                                : pto::tile::CubeGeometry{};
  if (field == "cube_k_repeat") return hex(g.k_repeat);
  if (field == "cube_n_repeat") return hex(g.n_repeat);
  if (field == "cube_cell_count") return hex(g.cell_count);
  if (field == "cube_storage_bytes") return hex(g.storage_bytes);
  return "<unknown tile field " + field + ">";
}

std::string shared_field(const pto::tile::SharedTile& s, const json& step) {
  const std::string field = step["field"];
  if (field == "descriptor_valid") return flag(s.descriptor_valid);
  if (field == "allocation_mask") return hex(s.allocation_mask);
  if (field == "initialized_mask") return hex(s.initialized_mask);
  if (field == "published") return flag(s.published);
  if (field == "fully_initialized") return flag(pto::tile::shared_fully_initialized(s));
  if (field == "published_value") return flag(pto::tile::shared_published(s));
  if (field == "payload") return hex(s.tile.read_raw(u(step["element"])));
  const auto& d = s.tile.descriptor();
  if (field == "tile.capacity_bytes") return hex(d.capacity_bytes);
  if (field == "tile.rows") return hex(d.rows);
  if (field == "tile.columns") return hex(d.columns);
  if (field == "tile.valid_rows") return hex(d.valid_rows);
  if (field == "tile.valid_columns") return hex(d.valid_columns);
  if (field == "tile.data_type") return "TileDataType_" + std::string(pto::num::info(d.data_type).name);
  return "<unknown shared tile field " + field + ">";
}

std::string binding_field(const Machine& m, const std::string& op, unsigned i, const std::string& f) {
  const pto::arch::BlockState& b = m.state.block;
  if (op == "expect_scalar_binding") {
    const auto& s = b.scalar_bindings[i];
    if (f == "valid") return flag(s.valid);
    if (f == "destination") return hex(s.destination);
    if (f == "source0") return hex(s.source0);
    if (f == "source1") return hex(s.source1);
    if (f == "source2") return hex(s.source2);
  } else if (op == "expect_tile_binding") {
    const auto& t = b.tile_bindings[i];
    if (f == "valid") return flag(t.valid);
    if (f == "destination_valid") return flag(t.destination_valid);
    if (f == "destination") return hex(t.destination);
    if (f == "destination_hand") return hex(t.destination_hand);
    if (f == "destination_allocated_by_bundle") return flag(t.destination_allocated_by_bundle);
    if (f == "destination_size") return hex(t.destination_size);
    if (f == "pe_mask") return hex(t.pe_mask);
    if (f == "source0_valid") return flag(t.source0_valid);
    if (f == "source1_valid") return flag(t.source1_valid);
    if (f == "source0") return hex(t.source0);
    if (f == "source1") return hex(t.source1);
    if (f == "last") return flag(t.last);
  } else {
    // After the BSTOP that ends the block, the commit's trace keeps them.
    const auto* trace = pto::block::current_bundle_trace(m);
    const bool closed = !b.shared_bindings[i].valid && trace != nullptr && i < trace->shared_bindings.size();
    const auto& s = closed ? trace->shared_bindings[i] : b.shared_bindings[i];
    if (f == "valid") return flag(s.valid);
    if (f == "shared_id") return hex(s.shared_id);
    if (f == "size_code") return hex(s.size_code);
    if (f == "pe_mask") return hex(s.pe_mask);
    if (f == "consumed") return flag(s.consumed);
  }
  return "<unknown binding field " + f + ">";
}

constexpr const char* kOperationClasses[] = {"BundleOperation_Control", "BundleOperation_TileElement",
                                            "BundleOperation_TileMemory", "BundleOperation_TileMatrix",
                                            "BundleOperation_FixedPoint"};

// _BundleControlAttributes.f / _BundleDataAttributes.f (+ present) / _BundleOperation.f
std::string block_record_field(const pto::arch::BlockState& b, const std::string& record, const std::string& f) {
  if (record == "control") {
    const auto& c = b.control_attributes;
    const std::pair<const char*, bool> fields[] = {{"present", c.present},   {"trap_enabled", c.trap_enabled},
                                                   {"atomic", c.atomic},     {"acquire", c.acquire},
                                                   {"release", c.release},   {"far", c.far},
                                                   {"dimension_reduction", c.dimension_reduction}};
    for (const auto& [name, value] : fields) {
      if (f == name) return flag(value);
    }
  } else if (record == "data") {
    const auto& d = b.data_attributes;
    if (f == "present") return flag(b.data_attributes_present);
    if (f == "data_type_present") return flag(d.data_type_present);
    if (f == "data_type") return hex(d.data_type);
    if (f == "data_layout") return hex(d.data_layout);
    if (f == "pad_value") return hex(d.pad_value);
    if (f == "comparison_mode") return hex(d.comparison_mode);
    if (f == "rounding_mode") return hex(d.rounding_mode);
    if (f == "saturating") return flag(d.saturating);
    if (f == "canonicalize") return flag(d.canonicalize);
  } else {
    const auto& o = b.operation;
    if (f == "valid") return flag(o.valid);
    if (f == "form_identity") return hex(o.form_identity);
    if (f == "operation_class") return kOperationClasses[static_cast<unsigned>(o.operation_class)];
    if (f == "selector_valid") return flag(o.selector_valid);
    if (f == "selector") return hex(o.selector);
    if (f == "data_type_valid") return flag(o.data_type_valid);
    if (f == "data_type") return hex(o.data_type);
    if (f == "mode_valid") return flag(o.mode_valid);
    if (f == "mode") return hex(o.mode);
    if (f == "branch_type_valid") return flag(o.branch_type_valid);
    if (f == "branch_type") return hex(o.branch_type);
  }
  return "<unknown " + record + " field " + f + ">";
}

// CurrentBundleDataLayout: the pending block's B.DATR Layout code named by
// the model's generated layout table (TileDataLayoutOfCode).
std::string current_data_layout(const pto::arch::BlockState& b) {
  for (const auto& l : pto::block::generated::kDataLayouts)
    if (l.code == b.data_attributes.data_layout) return "TileDataLayout_" + std::string(l.name);
  return "<layout code " + hex(b.data_attributes.data_layout) + " not in the table>";
}

std::string event_field(const pto::arch::MemoryEvent& e, const std::string& f) {
  if (f == "kind") return kEventKinds[static_cast<unsigned>(e.kind)];
  if (f == "order") return kOrders[static_cast<unsigned>(e.order)];
  if (f == "agent") return hex(e.agent);
  if (f == "size_bytes") return hex(e.size_bytes);
  if (f == "write_performed") return flag(e.write_performed);
  if (f == "address") return hex(e.address);
  if (f == "read_value") return hex(e.read_value);
  if (f == "write_value") return hex(e.write_value);
  return "<unknown event field " + f + ">";
}

// "" when the observed text matches the step's expected value (or its
// negation when the test asserted inequality).
std::string compare(const json& s, const std::string& what, const std::string& got) {
  const bool equal = got == expected(s["value"]);
  const bool negate = s.value("negate", false);
  return equal != negate ? "" : fmt::format("{} = {}", what, got);
}

unsigned binding_count(const pto::arch::BlockState& b) {
  unsigned n = 0;
  for (const auto& t : b.tile_bindings) n += t.valid ? 1U : 0U;
  return n;
}

// The operand record of an expect_tile_dispatch_legal step: the fields the
// ASL call bound (destinationN, sourceN, scalar0/1, flag0, diagonal,
// sort_width, numeric_control); the rest keep their reset values.
pto::tile::TileOperands dispatch_operands(const json& fields) {
  pto::tile::TileOperands o;
  for (const auto& [name, value] : fields.items()) {
    const auto index = name.empty() ? std::size_t{0} : static_cast<std::size_t>(name.back() - '0');  // destinationN/sourceN
    if (name.starts_with("destination")) o.destination.at(index) = static_cast<pto::tile::TileIndex>(u(value));
    else if (name.starts_with("source")) o.source.at(index) = static_cast<pto::tile::TileIndex>(u(value));
    else if (name == "scalar0") o.scalar0 = num(value);
    else if (name == "scalar1") o.scalar1 = num(value);
    else if (name == "flag0") o.flag0 = value.get<bool>();
    else if (name == "diagonal") o.diagonal = value.get<std::int32_t>();
    else if (name == "sort_width") o.sort_width = static_cast<std::uint8_t>(u(value));
    else if (name == "numeric_control") {  // an explicit NumericExecutionControl record
      const auto mode = pto::num::rounding_mode_from_name(value["rounding_mode"].get<std::string>());
      if (!mode) throw std::runtime_error("unknown rounding mode");
      o.numeric_control = {false, *mode, value["saturating"].get<bool>()};
    }
    else throw std::runtime_error("unknown operand field " + name);
  }
  return o;
}

// The legality gate of the ASL's per-operation dispatch arm
// (ExecuteTileInstructionWithoutTime..., generated) on an explicit operand
// record: TileSourceContentsDefined of the generic sources, then
// TileOperandsLegal_<handler>; a false gate raises Fault_TileLegality before
// any effect.  Both checks are the model's (the generic commit's steps 9
// and 10, src/tile/tile_ops.hpp).
bool dispatch_gate_passes(Machine& m, pto::isa::TileOp op, const pto::tile::TileKernel& kernel,
                          const pto::tile::TileOperands& o) {
  const pto::tile::TileFile& f = pto::block::tile_state(m).file;
  const std::uint8_t defined = pto::tile::generic_defined_sources(op);
  for (std::size_t i = 0; i < o.source.size(); ++i)
    if (((defined >> i) & 1U) && !f.source_contents_defined(o.source[i])) return false;
  return kernel.operands_legal(f, o, m.state.block);
}

// The step's operation and its registered kernel; an error text instead
// (also when the model has no kernel for it: a failure, not a skip).
std::variant<std::pair<pto::isa::TileOp, const pto::tile::TileKernel*>, std::string> step_kernel(const json& s) {
  const std::string name = s["tile_op"];
  const auto op = pto::isa::tile_op_from_name(name);
  if (!op) return "unknown tile operation " + name;
  const pto::tile::TileKernel* kernel = pto::tile::tile_kernel_table().get(*op);
  if (kernel == nullptr) return "not implemented in this model: " + name;
  return std::pair{*op, kernel};
}

std::string expect_dispatch_legal(Machine& m, const json& s) {
  const auto k = step_kernel(s);
  if (const auto* error = std::get_if<std::string>(&k)) return *error;
  const auto [op, kernel] = std::get<0>(k);
  const bool legal = dispatch_gate_passes(m, op, *kernel, dispatch_operands(s["operands"]));
  return compare(s, s["tile_op"].get<std::string>() + " dispatch legality", flag(legal));
}

// A data-type legality helper (InstructionContractDataTypeLegal_<OP>, ...):
// each case configures the named operands as tiles of the given types (or a
// predicate tile) at the top tile registers (16 x 16 RowMajor storage, valid
// region 1 x 1; sources defined, their element zero, which every type
// encodes, or the step's "payloads" value), asks the same dispatch gate as
// expect_tile_dispatch_legal, and releases them again.  The type is legal
// when every case passes.
constexpr unsigned kDtypeProbeFirstTile = 56;
constexpr std::uint32_t kProbeSide = 16;
std::string configure_probe_tile(pto::tile::TileFile& f, pto::tile::TileIndex index, const std::string& type) {
  if (type == "predicate") {  // a U8-carrier descriptor: one byte of capacity per element
    f.configure_predicate(index, kProbeSide * kProbeSide, kProbeSide, kProbeSide, 1, 1, 0b0001);
    return "";
  }
  const auto dt = pto::num::data_type_from_name(type);
  if (!dt) return "unknown data type " + type;
  pto::tile::ConfigureRequest r;
  r.capacity_bytes = kProbeSide * kProbeSide * pto::tile::element_bits(*dt) / 8;
  r.columns = kProbeSide;
  r.valid_rows = r.valid_columns = 1;
  r.data_type = *dt;
  r.mask = 0b0001;
  return f.configure(index, r) == pto::arch::FaultCode::Fault_None ? "" : "probe tile of type " + type + " rejected";
}

std::string expect_dtype_legal(Machine& m, const json& s) {
  const auto k = step_kernel(s);
  if (const auto* error = std::get_if<std::string>(&k)) return *error;
  const auto [op, kernel] = std::get<0>(k);
  pto::tile::TileFile& f = tiles(m);
  const json payloads = s.value("payloads", json::object());
  bool legal = true;
  for (const json& c : s["cases"]) {
    json fields = s.value("operands", json::object());
    unsigned next = kDtypeProbeFirstTile;
    for (const auto& [field, type] : c.items()) {
      const auto index = static_cast<pto::tile::TileIndex>(next++);
      if (f.tile(index).allocated()) return fmt::format("probe tile register {} is in use", index);
      if (const std::string error = configure_probe_tile(f, index, type.get<std::string>()); !error.empty())
        return error;
      if (payloads.contains(field)) f.tile(index).write_element(0, 0, num(payloads[field]));
      if (field.starts_with("source")) f.tile(index).mark_valid_region_defined();
      fields[field] = static_cast<unsigned>(index);
    }
    legal = legal && dispatch_gate_passes(m, op, *kernel, dispatch_operands(fields));
    for (unsigned i = kDtypeProbeFirstTile; i < next; ++i) f.release(static_cast<pto::tile::TileIndex>(i));
  }
  return compare(s, s["tile_op"].get<std::string>() + " data-type legality " + s["cases"].dump(), flag(legal));
}

// The descriptor fields ConfigureTile and ConfigureCubeTile share; nullopt
// for an unknown data type name.
std::optional<pto::tile::ConfigureRequest> configure_request(const json& s) {
  const auto dt = pto::num::data_type_from_name(s["data_type"].get<std::string>());
  if (!dt) return std::nullopt;
  pto::tile::ConfigureRequest r;
  r.capacity_bytes = u(s["capacity"]);
  r.valid_rows = u(s["valid_rows"]);
  r.valid_columns = u(s["valid_columns"]);
  r.data_type = *dt;
  r.layout = enum_named<pto::tile::TileLayout>(s["layout"], kLayouts);
  r.location = enum_named<pto::tile::TileLocation>(s["location"], kLocations);
  r.mask = static_cast<pto::tile::PeMask>(u(s["mask"]));
  return r;
}

std::string run_step(Machine& m, const json& s) {
  auto& st = m.state;
  const std::string op = s.at("op");
  if (op == "reset") {
    m.reset();
  } else if (op == "clear_fault") {
    m.clear_fault();
  } else if (op == "set_tpc") {
    st.pc = num(s["value"]);
  } else if (op == "set_bpc") {
    st.bpc = num(s["value"]);
  } else if (op == "set_gpr") {
    st.write_gpr(u(s["reg"]), num(s["value"]));
  } else if (op == "set_pe_gpr") {
    if (u(s["reg"]) != 0) st.gpr[u(s["pe"])][u(s["reg"])] = num(s["value"]);  // WritePEGPR ignores R0
  } else if (op == "store") {
    if (!m.store(num(s["addr"]), u(s["size"]), num(s["value"]))) return "setup store faulted";
  } else if (op == "load") {
    Word v = 0;
    if (!m.load(num(s["addr"]), u(s["size"]), v)) return "load faulted";
    if (s.contains("expect_value") && v != num(s["expect_value"])) return "load got " + hex(v);
  } else if (op == "write_mem") {
    m.memory.write(num(s["addr"]), u(s["size"]), num(s["value"]));
  } else if (op == "begin_bundle") {
    const Word start = s["start_pc"].is_null() ? st.pc : num(s["start_pc"]);
    pto::block::begin_bundle_at(m, start, enum_named<pto::arch::BundleKind>(s["kind"], kKinds),
                                enum_named<pto::arch::BundleTransfer>(s["transfer"], kTransfers), num(s["target"]),
                                num(s["sequential"]), num(s["return_target"]), s["taken"].get<bool>());
  } else if (op == "mem_events_start") {
    m.start_memory_event_capture(u(s["agent"]));
  } else if (op == "mem_events_stop") {
    m.stop_memory_event_capture();
  } else if (op == "mem_events_reset") {
    st.memory_event_count = 0;
  } else if (op == "exec") {
    return exec_step(m, s);
  } else if (op == "configure_tile") {
    auto r = configure_request(s);
    if (!r) return "unknown data type";
    r->columns = u(s["columns"]);
    // The register file derives the physical rows from capacity, columns and
    // type (DerivedTileRows); the helper's explicit "rows" is not installed.
    if (tiles(m).configure(static_cast<pto::tile::TileIndex>(u(s["index"])), *r) != pto::arch::FaultCode::Fault_None) {
      return "ConfigureTile rejected";
    }
  } else if (op == "configure_cube_tile") {
    const auto r = configure_request(s);
    if (!r) return "unknown data type";
    const bool configured = tiles(m).configure_cube(static_cast<pto::tile::TileIndex>(u(s["index"])), *r) ==
                            pto::arch::FaultCode::Fault_None;
    // ConfigureCubeTileForMask's boolean result, when the point asserts it.
    if (s.contains("expect_configured") && s["expect_configured"].get<bool>() != configured)
      return fmt::format("ConfigureCubeTile returned {}", configured);
  } else if (op == "configure_predicate_tile") {  // its ASL asserts are the caller's duty
    tiles(m).configure_predicate(static_cast<pto::tile::TileIndex>(u(s["index"])), u(s["capacity"]), u(s["rows"]),
                                 u(s["columns"]), u(s["valid_rows"]), u(s["valid_columns"]),
                                 static_cast<pto::tile::PeMask>(u(s["mask"])));
  } else if (op == "write_tile_predicate_bit") {
    pto::tile::test::write_predicate_bit(tiles(m).tile(static_cast<pto::tile::TileIndex>(u(s["index"]))), u(s["row"]),
                                         u(s["column"]), s["value"].get<bool>());
  } else if (op == "write_tile_element") {
    tiles(m).tile(static_cast<pto::tile::TileIndex>(u(s["index"]))).write_element(u(s["row"]), u(s["column"]),
                                                                                  num(s["value"]));
  } else if (op == "mark_tile_defined") {
    tiles(m).tile(static_cast<pto::tile::TileIndex>(u(s["index"]))).mark_valid_region_defined();
  } else if (op == "install_shared_tile") {  // InstallSharedTile(s, _Tiles[[i]], mask)
    auto& f = tiles(m);
    if (!pto::tile::atomic_update_shared(f, u(s["shared_id"]), f.tile(static_cast<pto::tile::TileIndex>(u(s["index"]))),
                                         static_cast<pto::tile::PeMask>(u(s["mask"])), true)) {
      return "InstallSharedTile rejected";
    }
  } else if (op == "reset_bundle_control") {
    pto::block::reset_bundle_control(m.state);
  } else if (op == "release_tile") {
    tiles(m).release(static_cast<pto::tile::TileIndex>(u(s["index"])));
  } else if (op == "expect_tile_payload") {  // the stored word, defined or not
    const auto& t = tiles(m).tile(static_cast<pto::tile::TileIndex>(tile_index(m, s)));
    return compare(s, "payload", hex(t.read_word(t.linear_index(u(s["row"]), u(s["column"])))));
  } else if (op == "expect_tile_element" || op == "expect_tile_element_defined") {
    const auto& t = tiles(m).tile(static_cast<pto::tile::TileIndex>(tile_index(m, s)));
    const std::uint32_t e = t.linear_index(u(s["row"]), u(s["column"]));
    const bool defined = t.allocated() && e < t.logical_capacity() && t.element_defined(e);
    if (op == "expect_tile_element_defined") return compare(s, "element definedness", flag(defined));
    if (!defined) return "element is not defined";  // ReadTileElement asserts the element's bit
    // The ASL payload is a Word per element whose bits above the element
    // width depend on how it was written (WriteTileElement keeps them, a
    // handler stores its normalised result); the register file keeps the
    // element's own bits, which are what is compared.
    const unsigned bits = pto::tile::element_bits(t.data_type());
    const Word mask = bits >= 64 ? ~Word{0} : (Word{1} << bits) - 1;
    json want = s;
    want["value"] = hex(num(s["value"]) & mask);
    return compare(want, "element", hex(t.read_raw(e)));
  } else if (op == "expect_tile_dispatch_legal") {
    return expect_dispatch_legal(m, s);
  } else if (op == "expect_tile_linear_index") {  // TileLinearIndex: the slot (row, column) is stored in
    const auto& t = tiles(m).tile(static_cast<pto::tile::TileIndex>(tile_index(m, s)));
    return compare(s, "linear index", hex(t.linear_index(u(s["row"]), u(s["column"]))));
  } else if (op == "expect_tile_dtype_legal") {
    return expect_dtype_legal(m, s);
  } else if (op == "expect_tile_datr_legal" || op == "expect_tile_datr_pad_union") {
    const bool legal = op == "expect_tile_datr_legal";
    const auto got = legal ? pto::test::datr::legal_text(s) : pto::test::datr::pad_union_text(s);
    if (!got) return "unknown tile operation";
    return compare(s, legal ? "B.DATR legality" : "B.DATR pad union", *got);
  } else if (op == "expect_tile") {
    return compare(s, "tile " + s["field"].get<std::string>(), tile_field(tiles(m), tile_index(m, s), s["field"]));
  } else if (op == "expect_shared_tile") {
    return compare(s, "shared tile " + s["field"].get<std::string>(), shared_field(tiles(m).shared(u(s["index"])), s));
  } else if (op == "expect_core_capacity") {
    return compare(s, "core capacity in use", hex(tiles(m).core_capacity_in_use()));
  } else if (op == "expect_tile_binding_count") {
    return compare(s, "tile binding count", hex(binding_count(st.block)));
  } else if (op == "expect_shared_binding_count") {
    unsigned n = 0;
    for (const auto& b : st.block.shared_bindings) n += b.valid ? 1U : 0U;
    return compare(s, "shared binding count", hex(n));
  } else if (op == "expect_tile_stream_terminated") {
    bool closed = false;
    for (const auto& b : st.block.tile_bindings) closed = closed || (b.valid && b.last);
    return compare(s, "binding stream terminated", flag(closed));
  } else if (op == "expect_min_capacity") {  // MinimumTileCapacityBytesForShape
    const auto t = pto::num::data_type_from_name(s["data_type"].get<std::string>());
    if (!t) return "unknown data type";
    return compare(s, "minimum capacity",
                   hex(pto::tile::minimum_capacity_for_shape(u(s["columns"]), u(s["valid_rows"]), u(s["valid_columns"]), *t)));
  } else if (op == "expect_vec_arithmetic_type") {  // TileVecArithmeticDataTypeSupported
    const auto t = pto::num::data_type_from_name(s["data_type"].get<std::string>());
    if (!t) return "unknown data type";
    return compare(s, "vec arithmetic type supported", flag(pto::tile::vec_arithmetic_data_type_supported(*t)));
  } else if (op == "expect_current_pad_value") {  // CurrentBundlePadValue
    return compare(s, "pad value", "TilePad_" + std::string(pto::tile::pad_value_name(pto::tile::current_pad_value(st.block))));
  } else if (op == "expect_current_data_layout") {  // CurrentBundleDataLayout: TileDataLayoutOfCode
    return compare(s, "data layout", current_data_layout(st.block));
  } else if (op == "expect_selected_mask_zero") {  // SelectedBundleTileMaskIsZero: the commit's no-op gate
    return compare(s, "selected tile mask is zero", flag(pto::block::selected_mask_is_zero(st.block)));
  } else if (op == "expect_scalar_binding" || op == "expect_tile_binding" || op == "expect_shared_binding") {
    return compare(s, op.substr(7) + " " + s["field"].get<std::string>(),
                   binding_field(m, op, u(s["index"]), s["field"]));
  } else if (op == "expect_block_record") {
    return compare(s, s["record"].get<std::string>() + " " + s["field"].get<std::string>(),
                   block_record_field(st.block, s["record"], s["field"]));
  } else if (op == "expect_dimension") {
    return compare(s, "dimension", hex(st.block.dimensions[u(s["index"])]));
  } else if (op == "expect_dimension_present") {
    return compare(s, "dimension present", flag(st.block.dimension_present[u(s["index"])]));
  } else if (op == "expect_mem") {
    return compare(s, "memory", hex(m.memory.read(num(s["addr"]), u(s["size"]))));
  } else if (op == "expect_fault") {
    const bool equal = pto::arch::fault_name(st.last_fault) == s["fault"].get<std::string>();
    if (equal == s.value("negate", false)) return fmt::format("fault {}", pto::arch::fault_name(st.last_fault));
  } else if (op == "expect_fault_address") {
    return compare(s, "fault address", hex(st.fault_address));
  } else if (op == "record_fp_flags") {  // RecordNumericStatusFlags: sticky OR into CORE_STATE[36:32]
    st.sysregs.core_state |= (num(s["value"]) & 0x1F) << pto::arch::kCoreStateFlagsShift;
  } else if (op == "expect_fp_flags") {
    return compare(s, "fp flags", hex(fp_flags(m)));
  } else if (op == "expect_tpc") {
    return compare(s, "tpc", hex(st.pc));
  } else if (op == "expect_bpc") {
    return compare(s, "bpc", hex(st.bpc));
  } else if (op == "expect_gpr") {
    return compare(s, "gpr", hex(st.read_gpr(u(s["reg"]))));
  } else if (op == "expect_pe_gpr") {
    return compare(s, "pe gpr", hex(st.gpr[u(s["pe"])][u(s["reg"])]));
  } else if (op == "expect_bundle_state") {
    const std::string f = s["field"];
    const bool got = f == "active"              ? st.block.bundle_active
                     : f == "body_active"       ? st.block.bundle_body_active
                     : f == "commit_target_set" ? st.block.commit_target_set
                                                : st.block.condition_set;
    return compare(s, "bundle " + f, flag(got));
  } else if (op == "expect_mem_event_count") {
    if (st.memory_event_count != num(s["count"])) return fmt::format("event count {}", st.memory_event_count);
  } else if (op == "expect_mem_event") {
    const json& v = s["value"];
    const std::string want = v.is_string() && !v.get<std::string>().starts_with("0x") ? v.get<std::string>()
                             : v.is_boolean()                                        ? flag(v.get<bool>())
                                                                                     : hex(num(v));
    const std::string got = event_field(st.memory_events[u(s["index"])], s["field"]);
    if (got != want && !(want == "True" && got == "true") && !(want == "False" && got == "false")) {
      return fmt::format("event {} {} = {}", u(s["index"]), s["field"].get<std::string>(), got);
    }
  } else if (op == "expect_no_form") {
    const std::string failure = no_form_step(s);
    if (s.value("negate", false)) return failure.empty() ? "decodes to no form of the surface" : "";
    return failure;
  } else {
    return "unknown step op " + op;
  }
  return "";
}

// The reads a snapshot step may record (resolve_snapshots).
std::optional<Word> observe(Machine& m, const json& s) {
  if (s.at("op") == "expect_fp_flags") return fp_flags(m);
  return std::nullopt;
}

class SpecBundleVector : public ::testing::TestWithParam<std::size_t> {};

TEST_P(SpecBundleVector, Matches) {
  const json& v = bundle_vectors()[GetParam()];
  if (v.contains("known_divergence")) {
    GTEST_SKIP() << v["avs_id"].get<std::string>() << ": known model divergence: " << v["known_divergence"].get<std::string>();
  }
  check_vector(v, run_step, observe);
}

INSTANTIATE_TEST_SUITE_P(AVS, SpecBundleVector, ::testing::ValuesIn(indices(bundle_vectors())),
                         vector_name<bundle_vectors>);
TEST(SpecBundleVectors, FilePresent) { EXPECT_GE(bundle_vectors().size(), 326U); }

// Negative twins of bundle fault points, written by tools/make_fault_twins.py
// (tests/data/spec_bundle_fault_twins.json; docs/conformance.md "Negative
// twins"): the point's steps made legal, expected to execute with the
// result the operation's contract gives.
const json& bundle_fault_twins() {
  static const json v = load_vectors("spec_bundle_fault_twins.json");
  return v;
}
class SpecBundleFaultTwin : public ::testing::TestWithParam<std::size_t> {};
TEST_P(SpecBundleFaultTwin, LegalBundleDoesNotFault) { check_vector(bundle_fault_twins()[GetParam()], run_step, observe); }
INSTANTIATE_TEST_SUITE_P(AVS, SpecBundleFaultTwin, ::testing::ValuesIn(indices(bundle_fault_twins())),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           std::string n = bundle_fault_twins()[info.param]["avs_id"];
                           for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n + "_TWIN";
                         });
TEST(SpecBundleFaultTwins, FilePresent) { EXPECT_GE(bundle_fault_twins().size(), 43U); }

}  // namespace
