// Strict unsigned option values: one spelling rule for every numeric option.
// Accepted: decimal, 0x/0o/0b prefixes, '_' between digits (the reference
// runner's Python int(text, 0) spellings), and for counts also the
// exponent form the help text uses ("1e9" = 10^9, exactly an integer).
// Rejected with a message naming the option: empty text, a sign, other
// characters, values above 2^64 - 1.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pto::cli {

enum class Exponent : bool { Refused, Allowed };

// The value, or an error message ("--max-steps: '-1' is not an unsigned integer").
struct UnsignedParse {
  std::optional<std::uint64_t> value;
  std::string error;
};
UnsignedParse parse_unsigned(std::string_view text, std::string_view option, Exponent exponent = Exponent::Refused);

}  // namespace pto::cli
