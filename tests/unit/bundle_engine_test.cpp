// The tile bundle engine driven by encoded instruction sequences.  Spec test
// points keep their AVS ids; the helper calls of the ASL tests
// (SetBundleDimension, ExecuteBundleTileOperation) are rewritten as encoded
// B.DIM words and BSTOP.  The ADR 0055/0058/0074/0096 bullets are in
// adr0055_test.cpp.
#include <gtest/gtest.h>

#include <cstring>
#include <random>

#include "bundle_test_host.hpp"
#include "tload_checks.hpp"
#include "tile/tile_render.hpp"

namespace pto::test {
namespace {

using arch::FaultCode;
using arch::FaultCode;

// PTO-AVS-BLOCK-TLOAD-STRIDE-001 (tests/asl/block/execution/BSTART.TLOAD/block-exec-bstart-tload-stride-001.asl)
TEST(AvsBlockTload, Stride001ExplicitOmittedAndEncodedZero) {
  {
    BundleTestHost h;
    poke_strided_rows(h);
    ASSERT_TRUE(h.run(two_by_two_tload_with_bior(2, 2, 3)).ok());
    const auto t = h.destination();
    expect_elements(h, t, {{0, 0, 1U}, {0, 1, 2U}, {1, 0, 3U}, {1, 1, 4U}});
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
    expect_elements(h, t, {{0, 0, 5U}, {0, 1, 6U}, {1, 0, 7U}, {1, 1, 8U}});
  }
  {
    BundleTestHost h;  // encoded zero selectors: base zero, stride zero (rows alias)
    h.poke(0, 9);
    h.poke(4, 10);
    ASSERT_TRUE(h.run(two_by_two_tload_with_bior(4, 0, 0)).ok());
    const auto t = h.destination();
    expect_elements(h, t, {{0, 0, 9U}, {0, 1, 10U}, {1, 0, 9U}, {1, 1, 10U}});
  }
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
  ASSERT_EQ(h.file.configure(32, r), FaultCode::Fault_None);  // M#1 busy
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
  ASSERT_EQ(h.file.configure(5, r), FaultCode::Fault_None);
  h.file.tile(5).write_element(0, 0, 0xDEADBEEF);
  h.gpr[2] = 0x80;
  const auto o = h.run({tstore_start(kU32), encode_form(kBIotSrc, {{"SrcTile0", 5}, {"PEMode", 7}, {"L", 1}}), bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.load32(0x80), 0U);
}

TEST(BundleCommit, MgatherWithALayoutRunsItsLegalityChecks) {
  // MGATHER (TLSU function 4) with B.DATR ND2DN executes its dedicated path
  // (tlsu-mgather.asl): the unallocated index tile is Fault_TileLegality
  // before any allocation.
  BundleTestHost h;
  const auto o = h.run({tile_start(0x00011181, 4, kU32), encode_form(kBDatr, {{"Layout", 1}}), bdim(0, 1),
                        encode_form(kBIotSrcDst, {{"SrcTile0", 1}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}}), bior(2, 0), kBstop});
  EXPECT_EQ(o.fault, FaultCode::Fault_TileLegality);
  EXPECT_EQ(h.file.core_capacity_in_use(), 0U);
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
  block::tile_state(h.m).profile = tile::NumericProfile::Reference;  // real() defaults to ieee
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
    EXPECT_EQ(element_at(h, h.destination(), 0, c), bits) << c;
  }
}

// The tile engine takes its numeric profile from the machine configuration.
TEST(TileProfile, FollowsMachineConfiguration) {
  arch::Machine real(arch::MachineConfig::real());
  arch::Machine reference(arch::MachineConfig::reference());
  EXPECT_EQ(block::tile_state(real).profile, tile::NumericProfile::Ieee);
  EXPECT_EQ(block::tile_state(reference).profile, tile::NumericProfile::Reference);
}

}  // namespace
}  // namespace pto::test
