// PTO tile data types (asl/arch/data-types/tile-data-types.asl,
// PTO-FIELD-BLOCK-DATATYPE): the generated code table and what the model
// derives from it.  Dependency-free and constexpr so that ISA tables and the
// decoder can use it directly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "numerics/generated/data_types.hpp"

namespace pto::num {

// TileDataTypeEncodingValid: the codes PTO-FIELD-BLOCK-DATATYPE assigns.
constexpr bool data_type_code_valid(std::uint8_t code) noexcept { return code < 32 && ((kDataTypeCodeValidMask >> code) & 1U); }

constexpr std::optional<DataType> data_type_from_code(std::uint8_t code) noexcept {
  if (!data_type_code_valid(code)) return std::nullopt;
  return static_cast<DataType>(code);
}

constexpr std::uint8_t code_of(DataType t) noexcept { return static_cast<std::uint8_t>(t); }

constexpr std::size_t table_index(DataType t) noexcept { return kDataTypeTableIndex[code_of(t)]; }

constexpr const DataTypeInfo& info(DataType t) noexcept { return kDataTypeTable[table_index(t)]; }

constexpr std::string_view name(DataType t) noexcept { return info(t).name; }
constexpr unsigned element_width(DataType t) noexcept { return info(t).element_bits; }
constexpr unsigned carrier_bits(DataType t) noexcept { return info(t).carrier_bits; }
constexpr unsigned lanes_per_carrier(DataType t) noexcept { return info(t).lanes_per_carrier; }
constexpr bool is_float(DataType t) noexcept {
  return info(t).kind == DataTypeKind::Float || info(t).kind == DataTypeKind::Scale;
}
constexpr bool is_scale(DataType t) noexcept { return info(t).kind == DataTypeKind::Scale; }
constexpr bool is_integer(DataType t) noexcept { return !is_float(t); }
// Signed integers and sign-carrying floating types (E8M0 has no sign).
constexpr bool is_signed(DataType t) noexcept {
  return info(t).kind == DataTypeKind::Signed || info(t).kind == DataTypeKind::Float;
}
constexpr bool is_packed4(DataType t) noexcept { return info(t).lanes_per_carrier == 2; }

// Exact, case-sensitive lookup of the canonical spelling.
constexpr std::optional<DataType> data_type_from_name(std::string_view n) noexcept {
  for (const auto& e : kDataTypeTable)
    if (e.name == n) return e.type;
  return std::nullopt;
}

// Case-insensitive lookup (e.g. "hif8", "HIF8"); non-constexpr convenience.
std::optional<DataType> data_type_from_name_ci(std::string_view n) noexcept;

// ADR 0033: packed four-bit lane order; even logical element = low nibble.
constexpr std::uint8_t packed4_get(std::uint8_t byte, unsigned lane) noexcept {
  return static_cast<std::uint8_t>((lane & 1U) ? (byte >> 4) : (byte & 0x0FU));
}
constexpr std::uint8_t packed4_set(std::uint8_t byte, unsigned lane, std::uint8_t nibble) noexcept {
  return (lane & 1U) ? static_cast<std::uint8_t>((byte & 0x0FU) | ((nibble & 0x0FU) << 4))
                     : static_cast<std::uint8_t>((byte & 0xF0U) | (nibble & 0x0FU));
}

static_assert(table_index(DataType::U4X2) == kDataTypeCount - 1);
static_assert(info(DataType::S4X2).type == DataType::S4X2);
static_assert(info(DataType::U64).type == DataType::U64);

}  // namespace pto::num
