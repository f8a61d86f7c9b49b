#include "asm/macro.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <optional>

namespace pto::as {

namespace {

bool param_char(char c) { return is_alnum(c) || c == '_' || c == '$'; }
bool blank(char c) { return c == ' ' || c == '\t'; }

// A parameter name at the cursor (see is_param_name).
std::string_view param_name(Cursor& c) {
  c.skip_ws();
  const std::string_view s = c.line();
  std::size_t p = c.pos();
  if (p >= s.size() || is_digit(s[p]) || !param_char(s[p])) return {};
  while (p < s.size() && param_char(s[p])) ++p;
  const std::string_view name = s.substr(c.pos(), p - c.pos());
  c.set_pos(p);
  return name;
}

// A default value: up to the next blank or comma outside double quotes.
std::string default_value(Cursor& c) {
  const std::string_view s = c.line();
  std::size_t p = c.pos();
  bool in_string = false;
  for (; p < s.size(); ++p) {
    if (in_string) {
      if (s[p] == '\\') ++p;
      else if (s[p] == '"') in_string = false;
      continue;
    }
    if (s[p] == '"') in_string = true;
    else if (s[p] == ',' || blank(s[p])) break;
  }
  p = std::min(p, s.size());
  std::string value(s.substr(c.pos(), p - c.pos()));
  c.set_pos(p);
  return value;
}

void parse_param_qualifier(Cursor& c, MacroParam& p) {
  if (c.accept(":req")) p.required = true;
  else if (c.accept(":vararg")) p.vararg = true;
  else c.fail(fmt::format("expected ':req' or ':vararg' after parameter '{}'", p.name));
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && blank(s.front())) s.remove_prefix(1);
  while (!s.empty() && blank(s.back())) s.remove_suffix(1);
  return s;
}

// `name=value` where name is one of the macro's parameters: its index.
std::optional<std::size_t> keyword_parameter(const MacroDef& m, std::string_view arg) {
  std::size_t p = 0;
  while (p < arg.size() && param_char(arg[p])) ++p;
  if (p == 0 || p >= arg.size() || arg[p] != '=' || (p + 1 < arg.size() && arg[p + 1] == '=')) return std::nullopt;
  const std::string_view name = arg.substr(0, p);
  for (std::size_t i = 0; i < m.params.size(); ++i)
    if (m.params[i].name == name) return i;
  return std::nullopt;
}

}  // namespace

bool is_param_name(std::string_view s) {
  return !s.empty() && !is_digit(s.front()) && std::all_of(s.begin(), s.end(), param_char);
}

MacroDef parse_macro_header(Cursor& c) {
  MacroDef m;
  const std::string_view name = c.ident();
  if (name.empty()) c.fail("expected a macro name after .macro");
  m.name = to_lower(name);
  c.accept(",");
  while (!c.at_end()) {
    const std::size_t col = c.pos();
    MacroParam p;
    p.name = std::string(param_name(c));
    if (p.name.empty()) c.fail("expected a macro parameter name");
    if (!m.params.empty() && m.params.back().vararg)
      c.fail_at(col, fmt::format("parameter '{}' follows the ':vararg' parameter '{}', which must be the last",
                                 p.name, m.params.back().name));
    for (const MacroParam& q : m.params)
      if (q.name == p.name) c.fail_at(col, fmt::format("macro parameter '{}' is given twice", p.name));
    if (c.pos() < c.line().size() && c.line()[c.pos()] == ':') parse_param_qualifier(c, p);
    if (c.accept("=")) p.default_value = default_value(c);
    m.params.push_back(std::move(p));
    c.accept(",");
  }
  return m;
}

std::vector<MacroArg> split_arguments(std::string_view line, std::size_t begin) {
  std::vector<MacroArg> out;
  std::size_t p = begin;
  while (p < line.size() && blank(line[p])) ++p;
  if (p >= line.size()) return out;
  while (true) {
    const std::size_t start = p;
    int depth = 0;
    bool in_string = false;
    for (; p < line.size(); ++p) {
      const char ch = line[p];
      if (in_string) {
        if (ch == '\\') ++p;
        else if (ch == '"') in_string = false;
        continue;
      }
      if (ch == '"') in_string = true;
      else if (ch == '(' || ch == '[' || ch == '{') ++depth;
      else if ((ch == ')' || ch == ']' || ch == '}') && depth > 0) --depth;
      else if (ch == ',' && depth == 0) break;
    }
    p = std::min(p, line.size());
    const std::string_view raw = line.substr(start, p - start);
    const std::string_view text = trim(raw);
    const std::size_t lead = text.empty() ? 0 : static_cast<std::size_t>(text.data() - raw.data());
    out.push_back({text, start + lead});
    if (p >= line.size()) return out;
    ++p;  // the comma
  }
}

Bindings bind_arguments(const MacroDef& m, const std::vector<MacroArg>& args, const Cursor& c,
                        std::size_t name_column) {
  Bindings b;
  for (const MacroParam& p : m.params) b.emplace_back(p.name, std::string());
  std::size_t next = 0;  // next positional parameter
  for (const MacroArg& a : args) {
    if (const auto k = keyword_parameter(m, a.text)) {
      b[*k].second = std::string(trim(a.text.substr(m.params[*k].name.size() + 1)));
      continue;
    }
    if (next >= m.params.size()) {
      c.fail_at(a.column, fmt::format("macro '{}' takes {} argument{}; this is one more", m.name, m.params.size(),
                                      m.params.size() == 1 ? "" : "s"));
    }
    if (m.params[next].vararg) {  // the rest of the line, commas included
      b[next].second = std::string(trim(c.line().substr(a.column)));
      break;
    }
    b[next++].second = std::string(a.text);
  }
  for (std::size_t i = 0; i < m.params.size(); ++i) {
    if (!b[i].second.empty()) continue;
    if (m.params[i].required)
      c.fail_at(name_column,
                fmt::format("missing value for the required parameter '{}' of macro '{}'", m.params[i].name, m.name));
    b[i].second = m.params[i].default_value;
  }
  return b;
}

std::optional<std::string> substitute(std::string_view text, const Bindings& bindings, std::string_view counter,
                                      std::size_t max_bytes) {
  if (text.find('\\') == std::string_view::npos) return std::string(text);
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '\\' || i + 1 >= text.size()) {
      out += text[i];
      continue;
    }
    const std::size_t next = i + 1;
    if (text[next] == '@' && !counter.empty()) {
      out += counter;
      i = next;
      continue;
    }
    if (text.substr(next, 2) == "()") {
      i = next + 1;
      continue;
    }
    std::size_t end = next;
    while (end < text.size() && param_char(text[end])) ++end;
    const std::string_view name = text.substr(next, end - next);
    const auto it = std::find_if(bindings.begin(), bindings.end(), [&](const auto& kv) { return kv.first == name; });
    if (name.empty() || it == bindings.end()) {
      out += '\\';
      continue;
    }
    if (it->second.size() > max_bytes - std::min(max_bytes, out.size())) return std::nullopt;
    out += it->second;
    i = end - 1;
  }
  if (out.size() > max_bytes) return std::nullopt;
  return out;
}

}  // namespace pto::as
