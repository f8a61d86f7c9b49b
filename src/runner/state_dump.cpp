#include "runner/state_dump.hpp"

#include <fmt/format.h>

#include "block/bundle_engine.hpp"
#include "isa/catalog.hpp"
#include "runner/sha256.hpp"

namespace pto::runner {
namespace {

using arch::Word;
using nlohmann::json;

constexpr const char* kBundleKindNames[] = {"Standard",   "Floating",   "System",       "TileElement",
                                            "TileMemory", "TileMatrix", "FrameTemplate"};
constexpr const char* kTransferNames[] = {"Fallthrough", "Direct",   "Conditional", "Call",
                                          "Return",      "Indirect", "IndirectCall"};
constexpr const char* kFrameKindNames[] = {"Entry", "Exit", "ReturnAddress", "ReturnStack"};

json queue_json(const arch::TemporaryQueue& q) {
  json a = json::array();
  for (unsigned i = 0; i < arch::kTemporaryQueueDepth; ++i) a.push_back({{"value", hex_word(q.value[i])}, {"valid", q.valid[i]}});
  return a;
}

json block_json(const arch::BlockState& b) {
  json j;
  j["active"] = b.bundle_active;
  j["body_active"] = b.bundle_body_active;
  j["barg"] = {{"block_type", kBundleKindNames[static_cast<unsigned>(b.barg.block_type)]},
               {"transfer_type", kTransferNames[static_cast<unsigned>(b.barg.transfer_type)]},
               {"taken", b.barg.taken},
               {"bpcn", hex_word(b.barg.bpcn)}};
  j["commit_target_set"] = b.commit_target_set;
  j["condition_set"] = b.condition_set;
  j["system_block_terminal_pending"] = b.system_block_terminal_pending;
  j["sequential_pc"] = hex_word(b.sequential_pc);
  j["frame_stack_return_target"] = hex_word(b.frame_stack_return_target);
  const auto& op = b.operation;
  j["operation"] = {{"valid", op.valid},         {"form_identity", op.form_identity},
                    {"class", static_cast<unsigned>(op.operation_class)},
                    {"selector", op.selector_valid ? json(op.selector) : json(nullptr)},
                    {"data_type", op.data_type_valid ? json(op.data_type) : json(nullptr)},
                    {"mode", op.mode_valid ? json(op.mode) : json(nullptr)},
                    {"branch_type", op.branch_type_valid ? json(op.branch_type) : json(nullptr)}};
  json dims = json::array();
  for (unsigned i = 0; i < arch::kBundleDimensionCount; ++i) {
    dims.push_back(b.dimension_present[i] ? json(hex_word(b.dimensions[i])) : json(nullptr));
  }
  j["dimensions"] = dims;
  const auto& a = b.control_attributes;
  j["control_attributes"] = {{"present", a.present}, {"trap", a.trap_enabled}, {"atomic", a.atomic},
                             {"acquire", a.acquire}, {"release", a.release},    {"far", a.far},
                             {"dimension_reduction", a.dimension_reduction}};
  j["hint"] = {{"present", b.hint.present}, {"trace", b.hint.trace}, {"trace_end", b.hint.trace_end}};
  const auto& mc = b.memory_copy_template;
  j["memory_copy"] = {{"active", mc.active},         {"instruction_pc", hex_word(mc.instruction_pc)},
                      {"destination", hex_word(mc.destination)}, {"source", hex_word(mc.source)},
                      {"length", hex_word(mc.length)},           {"progress", hex_word(mc.progress)}};
  const auto& ft = b.frame_template;
  j["frame_template"] = {{"active", ft.active},
                         {"kind", kFrameKindNames[static_cast<unsigned>(ft.kind)]},
                         {"instruction_pc", hex_word(ft.instruction_pc)},
                         {"begin", ft.begin_reg},
                         {"end", ft.end_reg},
                         {"progress", ft.progress},
                         {"register_count", ft.register_count}};
  return j;
}

json system_registers_json(const arch::State& s) {
  const auto& r = s.sysregs;
  return {{"THREAD_PTR", hex_word(r.thread_ptr)},   {"GLOBAL_PTR", hex_word(r.global_ptr)},
          {"CORE_STATE", hex_word(r.core_state)},   {"CORE_ID", hex_word(r.core_id)},
          {"THREAD_ID", hex_word(r.thread_id)},     {"VENDOR", hex_word(r.vendor)},
          {"VERSION", hex_word(r.version)},         {"CORE_FEATURE", hex_word(r.core_feature)},
          {"CORE_FEATURE_ENABLE", hex_word(r.core_feature_enable)},
          {"TILE_CAPACITY", hex_word(r.tile_capacity)}, {"BLOCKNUM", hex_word(r.blocknum)},
          {"BLOCKID", hex_word(r.blockid)},         {"CYCLE", hex_word(r.cycle)}};
}

json rings_json(const arch::Machine& m) {
  const arch::State& s = m.state;
  json rings = json::array();
  for (unsigned ring = 0; ring < arch::kAcrCount; ++ring) {
    json banked = json::object();
    for (unsigned low = arch::kBankedLowFirst; low < arch::kBankedLowFirst + arch::kBankedLowCount; ++low) {
      if (s.banked_reg(ring, low) != 0) banked[fmt::format("{:#05x}", low)] = hex_word(s.banked_reg(ring, low));
    }
    const arch::TrapContext& c = s.trap_contexts[ring];
    json ctx = {{"valid", c.valid}};
    if (c.valid) {
      ctx["source_acr"] = c.source_acr;
      ctx["tpc"] = hex_word(c.tpc);
      ctx["bpc"] = hex_word(c.bpc);
      ctx["core_state"] = hex_word(c.core_state);
      ctx["commit_argument"] = hex_word(c.commit_argument);
      ctx["return_address"] = hex_word(c.return_address);
      ctx["block"] = block_json(c.block);
      ctx["t_queue"] = queue_json(c.t_queue);
      ctx["u_queue"] = queue_json(c.u_queue);
    }
    rings.push_back({{"ring", ring},
                     {"banked_registers", banked},
                     {"trap_status", hex_word(m.pack_trap_status(ring))},
                     {"trap_argument0", hex_word(s.trap_status[ring].argument0)},
                     {"trap_context", ctx}});
  }
  return rings;
}

// Fence, maintenance and execution-control bookkeeping (epochs and the last
// operation/operand, asl/arch/programming-model/execution-context.asl).
json bookkeeping_json(const arch::SystemBookkeeping& b) {
  return {{"last_fence_predecessor", b.last_fence_predecessor},
          {"last_fence_successor", b.last_fence_successor},
          {"data_cache_epoch", b.data_cache_epoch},
          {"instruction_cache_epoch", b.instruction_cache_epoch},
          {"bundle_cache_epoch", b.bundle_cache_epoch},
          {"tlb_epoch", b.tlb_epoch},
          {"last_maintenance_operation", std::string(arch::maintenance_operation_name(b.last_maintenance_operation))},
          {"last_maintenance_operand", hex_word(b.last_maintenance_operand)},
          {"architecture_request_epoch", b.architecture_request_epoch},
          {"last_control_request", std::string(arch::execution_control_request_name(b.last_control_request))},
          {"control_request_operand", hex_word(b.control_request_operand)}};
}

// General Queue Management: initialized queues with their entries in FIFO
// order (head first), the epochs and the last queue command's operands.
json gqm_json(const arch::GqmState& g) {
  json queues = json::array();
  for (std::size_t slot = 0; slot < g.queues.size(); ++slot) {
    const arch::GqmQueue& q = g.queues[slot];
    if (!q.valid) continue;
    json entries = json::array();
    for (unsigned i = 0; i < q.count; ++i) {
      const arch::GqmEntry& e = q.entries[(q.head + i) % q.capacity];
      entries.push_back({{"value", hex_word(e.value)}, {"release_epoch", e.release_epoch}});
    }
    queues.push_back({{"slot", slot},
                      {"address", hex_word(q.address)},
                      {"capacity", q.capacity},
                      {"count", q.count},
                      {"head", q.head},
                      {"suspended", q.suspended},
                      {"corrupt", q.corrupt},
                      {"entries", entries}});
  }
  return {{"queues", queues},
          {"release_epoch", g.release_epoch},
          {"last_acquire_epoch", g.last_acquire_epoch},
          {"event_epoch", g.event_epoch},
          {"last_event_address", hex_word(g.last_event_address)},
          {"last_queue_left", hex_word(g.last_queue_left)},
          {"last_queue_right", hex_word(g.last_queue_right)},
          {"last_queue_flags", g.last_queue_flags}};
}

json memory_json(const arch::Memory& mem, std::uint64_t content_limit) {
  const bool with_content = mem.resident_bytes() <= content_limit;
  json pages = json::array();
  mem.for_each_page([&](Word base, std::span<const std::uint8_t> bytes) {
    json p = {{"address", hex_word(base)}, {"sha256", sha256_hex(bytes)}};
    if (with_content) {
      std::string hex;
      hex.reserve(bytes.size() * 2);
      for (std::uint8_t b : bytes) hex += fmt::format("{:02x}", b);
      p["bytes"] = hex;
    }
    pages.push_back(p);
  });
  return {{"profile", mem.config().profile == arch::MemoryProfile::Reference ? "reference" : "real"},
          {"address_limit", hex_word(mem.config().address_limit)},
          {"page_bytes", arch::Memory::kPageBytes},
          {"pages", pages}};
}

}  // namespace

std::string hex_word(Word v) { return fmt::format("{:#018x}", v); }

std::string numeric_profile_name(arch::NumericProfileKind p) {
  return p == arch::NumericProfileKind::Reference ? "reference" : "ieee";
}

json dump_state(const arch::Machine& m, std::uint64_t memory_content_limit) {
  const arch::State& s = m.state;
  json j;
  j["schema"] = "pto-state-dump/1";
  j["release"] = isa::kRelease;
  j["numeric_profile"] = numeric_profile_name(m.config().numeric_profile);
  j["pc"] = hex_word(s.pc);
  j["bpc"] = hex_word(s.bpc);
  j["current_pe"] = s.current_pe;
  j["current_acr"] = s.current_acr;
  j["return_address"] = hex_word(s.return_address);
  j["commit_argument"] = hex_word(s.commit_argument);
  json gprs = json::array();
  for (const auto& file : s.gpr) {
    json f = json::array();
    for (Word v : file) f.push_back(hex_word(v));
    gprs.push_back(f);
  }
  j["gpr"] = gprs;
  j["t_queue"] = queue_json(s.t_queue);
  j["u_queue"] = queue_json(s.u_queue);
  json preds = json::array();
  for (unsigned i = 0; i < arch::kPredicateRegisterCount; ++i) preds.push_back(fmt::format("{:#010x}", s.read_predicate(i)));
  j["predicates"] = preds;
  j["block"] = block_json(s.block);
  j["tiles"] = block::tiles_state_json(m);  // tile engine (src/block/bundle_engine.hpp)
  j["frame_depth"] = s.frame_depth;
  j["fault"] = {{"last_fault", std::string(arch::fault_name(s.last_fault))}, {"fault_address", hex_word(s.fault_address)}};
  j["system_registers"] = system_registers_json(s);
  j["rings"] = rings_json(m);
  j["reservation"] = {{"valid", s.reservation_valid},
                      {"address", hex_word(s.reservation_address)},
                      {"size", s.reservation_size}};
  json events = json::array();
  for (unsigned i = 0; i < s.memory_event_count; ++i) {
    const auto& e = s.memory_events[i];
    events.push_back({{"kind", static_cast<unsigned>(e.kind)},
                      {"agent", e.agent},
                      {"address", hex_word(e.address)},
                      {"size", e.size_bytes},
                      {"read_value", hex_word(e.read_value)},
                      {"write_value", hex_word(e.write_value)},
                      {"write_performed", e.write_performed},
                      {"order", static_cast<unsigned>(e.order)},
                      {"read_from", e.read_from},
                      {"coherence_rank", e.coherence_rank},
                      {"fence_predecessor", e.fence_predecessor},
                      {"fence_successor", e.fence_successor}});
  }
  j["memory_events"] = events;
  j["bookkeeping"] = bookkeeping_json(s.bookkeeping);
  j["gqm"] = gqm_json(s.gqm);
  j["memory"] = memory_json(m.memory, memory_content_limit);
  return j;
}

}  // namespace pto::runner
