#pragma once
// The built-in parts the audit and the benchmarks run on by default, each with
// its exact volume or the best known one (and how that was obtained).
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace distgrid {

struct DefaultPart {
  std::string name;
  std::string description;
  nlohmann::json spec;          ///< formula spec, compiled with compile_field
  double volume = 0;            ///< exact, or best known (see volume_source)
  bool volume_exact = false;
  double volume_uncertainty = 0;  ///< absolute; 0 when exact
  std::string volume_source;    ///< the formula, or how the best value was computed
};

const std::vector<DefaultPart>& default_parts();
/// Throws Error(badarg) naming the part and listing the known names.
const DefaultPart& default_part(std::string_view name);

}  // namespace distgrid
