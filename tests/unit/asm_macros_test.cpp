// Macros, repetition and conditional assembly (docs/assembly.md "Macros,
// repetition and conditional assembly").  Each expected byte list is the
// hand expansion of the source, written out in the comment or checked against
// the unexpanded equivalent; the semantics are those of GNU as.
#include <fmt/format.h>
#include <gtest/gtest.h>

#include "asm/assembler.hpp"

namespace pto::as {
namespace {

Result run(const std::string& src, const Options& o = {}) { return assemble(src, "t.s", o); }

std::vector<std::uint8_t> section_bytes(const Result& r, const std::string& name) {
  if (!r.ok()) {
    ADD_FAILURE() << r.diagnostics.front().format();
    return {};
  }
  for (const auto& s : r.image->sections)
    if (s.name == name) return s.data;
  return {};
}

std::vector<std::uint8_t> data_of(const std::string& src) { return section_bytes(run(src), ".data"); }

std::string first_error(const std::string& src, const Options& o = {}) {
  const Result r = run(src, o);
  if (r.diagnostics.empty()) return "(no error)";
  const auto& d = r.diagnostics.front();
  return fmt::format("{}:{}: {}", d.line, d.column, d.message);
}

using Bytes = std::vector<std::uint8_t>;

TEST(AsmMacros, ParametersDefaultsAndKeywords) {
  const std::string src = R"(
.macro pair a, b=7
  .byte \a, \b
.endm
.data
pair 1
pair 2, 3
pair b=4, a=5
pair 6,
)";
  // .byte 1, 7 / .byte 2, 3 / .byte 5, 4 / .byte 6, 7 (an empty argument takes the default)
  EXPECT_EQ(data_of(src), (Bytes{1, 7, 2, 3, 5, 4, 6, 7}));
  EXPECT_EQ(data_of(src), data_of(".data\n.byte 1, 7\n.byte 2, 3\n.byte 5, 4\n.byte 6, 7\n"));
  // A comma inside brackets does not split arguments; names are case-insensitive.
  EXPECT_EQ(data_of(".macro two a, b\n.byte \\b\n.endm\n.data\nTWO (1, 2), 3\n"), (Bytes{3}));
}

TEST(AsmMacros, RequiredAndVarargParameters) {
  EXPECT_EQ(first_error(".macro m a:req\n.byte \\a\n.endm\n.data\nm\n"),
            "5:1: missing value for the required parameter 'a' of macro 'm'");
  // .byte 1 / .byte 2, 3, 4
  EXPECT_EQ(data_of(".macro bytes first, rest:vararg\n.byte \\first\n.byte \\rest\n.endm\n.data\nbytes 1, 2, 3, 4\n"),
            (Bytes{1, 2, 3, 4}));
  EXPECT_EQ(first_error(".macro m a\n.endm\nm 1, 2\n"), "3:6: macro 'm' takes 1 argument; this is one more");
  EXPECT_EQ(first_error(".macro m a:vararg, b\n.endm\n"),
            "1:20: parameter 'b' follows the ':vararg' parameter 'a', which must be the last");
  EXPECT_EQ(first_error(".macro m a, a\n.endm\n"), "1:13: macro parameter 'a' is given twice");
  EXPECT_EQ(first_error(".macro m a:opt\n.endm\n"), "1:11: expected ':req' or ':vararg' after parameter 'a'");
}

TEST(AsmMacros, CounterAndSeparator) {
  // \@ counts macro expansions in the pass: L0 at .data+0, L1 at .data+1.
  // \n\()0 with n=1 is "1" followed by "0".
  const std::string src = R"(
.macro lab
L\@: .byte \@
.endm
.macro hex n
.byte 0x\n\()0
.endm
.data
lab
lab
.byte L1 - L0
hex 1
)";
  EXPECT_EQ(data_of(src), (Bytes{0, 1, 1, 0x10}));
}

TEST(AsmMacros, ExitmRecursionNestingAndPurgem) {
  // upto 1: .byte 1, .byte 0xff; upto 3: .byte 3, then .exitm inside the .if.
  EXPECT_EQ(data_of(R"(
.macro upto n
.byte \n
.ifge \n - 3
.exitm
.endif
.byte 0xff
.endm
.data
upto 1
upto 3
)"),
            (Bytes{1, 0xff, 3}));
  // count 3 -> .byte 3; count 3-1 -> .byte 2; count 3-1-1 -> .byte 1; count 3-1-1-1 stops.
  EXPECT_EQ(data_of(".macro count n\n.if \\n\n.byte \\n\ncount \\n-1\n.endif\n.endm\n.data\ncount 3\n"),
            (Bytes{3, 2, 1}));
  // A macro that defines a macro; .purgem forgets it, so it can be defined again.
  EXPECT_EQ(data_of(R"(
.macro def
.macro inner
.byte 9
.endm
.endm
.data
def
inner
.purgem inner
.macro inner
.byte 8
.endm
inner
)"),
            (Bytes{9, 8}));
  EXPECT_EQ(first_error(".macro m\n.endm\n.macro M\n.endm\n"), "3:1: macro 'm' is already defined (line 1)");
  EXPECT_EQ(first_error(".purgem nothing\n"), "1:9: macro 'nothing' is not defined");
  EXPECT_EQ(first_error(".exitm\n"), "1:1: '.exitm' outside a macro");
  EXPECT_EQ(first_error(".endm\n"), "1:1: '.endm' without '.macro'");
}

TEST(AsmMacros, ReptIrpIrpc) {
  const std::string src = R"(
.data
.rept 3
.byte 1, 2
.endr
.irp v, 4, 5, 6
.half \v
.endr
.irpc c, 789
.byte \c
.endr
.rept 0
.byte 0xee
.endr
.rept 2; .rept 2; .byte 1; .endr; .byte 2; .endr
)";
  EXPECT_EQ(data_of(src), (Bytes{1, 2, 1, 2, 1, 2, 4, 0, 5, 0, 6, 0, 7, 8, 9, 1, 1, 2, 1, 1, 2}));
  // Numeric local labels inside a repetition: 1f is the next '1:', one byte on.
  EXPECT_EQ(data_of(".data\n.rept 2\n1: .byte 1f - 1b\n1:\n.endr\n"), (Bytes{1, 1}));
  EXPECT_EQ(first_error(".rept -1\n.endr\n"), "1:7: negative .rept count -1");
  EXPECT_EQ(first_error(".endr\n"), "1:1: '.endr' without '.rept', '.irp' or '.irpc'");
  EXPECT_EQ(first_error(".irp 1x, 2\n.endr\n"), "1:6: expected '.irp name[, values]'");
}

TEST(AsmConditionals, EveryFormAndNesting) {
  const std::string src = R"(
.data
.set X, 2
.ifeq X - 2
.byte 1
.else
.byte 0xee
.endif
.ifne X
.byte 2
.endif
.if 0
.byte 0xee
.elseif X - 1
.byte 3
.elseif 1
.byte 0xee
.else
.byte 0xee
.endif
.if 0
.if 1
.byte 0xee
.else
.byte 0xee
.endif
.else
.byte 4
.endif
.ifdef X
.byte 5
.endif
.ifndef later
.byte 6
.endif
later:
.ifdef later
.byte 7
.endif
.ifgt X
.byte 8
.endif
.iflt X
.byte 0xee
.endif
.ifb
.byte 9
.endif
.ifnb x
.byte 10
.endif
.ifc abc, abc
.byte 11
.endif
.ifnc abc, abd
.byte 12
.endif
.ifle X - 2
.byte 13
.endif
)";
  EXPECT_EQ(data_of(src), (Bytes{1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13}));
}

TEST(AsmConditionals, Errors) {
  EXPECT_EQ(first_error(".else\n"), "1:1: '.else' without '.if'");
  EXPECT_EQ(first_error(".endif\n"), "1:1: '.endif' without '.if'");
  EXPECT_EQ(first_error(".if 1\n.else\n.else\n.endif\n"), "3:1: '.else' after '.else'");
  EXPECT_EQ(first_error(".if 1\n.else\n.elseif 1\n.endif\n"), "3:1: '.elseif' after '.else'");
  EXPECT_EQ(first_error(".if 1 2\n.endif\n"), "1:7: unexpected '2' after .if");
  EXPECT_EQ(first_error(".ifdef\n.endif\n"), "1:7: expected a symbol name after .ifdef");
  // A skipped branch is not assembled at all.
  EXPECT_EQ(first_error(".if 0\nnot an instruction\n.endif\n"), "(no error)");
  // A .macro inside a skipped branch is not defined.
  EXPECT_EQ(first_error(".if 0\n.macro m\n.endm\n.endif\nm\n"), "5:1: unknown mnemonic 'm'");
}

TEST(AsmMacros, UnterminatedBlocksAreReportedAtTheOpening) {
  EXPECT_EQ(first_error(".data\n.if 1\n.byte 1\n"), "2:1: unterminated .if (missing .endif)");
  EXPECT_EQ(first_error("  .macro m\n.byte 1\n"), "1:3: unterminated .macro 'm' (missing .endm)");
  EXPECT_EQ(first_error(".rept 2\n.byte 1\n"), "1:1: unterminated .rept (missing .endr)");
  EXPECT_EQ(first_error(".irp x, 1\n"), "1:1: unterminated .irp (missing .endr)");
  // Inside an expansion: reported when the expansion ends, at the use.
  const Result r = run(".macro m\n.if 1\n.endm\nm\n");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].format(),
            "t.s:4:1: error: unterminated .if (missing .endif)\n  m\n  ^\n"
            "t.s:2:1: note: in expansion of macro 'm' defined at t.s:1\n  .if 1\n  ^\n");
}

TEST(AsmMacros, ErrorsInsideExpansionsPointAtUseAndDefinition) {
  const Result r = run(R"(.macro inner x
  .byte \x
.endm
.macro outer
  inner 256
.endm
.data
  outer
)");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  EXPECT_EQ(r.diagnostics[0].format(),
            "t.s:8:3: error: value 256 does not fit in 1 byte\n"
            "    outer\n"
            "    ^\n"
            "t.s:2:9: note: in expansion of macro 'inner' defined at t.s:1\n"
            "    .byte 256\n"
            "          ^\n"
            "t.s:5:3: note: in expansion of macro 'outer' defined at t.s:4\n"
            "    inner 256\n"
            "    ^\n");
  // In a repetition the error stays on the body line, with the iteration.
  const Result rep = run(".data\n.irp v, 1, 300\n.byte \\v\n.endr\n");
  ASSERT_EQ(rep.diagnostics.size(), 1u);
  EXPECT_EQ(rep.diagnostics[0].format(),
            "t.s:3:7: error: value 300 does not fit in 1 byte\n  .byte 300\n        ^\n"
            "t.s:2:1: note: in iteration 2 of this .irp\n  .irp v, 1, 300\n  ^\n");
}

TEST(AsmMacros, RecursionAndExpansionLimits) {
  const Result r = run(".macro r\nr\n.endm\nr\n");
  ASSERT_EQ(r.diagnostics.size(), 1u);
  const Diagnostic& d = r.diagnostics[0];
  EXPECT_EQ(fmt::format("{}:{}: {}", d.line, d.column, d.message),
            "4:1: macro expansion is nested too deeply (more than 100 levels); is macro 'r' recursive?");
  // 100 expansions: the 15 innermost notes and one for the rest.
  ASSERT_EQ(d.notes.size(), 16u);
  EXPECT_EQ(d.notes[0].message, "in expansion of macro 'r' defined at t.s:1");
  EXPECT_EQ(d.notes[15].message, "(85 outer expansions not shown)");

  Options o;
  o.max_expansion_statements = 10;
  EXPECT_EQ(section_bytes(run(".data\n.rept 10\n.byte 1\n.endr\n", o), ".data"), Bytes(10, 1));
  EXPECT_EQ(first_error(".data\n.rept 11\n.byte 1\n.endr\n", o),
            "3:1: macro and repetition expansion exceeds 10 statements in one pass");
  // Arguments substituted into arguments double at every level: 2^25 bytes
  // after 25 levels, past the 1 MiB limit for one statement (at 2^21 bytes,
  // the 21st expansion).  Reported at the first use, line 4.
  const Result dbl = run(".macro d x\nd \\x\\x\n.endm\nd 1\n");
  ASSERT_FALSE(dbl.diagnostics.empty());
  EXPECT_EQ(fmt::format("{}:{}: {}", dbl.diagnostics[0].line, dbl.diagnostics[0].column, dbl.diagnostics[0].message),
            "4:1: statement after macro substitution is longer than 1048576 bytes");
  // One error repeated by an expansion is reported at most 1000 times.
  const Result many = run(".rept 5000\nbogus\n.endr\n");
  ASSERT_EQ(many.diagnostics.size(), 1001u);
  EXPECT_EQ(many.diagnostics[1000].message, "more than 1000 errors; the rest are not reported");
  // Nested repetitions multiply: caught by the same limit.
  EXPECT_EQ(first_error(".rept 1000\n.rept 1000\n.rept 1000\n.endr\n.endr\n.endr\n", o),
            "3:1: macro and repetition expansion exceeds 10 statements in one pass");
}

}  // namespace
}  // namespace pto::as
