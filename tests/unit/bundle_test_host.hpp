// Test harness for the tile bundle engine inside the machine: encoded
// instruction words executed one by one with runner::execute_instruction
// (the ExecutePTOInstruction entry the spec's test points use), a real-profile
// guest memory, and an encoder that builds header words from catalog field
// names.  The pending header state is the machine's arch::State::block.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cstring>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "arch/machine.hpp"
#include "block/bundle_engine.hpp"
#include "isa/catalog.hpp"
#include "isa/decoder.hpp"
#include "isa/length.hpp"
#include "runner/dispatch.hpp"

namespace pto::test {

// Encode a catalog form by id from named field values (unnamed fields = 0).
inline std::uint64_t encode_form(const char* form_id, const std::map<std::string, std::int64_t>& values) {
  const auto index = isa::form_by_id(form_id);
  EXPECT_TRUE(index.has_value()) << form_id;
  const isa::FormDesc& f = isa::form(*index);
  std::vector<std::int64_t> ordered;
  for (const isa::FieldDesc& fd : isa::fields_of(f)) {
    const auto it = values.find(fd.name);
    ordered.push_back(it == values.end() ? 0 : it->second);
  }
  const auto r = isa::encode(f, ordered);
  EXPECT_TRUE(std::holds_alternative<std::uint64_t>(r)) << form_id;
  return std::holds_alternative<std::uint64_t>(r) ? std::get<std::uint64_t>(r) : 0;
}

// Form ids (catalog command-forms.json).
inline constexpr const char* kBDimLB0 = "b_dim_32_27602ab68929";
inline constexpr const char* kBDimLB1 = "b_dim_32_4191099a5f4d";
inline constexpr const char* kBDimLB2 = "b_dim_32_1caa1aa2944a";
inline constexpr const char* kBIor = "b_ior_32_c3ea71404eb3";
inline constexpr const char* kBIotDst = "b_iot_32_efa0fe3fe49a";        // ->Dst
inline constexpr const char* kBIotSrcDst = "b_iot_32_10db6db84f5d";     // Src0 ->Dst
inline constexpr const char* kBIotSrcSrcDst = "b_iot_32_8b8bce6bffe8";  // Src0, Src1 ->Dst
inline constexpr const char* kBIotSrc = "b_iot_32_c11eb189dd83";        // Src0
inline constexpr const char* kBIotSrcSrc = "b_iot_32_2c07e7177fad";     // Src0, Src1
inline constexpr const char* kBIos = "b_ios_32_4ba5ef98fdaa";
inline constexpr const char* kBDatr = "b_datr_32_c161a042ff38";
inline constexpr std::uint64_t kBstop = 0x00000001;

inline std::uint64_t tile_start(std::uint32_t base_match, std::uint32_t function, unsigned data_type, unsigned mode = 0) {
  return base_match | (function << 20) | (mode << 25) | (std::uint64_t{data_type} << 27);
}
// BSTART of a TLSU operation (Function 0 TLOAD, 1 TSTORE, 3 TPREFETCH, 4 MGATHER, ...).
inline std::uint64_t tlsu_start(unsigned function, unsigned dt) { return tile_start(0x00011181, function, dt); }
inline std::uint64_t tload_start(unsigned dt) { return tile_start(0x00011181, 0, dt); }
inline std::uint64_t tstore_start(unsigned dt) { return tile_start(0x00011181, 1, dt); }
inline std::uint64_t tepl_start(unsigned function, unsigned dt, unsigned mode = 0) {
  return tile_start(0x00019181, function, dt, mode);
}
// BSTART of a TEPL-class tile operation (its catalog Function and Mode).
inline std::uint64_t start_of(isa::TileOp op, unsigned data_type) {
  const isa::TileOpDesc& d = isa::tile_op(op);
  return tepl_start(d.function, data_type, d.mode);
}
// B.IOS: Shared register `id` of SizeCode `size` for PEMode `pe_mode`.
inline std::uint64_t ios(unsigned id, unsigned size, unsigned pe_mode = 7) {
  return encode_form(kBIos, {{"SharedTID", id}, {"SizeCode", size}, {"PEMode", pe_mode}});
}
// B.IOT Src0 -> hand 1 (U), SizeCode 1 (128 bytes), every PE, last binding.
inline std::uint64_t src_to_hand1(unsigned s) {
  return encode_form(kBIotSrcDst, {{"SrcTile0", s}, {"DstTile", 1}, {"SizeCode", 1}, {"PEMode", 7}, {"L", 1}});
}
inline std::uint64_t bdim(unsigned lb, std::int64_t imm, unsigned reg = 0) {
  const char* id = lb == 0 ? kBDimLB0 : lb == 1 ? kBDimLB1 : kBDimLB2;
  return encode_form(id, {{"RegSrc", reg}, {"uimm17", imm}});
}
inline std::uint64_t bior(unsigned s0, unsigned s1, unsigned s2 = 0, unsigned dst = 0) {
  return encode_form(kBIor, {{"RegSrc0", s0}, {"RegSrc1", s1}, {"RegSrc2", s2}, {"RegDst", dst}});
}

enum class BundleStatus : std::uint8_t { Done, Fault, NotImplemented };

// What one run of words ended with: the first faulting / unimplemented
// attempt, or success of the last word.
struct BundleOutcome {
  BundleStatus status = BundleStatus::Done;
  arch::FaultCode fault = arch::FaultCode::Fault_None;
  arch::Word fault_address = 0;
  std::string message;
  block::BundleTrace trace;  // the last tile commit attempt
  bool ok() const { return status == BundleStatus::Done; }
};

class BundleTestHost {
 public:
  explicit BundleTestHost(const arch::MachineConfig& config = arch::MachineConfig::real())
      : m(config), gpr(m.state.gpr[0]), file(block::tile_state(m).file) {
    m.state.pc = 0x100000;  // code addresses away from the data the tests use
  }

  void poke(arch::Word a, std::uint8_t v) { m.memory.write(a, 1, v); }
  void store32(arch::Word a, std::uint32_t v) { m.memory.write(a, 4, v); }
  std::uint32_t load32(arch::Word a) const { return static_cast<std::uint32_t>(m.memory.read(a, 4)); }
  std::uint8_t byte(arch::Word a) const { return static_cast<std::uint8_t>(m.memory.read(a, 1)); }

  // Executes each word at the current TPC; stops at the first fault or
  // not-implemented stop.
  BundleOutcome run(const std::vector<std::uint64_t>& words) {
    BundleOutcome o;
    for (const std::uint64_t w : words) {
      const unsigned len = isa::base_length_bits(static_cast<std::uint16_t>(w));
      const scalar::ExecOutcome e = runner::execute_instruction(m, w, len);
      o.trace = block::tile_state(m).trace;
      if (scalar::is_fault(e)) {
        o.status = BundleStatus::Fault;
        o.fault = scalar::fault_of(e);
        o.fault_address = m.state.fault_address;
        return o;
      }
      if (e == scalar::ExecOutcome::NotImplemented) {
        o.status = BundleStatus::NotImplemented;
        o.message = block::tile_not_implemented_detail(m);
        return o;
      }
    }
    return o;
  }
  // The destination the last tile commit renamed its first binding to.
  tile::TileIndex destination() const {
    const auto& d = block::tile_state(const_cast<arch::Machine&>(m)).trace.destinations;
    EXPECT_FALSE(d.empty());
    return d.empty() ? 0 : d[0];
  }
  arch::BlockState& state() { return m.state.block; }

  arch::Machine m;
  std::array<arch::Word, arch::kAbsoluteGprCount>& gpr;
  tile::TileFile& file;
};

// Data type codes (asl/arch/data-types/tile-data-types.asl).
inline constexpr unsigned kU32 = 25, kFP32 = 1, kU8 = 27, kU4X2 = 28, kU16 = 26, kS32 = 17;

// BSTART.TLOAD U32; LB0=2; LB1=2; [LB2=cols]; B.IOT SizeCode=1 mask=1111 L ->T
inline std::vector<std::uint64_t> two_by_two_tload(std::optional<unsigned> lb2) {
  std::vector<std::uint64_t> w{tload_start(kU32), bdim(0, 2), bdim(1, 2)};
  if (lb2) w.push_back(bdim(2, *lb2));
  w.push_back(encode_form(kBIotDst, {{"SizeCode", 1}, {"PEMode", 7}, {"L", 1}, {"DstTile", 0}}));
  return w;
}

// The element (r, c) of tile t; it must be defined (ReadTileElement asserts it).
inline std::uint64_t element_at(const BundleTestHost& h, tile::TileIndex t, unsigned r, unsigned c) {
  const tile::Tile& x = h.file.tile(t);
  EXPECT_TRUE(x.element_defined_at(r, c));
  return x.read_word(x.linear_index(r, c));
}

}  // namespace pto::test
