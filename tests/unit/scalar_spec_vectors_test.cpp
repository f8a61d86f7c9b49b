// Runs every extracted scalar execution vector (tests/data/spec_scalar_exec.json,
// produced by tools/extract_exec_vectors.py from the spec's AVS test points
// under tests/asl/scalar/{alu,agu,bru,model}) through the machine's public
// per-instruction entry point (runner::execute_instruction) and the block
// layer's test helpers (BeginBundle, EnterBundleBody, ResetBundleControlState).
// One gtest per AVS id.  Expected values come only from the spec's
// assertions.  A vector is skipped only when it executes a form this model
// does not implement yet (the run reports NotImplemented).
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <set>
#include <string>

#include "block/control.hpp"
#include "scalar_harness.hpp"
#include "test_util.hpp"

namespace pto::test {
namespace {

using nlohmann::json;
using arch::Word;

const json& vectors() {
  static const json data = load_json(data_path("spec_scalar_exec.json"));
  return data;
}

const json* vector_by_id(const std::string& id) {
  static const std::map<std::string, const json*> index = [] {
    std::map<std::string, const json*> m;
    for (const json& v : vectors()) m[v["avs_id"].get<std::string>()] = &v;
    return m;
  }();
  const auto it = index.find(id);
  return it == index.end() ? nullptr : it->second;
}

// Words are "0x..." strings; booleans and small integers are JSON scalars.
Word word_of(const json& v) {
  if (v.is_string()) return parse_hex(v.get<std::string>());
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  return v.get<Word>();
}

std::string_view memory_event_kind_name(arch::MemoryEventKind k) {
  switch (k) {
    case arch::MemoryEventKind::InitialWrite: return "MemoryEvent_InitialWrite";
    case arch::MemoryEventKind::Load: return "MemoryEvent_Load";
    case arch::MemoryEventKind::Store: return "MemoryEvent_Store";
    case arch::MemoryEventKind::Atomic: return "MemoryEvent_Atomic";
    case arch::MemoryEventKind::Fence: return "MemoryEvent_Fence";
  }
  return "?";
}

std::string_view memory_order_name(arch::MemoryOrder o) {
  switch (o) {
    case arch::MemoryOrder::Relaxed: return "MemoryOrder_Relaxed";
    case arch::MemoryOrder::Acquire: return "MemoryOrder_Acquire";
    case arch::MemoryOrder::Release: return "MemoryOrder_Release";
    case arch::MemoryOrder::AcquireRelease: return "MemoryOrder_AcquireRelease";
  }
  return "?";
}

// An observed value: a word, or an enumeration spelled with its ASL name.
struct Observed {
  std::optional<Word> word;
  std::string name;
};

// BundleKind_* / BundleTransfer_* names (asl/block/model/state/types.asl).
const std::map<std::string, arch::BundleKind>& bundle_kinds() {
  static const std::map<std::string, arch::BundleKind> names = {
      {"BundleKind_Standard", arch::BundleKind::Standard},       {"BundleKind_Floating", arch::BundleKind::Floating},
      {"BundleKind_System", arch::BundleKind::System},           {"BundleKind_TileElement", arch::BundleKind::TileElement},
      {"BundleKind_TileMemory", arch::BundleKind::TileMemory},   {"BundleKind_TileMatrix", arch::BundleKind::TileMatrix},
      {"BundleKind_FrameTemplate", arch::BundleKind::FrameTemplate}};
  return names;
}

const std::map<std::string, arch::BundleTransfer>& bundle_transfers() {
  static const std::map<std::string, arch::BundleTransfer> names = {
      {"BundleTransfer_Fallthrough", arch::BundleTransfer::Fallthrough},
      {"BundleTransfer_Direct", arch::BundleTransfer::Direct},
      {"BundleTransfer_Conditional", arch::BundleTransfer::Conditional},
      {"BundleTransfer_Call", arch::BundleTransfer::Call},
      {"BundleTransfer_Return", arch::BundleTransfer::Return},
      {"BundleTransfer_Indirect", arch::BundleTransfer::Indirect},
      {"BundleTransfer_IndirectCall", arch::BundleTransfer::IndirectCall}};
  return names;
}

template <typename Enum>
std::string name_of(const std::map<std::string, Enum>& names, Enum value) {
  for (const auto& [n, v] : names) {
    if (v == value) return n;
  }
  return "?";
}

// _BARG.f
Observed observe_barg(const arch::BundleArgumentRegister& b, const std::string& field) {
  if (field == "bpcn") return {b.bpcn, {}};
  if (field == "taken") return {Word{b.taken}, {}};
  if (field == "block_type") return {std::nullopt, name_of(bundle_kinds(), b.block_type)};
  if (field == "transfer_type") return {std::nullopt, name_of(bundle_transfers(), b.transfer_type)};
  throw std::runtime_error("unsupported BARG field " + field);
}

Observed observe_bundle_state(const arch::BlockState& b, const std::string& field) {
  if (field == "active") return {Word{b.bundle_active}, {}};
  if (field == "body_active") return {Word{b.bundle_body_active}, {}};
  if (field == "commit_target_set") return {Word{b.commit_target_set}, {}};
  if (field == "condition_set") return {Word{b.condition_set}, {}};
  throw std::runtime_error("unsupported bundle state field " + field);
}

Observed observe_mem_event(const arch::MemoryEvent& e, const std::string& field) {
  if (field == "kind") return {std::nullopt, std::string(memory_event_kind_name(e.kind))};
  if (field == "order") return {std::nullopt, std::string(memory_order_name(e.order))};
  if (field == "agent") return {e.agent, {}};
  if (field == "address") return {e.address, {}};
  if (field == "size_bytes") return {e.size_bytes, {}};
  if (field == "write_performed") return {Word{e.write_performed}, {}};
  if (field == "read_value") return {e.read_value, {}};
  if (field == "write_value") return {e.write_value, {}};
  throw std::runtime_error("unsupported memory event field " + field);
}

Observed observe_trap_context(const arch::TrapContext& c, const std::string& field) {
  if (field == "valid") return {Word{c.valid}, {}};
  if (field == "tpc") return {c.tpc, {}};
  if (field == "bpc") return {c.bpc, {}};
  if (field == "commit_argument") return {c.commit_argument, {}};
  if (field == "t_queue[0]") return {c.t_queue.value[0], {}};
  if (field == "u_queue[0]") return {c.u_queue.value[0], {}};
  if (field == "t_queue_valid[0]") return {Word{c.t_queue.valid[0]}, {}};
  if (field.starts_with("barg.")) return observe_barg(c.block.barg, field.substr(5));
  if (field == "bundle_active") return {Word{c.block.bundle_active}, {}};
  if (field == "bundle_body_active") return {Word{c.block.bundle_body_active}, {}};
  if (field == "bundle_commit_target_set") return {Word{c.block.commit_target_set}, {}};
  if (field == "bundle_sequential_pc") return {c.block.sequential_pc, {}};
  if (field == "frame_stack_return_target") return {c.block.frame_stack_return_target, {}};
  throw std::runtime_error("unsupported trap context field " + field);
}

Observed observe_reservation(const arch::State& st, const std::string& field) {
  if (field == "valid") return {Word{st.reservation_valid}, {}};
  if (field == "address") return {st.reservation_address, {}};
  if (field == "size") return {st.reservation_size, {}};
  throw std::runtime_error("unsupported reservation field " + field);
}

arch::TemporaryQueue& queue(arch::State& st, const json& step) {
  return step["queue"] == "t" ? st.t_queue : st.u_queue;
}

class ScalarSpecVector : public ::testing::TestWithParam<std::string> {};

void check(const Observed& actual, const json& step, const json& expected) {
  const bool negate = step.value("negate", false);
  if (expected.is_string() && !expected.get<std::string>().starts_with("0x")) {
    ASSERT_FALSE(actual.word.has_value()) << step.dump();
    if (negate) {
      EXPECT_NE(actual.name, expected.get<std::string>()) << step.dump();
    } else {
      EXPECT_EQ(actual.name, expected.get<std::string>()) << step.dump();
    }
    return;
  }
  ASSERT_TRUE(actual.word.has_value()) << step.dump();
  if (negate) {
    EXPECT_NE(*actual.word, word_of(expected)) << step.dump();
  } else {
    EXPECT_EQ(*actual.word, word_of(expected)) << step.dump();
  }
}

TEST_P(ScalarSpecVector, Run) {
  const json& v = *vector_by_id(GetParam());
  SCOPED_TRACE(v["source"].get<std::string>());
  ScalarHarness h;
  arch::Machine& m = h.machine;
  arch::State& st = m.state;
  std::size_t index = 0;
  for (const json& step : v["steps"]) {
    SCOPED_TRACE("step " + std::to_string(index++) + ": " + step.dump());
    const std::string op = step["op"];
    if (op == "reset") {
      m.reset();
    } else if (op == "set_gpr") {
      st.write_gpr(step["reg"], word_of(step["value"]));
    } else if (op == "set_tpc") {
      st.pc = word_of(step["value"]);
    } else if (op == "set_bpc") {
      st.bpc = word_of(step["value"]);
    } else if (op == "push_t") {
      st.t_queue.push(word_of(step["value"]));
    } else if (op == "push_u") {
      st.u_queue.push(word_of(step["value"]));
    } else if (op == "set_queue") {
      queue(st, step).value[step["index"].get<unsigned>()] = word_of(step["value"]);
    } else if (op == "set_queue_valid") {
      queue(st, step).valid[step["index"].get<unsigned>()] = step["valid"].get<bool>();
    } else if (op == "store") {
      m.store(word_of(step["addr"]), step["size"], word_of(step["value"]));
    } else if (op == "write_mem") {
      m.memory.write(word_of(step["addr"]), 1, word_of(step["value"]));
    } else if (op == "clear_fault") {
      m.clear_fault();
    } else if (op == "set_acr") {
      m.set_current_acr(step["ring"]);
    } else if (op == "set_cycle") {
      st.sysregs.cycle = word_of(step["value"]);
    } else if (op == "set_commit_argument") {
      st.commit_argument = word_of(step["value"]);
    } else if (op == "set_return_address") {
      st.return_address = word_of(step["value"]);
    } else if (op == "set_reservation") {
      const std::string f = step["field"];
      if (f == "valid") st.reservation_valid = word_of(step["value"]) != 0;
      if (f == "address") st.reservation_address = word_of(step["value"]);
      if (f == "size") st.reservation_size = static_cast<std::uint8_t>(word_of(step["value"]));
    } else if (op == "set_trap_context") {
      ASSERT_EQ(step["field"], "valid");
      st.trap_contexts[step["ring"].get<unsigned>()].valid = step["value"].get<bool>();
    } else if (op == "reset_bundle_control") {
      block::reset_bundle_control(st);
    } else if (op == "begin_bundle") {
      const Word start = step["start_pc"].is_null() ? st.pc : word_of(step["start_pc"]);
      block::begin_bundle_at(m, start, bundle_kinds().at(step["kind"]), bundle_transfers().at(step["transfer"]),
                             word_of(step["target"]), word_of(step["sequential"]), word_of(step["return_target"]),
                             step["taken"].get<bool>());
    } else if (op == "enter_bundle_body") {
      block::enter_bundle_body(m);
    } else if (op == "stop_bundle") {
      block::stop_bundle_at(m, word_of(step["pc"]));
    } else if (op == "recover_trap_context") {
      const bool ok = m.recover_trap_context(step["ring"]);
      if (step.contains("expect_result")) {
        EXPECT_EQ(ok, step["expect_result"].get<bool>());
      }
    } else if (op == "mem_events_reset") {
      st.memory_event_count = 0;
    } else if (op == "mem_events_start") {
      m.start_memory_event_capture(step["agent"]);
    } else if (op == "mem_events_stop") {
      m.stop_memory_event_capture();
    } else if (op == "mem_events_select_agent") {
      st.current_pe = step["agent"].get<std::uint8_t>();
    } else if (op == "exec") {
      const ScalarResult r = h.execute(parse_hex(step["bits"]), step["length_bits"]);
      if (r == ScalarResult::NotImplemented) {
        GTEST_SKIP() << "not implemented in this model: " << isa::mnemonic_name(isa::decode(parse_hex(step["bits"]), step["length_bits"]).desc().mnem);
      }
      if (step.contains("expect_status")) {
        EXPECT_EQ(r == ScalarResult::Executed, step["expect_status"] == "ScalarExecution_Executed");
      }
    } else if (op == "load") {
      Word value = 0;
      m.load(word_of(step["addr"]), step["size"], value);
      if (step.contains("expect_value")) {
        EXPECT_EQ(value, word_of(step["expect_value"]));
      }
    } else if (op == "expect_gpr") {
      check({st.read_gpr(step["reg"]), {}}, step, step["value"]);
    } else if (op == "expect_tpc") {
      check({st.pc, {}}, step, step["value"]);
    } else if (op == "expect_fault") {
      check({std::nullopt, std::string(arch::fault_name(st.last_fault))}, step, step["fault"]);
    } else if (op == "expect_fault_address") {
      check({st.fault_address, {}}, step, step["value"]);
    } else if (op == "expect_cycle") {
      check({st.sysregs.cycle, {}}, step, step["value"]);
    } else if (op == "expect_commit_argument") {
      check({st.commit_argument, {}}, step, step["value"]);
    } else if (op == "expect_return_address") {
      check({st.return_address, {}}, step, step["value"]);
    } else if (op == "expect_acr") {
      check({st.current_acr, {}}, step, step["ring"]);
    } else if (op == "expect_queue") {
      check({queue(st, step).value[step["index"].get<unsigned>()], {}}, step, step["value"]);
    } else if (op == "expect_queue_valid") {
      check({Word{queue(st, step).valid[step["index"].get<unsigned>()]}, {}}, step, step["valid"]);
    } else if (op == "expect_mem") {
      check({m.memory.read(word_of(step["addr"]), step["size"]), {}}, step, step["value"]);
    } else if (op == "expect_reservation") {
      check(observe_reservation(st, step["field"]), step, step["value"]);
    } else if (op == "expect_trap_context") {
      check(observe_trap_context(st.trap_contexts[step["ring"].get<unsigned>()], step["field"]), step, step["value"]);
    } else if (op == "expect_barg") {
      check(observe_barg(st.block.barg, step["field"]), step, step["value"]);
    } else if (op == "expect_bundle_state") {
      check(observe_bundle_state(st.block, step["field"]), step, step["value"]);
    } else if (op == "expect_mem_event_count") {
      check({st.memory_event_count, {}}, step, step["count"]);
    } else if (op == "expect_mem_event") {
      check(observe_mem_event(st.memory_events[step["index"].get<unsigned>()], step["field"]), step, step["value"]);
    } else if (op == "expect_decode") {
      const isa::Decoded d = isa::decode(parse_hex(step["bits"]), step["length_bits"]);
      ASSERT_NE(d.status, isa::DecodeStatus::NoForm);
      check({std::nullopt, d.desc().form_id}, step, step["form_id"]);
    } else if (op == "expect_decode_field") {
      const auto id = isa::form_by_id(step["form_id"].get<std::string>());
      ASSERT_TRUE(id.has_value());
      const isa::FormDesc& f = isa::form(*id);
      const int fi = isa::field_index(f, step["field"].get<std::string>());
      ASSERT_GE(fi, 0);
      check({isa::field_raw(isa::fields_of(f)[fi], parse_hex(step["bits"])), {}}, step, step["value"]);
    } else {
      FAIL() << "unknown step op " << op;
    }
    if (HasFatalFailure()) return;
  }
}

std::vector<std::string> all_ids() {
  std::vector<std::string> ids;
  for (const json& v : vectors()) ids.push_back(v["avs_id"]);
  return ids;
}

std::string test_name(const ::testing::TestParamInfo<std::string>& info) {
  std::string n = info.param;
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n;
}

INSTANTIATE_TEST_SUITE_P(Avs, ScalarSpecVector, ::testing::ValuesIn(all_ids()), test_name);

}  // namespace
}  // namespace pto::test
