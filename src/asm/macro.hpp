// GNU-as macro text handling for the assembler (docs/assembly.md "Macros and
// repetition"): `.macro` headers, invocation arguments and `\name`
// substitution.  The expansion itself (a stack of bodies replayed statement by
// statement) lives in assembler.cpp.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "asm/text.hpp"

namespace pto::as {

// One statement of a `.macro` or `.rept`/`.irp`/`.irpc` body, kept as written
// (comments removed) with where it came from.
struct BodyStatement {
  std::string text;
  std::size_t line_no = 0;      // 0-based source line
  std::size_t column_base = 0;  // column of text[0] in that line
};
using Body = std::vector<BodyStatement>;

struct MacroParam {
  std::string name;
  std::string default_value;  // used when the argument is omitted or empty
  bool required = false;      // `name:req`
  bool vararg = false;        // `name:vararg` (last parameter): the rest of the arguments
};

struct MacroDef {
  std::string name;  // lower case (macro names are case-insensitive)
  std::vector<MacroParam> params;
  std::shared_ptr<const Body> body;  // shared: an expansion outlives `.purgem`
  std::size_t def_line = 0;          // 1-based line of the `.macro`
};

// Parameter name -> argument text.
using Bindings = std::vector<std::pair<std::string, std::string>>;

// Parameter names (also of `.irp`/`.irpc`): [A-Za-z_$][A-Za-z0-9_$]*.  A '.'
// ends a name, so `\reg.sw` substitutes `reg`.
bool is_param_name(std::string_view s);

// Parses the operands of `.macro` after the directive:
// `NAME [param[:req|:vararg][=default]][, ...]` (commas or blanks between
// parameters).  Fails through the cursor.
MacroDef parse_macro_header(Cursor& c);

// One argument of an invocation: its text (trimmed) and its column.
struct MacroArg {
  std::string_view text;
  std::size_t column = 0;
};
// Splits `line[begin..]` at commas outside quotes and (), [], {}.  An empty
// rest gives no arguments.
std::vector<MacroArg> split_arguments(std::string_view line, std::size_t begin);

// Binds invocation arguments (positional, or `param=value`) to the macro's
// parameters, applying defaults, `:req` and `:vararg`.  `c` is the cursor of
// the invocation line (for error columns); `name_column` locates the macro
// name.
Bindings bind_arguments(const MacroDef& m, const std::vector<MacroArg>& args, const Cursor& c,
                        std::size_t name_column);

// Replaces `\name` (a bound parameter), `\@` (with `counter`, when given) and
// `\()` (nothing: a separator) in `text`.  Other backslashes stay.  nullopt
// when the result would be longer than `max_bytes` (arguments substituted into
// arguments can double the text at every level of recursion).
std::optional<std::string> substitute(std::string_view text, const Bindings& bindings, std::string_view counter,
                                      std::size_t max_bytes);

}  // namespace pto::as
