// ADR 0055 (complete-bundle B.IOR schema and defaults) as refined by ADR 0058
// (ordered GPR operand resolution), ADR 0074 (TLOAD/TSTORE byte row stride)
// and ADR 0096 (B.IOT/B.IOS SizeCode and PEMode): one named test per bullet
// of each decision, driven by encoded bundles through the machine.  Expected
// values are derived by hand from the ASL named in the comments
// (asl/block/model/dispatch/commands.asl, tile-execution.asl,
// asl/tile/model/execution/generation.asl, asl/tile/model/memory/load-store.asl).
#include <gtest/gtest.h>

#include "bundle_test_host.hpp"
#include "tload_checks.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;

std::uint64_t biot_dst(unsigned size_code, unsigned pe_mode, unsigned hand = 0) {
  return encode_form(kBIotDst, {{"SizeCode", size_code}, {"PEMode", pe_mode}, {"L", 1}, {"DstTile", hand}});
}
// Raw B.IOT ->T and B.IOS words (SizeCode [18:15], PEMode [11:9], L [19],
// SharedTID [27:20]) for values the catalog constraints reject.
constexpr std::uint64_t raw_biot_dst(unsigned size_code, unsigned pe_mode) {
  return 0x00006013ULL | (std::uint64_t{size_code} << 15) | (std::uint64_t{pe_mode} << 9) | (1ULL << 19);
}
constexpr std::uint64_t raw_bios(unsigned shared_id, unsigned size_code, unsigned pe_mode) {
  return 0x00001013ULL | (std::uint64_t{shared_id} << 20) | (std::uint64_t{size_code} << 15) |
         (std::uint64_t{pe_mode} << 9);
}
// BSTART.SFU TCI / TTRI (TEPL Mode 3, Functions 6 and 7).
std::uint64_t tci_start(unsigned dt) { return tepl_start(6, dt, 3); }
std::uint64_t ttri_start(unsigned dt) { return tepl_start(7, dt, 3); }

// ------------------------------------------------------------ ADR 0055

// Bullet: zero or one B.IOR; a second one is a bundle-control fault that
// keeps the first binding.
TEST(Adr0055, SecondBiorIsBundleControlFaultKeepingTheFirst) {
  BundleTestHost h;
  auto w = two_by_two_tload(2);
  w.push_back(bior(2, 3));
  ASSERT_TRUE(h.run(w).ok());
  const auto o = h.run({bior(4, 5)});
  EXPECT_EQ(o.fault, FaultCode::Fault_BundleControl);
  EXPECT_EQ(h.state().scalar_bindings[0].source0, 2U);
  EXPECT_EQ(h.state().scalar_bindings[0].source1, 3U);
}

// Bullet: selectors 24..31 are reserved in B.IOR and reject during decoded
// operand legality, before any B.IOR state change.
TEST(Adr0055, SelectorsAbove23RejectDuringDecodeBeforeStateChange) {
  const std::uint64_t word = 0x00000013ULL | (24ULL << 15);  // RegSrc0 = 24
  const isa::Decoded d = isa::decode(word, 32);
  EXPECT_EQ(d.status, isa::DecodeStatus::ConstraintViolation);
  BundleTestHost h;
  ASSERT_TRUE(h.run(two_by_two_tload(2)).ok());
  EXPECT_EQ(h.run({word}).fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_FALSE(h.state().scalar_bindings[0].valid);
}

// Bullet: fields the resolved schema does not consume, and RegDst, must be
// zero.
TEST(Adr0055, UnconsumedFieldsAndRegDstMustBeZero) {
  for (const auto ior : {bior(2, 3, 4), bior(2, 3, 0, 5)}) {
    BundleTestHost h;
    auto w = two_by_two_tload(2);
    w.push_back(ior);
    w.push_back(kBstop);
    EXPECT_EQ(h.run(w).fault, FaultCode::Fault_BundleControl);
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  }
}

// Bullet: execution reads only consumed fields: an operation without GPR
// inputs accepts an all-zero B.IOR and rejects a nonzero field.
TEST(Adr0055, TaddAcceptsAllZeroBiorAndRejectsNonzero) {
  // TADD consumes no GPR: an encoded all-zero B.IOR is legal (ASL
  // BundleOperationScalarBindingSchemaLegal), any nonzero field is not.
  for (const bool nonzero : {false, true}) {
    BundleTestHost h;
    ASSERT_TRUE(h.run({tload_start(kU32), bdim(0, 2), encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 1}}), kBstop}).ok());
    const auto a = h.destination();
    const auto o = h.run({tepl_start(0, kU32), bdim(0, 2),
                          encode_form(kBIotSrcSrcDst, {{"SrcTile0", a}, {"SrcTile1", a}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}),
                          bior(nonzero ? 1 : 0, 0), kBstop});
    EXPECT_EQ(o.ok(), !nonzero);
    if (nonzero) {
      EXPECT_EQ(o.fault, FaultCode::Fault_BundleControl);
    }
  }
}

// Bullet: repeated inputs and aliases are legal.
TEST(Adr0055, RepeatedInputsAreLegal) {
  BundleTestHost h;
  h.poke(0x40, 0x7);
  h.gpr[2] = 0x40;
  auto w = two_by_two_tload(2);
  w.push_back(bior(2, 0));  // stride = zero register
  w.push_back(kBstop);
  ASSERT_TRUE(h.run(w).ok());
  EXPECT_EQ(element_at(h, h.destination(), 1, 0), 7U);
  BundleTestHost g;
  g.gpr[2] = 0x40;  // base and stride from the same register
  g.poke(0x40, 1);
  g.poke(0x80, 2);
  ASSERT_TRUE(g.run(two_by_two_tload_with_bior(2, 2, 2)).ok());
  EXPECT_EQ(element_at(g, g.destination(), 1, 0), 2U);
}

// Bullet: PE_MASK=0000 has no effect at all.
TEST(Adr0055, ZeroPeMaskIsStrictNoEffect) {
  // PE_MASK=0000: no register read, memory access, allocation, rename,
  // fault, consume or descriptor update, even with a faulting base.
  BundleTestHost h;
  h.gpr[2] = 0xFFFFFFF0;
  const std::vector<std::uint64_t> w{tload_start(kU32), bdim(0, 2),
                                     encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 0}, {"L", 1}}), bior(2, 3)};
  ASSERT_TRUE(h.run(w).ok());
  const auto o = h.run({kBstop});
  EXPECT_TRUE(o.ok());
  EXPECT_TRUE(o.trace.zero_mask_no_op);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  EXPECT_EQ(tile::tile_binding_count(h.state()), 0U);
}

// Bullet: the operand schema is resolved only once the complete bundle is
// collected, so B.IOR may precede the dimensions and the binding.
TEST(Adr0055, SchemaResolvedOnlyAfterTheCompleteBundle) {
  BundleTestHost h;
  poke_strided_rows(h);
  ASSERT_TRUE(h.run({tload_start(kU32), bior(2, 3), bdim(2, 2), bdim(1, 2), bdim(0, 2), biot_dst(1, 7), kBstop}).ok());
  const auto t = h.destination();
  expect_elements(h, t, {{0, 0, 1U}, {0, 1, 2U}, {1, 0, 3U}, {1, 1, 4U}});
}

// Bullet: every header defines the default used when it is omitted.  TADD
// with only LB0: ValidRow 1 (LB1), Col = ValidCol (LB2), PadValue Null
// (B.DATR), no GPR input (B.IOR).
TEST(Adr0055, OmittedHeadersSelectTheirOwnDefaults) {
  BundleTestHost h;
  h.store32(0, 5);
  h.store32(4, 7);
  ASSERT_TRUE(h.run({tload_start(kU32), bdim(0, 2), bdim(1, 1), biot_dst(1, 7, 1), kBstop}).ok());
  const auto a = h.destination();
  ASSERT_TRUE(h.run({tepl_start(0, kU32), bdim(0, 2),
                     encode_form(kBIotSrcSrcDst, {{"SrcTile0", a}, {"SrcTile1", a}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}),
                     kBstop})
                  .ok());
  const tile::Tile& d = h.file.tile(h.destination());
  EXPECT_EQ(d.descriptor().valid_rows, 1U);
  EXPECT_EQ(d.descriptor().valid_columns, 2U);
  EXPECT_EQ(d.descriptor().columns, 2U);
  expect_elements(h, h.destination(), {{0, 0, 10U}, {0, 1, 14U}});
  EXPECT_FALSE(d.element_defined_at(1, 0));  // Null padding leaves the padding undefined
}

// Bullet: register inputs bind in architectural order; an address comes
// first (TLOAD: RegSrc0 = base, RegSrc1 = byte row stride).
TEST(Adr0055, AddressIsTheFirstRegisterInput) {
  BundleTestHost h;
  h.store32(0x200, 0xA);
  h.store32(0x210, 0xB);
  h.gpr[5] = 0x200;  // base
  h.gpr[6] = 0x10;   // stride
  ASSERT_TRUE(h.run(two_by_two_tload_with_bior(2, 5, 6)).ok());
  expect_elements(h, h.destination(), {{0, 0, 0xAU}, {1, 0, 0xBU}});
}

// ------------------------------------------------------------ ADR 0058

// Bullet (ADR 0055, kept by ADR 0058 and 0074): an omitted B.IOR selects
// the defaults, an encoded zero selector is the real zero register.
TEST(Adr0055, OmittedBiorDefaultsAndEncodedZeroIsTheRealZeroRegister) {
  // Omitted: base 0 + dense stride; encoded zero: base 0 + stride 0 (rows alias).
  BundleTestHost h;
  h.store32(0, 11);
  h.store32(8, 22);
  auto w = two_by_two_tload(2);
  w.push_back(kBstop);
  ASSERT_TRUE(h.run(w).ok());
  EXPECT_EQ(element_at(h, h.destination(), 1, 0), 22U);
  BundleTestHost z;
  z.store32(0, 11);
  z.store32(8, 22);
  ASSERT_TRUE(z.run(two_by_two_tload_with_bior(2, 0, 0)).ok());
  EXPECT_EQ(element_at(z, z.destination(), 1, 0), 11U);
}

// Bullet: without an address, scalar0 binds RegSrc0 and the next input
// RegSrc1 (TCI: start, descending).
TEST(Adr0058, TciStartFromRegSrc0AndDirectionFromRegSrc1) {
  for (const bool descending : {false, true}) {
    BundleTestHost h;
    h.gpr[2] = 100;
    h.gpr[3] = descending ? 1 : 0;
    ASSERT_TRUE(h.run({tci_start(kU32), bdim(0, 4), biot_dst(1, 7), bior(2, 3), kBstop}).ok());
    for (unsigned c = 0; c < 4; ++c) {
      EXPECT_EQ(element_at(h, h.destination(), 0, c), descending ? 100U - c : 100U + c) << c;
    }
  }
}

// Bullet: the operation defaults remain TCI (0, ascending) when B.IOR is omitted.
TEST(Adr0058, OmittedBiorKeepsTheOperationDefaults) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tci_start(kU32), bdim(0, 4), biot_dst(1, 7), kBstop}).ok());
  for (unsigned c = 0; c < 4; ++c) EXPECT_EQ(element_at(h, h.destination(), 0, c), c);
}

// Bullet: boolean controls accept exactly raw 0 or 1; anything else is
// Fault_TileLegality before destination resolution.
TEST(Adr0058, BooleanControlOtherThanZeroOrOneFaultsBeforeAllocation) {
  BundleTestHost h;
  h.gpr[3] = 2;
  const auto o = h.run({tci_start(kU32), bdim(0, 4), biot_dst(1, 7), bior(0, 3), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
}

// Bullet: diagonal is a signed XLEN value legal only in -65535..65535.
TEST(Adr0058, TtriDiagonalOutsideItsRangeFaultsBeforeAllocation) {
  for (const arch::Word diagonal : {arch::Word{65536}, ~arch::Word{65535}}) {  // 65536 and -65536
    BundleTestHost h;
    h.gpr[2] = diagonal;
    const auto o = h.run({ttri_start(kU32), bdim(0, 2), biot_dst(1, 7), bior(2, 0), kBstop});
    EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
    EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  }
  BundleTestHost h;  // the bounds themselves are legal
  h.gpr[2] = ~arch::Word{65534};  // -65535
  EXPECT_TRUE(h.run({ttri_start(kU32), bdim(0, 2), biot_dst(1, 7), bior(2, 0), kBstop}).ok());
}

// Bullet: PE_MASK=0000 exits before every GPR read and validation.
TEST(Adr0058, ZeroMaskExitsBeforeGprValidation) {
  BundleTestHost h;
  h.gpr[3] = 7;  // an illegal direction that is never read
  const auto o = h.run({tci_start(kU32), bdim(0, 4), biot_dst(1, 0), bior(0, 3), kBstop});
  EXPECT_TRUE(o.ok());
  EXPECT_TRUE(o.trace.zero_mask_no_op);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
}

// ------------------------------------------------------------ ADR 0074

// Bullet: the omitted-B.IOR stride is ceil(physical columns x bits / 8).
TEST(Adr0074, DenseDefaultUsesPhysicalColumnsInBytesForPackedTypes) {
  // U4X2, ValidCol 3, Col 4: dense pitch ceil(4*4/8) = 2 bytes; row 1 starts at byte 2.
  BundleTestHost h;
  h.poke(0, 0x21);
  h.poke(1, 0x03);
  h.poke(2, 0x54);
  h.poke(3, 0x06);
  std::vector<std::uint64_t> w{tload_start(kU4X2), bdim(0, 3), bdim(1, 2), bdim(2, 4),
                               encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), kBstop};
  ASSERT_TRUE(h.run(w).ok());
  const auto t = h.destination();
  expect_elements(h, t, {{0, 0, 1U}, {0, 1, 2U}, {0, 2, 3U}, {1, 0, 4U}, {1, 2, 6U}});
}

// Bullet: packed four-bit rows use byte floor(c/2) and the nibble by column
// parity; TSTORE preserves the sibling nibble.
TEST(Adr0074, TstorePackedPreservesSiblingNibble) {
  BundleTestHost h;
  h.poke(0, 0x21);
  h.poke(1, 0x03);
  ASSERT_TRUE(h.run({tload_start(kU4X2), bdim(0, 3), bdim(1, 1), bdim(2, 4),
                     encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), kBstop})
                  .ok());
  const auto src = h.destination();
  h.poke(0x20, 0xEE);
  h.poke(0x21, 0xEE);
  h.gpr[4] = 0x20;
  ASSERT_TRUE(h.run({tstore_start(kU4X2), bdim(0, 3), bdim(1, 1),
                     encode_form(kBIotSrc, {{"SrcTile0", src}, {"PEMode", 7}, {"L", 1}}), bior(4, 0), kBstop})
                  .ok());
  EXPECT_EQ(h.byte(0x20), 0x21U);
  EXPECT_EQ(h.byte(0x21), 0xE3U);  // high nibble of the final byte kept
}

// Bullet: complete-footprint preflight and restart are unchanged.
TEST(Adr0074, WholeFootprintCheckedBeforeAnyEffect) {
  // Row 1 leaves the 48-bit address space: DataPage at its first element,
  // and the destination allocated by this bundle is rolled back.
  BundleTestHost h;
  h.gpr[2] = (arch::Word{1} << 48) - 0x10;
  h.gpr[3] = 0x10;
  auto w = two_by_two_tload(2);
  w.push_back(bior(2, 3));
  w.push_back(kBstop);
  const auto o = h.run(w);
  EXPECT_EQ(o.fault, FaultCode::Fault_DataPage);
  EXPECT_EQ(o.fault_address, arch::Word{1} << 48);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  EXPECT_FALSE(h.state().tile_bindings[0].destination_allocated_by_bundle);
  // RecoverTrapContext restores the pending block; with a legal base the
  // same terminator re-executes and commits.
  h.gpr[2] = 0x100;
  ASSERT_TRUE(h.m.recover_trap_context(0));
  EXPECT_TRUE(h.run({kBstop}).ok());
  EXPECT_TRUE(h.file.tile(h.destination()).contents_defined());
  EXPECT_FALSE(h.state().bundle_active);
}

// Bullet: precise faults are unchanged (natural alignment per element).
TEST(Adr0074, NaturalAlignmentFaultNamesTheElement) {
  BundleTestHost h;
  h.gpr[2] = 0x100;
  h.gpr[3] = 0x0E;  // row 1 misaligned for U32
  auto w = two_by_two_tload(2);
  w.push_back(bior(2, 3));
  w.push_back(kBstop);
  const auto o = h.run(w);
  EXPECT_EQ(o.fault, FaultCode::Fault_DataAlignment);
  EXPECT_EQ(o.fault_address, 0x10EU);
}

// Bullet: the encoded stride is a byte quantity added once, never scaled
// by the element size (U16: row 1 at base + 6, not base + 12).
TEST(Adr0074, ByteStrideIsAddedOnceNotScaledByElementSize) {
  BundleTestHost h;
  h.m.memory.write(0x300, 2, 0x1111);
  h.m.memory.write(0x302, 2, 0x2222);
  h.m.memory.write(0x306, 2, 0x3333);
  h.m.memory.write(0x308, 2, 0x4444);
  h.gpr[2] = 0x300;
  h.gpr[3] = 6;
  ASSERT_TRUE(h.run({tload_start(kU16), bdim(0, 2), bdim(1, 2), biot_dst(1, 7), bior(2, 3), kBstop}).ok());
  expect_elements(h, h.destination(), {{0, 1, 0x2222U}, {1, 0, 0x3333U}, {1, 1, 0x4444U}});
}

// ------------------------------------------------------------ ADR 0096

// Bullet: PEMode expands to the fixed four-PE mask (bit 3 = PE0).
TEST(Adr0096, PEModeExpandsToTheFixedMask) {
  const std::uint8_t expected[8] = {0b0000, 0b1000, 0b0100, 0b0010, 0b0001, 0b1100, 0b1110, 0b1111};
  for (unsigned mode = 1; mode < 8; ++mode) {
    BundleTestHost h;
    ASSERT_TRUE(h.run({tload_start(kU8), bdim(0, 1), biot_dst(1, mode)}).ok());
    EXPECT_EQ(h.state().tile_bindings[0].pe_mask, expected[mode]) << mode;
  }
}

// Bullet: core allocation is popcount(mask) x per-PE capacity.
TEST(Adr0096, CoreAllocationIsPopcountTimesPerPeCapacity) {
  const std::pair<unsigned, unsigned> cases[] = {{1, 256}, {5, 512}, {6, 768}, {7, 1024}};
  for (const auto& [mode, bytes] : cases) {
    BundleTestHost h;
    ASSERT_TRUE(h.run({tload_start(kU8), bdim(0, 1), biot_dst(2, mode), kBstop}).ok());  // SizeCode 2 = 256 B
    EXPECT_EQ(h.file.core_capacity_in_use(), bytes) << mode;
  }
}

// Bullet: a destination's SizeCode 1..10 is 128 B .. 64 KiB per PE; 0 and
// 11..15 reject before any effect.
TEST(Adr0096, LocalDestinationSizeCodesOutside1To10Reject) {
  for (const unsigned size_code : {0U, 11U, 12U, 15U}) {
    BundleTestHost h;
    ASSERT_TRUE(h.run({tload_start(kU8), bdim(0, 1)}).ok());
    const auto o = h.run({raw_biot_dst(size_code, 7)});
    EXPECT_EQ(o.fault, FaultCode::Fault_IllegalInstruction) << size_code;
    EXPECT_FALSE(h.state().tile_bindings[0].valid);
  }
  BundleTestHost h;  // U32, 16 columns: 64 KiB = 1024 rows
  ASSERT_TRUE(h.run({tload_start(kU32), bdim(0, 16), biot_dst(10, 1), kBstop}).ok());
  EXPECT_EQ(h.file.core_capacity_in_use(), 65536U);
}

// Bullet: B.IOS SizeCode 0 is a source and 1..12 (up to 256 KiB) a
// destination; 13..15 are reserved.
TEST(Adr0096, SharedSizeCodes13To15AreReserved) {
  for (const unsigned size_code : {13U, 14U, 15U}) {
    BundleTestHost h;
    ASSERT_TRUE(h.run({tload_start(kU8)}).ok());
    EXPECT_EQ(h.run({raw_bios(4, size_code, 1)}).fault,
              FaultCode::Fault_IllegalInstruction)
        << size_code;
    EXPECT_FALSE(h.state().shared_bindings[0].valid);
  }
  BundleTestHost h;
  ASSERT_TRUE(h.run({tload_start(kU8), encode_form(kBIos, {{"SharedTID", 4}, {"SizeCode", 12}, {"PEMode", 1}})}).ok());
  EXPECT_EQ(h.state().shared_bindings[0].size_code, 12U);
}

// Bullet: B.IOS bit 19 stays reserved and must be zero.
TEST(Adr0096, IosBit19IsReserved) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tload_start(kU8)}).ok());
  const std::uint64_t word = raw_bios(4, 0, 7) | (1ULL << 19);
  EXPECT_EQ(h.run({word}).fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_FALSE(h.state().shared_bindings[0].valid);
}

// Bullet: PEMode=000 is accepted and is a no-effect path before placement,
// duplicate and stream checks: outside a block and after the closing L.
TEST(Adr0096, ZeroPEModeIsAcceptedBeforePlacementAndStreamChecks) {
  BundleTestHost h;
  EXPECT_TRUE(h.run({biot_dst(1, 0)}).ok());  // no active block
  EXPECT_TRUE(h.run({encode_form(kBIos, {{"SharedTID", 4}, {"PEMode", 0}})}).ok());
  EXPECT_EQ(h.m.state.last_fault, FaultCode::Fault_None);
  BundleTestHost g;
  ASSERT_TRUE(g.run({tload_start(kU8), bdim(0, 1), biot_dst(1, 7)}).ok());  // L closes the stream
  EXPECT_TRUE(g.run({biot_dst(1, 0)}).ok());
  EXPECT_EQ(tile::tile_binding_count(g.state()), 1U);
}

// Bullet: the aggregate core allocation is bounded by 256 KiB.
TEST(Adr0096, AggregateAllocationIsBoundedBy256KiB) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tload_start(kU32), bdim(0, 16), biot_dst(10, 7), kBstop}).ok());  // 4 x 64 KiB
  EXPECT_EQ(h.file.core_capacity_in_use(), 262144U);
  const auto o = h.run({tload_start(kU8), bdim(0, 1), biot_dst(1, 1, 1), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileAllocation);
  EXPECT_EQ(h.file.core_capacity_in_use(), 262144U);
}

}  // namespace
}  // namespace pto::test
