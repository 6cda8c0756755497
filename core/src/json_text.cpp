#include "distgrid/json_text.hpp"

namespace distgrid {

namespace {

/// Byte offset of the first bracket nested deeper than `limit`, or npos.
std::size_t too_deep_at(std::string_view text, std::size_t limit) noexcept {
  std::size_t depth = 0;
  bool in_string = false, escaped = false;
  for (std::size_t at = 0; at < text.size(); ++at) {
    const char c = text[at];
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return at;
    } else if ((c == ']' || c == '}') && depth > 0) {
      --depth;
    }
  }
  return std::string_view::npos;
}

}  // namespace

nlohmann::json parse_json_text(std::string_view text, const std::string& source, ErrorCode code) {
  if (const std::size_t at = too_deep_at(text, kMaxJsonNesting); at != std::string_view::npos)
    throw Error(code, source + ": not valid JSON at byte " + std::to_string(at) + ": arrays and objects nested deeper than " +
                          std::to_string(kMaxJsonNesting) + " levels");
  try {
    return nlohmann::json::parse(text.begin(), text.end());
  } catch (const nlohmann::json::parse_error& e) {
    throw Error(code, source + ": not valid JSON at byte " + std::to_string(e.byte) + ": " + e.what());
  } catch (const nlohmann::json::exception& e) {  // e.g. a number too large for a double
    throw Error(code, source + ": not valid JSON: " + e.what());
  }
}

}  // namespace distgrid
