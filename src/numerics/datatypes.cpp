#include "numerics/datatypes.hpp"

namespace pto::num {

namespace {
constexpr char upper(char c) noexcept { return (c >= 'a' && c <= 'z') ? static_cast<char>(c - 'a' + 'A') : c; }
}  // namespace

std::optional<DataType> data_type_from_name_ci(std::string_view n) noexcept {
  for (const auto& e : kDataTypeTable) {
    if (e.name.size() != n.size()) continue;
    bool same = true;
    for (std::size_t i = 0; i < n.size() && same; ++i) same = upper(e.name[i]) == upper(n[i]);
    if (same) return e.type;
  }
  return std::nullopt;
}

}  // namespace pto::num
