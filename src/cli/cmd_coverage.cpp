// `pto coverage [--json]`: every catalog form and every tile operation with
// its execution status in this model (`executable` or `not-implemented`),
// then the paths inside executable tile operations that still stop as not
// implemented (tile/unexecuted_paths.hpp).
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include "block/control.hpp"
#include "cli/command.hpp"
#include "runner/dispatch.hpp"
#include "tile/tile_ops.hpp"
#include "tile/unexecuted_paths.hpp"

namespace pto::cli {
namespace {

// A form is executable when its mnemonic has a handler; ESAVE/ERCOV/XB are
// executed as the ASL executes them (rejected with Fault_IllegalInstruction).
bool form_executable(const isa::FormDesc& f) {
  if (f.status == isa::FormStatus::ReservedInPto) return true;
  return scalar::handler_table().get(f.mnem) != nullptr;
}

// Every tile operation reaches the generic bundle commit; it executes only
// when a tile::TileKernel is registered for it (otherwise the commit stops
// the run as "not implemented in this model").
bool tile_operation_executable(isa::TileOp op) {
  return block::tile_executor_table().get(op) != nullptr && tile::tile_kernel_table().get(op) != nullptr;
}

const char* status_name(bool executable) { return executable ? "executable" : "not-implemented"; }

int run_coverage(bool json) {
  nlohmann::json forms = nlohmann::json::array();
  std::size_t forms_ok = 0;
  for (const isa::FormDesc& f : isa::catalog_forms()) {
    const bool ok = form_executable(f);
    forms_ok += ok;
    forms.push_back({{"mnemonic", f.mnemonic}, {"form_id", f.form_id}, {"status", status_name(ok)}});
  }
  nlohmann::json ops = nlohmann::json::array();
  std::size_t ops_ok = 0;
  for (std::size_t i = 0; i < isa::kTileOpCount; ++i) {
    const auto op = static_cast<isa::TileOp>(i);
    const bool ok = tile_operation_executable(op);
    ops_ok += ok;
    const isa::TileOpDesc& d = isa::tile_op(op);
    ops.push_back({{"name", d.name}, {"engine", std::string(isa::engine_name(d.engine))}, {"status", status_name(ok)}});
  }
  nlohmann::json paths = nlohmann::json::array();
  for (const tile::UnexecutedPath& p : tile::unexecuted_paths())
    paths.push_back({{"operations", p.operations}, {"condition", p.condition}, {"message", p.message}});
  if (json) {
    fmt::print("{}\n", nlohmann::json{{"forms", forms}, {"tile_operations", ops}, {"unexecuted_paths", paths}}.dump(2));
    return kExitOk;
  }
  for (const auto& f : forms) {
    fmt::print("{:<16} {:<32} {}\n", f["status"].get<std::string>(), f["form_id"].get<std::string>(),
               f["mnemonic"].get<std::string>());
  }
  for (const auto& o : ops) {
    fmt::print("{:<16} {:<32} {}\n", o["status"].get<std::string>(), o["engine"].get<std::string>(),
               o["name"].get<std::string>());
  }
  for (const auto& p : paths) {
    fmt::print("{:<16} {}: {}\n", "not-implemented", p["operations"].get<std::string>(),
               p["condition"].get<std::string>());
  }
  fmt::print("forms: {}/{} executable; tile operations: {}/{} executable; {} paths inside them not implemented\n",
             forms_ok, forms.size(), ops_ok, ops.size(), paths.size());
  return kExitOk;
}

const Registrar reg{"coverage", "List every form and tile operation with its execution status", [](CLI::App* sub) {
  auto json = std::make_shared<bool>(false);
  sub->add_flag("--json", *json, "JSON output");
  return Runner{[json] { return run_coverage(*json); }};
}};

}  // namespace
}  // namespace pto::cli
