// pto_model_run_elf: the reference runner's C ABI (0x00020000) served by the
// native model in-process.  Argument checks and status codes follow the
// reference client; the run itself is runner::run_job with the reference
// configuration (bounded memory, reference numerics).
#include "pto/pto_asl_model.h"

#include <fmt/format.h>

#include <cstdio>
#include <exception>
#include <string>

#include "runner/hosted_run.hpp"

namespace {

using pto::runner::HostedJob;

bool given(const char* path) { return path != nullptr && path[0] != '\0'; }

std::string path_or_empty(const char* path) { return given(path) ? std::string(path) : std::string(); }

// The reference client passes every field to the runner as a value.
HostedJob job_of(const pto_model_elf_run_config_t& c) {
  HostedJob job;
  job.program_path = c.elf_path;
  job.sidecar_path = path_or_empty(c.sidecar_path);
  job.lock_path = path_or_empty(c.lock_path);
  job.manifest_out = c.manifest_output_path;
  job.result_out = path_or_empty(c.result_output_path);
  job.config.stop_pc = c.stop_pc;
  job.config.max_steps = c.max_steps;
  job.config.stop_after_hits = c.stop_after_hits;
  job.config.start_pc = c.start_pc;
  job.config.return_pc = c.return_pc;
  job.config.stack_top = c.stack_top;
  job.config.result_address = c.result_address;
  job.config.result_size = c.result_size;
  job.memory_bytes = c.memory_bytes;
  job.tile_elements = c.tile_elements;
  job.make_config = [](pto::arch::Word memory_bytes, std::uint64_t tile_elements) {
    return pto::runner::hosted_reference_config(memory_bytes, tile_elements, pto::arch::NumericProfileKind::Reference);
  };
  job.load = pto::runner::load_hosted_elf;
  job.provenance = {{"pto_asl_sha256", pto::runner::optional_file_sha256(path_or_empty(c.asl_spec_path))},
                    {"aslref_binary_sha256", pto::runner::optional_file_sha256(path_or_empty(c.aslref_path))},
                    {"model_runner", "libpto_model (native, in-process)"}};
  job.pto_extra = {{"profile", "reference"}, {"entry", "pto_model_run_elf"}};
  return job;
}

}  // namespace

extern "C" pto_model_status_t pto_model_run_elf(const pto_model_elf_run_config_t* config) {
  if (config == nullptr) return PTO_MODEL_STATUS_INVALID_ARGUMENT;
  if (config->abi_version != PTO_ASL_MODEL_ABI_VERSION || config->struct_size != sizeof(*config)) {
    return PTO_MODEL_STATUS_ABI_MISMATCH;
  }
  if (!given(config->elf_path) || !given(config->manifest_output_path) ||
      (config->max_steps == 0 && !given(config->sidecar_path))) {
    return PTO_MODEL_STATUS_INVALID_ARGUMENT;
  }
  try {
    const auto done = pto::runner::run_job(job_of(*config));
    if (pto::runner::stop_passed(done.report.run.reason)) return PTO_MODEL_STATUS_OK;
    std::fprintf(stderr, "pto_model_run_elf: %s after %llu steps%s%s\n",
                 std::string(pto::runner::stop_reason_name(done.report.run.reason)).c_str(),
                 static_cast<unsigned long long>(done.report.run.steps), done.report.run.detail.empty() ? "" : ": ",
                 done.report.run.detail.c_str());
  } catch (const std::exception& e) {
    // The reference runner fails the same way (a worker exit 1, no manifest).
    std::fprintf(stderr, "pto_model_run_elf: error: %s\n", e.what());
  }
  return PTO_MODEL_STATUS_WORKER_FAILED;
}
