#pragma once
// The policy page's section on the gates' teeth, from the JSON scripts/mutants
// writes (schema distgrid-mutants/1): each mutant, caught or not at each voxel
// size and by which budgets and properties, and for every budget the mutants
// that trip it.
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace distgrid::render::detail {

inline constexpr std::string_view kMutantsSchema = "distgrid-mutants/1";

/// The mutants result in `text`, checked to be an object of schema kMutantsSchema
/// whose "mutants" and "teeth" are arrays of objects. Throws Error(badfile) whose
/// message starts with `name`.
nlohmann::json parse_mutants(std::string_view text, const std::string& name);

/// The section (<h2 id="teeth"> and its tables); `name` is how the page names the file.
std::string teeth_section_html(const nlohmann::json& mutants, const std::string& name);

}  // namespace distgrid::render::detail
