#include "svg_chart.hpp"

#include <algorithm>
#include <cmath>

#include "html.hpp"

namespace distgrid::render::detail {

namespace {

/// Whole decades [lo, hi] (powers of ten) covering the positive values; at least one decade.
std::pair<int, int> decades(const std::vector<double>& values) {
  double lo = 0, hi = 0;
  bool any = false;
  for (const double v : values) {
    if (!(v > 0) || !std::isfinite(v)) continue;
    lo = any ? std::min(lo, v) : v;
    hi = any ? std::max(hi, v) : v;
    any = true;
  }
  if (!any) return {0, 1};
  const int first = static_cast<int>(std::floor(std::log10(lo)));
  int last = static_cast<int>(std::ceil(std::log10(hi)));
  if (last <= first) last = first + 1;
  return {first, last};
}

std::string decade_label(int exponent) {
  if (exponent == 0) return "1";
  if (exponent == 1) return "10";
  return "1e" + std::to_string(exponent);
}

/// Decade steps so that at most about eight ticks are labelled.
int tick_step(int first, int last) { return std::max(1, (last - first + 7) / 8); }

}  // namespace

std::string log_bar_chart(const std::string& title, const std::vector<Bar>& bars, const std::string& unit) {
  constexpr double kLabelWidth = 230, kPlotWidth = 330, kValueWidth = 110, kRow = 18, kTop = 22, kAxis = 26;
  std::vector<double> values;
  for (const Bar& b : bars)
    if (b.value) values.push_back(*b.value);
  // Plain variables, not a structured binding: clang 14 lambdas cannot capture bindings.
  const std::pair<int, int> range = decades(values);
  const int first = range.first, last = range.second;
  const double height = kTop + kRow * static_cast<double>(bars.size()) + kAxis;
  const double width = kLabelWidth + kPlotWidth + kValueWidth;
  const auto x_of = [&](double v) {
    const double t = (std::log10(v) - first) / (last - first);
    return kLabelWidth + kPlotWidth * std::clamp(t, 0.0, 1.0);
  };
  std::string svg = "<svg class=\"chart bars\" role=\"img\" viewBox=\"0 0 " + coordinate(width) + " " +
                    coordinate(height) + "\" width=\"" + coordinate(width) + "\" height=\"" + coordinate(height) +
                    "\"><title>" + escape(title) + "</title>";
  svg += "<text class=\"chart-title\" x=\"0\" y=\"14\">" + escape(title) + "</text>";
  const double axis_y = kTop + kRow * static_cast<double>(bars.size());
  for (int e = first; e <= last; e += tick_step(first, last)) {
    const double x = x_of(std::pow(10.0, e));
    svg += "<line class=\"grid\" x1=\"" + coordinate(x) + "\" y1=\"" + coordinate(kTop) + "\" x2=\"" +
           coordinate(x) + "\" y2=\"" + coordinate(axis_y) + "\"/>";
    svg += "<text class=\"tick\" x=\"" + coordinate(x) + "\" y=\"" + coordinate(axis_y + 14) +
           "\" text-anchor=\"middle\">" + decade_label(e) + "</text>";
  }
  svg += "<text class=\"tick\" x=\"" + coordinate(kLabelWidth + kPlotWidth) + "\" y=\"" +
         coordinate(axis_y + 25) + "\" text-anchor=\"end\">" + escape(unit) + ", log scale</text>";
  for (std::size_t n = 0; n < bars.size(); ++n) {
    const Bar& b = bars[n];
    const double y = kTop + kRow * static_cast<double>(n);
    svg += "<text class=\"label\" x=\"" + coordinate(kLabelWidth - 6) + "\" y=\"" + coordinate(y + 13) +
           "\" text-anchor=\"end\">" + escape(b.label) + "</text>";
    std::string value_text;
    double end = kLabelWidth;
    if (!b.value) {
      value_text = "null";
    } else if (*b.value == 0) {
      value_text = "0";
    } else {
      end = x_of(*b.value);
      svg += "<rect class=\"bar " + escape(b.kind) + "\" x=\"" + coordinate(kLabelWidth) + "\" y=\"" +
             coordinate(y + 3) + "\" width=\"" + coordinate(std::max(1.0, end - kLabelWidth)) + "\" height=\"" +
             coordinate(kRow - 6) + "\"/>";
      value_text = number_text(*b.value);
    }
    svg += "<text class=\"value\" x=\"" + coordinate(end + 4) + "\" y=\"" + coordinate(y + 13) + "\">" +
           escape(value_text) + "</text>";
  }
  svg += "</svg>";
  return svg;
}

std::string log_log_chart(const std::string& title, const std::string& x_label, const std::string& y_label,
                          const std::vector<Series>& series) {
  constexpr double kLeft = 64, kTop = 24, kPlot = 300, kLegend = 250;
  std::vector<double> xs, ys;
  for (const Series& s : series)
    for (const auto& [x, y] : s.points)
      if (x > 0 && y > 0) {
        xs.push_back(x);
        ys.push_back(y);
      }
  const std::pair<int, int> x_range = decades(xs), y_range = decades(ys);
  const int x_first = x_range.first, x_last = x_range.second, y_first = y_range.first, y_last = y_range.second;
  const auto px = [&](double x) { return kLeft + kPlot * (std::log10(x) - x_first) / (x_last - x_first); };
  const auto py = [&](double y) { return kTop + kPlot * (1 - (std::log10(y) - y_first) / (y_last - y_first)); };
  const double width = kLeft + kPlot + 20 + kLegend, height = kTop + kPlot + 44;
  std::string svg = "<svg class=\"chart loglog\" role=\"img\" viewBox=\"0 0 " + coordinate(width) + " " +
                    coordinate(height) + "\" width=\"" + coordinate(width) + "\" height=\"" + coordinate(height) +
                    "\"><title>" + escape(title) + "</title>";
  svg += "<text class=\"chart-title\" x=\"0\" y=\"14\">" + escape(title) + "</text>";
  svg += "<rect class=\"frame\" x=\"" + coordinate(kLeft) + "\" y=\"" + coordinate(kTop) + "\" width=\"" +
         coordinate(kPlot) + "\" height=\"" + coordinate(kPlot) + "\"/>";
  for (int e = x_first; e <= x_last; e += tick_step(x_first, x_last)) {
    const double x = px(std::pow(10.0, e));
    svg += "<line class=\"grid\" x1=\"" + coordinate(x) + "\" y1=\"" + coordinate(kTop) + "\" x2=\"" +
           coordinate(x) + "\" y2=\"" + coordinate(kTop + kPlot) + "\"/><text class=\"tick\" x=\"" + coordinate(x) +
           "\" y=\"" + coordinate(kTop + kPlot + 14) + "\" text-anchor=\"middle\">" + decade_label(e) + "</text>";
  }
  for (int e = y_first; e <= y_last; e += tick_step(y_first, y_last)) {
    const double y = py(std::pow(10.0, e));
    svg += "<line class=\"grid\" x1=\"" + coordinate(kLeft) + "\" y1=\"" + coordinate(y) + "\" x2=\"" +
           coordinate(kLeft + kPlot) + "\" y2=\"" + coordinate(y) + "\"/><text class=\"tick\" x=\"" +
           coordinate(kLeft - 4) + "\" y=\"" + coordinate(y + 4) + "\" text-anchor=\"end\">" + decade_label(e) +
           "</text>";
  }
  svg += "<text class=\"tick\" x=\"" + coordinate(kLeft + kPlot / 2) + "\" y=\"" + coordinate(kTop + kPlot + 32) +
         "\" text-anchor=\"middle\">" + escape(x_label) + "</text>";
  svg += "<text class=\"tick\" transform=\"rotate(-90)\" x=\"" + coordinate(-(kTop + kPlot / 2)) +
         "\" y=\"12\" text-anchor=\"middle\">" + escape(y_label) + "</text>";
  for (std::size_t n = 0; n < series.size(); ++n) {
    const Series& s = series[n];
    const std::string kind = std::string("s").append(std::to_string(n % 6));
    std::string line;
    double x_min = 0, x_max = 0;
    bool any = false;
    for (const auto& [x, y] : s.points) {
      if (!(x > 0 && y > 0)) continue;
      if (!line.empty()) line += ' ';
      line += coordinate(px(x)) + "," + coordinate(py(y));
      svg += "<circle class=\"point " + kind + "\" cx=\"" + coordinate(px(x)) + "\" cy=\"" + coordinate(py(y)) +
             "\" r=\"3\"/>";
      x_min = any ? std::min(x_min, x) : x;
      x_max = any ? std::max(x_max, x) : x;
      any = true;
    }
    if (!line.empty()) svg += "<polyline class=\"line " + kind + "\" points=\"" + line + "\"/>";
    std::string legend = s.name;
    if (any && s.order && s.coefficient && *s.coefficient > 0) {
      const double y0 = *s.coefficient * std::pow(x_min, *s.order), y1 = *s.coefficient * std::pow(x_max, *s.order);
      if (y0 > 0 && y1 > 0 && std::isfinite(y0) && std::isfinite(y1))
        svg += "<line class=\"fit " + kind + "\" x1=\"" + coordinate(px(x_min)) + "\" y1=\"" + coordinate(py(y0)) +
               "\" x2=\"" + coordinate(px(x_max)) + "\" y2=\"" + coordinate(py(y1)) + "\"/>";
    }
    if (s.order) legend += ": fitted order " + number_text(*s.order);
    const double ly = kTop + 10 + 18 * static_cast<double>(n);
    svg += "<circle class=\"point " + kind + "\" cx=\"" + coordinate(kLeft + kPlot + 28) + "\" cy=\"" +
           coordinate(ly - 4) + "\" r=\"3\"/><text class=\"label\" x=\"" + coordinate(kLeft + kPlot + 36) +
           "\" y=\"" + coordinate(ly) + "\">" + escape(legend) + "</text>";
  }
  svg += "</svg>";
  return svg;
}

std::string log_history_chart(const std::string& title, const std::string& calculation,
                              const std::vector<std::vector<std::string>>& x_labels,
                              const std::vector<std::string>& gate_statuses, const std::vector<HistorySeries>& series,
                              const std::string& unit) {
  constexpr double kLeft = 70, kTop = 28, kPlot = 240, kRowGap = 16, kLegend = 190, kColumnMin = 64;
  const std::size_t columns = std::max<std::size_t>(1, x_labels.size());
  const double plot_width = std::max(360.0, kColumnMin * static_cast<double>(columns));
  std::vector<double> values;
  bool zero = false, null = false;
  for (const HistorySeries& s : series)
    for (const HistoryPoint& p : s.points) {
      if (!p.value) null = true;
      else if (*p.value == 0) zero = true;
      else values.push_back(*p.value);
    }
  const std::pair<int, int> range = decades(values);
  const int first = range.first, last = range.second;
  // The log axis spans [kTop + kRowGap, kTop + kPlot - kRowGap]; null and 0 get rows outside it.
  const double axis_top = kTop + kRowGap, axis_bottom = kTop + kPlot - kRowGap;
  const auto py = [&](const std::optional<double>& v) {
    if (!v) return kTop + 4;
    if (*v == 0) return kTop + kPlot - 4;
    const double t = (std::log10(*v) - first) / (last - first);
    return axis_bottom - (axis_bottom - axis_top) * std::clamp(t, 0.0, 1.0);
  };
  const auto px = [&](std::size_t report) {
    return kLeft + plot_width * (static_cast<double>(report) + 0.5) / static_cast<double>(columns);
  };
  std::size_t label_lines = 0;
  for (const auto& lines : x_labels) label_lines = std::max(label_lines, lines.size());
  const double gate_y = kTop + kPlot + 14 + 13 * static_cast<double>(label_lines);
  const double width = kLeft + plot_width + 20 + kLegend;
  const double height = std::max(gate_y + 30, kTop + 20 + 18 * static_cast<double>(series.size()));
  std::string svg = "<svg class=\"chart history\" data-calculation=\"" + escape(calculation) +
                    "\" role=\"img\" viewBox=\"0 0 " + coordinate(width) + " " + coordinate(height) + "\" width=\"" +
                    coordinate(width) + "\" height=\"" + coordinate(height) + "\"><title>" + escape(title) + "</title>";
  svg += "<text class=\"chart-title\" x=\"0\" y=\"14\">" + escape(title) + "</text>";
  svg += "<rect class=\"frame\" x=\"" + coordinate(kLeft) + "\" y=\"" + coordinate(kTop) + "\" width=\"" +
         coordinate(plot_width) + "\" height=\"" + coordinate(kPlot) + "\"/>";
  const auto y_tick = [&](double y, const std::string& label) {
    svg += "<line class=\"grid\" x1=\"" + coordinate(kLeft) + "\" y1=\"" + coordinate(y) + "\" x2=\"" +
           coordinate(kLeft + plot_width) + "\" y2=\"" + coordinate(y) + "\"/><text class=\"tick\" x=\"" +
           coordinate(kLeft - 4) + "\" y=\"" + coordinate(y + 4) + "\" text-anchor=\"end\">" + label + "</text>";
  };
  if (!values.empty())  // all 0 (or null): only those rows
    for (int e = first; e <= last; e += tick_step(first, last)) y_tick(py(std::pow(10.0, e)), decade_label(e));
  if (null) y_tick(py(std::nullopt), "null");
  if (zero) y_tick(py(0.0), "0");
  svg += "<text class=\"tick\" transform=\"rotate(-90)\" x=\"" + coordinate(-(kTop + kPlot / 2)) +
         "\" y=\"12\" text-anchor=\"middle\">" + escape(unit) + ", log scale</text>";
  for (std::size_t n = 0; n < x_labels.size(); ++n)
    for (std::size_t line = 0; line < x_labels[n].size(); ++line)
      svg += "<text class=\"tick\" x=\"" + coordinate(px(n)) + "\" y=\"" +
             coordinate(kTop + kPlot + 14 + 13 * static_cast<double>(line)) + "\" text-anchor=\"middle\">" +
             escape(x_labels[n][line]) + "</text>";
  for (std::size_t n = 0; n < gate_statuses.size(); ++n)
    if (!gate_statuses[n].empty())
      svg += "<rect class=\"gate " + anchor(gate_statuses[n]) + "\" x=\"" + coordinate(px(n) - 20) + "\" y=\"" +
             coordinate(gate_y - 10) + "\" width=\"40\" height=\"14\"><title>gate " + escape(gate_statuses[n]) +
             "</title></rect><text class=\"gate-label\" x=\"" + coordinate(px(n)) + "\" y=\"" + coordinate(gate_y) +
             "\" text-anchor=\"middle\">" + escape(gate_statuses[n]) + "</text>";
  for (std::size_t k = 0; k < series.size(); ++k) {
    const HistorySeries& s = series[k];
    const bool budget = s.kind.find("budget") != std::string::npos;
    // Like points are joined, across unlike ones; a budget is drawn as steps, since it holds until the next
    // report changes it.
    std::string line;
    const auto vertex = [&](double x, double y) {
      if (!line.empty()) line += ' ';
      line += coordinate(x);
      line += ',';
      line += coordinate(y);
    };
    bool joined = false;  // whether a like point came before
    double previous_y = 0;
    for (const HistoryPoint& p : s.points) {
      const double x = px(p.report), y = py(p.value);
      if (!p.unlike) {
        const double step_x = x - plot_width / (2 * static_cast<double>(columns));
        if (budget && joined && previous_y != y) {
          vertex(step_x, previous_y);
          vertex(step_x, y);
        }
        vertex(x, y);
        previous_y = y;
        joined = true;
      }
      if (budget) continue;
      svg += "<circle class=\"point " + escape(s.kind) + (p.unlike ? " unlike" : "") + "\" cx=\"" + coordinate(x) +
             "\" cy=\"" + coordinate(y) + "\" r=\"" + (s.kind.find("p99") != std::string::npos ? "2.5" : "3.5") +
             "\"><title>" + escape(p.note) + "</title></circle>";
    }
    if (line.find(' ') != std::string::npos)
      svg += "<polyline class=\"line " + escape(s.kind) + "\" points=\"" + line + "\"/>";
    const double ly = kTop + 10 + 18 * static_cast<double>(k), lx = kLeft + plot_width + 20;
    svg += "<line class=\"line " + escape(s.kind) + "\" x1=\"" + coordinate(lx) + "\" y1=\"" + coordinate(ly - 4) +
           "\" x2=\"" + coordinate(lx + 18) + "\" y2=\"" + coordinate(ly - 4) + "\"/><text class=\"label\" x=\"" +
           coordinate(lx + 24) + "\" y=\"" + coordinate(ly) + "\">" + escape(s.name) + "</text>";
  }
  svg += "</svg>";
  return svg;
}

}  // namespace distgrid::render::detail
