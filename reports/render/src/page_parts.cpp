#include "page_parts.hpp"

#include "distgrid/reports/confidence_headline.hpp"
#include "html.hpp"
#include "page_style.hpp"

namespace distgrid::render::detail {

using nlohmann::json;

std::string page_start(const std::string& title) {
  return "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
         "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n<title>" +
         escape(title) + "</title>\n<style>" + kPageStyle + "</style>\n</head>\n<body>\n<main>\n";
}

std::string gate_banner(const json& report, const std::string& subject, const std::string& more) {
  const reports::GateSummary gate = reports::gate_summary(report);
  const std::string status = gate.status == "pass" || gate.status == "fail" ? gate.status : "unknown";
  std::string text;
  if (status == "pass") text = "Gates passed";
  else if (status == "fail") text = "Gates failed";
  else text = "Gate status not recorded";
  text += ": " + std::to_string(gate.shortfalls) + " shortfall" + (gate.shortfalls == 1 ? "" : "s") + " in " +
          std::to_string(gate.entries) + " calculation entr" + (gate.entries == 1 ? "y" : "ies") + " of " +
          escape(subject) + ".";
  if (status == "fail" && gate.shortfalls == 0)
    text += " <span class=\"sub\">No budget fell short: a claim the gates record as verified is not verified "
            "(see the claims).</span>";
  return "<div class=\"banner " + status + "\" id=\"gate-banner\">" + text + more + "</div>\n";
}

BaselineChanges::BaselineChanges(const json& baseline, const json& report, std::string baseline_name)
    : active_(true), name_(std::move(baseline_name)), revision_(reports::report_revision(baseline)) {
  reports::CompareOptions options;
  options.allow_different_settings = true;
  comparison_ = reports::compare_reports(baseline, report, options);
  for (std::size_t n = 0; n < comparison_.rows.size(); ++n) {
    const reports::MetricRow& row = comparison_.rows[n];
    rows_[row.id + " " + row.storage + " " + row.metric] = n;
  }
}

std::string BaselineChanges::note(const json& entry, std::string_view metric) const {
  if (!active_) return "";
  const auto at = rows_.find(text_of(entry, "id") + " " + text_of(entry, "storage") + " " + std::string(metric));
  if (at == rows_.end()) return "";
  const reports::MetricRow& row = comparison_.rows[at->second];
  const std::string base = !row.in_base ? "absent" : row.base ? number_text(*row.base, 3) : "null";
  return " <span class=\"change " + std::string(reports::change_name(row.change)) + "\" title=\"baseline " +
         escape(base) + "\">" + escape(row.change == reports::Change::unchanged ? "=" : reports::delta_text(row)) +
         "</span>";
}

std::string BaselineChanges::note_for_pointer(const json& entry, const std::string& pointer) const {
  if (!active_ || pointer.empty() || pointer.front() != '/') return "";
  std::string metric = pointer.substr(1);
  // Decisions are compared by name: /decisions/<index>/... becomes decisions/<name>/...
  if (metric.starts_with("decisions/")) {
    const std::string::size_type slash = metric.find('/', 10);
    const std::string token = metric.substr(10, slash - 10);
    const json& decisions = array_of(entry, "decisions");
    if (!token.empty() && token.size() < 10 && token.find_first_not_of("0123456789") == std::string::npos &&
        std::stoul(token) < decisions.size())
      metric = "decisions/" + text_of(decisions[std::stoul(token)], "name") +
               (slash == std::string::npos ? "" : metric.substr(slash));
  }
  return note(entry, metric);
}

std::string BaselineChanges::summary() const {
  if (!active_) return "";
  std::string out = " <span class=\"sub\">Against the baseline " + escape(name_) + " (revision <code>" +
                    escape(revision_) + "</code>): " + std::to_string(comparison_.count(reports::Change::regressed)) +
                    " regressed, " + std::to_string(comparison_.count(reports::Change::improved)) + " improved, " +
                    std::to_string(comparison_.count(reports::Change::unchanged)) +
                    " unchanged; each figure shows its change in bits (a count's in inputs) beside it.";
  if (!comparison_.unlike.empty())
    out += " The runs are unlike: " + escape(reports::differences_text(comparison_.unlike)) + ".";
  return out + "</span>";
}

std::string confidence_cell(const json& entry) {
  const std::optional<reports::ConfidenceHeadline> h = reports::confidence_headline(entry);
  if (!h) return "&mdash;";
  return escape(reports::percent_text(h->share)) + " <span class=\"meta\">&ge; " +
         escape(reports::percent_text(h->lower_bound)) + "</span>";
}

std::string confidence_table(const json& entry) {
  const json* confidence = member(entry, "confidence");
  if (!confidence) return "";
  const json& budgets = array_of(*confidence, "budgets");
  if (budgets.empty())
    return member(*confidence, "null_reason")
               ? "<p class=\"meta\">Inputs within budget: " + escape(text_of(*confidence, "null_reason")) + ".</p>\n"
               : "";
  const std::string level = reports::percent_text(number_of(*confidence, "level").value_or(0));
  std::string out = "<table class=\"confidence\"><tr><th>budget</th><th>input generator</th><th>inputs</th><th>within "
                    "budget</th><th>share</th><th>lower bound (" +
                    escape(level) + " confidence)</th></tr>";
  for (const json& b : budgets) {
    const auto row = [&](const json& r, const std::string& first, const std::string& name) {
      return "<tr><td>" + first + "</td><td>" + name + "</td><td class=\"num\">" + number_or(r, "count", "?", 12) +
             "</td><td class=\"num\">" + number_or(r, "within", "?", 12) + "</td><td class=\"num\">" +
             escape(reports::percent_text(number_of(r, "share").value_or(-1))) + "</td><td class=\"num\">" +
             escape(reports::percent_text(number_of(r, "lower_bound").value_or(-1))) + "</td></tr>";
    };
    out += row(b, "<code>" + escape(text_of(b, "metric")) + "</code> &le; " + number_or(b, "budget", "?"), "all");
    for (const json& g : array_of(b, "generators")) out += row(g, "", "<code>" + escape(text_of(g, "name")) + "</code>");
  }
  return out + "</table>\n<p class=\"meta\">Inputs within budget: the " + escape(text_of(*confidence, "method")) +
         ".</p>\n";
}

}  // namespace distgrid::render::detail
