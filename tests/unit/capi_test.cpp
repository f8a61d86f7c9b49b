// pto_model_run_elf (include/pto/pto_asl_model.h) called in-process from
// the test binary (also under the sanitizers): argument checks, status
// codes, zero as a value, the sidecar path, and the manifest and result
// files of passed, unfinished and failed runs.  The C program in
// tests/install/consumer checks the same ABI through the installed package.
#include <gtest/gtest.h>

#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "test_paths.hpp"
#include "asm/assembler.hpp"
#include "asm/linker_script.hpp"
#include "cli_run_harness.hpp"
#include "elf/elf.hpp"
#include "pto/pto_asl_model.h"

namespace pto::test {
namespace {

static_assert(std::is_standard_layout_v<pto_model_elf_run_config_t>);
static_assert(sizeof(pto_model_elf_run_config_t) == 152);  // LP64 layout of ABI 0x00020000
static_assert(offsetof(pto_model_elf_run_config_t, stop_pc) == 72);
static_assert(offsetof(pto_model_elf_run_config_t, return_pc) == 144);

// The example case scalar_stop_pc laid out by its linker script: six
// attempts from 0x100 store 25 at 0x200 and leave TPC at 0x114.
fs::path write_program(const fs::path& d) {
  const fs::path example = fs::path(PTO_SOURCE_DIR) / "examples" / "cases" / "scalar_stop_pc";
  auto script = as::parse_linker_script(read_text(example / "case.ld"), "case.ld");
  EXPECT_TRUE(std::holds_alternative<as::LinkerScript>(script));
  as::Options options;
  options.linker_script = std::make_shared<const as::LinkerScript>(std::get<as::LinkerScript>(std::move(script)));
  const as::Result r = as::assemble(read_text(example / "source.S"), "source.S", options);
  EXPECT_TRUE(r.ok());
  const fs::path p = d / "program.elf";
  write_bytes(p, elf::write_image(*r.image));
  return p;
}

struct Abi : ::testing::Test {
  fs::path dir = scratch_dir("capi");
  std::string elf = write_program(dir).string();
  std::string manifest = (dir / "manifest.json").string();
  std::string result = (dir / "result.bin").string();
  pto_model_elf_run_config_t c{};

  void SetUp() override {
    fs::remove(manifest);
    fs::remove(result);
    c.abi_version = PTO_ASL_MODEL_ABI_VERSION;
    c.struct_size = sizeof c;
    c.elf_path = elf.c_str();
    c.manifest_output_path = manifest.c_str();
    c.result_output_path = result.c_str();
    c.stop_pc = 0x114;
    c.max_steps = 6;
    c.result_address = 0x200;
    c.result_size = 4;
    c.memory_bytes = 65536;
    c.tile_elements = 32768;
    c.stop_after_hits = 1;
  }
};

TEST_F(Abi, ArgumentChecks) {
  EXPECT_EQ(pto_model_run_elf(nullptr), PTO_MODEL_STATUS_INVALID_ARGUMENT);
  auto bad = c;
  bad.abi_version = 0x00010000;
  EXPECT_EQ(pto_model_run_elf(&bad), PTO_MODEL_STATUS_ABI_MISMATCH);
  bad = c;
  bad.struct_size = sizeof c + 8;
  EXPECT_EQ(pto_model_run_elf(&bad), PTO_MODEL_STATUS_ABI_MISMATCH);
  bad = c;
  bad.elf_path = nullptr;
  EXPECT_EQ(pto_model_run_elf(&bad), PTO_MODEL_STATUS_INVALID_ARGUMENT);
  bad = c;
  bad.manifest_output_path = "";
  EXPECT_EQ(pto_model_run_elf(&bad), PTO_MODEL_STATUS_INVALID_ARGUMENT);
  bad = c;
  bad.max_steps = 0;
  EXPECT_EQ(pto_model_run_elf(&bad), PTO_MODEL_STATUS_INVALID_ARGUMENT);
  EXPECT_FALSE(fs::exists(manifest));
}

TEST_F(Abi, PassedRunWritesResultAndManifest) {
  c.runner_path = "/nonexistent/runner";  // accepted and ignored in-process
  c.asl_spec_path = "/nonexistent/spec.asl";
  ASSERT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_OK);
  EXPECT_EQ(read_bytes(result), (std::vector<std::uint8_t>{0x19, 0, 0, 0}));
  const auto m = read_json(manifest);
  EXPECT_EQ(m.at("status"), "passed");
  EXPECT_EQ(m.at("final_tpc"), 0x114);
  EXPECT_EQ(m.at("provenance").at("pto_asl_sha256"), nullptr);
}

TEST_F(Abi, ZeroIsAValueNotADefault) {
  c.stop_pc = 0;  // a stop at PC 0, never reached: the budget runs out
  EXPECT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_WORKER_FAILED);
  EXPECT_EQ(read_json(manifest).at("status"), "unfinished");
  c.stop_pc = 0x114;
  c.tile_elements = 0;
  fs::remove(manifest);
  EXPECT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_WORKER_FAILED);
  EXPECT_FALSE(fs::exists(manifest));  // refused before the run
  c.tile_elements = 32768;
  c.stop_after_hits = 0;
  EXPECT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_WORKER_FAILED);
  c.stop_after_hits = 1;
  c.memory_bytes = 255;
  EXPECT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_WORKER_FAILED);
}

TEST_F(Abi, FailedAndRefusedRuns) {
  c.max_steps = 5;
  EXPECT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_WORKER_FAILED);
  EXPECT_EQ(read_json(manifest).at("status"), "unfinished");
  c.max_steps = 6;
  c.lock_path = "/nonexistent/lock.json";
  EXPECT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_WORKER_FAILED);
  c.lock_path = nullptr;
  c.elf_path = "/nonexistent/program.elf";
  EXPECT_EQ(pto_model_run_elf(&c), PTO_MODEL_STATUS_WORKER_FAILED);
}

}  // namespace
}  // namespace pto::test
