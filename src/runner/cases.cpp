#include "runner/cases.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <memory>
#include <regex>
#include <stdexcept>

#include "asm/assembler.hpp"
#include "asm/linker_script.hpp"
#include "elf/elf.hpp"
#include "isa/catalog.hpp"
#include "runner/hosted_run.hpp"
#include "runner/sha256.hpp"

namespace pto::runner {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

constexpr const char* kCaseSchema = "pto-avs-case-v1";
constexpr std::uint64_t kMaxCaseFileBytes = 64 * 1024 * 1024;

// A case that cannot run here; not a failure.
struct Skip {
  std::string reason;
};

std::string text_of(const std::vector<std::uint8_t>& bytes) { return {bytes.begin(), bytes.end()}; }

const json& field(const json& parent, const char* key, const char* where) {
  if (!parent.is_object() || !parent.contains(key)) {
    throw HostedRunError(fmt::format("case.yaml: {} lacks \"{}\"", where, key));
  }
  return parent[key];
}

std::string string_field(const json& parent, const char* key, const char* where) {
  const json& v = field(parent, key, where);
  if (!v.is_string()) throw HostedRunError(fmt::format("case.yaml: {}.{} must be a string", where, key));
  return v.get<std::string>();
}

std::uint64_t count_field(const json& parent, const char* key, const char* where, std::uint64_t minimum) {
  const json& v = field(parent, key, where);
  if (!v.is_number_unsigned() || v.get<std::uint64_t>() < minimum) {
    throw HostedRunError(fmt::format("case.yaml: {}.{} must be an integer >= {}", where, key, minimum));
  }
  return v.get<std::uint64_t>();
}

// case.yaml is the JSON form of YAML 1.2 the corpus uses ("a deterministic
// subset requiring no runtime YAML parser").
json read_case_file(const fs::path& directory) {
  const auto bytes = read_input_file((directory / "case.yaml").string(), kMaxCaseFileBytes, "case file");
  try {
    json doc = json::parse(bytes.begin(), bytes.end());
    if (!doc.is_object()) throw HostedRunError("case.yaml: the document must be an object");
    return doc;
  } catch (const json::exception& e) {
    throw HostedRunError(fmt::format("case.yaml is not in the corpus's JSON form of YAML: {}", e.what()));
  }
}

// The release a profile name carries ("pto-reference-0.58.7-v1"), if any.
std::optional<std::string> profile_release(const std::string& profile) {
  static const std::regex release(R"((\d+\.\d+\.\d+))");
  std::smatch m;
  if (std::regex_search(profile, m, release)) return m[1].str();
  return std::nullopt;
}

void check_runnable(const json& doc) {
  const std::string source = string_field(doc, "source", "case");
  const std::string ext = fs::path(source).extension().string();
  if (ext != ".S" && ext != ".s" && ext != ".asm") {
    throw Skip{fmt::format("needs a compiler: lane {} source {} (pto assembles .S/.s sources only)",
                           string_field(doc, "lane", "case"), source)};
  }
  if (auto r = profile_release(string_field(doc, "profile", "case")); r && *r != isa::kRelease) {
    throw Skip{fmt::format("names release {} (profile {}); this model implements {}", *r,
                           string_field(doc, "profile", "case"), isa::kRelease)};
  }
}

// The golden bytes, after checking the file's SHA-256 (over the file as
// stored, as the corpus records it).
std::vector<std::uint8_t> read_golden(const fs::path& directory, const json& golden) {
  const std::string path = string_field(golden, "path", "golden");
  const auto bytes = read_input_file((directory / path).string(), kMaxCaseFileBytes, "golden file");
  if (sha256_hex(bytes) != string_field(golden, "sha256", "golden")) {
    throw HostedRunError(fmt::format("golden file {} does not have the SHA-256 case.yaml records", path));
  }
  const std::string encoding = string_field(golden, "encoding", "golden");
  if (encoding == "raw") return bytes;
  if (encoding != "hex") throw HostedRunError(fmt::format("golden encoding '{}' is neither raw nor hex", encoding));
  std::vector<std::uint8_t> out;
  int high = -1;
  for (const std::uint8_t c : bytes) {
    if (c == ' ' || c == '\n' || c == '\r' || c == '\t') continue;
    const int v = std::isxdigit(c) ? (std::isdigit(c) ? c - '0' : (std::tolower(c) - 'a' + 10)) : -1;
    if (v < 0) throw HostedRunError(fmt::format("golden file {} is not hexadecimal text", path));
    if (high < 0) {
      high = v;
    } else {
      out.push_back(static_cast<std::uint8_t>(high << 4 | v));
      high = -1;
    }
  }
  if (high >= 0) throw HostedRunError(fmt::format("golden file {} has an odd number of hex digits", path));
  return out;
}

// Assembles the source with the case's linker script into `elf_path`.
void build_case(const fs::path& directory, const json& doc, const fs::path& elf_path) {
  const std::string source_name = string_field(doc, "source", "case");
  const std::string script_name = string_field(doc, "linker_script", "case");
  const auto source = read_input_file((directory / source_name).string(), kMaxCaseFileBytes, "case source");
  const auto script = read_input_file((directory / script_name).string(), kMaxCaseFileBytes, "linker script");
  auto parsed = as::parse_linker_script(text_of(script), (directory / script_name).string());
  if (auto* d = std::get_if<as::Diagnostic>(&parsed)) throw HostedRunError("linker script: " + d->format());
  as::Options options;
  options.linker_script = std::make_shared<const as::LinkerScript>(std::get<as::LinkerScript>(std::move(parsed)));
  const as::Result r = as::assemble(text_of(source), (directory / source_name).string(), options);
  if (!r.ok()) {
    std::string message = "assembly failed:";
    for (std::size_t i = 0; i < r.diagnostics.size() && i < 5; ++i) message += "\n" + r.diagnostics[i].format();
    throw HostedRunError(message);
  }
  write_output_file(elf_path.string(), elf::write_image(*r.image));
}

const elf::Symbol& case_symbol(const LoadedProgram& p, const std::string& name, const char* role) {
  const elf::Symbol* found = nullptr;
  for (const elf::Symbol& s : p.symbols) {
    if (s.name != name || s.shndx == elf::SHN_UNDEF) continue;
    if (found != nullptr) throw HostedRunError(fmt::format("{} symbol '{}' is defined twice", role, name));
    found = &s;
  }
  if (found == nullptr) throw HostedRunError(fmt::format("{} symbol '{}' is not defined", role, name));
  return *found;
}

// execution.*_symbol resolved through the ELF's symbols, as the corpus's
// closure does before it writes the sidecar.
void resolve_case_symbols(const json& execution, const LoadedProgram& p, HostedRunConfig& c) {
  auto value = [&](const char* key, const char* role) {
    return case_symbol(p, string_field(execution, key, "execution"), role).value;
  };
  c.start_pc = value("start_symbol", "start");
  c.return_pc = value("return_symbol", "return");
  c.stop_pc = value("stop_symbol", "stop");
  const elf::Symbol& result = case_symbol(p, string_field(execution, "result_symbol", "execution"), "result");
  const elf::Symbol& size = case_symbol(p, string_field(execution, "result_size_symbol", "execution"), "result-size");
  if (size.shndx != elf::SHN_ABS) throw HostedRunError(fmt::format("result-size symbol '{}' is not absolute", size.name));
  if (result.size != size.value) {
    throw HostedRunError(fmt::format("result symbol '{}' has size {} but '{}' = {}", result.name, result.size, size.name,
                                     size.value));
  }
  c.result_address = result.value;
  c.result_size = size.value;
}

HostedJob case_job(const json& doc, const fs::path& work, const CaseOptions& options) {
  const json& execution = field(doc, "execution", "case");
  const json& model = field(doc, "model", "case");
  HostedJob job;
  job.program_path = (work / "case.elf").string();
  job.manifest_out = (work / "model-run.json").string();
  job.result_out = (work / "result.bin").string();
  job.config.max_steps = count_field(execution, "max_steps", "execution", 1);
  job.config.stop_after_hits = count_field(execution, "stop_after_hits", "execution", 1);
  job.config.stack_top = count_field(execution, "stack_top", "execution", 1);
  job.config.start_acr = count_field(execution, "start_acr", "execution", 0);
  const json& request = field(execution, "host_request", "execution");
  if (!request.is_null()) {
    job.config.host_request = HostRequestPolicy{count_field(request, "number", "execution.host_request", 0),
                                                count_field(request, "argument0", "execution.host_request", 0),
                                                count_field(request, "service_request_type", "execution.host_request", 0)};
  }
  job.memory_bytes = count_field(model, "memory_bytes", "model", 1);
  job.tile_elements = count_field(model, "tile_elements", "model", 1);
  job.runtime_typecheck = string_field(model, "runtime_typecheck", "model");
  const auto profile = options.numeric_profile;
  job.make_config = [profile](arch::Word memory_bytes, std::uint64_t tile_elements) {
    return hosted_reference_config(memory_bytes, tile_elements, profile);
  };
  job.load = load_hosted_elf;
  job.resolve = [execution](const LoadedProgram& p, const arch::Machine&, HostedRunConfig& c) {
    resolve_case_symbols(execution, p, c);
  };
  job.pto_extra = {{"case_id", string_field(doc, "case_id", "case")}};
  return job;
}

std::string golden_difference(const std::vector<std::uint8_t>& got, const std::vector<std::uint8_t>& want) {
  if (got.size() != want.size()) return fmt::format("result has {} bytes, the golden {}", got.size(), want.size());
  const auto at = std::mismatch(got.begin(), got.end(), want.begin()).first - got.begin();
  return fmt::format("result differs from the golden at byte {}: got {:#04x}, expected {:#04x} (got {}, expected {})", at,
                     got[static_cast<std::size_t>(at)], want[static_cast<std::size_t>(at)], hex_bytes(got),
                     hex_bytes(want));
}

// A scratch directory that is removed with this object unless the caller
// named one.
struct WorkDirectory {
  fs::path path;
  bool owned = false;
  WorkDirectory(const fs::path& requested, const std::string& case_id) {
    if (!requested.empty()) {
      path = requested / case_id;
    } else {
      path = fs::temp_directory_path() /
             fmt::format("pto-case-{}-{}", case_id, std::chrono::steady_clock::now().time_since_epoch().count());
      owned = true;
    }
    fs::create_directories(path);
  }
  ~WorkDirectory() {
    std::error_code ec;
    if (owned) fs::remove_all(path, ec);
  }
};

void run_checked_case(const json& doc, const fs::path& directory, const CaseOptions& options, CaseOutcome& out) {
  if (!doc.contains("schema") || doc["schema"] != kCaseSchema) {
    throw HostedRunError(fmt::format("case.yaml schema is not {}", kCaseSchema));
  }
  out.case_id = string_field(doc, "case_id", "case");
  if (out.case_id != directory.filename().string()) {
    throw HostedRunError(fmt::format("case_id '{}' differs from its directory name '{}'", out.case_id,
                                     directory.filename().string()));
  }
  check_runnable(doc);
  const json& golden_spec = field(doc, "golden", "case");
  const auto golden = read_golden(directory, golden_spec);
  WorkDirectory work(options.work_directory, out.case_id);
  build_case(directory, doc, work.path / "case.elf");
  const HostedJobResult done = run_job(case_job(doc, work.path, options));
  const RunResult& r = done.report.run;
  out.steps = r.steps;
  out.final_tpc = done.report.final_tpc;
  if (!stop_passed(r.reason)) {
    out.reason = fmt::format("run {} after {} steps{}{}", hosted_status(r.reason), r.steps, r.detail.empty() ? "" : ": ",
                             r.detail.empty() ? std::string(stop_reason_name(r.reason)) : r.detail);
    return;
  }
  if (done.report.result != golden) {
    out.reason = golden_difference(done.report.result, golden);
    return;
  }
  out.status = CaseStatus::Passed;
  out.reason = fmt::format("{} after {} steps, final TPC {:#x}", stop_reason_name(r.reason), r.steps, done.report.final_tpc);
}

std::string xml_escaped(std::string_view s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 && c != '\n' && c != '\t') {
          out += fmt::format("&#{};", static_cast<int>(c));
        } else {
          out += c;
        }
    }
  }
  return out;
}

}  // namespace

std::string_view case_status_name(CaseStatus s) {
  switch (s) {
    case CaseStatus::Passed: return "passed";
    case CaseStatus::Failed: return "failed";
    case CaseStatus::Skipped: return "skipped";
  }
  return "?";
}

std::vector<fs::path> discover_cases(const std::vector<fs::path>& roots) {
  std::vector<fs::path> out;
  for (const fs::path& root : roots) {
    std::error_code ec;
    if (!fs::is_directory(root, ec)) throw std::runtime_error(fmt::format("'{}' is not a directory", root.string()));
    if (fs::exists(root / "case.yaml", ec)) {
      out.push_back(root);
      continue;
    }
    for (const fs::directory_entry& e : fs::directory_iterator(root, ec)) {
      if (e.is_directory() && fs::exists(e.path() / "case.yaml")) out.push_back(e.path());
    }
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

CaseOutcome run_case(const fs::path& directory, const CaseOptions& options) {
  CaseOutcome out;
  out.directory = directory;
  out.case_id = directory.filename().string();
  const auto t0 = std::chrono::steady_clock::now();
  try {
    run_checked_case(read_case_file(directory), directory, options, out);
  } catch (const Skip& s) {
    out.status = CaseStatus::Skipped;
    out.reason = s.reason;
  } catch (const std::exception& e) {
    out.status = CaseStatus::Failed;
    out.reason = e.what();
  }
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return out;
}

json cases_json(const std::vector<CaseOutcome>& outcomes) {
  json out = json::array();
  for (const CaseOutcome& o : outcomes) {
    out.push_back({{"case_id", o.case_id},
                   {"directory", o.directory.string()},
                   {"status", std::string(case_status_name(o.status))},
                   {"reason", o.reason},
                   {"steps", o.steps},
                   {"final_tpc", o.final_tpc ? json(*o.final_tpc) : json(nullptr)},
                   {"seconds", o.seconds}});
  }
  return out;
}

std::string cases_junit(const std::vector<CaseOutcome>& outcomes) {
  const auto count = [&](CaseStatus s) {
    return std::count_if(outcomes.begin(), outcomes.end(), [s](const CaseOutcome& o) { return o.status == s; });
  };
  double total = 0;
  for (const CaseOutcome& o : outcomes) total += o.seconds;
  std::string x = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
  x += fmt::format("<testsuites>\n<testsuite name=\"pto-cases\" tests=\"{}\" failures=\"{}\" skipped=\"{}\" time=\"{:.3f}\">\n",
                   outcomes.size(), count(CaseStatus::Failed), count(CaseStatus::Skipped), total);
  for (const CaseOutcome& o : outcomes) {
    x += fmt::format("<testcase classname=\"pto.cases\" name=\"{}\" time=\"{:.3f}\"", xml_escaped(o.case_id), o.seconds);
    if (o.status == CaseStatus::Passed) {
      x += "/>\n";
    } else {
      x += fmt::format(">\n<{} message=\"{}\"/>\n</testcase>\n", o.status == CaseStatus::Failed ? "failure" : "skipped",
                       xml_escaped(o.reason));
    }
  }
  x += "</testsuite>\n</testsuites>\n";
  return x;
}

}  // namespace pto::runner
