// Name lookups over the generated catalog tables (src/isa/catalog.cpp): each
// is built on first use, mnemonic_from_name searches the sorted name table.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "isa/catalog.hpp"

namespace pto::isa {
namespace {

TEST(IsaLookup, EveryMnemonicNameFindsItsMnemonic) {
  for (std::size_t i = 0; i < kMnemonicCount; ++i) {
    const auto m = static_cast<Mnemonic>(i);
    EXPECT_EQ(mnemonic_from_name(mnemonic_name(m)), m) << mnemonic_name(m);
  }
  // Upper-case catalog spellings only; a prefix of a longer name is its own entry.
  EXPECT_EQ(mnemonic_from_name("ADD"), Mnemonic::ADD);
  EXPECT_EQ(mnemonic_from_name("ADDI"), Mnemonic::ADDI);
  EXPECT_EQ(mnemonic_from_name("add"), std::nullopt);
  EXPECT_EQ(mnemonic_from_name("AD"), std::nullopt);
  EXPECT_EQ(mnemonic_from_name(""), std::nullopt);
  EXPECT_EQ(mnemonic_from_name("ZZZZ"), std::nullopt);
}

TEST(IsaLookup, FormsOfMnemonicAreItsCatalogFormsInIndexOrder) {
  for (std::size_t i = 0; i < kMnemonicCount; ++i) {
    const auto m = static_cast<Mnemonic>(i);
    std::vector<FormIndex> expected;
    for (const FormDesc& f : all_forms())
      if (f.status != FormStatus::ExtensionReserved && f.mnem == m) expected.push_back(index_of(f));
    const auto got = forms_of_mnemonic(m);
    EXPECT_EQ(std::vector<FormIndex>(got.begin(), got.end()), expected) << mnemonic_name(m);
    EXPECT_FALSE(got.empty()) << mnemonic_name(m);
  }
  // command-forms.json: B.IOT has five forms (source/destination combinations).
  EXPECT_EQ(forms_of_mnemonic(Mnemonic::B_IOT).size(), 5u);
}

TEST(IsaLookup, FormIdsAndTileOperationNamesFindTheirRecords) {
  for (const FormDesc& f : all_forms()) EXPECT_EQ(form_by_id(f.form_id), index_of(f)) << f.form_id;
  EXPECT_EQ(std::string(form(*form_by_id("add_32_d04202886d0a")).mnemonic), "ADD");
  EXPECT_EQ(form_by_id("add_32_000000000000"), std::nullopt);
  for (std::size_t i = 0; i < kTileOpCount; ++i) {
    const auto op = static_cast<TileOp>(i);
    EXPECT_EQ(tile_op_from_name(tile_op(op).name), op) << tile_op(op).name;
  }
  EXPECT_EQ(tile_op_from_name("TNOSUCHOP"), std::nullopt);
}

}  // namespace
}  // namespace pto::isa
