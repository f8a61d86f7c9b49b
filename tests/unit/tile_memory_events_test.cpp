// Memory events of TLOAD / TSTORE under event capture
// (asl/tile/model/memory/load-store.asl TLOAD / TSTORE,
// asl/arch/memory-model/{memory-events,atomicity}.asl).  The rules, read off
// the ASL and derived by hand here:
//  - the whole footprint is probed first; a fault records no event;
//  - then one access per valid element in row-major (row, column) order at
//    TileMemoryStridedByteAddress, of TileMemoryElementBytes bytes (1 for a
//    packed four-bit element), recorded by RecordLoadEvent / RecordStoreEvent
//    with _CurrentMemoryAgent and CurrentBundleMemoryOrder;
//  - a load event carries the raw bytes read (the whole byte for a nibble),
//    a store event the stored value (for a nibble the merged byte; the read
//    of the old byte in StoreTileMemoryElement records nothing).
// Without capture, the bulk copies must give the same memory and tiles.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "bundle_test_host.hpp"
#include "tile/ops_tlsu.hpp"
#include "tile/tile_memory.hpp"

namespace pto::test {
namespace {

using arch::MemoryEventKind;
using arch::MemoryOrder;

std::uint64_t catr(const std::map<std::string, std::int64_t>& fields) {
  return encode_form("b_catr_32_e90bd52fa480", fields);  // B.CATR {DR, trap, far, atom, aq, rl}
}
// B.IOT Src0, mask, L (0x5013): PEMode [11:9], L [19], Src0 [25:20].
constexpr std::uint64_t iot_source(unsigned pe_mode, unsigned s0) {
  return 0x00005013 | (std::uint64_t{pe_mode} << 9) | (1ULL << 19) | (std::uint64_t{s0} << 20);
}
// BSTART.TLOAD U16; LB0 = LB1 = 2; B.IOT SizeCode 1, mask 1111, L ->T; B.IOR a2, a3.
std::vector<std::uint64_t> tload_u16_2x2(bool acquire) {
  std::vector<std::uint64_t> w{tload_start(kU16)};
  if (acquire) w.push_back(catr({{"aq", 1}}));
  for (const std::uint64_t x : {bdim(0, 2), bdim(1, 2),
                                encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}),
                                bior(2, 3), kBstop})
    w.push_back(x);
  return w;
}

void expect_event(const arch::MemoryEvent& e, MemoryEventKind kind, unsigned agent, arch::Word address, unsigned size,
                  std::uint64_t value, MemoryOrder order) {
  EXPECT_EQ(e.kind, kind);
  EXPECT_EQ(e.agent, agent);
  EXPECT_EQ(e.address, address);
  EXPECT_EQ(e.size_bytes, size);
  EXPECT_EQ(kind == MemoryEventKind::Load ? e.read_value : e.write_value, value);
  EXPECT_EQ(e.order, order);
}

// A 2x2 U16 TLOAD from 0x400 with a 16-byte row stride, captured for agent 2
// after two scalar stores of agent 2: events 2..5 are the element loads
// (0,0) 0x400, (0,1) 0x402, (1,0) 0x410, (1,1) 0x412, two bytes each, agent
// 2, Acquire (B.CATR aq), with the raw values; the load of 0x402 reads from
// the scalar store event 1 (ResolveCapturedReadFrom).  The tile equals the
// one an uncaptured TLOAD produces.
TEST(TileMemoryEvents, TloadOneLoadPerElementRowMajor) {
  const auto prepare = [](BundleTestHost& h) {
    h.m.memory.write(0x404, 2, 0xdead);  // between the rows: not read
    h.m.memory.write(0x410, 2, 0x3333);
    h.m.memory.write(0x412, 2, 0x4444);
    h.m.state.gpr[2][2] = 0x400;
    h.m.state.gpr[2][3] = 0x10;
  };
  BundleTestHost h(arch::MachineConfig::reference());
  prepare(h);
  h.m.start_memory_event_capture(2);
  ASSERT_TRUE(h.m.store(0x400, 2, 0x1111));
  ASSERT_TRUE(h.m.store(0x402, 2, 0x2222));
  const BundleOutcome o = h.run(tload_u16_2x2(true));
  ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
  ASSERT_EQ(h.m.state.memory_event_count, 6U);
  const auto& ev = h.m.state.memory_events;
  expect_event(ev[2], MemoryEventKind::Load, 2, 0x400, 2, 0x1111, MemoryOrder::Acquire);
  expect_event(ev[3], MemoryEventKind::Load, 2, 0x402, 2, 0x2222, MemoryOrder::Acquire);
  expect_event(ev[4], MemoryEventKind::Load, 2, 0x410, 2, 0x3333, MemoryOrder::Acquire);
  expect_event(ev[5], MemoryEventKind::Load, 2, 0x412, 2, 0x4444, MemoryOrder::Acquire);
  EXPECT_EQ(ev[2].read_from, 0U);
  EXPECT_EQ(ev[3].read_from, 1U);
  const tile::TileIndex captured = h.destination();

  BundleTestHost plain(arch::MachineConfig::reference());
  prepare(plain);
  plain.m.start_memory_event_capture(2);  // agent 2 (its a2 / a3), then no capture
  plain.m.stop_memory_event_capture();
  ASSERT_TRUE(plain.m.store(0x400, 2, 0x1111));
  ASSERT_TRUE(plain.m.store(0x402, 2, 0x2222));
  ASSERT_TRUE(plain.run(tload_u16_2x2(false)).ok());
  EXPECT_EQ(plain.m.state.memory_event_count, 0U);
  const std::array<std::uint64_t, 4> expected{0x1111, 0x2222, 0x3333, 0x4444};
  for (unsigned i = 0; i < 4; ++i) {
    EXPECT_EQ(element_at(h, captured, i / 2, i % 2), expected[i]) << i;
    EXPECT_EQ(element_at(plain, plain.destination(), i / 2, i % 2), expected[i]) << i;
  }
  const auto a = h.file.tile(captured).payload();
  const auto b = plain.file.tile(plain.destination()).payload();
  ASSERT_EQ(a.size(), b.size());
  EXPECT_TRUE(std::equal(a.begin(), a.end(), b.begin()));
}

// A 2x2 U32 Local source (mask 0001) stored to 0x600 with a 32-byte stride,
// captured for agent 3 with B.CATR rl: four Store events (0x600, 0x604,
// 0x620, 0x624), four bytes, Release, coherence rank 1 each; memory as
// without capture.
TEST(TileMemoryEvents, TstoreOneStorePerElementRowMajor) {
  const auto run = [](BundleTestHost& h, bool capture) {
    tile::ConfigureRequest r;
    r.capacity_bytes = 128;
    r.columns = 2;
    r.valid_rows = 2;
    r.valid_columns = 2;
    r.data_type = tile::DataType::U32;
    r.mask = 0b0001;
    ASSERT_EQ(h.file.configure(7, r), arch::FaultCode::Fault_None);
    for (unsigned i = 0; i < 4; ++i) h.file.tile(7).write_element(i / 2, i % 2, 0xa0a0a0a0U + i);
    h.m.state.gpr[3][2] = 0x600;
    h.m.state.gpr[3][3] = 0x20;
    h.m.start_memory_event_capture(3);  // agent 3 (its a2 / a3)
    if (!capture) h.m.stop_memory_event_capture();
    const BundleOutcome o = h.run({tstore_start(kU32), catr({{"rl", 1}}), iot_source(4, 7), bior(2, 3), kBstop});
    ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
  };
  BundleTestHost h(arch::MachineConfig::reference());
  run(h, true);
  ASSERT_EQ(h.m.state.memory_event_count, 4U);
  const std::array<arch::Word, 4> addresses{0x600, 0x604, 0x620, 0x624};
  for (unsigned i = 0; i < 4; ++i) {
    expect_event(h.m.state.memory_events[i], MemoryEventKind::Store, 3, addresses[i], 4, 0xa0a0a0a0U + i,
                 MemoryOrder::Release);
    EXPECT_EQ(h.m.state.memory_events[i].coherence_rank, 1U);
    EXPECT_TRUE(h.m.state.memory_events[i].write_performed);
  }
  BundleTestHost plain(arch::MachineConfig::reference());
  run(plain, false);
  EXPECT_EQ(plain.m.state.memory_event_count, 0U);
  for (arch::Word a = 0x600; a < 0x640; ++a) EXPECT_EQ(h.byte(a), plain.byte(a)) << a;
  EXPECT_EQ(h.load32(0x624), 0xa0a0a0a3U);
}

// Faults come from the preflight, before any access: a TLOAD whose row 1
// leaves the 4096-byte reference memory faults DataPage at (1,0) = 0x100c
// and a misaligned TSTORE base faults DataAlignment at 0x601; neither adds
// an event to the one already captured, nor writes memory.
TEST(TileMemoryEvents, FaultRecordsNoEvent) {
  {
    BundleTestHost h(arch::MachineConfig::reference(4096));
    h.m.state.gpr[1][2] = 0xffc;
    h.m.state.gpr[1][3] = 0x10;
    h.m.start_memory_event_capture(1);
    ASSERT_TRUE(h.m.store(0x10, 4, 5));
    const BundleOutcome o = h.run(tload_u16_2x2(false));
    EXPECT_EQ(o.fault, arch::FaultCode::Fault_DataPage);
    EXPECT_EQ(o.fault_address, 0x100cU);
    EXPECT_EQ(h.m.state.memory_event_count, 1U);
  }
  {
    BundleTestHost h(arch::MachineConfig::reference(4096));
    tile::ConfigureRequest r;
    r.capacity_bytes = 128;
    r.columns = 2;
    r.valid_rows = 1;
    r.valid_columns = 2;
    r.data_type = tile::DataType::U32;
    r.mask = 0b0001;
    ASSERT_EQ(h.file.configure(7, r), arch::FaultCode::Fault_None);
    h.file.tile(7).write_element(0, 0, 1);
    h.file.tile(7).write_element(0, 1, 2);
    h.m.state.gpr[3][2] = 0x601;
    h.m.state.gpr[3][3] = 0;
    h.m.start_memory_event_capture(3);
    ASSERT_TRUE(h.m.store(0x10, 4, 5));
    const BundleOutcome o = h.run({tstore_start(kU32), iot_source(4, 7), bior(2, 3), kBstop});
    EXPECT_EQ(o.fault, arch::FaultCode::Fault_DataAlignment);
    EXPECT_EQ(o.fault_address, 0x601U);
    EXPECT_EQ(h.m.state.memory_event_count, 1U);
    for (arch::Word a = 0x600; a < 0x610; ++a) EXPECT_EQ(h.byte(a), 0U) << a;
  }
}

// The log holds PTO_MODEL_MEMORY_EVENTS = 16 events (the ASL asserts beyond
// that; this model stops capturing, docs/semantics-notes.md): a 20-element U8
// TLOAD records its first 16 loads (0x200..0x20f), capture ends, and the
// tile still receives all 20 elements.
TEST(TileMemoryEvents, FullLogEndsCapture) {
  BundleTestHost h(arch::MachineConfig::reference());
  for (unsigned i = 0; i < 20; ++i) h.poke(0x200 + i, static_cast<std::uint8_t>(i + 1));
  h.m.state.gpr[0][2] = 0x200;
  h.m.start_memory_event_capture(0);
  const BundleOutcome o =
      h.run({tload_start(kU8), bdim(0, 20), bdim(1, 1), bdim(2, 32),
             encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}), bior(2, 0), kBstop});
  ASSERT_TRUE(o.ok()) << arch::fault_name(o.fault) << " " << o.message;
  EXPECT_EQ(h.m.state.memory_event_count, 16U);
  EXPECT_FALSE(h.m.state.memory_event_capture);
  for (unsigned i = 0; i < 16; ++i) {
    expect_event(h.m.state.memory_events[i], MemoryEventKind::Load, 0, 0x200 + i, 1, i + 1, MemoryOrder::Relaxed);
  }
  for (unsigned i = 0; i < 20; ++i) EXPECT_EQ(element_at(h, h.destination(), 0, i), i + 1) << i;
}

// ---- the kernels against a capturing port (packed four-bit elements) ----

struct Access {
  char kind;
  unsigned agent;
  std::uint64_t address;
  unsigned size;
  std::uint64_t value;
  bool operator==(const Access&) const = default;
};

// A 64-byte memory; when `capturing`, TLOAD / TSTORE must come through
// load_element / store_element (agent 5), which are logged.
class CapturingPort final : public tile::TileMemoryPort {
 public:
  explicit CapturingPort(bool capturing) : capturing_(capturing) {}
  arch::FaultCode check(std::uint64_t address, std::uint64_t size, bool) const override {
    return address <= bytes.size() && size <= bytes.size() - address ? arch::FaultCode::Fault_None : arch::FaultCode::Fault_DataPage;
  }
  void read(std::uint64_t address, std::span<std::byte> out) override {
    std::memcpy(out.data(), bytes.data() + address, out.size());
  }
  void write(std::uint64_t address, std::span<const std::byte> in) override {
    std::memcpy(bytes.data() + address, in.data(), in.size());
  }
  std::uint64_t load_element(unsigned agent, std::uint64_t address, unsigned size) override {
    const std::uint64_t v = TileMemoryPort::load_element(agent, address, size);
    log.push_back({'L', agent, address, size, v});
    return v;
  }
  void store_element(unsigned agent, std::uint64_t address, unsigned size, std::uint64_t value) override {
    TileMemoryPort::store_element(agent, address, size, value);
    log.push_back({'S', agent, address, size, value});
  }
  bool capturing_events() const override { return capturing_; }
  unsigned event_agent() const override { return 5; }

  std::array<std::byte, 64> bytes{};
  std::vector<Access> log;

 private:
  bool capturing_;
};

std::uint64_t element_at_tile(const tile::Tile& t, unsigned column) {
  EXPECT_TRUE(t.element_defined_at(0, column));
  return t.read_word(t.linear_index(0, column));
}

void configure_u4(tile::TileFile& f, tile::TileIndex i) {
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = 4;
  r.valid_rows = 1;
  r.valid_columns = 3;
  r.data_type = tile::DataType::U4X2;
  r.mask = 0b0001;
  ASSERT_EQ(f.configure(i, r), arch::FaultCode::Fault_None);
}

// U4X2 1x3 TSTORE of nibbles 1, 2, 3 to 0x10 over bytes AB CD: each nibble
// is a one-byte store of the merged byte, A1 then 21 at 0x10, C3 at 0x11;
// the TLOAD of the same three nibbles reads 21, 21, C3 (one byte each) and
// keeps nibbles 1, 2, 3.  Without capture: no element access, same bytes
// and elements.
TEST(TileMemoryEvents, PackedNibblesAreByteAccesses) {
  for (const bool capturing : {true, false}) {
    CapturingPort port(capturing);
    port.bytes[0x10] = std::byte{0xab};
    port.bytes[0x11] = std::byte{0xcd};
    tile::TileFile f;
    configure_u4(f, 1);
    for (unsigned c = 0; c < 3; ++c) f.tile(1).write_element(0, c, c + 1);
    ASSERT_TRUE(tile::tstore(f.tile(1), port, 0x10, 0).ok());
    EXPECT_EQ(port.bytes[0x10], std::byte{0x21});
    EXPECT_EQ(port.bytes[0x11], std::byte{0xc3});
    configure_u4(f, 2);
    ASSERT_TRUE(tile::tload(f.tile(2), port, 0x10, 0).ok());
    for (unsigned c = 0; c < 3; ++c) EXPECT_EQ(element_at_tile(f.tile(2), c), c + 1) << c;
    const std::vector<Access> expected =
        capturing ? std::vector<Access>{{'S', 5, 0x10, 1, 0xa1},
                                        {'S', 5, 0x10, 1, 0x21},
                                        {'S', 5, 0x11, 1, 0xc3},
                                        {'L', 5, 0x10, 1, 0x21},
                                        {'L', 5, 0x10, 1, 0x21},
                                        {'L', 5, 0x11, 1, 0xc3}}
                  : std::vector<Access>{};
    EXPECT_EQ(port.log, expected) << capturing;
  }
}

// TSTOREShared of packed nibbles: StoreTileMemoryElement reads the sibling
// nibble with LoadTranslatedUnsigned, which records nothing, so each nibble
// is one one-byte store access and no load access (asl/tile/model/memory/
// shared-movement.asl, load-store.asl).  The register is absent: its view
// stores the undefined-register words, whose values do not matter here.
TEST(TileMemoryEvents, SharedPackedStoreIsOneStorePerNibble) {
  CapturingPort port(true);
  tile::TileFile f;
  tile::TileDescriptor view;
  view.capacity_bytes = 128;
  view.columns = 4;
  view.rows = tile::derived_tile_rows(128, 4, tile::DataType::U4X2);
  view.valid_rows = 1;
  view.valid_columns = 3;
  view.data_type = tile::DataType::U4X2;
  const tile::PeWords bases{0x10, 0x10, 0x10, 0x10}, strides{0, 0, 0, 0};
  ASSERT_TRUE(tile::tstore_shared(f, 9, port, bases, strides, view, 0b1111).ok());
  ASSERT_EQ(port.log.size(), 3U);
  const std::uint64_t addresses[] = {0x10, 0x10, 0x11};
  for (unsigned i = 0; i < 3; ++i) {
    EXPECT_EQ(port.log[i].kind, 'S') << i;
    EXPECT_EQ(port.log[i].size, 1U) << i;
    EXPECT_EQ(port.log[i].address, addresses[i]) << i;
  }
}

}  // namespace
}  // namespace pto::test
