#pragma once
// Parsing JSON text that comes from a file a person sent (formula specs, audit
// reports): typed errors naming the input and the byte, and a nesting limit
// checked before parsing, since nlohmann::json recurses once per level when it
// parses and destroys a document (100 000 nested brackets overflow the stack).
#include <cstddef>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "distgrid/error.hpp"

namespace distgrid {

/// Deepest nesting of arrays and objects accepted.
inline constexpr std::size_t kMaxJsonNesting = 512;

/// Throws Error(code) naming `source`: "<source>: not valid JSON at byte N: ..."
/// for a syntax error or nesting deeper than kMaxJsonNesting, and
/// "<source>: not valid JSON: ..." for a number too large for a double.
nlohmann::json parse_json_text(std::string_view text, const std::string& source, ErrorCode code);

}  // namespace distgrid
