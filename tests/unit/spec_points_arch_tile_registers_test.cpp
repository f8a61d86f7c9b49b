// Arch points the execution extractors cannot translate, by hand (expected
// values are the points'):
//
// PTO-AVS-ARCH-TESTTILEREGISTERMAPPING-STATE-TRANSITION-001
// (tests/asl/arch/programming-model/tile-registers/arch-state-register-mapping-001.asl)
// asserts only model helpers (no architectural observation), so each assertion
// is checked against the function the tile register file uses for the same
// fact.  TileStorageBytes has no function of its own in the model: the
// register file sizes a descriptor by logical_element_capacity, so "r x c
// elements take n bytes" is checked as "n bytes hold them, n - 1 do not".
//
// PTO-AVS-ARCH-EXTENSION-FIRST-USE-DEFAULT-001
// (tests/asl/arch/profile/extension-first-use/arch-exec-extension-first-use-default-001.asl)
// calls RaiseExtensionFirstUse directly; the model has no first-use trap
// (the reference profile leaves it disabled), so the point is observed by
// using each extension for the first time: a VECTOR (TMAX) and a CUBE
// (TMATMUL) bundle run under ACR 2 raise nothing and leave the trap status,
// the T queue and the memory-capture switch as they were.  The point's
// ExtensionFirstUseKind_VECTOR != _CUBE and ExtensionFirstUseEnabled(k)
// assertions have no counterpart (no first-use state to read).
#include <gtest/gtest.h>

#include <cstdint>
#include <utility>

#include "arch/machine.hpp"
#include "numerics/datatypes.hpp"
#include "runner/dispatch.hpp"
#include "tile/tile_state.hpp"
#include "tile/tile_types.hpp"

namespace pto::test {
namespace {

using num::DataType;

// TileStorageBytes(rows, columns, t) == bytes, through the capacity the
// register file accounts descriptors by.
bool storage_bytes_are(std::uint32_t rows, std::uint32_t columns, DataType t, std::uint32_t bytes) {
  const std::uint64_t elements = std::uint64_t{rows} * columns;
  return tile::logical_element_capacity(bytes, t) >= elements && tile::logical_element_capacity(bytes - 1, t) < elements;
}

TEST(SpecPointsArchTileRegisters, PTO_AVS_ARCH_TESTTILEREGISTERMAPPING_STATE_TRANSITION_001) {
  // TileHandOf / TileIndexWithinHand.
  EXPECT_EQ(tile::hand_of(0), tile::TileHand::T);
  EXPECT_EQ(tile::hand_of(15), tile::TileHand::T);
  EXPECT_EQ(tile::hand_of(16), tile::TileHand::U);
  EXPECT_EQ(tile::hand_of(32), tile::TileHand::M);
  EXPECT_EQ(tile::hand_of(63), tile::TileHand::N);
  EXPECT_EQ(tile::index_within_hand(0), 1U);
  EXPECT_EQ(tile::index_within_hand(63), 16U);

  // TileCapacityIsLegal / SharedTileCapacityIsLegal: the register file's
  // Local and Shared allocation gates.
  const tile::TileFile file;
  for (const auto& [bytes, legal] : {std::pair<std::uint32_t, bool>{0, false}, {128, true}, {256, true},
                                     {262144, false}, {8192, true}, {192, false}, {32, false}}) {
    EXPECT_EQ(file.local_capacity_legal(bytes), legal) << bytes;
  }
  EXPECT_TRUE(file.shared_capacity_legal(262144));

  // TileSizeCodeBytes / TileSizeCodeIsLegal / LocalTileSizeCodeIsLegal.
  EXPECT_EQ(tile::size_code_bytes(1), 128U);
  EXPECT_EQ(tile::size_code_bytes(7), 8192U);
  EXPECT_EQ(tile::size_code_bytes(10), 65536U);
  EXPECT_EQ(tile::size_code_bytes(12), 262144U);
  EXPECT_FALSE(tile::size_code_legal(0));
  EXPECT_TRUE(tile::size_code_legal(12));
  EXPECT_FALSE(tile::size_code_legal(13));
  EXPECT_TRUE(tile::local_size_code_legal(10));
  EXPECT_FALSE(tile::local_size_code_legal(11));

  // TileElementBits of every data type.
  const std::pair<DataType, unsigned> bits[] = {
      {DataType::FP64, 64}, {DataType::FP32, 32},  {DataType::TF32, 32},   {DataType::HF32, 32},   {DataType::FP16, 16},
      {DataType::BF16, 16}, {DataType::HiF8, 8},   {DataType::E4M3, 8},    {DataType::E5M2, 8},    {DataType::E3M2, 8},
      {DataType::E2M3, 8},  {DataType::E2M1X2, 4}, {DataType::E1M2X2, 4},  {DataType::E8M0, 8},    {DataType::HiF4X2, 4},
      {DataType::S8, 8},    {DataType::U8, 8},     {DataType::S16, 16},    {DataType::U16, 16},    {DataType::S32, 32},
      {DataType::U32, 32},  {DataType::S64, 64},   {DataType::U64, 64},    {DataType::S4X2, 4},    {DataType::U4X2, 4}};
  for (const auto& [t, b] : bits) EXPECT_EQ(tile::element_bits(t), b) << static_cast<unsigned>(t);

  // TileDataTypeEncodingValid: codes 0-14, 16-20, 24-28.
  for (unsigned code = 0; code < 32; ++code) {
    const bool expected = code <= 14 || (code >= 16 && code <= 20) || (code >= 24 && code <= 28);
    EXPECT_EQ(num::data_type_code_valid(static_cast<std::uint8_t>(code)), expected) << code;
  }
  // TileDataTypeFromEncoding.
  const std::pair<unsigned, DataType> codes[] = {
      {0, DataType::FP64},    {1, DataType::FP32},    {2, DataType::TF32},  {3, DataType::HF32},  {4, DataType::FP16},
      {5, DataType::BF16},    {6, DataType::HiF8},    {7, DataType::E4M3},  {8, DataType::E5M2},  {9, DataType::E3M2},
      {10, DataType::E2M3},   {11, DataType::E2M1X2}, {12, DataType::E1M2X2}, {13, DataType::E8M0}, {14, DataType::HiF4X2},
      {16, DataType::S64},    {17, DataType::S32},    {18, DataType::S16},  {19, DataType::S8},   {20, DataType::S4X2},
      {24, DataType::U64},    {25, DataType::U32},    {26, DataType::U16},  {27, DataType::U8},   {28, DataType::U4X2}};
  for (const auto& [code, t] : codes) EXPECT_EQ(num::data_type_from_code(static_cast<std::uint8_t>(code)), t) << code;
  EXPECT_FALSE(num::data_type_code_valid(15));

  // TileStorageBytes (bit-packed: two four-bit elements per byte, an odd
  // final element rounds up) and TileStorageFitsCapacity.
  EXPECT_TRUE(storage_bytes_are(1, 1, DataType::U4X2, 1));
  EXPECT_TRUE(storage_bytes_are(1, 2, DataType::U4X2, 1));
  EXPECT_TRUE(storage_bytes_are(1, 3, DataType::U4X2, 2));
  EXPECT_TRUE(storage_bytes_are(2, 2, DataType::U64, 32));
  EXPECT_GE(tile::logical_element_capacity(256, DataType::U8), 32U * 8U);
  EXPECT_LT(tile::logical_element_capacity(256, DataType::U64), 33U * 1U);
}

// BSTART of a tile bundle (BSTART.TEPL TMAX / BSTART.TMATMUL FP16), B.IOT
// with PE mask 0000 and every tile operand 63 (a zero-mask no-op, as the
// B.IOT zero-mask points), BSTOP.
constexpr std::uint64_t kBstartVecTmax = 0xc0b19181;
constexpr std::uint64_t kBstartTmatmulFp16 = 0x20031181;
constexpr std::uint64_t kBiotZeroMask = 0x03f85013;
constexpr std::uint64_t kBstop = 0x00000001;

TEST(SpecPointsArchProfile, PTO_AVS_ARCH_EXTENSION_FIRST_USE_DEFAULT_001) {
  arch::Machine m{arch::MachineConfig::reference()};
  arch::State& s = m.state;
  m.set_current_acr(2);
  s.pc = 0x400;  // WriteTPC
  s.t_queue.push(0x66);
  s.memory_event_capture = true;
  const arch::TrapStatus before = s.trap_status[1];
  for (const std::uint64_t start : {kBstartVecTmax, kBstartTmatmulFp16}) {
    for (const std::uint64_t word : {start, kBiotZeroMask, kBstop}) {
      const scalar::ExecOutcome o = runner::execute_instruction(m, word, 32);
      ASSERT_TRUE(scalar::is_success(o)) << std::hex << word;
    }
    EXPECT_EQ(s.last_fault, arch::FaultCode::Fault_None);
    EXPECT_EQ(s.current_acr, 2U);
    EXPECT_EQ(s.trap_status[1].number, before.number);
    EXPECT_EQ(s.trap_status[1].argument0, before.argument0);
    EXPECT_EQ(s.read_reg5(arch::kReg5TQueueFirst), 0x66U);
    EXPECT_TRUE(s.memory_event_capture);
  }
}

}  // namespace
}  // namespace pto::test
