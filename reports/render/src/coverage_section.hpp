#pragma once
// The policy page's section on the code each calculation's inputs reach, from
// the JSON scripts/coverage writes (schema distgrid-coverage/1): per calculation
// and cited function, the share of its lines executed and of its branch outcomes
// taken by that calculation's own quick audit, against the targets.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace distgrid::render::detail {

inline constexpr std::string_view kCoverageSchema = "distgrid-coverage/1";

/// The coverage result in `text`, checked to be an object of schema
/// kCoverageSchema whose "calculations" is an array of objects and whose
/// "targets" is an object. Throws Error(badfile) whose message starts with `name`.
nlohmann::json parse_coverage(std::string_view text, const std::string& name);

/// The section (<h2 id="coverage"> and its table); `name` is how the page names the file.
std::string coverage_section_html(const nlohmann::json& coverage, const std::string& name);

}  // namespace distgrid::render::detail
