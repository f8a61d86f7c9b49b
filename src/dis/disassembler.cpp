#include "dis/disassembler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <limits>
#include <set>
#include <stdexcept>

#include "asm/syntax.hpp"
#include "isa/length.hpp"
#include "isa/tile_start.hpp"

namespace pto::dis {

// Appends lines and their text to a Listing: a line's text, then its comment,
// are appended to the store right after the line is opened.
class ListingBuilder {
 public:
  explicit ListingBuilder(Listing& out) : lines_(out.lines_), store_(*out.store_) {}
  std::vector<Line>& lines() { return lines_; }
  as::TextBuffer& store() { return store_; }

  Line& open(std::uint64_t address) {
    Line& l = lines_.emplace_back();
    l.address = address;
    l.store_ = &store_;
    l.begin_ = checked<std::uint32_t>(store_.size());
    return l;
  }
  // The text appended since open() ends here.
  void end_text(Line& l) { l.text_size_ = checked<std::uint16_t>(store_.size() - l.begin_); }
  // The comment appended since end_text() ends here.
  void end_comment(Line& l) { l.comment_size_ = checked<std::uint16_t>(store_.size() - l.begin_ - l.text_size_); }
  // New text and comment for a finished line (bundle shaping).  The views may
  // point into the store, which appending can move: copy them first.
  void replace(Line& l, std::string_view text, std::string_view comment) {
    const std::string copy = std::string(text) + std::string(comment);
    l.begin_ = checked<std::uint32_t>(store_.size());
    store_ += copy;
    l.text_size_ = checked<std::uint16_t>(text.size());
    l.comment_size_ = checked<std::uint16_t>(comment.size());
  }

 private:
  template <typename T>
  static T checked(std::size_t n) {
    if (n > std::numeric_limits<T>::max()) throw std::length_error("disassembly text exceeds the listing's text store");
    return static_cast<T>(n);
  }
  std::vector<Line>& lines_;
  as::TextBuffer& store_;
};

Listing::Listing() : store_(std::make_unique<as::TextBuffer>()) {}

namespace {

std::uint16_t halfword_at(std::span<const std::uint8_t> b, std::size_t off) {
  return static_cast<std::uint16_t>(b[off] | (b[off + 1] << 8));
}

bool ends_bundle(const isa::FormDesc& f) {
  return f.mnem == isa::Mnemonic::BSTOP || f.mnem == isa::Mnemonic::C_BSTOP || f.mnem == isa::Mnemonic::L_BSTOP;
}

// How a form takes part in bundle framing.  Hint: B.HINT with a B/E field,
// which opens a block when it is TRACE.
enum class BundleRole : std::uint8_t { None, Start, Hint, Stop };

// Bundle role of each form (by index); computed once instead of comparing
// mnemonic text per line.
const std::vector<BundleRole>& bundle_roles() {
  static const std::vector<BundleRole> table = [] {
    std::vector<BundleRole> v;
    for (const isa::FormDesc& f : isa::all_forms()) {
      const std::string_view m = f.mnemonic;
      if (m.starts_with("BSTART") || m.starts_with("C.BSTART")) v.push_back(BundleRole::Start);
      else if (f.mnem == isa::Mnemonic::B_HINT && isa::field_index(f, "B/E") >= 0) v.push_back(BundleRole::Hint);
      else if (ends_bundle(f)) v.push_back(BundleRole::Stop);
      else v.push_back(BundleRole::None);
    }
    return v;
  }();
  return table;
}

bool starts_bundle(BundleRole role, std::uint64_t bits) {
  return role == BundleRole::Start || (role == BundleRole::Hint && (bits & 0x7fff) == 0x1033);  // B.HINT TRACE
}

// ADR 0058: B.IOR inputs pack in this architectural order into RegSrc0..2.
unsigned consumed_bior_fields(isa::TileOp op) {
  static constexpr std::string_view kOrder[] = {"address", "scalar0", "scalar1", "diagonal", "flag0"};
  unsigned n = 0;
  for (const auto& r : isa::operands_of(isa::tile_op(op)))
    if (std::find(std::begin(kOrder), std::end(kOrder), std::string_view(r.field)) != std::end(kOrder)) ++n;
  return std::min(n, 3u);
}

std::int64_t field(const isa::FormDesc& f, std::string_view name, std::uint64_t bits) {
  return isa::field_value(f, name, bits);
}

// The instruction word (raw bytes past `size` are zero).
std::uint64_t line_bits(const Line& l) {
  if constexpr (std::endian::native == std::endian::little) {
    std::uint64_t v;
    std::memcpy(&v, l.raw.data(), sizeof v);
    return v;
  } else {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < l.size; ++i) v |= std::uint64_t{l.raw[i]} << (8 * i);
    return v;
  }
}

// Initial text store size per code byte, generous (a program with every form
// averages about 5.2): the store rarely grows, and reserved pages that stay
// untouched cost nothing.
constexpr std::size_t kTextBytesPerCodeByte = 8;

void set_bytes(Line& l, std::span<const std::uint8_t> b) {
  l.size = static_cast<std::uint8_t>(std::min<std::size_t>(b.size(), l.raw.size()));
  std::copy_n(b.begin(), l.size, l.raw.begin());
}

// The `n`-byte (n <= 8) little-endian word at `off`, also stored as the
// line's bytes.  Away from the end of the region: one 8-byte load.
std::uint64_t take_word(Line& l, std::span<const std::uint8_t> bytes, std::size_t off, std::size_t n) {
  if constexpr (std::endian::native == std::endian::little) {
    if (bytes.size() - off >= sizeof(std::uint64_t)) {
      std::uint64_t v;
      std::memcpy(&v, bytes.data() + off, sizeof v);
      v &= isa::length_mask(static_cast<unsigned>(8 * n));
      std::memcpy(l.raw.data(), &v, sizeof v);
      l.size = static_cast<std::uint8_t>(n);
      return v;
    }
  }
  set_bytes(l, bytes.subspan(off, n));
  return line_bits(l);
}

// ADR 0064, asl/block/model/dispatch/tile-schema.asl: in a CUBE Matrix
// bundle the B.FPATR scalar parameters take the next dense B.IOR slots after
// the operation's own: the pre-quantization parameter
// (BundleFPATRModeUsesScalarParameter), then the LReLU parameter (ReluMode 2,
// BundleFPATRReluModeUsesScalarParameter).
unsigned fpatr_scalar_parameters(const isa::FormDesc& fpatr, std::uint64_t bits) {
  static constexpr std::int64_t kScalarQuantModes[] = {3, 5, 13, 17, 19, 24, 25, 26, 27, 32, 34, 35};
  const std::int64_t quant = field(fpatr, "PreQuantMode", bits);
  const bool scalar_quant = std::find(std::begin(kScalarQuantModes), std::end(kScalarQuantModes), quant) !=
                            std::end(kScalarQuantModes);
  return (scalar_quant ? 1u : 0u) + (field(fpatr, "ReluMode", bits) == 2 ? 1u : 0u);
}

const Line* find_command(const std::vector<Line>& lines, std::size_t begin, std::size_t end, isa::Mnemonic m) {
  for (std::size_t i = begin; i < end; ++i)
    if (lines[i].form && lines[i].status == isa::DecodeStatus::Accepted && isa::form(*lines[i].form).mnem == m)
      return &lines[i];
  return nullptr;
}

// GPR inputs of the bundle's B.IOR: the operation's schema roles, plus the
// B.FPATR scalar parameters of a CUBE operation (ADR 0058: at most three).
unsigned consumed_bior_inputs(const std::vector<Line>& lines, std::size_t begin, std::size_t end, isa::TileOp op) {
  unsigned n = consumed_bior_fields(op);
  if (isa::tile_op(op).family == isa::TileFamily::CUBE)
    if (const Line* fpatr = find_command(lines, begin, end, isa::Mnemonic::B_FPATR))
      n += fpatr_scalar_parameters(isa::form(*fpatr->form), line_bits(*fpatr));
  return std::min(n, 3u);
}

// Renders the bundle's B.IOR lines with the resolved schema (ADR 0055):
// consumed operands only; unused non-zero fields, a RegDst or a second B.IOR
// keep the raw four-field text with a comment.
void shape_bior(ListingBuilder& b, std::size_t begin, std::size_t end, std::optional<isa::TileOp> op) {
  std::vector<Line>& lines = b.lines();
  bool seen = false;
  for (std::size_t i = begin; i < end; ++i) {
    Line& l = lines[i];
    if (!l.form || l.status != isa::DecodeStatus::Accepted || isa::form(*l.form).mnem != isa::Mnemonic::B_IOR) continue;
    const isa::FormDesc& f = isa::form(*l.form);
    const std::uint64_t bits = line_bits(l);
    if (seen) {
      b.replace(l, l.text(), "second B.IOR in the bundle (bundle-control fault; does not overwrite the first)");
      continue;
    }
    seen = true;
    if (!op) continue;  // no tile schema: raw
    const unsigned n = consumed_bior_inputs(lines, begin, end, *op);
    static constexpr std::string_view kSrc[] = {"RegSrc0", "RegSrc1", "RegSrc2"};
    bool unused_nonzero = field(f, "RegDst", bits) != 0;
    for (unsigned k = n; k < 3; ++k) unused_nonzero |= field(f, kSrc[k], bits) != 0;
    if (unused_nonzero) {
      b.replace(l, l.text(),
                fmt::format("field not consumed by the {} schema is non-zero (rejected at commit)", isa::tile_op(*op).name));
      continue;
    }
    std::string text = "B.IOR";
    for (unsigned k = 0; k < n; ++k)
      text += fmt::format("{}{}", k ? ", " : " ", as::gpr_name(static_cast<unsigned>(field(f, kSrc[k], bits))));
    b.replace(l, text, l.comment());
  }
}

void shape_bundles(ListingBuilder& b) {
  const std::vector<Line>& lines = b.lines();
  constexpr std::size_t kNone = ~std::size_t{0};
  std::size_t open = kNone;
  std::optional<isa::TileOp> op;
  auto close = [&](std::size_t end) {
    if (open != kNone) shape_bior(b, open, end, op);
    open = kNone;
    op.reset();
  };
  const std::vector<BundleRole>& roles = bundle_roles();
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const Line& l = lines[i];
    if (!l.form || l.status != isa::DecodeStatus::Accepted) continue;
    const BundleRole role = roles[*l.form];
    if (role == BundleRole::None) continue;
    const std::uint64_t bits = line_bits(l);
    if (starts_bundle(role, bits)) {
      close(i);
      open = i;
      if (isa::is_tile_start(isa::form(*l.form))) op = isa::tile_op_of_start(bits);
    } else if (role == BundleRole::Stop) {
      close(i);
    }
  }
  // A bundle without its terminator in the region has no complete context: raw.
}

}  // namespace

std::string data_directive(std::span<const std::uint8_t> bytes) {
  if (bytes.size() == 4) return fmt::format(".word {:#010x}", bytes[0] | bytes[1] << 8 | bytes[2] << 16 | std::uint32_t{bytes[3]} << 24);
  if (bytes.size() == 1) return fmt::format(".byte {:#04x}", bytes[0]);
  if (bytes.size() == 8) {
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < 8; ++i) v |= std::uint64_t{bytes[i]} << (8 * i);
    return fmt::format(".dword {:#018x}", v);
  }
  std::string out = ".half ";
  for (std::size_t i = 0; i + 1 < bytes.size(); i += 2)
    out += fmt::format("{}{:#06x}", i ? ", " : "", bytes[i] | bytes[i + 1] << 8);
  return out;
}

std::string status_comment(const isa::Decoded& d, std::uint64_t bits) {
  switch (d.status) {
    case isa::DecodeStatus::Accepted: return {};
    case isa::DecodeStatus::NoForm: return "no form matches";
    case isa::DecodeStatus::ExtensionReserved:
      return fmt::format("reserved: {} ({})", d.desc().mnemonic, d.desc().owner);
    case isa::DecodeStatus::ReservedInPto:
      return fmt::format("reserved in PTO: {} decodes but is rejected by the 0.58.3 model", d.desc().mnemonic);
    case isa::DecodeStatus::ReservedTileSelector:
      return fmt::format("reserved: BSTART.TEPL selector {:#04x} (Mode {}, Function {}) names no tile operation",
                         isa::tile_start_selector(bits), isa::tile_start_selector(bits) >> 5,
                         isa::tile_start_selector(bits) & 0x1F);
    case isa::DecodeStatus::ConstraintViolation: {
      const auto& f = d.desc();
      for (const auto& c : isa::constraints_of(f)) {
        if (c.field != d.failed_field) continue;
        const auto& fd = isa::fields_of(f)[c.field];
        const std::int64_t got = isa::field_value(fd, bits);
        const auto vals = isa::values_of(c);
        const bool gpr_field = c.op == isa::ConstraintOp::OneOf && vals.size() == 24 && vals.front() == 0 && vals.back() == 23;
        if (gpr_field)  // PTO-B-IOR-BINDING-001: absolute GPR fields reserve 24..31
          return fmt::format("illegal: {} {}: selector {} is reserved (24..31); {}", f.mnemonic, fd.name, got,
                             as::kGprExpectation);
        return fmt::format("illegal: {} {} (got {})", f.mnemonic, isa::describe_constraint(f, c), got);
      }
      return fmt::format("illegal: {} constraint violation", f.mnemonic);
    }
  }
  return {};
}

Listing disassemble(std::span<const std::uint8_t> bytes, std::uint64_t base, const Options& options) {
  Listing listing;
  ListingBuilder b(listing);
  b.lines().reserve(bytes.size() / 4 + 1);
  as::TextBuffer& store = b.store();
  if (options.text) store.reserve(bytes.size() * kTextBytesPerCodeByte);
  as::PrintContext ctx;
  ctx.symbolize = options.symbolize;
  ctx.syntax = options.syntax;
  std::size_t off = 0;
  while (off < bytes.size()) {
    Line& l = b.open(base + off);
    if (bytes.size() - off < 2) {
      set_bytes(l, bytes.subspan(off, 1));
      store += data_directive(l.bytes());
      b.end_text(l);
      break;
    }
    const unsigned len = isa::instruction_length_bits([&](unsigned i) -> std::optional<std::uint16_t> {
      const std::size_t at = off + 2 * std::size_t{i};
      if (at + 2 > bytes.size()) return std::nullopt;
      return halfword_at(bytes, at);
    });
    const std::size_t nbytes = len / 8;
    if (off + nbytes > bytes.size()) {  // truncated instruction at the end
      set_bytes(l, bytes.subspan(off, (bytes.size() - off) & ~std::size_t{1}));
      store += data_directive(l.bytes());
      b.end_text(l);
      store += fmt::format("truncated {}-bit instruction", len);
      b.end_comment(l);
      off += l.size;
      continue;
    }
    const std::uint64_t bits = take_word(l, bytes, off, nbytes);
    const isa::Decoded d = isa::decode(bits, len);
    l.length_bits = static_cast<std::uint8_t>(len);
    l.status = d.status;
    if (d.status != isa::DecodeStatus::NoForm) l.form = d.form;
    if (d.ok()) {
      if (options.text) {
        ctx.pc = l.address;
        if (auto why = as::always_illegal_reason(d.desc(), bits)) {  // text that `pto as` rejects: print data
          store += data_directive(l.bytes());
          b.end_text(l);
          store += "illegal: ";
          store += *why;
          b.end_comment(l);
        } else if (const std::uint64_t stray = bits & as::unowned_bits(d.desc())) {  // no text holds these bits
          store += data_directive(l.bytes());
          b.end_text(l);
          store += as::print_instruction(d.desc(), bits & ~stray, ctx);
          store += fmt::format(" with bits {:#x} set, which no field of {} owns (ignored by the ASL)", stray,
                               d.desc().form_id);
          b.end_comment(l);
        } else {
          as::append_instruction(store, d.desc(), bits, ctx);
          b.end_text(l);
        }
      }
    } else {
      store += data_directive(l.bytes());
      b.end_text(l);
      store += status_comment(d, bits);
      b.end_comment(l);
    }
    off += nbytes;
  }
  if (options.bundle_aware && options.text && options.syntax == as::Syntax::Canonical) shape_bundles(b);
  return listing;
}

void append_bytes_text(as::TextBuffer& out, std::span<const std::uint8_t> bytes) {
  static constexpr char kDigits[] = "0123456789abcdef";
  for (std::size_t i = 0; i < bytes.size(); ++i) {
    const char pair[] = {' ', kDigits[bytes[i] >> 4], kDigits[bytes[i] & 15]};
    out += i ? std::string_view(pair, 3) : std::string_view(pair + 1, 2);
  }
}

void append_listing_line(as::TextBuffer& out, const Line& l, bool with_bytes) {
  constexpr int kAddressWidth = 8;
  constexpr std::size_t kBytesWidth = 24;
  constexpr std::string_view kSpaces = "                        ";  // the widest padding
  static_assert(kSpaces.size() >= kBytesWidth && kSpaces.size() >= kAddressWidth);
  const int digits = (std::max(static_cast<int>(std::bit_width(l.address)), 1) + 3) / 4;
  if (digits < kAddressWidth) out += kSpaces.substr(0, static_cast<std::size_t>(kAddressWidth - digits));
  as::append_hex_digits(out, l.address);
  out += ":  ";
  if (with_bytes) {
    const std::size_t start = out.size();
    append_bytes_text(out, l.bytes());
    const std::size_t width = out.size() - start;
    if (width < kBytesWidth) out += kSpaces.substr(0, kBytesWidth - width);
    out += ' ';
  }
  out += l.text();
  if (!l.comment().empty()) {
    out += "  # ";
    out += l.comment();
  }
  out += '\n';
}

std::vector<std::uint64_t> label_targets(std::span<const Line> lines) {
  std::set<std::uint64_t> out;
  for (const Line& l : lines) {
    if (!l.form || l.status != isa::DecodeStatus::Accepted) continue;
    const isa::FormDesc& f = isa::form(*l.form);
    const std::uint64_t bits = line_bits(l);
    for (const as::Item& it : as::syntax_of(*l.form).items) {
      if (it.kind != as::ItemKind::Label) continue;
      out.insert(as::label_target(it, isa::field_value(isa::fields_of(f)[static_cast<std::size_t>(it.f0)], bits), l.address));
    }
  }
  return {out.begin(), out.end()};
}

}  // namespace pto::dis
