#pragma once
// Inline SVG charts of the policy page, drawn from numbers only (no script):
// horizontal bars on a log axis, log-log lines with fitted power laws, and a
// value against the reports of a history.
// Output is deterministic text: coordinates with one decimal, labels with
// three significant digits.
#include <cstddef>
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

/// One value of a history series at one report; nullopt for null (drawn on a
/// "null" row at the top), 0 on a "0" row at the bottom.
struct HistoryPoint {
  std::size_t report = 0;  ///< position on the x axis
  std::optional<double> value;
  bool unlike = false;     ///< from a run whose settings differ: hollow, left out of the line
  std::string note;        ///< the point's tooltip
};

struct HistorySeries {
  std::string name;
  std::string kind;  ///< CSS class: "s0".."s5" for colour, plus "p99" (dashed) or "budget" (dashed step line)
  std::vector<HistoryPoint> points;  ///< increasing report positions
};

/// A value against the reports in commit order (x: one column per report,
/// labelled by `x_labels`, lines of text each; y: log10), each series' like
/// points joined (unlike ones drawn hollow, outside the line), and a row of gate statuses ("pass", "fail", "" for none)
/// under the axis. The <svg> carries data-calculation="`calculation`".
std::string log_history_chart(const std::string& title, const std::string& calculation,
                              const std::vector<std::vector<std::string>>& x_labels,
                              const std::vector<std::string>& gate_statuses, const std::vector<HistorySeries>& series,
                              const std::string& unit);

}  // namespace distgrid::render::detail
