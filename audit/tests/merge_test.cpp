#include "distgrid/audit/merge.hpp"

#include <algorithm>

#include <gtest/gtest.h>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/gate.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {
namespace {

using nlohmann::json;

json entry(const char* id, const char* storage) {
  return {{"id", id}, {"storage", storage}, {"gate", {{"status", "pass"}}}, {"properties", {{"tests", {"p"}}}}};
}

/// `entries` must be an array: pass json::array({e}) for one entry, since a
/// one-element braced list is the element itself under clang and an array under GCC.
json shard(unsigned index, json entries, json inputs, double seconds) {
  return {{"schema", kReportSchema},
          {"tool", {{"name", "distgrid-audit"}}},
          {"build", {{"git_revision", "abc"}}},
          {"settings", {{"h", 0.015625}, {"threads", index + 1}, {"inputs", inputs}}},
          {"calculations", entries},
          {"findings", json::array()},
          {"gate", {{"budgets", "audit/gates.json"}, {"status", "pass"}}},
          {"run_seconds", seconds},
          {"shard", {{"index", index}, {"count", 2}}}};
}

TEST(Merge, RefusesARepeatedShardOtherSettingsAndAnEntryRunWhole) {
  const json a = shard(0, json::array(), json::object(), 1);
  json b = shard(1, json::array(), json::object(), 1);
  EXPECT_THROW(merge_reports({a, a}, {"a", "a"}), Error);
  json other = b;
  other["settings"]["h"] = 0.03125;
  EXPECT_THROW(merge_reports({a, other}, {"a", "other"}), Error);
  json whole = b;  // an entry without shard_data: every calculation splits its inputs
  whole["calculations"] = json::array({entry("bake.plan", "double")});
  EXPECT_THROW(merge_reports({a, whole}, {"a", "whole"}), Error);
  json unsharded = b;
  unsharded.erase("shard");
  EXPECT_THROW(merge_reports({a, unsharded}, {"a", "unsharded"}), Error);
}

TEST(Merge, TakesTheWholeRunSectionsFromShardZeroAndRecomputesTheComparisonRows) {
  json a = shard(0, json::array(), json::object(), 1);
  a["claims"] = json::array({{{"id", "c"}, {"verdict", "verified"}}});
  a["refinement"] = {{"h", {0.5}}};
  a["comparison"] = {{"rows", {{{"id", "stale"}}}},
                     {"verdict", {{"decision", "keep float"}}},
                     {"storages", {{"h", 0.5}, {"by_storage", json::array()}, {"verdict", {{"decision", "stale"}}}}}};
  json b = shard(1, json::array(), json::object(), 1);
  b["sections_missing"] = {"claims", "refinement", "comparison"};
  const json merged = merge_reports({b, a}, {"b", "a"});
  EXPECT_EQ(merged["claims"], a["claims"]);
  EXPECT_EQ(merged["refinement"], a["refinement"]);
  EXPECT_EQ(merged["comparison"]["verdict"], a["comparison"]["verdict"]);
  // Recomputed from the joined entries: these carry no separated errors, so no row.
  EXPECT_EQ(merged["comparison"]["rows"], json::array());
  // The smallest-storage verdict is recomputed with those rows: nothing measured.
  EXPECT_EQ(merged["comparison"]["storages"]["verdict"]["decision"], "no verdict");
  EXPECT_FALSE(merged.contains("sections_missing"));

  json holds_claims = b;
  holds_claims["claims"] = a["claims"];
  EXPECT_THROW(merge_reports({a, holds_claims}, {"a", "holds_claims"}), Error);
}

TEST(Merge, FailsWhenAShardFailedItsClaimsAndNamesWhatIsStillMissing) {
  json a = shard(0, json::array(), json::object(), 1);
  a["gate"]["status"] = "fail";  // a claim gate failed
  const json b = shard(1, json::array(), json::object(), 1);
  const json merged = merge_reports({a, b}, {"a", "b"});
  EXPECT_EQ(merged["gate"]["status"], "fail");
  EXPECT_EQ(merged["sections_missing"], (json{"claims", "refinement", "comparison"}));
}


/// One calculation's result over two generator units (7 and 5 inputs), only
/// this shard's contiguous share of each; h values tie across shards.
CalculationResult split_result(std::size_t index, std::size_t count) {
  CalculationResult r;
  r.error = ErrorStats(true, false);
  r.decisions.emplace_back("sign", "the sign of a value");
  const std::size_t unit_inputs[] = {7, 5};
  const double h[2][7] = {{1, 3, 0.5, 3, 1e-300, 3, 2}, {3, 1e16, 3, 0.25, 3, 0, 0}};
  const double margin[2][7] = {{4, 0, 9, 0, 2, 0, 7}, {0, 1, 0, 3, 0, 0, 0}};
  for (std::size_t u = 0; u < 2; ++u) {
    const std::size_t first = unit_inputs[u] * index / count, last = unit_inputs[u] * (index + 1) / count;
    r.begin_unit(unit_inputs[u]);
    r.strata.push_back({u == 0 ? "a" : "b", "unit", last - first, 0});
    for (std::size_t n = first; n < last; ++n) {
      ErrorValue e;
      e.h = h[u][n];
      e.abs = e.ulps = h[u][n] * 4;
      e.result = e.reference = 1;
      const auto record = [&] { return InputRecord{1, u == 0 ? "a" : "b", n, "", {}}; };
      r.error.add(e, record);
      r.decisions[0].add(n == 2 && u == 1 ? "-" : "+", "+", margin[u][n], record);
    }
  }
  return r;
}

json split_entry(const CalculationResult& r, bool shard, const char* id = "grid.sample") {
  json e = calculation_json(*find_calculation(id), r, "");
  e["properties"] = {{"tests", {"p"}}};
  e["gate"] = gate_json({});
  if (shard) e["shard_data"] = shard_data_json(r);
  return e;
}

TEST(Merge, JoinsShardsInRegistryOrderAndDropsTheShardSection) {
  std::vector<json> shards;
  for (unsigned i = 0; i < 2; ++i)
    shards.push_back(shard(i,
                           {split_entry(split_result(i, 2), true, "grid.world_box"),
                            split_entry(split_result(i, 2), true, "grid.key")},
                           {{"grid.key", {{"a", i + 1}}}}, 1.5 + i));
  const json merged = merge_reports({shards[1], shards[0]}, {"b", "a"});
  ASSERT_EQ(merged["calculations"].size(), 2u);
  EXPECT_EQ(merged["calculations"][0]["id"], "grid.key");
  EXPECT_EQ(merged["calculations"][1]["id"], "grid.world_box");
  EXPECT_FALSE(merged["calculations"][0].contains("shard_data"));
  EXPECT_EQ(merged["settings"]["inputs"], (json{{"grid.key", {{"a", 3}}}}));
  EXPECT_EQ(merged["run_seconds"], 4.0);
  EXPECT_FALSE(merged.contains("shard"));
}

TEST(Merge, JoinsASplitCalculationIntoTheSingleRunsEntryTiesIncluded) {
  const json single = split_entry(split_result(0, 1), false);
  std::vector<json> shards;
  for (unsigned i = 0; i < 3; ++i) {
    json report = shard(i, json::array({split_entry(split_result(i, 3), true)}), json::object(), 1);
    report["shard"]["count"] = 3;
    shards.push_back(report);
  }
  const json merged = merge_reports({shards[2], shards[0], shards[1]}, {"s2", "s0", "s1"});
  ASSERT_EQ(merged["calculations"].size(), 1u);
  json joined = merged["calculations"][0];
  for (const char* timing : {"seconds", "evaluations_per_second", "evaluations_per_second_null_reason"})
    joined.erase(timing);
  EXPECT_EQ(joined, single) << joined.dump(1) << "\n" << single.dump(1);
  // The ties (h = 3, margin 0) keep the earlier input of the single run first.
  EXPECT_EQ(single["error"]["worst"][1]["index"], 1);
  EXPECT_EQ(single["decisions"][0]["closest"][0]["generator"], "b");  // misclassified first
}

/// split_result with details as grid.volume writes them when it deals whole
/// parts (3 in all) to the shards: rows of its own parts, a count of numbers.
CalculationResult whole_units_result(std::size_t index, std::size_t count) {
  CalculationResult r = split_result(index, count);
  json rows = json::array();
  for (std::size_t part = 3 * index / count; part < 3 * (index + 1) / count; ++part)
    rows.push_back({{"part", part}, {"core", 0.5 * static_cast<double>(part)}});
  r.details = {{"by_part", rows}, {"numbers_compared", r.error.count()}, {"note", "the same in every shard"}};
  return r;
}

TEST(Merge, ConcatenatesTheRowsOfWholeUnitsInShardOrder) {
  const json single = split_entry(whole_units_result(0, 1), false, "grid.volume");
  ASSERT_EQ(single["details"]["by_part"].size(), 3u);
  std::vector<json> shards;
  for (unsigned i = 0; i < 3; ++i) {
    const json entries = json::array({split_entry(whole_units_result(i, 3), true, "grid.volume")});
    json report = shard(i, entries, json::object(), 1);
    report["shard"]["count"] = 3;
    shards.push_back(report);
  }
  const json merged = merge_reports({shards[1], shards[2], shards[0]}, {"s1", "s2", "s0"});
  json joined = merged["calculations"][0];
  for (const char* timing : {"seconds", "evaluations_per_second", "evaluations_per_second_null_reason"})
    joined.erase(timing);
  EXPECT_EQ(joined, single) << joined.dump(1) << "\n" << single.dump(1);
  // The same rows split the same way are refused where they are not concatenated.
  for (json& report : shards) report["calculations"][0]["id"] = "grid.sample";
  EXPECT_THROW(merge_reports(shards, {"s0", "s1", "s2"}), Error);
}

/// split_result with details as a split calculation writes them: a table that
/// is not a count, each unit's first examples (inputs with h = 3) capped as
/// the calculations cap them, and one input's flag.
CalculationResult with_examples(unsigned index, unsigned count) {
  CalculationResult r = split_result(index, count);
  const std::size_t unit_inputs[] = {7, 5};
  const std::size_t threes[2][3] = {{1, 3, 5}, {0, 2, 4}};  // where split_result's h is 3
  const double h[2][7] = {{1, 3, 0.5, 3, 1e-300, 3, 2}, {3, 1e16, 3, 0.25, 3, 0, 0}};  // as split_result
  json examples = json::array();
  bool flag = false;
  for (std::size_t u = 0; u < 2; ++u)
    for (std::size_t n : threes[u])
      if (unit_inputs[u] * index / count <= n && n < unit_inputs[u] * (index + 1) / count) {
        if (examples.size() < ErrorStats::kWorstKept) examples.push_back({{"generator", u == 0 ? "a" : "b"}, {"index", n}});
        flag = flag || (u == 0 && n == 3);
      }
  // Counts by name: only the shard drawing h = 1e16 names "huge".
  json by_size = json::object();
  double smallest = 1e300, largest = 0;
  for (std::size_t u = 0; u < 2; ++u)
    for (std::size_t n = unit_inputs[u] * index / count; n < unit_inputs[u] * (index + 1) / count; ++n) {
      const char* name = h[u][n] > 10 ? "huge" : h[u][n] >= 1 ? "large" : "small";
      by_size[name] = by_size.value(name, 0) + 1;
      smallest = std::min(smallest, h[u][n]);
      largest = std::max(largest, h[u][n]);
    }
  r.details = {{"by_corner_count", {{{"corners", 5}}}},
               {"mismatch_examples", examples},
               {"exact_features", by_size},
               {"smallest_h", smallest},
               {"largest_h", largest},
               {"rows", {{{"box_missing_or_extra", flag}}}}};
  return r;
}

TEST(Merge, JoinsExampleListsCountsByNameExtremesAndFlagsAndKeepsTables) {
  const json single = split_entry(with_examples(0, 1), false);
  std::vector<json> shards;
  for (unsigned i = 0; i < 3; ++i) {
    json report = shard(i, json::array({split_entry(with_examples(i, 3), true)}), json::object(), 1);
    report["shard"]["count"] = 3;
    shards.push_back(report);
  }
  const json merged = merge_reports({shards[1], shards[2], shards[0]}, {"s1", "s2", "s0"});
  EXPECT_EQ(merged["calculations"][0]["details"], single["details"]) << merged["calculations"][0]["details"].dump();
  EXPECT_EQ(single["details"]["mismatch_examples"].size(), ErrorStats::kWorstKept);
  EXPECT_EQ(single["details"]["mismatch_examples"][3]["generator"], "b");
  EXPECT_EQ(single["details"]["exact_features"]["huge"], 1);
  EXPECT_EQ(single["details"]["smallest_h"], 1e-300);
  // An example naming a generator the entry lacks cannot be ordered.
  shards[1]["calculations"][0]["details"]["mismatch_examples"][0]["generator"] = "z";
  EXPECT_THROW(merge_reports(shards, {"s0", "s1", "s2"}), Error);
}

TEST(Merge, RefusesSplitEntriesMissingAShardOrTheirShardData) {
  std::vector<json> shards;
  for (unsigned i = 0; i < 2; ++i)
    shards.push_back(shard(i, json::array({split_entry(split_result(i, 2), true)}), json::object(), 1));
  json without = shards[1];
  without["calculations"][0].erase("shard_data");
  EXPECT_THROW(merge_reports({shards[0], without}, {"a", "without"}), Error);
  json missing = shards[1];
  missing["calculations"] = json::array();
  EXPECT_THROW(merge_reports({shards[0], missing}, {"a", "missing"}), Error);
  json other_details = shards[1];
  other_details["calculations"][0]["details"] = {{"note", "another text"}};
  shards[0]["calculations"][0]["details"] = {{"note", "a text"}};
  EXPECT_THROW(merge_reports({shards[0], other_details}, {"a", "other_details"}), Error);
}

}  // namespace
}  // namespace distgrid::audit
