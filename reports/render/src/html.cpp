#include "html.hpp"

#include <cmath>
#include <cstdio>

#include "distgrid/error.hpp"
#include "distgrid/json_text.hpp"

namespace distgrid::render::detail {

using nlohmann::json;

std::string escape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string script_safe_json(const json& document) {
  // '<', '>' and '&' occur only inside JSON strings, where \u003c is the same text.
  const std::string text = document.dump(1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    if (c == '<') out += "\\u003c";
    else if (c == '>') out += "\\u003e";
    else if (c == '&') out += "\\u0026";
    else out += c;
  }
  return out;
}

std::string number_text(double value, int digits) {
  if (value == 0) return "0";
  if (!std::isfinite(value)) return "null";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*g", digits, value);
  return buffer;
}

std::string coordinate(double value) {
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.1f", value);
  return buffer;
}

const json* member(const json& object, std::string_view key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  if (it == object.end() || it->is_null()) return nullptr;
  return &*it;
}

std::string text_of(const json& object, std::string_view key, std::string_view fallback) {
  const json* value = member(object, key);
  if (value && value->is_string()) return value->get<std::string>();
  return std::string(fallback);
}

std::optional<double> number_of(const json& object, std::string_view key) {
  const json* value = member(object, key);
  if (value && value->is_number()) return value->get<double>();
  return std::nullopt;
}

std::string number_or(const json& object, std::string_view key, std::string_view missing, int digits) {
  const std::optional<double> value = number_of(object, key);
  if (!value) return std::string(missing);
  if (member(object, key)->is_number_integer()) return member(object, key)->dump();
  return number_text(*value, digits);
}

const json& array_of(const json& object, std::string_view key) {
  static const json empty = json::array();
  const json* value = member(object, key);
  return value && value->is_array() ? *value : empty;
}

std::string anchor(std::string_view text) {
  std::string out;
  for (const char c : text) {
    const bool keep = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-';
    out += keep ? c : '-';
  }
  return out;
}

json parse_schema_document(std::string_view text, const std::string& name, std::string_view schema,
                           std::string_view written_by) {
  json document = parse_json_text(text, name, ErrorCode::badfile);
  const json* found = member(document, "schema");
  if (!document.is_object() || !found || !found->is_string() || found->get<std::string>() != schema)
    throw Error(ErrorCode::badfile,
                name + ": not a " + std::string(schema) + " file (written by " + std::string(written_by) + ")");
  return document;
}

void require_array_of_objects(const json& document, std::string_view key, const std::string& name) {
  // Appended piece by piece: GCC 12 warns falsely (-Wrestrict) on "/" + std::string(key).
  std::string where = name;
  where.append(": /").append(key);
  const json* array = member(document, key);
  if (!array || !array->is_array()) throw Error(ErrorCode::badfile, where + " is not an array");
  for (std::size_t n = 0; n < array->size(); ++n)
    if (!(*array)[n].is_object())
      throw Error(ErrorCode::badfile, where + "/" + std::to_string(n) + " is not an object");
}

}  // namespace distgrid::render::detail
