// Hand translations of spec test points under tests/asl/arch/profile that the
// extractors skip (they call the tile register file's model helpers
// directly).  Expected values are the points' own assertions; the parts with
// no counterpart in the model are named in each test's comment.
#include <gtest/gtest.h>

#include "arch/machine.hpp"
#include "block/bundle_engine.hpp"
#include "tile/tile_state.hpp"

namespace pto::test {
namespace {

// PTO-AVS-ARCH-CUBE-RESET-001 (arch-state-cube-reset-001.asl): a CUBE_N8
// FP16 tile (ConfigureCubeTile(0, 768, 13, 19, …, Matrix)) is configured,
// then ReleaseTile and, after configuring it again, ResetProfileState each
// leave register 0 unallocated, RowMajor, with no defined element.  The
// cube_k_repeat / cube_n_repeat / cube_cell_count / cube_storage_bytes
// fields have no stored counterpart: the model derives the CUBE geometry from
// the descriptor's layout and valid region (tile::cube_geometry), so a
// RowMajor unallocated descriptor has none.
TEST(SpecPointsArchProfile, PTO_AVS_ARCH_CUBE_RESET_001) {
  arch::Machine m(arch::MachineConfig::reference());
  const tile::ConfigureRequest cube{.capacity_bytes = 768, .valid_rows = 13, .valid_columns = 19,
                                    .data_type = tile::DataType::FP16, .layout = tile::TileLayout::CubeN8,
                                    .location = tile::TileLocation::Matrix, .mask = 0b0001};
  const auto expect_cleared = [&](const char* after) {
    const tile::Tile& t = block::tile_state(m).file.tile(0);
    EXPECT_FALSE(t.allocated()) << after;
    EXPECT_EQ(t.descriptor().layout, tile::TileLayout::RowMajor) << after;
    EXPECT_EQ(t.defined_valid_elements(), 0u) << after;
    EXPECT_FALSE(t.contents_defined()) << after;
  };
  ASSERT_EQ(block::tile_state(m).file.configure_cube(0, cube), tile::Fault::None);
  block::tile_state(m).file.release(0);
  expect_cleared("ReleaseTile");
  ASSERT_EQ(block::tile_state(m).file.configure_cube(0, cube), tile::Fault::None);
  m.reset();
  expect_cleared("ResetProfileState");
}

}  // namespace
}  // namespace pto::test
