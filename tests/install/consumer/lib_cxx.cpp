// Compiled against the installed C++ headers and linked with pto::pto:
// decodes WORD (LENGTH bits) and checks the catalog mnemonic the caller
// expects.  Usage: lib_cxx WORD LENGTH MNEMONIC
#include <cstdio>
#include <cstdlib>
#include <string>

#include "isa/decoder.hpp"

int main(int argc, char** argv) {
  if (argc != 4) return 2;
  const auto d = pto::isa::decode(std::strtoull(argv[1], nullptr, 0), static_cast<unsigned>(std::atoi(argv[2])));
  const std::string got = d.ok() ? d.desc().mnemonic : "(not accepted)";
  std::printf("lib_cxx: %s decodes as %s\n", argv[1], got.c_str());
  return got == argv[3] ? 0 : 1;
}
