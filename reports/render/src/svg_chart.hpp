#pragma once
// Inline SVG charts of the policy page, drawn from numbers only (no script):
// horizontal bars on a log axis, and log-log lines with fitted power laws.
// Output is deterministic text: coordinates with one decimal, labels with
// three significant digits.
#include <optional>
#include <string>
#include <vector>

namespace distgrid::render::detail {

struct Bar {
  std::string label;
  /// Absent for a null measurement; zero is drawn as a label without a bar (no log of 0).
  std::optional<double> value;
  /// CSS class of the bar (colour), e.g. "max", "p99", "float", "double".
  std::string kind;
};

/// Horizontal bars, one row each, on a log10 axis spanning whole decades
/// around the positive values. `unit` is printed after each value.
std::string log_bar_chart(const std::string& title, const std::vector<Bar>& bars, const std::string& unit);

struct Series {
  std::string name;
  std::vector<std::pair<double, double>> points;  ///< (x, y); non-positive values are left out
  /// y = coefficient * x^order, drawn dashed over the points' x range.
  std::optional<double> order, coefficient;
};

/// Lines and markers on log10 x and y axes with a legend.
std::string log_log_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                          const std::vector<Series>& series);

}  // namespace distgrid::render::detail
