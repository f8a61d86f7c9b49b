// TSTORE writes memory through StoreTileMemoryElement (asl/tile/model/memory/
// load-store.asl), i.e. StoreTranslated, which clears an LR/SC reservation
// whose 64-byte granule the store overlaps (asl/scalar/model/agu/memory.asl).
// The whole-region fast path (dense stride) must keep that rule.
#include <gtest/gtest.h>

#include "bundle_test_host.hpp"

namespace pto::test {
namespace {

// T#1 := 2x2 U32 loaded from address 0 (omitted B.IOR: base 0, dense stride).
void load_source(BundleTestHost& h) {
  for (std::uint32_t i = 0; i < 4; ++i) h.store32(4 * i, 10 + i);
  std::vector<std::uint64_t> w = two_by_two_tload(std::nullopt);
  w.push_back(kBstop);
  ASSERT_TRUE(h.run(w).ok());
}

// TSTORE U32 T#1 to `base` with the dense stride 8 (2 columns x 4 bytes).
bool store_at(BundleTestHost& h, arch::Word base) {
  h.gpr[2] = base;
  h.gpr[3] = 8;
  const std::uint64_t source = encode_form(kBIotSrc, {{"SrcTile0", 0}, {"PEMode", 7}, {"L", 1}});
  return h.run({tstore_start(kU32), source, bior(2, 3), kBstop}).ok();
}

TEST(TileStoreReservation, DenseTstoreOverlappingTheGranuleClearsIt) {
  BundleTestHost h;
  load_source(h);
  h.m.state.reservation_valid = true;
  h.m.state.reservation_address = 0x1008;  // granule 0x1000..0x103F
  ASSERT_TRUE(store_at(h, 0x1038));        // bytes 0x1038..0x1047
  EXPECT_EQ(h.load32(0x1038), 10U);
  EXPECT_EQ(h.load32(0x1044), 13U);
  EXPECT_FALSE(h.m.state.reservation_valid);
}

TEST(TileStoreReservation, TstoreOutsideTheGranuleKeepsIt) {
  BundleTestHost h;
  load_source(h);
  h.m.state.reservation_valid = true;
  h.m.state.reservation_address = 0x1008;
  ASSERT_TRUE(store_at(h, 0x1040));  // bytes 0x1040..0x104F: the next granule
  EXPECT_EQ(h.load32(0x1040), 10U);
  EXPECT_TRUE(h.m.state.reservation_valid);
}

}  // namespace
}  // namespace pto::test
