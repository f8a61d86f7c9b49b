// Architectural state of one PTO core: a plain struct, no behaviour beyond
// trivial accessors.  Member names follow the ASL variables they model
// (asl/arch/programming-model/execution-context.asl PTO-REQ-STATE-001,
// asl/block/model/state/control-state.asl PTO-REQ-BUNDLE-STATE-001,
// asl/arch/system-registers/addressing.asl).  Tile register state is owned
// by the tile engine and lives outside this struct.
#pragma once

#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

namespace pto::arch {

using Word = std::uint64_t;

// asl/arch/programming-model/core-pe-topology.asl, asl/arch/features/tile-allocation.asl
inline constexpr unsigned kXlen = 64;
inline constexpr unsigned kAbsoluteGprCount = 24;      // PTO_ABSOLUTE_GPR_COUNT
inline constexpr unsigned kTemporaryQueueDepth = 4;    // PTO_TEMPORARY_QUEUE_DEPTH
inline constexpr unsigned kPredicateRegisterCount = 8; // PTO_PREDICATE_REGISTER_COUNT
inline constexpr unsigned kAcrCount = 16;              // PTO_ACR_COUNT
inline constexpr unsigned kMemoryAgents = 4;           // PTO_MODEL_MEMORY_AGENTS (PEs)
inline constexpr unsigned kMemoryEvents = 16;          // PTO_MODEL_MEMORY_EVENTS
inline constexpr unsigned kReservationGranuleBytes = 64;
inline constexpr unsigned kBundleDimensionCount = 3;
inline constexpr unsigned kBundleScalarBindingCount = 32;
inline constexpr unsigned kBundleTileBindingCount = 16;
inline constexpr unsigned kBundleSharedBindingCount = 4;
inline constexpr unsigned kFrameRegisterSnapshot = 22;
inline constexpr Word kTileCapacityBytes = 262144;     // PTO_TILE_CAPACITY_BYTES

// Reg5 selector codes (asl/scalar/model/types/operands.asl).
inline constexpr unsigned kReg5TQueueFirst = 24;  // sources 24..27 = t#1..t#4
inline constexpr unsigned kReg5UQueueFirst = 28;  // sources 28..31 = u#1..u#4
inline constexpr unsigned kReg5PushU = 30;        // destination ->u
inline constexpr unsigned kReg5PushT = 31;        // destination ->t
inline constexpr unsigned kRegRa = 10;            // ABI `ra` (PTO_FRAME_RA_INDEX)
inline constexpr unsigned kRegSp = 1;             // ABI `sp` (B.IOR spelling table)
// Frame templates use GPR 2 as their stack pointer (PTO_FRAME_SP_INDEX in
// asl/block/model/lifecycle/lifetime.asl; docs/semantics-notes.md).
inline constexpr unsigned kFrameSpIndex = 2;

// asl/arch/data-types/fault.asl (same order): the one fault type of the
// scalar, block and tile layers.
enum class FaultCode : std::uint8_t {
  Fault_None,
  Fault_ExecutionStateCheck,
  Fault_IllegalInstruction,
  Fault_InstructionPC,
  Fault_InstructionPage,
  Fault_DataAlignment,
  Fault_DataPage,
  Fault_SoftwareBreakpoint,
  Fault_HardwareBreakpoint,
  Fault_HardwareWatchpoint,
  Fault_Assert,
  Fault_TileLegality,
  Fault_TileAllocation,
  Fault_BundleControl,
  Fault_BundlePostCommit,
  Fault_ServiceRequest,
  // Not an architectural fault: a tile operation needs an element slot at or
  // beyond PTO_MODEL_TILE_ELEMENTS, where the ASL model fails an assertion
  // (ConfigurePredicateTileForMask, TilePackedCarrierIndex).  The bundle
  // engine stops the run instead of raising it; it never reaches last_fault.
  Fault_ModelTileElements,
};
std::string_view fault_name(FaultCode c);
// Trap number written to TRAPNO (SetFaultWithCause in
// asl/arch/memory-model/fault-precision.asl).
std::uint8_t trap_number(FaultCode c);

enum class MemoryOrder : std::uint8_t { Relaxed, Acquire, Release, AcquireRelease };
enum class MemoryEventKind : std::uint8_t { InitialWrite, Load, Store, Atomic, Fence };

// asl/arch/data-types/memory-model.asl
struct MemoryEvent {
  MemoryEventKind kind = MemoryEventKind::InitialWrite;
  std::uint8_t agent = 0;
  Word address = 0;
  std::uint8_t size_bytes = 1;
  Word read_value = 0;
  Word write_value = 0;
  bool write_performed = false;
  MemoryOrder order = MemoryOrder::Relaxed;
  std::uint8_t read_from = 0;
  std::uint8_t coherence_rank = 0;
  std::uint8_t fence_predecessor = 0;
  std::uint8_t fence_successor = 0;
};

// ---- block-control state (asl/block/model/state/types.asl) ----
enum class BundleKind : std::uint8_t {
  Standard, Floating, System, TileElement, TileMemory, TileMatrix, FrameTemplate,
};
enum class BundleTransfer : std::uint8_t {
  Fallthrough, Direct, Conditional, Call, Return, Indirect, IndirectCall,
};
enum class BundleOperationClass : std::uint8_t { Control, TileElement, TileMemory, TileMatrix, FixedPoint };

// PTOv0BundleKindCode / PTOv0BundleKindOf and the transfer pair
// (asl/block/model/schema/profile-encoding.asl): the codes the BARG control
// words (LSRGET, EBARG0) carry.
inline constexpr std::uint8_t kBundleKindCodes[] = {0, 1, 2, 5, 6, 7, 8};  // by BundleKind
constexpr std::uint8_t bundle_kind_code(BundleKind k) { return kBundleKindCodes[static_cast<unsigned>(k)]; }
constexpr BundleKind bundle_kind_of(unsigned code) {
  for (unsigned k = 0; k < std::size(kBundleKindCodes); ++k)
    if (kBundleKindCodes[k] == code) return static_cast<BundleKind>(k);
  return BundleKind::Standard;
}
constexpr std::uint8_t bundle_transfer_code(BundleTransfer t) { return static_cast<std::uint8_t>(t); }
constexpr BundleTransfer bundle_transfer_of(unsigned code) {
  return code <= static_cast<unsigned>(BundleTransfer::IndirectCall) ? static_cast<BundleTransfer>(code)
                                                                      : BundleTransfer::Fallthrough;
}

struct BundleArgumentRegister {  // BARG
  BundleKind block_type = BundleKind::Standard;
  BundleTransfer transfer_type = BundleTransfer::Fallthrough;
  bool taken = false;
  Word bpcn = 0;
};

struct BundleOperationDescriptor {
  bool valid = false;
  std::uint8_t form_identity = 0;  // bits(7)
  BundleOperationClass operation_class = BundleOperationClass::Control;
  bool selector_valid = false;
  std::uint16_t selector = 0;      // bits(10)
  bool data_type_valid = false;
  std::uint8_t data_type = 0;      // bits(5)
  bool mode_valid = false;
  std::uint8_t mode = 0;           // bits(2)
  bool branch_type_valid = false;
  std::uint8_t branch_type = 0;    // bits(3)
};

struct BundleScalarBinding {
  bool valid = false;
  std::uint8_t destination = 0, source0 = 0, source1 = 0, source2 = 0;
  std::uint8_t source_count = 0;
};

struct BundleTileBinding {
  bool valid = false;
  bool destination_valid = false;
  std::uint8_t destination = 0;
  std::uint8_t destination_hand = 0;
  bool destination_allocated_by_bundle = false;
  std::uint8_t destination_size = 0;
  std::uint8_t pe_mask = 0;
  bool source0_valid = false;
  bool source1_valid = false;
  std::uint8_t source0 = 0;
  std::uint8_t source1 = 0;
  bool last = false;
};

struct BundleSharedBinding {
  bool valid = false;
  std::uint8_t shared_id = 0;
  std::uint8_t size_code = 0;
  std::uint8_t pe_mask = 0;
  bool consumed = false;
};

struct BundleControlAttributes {  // B.CATR
  bool present = false, trap_enabled = false, atomic = false, acquire = false, release = false,
       far = false, dimension_reduction = false;
};

struct BundleDataAttributes {  // B.DATR
  bool data_type_present = false;
  std::uint8_t data_type = 31;  // DTYPE_NONE
  std::uint8_t data_layout = 0;
  std::uint8_t pad_value = 3;   // omitted B.DATR means Null (ClearBundleHeaderState)
  std::uint8_t comparison_mode = 0, rounding_mode = 0;
  bool saturating = false, canonicalize = false;
};

struct BundleHintAttributes {  // B.HINT
  bool present = false, trace = false, trace_end = false, branch_valid = false, branch_likely = false;
  std::uint8_t temperature = 0;
  std::uint16_t prefetch_size = 0;
};

struct BundleFixedPointAttributes {  // B.FPATR
  bool valid = false;
  std::uint8_t pre_quant_mode = 0, relu_mode = 0, group_n_code = 0;
  bool row_max_en = false, group_max_en = false, row_max_init = false, max_abs_en = false, trans_a = false,
       trans_b = false;
};

struct MemoryCopyTemplateState {  // MCOPY / MSET progress
  bool active = false;
  Word instruction_pc = 0, destination = 0, source = 0, length = 0, progress = 0;
};

enum class FrameTemplateKind : std::uint8_t { Entry, Exit, ReturnAddress, ReturnStack };

struct FrameTemplateState {
  bool active = false;
  FrameTemplateKind kind = FrameTemplateKind::Entry;
  Word instruction_pc = 0;
  std::uint8_t begin_reg = 2, end_reg = 2, register_count = 0;
  Word frame_size = 0, caller_sp = 0;
  bool stack_adjusted = false;
  std::uint8_t progress = 0;
  Word return_target = 0;
  bool return_target_valid = false;
  std::array<Word, kFrameRegisterSnapshot> source_values{};
};

// The pending block: everything BSTART installs and a commit consumes.  One
// struct so the trap context can snapshot it whole (SavePortableTrapContext).
struct BlockState {
  bool bundle_active = false;       // _BundleActive
  bool bundle_body_active = false;  // _BundleBodyActive
  bool commit_target_set = false;   // _BundleCommitTargetSet
  bool condition_set = false;       // _BundleConditionSet
  bool system_block_terminal_pending = false;
  BundleArgumentRegister barg;      // _BARG
  Word sequential_pc = 0;           // _BundleSequentialPC
  Word frame_stack_return_target = 0;
  Word bundle_argument = 0;
  std::uint8_t bundle_argument_kind = 0;
  BundleOperationDescriptor operation;
  std::array<Word, kBundleDimensionCount> dimensions{};
  std::array<bool, kBundleDimensionCount> dimension_present{};
  std::array<BundleScalarBinding, kBundleScalarBindingCount> scalar_bindings{};
  std::array<BundleTileBinding, kBundleTileBindingCount> tile_bindings{};
  std::array<BundleSharedBinding, kBundleSharedBindingCount> shared_bindings{};
  bool zero_participation_seen = false;
  BundleControlAttributes control_attributes;
  BundleDataAttributes data_attributes;
  bool data_attributes_present = false;
  BundleHintAttributes hint;
  BundleFixedPointAttributes fixed_point_attributes;
  MemoryCopyTemplateState memory_copy_template;
  FrameTemplateState frame_template;
  // Not architectural: set when a header field other than `operation` may
  // differ from its ClearBundleHeaderState value, so the clear at each block
  // start/stop can skip the binding arrays (src/block/start_stop.cpp).
  bool header_dirty = false;
};

// T/U temporary queues: index 0 is the newest entry (t#1 / u#1).
struct TemporaryQueue {
  std::array<Word, kTemporaryQueueDepth> value{};
  std::array<bool, kTemporaryQueueDepth> valid{};
  std::uint64_t pushes = 0;  // not architectural: lets observers see pushes

  void push(Word v) {
    for (unsigned i = kTemporaryQueueDepth - 1; i > 0; --i) {
      value[i] = value[i - 1];
      valid[i] = valid[i - 1];
    }
    value[0] = v;
    valid[0] = true;
    ++pushes;
  }
};

// asl/arch/data-types/trap-context.asl
struct TrapContext {
  bool valid = false;
  std::uint8_t source_acr = 0;
  Word tpc = 0;
  Word bpc = 0;
  Word core_state = 0;
  Word commit_argument = 0;
  Word return_address = 0;
  BlockState block;
  TemporaryQueue t_queue;
  TemporaryQueue u_queue;
  std::array<std::uint32_t, kPredicateRegisterCount> predicates{};
};

// BaseSystemRegisterState (asl/arch/system-registers/addressing.asl).
struct BaseSystemRegisters {
  Word thread_ptr = 0, global_ptr = 0, core_state = 0, core_id = 0, thread_id = 0, vendor = 0, version = 1,
       core_feature = 0, core_feature_enable = 0, tile_capacity = kTileCapacityBytes, blocknum = 0, blockid = 0,
       cycle = 0;
};

// CORE_STATE fields (asl/arch/state/numeric-status.asl, access-control.asl).
inline constexpr Word kCoreStateAcrMask = 0xF;           // [3:0] current ACR
inline constexpr unsigned kCoreStateFlagsShift = 32;     // [36:32] NV DZ OF UF NX
inline constexpr unsigned kCoreStateRoundingShift = 37;  // [39:37] FP rounding mode

// ACR-banked ("extended") registers: low index 0xF00..0xFB7 in each 4096-entry
// ring bank (asl/arch/profile/reset.asl).
inline constexpr unsigned kBankedLowFirst = 0xF00;
inline constexpr unsigned kBankedLowCount = 0xFB8 - 0xF00;
inline constexpr unsigned kEcstateLow = 0xF00;
inline constexpr unsigned kEvbaseLow = 0xF01;
inline constexpr unsigned kInterruptEnableLow = 0xF07;  // reset value 3
// The visible trap context a trap writes into its target ring's bank
// (SaveTrapContext, asl/arch/profile/reference-profile.asl; catalog names
// EBARG0/EBARG_BPC_CUR/_BPC_TGT/_TPC/_LRA/_TQ0..3/_UQ0..3/_LB/_LC).
inline constexpr unsigned kEbargControlLow = 0xF40;
inline constexpr unsigned kEbargBpcLow = 0xF41;
inline constexpr unsigned kEbargBpcnLow = 0xF42;
inline constexpr unsigned kEbargTpcLow = 0xF43;
inline constexpr unsigned kEbargReturnAddressLow = 0xF44;
inline constexpr unsigned kEbargTQueueLow = 0xF45;
inline constexpr unsigned kEbargUQueueLow = 0xF49;
inline constexpr unsigned kEbargLoopBoundLow = 0xF4D;
inline constexpr unsigned kEbargLoopCountLow = 0xF4E;

struct TrapStatus {  // per-ring _ACRTrap* (packed by PackTrapStatus)
  bool asynchronous = false;
  bool argument_valid = false;
  std::uint32_t cause = 0;  // bits(24)
  std::uint8_t number = 0;  // bits(6)
  Word argument0 = 0;
};

// asl/arch/data-types/system-registers.asl (same order).
enum class MaintenanceOperation : std::uint8_t {
  DC_IALL, DC_IVA, DC_ISW, DC_ZVA, DC_CVA, DC_CIVA, DC_CSW, DC_CISW,
  IC_IALL, IC_IVA, BC_IALL, BC_IVA, TLB_IV, TLB_IAV, TLB_IA, TLB_IALL,
};
std::string_view maintenance_operation_name(MaintenanceOperation op);  // "Maintenance_DC_IALL", ...

// asl/scalar/model/types/operations.asl (same order).
enum class ExecutionControlRequest : std::uint8_t { SendEvent, WaitEvent, WaitInterrupt, WaitTimeout };
std::string_view execution_control_request_name(ExecutionControlRequest r);  // "ExecutionControl_SendEvent", ...

// Fence, maintenance and execution-control bookkeeping
// (asl/arch/programming-model/execution-context.asl; reset values from
// asl/arch/profile/reset.asl).  The model's caches and TLB are coherent
// byte arrays: these epochs are the whole architectural effect.
struct SystemBookkeeping {
  std::uint8_t last_fence_predecessor = 0;  // _LastFencePredecessor bits(4)
  std::uint8_t last_fence_successor = 0;    // _LastFenceSuccessor bits(4)
  std::uint64_t data_cache_epoch = 0;         // _DataCacheEpoch
  std::uint64_t instruction_cache_epoch = 0;  // _InstructionCacheEpoch
  std::uint64_t bundle_cache_epoch = 0;       // _BundleCacheEpoch
  std::uint64_t tlb_epoch = 0;                // _TLBEpoch
  MaintenanceOperation last_maintenance_operation = MaintenanceOperation::DC_IALL;
  Word last_maintenance_operand = 0;
  std::uint64_t architecture_request_epoch = 0;  // _ArchitectureRequestEpoch
  ExecutionControlRequest last_control_request = ExecutionControlRequest::SendEvent;
  Word control_request_operand = 0;  // _ControlRequestOperand
};

// General Queue Management (asl/arch/programming-model/general-queue-management.asl).
inline constexpr unsigned kGqmMaxCapacity = 1023;  // PTO_GQM_MAX_CAPACITY
struct GqmEntry {
  Word value = 0;
  std::uint64_t release_epoch = 0;
};
struct GqmQueue {  // one _GQMQueue* slot
  bool valid = false;
  Word address = 0;
  std::uint16_t capacity = 0, count = 0, head = 0;
  bool suspended = false, corrupt = false;
  std::vector<GqmEntry> entries;  // `capacity` entries once initialized
};
struct GqmState {
  // PTO_MODEL_GQM_QUEUE_SLOTS (4) sizes the ASL's verification backing, not
  // an architectural limit: slots are added on demand beyond it
  // (docs/semantics-notes.md "GQM queue slots").
  std::vector<GqmQueue> queues;
  std::uint64_t release_epoch = 0;       // _GQMReleaseEpoch
  std::uint64_t last_acquire_epoch = 0;  // _LastGQMAcquireEpoch
  std::uint64_t event_epoch = 0;         // _GQMEventEpoch
  Word last_event_address = 0;           // _LastGQMEventAddress
  // Block-control record of the last HL.QMT/QPUSH/QPOP
  // (asl/block/model/state/control-state.asl).
  Word last_queue_left = 0, last_queue_right = 0;  // _LastQueueLeft / _LastQueueRight
  std::uint8_t last_queue_flags = 0;               // _LastQueueFlags bits(4)
};

// The whole architectural state of the core (reset values per
// asl/arch/profile/reset.asl are applied by arch::reset, not here).
struct State {
  // Scalar register files, one per PE; [pe][0] is never written.
  std::array<std::array<Word, kAbsoluteGprCount>, kMemoryAgents> gpr{};
  TemporaryQueue t_queue;
  TemporaryQueue u_queue;
  std::array<std::uint32_t, kPredicateRegisterCount> predicates{};
  std::uint8_t current_pe = 0;  // _CurrentMemoryAgent

  Word pc = 0;   // _PC (= TPC; ReadPC and ReadTPC are the same register)
  Word bpc = 0;  // _BPC: address of the current BSTART, 0 outside a block
  Word return_address = 0;  // _ReturnAddress
  Word commit_argument = 0; // _CommitArgument
  BlockState block;
  // Block-control bookkeeping outside the trap context (control-state.asl).
  std::uint8_t frame_depth = 0;  // _FrameDepth, saturates at PTO_MODEL_MEMORY_EVENTS
  std::uint8_t last_frame_begin = 0, last_frame_end = 0;
  Word last_frame_size = 0;
  Word last_memory_command_address = 0, last_memory_command_size = 0;
  Word last_bundle_hint_payload = 0;

  FaultCode last_fault = FaultCode::Fault_None;  // _LastFault
  Word fault_address = 0;                        // _FaultAddress

  BaseSystemRegisters sysregs;
  std::array<std::array<Word, kBankedLowCount>, kAcrCount> banked{};  // [ring][low - 0xF00]
  std::uint8_t current_acr = 0;  // _CurrentACR
  std::array<TrapStatus, kAcrCount> trap_status{};
  std::array<TrapContext, kAcrCount> trap_contexts{};

  // LR/SC reservation and TSO capture (asl/arch/memory-model/*).
  bool reservation_valid = false;
  Word reservation_address = 0;
  std::uint8_t reservation_size = 1;
  std::array<MemoryEvent, kMemoryEvents> memory_events{};
  std::uint8_t memory_event_count = 0;
  bool memory_event_capture = false;

  SystemBookkeeping bookkeeping;  // fences, maintenance epochs, control requests
  GqmState gqm;

  // ---- accessors used on hot paths ----
  Word read_gpr(unsigned index) const { return gpr[current_pe][index]; }  // [pe][0] stays 0
  void write_gpr(unsigned index, Word v) {
    if (index != 0) gpr[current_pe][index] = v;
  }
  Word& banked_reg(unsigned ring, unsigned low_index) { return banked[ring][low_index - kBankedLowFirst]; }
  Word banked_reg(unsigned ring, unsigned low_index) const { return banked[ring][low_index - kBankedLowFirst]; }

  // Reg5 source (ReadScalarRegisterOperand).  Callers check
  // reg5_source_available first; the dispatcher does so for every catalog
  // source field before a handler runs.
  Word read_reg5(unsigned sel) const {
    if (sel < kAbsoluteGprCount) return read_gpr(sel);
    if (sel < kReg5UQueueFirst) return t_queue.value[sel - kReg5TQueueFirst];
    return u_queue.value[sel - kReg5UQueueFirst];
  }
  // ScalarSourceSelectorLegal
  bool reg5_source_available(unsigned sel) const {
    if (sel < kAbsoluteGprCount) return true;
    if (sel < kReg5UQueueFirst) return t_queue.valid[sel - kReg5TQueueFirst];
    return u_queue.valid[sel - kReg5UQueueFirst];
  }
  // WriteScalarDestination: 0..23 GPR (0 discards), 30 ->u, 31 ->t, 24..29 discard.
  void write_reg5(unsigned sel, Word v) {
    if (sel < kAbsoluteGprCount) {
      write_gpr(sel, v);
    } else if (sel == kReg5PushU) {
      u_queue.push(v);
    } else if (sel == kReg5PushT) {
      t_queue.push(v);
    }
  }
  // P0 reads all ones (asl/arch/programming-model/predicate-registers.asl).
  std::uint32_t read_predicate(unsigned index) const { return index == 0 ? 0xFFFFFFFFu : predicates[index]; }
};

}  // namespace pto::arch
