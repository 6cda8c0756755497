#include "teeth_section.hpp"

#include <map>
#include <vector>

#include "distgrid/error.hpp"
#include "html.hpp"

namespace distgrid::render::detail {

using nlohmann::json;

json parse_mutants(std::string_view text, const std::string& name) {
  json doc = parse_schema_document(text, name, kMutantsSchema, "scripts/mutants");
  require_array_of_objects(doc, "mutants", name);
  require_array_of_objects(doc, "teeth", name);
  if (const json* h = member(doc, "h"); !h || !h->is_array())
    throw Error(ErrorCode::badfile, name + ": /h is not an array");
  return doc;
}

namespace {

std::vector<std::string> h_values(const json& mutants) {
  std::vector<std::string> hs;
  for (const json& h : array_of(mutants, "h"))
    if (h.is_string()) hs.push_back(h.get<std::string>());
  return hs;
}

std::string budget_name(const json& budget) {
  return text_of(budget, "storage", "?") + " " + text_of(budget, "metric", "?");
}

/// One mutant at one h: caught and by what, escaped, or the baseline failing there.
std::string mutant_cell(const json* at) {
  if (!at) return "<td>not run</td>";
  if (text_of(*at, "baseline") != "pass")
    return "<td><span class=\"badge inconclusive\">baseline fails at this h</span></td>";
  const json* caught = member(*at, "caught");
  if (!caught || !caught->is_boolean() || !caught->get<bool>())
    return "<td><span class=\"badge fail\">escaped</span></td>";
  std::string by;
  if (const json* failed = member(*at, "run_failed"); failed && failed->is_string())
    by = "the audit run failed (" + escape(failed->get<std::string>()) + ")";
  for (const json& b : array_of(*at, "budgets"))
    by += (by.empty() ? "" : ", ") + std::string("<code>") + escape(budget_name(b)) + "</code>";
  for (const json& c : array_of(*at, "claims"))
    if (c.is_string()) by += (by.empty() ? "claim " : ", claim ") + escape(c.get<std::string>());
  return "<td><span class=\"badge pass\">caught</span> " + by + "</td>";
}

/// The storages the run audited: its `storage` list (every storage when it has all five, or when the
/// file predates the member), and those a patch declares.
std::string storages_text(const json& mutants) {
  const json* listed = member(mutants, "storage");
  if (!listed || !listed->is_array() || listed->size() >= 5) return "every storage";
  std::string names;
  for (const json& s : *listed)
    if (s.is_string()) names += (names.empty() ? "" : ", ") + escape(s.get<std::string>());
  return "the storages " + names + " (and those its patch declares)";
}

}  // namespace

std::string teeth_section_html(const json& mutants, const std::string& name) {
  const std::vector<std::string> hs = h_values(mutants);
  std::string out = "<h2 id=\"teeth\">Teeth of the gates</h2>\n";
  const json& list = array_of(mutants, "mutants");
  const json& teeth = array_of(mutants, "teeth");
  std::map<std::string, std::size_t> counts;
  for (const json& row : teeth) ++counts[text_of(row, "status", "?")];
  std::size_t escaped = 0, caught = 0, cells = 0;
  for (const json& m : list)
    for (const std::string& h : hs)
      if (const json* at = member(m, "at"); at && member(*at, h)) {
        const json& cell = (*at)[h];
        if (text_of(cell, "baseline") != "pass") continue;
        ++cells;
        const json* c = member(cell, "caught");
        (c && c->is_boolean() && c->get<bool>() ? caught : escaped) += 1;
      }
  std::string h_text;
  for (const std::string& h : hs) h_text += (h_text.empty() ? "h = " : " and h = ") + escape(h);
  out += "<p>A gate is worth what it catches. <code>scripts/mutants</code> applies each patch of "
         "<code>audit/mutants/</code> (a small, realistic bug in one calculation), rebuilds the audit tool, runs "
         "the quick audit of that calculation at " + storages_text(mutants) + " at " + h_text +
         " and gates it, and runs the calculation's property tests. From <code>" + escape(name) + "</code>: " +
         std::to_string(list.size()) + " mutants; caught in " + std::to_string(caught) + " of " +
         std::to_string(cells) + " runs where the unmodified code passes its gate";
  out += escaped ? ", <span class=\"flag\">escaped in " + std::to_string(escaped) + "</span>.</p>\n" : ".</p>\n";

  out += "<table class=\"mutants\"><tr><th>mutant</th><th>calculation</th>";
  for (const std::string& h : hs) out += "<th>h = " + escape(h) + "</th>";
  out += "<th>properties</th></tr>\n";
  for (const json& m : list) {
    out += "<tr><td><code>" + escape(text_of(m, "mutant", "?")) + "</code></td><td><code>" +
           escape(text_of(m, "id", "?")) + "</code></td>";
    const json* applies = member(m, "applies");
    const json* builds = member(m, "builds");
    if ((applies && applies->is_boolean() && !applies->get<bool>()) ||
        (builds && builds->is_boolean() && !builds->get<bool>())) {
      const bool applied = !(applies && applies->is_boolean() && !applies->get<bool>());
      out += "<td colspan=\"" + std::to_string(hs.size() + 1) + "\"><span class=\"badge fail\">" +
             (applied ? "does not build" : "does not apply") + "</span></td></tr>\n";
      continue;
    }
    const json* at = member(m, "at");
    for (const std::string& h : hs) out += mutant_cell(at ? member(*at, h) : nullptr);
    std::string props = "none cover it";
    if (const json* p = member(m, "properties")) {
      const json* c = member(*p, "caught");
      if (c && c->is_boolean()) {
        props = c->get<bool>() ? "caught" : "not caught";
        std::string tests;
        for (const json& t : array_of(*p, "tests"))
          if (t.is_string()) tests += (tests.empty() ? "" : ", ") + escape(t.get<std::string>());
        if (!tests.empty()) props += " (" + tests + ")";
      }
    }
    out += "<td>" + props + "</td></tr>\n";
  }
  out += "</table>\n";

  out += "<p>Every budget of <code>audit/gates.json</code> with the mutants that trip it where the unmodified code "
         "passes: ";
  std::string summary;
  for (const auto& [status, n] : counts) summary += (summary.empty() ? "" : ", ") + std::to_string(n) + " " + escape(status);
  out += (summary.empty() ? "no budgets listed" : summary) +
         ". A budget no mutant trips is <span class=\"flag\">not shown to have teeth</span>; an informational "
         "budget is shown but does not count as a gate; a budget no bug in code can reach (its quantity is "
         "computed by the references alone) says why.</p>\n";
  out += "<table class=\"teeth\"><tr><th>calculation</th><th>storage</th><th>metric</th>";
  for (const std::string& h : hs) out += "<th>tripped at h = " + escape(h) + "</th>";
  out += "<th>teeth</th></tr>\n";
  for (const json& row : teeth) {
    const std::string status = text_of(row, "status", "?");
    out += "<tr><td><code>" + escape(text_of(row, "id", "?")) + "</code></td><td>" +
           escape(text_of(row, "storage", "?")) + "</td><td><code>" + escape(text_of(row, "metric", "?")) +
           "</code></td>";
    const json* tripped = member(row, "tripped_by");
    for (const std::string& h : hs) {
      std::string names;
      if (tripped)
        for (const json& t : array_of(*tripped, h))
          if (t.is_string()) names += (names.empty() ? "" : ", ") + escape(t.get<std::string>());
      out += "<td>" + (names.empty() ? std::string("&mdash;") : names) + "</td>";
    }
    if (status == "not shown to have teeth")
      out += "<td><span class=\"flag\">not shown to have teeth</span></td>";
    else if (status == "informational") {
      const json* why = member(row, "informational");
      out += "<td>informational" +
             (why && why->is_string() ? std::string(": ") + escape(why->get<std::string>()) : std::string()) +
             "</td>";
    } else if (status == "no mutant can reach it") {
      const json* why = member(row, "no_mutant");
      out += "<td>no mutant can reach it" +
             (why && why->is_string() ? std::string(": ") + escape(why->get<std::string>()) : std::string()) +
             "</td>";
    } else {
      std::string from;
      for (const json& t : array_of(row, "teeth_from"))
        if (t.is_string()) from += (from.empty() ? "" : ", ") + escape(t.get<std::string>());
      out += "<td>" + escape(status) +
             (from.empty() ? std::string() : " (also audited with the mutants of its inputs: " + from + ")") + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</table>\n";
  return out;
}

}  // namespace distgrid::render::detail
