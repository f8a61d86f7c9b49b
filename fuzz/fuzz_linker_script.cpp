// libFuzzer target: any linker-script text is either rejected with a located
// error or lays out a fixed program into an image that writes and reads back
// (no overlapping PT_LOADs, identity note intact).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <string_view>

#include "asm/assembler.hpp"
#include "asm/linker_script.hpp"

namespace {

constexpr std::string_view kSource = R"(.globl _start
_start: BSTOP
main:   C.BSTOP
.section .text.b,"ax"
        C.BSTOP
.section .result,"aw"
        .byte 1
.section .rodata,"a"
        .byte 2
.bss
        .zero 3
.section .comment,""
        .byte 4
)";

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  auto parsed = pto::as::parse_linker_script(text, "fuzz.ld");
  if (auto* d = std::get_if<pto::as::Diagnostic>(&parsed)) {
    if (d->line == 0) std::abort();  // parse errors are always located
    return 0;
  }
  pto::as::Options o;
  o.linker_script = std::make_shared<const pto::as::LinkerScript>(std::get<pto::as::LinkerScript>(std::move(parsed)));
  const auto r = pto::as::assemble(kSource, "fuzz.s", o);
  if (!r.ok()) return 0;
  const auto back = pto::elf::read_image(pto::elf::write_image(*r.image));
  const auto* image = std::get_if<pto::elf::Image>(&back);
  if (!image || pto::elf::check_load_identity(image->identity) != pto::elf::IdentityCheck::Match) std::abort();
  return 0;
}
