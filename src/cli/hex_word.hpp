// One hexadecimal instruction word as typed on a command line ("0x50160002",
// "c8019181", "0x0000_0001"): its value and, from its digit count, how many
// halfwords it spans (so "0x0002" is one halfword, "0x00000002" two).
#pragma once

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>

namespace pto::cli {

struct HexWord {
  std::uint64_t value = 0;
  unsigned halfwords = 0;
};

inline std::optional<HexWord> parse_hex_word(const std::string& text) {
  std::string s = text;
  if (s.size() > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) s = s.substr(2);
  std::string digits;
  for (char c : s) {
    if (c == '_' || c == '\'') continue;
    if (!std::isxdigit(static_cast<unsigned char>(c))) return std::nullopt;
    digits += c;
  }
  if (digits.empty() || digits.size() > 16) return std::nullopt;
  return HexWord{std::stoull(digits, nullptr, 16), static_cast<unsigned>((digits.size() + 3) / 4)};
}

}  // namespace pto::cli
