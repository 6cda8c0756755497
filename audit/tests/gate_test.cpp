#include "distgrid/audit/gate.hpp"

#include <gtest/gtest.h>

#include "distgrid/audit/budget_model.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {
namespace {

using nlohmann::json;

json entry(const char* id, const char* storage, json max_h) {
  return {{"id", id}, {"storage", storage}, {"error", {{"h", {{"max", max_h}}}}}};
}

const std::vector<Budget> kBudgets{
    {"grid.sample", "float", "/error/h/max", 1e-7, "policy"},
    {"grid.sample", "double", "/error/h/max", 1e-15, "measured"},
};

TEST(Gate, PassesAtTheBudgetAndFailsAboveIt) {
  EXPECT_TRUE(check_entry(entry("grid.sample", "float", 1e-7), kBudgets).at(0).pass);
  EXPECT_FALSE(check_entry(entry("grid.sample", "float", 1.0000001e-7), kBudgets).at(0).pass);
  EXPECT_EQ(gate_json(check_entry(entry("grid.sample", "double", 2e-15), kBudgets))["status"], "fail");
}

TEST(Gate, FailsWhenTheReportHasNoNumberAtTheMetric) {
  const auto checks = check_entry(entry("grid.sample", "float", nullptr), kBudgets);
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_FALSE(checks[0].pass);
  EXPECT_FALSE(checks[0].measured);
}

TEST(Gate, FailsAnEntryWithoutABudgetAndNamesEveryFailure) {
  const json report = {{"schema", kReportSchema},
                       {"calculations",
                        {entry("grid.sample", "float", 5e-8), entry("grid.sample", "double", 1e-14),
                         entry("grid.volume", "float", 0)}}};
  const std::vector<GateFailure> failures = check_report(report, kBudgets);
  ASSERT_EQ(failures.size(), 2u);
  EXPECT_EQ(failures[0].id, "grid.sample");
  EXPECT_EQ(failures[0].storage, "double");
  EXPECT_NE(failures[0].message.find("/error/h/max measured 1e-14 > budget 1e-15"), std::string::npos)
      << failures[0].message;
  EXPECT_EQ(failures[1].id, "grid.volume");
  EXPECT_EQ(failures[1].message, "no budget");
}

TEST(Gate, NamesTheWorstInputOfTheStatisticsAMetricPointsInto) {
  json e = entry("grid.sample", "float", 1e-6);
  e["error"]["worst"] = {{{"seed", 7}, {"generator", "band"}, {"index", 12}, {"part", "sphere"},
                          {"input", {{"x", "0x1p-3"}}}, {"result", "0x1.8p-4"}, {"reference", "0x1.7p-4"}}};
  EXPECT_EQ(worst_input_text(e, "/error/h/max"),
            "part sphere, generator band #12, input x=0x1p-3, result 0x1.8p-4 reference 0x1.7p-4");
  EXPECT_EQ(worst_input_text(e, "/mismatches"), worst_input_text(e, "/error/h/max"));
  EXPECT_EQ(worst_input_text(entry("grid.sample", "float", 1e-6), "/error/h/max"), "");
}

TEST(Gate, NamesTheKeptListOfAMetricAsReplayAddressesIt) {
  json e = entry("grid.sample", "float", 1e-6);
  const json kept = {{"seed", 7}, {"generator", "band"}, {"index", 12}, {"input", {{"x", "0x1p-3"}}}};
  e["error"]["worst"] = json::array({kept});  // not {kept}: clang 14 reads that as a copy of kept
  e["errors"] = {{"storage", {{"ulps", {{"max", 3}}}, {"worst", {kept}}}}, {"method", nullptr}};
  json closest = kept;
  closest["index"] = 40;
  closest["core"] = "inside";
  closest["exact"] = "outside";
  e["decisions"] = {{{"name", "sign"}, {"misclassified", 0}, {"closest", json::array()}},
                    {{"name", "crossing"}, {"misclassified", 1}, {"closest", {closest}}}};
  e["details"] = {{"mismatch_examples", {closest}}, {"by_generator", {{{"generator", "band"}, {"max_ulps", 2}}}}};
  EXPECT_EQ(kept_input_behind(e, "/error/h/max").replay_error, "error");
  EXPECT_EQ(kept_input_behind(e, "/errors/storage/ulps/max").replay_error, "storage");
  // A decision is named, not numbered: its closest input, replayed by its name.
  const KeptInputBehind decision = kept_input_behind(e, "/decisions/crossing/misclassified");
  EXPECT_EQ(decision.replay_error, "crossing");
  EXPECT_NE(decision.text.find("#40"), std::string::npos) << decision.text;
  EXPECT_NE(decision.text.find("core inside exact outside"), std::string::npos) << decision.text;
  // A decision without kept inputs, a details row and a null error: the error's worst input.
  EXPECT_EQ(kept_input_behind(e, "/decisions/sign/misclassified").replay_error, "error");
  EXPECT_EQ(kept_input_behind(e, "/details/by_generator/band/max_ulps").replay_error, "error");
  EXPECT_EQ(kept_input_behind(e, "/errors/method/ulps/max").replay_error, "error");
  // Mismatch examples are shown but replay cannot address them.
  const KeptInputBehind mismatch = kept_input_behind(e, "/mismatches");
  EXPECT_NE(mismatch.text.find("#40"), std::string::npos) << mismatch.text;
  EXPECT_EQ(mismatch.replay_error, "");
}

TEST(Gate, WritesOneJUnitTestcasePerEntryFailingTheOnesThatMissed) {
  const json report = {{"schema", kReportSchema},
                       {"calculations", {entry("grid.sample", "float", 5e-8), entry("grid.sample", "double", 1e-14)}}};
  const std::string xml = junit_xml(report, check_report(report, kBudgets));
  EXPECT_NE(xml.find("tests=\"2\" failures=\"1\""), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"grid.sample float\"/>"), std::string::npos) << xml;
  EXPECT_NE(xml.find("name=\"grid.sample double\">\n    <failure message=\"/error/h/max measured 1e-14 &gt; budget"),
            std::string::npos)
      << xml;
}

TEST(Gate, RefusesADocumentThatIsNotAReport) {
  EXPECT_THROW(check_report(json{{"schema", "other"}}, kBudgets), Error);
}

// --- budgets addressed by name, error models, informational, not applicable ---

json named_entry() {
  json e = entry("contour.surface_nets", "float", 1e-8);
  e["decisions"] = {{{"name", "cell_crossing"}, {"misclassified", 0}}, {{"name", "other"}, {"misclassified", 3}}};
  e["details"] = {{"by_generator", {{{"generator", "parts"}, {"max_ulps", {{"face", 1.5}}}},
                                    {{"generator", "needle"}, {"max_ulps", {{"face", 9e13}}}}}}};
  return e;
}

Budget budget(const char* metric, double max) { return {"contour.surface_nets", "float", metric, max, "test"}; }

TEST(GateByName, ReadsADecisionAndAGeneratorByName) {
  const auto checks = check_entry(named_entry(), {budget("/decisions/other/misclassified", 0),
                                                  budget("/details/by_generator/needle/max_ulps/face", 1e14),
                                                  budget("/details/by_generator/parts/max_ulps/face", 1)});
  ASSERT_EQ(checks.size(), 3u);
  EXPECT_EQ(checks[0].measured, 3);
  EXPECT_EQ(checks[0].status, CheckStatus::fail);
  EXPECT_EQ(checks[1].measured, 9e13);
  EXPECT_EQ(checks[1].status, CheckStatus::pass);
  EXPECT_EQ(checks[2].measured, 1.5);
  EXPECT_EQ(checks[2].status, CheckStatus::fail);
}

TEST(GateByName, FailsANameTheEntryDoesNotHaveListingTheNamesItHas) {
  const auto checks = check_entry(named_entry(), {budget("/decisions/edge_crossing/misclassified", 0)});
  ASSERT_EQ(checks.size(), 1u);
  EXPECT_EQ(checks[0].status, CheckStatus::fail);
  EXPECT_NE(checks[0].note.find("no element named 'edge_crossing' at /decisions (the entry has: cell_crossing, other)"),
            std::string::npos)
      << checks[0].note;
  const json report = {{"schema", kReportSchema}, {"calculations", {named_entry()}}};
  const auto failures = check_report(report, {budget("/decisions/edge_crossing/misclassified", 0)});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].message.find("no element named 'edge_crossing'"), std::string::npos) << failures[0].message;
}

TEST(GateModel, EvaluatesTheModelAtTheReportsSettings) {
  Budget b = budget("/error/h/max", 0);
  b.model = "u * band";
  const json at_band_3 = {{"h", 0.015625}, {"band", 3}};
  const json at_band_2 = {{"h", 0.015625}, {"band", 2}};
  json e = entry("contour.surface_nets", "float", 1.5e-7);
  EXPECT_EQ(check_entry(e, {b}, at_band_3).at(0).limit, 0x1p-24 * 3);
  EXPECT_EQ(check_entry(e, {b}, at_band_3).at(0).status, CheckStatus::pass);
  EXPECT_EQ(check_entry(e, {b}, at_band_2).at(0).status, CheckStatus::fail);
  e["storage"] = "double";
  b.storage = "double";
  EXPECT_EQ(check_entry(e, {b}, at_band_3).at(0).limit, 0x1p-53 * 3);
}

TEST(GateModel, NamesTheModelAndItsValueInAFailure) {
  Budget b = budget("/error/h/max", 0);
  b.model = "2 * h";
  const json report = {{"schema", kReportSchema},
                       {"settings", {{"h", 0.5}, {"band", 3}}},
                       {"calculations", {entry("contour.surface_nets", "float", 1.5)}}};
  const auto failures = check_report(report, {b});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].message.find("measured 1.5 > budget 1 = 2 * h"), std::string::npos) << failures[0].message;
}

TEST(GateModel, PowerOfTwoAndMeasuredDataComeFromTheReport) {
  const json settings = {{"h", 0.0123}, {"band", 3}, {"reach_voxels", 90.5}, {"largest_abs_x_over_h", 5e5}};
  const json e = entry("grid.volume", "double", 0);
  const ModelNames names = model_names(settings, e);
  EXPECT_EQ(names.at("pow2_h"), 0);
  EXPECT_EQ(names.at("reach"), 90.5);
  EXPECT_EQ(names.at("x_over_h"), 5e5);
  EXPECT_EQ(names.at("n"), 181.0 * 181.0 * 181.0);
  EXPECT_EQ(names.at("u"), 0x1p-53);
  EXPECT_EQ(model_names({{"h", 0.25}}, e).at("pow2_h"), 1);
}

TEST(GateHoldsFor, IsNotApplicableOutsideItsSettingsAndStrictFailsOnIt) {
  Budget b = budget("/error/h/max", 1e-7);
  b.holds_for = {{"h", 0.015625}, {"band", json::array({2, 3})}};
  json report = {{"schema", kReportSchema},
                 {"settings", {{"h", 0.015625}, {"band", 3}}},
                 {"calculations", {entry("contour.surface_nets", "float", 1.5)}}};
  EXPECT_EQ(check_report(report, {b}).size(), 1u);  // applicable: 1.5 > 1e-7 fails
  report["settings"]["band"] = 5;
  const auto checks = check_entry(report["calculations"][0], {b}, report["settings"]);
  EXPECT_EQ(checks.at(0).status, CheckStatus::not_applicable);
  EXPECT_FALSE(checks.at(0).limit);
  EXPECT_NE(checks.at(0).note.find("band in [2, 3]"), std::string::npos) << checks.at(0).note;
  EXPECT_NE(checks.at(0).note.find("this run has band = 5, h = 0.015625"), std::string::npos) << checks.at(0).note;
  EXPECT_TRUE(check_report(report, {b}).empty());
  EXPECT_EQ(check_report(report, {b}, true).size(), 1u);
  EXPECT_EQ(gate_notes(report, {b}).size(), 1u);
  EXPECT_EQ(gate_json(checks)["checks"][0]["status"], "not applicable");
  EXPECT_EQ(gate_json(checks)["not_applicable"], 1);
}

TEST(GateInformational, IsCheckedAndShownAndFailsOnlyAboveItsBound) {
  Budget b = budget("/error/h/max", 2);
  b.informational = "a difference of two values in [-1, 1]";
  const json report = {{"schema", kReportSchema}, {"calculations", {entry("contour.surface_nets", "float", 1.5)}}};
  EXPECT_TRUE(check_report(report, {b}, true).empty());
  const auto notes = gate_notes(report, {b});
  ASSERT_EQ(notes.size(), 1u);
  EXPECT_NE(notes[0].message.find("informational, not a gate (a difference of two values in [-1, 1]): measured 1.5, budget 2"),
            std::string::npos)
      << notes[0].message;
  EXPECT_EQ(gate_json(check_entry(report["calculations"][0], {b}))["checks"][0]["status"], "informational");

  // A number above it shows the reason wrong: the gate fails and says so.
  const json above = {{"schema", kReportSchema}, {"calculations", {entry("contour.surface_nets", "float", 3)}}};
  const auto failures = check_report(above, {b});
  ASSERT_EQ(failures.size(), 1u);
  EXPECT_NE(failures[0].message.find("measured 3 > budget 2; above a budget marked informational: its reason (a "
                                     "difference of two values in [-1, 1]) does not hold"),
            std::string::npos)
      << failures[0].message;
  EXPECT_EQ(gate_json(check_entry(above["calculations"][0], {b}))["checks"][0]["status"], "fail");
}

std::string write_gates(const std::string& name, const json& budgets) {
  const std::string path = ::testing::TempDir() + name;
  write_json_file({{"schema", "distgrid-audit-gates/1"}, {"budgets", budgets}}, path);
  return path;
}

std::string load_error(const std::string& name, const json& one_budget) {
  try {
    (void)load_budgets(write_gates(name, json::array({one_budget})));
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badfile);
    return e.what();
  }
  return "";
}

TEST(GateLoad, ReadsModelsHoldsForAndInformational) {
  const auto budgets = load_budgets(write_gates(
      "gate_load_ok.json",
      {{{"id", "a"}, {"storage", "float"}, {"metric", "/decisions/x/misclassified"}, {"max", 0}, {"why", "w"}},
       {{"id", "a"}, {"storage", "float"}, {"metric", "/error/h/max"}, {"max", "u * band"}, {"why", "w"}},
       {{"id", "a"}, {"storage", "float"}, {"metric", "/error/h/max"}, {"max", 1}, {"holds_for", {{"h", 0.5}}},
        {"informational", "cannot exceed 1"}, {"why", "w"}}}));
  ASSERT_EQ(budgets.size(), 3u);
  EXPECT_EQ(budgets[1].model, "u * band");
  EXPECT_EQ(budgets[2].holds_for, json({{"h", 0.5}}));
  EXPECT_EQ(budgets[2].informational, "cannot exceed 1");
}

TEST(GateLoad, RefusesAMetricThatNumbersAnArrayElement) {
  const std::string what = load_error("gate_load_index.json", {{"id", "a"}, {"storage", "float"},
                                                               {"metric", "/decisions/0/misclassified"}, {"max", 0}, {"why", "w"}});
  EXPECT_NE(what.find("numbers an array element (0); name it instead"), std::string::npos) << what;
}

TEST(GateLoad, RefusesAModelWithAnUnknownNameAndABadHoldsFor) {
  std::string what = load_error("gate_load_model.json", {{"id", "a"}, {"storage", "float"}, {"metric", "/error/h/max"},
                                                         {"max", "u * voxel"}, {"why", "w"}});
  EXPECT_NE(what.find("/budgets/0: budget model \"u * voxel\": unknown name 'voxel'"), std::string::npos) << what;
  what = load_error("gate_load_holds.json", {{"id", "a"}, {"storage", "float"}, {"metric", "/error/h/max"}, {"max", 1},
                                             {"holds_for", {{"voxel", 1}}}, {"why", "w"}});
  EXPECT_NE(what.find("unknown setting 'voxel'"), std::string::npos) << what;
  what = load_error("gate_load_info.json", {{"id", "a"}, {"storage", "float"}, {"metric", "/error/h/max"}, {"max", 1},
                                            {"informational", ""}, {"why", "w"}});
  EXPECT_NE(what.find("\"informational\" must say why"), std::string::npos) << what;
}

TEST(GateLoad, TheCheckedInBudgetsNameEveryElementAndEveryModelEvaluates) {
  const std::vector<Budget> budgets = load_budgets(DISTGRID_AUDIT_GATES);
  std::size_t models = 0, informational = 0;
  const json settings = {{"h", 0.0123}, {"band", 5}, {"reach_voxels", 100}, {"largest_abs_x_over_h", 5e5}};
  for (const Budget& b : budgets) {
    if (!b.model.empty()) ++models;
    if (!b.informational.empty()) ++informational;
    if (!b.model.empty()) {
      const double v = evaluate_model(b.model, model_names(settings, {{"storage", b.storage}}));
      EXPECT_GE(v, 0) << b.id << " " << b.metric;
    }
  }
  EXPECT_GE(models, 40u);
  EXPECT_GE(informational, 1u);
}

}  // namespace
}  // namespace distgrid::audit
