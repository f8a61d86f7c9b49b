// The committed generated tables equal a fresh run of the generator over the
// upstream catalogs (skipped, visibly, when ../shared is absent).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>

#include "test_paths.hpp"

namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs tools/<tool> over ../shared into a scratch directory and compares
// `files` with their committed copies in src/<generated>.
void expect_regenerated(const char* tool, const char* generated, std::initializer_list<const char*> files) {
  const fs::path spec = fs::path(PTO_SHARED_DIR) / "pto-spec-0.58.3";
  if (!fs::exists(spec / "catalog" / "scalar-forms.json")) {
    GTEST_SKIP() << "SKIPPED: " << spec << " is absent; cannot run " << tool;
  }
  const fs::path out = fs::temp_directory_path() / (std::string("pto-regen-") + std::to_string(::getpid()));
  fs::create_directories(out);
  const std::string cmd = "python3 " + (fs::path(PTO_SOURCE_DIR) / "tools" / tool).string() + " --spec " +
                          spec.string() + " --out " + out.string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const fs::path committed = fs::path(PTO_SOURCE_DIR) / "src" / generated;
  for (const char* name : files) {
    EXPECT_TRUE(slurp(out / name) == slurp(committed / name)) << name << " differs from the " << tool << " output";
  }
  fs::remove_all(out);
}
}  // namespace

TEST(CatalogTables, RegeneratedOutputMatchesCommitted) {
  expect_regenerated("gen_isa_tables.py", "isa/generated", {"catalog_enums.hpp", "catalog_data.cpp"});
}

// The assembler grammar: the constexpr syntax tables are the generator's
// output for the committed catalog.
TEST(AsmSyntaxTables, RegeneratedOutputMatchesCommitted) {
  expect_regenerated("gen_asm_syntax.py", "asm/generated", {"asm_syntax.inc", "asm_variants.inc"});
}
