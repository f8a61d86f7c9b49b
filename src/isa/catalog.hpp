// The project's ISA tables: one record per catalog form and extension
// reservation, tile operations, system registers.  The data itself is generated
// (src/isa/generated, by tools/gen_isa_tables.py) from the PTO 0.58.3 catalogs.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

#include "isa/generated/catalog_enums.hpp"

namespace pto::isa {

enum class EncodingKind : std::uint8_t { C16, L32, HL48, L64 };
enum class Family : std::uint8_t { AGU, ALU, AMO, BRU, FSU, SYS, CMD, BBD };
// Accepted: executable surface.  ReservedInPto: catalog forms PTO decodes but
// rejects (ESAVE, ERCOV, XB).  ExtensionReserved: the 40 encodings owned by the
// reserved two-level extension spaces (extension-encoding-reservations.json).
enum class FormStatus : std::uint8_t { Accepted, ReservedInPto, ExtensionReserved };
enum class Signedness : std::uint8_t { EncodingDefined, Signed, Unsigned };
enum class ConstraintOp : std::uint8_t { OneOf, NotEqual };

struct FieldPiece {
  std::uint8_t instruction_lsb;
  std::uint8_t value_lsb;
  std::uint8_t width;
};

struct FieldDesc {
  const char* name;
  std::uint8_t width;
  Signedness signedness;
  std::uint16_t piece_begin;
  std::uint8_t piece_count;
};

struct ConstraintDesc {
  std::uint8_t field;  // index within the form's fields
  ConstraintOp op;
  std::uint16_t value_begin;
  std::uint16_t value_count;
  std::uint64_t one_of_bitmap;  // OneOf with every value in 0..63: bit v set; else 0
};

struct FormDesc {
  const char* form_id;
  const char* mnemonic;
  const char* asm_template;
  const char* owner;  // reservation owner (extension reservations only)
  const char* semantic_handler;
  const char* semantic_group;
  Mnemonic mnem;  // undefined for extension reservations
  std::uint8_t length_bits;
  EncodingKind kind;
  Family family;
  FormStatus status;
  std::uint64_t mask;
  std::uint64_t match;
  std::uint16_t field_begin;
  std::uint8_t field_count;
  std::uint16_t constraint_begin;
  std::uint8_t constraint_count;
};

enum class TileEngine : std::uint8_t { VEC, SFU, TLSU, CUBE };
enum class TileFamily : std::uint8_t { TEPL, TLSU, CUBE };

struct TileOperandRole {
  const char* field;  // destination0, source0, address, scalar0, ...
  const char* role;   // catalog role text
};

struct TileOpDesc {
  const char* name;
  TileEngine engine;
  TileFamily family;
  const char* classification;
  const char* command_mnemonic;
  std::uint8_t selector;  // TEPL: Mode:Function (7 bits); TLSU/CUBE: Function
  std::uint8_t mode;
  std::uint8_t function;
  const char* semantic_handler;
  const char* legality_handler;
  std::uint16_t operand_begin;
  std::uint8_t operand_count;
};

struct SystemRegisterDesc {
  const char* name;
  std::uint32_t address;  // full address (base) or low index (ACR-banked)
  bool is_base;
  std::int8_t fixed_context;  // ring the register is pinned to, or -1
  const char* access;
  const char* scope;
  const char* behavior_class;
  const char* reset;
};

struct TrapNumberDesc {
  const char* name;
  std::uint8_t number;
  const char* argument;
  const char* cause;
};

namespace generated {
extern const FieldPiece kFieldPieces[];
extern const FieldDesc kFields[];
extern const std::int64_t kConstraintValues[];
extern const ConstraintDesc kConstraints[];
extern const FormDesc kForms[kFormRecordCount];
extern const char* const kMnemonicNames[kMnemonicCount];
extern const TileOperandRole kTileOperandRoles[];
extern const TileOpDesc kTileOps[kTileOpCount];
extern const std::int8_t kTeplSelectorMap[128];
extern const std::int8_t kTlsuFunctionMap[32];
extern const std::int8_t kCubeFunctionMap[32];
extern const char* const kDeletedTileNames[22];
extern const char* const kRejectedTileNames[4];
extern const SystemRegisterDesc kSystemRegisters[kSystemRegisterCount];
extern const TrapNumberDesc kTrapNumbers[13];
}  // namespace generated

using FormIndex = std::uint16_t;

// All form records: catalog forms (scalar then command, catalog order) followed
// by the extension reservations.
inline std::span<const FormDesc> all_forms() { return {generated::kForms, kFormRecordCount}; }
inline std::span<const FormDesc> catalog_forms() { return {generated::kForms, kCatalogFormCount}; }
inline const FormDesc& form(FormIndex i) { return generated::kForms[i]; }
inline FormIndex index_of(const FormDesc& f) { return static_cast<FormIndex>(&f - generated::kForms); }

inline std::span<const FieldDesc> fields_of(const FormDesc& f) {
  return {generated::kFields + f.field_begin, f.field_count};
}
inline std::span<const FieldPiece> pieces_of(const FieldDesc& fd) {
  return {generated::kFieldPieces + fd.piece_begin, fd.piece_count};
}
inline std::span<const ConstraintDesc> constraints_of(const FormDesc& f) {
  return {generated::kConstraints + f.constraint_begin, f.constraint_count};
}
inline std::span<const std::int64_t> values_of(const ConstraintDesc& c) {
  return {generated::kConstraintValues + c.value_begin, c.value_count};
}

inline std::string_view mnemonic_name(Mnemonic m) {
  return generated::kMnemonicNames[static_cast<std::size_t>(m)];
}
std::optional<Mnemonic> mnemonic_from_name(std::string_view upper_name);
// Forms (indices) sharing a mnemonic, e.g. the five B.IOT forms.
std::span<const FormIndex> forms_of_mnemonic(Mnemonic m);
std::optional<FormIndex> form_by_id(std::string_view form_id);
// Index of a named field in a form, or -1.
int field_index(const FormDesc& f, std::string_view name);

inline std::span<const TileOpDesc> tile_ops() { return {generated::kTileOps, kTileOpCount}; }
inline const TileOpDesc& tile_op(TileOp op) { return generated::kTileOps[static_cast<std::size_t>(op)]; }
inline std::span<const TileOperandRole> operands_of(const TileOpDesc& d) {
  return {generated::kTileOperandRoles + d.operand_begin, d.operand_count};
}
std::optional<TileOp> tile_op_from_name(std::string_view name);
std::string_view engine_name(TileEngine e);
std::string_view family_name(Family f);

inline std::span<const SystemRegisterDesc> system_registers() {
  return {generated::kSystemRegisters, kSystemRegisterCount};
}
inline std::span<const char* const> deleted_tile_names() { return {generated::kDeletedTileNames, 22}; }
inline std::span<const char* const> rejected_tile_names() { return {generated::kRejectedTileNames, 4}; }
inline std::span<const TrapNumberDesc> trap_numbers() { return {generated::kTrapNumbers, 13}; }

}  // namespace pto::isa
