#include "distgrid/audit/gate.hpp"

#include <gtest/gtest.h>

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

}  // namespace
}  // namespace distgrid::audit
