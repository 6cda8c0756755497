#pragma once
// An input generator (stratum) of a calculation, and looking one up by the name
// a record holds.
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit::calcs {

/// One input generator (stratum): its name in the report and in records, what it
/// draws, and which copy of a part it draws from.
template <class Kind>
struct Generator {
  Kind kind;
  const char* name;
  const char* description;
  Placement where = Placement::origin;
};

/// The generator of this name; Error(badarg) naming the calculation otherwise.
template <class Kind, std::size_t N>
const Generator<Kind>& generator_named(const Generator<Kind> (&generators)[N], std::string_view name,
                                       std::string_view id) {
  for (const Generator<Kind>& g : generators)
    if (g.name == name) return g;
  throw Error(ErrorCode::badarg, "replay: " + std::string(id) + " has no generator \"" + std::string(name) + "\"");
}

/// One StratumCount per generator, counts zero, for a result's `strata`.
template <class Kind, std::size_t N>
std::vector<StratumCount> strata_of(const Generator<Kind> (&generators)[N]) {
  std::vector<StratumCount> strata;
  for (const Generator<Kind>& g : generators) strata.push_back({g.name, g.description, 0, 0});
  return strata;
}

}  // namespace distgrid::audit::calcs
