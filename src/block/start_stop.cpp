// BSTART (all forms), BSTOP/C.BSTOP/L.BSTOP, the block commit, B.HINT and
// B.CATR.  Sources: asl/block/model/dispatch/start.asl,
// asl/block/model/commit/validation.asl, asl/block/model/lifecycle/*.asl,
// asl/block/model/dispatch/commands.asl.
#include <array>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string_view>
#include <type_traits>
#include <utility>

#include "block/control.hpp"
#include "block/generated/bundle_start_forms.hpp"
#include "block/handlers.hpp"
#include "isa/tile_start.hpp"
#include "numerics/datatypes.hpp"

namespace pto::block {
namespace {

using arch::BlockState;
using arch::BundleKind;
using arch::BundleOperationClass;
using arch::BundleTransfer;
using arch::FaultCode;
using arch::Machine;
using arch::State;
using arch::Word;
using scalar::DecodedInsn;
using scalar::ExecOutcome;

// Per-form facts of the ASL decoder (CommandBundleKindOfForm,
// CommandBundleOperationClassOfForm, the transfer and
// command_signed_offset_field of scripts/generate-asl-decoders).
struct StartForm {
  BundleKind kind = BundleKind::Standard;
  BundleOperationClass operation_class = BundleOperationClass::Control;
  BundleTransfer transfer = BundleTransfer::Fallthrough;
  int offset_field = -1;     // simm* field scaled by 2
  int return_field = -1;     // uimm5 (fused calls)
  int branch_type_field = -1;  // BrType (compressed STD/FP)
  bool tile_start = false;
};

using generated::StartFormFacts;

StartForm start_form_of(const StartFormFacts& facts) {
  const isa::FormDesc& f = isa::form(facts.form);
  StartForm s{facts.kind, facts.operation_class, facts.transfer};
  const auto fields = isa::fields_of(f);
  for (unsigned i = 0; i < fields.size(); ++i) {
    const std::string_view n = fields[i].name;
    if (fields[i].signedness == isa::Signedness::Signed && n.starts_with("simm")) s.offset_field = static_cast<int>(i);
    if (n == "uimm5") s.return_field = static_cast<int>(i);
    if (n == "BrType") s.branch_type_field = static_cast<int>(i);
  }
  s.tile_start = isa::is_tile_start(f);
  return s;
}

// Indexed by form.  A namespace-scope table (the catalog it reads is
// constant data) so BSTART reads it with no initialisation guard.
const std::array<StartForm, isa::kFormRecordCount> kStartForms = [] {
  std::array<StartForm, isa::kFormRecordCount> t{};
  for (const StartFormFacts& facts : generated::kStartFormFacts) t[facts.form] = start_form_of(facts);
  return t;
}();

const StartForm& start_form(isa::FormIndex form) { return kStartForms[form]; }

// BundleBranchTypeLegal / BundleTransferOfBranchType
// (asl/block/model/dispatch/descriptor-legality.asl), the generated table.
constexpr std::optional<BundleTransfer> transfer_of_branch_type(unsigned bt) {
  if (bt >= generated::kBranchTypes.size() || !generated::kBranchTypes[bt].legal) return std::nullopt;
  return generated::kBranchTypes[bt].transfer;
}

// DecodeBundleOperationDescriptor.
arch::BundleOperationDescriptor descriptor_of(const DecodedInsn& d, const StartForm& sf) {
  arch::BundleOperationDescriptor desc;
  desc.valid = true;
  desc.form_identity = static_cast<std::uint8_t>((d.form - isa::kScalarFormCount) & 0x7F);
  desc.operation_class = sf.operation_class;
  if (sf.tile_start) {
    desc.selector_valid = true;
    desc.selector = static_cast<std::uint16_t>((d.bits >> 20) & 0x1F);  // Function
    desc.data_type_valid = true;
    desc.data_type = isa::tile_start_data_type(d.bits);
    if (sf.operation_class == BundleOperationClass::TileElement) {
      desc.mode_valid = true;
      desc.mode = static_cast<std::uint8_t>((d.bits >> 25) & 3);
    }
  }
  if (sf.branch_type_field >= 0) {
    desc.branch_type_valid = true;
    desc.branch_type = static_cast<std::uint8_t>(d.field[sf.branch_type_field] & 7);
  }
  return desc;
}

// BundleOperationDescriptorLegal.  Tile selectors without an operation are
// rejected by the decoder already (reserved selectors never reach here).
bool descriptor_legal(const arch::BundleOperationDescriptor& desc, std::uint64_t bits) {
  if (desc.branch_type_valid && !transfer_of_branch_type(desc.branch_type)) return false;
  switch (desc.operation_class) {
    case BundleOperationClass::TileElement:
    case BundleOperationClass::TileMemory:
    case BundleOperationClass::TileMatrix: {
      const auto op = isa::tile_op_of_start(bits);
      if (!op) return false;
      const bool tmov = *op == isa::TileOp::TMOV;
      // BundleDataTypeConcrete (asl/block/model/dispatch/descriptor-legality.asl) is
      // TileDataTypeEncodingValid (tools/gen_spec_tables.py checks the two agree).
      return num::data_type_code_valid(desc.data_type) || (tmov && desc.data_type == num::kDataTypeNoneCode);
    }
    case BundleOperationClass::FixedPoint: return false;
    case BundleOperationClass::Control: return true;
  }
  return true;
}

// The flag bytes of a tile binding ClearBundleHeaderState resets; the other
// members keep their (stale) values.  Clearing through a byte mask lets the
// compiler use a few wide AND operations instead of ~100 byte stores, the
// dominant cost of a block start/stop in a tight loop.
using TileBindings = decltype(BlockState{}.tile_bindings);
static_assert(std::is_trivially_copyable_v<TileBindings>);

constexpr std::array<std::size_t, 6> kTileBindingFlagOffsets = {
    offsetof(arch::BundleTileBinding, valid),         offsetof(arch::BundleTileBinding, destination_valid),
    offsetof(arch::BundleTileBinding, destination_allocated_by_bundle),
    offsetof(arch::BundleTileBinding, source0_valid), offsetof(arch::BundleTileBinding, source1_valid),
    offsetof(arch::BundleTileBinding, last)};

constexpr std::array<std::uint8_t, sizeof(TileBindings)> tile_binding_keep_mask() {
  std::array<std::uint8_t, sizeof(TileBindings)> mask{};
  mask.fill(0xFF);
  for (std::size_t i = 0; i < arch::kBundleTileBindingCount; ++i) {
    for (std::size_t off : kTileBindingFlagOffsets) mask[i * sizeof(arch::BundleTileBinding) + off] = 0;
  }
  return mask;
}

void clear_tile_binding_flags(TileBindings& bindings) {
  static constexpr auto kKeep = tile_binding_keep_mask();
  std::array<std::uint8_t, sizeof(TileBindings)> bytes;
  std::memcpy(bytes.data(), bindings.data(), bytes.size());
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] &= kKeep[i];
  std::memcpy(bindings.data(), bytes.data(), bytes.size());
}

// ClearBundleHeaderState (asl/block/model/state/descriptor-state.asl).  Like
// the ASL it clears only the binding flags, so a block start does not rewrite
// the whole binding arrays.  Dimensions, bindings and attributes are written
// only by header commands and tile blocks, which set `header_dirty` (dispatch
// admission, BSTART of a tile start, B.CATR, B.HINT): a scalar block loop
// skips them entirely.
void clear_header(BlockState& b) {
  b.commit_target_set = false;
  b.condition_set = false;
  b.system_block_terminal_pending = false;
  b.bundle_argument = 0;
  b.bundle_argument_kind = 0;
  b.operation = {};
  if (!b.header_dirty) return;
  b.header_dirty = false;
  b.dimensions = {};
  b.dimension_present = {};
  // B.IOR is the only writer of scalar bindings and uses slot 0
  // (SetBundleScalarBinding(0, ...) in asl/block/model/dispatch/commands.asl).
  b.scalar_bindings[0].valid = false;
  b.scalar_bindings[0].source_count = 0;
  clear_tile_binding_flags(b.tile_bindings);
  b.shared_bindings = {};
  b.zero_participation_seen = false;
  b.control_attributes = {};
  b.data_attributes = {};
  b.data_attributes_present = false;
  b.hint = {};
  b.fixed_point_attributes = {};
}

// The commit PC (BARGCommitPC) of `continuation`; nullopt after raising
// Fault_InstructionPC when either is odd.
std::optional<Word> legal_commit_pc(Machine& m, Word continuation) {
  const Word next_pc = commit_pc(m.state.block.barg, continuation);
  if ((continuation & 1) || (next_pc & 1)) {
    m.set_fault(FaultCode::Fault_InstructionPC, next_pc);
    return std::nullopt;
  }
  return next_pc;
}

// StopBundleAt's effects, once `next_pc` = legal_commit_pc(continuation).
ExecOutcome stop_bundle(Machine& m, Word next_pc) {
  State& s = m.state;
  const bool post_commit_trap = s.block.control_attributes.trap_enabled;
  BlockState& b = s.block;
  b.bundle_active = false;
  b.bundle_body_active = false;
  clear_header(b);
  b.barg = {};
  b.sequential_pc = 0;
  b.frame_stack_return_target = 0;
  s.bpc = 0;
  s.pc = next_pc;
  if (post_commit_trap) {
    // The saved context is the committed, cleared block: recovery resumes at next_pc.
    return m.set_fault(FaultCode::Fault_BundlePostCommit, next_pc);
  }
  return ExecOutcome::PcWritten;
}

// BeginBundleAt (asl/block/model/lifecycle/begin.asl).
void begin_bundle(State& s, Word start_pc, BundleKind kind, BundleTransfer transfer, Word target, Word sequential,
                  Word return_target, bool taken) {
  BlockState& b = s.block;
  b.bundle_active = true;
  b.bundle_body_active = false;
  b.commit_target_set = false;
  b.condition_set = false;
  b.system_block_terminal_pending = false;
  b.barg.block_type = kind;
  if (kind == BundleKind::System) {
    b.barg.transfer_type = BundleTransfer::Fallthrough;  // SYS has no candidate continuation
    b.barg.taken = false;
    b.barg.bpcn = 0;
  } else {
    b.barg.transfer_type = transfer;
    b.barg.taken = taken;
    b.barg.bpcn = target;
  }
  b.sequential_pc = sequential;
  b.frame_stack_return_target = return_target;
  s.bpc = start_pc;
  s.pc = sequential;
  if (transfer == BundleTransfer::Call || transfer == BundleTransfer::IndirectCall) {
    s.return_address = return_target;
    s.write_gpr(arch::kRegRa, return_target);
  }
}

// The target a start at `pc` encodes: its scaled offset for a transfer with
// one, else the fallthrough.
Word relative_target(const StartForm& sf, BundleTransfer transfer, const DecodedInsn& d, Word pc) {
  if (transfer == BundleTransfer::Fallthrough || sf.offset_field < 0) return pc + d.length_bytes;
  return pc + (static_cast<Word>(d.field[sf.offset_field]) << 1);
}

// The return target of a start at `pc` (fused calls encode it as uimm5).
Word start_return_target(const StartForm& sf, const DecodedInsn& d, Word pc) {
  if (sf.return_field < 0) return pc + d.length_bytes;
  return pc + (d.length_bytes - 2u) + (static_cast<Word>(d.field[sf.return_field]) << 1);
}

// ExecuteDecodedBundleStartWithAcceptedApplicabilityRules.
// `Scalar`: every form of the mnemonic is a Control-class start without a
// tile selector or BrType, whose descriptor is always legal
// (BundleOperationDescriptorLegal) and depends only on the form.
template <bool Scalar>
ExecOutcome BSTART(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  const StartForm& sf = start_form(d.form);
  const Word pc = s.pc;
  arch::BundleOperationDescriptor desc;
  if constexpr (Scalar) {
    desc.valid = true;
    desc.form_identity = static_cast<std::uint8_t>((d.form - isa::kScalarFormCount) & 0x7F);
  } else {
    desc = descriptor_of(d, sf);
    if (!descriptor_legal(desc, d.bits)) {
      return m.set_fault(FaultCode::Fault_IllegalInstruction, pc);
    }
  }
  const BundleTransfer transfer = desc.branch_type_valid ? *transfer_of_branch_type(desc.branch_type) : sf.transfer;
  const Word fallthrough = pc + d.length_bytes;
  const bool reads_retiring_bpcn = transfer == BundleTransfer::Indirect || transfer == BundleTransfer::IndirectCall;
  // RetiringBundleBPCNAvailable: an active STD/FP block supplies BPCN.
  if (reads_retiring_bpcn && !(s.block.bundle_active && (s.block.barg.block_type == BundleKind::Standard ||
                                                         s.block.barg.block_type == BundleKind::Floating))) {
    return m.set_fault(FaultCode::Fault_BundleControl, pc);
  }
  Word target = relative_target(sf, transfer, d, pc);
  if (transfer == BundleTransfer::Return) {
    target = s.return_address;
  } else if (reads_retiring_bpcn) {
    target = s.block.barg.bpcn;
  }
  const Word return_target = start_return_target(sf, d, pc);
  if (target & 1) {
    return m.set_fault(FaultCode::Fault_InstructionPC, target);
  }
  if (s.block.bundle_active) {
    // The retiring block commits first; its continuation is this BSTART.
    // BeginBundleAt then puts TPC at this block's sequential address, so the
    // retiring block's selected continuation is not taken (docs/semantics-notes.md).
    const ExecOutcome o = complete_bundle(m, pc);
    if (o != ExecOutcome::PcWritten) return o;  // PcWritten: the commit cleared the header
  } else {
    clear_header(s.block);
  }
  begin_bundle(s, pc, sf.kind, transfer, target, fallthrough, return_target,
               transfer != BundleTransfer::Conditional);
  // InstallBundleOperationDescriptor; a tile block's commit writes its
  // bindings and its data type may set the B.DATR default.
  s.block.operation = desc;
  if (sf.tile_start) s.block.header_dirty = true;
  if (desc.data_type_valid && !s.block.data_attributes_present) s.block.data_attributes.data_type = desc.data_type;
  return ExecOutcome::PcWritten;
}

// complete_bundle kept out of BSTOP's fast path, so the common scalar commit
// needs no stack frame.
[[gnu::noinline]] ExecOutcome complete_bundle_out_of_line(Machine& m, Word continuation) {
  return complete_bundle(m, continuation);
}

// BSTART bound to the PC its record is cached for (bind_to_pc): the branch
// and return targets are constants of the record (field slots past
// field_count), kind and transfer are template constants.  An active block
// retiring here takes the generic path: its commit may fault or run a tile
// operation.  A Return reads its target from _ReturnAddress and faults on an
// odd one before any effect (ExecuteDecodedBundleStartWithAcceptedApplicabilityRules,
// asl/block/model/dispatch/start.asl); the other bound transfers read no
// state (Indirect/IndirectCall, which read the retiring block's BPCN, are
// never bound).
constexpr unsigned kBoundTargetSlot = scalar::kMaxDecodedFields - 2;
constexpr unsigned kBoundReturnSlot = scalar::kMaxDecodedFields - 1;

// The BrType code of a transfer: transfer_of_branch_type's inverse, so the
// table is written once.  0 (not a legal BrType) for a transfer no BrType
// selects: bind_to_pc installs a typed bound start only for a BrType's
// transfer (FALL or RET among kBoundTransfers).
constexpr std::uint8_t branch_type_of(BundleTransfer t) {
  for (std::uint8_t bt = 1; bt < 8; ++bt) {
    if (transfer_of_branch_type(bt) == t) return bt;
  }
  return 0;
}

// `Typed`: a compressed STD/FP start whose BrType field selects the
// transfer (FALL or RET): its descriptor records the branch type, and an
// active block retiring here takes BSTART<false>, which decodes it.
template <BundleKind Kind, BundleTransfer Transfer, bool Typed>
ExecOutcome BSTART_bound(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  if (s.block.bundle_active) [[unlikely]] return BSTART<!Typed>(m, d);
  Word target = d.u(kBoundTargetSlot);
  if constexpr (Transfer == BundleTransfer::Return) {
    target = s.return_address;
    if (target & 1) {
      return m.set_fault(FaultCode::Fault_InstructionPC, target);
    }
  }
  clear_header(s.block);
  const Word pc = s.pc;
  begin_bundle(s, pc, Kind, Transfer, target, pc + d.length_bytes, d.u(kBoundReturnSlot),
               Transfer != BundleTransfer::Conditional);
  arch::BundleOperationDescriptor desc;  // as BSTART<!Typed> installs it
  desc.valid = true;
  desc.form_identity = static_cast<std::uint8_t>((d.form - isa::kScalarFormCount) & 0x7F);
  if constexpr (Typed) {
    desc.branch_type_valid = true;
    constexpr std::uint8_t kBranchType = branch_type_of(Transfer);
    desc.branch_type = kBranchType;
  }
  s.block.operation = desc;
  return ExecOutcome::PcWritten;
}

// The scalar start kinds (start_form_of) and the transfers bound variants take.
constexpr std::array kBoundKinds = {BundleKind::Standard, BundleKind::Floating, BundleKind::System};
constexpr std::array kBoundTransfers = {BundleTransfer::Fallthrough, BundleTransfer::Direct,
                                        BundleTransfer::Conditional, BundleTransfer::Call,
                                        BundleTransfer::Return};

template <bool Typed, std::size_t K, std::size_t... T>
constexpr std::array<scalar::Handler, sizeof...(T)> bound_start_row(std::index_sequence<T...>) {
  return {BSTART_bound<kBoundKinds[K], kBoundTransfers[T], Typed>...};
}
template <bool Typed, std::size_t... K>
constexpr auto bound_start_table(std::index_sequence<K...>) {
  return std::array{bound_start_row<Typed, K>(std::make_index_sequence<kBoundTransfers.size()>{})...};
}
// [typed][kind][transfer]: indices into kBoundKinds and kBoundTransfers.
constexpr std::array kBoundStarts = {bound_start_table<false>(std::make_index_sequence<kBoundKinds.size()>{}),
                                     bound_start_table<true>(std::make_index_sequence<kBoundKinds.size()>{})};

template <typename E, std::size_t N>
int index_in(const std::array<E, N>& list, E value) {
  for (std::size_t i = 0; i < N; ++i) {
    if (list[i] == value) return static_cast<int>(i);
  }
  return -1;
}

// ExecuteBundleStop: commit with the sequential continuation after the stop.
// A scalar block whose header no command wrote (header_dirty clear: no B.CATR
// trap or DR attribute) commits with nothing to check but the commit PC, as
// complete_bundle would find.
ExecOutcome BSTOP(Machine& m, const DecodedInsn& d) {
  const Word continuation = m.state.pc + d.length_bytes;
  const BlockState& b = m.state.block;
  if (b.bundle_active && !b.header_dirty && b.operation.operation_class == BundleOperationClass::Control) {
    const Word next_pc = commit_pc(b.barg, continuation);
    if (((continuation | next_pc) & 1) == 0) [[likely]] return stop_bundle(m, next_pc);
  }
  return complete_bundle_out_of_line(m, continuation);
}

// SetBundleControlAttributes (B.CATR): header only, at most once.
ExecOutcome B_CATR(Machine& m, const DecodedInsn& d) {
  BlockState& b = m.state.block;
  if (!b.bundle_active || b.bundle_body_active || b.control_attributes.present) {
    return m.set_fault(FaultCode::Fault_BundleControl, m.state.pc);
  }
  static const int kDR = scalar::field_slot(isa::Mnemonic::B_CATR, "DR");
  static const int kTrap = scalar::field_slot(isa::Mnemonic::B_CATR, "trap");
  static const int kFar = scalar::field_slot(isa::Mnemonic::B_CATR, "far");
  static const int kAtom = scalar::field_slot(isa::Mnemonic::B_CATR, "atom");
  static const int kAq = scalar::field_slot(isa::Mnemonic::B_CATR, "aq");
  static const int kRl = scalar::field_slot(isa::Mnemonic::B_CATR, "rl");
  auto& a = b.control_attributes;
  b.header_dirty = true;
  a.present = true;
  a.trap_enabled = d.field[kTrap] & 1;
  a.atomic = d.field[kAtom] & 1;
  a.acquire = d.field[kAq] & 1;
  a.release = d.field[kRl] & 1;
  a.far = d.field[kFar] & 1;
  a.dimension_reduction = d.field[kDR] & 1;
  return ExecOutcome::Next;
}

// SetBundleHint: B.HINT TRACE opens a standard FALL block (committing the
// active one first); the other form is a header command, at most once.
ExecOutcome B_HINT(Machine& m, const DecodedInsn& d) {
  State& s = m.state;
  const isa::FormDesc& f = d.desc();
  const int trace_field = isa::field_index(f, "B/E");
  const bool trace = trace_field >= 0;
  const Word pc = s.pc;
  if (trace) {
    if (s.block.bundle_active) {
      const ExecOutcome o = complete_bundle(m, pc);
      if (o != ExecOutcome::PcWritten) return o;  // PcWritten: the commit cleared the header
    } else {
      clear_header(s.block);
    }
    const Word sequential = pc + d.length_bytes;
    // BeginBundle starts at ReadTPC(), which the retiring commit has moved.
    begin_bundle(s, s.pc, BundleKind::Standard, BundleTransfer::Fallthrough, sequential, sequential, sequential, true);
  } else if (!s.block.bundle_active || s.block.bundle_body_active || s.block.hint.present) {
    return m.set_fault(FaultCode::Fault_BundleControl, pc);
  }
  s.last_bundle_hint_payload = d.bits;
  s.block.header_dirty = true;
  auto& h = s.block.hint;
  h.present = true;
  h.trace = trace;
  h.trace_end = trace && (d.field[trace_field] & 1);
  if (!trace) {
    h.branch_valid = d.field[isa::field_index(f, "V")] & 1;
    h.branch_likely = d.field[isa::field_index(f, "L/UL")] & 1;
    h.temperature = static_cast<std::uint8_t>(d.field[isa::field_index(f, "temp")] & 3);
    h.prefetch_size = static_cast<std::uint16_t>(d.field[isa::field_index(f, "prefetch_size")] & 0xFFF);
  }
  if (trace) return ExecOutcome::PcWritten;
  return ExecOutcome::Next;
}

ExecOutcome tile_operation_not_registered(Machine&, isa::TileOp) { return ExecOutcome::NotImplemented; }

}  // namespace

std::optional<isa::TileOp> pending_tile_operation(const State& s) {
  const auto& op = s.block.operation;
  if (!op.valid || op.operation_class == BundleOperationClass::Control ||
      op.operation_class == BundleOperationClass::FixedPoint) {
    return std::nullopt;
  }
  // The selector fields sit where the tile start encodes them.
  const std::uint64_t bits = 0x1181u | (std::uint64_t{op.selector} << 20) | (std::uint64_t{op.mode} << 25) |
                             (op.operation_class == BundleOperationClass::TileElement ? 3u << 15
                              : op.operation_class == BundleOperationClass::TileMemory ? 2u << 15
                                                                                        : 6u << 15);
  return isa::tile_op_of_start(bits);
}

const TileExecutorTable& tile_executor_table() {
  static const TileExecutorTable table = [] {
    TileExecutorTable t;
    register_tile_operation_executors(t);
    return t;
  }();
  return table;
}

ExecOutcome complete_bundle(Machine& m, Word continuation) {
  State& s = m.state;
  if (!s.block.bundle_active) {
    return m.set_fault(FaultCode::Fault_BundleControl, s.pc);
  }
  // SETC.TGT may have replaced BPCN: validate before any effect.  The tile
  // operation below does not touch BARG, so the commit PC stays valid.
  const std::optional<Word> next_pc = legal_commit_pc(m, continuation);
  if (!next_pc) return m.raised();
  // DR (dimension reduction) applies to VEC/SFU/TLSU blocks only.
  if (s.block.control_attributes.dimension_reduction && s.block.barg.block_type != BundleKind::TileElement &&
      s.block.barg.block_type != BundleKind::TileMemory) {
    return m.set_fault(FaultCode::Fault_BundleControl, s.pc);
  }
  const auto& op = s.block.operation;
  if (op.valid && op.operation_class == BundleOperationClass::FixedPoint) {
    return m.set_fault(FaultCode::Fault_IllegalInstruction, s.pc);
  }
  if (const auto tile_op = pending_tile_operation(s)) {
    TileOperationExecutor e = tile_executor_table().get(*tile_op);
    const ExecOutcome o = (e ? e : tile_operation_not_registered)(m, *tile_op);
    if (o != ExecOutcome::Next) return o;
  }
  return stop_bundle(m, *next_pc);
}

namespace {

bool scalar_start(const StartForm& sf) {
  return sf.operation_class == BundleOperationClass::Control && !sf.tile_start && sf.branch_type_field < 0;
}

// A compressed STD/FP start: a scalar start but for its BrType field.
bool scalar_start_but_typed(const StartForm& sf) {
  return sf.operation_class == BundleOperationClass::Control && !sf.tile_start && sf.branch_type_field >= 0;
}

// The transfer a scalar start record selects when its BrType (if any) is
// legal: the form's, or its BrType's for a compressed STD/FP start.
std::optional<BundleTransfer> scalar_start_transfer(const DecodedInsn& d, const StartForm& sf) {
  if (d.handler == &BSTART<true>) return sf.transfer;
  if (d.handler != &BSTART<false> || !scalar_start_but_typed(sf)) return std::nullopt;
  const arch::BundleOperationDescriptor desc = descriptor_of(d, sf);
  if (!descriptor_legal(desc, d.bits)) return std::nullopt;
  return transfer_of_branch_type(desc.branch_type);
}

bool every_form_scalar_start(isa::Mnemonic m) {
  for (const isa::FormIndex i : isa::forms_of_mnemonic(m)) {
    if (!scalar_start(start_form(i))) return false;
  }
  return true;
}

}  // namespace

void register_start_stop_handlers(scalar::HandlerTable& t) {
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    const std::string_view h = f.semantic_handler;
    if (f.status != isa::FormStatus::Accepted) continue;
    if (h == "ExecuteBundleStart") t.set(f.mnem, every_form_scalar_start(f.mnem) ? BSTART<true> : BSTART<false>);
    if (h == "ExecuteBundleStop") t.set(f.mnem, BSTOP);
  }
  t.set(isa::Mnemonic::B_CATR, B_CATR);
  t.set(isa::Mnemonic::B_HINT, B_HINT);
}

void bind_to_pc(DecodedInsn& d, Word pc) {
  if (d.field_count > kBoundTargetSlot || (d.handler != &BSTART<true> && d.handler != &BSTART<false>)) return;
  const StartForm& sf = start_form(d.form);
  const std::optional<BundleTransfer> selected = scalar_start_transfer(d, sf);
  if (!selected) return;
  const bool typed = sf.branch_type_field >= 0;
  const int kind = index_in(kBoundKinds, sf.kind);
  const int transfer = index_in(kBoundTransfers, *selected);
  if (kind < 0 || transfer < 0) return;
  // The targets BSTART<true> computes at `pc`.  A record with a handler
  // sits at an even PC (odd PCs decode to fetch faults), so they are even.
  // (A Return's slot holds its fallthrough, unused: it reads _ReturnAddress.)
  d.field[kBoundTargetSlot] = static_cast<std::int64_t>(relative_target(sf, *selected, d, pc));
  d.field[kBoundReturnSlot] = static_cast<std::int64_t>(start_return_target(sf, d, pc));
  d.handler = kBoundStarts[typed][static_cast<std::size_t>(kind)][static_cast<std::size_t>(transfer)];
}

std::optional<BoundStart> fusable_bound_start(const DecodedInsn& d) {
  for (const auto& table : kBoundStarts) {
    for (std::size_t kind = 0; kind < kBoundKinds.size(); ++kind) {
      if (kBoundKinds[kind] == BundleKind::System) continue;
      for (std::size_t transfer = 0; transfer < kBoundTransfers.size(); ++transfer) {
        if (table[kind][transfer] != d.handler) continue;
        return BoundStart{kBoundTransfers[transfer], d.u(kBoundTargetSlot), d.u(kBoundReturnSlot)};
      }
    }
  }
  return std::nullopt;
}

bool is_block_stop(const DecodedInsn& d) { return d.handler == &BSTOP; }

void begin_bundle_at(Machine& m, Word start_pc, BundleKind kind, BundleTransfer transfer, Word target,
                     Word sequential, Word return_target, bool taken) {
  if (m.state.block.bundle_active) {
    m.set_fault(FaultCode::Fault_BundleControl, m.state.pc);
  } else if (target & 1) {
    m.set_fault(FaultCode::Fault_InstructionPC, target);
  } else {
    begin_bundle(m.state, start_pc, kind, transfer, target, sequential, return_target, taken);
  }
}

ExecOutcome stop_bundle_at(Machine& m, Word continuation) {
  if (!m.state.block.bundle_active) {
    return m.set_fault(FaultCode::Fault_BundleControl, m.state.pc);
  }
  const std::optional<Word> next_pc = legal_commit_pc(m, continuation);
  return next_pc ? stop_bundle(m, *next_pc) : m.raised();
}

void enter_bundle_body(Machine& m) {
  if (!m.state.block.bundle_active) {
    m.set_fault(FaultCode::Fault_BundleControl, m.state.pc);
  } else {
    m.state.block.bundle_body_active = true;
  }
}

void reset_bundle_control(State& s) {
  s.block = BlockState{};
  for (auto& c : s.trap_contexts) c = arch::TrapContext{};
  s.frame_depth = 0;
  s.last_frame_begin = s.last_frame_end = 0;
  s.last_frame_size = 0;
  s.last_memory_command_address = s.last_memory_command_size = 0;
  s.last_bundle_hint_payload = 0;
}

const char* tile_operation_name(isa::TileOp op) { return isa::tile_op(op).name; }

}  // namespace pto::block
