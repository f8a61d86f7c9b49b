// runner::state_digest: equal for equal states, and each part of the state a
// dump shows changes its part of the digest (fuzz/fuzz_run.cpp compares
// digests instead of JSON dumps).
#include <gtest/gtest.h>

#include <array>
#include <cstdint>
#include <span>

#include "arch/machine.hpp"
#include "block/bundle_engine.hpp"
#include "runner/state_digest.hpp"

namespace {

using pto::arch::Machine;
using pto::arch::MachineConfig;
using pto::runner::state_digest;
using pto::runner::StateDigest;

// One row of U32 elements, `valid` of 4 columns valid, on every PE.
pto::tile::ConfigureRequest u32_row(std::uint32_t valid) {
  pto::tile::ConfigureRequest r;
  r.capacity_bytes = 128;
  r.columns = 4;
  r.valid_rows = 1;
  r.valid_columns = valid;
  r.data_type = pto::tile::DataType::U32;
  r.mask = 0b1111;
  return r;
}

TEST(StateDigest, EqualForFreshMachines) {
  Machine a(MachineConfig::reference()), b(MachineConfig::reference());
  EXPECT_EQ(state_digest(a), state_digest(b));
}

TEST(StateDigest, RegistersControlAndFaultsChangeTheirParts) {
  Machine m(MachineConfig::reference());
  const StateDigest before = state_digest(m);
  m.state.gpr[0][5] = 7;
  const StateDigest registers = state_digest(m);
  EXPECT_NE(registers.registers, before.registers);
  EXPECT_EQ(registers.control, before.control);
  m.state.block.tile_bindings[3].source1 = 2;
  const StateDigest control = state_digest(m);
  EXPECT_NE(control.control, registers.control);
  m.set_fault(pto::arch::FaultCode::Fault_DataPage, 0x40);
  const StateDigest fault = state_digest(m);
  EXPECT_EQ(fault.last_fault, pto::arch::FaultCode::Fault_DataPage);
  EXPECT_EQ(fault.fault_address, 0x40u);
}

TEST(StateDigest, MemoryBytesChangeTheMemoryPart) {
  Machine m(MachineConfig::reference());
  const std::array<std::uint8_t, 2> bytes{1, 2};
  m.memory.write_bytes(0x100, bytes);
  const StateDigest first = state_digest(m);
  m.memory.write_bytes(0x101, std::span<const std::uint8_t>(bytes).first(1));
  const StateDigest second = state_digest(m);
  EXPECT_NE(second.memory, first.memory);
  EXPECT_EQ(second.registers, first.registers);
}

TEST(StateDigest, TileDescriptorsAndElementsChangeTheTilePart) {
  Machine m(MachineConfig::reference());
  const StateDigest empty = state_digest(m);
  pto::tile::TileFile& file = pto::block::tile_state(m).file;
  ASSERT_EQ(file.configure(5, u32_row(2)), pto::arch::FaultCode::Fault_None);
  const StateDigest configured = state_digest(m);
  EXPECT_NE(configured.tiles, empty.tiles);
  file.tile(5).write_element(0, 1, 9);
  EXPECT_NE(state_digest(m).tiles, configured.tiles);
}

// fuzz/fuzz_run.cpp reuses one machine per loop through reset().
TEST(StateDigest, ResetMachineDigestsAsAFreshOne) {
  Machine used(MachineConfig::reference());
  ASSERT_EQ(pto::block::tile_state(used).file.configure(7, u32_row(4)), pto::arch::FaultCode::Fault_None);
  used.state.gpr[1][3] = 1;
  used.memory.write_bytes(0x200, std::array<std::uint8_t, 1>{5});
  used.reset();
  const Machine fresh(MachineConfig::reference());
  EXPECT_EQ(state_digest(used), state_digest(fresh));
}

}  // namespace
