// The part of the spec execution-vector tests that does not depend on the
// step vocabulary, shared by runner_spec_vectors_test.cpp (scalar and block
// vectors) and bundle_spec_vectors_test.cpp (tile-bundle vectors): loading a
// vector file, JSON numbers, running the steps of one vector through a step
// function, and parameterized-test names.
#pragma once

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstddef>
#include <fstream>
#include <string>
#include <vector>

#include "arch/machine.hpp"

namespace pto::test::spec_vectors {

using nlohmann::json;
using arch::Machine;
using arch::Word;

// Records of tests/data/<file>; an empty array when the file is missing (each
// suite's FilePresent test reports that).
inline json load_vectors(const char* file) {
  std::ifstream in(std::string(PTO_TEST_DATA_DIR) + "/" + file);
  return in ? json::parse(in) : json::array();
}

// A vector number: boolean, integer, or a string in C notation ("0x...").
inline Word num(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return static_cast<Word>(v.get<std::int64_t>());
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  return std::stoull(v.get<std::string>(), nullptr, 0);
}

// Runs every step of one vector on a fresh reference machine.  `run_step`
// returns "" when the step holds, "SKIP: <why>" to skip the vector (a family
// whose model support has not landed), or what it observed instead.
template <typename RunStep>
void check_vector(const json& v, RunStep&& run_step) {
  Machine m(arch::MachineConfig::reference());
  const auto& steps = v.at("steps");
  for (std::size_t i = 0; i < steps.size(); ++i) {
    const std::string failure = run_step(m, steps[i]);
    if (failure.starts_with("SKIP: ")) GTEST_SKIP() << v["avs_id"].get<std::string>() << ": " << failure.substr(6);
    ASSERT_EQ(failure, "") << v["avs_id"].get<std::string>() << " step " << i << ": " << steps[i].dump()
                           << " (source " << v["source"].get<std::string>() << ")";
  }
}

// Parameters of a vector suite: the record indices.
inline std::vector<std::size_t> indices(const json& set) {
  std::vector<std::size_t> idx(set.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  return idx;
}

// Test name: the AVS id (non-alphanumerics as '_') and the record index.
template <const json& (*kSet)()>
std::string vector_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string n = kSet()[info.param]["avs_id"].get<std::string>();
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n + "_" + std::to_string(info.param);
}

}  // namespace pto::test::spec_vectors
