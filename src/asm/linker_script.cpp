#include "asm/linker_script.hpp"

#include <fmt/format.h>
#include <fnmatch.h>

#include <algorithm>
#include <array>
#include <limits>
#include <map>

#include "asm/text.hpp"

namespace pto::as {
namespace {

constexpr std::uint64_t kMax = std::numeric_limits<std::uint64_t>::max();

// Thrown by the parser and the evaluator; `at` is a byte offset in the script.
struct ScriptFailure {
  std::size_t at;
  std::string message;
};

[[noreturn]] void fail(std::size_t at, std::string message) { throw ScriptFailure{at, std::move(message)}; }

// Characters of a name in ld's script mode (section names, patterns, symbols);
// ':' and '=' end a name so that `.text:` and `.=` read as in ld.
constexpr bool is_name_char(char c) {
  return is_alnum(c) || c == '_' || c == '.' || c == '$' || c == '/' || c == '\\' || c == '-' || c == '*' ||
         c == '?' || c == '[' || c == ']' || c == '~';
}

constexpr bool is_symbol_start(char c) { return is_alpha(c) || c == '_' || c == '.' || c == '$'; }
constexpr bool is_symbol_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '$'; }

bool is_symbol_name(std::string_view s) {
  return !s.empty() && is_symbol_start(s[0]) && std::all_of(s.begin() + 1, s.end(), is_symbol_char);
}

// Scanner over the script text: whitespace and /* */ comments are skipped
// before every token.
class Scanner {
 public:
  explicit Scanner(std::string_view text, std::size_t pos = 0) : t_(text), pos_(pos) {}
  std::size_t pos() const { return pos_; }

  void skip_ws() {
    while (pos_ < t_.size()) {
      if (t_[pos_] == ' ' || t_[pos_] == '\t' || t_[pos_] == '\n' || t_[pos_] == '\r' || t_[pos_] == '\f') {
        ++pos_;
      } else if (t_.substr(pos_, 2) == "/*") {
        const std::size_t end = t_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) fail(pos_, "unterminated comment");
        pos_ = end + 2;
      } else {
        break;
      }
    }
  }
  bool at_end() {
    skip_ws();
    return pos_ >= t_.size();
  }
  char peek() {
    skip_ws();
    return pos_ < t_.size() ? t_[pos_] : '\0';
  }
  char peek2() {
    skip_ws();
    return pos_ + 1 < t_.size() ? t_[pos_ + 1] : '\0';
  }
  bool accept(char c) {
    if (peek() != c) return false;
    ++pos_;
    return true;
  }
  void expect(char c, std::string_view what) {
    if (!accept(c)) fail(pos_, fmt::format("expected '{}' {}", c, what));
  }
  // A script-mode name (may be empty); its offset is in `at`.
  std::string name(std::size_t& at) {
    skip_ws();
    at = pos_;
    while (pos_ < t_.size() && is_name_char(t_[pos_]) && t_.substr(pos_, 2) != "/*") ++pos_;
    return std::string(t_.substr(at, pos_ - at));
  }
  std::string symbol(std::size_t& at) {
    skip_ws();
    at = pos_;
    if (pos_ < t_.size() && is_symbol_start(t_[pos_])) {
      ++pos_;
      while (pos_ < t_.size() && is_symbol_char(t_[pos_])) ++pos_;
    }
    return std::string(t_.substr(at, pos_ - at));
  }
  void set_pos(std::size_t p) { pos_ = p; }

 private:
  std::string_view t_;
  std::size_t pos_;
};

// ---------------------------------------------------------------------------
// Expressions: numbers, '.', symbols defined earlier in the script,
// + - * / % << >> & | ~ unary -, parentheses, ALIGN(n) and ALIGN(expr, n).
// Unsigned 64-bit arithmetic as in ld; '+' and '*' that wrap are errors.

struct EvalContext {
  std::optional<std::uint64_t> dot;  // nullopt: '.' is not available here
  const std::map<std::string, std::uint64_t>* symbols = nullptr;  // nullptr: syntax check only
  std::vector<std::string>* used = nullptr;                       // records the symbols read
};

std::uint64_t align_up(std::uint64_t value, std::uint64_t align, std::size_t at) {
  if (align <= 1) return value;
  const std::uint64_t rem = value % align;
  if (rem == 0) return value;
  if (align - rem > kMax - value) fail(at, fmt::format("ALIGN({:#x}, {:#x}) wraps past 2^64", value, align));
  return value + (align - rem);
}

class Evaluator {
 public:
  Evaluator(std::string_view text, std::size_t pos, const EvalContext& ctx) : s_(text, pos), text_(text), ctx_(ctx) {}

  std::uint64_t run() { return bit_or(); }
  std::size_t end() const { return s_.pos(); }
  bool used_dot() const { return used_dot_; }

 private:
  bool checking() const { return ctx_.symbols == nullptr; }

  // Accepts operator `op` unless it is the start of a longer operator.
  bool accept_op(std::string_view op) {
    s_.skip_ws();
    const std::size_t p = s_.pos();
    if (text_.substr(p, op.size()) != op) return false;
    const char next = p + op.size() < text_.size() ? text_[p + op.size()] : '\0';
    if (next == '=' || (op.size() == 1 && (next == op[0] || (op == "/" && next == '*')))) return false;
    s_.set_pos(p + op.size());
    return true;
  }

  std::uint64_t bit_or() {
    std::uint64_t v = bit_and();
    while (accept_op("|")) v |= bit_and();
    return v;
  }
  std::uint64_t bit_and() {
    std::uint64_t v = shift();
    while (accept_op("&")) v &= shift();
    return v;
  }
  std::uint64_t shift() {
    std::uint64_t v = additive();
    while (true) {
      if (accept_op("<<")) v = shifted(v, additive(), true);
      else if (accept_op(">>")) v = shifted(v, additive(), false);
      else return v;
    }
  }
  static std::uint64_t shifted(std::uint64_t v, std::uint64_t n, bool left) {
    if (n >= 64) return 0;
    return left ? v << n : v >> n;
  }
  std::uint64_t additive() {
    std::uint64_t v = multiplicative();
    while (true) {
      s_.skip_ws();
      const std::size_t at = s_.pos();
      if (accept_op("+")) {
        const std::uint64_t r = multiplicative();
        if (!checking() && r > kMax - v) fail(at, fmt::format("{:#x} + {:#x} wraps past 2^64", v, r));
        v += r;
      } else if (accept_op("-")) {
        v -= multiplicative();
      } else {
        return v;
      }
    }
  }
  std::uint64_t multiplicative() {
    std::uint64_t v = unary();
    while (true) {
      s_.skip_ws();
      const std::size_t at = s_.pos();
      if (accept_op("*")) {
        const std::uint64_t r = unary();
        if (!checking() && r != 0 && v > kMax / r) fail(at, fmt::format("{:#x} * {:#x} wraps past 2^64", v, r));
        v *= r;
      } else if (accept_op("/") || accept_op("%")) {
        const bool divide = text_[at] == '/';
        const std::uint64_t r = unary();
        if (r == 0) {
          if (checking()) continue;
          fail(at, "division by zero");
        }
        v = divide ? v / r : v % r;
      } else {
        return v;
      }
    }
  }
  std::uint64_t unary() {
    if (accept_op("-")) return 0 - unary();
    if (accept_op("~")) return ~unary();
    return primary();
  }
  std::uint64_t primary() {
    const char c = s_.peek();
    const std::size_t at = s_.pos();
    if (c == '(') {
      s_.accept('(');
      const std::uint64_t v = bit_or();
      s_.expect(')', "to close the parenthesis");
      return v;
    }
    if (is_digit(c)) return number();
    std::size_t word_at = 0;
    const std::string word = s_.symbol(word_at);
    if (word.empty()) fail(at, c == '\0' ? "expected an expression" : fmt::format("expected an expression, found '{}'", c));
    if (word == ".") return dot(at);
    if (s_.peek() == '(') return function(word, at);
    return symbol(word, at);
  }
  std::uint64_t dot(std::size_t at) {
    used_dot_ = true;
    if (!ctx_.dot) {
      if (checking()) return 0;
      fail(at, "'.' (the location counter) is only available inside SECTIONS");
    }
    return *ctx_.dot;
  }
  std::uint64_t symbol(const std::string& name, std::size_t at) {
    if (checking()) return 0;
    const auto it = ctx_.symbols->find(name);
    if (it == ctx_.symbols->end())
      fail(at, fmt::format("undefined symbol '{}' in expression (only symbols assigned earlier in the script can be used)", name));
    if (ctx_.used) ctx_.used->push_back(name);
    return it->second;
  }
  std::uint64_t function(const std::string& name, std::size_t at) {
    if (name != "ALIGN")
      fail(at, fmt::format("'{}' is not supported in linker script expressions (supported functions: ALIGN)", name));
    s_.expect('(', "after ALIGN");
    std::uint64_t value = 0;
    s_.skip_ws();
    const std::size_t first_at = s_.pos();
    std::uint64_t align = bit_or();
    if (s_.accept(',')) {
      value = align;
      align = bit_or();
    } else {
      value = dot(at);
    }
    s_.expect(')', "to close ALIGN(");
    return checking() ? 0 : align_up(value, align, first_at);
  }
  std::uint64_t number() {
    s_.skip_ws();
    const std::size_t at = s_.pos();
    std::size_t end = at;
    while (end < text_.size() && is_alnum(text_[end])) ++end;
    std::string_view digits = text_.substr(at, end - at);
    s_.set_pos(end);
    std::uint64_t scale = 1;
    int base = 10;
    if (digits.size() > 2 && (digits.substr(0, 2) == "0x" || digits.substr(0, 2) == "0X")) {
      base = 16;
      digits.remove_prefix(2);
    } else {
      if (digits.back() == 'K' || digits.back() == 'k') scale = 1024;
      if (digits.back() == 'M' || digits.back() == 'm') scale = 1024 * 1024;
      if (scale != 1) digits.remove_suffix(1);
      if (digits.size() > 1 && digits[0] == '0') base = 8;
    }
    std::uint64_t v = 0;
    for (char d : digits) {
      const int digit = is_digit(d) ? d - '0' : is_xdigit(d) ? ascii_lower(d) - 'a' + 10 : 99;
      if (digit >= base)
        fail(at, fmt::format("invalid number '{}'", text_.substr(at, end - at)));
      if (v > (kMax - static_cast<std::uint64_t>(digit)) / static_cast<std::uint64_t>(base))
        fail(at, fmt::format("number '{}' does not fit in 64 bits", text_.substr(at, end - at)));
      v = v * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(digit);
    }
    if (digits.empty()) fail(at, fmt::format("invalid number '{}'", text_.substr(at, end - at)));
    if (v > kMax / scale) fail(at, fmt::format("number '{}' does not fit in 64 bits", text_.substr(at, end - at)));
    return v * scale;
  }

  Scanner s_;
  std::string_view text_;
  const EvalContext& ctx_;
  bool used_dot_ = false;
};

// ---------------------------------------------------------------------------
// Parser.

// Commands of GNU ld's language outside the subset; named in the error.
constexpr std::array kUnsupportedCommands = {
    "MEMORY",  "INCLUDE", "INPUT",         "GROUP",  "OUTPUT",          "OUTPUT_FORMAT", "OUTPUT_ARCH",
    "TARGET",  "SEARCH_DIR", "STARTUP",    "ASSERT", "PROVIDE_HIDDEN", "HIDDEN",
    "OVERLAY", "INSERT",  "NOCROSSREFS",   "EXTERN", "FORCE_COMMON_ALLOCATION", "REGION_ALIAS", "VERSION",
    "CONSTRUCTORS", "CREATE_OBJECT_SYMBOLS", "FILL", "BYTE", "SHORT", "LONG", "QUAD", "SQUAD",
    "SORT", "SORT_BY_NAME", "SORT_BY_ALIGNMENT", "SORT_BY_INIT_PRIORITY", "SORT_NONE", "EXCLUDE_FILE",
    "INPUT_SECTION_FLAGS", "AS_NEEDED", "LD_FEATURE"};

bool is_unsupported_command(std::string_view w) {
  return std::find(kUnsupportedCommands.begin(), kUnsupportedCommands.end(), w) != kUnsupportedCommands.end();
}

class Parser {
 public:
  Parser(std::string_view text, LinkerScript& out) : s_(text), text_(text), out_(out) {}

  void run() {
    while (!s_.at_end()) top_level();
  }

 private:
  // Checks the syntax of an expression at the current position and skips it.
  std::size_t expression() {
    s_.skip_ws();
    const std::size_t at = s_.pos();
    const EvalContext check{};
    Evaluator e(text_, at, check);
    e.run();
    s_.set_pos(e.end());
    return at;
  }

  void top_level() {
    std::size_t at = 0;
    const std::string word = s_.name(at);
    if (word == "ENTRY") return entry(at);
    if (word == "PHDRS") return phdrs();
    if (word == "SECTIONS") return sections();
    if (const bool provide = is_provide(word); provide || (!word.empty() && (s_.peek() == '=' || is_compound_assignment()))) {
      if (word == ".") fail(at, "the location counter '.' can only be assigned inside SECTIONS");
      ScriptAssignment a = provide ? provide_assignment() : assignment(word, at);
      a.outside_sections = true;
      out_.commands.push_back(std::move(a));
      return;
    }
    if (word.empty()) fail(at, fmt::format("expected a linker script command, found '{}'", s_.peek()));
    fail(at, fmt::format("'{}' is not supported in pto linker scripts (supported: ENTRY, PHDRS, SECTIONS and symbol "
                         "assignments)",
                         word));
  }

  bool is_compound_assignment() {
    const char c = s_.peek();
    return (c == '+' || c == '-' || c == '*' || c == '/' || c == '&' || c == '|' || c == '<' || c == '>') &&
           (s_.peek2() == '=' || ((c == '<' || c == '>') && s_.peek2() == c));
  }

  bool is_provide(const std::string& word) { return word == "PROVIDE" && s_.peek() == '('; }

  // PROVIDE(name = expr);  (after the keyword)
  ScriptAssignment provide_assignment() {
    s_.expect('(', "after PROVIDE");
    std::size_t at = 0;
    const std::string target = s_.name(at);
    if (target == ".") fail(at, "PROVIDE cannot assign the location counter '.'");
    if (!is_symbol_name(target)) fail(at, fmt::format("'{}' is not a valid symbol name", target));
    s_.expect('=', "in PROVIDE(name = expression)");
    ScriptAssignment a{{target, at}, expression()};
    a.provide = true;
    s_.expect(')', "to close PROVIDE(");
    s_.expect(';', "after PROVIDE(...)");
    return a;
  }

  ScriptAssignment assignment(const std::string& target, std::size_t at) {
    if (target != "." && !is_symbol_name(target)) fail(at, fmt::format("'{}' is not a valid symbol name", target));
    if (!s_.accept('=') || s_.peek() == '=') {
      s_.skip_ws();
      fail(s_.pos(), "only '=' assignments are supported (not '+=', '-=', ...)");
    }
    ScriptAssignment a{{target, at}, expression()};
    s_.expect(';', "after the assignment");
    return a;
  }

  void entry(std::size_t at) {
    if (out_.entry) fail(at, fmt::format("ENTRY is given twice (first at line {})", line_of(out_.entry->at)));
    s_.expect('(', "after ENTRY");
    std::size_t name_at = 0;
    const std::string name = s_.symbol(name_at);
    if (name.empty()) fail(name_at, "expected a symbol name in ENTRY(...)");
    s_.expect(')', "after the ENTRY symbol");
    out_.entry = ScriptName{name, name_at};
    s_.accept(';');
  }

  std::size_t line_of(std::size_t at) const {
    return static_cast<std::size_t>(std::count(text_.begin(), text_.begin() + static_cast<std::ptrdiff_t>(at), '\n')) + 1;
  }

  void phdrs() {
    out_.has_phdrs = true;
    s_.expect('{', "after PHDRS");
    while (!s_.accept('}')) {
      if (s_.at_end()) fail(s_.pos(), "expected '}' to close PHDRS");
      std::size_t at = 0;
      const std::string name = s_.symbol(at);
      if (name.empty()) fail(at, "expected a program header name");
      for (const ScriptPhdr& p : out_.phdrs)
        if (p.name.name == name) fail(at, fmt::format("program header '{}' is defined twice", name));
      phdr_type();
      ScriptPhdr p{{name, at}, std::nullopt};
      phdr_attributes(p);
      out_.phdrs.push_back(std::move(p));
    }
  }

  void phdr_type() {
    std::size_t at = 0;
    const std::string type = s_.name(at);
    if (type == "PT_LOAD") return;
    if (type.starts_with("PT_"))
      fail(at, fmt::format("program header type {} is not supported (only PT_LOAD; the identity note lives in the "
                           "text PT_LOAD)",
                           type));
    fail(at, type.empty() ? "expected a program header type" : fmt::format("unknown program header type '{}'", type));
  }

  void phdr_attributes(ScriptPhdr& p) {
    while (!s_.accept(';')) {
      std::size_t at = 0;
      const std::string word = s_.name(at);
      if (word == "FLAGS" && !p.flags) {
        s_.expect('(', "after FLAGS");
        p.flags = expression();
        s_.expect(')', "to close FLAGS(");
      } else if (word == "FILEHDR" || word == "PHDRS" || word == "AT") {
        fail(at, fmt::format("{} in PHDRS is not supported", word));
      } else {
        fail(at, word.empty() ? "expected ';' after the program header" : fmt::format("unexpected '{}' in PHDRS", word));
      }
    }
  }

  void sections() {
    s_.expect('{', "after SECTIONS");
    while (!s_.accept('}')) {
      if (s_.at_end()) fail(s_.pos(), "expected '}' to close SECTIONS");
      sections_item();
    }
  }

  void sections_item() {
    std::size_t at = 0;
    const std::string word = s_.name(at);
    if (word.empty()) fail(at, fmt::format("expected an output section or an assignment, found '{}'", s_.peek()));
    if (word == "ENTRY" && s_.peek() == '(') return entry(at);
    if (is_provide(word)) {
      out_.commands.push_back(provide_assignment());
      return;
    }
    if (s_.peek() == '=' || is_compound_assignment()) {
      out_.commands.push_back(assignment(word, at));
      return;
    }
    if (is_unsupported_command(word) || word == "PHDRS" || word == "SECTIONS")
      fail(at, fmt::format("'{}' is not supported inside SECTIONS", word));
    out_.commands.push_back(output_section(ScriptName{word, at}));
  }

  ScriptOutputSection output_section(ScriptName name) {
    ScriptOutputSection o;
    o.name = std::move(name);
    if (s_.peek() != ':' && s_.peek() != '{') {
      if (s_.peek() == '(') section_type_check();
      o.address = expression();
    }
    s_.expect(':', fmt::format("after the output section name '{}'", o.name.name));
    output_attributes(o);
    s_.expect('{', fmt::format("to open output section '{}'", o.name.name));
    while (!s_.accept('}')) {
      if (s_.at_end()) fail(s_.pos(), fmt::format("expected '}}' to close output section '{}'", o.name.name));
      o.items.push_back(output_item());
    }
    trailer(o);
    if (o.discard() && (o.address || o.load_address || !o.phdrs.empty()))
      fail(o.name.at, "/DISCARD/ takes no address, AT or :phdr");
    return o;
  }

  // `(NOLOAD)` and other output section types.
  void section_type_check() {
    Scanner look(text_, s_.pos());
    look.accept('(');
    std::size_t at = 0;
    const std::string word = look.name(at);
    if (word == "NOLOAD" || word == "DSECT" || word == "COPY" || word == "INFO" || word == "OVERLAY" ||
        word == "READONLY" || word == "TYPE")
      fail(at, fmt::format("output section type ({}) is not supported", word));
  }

  void output_attributes(ScriptOutputSection& o) {
    while (true) {
      s_.skip_ws();
      const std::size_t save = s_.pos();
      std::size_t at = 0;
      const std::string word = s_.name(at);
      if (word == "AT" && s_.peek() == '(') {
        s_.accept('(');
        o.load_address = expression();
        s_.expect(')', "to close AT(");
      } else if (!word.empty()) {
        fail(at, fmt::format("'{}' before an output section's '{{' is not supported (only AT(address))", word));
      } else {
        s_.set_pos(save);
        return;
      }
    }
  }

  ScriptOutputItem output_item() {
    std::size_t at = 0;
    const std::string word = s_.name(at);
    if (is_provide(word)) return provide_assignment();
    if (!word.empty() && (s_.peek() == '=' || is_compound_assignment())) return assignment(word, at);
    if (word == "KEEP" && s_.peek() == '(') {
      s_.accept('(');
      std::size_t inner_at = 0;
      const std::string file = s_.name(inner_at);
      ScriptInputDescription d = input_description(file, inner_at);
      s_.expect(')', "to close KEEP(");
      return d;
    }
    return input_description(word, at);
  }

  ScriptInputDescription input_description(const std::string& file, std::size_t at) {
    if (file.empty()) fail(at, fmt::format("expected an input section description, found '{}'", s_.peek()));
    if (file != "*") {
      if (is_unsupported_command(file) || s_.peek() != '(')
        fail(at, fmt::format("'{}' is not supported in an output section (supported: '*(patterns)', KEEP(...) and "
                             "assignments)",
                             file));
      fail(at, fmt::format("file name pattern '{}' is not supported (only '*')", file));
    }
    s_.expect('(', "after '*'");
    ScriptInputDescription d;
    d.at = at;
    while (!s_.accept(')')) {
      std::size_t p_at = 0;
      const std::string pattern = s_.name(p_at);
      if (pattern.empty()) fail(p_at, "expected a section name pattern or ')'");
      if (is_unsupported_command(pattern)) fail(p_at, fmt::format("'{}' is not supported in an input section description", pattern));
      d.patterns.push_back({pattern, p_at});
    }
    if (d.patterns.empty()) fail(at, "empty input section description '*()'");
    return d;
  }

  void trailer(ScriptOutputSection& o) {
    while (true) {
      const char c = s_.peek();
      s_.skip_ws();
      const std::size_t at = s_.pos();
      if (c == ':') {
        s_.accept(':');
        std::size_t p_at = 0;
        const std::string phdr = s_.symbol(p_at);
        if (phdr.empty()) fail(p_at, "expected a program header name after ':'");
        o.phdrs.push_back({phdr, p_at});
      } else if (c == '>') {
        fail(at, "memory regions ('>region') are not supported");
      } else if (text_.substr(at, 3) == "AT>") {
        fail(at, "load memory regions ('AT>region') are not supported");
      } else if (c == '=') {
        fail(at, "fill expressions ('=fill') are not supported");
      } else {
        s_.accept(',');
        return;
      }
    }
  }

  Scanner s_;
  std::string_view text_;
  LinkerScript& out_;
};

// ---------------------------------------------------------------------------
// Layout.

enum class SectionClass { Code, ReadOnly, Data, Bss, NonAlloc };

SectionClass class_of(std::uint32_t type, std::uint64_t flags) {
  if (!(flags & elf::SHF_ALLOC)) return SectionClass::NonAlloc;
  if (flags & elf::SHF_EXECINSTR) return SectionClass::Code;
  if (!(flags & elf::SHF_WRITE)) return SectionClass::ReadOnly;
  return type == elf::SHT_NOBITS ? SectionClass::Bss : SectionClass::Data;
}

std::uint32_t segment_flags(std::uint64_t section_flags) {
  std::uint32_t pf = elf::PF_R;
  if (section_flags & elf::SHF_WRITE) pf |= elf::PF_W;
  if (section_flags & elf::SHF_EXECINSTR) pf |= elf::PF_X;
  return pf;
}

bool matches(const std::string& pattern, const std::string& name) {
  if (pattern == "COMMON") return false;  // the assembler makes no common symbols
  return fnmatch(pattern.c_str(), name.c_str(), 0) == 0;
}

// Where an input section goes: command index and item index, or orphan.
struct Assignment {
  std::optional<std::size_t> command, item;
};

// An output section as placed.
struct Placed {
  std::string name;
  std::optional<std::size_t> at;  // statement offset; nullopt for an orphan
  std::uint64_t address = 0, size = 0;
  std::vector<std::size_t> inputs;
  std::vector<ScriptName> phdrs;
  bool alloc = false;
};

class Layouter {
 public:
  Layouter(const LinkerScript& s, std::span<const InputSection> in, std::uint64_t max_output)
      : s_(s), in_(in), max_output_(max_output) {
    out_.input_address.assign(in.size(), 0);
    out_.input_output.assign(in.size(), std::nullopt);
  }

  ScriptLayout run() {
    assign_inputs();
    find_orphan_anchors();
    for (std::size_t c = 0; c < s_.commands.size(); ++c) {
      try {
        if (const auto* a = std::get_if<ScriptAssignment>(&s_.commands[c])) {
          assign(*a, std::nullopt);
        } else {
          output_statement(c, std::get<ScriptOutputSection>(s_.commands[c]));
        }
      } catch (const ScriptFailure& f) {
        error(f.at, f.message);
      }
      place_orphans(c);
    }
    place_orphans(std::nullopt);
    check_overlaps();
    build_sections();
    if (s_.has_phdrs) {
      build_phdr_segments();
      check_segment_overlaps();  // without PHDRS, one segment per section: check_overlaps covers it
    } else {
      build_default_segments();
    }
    return std::move(out_);
  }

 private:
  void error(std::optional<std::size_t> at, std::string message) {
    if (at) out_.diagnostics.push_back(script_diagnostic(s_, *at, std::move(message)));
    else out_.diagnostics.push_back({s_.file, 0, 0, std::move(message), ""});
  }

  void assign_inputs() {
    where_.assign(in_.size(), {});
    for (std::size_t i = 0; i < in_.size(); ++i) {
      for (std::size_t c = 0; c < s_.commands.size() && !where_[i].command; ++c) {
        const auto* o = std::get_if<ScriptOutputSection>(&s_.commands[c]);
        if (!o) continue;
        for (std::size_t k = 0; k < o->items.size() && !where_[i].command; ++k) {
          const auto* d = std::get_if<ScriptInputDescription>(&o->items[k]);
          if (!d) continue;
          for (const ScriptName& p : d->patterns) {
            if (!matches(p.name, in_[i].name)) continue;
            where_[i] = {c, k};
            if (o->discard() && in_[i].name == elf::kIdentitySectionName)
              error(p.at, fmt::format("{} cannot be discarded: the PTO identity note is required",
                                      elf::kIdentitySectionName));
            break;
          }
        }
      }
    }
  }

  // Orphans (inputs no pattern matches) go after the last output statement
  // holding sections of the same class, else after the last output
  // statement, else at the end (nullopt).
  void find_orphan_anchors() {
    anchor_.assign(in_.size(), std::nullopt);
    std::optional<std::size_t> last;
    for (std::size_t c = 0; c < s_.commands.size(); ++c) {
      const auto* o = std::get_if<ScriptOutputSection>(&s_.commands[c]);
      if (o && !o->discard()) last = c;
    }
    for (std::size_t i = 0; i < in_.size(); ++i) {
      if (where_[i].command) continue;
      anchor_[i] = last_of_class(class_of(in_[i].type, in_[i].flags));
      if (!anchor_[i]) anchor_[i] = last;
    }
  }

  std::optional<std::size_t> last_of_class(SectionClass want) const {
    std::optional<std::size_t> best;
    for (std::size_t j = 0; j < in_.size(); ++j) {
      if (!where_[j].command || class_of(in_[j].type, in_[j].flags) != want) continue;
      if (std::get<ScriptOutputSection>(s_.commands[*where_[j].command]).discard()) continue;
      if (!best || *where_[j].command > *best) best = where_[j].command;
    }
    return best;
  }

  void define(const ScriptAssignment& a, std::uint64_t value) {
    symbols_[a.target.name] = value;
    for (ScriptSymbol& s : out_.symbols)
      if (s.name == a.target.name) {
        s = {a.target.name, value, a.target.at, a.provide};
        return;
      }
    out_.symbols.push_back({a.target.name, value, a.target.at, a.provide});
  }

  // Evaluates an assignment; inside an output section (`section_start` set)
  // an expression must involve '.', because ld reads a plain number there as
  // an offset from the section start.
  void assign(const ScriptAssignment& a, std::optional<std::uint64_t> section_start) {
    const EvalContext ctx{a.outside_sections ? std::nullopt : std::optional(dot_), &symbols_, &out_.used_symbols};
    Evaluator e(s_.text, a.expr, ctx);
    const std::uint64_t v = e.run();
    if (section_start && !e.used_dot())
      fail(a.expr, "inside an output section, an assignment must use '.' (ld reads a plain value there as an offset "
                   "from the section start; write '. + N' or use the absolute value outside the section)");
    if (a.target.name != ".") return define(a, v);
    if (v < dot_) fail(a.target.at, fmt::format("cannot move the location counter backwards (from {:#x} to {:#x})", dot_, v));
    dot_ = v;
  }

  std::uint64_t eval(std::size_t expr) {
    const EvalContext ctx{dot_, &symbols_, &out_.used_symbols};
    return Evaluator(s_.text, expr, ctx).run();
  }

  std::uint64_t max_align(const std::vector<std::size_t>& inputs) const {
    std::uint64_t a = 1;
    for (std::size_t i : inputs) a = std::max(a, in_[i].align);
    return a;
  }

  // Moves '.' past a section of `size` bytes.
  void advance(std::uint64_t size, const std::string& name, std::size_t at) {
    if (size > kMax - dot_)
      fail(at, fmt::format("section '{}' at {:#x} with size {:#x} extends past the end of the 64-bit address space",
                           name, dot_, size));
    dot_ += size;
  }

  // Errors are located at the output statement (offset 0 for an orphan,
  // whose caller reports it without a location).
  void place_input(std::size_t i, Placed& p) {
    dot_ = align_up(dot_, in_[i].align, p.at.value_or(0));
    out_.input_address[i] = dot_;
    p.inputs.push_back(i);
    advance(in_[i].size, in_[i].name, p.at.value_or(0));
  }

  std::vector<std::size_t> inputs_of(std::size_t command) const {
    std::vector<std::size_t> r;
    for (std::size_t i = 0; i < in_.size(); ++i)
      if (where_[i].command == command) r.push_back(i);
    return r;
  }

  void output_statement(std::size_t c, const ScriptOutputSection& o) {
    if (o.discard()) return;
    const std::vector<std::size_t> inputs = inputs_of(c);
    const bool alloc = std::any_of(inputs.begin(), inputs.end(), [&](std::size_t i) { return in_[i].flags & elf::SHF_ALLOC; });
    if (!o.phdrs.empty()) phdrs_ = o.phdrs;
    Placed p{o.name.name, o.name.at, 0, 0, {}, phdrs_, alloc || inputs.empty()};
    const std::uint64_t outer_dot = dot_;
    if (o.address) {
      if (!p.alloc) fail(*o.address, fmt::format("non-allocated section '{}' cannot be given an address", o.name.name));
      dot_ = eval(*o.address);
    } else {
      dot_ = p.alloc ? align_up(dot_, max_align(inputs), o.name.at) : 0;
    }
    p.address = dot_;
    for (std::size_t k = 0; k < o.items.size(); ++k) {
      if (const auto* a = std::get_if<ScriptAssignment>(&o.items[k])) {
        assign(*a, p.address);
        continue;
      }
      for (std::size_t i : inputs)
        if (where_[i].item == k) place_input(i, p);
    }
    p.size = dot_ - p.address;
    if (o.load_address) check_load_address(*o.load_address, p);
    if (inputs.empty()) return finish_empty_statement(o, outer_dot);
    if (!p.alloc) dot_ = outer_dot;
    placed_.push_back(std::move(p));
  }

  // An output statement that matched no input makes no section.  As in ld,
  // its address is ignored unless it defines symbols.  Assigning '.' in it
  // would make ld create the section, which pto does not: an error.
  void finish_empty_statement(const ScriptOutputSection& o, std::uint64_t outer_dot) {
    bool defines_symbols = false;
    for (const ScriptOutputItem& item : o.items) {
      const auto* a = std::get_if<ScriptAssignment>(&item);
      if (!a) continue;
      if (a->target.name == ".")
        fail(a->target.at, fmt::format("output section '{}' has no input sections; ld would create it for this "
                                        "assignment to '.', pto does not",
                                        o.name.name));
      defines_symbols = true;
    }
    if (!defines_symbols) dot_ = outer_dot;
  }

  // AT(expr) is accepted only when it names the section's own address.
  void check_load_address(std::size_t expr, const Placed& p) {
    const std::uint64_t lma = eval(expr);
    if (lma != p.address)
      fail(expr, fmt::format("AT({:#x}) differs from the address {:#x} of '{}': pto images have equal load and "
                             "virtual addresses",
                             lma, p.address, p.name));
  }

  // Orphans anchored after command `c` (nullopt: the end of the script).
  void place_orphans(std::optional<std::size_t> c) {
    for (std::size_t i = 0; i < in_.size(); ++i) {
      if (where_[i].command || anchor_[i] != c || orphan_placed_[i]) continue;
      orphan_placed_[i] = true;
      try {
        place_orphan(i);
      } catch (const ScriptFailure& f) {
        error(std::nullopt, fmt::format("orphan section '{}': {}", in_[i].name, f.message));
      }
    }
  }

  // An orphan becomes an output section of its own name; a non-allocated one
  // starts at 0 and leaves '.' where it was.
  void place_orphan(std::size_t i) {
    const bool alloc = in_[i].flags & elf::SHF_ALLOC;
    const std::uint64_t outer_dot = dot_;
    if (!alloc) dot_ = 0;
    Placed p{in_[i].name, std::nullopt, 0, 0, {}, phdrs_, alloc};
    place_input(i, p);
    p.address = out_.input_address[i];
    p.size = dot_ - p.address;
    if (!alloc) dot_ = outer_dot;
    placed_.push_back(std::move(p));
  }

  void check_overlaps() {
    std::vector<std::size_t> order;
    for (std::size_t k = 0; k < placed_.size(); ++k)
      if (placed_[k].alloc && placed_[k].size) order.push_back(k);
    std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return placed_[a].address < placed_[b].address; });
    for (std::size_t n = 1; n < order.size(); ++n) {
      const Placed& a = placed_[order[n - 1]];
      const Placed& b = placed_[order[n]];
      if (b.address >= a.address + a.size) continue;
      const std::size_t later = std::max(order[n - 1], order[n]);
      error(placed_[later].at, fmt::format("output sections {} [{:#x}, {:#x}) and {} [{:#x}, {:#x}) overlap", a.name,
                                         a.address, a.address + a.size, b.name, b.address, b.address + b.size));
    }
  }

  void build_sections() {
    for (const Placed& p : placed_) {
      bool all_nobits = true, all_note = true;
      std::uint64_t flags = 0;
      for (std::size_t i : p.inputs) {
        all_nobits = all_nobits && in_[i].type == elf::SHT_NOBITS;
        all_note = all_note && in_[i].type == elf::SHT_NOTE;
        flags |= in_[i].flags;
      }
      elf::Section s{p.name, all_nobits ? elf::SHT_NOBITS : all_note ? elf::SHT_NOTE : elf::SHT_PROGBITS, flags,
                     p.address, p.size, {}};
      if (!all_nobits) {
        s.data.assign(p.size, 0);
        for (std::size_t i : p.inputs)
          std::copy(in_[i].data.begin(), in_[i].data.end(),
                    s.data.begin() + static_cast<std::ptrdiff_t>(out_.input_address[i] - p.address));
      }
      for (std::size_t i : p.inputs) out_.input_output[i] = out_.sections.size();
      out_.sections.push_back(std::move(s));
    }
  }

  bool loadable(std::size_t k) const { return placed_[k].alloc && placed_[k].size != 0; }

  void build_default_segments() {
    for (std::size_t k = 0; k < placed_.size(); ++k) {
      if (!loadable(k)) continue;
      const elf::Section& s = out_.sections[k];
      out_.segments.push_back({s.addr, s.size, segment_flags(s.flags), s.data});
      segment_at_.push_back(placed_[k].at);
    }
  }

  std::optional<std::size_t> phdr_index(const ScriptName& n) const {
    for (std::size_t h = 0; h < s_.phdrs.size(); ++h)
      if (s_.phdrs[h].name.name == n.name) return h;
    return std::nullopt;
  }

  void build_phdr_segments() {
    std::vector<std::vector<std::size_t>> members(s_.phdrs.size());
    for (std::size_t k = 0; k < placed_.size(); ++k) {
      if (!loadable(k)) continue;
      if (placed_[k].phdrs.empty())
        error(placed_[k].at, fmt::format("allocated section '{}' is not assigned to a program header (add ':phdr')",
                                       placed_[k].name));
      for (const ScriptName& n : placed_[k].phdrs) {
        if (const auto h = phdr_index(n)) members[*h].push_back(k);
        else if (placed_[k].at) error(n.at, fmt::format("section '{}' is placed in unknown program header '{}'", placed_[k].name, n.name));
        else error(std::nullopt, fmt::format("orphan section '{}' inherits unknown program header '{}'", placed_[k].name, n.name));
      }
    }
    for (std::size_t h = 0; h < s_.phdrs.size(); ++h) {
      if (members[h].empty()) continue;
      try {
        build_phdr_segment(s_.phdrs[h], members[h]);
      } catch (const ScriptFailure& f) {
        error(f.at, f.message);
      }
    }
  }

  void build_phdr_segment(const ScriptPhdr& ph, const std::vector<std::size_t>& members) {
    std::uint64_t begin = kMax, end = 0, file_end = 0, flags = 0;
    for (std::size_t k : members) {
      const elf::Section& s = out_.sections[k];
      begin = std::min(begin, s.addr);
      end = std::max(end, s.addr + s.size);
      if (s.type != elf::SHT_NOBITS && s.size) file_end = std::max(file_end, s.addr + s.size);
      flags |= s.flags;
    }
    file_end = std::max(file_end, begin);
    std::uint64_t pf = segment_flags(flags);
    if (ph.flags) {
      pf = eval(*ph.flags);
      if (pf > 0xffffffffu) fail(*ph.flags, fmt::format("FLAGS({:#x}) does not fit in 32 bits", pf));
    }
    if (file_end - begin > max_output_)
      fail(ph.name.at, fmt::format("program header '{}' would hold {} file bytes ([{:#x}, {:#x})), more than the "
                                   "limit of {} bytes (--max-output)",
                                   ph.name.name, file_end - begin, begin, file_end, max_output_));
    elf::Segment g{begin, end - begin, static_cast<std::uint32_t>(pf), std::vector<std::uint8_t>(file_end - begin, 0)};
    for (std::size_t k : members) {
      const elf::Section& s = out_.sections[k];
      std::copy(s.data.begin(), s.data.end(), g.data.begin() + static_cast<std::ptrdiff_t>(s.addr - begin));
    }
    out_.segments.push_back(std::move(g));
    segment_at_.push_back(ph.name.at);
  }

  void check_segment_overlaps() {
    for (std::size_t a = 0; a < out_.segments.size(); ++a)
      for (std::size_t b = a + 1; b < out_.segments.size(); ++b) {
        const elf::Segment& x = out_.segments[a];
        const elf::Segment& y = out_.segments[b];
        if (x.vaddr < y.vaddr + y.memsz && y.vaddr < x.vaddr + x.memsz)
          error(segment_at_[b], fmt::format("program headers overlap: [{:#x}, {:#x}) and [{:#x}, {:#x})", x.vaddr,
                                            x.vaddr + x.memsz, y.vaddr, y.vaddr + y.memsz));
      }
  }

  const LinkerScript& s_;
  std::span<const InputSection> in_;
  std::uint64_t max_output_;
  ScriptLayout out_;
  std::vector<Assignment> where_;
  std::vector<std::optional<std::size_t>> anchor_;
  std::vector<bool> orphan_placed_ = std::vector<bool>(in_.size(), false);
  std::vector<Placed> placed_;
  std::vector<std::optional<std::size_t>> segment_at_;
  std::map<std::string, std::uint64_t> symbols_;
  std::vector<ScriptName> phdrs_;  // inherited by following output sections, as in ld
  std::uint64_t dot_ = 0;
};

}  // namespace

Diagnostic script_diagnostic(const LinkerScript& script, std::size_t at, std::string message) {
  const std::string_view t = script.text;
  at = std::min(at, t.size());
  const std::size_t line_start = t.rfind('\n', at == 0 ? 0 : at - 1) == std::string_view::npos || at == 0
                                     ? 0
                                     : t.rfind('\n', at - 1) + 1;
  std::size_t line_end = t.find('\n', at);
  if (line_end == std::string_view::npos) line_end = t.size();
  std::string_view source = t.substr(line_start, line_end - line_start);
  if (!source.empty() && source.back() == '\r') source.remove_suffix(1);
  const auto line = static_cast<std::size_t>(std::count(t.begin(), t.begin() + static_cast<std::ptrdiff_t>(line_start), '\n')) + 1;
  return {script.file, line, at - line_start + 1, std::move(message), std::string(source)};
}

std::variant<LinkerScript, Diagnostic> parse_linker_script(std::string_view text, std::string_view file) {
  LinkerScript script;
  script.file = std::string(file);
  script.text = std::string(text);
  try {
    Parser(script.text, script).run();
  } catch (const ScriptFailure& f) {
    return script_diagnostic(script, f.at, f.message);
  }
  return script;
}

ScriptLayout layout_script(const LinkerScript& script, std::span<const InputSection> inputs,
                           std::uint64_t max_output) {
  return Layouter(script, inputs, max_output).run();
}

}  // namespace pto::as
