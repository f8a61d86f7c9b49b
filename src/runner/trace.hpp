// Trace observers: one line (text) or one JSON object (JSON Lines) per
// execution attempt, with register/queue writes and memory accesses.
#pragma once

#include <cstdio>

#include "runner/executor.hpp"

namespace pto::runner {

// ABI spelling of absolute GPR i (zero, sp, a0..a7, ra, s0..s8, x0..x3).
const char* gpr_name(unsigned i);

class TraceObserver : public Observer {
 public:
  enum class Format { Text, Json };
  TraceObserver(std::FILE* out, Format format) : out_(out), format_(format) {}
  void on_retire(const arch::Machine& m, const Retired& r) override;

 private:
  std::FILE* out_;
  Format format_;
};

// Canonical text of a decoded record ("<illegal>" for undecodable words).
std::string instruction_text(const scalar::DecodedInsn& d);

}  // namespace pto::runner
