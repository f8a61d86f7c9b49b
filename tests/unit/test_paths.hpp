// Where the tests find the source tree, their data, ../shared and the built
// CLI.  Only test_paths.cpp is compiled with these absolute paths, so every
// other test file compiles the same in any checkout and ccache shares it
// between clones (CI builds a fresh clone in a new folder).
#pragma once

namespace pto::test::paths {
const char* source_dir();
const char* test_data_dir();
const char* shared_dir();
const char* cli_path();
}  // namespace pto::test::paths

#define PTO_SOURCE_DIR (::pto::test::paths::source_dir())
#define PTO_TEST_DATA_DIR (::pto::test::paths::test_data_dir())
#define PTO_SHARED_DIR (::pto::test::paths::shared_dir())
#define PTO_CLI_PATH (::pto::test::paths::cli_path())
