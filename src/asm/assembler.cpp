#include "asm/assembler.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>
#include <limits>
#include <cctype>
#include <memory>
#include <unordered_map>
#include <unordered_set>

#include "asm/linker_script.hpp"
#include "asm/macro.hpp"
#include "asm/syntax.hpp"
#include "asm/text.hpp"

namespace pto::as {

namespace {

// "file:line:col: KIND: message", the line and a caret under the column.
// Control bytes of the input appear as \xNN; the caret sits under the
// escaped text of the columns before it.
std::string located_message(std::string_view file, std::string_view kind, std::size_t line, std::size_t column,
                            std::string_view message, std::string_view source) {
  const std::size_t before = std::min(column > 0 ? column - 1 : 0, source.size());
  std::string caret = escape_control(source.substr(0, before));
  for (char& ch : caret)
    if (ch != '\t') ch = ' ';
  caret.resize(std::max(caret.size(), column > 0 ? column - 1 + (caret.size() - before) : 0), ' ');
  return fmt::format("{}:{}:{}: {}: {}\n  {}\n  {}^\n", file, line, column, kind, escape_control(message),
                     escape_control(source), caret);
}

}  // namespace

std::string Diagnostic::format() const {
  if (line == 0) return fmt::format("{}: error: {}\n", file, escape_control(message));  // not tied to a source line
  std::string out = located_message(file, "error", line, column, message, source);
  for (const Note& n : notes) out += located_message(file, "note", n.line, n.column, n.message, n.source);
  return out;
}

namespace {

constexpr int kMaxPasses = 4;
constexpr std::size_t kMaxNotes = 16;    // expansion notes printed per diagnostic
constexpr std::size_t kMaxErrors = 1000;  // diagnostics reported per run

struct SectionState {
  std::string name;
  std::uint32_t type = elf::SHT_PROGBITS;
  std::uint64_t flags = elf::SHF_ALLOC;
  std::optional<std::uint64_t> fixed_start;  // --section-start or .section address operand
  std::string placed_by;                     // what set fixed_start (for the address-wrap error)
  std::uint64_t start = 0;                   // this pass's address
  std::vector<std::uint8_t> data;
  std::uint64_t size = 0;  // NOBITS size / data size
  std::uint64_t align = 2;
  bool wrap_reported = false;  // this pass
};

struct SymbolState {
  int section = -1;  // -1: absolute (.set)
  std::uint64_t offset = 0;
  std::int64_t value = 0;  // absolute value for section -1
  bool defined = false;
  int pass_defined = -1;  // duplicate definitions are detected per pass
  int seen_pass = -1;     // last pass that defined it (label or .set): `.ifdef`
  bool global = false;
  bool local_directive = false;
  std::uint8_t type = elf::STT_NOTYPE;
  std::uint64_t size = 0;
  std::size_t line = 0;
};

struct Statement {
  std::string_view text;  // without comments
  std::size_t offset;     // of `text` within the source line
};

// Splits a line into statements at ';' and drops '#' and '//' comments, both
// outside string literals.  '#' after an identifier character (t#1, T#3) is
// part of the operand.  `out` is reused across lines (no allocation per line).
void split_statements(std::string_view line, std::vector<Statement>& out) {
  out.clear();
  std::size_t start = 0;
  bool in_string = false;
  std::size_t i = 0;
  for (; i < line.size(); ++i) {
    const char c = line[i];
    if (in_string) {
      if (c == '\\') ++i;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == ';') {
      out.push_back({line.substr(start, i - start), start});
      start = i + 1;
    } else if ((c == '#' && (i == 0 || !is_alnum(line[i - 1]))) ||
               (c == '/' && i + 1 < line.size() && line[i + 1] == '/')) {
      break;
    }
  }
  out.push_back({line.substr(start, std::min(i, line.size()) - start), start});
}

// Identifier at `pos` (no whitespace skipped), as the Cursor reads it.
std::string_view word_at(std::string_view view, std::size_t pos) {
  Cursor c(view, pos);
  return c.pos() < view.size() && view[pos] != ' ' && view[pos] != '\t' ? c.ident() : std::string_view{};
}

// ---- expansion bookkeeping (macros, .rept/.irp/.irpc, conditionals) ----

enum class BlockKind { Macro, Rept, Irp, Irpc };

std::string_view block_name(BlockKind k) {
  switch (k) {
    case BlockKind::Macro: return ".macro";
    case BlockKind::Rept: return ".rept";
    case BlockKind::Irp: return ".irp";
    case BlockKind::Irpc: return ".irpc";
  }
  return "";
}

// `.macro` bodies nest `.macro`/`.endm`; repetition bodies nest
// `.rept`/`.irp`/`.irpc` with `.endr` (as in GNU as).
bool opens_block(BlockKind k, std::string_view word) {
  if (k == BlockKind::Macro) return iequals(word, ".macro");
  return iequals(word, ".rept") || iequals(word, ".irp") || iequals(word, ".irpc");
}
bool closes_block(BlockKind k, std::string_view word) {
  return iequals(word, k == BlockKind::Macro ? ".endm" : ".endr");
}

// One active expansion as diagnostics name it.
struct Frame {
  BlockKind kind = BlockKind::Macro;
  std::string name;          // macro name (macros)
  std::size_t def_line = 0;  // 1-based line of the opening directive
  Note use;                  // the invocation (macros) or the opening directive
  const Frame* parent = nullptr;
  std::uint64_t iteration = 0;  // 0-based (repetitions)
};

struct Expansion {
  Frame frame;
  std::shared_ptr<const Body> body;
  Bindings bindings;                // of the current iteration
  std::vector<std::string> values;  // .irp/.irpc: one per iteration
  std::string counter;              // `\@` (macros)
  std::uint64_t iterations = 1;
  std::size_t next = 0;        // next body statement
  std::size_t cond_depth = 0;  // open conditionals when the expansion began
  bool exiting = false;        // .exitm or the statement limit: ends at the next step
  std::string text;            // the statement being assembled (after substitution)
};

// A `.macro`/`.rept`/`.irp`/`.irpc` whose body is being collected.
struct Collecting {
  BlockKind kind = BlockKind::Macro;
  int depth = 1;
  std::size_t level = 0;  // expansion depth where it opened
  MacroDef macro;
  bool discard = false;  // a `.macro` whose header was wrong
  std::uint64_t count = 0;
  std::string param;
  std::vector<std::string> values;
  Body body;
  Note opening;
  Diagnostic unterminated;  // final pass: the opening's location
};

struct Conditional {
  bool parent_active = true;
  bool taken = false;  // a branch has been chosen
  bool active = false;
  bool else_seen = false;
  Diagnostic unterminated;  // final pass: the opening's location
};

// Where the statement being assembled comes from.
struct StatementSource {
  std::string_view text;        // what the parser reads (the source line at top level)
  std::size_t line_no = 0;      // 0-based source line
  std::size_t column_base = 0;  // column of text[0] in that line
  const Frame* frame = nullptr;
};

class Assembler : public ExprEnv {
 public:
  Assembler(std::string_view source, std::string_view file, const Options& opt)
      : source_(source), file_(file), opt_(opt) {
    std::size_t p = 0;
    while (p <= source_.size()) {
      const std::size_t e = source_.find('\n', p);
      std::string_view l = source_.substr(p, e == std::string_view::npos ? std::string_view::npos : e - p);
      if (!l.empty() && l.back() == '\r') l.remove_suffix(1);
      lines_.push_back(l);
      if (e == std::string_view::npos) break;
      p = e + 1;
    }
  }

  Result run() {
    Result r;
    for (int pass = 0; pass < kMaxPasses; ++pass) {
      pass_ = pass;
      // After an expansion limit the result is an error: report it at once.
      final_ = pass == kMaxPasses - 1 || (pass > 0 && stable_) || expansion_limit_hit_;
      run_pass();
      if (final_) break;
      layout();
    }
    r.diagnostics = std::move(diags_);
    if (r.diagnostics.empty()) finish(r);
    r.listing = std::move(listing_);
    if (!r.diagnostics.empty()) r.image.reset();
    return r;
  }

  // ExprEnv
  std::optional<std::int64_t> symbol(std::string_view name) const override {
    const auto it = symbols_.find(std::string(name));
    if (it != symbols_.end() && it->second.defined) return value_of(it->second);
    if (const auto sym = script_symbols_.find(std::string(name)); sym != script_symbols_.end()) {
      script_references_.insert(sym->first);
      return static_cast<std::int64_t>(sym->second);
    }
    return std::nullopt;
  }
  std::optional<std::int64_t> local_label(unsigned n, bool forward) const override {
    const auto it = locals_.find(n);
    if (it == locals_.end()) return std::nullopt;
    // Definitions in source order; pick the nearest before/after this statement.
    const auto& defs = it->second;
    if (forward) {
      for (const auto& d : defs)
        if (d.first > stmt_index_) return static_cast<std::int64_t>(sections_[d.second.first].start + d.second.second);
    } else {
      for (auto d = defs.rbegin(); d != defs.rend(); ++d)
        if (d->first <= stmt_index_)
          return static_cast<std::int64_t>(sections_[d->second.first].start + d->second.second);
    }
    return std::nullopt;
  }
  std::uint64_t dot() const override { return here(); }
  bool final_pass() const override { return final_; }

 private:
  // ---- state per pass ----
  std::uint64_t here() const { return sections_[cur_].start + offset(); }
  std::uint64_t offset() const { return sections_[cur_].size; }
  std::int64_t value_of(const SymbolState& s) const {
    return s.section < 0 ? s.value
                         : static_cast<std::int64_t>(sections_[static_cast<std::size_t>(s.section)].start + s.offset);
  }

  // ---- diagnostics ----

  // The statement's line as assembled: the source line at top level; inside
  // an expansion the substituted statement after the line's own prefix.
  std::string source_text() const {
    const std::string_view line = lines_[src_.line_no];
    if (!src_.frame) return std::string(line);
    return std::string(line.substr(0, std::min(src_.column_base, line.size()))) + std::string(src_.text);
  }

  Note position(std::size_t column) const {
    return {src_.line_no + 1, src_.column_base + column + 1, {}, source_text()};
  }

  static std::string frame_note(const Frame& f, std::string_view file) {
    if (f.kind == BlockKind::Macro)
      return fmt::format("in expansion of macro '{}' defined at {}:{}", f.name, file, f.def_line);
    return fmt::format("in iteration {} of this {}", f.iteration + 1, block_name(f.kind));
  }

  // An error at `column` of the current statement.  Inside a macro expansion
  // it is located at the outermost use, with a note per expansion.
  // Only the notes that are printed are built (kMaxNotes of them).
  Diagnostic located(std::size_t column, std::string message) const {
    const Note first = position(column);
    const Note* here = &first;
    std::vector<Note> notes;
    std::size_t more = 0;  // frames beyond kMaxNotes
    for (const Frame* f = src_.frame; f; f = f->parent) {
      const Note& at = f->kind == BlockKind::Macro ? *here : f->use;
      if (notes.size() < kMaxNotes) notes.push_back({at.line, at.column, frame_note(*f, file_), at.source});
      else ++more;
      if (f->kind == BlockKind::Macro) here = &f->use;
    }
    if (more > 0) {
      notes.resize(kMaxNotes - 1);
      notes.push_back({here->line, here->column, fmt::format("({} outer expansions not shown)", more + 1),
                       here->source});
    }
    return {std::string(file_), here->line, here->column, std::move(message), here->source, std::move(notes)};
  }

  void error(std::size_t column, std::string message) {
    if (!final_ || !room_for_error()) return;  // earlier passes only compute sizes
    diags_.push_back(located(column, escape_control(message)));  // never echo raw control bytes
  }

  // At most kMaxErrors are reported (an expansion can repeat one error
  // millions of times); then one line says so.
  bool room_for_error() {
    if (diags_.size() < kMaxErrors) return true;
    if (diags_.size() == kMaxErrors)
      diags_.push_back({std::string(file_), 0, 0,
                        fmt::format("more than {} errors; the rest are not reported", kMaxErrors), "", {}});
    return false;
  }

  // A located diagnostic saved for later (an unterminated block); only the
  // final pass reports anything.
  Diagnostic saved_location(std::size_t column) const { return final_ ? located(column, "") : Diagnostic{}; }
  void report_saved(Diagnostic d, std::string message) {
    if (!final_ || !room_for_error()) return;
    d.message = std::move(message);
    diags_.push_back(std::move(d));
  }

  int section_index(std::string_view name) {
    for (std::size_t i = 0; i < sections_.size(); ++i)
      if (sections_[i].name == name) return static_cast<int>(i);
    SectionState s;
    s.name = std::string(name);
    if (name == ".text" || name.starts_with(".text.")) s.flags = elf::SHF_ALLOC | elf::SHF_EXECINSTR;
    else if (name == ".data" || name.starts_with(".data.")) s.flags = elf::SHF_ALLOC | elf::SHF_WRITE;
    else if (name == ".bss" || name.starts_with(".bss.")) s.flags = elf::SHF_ALLOC | elf::SHF_WRITE, s.type = elf::SHT_NOBITS;
    else if (name == ".rodata" || name.starts_with(".rodata.")) s.flags = elf::SHF_ALLOC;
    if (const auto it = opt_.section_start.find(s.name); it != opt_.section_start.end()) {
      s.fixed_start = it->second;
      s.placed_by = fmt::format("--section-start {}={:#x}", s.name, it->second);
    }
    sections_.push_back(std::move(s));
    placed_by_org_.push_back(false);
    return static_cast<int>(sections_.size() - 1);
  }

  // ---- the statement stream ----

  void run_pass() {
    for (auto& s : sections_) {
      s.data.clear();
      s.size = 0;
      s.wrap_reported = false;
    }
    total_data_ = 0;
    listing_.clear();
    macros_.clear();
    cond_.clear();
    collect_.reset();
    stack_.clear();
    macro_counter_ = 0;
    expanded_ = 0;
    cur_ = static_cast<std::size_t>(section_index(".text"));
    if (script()) add_identity_note();
    stmt_index_ = 0;
    top_line_ = 0;
    top_stmt_ = 0;
    split_statements(lines_[0], statements_);
    while (next_statement()) {
    }
    end_of_input();
  }

  // Assembles the next statement: from the innermost expansion, or the next
  // one of the source.  False at the end of the source.
  bool next_statement() {
    if (!stack_.empty()) {
      step_expansion();
      return true;
    }
    while (top_stmt_ == statements_.size()) {
      if (top_line_ + 1 >= lines_.size()) return false;
      split_statements(lines_[++top_line_], statements_);
      top_stmt_ = 0;
    }
    const Statement st = statements_[top_stmt_++];
    src_ = {lines_[top_line_].substr(0, st.offset + st.text.size()), top_line_, 0, nullptr};
    statement(st.offset);
    return true;
  }

  void step_expansion() {
    Expansion& e = *stack_.back();
    if (e.exiting) return end_expansion();
    if (e.next == e.body->size()) {
      if (++e.frame.iteration >= e.iterations) return end_expansion();
      e.next = 0;
      bind_iteration(e);
    }
    const BodyStatement& b = (*e.body)[e.next++];
    auto text = substitute(b.text, e.bindings, e.counter, kMaxExpandedStatementBytes);
    e.text = text ? std::move(*text) : b.text;
    src_ = {e.text, b.line_no, b.column_base, &e.frame};
    if (!text) return abort_expansions(fmt::format("statement after macro substitution is longer than {} bytes",
                                                   kMaxExpandedStatementBytes));
    if (++expanded_ > opt_.max_expansion_statements)
      return abort_expansions(fmt::format("macro and repetition expansion exceeds {} statements in one pass",
                                          opt_.max_expansion_statements));
    statement(0);
  }

  // Reports an expansion limit at the current statement and ends every
  // active expansion.
  void abort_expansions(std::string message) {
    expansion_limit_hit_ = true;
    error(0, std::move(message));
    for (auto& x : stack_) x->exiting = true;
  }

  static void bind_iteration(Expansion& e) {
    if (e.values.empty()) return;
    e.bindings.front().second = e.values[static_cast<std::size_t>(e.frame.iteration)];
  }

  void end_expansion() {
    Expansion& e = *stack_.back();
    if (!e.exiting) {
      if (collect_ && collect_->level == stack_.size())
        report_saved(std::move(collect_->unterminated), unterminated_block_message(*collect_));
      if (cond_.size() > e.cond_depth) report_saved(std::move(cond_[e.cond_depth].unterminated), std::string(kUnterminatedIf));
    }
    if (collect_ && collect_->level >= stack_.size()) collect_.reset();
    if (cond_.size() > e.cond_depth) cond_.erase(cond_.begin() + static_cast<std::ptrdiff_t>(e.cond_depth), cond_.end());
    stack_.pop_back();
  }

  static constexpr std::string_view kUnterminatedIf = "unterminated .if (missing .endif)";
  static std::string unterminated_block_message(const Collecting& c) {
    if (c.kind == BlockKind::Macro) return fmt::format("unterminated .macro '{}' (missing .endm)", c.macro.name);
    return fmt::format("unterminated {} (missing .endr)", block_name(c.kind));
  }

  void end_of_input() {
    if (collect_) report_saved(std::move(collect_->unterminated), unterminated_block_message(*collect_));
    if (!cond_.empty()) report_saved(std::move(cond_.front().unterminated), std::string(kUnterminatedIf));
  }

  // ---- one statement ----

  // Skips `label:` prefixes from `pos`, defining them when `define`; returns
  // the position of what follows (whitespace skipped).
  std::size_t labels(std::string_view view, std::size_t pos, bool define) {
    while (true) {
      while (pos < view.size() && (view[pos] == ' ' || view[pos] == '\t')) ++pos;
      std::size_t p = pos;
      while (p < view.size() && (is_alnum(view[p]) || view[p] == '_' || view[p] == '.' || view[p] == '$')) ++p;
      if (p > pos && p < view.size() && view[p] == ':') {
        if (define) define_label(view.substr(pos, p - pos), pos);
        pos = p + 1;
        continue;
      }
      return pos;
    }
  }

  void define_label(std::string_view name, std::size_t column) {
    if (std::all_of(name.begin(), name.end(), is_digit)) {
      unsigned n = 0;
      const auto [end, ec] = std::from_chars(name.data(), name.data() + name.size(), n);
      if (ec != std::errc{} || end != name.data() + name.size()) {
        error(column, fmt::format("local label number '{}' is too large (at most {})", name,
                                  std::numeric_limits<unsigned>::max()));
        return;
      }
      auto& defs = locals_[n];
      const std::pair<std::size_t, std::uint64_t> where{cur_, offset()};
      auto it = std::find_if(defs.begin(), defs.end(), [&](const auto& d) { return d.first == stmt_index_; });
      if (it == defs.end()) defs.push_back({stmt_index_, where});
      else it->second = where;
      return;
    }
    SymbolState& s = symbols_[std::string(name)];
    if (s.pass_defined == pass_) {
      error(column, fmt::format("symbol '{}' is already defined (line {})", name, s.line));
      return;
    }
    s.defined = true;
    s.pass_defined = pass_;
    s.seen_pass = pass_;
    s.section = static_cast<int>(cur_);
    s.offset = offset();
    s.line = src_.line_no + 1;
  }

  // Runs `f`, turning a parse failure into an error.
  template <typename F>
  void guarded(F&& f) {
    try {
      f();
    } catch (const ParseFailure& failure) {
      error(failure.error.column, failure.error.message);
    }
  }

  // Assembles src_.text from `start`.
  void statement(std::size_t start) {
    ++stmt_index_;
    const std::string_view view = src_.text;
    if (collect_) return collect(view, start);
    const std::size_t word_col = labels(view, start, false);
    const std::string_view word = word_at(view, word_col);
    if (is_conditional(word)) {
      if (!skipping()) labels(view, start, true);
      return guarded([&] { conditional(word, view, word_col); });
    }
    if (skipping()) return;
    const std::size_t col = labels(view, start, true);
    if (col >= view.size()) return;
    const std::uint64_t at = here();
    const std::size_t size_before = sections_[cur_].data.size();
    const std::size_t sec_before = cur_;
    guarded([&] {
      Cursor c(view, col);
      if (expansion_statement(word, c, col)) return;
      if (view[col] == '.') directive(c, view);
      else instruction(view, col);
    });
    if (opt_.listing && final_ && cur_ == sec_before && sections_[cur_].data.size() > size_before) {
      const auto& d = sections_[cur_].data;
      listing_.push_back({sections_[cur_].name, at,
                          {d.begin() + static_cast<std::ptrdiff_t>(size_before), d.end()},
                          src_.line_no + 1,
                          source_text()});
    }
  }

  // ---- macros and repetition ----

  // `.macro`, `.rept`, `.irp`, `.irpc`, `.endm`, `.endr`, `.exitm`,
  // `.purgem` and macro invocations; false for anything else.
  bool expansion_statement(std::string_view word, Cursor& c, std::size_t col) {
    if (word.empty()) return false;
    const auto after_word = [&] { c.set_pos(col + word.size()); };
    if (iequals(word, ".macro")) {
      after_word();
      begin_macro(c, col);
    } else if (iequals(word, ".rept")) {
      after_word();
      begin_rept(c, col);
    } else if (iequals(word, ".irp") || iequals(word, ".irpc")) {
      after_word();
      begin_irp(c, col, iequals(word, ".irpc") ? BlockKind::Irpc : BlockKind::Irp);
    } else if (iequals(word, ".endm")) {
      c.fail_at(col, "'.endm' without '.macro'");
    } else if (iequals(word, ".endr")) {
      c.fail_at(col, "'.endr' without '.rept', '.irp' or '.irpc'");
    } else if (iequals(word, ".exitm")) {
      after_word();
      exit_macro(c, col);
    } else if (iequals(word, ".purgem")) {
      after_word();
      purge_macro(c);
    } else if (const MacroDef* m = find_macro(word)) {
      after_word();
      invoke(*m, c, col);
      return true;
    } else {
      return false;
    }
    expect_end(c, word);
    return true;
  }

  static void expect_end(Cursor& c, std::string_view what) {
    if (!c.at_end()) c.fail(fmt::format("unexpected '{}' after {}", c.line().substr(c.pos()), what));
  }

  const MacroDef* find_macro(std::string_view word) const {
    if (macros_.empty()) return nullptr;
    const auto it = macros_.find(to_lower(word));
    return it == macros_.end() ? nullptr : &it->second;
  }

  Collecting& begin_block(BlockKind kind, std::size_t col) {
    collect_.emplace();
    collect_->kind = kind;
    collect_->level = stack_.size();
    collect_->opening = position(col);
    collect_->unterminated = saved_location(col);
    return *collect_;
  }

  void begin_macro(Cursor& c, std::size_t col) {
    Collecting& k = begin_block(BlockKind::Macro, col);
    k.discard = true;  // until the header has been read
    k.macro = parse_macro_header(c);
    k.macro.def_line = src_.line_no + 1;
    if (const auto it = macros_.find(k.macro.name); it != macros_.end())
      c.fail_at(col, fmt::format("macro '{}' is already defined (line {})", k.macro.name, it->second.def_line));
    k.discard = false;
  }

  void begin_rept(Cursor& c, std::size_t col) {
    Collecting& k = begin_block(BlockKind::Rept, col);
    c.skip_ws();
    const std::size_t acol = c.pos();
    const ExprValue n = parse_expression(c, *this);
    if (n.value < 0) c.fail_at(acol, fmt::format("negative .rept count {}", n.value));
    if (n.resolved) k.count = static_cast<std::uint64_t>(n.value);
  }

  void begin_irp(Cursor& c, std::size_t col, BlockKind kind) {
    Collecting& k = begin_block(kind, col);
    c.skip_ws();
    const std::size_t pcol = c.pos();
    const std::vector<MacroArg> parts = split_arguments(c.line(), pcol);
    if (parts.empty() || parts.front().text.empty() || !is_param_name(parts.front().text))
      c.fail_at(pcol, fmt::format("expected '{} name[, values]'", block_name(kind)));
    k.param = std::string(parts.front().text);
    for (std::size_t i = 1; i < parts.size(); ++i) {
      if (kind == BlockKind::Irp) {
        k.values.emplace_back(parts[i].text);
        continue;
      }
      if (i > 1) c.fail_at(parts[i].column, "'.irpc' takes one string of characters");
      for (char ch : parts[i].text) k.values.emplace_back(1, ch);
    }
    if (k.values.empty()) k.values.emplace_back();  // once, with the parameter empty (GNU as)
    k.count = k.values.size();
    c.set_pos(c.line().size());
  }

  // A statement while a body is collected: nested blocks of the same family
  // are counted, and the matching end closes the body.
  void collect(std::string_view view, std::size_t start) {
    Collecting& k = *collect_;
    const std::size_t word_col = labels(view, start, false);
    const std::string_view word = word_at(view, word_col);
    if (opens_block(k.kind, word)) {
      ++k.depth;
    } else if (closes_block(k.kind, word) && --k.depth == 0) {
      return guarded([&] { end_block(view, word_col, word); });
    }
    k.body.push_back({std::string(view.substr(start)), src_.line_no, src_.column_base + start});
  }

  void end_block(std::string_view view, std::size_t col, std::string_view word) {
    Collecting k = std::move(*collect_);
    collect_.reset();
    Cursor c(view, col + word.size());
    if (k.kind == BlockKind::Macro) {
      if (!k.discard) {
        k.macro.body = std::make_shared<const Body>(std::move(k.body));
        const std::string name = k.macro.name;
        macros_.emplace(name, std::move(k.macro));
      }
    } else if (k.count > 0 && !k.body.empty()) {
      auto e = std::make_unique<Expansion>();
      e->frame = {k.kind, {}, k.opening.line, std::move(k.opening), nullptr, 0};
      e->body = std::make_shared<const Body>(std::move(k.body));
      e->iterations = k.count;
      if (k.kind != BlockKind::Rept) {
        e->bindings.emplace_back(std::move(k.param), std::string());
        e->values = std::move(k.values);
        bind_iteration(*e);
      }
      push_expansion(std::move(e), c, col, "");
    }
    expect_end(c, word);
  }

  void push_expansion(std::unique_ptr<Expansion> e, const Cursor& c, std::size_t col, std::string_view macro) {
    if (stack_.size() >= kMaxExpansionDepth) {
      c.fail_at(col, macro.empty()
                         ? fmt::format("expansion is nested too deeply (more than {} levels)", kMaxExpansionDepth)
                         : fmt::format("macro expansion is nested too deeply (more than {} levels); is macro '{}' "
                                       "recursive?",
                                       kMaxExpansionDepth, macro));
    }
    e->frame.parent = src_.frame;
    e->cond_depth = cond_.size();
    stack_.push_back(std::move(e));
  }

  void invoke(const MacroDef& m, Cursor& c, std::size_t col) {
    auto e = std::make_unique<Expansion>();
    e->bindings = bind_arguments(m, split_arguments(c.line(), c.pos()), c, col);
    e->frame = {BlockKind::Macro, m.name, m.def_line, position(col), nullptr, 0};
    e->body = m.body;
    e->counter = std::to_string(macro_counter_++);
    push_expansion(std::move(e), c, col, m.name);
  }

  void exit_macro(Cursor& c, std::size_t col) {
    const auto macro = std::find_if(stack_.rbegin(), stack_.rend(),
                                    [](const auto& e) { return e->frame.kind == BlockKind::Macro; });
    if (macro == stack_.rend()) c.fail_at(col, "'.exitm' outside a macro");
    for (auto it = stack_.rbegin(); it != std::next(macro); ++it) (*it)->exiting = true;
  }

  void purge_macro(Cursor& c) {
    c.skip_ws();
    const std::size_t ncol = c.pos();
    const std::string_view name = c.ident();
    if (name.empty()) c.fail("expected a macro name after .purgem");
    if (macros_.erase(to_lower(name)) == 0) c.fail_at(ncol, fmt::format("macro '{}' is not defined", name));
  }

  // ---- conditional assembly ----

  bool skipping() const { return !cond_.empty() && !cond_.back().active; }

  static bool is_conditional(std::string_view word) {
    if (word.size() < 3 || word[0] != '.') return false;
    static constexpr std::string_view kWords[] = {".if",  ".ifdef", ".ifndef", ".ifnotdef", ".ifeq", ".ifne",
                                                  ".ifgt", ".ifge", ".iflt",   ".ifle",     ".ifb",  ".ifnb",
                                                  ".ifc", ".ifnc",  ".else",   ".elseif",   ".endif"};
    return std::any_of(std::begin(kWords), std::end(kWords), [&](std::string_view w) { return iequals(w, word); });
  }

  void conditional(std::string_view word, std::string_view view, std::size_t col) {
    Cursor c(view, col + word.size());
    const std::string w = to_lower(word);
    if (w == ".endif" || w == ".else" || w == ".elseif") {
      const std::size_t base = stack_.empty() ? 0 : stack_.back()->cond_depth;
      if (cond_.size() <= base) c.fail_at(col, fmt::format("'{}' without '.if'", w));
      Conditional& k = cond_.back();
      if (w == ".endif") {
        const bool check = k.parent_active;
        cond_.pop_back();
        if (check) expect_end(c, w);
        return;
      }
      if (k.else_seen) c.fail_at(col, fmt::format("'{}' after '.else'", w));
      const bool choose = k.parent_active && !k.taken;
      k.active = false;
      k.else_seen = w == ".else";
      if (w == ".else") k.active = choose;
      else if (choose) k.active = condition(".if", c);
      k.taken = k.taken || k.active;
      if (choose) expect_end(c, w);
      return;
    }
    Conditional k;
    k.parent_active = !skipping();
    k.taken = true;  // until evaluated: a failing condition selects no branch
    k.unterminated = saved_location(col);
    cond_.push_back(std::move(k));
    if (!cond_.back().parent_active) return;
    const bool v = condition(w, c);
    cond_.back().active = v;
    cond_.back().taken = v;
    expect_end(c, w);
  }

  // The condition of `.if`-family directive `w` from the cursor.
  bool condition(std::string_view w, Cursor& c) {
    if (w == ".ifdef" || w == ".ifndef" || w == ".ifnotdef") {
      const std::string_view name = c.ident();
      if (name.empty()) c.fail(fmt::format("expected a symbol name after {}", w));
      const auto it = symbols_.find(std::string(name));
      const bool defined = it != symbols_.end() && it->second.seen_pass == pass_;
      return w == ".ifdef" ? defined : !defined;
    }
    if (w == ".ifb" || w == ".ifnb") {
      const bool blank = c.at_end();
      c.set_pos(c.line().size());
      return w == ".ifb" ? blank : !blank;
    }
    if (w == ".ifc" || w == ".ifnc") {
      const std::vector<MacroArg> parts = split_arguments(c.line(), c.pos());
      if (parts.size() != 2) c.fail(fmt::format("expected '{} string1, string2'", w));
      c.set_pos(c.line().size());
      const bool same = unquoted(parts[0].text) == unquoted(parts[1].text);
      return w == ".ifc" ? same : !same;
    }
    c.skip_ws();
    const ExprValue v = parse_expression(c, *this);
    if (!v.resolved) return false;  // a forward reference in an early pass
    if (w == ".ifeq") return v.value == 0;
    if (w == ".ifgt") return v.value > 0;
    if (w == ".ifge") return v.value >= 0;
    if (w == ".iflt") return v.value < 0;
    if (w == ".ifle") return v.value <= 0;
    return v.value != 0;  // .if, .ifne, .elseif
  }

  static std::string_view unquoted(std::string_view s) {
    if (s.size() >= 2 && s.front() == '"' && s.back() == '"') return s.substr(1, s.size() - 2);
    return s;
  }

  // ---- output ----

  // Checks that `count` more bytes may go into the current section: the
  // output limit (refused) and the end of the address space (reported once
  // per section).
  bool make_room(std::uint64_t count, std::size_t column) {
    SectionState& s = sections_[cur_];
    const bool holds_data = s.type != elf::SHT_NOBITS;
    if (count > opt_.max_output - std::min(opt_.max_output, s.size) ||
        (holds_data && count > opt_.max_output - std::min(opt_.max_output, total_data_))) {
      error(column, fmt::format("output would exceed the limit of {} bytes (--max-output)", opt_.max_output));
      return false;
    }
    const std::uint64_t room = s.size > ~s.start ? 0 : ~s.start - s.size;  // up to the last address
    // Under a linker script the layout reports a wrap at the script's location.
    if (count > room && !s.wrap_reported && !script()) {
      s.wrap_reported = true;
      error(column, fmt::format("section {} would extend past the end of the 64-bit address space (it starts at "
                                "{:#x}{})",
                                s.name, s.start, s.placed_by.empty() ? "" : ", placed by " + s.placed_by));
    }
    if (holds_data) total_data_ += count;
    return true;
  }

  void no_data_in_nobits(std::size_t column) {
    error(column, fmt::format("non-zero data in section {}, which holds no data (only zero fill is allowed: "
                              ".zero, .skip, .space)",
                              sections_[cur_].name));
  }

  void emit(std::uint64_t value, unsigned bytes, std::size_t column) {
    if (!make_room(bytes, column)) return;
    SectionState& s = sections_[cur_];
    if (s.type == elf::SHT_NOBITS) {
      if (bytes < 8 ? (value & ((std::uint64_t{1} << (8 * bytes)) - 1)) != 0 : value != 0) no_data_in_nobits(column);
      s.size += bytes;
      return;
    }
    for (unsigned i = 0; i < bytes; ++i) s.data.push_back(static_cast<std::uint8_t>(value >> (8 * i)));
    s.size = s.data.size();
  }

  void fill(std::uint64_t count, std::uint8_t byte, std::size_t column) {
    if (!make_room(count, column)) return;
    SectionState& s = sections_[cur_];
    if (s.type == elf::SHT_NOBITS) {
      if (byte != 0 && count != 0) no_data_in_nobits(column);
      s.size += count;
      return;
    }
    s.data.insert(s.data.end(), count, byte);
    s.size = s.data.size();
  }

  void instruction(std::string_view view, std::size_t col) {
    SectionState& s = sections_[cur_];
    if (s.type == elf::SHT_NOBITS) throw ParseFailure{{col, fmt::format("instruction in section {} which holds no data", s.name)}};
    const std::uint64_t pc = here();
    if (!final_) {  // sizing pass: the mnemonic alone fixes the length of most instructions
      std::size_t end = col;
      while (end < view.size() && view[end] != ' ' && view[end] != '\t') ++end;
      if (const auto len = fixed_length_of(view.substr(col, end - col))) {
        emit(0, *len / 8, col);
        return;
      }
    }
    const ParsedInstruction p = parse_instruction(view, col, pc, *this);
    if (pc & 1) error(col, fmt::format("instruction at odd address {:#x}", pc));
    // Instruction parcels are little-endian halfwords, lowest first.
    emit(p.bits, p.length_bits / 8, col);
  }

  std::int64_t expression(Cursor& c) {
    const ExprValue v = parse_expression(c, *this);
    return v.value;
  }

  std::string string_literal(Cursor& c) {
    c.skip_ws();
    if (c.peek() != '"') c.fail("expected a string literal");
    const std::string_view l = c.line();
    std::size_t p = c.pos() + 1;
    std::string out;
    while (p < l.size() && l[p] != '"') {
      char ch = l[p++];
      if (ch == '\\' && p < l.size()) {
        const char e = l[p++];
        switch (e) {
          case 'n': ch = '\n'; break;
          case 't': ch = '\t'; break;
          case 'r': ch = '\r'; break;
          case '0': ch = '\0'; break;
          case '\\': ch = '\\'; break;
          case '"': ch = '"'; break;
          default: c.fail_at(p - 2, fmt::format("unknown escape '\\{}'", e));
        }
      }
      out += ch;
    }
    if (p >= l.size()) c.fail("unterminated string literal");
    c.set_pos(p + 1);
    return out;
  }

  void data_values(Cursor& c, unsigned bytes) {
    do {
      c.skip_ws();
      const std::size_t col = c.pos();
      const std::int64_t v = expression(c);
      if (bytes < 8) {
        const std::int64_t lo = -(std::int64_t{1} << (8 * bytes - 1));
        const std::int64_t hi = (std::int64_t{1} << (8 * bytes)) - 1;
        if (v < lo || v > hi) error(col, fmt::format("value {} does not fit in {} byte{}", v, bytes, bytes > 1 ? "s" : ""));
      }
      emit(static_cast<std::uint64_t>(v), bytes, col);
    } while (c.accept(","));
  }

  void string_values(Cursor& c, bool terminate) {
    do {
      c.skip_ws();
      const std::size_t col = c.pos();
      for (char ch : string_literal(c)) emit(static_cast<unsigned char>(ch), 1, col);
      if (terminate) emit(0, 1, col);
    } while (c.accept(","));
  }

  void align_to(std::uint64_t bytes, std::size_t col) {
    if (bytes == 0 || (bytes & (bytes - 1)) || bytes > 4096) {
      error(col, fmt::format("alignment {} is not a power of two up to 4096", bytes));
      return;
    }
    SectionState& s = sections_[cur_];
    s.align = std::max(s.align, bytes);
    const std::uint64_t pad = (bytes - here() % bytes) % bytes;
    fill(pad, 0, col);
  }

  void section_directive(Cursor& c) {
    c.skip_ws();
    const std::size_t col = c.pos();
    std::string_view name = c.ident();
    if (name.empty()) c.fail("expected a section name");
    cur_ = static_cast<std::size_t>(section_index(name));
    SectionState& s = sections_[cur_];
    if (!c.accept(",")) return;
    const std::string flags = string_literal(c);
    s.flags = 0;
    for (char f : flags) {
      if (f == 'a') s.flags |= elf::SHF_ALLOC;
      else if (f == 'w') s.flags |= elf::SHF_WRITE;
      else if (f == 'x') s.flags |= elf::SHF_EXECINSTR;
      else c.fail_at(col, fmt::format("unknown section flag '{}'", f));
    }
    if (!c.accept(",")) return;
    if (c.accept("@nobits") || c.accept("%nobits")) s.type = elf::SHT_NOBITS;
    else if (c.accept("@progbits") || c.accept("%progbits")) s.type = elf::SHT_PROGBITS;
    else c.fail("expected @progbits or @nobits");
    if (!c.accept(",")) return;
    // PTO extension: the section's load address (used by `pto dis --reassemble`).
    c.skip_ws();
    const std::size_t acol = c.pos();
    const ExprValue v = parse_expression(c, *this);
    if (!v.resolved) c.fail_at(acol, "section address must be a constant");
    if (script()) c.fail_at(acol, "a section address cannot be combined with a linker script; place the section in the script");
    if (!opt_.section_start.count(s.name)) {
      s.fixed_start = static_cast<std::uint64_t>(v.value);
      s.placed_by = fmt::format(".section {}, ..., {:#x} (line {})", s.name, *s.fixed_start, src_.line_no + 1);
    }
  }

  void symbol_attribute(Cursor& c, std::string_view dir) {
    do {
      const std::string_view name = c.ident();
      if (name.empty()) c.fail("expected a symbol name");
      SymbolState& s = symbols_[std::string(name)];
      if (dir == ".local") s.local_directive = true;
      else s.global = true;
    } while (c.accept(","));
  }

  void org_directive(Cursor& c) {
    c.skip_ws();
    const std::size_t acol = c.pos();
    const ExprValue v = parse_expression(c, *this);
    if (!v.resolved) c.fail_at(acol, ".org needs a constant address");
    const std::uint8_t fill_byte = c.accept(",") ? static_cast<std::uint8_t>(expression(c)) : 0;  // .org ADDR[, FILL]
    const auto target = static_cast<std::uint64_t>(v.value);
    SectionState& s = sections_[cur_];
    if (s.size == 0 && !s.fixed_start && !placed_by_org_[cur_] && !script()) {
      s.fixed_start = target;  // the section begins at its first .org
      s.placed_by = fmt::format(".org {:#x} (line {})", target, src_.line_no + 1);
      placed_by_org_[cur_] = true;
      s.start = target;
    }
    if (target < here()) {
      error(acol, fmt::format(".org {:#x} moves backwards (current address {:#x})", target, here()));
      return;
    }
    fill(target - here(), fill_byte, acol);
  }

  void directive(Cursor& c, std::string_view view) {
    const std::size_t col = c.pos();
    const std::string dir = to_lower(c.ident());
    if (dir == ".text" || dir == ".data" || dir == ".bss") {
      cur_ = static_cast<std::size_t>(section_index(dir));
    } else if (dir == ".section") {
      section_directive(c);
    } else if (dir == ".globl" || dir == ".global" || dir == ".local") {
      symbol_attribute(c, dir);
    } else if (dir == ".byte") {
      data_values(c, 1);
    } else if (dir == ".half" || dir == ".short" || dir == ".2byte") {
      data_values(c, 2);
    } else if (dir == ".word" || dir == ".long" || dir == ".4byte") {
      data_values(c, 4);
    } else if (dir == ".dword" || dir == ".quad" || dir == ".8byte") {
      data_values(c, 8);
    } else if (dir == ".zero" || dir == ".space" || dir == ".skip") {
      c.skip_ws();
      const std::size_t acol = c.pos();
      const ExprValue n = parse_expression(c, *this);
      std::int64_t byte = 0;
      if (c.accept(",")) byte = expression(c);
      if (!n.resolved) c.fail_at(acol, "size must be a constant or a backward reference");
      if (n.value < 0) c.fail_at(acol, fmt::format("negative size {}", n.value));
      fill(static_cast<std::uint64_t>(n.value), static_cast<std::uint8_t>(byte), acol);
    } else if (dir == ".ascii" || dir == ".asciz" || dir == ".string") {
      string_values(c, dir != ".ascii");
    } else if (dir == ".align" || dir == ".p2align" || dir == ".balign") {
      c.skip_ws();
      const std::size_t acol = c.pos();
      const std::int64_t v = expression(c);
      if (v < 0 || v > 12) {
        if (dir != ".balign") c.fail_at(acol, fmt::format("alignment exponent {} is out of range [0, 12]", v));
      }
      align_to(dir == ".balign" ? static_cast<std::uint64_t>(v) : (std::uint64_t{1} << std::clamp<std::int64_t>(v, 0, 12)), acol);
    } else if (dir == ".org") {
      org_directive(c);
    } else if (dir == ".set" || dir == ".equ") {
      const std::string_view name = c.ident();
      if (name.empty() || !c.accept(",")) c.fail(fmt::format("expected '{} name, expression'", dir));
      const ExprValue v = parse_expression(c, *this);
      SymbolState& s = symbols_[std::string(name)];
      s.section = -1;
      s.value = v.value;
      s.defined = v.resolved;
      s.seen_pass = pass_;
      s.line = src_.line_no + 1;
    } else if (dir == ".type") {
      const std::string_view name = c.ident();
      if (name.empty() || !c.accept(",")) c.fail("expected '.type name, @function|@object'");
      SymbolState& s = symbols_[std::string(name)];
      if (c.accept("@function") || c.accept("%function") || c.accept("STT_FUNC")) s.type = elf::STT_FUNC;
      else if (c.accept("@object") || c.accept("%object") || c.accept("STT_OBJECT")) s.type = elf::STT_OBJECT;
      else if (c.accept("@notype") || c.accept("%notype")) s.type = elf::STT_NOTYPE;
      else c.fail("expected @function, @object or @notype");
    } else if (dir == ".size") {
      const std::string_view name = c.ident();
      if (name.empty() || !c.accept(",")) c.fail("expected '.size name, expression'");
      const ExprValue v = parse_expression(c, *this);
      symbols_[std::string(name)].size = static_cast<std::uint64_t>(v.value);
    } else {
      c.fail_at(col, fmt::format("unknown directive '{}'", dir));
    }
    if (!c.at_end()) c.fail(fmt::format("unexpected '{}' after {}", view.substr(c.pos()), dir));
  }

  // Places sections without a fixed start after the previous ones.  Near the
  // top of the address space the start saturates at the last aligned address
  // (anything emitted there is then reported as an address wrap).
  void layout() {
    if (script()) {
      stable_ = apply_script_layout(run_script_layout());
      return;
    }
    std::vector<std::uint64_t> before;
    for (const auto& s : sections_) before.push_back(s.start);
    std::uint64_t next = opt_.default_text_start;
    for (auto& s : sections_) {
      if (s.fixed_start) {
        s.start = *s.fixed_start;
      } else {
        const std::uint64_t a = std::max<std::uint64_t>(s.align, 16);
        s.start = next > ~std::uint64_t{0} - (a - 1) ? ~std::uint64_t{0} & ~(a - 1) : (next + a - 1) / a * a;
      }
      next = std::max(next, s.size > ~s.start ? ~std::uint64_t{0} : s.start + s.size);
    }
    stable_ = true;
    for (std::size_t i = 0; i < sections_.size(); ++i)
      if (i >= before.size() || before[i] != sections_[i].start) stable_ = false;
  }

  // With -O binary: the flat image (lowest to highest loaded byte) must fit
  // the output limit.
  void check_flat_span(Result& r, const elf::Image& im) const {
    if (!opt_.flat_binary) return;
    const elf::Segment* lo = nullptr;
    const elf::Segment* hi = nullptr;
    for (const auto& s : im.segments) {
      if (s.data.empty()) continue;
      if (!lo || s.vaddr < lo->vaddr) lo = &s;
      if (!hi || s.vaddr + s.data.size() > hi->vaddr + hi->data.size()) hi = &s;
    }
    if (!lo || hi->vaddr + hi->data.size() - lo->vaddr <= opt_.max_output) return;
    r.diagnostics.push_back({std::string(file_), 0, 0,
                             fmt::format("-O binary: the image spans [{:#x}, {:#x}), {} bytes, more than the limit "
                                         "of {} bytes (--max-output)",
                                         lo->vaddr, hi->vaddr + hi->data.size(), hi->vaddr + hi->data.size() - lo->vaddr,
                                         opt_.max_output),
                             "",
                             {}});
  }

  void finish(Result& r) {
    elf::Image im;
    im.type = elf::ET_EXEC;
    im.identity = elf::our_identity();
    if (script()) place_with_script(im, r);
    else place_sections(im, r);
    check_flat_span(r, im);
    add_symbols(im, r);
    set_entry(im, r);
    if (r.diagnostics.empty()) r.image = std::move(im);
  }

  // One PT_LOAD per non-empty allocated section.
  void place_sections(elf::Image& im, Result& r) {
    shndx_.assign(sections_.size(), elf::SHN_UNDEF);
    struct Range {
      std::uint64_t begin, end;
      std::size_t s;
    };
    std::vector<Range> ranges;
    for (std::size_t i = 0; i < sections_.size(); ++i) {
      const SectionState& s = sections_[i];
      if (s.size == 0 && s.name != ".text") continue;
      im.sections.push_back({s.name, s.type, s.flags, s.start, s.size, s.data});
      shndx_[i] = static_cast<std::uint16_t>(im.sections.size());
      if (s.size == 0 || !(s.flags & elf::SHF_ALLOC)) continue;
      std::uint32_t pf = elf::PF_R;
      if (s.flags & elf::SHF_WRITE) pf |= elf::PF_W;
      if (s.flags & elf::SHF_EXECINSTR) pf |= elf::PF_X;
      im.segments.push_back({s.start, s.size, pf, s.data});
      ranges.push_back({s.start, s.start + s.size, i});
    }
    std::sort(ranges.begin(), ranges.end(), [](const Range& a, const Range& b) { return a.begin < b.begin; });
    for (std::size_t i = 1; i < ranges.size(); ++i) {
      if (ranges[i].begin < ranges[i - 1].end) {
        const auto& a = sections_[ranges[i - 1].s];
        const auto& b = sections_[ranges[i].s];
        r.diagnostics.push_back({std::string(file_), 0, 0,
                                 fmt::format("sections {} [{:#x}, {:#x}) and {} [{:#x}, {:#x}) overlap", a.name,
                                             a.start, a.start + a.size, b.name, b.start, b.start + b.size),
                                 "",
                                 {}});
      }
    }
  }

  void add_symbols(elf::Image& im, Result& r) {
    for (const auto& [name, s] : symbols_) {
      if (!s.defined) {
        if (s.global)
          r.diagnostics.push_back(
              {std::string(file_), 0, 0, fmt::format("global symbol '{}' is never defined", name), "", {}});
        continue;
      }
      const std::uint16_t shndx = s.section < 0 ? elf::SHN_ABS : shndx_[static_cast<std::size_t>(s.section)];
      im.symbols.push_back({name, static_cast<std::uint64_t>(value_of(s)), s.size, s.type,
                            s.global && !s.local_directive ? elf::STB_GLOBAL : elf::STB_LOCAL, shndx});
    }
  }

  // --entry, then the script's ENTRY, then _start, then the start of .text.
  void set_entry(elf::Image& im, Result& r) {
    const ScriptName* from_script = script() && script()->entry ? &*script()->entry : nullptr;
    const std::string entry = opt_.entry ? *opt_.entry : from_script ? from_script->name : "_start";
    if (const auto v = symbol(entry)) {
      im.entry = static_cast<std::uint64_t>(*v);
    } else if (opt_.entry) {
      r.diagnostics.push_back(
          {std::string(file_), 0, 0, fmt::format("entry symbol '{}' is not defined", entry), "", {}});
    } else if (from_script) {
      r.diagnostics.push_back(
          script_diagnostic(*script(), from_script->at, fmt::format("entry symbol '{}' is not defined", entry)));
    } else {
      im.entry = sections_[0].start;  // .text
    }
  }

  // ---- linker script (-T, docs/assembly.md "Linker scripts") ----
  const LinkerScript* script() const { return opt_.linker_script.get(); }

  // With a script the identity note is an input section that the script
  // places, as in an object file: SHT_NOTE, SHF_ALLOC, alignment 4.
  void add_identity_note() {
    const std::size_t text = cur_;
    cur_ = static_cast<std::size_t>(section_index(elf::kIdentitySectionName));
    SectionState& s = sections_[cur_];
    s.type = elf::SHT_NOTE;
    s.flags = elf::SHF_ALLOC;
    s.align = 4;
    s.data = elf::identity_note_bytes(elf::our_identity());
    s.size = s.data.size();
    cur_ = text;
  }

  ScriptLayout run_script_layout() const {
    std::vector<InputSection> inputs;
    for (const SectionState& s : sections_) inputs.push_back({s.name, s.type, s.flags, s.size, s.align, s.data});
    return layout_script(*script(), inputs, opt_.max_output);
  }

  // Takes the layout's addresses and script symbols; true when no section moved.
  bool apply_script_layout(const ScriptLayout& l) {
    bool same = true;
    for (std::size_t i = 0; i < sections_.size(); ++i) {
      same = same && sections_[i].start == l.input_address[i];
      sections_[i].start = l.input_address[i];
    }
    script_symbols_.clear();
    for (const ScriptSymbol& sym : l.symbols) script_symbols_[sym.name] = sym.value;
    return same;
  }

  void place_with_script(elf::Image& im, Result& r) {
    shndx_.assign(sections_.size(), elf::SHN_UNDEF);
    ScriptLayout l = run_script_layout();
    const bool converged = apply_script_layout(l);
    r.diagnostics.insert(r.diagnostics.end(), l.diagnostics.begin(), l.diagnostics.end());
    if (!opt_.section_start.empty())
      r.diagnostics.push_back({std::string(file_), 0, 0, "--section-start cannot be combined with a linker script", ""});
    if (!r.diagnostics.empty()) return;
    if (!converged)
      r.diagnostics.push_back({std::string(file_), 0, 0, "section addresses did not converge under the linker script", ""});
    for (std::size_t i = 0; i < sections_.size(); ++i)
      if (l.input_output[i]) shndx_[i] = static_cast<std::uint16_t>(*l.input_output[i] + 1);
    for (const auto& [name, s] : symbols_)
      if (s.defined && s.section >= 0 && !l.input_output[static_cast<std::size_t>(s.section)])
        r.diagnostics.push_back({std::string(file_), s.line, 1,
                                 fmt::format("symbol '{}' is defined in section {}, which the linker script discards",
                                             name, sections_[static_cast<std::size_t>(s.section)].name),
                                 std::string(lines_[s.line - 1])});
    for (const ScriptSymbol& sym : l.symbols) {
      const auto it = symbols_.find(sym.name);
      const bool in_source = it != symbols_.end() && it->second.defined;
      if (sym.provide && in_source && std::count(l.used_symbols.begin(), l.used_symbols.end(), sym.name)) {
        // ld would give the script's later expressions the source's value.
        r.diagnostics.push_back(script_diagnostic(
            *script(), sym.at,
            fmt::format("PROVIDE symbol '{}' is defined in {} (line {}) and used by the script", sym.name, file_,
                        it->second.line)));
        continue;
      }
      if (sym.provide && (in_source || !script_references_.count(sym.name))) continue;  // as ld's PROVIDE
      if (in_source) {
        r.diagnostics.push_back(script_diagnostic(
            *script(), sym.at, fmt::format("symbol '{}' is also defined in {} (line {})", sym.name, file_, it->second.line)));
        continue;
      }
      im.symbols.push_back({sym.name, sym.value, 0, elf::STT_NOTYPE, elf::STB_GLOBAL, elf::SHN_ABS});
    }
    im.sections = std::move(l.sections);
    im.segments = std::move(l.segments);
  }

  std::string_view source_;
  std::string_view file_;
  const Options& opt_;
  std::vector<std::string_view> lines_;
  // The source statement stream: the current line's statements and the next one.
  std::vector<Statement> statements_;
  std::size_t top_line_ = 0;
  std::size_t top_stmt_ = 0;
  StatementSource src_;
  // Macros and expansions (this pass).
  std::unordered_map<std::string, MacroDef> macros_;
  std::vector<std::unique_ptr<Expansion>> stack_;  // innermost last; frames stay put
  std::optional<Collecting> collect_;
  std::vector<Conditional> cond_;
  std::size_t macro_counter_ = 0;  // `\@`
  std::size_t expanded_ = 0;       // statements produced by expansions
  std::vector<SectionState> sections_;
  std::vector<bool> placed_by_org_;
  std::uint64_t total_data_ = 0;  // bytes in all PROGBITS sections (this pass)
  std::unordered_map<std::string, SymbolState> symbols_;
  std::unordered_map<std::string, std::uint64_t> script_symbols_;  // from the last script layout
  mutable std::unordered_set<std::string> script_references_;      // script symbols the source used
  std::vector<std::uint16_t> shndx_;  // ELF section index per section (finish)
  // Numeric local labels: label -> (statement index, (section, offset)).
  std::unordered_map<unsigned, std::vector<std::pair<std::size_t, std::pair<std::size_t, std::uint64_t>>>> locals_;
  std::vector<Diagnostic> diags_;
  std::vector<ListingEntry> listing_;
  std::size_t cur_ = 0;
  std::size_t stmt_index_ = 0;
  bool final_ = false;
  bool stable_ = false;
  bool expansion_limit_hit_ = false;
  int pass_ = 0;
};

}  // namespace

Result assemble(std::string_view source, std::string_view file_name, const Options& options) {
  return Assembler(source, file_name, options).run();
}

std::optional<FlatBinary> flat_binary(const elf::Image& image, std::uint64_t max_bytes) {
  FlatBinary out;
  std::uint64_t lo = ~std::uint64_t{0}, hi = 0;
  for (const auto& s : image.segments) {
    if (s.data.empty()) continue;
    lo = std::min(lo, s.vaddr);
    hi = std::max(hi, s.vaddr + s.data.size());
  }
  if (lo > hi) return out;  // nothing loaded
  if (hi - lo > max_bytes) return std::nullopt;
  out.base = lo;
  out.bytes.assign(hi - lo, 0);
  for (const auto& s : image.segments)
    std::copy(s.data.begin(), s.data.end(), out.bytes.begin() + static_cast<std::ptrdiff_t>(s.vaddr - lo));
  return out;
}

}  // namespace pto::as
