// PTO tile data types (asl/arch/data-types/tile-data-types.asl,
// PTO-FIELD-BLOCK-DATATYPE). Dependency-free and constexpr so that ISA
// tables and the decoder can use it directly.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

namespace pto::num {

// Enumerator values ARE the architectural 5-bit DataType codes.
enum class DataType : std::uint8_t {
  FP64 = 0,
  FP32 = 1,
  TF32 = 2,
  HF32 = 3,
  FP16 = 4,
  BF16 = 5,
  HiF8 = 6,
  E4M3 = 7,
  E5M2 = 8,
  E3M2 = 9,
  E2M3 = 10,
  E2M1X2 = 11,
  E1M2X2 = 12,
  E8M0 = 13,
  HiF4X2 = 14,
  S64 = 16,
  S32 = 17,
  S16 = 18,
  S8 = 19,
  S4X2 = 20,
  U64 = 24,
  U32 = 25,
  U16 = 26,
  U8 = 27,
  U4X2 = 28,
};

// Encoded DataType 31 is a field-level sentinel, not a DataType
// (tile-data-types.asl DTYPE_NONE).
inline constexpr std::uint8_t kDataTypeNoneCode = 31;
inline constexpr std::size_t kDataTypeCount = 25;

enum class DataTypeKind : std::uint8_t {
  Float,     // IEEE-like or PTO-specific floating format
  Scale,     // E8M0 exponent-only scale
  Signed,    // two's complement integer
  Unsigned,  // unsigned integer
};

struct DataTypeInfo {
  DataType type;
  std::string_view name;       // canonical spelling as printed by the spec
  DataTypeKind kind;
  std::uint8_t element_bits;   // architectural logical element width
  std::uint8_t carrier_bits;   // storage carrier per element (packed: byte)
  std::uint8_t lanes_per_carrier;  // 2 for the X2 packed four-bit types
};

inline constexpr std::array<DataTypeInfo, kDataTypeCount> kDataTypeTable{{
    {DataType::FP64, "FP64", DataTypeKind::Float, 64, 64, 1},
    {DataType::FP32, "FP32", DataTypeKind::Float, 32, 32, 1},
    // TF32/HF32 occupy a 32-bit carrier whose low 13/12 bits must be zero
    // (asl/arch/data-types/formats/tf32.asl, hf32.asl).
    {DataType::TF32, "TF32", DataTypeKind::Float, 32, 32, 1},
    {DataType::HF32, "HF32", DataTypeKind::Float, 32, 32, 1},
    {DataType::FP16, "FP16", DataTypeKind::Float, 16, 16, 1},
    {DataType::BF16, "BF16", DataTypeKind::Float, 16, 16, 1},
    {DataType::HiF8, "HiF8", DataTypeKind::Float, 8, 8, 1},
    {DataType::E4M3, "E4M3", DataTypeKind::Float, 8, 8, 1},
    {DataType::E5M2, "E5M2", DataTypeKind::Float, 8, 8, 1},
    // E3M2/E2M3 are six-bit lanes zero-extended into a byte (bits 7:6 zero).
    {DataType::E3M2, "E3M2", DataTypeKind::Float, 6, 8, 1},
    {DataType::E2M3, "E2M3", DataTypeKind::Float, 6, 8, 1},
    {DataType::E2M1X2, "E2M1X2", DataTypeKind::Float, 4, 8, 2},
    {DataType::E1M2X2, "E1M2X2", DataTypeKind::Float, 4, 8, 2},
    {DataType::E8M0, "E8M0", DataTypeKind::Scale, 8, 8, 1},
    {DataType::HiF4X2, "HiF4X2", DataTypeKind::Float, 4, 8, 2},
    {DataType::S64, "S64", DataTypeKind::Signed, 64, 64, 1},
    {DataType::S32, "S32", DataTypeKind::Signed, 32, 32, 1},
    {DataType::S16, "S16", DataTypeKind::Signed, 16, 16, 1},
    {DataType::S8, "S8", DataTypeKind::Signed, 8, 8, 1},
    {DataType::S4X2, "S4X2", DataTypeKind::Signed, 4, 8, 2},
    {DataType::U64, "U64", DataTypeKind::Unsigned, 64, 64, 1},
    {DataType::U32, "U32", DataTypeKind::Unsigned, 32, 32, 1},
    {DataType::U16, "U16", DataTypeKind::Unsigned, 16, 16, 1},
    {DataType::U8, "U8", DataTypeKind::Unsigned, 8, 8, 1},
    {DataType::U4X2, "U4X2", DataTypeKind::Unsigned, 4, 8, 2},
}};

// TileDataTypeEncodingValid: 0..14, 16..20, 24..28.
constexpr bool data_type_code_valid(std::uint8_t code) noexcept {
  return code <= 14 || (code >= 16 && code <= 20) || (code >= 24 && code <= 28);
}

constexpr std::optional<DataType> data_type_from_code(std::uint8_t code) noexcept {
  if (!data_type_code_valid(code)) return std::nullopt;
  return static_cast<DataType>(code);
}

constexpr std::uint8_t code_of(DataType t) noexcept { return static_cast<std::uint8_t>(t); }

constexpr std::size_t table_index(DataType t) noexcept {
  const auto c = code_of(t);
  if (c <= 14) return c;
  if (c <= 20) return static_cast<std::size_t>(c - 1);   // 16..20 -> 15..19
  return static_cast<std::size_t>(c - 4);                // 24..28 -> 20..24
}

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
