/* C ABI of the PTO reference-model runner, ABI version 0x00020000, served
 * in-process by pto's native model (libpto_model).  The names, values and
 * the configuration struct's layout are those of the reference runner's
 * header (PTO-ISA/asl-model include/pto/pto_asl_model.h), so a caller built
 * against either runs unchanged against this library.  Semantics and the
 * in-process differences: README "C ABI" and docs/semantics-notes.md
 * "Hosted runs". */
#ifndef PTO_ASL_MODEL_H
#define PTO_ASL_MODEL_H

#include <stdint.h>

#if defined(_WIN32)
#define PTO_ASL_MODEL_API __declspec(dllexport)
#elif defined(__GNUC__) || defined(__clang__)
#define PTO_ASL_MODEL_API __attribute__((visibility("default")))
#else
#define PTO_ASL_MODEL_API
#endif

#ifdef __cplusplus
extern "C" {
#endif

#define PTO_ASL_MODEL_ABI_VERSION UINT32_C(0x00020000)

typedef uint32_t pto_model_status_t;
enum {
    PTO_MODEL_STATUS_OK = 0,               /* the run passed */
    PTO_MODEL_STATUS_INVALID_ARGUMENT = 1, /* NULL config, missing ELF or manifest path, zero max_steps without sidecar */
    PTO_MODEL_STATUS_ABI_MISMATCH = 2,     /* abi_version or struct_size differ from this header's */
    PTO_MODEL_STATUS_WORKER_LAUNCH_ERROR = 3, /* never returned in-process (no worker is launched) */
    PTO_MODEL_STATUS_WORKER_FAILED = 4     /* the run was refused, failed or did not finish */
};

/* Every numeric field is used as given: zero is a value, not "default"
 * (start_pc, return_pc and stack_top of zero mean "ELF entry", "ra not
 * written" and "sp not written", as in the runner). */
typedef struct {
    uint32_t abi_version; /* PTO_ASL_MODEL_ABI_VERSION */
    uint32_t struct_size; /* sizeof(pto_model_elf_run_config_t) */
    const char *runner_path;   /* accepted, ignored (the model runs in-process) */
    const char *asl_spec_path; /* accepted; hashed into the manifest when readable */
    const char *aslref_path;   /* accepted; hashed into the manifest when readable */
    const char *lock_path;     /* optional: checked against this release's identity */
    const char *elf_path;
    const char *sidecar_path;  /* optional: overrides the numeric fields below */
    const char *manifest_output_path;
    const char *result_output_path; /* optional */
    uint64_t stop_pc;
    uint64_t max_steps;
    uint64_t result_address;
    uint64_t result_size;
    uint64_t stack_top;
    uint64_t memory_bytes;
    uint64_t tile_elements;
    uint64_t stop_after_hits;
    uint64_t start_pc;
    uint64_t return_pc;
} pto_model_elf_run_config_t;

/* Runs one ELF to completion under the reference runner's step contract and
 * writes the run manifest (pto-asl-model-run-v1) and, if asked, the result
 * bytes.  Returns PTO_MODEL_STATUS_OK only when the run passed. */
PTO_ASL_MODEL_API pto_model_status_t pto_model_run_elf(const pto_model_elf_run_config_t *config);

#ifdef __cplusplus
}
#endif

#endif
