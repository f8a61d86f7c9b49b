// libFuzzer target: the ELF reader must never crash on arbitrary bytes, and
// whatever it accepts must survive a write/read round trip.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <span>
#include <variant>

#include "elf/elf.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto result = pto::elf::read_image(std::span<const std::uint8_t>(data, size));
  if (auto* image = std::get_if<pto::elf::Image>(&result)) {
    const auto bytes = pto::elf::write_image(*image);
    auto again = pto::elf::read_image(bytes);
    if (!std::holds_alternative<pto::elf::Image>(again)) std::abort();
  }
  return 0;
}
