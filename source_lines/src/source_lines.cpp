#include "distgrid/source_lines.hpp"

#include <cctype>
#include <fstream>
#include <sstream>
#include <vector>

namespace distgrid {

namespace {

/// The text with comments, string and character literals blanked out (newlines
/// kept), so names and braces inside them are not seen.
std::string code_only(std::string_view text) {
  std::string out(text);
  enum class State { code, line_comment, block_comment, string, character } state = State::code;
  for (std::size_t n = 0; n < out.size(); ++n) {
    const char c = text[n];
    const char next = n + 1 < text.size() ? text[n + 1] : '\0';
    switch (state) {
      case State::code:
        if (c == '/' && next == '/') state = State::line_comment;
        else if (c == '/' && next == '*') state = State::block_comment;
        else if (c == '"') state = State::string;
        else if (c == '\'' && !(n > 0 && std::isxdigit(static_cast<unsigned char>(text[n - 1]))))
          state = State::character;  // a quote after a digit is a digit separator
        else
          continue;
        out[n] = ' ';
        break;
      case State::line_comment:
        if (c == '\n') state = State::code;
        else out[n] = ' ';
        break;
      case State::block_comment:
        if (c == '*' && next == '/') {
          out[n] = out[n + 1] = ' ';
          ++n;
          state = State::code;
        } else if (c != '\n') {
          out[n] = ' ';
        }
        break;
      case State::string:
      case State::character:
        if (c == '\\' && n + 1 < out.size()) {
          out[n] = out[n + 1] = ' ';
          ++n;
          break;
        }
        if (c == (state == State::string ? '"' : '\'')) state = State::code;
        if (c != '\n') out[n] = ' ';
        break;
    }
  }
  return out;
}

bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || c == ':'; }

int line_of(const std::string& text, std::size_t offset) {
  int line = 1;
  for (std::size_t n = 0; n < offset && n < text.size(); ++n)
    if (text[n] == '\n') ++line;
  return line;
}

std::size_t line_start(const std::string& text, std::size_t offset) {
  const std::size_t nl = offset == 0 ? std::string::npos : text.rfind('\n', offset - 1);
  return nl == std::string::npos ? 0 : nl + 1;
}

/// First non-blank text of the line before the one starting at `start`.
std::string previous_line(const std::string& text, std::size_t start, std::size_t& previous_start) {
  if (start == 0) return {};
  previous_start = line_start(text, start - 1);
  std::string line = text.substr(previous_start, start - 1 - previous_start);
  const std::size_t first = line.find_first_not_of(" \t");
  return first == std::string::npos ? std::string() : line.substr(first);
}

}  // namespace

std::optional<LineRange> find_definition(std::string_view text, std::string_view function) {
  const std::string code = code_only(text);
  for (std::size_t at = code.find(function); at != std::string::npos; at = code.find(function, at + 1)) {
    if (at > 0 && is_name_char(code[at - 1])) continue;
    std::size_t after = at + function.size();
    while (after < code.size() && std::isspace(static_cast<unsigned char>(code[after]))) ++after;
    if (after >= code.size() || code[after] != '(') continue;
    const std::size_t open = code.find_first_of("{;", after);
    if (open == std::string::npos || code[open] != '{') continue;  // a declaration or a call
    // A call inside a statement ("if (f(x)) {", "v = f(x);") is not a definition:
    // before a defined name there is only a declaration's type and qualifiers.
    std::size_t start = line_start(code, at);
    const std::string before = code.substr(start, at - start);
    if (before.find_first_of("(=!") != std::string::npos || before.find("return") != std::string::npos) continue;
    int depth = 0;
    std::size_t close = open;
    for (; close < code.size(); ++close) {
      if (code[close] == '{') ++depth;
      if (code[close] == '}' && --depth == 0) break;
    }
    if (close >= code.size()) return std::nullopt;
    std::size_t previous_start = start;
    if (previous_line(code, start, previous_start).rfind("template", 0) == 0) start = previous_start;
    return LineRange{line_of(code, start), line_of(code, close)};
  }
  return std::nullopt;
}

ResolvedSource resolve_source(std::string_view file, std::string_view function, const std::string& source_dir) {
  ResolvedSource r{std::string(file), std::string(function), std::nullopt, {}};
  if (source_dir.empty()) {
    r.missing_reason = "no source directory given";
    return r;
  }
  const std::string path = source_dir + "/" + r.file;
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    r.missing_reason = "cannot read " + path;
    return r;
  }
  std::ostringstream text;
  text << in.rdbuf();
  r.lines = find_definition(text.str(), function);
  if (!r.lines) r.missing_reason = "no definition of " + r.function + " found in " + path;
  return r;
}

}  // namespace distgrid
