// Per-operation interface of the generic tile commit path.
//
// CONTRACT (read this before adding an operation)
// ------------------------------------------------
// The block layer (src/block/tile_executors.cpp) runs the generic commit of
// asl/block/model/dispatch/tile-execution.asl
// (ExecuteBundleTileOperationLocallyWithAcceptedApplicabilityRules) for every
// tile BSTART whose operation has a registered TileKernel, in exactly this
// order; the first failing step raises its fault at the terminator's PC and
// rolls back every destination this attempt allocated
// (RollBackBundleTileDestinations), so the terminator can re-execute after
// RecoverTrapContext:
//
//   1. zero participation / PE_MASK=0000 no-op          (engine)
//   2. dedicated paths (CUBE, GMOV, MGATHER*, MSCATTER*, TPREFETCH, Shared
//      TLSU) and unconsumed B.IOS                        (engine)
//   3. B.FPATR outside Matrix, BundleOperationBindingsComplete
//                                        -> Fault_BundleControl (engine)
//   4. BundleOperationGPRBindingValuesLegal, SelectedBundleTileDataAttributes-
//      Legal (from the catalog datr_contract, tile_contracts.hpp)
//                                        -> Fault_TileLegality (engine)
//   5. TileKernel::schema_legal  (the op's SelectedBundleClosed*SchemaLegal,
//      including the parts that read source tiles and the B.IOR scalar /
//      flag0 values: SchemaView)          -> Fault_TileLegality
//   6. SelectedBundleTileMasksLegal       -> Fault_TileLegality (engine)
//   7. TileKernel::destinations  (ResolveBundleTileDestinationsForOperation):
//      a DestinationPlan; the engine renames hands, checks capacity and every
//      derived descriptor, then allocates all or nothing
//                                        -> Fault_TileAllocation
//   8. BundleTileInstructionOperands      -> TileOperands (engine; B.IOR
//      inputs in ADR 0055/0058 order address, scalar0, scalar1, diagonal,
//      flag0 packed densely into RegSrc0..RegSrc2; omission defaults)
//   9. source definedness: every catalog operand whose field starts with
//      "source" or whose role is "bias" must be TileSourceContentsDefined,
//      unless TileKernel::owns_source_definedness (ADR 0014: whole-region
//      consumers reject before any effect) -> Fault_TileLegality (engine)
//  10. TileKernel::operands_legal (TileOperandsLegal_<handler>)
//                                        -> Fault_TileLegality
//  11. TileKernel::execute (the semantic handler).
//
// A kernel therefore never allocates destinations, never reads GPRs, never
// raises machine faults and never rolls back: it returns a TileResult.  All
// checks that can fail must happen before the first effect (payload,
// definedness, memory); `execute` may only fail through the memory port's
// preflight (see tile_memory.hpp) before any write.  Full-destination writers
// mark the valid region defined after all effects (ADR 0014).
//
// Registration: one constexpr-initialisable TileKernel per isa::TileOp in
// the table returned by tile_kernel_table(); add the op's entry in
// register_builtin_tile_kernels (src/tile/tile_ops.cpp) or, for a family in
// its own file, call register_tile_kernel from that file's registration
// function listed there.  An op without a kernel stops the run with
// "not implemented in this model: <OP>".
#pragma once

#include <array>
#include <cstdint>
#include <optional>

#include "arch/state.hpp"
#include "isa/catalog.hpp"
#include "numerics/rounding.hpp"
#include "tile/tile_elementwise.hpp"
#include "tile/tile_memory.hpp"
#include "tile/tile_state.hpp"

namespace pto::tile {

// TileComparison (B.DATR CMode 0..5; other encodings read as EQ).
enum class TileComparison : std::uint8_t { EQ, NE, LT, GT, LE, GE };
// TileAxis.
enum class TileAxis : std::uint8_t { Row, Column };

// TileNumericSelection (DecodeBundleRoundingSelection of B.DATR RMode plus Sat).
struct NumericSelection {
  bool use_operation_default = true;  // RMode == 000
  num::RoundingMode rounding_mode = num::RoundingMode::RNE;
  bool saturating = false;
};

// TileInstructionOperands (asl/tile/model/state/types.asl), as
// BundleTileInstructionOperands (asl/block/model/dispatch/tile-schema.asl)
// fills it: destinations are the renamed registers, sources in binding order
// (each B.IOT's SrcTile0 then SrcTile1), scalar inputs read from the GPRs
// B.IOR names (or the operation's omission default), loop dimensions as the
// natural/positive views of LB0..LB2, B.DATR fields decoded.
struct TileOperands {
  std::array<TileIndex, 3> destination{};
  std::array<TileIndex, 8> source{};
  std::uint64_t address = 0;
  std::uint64_t scalar0 = 0;
  std::uint64_t scalar1 = 0;
  std::uint64_t post_quant_param = 0;
  std::uint64_t post_lrelu_param = 0;
  std::uint32_t natural0 = 0, natural1 = 0;                                  // LB0, LB1 when <= 65535
  std::uint32_t positive0 = 1, positive1 = 1, positive2 = 1, positive3 = 1;  // nonzero LB0..LB2
  std::int32_t diagonal = 0;                                                 // SInt of its GPR
  std::uint32_t byte_count = 0;                                              // LB0 when <= 262144
  std::uint8_t selected_byte = 0;                                            // B.DATR PadValueOrByteId
  std::uint8_t sort_width = 32;                                              // LB0 when 1..64
  TileAxis axis = TileAxis::Row;
  TileComparison comparison = TileComparison::EQ;
  bool flag0 = false;
  NumericSelection numeric_control;
};

// What a kernel's semantic step sees.  `bundle` is the pending block
// (arch::State::block, the single source of truth for header state); it is
// read-only here.
struct TileExecutionContext {
  TileFile& tiles;
  TileMemoryPort& memory;
  const arch::BlockState& bundle;
  const TileOperands& operands;
  PadValue pad_value = PadValue::Null;  // CurrentBundlePadValue
  bool canonicalize = false;            // B.DATR Canonicalize (explicit only)
  NumericProfile profile = NumericProfile::Reference;
};

// Outcome of one kernel step.  Memory faults carry the element address
// (fault_address_is_data); all other faults are raised at the terminator PC.
// `flags` are the NV/DZ/OF/UF/NX bits the semantic handler records
// (RecordNumericStatusFlags / ScalarFPRecordFlags); the engine ORs them into
// the sticky CORE_STATE[36:32] after a successful step.  Handlers the ASL
// records nothing for (ExecuteTileBinary, TSEL, ...) leave them zero.
struct TileResult {
  FaultCode fault = FaultCode::Fault_None;
  bool fault_address_is_data = false;
  std::uint64_t fault_address = 0;
  std::uint64_t elements_written = 0;  // observability (--trace)
  num::Flags flags = 0;

  bool ok() const noexcept { return fault == FaultCode::Fault_None; }
  static TileResult written(std::uint64_t elements, num::Flags flags = 0) noexcept {
    return {FaultCode::Fault_None, false, 0, elements, flags};
  }
  static TileResult faulted(FaultCode f) noexcept { return {f, false, 0, 0, 0}; }
  static TileResult from_memory(const MemoryOutcome& m, std::uint64_t elements) noexcept {
    return m.ok() ? written(elements) : TileResult{m.fault, true, m.address, 0, 0};
  }
};

// The explicit arguments of ResolveBundleTileDestinationsWithShapeAndType.
// explicit_shape == false derives each dimension from LB0..LB2, else the
// first source binding's descriptor, else the single Shared binding, else 1
// (BundleDestinationValidRows/ValidColumns/PhysicalColumns).  The primary
// (ordinal 0) destination takes primary_type when set, otherwise the
// effective bundle data type (ResolveBundleEffectiveDataType; Matrix blocks
// the accumulator/FPATR type); later non-matrix destinations are U32.
struct DestinationPlan {
  FaultCode fault = FaultCode::Fault_None;  // set when the op's own shape rule fails first
  bool predicate = false;     // ResolveBundlePredicateDestination (TCMP/TCMPS)
  bool explicit_shape = false;
  std::uint32_t valid_rows = 0, valid_columns = 0, columns = 0;
  std::optional<DataType> primary_type;
  // ResolveBundleEffectiveDataType's last resort when neither B.DATR nor
  // BSTART names a concrete type (BundleTMOVSelected: the bound source's type).
  std::optional<DataType> inferred_type;

  static DestinationPlan failed(FaultCode f) noexcept {
    DestinationPlan p;
    p.fault = f;
    return p;
  }
};

// What a closed schema (step 5) reads: the pending block, the tile file
// before any destination is allocated, and the two B.IOR inputs the ASL
// schemas read.  Both are GPR reads through the bindings, so they equal what
// step 8 reads (no effect lies in between; B.IOR selectors 24..31 never
// decode).
struct SchemaView {
  const arch::BlockState& bundle;
  const TileFile& tiles;
  std::uint64_t scalar_raw = 0;  // SelectedBundleTileScalarRawValue (RegSrc0; zero without B.IOR)
  bool descending = false;       // BundleSortingDescending (flag0 GPR == 1; false without B.IOR)
};

using SchemaLegal = bool (*)(const SchemaView& view);
// A closed schema that reads only the pending block (binary, unary, TFMA,
// generation, TEXPANDS): none of their ASL schemas reads tile state or GPRs.
template <bool (*Schema)(const arch::BlockState&)>
bool bundle_schema(const SchemaView& view) {
  return Schema(view.bundle);
}
using DestinationResolver = DestinationPlan (*)(const arch::BlockState& bundle, const TileFile& tiles);
using OperandsLegal = bool (*)(const TileFile& tiles, const TileOperands& operands, const arch::BlockState& bundle);
using TileSemantic = TileResult (*)(TileExecutionContext& context);

struct TileKernel {
  // Step 5: SelectedBundleClosed*SchemaLegal; nullptr = no closed schema.
  SchemaLegal schema_legal = nullptr;
  // Step 7: nullptr = ResolveBundleTileDestinations (default_destinations).
  DestinationResolver destinations = nullptr;
  // Step 9: true for TILE_LEGALITY_OWNS_SOURCE_DEFINEDNESS handlers
  // (TGATHER, THISTOGRAM, TIMG2COL, TGEMV*, TMATMUL*): operands_legal checks.
  bool owns_source_definedness = false;
  // Step 10: TileOperandsLegal_<semantic handler>; required.
  OperandsLegal operands_legal = nullptr;
  // Step 11: the semantic handler; required.
  TileSemantic execute = nullptr;
};

// ---- shared building blocks for kernels ----

// ResolveBundleTileDestinations: no explicit shape or type.
DestinationPlan default_destinations(const arch::BlockState& bundle, const TileFile& tiles);
// The closed-schema shape (binary, unary, TFMA, tile-scalar, ...): ValidCol =
// LB0, ValidRow = LB1 (default 1), Col = LB2 (default ValidCol).
DestinationPlan closed_loop_destinations(const arch::BlockState& bundle, const TileFile& tiles);

// CurrentBundlePadValue: B.DATR PadValue, Null when B.DATR was omitted.
PadValue current_pad_value(const arch::BlockState& bundle) noexcept;
// CurrentBundleTileOperationDataTypeCode as a data type (BSTART DataType).
std::optional<DataType> operation_data_type(const arch::BlockState& bundle) noexcept;
// ResolveBundleEffectiveDataType: a concrete B.DATR DataType wins.
std::optional<DataType> effective_data_type(const arch::BlockState& bundle) noexcept;
// Number of valid tile bindings / Shared bindings.
unsigned tile_binding_count(const arch::BlockState& bundle) noexcept;
unsigned shared_binding_count(const arch::BlockState& bundle) noexcept;
// BundleTileBindingStreamTerminated: at least one valid binding and the L bit
// on the last valid one only.
bool stream_terminated(const arch::BlockState& bundle) noexcept;
// Operand counts over the valid tile bindings of a multi-binding closed schema
// (partial, sorting): every destination must be a fresh Local tile with a
// legal SizeCode; `terminated` is the L bit of the last valid binding.
struct BindingTally {
  unsigned sources = 0, destinations = 0;
  bool terminated = false, destinations_fresh = true;
};
BindingTally tally_tile_bindings(const arch::BlockState& bundle) noexcept;
// LB<i> present with a value in 1..65535.
bool dimension_positive(const arch::BlockState& bundle, unsigned index) noexcept;
// The LB0-required, LB1/LB2-optional loop shape of the closed schemas, and
// one local binding with a legal SizeCode, not yet allocated, L set.
bool closed_loop_dimensions_legal(const arch::BlockState& bundle) noexcept;

// TileShapesMatch / type and layout agreement of two legal descriptors.
bool same_shape_and_type(const TileFile& tiles, TileIndex a, TileIndex b) noexcept;

// ---- registry ----

class TileKernelTable {
 public:
  // Keeps the first registration; false for a second one or an incomplete kernel.
  bool set(isa::TileOp op, const TileKernel& kernel) noexcept;
  const TileKernel* get(isa::TileOp op) const noexcept {
    const TileKernel& k = table_[static_cast<std::size_t>(op)];
    return k.execute != nullptr ? &k : nullptr;
  }

 private:
  std::array<TileKernel, isa::kTileOpCount> table_{};
};

// The process-wide table (built once on first use by
// register_builtin_tile_kernels).
const TileKernelTable& tile_kernel_table();
// Installs every kernel this model executes (src/tile/tile_ops.cpp).
void register_builtin_tile_kernels(TileKernelTable& table);

// Reference example and the memory pair (src/tile/tile_ops.cpp).
extern const TileKernel kTaddKernel;
extern const TileKernel kTloadKernel;
extern const TileKernel kTstoreKernel;

}  // namespace pto::tile
