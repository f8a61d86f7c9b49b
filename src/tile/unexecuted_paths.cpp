#include "tile/unexecuted_paths.hpp"

#include <array>

namespace pto::tile {

namespace {

// One entry per not_implemented site inside the tile commit paths; every
// such path now executes (ops_matrix.cpp B.FPATR post-processing included).
constexpr std::array<UnexecutedPath, 0> kPaths{};

}  // namespace

std::span<const UnexecutedPath> unexecuted_paths() noexcept { return kPaths; }

}  // namespace pto::tile
