#include "block/bundle_engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>

#include "tile/cube_transport.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/ops_tlsu.hpp"
#include "tile/tile_contracts.hpp"
#include "tile/tile_render.hpp"

namespace pto::block {
namespace {

using arch::BlockState;
using arch::FaultCode;
using arch::Machine;
using scalar::ExecOutcome;
using tile::TileIndex;

// The machine's data memory for TLOAD/TSTORE: DataAccessPermitted for the
// current ACR; alignment is the kernel's element-order check.
class MachineTilePort final : public tile::TileMemoryPort {
 public:
  explicit MachineTilePort(Machine& m) : m_(m) {}
  FaultCode check(std::uint64_t address, std::uint64_t size, bool) const override {
    return m_.memory.access_permitted(address, size, m_.state.current_acr) ? FaultCode::Fault_None : FaultCode::Fault_DataPage;
  }
  void read(std::uint64_t address, std::span<std::byte> out) override {
    m_.memory.read_bytes(address, {reinterpret_cast<std::uint8_t*>(out.data()), out.size()});
  }
  void write(std::uint64_t address, std::span<const std::byte> in) override {
    m_.memory.write_bytes(address, {reinterpret_cast<const std::uint8_t*>(in.data()), in.size()});
    m_.clear_overlapping_reservation(address, in.size());  // StoreTileMemoryElement -> StoreTranslated
  }
  std::byte* in_place(std::uint64_t address, std::uint64_t size, bool write) override {
    return reinterpret_cast<std::byte*>(m_.memory.in_place_range(address, size, write));
  }
  void wrote_in_place(std::uint64_t address, std::uint64_t size) override {
    m_.clear_overlapping_reservation(address, size);
  }
  // TLSU element accesses: memory events of PE `agent` in CurrentBundleMemoryOrder.
  std::uint64_t load_element(unsigned agent, std::uint64_t address, unsigned size) override {
    const AgentScope scope(m_, agent);
    return m_.read_probed(address, size, order());
  }
  void store_element(unsigned agent, std::uint64_t address, unsigned size, std::uint64_t value) override {
    const AgentScope scope(m_, agent);
    m_.write_probed(address, size, value, order());
  }
  std::uint64_t compare_and_swap(unsigned agent, std::uint64_t address, unsigned size, std::uint64_t expected,
                                 std::uint64_t replacement) override {
    const AgentScope scope(m_, agent);
    const std::uint64_t old = m_.memory.read(address, size);
    const std::uint64_t width_mask = size == 8 ? ~0ULL : (1ULL << (8 * size)) - 1;
    const bool swapped = old == (expected & width_mask);  // NormalizeMemoryAccessValue on both sides
    if (swapped) {  // MGATHER_CAS stores through StoreTileMemoryElement (atomics.asl)
      m_.memory.write(address, size, replacement);
      m_.clear_overlapping_reservation(address, size);
    }
    m_.record_atomic(address, size, old, replacement, order(), swapped);  // RecordAtomicEvent
    return old;
  }
  // TLOAD / TSTORE go element-wise while events are captured; their
  // RecordLoadEvent / RecordStoreEvent name _CurrentMemoryAgent (load-store.asl).
  bool capturing_events() const override { return m_.state.memory_event_capture; }
  unsigned event_agent() const override { return m_.state.current_pe; }

 private:
  // The events of an access name its agent (RecordLoadEventForAgent).
  struct AgentScope {
    AgentScope(Machine& m, unsigned agent) : m_(m), saved_(m.state.current_pe) {
      m.state.current_pe = static_cast<std::uint8_t>(agent);
    }
    ~AgentScope() { m_.state.current_pe = saved_; }
    AgentScope(const AgentScope&) = delete;
    AgentScope& operator=(const AgentScope&) = delete;
    Machine& m_;
    std::uint8_t saved_;
  };
  // CurrentBundleMemoryOrder (B.CATR aq/rl).
  arch::MemoryOrder order() const {
    const arch::BundleControlAttributes& c = m_.state.block.control_attributes;
    return c.acquire && c.release ? arch::MemoryOrder::AcquireRelease
           : c.acquire            ? arch::MemoryOrder::Acquire
           : c.release            ? arch::MemoryOrder::Release
                                  : arch::MemoryOrder::Relaxed;
  }
  Machine& m_;
};

static_assert(tile::kModelTileElementsMax == arch::kModelTileElementsMax, "one PTO_MODEL_TILE_ELEMENTS maximum");

// ---- operand schema (asl/block/model/dispatch/scalar-schema.asl) ----

// The operand fields the engine asks about on every bundle, and per
// operation the set of them its catalog entry lists (a catalog scan compares
// C strings, a strlen each).  Callers name a field by its enumerator, so a
// question is one bit test.
enum class Operand : std::uint8_t {
  destination0, destination1, source0, source1, source2, source3, source4,
  address, scalar0, scalar1, diagonal, flag0
};
constexpr std::array<std::string_view, 12> kOperandFields{
    "destination0", "destination1", "source0", "source1", "source2", "source3",
    "source4",      "address",      "scalar0", "scalar1", "diagonal", "flag0"};

bool listed_operand(isa::TileOp op, std::string_view field) {
  for (const isa::TileOperandRole& r : isa::operands_of(isa::tile_op(op)))
    if (field == r.field) return true;
  return false;
}

// Bit i: kOperandFields[i]; kOperandSetKnown marks an operation's set as
// computed.  Each set is computed on the operation's first bundle, not for
// all operations at once (issue 18: start-up); relaxed atomics suffice as
// every thread computes the same value.
using OperandFieldSet = std::uint16_t;
constexpr OperandFieldSet kOperandSetKnown = 0x8000;
static_assert(kOperandFields.size() < 15);

constexpr OperandFieldSet operand_bit(Operand f) { return static_cast<OperandFieldSet>(1U << static_cast<unsigned>(f)); }
constexpr OperandFieldSet kDestinationOperands = operand_bit(Operand::destination0) | operand_bit(Operand::destination1);
constexpr OperandFieldSet kSourceOperands = operand_bit(Operand::source0) | operand_bit(Operand::source1) |
                                            operand_bit(Operand::source2) | operand_bit(Operand::source3) |
                                            operand_bit(Operand::source4);

OperandFieldSet operand_field_set(isa::TileOp op) {
  static std::array<std::atomic<OperandFieldSet>, isa::kTileOpCount> sets{};
  std::atomic<OperandFieldSet>& cached = sets[static_cast<std::size_t>(op)];
  OperandFieldSet set = cached.load(std::memory_order_relaxed);
  if (set & kOperandSetKnown) return set;
  set = kOperandSetKnown;
  for (std::size_t i = 0; i < kOperandFields.size(); ++i)
    if (listed_operand(op, kOperandFields[i])) set = static_cast<OperandFieldSet>(set | (1U << i));
  cached.store(set, std::memory_order_relaxed);
  return set;
}

bool operand_present(isa::TileOp op, Operand field) { return (operand_field_set(op) & operand_bit(field)) != 0; }

unsigned operands_present(isa::TileOp op, OperandFieldSet fields) {
  return static_cast<unsigned>(std::popcount(static_cast<unsigned>(operand_field_set(op) & fields)));
}

// ADR 0055/0058: B.IOR inputs pack densely in this architectural order.
constexpr std::array<Operand, 5> kGprInputOrder{Operand::address, Operand::scalar0, Operand::scalar1, Operand::diagonal,
                                                Operand::flag0};
constexpr OperandFieldSet kGprInputs = operand_bit(Operand::address) | operand_bit(Operand::scalar0) |
                                       operand_bit(Operand::scalar1) | operand_bit(Operand::diagonal) |
                                       operand_bit(Operand::flag0);

unsigned gpr_input_count(isa::TileOp op) { return operands_present(op, kGprInputs); }

// BundleOperationGPRInputSlot: 3 when the operation does not consume `field`.
unsigned gpr_input_slot(isa::TileOp op, Operand field) {
  unsigned slot = 0;
  for (Operand f : kGprInputOrder) {
    if (!operand_present(op, f)) continue;
    if (f == field) return slot;
    ++slot;
  }
  return 3;
}

// BundleOperationGPRInputSelector.
unsigned gpr_input_selector(const BlockState& b, unsigned slot) {
  const arch::BundleScalarBinding& s = b.scalar_bindings[0];
  if (!s.valid) return 0;
  return slot == 0 ? s.source0 : slot == 1 ? s.source1 : s.source2;
}

std::uint64_t read_input(const Machine& m, isa::TileOp op, Operand field) {
  return m.state.read_gpr(gpr_input_selector(m.state.block, gpr_input_slot(op, field)));
}

// BundleOperationScalarBindingSchemaLegal: unconsumed RegSrc and RegDst are zero.
bool scalar_binding_schema_legal(const BlockState& b, isa::TileOp op) {
  const arch::BundleScalarBinding& s = b.scalar_bindings[0];
  if (!s.valid) return true;
  const unsigned inputs = gpr_input_count(op);
  if ((inputs < 3 && s.source2 != 0) || (inputs < 2 && s.source1 != 0) || (inputs < 1 && s.source0 != 0)) return false;
  return s.destination == 0;
}

// BundleOperationBindingsComplete (non-matrix: the dedicated path takes Matrix).
bool bindings_complete(const BlockState& b, isa::TileOp op) {
  if (b.fixed_point_attributes.valid) return false;
  unsigned destinations = 0, sources = 0;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    destinations += t.destination_valid;
    sources += unsigned{t.source0_valid} + unsigned{t.source1_valid};
  }
  if (destinations != operands_present(op, kDestinationOperands) || sources != operands_present(op, kSourceOperands))
    return false;
  if (tile::tile_binding_count(b) > 0 && !tile::stream_terminated(b)) return false;
  return scalar_binding_schema_legal(b, op);
}

// BundleOperationGPRBindingValuesLegal (flag0 is 0/1, diagonal in ±65535).
// TQUANT/TDEQUANT scale rules belong to their kernels' issue.
bool gpr_binding_values_legal(const Machine& m, isa::TileOp op) {
  if (!m.state.block.scalar_bindings[0].valid) return true;
  if (gpr_input_count(op) > 3) return false;
  if (operand_present(op, Operand::flag0) && read_input(m, op, Operand::flag0) > 1) return false;
  if (operand_present(op, Operand::diagonal)) {
    const auto v = static_cast<std::int64_t>(read_input(m, op, Operand::diagonal));
    if (v < -65535 || v > 65535) return false;
  }
  return true;
}

}  // namespace

bool selected_mask_is_zero(const BlockState& b) {
  bool seen = false;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    seen = true;
    if (t.pe_mask != 0) return false;
  }
  return seen || (b.zero_participation_seen && tile::tile_binding_count(b) == 0 && tile::shared_binding_count(b) == 0);
}

namespace {

// SelectedBundleTileMasksLegal: one PE mask for every binding.
bool masks_legal(const BlockState& b) {
  std::optional<std::uint8_t> first;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    if (first && *first != t.pe_mask) return false;
    first = t.pe_mask;
  }
  return true;
}

// ---- destinations (asl/block/model/dispatch/destination-shape.asl) ----

struct Shape {
  std::uint32_t valid_rows, valid_columns, columns;
};

std::optional<TileIndex> shape_source(const BlockState& b) {
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    if (t.source0_valid) return t.source0;
    if (t.source1_valid) return t.source1;
  }
  return std::nullopt;
}

// BundleDestinationValidRows/ValidColumns/PhysicalColumns (Local sources;
// the Shared fallback belongs to the Shared paths this model lacks).
Shape derived_shape(const BlockState& b, const tile::TileFile& f, std::optional<TileIndex> source) {
  const tile::TileDescriptor* sd =
      source && f.descriptor_configured(*source) ? &f.tile(*source).descriptor() : nullptr;
  const auto dim = [&](unsigned i) { return static_cast<std::uint32_t>(b.dimensions[i]); };
  const auto positive = [&](unsigned i) { return b.dimensions[i] >= 1 && b.dimensions[i] <= 65535; };
  const std::uint32_t valid_columns = positive(0) ? dim(0) : sd ? sd->valid_columns : 1;
  const std::uint32_t valid_rows = positive(1) ? dim(1) : sd ? sd->valid_rows : 1;
  const std::uint32_t columns = positive(2) ? dim(2) : sd ? sd->columns : valid_columns;
  return {valid_rows, valid_columns, columns};
}

// ResolveBundlePredicateDestination (TCMP/TCMPS): the first destination
// binding gets a predicate tile shaped like its source0; the storage checks
// were made by the kernel's plan (tile::ops::predicate_destination).
FaultCode resolve_predicate_destination(BlockState& b, tile::TileFile& f, std::vector<std::uint8_t>& allocated) {
  arch::BundleTileBinding* binding = nullptr;
  for (arch::BundleTileBinding& t : b.tile_bindings)
    if (binding == nullptr && t.valid && t.destination_valid) binding = &t;
  if (binding == nullptr) return FaultCode::Fault_BundleControl;
  const std::uint32_t capacity = tile::size_code_bytes(binding->destination_size);
  if (f.core_capacity_in_use() + tile::core_allocation_bytes(binding->pe_mask, capacity) > f.capacity_limit())
    return FaultCode::Fault_TileAllocation;
  std::optional<TileIndex> resolved;
  for (unsigned offset = 0; offset < tile::kTilesPerHand && !resolved; ++offset) {
    const auto index = static_cast<TileIndex>(binding->destination_hand * tile::kTilesPerHand + offset);
    if (!f.tile(index).allocated()) resolved = index;
  }
  if (!resolved) return FaultCode::Fault_TileAllocation;
  const tile::TileDescriptor& s = f.tile(binding->source0).descriptor();
  // ConfigurePredicateTileForMask: assert rows * columns <= PTO_MODEL_TILE_ELEMENTS.
  if (!f.within_model_tile_elements(std::uint64_t{s.rows} * s.columns)) return FaultCode::Fault_ModelTileElements;
  f.configure_predicate(*resolved, capacity, s.rows, s.columns, s.valid_rows, s.valid_columns, binding->pe_mask);
  binding->destination = *resolved;
  binding->destination_allocated_by_bundle = true;
  allocated.push_back(*resolved);
  return FaultCode::Fault_None;
}

// ResolveBundleTileDestinationsWithShapeAndType (non-matrix): rename each
// destination hand to its first free index, check the capacity budget and
// every derived descriptor, then allocate all or nothing.
FaultCode resolve_destinations(BlockState& b, tile::TileFile& f, const tile::DestinationPlan& plan,
                           std::vector<std::uint8_t>& allocated) {
  if (plan.fault != FaultCode::Fault_None) return plan.fault;
  if (plan.predicate) return resolve_predicate_destination(b, f, allocated);
  auto effective = tile::effective_data_type(b);
  if (!effective) effective = plan.inferred_type;  // ResolveBundleEffectiveDataType: TMOV source inference
  if (!effective) return FaultCode::Fault_TileLegality;
  std::array<bool, tile::kTileRegisterCount> reserved{};
  std::array<TileIndex, arch::kBundleTileBindingCount> resolved{};
  std::uint64_t required = 0;
  const auto pending = [](const arch::BundleTileBinding& t) {
    return t.valid && t.destination_valid && !t.destination_allocated_by_bundle;
  };
  for (unsigned i = 0; i < arch::kBundleTileBindingCount; ++i) {
    const arch::BundleTileBinding& t = b.tile_bindings[i];
    if (!pending(t)) continue;
    required += tile::core_allocation_bytes(t.pe_mask, tile::size_code_bytes(t.destination_size));
    bool found = false;
    for (unsigned offset = 0; offset < tile::kTilesPerHand && !found; ++offset) {
      const auto index = static_cast<TileIndex>(t.destination_hand * tile::kTilesPerHand + offset);
      if (!f.tile(index).allocated() && !reserved[index]) {
        resolved[i] = index;
        reserved[index] = found = true;
      }
    }
    if (!found) return FaultCode::Fault_TileAllocation;
  }
  if (f.core_capacity_in_use() + required > f.capacity_limit()) return FaultCode::Fault_TileAllocation;
  const Shape shape = plan.explicit_shape ? Shape{plan.valid_rows, plan.valid_columns, plan.columns}
                                          : derived_shape(b, f, shape_source(b));
  std::vector<std::pair<unsigned, tile::ConfigureRequest>> requests;
  for (unsigned i = 0; i < arch::kBundleTileBindingCount; ++i) {
    const arch::BundleTileBinding& t = b.tile_bindings[i];
    if (!pending(t)) continue;
    tile::ConfigureRequest r;
    r.capacity_bytes = tile::size_code_bytes(t.destination_size);
    r.columns = shape.columns;
    r.valid_rows = shape.valid_rows;
    r.valid_columns = shape.valid_columns;
    r.data_type = requests.empty() ? plan.primary_type.value_or(*effective) : tile::DataType::U32;
    r.layout = tile::bundle_tile_layouts(b).destination;  // CurrentBundleTileLayout (destination-shape.asl)
    r.mask = t.pe_mask;
    if (!tile::descriptor_shape_legal(r.capacity_bytes, r.columns, r.valid_rows, r.valid_columns, r.data_type))
      return FaultCode::Fault_TileAllocation;
    requests.emplace_back(i, r);
  }
  for (const auto& [i, r] : requests) {
    static_cast<void>(f.configure(resolved[i], r));  // legality and capacity checked above for the group
    b.tile_bindings[i].destination = resolved[i];
    b.tile_bindings[i].destination_allocated_by_bundle = true;
    allocated.push_back(resolved[i]);
  }
  return FaultCode::Fault_None;
}

// RollBackBundleTileDestinations.
void roll_back_destinations(BlockState& b, tile::TileFile& f) {
  for (arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid || !t.destination_allocated_by_bundle) continue;
    f.release(t.destination);
    t.destination = t.destination_hand;
    t.destination_allocated_by_bundle = false;
  }
}

// ---- operands (BundleTileInstructionOperands) ----

tile::NumericSelection decode_rounding_selection(const arch::BundleDataAttributes& d) {
  // DecodeBundleRoundingSelection: 000 = operation default, 001 = RNE.
  constexpr std::array<num::RoundingMode, 8> kModes{num::RoundingMode::RNE, num::RoundingMode::RNE, num::RoundingMode::RTZ,
                                                    num::RoundingMode::RTM, num::RoundingMode::RTP, num::RoundingMode::RNA,
                                                    num::RoundingMode::RTO, num::RoundingMode::RHB};
  return {d.rounding_mode == 0, kModes[d.rounding_mode & 7U], d.saturating};
}

tile::TileOperands bundle_operands(const Machine& m, isa::TileOp op, const tile::TileFile& f) {
  const BlockState& b = m.state.block;
  tile::TileOperands o;
  unsigned destinations = 0, sources = 0;
  for (const arch::BundleTileBinding& t : b.tile_bindings) {
    if (!t.valid) continue;
    if (t.destination_valid && destinations < o.destination.size()) o.destination[destinations++] = t.destination;
    if (t.source0_valid && sources < o.source.size()) o.source[sources++] = t.source0;
    if (t.source1_valid && sources < o.source.size()) o.source[sources++] = t.source1;
  }
  const bool bound = b.scalar_bindings[0].valid;
  if (operand_present(op, Operand::address) && bound) o.address = read_input(m, op, Operand::address);
  if (operand_present(op, Operand::scalar0)) {
    if (bound) {
      o.scalar0 = read_input(m, op, Operand::scalar0);
    } else if (op == isa::TileOp::TQUANT || op == isa::TileOp::TDEQUANT) {
      o.scalar0 = 0x3f800000;  // FP32 1.0
    } else if (op == isa::TileOp::TLOAD || op == isa::TileOp::TSTORE) {
      // ADR 0074 omission default: dense byte pitch of the physical columns.
      const bool tstore = op == isa::TileOp::TSTORE;
      const Shape s = derived_shape(b, f, tstore ? std::optional<TileIndex>(o.source[0]) : std::nullopt);
      o.scalar0 = tile::dense_row_stride_bytes(s.columns, *tile::operation_data_type(b));
    } else if (operand_present(op, Operand::address)) {
      o.scalar0 = b.dimensions[2];
    }
  }
  if (operand_present(op, Operand::scalar1) && bound) o.scalar1 = read_input(m, op, Operand::scalar1);
  if (operand_present(op, Operand::diagonal) && bound) o.diagonal = static_cast<std::int32_t>(read_input(m, op, Operand::diagonal));
  if (operand_present(op, Operand::flag0) && bound) o.flag0 = read_input(m, op, Operand::flag0) == 1;
  const std::uint64_t d0 = b.dimensions[0], d1 = b.dimensions[1], d2 = b.dimensions[2];
  if (d0 <= 65535) {
    o.natural0 = static_cast<std::uint32_t>(d0);
    if (d0 != 0) o.positive0 = o.natural0;
  }
  if (d1 <= 65535) {
    o.natural1 = static_cast<std::uint32_t>(d1);
    if (d1 != 0) o.positive1 = o.natural1;
  }
  if (d2 >= 1 && d2 <= 65535) o.positive2 = static_cast<std::uint32_t>(d2);
  if (d0 <= 262144) o.byte_count = static_cast<std::uint32_t>(d0);
  if (d0 >= 1 && d0 <= 64) o.sort_width = static_cast<std::uint8_t>(d0);
  o.selected_byte = static_cast<std::uint8_t>(b.data_attributes.pad_value & 3U);
  const unsigned cmode = b.data_attributes.comparison_mode;
  o.comparison = cmode <= 5 ? static_cast<tile::TileComparison>(cmode) : tile::TileComparison::EQ;
  o.numeric_control = decode_rounding_selection(b.data_attributes);
  return o;
}

// "TADD.FP16": the operation and its data type, into `out` (its storage reused).
void label_operation(std::string& out, const BlockState& b, isa::TileOp op) {
  const auto t = tile::operation_data_type(b);
  out.assign(isa::tile_op(op).name).append(".").append(t ? num::name(*t) : std::string_view("NONE"));
}

// ---- the commit ----

struct Attempt {
  Machine& m;
  TileMachineState& tiles;
  isa::TileOp op;

  ExecOutcome fail(FaultCode f, std::uint64_t data_address = 0, bool address_is_data = false) {
    if (f == FaultCode::Fault_ModelTileElements) return model_tile_elements_exceeded();
    roll_back_destinations(m.state.block, tiles.file);
    tiles.trace.outcome = std::string(arch::fault_name(f));
    return m.set_fault(f, address_is_data ? data_address : m.state.pc);
  }
  ExecOutcome not_implemented(std::string_view what) {
    tiles.trace.outcome = fmt::format("not implemented in this model: {}", what);
    return ExecOutcome::NotImplemented;
  }
  // The ASL model fails an assertion on PTO_MODEL_TILE_ELEMENTS, so the run
  // stops here as a model limit, never as an architectural fault
  // (docs/semantics-notes.md); the renamed destinations are rolled back.
  ExecOutcome model_tile_elements_exceeded() {
    roll_back_destinations(m.state.block, tiles.file);
    tiles.trace.outcome = fmt::format(
        "not implemented in this model: {} needs tile element slots beyond PTO_MODEL_TILE_ELEMENTS = {} "
        "(the ASL model's assertion fails)",
        tiles.trace.operation, tiles.file.model_tile_elements());
    return ExecOutcome::NotImplemented;
  }
  ExecOutcome no_op() {
    tiles.trace.zero_mask_no_op = true;
    tiles.trace.outcome = "ok";
    return ExecOutcome::Next;
  }
};

// BundleCubeMatrixSelected: a TileMatrix block with an assigned Function.
bool cube_matrix_selected(const BlockState& b) {
  return b.operation.valid && b.operation.operation_class == arch::BundleOperationClass::TileMatrix &&
         b.operation.selector_valid && tile::matrix_function_assigned(b.operation.selector & 31U);
}

// ExecuteBundleTMATMULOperation (asl/block/model/dispatch/cube-tmatmul.asl):
// the B.FPATR schema, preflight and atomic output group live in
// tile/ops_matrix.cpp; this side reads RegSrc0..2 and reports the outcome.
ExecOutcome run_matrix(Attempt& a) {
  BlockState& b = a.m.state.block;
  const arch::BundleScalarBinding& s = b.scalar_bindings[0];
  std::array<std::uint64_t, 3> inputs{};
  if (s.valid) inputs = {a.m.state.read_gpr(s.source0), a.m.state.read_gpr(s.source1), a.m.state.read_gpr(s.source2)};
  const tile::MatrixBundleResult r =
      tile::execute_matrix_bundle(b, a.tiles.file, inputs, a.tiles.profile, a.tiles.trace.destinations);
  if (r.no_op) return a.no_op();
  if (r.fault != FaultCode::Fault_None) return a.fail(r.fault);
  a.m.state.sysregs.core_state |= static_cast<arch::Word>(r.flags & 0x1FU) << arch::kCoreStateFlagsShift;
  for (const arch::BundleSharedBinding& s : b.shared_bindings)
    if (s.valid) a.tiles.trace.shared_bindings.push_back(s);  // consumed Shared operands
  a.tiles.trace.elements_written = r.elements_written;
  a.tiles.trace.outcome = "ok";
  return ExecOutcome::Next;
}

// The engine's side of the dedicated TLSU paths (tile/ops_tlsu.hpp).
class TlsuHost final : public tile::TlsuBundleHost {
 public:
  explicit TlsuHost(Attempt& a) : a_(a), port_(a.m) {}
  bool bindings_complete(isa::TileOp op) const override { return block::bindings_complete(state(), op); }
  bool scalar_binding_schema_legal(isa::TileOp op) const override {
    return block::scalar_binding_schema_legal(state(), op);
  }
  bool gpr_binding_values_legal(isa::TileOp op) const override { return block::gpr_binding_values_legal(a_.m, op); }
  bool masks_legal() const override { return block::masks_legal(state()); }
  bool mask_is_zero() const override { return selected_mask_is_zero(state()); }
  FaultCode resolve_destinations(const tile::DestinationPlan& plan) override {
    return block::resolve_destinations(a_.m.state.block, a_.tiles.file, plan, a_.tiles.trace.destinations);
  }
  std::uint64_t read_pe_gpr(unsigned pe, unsigned selector) const override { return a_.m.state.gpr[pe][selector]; }
  unsigned current_pe() const override { return a_.m.state.current_pe; }
  tile::TileMemoryPort& memory() override { return port_; }

 private:
  const BlockState& state() const { return a_.m.state.block; }
  Attempt& a_;
  MachineTilePort port_;
};

// GMOV, MGATHER*, MSCATTER*, TPREFETCH and the Shared TLSU paths.
ExecOutcome run_tlsu(Attempt& a) {
  TlsuHost host(a);
  const tile::TlsuBundleResult r = tile::execute_tlsu_bundle(a.m.state.block, a.tiles.file, a.op, host);
  if (r.no_op) return a.no_op();
  if (r.fault != FaultCode::Fault_None) return a.fail(r.fault, r.fault_address, r.fault_address_is_data);
  for (const arch::BundleSharedBinding& s : a.m.state.block.shared_bindings)
    if (s.valid) a.tiles.trace.shared_bindings.push_back(s);
  a.tiles.trace.elements_written = r.elements_written;
  a.tiles.trace.outcome = "ok";
  return ExecOutcome::Next;
}

// ExecuteBundleCubeTransportOperation (tlsu-layout-conversion.asl): TLOAD
// or TSTORE with a B.DATR CUBE conversion Layout (tile/cube_transport.cpp).
ExecOutcome run_cube_transport(Attempt& a) {
  BlockState& b = a.m.state.block;
  if (selected_mask_is_zero(b)) return a.no_op();
  const bool generic = bindings_complete(b, a.op) && gpr_binding_values_legal(a.m, a.op) && masks_legal(b);
  const arch::BundleScalarBinding& s = b.scalar_bindings[0];
  MachineTilePort port(a.m);
  const tile::CubeTransportResult r =
      tile::execute_cube_transport(b, a.tiles.file, port, generic, a.m.state.read_gpr(s.source0),
                                   a.m.state.read_gpr(s.source1), a.tiles.trace.destinations);
  if (r.fault != FaultCode::Fault_None) return a.fail(r.fault, r.fault_address, r.fault_address_is_data);
  a.tiles.trace.elements_written = r.elements_written;
  a.tiles.trace.outcome = "ok";
  return ExecOutcome::Next;
}

// The B.IOR inputs the closed schemas read before allocation
// (SelectedBundleTileScalarRawValue, BundleSortingDescending).
tile::SchemaView schema_view(const Machine& m, isa::TileOp op, const tile::TileFile& f) {
  const BlockState& b = m.state.block;
  tile::SchemaView view{b, f};
  if (!b.scalar_bindings[0].valid) return view;
  view.scalar_raw = m.state.read_gpr(b.scalar_bindings[0].source0);
  view.descending = operand_present(op, Operand::flag0) && read_input(m, op, Operand::flag0) == 1;
  return view;
}

// TileStorageIndex / TilePackedCarrierIndex over every element the
// destinations' TileWithPadding reaches: each renamed Local destination and
// each Shared register the bundle bound has a payload slot below
// PTO_MODEL_TILE_ELEMENTS.  Local sources were destinations of earlier commits.
bool destinations_representable(const TileMachineState& tiles) {
  const tile::TileFile& f = tiles.file;
  return std::ranges::all_of(tiles.trace.destinations, [&](std::uint8_t d) { return f.payload_representable(d); }) &&
         std::ranges::all_of(tiles.trace.shared_bindings, [&](const arch::BundleSharedBinding& s) {
           return f.payload_representable(f.shared(s.shared_id).tile.descriptor());
         });
}

ExecOutcome run_generic(Attempt& a) {
  Machine& m = a.m;
  BlockState& b = m.state.block;
  tile::TileFile& f = a.tiles.file;
  BundleTrace& trace = a.tiles.trace;
  const isa::TileOp op = a.op;
  if (b.zero_participation_seen && tile::tile_binding_count(b) == 0 && tile::shared_binding_count(b) == 0)
    return a.no_op();
  if (tile::cube_transport_selected(b)) return run_cube_transport(a);  // before the Matrix path, as the ASL
  if (cube_matrix_selected(b)) return run_matrix(a);
  if (tile::tlsu_dedicated_path(b, op)) return run_tlsu(a);
  if (tile::shared_binding_count(b) > 0) return a.fail(FaultCode::Fault_TileLegality);  // BundleSharedBindingsUnconsumed
  // A TileMatrix block that is not BundleCubeMatrixSelected has a Function
  // without a CUBE operation: DecodeTileOperation fails (tile-execution.asl).
  if (b.operation.operation_class == arch::BundleOperationClass::TileMatrix) return a.fail(FaultCode::Fault_IllegalInstruction);
  if (selected_mask_is_zero(b)) return a.no_op();  // PE_MASK=0000: no read, fault or effect (ADR 0096)
  const tile::TileKernel* kernel = tile::tile_kernel_table().get(op);
  if (kernel == nullptr) return a.not_implemented(isa::tile_op(op).name);
  if (!bindings_complete(b, op)) return a.fail(FaultCode::Fault_BundleControl);  // includes B.FPATR outside Matrix
  if (!gpr_binding_values_legal(m, op) || !tile::datr_fields_legal(op, b)) return a.fail(FaultCode::Fault_TileLegality);
  if (kernel->schema_legal != nullptr && !kernel->schema_legal(schema_view(m, op, f))) return a.fail(FaultCode::Fault_TileLegality);
  if (!masks_legal(b)) return a.fail(FaultCode::Fault_TileLegality);
  const tile::DestinationPlan plan = (kernel->destinations ? kernel->destinations : tile::default_destinations)(b, f);
  if (const FaultCode fault = resolve_destinations(b, f, plan, trace.destinations); fault != FaultCode::Fault_None)
    return a.fail(fault);
  const tile::TileOperands operands = bundle_operands(m, op, f);
  const std::uint8_t defined = tile::generic_defined_sources(op);
  for (unsigned i = 0; i < operands.source.size(); ++i) {
    if (!((defined >> i) & 1U)) continue;
    trace.sources.push_back(operands.source[i]);
    if (!f.source_contents_defined(operands.source[i])) return a.fail(FaultCode::Fault_TileLegality);  // ADR 0014
  }
  if (operand_present(op, Operand::address)) trace.scalar_inputs = {operands.address, operands.scalar0};
  if (!kernel->operands_legal(f, operands, b)) return a.fail(FaultCode::Fault_TileLegality);
  MachineTilePort port(m);
  tile::TileExecutionContext context{f,
                                     port,
                                     b,
                                     operands,
                                     tile::current_pad_value(b),
                                     b.data_attributes_present && b.data_attributes.canonicalize,
                                     a.tiles.profile};
  const tile::TileResult result = kernel->execute(context);
  if (!result.ok()) return a.fail(result.fault, result.fault_address, result.fault_address_is_data);
  // RecordNumericStatusFlags inside the semantic handler (after its checks,
  // with its destination publication): sticky OR into CORE_STATE[36:32].
  m.state.sysregs.core_state |= static_cast<arch::Word>(result.flags & 0x1FU) << arch::kCoreStateFlagsShift;
  trace.elements_written = result.elements_written;
  trace.outcome = "ok";
  return ExecOutcome::Next;
}

}  // namespace

TileMachineState& tile_state(Machine& m) {
  for (auto& e : m.extensions)
    if (auto* t = dynamic_cast<TileMachineState*>(e.get())) return *t;
  auto state = std::make_unique<TileMachineState>();
  state->file.set_model_tile_elements(m.config().tile_elements);  // PTO_MODEL_TILE_ELEMENTS
  // Tile arithmetic follows the machine's numeric profile (issue 5).
  state->profile = m.config().numeric_profile == arch::NumericProfileKind::Reference ? tile::NumericProfile::Reference
                                                                                     : tile::NumericProfile::Ieee;
  m.extensions.push_back(std::move(state));
  return static_cast<TileMachineState&>(*m.extensions.back());
}

const TileMachineState* find_tile_state(const Machine& m) {
  for (const auto& e : m.extensions)
    if (const auto* t = dynamic_cast<const TileMachineState*>(e.get())) return t;
  return nullptr;
}

const BundleTrace* current_bundle_trace(const Machine& m) {
  const TileMachineState* t = find_tile_state(m);
  return t != nullptr && !t->trace.operation.empty() && t->trace.cycle == m.state.sysregs.cycle ? &t->trace : nullptr;
}

std::string describe_bundle(const BundleTrace& t) {
  const auto registers = [](const std::vector<std::uint8_t>& v) {
    std::string s;
    for (std::uint8_t i : v) s += fmt::format("{}{}#{}", s.empty() ? "" : ",", tile::hand_letter(tile::hand_of(i)), tile::index_within_hand(i));
    return s;
  };
  std::string out = fmt::format("[bundle {}", t.operation);
  if (t.zero_mask_no_op) return out + " zero-mask no-op]";
  if (!t.sources.empty()) out += fmt::format(" src={}", registers(t.sources));
  if (!t.destinations.empty()) out += fmt::format(" dst={}", registers(t.destinations));
  for (std::uint64_t v : t.scalar_inputs) out += fmt::format(" in={:#x}", v);
  return out + fmt::format(" elements={} {}]", t.elements_written, t.outcome);
}

nlohmann::json tiles_state_json(const Machine& m) {
  const TileMachineState* t = find_tile_state(m);
  return t != nullptr ? tile::tiles_to_json(t->file) : tile::tiles_to_json(tile::TileFile{});
}

bool print_tile_table(const Machine& m, std::string_view name, std::string& out) {
  const auto index = tile::parse_tile_name(name);
  if (!index) {
    out = fmt::format("--print-tile: '{}' is not a tile register (T#1..N#16 or 0..63)", name);
    return false;
  }
  const TileMachineState* t = find_tile_state(m);
  if (t == nullptr || !t->file.tile(*index).allocated()) {
    out = fmt::format("--print-tile: {} is not allocated", tile::tile_name(*index));
    return false;
  }
  out = tile::tile_to_table(t->file, *index);
  return true;
}

std::string tile_not_implemented_detail(const Machine& m) {
  const BundleTrace* t = current_bundle_trace(m);
  return t != nullptr && t->outcome.starts_with("not implemented") ? t->outcome : std::string();
}

ExecOutcome commit_tile_bundle(Machine& m, isa::TileOp op) {
  TileMachineState& tiles = tile_state(m);
  tiles.file.set_capacity_limit(static_cast<std::uint32_t>(m.state.sysregs.tile_capacity));  // TILE_CAPACITY
  tiles.trace.clear();  // keeps the buffers of the previous bundle's trace
  tiles.trace.cycle = m.state.sysregs.cycle;
  label_operation(tiles.trace.operation, m.state.block, op);
  Attempt attempt{m, tiles, op};
  const ExecOutcome outcome = run_generic(attempt);
  if (outcome == ExecOutcome::Next && !destinations_representable(tiles)) return attempt.fail(FaultCode::Fault_ModelTileElements);
  return outcome;
}

}  // namespace pto::block
