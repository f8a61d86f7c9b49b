// Canonical 24-bit system-register addressing with the Access Control Ring
// checks (asl/scalar/model/sys/registers.asl PTO-REQ-SCALAR-SSR-001,
// asl/scalar/model/sys/semantics.asl, asl/arch/system-registers/**).
// Address bits [15:12] select the ring bank of a context (>= 0xF00) register.
#pragma once

#include <cstdint>

#include "arch/machine.hpp"

namespace pto::scalar {

using SystemRegisterAddress = std::uint32_t;  // bits(24)

enum class SystemRegisterAccess : std::uint8_t { Unknown, ReadOnly, WriteOnly, ReadWrite };

// SystemRegisterAccessOf, from the catalog's access classes.
SystemRegisterAccess system_register_access_of(SystemRegisterAddress address);

// SystemRegisterAccessPermitted (reference profile): base registers at every
// ring, context registers (low index >= 0xF00) at ACR0 only.
constexpr bool system_register_access_permitted(SystemRegisterAddress address, unsigned ring) {
  return (address & 0xFFF) < 0xF00 || ring == 0;
}

// ReadSystemRegisterAddress / WriteSystemRegisterAddress: false after raising
// Fault_IllegalInstruction at the instruction's PC.
bool read_system_register(arch::Machine& m, SystemRegisterAddress address, arch::Word& value);
bool write_system_register(arch::Machine& m, SystemRegisterAddress address, arch::Word value);

// FenceData (FENCE.D's semantics, asl/scalar/model/sys/semantics.asl): clears
// the reservation, records the masks and a fence event; a mask naming
// instruction visibility (bit 3) advances the instruction-cache epoch.
void fence_data(arch::Machine& m, std::uint8_t predecessor, std::uint8_t successor);
// FenceInstruction (FENCE.I's): clears the reservation, advances the
// instruction-cache epoch.
void fence_instruction(arch::Machine& m);

}  // namespace pto::scalar
