// Text buffer for rendering many lines (the disassembler's hot path, issue 3
// throughput target): appends are inline, integers print without format-string
// parsing, and a buffer reused across lines stops allocating once it has grown
// to the longest line.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

namespace pto::as {

class TextBuffer {
 public:
  TextBuffer& operator+=(std::string_view s) {
    std::copy(s.begin(), s.end(), grow(s.size()));
    return *this;
  }
  TextBuffer& operator+=(char c) {
    *grow(1) = c;
    return *this;
  }
  std::size_t size() const { return size_; }
  void truncate(std::size_t n) { size_ = std::min(size_, n); }
  void clear() { size_ = 0; }
  std::string_view view() const { return {buf_.data(), size_}; }

 private:
  // Room for `n` more characters; returns where they go.
  char* grow(std::size_t n) {
    if (buf_.size() - size_ < n) [[unlikely]]
      enlarge(n);
    char* at = buf_.data() + size_;
    size_ += n;
    return at;
  }
  void enlarge(std::size_t n);
  std::string buf_;  // storage; only the first size_ characters are text
  std::size_t size_ = 0;
};

// Decimal, as "{}".
template <std::integral Int>
void append_dec(TextBuffer& out, Int v) {
  std::uint64_t magnitude = static_cast<std::uint64_t>(v);
  if constexpr (std::is_signed_v<Int>) {
    if (v < 0) {
      out += '-';
      magnitude = 0 - magnitude;
    }
  }
  char digits[20];
  char* const end = digits + sizeof digits;
  char* p = end;
  do *--p = static_cast<char>('0' + magnitude % 10);
  while (magnitude /= 10);
  out += std::string_view(p, static_cast<std::size_t>(end - p));
}

// Lower-case hex digits of `v`, zero-padded to `min_digits`, as "{:0Nx}".
inline void append_hex_digits(TextBuffer& out, std::uint64_t v, unsigned min_digits = 1) {
  char digits[16];
  char* const end = digits + sizeof digits;
  char* p = end;
  do *--p = "0123456789abcdef"[v & 15];
  while (v >>= 4);
  while (end - p < static_cast<std::ptrdiff_t>(std::min(min_digits, 16u))) *--p = '0';
  out += std::string_view(p, static_cast<std::size_t>(end - p));
}

// Hex with the 0x prefix, as "{:#x}".
inline void append_hex(TextBuffer& out, std::uint64_t v) {
  out += "0x";
  append_hex_digits(out, v);
}

}  // namespace pto::as
