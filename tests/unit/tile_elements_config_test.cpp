// PTO_MODEL_TILE_ELEMENTS (asl/arch/features/tile-allocation.asl:
// `config PTO_MODEL_TILE_ELEMENTS : integer {1..32768} = 32768`) as the
// machine configuration value arch::MachineConfig::tile_elements: the
// setter's range, the value reaching the tile model, and each check the ASL
// ties to it rejecting exactly at the bound.  Expected values are derived by
// hand from the ASL functions named in each test.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "bundle_test_host.hpp"
#include "tile/cube_layout.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using tile::DataType;
using tile::TileLayout;

arch::MachineConfig with_tile_elements(std::uint32_t elements, arch::MachineConfig c = arch::MachineConfig::real()) {
  c.set_tile_elements(elements);
  return c;
}

// A RowMajor tile on every PE whose valid region is defined with `value`.
void defined_tile(BundleTestHost& h, tile::TileIndex i, DataType t, std::uint32_t capacity, std::uint32_t columns,
                  std::uint32_t valid_rows, std::uint32_t valid_columns, std::uint64_t value) {
  tile::ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = columns;
  r.valid_rows = valid_rows;
  r.valid_columns = valid_columns;
  r.data_type = t;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(i, r), arch::FaultCode::Fault_None);
  for (std::uint32_t row = 0; row < valid_rows; ++row)
    for (std::uint32_t column = 0; column < valid_columns; ++column) h.file.tile(i).write_element(row, column, value);
}

void expect_model_stop(const BundleOutcome& o, const std::string& operation, std::uint32_t elements) {
  EXPECT_EQ(o.status, BundleStatus::NotImplemented);
  EXPECT_EQ(o.message.rfind("not implemented in this model: " + operation, 0), 0U) << o.message;
  EXPECT_NE(o.message.find("PTO_MODEL_TILE_ELEMENTS = " + std::to_string(elements)), std::string::npos) << o.message;
}

// ---- the configuration value ----

TEST(TileElementsConfig, DefaultIsTheAslDefault) {
  EXPECT_EQ(arch::kModelTileElementsDefault, 32768U);
  EXPECT_EQ(arch::MachineConfig{}.tile_elements, 32768U);
  EXPECT_EQ(arch::MachineConfig::real().tile_elements, 32768U);
  EXPECT_EQ(arch::MachineConfig::reference().tile_elements, 32768U);
  BundleTestHost h;
  EXPECT_EQ(h.file.model_tile_elements(), 32768U);
}

TEST(TileElementsConfig, SetterAcceptsTheConfigRange) {
  for (const std::uint32_t n : {1U, 64U, 127U, 32768U}) {
    arch::MachineConfig c;
    c.set_tile_elements(n);
    EXPECT_EQ(c.tile_elements, n);
  }
}

TEST(TileElementsConfig, SetterRejectsValuesOutsideOneTo32768) {
  for (const std::uint64_t n : {0ULL, 32769ULL, 1ULL << 32}) {
    arch::MachineConfig c;
    c.set_tile_elements(64);
    try {
      c.set_tile_elements(n);
      ADD_FAILURE() << n << " accepted";
    } catch (const std::invalid_argument& e) {
      const std::string what = e.what();
      EXPECT_NE(what.find(std::to_string(n)), std::string::npos) << what;
      EXPECT_NE(what.find("PTO_MODEL_TILE_ELEMENTS"), std::string::npos) << what;
      EXPECT_NE(what.find("1..32768"), std::string::npos) << what;
    }
    EXPECT_EQ(c.tile_elements, 64U);  // unchanged
  }
}

TEST(TileElementsConfig, TheMachineHandsItToTheTileFileAndResetKeepsIt) {
  BundleTestHost h(with_tile_elements(64, arch::MachineConfig::reference()));
  EXPECT_EQ(h.file.model_tile_elements(), 64U);
  h.m.reset();
  EXPECT_EQ(block::tile_state(h.m).file.model_tile_elements(), 64U);
}

// ---- footprint checks (return FALSE: Fault_TileLegality) ----

// BSTART.TPREFETCH U8; LB0 = ValidCol = 16; LB1 = ValidRow = 8; Col = 16.
std::vector<std::uint64_t> tprefetch_8x16() {
  return {tlsu_start(3, kU8), bdim(0, 16), bdim(1, 8), kBstop};
}

// BundleTPREFETCHDimensionsLegal: ValidRow * ValidCol = 128 <= PTO_MODEL_TILE_ELEMENTS.
TEST(TileElementsConfig, TprefetchFootprintOf128IsLegalAt128AndIllegalAt127) {
  BundleTestHost legal(with_tile_elements(128));
  EXPECT_TRUE(legal.run(tprefetch_8x16()).ok());
  BundleTestHost illegal(with_tile_elements(127));
  const BundleOutcome o = illegal.run(tprefetch_8x16());
  EXPECT_EQ(o.status, BundleStatus::Fault);
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
}

// BSTART.MGATHER U8; LB0 = 16; LB1 = 8; B.IOT U#1 (indices) -> T, SizeCode 1; B.IOR base = a2.
std::vector<std::uint64_t> mgather_8x16() {
  return {tlsu_start(4, kU8), bdim(0, 16), bdim(1, 8),
          encode_form(kBIotSrcDst, {{"SrcTile0", 16}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), bior(2, 0), kBstop};
}

// BundleMGATHERDimensionsLegal: ValidRow * ValidCol = 8 * 16 = 128 <= PTO_MODEL_TILE_ELEMENTS.
// The 128-byte U8 destination (DerivedTileRows = 128 / 16 = 8) needs 128
// payload slots, so at 128 the gather also completes.
TEST(TileElementsConfig, MgatherFootprintOf128IsLegalAt128AndIllegalAt127) {
  for (const std::uint32_t limit : {128U, 127U}) {
    BundleTestHost h(with_tile_elements(limit));
    defined_tile(h, 16, DataType::S32, 512, 16, 8, 16, 0);  // every lane reads displacement 0
    h.poke(0x200, 0x5a);
    h.gpr[2] = 0x200;
    const BundleOutcome o = h.run(mgather_8x16());
    if (limit == 128) {
      ASSERT_TRUE(o.ok());
      EXPECT_EQ(element_at(h, h.destination(), 7, 15), 0x5aU);
    } else {
      EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
      EXPECT_EQ(h.file.core_capacity_in_use(), 512U * 4);  // only the index tile
    }
  }
}

// ---- CUBE storage (TileCubeStorageElements) ----

// FP16 CUBE_N8, valid 13 x 19: a 128-byte CELL holds 64 FP16 elements as
// 8 rows x 8 columns (TileCubeCellRows/Columns), storage 16 x 24, so
// TileCubeCellCount = 2 * 3 = 6 and TileCubeStorageElements = 6 * 64 = 384
// (768 bytes).
TEST(TileElementsConfig, CubeStorageOf384ElementsIsLegalAt384AndIllegalAt383) {
  EXPECT_TRUE(tile::cube_descriptor_shape_legal(768, 13, 19, DataType::FP16, TileLayout::CubeN8, 384));
  EXPECT_FALSE(tile::cube_descriptor_shape_legal(768, 13, 19, DataType::FP16, TileLayout::CubeN8, 383));
  const tile::ConfigureRequest r{.capacity_bytes = 768, .valid_rows = 13, .valid_columns = 19,
                                 .data_type = DataType::FP16, .layout = TileLayout::CubeN8,
                                 .location = tile::TileLocation::Matrix, .mask = 0b0001};
  tile::TileFile f;
  f.set_model_tile_elements(383);
  EXPECT_EQ(f.configure_cube(0, r), arch::FaultCode::Fault_TileLegality);  // ConfigureCubeTileForMask returns FALSE
  f.set_model_tile_elements(384);
  ASSERT_EQ(f.configure_cube(0, r), arch::FaultCode::Fault_None);
  EXPECT_TRUE(tile::cube_descriptor_legal(f.tile(0).descriptor(), 384));
  EXPECT_FALSE(tile::cube_descriptor_legal(f.tile(0).descriptor(), 383));  // TileCubeDescriptorLegal
}

// ---- payload slots (TileStorageIndex / TilePackedCarrierIndex assertions) ----

// A U4X2 tile of 128 bytes with 16 columns: DerivedTileRows = 1024 / 64 = 16,
// 256 elements, always packed 16 per carrier (PackedTileDataTypeIsFourBit):
// the last element is in carrier 255 / 16 = 15.
TEST(TileElementsConfig, FourBitTilesAlwaysUsePackedCarriers) {
  tile::TileFile f;
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = r.valid_columns = 16;
  r.valid_rows = 16;
  r.data_type = DataType::U4X2;
  r.mask = 0b0001;
  ASSERT_EQ(f.configure(0, r), arch::FaultCode::Fault_None);
  f.set_model_tile_elements(16);
  EXPECT_TRUE(f.payload_representable(0));
  f.set_model_tile_elements(15);
  EXPECT_FALSE(f.payload_representable(0));
}

// TLOAD U32 2 x 2 with Col = 2 into a 128-byte destination: DerivedTileRows =
// 128 / (2 * 4) = 16, so 32 physical elements, all reached by TileWithPadding.
// At 32 or more each has its own slot (TileStorageIndex 31 < 32); below 32
// TileUsesPackedCarrierRepresentation packs two U32 per carrier and the last
// element is in carrier 31 / 2 = 15 (TilePackedCarrierIndex): representable
// down to 16, an ASL assertion at 15 and below.
std::vector<std::uint64_t> tload_2x2() {
  auto w = two_by_two_tload(2);
  w.push_back(bior(2, 3));
  w.push_back(kBstop);
  return w;
}

TEST(TileElementsConfig, TloadDestinationPayloadFitsDownToSixteenSlots) {
  for (const std::uint32_t limit : {32768U, 32U, 31U, 16U}) {
    BundleTestHost h(with_tile_elements(limit));
    h.gpr[2] = 0x100;
    h.gpr[3] = 8;
    ASSERT_TRUE(h.run(tload_2x2()).ok()) << limit;
    EXPECT_TRUE(h.file.tile(h.destination()).contents_defined()) << limit;
  }
}

TEST(TileElementsConfig, TloadBeyondTheSlotsStopsTheRunWithNoEffect) {
  for (const std::uint32_t limit : {15U, 1U}) {
    BundleTestHost h(with_tile_elements(limit));
    h.gpr[2] = 0x100;
    h.gpr[3] = 8;
    const BundleOutcome o = h.run(tload_2x2());
    expect_model_stop(o, "TLOAD.U32", limit);
    EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U);  // the renamed destination is rolled back
  }
}

// The assertion fires while the destination is written, after the memory
// probes: a TLOAD whose second row faults still reports the fault.
TEST(TileElementsConfig, AMemoryFaultPrecedesThePayloadAssertion) {
  BundleTestHost h(with_tile_elements(15, arch::MachineConfig::reference(4096)));
  h.gpr[2] = 4096 - 8;  // row 0 fits, row 1 lies past the model memory
  h.gpr[3] = 8;
  EXPECT_EQ(h.run(tload_2x2()).fault, FaultCode::Fault_DataPage);
}

// Shared TLOAD U8 4 x 32 into a 128-byte Shared register (TLOADShared):
// 4 x 32 = 128 physical elements; below 128 they are packed eight per
// carrier and the last is in carrier 127 / 8 = 15.
TEST(TileElementsConfig, SharedRegisterPayloadIsCheckedLikeALocalOne) {
  for (const std::uint32_t limit : {16U, 15U}) {
    BundleTestHost h(with_tile_elements(limit));
    for (unsigned pe = 0; pe < 4; ++pe) {
      h.m.state.gpr[pe][2] = 0x600;
      h.m.state.gpr[pe][3] = 32;
    }
    const BundleOutcome o =
        h.run({tlsu_start(0, kU8), bdim(0, 32), bdim(1, 4), bdim(2, 32), ios(12, 1), bior(2, 3), kBstop});
    if (limit == 16) EXPECT_TRUE(o.ok());
    else expect_model_stop(o, "TLOAD.U8", 15);
  }
}

// ---- predicate allocation (ConfigurePredicateTileForMask asserts) ----

// TCMPS U32 over a 1 x 8 source of 128 bytes: the predicate destination
// takes the source's physical shape, DerivedTileRows = 128 / (8 * 4) = 4 by
// 8 columns, and ConfigurePredicateTileForMask asserts 4 * 8 = 32 <=
// PTO_MODEL_TILE_ELEMENTS.
TEST(TileElementsConfig, PredicateDestinationOf32ElementsAllocatesAt32AndStopsAt31) {
  for (const std::uint32_t limit : {32U, 31U}) {
    BundleTestHost h(with_tile_elements(limit));
    defined_tile(h, 0, DataType::U32, 128, 8, 1, 8, 7);
    h.gpr[5] = 7;
    const BundleOutcome o = h.run({start_of(isa::TileOp::TCMPS, kU32), bdim(0, 8), bior(5, 0), src_to_hand1(0), kBstop});
    if (limit == 32) {
      ASSERT_TRUE(o.ok());
      const tile::TileDescriptor& d = h.file.tile(h.destination()).descriptor();
      EXPECT_EQ(d.storage_kind, tile::TileStorageKind::Predicate);
      EXPECT_EQ(std::uint64_t{d.rows} * d.columns, 32U);
    } else {
      expect_model_stop(o, "TCMPS.U32", 31);
      EXPECT_EQ(h.file.core_capacity_in_use(), 128U * 4);  // only the source
    }
  }
}

}  // namespace
}  // namespace pto::test
