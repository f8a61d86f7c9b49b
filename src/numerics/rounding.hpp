// Semantic rounding modes, selector namespaces and numeric status flags.
// asl/arch/data-types/rounding.asl, asl/scalar/model/fsu/arithmetic.asl,
// ADR 0047 (rounding semantics), ADR 0038 (flag state).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace pto::num {

// Ordinals follow the ASL enumeration NumericRoundingMode. These ordinals are
// NOT an encoding namespace; use the decode_* helpers for raw selectors.
enum class RoundingMode : std::uint8_t {
  RNE = 0,  // nearest, ties to even
  RTM = 1,  // toward negative infinity
  RTP = 2,  // toward positive infinity
  RTZ = 3,  // toward zero
  RNA = 4,  // nearest, ties away from zero
  RTO = 5,  // inexact -> adjacent candidate whose last retained bit is one
  RHB = 6,  // nearest, exact halfway -> numerically greater candidate
};
inline constexpr RoundingMode kAllRoundingModes[] = {RoundingMode::RNE, RoundingMode::RTM, RoundingMode::RTP,
                                                     RoundingMode::RTZ, RoundingMode::RNA, RoundingMode::RTO,
                                                     RoundingMode::RHB};

constexpr std::string_view rounding_mode_name(RoundingMode m) noexcept {
  switch (m) {
    case RoundingMode::RNE: return "RNE";
    case RoundingMode::RTM: return "RTM";
    case RoundingMode::RTP: return "RTP";
    case RoundingMode::RTZ: return "RTZ";
    case RoundingMode::RNA: return "RNA";
    case RoundingMode::RTO: return "RTO";
    case RoundingMode::RHB: return "RHB";
  }
  return "?";
}
std::optional<RoundingMode> rounding_mode_from_name(std::string_view n) noexcept;  // also RDN/RUP aliases

// CORE_STATE[39:37] scalar active rounding (ADR 0047): 0 RNE, 1 RTM, 2 RTP,
// 3 RTZ, 4..7 reserved -> RNE without trap.
constexpr RoundingMode decode_scalar_frm(unsigned raw3) noexcept {
  switch (raw3 & 7U) {
    case 1: return RoundingMode::RTM;
    case 2: return RoundingMode::RTP;
    case 3: return RoundingMode::RTZ;
    default: return RoundingMode::RNE;
  }
}

// B.DATR.RMode (ADR 0047, DecodeBundleRoundingSelection).
struct RoundingSelection {
  bool use_operation_default;  // raw 000 = NONE
  RoundingMode mode;           // meaningful when !use_operation_default
};
constexpr RoundingSelection decode_bundle_rmode(unsigned raw3) noexcept {
  switch (raw3 & 7U) {
    case 0: return {true, RoundingMode::RNE};
    case 1: return {false, RoundingMode::RNE};
    case 2: return {false, RoundingMode::RTZ};
    case 3: return {false, RoundingMode::RTM};
    case 4: return {false, RoundingMode::RTP};
    case 5: return {false, RoundingMode::RNA};
    case 6: return {false, RoundingMode::RTO};
    default: return {false, RoundingMode::RHB};
  }
}
// Resolve NONE: RNE, except float->integer TCVT which resolves to RTZ.
constexpr RoundingMode resolve_bundle_rmode(unsigned raw3, bool float_to_integer_tcvt) noexcept {
  const auto s = decode_bundle_rmode(raw3);
  if (!s.use_operation_default) return s.mode;
  return float_to_integer_tcvt ? RoundingMode::RTZ : RoundingMode::RNE;
}

// Public conversion enumeration (CAST_NONE..CAST_ODD) -> bundle RMode raw
// value. Public 7 is unassigned and rejects (nullopt).
constexpr std::optional<unsigned> public_cast_to_bundle_rmode(unsigned public_value) noexcept {
  constexpr unsigned map[7] = {0, 1, 5, 3, 4, 2, 6};
  if (public_value > 6) return std::nullopt;
  return map[public_value];
}

// Fixed scalar conversion mnemonics (ADR 0047).
enum class FixedConversion : std::uint8_t { FCVTA, FCVTM, FCVTN, FCVTP, FCVTZ };
constexpr RoundingMode fixed_conversion_mode(FixedConversion f) noexcept {
  switch (f) {
    case FixedConversion::FCVTA: return RoundingMode::RNA;
    case FixedConversion::FCVTM: return RoundingMode::RTM;
    case FixedConversion::FCVTN: return RoundingMode::RNE;
    case FixedConversion::FCVTP: return RoundingMode::RTP;
    case FixedConversion::FCVTZ: return RoundingMode::RTZ;
  }
  return RoundingMode::RNE;
}

// Numeric status flags: CORE_STATE[36:32] holds NV, DZ, OF, UF, NX from low
// to high (ADR 0038). Flags values here are the 5-bit field (shift by
// kCoreStateFlagShift to place in CORE_STATE).
using Flags = std::uint8_t;
inline constexpr Flags kNV = 1U << 0;  // invalid operation
inline constexpr Flags kDZ = 1U << 1;  // divide by zero
inline constexpr Flags kOF = 1U << 2;  // overflow
inline constexpr Flags kUF = 1U << 3;  // underflow (tiny after rounding and inexact)
inline constexpr Flags kNX = 1U << 4;  // inexact
inline constexpr unsigned kCoreStateFlagShift = 32;
std::string flags_to_string(Flags f);  // e.g. "NV|NX", "" for none

// Operation result: carrier bits (right-aligned, zero-extended) + flags.
struct Result {
  std::uint64_t bits = 0;
  Flags flags = 0;
  friend constexpr bool operator==(const Result&, const Result&) = default;
};

}  // namespace pto::num
