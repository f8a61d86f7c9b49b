// Differential tests of the CUBE host kernels (tile/matrix_product.hpp,
// tile/matrix_kernels.hpp) against the exact per-element path they replace,
// which stays the oracle: every TMATMUL / TGEMV form runs twice through its
// semantic handler, host kernels on and off, on random shapes up to the
// largest legal tiles, every input type, every B.DATR rounding mode, both
// profiles, with NaN / infinity / subnormal / overflowing inputs.  The
// destination's whole payload (padding included) and its definedness must
// agree bit for bit; the product raises no status flags in either profile
// (TileProfileMatrixAccumulate returns a Word), and the direct handlers
// report none.
#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <random>
#include <string_view>
#include <vector>

#include "numerics/format.hpp"
#include "tile/cube_layout.hpp"
#include "tile/matrix_kernels.hpp"
#include "tile/matrix_product.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/tile_ops.hpp"

namespace pto::test {
namespace {

using tile::DataType;
using tile::NumericProfile;
using tile::TileLayout;
using tile::TileLocation;

// Tile roles in the file.
constexpr tile::TileIndex kD = 0, kC = 1, kA = 2, kAScale = 3, kB = 4, kBScale = 5, kBias = 6;

// B.DATR RMode codes (DecodeBundleRoundingSelection): 0 NONE (RNE), 1 RNE,
// 2 RTZ, 3 RTM, 4 RTP, 5 RNA, 6 RTO, 7 RHB.
constexpr unsigned kRoundingCodes = 8;
bool host_has_mode(unsigned code) { return code <= 4; }

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

// Raw element bits: uniformly random codes (every class: NaN, infinity,
// subnormal, extremes) with probability `wild`, else a value of moderate
// magnitude so long sums stay finite and cancel (floating), or any code
// (integers and narrow formats).
std::uint64_t random_element(DataType t, double wild, std::mt19937_64& rng) {
  const unsigned bits = tile::element_bits(t);
  const std::uint64_t any = rng() & (bits == 64 ? ~0ULL : (1ULL << bits) - 1);
  if (std::uniform_real_distribution<double>(0, 1)(rng) < wild || bits <= 8) return any;
  const std::uint64_t sign = rng() & 1;
  switch (t) {
    case DataType::FP32: case DataType::TF32: case DataType::HF32:
      return (sign << 31) | ((112 + rng() % 32) << 23) | (rng() & 0x7FFFFF);
    case DataType::FP16: return (sign << 15) | ((8 + rng() % 16) << 10) | (rng() & 0x3FF);
    case DataType::BF16: return (sign << 15) | ((112 + rng() % 32) << 7) | (rng() & 0x7F);
    default: return any;
  }
}

std::uint64_t random_scale(double wild, std::mt19937_64& rng) {  // E8M0: 2^(e - 127), 0xFF NaN
  if (std::uniform_real_distribution<double>(0, 1)(rng) < wild) return rng() & 0xFF;
  return 120 + rng() % 16;
}

std::uint32_t pow2_capacity(std::uint64_t bytes) {
  return static_cast<std::uint32_t>(std::bit_ceil(std::max<std::uint64_t>(bytes, tile::kTileCellBytes)));
}

class CubeHarness {
 public:
  CubeHarness(Form form, DataType left, DataType right, NumericProfile profile, unsigned rounding)
      : form_(form), left_(left), right_(right), function_(tile::matrix_function(form.function)) {
    profile_ = profile;
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

  // False when the shape has no legal CUBE tiles.
  bool shape(std::uint32_t m, std::uint32_t k, std::uint32_t n, TileLayout m_layout) {
    m_ = m;
    k_ = k;
    n_ = n;
    return cube(kA, m, k, left_, m_layout) && cube(kB, k, n, right_, TileLayout::CubeN8) &&
           cube(kD, m, n, result_type(), m_layout) && (!function_.accumulate || cube(kC, m, n, result_type(), m_layout));
  }

  void fill(double wild, std::mt19937_64& rng) {
    const std::uint32_t blocks = (k_ + 31) / 32;
    random_tile(kA, left_, wild, rng);
    random_tile(kB, right_, wild, rng);
    if (function_.accumulate) random_tile(kC, result_type(), wild, rng);
    if (function_.bias) {
      plain(kBias, 1, n_, result_type());
      random_tile(kBias, result_type(), wild, rng);
    }
    if (function_.mx) {
      plain(kAScale, m_, blocks, DataType::E8M0);
      plain(kBScale, blocks, n_, DataType::E8M0);
      for (const tile::TileIndex s : {kAScale, kBScale}) {
        const tile::TileDescriptor& d = file_.tile(s).descriptor();
        for (std::uint32_t r = 0; r < d.valid_rows; ++r)
          for (std::uint32_t c = 0; c < d.valid_columns; ++c) file_.tile(s).write_element(r, c, random_scale(wild, rng));
      }
    }
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
  // same filler both times, so padding written by either path shows).
  struct Outcome {
    std::vector<std::byte> payload;
    std::uint64_t defined = 0;
    std::uint8_t flags = 0;
  };
  Outcome run(bool kernels) {
    tile::Tile& d = file_.tile(kD);
    std::fill(d.payload().begin(), d.payload().end(), std::byte{0x5A});
    tile::set_matrix_kernels_enabled(kernels);
    tile::TileOperands operands;
    operands.destination[0] = kD;
    unsigned i = 0;
    if (function_.accumulate) operands.source[i++] = kC;
    operands.source[i++] = kA;
    if (function_.mx) operands.source[i++] = kAScale;
    operands.source[i++] = kB;
    if (function_.mx) operands.source[i++] = kBScale;
    if (function_.bias) operands.source[i] = kBias;
    const tile::TileKernel* kernel = tile::tile_kernel_table().get(form_.op);
    EXPECT_TRUE(kernel->operands_legal(file_, operands, bundle_));
    std::array<std::byte, 16> no_memory{};
    tile::FlatTileMemory memory(no_memory);
    tile::TileExecutionContext context{file_, memory, bundle_, operands};
    context.profile = profile_;
    const tile::TileResult result = kernel->execute(context);
    tile::set_matrix_kernels_enabled(true);
    EXPECT_TRUE(result.ok());
    return {{d.payload().begin(), d.payload().end()}, d.defined_element_count(), result.flags};
  }

  tile::Tile& tile(tile::TileIndex i) { return file_.tile(i); }

  std::uint32_t m_ = 0, k_ = 0, n_ = 0;

 private:
  bool cube(tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t, TileLayout layout) {
    const tile::CubeGeometry g = tile::cube_geometry(layout, rows, columns, t);
    if (!g.valid() || g.storage_bytes > tile::kLocalTileMaxBytes) return false;
    const tile::ConfigureRequest r{.capacity_bytes = pow2_capacity(g.storage_bytes), .valid_rows = rows,
                                   .valid_columns = columns, .data_type = t, .layout = layout,
                                   .location = TileLocation::Matrix, .mask = 0b0001};
    return file_.configure_cube(i, r) == arch::FaultCode::Fault_None;
  }
  void plain(tile::TileIndex i, std::uint32_t rows, std::uint32_t columns, DataType t) {
    tile::ConfigureRequest r;
    r.columns = std::bit_ceil(columns);
    r.capacity_bytes = pow2_capacity(std::uint64_t{std::bit_ceil(rows)} * r.columns * tile::element_bits(t) / 8);
    r.valid_rows = rows;
    r.valid_columns = columns;
    r.data_type = t;
    r.location = TileLocation::Matrix;
    r.mask = 0b0001;
    ASSERT_EQ(file_.configure(i, r), arch::FaultCode::Fault_None);
  }
  void random_tile(tile::TileIndex i, DataType t, double wild, std::mt19937_64& rng) {
    tile::Tile& tile = file_.tile(i);
    const tile::TileDescriptor& d = tile.descriptor();
    for (std::uint32_t r = 0; r < d.valid_rows; ++r)
      for (std::uint32_t c = 0; c < d.valid_columns; ++c) tile.write_element(r, c, random_element(t, wild, rng));
  }

  Form form_;
  DataType left_, right_;
  tile::MatrixFunction function_;
  NumericProfile profile_;
  tile::TileFile file_;
  arch::BlockState bundle_;
};

// Random legal dimensions up to the largest tiles: M <= 32 (CUBE_M32), K
// and N bounded by the 64 KiB tiles and PTO_MODEL_TILE_ELEMENTS.
bool random_shape(CubeHarness& h, bool gemv, std::mt19937_64& rng) {
  for (int attempt = 0; attempt < 64; ++attempt) {
    const std::uint32_t m = gemv ? 1 : 1 + static_cast<std::uint32_t>(rng() % 32);
    const auto dimension = [&rng] {
      return static_cast<std::uint32_t>(rng() % 8 == 0 ? 1 + rng() % 1024 : 1 + rng() % 64);
    };
    const std::uint32_t k = dimension(), n = dimension();
    const TileLayout layout = m <= 16 && rng() % 2 ? TileLayout::CubeM16 : TileLayout::CubeM32;
    if (h.shape(m, k, n, layout)) return true;
  }
  return false;
}

// Every kernel variant the CPU can run (the widest one is the default).
std::vector<std::string_view> kernel_variants() {
  const std::string_view widest = tile::kernels::kernel_isa();
  std::vector<std::string_view> out;
  for (const std::string_view isa : {"portable", "avx2", "avx512"})
    if (tile::kernels::select_kernel_isa(isa)) out.push_back(isa);
  tile::kernels::select_kernel_isa(widest);
  return out;
}

// The exact path once, then the host kernels of every variant.
void expect_same(CubeHarness& h, const std::string& what) {
  const CubeHarness::Outcome exact = h.run(false);
  EXPECT_EQ(exact.flags, 0U) << what;
  const std::string_view widest = tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    tile::kernels::select_kernel_isa(isa);
    const CubeHarness::Outcome fast = h.run(true);
    EXPECT_EQ(fast.defined, exact.defined) << what << " " << isa;
    EXPECT_EQ(fast.flags, exact.flags) << what << " " << isa;
    ASSERT_EQ(fast.payload.size(), exact.payload.size()) << what;
    const auto mismatch = std::mismatch(fast.payload.begin(), fast.payload.end(), exact.payload.begin());
    EXPECT_TRUE(mismatch.first == fast.payload.end())
        << what << " " << isa << ": first differing payload byte " << (mismatch.first - fast.payload.begin());
  }
  tile::kernels::select_kernel_isa(widest);
}

std::vector<DataType> left_types(const Form& form, NumericProfile) {
  if (tile::matrix_function(form.function).mx) return {std::begin(kMx), std::end(kMx)};
  std::vector<DataType> types(std::begin(kOrdinaryFloating), std::end(kOrdinaryFloating));
  types.insert(types.end(), std::begin(kSigned), std::end(kSigned));
  types.insert(types.end(), std::begin(kUnsigned), std::end(kUnsigned));
  return types;
}

// A right type of the left one's class (TileOrdinaryMatrixInputTypeSupported
// pairs by accumulator class; MX pairs any two MX types).
DataType right_type(const Form& form, DataType left, std::mt19937_64& rng) {
  std::vector<DataType> same;
  for (const DataType t : left_types(form, NumericProfile::Ieee))
    if (tile::matrix_function(form.function).mx || tile::ordinary_matrix_types_same_class(left, t)) same.push_back(t);
  return rng() % 2 ? left : same[rng() % same.size()];
}

std::string describe(const Form& f, DataType l, DataType r, NumericProfile p, unsigned rounding, const CubeHarness& h) {
  return std::string(num::name(l)) + "x" + std::string(num::name(r)) + " function " +
         std::to_string(f.function) + (p == NumericProfile::Ieee ? " ieee" : " reference") + " rmode " +
         std::to_string(rounding) + " " + std::to_string(h.m_) + "x" + std::to_string(h.k_) + "x" + std::to_string(h.n_);
}

// Every form, type, mode and profile on random shapes and inputs.
TEST(MatrixKernels, DifferentialAgainstExactPath) {
  std::mt19937_64 rng(20261202);
  for (const Form& form : kForms) {
    for (const NumericProfile profile : {NumericProfile::Ieee, NumericProfile::Reference}) {
      for (const DataType left : left_types(form, profile)) {
        for (unsigned rounding = 0; rounding < kRoundingCodes; ++rounding) {
          const DataType right = right_type(form, left, rng);
          CubeHarness h(form, left, right, profile, rounding);
          ASSERT_TRUE(random_shape(h, tile::matrix_function(form.function).gemv, rng));
          const double wild = std::array{0.0, 0.002, 0.05, 1.0}[rng() % 4];
          h.fill(wild, rng);
          expect_same(h, describe(form, left, right, profile, rounding, h));
        }
      }
    }
  }
}

// The host kernels run exactly where the module says they do: every mode the
// host has, and never RNA / RTO / RHB for ieee FP32 accumulation (there the
// handler's result comes from the exact path, checked above).
TEST(MatrixKernels, FastPathSelection) {
  std::mt19937_64 rng(7);
  for (unsigned rounding = 0; rounding < kRoundingCodes; ++rounding) {
    for (const NumericProfile profile : {NumericProfile::Ieee, NumericProfile::Reference}) {
      for (const DataType left : {DataType::FP16, DataType::S8}) {
        CubeHarness h(kForms[0], left, left, profile, rounding);
        ASSERT_TRUE(h.shape(16, 32, 24, TileLayout::CubeM16));
        h.fill(0.0, rng);
        const bool floating = profile == NumericProfile::Ieee && left == DataType::FP16;
        const auto modes = std::array{num::RoundingMode::RNE, num::RoundingMode::RNE, num::RoundingMode::RTZ,
                                      num::RoundingMode::RTM, num::RoundingMode::RTP, num::RoundingMode::RNA,
                                      num::RoundingMode::RTO, num::RoundingMode::RHB};
        EXPECT_EQ(tile::fast_product(h.product_tiles(), profile, modes[rounding]).has_value(),
                  !floating || host_has_mode(rounding))
            << rounding;
      }
    }
  }
}

// The largest legal shapes of each benchmark type, every host mode, with
// specials mixed in.
TEST(MatrixKernels, LargestShapes) {
  std::mt19937_64 rng(99);
  struct Largest {
    DataType type;
    std::uint32_t k, n;
  };
  for (const Largest& s : {Largest{DataType::FP32, 32, 512}, Largest{DataType::FP16, 64, 512},
                           Largest{DataType::BF16, 1024, 32}, Largest{DataType::S8, 64, 512}}) {
    for (const NumericProfile profile : {NumericProfile::Ieee, NumericProfile::Reference}) {
      for (unsigned rounding = 1; rounding <= 4; ++rounding) {
        CubeHarness h(kForms[2], s.type, s.type, profile, rounding);  // TMATMUL_ACC
        ASSERT_TRUE(h.shape(32, s.k, s.n, TileLayout::CubeM32)) << num::name(s.type);
        h.fill(0.001, rng);
        expect_same(h, describe(kForms[2], s.type, s.type, profile, rounding, h));
      }
    }
  }
}

// Hand-derived sums on the host kernels: the fused step rounds once (an
// unfused multiply-then-add would lose the low product bits), directed modes
// round the same way the spec's fused step does, and a NaN result is the
// canonical one whatever payload the inputs carry.
TEST(MatrixKernels, FusedStepByHand) {
  CubeHarness h(kForms[0], DataType::FP32, DataType::FP32, NumericProfile::Ieee, 2);  // RTZ
  ASSERT_TRUE(h.shape(1, 2, 2, TileLayout::CubeM16));
  const auto word = [](float v) { return std::uint64_t{std::bit_cast<std::uint32_t>(v)}; };
  const float e = std::ldexp(1.0f, -23);
  // Column 0: -(1 + 2^-22) + (1 + 2^-23)^2 = 2^-46 exactly; an unfused
  // second step would round the product to 1 + 2^-22 (RTZ) and give 0.
  h.tile(kA).write_element(0, 0, word(-1.0f));
  h.tile(kA).write_element(0, 1, word(1 + e));
  h.tile(kB).write_element(0, 0, word(1 + 2 * e));
  h.tile(kB).write_element(1, 0, word(1 + e));
  // Column 1: a signalling NaN with a payload, then 0 x (1 + 2^-23).
  h.tile(kB).write_element(0, 1, 0x7F800001U);
  h.tile(kB).write_element(1, 1, word(0.0f));
  const tile::ProductTiles t = h.product_tiles();
  const std::string_view widest = tile::kernels::kernel_isa();
  for (const std::string_view isa : kernel_variants()) {
    tile::kernels::select_kernel_isa(isa);
    const auto p = tile::fast_product(t, NumericProfile::Ieee, num::RoundingMode::RTZ);
    ASSERT_TRUE(p.has_value());
    EXPECT_EQ(p->word(0, 0), word(std::ldexp(1.0f, -46))) << isa;
    EXPECT_EQ(p->word(0, 1), 0x7FC00000U) << isa;
  }
  tile::kernels::select_kernel_isa(widest);
}

// TileLinearIndex splits into a row part and a column part for every layout
// the product reads (Tile::valid_offsets).
TEST(MatrixKernels, OffsetsAreSeparable) {
  for (const TileLayout layout : {TileLayout::CubeM16, TileLayout::CubeM32, TileLayout::CubeN8}) {
    for (const DataType t : {DataType::FP32, DataType::FP16, DataType::S8, DataType::E2M1X2}) {
      tile::TileFile f;
      const std::uint32_t rows = layout == TileLayout::CubeN8 ? 40 : (layout == TileLayout::CubeM16 ? 13 : 29);
      const tile::CubeGeometry g = tile::cube_geometry(layout, rows, 37, t);
      ASSERT_TRUE(g.valid());
      const tile::ConfigureRequest r{.capacity_bytes = pow2_capacity(g.storage_bytes), .valid_rows = rows,
                                     .valid_columns = 37, .data_type = t, .layout = layout,
                                     .location = TileLocation::Matrix, .mask = 0b0001};
      ASSERT_EQ(f.configure_cube(0, r), arch::FaultCode::Fault_None);
      const tile::Tile& tile = f.tile(0);
      const tile::Tile::Offsets o = tile.valid_offsets();
      for (std::uint32_t row = 0; row < rows; ++row)
        for (std::uint32_t c = 0; c < 37; ++c) ASSERT_EQ(o(row, c), tile.linear_index(row, c)) << row << "," << c;
    }
  }
}

}  // namespace
}  // namespace pto::test
