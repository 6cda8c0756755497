#include "coverage_section.hpp"

#include <cmath>
#include <cstdio>

#include "distgrid/error.hpp"
#include "html.hpp"

namespace distgrid::render::detail {

using nlohmann::json;

json parse_coverage(std::string_view text, const std::string& name) {
  json doc = parse_schema_document(text, name, kCoverageSchema, "scripts/coverage");
  require_array_of_objects(doc, "calculations", name);
  const json* targets = member(doc, "targets");
  if (!targets || !targets->is_object() || !number_of(*targets, "lines_percent") ||
      !number_of(*targets, "branches_percent"))
    throw Error(ErrorCode::badfile, name + ": /targets needs lines_percent and branches_percent");
  return doc;
}

namespace {

/// "12 of 13 (92.3 %)" for an object {done_key, total}, flagged below `target` percent; "&mdash;" when it has no total.
std::string share(const json* counts, std::string_view done_key, double target) {
  if (!counts) return "&mdash;";
  const auto done = number_of(*counts, done_key);
  const auto total = number_of(*counts, "total");
  if (!done || !total) return "&mdash;";
  if (*total == 0) return "none";
  const double percent = 100.0 * *done / *total;
  // One decimal, rounded down, so a share under the target never prints as the target.
  char rounded[32];
  std::snprintf(rounded, sizeof rounded, "%.1f", std::floor(percent * 10) / 10);
  std::string text = number_text(*done, 9) + " of " + number_text(*total, 9) + " (" + rounded + " %)";
  if (percent < target) return "<span class=\"flag\">" + text + "</span>";
  return text;
}

std::string line_list(const json& source, std::string_view key) {
  std::string out;
  std::size_t shown = 0;
  const json& lines = array_of(source, key);
  for (const json& line : lines) {
    if (!line.is_number_integer()) continue;
    if (++shown > 12) {
      out += ", &hellip; (" + std::to_string(lines.size()) + " in all)";
      break;
    }
    out += (out.empty() ? "" : ", ") + std::to_string(line.get<long long>());
  }
  return out;
}

}  // namespace

std::string coverage_section_html(const json& coverage, const std::string& name) {
  const json& targets = coverage["targets"];
  const double line_target = *number_of(targets, "lines_percent");
  const double branch_target = *number_of(targets, "branches_percent");
  const json& calculations = array_of(coverage, "calculations");
  std::size_t functions = 0, meeting = 0, explained = 0;
  for (const json& c : calculations)
    for (const json& s : array_of(c, "source")) {
      ++functions;
      if (const json* m = member(s, "meets_targets"); m && m->is_boolean() && m->get<bool>()) ++meeting;
      else if (!member(s, "problem") && !text_of(s, "unreached_because", "").empty()) ++explained;
    }
  std::string h_text;
  if (const json* settings = member(coverage, "settings"))
    for (const json& h : array_of(*settings, "h"))
      if (h.is_string()) h_text += (h_text.empty() ? "h = " : " and h = ") + escape(h.get<std::string>());

  std::string out = "<h2 id=\"coverage\">Code the inputs reach</h2>\n";
  out += "<p>An audit proves nothing about code its inputs never run. <code>scripts/coverage</code> builds the audit "
         "tool with gcov counters, runs each calculation's quick audit alone" +
         (h_text.empty() ? std::string() : " at " + h_text) +
         " and counts, in every function the calculation cites, the lines executed and the branch outcomes taken "
         "(an outcome counts when any instance of a template took it; the edges of a call that could throw are not "
         "counted). Input validation (a statement that throws or calls <code>fail</code>, and the <code>if</code> "
         "guarding it) is only reached by malformed input, which the hardening tests feed; its lines are listed apart "
         "and not judged. Targets: " + number_text(line_target, 3) + " % of lines and " + number_text(branch_target, 3) +
         " % of branch outcomes. From <code>" + escape(name) + "</code>: " + std::to_string(meeting) + " of " +
         std::to_string(functions) + " cited functions meet both";
  if (explained > 0)
    out += "; " + std::to_string(explained) + " miss them where the registry says why no input can reach the rest";
  const std::size_t unexplained = functions - meeting - explained;
  out += unexplained > 0 ? "; <span class=\"flag\">" + std::to_string(unexplained) +
                               " miss them without a reason</span>.</p>\n"
                         : ".</p>\n";
  out += "<table class=\"coverage\"><tr><th>calculation</th><th>function</th><th>file</th><th>lines executed</th>"
         "<th>branch outcomes taken</th><th>lines never executed</th><th>lines with an outcome never taken</th>"
         "<th>input validation lines</th><th>why the inputs cannot reach the rest (registry)</th></tr>\n";
  for (const json& c : calculations) {
    const std::string id = text_of(c, "id", "?");
    if (const json* problem = member(c, "problem"); problem && problem->is_string()) {
      out += "<tr><td><code>" + escape(id) + "</code></td><td colspan=\"8\"><span class=\"flag\">not measured: " +
             escape(problem->get<std::string>()) + "</span></td></tr>\n";
      continue;
    }
    for (const json& s : array_of(c, "source")) {
      out += "<tr><td><code>" + escape(id) + "</code></td><td><code>" + escape(text_of(s, "function", "?")) +
             "</code></td><td><code>" + escape(text_of(s, "file", "?")) + "</code></td>";
      if (const json* problem = member(s, "problem"); problem && problem->is_string()) {
        out += "<td colspan=\"6\"><span class=\"flag\">not measured: " + escape(problem->get<std::string>()) +
               "</span></td></tr>\n";
        continue;
      }
      out += "<td>" + share(member(s, "lines"), "executed", line_target) + "</td><td>" +
             share(member(s, "branches"), "taken", branch_target) + "</td><td>" + line_list(s, "unexecuted_lines") +
             "</td><td>" + line_list(s, "untaken_branch_lines") + "</td><td>" + line_list(s, "validation_lines") +
             "</td><td>" + escape(text_of(s, "unreached_because", "")) + "</td></tr>\n";
    }
  }
  out += "</table>\n";
  return out;
}

}  // namespace distgrid::render::detail
