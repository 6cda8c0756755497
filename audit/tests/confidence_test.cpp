#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "distgrid/audit/confidence.hpp"
#include "distgrid/error.hpp"

namespace {

using distgrid::audit::Budget;
using distgrid::audit::CalculationResult;
using distgrid::audit::clopper_pearson_lower;
using distgrid::audit::confidence_json;
using distgrid::audit::DecisionStats;
using distgrid::audit::ErrorStats;
using distgrid::audit::ErrorValue;
using distgrid::audit::InputRecord;
using nlohmann::json;

// One-sided 95 % lower bounds, the 0.05 quantile of Beta(k, n - k + 1), found by
// bisection on mpmath's regularized incomplete beta at 50 digits (independent
// of Boost): e.g. 9 of 10 gives 0.6058, the textbook value.
struct Known {
  std::uint64_t within, count;
  double bound;
};
constexpr Known kKnown[] = {
    {9, 10, 0.60583669756349528726},         {95, 100, 0.89774662235672550521},
    {1, 1, 0.05},                             {10000, 10000, 0.99970047164022338808},
    {9990, 10000, 0.99830436854635462215},    {1, 10, 0.0051161968918237057854},
    {999, 1000, 0.99526500642450022337},      {5, 5, 0.54928027165305897368},
    {123456, 123460, 0.99992585997097897193}, {2, 3, 0.13535036217158384294},
};

TEST(ClopperPearson, lowerBoundsMatchHighPrecisionValues) {
  for (const Known& k : kKnown)
    EXPECT_NEAR(clopper_pearson_lower(k.within, k.count), k.bound, 1e-12 * k.bound)
        << k.within << " of " << k.count;
  EXPECT_EQ(clopper_pearson_lower(0, 1000), 0.0);
}

/// P(X >= k) for X ~ Binomial(n, p), summed in long double from the log of each term.
long double upper_tail(std::uint64_t k, std::uint64_t n, double p) {
  long double sum = 0;
  for (std::uint64_t i = k; i <= n; ++i) {
    const long double log_term = std::lgamma(static_cast<long double>(n) + 1) -
                                 std::lgamma(static_cast<long double>(i) + 1) -
                                 std::lgamma(static_cast<long double>(n - i) + 1) +
                                 static_cast<long double>(i) * std::log(static_cast<long double>(p)) +
                                 static_cast<long double>(n - i) * std::log1p(-static_cast<long double>(p));
    sum += std::exp(log_term);
  }
  return sum;
}

TEST(ClopperPearson, theBoundIsWhereTheBinomialTailHoldsFivePercent) {
  // Defining property: at p = bound, k or more successes of n have probability 1 - level.
  for (std::uint64_t n : {7u, 40u, 300u, 2000u})
    for (std::uint64_t k = 1; k <= n; k += n / 7 + 1) {
      const double bound = clopper_pearson_lower(k, n);
      EXPECT_NEAR(static_cast<double>(upper_tail(k, n, bound)), 0.05, 1e-9) << k << " of " << n;
      EXPECT_LE(bound, static_cast<double>(k) / static_cast<double>(n)) << k << " of " << n;
    }
  EXPECT_NEAR(clopper_pearson_lower(90, 100, 0.99), 0.80866971461396898938, 1e-12);  // mpmath, as above
  EXPECT_LT(clopper_pearson_lower(90, 100, 0.99), clopper_pearson_lower(90, 100));
}

TEST(ClopperPearson, refusesImpossibleCounts) {
  EXPECT_THROW((void)clopper_pearson_lower(3, 2), std::invalid_argument);
  EXPECT_THROW((void)clopper_pearson_lower(0, 0), std::invalid_argument);
  EXPECT_THROW((void)clopper_pearson_lower(1, 2, 1.0), std::invalid_argument);
}

ErrorValue error_in_h(double h) {
  ErrorValue v;
  v.abs = h;
  v.h = h;
  v.ulps = h * 1e10;
  return v;
}

/// A result with two generator units ("uniform": 6 inputs, "far": 4 inputs, then
/// "uniform" again for a second part: 2 inputs) of errors and a decision.
CalculationResult sample_result(std::size_t first, std::size_t last) {
  const std::vector<std::pair<std::string, std::vector<double>>> units{
      {"uniform", {1, 2, 3, 4, 5, 6}}, {"far", {1, 9, 2, 9}}, {"uniform", {7, 0.5}}};
  CalculationResult r;
  r.error = ErrorStats(true, false);
  r.storage_error = ErrorStats(true, false);
  r.decisions.emplace_back("region", "a decision");
  std::size_t n = 0;
  for (const auto& unit : units) {
    const std::string& generator = unit.first;
    const std::vector<double>& values = unit.second;
    r.begin_unit(values.size());
    for (std::size_t k = 0; k < values.size(); ++k, ++n) {
      if (n < first || n >= last) continue;  // another shard's share
      const auto record = [&] { return InputRecord{1, generator, k, "part", {}}; };
      r.error.add(error_in_h(values[k]), record);
      r.storage_error->add(error_in_h(values[k] / 2), record);
      r.decisions[0].add(k == 1 ? "in" : "out", "out", 1.0, record);
    }
  }
  return r;
}

const std::vector<Budget> kBudgets{
    {"grid.sample", "float", "/mismatches", 0, "not per input"},
    {"grid.sample", "float", "/error/h/max", 4, "per input"},
    {"grid.sample", "float", "/error/h/p99", 4, "a p99 bounds no single input"},
    {"grid.sample", "float", "/errors/storage/h/max", 3, "per input"},
    {"grid.sample", "float", "/errors/method/h/max", 3, "no such statistics"},
    {"grid.sample", "double", "/error/h/max", 0, "another storage"},
    {"grid.sample", "float", "/decisions/0/misclassified", 0, "per input"},
    {"grid.sample", "float", "/decisions/region/misclassified", 0, "by name"},
    {"grid.sample", "float", "/decisions/0/misclassified", 2, "a count above 0 bounds no single input"},
};

TEST(WithinBudget, countsEachGeneratorsInputsAtMostTheBudget) {
  const CalculationResult r = sample_result(0, 12);
  const json c = confidence_json(distgrid::audit::tally_within_budgets("grid.sample", r, kBudgets), {"far", "uniform"});
  ASSERT_EQ(c["budgets"].size(), 4u) << c.dump(1);
  const json& error = c["budgets"][0];
  EXPECT_EQ(error["metric"], "/error/h/max");
  EXPECT_EQ(error["count"], 12);
  EXPECT_EQ(error["within"], 7);  // 1 2 3 4 | 1 2 | 0.5
  EXPECT_DOUBLE_EQ(error["share"].get<double>(), 7.0 / 12);
  EXPECT_DOUBLE_EQ(error["lower_bound"].get<double>(), clopper_pearson_lower(7, 12));
  // Generators in the order given, the two "uniform" units counted together.
  ASSERT_EQ(error["generators"].size(), 2u);
  EXPECT_EQ(error["generators"][0]["name"], "far");
  EXPECT_EQ(error["generators"][0]["count"], 4);
  EXPECT_EQ(error["generators"][0]["within"], 2);
  EXPECT_EQ(error["generators"][1]["name"], "uniform");
  EXPECT_EQ(error["generators"][1]["count"], 8);
  EXPECT_EQ(error["generators"][1]["within"], 5);
  const json& storage = c["budgets"][1];
  EXPECT_EQ(storage["metric"], "/errors/storage/h/max");
  EXPECT_EQ(storage["within"], 9);  // halves at most 3: all but 9/2, 9/2 and 7/2 (6/2 = 3 is within)
  const json& decision = c["budgets"][2];
  EXPECT_EQ(decision["metric"], "/decisions/0/misclassified");
  EXPECT_EQ(decision["within"], 9);  // the second input of each unit is misclassified
  EXPECT_EQ(c["budgets"][3]["metric"], "/decisions/region/misclassified");
  EXPECT_FALSE(c.contains("null_reason"));
}

TEST(WithinBudget, anEntryWithoutPerInputBudgetsSaysWhy) {
  const CalculationResult r = sample_result(0, 12);
  const json c = confidence_json(distgrid::audit::tally_within_budgets("grid.key", r, kBudgets), {});
  EXPECT_TRUE(c["budgets"].empty());
  EXPECT_TRUE(c.contains("null_reason"));
  EXPECT_EQ(c["level"], 0.95);
}

TEST(WithinBudget, sharesOfShardsMergeIntoTheSingleRunsExactly) {
  const std::vector<std::string> order{"uniform", "far"};
  const auto entry = [&](std::size_t first, std::size_t last) {
    const CalculationResult r = sample_result(first, last);
    json checks = json::array();
    for (const Budget& b : kBudgets)
      if (b.storage == "float") checks.push_back({{"metric", b.metric}, {"budget", b.max}});
    return json{{"inputs", {{"generators", {{{"name", "uniform"}}, {{"name", "far"}}}}}},
                {"gate", {{"checks", checks}}},
                {"confidence", confidence_json(distgrid::audit::tally_within_budgets("grid.sample", r, kBudgets), order)}};
  };
  const json whole = entry(0, 12);
  // Shards that cut through units, and one that draws no "far" input at all.
  for (const std::vector<std::size_t>& cuts : {std::vector<std::size_t>{0, 3, 8, 12}, std::vector<std::size_t>{0, 6, 10, 12}}) {
    std::vector<json> shards;
    std::vector<const json*> parts;
    std::vector<std::string> names;
    for (std::size_t s = 0; s + 1 < cuts.size(); ++s) shards.push_back(entry(cuts[s], cuts[s + 1]));
    for (std::size_t s = 0; s < shards.size(); ++s) {
      parts.push_back(&shards[s]);
      names.push_back("shard " + std::to_string(s));
    }
    EXPECT_EQ(distgrid::audit::merge_confidence(parts, names), whole["confidence"]) << cuts[1];
  }
}

TEST(WithinBudget, mergeRefusesShardsGatedAgainstOtherBudgets) {
  const CalculationResult r = sample_result(0, 12);
  json checks = json::array();  // push_back: a one-element braced list is not an array under every compiler
  checks.push_back({{"metric", "/error/h/max"}, {"budget", 4}});
  json a = {{"inputs", {{"generators", json::array()}}},
            {"gate", {{"checks", checks}}},
            {"confidence", confidence_json(distgrid::audit::tally_within_budgets("grid.sample", r, kBudgets), {})}};
  const json error_row = a["confidence"]["budgets"][0];  // the row of the one budget checked
  a["confidence"]["budgets"] = json::array();
  a["confidence"]["budgets"].push_back(error_row);
  EXPECT_NO_THROW((void)distgrid::audit::merge_confidence({&a, &a}, {"a.json", "a.json"}));
  json b = a;
  b["confidence"]["budgets"][0]["budget"] = 5;
  try {
    (void)distgrid::audit::merge_confidence({&a, &b}, {"a.json", "b.json"});
    ADD_FAILURE() << "merged shards with other budgets";
  } catch (const distgrid::Error& e) {
    EXPECT_NE(std::string(e.what()).find("b.json"), std::string::npos) << e.what();
  }
}

}  // namespace
