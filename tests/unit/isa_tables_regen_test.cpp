// The committed generated tables equal a fresh run of the generator over the
// upstream catalogs (skipped, visibly, when ../shared is absent).
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "test_paths.hpp"

namespace fs = std::filesystem;

namespace {
std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TEST(CatalogTables, RegeneratedOutputMatchesCommitted) {
  const fs::path spec = fs::path(PTO_SHARED_DIR) / "pto-spec-0.58.3";
  if (!fs::exists(spec / "catalog" / "scalar-forms.json")) {
    GTEST_SKIP() << "SKIPPED: " << spec << " is absent; cannot regenerate the ISA tables";
  }
  const fs::path out = fs::temp_directory_path() / ("pto-regen-" + std::to_string(::getpid()));
  fs::create_directories(out);
  const std::string cmd = "python3 " + (fs::path(PTO_SOURCE_DIR) / "tools" / "gen_isa_tables.py").string() +
                          " --spec " + spec.string() + " --out " + out.string() + " 2>/dev/null";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const fs::path committed = fs::path(PTO_SOURCE_DIR) / "src" / "isa" / "generated";
  for (const char* name : {"catalog_enums.hpp", "catalog_data.cpp"}) {
    EXPECT_TRUE(slurp(out / name) == slurp(committed / name)) << name << " differs from the generator output";
  }
  fs::remove_all(out);
}

// The assembler grammar (src/asm/generated) likewise: the constexpr syntax
// tables are the generator's output for the committed catalog.
TEST(AsmSyntaxTables, RegeneratedOutputMatchesCommitted) {
  const fs::path spec = fs::path(PTO_SHARED_DIR) / "pto-spec-0.58.3";
  if (!fs::exists(spec / "catalog" / "scalar-forms.json")) {
    GTEST_SKIP() << "SKIPPED: " << spec << " is absent; cannot regenerate the asm syntax tables";
  }
  const fs::path out = fs::temp_directory_path() / ("pto-asm-regen-" + std::to_string(::getpid()));
  fs::create_directories(out);
  const std::string cmd = "python3 " + (fs::path(PTO_SOURCE_DIR) / "tools" / "gen_asm_syntax.py").string() +
                          " --spec " + spec.string() + " --out " + out.string() + " >/dev/null 2>&1";
  ASSERT_EQ(std::system(cmd.c_str()), 0) << cmd;
  const fs::path committed = fs::path(PTO_SOURCE_DIR) / "src" / "asm" / "generated";
  for (const char* name : {"asm_syntax.inc", "asm_variants.inc"}) {
    EXPECT_TRUE(slurp(out / name) == slurp(committed / name)) << name << " differs from the generator output";
  }
  fs::remove_all(out);
}
