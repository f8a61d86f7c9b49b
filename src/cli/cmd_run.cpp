// `pto run PROGRAM`: load an ELF image, a flat binary or an assembly file
// (assembled in memory) and run it.
// Options follow the reference-runner contract (docs/semantics-notes.md
// "pto run"); exit codes are listed in kRunExit* below.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <fstream>
#include <iterator>
#include <optional>
#include <string>
#include <vector>

#include "asm/assembler.hpp"
#include "block/bundle_engine.hpp"
#include "cli/command.hpp"
#include "isa/catalog.hpp"
#include "runner/executor.hpp"
#include "runner/loader.hpp"
#include "runner/sha256.hpp"
#include "runner/state_dump.hpp"
#include "runner/trace.hpp"

namespace pto::cli {
namespace {

// Exit codes of `pto run` (also in docs/semantics-notes.md "pto run").
inline constexpr int kRunExitStopped = 0;         // stop-pc or return-pc reached
inline constexpr int kRunExitBadInput = 1;        // unreadable / invalid program or option value
inline constexpr int kRunExitMaxSteps = 3;        // step budget exhausted
inline constexpr int kRunExitFault = 4;           // unhandled fault
inline constexpr int kRunExitNotImplemented = 5;  // instruction not implemented in this model
inline constexpr int kRunExitHostLimit = 6;       // guest memory exceeded the host cap

// Default step budget: a runaway program stops with kRunExitMaxSteps.
inline constexpr std::uint64_t kDefaultMaxSteps = 1'000'000'000;
// Default stack top of the real configuration.
inline constexpr arch::Word kDefaultStackTop = 0x00007FFFFFFF0000;

struct RunOptions {
  std::string program;
  bool raw = false;
  std::string base = "0";
  bool no_identity_check = false;
  std::string profile = "real";
  std::string numeric_profile;  // empty: the configuration's default
  std::string memory_bytes;
  std::string memory_cap;
  std::string start_pc, start_symbol, stop_pc, stop_symbol, return_pc, result_address, result_symbol, stack_top;
  std::uint64_t stop_after_hits = 1;
  std::uint64_t max_steps = kDefaultMaxSteps;
  std::uint64_t result_size = 0;
  std::string result_out, manifest_out, dump_state;
  std::vector<std::string> print_tiles;  // --print-tile NAME (tile engine)
  bool trace = false, trace_json = false, quiet = false;
};

struct BadInput {
  std::string message;
};

arch::Word parse_number(const std::string& text, const char* option) {
  try {
    std::size_t used = 0;
    const unsigned long long v = std::stoull(text, &used, 0);
    if (used == text.size()) return v;
  } catch (const std::exception&) {
  }
  throw BadInput{fmt::format("{}: '{}' is not a number", option, text)};
}

std::optional<arch::Word> address_option(const std::string& value, const char* value_option, const std::string& symbol,
                                          const char* symbol_option, const runner::LoadedProgram& p) {
  if (!value.empty() && !symbol.empty()) throw BadInput{fmt::format("{} and {} are exclusive", value_option, symbol_option)};
  if (!value.empty()) return parse_number(value, value_option);
  if (symbol.empty()) return std::nullopt;
  if (auto v = runner::symbol_value(p, symbol)) return v;
  throw BadInput{fmt::format("{}: no symbol named '{}'", symbol_option, symbol)};
}

std::vector<std::uint8_t> read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw BadInput{fmt::format("cannot open '{}'", path)};
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

bool is_assembly_source(const std::string& path) {
  return path.ends_with(".s") || path.ends_with(".S") || path.ends_with(".asm");
}

// Assembles PROGRAM in memory; the image carries our identity note.
runner::LoadResult load_assembly(arch::Machine& m, const RunOptions& o, const std::vector<std::uint8_t>& bytes) {
  as::Result r = as::assemble(std::string_view(reinterpret_cast<const char*>(bytes.data()), bytes.size()), o.program);
  if (!r.ok()) {
    std::string message = fmt::format("cannot assemble '{}':", o.program);
    for (const as::Diagnostic& d : r.diagnostics) message += "\n" + d.format();
    throw BadInput{message};
  }
  return runner::load_image(m, std::move(*r.image), true);
}

void write_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  if (!out) throw BadInput{fmt::format("cannot write '{}'", path)};
}

arch::MachineConfig machine_config(const RunOptions& o) {
  arch::MachineConfig c;
  if (o.profile == "reference") {
    const arch::Word bytes = o.memory_bytes.empty() ? 4096 : parse_number(o.memory_bytes, "--memory-bytes");
    try {
      c = arch::MachineConfig::reference(bytes);
    } catch (const std::invalid_argument& e) {
      throw BadInput{std::string("--memory-bytes: ") + e.what()};
    }
  } else {
    c = arch::MachineConfig::real();
    if (!o.memory_bytes.empty()) {
      const arch::Word bytes = parse_number(o.memory_bytes, "--memory-bytes");
      if (bytes < 256) throw BadInput{"--memory-bytes: the address space must hold at least 256 bytes"};
      c.memory.address_limit = bytes;
    }
  }
  if (!o.memory_cap.empty()) c.memory.host_cap_bytes = parse_number(o.memory_cap, "--memory-cap");
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
    case runner::StopReason::ReturnPc: return kRunExitStopped;
    case runner::StopReason::MaxSteps: return kRunExitMaxSteps;
    case runner::StopReason::UnhandledFault: return kRunExitFault;
    case runner::StopReason::NotImplemented: return kRunExitNotImplemented;
    case runner::StopReason::HostLimit: return kRunExitHostLimit;
  }
  return kRunExitBadInput;
}

nlohmann::json manifest(const RunOptions& o, const arch::Machine& m, const runner::RunResult& r,
                        const std::vector<std::uint8_t>& result, double seconds) {
  nlohmann::json j;
  j["identity"] = {{"release", isa::kRelease},
                   {"encoding_abi", isa::kEncodingAbi},
                   {"encoding_projection_sha256", isa::kEncodingProjectionSha256}};
  j["program"] = o.program;
  j["configuration"] = {{"profile", o.profile},
                        {"numeric_profile", runner::numeric_profile_name(m.config().numeric_profile)},
                        {"address_limit", runner::hex_word(m.memory.config().address_limit)},
                        {"max_steps", o.max_steps},
                        {"stop_after_hits", o.stop_after_hits}};
  j["steps"] = r.steps;
  j["stop_reason"] = std::string(runner::stop_reason_name(r.reason));
  j["final_tpc"] = runner::hex_word(r.pc);
  j["fault"] = r.reason == runner::StopReason::UnhandledFault
                   ? nlohmann::json{{"code", std::string(arch::fault_name(r.fault))},
                                    {"address", runner::hex_word(r.fault_address)},
                                    {"pc", runner::hex_word(r.fault_pc)}}
                   : nlohmann::json(nullptr);
  j["detail"] = r.detail;
  j["result_size"] = result.size();
  j["result_sha256"] = runner::sha256_hex(result);
  j["elapsed_seconds"] = seconds;
  return j;
}

int run(const RunOptions& o) {
  try {
    const auto bytes = read_file(o.program);
    arch::Machine m(machine_config(o));
    runner::LoadResult loaded;
    const bool is_elf = bytes.size() >= 4 && bytes[0] == 0x7F && bytes[1] == 'E' && bytes[2] == 'L' && bytes[3] == 'F';
    if (o.raw) {
      loaded = runner::load_raw(m, bytes, parse_number(o.base, "--base"));
    } else if (is_elf) {
      loaded = runner::load_elf(m, bytes, !o.no_identity_check);
    } else if (is_assembly_source(o.program)) {
      loaded = load_assembly(m, o, bytes);
    } else {
      throw BadInput{fmt::format(
          "'{}' is not an ELF image; use --raw --base ADDR for a flat binary or a .s/.S/.asm name for assembly source",
          o.program)};
    }
    if (auto* e = std::get_if<runner::LoadError>(&loaded)) throw BadInput{e->message};
    const auto& program = std::get<runner::LoadedProgram>(loaded);

    arch::State& s = m.state;
    s.pc = address_option(o.start_pc, "--start-pc", o.start_symbol, "--start-symbol", program).value_or(program.entry);
    runner::RunLimits limits;
    limits.max_steps = o.max_steps;
    limits.stop_pc = address_option(o.stop_pc, "--stop-pc", o.stop_symbol, "--stop-symbol", program);
    limits.stop_after_hits = std::max<std::uint64_t>(o.stop_after_hits, 1);
    if (!o.return_pc.empty()) {
      // The program's caller: ra and _ReturnAddress name the return point.
      limits.return_pc = parse_number(o.return_pc, "--return-pc");
      s.write_gpr(arch::kRegRa, *limits.return_pc);
      s.return_address = *limits.return_pc;
    }
    if (!o.stack_top.empty()) {
      s.write_gpr(arch::kRegSp, parse_number(o.stack_top, "--stack-top"));
    } else if (o.profile != "reference") {
      s.write_gpr(arch::kRegSp, std::min(kDefaultStackTop, m.memory.config().address_limit & ~arch::Word{15}));
    }
    const auto result_at = address_option(o.result_address, "--result-address", o.result_symbol, "--result-symbol", program);
    if (o.result_size != 0 && !result_at) throw BadInput{"--result-size needs --result-address or --result-symbol"};
    if (result_at && !m.memory.access_permitted(*result_at, o.result_size, 0)) {
      throw BadInput{fmt::format("result range [{:#x}, +{}) lies outside the guest address space", *result_at,
                                 o.result_size)};
    }

    runner::Executor ex(m);
    std::optional<runner::TraceObserver> tracer;
    if (o.trace || o.trace_json) {
      tracer.emplace(stdout, o.trace_json ? runner::TraceObserver::Format::Json : runner::TraceObserver::Format::Text);
    }
    const auto t0 = std::chrono::steady_clock::now();
    const runner::RunResult r = ex.run(limits, tracer ? &*tracer : nullptr);
    const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();

    std::vector<std::uint8_t> result(result_at ? o.result_size : 0);
    if (result_at) m.memory.read_bytes(*result_at, result);
    if (!o.result_out.empty()) write_file(o.result_out, result);
    if (!o.manifest_out.empty()) {
      const std::string text = manifest(o, m, r, result, seconds).dump(2) + "\n";
      write_file(o.manifest_out, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
    }
    if (!o.dump_state.empty()) {
      const std::string text = runner::dump_state(m).dump(1) + "\n";
      write_file(o.dump_state, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
    }
    for (const std::string& name : o.print_tiles) {
      std::string table;
      if (!block::print_tile_table(m, name, table)) throw BadInput{table};
      fmt::print("{}\n", table);
    }
    if (!o.quiet) {
      const double mips = seconds > 0 ? static_cast<double>(r.steps) / seconds / 1e6 : 0.0;
      fmt::print(stderr, "pto run: {} after {} steps in {:.3f} s ({:.1f} MIPS), pc {:#x}{}{}\n",
                 runner::stop_reason_name(r.reason), r.steps, seconds, mips, r.pc, r.detail.empty() ? "" : ": ",
                 r.detail);
    }
    return exit_code_of(r.reason);
  } catch (const BadInput& e) {
    fmt::print(stderr, "pto run: error: {}\n", e.message);
    return kRunExitBadInput;
  } catch (const arch::HostMemoryExhausted& e) {
    fmt::print(stderr, "pto run: error: {}\n", e.what());
    return kRunExitHostLimit;
  }
}

const Registrar reg{[](CLI::App& app) {
  auto o = std::make_shared<RunOptions>();
  CLI::App* sub = app.add_subcommand("run", "Run a PTO program (ELF image, flat binary or assembly source)");
  sub->add_option("program", o->program, "ELF executable, assembly source (.s/.S/.asm), or a flat binary with --raw")->required();
  sub->add_flag("--raw", o->raw, "Treat PROGRAM as a flat binary loaded at --base");
  sub->add_option("--base", o->base, "Load address of a flat binary (default 0)");
  sub->add_flag("--no-identity-check", o->no_identity_check, "Accept ELF images without a matching ISA identity note");
  sub->add_option("--profile", o->profile, "Machine configuration: real (default) or reference")
      ->check(CLI::IsMember({"real", "reference"}));
  sub->add_option("--numeric-profile", o->numeric_profile,
                  "Numeric profile of FSU and tile arithmetic: ieee (default) or reference (default with --profile "
                  "reference)")
      ->check(CLI::IsMember({"reference", "ieee"}));
  sub->add_option("--memory-bytes", o->memory_bytes,
                  "Guest address-space size (reference: PTO_MODEL_MEMORY_BYTES, 256..65536, default 4096)");
  sub->add_option("--memory-cap", o->memory_cap, "Host bytes the guest pages may use (default 1 GiB)");
  sub->add_option("--start-pc", o->start_pc, "Initial TPC (default: the ELF entry / --base)");
  sub->add_option("--start-symbol", o->start_symbol, "Initial TPC from a symbol");
  sub->add_option("--stop-pc", o->stop_pc, "Stop before executing this address");
  sub->add_option("--stop-symbol", o->stop_symbol, "Stop before executing this symbol");
  sub->add_option("--stop-after-hits", o->stop_after_hits, "Stop on the Nth arrival at the stop address (default 1)");
  sub->add_option("--return-pc", o->return_pc, "Return address given to the program (ra); reaching it stops the run");
  sub->add_option("--max-steps", o->max_steps, "Step budget (default 1e9)");
  sub->add_option("--result-address", o->result_address, "Address of the result bytes");
  sub->add_option("--result-symbol", o->result_symbol, "Symbol naming the result bytes");
  sub->add_option("--result-size", o->result_size, "Number of result bytes");
  sub->add_option("--stack-top", o->stack_top, "Initial sp (default 0x7fffffff0000 in the real profile)");
  sub->add_option("--result-out", o->result_out, "Write the result bytes to FILE");
  sub->add_option("--manifest-out", o->manifest_out, "Write a JSON run manifest to FILE");
  sub->add_option("--dump-state", o->dump_state, "Write the architectural state at stop to FILE (JSON)");
  sub->add_option("--print-tile", o->print_tiles, "Print tile NAME (T#1..N#16 or 0..63) as a table at stop (repeatable)");
  sub->add_flag("--trace", o->trace, "Print one line per execution attempt");
  sub->add_flag("--trace-json", o->trace_json, "Print one JSON object per execution attempt");
  sub->add_flag("--quiet", o->quiet, "No summary line on stderr");
  return std::pair<CLI::App*, Runner>{sub, [o] { return run(*o); }};
}};

}  // namespace
}  // namespace pto::cli
