// Encodes the first form of a mnemonic from named field values (unnamed
// fields are zero): hand-assembled words for run-loop tests.
#pragma once

#include <gtest/gtest.h>

#include <cstdint>
#include <initializer_list>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include "isa/decoder.hpp"

namespace pto::test {

inline std::uint64_t enc(std::string_view mnemonic,
                         std::initializer_list<std::pair<std::string_view, std::int64_t>> named) {
  const auto m = isa::mnemonic_from_name(mnemonic);
  EXPECT_TRUE(m.has_value()) << mnemonic;
  const auto& f = isa::form(isa::forms_of_mnemonic(*m).front());
  std::vector<std::int64_t> values(isa::fields_of(f).size(), 0);
  for (const auto& [name, v] : named) values.at(static_cast<std::size_t>(isa::field_index(f, name))) = v;
  return std::get<std::uint64_t>(isa::encode(f, values));
}

}  // namespace pto::test
