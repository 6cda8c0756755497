#pragma once
// Precision gates: budgets per calculation and storage, read from a checked-in
// file (audit/gates.json), checked against a report's numbers.
//
// A budget names a metric as a JSON pointer into the report's entry for that
// calculation and storage (for example "/error/h/max"); an array element is
// named, never numbered ("/decisions/cell_crossing/misclassified",
// "/details/by_generator/needle/max_ulps/face"). Its largest value allowed is
// a number or an error model (budget_model.hpp) in the run's settings, with a
// sentence saying where it comes from. A measured constant may say the
// settings it holds for ("holds_for"); outside them the check is "not
// applicable". A budget above what its quantity can reach is "informational":
// checked and shown, never a gate.
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/budget_model.hpp"

namespace distgrid::audit {

struct Budget {
  std::string id;
  std::string storage;
  std::string metric;  ///< JSON pointer into the calculation entry, array elements by name
  double max = 0;      ///< the budget when `model` is empty
  std::string why;
  std::string model{};        ///< an expression (budget_model.hpp); empty for a constant
  std::string informational{};  ///< why this budget is not a gate; empty for a gate
  /// Settings a measured constant holds for: {"name": value or [lo, hi], ...}
  /// over the model names; null when it holds for any.
  nlohmann::json holds_for{};
};

/// Throws distgrid::Error(badfile) naming the path and the budget for a missing
/// or malformed file: a metric that numbers an array element, a model with a
/// syntax error or an unknown name, a holds_for over an unknown name.
std::vector<Budget> load_budgets(const std::string& path);

/// The values a budget's model may name (model_name_meanings()) for one entry
/// of a report with these settings; a name the report lacks is left out. Only
/// the storage comes from the entry, so the shards of a split run evaluate
/// every model alike.
ModelNames model_names(const nlohmann::json& settings, const nlohmann::json& entry);

/// The metric's pointer with every named array element replaced by its
/// position in `entry`. Throws distgrid::Error(badfile) naming the element and
/// the names the entry has when one does not resolve.
nlohmann::json::json_pointer resolve_metric(const nlohmann::json& entry, const std::string& metric);

enum class CheckStatus { pass, fail, informational, not_applicable };
const char* check_status_name(CheckStatus s);

struct GateCheck {
  Budget budget;
  std::optional<double> measured;  ///< nullopt when the report has no number there
  std::optional<double> limit;     ///< the budget at these settings; nullopt when not applicable
  CheckStatus status = CheckStatus::fail;
  std::string note;                ///< why not applicable, why unresolved, ...
  bool pass = false;               ///< counts as met: pass, informational or not applicable
};

/// The checks of one report entry ({"id", "storage", ...}) of a report with
/// these settings (its "settings" section); empty when unbudgeted.
std::vector<GateCheck> check_entry(const nlohmann::json& entry, const std::vector<Budget>& budgets,
                                   const nlohmann::json& settings = nlohmann::json::object());

/// The budgets a report entry was gated against, read back from its checks.
std::vector<Budget> budgets_from_checks(const nlohmann::json& entry);

/// {"status": "pass" | "fail" | "no budget", "checks": [...], "not_applicable": N,
/// "informational": N} for the report.
nlohmann::json gate_json(const std::vector<GateCheck>& checks);

struct GateFailure {
  std::string id, storage;
  std::string message;  ///< "metric measured M > budget B (why)" or "no budget"
  std::string worst;    ///< the worst input behind the metric (worst_input_text); may be empty
  std::string metric;   ///< the budget's metric; empty for "no budget" and for a claim
  /// replay's --error for the worst input ("error", "arithmetic", "storage",
  /// "method" or a decision's name; its rank is 1); empty when replay cannot
  /// address the list it came from (mismatch examples) or there is none.
  std::string replay_error{};
};

/// The input behind a metric: the first kept input (worst, closest or mismatch
/// example) of the statistics or decision the metric points into (the error's
/// worst input for a metric outside any statistics).
struct KeptInputBehind {
  /// One line: part, generator, index, values and both answers; empty when there is none.
  std::string text;
  /// replay's --error naming its list (rank 1); empty when replay cannot address it.
  std::string replay_error;
};
KeptInputBehind kept_input_behind(const nlohmann::json& entry, const std::string& metric);

/// kept_input_behind(entry, metric).text.
std::string worst_input_text(const nlohmann::json& entry, const std::string& metric);

/// JUnit XML for CI dashboards: one testcase per calculation and storage of the
/// report, named "<id> <storage>", failing with every shortfall and its worst input.
std::string junit_xml(const nlohmann::json& report, const std::vector<GateFailure>& failures);

/// Every calculation entry of a report against the budgets. An entry with no
/// budget fails: a number nobody gates is a number that may drift. With
/// `strict`, a budget not applicable at the report's settings fails too.
/// Throws distgrid::Error(badfile) when the report is not a distgrid-audit-report/1.
std::vector<GateFailure> check_report(const nlohmann::json& report, const std::vector<Budget>& budgets,
                                      bool strict = false);

/// The checks that are neither passes nor failures: budgets not applicable at
/// the report's settings and informational ones, one line each ("message"
/// says which and why).
std::vector<GateFailure> gate_notes(const nlohmann::json& report, const std::vector<Budget>& budgets);

/// The gate's verdict as JSON (schema distgrid-audit-gate/1): status, every
/// failure with its id, storage, metric (empty for "no budget" and claims) and
/// message, and every budget of the file by (id, storage, metric), so a reader
/// can tell a budget that held from one the report did not reach.
nlohmann::json gate_result_json(const std::vector<GateFailure>& failures, const std::vector<Budget>& budgets);

}  // namespace distgrid::audit
