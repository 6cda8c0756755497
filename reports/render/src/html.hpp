#pragma once
// Small, deterministic building blocks of the policy page: HTML escaping,
// number text that does not depend on the locale, and tolerant reads of the
// report's JSON (a field of the wrong type reads as absent, never throws).
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace distgrid::render::detail {

/// Text with &, <, >, " and ' replaced by entities; safe in element content and quoted attributes.
std::string escape(std::string_view text);

/// The JSON text for a <script type="application/json"> element: every '<', '>'
/// and '&' written as a \u escape, so nothing inside ("</script>", "<!--") can end it.
std::string script_safe_json(const nlohmann::json& document);

/// A number in at most `digits` significant digits ("%.*g"), "0" for zero.
std::string number_text(double value, int digits = 3);
/// An SVG coordinate with one decimal.
std::string coordinate(double value);

/// Member `key` of an object, or nullptr when `object` is not an object, the key is absent or its value null.
const nlohmann::json* member(const nlohmann::json& object, std::string_view key);
/// A string member, or `fallback`.
std::string text_of(const nlohmann::json& object, std::string_view key, std::string_view fallback = "");
/// A number member.
std::optional<double> number_of(const nlohmann::json& object, std::string_view key);
/// A number member as text, or `missing` (for null or absent).
std::string number_or(const nlohmann::json& object, std::string_view key, std::string_view missing = "null",
                      int digits = 3);
/// An array member, or an empty array when absent or not an array.
const nlohmann::json& array_of(const nlohmann::json& object, std::string_view key);

/// The JSON document in `text` when it is an object whose "schema" is `schema`;
/// throws Error(badfile) naming `name` and the script that writes such files otherwise.
nlohmann::json parse_schema_document(std::string_view text, const std::string& name, std::string_view schema,
                                     std::string_view written_by);
/// Throws Error(badfile) naming `name` unless document[key] is an array of objects.
void require_array_of_objects(const nlohmann::json& document, std::string_view key, const std::string& name);

/// A fragment id built from free text: letters, digits, '-' and '.' kept, the rest as '-'.
std::string anchor(std::string_view text);

}  // namespace distgrid::render::detail
