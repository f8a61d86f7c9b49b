// One machine and its run loop, kept for the whole fuzzing process and reset
// for every input: building an Executor allocates and clears its decode cache
// (megabytes), which would dominate a run of a few hundred steps.
// Machine::reset and Executor::flush_decode_cache leave exactly a fresh
// pair's state (tests/unit/runner_state_digest_test.cpp).
#pragma once

#include "arch/machine.hpp"
#include "runner/executor.hpp"

namespace pto::fuzz {

struct Rig {
  explicit Rig(const arch::MachineConfig& config) : m(config) {}
  arch::Machine m;
  runner::Executor ex{m};

  // Before each input: a fresh machine, no decode left from the last input.
  void reset() {
    m.reset();
    ex.flush_decode_cache();
  }
};

}  // namespace pto::fuzz

// ASan's defaults for the targets that run programs (one translation unit
// each): tile payloads (up to 256 KiB each) are freed at every reset, and
// through the default 256 MB quarantine every new payload would be fresh,
// page-faulting memory; 8 MB still holds the last few inputs' frees.
extern "C" const char* __asan_default_options() { return "quarantine_size_mb=8"; }
