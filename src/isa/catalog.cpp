#include "isa/catalog.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <unordered_map>
#include <vector>

namespace pto::isa {
namespace {

struct MnemonicIndex {
  std::unordered_map<std::string_view, Mnemonic> by_name;
  std::array<std::vector<FormIndex>, kMnemonicCount> forms;
  std::unordered_map<std::string_view, FormIndex> by_form_id;
  std::unordered_map<std::string_view, TileOp> tile_by_name;

  MnemonicIndex() {
    for (std::size_t i = 0; i < kMnemonicCount; ++i) {
      by_name.emplace(generated::kMnemonicNames[i], static_cast<Mnemonic>(i));
    }
    for (std::size_t i = 0; i < kFormRecordCount; ++i) {
      const FormDesc& f = generated::kForms[i];
      by_form_id.emplace(f.form_id, static_cast<FormIndex>(i));
      if (f.status != FormStatus::ExtensionReserved) {
        forms[static_cast<std::size_t>(f.mnem)].push_back(static_cast<FormIndex>(i));
      }
    }
    for (std::size_t i = 0; i < kTileOpCount; ++i) {
      tile_by_name.emplace(generated::kTileOps[i].name, static_cast<TileOp>(i));
    }
  }
};

const MnemonicIndex& index() {
  static const MnemonicIndex idx;
  return idx;
}

}  // namespace

std::optional<Mnemonic> mnemonic_from_name(std::string_view upper_name) {
  const auto& m = index().by_name;
  auto it = m.find(upper_name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::span<const FormIndex> forms_of_mnemonic(Mnemonic m) { return index().forms[static_cast<std::size_t>(m)]; }

std::optional<FormIndex> form_by_id(std::string_view form_id) {
  const auto& m = index().by_form_id;
  auto it = m.find(form_id);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

int field_index(const FormDesc& f, std::string_view name) {
  const auto fs = fields_of(f);
  for (std::size_t i = 0; i < fs.size(); ++i) {
    if (name == fs[i].name) return static_cast<int>(i);
  }
  return -1;
}

std::optional<TileOp> tile_op_from_name(std::string_view name) {
  const auto& m = index().tile_by_name;
  auto it = m.find(name);
  if (it == m.end()) return std::nullopt;
  return it->second;
}

std::string_view engine_name(TileEngine e) {
  static constexpr std::array<std::string_view, 4> names{"VEC", "SFU", "TLSU", "CUBE"};
  return names[static_cast<std::size_t>(e)];
}

std::string_view family_name(Family f) {
  static constexpr std::array<std::string_view, 8> names{"AGU", "ALU", "AMO", "BRU", "FSU", "SYS", "CMD", "BBD"};
  return names[static_cast<std::size_t>(f)];
}

}  // namespace pto::isa
