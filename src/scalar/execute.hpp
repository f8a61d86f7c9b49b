// Contract between the run loop (src/runner, src/arch, src/block) and the
// per-form instruction handlers (scalar families in src/scalar, block
// commands in src/block, tile operations later).
//
// HOW A HANDLER IS CALLED
//   The dispatcher fetches, decodes once (the record below is cached by PC),
//   then for every execution attempt does, in the ASL order of
//   ExecuteScalarInstruction (asl/scalar/model/dispatch/top-level.asl):
//     1. BeginArchitecturalInstructionAttempt: last_fault = None,
//        fault_address = 0, cycle += 1;
//     2. decode failure (no form / reserved) -> Fault_IllegalInstruction;
//     3. applicability (ScalarOperationApplicable: SETC.* / SETC.TGT /
//        LSRGET / SYS-block operations, SYS-terminal pending) -> Fault_BundleControl;
//     4. catalog field constraints (ScalarFormOperandsLegal) -> Fault_IllegalInstruction;
//     5. Reg5 source fields SrcA/SrcD/SrcD1/SrcL/SrcP/SrcR naming an invalid
//        t#/u# slot (ScalarRegisterOperandsLegal) -> Fault_IllegalInstruction;
//     6. implicit t#1 sources of C.SDI/C.SLLI/C.SRLI/C.SWI -> Fault_IllegalInstruction;
//     7. the handler.
//   So a scalar handler may read every Reg5 source field with
//   State::read_reg5 without checking queue validity again.
//
// WHAT A HANDLER DOES
//   Legality before effects: first decide every remaining fault (memory
//   alignment/page probes, operand-value rules), then apply effects.  A
//   faulting instruction must change nothing the spec does not say it changes.
//   - Raise a fault with `return m.set_fault(code, address[, cause]);` (the
//     one implementation of SetFaultWithCause: saves the trap context, sets
//     _LastFault/_FaultAddress, switches ACR, moves TPC to EVBASE or the fault
//     address, and returns the outcome carrying the code, fault_outcome(code)).  Fault address: ReadTPC() (=
//     Machine::state.pc, still the instruction's PC while the handler runs)
//     for decode/legality faults, the data address for memory faults.
//   - Machine::load / Machine::store perform ProbeDataAccess (alignment
//     before page), raise the fault themselves and return false; the handler
//     then returns m.raised(), the outcome of that fault.  For multi-access forms (pairs,
//     pre/post update) probe every access with Machine::probe_data first,
//     then perform them, so nothing is written before a later access faults.
//   - Return ExecOutcome::Next on success: the dispatcher advances TPC by the
//     instruction length.  Handlers that set TPC themselves (J, JR, BSTART,
//     ...; ScalarHandlerWritesTPC) write state.pc and return PcWritten.
//   - Return ExecOutcome::NotImplemented (or leave the table entry null) for
//     anything this model does not execute: the run stops with
//     "not implemented in this model: <MNEMONIC>".  Never a silent no-op.
//   Handlers never print and never throw (except HostMemoryExhausted, raised
//   inside Memory when the host cap is hit).
//
// REGISTRATION
//   Handlers are looked up by isa::Mnemonic (scalar forms have one form per
//   mnemonic, so the field order of DecodedInsn::field is fixed per handler).
//   The scalar engineer defines, in src/scalar/*.cpp:
//       void pto::scalar::register_scalar_family_handlers(HandlerTable&);
//   which installs the ALU, AGU and BRU handlers.  The block layer registers
//   its own first (register_block_handlers in src/block) and owns these
//   ALU/BRU/SYS mnemonics — do not register them: J, JR, SETRET, HL.SETRET,
//   ADDTPC, HL.ADDTPC, SETC.* / C.SETC.EQ/NE / HL.SETC.*,
//   SETC.TGT, C.SETC.TGT, LSRGET (and all command forms).
//   HandlerTable::set keeps the first registration and returns false for a
//   second one.  block::condition_holds (src/block/control.hpp) is the
//   ConditionHolds the CMP family can share.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string_view>

#include "arch/outcome.hpp"
#include "isa/catalog.hpp"

namespace pto::arch {
class Machine;
struct State;
}

namespace pto::scalar {

// Next, PcWritten, NotImplemented, or the fault raised (src/arch/outcome.hpp).
using arch::ExecOutcome;
using arch::fault_of;
using arch::fault_outcome;
using arch::is_fault;
using arch::is_success;
using arch::stops_run;

struct DecodedInsn;
using Handler = ExecOutcome (*)(arch::Machine&, const DecodedInsn&);
// Kept for readability at scalar registration sites.
using ScalarHandler = Handler;

inline constexpr unsigned kMaxDecodedFields = 16;

// Pre-checks the dispatcher runs before calling the handler (bit set).
enum PreCheck : std::uint8_t {
  kCheckQueueSources = 1u << 0,   // a Reg5 source field names t#/u#
  kCheckImplicitT1 = 1u << 1,     // C.SDI/C.SLLI/C.SRLI/C.SWI read t#1
  kCheckApplicability = 1u << 2,  // block-state dependent (see Applicability)
  kCheckHeaderCommand = 1u << 3,  // a header command: marks the block header dirty
};

// ScalarOperationApplicable classes (asl/scalar/model/sys/semantics.asl).
enum class Applicability : std::uint8_t {
  Always,
  CommitConditionSetter,   // SETC.*: active COND block body, condition not yet set
  CommitTarget,            // SETC.TGT: active STD/FP block
  CompressedCommitTarget,  // C.SETC.TGT: as SETC.TGT, once per block
  BlockBody,               // LSRGET: active block body
  SystemBlock,             // SYS-block operations: active SYS block body
};

// Static properties of the decoded form (bit set).
enum Trait : std::uint8_t {
  kTraitDecoded = 1u << 0,           // `form` names a catalog form
  kTraitCommand = 1u << 1,           // a command (block) form
  kTraitBlockHeader = 1u << 2,       // B.CATR/B.DATR/B.DIM/C.B.DIMI/B.IOR/B.IOT/B.IOS/B.FPATR/B.HINT
  kTraitBlockBoundary = 1u << 3,     // BSTART*/BSTOP*/B.HINT TRACE
  kTraitConstraintFailed = 1u << 4,  // a catalog field constraint fails
  kTraitBlockStop = 1u << 5,         // BSTOP/C.BSTOP/L.BSTOP (ExecuteBundleStop)
};

// One decoded instruction, produced once per PC and cached.
struct DecodedInsn {
  Handler handler = nullptr;       // null: not implemented in this model
  std::uint64_t bits = 0;          // the instruction, length_bytes long
  std::uint8_t length_bytes = 0;   // 2, 4, 6 or 8
  std::uint8_t field_count = 0;
  std::uint8_t prechecks = 0;      // PreCheck bits
  std::uint8_t traits = 0;         // Trait bits
  Applicability applicability = Applicability::Always;
  std::uint8_t queue_source_mask = 0;  // bit i: field i is a Reg5 source naming t#/u#
  isa::FormIndex form = 0;
  isa::Mnemonic mnemonic{};
  // Field values in catalog order (isa::fields_of(form)); signed fields are
  // sign-extended, scaled fields carry their value (e.g. FENTRY uimm).
  std::array<std::int64_t, kMaxDecodedFields> field{};

  const isa::FormDesc& desc() const { return isa::form(form); }
  std::int64_t f(unsigned i) const { return field[i]; }
  std::uint64_t u(unsigned i) const { return static_cast<std::uint64_t>(field[i]); }
  unsigned reg(unsigned i) const { return static_cast<unsigned>(field[i]) & 31u; }
};

// Index of a named field in the (single) form of a mnemonic, or -1.  Cheap
// enough for a function-local static in a handler:
//   static const int kSrcL = field_slot(isa::Mnemonic::ADD, "SrcL");
int field_slot(isa::Mnemonic m, std::string_view field_name);

class HandlerTable {
 public:
  // Returns false (and keeps the first) when the mnemonic already has one.
  bool set(isa::Mnemonic m, Handler h) {
    Handler& slot = table_[static_cast<std::size_t>(m)];
    if (slot != nullptr) return false;
    slot = h;
    return true;
  }
  Handler get(isa::Mnemonic m) const { return table_[static_cast<std::size_t>(m)]; }

 private:
  std::array<Handler, isa::kMnemonicCount> table_{};
};

// Defined by the scalar families (src/scalar): installs ALU/AGU/BRU handlers.
void register_scalar_family_handlers(HandlerTable& table);

// The process-wide table: scalar families, then block handlers, then tile
// (built once, on first use).
const HandlerTable& handler_table();

// A handler equal in effect to the table's handler for this fully decoded
// ALU record but specialised for its operands (every source a GPR, the
// destination a GPR other than R0, no right modifier), or nullptr.
// Predecode installs it; defined in src/scalar/alu.cpp.
Handler alu_register_only_variant(const DecodedInsn& d);
// The same for AGU loads with an immediate offset and no address update
// (SrcL and RegDst GPRs, RegDst not R0); defined in src/scalar/agu.cpp.
Handler agu_register_only_variant(const DecodedInsn& d);
// ScalarDecodedAGUOffset of a decoded AGU form in state `st` (the offset its
// handler adds to the base), or nullopt for a form that is not an AGU form;
// defined in src/scalar/agu.cpp.
std::optional<std::uint64_t> decoded_agu_offset(const arch::State& st, const DecodedInsn& d);

}  // namespace pto::scalar
