#include "asm/attributes.hpp"

#include <array>
#include <span>

#include "asm/syntax.hpp"
#include "asm/text.hpp"
#include "block/generated/data_layouts.hpp"
#include "tile/generated/fpatr_fields.hpp"
#include "tile/generated/pre_quant_modes.hpp"

namespace pto::as {
namespace {

struct ValueName {
  std::int64_t code;
  std::string_view name;
  bool canonical = true;  // false: accepted as input only
};

// B.DATR Layout: the names of TileDataLayoutOfCode (generated table).
constexpr auto kDatrLayout = [] {
  std::array<ValueName, block::generated::kDataLayouts.size()> names{};
  for (std::size_t i = 0; i < names.size(); ++i)
    names[i] = {block::generated::kDataLayouts[i].code, block::generated::kDataLayouts[i].name};
  return names;
}();
// PTO-FIELD-BLOCK-PADVALUE-OR-BYTEID: Zero, Max, Min, Null (or ByteId 0..3).
constexpr ValueName kDatrPad[] = {{0, "Zero"}, {1, "Max"}, {2, "Min"}, {3, "Null"}};
// PTO-FIELD-BLOCK-CMODE.  The B.DATR page examples write `None` in the CMode
// position ({NORM, FP32, Zero, None, RNE, 0, 0}); it is accepted as code 0.
constexpr ValueName kDatrCMode[] = {{0, "EQ"}, {1, "NE"}, {2, "LT"}, {3, "GT"},
                                    {4, "LE"}, {5, "GE"}, {0, "None", false}};
// B.DATR RMode: 0 is the operation default (`Default` in the TLOAD/TSTORE
// examples, `NONE` in the B.FPATR legality text).
constexpr ValueName kDatrRMode[] = {{0, "Default"}, {1, "RNE"}, {2, "RTZ"}, {3, "RTM"}, {4, "RTP"},
                                    {5, "RNA"},     {6, "RTO"}, {7, "RHB"}, {0, "NONE", false}};
// B.FPATR PreQuantMode: the ADR 0085 decision 179 names of the generated
// table.  Code 0 prints `None` as in the B.FPATR examples and ADR 0064
// ("canonical None word"); its ADR 0085 name NoQuant is accepted.
constexpr auto kFpatrPreQuant = [] {
  std::array<ValueName, 1 + tile::fpatr::kLegalPreQuantModeCount> names{};
  names[0] = {0, "None"};
  std::size_t n = 1;
  for (std::size_t code = 0; code < tile::fpatr::kPreQuantModes.size(); ++code) {
    const tile::fpatr::PreQuantMode& mode = tile::fpatr::kPreQuantModes[code];
    if (mode.legal) names[n++] = {static_cast<std::int64_t>(code), mode.name, code != 0};
  }
  return names;
}();
// B.FPATR ReluMode spellings by code: the legality prose names codes 0..3
// "None, ReLU, scalar LReLU/PReLU, and vector PReLU" and the example spells
// code 2 `LReLU`; neither the catalog nor the ASL gives the codes names, so
// the spellings are written here.  Which codes are legal comes from the
// generated table (BundleFPATRReluModeLegal, tile/generated/fpatr_fields.hpp).
constexpr std::string_view kReluSpellings[] = {"None", "ReLU", "LReLU", "PReLU"};
constexpr std::size_t kLegalReluModeCount = [] {
  std::size_t n = 0;
  for (const tile::fpatr::ReluMode& mode : tile::fpatr::kReluModes) n += mode.legal ? 1 : 0;
  return n;
}();
constexpr auto kFpatrRelu = [] {
  std::array<ValueName, kLegalReluModeCount> names{};
  std::size_t n = 0;
  for (std::size_t code = 0; code < tile::fpatr::kReluModes.size(); ++code) {
    // A legal code without a spelling fails constant evaluation here.
    if (tile::fpatr::kReluModes[code].legal) names[n++] = {static_cast<std::int64_t>(code), kReluSpellings[code]};
  }
  return names;
}();

struct FieldNames {
  isa::Mnemonic mnem;
  std::string_view field;
  std::span<const ValueName> names;
};

constexpr FieldNames kFieldNames[] = {
    {isa::Mnemonic::B_DATR, "Layout", kDatrLayout},          {isa::Mnemonic::B_DATR, "PadValueOrByteId", kDatrPad},
    {isa::Mnemonic::B_DATR, "CMode", kDatrCMode},            {isa::Mnemonic::B_DATR, "RMode", kDatrRMode},
    {isa::Mnemonic::B_FPATR, "PreQuantMode", kFpatrPreQuant}, {isa::Mnemonic::B_FPATR, "ReluMode", kFpatrRelu}};

struct KeywordAlias {
  isa::Mnemonic mnem;
  std::string_view keyword, field;
};

// Keywords the spec examples use for B.DATR fields (THISTOGRAM `ByteId=0`,
// `DstDataType=U32`; pad-valued operations `PadValue`).
constexpr KeywordAlias kKeywordAliases[] = {{isa::Mnemonic::B_DATR, "ByteId", "PadValueOrByteId"},
                                            {isa::Mnemonic::B_DATR, "PadValue", "PadValueOrByteId"},
                                            {isa::Mnemonic::B_DATR, "DstDataType", "DataType"}};

std::string_view field_name(const isa::FormDesc& f, int field) {
  return isa::fields_of(f)[static_cast<std::size_t>(field)].name;
}

bool is_data_type(const isa::FormDesc& f, int field) { return field_name(f, field) == "DataType"; }

std::span<const ValueName> names_of(const isa::FormDesc& f, int field) {
  const std::string_view name = field_name(f, field);
  for (const FieldNames& n : kFieldNames)
    if (n.mnem == f.mnem && n.field == name) return n.names;
  return {};
}

}  // namespace

bool attribute_has_names(const isa::FormDesc& f, int field) {
  return is_data_type(f, field) || !names_of(f, field).empty();
}

std::optional<std::string> attribute_value_name(const isa::FormDesc& f, int field, std::int64_t code) {
  if (is_data_type(f, field)) {
    if (code >= 0 && code < 32 && data_type_code(data_type_text(static_cast<unsigned>(code))))
      return data_type_text(static_cast<unsigned>(code));
    return std::nullopt;
  }
  for (const ValueName& v : names_of(f, field))
    if (v.canonical && v.code == code) return std::string(v.name);
  return std::nullopt;
}

namespace {

std::optional<std::int64_t> named_code(const isa::FormDesc& f, int field, std::string_view name) {
  for (const ValueName& v : names_of(f, field))
    if (iequals(v.name, name)) return v.code;
  return std::nullopt;
}

// `<prefix><N>` with N a code the field names (LLVM `Layout21`, `cmode5`,
// `rmode6`); codes without a name (Layout2, cmode6) are not aliases.
std::optional<std::int64_t> numbered_code(const isa::FormDesc& f, int field, std::string_view prefix,
                                          std::string_view name) {
  if (name.size() <= prefix.size() || name.size() > prefix.size() + 2 || !iequals(name.substr(0, prefix.size()), prefix))
    return std::nullopt;
  std::int64_t n = 0;
  for (const char ch : name.substr(prefix.size())) {
    if (!is_digit(ch)) return std::nullopt;
    n = n * 10 + (ch - '0');
  }
  for (const ValueName& v : names_of(f, field))
    if (v.canonical && v.code == n) return n;
  return std::nullopt;
}

// B.DATR spellings of the LinxISA LLVM assembler (v058-pto-raw-abi.s,
// v058-par-disasm-snippet.s, v058-dtype-keywords.s): `Layout<N>`, a layout
// with the `.normal` decoration the older printer appended (`ND2NZ.normal`;
// bare `normal` is NORM), `cmode<N>`, `rmode<N>`, and the flags `sat` and
// `canonicalize` (value 1).  Input only.
std::optional<std::int64_t> llvm_datr_code(const isa::FormDesc& f, int field, std::string_view name) {
  if (f.mnem != isa::Mnemonic::B_DATR) return std::nullopt;
  const std::string_view fname = field_name(f, field);
  if (fname == "Layout") {
    if (iequals(name, "normal")) return 0;
    constexpr std::string_view kNormal = ".normal";
    if (name.size() > kNormal.size() && iequals(name.substr(name.size() - kNormal.size()), kNormal))
      return named_code(f, field, name.substr(0, name.size() - kNormal.size()));
    return numbered_code(f, field, "Layout", name);
  }
  if (fname == "CMode") return numbered_code(f, field, "cmode", name);
  if (fname == "RMode") return numbered_code(f, field, "rmode", name);
  if (fname == "Sat" && iequals(name, "sat")) return 1;
  if (fname == "Canonicalize" && iequals(name, "canonicalize")) return 1;
  return std::nullopt;
}

}  // namespace

std::optional<std::int64_t> attribute_value_code(const isa::FormDesc& f, int field, std::string_view name) {
  if (is_data_type(f, field)) {
    if (const auto code = data_type_code(name)) return *code;
    return std::nullopt;
  }
  if (const auto code = named_code(f, field, name)) return code;
  return llvm_datr_code(f, field, name);
}

std::string attribute_value_list(const isa::FormDesc& f, int field) {
  if (is_data_type(f, field)) return "a data type name (FP32, U8, ..., DTYPE_NONE)";
  std::string out;
  for (const ValueName& v : names_of(f, field)) {
    if (!v.canonical) continue;
    if (!out.empty()) out += ", ";
    out += v.name;
  }
  return out;
}

int attribute_keyword_field(const isa::FormDesc& f, std::string_view keyword) {
  const auto fields = isa::fields_of(f);
  for (std::size_t i = 0; i < fields.size(); ++i)
    if (iequals(fields[i].name, keyword)) return static_cast<int>(i);
  for (const KeywordAlias& a : kKeywordAliases)
    if (a.mnem == f.mnem && iequals(a.keyword, keyword)) return isa::field_index(f, a.field);
  return -1;
}

}  // namespace pto::as
