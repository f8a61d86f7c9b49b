// `pto run` as the reference runner (PTO-ISA/asl-model runner.py): the step
// and stop contract's edges, host requests, the sidecar, the model lock, the
// run manifest (pto-asl-model-run-v1) and the reference ELF rules.  Expected
// values are derived by hand from the programs (encodings checked against
// the catalog with `pto decode`) and from the reference runner's rules.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "cli_run_harness.hpp"
#include "elf/elf.hpp"
#include "runner/sha256.hpp"

namespace pto::test {
namespace {

// scalar_stop_pc of the reference corpus, laid out from 0x100: C.MOVI 10,
// ->sp; C.MOVI 15, ->a0; ADD sp, a0.sw, ->a1 (25); HL.XORI; C.MOVI pad;
// SW.PCR a1 to 0x200 (word displacement 60 from 0x110).  Six attempts leave
// TPC at 0x114 (`done`).
constexpr const char* kStopPcSource =
    "    .text\n"
    "    .globl _start\n"
    "_start:\n"
    "    .byte 0x96,0x0a,0xd6,0x13,0x85,0x81,0x20,0x00\n"
    "    .byte 0x0e,0x80,0x95,0xc0,0x00,0x00,0x16,0x00\n"
    "    .byte 0x69,0xa0,0xc1,0x03\n"
    "    .globl done\n"
    "done:\n"
    "    .section .result, \"aw\", @progbits, 0x200\n"
    "    .globl out\n"
    "out: .zero 4\n";

// host_exit_group of the reference corpus from 0x100: C.MOVI 7, ->a0;
// ADDI zero, 94, ->a7; BSTART.SYS FALL; ACRC 1 (a type-1 service request
// from ACR2 into ring 1, resuming at the next instruction, `stop`).
constexpr const char* kExitGroupSource =
    "    .text\n"
    "    .globl _start\n"
    "_start:\n"
    "    .byte 0xd6,0x11\n"
    "    .byte 0x95,0x04,0xe0,0x05\n"
    "    .byte 0x81,0x10,0x00,0x00\n"
    "    .byte 0x2b,0x30,0x10,0x00\n"
    "    .globl stop\n"
    "stop:\n"
    "    .byte 0x00,0x00\n"
    "    .section .result, \"aw\", @progbits, 0x200\n"
    "    .globl out\n"
    "out: .byte 0xe7,0x01,0x00,0x00\n";

constexpr const char* kReference = "--profile reference --memory-bytes 65536 ";

struct Hosted {
  fs::path dir;
  CliResult cli;
  nlohmann::json manifest;  // null when none was written
  std::vector<std::uint8_t> result;
};

fs::path assemble(const fs::path& d, const std::string& source) {
  const fs::path s = d / "program.s", elf = d / "program.elf";
  write_bytes(s, std::vector<std::uint8_t>(source.begin(), source.end()));
  const CliResult r = run_pto("as " + quoted(s.string()) + " -o " + quoted(elf.string()) + " --section-start .text=0x100", d);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  return elf;
}

Hosted run_hosted(const std::string& test, const std::string& source, const std::string& args) {
  Hosted h;
  h.dir = scratch_dir(test);
  fs::remove(h.dir / "manifest.json");
  fs::remove(h.dir / "result.bin");
  const fs::path elf = assemble(h.dir, source);
  h.cli = run_pto("run " + quoted(elf.string()) + " " + args + " --manifest-out " + quoted((h.dir / "manifest.json").string()) +
                      " --result-out " + quoted((h.dir / "result.bin").string()),
                  h.dir);
  if (fs::exists(h.dir / "manifest.json")) h.manifest = read_json(h.dir / "manifest.json");
  if (fs::exists(h.dir / "result.bin")) h.result = read_bytes(h.dir / "result.bin");
  return h;
}

const std::string kStopRun = std::string(kReference) + "--stop-symbol done --result-symbol out --result-size 4 ";

TEST(CliRunHosted, StopReachedByTheLastAllowedStepPasses) {
  const Hosted h = run_hosted("last-step", kStopPcSource, kStopRun + "--max-steps 6");
  ASSERT_EQ(h.cli.exit_code, kRunExitStopped) << h.cli.err;
  EXPECT_EQ(h.result, (std::vector<std::uint8_t>{0x19, 0, 0, 0}));
  EXPECT_EQ(h.manifest.at("status"), "passed");
  EXPECT_EQ(h.manifest.at("stop_reached"), true);
  EXPECT_EQ(h.manifest.at("final_tpc"), 0x114);
  EXPECT_EQ(h.manifest.at("pto").at("steps"), 6);
}

TEST(CliRunHosted, OneStepShortIsUnfinished) {
  const Hosted h = run_hosted("short", kStopPcSource, kStopRun + "--max-steps 5");
  EXPECT_EQ(h.cli.exit_code, kRunExitMaxSteps) << h.cli.err;
  EXPECT_EQ(h.manifest.at("status"), "unfinished");
  EXPECT_EQ(h.manifest.at("stop_reached"), false);
  EXPECT_EQ(h.manifest.at("final_tpc"), 0x110);  // before the SW.PCR
  EXPECT_EQ(h.manifest.at("result").at("bytes_hex"), "00000000");
}

// The start PC is never a hit: stopping at _start needs the program to come
// back there, which this one never does (it runs off into zeros: C.BSTOP
// halfwords outside a block fault).
TEST(CliRunHosted, StartPcIsNeverAHit) {
  const Hosted h = run_hosted("start-hit", kStopPcSource,
                              std::string(kReference) + "--stop-symbol _start --max-steps 3");
  EXPECT_NE(h.cli.exit_code, kRunExitStopped) << h.cli.err;
  EXPECT_NE(h.manifest.at("pto").at("steps"), 0);
  EXPECT_EQ(h.manifest.at("stop_reached"), false);
}

TEST(CliRunHosted, ReturnPcWritesRaAndDoesNotStop) {
  const fs::path d = scratch_dir("return-pc");
  const fs::path elf = assemble(d, kStopPcSource);
  const CliResult r = run_pto("run " + quoted(elf.string()) + " " + kStopRun + "--max-steps 6 --return-pc 0x110 --dump-state " +
                                  quoted((d / "state.json").string()),
                              d);
  ASSERT_EQ(r.exit_code, kRunExitStopped) << r.err;  // 0x110 was passed without stopping
  const auto state = read_json(d / "state.json");
  EXPECT_EQ(state.at("gpr").at(0).at(10), "0x0000000000000110");  // ra
}

TEST(CliRunHosted, StartPcZeroMeansTheEntryAndStackTopZeroLeavesSp) {
  const fs::path d = scratch_dir("zeros");
  const fs::path elf = assemble(d, kStopPcSource);
  const CliResult r = run_pto("run " + quoted(elf.string()) + " " + kStopRun +
                                  "--max-steps 6 --start-pc 0 --stack-top 0 --dump-state " + quoted((d / "state.json").string()),
                              d);
  ASSERT_EQ(r.exit_code, kRunExitStopped) << r.err;
  // sp (GPR 1) holds only what the program wrote: C.MOVI 10 then HL.XORI
  // with -0x800000: 10 ^ 0xFFFFFFFFFF800000.
  EXPECT_EQ(read_json(d / "state.json").at("gpr").at(0).at(1), "0xffffffffff80000a");
}

TEST(CliRunHosted, HostRequestEndsTheRunAsPassed) {
  const std::string args = std::string(kReference) +
                           "--start-acr 2 --stack-top 61440 --return-symbol stop --stop-symbol stop --max-steps 4 "
                           "--result-symbol out --result-size 4 --host-request 94,7,1";
  const Hosted h = run_hosted("exit-group", kExitGroupSource, args);
  ASSERT_EQ(h.cli.exit_code, kRunExitStopped) << h.cli.err;
  EXPECT_EQ(h.manifest.at("status"), "passed");
  EXPECT_EQ(h.manifest.at("pto").at("stop_reason"), "host-request");
  EXPECT_EQ(h.manifest.at("final_tpc"), 0x10e);  // the saved trap TPC: `stop`
  EXPECT_EQ(h.manifest.at("stop_policy").at("host_request"),
            (nlohmann::json{{"number", 94}, {"argument0", 7}, {"service_request_type", 1}}));
  EXPECT_EQ(h.result, (std::vector<std::uint8_t>{0xe7, 0x01, 0, 0}));
}

TEST(CliRunHosted, HostRequestThatDoesNotMatchIsARejection) {
  const std::string base = std::string(kReference) +
                           "--start-acr 2 --return-symbol stop --stop-symbol stop --max-steps 4 --host-request ";
  for (const char* request : {"93,7,1", "94,8,1", "94,7,2"}) {
    const Hosted h = run_hosted("exit-group-mismatch", kExitGroupSource, base + request);
    EXPECT_EQ(h.cli.exit_code, kRunExitFault) << request << h.cli.err;
    EXPECT_EQ(h.manifest.at("status"), "failed") << request;
    EXPECT_EQ(h.manifest.at("pto").at("fault").at("code"), "Fault_ServiceRequest") << request;
  }
  // Without a host request the service request is an ordinary rejection.
  const Hosted plain = run_hosted("exit-group-plain", kExitGroupSource,
                                  std::string(kReference) + "--start-acr 2 --stop-symbol stop --max-steps 4");
  EXPECT_EQ(plain.cli.exit_code, kRunExitFault) << plain.cli.err;
}

TEST(CliRunHosted, HostRequestNeedsAReturnPc) {
  const Hosted h = run_hosted("exit-group-noreturn", kExitGroupSource,
                              std::string(kReference) + "--start-acr 2 --max-steps 4 --host-request 94,7,1");
  EXPECT_EQ(h.cli.exit_code, kRunExitUsage) << h.cli.err;
  EXPECT_NE(h.cli.err.find("return PC"), std::string::npos) << h.cli.err;
  EXPECT_TRUE(h.manifest.is_null());  // refused before the run: no manifest
}

TEST(CliRunHosted, UsageErrorsForZeroNegativeAndMalformedCounts) {
  for (const char* args : {"--max-steps 0", "--stop-after-hits 0", "--max-steps -1", "--stop-pc -4", "--max-steps 1.5",
                           "--stop-pc twelve", "--start-acr 16", "--tile-elements 0", "--tile-elements 32769",
                           "--max-steps 18446744073709551616", "--host-request 94,7", "--host-request 94,7,16"}) {
    const Hosted h = run_hosted("usage", kStopPcSource, std::string(kReference) + args);
    EXPECT_EQ(h.cli.exit_code, kRunExitUsage) << args << ": " << h.cli.err;
    EXPECT_TRUE(h.manifest.is_null()) << args;
  }
  // The help's own notation and the Python integer spellings are accepted.
  for (const char* args : {"--stop-symbol done --max-steps 1e3", "--stop-symbol done --max-steps 1_000",
                           "--stop-pc 0x1_14", "--stop-pc 0o424", "--stop-pc 0b100010100"}) {
    const Hosted h = run_hosted("usage-ok", kStopPcSource, std::string(kReference) + args);
    EXPECT_EQ(h.cli.exit_code, kRunExitStopped) << args << ": " << h.cli.err;
  }
}

TEST(CliRunHosted, ManifestHasTheReferenceSchema) {
  const Hosted h = run_hosted("manifest", kStopPcSource, kStopRun + "--max-steps 6 --tile-elements 1");
  ASSERT_EQ(h.cli.exit_code, kRunExitStopped) << h.cli.err;
  const auto& m = h.manifest;
  for (const char* key : {"schema", "status", "stop_reached", "elf", "stop_policy", "start_policy", "model_profile",
                          "final_tpc", "result", "identity", "provenance", "host_timing_ms", "pto"}) {
    EXPECT_TRUE(m.contains(key)) << key;
  }
  EXPECT_EQ(m.size(), 13u);  // no other key without a sidecar
  EXPECT_EQ(m.at("schema"), "pto-asl-model-run-v1");
  const auto elf_bytes = read_bytes(h.dir / "program.elf");
  EXPECT_EQ(m.at("elf").at("sha256"), runner::sha256_hex(elf_bytes));
  EXPECT_EQ(m.at("elf").at("path"), "program.elf");
  EXPECT_EQ(m.at("elf").at("entry"), 0x100);
  EXPECT_EQ(m.at("elf").at("pto_isa_identity").at("release"), "0.58.3");
  EXPECT_EQ(m.at("start_policy"),
            (nlohmann::json{{"start_pc", 0x100}, {"start_acr", 0}, {"return_pc", 0}, {"mode", "elf-entry"}}));
  EXPECT_EQ(m.at("stop_policy").at("stop_pc"), 0x114);
  EXPECT_EQ(m.at("model_profile").at("memory_bytes"), 65536);
  EXPECT_EQ(m.at("model_profile").at("tile_elements"), 1);
  EXPECT_EQ(m.at("result"), (nlohmann::json{{"address", 0x200},
                                            {"size", 4},
                                            {"bytes_hex", "19000000"},
                                            {"sha256", runner::sha256_hex(std::vector<std::uint8_t>{0x19, 0, 0, 0})}}));
  // Written as the reference writes it: two-space indent, sorted keys, newline.
  const std::string text = read_text(h.dir / "manifest.json");
  EXPECT_EQ(text.substr(0, 12), "{\n  \"elf\": {");
  EXPECT_EQ(text.back(), '\n');
}

// The sidecar carries every stepping parameter (the command line's are
// replaced) and is checked against the ELF.
TEST(CliRunHosted, SidecarDrivesTheRunAndIsChecked) {
  const fs::path d = scratch_dir("sidecar");
  const fs::path elf = assemble(d, kStopPcSource);
  const auto elf_bytes = read_bytes(elf);
  const std::vector<std::uint8_t> golden{0x19, 0, 0, 0};
  write_bytes(d / "golden.bin", golden);
  // The symbols the assembler defined: _start 0x100, done 0x114, out 0x200.
  nlohmann::json sidecar = {
      {"schema", "pto-asl-elf-sidecar-v1"},
      {"case_id", "scalar_stop_pc"},
      {"identity", {{"pto_commit", "e599a3d36ebfad43362ff591ea5e128816c684c7"}}},
      {"elf",
       {{"path", "program.elf"},
        {"sha256", runner::sha256_hex(elf_bytes)},
        {"machine", 233},
        {"entry", 0x100},
        {"segments", {{{"address", 0x100}, {"filesz", 20}, {"memsz", 20}, {"flags", 5}},
                      {{"address", 0x200}, {"filesz", 4}, {"memsz", 4}, {"flags", 6}}}}}},
      {"model", {{"profile", "bounded-reference-v1"}, {"pe_count", 1}, {"memory_bytes", 65536}, {"tile_elements", 1},
                 {"runtime_typecheck", "minimal"}}},
      {"start", {{"symbol", "_start"}, {"pc", 0x100}, {"acr", 0}, {"return_symbol", "done"}, {"return_pc", 0x114}}},
      {"execution", {{"stop_symbol", "done"}, {"stop_pc", 0x114}, {"stop_after_hits", 1}, {"max_steps", 6},
                     {"stack_top", 61440}, {"host_request", nullptr}}},
      {"result", {{"symbol", "out"}, {"size_symbol", "out_size"}, {"address", 0x200}, {"size", 4},
                  {"golden", {{"path", "golden.bin"}, {"sha256", runner::sha256_hex(golden)}}}}},
  };
  auto run_with = [&](const nlohmann::json& doc) {
    const std::string text = doc.dump();
    write_bytes(d / "case.sidecar.json", std::vector<std::uint8_t>(text.begin(), text.end()));
    fs::remove(d / "manifest.json");
    // Command-line stepping values that the sidecar must override.
    return run_pto("run --profile reference --max-steps 1 --stop-pc 0x102 --sidecar " + quoted((d / "case.sidecar.json").string()) +
                       " --elf " + quoted(elf.string()) + " --manifest-out " + quoted((d / "manifest.json").string()),
                   d);
  };
  // `out` has no .size yet (st_size 0, not 4): the result-symbol check,
  // which comes before the size symbol's, fails.
  CliResult r = run_with(sidecar);
  EXPECT_EQ(r.exit_code, kRunExitBadInput) << r.err;
  EXPECT_NE(r.err.find("sidecar result symbol mismatch"), std::string::npos) << r.err;
  EXPECT_FALSE(fs::exists(d / "manifest.json"));

  // With the size symbol defined (absolute, = 4) the run passes.
  std::string source = kStopPcSource;
  source += "    .globl out_size\n    .set out_size, 4\n    .size out, 4\n";
  const fs::path elf2 = assemble(d, source);
  const auto elf2_bytes = read_bytes(elf2);
  sidecar["elf"]["sha256"] = runner::sha256_hex(elf2_bytes);
  r = run_with(sidecar);
  ASSERT_EQ(r.exit_code, kRunExitStopped) << r.err;
  const auto m = read_json(d / "manifest.json");
  EXPECT_EQ(m.at("stop_policy").at("max_steps"), 6);
  EXPECT_EQ(m.at("model_profile").at("runtime_typecheck"), "minimal");
  EXPECT_EQ(m.at("sidecar").at("case_id"), "scalar_stop_pc");

  // Each consistency check, broken one at a time.
  const std::vector<std::pair<nlohmann::json::json_pointer, nlohmann::json>> breaks = {
      {nlohmann::json::json_pointer("/schema"), "pto-asl-elf-sidecar-v0"},
      {nlohmann::json::json_pointer("/elf/sha256"), std::string(64, '0')},
      {nlohmann::json::json_pointer("/elf/machine"), 0x5054},
      {nlohmann::json::json_pointer("/elf/entry"), 0x102},
      {nlohmann::json::json_pointer("/elf/segments/0/flags"), 7},
      {nlohmann::json::json_pointer("/identity/pto_commit"), "0000"},
      {nlohmann::json::json_pointer("/model/pe_count"), 4},
      {nlohmann::json::json_pointer("/start/pc"), 0x102},
      {nlohmann::json::json_pointer("/execution/stop_pc"), 0x110},
      {nlohmann::json::json_pointer("/execution/max_steps"), 0},
      {nlohmann::json::json_pointer("/result/golden/sha256"), std::string(64, '0')},
  };
  const std::vector<std::string> messages = {"sidecar schema mismatch",      "sidecar ELF hash mismatch",
                                             "sidecar ELF machine mismatch", "sidecar ELF entry mismatch",
                                             "sidecar PT_LOAD records mismatch", "sidecar PTO identity mismatch",
                                             "unsupported sidecar model profile", "sidecar start symbol mismatch",
                                             "sidecar stop symbol mismatch", "execution.max_steps must be positive",
                                             "golden result hash mismatch"};
  for (std::size_t i = 0; i < breaks.size(); ++i) {
    nlohmann::json broken = sidecar;
    broken[breaks[i].first] = breaks[i].second;
    r = run_with(broken);
    EXPECT_EQ(r.exit_code, kRunExitBadInput) << messages[i] << ": " << r.err;
    EXPECT_NE(r.err.find(messages[i]), std::string::npos) << r.err;
  }
}

TEST(CliRunHosted, LockIsCheckedAgainstThisRelease) {
  const fs::path d = scratch_dir("lock");
  const fs::path elf = assemble(d, kStopPcSource);
  nlohmann::json lock = {{"schema", "pto-asl-model-lock-v1"},
                         {"architecture_version", "0.58.3"},
                         {"encoding_abi", "pto-isa-0.58.3-mode-function-v1"},
                         {"encoding_projection_sha256", "8a48b80e04484c70870f155bf9efc79d2a805cf99e809f4e4e8a7e6a7eb34172"},
                         {"pto_commit", "e599a3d36ebfad43362ff591ea5e128816c684c7"}};
  auto run_with = [&](const nlohmann::json& doc) {
    const std::string text = doc.dump();
    write_bytes(d / "lock.json", std::vector<std::uint8_t>(text.begin(), text.end()));
    return run_pto("run " + quoted(elf.string()) + " " + kStopRun + "--max-steps 6 --lock " + quoted((d / "lock.json").string()) +
                       " --manifest-out " + quoted((d / "manifest.json").string()),
                   d);
  };
  CliResult r = run_with(lock);
  ASSERT_EQ(r.exit_code, kRunExitStopped) << r.err;
  EXPECT_EQ(read_json(d / "manifest.json").at("identity"), lock);  // copied verbatim
  lock["architecture_version"] = "0.58.7";
  r = run_with(lock);
  EXPECT_EQ(r.exit_code, kRunExitBadInput);
  EXPECT_NE(r.err.find("model lock architecture_version mismatch"), std::string::npos) << r.err;
}

// The reference runner's ELF rules, enforced in the reference configuration.
TEST(CliRunHosted, ReferenceElfRules) {
  const fs::path d = scratch_dir("elf-rules");
  const fs::path elf = assemble(d, kStopPcSource);
  auto bytes = read_bytes(elf);
  const auto phoff = bytes[32] | (bytes[33] << 8);
  auto patch = [&](std::vector<std::uint8_t> b, std::size_t at, std::uint64_t v, unsigned n) {
    for (unsigned i = 0; i < n; ++i) b[at + i] = static_cast<std::uint8_t>(v >> (8 * i));
    write_bytes(d / "patched.elf", b);
    return run_pto("run " + quoted((d / "patched.elf").string()) + " " + kStopRun + "--max-steps 6", d);
  };
  // p_paddr of the first PT_LOAD (offset 24 in its header) differs from p_vaddr.
  CliResult r = patch(bytes, static_cast<std::size_t>(phoff) + 24, 0x900, 8);
  EXPECT_EQ(r.exit_code, kRunExitBadInput) << r.err;
  EXPECT_NE(r.err.find("p_paddr 0x900 differs from p_vaddr"), std::string::npos) << r.err;
  // Unknown permission bits in p_flags.
  r = patch(bytes, static_cast<std::size_t>(phoff) + 4, 0x15, 4);
  EXPECT_EQ(r.exit_code, kRunExitBadInput) << r.err;
  EXPECT_NE(r.err.find("permission bits"), std::string::npos) << r.err;
  // Another machine than EM_LINXISA (0xE9) is refused by run and dis.
  r = patch(bytes, 18, 0x5054, 2);
  EXPECT_EQ(r.exit_code, kRunExitBadInput) << r.err;
  EXPECT_NE(r.err.find("ELF machine 0x5054 is not PTO (0xe9)"), std::string::npos) << r.err;
  r = run_pto("dis " + quoted((d / "patched.elf").string()), d);
  EXPECT_NE(r.exit_code, 0);
  EXPECT_NE(r.err.find("0x5054"), std::string::npos) << r.err;
  // The real configuration keeps its own rules: a differing p_paddr loads.
  r = patch(bytes, static_cast<std::size_t>(phoff) + 24, 0x900, 8);
  r = run_pto("run " + quoted((d / "patched.elf").string()) + " --stop-symbol done --max-steps 6", d);
  EXPECT_EQ(r.exit_code, kRunExitStopped) << r.err;
}

// Outputs are checked writes; a result region beyond the host cap is refused
// before anything is allocated.
TEST(CliRunHosted, OutputFailuresAndHugeResultsAreCleanErrors) {
  const fs::path d = scratch_dir("outputs");
  const fs::path elf = assemble(d, kStopPcSource);
  for (const char* option : {"--result-out", "--manifest-out", "--dump-state"}) {
    const CliResult r = run_pto("run " + quoted(elf.string()) + " " + kStopRun + "--max-steps 6 " + option + " /dev/full", d);
    EXPECT_EQ(r.exit_code, kRunExitBadInput) << option << r.err;
    EXPECT_NE(r.err.find("cannot write '/dev/full'"), std::string::npos) << option << r.err;
  }
  const CliResult r = run_pto("run " + quoted(elf.string()) + " --stop-symbol done --result-address 0 --result-size 1e12", d);
  EXPECT_EQ(r.exit_code, kRunExitBadInput) << r.err;
  EXPECT_NE(r.err.find("exceeds the host memory cap"), std::string::npos) << r.err;
  const CliResult z = run_pto("run /dev/zero", d);
  EXPECT_EQ(z.exit_code, kRunExitBadInput) << z.err;
  EXPECT_NE(z.err.find("not a regular file"), std::string::npos) << z.err;
}

TEST(CliRunHosted, AssemblerWritesEmLinxIsa) {
  const fs::path d = scratch_dir("em");
  const auto bytes = read_bytes(assemble(d, kStopPcSource));
  ASSERT_GT(bytes.size(), 20u);
  EXPECT_EQ(bytes[18] | (bytes[19] << 8), 0xE9);
}

}  // namespace
}  // namespace pto::test
