// `pto dis` listing lines (dis::append_listing_line, the objdump-like layout:
// address right-aligned in 8 hex digits, bytes left-aligned in 24 columns)
// and the decode-only pass (Options::text = false).  Encodings are
// hand-derived as in dis_bundle_test.cpp: BSTOP = 0x00000001, BSTART.TLOAD
// U8 = 0xd8011181, B.IOR match 0x13 with RegSrc1@20.
#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "dis/disassembler.hpp"

namespace pto::dis {
namespace {

std::string listing(std::span<const std::uint8_t> bytes, std::uint64_t base, bool with_bytes) {
  as::TextBuffer out;
  for (const Line& l : disassemble(bytes, base)) append_listing_line(out, l, with_bytes);
  return std::string(out.view());
}

TEST(DisListing, AddressAndBytesArePadded) {
  const std::uint8_t bstop[] = {0x01, 0x00, 0x00, 0x00};
  EXPECT_EQ(listing(bstop, 0x1234, true), "    1234:  01 00 00 00              BSTOP\n");
  EXPECT_EQ(listing(bstop, 0x1234, false), "    1234:  BSTOP\n");
  EXPECT_EQ(listing(bstop, 0, false), "       0:  BSTOP\n");
  // Wider than eight digits: no padding, nothing cut.
  EXPECT_EQ(listing(bstop, 0x123456789, false), "123456789:  BSTOP\n");
}

TEST(DisListing, CommentFollowsTheText) {
  // The first halfword of a 32-bit BSTART.TLOAD with its second halfword missing.
  const std::uint8_t truncated[] = {0x81, 0x11};
  EXPECT_EQ(listing(truncated, 0, true),
            "       0:  81 11                    .half 0x1181  # truncated 32-bit instruction\n");
}

TEST(DisListing, DecodeOnlyPassKeepsFormsAndBytesWithoutText) {
  const std::uint8_t bundle[] = {0x81, 0x11, 0x01, 0xd8,   // BSTART.TLOAD U8
                                 0x13, 0x00, 0x20, 0x00,   // B.IOR zero, a0
                                 0x01, 0x00, 0x00, 0x00};  // BSTOP
  Options decode_only;
  decode_only.text = false;
  const auto bare = disassemble(bundle, 0x100, decode_only);
  const auto full = disassemble(bundle, 0x100);
  ASSERT_EQ(bare.size(), 3U);
  ASSERT_EQ(full.size(), 3U);
  for (std::size_t i = 0; i < bare.size(); ++i) {
    EXPECT_TRUE(bare[i].text().empty()) << i;
    EXPECT_EQ(bare[i].address, full[i].address);
    EXPECT_EQ(bare[i].form, full[i].form);
    EXPECT_EQ(bare[i].size, full[i].size);
  }
  EXPECT_EQ(full[1].text(), "B.IOR zero, a0");
}

TEST(DisListing, LineTextSurvivesMovingTheListing) {
  const std::uint8_t bundle[] = {0x81, 0x11, 0x01, 0xd8,   // BSTART.TLOAD U8
                                 0x13, 0x00, 0x20, 0x00,   // B.IOR zero, a0 (shaped: re-stored text)
                                 0x01, 0x00, 0x00, 0x00};  // BSTOP
  Listing moved = disassemble(bundle, 0);
  const Listing target = std::move(moved);
  ASSERT_EQ(target.size(), 3U);
  EXPECT_EQ(target[0].text(), "BSTART.TLOAD U8");
  EXPECT_EQ(target[1].text(), "B.IOR zero, a0");
  EXPECT_EQ(target[2].text(), "BSTOP");
  for (const Line& l : target) EXPECT_TRUE(l.comment().empty());
  // A default Line (no listing) has empty text.
  EXPECT_TRUE(Line{}.text().empty());
}

TEST(DisListing, TextBufferAppendsEveryLength) {
  // The short-copy path covers lengths 0..16 with fixed-size copies; check
  // each length (and a longer one) lands intact and in order.
  const std::string alphabet = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
  as::TextBuffer out;
  std::string expected;
  for (std::size_t n = 0; n <= 40; ++n) {
    out += std::string_view(alphabet).substr(n % 7, n);
    out += '|';
    expected += alphabet.substr(n % 7, n) + "|";
  }
  EXPECT_EQ(out.view(), expected);
  out.clear();
  out.reserve(4);
  out += "12345678901234567890";  // grows past the reservation
  EXPECT_EQ(out.view(), "12345678901234567890");
}

}  // namespace
}  // namespace pto::dis
