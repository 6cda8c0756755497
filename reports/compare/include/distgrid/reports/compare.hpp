#pragma once
// Two audit reports compared number by number: how much precision a change
// gained or lost, in bits, and which verdicts moved. Reads only the reports'
// JSON; `distgrid-audit compare`, the policy page's baseline column and the
// history page use it.
//
// An error metric (a statistic of an error in one unit, e.g. error/h/max)
// changes by log2(new / base) bits: +1 is twice the error. It regressed when
// the change exceeds the tolerance, improved when below minus the tolerance.
// A count (a decision's misclassified inputs, mismatches) changes by
// new - base and tolerates nothing. A null number (the report's NaN or
// infinity) counts as infinitely large.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace distgrid::reports {

enum class Change { unchanged, improved, regressed, appeared, disappeared, changed };

/// "unchanged", "improved", "regressed", "appeared", "disappeared", "changed".
const char* change_name(Change change) noexcept;

/// A run setting two reports must share to be compared like for like.
struct SettingDifference {
  std::string key;  ///< e.g. "seed", "h", "schema", "shard"
  std::string base, current;  ///< the JSON text of each side ("absent" when missing)
};

/// The settings that make two runs unlike (the report schema, whole run or
/// shard, storages, parts, h and its series, band, seed, inputs per generator,
/// quick), each with both values; empty when the runs are alike.
std::vector<SettingDifference> settings_differences(const nlohmann::json& base, const nlohmann::json& current);
/// "seed 1 vs 20261201; band 2 vs 3".
std::string differences_text(const std::vector<SettingDifference>& differences);

/// One number of one calculation and storage in both reports.
struct MetricRow {
  std::string id, storage;
  /// "error/h/max", "errors/storage/ulps/p99", "decisions/<name>/misclassified", "mismatches".
  std::string metric;
  bool count = false;  ///< a count (decisions, mismatches) rather than an error
  bool in_base = false, in_current = false;
  std::optional<double> base, current;  ///< nullopt: null (non-finite) or absent
  /// Error: log2(current / base), +-infinity from or to 0 and null; count: current - base.
  double delta = 0;
  double tolerance = 0;  ///< bits for an error, 0 for a count
  Change change = Change::unchanged;
  /// Whether the reports' settings differ (compare_reports with allow_different_settings).
  bool unlike = false;
};

/// A verdict, claim or calculation that appeared, disappeared or changed.
struct VerdictChange {
  /// "claim", "calculation", "gate", "measured class", "float or double", "report gate".
  std::string kind;
  std::string subject;  ///< a claim or calculation id, with the storage where it has one
  std::string base, current;  ///< "" when absent on that side
  Change change = Change::changed;  ///< regressed / improved where the direction is clear
};

struct CompareOptions {
  /// Tolerance for the errors of calculations not declared exact; those declared
  /// exact, decisions and mismatches tolerate nothing.
  double tolerance_bits = 0.5;
  /// Compare reports whose settings differ (every row says so) instead of refusing.
  bool allow_different_settings = false;
};

struct Comparison {
  std::vector<SettingDifference> unlike;  ///< empty: the runs are alike
  std::vector<MetricRow> rows;             ///< in the current report's order, then what disappeared
  std::vector<VerdictChange> verdicts;
  std::size_t count(Change change) const noexcept;
  /// Any row or verdict regressed.
  bool regressed() const noexcept;
};

/// Every calculation, storage and metric of both reports, and every verdict.
/// Throws distgrid::Error(badarg) naming the first differences when the
/// settings differ and options.allow_different_settings is false, and
/// Error(badfile) when either is not a distgrid-audit report.
Comparison compare_reports(const nlohmann::json& base, const nlohmann::json& current, const CompareOptions& options);

/// The report's gate in one line's worth: its status and how many budget
/// checks fell short (a failed check, or an entry with no budget).
struct GateSummary {
  std::string status;  ///< "pass", "fail", or "unknown" when the report has no gate
  std::size_t shortfalls = 0;
  std::size_t entries = 0;
};
GateSummary gate_summary(const nlohmann::json& report);

/// The report's recorded commit: revision and commit time ("unknown" when not recorded).
std::string report_revision(const nlohmann::json& report);
std::string report_commit_time(const nlohmann::json& report);

/// A change as text: "+2.00 bits", "-0.31 bits", "from 0", "to 0", "+3" for a count.
std::string delta_text(const MetricRow& row);

struct OutputNames {
  std::string base = "BASE.json", current = "NEW.json";  ///< how the reports are named in the output
};

/// The terminal listing: every row and verdict that is not unchanged, then a count line.
std::string comparison_text(const Comparison& comparison, const OutputNames& names);

/// A short summary for a pull-request comment: a verdict line, a table of the
/// regressions and improvements (largest first), the other changes, and the
/// worst inputs of the regressed rows in the current report with the command
/// that replays each. No links.
std::string comparison_markdown(const Comparison& comparison, const nlohmann::json& current, const OutputNames& names);

/// JUnit XML: one testcase per calculation and storage (failing on a
/// regressed row or verdict), per claim, and one for the report's own verdicts.
std::string comparison_junit(const Comparison& comparison);

}  // namespace distgrid::reports
