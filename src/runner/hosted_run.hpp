// The hosted run: the reference runner's contract (PTO-ISA/asl-model
// `pto_asl_model.runner`, ABI 0x00020000) on the native model — run
// parameters and their checks, the start state, the step and stop contract,
// the result region, the sidecar (`pto-asl-elf-sidecar-v1`), the model lock
// (`pto-asl-model-lock-v1`) and the run manifest (`pto-asl-model-run-v1`).
// `pto run`, the C ABI (`pto_model_run_elf`) and `pto cases` all run
// through here.  Decisions: docs/semantics-notes.md "Hosted runs".
#pragma once

#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "arch/machine.hpp"
#include "runner/executor.hpp"
#include "runner/loader.hpp"

namespace pto::runner {

// Limits of the hosted runner's model configuration.
inline constexpr arch::Word kHostedMemoryBytesDefault = 65536;        // REFERENCE_MEMORY_BYTES
inline constexpr arch::Word kHostedMemoryBytesMax = 16 * 1024 * 1024;  // MAX_HOSTED_MEMORY_BYTES
inline constexpr std::uint64_t kHostedTileElementsDefault = arch::kModelTileElementsDefault;  // REFERENCE_TILE_ELEMENTS
inline constexpr unsigned kAcrMax = 15;

// A run the contract refuses before executing anything.  `usage` marks a
// bad parameter value (the CLI's exit 2) as opposed to a bad input file.
struct HostedRunError : std::runtime_error {
  HostedRunError(const std::string& what, bool usage_error = false)
      : std::runtime_error(what), usage(usage_error) {}
  bool usage;
};

struct HostRequestPolicy {
  std::uint64_t number = 0;
  std::uint64_t argument0 = 0;
  std::uint64_t service_request_type = 0;
};

// The stepping and start parameters of one run (names as the reference
// runner's options).  Zero start_pc / return_pc / stack_top mean "the ELF
// entry" / "ra not written" / "sp not written".
struct HostedRunConfig {
  std::optional<arch::Word> stop_pc;
  std::uint64_t stop_after_hits = 1;
  std::uint64_t max_steps = 0;
  arch::Word start_pc = 0;
  std::uint64_t start_acr = 0;
  arch::Word return_pc = 0;
  arch::Word stack_top = 0;
  arch::Word result_address = 0;
  std::uint64_t result_size = 0;
  std::optional<HostRequestPolicy> host_request;
  bool run_trap_handlers = false;  // pto extension (RunLimits::run_trap_handlers)
  bool no_translation = false;     // pto extension: interpret fused blocks (Executor::set_translation)
};

// Checks the parameters against the loaded program and the machine
// (build_harness of the reference runner); throws HostedRunError.
void validate_run(const HostedRunConfig& c, const LoadedProgram& p, const arch::Machine& m);

// The real configuration's initial sp when the run gives none (`pto run`
// without --stack-top, the Python Machine): 0x7fffffff0000, or the top of a
// smaller address space rounded down to 16 bytes.
arch::Word real_default_stack_top(const arch::Machine& m);

// Writes the start state: current ACR, TPC, ra and _ReturnAddress, sp.
// Returns the start PC.
arch::Word apply_start_state(arch::Machine& m, const HostedRunConfig& c, const LoadedProgram& p);

struct HostedRunReport {
  RunResult run;
  arch::Word start_pc = 0;
  arch::Word final_tpc = 0;  // the saved trap TPC after a host request, else TPC
  std::vector<std::uint8_t> result;
  double run_ms = 0;
};
// "passed" | "failed" | "unfinished" (the step budget ran out).
std::string_view hosted_status(StopReason r);

// validate_run, apply_start_state, the run, the result bytes.
HostedRunReport run_hosted(arch::Machine& m, const LoadedProgram& p, const HostedRunConfig& c,
                           Observer* observer = nullptr);

// ---- sidecar (pto-asl-elf-sidecar-v1) ----
struct Sidecar {
  nlohmann::json document;
  std::string path;  // as given
  std::string sha256;
  std::uint64_t memory_bytes = 0, tile_elements = 0;
  std::string runtime_typecheck;
};
// Reads the sidecar and applies its overrides to `c` (the values it carries
// replace the command line's, as in the reference runner).
Sidecar load_sidecar(const std::string& path, HostedRunConfig& c);
// The sidecar's consistency checks against the ELF file, the loaded
// program and the parameters; `pto_commit` is the lock's (sidecar_pto_commit).
void validate_sidecar(const Sidecar& s, const std::string& elf_path, std::span<const std::uint8_t> elf_bytes,
                      const LoadedProgram& p, const HostedRunConfig& c, const std::string& pto_commit);
// The specification commit a sidecar must name: the lock's pto_commit, or
// release 0.58.3's when the lock (own_model_identity) has none.
std::string sidecar_pto_commit(const nlohmann::json& lock);

// ---- model lock (pto-asl-model-lock-v1) ----
// Reads a lock and checks it names this implementation's release identity;
// returns the lock object (copied into the manifest's `identity`).
nlohmann::json load_model_lock(const std::string& path);
// The identity this implementation reports when no lock is given.
nlohmann::json own_model_identity();

// ---- run manifest (pto-asl-model-run-v1) ----
struct ManifestInputs {
  std::string program_path;
  std::vector<std::uint8_t> program_bytes;  // the input file as read
  const LoadedProgram* program = nullptr;
  const HostedRunConfig* config = nullptr;
  const HostedRunReport* report = nullptr;
  arch::Word memory_bytes = 0;
  std::uint64_t tile_elements = 0;
  std::string runtime_typecheck = "strict";
  nlohmann::json identity;                 // lock object or own_model_identity()
  nlohmann::json provenance;               // see docs/semantics-notes.md
  const Sidecar* sidecar = nullptr;
  double preflight_ms = 0, total_ms = 0;
  nlohmann::json pto;                      // pto's own facts (one extra key)
};
nlohmann::json run_manifest(const ManifestInputs& in);
// pto's own facts about a run (the manifest's extra key "pto"): steps,
// stop reason, fault, detail, numeric profile.
nlohmann::json pto_run_facts(const arch::Machine& m, const RunResult& r);
// The manifest as the reference writes it: indent 2, sorted keys, ASCII, "\n".
std::string manifest_text(const nlohmann::json& manifest);

// ---- a whole run from files (pto run, the C ABI, pto cases) ----
// The steps every front end shares: sidecar (overrides), lock, program file,
// machine, load, parameter checks, run, result and manifest files.  Front
// ends differ only in the hooks.
struct HostedJob {
  std::string program_path, sidecar_path, lock_path, manifest_out, result_out;
  HostedRunConfig config;
  arch::Word memory_bytes = 0;  // 0: make_config's default
  std::uint64_t tile_elements = kHostedTileElementsDefault;
  std::string runtime_typecheck = "strict";
  // Builds the machine configuration for the run's memory size (0: the
  // configuration's default) and PTO_MODEL_TILE_ELEMENTS.
  std::function<arch::MachineConfig(arch::Word memory_bytes, std::uint64_t tile_elements)> make_config;
  // Loads the program bytes into the machine (throws HostedRunError).
  std::function<LoadedProgram(arch::Machine&, const std::vector<std::uint8_t>& bytes)> load;
  // Fills addresses from symbols when no sidecar gives them (may be empty).
  std::function<void(const LoadedProgram&, const arch::Machine&, HostedRunConfig&)> resolve;
  Observer* observer = nullptr;
  nlohmann::json provenance = nlohmann::json::object();
  nlohmann::json pto_extra = nlohmann::json::object();  // merged into the manifest's "pto"
};

struct HostedJobResult {
  std::unique_ptr<arch::Machine> machine;
  LoadedProgram program;
  HostedRunReport report;
};

// The hooks of a job that runs an ELF file in the reference configuration
// (the C ABI and `pto cases`): memory 256..16 MiB, the given numeric
// profile, PTO_MODEL_TILE_ELEMENTS; the ELF loaded with its identity checked.
arch::MachineConfig hosted_reference_config(arch::Word memory_bytes, std::uint64_t tile_elements,
                                            arch::NumericProfileKind numeric_profile);
LoadedProgram load_hosted_elf(arch::Machine& m, const std::vector<std::uint8_t>& bytes);

// Runs the job; throws HostedRunError for anything refused before the run
// (no manifest is written then, as in the reference runner).
HostedJobResult run_job(const HostedJob& job);

// Reads a program or data file of at most `max_bytes` (a regular file).
std::vector<std::uint8_t> read_input_file(const std::string& path, std::uint64_t max_bytes, const char* what);
// Writes `bytes` to `path`, checking every write and the close.
void write_output_file(const std::string& path, std::span<const std::uint8_t> bytes);

// The SHA-256 of a readable regular file, or null (provenance of the
// reference runner's ASL and ASLRef paths, which pto does not use).
nlohmann::json optional_file_sha256(const std::string& path);

// Lower-case hex of `bytes`.
std::string hex_bytes(std::span<const std::uint8_t> bytes);

}  // namespace pto::runner
