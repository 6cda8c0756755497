#pragma once
// The code a report's source entry points at, read from our sources when the
// page is rendered, so the page shows the code itself rather than a copy.
#include <map>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace distgrid::render::detail {

struct CodeExcerpt {
  int first_line = 0, last_line = 0;  ///< 0 when not known
  std::string code;  ///< the lines as they are in the file (not escaped)
  /// Empty, or a sentence saying why the excerpt differs from the report's lines
  /// or why there is no code (never a machine path).
  std::string note;
};

/// Reads files below `source_dir` once each.
class SourceReader {
 public:
  explicit SourceReader(std::string source_dir) : source_dir_(std::move(source_dir)) {}

  /// The excerpt for one report source entry {"file", "function", "first_line", "last_line"}.
  /// When the report's range no longer holds the function's definition (the file
  /// changed since the run), the definition is looked up again and the note says so.
  /// Empty code with a note (and the report's lines) when the file cannot be read.
  CodeExcerpt excerpt(const nlohmann::json& source);

 private:
  const std::optional<std::string>& file_text(const std::string& file);

  std::string source_dir_;
  std::map<std::string, std::optional<std::string>> files_;
};

}  // namespace distgrid::render::detail
