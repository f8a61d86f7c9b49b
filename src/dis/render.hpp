// Canonical text for one instruction (no bundle context).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "isa/decoder.hpp"

namespace pto::dis {

struct RenderContext {
  std::optional<std::uint64_t> pc;  // when known, PC-relative targets print as addresses
};

// Canonical assembly for an accepted (or constraint-violating) decoded word.
// Bundle headers rendered without bundle context use the raw representation
// (ADR 0055).
std::string render_standalone(const isa::Decoded& d, std::uint64_t bits, const RenderContext& ctx = {});

}  // namespace pto::dis
