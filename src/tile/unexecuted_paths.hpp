// Paths inside otherwise executable tile operations that this model does not
// execute yet.  Each stops the run with "not implemented in this model:
// <message>" before any effect; `pto coverage` lists them so a partial
// operation is never mistaken for a complete one.
#pragma once

#include <span>
#include <string_view>

namespace pto::tile {

struct UnexecutedPath {
  std::string_view operations;  // which tile operations the path belongs to
  std::string_view condition;   // what selects the path (bundle contents)
  std::string_view message;     // the stop message, <OP> standing for the operation name
};

std::span<const UnexecutedPath> unexecuted_paths() noexcept;

}  // namespace pto::tile
