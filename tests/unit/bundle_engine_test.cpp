// The tile bundle engine driven by encoded instruction sequences.  Spec test
// points keep their AVS ids; the helper calls of the ASL tests
// (SetBundleDimension, ExecuteBundleTileOperation) are rewritten as encoded
// B.DIM words and BSTOP.  ADR 0055/0058/0074 bullets each have a named test.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "bundle_test_host.hpp"
#include "tile/tile_render.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using tile::Fault;

constexpr unsigned kU32 = 25, kFP32 = 1, kU8 = 27, kU4X2 = 28;

// BSTART.TLOAD U32; LB0=2; LB1=2; [LB2=cols]; B.IOT SizeCode=1 mask=1111 L ->T
std::vector<std::uint64_t> two_by_two_tload(std::optional<unsigned> lb2) {
  std::vector<std::uint64_t> w{tload_start(kU32), bdim(0, 2), bdim(1, 2)};
  if (lb2) w.push_back(bdim(2, *lb2));
  w.push_back(encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}));
  return w;
}

std::uint64_t read(const BundleTestHost& h, tile::TileIndex t, unsigned r, unsigned c) {
  const tile::Tile& x = h.file.tile(t);
  EXPECT_TRUE(x.element_defined_at(r, c));
  return x.read_word(x.linear_index(r, c));
}

// PTO-AVS-BLOCK-TLOAD-STRIDE-001 (tests/asl/block/execution/BSTART.TLOAD/block-exec-bstart-tload-stride-001.asl)
TEST(AvsBlockTload, Stride001ExplicitOmittedAndEncodedZero) {
  {
    BundleTestHost h;
    h.poke(0x100, 1);
    h.poke(0x104, 2);
    h.poke(0x10c, 3);
    h.poke(0x110, 4);
    h.gpr[2] = 0x100;
    h.gpr[3] = 12;
    auto w = two_by_two_tload(2);
    w.push_back(bior(2, 3));
    w.push_back(kBstop);
    ASSERT_TRUE(h.run(w).ok());
    const auto t = h.destination();
    EXPECT_EQ(read(h, t, 0, 0), 1U);
    EXPECT_EQ(read(h, t, 0, 1), 2U);
    EXPECT_EQ(read(h, t, 1, 0), 3U);
    EXPECT_EQ(read(h, t, 1, 1), 4U);
  }
  {
    BundleTestHost h;  // omitted B.IOR: base 0, dense stride 2 x 4 bytes
    h.poke(0, 5);
    h.poke(4, 6);
    h.poke(8, 7);
    h.poke(12, 8);
    auto w = two_by_two_tload(std::nullopt);
    w.push_back(kBstop);
    ASSERT_TRUE(h.run(w).ok());
    const auto t = h.destination();
    EXPECT_EQ(read(h, t, 0, 0), 5U);
    EXPECT_EQ(read(h, t, 0, 1), 6U);
    EXPECT_EQ(read(h, t, 1, 0), 7U);
    EXPECT_EQ(read(h, t, 1, 1), 8U);
  }
  {
    BundleTestHost h;  // encoded zero selectors: base zero, stride zero (rows alias)
    h.poke(0, 9);
    h.poke(4, 10);
    auto w = two_by_two_tload(4);
    w.push_back(bior(0, 0));
    w.push_back(kBstop);
    ASSERT_TRUE(h.run(w).ok());
    const auto t = h.destination();
    EXPECT_EQ(read(h, t, 0, 0), 9U);
    EXPECT_EQ(read(h, t, 0, 1), 10U);
    EXPECT_EQ(read(h, t, 1, 0), 9U);
    EXPECT_EQ(read(h, t, 1, 1), 10U);
  }
}

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
  EXPECT_EQ(read(h, t, 0, 0), 1U);
  EXPECT_EQ(read(h, t, 0, 1), 2U);
  EXPECT_EQ(read(h, t, 0, 2), 3U);
  EXPECT_EQ(read(h, t, 1, 0), 4U);
  EXPECT_EQ(read(h, t, 1, 2), 6U);
}

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

TEST(Adr0055, SelectorsAbove23RejectDuringDecodeBeforeStateChange) {
  const std::uint64_t word = 0x00000013ULL | (24ULL << 15);  // RegSrc0 = 24
  const isa::Decoded d = isa::decode(word, 32);
  EXPECT_EQ(d.status, isa::DecodeStatus::ConstraintViolation);
  BundleTestHost h;
  ASSERT_TRUE(h.run(two_by_two_tload(2)).ok());
  EXPECT_EQ(h.run({word}).fault, FaultCode::Fault_IllegalInstruction);
  EXPECT_FALSE(h.state().scalar_bindings[0].valid);
}

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

TEST(Adr0055, RepeatedInputsAreLegal) {
  BundleTestHost h;
  h.poke(0x40, 0x7);
  h.gpr[2] = 0x40;
  auto w = two_by_two_tload(2);
  w.push_back(bior(2, 0));  // stride = zero register
  w.push_back(kBstop);
  ASSERT_TRUE(h.run(w).ok());
  EXPECT_EQ(read(h, h.destination(), 1, 0), 7U);
  BundleTestHost g;
  g.gpr[2] = 0x40;  // base and stride from the same register
  g.poke(0x40, 1);
  g.poke(0x80, 2);
  auto v = two_by_two_tload(2);
  v.push_back(bior(2, 2));
  v.push_back(kBstop);
  ASSERT_TRUE(g.run(v).ok());
  EXPECT_EQ(read(g, g.destination(), 1, 0), 2U);
}

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

TEST(Adr0058, OmittedBiorDefaultsAndEncodedZeroIsRealZero) {
  // Omitted: base 0 + dense stride; encoded zero: base 0 + stride 0 (rows alias).
  BundleTestHost h;
  h.store32(0, 11);
  h.store32(8, 22);
  auto w = two_by_two_tload(2);
  w.push_back(kBstop);
  ASSERT_TRUE(h.run(w).ok());
  EXPECT_EQ(read(h, h.destination(), 1, 0), 22U);
  BundleTestHost z;
  z.store32(0, 11);
  z.store32(8, 22);
  auto v = two_by_two_tload(2);
  v.push_back(bior(0, 0));
  v.push_back(kBstop);
  ASSERT_TRUE(z.run(v).ok());
  EXPECT_EQ(read(z, z.destination(), 1, 0), 11U);
}

TEST(BundleHeaders, PlacementMultiplicityAndOrder) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tload_start(kU32), bdim(0, 2)}).ok());
  EXPECT_EQ(h.run({bdim(0, 3)}).fault, FaultCode::Fault_BundleControl);                 // LB0 twice
  EXPECT_EQ(h.state().dimensions[0], 2U);
  const auto datr = encode_form(kBDatr, {});
  EXPECT_TRUE(h.run({datr}).ok());
  EXPECT_EQ(h.run({datr}).fault, FaultCode::Fault_BundleControl);                       // B.DATR twice
  ASSERT_TRUE(h.run({encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}})}).ok());
  EXPECT_EQ(h.run({encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}})}).fault, FaultCode::Fault_BundleControl);  // after L
  // Body placement: every header rejects once the body is active.
  h.state().bundle_body_active = true;
  EXPECT_EQ(h.run({bdim(1, 1)}).fault, FaultCode::Fault_BundleControl);
  BundleTestHost g;  // outside any block
  EXPECT_EQ(g.run({bdim(1, 1)}).fault, FaultCode::Fault_BundleControl);
}

TEST(BundleHeaders, AtMostSixteenTileBindingsAndOneMask) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tepl_start(0, kU32)}).ok());
  for (unsigned i = 0; i < 16; ++i)
    ASSERT_TRUE(h.run({encode_form(kBIotSrc, {{"SrcTile0", i}, {"PEMode", 7}})}).ok()) << i;
  EXPECT_EQ(h.run({encode_form(kBIotSrc, {{"SrcTile0", 16}, {"PEMode", 7}})}).fault, FaultCode::Fault_TileLegality);
  BundleTestHost g;
  ASSERT_TRUE(g.run({tepl_start(0, kU32), encode_form(kBIotSrc, {{"SrcTile0", 1}, {"PEMode", 7}})}).ok());
  EXPECT_EQ(g.run({encode_form(kBIotSrc, {{"SrcTile0", 2}, {"PEMode", 1}})}).fault, FaultCode::Fault_TileLegality);
}

TEST(BundleHeaders, AtMostFourSharedBindingsNoDuplicates) {
  BundleTestHost h;
  ASSERT_TRUE(h.run({tload_start(kU32)}).ok());
  for (unsigned i = 0; i < 4; ++i)
    ASSERT_TRUE(h.run({encode_form(kBIos, {{"SharedTID", i}, {"PEMode", 7}})}).ok());
  EXPECT_EQ(h.run({encode_form(kBIos, {{"SharedTID", 9}, {"PEMode", 7}})}).fault, FaultCode::Fault_BundleControl);
  BundleTestHost g;
  ASSERT_TRUE(g.run({tload_start(kU32), encode_form(kBIos, {{"SharedTID", 3}, {"PEMode", 7}})}).ok());
  EXPECT_EQ(g.run({encode_form(kBIos, {{"SharedTID", 3}, {"PEMode", 7}})}).fault, FaultCode::Fault_BundleControl);
}

TEST(BundleCommit, DestinationRenamedToFirstFreeIndexOfItsHand) {
  BundleTestHost h;
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = 1;
  r.valid_rows = 1;
  r.valid_columns = 1;
  r.data_type = tile::DataType::U8;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(32, r), Fault::None);  // M#1 busy
  ASSERT_TRUE(h.run({tload_start(kU8), encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 2}}), kBstop}).ok());
  EXPECT_EQ(h.destination(), 33U);
  EXPECT_EQ(h.file.allocation_mask(33), 0b1111);
}

TEST(BundleCommit, TstoreOfUndefinedSourceIsTileLegalityBeforeEffects) {
  BundleTestHost h;
  tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = 4;
  r.valid_rows = 1;
  r.valid_columns = 2;
  r.data_type = tile::DataType::U32;
  r.mask = 0b1111;
  ASSERT_EQ(h.file.configure(5, r), Fault::None);
  h.file.tile(5).write_element(0, 0, 0xDEADBEEF);
  h.gpr[2] = 0x80;
  const auto o = h.run({tstore_start(kU32), encode_form(kBIotSrc, {{"SrcTile0", 5}, {"PEMode", 7}, {"L", 1}}), bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.load32(0x80), 0U);
}

TEST(BundleCommit, OperationsWithoutAPathStopAsNotImplemented) {
  // MGATHER (TLSU function 4) has a dedicated ASL path this model lacks: the
  // run stops naming the operation, with no allocation.
  BundleTestHost h;
  const auto o = h.run({tile_start(0x00011181, 4, kU32), bdim(0, 1),
                        encode_form(kBIotSrcDst, {{"SrcTile0", 1}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), bior(2, 0), kBstop});
  EXPECT_EQ(o.status, BundleStatus::NotImplemented);
  EXPECT_EQ(o.message, "not implemented in this model: MGATHER");
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
  EXPECT_TRUE(h.state().bundle_active);  // the block stays pending: nothing committed
}

TEST(BundleCommit, TaddMissingLb0IsTileLegality) {
  BundleTestHost h;
  const auto o = h.run({tepl_start(0, kU32),
                        encode_form(kBIotSrcSrcDst, {{"SrcTile0", 1}, {"SrcTile1", 2}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
}

// End to end: two 64x64 tiles (U32, then FP32 under the reference profile)
// loaded with a non-dense byte stride, TADD, TSTORE; checked against host
// arithmetic.
void end_to_end(unsigned dt, bool fp) {
  BundleTestHost h;
  constexpr unsigned n = 64, stride = 320;  // 256 dense + 64 bytes of gap
  std::mt19937 rng(7);
  std::vector<std::uint32_t> a(n * n), b(n * n);
  for (unsigned i = 0; i < n * n; ++i) {
    a[i] = rng();
    b[i] = rng();
    h.store32(0x0000 + (i / n) * stride + (i % n) * 4, a[i]);
    h.store32(0x5000 + (i / n) * stride + (i % n) * 4, b[i]);
  }
  h.gpr[2] = 0x0000;
  h.gpr[3] = stride;
  h.gpr[4] = 0x5000;
  h.gpr[5] = 0xA000;
  const auto load = [&](unsigned base_reg, unsigned hand) {
    return h.run({tload_start(dt), bdim(0, n), bdim(1, n),
                  encode_form(kBIotDst, {{"SizeCode", 8}, {"PEMode", 7}, {"L", 1}, {"DstTile", hand}}), bior(base_reg, 3), kBstop});
  };
  ASSERT_TRUE(load(2, 1).ok());
  const auto ta = h.destination();
  ASSERT_TRUE(load(4, 1).ok());
  const auto tb = h.destination();
  EXPECT_EQ(ta, 16U);
  EXPECT_EQ(tb, 17U);
  const auto add = h.run({tepl_start(0, dt), bdim(0, n), bdim(1, n),
                          encode_form(kBIotSrcSrcDst, {{"SrcTile0", ta}, {"SrcTile1", tb}, {"SizeCode", 8}, {"PEMode", 7}, {"L", 1}}), kBstop});
  ASSERT_TRUE(add.ok());
  const auto tc = h.destination();
  EXPECT_EQ(tc, 0U);
  EXPECT_EQ(add.trace.elements_written, n * n);
  ASSERT_TRUE(h.run({tstore_start(dt), encode_form(kBIotSrc, {{"SrcTile0", tc}, {"PEMode", 7}, {"L", 1}}), bior(5, 3), kBstop}).ok());
  for (unsigned i = 0; i < n * n; ++i) {
    // Reference profile FloatingBinary_ADD is the carrier sum, like U32.
    const std::uint32_t expect = a[i] + b[i];
    ASSERT_EQ(h.load32(0xA000 + (i / n) * stride + (i % n) * 4), expect) << i << (fp ? " fp" : " u32");
  }
  EXPECT_EQ(h.load32(0xA000 + 256), 0U);  // the stride gap is untouched
}

TEST(EndToEnd, U32TloadTaddTstoreNonDenseStride) { end_to_end(kU32, false); }
TEST(EndToEnd, Fp32TloadTaddTstoreNonDenseStrideReferenceProfile) { end_to_end(kFP32, true); }

TEST(EndToEnd, Fp32IeeeProfileMatchesHostFloat) {
  BundleTestHost h;
  block::tile_state(h.m).profile = tile::NumericProfile::Ieee;
  const float xs[4] = {1.5f, -2.25f, 1e30f, 0.1f}, ys[4] = {2.0f, 0.25f, 1e30f, 0.2f};
  for (unsigned i = 0; i < 4; ++i) {
    std::uint32_t x, y;
    std::memcpy(&x, &xs[i], 4);
    std::memcpy(&y, &ys[i], 4);
    h.store32(4 * i, x);
    h.store32(16 + 4 * i, y);
  }
  h.gpr[2] = 16;
  ASSERT_TRUE(h.run({tload_start(kFP32), bdim(0, 4), encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 1}}), kBstop}).ok());
  const auto ta = h.destination();
  ASSERT_TRUE(h.run({tload_start(kFP32), bdim(0, 4), encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 1}}), bior(2, 0), kBstop}).ok());
  const auto tb = h.destination();
  ASSERT_TRUE(h.run({tepl_start(0, kFP32), bdim(0, 4),
                     encode_form(kBIotSrcSrcDst, {{"SrcTile0", ta}, {"SrcTile1", tb}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), kBstop}).ok());
  for (unsigned c = 0; c < 4; ++c) {
    const float expect = xs[c] + ys[c];
    std::uint32_t bits;
    std::memcpy(&bits, &expect, 4);
    EXPECT_EQ(read(h, h.destination(), 0, c), bits) << c;
  }
}

}  // namespace
}  // namespace pto::test
