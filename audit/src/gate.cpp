#include "distgrid/audit/gate.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>

#include "distgrid/audit/report.hpp"
#include "distgrid/audit/storage.hpp"
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

namespace {

bool all_digits(const std::string& token) {
  return !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
}

/// The reference tokens of a JSON pointer, ~1 and ~0 unescaped.
std::vector<std::string> tokens_of(const json::json_pointer& pointer) {
  std::vector<std::string> tokens;
  for (json::json_pointer p = pointer; !p.empty(); p = p.parent_pointer()) tokens.insert(tokens.begin(), p.back());
  return tokens;
}

/// Every model name set to 1: enough to find syntax errors and unknown names.
ModelNames probe_names() {
  ModelNames names;
  for (const auto& [name, meaning] : model_name_meanings()) names[name] = 1;
  return names;
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
  const ModelNames probe = probe_names();
  for (std::size_t n = 0; n < list.size(); ++n) {
    const json& b = list[n];
    if (!b.is_object()) bad_budget(path, n, "expected an object");
    for (const char* key : {"id", "storage", "metric", "why"})
      if (!b.contains(key) || !b[key].is_string() || b[key].get<std::string>().empty())
        bad_budget(path, n, std::string("\"") + key + "\" must be a non-empty string");
    if (!b.contains("max") || !(b["max"].is_number() || (b["max"].is_string() && !b["max"].get<std::string>().empty())))
      bad_budget(path, n, "\"max\" must be a number or a model (an expression as a string)");
    Budget budget{b["id"], b["storage"], b["metric"], 0, b["why"]};
    if (b["max"].is_number()) budget.max = b["max"].get<double>();
    else budget.model = b["max"].get<std::string>();
    if (!parse_storage(budget.storage))
      bad_budget(path, n, "\"storage\" must be \"float\", \"double\", \"half\", \"q16\" or \"q8\"");
    json::json_pointer pointer;
    try {
      pointer = json::json_pointer(budget.metric);
    } catch (const json::exception&) {
      bad_budget(path, n, "\"metric\" must be a JSON pointer such as /error/h/max");
    }
    for (const std::string& token : tokens_of(pointer))
      if (all_digits(token))
        bad_budget(path, n, "\"metric\" " + budget.metric + " numbers an array element (" + token +
                                "); name it instead, e.g. /decisions/<name>/misclassified or "
                                "/details/by_generator/<generator>/...");
    if (!budget.model.empty()) {
      try {
        (void)evaluate_model(budget.model, probe);
      } catch (const Error& e) {
        bad_budget(path, n, e.what());
      }
    }
    if (b.contains("informational")) {
      if (!b["informational"].is_string() || b["informational"].get<std::string>().empty())
        bad_budget(path, n, "\"informational\" must say why the budget is not a gate");
      budget.informational = b["informational"];
    }
    if (b.contains("holds_for")) {
      const json& holds = b["holds_for"];
      if (!holds.is_object() || holds.empty()) bad_budget(path, n, "\"holds_for\" must be a non-empty object");
      for (const auto& [name, range] : holds.items()) {
        if (!probe.contains(name)) bad_budget(path, n, "\"holds_for\" names an unknown setting '" + name + "'");
        const bool pair = range.is_array() && range.size() == 2 && range[0].is_number() && range[1].is_number();
        if (!range.is_number() && !pair)
          bad_budget(path, n, "\"holds_for\"/" + name + " must be a number or [lowest, highest]");
      }
      budget.holds_for = holds;
    }
    budgets.push_back(std::move(budget));
  }
  return budgets;
}

ModelNames model_names(const json& settings, const json& entry) {
  ModelNames names;
  names["u64"] = 0x1p-53;
  const std::optional<Storage> storage = parse_storage(entry.is_object() ? entry.value("storage", "") : "");
  if (settings.is_object()) {
    const auto number = [&](const char* key, const char* name) {
      if (settings.contains(key) && settings[key].is_number()) names[name] = settings[key].get<double>();
    };
    number("h", "h");
    number("band", "band");
    number("reach_voxels", "reach");
    number("largest_abs_x_over_h", "x_over_h");
    if (names.contains("h")) {
      int exponent = 0;
      names["pow2_h"] = std::frexp(names["h"], &exponent) == 0.5 ? 1 : 0;
    }
  }
  // Values a volume sums: at most the nodes of the largest part's box padded by
  // the band, (2 reach)^3. From the settings, so every shard of a split run
  // evaluates the same budget.
  if (names.contains("reach")) names["n"] = std::pow(2 * names["reach"], 3);
  if (storage && names.contains("h") && names.contains("band"))
    names["u"] = storage_unit_roundoff(*storage, names["band"] * names["h"]);
  return names;
}

json::json_pointer resolve_metric(const json& entry, const std::string& metric) {
  json::json_pointer resolved;
  const json* node = &entry;
  for (const std::string& token : tokens_of(json::json_pointer(metric))) {
    if (node->is_array()) {
      std::size_t k = 0;
      std::string names;
      for (; k < node->size(); ++k) {
        const json& element = (*node)[k];
        std::string name;
        for (const char* key : {"name", "generator", "part"})
          if (name.empty() && element.is_object() && element.contains(key) && element[key].is_string())
            name = element[key].get<std::string>();
        if (name == token) break;
        names += (names.empty() ? "" : ", ") + name;
      }
      if (k == node->size())
        throw Error(ErrorCode::badfile, "metric " + metric + ": no element named '" + token + "' at " +
                                            resolved.to_string() + " (the entry has: " + names + ")");
      resolved /= k;
      node = &(*node)[k];
      continue;
    }
    resolved /= token;
    if (!node->is_object() || !node->contains(token)) return json::json_pointer(metric);  // missing: no number there
    node = &(*node)[token];
  }
  return resolved;
}

const char* check_status_name(CheckStatus s) {
  switch (s) {
    case CheckStatus::pass: return "pass";
    case CheckStatus::fail: return "fail";
    case CheckStatus::informational: return "informational";
    case CheckStatus::not_applicable: return "not applicable";
  }
  return "fail";
}

namespace {

/// Empty when the budget holds at these names, else why not.
std::string outside_holds_for(const Budget& budget, const ModelNames& names) {
  if (budget.holds_for.is_null()) return "";
  std::string wanted, found;
  bool inside = true;
  for (const auto& [name, range] : budget.holds_for.items()) {
    const auto it = names.find(name);
    const bool pair = range.is_array();
    wanted += (wanted.empty() ? "" : ", ") + name + (pair ? " in [" + format_number(range[0].get<double>()) + ", " +
                                                                format_number(range[1].get<double>()) + "]"
                                                          : " = " + format_number(range.get<double>()));
    found += (found.empty() ? "" : ", ") + name + " = " + (it == names.end() ? "?" : format_number(it->second));
    if (it == names.end()) inside = false;
    else if (pair) inside = inside && range[0].get<double>() <= it->second && it->second <= range[1].get<double>();
    else inside = inside && it->second == range.get<double>();
  }
  return inside ? "" : "the budget holds only for " + wanted + "; this run has " + found;
}

}  // namespace

std::vector<GateCheck> check_entry(const json& entry, const std::vector<Budget>& budgets, const json& settings) {
  std::vector<GateCheck> checks;
  const std::string id = entry.value("id", ""), storage = entry.value("storage", "");
  const ModelNames names = model_names(settings, entry);
  for (const Budget& budget : budgets) {
    if (budget.id != id || budget.storage != storage) continue;
    GateCheck check{budget, std::nullopt, std::nullopt, CheckStatus::fail, "", false};
    try {
      const json::json_pointer pointer = resolve_metric(entry, budget.metric);
      if (entry.contains(pointer) && entry[pointer].is_number()) check.measured = entry[pointer].get<double>();
      else check.note = "the report has no number at this metric";
      const std::string outside = outside_holds_for(budget, names);
      if (!outside.empty()) {
        check.status = CheckStatus::not_applicable;
        check.note = "not applicable at these settings: " + outside;
      } else {
        check.limit = budget.model.empty() ? budget.max : evaluate_model(budget.model, names);
        const bool within = check.measured && *check.measured <= *check.limit;
        // An informational budget is one its quantity cannot exceed: a number above it shows the reason wrong.
        const bool above = check.measured && *check.measured > *check.limit;
        if (!budget.informational.empty() && above)
          check.note = "above a budget marked informational: its reason (" + budget.informational + ") does not hold";
        check.status = !budget.informational.empty() && !above ? CheckStatus::informational
                       : within                                ? CheckStatus::pass
                                                               : CheckStatus::fail;
      }
    } catch (const Error& e) {
      check.note = e.what();
      check.status = budget.informational.empty() ? CheckStatus::fail : CheckStatus::informational;
    }
    check.pass = check.status != CheckStatus::fail;
    checks.push_back(std::move(check));
  }
  return checks;
}

std::vector<Budget> budgets_from_checks(const json& entry) {
  std::vector<Budget> budgets;
  if (!entry.contains("gate") || !entry["gate"].contains("checks")) return budgets;
  for (const json& check : entry["gate"]["checks"]) {
    Budget b{entry.at("id").get<std::string>(), entry.at("storage").get<std::string>(),
             check.at("metric").get<std::string>(), 0, check.at("why").get<std::string>()};
    if (check.contains("model")) b.model = check["model"].get<std::string>();
    else if (check.contains("budget") && check["budget"].is_number()) b.max = check["budget"].get<double>();
    b.informational = check.value("informational", "");
    if (check.contains("holds_for")) b.holds_for = check["holds_for"];
    budgets.push_back(std::move(b));
  }
  return budgets;
}

json gate_json(const std::vector<GateCheck>& checks) {
  json list = json::array();
  bool pass = true;
  std::size_t not_applicable = 0, informational = 0;
  for (const GateCheck& c : checks) {
    json item = {{"metric", c.budget.metric},
                 {"budget", c.limit ? json(*c.limit) : json(nullptr)},
                 {"measured", c.measured ? json(*c.measured) : json(nullptr)},
                 {"status", check_status_name(c.status)},
                 {"why", c.budget.why}};
    if (!c.budget.model.empty()) item["model"] = c.budget.model;
    if (!c.budget.informational.empty()) item["informational"] = c.budget.informational;
    if (!c.budget.holds_for.is_null()) item["holds_for"] = c.budget.holds_for;
    if (!c.note.empty()) item["note"] = c.note;
    if (!c.measured) item["measured_null_reason"] = c.note.empty() ? "the report has no number at this metric" : c.note;
    if (!c.limit) item["budget_null_reason"] = c.note;
    list.push_back(item);
    pass = pass && c.pass;
    not_applicable += c.status == CheckStatus::not_applicable ? 1 : 0;
    informational += c.status == CheckStatus::informational ? 1 : 0;
  }
  return {{"status", checks.empty() ? "no budget" : pass ? "pass" : "fail"},
          {"checks", list},
          {"not_applicable", not_applicable},
          {"informational", informational}};
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

namespace {

/// replay's --error for the kept list of the object at `at` (a resolved pointer):
/// /error, /errors/<name> and /decisions/<k>; empty for any other list.
std::string replay_error_at(const json& entry, const json::json_pointer& at) {
  const std::vector<std::string> tokens = tokens_of(at);
  if (tokens == std::vector<std::string>{"error"}) return "error";
  if (tokens.size() == 2 && tokens[0] == "errors") return tokens[1];
  if (tokens.size() == 2 && tokens[0] == "decisions") {
    const json& decision = entry[at];
    if (decision.contains("name") && decision["name"].is_string()) return decision["name"].get<std::string>();
  }
  return "";
}

}  // namespace

KeptInputBehind kept_input_behind(const json& entry, const std::string& metric) {
  json::json_pointer at;
  try {
    at = resolve_metric(entry, metric);  // a decision or row by its name, as the entry numbers it
  } catch (const json::exception&) {
    return {};
  } catch (const Error&) {
    at = json::json_pointer(metric);  // a name the entry does not have: its parents may still hold a list
  }
  const json::json_pointer mismatch_examples("/details/mismatch_examples");
  if (metric == "/mismatches" && entry.contains(mismatch_examples) && entry[mismatch_examples].is_array() &&
      !entry[mismatch_examples].empty())
    return {kept_input_text(entry[mismatch_examples][0]), ""};
  while (!at.empty()) {
    if (entry.contains(at) && entry[at].is_object()) {
      for (const char* list : {"worst", "closest"}) {
        const json& node = entry[at];
        if (node.contains(list) && node[list].is_array() && !node[list].empty())
          return {kept_input_text(node[list][0]), replay_error_at(entry, at)};
      }
    }
    at = at.parent_pointer();
  }
  // A metric outside any statistics (such as /mismatches): the error's worst input.
  const json::json_pointer error_worst("/error/worst");
  if (entry.contains(error_worst) && entry[error_worst].is_array() && !entry[error_worst].empty())
    return {kept_input_text(entry[error_worst][0]), "error"};
  return {};
}

std::string worst_input_text(const json& entry, const std::string& metric) {
  return kept_input_behind(entry, metric).text;
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

void check_report_schema(const json& report) {
  const json* schema = report.is_object() && report.contains("schema") ? &report["schema"] : nullptr;
  if (!schema || !schema->is_string() || schema->get<std::string>() != kReportSchema ||
      !report.contains("calculations") || !report["calculations"].is_array())
    throw Error(ErrorCode::badfile, std::string("not a ") + kReportSchema + " report");
}

const json& settings_of(const json& report) {
  static const json none = json::object();
  return report.contains("settings") && report["settings"].is_object() ? report["settings"] : none;
}

std::string budget_text(const GateCheck& c) {
  if (!c.limit) return "(no budget)";
  return format_number(*c.limit) + (c.budget.model.empty() ? "" : " = " + c.budget.model);
}

std::vector<GateFailure> check_report_entries(const json& report, const std::vector<Budget>& budgets, bool strict) {
  check_report_schema(report);
  std::vector<GateFailure> failures;
  for (const json& entry : report["calculations"]) {
    const std::string id = entry.value("id", "?"), storage = entry.value("storage", "?");
    const std::vector<GateCheck> checks = check_entry(entry, budgets, settings_of(report));
    if (checks.empty()) failures.push_back({id, storage, "no budget", "", ""});
    for (const GateCheck& c : checks) {
      if (c.status == CheckStatus::not_applicable && strict) {
        failures.push_back({id, storage, c.budget.metric + " " + c.note + " (--strict)", "", c.budget.metric});
        continue;
      }
      if (c.pass) continue;
      std::string what;
      if (!c.limit) what = c.note;
      else if (c.measured)
        what = "measured " + format_number(*c.measured) + " > budget " + budget_text(c) +
               (c.note.empty() ? "" : "; " + c.note);
      else what = (c.note.empty() ? std::string("has no number in the report") : c.note) + ", budget " + budget_text(c);
      const KeptInputBehind kept = kept_input_behind(entry, c.budget.metric);
      failures.push_back({id, storage, c.budget.metric + " " + what + " (" + c.budget.why + ")", kept.text,
                          c.budget.metric, kept.replay_error});
    }
  }
  return failures;
}

}  // namespace

std::vector<GateFailure> gate_notes(const json& report, const std::vector<Budget>& budgets) {
  check_report_schema(report);
  std::vector<GateFailure> notes;
  for (const json& entry : report["calculations"]) {
    const std::string id = entry.value("id", "?"), storage = entry.value("storage", "?");
    for (const GateCheck& c : check_entry(entry, budgets, settings_of(report))) {
      if (c.status == CheckStatus::not_applicable) notes.push_back({id, storage, c.budget.metric + " " + c.note, "", c.budget.metric});
      if (c.status == CheckStatus::informational)
        notes.push_back({id, storage,
                         c.budget.metric + " informational, not a gate (" + c.budget.informational + "): measured " +
                             (c.measured ? format_number(*c.measured) : std::string("nothing")) + ", budget " +
                             budget_text(c),
                         "", c.budget.metric});
    }
  }
  return notes;
}

std::vector<GateFailure> check_report(const json& report, const std::vector<Budget>& budgets, bool strict) {
  try {
    return check_report_entries(report, budgets, strict);
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
    listed.push_back({{"id", b.id},
                      {"storage", b.storage},
                      {"metric", b.metric},
                      {"max", b.model.empty() ? json(b.max) : json(b.model)},
                      {"informational", b.informational}});
  return {{"schema", "distgrid-audit-gate/1"},
          {"status", failures.empty() ? "pass" : "fail"},
          {"failures", std::move(failed)},
          {"budgets", std::move(listed)}};
}

}  // namespace distgrid::audit
