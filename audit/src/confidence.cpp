#include "distgrid/audit/confidence.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

#include <boost/math/special_functions/beta.hpp>

#include "distgrid/error.hpp"

namespace distgrid::audit {

using nlohmann::json;

double clopper_pearson_lower(std::uint64_t within, std::uint64_t count, double level) {
  if (count == 0 || within > count || !(level > 0 && level < 1))
    throw std::invalid_argument("clopper_pearson_lower needs 0 <= within <= count, count > 0, 0 < level < 1");
  const double alpha = 1 - level;
  if (within == 0) return 0;
  // Beta(n, 1) has the distribution function x^n: its quantile in closed form.
  if (within == count) return std::pow(alpha, 1 / static_cast<double>(count));
  // Boost's inverse of the regularized incomplete beta (Halley steps on a
  // bracketed start) is accurate to a few ulps for every a, b >= 1.
  return boost::math::ibeta_inv(static_cast<double>(within), static_cast<double>(count - within + 1), alpha);
}

namespace {

GeneratorTally& tally_for(std::vector<GeneratorTally>& tallies, const std::string& generator) {
  for (GeneratorTally& t : tallies)
    if (t.generator == generator) return t;
  tallies.push_back({generator, 0, 0});
  return tallies.back();
}

/// Per generator: how many of the statistics' values are at most `limit`.
std::vector<GeneratorTally> tally_series(const ErrorStats& stats, const SeriesState& series, double limit) {
  if (series.largest.size() != series.count)
    throw std::logic_error("a run's error series must keep every value to count those within budget");
  std::vector<GeneratorTally> tallies;
  const std::vector<UnitStart>& starts = stats.unit_starts();
  for (std::size_t u = 0; u < starts.size(); ++u) {
    const std::uint64_t last = u + 1 < starts.size() ? starts[u + 1].first : series.count;
    GeneratorTally& t = tally_for(tallies, starts[u].generator);
    for (std::uint64_t i = starts[u].first; i < last; ++i) {
      ++t.count;
      if (series.largest[static_cast<std::size_t>(i)] <= limit) ++t.within;  // an infinite (NaN) error never is
    }
  }
  return tallies;
}

std::vector<GeneratorTally> tally_decision(const DecisionStats& decision) {
  std::vector<GeneratorTally> tallies;
  for (const DecisionStats::UnitTally& unit : decision.units()) {
    GeneratorTally& t = tally_for(tallies, unit.generator);
    t.count += unit.count;
    t.within += unit.count - unit.misclassified;
  }
  return tallies;
}

/// The statistics a pointer's first tokens name: "error", or "errors" then the kind.
const ErrorStats* error_stats_at(const CalculationResult& result, const std::vector<std::string>& tokens,
                                 std::size_t& used) {
  if (tokens.size() >= 1 && tokens[0] == "error") {
    used = 1;
    return &result.error;
  }
  if (tokens.size() >= 2 && tokens[0] == "errors") {
    used = 2;
    const std::optional<ErrorStats>* kinds[] = {&result.arithmetic, &result.storage_error, &result.method};
    const char* names[] = {"arithmetic", "storage", "method"};
    for (std::size_t k = 0; k < 3; ++k)
      if (tokens[1] == names[k] && *kinds[k]) return &**kinds[k];
  }
  return nullptr;
}

const SeriesState* series_named(const ErrorStats& stats, const std::string& unit) {
  if (unit == "h") return stats.h_series();
  if (unit == "relative") return stats.relative_series();
  if (unit == "ulps") return &stats.ulps_series();
  if (unit == "bits") return &stats.bits_series();
  return nullptr;
}

/// A decision by its position or (as budgets will address it) its name.
const DecisionStats* decision_at(const CalculationResult& result, const std::string& token) {
  for (const DecisionStats& d : result.decisions)
    if (d.name() == token) return &d;
  if (token.empty() || !std::all_of(token.begin(), token.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return nullptr;
  const std::size_t index = std::stoul(token);
  return index < result.decisions.size() ? &result.decisions[index] : nullptr;
}

/// The reference tokens of a JSON pointer ("/error/h/max": error, h, max), ~1 and ~0 unescaped.
std::vector<std::string> pointer_tokens(const std::string& pointer) {
  std::vector<std::string> tokens;
  for (std::size_t at = 0; at < pointer.size() && pointer[at] == '/';) {
    const std::size_t end = std::min(pointer.find('/', at + 1), pointer.size());
    std::string token = pointer.substr(at + 1, end - at - 1);
    for (std::size_t k = 0; (k = token.find('~', k)) != std::string::npos && k + 1 < token.size(); ++k)
      token.replace(k, 2, token[k + 1] == '1' ? "/" : "~");
    tokens.push_back(std::move(token));
    at = end;
  }
  return tokens;
}

json share_json(json row, std::uint64_t count, std::uint64_t within) {
  row["count"] = count;
  row["within"] = within;
  row["share"] = static_cast<double>(within) / static_cast<double>(count);
  row["lower_bound"] = clopper_pearson_lower(within, count);
  return row;
}

}  // namespace

std::vector<BudgetTally> tally_within_budgets(std::string_view id, const CalculationResult& result,
                                              const std::vector<Budget>& budgets) {
  std::vector<BudgetTally> out;
  const std::string storage(storage_name(result.storage));
  for (const Budget& budget : budgets) {
    if (budget.id != id || budget.storage != storage) continue;
    const std::vector<std::string> tokens = pointer_tokens(budget.metric);
    std::size_t used = 0;
    if (const ErrorStats* stats = error_stats_at(result, tokens, used)) {
      if (tokens.size() != used + 2 || tokens[used + 1] != "max") continue;
      const SeriesState* series = series_named(*stats, tokens[used]);
      if (series) out.push_back({budget.metric, budget.max, tally_series(*stats, *series, budget.max)});
      continue;
    }
    if (tokens.size() == 3 && tokens[0] == "decisions" && tokens[2] == "misclassified" && budget.max == 0)
      if (const DecisionStats* decision = decision_at(result, tokens[1]))
        out.push_back({budget.metric, budget.max, tally_decision(*decision)});
  }
  return out;
}

json confidence_json(std::vector<BudgetTally> tallies, const std::vector<std::string>& generator_order) {
  const auto rank = [&](const GeneratorTally& t) {
    return static_cast<std::size_t>(std::find(generator_order.begin(), generator_order.end(), t.generator) -
                                    generator_order.begin());
  };
  json budgets = json::array();
  for (BudgetTally& tally : tallies) {
    std::stable_sort(tally.generators.begin(), tally.generators.end(),
                     [&](const GeneratorTally& a, const GeneratorTally& b) {
                       const std::size_t ra = rank(a), rb = rank(b);
                       return ra != rb ? ra < rb : (ra == generator_order.size() && a.generator < b.generator);
                     });
    json generators = json::array();
    std::uint64_t count = 0, within = 0;
    for (const GeneratorTally& g : tally.generators) {
      if (g.count == 0) continue;
      generators.push_back(share_json({{"name", g.generator}}, g.count, g.within));
      count += g.count;
      within += g.within;
    }
    if (count == 0) continue;
    json row = share_json({{"metric", tally.metric}, {"budget", tally.budget}}, count, within);
    row["generators"] = std::move(generators);
    budgets.push_back(std::move(row));
  }
  json out = {{"level", kConfidenceLevel},
              {"method",
               "share of inputs within the budget, with its one-sided Clopper-Pearson lower confidence bound "
               "(exact binomial) per input generator and over all of them"},
              {"budgets", budgets}};
  if (budgets.empty())
    out["null_reason"] = "no budget of this entry bounds single inputs (only an error's max, or a decision's "
                         "misclassified count at 0, does)";
  return out;
}

json merge_confidence(const std::vector<const json*>& entries, const std::vector<std::string>& names) {
  // The single run lists budgets in the budgets file's order, as the gate's checks.
  std::vector<BudgetTally> tallies;
  std::vector<std::string> order;
  try {
    for (const json& check : entries.front()->at("gate").at("checks"))
      if (check.at("budget").is_number() && check.value("status", "") != "informational")  // as run_audit tallies
        tallies.push_back({check.at("metric").get<std::string>(), check.at("budget").get<double>(), {}});
    for (const json& g : entries.front()->at("inputs").at("generators")) order.push_back(g.at("name"));
  } catch (const json::exception& e) {
    throw Error(ErrorCode::badarg, names.front() + ": an entry's gate checks or generators are malformed: " + e.what());
  }
  for (std::size_t i = 0; i < entries.size(); ++i) {
    try {
      for (const json& row : entries[i]->at("confidence").at("budgets")) {
        const std::string metric = row.at("metric").get<std::string>();
        const auto tally = std::find_if(tallies.begin(), tallies.end(),
                                        [&](const BudgetTally& t) { return t.metric == metric; });
        if (tally == tallies.end() || tally->budget != row.at("budget").get<double>())
          throw Error(ErrorCode::badarg, names[i] + ": /confidence: the budget of " + metric +
                                             " is not the one " + names.front() + " gated against");
        for (const json& g : row.at("generators")) {
          GeneratorTally& t = tally_for(tally->generators, g.at("name").get<std::string>());
          t.count += g.at("count").get<std::uint64_t>();
          t.within += g.at("within").get<std::uint64_t>();
        }
      }
    } catch (const json::exception& e) {
      throw Error(ErrorCode::badarg, names[i] + ": /confidence is malformed: " + e.what());
    }
  }
  return confidence_json(std::move(tallies), order);
}

}  // namespace distgrid::audit
