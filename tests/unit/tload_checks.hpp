// TLOAD element checks shared by the bundle engine and ADR 0055/0074 tests:
// table-driven expectations on a loaded tile and the strided 2x2 U32 source
// of PTO-AVS-BLOCK-TLOAD-STRIDE-001
// (tests/asl/block/execution/BSTART.TLOAD/block-exec-bstart-tload-stride-001.asl).
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "bundle_test_host.hpp"

namespace pto::test {

// An expected element: [row, column] of the tile holds `value`.
struct ElementValue {
  unsigned row, column;
  std::uint64_t value;
};

inline void expect_elements(const BundleTestHost& h, tile::TileIndex t, std::initializer_list<ElementValue> expected) {
  for (const ElementValue& e : expected)
    EXPECT_EQ(element_at(h, t, e.row, e.column), e.value) << "[" << e.row << ", " << e.column << "]";
}

// The 2x2 U32 TLOAD of two_by_two_tload(lb2) with B.IOR src0, src1 and BSTOP.
inline std::vector<std::uint64_t> two_by_two_tload_with_bior(std::optional<unsigned> lb2, unsigned src0, unsigned src1) {
  std::vector<std::uint64_t> w = two_by_two_tload(lb2);
  w.push_back(bior(src0, src1));
  w.push_back(kBstop);
  return w;
}

// U32 rows {1, 2} and {3, 4} at 0x100 with a 12-byte row stride; a0 (GPR 2)
// holds the base and a1 (GPR 3) the stride, for B.IOR a0, a1.
inline void poke_strided_rows(BundleTestHost& h) {
  h.poke(0x100, 1);
  h.poke(0x104, 2);
  h.poke(0x10c, 3);
  h.poke(0x110, 4);
  h.gpr[2] = 0x100;
  h.gpr[3] = 12;
}

}  // namespace pto::test
