#pragma once
// The accuracy history: one self-contained HTML page (inline CSS and SVG, no
// script, no network) over several audit reports in the order of their
// recorded commit times. Per calculation one chart of the max error and p99
// of each storage with its budget, each report's gate status, and every change
// of a verdict or claim since the last earlier report with the same settings,
// each with its commit and date. Duplicate reports (same commit and settings) and reports run with
// other settings than the newest are shown and marked, never merged.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace distgrid::render {

struct HistoryReport {
  std::string name;  ///< how the page names it (a file name)
  nlohmann::json report;
};

/// Seconds since 1970-01-01 UTC of an ISO 8601 time with a UTC offset or Z
/// ("2026-12-03T10:22:05+01:00"); nullopt for anything else ("unknown").
std::optional<long long> commit_seconds(const std::string& iso_time);

/// The reports in page order: by commit time, then as given; those without a
/// readable commit time last, as given.
std::vector<HistoryReport> in_commit_order(std::vector<HistoryReport> reports);

/// The page's HTML. Deterministic: the same reports give the same bytes.
std::string history_page_html(const std::vector<HistoryReport>& reports);

/// Reads every report (Error(badfile) naming a file that is not a report),
/// renders the page and writes `out_path` through a temporary file and a rename.
void render_history_page(const std::vector<std::string>& report_paths, const std::string& out_path);

}  // namespace distgrid::render
