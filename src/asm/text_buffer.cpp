#include "asm/text_buffer.hpp"

namespace pto::as {

// Out of line so that the common append (room available) stays small enough
// to inline.
void TextBuffer::enlarge(std::size_t n) { buf_.resize(std::max(2 * buf_.size(), size_ + n + 64)); }

}  // namespace pto::as
