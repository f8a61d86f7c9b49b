#include "cli/unsigned_option.hpp"

#include <fmt/format.h>

#include "cli/file_io.hpp"

namespace pto::cli {

UnsignedParse parse_unsigned(std::string_view text, std::string_view option, Exponent exponent) {
  if (const auto v = parse_unsigned(text, exponent == Exponent::Allowed)) return {v, {}};
  const bool negative = !text.empty() && text.front() == '-';
  return {std::nullopt, fmt::format("{}: '{}' is not {}", option, text,
                                    negative ? "unsigned (negative values are refused)"
                                             : "an unsigned integer (decimal, 0x, 0o, 0b; 64 bits)")};
}

}  // namespace pto::cli
