#include "runner/trace.hpp"

#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "block/bundle_engine.hpp"
#include "dis/render.hpp"
#include "isa/decoder.hpp"

namespace pto::runner {
namespace {

constexpr const char* kGprNames[arch::kAbsoluteGprCount] = {"zero", "sp", "a0", "a1", "a2", "a3", "a4", "a5",
                                                            "a6",   "a7", "ra", "s0", "s1", "s2", "s3", "s4",
                                                            "s5",   "s6", "s7", "s8", "x0", "x1", "x2", "x3"};

std::string bits_text(const scalar::DecodedInsn& d) {
  return d.length_bytes ? fmt::format("{:#0{}x}", d.bits, d.length_bytes * 2 + 2) : std::string("-");
}

}  // namespace

const char* gpr_name(unsigned i) { return i < arch::kAbsoluteGprCount ? kGprNames[i] : "?"; }

std::string instruction_text(const scalar::DecodedInsn& d) {
  if (d.length_bytes == 0) return "<fetch fault>";
  if (!(d.traits & scalar::kTraitDecoded)) return "<illegal>";
  const isa::Decoded dec = isa::decode(d.bits, d.length_bytes * 8u);
  return dis::render_standalone(dec, d.bits);
}

void TraceObserver::on_retire(const arch::Machine& m, const Retired& r) {
  const scalar::DecodedInsn& d = *r.insn;
  if (format_ == Format::Json) {
    nlohmann::json j;
    j["pe"] = r.pe;
    j["pc"] = fmt::format("{:#x}", r.pc);
    j["bits"] = bits_text(d);
    j["length"] = d.length_bytes * 8;
    j["text"] = instruction_text(d);
    nlohmann::json g = nlohmann::json::object();
    for (const auto& [reg, v] : r.gpr_writes) g[gpr_name(reg)] = fmt::format("{:#x}", v);
    j["gpr"] = g;
    nlohmann::json t = nlohmann::json::array(), u = nlohmann::json::array();
    for (auto v : r.t_pushes) t.push_back(fmt::format("{:#x}", v));
    for (auto v : r.u_pushes) u.push_back(fmt::format("{:#x}", v));
    j["t"] = t;
    j["u"] = u;
    nlohmann::json mem = nlohmann::json::array();
    for (const auto& a : r.accesses) {
      mem.push_back({{"addr", fmt::format("{:#x}", a.address)},
                     {"size", a.size},
                     {"write", a.write},
                     {"value", fmt::format("{:#x}", a.value)}});
    }
    j["mem"] = mem;
    if (scalar::is_fault(r.outcome)) {
      j["fault"] = std::string(arch::fault_name(r.fault()));
      j["fault_address"] = fmt::format("{:#x}", r.fault_address);
    }
    if (r.outcome == scalar::ExecOutcome::NotImplemented) j["not_implemented"] = true;
    if (const block::BundleTrace* b = block::current_bundle_trace(m)) j["bundle"] = block::describe_bundle(*b);
    j["next_pc"] = fmt::format("{:#x}", r.next_pc);
    fmt::print(out_, "{}\n", j.dump());
    return;
  }
  std::string line = fmt::format("pe{} {:#018x} {:<14} {}", r.pe, r.pc, bits_text(d), instruction_text(d));
  for (const auto& [reg, v] : r.gpr_writes) line += fmt::format("  {}={:#x}", gpr_name(reg), v);
  for (auto v : r.t_pushes) line += fmt::format("  ->t {:#x}", v);
  for (auto v : r.u_pushes) line += fmt::format("  ->u {:#x}", v);
  for (const auto& a : r.accesses) {
    line += fmt::format("  {}{} [{:#x}] {:#x}", a.write ? "st" : "ld", a.size, a.address, a.value);
  }
  if (scalar::is_fault(r.outcome)) line += fmt::format("  !{} @{:#x}", arch::fault_name(r.fault()), r.fault_address);
  if (r.outcome == scalar::ExecOutcome::NotImplemented) line += "  !not-implemented";
  if (const block::BundleTrace* b = block::current_bundle_trace(m)) line += "  " + block::describe_bundle(*b);
  fmt::print(out_, "{}\n", line);
}

}  // namespace pto::runner
