/* A C program compiled against the installed <pto/pto_asl_model.h> and
 * linked with libpto_model: the ABI's argument checks and status codes, and
 * real runs whose result bytes and manifest status are checked.
 * Usage: abi_c ELF SCRATCH_DIR STOP_PC STEPS_TO_STOP RESULT_ADDRESS RESULT_HEX */
#include <pto/pto_asl_model.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures = 0, passes = 0;

static void expect(int ok, const char* what) {
  if (ok) {
    ++passes;
  } else {
    ++failures;
    fprintf(stderr, "abi_c: FAILED: %s\n", what);
  }
}

static long read_file(const char* path, char* out, long capacity) {
  FILE* f = fopen(path, "rb");
  if (f == NULL) return -1;
  long n = (long)fread(out, 1, (size_t)capacity - 1, f);
  fclose(f);
  out[n < 0 ? 0 : n] = '\0';
  return n;
}

static pto_model_elf_run_config_t base_config(const char* elf, const char* manifest, const char* result,
                                              unsigned long long stop_pc, unsigned long long steps,
                                              unsigned long long result_address, unsigned long long result_size) {
  pto_model_elf_run_config_t c;
  memset(&c, 0, sizeof c);
  c.abi_version = PTO_ASL_MODEL_ABI_VERSION;
  c.struct_size = (uint32_t)sizeof c;
  c.runner_path = "unused-runner";
  c.asl_spec_path = "unused-spec.asl";
  c.aslref_path = "unused-aslref";
  c.elf_path = elf;
  c.manifest_output_path = manifest;
  c.result_output_path = result;
  c.stop_pc = stop_pc;
  c.max_steps = steps;
  c.result_address = result_address;
  c.result_size = result_size;
  c.memory_bytes = 65536;
  c.tile_elements = 32768;
  c.stop_after_hits = 1;
  return c;
}

int main(int argc, char** argv) {
  if (argc != 7) {
    fprintf(stderr, "usage: abi_c ELF SCRATCH_DIR STOP_PC STEPS_TO_STOP RESULT_ADDRESS RESULT_HEX\n");
    return 2;
  }
  const char* elf = argv[1];
  char manifest[4096], result[4096], text[65536];
  snprintf(manifest, sizeof manifest, "%s/manifest.json", argv[2]);
  snprintf(result, sizeof result, "%s/result.bin", argv[2]);
  const unsigned long long stop_pc = strtoull(argv[3], NULL, 0), steps = strtoull(argv[4], NULL, 0);
  const unsigned long long result_address = strtoull(argv[5], NULL, 0);
  const char* result_hex = argv[6];
  const unsigned long long result_size = strlen(result_hex) / 2;

  /* The layout the reference header fixes: 8 bytes of versions, 8 pointers, 10 words. */
  expect(sizeof(pto_model_elf_run_config_t) == 8 + 8 * sizeof(void*) + 10 * 8, "struct layout");

  pto_model_elf_run_config_t c = base_config(elf, manifest, result, stop_pc, steps, result_address, result_size);
  expect(pto_model_run_elf(NULL) == PTO_MODEL_STATUS_INVALID_ARGUMENT, "NULL config is INVALID_ARGUMENT");
  c.abi_version = 0x00010000;
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_ABI_MISMATCH, "old ABI version is ABI_MISMATCH");
  c.abi_version = PTO_ASL_MODEL_ABI_VERSION;
  c.struct_size -= 8;
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_ABI_MISMATCH, "short struct is ABI_MISMATCH");
  c.struct_size += 8;
  c.elf_path = "";
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_INVALID_ARGUMENT, "empty ELF path is INVALID_ARGUMENT");
  c.elf_path = elf;
  c.manifest_output_path = NULL;
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_INVALID_ARGUMENT, "no manifest path is INVALID_ARGUMENT");
  c.manifest_output_path = manifest;
  c.max_steps = 0;
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_INVALID_ARGUMENT, "max_steps 0 without sidecar");
  c.max_steps = steps;

  /* The run passes with exactly the steps it needs; the result bytes and
   * the manifest say so. */
  remove(manifest);
  remove(result);
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_OK, "the run passes");
  char bytes[256];
  const long n = read_file(result, bytes, sizeof bytes);
  char hex[520] = "";
  for (long i = 0; i < n && i < 255; ++i) snprintf(hex + 2 * i, 3, "%02x", (unsigned char)bytes[i]);
  expect(n == (long)result_size && strcmp(hex, result_hex) == 0, "result bytes");
  expect(read_file(manifest, text, sizeof text) > 0 && strstr(text, "\"schema\": \"pto-asl-model-run-v1\"") != NULL &&
             strstr(text, "\"status\": \"passed\"") != NULL,
         "manifest says passed");

  /* One step short: unfinished, WORKER_FAILED, and the manifest says so. */
  c.max_steps = steps - 1;
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_WORKER_FAILED, "one step short fails");
  expect(read_file(manifest, text, sizeof text) > 0 && strstr(text, "\"status\": \"unfinished\"") != NULL,
         "manifest says unfinished");
  c.max_steps = steps;

  /* Zero is a value: memory_bytes 0 is outside the model profile. */
  c.memory_bytes = 0;
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_WORKER_FAILED, "memory_bytes 0 fails");
  c.memory_bytes = 65536;
  c.elf_path = "/nonexistent/program.elf";
  expect(pto_model_run_elf(&c) == PTO_MODEL_STATUS_WORKER_FAILED, "a missing ELF fails");

  printf("%d passed, %d failed\n", passes, failures);
  return failures == 0 ? 0 : 1;
}
