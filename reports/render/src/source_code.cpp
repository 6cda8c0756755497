#include "source_code.hpp"

#include <fstream>
#include <sstream>
#include <vector>

#include "distgrid/source_lines.hpp"
#include "html.hpp"

namespace distgrid::render::detail {

namespace {

std::vector<std::string> split_lines(const std::string& text) {
  std::vector<std::string> lines;
  std::string::size_type start = 0;
  while (start < text.size()) {
    const std::string::size_type end = text.find('\n', start);
    lines.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) break;
    start = end + 1;
  }
  return lines;
}

/// A relative path inside the repository: no "..", not absolute.
bool safe_relative(const std::string& file) {
  return !file.empty() && file.front() != '/' && file.find("..") == std::string::npos;
}

}  // namespace

const std::optional<std::string>& SourceReader::file_text(const std::string& file) {
  const auto it = files_.find(file);
  if (it != files_.end()) return it->second;
  std::optional<std::string> text;
  if (!source_dir_.empty() && safe_relative(file)) {
    std::ifstream in(source_dir_ + "/" + file, std::ios::binary);
    if (in) {
      std::ostringstream bytes;
      bytes << in.rdbuf();
      text = bytes.str();
    }
  }
  return files_.emplace(file, std::move(text)).first->second;
}

CodeExcerpt SourceReader::excerpt(const nlohmann::json& source) {
  CodeExcerpt out;
  const std::string file = text_of(source, "file");
  const std::string function = text_of(source, "function");
  const std::optional<double> first = number_of(source, "first_line"), last = number_of(source, "last_line");
  const std::optional<std::string>& text = file_text(file);
  if (!text) {
    if (first && last) {
      out.first_line = static_cast<int>(*first);
      out.last_line = static_cast<int>(*last);
    }
    out.note = source_dir_.empty() ? "Code not shown: no source directory was given."
                                   : "Code not shown: " + file + " is not in the source directory.";
    return out;
  }
  const std::vector<std::string> lines = split_lines(*text);
  // The definition as the file is now; the report's range is kept when it still starts there.
  const std::optional<LineRange> now = find_definition(*text, function);
  if (first && last && now && now->first == static_cast<int>(*first) && now->last == static_cast<int>(*last)) {
    out.first_line = now->first;
    out.last_line = now->last;
  } else if (now) {
    out.first_line = now->first;
    out.last_line = now->last;
    out.note = first && last ? "The file changed since the report was made: the definition is now at these lines "
                               "(the report has " +
                                   std::to_string(static_cast<long long>(*first)) + " to " +
                                   std::to_string(static_cast<long long>(*last)) + ")."
                             : "The report has no line range; the definition was found when the page was made.";
  } else if (first && last && *first >= 1 && *last >= *first && *last <= static_cast<double>(lines.size())) {
    out.first_line = static_cast<int>(*first);
    out.last_line = static_cast<int>(*last);
    out.note = "The definition of " + function + " is no longer found in " + file +
               "; these are the report's lines of the file as it is now.";
  } else {
    out.note = "Code not shown: no definition of " + function + " in " + file + ".";
    return out;
  }
  for (int n = out.first_line; n <= out.last_line; ++n) {
    out.code += lines[static_cast<std::size_t>(n - 1)];
    out.code += '\n';
  }
  return out;
}

}  // namespace distgrid::render::detail
