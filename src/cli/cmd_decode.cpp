// `pto decode [--length N] [--json] WORD...`: decode raw instruction words.
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <iostream>
#include <string>
#include <vector>

#include "cli/command.hpp"
#include "cli/hex_word.hpp"
#include "dis/render.hpp"
#include "isa/decoder.hpp"
#include "isa/length.hpp"
#include "isa/tile_start.hpp"

namespace pto::cli {
namespace {

struct DecodeOptions {
  unsigned length = 0;
  bool json = false;
  std::vector<std::string> words;
};


unsigned length_of(const HexWord& w) {
  return isa::instruction_length_bits([&](unsigned i) -> std::optional<std::uint16_t> {
    if (i >= std::max(w.halfwords, 1u)) return std::nullopt;
    return static_cast<std::uint16_t>(w.value >> (16 * i));
  });
}

std::string status_message(const isa::Decoded& d, std::uint64_t bits) {
  switch (d.status) {
    case isa::DecodeStatus::ExtensionReserved:
      return fmt::format("reserved: {} ({})", d.desc().mnemonic, d.desc().owner);
    case isa::DecodeStatus::ReservedInPto:
      return fmt::format("reserved in PTO: {} decodes but is rejected by the 0.58.3 model", d.desc().mnemonic);
    case isa::DecodeStatus::ReservedTileSelector:
      return fmt::format("reserved: BSTART.TEPL selector {:#05x} (Mode {}, Function {}) names no tile operation",
                         isa::tile_start_selector(bits), isa::tile_start_selector(bits) >> 5,
                         isa::tile_start_selector(bits) & 0x1F);
    case isa::DecodeStatus::ConstraintViolation: {
      const auto& f = d.desc();
      for (const auto& c : isa::constraints_of(f)) {
        if (c.field == d.failed_field) {
          return fmt::format("illegal: {} (got {})", isa::describe_constraint(f, c),
                             isa::field_value(isa::fields_of(f)[c.field], bits));
        }
      }
      return "illegal: constraint violation";
    }
    case isa::DecodeStatus::NoForm: return "no form matches";
    case isa::DecodeStatus::Accepted: return "ok";
  }
  return "?";
}

nlohmann::json to_json(const isa::Decoded& d, std::uint64_t bits, unsigned length) {
  nlohmann::json j;
  j["bits"] = fmt::format("{:#0{}x}", bits, length / 4 + 2);
  j["length_bits"] = length;
  j["status"] = std::string(isa::decode_status_name(d.status));
  if (d.status == isa::DecodeStatus::NoForm) return j;
  const auto& f = d.desc();
  j["mnemonic"] = f.mnemonic;
  j["form_id"] = f.form_id;
  nlohmann::json fields = nlohmann::json::object();
  for (const auto& fd : isa::fields_of(f)) fields[fd.name] = isa::field_value(fd, bits);
  j["fields"] = fields;
  if (d.status == isa::DecodeStatus::ExtensionReserved) {
    j["owner"] = f.owner;
  } else {
    j["family"] = std::string(isa::family_name(f.family));
    j["constraints_hold"] = d.status != isa::DecodeStatus::ConstraintViolation;
    j["text"] = dis::render_standalone(d, bits);
  }
  if (d.ok() && isa::is_tile_start(f)) {
    if (auto op = isa::tile_op_of_start(bits)) {
      const auto& t = isa::tile_op(*op);
      j["tile_operation"] = {{"name", t.name}, {"engine", std::string(isa::engine_name(t.engine))},
                             {"data_type_code", isa::tile_start_data_type(bits)}};
    }
  }
  if (!d.ok()) j["message"] = status_message(d, bits);
  return j;
}

void print_text(const isa::Decoded& d, std::uint64_t bits, unsigned length) {
  fmt::print("{:#0{}x}  length={}", bits, length / 4 + 2, length);
  if (d.status == isa::DecodeStatus::NoForm) {
    fmt::print("  {}\n", status_message(d, bits));
    return;
  }
  const auto& f = d.desc();
  fmt::print("  {}  form={}  status={}\n", f.mnemonic, f.form_id, isa::decode_status_name(d.status));
  for (const auto& fd : isa::fields_of(f)) {
    fmt::print("  field {:<12} = {}\n", fd.name, isa::field_value(fd, bits));
  }
  if (d.ok() && isa::is_tile_start(f)) {
    if (auto op = isa::tile_op_of_start(bits)) {
      const auto& t = isa::tile_op(*op);
      fmt::print("  tile operation {} on {}, data type code {}\n", t.name, isa::engine_name(t.engine),
                 isa::tile_start_data_type(bits));
    }
  }
  if (d.status != isa::DecodeStatus::ExtensionReserved) {
    fmt::print("  text: {}\n", dis::render_standalone(d, bits));
  }
  if (!d.ok()) fmt::print("  {}\n", status_message(d, bits));
}

int run_decode(const DecodeOptions& opt) {
  std::vector<std::string> words = opt.words;
  if (words.empty()) {
    std::string w;
    while (std::cin >> w) words.push_back(w);
  }
  int rc = kExitOk;
  nlohmann::json all = nlohmann::json::array();
  for (const std::string& text : words) {
    const auto w = parse_hex_word(text);
    if (!w) {
      fmt::print(stderr, "pto decode: error: '{}' is not a hexadecimal instruction word\n", text);
      rc = kExitUsage;
      continue;
    }
    const unsigned length = opt.length ? opt.length : length_of(*w);
    const std::uint64_t bits = w->value & isa::length_mask(length);
    if (bits != w->value) {
      fmt::print(stderr, "pto decode: error: '{}' has bits beyond its {}-bit length\n", text, length);
      rc = kExitUsage;
      continue;
    }
    const isa::Decoded d = isa::decode(bits, length);
    if (!d.ok() && rc == kExitOk) rc = kExitFailure;
    if (opt.json) {
      all.push_back(to_json(d, bits, length));
    } else {
      print_text(d, bits, length);
    }
  }
  if (opt.json) fmt::print("{}\n", all.dump(2));
  return rc;
}

const Registrar reg{"decode", "Decode instruction words (hex; read from stdin when none given)", [](CLI::App* sub) {
  auto opt = std::make_shared<DecodeOptions>();
  sub->add_option("--length", opt->length, "Instruction length in bits (default: the length rule)")
      ->check(CLI::IsMember({16, 32, 48, 64}));
  sub->add_flag("--json", opt->json, "JSON output");
  sub->add_option("words", opt->words, "Instruction words in hex, e.g. 0xC8019181");
  return Runner{[opt] { return run_decode(*opt); }};
}};

}  // namespace
}  // namespace pto::cli
