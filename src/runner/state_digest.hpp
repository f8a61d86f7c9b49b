// A compact digest of the architectural state: what dump_state (JSON) shows,
// hashed instead of rendered.  Two machines whose digests differ differ in
// their state dumps; equal digests mean equal dumps up to a hash collision.
// Cheap enough to compare after every fuzz input (fuzz/fuzz_run.cpp), where a
// full JSON dump would dominate the run.
#pragma once

#include <cstdint>

#include "arch/machine.hpp"

namespace pto::runner {

struct StateDigest {
  arch::Word pc = 0, bpc = 0;
  arch::FaultCode last_fault = arch::FaultCode::Fault_None;
  arch::Word fault_address = 0;
  std::uint8_t current_acr = 0, current_pe = 0;
  std::uint64_t registers = 0;  // GPRs, T/U queues, predicates, system and banked registers
  std::uint64_t control = 0;    // block state, trap status and contexts, events, bookkeeping, GQM
  std::uint64_t memory = 0;     // resident pages: address and bytes
  std::uint64_t tiles = 0;      // tile file: descriptors, masks, definedness, valid-region elements
  bool operator==(const StateDigest&) const = default;
};

StateDigest state_digest(const arch::Machine& m);

}  // namespace pto::runner
