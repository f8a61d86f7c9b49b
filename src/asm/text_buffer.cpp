#include "asm/text_buffer.hpp"

namespace pto::as {

// Out of line so that the common append (room available) stays small enough
// to inline.
void TextBuffer::enlarge(std::size_t n) { reallocate(std::max(2 * capacity_, size_ + n + 64)); }

void TextBuffer::copy_long(char* to, const char* from, std::size_t n) { std::memcpy(to, from, n); }

void TextBuffer::reallocate(std::size_t capacity) {
  auto bigger = std::make_unique_for_overwrite<char[]>(capacity);
  if (size_ != 0) std::memcpy(bigger.get(), buf_.get(), size_);
  buf_ = std::move(bigger);
  capacity_ = capacity;
}

}  // namespace pto::as
