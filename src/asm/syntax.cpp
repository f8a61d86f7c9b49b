#include "asm/syntax.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <stdexcept>

#include "asm/attributes.hpp"
#include "isa/decoder.hpp"
#include "isa/tile_start.hpp"
#include "numerics/datatypes.hpp"
#include "tile/generated/pe_mode_masks.hpp"

namespace pto::as {
namespace {

// Catalog `encoding_variants`: words that decode as a carrier form but carry
// their own spelling (BSTART.TMOV.L2S.INSERT, BSTART.TSTORE.SPART, ...).
struct EncodingVariant {
  const char* carrier;  // form_id
  const char* mnemonic;
  std::uint32_t mask, match;
};

constexpr EncodingVariant kEncodingVariants[] = {
#include "asm/generated/asm_variants.inc"
};

constexpr std::array<std::string_view, 24> kGprNames = {
    "zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5", "a6", "a7", "ra", "s0",
    "s1",   "s2", "s3", "s4", "s5", "s6", "s7", "s8", "x0", "x1", "x2", "x3"};

// Lower-case name packed into an integer, one byte per character (<= 4).
constexpr std::uint32_t packed_lower(std::string_view s) {
  std::uint32_t k = 0;
  for (std::size_t i = 0; i < s.size() && i < 4; ++i) k |= std::uint32_t(static_cast<unsigned char>(ascii_lower(s[i]))) << (8 * i);
  return k;
}

constexpr std::array<std::uint32_t, 24> kGprKeys = [] {
  std::array<std::uint32_t, 24> k{};
  for (std::size_t i = 0; i < k.size(); ++i) k[i] = packed_lower(kGprNames[i]);
  return k;
}();

// PTOv0PEMaskOfPEMode: bit 3 (leftmost) is PE0.
constexpr const auto& kPeMasks = tile::generated::kPeMaskTextOfPeMode;

// The encodable masks in PEMode order, for diagnostics: "0000, 1000, ... or 1111".
std::string pe_mask_choices() {
  std::string out;
  for (std::size_t i = 0; i < kPeMasks.size(); ++i) {
    if (i > 0) out += i + 1 == kPeMasks.size() ? " or " : ", ";
    out += kPeMasks[i];
  }
  return out;
}
constexpr std::string_view kHands = "TUMN";  // DstTile / tile selector hand order

// Scalar FSU type suffixes.  Source selectors (SrcType 0/1) follow the spec
// examples (fadd.fd, scvtf.sd2fd, ucvtf.uw2fs); destination codes follow
// NormalizeScalarFPResult / NormalizeScalarIntegerResult
// (asl/scalar/model/fsu/profile.asl).  Codes without a spec spelling print as
// t<code>, which is always accepted.
using Names = std::span<const std::string_view>;
constexpr std::string_view kFpSource[] = {"fd", "fs"};
constexpr std::string_view kSignedSource[] = {"sd", "sw"};
constexpr std::string_view kUnsignedSource[] = {"ud", "uw"};
constexpr std::string_view kFpDestination[] = {"fd",   "fs",   "tf32",   "hf32",   "fp16", "bf16",  "hif8", "e4m3",
                                               "e5m2", "e3m2", "e2m3", "e2m1x2", "e1m2x2", "e8m0", "hif4x2"};
constexpr std::string_view kIntDestination[] = {"ud", "uw", "uh", "ub", "", "", "", "", "sd", "sw", "sh", "sb"};

struct TypeNames {
  Names source;
  Names destination;
};

TypeNames type_names(const isa::FormDesc& f) {
  const std::string_view m = f.mnemonic;
  if (m == "SCVTF") return {kSignedSource, kFpDestination};
  if (m == "UCVTF") return {kUnsignedSource, kFpDestination};
  if (m.starts_with("FCVT") && m != "FCVT") return {kFpSource, kIntDestination};
  return {kFpSource, kFpDestination};
}

// Small magnitudes in decimal, others in hex.
void append_hex_or_dec(TextBuffer& out, std::int64_t v) {
  if (v > -1024 && v < 1024) return append_dec(out, v);
  if (v < 0) out += '-';
  append_hex(out, v < 0 ? 0 - static_cast<std::uint64_t>(v) : static_cast<std::uint64_t>(v));
}

void append_type_name(TextBuffer& out, Names names, std::int64_t code) {
  const auto i = static_cast<std::size_t>(code);
  if (i < names.size() && !names[i].empty()) {
    out += names[i];
    return;
  }
  out += 't';
  append_dec(out, code);
}

// Longest name (or t<code>) at the start of `t`; returns its length.
std::size_t match_type_name(Names names, std::string_view t, std::int64_t& code) {
  std::size_t best = 0;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const auto n = names[i];
    if (!n.empty() && n.size() > best && t.size() >= n.size() && iequals(t.substr(0, n.size()), n)) {
      best = n.size();
      code = static_cast<std::int64_t>(i);
    }
  }
  if (t.size() >= 2 && (t[0] == 't' || t[0] == 'T') && is_digit(t[1])) {
    std::size_t e = 1;
    std::int64_t v = 0;
    while (e < t.size() && e < 4 && is_digit(t[e])) v = v * 10 + (t[e++] - '0');
    if (e > best) {
      best = e;
      code = v;
    }
  }
  return best;
}

std::vector<std::string_view> split(std::string_view s, char sep) {
  std::vector<std::string_view> out;
  std::size_t start = 0;
  while (true) {
    const std::size_t p = s.find(sep, start);
    out.push_back(s.substr(start, p == std::string_view::npos ? std::string_view::npos : p - start));
    if (p == std::string_view::npos) return out;
    start = p + 1;
  }
}

// B.FPATR values the LinxISA LLVM toolchain writes (no TransA, TransB).
constexpr std::size_t kLlvmFpatrValues = 7;

// Fields of the widest form (the parser keeps field values in fixed arrays).
constexpr std::size_t kMaxFields = 24;

#include "asm/generated/asm_syntax.inc"
static_assert(std::size(kSyntax) == isa::kCatalogFormCount, "one syntax per catalog form");
static_assert(kWidestFormFields <= kMaxFields, "a form has more fields than the parser keeps");

bool is_block_family(const isa::FormDesc& f) { return f.family == isa::Family::CMD || f.family == isa::Family::BBD; }

std::int64_t fv(const isa::FormDesc& f, std::int8_t field, std::uint64_t bits) {
  return isa::field_value(isa::fields_of(f)[static_cast<std::size_t>(field)], bits);
}

// T#1..N#16 (t#1..n#16 in the LLVM spelling).
void append_tile_source(TextBuffer& out, unsigned selector, bool lower = false) {
  out += lower ? ascii_lower(kHands[(selector >> 4) & 3]) : kHands[(selector >> 4) & 3];
  out += '#';
  append_dec(out, (selector & 15) + 1);
}

void append_data_type(TextBuffer& out, unsigned code) {
  if (code == num::kDataTypeNoneCode) out += "DTYPE_NONE";
  else if (const auto t = num::data_type_from_code(static_cast<std::uint8_t>(code))) out += num::name(*t);
  else append_dec(out, code);
}

// The encoding variant a word of `f` is, when it is not the carrier's own encoding.
const EncodingVariant* variant_of(const isa::FormDesc& f, std::uint64_t bits) {
  if ((bits & f.mask) == f.match) return nullptr;
  for (const EncodingVariant& v : kEncodingVariants)
    if ((bits & v.mask) == v.match && std::string_view(v.carrier) == f.form_id) return &v;
  return nullptr;
}

const EncodingVariant* variant_named(std::string_view upper_mnemonic) {
  for (const EncodingVariant& v : kEncodingVariants)
    if (upper_mnemonic == v.mnemonic) return &v;
  return nullptr;
}

}  // namespace

const FormSyntax& syntax_of(isa::FormIndex form) {
  if (form >= std::size(kSyntax)) throw std::out_of_range(fmt::format("no asm syntax for form index {}", form));
  return kSyntax[form];
}

std::string_view gpr_name(unsigned code) { return kGprNames.at(code); }

std::string_view pe_mask_text(unsigned pe_mode) { return kPeMasks.at(pe_mode & 7); }

std::optional<unsigned> pe_mode_of_mask(std::string_view mask) {
  for (unsigned i = 0; i < kPeMasks.size(); ++i)
    if (kPeMasks[i] == mask) return i;
  return std::nullopt;
}

std::optional<unsigned> size_code_of_bytes(std::uint64_t bytes) {
  for (unsigned code = 1; code <= 12; ++code)
    if (tile_size_bytes(code) == bytes) return code;
  return std::nullopt;
}

std::uint64_t tile_size_bytes(unsigned code) { return code >= 1 && code <= 12 ? std::uint64_t{128} << (code - 1) : 0; }

std::string tile_size_text(std::int64_t code) {
  const std::uint64_t b = tile_size_bytes(static_cast<unsigned>(code));
  return b >= 1024 ? fmt::format("{}KB", b / 1024) : fmt::format("{}B", b);
}

std::string tile_source_name(unsigned selector) {
  TextBuffer out;
  append_tile_source(out, selector);
  return std::string(out.view());
}

std::string data_type_text(unsigned code) {
  TextBuffer out;
  append_data_type(out, code);
  return std::string(out.view());
}

std::optional<unsigned> data_type_code(std::string_view name) {
  if (iequals(name, "DTYPE_NONE")) return num::kDataTypeNoneCode;
  if (const auto t = num::data_type_from_name_ci(name)) return num::code_of(*t);
  return std::nullopt;
}

std::uint64_t label_base(const Item& it, std::uint64_t pc) {
  switch (it.base) {
    case LabelBase::P4: return pc & ~std::uint64_t{3};
    case LabelBase::P2: return pc + 2;
    case LabelBase::P: break;
  }
  return pc;
}

std::uint64_t label_target(const Item& it, std::int64_t value, std::uint64_t pc) {
  return label_base(it, pc) + (static_cast<std::uint64_t>(value) << it.shift);
}

// ----------------------------------------------------------------------------
// Words that encode but always raise Fault_IllegalInstruction, by rules the
// catalog constraints do not carry.

namespace {

// BSTART.TEPL Mode/Function in a catalog reserved selector range
// (tile-operations.json reserved.tepl_selector_ranges).
std::optional<std::string> tepl_selector_reason(std::uint64_t bits) {
  if (isa::tile_op_of_start(bits)) return std::nullopt;
  const unsigned mode = static_cast<unsigned>((bits >> 25) & 3), function = static_cast<unsigned>((bits >> 20) & 31);
  return fmt::format("BSTART.TEPL Mode {}, Function {} (selector {:#05x}) is reserved in PTO 0.58.3 "
                     "(catalog tile-operations.json reserved.tepl_selector_ranges)",
                     mode, function, mode * 32 + function);
}

// The letters of a flag suffix must form a combination the catalog template
// lists: `hl.qmt[.{i,e,s,r,ie,is,ir,es,er,ies,ier}]` has none with both s
// and r (HL.QMT legality: s+r raises Fault_IllegalInstruction).
std::optional<std::string> flag_suffix_reason(const isa::FormDesc& f, std::string_view written) {
  const std::string_view tmpl = f.asm_template;
  const auto open = tmpl.find("[.{"), close = tmpl.find("}]");
  if (written.empty() || open == std::string_view::npos || close == std::string_view::npos || close < open)
    return std::nullopt;
  const std::string_view list = tmpl.substr(open + 3, close - open - 3);
  for (std::string_view combo : split(list, ','))
    if (combo == written) return std::nullopt;
  return fmt::format("{}.{}: not in the catalog suffix list .{{{}}} of {} (asm template '{}')", to_lower(f.mnemonic),
                     written, list, f.mnemonic, tmpl);
}

std::optional<std::string> flags_reason(const isa::FormDesc& f, std::uint64_t bits) {
  for (const Suffix& s : syntax_of(isa::index_of(f)).suffixes) {
    if (s.kind != SuffixKind::Flags) continue;
    std::string written;
    for (std::size_t i = 0; i < s.letters.size(); ++i)
      if (fv(f, s.fields[i], bits)) written += s.letters[i];
    return flag_suffix_reason(f, written);
  }
  return std::nullopt;
}

// FENTRY / FEXIT / FRET.RA / FRET.STK: FrameTemplateOperandsLegal
// (asl/block/model/lifecycle/lifetime.asl) wants both endpoints in the
// R2..R23 ring and FRET.STK to begin at ra (R10) -- both also catalog
// constraints, so encode / decode reject them -- and uimm >= 8 * registers,
// which only the ASL states; otherwise the instruction raises
// Fault_IllegalInstruction before any effect.
std::optional<std::string> frame_template_reason(const isa::FormDesc& f, std::uint64_t bits) {
  const bool entry = f.mnem == isa::Mnemonic::FENTRY;
  const int b = isa::field_index(f, entry ? "SrcBegin" : "DstBegin"), e = isa::field_index(f, entry ? "SrcEnd" : "DstEnd");
  const int u = isa::field_index(f, "uimm");
  if (b < 0 || e < 0 || u < 0) return std::nullopt;
  const std::int64_t begin = fv(f, static_cast<std::int8_t>(b), bits), end = fv(f, static_cast<std::int8_t>(e), bits);
  const std::int64_t size = fv(f, static_cast<std::int8_t>(u), bits);
  constexpr std::string_view kRule = "FrameTemplateOperandsLegal, asl/block/model/lifecycle/lifetime.asl";
  if (begin < 2 || begin > 23 || end < 2 || end > 23) return std::nullopt;  // a catalog constraint reports these
  // FrameRegisterRangeCount: a range wraps from R23 to R2.
  const std::int64_t count = end >= begin ? end - begin + 1 : (24 - begin) + end - 1;
  if (size < 8 * count)
    return fmt::format("{}: a frame of {} bytes is smaller than 8 bytes per saved register ({} registers need at "
                       "least {}); it always raises Fault_IllegalInstruction ({})",
                       f.mnemonic, size, count, 8 * count, kRule);
  return std::nullopt;
}

}  // namespace

std::uint64_t unowned_bits(const isa::FormDesc& f) {
  static const std::vector<std::uint64_t> by_form = [] {
    std::vector<std::uint64_t> v;
    for (const isa::FormDesc& g : isa::all_forms()) {
      std::uint64_t owned = g.mask;
      for (const isa::FieldDesc& fd : isa::fields_of(g))
        for (const isa::FieldPiece& p : isa::pieces_of(fd)) owned |= ((std::uint64_t{1} << p.width) - 1) << p.instruction_lsb;
      const std::uint64_t all = g.length_bits >= 64 ? ~std::uint64_t{0} : (std::uint64_t{1} << g.length_bits) - 1;
      v.push_back(all & ~owned);
    }
    return v;
  }();
  return by_form[isa::index_of(f)];
}

std::optional<std::string> always_illegal_reason(const isa::FormDesc& f, std::uint64_t bits) {
  using M = isa::Mnemonic;
  switch (f.mnem) {
    case M::BSTART_TEPL: return tepl_selector_reason(bits);
    case M::HL_QMT: return flags_reason(f, bits);
    case M::FENTRY: case M::FEXIT: case M::FRET_RA: case M::FRET_STK: return frame_template_reason(f, bits);
    default: return std::nullopt;
  }
}

// ----------------------------------------------------------------------------
// Printing.  Every piece appends to one TextBuffer, so a disassembled line
// costs no temporary strings (the `pto dis` throughput target, issue 3).

namespace {

void append_suffix(TextBuffer& out, const isa::FormDesc& f, const Suffix& s, std::uint64_t bits) {
  const std::size_t dot = out.size();
  switch (s.kind) {
    case SuffixKind::Order: {
      static constexpr std::string_view kText[] = {"aq", "rl", "f"};
      out += '.';
      for (std::size_t i = 0; i < 3; ++i)
        if (s.fields[i] >= 0 && fv(f, s.fields[i], bits)) out += kText[i];
      break;
    }
    case SuffixKind::FType:
      out += '.';
      append_type_name(out, type_names(f).source, fv(f, s.fields[0], bits));
      return;
    case SuffixKind::Cvt: {
      const TypeNames names = type_names(f);
      out += '.';
      append_type_name(out, names.source, fv(f, s.fields[0], bits));
      out += '2';
      append_type_name(out, names.destination, fv(f, s.fields[1], bits));
      return;
    }
    case SuffixKind::Level:
      out += ".l";
      append_dec(out, fv(f, s.fields[0], bits) + 1);
      return;
    case SuffixKind::Flags:
      out += '.';
      for (std::size_t i = 0; i < s.letters.size(); ++i)
        if (fv(f, s.fields[i], bits)) out += s.letters[i];
      break;
  }
  if (out.size() == dot + 1) out.truncate(dot);  // no order / flag letter set: no suffix
}

void append_label(TextBuffer& out, const Item& it, std::int64_t v, const PrintContext& ctx) {
  if (!ctx.pc) {
    const auto off = static_cast<std::int64_t>(static_cast<std::uint64_t>(v) << it.shift);
    static constexpr std::string_view kBase[] = {".", "(.&~3)", "(.+2)"};  // by LabelBase
    out += kBase[static_cast<std::size_t>(it.base)];
    out += off < 0 ? '-' : '+';
    append_hex_or_dec(out, off < 0 ? -off : off);
    return;
  }
  const std::uint64_t target = label_target(it, v, *ctx.pc);
  if (ctx.symbolize)
    if (auto name = ctx.symbolize(target)) {
      out += *name;
      return;
    }
  append_hex(out, target);
}

void append_gpr(TextBuffer& out, unsigned code) {
  if (code < 24) {
    out += kGprNames[code];
    return;
  }
  out += 'R';
  append_dec(out, code);
}

void append_source(TextBuffer& out, unsigned code) {
  if (code < 24) {
    out += kGprNames[code];
    return;
  }
  out += code < 28 ? "t#" : "u#";
  out += static_cast<char>('1' + (code - 24) % 4);
}

void append_destination(TextBuffer& out, unsigned code) {
  if (code == 31) out += 't';
  else if (code == 30) out += 'u';
  else append_gpr(out, code);
}

void append_pe_mask(TextBuffer& out, std::int64_t pe_mode) {
  out += "mask=";
  out += pe_mask_text(static_cast<unsigned>(pe_mode));
}

// Whether an item prints anything (optional keywords are absent when zero).
bool item_present(const isa::FormDesc& f, const Item& it, std::uint64_t bits, Syntax syntax) {
  if (it.kind == ItemKind::Last) return fv(f, it.f0, bits) != 0;
  // LLVM omits an item the template writes only with a flag (HL.QMT SrcR
  // without .i); a non-zero value still prints, so no bits are lost.
  if (syntax == Syntax::Llvm && it.when >= 0) return fv(f, it.when, bits) != 0 || fv(f, it.f0, bits) != 0;
  if (it.kind == ItemKind::Named && it.optional) return fv(f, it.f0, bits) != 0;
  return true;
}

// LLVM spellings of one item (llvm-objdump in the LinxISA MC tests): decimal
// immediates, lower-case tile hands (`t#1`, `->u<128B>`), sizes in bytes
// (`->S255<256KB>`) and lower-case loop bounds (`->lb0`).  False when the
// item prints as in canonical text.
bool append_llvm_item(TextBuffer& out, const isa::FormDesc& f, const Item& it, std::uint64_t bits) {
  auto val = [&](std::int8_t i) { return fv(f, i, bits); };
  switch (it.kind) {
    case ItemKind::Imm: append_dec(out, val(it.f0)); return true;
    case ItemKind::Tile: append_tile_source(out, static_cast<unsigned>(val(it.f0)), true); return true;
    case ItemKind::DTile:
      out += "->";
      out += ascii_lower(kHands[val(it.f0) & 3]);
      out += '<';
      out += tile_size_text(val(it.f1));
      out += '>';
      return true;
    case ItemKind::Ios:
      if (val(it.f1) == 0) return false;  // source form: `S7, mask=1000` as ours
      append_pe_mask(out, val(it.f2));
      out += ", ->S", append_dec(out, val(it.f0)), out += '<', out += tile_size_text(val(it.f1)), out += '>';
      return true;
    case ItemKind::Literal:
      if (!it.text.starts_with("->LB")) return false;
      out += to_lower(it.text);
      return true;
    case ItemKind::Enum: {
      const auto v = static_cast<std::size_t>(val(it.f0));
      if (v >= it.names.size() || !it.names[v].starts_with("->LB")) return false;
      out += to_lower(it.names[v]);
      return true;
    }
    default: return false;
  }
}

void append_item(TextBuffer& out, const isa::FormDesc& f, const Item& it, std::uint64_t bits, const PrintContext& ctx) {
  if (ctx.syntax == Syntax::Llvm && append_llvm_item(out, f, it, bits)) return;
  auto val = [&](std::int8_t i) { return fv(f, i, bits); };
  switch (it.kind) {
    case ItemKind::Reg: append_source(out, static_cast<unsigned>(val(it.f0))); return;
    case ItemKind::Gpr: append_gpr(out, static_cast<unsigned>(val(it.f0))); return;
    case ItemKind::DstGpr:
      out += "->";
      append_gpr(out, static_cast<unsigned>(val(it.f0)));
      return;
    case ItemKind::Dst:
      out += "->";
      append_destination(out, static_cast<unsigned>(val(it.f0)));
      return;
    case ItemKind::Dst2: append_destination(out, static_cast<unsigned>(val(it.f0))); return;
    case ItemKind::Imm: append_hex_or_dec(out, val(it.f0)); return;
    case ItemKind::Label: append_label(out, it, val(it.f0), ctx); return;
    case ItemKind::Shifted: {
      append_source(out, static_cast<unsigned>(val(it.f0)));
      if (it.f1 >= 0) {
        const std::string_view modifier = it.names[static_cast<std::size_t>(val(it.f1) & 3)];
        if (!modifier.empty()) out += '.', out += modifier;
      }
      if (it.f2 >= 0 && val(it.f2)) out += "<<", append_dec(out, val(it.f2));
      if (it.shift) out += "<<", append_dec(out, unsigned{it.shift});
      return;
    }
    case ItemKind::Literal: out += it.text; return;
    case ItemKind::Enum: {
      const auto v = static_cast<std::size_t>(val(it.f0));
      if (v < it.names.size() && !it.names[v].empty()) out += it.names[v];
      else append_dec(out, v);
      return;
    }
    case ItemKind::Named:
      out += isa::fields_of(f)[static_cast<std::size_t>(it.f0)].name;
      out += '=';
      append_hex_or_dec(out, val(it.f0));
      return;
    case ItemKind::DType: append_data_type(out, static_cast<unsigned>(val(it.f0))); return;
    case ItemKind::Tile: append_tile_source(out, static_cast<unsigned>(val(it.f0))); return;
    case ItemKind::DTile:
      out += "->";
      out += kHands[val(it.f0) & 3];
      out += '<';
      append_dec(out, val(it.f1));
      out += '>';
      return;
    case ItemKind::Mask: append_pe_mask(out, val(it.f0)); return;
    case ItemKind::Last: out += "last"; return;
    case ItemKind::Ios: {
      const auto tid = val(it.f0), size = val(it.f1);
      if (size == 0) {
        out += 'S', append_dec(out, tid), out += ", ";
        append_pe_mask(out, val(it.f2));
      } else {
        append_pe_mask(out, val(it.f2));
        out += ", ->S", append_dec(out, tid), out += '<', append_dec(out, size), out += '>';
      }
      return;
    }
    case ItemKind::Range: out += '~'; return;
    case ItemKind::Attrs: {
      if (it.braces) out += '{';
      for (std::size_t k = 0; k < it.list.size(); ++k) {
        if (k) out += ", ";
        const std::int64_t v = val(it.list[k]);
        if (const auto name = attribute_value_name(f, it.list[k], v)) out += *name;
        else append_hex_or_dec(out, v);
      }
      if (it.braces) out += '}';
      return;
    }
  }
}

// Lower-case scalar mnemonics, computed once per form.
const std::string& display_mnemonic(const isa::FormDesc& f) {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> v;
    for (const isa::FormDesc& g : isa::all_forms())
      v.push_back(is_block_family(g) ? std::string(g.mnemonic) : to_lower(g.mnemonic));
    return v;
  }();
  return names[isa::index_of(f)];
}

void append_mnemonic(TextBuffer& out, const isa::FormDesc& f, const FormSyntax& fs, std::uint64_t bits) {
  out += display_mnemonic(f);
  if (f.status == isa::FormStatus::ExtensionReserved) return;
  for (const Suffix& s : fs.suffixes) append_suffix(out, f, s, bits);
}

void append_operands(TextBuffer& out, const isa::FormDesc& f, const FormSyntax& fs, std::uint64_t bits,
                     const PrintContext& ctx) {
  bool need_sep = false;
  for (const Item& it : fs.items) {
    if (it.kind == ItemKind::Range) {
      out += " ~ ";
      need_sep = false;
      continue;
    }
    if (!item_present(f, it, bits, ctx.syntax)) continue;  // an absent optional keyword
    if (need_sep) out += ", ";
    if (it.open) out += '[';
    append_item(out, f, it, bits, ctx);
    if (it.close) out += ']';
    need_sep = true;
  }
}

}  // namespace

std::string print_mnemonic(const isa::FormDesc& f, std::uint64_t bits) {
  TextBuffer out;
  append_mnemonic(out, f, syntax_of(isa::index_of(f)), bits);
  return std::string(out.view());
}

std::string print_operands(const isa::FormDesc& f, std::uint64_t bits, const PrintContext& ctx) {
  TextBuffer out;
  append_operands(out, f, syntax_of(isa::index_of(f)), bits, ctx);
  return std::string(out.view());
}

// ----------------------------------------------------------------------------
// LLVM operand lists of the block commands whose LLVM text differs from ours
// as a whole (llvm-objdump CHECK lines of the LinxISA MC tests).

namespace {

// B.CATR flag list of the catalog template `B.CATR {trap, atomic, <aq, rl,
// aqrl>, far, dr}`: any subset in any order, each at most once, and at most
// one of the ordering group aq / rl / aqrl.  Spelled this way by the LLVM
// toolchain (v058-pto-raw-abi.s).
struct CatrFlag {
  std::string_view word;
  std::string_view fields[2];
  bool ordering;  // member of the <aq, rl, aqrl> group
};
constexpr CatrFlag kCatrFlags[] = {{"trap", {"trap", {}}, false}, {"atomic", {"atom", {}}, false},
                                   {"aq", {"aq", {}}, true},        {"rl", {"rl", {}}, true},
                                   {"aqrl", {"aq", "rl"}, true},    {"far", {"far", {}}, false},
                                   {"dr", {"DR", {}}, false}};


std::int64_t field_named(const isa::FormDesc& f, std::string_view name, std::uint64_t bits) {
  return fv(f, static_cast<std::int8_t>(isa::field_index(f, name)), bits);
}

// `B.IOR [s0, zero, zero], ->zero`: all three sources in brackets and the
// destination (v058-vector-simt.s, v058-pto-common-roundtrip.s).
void append_llvm_ior(TextBuffer& out, const isa::FormDesc& f, std::uint64_t bits) {
  out += " [";
  for (const std::string_view src : {"RegSrc0", "RegSrc1", "RegSrc2"}) {
    if (src != "RegSrc0") out += ", ";
    append_gpr(out, static_cast<unsigned>(field_named(f, src, bits)));
  }
  out += "], ->";
  append_gpr(out, static_cast<unsigned>(field_named(f, "RegDst", bits)));
}

// Whether every field a B.CATR flag sets is set in `bits`, and for the
// ordering group, exactly those (aq alone is not aqrl).
bool catr_flag_set(const isa::FormDesc& f, const CatrFlag& flag, std::uint64_t bits) {
  for (const std::string_view field : flag.fields)
    if (!field.empty() && !field_named(f, field, bits)) return false;
  if (!flag.ordering) return true;
  const bool aq = field_named(f, "aq", bits) != 0, rl = field_named(f, "rl", bits) != 0;
  return int{aq} + int{rl} == (flag.fields[1].empty() ? 1 : 2);
}

// `B.CATR trap, atomic, aqrl, far, dr`: the set flags in template order.
void append_llvm_catr(TextBuffer& out, const isa::FormDesc& f, std::uint64_t bits) {
  const char* sep = " ";
  for (const CatrFlag& flag : kCatrFlags)
    if (catr_flag_set(f, flag, bits)) out += sep, out += flag.word, sep = ", ";
}

// `B.DATR ND2NZ, FP16, Max, cmode5, rmode6, sat, canonicalize`: layout, data
// type and pad by name; cmode, rmode, sat and canonicalize only when set.
void append_llvm_datr(TextBuffer& out, const isa::FormDesc& f, std::uint64_t bits) {
  auto named = [&](std::string_view field) {
    const int i = isa::field_index(f, field);
    const std::int64_t v = fv(f, static_cast<std::int8_t>(i), bits);
    if (const auto name = attribute_value_name(f, i, v)) out += *name;
    else append_dec(out, v);
  };
  out += ' ';
  named("Layout");
  out += ", ";
  named("DataType");
  out += ", ";
  named("PadValueOrByteId");
  if (const auto v = field_named(f, "CMode", bits)) out += ", cmode", append_dec(out, v);
  if (const auto v = field_named(f, "RMode", bits)) out += ", rmode", append_dec(out, v);
  if (field_named(f, "Sat", bits)) out += ", sat";
  if (field_named(f, "Canonicalize", bits)) out += ", canonicalize";
}

// `B.FPATR 1, 2, 3, 1, 0, 1, 1`: decimal values in template order, without
// TransA/TransB when both are zero (the LLVM toolchain's B.FPATR has 7).
void append_llvm_fpatr(TextBuffer& out, const isa::FormDesc& f, const Item& it, std::uint64_t bits) {
  std::size_t n = it.list.size();
  if (n == kLlvmFpatrValues + 2 && !fv(f, it.list[n - 1], bits) && !fv(f, it.list[n - 2], bits)) n = kLlvmFpatrValues;
  for (std::size_t k = 0; k < n; ++k) {
    out += k ? ", " : " ";
    append_dec(out, fv(f, it.list[k], bits));
  }
}

// Appends the LLVM operand text of the commands printed as a whole; false
// for every other form.
bool append_llvm_operands(TextBuffer& out, const isa::FormDesc& f, const FormSyntax& fs, std::uint64_t bits) {
  switch (f.mnem) {
    case isa::Mnemonic::B_IOR: append_llvm_ior(out, f, bits); return true;
    case isa::Mnemonic::B_CATR: append_llvm_catr(out, f, bits); return true;
    case isa::Mnemonic::B_DATR: append_llvm_datr(out, f, bits); return true;
    case isa::Mnemonic::B_FPATR: append_llvm_fpatr(out, f, fs.items.front(), bits); return true;
    default: return false;
  }
}

}  // namespace

void append_instruction(TextBuffer& out, const isa::FormDesc& f, std::uint64_t bits, const PrintContext& ctx) {
  // Canonical tile-start spelling: BSTART.VEC/BSTART.SFU <Op>, <DType>.
  if (f.mnem == isa::Mnemonic::BSTART_TEPL) {
    if (const auto op = isa::tile_op_of_start(bits)) {
      const auto& t = isa::tile_op(*op);
      out += "BSTART.";
      out += isa::engine_name(t.engine);
      out += ' ';
      out += t.name;
      out += ", ";
      append_data_type(out, isa::tile_start_data_type(bits));
      return;
    }
  }
  const FormSyntax& fs = syntax_of(isa::index_of(f));
  if (const EncodingVariant* variant = variant_of(f, bits)) out += variant->mnemonic;
  else append_mnemonic(out, f, fs, bits);
  if (ctx.syntax == Syntax::Llvm && append_llvm_operands(out, f, fs, bits)) return;
  const std::size_t mlen = out.size();
  out += ' ';
  append_operands(out, f, fs, bits, ctx);
  if (out.size() == mlen + 1) out.truncate(mlen);
}

std::string print_instruction(const isa::FormDesc& f, std::uint64_t bits, const PrintContext& ctx) {
  TextBuffer out;
  append_instruction(out, f, bits, ctx);
  return std::string(out.view());
}

// ----------------------------------------------------------------------------
// Parsing.

namespace {

class FormParser {
 public:
  FormParser(const isa::FormDesc& f, Cursor& c, std::uint64_t pc, const ExprEnv& env)
      : f_(f),
        fs_(syntax_of(isa::index_of(f))),
        c_(c),
        pc_(pc),
        env_(env),
        values_{},
        columns_{} {
    columns_.fill(c.pos());
  }

  // Parses the suffix text and the operands; returns the field values.
  void parse(std::string_view suffix_text, std::size_t suffix_column) {
    parse_suffixes(suffix_text, suffix_column);
    for (const auto& [field, value] : fs_.implied) values_[static_cast<std::size_t>(field)] = value;
    bool first = true;
    bool in_bracket = false;
    for (std::size_t i = 0; i < fs_.items.size(); ++i) {
      const Item& it = fs_.items[i];
      if (it.kind == ItemKind::Range) {
        if (!c_.accept("~")) c_.fail("expected '~'");
        first = true;  // the next register follows the range mark directly
        continue;
      }
      if (it.kind == ItemKind::Last) {  // optional keyword, with its comma
        const std::size_t save = c_.pos();
        if ((first || c_.accept(",")) && (c_.accept("<last>") || accept_word("last"))) {
          values_[static_cast<std::size_t>(it.f0)] = 1;
        } else {
          c_.set_pos(save);
        }
        continue;
      }
      if (it.optional && it.kind == ItemKind::Named) {  // optional trailing Field=value
        const std::size_t save = c_.pos();
        const bool present = (first || c_.accept(",")) && c_.accept(isa::fields_of(f_)[static_cast<std::size_t>(it.f0)].name);
        c_.set_pos(save);
        if (!present) continue;
      }
      if (it.optional && !first && c_.peek() != ',') break;
      if (it.optional && first && c_.at_end()) break;
      if (it.optional && it.kind == ItemKind::Gpr && next_is_destination(first)) continue;
      if (it.when >= 0 && next_is_destination(first)) {
        if (!values_[static_cast<std::size_t>(it.when)]) continue;
        c_.fail(fmt::format("{}: the .{} suffix needs this operand (asm template '{}')", field_label(it.f0),
                            isa::fields_of(f_)[static_cast<std::size_t>(it.when)].name, f_.asm_template));
      }
      if (!first && !c_.accept(",")) c_.fail(fmt::format("expected ',' before {}", describe(it)));
      if (it.open) {
        if (!c_.accept("[")) c_.fail("expected '['");
        in_bracket = true;
      }
      parse_item(it);
      if (it.close) {
        if (!c_.accept("]")) c_.fail("expected ']'");
        in_bracket = false;
      }
      first = false;
      ++items_done_;
    }
    (void)in_bracket;
    // B.IOT: 'last' is also accepted after the destination (spec examples).
    for (const Item& it : fs_.items) {
      if (it.kind == ItemKind::Last && !values_[static_cast<std::size_t>(it.f0)]) {
        const std::size_t save = c_.pos();
        if (c_.accept(",") && (c_.accept("<last>") || accept_word("last"))) set(it.f0, 1);
        else c_.set_pos(save);
      }
    }
    if (!c_.at_end()) c_.fail(fmt::format("unexpected '{}' after the operands of {}", c_.line().substr(c_.pos()), f_.mnemonic));
  }

  std::span<const std::int64_t> values() const { return {values_.data(), f_.field_count}; }
  bool resolved() const { return resolved_; }
  // Operands parsed so far: ranks the failures of the forms of one mnemonic
  // (the form that matched most operands reports, docs/assembly.md).
  std::size_t items_done() const { return items_done_; }
  void mark_complete() { items_done_ = fs_.items.size() + 1; }

  // Range and step of every field, reported at the operand that set it.
  void check_ranges() const {
    const auto fields = isa::fields_of(f_);
    for (std::size_t i = 0; i < fields.size(); ++i) {
      const isa::FieldRange r = isa::field_range(fields[i]);
      const std::int64_t step = isa::field_step(fields[i]);
      const std::int64_t v = values_[i];
      if (v < r.min || v > r.max)
        c_.fail_at(columns_[i], fmt::format("{}: value {} is out of range [{}, {}]", field_label(static_cast<std::int8_t>(i)),
                                            v, r.min, r.max));
      if (v % step != 0)
        c_.fail_at(columns_[i], fmt::format("{}: value {} is not a multiple of {}", field_label(static_cast<std::int8_t>(i)),
                                            v, step));
    }
  }

 private:
  // B.IOR: the destination may follow fewer than three sources.
  bool next_is_destination(bool first) {
    const std::size_t save = c_.pos();
    const bool dst = (first || c_.accept(",")) && c_.accept("->");
    c_.set_pos(save);
    return dst;
  }

  bool accept_word(std::string_view w) {
    const std::size_t save = c_.pos();
    const std::string_view id = c_.ident();
    if (iequals(id, w)) return true;
    c_.set_pos(save);
    return false;
  }

  std::string describe(const Item& it) const {
    switch (it.kind) {
      case ItemKind::Reg: case ItemKind::Shifted: return "a source register";
      case ItemKind::Gpr: return "a register";
      case ItemKind::Dst: case ItemKind::DstGpr: return "a destination '->reg'";
      case ItemKind::Literal: return fmt::format("'{}'", it.text);
      default: return "the next operand";
    }
  }

  std::string field_label(std::int8_t i) const {
    return fmt::format("{} {}", f_.mnemonic, isa::fields_of(f_)[static_cast<std::size_t>(i)].name);
  }

  void set(std::int8_t i, std::int64_t v) {
    values_[static_cast<std::size_t>(i)] = v;
    columns_[static_cast<std::size_t>(i)] = item_column_;
  }

  void parse_suffixes(std::string_view text, std::size_t column) {
    std::size_t p = 0;
    for (const Suffix& s : fs_.suffixes) {
      const std::string_view rest = text.substr(p);
      p += parse_suffix(s, rest);
    }
    if (p != text.size())
      c_.fail_at(column + p, fmt::format("unknown suffix '{}' for {}", text.substr(p), to_lower(f_.mnemonic)));
  }

  // Consumes one suffix from the start of `t`; returns consumed length.
  std::size_t parse_suffix(const Suffix& s, std::string_view t) {
    switch (s.kind) {
      case SuffixKind::Order: {
        static constexpr std::string_view kCombos[] = {"aqrlf", "aqrl", "aqf", "rlf", "aq", "rl", "f"};
        for (std::string_view combo : kCombos) {
          if (t.size() < combo.size() + 1 || t[0] != '.' || !iequals(t.substr(1, combo.size()), combo)) continue;
          if (t.size() > combo.size() + 1 && t[combo.size() + 1] != '.') continue;
          const bool aq = combo.starts_with("aq"), rl = combo.find("rl") != std::string_view::npos,
                     far = combo.ends_with("f");
          const bool ok = (!aq || s.fields[0] >= 0) && (!rl || s.fields[1] >= 0) && (!far || s.fields[2] >= 0);
          if (!ok) continue;
          if (aq) set(s.fields[0], 1);
          if (rl) set(s.fields[1], 1);
          if (far) set(s.fields[2], 1);
          return combo.size() + 1;
        }
        return 0;
      }
      case SuffixKind::FType:
      case SuffixKind::Cvt: {
        if (t.size() < 2 || t[0] != '.') return 0;
        const TypeNames names = type_names(f_);
        std::int64_t src = 0, dst = 0;
        const std::size_t a = match_type_name(names.source, t.substr(1), src);
        if (a == 0) return 0;
        set(s.fields[0], src);
        if (s.kind == SuffixKind::FType) return 1 + a;
        if (t.size() <= 2 + a || t[1 + a] != '2') return 0;
        const std::size_t b = match_type_name(names.destination, t.substr(2 + a), dst);
        if (b == 0) return 0;
        set(s.fields[1], dst);
        return 2 + a + b;
      }
      case SuffixKind::Level: {
        if (t.size() < 3 || t[0] != '.' || ascii_lower(t[1]) != 'l' || t[2] < '1' || t[2] > '3') return 0;
        set(s.fields[0], t[2] - '1');
        return 3;
      }
      case SuffixKind::Flags: {
        if (t.size() < 2 || t[0] != '.') return 0;
        std::size_t p = 1, letter = 0;
        while (p < t.size() && t[p] != '.') {
          const auto k = s.letters.find(ascii_lower(t[p]), letter);
          if (k == std::string::npos) return 0;
          set(s.fields[k], 1);
          letter = k + 1;
          ++p;
        }
        check_flag_combination(to_lower(t.substr(1, p - 1)));
        return p;
      }
    }
    return 0;
  }

  // A flag suffix must be a combination the catalog template lists.
  void check_flag_combination(std::string_view written) const {
    if (auto why = flag_suffix_reason(f_, written)) c_.fail(*why);
  }

  // Register spellings, matched case-insensitively on a packed key (names are
  // at most four characters; no allocation).
  static std::optional<unsigned> reg_code(std::string_view id, bool destination) {
    if (id.empty() || id.size() > 4) return std::nullopt;
    const std::uint32_t key = packed_lower(id);
    for (unsigned i = 0; i < kGprNames.size(); ++i)
      if (key == kGprKeys[i]) return i;
    const char first = ascii_lower(id[0]);
    if (first == 'r' && id.size() >= 2 && id.size() <= 3 && std::all_of(id.begin() + 1, id.end(), is_digit)) {
      const unsigned n = id.size() == 2 ? unsigned(id[1] - '0') : unsigned(id[1] - '0') * 10 + unsigned(id[2] - '0');
      // rN is the numeric name of Reg5 code N < 32 (LLVM parseRegCode): r24..r31
      // are t#1..u#4 as sources; as destinations r30 is ->u and r31 is ->t.
      if (n < 32) return n;
      return std::nullopt;
    }
    if ((first == 't' || first == 'u') && !destination && id.size() == 3 && id[1] == '#' && id[2] >= '1' && id[2] <= '4')
      return (first == 't' ? 24u : 28u) + unsigned(id[2] - '1');
    if (destination && id.size() == 1 && first == 't') return 31;
    if (destination && id.size() == 1 && first == 'u') return 30;
    return std::nullopt;
  }

  unsigned parse_reg(const Item& it, bool destination) {
    const std::size_t at = c_.pos();
    c_.skip_ws();
    const std::size_t col = c_.pos();
    std::string_view id = c_.ident();
    if (id.find('.') != std::string_view::npos) {  // a0.sw: the suffix belongs to a shifted register
      id = id.substr(0, id.find('.'));
      c_.set_pos(col + id.size());
    }
    const auto code = reg_code(id, destination);
    if (!code) {
      c_.set_pos(at);
      const std::string_view shown = id.empty() ? c_.line().substr(col, 1) : id;
      c_.fail_at(col, fmt::format("{}: '{}' is not a register; expected {}", field_label(it.f0), shown,
                                  destination ? "zero, sp, a0..a7, ra, s0..s8, x0..x3, R0..R31, t or u"
                                              : "zero, sp, a0..a7, ra, s0..s8, x0..x3, R0..R31, t#1..t#4 or u#1..u#4"));
    }
    return *code;
  }

  void parse_gpr(const Item& it, bool destination) {
    c_.skip_ws();
    const std::size_t col = c_.pos();
    const unsigned code = parse_reg(it, false);
    if (code >= 24)  // PTO-B-IOR-BINDING-001: 24..31 are reserved in absolute GPR fields
      c_.fail_at(col, fmt::format("{}: selector {} is reserved (24..31); {}", field_label(it.f0), code, kGprExpectation));
    (void)destination;
    set(it.f0, code);
  }

  std::int64_t expr(const Item& it) {
    const ExprValue v = parse_expression(c_, env_);
    if (!v.resolved) resolved_ = false;
    (void)it;
    return v.value;
  }

  // SrcRType of an optional `.sw` / `.uw` / `.neg` / `.not` after a source
  // register: the value whose spelling the form's ASL right-modifier decoder
  // gives it (asl/scalar/model/dispatch/decode.asl; see tools/gen_asm_syntax.py).
  std::int64_t right_modifier_code(const Item& it) {
    std::string written;
    if (c_.line().substr(c_.pos(), 1) == ".") {
      const std::size_t start = c_.pos() + 1;
      std::size_t end = start;
      while (end < c_.line().size() && is_alpha(c_.line()[end])) ++end;
      written = std::string(c_.line().substr(start, end - start));
      if (written.empty()) c_.fail(fmt::format("{}: expected a register modifier after '.'", field_label(it.f0)));
    }
    for (std::size_t v = 0; v < it.names.size(); ++v) {
      if (it.names[v] != written) continue;
      if (!written.empty()) c_.set_pos(c_.pos() + 1 + written.size());
      return static_cast<std::int64_t>(v);
    }
    std::string options;
    for (const std::string_view n : it.names)
      if (!n.empty()) (options += options.empty() ? "." : ", .") += n;
    c_.fail(fmt::format("{}: {} takes no modifier .{} (expected {})", field_label(it.f0), f_.mnemonic, written, options));
  }

  void parse_item(const Item& it) {
    c_.skip_ws();
    const std::size_t col = c_.pos();
    item_column_ = col;
    switch (it.kind) {
      case ItemKind::Reg: set(it.f0, parse_reg(it, false)); return;
      case ItemKind::Gpr: parse_gpr(it, false); return;
      case ItemKind::Dst:
      case ItemKind::DstGpr:
        if (!c_.accept("->")) c_.fail(fmt::format("{}: expected a destination '->reg'", field_label(it.f0)));
        if (it.kind == ItemKind::DstGpr) parse_gpr(it, true);
        else set(it.f0, parse_reg(it, true));
        return;
      case ItemKind::Dst2: set(it.f0, parse_reg(it, true)); return;
      case ItemKind::Imm: set(it.f0, expr(it)); return;
      case ItemKind::Label: {
        const ExprValue v = parse_expression(c_, env_);
        if (!v.resolved) {
          resolved_ = false;
          return;
        }
        const std::uint64_t base = label_base(it, pc_);
        const auto delta = static_cast<std::int64_t>(static_cast<std::uint64_t>(v.value) - base);
        const std::int64_t unit = std::int64_t{1} << it.shift;
        if (delta % unit != 0)
          c_.fail_at(col, fmt::format("{}: target {:#x} is not a multiple of {} bytes from {:#x}", field_label(it.f0),
                                      static_cast<std::uint64_t>(v.value), unit, base));
        set(it.f0, delta / unit);
        return;
      }
      case ItemKind::Shifted: {
        set(it.f0, parse_reg(it, false));
        if (c_.line().substr(c_.pos(), 1) == "." && it.f1 < 0)
          c_.fail(fmt::format("{} takes no register modifier", f_.mnemonic));
        if (it.f1 >= 0) set(it.f1, right_modifier_code(it));
        if (c_.accept("<<")) {
          if (it.f2 >= 0) {
            set(it.f2, expr(it));
          } else {
            const std::size_t at = c_.pos();
            if (!it.shift || expr(it) != it.shift)
              c_.fail_at(at, it.shift ? fmt::format("{} scales the offset by <<{} only", f_.mnemonic, it.shift)
                                      : fmt::format("{} takes no shift amount", f_.mnemonic));
          }
        }
        return;
      }
      case ItemKind::Literal:
        if (!c_.accept(it.text)) c_.fail(fmt::format("expected '{}'", it.text));
        return;
      case ItemKind::Enum: {
        std::size_t best = it.names.size();
        for (std::size_t i = 0; i < it.names.size(); ++i) {
          if (it.names[i].empty()) continue;
          const std::size_t save = c_.pos();
          if (c_.accept(it.names[i]) && (c_.at_end() || c_.peek() == ',')) {
            if (best == it.names.size() || it.names[i].size() > it.names[best].size()) best = i;
          }
          c_.set_pos(save);
        }
        if (best == it.names.size()) {
          std::string options;
          for (const auto& n : it.names)
            if (!n.empty()) (options += options.empty() ? "" : ", ") += n;
          c_.fail(fmt::format("{}: expected one of {}", field_label(it.f0), options));
        }
        c_.accept(it.names[best]);
        set(it.f0, static_cast<std::int64_t>(best));
        return;
      }
      case ItemKind::Named: {
        const std::string_view name = isa::fields_of(f_)[static_cast<std::size_t>(it.f0)].name;
        if (!c_.accept(name) || !c_.accept("="))
          c_.fail(fmt::format("expected '{}=<value>'", name));
        set(it.f0, expr(it));
        return;
      }
      case ItemKind::DType: {
        const std::string_view id = c_.ident();
        if (const auto code = data_type_code(id)) {
          set(it.f0, *code);
          return;
        }
        if (!id.empty()) c_.fail_at(col, fmt::format("{}: unknown data type '{}'", field_label(it.f0), id));
        set(it.f0, expr(it));
        return;
      }
      case ItemKind::Tile: set(it.f0, parse_tile_source(it)); return;
      case ItemKind::DTile: {
        std::optional<std::int64_t> size;  // alternative spelling: size=N, ->T
        if (c_.accept("size")) {
          if (!c_.accept("=")) c_.fail("expected 'size=<SizeCode>'");
          size = expr(it);
          if (!c_.accept(",")) c_.fail("expected ', ->T' after size=");
        }
        if (!c_.accept("->")) c_.fail("expected a destination tile '->T<size>'");
        c_.skip_ws();
        const char h = ascii_upper(c_.peek());
        const auto hand = kHands.find(h);
        if (hand == std::string_view::npos) c_.fail("expected a destination hand T, U, M or N");
        c_.set_pos(c_.pos() + 1);
        set(it.f0, static_cast<std::int64_t>(hand));
        if (size) {
          set(it.f1, *size);
          return;
        }
        if (!c_.accept("<")) c_.fail("expected '<SizeCode>' after the destination hand");
        set(it.f1, parse_tile_size(it.f1));
        if (!c_.accept(">")) c_.fail("expected '>'");
        return;
      }
      case ItemKind::Mask: set(it.f0, parse_mask(it.f0)); return;
      case ItemKind::Last: return;
      case ItemKind::Ios: parse_ios(it); return;
      case ItemKind::Range: return;
      case ItemKind::Attrs: parse_attributes(it); return;
    }
  }

  // Attribute list (B.DATR, B.FPATR).  Positional when braced, or when it has
  // one value per field and no `Field=`: each value is a name of that field
  // or an integer.  Otherwise each entry is `Field=value` or a name that only
  // one field has; unnamed fields encode zero.  (docs/assembly.md)
  void parse_attributes(const Item& it) {
    const bool braced = c_.accept("{");
    const AttributeEntries shape = scan_attribute_entries(braced);
    if (shape.count == 0)
      c_.fail(fmt::format("{} needs its attribute values ({})", f_.mnemonic, field_list(it)));
    if (braced && shape.keyword)
      c_.fail(fmt::format("a braced {} list is positional: give the {} values in template order without 'Field='",
                          f_.mnemonic, it.list.size()));
    const std::size_t positional = positional_count(it, shape, braced);
    if (braced || positional) {
      if (shape.count != it.list.size() && !positional)
        c_.fail(fmt::format("{} takes {} positional values ({}), got {}", f_.mnemonic, it.list.size(),
                            field_list(it), shape.count));
      for (std::size_t k = 0; k < shape.count; ++k) {
        if (k && !c_.accept(",")) c_.fail("expected ','");
        parse_attribute_value(it.list[k]);
      }
    } else {
      std::vector<bool> given(f_.field_count, false);
      for (std::size_t k = 0; k < shape.count; ++k) {
        if (k && !c_.accept(",")) c_.fail("expected ','");
        c_.skip_ws();
        const std::size_t col = c_.pos();
        const int field = attribute_entry_field(it, col);
        if (given[static_cast<std::size_t>(field)])
          c_.fail_at(col, fmt::format("{} {} is given twice", f_.mnemonic, isa::fields_of(f_)[static_cast<std::size_t>(field)].name));
        given[static_cast<std::size_t>(field)] = true;
      }
    }
    if (braced && !c_.accept("}")) c_.fail("expected '}'");
  }

  struct AttributeEntries {
    std::size_t count = 0;
    bool keyword = false;  // some entry is Field=value
  };

  // Number of leading fields an unbraced list without `Field=` gives by
  // position (0: not positional).  Every field, or for B.FPATR the first
  // seven: the LinxISA LLVM assembler's B.FPATR has no TransA/TransB
  // (v058-pto-raw-abi.s `B.FPATR 1, 2, 3, 1, 0, 1, 1`), which then encode 0.
  std::size_t positional_count(const Item& it, const AttributeEntries& shape, bool braced) const {
    if (braced || shape.keyword) return 0;
    if (shape.count == it.list.size()) return shape.count;
    if (f_.mnem == isa::Mnemonic::B_FPATR && shape.count == kLlvmFpatrValues && it.list.size() == kLlvmFpatrValues + 2)
      return shape.count;
    return 0;
  }

  // Counts the comma-separated entries ahead (up to '}' or the end) without
  // consuming them.
  AttributeEntries scan_attribute_entries(bool braced) {
    const std::string_view l = c_.line();
    std::size_t p = c_.pos();
    AttributeEntries out;
    int depth = 0;
    bool entry_start = true, any_text = false;
    for (; p < l.size(); ++p) {
      const char ch = l[p];
      if (braced && ch == '}' && depth == 0) break;
      if (ch == '(') ++depth;
      if (ch == ')') --depth;
      if (ch == ',' && depth == 0) {
        ++out.count;
        entry_start = true;
        continue;
      }
      if (ch == ' ' || ch == '\t') continue;
      any_text = true;
      if (entry_start) {
        std::size_t e = p;
        while (e < l.size() && (is_alnum(l[e]) || l[e] == '_')) ++e;
        while (e < l.size() && (l[e] == ' ' || l[e] == '\t')) ++e;
        if (e > p && e < l.size() && l[e] == '=') out.keyword = true;
        entry_start = false;
      }
    }
    if (any_text) ++out.count;
    return out;
  }

  // One unordered entry: `Field=value` or a name only one field has.
  int attribute_entry_field(const Item& it, std::size_t col) {
    const std::string_view id = c_.ident();
    if (c_.accept("=")) {
      const int field = attribute_keyword_field(f_, id);
      if (field < 0 || std::find(it.list.begin(), it.list.end(), field) == it.list.end())
        c_.fail_at(col, fmt::format("{} has no field '{}'; fields are {}", f_.mnemonic, id, field_list(it)));
      parse_attribute_value(static_cast<std::int8_t>(field));
      return field;
    }
    if (id.empty())
      c_.fail_at(col, fmt::format("a bare {} value needs its position: write all {} values ({}) or Field=value",
                                  f_.mnemonic, it.list.size(), field_list(it)));
    std::vector<std::int8_t> owners;
    std::int64_t code = 0;
    for (std::int8_t field : it.list)
      if (const auto c = attribute_value_code(f_, field, id)) owners.push_back(field), code = *c;
    if (owners.empty())
      c_.fail_at(col, fmt::format("'{}' is not a value of any {} field; write Field=value", id, f_.mnemonic));
    if (owners.size() > 1) {
      std::string which;
      for (auto o : owners) which += (which.empty() ? "" : ", ") + std::string(isa::fields_of(f_)[static_cast<std::size_t>(o)].name);
      c_.fail_at(col, fmt::format("'{}' is ambiguous in {} ({}); write Field={}", id, f_.mnemonic, which, id));
    }
    item_column_ = col;
    set(owners[0], code);
    return owners[0];
  }

  // A value of one attribute field: one of its names, or an integer expression.
  void parse_attribute_value(std::int8_t field) {
    c_.skip_ws();
    const std::size_t col = c_.pos();
    item_column_ = col;
    const std::string_view id = c_.ident();
    if (!id.empty()) {
      if (const auto code = attribute_value_code(f_, field, id)) {
        set(field, *code);
        return;
      }
      if (attribute_has_names(f_, field) && !env_.symbol(id))
        c_.fail_at(col, fmt::format("{}: '{}' is not a value name; expected {} or an integer", field_label(field), id,
                                    attribute_value_list(f_, field)));
      c_.set_pos(col);
    }
    const ExprValue v = parse_expression(c_, env_);
    if (!v.resolved) resolved_ = false;
    set(field, v.value);
  }

  std::string field_list(const Item& it) const {
    std::string out;
    for (auto i : it.list) out += (out.empty() ? "" : ", ") + std::string(isa::fields_of(f_)[static_cast<std::size_t>(i)].name);
    return out;
  }

  std::int64_t parse_tile_source(const Item& it) {
    c_.skip_ws();
    const std::size_t col = c_.pos();
    const std::string_view id = c_.ident();
    const auto hand = id.size() >= 3 ? kHands.find(ascii_upper(id[0]))
                                     : std::string_view::npos;
    if (hand != std::string_view::npos && id[1] == '#') {
      const std::string num(id.substr(2));
      if (!num.empty() && num.size() <= 2 && std::all_of(num.begin(), num.end(), is_digit)) {
        const int k = std::stoi(num);
        if (k >= 1 && k <= 16) return static_cast<std::int64_t>(hand * 16 + static_cast<std::size_t>(k - 1));
      }
    }
    c_.fail_at(col, fmt::format("{}: '{}' is not a Local tile source; expected T#1..T#16, U#1..U#16, M#1..M#16 or N#1..N#16",
                                field_label(it.f0), id.empty() ? c_.line().substr(col, 1) : id));
  }

  // Tile size inside '<...>': a SizeCode expression, or bytes written as
  // `128B` / `8KB` (LLVM spelling) mapped through TileSizeCodeBytes
  // (asl/tile/model/state/descriptors.asl).  Either way the code must be one
  // the form's catalog SizeCode constraint allows.
  std::int64_t parse_tile_size(std::int8_t field) {
    c_.skip_ws();
    const std::size_t col = c_.pos();
    item_column_ = col;
    std::int64_t code = 0;
    std::string written;  // the byte spelling, when used
    if (const auto bytes = scan_byte_size()) {
      written = fmt::format("tile size {} = ", bytes->text);
      const auto from_bytes = size_code_of_bytes(bytes->value);
      if (!from_bytes)
        c_.fail_at(col, fmt::format("{}: tile size {} is not a TileSizeCodeBytes size; expected {}", field_label(field),
                                    bytes->text, tile_size_list(field)));
      code = *from_bytes;
    } else {
      const std::size_t save = c_.pos();
      if (reg_code(c_.ident(), false))  // LLVM's '->t<a0>': sizes are never registers
        c_.fail_at(col, fmt::format("{}: '{}' is a register; the size is a constant ({})", field_label(field),
                                    c_.line().substr(col, c_.pos() - col), tile_size_list(field)));
      c_.set_pos(save);
      const ExprValue v = parse_expression(c_, env_);
      if (!v.resolved) {
        resolved_ = false;
        return 0;
      }
      code = v.value;
    }
    if (!value_allowed(field, code))
      c_.fail_at(col, fmt::format("{}: {}size code {} is out of range; {} takes {} (catalog SizeCode constraint)",
                                  field_label(field), written, code, f_.mnemonic, tile_size_list(field)));
    return code;
  }

  struct ByteSize {
    std::uint64_t value;
    std::string_view text;
  };

  // `<digits>B` or `<digits>KB` at the cursor (consumed), else nothing.
  std::optional<ByteSize> scan_byte_size() {
    const std::string_view l = c_.line();
    const std::size_t start = c_.pos();
    std::size_t p = start;
    std::uint64_t v = 0;
    while (p < l.size() && is_digit(l[p]) && p - start < 12) v = v * 10 + std::uint64_t(l[p++] - '0');
    if (p == start) return std::nullopt;
    std::uint64_t scale = 0;
    std::size_t unit = 0;
    // Upper-case units only, as LLVM writes them: `1b` stays a local label.
    if (p + 1 < l.size() && l[p] == 'K' && l[p + 1] == 'B') scale = 1024, unit = 2;
    else if (p < l.size() && l[p] == 'B') scale = 1, unit = 1;
    if (!scale || (p + unit < l.size() && is_alnum(l[p + unit]))) return std::nullopt;
    c_.set_pos(p + unit);
    return ByteSize{v * scale, l.substr(start, p + unit - start)};
  }

  bool value_allowed(std::int8_t field, std::int64_t v) const {
    for (const isa::ConstraintDesc& c : isa::constraints_of(f_)) {
      if (c.field != static_cast<std::uint8_t>(field) || c.op != isa::ConstraintOp::OneOf) continue;
      const auto values = isa::values_of(c);
      return std::find(values.begin(), values.end(), v) != values.end();
    }
    const isa::FieldRange r = isa::field_range(isa::fields_of(f_)[static_cast<std::size_t>(field)]);
    return v >= r.min && v <= r.max;
  }

  // "1..10 (128B..64KB)": the legal codes of a SizeCode field with their sizes.
  std::string tile_size_list(std::int8_t field) const {
    std::int64_t lo = -1, hi = -1;
    for (std::int64_t code = 0; code < 16; ++code)
      if (value_allowed(field, code)) {
        if (lo < 0) lo = code;
        hi = code;
      }
    const std::int64_t first_sized = std::max<std::int64_t>(lo, 1);
    return fmt::format("{}..{} ({}..{})", lo, hi, tile_size_text(first_sized), tile_size_text(hi));
  }

  std::int64_t parse_mask(std::int8_t field) {
    if (!c_.accept("mask") || !c_.accept("=")) c_.fail("expected 'mask=<PE mask>'");
    c_.skip_ws();
    const std::size_t col = c_.pos();
    c_.accept("<");
    c_.skip_ws();
    std::size_t end = c_.pos();
    while (end < c_.line().size() && (c_.line()[end] == '0' || c_.line()[end] == '1')) ++end;
    const std::string_view bits = c_.line().substr(c_.pos(), end - c_.pos());
    const auto mode = pe_mode_of_mask(bits);
    if (!mode)
      c_.fail_at(col, fmt::format("{}: PE mask '{}' has no PEMode encoding; expected {}", field_label(field), bits,
                                  pe_mask_choices()));
    c_.set_pos(end);
    c_.accept(">");
    return *mode;
  }

  void parse_ios(const Item& it) {
    // B.IOS S<tid>, mask=M   |   B.IOS mask=M, ->S<tid><SizeCode>
    if (c_.accept("->") || c_.peek() == 'm' || c_.peek() == 'M') {
      set(it.f2, parse_mask(it.f2));
      if (!c_.accept(",") || !c_.accept("->")) c_.fail("expected ', ->S<id><SizeCode>'");
      if (!c_.accept("S")) c_.fail("expected a Shared tile S<id>");
      set(it.f0, expr(it));
      if (!c_.accept("<")) c_.fail("expected '<SizeCode>'");
      set(it.f1, parse_tile_size(it.f1));
      if (!c_.accept(">")) c_.fail("expected '>'");
      return;
    }
    if (!c_.accept("S")) c_.fail("expected a Shared tile source S<id> or 'mask='");
    set(it.f0, expr(it));
    set(it.f1, 0);
    if (!c_.accept(",")) c_.fail("expected ', mask=<PE mask>'");
    set(it.f2, parse_mask(it.f2));
  }

 private:
  const isa::FormDesc& f_;
  const FormSyntax& fs_;
  Cursor& c_;
  std::uint64_t pc_;
  const ExprEnv& env_;
  std::array<std::int64_t, kMaxFields> values_;
  std::array<std::size_t, kMaxFields> columns_;
  std::size_t item_column_ = 0;
  std::size_t items_done_ = 0;
  bool resolved_ = true;
};

std::string why_reserved(const isa::FormDesc& f) {
  if (f.status == isa::FormStatus::ExtensionReserved)
    return fmt::format("reserved encoding space {} (catalog reservation: {}, extension-encoding-reservations.json); "
                       "it cannot be assembled",
                       f.mnemonic, f.owner);
  return fmt::format("'{}' is reserved in PTO 0.58.3: it decodes but the model rejects it", f.mnemonic);
}

// Whether an upper-case mnemonic falls in a reservation's name: the name
// itself, or any mnemonic of a wildcard space (`V.*`).
bool in_reserved_space(std::string_view upper, std::string_view reserved) {
  if (reserved.ends_with(".*")) return upper.starts_with(reserved.substr(0, reserved.size() - 1));
  return upper == reserved;
}

std::optional<std::string> deleted_name_message(std::string_view word) {
  const std::string up = to_upper(word);
  for (const char* n : isa::deleted_tile_names())
    if (up == n) return fmt::format("'{}' was deleted in PTO 0.58 (catalog deleted_names) and is not an instruction", word);
  for (const char* n : isa::rejected_tile_names())
    if (up == n) return fmt::format("'{}' is a rejected tile operation name in PTO 0.58 (catalog rejected names)", word);
  static constexpr std::string_view kDeletedCommands[] = {"B.IOD", "BSTART.PAR", "C.B.IOS", "TALLOC", "TFREE"};
  for (std::string_view n : kDeletedCommands)
    if (up == n) return fmt::format("'{}' was deleted in PTO 0.58 and is not an instruction", word);
  for (const isa::FormDesc& f : isa::all_forms())
    if (f.status == isa::FormStatus::ExtensionReserved && in_reserved_space(up, f.mnemonic)) return why_reserved(f);
  return std::nullopt;
}

// Encodes parsed values, reporting range problems at the operand column.
std::uint64_t encode_values(const isa::FormDesc& f, std::span<const std::int64_t> values, bool check, Cursor& c,
                            std::size_t column) {
  auto r = isa::encode(f, values);
  if (auto* e = std::get_if<isa::EncodeError>(&r)) {
    if (check) c.fail_at(column, e->message);
    return 0;
  }
  return std::get<std::uint64_t>(r);  // isa::encode has checked every field constraint
}

// Fails at `column` when the word always raises Fault_IllegalInstruction.
void check_always_illegal(const isa::FormDesc& f, std::uint64_t bits, Cursor& c, std::size_t column) {
  if (auto why = always_illegal_reason(f, bits)) c.fail_at(column, *why);
}

ParsedInstruction parse_tile_alias(std::string_view engine, Cursor& c, std::size_t mcol) {
  // BSTART.VEC <Op>, <DType> / BSTART.SFU <Op>, <DType> (canonical TEPL text).
  c.skip_ws();
  const std::size_t col = c.pos();
  const std::string_view op_name = c.ident();
  if (auto msg = deleted_name_message(op_name)) c.fail_at(col, *msg);
  const auto op = isa::tile_op_from_name(to_upper(op_name));
  if (!op) c.fail_at(col, fmt::format("'{}' is not a tile operation", op_name));
  const auto& t = isa::tile_op(*op);
  if (t.family != isa::TileFamily::TEPL || !iequals(isa::engine_name(t.engine), engine))
    c.fail_at(col, fmt::format("tile operation {} runs on {}, not {}", t.name, isa::engine_name(t.engine), to_upper(engine)));
  if (!c.accept(",")) c.fail("expected ', <DataType>'");
  c.skip_ws();
  const std::size_t dcol = c.pos();
  const std::string_view dt = c.ident();
  const auto code = data_type_code(dt);
  if (!code) c.fail_at(dcol, fmt::format("unknown data type '{}'", dt));
  if (!c.at_end()) c.fail(fmt::format("unexpected '{}'", c.line().substr(c.pos())));
  const isa::FormIndex fi = isa::forms_of_mnemonic(isa::Mnemonic::BSTART_TEPL)[0];
  const isa::FormDesc& f = isa::form(fi);
  std::vector<std::int64_t> values(f.field_count, 0);
  values[static_cast<std::size_t>(isa::field_index(f, "Mode"))] = t.selector >> 5;
  values[static_cast<std::size_t>(isa::field_index(f, "Function"))] = t.selector & 31;
  values[static_cast<std::size_t>(isa::field_index(f, "DataType"))] = *code;
  return {fi, encode_values(f, values, true, c, mcol), f.length_bits, true};
}

}  // namespace

namespace {

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

bool starts_with_nocase(std::string_view s, std::string_view prefix) {
  return s.size() >= prefix.size() && iequals(s.substr(0, prefix.size()), prefix);
}

// Whether one comma-free operand `t` can start item `it`: a necessary
// condition of FormParser::parse_item for that item (true when unsure).
bool operand_may_be(const isa::FormDesc& f, const Item& it, std::string_view t) {
  if (it.open) {
    if (t.empty() || t.front() != '[') return false;
    t = trimmed(t.substr(1));
  }
  switch (it.kind) {
    case ItemKind::Reg: case ItemKind::Gpr: case ItemKind::Dst2: case ItemKind::Shifted:
      return !t.empty() && is_alpha(t.front());  // every register spelling starts with a letter
    case ItemKind::Dst: case ItemKind::DstGpr: case ItemKind::DTile:
      return starts_with_nocase(t, "->");
    case ItemKind::Literal: return starts_with_nocase(t, it.text);
    case ItemKind::Mask: return starts_with_nocase(t, "mask");
    case ItemKind::Named: return starts_with_nocase(t, isa::fields_of(f)[static_cast<std::size_t>(it.f0)].name);
    case ItemKind::Tile: return t.size() >= 3 && kHands.find(ascii_upper(t[0])) != std::string_view::npos && t[1] == '#';
    case ItemKind::Enum:
      return std::any_of(it.names.begin(), it.names.end(),
                         [t](std::string_view n) { return !n.empty() && starts_with_nocase(t, n); });
    default: return true;  // expressions, data types
  }
}

// Items whose text may contain a comma of its own or whose presence depends
// on the text after them: the shape walk stops there.
bool shape_walk_stops(const Item& it, std::string_view t) {
  if ((it.optional && it.kind != ItemKind::Last) || it.when >= 0) return true;
  switch (it.kind) {
    case ItemKind::Ios: case ItemKind::Attrs: case ItemKind::Range: return true;
    case ItemKind::DTile: return starts_with_nocase(t, "size");  // size=N, ->T
    case ItemKind::Literal: return it.text.find(',') != std::string::npos;
    default: return false;
  }
}

}  // namespace

bool operand_shape_fits(isa::FormIndex form, std::string_view operands) {
  // FormParser takes exactly one comma between two items, and the items
  // checked here contain none (expressions have no comma), so when it accepts
  // the text, the i-th comma-separated operand is the text of the i-th item.
  std::string_view rest = operands;  // after the operands walked so far: "" or ",..."
  bool first = true, has_last = false;
  for (const Item& it : syntax_of(form).items) {
    if (!first && rest.empty() && it.kind == ItemKind::Last) continue;
    if (!first && rest.empty()) return it.optional;  // a required item needs ", <operand>"
    const std::string_view from = first ? rest : rest.substr(1);
    const std::size_t end = std::min(from.find(','), from.size());
    const std::string_view t = trimmed(from.substr(0, end));
    if (shape_walk_stops(it, t)) return true;
    if (it.kind == ItemKind::Last) {  // optional 'last' keyword (B.IOT)
      has_last = true;
      if (first) return true;
      const bool is_last = iequals(t, "last") || iequals(t, "<last>");
      if (!is_last && (starts_with_nocase(t, "last") || starts_with_nocase(t, "<last>"))) return true;
      if (!is_last) continue;
    } else if (!operand_may_be(isa::form(form), it, t)) {
      return false;
    }
    first = false;
    rest = from.substr(end);
  }
  if (first) return trimmed(operands).empty();  // a form without operands
  if (rest.empty()) return true;
  // B.IOT also takes 'last' after the destination.
  const std::string_view after = trimmed(rest.substr(1));
  return has_last && (starts_with_nocase(after, "last") || starts_with_nocase(after, "<last>"));
}

std::optional<unsigned> fixed_length_of(std::string_view word) {
  const std::string upper = to_upper(word);
  if (upper == "BSTART.VEC" || upper == "BSTART.SFU") return 32;
  std::optional<isa::Mnemonic> m = isa::mnemonic_from_name(upper);
  for (std::size_t p = upper.size(); !m && p-- > 1;)
    if (upper[p] == '.') m = isa::mnemonic_from_name(std::string_view(upper).substr(0, p));
  if (!m) return std::nullopt;
  std::optional<unsigned> len;
  for (isa::FormIndex fi : isa::forms_of_mnemonic(*m)) {
    const isa::FormDesc& f = isa::form(fi);
    if (f.status != isa::FormStatus::Accepted || (len && *len != f.length_bits)) return std::nullopt;
    len = f.length_bits;
  }
  return len;
}

namespace {

// Why one candidate form failed: the form that parsed most operands wins, and
// among equals the one whose failure is furthest right (first in catalog
// order on a tie).
struct FormFailure {
  std::size_t items = 0;
  ParseError error;
  bool beats(const FormFailure& other) const {
    return items != other.items ? items > other.items : error.column > other.error.column;
  }
};

// The first of `forms` (in catalog order) that parses the instruction whose
// mnemonic word `word` (at column `mcol`) has its mnemonic end at `cut`;
// `best` collects the failure reached furthest.  With `shape_filter`, forms
// operand_shape_fits rejects are skipped without parsing.
std::optional<ParsedInstruction> parse_first_form(std::span<const isa::FormIndex> forms, std::string_view line,
                                                  std::size_t mcol, std::string_view word, std::size_t cut,
                                                  std::uint64_t pc, const ExprEnv& env, bool shape_filter,
                                                  std::optional<FormFailure>& best) {
  const std::size_t operands_pos = mcol + word.size();
  for (isa::FormIndex fi : forms) {
    const isa::FormDesc& f = isa::form(fi);
    if (f.status != isa::FormStatus::Accepted) {
      best = FormFailure{0, ParseError{mcol, why_reserved(f)}};
      continue;
    }
    if (shape_filter && !operand_shape_fits(fi, line.substr(operands_pos))) continue;
    Cursor fc(line, operands_pos);
    FormParser p(f, fc, pc, env);
    try {
      p.parse(word.substr(cut), mcol + cut);
      p.mark_complete();  // what fails from here on is a value, not the shape
      const bool check = env.final_pass() || p.resolved();
      if (check) p.check_ranges();
      const std::uint64_t bits = encode_values(f, p.values(), check, fc, operands_pos + 1);
      if (check) check_always_illegal(f, bits, fc, operands_pos + 1);
      return ParsedInstruction{fi, bits, f.length_bits, p.resolved()};
    } catch (ParseFailure& e) {
      const FormFailure failure{p.items_done(), e.error};
      if (!best || failure.beats(*best)) best = failure;
    }
  }
  return std::nullopt;
}

}  // namespace

// B.IOR with a bracketed source list (LLVM `B.IOR [zero, sp, a0], ->x3`,
// `B.IOR [s0]`): the brackets become blanks, so columns stay those of the
// input; an empty `[]` drops its comma too.  Omitted fields encode zero, as
// in the LLVM tests' padded output `[s0, zero, zero], ->zero`.
std::optional<std::string> unbracketed_ior(std::string_view line, std::size_t operands) {
  const std::size_t open = line.find_first_not_of(" \t", operands);
  if (open == std::string_view::npos || line[open] != '[') return std::nullopt;
  const std::size_t close = line.find(']', open);
  if (close == std::string_view::npos) return std::nullopt;
  std::string out(line);
  out[open] = ' ';
  out[close] = ' ';
  if (trimmed(line.substr(open + 1, close - open - 1)).empty()) {
    const std::size_t comma = out.find_first_not_of(" \t", close);
    if (comma != std::string::npos && out[comma] == ',') out[comma] = ' ';
  }
  return out;
}

bool is_catr_flag_list(std::string_view operands) {
  const std::string_view t = trimmed(operands);
  return !t.empty() && t.find('=') == std::string_view::npos;
}

ParsedInstruction parse_catr_flags(std::string_view line, std::size_t operands, std::size_t mcol) {
  const isa::FormIndex fi = isa::forms_of_mnemonic(isa::Mnemonic::B_CATR)[0];
  const isa::FormDesc& f = isa::form(fi);
  std::vector<std::int64_t> values(f.field_count, 0);
  std::vector<bool> seen(std::size(kCatrFlags), false);
  const CatrFlag* ordering = nullptr;
  Cursor c(line, operands);
  do {
    c.skip_ws();
    const std::size_t col = c.pos();
    const std::string_view word = c.ident();
    const auto* flag = std::find_if(std::begin(kCatrFlags), std::end(kCatrFlags),
                                    [&](const CatrFlag& k) { return iequals(k.word, word); });
    if (flag == std::end(kCatrFlags))
      c.fail_at(col, fmt::format("B.CATR: '{}' is not a flag; expected trap, atomic, aq, rl, aqrl, far or dr "
                                 "(asm template '{}')", word.empty() ? line.substr(col, 1) : word, f.asm_template));
    const auto k = static_cast<std::size_t>(flag - std::begin(kCatrFlags));
    if (seen[k]) c.fail_at(col, fmt::format("B.CATR: flag '{}' is given twice", flag->word));
    if (flag->ordering && ordering)
      c.fail_at(col, fmt::format("B.CATR: '{}' after '{}': the template's ordering group <aq, rl, aqrl> takes one "
                                 "(write aqrl for both)", flag->word, ordering->word));
    seen[k] = true;
    if (flag->ordering) ordering = flag;
    for (std::string_view field : flag->fields)
      if (!field.empty()) values[static_cast<std::size_t>(isa::field_index(f, field))] = 1;
  } while (c.accept(","));
  if (!c.at_end()) c.fail(fmt::format("unexpected '{}' after the B.CATR flags", line.substr(c.pos())));
  return {fi, encode_values(f, values, true, c, mcol), f.length_bits, true};
}

ParsedInstruction parse_instruction(std::string_view line, std::size_t mnemonic_pos, std::uint64_t pc,
                                    const ExprEnv& env) {
  Cursor c(line, mnemonic_pos);
  c.skip_ws();
  const std::size_t mcol = c.pos();
  std::size_t mend = mcol;
  while (mend < line.size() && line[mend] != ' ' && line[mend] != '\t') ++mend;
  const std::string_view word = line.substr(mcol, mend - mcol);
  const std::string upper = to_upper(word);
  if (upper == "B.DIM") {  // B.DIM LBn, imm / LBn=imm: spellings with RegSrc=zero (spec examples)
    Cursor a(line, mend);
    const std::string_view lb = a.ident();
    if (lb.size() == 3 && iequals(lb.substr(0, 2), "LB") && (a.accept(",") || a.accept("="))) {
      const std::string rewritten =
          fmt::format("{}{}zero, {}, ->{}", line.substr(0, mend), " ", line.substr(a.pos()), to_upper(lb));
      return parse_instruction(rewritten, mnemonic_pos, pc, env);
    }
  }
  if (upper == "B.IOR")
    if (const auto plain = unbracketed_ior(line, mend)) return parse_instruction(*plain, mnemonic_pos, pc, env);
  if (upper == "B.CATR" && is_catr_flag_list(line.substr(mend))) return parse_catr_flags(line, mend, mcol);
  if (upper == "BSTART.VEC" || upper == "BSTART.SFU") {
    c.set_pos(mend);
    return parse_tile_alias(std::string_view(upper).substr(7), c, mcol);
  }
  if (const EncodingVariant* v = variant_named(upper)) {  // carrier operands, variant's fixed bits
    const isa::FormIndex fi = *isa::form_by_id(v->carrier);
    const isa::FormDesc& f = isa::form(fi);
    Cursor fc(line, mend);
    FormParser p(f, fc, pc, env);
    p.parse({}, mend);
    const bool check = env.final_pass() || p.resolved();
    if (check) p.check_ranges();
    const std::uint64_t bits = encode_values(f, p.values(), check, fc, mend + 1);
    return {fi, (bits & ~std::uint64_t{v->mask}) | v->match, f.length_bits, p.resolved()};
  }
  // A reserved or deleted name that is not itself a mnemonic (BSTART.MSEQ,
  // B.IOD) is reported as such, not as a suffix of a shorter mnemonic.
  if (!isa::mnemonic_from_name(upper))
    if (auto msg = deleted_name_message(word)) throw ParseFailure{ParseError{mcol, *msg}};
  // Candidate mnemonic prefixes at '.' boundaries, longest first.
  std::optional<FormFailure> best;
  bool any_mnemonic = false;
  std::array<std::size_t, 8> cuts{upper.size()};
  std::size_t cut_count = 1;
  for (std::size_t p = upper.size(); p-- > 1 && cut_count < cuts.size();)
    if (upper[p] == '.') cuts[cut_count++] = p;
  for (const std::size_t cut : std::span(cuts.data(), cut_count)) {
    const auto m = isa::mnemonic_from_name(std::string_view(upper).substr(0, cut));
    if (!m) continue;
    any_mnemonic = true;
    const auto forms = isa::forms_of_mnemonic(*m);
    // Skipping the forms whose operand shape cannot match keeps common input
    // free of exceptions; the chosen form is the same (the skipped ones fail).
    if (forms.size() > 1)
      if (auto r = parse_first_form(forms, line, mcol, word, cut, pc, env, true, best)) return *r;
    // Every candidate in full: the error is the one reached furthest.
    best.reset();
    if (auto r = parse_first_form(forms, line, mcol, word, cut, pc, env, false, best)) return *r;
    break;  // the longest mnemonic prefix decides; no fallback to a shorter mnemonic
  }
  if (!any_mnemonic) {
    if (auto msg = deleted_name_message(word)) throw ParseFailure{ParseError{mcol, *msg}};
    throw ParseFailure{ParseError{mcol, fmt::format("unknown mnemonic '{}'", word)}};
  }
  throw ParseFailure{best->error};
}

}  // namespace pto::as
