// The three ways a comparison is written: for a terminal, for a pull-request
// comment (Markdown) and for CI dashboards (JUnit XML).
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>

#include "distgrid/reports/compare.hpp"
#include "distgrid/reports/replay_command.hpp"
#include "json_read.hpp"

namespace distgrid::reports {

using nlohmann::json;
using detail::array_of;
using detail::member;
using detail::text_of;

namespace {

/// Rows of the Markdown table at most; the rest are counted.
constexpr std::size_t kMarkdownRows = 40;

std::string value_text(const MetricRow& row, bool base) {
  if (!(base ? row.in_base : row.in_current)) return "-";
  const std::optional<double> v = base ? row.base : row.current;
  if (!v) return "null";
  char text[32];
  std::snprintf(text, sizeof text, row.count ? "%.0f" : "%.3g", *v);
  return text;
}

std::string verdict_text(const VerdictChange& v) {
  const std::string from = v.base.empty() ? "(absent)" : v.base, to = v.current.empty() ? "(absent)" : v.current;
  return v.kind + " " + v.subject + ": " + from + " -> " + to;
}

/// Regressions first, then improvements, each by the size of the change (largest first).
std::vector<const MetricRow*> changed_rows(const Comparison& comparison) {
  std::vector<const MetricRow*> rows;
  for (const MetricRow& r : comparison.rows)
    if (r.change == Change::regressed || r.change == Change::improved) rows.push_back(&r);
  std::stable_sort(rows.begin(), rows.end(), [](const MetricRow* a, const MetricRow* b) {
    if (a->change != b->change) return a->change == Change::regressed;
    return std::fabs(a->delta) > std::fabs(b->delta);
  });
  return rows;
}

std::string counts_text(const Comparison& c) {
  std::string out;
  for (Change change : {Change::regressed, Change::improved, Change::unchanged, Change::appeared, Change::disappeared,
                        Change::changed})
    out += (out.empty() ? "" : ", ") + std::to_string(c.count(change)) + " " + change_name(change);
  return out;
}

std::string tolerance_text(const Comparison& c) {
  double tolerance = 0;
  for (const MetricRow& r : c.rows) tolerance = std::max(tolerance, r.count ? 0.0 : r.tolerance);
  char text[96];
  std::snprintf(text, sizeof text, "tolerance %.3g bits for errors, 0 for exact calculations and counts", tolerance);
  return text;
}

/// "part sphere, generator far #12, x = 0x1p-3, ...: result R, reference F" for a kept input.
std::string kept_text(const json& kept) {
  std::string out;
  if (!text_of(kept, "part").empty()) out += "part " + text_of(kept, "part") + ", ";
  const json* index = member(kept, "index");
  const std::string generator = text_of(kept, "generator");
  out += "generator " + (generator.empty() ? std::string("?") : generator) + " #" + (index ? index->dump() : "?");
  if (const json* input = member(kept, "input"); input && input->is_object())
    for (const auto& [name, value] : input->items())
      out += ", " + name + " = " + (value.is_string() ? value.get<std::string>() : value.dump());
  for (const auto& [first, second] : {std::pair{"result", "reference"}, std::pair{"core", "exact"}})
    if (member(kept, first) && member(kept, second))
      out += std::string(": ") + first + " " + text_of(kept, first) + ", " + second + " " + text_of(kept, second);
  return out;
}

/// The worst (or closest) input behind a row in the current report, and the replay option naming it.
std::pair<const json*, std::string> worst_behind(const json& current, const MetricRow& row) {
  for (const json& entry : array_of(current, "calculations")) {
    if (text_of(entry, "id") != row.id || text_of(entry, "storage") != row.storage) continue;
    if (row.metric.starts_with("decisions/")) {
      const std::string name = row.metric.substr(10, row.metric.rfind('/') - 10);
      for (const json& d : array_of(entry, "decisions"))
        if (text_of(d, "name") == name && !array_of(d, "closest").empty()) return {&array_of(d, "closest")[0], name};
      return {nullptr, ""};
    }
    const std::string block = row.metric.substr(0, row.metric.find('/', row.metric.starts_with("errors/") ? 7 : 0));
    const json* stats = block == "error" ? member(entry, "error") : nullptr;
    if (block.starts_with("errors/"))
      if (const json* separated = member(entry, "errors")) stats = member(*separated, block.substr(7));
    if (stats && !array_of(*stats, "worst").empty())
      return {&array_of(*stats, "worst")[0], block == "error" ? "error" : block.substr(7)};
    return {nullptr, ""};
  }
  return {nullptr, ""};
}

std::string xml_escaped(const std::string& text) {
  std::string out;
  for (char c : text) {
    if (c == '&') out += "&amp;";
    else if (c == '<') out += "&lt;";
    else if (c == '>') out += "&gt;";
    else if (c == '"') out += "&quot;";
    else out += c;
  }
  return out;
}

}  // namespace

std::string comparison_text(const Comparison& c, const OutputNames& names) {
  std::string out = "compare " + names.base + " -> " + names.current + " (" + tolerance_text(c) + ")\n";
  if (!c.unlike.empty()) out += "unlike runs: the settings differ: " + differences_text(c.unlike) + "\n";
  const std::string mark = c.unlike.empty() ? "" : " [unlike runs]";
  char line[512];
  for (const MetricRow& r : c.rows) {
    if (r.change == Change::unchanged) continue;
    std::snprintf(line, sizeof line, "%-11s %-24s %-6s %-34s %10s -> %-10s %s%s\n", change_name(r.change),
                  r.id.c_str(), r.storage.c_str(), r.metric.c_str(), value_text(r, true).c_str(),
                  value_text(r, false).c_str(), delta_text(r).c_str(), mark.c_str());
    out += line;
  }
  for (const VerdictChange& v : c.verdicts) out += std::string(change_name(v.change)) + "  " + verdict_text(v) + mark + "\n";
  out += "compare: " + counts_text(c) + ": " + (c.regressed() ? "regressed" : "no regression") + "\n";
  return out;
}

std::string comparison_markdown(const Comparison& c, const json& current, const OutputNames& names) {
  const std::size_t regressed = c.count(Change::regressed), improved = c.count(Change::improved);
  std::string out = "### distgrid-audit compare: " + std::string(regressed ? "**regressed**" : "no regression") + "\n\n";
  out += std::to_string(regressed) + " regressed, " + std::to_string(improved) + " improved, " +
         std::to_string(c.count(Change::unchanged)) + " unchanged (" + tolerance_text(c) + "); `" + names.current +
         "` (revision " + report_revision(current) + ") against `" + names.base + "`.\n\n";
  if (!c.unlike.empty())
    out += "> **Unlike runs:** the settings differ (" + differences_text(c.unlike) +
           "); every row compares unlike runs.\n\n";
  const std::vector<const MetricRow*> rows = changed_rows(c);
  if (!rows.empty()) {
    out += "| change | calculation | storage | metric | base | new | change |\n|---|---|---|---|---:|---:|---:|\n";
    for (std::size_t n = 0; n < rows.size() && n < kMarkdownRows; ++n) {
      const MetricRow& r = *rows[n];
      out += std::string("| ") + change_name(r.change) + " | `" + r.id + "` | " + r.storage + " | `" + r.metric +
             "` | " + value_text(r, true) + " | " + value_text(r, false) + " | " + delta_text(r) + " |\n";
    }
    if (rows.size() > kMarkdownRows)
      out += "\nand " + std::to_string(rows.size() - kMarkdownRows) + " more (`distgrid-audit compare` lists all).\n";
    out += "\n";
  }
  std::string other;
  for (const MetricRow& r : c.rows)
    if (r.change == Change::appeared || r.change == Change::disappeared)
      other += std::string("- ") + change_name(r.change) + ": `" + r.id + "` " + r.storage + " `" + r.metric + "`\n";
  for (const VerdictChange& v : c.verdicts) other += std::string("- ") + change_name(v.change) + ": " + verdict_text(v) + "\n";
  if (!other.empty()) out += "Other changes:\n\n" + other + "\n";
  std::string worst;
  std::map<std::string, bool> listed;
  for (const MetricRow* r : rows) {
    if (r->change != Change::regressed) continue;
    const auto [kept, quantity] = worst_behind(current, *r);
    const std::string key = r->id + " " + r->storage + " " + quantity;
    if (!kept || listed[key]) continue;
    listed[key] = true;
    worst += "- `" + r->id + "` " + r->storage + " (" + quantity + "): " + kept_text(*kept) + "\n  replay: `" +
             replay_command({names.current, r->id, r->storage, 1, quantity}) + "`\n";
  }
  if (!worst.empty()) out += "Worst inputs of the regressions in the new report:\n\n" + worst;
  return out;
}

std::string comparison_junit(const Comparison& c) {
  // Testcases in order of first appearance: calculations and storages, claims, then the report's own verdicts.
  std::vector<std::string> cases;
  std::map<std::string, std::string> failures, skipped;
  const auto note = [&](const std::string& name, std::map<std::string, std::string>* into, const std::string& what) {
    if (std::find(cases.begin(), cases.end(), name) == cases.end()) cases.push_back(name);
    if (into) (*into)[name] += ((*into)[name].empty() ? "" : "; ") + what;
  };
  const std::string unlike = c.unlike.empty() ? "" : " (unlike runs: " + differences_text(c.unlike) + ")";
  for (const MetricRow& r : c.rows)
    note(r.id + " " + r.storage, r.change == Change::regressed ? &failures : nullptr,
         r.metric + " " + delta_text(r) + " (" + value_text(r, true) + " -> " + value_text(r, false) + ")");
  for (const VerdictChange& v : c.verdicts) {
    const std::string name = v.kind == "claim" ? "claim " + v.subject
                             : v.kind == "float or double" || v.kind == "report gate" ? std::string("report verdicts")
                                                                                      : v.subject;
    note(name, v.change == Change::regressed ? &failures : v.change == Change::disappeared ? &skipped : nullptr,
         verdict_text(v));
  }
  std::string body;
  for (const std::string& name : cases) {
    body += "  <testcase classname=\"distgrid-audit.compare\" name=\"" + xml_escaped(name) + "\"";
    if (failures.count(name))
      body += ">\n    <failure message=\"" + xml_escaped(failures[name] + unlike) + "\" type=\"regression\"/>\n  </testcase>\n";
    else if (skipped.count(name))
      body += ">\n    <skipped message=\"" + xml_escaped(skipped[name]) + "\"/>\n  </testcase>\n";
    else body += "/>\n";
  }
  return "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<testsuites>\n<testsuite name=\"distgrid-audit compare\" tests=\"" +
         std::to_string(cases.size()) + "\" failures=\"" + std::to_string(failures.size()) + "\" skipped=\"" +
         std::to_string(skipped.size()) + "\" errors=\"0\">\n" + body + "</testsuite>\n</testsuites>\n";
}

}  // namespace distgrid::reports
