#include "coverage_section.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "distgrid/error.hpp"

namespace distgrid::render::detail {
namespace {

using nlohmann::json;

/// grid.sample citing three functions: one meeting the targets, one below them and
/// one below them with the registry's reason; and mesh.weld whose audit run failed.
json sample_coverage() {
  const json met = {{"file", "core/src/grid.cpp"},
                    {"function", "Grid<S>::sample"},
                    {"first_line", 10},
                    {"last_line", 40},
                    {"lines", {{"executed", 20}, {"total", 20}, {"percent", 100.0}}},
                    {"branches", {{"taken", 19}, {"total", 20}, {"percent", 95.0}}},
                    {"unexecuted_lines", json::array()},
                    {"untaken_branch_lines", {31}},
                    {"validation_lines", {12, 13}},
                    {"meets_targets", true}};
  const json below = {{"file", "core/src/grid.cpp"},
                      {"function", "GridAccessor<S>::sample"},
                      {"first_line", 50},
                      {"last_line", 90},
                      {"lines", {{"executed", 189}, {"total", 199}, {"percent", 94.97}}},
                      {"branches", {{"taken", 9}, {"total", 10}, {"percent", 90.0}}},
                      {"unexecuted_lines", {61, 62}},
                      {"untaken_branch_lines", {60}},
                      {"meets_targets", false}};
  const json explained = {{"file", "core/src/grid.cpp"},
                          {"function", "GridAccessor<S>::gradient_by_samples"},
                          {"first_line", 95},
                          {"last_line", 99},
                          {"lines", {{"executed", 0}, {"total", 4}, {"percent", 0.0}}},
                          {"branches", {{"taken", 0}, {"total", 0}, {"percent", nullptr}}},
                          {"unexecuted_lines", {95, 96, 97, 98}},
                          {"untaken_branch_lines", json::array()},
                          {"meets_targets", false},
                          {"unreached_because", "only for points <far> & NaN"}};
  return {{"schema", "distgrid-coverage/1"},
          {"targets", {{"lines_percent", 95.0}, {"branches_percent", 90.0}}},
          {"settings", {{"h", {"0x1p-6", "0.0123"}}, {"storage", "all"}}},
          {"calculations",
           {{{"id", "grid.sample"}, {"source", {met, below, explained}}},
            {{"id", "mesh.weld"}, {"problem", "the quick audit of mesh.weld at h = 0.0123 failed (exit 1)"}}}}};
}

TEST(CoverageSection, ShowsEachCitedFunctionAndFlagsTheOnesBelowTheTargets) {
  const std::string html = coverage_section_html(sample_coverage(), "coverage.json");
  EXPECT_NE(html.find("<h2 id=\"coverage\">"), std::string::npos);
  EXPECT_NE(html.find("at h = 0x1p-6 and h = 0.0123"), std::string::npos) << html;
  EXPECT_NE(html.find("From <code>coverage.json</code>: 1 of 3 cited functions meet both; 1 miss them where the "
                      "registry says why no input can reach the rest; <span class=\"flag\">1 miss them without a "
                      "reason</span>"),
            std::string::npos)
      << html;
  // The registry's reason sits at the end of its function's row, escaped.
  EXPECT_NE(html.find("<td>95, 96, 97, 98</td><td></td><td></td><td>only for points &lt;far&gt; &amp; NaN</td></tr>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("<td>20 of 20 (100.0 %)</td><td>19 of 20 (95.0 %)</td><td></td><td>31</td><td>12, 13</td>"), std::string::npos)
      << html;
  // 94.97 % must not print as the 95 % target it misses.
  EXPECT_NE(html.find("<span class=\"flag\">189 of 199 (94.9 %)</span></td><td>9 of 10 (90.0 %)</td><td>61, 62</td>"),
            std::string::npos)
      << html;
  EXPECT_NE(html.find("not measured: the quick audit of mesh.weld at h = 0.0123 failed (exit 1)"), std::string::npos);
}

TEST(CoverageSection, RefusesAFileThatIsNotACoverageResult) {
  EXPECT_THROW(parse_coverage(R"({"schema": "distgrid-mutants/1"})", "c.json"), Error);
  EXPECT_THROW(parse_coverage(R"({"schema": "distgrid-coverage/1", "targets": {}, "calculations": []})", "c.json"),
               Error);
  EXPECT_THROW(parse_coverage(R"({"schema": "distgrid-coverage/1", "targets": {"lines_percent": 95,
               "branches_percent": 90}, "calculations": [1]})", "c.json"), Error);
  try {
    parse_coverage("{", "mine.json");
    FAIL() << "a truncated file was accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badfile);
    EXPECT_NE(std::string(e.what()).find("mine.json"), std::string::npos) << e.what();
  }
  const json ok = parse_coverage(sample_coverage().dump(), "c.json");
  EXPECT_EQ(ok["calculations"].size(), 2u);
  EXPECT_EQ(ok["calculations"][0]["source"].size(), 3u);
}

}  // namespace
}  // namespace distgrid::render::detail
