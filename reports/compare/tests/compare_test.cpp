#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "distgrid/error.hpp"
#include "distgrid/reports/compare.hpp"
#include "distgrid/reports/replay_command.hpp"

namespace {

using distgrid::reports::Change;
using distgrid::reports::Comparison;
using distgrid::reports::CompareOptions;
using distgrid::reports::compare_reports;
using distgrid::reports::MetricRow;
using nlohmann::json;

json statistics(double max, double p99) {
  json worst = json::array();  // push_back: a one-element braced list is not an array under every compiler
  worst.push_back({{"seed", 1},
                   {"generator", "far"},
                   {"index", 7},
                   {"part", "sphere"},
                   {"input", {{"x", "0x1p-3"}}},
                   {"result", "0x1.8p-2"},
                   {"reference", "0x1.7p-2"}});
  return {{"count", 100},
          {"non_finite", 0},
          {"h", {{"max", max}, {"mean", max / 10}, {"rms", max / 5}, {"p99", p99}}},
          {"worst", worst}};
}

json decision(const std::string& name, int misclassified) {
  json closest = json::array();
  closest.push_back({{"seed", 1}, {"generator", "edges"}, {"index", 2}, {"input", {{"a", "1"}}}, {"core", "in"}, {"exact", "out"}});
  return {{"name", name},         {"what", "a decision"}, {"count", 50}, {"misclassified", misclassified},
          {"min_margin_ulps", 3}, {"closest", closest}};
}

json entry(const std::string& id, const std::string& storage, const std::string& declared = "64-bit") {
  json one_check = json::array();
  one_check.push_back({{"metric", "/error/h/max"}, {"status", "pass"}});
  return {{"id", id},
          {"storage", storage},
          {"declared", declared},
          {"measured", "64-bit"},
          {"error", statistics(1e-7, 5e-8)},
          {"errors", {{"arithmetic", nullptr}, {"storage", statistics(4e-8, 2e-8)}, {"method", nullptr}}},
          {"decisions", json::array({decision("region", 0), decision("sign", 3)})},
          {"gate", {{"status", "pass"}, {"checks", one_check}}}};
}

json report() {
  return {{"schema", "distgrid-audit-report/1"},
          {"build", {{"git_revision", "abc123"}, {"commit_time", "2026-12-03T10:00:00+00:00"}}},
          {"settings",
           {{"storage", {"float", "double"}},
            {"parts", {"sphere"}},
            {"spec_parts", json::array()},
            {"mesh_parts", json::array()},
            {"mesh_files", json::array()},
            {"h", 0.015625},
            {"h_series", {0.015625}},
            {"band", 3},
            {"seed", 1},
            {"inputs_per_generator_and_part", 1000},
            {"quick", true}}},
          {"calculations", json::array({entry("grid.sample", "float"), entry("grid.sample", "double"),
                                        entry("grid.key", "float", "exact")})},
          {"claims", json::array({{{"id", "storage.float_rounding"}, {"verdict", "verified"}},
                                  {{"id", "volume.flat_exact"}, {"verdict", "refuted"}}})},
          {"comparison", {{"verdict", {{"decision", "keep float"}}}}},
          {"gate", {{"status", "pass"}, {"budgets", "audit/gates.json"}}}};
}

const MetricRow* row(const Comparison& c, const std::string& id, const std::string& storage, const std::string& metric) {
  for (const MetricRow& r : c.rows)
    if (r.id == id && r.storage == storage && r.metric == metric) return &r;
  return nullptr;
}

std::vector<const MetricRow*> rows_with(const Comparison& c, Change change) {
  std::vector<const MetricRow*> out;
  for (const MetricRow& r : c.rows)
    if (r.change == change) out.push_back(&r);
  return out;
}

TEST(CompareReports, aReportComparedWithItselfIsUnchangedEverywhere) {
  const Comparison c = compare_reports(report(), report(), {});
  ASSERT_FALSE(c.rows.empty());
  EXPECT_EQ(c.count(Change::unchanged), c.rows.size());
  EXPECT_TRUE(c.verdicts.empty());
  EXPECT_FALSE(c.regressed());
  // Errors in every summary of every unit, decisions by name, for each calculation and storage.
  EXPECT_NE(row(c, "grid.sample", "double", "errors/storage/h/p99"), nullptr);
  EXPECT_NE(row(c, "grid.key", "float", "decisions/sign/misclassified"), nullptr);
}

TEST(CompareReports, anErrorFourTimesLargerRegressesByTwoBitsOnExactlyThatRow) {
  json current = report();
  current["calculations"][1]["error"]["h"]["max"] = 4e-7;
  const Comparison c = compare_reports(report(), current, {});
  const auto regressed = rows_with(c, Change::regressed);
  ASSERT_EQ(regressed.size(), 1u);
  EXPECT_EQ(regressed[0]->id, "grid.sample");
  EXPECT_EQ(regressed[0]->storage, "double");
  EXPECT_EQ(regressed[0]->metric, "error/h/max");
  EXPECT_DOUBLE_EQ(regressed[0]->delta, 2.0);
  EXPECT_EQ(distgrid::reports::delta_text(*regressed[0]), "+2.00 bits");
  EXPECT_TRUE(c.regressed());
}

TEST(CompareReports, errorsWithinHalfABitAreUnchangedAndBeyondItMove) {
  json current = report();
  current["calculations"][0]["error"]["h"]["max"] = 1.3e-7;   // +0.38 bits
  current["calculations"][0]["error"]["h"]["p99"] = 7.5e-8;   // +0.58 bits
  current["calculations"][0]["error"]["h"]["mean"] = 1e-8 / 1.5;  // -0.58 bits
  const Comparison c = compare_reports(report(), current, {});
  EXPECT_EQ(row(c, "grid.sample", "float", "error/h/max")->change, Change::unchanged);
  EXPECT_EQ(row(c, "grid.sample", "float", "error/h/p99")->change, Change::regressed);
  EXPECT_EQ(row(c, "grid.sample", "float", "error/h/mean")->change, Change::improved);
  CompareOptions wider;
  wider.tolerance_bits = 1;
  const Comparison w = compare_reports(report(), current, wider);
  EXPECT_EQ(w.count(Change::regressed), 0u);
  EXPECT_EQ(w.count(Change::improved), 0u);
}

TEST(CompareReports, exactCalculationsAndDecisionsTolerateNothing) {
  json base = report(), current = report();
  base["calculations"][2]["error"]["h"]["max"] = 0.0;
  current["calculations"][2]["error"]["h"]["max"] = 1e-300;
  current["calculations"][2]["error"]["h"]["p99"] = 5e-8 * 1.01;  // 0.014 bits
  current["calculations"][0]["decisions"][0]["misclassified"] = 2;
  current["calculations"][0]["decisions"][1]["misclassified"] = 1;
  CompareOptions loose;
  loose.tolerance_bits = 8;  // applies to errors of calculations not declared exact only
  const Comparison c = compare_reports(base, current, loose);
  const MetricRow* from_zero = row(c, "grid.key", "float", "error/h/max");
  EXPECT_EQ(from_zero->change, Change::regressed);
  EXPECT_EQ(distgrid::reports::delta_text(*from_zero), "from 0");
  EXPECT_EQ(row(c, "grid.key", "float", "error/h/p99")->change, Change::regressed);
  const MetricRow* region = row(c, "grid.sample", "float", "decisions/region/misclassified");
  EXPECT_EQ(region->change, Change::regressed);
  EXPECT_EQ(region->delta, 2);
  EXPECT_EQ(distgrid::reports::delta_text(*region), "+2");
  EXPECT_EQ(row(c, "grid.sample", "float", "decisions/sign/misclassified")->change, Change::improved);
  EXPECT_EQ(c.count(Change::regressed), 3u);
}

TEST(CompareReports, decisionsAreMatchedByNameNotPosition) {
  json current = report();
  std::swap(current["calculations"][0]["decisions"][0], current["calculations"][0]["decisions"][1]);
  EXPECT_FALSE(compare_reports(report(), current, {}).regressed());
}

TEST(CompareReports, missingAndAddedEntriesMetricsAndClaimsAreListed) {
  json base = report(), current = report();
  current["calculations"].erase(2);                                          // grid.key float disappears
  current["calculations"].push_back(entry("grid.volume", "float"));         // grid.volume float appears
  current["calculations"][0]["decisions"].push_back(decision("brick", 0));   // a new decision
  current["calculations"][0]["errors"]["storage"] = nullptr;                 // a separated error goes
  current["claims"].push_back({{"id", "key.exact_below_2_51"}, {"verdict", "verified"}});
  const Comparison c = compare_reports(base, current, {});
  EXPECT_EQ(row(c, "grid.sample", "float", "decisions/brick/misclassified")->change, Change::appeared);
  EXPECT_EQ(row(c, "grid.sample", "float", "errors/storage/h/max")->change, Change::disappeared);
  bool key_gone = false, volume_new = false, claim_new = false;
  for (const auto& v : c.verdicts) {
    key_gone = key_gone || (v.kind == "calculation" && v.subject == "grid.key float" && v.change == Change::disappeared);
    volume_new = volume_new || (v.kind == "calculation" && v.subject == "grid.volume float" && v.change == Change::appeared);
    claim_new = claim_new || (v.kind == "claim" && v.subject == "key.exact_below_2_51" && v.change == Change::appeared);
  }
  EXPECT_TRUE(key_gone);
  EXPECT_TRUE(volume_new);
  EXPECT_TRUE(claim_new);
  EXPECT_FALSE(c.regressed()) << "appearing and disappearing are listed, not regressions";
}

TEST(CompareReports, aNullErrorCountsAsInfinitelyLarge) {
  json current = report();
  current["calculations"][0]["error"]["h"]["max"] = nullptr;
  const Comparison c = compare_reports(report(), current, {});
  const MetricRow* r = row(c, "grid.sample", "float", "error/h/max");
  EXPECT_EQ(r->change, Change::regressed);
  EXPECT_EQ(distgrid::reports::delta_text(*r), "to null");
  EXPECT_EQ(compare_reports(current, report(), {}).count(Change::improved), 1u);
}

TEST(CompareReports, verdictsMoveByTheirOrder) {
  json current = report();
  current["claims"][0]["verdict"] = "refuted";
  current["claims"][1]["verdict"] = "verified";
  current["calculations"][0]["gate"]["status"] = "fail";
  current["calculations"][1]["measured"] = "32-bit in part";
  current["comparison"]["verdict"]["decision"] = "use double";
  current["gate"]["status"] = "fail";
  const Comparison c = compare_reports(report(), current, {});
  std::map<std::string, Change> by_subject;
  for (const auto& v : c.verdicts) by_subject[v.kind + " " + v.subject] = v.change;
  EXPECT_EQ(by_subject["claim storage.float_rounding"], Change::regressed);
  EXPECT_EQ(by_subject["claim volume.flat_exact"], Change::improved);
  EXPECT_EQ(by_subject["gate grid.sample float"], Change::regressed);
  EXPECT_EQ(by_subject["measured class grid.sample double"], Change::regressed);
  EXPECT_EQ(by_subject["float or double open item"], Change::changed);
  EXPECT_EQ(by_subject["report gate report"], Change::regressed);
  EXPECT_EQ(c.verdicts.size(), 6u);
}

TEST(CompareReports, theSmallestSafeStorageRegressesWhenItNeedsMoreMemory) {
  json base = report(), current = report();
  base["comparison"]["storages"]["verdict"]["decision"] = "q16";
  current["comparison"]["storages"]["verdict"]["decision"] = "float";
  const Comparison c = compare_reports(base, current, {});
  ASSERT_EQ(c.verdicts.size(), 1u);
  EXPECT_EQ(c.verdicts[0].kind, "smallest safe storage");
  EXPECT_EQ(c.verdicts[0].change, Change::regressed);
  EXPECT_EQ(compare_reports(current, base, {}).verdicts[0].change, Change::improved);
  // Only one report with the section: it appeared, and that is a change, not a ranking.
  json without = report();
  const Comparison appeared = compare_reports(without, current, {});
  ASSERT_EQ(appeared.verdicts.size(), 1u);
  EXPECT_EQ(appeared.verdicts[0].change, Change::changed);
}

TEST(CompareReports, unlikeSettingsAreRefusedNamingTheDifference) {
  struct Case {
    const char* key;
    json value;
    const char* expected;
  };
  const Case cases[] = {{"seed", 2, "seed 1 vs 2"},
                        {"h", 0.03125, "h 0.015625 vs 0.03125"},
                        {"band", 2, "band 3 vs 2"},
                        {"inputs_per_generator_and_part", 50, "inputs_per_generator_and_part 1000 vs 50"},
                        {"parts", {"torus"}, "parts [\"sphere\"] vs [\"torus\"]"},
                        {"storage", {"float"}, "storage [\"float\",\"double\"] vs [\"float\"]"}};
  for (const Case& k : cases) {
    json current = report();
    current["settings"][k.key] = k.value;
    try {
      (void)compare_reports(report(), current, {});
      ADD_FAILURE() << k.key << ": unlike settings were compared";
    } catch (const distgrid::Error& e) {
      EXPECT_EQ(e.code(), distgrid::ErrorCode::badarg) << k.key;
      EXPECT_NE(std::string(e.what()).find(k.expected), std::string::npos) << e.what();
    }
  }
  json shard = report();
  shard["shard"] = {{"index", 0}, {"count", 3}};
  EXPECT_THROW((void)compare_reports(report(), shard, {}), distgrid::Error);
  json other_schema = report();
  other_schema["schema"] = "distgrid-audit-report/2";
  EXPECT_THROW((void)compare_reports(report(), other_schema, {}), distgrid::Error);
  EXPECT_THROW((void)compare_reports(report(), json::array(), {}), distgrid::Error);
}

TEST(CompareReports, allowingDifferentSettingsMarksEveryRowAsUnlike) {
  json current = report();
  current["settings"]["seed"] = 2;
  current["calculations"][0]["error"]["h"]["max"] = 4e-7;
  CompareOptions options;
  options.allow_different_settings = true;
  const Comparison c = compare_reports(report(), current, options);
  ASSERT_EQ(c.unlike.size(), 1u);
  for (const MetricRow& r : c.rows) EXPECT_TRUE(r.unlike) << r.metric;
  const std::string text = distgrid::reports::comparison_text(c, {});
  EXPECT_NE(text.find("unlike runs: the settings differ: seed 1 vs 2"), std::string::npos) << text;
  EXPECT_NE(text.find("error/h/max"), std::string::npos);
  EXPECT_NE(text.find("[unlike runs]"), std::string::npos);
  EXPECT_NE(distgrid::reports::comparison_markdown(c, current, {}).find("**Unlike runs:**"), std::string::npos);
  EXPECT_NE(distgrid::reports::comparison_junit(c).find("unlike runs: seed 1 vs 2"), std::string::npos);
}

TEST(CompareReports, markdownListsRegressionsLargestFirstThenImprovementsAndTheWorstInputsWithoutLinks) {
  json current = report();
  current["calculations"][0]["error"]["h"]["max"] = 2e-7;             // +1 bit
  current["calculations"][1]["errors"]["storage"]["h"]["max"] = 3.2e-7;  // +3 bits
  current["calculations"][1]["error"]["h"]["p99"] = 1.25e-8;          // -2 bits
  const Comparison c = compare_reports(report(), current, {});
  const std::string md = distgrid::reports::comparison_markdown(c, current, {"main.json", "pr.json"});
  EXPECT_EQ(md.rfind("### distgrid-audit compare: **regressed**", 0), 0u) << md;
  const auto three = md.find("+3.00 bits"), one = md.find("+1.00 bits"), minus = md.find("-2.00 bits");
  ASSERT_NE(three, std::string::npos) << md;
  ASSERT_NE(one, std::string::npos);
  ASSERT_NE(minus, std::string::npos);
  EXPECT_LT(three, one);
  EXPECT_LT(one, minus);
  EXPECT_NE(md.find("replay: `distgrid-audit replay pr.json --calc grid.sample --storage double --rank 1 --error storage`"),
            std::string::npos)
      << md;
  EXPECT_NE(md.find("replay: `distgrid-audit replay pr.json --calc grid.sample --storage float --rank 1`"), std::string::npos);
  EXPECT_NE(md.find("part sphere, generator far #7, x = 0x1p-3: result 0x1.8p-2, reference 0x1.7p-2"), std::string::npos);
  EXPECT_EQ(md.find("http"), std::string::npos);
  EXPECT_EQ(md.find("]("), std::string::npos);
  const std::string same = distgrid::reports::comparison_markdown(compare_reports(report(), report(), {}), report(), {});
  EXPECT_EQ(same.rfind("### distgrid-audit compare: no regression", 0), 0u) << same;
  EXPECT_EQ(same.find("| change |"), std::string::npos);
}

TEST(CompareReports, junitHasOneTestcasePerCalculationAndStorageFailingOnRegressions) {
  json current = report();
  current["calculations"][0]["decisions"][0]["misclassified"] = 1;
  current["claims"][0]["verdict"] = "refuted";
  const std::string xml = distgrid::reports::comparison_junit(compare_reports(report(), current, {}));
  EXPECT_NE(xml.find("<testsuite name=\"distgrid-audit compare\" tests=\"4\" failures=\"2\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"grid.sample float\">\n    <failure message=\"decisions/region/misclassified +1 (0 -&gt; 1)\""),
            std::string::npos)
      << xml;
  EXPECT_NE(xml.find("name=\"grid.sample double\"/>"), std::string::npos);
  EXPECT_NE(xml.find("name=\"grid.key float\"/>"), std::string::npos);
  EXPECT_NE(xml.find("name=\"claim storage.float_rounding\">\n    <failure"), std::string::npos);
}

TEST(CompareReports, membersOfTheWrongTypeReadAsAbsentAndNeverThrow) {
  json odd = report();
  odd["calculations"][0]["error"] = "text";
  odd["calculations"][0]["errors"]["storage"]["worst"] = 5;
  odd["calculations"][1]["decisions"] = 3;
  odd["calculations"][1]["error"]["worst"][0]["generator"] = 4;
  odd["calculations"][1]["error"]["h"]["max"] = 1.0;
  odd["calculations"][2]["id"] = 7;
  odd["claims"][0]["verdict"] = json::array();
  odd["gate"] = "pass";
  Comparison c;
  ASSERT_NO_THROW(c = compare_reports(report(), odd, {}));
  EXPECT_TRUE(c.regressed());
  EXPECT_NO_THROW((void)distgrid::reports::comparison_markdown(c, odd, {}));
  EXPECT_NO_THROW((void)distgrid::reports::comparison_junit(c));
  EXPECT_NO_THROW((void)distgrid::reports::comparison_text(c, {}));
  EXPECT_NO_THROW((void)compare_reports(odd, report(), {}));
  EXPECT_NO_THROW((void)distgrid::reports::gate_summary(odd));
}

TEST(GateSummary, countsFailedChecksAndEntriesWithoutBudget) {
  json r = report();
  EXPECT_EQ(distgrid::reports::gate_summary(r).shortfalls, 0u);
  EXPECT_EQ(distgrid::reports::gate_summary(r).status, "pass");
  r["gate"]["status"] = "fail";
  r["calculations"][0]["gate"]["checks"].push_back({{"metric", "/mismatches"}, {"status", "fail"}});
  r["calculations"][0]["gate"]["checks"][0]["status"] = "fail";
  r["calculations"][1]["gate"] = {{"status", "no budget"}, {"checks", json::array()}};
  const distgrid::reports::GateSummary g = distgrid::reports::gate_summary(r);
  EXPECT_EQ(g.status, "fail");
  EXPECT_EQ(g.shortfalls, 3u);
  EXPECT_EQ(g.entries, 3u);
  EXPECT_EQ(distgrid::reports::gate_summary(json::object()).status, "unknown");
}

TEST(ReplayCommand, namesTheEntryAndTheListAndQuotesWordsAShellWouldSplit) {
  using distgrid::reports::replay_command;
  EXPECT_EQ(replay_command({"build/report.json", "grid.sample", "float"}),
            "distgrid-audit replay build/report.json --calc grid.sample --storage float --rank 1");
  EXPECT_EQ(replay_command({"r.json", "bake.plan", "double", 3, "brick_range"}),
            "distgrid-audit replay r.json --calc bake.plan --storage double --rank 3 --error brick_range");
  EXPECT_EQ(replay_command({"my report's.json", "grid.sample", "float", 1, "storage"}),
            "distgrid-audit replay 'my report'\\''s.json' --calc grid.sample --storage float --rank 1 --error storage");
  EXPECT_EQ(distgrid::reports::shell_word(""), "''");
  EXPECT_EQ(distgrid::reports::shell_word("$HOME/x"), "'$HOME/x'");
}

}  // namespace
