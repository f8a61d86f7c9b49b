// Bundle-aware disassembly of a code region (ADR 0055, ADR 0058).
//
// The region is decoded with the length rule, then each complete bundle
// (BSTART to its terminator) is collected before B.IOR is rendered with the
// operand list of the resolved tile operation's schema.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "asm/text_buffer.hpp"
#include "isa/decoder.hpp"

namespace pto::dis {

struct Line {
  std::uint64_t address = 0;
  std::array<std::uint8_t, 8> raw{};  // the instruction's bytes (size of them valid)
  std::uint8_t size = 0;
  std::span<const std::uint8_t> bytes() const { return {raw.data(), size}; }
  unsigned length_bits = 0;       // 0 for trailing data bytes
  isa::DecodeStatus status = isa::DecodeStatus::NoForm;
  std::optional<isa::FormIndex> form;
  std::string text;     // canonical assembly, or a data directive
  std::string comment;  // why a word prints as data / raw
};

struct Options {
  bool bundle_aware = true;
  // false: accepted instructions get no text and bundles are not shaped (a
  // decode-only pass for addresses, forms and bytes, e.g. for label_targets).
  bool text = true;
  // Names for addresses (symbols); label operands print these.
  std::function<std::optional<std::string>(std::uint64_t)> symbolize;
};

std::vector<Line> disassemble(std::span<const std::uint8_t> bytes, std::uint64_t base, const Options& options = {});

// Label targets of the accepted instructions in `lines` (for --reassemble).
std::vector<std::uint64_t> label_targets(const std::vector<Line>& lines);

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
