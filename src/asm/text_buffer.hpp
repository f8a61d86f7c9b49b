// Text buffer for rendering many lines (the disassembler's hot path, issue 3
// throughput target): appends are inline, integers print without format-string
// parsing, and a buffer reused across lines stops allocating once it has grown
// to the longest line.
#pragma once

#include <algorithm>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string_view>
#include <type_traits>

namespace pto::as {

class TextBuffer {
 public:
  // Always inline: the appends are the renderers' innermost step, and with a
  // literal argument the length branches fold away.
  [[gnu::always_inline]] TextBuffer& operator+=(std::string_view s) {
    copy_chars(grow(s.size()), s.data(), s.size());
    return *this;
  }
  [[gnu::always_inline]] TextBuffer& operator+=(char c) {
    *grow(1) = c;
    return *this;
  }
  std::size_t size() const { return size_; }
  void truncate(std::size_t n) { size_ = std::min(size_, n); }
  void clear() { size_ = 0; }
  std::string_view view() const { return {buf_.get(), size_}; }
  const char* data() const { return buf_.get(); }
  // Room for `n` characters in all without enlarging.
  void reserve(std::size_t n) {
    if (capacity_ < n) reallocate(n);
  }

 private:
  // Room for `n` more characters; returns where they go.
  [[gnu::always_inline]] char* grow(std::size_t n) {
    if (capacity_ - size_ < n) [[unlikely]]
      enlarge(n);
    char* at = buf_.get() + size_;
    size_ += n;
    return at;
  }
  void enlarge(std::size_t n);
  void reallocate(std::size_t capacity);
  // Most appended pieces are short names: fixed-size copies instead of a
  // memcpy call (overlapping halves cover every length up to 16).
  [[gnu::always_inline]] static void copy_chars(char* to, const char* from, std::size_t n) {
    if (n > 16) {
      copy_long(to, from, n);
    } else if (n >= 8) {
      std::memcpy(to, from, 8);
      std::memcpy(to + n - 8, from + n - 8, 8);
    } else if (n >= 4) {
      std::memcpy(to, from, 4);
      std::memcpy(to + n - 4, from + n - 4, 4);
    } else {
      for (std::size_t i = 0; i < n; ++i) to[i] = from[i];
    }
  }
  // Out of line: inlined with a constant short source GCC warns about the
  // (dead) long branch.
  static void copy_long(char* to, const char* from, std::size_t n);
  // Storage (not zero-filled); only the first size_ characters are text.
  std::unique_ptr<char[]> buf_;
  std::size_t capacity_ = 0;
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
