#include "distgrid/audit/budget_proposal.hpp"

#include <cmath>
#include <cstdint>
#include <cstdio>

#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {

using nlohmann::json;

namespace {

std::string number_text(double v) {
  char text[40];
  std::snprintf(text, sizeof text, "%.3g", v);
  return text;
}

/// factor x measured rounded up to two significant digits (0 stays 0).
double rounded_up(double v) {
  if (!(v > 0)) return 0;
  const double scale = std::pow(10.0, std::floor(std::log10(v)) - 1);
  return std::ceil(v / scale) * scale;
}

json holds_here(const json& settings) {
  return {{"h", settings.at("h")}, {"band", settings.at("band")}};
}

std::string settings_text(const json& settings) {
  return "h = " + number_text(settings.at("h").get<double>()) + ", band = " + number_text(settings.at("band").get<double>());
}

/// A budget's number: integers as integers.
json number_json(double v) {
  if (v == std::floor(v) && std::fabs(v) < 0x1p53) return static_cast<std::int64_t>(v);
  return v;
}

/// One budget as the two lines the checked-in file uses.
std::string budget_text(const nlohmann::ordered_json& b) {
  std::string head;
  for (const auto& [key, value] : b.items())
    if (key != "why") head += (head.empty() ? "" : ", ") + json(key).dump() + ": " + value.dump();
  return "    {" + head + ",\n     \"why\": " + b.at("why").dump() + "}";
}

}  // namespace

BudgetProposal propose_budgets(const json& report, const std::vector<Budget>& base, double factor) {
  if (!std::isfinite(factor) || factor < 1)
    throw Error(ErrorCode::badarg, "the proposal's factor must be a finite number >= 1");
  if (!report.is_object() || report.value("schema", "") != kReportSchema || !report.contains("calculations") ||
      !report["calculations"].is_array() || !report.contains("settings") || !report["settings"].is_object())
    throw Error(ErrorCode::badfile, std::string("not a ") + kReportSchema + " report with settings");
  const json& settings = report["settings"];
  BudgetProposal out;
  std::vector<std::string> lines;
  const auto from_measured = [&](const std::string& id, const std::string& storage, const std::string& metric,
                                 double measured, const std::string& before) {
    nlohmann::ordered_json b = {{"id", id}, {"storage", storage}, {"metric", metric},
                                {"max", number_json(rounded_up(factor * measured))}};
    if (measured > 0) b["holds_for"] = holds_here(settings);
    b["why"] = measured > 0 ? "measured " + number_text(measured) + " at " + settings_text(settings) + ", x" +
                                  number_text(factor) + " (a measured constant: it holds for these settings only)" +
                                  (before.empty() ? "" : "; " + before)
                            : "measured 0 at " + settings_text(settings) + (before.empty() ? "" : "; " + before);
    lines.push_back(budget_text(b));
    ++out.from_measurement;
  };
  try {
    for (const json& entry : report["calculations"]) {
      const std::string id = entry.at("id"), storage = entry.at("storage");
      const std::vector<GateCheck> checks = check_entry(entry, base, settings);
      for (const GateCheck& c : checks) {
        const Budget& b = c.budget;
        // Kept: what the report meets, and an exact budget (0) that does not
        // apply here (a proposal never loosens an exact one).
        const bool met = c.status == CheckStatus::pass || c.status == CheckStatus::informational ||
                         (c.status == CheckStatus::not_applicable && b.model.empty() && b.max == 0);
        if (met) {
          nlohmann::ordered_json kept = {{"id", b.id}, {"storage", b.storage}, {"metric", b.metric}};
          kept["max"] = b.model.empty() ? nlohmann::ordered_json(number_json(b.max)) : nlohmann::ordered_json(b.model);
          if (!b.holds_for.is_null()) kept["holds_for"] = b.holds_for;
          if (!b.informational.empty()) kept["informational"] = b.informational;
          kept["why"] = b.why;
          lines.push_back(budget_text(kept));
          ++(b.model.empty() ? out.kept_constants : out.kept_models);
          continue;
        }
        if (!c.measured) continue;  // nothing measured: no number to propose from
        const std::string before =
            c.status == CheckStatus::not_applicable
                ? "the base budget " + (b.model.empty() ? number_text(b.max) : b.model) + " does not apply here (" + c.note + ")"
                : "the base budget " + (b.model.empty() ? number_text(b.max) : b.model + " = " + number_text(*c.limit)) +
                      " is missed here: a finding to look into (" + b.why + ")";
        from_measured(id, storage, b.metric, *c.measured, before);
      }
      if (!checks.empty()) continue;
      // An entry the base file does not budget.
      const std::size_t before_count = out.from_measurement;
      if (entry.contains("mismatches") && entry["mismatches"].is_number())
        from_measured(id, storage, "/mismatches", entry["mismatches"].get<double>(), "");
      if (entry.contains("decisions") && entry["decisions"].is_array())
        for (const json& d : entry["decisions"])
          if (d.contains("name") && d.contains("misclassified") && d["misclassified"].is_number())
            from_measured(id, storage, "/decisions/" + d["name"].get<std::string>() + "/misclassified",
                          d["misclassified"].get<double>(), "");
      const json::json_pointer ulps("/error/ulps/max");
      if (entry.contains(ulps) && entry[ulps].is_number())
        from_measured(id, storage, ulps.to_string(), entry[ulps].get<double>(), "");
      out.added += out.from_measurement - before_count;
      out.from_measurement = before_count;
    }
  } catch (const json::exception& e) {
    throw Error(ErrorCode::badfile, std::string("not a valid ") + kReportSchema + " report: " + e.what());
  }
  std::string text = "{\n  \"schema\": \"distgrid-audit-gates/1\",\n  \"note\": " +
                     json("Proposed by distgrid-audit budgets from one report at " + settings_text(settings) +
                          ": error models and constants it meets are kept; the others are x" + number_text(factor) +
                          " its measurement and hold for these settings only. Review every why before adopting it.")
                         .dump() +
                     ",\n  \"budgets\": [\n";
  for (std::size_t n = 0; n < lines.size(); ++n) text += lines[n] + (n + 1 < lines.size() ? ",\n" : "\n");
  text += "  ],\n  \"claims\": []\n}\n";
  out.text = std::move(text);
  return out;
}

}  // namespace distgrid::audit
