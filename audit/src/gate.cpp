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

namespace {

std::string kept_input_text(const json& kept) {
  std::string text;
  if (kept.contains("part")) text += "part " + kept["part"].get<std::string>() + ", ";
  text += "generator " + kept.value("generator", std::string("?")) + " #" + kept.value("index", json(0)).dump() + ", input";
  const json input = kept.value("input", json::object());
  for (const auto& [name, value] : input.items())
    text += " " + name + "=" + (value.is_string() ? value.get<std::string>() : value.dump());
  if (kept.contains("result")) text += ", result " + kept["result"].get<std::string>() + " reference " + kept["reference"].get<std::string>();
  if (kept.contains("core")) text += ", core " + kept["core"].get<std::string>() + " exact " + kept["exact"].get<std::string>();
  if (kept.contains("margin_ulps")) text += ", margin " + kept["margin_ulps"].dump() + " ulps";
  if (kept.contains("what")) text += ": " + kept["what"].get<std::string>();
  return text;
}

}  // namespace

std::string worst_input_text(const json& entry, const std::string& metric) {
  json::json_pointer at;
  try {
    at = json::json_pointer(metric);
  } catch (const json::exception&) {
    return "";
  }
  const json::json_pointer mismatch_examples("/details/mismatch_examples");
  if (metric == "/mismatches" && entry.contains(mismatch_examples) && entry[mismatch_examples].is_array() &&
      !entry[mismatch_examples].empty())
    return kept_input_text(entry[mismatch_examples][0]);
  while (!at.empty()) {
    if (entry.contains(at) && entry[at].is_object()) {
      for (const char* list : {"worst", "closest"}) {
        const json& node = entry[at];
        if (node.contains(list) && node[list].is_array() && !node[list].empty()) return kept_input_text(node[list][0]);
      }
    }
    at = at.parent_pointer();
  }
  // A metric outside any statistics (such as /mismatches): the error's worst input.
  const json::json_pointer error_worst("/error/worst");
  if (entry.contains(error_worst) && entry[error_worst].is_array() && !entry[error_worst].empty())
    return kept_input_text(entry[error_worst][0]);
  return "";
}

namespace {

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      default: out += c;
    }
  }
  return out;
}

}  // namespace

std::string junit_xml(const json& report, const std::vector<GateFailure>& failures) {
  std::string cases;
  std::size_t tests = 0, failed = 0;
  for (const json& entry : report["calculations"]) {
    const std::string id = entry.value("id", "?"), storage = entry.value("storage", "?");
    std::string message, details;
    for (const GateFailure& f : failures) {
      if (f.id != id || f.storage != storage) continue;
      message += (message.empty() ? "" : "; ") + f.message;
      details += f.message + "\n" + (f.worst.empty() ? "" : "  worst: " + f.worst + "\n");
    }
    ++tests;
    cases += "  <testcase classname=\"distgrid-audit.gate\" name=\"" + xml_escaped(id + " " + storage) + "\"";
    if (message.empty()) {
      cases += "/>\n";
      continue;
    }
    ++failed;
    cases += ">\n    <failure message=\"" + xml_escaped(message) + "\" type=\"budget\">" + xml_escaped(details) +
             "</failure>\n  </testcase>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"distgrid-audit gate\" tests=\"" +
         std::to_string(tests) + "\" failures=\"" + std::to_string(failed) + "\" errors=\"0\">\n" + cases +
         "</testsuite>\n</testsuites>\n";
}

namespace {

std::vector<GateFailure> check_report_entries(const json& report, const std::vector<Budget>& budgets) {
  const json* schema = report.is_object() && report.contains("schema") ? &report["schema"] : nullptr;
  if (!schema || !schema->is_string() || schema->get<std::string>() != kReportSchema ||
      !report.contains("calculations") || !report["calculations"].is_array())
    throw Error(ErrorCode::badfile, std::string("not a ") + kReportSchema + " report");
  std::vector<GateFailure> failures;
  for (const json& entry : report["calculations"]) {
    const std::string id = entry.value("id", "?"), storage = entry.value("storage", "?");
    const std::vector<GateCheck> checks = check_entry(entry, budgets);
    if (checks.empty()) failures.push_back({id, storage, "no budget", "", ""});
    for (const GateCheck& c : checks) {
      if (c.pass) continue;
      const std::string what = c.measured ? "measured " + format_number(*c.measured) + " > budget "
                                          : "has no number in the report, budget ";
      failures.push_back({id, storage, c.budget.metric + " " + what + format_number(c.budget.max) + " (" + c.budget.why + ")",
                          worst_input_text(entry, c.budget.metric), c.budget.metric});
    }
  }
  return failures;
}

}  // namespace

std::vector<GateFailure> check_report(const json& report, const std::vector<Budget>& budgets) {
  try {
    return check_report_entries(report, budgets);
  } catch (const json::exception& e) {  // a member of the wrong type (found by fuzzing)
    throw Error(ErrorCode::badfile, std::string("not a valid ") + kReportSchema + " report: " + e.what());
  }
}

json gate_result_json(const std::vector<GateFailure>& failures, const std::vector<Budget>& budgets) {
  json failed = json::array();
  for (const GateFailure& f : failures)
    failed.push_back({{"id", f.id}, {"storage", f.storage}, {"metric", f.metric}, {"message", f.message}});
  json listed = json::array();
  for (const Budget& b : budgets)
    listed.push_back({{"id", b.id}, {"storage", b.storage}, {"metric", b.metric}, {"max", b.max}});
  return {{"schema", "distgrid-audit-gate/1"},
          {"status", failures.empty() ? "pass" : "fail"},
          {"failures", std::move(failed)},
          {"budgets", std::move(listed)}};
}

}  // namespace distgrid::audit
