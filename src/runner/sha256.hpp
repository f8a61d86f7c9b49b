// SHA-256 (FIPS 180-4) for run manifests.
#pragma once

#include <cstdint>
#include <span>
#include <string>

namespace pto::runner {

// Lower-case hex digest of `data`.
std::string sha256_hex(std::span<const std::uint8_t> data);

}  // namespace pto::runner
