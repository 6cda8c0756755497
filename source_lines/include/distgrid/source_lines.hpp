#pragma once
// Line ranges of function definitions in our sources, found at run time by
// scanning the file, so a report and the policy page point at the code as it is
// now. A leaf: it reads text and files, and links nothing of distgrid.
#include <optional>
#include <string>
#include <string_view>

namespace distgrid {

/// 1-based, inclusive.
struct LineRange {
  int first = 0, last = 0;
};

/// The definition of `function` in C++ source text: the first line where the
/// name (followed by "(") starts a definition, i.e. reaches "{" before ";",
/// widened up over a "template <...>" line right above it, down to the matching
/// closing brace. Comments and string literals are skipped. nullopt when not found.
std::optional<LineRange> find_definition(std::string_view text, std::string_view function);

struct ResolvedSource {
  std::string file;
  std::string function;
  std::optional<LineRange> lines;
  std::string missing_reason;  ///< why lines is empty
};

/// Reads source_dir/file and finds the function in it.
ResolvedSource resolve_source(std::string_view file, std::string_view function, const std::string& source_dir);

}  // namespace distgrid
