#include "distgrid/render/history_page.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <regex>
#include <string>

#include "svg_chart.hpp"

namespace distgrid::render {
namespace {

using nlohmann::json;

TEST(CommitSeconds, readsGitsIsoTimesWithTheirOffset) {
  EXPECT_EQ(commit_seconds("1970-01-01T00:00:00Z"), 0);
  EXPECT_EQ(commit_seconds("1970-01-01T01:00:00+01:00"), 0);
  EXPECT_EQ(commit_seconds("2000-03-01T00:00:00+00:00"), 951868800);  // after a leap day of a century year
  EXPECT_EQ(commit_seconds("2026-12-03T10:22:05-05:30"), 1796313125);
  for (const char* bad : {"unknown", "", "2026-12-03", "2026-12-03T10:22:05", "2026-13-01T00:00:00Z",
                          "2026-12-03T10:22:05+0100", "2026-12-03T10:22:05+01:00 "})
    EXPECT_FALSE(commit_seconds(bad).has_value()) << bad;
}

HistoryReport at(const std::string& name, const std::string& time) {
  return {name, {{"build", {{"git_revision", name}, {"commit_time", time}}}}};
}

TEST(CommitOrder, sortsByCommitTimeAndPutsReportsWithoutOneLastAsGiven) {
  const std::vector<HistoryReport> ordered =
      in_commit_order({at("c", "2026-12-03T12:00:00+00:00"), at("x", "unknown"), at("a", "2026-12-03T13:00:00+02:00"),
                       at("b", "2026-12-03T12:00:00Z"), at("y", "unknown")});
  std::vector<std::string> names;
  for (const HistoryReport& r : ordered) names.push_back(r.name);
  EXPECT_EQ(names, (std::vector<std::string>{"a", "c", "b", "x", "y"}));  // a is 11:00 UTC; c and b tie, as given
}

TEST(HistoryChart, joinsLikePointsAndLeavesUnlikeOnesHollowAndApart) {
  detail::HistorySeries max{"float max", "s0", {{0, 1e-7, false, "#1"}, {1, 2e-7, true, "#2"}, {2, 4e-7, false, "#3"}}};
  detail::HistorySeries budget{"float budget", "s0 budget", {{0, 1e-6, false, "b1"}, {1, 2e-6, false, "b2"}}};
  const std::string svg = detail::log_history_chart("t", "grid.sample", {{"#1"}, {"#2"}, {"#3"}}, {"pass", "fail", ""},
                                                    {max, budget}, "h");
  EXPECT_NE(svg.find("<svg class=\"chart history\" data-calculation=\"grid.sample\""), std::string::npos);
  const std::regex polyline("<polyline class=\"line ([a-z0-9 ]+)\" points=\"([^\"]*)\"");
  std::vector<std::pair<std::string, std::string>> lines;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), polyline); it != std::sregex_iterator(); ++it)
    lines.emplace_back((*it)[1], (*it)[2]);
  ASSERT_EQ(lines.size(), 2u) << svg;
  // The max line joins the two like points across the unlike one; the budget steps: 2 points and 2 corners.
  EXPECT_EQ(std::count(lines[0].second.begin(), lines[0].second.end(), ','), 2) << lines[0].second;
  EXPECT_EQ(lines[1].first, "s0 budget");
  EXPECT_EQ(std::count(lines[1].second.begin(), lines[1].second.end(), ','), 4) << lines[1].second;
  EXPECT_EQ(std::count(svg.begin(), svg.end(), '\n'), 0);
  EXPECT_NE(svg.find("class=\"point s0 unlike\""), std::string::npos);
  EXPECT_NE(svg.find("<rect class=\"gate fail\""), std::string::npos);
  EXPECT_NE(svg.find("<rect class=\"gate pass\""), std::string::npos);
  EXPECT_EQ(svg.find("<rect class=\"gate \""), std::string::npos);  // the third report has no status
}

TEST(HistoryChart, drawsZeroAndNullOnRowsOfTheirOwn) {
  detail::HistorySeries s{"double max", "s1", {{0, 0.0, false, "zero"}, {1, std::nullopt, false, "null"}, {2, 1e-3, false, "v"}}};
  const std::string svg = detail::log_history_chart("t", "x", {{"1"}, {"2"}, {"3"}}, {}, {s}, "ulps");
  EXPECT_NE(svg.find(">0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">null</text>"), std::string::npos);
  const std::string zeros = detail::log_history_chart("t", "x", {{"#1"}}, {}, {{"m", "s0", {{0, 0.0, false, ""}}}}, "h");
  EXPECT_EQ(zeros.find(">1</text>"), std::string::npos) << "a decade axis with nothing on it";
}

}  // namespace
}  // namespace distgrid::render
