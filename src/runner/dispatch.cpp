#include "runner/dispatch.hpp"

#include <algorithm>

#include "block/control.hpp"
#include "isa/decoder.hpp"

namespace pto::runner {
namespace {

using arch::FaultCode;
using isa::Mnemonic;
using scalar::Applicability;
using scalar::DecodedInsn;
using scalar::ExecOutcome;

// IsCommitConditionSetter (asl/scalar/model/sys/semantics.asl).
constexpr Mnemonic kConditionSetters[] = {
    Mnemonic::C_SETC_EQ,   Mnemonic::C_SETC_NE,   Mnemonic::SETC_EQ,     Mnemonic::SETC_NE,
    Mnemonic::SETC_LT,     Mnemonic::SETC_GE,     Mnemonic::SETC_LTU,    Mnemonic::SETC_GEU,
    Mnemonic::SETC_EQI,    Mnemonic::SETC_NEI,    Mnemonic::SETC_LTI,    Mnemonic::SETC_GEI,
    Mnemonic::SETC_LTUI,   Mnemonic::SETC_GEUI,   Mnemonic::SETC_AND,    Mnemonic::SETC_OR,
    Mnemonic::SETC_ANDI,   Mnemonic::SETC_ORI,    Mnemonic::HL_SETC_EQI, Mnemonic::HL_SETC_NEI,
    Mnemonic::HL_SETC_LTI, Mnemonic::HL_SETC_GEI, Mnemonic::HL_SETC_LTUI, Mnemonic::HL_SETC_GEUI,
    Mnemonic::HL_SETC_ANDI, Mnemonic::HL_SETC_ORI,
};

// IsSystemBlockScalarOperation.
constexpr Mnemonic kSystemBlockOperations[] = {
    Mnemonic::ACRC,     Mnemonic::ACRE,     Mnemonic::ASSERT,   Mnemonic::BC_IALL,  Mnemonic::BC_IVA,
    Mnemonic::BSE,      Mnemonic::BWE,      Mnemonic::BWI,      Mnemonic::BWT,      Mnemonic::C_EBREAK,
    Mnemonic::C_SSRGET, Mnemonic::DC_CISW,  Mnemonic::DC_CIVA,  Mnemonic::DC_CSW,   Mnemonic::DC_CVA,
    Mnemonic::DC_IALL,  Mnemonic::DC_ISW,   Mnemonic::DC_IVA,   Mnemonic::DC_ZVA,   Mnemonic::EBREAK,
    Mnemonic::FENCE_D,  Mnemonic::FENCE_I,  Mnemonic::HL_SSRGET, Mnemonic::HL_SSRSET, Mnemonic::IC_IALL,
    Mnemonic::IC_IVA,   Mnemonic::SSRGET,   Mnemonic::SSRSET,   Mnemonic::SSRSWAP,  Mnemonic::TLB_IA,
    Mnemonic::TLB_IALL, Mnemonic::TLB_IAV,  Mnemonic::TLB_IV,
};

// ScalarImplicitSourceOperandsLegal: compressed forms reading t#1 implicitly.
constexpr Mnemonic kImplicitT1Readers[] = {Mnemonic::C_SDI, Mnemonic::C_SLLI, Mnemonic::C_SRLI, Mnemonic::C_SWI};

// Block header commands: they precede the body (Fault_BundleControl after it).
constexpr Mnemonic kHeaderCommands[] = {Mnemonic::B_CATR, Mnemonic::B_DATR, Mnemonic::B_DIM, Mnemonic::C_B_DIMI,
                                        Mnemonic::B_IOR,  Mnemonic::B_IOT,  Mnemonic::B_IOS, Mnemonic::B_FPATR,
                                        Mnemonic::B_HINT};

template <std::size_t N>
bool contains(const Mnemonic (&list)[N], Mnemonic m) {
  return std::find(std::begin(list), std::end(list), m) != std::end(list);
}

// SCALAR_SOURCE_FIELDS of the ASL decoder generator (ScalarRegisterOperandsLegal).
bool is_reg5_source_field(std::string_view name) {
  return name == "SrcA" || name == "SrcD" || name == "SrcD1" || name == "SrcL" || name == "SrcP" || name == "SrcR";
}

Applicability applicability_of(Mnemonic m) {
  if (contains(kConditionSetters, m)) return Applicability::CommitConditionSetter;
  if (m == Mnemonic::SETC_TGT) return Applicability::CommitTarget;
  if (m == Mnemonic::C_SETC_TGT) return Applicability::CompressedCommitTarget;
  if (m == Mnemonic::LSRGET) return Applicability::BlockBody;
  if (contains(kSystemBlockOperations, m)) return Applicability::SystemBlock;
  return Applicability::Always;
}

bool is_command(const isa::FormDesc& f) { return f.family == isa::Family::CMD || f.family == isa::Family::BBD; }

bool is_block_boundary(const isa::FormDesc& f) {
  if (f.mnem == Mnemonic::B_HINT) return isa::field_index(f, "B/E") >= 0;  // B.HINT TRACE starts a block
  return std::string_view(f.semantic_handler) == "ExecuteBundleStart" ||
         std::string_view(f.semantic_handler) == "ExecuteBundleStop";
}

// ScalarOperationApplicable (plus the SYS-terminal-pending rule of
// ExecuteCommandInstruction for commands).
bool applicable(const arch::State& s, const DecodedInsn& d) {
  const arch::BlockState& b = s.block;
  if (d.traits & scalar::kTraitCommand) {
    return !b.system_block_terminal_pending || (d.traits & scalar::kTraitBlockBoundary) != 0;
  }
  if (b.system_block_terminal_pending) return false;
  const bool commit_target_writable = b.bundle_active && (b.barg.block_type == arch::BundleKind::Standard ||
                                                          b.barg.block_type == arch::BundleKind::Floating);
  switch (d.applicability) {
    case Applicability::Always: return true;
    case Applicability::CommitConditionSetter: return block::commit_condition_setter_applicable(b);
    case Applicability::CommitTarget: return commit_target_writable;
    case Applicability::CompressedCommitTarget: return commit_target_writable && !b.commit_target_set;
    case Applicability::BlockBody: return b.bundle_active && b.bundle_body_active;
    case Applicability::SystemBlock:
      return b.bundle_active && b.bundle_body_active && b.barg.block_type == arch::BundleKind::System;
  }
  return true;
}

}  // namespace

ExecOutcome illegal_instruction(arch::Machine& m, const DecodedInsn&) {
  return m.set_fault(FaultCode::Fault_IllegalInstruction, m.state.pc);
}

ExecOutcome not_implemented(arch::Machine&, const DecodedInsn&) { return ExecOutcome::NotImplemented; }

DecodedInsn predecode(std::uint64_t bits, unsigned length_bits) {
  DecodedInsn d;
  d.bits = bits & isa::length_mask(length_bits);
  d.length_bytes = static_cast<std::uint8_t>(length_bits / 8);
  d.handler = illegal_instruction;
  const isa::Decoded dec = isa::decode(d.bits, length_bits);
  // NoForm, the 40 extension reservations and reserved tile selectors are
  // illegal words; so is any 64-bit word that is not a command form.
  if (dec.status == isa::DecodeStatus::NoForm || dec.status == isa::DecodeStatus::ExtensionReserved ||
      dec.status == isa::DecodeStatus::ReservedTileSelector) {
    return d;
  }
  const isa::FormDesc& f = dec.desc();
  d.form = dec.form;
  d.mnemonic = f.mnem;
  d.traits = scalar::kTraitDecoded;
  if (is_command(f)) d.traits |= scalar::kTraitCommand;
  if (contains(kHeaderCommands, f.mnem) && !is_block_boundary(f)) d.traits |= scalar::kTraitBlockHeader;
  if (is_block_boundary(f)) d.traits |= scalar::kTraitBlockBoundary;
  if (std::string_view(f.semantic_handler) == "ExecuteBundleStop") d.traits |= scalar::kTraitBlockStop;
  if (d.traits & scalar::kTraitBlockHeader) d.prechecks |= scalar::kCheckHeaderCommand;

  const auto fields = isa::fields_of(f);
  d.field_count = static_cast<std::uint8_t>(std::min<std::size_t>(fields.size(), scalar::kMaxDecodedFields));
  for (unsigned i = 0; i < d.field_count; ++i) d.field[i] = isa::field_value(fields[i], d.bits);

  if (!(d.traits & scalar::kTraitCommand)) {
    d.applicability = applicability_of(f.mnem);
    if (d.applicability != Applicability::Always) d.prechecks |= scalar::kCheckApplicability;
  }
  if (dec.status == isa::DecodeStatus::ConstraintViolation) {
    // Constraints are checked after applicability and before Reg5 validity.
    d.traits |= scalar::kTraitConstraintFailed;
    return d;
  }
  if (dec.status == isa::DecodeStatus::ReservedInPto) return d;  // CommandHandlerSupportedPTOv0

  if (!(d.traits & scalar::kTraitCommand)) {
    for (unsigned i = 0; i < d.field_count; ++i) {
      if (is_reg5_source_field(fields[i].name) && (d.field[i] & 31) >= arch::kAbsoluteGprCount) {
        d.queue_source_mask |= static_cast<std::uint8_t>(1u << i);
      }
    }
    if (d.queue_source_mask) d.prechecks |= scalar::kCheckQueueSources;
    if (contains(kImplicitT1Readers, f.mnem)) d.prechecks |= scalar::kCheckImplicitT1;
  }
  const scalar::Handler h = scalar::handler_table().get(f.mnem);
  d.handler = h ? h : not_implemented;
  if (const scalar::Handler fast = scalar::alu_register_only_variant(d)) d.handler = fast;
  if (const scalar::Handler fast = scalar::agu_register_only_variant(d)) d.handler = fast;
  if (d.prechecks == scalar::kCheckApplicability) {
    if (const scalar::Handler self_admitting = block::self_admitting_variant(d)) {
      d.handler = self_admitting;
      d.prechecks = 0;
    }
  }
  return d;
}

bool admit(arch::Machine& m, const DecodedInsn& d) {
  arch::State& s = m.state;
  // Header commands write header state (bundle_headers.cpp): the next
  // ClearBundleHeaderState must clear it all.
  if (d.prechecks & scalar::kCheckHeaderCommand) s.block.header_dirty = true;
  enter_body_if_body_instruction(s.block, d);
  if ((d.traits & scalar::kTraitDecoded) && !applicable(s, d)) {
    m.set_fault(FaultCode::Fault_BundleControl, s.pc);
    return false;
  }
  if (d.prechecks & scalar::kCheckQueueSources) {
    for (unsigned i = 0; i < d.field_count; ++i) {
      if ((d.queue_source_mask >> i & 1u) && !s.reg5_source_available(d.reg(i))) {
        m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
        return false;
      }
    }
  }
  if ((d.prechecks & scalar::kCheckImplicitT1) && !s.t_queue.valid[0]) {
    m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
    return false;
  }
  return true;
}

ExecOutcome execute_instruction(arch::Machine& m, std::uint64_t bits, unsigned length_bits) {
  return execute(m, predecode(bits, length_bits));
}

}  // namespace pto::runner
