#include "numerics/rounding.hpp"

#include <string>

namespace pto::num {

std::optional<RoundingMode> rounding_mode_from_name(std::string_view n) noexcept {
  for (auto m : kAllRoundingModes)
    if (rounding_mode_name(m) == n) return m;
  // Bundle spellings (ADR 0047): RDN = RTM, RUP = RTP.
  if (n == "RDN") return RoundingMode::RTM;
  if (n == "RUP") return RoundingMode::RTP;
  return std::nullopt;
}

std::string flags_to_string(Flags f) {
  static constexpr const char* names[5] = {"NV", "DZ", "OF", "UF", "NX"};
  std::string out;
  for (unsigned i = 0; i < 5; ++i) {
    if (f & (1U << i)) {
      if (!out.empty()) out += '|';
      out += names[i];
    }
  }
  return out;
}

}  // namespace pto::num
