// Runs a test body once per vector tier of num::simd the host has.
#pragma once

#include <gtest/gtest.h>

#include "numerics/simd_span.hpp"

namespace pto::test {

// Runs `body` once per vector tier up to the host's widest, the tier capped
// (and the cap lifted afterwards, also when an assertion returns early).
template <typename F>
void for_each_tier(F body) {
  using num::simd::Tier;
  struct Uncap {
    ~Uncap() { num::simd::limit_tier(Tier::Avx512); }
  } uncap;
  const Tier host = num::simd::active_tier();
  for (Tier tier : {Tier::Portable, Tier::Avx2, Tier::Avx512}) {
    if (tier > host) break;
    num::simd::limit_tier(tier);
    SCOPED_TRACE(testing::Message() << "tier " << static_cast<int>(tier));
    body();
  }
}

}  // namespace pto::test
