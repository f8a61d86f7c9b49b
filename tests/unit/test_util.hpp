// Shared helpers for the unit tests.
#pragma once

#include <nlohmann/json.hpp>

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>

#include "test_paths.hpp"

namespace pto::test {

inline std::filesystem::path data_path(const std::string& rel) { return std::filesystem::path(PTO_TEST_DATA_DIR) / rel; }

inline nlohmann::json load_json(const std::filesystem::path& p) {
  std::ifstream in(p);
  if (!in) throw std::runtime_error("cannot open " + p.string());
  return nlohmann::json::parse(in);
}

inline std::uint64_t parse_hex(const std::string& s) { return std::stoull(s, nullptr, 16); }

}  // namespace pto::test
