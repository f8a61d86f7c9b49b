#include "cli/unsigned_option.hpp"

#include <fmt/format.h>

namespace pto::cli {
namespace {

int digit_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return 99;
}

// Digits in `base` with single '_' separators between digits; nullopt on any
// other character or on overflow.
std::optional<std::uint64_t> digits(std::string_view t, unsigned base) {
  if (t.empty() || t.front() == '_' || t.back() == '_') return std::nullopt;
  std::uint64_t v = 0;
  char previous = 0;
  for (char c : t) {
    if (c == '_') {
      if (previous == '_') return std::nullopt;
      previous = c;
      continue;
    }
    const int d = digit_value(c);
    if (d >= static_cast<int>(base)) return std::nullopt;
    if (v > (UINT64_MAX - static_cast<unsigned>(d)) / base) return std::nullopt;
    v = v * base + static_cast<unsigned>(d);
    previous = c;
  }
  return v;
}

std::optional<std::uint64_t> with_exponent(std::string_view t) {
  const auto e = t.find_first_of("eE");
  if (e == std::string_view::npos) return std::nullopt;
  auto mantissa = digits(t.substr(0, e), 10);
  auto exponent = digits(t.substr(e + 1), 10);
  if (!mantissa || !exponent) return std::nullopt;
  std::uint64_t v = *mantissa;
  for (std::uint64_t i = 0; i < *exponent; ++i) {
    if (v > UINT64_MAX / 10) return std::nullopt;
    v *= 10;
  }
  return v;
}

}  // namespace

UnsignedParse parse_unsigned(std::string_view text, std::string_view option, Exponent exponent) {
  std::optional<std::uint64_t> v;
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    v = digits(text.substr(2), 16);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'o' || text[1] == 'O')) {
    v = digits(text.substr(2), 8);
  } else if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) {
    v = digits(text.substr(2), 2);
  } else {
    v = digits(text, 10);
    if (!v && exponent == Exponent::Allowed) v = with_exponent(text);
  }
  if (v) return {v, {}};
  const bool negative = !text.empty() && text.front() == '-';
  return {std::nullopt, fmt::format("{}: '{}' is not {}", option, text,
                                    negative ? "unsigned (negative values are refused)"
                                             : "an unsigned integer (decimal, 0x, 0o, 0b; 64 bits)")};
}

}  // namespace pto::cli
