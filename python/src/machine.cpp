// pto.Machine: configuration as `pto run --profile`, loading, runs under the
// hosted step and stop contract (runner::Executor, the loop `pto run` uses),
// per-step tracing, and the register and memory views.
#include <pybind11/functional.h>
#include <pybind11/stl.h>

#include <fmt/format.h>

#include <tuple>

#include "bindings.hpp"
#include "isa/catalog.hpp"
#include "runner/hosted_run.hpp"
#include "runner/state_dump.hpp"
#include "runner/trace.hpp"
#include "scalar/system_registers.hpp"

namespace pto::python {
namespace {

using arch::Word;

// `pto run`'s step budget when none is given: a runaway program stops.
constexpr std::uint64_t kDefaultMaxSteps = 1'000'000'000;
constexpr Word kReferenceMemoryDefault = 4096;  // the ASL's PTO_MODEL_MEMORY_BYTES
constexpr Word kMinimumAddressSpace = 256;

arch::NumericProfileKind numeric_profile(const std::string& name) {
  if (name == "ieee") return arch::NumericProfileKind::Ieee;
  if (name == "reference") return arch::NumericProfileKind::Reference;
  throw py::value_error(fmt::format("numeric_profile must be 'ieee' or 'reference', not '{}'", name));
}

// The configurations of `pto run --profile real|reference`: the reference
// one bounds memory to the ASL's model size and computes with the reference
// numeric profile, the real one has a 48-bit space and IEEE results.
arch::MachineConfig machine_config(const std::string& profile, const std::optional<std::string>& numeric,
                                   std::optional<Word> memory_bytes, std::optional<std::uint64_t> tile_elements,
                                   std::optional<std::uint64_t> memory_cap) {
  arch::MachineConfig c;
  if (profile == "reference") {
    c = arch::MachineConfig::reference(memory_bytes.value_or(kReferenceMemoryDefault));  // invalid_argument: ValueError
  } else if (profile == "real") {
    if (memory_bytes && *memory_bytes < kMinimumAddressSpace) {
      throw py::value_error("memory_bytes: the address space must hold at least 256 bytes");
    }
    if (memory_bytes) c.memory.address_limit = *memory_bytes;
  } else {
    throw py::value_error(fmt::format("profile must be 'real' or 'reference', not '{}'", profile));
  }
  if (numeric) c.numeric_profile = numeric_profile(*numeric);
  if (tile_elements) c.set_tile_elements(*tile_elements);
  if (memory_cap) c.memory.host_cap_bytes = *memory_cap;
  return c;
}

const runner::LoadedProgram& loaded_program(const Machine& m) {
  if (!m.program) throw py::value_error("no program is loaded (Machine.load)");
  return *m.program;
}

// An address given as a number or as the name of a symbol of the loaded program.
Word address_of(const Machine& m, const py::object& where) {
  if (!py::isinstance<py::str>(where)) return where.cast<Word>();
  const std::string name = where.cast<std::string>();
  if (auto v = runner::symbol_value(loaded_program(m), name)) return *v;
  throw py::key_error(fmt::format("no symbol named '{}'", name));
}

void load(Machine& m, const Program& p, bool check_identity, const py::object& stack_top) {
  auto loaded = runner::load_image(m.core(), p.image, check_identity);
  if (const auto* e = std::get_if<runner::LoadError>(&loaded)) raise_pto_error("LoadError", e->message);
  m.program = std::get<runner::LoadedProgram>(std::move(loaded));
  m.executor().flush_decode_cache();
  // The start state of `pto run` without start options: the ELF entry,
  // ACR0, and sp at the real configuration's default stack top.
  runner::HostedRunConfig start;
  const bool real = m.core().config().memory.profile == arch::MemoryProfile::Real;
  if (!stack_top.is_none()) {
    start.stack_top = stack_top.cast<Word>();
  } else if (real) {
    start.stack_top = runner::real_default_stack_top(m.core());
  }
  runner::apply_start_state(m.core(), start, *m.program);
}

// Calls the Python trace callback with one record per execution attempt.
class CallbackObserver final : public runner::Observer {
 public:
  explicit CallbackObserver(py::function callback) : callback_(std::move(callback)) {}
  void on_retire(const arch::Machine&, const runner::Retired& r) override {
    py::gil_scoped_acquire locked;
    py::dict record;
    record["pc"] = r.pc;
    record["next_pc"] = r.next_pc;
    record["text"] = runner::instruction_text(*r.insn);
    record["outcome"] = outcome_name(r.outcome);
    record["fault"] = scalar::is_fault(r.outcome) ? py::cast(std::string(arch::fault_name(r.fault()))) : py::none();
    py::dict gprs;
    for (const auto& [index, value] : r.gpr_writes) gprs[runner::gpr_name(index)] = value;
    record["gpr_writes"] = gprs;
    py::list accesses;
    for (const arch::MemoryAccess& a : r.accesses) {
      accesses.append(py::make_tuple(a.write ? "write" : "read", a.address, a.size, a.value));
    }
    record["memory"] = accesses;
    callback_(record);  // an exception ends the run and propagates (run() cleans up)
  }

 private:
  static const char* outcome_name(scalar::ExecOutcome o) {
    switch (o) {
      case scalar::ExecOutcome::Next: return "next";
      case scalar::ExecOutcome::PcWritten: return "pc-written";
      case scalar::ExecOutcome::NotImplemented: return "not-implemented";
      default: return "fault";  // scalar::is_fault(o)
    }
  }
  py::function callback_;
};

// The run loop with the GIL released; a trace callback that raises ends the
// run with its exception (the executor's access log is detached first).
runner::RunResult execute(Machine& m, const runner::RunLimits& limits, const std::optional<py::function>& trace) {
  std::optional<CallbackObserver> observer;
  if (trace) observer.emplace(*trace);
  runner::Executor& executor = m.executor();
  arch::Machine& core = m.core();
  const Machine::RunScope running(m);
  py::gil_scoped_release unlocked;
  try {
    return executor.run(limits, observer ? &*observer : nullptr);
  } catch (...) {
    core.set_access_log(nullptr);
    throw;
  }
}

// NUMBER, ARGUMENT0, TYPE of `pto run --host-request`.
using HostRequestPolicy = std::tuple<std::uint64_t, std::uint64_t, unsigned>;

runner::RunResult run(Machine& m, const std::optional<std::string>& stop_symbol, const std::optional<Word>& stop_pc,
                      std::uint64_t stop_after_hits, const std::optional<std::uint64_t>& max_steps,
                      const py::object& return_pc, const std::optional<HostRequestPolicy>& host_request,
                      const std::optional<py::function>& trace) {
  if (stop_symbol && stop_pc) throw py::value_error("stop_symbol and stop_pc are exclusive");
  if (stop_after_hits == 0) throw py::value_error("stop_after_hits must be positive");
  if (max_steps && *max_steps == 0) throw py::value_error("max_steps must be positive");
  runner::RunLimits limits;
  limits.max_steps = max_steps.value_or(kDefaultMaxSteps);
  limits.stop_after_hits = stop_after_hits;
  limits.stop_pc = stop_symbol ? address_of(m, py::str(*stop_symbol)) : stop_pc;
  if (host_request) {
    const auto& [number, argument0, type] = *host_request;
    if (return_pc.is_none()) throw py::value_error("host_request needs return_pc: the PC the request's trap context resumes at");
    if (type > 15) throw py::value_error("service request type is outside four bits (0..15)");
    limits.host_request = runner::HostRequest{number, argument0, type, address_of(m, return_pc)};
  }
  if (!return_pc.is_none()) {
    // --return-pc: ra and _ReturnAddress are written; the run does not stop there.
    const Word ra = address_of(m, return_pc);
    m.core().state.return_address = ra;
    m.core().state.write_gpr(arch::kRegRa, ra);
  }
  return execute(m, limits, trace);
}

py::object fault_record(const runner::RunResult& r) {
  if (r.fault == arch::FaultCode::Fault_None) return py::none();
  py::dict f;
  f["name"] = std::string(arch::fault_name(r.fault));
  f["address"] = r.fault_address;
  f["pc"] = r.fault_pc;
  return py::module_::import("types").attr("SimpleNamespace")(**f);
}

// ---- register and memory views (each keeps its Machine alive) ----

struct GprView {
  Machine* m;
};
struct SysregView {
  Machine* m;
};
struct MemoryView {
  Machine* m;
};

unsigned gpr_index(const py::object& key) {
  if (py::isinstance<py::str>(key)) {
    const std::string name = key.cast<std::string>();
    for (unsigned i = 0; i < arch::kAbsoluteGprCount; ++i)
      if (name == runner::gpr_name(i)) return i;
    throw py::key_error(fmt::format("no general register named '{}'", name));
  }
  const auto i = key.cast<std::int64_t>();
  if (i < 0 || i >= arch::kAbsoluteGprCount) throw py::index_error(fmt::format("general registers are 0..23, not {}", i));
  return static_cast<unsigned>(i);
}

// A system register name as the catalog spells it (CYCLE, TILE_CAPACITY,
// TTBR0_ACR1) or a ring-banked one with its ring (EVBASE_ACR0 for
// EVBASE_ACRn): the 24-bit address SSRGET/SSRSET use.
scalar::SystemRegisterAddress sysreg_address(const std::string& name) {
  constexpr std::string_view kFamily = "_ACRn";
  constexpr unsigned kBankShift = 12;  // address bits [15:12] select the ring bank
  for (const isa::SystemRegisterDesc& r : isa::system_registers()) {
    const std::string_view catalog = r.name;
    if (catalog == name) {
      if (r.is_base) return r.address;
      if (r.fixed_context >= 0) return static_cast<unsigned>(r.fixed_context) << kBankShift | r.address;
    }
    if (!catalog.ends_with(kFamily)) continue;
    const std::string_view stem = catalog.substr(0, catalog.size() - 1);  // "EVBASE_ACR"
    if (!name.starts_with(stem) || name.size() == stem.size()) continue;
    const std::string digits = name.substr(stem.size());
    if (digits.size() > 2 || digits.find_first_not_of("0123456789") != std::string::npos) continue;
    if (const auto ring = static_cast<unsigned>(std::stoul(digits)); ring < arch::kAcrCount) {
      return ring << kBankShift | r.address;
    }
  }
  throw py::key_error(fmt::format("no system register named '{}' (catalog names; _ACRn registers as _ACR0.._ACR15)", name));
}

// Host access follows the architecture's access rules at the current ring,
// checked first so a refused access raises here instead of faulting the core.
void check_sysreg_access(Machine& m, scalar::SystemRegisterAddress a, const std::string& name, bool write) {
  const auto access = scalar::system_register_access_of(a);
  const unsigned ring = m.core().state.current_acr;
  if (!scalar::system_register_access_permitted(a, ring)) {
    throw py::value_error(fmt::format("{} is accessible at ACR0 only (the core is at ACR{})", name, ring));
  }
  if (access == (write ? scalar::SystemRegisterAccess::ReadOnly : scalar::SystemRegisterAccess::WriteOnly)) {
    throw py::value_error(fmt::format("{} is {}", name, write ? "read-only" : "write-only"));
  }
}

Word read_sysreg(const SysregView& v, const std::string& name) {
  const auto a = sysreg_address(name);
  check_sysreg_access(*v.m, a, name, false);
  Word value = 0;
  if (!scalar::read_system_register(v.m->core(), a, value)) throw py::value_error(fmt::format("{} is not readable", name));
  return value;
}

void write_sysreg(SysregView& v, const std::string& name, Word value) {
  const auto a = sysreg_address(name);
  check_sysreg_access(*v.m, a, name, true);
  if (!scalar::write_system_register(v.m->core(), a, value)) throw py::value_error(fmt::format("{} is not writable", name));
}

void check_range(const arch::Machine& m, Word address, Word size) {
  if (!m.memory.access_permitted(address, size, 0)) {
    throw py::index_error(fmt::format("[{:#x}, +{:#x}) is outside guest memory (limit {:#x})", address, size,
                                      m.memory.config().address_limit));
  }
}

py::bytes read_memory(const MemoryView& v, Word address, Word size) {
  check_range(v.m->core(), address, size);
  std::string out(size, '\0');
  v.m->core().memory.read_bytes(address, std::span(reinterpret_cast<std::uint8_t*>(out.data()), out.size()));
  return py::bytes(out);
}

// Bytes, bytearray, memoryview or a numpy array (its bytes in C order).
void write_memory(MemoryView& v, Word address, const py::object& data) {
  const std::string bytes = bytes_of(data);
  check_range(v.m->core(), address, bytes.size());
  v.m->core().memory.write_bytes(address, std::span(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()));
}

std::string result_repr(const runner::RunResult& r) {
  return fmt::format("<pto.RunResult {} steps={} pc={:#x}{}{}>", runner::stop_reason_name(r.reason), r.steps, r.pc,
                     r.detail.empty() ? "" : " ", r.detail);
}

}  // namespace

arch::Machine& Machine::core() {
  if (runner_ && *runner_ != std::this_thread::get_id()) {
    throw std::runtime_error("the machine is running in another thread");
  }
  return *core_;
}

Machine::RunScope::RunScope(Machine& m) : m_(m) {
  if (m.runner_) throw std::runtime_error("the machine is already running (a trace callback cannot run it)");
  m.runner_ = std::this_thread::get_id();
}

void bind_machine(py::module_& m) {
  py::class_<runner::RunResult>(m, "RunResult", "How a run ended (the rules of `pto run`)")
      .def_property_readonly("reason", [](const runner::RunResult& r) { return std::string(runner::stop_reason_name(r.reason)); },
                             "stop-pc, host-request, max-steps, fault, not-implemented or host-limit")
      .def_property_readonly("passed", [](const runner::RunResult& r) { return runner::stop_passed(r.reason); })
      .def_readonly("steps", &runner::RunResult::steps, "Execution attempts, faulting ones included")
      .def_readonly("pc", &runner::RunResult::pc, "The final TPC")
      .def_property_readonly("fault", &fault_record, "None, or the rejected attempt's fault: name, address, pc")
      .def_readonly("detail", &runner::RunResult::detail)
      .def("__repr__", &result_repr);

  py::class_<GprView>(m, "GeneralRegisters", "m.gpr[5], m.gpr['a3']: the current PE's general registers")
      .def("__getitem__", [](const GprView& v, const py::object& k) { return v.m->core().state.read_gpr(gpr_index(k)); })
      .def("__setitem__", [](GprView& v, const py::object& k, Word value) { v.m->core().state.write_gpr(gpr_index(k), value); },
           "Writes to zero (register 0) are discarded, as architecturally")
      .def("__len__", [](const GprView&) { return arch::kAbsoluteGprCount; })
      .def("names", [](const GprView&) {
        std::vector<std::string> out;
        for (unsigned i = 0; i < arch::kAbsoluteGprCount; ++i) out.emplace_back(runner::gpr_name(i));
        return out;
      });
  py::class_<SysregView>(m, "SystemRegisters", "m.sysreg['CYCLE'], m.sysreg['EVBASE_ACR0']")
      .def("__getitem__", &read_sysreg)
      .def("__setitem__", &write_sysreg)
      .def("names", [](const SysregView&) {
        std::vector<std::string> out;
        for (const isa::SystemRegisterDesc& r : isa::system_registers()) out.emplace_back(r.name);
        return out;
      });
  py::class_<MemoryView>(m, "Memory", "Guest memory (host access: no permission or alignment rules)")
      .def("read", &read_memory, py::arg("address"), py::arg("size"))
      .def("write", &write_memory, py::arg("address"), py::arg("data"))
      .def_property_readonly("size", [](const MemoryView& v) { return v.m->core().memory.config().address_limit; },
                             "The address limit");

  py::class_<Machine> machine(m, "Machine", "One simulated PTO core");
  machine
      .def(py::init([](const std::string& profile, const std::optional<std::string>& numeric_profile,
                       std::optional<Word> memory_bytes, std::optional<std::uint64_t> tile_elements,
                       std::optional<std::uint64_t> memory_cap) {
             return std::make_unique<Machine>(
                 machine_config(profile, numeric_profile, memory_bytes, tile_elements, memory_cap));
           }),
           py::arg("profile") = "real", py::arg("numeric_profile") = py::none(), py::arg("memory_bytes") = py::none(),
           py::arg("tile_elements") = py::none(), py::arg("memory_cap") = py::none(),
           "profile 'real' (48-bit space, ieee numerics) or 'reference' (the ASL model's bounded memory, default "
           "4096 bytes, reference numerics), as pto run --profile; numeric_profile 'ieee' or 'reference' overrides; "
           "tile_elements is PTO_MODEL_TILE_ELEMENTS; memory_cap the host bytes guest pages may use (default 1 GiB)")
      .def("load", &load, py::arg("program"), py::kw_only(), py::arg("check_identity") = true,
           py::arg("stack_top") = py::none(),
           "Load a Program's segments and set the start state: TPC at the entry, ACR0, sp at stack_top (default: "
           "the real profile's stack top; not written in the reference profile)")
      .def("run", &run, py::kw_only(), py::arg("stop_symbol") = py::none(), py::arg("stop_pc") = py::none(),
           py::arg("stop_after_hits") = 1, py::arg("max_steps") = py::none(), py::arg("return_pc") = py::none(),
           py::arg("host_request") = py::none(), py::arg("trace") = py::none(),
           "Run from the current TPC under pto run's step and stop contract (the start PC is never a stop hit, a "
           "rejected attempt ends the run; max_steps defaults to 1e9).  return_pc (an address or symbol) writes ra. "
           "host_request=(number, argument0, type) ends the run as passed on that service request (a7, a0, "
           "request type; needs return_pc), as --host-request.  trace(record) is called after every attempt; "
           "without it the fast loop runs.")
      .def(
          "reset",
          [](Machine& self) {
            self.core().reset();
            self.executor().flush_decode_cache();
            self.program.reset();
          },
          "ResetProfileState: every register to its reset value, memory zeroed, tiles released, no program")
      .def(
          "step",
          [](Machine& self) {
            runner::RunLimits one;
            one.max_steps = 1;
            return execute(self, one, std::nullopt);
          },
          "One execution attempt (a run with max_steps=1)")
      .def_property(
          "pc", [](Machine& self) { return self.core().state.pc; },
          [](Machine& self, Word pc) { self.core().state.pc = pc; }, "The TPC")
      .def_property_readonly("gpr", [](Machine& self) { return GprView{&self}; }, py::keep_alive<0, 1>())
      .def_property_readonly("sysreg", [](Machine& self) { return SysregView{&self}; }, py::keep_alive<0, 1>())
      .def_property_readonly("memory", [](Machine& self) { return MemoryView{&self}; }, py::keep_alive<0, 1>())
      .def_property_readonly(
          "symbols", [](const Machine& self) { return symbol_dict(loaded_program(self).symbols); },
          "Symbols of the loaded program")
      .def_property_readonly("numeric_profile", [](Machine& self) {
        return runner::numeric_profile_name(self.core().config().numeric_profile);
      });
  bind_tiles(machine);
}

}  // namespace pto::python
