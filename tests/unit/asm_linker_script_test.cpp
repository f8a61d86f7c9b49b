// `pto as -T`: the GNU ld linker-script subset (docs/assembly.md, "Linker
// scripts").  Each reference-corpus case.ld is linked with a small program;
// addresses, segments, entry and symbols are derived by hand from GNU ld's
// rules (comments give the arithmetic).  Every error is checked with its
// exact script location.
#include <fmt/format.h>
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iterator>

#include "test_paths.hpp"
#include "asm/assembler.hpp"
#include "asm/linker_script.hpp"
#include "elf/elf.hpp"

namespace pto::as {
namespace {

// The identity note's size is fixed by its content (12-byte header, "PTO\0",
// the 165-byte JSON descriptor padded to 168): 184 = 0xb8.
constexpr std::uint64_t kNote = 0xb8;

TEST(AsmLinkerScript, IdentityNoteSizeUsedBelow) {
  EXPECT_EQ(elf::identity_note_bytes(elf::our_identity()).size(), kNote);
}

std::shared_ptr<const LinkerScript> parse(const std::string& script) {
  auto r = parse_linker_script(script, "case.ld");
  if (auto* d = std::get_if<Diagnostic>(&r)) {
    ADD_FAILURE() << d->format();
    return nullptr;
  }
  return std::make_shared<const LinkerScript>(std::get<LinkerScript>(std::move(r)));
}

Result link(const std::string& src, const std::string& script, Options o = {}) {
  o.linker_script = parse(script);
  return assemble(src, "t.s", o);
}

const elf::Section& section(const elf::Image& im, const std::string& name) {
  for (const auto& s : im.sections)
    if (s.name == name) return s;
  ADD_FAILURE() << "no section " << name;
  static const elf::Section none{};
  return none;
}

bool has_section(const elf::Image& im, const std::string& name) {
  return std::any_of(im.sections.begin(), im.sections.end(), [&](const auto& s) { return s.name == name; });
}

const elf::Symbol& symbol(const elf::Image& im, const std::string& name) {
  for (const auto& s : im.symbols)
    if (s.name == name) return s;
  ADD_FAILURE() << "no symbol " << name;
  static const elf::Symbol none{};
  return none;
}

// "line:col: message" of the first error: a parse error, else a link error.
std::string error(const std::string& script, const std::string& src = "BSTOP\n") {
  auto parsed = parse_linker_script(script, "case.ld");
  if (auto* d = std::get_if<Diagnostic>(&parsed)) return fmt::format("{}:{}: {}", d->line, d->column, d->message);
  Options o;
  o.linker_script = std::make_shared<const LinkerScript>(std::get<LinkerScript>(std::move(parsed)));
  const Result r = assemble(src, "t.s", o);
  if (r.diagnostics.empty()) return "(no error)";
  const Diagnostic& d = r.diagnostics.front();
  return fmt::format("{}{}:{}: {}", d.file == "case.ld" ? "" : d.file + ":", d.line, d.column, d.message);
}

void expect_segment(const elf::Segment& g, std::uint64_t vaddr, std::uint64_t filesz, std::uint64_t memsz,
                    std::uint32_t flags) {
  EXPECT_EQ(g.vaddr, vaddr);
  EXPECT_EQ(g.data.size(), filesz);
  EXPECT_EQ(g.memsz, memsz);
  EXPECT_EQ(g.flags, flags);
}

// ---------------------------------------------------------------------------
// The corpus scripts.

constexpr const char* kStopPcScript = R"(ENTRY(_start)
PHDRS
{
  text PT_LOAD FLAGS(5);
  result PT_LOAD FLAGS(6);
}
SECTIONS
{
  . = 0x100;
  .text : { *(.text*) } :text
  .note.pto.isa : { KEEP(*(.note.pto.isa)) } :text
  . = 0x200;
  .result : { *(.result*) } :result
}
)";

constexpr const char* kStopPcSource = R"(.section .text,"ax"
.globl _start
_start:
  .byte 0x96,0x0a,0xd6,0x13,0x85,0x81,0x20,0x00
  .byte 0x0e,0x80,0x95,0xc0,0x00,0x00,0x16,0x00
  .byte 0x69,0xa0,0xc1,0x03
.globl cross_model_stop
cross_model_stop:
.section .result,"aw"
.globl cross_model_result
.type cross_model_result,@object
cross_model_result: .zero 4
.size cross_model_result,4
.globl cross_model_result_size
.set cross_model_result_size,4
)";

TEST(AsmLinkerScript, ScalarStopPcCase) {
  const Result r = link(kStopPcSource, kStopPcScript);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // .text: 20 bytes at 0x100; the note follows at 0x114 (4-aligned), ends 0x114 + 0xb8 = 0x1cc;
  // . = 0x200 places .result.
  EXPECT_EQ(im.entry, 0x100u);
  ASSERT_EQ(im.sections.size(), 3u);
  EXPECT_EQ(im.sections[0].name, ".text");
  EXPECT_EQ(im.sections[0].addr, 0x100u);
  EXPECT_EQ(im.sections[0].size, 20u);
  EXPECT_EQ(im.sections[0].flags, elf::SHF_ALLOC | elf::SHF_EXECINSTR);
  const elf::Section& note = im.sections[1];
  EXPECT_EQ(note.name, ".note.pto.isa");
  EXPECT_EQ(note.type, elf::SHT_NOTE);
  EXPECT_EQ(note.flags, elf::SHF_ALLOC);
  EXPECT_EQ(note.addr, 0x114u);
  EXPECT_EQ(note.data, elf::identity_note_bytes(elf::our_identity()));
  EXPECT_EQ(im.sections[2].name, ".result");
  EXPECT_EQ(im.sections[2].addr, 0x200u);
  EXPECT_EQ(im.sections[2].flags, elf::SHF_ALLOC | elf::SHF_WRITE);
  ASSERT_EQ(im.segments.size(), 2u);
  expect_segment(im.segments[0], 0x100, 0x14 + kNote, 0x14 + kNote, elf::PF_R | elf::PF_X);
  expect_segment(im.segments[1], 0x200, 4, 4, elf::PF_R | elf::PF_W);
  EXPECT_EQ(symbol(im, "cross_model_stop").value, 0x114u);
  EXPECT_EQ(symbol(im, "cross_model_result").value, 0x200u);
  EXPECT_EQ(symbol(im, "cross_model_result").shndx, 3u);
  EXPECT_EQ(symbol(im, "cross_model_result_size").value, 4u);
  EXPECT_EQ(symbol(im, "cross_model_result_size").shndx, elf::SHN_ABS);
}

TEST(AsmLinkerScript, WrittenImageReadsBackWithThePlacedNote) {
  const Result r = link(kStopPcSource, kStopPcScript);
  ASSERT_TRUE(r.ok());
  auto back = elf::read_image(elf::write_image(*r.image));
  ASSERT_TRUE(std::holds_alternative<elf::Image>(back)) << std::get<elf::Error>(back).message;
  const elf::Image& im = std::get<elf::Image>(back);
  EXPECT_EQ(im.identity, elf::our_identity());
  // One note only, allocated, at its linked address.
  EXPECT_EQ(std::count_if(im.sections.begin(), im.sections.end(),
                          [](const auto& s) { return s.name == elf::kIdentitySectionName; }),
            1);
  EXPECT_EQ(section(im, ".note.pto.isa").addr, 0x114u);
  EXPECT_EQ(section(im, ".note.pto.isa").flags, elf::SHF_ALLOC);
  ASSERT_EQ(im.segments.size(), 2u);
  EXPECT_EQ(im.segments[0].memsz, 0x14 + kNote);
}

TEST(AsmLinkerScript, Block64StopPcCase) {
  const char* script = R"(ENTRY(_start)
PHDRS
{
  text PT_LOAD FLAGS(5);
  result PT_LOAD FLAGS(6);
}
SECTIONS
{
  . = 0x280;
  .text : { *(.text*) } :text
  .note.pto.isa : { KEEP(*(.note.pto.isa)) } :text
  . = 0x380;
  .result : { *(.result*) } :result
}
)";
  const char* src = R"(.section .text,"ax"
.globl _start
_start:
  .byte 0x11,0x00,0x00,0x00
  .byte 0x0f,0x00,0x00,0x00,0x01,0x00,0x00,0x00
.section .result,"aw"
.globl cross_model_result
.type cross_model_result,@object
cross_model_result: .byte 0xa5,0x5a,0x00,0x00
.size cross_model_result,4
.globl cross_model_result_size
.set cross_model_result_size,4
)";
  const Result r = link(src, script);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // 12 bytes of text at 0x280; note at 0x28c, ends 0x28c + 0xb8 = 0x344 < 0x380.
  EXPECT_EQ(im.entry, 0x280u);
  EXPECT_EQ(section(im, ".note.pto.isa").addr, 0x28cu);
  ASSERT_EQ(im.segments.size(), 2u);
  expect_segment(im.segments[0], 0x280, 0xc + kNote, 0xc + kNote, elf::PF_R | elf::PF_X);
  expect_segment(im.segments[1], 0x380, 4, 4, elf::PF_R | elf::PF_W);
  EXPECT_EQ(im.segments[1].data, (std::vector<std::uint8_t>{0xa5, 0x5a, 0, 0}));
  EXPECT_EQ(symbol(im, "cross_model_result").value, 0x380u);
}

TEST(AsmLinkerScript, TileTaddStopPcCaseWithTwoResultInputs) {
  // tile_tadd_stop_pc/case.ld; the program adds a .result.inputs section as
  // tile_texpdif_order does, which *(.result*) also collects.
  const char* script = R"(ENTRY(_start)
PHDRS
{
  text PT_LOAD FLAGS(5);
  result PT_LOAD FLAGS(6);
}
SECTIONS
{
  . = 0x100;
  .text : { *(.text*) } :text
  .note.pto.isa : { KEEP(*(.note.pto.isa)) } :text
  . = 0xf00;
  .result : { *(.result*) } :result
}
)";
  const char* src = R"(.section .text,"ax"
.globl _start
_start:
  .byte 0x81,0x11,0x01,0xc8
  .byte 0x7c,0x00,0x7c,0x40,0x7c,0x80
  .byte 0x00,0x00
.globl cross_model_stop
cross_model_stop:
.section .result,"aw"
.globl cross_model_result
cross_model_result: .byte 0x19,0x00,0x00,0x00,0x01
.section .result.inputs,"aw"
.balign 4
inputs: .long 0x7f800000
)";
  const Result r = link(src, script);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // text 12 bytes at 0x100 (stop at 0x10c); note at 0x10c, ends 0x1c4.
  // .result at 0xf00: .result (5 bytes) then .result.inputs aligned to 4 at
  // 0xf08 (4 bytes), so the output section is 12 bytes and the gap is zero.
  EXPECT_EQ(symbol(im, "cross_model_stop").value, 0x10cu);
  EXPECT_EQ(section(im, ".note.pto.isa").addr, 0x10cu);
  EXPECT_EQ(symbol(im, "inputs").value, 0xf08u);
  EXPECT_FALSE(has_section(im, ".result.inputs"));
  const elf::Section& result = section(im, ".result");
  EXPECT_EQ(result.addr, 0xf00u);
  EXPECT_EQ(result.data, (std::vector<std::uint8_t>{0x19, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0x80, 0x7f}));
  ASSERT_EQ(im.segments.size(), 2u);
  expect_segment(im.segments[0], 0x100, 0xc + kNote, 0xc + kNote, 5);
  expect_segment(im.segments[1], 0xf00, 12, 12, 6);
  EXPECT_EQ(symbol(im, "inputs").shndx, symbol(im, "cross_model_result").shndx);
}

TEST(AsmLinkerScript, ScalarCReturnCaseWithoutPhdrs) {
  const char* script = R"(ENTRY(main)
SECTIONS
{
  . = 0x100;
  .text : { *(.text*) }
  .note.pto.isa : { KEEP(*(.note.pto.isa)) }
  . = 0x2000;
  .data : { *(.data*) }
  .bss : { *(.bss*) *(COMMON) }
  /DISCARD/ : { *(.comment) *(.eh_frame*) }
}
)";
  const char* src = R"(.text
.globl main
main:   BSTART.STD FALL
        BSTOP
        C.BSTOP
cross_model_stop: C.BSTOP
.section .text.startup,"ax"
late:   C.BSTOP
.data
cross_model_result: .ascii "PASS\n"
.bss
buf:    .space 8
.section .comment,""
        .ascii "pto"
)";
  const Result r = link(src, script);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // .text: .text (12 bytes) at 0x100, .text.startup (2) at 0x10c: [0x100, 0x10e).
  // Note at 0x110 (align 4), 0xb8 bytes.  . = 0x2000: .data 5 bytes;
  // .bss input (alignment 2) at 0x2006, 8 bytes.  .comment is discarded.
  EXPECT_EQ(im.entry, 0x100u);
  ASSERT_EQ(im.sections.size(), 4u);
  EXPECT_EQ(im.sections[0].name, ".text");
  EXPECT_EQ(im.sections[0].size, 0xeu);
  EXPECT_EQ(symbol(im, "cross_model_stop").value, 0x10au);
  EXPECT_EQ(symbol(im, "late").value, 0x10cu);
  EXPECT_EQ(symbol(im, "late").shndx, 1u);
  EXPECT_EQ(section(im, ".note.pto.isa").addr, 0x110u);
  EXPECT_EQ(section(im, ".data").addr, 0x2000u);
  EXPECT_EQ(section(im, ".bss").addr, 0x2006u);
  EXPECT_EQ(section(im, ".bss").type, elf::SHT_NOBITS);
  EXPECT_FALSE(has_section(im, ".comment"));
  // Without PHDRS: one PT_LOAD per section, flags from the section flags.
  ASSERT_EQ(im.segments.size(), 4u);
  expect_segment(im.segments[0], 0x100, 0xe, 0xe, elf::PF_R | elf::PF_X);
  expect_segment(im.segments[1], 0x110, kNote, kNote, elf::PF_R);
  expect_segment(im.segments[2], 0x2000, 5, 5, elf::PF_R | elf::PF_W);
  expect_segment(im.segments[3], 0x2006, 0, 8, elf::PF_R | elf::PF_W);
}

// ---------------------------------------------------------------------------
// Semantics beyond the corpus.

TEST(AsmLinkerScript, AssignmentsExpressionsAndAlignInsideSections) {
  const char* script = R"(/* header comment */
base = 0x1000;
SECTIONS
{
  . = base + 0x10 * 2;            /* 0x1020 */
  .text : {
    *(.text)
    . = ALIGN(16);                /* pad the 6-byte .text to 0x1030 */
    _mid = .;
    *(.text.b)
  }
  _etext = .;
  mixed = (1 + 2) * 3 | 0x100 & 0xff0;   /* 9 | 0x100 = 0x109 */
  shifted = (1 << 12) - (0x30 >> 4) + 7 % 4;
  k = 4K;
  aligned = ALIGN(_etext + 1, 0x100);
  . = ALIGN(0x1000);
  .data ALIGN(., 0x40) + 0x40 : { *(.data) }
}
)";
  const char* src = R"(.text
_start: BSTOP
        C.BSTOP
.section .text.b,"ax"
b:      C.BSTOP
.data
        .word _etext, _mid
)";
  const Result r = link(src, script);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // .text output [0x1020, 0x1032): .text 6 bytes, ALIGN(16) -> 0x1030, .text.b 2 bytes.
  EXPECT_EQ(section(im, ".text").addr, 0x1020u);
  EXPECT_EQ(section(im, ".text").size, 0x12u);
  EXPECT_EQ(symbol(im, "b").value, 0x1030u);
  EXPECT_EQ(symbol(im, "_mid").value, 0x1030u);
  EXPECT_EQ(symbol(im, "_etext").value, 0x1032u);
  EXPECT_EQ(symbol(im, "_etext").shndx, elf::SHN_ABS);
  EXPECT_EQ(symbol(im, "_etext").bind, elf::STB_GLOBAL);
  EXPECT_EQ(symbol(im, "base").value, 0x1000u);
  EXPECT_EQ(symbol(im, "mixed").value, 0x109u);
  EXPECT_EQ(symbol(im, "shifted").value, 0x1000u - 3 + 3);
  EXPECT_EQ(symbol(im, "k").value, 4096u);
  EXPECT_EQ(symbol(im, "aligned").value, 0x1100u);
  // . = ALIGN(0x1000) -> 0x2000; the address expression gives 0x2000 + 0x40.
  EXPECT_EQ(section(im, ".data").addr, 0x2040u);
  // The source uses the script's symbols.
  EXPECT_EQ(section(im, ".data").data, (std::vector<std::uint8_t>{0x32, 0x10, 0, 0, 0x30, 0x10, 0, 0}));
  EXPECT_EQ(im.entry, 0x1020u);  // _start
}

TEST(AsmLinkerScript, PatternOrderFirstMatchAndPhdrInheritance) {
  const char* script = R"(PHDRS { code PT_LOAD; data PT_LOAD FLAGS(7); }
SECTIONS
{
  . = 0x400;
  .text : { *(.text.hot) *(.text .text.*) } :code
  .rodata : { *(.rodata*) *(.text.never) }
  . = 0x800;
  .data : { *(.data*) } :data
  .bss : { *(.bss) }
}
)";
  const char* src = R"(.text
        C.BSTOP
.section .text.cold,"ax"
cold:   C.BSTOP
.section .text.hot,"ax"
hot:    C.BSTOP
.section .text.never,"ax"
never:  C.BSTOP
.section .rodata,"a"
ro:     .byte 1
.data
d:      .byte 2
.bss
z:      .zero 4
)";
  const Result r = link(src, script);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // .text.hot first (pattern order), then .text, .text.cold, .text.never in
  // input order (first matching statement wins, so .rodata never gets .text.never).
  EXPECT_EQ(symbol(im, "hot").value, 0x400u);
  EXPECT_EQ(symbol(im, "cold").value, 0x404u);
  EXPECT_EQ(symbol(im, "never").value, 0x406u);
  // .rodata inherits :code; the note is an orphan (read-only like .rodata) placed after it.
  EXPECT_EQ(section(im, ".rodata").addr, 0x408u);
  EXPECT_EQ(section(im, ".note.pto.isa").addr, 0x40cu);
  // .bss inherits :data; NOBITS at the end makes memsz > filesz.
  EXPECT_EQ(section(im, ".data").addr, 0x800u);
  EXPECT_EQ(section(im, ".bss").addr, 0x802u);
  ASSERT_EQ(im.segments.size(), 2u);
  // code: [0x400, 0x40c + 0xb8), flags computed from the sections: R|X.
  expect_segment(im.segments[0], 0x400, 0xc + kNote, 0xc + kNote, elf::PF_R | elf::PF_X);
  expect_segment(im.segments[1], 0x800, 1, 6, 7);
}

TEST(AsmLinkerScript, OrphansFollowSectionsOfTheSameKind) {
  const std::string src = std::string(kStopPcSource) + R"(
.section .rodata,"a"
ro:     .byte 1, 2, 3, 4
.data
d:      .byte 5
.bss
z:      .zero 4
)";
  const Result r = link(src, kStopPcScript);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // .rodata is read-only like the note: placed right after it at 0x1cc, in :text.
  // .data is writable like .result: after it at 0x204.  .bss has no kind in the
  // script: after the last output section, 0x206 (alignment 2).
  EXPECT_EQ(section(im, ".rodata").addr, 0x1ccu);
  EXPECT_EQ(section(im, ".data").addr, 0x204u);
  EXPECT_EQ(section(im, ".bss").addr, 0x206u);
  ASSERT_EQ(im.segments.size(), 2u);
  expect_segment(im.segments[0], 0x100, 0xd0, 0xd0, 5);
  expect_segment(im.segments[1], 0x200, 5, 0xa, 6);
}

TEST(AsmLinkerScript, OrgFillsInsideAScriptPlacedSectionAndNonAllocatedOrphans) {
  const std::string src = R"(.text
_start: BSTOP
        .org 0x110
stop:   C.BSTOP
.section .comment, ""
        .ascii "pto"
)";
  const Result r = link(src, kStopPcScript);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // .org fills .text (placed at 0x100 by the script) up to 0x110: 0x12 bytes;
  // the note follows at 0x114.  .comment is not allocated: address 0, no segment.
  EXPECT_EQ(symbol(im, "stop").value, 0x110u);
  EXPECT_EQ(section(im, ".text").size, 0x12u);
  EXPECT_EQ(section(im, ".note.pto.isa").addr, 0x114u);
  EXPECT_EQ(section(im, ".comment").addr, 0u);
  EXPECT_EQ(section(im, ".comment").flags, 0u);
  ASSERT_EQ(im.segments.size(), 1u);  // .result is empty: no section, no segment
  expect_segment(im.segments[0], 0x100, 0x14 + kNote, 0x14 + kNote, 5);
}

TEST(AsmLinkerScript, ProvideDefinesOnlyReferencedSymbolsTheSourceLacks) {
  const char* script = R"(PROVIDE(_stack = 0x8000);
PROVIDE(unused = 1);
SECTIONS
{
  . = 0x100;
  .text : { *(.text) PROVIDE(_end_text = .); }
  PROVIDE(mine = 5);
}
)";
  const char* src = R"(.text
mine:   C.BSTOP
        .word _stack, _end_text, mine
)";
  const Result r = link(src, script);
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  const elf::Image& im = *r.image;
  // C.BSTOP (2) + 12 bytes of .word at 0x102: .text is [0x100, 0x10e).
  EXPECT_EQ(symbol(im, "_stack").value, 0x8000u);
  EXPECT_EQ(symbol(im, "_stack").shndx, elf::SHN_ABS);
  EXPECT_EQ(symbol(im, "_end_text").value, 0x10eu);
  EXPECT_EQ(symbol(im, "mine").value, 0x100u);  // the source's definition wins
  EXPECT_EQ(symbol(im, "mine").shndx, 1u);
  EXPECT_FALSE(std::any_of(im.symbols.begin(), im.symbols.end(), [](const auto& s) { return s.name == "unused"; }));
  EXPECT_EQ(section(im, ".text").data,
            (std::vector<std::uint8_t>{0, 0, 0, 0x80, 0, 0, 0x0e, 1, 0, 0, 0, 1, 0, 0}));
  EXPECT_EQ(error("PROVIDE(mine = 5);\nafter = mine + 1;\nSECTIONS { .text : { *(.text) } }", "mine: BSTOP\n"),
            "1:9: PROVIDE symbol 'mine' is defined in t.s (line 1) and used by the script");
}

TEST(AsmLinkerScript, EmptyOutputStatementsIgnoreTheirAddressUnlessTheyDefineSymbols) {
  const char* src = "BSTOP\n.data\n.byte 1\n";
  // .empty matches nothing: its address is ignored, .data follows .text at 4.
  Result r = link(src, "SECTIONS { .text : { *(.text) } .empty 0x5000 : { *(.nothing) } .data : { *(.data) } }");
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  EXPECT_FALSE(has_section(*r.image, ".empty"));
  EXPECT_EQ(section(*r.image, ".data").addr, 4u);
  // With a symbol assignment inside, ld obeys the address: '.' = 0x5000.
  r = link(src, "SECTIONS { .text : { *(.text) } .empty 0x5000 : { *(.nothing) mark = .; } .data : { *(.data) } }");
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  EXPECT_EQ(symbol(*r.image, "mark").value, 0x5000u);
  EXPECT_EQ(section(*r.image, ".data").addr, 0x5000u);
}

TEST(AsmLinkerScript, CommandLineEntryWinsOverEntry) {
  Options o;
  o.entry = "cross_model_stop";
  const Result r = link(kStopPcSource, kStopPcScript, o);
  ASSERT_TRUE(r.ok());
  EXPECT_EQ(r.image->entry, 0x114u);
}

TEST(AsmLinkerScript, TrivialAtIsAccepted) {
  const Result r = link("BSTOP\n", "SECTIONS { .text 0x40 : AT(0x40) { *(.text) } }");
  ASSERT_TRUE(r.ok()) << r.diagnostics.front().format();
  EXPECT_EQ(r.image->sections[0].addr, 0x40u);
}

// ---------------------------------------------------------------------------
// Errors, each at its exact location.

TEST(AsmLinkerScriptErrors, UnsupportedCommands) {
  EXPECT_EQ(error("MEMORY { rom : ORIGIN = 0, LENGTH = 1K }"),
            "1:1: 'MEMORY' is not supported in pto linker scripts (supported: ENTRY, PHDRS, SECTIONS and symbol "
            "assignments)");
  EXPECT_EQ(error("ENTRY(_start)\nINCLUDE other.ld\n"),
            "2:1: 'INCLUDE' is not supported in pto linker scripts (supported: ENTRY, PHDRS, SECTIONS and symbol "
            "assignments)");
  EXPECT_EQ(error("SECTIONS {\n  PROVIDE_HIDDEN(x = 1);\n}"), "2:3: 'PROVIDE_HIDDEN' is not supported inside SECTIONS");
  EXPECT_EQ(error("SECTIONS { PROVIDE(. = 1); }"), "1:20: PROVIDE cannot assign the location counter '.'");
  EXPECT_EQ(error("SECTIONS { .text : { *(.text) BYTE(1) } }"),
            "1:31: 'BYTE' is not supported in an output section (supported: '*(patterns)', KEEP(...) and assignments)");
  EXPECT_EQ(error("SECTIONS { .text : { crt0.o(.text) } }"),
            "1:22: file name pattern 'crt0.o' is not supported (only '*')");
  EXPECT_EQ(error("SECTIONS { .text : { *(SORT(.text*)) } }"),
            "1:24: 'SORT' is not supported in an input section description");
  EXPECT_EQ(error("SECTIONS { .text : { *(.text) } =0x90909090 }"),
            "1:33: fill expressions ('=fill') are not supported");
  EXPECT_EQ(error("SECTIONS { .text : { *(.text) } >rom }"), "1:33: memory regions ('>region') are not supported");
  EXPECT_EQ(error("SECTIONS { .bss (NOLOAD) : { *(.bss) } }"), "1:18: output section type (NOLOAD) is not supported");
  EXPECT_EQ(error("PHDRS { note PT_NOTE; }"),
            "1:14: program header type PT_NOTE is not supported (only PT_LOAD; the identity note lives in the text "
            "PT_LOAD)");
  EXPECT_EQ(error("PHDRS { text PT_LOAD FILEHDR; }"), "1:22: FILEHDR in PHDRS is not supported");
  EXPECT_EQ(error("SECTIONS { . += 4; }"), "1:14: only '=' assignments are supported (not '+=', '-=', ...)");
  EXPECT_EQ(error("SECTIONS { . = SIZEOF(.text); }"),
            "1:16: 'SIZEOF' is not supported in linker script expressions (supported functions: ALIGN)");
}

TEST(AsmLinkerScriptErrors, Syntax) {
  EXPECT_EQ(error("/* open"), "1:1: unterminated comment");
  EXPECT_EQ(error("SECTIONS { .text { *(.text) } }"), "1:18: expected ':' after the output section name '.text'");
  EXPECT_EQ(error("SECTIONS {\n  . = 0x100\n}"), "3:1: expected ';' after the assignment");
  EXPECT_EQ(error("SECTIONS { . = 0x1g; }"), "1:16: invalid number '0x1g'");
  EXPECT_EQ(error("SECTIONS { . = (1 + ; }"), "1:21: expected an expression, found ';'");
  EXPECT_EQ(error(". = 0x100;"), "1:1: the location counter '.' can only be assigned inside SECTIONS");
  EXPECT_EQ(error("ENTRY(a)\nENTRY(b)"), "2:1: ENTRY is given twice (first at line 1)");
  EXPECT_EQ(error("PHDRS { t PT_LOAD; t PT_LOAD; }"), "1:20: program header 't' is defined twice");
}

TEST(AsmLinkerScriptErrors, Layout) {
  EXPECT_EQ(error("SECTIONS {\n  . = 0x200;\n  .text : { *(.text) }\n  . = 0x100;\n}"),
            "4:3: cannot move the location counter backwards (from 0x2bc to 0x100)");
  EXPECT_EQ(error("SECTIONS { .text : { *(.text) . = 0x10; } }"),
            "1:35: inside an output section, an assignment must use '.' (ld reads a plain value there as an offset "
            "from the section start; write '. + N' or use the absolute value outside the section)");
  EXPECT_EQ(error("SECTIONS {\n  .text 0x100 : { *(.text) }\n  .data 0x102 : { *(.data) }\n}", "BSTOP\n.data\n.byte 1\n"),
            "3:3: output sections .text [0x100, 0x104) and .data [0x102, 0x103) overlap");
  EXPECT_EQ(error("PHDRS { text PT_LOAD; }\nSECTIONS {\n  .text : { *(.text) } :txt\n}"),
            "3:25: section '.text' is placed in unknown program header 'txt'");
  EXPECT_EQ(error("PHDRS { text PT_LOAD; }\nSECTIONS {\n  .text : { *(.text) }\n}"),
            "3:3: allocated section '.text' is not assigned to a program header (add ':phdr')");
  // Members 2^63 bytes apart: the header's file image (gap included) is far
  // beyond the 1 GiB --max-output default, reported at the PHDRS entry
  // instead of allocated (a fuzz_linker_script crash).
  const std::string far = error("PHDRS { text PT_LOAD; }\nSECTIONS {\n  . = 0x1000;\n  .text : { *(.text) } :text\n"
                                "  . = 0x8000000000000000;\n  .data : { *(.data) } :text\n}",
                                "BSTOP\n.data\n.byte 1\n");
  EXPECT_TRUE(far.starts_with("1:9: program header 'text' would hold ")) << far;
  EXPECT_NE(far.find("file bytes ([0x1000, 0x80000000000000"), std::string::npos) << far;
  EXPECT_NE(far.find("more than the limit of 1073741824 bytes (--max-output)"), std::string::npos) << far;
  EXPECT_EQ(error("SECTIONS {\n  . = 0xfffffffffffffffe;\n  .text : { *(.text) }\n}"),
            "3:3: section '.text' at 0xfffffffffffffffe with size 0x4 extends past the end of the 64-bit address space");
  // Orphans have no script location.
  EXPECT_EQ(error("SECTIONS { . = 0xfffffffffffffff0; }"),
            "0:0: orphan section '.note.pto.isa': section '.note.pto.isa' at 0xfffffffffffffff4 with size 0xb8 extends "
            "past the end of the 64-bit address space");
  EXPECT_EQ(error("SECTIONS { . = ALIGN(0xffffffffffffff01, 0x100); }"),
            "1:22: ALIGN(0xffffffffffffff01, 0x100) wraps past 2^64");
  EXPECT_EQ(error("SECTIONS { . = 0xffffffffffffffff + 2; }"),
            "1:35: 0xffffffffffffffff + 0x2 wraps past 2^64");
  EXPECT_EQ(error("SECTIONS { . = start + 1; }", "start: BSTOP\n"),
            "1:16: undefined symbol 'start' in expression (only symbols assigned earlier in the script can be used)");
  EXPECT_EQ(error("SECTIONS { . = 4 / (2 - 2); }"), "1:18: division by zero");
  EXPECT_EQ(error("x = .;"), "1:5: '.' (the location counter) is only available inside SECTIONS");
  EXPECT_EQ(error("SECTIONS {\n  /DISCARD/ : { *(.note*) }\n}"),
            "2:19: .note.pto.isa cannot be discarded: the PTO identity note is required");
  EXPECT_EQ(error("SECTIONS { .text 0x40 : AT(0x1040) { *(.text) } }"),
            "1:28: AT(0x1040) differs from the address 0x40 of '.text': pto images have equal load and virtual addresses");
  EXPECT_EQ(error("SECTIONS { .stack : { . = . + 0x100; } }"),
            "1:23: output section '.stack' has no input sections; ld would create it for this assignment to '.', pto "
            "does not");
  EXPECT_EQ(error("PHDRS { a PT_LOAD; b PT_LOAD; }\nSECTIONS {\n  .text 0x100 : { *(.text) } :a\n  .data 0x200 : { "
                  "*(.data) } :b\n  .tail 0x300 : { *(.tail) } :a\n}",
                  "BSTOP\n.data\n.byte 1\n.section .tail,\"ax\"\nBSTOP\n"),
            "1:20: program headers overlap: [0x100, 0x3bc) and [0x200, 0x201)");
  EXPECT_EQ(error("PHDRS { t PT_LOAD FLAGS(0x100000000); }\nSECTIONS { .text : { *(.text) } :t }"),
            "1:25: FLAGS(0x100000000) does not fit in 32 bits");
}

TEST(AsmLinkerScriptErrors, ScriptAndSource) {
  EXPECT_EQ(error("ENTRY(go)\nSECTIONS { .text : { *(.text) } }"), "1:7: entry symbol 'go' is not defined");
  EXPECT_EQ(error("SECTIONS { .text : { *(.text) } here = .; }", "here: BSTOP\n"),
            "1:33: symbol 'here' is also defined in t.s (line 1)");
  EXPECT_EQ(error("SECTIONS { .text : { *(.text) } /DISCARD/ : { *(.data) } }", "BSTOP\n.data\nv: .byte 1\n"),
            "t.s:3:1: symbol 'v' is defined in section .data, which the linker script discards");
  EXPECT_EQ(error("SECTIONS { .text : { *(.text) } }", ".section .x, \"a\", @progbits, 0x100\n.byte 1\n"),
            "t.s:1:30: a section address cannot be combined with a linker script; place the section in the script");
  Options o;
  o.section_start[".text"] = 0x100;
  const Result r = link("BSTOP\n", "SECTIONS { .text : { *(.text) } }", o);
  ASSERT_FALSE(r.ok());
  EXPECT_EQ(r.diagnostics.front().message, "--section-start cannot be combined with a linker script");
}

TEST(AsmLinkerScriptErrors, DiagnosticFormat) {
  auto parsed = parse_linker_script("SECTIONS\n{\n  .text : { *(.text) } :\n}\n", "case.ld");
  ASSERT_TRUE(std::holds_alternative<Diagnostic>(parsed));
  EXPECT_EQ(std::get<Diagnostic>(parsed).format(),
            "case.ld:4:1: error: expected a program header name after ':'\n  }\n  ^\n");
}

// ---------------------------------------------------------------------------
// CLI end to end.

namespace fs = std::filesystem;

fs::path temp(const std::string& name) {
  return fs::temp_directory_path() / ("pto-ld-test-" + std::to_string(::getpid()) + "-" + name);
}

void write_file(const fs::path& p, const std::string& text) { std::ofstream(p) << text; }

std::string read_file(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), {}};
}

TEST(AsmLinkerScriptCli, LinksWithTAndReportsScriptErrors) {
  const auto src = temp("stop.S"), ld = temp("case.ld"), out = temp("case.elf"), err = temp("err.txt");
  write_file(src, kStopPcSource);
  write_file(ld, kStopPcScript);
  fs::remove(out);
  const std::string pto = PTO_CLI_PATH;
  ASSERT_EQ(std::system((pto + " as -T " + ld.string() + " " + src.string() + " -o " + out.string()).c_str()), 0);
  const std::string bytes = read_file(out);
  auto back = elf::read_image(std::vector<std::uint8_t>(bytes.begin(), bytes.end()));
  ASSERT_TRUE(std::holds_alternative<elf::Image>(back));
  const elf::Image& im = std::get<elf::Image>(back);
  EXPECT_EQ(im.entry, 0x100u);
  ASSERT_EQ(im.segments.size(), 2u);
  expect_segment(im.segments[0], 0x100, 0x14 + kNote, 0x14 + kNote, 5);
  expect_segment(im.segments[1], 0x200, 4, 4, 6);

  // --script spelling; a script error is located and no output is written.
  fs::remove(out);
  write_file(ld, "SECTIONS\n{\n  . = 0x100;\n  MEMORY\n}\n");
  const int rc = std::system(
      (pto + " as --script " + ld.string() + " " + src.string() + " -o " + out.string() + " 2>" + err.string()).c_str());
  EXPECT_NE(rc, 0);
  EXPECT_FALSE(fs::exists(out));
  EXPECT_EQ(read_file(err), ld.string() + ":4:3: error: 'MEMORY' is not supported inside SECTIONS\n    MEMORY\n    ^\n"
                                          "pto as: 1 error; no output written\n");
}

}  // namespace
}  // namespace pto::as
