// arch::Memory bulk accesses (read_bytes / write_bytes, the tile transport's
// copies) go through the page caches the scalar accesses use: a bulk access
// enters its pages in the caches, and a later one takes them from there.
// These tests pin what must not change with that: writes into a page with
// decoded code reach the code-write hook whether or not the page was cached
// before it was marked, absent pages read zero without being allocated, the
// scalar and bulk views of a page agree, and clear() drops cached pages.
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <numeric>
#include <vector>

#include "arch/memory.hpp"

namespace pto::test {
namespace {

using arch::Memory;
using arch::Word;

constexpr Word kPage = Memory::kPageBytes;

struct HookLog {
  std::vector<std::pair<Word, Word>> writes;
  static void record(void* context, Word address, Word size) {
    static_cast<HookLog*>(context)->writes.emplace_back(address, size);
  }
};

std::vector<std::uint8_t> ramp(std::size_t n, std::uint8_t first) {
  std::vector<std::uint8_t> v(n);
  std::iota(v.begin(), v.end(), first);
  return v;
}

TEST(MemoryBulkCache, CodePageMarkedAfterABulkWriteStillCallsTheHook) {
  Memory m;
  HookLog log;
  m.set_code_write_hook(&HookLog::record, &log);
  const auto bytes = ramp(64, 1);
  m.write_bytes(3 * kPage + 8, bytes);  // allocates the page and caches it for writes
  m.write_bytes(3 * kPage + 8, bytes);  // a write-cache hit: no code, no hook
  EXPECT_TRUE(log.writes.empty());
  m.mark_code_page(3 * kPage);
  m.write_bytes(3 * kPage + 100, bytes);
  ASSERT_EQ(log.writes.size(), 1U);
  EXPECT_EQ(log.writes[0], std::make_pair(3 * kPage + 100, Word{64}));
  m.write(3 * kPage + 200, 4, 0x11223344);  // the scalar store takes the hook too
  ASSERT_EQ(log.writes.size(), 2U);
  EXPECT_EQ(log.writes[1], std::make_pair(3 * kPage + 200, Word{4}));
}

TEST(MemoryBulkCache, BulkWriteAcrossPagesReachesTheHookOnceForTheCodePage) {
  Memory m;
  HookLog log;
  m.set_code_write_hook(&HookLog::record, &log);
  m.write_bytes(5 * kPage, ramp(16, 0));  // cache page 5 for writes
  m.mark_code_page(6 * kPage);
  m.write_bytes(6 * kPage - 32, ramp(64, 0));  // crosses from page 5 (cached, no code) into page 6 (code)
  ASSERT_EQ(log.writes.size(), 1U);
  EXPECT_EQ(log.writes[0], std::make_pair(6 * kPage - 32, Word{64}));
}

TEST(MemoryBulkCache, ScalarAndBulkViewsAgreeAndAbsentPagesReadZero) {
  Memory m;
  m.write(kPage + kPage - 4, 8, 0x0807060504030201ULL);  // straddles pages 1 and 2
  std::array<std::uint8_t, 24> out{};
  out.fill(0xEE);
  m.read_bytes(kPage + kPage - 8, out);  // the end of page 1 and the start of page 2
  const std::array<std::uint8_t, 24> expected{0, 0, 0, 0, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0};
  EXPECT_EQ(out, expected);
  const std::uint64_t resident = m.resident_bytes();
  std::array<std::uint8_t, 16> absent{};
  absent.fill(0xEE);
  m.read_bytes(9 * kPage, absent);
  EXPECT_EQ(absent, (std::array<std::uint8_t, 16>{}));
  EXPECT_EQ(m.resident_bytes(), resident);  // reading allocates nothing
  m.write_bytes(kPage + 16, ramp(8, 0x40));  // a bulk write into a page the scalar path cached
  EXPECT_EQ(m.read(kPage + 16, 8), 0x4746454443424140ULL);
  EXPECT_EQ(m.read_aligned(kPage + 16, 8), 0x4746454443424140ULL);
}

TEST(MemoryBulkCache, ClearDropsCachedPages) {
  Memory m;
  m.write_bytes(2 * kPage, ramp(32, 9));
  std::array<std::uint8_t, 32> out{};
  m.read_bytes(2 * kPage, out);  // the page is now in both caches
  EXPECT_EQ(out[0], 9);
  m.clear();
  out.fill(0xEE);
  m.read_bytes(2 * kPage, out);
  EXPECT_EQ(out, (std::array<std::uint8_t, 32>{}));
  EXPECT_EQ(m.resident_bytes(), 0U);
}

TEST(MemoryBulkCache, WithTheFastPathOffBulkAccessesStillWork) {
  Memory m;
  HookLog log;
  m.set_code_write_hook(&HookLog::record, &log);
  m.set_fast_path(false);
  m.write_bytes(4 * kPage + 1, ramp(10, 3));
  m.mark_code_page(4 * kPage);
  m.write_bytes(4 * kPage + 1, ramp(10, 3));
  EXPECT_EQ(log.writes.size(), 1U);
  std::array<std::uint8_t, 10> out{};
  m.read_bytes(4 * kPage + 1, out);
  EXPECT_EQ(out[0], 3);
  EXPECT_EQ(out[9], 12);
  EXPECT_EQ(m.read(4 * kPage + 10, 1), 12U);
}

}  // namespace
}  // namespace pto::test
