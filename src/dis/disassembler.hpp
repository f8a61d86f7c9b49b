// Bundle-aware disassembly of a code region (ADR 0055, ADR 0058).
//
// The region is decoded with the length rule, then each complete bundle
// (BSTART to its terminator) is collected before B.IOR is rendered with the
// operand list of the resolved tile operation's schema.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "asm/syntax_kind.hpp"
#include "asm/text_buffer.hpp"
#include "isa/decoder.hpp"

namespace pto::dis {

class ListingBuilder;

// One disassembled instruction or data directive.  Its text and comment live
// in the text store of the Listing it came from (one buffer for all lines
// instead of two strings per line: the issue 3 throughput target), so the
// views are valid while that Listing lives.
struct Line {
  std::uint64_t address = 0;
  std::array<std::uint8_t, 8> raw{};  // the instruction's bytes (size of them valid, the rest zero)
  std::uint8_t size = 0;
  std::uint8_t length_bits = 0;  // 0 for trailing data bytes
  isa::DecodeStatus status = isa::DecodeStatus::NoForm;
  std::optional<isa::FormIndex> form;

  std::span<const std::uint8_t> bytes() const { return {raw.data(), size}; }
  // Canonical assembly, or a data directive.
  std::string_view text() const { return store_ ? store_->view().substr(begin_, text_size_) : std::string_view(); }
  // Why a word prints as data / raw ("" when it does not).
  std::string_view comment() const {
    return store_ ? store_->view().substr(begin_ + text_size_, comment_size_) : std::string_view();
  }

 private:
  friend class ListingBuilder;
  const as::TextBuffer* store_ = nullptr;
  std::uint32_t begin_ = 0;  // text, then comment, from here in *store_
  std::uint16_t text_size_ = 0;
  std::uint16_t comment_size_ = 0;
};

// The lines of a disassembled region and the text they view (move-only; a
// contiguous range of Line, so it converts to std::span<const Line>).
class Listing {
 public:
  Listing();
  const Line* begin() const { return lines_.data(); }
  const Line* end() const { return lines_.data() + lines_.size(); }
  const Line* data() const { return lines_.data(); }
  std::size_t size() const { return lines_.size(); }
  bool empty() const { return lines_.empty(); }
  const Line& operator[](std::size_t i) const { return lines_[i]; }
  const Line& front() const { return lines_.front(); }
  const Line& back() const { return lines_.back(); }

 private:
  friend class ListingBuilder;
  std::unique_ptr<as::TextBuffer> store_;  // heap-held: Line::store_ survives moves of the Listing
  std::vector<Line> lines_;
};

struct Options {
  bool bundle_aware = true;
  // false: accepted instructions get no text and bundles are not shaped (a
  // decode-only pass for addresses, forms and bytes, e.g. for label_targets).
  bool text = true;
  // Names for addresses (symbols); label operands print these.
  std::function<std::optional<std::string>(std::uint64_t)> symbolize;
  // LLVM spellings print every B.IOR as its four raw fields (no bundle shaping).
  as::Syntax syntax = as::Syntax::Canonical;
};

Listing disassemble(std::span<const std::uint8_t> bytes, std::uint64_t base, const Options& options = {});

// Label targets of the accepted instructions in `lines` (for --reassemble).
std::vector<std::uint64_t> label_targets(std::span<const Line> lines);

// Data directive for undecodable or reserved bytes: .half/.word lists that
// reassemble to the same bytes.
std::string data_directive(std::span<const std::uint8_t> bytes);

// Instruction bytes as space-separated hex pairs ("13 00 a0 02").
void append_bytes_text(as::TextBuffer& out, std::span<const std::uint8_t> bytes);

// One objdump-style listing line: address (hex, right-aligned to 8), bytes
// (left-aligned to 24) when `with_bytes`, text and "  # comment"; appended to
// `out` without temporaries (the `pto dis` output path).
void append_listing_line(as::TextBuffer& out, const Line& l, bool with_bytes);

// Why a non-accepted word is not an instruction ("reserved: ...", "illegal: ...").
std::string status_comment(const isa::Decoded& d, std::uint64_t bits);

}  // namespace pto::dis
