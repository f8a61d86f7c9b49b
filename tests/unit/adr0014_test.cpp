// ADR 0014 (element-level tile definedness): one named test per bullet of
// the decision.  State-level bullets drive the tile register file directly
// (ConfigureTile / WriteTileElement / ReadTileElement of
// asl/tile/model/definedness/elements.asl); operation-level bullets run
// encoded bundles through the machine.  Expected values are hand-derived from
// the ASL named in each comment.
#include <gtest/gtest.h>

#include <vector>

#include "bundle_test_host.hpp"
#include "tile/tile_memory.hpp"
#include "tile/tile_state.hpp"
#include "tile_request.hpp"

namespace pto::tile {
namespace {

using test::u32_request;

// Bullet: one definedness bit per payload element (packed 4-bit included).
TEST(Adr0014, OneDefinednessBitPerPayloadElementIncludingPacked) {
  TileFile f;
  ConfigureRequest r = u32_request(128, 16, 16, 16);
  r.data_type = DataType::S4X2;
  ASSERT_EQ(f.configure(0, r), FaultCode::Fault_None);
  f.tile(0).write_element(0, 0, 3);
  EXPECT_TRUE(f.tile(0).element_defined_at(0, 0));
  EXPECT_FALSE(f.tile(0).element_defined_at(0, 1));  // sibling nibble in the same byte
  EXPECT_EQ(f.tile(0).defined_element_count(), 1U);
}

// Bullets: a count of defined elements in the current valid region;
// contents_defined is derived from it, never an independent flag.
TEST(Adr0014, ValidRegionCountAndDerivedSummary) {
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 2, 2)), FaultCode::Fault_None);
  Tile& t = f.tile(0);
  EXPECT_EQ(t.defined_valid_elements(), 0U);
  t.write_element(0, 0, 1);
  t.write_element(0, 1, 2);
  t.write_element(1, 0, 3);
  EXPECT_FALSE(t.contents_defined());
  t.write_element(1, 1, 4);
  EXPECT_EQ(t.defined_valid_elements(), 4U);
  EXPECT_TRUE(t.contents_defined());  // derived: count == ValidRow x ValidCol
}

// Bullet: an element write defines only that element; rewriting it does not
// increment the valid-region count.
TEST(Adr0014, ElementWriteDefinesOnlyThatElementAndRewriteDoesNotRecount) {
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 2, 2)), FaultCode::Fault_None);
  Tile& t = f.tile(0);
  t.write_element(1, 1, 7);
  t.write_element(1, 1, 8);
  EXPECT_EQ(t.defined_valid_elements(), 1U);
  EXPECT_FALSE(t.element_defined_at(0, 0));
  EXPECT_EQ(t.read_raw(t.linear_index(1, 1)), 8U);
}

// Bullet: a generic element read needs the selected element's bit, not a
// sibling's.
TEST(Adr0014, ElementReadNeedsItsOwnBit) {  // ReadTileElement asserts the element's bit
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 2, 2)), FaultCode::Fault_None);
  f.tile(0).write_element(0, 0, 1);
  EXPECT_TRUE(f.tile(0).element_defined_at(0, 0));
  EXPECT_FALSE(f.tile(0).element_defined_at(0, 1));
  EXPECT_FALSE(f.source_contents_defined(0));
}

// Bullet: a full-destination writer marks the valid region defined after
// all payload effects (the TLOAD primitive; the bundle-level case is
// FullDestinationBundleDefinesNothingWhenItFaults below).
TEST(Adr0014, FullDestinationWriterMarksRegionDefinedAfterEffects) {
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 2, 4)), FaultCode::Fault_None);
  std::vector<std::byte> mem(64);
  for (unsigned i = 0; i < 64; ++i) mem[i] = static_cast<std::byte>(i);
  FlatTileMemory port(mem);
  ASSERT_TRUE(tload(f.tile(0), port, 0, 16).ok());
  EXPECT_TRUE(f.tile(0).contents_defined());
  EXPECT_EQ(f.tile(0).read_raw(f.tile(0).linear_index(1, 0)), 0x13121110U);
  EXPECT_FALSE(f.tile(0).element_defined_at(2, 0));  // outside the valid region stays undefined
}

// Bullet: a partial update leaves every untouched bit as it was, so the
// region is complete only when the untouched part was defined.
TEST(Adr0014, PartialUpdaterNeedsUntouchedRegionDefined) {
  // The model's partial-update primitive is the element write: a tile with one
  // element rewritten keeps every other bit, so a later whole-region consumer
  // still sees exactly the bits that producers set.
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 1, 4)), FaultCode::Fault_None);
  for (unsigned c = 0; c < 3; ++c) f.tile(0).write_element(0, c, c);
  EXPECT_FALSE(f.tile(0).contents_defined());  // column 3 untouched -> not defined
  f.tile(0).write_element(0, 3, 3);
  EXPECT_TRUE(f.tile(0).contents_defined());
}

// Bullet: allocation, reconfiguration, release and reset clear all
// element definedness and the count.
TEST(Adr0014, AllocationReconfigurationReleaseAndResetClear) {
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 1, 1)), FaultCode::Fault_None);
  f.tile(0).write_element(0, 0, 9);
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 1, 1)), FaultCode::Fault_None);  // reconfiguration
  EXPECT_EQ(f.tile(0).defined_element_count(), 0U);
  EXPECT_EQ(f.tile(0).defined_valid_elements(), 0U);
  f.tile(0).write_element(0, 0, 9);
  f.release(0);
  EXPECT_EQ(f.tile(0).defined_element_count(), 0U);
  EXPECT_FALSE(f.tile(0).allocated());
  ASSERT_EQ(f.configure(1, u32_request(128, 4, 1, 1)), FaultCode::Fault_None);
  f.tile(1).write_element(0, 0, 9);
  f.reset();
  EXPECT_EQ(f.tile(1).defined_element_count(), 0U);
  EXPECT_EQ(f.core_capacity_in_use(), 0U);
}

// Bullet: descriptor-and-payload copies carry definedness.
TEST(Adr0014, DescriptorAndPayloadCopyCarriesDefinedness) {
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 2, 2)), FaultCode::Fault_None);
  f.tile(0).write_element(0, 1, 5);
  f.tile(0).write_element(3, 3, 6);  // outside the valid region
  f.copy_tile(20, 0, 0b1111);
  EXPECT_TRUE(f.tile(20).element_defined_at(0, 1));
  EXPECT_TRUE(f.tile(20).element_defined_at(3, 3));
  EXPECT_FALSE(f.tile(20).element_defined_at(0, 0));
  EXPECT_EQ(f.tile(20).defined_valid_elements(), 1U);
  EXPECT_EQ(f.tile(20).read_raw(f.tile(20).linear_index(0, 1)), 5U);
}

// Closing paragraph: writes outside the valid region set their bit but do
// not count toward the summary.
TEST(Adr0014, WriteOutsideValidRegionSetsBitButDoesNotCount) {
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 1, 1)), FaultCode::Fault_None);
  f.tile(0).write_element(5, 3, 1);
  EXPECT_TRUE(f.tile(0).element_defined_at(5, 3));
  EXPECT_EQ(f.tile(0).defined_valid_elements(), 0U);
  EXPECT_FALSE(f.tile(0).contents_defined());
}

// Bullet: whole-region consumers need every valid element of the source
// (TileSourceContentsDefined); the bundle-level rejection is below.
TEST(Adr0014, SourceContentsDefinedNeedsTheWholeValidRegion) {
  // TSTORE of a partly defined source: the consumer check (TileSourceContentsDefined)
  // fails and memory is untouched.
  TileFile f;
  ASSERT_EQ(f.configure(0, u32_request(128, 4, 1, 2)), FaultCode::Fault_None);
  f.tile(0).write_element(0, 0, 0x11223344);
  EXPECT_FALSE(f.source_contents_defined(0));
  f.tile(0).write_element(0, 1, 0x55667788);
  EXPECT_TRUE(f.source_contents_defined(0));
}

}  // namespace
}  // namespace pto::tile

namespace pto::test {
namespace {

using arch::FaultCode;

// A 1x2 U32 Local tile at index 20 with only element (0, 0) defined
// (ConfigureTile + WriteTileElement).
void partly_defined_source(BundleTestHost& h) {
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = 2;
  r.valid_rows = 1;
  r.valid_columns = 2;
  r.data_type = tile::DataType::U32;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(20, r), arch::FaultCode::Fault_None);
  h.file.tile(20).write_element(0, 0, 1);
}

std::vector<std::uint64_t> tadd_of_tile_20() {
  return {tepl_start(0, kU32), bdim(0, 2),
          encode_form(kBIotSrcSrcDst, {{"SrcTile0", 20}, {"SrcTile1", 20}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}),
          kBstop};
}

// Bullet: a decoded operation that consumes a whole source valid region
// rejects an incomplete source before the first destination effect (TADD:
// Fault_TileLegality, no destination allocated; TSTORE: memory untouched).
TEST(Adr0014, WholeRegionConsumerRejectsIncompleteSourceBeforeFirstEffect) {
  BundleTestHost h;
  partly_defined_source(h);
  const auto before = h.file.core_capacity_in_use();
  EXPECT_EQ(h.run(tadd_of_tile_20()).fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), before);
  EXPECT_FALSE(h.file.tile(0).allocated());
  BundleTestHost g;
  partly_defined_source(g);
  g.store32(0x80, 0x5A5A5A5A);
  g.gpr[2] = 0x80;
  EXPECT_EQ(g.run({tstore_start(kU32), encode_form(kBIotSrc, {{"SrcTile0", 20}, {"PEMode", 7}, {"L", 1}}), bior(2, 0), kBstop}).fault,
            FaultCode::Fault_TileLegality);
  EXPECT_EQ(g.load32(0x80), 0x5A5A5A5AU);
}

// Bullet (same): the consumer accepts the source once its last element is
// defined, so the rejection above is due to definedness alone.
TEST(Adr0014, WholeRegionConsumerAcceptsTheSourceOnceComplete) {
  BundleTestHost h;
  partly_defined_source(h);
  h.file.tile(20).write_element(0, 1, 2);
  ASSERT_TRUE(h.run(tadd_of_tile_20()).ok());
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), 2U);
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 4U);
}

// Bullet: a full-destination writer marks the region defined only after all
// effects: a TLOAD that faults on its second row leaves no allocated,
// defined destination; the same TLOAD with a legal base defines all of it.
TEST(Adr0014, FullDestinationBundleDefinesNothingWhenItFaults) {
  auto w = two_by_two_tload(2);
  w.push_back(bior(2, 3));
  w.push_back(kBstop);
  BundleTestHost h(arch::MachineConfig::reference(4096));
  h.gpr[2] = 4096 - 8;  // row 0 fits, row 1 lies past the model memory
  h.gpr[3] = 8;
  EXPECT_EQ(h.run(w).fault, FaultCode::Fault_DataPage);
  for (tile::TileIndex i = 0; i < 16; ++i) EXPECT_FALSE(h.file.tile(i).allocated()) << unsigned{i};
  BundleTestHost g(arch::MachineConfig::reference(4096));
  g.gpr[2] = 0x100;
  g.gpr[3] = 8;
  ASSERT_TRUE(g.run(w).ok());
  EXPECT_TRUE(g.file.tile(g.destination()).contents_defined());
  EXPECT_EQ(g.file.tile(g.destination()).defined_valid_elements(), 4U);
}

}  // namespace
}  // namespace pto::test
