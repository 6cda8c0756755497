#include "distgrid/render/history_page.hpp"

#include <algorithm>
#include <cstdio>

#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/render/policy_page.hpp"
#include "distgrid/reports/compare.hpp"
#include "html.hpp"
#include "page_parts.hpp"
#include "svg_chart.hpp"

namespace distgrid::render {

using nlohmann::json;
using namespace detail;

std::optional<long long> commit_seconds(const std::string& t) {
  // YYYY-MM-DDTHH:MM:SS then Z or +HH:MM / -HH:MM (what git's %cI writes).
  int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0, consumed = 0;
  if (std::sscanf(t.c_str(), "%4d-%2d-%2dT%2d:%2d:%2d%n", &year, &month, &day, &hour, &minute, &second, &consumed) != 6 ||
      consumed != 19 || month < 1 || month > 12 || day < 1 || day > 31 || hour > 23 || minute > 59 || second > 60)
    return std::nullopt;
  long long offset = 0;
  const std::string zone = t.substr(19);
  if (zone != "Z") {
    int oh = 0, om = 0, used = 0;
    if (zone.size() != 6 || (zone[0] != '+' && zone[0] != '-') ||
        std::sscanf(zone.c_str() + 1, "%2d:%2d%n", &oh, &om, &used) != 2 || used != 5)
      return std::nullopt;
    offset = (zone[0] == '-' ? -1 : 1) * (oh * 3600LL + om * 60LL);
  }
  // Days from 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil).
  const long long y = year - (month <= 2 ? 1 : 0);
  const long long era = (y >= 0 ? y : y - 399) / 400;
  const long long yoe = y - era * 400;
  const long long doy = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1;
  const long long doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  const long long days = era * 146097 + doe - 719468;
  return days * 86400 + hour * 3600LL + minute * 60LL + second - offset;
}

std::vector<HistoryReport> in_commit_order(std::vector<HistoryReport> reports) {
  std::stable_sort(reports.begin(), reports.end(), [](const HistoryReport& a, const HistoryReport& b) {
    const std::optional<long long> ta = commit_seconds(reports::report_commit_time(a.report));
    const std::optional<long long> tb = commit_seconds(reports::report_commit_time(b.report));
    if (ta && tb) return *ta < *tb;
    return ta.has_value() && !tb.has_value();
  });
  return reports;
}

namespace {

/// One report as the page shows it.
struct Slot {
  const HistoryReport* source = nullptr;
  std::size_t number = 0;  ///< 1-based position in commit order
  std::string revision, time;
  std::vector<reports::SettingDifference> unlike;  ///< against the newest report
  std::optional<std::size_t> duplicate_of;         ///< number of an earlier report with the same commit and settings
};

const json* find_entry(const json& report, const std::string& id, const std::string& storage) {
  for (const json& entry : array_of(report, "calculations"))
    if (text_of(entry, "id") == id && text_of(entry, "storage") == storage) return &entry;
  return nullptr;
}

std::string short_revision(const std::string& revision) { return revision.substr(0, 10); }

std::string date_of(const std::string& time) { return commit_seconds(time) ? time.substr(0, 10) : "no date"; }

/// The unit a calculation's errors are read in: h for distances, relative for volumes, else ulps.
std::string unit_of(const json& entry) {
  const json* error = member(entry, "error");
  for (const char* unit : {"h", "relative", "ulps"})
    if (error && member(*error, unit)) return unit;
  return "ulps";
}

std::optional<double> budget_of(const json& entry, const std::string& metric) {
  const json* gate = member(entry, "gate");
  if (!gate) return std::nullopt;
  for (const json& check : array_of(*gate, "checks"))
    if (text_of(check, "metric") == metric) return number_of(check, "budget");
  return std::nullopt;
}

std::string badge(const std::string& text) {
  return "<span class=\"badge " + anchor(text) + "\">" + escape(text) + "</span>";
}

class HistoryWriter {
 public:
  explicit HistoryWriter(const std::vector<HistoryReport>& ordered) {
    for (std::size_t n = 0; n < ordered.size(); ++n) {
      Slot slot;
      slot.source = &ordered[n];
      slot.number = n + 1;
      slot.revision = reports::report_revision(ordered[n].report);
      slot.time = reports::report_commit_time(ordered[n].report);
      slot.unlike = reports::settings_differences(ordered.back().report, ordered[n].report);
      for (const Slot& earlier : slots_)
        if (!slot.duplicate_of && earlier.revision == slot.revision &&
            reports::settings_differences(earlier.source->report, ordered[n].report).empty())
          slot.duplicate_of = earlier.number;
      slots_.push_back(std::move(slot));
    }
  }

  std::string write() {
    html_ += page_start("distgrid: accuracy history");
    html_ += "<p class=\"meta\">distgrid &middot; numerical accuracy &middot; history</p>\n<h1>How precision moved "
             "across commits</h1>\n<p class=\"lead\">The largest error (and its 99th percentile) of every audited "
             "calculation over " + std::to_string(slots_.size()) + " audit report" + (slots_.size() == 1 ? "" : "s") +
             ", in the order of their commits, with the budget each was gated against, each report's gate status "
             "and every verdict or claim that changed. Hover a point for its commit, date and value.</p>\n";
    const Slot& newest = slots_.back();
    html_ += gate_banner(newest.source->report, "the newest report (#" + std::to_string(newest.number) + ", " +
                                                    short_revision(newest.revision) + ", " + date_of(newest.time) + ")");
    reports_table();
    changes_table();
    html_ += "<h2 id=\"calculations\">Calculations</h2>\n<p>One chart per calculation: solid lines join the max "
             "error of each storage, dotted lines its p99, dashed steps its budget; hollow points come from "
             "runs whose settings differ from the newest report's and are left out of the lines. Under the axis, "
             "each report's gate status for the calculation.</p>\n";
    for (const std::string& id : calculation_ids()) calculation(id);
    html_ += "<footer><p>Rendered by distgrid-audit history from the reports listed above.</p></footer>\n"
             "</main>\n</body>\n</html>\n";
    return std::move(html_);
  }

 private:
  std::vector<Slot> slots_;
  std::string html_;

  std::string slot_label(const Slot& s) const {
    return "#" + std::to_string(s.number) + " <code>" + escape(short_revision(s.revision)) + "</code> " +
           escape(date_of(s.time));
  }

  void reports_table() {
    html_ += "<h2 id=\"reports\">Reports</h2>\n<table class=\"reports\"><tr><th>#</th><th>commit</th><th>commit "
             "time</th><th>report</th><th>gate</th><th>shortfalls</th><th>settings</th><th>note</th></tr>";
    for (const Slot& s : slots_) {
      const reports::GateSummary gate = reports::gate_summary(s.source->report);
      std::string note;
      if (s.duplicate_of)
        note = "duplicate of #" + std::to_string(*s.duplicate_of) + " (same commit and settings; both are shown)";
      if (!commit_seconds(s.time)) note += (note.empty() ? "" : "; ") + std::string("no commit time recorded: placed last");
      html_ += std::string(s.unlike.empty() ? "<tr>" : "<tr class=\"finding\">") + "<td class=\"num\">" +
               std::to_string(s.number) + "</td><td><code>" + escape(s.revision) + "</code></td><td>" +
               escape(s.time) + "</td><td>" + escape(s.source->name) + "</td><td>" + badge(gate.status) +
               "</td><td class=\"num\">" + std::to_string(gate.shortfalls) + "</td><td>" +
               (s.unlike.empty() ? std::string("as the newest")
                                 : "unlike the newest: " + escape(reports::differences_text(s.unlike))) +
               "</td><td>" + escape(note) + "</td></tr>";
    }
    html_ += "</table>\n";
  }

  void changes_table() {
    html_ += "<h2 id=\"changes\">Changes of verdicts and claims</h2>\n";
    std::string rows;
    for (std::size_t n = 1; n < slots_.size(); ++n) {
      // Since the last earlier report run with the same settings, else the one before.
      std::size_t since = n - 1;
      for (std::size_t k = n; k-- > 0;)
        if (reports::settings_differences(slots_[k].source->report, slots_[n].source->report).empty()) {
          since = k;
          break;
        }
      reports::CompareOptions options;
      options.allow_different_settings = true;
      const reports::Comparison c =
          reports::compare_reports(slots_[since].source->report, slots_[n].source->report, options);
      for (const reports::VerdictChange& v : c.verdicts)
        rows += "<tr><td>" + slot_label(slots_[n]) + " <span class=\"meta\">since #" +
                std::to_string(slots_[since].number) + "</span></td><td>" + escape(v.kind) + "</td><td><code>" +
                escape(v.subject) + "</code></td><td>" + escape(v.base.empty() ? "(absent)" : v.base) + " &rarr; " +
                escape(v.current.empty() ? "(absent)" : v.current) + "</td><td>" +
                badge(reports::change_name(v.change)) + (c.unlike.empty() ? "" : " <span class=\"meta\">unlike runs</span>") +
                "</td></tr>";
    }
    if (rows.empty()) {
      html_ += "<p>No verdict, gate status, measured class or claim changed from one report to the next.</p>\n";
      return;
    }
    html_ += "<table class=\"changes\"><tr><th>at</th><th>what</th><th>subject</th><th>from &rarr; to</th>"
             "<th>change</th></tr>" + rows + "</table>\n";
  }

  /// Calculation ids of the newest report first, then any only older reports hold.
  std::vector<std::string> calculation_ids() const {
    std::vector<std::string> ids;
    for (auto s = slots_.rbegin(); s != slots_.rend(); ++s)
      for (const json& entry : array_of(s->source->report, "calculations"))
        if (std::find(ids.begin(), ids.end(), text_of(entry, "id")) == ids.end()) ids.push_back(text_of(entry, "id"));
    return ids;
  }

  void calculation(const std::string& id) {
    std::vector<std::string> storages;
    const json* newest = nullptr;
    for (auto s = slots_.rbegin(); s != slots_.rend(); ++s)
      for (const json& entry : array_of(s->source->report, "calculations")) {
        if (text_of(entry, "id") != id) continue;
        if (!newest) newest = &entry;
        if (std::find(storages.begin(), storages.end(), text_of(entry, "storage")) == storages.end())
          storages.push_back(text_of(entry, "storage"));
      }
    std::sort(storages.begin(), storages.end(), [](const std::string& a, const std::string& b) {
      return (a == "float" ? 0 : a == "double" ? 1 : 2) < (b == "float" ? 0 : b == "double" ? 1 : 2);
    });
    const std::string unit = unit_of(*newest);
    std::vector<HistorySeries> series;
    std::vector<std::string> gates(slots_.size());
    std::string numbers = "<tr><th>report</th>";
    for (const std::string& storage : storages)
      numbers += "<th>" + escape(storage) + " max</th><th>" + escape(storage) + " p99</th><th>" + escape(storage) +
                 " budget</th>";
    numbers += "<th>gate</th></tr>";
    for (std::size_t k = 0; k < storages.size(); ++k) {
      const std::string colour = "s" + std::to_string(std::min<std::size_t>(k, 5));
      HistorySeries max{storages[k] + " max", colour, {}}, p99{storages[k] + " p99", colour + " p99", {}},
          budget{storages[k] + " budget", colour + " budget", {}};
      for (const Slot& s : slots_) {
        const json* entry = find_entry(s.source->report, id, storages[k]);
        if (!entry) continue;
        const json* error = member(*entry, "error");
        const json* summary = error ? member(*error, unit) : nullptr;
        const std::string where = "#" + std::to_string(s.number) + " " + short_revision(s.revision) + " " + s.time +
                                  (s.unlike.empty() ? "" : " (unlike settings)") + ": " + storages[k];
        const auto point = [&](HistorySeries& into, const char* statistic) {
          if (!summary || !summary->contains(statistic)) return;
          const std::optional<double> v = number_of(*summary, statistic);
          into.points.push_back({s.number - 1, v, !s.unlike.empty(),
                                 where + " " + statistic + " " + (v ? number_text(*v) : "null") + " " + unit});
        };
        point(max, "max");
        point(p99, "p99");
        if (const std::optional<double> b = budget_of(*entry, "/error/" + unit + "/max"))
          budget.points.push_back({s.number - 1, b, !s.unlike.empty(), where + " budget " + number_text(*b) + " " + unit});
        const json* gate = member(*entry, "gate");
        const std::string status = gate ? text_of(*gate, "status") : "";
        std::string& g = gates[s.number - 1];
        if (g.empty() || (g == "pass" && status != "pass") || (g == "no budget" && status == "fail")) g = status;
      }
      series.push_back(std::move(max));
      series.push_back(std::move(p99));
      if (!budget.points.empty()) series.push_back(std::move(budget));
    }
    std::vector<std::vector<std::string>> labels;
    for (const Slot& s : slots_) {
      labels.push_back({"#" + std::to_string(s.number), short_revision(s.revision).substr(0, 7), date_of(s.time)});
      numbers += "<tr><td>" + slot_label(s) + "</td>";
      for (const std::string& storage : storages) {
        const json* entry = find_entry(s.source->report, id, storage);
        const json* error = entry ? member(*entry, "error") : nullptr;
        const json* summary = error ? member(*error, unit) : nullptr;
        const std::optional<double> b = entry ? budget_of(*entry, "/error/" + unit + "/max") : std::nullopt;
        numbers += "<td class=\"num\">" + (summary ? number_or(*summary, "max") : std::string("&mdash;")) +
                   "</td><td class=\"num\">" + (summary ? number_or(*summary, "p99") : std::string("&mdash;")) +
                   "</td><td class=\"num\">" + (b ? number_text(*b) : std::string("&mdash;")) + "</td>";
      }
      numbers += "<td>" + (gates[s.number - 1].empty() ? std::string("&mdash;") : badge(gates[s.number - 1])) +
                 "</td></tr>";
    }
    html_ += "<section class=\"history-calculation\" id=\"history-" + anchor(id) + "\"><h3>" +
             escape(text_of(*newest, "title", id)) + " <code class=\"meta\">" + escape(id) + "</code></h3>\n";
    html_ += "<div class=\"charts\">" +
             log_history_chart("Largest error of " + id + " per commit, in " + unit, id, labels, gates, series, unit) +
             "</div>\n<details><summary>Numbers (" + escape(unit) + ")</summary><table>" + numbers +
             "</table></details>\n</section>\n";
  }
};

}  // namespace

std::string history_page_html(const std::vector<HistoryReport>& reports) {
  if (reports.empty()) throw Error(ErrorCode::badarg, "the history needs at least one report");
  const std::vector<HistoryReport> ordered = in_commit_order(reports);
  return HistoryWriter(ordered).write();
}

void render_history_page(const std::vector<std::string>& report_paths, const std::string& out_path) {
  std::vector<HistoryReport> reports;
  for (const std::string& path : report_paths) {
    const std::string::size_type slash = path.find_last_of('/');
    reports.push_back({slash == std::string::npos ? path : path.substr(slash + 1), parse_report(read_file(path), path)});
  }
  replace_file(out_path, history_page_html(reports));
}

}  // namespace distgrid::render
