// Architectural state as JSON (schema: docs/state-dump.md).
#pragma once

#include <nlohmann/json.hpp>

#include "arch/machine.hpp"

namespace pto::runner {

// Resident memory pages are included with their contents when the total is
// at most `memory_content_limit` bytes, otherwise with a SHA-256 per page.
nlohmann::json dump_state(const arch::Machine& m, std::uint64_t memory_content_limit = 1u << 20);

std::string hex_word(arch::Word v);

// "reference" or "ieee" (the `pto run --numeric-profile` spelling).
std::string numeric_profile_name(arch::NumericProfileKind p);

}  // namespace pto::runner
