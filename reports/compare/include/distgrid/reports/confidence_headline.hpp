#pragma once
// The line a reader sees first of an entry's "confidence" (the share of inputs
// within budget and its lower confidence bound): the budget whose bound is
// lowest, and its weakest input generator. Reads only the report's JSON.
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace distgrid::reports {

struct ConfidenceHeadline {
  std::string metric;  ///< the budget's JSON pointer
  double level = 0;    ///< e.g. 0.95
  std::uint64_t count = 0, within = 0;
  double share = 0, lower_bound = 0;
  std::string weakest_generator;  ///< the generator with the lowest bound
  std::uint64_t weakest_count = 0;
  double weakest_lower_bound = 0;
};

/// Of the entry's budgets that bound single inputs, the one with the lowest
/// lower bound over all generators (the first on a tie); nullopt when the
/// entry has none or no "confidence".
std::optional<ConfidenceHeadline> confidence_headline(const nlohmann::json& entry);

/// A share as a percentage, rounded down to at most three decimals so that
/// nothing short of all reads "100%": "99.97%", "100%", "0%".
std::string percent_text(double share);

/// "100% within budget (>= 99.97% at 95% confidence, n = 10000)".
std::string confidence_text(const ConfidenceHeadline& headline);

}  // namespace distgrid::reports
