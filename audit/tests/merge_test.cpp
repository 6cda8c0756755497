#include "distgrid/audit/merge.hpp"

#include <gtest/gtest.h>

#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {
namespace {

using nlohmann::json;

json entry(const char* id, const char* storage) {
  return {{"id", id}, {"storage", storage}, {"gate", {{"status", "pass"}}}, {"properties", {{"tests", {"p"}}}}};
}

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

TEST(Merge, JoinsShardsInRegistryOrderAndDropsTheShardSection) {
  const json a = shard(0, {entry("grid.key", "float"), entry("grid.volume", "float")}, {{"grid.key", 1}}, 1.5);
  const json b = shard(1, {entry("grid.sample", "float")}, {{"grid.sample", 2}}, 2.0);
  const json merged = merge_reports({b, a}, {"b", "a"});
  ASSERT_EQ(merged["calculations"].size(), 3u);
  EXPECT_EQ(merged["calculations"][0]["id"], "grid.key");
  EXPECT_EQ(merged["calculations"][1]["id"], "grid.sample");
  EXPECT_EQ(merged["calculations"][2]["id"], "grid.volume");
  EXPECT_EQ(merged["settings"]["inputs"], (json{{"grid.key", 1}, {"grid.sample", 2}}));
  EXPECT_EQ(merged["run_seconds"], 3.5);
  EXPECT_FALSE(merged.contains("shard"));
}

TEST(Merge, RefusesARepeatedShardOtherSettingsAndACalculationInTwoShards) {
  const json a = shard(0, {entry("grid.key", "float")}, json::object(), 1);
  json b = shard(1, {entry("grid.sample", "float")}, json::object(), 1);
  EXPECT_THROW(merge_reports({a, a}, {"a", "a"}), Error);
  json other = b;
  other["settings"]["h"] = 0.03125;
  EXPECT_THROW(merge_reports({a, other}, {"a", "other"}), Error);
  json twice = b;
  twice["calculations"] = {entry("grid.key", "double")};
  EXPECT_THROW(merge_reports({a, twice}, {"a", "twice"}), Error);
  json unsharded = b;
  unsharded.erase("shard");
  EXPECT_THROW(merge_reports({a, unsharded}, {"a", "unsharded"}), Error);
}

TEST(Merge, TakesTheWholeRunSectionsFromShardZeroAndRecomputesTheComparisonRows) {
  json a = shard(0, {entry("grid.key", "float")}, json::object(), 1);
  a["claims"] = json::array({{{"id", "c"}, {"verdict", "verified"}}});
  a["refinement"] = {{"h", {0.5}}};
  a["comparison"] = {{"rows", {{{"id", "stale"}}}}, {"verdict", {{"decision", "keep float"}}}};
  json b = shard(1, {entry("grid.sample", "float")}, json::object(), 1);
  b["sections_missing"] = {"claims", "refinement", "comparison"};
  const json merged = merge_reports({b, a}, {"b", "a"});
  EXPECT_EQ(merged["claims"], a["claims"]);
  EXPECT_EQ(merged["refinement"], a["refinement"]);
  EXPECT_EQ(merged["comparison"]["verdict"], a["comparison"]["verdict"]);
  // Recomputed from the joined entries: these carry no separated errors, so no row.
  EXPECT_EQ(merged["comparison"]["rows"], json::array());
  EXPECT_FALSE(merged.contains("sections_missing"));

  json holds_claims = b;
  holds_claims["claims"] = a["claims"];
  EXPECT_THROW(merge_reports({a, holds_claims}, {"a", "holds_claims"}), Error);
}

TEST(Merge, FailsWhenAShardFailedItsClaimsAndNamesWhatIsStillMissing) {
  json a = shard(0, {entry("grid.key", "float")}, json::object(), 1);
  a["gate"]["status"] = "fail";  // its entries passed: a claim gate failed
  const json b = shard(1, {entry("grid.sample", "float")}, json::object(), 1);
  const json merged = merge_reports({a, b}, {"a", "b"});
  EXPECT_EQ(merged["gate"]["status"], "fail");
  EXPECT_EQ(merged["sections_missing"], (json{"claims", "refinement", "comparison"}));
}

}  // namespace
}  // namespace distgrid::audit
