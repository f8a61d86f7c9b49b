// Strict unsigned option values with a message naming the option: the
// spelling rule of cli/file_io.hpp parse_unsigned (decimal, 0x/0o/0b, '_'
// between digits: the reference runner's Python int(text, 0) spellings; for
// counts also the help's "1e9" and KiB/MiB/GiB).  Empty text, a sign, other
// characters and values above 2^64 - 1 are refused.
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
