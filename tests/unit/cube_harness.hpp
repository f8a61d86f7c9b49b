// One TMATMUL / TGEMV form run through its semantic handler on CUBE tiles,
// host kernels on or off: the rig of the differential tests
// (matrix_kernels_test.cpp) and of the fuzz target fuzz/fuzz_cube_kernels.cpp.
// It reports through return values, never test macros, so both can use it.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <random>
#include <string_view>
#include <vector>

#include "numerics/format.hpp"
#include "tile/cube_layout.hpp"
#include "tile/matrix_kernels.hpp"
#include "tile/matrix_product.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/tile_ops.hpp"

namespace pto::test::cube {

using tile::DataType;
using tile::NumericProfile;
using tile::TileLayout;
using tile::TileLocation;

// Tile roles in the file.
constexpr tile::TileIndex kD = 0, kC = 1, kA = 2, kAScale = 3, kB = 4, kBScale = 5, kBias = 6;

// B.DATR RMode codes (DecodeBundleRoundingSelection): 0 NONE (RNE), 1 RNE,
// 2 RTZ, 3 RTM, 4 RTP, 5 RNA, 6 RTO, 7 RHB.
constexpr unsigned kRoundingCodes = 8;
inline bool host_has_mode(unsigned code) { return code <= 4; }

struct Form {
  isa::TileOp op;
  unsigned function;  // TileMatrixFunction code
};
constexpr Form kForms[] = {
    {isa::TileOp::TMATMUL, 0},     {isa::TileOp::TMATMUL_BIAS, 1},    {isa::TileOp::TMATMUL_ACC, 2},
    {isa::TileOp::TMATMUL_MX, 4},  {isa::TileOp::TMATMUL_MX_BIAS, 5}, {isa::TileOp::TMATMUL_MX_ACC, 6},
    {isa::TileOp::TGEMV, 16},      {isa::TileOp::TGEMV_BIAS, 17},     {isa::TileOp::TGEMV_ACC, 18},
    {isa::TileOp::TGEMV_MX, 20},   {isa::TileOp::TGEMV_MX_BIAS, 21},  {isa::TileOp::TGEMV_MX_ACC, 22},
};

constexpr DataType kOrdinaryFloating[] = {DataType::FP32, DataType::TF32,  DataType::HF32, DataType::FP16,
                                          DataType::BF16, DataType::HiF8,  DataType::E4M3, DataType::E5M2,
                                          DataType::E3M2, DataType::E2M3,  DataType::E2M1X2, DataType::E1M2X2};
constexpr DataType kSigned[] = {DataType::S16, DataType::S8, DataType::S4X2};
constexpr DataType kUnsigned[] = {DataType::U16, DataType::U8, DataType::U4X2};
constexpr DataType kMx[] = {DataType::FP16, DataType::BF16, DataType::E4M3, DataType::E5M2, DataType::E2M1X2,
                            DataType::E1M2X2};

// The left input types a form takes: MX types, or every ordinary one.
inline std::vector<DataType> left_types(const Form& form) {
  if (tile::matrix_function(form.function).mx) return {std::begin(kMx), std::end(kMx)};
  std::vector<DataType> types(std::begin(kOrdinaryFloating), std::end(kOrdinaryFloating));
  types.insert(types.end(), std::begin(kSigned), std::end(kSigned));
  types.insert(types.end(), std::begin(kUnsigned), std::end(kUnsigned));
  return types;
}

// The right types that go with `left` (TileOrdinaryMatrixInputTypeSupported
// pairs by accumulator class; MX pairs any two MX types).
inline std::vector<DataType> right_types(const Form& form, DataType left) {
  std::vector<DataType> same;
  for (const DataType t : left_types(form))
    if (tile::matrix_function(form.function).mx || tile::ordinary_matrix_types_same_class(left, t)) same.push_back(t);
  return same;
}

// Element values drawn from a random generator: uniformly random codes
// (every class: NaN, infinity, subnormal, extremes) with probability `wild`,
// else a value of moderate magnitude so long sums stay finite and cancel
// (floating), or any code (integers and narrow formats).
class RandomDraw {
 public:
  RandomDraw(double wild, std::mt19937_64& rng) : wild_(wild), rng_(rng) {}

  std::uint64_t element(DataType t) {
    const unsigned bits = tile::element_bits(t);
    const std::uint64_t any = rng_() & (bits == 64 ? ~0ULL : (1ULL << bits) - 1);
    if (is_wild() || bits <= 8) return any;
    const std::uint64_t sign = rng_() & 1;
    switch (t) {
      case DataType::FP32: case DataType::TF32: case DataType::HF32:
        return (sign << 31) | ((112 + rng_() % 32) << 23) | (rng_() & 0x7FFFFF);
      case DataType::FP16: return (sign << 15) | ((8 + rng_() % 16) << 10) | (rng_() & 0x3FF);
      case DataType::BF16: return (sign << 15) | ((112 + rng_() % 32) << 7) | (rng_() & 0x7F);
      default: return any;
    }
  }
  std::uint64_t scale() { return is_wild() ? rng_() & 0xFF : 120 + rng_() % 16; }  // E8M0: 2^(e - 127), 0xFF NaN

 private:
  bool is_wild() { return std::uniform_real_distribution<double>(0, 1)(rng_) < wild_; }
  double wild_;
  std::mt19937_64& rng_;
};

inline std::uint32_t pow2_capacity(std::uint64_t bytes) {
  return static_cast<std::uint32_t>(std::bit_ceil(std::max<std::uint64_t>(bytes, tile::kTileCellBytes)));
}

class CubeHarness {
 public:
  CubeHarness(Form form, DataType left, DataType right, NumericProfile profile, unsigned rounding)
      : form_(form), left_(left), right_(right), function_(tile::matrix_function(form.function)), profile_(profile) {
    arch::BundleOperationDescriptor& d = bundle_.operation;
    d.valid = true;
    d.operation_class = arch::BundleOperationClass::TileMatrix;
    d.selector_valid = true;
    d.selector = static_cast<std::uint16_t>(form.function);
    d.data_type_valid = true;
    d.data_type = num::code_of(left);
    bundle_.data_attributes_present = true;
    bundle_.data_attributes.data_type_present = true;
    bundle_.data_attributes.data_type = num::code_of(right);
    bundle_.data_attributes.rounding_mode = static_cast<std::uint8_t>(rounding);
  }

  DataType result_type() const { return function_.mx ? DataType::FP32 : tile::matrix_accumulator_type(left_); }
  bool is_gemv() const { return function_.gemv; }

  // False when the shape has no legal CUBE tiles.
  bool shape(std::uint32_t m, std::uint32_t k, std::uint32_t n, TileLayout m_layout) {
    m_ = m;
    k_ = k;
    n_ = n;
    return cube(kA, m, k, left_, m_layout) && cube(kB, k, n, right_, TileLayout::CubeN8) &&
           cube(kD, m, n, result_type(), m_layout) && (!function_.accumulate || cube(kC, m, n, result_type(), m_layout));
  }

  // Fills every input tile's valid region with `draw.element(type)` and the
  // MX scales with `draw.scale()`; false if a bias or scale tile has no legal
  // configuration.
  template <class Draw>
  bool fill(Draw& draw) {
    random_tile(kA, left_, draw);
    random_tile(kB, right_, draw);
    if (function_.accumulate) random_tile(kC, result_type(), draw);
    if (function_.bias) {
      if (!plain(kBias, 1, n_, result_type())) return false;
      random_tile(kBias, result_type(), draw);
    }
    if (!function_.mx) return true;
    const std::uint32_t blocks = (k_ + 31) / 32;
    if (!plain(kAScale, m_, blocks, DataType::E8M0) || !plain(kBScale, blocks, n_, DataType::E8M0)) return false;
    for (const tile::TileIndex s : {kAScale, kBScale}) {
      const tile::TileDescriptor& d = file_.tile(s).descriptor();
      for (std::uint32_t r = 0; r < d.valid_rows; ++r)
        for (std::uint32_t c = 0; c < d.valid_columns; ++c) file_.tile(s).write_element(r, c, draw.scale());
    }
    return true;
  }

  // The tiles as the semantic handler reads them.
  tile::ProductTiles product_tiles() const {
    const bool left_scaled = function_.mx && tile::mx_type_needs_scale(left_);
    const bool right_scaled = function_.mx && tile::mx_type_needs_scale(right_);
    return {&file_.tile(kA),  &file_.tile(kB),    &file_.tile(kAScale),  &file_.tile(kBScale),
            &file_.tile(kC),  &file_.tile(kBias), left_scaled,           right_scaled,
            function_.accumulate, function_.bias};
  }

  // The destination's payload bytes and defined-element count after one
  // execution with the host kernels on or off (the payload starts from the
  // same filler both times, so padding written by either path shows);
  // `legal` and `executed` say whether the handler accepted the operands and
  // completed.
  struct Outcome {
    std::vector<std::byte> payload;
    std::uint64_t defined = 0;
    std::uint8_t flags = 0;
    bool legal = false;
    bool executed = false;
  };
  Outcome run(bool kernels) {
    tile::Tile& d = file_.tile(destination_);
    if (saved_left_) d = *saved_left_;  // D is A: both runs start from the same A
    else std::fill(d.payload().begin(), d.payload().end(), std::byte{0x5A});
    tile::set_matrix_kernels_enabled(kernels);
    const tile::TileOperands operands = operand_record();
    const tile::TileKernel* kernel = tile::tile_kernel_table().get(form_.op);
    Outcome out;
    out.legal = kernel->operands_legal(file_, operands, bundle_);
    std::array<std::byte, 16> no_memory{};
    tile::FlatTileMemory memory(no_memory);
    tile::TileExecutionContext context{file_, memory, bundle_, operands};
    context.profile = profile_;
    const tile::TileResult result = kernel->execute(context);
    tile::set_matrix_kernels_enabled(true);
    out.executed = result.ok();
    out.payload.assign(d.payload().begin(), d.payload().end());
    out.defined = d.defined_element_count();
    out.flags = result.flags;
    return out;
  }

  tile::Tile& tile(tile::TileIndex i) { return file_.tile(i); }

  // Name A as the destination too (D == A; legal when A has D's type and
  // shape), after fill().
  void alias_destination_to_left() {
    destination_ = kA;
    saved_left_ = file_.tile(kA);
  }

  std::uint32_t m_ = 0, k_ = 0, n_ = 0;

 private:
  // Sources in the handler's order: C, A, A scale, B, B scale, bias.
  tile::TileOperands operand_record() const {
    tile::TileOperands operands;
    operands.destination[0] = destination_;
    unsigned i = 0;
    if (function_.accumulate) operands.source[i++] = kC;
    operands.source[i++] = kA;
    if (function_.mx) operands.source[i++] = kAScale;
    operands.source[i++] = kB;
    if (function_.mx) operands.source[i++] = kBScale;
    if (function_.bias) operands.source[i] = kBias;
    return operands;
  }
  bool cube(tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t, TileLayout layout) {
    const tile::CubeGeometry g = tile::cube_geometry(layout, rows, columns, t);
    if (!g.valid() || g.storage_bytes > tile::kLocalTileMaxBytes) return false;
    const tile::ConfigureRequest r{.capacity_bytes = pow2_capacity(g.storage_bytes), .valid_rows = rows,
                                   .valid_columns = columns, .data_type = t, .layout = layout,
                                   .location = TileLocation::Matrix, .mask = 0b0001};
    return file_.configure_cube(i, r) == arch::FaultCode::Fault_None;
  }
  bool plain(tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t) {
    tile::ConfigureRequest r;
    r.columns = std::bit_ceil(columns);
    r.capacity_bytes = pow2_capacity(std::uint64_t{std::bit_ceil(rows)} * r.columns * tile::element_bits(t) / 8);
    r.valid_rows = rows;
    r.valid_columns = columns;
    r.data_type = t;
    r.location = TileLocation::Matrix;
    r.mask = 0b0001;
    return file_.configure(i, r) == arch::FaultCode::Fault_None;
  }
  template <class Draw>
  void random_tile(tile::TileIndex i, DataType t, Draw& draw) {
    tile::Tile& tile = file_.tile(i);
    const tile::TileDescriptor& d = tile.descriptor();
    for (std::uint32_t r = 0; r < d.valid_rows; ++r)
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) tile.write_element(r, c, draw.element(t));
  }

  Form form_;
  tile::TileIndex destination_ = kD;
  std::optional<tile::Tile> saved_left_;
  DataType left_, right_;
  tile::MatrixFunction function_;
  NumericProfile profile_;
  tile::TileFile file_;
  arch::BlockState bundle_;
};

// Every kernel variant the CPU can run; the widest one stays selected.
inline std::vector<std::string_view> kernel_variants() {
  const std::string_view widest = tile::kernels::kernel_isa();
  std::vector<std::string_view> out;
  for (const std::string_view isa : {"portable", "avx2", "avx512"})
    if (tile::kernels::select_kernel_isa(isa)) out.push_back(isa);
  tile::kernels::select_kernel_isa(widest);
  return out;
}

}  // namespace pto::test::cube
