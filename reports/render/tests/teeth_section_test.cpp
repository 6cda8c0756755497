#include "teeth_section.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "distgrid/error.hpp"

namespace distgrid::render::detail {
namespace {

using nlohmann::json;

/// Two mutants of grid.sample at two voxel sizes: one caught at both, one caught
/// at 1/64 where the baseline at 0.0123 fails; three budgets: tripped, untripped,
/// informational.
json sample_mutants() {
  const json tripped = {{"id", "grid.sample"}, {"storage", "float"}, {"metric", "/error/h/max"}};
  const json caught = {{"baseline", "pass"}, {"caught", true}, {"budgets", json::array({tripped})},
                       {"claims", json::array()}, {"run_failed", nullptr}};
  const json baseline_fails = {{"baseline", "fails"}, {"caught", nullptr}, {"budgets", json::array()},
                               {"claims", json::array()}, {"run_failed", nullptr}};
  return {{"schema", "distgrid-mutants/1"},
          {"h", {"0x1p-6", "0.0123"}},
          {"mutants",
           {{{"mutant", "grid.sample--float-coordinates"}, {"id", "grid.sample"}, {"applies", true}, {"builds", true},
             {"at", {{"0x1p-6", caught}, {"0.0123", caught}}},
             {"properties", {{"caught", true}, {"tests", {"property.GridSample.matchesTheReference"}}}}},
            {{"mutant", "grid.sample--wrong-floor"}, {"id", "grid.sample"}, {"applies", true}, {"builds", true},
             {"at", {{"0x1p-6", caught}, {"0.0123", baseline_fails}}},
             {"properties", {{"caught", nullptr}, {"tests", json::array()}}}}}},
          {"teeth",
           {{{"id", "grid.sample"}, {"storage", "float"}, {"metric", "/error/h/max"},
             {"tripped_by", {{"0x1p-6", {"grid.sample--float-coordinates", "grid.sample--wrong-floor"}},
                             {"0.0123", {"grid.sample--float-coordinates"}}}},
             {"status", "has teeth"}},
            {{"id", "grid.sample"}, {"storage", "double"}, {"metric", "/errors/method/h/max"},
             {"tripped_by", {{"0x1p-6", json::array()}, {"0.0123", json::array()}}},
             {"status", "not shown to have teeth"}},
            {{"id", "mesh.normals"}, {"storage", "float"}, {"metric", "/error/ulps/max"},
             {"tripped_by", {{"0x1p-6", json::array()}, {"0.0123", json::array()}}},
             {"informational", "above 2^52 ulps, no value can exceed it"},
             {"status", "informational"}}}}};
}

TEST(TeethSection, ListsEveryBudgetWithTheMutantsThatTripItAndFlagsTheOnesNoneTrips) {
  const std::string html = teeth_section_html(sample_mutants(), "mutants.json");
  EXPECT_NE(html.find("<h2 id=\"teeth\">"), std::string::npos);
  EXPECT_NE(html.find("From <code>mutants.json</code>: 2 mutants; caught in 3 of 3 runs"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>grid.sample--float-coordinates, grid.sample--wrong-floor</td>"), std::string::npos);
  EXPECT_NE(html.find("<td><code>/errors/method/h/max</code></td><td>&mdash;</td><td>&mdash;</td><td><span "
                      "class=\"flag\">not shown to have teeth</span></td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>informational: above 2^52 ulps, no value can exceed it</td>"), std::string::npos);
  EXPECT_NE(html.find("1 has teeth, 1 informational, 1 not shown to have teeth"), std::string::npos) << html;
  EXPECT_NE(html.find("the quick audit of that calculation at every storage at h = 0x1p-6"), std::string::npos)
      << html;
}

TEST(TeethSection, SaysWhichStoragesARunAtSomeStoragesAudited) {
  json m = sample_mutants();
  m["storage"] = {"float", "double"};
  const std::string html = teeth_section_html(m, "mutants.json");
  EXPECT_NE(html.find("at the storages float, double (and those its patch declares) at h = 0x1p-6"), std::string::npos)
      << html;
}

TEST(TeethSection, ShowsWhyNoMutantCanReachABudgetAndTheMutantsOfItsInputs) {
  json m = sample_mutants();
  m["teeth"].push_back({{"id", "grid.volume"}, {"storage", "float"}, {"metric", "/errors/method/relative/max"},
                        {"tripped_by", {{"0x1p-6", json::array()}, {"0.0123", json::array()}}},
                        {"no_mutant", "the discretisation alone"},
                        {"status", "no mutant can reach it"}});
  m["teeth"][0]["teeth_from"] = {"bake.node_values--dropped-clamp"};
  const std::string html = teeth_section_html(m, "mutants.json");
  EXPECT_NE(html.find("<td>no mutant can reach it: the discretisation alone</td>"), std::string::npos) << html;
  EXPECT_NE(html.find("<td>has teeth (also audited with the mutants of its inputs: bake.node_values--dropped-clamp)"
                      "</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("1 has teeth, 1 informational, 1 no mutant can reach it, 1 not shown to have teeth"),
            std::string::npos)
      << html;
}

TEST(TeethSection, SaysWhereTheBaselineFailsInsteadOfCountingACatch) {
  const std::string html = teeth_section_html(sample_mutants(), "mutants.json");
  EXPECT_NE(html.find("baseline fails at this h"), std::string::npos);
  EXPECT_NE(html.find("caught</span> <code>float /error/h/max</code>"), std::string::npos);
  EXPECT_NE(html.find("caught (property.GridSample.matchesTheReference)"), std::string::npos);
  EXPECT_NE(html.find("<td>none cover it</td>"), std::string::npos);
}

TEST(TeethSection, CountsAnEscapeAndShowsAMutantThatDoesNotApply) {
  json m = sample_mutants();
  m["mutants"][1]["at"]["0x1p-6"]["caught"] = false;
  m["mutants"].push_back({{"mutant", "grid.key--stale"}, {"id", "grid.key"}, {"applies", false}, {"builds", true}});
  const std::string html = teeth_section_html(m, "mutants.json");
  EXPECT_NE(html.find("caught in 2 of 3 runs where the unmodified code passes its gate, <span class=\"flag\">escaped "
                      "in 1</span>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<span class=\"badge fail\">escaped</span>"), std::string::npos);
  EXPECT_NE(html.find("<span class=\"badge fail\">does not apply</span>"), std::string::npos);
}

TEST(ParseMutants, RefusesAFileOfAnotherSchemaOrShape) {
  EXPECT_NO_THROW(parse_mutants(sample_mutants().dump(), "m.json"));
  EXPECT_THROW(parse_mutants(R"({"schema": "distgrid-audit-report/1"})", "m.json"), Error);
  EXPECT_THROW(parse_mutants("[1, 2]", "m.json"), Error);
  json m = sample_mutants();
  m["teeth"] = json::object();
  try {
    parse_mutants(m.dump(), "m.json");
    FAIL() << "a teeth object was accepted";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("m.json: /teeth is not an array"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace distgrid::render::detail
