#include "cli/file_io.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <memory>
#include <string_view>

namespace pto::cli {

namespace {

struct FileCloser {
  void operator()(std::FILE* f) const {
    if (f) std::fclose(f);
  }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

std::string os_error() { return std::strerror(errno); }

// Reads `f` to the end, failing once more than `max_bytes` have arrived.
bool read_bounded(std::FILE* f, std::uint64_t max_bytes, std::string& out, std::string& reason) {
  char buf[1 << 16];
  while (true) {
    const std::size_t n = std::fread(buf, 1, sizeof buf, f);
    if (n == 0) break;
    if (n > max_bytes - out.size()) {
      reason = fmt::format("input is larger than the limit of {} bytes", max_bytes);
      return false;
    }
    out.append(buf, n);
  }
  if (std::ferror(f)) {
    reason = os_error();
    return false;
  }
  return true;
}

// Writes, flushes and closes `f`; the first failure is the reason.
bool write_and_close(File f, std::span<const std::uint8_t> bytes, std::string& reason) {
  if (std::fwrite(bytes.data(), 1, bytes.size(), f.get()) != bytes.size() || std::fflush(f.get()) != 0) {
    reason = os_error();
    return false;
  }
  if (std::fclose(f.release()) != 0) {
    reason = os_error();
    return false;
  }
  return true;
}

bool write_through_temporary(const std::string& path, std::span<const std::uint8_t> bytes, std::string& reason) {
  const std::string tmp = path + ".tmp-pto-as";
  File f(std::fopen(tmp.c_str(), "wb"));
  if (!f) {
    reason = os_error();
    return false;
  }
  if (!write_and_close(std::move(f), bytes, reason) || std::rename(tmp.c_str(), path.c_str()) != 0) {
    if (reason.empty()) reason = os_error();
    std::remove(tmp.c_str());
    return false;
  }
  return true;
}

unsigned digit_value(char c) {
  if (c >= '0' && c <= '9') return static_cast<unsigned>(c - '0');
  if (c >= 'a' && c <= 'f') return static_cast<unsigned>(c - 'a' + 10);
  if (c >= 'A' && c <= 'F') return static_cast<unsigned>(c - 'A' + 10);
  return 99;
}

// Digits in `base` with '_' between them; nullopt on anything else or overflow.
std::optional<std::uint64_t> digits(std::string_view s, unsigned base) {
  if (s.empty() || s.front() == '_' || s.back() == '_') return std::nullopt;
  std::uint64_t v = 0;
  for (char c : s) {
    if (c == '_') continue;
    const unsigned d = digit_value(c);
    if (d >= base || v > (UINT64_MAX - d) / base) return std::nullopt;
    v = v * base + d;
  }
  return v;
}

std::optional<std::uint64_t> times(std::optional<std::uint64_t> v, std::uint64_t factor) {
  if (!v || (factor != 0 && *v > UINT64_MAX / factor)) return std::nullopt;
  return *v * factor;
}

}  // namespace

std::optional<std::string> read_input(const std::string& path, std::string& error, std::uint64_t max_bytes) {
  std::string out, reason;
  if (path == "-") {
    if (read_bounded(stdin, max_bytes, out, reason)) return out;
  } else if (File f(std::fopen(path.c_str(), "rb")); !f) {
    reason = os_error();
  } else if (struct stat st {}; fstat(fileno(f.get()), &st) != 0) {
    reason = os_error();
  } else if (S_ISDIR(st.st_mode)) {
    reason = "it is a directory";
  } else if (S_ISREG(st.st_mode) && static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    reason = fmt::format("the file has {} bytes, more than the limit of {} bytes", st.st_size, max_bytes);
  } else if (read_bounded(f.get(), max_bytes, out, reason)) {
    return out;
  }
  error = fmt::format("cannot read '{}': {}", path, reason);
  return std::nullopt;
}

std::optional<std::string> write_output(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::string reason;
  struct stat st {};
  const bool special = ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode);
  if (special) {
    File f(std::fopen(path.c_str(), "wb"));
    if (!f) reason = os_error();
    else if (write_and_close(std::move(f), bytes, reason)) return std::nullopt;
  } else if (write_through_temporary(path, bytes, reason)) {
    return std::nullopt;
  }
  return fmt::format("cannot write '{}': {}", path, reason);
}

std::optional<std::uint64_t> parse_unsigned(std::string_view text, bool scientific) {
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) return digits(text.substr(2), 16);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'b' || text[1] == 'B')) return digits(text.substr(2), 2);
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'o' || text[1] == 'O')) return digits(text.substr(2), 8);
  if (!scientific) return digits(text, 10);
  static constexpr std::pair<std::string_view, std::uint64_t> kSuffixes[] = {
      {"KiB", std::uint64_t{1} << 10}, {"MiB", std::uint64_t{1} << 20}, {"GiB", std::uint64_t{1} << 30}};
  for (const auto& [suffix, factor] : kSuffixes)
    if (text.ends_with(suffix)) return times(digits(text.substr(0, text.size() - suffix.size()), 10), factor);
  const std::size_t e = text.find_first_of("eE");
  if (e == std::string_view::npos) return digits(text, 10);
  const auto exponent = digits(text.substr(e + 1), 10);
  if (!exponent || *exponent > 19) return std::nullopt;
  std::uint64_t scale = 1;
  for (std::uint64_t i = 0; i < *exponent; ++i) scale *= 10;
  return times(digits(text.substr(0, e), 10), scale);
}

}  // namespace pto::cli
