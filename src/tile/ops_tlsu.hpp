// TLSU operations outside the regular Local TLOAD/TSTORE pair: indexed
// MGATHER/MSCATTER (plain, MASK, CAS), the destination-free TPREFETCH, the
// peer-Local GMOV, Local TMOV, and the Shared (B.IOS) paths of TLOAD, TSTORE
// and TMOV (INSERT, PUBLISH, BROADCAST, EXTRACT).
//
// Two layers:
//  * semantic handlers (asl/tile/model/memory/{gather-scatter,atomics,
//    shared-movement}.asl): probe the complete footprint first, then effects;
//    they also back the TileKernels registered for `pto coverage` and direct
//    tests (register_tlsu_tile_kernels);
//  * execute_tlsu_bundle: the dedicated commit paths the ASL selects ahead of
//    the generic one (asl/block/model/dispatch/{tlsu-*,shared-tlsu}.asl),
//    with their own check order.  The bundle engine supplies its shared checks,
//    destination group, PE-private GPRs and memory through TlsuBundleHost.
//
// Memory events: every element access of these paths goes through
// TileMemoryPort::load_element / store_element / compare_and_swap with its
// agent (the current PE for indexed ops, the quarter's PE for Shared ops,
// each PE for TPREFETCH).  GMOV and TMOV touch no memory.
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "arch/state.hpp"
#include "tile/shared_tile.hpp"
#include "tile/tile_ops.hpp"

namespace pto::tile {

using PeWords = std::array<std::uint64_t, kPeCount>;  // CorePEWords

// IndexedTLSUIndexDataTypeLegal (integer types) / IndexedTLSUTransferDataTypeLegal
// (not four-bit) / TileCarrierOrPackedBaselineDataTypeSupported.
bool indexed_index_type_legal(DataType t) noexcept;
bool indexed_transfer_type_legal(DataType t) noexcept;
bool carrier_or_packed_type_supported(DataType t) noexcept;
// TileIndexByteDisplacement: the index element sign- or zero-extended.
std::uint64_t index_byte_displacement(std::uint64_t raw, DataType index_type) noexcept;

// ---- semantic handlers ----

// MGATHER / MGATHER_MASK (`mask` = predicate tile or nullptr): every active
// lane is probed (row-major, alignment before permission) before the physical
// region is padded and the lanes loaded; the physical region ends defined.
MemoryOutcome mgather(Tile& destination, TileMemoryPort& memory, unsigned agent, std::uint64_t base,
                      const Tile& indices, const Tile* mask, PadValue pad);
// MGATHER_CAS: one atomic compare-and-swap per lane (row-major lane order),
// each lane's old value returned in the destination.
MemoryOutcome mgather_cas(Tile& destination, TileMemoryPort& memory, unsigned agent, std::uint64_t base,
                          const Tile& indices, const Tile& expected, const Tile& replacement, PadValue pad);
// MSCATTER / MSCATTER_MASK: all active lanes probed for writing before the
// first store; lanes commit in row-major order (a later duplicate wins).
MemoryOutcome mscatter(const Tile& source, TileMemoryPort& memory, unsigned agent, std::uint64_t base,
                       const Tile& indices, const Tile* mask);

struct PrefetchShape {
  std::uint32_t valid_columns = 1, valid_rows = 1, columns = 1;
  DataType data_type = DataType::U8;
};
// TPREFETCHCore: the typed footprint of all four PEs is probed before the
// first load event; the stride counts elements.
MemoryOutcome tprefetch(TileMemoryPort& memory, const PeWords& bases, const PeWords& row_stride_elements,
                        const PrefetchShape& shape);

// TLOADShared: FaultCode::Fault_TileLegality for an incompatible descriptor or a
// fractal layout (ZN/NZ) whose derived shape is not a whole number of
// fractals (nothing changed), a memory fault at the first failing selected
// element, else the selected quarters installed and published atomically.
// Elements are placed, and owned by quarters, in shape.layout.
MemoryOutcome tload_shared(TileFile& f, unsigned shared_id, TileMemoryPort& memory, const PeWords& bases,
                           const PeWords& row_stride_bytes, const SharedShape& shape, PeMask mask);
// TSTOREShared of the selected quarters of the materialised read schema
// (elements indexed in view.layout); FaultCode::Fault_TileLegality, nothing written,
// when the view of an unallocated register has an illegal fractal shape.
MemoryOutcome tstore_shared(const TileFile& f, unsigned shared_id, TileMemoryPort& memory, const PeWords& bases,
                            const PeWords& row_stride_bytes, const TileDescriptor& view, PeMask mask);
// TMOVLocalToShared (INSERT, or PUBLISH when `publish`): FaultCode::Fault_TileLegality
// when the update is incompatible or a PUBLISH would stay incomplete.
FaultCode tmov_local_to_shared(TileFile& f, unsigned shared_id, TileIndex source, unsigned size_code, PeMask mask,
                           bool publish);
// TMOVSharedToLocal: copies the selected quarters (undefined reads included)
// into the configured destination; all four PEs define its valid region.
void tmov_shared_to_local(TileFile& f, TileIndex destination, unsigned shared_id, const TileDescriptor& view,
                          PeMask mask);

// ---- dedicated bundle paths ----

// The bundle engine's side of a dedicated path (asl/block/model/dispatch/
// tile-schema.asl, scalar-schema.asl, destination-shape.asl).
class TlsuBundleHost {
 public:
  virtual ~TlsuBundleHost() = default;
  virtual bool bindings_complete(isa::TileOp op) const = 0;           // BundleOperationBindingsComplete
  virtual bool scalar_binding_schema_legal(isa::TileOp op) const = 0; // BundleOperationScalarBindingSchemaLegal
  virtual bool gpr_binding_values_legal(isa::TileOp op) const = 0;    // BundleOperationGPRBindingValuesLegal
  virtual bool masks_legal() const = 0;                               // SelectedBundleTileMasksLegal
  virtual bool mask_is_zero() const = 0;                              // SelectedBundleTileMaskIsZero
  // ResolveBundleTileDestinationsWithShapeAndType (rolled back by the engine
  // when the attempt fails later).
  virtual FaultCode resolve_destinations(const DestinationPlan& plan) = 0;
  virtual std::uint64_t read_pe_gpr(unsigned pe, unsigned selector) const = 0;  // ReadPEAbsoluteGPROperand
  virtual unsigned current_pe() const = 0;                                      // _CurrentMemoryAgent
  virtual TileMemoryPort& memory() = 0;
};

struct TlsuBundleResult {
  FaultCode fault = FaultCode::Fault_None;
  bool fault_address_is_data = false;  // memory faults carry the element address
  std::uint64_t fault_address = 0;
  bool no_op = false;             // PE_MASK=0000: no read, allocation or effect
  std::uint64_t elements_written = 0;
};

// The ASL routes this bundle to a dedicated TLSU path (GMOV, MGATHER*,
// MSCATTER*, TPREFETCH, BundleSharedTLSUSelected).
bool tlsu_dedicated_path(const arch::BlockState& b, isa::TileOp op) noexcept;
// Runs that path; the engine raises the fault and rolls back destinations.
TlsuBundleResult execute_tlsu_bundle(arch::BlockState& b, TileFile& f, isa::TileOp op, TlsuBundleHost& host);

// TileKernels of TMOV (generic Local path) and the direct-operation semantic
// handlers of the dedicated ops (agent 0, TPREFETCH for all PEs).
void register_tlsu_tile_kernels(TileKernelTable& table);

}  // namespace pto::tile
