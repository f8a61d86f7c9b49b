#include "isa/catalog.hpp"

#include <algorithm>
#include <array>
#include <cstring>
#include <string>
#include <unordered_map>

namespace pto::isa {
namespace {

// Each lookup is built on first use, so a command builds only those it needs
// (issue 18: start-up).

// Catalog forms grouped by mnemonic, in index order: the forms of mnemonic m
// are forms[begin[m] .. begin[m + 1]).
struct FormsByMnemonic {
  std::array<FormIndex, kFormRecordCount> forms{};
  std::array<std::uint16_t, kMnemonicCount + 1> begin{};

  FormsByMnemonic() {
    auto catalog_form = [](const FormDesc& f) { return f.status != FormStatus::ExtensionReserved; };
    for (const FormDesc& f : all_forms())
      if (catalog_form(f)) ++begin[static_cast<std::size_t>(f.mnem) + 1];
    for (std::size_t m = 0; m < kMnemonicCount; ++m) begin[m + 1] += begin[m];
    auto next = begin;
    for (const FormDesc& f : all_forms())
      if (catalog_form(f)) forms[next[static_cast<std::size_t>(f.mnem)]++] = index_of(f);
  }
};

// Index of the records by name: name_of(records[i]) -> Key(i).
template <typename Key, typename Record, typename NameOf>
std::unordered_map<std::string_view, Key> by_name(std::span<const Record> records, NameOf name_of) {
  std::unordered_map<std::string_view, Key> index;
  index.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) index.emplace(name_of(records[i]), static_cast<Key>(i));
  return index;
}

template <typename Key>
std::optional<Key> find(const std::unordered_map<std::string_view, Key>& index, std::string_view name) {
  const auto it = index.find(name);
  if (it == index.end()) return std::nullopt;
  return it->second;
}

}  // namespace

std::optional<Mnemonic> mnemonic_from_name(std::string_view upper_name) {
  // kMnemonicNames is sorted (tools/gen_isa_tables.py): a binary search needs no index.
  const std::span<const char* const> names(generated::kMnemonicNames, kMnemonicCount);
  const auto it = std::lower_bound(names.begin(), names.end(), upper_name,
                                   [](const char* name, std::string_view key) { return std::string_view(name) < key; });
  if (it == names.end() || *it != upper_name) return std::nullopt;
  return static_cast<Mnemonic>(it - names.begin());
}

std::span<const FormIndex> forms_of_mnemonic(Mnemonic m) {
  static const FormsByMnemonic index;
  const auto i = static_cast<std::size_t>(m);
  return std::span(index.forms).subspan(index.begin[i], index.begin[i + 1] - index.begin[i]);
}

std::optional<FormIndex> form_by_id(std::string_view form_id) {
  static const auto index = by_name<FormIndex>(all_forms(), [](const FormDesc& f) { return f.form_id; });
  return find(index, form_id);
}

namespace {

// name == c without measuring c first: most field names differ from the
// one looked up in their first character (the bundle headers look fields
// up by name on every bundle).
bool same_name(std::string_view name, const char* c) noexcept {
  for (const char ch : name) {
    if (*c == '\0' || *c != ch) return false;
    ++c;
  }
  return *c == '\0';
}

}  // namespace

int field_index(const FormDesc& f, std::string_view name) {
  const auto fs = fields_of(f);
  for (std::size_t i = 0; i < fs.size(); ++i) {
    if (same_name(name, fs[i].name)) return static_cast<int>(i);
  }
  return -1;
}

std::optional<TileOp> tile_op_from_name(std::string_view name) {
  static const auto index = by_name<TileOp>(tile_ops(), [](const TileOpDesc& d) { return d.name; });
  return find(index, name);
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
