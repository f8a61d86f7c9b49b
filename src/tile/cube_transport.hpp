// CUBE transport: TLOAD into and TSTORE from a Local CUBE_M16/M32/N8 tile
// selected by a B.DATR CUBE layout conversion (ND2M32/ND2M16/ND2N8 = 21..23
// load, M322ND/M162ND/N82ND = 24..26 store).
//
// Source: asl/block/model/dispatch/tlsu-layout-conversion.asl
// (ExecuteBundleCubeTransportOperation), asl/block/model/state/control-state.asl
// (TileDataLayoutCubeLayout), asl/tile/model/memory/load-store.asl (TLOAD and
// TSTORE address every element (r, c) at base + r * stride + c * size and
// place it at its CUBE payload index).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "arch/state.hpp"
#include "tile/generated/layout_conversions.hpp"
#include "tile/tile_memory.hpp"
#include "tile/tile_state.hpp"

namespace pto::tile {

// TileDataLayoutIsCubeConversion: the generated row of B.DATR Layout `code`
// (its direction and CUBE layout), or nullptr for any other code.
const generated::CubeConversion* cube_conversion(unsigned code) noexcept;

// BundleCubeTransportSelected: B.DATR is present with a CUBE conversion Layout.
bool cube_transport_selected(const arch::BlockState& b) noexcept;

struct CubeTransportResult {
  FaultCode fault = FaultCode::Fault_None;
  bool fault_address_is_data = false;
  std::uint64_t fault_address = 0;
  std::uint64_t elements_written = 0;
};

// ExecuteBundleCubeTransportOperation after the zero-mask exit and the
// decode.  `generic_bindings_legal` is the engine's
// BundleOperationBindingsComplete && ScalarBindingSchemaLegal &&
// GPRBindingValuesLegal && SelectedBundleTileMasksLegal for the operation;
// `base`/`stride` are the GPRs B.IOR names in RegSrc0/RegSrc1 (used only when
// B.IOR is present).  An allocated destination is recorded in the binding and
// in `allocated`; the caller rolls it back on a fault.
CubeTransportResult execute_cube_transport(arch::BlockState& b, TileFile& f, TileMemoryPort& memory,
                                           bool generic_bindings_legal, std::uint64_t base, std::uint64_t stride,
                                           std::vector<std::uint8_t>& allocated);

}  // namespace pto::tile
