// `pto run PROGRAM`: load an ELF image, a flat binary or an assembly file
// (assembled in memory) and run it under the reference runner's step and
// stop contract (runner/hosted_run.hpp, docs/semantics-notes.md "Hosted
// runs"); the reference runner's options are accepted as it spells them.
// Exit codes are listed in kRunExit* below.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "block/bundle_engine.hpp"
#include "cli/command.hpp"
#include "cli/unsigned_option.hpp"
#include "isa/catalog.hpp"
#include "runner/executor.hpp"
#include "runner/hosted_run.hpp"
#include "runner/loader.hpp"
#include "runner/sha256.hpp"
#include "runner/state_dump.hpp"
#include "runner/trace.hpp"

namespace pto::cli {
namespace {

// Exit codes of `pto run` (README "Exit codes and the reference runner").
inline constexpr int kRunExitStopped = 0;         // passed: stop PC or host request reached
inline constexpr int kRunExitBadInput = 1;        // unreadable / invalid program, sidecar or lock
inline constexpr int kRunExitUsage = 2;           // bad option value
inline constexpr int kRunExitMaxSteps = 3;        // unfinished: step budget exhausted
inline constexpr int kRunExitFault = 4;           // failed: an attempt was rejected
inline constexpr int kRunExitNotImplemented = 5;  // instruction not implemented in this model
inline constexpr int kRunExitHostLimit = 6;       // guest memory exceeded the host cap

struct RunOptions {
  std::string program, elf;
  bool raw = false;
  std::string base = "0";
  bool no_identity_check = false;
  std::string profile = "real";
  std::string numeric_profile;  // empty: the configuration's default
  std::string memory_bytes, memory_cap, tile_elements;
  std::string start_pc, start_symbol, start_acr, stop_pc, stop_symbol, return_pc, return_symbol;
  std::string result_address, result_symbol, result_size, stack_top;
  std::string stop_after_hits = "1";
  std::string max_steps = "1e9";  // a runaway program stops with kRunExitMaxSteps
  std::string host_request;
  bool run_trap_handlers = false;
  bool no_jit = false;
  std::string sidecar, lock, asl_spec, aslref;
  std::string runtime_typecheck = "strict", memory_backend = "host-sparse";
  std::string result_out, manifest_out, dump_state;
  std::vector<std::string> print_tiles;  // --print-tile NAME (tile engine)
  bool trace = false, trace_json = false, quiet = false;
};

struct BadInput {
  std::string message;
};
struct UsageError {
  std::string message;
};

std::uint64_t number(const std::string& text, const char* option, Exponent e = Exponent::Refused) {
  UnsignedParse p = parse_unsigned(text, option, e);
  if (!p.value) throw UsageError{p.error};
  return *p.value;
}

std::optional<arch::Word> address_option(const std::string& value, const char* value_option, const std::string& symbol,
                                          const char* symbol_option, const runner::LoadedProgram& p) {
  if (!value.empty() && !symbol.empty()) throw UsageError{fmt::format("{} and {} are exclusive", value_option, symbol_option)};
  if (!value.empty()) return number(value, value_option);
  if (symbol.empty()) return std::nullopt;
  if (auto v = runner::symbol_value(p, symbol)) return v;
  throw BadInput{fmt::format("{}: no symbol named '{}'", symbol_option, symbol)};
}

// NUMBER,ARGUMENT0,TYPE (e.g. 94,0,1: exit_group with status 0 through a
// type-1 service request).
runner::HostRequestPolicy host_request_option(const std::string& text) {
  const auto a = text.find(','), b = a == std::string::npos ? a : text.find(',', a + 1);
  if (b == std::string::npos || text.find(',', b + 1) != std::string::npos) {
    throw UsageError{fmt::format("--host-request: '{}' is not NUMBER,ARGUMENT0,TYPE", text)};
  }
  return {number(text.substr(0, a), "--host-request NUMBER"), number(text.substr(a + 1, b - a - 1), "--host-request ARGUMENT0"),
          number(text.substr(b + 1), "--host-request TYPE")};
}

bool is_assembly_source(const std::string& path) {
  return path.ends_with(".s") || path.ends_with(".S") || path.ends_with(".asm");
}

// Assembles PROGRAM in memory; the image carries our identity note.
runner::LoadResult load_assembly(arch::Machine& m, const std::string& path, const std::vector<std::uint8_t>& bytes) {
  as::Result r = as::assemble(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), path);
  if (!r.ok()) {
    std::string message = fmt::format("cannot assemble '{}':", path);
    for (const as::Diagnostic& d : r.diagnostics) message += "\n" + d.format();
    throw BadInput{message};
  }
  return runner::load_image(m, std::move(*r.image), true);
}

void write_text(const std::string& path, const std::string& text) {
  runner::write_output_file(path, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

arch::MachineConfig machine_config(const RunOptions& o, arch::Word memory_bytes) {
  arch::MachineConfig c;
  if (o.profile == "reference") {
    try {
      c = arch::MachineConfig::reference(memory_bytes == 0 ? 4096 : memory_bytes);
    } catch (const std::invalid_argument& e) {
      throw UsageError{std::string("--memory-bytes: ") + e.what()};
    }
  } else {
    c = arch::MachineConfig::real();
    if (memory_bytes != 0) {
      if (memory_bytes < 256) throw UsageError{"--memory-bytes: the address space must hold at least 256 bytes"};
      c.memory.address_limit = memory_bytes;
    }
  }
  if (!o.memory_cap.empty()) c.memory.host_cap_bytes = number(o.memory_cap, "--memory-cap");
  // The reference configuration computes with the reference profile, the
  // real one with IEEE results, unless --numeric-profile says otherwise.
  if (!o.numeric_profile.empty()) {
    c.numeric_profile =
        o.numeric_profile == "reference" ? arch::NumericProfileKind::Reference : arch::NumericProfileKind::Ieee;
  }
  return c;
}

int exit_code_of(runner::StopReason r) {
  switch (r) {
    case runner::StopReason::StopPc:
    case runner::StopReason::HostRequest: return kRunExitStopped;
    case runner::StopReason::MaxSteps: return kRunExitMaxSteps;
    case runner::StopReason::Fault: return kRunExitFault;
    case runner::StopReason::NotImplemented: return kRunExitNotImplemented;
    case runner::StopReason::HostLimit: return kRunExitHostLimit;
  }
  return kRunExitBadInput;
}

runner::LoadedProgram load_program(arch::Machine& m, const RunOptions& o, const std::string& path,
                                   const std::vector<std::uint8_t>& bytes) {
  runner::LoadResult loaded;
  const bool is_elf = bytes.size() >= 4 && bytes[0] == 0x7F && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
  if (o.raw) {
    loaded = runner::load_raw(m, bytes, number(o.base, "--base"));
  } else if (is_elf) {
    loaded = runner::load_elf(m, bytes, !o.no_identity_check);
  } else if (is_assembly_source(path)) {
    loaded = load_assembly(m, path, bytes);
  } else {
    throw BadInput{fmt::format(
        "'{}' is not an ELF image; use --raw --base ADDR for a flat binary or a .s/.S/.asm name for assembly source",
        path)};
  }
  if (auto* e = std::get_if<runner::LoadError>(&loaded)) throw BadInput{e->message};
  return std::get<runner::LoadedProgram>(std::move(loaded));
}

// The command line's parameters (a sidecar may replace them afterwards).
runner::HostedRunConfig command_line_config(const RunOptions& o) {
  runner::HostedRunConfig c;
  c.max_steps = number(o.max_steps, "--max-steps", Exponent::Allowed);
  c.stop_after_hits = number(o.stop_after_hits, "--stop-after-hits", Exponent::Allowed);
  if (c.max_steps == 0) throw UsageError{"--max-steps must be positive"};
  if (c.stop_after_hits == 0) throw UsageError{"--stop-after-hits must be positive"};
  if (!o.start_acr.empty()) c.start_acr = number(o.start_acr, "--start-acr");
  if (c.start_acr > runner::kAcrMax) throw UsageError{"--start-acr must be an access-control ring 0..15"};
  if (!o.result_size.empty()) c.result_size = number(o.result_size, "--result-size", Exponent::Allowed);
  if (!o.host_request.empty()) c.host_request = host_request_option(o.host_request);
  c.run_trap_handlers = o.run_trap_handlers;
  c.no_translation = o.no_jit;
  return c;
}

// Addresses that may name symbols, once the program is loaded.
void resolve_addresses(const RunOptions& o, const runner::LoadedProgram& p, const arch::Machine& m,
                       runner::HostedRunConfig& c) {
  c.start_pc = address_option(o.start_pc, "--start-pc", o.start_symbol, "--start-symbol", p).value_or(0);
  c.stop_pc = address_option(o.stop_pc, "--stop-pc", o.stop_symbol, "--stop-symbol", p);
  c.return_pc = address_option(o.return_pc, "--return-pc", o.return_symbol, "--return-symbol", p).value_or(0);
  const auto result_at = address_option(o.result_address, "--result-address", o.result_symbol, "--result-symbol", p);
  if (c.result_size != 0 && !result_at) throw UsageError{"--result-size needs --result-address or --result-symbol"};
  c.result_address = result_at.value_or(0);
  if (!o.stack_top.empty()) {
    c.stack_top = number(o.stack_top, "--stack-top");
  } else if (o.profile != "reference") {
    c.stack_top = runner::real_default_stack_top(m);
  }
}

nlohmann::json provenance(const RunOptions& o) {
  return {{"pto_asl_sha256", runner::optional_file_sha256(o.asl_spec)},
          {"aslref_binary_sha256", runner::optional_file_sha256(o.aslref)},
          {"model_runner", fmt::format("pto {} (native)", PTO_VERSION)}};
}

void print_summary(const runner::RunResult& r, double ms) {
  const double mips = ms > 0 ? static_cast<double>(r.steps) / ms / 1e3 : 0.0;
  fmt::print(stderr, "pto run: {} after {} steps in {:.3f} s ({:.1f} MIPS), pc {:#x}{}{}\n", runner::stop_reason_name(r.reason),
             r.steps, ms / 1e3, mips, r.pc, r.detail.empty() ? "" : ": ", r.detail);
}

int run(const RunOptions& o) {
  try {
    if (!o.program.empty() && !o.elf.empty()) throw UsageError{"give the program either as PROGRAM or as --elf, not both"};
    runner::HostedJob job;
    job.program_path = o.program.empty() ? o.elf : o.program;
    if (job.program_path.empty()) throw UsageError{"a program is required (PROGRAM or --elf FILE)"};
    job.sidecar_path = o.sidecar;
    job.lock_path = o.lock;
    job.manifest_out = o.manifest_out;
    job.result_out = o.result_out;
    job.config = command_line_config(o);
    if (!o.memory_bytes.empty()) job.memory_bytes = number(o.memory_bytes, "--memory-bytes");
    if (!o.tile_elements.empty()) job.tile_elements = number(o.tile_elements, "--tile-elements");
    job.runtime_typecheck = o.runtime_typecheck;
    job.make_config = [&o](arch::Word memory_bytes, std::uint64_t tile_elements) {
      arch::MachineConfig c = machine_config(o, memory_bytes);
      c.set_tile_elements(tile_elements);
      return c;
    };
    job.load = [&o, &job](arch::Machine& m, const std::vector<std::uint8_t>& bytes) {
      return load_program(m, o, job.program_path, bytes);
    };
    job.resolve = [&o](const runner::LoadedProgram& p, const arch::Machine& m, runner::HostedRunConfig& c) {
      resolve_addresses(o, p, m, c);
    };
    std::optional<runner::TraceObserver> tracer;
    if (o.trace || o.trace_json) {
      tracer.emplace(stdout, o.trace_json ? runner::TraceObserver::Format::Json : runner::TraceObserver::Format::Text);
      job.observer = &*tracer;
    }
    job.provenance = provenance(o);
    job.pto_extra = {{"profile", o.profile}, {"memory_backend", o.memory_backend}};
    const runner::HostedJobResult done = runner::run_job(job);
    const runner::RunResult& r = done.report.run;
    if (!o.dump_state.empty()) write_text(o.dump_state, runner::dump_state(*done.machine).dump(1) + "\n");
    for (const std::string& name : o.print_tiles) {
      std::string table;
      if (!block::print_tile_table(*done.machine, name, table)) throw BadInput{table};
      fmt::print("{}\n", table);
    }
    if (!o.quiet || !runner::stop_passed(r.reason)) print_summary(r, done.report.run_ms);
    return exit_code_of(r.reason);
  } catch (const UsageError& e) {
    fmt::print(stderr, "pto run: error: {}\n", e.message);
    return kRunExitUsage;
  } catch (const BadInput& e) {
    fmt::print(stderr, "pto run: error: {}\n", e.message);
    return kRunExitBadInput;
  } catch (const runner::HostedRunError& e) {
    fmt::print(stderr, "pto run: error: {}\n", e.what());
    return e.usage ? kRunExitUsage : kRunExitBadInput;
  } catch (const arch::HostMemoryExhausted& e) {
    fmt::print(stderr, "pto run: error: {}\n", e.what());
    return kRunExitHostLimit;
  }
}

// Every value option takes exactly one value per occurrence, so a later
// positional is never swallowed.
CLI::Option* value_option(CLI::App* sub, const std::string& name, std::string& target, const std::string& help) {
  return sub->add_option(name, target, help)->expected(1)->allow_extra_args(false);
}

const Registrar reg{"run", "Run a PTO program (ELF image, flat binary or assembly source)", [](CLI::App* sub) {
  auto o = std::make_shared<RunOptions>();
  sub->add_option("program", o->program, "ELF executable, assembly source (.s/.S/.asm), or a flat binary with --raw");
  value_option(sub, "--elf", o->elf, "The program, as the reference runner names it (instead of PROGRAM)");
  sub->add_flag("--raw", o->raw, "Treat PROGRAM as a flat binary loaded at --base");
  value_option(sub, "--base", o->base, "Load address of a flat binary (default 0)");
  sub->add_flag("--no-identity-check", o->no_identity_check, "Accept ELF images without a matching ISA identity note");
  value_option(sub, "--profile", o->profile, "Machine configuration: real (default) or reference")
      ->check(CLI::IsMember({"real", "reference"}));
  value_option(sub, "--numeric-profile", o->numeric_profile,
               "Numeric profile of FSU and tile arithmetic: ieee (default) or reference (default with --profile "
               "reference)")
      ->check(CLI::IsMember({"reference", "ieee"}));
  value_option(sub, "--memory-bytes", o->memory_bytes,
               "Guest address-space size (reference: PTO_MODEL_MEMORY_BYTES, 256..16 MiB, default 4096)");
  value_option(sub, "--memory-cap", o->memory_cap, "Host bytes the guest pages may use (default 1 GiB)");
  value_option(sub, "--tile-elements", o->tile_elements, "PTO_MODEL_TILE_ELEMENTS, 1..32768 (default 32768)");
  value_option(sub, "--start-pc", o->start_pc, "Initial TPC (default, or 0: the ELF entry / --base)");
  value_option(sub, "--start-symbol", o->start_symbol, "Initial TPC from a symbol");
  value_option(sub, "--start-acr", o->start_acr, "Initial access-control ring 0..15 (default 0)");
  value_option(sub, "--stop-pc", o->stop_pc, "Stop when an instruction leaves TPC here (the start PC is no hit)");
  value_option(sub, "--stop-symbol", o->stop_symbol, "Stop when an instruction leaves TPC at this symbol");
  value_option(sub, "--stop-after-hits", o->stop_after_hits, "Stop on the Nth hit of the stop PC (default 1)");
  value_option(sub, "--return-pc", o->return_pc, "Write ra and the return address (does not stop the run)");
  value_option(sub, "--return-symbol", o->return_symbol, "--return-pc from a symbol");
  value_option(sub, "--max-steps", o->max_steps, "Step budget, at least 1 (default 1e9)");
  value_option(sub, "--host-request", o->host_request,
               "NUMBER,ARGUMENT0,TYPE: end the run as passed on this service request (a7, a0, request type)");
  sub->add_flag("--run-trap-handlers", o->run_trap_handlers,
                "Faults delivered to a ring with a trap vector (EVBASE != 0) go on in the handler instead of ending "
                "the run");
  sub->add_flag("--no-jit", o->no_jit,
                "Interpret fused loop blocks instead of running their translated host code (also PTO_NO_JIT=1)");
  value_option(sub, "--result-address", o->result_address, "Address of the result bytes");
  value_option(sub, "--result-symbol", o->result_symbol, "Symbol naming the result bytes");
  value_option(sub, "--result-size", o->result_size, "Number of result bytes");
  value_option(sub, "--stack-top", o->stack_top, "Initial sp; 0: not written (default 0x7fffffff0000 in the real profile)");
  value_option(sub, "--sidecar", o->sidecar, "Reference-runner sidecar (pto-asl-elf-sidecar-v1): run parameters and checks");
  value_option(sub, "--lock", o->lock, "Reference-runner model lock (pto-asl-model-lock-v1), checked against this release");
  value_option(sub, "--asl-spec", o->asl_spec, "Accepted for the reference runner; only hashed into the manifest");
  value_option(sub, "--aslref", o->aslref, "Accepted for the reference runner; only hashed into the manifest");
  value_option(sub, "--runtime-typecheck", o->runtime_typecheck, "Accepted for the reference runner; recorded")
      ->check(CLI::IsMember({"strict", "minimal"}));
  value_option(sub, "--memory-backend", o->memory_backend, "Accepted for the reference runner; recorded")
      ->check(CLI::IsMember({"host-sparse", "reference-array"}));
  value_option(sub, "--result-out", o->result_out, "Write the result bytes to FILE");
  value_option(sub, "--manifest-out", o->manifest_out, "Write the run manifest (pto-asl-model-run-v1) to FILE");
  value_option(sub, "--dump-state", o->dump_state, "Write the architectural state at stop to FILE (JSON)");
  sub->add_option("--print-tile", o->print_tiles, "Print tile NAME (T#1..N#16 or 0..63) as a table at stop (repeatable)")
      ->expected(1)
      ->allow_extra_args(false);
  sub->add_flag("--trace", o->trace, "Print one line per execution attempt");
  sub->add_flag("--trace-json", o->trace_json, "Print one JSON object per execution attempt");
  sub->add_flag("--quiet", o->quiet, "No summary line on stderr when the run passes");
  return Runner{[o] { return run(*o); }};
}};

}  // namespace
}  // namespace pto::cli
