#include "asm/text.hpp"

#include <fmt/format.h>

#include <cctype>
#include <limits>

namespace pto::as {

namespace {

bool ident_start(char c) { return is_alpha(c) || c == '_' || c == '.' || c == '$'; }
bool ident_char(char c) { return is_alnum(c) || c == '_' || c == '.' || c == '$' || c == '#'; }

}  // namespace

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (ascii_lower(a[i]) != ascii_lower(b[i])) return false;
  }
  return true;
}

std::string to_upper(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_upper(c);
  return out;
}

std::string to_lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = ascii_lower(c);
  return out;
}

void Cursor::skip_ws() {
  while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t')) ++pos_;
}

bool Cursor::at_end() {
  skip_ws();
  return pos_ >= s_.size();
}

char Cursor::peek() {
  skip_ws();
  return pos_ < s_.size() ? s_[pos_] : '\0';
}

bool Cursor::accept(std::string_view lit) {
  skip_ws();
  if (s_.size() - pos_ < lit.size() || !iequals(s_.substr(pos_, lit.size()), lit)) return false;
  pos_ += lit.size();
  return true;
}

std::string_view Cursor::ident() {
  skip_ws();
  if (pos_ >= s_.size() || !ident_start(s_[pos_])) return {};
  const std::size_t begin = pos_;
  while (pos_ < s_.size() && ident_char(s_[pos_])) ++pos_;
  return s_.substr(begin, pos_ - begin);
}

std::string escape_control(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto b = static_cast<unsigned char>(ch);
    if ((b < 0x20 && ch != '\t') || b == 0x7f) out += fmt::format("\\x{:02x}", b);
    else out += ch;
  }
  return out;
}

void Cursor::fail(std::string message) const { throw ParseFailure{ParseError{pos_, std::move(message)}}; }
void Cursor::fail_at(std::size_t column, std::string message) const {
  throw ParseFailure{ParseError{column, std::move(message)}};
}

// ---------------------------------------------------------------------------
// Expressions: precedence climbing over a cursor.

namespace {

struct ExprParser {
  Cursor& c;
  const ExprEnv& env;
  unsigned depth = 0;  // open parentheses and unary operators around the cursor

  // Counts one nesting level (a '(' or a unary operator at `at`); the parser
  // recurses once per level, so the limit bounds its stack use.
  struct Nested {
    ExprParser& p;
    Nested(ExprParser& parser, std::size_t at) : p(parser) {
      if (++p.depth > kMaxExpressionDepth)
        p.c.fail_at(at, fmt::format("expression is nested too deeply (more than {} levels of parentheses and "
                                    "unary operators)",
                                    kMaxExpressionDepth));
    }
    ~Nested() { --p.depth; }
    Nested(const Nested&) = delete;
    Nested& operator=(const Nested&) = delete;
  };

  ExprValue primary() {
    c.skip_ws();
    const std::size_t start = c.pos();
    const std::string_view s = c.line();
    if (start >= s.size()) c.fail("expected an expression");
    const char ch = s[start];
    if (ch == '(') {
      const Nested level(*this, start);
      c.set_pos(start + 1);
      ExprValue v = binary(0);
      if (!c.accept(")")) c.fail("expected ')'");
      return v;
    }
    if (ch == '-' || ch == '~' || ch == '+') {
      const Nested level(*this, start);
      c.set_pos(start + 1);
      ExprValue v = primary();
      if (ch == '-') v.value = static_cast<std::int64_t>(0 - static_cast<std::uint64_t>(v.value));
      if (ch == '~') v.value = ~v.value;
      return v;
    }
    if (is_digit(ch)) return number(start);
    if (ch == '\'' && start + 2 < s.size() && s[start + 2] == '\'') {
      c.set_pos(start + 3);
      return {static_cast<unsigned char>(s[start + 1]), true};
    }
    const std::string_view name = c.ident();
    if (name.empty()) c.fail(fmt::format("expected an expression, found '{}'", s.substr(start, 1)));
    if (name == ".") return {static_cast<std::int64_t>(env.dot()), true};
    if (const auto v = env.symbol(name)) return {*v, true};
    if (env.final_pass()) c.fail_at(start, fmt::format("undefined symbol '{}'", name));
    return {0, false};
  }

  ExprValue number(std::size_t start) {
    const std::string_view s = c.line();
    std::size_t p = start;
    unsigned base = 10;
    if (s[p] == '0' && p + 1 < s.size() && (s[p + 1] == 'x' || s[p + 1] == 'X')) base = 16, p += 2;
    else if (s[p] == '0' && p + 1 < s.size() && (s[p + 1] == 'b' || s[p + 1] == 'B') && p + 2 < s.size() &&
             (s[p + 2] == '0' || s[p + 2] == '1'))
      base = 2, p += 2;
    std::uint64_t v = 0;
    const std::size_t digits_begin = p;
    bool overflow = false;
    for (; p < s.size(); ++p) {
      const char d = s[p];
      if (d == '_') continue;
      unsigned dv;
      if (is_digit(d)) dv = static_cast<unsigned>(d - '0');
      else if (base == 16 && is_xdigit(d)) dv = static_cast<unsigned>(ascii_lower(d) - 'a' + 10);
      else break;
      if (dv >= base) c.fail_at(p, fmt::format("invalid digit '{}' in a base-{} number", d, base));
      if (v > (std::numeric_limits<std::uint64_t>::max() - dv) / base) overflow = true;
      v = v * base + dv;
    }
    if (p == digits_begin) c.fail_at(start, "expected digits");
    // Numeric local label reference: 1b / 1f.
    if (base == 10 && p < s.size() && (s[p] == 'b' || s[p] == 'f') &&
        (p + 1 >= s.size() || !is_alnum(s[p + 1]))) {
      const bool forward = s[p] == 'f';
      if (overflow || v > std::numeric_limits<unsigned>::max())
        c.fail_at(start, fmt::format("local label number is too large (at most {})", std::numeric_limits<unsigned>::max()));
      c.set_pos(p + 1);
      if (const auto t = env.local_label(static_cast<unsigned>(v), forward)) return {*t, true};
      if (env.final_pass() || !forward)
        c.fail_at(start, fmt::format("undefined local label '{}{}'", v, forward ? 'f' : 'b'));
      return {0, false};
    }
    if (p < s.size() && (is_alpha(s[p]) || s[p] == '_'))
      c.fail_at(p, fmt::format("invalid character '{}' in a number", s[p]));
    if (overflow) c.fail_at(start, "number does not fit in 64 bits");
    c.set_pos(p);
    return {static_cast<std::int64_t>(v), true};
  }

  // Binary operator at the cursor with its precedence (higher binds tighter).
  struct Op {
    std::string_view text;
    int prec;
  };
  std::optional<Op> peek_op() {
    c.skip_ws();
    static constexpr Op kOps[] = {{"<<", 5}, {">>", 5}, {"|", 1}, {"^", 2}, {"&", 3}, {"+", 4},
                                  {"-", 4},  {"*", 6},  {"/", 6}, {"%", 6}};
    const std::string_view rest = c.line().substr(c.pos());
    if (rest.empty() || std::string_view("<>|^&+-*/%").find(rest[0]) == std::string_view::npos) return std::nullopt;
    for (const Op& op : kOps) {
      if (rest.substr(0, op.text.size()) != op.text) continue;
      if (op.text == "-" && rest.substr(0, 2) == "->") return std::nullopt;  // destination arrow
      return op;
    }
    return std::nullopt;
  }

  ExprValue binary(int min_prec) {
    ExprValue lhs = primary();
    while (true) {
      const auto op = peek_op();
      if (!op || op->prec < min_prec) return lhs;
      const std::size_t op_pos = c.pos();
      c.set_pos(op_pos + op->text.size());
      const ExprValue rhs = binary(op->prec + 1);
      lhs = apply(*op, lhs, rhs, op_pos);
    }
  }

  ExprValue apply(const Op& op, ExprValue a, ExprValue b, std::size_t at) {
    const bool resolved = a.resolved && b.resolved;
    const auto ua = static_cast<std::uint64_t>(a.value), ub = static_cast<std::uint64_t>(b.value);
    std::uint64_t r = 0;
    switch (op.text[0]) {
      case '|': r = ua | ub; break;
      case '^': r = ua ^ ub; break;
      case '&': r = ua & ub; break;
      case '+': r = ua + ub; break;
      case '-': r = ua - ub; break;
      case '*': r = ua * ub; break;
      case '<': r = ub >= 64 ? 0 : ua << ub; break;
      case '>': r = ub >= 64 ? (a.value < 0 ? ~0ull : 0) : static_cast<std::uint64_t>(a.value >> ub); break;
      case '/':
      case '%':
        if (resolved && b.value == 0) c.fail_at(at, "division by zero");
        if (!resolved || b.value == 0) return {0, false};
        if (a.value == std::numeric_limits<std::int64_t>::min() && b.value == -1) {
          r = op.text[0] == '/' ? ua : 0;
        } else {
          r = static_cast<std::uint64_t>(op.text[0] == '/' ? a.value / b.value : a.value % b.value);
        }
        break;
    }
    return {static_cast<std::int64_t>(r), resolved};
  }
};

}  // namespace

ExprValue parse_expression(Cursor& c, const ExprEnv& env) { return ExprParser{c, env}.binary(0); }

}  // namespace pto::as
