#pragma once
// Precision gates: budgets per calculation and storage, read from a checked-in
// file (audit/gates.json), checked against a report's numbers.
//
// A budget names a metric as a JSON pointer into the report's entry for that
// calculation and storage (for example "/error/h/max") and the largest value
// allowed, with a sentence saying where the number comes from.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace distgrid::audit {

struct Budget {
  std::string id;
  std::string storage;
  std::string metric;  ///< JSON pointer into the calculation entry
  double max = 0;
  std::string why;
};

/// Throws distgrid::Error(badfile) naming the path for a missing or malformed file.
std::vector<Budget> load_budgets(const std::string& path);

struct GateCheck {
  Budget budget;
  std::optional<double> measured;  ///< nullopt when the report has no number there
  bool pass = false;
};

/// The checks of one report entry ({"id", "storage", ...}); empty when unbudgeted.
std::vector<GateCheck> check_entry(const nlohmann::json& entry, const std::vector<Budget>& budgets);

/// {"status": "pass" | "fail" | "no budget", "checks": [...]} for the report.
nlohmann::json gate_json(const std::vector<GateCheck>& checks);

struct GateFailure {
  std::string id, storage;
  std::string message;  ///< "metric measured M > budget B (why)" or "no budget"
  std::string worst;    ///< the worst input behind the metric (worst_input_text); may be empty
  std::string metric;   ///< the budget's metric; empty for "no budget" and for a claim
};

/// The input behind a metric as one line: the first kept input (worst, closest
/// or mismatch example) of the statistics the metric points into (the error's
/// worst input for a metric outside any statistics), with its
/// part, generator, index, values and both answers. Empty when there is none.
std::string worst_input_text(const nlohmann::json& entry, const std::string& metric);

/// JUnit XML for CI dashboards: one testcase per calculation and storage of the
/// report, named "<id> <storage>", failing with every shortfall and its worst input.
std::string junit_xml(const nlohmann::json& report, const std::vector<GateFailure>& failures);

/// Every calculation entry of a report against the budgets. An entry with no
/// budget fails: a number nobody gates is a number that may drift.
/// Throws distgrid::Error(badfile) when the report is not a distgrid-audit-report/1.
std::vector<GateFailure> check_report(const nlohmann::json& report, const std::vector<Budget>& budgets);

/// The gate's verdict as JSON (schema distgrid-audit-gate/1): status, every
/// failure with its id, storage, metric (empty for "no budget" and claims) and
/// message, and every budget of the file by (id, storage, metric), so a reader
/// can tell a budget that held from one the report did not reach.
nlohmann::json gate_result_json(const std::vector<GateFailure>& failures, const std::vector<Budget>& budgets);

}  // namespace distgrid::audit
