// Semantic handlers of the TLSU operations (src/tile/ops_tlsu.hpp) called the
// way the spec's direct-operation test points call them
// (tests/asl/tile/memory-and-data-movement/**: the ASL helpers TLOAD, TSTORE,
// MGATHER, MGATHER_MASK, MGATHER_CAS, MSCATTER, MSCATTER_MASK, GMOV and
// TPREFETCHAllPEs on pre-configured tiles).  Each test keeps its AVS id;
// expected values are the points' assertions.  Memory is a 4096-byte guest
// (PTO_MODEL_MEMORY_BYTES) whose element accesses are logged like
// _MemoryEvents.
#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <vector>

#include "tile/ops_compare.hpp"
#include "tile/ops_tlsu.hpp"
#include "tile/tile_memory.hpp"

namespace pto::tile {
namespace {

// The 4096-byte reference memory with an event log of the element accesses.
class LoggedMemory final : public TileMemoryPort {
 public:
  struct Event {
    char kind;  // 'L'oad, 'S'tore, 'A'tomic
    unsigned agent;
    std::uint64_t address;
  };
  LoggedMemory() : flat_(bytes_) {}

  FaultCode check(std::uint64_t address, std::uint64_t size, bool write) const override {
    return flat_.check(address, size, write);
  }
  void read(std::uint64_t address, std::span<std::byte> out) override { flat_.read(address, out); }
  void write(std::uint64_t address, std::span<const std::byte> in) override { flat_.write(address, in); }
  std::uint64_t load_element(unsigned agent, std::uint64_t address, unsigned size) override {
    events.push_back({'L', agent, address});
    return TileMemoryPort::load_element(agent, address, size);
  }
  void store_element(unsigned agent, std::uint64_t address, unsigned size, std::uint64_t value) override {
    events.push_back({'S', agent, address});
    TileMemoryPort::store_element(agent, address, size, value);
  }
  std::uint64_t compare_and_swap(unsigned agent, std::uint64_t address, unsigned size, std::uint64_t expected,
                                 std::uint64_t replacement) override {
    events.push_back({'A', agent, address});
    std::uint64_t old = 0;
    std::memcpy(&old, bytes_.data() + address, size);
    if (old == expected) std::memcpy(bytes_.data() + address, &replacement, size);
    return old;
  }

  void poke(std::uint64_t address, unsigned size, std::uint64_t v) { std::memcpy(bytes_.data() + address, &v, size); }
  std::uint64_t peek(std::uint64_t address, unsigned size) const {
    std::uint64_t v = 0;
    std::memcpy(&v, bytes_.data() + address, size);
    return v;
  }

  std::vector<Event> events;

 private:
  std::array<std::byte, 4096> bytes_{};
  FlatTileMemory flat_;
};

// ConfigureTile(i, capacity, -, columns, vr, vc, type, RowMajor, Any) (mask 0001).
void configure(TileFile& f, TileIndex i, std::uint32_t capacity, std::uint32_t columns, std::uint32_t vr,
               std::uint32_t vc, DataType t) {
  ConfigureRequest r;
  r.capacity_bytes = capacity;
  r.columns = columns;
  r.valid_rows = vr;
  r.valid_columns = vc;
  r.data_type = t;
  r.mask = 0b0001;
  ASSERT_EQ(f.configure(i, r), FaultCode::Fault_None);
}

// ConfigurePredicateTile(i, 128, rows, columns, vr, vc) with the given bits
// (WriteTilePredicateBit), all defined.
void predicate(TileFile& f, TileIndex i, std::uint32_t columns, std::initializer_list<bool> bits) {
  f.configure_predicate(i, 128, 1, columns, 1, columns, 0b0001);
  Tile& t = f.tile(i);
  unsigned k = 0;
  for (const bool b : bits) {
    if (b) t.payload()[k / 8] |= std::byte{static_cast<unsigned char>(1U << (k % 8))};
    ++k;
  }
  t.mark_valid_region_defined();
}

std::uint64_t element(const TileFile& f, TileIndex i, unsigned r, unsigned c) {
  const Tile& t = f.tile(i);
  EXPECT_TRUE(t.element_defined_at(r, c)) << "ReadTileElement asserts definedness";
  return t.read_word(t.linear_index(r, c));
}

// PTO-AVS-TILE-MGATHER-BYTES-001
TEST(AvsTileMgather, Bytes001DisplacementsAndMaxPadding) {
  TileFile f;
  LoggedMemory m;
  configure(f, 0, 128, 2, 1, 2, DataType::U8);
  configure(f, 1, 128, 2, 1, 2, DataType::S32);
  f.tile(1).write_element(0, 0, 0);
  f.tile(1).write_element(0, 1, 3);
  m.poke(0x200, 1, 0x11);
  m.poke(0x203, 1, 0x44);
  ASSERT_TRUE(mgather(f.tile(0), m, 0, 0x200, f.tile(1), nullptr, PadValue::Max).ok());
  EXPECT_EQ(m.events.size(), 2U);
  EXPECT_EQ(element(f, 0, 0, 0), 0x11U);
  EXPECT_EQ(element(f, 0, 0, 1), 0x44U);
  EXPECT_EQ(element(f, 0, 1, 0), 0xffU);
  EXPECT_EQ(element(f, 0, 1, 1), 0xffU);
}

// PTO-AVS-TILE-MGATHER-MASK-LANES-001
TEST(AvsTileMgatherMask, Lanes001OnlyEnabledLanesLoad) {
  TileFile f;
  LoggedMemory m;
  configure(f, 0, 128, 2, 1, 2, DataType::U8);
  configure(f, 1, 128, 2, 1, 2, DataType::U32);
  predicate(f, 2, 2, {true, false});
  f.tile(1).write_element(0, 0, 0);
  f.tile(1).write_element(0, 1, 1);
  m.poke(0x280, 1, 0x62);
  m.poke(0x281, 1, 0x73);
  ASSERT_TRUE(mgather(f.tile(0), m, 0, 0x280, f.tile(1), &f.tile(2), PadValue::Zero).ok());
  EXPECT_EQ(m.events.size(), 1U);
  EXPECT_EQ(element(f, 0, 0, 0), 0x62U);
  EXPECT_EQ(element(f, 0, 0, 1), 0U);
}

// PTO-AVS-TILE-MGATHER-CAS-RMW-001
TEST(AvsTileMgatherCas, Rmw001OneAtomicPerLane) {
  TileFile f;
  LoggedMemory m;
  configure(f, 0, 128, 2, 1, 2, DataType::U8);
  configure(f, 1, 128, 2, 1, 2, DataType::U32);
  configure(f, 2, 128, 2, 1, 2, DataType::U8);
  configure(f, 3, 128, 2, 1, 2, DataType::U8);
  f.tile(1).write_element(0, 0, 0);
  f.tile(1).write_element(0, 1, 1);
  f.tile(2).write_element(0, 0, 5);
  f.tile(2).write_element(0, 1, 7);
  f.tile(3).write_element(0, 0, 9);
  f.tile(3).write_element(0, 1, 10);
  m.poke(0x300, 1, 5);
  m.poke(0x301, 1, 6);
  ASSERT_TRUE(mgather_cas(f.tile(0), m, 0, 0x300, f.tile(1), f.tile(2), f.tile(3), PadValue::Null).ok());
  ASSERT_EQ(m.events.size(), 2U);
  EXPECT_EQ(m.peek(0x300, 1), 9U);
  EXPECT_EQ(m.peek(0x301, 1), 6U);
  EXPECT_EQ(element(f, 0, 0, 0), 5U);
  EXPECT_EQ(element(f, 0, 0, 1), 6U);
  EXPECT_EQ(m.events[0].kind, 'A');
  EXPECT_EQ(m.events[1].kind, 'A');
}

// PTO-AVS-TILE-MSCATTER-BYTES-001
TEST(AvsTileMscatter, Bytes001SourcesUnchanged) {
  TileFile f;
  LoggedMemory m;
  configure(f, 0, 128, 2, 1, 2, DataType::U8);
  configure(f, 1, 128, 2, 1, 2, DataType::S64);
  f.tile(0).write_element(0, 0, 0x21);
  f.tile(0).write_element(0, 1, 0x54);
  f.tile(1).write_element(0, 0, 0);
  f.tile(1).write_element(0, 1, 3);
  ASSERT_TRUE(mscatter(f.tile(0), m, 0, 0x240, f.tile(1), nullptr).ok());
  EXPECT_EQ(m.events.size(), 2U);
  EXPECT_EQ(m.peek(0x240, 1), 0x21U);
  EXPECT_EQ(m.peek(0x243, 1), 0x54U);
  EXPECT_EQ(element(f, 0, 0, 1), 0x54U);
  EXPECT_EQ(element(f, 1, 0, 1), 3U);
}

// PTO-AVS-TILE-MSCATTER-MASK-LANES-001
TEST(AvsTileMscatterMask, Lanes001DisabledLanePreservesMemory) {
  TileFile f;
  LoggedMemory m;
  configure(f, 0, 128, 2, 1, 2, DataType::U8);
  configure(f, 1, 128, 2, 1, 2, DataType::U32);
  predicate(f, 2, 2, {true, false});
  f.tile(0).write_element(0, 0, 0x35);
  f.tile(0).write_element(0, 1, 0x46);
  f.tile(1).write_element(0, 0, 0);
  f.tile(1).write_element(0, 1, 1);
  m.poke(0x2c0, 1, 0xaa);
  m.poke(0x2c1, 1, 0xbb);
  ASSERT_TRUE(mscatter(f.tile(0), m, 0, 0x2c0, f.tile(1), &f.tile(2)).ok());
  EXPECT_EQ(m.events.size(), 1U);
  EXPECT_EQ(m.peek(0x2c0, 1), 0x35U);
  EXPECT_EQ(m.peek(0x2c1, 1), 0xbbU);
}

// PTO-AVS-TILE-GMOV-COPY-001 (GMOV reads no memory: its semantic step is the
// payload-and-definedness copy of the resolved peer snapshot).
TEST(AvsTileGmov, Copy001PayloadAndDefinednessNoMemory) {
  TileFile f;
  configure(f, 0, 128, 2, 1, 2, DataType::U8);
  configure(f, 1, 128, 2, 1, 2, DataType::U8);
  f.tile(0).write_element(0, 0, 0x31);
  f.tile(0).write_element(0, 1, 0x42);
  f.copy_tile(1, 0, f.allocation_mask(1));
  EXPECT_EQ(element(f, 1, 0, 0), 0x31U);
  EXPECT_EQ(element(f, 1, 0, 1), 0x42U);
  EXPECT_EQ(element(f, 0, 0, 0), 0x31U);
}

// PTO-AVS-TILE-TPREFETCH-REQUESTS-001
TEST(AvsTileTprefetch, Requests001FourPesNoAllocation) {
  TileFile f;
  LoggedMemory m;
  PeWords bases{}, strides{};
  bases.fill(0x180);
  strides.fill(2);
  ASSERT_TRUE(tprefetch(m, bases, strides, {2, 1, 2, DataType::U8}).ok());
  ASSERT_EQ(m.events.size(), 8U);
  EXPECT_EQ(m.events[0].agent, 0U);
  EXPECT_EQ(m.events[0].address, 0x180U);
  EXPECT_EQ(m.events[1].address, 0x181U);
  EXPECT_EQ(m.events[6].agent, 3U);
  EXPECT_EQ(m.events[7].address, 0x181U);
  EXPECT_EQ(f.core_capacity_in_use(), 0U);
}

// PTO-AVS-TILE-TLOAD-DIRECT-001
TEST(AvsTileTload, Direct001ByteStride) {
  TileFile f;
  LoggedMemory m;
  configure(f, 4, 256, 2, 2, 2, DataType::U64);
  m.poke(0x200, 8, 1);
  m.poke(0x208, 8, 2);
  m.poke(0x220, 8, 3);
  m.poke(0x228, 8, 4);
  ASSERT_TRUE(tload(f.tile(4), m, 0x200, 32).ok());
  EXPECT_EQ(element(f, 4, 0, 0), 1U);
  EXPECT_EQ(element(f, 4, 0, 1), 2U);
  EXPECT_EQ(element(f, 4, 1, 0), 3U);
  EXPECT_EQ(element(f, 4, 1, 1), 4U);
  EXPECT_TRUE(f.tile(4).contents_defined());
}

// PTO-AVS-TILE-TSTORE-DIRECT-001
TEST(AvsTileTstore, Direct001DenseStride) {
  TileFile f;
  LoggedMemory m;
  configure(f, 4, 256, 2, 2, 2, DataType::U64);
  f.tile(4).write_element(0, 0, 1);
  f.tile(4).write_element(0, 1, 2);
  f.tile(4).write_element(1, 0, 3);
  f.tile(4).write_element(1, 1, 4);
  // InstructionContractDenseStride_TSTORE(4, U64) = TileDenseRowStrideBytes.
  ASSERT_TRUE(tstore(f.tile(4), m, 0x300, dense_row_stride_bytes(4, DataType::U64)).ok());
  EXPECT_EQ(m.peek(0x300, 8), 1U);
  EXPECT_EQ(m.peek(0x308, 8), 2U);
  EXPECT_EQ(m.peek(0x320, 8), 3U);
  EXPECT_EQ(m.peek(0x328, 8), 4U);
  EXPECT_EQ(element(f, 4, 0, 0), 1U);
  EXPECT_EQ(element(f, 4, 1, 1), 4U);
  EXPECT_TRUE(f.tile(4).contents_defined());
}

// PTO-AVS-TILE-TSTORE-PRECISE-001
TEST(AvsTileTstore, Precise001PageFaultBeforeAnyByte) {
  TileFile f;
  LoggedMemory m;
  configure(f, 5, 128, 2, 1, 2, DataType::U64);
  f.tile(5).write_element(0, 0, 21);
  f.tile(5).write_element(0, 1, 22);
  m.poke(4088, 8, 9);
  const MemoryOutcome o = tstore(f.tile(5), m, 4088, 1);
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(o.address, 4096U);
  EXPECT_TRUE(m.events.empty());
  EXPECT_EQ(m.peek(4088, 8), 9U);
  EXPECT_EQ(element(f, 5, 0, 0), 21U);
  EXPECT_EQ(element(f, 5, 0, 1), 22U);
}

// ---- fault kinds and order of the handlers (hand derivation from
// asl/tile/model/memory/{gather-scatter,atomics}.asl) ----

struct IndexedFixture {
  TileFile f;
  LoggedMemory m;
  IndexedFixture(std::initializer_list<std::uint64_t> displacements, DataType transfer = DataType::U32) {
    configure(f, 0, 128, 4, 1, static_cast<std::uint32_t>(displacements.size()), transfer);
    configure(f, 1, 128, 4, 1, static_cast<std::uint32_t>(displacements.size()), DataType::S64);
    configure(f, 2, 128, 4, 1, static_cast<std::uint32_t>(displacements.size()), transfer);
    configure(f, 3, 128, 4, 1, static_cast<std::uint32_t>(displacements.size()), transfer);
    unsigned c = 0;
    for (const std::uint64_t d : displacements) {
      f.tile(1).write_element(0, c, d);
      f.tile(2).write_element(0, c, 0);
      f.tile(3).write_element(0, c, 0xAB);
      ++c;
    }
  }
};

TEST(TlsuHandlers, GatherFirstFailingLaneNamesTheFaultAlignmentBeforePage) {
  IndexedFixture x({0, 2, 5000});  // lane 1 misaligned, lane 2 outside memory
  const MemoryOutcome o = mgather(x.f.tile(0), x.m, 0, 0x100, x.f.tile(1), nullptr, PadValue::Null);
  EXPECT_EQ(o.fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(o.address, 0x102U);
  EXPECT_TRUE(x.m.events.empty());
  EXPECT_EQ(x.f.tile(0).defined_element_count(), 0U);  // no padding, no definedness
}

TEST(TlsuHandlers, GatherPageFaultAddressIsTheLaneAddress) {
  IndexedFixture x({0, 4096});
  const MemoryOutcome o = mgather(x.f.tile(0), x.m, 0, 0, x.f.tile(1), nullptr, PadValue::Zero);
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(o.address, 4096U);
  EXPECT_TRUE(x.m.events.empty());
}

TEST(TlsuHandlers, GatherDefinesThePhysicalRegionEvenWithNullPadding) {
  IndexedFixture x({0});
  x.m.poke(0x40, 4, 0x12345678);
  ASSERT_TRUE(mgather(x.f.tile(0), x.m, 0, 0x40, x.f.tile(1), nullptr, PadValue::Null).ok());
  const Tile& d = x.f.tile(0);
  EXPECT_EQ(d.defined_element_count(), std::uint64_t{d.descriptor().rows} * d.descriptor().columns);
  EXPECT_EQ(element(x.f, 0, 0, 0), 0x12345678U);
  EXPECT_EQ(element(x.f, 0, 1, 3), 0U);  // Null pads with zero (TilePadValueForDataType)
  EXPECT_TRUE(d.contents_defined());
}

TEST(TlsuHandlers, NegativeSignedDisplacementAndZeroExtendedUnsigned) {
  EXPECT_EQ(index_byte_displacement(0xFD, DataType::S8), static_cast<std::uint64_t>(-3));
  EXPECT_EQ(index_byte_displacement(0xFD, DataType::U8), 0xFDU);
  EXPECT_EQ(index_byte_displacement(0xD, DataType::S4X2), static_cast<std::uint64_t>(-3));
  EXPECT_EQ(index_byte_displacement(0xFFFFFFFF, DataType::S32), ~0ULL);
}

TEST(TlsuHandlers, ScatterProbesEveryLaneBeforeTheFirstStore) {
  IndexedFixture x({0, 8, 4096});
  const MemoryOutcome o = mscatter(x.f.tile(3), x.m, 0, 0, x.f.tile(1), nullptr);
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(o.address, 4096U);
  EXPECT_TRUE(x.m.events.empty());
  EXPECT_EQ(x.m.peek(0, 4), 0U);
}

TEST(TlsuHandlers, ScatterDuplicateAddressLastLaneWins) {
  IndexedFixture x({0x10, 0x10});
  x.f.tile(3).write_element(0, 1, 0xCD);
  ASSERT_TRUE(mscatter(x.f.tile(3), x.m, 0, 0, x.f.tile(1), nullptr).ok());
  EXPECT_EQ(x.m.peek(0x10, 4), 0xCDU);  // row-major commit order (docs/semantics-notes.md)
}

TEST(TlsuHandlers, CasDuplicateLanesSerialise) {
  IndexedFixture x({0x20, 0x20});  // expected 0 for both, replacement 0xAB
  ASSERT_TRUE(mgather_cas(x.f.tile(0), x.m, 0, 0, x.f.tile(1), x.f.tile(2), x.f.tile(3), PadValue::Null).ok());
  EXPECT_EQ(element(x.f, 0, 0, 0), 0U);     // first lane saw 0 and swapped
  EXPECT_EQ(element(x.f, 0, 0, 1), 0xABU);  // second lane sees the first lane's write
  EXPECT_EQ(x.m.peek(0x20, 4), 0xABU);
}

TEST(TlsuHandlers, CasFaultLeavesMemoryAndDestinationUntouched) {
  IndexedFixture x({0x20, 4094});  // lane 1: 4094 is 2-aligned but not 4-aligned
  const MemoryOutcome o = mgather_cas(x.f.tile(0), x.m, 0, 0, x.f.tile(1), x.f.tile(2), x.f.tile(3), PadValue::Null);
  EXPECT_EQ(o.fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(o.address, 4094U);
  EXPECT_EQ(x.m.peek(0x20, 4), 0U);
  EXPECT_EQ(x.f.tile(0).defined_element_count(), 0U);
}

TEST(TlsuHandlers, PrefetchProbesAllPesBeforeAnyEvent) {
  LoggedMemory m;
  PeWords bases{0, 0x100, 4095, 0x300}, strides{};
  strides.fill(1);
  const MemoryOutcome o = tprefetch(m, bases, strides, {2, 1, 2, DataType::U8});
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(o.address, 4096U);  // PE2's second element
  EXPECT_TRUE(m.events.empty());
}

TEST(TlsuHandlers, PrefetchStrideCountsElements) {
  LoggedMemory m;
  PeWords bases{}, strides{};
  strides.fill(8);
  ASSERT_TRUE(tprefetch(m, bases, strides, {1, 2, 1, DataType::U32}).ok());
  ASSERT_EQ(m.events.size(), 8U);
  EXPECT_EQ(m.events[1].address, 32U);  // row 1 = 8 elements x 4 bytes
}

// ---- Shared registers (asl/tile/model/state/shared-registers.asl) ----

TEST(SharedTiles, QuarterOwnershipFollowsTheByteOffset) {
  TileDescriptor d;
  d.capacity_bytes = 128;
  d.data_type = DataType::U8;
  EXPECT_EQ(shared_element_region(d, 0), 0U);
  EXPECT_EQ(shared_element_region(d, 31), 0U);
  EXPECT_EQ(shared_element_region(d, 32), 1U);
  EXPECT_EQ(shared_element_region(d, 127), 3U);
  d.data_type = DataType::U4X2;  // two elements per byte
  EXPECT_EQ(shared_element_region(d, 64), 1U);
}

TEST(SharedTiles, UndefinedReadsNeverChangeState) {
  TileFile f;
  EXPECT_EQ(read_shared_word(f.shared(7), 7, 0), 7U);          // id XOR element
  EXPECT_EQ(read_shared_word(f.shared(7), 7, 64), 7U ^ 64U);
  EXPECT_FALSE(f.shared(7).descriptor_valid);
}

TEST(SharedTiles, InsertThenCompleteQuartersPublishOnlyWhenAsked) {
  TileFile f;
  configure(f, 0, 128, 4, 2, 4, DataType::U32);
  f.tile(0).mark_valid_region_defined();
  ASSERT_EQ(tmov_local_to_shared(f, 3, 0, 1, 0b1000, false), FaultCode::Fault_None);  // INSERT quarter 0
  const SharedTile& s = f.shared(3);
  EXPECT_TRUE(s.descriptor_valid);
  EXPECT_EQ(s.allocation_mask, 0b1000);
  EXPECT_FALSE(s.published);
  // PUBLISH of a quarter outside the immutable allocation mask is rejected.
  EXPECT_EQ(tmov_local_to_shared(f, 3, 0, 1, 0b0100, true), FaultCode::Fault_TileLegality);
  EXPECT_EQ(s.initialized_mask, 0b1000);
  // PUBLISH of the allocated quarter completes and publishes.
  ASSERT_EQ(tmov_local_to_shared(f, 3, 0, 1, 0b1000, true), FaultCode::Fault_None);
  EXPECT_TRUE(shared_published(s));
}

TEST(SharedTiles, FreshRegisterCountsAgainstTileCapacity) {
  TileFile f;
  f.set_capacity_limit(256);
  configure(f, 0, 128, 4, 2, 4, DataType::U32);  // 128 bytes on one PE in use
  f.tile(0).mark_valid_region_defined();
  EXPECT_EQ(tmov_local_to_shared(f, 1, 0, 1, 0b1100, false), FaultCode::Fault_TileLegality);  // 128 + 2 x 128 > 256
  EXPECT_FALSE(f.shared(1).descriptor_valid);
  EXPECT_EQ(tmov_local_to_shared(f, 1, 0, 1, 0b1000, false), FaultCode::Fault_None);
}

TEST(SharedTiles, SharedToLocalCopiesOnlySelectedQuarters) {
  TileFile f;
  configure(f, 0, 128, 32, 4, 32, DataType::U8);  // 4 rows of 32 bytes: one row per quarter
  for (unsigned r = 0; r < 4; ++r)
    for (unsigned c = 0; c < 32; ++c) f.tile(0).write_element(r, c, r * 32 + c);
  ASSERT_EQ(tmov_local_to_shared(f, 9, 0, 1, 0b1111, true), FaultCode::Fault_None);
  configure(f, 1, 128, 32, 4, 32, DataType::U8);
  tmov_shared_to_local(f, 1, 9, f.shared(9).tile.descriptor(), 0b0100);  // quarter 1 only
  EXPECT_EQ(element(f, 1, 1, 5), 37U);
  EXPECT_FALSE(f.tile(1).element_defined_at(0, 0));
  EXPECT_FALSE(f.tile(1).contents_defined());
}

}  // namespace
}  // namespace pto::tile
