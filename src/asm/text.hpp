// Low-level text scanning shared by the assembler and operand syntax:
// a column-tracking cursor, parse errors and integer expressions.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pto::as {

// A parse failure at a column (0-based offset into the scanned line).
struct ParseError {
  std::size_t column;
  std::string message;
};

// Thrown inside the parsers; converted to diagnostics at statement level.
struct ParseFailure {
  ParseError error;
};

class Cursor {
 public:
  Cursor(std::string_view line, std::size_t pos) : s_(line), pos_(pos) {}
  std::size_t pos() const { return pos_; }
  void set_pos(std::size_t p) { pos_ = p; }
  std::string_view line() const { return s_; }
  void skip_ws();
  bool at_end();  // only whitespace remains
  char peek();    // after skipping whitespace; '\0' at end
  // Case-insensitive literal match (after whitespace); consumes on success.
  bool accept(std::string_view lit);
  // Identifier: [A-Za-z_.$][A-Za-z0-9_.$#]* (after whitespace); empty if none.
  std::string_view ident();
  [[noreturn]] void fail(std::string message) const;
  [[noreturn]] void fail_at(std::size_t column, std::string message) const;

 private:
  std::string_view s_;
  std::size_t pos_;
};

// ASCII character classes: assembly text is ASCII, and these stay inline
// (the <cctype> functions consult the locale on every call).
constexpr bool is_digit(char c) { return c >= '0' && c <= '9'; }
constexpr bool is_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
constexpr bool is_alnum(char c) { return is_digit(c) || is_alpha(c); }
constexpr bool is_xdigit(char c) { return is_digit(c) || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'); }
constexpr char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c + ('a' - 'A')) : c; }
constexpr char ascii_upper(char c) { return c >= 'a' && c <= 'z' ? static_cast<char>(c - ('a' - 'A')) : c; }

// `s` with every control byte except tab (0x00..0x1f, 0x7f) written as
// \xNN, so diagnostics never echo raw control bytes to a terminal.
std::string escape_control(std::string_view s);

bool iequals(std::string_view a, std::string_view b);
std::string to_upper(std::string_view s);
std::string to_lower(std::string_view s);

// Symbol values for expressions.  `symbol` returns nullopt for a symbol that
// is not (yet) defined; `final_pass` makes that an error.
class ExprEnv {
 public:
  virtual ~ExprEnv() = default;
  virtual std::optional<std::int64_t> symbol(std::string_view name) const = 0;
  // Numeric local label `n` referenced as `nb` (backward) or `nf` (forward).
  virtual std::optional<std::int64_t> local_label(unsigned n, bool forward) const = 0;
  virtual std::uint64_t dot() const = 0;  // value of `.`
  virtual bool final_pass() const = 0;
};

struct ExprValue {
  std::int64_t value = 0;
  bool resolved = true;  // false while a symbol is still undefined (first pass)
};

// Deepest nesting of parentheses and unary operators an expression may have
// (docs/assembly.md "Limits"); deeper text is an error, not a stack overflow.
inline constexpr unsigned kMaxExpressionDepth = 256;

// Parses `| ^ & << >> + - * / % ~ ( )`, numbers, symbols, `.`, `1b`/`1f`.
ExprValue parse_expression(Cursor& c, const ExprEnv& env);

}  // namespace pto::as
