#include "runner/hosted_run.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "elf/elf.hpp"
#include "isa/catalog.hpp"
#include "runner/sha256.hpp"
#include "runner/state_dump.hpp"

namespace pto::runner {
namespace {

using arch::Word;
using nlohmann::json;

// The specification commit of release 0.58.3 (PTO-ISA/pto-spec e599a3d3):
// what a sidecar's identity.pto_commit names when no lock is given.
constexpr const char* kSpecCommit = "e599a3d36ebfad43362ff591ea5e128816c684c7";
constexpr const char* kSidecarSchema = "pto-asl-elf-sidecar-v1";
constexpr const char* kLockSchema = "pto-asl-model-lock-v1";
constexpr const char* kManifestSchema = "pto-asl-model-run-v1";
constexpr std::uint64_t kMaxJsonFileBytes = 16 * 1024 * 1024;
// Program files larger than this are refused before reading (e.g. /dev/zero).
constexpr std::uint64_t kMaxProgramBytes = std::uint64_t{1} << 30;

bool inside(Word address, std::uint64_t size, const LoadedSegment& s) {
  return address >= s.address && address - s.address <= s.memsz && size <= s.memsz - (address - s.address);
}

bool executable_at(const LoadedProgram& p, Word pc) {
  for (const LoadedSegment& s : p.segments) {
    if ((s.flags & elf::PF_X) && pc >= s.address && pc - s.address < s.memsz) return true;
  }
  return false;
}

std::vector<std::uint8_t> read_small_file(const std::string& path, const char* what) {
  return read_input_file(path, kMaxJsonFileBytes, what);
}

json parse_json_file(const std::vector<std::uint8_t>& bytes, const std::string& path, const char* what) {
  try {
    return json::parse(bytes.begin(), bytes.end());
  } catch (const json::exception& e) {
    throw HostedRunError(fmt::format("{} '{}' is not JSON: {}", what, path, e.what()));
  }
}

// ---- sidecar field readers (the reference runner's _natural / _text) ----
const json& member_object(const json& parent, const char* key, const char* label) {
  if (!parent.is_object() || !parent.contains(key) || !parent[key].is_object()) {
    throw HostedRunError(fmt::format("sidecar {} must be an object", label));
  }
  return parent[key];
}

std::uint64_t natural(const json& parent, const char* key, const std::string& label, bool positive = false) {
  const json* v = parent.contains(key) ? &parent[key] : nullptr;
  if (v == nullptr || !v->is_number_integer() || (v->is_number_integer() && !v->is_number_unsigned() && v->get<std::int64_t>() < 0)) {
    throw HostedRunError(fmt::format("sidecar {} must be a non-negative integer", label));
  }
  const auto n = v->get<std::uint64_t>();
  if (positive && n == 0) throw HostedRunError(fmt::format("sidecar {} must be positive", label));
  return n;
}

std::string text(const json& parent, const char* key, const std::string& label) {
  if (!parent.contains(key) || !parent[key].is_string() || parent[key].get<std::string>().empty()) {
    throw HostedRunError(fmt::format("sidecar {} must be non-empty text", label));
  }
  return parent[key].get<std::string>();
}

// The value of the one symbol named `name` (the reference requires exactly one).
const elf::Symbol& unique_symbol(const LoadedProgram& p, const std::string& name) {
  const elf::Symbol* found = nullptr;
  for (const elf::Symbol& s : p.symbols) {
    if (s.name != name) continue;
    if (found != nullptr) throw HostedRunError(fmt::format("ELF must contain exactly one '{}' symbol", name));
    found = &s;
  }
  if (found == nullptr) throw HostedRunError(fmt::format("ELF must contain exactly one '{}' symbol", name));
  return *found;
}

void check_symbol(const LoadedProgram& p, const json& parent, const char* key, const std::string& label, Word expected,
                  const char* mismatch) {
  if (unique_symbol(p, text(parent, key, label)).value != expected) throw HostedRunError(mismatch);
}

json segments_json(const std::vector<LoadedSegment>& segments) {
  json out = json::array();
  for (const LoadedSegment& s : segments) {
    out.push_back({{"address", s.address}, {"filesz", s.filesz}, {"memsz", s.memsz}, {"flags", s.flags}});
  }
  return out;
}

std::string file_name(const std::string& path) { return std::filesystem::path(path).filename().string(); }

double round3(double ms) { return static_cast<double>(static_cast<std::int64_t>(ms * 1000.0 + 0.5)) / 1000.0; }

}  // namespace

std::vector<std::uint8_t> read_input_file(const std::string& path, std::uint64_t max_bytes, const char* what) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) {
    throw HostedRunError(fmt::format("cannot open {} '{}': {}", what, path,
                                     ec ? ec.message() : std::filesystem::exists(path, ec) ? "not a regular file"
                                                                                           : "no such file"));
  }
  const auto size = std::filesystem::file_size(path, ec);
  if (ec) throw HostedRunError(fmt::format("cannot read {} '{}': {}", what, path, ec.message()));
  if (size > max_bytes) throw HostedRunError(fmt::format("{} '{}' is larger than {} bytes", what, path, max_bytes));
  std::ifstream in(path, std::ios::binary);
  if (!in) throw HostedRunError(fmt::format("cannot open {} '{}'", what, path));
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_output_file(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
  out.flush();
  out.close();
  if (!out) throw HostedRunError(fmt::format("cannot write '{}'", path));
}

nlohmann::json optional_file_sha256(const std::string& path) {
  std::error_code ec;
  if (path.empty() || !std::filesystem::is_regular_file(path, ec)) return nullptr;
  return sha256_hex(read_input_file(path, std::uint64_t{1} << 32, "provenance input"));
}

// ---- parameters and start state ----

void validate_run(const HostedRunConfig& c, const LoadedProgram& p, const arch::Machine& m) {
  // build_harness order: budget, hits, ring, result range, start PC, host request.
  if (c.max_steps == 0) throw HostedRunError("max_steps must be positive", true);
  if (c.stop_after_hits == 0) throw HostedRunError("stop_after_hits must be positive", true);
  if (c.start_acr > kAcrMax) throw HostedRunError("start_acr must be a four-bit access-control ring (0..15)", true);
  const Word limit = m.memory.config().address_limit;
  if (c.result_address > limit || c.result_size > limit - c.result_address) {
    throw HostedRunError(fmt::format("result range [{:#x}, +{:#x}) is outside guest memory (limit {:#x})",
                                     c.result_address, c.result_size, limit));
  }
  if (c.result_size > m.memory.config().host_cap_bytes) {
    throw HostedRunError(fmt::format("result size {:#x} exceeds the host memory cap ({:#x} bytes, --memory-cap)",
                                     c.result_size, m.memory.config().host_cap_bytes));
  }
  const Word start = c.start_pc != 0 ? c.start_pc : p.entry;
  if (!executable_at(p, start)) {
    throw HostedRunError(fmt::format("start PC {:#x} is outside an executable PT_LOAD", start));
  }
  if (c.host_request) {
    if (c.return_pc == 0) throw HostedRunError("host request terminal policy is incomplete: it needs a return PC", true);
    if (c.host_request->service_request_type > 15) {
      throw HostedRunError("service request type is outside four bits (0..15)", true);
    }
  }
}

Word real_default_stack_top(const arch::Machine& m) {
  constexpr Word kStackTop = 0x00007FFFFFFF0000;
  return std::min(kStackTop, m.memory.config().address_limit & ~Word{15});
}

Word apply_start_state(arch::Machine& m, const HostedRunConfig& c, const LoadedProgram& p) {
  arch::State& s = m.state;
  m.set_current_acr(static_cast<unsigned>(c.start_acr));  // SetCurrentACR
  s.pc = c.start_pc != 0 ? c.start_pc : p.entry;
  if (c.return_pc != 0) {
    s.return_address = c.return_pc;  // _ReturnAddress
    s.write_gpr(arch::kRegRa, c.return_pc);
  }
  if (c.stack_top != 0) s.write_gpr(arch::kRegSp, c.stack_top);
  return s.pc;
}

std::string_view hosted_status(StopReason r) {
  if (stop_passed(r)) return "passed";
  return r == StopReason::MaxSteps ? "unfinished" : "failed";
}

HostedRunReport run_hosted(arch::Machine& m, const LoadedProgram& p, const HostedRunConfig& c, Observer* observer) {
  validate_run(c, p, m);
  HostedRunReport report;
  report.start_pc = apply_start_state(m, c, p);
  RunLimits limits;
  limits.max_steps = c.max_steps;
  limits.stop_pc = c.stop_pc;
  limits.stop_after_hits = c.stop_after_hits;
  limits.run_trap_handlers = c.run_trap_handlers;
  if (c.host_request) {
    limits.host_request = HostRequest{c.host_request->number, c.host_request->argument0,
                                      static_cast<unsigned>(c.host_request->service_request_type), c.return_pc};
  }
  Executor ex(m);
  if (c.no_translation) ex.set_translation(false);
  const auto t0 = std::chrono::steady_clock::now();
  report.run = ex.run(limits, observer);
  report.run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  // The reference prints the saved trap TPC after a host request.
  report.final_tpc = report.run.reason == StopReason::HostRequest ? m.state.trap_contexts[m.state.current_acr].tpc
                                                                  : report.run.pc;
  report.result.resize(c.result_size);
  m.memory.read_bytes(c.result_address, report.result);
  return report;
}

// ---- sidecar ----

Sidecar load_sidecar(const std::string& path, HostedRunConfig& c) {
  Sidecar s;
  const auto bytes = read_small_file(path, "sidecar");
  s.path = path;
  s.sha256 = sha256_hex(bytes);
  s.document = parse_json_file(bytes, path, "sidecar");
  const json& d = s.document;
  if (!d.is_object()) throw HostedRunError("sidecar root must be an object");
  if (!d.contains("schema") || d["schema"] != kSidecarSchema) throw HostedRunError("sidecar schema mismatch");
  const json& model = member_object(d, "model", "model");
  const json& execution = member_object(d, "execution", "execution");
  const json& start = member_object(d, "start", "start");
  const json& result = member_object(d, "result", "result");
  s.memory_bytes = natural(model, "memory_bytes", "model.memory_bytes", true);
  s.tile_elements = natural(model, "tile_elements", "model.tile_elements", true);
  s.runtime_typecheck = model.contains("runtime_typecheck") ? text(model, "runtime_typecheck", "model.runtime_typecheck")
                                                            : "minimal";
  c.stop_pc = natural(execution, "stop_pc", "execution.stop_pc");
  c.stop_after_hits = natural(execution, "stop_after_hits", "execution.stop_after_hits", true);
  c.max_steps = natural(execution, "max_steps", "execution.max_steps", true);
  c.stack_top = natural(execution, "stack_top", "execution.stack_top");
  c.start_pc = natural(start, "pc", "start.pc");
  c.start_acr = start.contains("acr") ? natural(start, "acr", "start.acr") : 0;
  c.return_pc = natural(start, "return_pc", "start.return_pc");
  c.result_address = natural(result, "address", "result.address");
  c.result_size = natural(result, "size", "result.size", true);
  c.host_request.reset();
  if (execution.contains("host_request") && !execution["host_request"].is_null()) {
    const json& h = member_object(execution, "host_request", "execution.host_request");
    c.host_request = HostRequestPolicy{natural(h, "number", "execution.host_request.number"),
                                       natural(h, "argument0", "execution.host_request.argument0"),
                                       natural(h, "service_request_type", "execution.host_request.service_request_type")};
  }
  return s;
}

void validate_sidecar(const Sidecar& s, const std::string& elf_path, std::span<const std::uint8_t> elf_bytes,
                      const LoadedProgram& p, const HostedRunConfig& c, const std::string& pto_commit) {
  const json& d = s.document;
  const json& e = member_object(d, "elf", "elf");
  if (file_name(text(e, "path", "elf.path")) != file_name(elf_path)) {
    throw HostedRunError("sidecar ELF path does not match the selected ELF");
  }
  if (text(e, "sha256", "elf.sha256") != sha256_hex(elf_bytes)) throw HostedRunError("sidecar ELF hash mismatch");
  if (natural(e, "machine", "elf.machine") != elf::EM_PTO) throw HostedRunError("sidecar ELF machine mismatch");
  if (natural(e, "entry", "elf.entry") != p.entry) throw HostedRunError("sidecar ELF entry mismatch");
  if (!e.contains("segments") || e["segments"] != segments_json(p.segments)) {
    throw HostedRunError("sidecar PT_LOAD records mismatch");
  }
  const json& identity = member_object(d, "identity", "identity");
  if (text(identity, "pto_commit", "identity.pto_commit") != pto_commit) {
    throw HostedRunError("sidecar PTO identity mismatch");
  }
  const json& model = member_object(d, "model", "model");
  if (text(model, "profile", "model.profile") != "bounded-reference-v1" || natural(model, "pe_count", "model.pe_count") != 1) {
    throw HostedRunError("unsupported sidecar model profile or PE count");
  }
  const json& start = member_object(d, "start", "start");
  check_symbol(p, start, "symbol", "start.symbol", c.start_pc, "sidecar start symbol mismatch");
  check_symbol(p, start, "return_symbol", "start.return_symbol", c.return_pc, "sidecar return symbol mismatch");
  const json& execution = member_object(d, "execution", "execution");
  check_symbol(p, execution, "stop_symbol", "execution.stop_symbol", c.stop_pc.value_or(0), "sidecar stop symbol mismatch");
  const json& result = member_object(d, "result", "result");
  const elf::Symbol& rs = unique_symbol(p, text(result, "symbol", "result.symbol"));
  if (rs.value != c.result_address || rs.size != c.result_size) throw HostedRunError("sidecar result symbol mismatch");
  const elf::Symbol& ss = unique_symbol(p, text(result, "size_symbol", "result.size_symbol"));
  if (ss.shndx != elf::SHN_ABS || ss.value != c.result_size) throw HostedRunError("sidecar result-size symbol mismatch");
  bool writable = false;
  for (const LoadedSegment& seg : p.segments) writable |= (seg.flags & elf::PF_W) && inside(c.result_address, c.result_size, seg);
  if (!writable) throw HostedRunError("sidecar result range is not in one writable PT_LOAD");
  const json& golden = member_object(result, "golden", "result.golden");
  const auto golden_path = std::filesystem::path(s.path).parent_path() / text(golden, "path", "result.golden.path");
  const auto golden_bytes = read_small_file(golden_path.string(), "golden result");
  if (golden_bytes.size() != c.result_size) throw HostedRunError("golden result size mismatch");
  if (sha256_hex(golden_bytes) != text(golden, "sha256", "result.golden.sha256")) {
    throw HostedRunError("golden result hash mismatch");
  }
  text(d, "case_id", "case_id");
}

std::string sidecar_pto_commit(const json& lock) {
  return lock.contains("pto_commit") && lock["pto_commit"].is_string() ? lock["pto_commit"].get<std::string>()
                                                                      : std::string(kSpecCommit);
}

// ---- lock ----

json own_model_identity() {
  return {{"schema", kLockSchema},
          {"architecture_version", isa::kRelease},
          {"encoding_abi", isa::kEncodingAbi},
          {"encoding_projection_sha256", isa::kEncodingProjectionSha256},
          {"pto_repository", "PTO-ISA/pto-spec"},
          {"pto_commit", kSpecCommit},
          {"model_abi", "pto-native-v1"}};
}

json load_model_lock(const std::string& path) {
  const auto bytes = read_small_file(path, "model lock");
  json lock = parse_json_file(bytes, path, "model lock");
  if (!lock.is_object() || !lock.contains("schema") || lock["schema"] != kLockSchema) {
    throw HostedRunError("model lock schema mismatch");
  }
  const std::pair<const char*, const char*> fields[] = {{"architecture_version", isa::kRelease},
                                                        {"encoding_abi", isa::kEncodingAbi},
                                                        {"encoding_projection_sha256", isa::kEncodingProjectionSha256}};
  for (const auto& [key, ours] : fields) {
    if (!lock.contains(key) || lock[key] != ours) {
      throw HostedRunError(fmt::format("model lock {} mismatch: this model implements release {} ({})", key,
                                       isa::kRelease, ours));
    }
  }
  return lock;
}

// ---- manifest ----

std::string hex_bytes(std::span<const std::uint8_t> bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (std::uint8_t b : bytes) out += fmt::format("{:02x}", b);
  return out;
}

json run_manifest(const ManifestInputs& in) {
  const LoadedProgram& p = *in.program;
  const HostedRunConfig& c = *in.config;
  const HostedRunReport& r = *in.report;
  json elf_facts = {{"path", file_name(in.program_path)},
                    {"sha256", sha256_hex(in.program_bytes)},
                    {"entry", p.entry},
                    {"segments", segments_json(p.segments)},
                    {"pto_isa_identity", nullptr},
                    {"pto_isa_descriptor_sha256", nullptr}};
  if (p.identity) {
    const std::string descriptor = elf::identity_descriptor_json(*p.identity);
    elf_facts["pto_isa_identity"] = {{"release", p.identity->release},
                                     {"encoding_abi", p.identity->encoding_abi},
                                     {"encoding_projection_sha256", p.identity->encoding_projection_sha256}};
    elf_facts["pto_isa_descriptor_sha256"] =
        sha256_hex(std::span(reinterpret_cast<const std::uint8_t*>(descriptor.data()), descriptor.size()));
  }
  json host_request = nullptr;
  if (c.host_request) {
    host_request = {{"number", c.host_request->number},
                    {"argument0", c.host_request->argument0},
                    {"service_request_type", c.host_request->service_request_type}};
  }
  json m = {
      {"schema", kManifestSchema},
      {"status", std::string(hosted_status(r.run.reason))},
      {"stop_reached", stop_passed(r.run.reason)},
      {"elf", elf_facts},
      {"stop_policy",
       {{"stop_pc", c.stop_pc ? json(*c.stop_pc) : json(nullptr)},
        {"stop_after_hits", c.stop_after_hits},
        {"max_steps", c.max_steps},
        {"host_request", host_request}}},
      {"start_policy",
       {{"start_pc", r.start_pc},
        {"start_acr", c.start_acr},
        {"return_pc", c.return_pc},
        {"mode", c.start_pc != 0 ? "direct-boot" : "elf-entry"}}},
      {"model_profile",
       {{"memory_bytes", in.memory_bytes},
        {"tile_elements", in.tile_elements},
        {"memory_storage", "host-sparse-pages"},
        {"runner_backend", "pto-native-v1"},
        {"runtime_typecheck", in.runtime_typecheck},
        {"reset_policy", "fresh-process-zero-initial-memory"}}},
      {"final_tpc", r.final_tpc},
      {"result",
       {{"address", c.result_address},
        {"size", c.result_size},
        {"bytes_hex", hex_bytes(r.result)},
        {"sha256", sha256_hex(r.result)}}},
      {"identity", in.identity},
      {"provenance", in.provenance},
      {"host_timing_ms", {{"preflight", round3(in.preflight_ms)}, {"aslref", round3(r.run_ms)}, {"total", round3(in.total_ms)}}},
      {"pto", in.pto},
  };
  if (in.sidecar != nullptr) {
    m["sidecar"] = {{"path", file_name(in.sidecar->path)},
                    {"sha256", in.sidecar->sha256},
                    {"case_id", text(in.sidecar->document, "case_id", "case_id")}};
  }
  return m;
}

json pto_run_facts(const arch::Machine& m, const RunResult& r) {
  json fault = nullptr;
  if (r.reason == StopReason::Fault || r.reason == StopReason::HostRequest) {
    fault = {{"code", std::string(arch::fault_name(r.fault))}, {"address", r.fault_address}, {"pc", r.fault_pc}};
  }
  return {{"release", isa::kRelease},
          {"steps", r.steps},
          {"stop_reason", std::string(stop_reason_name(r.reason))},
          {"tpc", r.pc},
          {"fault", fault},
          {"detail", r.detail},
          {"numeric_profile", numeric_profile_name(m.config().numeric_profile)}};
}

std::string manifest_text(const json& manifest) { return manifest.dump(2, ' ', true) + "\n"; }

arch::MachineConfig hosted_reference_config(arch::Word memory_bytes, std::uint64_t tile_elements,
                                            arch::NumericProfileKind numeric_profile) {
  if (memory_bytes < arch::kReferenceModelBytesMin || memory_bytes > arch::kReferenceModelBytesMax) {
    throw HostedRunError(fmt::format("hosted memory bound {} is outside the supported model profile {}..{}", memory_bytes,
                                     arch::kReferenceModelBytesMin, arch::kReferenceModelBytesMax));
  }
  arch::MachineConfig c = arch::MachineConfig::reference(memory_bytes);
  c.numeric_profile = numeric_profile;
  c.set_tile_elements(tile_elements);
  return c;
}

LoadedProgram load_hosted_elf(arch::Machine& m, const std::vector<std::uint8_t>& bytes) {
  auto loaded = load_elf(m, bytes, true);
  if (auto* e = std::get_if<LoadError>(&loaded)) throw HostedRunError(e->message);
  return std::get<LoadedProgram>(std::move(loaded));
}

HostedJobResult run_job(const HostedJob& job) {
  const auto t0 = std::chrono::steady_clock::now();
  auto since_start = [&t0] { return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count(); };
  // The reference runner's order: sidecar, lock, ELF, sidecar checks, parameters.
  HostedRunConfig config = job.config;
  arch::Word memory_bytes = job.memory_bytes;
  std::uint64_t tile_elements = job.tile_elements;
  std::string runtime_typecheck = job.runtime_typecheck;
  std::optional<Sidecar> sidecar;
  if (!job.sidecar_path.empty()) {
    sidecar = load_sidecar(job.sidecar_path, config);
    memory_bytes = sidecar->memory_bytes;
    tile_elements = sidecar->tile_elements;
    runtime_typecheck = sidecar->runtime_typecheck;
  }
  if (tile_elements < arch::kModelTileElementsMin || tile_elements > arch::kModelTileElementsMax) {
    throw HostedRunError("tile_elements must be 1..32768 (PTO_MODEL_TILE_ELEMENTS)", true);
  }
  const json identity = job.lock_path.empty() ? own_model_identity() : load_model_lock(job.lock_path);
  const auto bytes = read_input_file(job.program_path, kMaxProgramBytes, "program");
  HostedJobResult out;
  out.machine = std::make_unique<arch::Machine>(job.make_config(memory_bytes, tile_elements));
  arch::Machine& m = *out.machine;
  out.program = job.load(m, bytes);
  if (sidecar) {
    validate_sidecar(*sidecar, job.program_path, bytes, out.program, config, sidecar_pto_commit(identity));
  } else if (job.resolve) {
    job.resolve(out.program, m, config);
  }
  validate_run(config, out.program, m);
  const double preflight_ms = since_start();
  out.report = run_hosted(m, out.program, config, job.observer);
  if (!job.result_out.empty()) write_output_file(job.result_out, out.report.result);
  if (!job.manifest_out.empty()) {
    ManifestInputs in;
    in.program_path = job.program_path;
    in.program_bytes = bytes;
    in.program = &out.program;
    in.config = &config;
    in.report = &out.report;
    in.memory_bytes = m.memory.config().address_limit;
    in.tile_elements = tile_elements;
    in.runtime_typecheck = runtime_typecheck;
    in.identity = identity;
    in.provenance = job.provenance;
    in.sidecar = sidecar ? &*sidecar : nullptr;
    in.preflight_ms = preflight_ms;
    in.total_ms = since_start();
    in.pto = pto_run_facts(m, out.report.run);
    in.pto.update(job.pto_extra);
    const std::string text = manifest_text(run_manifest(in));
    write_output_file(job.manifest_out, std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  }
  return out;
}

}  // namespace pto::runner
