// The dedicated TLSU commit paths driven by encoded instruction sequences
// (asl/block/model/dispatch/{tlsu-*,shared-tlsu}.asl): every fault kind each
// path raises, the PE_MASK=0000 no-op, definedness of the results, the
// Shared register protocol (INSERT, PUBLISH, BROADCAST, EXTRACT, Shared
// TLOAD/TSTORE) and the per-PE memory events.  Expected values are derived
// by hand from the ASL units named in each test.
#include <gtest/gtest.h>

#include "bundle_test_host.hpp"
#include "tile/shared_tile.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;

constexpr unsigned kU64 = 24, kFP16 = 4;

std::uint64_t iot_dst(unsigned size, unsigned pe_mode = 7, unsigned hand = 0) {
  return encode_form(kBIotDst, {{"SizeCode", size}, {"PEMode", pe_mode}, {"L", 1}, {"DstTile", hand}});
}
std::uint64_t iot_src_dst(unsigned src, unsigned size, unsigned pe_mode = 7, bool last = true) {
  return encode_form(kBIotSrcDst, {{"SrcTile0", src}, {"SizeCode", size}, {"PEMode", pe_mode}, {"L", last ? 1 : 0}});
}
std::uint64_t iot_src_src(unsigned s0, unsigned s1, unsigned pe_mode = 7, bool last = true) {
  return encode_form(kBIotSrcSrc, {{"SrcTile0", s0}, {"SrcTile1", s1}, {"PEMode", pe_mode}, {"L", last ? 1 : 0}});
}
std::uint64_t iot_src(unsigned s0, unsigned pe_mode = 7, bool last = true) {
  return encode_form(kBIotSrc, {{"SrcTile0", s0}, {"PEMode", pe_mode}, {"L", last ? 1 : 0}});
}

// A tile on every PE (RowMajor unless given), the first valid elements in
// row-major logical order defined from `values`.
void local_tile(BundleTestHost& h, tile::TileIndex i, tile::DataType t, std::uint32_t columns, std::uint32_t vr,
                std::uint32_t vc, const std::vector<std::uint64_t>& values, std::uint32_t capacity = 128,
                tile::TileLayout layout = tile::TileLayout::RowMajor) {
  tile::ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = columns;
  r.valid_rows = vr;
  r.valid_columns = vc;
  r.data_type = t;
  r.layout = layout;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(i, r), arch::FaultCode::Fault_None);
  for (std::uint32_t k = 0; k < values.size(); ++k) h.file.tile(i).write_element(k / vc, k % vc, values[k]);
}

// ---- MGATHER (tlsu-mgather.asl) ----

// BSTART.MGATHER U32; LB0 = n; B.IOT T<indices> ->T size 1; B.IOR base=a2.
std::vector<std::uint64_t> mgather_words(unsigned n, unsigned dt = kU32) {
  return {tlsu_start(4, dt), bdim(0, n), iot_src_dst(16, 1), bior(2, 0), kBstop};
}

TEST(TlsuMgather, GathersByteDisplacementsAndDefinesThePhysicalRegion) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::S32, 4, 1, 2, {8, static_cast<std::uint64_t>(-4)});
  h.store32(0x208, 0xAAAA5555);
  h.store32(0x1FC, 0x01020304);
  h.gpr[2] = 0x200;
  ASSERT_TRUE(h.run(mgather_words(2)).ok());
  const auto d = h.destination();
  EXPECT_EQ(d, 0);  // renamed to the first free T register
  EXPECT_EQ(element_at(h, d, 0, 0), 0xAAAA5555U);
  EXPECT_EQ(element_at(h, d, 0, 1), 0x01020304U);
  const tile::Tile& t = h.file.tile(d);
  EXPECT_EQ(t.defined_element_count(), std::uint64_t{t.descriptor().rows} * t.descriptor().columns);
}

TEST(TlsuMgather, EveryLegalityFaultPrecedesAllocation) {
  struct Case {
    const char* what;
    std::vector<std::uint64_t> words;
    bool define_indices = true;
    tile::DataType index_type = tile::DataType::S32;
  };
  const std::vector<Case> cases{
      {"no B.IOR", {tlsu_start(4, kU32), bdim(0, 2), iot_src_dst(16, 1), kBstop}},
      {"no LB0", {tlsu_start(4, kU32), iot_src_dst(16, 1), bior(2, 0), kBstop}},
      {"LB2 not a power of two", {tlsu_start(4, kU32), bdim(0, 2), bdim(2, 3), iot_src_dst(16, 1), bior(2, 0), kBstop}},
      {"unconsumed RegSrc1", {tlsu_start(4, kU32), bdim(0, 2), iot_src_dst(16, 1), bior(2, 3), kBstop}},
      {"packed transfer type", mgather_words(2, kU4X2)},
      {"valid shape differs from LB", mgather_words(3)},
      {"undefined indices", mgather_words(2), false},
      {"floating-point indices", mgather_words(2), true, tile::DataType::FP32},
  };
  for (const Case& c : cases) {
    BundleTestHost h;
    local_tile(h, 16, c.index_type, 4, 1, 2, c.define_indices ? std::vector<std::uint64_t>{0, 4} : std::vector<std::uint64_t>{});
    h.gpr[2] = 0x200;
    const BundleOutcome o = h.run(c.words);
    EXPECT_EQ(o.status, BundleStatus::Fault) << c.what;
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << c.what;
    EXPECT_EQ(h.file.core_capacity_in_use(), 128U * 4) << c.what;  // only the index tile
  }
}

TEST(TlsuMgather, MemoryFaultsNameTheLaneAndRollBackTheDestination) {
  for (const auto& [displacement, fault] : {std::pair<std::uint64_t, FaultCode>{2, FaultCode::Fault_DataAlignment},
                                            {1ULL << 40, FaultCode::Fault_DataPage}}) {
    BundleTestHost h(arch::MachineConfig::reference());
    local_tile(h, 16, tile::DataType::U64, 4, 1, 2, {0, displacement});
    h.gpr[2] = 0x200;
    const BundleOutcome o = h.run(mgather_words(2));
    EXPECT_EQ(o.fault, fault);
    EXPECT_EQ(o.fault_address, 0x200 + displacement);
    EXPECT_EQ(h.file.core_capacity_in_use(), 128U * 4);  // destination rolled back
    EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
  }
}

TEST(TlsuMgather, ZeroPeMaskIsAStrictNoOp) {
  BundleTestHost h;  // no index tile, no LB0, no B.IOR: nothing is checked
  const BundleOutcome o = h.run({tlsu_start(4, kU32), iot_src_dst(16, 1, 0), kBstop});
  ASSERT_TRUE(o.ok());
  EXPECT_TRUE(o.trace.zero_mask_no_op);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

TEST(TlsuMgatherMask, DisabledLanesPadAndAreNotRead) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0, 4096ULL << 20});  // lane 1 would fault if read
  h.file.configure_predicate(17, 128, 1, 2, 1, 2, 0b1111);
  h.file.tile(17).payload()[0] = std::byte{0b01};  // lane 0 enabled
  h.file.tile(17).mark_valid_region_defined();
  h.store32(0x300, 77);
  h.gpr[2] = 0x300;
  ASSERT_TRUE(h.run({tlsu_start(6, kU32), bdim(0, 2), encode_form(kBIotSrcSrcDst, {{"SrcTile0", 16}, {"SrcTile1", 17},
                                                                                    {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}),
                     bior(2, 0), kBstop})
                  .ok());
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), 77U);
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 0U);  // Null padding
}

TEST(TlsuMgatherMask, NonPredicateMaskIsTileLegality) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0, 4});
  local_tile(h, 17, tile::DataType::U8, 4, 1, 2, {1, 1});
  h.gpr[2] = 0x300;
  const BundleOutcome o = h.run({tlsu_start(6, kU32), bdim(0, 2),
                                 encode_form(kBIotSrcSrcDst, {{"SrcTile0", 16}, {"SrcTile1", 17}, {"SizeCode", 1},
                                                              {"PEMode", 7}, {"L", 1}}),
                                 bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
}

// ---- MGATHER.CAS (tlsu-mgather-cas.asl, atomics.asl) ----

TEST(TlsuMgatherCas, AtomicPerLaneWithEvents) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0, 4});  // indices
  local_tile(h, 17, tile::DataType::U32, 4, 1, 2, {5, 9});  // expected
  local_tile(h, 18, tile::DataType::U32, 4, 1, 2, {50, 90});  // replacement
  h.store32(0x400, 5);
  h.store32(0x404, 6);
  h.gpr[2] = 0x400;
  h.m.start_memory_event_capture(0);
  ASSERT_TRUE(h.run({tlsu_start(8, kU32), bdim(0, 2), iot_src_src(16, 17, 7, false), iot_src_dst(18, 1), bior(2, 0), kBstop})
                  .ok());
  EXPECT_EQ(h.load32(0x400), 50U);  // matched
  EXPECT_EQ(h.load32(0x404), 6U);   // mismatched
  EXPECT_EQ(element_at(h, h.destination(), 0, 0), 5U);
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 6U);
  ASSERT_EQ(h.m.state.memory_event_count, 2);
  EXPECT_EQ(h.m.state.memory_events[0].kind, arch::MemoryEventKind::Atomic);
  EXPECT_TRUE(h.m.state.memory_events[0].write_performed);
  EXPECT_FALSE(h.m.state.memory_events[1].write_performed);
}

// atomics.asl: a matched lane stores through StoreTileMemoryElement, whose
// StoreTranslated clears an overlapping LR/SC reservation; a lane that does
// not match writes nothing and leaves it.
TEST(TlsuMgatherCas, MatchedLaneClearsAnOverlappingReservation) {
  for (const bool any_match : {true, false}) {
    BundleTestHost h;
    local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0, 4});
    local_tile(h, 17, tile::DataType::U32, 4, 1, 2, {any_match ? 5U : 7U, 9});
    local_tile(h, 18, tile::DataType::U32, 4, 1, 2, {50, 90});
    h.store32(0x400, 5);
    h.store32(0x404, 6);
    h.gpr[2] = 0x400;
    h.m.state.reservation_valid = true;
    h.m.state.reservation_address = 0x43C;  // granule 0x400..0x43F
    ASSERT_TRUE(
        h.run({tlsu_start(8, kU32), bdim(0, 2), iot_src_src(16, 17, 7, false), iot_src_dst(18, 1), bior(2, 0), kBstop})
            .ok());
    EXPECT_EQ(h.m.state.reservation_valid, !any_match);
  }
}

TEST(TlsuMgatherCas, ExpectedTypeMismatchIsTileLegality) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0, 4});
  local_tile(h, 17, tile::DataType::U16, 4, 1, 2, {5, 9});
  local_tile(h, 18, tile::DataType::U32, 4, 1, 2, {50, 90});
  h.gpr[2] = 0x400;
  const BundleOutcome o =
      h.run({tlsu_start(8, kU32), bdim(0, 2), iot_src_src(16, 17, 7, false), iot_src_dst(18, 1), bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), 3U * 4 * 128);
}

// ---- MSCATTER (tlsu-mscatter.asl) ----

TEST(TlsuMscatter, StoresAndFaultsBeforeAnyByte) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0x11, 0x22});  // values
  local_tile(h, 17, tile::DataType::U8, 4, 1, 2, {0, 8});         // displacements
  h.gpr[2] = 0x500;
  ASSERT_TRUE(h.run({tlsu_start(5, kU32), bdim(0, 2), bdim(2, 4), iot_src_src(16, 17), bior(2, 0), kBstop}).ok());
  EXPECT_EQ(h.load32(0x500), 0x11U);
  EXPECT_EQ(h.load32(0x508), 0x22U);

  BundleTestHost g;
  local_tile(g, 16, tile::DataType::U32, 4, 1, 2, {0x11, 0x22});
  local_tile(g, 17, tile::DataType::U8, 4, 1, 2, {0, 6});
  g.gpr[2] = 0x500;
  const BundleOutcome o = g.run({tlsu_start(5, kU32), bdim(0, 2), bdim(2, 4), iot_src_src(16, 17), bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(o.fault_address, 0x506U);
  EXPECT_EQ(g.load32(0x500), 0U);  // lane 0 was not stored
}

TEST(TlsuMscatter, PhysicalColumnsMustMatchLb2) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0x11, 0x22});
  local_tile(h, 17, tile::DataType::U8, 4, 1, 2, {0, 8});
  h.gpr[2] = 0x500;
  const BundleOutcome o = h.run({tlsu_start(5, kU32), bdim(0, 2), iot_src_src(16, 17), bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);  // Col defaults to ValidCol = 2, the source has 4
}

// ---- TPREFETCH (tlsu-prefetch.asl) ----

// PTO-AVS-BLOCK-TPREFETCH-FAULT-001, retried through the architectural trap
// recovery (RecoverTrapContext) instead of the ASL's direct re-call.
TEST(AvsBlockTprefetch, Fault001PreflightThenRetry) {
  BundleTestHost h(arch::MachineConfig::reference());
  for (unsigned pe = 0; pe < 4; ++pe) h.m.state.gpr[pe][3] = 1;
  h.m.state.gpr[0][2] = 0;
  h.m.state.gpr[1][2] = 0x100;
  h.m.state.gpr[2][2] = ~0ULL;
  h.m.state.gpr[3][2] = 0x300;
  ASSERT_TRUE(h.run({tlsu_start(3, kU8), bior(2, 3)}).ok());
  h.m.start_memory_event_capture(0);
  const BundleOutcome o = h.run({kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(h.m.state.memory_event_count, 0);
  ASSERT_TRUE(h.m.recover_trap_context(0));
  h.m.clear_fault();
  h.m.state.gpr[2][2] = 0x200;
  ASSERT_TRUE(h.run({kBstop}).ok());
  ASSERT_EQ(h.m.state.memory_event_count, 4);
  for (unsigned e = 0; e < 4; ++e) EXPECT_EQ(h.m.state.memory_events[e].agent, e);
}

TEST(TlsuPrefetch, SchemaFaults) {
  const std::vector<std::pair<const char*, std::vector<std::uint64_t>>> cases{
      {"a tile binding", {tlsu_start(3, kU8), iot_dst(1), kBstop}},
      {"64-bit type", {tlsu_start(3, kU64), kBstop}},
      {"explicit zero LB0", {tlsu_start(3, kU8), bdim(0, 0), kBstop}},
      {"LB2 below LB0", {tlsu_start(3, kU8), bdim(0, 4), bdim(2, 2), kBstop}},
  };
  for (const auto& [what, words] : cases) {
    BundleTestHost h;
    EXPECT_EQ(h.run(words).fault, FaultCode::Fault_TileLegality) << what;
  }
}

TEST(TlsuPrefetch, OmittedBiorUsesBaseZeroAndColumnStride) {
  BundleTestHost h;
  h.m.start_memory_event_capture(0);
  ASSERT_TRUE(h.run({tlsu_start(3, kU16), bdim(0, 1), bdim(1, 2), bdim(2, 4), kBstop}).ok());
  ASSERT_EQ(h.m.state.memory_event_count, 8);
  EXPECT_EQ(h.m.state.memory_events[0].address, 0U);
  EXPECT_EQ(h.m.state.memory_events[1].address, 8U);  // row 1: 4 elements x 2 bytes
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

// ---- GMOV (tlsu-gmov.asl) ----

std::vector<std::uint64_t> gmov_words(unsigned pe_mode = 7) {
  return {tlsu_start(13, kU8), iot_src_dst(20, 1, pe_mode), bior(2, 0), kBstop};
}

TEST(TlsuGmov, CopiesTheCore4SnapshotWithDefinedness) {
  BundleTestHost h;
  local_tile(h, 20, tile::DataType::U8, 128, 1, 2, {0x5a, 0x6b});
  for (unsigned pe = 0; pe < 4; ++pe) h.m.state.gpr[pe][2] = pe;
  ASSERT_TRUE(h.run(gmov_words()).ok());
  EXPECT_EQ(element_at(h, h.destination(), 0, 1), 0x6bU);
  EXPECT_TRUE(h.file.tile(h.destination()).contents_defined());
}

TEST(TlsuGmov, ReadinessPeerRangeAndDimensionFaults) {
  {
    BundleTestHost h;  // source allocated on a subset of PEs: not Core4-ready
    local_tile(h, 20, tile::DataType::U8, 128, 1, 2, {1, 2});
    tile::ConfigureRequest r;
    r.capacity_bytes = 128;
    r.columns = 128;
    r.valid_rows = 1;
    r.valid_columns = 2;
    r.data_type = tile::DataType::U8;
    r.mask = 0b0011;
    ASSERT_EQ(h.file.configure(20, r), arch::FaultCode::Fault_None);
    h.file.tile(20).mark_valid_region_defined();
    EXPECT_EQ(h.run(gmov_words()).fault, FaultCode::Fault_TileLegality);
  }
  {
    BundleTestHost h;  // PE3's peer identifier is out of range
    local_tile(h, 20, tile::DataType::U8, 128, 1, 2, {1, 2});
    h.m.state.gpr[3][2] = 4;
    EXPECT_EQ(h.run(gmov_words()).fault, FaultCode::Fault_TileLegality);
    EXPECT_EQ(h.file.core_capacity_in_use(), 4U * 128);
  }
  {
    BundleTestHost h;  // GMOV takes no B.DIM
    local_tile(h, 20, tile::DataType::U8, 128, 1, 2, {1, 2});
    EXPECT_EQ(h.run({tlsu_start(13, kU8), bdim(0, 2), iot_src_dst(20, 1), kBstop}).fault, FaultCode::Fault_TileLegality);
  }
}

// ---- Local TMOV (function 2, generic path) ----

TEST(TlsuTmov, LocalCopyKeepsTheSourceAndCopiesDefinedness) {
  BundleTestHost h;
  local_tile(h, 20, tile::DataType::FP16, 64, 2, 3, {1, 2, 3, 4, 5, 6}, 256);
  ASSERT_TRUE(h.run({tlsu_start(2, kFP16), iot_src_dst(20, 2), kBstop}).ok());
  const auto d = h.destination();
  EXPECT_EQ(element_at(h, d, 1, 2), 6U);
  EXPECT_EQ(h.file.tile(d).descriptor().columns, 64U);
  EXPECT_EQ(h.file.tile(d).defined_valid_elements(), 6U);
  EXPECT_EQ(element_at(h, 20, 0, 0), 1U);
}

TEST(TlsuTmov, UndefinedSourceRejectsBeforeAllocation) {
  BundleTestHost h;
  local_tile(h, 20, tile::DataType::FP16, 64, 2, 3, {1, 2}, 256);  // 2 of 6 defined
  EXPECT_EQ(h.run({tlsu_start(2, kFP16), iot_src_dst(20, 2), kBstop}).fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), 4U * 256);
}

TEST(TlsuTmov, DtypeNoneTakesTheSourceType) {
  BundleTestHost h;  // BSTART.TMOV DTYPE_NONE (31): no B.DATR type either
  local_tile(h, 20, tile::DataType::FP16, 64, 2, 3, {1, 2, 3, 4, 5, 6}, 256);
  ASSERT_TRUE(h.run({tlsu_start(2, 31), iot_src_dst(20, 2), kBstop}).ok());
  EXPECT_EQ(h.file.tile(h.destination()).data_type(), tile::DataType::FP16);
  BundleTestHost g;  // the Shared path reads the BSTART code itself: no inference
  EXPECT_EQ(g.run({tlsu_start(12, 31), ios(6, 0, 7), iot_dst(1), kBstop}).fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(g.file.core_capacity_in_use(), 0U);
}

// ---- Shared TLSU (shared-tlsu.asl, shared-movement.asl) ----

TEST(SharedTlsu, TloadInstallsAndPublishesTheSelectedQuarters) {
  BundleTestHost h;
  for (unsigned q = 0; q < 4; ++q) h.poke(0x600 + q * 32, static_cast<std::uint8_t>(0x10 + q));
  for (unsigned pe = 0; pe < 4; ++pe) {  // each PE reads its own base and byte stride
    h.m.state.gpr[pe][2] = 0x600;
    h.m.state.gpr[pe][3] = 32;
  }
  h.m.start_memory_event_capture(0);
  // 4 rows of 32 U8 = 128 bytes: row q is quarter q; PEMode 5 = mask 1100 (PE0, PE1).
  ASSERT_TRUE(h.run({tlsu_start(0, kU8), bdim(0, 1), bdim(1, 4), bdim(2, 32), ios(12, 1, 5), bior(2, 3), kBstop}).ok());
  const tile::SharedTile& s = h.file.shared(12);
  EXPECT_TRUE(s.descriptor_valid);
  EXPECT_EQ(s.allocation_mask, 0b1100);
  EXPECT_EQ(s.initialized_mask, 0b1100);
  EXPECT_TRUE(s.published);
  EXPECT_EQ(tile::read_shared_word(s, 12, 32), 0x11U);  // row 1 from stride 32
  EXPECT_EQ(tile::read_shared_word(s, 12, 64), 12U ^ 64U);  // quarter 2 not allocated: undefined read
  ASSERT_EQ(h.m.state.memory_event_count, 2);
  EXPECT_EQ(h.m.state.memory_events[0].agent, 0);
  EXPECT_EQ(h.m.state.memory_events[1].agent, 1);
  EXPECT_EQ(h.file.core_capacity_in_use(), 2U * 128);
}

TEST(SharedTlsu, TloadFaultsLeaveTheRegisterUnallocated) {
  BundleTestHost h;  // LB2 omitted: the raw zero is not a legal column count
  EXPECT_EQ(h.run({tlsu_start(0, kU8), bdim(0, 1), bdim(1, 1), ios(3, 1), kBstop}).fault, FaultCode::Fault_TileLegality);
  EXPECT_FALSE(h.file.shared(3).descriptor_valid);
  BundleTestHost g;  // B.IOR RegDst must be zero
  EXPECT_EQ(g.run({tlsu_start(0, kU8), bdim(0, 1), bdim(1, 1), bdim(2, 1), ios(3, 1), bior(0, 0, 0, 5), kBstop}).fault,
            FaultCode::Fault_BundleControl);
  BundleTestHost k(arch::MachineConfig::reference());  // memory fault: nothing installed
  k.gpr[2] = 1ULL << 40;
  const BundleOutcome o = k.run({tlsu_start(0, kU8), bdim(0, 1), bdim(1, 1), bdim(2, 1), ios(3, 1), bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(o.fault_address, 1ULL << 40);
  EXPECT_FALSE(k.file.shared(3).descriptor_valid);
}

TEST(SharedTlsu, TstoreMaskRulesAndUndefinedRead) {
  {
    BundleTestHost h;  // Function 1 needs all four PEs
    EXPECT_EQ(h.run({tlsu_start(1, kU8), ios(7, 0, 5), kBstop}).fault, FaultCode::Fault_TileLegality);
  }
  BundleTestHost h;  // Function 14 stores a partial mask; unallocated S7 reads undefined
  h.gpr[2] = 0x700;
  ASSERT_TRUE(h.run({tlsu_start(14, kU8), ios(7, 0, 4), bior(2, 0), kBstop}).ok());
  // The 1x1 minimum-capacity view's only element lies in quarter 0 (PE0),
  // which mask 0001 (PE3) does not select: no byte is written.
  EXPECT_EQ(h.byte(0x700), 0U);
  BundleTestHost g;
  g.gpr[2] = 0x700;
  ASSERT_TRUE(g.run({tlsu_start(14, kU8), ios(7, 0, 1), bior(2, 0), kBstop}).ok());
  EXPECT_EQ(g.byte(0x700), 7U);  // UndefinedSharedTileWord(7, 0)
  EXPECT_FALSE(g.file.shared(7).descriptor_valid);
}

TEST(SharedTlsu, InsertPublishBroadcastExtract) {
  BundleTestHost h;
  std::vector<std::uint64_t> values(128);
  for (unsigned k = 0; k < 128; ++k) values[k] = k + 1;
  local_tile(h, 20, tile::DataType::U8, 32, 4, 32, values);
  // INSERT quarter 0 (mask 1000): allocated 1000, not published.
  ASSERT_TRUE(h.run({tlsu_start(9, kU8), iot_src(20, 1), ios(5, 1, 1), kBstop}).ok());
  EXPECT_EQ(h.file.shared(5).allocation_mask, 0b1000);
  EXPECT_FALSE(h.file.shared(5).published);
  // BROADCAST needs a published four-quarter value.
  EXPECT_EQ(h.run({tlsu_start(11, kU8), ios(5, 0, 7), iot_dst(1), kBstop}).fault, FaultCode::Fault_TileLegality);
  h.m.clear_fault();

  BundleTestHost g;
  local_tile(g, 20, tile::DataType::U8, 32, 4, 32, values);
  // PUBLISH all quarters at once, then BROADCAST to a new Local tile.
  ASSERT_TRUE(g.run({tlsu_start(10, kU8), iot_src(20, 7), ios(6, 1, 7), kBstop}).ok());
  EXPECT_TRUE(tile::shared_published(g.file.shared(6)));
  ASSERT_TRUE(g.run({tlsu_start(11, kU8), ios(6, 0, 7), iot_dst(1), kBstop}).ok());
  const auto d = g.destination();
  EXPECT_EQ(element_at(g, d, 3, 31), 128U);
  EXPECT_TRUE(g.file.tile(d).contents_defined());
  // EXTRACT of quarter 2 only (mask 0010) leaves the other quarters undefined.
  ASSERT_TRUE(g.run({tlsu_start(12, kU8), ios(6, 0, 3), iot_dst(1, 3), kBstop}).ok());
  const auto e = g.destination();
  EXPECT_EQ(element_at(g, e, 2, 0), 65U);
  EXPECT_FALSE(g.file.tile(e).element_defined_at(0, 0));
  EXPECT_FALSE(g.file.tile(e).contents_defined());
}

TEST(SharedTlsu, ZeroMaskIsANoOp) {
  BundleTestHost h;
  const BundleOutcome o = h.run({tlsu_start(0, kU8), ios(4, 1, 0), kBstop});
  ASSERT_TRUE(o.ok());
  EXPECT_FALSE(h.file.shared(4).descriptor_valid);
}

// ---- B.DATR Layout on the dedicated paths ----
// CurrentBundleTileLayout (the destination layout of the Layout pair,
// control-state.asl) places every allocated destination
// (ResolveBundleTileDestinations*) and is what MGATHER.MASK, MSCATTER*,
// GMOV and the Shared paths compare their operands with; MGATHER,
// MGATHER.CAS, TPREFETCH and the Shared INSERT/PUBLISH have no layout rule.

using tile::TileLayout;
constexpr unsigned kFP64 = 0, kNd2Dn = 1, kNd2Zn = 3, kNd2Nz = 4, kDn2Nd = 6;
std::uint64_t datr_layout(unsigned code) { return encode_form(kBDatr, {{"Layout", code}}); }
constexpr tile::TileIndex kIndices = 16;

// Four U32 words 0xA0..0xA3 at 0x200 + 4k, gathered through a 2 x 2
// ColumnMajor index tile {0, 4; 8, 12} (MGATHER has no index layout rule).
void gather_sources(BundleTestHost& h) {
  local_tile(h, kIndices, tile::DataType::S32, 4, 2, 2, {0, 4, 8, 12}, 128, TileLayout::ColumnMajor);
  for (unsigned k = 0; k < 4; ++k) h.store32(0x200 + 4 * k, 0xA0 + k);
  h.gpr[2] = 0x200;
}

TEST(TlsuLayout, MgatherNd2DnPlacesAColumnMajorDestination) {
  BundleTestHost h;
  gather_sources(h);
  ASSERT_TRUE(h.run({tlsu_start(4, kU32), datr_layout(kNd2Dn), bdim(0, 2), bdim(1, 2), iot_src_dst(kIndices, 1),
                     bior(2, 0), kBstop})
                  .ok());
  const auto d = h.destination();
  const tile::Tile& t = h.file.tile(d);
  EXPECT_EQ(t.descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(t.descriptor().data_type, tile::DataType::U32);  // the BSTART type (explicit primary type)
  EXPECT_EQ(t.descriptor().rows, 16U);                       // 128 bytes / (2 columns x 4 bytes)
  EXPECT_EQ(element_at(h, d, 0, 1), 0xA1U);
  EXPECT_EQ(element_at(h, d, 1, 0), 0xA2U);
  EXPECT_EQ(t.read_raw(1 * 16 + 0), 0xA1U);  // d(0, 1) stored column-major
  EXPECT_EQ(t.read_raw(0 * 16 + 1), 0xA2U);  // d(1, 0)
  // A present B.DATR with PadValue 00 pads with Zero (CurrentBundlePadValue).
  EXPECT_EQ(element_at(h, d, 5, 1), 0U);
  EXPECT_EQ(t.defined_element_count(), 32U);  // MarkTilePhysicalRegionDefined
}

// TileOperandsLegal_MGATHER needs TileDescriptorLegal(destination): a
// fractal destination must be whole 16 x 8 U32 fractals.
TEST(TlsuLayout, MgatherFractalDestinations) {
  {
    BundleTestHost h;  // ND2ZN with 2 physical columns: rolled back after the allocation
    gather_sources(h);
    const BundleOutcome o = h.run({tlsu_start(4, kU32), datr_layout(kNd2Zn), bdim(0, 2), bdim(1, 2),
                                   iot_src_dst(kIndices, 1), bior(2, 0), kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_FALSE(o.trace.destinations.empty());
    EXPECT_EQ(h.file.core_capacity_in_use(), 4U * 128);  // only the index tile
  }
  BundleTestHost h;  // ND2NZ with 8 columns x 16 rows (512 bytes): d(1, 1) at inner row 1 * 8 + 1
  gather_sources(h);
  ASSERT_TRUE(h.run({tlsu_start(4, kU32), datr_layout(kNd2Nz), bdim(0, 2), bdim(1, 2), bdim(2, 8),
                     iot_src_dst(kIndices, 3), bior(2, 0), kBstop})
                  .ok());
  const tile::Tile& t = h.file.tile(h.destination());
  EXPECT_EQ(t.descriptor().layout, TileLayout::NZ);
  EXPECT_EQ(t.read_raw(1 * 8 + 1), 0xA3U);
  EXPECT_EQ(element_at(h, h.destination(), 1, 1), 0xA3U);
}

// MGATHER.MASK compares the indices and the predicate mask (always a
// RowMajor predicate tile, ConfigurePredicateTileForMask) with
// CurrentBundleTileLayout before the allocation.
TEST(TlsuLayout, MgatherMaskNeedsIndicesAndMaskInThePlacedLayout) {
  struct Case {
    unsigned code;
    TileLayout index_layout;
    bool ok;
  };
  for (const Case& c : {Case{kNd2Dn, TileLayout::ColumnMajor, false}, Case{kDn2Nd, TileLayout::RowMajor, true},
                        Case{kDn2Nd, TileLayout::ColumnMajor, false}}) {
    BundleTestHost h;
    local_tile(h, kIndices, tile::DataType::U32, 4, 1, 2, {0, 4}, 128, c.index_layout);
    h.file.configure_predicate(17, 128, 1, 2, 1, 2, 0b1111);
    h.file.tile(17).payload()[0] = std::byte{0b11};
    h.file.tile(17).mark_valid_region_defined();
    h.store32(0x300, 77);
    h.store32(0x304, 78);
    h.gpr[2] = 0x300;
    const BundleOutcome o = h.run({tlsu_start(6, kU32), datr_layout(c.code), bdim(0, 2),
                                   encode_form(kBIotSrcSrcDst, {{"SrcTile0", 16}, {"SrcTile1", 17}, {"SizeCode", 1},
                                                                {"PEMode", 7}, {"L", 1}}),
                                   bior(2, 0), kBstop});
    if (!c.ok) {
      EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality) << c.code;
      EXPECT_TRUE(o.trace.destinations.empty()) << c.code;
      continue;
    }
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.file.tile(h.destination()).descriptor().layout, TileLayout::RowMajor);
    EXPECT_EQ(element_at(h, h.destination(), 0, 0), 77U);
    EXPECT_EQ(element_at(h, h.destination(), 0, 1), 78U);
  }
}

// MGATHER.CAS places the destination and reads indices, expected and
// replacement by their own layouts (atomics.asl, no layout rule).
TEST(TlsuLayout, MgatherCasNd2DnReadsAnySourceLayout) {
  BundleTestHost h;
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0, 4});
  local_tile(h, 17, tile::DataType::U32, 4, 1, 2, {5, 9}, 128, TileLayout::ColumnMajor);
  local_tile(h, 18, tile::DataType::U32, 4, 1, 2, {50, 90}, 128, TileLayout::ColumnMajor);
  h.store32(0x400, 5);
  h.store32(0x404, 6);
  h.gpr[2] = 0x400;
  ASSERT_TRUE(h.run({tlsu_start(8, kU32), datr_layout(kNd2Dn), bdim(0, 2), iot_src_src(16, 17, 7, false),
                     iot_src_dst(18, 1), bior(2, 0), kBstop})
                  .ok());
  EXPECT_EQ(h.load32(0x400), 50U);
  EXPECT_EQ(h.load32(0x404), 6U);
  const tile::Tile& t = h.file.tile(h.destination());
  EXPECT_EQ(t.descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(t.read_raw(1 * 16 + 0), 6U);  // d(0, 1): old value, column-major in 16 rows
}

// MSCATTER compares the values and indices (and MSCATTER.MASK the RowMajor
// predicate) with CurrentBundleTileLayout; a fault stores nothing.
TEST(TlsuLayout, MscatterSourcesMustHaveThePlacedLayout) {
  for (const TileLayout layout : {TileLayout::RowMajor, TileLayout::ColumnMajor}) {
    BundleTestHost h;
    local_tile(h, 16, tile::DataType::U32, 4, 2, 2, {0x11, 0x22, 0x33, 0x44}, 128, layout);
    local_tile(h, 17, tile::DataType::U8, 4, 2, 2, {0, 8, 16, 24}, 128, layout);
    h.gpr[2] = 0x500;
    const BundleOutcome o = h.run({tlsu_start(5, kU32), datr_layout(kNd2Dn), bdim(0, 2), bdim(1, 2), bdim(2, 4),
                                   iot_src_src(16, 17), bior(2, 0), kBstop});
    if (layout == TileLayout::RowMajor) {
      EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
      EXPECT_EQ(h.load32(0x500), 0U);
      continue;
    }
    ASSERT_TRUE(o.ok()) << o.message << o.trace.outcome;
    EXPECT_EQ(h.load32(0x500), 0x11U);
    EXPECT_EQ(h.load32(0x508), 0x22U);
    EXPECT_EQ(h.load32(0x510), 0x33U);
    EXPECT_EQ(h.load32(0x518), 0x44U);
  }
  BundleTestHost h;  // MSCATTER.MASK: the predicate mask is RowMajor, never ColumnMajor
  local_tile(h, 16, tile::DataType::U32, 4, 1, 2, {0x11, 0x22}, 128, TileLayout::ColumnMajor);
  local_tile(h, 17, tile::DataType::U8, 4, 1, 2, {0, 8}, 128, TileLayout::ColumnMajor);
  h.file.configure_predicate(18, 128, 1, 2, 1, 2, 0b1111);
  h.file.tile(18).payload()[0] = std::byte{0b11};
  h.file.tile(18).mark_valid_region_defined();
  h.gpr[2] = 0x500;
  EXPECT_EQ(h.run({tlsu_start(7, kU32), datr_layout(kNd2Dn), bdim(0, 2), bdim(2, 4), iot_src_src(16, 17, 7, false),
                   iot_src(18), bior(2, 0), kBstop})
                .fault,
            FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.load32(0x500), 0U);
}

// GMOV: the source must have CurrentBundleTileLayout (before allocation);
// the destination is resolved with the effective type, which a present
// B.DATR makes FP64 (its zero DataType field), while GMOV's source must be
// the BSTART type of at most 32 bits: GMOV with a B.DATR never succeeds.
TEST(TlsuLayout, GmovWithBdatrFaultsAtEachCheckPoint) {
  {
    BundleTestHost h;  // RowMajor source under ND2DN: schema fault, no allocation
    local_tile(h, 20, tile::DataType::U8, 16, 1, 2, {1, 2});
    const BundleOutcome o = h.run({tlsu_start(13, kU8), datr_layout(kNd2Dn), iot_src_dst(20, 1), kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_TRUE(o.trace.destinations.empty());
  }
  {
    BundleTestHost h;  // ColumnMajor source: an FP64 destination, TileOperandsLegal_GMOV type mismatch
    local_tile(h, 20, tile::DataType::U8, 16, 1, 2, {1, 2}, 128, TileLayout::ColumnMajor);
    const BundleOutcome o = h.run({tlsu_start(13, kU8), datr_layout(kNd2Dn), iot_src_dst(20, 1), kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_FALSE(o.trace.destinations.empty());
    EXPECT_EQ(h.file.core_capacity_in_use(), 4U * 128);  // rolled back
  }
  BundleTestHost h;  // 128 FP64 columns cannot fit 128 bytes: Fault_TileAllocation
  local_tile(h, 20, tile::DataType::U8, 128, 1, 2, {1, 2}, 128, TileLayout::ColumnMajor);
  EXPECT_EQ(h.run({tlsu_start(13, kU8), datr_layout(kNd2Dn), iot_src_dst(20, 1), kBstop}).fault,
            FaultCode::Fault_TileAllocation);
}

// TPREFETCH has no tile operand and no layout rule (tlsu-prefetch.asl).
TEST(TlsuLayout, TprefetchIgnoresTheLayout) {
  BundleTestHost h;
  h.m.start_memory_event_capture(0);
  ASSERT_TRUE(h.run({tlsu_start(3, kU16), datr_layout(kNd2Zn), bdim(0, 1), bdim(1, 2), bdim(2, 4), kBstop}).ok());
  ASSERT_EQ(h.m.state.memory_event_count, 8);
  EXPECT_EQ(h.m.state.memory_events[1].address, 8U);
}

// Shared TLOAD installs the register in CurrentBundleTileLayout
// (TLOADShared): U8 4 x 32 in 128 bytes ColumnMajor stores (r, c) at
// c * 4 + r, so quarter q (SharedTileElementRegion) owns columns 8q..8q+7
// and each element is read through its owner's base and pitch.
void shared_column_major_u8(BundleTestHost& h, unsigned pe_mode) {
  for (unsigned i = 0; i < 128; ++i) h.poke(0x600 + i, static_cast<std::uint8_t>(i));
  for (unsigned pe = 0; pe < 4; ++pe) {
    h.m.state.gpr[pe][2] = 0x600;
    h.m.state.gpr[pe][3] = 32;
  }
  ASSERT_TRUE(h.run({tlsu_start(0, kU8), datr_layout(kNd2Dn), bdim(0, 32), bdim(1, 4), bdim(2, 32), ios(12, 1, pe_mode),
                     bior(2, 3), kBstop})
                  .ok());
}

TEST(TlsuLayout, SharedTloadNd2DnQuartersOwnColumns) {
  BundleTestHost h;
  h.m.start_memory_event_capture(0);
  shared_column_major_u8(h, 5);  // mask 1100: PE0 and PE1, columns 0..15
  const tile::SharedTile& s = h.file.shared(12);
  EXPECT_EQ(s.tile.descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(s.allocation_mask, 0b1100);
  EXPECT_EQ(tile::read_shared_word(s, 12, 9 * 4 + 2), 2U * 32 + 9);  // (2, 9), quarter 1
  EXPECT_EQ(tile::read_shared_word(s, 12, 16 * 4), 12U ^ 64U);       // (0, 16): quarter 2, undefined read
  // 4 rows x 16 columns are loaded; the capture keeps the first
  // PTO_MODEL_MEMORY_EVENTS (16): row 0, columns 0..15 in (r, c) order.
  ASSERT_EQ(h.m.state.memory_event_count, 16);
  EXPECT_EQ(h.m.state.memory_events[7].agent, 0);  // (0, 7)
  EXPECT_EQ(h.m.state.memory_events[8].agent, 1);  // (0, 8): RowMajor would put it in quarter 0
  EXPECT_EQ(h.m.state.memory_events[8].address, 0x608U);
}

// A fractal layout needs whole fractals; TLOADShared's TileLinearIndex would
// assert: this model rejects it (docs/semantics-notes.md).
TEST(TlsuLayout, SharedTloadFractalShapeIsTileLegality) {
  BundleTestHost h;  // U8 ZN: 4 rows are not a multiple of 16
  h.m.start_memory_event_capture(0);
  EXPECT_EQ(h.run({tlsu_start(0, kU8), datr_layout(kNd2Zn), bdim(0, 32), bdim(1, 4), bdim(2, 32), ios(12, 1, 7),
                   bior(2, 3), kBstop})
                .fault,
            FaultCode::Fault_TileLegality);
  EXPECT_FALSE(h.file.shared(12).descriptor_valid);
  EXPECT_EQ(h.m.state.memory_event_count, 0);
}

// Shared TSTORE reads its view in CurrentBundleTileLayout, which must be the
// register's layout (SharedTileReadSchemaLegal); each element is written
// through its owning PE's base (TSTOREShared).
TEST(TlsuLayout, SharedTstoreNd2DnStoresThroughTheOwningPe) {
  const auto set_store_bases = [](BundleTestHost& h) {
    for (unsigned pe = 0; pe < 4; ++pe) {
      h.m.state.gpr[pe][2] = 0x800 + 0x100 * pe;
      h.m.state.gpr[pe][3] = 32;
    }
  };
  {
    BundleTestHost h;  // NORM view of a ColumnMajor register
    shared_column_major_u8(h, 7);
    set_store_bases(h);
    EXPECT_EQ(h.run({tlsu_start(1, kU8), ios(12, 0, 7), bior(2, 3), kBstop}).fault, FaultCode::Fault_TileLegality);
    EXPECT_EQ(h.byte(0x800), 0U);
  }
  BundleTestHost h;
  shared_column_major_u8(h, 7);
  set_store_bases(h);
  ASSERT_TRUE(h.run({tlsu_start(1, kU8), datr_layout(kNd2Dn), ios(12, 0, 7), bior(2, 3), kBstop}).ok());
  EXPECT_EQ(h.byte(0x800 + 0 * 32 + 1), 1U);               // (0, 1) by PE0
  EXPECT_EQ(h.byte(0x900 + 2 * 32 + 9), 2U * 32 + 9);      // (2, 9) by PE1
  EXPECT_EQ(h.byte(0xB00 + 3 * 32 + 31), 3U * 32 + 31);    // (3, 31) by PE3
  EXPECT_EQ(h.byte(0x800 + 9), 0U);                        // column 9 is not PE0's
}

// An unallocated register is read through a view of the requested layout
// (MaterializeSharedTileForReadSchema): ColumnMajor works, an illegal
// fractal view is rejected before any write.
TEST(TlsuLayout, SharedTstoreOfAnUnallocatedRegister) {
  BundleTestHost h;
  h.gpr[2] = 0x700;
  EXPECT_EQ(h.run({tlsu_start(14, kU8), datr_layout(kNd2Zn), ios(7, 0, 1), bior(2, 0), kBstop}).fault,
            FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.byte(0x700), 0U);
  BundleTestHost g;
  g.gpr[2] = 0x700;
  ASSERT_TRUE(g.run({tlsu_start(14, kU8), datr_layout(kNd2Dn), ios(7, 0, 1), bior(2, 0), kBstop}).ok());
  EXPECT_EQ(g.byte(0x700), 7U);  // UndefinedSharedTileWord(7, 0), quarter 0 (PE0)
}

// FP64 4 x 4 in 128 bytes ColumnMajor: quarter q owns column q.  BROADCAST
// and EXTRACT resolve their destination with the effective type (FP64 under
// a present B.DATR) and compare it with the view (BSTART FP64).
void shared_column_major_fp64(BundleTestHost& h) {
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned c = 0; c < 4; ++c) h.m.memory.write(0x1000 + r * 32 + c * 8, 8, 10 * r + c + 1);
  for (unsigned pe = 0; pe < 4; ++pe) {
    h.m.state.gpr[pe][2] = 0x1000;
    h.m.state.gpr[pe][3] = 32;
  }
  ASSERT_TRUE(h.run({tlsu_start(0, kFP64), datr_layout(kNd2Dn), bdim(0, 4), bdim(1, 4), bdim(2, 4), ios(6, 1, 7),
                     bior(2, 3), kBstop})
                  .ok());
}

TEST(TlsuLayout, SharedTmovToLocalInTheRegistersLayout) {
  {
    BundleTestHost h;  // a NORM view of the ColumnMajor register: schema fault, no allocation
    shared_column_major_fp64(h);
    const BundleOutcome o = h.run({tlsu_start(11, kFP64), ios(6, 0, 7), iot_dst(1), kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_TRUE(o.trace.destinations.empty());
  }
  BundleTestHost h;
  shared_column_major_fp64(h);
  ASSERT_TRUE(h.run({tlsu_start(11, kFP64), datr_layout(kNd2Dn), ios(6, 0, 7), iot_dst(1), kBstop}).ok());
  const auto d = h.destination();
  EXPECT_EQ(h.file.tile(d).descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(element_at(h, d, 1, 2), 13U);
  EXPECT_EQ(h.file.tile(d).read_raw(2 * 4 + 1), 13U);
  EXPECT_TRUE(h.file.tile(d).contents_defined());
  // EXTRACT of quarter 2 (mask 0010): column 2 only.
  ASSERT_TRUE(h.run({tlsu_start(12, kFP64), datr_layout(kNd2Dn), ios(6, 0, 3), iot_dst(1, 3), kBstop}).ok());
  const auto e = h.destination();
  EXPECT_EQ(element_at(h, e, 3, 2), 33U);
  EXPECT_FALSE(h.file.tile(e).element_defined_at(3, 1));
  EXPECT_FALSE(h.file.tile(e).contents_defined());
}

// EXTRACT of an unallocated register: the 1 x 1 FP64 view at 128 bytes has
// 16 rows of one column, not whole 16 x 4 ZN fractals; rejected after the
// destination allocation, which is rolled back (docs/semantics-notes.md).
TEST(TlsuLayout, SharedExtractOfAnIllegalFractalViewIsTileLegality) {
  BundleTestHost h;
  const BundleOutcome o = h.run({tlsu_start(12, kFP64), datr_layout(kNd2Zn), ios(9, 0, 3), iot_dst(1, 3), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_FALSE(o.trace.destinations.empty());
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  BundleTestHost g;  // the same EXTRACT under ND2DN: column-major, quarter 2 holds no element of the 1 x 1 view
  ASSERT_TRUE(g.run({tlsu_start(12, kFP64), datr_layout(kNd2Dn), ios(9, 0, 3), iot_dst(1, 3), kBstop}).ok());
  EXPECT_EQ(g.file.tile(g.destination()).descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_FALSE(g.file.tile(g.destination()).element_defined_at(0, 0));
}

// INSERT / PUBLISH copy the Local source with its own layout
// (SharedTileFromLocal); BundleSharedTMOVLocalSchemaLegal has no layout rule.
TEST(TlsuLayout, SharedInsertKeepsTheSourceLayout) {
  BundleTestHost h;
  std::vector<std::uint64_t> values(16);
  for (unsigned k = 0; k < 16; ++k) values[k] = k + 1;
  local_tile(h, 20, tile::DataType::FP64, 4, 4, 4, values, 128, TileLayout::ColumnMajor);
  ASSERT_TRUE(h.run({tlsu_start(9, kFP64), datr_layout(kNd2Zn), iot_src(20, 7), ios(5, 1, 7), kBstop}).ok());
  const tile::SharedTile& s = h.file.shared(5);
  EXPECT_EQ(s.tile.descriptor().layout, TileLayout::ColumnMajor);
  EXPECT_EQ(tile::read_shared_word(s, 5, 2 * 4 + 1), 1U * 4 + 2 + 1);  // (1, 2)
}

}  // namespace
}  // namespace pto::test
