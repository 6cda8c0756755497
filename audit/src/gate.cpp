#include "distgrid/audit/gate.hpp"

#include <cstdio>

#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {

using nlohmann::json;

namespace {

constexpr const char* kGatesSchema = "distgrid-audit-gates/1";

std::string format_number(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", v);
  return text;
}

[[noreturn]] void bad_budget(const std::string& path, std::size_t n, const std::string& what) {
  throw Error(ErrorCode::badfile, path + ": /budgets/" + std::to_string(n) + ": " + what);
}

}  // namespace

std::vector<Budget> load_budgets(const std::string& path) {
  const json doc = read_json_file(path);
  if (!doc.is_object() || doc.value("schema", "") != kGatesSchema)
    throw Error(ErrorCode::badfile, path + ": not a " + std::string(kGatesSchema) + " file (no such \"schema\")");
  if (!doc.contains("budgets") || !doc["budgets"].is_array())
    throw Error(ErrorCode::badfile, path + ": /budgets must be an array");
  std::vector<Budget> budgets;
  const json& list = doc["budgets"];
  for (std::size_t n = 0; n < list.size(); ++n) {
    const json& b = list[n];
    if (!b.is_object()) bad_budget(path, n, "expected an object");
    for (const char* key : {"id", "storage", "metric", "why"})
      if (!b.contains(key) || !b[key].is_string() || b[key].get<std::string>().empty())
        bad_budget(path, n, std::string("\"") + key + "\" must be a non-empty string");
    if (!b.contains("max") || !b["max"].is_number()) bad_budget(path, n, "\"max\" must be a number");
    Budget budget{b["id"], b["storage"], b["metric"], b["max"].get<double>(), b["why"]};
    if (budget.storage != "float" && budget.storage != "double")
      bad_budget(path, n, "\"storage\" must be \"float\" or \"double\"");
    try {
      (void)json::json_pointer(budget.metric);
    } catch (const json::exception&) {
      bad_budget(path, n, "\"metric\" must be a JSON pointer such as /error/h/max");
    }
    budgets.push_back(std::move(budget));
  }
  return budgets;
}

std::vector<GateCheck> check_entry(const json& entry, const std::vector<Budget>& budgets) {
  std::vector<GateCheck> checks;
  const std::string id = entry.value("id", ""), storage = entry.value("storage", "");
  for (const Budget& budget : budgets) {
    if (budget.id != id || budget.storage != storage) continue;
    GateCheck check{budget, std::nullopt, false};
    const json::json_pointer pointer(budget.metric);
    if (entry.contains(pointer) && entry[pointer].is_number()) {
      check.measured = entry[pointer].get<double>();
      check.pass = *check.measured <= budget.max;
    }
    checks.push_back(std::move(check));
  }
  return checks;
}

json gate_json(const std::vector<GateCheck>& checks) {
  json list = json::array();
  bool pass = true;
  for (const GateCheck& c : checks) {
    json item = {{"metric", c.budget.metric},
                 {"budget", c.budget.max},
                 {"measured", c.measured ? json(*c.measured) : json(nullptr)},
                 {"status", c.pass ? "pass" : "fail"},
                 {"why", c.budget.why}};
    if (!c.measured) item["measured_null_reason"] = "the report has no number at this metric";
    list.push_back(item);
    pass = pass && c.pass;
  }
  return {{"status", checks.empty() ? "no budget" : pass ? "pass" : "fail"}, {"checks", list}};
}

std::vector<GateFailure> check_report(const json& report, const std::vector<Budget>& budgets) {
  if (!report.is_object() || report.value("schema", "") != kReportSchema || !report.contains("calculations") ||
      !report["calculations"].is_array())
    throw Error(ErrorCode::badfile, std::string("not a ") + kReportSchema + " report");
  std::vector<GateFailure> failures;
  for (const json& entry : report["calculations"]) {
    const std::string id = entry.value("id", "?"), storage = entry.value("storage", "?");
    const std::vector<GateCheck> checks = check_entry(entry, budgets);
    if (checks.empty()) failures.push_back({id, storage, "no budget"});
    for (const GateCheck& c : checks) {
      if (c.pass) continue;
      const std::string what = c.measured ? "measured " + format_number(*c.measured) + " > budget "
                                          : "has no number in the report, budget ";
      failures.push_back({id, storage, c.budget.metric + " " + what + format_number(c.budget.max) + " (" + c.budget.why + ")"});
    }
  }
  return failures;
}

}  // namespace distgrid::audit
