// Symbolic values of the attribute-command fields (B.DATR, B.FPATR) and the
// keyword aliases their spec examples use.  Canonical text prints these names;
// input accepts them case-insensitively (docs/assembly.md, "Attribute commands").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "isa/catalog.hpp"

namespace pto::as {

// Whether the field has symbolic values (DataType included).
bool attribute_has_names(const isa::FormDesc& f, int field);
// Canonical spelling of `code` in the field, when the spec names it.
std::optional<std::string> attribute_value_name(const isa::FormDesc& f, int field, std::int64_t code);
// Code of a spelling (canonical or accepted alias) in the field.
std::optional<std::int64_t> attribute_value_code(const isa::FormDesc& f, int field, std::string_view name);
// Canonical spellings of the field, comma separated (for messages).
std::string attribute_value_list(const isa::FormDesc& f, int field);
// Field a `Keyword=` names: the catalog field name or an alias from the spec
// examples (ByteId, PadValue, DstDataType); -1 when none.
int attribute_keyword_field(const isa::FormDesc& f, std::string_view keyword);

}  // namespace pto::as
