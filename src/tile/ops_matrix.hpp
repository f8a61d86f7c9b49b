// CUBE Matrix operations: TMATMUL, TGEMV and their BIAS/ACC/MX variants.
//
// Two entry points share one product kernel:
//  * execute_matrix_bundle: the dedicated commit path of a CUBE Matrix block
//    (ExecuteBundleTMATMULOperation, asl/block/model/dispatch/cube-tmatmul.asl)
//    with its B.FPATR schema, complete-bundle preflight, CUBE destination
//    group (cube-destination.asl) and atomic D/RowMax/GroupMax publication
//    (asl/tile/model/execution/postprocess.asl);
//  * the twelve TileKernels (register_matrix_tile_kernels): the direct
//    semantic handlers TMATMUL(...) .. TGEMV_MX_ACC(...) with their
//    TileOperandsLegal_* checks (asl/tile/model/legality/matrix-shape.asl),
//    used by `pto coverage` and by direct tests.
//
// Arithmetic (asl/tile/model/execution/cube.asl): for every (row, column) of
// the M x N result, in row-major order, the sum starts from C (ACC) or zero
// and accumulates A[row][k] * B[k][column] for k = 0..K-1 in order; MX
// scales each operand by its E8M0 block scale (block = k / 32) first; BIAS
// adds bias[0][column] last.  Profiles:
//  * reference: TileProfileMatrixAccumulate/Bias/ScaledAccumulate of the
//    0.58.3 reference profile: integer multiply-accumulate of the element
//    words (signed integer types sign-extended, all others zero-extended),
//    truncated to the destination carrier;
//  * ieee: integer accumulators as above; FP32 accumulators take every input
//    converted exactly to FP32, each k step a correctly rounded FP32 fused
//    multiply-add (MX: operand x scale rounded to FP32 first), bias a rounded
//    FP32 add, rounding from B.DATR RMode (NONE = RNE).
// B.FPATR RowMax/GroupMax reduce the unconverted product with the profile's
// MAX step; D passes through the PreQuantMode/ReluMode post-processing of
// tile/matrix_postprocess.hpp (asl/arch/profile/matrix-postprocess.asl), the
// same in both profiles.  The direct handlers publish the unconverted
// product (CommitMatrixResult without B.FPATR).  Shared (B.IOS) A/B groups
// and B.FPATR TransA/TransB follow
// asl/block/model/dispatch/shared-cube-matrix.asl.  See
// docs/semantics-notes.md "CUBE Matrix path and CUBE layouts", "CUBE Matrix
// path with Shared operands" and "Matrix post-processing".
#pragma once

#include <array>
#include <cstdint>
#include <string>

#include "arch/state.hpp"
#include "tile/generated/fpatr_fields.hpp"
#include "tile/generated/pre_quant_modes.hpp"
#include "tile/tile_ops.hpp"

namespace pto::tile {

// ---- B.FPATR (asl/block/attributes/B.FPATR.asl) ----
namespace fpatr {
// The generated row of PreQuantMode `mode` (kReservedPreQuantMode beyond six bits).
const PreQuantMode& pre_quant_mode(unsigned mode) noexcept;
bool fields_legal(const arch::BundleFixedPointAttributes& a) noexcept;                  // BundleFPATRFieldsLegal
bool mode_uses_vector_parameter(unsigned mode) noexcept;                                // ...ModeUsesVectorParameter
bool mode_uses_scalar_parameter(unsigned mode) noexcept;                                // ...ModeUsesScalarParameter
// The generated rows of ReluMode / GroupNCode `code` (a reserved row beyond the field).
const ReluMode& relu_mode(unsigned code) noexcept;
const GroupNCode& group_n_code(unsigned code) noexcept;
inline bool relu_uses_scalar_parameter(unsigned relu) noexcept { return relu_mode(relu).scalar_parameter; }
inline bool relu_uses_vector_parameter(unsigned relu) noexcept { return relu_mode(relu).vector_parameter; }
bool accumulator_type_legal(unsigned mode, DataType accumulator) noexcept;              // ...AccumulatorTypeLegal
DataType output_type(unsigned mode) noexcept;                                           // BundleFPATROutputType
bool quant_parameter_word_legal(unsigned mode, std::uint64_t value) noexcept;           // ...QuantParameterWordLegal
bool relu_parameter_word_legal(std::uint64_t value) noexcept;                           // ...ReluParameterWordLegal
unsigned group_n(unsigned code) noexcept;                                               // BundleFPATRGroupN
}  // namespace fpatr

// ---- matrix function selectors (asl/tile/model/legality/matrix-functions.asl) ----
struct MatrixFunction {
  bool bias = false, accumulate = false, mx = false, gemv = false;
  // InstructionContractSharedOperandsAllowed_<op>: the matrix-vector
  // functions are Local-only (TileMatrixSharedSourceCountLegal).
  bool shared_operands_allowed() const noexcept;
};
// TileMatrixFunctionAssigned: the CUBE BSTART Function codes 0-2, 4-6, 16-18, 20-22.
bool matrix_function_assigned(unsigned code) noexcept;
MatrixFunction matrix_function(unsigned code) noexcept;
// TileMatrixAccumulatorDataType: S32 for signed, U32 for unsigned, else FP32.
DataType matrix_accumulator_type(DataType t) noexcept;
// TileOrdinaryMatrixInputTypesSameClass / TileMXOperandPairLegal.
bool ordinary_matrix_types_same_class(DataType left, DataType right) noexcept;
bool mx_operand_pair_legal(DataType left, DataType right) noexcept;
// TileMXInputTypeNeedsScale: every MX input except FP16 and BF16.
bool mx_type_needs_scale(DataType t) noexcept;

// ---- the dedicated Matrix commit ----

struct MatrixBundleResult {
  FaultCode fault = FaultCode::Fault_None;
  bool no_op = false;               // zero PE mask: no read, allocation or effect
  std::uint64_t elements_written = 0;
  num::Flags flags = 0;
};

// ExecuteBundleTMATMULOperation.  `register_inputs` are the values of the
// GPRs B.IOR names in RegSrc0..RegSrc2 (zero when B.IOR is omitted).
// Destinations it allocates are recorded in the bindings
// (destination_allocated_by_bundle) and in `allocated`; on a fault the caller
// rolls them back (RollBackBundleTileDestinations).
MatrixBundleResult execute_matrix_bundle(arch::BlockState& bundle, TileFile& tiles,
                                         const std::array<std::uint64_t, 3>& register_inputs,
                                         NumericProfile profile, std::vector<std::uint8_t>& allocated);

// Installs the twelve direct CUBE kernels.
void register_matrix_tile_kernels(TileKernelTable& table);

}  // namespace pto::tile
