// The absolute paths of this checkout and build (tests/CMakeLists.txt sets
// the TREE_* definitions for this file only).
#include "test_paths.hpp"

namespace pto::test::paths {
const char* source_dir() { return TREE_SOURCE_DIR; }
const char* test_data_dir() { return TREE_TEST_DATA_DIR; }
const char* shared_dir() { return TREE_SHARED_DIR; }
const char* cli_path() { return TREE_CLI_PATH; }
}  // namespace pto::test::paths
