#pragma once
// How many inputs of each generator are within budget, with a one-sided
// Clopper-Pearson lower confidence bound on that share: "at least 99.9 % of
// inputs of this kind are within budget, 95 % confidence, n = 10 000".
//
// A budget compares single inputs when it bounds an error statistic's max
// (/error/h/max, /errors/storage/ulps/max, ...: each input's error is within
// it or not) or a decision's misclassified count at 0 (each input is decided
// right or not). Budgets on other counts, means or details tables bound no
// single input and get no share. Counts are integers, so shard reports merge
// exactly; the gates keep using the maximum.
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/gate.hpp"

namespace distgrid::audit {

/// Confidence of the lower bounds in reports.
inline constexpr double kConfidenceLevel = 0.95;

/// The one-sided lower confidence bound on a binomial share (Clopper-Pearson):
/// the p at which `within` or more successes of `count` trials have probability
/// 1 - level, i.e. the (1 - level) quantile of Beta(within, count - within + 1);
/// 0 when within = 0, (1 - level)^(1/count) when within = count.
/// Preconditions: within <= count, count > 0, 0 < level < 1.
double clopper_pearson_lower(std::uint64_t within, std::uint64_t count, double level = kConfidenceLevel);

/// One generator's inputs: how many, and how many are within the budget.
struct GeneratorTally {
  std::string generator;
  std::uint64_t count = 0, within = 0;
};

/// Tallies of one budget that compares single inputs.
struct BudgetTally {
  std::string metric;  ///< the budget's JSON pointer
  double budget = 0;
  std::vector<GeneratorTally> generators;  ///< in the order given to confidence_json
};

/// The tallies of every budget of `budgets` that bounds single inputs of this
/// result (its id and storage), in the budgets' order; per generator in the
/// order the result's units met them.
std::vector<BudgetTally> tally_within_budgets(std::string_view id, const CalculationResult& result,
                                              const std::vector<Budget>& budgets);

/// The entry's "confidence": {"level", "method", "budgets": [{"metric",
/// "budget", "count", "within", "share", "lower_bound", "generators": [{"name",
/// "count", "within", "share", "lower_bound"}]}]} with each budget's
/// generators ordered as `generator_order` (the entry's input generators)
/// and any others after them by name; a generator with no inputs is left
/// out. With no such budget, "budgets" is empty and "null_reason" says why.
nlohmann::json confidence_json(std::vector<BudgetTally> tallies, const std::vector<std::string>& generator_order);

/// The "confidence" of one calculation and storage joined from its shard
/// entries (`names` say which shard each is): counts add per budget and
/// generator, share and bound are computed again. Throws
/// distgrid::Error(badarg) naming the shard when their budgets differ.
nlohmann::json merge_confidence(const std::vector<const nlohmann::json*>& entries,
                                const std::vector<std::string>& names);

}  // namespace distgrid::audit
