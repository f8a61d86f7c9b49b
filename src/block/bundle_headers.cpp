// Header binding commands of the tile bundle engine: B.DATR, B.DIM,
// C.B.DIMI, B.IOR, B.IOT, B.IOS and B.FPATR (ExecuteDecodedBundleCommand in
// asl/block/model/dispatch/commands.asl; asl/block/model/operands/*.asl;
// asl/block/model/schema/{dimensions,attributes}.asl).  Every handler writes
// the pending block in arch::State::block only (ADR 0055: the schema is
// resolved at the terminator, src/block/bundle_engine.cpp).
#include <algorithm>
#include <array>
#include <cassert>
#include <initializer_list>
#include <vector>

#include "block/control.hpp"
#include "block/generated/data_layouts.hpp"
#include "tile/ops_matrix.hpp"
#include "tile/tile_ops.hpp"

namespace pto::block {
namespace {

using arch::BlockState;
using arch::FaultCode;
using arch::Machine;
using scalar::DecodedInsn;
using scalar::ExecOutcome;

ExecOutcome fault(Machine& m, FaultCode code) {
  return m.set_fault(code, m.state.pc);
}

// The indices of a handler's fields (by catalog name) in every form of its
// mnemonics, looked up once, on the handler's first instruction: the
// handlers run on every bundle, and a catalog lookup compares names.
template <std::size_t N>
class FormFields {
 public:
  // The fields of one decoded instruction: value(k) is field names[k] (0
  // when the form lacks it).
  class View {
   public:
    View(const DecodedInsn& d, const std::array<std::int8_t, N>& index) : d_(d), index_(index) {}
    bool has(std::size_t k) const { return index_[k] >= 0; }
    std::uint64_t value(std::size_t k) const { return has(k) ? d_.u(static_cast<unsigned>(index_[k])) : 0; }

   private:
    const DecodedInsn& d_;
    const std::array<std::int8_t, N>& index_;
  };

  FormFields(std::initializer_list<isa::Mnemonic> mnemonics, const std::array<std::string_view, N>& names) {
    static_assert(scalar::kMaxDecodedFields <= 127, "field indices fit an int8");
    for (isa::Mnemonic m : mnemonics)
      for (isa::FormIndex f : isa::forms_of_mnemonic(m)) {
        Slots slots{f, {}};
        for (std::size_t k = 0; k < N; ++k)
          slots.index[k] = static_cast<std::int8_t>(isa::field_index(isa::form(f), names[k]));
        forms_.push_back(slots);
      }
  }

  // The handler table dispatches only the mnemonics' forms here.
  View of(const DecodedInsn& d) const {
    const auto it = std::find_if(forms_.begin(), forms_.end(), [&](const Slots& s) { return s.form == d.form; });
    assert(it != forms_.end());
    return View(d, it->index);
  }

 private:
  struct Slots {
    isa::FormIndex form;
    std::array<std::int8_t, N> index;
  };
  std::vector<Slots> forms_;
};

bool header_placement_ok(const BlockState& b) { return b.bundle_active && !b.bundle_body_active; }

// TileDataLayoutCodeAccepted / TileDataLayoutCodeSupported.
bool layout_code_supported(unsigned code) {
  return code < 32 && (generated::kDataLayoutCodeAcceptedMask >> code & 1U) != 0;
}

// BundleDataTypeFieldValid: a concrete type or DTYPE_NONE.
bool data_type_field_valid(unsigned code) {
  return num::data_type_code_valid(static_cast<std::uint8_t>(code)) || code == num::kDataTypeNoneCode;
}

// SetBundleDataAttributes, then SetBundleDataAttributeState.
ExecOutcome B_DATR(Machine& m, const DecodedInsn& d) {
  enum : std::size_t { DataType, Layout, PadValueOrByteId, CMode, RMode, Sat, Canonicalize };
  static const FormFields<7> fields({isa::Mnemonic::B_DATR},
                                    {"DataType", "Layout", "PadValueOrByteId", "CMode", "RMode", "Sat", "Canonicalize"});
  const auto f = fields.of(d);
  BlockState& b = m.state.block;
  if (!header_placement_ok(b) || b.data_attributes_present) return fault(m, FaultCode::Fault_BundleControl);
  const auto data_type = static_cast<std::uint8_t>(f.value(DataType) & 0x1F);
  const auto layout = static_cast<std::uint8_t>(f.value(Layout) & 0x1F);
  if (!data_type_field_valid(data_type) || !layout_code_supported(layout)) return fault(m, FaultCode::Fault_TileLegality);
  arch::BundleDataAttributes& a = b.data_attributes;
  a.data_type_present = true;
  a.data_type = data_type;
  a.data_layout = layout;
  a.pad_value = static_cast<std::uint8_t>(f.value(PadValueOrByteId) & 3);
  a.comparison_mode = static_cast<std::uint8_t>(f.value(CMode) & 7);
  a.rounding_mode = static_cast<std::uint8_t>(f.value(RMode) & 7);
  a.saturating = f.value(Sat) & 1;
  a.canonicalize = f.value(Canonicalize) & 1;
  b.data_attributes_present = true;
  return ExecOutcome::Next;
}

enum : std::size_t { LoopNest, RegSrc, Uimm17, Imm8 };
using DimensionFields = FormFields<4>::View;

// CommandDecodedBundleDimension.
unsigned dimension_index(const DecodedInsn& d, const DimensionFields& f) {
  if (f.has(LoopNest)) return static_cast<unsigned>(f.value(LoopNest) & 3);
  const std::string_view id = d.desc().form_id;
  if (id == "b_dim_32_27602ab68929") return 0;
  if (id == "b_dim_32_4191099a5f4d") return 1;
  return 2;
}

// SetBundleDimension: each of LB0..LB2 at most once.
ExecOutcome B_DIM(Machine& m, const DecodedInsn& d) {
  static const FormFields<4> fields({isa::Mnemonic::B_DIM, isa::Mnemonic::C_B_DIMI},
                                    {"LoopNest", "RegSrc", "uimm17", "imm8"});
  const auto f = fields.of(d);
  BlockState& b = m.state.block;
  if (!header_placement_ok(b)) return fault(m, FaultCode::Fault_BundleControl);
  arch::Word value = 0;
  if (f.has(RegSrc)) {
    value = (m.state.read_gpr(static_cast<unsigned>(f.value(RegSrc)) & 31) + f.value(Uimm17)) & 0xFFFF;
  } else {
    value = f.value(Imm8);
  }
  const unsigned index = dimension_index(d, f);
  if (b.dimension_present[index]) return fault(m, FaultCode::Fault_BundleControl);
  b.dimension_present[index] = true;
  b.dimensions[index] = value;
  return ExecOutcome::Next;
}

// BindBundleScalarIO: zero or one B.IOR; a second one faults and keeps the
// first (ADR 0055).  Selectors 24..31 are rejected by the decoded operand
// constraints before this handler runs (scalar/execute.hpp step 4).
ExecOutcome B_IOR(Machine& m, const DecodedInsn& d) {
  enum : std::size_t { RegDst, RegSrc0, RegSrc1, RegSrc2 };
  static const FormFields<4> fields({isa::Mnemonic::B_IOR}, {"RegDst", "RegSrc0", "RegSrc1", "RegSrc2"});
  const auto f = fields.of(d);
  BlockState& b = m.state.block;
  if (!header_placement_ok(b) || b.scalar_bindings[0].valid) return fault(m, FaultCode::Fault_BundleControl);
  arch::BundleScalarBinding& s = b.scalar_bindings[0];
  s.valid = true;
  s.destination = static_cast<std::uint8_t>(f.value(RegDst) & 31);
  s.source0 = static_cast<std::uint8_t>(f.value(RegSrc0) & 31);
  s.source1 = static_cast<std::uint8_t>(f.value(RegSrc1) & 31);
  s.source2 = static_cast<std::uint8_t>(f.value(RegSrc2) & 31);
  s.source_count = 3;
  return ExecOutcome::Next;
}

// BundleTileMaskCanAppend.
bool tile_mask_can_append(const BlockState& b, std::uint8_t mask) {
  return mask != 0 && std::all_of(b.tile_bindings.begin(), b.tile_bindings.end(), [&](const arch::BundleTileBinding& t) {
           return !t.valid || t.pe_mask == mask;
         });
}

bool tile_sequence_closed(const BlockState& b) {
  return std::any_of(b.tile_bindings.begin(), b.tile_bindings.end(),
                     [](const arch::BundleTileBinding& t) { return t.valid && t.last; });
}

// A zero PE mask is a strict no-op before every placement, stream and schema
// check (ADR 0096); inside a header it records zero participation.
ExecOutcome zero_participation(Machine& m) {
  BlockState& b = m.state.block;
  if (header_placement_ok(b)) b.zero_participation_seen = true;
  return ExecOutcome::Next;
}

// BindBundleTileIO (all five B.IOT forms), AddBundleTileBinding.
ExecOutcome B_IOT(Machine& m, const DecodedInsn& d) {
  enum : std::size_t { DstTile, SizeCode, PEMode, SrcTile0, SrcTile1, L };
  static const FormFields<6> fields({isa::Mnemonic::B_IOT},
                                    {"DstTile", "SizeCode", "PEMode", "SrcTile0", "SrcTile1", "L"});
  const auto f = fields.of(d);
  BlockState& b = m.state.block;
  const bool local_destination = f.has(DstTile);
  const auto encoded_size = static_cast<unsigned>(f.value(SizeCode));
  if (!local_destination && encoded_size != 0) return fault(m, FaultCode::Fault_IllegalInstruction);
  if (local_destination && !tile::local_size_code_legal(encoded_size)) return fault(m, FaultCode::Fault_IllegalInstruction);
  const tile::PeMask mask = tile::pe_mask_of_pe_mode(static_cast<unsigned>(f.value(PEMode)));
  if (mask == 0) return zero_participation(m);
  if (!header_placement_ok(b) || tile_sequence_closed(b)) return fault(m, FaultCode::Fault_BundleControl);
  const arch::BundleOperationDescriptor& op = b.operation;
  const unsigned function = op.selector & 0x1F;
  const bool local_to_shared = op.valid && op.operation_class == arch::BundleOperationClass::TileMemory &&
                               op.selector_valid && (function == 9 || function == 10);
  if (!tile_mask_can_append(b, mask) || (local_to_shared && local_destination)) return fault(m, FaultCode::Fault_TileLegality);
  const auto slot = std::find_if(b.tile_bindings.begin(), b.tile_bindings.end(),
                                 [](const arch::BundleTileBinding& t) { return !t.valid; });
  if (slot == b.tile_bindings.end()) return fault(m, FaultCode::Fault_TileLegality);  // more than 16 bindings
  arch::BundleTileBinding t;
  t.valid = true;
  t.destination_valid = local_destination;
  t.destination = static_cast<std::uint8_t>(f.value(DstTile));
  t.destination_hand = static_cast<std::uint8_t>(t.destination & 3);
  t.destination_size = static_cast<std::uint8_t>(local_destination ? encoded_size : 0);
  t.pe_mask = mask;
  t.source0_valid = f.has(SrcTile0);
  t.source1_valid = f.has(SrcTile1);
  t.source0 = static_cast<std::uint8_t>(f.value(SrcTile0));
  t.source1 = static_cast<std::uint8_t>(f.value(SrcTile1));
  t.last = f.value(L) & 1;
  *slot = t;
  return ExecOutcome::Next;
}

// BindBundleSharedIO: one mask shared with the Local bindings, distinct ids,
// at most four bindings.
ExecOutcome B_IOS(Machine& m, const DecodedInsn& d) {
  enum : std::size_t { SizeCode, PEMode, SharedTID };
  static const FormFields<3> fields({isa::Mnemonic::B_IOS}, {"SizeCode", "PEMode", "SharedTID"});
  const auto f = fields.of(d);
  BlockState& b = m.state.block;
  const auto size = static_cast<unsigned>(f.value(SizeCode));
  if (size != 0 && !tile::size_code_legal(size)) return fault(m, FaultCode::Fault_IllegalInstruction);
  const tile::PeMask mask = tile::pe_mask_of_pe_mode(static_cast<unsigned>(f.value(PEMode)));
  if (mask == 0) return zero_participation(m);
  if (!header_placement_ok(b)) return fault(m, FaultCode::Fault_BundleControl);
  const bool shared_mask_ok =
      tile_mask_can_append(b, mask) &&
      std::all_of(b.shared_bindings.begin(), b.shared_bindings.end(),
                  [&](const arch::BundleSharedBinding& s) { return !s.valid || s.pe_mask == mask; });
  if (!shared_mask_ok) return fault(m, FaultCode::Fault_TileLegality);
  const auto id = static_cast<std::uint8_t>(f.value(SharedTID));
  for (const arch::BundleSharedBinding& s : b.shared_bindings)
    if (s.valid && s.shared_id == id) return fault(m, FaultCode::Fault_BundleControl);
  const auto slot = std::find_if(b.shared_bindings.begin(), b.shared_bindings.end(),
                                 [](const arch::BundleSharedBinding& s) { return !s.valid; });
  if (slot == b.shared_bindings.end()) return fault(m, FaultCode::Fault_BundleControl);
  *slot = arch::BundleSharedBinding{true, id, static_cast<std::uint8_t>(size), mask, false};
  return ExecOutcome::Next;
}

// SetBundleFixedPointAttributes: Matrix blocks only, once, before any binding
// (BundleFixedPointAttributesCanBePlaced) -> Fault_BundleControl; then
// SetBundleFixedPointAttributeState rejects inconsistent enables
// (BundleFPATRFieldsLegal) with Fault_TileLegality at this command's PC,
// before the descriptor becomes visible (PTO-B-FPATR-MATRIX-POSTPROCESS-001).
ExecOutcome B_FPATR(Machine& m, const DecodedInsn& d) {
  enum : std::size_t { PreQuantMode, ReluMode, GroupNCode, RowMaxEn, GroupMaxEn, RowMaxInit, MaxAbsEn, TransA, TransB };
  static const FormFields<9> fields({isa::Mnemonic::B_FPATR},
                                    {"PreQuantMode", "ReluMode", "GroupNCode", "RowMaxEn", "GroupMaxEn", "RowMaxInit",
                                     "MaxAbsEn", "TransA", "TransB"});
  const auto f = fields.of(d);
  BlockState& b = m.state.block;
  const bool placeable = header_placement_ok(b) && !b.fixed_point_attributes.valid &&
                         (!b.operation.valid || b.operation.operation_class == arch::BundleOperationClass::TileMatrix) &&
                         !b.scalar_bindings[0].valid && tile::tile_binding_count(b) == 0 &&
                         tile::shared_binding_count(b) == 0;
  if (!placeable) return fault(m, FaultCode::Fault_BundleControl);
  arch::BundleFixedPointAttributes a;
  a.pre_quant_mode = static_cast<std::uint8_t>(f.value(PreQuantMode) & 0x3F);
  a.relu_mode = static_cast<std::uint8_t>(f.value(ReluMode) & 7);
  a.group_n_code = static_cast<std::uint8_t>(f.value(GroupNCode) & 0xF);
  a.row_max_en = f.value(RowMaxEn) & 1;
  a.group_max_en = f.value(GroupMaxEn) & 1;
  a.row_max_init = f.value(RowMaxInit) & 1;
  a.max_abs_en = f.value(MaxAbsEn) & 1;
  a.trans_a = f.value(TransA) & 1;
  a.trans_b = f.value(TransB) & 1;
  if (!tile::fpatr::fields_legal(a)) return fault(m, FaultCode::Fault_TileLegality);
  a.valid = true;
  b.fixed_point_attributes = a;
  return ExecOutcome::Next;
}

}  // namespace

void register_bundle_header_handlers(scalar::HandlerTable& t) {
  t.set(isa::Mnemonic::B_DATR, B_DATR);
  t.set(isa::Mnemonic::B_DIM, B_DIM);
  t.set(isa::Mnemonic::C_B_DIMI, B_DIM);
  t.set(isa::Mnemonic::B_IOR, B_IOR);
  t.set(isa::Mnemonic::B_IOT, B_IOT);
  t.set(isa::Mnemonic::B_IOS, B_IOS);
  t.set(isa::Mnemonic::B_FPATR, B_FPATR);
}

}  // namespace pto::block
