#pragma once
// Tolerant reads of a report's JSON: a member of the wrong type reads as
// absent, so a malformed report never throws from here.
#include <string>

#include <nlohmann/json.hpp>

namespace distgrid::reports::detail {

/// Member `key` of an object; nullptr when `object` is not an object or lacks it.
inline const nlohmann::json* member(const nlohmann::json& object, const std::string& key) {
  if (!object.is_object()) return nullptr;
  const auto it = object.find(key);
  return it == object.end() ? nullptr : &*it;
}

/// A string member, or "" (absent, or not a string).
inline std::string text_of(const nlohmann::json& object, const std::string& key) {
  const nlohmann::json* value = member(object, key);
  return value && value->is_string() ? value->get<std::string>() : std::string();
}

/// An array member, or an empty array; a reference into `object`.
inline const nlohmann::json& array_of(const nlohmann::json& object, const std::string& key) {
  static const nlohmann::json empty = nlohmann::json::array();
  const nlohmann::json* value = member(object, key);
  return value && value->is_array() ? *value : empty;
}

}  // namespace distgrid::reports::detail
