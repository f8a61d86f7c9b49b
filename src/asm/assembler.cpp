#include "asm/assembler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <cctype>
#include <unordered_map>
#include <unordered_set>

#include "asm/linker_script.hpp"
#include "asm/syntax.hpp"
#include "asm/text.hpp"

namespace pto::as {

std::string Diagnostic::format() const {
  const std::string shown_message = escape_control(message);
  if (line == 0) return fmt::format("{}: error: {}\n", file, shown_message);  // not tied to a source line
  // The caret sits under the escaped text of the columns before it.
  const std::size_t before = std::min(column > 0 ? column - 1 : 0, source.size());
  std::string caret = escape_control(std::string_view(source).substr(0, before));
  for (char& ch : caret)
    if (ch != '\t') ch = ' ';
  caret.resize(std::max(caret.size(), column > 0 ? column - 1 + (caret.size() - before) : 0), ' ');
  return fmt::format("{}:{}:{}: error: {}\n  {}\n  {}^\n", file, line, column, shown_message, escape_control(source),
                     caret);
}

namespace {

constexpr int kMaxPasses = 4;

struct SectionState {
  std::string name;
  std::uint32_t type = elf::SHT_PROGBITS;
  std::uint64_t flags = elf::SHF_ALLOC;
  std::optional<std::uint64_t> fixed_start;  // --section-start or .section address operand
  std::uint64_t start = 0;                   // this pass's address
  std::vector<std::uint8_t> data;
  std::uint64_t size = 0;  // NOBITS size / data size
  std::uint64_t align = 2;
};

struct SymbolState {
  int section = -1;  // -1: absolute (.set)
  std::uint64_t offset = 0;
  std::int64_t value = 0;  // absolute value for section -1
  bool defined = false;
  int pass_defined = -1;  // duplicate definitions are detected per pass
  bool global = false;
  bool local_directive = false;
  std::uint8_t type = elf::STT_NOTYPE;
  std::uint64_t size = 0;
  std::size_t line = 0;
};

struct Statement {
  std::string_view text;  // without comments
  std::size_t offset;     // of `text` within the source line
};

// Splits a line into statements at ';' and drops '#' and '//' comments, both
// outside string literals.  '#' after an identifier character (t#1, T#3) is
// part of the operand.  `out` is reused across lines (no allocation per line).
void split_statements(std::string_view line, std::vector<Statement>& out) {
  out.clear();
  std::size_t start = 0;
  bool in_string = false;
  std::size_t i = 0;
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == ';') {
      out.push_back({line.substr(start, i - start), start});
      start = i + 1;
    } else if ((c == '#' && (i == 0 || !is_alnum(line[i - 1]))) ||
               (c == '/' && i + 1 < line.size() && line[i + 1] == '/')) {
      break;
    }
  }
  out.push_back({line.substr(start, i - start), start});
}

class Assembler : public ExprEnv {
 public:
  Assembler(std::string_view source, std::string_view file, const Options& opt)
      : source_(source), file_(file), opt_(opt) {
    std::size_t p = 0;
    while (p <= source_.size()) {
      const std::size_t e = source_.find('\n', p);
      std::string_view l = source_.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      lines_.push_back(l);
      if (e == std::string_view::npos) break;
      p = e + 1;
    }
  }

  Result run() {
    Result r;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      pass_ = pass;
      final_ = pass == kMaxPasses - 1 || (pass > 0 && stable_);
      run_pass();
      if (final_) break;
      layout();
    }
    r.diagnostics = std::move(diags_);
    if (r.diagnostics.empty()) finish(r);
    r.listing = std::move(listing_);
    if (!r.diagnostics.empty()) r.image.reset();
    return r;
  }

  // ExprEnv
  std::optional<std::int64_t> symbol(std::string_view name) const override {
    const auto it = symbols_.find(std::string(name));
    if (it != symbols_.end() && it->second.defined) return value_of(it->second);
    if (const auto sym = script_symbols_.find(std::string(name)); sym != script_symbols_.end()) {
      script_references_.insert(sym->first);
      return static_cast<std::int64_t>(sym->second);
    }
    return std::nullopt;
  }
  std::optional<std::int64_t> local_label(unsigned n, bool forward) const override {
    const auto it = locals_.find(n);
    if (it == locals_.end()) return std::nullopt;
    // Definitions in source order; pick the nearest before/after this statement.
    const auto& defs = it->second;
    if (forward) {
      for (const auto& d : defs)
        if (d.first > stmt_index_) return static_cast<std::int64_t>(sections_[d.second.first].start + d.second.second);
    } else {
      for (auto d = defs.rbegin(); d != defs.rend(); ++d)
        if (d->first <= stmt_index_)
          return static_cast<std::int64_t>(sections_[d->second.first].start + d->second.second);
    }
    return std::nullopt;
  }
  std::uint64_t dot() const override { return here(); }
  bool final_pass() const override { return final_; }

 private:
  // ---- state per pass ----
  std::uint64_t here() const { return sections_[cur_].start + offset(); }
  std::uint64_t offset() const { return sections_[cur_].size; }
  std::int64_t value_of(const SymbolState& s) const {
    return s.section < 0 ? s.value
                         : static_cast<std::int64_t>(sections_[static_cast<std::size_t>(s.section)].start + s.offset);
  }

  void error(std::size_t column, std::string message) {
    if (!final_) return;  // earlier passes only compute sizes
    diags_.push_back({std::string(file_), line_no_ + 1, column + 1, escape_control(message), std::string(lines_[line_no_])});
  }

  int section_index(std::string_view name) {
    for (std::size_t i = 0; i < sections_.size(); ++i)
      if (sections_[i].name == name) return static_cast<int>(i);
    SectionState s;
    s.name = std::string(name);
    if (name == ".text" || name.starts_with(".text.")) s.flags = elf::SHF_ALLOC | elf::SHF_EXECINSTR;
    else if (name == ".data" || name.starts_with(".data.")) s.flags = elf::SHF_ALLOC | elf::SHF_WRITE;
    else if (name == ".bss" || name.starts_with(".bss.")) s.flags = elf::SHF_ALLOC | elf::SHF_WRITE, s.type = elf::SHT_NOBITS;
    else if (name == ".rodata" || name.starts_with(".rodata.")) s.flags = elf::SHF_ALLOC;
    if (const auto it = opt_.section_start.find(s.name); it != opt_.section_start.end()) s.fixed_start = it->second;
    sections_.push_back(std::move(s));
    placed_by_org_.push_back(false);
    return static_cast<int>(sections_.size() - 1);
  }

  void run_pass() {
    for (auto& s : sections_) {
      s.data.clear();
      s.size = 0;
    }
    listing_.clear();
    cur_ = static_cast<std::size_t>(section_index(".text"));
    if (script()) add_identity_note();
    stmt_index_ = 0;
    for (line_no_ = 0; line_no_ < lines_.size(); ++line_no_) {
      split_statements(lines_[line_no_], statements_);
      for (const Statement& st : statements_) {
        ++stmt_index_;
        statement(st);
      }
    }
  }

  void define_label(std::string_view name, std::size_t column) {
    if (std::all_of(name.begin(), name.end(), is_digit)) {
      unsigned n = 0;
      const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
      if (ec != std::errc{} || end != name.data() + name.size()) {
        error(column, fmt::format("local label number '{}' is too large (at most {})", name,
                                  std::numeric_limits<unsigned>::max()));
        return;
      }
      auto& defs = locals_[n];
      const std::pair<std::size_t, std::uint64_t> where{cur_, offset()};
      auto it = std::find_if(defs.begin(), defs.end(), [&](const auto& d) { return d.first == stmt_index_; });
      if (it == defs.end()) defs.push_back({stmt_index_, where});
      else it->second = where;
      return;
    }
    SymbolState& s = symbols_[std::string(name)];
    if (s.pass_defined == pass_) {
      error(column, fmt::format("symbol '{}' is already defined (line {})", name, s.line));
      return;
    }
    s.defined = true;
    s.pass_defined = pass_;
    s.section = static_cast<int>(cur_);
    s.offset = offset();
    s.line = line_no_ + 1;
  }

  void statement(const Statement& st) {
    const std::string_view line = lines_[line_no_];
    Cursor c(line, st.offset);
    const std::size_t end = st.offset + st.text.size();
    const std::string_view view = line.substr(0, end);
    Cursor sc(view, st.offset);
    // Labels.
    while (true) {
      sc.skip_ws();
      const std::size_t col = sc.pos();
      std::size_t p = col;
      while (p < view.size() && (is_alnum(view[p]) || view[p] == '_' || view[p] == '.' ||
                                 view[p] == '$'))
        ++p;
      if (p > col && p < view.size() && view[p] == ':') {
        define_label(view.substr(col, p - col), col);
        sc.set_pos(p + 1);
        continue;
      }
      break;
    }
    if (sc.at_end()) return;
    const std::size_t col = sc.pos();
    const std::uint64_t at = here();
    const std::size_t size_before = sections_[cur_].data.size();
    const std::size_t sec_before = cur_;
    try {
      if (view[col] == '.') directive(sc, view);
      else instruction(view, col);
    } catch (const ParseFailure& f) {
      error(f.error.column, f.error.message);
    }
    if (opt_.listing && final_ && cur_ == sec_before && sections_[cur_].data.size() > size_before) {
      const auto& d = sections_[cur_].data;
      listing_.push_back({sections_[cur_].name, at,
                          {d.begin() + static_cast<std::ptrdiff_t>(size_before), d.end()},
                          line_no_ + 1,
                          std::string(line)});
    }
  }

  void emit(std::uint64_t value, unsigned bytes) {
    SectionState& s = sections_[cur_];
    if (s.type == elf::SHT_NOBITS) {
      s.size += bytes;
      return;
    }
    for (unsigned i = 0; i < bytes; ++i) s.data.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    s.size = s.data.size();
  }

  void fill(std::uint64_t count, std::uint8_t byte, std::size_t column) {
    if (count > (1ull << 28)) {
      error(column, fmt::format("fill of {} bytes is too large", count));
      return;
    }
    SectionState& s = sections_[cur_];
    if (s.type == elf::SHT_NOBITS) {
      s.size += count;
      return;
    }
    s.data.insert(s.data.end(), count, byte);
    s.size = s.data.size();
  }

  void instruction(std::string_view view, std::size_t col) {
    SectionState& s = sections_[cur_];
    if (s.type == elf::SHT_NOBITS) throw ParseFailure{{col, fmt::format("instruction in section {} which holds no data", s.name)}};
    const std::uint64_t pc = here();
    if (!final_) {  // sizing pass: the mnemonic alone fixes the length of most instructions
      std::size_t end = col;
      while (end < view.size() && view[end] != ' ' && view[end] != '\t') ++end;
      if (const auto len = fixed_length_of(view.substr(col, end - col))) {
        emit(0, *len / 8);
        return;
      }
    }
    const ParsedInstruction p = parse_instruction(view, col, pc, *this);
    if (pc & 1) error(col, fmt::format("instruction at odd address {:#x}", pc));
    // Instruction parcels are little-endian halfwords, lowest first.
    emit(p.bits, p.length_bits / 8);
  }

  std::int64_t expression(Cursor& c) {
    const ExprValue v = parse_expression(c, *this);
    return v.value;
  }

  std::string string_literal(Cursor& c) {
    c.skip_ws();
    if (c.peek() != '"') c.fail("expected a string literal");
    const std::string_view l = c.line();
    std::size_t p = c.pos() + 1;
    std::string out;
    while (p < l.size() && l[p] != '"') {
      char ch = l[p++];
      if (ch == '\\' && p < l.size()) {
        const char e = l[p++];
        switch (e) {
          case 'n': ch = '\n'; break;
          case 't': ch = '\t'; break;
          case 'r': ch = '\r'; break;
          case '0': ch = '\0'; break;
          case '\\': ch = '\\'; break;
          case '"': ch = '"'; break;
          default: c.fail_at(p - 2, fmt::format("unknown escape '\\{}'", e));
        }
      }
      out += ch;
    }
    if (p >= l.size()) c.fail("unterminated string literal");
    c.set_pos(p + 1);
    return out;
  }

  void data_values(Cursor& c, unsigned bytes) {
    do {
      c.skip_ws();
      const std::size_t col = c.pos();
      const std::int64_t v = expression(c);
      if (bytes < 8) {
        const std::int64_t lo = -(std::int64_t{1} << (8 * bytes - 1));
        const std::int64_t hi = (std::int64_t{1} << (8 * bytes)) - 1;
        if (v < lo || v > hi) error(col, fmt::format("value {} does not fit in {} byte{}", v, bytes, bytes > 1 ? "s" : ""));
      }
      emit(static_cast<std::uint64_t>(v), bytes);
    } while (c.accept(","));
  }

  void align_to(std::uint64_t bytes, std::size_t col) {
    if (bytes == 0 || (bytes & (bytes - 1)) || bytes > 4096) {
      error(col, fmt::format("alignment {} is not a power of two up to 4096", bytes));
      return;
    }
    SectionState& s = sections_[cur_];
    s.align = std::max(s.align, bytes);
    const std::uint64_t pad = (bytes - here() % bytes) % bytes;
    fill(pad, 0, col);
  }

  void section_directive(Cursor& c) {
    c.skip_ws();
    const std::size_t col = c.pos();
    std::string_view name = c.ident();
    if (name.empty()) c.fail("expected a section name");
    cur_ = static_cast<std::size_t>(section_index(name));
    SectionState& s = sections_[cur_];
    if (!c.accept(",")) return;
    const std::string flags = string_literal(c);
    s.flags = 0;
    for (char f : flags) {
      if (f == 'a') s.flags |= elf::SHF_ALLOC;
      else if (f == 'w') s.flags |= elf::SHF_WRITE;
      else if (f == 'x') s.flags |= elf::SHF_EXECINSTR;
      else c.fail_at(col, fmt::format("unknown section flag '{}'", f));
    }
    if (!c.accept(",")) return;
    if (c.accept("@nobits") || c.accept("%nobits")) s.type = elf::SHT_NOBITS;
    else if (c.accept("@progbits") || c.accept("%progbits")) s.type = elf::SHT_PROGBITS;
    else c.fail("expected @progbits or @nobits");
    if (!c.accept(",")) return;
    // PTO extension: the section's load address (used by `pto dis --reassemble`).
    c.skip_ws();
    const std::size_t acol = c.pos();
    const ExprValue v = parse_expression(c, *this);
    if (!v.resolved) c.fail_at(acol, "section address must be a constant");
    if (script()) c.fail_at(acol, "a section address cannot be combined with a linker script; place the section in the script");
    if (!opt_.section_start.count(s.name)) s.fixed_start = static_cast<std::uint64_t>(v.value);
  }

  void symbol_attribute(Cursor& c, std::string_view dir) {
    do {
      const std::string_view name = c.ident();
      if (name.empty()) c.fail("expected a symbol name");
      SymbolState& s = symbols_[std::string(name)];
      if (dir == ".local") s.local_directive = true;
      else s.global = true;
    } while (c.accept(","));
  }

  void directive(Cursor& c, std::string_view view) {
    const std::size_t col = c.pos();
    const std::string dir = to_lower(c.ident());
    if (dir == ".text" || dir == ".data" || dir == ".bss") {
      cur_ = static_cast<std::size_t>(section_index(dir));
    } else if (dir == ".section") {
      section_directive(c);
    } else if (dir == ".globl" || dir == ".global" || dir == ".local") {
      symbol_attribute(c, dir);
    } else if (dir == ".byte") {
      data_values(c, 1);
    } else if (dir == ".half" || dir == ".short" || dir == ".2byte") {
      data_values(c, 2);
    } else if (dir == ".word" || dir == ".long" || dir == ".4byte") {
      data_values(c, 4);
    } else if (dir == ".dword" || dir == ".quad" || dir == ".8byte") {
      data_values(c, 8);
    } else if (dir == ".zero" || dir == ".space" || dir == ".skip") {
      c.skip_ws();
      const std::size_t acol = c.pos();
      const ExprValue n = parse_expression(c, *this);
      std::int64_t byte = 0;
      if (c.accept(",")) byte = expression(c);
      if (!n.resolved) c.fail_at(acol, "size must be a constant or a backward reference");
      if (n.value < 0) c.fail_at(acol, fmt::format("negative size {}", n.value));
      fill(static_cast<std::uint64_t>(n.value), static_cast<std::uint8_t>(byte), acol);
    } else if (dir == ".ascii" || dir == ".asciz" || dir == ".string") {
      do {
        for (char ch : string_literal(c)) emit(static_cast<unsigned char>(ch), 1);
        if (dir != ".ascii") emit(0, 1);
      } while (c.accept(","));
    } else if (dir == ".align" || dir == ".p2align" || dir == ".balign") {
      c.skip_ws();
      const std::size_t acol = c.pos();
      const std::int64_t v = expression(c);
      if (v < 0 || v > 12) {
        if (dir != ".balign") c.fail_at(acol, fmt::format("alignment exponent {} is out of range [0, 12]", v));
      }
      align_to(dir == ".balign" ? static_cast<std::uint64_t>(v) : (std::uint64_t{1} << std::clamp<std::int64_t>(v, 0, 12)), acol);
    } else if (dir == ".org") {
      c.skip_ws();
      const std::size_t acol = c.pos();
      const ExprValue v = parse_expression(c, *this);
      if (!v.resolved) c.fail_at(acol, ".org needs a constant address");
      const std::uint8_t fill_byte = c.accept(",") ? static_cast<std::uint8_t>(expression(c)) : 0;  // .org ADDR[, FILL]
      const auto target = static_cast<std::uint64_t>(v.value);
      SectionState& s = sections_[cur_];
      if (s.size == 0 && !s.fixed_start && !placed_by_org_[cur_] && !script()) {
        s.fixed_start = target;  // the section begins at its first .org
        placed_by_org_[cur_] = true;
        s.start = target;
      }
      if (target < here()) {
        error(acol, fmt::format(".org {:#x} moves backwards (current address {:#x})", target, here()));
        return;
      }
      fill(target - here(), fill_byte, acol);
    } else if (dir == ".set" || dir == ".equ") {
      const std::string_view name = c.ident();
      if (name.empty() || !c.accept(",")) c.fail(fmt::format("expected '{} name, expression'", dir));
      const ExprValue v = parse_expression(c, *this);
      SymbolState& s = symbols_[std::string(name)];
      s.section = -1;
      s.value = v.value;
      s.defined = v.resolved;
      s.line = line_no_ + 1;
    } else if (dir == ".type") {
      const std::string_view name = c.ident();
      if (name.empty() || !c.accept(",")) c.fail("expected '.type name, @function|@object'");
      SymbolState& s = symbols_[std::string(name)];
      if (c.accept("@function") || c.accept("%function") || c.accept("STT_FUNC")) s.type = elf::STT_FUNC;
      else if (c.accept("@object") || c.accept("%object") || c.accept("STT_OBJECT")) s.type = elf::STT_OBJECT;
      else if (c.accept("@notype") || c.accept("%notype")) s.type = elf::STT_NOTYPE;
      else c.fail("expected @function, @object or @notype");
    } else if (dir == ".size") {
      const std::string_view name = c.ident();
      if (name.empty() || !c.accept(",")) c.fail("expected '.size name, expression'");
      const ExprValue v = parse_expression(c, *this);
      symbols_[std::string(name)].size = static_cast<std::uint64_t>(v.value);
    } else {
      c.fail_at(col, fmt::format("unknown directive '{}'", dir));
    }
    if (!c.at_end()) c.fail(fmt::format("unexpected '{}' after {}", view.substr(c.pos()), dir));
  }

  // Places sections without a fixed start after the previous ones.
  void layout() {
    if (script()) {
      stable_ = apply_script_layout(run_script_layout());
      return;
    }
    std::vector<std::uint64_t> before;
    for (const auto& s : sections_) before.push_back(s.start);
    std::uint64_t next = opt_.default_text_start;
    for (auto& s : sections_) {
      if (s.fixed_start) {
        s.start = *s.fixed_start;
      } else {
        const std::uint64_t a = std::max<std::uint64_t>(s.align, 16);
        s.start = (next + a - 1) / a * a;
      }
      next = std::max(next, s.start + s.size);
    }
    stable_ = true;
    for (std::size_t i = 0; i < sections_.size(); ++i)
      if (i >= before.size() || before[i] != sections_[i].start) stable_ = false;
  }

  void finish(Result& r) {
    elf::Image im;
    im.type = elf::ET_EXEC;
    im.identity = elf::our_identity();
    if (script()) place_with_script(im, r);
    else place_sections(im, r);
    add_symbols(im, r);
    set_entry(im, r);
    if (r.diagnostics.empty()) r.image = std::move(im);
  }

  // One PT_LOAD per non-empty allocated section.
  void place_sections(elf::Image& im, Result& r) {
    shndx_.assign(sections_.size(), elf::SHN_UNDEF);
    struct Range {
      std::uint64_t begin, end;
      std::size_t s;
    };
    std::vector<Range> ranges;
    for (std::size_t i = 0; i < sections_.size(); ++i) {
      const SectionState& s = sections_[i];
      if (s.size == 0 && s.name != ".text") continue;
      im.sections.push_back({s.name, s.type, s.flags, s.start, s.size, s.data});
      shndx_[i] = static_cast<std::uint16_t>(im.sections.size());
      if (s.size == 0 || !(s.flags & elf::SHF_ALLOC)) continue;
      std::uint32_t pf = elf::PF_R;
      if (s.flags & elf::SHF_WRITE) pf |= elf::PF_W;
      if (s.flags & elf::SHF_EXECINSTR) pf |= elf::PF_X;
      im.segments.push_back({s.start, s.size, pf, s.data});
      ranges.push_back({s.start, s.start + s.size, i});
    }
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < ranges.size(); ++i) {
      if (ranges[i].begin < ranges[i - 1].end) {
        const auto& a = sections_[ranges[i - 1].s];
        const auto& b = sections_[ranges[i].s];
        r.diagnostics.push_back({std::string(file_), 0, 0,
                                 fmt::format("sections {} [{:#x}, {:#x}) and {} [{:#x}, {:#x}) overlap", a.name,
                                             a.start, a.start + a.size, b.name, b.start, b.start + b.size),
                                 ""});
      }
    }
  }

  void add_symbols(elf::Image& im, Result& r) {
    for (const auto& [name, s] : symbols_) {
      if (!s.defined) {
        if (s.global)
          r.diagnostics.push_back({std::string(file_), 0, 0, fmt::format("global symbol '{}' is never defined", name), ""});
        continue;
      }
      const std::uint16_t shndx = s.section < 0 ? elf::SHN_ABS : shndx_[static_cast<std::size_t>(s.section)];
      im.symbols.push_back({name, static_cast<std::uint64_t>(value_of(s)), s.size, s.type,
                            s.global && !s.local_directive ? elf::STB_GLOBAL : elf::STB_LOCAL, shndx});
    }
  }

  // --entry, then the script's ENTRY, then _start, then the start of .text.
  void set_entry(elf::Image& im, Result& r) {
    const ScriptName* from_script = script() && script()->entry ? &*script()->entry : nullptr;
    const std::string entry = opt_.entry ? *opt_.entry : from_script ? from_script->name : "_start";
    if (const auto v = symbol(entry)) {
      im.entry = static_cast<std::uint64_t>(*v);
    } else if (opt_.entry) {
      r.diagnostics.push_back({std::string(file_), 0, 0, fmt::format("entry symbol '{}' is not defined", entry), ""});
    } else if (from_script) {
      r.diagnostics.push_back(
          script_diagnostic(*script(), from_script->at, fmt::format("entry symbol '{}' is not defined", entry)));
    } else {
      im.entry = sections_[0].start;  // .text
    }
  }

  // ---- linker script (-T, docs/assembly.md "Linker scripts") ----
  const LinkerScript* script() const { return opt_.linker_script.get(); }

  // With a script the identity note is an input section that the script
  // places, as in an object file: SHT_NOTE, SHF_ALLOC, alignment 4.
  void add_identity_note() {
    const std::size_t text = cur_;
    cur_ = static_cast<std::size_t>(section_index(elf::kIdentitySectionName));
    SectionState& s = sections_[cur_];
    s.type = elf::SHT_NOTE;
    s.flags = elf::SHF_ALLOC;
    s.align = 4;
    s.data = elf::identity_note_bytes(elf::our_identity());
    s.size = s.data.size();
    cur_ = text;
  }

  ScriptLayout run_script_layout() const {
    std::vector<InputSection> inputs;
    for (const SectionState& s : sections_) inputs.push_back({s.name, s.type, s.flags, s.size, s.align, s.data});
    return layout_script(*script(), inputs);
  }

  // Takes the layout's addresses and script symbols; true when no section moved.
  bool apply_script_layout(const ScriptLayout& l) {
    bool same = true;
    for (std::size_t i = 0; i < sections_.size(); ++i) {
      same = same && sections_[i].start == l.input_address[i];
      sections_[i].start = l.input_address[i];
    }
    script_symbols_.clear();
    for (const ScriptSymbol& sym : l.symbols) script_symbols_[sym.name] = sym.value;
    return same;
  }

  void place_with_script(elf::Image& im, Result& r) {
    shndx_.assign(sections_.size(), elf::SHN_UNDEF);
    ScriptLayout l = run_script_layout();
    const bool converged = apply_script_layout(l);
    r.diagnostics.insert(r.diagnostics.end(), l.diagnostics.begin(), l.diagnostics.end());
    if (!opt_.section_start.empty())
      r.diagnostics.push_back({std::string(file_), 0, 0, "--section-start cannot be combined with a linker script", ""});
    if (!r.diagnostics.empty()) return;
    if (!converged)
      r.diagnostics.push_back({std::string(file_), 0, 0, "section addresses did not converge under the linker script", ""});
    for (std::size_t i = 0; i < sections_.size(); ++i)
      if (l.input_output[i]) shndx_[i] = static_cast<std::uint16_t>(*l.input_output[i] + 1);
    for (const auto& [name, s] : symbols_)
      if (s.defined && s.section >= 0 && !l.input_output[static_cast<std::size_t>(s.section)])
        r.diagnostics.push_back({std::string(file_), s.line, 1,
                                 fmt::format("symbol '{}' is defined in section {}, which the linker script discards",
                                             name, sections_[static_cast<std::size_t>(s.section)].name),
                                 std::string(lines_[s.line - 1])});
    for (const ScriptSymbol& sym : l.symbols) {
      const auto it = symbols_.find(sym.name);
      const bool in_source = it != symbols_.end() && it->second.defined;
      if (sym.provide && in_source && std::count(l.used_symbols.begin(), l.used_symbols.end(), sym.name)) {
        // ld would give the script's later expressions the source's value.
        r.diagnostics.push_back(script_diagnostic(
            *script(), sym.at,
            fmt::format("PROVIDE symbol '{}' is defined in {} (line {}) and used by the script", sym.name, file_,
                        it->second.line)));
        continue;
      }
      if (sym.provide && (in_source || !script_references_.count(sym.name))) continue;  // as ld's PROVIDE
      if (in_source) {
        r.diagnostics.push_back(script_diagnostic(
            *script(), sym.at, fmt::format("symbol '{}' is also defined in {} (line {})", sym.name, file_, it->second.line)));
        continue;
      }
      im.symbols.push_back({sym.name, sym.value, 0, elf::STT_NOTYPE, elf::STB_GLOBAL, elf::SHN_ABS});
    }
    im.sections = std::move(l.sections);
    im.segments = std::move(l.segments);
  }

  std::string_view source_;
  std::string_view file_;
  const Options& opt_;
  std::vector<std::string_view> lines_;
  std::vector<Statement> statements_;  // of the current line
  std::vector<SectionState> sections_;
  std::vector<bool> placed_by_org_;
  std::unordered_map<std::string, SymbolState> symbols_;
  std::unordered_map<std::string, std::uint64_t> script_symbols_;  // from the last script layout
  mutable std::unordered_set<std::string> script_references_;      // script symbols the source used
  std::vector<std::uint16_t> shndx_;  // ELF section index per section (finish)
  // Numeric local labels: label -> (statement index, (section, offset)).
  std::unordered_map<unsigned, std::vector<std::pair<std::size_t, std::pair<std::size_t, std::uint64_t>>>> locals_;
  std::vector<Diagnostic> diags_;
  std::vector<ListingEntry> listing_;
  std::size_t cur_ = 0;
  std::size_t line_no_ = 0;
  std::size_t stmt_index_ = 0;
  bool final_ = false;
  bool stable_ = false;
  int pass_ = 0;
};

}  // namespace

Result assemble(std::string_view source, std::string_view file_name, const Options& options) {
  return Assembler(source, file_name, options).run();
}

std::vector<std::uint8_t> flat_binary(const elf::Image& image, std::uint64_t& base) {
  base = 0;
  if (image.segments.empty()) return {};
  std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
  for (const auto& s : image.segments) {
    if (s.data.empty()) continue;
    lo = std::min(lo, s.vaddr);
    hi = std::max(hi, s.vaddr + s.data.size());
  }
  if (lo > hi) return {};
  base = lo;
  std::vector<std::uint8_t> out(hi - lo, 0);
  for (const auto& s : image.segments)
    std::copy(s.data.begin(), s.data.end(), out.begin() + static_cast<std::ptrdiff_t>(s.vaddr - lo));
  return out;
}

}  // namespace pto::as
