// The part of the spec execution-vector tests that does not depend on the
// step vocabulary, shared by runner_spec_vectors_test.cpp (scalar and block
// vectors) and bundle_spec_vectors_test.cpp (tile-bundle vectors): loading a
// vector file, JSON numbers, running the steps of one vector through a step
// function, and parameterized-test names.
#pragma once

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <cctype>
#include <cstddef>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "test_paths.hpp"
#include "arch/machine.hpp"
#include "block/bundle_engine.hpp"
#include "isa/decoder.hpp"
#include "runner/dispatch.hpp"
#include "numerics/arith.hpp"
#include "scalar/alu_semantics.hpp"
#include "scalar/amo_semantics.hpp"

namespace pto::test::spec_vectors {

using nlohmann::json;
using arch::Machine;
using arch::Word;

// Records of tests/data/<file>; an empty array when the file is missing (each
// suite's FilePresent test reports that).
inline json load_vectors(const char* file) {
  std::ifstream in(std::string(PTO_TEST_DATA_DIR) + "/" + file);
  return in ? json::parse(in) : json::array();
}

// A vector number: boolean, integer, or a string in C notation ("0x...").
inline Word num(const json& v) {
  if (v.is_boolean()) return v.get<bool>() ? 1 : 0;
  if (v.is_number_integer()) return static_cast<Word>(v.get<std::int64_t>());
  if (v.is_number_unsigned()) return v.get<std::uint64_t>();
  return std::stoull(v.get<std::string>(), nullptr, 0);
}

// ScalarFPFlags() / NumericStatusFlags(): CORE_STATE[36:32].
inline Word fp_flags(const Machine& m) { return (m.state.sysregs.core_state >> arch::kCoreStateFlagsShift) & 0x1F; }

// A suite without snapshot reads.
inline std::optional<Word> no_snapshots(Machine&, const json&) { return std::nullopt; }

// Executes an "exec" step and checks the status every such step carries:
// "expect_status" (ScalarExecution_ / CommandExecution_ / PTOInstruction_
// Executed or Rejected: the ASL's assertion, or for a word rewritten from a
// test-only helper the status the helper's own fault conditions give, with
// "expect_fault" when they name one), or "status_unasserted" with the
// extractor's reason when the test point leaves the status open.  A step
// with neither is a defect of the vector file and fails, and so does an
// instruction the model does not implement: the point asserts behaviour the
// model lacks, which must not pass as a skip.
inline std::string exec_step(Machine& m, const json& s) {
  const Word bits = num(s["bits"]);
  const auto length = static_cast<unsigned>(num(s["length_bits"]));
  const auto o = runner::execute_instruction(m, bits, length);
  if (o == scalar::ExecOutcome::NotImplemented) {
    const std::string detail = block::tile_not_implemented_detail(m);
    return "not implemented in this model: " + (detail.empty() ? std::string(isa::decode(bits, length).desc().mnemonic)
                                                               : detail);
  }
  const bool has_status = s.contains("expect_status") && s["expect_status"].is_string();
  if (!has_status) return s.contains("status_unasserted") ? "" : "exec step without a status expectation";
  const bool executed = scalar::is_success(o);
  // A rejection's outcome carries the fault set_fault recorded in
  // state.last_fault; a success leaves last_fault at Fault_None.
  if (scalar::fault_of(o) != m.state.last_fault) {
    return fmt::format("outcome carries {}, last_fault is {}", arch::fault_name(scalar::fault_of(o)),
                       arch::fault_name(m.state.last_fault));
  }
  if (executed != s["expect_status"].get<std::string>().ends_with("_Executed")) {
    return fmt::format("status {} (fault {})", executed ? "Executed" : "Rejected",
                       arch::fault_name(m.state.last_fault));
  }
  if (s.contains("expect_fault") && arch::fault_name(m.state.last_fault) != s["expect_fault"].get<std::string>())
    return fmt::format("fault {}", arch::fault_name(m.state.last_fault));
  return "";
}

// ScalarBinary[W](op, left, right) and ScalarFPMinMax(op, left, right,
// source_type) of constants: the functions the ALU handlers
// (scalar::scalar_binary[_w]) and the FMIN/FMAX handlers (num::ieee_min_max)
// compute with; nullopt for another function.
inline std::optional<Word> alu_fsu_model_value(const json& v) {
  const std::string f = v.at("model");
  const std::string op = v.value("op", "");
  if (f == "ScalarFPMinMax") {
    const auto type = num(v.at("source_type")) == 1 ? pto::num::DataType::FP32 : pto::num::DataType::FP64;
    return pto::num::ieee_min_max(op == "FloatingBinary_MAX", type, num(v.at("left")), num(v.at("right"))).bits;
  }
  if (f != "ScalarBinary" && f != "ScalarBinaryW") return std::nullopt;
  constexpr const char* kOps[] = {"ADD", "SUB", "AND", "OR", "XOR", "SLL", "SRL", "SRA", "MIN", "MINU", "MAX", "MAXU"};
  for (unsigned i = 0; i < std::size(kOps); ++i) {
    if (op != std::string("ScalarBinary_") + kOps[i]) continue;
    const auto o = static_cast<scalar::BinaryOp>(i);
    return f == "ScalarBinary" ? scalar::scalar_binary(o, num(v.at("left")), num(v.at("right")))
                               : scalar::scalar_binary_w(o, num(v.at("left")), num(v.at("right")));
  }
  return std::nullopt;
}

// An expected value {"model": function, ...} (tools/extract_exec_vectors.py,
// MODEL_VALUE_FUNCTIONS): the ASL test's pure model function of constants,
// evaluated with the function the model itself uses, or nullopt for an
// unknown function.
inline std::optional<Word> model_value(const json& v) {
  const std::string f = v.at("model");
  if (!v.contains("size")) return alu_fsu_model_value(v);
  const auto size = static_cast<unsigned>(num(v.at("size")));
  if (f == "NormalizeMemoryAccessValue") return arch::normalize_memory_access_value(num(v.at("value")), size);
  if (f == "NormalizeAtomicReturn") return scalar::normalize_atomic_return(num(v.at("value")), size);
  if (f != "AtomicValueSized") return std::nullopt;
  constexpr const char* kOps[] = {"SWAP", "ADD", "AND", "OR", "XOR", "SMIN", "SMAX", "UMIN", "UMAX"};
  const std::string op = v.at("op");
  for (unsigned i = 0; i < std::size(kOps); ++i) {
    if (op == std::string("Atomic_") + kOps[i]) {
      return scalar::atomic_value_sized(static_cast<scalar::AtomicOp>(i), num(v.at("old_value")),
                                        num(v.at("operand")), size);
    }
  }
  return std::nullopt;
}

// "expect_no_form": Decode{Scalar,Command}Form(w, n) ==
// PTO_{SCALAR,COMMAND}_FORM_COUNT -- no catalog form of that surface (command
// forms: families CMD and BBD) and length in the model's form table matches
// the word's mask bits.  Like the ASL's decode, the match ignores field
// constraints and the extension reservations (which the model's decoder
// tries first, so a BSTART Fixup payload decodes as its reservation there).
inline std::vector<const isa::FormDesc*> forms_matching(const json& s) {
  const Word bits = num(s["bits"]);
  const auto length = static_cast<unsigned>(num(s["length_bits"]));
  const bool command = s.at("surface") == "command";
  std::vector<const isa::FormDesc*> out;
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    const bool command_form = f.family == isa::Family::CMD || f.family == isa::Family::BBD;
    if (f.length_bits == length && command_form == command && (bits & f.mask) == f.match) out.push_back(&f);
  }
  return out;
}

inline std::string no_form_step(const json& s) {
  const std::vector<const isa::FormDesc*> found = forms_matching(s);
  return found.empty() ? "" : std::string("form ") + found.front()->form_id + " matches";
}

// Snapshots (an assertion comparing two state reads): a read step carrying
// "snapshot": name records what `observe` reads there (and is checked only
// when it also has a "value"); a later expected value {"snapshot": name,
// "offset": k} (always under "value") is that record plus k, modulo 2^64.  Returns the step to run
// (`s` itself when it names no snapshot), or nullopt when there is nothing
// to check; `failure` is set when the step cannot be resolved.
template <typename Observe>
std::optional<json> resolve_snapshots(Machine& m, const json& s, std::map<std::string, Word>& recorded,
                                      Observe& observe, std::string& failure) {
  if (s.contains("snapshot")) {
    const std::optional<Word> got = observe(m, s);
    if (!got) {
      failure = "no snapshot reader for this step";
      return std::nullopt;
    }
    const std::string name = s.at("snapshot");
    recorded[name] = *got;
    if (!s.contains("value")) return std::nullopt;
  }
  json out = s;
  for (auto& [key, value] : out.items()) {
    if (value.is_object() && value.contains("model")) {
      // TrapVectorEntry(ring, fault_address) reads EVBASE: the state now.
      const std::optional<Word> v =
          value["model"] == "TrapVectorEntry"
              ? std::optional(m.trap_vector_entry(static_cast<unsigned>(num(value["ring"])), num(value["fault_address"])))
              : model_value(value);
      if (!v) {
        failure = "unknown model function " + value.dump();
        return std::nullopt;
      }
      value = "0x" + fmt::format("{:x}", *v);
      continue;
    }
    if (!value.is_object() || !value.contains("snapshot")) continue;
    const std::string name = value.at("snapshot");
    const auto it = recorded.find(name);
    if (it == recorded.end()) {
      failure = "snapshot " + name + " not recorded";
      return std::nullopt;
    }
    value = "0x" + fmt::format("{:x}", it->second + num(value["offset"]));
  }
  return out;
}

// Runs every step of one vector on a fresh reference machine.  `run_step`
// returns "" when the step holds, or what it observed instead (no step is
// skipped: a vector file records a known divergence per point, with its
// reason, and the suite skips that point as a whole).
// `observe` reads the value of a snapshot step (see resolve_snapshots).
template <typename RunStep, typename Observe = decltype(no_snapshots)&>
void check_vector(const json& v, RunStep&& run_step, Observe&& observe = no_snapshots) {
  Machine m(arch::MachineConfig::reference());
  const auto& steps = v.at("steps");
  std::map<std::string, Word> recorded;
  for (std::size_t i = 0; i < steps.size(); ++i) {
    std::string failure;
    const json& s = steps[i];
    if (s.contains("snapshot") || (s.contains("value") && s["value"].is_object())) {
      const std::optional<json> resolved = resolve_snapshots(m, steps[i], recorded, observe, failure);
      if (resolved) failure = run_step(m, *resolved);
    } else {
      failure = run_step(m, steps[i]);
    }
    ASSERT_EQ(failure, "") << v["avs_id"].get<std::string>() << " step " << i << ": " << steps[i].dump()
                           << " (source " << v["source"].get<std::string>() << ")";
  }
}

// Parameters of a vector suite: the record indices.
inline std::vector<std::size_t> indices(const json& set) {
  std::vector<std::size_t> idx(set.size());
  for (std::size_t i = 0; i < idx.size(); ++i) idx[i] = i;
  return idx;
}

// Test name: the AVS id (non-alphanumerics as '_') and the record index.
template <const json& (*kSet)()>
std::string vector_name(const ::testing::TestParamInfo<std::size_t>& info) {
  std::string n = kSet()[info.param]["avs_id"].get<std::string>();
  for (char& c : n) {
    if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
  }
  return n + "_" + std::to_string(info.param);
}

}  // namespace pto::test::spec_vectors
