// CUBE Matrix operations: the direct semantic handlers of
// tests/asl/tile/matrix-and-matrix-vector (AVS ids in the test names), CUBE
// cell layouts (asl/tile/model/shape/cube-cell.asl) and the dedicated
// Matrix bundle path (asl/block/model/dispatch/cube-tmatmul.asl) driven by
// encoded instructions.  Expected values come from the spec points or from a
// host loop written here.
#include <gtest/gtest.h>

#include <utility>
#include <vector>

#include "bundle_test_host.hpp"
#include "numerics/format.hpp"
#include "tile/cube_layout.hpp"
#include "tile/matrix_postprocess.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/shared_tile.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using tile::DataType;
using arch::FaultCode;
using tile::TileLayout;
using tile::TileLocation;

// ConfigureCubeTile(index, capacity, valid_rows, valid_columns, type, layout, Matrix) for `mask`.
void configure_cube_tile(tile::TileFile& f, tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t,
                         TileLayout layout, std::uint32_t capacity, tile::PeMask mask) {
  const tile::ConfigureRequest r{.capacity_bytes = capacity, .valid_rows = rows, .valid_columns = columns,
                                 .data_type = t, .layout = layout, .location = TileLocation::Matrix, .mask = mask};
  ASSERT_EQ(f.configure_cube(i, r), FaultCode::Fault_None);
}

// ---- direct semantic handlers (ExecuteTileInstruction / TMATMUL(...)) ----

class DirectCube {
 public:
  // InstallBundleOperationDescriptor: a TileMatrix operation with a Function
  // selector and the left data type.
  void select(unsigned function, DataType left) {
    arch::BundleOperationDescriptor& d = bundle_.operation;
    d.valid = true;
    d.operation_class = arch::BundleOperationClass::TileMatrix;
    d.selector_valid = true;
    d.selector = static_cast<std::uint16_t>(function);
    d.data_type_valid = true;
    d.data_type = num::code_of(left);
  }
  // B.DATR present with DataType = the right side's type.
  void select_right(DataType right) {
    bundle_.data_attributes_present = true;
    bundle_.data_attributes.data_type_present = true;
    bundle_.data_attributes.data_type = num::code_of(right);
    bundle_.data_attributes.pad_value = 0;
  }
  // ConfigureCubeTile(index, 128, valid_rows, valid_columns, type, layout, Matrix).
  void cube(tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t, TileLayout layout,
            std::uint32_t capacity = 128) {
    configure_cube_tile(file, i, rows, columns, t, layout, capacity, 0b0001);
  }
  // ConfigureTile(index, 128, rows, columns, valid_rows, valid_columns, type, RowMajor, location).
  void plain(tile::TileIndex i, std::uint32_t columns, std::uint32_t valid_rows, std::uint32_t valid_columns, DataType t,
             TileLocation location) {
    tile::ConfigureRequest r;
    r.capacity_bytes = 128;
    r.columns = columns;
    r.valid_rows = valid_rows;
    r.valid_columns = valid_columns;
    r.data_type = t;
    r.location = location;
    r.mask = 0b0001;
    ASSERT_EQ(file.configure(i, r), FaultCode::Fault_None);
  }
  void write(tile::TileIndex i, std::uint32_t r, std::uint32_t c, std::uint64_t v) { file.tile(i).write_element(r, c, v); }
  std::uint64_t read(tile::TileIndex i, std::uint32_t r, std::uint32_t c) {
    const tile::Tile& t = file.tile(i);
    EXPECT_TRUE(t.element_defined_at(r, c));
    return t.read_word(t.linear_index(r, c));
  }

  // TileOperandsLegal_<op>(destination, sources...).
  bool legal(isa::TileOp op, tile::TileIndex destination, std::initializer_list<tile::TileIndex> sources) {
    set_operands(destination, sources);
    const tile::TileKernel* k = tile::tile_kernel_table().get(op);
    EXPECT_NE(k, nullptr);
    return k != nullptr && k->operands_legal(file, operands_, bundle_);
  }
  // The semantic handler after a passing legality check.
  void execute(isa::TileOp op, tile::TileIndex destination, std::initializer_list<tile::TileIndex> sources) {
    ASSERT_TRUE(legal(op, destination, sources));
    std::array<std::byte, 16> no_memory{};
    tile::FlatTileMemory memory(no_memory);
    tile::TileExecutionContext context{file, memory, bundle_, operands_};
    context.profile = profile;
    ASSERT_TRUE(tile::tile_kernel_table().get(op)->execute(context).ok());
  }

  tile::TileFile file;
  tile::NumericProfile profile = tile::NumericProfile::Reference;

 private:
  void set_operands(tile::TileIndex destination, std::initializer_list<tile::TileIndex> sources) {
    operands_ = {};
    operands_.destination[0] = destination;
    unsigned i = 0;
    for (tile::TileIndex s : sources) operands_.source[i++] = s;
  }
  arch::BlockState bundle_;
  tile::TileOperands operands_;
};

// The common 1x1 set-up of the *-direct-001 points: A=2 (FP16, CUBE_M16) in
// tile 1, B=3 (FP16, CUBE_N8) in tile 2.
void one_by_one_fp16(DirectCube& h, unsigned function) {
  h.select(function, DataType::FP16);
  h.cube(1, 1, 1, DataType::FP16, TileLayout::CubeM16);
  h.cube(2, 1, 1, DataType::FP16, TileLayout::CubeN8);
}

TEST(AvsTileMatrix, TmatmulExec001) {  // PTO-AVS-TILE-TMATMUL-EXEC-001
  DirectCube h;
  one_by_one_fp16(h, 0);
  h.cube(3, 1, 1, DataType::FP32, TileLayout::CubeM16);
  h.write(1, 0, 0, 2);
  h.write(2, 0, 0, 3);
  h.execute(isa::TileOp::TMATMUL, 3, {1, 2});
  EXPECT_EQ(h.read(3, 0, 0), 6U);
}

// PTO_MODEL_TILE_ELEMENTS (TileFile::model_tile_elements) bounds M x N in
// TileMatrixShapeLegal and each CUBE descriptor's TileCubeStorageElements in
// TileCubeDescriptorLegal.  A = FP16 CUBE_M16 16 x 1 (one 16 x 4 CELL, 64
// elements), B = FP16 CUBE_N8 1 x 8 (one 8 x 8 CELL, 64), D = FP32 CUBE_M16
// 16 x 8 (four 16 x 2 CELLs, 128): M x N = 16 x 8 = 128, legal at 128; at
// 127 both the shape and D's storage exceed the limit.
TEST(CubeMatrixTileElements, TmatmulShapeIsBoundedByTheConfiguredLimit) {
  DirectCube h;
  h.select(0, DataType::FP16);
  h.cube(1, 16, 1, DataType::FP16, TileLayout::CubeM16);
  h.cube(2, 1, 8, DataType::FP16, TileLayout::CubeN8);
  h.cube(3, 16, 8, DataType::FP32, TileLayout::CubeM16, 512);
  for (std::uint32_t r = 0; r < 16; ++r) h.write(1, r, 0, 0x3C00);  // 1.0
  for (std::uint32_t c = 0; c < 8; ++c) h.write(2, 0, c, 0x3C00);
  h.file.set_model_tile_elements(128);
  EXPECT_TRUE(h.legal(isa::TileOp::TMATMUL, 3, {1, 2}));
  h.file.set_model_tile_elements(127);
  EXPECT_FALSE(h.legal(isa::TileOp::TMATMUL, 3, {1, 2}));
}

// The ACC and BIAS points: the addend 5 in tile 3 (ACC: C, an FP32 CUBE_M16
// accumulator; BIAS: an FP32 RowMajor Matrix tile), D in tile 4; 2*3+5 = 11.
enum class Addend { Accumulator, Bias };
void addend_case(Addend kind, isa::TileOp op, unsigned function, std::initializer_list<tile::TileIndex> sources) {
  DirectCube h;
  one_by_one_fp16(h, function);
  if (kind == Addend::Accumulator) h.cube(3, 1, 1, DataType::FP32, TileLayout::CubeM16);
  else h.plain(3, 1, 1, 1, DataType::FP32, TileLocation::Matrix);
  h.write(3, 0, 0, 5);
  h.cube(4, 1, 1, DataType::FP32, TileLayout::CubeM16);
  h.write(1, 0, 0, 2);
  h.write(2, 0, 0, 3);
  h.execute(op, 4, sources);
  EXPECT_EQ(h.read(4, 0, 0), 11U);
}
void acc_case(isa::TileOp op, unsigned function, std::initializer_list<tile::TileIndex> sources) {
  addend_case(Addend::Accumulator, op, function, sources);
}
void bias_case(isa::TileOp op, unsigned function, std::initializer_list<tile::TileIndex> sources) {
  addend_case(Addend::Bias, op, function, sources);
}

TEST(AvsTileMatrix, TmatmulAccExec001) { acc_case(isa::TileOp::TMATMUL_ACC, 2, {3, 1, 2}); }          // PTO-AVS-TILE-TMATMUL-ACC-EXEC-001
TEST(AvsTileMatrix, TmatmulMxAccExec001) { acc_case(isa::TileOp::TMATMUL_MX_ACC, 6, {3, 1, 0, 2, 0}); }  // PTO-AVS-TILE-TMATMUL-MX-ACC-EXEC-001
TEST(AvsTileMatrix, TgemvAccExec001) { acc_case(isa::TileOp::TGEMV_ACC, 18, {3, 1, 2}); }              // PTO-AVS-TILE-TGEMV-ACC-EXEC-001
TEST(AvsTileMatrix, TgemvMxAccExec001) { acc_case(isa::TileOp::TGEMV_MX_ACC, 22, {3, 1, 0, 2, 0}); }    // PTO-AVS-TILE-TGEMV-MX-ACC-EXEC-001

TEST(AvsTileMatrix, TmatmulBiasExec001) { bias_case(isa::TileOp::TMATMUL_BIAS, 1, {1, 2, 3}); }          // PTO-AVS-TILE-TMATMUL-BIAS-EXEC-001
TEST(AvsTileMatrix, TmatmulMxBiasExec001) { bias_case(isa::TileOp::TMATMUL_MX_BIAS, 5, {1, 0, 2, 0, 3}); }  // PTO-AVS-TILE-TMATMUL-MX-BIAS-EXEC-001
TEST(AvsTileMatrix, TgemvBiasExec001) { bias_case(isa::TileOp::TGEMV_BIAS, 17, {1, 2, 3}); }              // PTO-AVS-TILE-TGEMV-BIAS-EXEC-001
TEST(AvsTileMatrix, TgemvMxBiasExec001) { bias_case(isa::TileOp::TGEMV_MX_BIAS, 21, {1, 0, 2, 0, 3}); }    // PTO-AVS-TILE-TGEMV-MX-BIAS-EXEC-001

// The unscaled MX points: FP16 sides carry no scale operand (index 0 unused).
void mx_unscaled_case(isa::TileOp op, unsigned function) {
  DirectCube h;
  one_by_one_fp16(h, function);
  h.cube(3, 1, 1, DataType::FP32, TileLayout::CubeM16);
  h.write(1, 0, 0, 2);
  h.write(2, 0, 0, 3);
  h.execute(op, 3, {1, 0, 2, 0});
  EXPECT_EQ(h.read(3, 0, 0), 6U);
}

TEST(AvsTileMatrix, TmatmulMxUnscaled001) { mx_unscaled_case(isa::TileOp::TMATMUL_MX, 4); }  // PTO-AVS-TILE-TMATMUL-MX-UNSCALED-001
TEST(AvsTileMatrix, TgemvMxExec001) { mx_unscaled_case(isa::TileOp::TGEMV_MX, 20); }         // PTO-AVS-TILE-TGEMV-MX-EXEC-001

TEST(AvsTileMatrix, TgemvRow001) {  // PTO-AVS-TILE-TGEMV-ROW-001
  DirectCube h;
  h.select(16, DataType::U16);
  h.cube(1, 1, 2, DataType::U16, TileLayout::CubeM16);
  h.cube(2, 2, 2, DataType::U16, TileLayout::CubeN8);
  h.cube(3, 1, 2, DataType::U32, TileLayout::CubeM16);
  h.write(1, 0, 0, 2);
  h.write(1, 0, 1, 3);
  h.write(2, 0, 0, 5);
  h.write(2, 0, 1, 7);
  h.write(2, 1, 0, 11);
  h.write(2, 1, 1, 13);
  h.execute(isa::TileOp::TGEMV, 3, {1, 2});
  EXPECT_EQ(h.read(3, 0, 0), 43U);
  EXPECT_EQ(h.read(3, 0, 1), 53U);
}

TEST(AvsTileMatrix, TmatmulAccIndex002) {  // PTO-AVS-TILE-TMATMUL-ACC-INDEX-002
  DirectCube h;
  one_by_one_fp16(h, 2);
  h.cube(3, 1, 1, DataType::FP32, TileLayout::CubeM16);
  h.write(1, 0, 0, 2);
  h.write(2, 0, 0, 3);
  h.write(3, 0, 0, 5);
  EXPECT_FALSE(h.legal(isa::TileOp::TMATMUL_ACC, 3, {3, 1, 2}));  // C == D
  EXPECT_EQ(h.read(3, 0, 0), 5U);
}

TEST(AvsTileMatrix, TmatmulMxAccIndex002) {  // PTO-AVS-TILE-TMATMUL-MX-ACC-INDEX-002
  DirectCube h;
  h.select(6, DataType::E4M3);
  h.cube(1, 1, 1, DataType::E4M3, TileLayout::CubeM16);
  h.cube(3, 1, 1, DataType::E4M3, TileLayout::CubeN8);
  h.cube(5, 1, 1, DataType::FP32, TileLayout::CubeM16);
  h.plain(2, 1, 1, 1, DataType::E8M0, TileLocation::Any);
  h.plain(4, 1, 1, 1, DataType::E8M0, TileLocation::Any);
  h.write(1, 0, 0, 2);
  h.write(2, 0, 0, 1);
  h.write(3, 0, 0, 3);
  h.write(4, 0, 0, 1);
  h.write(5, 0, 0, 5);
  EXPECT_FALSE(h.legal(isa::TileOp::TMATMUL_MX_ACC, 5, {5, 1, 2, 3, 4}));
  EXPECT_EQ(h.read(5, 0, 0), 5U);
  // The same operands with a distinct D are legal: only the alias rejects.
  h.cube(6, 1, 1, DataType::FP32, TileLayout::CubeM16);
  EXPECT_TRUE(h.legal(isa::TileOp::TMATMUL_MX_ACC, 6, {5, 1, 2, 3, 4}));
}

TEST(AvsTileMatrix, TmatmulMxTypes001) {  // PTO-AVS-TILE-TMATMUL-MX-TYPES-001
  for (DataType t : {DataType::FP16, DataType::BF16, DataType::E4M3, DataType::E5M2, DataType::E2M1X2, DataType::E1M2X2})
    EXPECT_TRUE(tile::mx_operand_pair_legal(t, t)) << num::name(t);
  EXPECT_FALSE(tile::mx_type_needs_scale(DataType::FP16));
  EXPECT_FALSE(tile::mx_type_needs_scale(DataType::BF16));
  for (DataType t : {DataType::E4M3, DataType::E5M2, DataType::E2M1X2, DataType::E1M2X2})
    EXPECT_TRUE(tile::mx_type_needs_scale(t)) << num::name(t);
  EXPECT_TRUE(tile::mx_operand_pair_legal(DataType::FP16, DataType::E4M3));
  EXPECT_TRUE(tile::mx_operand_pair_legal(DataType::E1M2X2, DataType::BF16));
  EXPECT_FALSE(tile::mx_operand_pair_legal(DataType::HiF4X2, DataType::E2M1X2));
}

TEST(AvsTileMatrix, TmatmulMxScale001) {  // PTO-AVS-TILE-TMATMUL-MX-SCALE-001 (through TileOperandsLegal_TMATMUL_MX)
  DirectCube h;
  h.select(4, DataType::E4M3);
  h.cube(1, 1, 2, DataType::E4M3, TileLayout::CubeM16);
  h.cube(2, 2, 2, DataType::E4M3, TileLayout::CubeN8);
  h.cube(5, 1, 2, DataType::FP32, TileLayout::CubeM16);
  h.plain(3, 8, 1, 1, DataType::E8M0, TileLocation::Matrix);
  h.plain(4, 8, 1, 2, DataType::E8M0, TileLocation::Matrix);
  for (unsigned c = 0; c < 2; ++c) {
    h.write(1, 0, c, 0);
    h.write(2, 0, c, 0);
    h.write(2, 1, c, 0);
    h.write(4, 0, c, 0);
  }
  h.write(3, 0, 0, 0);
  EXPECT_TRUE(h.legal(isa::TileOp::TMATMUL_MX, 5, {1, 3, 2, 4}));
  EXPECT_FALSE(h.legal(isa::TileOp::TMATMUL_MX, 5, {1, 4, 2, 3}));  // scales of the wrong shape
}

// ---- ieee profile: the "matrix" group of the hardware numeric vectors ----
// (../shared/pto-spec-0.58.3/evidence/pto-isa-0583-hardware-numeric-vectors.json)

std::uint64_t fp32(double v) { return num::encode_double(DataType::FP32, v, num::RoundingMode::RNE).bits; }

// A (rows x 2) = left, B (2 x 2) = [[5, 6], [7, 8]] in FP32 CUBE tiles 1 and 2.
void fp32_operands(DirectCube& h, unsigned function, const std::vector<std::array<double, 2>>& left) {
  h.profile = tile::NumericProfile::Ieee;
  h.select(function, DataType::FP32);
  const auto rows = static_cast<std::uint32_t>(left.size());
  h.cube(1, rows, 2, DataType::FP32, TileLayout::CubeM16);
  h.cube(2, 2, 2, DataType::FP32, TileLayout::CubeN8);
  for (std::uint32_t r = 0; r < rows; ++r)
    for (std::uint32_t c = 0; c < 2; ++c) h.write(1, r, c, fp32(left[r][c]));
  const double right[2][2] = {{5, 6}, {7, 8}};
  for (std::uint32_t r = 0; r < 2; ++r)
    for (std::uint32_t c = 0; c < 2; ++c) h.write(2, r, c, fp32(right[r][c]));
  h.cube(3, rows, 2, DataType::FP32, TileLayout::CubeM16);
}

TEST(HardwareNumericVectors, MatrixFp32Matmul2x2) {  // fp32-matmul-2x2
  DirectCube h;
  fp32_operands(h, 0, {{1, 2}, {3, 4}});
  h.execute(isa::TileOp::TMATMUL, 3, {1, 2});
  EXPECT_EQ(h.read(3, 0, 0), fp32(19));
  EXPECT_EQ(h.read(3, 0, 1), fp32(22));
  EXPECT_EQ(h.read(3, 1, 0), fp32(43));
  EXPECT_EQ(h.read(3, 1, 1), fp32(50));
}

TEST(HardwareNumericVectors, MatrixFp32MatmulBias) {  // fp32-matmul-bias: [19, 22] + [1, -2]
  DirectCube h;
  fp32_operands(h, 1, {{1, 2}});
  h.plain(4, 2, 1, 2, DataType::FP32, TileLocation::Matrix);
  h.write(4, 0, 0, fp32(1));
  h.write(4, 0, 1, fp32(-2));
  h.execute(isa::TileOp::TMATMUL_BIAS, 3, {1, 2, 4});
  EXPECT_EQ(h.read(3, 0, 0), fp32(20));
  EXPECT_EQ(h.read(3, 0, 1), fp32(20));
}

TEST(HardwareNumericVectors, MatrixFp32MatmulAcc) {  // fp32-matmul-acc: [10, 20] + [19, 22]
  DirectCube h;
  fp32_operands(h, 2, {{1, 2}});
  h.cube(4, 1, 2, DataType::FP32, TileLayout::CubeM16);
  h.write(4, 0, 0, fp32(10));
  h.write(4, 0, 1, fp32(20));
  h.execute(isa::TileOp::TMATMUL_ACC, 3, {4, 1, 2});
  EXPECT_EQ(h.read(3, 0, 0), fp32(29));
  EXPECT_EQ(h.read(3, 0, 1), fp32(42));
}

// mx-k-block-33 (E4M3 x E5M2, all ones, K = 33, scales per 32-wide K block)
// and mx-e8m0-scale (1.5 scaled by E8M0 0x80 = 3.0, here as a 1x1 product).
class MxVectors : public ::testing::Test {
 protected:
  void SetUp() override { h.profile = tile::NumericProfile::Ieee; }
  // A = left (1 x k, E4M3) in 1, its scales in 2; B = right (k x 1, E5M2) in 3, its scales in 4.
  void operands(unsigned function, std::uint32_t k, std::uint64_t left, std::uint64_t right,
                const std::vector<std::uint64_t>& scale_a, const std::vector<std::uint64_t>& scale_b) {
    h.select(function, DataType::E4M3);
    h.cube(1, 1, k, DataType::E4M3, TileLayout::CubeM16, 1024);
    h.cube(3, k, 1, DataType::E5M2, TileLayout::CubeN8, 1024);
    for (std::uint32_t i = 0; i < k; ++i) {
      h.write(1, 0, i, left);
      h.write(3, i, 0, right);
    }
    const auto blocks = static_cast<std::uint32_t>(scale_a.size());
    h.plain(2, 8, 1, blocks, DataType::E8M0, TileLocation::Any);
    h.plain(4, 1, blocks, 1, DataType::E8M0, TileLocation::Any);
    for (std::uint32_t b = 0; b < blocks; ++b) {
      h.write(2, 0, b, scale_a[b]);
      h.write(4, b, 0, scale_b[b]);
    }
    h.cube(5, 1, 1, DataType::FP32, TileLayout::CubeM16);
  }
  DirectCube h;
};

// B.DATR DataType selects the right side's type; without B.DATR both sides
// are the BSTART type, so the E5M2 right side needs a direct selection here.
constexpr std::uint64_t kE4m3One = 0x38, kE5m2One = 0x3C;

TEST_F(MxVectors, KBlock33) {
  operands(4, 33, kE4m3One, kE5m2One, {0x7F, 0x80}, {0x7F, 0x81});
  h.select_right(DataType::E5M2);
  h.execute(isa::TileOp::TMATMUL_MX, 5, {1, 2, 3, 4});
  EXPECT_EQ(h.read(5, 0, 0), fp32(40));
}

TEST_F(MxVectors, KBlock33WithBias) {
  operands(5, 33, kE4m3One, kE5m2One, {0x7F, 0x80}, {0x7F, 0x81});
  h.select_right(DataType::E5M2);
  h.plain(6, 1, 1, 1, DataType::FP32, TileLocation::Any);
  h.write(6, 0, 0, fp32(2));
  h.execute(isa::TileOp::TMATMUL_MX_BIAS, 5, {1, 2, 3, 4, 6});
  EXPECT_EQ(h.read(5, 0, 0), fp32(42));
}

TEST_F(MxVectors, KBlock33WithPriorAccumulator) {
  operands(6, 33, kE4m3One, kE5m2One, {0x7F, 0x80}, {0x7F, 0x81});
  h.select_right(DataType::E5M2);
  h.cube(6, 1, 1, DataType::FP32, TileLayout::CubeM16);
  h.write(6, 0, 0, fp32(3));
  h.execute(isa::TileOp::TMATMUL_MX_ACC, 5, {6, 1, 2, 3, 4});
  EXPECT_EQ(h.read(5, 0, 0), fp32(43));
}

TEST_F(MxVectors, E8m0Scale) {
  // 1.5 (E4M3 0x3C) with scale 0x80 times 1.0 (E5M2) with scale 0x7F = 3.0.
  operands(4, 1, 0x3C, kE5m2One, {0x80}, {0x7F});
  h.select_right(DataType::E5M2);
  h.execute(isa::TileOp::TMATMUL_MX, 5, {1, 2, 3, 4});
  EXPECT_EQ(h.read(5, 0, 0), fp32(3.0));
}

// ---- CUBE cell layout (asl/tile/model/shape/cube-cell.asl) ----

TEST(CubeLayout, CellGeometryAndPayloadIndex) {
  // FP16 CUBE_M16: 16 x 4 cells along K; 6 valid columns need 2 cells.
  tile::CubeGeometry g = tile::cube_geometry(TileLayout::CubeM16, 3, 6, DataType::FP16);
  EXPECT_EQ(g.cell_rows, 16U);
  EXPECT_EQ(g.cell_columns, 4U);
  EXPECT_EQ(g.storage_rows, 16U);
  EXPECT_EQ(g.storage_columns, 8U);
  EXPECT_EQ(g.k_repeat, 2U);
  EXPECT_EQ(g.cell_count, 2U);
  EXPECT_EQ(g.storage_bytes, 256U);
  // FP16 CUBE_N8: 8 x 8 column-major cells, K-major inside a column group.
  g = tile::cube_geometry(TileLayout::CubeN8, 10, 9, DataType::FP16);
  EXPECT_EQ(g.cell_rows, 8U);
  EXPECT_EQ(g.storage_rows, 16U);
  EXPECT_EQ(g.storage_columns, 16U);
  EXPECT_EQ(g.k_repeat, 2U);
  EXPECT_EQ(g.n_repeat, 2U);
  tile::TileDescriptor d;
  d.layout = TileLayout::CubeN8;
  d.data_type = DataType::FP16;
  d.valid_rows = 10;
  d.valid_columns = 9;
  // (9, 8): column group 1, K cell 1 -> cell 1*2+1 = 3; inner (1, 0) -> 0*8+1.
  EXPECT_EQ(tile::cube_payload_index(d, 9, 8), 3U * 64 + 1);
  d.layout = TileLayout::CubeM16;
  d.valid_rows = 3;
  d.valid_columns = 6;
  EXPECT_EQ(tile::cube_payload_index(d, 2, 5), 1U * 64 + 2 * 4 + 1);
  // A four-bit M16 cell swaps column quads 4..7 and 8..11.
  d.data_type = DataType::S4X2;
  d.valid_columns = 16;
  EXPECT_EQ(tile::cube_payload_index(d, 0, 5), 9U);
  EXPECT_EQ(tile::cube_payload_index(d, 0, 9), 5U);
  EXPECT_EQ(tile::cube_payload_index(d, 1, 13), 16U + 13);
  // M16 holds at most 16 rows; 64-bit types and HiF4X2 have no CUBE layout.
  EXPECT_FALSE(tile::cube_geometry(TileLayout::CubeM16, 17, 1, DataType::FP16).valid());
  EXPECT_FALSE(tile::cube_geometry(TileLayout::CubeM16, 1, 1, DataType::FP64).valid());
  EXPECT_FALSE(tile::cube_geometry(TileLayout::CubeN8, 1, 1, DataType::HiF4X2).valid());
}

TEST(CubeLayout, ConfigureCubeChecksLocationCapacityAndBudget) {
  tile::TileFile f;
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.valid_rows = 16;
  r.valid_columns = 8;  // FP16 M16: 2 cells = 256 bytes
  r.data_type = DataType::FP16;
  r.layout = TileLayout::CubeM16;
  r.location = TileLocation::Matrix;
  r.mask = 0b1111;
  EXPECT_NE(f.configure_cube(1, r), FaultCode::Fault_None);  // too small for the cells
  r.capacity_bytes = 256;
  r.location = TileLocation::Any;
  EXPECT_NE(f.configure_cube(1, r), FaultCode::Fault_None);  // CUBE tiles live in Matrix
  r.location = TileLocation::Matrix;
  ASSERT_EQ(f.configure_cube(1, r), FaultCode::Fault_None);
  EXPECT_EQ(f.tile(1).descriptor().rows, 16U);
  EXPECT_EQ(f.tile(1).descriptor().columns, 8U);
  EXPECT_FALSE(f.tile(1).contents_defined());
  EXPECT_FALSE(f.descriptor_legal(1));  // no generic indexing on CUBE layouts
  EXPECT_TRUE(tile::cube_descriptor_legal(f.tile(1).descriptor()));
}

// ---- the Matrix bundle path (encoded instructions) ----

constexpr unsigned kFP16 = num::code_of(DataType::FP16), kS8 = num::code_of(DataType::S8);

std::uint64_t cube_start(unsigned function, unsigned dt) { return tile_start(0x00031181, function, dt); }

// B.FPATR PreQuantMode, ReluMode, GroupNCode, RowMaxEn, GroupMaxEn, RowMaxInit, MaxAbsEn.
std::uint64_t fpatr(unsigned pre = 0, unsigned relu = 0, unsigned group_n = 0, bool row_max = false,
                    bool group_max = false) {
  return 0x2023 | (std::uint64_t{pre} << 26) | (relu << 23) | (group_n << 19) | (unsigned{row_max} << 18) |
         (unsigned{group_max} << 17);
}

std::uint64_t iot_src_src_dst(unsigned s0, unsigned s1, unsigned size, unsigned hand = 0, unsigned pe_mode = 7,
                              bool last = true) {
  return encode_form(kBIotSrcSrcDst,
                     {{"SrcTile0", s0}, {"SrcTile1", s1}, {"SizeCode", size}, {"PEMode", pe_mode}, {"L", last}, {"DstTile", hand}});
}

// Raw-carrier expectations below follow the 0.58.3 reference profile.
void use_reference_profile(BundleTestHost& h) { block::tile_state(h.m).profile = tile::NumericProfile::Reference; }

void configure_cube(BundleTestHost& h, tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t,
                    TileLayout layout, std::uint32_t capacity = 1024) {
  configure_cube_tile(h.file, i, rows, columns, t, layout, capacity, 0b1111);
}

// A (m x k) in M#1 (index 32) and B (k x n) in M#2 (index 33), filled by `value`.
template <typename Value>
void operands(BundleTestHost& h, std::uint32_t m, std::uint32_t n, std::uint32_t k, DataType t, Value value) {
  configure_cube(h, 32, m, k, t, TileLayout::CubeM16);
  configure_cube(h, 33, k, n, t, TileLayout::CubeN8);
  for (std::uint32_t r = 0; r < m; ++r)
    for (std::uint32_t c = 0; c < k; ++c) h.file.tile(32).write_element(r, c, value(0, r, c));
  for (std::uint32_t r = 0; r < k; ++r)
    for (std::uint32_t c = 0; c < n; ++c) h.file.tile(33).write_element(r, c, value(1, r, c));
}

std::vector<std::uint64_t> matmul_words(unsigned function, unsigned dt, std::uint32_t m, std::uint32_t n,
                                        std::uint32_t k, unsigned size_code) {
  return {cube_start(function, dt), fpatr(), bdim(0, m), bdim(1, n), bdim(2, k), iot_src_src_dst(32, 33, size_code), kBstop};
}

std::int8_t s8_value(unsigned which, std::uint32_t r, std::uint32_t c) {
  return static_cast<std::int8_t>(static_cast<int>((which * 7 + r * 13 + c * 5) % 101) - 50);
}

TEST(MatrixBundle, S8MatmulMatchesHostLoop) {
  BundleTestHost h;
  constexpr std::uint32_t m = 4, n = 4, k = 24;
  operands(h, m, n, k, DataType::S8, [](unsigned w, std::uint32_t r, std::uint32_t c) {
    return static_cast<std::uint64_t>(static_cast<std::uint8_t>(s8_value(w, r, c)));
  });
  const auto o = h.run(matmul_words(0, kS8, m, n, k, 3));
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const tile::TileIndex d = h.destination();
  EXPECT_EQ(tile::hand_of(d), tile::TileHand::T);
  EXPECT_EQ(h.file.tile(d).data_type(), DataType::S32);
  EXPECT_EQ(h.file.tile(d).descriptor().layout, TileLayout::CubeM16);
  for (std::uint32_t r = 0; r < m; ++r)
    for (std::uint32_t c = 0; c < n; ++c) {
      std::int32_t expected = 0;
      for (std::uint32_t i = 0; i < k; ++i) expected += s8_value(0, r, i) * s8_value(1, i, c);
      EXPECT_EQ(static_cast<std::int32_t>(element_at(h, d, r, c)), expected) << r << "," << c;
    }
  // ADR 0014: exactly the valid region is defined, CELL padding is not.
  EXPECT_TRUE(h.file.tile(d).contents_defined());
  EXPECT_EQ(h.file.tile(d).defined_element_count(), m * n);
}

TEST(MatrixBundle, Fp16IeeeMatmulMatchesHostFloat) {
  BundleTestHost h;  // the real configuration runs the ieee profile
  ASSERT_EQ(block::tile_state(h.m).profile, tile::NumericProfile::Ieee);
  constexpr std::uint32_t m = 3, n = 5, k = 7;
  const auto value = [](unsigned w, std::uint32_t r, std::uint32_t c) {
    return (static_cast<float>((w * 3 + r * 5 + c * 11) % 9) - 4.0F) * 0.5F;  // exact in FP16
  };
  operands(h, m, n, k, DataType::FP16, [&](unsigned w, std::uint32_t r, std::uint32_t c) {
    return num::encode_double(DataType::FP16, value(w, r, c), num::RoundingMode::RNE).bits;
  });
  ASSERT_TRUE(h.run(matmul_words(0, kFP16, m, n, k, 3)).ok());
  const tile::TileIndex d = h.destination();
  for (std::uint32_t r = 0; r < m; ++r)
    for (std::uint32_t c = 0; c < n; ++c) {
      float expected = 0;
      for (std::uint32_t i = 0; i < k; ++i) expected += value(0, r, i) * value(1, i, c);
      EXPECT_EQ(element_at(h, d, r, c), num::encode_double(DataType::FP32, expected, num::RoundingMode::RNE).bits);
    }
}

TEST(MatrixBundle, MissingFpatrIsBundleControlBeforeAllocation) {
  BundleTestHost h;
  operands(h, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  const std::uint64_t used = h.file.core_capacity_in_use();
  const auto o = h.run({cube_start(0, kFP16), iot_src_src_dst(32, 33, 1), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_BundleControl);
  EXPECT_EQ(h.file.core_capacity_in_use(), used);
}

TEST(MatrixBundle, ZeroPeMaskIsANoOpEvenWithoutFpatr) {
  BundleTestHost h;  // no operands configured at all: nothing may be read
  const auto o = h.run({cube_start(0, kFP16), iot_src_src_dst(32, 33, 1, 0, 0), kBstop});
  EXPECT_TRUE(o.ok());
  EXPECT_TRUE(o.trace.zero_mask_no_op);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

TEST(MatrixBundle, UndefinedValidElementIsTileLegalityBeforeAllocation) {
  BundleTestHost h;  // ADR 0014: a whole-region consumer rejects an incomplete source
  operands(h, 2, 2, 2, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  h.file.tile(32).configure(h.file.tile(32).descriptor());  // clears every definedness bit
  h.file.tile(32).write_element(0, 0, 1);
  const std::uint64_t used = h.file.core_capacity_in_use();
  const auto o = h.run(matmul_words(0, kFP16, 2, 2, 2, 1));
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), used);
}

TEST(MatrixBundle, TooSmallDestinationIsTileAllocation) {
  BundleTestHost h;  // FP32 D of 16 x 8 in CUBE_M16 needs 4 cells (512 bytes)
  operands(h, 16, 8, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  const auto o = h.run(matmul_words(0, kFP16, 16, 8, 1, 1));
  EXPECT_EQ(o.fault, FaultCode::Fault_TileAllocation);
  EXPECT_TRUE(h.state().bundle_active);
  EXPECT_TRUE(h.run({kBstop}).status == BundleStatus::Fault);  // retry without a change faults again
}

// PTO-AVS-BLOCK-TMATMUL-UNUSED-IOR-001 and its twin on an otherwise legal
// plain TMATMUL (no B.FPATR scalar parameter, so BundleOperationGPRInputCount
// is 0): a B.IOR naming any register in an unused slot (RegSrc0, RegSrc1,
// RegSrc2) or a destination is Fault_TileLegality before allocation
// (BundleOperationScalarBindingSchemaLegal); the same bundle with every
// selector zero executes.  The spec point's own set-up is rejected by a later
// rule as well, so it cannot tell the scalar-binding rule from the others.
TEST(MatrixBundle, UnusedScalarBindingSlotRejectsBeforeAllocation) {
  const std::uint64_t unused_slots[] = {bior(2, 0), bior(0, 2), bior(0, 0, 2), bior(0, 0, 0, 2)};
  for (const std::uint64_t b_ior : unused_slots) {
    BundleTestHost h;
    operands(h, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
    const std::uint64_t used = h.file.core_capacity_in_use();
    const auto o = h.run({cube_start(0, kFP16), fpatr(), b_ior, bdim(0, 1), bdim(1, 1), bdim(2, 1),
                          iot_src_src_dst(32, 33, 1), kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << std::hex << b_ior;
    EXPECT_EQ(h.file.core_capacity_in_use(), used);
  }
}

// The twins below run under the reference profile, so their results come
// from the ASL by hand: TileProfileMatrixAccumulate multiplies the raw
// carriers (asl/arch/profile/reference-profile.asl).  A = B = 0x4000 gives
// the FP32 carrier 0x10000000, a positive normal (2^-95), which an all-zero
// B.FPATR passes unchanged and a ReLU keeps (MatrixSelectedMultiplier: a
// non-negative source keeps the scale 1.0; MatrixEncodeReal is exact).
constexpr std::uint64_t kTwinCarrier = 0x4000;
constexpr std::uint64_t kTwinProduct = kTwinCarrier * kTwinCarrier;

TEST(MatrixBundle, UnusedIor001Twin) {  // PTO-AVS-BLOCK-TMATMUL-UNUSED-IOR-001-TWIN: the unused slots zero
  BundleTestHost h;
  use_reference_profile(h);
  operands(h, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return kTwinCarrier; });
  const auto o = h.run({cube_start(0, kFP16), fpatr(), bior(0, 0), bdim(0, 1), bdim(1, 1), bdim(2, 1),
                        iot_src_src_dst(32, 33, 1), kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), kTwinProduct);
}

// BundleOperationScalarBindingValuesLegal: ReLU mode 2 (scalar LReLU) reads
// an FP19 word from RegSrc0 (FP19ActivationParameterLegal: bits 63:19 zero).
// PTO-AVS-BLOCK-TMATMUL-SLRELU-BITS-001 with otherwise legal operands (the
// vector's bundle is rejected for a second reason, docs/conformance.md); its
// twin holds 0 (positive zero) and executes.
TEST(MatrixBundle, ScalarLreluWordWithBit19Rejects) {
  for (const std::uint64_t word : {std::uint64_t{0x80000}, std::uint64_t{0}}) {
    BundleTestHost h;
    use_reference_profile(h);
    operands(h, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return kTwinCarrier; });
    h.m.state.write_gpr(1, word);
    const auto o = h.run({cube_start(0, kFP16), fpatr(0, 2), bior(1, 0), bdim(0, 1), bdim(1, 1), bdim(2, 1),
                          iot_src_src_dst(32, 33, 1), kBstop});
    if (word != 0) {
      EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    } else {
      ASSERT_TRUE(o.ok()) << "twin: " << static_cast<int>(o.fault) << " " << o.message;
      EXPECT_EQ(element_at(h, h.destination(), 0, 0), kTwinProduct);  // positive: the LReLU slope is not applied
    }
  }
}

// TMATMUL.ACC (Function 2) with C = [5] in T#1 (index 0, FP32 CUBE_M16) and
// A = B = [1]: the accumulator binding C ->T (SizeCode 1, 128 bytes), then A, B.
// Returns the outcome and, when it executed, D's element (reference profile: 1 * 1 + 5 = 6).
std::pair<BundleOutcome, std::uint64_t> accumulate_into(std::uint32_t c_columns, std::uint32_t c_capacity, unsigned relu) {
  BundleTestHost h;
  use_reference_profile(h);
  operands(h, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  configure_cube(h, 0, 1, c_columns, DataType::FP32, TileLayout::CubeM16, c_capacity);
  h.file.tile(0).write_element(0, 0, 5);
  if (c_columns > 1) h.file.tile(0).write_element(0, 1, 5);
  const std::uint64_t acc_binding =
      encode_form(kBIotSrcDst, {{"SrcTile0", 0}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 0}, {"DstTile", 1}});
  const std::uint64_t ab = encode_form(kBIotSrcSrc, {{"SrcTile0", 32}, {"SrcTile1", 33}, {"PEMode", 7}, {"L", 1}});
  const BundleOutcome o = h.run({cube_start(2, kFP16), fpatr(0, relu), bdim(0, 1), bdim(1, 1), bdim(2, 1), acc_binding, ab, kBstop});
  return {o, o.ok() ? element_at(h, h.destination(), 0, 0) : 0};
}

// PTO-AVS-BLOCK-TMATMUL-ACC-CAP-001 on otherwise legal operands (the vector's
// RowMajor A and B fail BundleMatrixLocalMathematicalSourcesLegal as well):
// without pre-quantisation C's capacity must equal the destination's
// SizeCode bytes (TileMatrixLocalCubeAccumulatorSchemaLegal), and ReLU alone
// does not relax it.  C of 256 bytes against SizeCode 1 (128) rejects; the
// twin (C of 128 bytes) executes.
TEST(MatrixBundle, AccumulatorCapacityMismatchRejectsUnderRelu) {
  EXPECT_EQ(accumulate_into(1, 256, 1).first.fault, FaultCode::Fault_TileLegality);
  const auto [twin, d] = accumulate_into(1, 128, 1);  // PTO-AVS-BLOCK-TMATMUL-ACC-CAP-001-TWIN
  ASSERT_TRUE(twin.ok()) << static_cast<int>(twin.fault) << " " << twin.message;
  EXPECT_EQ(d, 6U);
}

// PTO-AVS-BLOCK-TMATMUL-ACC-SHAPE-001 likewise: C's valid shape must be
// M x N (1 x 1); a 1 x 2 C rejects, the 1 x 1 twin executes.
TEST(MatrixBundle, AccumulatorShapeOtherThanMByNRejects) {
  EXPECT_EQ(accumulate_into(2, 128, 0).first.fault, FaultCode::Fault_TileLegality);
  const auto [twin, d] = accumulate_into(1, 128, 0);  // PTO-AVS-BLOCK-TMATMUL-ACC-SHAPE-001-TWIN
  ASSERT_TRUE(twin.ok()) << static_cast<int>(twin.fault) << " " << twin.message;
  EXPECT_EQ(d, 6U);
}

TEST(MatrixBundle, TgemvRequiresOneRow) {
  BundleTestHost h;
  operands(h, 2, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  EXPECT_EQ(h.run(matmul_words(16, kFP16, 2, 1, 1, 1)).fault, FaultCode::Fault_TileLegality);
}

TEST(MatrixBundle, AccumulatorIndexEqualToDestinationHandCodeRejects) {
  // PTO-CUBE-ACCUMULATOR-OUTPUT-001: C's selector is compared with the
  // zero-extended DstTile hand code; C = T#1 (index 0) with ->T (hand 0).
  BundleTestHost h;
  use_reference_profile(h);
  operands(h, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  configure_cube(h, 0, 1, 1, DataType::FP32, TileLayout::CubeM16, 128);
  h.file.tile(0).write_element(0, 0, 5);
  const std::uint64_t acc_binding =
      encode_form(kBIotSrcDst, {{"SrcTile0", 0}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 0}, {"DstTile", 0}});
  const std::uint64_t ab = encode_form(kBIotSrcSrc, {{"SrcTile0", 32}, {"SrcTile1", 33}, {"PEMode", 7}, {"L", 1}});
  EXPECT_EQ(h.run({cube_start(2, kFP16), fpatr(), acc_binding, ab, kBstop}).fault, FaultCode::Fault_TileLegality);
  // The same bundle naming hand U (code 1) executes: 1*1 + 5.
  BundleTestHost g;
  use_reference_profile(g);
  operands(g, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  configure_cube(g, 0, 1, 1, DataType::FP32, TileLayout::CubeM16, 128);
  g.file.tile(0).write_element(0, 0, 5);
  const std::uint64_t acc_u =
      encode_form(kBIotSrcDst, {{"SrcTile0", 0}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 0}, {"DstTile", 1}});
  ASSERT_TRUE(g.run({cube_start(2, kFP16), fpatr(), acc_u, ab, kBstop}).ok());
  EXPECT_EQ(element_at(g, g.destination(), 0, 0), 6U);
}

TEST(MatrixBundle, RowMaxIsPublishedWithTheProduct) {
  // B.FPATR RowMaxEn: a second destination receives each row's maximum
  // (TileProfileMatrixReductionStepWithFlags = MAX), published with D.
  BundleTestHost h;
  use_reference_profile(h);
  constexpr std::uint64_t kRight[3] = {5, 9, 3};
  operands(h, 2, 3, 1, DataType::FP16, [&](unsigned w, std::uint32_t r, std::uint32_t c) {
    return w == 0 ? std::uint64_t{r + 1U} : kRight[c];
  });
  const std::uint64_t row_max_destination =
      encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 1}});
  const auto o = h.run({cube_start(0, kFP16), fpatr(0, 0, 0, true), bdim(0, 2), bdim(1, 3), bdim(2, 1),
                        iot_src_src_dst(32, 33, 2, 0, 7, false), row_max_destination, kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const auto& d = o.trace.destinations;
  ASSERT_EQ(d.size(), 2U);
  EXPECT_EQ(element_at(h, d[0], 1, 2), 2U * 3U);
  EXPECT_EQ(h.file.tile(d[1]).descriptor().layout, TileLayout::RowMajor);
  EXPECT_EQ(h.file.tile(d[1]).descriptor().valid_columns, 1U);
  EXPECT_EQ(element_at(h, d[1], 0, 0), 9U);
  EXPECT_EQ(element_at(h, d[1], 1, 0), 18U);
}

// ResolveBundleTMATMULCubeDestinationGroup: an auxiliary destination's
// DerivedTileRows x columns must fit PTO_MODEL_TILE_ELEMENTS.  A RowMax
// destination of SizeCode 3 (512 bytes) with one FP32 column has 512 * 8 / 32
// = 128 rows, so 128 elements; the CUBE operands need 64 each (one CELL).
TEST(MatrixBundle, RowMaxDestinationIsBoundedByTheConfiguredLimit) {
  for (const std::uint32_t limit : {128U, 127U}) {
    arch::MachineConfig config = arch::MachineConfig::real();
    config.set_tile_elements(limit);
    BundleTestHost h(config);
    use_reference_profile(h);
    operands(h, 2, 3, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
    const std::uint64_t row_max_destination =
        encode_form(kBIotDst, {{"SizeCode", 3}, {"PEMode", 7}, {"L", 1}, {"DstTile", 1}});
    const auto o = h.run({cube_start(0, kFP16), fpatr(0, 0, 0, true), bdim(0, 2), bdim(1, 3), bdim(2, 1),
                          iot_src_src_dst(32, 33, 2, 0, 7, false), row_max_destination, kBstop});
    if (limit == 128) {
      ASSERT_TRUE(o.ok()) << o.message;
      EXPECT_EQ(h.file.tile(o.trace.destinations[1]).descriptor().rows, 128U);
    } else {
      EXPECT_EQ(o.fault, FaultCode::Fault_TileAllocation);
    }
  }
}

// SetBundleFixedPointAttributeState: BundleFPATRFieldsLegal rejects at the
// B.FPATR command itself (Fault_TileLegality at its PC) before the
// descriptor becomes visible; a legal B.FPATR may then still be placed.
TEST(MatrixBundle, InconsistentFpatrEnablesFaultAtTheCommand) {
  constexpr std::uint64_t kRowMaxInit = 1U << 16, kMaxAbs = 1U << 15;
  const std::uint64_t inconsistent[] = {
      fpatr() | kRowMaxInit,         // RowMaxInit requires RowMaxEn
      fpatr(0, 0, 0, false, true),   // GroupMaxEn requires a nonzero GroupNCode
      fpatr(0, 0, 3),                // a nonzero GroupNCode requires GroupMaxEn
      fpatr() | kMaxAbs,             // MaxAbsEn requires RowMaxEn or GroupMaxEn
  };
  for (const std::uint64_t word : inconsistent) {
    BundleTestHost h;
    const arch::Word command_pc = h.m.state.pc + 4;  // after the 32-bit BSTART
    const auto o = h.run({cube_start(0, kFP16), word});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << std::hex << word;
    EXPECT_EQ(o.fault_address, command_pc) << std::hex << word;
    EXPECT_FALSE(h.state().fixed_point_attributes.valid) << std::hex << word;
  }
  BundleTestHost h;  // consistent enables latch
  ASSERT_TRUE(h.run({cube_start(0, kFP16), fpatr(0, 0, 3, true, true) | kRowMaxInit | kMaxAbs}).ok());
  EXPECT_TRUE(h.state().fixed_point_attributes.valid);
  EXPECT_EQ(h.state().fixed_point_attributes.group_n_code, 3U);
  EXPECT_TRUE(h.state().fixed_point_attributes.row_max_init);
}

// ---- B.FPATR pre-quantisation and activation (matrix-postprocess.asl) ----
// Expected values are hand-derived from MatrixPostQuantBaseWithFlags.

constexpr std::uint64_t kFp16One = 0x3c00, kFp16OneAndHalf = 0x3e00, kFp16Seventy = 0x5460;

// A = [1.0] (1 x 1, tile 32), B = [b0, b1] (1 x 2, tile 33), FP16.
void one_by_two_fp16(BundleTestHost& h, std::uint64_t b0, std::uint64_t b1) {
  operands(h, 1, 2, 1, DataType::FP16, [&](unsigned w, std::uint32_t, std::uint32_t c) {
    return w == 0 ? kFp16One : c == 0 ? b0 : b1;
  });
}

// A 1 x 2 parameter row (tile i, RowMajor, location Any; U64 unless `t`).
void parameter_row(BundleTestHost& h, tile::TileIndex i, std::uint64_t p0, std::uint64_t p1, DataType t = DataType::U64) {
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = r.valid_columns = 2;
  r.valid_rows = 1;
  r.data_type = t;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(i, r), FaultCode::Fault_None);
  h.file.tile(i).write_element(0, 0, p0);
  h.file.tile(i).write_element(0, 1, p1);
}

std::uint64_t fp19(std::uint32_t fp32) { return num::fp32_to_fp19(fp32); }
num::Flags status_flags(const BundleTestHost& h) {
  return static_cast<num::Flags>((h.m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F);
}

// PTO-AVS-BLOCK-B-FPATR-COMMIT-006 through a complete bundle: QF322B8 (mode
// 24) with its scalar B.IOR parameter (scale 2.0, offset 0) converts
// P = [1.5, 70.0] to S8 [3, 140 wrapped = 0x8C]; OF|NX reach CORE_STATE only
// with the commit.
TEST(MatrixPostprocessBundle, ScalarRequantisationCommitsDAndFlagsTogether) {
  BundleTestHost h;
  one_by_two_fp16(h, kFp16OneAndHalf, kFp16Seventy);
  h.gpr[7] = tile::postprocess::quant_parameter(num::fp32_to_fp19(0x40000000), 0, 9);
  const std::vector<std::uint64_t> words{cube_start(0, kFP16), fpatr(24), bior(7, 0), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                                         iot_src_src_dst(32, 33, 4)};
  ASSERT_TRUE(h.run(words).ok());
  EXPECT_EQ(status_flags(h), 0U);
  const auto o = h.run({kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const tile::TileIndex d = h.destination();
  EXPECT_EQ(h.file.tile(d).data_type(), DataType::S8);
  EXPECT_EQ(element_at(h, d, 0, 0), 3U);
  EXPECT_EQ(element_at(h, d, 0, 1), 0xffffffffffffff8cULL);
  EXPECT_EQ(status_flags(h), num::kOF | num::kNX);
}

TEST(MatrixPostprocessBundle, DatrSatClampsTheFinalEncoding) {
  BundleTestHost h;  // as above with B.DATR Sat = 1: 140 clamps to 127
  one_by_two_fp16(h, kFp16OneAndHalf, kFp16Seventy);
  h.gpr[7] = tile::postprocess::quant_parameter(num::fp32_to_fp19(0x40000000), 0, 9);
  const auto o = h.run({cube_start(0, kFP16), fpatr(24), encode_form(kBDatr, {{"DataType", kFP16}, {"Sat", 1}}),
                        bior(7, 0), bdim(0, 1), bdim(1, 2), bdim(2, 1), iot_src_src_dst(32, 33, 4), kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), 3U);
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 127U);
  EXPECT_EQ(status_flags(h), num::kOF | num::kNX);
}

// QF322B8 vector (mode 23): column c uses row 0, column c of the parameter
// source after the mathematical ones: 1.5 * 2.0 - 1 = 2 and 70 * 0.5 + 3 = 38.
TEST(MatrixPostprocessBundle, VectorQuantisationIsPerColumn) {
  BundleTestHost h;
  one_by_two_fp16(h, kFp16OneAndHalf, kFp16Seventy);
  namespace pp = tile::postprocess;
  parameter_row(h, 40, pp::quant_parameter(num::fp32_to_fp19(0x40000000), 0x1ff, 9),
                pp::quant_parameter(num::fp32_to_fp19(0x3f000000), 3, 9));
  const std::uint64_t parameters = encode_form(kBIotSrc, {{"SrcTile0", 40}, {"PEMode", 7}, {"L", 1}});
  const auto o = h.run({cube_start(0, kFP16), fpatr(23), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                        iot_src_src_dst(32, 33, 4, 0, 7, false), parameters, kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), 2U);
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 38U);
  EXPECT_EQ(status_flags(h), 0U);
}

// Vector PReLU without pre-quantisation keeps FP32: [-2.0, 4.0] with alpha
// [0.25, 0.5] gives [-0.5, 4.0] (the positive element keeps multiplier 1).
TEST(MatrixPostprocessBundle, VectorPreluScalesOnlyNegativeElements) {
  BundleTestHost h;
  one_by_two_fp16(h, 0xc000, 0x4400);
  parameter_row(h, 40, fp19(0x3e800000), fp19(0x3f000000));
  const std::uint64_t alphas = encode_form(kBIotSrc, {{"SrcTile0", 40}, {"PEMode", 7}, {"L", 1}});
  const auto o = h.run({cube_start(0, kFP16), fpatr(0, 3), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                        iot_src_src_dst(32, 33, 1, 0, 7, false), alphas, kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  EXPECT_EQ(h.file.tile(h.destination()).data_type(), DataType::FP32);
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), 0xbf000000U);
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 0x40800000U);
}

// ReLU on an S32 accumulator (reference profile, S8 inputs): [-3, 2] -> [0, 2].
TEST(MatrixPostprocessBundle, ReluZeroesNegativeIntegerAccumulators) {
  BundleTestHost h;
  use_reference_profile(h);
  operands(h, 1, 2, 1, DataType::S8, [](unsigned w, std::uint32_t, std::uint32_t c) -> std::uint64_t {
    return w == 0 ? 0xff : c == 0 ? 3 : 0xfe;
  });
  const auto o = h.run({cube_start(0, kS8), fpatr(0, 1), bdim(0, 1), bdim(1, 2), bdim(2, 1), iot_src_src_dst(32, 33, 1), kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), 0U);
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 2U);
}

// Parameter legality is part of the complete-bundle preflight: an FP19 scale
// of zero (scalar) or a nonzero reserved bit (vector) faults before any
// allocation, payload snapshot or status flag.
TEST(MatrixPostprocessBundle, IllegalParametersFaultBeforeAnyEffect) {
  namespace pp = tile::postprocess;
  BundleTestHost h;
  one_by_two_fp16(h, kFp16OneAndHalf, kFp16Seventy);
  const std::uint64_t used = h.file.core_capacity_in_use();
  h.gpr[7] = pp::quant_parameter(0, 0, 9);
  const auto scalar = h.run({cube_start(0, kFP16), fpatr(24), bior(7, 0), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                             iot_src_src_dst(32, 33, 4), kBstop});
  EXPECT_EQ(scalar.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), used);
  EXPECT_EQ(status_flags(h), 0U);

  BundleTestHost g;
  one_by_two_fp16(g, kFp16OneAndHalf, kFp16Seventy);
  // PTO-AVS-TILE-MATRIX-VQUANT-DESC-001's words: FP19 0x400 with S9 offset 1,
  // then the same word plus one (a reserved low bit).
  const std::uint64_t normal_parameter = pp::quant_parameter(0x400, 1, 9);
  parameter_row(g, 40, normal_parameter, normal_parameter + 1);
  const std::uint64_t before = g.file.core_capacity_in_use();
  const auto vector = g.run({cube_start(0, kFP16), fpatr(23), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                             iot_src_src_dst(32, 33, 4, 0, 7, false),
                             encode_form(kBIotSrc, {{"SrcTile0", 40}, {"PEMode", 7}, {"L", 1}}), kBstop});
  EXPECT_EQ(vector.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(g.file.core_capacity_in_use(), before);
}

// PTO-AVS-BLOCK-TMATMUL-SQUANT-BITS-001 on otherwise legal operands (the
// vector's bundle also fails the local source and accumulator type rules):
// QF322B8 (mode 24) with the legal scalar word of ScalarRequantisation...
// executes; the same word with reserved bit 0 set rejects before allocation
// (BundleOperationScalarBindingValuesLegal, MatrixQuantParameterLegal).
TEST(MatrixPostprocessBundle, ScalarQuantWordWithReservedBitRejects) {
  const std::uint64_t legal = tile::postprocess::quant_parameter(num::fp32_to_fp19(0x40000000), 0, 9);
  for (const std::uint64_t word : {legal | 1U, legal}) {  // the second is the twin
    BundleTestHost h;
    one_by_two_fp16(h, kFp16OneAndHalf, kFp16Seventy);
    h.gpr[7] = word;
    const std::uint64_t used = h.file.core_capacity_in_use();
    const auto o = h.run({cube_start(0, kFP16), fpatr(24), bior(7, 0), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                          iot_src_src_dst(32, 33, 4), kBstop});
    if (word != legal) {
      EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
      EXPECT_EQ(h.file.core_capacity_in_use(), used);
    } else {  // PTO-AVS-BLOCK-TMATMUL-SQUANT-BITS-001-TWIN: 1.5 * 2 = 3
      ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
      EXPECT_EQ(element_at(h, h.destination(), 0, 0), 3U);
    }
  }
}

// PTO-AVS-BLOCK-TMATMUL-VQUANT-DESC-001 on otherwise legal operands: the
// vector quantisation source of VQF322B8 (mode 23) must be a Local U64
// RowMajor 1 x N tile (TileMatrixAuxiliarySourceSchemaLegal).  The same
// legal words (offset 0, so they fit 32 bits) in a U32 row reject before
// allocation; in a U64 row (the twin) they give 1.5 * 2 = 3 and 70 * 0.5 = 35.
TEST(MatrixPostprocessBundle, VectorQuantSourceOfTypeU32Rejects) {
  namespace pp = tile::postprocess;
  const std::uint64_t two = pp::quant_parameter(num::fp32_to_fp19(0x40000000), 0, 9);
  const std::uint64_t half = pp::quant_parameter(num::fp32_to_fp19(0x3f000000), 0, 9);
  ASSERT_EQ(two >> 32, 0U);
  ASSERT_EQ(half >> 32, 0U);
  for (const DataType t : {DataType::U32, DataType::U64}) {  // the second is the twin
    BundleTestHost h;
    one_by_two_fp16(h, kFp16OneAndHalf, kFp16Seventy);
    parameter_row(h, 40, two, half, t);
    const std::uint64_t used = h.file.core_capacity_in_use();
    const auto o = h.run({cube_start(0, kFP16), fpatr(23), bdim(0, 1), bdim(1, 2), bdim(2, 1),
                          iot_src_src_dst(32, 33, 4, 0, 7, false),
                          encode_form(kBIotSrc, {{"SrcTile0", 40}, {"PEMode", 7}, {"L", 1}}), kBstop});
    if (t == DataType::U32) {
      EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
      EXPECT_EQ(h.file.core_capacity_in_use(), used);
    } else {  // PTO-AVS-BLOCK-TMATMUL-VQUANT-DESC-001-TWIN
      ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
      EXPECT_EQ(element_at(h, h.destination(), 0, 0), 3U);
      EXPECT_EQ(element_at(h, h.destination(), 0, 1), 35U);
    }
  }
}

// PTO-AVS-TILE-POST-MAXABS-SINGLE-002 through a bundle: a one-element S32
// accumulator of -3 (reference profile, S8 -1 * 3) with RowMaxEn, GroupMaxEn
// (GroupN 8) and MaxAbsEn publishes its magnitude 3 to both auxiliary outputs.
TEST(MatrixPostprocessBundle, SingleElementMaxAbsReductions) {
  BundleTestHost h;
  use_reference_profile(h);
  operands(h, 1, 1, 1, DataType::S8, [](unsigned w, std::uint32_t, std::uint32_t) -> std::uint64_t {
    return w == 0 ? 0xff : 3;
  });
  const auto auxiliary = [](bool last) {
    return encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", last}, {"DstTile", 1}});
  };
  constexpr std::uint64_t kMaxAbs = 1U << 15;
  const auto o = h.run({cube_start(0, kS8), fpatr(0, 0, 1, true, true) | kMaxAbs, iot_src_src_dst(32, 33, 1, 0, 7, false),
                        auxiliary(false), auxiliary(true), kBstop});
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << " " << o.message;
  const auto& d = o.trace.destinations;
  ASSERT_EQ(d.size(), 3U);
  EXPECT_EQ(element_at(h, d[0], 0, 0), static_cast<std::uint64_t>(-3));
  EXPECT_EQ(element_at(h, d[1], 0, 0), 3U);
  EXPECT_EQ(element_at(h, d[2], 0, 0), 3U);
}

// A TileMatrix block whose Function names no CUBE operation is not
// BundleCubeMatrixSelected; DecodeTileOperation then fails
// (Fault_IllegalInstruction), after BundleSharedBindingsUnconsumed
// (Fault_TileLegality) (asl/block/model/dispatch/tile-execution.asl).
TEST(MatrixBundle, UnassignedMatrixFunctionIsIllegalInstruction) {
  for (const bool shared : {false, true}) {
    BundleTestHost h;
    arch::BundleOperationDescriptor& d = h.state().operation;
    d.valid = d.selector_valid = d.data_type_valid = true;
    d.operation_class = arch::BundleOperationClass::TileMatrix;
    d.selector = 3;  // TileMatrixFunctionAssigned(3) is false
    d.data_type = kFP16;
    h.state().shared_bindings[0].valid = shared;
    EXPECT_TRUE(scalar::is_fault(block::commit_tile_bundle(h.m, isa::TileOp::TMATMUL)));
    EXPECT_EQ(h.m.state.last_fault, shared ? FaultCode::Fault_TileLegality : FaultCode::Fault_IllegalInstruction);
  }
}

// ---- Shared A/B operands (asl/block/model/dispatch/shared-cube-matrix.asl) ----

// B.FPATR TransA (bit 7) and TransB (bit 8), every other field zero.
std::uint64_t fpatr_transpose(bool a, bool b) { return fpatr() | (unsigned{a} << 7) | (unsigned{b} << 8); }
std::uint64_t ios_source(unsigned shared_id) { return encode_form(kBIos, {{"SharedTID", shared_id}, {"PEMode", 7}}); }
std::uint64_t iot_dst(unsigned size, unsigned hand = 0) {
  return encode_form(kBIotDst, {{"SizeCode", size}, {"PEMode", 7}, {"L", 1}, {"DstTile", hand}});
}

// Publishes a 2 x 2 U16 RowMajor value in all four quarters of S<id>
// (SharedTileCooperativeMatrixReady when `publish`).
void install_shared_2x2(BundleTestHost& h, unsigned id, std::array<std::uint64_t, 4> values, bool publish = true) {
  tile::SharedShape shape;
  shape.capacity_bytes = 128;
  shape.columns = shape.valid_rows = shape.valid_columns = 2;
  shape.data_type = DataType::U16;
  tile::Tile t;
  t.configure(tile::shared_descriptor(shape));
  for (std::uint32_t e = 0; e < 4; ++e) t.write_element(e / 2, e % 2, values[e]);
  ASSERT_TRUE(tile::atomic_update_shared(h.file, id, t, 0b1111, publish));
}

// A = [[1,2],[3,4]], B = [[5,6],[7,8]]: A.B = [[19,22],[43,50]] (hand-derived).
constexpr std::array<std::uint64_t, 4> kAT{1, 3, 2, 4}, kBT{5, 7, 6, 8}, kProduct{19, 22, 43, 50};

std::vector<std::uint64_t> shared_pair_words(bool trans_a, bool trans_b, std::uint32_t m = 2) {
  return {cube_start(0, kU16), fpatr_transpose(trans_a, trans_b), bdim(0, m), bdim(1, 2), bdim(2, 2),
          ios_source(1), ios_source(2), iot_dst(4), kBstop};
}

TEST(MatrixSharedBundle, TransposedSharedPairMultipliesLogicalOperands) {
  BundleTestHost h;
  install_shared_2x2(h, 1, kAT);  // A stored transposed (TransA)
  install_shared_2x2(h, 2, kBT);  // B stored transposed (TransB)
  const auto o = h.run(shared_pair_words(true, true));
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << o.message;
  const tile::Tile& d = h.file.tile(h.destination());
  EXPECT_EQ(d.descriptor().layout, TileLayout::CubeM16);  // no Local A or C: smallest CUBE M layout for M = 2
  EXPECT_EQ(d.data_type(), DataType::U32);
  for (std::uint32_t e = 0; e < 4; ++e) EXPECT_EQ(d.read_word(d.linear_index(e / 2, e % 2)), kProduct[e]) << e;
  ASSERT_EQ(o.trace.shared_bindings.size(), 2U);  // ConsumeBundleSharedBindings(2)
  EXPECT_TRUE(o.trace.shared_bindings[0].consumed);
  EXPECT_TRUE(o.trace.shared_bindings[1].consumed);
  EXPECT_EQ(h.file.shared(1).tile.read_word(h.file.shared(1).tile.linear_index(0, 1)), 3U);  // sources unchanged
}

TEST(MatrixSharedBundle, UntransposedPairReadsStoredOrder) {
  BundleTestHost h;  // the same registers without TransA/TransB multiply A^T . B^T = (B.A)^T
  install_shared_2x2(h, 1, kAT);
  install_shared_2x2(h, 2, kBT);
  const auto o = h.run(shared_pair_words(false, false));
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << o.message;
  const tile::Tile& d = h.file.tile(h.destination());
  constexpr std::array<std::uint64_t, 4> kExpected{23, 31, 34, 46};  // [[1*5+3*6, 1*7+3*8], [2*5+4*6, 2*7+4*8]]
  for (std::uint32_t e = 0; e < 4; ++e) EXPECT_EQ(d.read_word(d.linear_index(e / 2, e % 2)), kExpected[e]) << e;
}

// Every rejection below is Fault_TileLegality before any allocation, with the
// Shared bindings left unconsumed.
void expect_rejected_before_effect(BundleTestHost& h, const std::vector<std::uint64_t>& words) {
  const std::uint64_t used = h.file.core_capacity_in_use();
  const auto o = h.run(words);
  EXPECT_EQ(o.status, BundleStatus::Fault);
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), used);
  EXPECT_FALSE(h.state().shared_bindings[0].consumed);
}

TEST(MatrixSharedBundle, SharedOperandsNeedPowerOfTwoDimensions) {  // BundleTMATMULDimensionsLegal
  BundleTestHost h;
  install_shared_2x2(h, 1, kAT);
  install_shared_2x2(h, 2, kBT);
  expect_rejected_before_effect(h, shared_pair_words(true, true, 3));
}

TEST(MatrixSharedBundle, UnpublishedRegisterIsNotCooperativelyReady) {  // SharedTileCooperativeMatrixReady
  BundleTestHost h;
  install_shared_2x2(h, 1, kAT, false);
  install_shared_2x2(h, 2, kBT);
  expect_rejected_before_effect(h, shared_pair_words(true, true));
}

TEST(MatrixSharedBundle, SharedDestinationBindingIsNotASource) {  // BundleMatrixSharedSourceSchemaLegal
  BundleTestHost h;
  install_shared_2x2(h, 1, kAT);
  install_shared_2x2(h, 2, kBT);
  std::vector<std::uint64_t> words = shared_pair_words(true, true);
  words[6] = encode_form(kBIos, {{"SharedTID", 2}, {"SizeCode", 1}, {"PEMode", 7}});  // B.IOS mask=1111, ->S2
  expect_rejected_before_effect(h, words);
}

TEST(MatrixSharedBundle, TransAWithLocalAIsRejected) {  // BundleMatrixSharedSchemasLegal
  BundleTestHost h;
  configure_cube(h, 32, 2, 2, DataType::U16, TileLayout::CubeM16);
  for (std::uint32_t e = 0; e < 4; ++e) h.file.tile(32).write_element(e / 2, e % 2, e + 1);
  install_shared_2x2(h, 2, kBT);
  const std::vector<std::uint64_t> words{cube_start(0, kU16), fpatr_transpose(true, false), bdim(0, 2), bdim(1, 2),
                                         bdim(2, 2), ios_source(2),
                                         encode_form(kBIotSrcDst, {{"SrcTile0", 32}, {"SizeCode", 4}, {"PEMode", 7},
                                                                   {"L", 1}, {"DstTile", 0}}),
                                         kBstop};
  expect_rejected_before_effect(h, words);
  // TransB on the Shared B of the same stream is legal: A.B with B stored transposed.
  BundleTestHost g;
  configure_cube(g, 32, 2, 2, DataType::U16, TileLayout::CubeM16);
  for (std::uint32_t e = 0; e < 4; ++e) g.file.tile(32).write_element(e / 2, e % 2, e + 1);
  install_shared_2x2(g, 2, kBT);
  std::vector<std::uint64_t> legal = words;
  legal[1] = fpatr_transpose(false, true);
  const auto o = g.run(legal);
  ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << o.message;
  const tile::Tile& d = g.file.tile(g.destination());
  for (std::uint32_t e = 0; e < 4; ++e) EXPECT_EQ(d.read_word(d.linear_index(e / 2, e % 2)), kProduct[e]) << e;
}

// PTO-AVS-BLOCK-TGEMV-SHARED-001 on an otherwise legal bundle: M = 1, Local
// A (1 x 2), Shared B (TransB).  As TMATMUL (Function 0) it executes; as
// TGEMV (Function 16) the Shared binding alone makes it Fault_TileLegality
// (TileMatrixSharedSourceCountLegal: TGEMV is Local-only).  The spec point
// binds no Local operand at all, so it cannot single this rule out.
TEST(MatrixSharedBundle, TgemvRejectsASharedOperandThatTmatmulAccepts) {
  for (const unsigned function : {0U, 16U}) {
    BundleTestHost h;
    configure_cube(h, 32, 1, 2, DataType::U16, TileLayout::CubeM16);
    for (std::uint32_t c = 0; c < 2; ++c) h.file.tile(32).write_element(0, c, c + 1);
    install_shared_2x2(h, 2, kBT);
    const std::vector<std::uint64_t> words{
        cube_start(function, kU16), fpatr_transpose(false, true), bdim(0, 1), bdim(1, 2), bdim(2, 2), ios_source(2),
        encode_form(kBIotSrcDst, {{"SrcTile0", 32}, {"SizeCode", 4}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
        kBstop};
    if (function == 16) {
      expect_rejected_before_effect(h, words);
      continue;
    }
    const auto o = h.run(words);
    ASSERT_TRUE(o.ok()) << static_cast<int>(o.fault) << o.message;
    const tile::Tile& d = h.file.tile(h.destination());
    EXPECT_EQ(d.read_word(d.linear_index(0, 0)), 19U);  // [1, 2] . [[5, 6], [7, 8]] = [19, 22]
    EXPECT_EQ(d.read_word(d.linear_index(0, 1)), 22U);
  }
}

TEST(MatrixSharedBundle, TransposeWithoutSharedOperandsIsRejected) {
  BundleTestHost h;
  operands(h, 1, 1, 1, DataType::FP16, [](unsigned, std::uint32_t, std::uint32_t) { return std::uint64_t{1}; });
  const std::uint64_t used = h.file.core_capacity_in_use();
  const auto o = h.run({cube_start(0, kFP16), fpatr_transpose(false, true), iot_src_src_dst(32, 33, 1), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), used);
}

}  // namespace
}  // namespace pto::test
