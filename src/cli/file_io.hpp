// Bounded input and checked output for the CLI commands (docs/assembly.md
// "Limits"): input files are read up to a size limit, whatever their kind
// (regular file, pipe, device), and every write, flush and close of an output
// file is checked.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>

namespace pto::cli {

inline constexpr std::uint64_t kMaxInputBytes = std::uint64_t{256} << 20;  // 256 MiB

// The bytes of `path` ('-': stdin).  On failure returns nullopt and sets
// `error` to "cannot read 'PATH': REASON" (OS error, directory, or more than
// `max_bytes`).
std::optional<std::string> read_input(const std::string& path, std::string& error,
                                      std::uint64_t max_bytes = kMaxInputBytes);

// Writes `bytes` to `path`.  A new or regular file is written through a
// temporary file in the same directory and renamed, so a failure leaves no
// partial file; an existing non-regular file (a device such as /dev/null or
// /dev/full, a FIFO) is written in place.  On failure returns
// "cannot write 'PATH': REASON".
std::optional<std::string> write_output(const std::string& path, std::span<const std::uint8_t> bytes);

// An unsigned number option: decimal, 0x hex, 0o octal or 0b binary, '_' allowed
// between digits; with `scientific` also MANTISSAeEXPONENT (1e9) and the
// suffixes KiB, MiB, GiB.  No sign, no blanks, no overflow.
std::optional<std::uint64_t> parse_unsigned(std::string_view text, bool scientific = false);

}  // namespace pto::cli
