// ASL names of the model's per-form scalar facts, shared by the spec-vector
// tests that check InstructionContract* and ScalarAGU*OfForm assertions
// against the model's decode and its generated AGU table.
#pragma once

#include <cctype>
#include <string>
#include <string_view>

#include "scalar/tables.hpp"

namespace pto::test {

// The ASL identifier of a mnemonic: every run of non-alphanumerics is '_'.
inline std::string asl_id(std::string_view mnemonic) {
  std::string out;
  for (const char c : mnemonic) {
    if (std::isalnum(static_cast<unsigned char>(c))) out += c;
    else if (out.empty() || out.back() != '_') out += '_';
  }
  return out;
}

// ScalarAGUAction / ScalarAGUAddressKind / AddressUpdateMode without their
// ASL prefixes (ScalarAGU_, ScalarAGU_, AddressUpdate_).
inline const char* agu_action_name(scalar::AguAction a) {
  constexpr const char* kNames[] = {"Load", "LoadPair", "Store", "StorePair", "Prefetch"};
  return kNames[static_cast<unsigned>(a)];
}
inline const char* agu_address_kind_name(scalar::AguAddressKind k) {
  constexpr const char* kNames[] = {"Immediate", "Register", "PCRelative", "Compressed"};
  return kNames[static_cast<unsigned>(k)];
}
inline const char* address_update_name(scalar::AddressUpdate u) {
  constexpr const char* kNames[] = {"None", "PreIndex", "PostIndex"};
  return kNames[static_cast<unsigned>(u)];
}

// The generated AGU table entry of a mnemonic, or null.
inline const scalar::AguForm* agu_form_entry(isa::Mnemonic m) {
  for (const scalar::AguForm& a : scalar::agu_forms()) {
    if (a.mnemonic == m) return &a;
  }
  return nullptr;
}

}  // namespace pto::test
