#include "tile/unexecuted_paths.hpp"

#include <array>

namespace pto::tile {

namespace {

// One entry per not_implemented site of the tile commit paths
// (ops_matrix.cpp; ops_tlsu_bundle.cpp and block/bundle_engine.cpp run_generic
// for layouts, see generic_layout_executed in tile_contracts.hpp).
constexpr std::array kPaths{
    UnexecutedPath{"TMATMUL*, TGEMV* (CUBE)",
                   "B.FPATR PreQuantMode or ReluMode nonzero (matrix post-processing, "
                   "asl/arch/profile/matrix-postprocess.asl)",
                   "<OP> with B.FPATR pre-quantisation or activation"},
    UnexecutedPath{"TLOAD, TSTORE, TMOV, TPREFETCH, MGATHER*, MSCATTER*, GMOV",
                   "B.DATR Layout other than NORM and the CUBE conversions (ND2DN, DN2ND, ND2ZN, ...)",
                   "<OP> with B.DATR Layout <code>"},
};

}  // namespace

std::span<const UnexecutedPath> unexecuted_paths() noexcept { return kPaths; }

}  // namespace pto::tile
