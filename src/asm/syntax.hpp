// The one description of assembly operand syntax per catalog form, shared by
// the assembler (parse -> field values -> isa::encode) and the disassembler
// (isa::decode -> field values -> text).  Derived from the catalog `asm`
// templates by tools/gen_asm_syntax.py (src/asm/generated/asm_syntax.inc);
// the grammar is documented in docs/assembly.md.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "asm/syntax_kind.hpp"
#include "asm/text.hpp"
#include "asm/text_buffer.hpp"
#include "isa/catalog.hpp"

namespace pto::as {

enum class ItemKind : std::uint8_t {
  Reg,      // Reg5 source: GPR name, t#1..t#4, u#1..u#4
  Gpr,      // absolute GPR 0..23 (block commands)
  Dst,      // '->' Reg5 destination: GPR, t, u
  Dst2,     // second destination of a pair (no arrow)
  DstGpr,   // '->' absolute GPR destination
  Imm,      // integer expression
  Label,    // PC-relative target
  Shifted,  // SrcR[.sw|.uw|.neg|.not][<<shamt]
  Literal,  // fixed text (DIRECT, ->ra, sp!, t#1, ->LB0)
  Enum,     // one of named values (C.BSTART.STD FALL/IND/RET)
  Named,    // Field=value keyword operand
  DType,    // data type name (FP16, DTYPE_NONE)
  Tile,     // Local tile source T#1..N#16
  DTile,    // ->T<SizeCode>
  Mask,     // mask=1111 (PEMode)
  Last,     // optional 'last' (B.IOT L)
  Ios,      // B.IOS shared tile operand list
  Range,    // '~' between two registers of a range
  Attrs,    // attribute list: B.DATR {Layout, DataType, ...}, B.FPATR PreQuantMode, ...
};

// Address a PC-relative field counts from: the instruction address, that
// address & ~3 (.PCR forms), or the address + 2 (the C.SETRET halfword of the
// fused BSTART.CALL / BSTART.ICALL, asl/block/model/dispatch/start.asl).
enum class LabelBase : std::uint8_t { P, P4, P2 };

struct Item {
  ItemKind kind;
  std::int8_t f0 = -1, f1 = -1, f2 = -1;  // field indices in the form
  LabelBase base = LabelBase::P;
  std::uint8_t shift = 0;  // Label: log2 of the displacement unit; Shifted: fixed offset scale (<<N)
  bool open = false, close = false;  // memory bracket before/after this item
  bool optional = false;             // may be omitted at the end (value zero)
  std::int8_t when = -1;             // flag field the template writes this item with ("SrcR when i")
  std::string text;                  // literal text
  std::vector<std::string> names;    // Enum names / Shifted SrcRType modifiers ("" = none) by value
  std::vector<std::int8_t> list;     // Attrs: fields in template order
  bool braces = false;               // Attrs: the list is written in { }
};

enum class SuffixKind : std::uint8_t { Order, FType, Cvt, Level, Flags };

struct Suffix {
  SuffixKind kind;
  std::vector<std::int8_t> fields;  // Order: aq, rl, far; Flags: one per letter
  std::string letters;              // Flags: letters in template order
};

struct FormSyntax {
  std::vector<Suffix> suffixes;
  std::vector<Item> items;
  std::vector<std::pair<std::int8_t, std::int64_t>> implied;  // fields fixed by a one-value constraint
};

// Syntax of a catalog form (index < isa::kCatalogFormCount).
const FormSyntax& syntax_of(isa::FormIndex form);

// Register spellings (ABI names, PTO-B-IOR-BINDING-001 / ADR 0055).
std::string_view gpr_name(unsigned code);  // 0..23
inline constexpr std::string_view kGprExpectation =
    "expected zero, sp, a0..a7, ra, s0..s8, x0..x3 or R0..R23";

// PE mask text for a PEMode code (PTOv0PEMaskOfPEMode), and back.
std::string_view pe_mask_text(unsigned pe_mode);
std::optional<unsigned> pe_mode_of_mask(std::string_view mask);
// TileSizeCodeBytes (asl/tile/model/state/descriptors.asl): SizeCode 1..12
// is 128 << (code - 1) bytes; 0 for other codes.  size_code_of_bytes is the
// inverse; tile_size_text spells a code's size as LLVM does (128B, 8KB).
std::uint64_t tile_size_bytes(unsigned code);
std::optional<unsigned> size_code_of_bytes(std::uint64_t bytes);
std::string tile_size_text(std::int64_t code);
// Local tile source selector text (T#1..N#16) and data type names.
std::string tile_source_name(unsigned selector);
std::string data_type_text(unsigned code);
std::optional<unsigned> data_type_code(std::string_view name);

// Why a word of the accepted form `f` always raises Fault_IllegalInstruction
// by a rule the catalog constraints do not carry (a reserved TEPL selector,
// an HL.QMT suffix outside the template's list, a FENTRY/FEXIT/FRET frame
// smaller than 8 bytes per register); nullopt otherwise.  The assembler
// rejects such text and the disassembler prints such words as data.
std::optional<std::string> always_illegal_reason(const isa::FormDesc& f, std::uint64_t bits);

// Bits of a word of `f` that lie in neither the form's mask nor any of its
// fields (only the source-only B.IOT forms have such bits: 8:7, where the
// destination forms keep DstTile).  The ASL never reads them for that form,
// and no operand text can express them, so the disassembler prints a word
// with any of them set as data, with the instruction in the comment.
std::uint64_t unowned_bits(const isa::FormDesc& f);

// ----------------------------------------------------------------------------
// Printing.

struct PrintContext {
  std::optional<std::uint64_t> pc;  // instruction address, when known
  // Optional symbolizer for label targets.
  std::function<std::optional<std::string>(std::uint64_t)> symbolize;
  Syntax syntax = Syntax::Canonical;
};

// Mnemonic with suffixes (scalar lower case, block/tile upper case).
std::string print_mnemonic(const isa::FormDesc& f, std::uint64_t bits);
// Operand text of an accepted or constraint-violating word of a catalog form.
std::string print_operands(const isa::FormDesc& f, std::uint64_t bits, const PrintContext& ctx);
std::string print_instruction(const isa::FormDesc& f, std::uint64_t bits, const PrintContext& ctx);
// print_instruction appended to `out` (lets a caller reuse one buffer).
void append_instruction(TextBuffer& out, const isa::FormDesc& f, std::uint64_t bits, const PrintContext& ctx);
// Address a label item's displacement is relative to, for an instruction at `pc`.
std::uint64_t label_base(const Item& it, std::uint64_t pc);
// Label target of a PC-relative field value.
std::uint64_t label_target(const Item& it, std::int64_t value, std::uint64_t pc);

// ----------------------------------------------------------------------------
// Parsing.

struct ParsedInstruction {
  isa::FormIndex form = 0;
  std::uint64_t bits = 0;
  unsigned length_bits = 0;
  bool resolved = true;  // false when an expression awaited an undefined symbol
};

// Parses one instruction `line[mnemonic_pos..]` at address `pc`.  Throws
// ParseFailure with a column and message.  In a non-final pass, unresolved
// expressions select the form and size but are not range-checked.
ParsedInstruction parse_instruction(std::string_view line, std::size_t mnemonic_pos, std::uint64_t pc,
                                    const ExprEnv& env);

// False only when `form` cannot accept the operand text `operands` (the text
// after the mnemonic word): a cheap check on the operand shape that
// parse_instruction uses to skip candidate forms without parsing them.
bool operand_shape_fits(isa::FormIndex form, std::string_view operands);

// Length in bits every spelling of this mnemonic encodes to, when all its
// forms share one length (lets the assembler's sizing pass skip operands).
std::optional<unsigned> fixed_length_of(std::string_view mnemonic_word);

}  // namespace pto::as
