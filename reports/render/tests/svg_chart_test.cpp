#include "svg_chart.hpp"

#include <gtest/gtest.h>

#include <regex>
#include <string>

namespace distgrid::render::detail {
namespace {

/// The x coordinate where each bar ends (x + width), in drawing order.
std::vector<double> bar_ends(const std::string& svg) {
  std::vector<double> ends;
  const std::regex rect("<rect class=\"bar [a-z0-9]+\" x=\"([0-9.]+)\" y=\"[0-9.]+\" width=\"([0-9.]+)\"");
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), rect); it != std::sregex_iterator(); ++it)
    ends.push_back(std::stod((*it)[1]) + std::stod((*it)[2]));
  return ends;
}

TEST(LogBarChart, BarLengthsGrowWithTheLogarithmOfTheValue) {
  const std::string svg = log_bar_chart("t", {{"a", 2e-9, "max"}, {"b", 2e-6, "max"}, {"c", 2e-3, "max"}}, "h");
  const std::vector<double> ends = bar_ends(svg);
  ASSERT_EQ(ends.size(), 3u);
  // Equal steps of three decades give equal steps in length.
  EXPECT_NEAR(ends[1] - ends[0], ends[2] - ends[1], 0.21);  // coordinates have one decimal
  EXPECT_GT(ends[1], ends[0]);
  EXPECT_NE(svg.find(">1e-9<"), std::string::npos);
  EXPECT_NE(svg.find(">1e-6<"), std::string::npos);
}

TEST(LogBarChart, ZeroAndNullAreLabelledWithoutABar) {
  const std::string svg = log_bar_chart("t", {{"zero", 0.0, "max"}, {"missing", std::nullopt, "max"}}, "ulps");
  EXPECT_TRUE(bar_ends(svg).empty());
  EXPECT_NE(svg.find(">0</text>"), std::string::npos);
  EXPECT_NE(svg.find(">null</text>"), std::string::npos);
}

TEST(LogBarChart, EscapesLabels) {
  const std::string svg = log_bar_chart("<t>", {{"a<b", 1.0, "x\"y"}}, "h");
  EXPECT_EQ(svg.find("<t>"), std::string::npos);
  EXPECT_EQ(svg.find("a<b"), std::string::npos);
  EXPECT_EQ(svg.find("x\"y"), std::string::npos);
}

TEST(LogLogChart, AFittedPowerLawIsAStraightLineThroughItsPoints) {
  Series s{"sphere", {{1.0 / 16, 4e-3}, {1.0 / 32, 1e-3}, {1.0 / 64, 2.5e-4}}, 2.0, 4e-3 * 256};
  const std::string svg = log_log_chart("t", "h", "error", {s});
  const std::regex circle("<circle class=\"point s0\" cx=\"([0-9.]+)\" cy=\"([0-9.]+)\"");
  const std::regex fit("<line class=\"fit s0\" x1=\"([0-9.]+)\" y1=\"([0-9.]+)\" x2=\"([0-9.]+)\" y2=\"([0-9.]+)\"");
  std::smatch m;
  ASSERT_TRUE(std::regex_search(svg, m, fit));
  const double x1 = std::stod(m[1]), y1 = std::stod(m[2]), x2 = std::stod(m[3]), y2 = std::stod(m[4]);
  int points = 0;
  for (auto it = std::sregex_iterator(svg.begin(), svg.end(), circle); it != std::sregex_iterator(); ++it) {
    const double x = std::stod((*it)[1]), y = std::stod((*it)[2]);
    if (x > x2 + 1 || x < x1 - 1) continue;  // the legend's marker
    EXPECT_NEAR(y, y1 + (y2 - y1) * (x - x1) / (x2 - x1), 0.2);
    ++points;
  }
  EXPECT_EQ(points, 3);
  EXPECT_NE(svg.find("fitted order 2"), std::string::npos);
}

}  // namespace
}  // namespace distgrid::render::detail
