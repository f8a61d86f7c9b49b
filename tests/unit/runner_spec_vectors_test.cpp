// Runs the execution vectors extracted from the spec's ASL test points through
// the public execution API: state setters, runner::execute_instruction, state
// getters.  tests/data/spec_scalar_exec.json (tools/extract_exec_vectors.py)
// holds the scalar ALU/AGU/BRU/model/FSU/AMO/SYS points (reference numeric profile), tests/data/spec_block_exec.json
// (tools/extract_block_vectors.py) the block-control and architectural-state
// points; one record per AVS id.  Expected values come from the ASL tests.
#include <gtest/gtest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <fstream>
#include <iterator>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "amo_contract_probes.hpp"
#include "asm/assembler.hpp"
#include "arch/machine.hpp"
#include "block/control.hpp"
#include "block/generated/bundle_start_forms.hpp"
#include "isa/decoder.hpp"
#include "isa/tile_start.hpp"
#include "runner/dispatch.hpp"
#include "scalar/system_registers.hpp"
#include "scalar/tables.hpp"
#include "contract_probes.hpp"
#include "scalar_fact_names.hpp"
#include "spec_vector_runner.hpp"
#include "tile_contract_checks.hpp"
#include "tile_datr_steps.hpp"

namespace {

using namespace pto::test::spec_vectors;  // json, Machine, Word, num, check_vector, ...

const json& vectors() {
  static const json v = load_vectors("spec_scalar_exec.json");
  return v;
}
const json& block_vectors() {
  static const json v = load_vectors("spec_block_exec.json");
  return v;
}

std::string hex(Word v) { return fmt::format("{:#018x}", v); }

const char* kind_name(pto::arch::MemoryEventKind k) {
  static const char* names[] = {"MemoryEvent_InitialWrite", "MemoryEvent_Load", "MemoryEvent_Store",
                                "MemoryEvent_Atomic", "MemoryEvent_Fence"};
  return names[static_cast<unsigned>(k)];
}
const char* order_name(pto::arch::MemoryOrder o) {
  static const char* names[] = {"MemoryOrder_Relaxed", "MemoryOrder_Acquire", "MemoryOrder_Release",
                                "MemoryOrder_AcquireRelease"};
  return names[static_cast<unsigned>(o)];
}

pto::arch::BundleKind bundle_kind(const std::string& s) {
  static const char* names[] = {"BundleKind_Standard",   "BundleKind_Floating",   "BundleKind_System",
                                "BundleKind_TileElement", "BundleKind_TileMemory", "BundleKind_TileMatrix",
                                "BundleKind_FrameTemplate"};
  for (unsigned i = 0; i < 7; ++i) {
    if (s == names[i]) return static_cast<pto::arch::BundleKind>(i);
  }
  throw std::runtime_error("unknown bundle kind " + s);
}
pto::arch::BundleTransfer bundle_transfer(const std::string& s) {
  static const char* names[] = {"BundleTransfer_Fallthrough", "BundleTransfer_Direct",   "BundleTransfer_Conditional",
                                "BundleTransfer_Call",        "BundleTransfer_Return",   "BundleTransfer_Indirect",
                                "BundleTransfer_IndirectCall"};
  for (unsigned i = 0; i < 7; ++i) {
    if (s == names[i]) return static_cast<pto::arch::BundleTransfer>(i);
  }
  throw std::runtime_error("unknown bundle transfer " + s);
}

pto::arch::TemporaryQueue& queue(Machine& m, const json& s) {
  return s.at("queue").get<std::string>() == "t" ? m.state.t_queue : m.state.u_queue;
}

pto::arch::FaultCode fault_code(const std::string& name) {
  for (unsigned i = 0; i <= static_cast<unsigned>(pto::arch::FaultCode::Fault_ServiceRequest); ++i) {
    const auto c = static_cast<pto::arch::FaultCode>(i);
    if (pto::arch::fault_name(c) == name) return c;
  }
  throw std::runtime_error("unknown fault " + name);
}

// A BARG field ("barg.<name>"), rendered for comparison with expected_text.
std::string barg_field(const pto::arch::BundleArgumentRegister& b, const std::string& f) {
  if (f == "barg.bpcn") return hex(b.bpcn);
  if (f == "barg.taken") return fmt::format("{}", b.taken);
  if (f == "barg.block_type") return fmt::format("{}", static_cast<unsigned>(b.block_type));
  if (f == "barg.transfer_type") return fmt::format("{}", static_cast<unsigned>(b.transfer_type));
  return "<unknown field " + f + ">";
}

// The observable value of a trap-context field, rendered for comparison.
std::string trap_context_field(const pto::arch::TrapContext& c, const std::string& f) {
  if (f == "valid") return fmt::format("{}", c.valid);
  if (f == "source_acr") return hex(c.source_acr);
  if (f == "tpc") return hex(c.tpc);
  if (f == "bpc") return hex(c.bpc);
  if (f == "commit_argument") return hex(c.commit_argument);
  if (f.starts_with("barg.")) return barg_field(c.block.barg, f);
  if (f == "bundle_commit_target_set") return fmt::format("{}", c.block.commit_target_set);
  if (f == "bundle_active") return fmt::format("{}", c.block.bundle_active);
  if (f == "bundle_body_active") return fmt::format("{}", c.block.bundle_body_active);
  if (f == "system_block_terminal_pending") return fmt::format("{}", c.block.system_block_terminal_pending);
  if (f == "bundle_sequential_pc") return hex(c.block.sequential_pc);
  if (f == "frame_stack_return_target") return hex(c.block.frame_stack_return_target);
  if (f == "t_queue[0]") return hex(c.t_queue.value[0]);
  if (f == "u_queue[0]") return hex(c.u_queue.value[0]);
  if (f == "t_queue_valid[0]") return fmt::format("{}", c.t_queue.valid[0]);
  return "<unknown field " + f + ">";
}

// _TrapContexts[[n]].f = v for the fields the vectors set.
std::string set_trap_context_field(pto::arch::TrapContext& c, const std::string& f, const json& v) {
  if (f == "valid") c.valid = v.get<bool>();
  else if (f == "source_acr") c.source_acr = static_cast<std::uint8_t>(num(v));
  else if (f == "tpc") c.tpc = num(v);
  else if (f == "bpc") c.bpc = num(v);
  else if (f == "core_state") c.core_state = num(v);
  else if (f == "commit_argument") c.commit_argument = num(v);
  else if (f == "return_address") c.return_address = num(v);
  else return "cannot set trap context field " + f;
  return "";
}

std::string expected_text(const std::string& f, const json& v) {
  if (f == "barg.block_type") return fmt::format("{}", static_cast<unsigned>(bundle_kind(v.get<std::string>())));
  if (f == "barg.transfer_type") return fmt::format("{}", static_cast<unsigned>(bundle_transfer(v.get<std::string>())));
  if (v.is_boolean()) return fmt::format("{}", v.get<bool>());
  return hex(num(v));
}

std::string event_field(const pto::arch::MemoryEvent& e, const std::string& f) {
  if (f == "kind") return kind_name(e.kind);
  if (f == "order") return order_name(e.order);
  if (f == "agent") return std::to_string(e.agent);
  if (f == "size_bytes") return std::to_string(e.size_bytes);
  if (f == "write_performed") return e.write_performed ? "True" : "False";
  if (f == "address") return hex(e.address);
  if (f == "read_value") return hex(e.read_value);
  if (f == "write_value") return hex(e.write_value);
  if (f == "fence_predecessor") return hex(e.fence_predecessor);
  if (f == "fence_successor") return hex(e.fence_successor);
  return "<unknown field " + f + ">";
}

std::string event_expected(const std::string& f, const json& v) {
  if (f == "kind" || f == "order" || f == "write_performed") return v.is_string() ? v.get<std::string>() : (v.get<bool>() ? "True" : "False");
  if (f == "agent" || f == "size_bytes") return std::to_string(num(v));
  return hex(num(v));
}

// Block bookkeeping variables (asl/block/model/state/control-state.asl) and
// B.HINT state: set_<name> / expect_<name>.
std::string bookkeeping_step(pto::arch::State& st, const std::string& op, const json& s) {
  const bool set = op.starts_with("set_");
  const std::string name = op.substr(set ? 4 : 7);
  if (name == "bundle_hint") {
    const std::string f = s["field"];
    const auto& h = st.block.hint;
    const std::string got = f == "present"        ? fmt::format("{}", h.present)
                            : f == "trace"        ? fmt::format("{}", h.trace)
                            : f == "trace_end"    ? fmt::format("{}", h.trace_end)
                            : f == "branch_valid" ? fmt::format("{}", h.branch_valid)
                            : f == "branch_likely" ? fmt::format("{}", h.branch_likely)
                            : f == "temperature"  ? hex(h.temperature)
                            : f == "prefetch_size" ? hex(h.prefetch_size)
                                                   : "<unknown field " + f + ">";
    return got == expected_text(f, s["value"]) ? "" : fmt::format("B.HINT {} = {}", f, got);
  }
  if (name == "frame_template") {
    const std::string f = s["field"];
    const auto& t = st.block.frame_template;
    const std::string got = f == "active"                ? fmt::format("{}", t.active)
                            : f == "stack_adjusted"      ? fmt::format("{}", t.stack_adjusted)
                            : f == "return_target_valid" ? fmt::format("{}", t.return_target_valid)
                            : f == "progress"            ? hex(t.progress)
                            : f == "return_target"       ? hex(t.return_target)
                            : f == "frame_size"          ? hex(t.frame_size)
                                                         : "<unknown field " + f + ">";
    return got == expected_text(f, s["value"]) ? "" : fmt::format("frame template {} = {}", f, got);
  }
  if (name == "core_state" && set) {
    st.sysregs.core_state = num(s["value"]);
    return "";
  }
  if (name == "bundle_argument_kind" && set) {  // _BundleArgumentKind bits(3)
    st.block.bundle_argument_kind = static_cast<std::uint8_t>(num(s["value"]));
    return "";
  }
  Word* var = name == "last_memory_command_address"   ? &st.last_memory_command_address
              : name == "last_memory_command_size"    ? &st.last_memory_command_size
              : name == "last_bundle_hint_payload"    ? &st.last_bundle_hint_payload
              : name == "bundle_argument"             ? &st.block.bundle_argument
                                                      : nullptr;
  if (name == "frame_depth") {  // _FrameDepth is an 8-bit counter
    if (set) {
      st.frame_depth = static_cast<std::uint8_t>(num(s["value"]));
      return "";
    }
    return st.frame_depth == num(s["value"]) ? "" : fmt::format("frame depth {}", st.frame_depth);
  }
  if (var == nullptr) return "unknown step op " + op;
  if (set) {
    *var = num(s["value"]);
    return "";
  }
  return *var == num(s["value"]) ? "" : fmt::format("{} = {}", name, hex(*var));
}

// A numeric field of the fence, maintenance and execution-control
// bookkeeping (asl/arch/programming-model/execution-context.asl), by the
// vectors' field name; nullptr for the two enumeration fields.
std::uint64_t* bookkeeping_epoch(pto::arch::SystemBookkeeping& b, const std::string& f) {
  return f == "data_cache_epoch"             ? &b.data_cache_epoch
         : f == "instruction_cache_epoch"    ? &b.instruction_cache_epoch
         : f == "bundle_cache_epoch"         ? &b.bundle_cache_epoch
         : f == "tlb_epoch"                  ? &b.tlb_epoch
         : f == "architecture_request_epoch" ? &b.architecture_request_epoch
         : f == "last_maintenance_operand"   ? &b.last_maintenance_operand
         : f == "control_request_operand"    ? &b.control_request_operand
                                             : nullptr;
}
std::uint8_t* bookkeeping_fence_mask(pto::arch::SystemBookkeeping& b, const std::string& f) {
  return f == "last_fence_predecessor" ? &b.last_fence_predecessor
         : f == "last_fence_successor" ? &b.last_fence_successor
                                       : nullptr;
}
std::string bookkeeping_enum(const pto::arch::SystemBookkeeping& b, const std::string& f) {
  if (f == "last_maintenance_operation") return std::string(pto::arch::maintenance_operation_name(b.last_maintenance_operation));
  if (f == "last_control_request") return std::string(pto::arch::execution_control_request_name(b.last_control_request));
  throw std::runtime_error("unknown bookkeeping field " + f);
}
template <typename E, typename Name>
E enum_by_name(const std::string& name, unsigned count, Name name_of) {
  for (unsigned i = 0; i < count; ++i) {
    if (name_of(static_cast<E>(i)) == name) return static_cast<E>(i);
  }
  throw std::runtime_error("unknown enumeration value " + name);
}

// set_bookkeeping / expect_bookkeeping: returns a failure description or "".
std::string bookkeeping_field_step(pto::arch::SystemBookkeeping& b, bool set, const json& s) {
  const std::string f = s["field"];
  if (std::uint64_t* wide = bookkeeping_epoch(b, f)) {
    if (set) *wide = num(s["value"]);
    return set || *wide == num(s["value"]) ? "" : fmt::format("{} = {:#x}", f, *wide);
  }
  if (std::uint8_t* mask = bookkeeping_fence_mask(b, f)) {
    if (set) *mask = static_cast<std::uint8_t>(num(s["value"]));
    return set || *mask == num(s["value"]) ? "" : fmt::format("{} = {:#x}", f, *mask);
  }
  const std::string name = s["value"];
  if (!set) return bookkeeping_enum(b, f) == name ? "" : fmt::format("{} = {}", f, bookkeeping_enum(b, f));
  if (f == "last_maintenance_operation") {
    b.last_maintenance_operation = enum_by_name<pto::arch::MaintenanceOperation>(
        name, static_cast<unsigned>(pto::arch::MaintenanceOperation::TLB_IALL) + 1, pto::arch::maintenance_operation_name);
  } else {
    b.last_control_request = enum_by_name<pto::arch::ExecutionControlRequest>(
        name, static_cast<unsigned>(pto::arch::ExecutionControlRequest::WaitTimeout) + 1,
        pto::arch::execution_control_request_name);
  }
  return "";
}

// BaseSystemRegisterState words by field name (set_/expect_base_sysreg).
Word& base_sysreg(pto::arch::BaseSystemRegisters& r, const std::string& f) {
  if (f == "thread_ptr") return r.thread_ptr;
  if (f == "global_ptr") return r.global_ptr;
  if (f == "core_id") return r.core_id;
  if (f == "thread_id") return r.thread_id;
  if (f == "vendor") return r.vendor;
  if (f == "version") return r.version;
  if (f == "core_feature") return r.core_feature;
  if (f == "core_feature_enable") return r.core_feature_enable;
  if (f == "tile_capacity") return r.tile_capacity;
  if (f == "blocknum") return r.blocknum;
  if (f == "blockid") return r.blockid;
  throw std::runtime_error("unknown system register field " + f);
}

// set_/expect_trap_status: one field of a ring's _ACRTrap* status.
std::string trap_status_step(pto::arch::TrapStatus& t, bool set, const json& s) {
  const std::string f = s["field"];
  const Word want = num(s["value"]);
  if (set) {
    if (f == "asynchronous") t.asynchronous = want != 0;
    else if (f == "argument_valid") t.argument_valid = want != 0;
    else if (f == "cause") t.cause = static_cast<std::uint32_t>(want);
    else if (f == "number") t.number = static_cast<std::uint8_t>(want);
    else if (f == "argument0") t.argument0 = want;
    else return "unknown trap status field " + f;
    return "";
  }
  const Word got = f == "asynchronous"     ? Word{t.asynchronous}
                   : f == "argument_valid" ? Word{t.argument_valid}
                   : f == "cause"          ? Word{t.cause}
                   : f == "number"         ? Word{t.number}
                   : f == "argument0"      ? t.argument0
                                           : throw std::runtime_error("unknown trap status field " + f);
  return got == want ? "" : fmt::format("trap status {} = {:#x}", f, got);
}

// The value a snapshot step reads (spec_vector_runner.hpp).
std::optional<Word> observe(Machine& m, const json& s) {
  const std::string op = s.at("op");
  if (op == "expect_sysreg") {  // ReadSystemRegisterAddress: zero (and the fault) when denied
    Word v = 0;
    return pto::scalar::read_system_register(m, static_cast<pto::scalar::SystemRegisterAddress>(num(s["addr"])), v)
               ? v
               : 0;
  }
  if (op == "expect_cycle") return m.state.sysregs.cycle;
  if (op == "expect_gpr") return m.state.read_gpr(static_cast<unsigned>(num(s["reg"])));
  if (op == "expect_tpc") return m.state.pc;
  if (op == "expect_queue") return queue(m, s).value[num(s["index"])];
  if (op == "expect_bundle_argument") return m.state.block.bundle_argument;
  if (op == "expect_bpc") return m.state.bpc;
  if (op == "expect_barg" && s["field"] == "bpcn") return m.state.block.barg.bpcn;
  if (op == "expect_mem") return m.memory.read(num(s["addr"]), static_cast<unsigned>(num(s["size"])));
  if (op == "expect_bookkeeping") {
    if (const std::uint64_t* wide = bookkeeping_epoch(m.state.bookkeeping, s["field"])) return *wide;
  }
  if (op == "expect_fp_flags") return fp_flags(m);
  return std::nullopt;
}

// The model's decode of a step's instruction word as the catalog form the
// step names (ScalarDecoded*(instruction, form, ...) of the ASL), or nullopt
// when the word does not decode to that form.
std::optional<pto::scalar::DecodedInsn> decoded_as_form(const json& s) {
  const auto idx = pto::isa::form_by_id(s.at("form_id").get<std::string>());
  if (!idx) return std::nullopt;
  const pto::scalar::DecodedInsn d = pto::runner::predecode(num(s["bits"]), pto::isa::form(*idx).length_bits);
  if ((d.traits & pto::scalar::kTraitDecoded) == 0 || d.form != *idx) return std::nullopt;
  return d;
}

// ScalarAGU{Action,AddressKind,UpdateMode,Size}OfForm(form): the generated
// AGU table entry the model's AGU handler of the form's mnemonic is built from.
std::string agu_fact_text(const pto::scalar::AguForm& a, const std::string& fact) {
  if (fact == "action") return std::string("ScalarAGU_") + pto::test::agu_action_name(a.action);
  if (fact == "address_kind") return std::string("ScalarAGU_") + pto::test::agu_address_kind_name(a.address_kind);
  if (fact == "update_mode") return std::string("AddressUpdate_") + pto::test::address_update_name(a.update);
  if (fact == "size_bytes") return std::to_string(a.size_bytes);
  throw std::runtime_error("unknown AGU fact " + fact);
}

// InstructionContractImmediate{Width,IsSigned,IsUnsigned}_<MN>(): the width
// and signedness of the form's one immediate field in the form table the
// decoder extracts (and sign-extends) it from.
std::string immediate_fact_step(const pto::isa::FormDesc& f, const json& s) {
  const pto::isa::FieldDesc* imm = nullptr;
  for (const pto::isa::FieldDesc& field : pto::isa::fields_of(f)) {
    const std::string_view name = field.name;
    if (!name.starts_with("imm") && !name.starts_with("uimm") && !name.starts_with("simm")) continue;
    if (imm != nullptr) return "the form has several immediate fields";
    imm = &field;
  }
  if (imm == nullptr) return "the form has no immediate field";
  const std::string fact = s["fact"];
  if (fact == "immediate_width") return imm->width == num(s["value"]) ? "" : fmt::format("width {}", imm->width);
  using pto::isa::Signedness;
  if (fact != "immediate_signed" && fact != "immediate_unsigned") return "unknown contract fact " + fact;
  const bool got = imm->signedness == (fact == "immediate_signed" ? Signedness::Signed : Signedness::Unsigned);
  return got == s["value"].get<bool>() ? "" : fmt::format("{} = {}", fact, got);
}

// The form a Scalar/CommandFormOperandsLegal step names: its form_id, or the
// command forms the word matches by mask bits.
std::vector<const pto::isa::FormDesc*> forms_matching_step(const json& s) {
  if (!s.contains("form_id")) return forms_matching(s);
  const auto idx = pto::isa::form_by_id(s["form_id"].get<std::string>());
  if (!idx) return {};
  return {&pto::isa::form(*idx)};
}

// "expect_start_fact": InstructionContractKind_<MN>() /
// InstructionContractTransfer_<MN>(BrType) / CommandBundleTransferOfForm(form)
// against the tables the BSTART handler reads (src/block/start_stop.cpp): the
// generated per-form start facts and, for a BrType, the BrType table.
std::string start_fact_step(const json& s) {
  const std::vector<const pto::isa::FormDesc*> forms = forms_matching_step(s);
  if (forms.size() != 1) return fmt::format("{} forms for the step", forms.size());
  const pto::isa::FormIndex form = pto::isa::index_of(*forms.front());
  const auto& table = pto::block::generated::kStartFormFacts;
  const auto* facts = std::find_if(std::begin(table), std::end(table), [&](const auto& f) { return f.form == form; });
  if (facts == std::end(table)) return "not a BSTART form";
  if (s["fact"] == "kind") return facts->kind == bundle_kind(s["value"]) ? "" : "another bundle kind";
  if (s["fact"] != "transfer") return "unknown start fact";
  pto::arch::BundleTransfer transfer = facts->transfer;
  if (s.contains("branch_type")) {
    const auto bt = static_cast<std::size_t>(num(s["branch_type"]));
    if (bt >= pto::block::generated::kBranchTypes.size() || !pto::block::generated::kBranchTypes[bt].legal)
      return "BrType not legal";
    transfer = pto::block::generated::kBranchTypes[bt].transfer;
  }
  return transfer == bundle_transfer(s["value"]) ? "" : "another transfer";
}

// "expect_form_fact": a per-form fact of the generated decoders
// (Scalar{Family,Operation,Handler}OfForm, Command{Operation,Handler}OfForm,
// {Scalar,Command}Operand{Present,Width}, ScalarOperandSignedness; checked by
// PTO-AVS-ARCH-DECODER-COVERAGE-001) against the model's form table entry the
// decoder and dispatcher use.
std::string form_fact_value(const pto::isa::FormDesc& f, bool scalar, const json& s) {
  const std::string fact = s["fact"];
  const std::string surface = scalar ? "Scalar" : "Command";
  if (fact == "family") return "ScalarSemantic_" + std::string(pto::isa::family_name(f.family));
  if (fact == "operation") return surface + "Operation_" + (scalar ? pto::test::asl_id(f.mnemonic) : f.form_id);
  if (fact == "handler") return surface + "Handler_" + f.semantic_handler;
  // The ASL spells a field name as an identifier (L/UL is L_UL).
  const auto fields = pto::isa::fields_of(f);
  const auto it = std::find_if(fields.begin(), fields.end(),
                                [&](const pto::isa::FieldDesc& d) { return pto::test::asl_id(d.name) == s.at("field"); });
  if (fact == "operand_present") return it != fields.end() ? "true" : "false";
  if (it == fields.end()) return "no field " + s["field"].get<std::string>();
  const pto::isa::FieldDesc& field = *it;
  if (fact == "operand_width") return std::to_string(field.width);
  if (fact != "operand_signedness") return "unknown form fact " + fact;
  using pto::isa::Signedness;
  return field.signedness == Signedness::Signed     ? "ScalarField_Signed"
         : field.signedness == Signedness::Unsigned ? "ScalarField_Unsigned"
                                                    : "ScalarField_EncodingDefined";
}

std::string form_fact_step(const json& s) {
  const auto idx = pto::isa::form_by_id(s.at("form_id").get<std::string>());
  if (!idx) return "unknown form id";
  const pto::isa::FormDesc& f = pto::isa::form(*idx);
  const bool command_form = f.family == pto::isa::Family::CMD || f.family == pto::isa::Family::BBD;
  if (command_form != (s.at("surface") == "command")) return "the form is on the other surface";
  const std::string got = form_fact_value(f, !command_form, s);
  const std::string want = s["value"].is_string() ? s["value"].get<std::string>() : s["value"].dump();
  return got == want ? "" : s["fact"].get<std::string>() + " " + got;
}

// "expect_tile_start": CommandFormSelectsTileOperation(k),
// CommandTileFamilyOfForm(k), CommandTile{Code,DataType}OfForm(w, k) and
// DecodeTileOperation(F, CommandTileCodeOfForm(w, k)) against the model's
// tile-start decode (src/isa/tile_start.hpp), which BSTART uses to pick the
// tile operation (PTO-AVS-ARCH-DECODER-COVERAGE-001).
std::string tile_start_value(const pto::isa::FormDesc& f, const json& s) {
  using pto::isa::TileStartFamily;
  const std::string fact = s["fact"];
  const auto family = static_cast<TileStartFamily>((f.match >> 15) & 0x1F);  // the form's fixed selector
  if (fact == "selects") return pto::isa::is_tile_start(f) ? "true" : "false";
  if (fact == "family") {
    return family == TileStartFamily::TEPL ? "TEPL" : family == TileStartFamily::TLSU ? "TLSU" : family == TileStartFamily::CUBE ? "CUBE" : "none";
  }
  const Word bits = num(s.at("bits"));
  if ((bits & f.mask) != f.match) return "the word is not of the form";
  if (fact == "data_type") return std::to_string(pto::isa::tile_start_data_type(bits));
  // TEPL reads the 7-bit Mode:Function selector, TLSU and CUBE the Function.
  const unsigned selector = pto::isa::tile_start_selector(bits);
  if (fact == "code") return std::to_string(family == TileStartFamily::TEPL ? selector : selector & 0x1F);
  if (fact != "operation") return "unknown tile start fact " + fact;
  const auto op = pto::isa::tile_op_of_start(bits);
  return op ? std::to_string(static_cast<unsigned>(*op)) : "no operation";
}

std::string tile_start_step(const json& s) {
  const auto idx = pto::isa::form_by_id(s.at("form_id").get<std::string>());
  if (!idx) return "unknown form id";
  const std::string got = tile_start_value(pto::isa::form(*idx), s);
  const std::string want = s["value"].is_string() ? s["value"].get<std::string>() : s["value"].dump();
  return got == want ? "" : s["fact"].get<std::string>() + " " + got;
}

// "expect_tepl_alias": TileTEPLAliasAcceptsOperation(TileTEPLAlias_X, i),
// InstructionContractAcceptsTileOperation_BSTART_X(i) and
// TileCanonicalTEPLAliasOfIndex(i) against the assembler's BSTART.X alias
// (as InstructionContractAliasEngine_<MN> in isa_spec_decode_test.cpp):
// "BSTART.X <op>, FP32" assembles exactly when X admits the operation.
// BSTART.TEPL itself has no alias spelling: it carries every operation whose
// start carrier (tile operation table) it is.
bool tepl_alias_accepts(const std::string& alias, const pto::isa::TileOpDesc& d) {
  if (alias == "TEPL") return std::string_view(d.command_mnemonic) == "BSTART.TEPL";
  return pto::as::assemble("BSTART." + alias + " " + d.name + ", FP32\n", "alias.s").ok();
}

std::string tepl_alias_step(const json& s) {
  const auto index = static_cast<std::size_t>(num(s.at("index")));
  if (index >= pto::isa::tile_ops().size()) return "index out of range";
  const pto::isa::TileOpDesc& d = pto::isa::tile_ops()[index];
  if (!s.value("canonical", false)) {
    const bool got = tepl_alias_accepts(s.at("alias").get<std::string>(), d);
    return got == s["value"].get<bool>() ? "" : fmt::format("alias accepts = {}", got);
  }
  const std::string alias = s["value"];
  if (alias != "VEC" && alias != "SFU") return "not an engine alias " + alias;
  const bool own = tepl_alias_accepts(alias, d);
  const bool other = tepl_alias_accepts(alias == "VEC" ? "SFU" : "VEC", d);
  return own && !other ? "" : fmt::format("{} accepts = {}, the other alias accepts = {}", alias, own, other);
}

// Steps that check an ASL model helper against the model's own tables and
// functions: the AGU facts of a form, the AGU offset and a decoded register
// read in the current state, an InstructionContract fact of the executed
// instruction, and a pure model function of constants.
std::string model_helper_step(Machine& m, const std::string& op, const json& s) {
  if (op == "expect_model_value") {  // <function>(constants) == value
    const std::optional<Word> v = model_value(s.at("of"));
    if (!v) return "unknown model function " + s["of"].dump();
    return *v == num(s["value"]) ? "" : fmt::format("{} = {}", s["of"].dump(), hex(*v));
  }
  if (op == "expect_contract") {  // InstructionContract<Fact>_<MN>() of the executed word
    const auto d = pto::isa::decode(num(s["bits"]), static_cast<unsigned>(num(s["length_bits"])));
    if (!d.ok()) return "the executed word does not decode";
    const std::string id = pto::test::asl_id(d.desc().mnemonic);
    if (id != s["contract"].get<std::string>()) return "the executed word is " + id;
    if (s["fact"] != "operation") return immediate_fact_step(d.desc(), s);
    const std::string got = "ScalarOperation_" + id;
    return got == s["value"].get<std::string>() ? "" : "operation " + got;
  }
  if (op == "expect_no_form") return no_form_step(s);
  if (op == "expect_start_fact") return start_fact_step(s);
  if (op == "expect_form_fact") return form_fact_step(s);
  if (op == "expect_tile_start") return tile_start_step(s);
  if (op == "expect_tepl_alias") return tepl_alias_step(s);
  if (op == "expect_sysreg_access") {  // SystemRegisterAccessOf(a), the catalog's access class
    static constexpr const char* kAccess[] = {"Unknown", "ReadOnly", "WriteOnly", "ReadWrite"};  // SystemRegisterAccess order
    const auto access = pto::scalar::system_register_access_of(static_cast<pto::scalar::SystemRegisterAddress>(num(s["addr"])));
    const std::string got = kAccess[static_cast<unsigned>(access)];
    return got == s["value"].get<std::string>() ? "" : "access " + got;
  }
  if (op == "expect_tile_index_fact" ||
             op == "expect_sysreg_access" || op == "expect_tile_start" ||
             op == "expect_tepl_alias") {  // DecodeTileOperation, Tile*OfIndex(i)
    const std::optional<std::string> failure = pto::test::tile_contract::index_fact_check(s);
    return failure ? *failure : "unknown tile index fact " + s["check"].get<std::string>();
  }
  if (op == "expect_tile_datr_legal" || op == "expect_tile_datr_pad_union") {  // TileOperationDATR*(index, ...)
    const bool legal = op == "expect_tile_datr_legal";
    const auto got = legal ? pto::test::datr::legal_text(s) : pto::test::datr::pad_union_text(s);
    if (!got) return "unknown tile operation";
    const std::string want = s["value"].is_string() ? s["value"].get<std::string>() : s["value"].dump();
    return *got == want ? "" : fmt::format("{} = {}", legal ? "B.DATR legality" : "B.DATR pad union", *got);
  }
  if (op == "expect_form_operands_legal") {  // Scalar/CommandFormOperandsLegal(bits, form): its field constraints
    // A command word's form is the one DecodeCommandForm picks by mask bits.
    const std::vector<const pto::isa::FormDesc*> candidates = forms_matching_step(s);
    if (candidates.size() != 1) return fmt::format("{} forms for the step", candidates.size());
    const pto::isa::FormDesc& f = *candidates.front();
    const Word bits = num(s["bits"]) & pto::isa::length_mask(f.length_bits);
    if ((bits & f.mask) != f.match) return "the word does not match the form";
    // The form's entries of the constraint table the decoder checks.
    const bool legal = pto::isa::first_failed_constraint(f, bits) < 0;
    return legal == s["value"].get<bool>() ? "" : fmt::format("operands legal = {}", legal);
  }
  if (op == "expect_agu_fact") {  // ScalarAGU*OfForm(form)
    const auto idx = pto::isa::form_by_id(s.at("form_id").get<std::string>());
    const pto::scalar::AguForm* a = idx ? pto::test::agu_form_entry(pto::isa::form(*idx).mnem) : nullptr;
    if (a == nullptr) return "no AGU table entry for the form";
    const std::string fact = s["fact"];
    const std::string got = agu_fact_text(*a, fact);
    return got == (s["value"].is_string() ? s["value"].get<std::string>() : std::to_string(num(s["value"])))
               ? ""
               : fact + " " + got;
  }
  const std::optional<pto::scalar::DecodedInsn> d = decoded_as_form(s);
  if (!d) return "the word does not decode to form " + s["form_id"].get<std::string>();
  if (op == "expect_decoded_register") {  // ReadDecodedScalarRegister(bits, form, field)
    const int fi = pto::isa::field_index(d->desc(), s["field"].get<std::string>());
    if (fi < 0) return "form has no such field";
    const Word v = m.state.read_reg5(d->reg(static_cast<unsigned>(fi)));
    return v == num(s["value"]) ? "" : fmt::format("register operand {}", hex(v));
  }
  const pto::scalar::AguForm* a = pto::test::agu_form_entry(d->mnemonic);
  if (a == nullptr) return "no AGU table entry for the form";
  if (op == "expect_agu_offset") {  // ScalarDecodedAGUOffset(bits, form, address_kind)
    if (agu_fact_text(*a, "address_kind") != s["address_kind"].get<std::string>()) return "address kind differs";
    const std::optional<Word> v = pto::scalar::decoded_agu_offset(m.state, *d);
    if (!v) return "no AGU offset for the form";
    return *v == num(s["value"]) ? "" : fmt::format("AGU offset {}", hex(*v));
  }
  return "unknown step op " + op;
}

std::string run_step(Machine& m, const json& s);

// "expect_contract_result": InstructionContractResult_<MN>(args) == value.  The
// nested steps load the arguments into a fresh reference machine, execute
// MN's encoded word (which must decode to MN's form) and read its result, so
// the executed handler is checked against the ASL's value without touching
// the point's own machine state.
std::string contract_result_step(const json& s) {
  Machine fresh(pto::arch::MachineConfig::reference());
  for (const json& step : s.at("steps")) {
    if (step["op"] == "exec") {
      const auto d = pto::isa::decode(num(step["bits"]), static_cast<unsigned>(num(step["length_bits"])));
      if (!d.ok() || d.desc().form_id != s["form_id"].get<std::string>()) return "the word does not decode to the form";
    }
    const std::string failure = run_step(fresh, step);
    if (!failure.empty()) return step["op"].get<std::string>() + ": " + failure;
  }
  return "";
}

// "expect_start_target": InstructionContractTarget_<MN>(pc, d) == value --
// each form's word (simm12 = d) executed at pc on a fresh reference machine
// starts a block whose BPCN is the value.
std::string start_target_step(const json& s) {
  for (const json& word : s.at("words")) {
    Machine fresh(pto::arch::MachineConfig::reference());
    const json steps = json::array(
        {{{"op", "set_tpc"}, {"value", s["pc"]}},
         {{"op", "exec"}, {"entry", "command"}, {"bits", word["bits"]}, {"length_bits", word["length_bits"]},
          {"expect_status", "CommandExecution_Executed"}},
         {{"op", "expect_barg"}, {"field", "bpcn"}, {"value", s["value"]}}});
    for (const json& step : steps) {
      const std::string failure = run_step(fresh, step);
      if (!failure.empty()) return word["form_id"].get<std::string>() + " " + step["op"].get<std::string>() + ": " + failure;
    }
  }
  return "";
}

// Executes one step; returns a failure description or "".
std::string run_step(Machine& m, const json& s) {
  using pto::arch::FaultCode;
  auto& st = m.state;
  const std::string op = s.at("op");
  if (op == "reset") {
    m.reset();
  } else if (op == "set_acr") {
    m.set_current_acr(static_cast<unsigned>(num(s["ring"])));
  } else if (op == "expect_acr") {  // CurrentACR()
    if (st.current_acr != num(s["ring"])) return fmt::format("current ACR {}", st.current_acr);
  } else if (op == "clear_fault") {
    m.clear_fault();
  } else if (op == "set_tpc") {
    st.pc = num(s["value"]);
  } else if (op == "set_bpc") {
    st.bpc = num(s["value"]);
  } else if (op == "set_gpr") {
    st.write_gpr(static_cast<unsigned>(num(s["reg"])), num(s["value"]));
  } else if (op == "set_queue") {
    queue(m, s).value[num(s["index"])] = num(s["value"]);
  } else if (op == "set_queue_valid") {
    queue(m, s).valid[num(s["index"])] = s["valid"].get<bool>();
  } else if (op == "push_t" || op == "push_u") {
    (op == "push_t" ? st.t_queue : st.u_queue).push(num(s["value"]));
  } else if (op == "set_cycle") {
    st.sysregs.cycle = num(s["value"]);
  } else if (op == "set_commit_argument") {
    st.commit_argument = num(s["value"]);
  } else if (op == "set_return_address") {
    st.return_address = num(s["value"]);
  } else if (op == "set_trap_context") {
    return set_trap_context_field(st.trap_contexts[num(s["ring"])], s["field"], s["value"]);
  } else if (op == "mem_events_stop") {
    m.stop_memory_event_capture();
  } else if (op == "mem_events_reset") {
    st.memory_event_count = 0;
  } else if (op == "mem_events_start") {
    m.start_memory_event_capture(static_cast<unsigned>(num(s["agent"])));
  } else if (op == "mem_events_select_agent") {
    st.current_pe = static_cast<std::uint8_t>(num(s["agent"]));
  } else if (op == "reset_bundle_control") {
    pto::block::reset_bundle_control(st);
  } else if (op == "begin_bundle") {
    const Word start = s["start_pc"].is_null() ? st.pc : num(s["start_pc"]);
    pto::block::begin_bundle_at(m, start, bundle_kind(s["kind"]), bundle_transfer(s["transfer"]), num(s["target"]),
                                num(s["sequential"]), num(s["return_target"]), s["taken"].get<bool>());
  } else if (op == "stop_bundle") {
    pto::block::stop_bundle_at(m, num(s["pc"]));
  } else if (op == "fence_data") {  // FenceData(pred, succ): FENCE.D's semantics alone
    pto::scalar::fence_data(m, static_cast<std::uint8_t>(num(s["predecessor"])),
                            static_cast<std::uint8_t>(num(s["successor"])));
  } else if (op == "fence_instruction") {
    pto::scalar::fence_instruction(m);
  } else if (op == "set_control_attributes") {  // SetBundleControlAttributeState
    st.block.control_attributes = {true, s["trap_enabled"].get<bool>(), s["atomic"].get<bool>(),
                                   s["acquire"].get<bool>(), s["release"].get<bool>(), s["far"].get<bool>(),
                                   s["dimension_reduction"].get<bool>()};
  } else if (op == "expect_barg") {
    const std::string f = "barg." + s["field"].get<std::string>();
    const std::string got = barg_field(st.block.barg, f);
    if (got != expected_text(f, s["value"])) return fmt::format("{} = {}", f, got);
  } else if (op == "expect_bundle_state") {
    const std::string f = s["field"];
    const bool got = f == "active"              ? st.block.bundle_active
                     : f == "body_active"       ? st.block.bundle_body_active
                     : f == "commit_target_set" ? st.block.commit_target_set
                     : f == "condition_set"     ? st.block.condition_set
                     : f == "system_block_terminal_pending" ? st.block.system_block_terminal_pending
                                                : throw std::runtime_error("unknown bundle state field " + f);
    if (got != s["value"].get<bool>()) return fmt::format("bundle {} = {}", f, got);
  } else if (op == "set_reservation") {
    const std::string f = s["field"];
    if (f == "valid") st.reservation_valid = s["value"].get<bool>();
    else if (f == "address") st.reservation_address = num(s["value"]);
    else st.reservation_size = static_cast<std::uint8_t>(num(s["value"]));
  } else if (op == "enter_bundle_body") {
    pto::block::enter_bundle_body(m);
  } else if (op == "recover_trap_context") {
    const bool ok = m.recover_trap_context(static_cast<unsigned>(num(s["ring"])));
    if (ok != s["expect_result"].get<bool>()) return fmt::format("recover_trap_context returned {}", ok);
  } else if (op == "store") {
    if (!m.store(num(s["addr"]), static_cast<unsigned>(num(s["size"])), num(s["value"]))) return "setup store faulted";
  } else if (op == "load") {
    Word v = 0;
    if (!m.load(num(s["addr"]), static_cast<unsigned>(num(s["size"])), v)) return "load faulted";
    if (v != num(s["expect_value"])) return fmt::format("load got {}", hex(v));
  } else if (op == "write_mem") {
    m.memory.write(num(s["addr"]), static_cast<unsigned>(num(s["size"])), num(s["value"]));
  } else if (op == "expect_mem") {
    const Word v = m.memory.read(num(s["addr"]), static_cast<unsigned>(num(s["size"])));
    if (v != num(s["value"])) return fmt::format("memory holds {}", hex(v));
  } else if (op == "exec") {
    return exec_step(m, s);
  } else if (op == "expect_decode") {
    const auto d = pto::isa::decode(num(s["bits"]), static_cast<unsigned>(num(s["length_bits"])));
    if (d.status == pto::isa::DecodeStatus::NoForm || d.desc().form_id != s["form_id"].get<std::string>()) {
      return "decodes to a different form";
    }
  } else if (op == "expect_decode_field") {
    const auto idx = pto::isa::form_by_id(s["form_id"].get<std::string>());
    if (!idx) return "unknown form id";
    // The vectors carry DecodeScalarOperandRaw: the unsigned raw field.
    const auto& f = pto::isa::form(*idx);
    const int fi = pto::isa::field_index(f, s["field"].get<std::string>());
    if (fi < 0) return "form has no such field";
    const auto v = pto::isa::field_raw(pto::isa::fields_of(f)[static_cast<std::size_t>(fi)], num(s["bits"]));
    if (v != num(s["value"])) return fmt::format("raw field value {}", v);
  } else if (op == "expect_fault") {
    if (pto::arch::fault_name(st.last_fault) != s["fault"].get<std::string>()) {
      return fmt::format("fault {}", pto::arch::fault_name(st.last_fault));
    }
  } else if (op == "expect_fault_address") {
    if (st.fault_address != num(s["value"])) return fmt::format("fault address {}", hex(st.fault_address));
  } else if (op == "expect_tpc") {
    if (st.pc != num(s["value"])) return fmt::format("tpc {}", hex(st.pc));
  } else if (op == "expect_cycle") {
    if (st.sysregs.cycle != num(s["value"])) return fmt::format("cycle {}", hex(st.sysregs.cycle));
  } else if (op == "expect_gpr") {
    const Word v = st.read_gpr(static_cast<unsigned>(num(s["reg"])));
    if (v != num(s["value"])) return fmt::format("gpr {} = {}", num(s["reg"]), hex(v));
  } else if (op == "expect_queue") {
    const Word v = queue(m, s).value[num(s["index"])];
    if (v != num(s["value"])) return fmt::format("queue value {}", hex(v));
  } else if (op == "expect_queue_valid") {
    if (queue(m, s).valid[num(s["index"])] != s["valid"].get<bool>()) return "queue validity differs";
  } else if (op == "expect_return_address") {
    if (st.return_address != num(s["value"])) return fmt::format("return address {}", hex(st.return_address));
  } else if (op == "expect_commit_argument") {
    if (st.commit_argument != num(s["value"])) return fmt::format("commit argument {}", hex(st.commit_argument));
  } else if (op == "expect_mem_event_count") {
    if (st.memory_event_count != num(s["count"])) return fmt::format("event count {}", st.memory_event_count);
  } else if (op == "expect_mem_event") {
    const unsigned i = static_cast<unsigned>(num(s["index"]));
    const std::string f = s["field"];
    const std::string got = event_field(st.memory_events[i], f);
    if (got != event_expected(f, s["value"])) return fmt::format("event {} {} = {}", i, f, got);
  } else if (op == "expect_trap_context") {
    const std::string f = s["field"];
    const std::string got = trap_context_field(st.trap_contexts[num(s["ring"])], f);
    if (got != expected_text(f, s["value"])) return fmt::format("trap context {} = {}", f, got);
  } else if (op == "expect_reservation") {
    const std::string f = s["field"];
    const Word got = f == "valid" ? Word{st.reservation_valid} : f == "address" ? st.reservation_address : st.reservation_size;
    if (got != num(s["value"])) return fmt::format("reservation {} = {}", f, got);
  } else if (op == "complete_bundle") {
    const bool committed = !pto::scalar::is_fault(pto::block::complete_bundle(m, num(s["pc"]))) &&
                           st.last_fault == FaultCode::Fault_None;
    if (s.contains("expect_result") && committed != s["expect_result"].get<bool>()) {
      return fmt::format("CompleteBundleAt returned {} (fault {})", committed, pto::arch::fault_name(st.last_fault));
    }
  } else if (op == "expect_bpc") {
    if (st.bpc != num(s["value"])) return fmt::format("bpc {}", hex(st.bpc));
  } else if (op == "set_pe_gpr") {
    const auto reg = static_cast<unsigned>(num(s["reg"]));
    if (reg != 0) st.gpr[num(s["pe"])][reg] = num(s["value"]);  // WritePEGPR ignores R0
  } else if (op == "expect_pe_gpr") {
    const Word v = st.gpr[num(s["pe"])][num(s["reg"])];
    if (v != num(s["value"])) return fmt::format("pe {} gpr {} = {}", num(s["pe"]), num(s["reg"]), hex(v));
  } else if (op == "set_predicate") {
    const auto i = static_cast<unsigned>(num(s["index"]));
    if (i != 0) st.predicates[i] = static_cast<std::uint32_t>(num(s["value"]));  // P0 is hard-wired
  } else if (op == "expect_predicate") {
    const std::uint32_t v = st.read_predicate(static_cast<unsigned>(num(s["index"])));
    if (v != num(s["value"])) return fmt::format("predicate {} = {:#x}", num(s["index"]), v);
  } else if (op == "set_banked") {
    st.banked_reg(static_cast<unsigned>(num(s["ring"])), static_cast<unsigned>(num(s["index"]))) = num(s["value"]);
  } else if (op == "set_fault") {
    m.set_fault(fault_code(s["fault"]), num(s["address"]));
  } else if (op == "write_reg5") {
    st.write_reg5(static_cast<unsigned>(num(s["sel"])), num(s["value"]));
  } else if (op == "expect_reg5") {  // ReadScalarRegisterOperand: the Reg5 source read (GPR, T#k, U#k)
    if (num(s["sel"]) > 31) return "Reg5 selector out of range";
    const Word v = st.read_reg5(static_cast<unsigned>(num(s["sel"])));
    if (v != num(s["value"])) return fmt::format("reg5 {} = {}", num(s["sel"]), hex(v));
  } else if (op == "record_fp_flags") {  // RecordNumericStatusFlags: sticky OR into CORE_STATE[36:32]
    st.sysregs.core_state |= (num(s["value"]) & 0x1F) << pto::arch::kCoreStateFlagsShift;
  } else if (op == "expect_fp_flags") {
    if (fp_flags(m) != num(s["value"])) return fmt::format("fp flags {:#x}", fp_flags(m));
  } else if (op == "expect_sysreg") {
    const Word v = *observe(m, s);
    if (v != num(s["value"])) return fmt::format("system register {} = {}", s["addr"].get<std::string>(), hex(v));
  } else if (op == "expect_core_state") {
    if (st.sysregs.core_state != num(s["value"])) return fmt::format("core state {}", hex(st.sysregs.core_state));
  } else if (op == "set_base_sysreg") {
    base_sysreg(st.sysregs, s["field"]) = num(s["value"]);
  } else if (op == "expect_base_sysreg") {
    const Word v = base_sysreg(st.sysregs, s["field"]);
    if (v != num(s["value"])) return fmt::format("{} = {}", s["field"].get<std::string>(), hex(v));
  } else if (op == "set_trap_status" || op == "expect_trap_status") {
    return trap_status_step(st.trap_status[num(s["ring"])], op == "set_trap_status", s);
  } else if (op == "expect_contract_result") {
    return contract_result_step(s);
  } else if (op == "expect_amo_contract") {  // behavioural probes, amo_contract_probes.hpp
    return pto::test::amo::amo_contract_step(s);
  } else if (op == "expect_contract_probe") {
    return pto::test::contract_probes::contract_probe_step(s);
  } else if (op == "expect_start_target") {
    return start_target_step(s);
  } else if (op == "set_bookkeeping" || op == "expect_bookkeeping") {
    return bookkeeping_field_step(st.bookkeeping, op == "set_bookkeeping", s);
  } else if (op == "expect_model_value" || op == "expect_contract" || op == "expect_decoded_register" ||
             op == "expect_agu_fact" || op == "expect_agu_offset" || op == "expect_no_form" ||
             op == "expect_form_operands_legal" || op == "expect_start_fact" || op == "expect_form_fact" ||
             op == "expect_tile_datr_legal" || op == "expect_tile_datr_pad_union" || op == "expect_tile_index_fact" ||
             op == "expect_sysreg_access" || op == "expect_tile_start" ||
             op == "expect_tepl_alias") {
    return model_helper_step(m, op, s);
  } else if (op.starts_with("set_") || op.starts_with("expect_")) {
    return bookkeeping_step(st, op, s);
  } else {
    return "unknown step op " + op;
  }
  return "";
}

// "negate": the test asserts the observed value differs from "value".
std::string run_negatable_step(Machine& m, const json& s) {
  std::string failure = run_step(m, s);
  if (s.value("negate", false) && s["op"].get<std::string>().starts_with("expect")) {
    failure = failure.empty() ? "holds the value the test asserts it differs from" : "";
  }
  return failure;
}

class SpecScalarVector : public ::testing::TestWithParam<std::size_t> {};
TEST_P(SpecScalarVector, Matches) { check_vector(vectors()[GetParam()], run_negatable_step, observe); }
INSTANTIATE_TEST_SUITE_P(AVS, SpecScalarVector, ::testing::ValuesIn(indices(vectors())), vector_name<vectors>);
TEST(SpecScalarVectors, FilePresent) { EXPECT_GE(vectors().size(), 1678u); }

// ---- Negative twins of scalar fault families ----
// A twin is a fault vector up to its faulting exec, with the one value the
// rule it is named for reads made legal; the same instruction must then not
// raise the point's fault (docs/conformance.md "Negative twins").  The
// families whose legalisation is mechanical:
// - SYS *-PLACE-001 (ScalarOperationApplicable): the instruction runs in the
//   body of an active block of the kind its applicability needs (a SYS
//   block; a STD block for SETC.TGT, IsCommitTargetWritable; ACRC at ACR2).
// - SYS *-RING-001 (SystemRegisterAccessPermitted, MaintenanceAccessPermitted):
//   the ring the vector sets before the exec is ACR0.
// - SCALAR *-PRECISE-001 (AMO ProbeDataAccess) and SYS TLB.IV/TLB.IAV
//   *-OPERAND-001 (a canonical 48-bit address): the register holding the
//   faulting address holds an aligned address inside the model memory.
// - the points whose block is a SYS block where the rule needs a STD block
//   (IsCommitTargetWritable, LSR_ID 1, RetiringBundleBPCNAvailable): the
//   block begun before the exec is a STD block.
// The twin's exec must execute, except for an instruction whose own
// semantics always trap (kOwnTrap): it must raise that trap instead.

enum class TwinFamily { Placement, Ring, Address, BlockKind };

struct ScalarTwin {
  const json* set;     // vectors() or block_vectors()
  std::size_t vector;  // index into *set
  TwinFamily family;
};

std::optional<TwinFamily> twin_family(const std::string& id) {
  if (id.starts_with("PTO-AVS-SYS-") && id.ends_with("-PLACE-001")) return TwinFamily::Placement;
  if (id.starts_with("PTO-AVS-SYS-") && id.ends_with("-RING-001")) return TwinFamily::Ring;
  if (id.starts_with("PTO-AVS-SCALAR-") && id.ends_with("-PRECISE-001")) return TwinFamily::Address;
  if (id == "PTO-AVS-SYS-TLB-IV-OPERAND-001" || id == "PTO-AVS-SYS-TLB-IAV-OPERAND-001") return TwinFamily::Address;
  if (id == "PTO-AVS-SYS-SETC-TGT-SYSTEM-001" || id == "PTO-AVS-SYS-LSRGET-APPLICABLE-001" ||
      id == "PTO-AVS-BLOCK-BSTART-ICALL-SYS-SOURCE-001")
    return TwinFamily::BlockKind;
  return std::nullopt;
}

const std::vector<ScalarTwin>& scalar_twins() {
  static const std::vector<ScalarTwin> twins = [] {
    std::vector<ScalarTwin> out;
    for (const json* set : {&vectors(), &block_vectors()}) {
      for (std::size_t i = 0; i < set->size(); ++i) {
        const json& v = (*set)[i];
        if (v["kind"] != "fault") continue;
        if (const auto family = twin_family(v["avs_id"].get<std::string>())) out.push_back({set, i, *family});
      }
    }
    return out;
  }();
  return twins;
}

// Instructions whose semantics trap whatever the placement (SoftwareBreakpoint,
// ArchitectureCloseRequest, and ArchitectureEnterRequest with no saved context
// to recover), by the mnemonic part of the AVS id.
constexpr std::pair<const char*, const char*> kOwnTrap[] = {
    {"-SYS-EBREAK-", "Fault_SoftwareBreakpoint"},
    {"-SYS-C-EBREAK-", "Fault_SoftwareBreakpoint"},
    {"-SYS-ACRC-", "Fault_ServiceRequest"},
    {"-SYS-ACRE-", "Fault_ExecutionStateCheck"},
};

constexpr Word kIcallTarget = 0x2000;     // the retiring STD block's BPCN in BSTART.ICALL's twin
constexpr Word kLegalDataAddress = 0x200;  // 8-byte aligned, inside PTO_MODEL_MEMORY_BYTES, off the reservation granule

std::size_t faulting_exec(const json& steps) {
  for (std::size_t i = 0; i < steps.size(); ++i) {
    if (steps[i]["op"] == "exec" && steps[i].value("expect_status", "").ends_with("_Rejected")) return i;
  }
  throw std::runtime_error("fault vector without a rejected exec");
}

// The steps before the faulting exec with the family's value made legal;
// throws when the vector does not have the shape the family assumes.
json legalised_prefix(const json& v, TwinFamily family, std::size_t exec) {
  const json& steps = v["steps"];
  json prefix(json::array());
  for (std::size_t i = 0; i < exec; ++i) prefix.push_back(steps[i]);
  const std::string id = v["avs_id"];
  switch (family) {
    case TwinFamily::Placement: {
      const bool commit_target = id.find("-SETC-TGT-") != std::string::npos;
      prefix.push_back({{"op", "begin_bundle"}, {"start_pc", nullptr},
                        {"kind", commit_target ? "BundleKind_Standard" : "BundleKind_System"},
                        {"transfer", "BundleTransfer_Fallthrough"}, {"target", "0x0"}, {"sequential", "0x180"},
                        {"return_target", "0x0"}, {"taken", false}});
      prefix.push_back({{"op", "enter_bundle_body"}});
      // ACRC requests a service from a ring above ACR0 (ServiceRequestPermitted).
      if (id.find("-SYS-ACRC-") != std::string::npos) prefix.push_back({{"op", "set_acr"}, {"ring", 2}});
      return prefix;
    }
    case TwinFamily::Ring:
      for (std::size_t i = prefix.size(); i-- > 0;) {
        if (prefix[i]["op"] == "set_acr") {
          prefix[i]["ring"] = 0;
          return prefix;
        }
      }
      throw std::runtime_error("no set_acr before the exec");
    case TwinFamily::BlockKind:
      for (json& s : prefix) {
        if (s["op"] == "begin_bundle" && s["kind"] == "BundleKind_System") {
          s["kind"] = "BundleKind_Standard";
          // BeginBundleAt keeps a SYS block's BPCN zero and a STD block's at
          // its target: BSTART.ICALL's twin gives the target an even nonzero
          // value, so that the snapshot of the retiring BPCN shows.
          if (id == "PTO-AVS-BLOCK-BSTART-ICALL-SYS-SOURCE-001") s["target"] = fmt::format("{:#x}", kIcallTarget);
          return prefix;
        }
      }
      throw std::runtime_error("no SYS block begun before the exec");
    case TwinFamily::Address:
      for (std::size_t i = exec; i < steps.size(); ++i) {
        if (steps[i]["op"] != "expect_fault_address") continue;
        const Word fault_address = num(steps[i]["value"]);
        // An SC point reserves its fault address (StoreConditional probes only
        // on a reservation hit): the reservation moves with the address.
        for (json& s : prefix) {
          if (s["op"] == "set_reservation" && s["field"] == "address" && num(s["value"]) == fault_address)
            s["value"] = fmt::format("{:#x}", kLegalDataAddress);
        }
        for (json& s : prefix) {
          if (s["op"] == "set_gpr" && num(s["value"]) == fault_address) {
            s["value"] = fmt::format("{:#x}", kLegalDataAddress);
            return prefix;
          }
        }
      }
      throw std::runtime_error("no register holds the fault address");
  }
  return prefix;
}

// TPC after the steps: the last set_tpc, or the fall-through a later
// begin_bundle installs (BeginBundleAt writes TPC = sequential).
Word pc_before(const json& steps) {
  Word pc = 0;
  for (const json& s : steps) {
    if (s["op"] == "set_tpc") pc = num(s["value"]);
    if (s["op"] == "begin_bundle") pc = num(s["sequential"]);
  }
  return pc;
}

// ---- The AMO effect of an Address twin ----
// The AMO contracts of asl/scalar/amo/<MN>.asl (InstructionContract{Compare,
// Atomic,Load,Store}SizeBytes, AtomicOperation, PublishesOldValue and the
// handler) and the handlers of asl/scalar/model/amo/semantics.asl
// (CompareAndSwap, AtomicReadModifyWrite/AtomicValueSized, LoadReserved,
// StoreConditional), evaluated on the twin's registers and a seeded
// doubleword at kLegalDataAddress.
enum class AmoKind { CompareAndSwap, ReadModifyWrite, LoadReserved, StoreConditional };
using pto::test::amo::AmoOp;  // with atomic_value, width_mask, signed_value: amo_contract_probes.hpp
using pto::test::amo::atomic_value;
using pto::test::amo::signed_value;
using pto::test::amo::width_mask;
struct AmoContract {
  AmoKind kind;
  unsigned size;
  AmoOp op;
  bool publishes;  // PublishesOldValue (false for the SD.* / SW.* forms)
};

unsigned amo_size(char letter) {
  switch (letter) {
    case 'B': return 1;
    case 'H': return 2;
    case 'W': return 4;
    case 'D': return 8;
  }
  throw std::runtime_error("no AMO size letter");
}

// CAS{B,H,W,D}, HL.CAS*, SWAP*, LR.*, SC.*, {LD,LW,SD,SW}.<op>; nullopt for
// the other Address twins (TLB.IV, TLB.IAV).
std::optional<AmoContract> amo_contract(std::string_view mn) {
  if (mn.starts_with("HL.")) mn.remove_prefix(3);
  if (mn.starts_with("CAS")) return AmoContract{AmoKind::CompareAndSwap, amo_size(mn.back()), AmoOp::Swap, true};
  if (mn.starts_with("SWAP")) return AmoContract{AmoKind::ReadModifyWrite, amo_size(mn.back()), AmoOp::Swap, true};
  if (mn.starts_with("LR.")) return AmoContract{AmoKind::LoadReserved, amo_size(mn.back()), AmoOp::Swap, true};
  if (mn.starts_with("SC.")) return AmoContract{AmoKind::StoreConditional, amo_size(mn.back()), AmoOp::Swap, true};
  if (mn.size() > 3 && mn[2] == '.' && (mn[0] == 'L' || mn[0] == 'S') && (mn[1] == 'D' || mn[1] == 'W'))
    if (const auto op = pto::test::amo::amo_op_named(mn.substr(3)))
      return AmoContract{AmoKind::ReadModifyWrite, amo_size(mn[1]), *op, mn[0] == 'L'};
  return std::nullopt;
}

// NormalizeAtomicReturn: a word is sign-extended, bytes and halfwords
// zero-extended (each contract's {Zero,Sign}ExtendsOldValue agrees).
Word atomic_return(Word v, unsigned size) {
  return size == 4 ? static_cast<Word>(signed_value(v, 4)) : v & width_mask(size);
}
// Negative in every width, so sign extension and signed order show.
constexpr Word kAmoSeed = 0xF0E1D2C3B4A59687;

// A Reg5 source: code 0 reads zero, 1..23 the GPR the steps set.
Word reg5_source(const json& steps, std::int64_t code) {
  if (code == 0) return 0;
  for (std::size_t i = steps.size(); i-- > 0;) {
    if (steps[i]["op"] == "set_gpr" && steps[i]["reg"] == code) return num(steps[i]["value"]);
  }
  throw std::runtime_error(fmt::format("AMO source x{} not set by the steps", code));
}

struct TwinEffect {
  json before;  // steps before the exec (seeds)
  json after;   // expectations after it
};

TwinEffect amo_effect(const json& prefix, const json& step, const pto::isa::FormDesc& f, const AmoContract& contract) {
  const Word bits = num(step["bits"]);
  const auto field = [&](const char* name) { return pto::isa::field_value(f, name, bits); };
  const unsigned size = contract.size;
  const Word mask = width_mask(size);
  Word seed = kAmoSeed;
  Word memory = seed;
  Word result = 0;
  const auto store_low = [&](Word value) { memory = (memory & ~mask) | (value & mask); };
  json after(json::array());
  switch (contract.kind) {
    case AmoKind::CompareAndSwap: {
      // The location holds the expected value, so the compare succeeds.
      const Word expected = reg5_source(prefix, field("SrcR"));
      seed = (kAmoSeed & ~mask) | (expected & mask);
      memory = seed;
      result = atomic_return(expected, size);
      store_low(reg5_source(prefix, field("SrcD")));
      break;
    }
    case AmoKind::ReadModifyWrite:
      result = atomic_return(seed, size);
      store_low(atomic_value(contract.op, seed, reg5_source(prefix, field("SrcR")), size));
      break;
    case AmoKind::LoadReserved:
      result = atomic_return(seed, size);
      after.push_back({{"op", "expect_reservation"}, {"field", "valid"}, {"value", true}});
      after.push_back({{"op", "expect_reservation"}, {"field", "address"}, {"value", fmt::format("{:#x}", kLegalDataAddress)}});
      break;
    case AmoKind::StoreConditional:
      // The reservation covers the line (moved with the address): success
      // status 0, the store done, the monitor cleared.
      result = 0;
      store_low(reg5_source(prefix, field("SrcL")));
      after.push_back({{"op", "expect_reservation"}, {"field", "valid"}, {"value", false}});
      break;
  }
  const json before = json::array({{{"op", "write_mem"}, {"addr", fmt::format("{:#x}", kLegalDataAddress)}, {"size", 8},
                                    {"value", fmt::format("{:#x}", seed)}}});
  after.push_back({{"op", "expect_mem"}, {"addr", fmt::format("{:#x}", kLegalDataAddress)}, {"size", 8},
                   {"value", fmt::format("{:#x}", memory)}});
  after.push_back({{"op", "expect_mem_event_count"}, {"count", 1}});
  if (contract.publishes) {
    const std::int64_t rd = field("RegDst");
    if (rd >= 24) throw std::runtime_error("AMO destination is a queue");
    if (rd != 0) after.push_back({{"op", "expect_gpr"}, {"reg", rd}, {"value", fmt::format("{:#x}", result)}});
  }
  return TwinEffect{before, after};
}

// TLB.IV / TLB.IAV (ExecuteMaintenance; the contracts' "success records
// Maintenance_<MN> and its exact operand token" and "advances exactly one
// ... TLB epoch").
TwinEffect maintenance_effect(const json& prefix, std::string_view mnemonic) {
  std::optional<Word> epoch;
  for (const json& s : prefix) {
    if (s["op"] == "set_bookkeeping" && s["field"] == "tlb_epoch") epoch = num(s["value"]);
  }
  if (!epoch) throw std::runtime_error("the TLB epoch is not set before the exec");
  std::string operation = "Maintenance_" + std::string(mnemonic);
  for (char& c : operation) c = c == '.' ? '_' : c;
  return TwinEffect{json::array(),
                    json::array({{{"op", "expect_bookkeeping"}, {"field", "tlb_epoch"}, {"value", *epoch + 1}},
                                 {{"op", "expect_bookkeeping"}, {"field", "last_maintenance_operation"}, {"value", operation}},
                                 {{"op", "expect_bookkeeping"}, {"field", "last_maintenance_operand"},
                                  {"value", fmt::format("{:#x}", kLegalDataAddress)}}})};
}

// ---- The effect of a placement, ring or block-kind twin ----
// What the legal run of a SYS instruction writes (asl/scalar/model/sys/
// semantics.asl, dispatched by asl/scalar/model/dispatch/sys.asl), with the
// values before the exec read as snapshots (a step with "snapshot" records,
// a later {"snapshot", "offset"} value compares):
// - ExecuteMaintenance: the operation's epoch + 1 (DC.* data cache, IC.*
//   instruction cache, BC.* bundle cache, TLB.* TLB), _LastMaintenanceOperation
//   and _LastMaintenanceOperand = the SrcL value (Zeros for the *.IALL forms).
// - ExecuteControlRequest (BSE, BWE, BWI, BWT): _LastControlRequest, the
//   SrcL value in _ControlRequestOperand, _ArchitectureRequestEpoch + 1.
// - FenceData (FENCE.D): the reservation cleared, _LastFencePredecessor /
//   _LastFenceSuccessor = PRED_IMM / SUCC_IMM, the instruction cache epoch
//   + 1 when either has bit 3; FenceInstruction (FENCE.I): the reservation
//   cleared, the instruction cache epoch + 1.
// - ReadSystemRegister into RegDst (SSRGET, HL.SSRGET; C.SSRGET pushes it to
//   T), WriteSystemRegister of SrcL (SSRSET, HL.SSRSET), SwapSystemRegister
//   (SSRSWAP: RegDst = the old value, the register = SrcL).
// - SetCommitTarget (SETC.TGT): _BARG.bpcn = SrcL.
// - ExecuteLocalStateRegisterGet (LSRGET): RegDst = ReadCurrentBARGWord
//   (asl/block/model/state/barg.asl): LSR_ID 0 the BPC, 1 _BARG.bpcn.
// - ArchitectureAssert (ASSERT) with a nonzero source: no effect but the
//   retirement: no trap context entered, every register and epoch the
//   vector set keeps its value.
// - ExecuteDecodedBundleStart of BSTART.ICALL (asl/block/model/dispatch/
//   start.asl, BeginBundleAt): the retiring STD block commits, and the new
//   block's BARG is kind Standard (the form's), transfer IndirectCall, taken,
//   BPCN = the retiring BPCN snapshot; BPC = the instruction's address P,
//   ra (x10) = P + length - 2 + 2 * uimm5; the block is active.
// nullopt for the rest: EBREAK/C.EBREAK/ACRC/ACRE keep their own trap
// (kOwnTrap).
std::string epoch_field(std::string_view mn) {
  if (mn.starts_with("DC.")) return "data_cache_epoch";
  if (mn.starts_with("IC.")) return "instruction_cache_epoch";
  if (mn.starts_with("BC.")) return "bundle_cache_epoch";
  return "tlb_epoch";
}

// What ReadSystemRegisterAddress returns after WriteSystemRegisterAddress of
// `v` (asl/scalar/model/sys/registers.asl): TRAPNO_ACRn (low index 0xF02)
// is UnpackTrapStatus, read back by PackTrapStatus (asl/arch/memory-model/
// fault-precision.asl: bits 63, 62, 47:24 and 5:0); the other registers the
// twins write keep the word.
Word read_back(Word address, Word v) {
  constexpr Word kTrapStatusLowIndex = 0xF02;
  constexpr Word kTrapStatusBits = 0xC000'FFFF'FF00'003F;
  return (address & 0xFFF) == kTrapStatusLowIndex ? v & kTrapStatusBits : v;
}

json snapshot_offset(const char* name, Word offset) { return {{"snapshot", name}, {"offset", offset}}; }

std::optional<TwinEffect> system_effect(const json& prefix, const json& step) {
  const auto d = pto::isa::decode(num(step["bits"]), static_cast<unsigned>(num(step["length_bits"])));
  const pto::isa::FormDesc& f = d.desc();
  const std::string_view mn = f.mnemonic;
  const Word bits = num(step["bits"]);
  const auto field = [&](const char* name) { return pto::isa::field_value(f, name, bits); };
  const auto has = [&](std::string_view name) {
    const auto fields = pto::isa::fields_of(f);
    return std::any_of(fields.begin(), fields.end(), [&](const pto::isa::FieldDesc& fl) { return fl.name == name; });
  };
  const auto source_l = [&] { return has("SrcL") ? reg5_source(prefix, field("SrcL")) : Word{0}; };
  const auto hex_word = [](Word v) { return fmt::format("{:#x}", v); };
  TwinEffect e{json::array(), json::array()};
  if (mn.starts_with("DC.") || mn.starts_with("IC.") || mn.starts_with("BC.") || mn.starts_with("TLB.")) {
    std::string operation = "Maintenance_" + std::string(mn);
    std::replace(operation.begin(), operation.end(), '.', '_');
    const std::string epoch = epoch_field(mn);
    e.before.push_back({{"op", "expect_bookkeeping"}, {"field", epoch}, {"snapshot", "epoch"}});
    e.after.push_back({{"op", "expect_bookkeeping"}, {"field", epoch}, {"value", snapshot_offset("epoch", 1)}});
    e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "last_maintenance_operation"}, {"value", operation}});
    e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "last_maintenance_operand"}, {"value", hex_word(source_l())}});
    return e;
  }
  constexpr std::pair<std::string_view, const char*> kControl[] = {{"BSE", "ExecutionControl_SendEvent"},
                                                                   {"BWE", "ExecutionControl_WaitEvent"},
                                                                   {"BWI", "ExecutionControl_WaitInterrupt"},
                                                                   {"BWT", "ExecutionControl_WaitTimeout"}};
  for (const auto& [name, request] : kControl) {
    if (mn != name) continue;
    e.before.push_back({{"op", "expect_bookkeeping"}, {"field", "architecture_request_epoch"}, {"snapshot", "epoch"}});
    e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "architecture_request_epoch"},
                       {"value", snapshot_offset("epoch", 1)}});
    e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "last_control_request"}, {"value", request}});
    e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "control_request_operand"}, {"value", hex_word(source_l())}});
    return e;
  }
  if (mn == "FENCE.D" || mn == "FENCE.I") {
    constexpr Word kFenceInstructionBit = 0x8;
    const bool fence_d = mn == "FENCE.D";
    const Word predecessor = fence_d ? static_cast<Word>(field("PRED_IMM")) : 0;
    const Word successor = fence_d ? static_cast<Word>(field("SUCC_IMM")) : 0;
    const Word epoch_step = !fence_d || ((predecessor | successor) & kFenceInstructionBit) != 0 ? 1 : 0;
    e.before.push_back({{"op", "set_reservation"}, {"field", "valid"}, {"value", true}});
    e.before.push_back({{"op", "expect_bookkeeping"}, {"field", "instruction_cache_epoch"}, {"snapshot", "epoch"}});
    e.after.push_back({{"op", "expect_reservation"}, {"field", "valid"}, {"value", false}});
    e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "instruction_cache_epoch"},
                       {"value", snapshot_offset("epoch", epoch_step)}});
    if (fence_d) {
      e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "last_fence_predecessor"}, {"value", predecessor}});
      e.after.push_back({{"op", "expect_bookkeeping"}, {"field", "last_fence_successor"}, {"value", successor}});
    }
    return e;
  }
  if (mn.ends_with("SSRGET") || mn.ends_with("SSRSET") || mn == "SSRSWAP") {
    const Word address = static_cast<Word>(field(has("SSRID") ? "SSRID" : "SSR_ID")) & 0xFFFFFF;
    const bool reads = !mn.ends_with("SSRSET");
    const bool writes = !mn.ends_with("SSRGET");
    const std::string addr = hex_word(address);
    if (reads) e.before.push_back({{"op", "expect_sysreg"}, {"addr", addr}, {"snapshot", "old"}});
    if (writes) e.after.push_back({{"op", "expect_sysreg"}, {"addr", addr}, {"value", hex_word(read_back(address, source_l()))}});
    if (reads && has("RegDst")) {
      e.after.push_back({{"op", "expect_gpr"}, {"reg", field("RegDst")}, {"value", snapshot_offset("old", 0)}});
    } else if (reads) {  // C.SSRGET: T#1
      e.after.push_back({{"op", "expect_queue"}, {"queue", "t"}, {"index", 0}, {"value", snapshot_offset("old", 0)}});
    }
    return e;
  }
  if (mn == "SETC.TGT") {
    e.after.push_back({{"op", "expect_barg"}, {"field", "bpcn"}, {"value", hex_word(source_l())}});
    return e;
  }
  if (mn == "ASSERT") {
    for (const json& s : prefix) {
      if (s["op"] == "set_gpr") e.after.push_back({{"op", "expect_gpr"}, {"reg", s["reg"]}, {"value", s["value"]}});
      if (s["op"] == "set_bookkeeping")
        e.after.push_back({{"op", "expect_bookkeeping"}, {"field", s["field"]}, {"value", s["value"]}});
    }
    e.after.push_back({{"op", "expect_trap_context"}, {"ring", 0}, {"field", "valid"}, {"value", false}});
    return e;
  }
  if (mn == "BSTART.ICALL") {
    constexpr unsigned kReturnAddressRegister = 10;  // ra
    const Word pc = pc_before(prefix);
    const Word length = static_cast<Word>(num(step["length_bits"])) / 8;
    e.before.push_back({{"op", "expect_barg"}, {"field", "bpcn"}, {"snapshot", "retiring"}});
    e.after.push_back({{"op", "expect_bundle_state"}, {"field", "active"}, {"value", true}});
    e.after.push_back({{"op", "expect_barg"}, {"field", "block_type"}, {"value", "BundleKind_Standard"}});
    e.after.push_back({{"op", "expect_barg"}, {"field", "transfer_type"}, {"value", "BundleTransfer_IndirectCall"}});
    e.after.push_back({{"op", "expect_barg"}, {"field", "taken"}, {"value", true}});
    e.after.push_back({{"op", "expect_barg"}, {"field", "bpcn"}, {"value", snapshot_offset("retiring", 0)}});
    e.after.push_back({{"op", "expect_bpc"}, {"value", hex_word(pc)}});
    e.after.push_back({{"op", "expect_gpr"}, {"reg", kReturnAddressRegister},
                       {"value", hex_word(pc + length - 2 + (static_cast<Word>(field("uimm5")) << 1))}});
    return e;
  }
  if (mn == "LSRGET" && field("LSR_ID") <= 1) {
    e.before.push_back(field("LSR_ID") == 0 ? json{{"op", "expect_bpc"}, {"snapshot", "word"}}
                                            : json{{"op", "expect_barg"}, {"field", "bpcn"}, {"snapshot", "word"}});
    e.after.push_back({{"op", "expect_gpr"}, {"reg", field("RegDst")}, {"value", snapshot_offset("word", 0)}});
    return e;
  }
  return std::nullopt;
}

// The effect an Address twin asserts besides no fault and TPC.
TwinEffect address_effect(const json& prefix, const json& step) {
  const auto d = pto::isa::decode(num(step["bits"]), static_cast<unsigned>(num(step["length_bits"])));
  const pto::isa::FormDesc& f = d.desc();
  if (const auto contract = amo_contract(f.mnemonic)) return amo_effect(prefix, step, f, *contract);
  if (std::string_view(f.mnemonic).starts_with("TLB.")) return maintenance_effect(prefix, f.mnemonic);
  throw std::runtime_error(fmt::format("no effect for the address twin of {}", f.mnemonic));
}

json twin_of(const ScalarTwin& t) {
  const json& v = (*t.set)[t.vector];
  const std::size_t exec = faulting_exec(v["steps"]);
  json twin = v;
  twin["steps"] = legalised_prefix(v, t.family, exec);
  json step = v["steps"][exec];
  step.erase("expect_fault");
  std::string status = step["expect_status"];
  status.replace(status.rfind("_Rejected"), std::string("_Rejected").size(), "_Executed");
  step["expect_status"] = status;
  bool own_trap = false;
  for (const auto& [part, fault] : kOwnTrap) {
    if (v["avs_id"].get<std::string>().find(part) == std::string::npos) continue;
    step["expect_status"] = v["steps"][exec]["expect_status"];
    step["expect_fault"] = fault;
    own_trap = true;
  }
  const Word pc = pc_before(twin["steps"]);
  const std::optional<TwinEffect> effect = t.family == TwinFamily::Address
                                               ? std::optional(address_effect(twin["steps"], step))
                                               : system_effect(twin["steps"], step);
  if (effect) {
    for (const json& s : effect->before) twin["steps"].push_back(s);
  }
  twin["steps"].push_back(step);
  if (!own_trap) {
    // Every scalar contract: "Successful execution advances TPC by" the
    // instruction's length; no fault is recorded.
    twin["steps"].push_back({{"op", "expect_fault"}, {"fault", "Fault_None"}});
    twin["steps"].push_back({{"op", "expect_tpc"}, {"value", fmt::format("{:#x}", pc + step["length_bits"].get<Word>() / 8)}});
  }
  if (effect) {
    for (const json& s : effect->after) twin["steps"].push_back(s);
  }
  return twin;
}

class ScalarFaultTwin : public ::testing::TestWithParam<std::size_t> {};
TEST_P(ScalarFaultTwin, LegalInstructionDoesNotFault) {
  check_vector(twin_of(scalar_twins()[GetParam()]), run_negatable_step, observe);
}
INSTANTIATE_TEST_SUITE_P(AVS, ScalarFaultTwin, ::testing::Range<std::size_t>(0, scalar_twins().size()),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           const ScalarTwin& t = scalar_twins()[info.param];
                           std::string n = (*t.set)[t.vector]["avs_id"];
                           for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n + "_TWIN";
                         });
// The families cover every SYS placement and ring point and every AMO precision point.
TEST(ScalarFaultTwins, FamiliesPresent) { EXPECT_GE(scalar_twins().size(), 101u); }

// Twins written by tools/make_fault_twins.py (tests/data/spec_fault_twins.json):
// each record is a fault vector's steps up to its faulting exec with the
// value its rule reads made legal, the same word expected Executed, and the
// effect the point asserts for that instruction's successful run, moved to
// the twin's address and registers (the tool's docstring per family).
const json& fault_twins() {
  static const json v = load_vectors("spec_fault_twins.json");
  return v;
}
class SpecFaultTwin : public ::testing::TestWithParam<std::size_t> {};
TEST_P(SpecFaultTwin, LegalInstructionDoesNotFault) {
  check_vector(fault_twins()[GetParam()], run_negatable_step, observe);
}
INSTANTIATE_TEST_SUITE_P(AVS, SpecFaultTwin, ::testing::ValuesIn(indices(fault_twins())),
                         [](const ::testing::TestParamInfo<std::size_t>& info) {
                           std::string n = fault_twins()[info.param]["avs_id"];
                           for (char& c : n) c = std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
                           return n + "_TWIN";
                         });
TEST(SpecFaultTwins, FilePresent) { EXPECT_GE(fault_twins().size(), 269u); }

// Block-control and architectural-state points (tests/asl/block/{lifecycle,
// encoding,execution/BSTART.{STD,FP,SYS,CALL,ICALL}}, tests/asl/arch/{state,
// programming-model,memory-model,overview,profile,dispatch,features,
// system-registers}); tools/extract_block_vectors.py --verbose
// lists the untranslated ones and why.
class SpecBlockVector : public ::testing::TestWithParam<std::size_t> {};
TEST_P(SpecBlockVector, Matches) { check_vector(block_vectors()[GetParam()], run_negatable_step, observe); }
INSTANTIATE_TEST_SUITE_P(AVS, SpecBlockVector, ::testing::ValuesIn(indices(block_vectors())),
                         vector_name<block_vectors>);
TEST(SpecBlockVectors, FilePresent) { EXPECT_GE(block_vectors().size(), 53u); }

}  // namespace
