#include "distgrid/render/policy_page.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <set>
#include <utility>
#include <vector>

#include "distgrid/error.hpp"
#include "distgrid/json_text.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/reports/replay_command.hpp"
#include "html.hpp"
#include "page_parts.hpp"
#include "source_code.hpp"
#include "svg_chart.hpp"
#include "coverage_section.hpp"
#include "teeth_section.hpp"

namespace distgrid::render {

using nlohmann::json;
using namespace detail;

namespace {

/// Top-level sections a complete report holds, with what each gives the page.
struct Section {
  const char* key;
  const char* what;
};
constexpr Section kSections[] = {
    {"calculations", "the audited calculations"},
    {"claims", "the policy's claims with their verdicts"},
    {"comparison", "the storage comparison, the open item's verdict and the smallest safe storage"},
    {"refinement", "the volume error against h"},
};

/// The error kinds of an entry, in page order, with the words the page uses.
struct ErrorKind {
  const char* name;
  const char* label;
};
constexpr ErrorKind kErrorKinds[] = {
    {"error", "total (arithmetic + storage)"},
    {"arithmetic", "arithmetic"},
    {"storage", "storage"},
    {"method", "method"},
};
constexpr const char* kUnits[] = {"h", "relative", "ulps", "bits"};
constexpr const char* kStatistics[] = {"max", "mean", "rms", "p99"};

/// The entry's statistics of one error kind, or nullptr.
const json* stats_of(const json& entry, std::string_view kind) {
  if (kind == "error") return member(entry, "error");
  const json* separated = member(entry, "errors");
  return separated ? member(*separated, kind) : nullptr;
}

/// The unit a quantity is best read in: h for distances, relative for volumes, else ulps.
std::string primary_unit(const json& stats) {
  for (const char* unit : {"h", "relative", "ulps"})
    if (member(stats, unit)) return unit;
  return "ulps";
}

std::string badge(const std::string& text, const std::string& kind) {
  return "<span class=\"badge " + anchor(kind) + "\">" + escape(text) + "</span>";
}

std::string file_name_only(const std::string& path) {
  const std::string::size_type slash = path.find_last_of('/');
  return slash == std::string::npos ? path : path.substr(slash + 1);
}

/// Calculation entries grouped by id, in the report's order.
struct CalculationGroup {
  std::string id;
  std::vector<const json*> entries;  ///< one per storage
};

/// Groups by the file of each calculation's first source entry, in order of appearance.
struct FileGroup {
  std::string file;
  std::vector<CalculationGroup> calculations;
};

std::vector<FileGroup> group_by_file(const json& report) {
  std::vector<FileGroup> files;
  for (const json& entry : array_of(report, "calculations")) {
    const std::string id = text_of(entry, "id", "(no id)");
    const json& sources = array_of(entry, "source");
    const std::string file = sources.empty() ? "(no source file)" : text_of(sources.front(), "file", "(no source file)");
    CalculationGroup* found = nullptr;
    for (FileGroup& f : files)
      for (CalculationGroup& c : f.calculations)
        if (c.id == id) found = &c;
    if (found) {
      found->entries.push_back(&entry);
      continue;
    }
    auto it = std::find_if(files.begin(), files.end(), [&](const FileGroup& f) { return f.file == file; });
    if (it == files.end()) it = files.insert(files.end(), FileGroup{file, {}});
    it->calculations.push_back({id, {&entry}});
  }
  return files;
}

bool is_finding(const json& entry) {
  const std::string measured = text_of(entry, "measured");
  return !measured.empty() && measured != text_of(entry, "declared");
}

/// Precision classes from most to least precise; -1 for an unknown name.
int precision_rank(const std::string& name) {
  constexpr const char* kOrder[] = {"exact", "64-bit", "32-bit in part", "16-bit in part", "8-bit in part", "inexact"};
  for (int n = 0; n < 6; ++n)
    if (name == kOrder[n]) return n;
  return -1;
}

/// "more precise" or "less precise" than declared, for a finding.
std::string finding_direction(const json& entry) {
  const int measured = precision_rank(text_of(entry, "measured")), declared = precision_rank(text_of(entry, "declared"));
  if (measured < 0 || declared < 0) return "differs from the declared class";
  return measured < declared ? "more precise than declared" : "less precise than declared";
}

/// The text as a sentence: trimmed, ending in a full stop.
std::string sentence(std::string text) {
  while (!text.empty() && (text.back() == ' ' || text.back() == '\n')) text.pop_back();
  if (!text.empty() && text.back() != '.' && text.back() != '?' && text.back() != '!') text += '.';
  return text;
}

/// Columns of a generic table: naming keys first, the rest in the object's (sorted) order.
std::vector<std::string> table_columns(const json& rows) {
  std::vector<std::string> columns;
  for (const char* first : {"id", "name", "part", "generator", "quantity", "h"})
    for (const json& row : rows)
      if (row.contains(first)) {
        columns.emplace_back(first);
        break;
      }
  for (const json& row : rows)
    for (const auto& [key, _] : row.items())
      if (std::find(columns.begin(), columns.end(), key) == columns.end()) columns.push_back(key);
  return columns;
}

/// A generic, read-only view of free-form JSON (details tables, claim numbers):
/// arrays of objects become tables, objects definition lists.
std::string generic_html(const json& value, int depth = 0) {
  if (value.is_null()) return "null";
  if (value.is_string()) return escape(value.get<std::string>());
  if (value.is_number_float()) return number_text(value.get<double>(), 4);
  if (value.is_primitive()) return escape(value.dump());
  if (depth >= 3) return "<code>" + escape(value.dump()) + "</code>";
  if (value.is_array()) {
    const bool rows = !value.empty() && std::all_of(value.begin(), value.end(), [](const json& v) { return v.is_object(); });
    if (!rows) {
      std::string out;
      for (const json& v : value) out += (out.empty() ? "" : ", ") + generic_html(v, depth + 1);
      return value.empty() ? "(none)" : out;
    }
    const std::vector<std::string> columns = table_columns(value);
    std::string out = "<table><tr>";
    for (const std::string& c : columns) out += "<th>" + escape(c) + "</th>";
    out += "</tr>";
    for (const json& row : value) {
      out += "<tr>";
      for (const std::string& c : columns) {
        const auto it = row.find(c);
        const bool numeric = it != row.end() && it->is_number();
        out += numeric ? "<td class=\"num\">" : "<td>";
        out += it == row.end() ? "" : generic_html(*it, depth + 1);
        out += "</td>";
      }
      out += "</tr>";
    }
    return out + "</table>";
  }
  std::string out = "<dl class=\"kv\">";
  for (const auto& [key, item] : value.items())
    out += "<dt>" + escape(key) + "</dt><dd>" + generic_html(item, depth + 1) + "</dd>";
  return out + "</dl>";
}

/// An empty array, for a list the report does not have.
const json& no_items() {
  static const json empty = json::array();
  return empty;
}

/// A check's error model under its value, when the budget is one.
std::string model_of(const json& check) {
  const std::string model = text_of(check, "model");
  return model.empty() ? "" : "<br><code>" + escape(model) + "</code>";
}

/// Why a check is informational or not applicable, ahead of its budget's why.
std::string status_reason(const json& check) {
  const std::string informational = text_of(check, "informational");
  if (!informational.empty()) return "<em>Not a gate: " + escape(informational) + ".</em> ";
  if (text_of(check, "status") == "not applicable") return "<em>" + escape(text_of(check, "note")) + ".</em> ";
  return "";
}

/// The gate's budget for a metric of an entry, e.g. "/error/h/max".
std::optional<double> budget_for(const json& entry, std::string_view metric) {
  const json* gate = member(entry, "gate");
  if (!gate) return std::nullopt;
  for (const json& check : array_of(*gate, "checks"))
    if (text_of(check, "metric") == metric) return number_of(check, "budget");
  return std::nullopt;
}

class PageWriter {
 public:
  PageWriter(const json& report, const PageOptions& options)
      : report_(report), options_(options), sources_(options.source_dir), files_(group_by_file(report)) {
    if (options.baseline) changes_ = BaselineChanges(*options.baseline, report, options.baseline_name);
  }

  std::string write() {
    html_ += page_start("distgrid: numerical accuracy policy");
    header();
    html_ += gate_banner(report_, "this report", changes_.summary());
    missing_notes();
    contents();
    precision_kept();
    open_item();
    calculations_summary();
    for (const FileGroup& f : files_) file_section(f);
    claims();
    if (options_.mutants) html_ += teeth_section_html(*options_.mutants, options_.mutants_name);
    if (options_.coverage) html_ += coverage_section_html(*options_.coverage, options_.coverage_name);
    comparison();
    refinement();
    in_detail();
    build();
    html_ += "<footer><p>Rendered by distgrid-audit render from " + escape(options_.report_name) +
             ", which is embedded below as JSON (element id \"report\") for reuse.</p></footer>\n";
    html_ += "<script type=\"application/json\" id=\"report\">" + script_safe_json(report_) + "</script>\n";
    html_ += "</main>\n</body>\n</html>\n";
    return std::move(html_);
  }

 private:
  const json& report_;
  const PageOptions& options_;
  SourceReader sources_;
  std::vector<FileGroup> files_;
  BaselineChanges changes_;
  std::string html_;

  const json& settings() const {
    static const json empty = json::object();
    const json* s = member(report_, "settings");
    return s ? *s : empty;
  }

  void not_in_report(const std::string& what) {
    html_ += "<p class=\"missing\">Not in this report: " + escape(what) + ".</p>\n";
  }

  void header() {
    const json* tool = member(report_, "tool");
    const json* build_info = member(report_, "build");
    html_ += "<p class=\"meta\">distgrid &middot; numerical accuracy &middot; calculation policy</p>\n";
    html_ += "<h1>How precise the distance grid is</h1>\n";
    html_ += "<p class=\"lead\">distgrid keeps a shape as signed distances at the nodes of a sparse lattice of "
             "8&times;8&times;8-node bricks, baked from a formula or a closed triangle mesh, and reads values, "
             "gradients, the enclosed volume and a contour mesh back from it. This page states how precise each "
             "of those numbers is, and every statement carries the measurement behind it.</p>\n";
    const json& s = settings();
    std::string storages;
    for (const json& st : array_of(s, "storage")) storages += (storages.empty() ? "" : ", ") + generic_html(st);
    std::string parts;
    const auto add_part = [&](const std::string& name, const std::string& from) {
      parts += (parts.empty() ? "" : ", ") + escape(name) + (from.empty() ? "" : " (" + escape(from) + ")");
    };
    // The parts really audited: default formula parts, spec files, built-in meshes and mesh files.
    for (const json& p : array_of(s, "parts"))
      if (p.is_string()) add_part(p.get<std::string>(), "");
    for (const json& p : array_of(s, "spec_parts")) add_part(text_of(p, "name", "?"), "spec " + text_of(p, "file", "?"));
    for (const json& p : array_of(s, "mesh_parts"))
      if (p.is_string()) add_part(p.get<std::string>(), "built-in mesh");
    for (const json& p : array_of(s, "mesh_files"))
      if (p.is_string()) add_part(std::filesystem::path(p.get<std::string>()).stem().string(), "mesh " + p.get<std::string>());
    html_ += "<p class=\"meta\">Measured by " + escape(tool ? text_of(*tool, "name", "distgrid-audit") : "distgrid-audit") +
             " " + escape(tool ? text_of(*tool, "version", "?") : "?") + " at revision <code>" +
             escape(build_info ? text_of(*build_info, "git_revision", "unknown") : "unknown") +
             "</code> &middot; storage " + (storages.empty() ? "not stated" : storages) + " &middot; parts " +
             (parts.empty() ? "not stated" : parts) + " &middot; h = " + number_or(s, "h", "?", 6) + " (<code>" +
             escape(text_of(s, "h_hex", "?")) + "</code>) &middot; band " + number_or(s, "band", "?") +
             " voxels &middot; seed " + number_or(s, "seed", "?") + " &middot; " +
             number_or(s, "inputs_per_generator_and_part", "?") + " inputs per generator and part &middot; run " +
             number_or(report_, "run_seconds", "?") + " s</p>\n";
  }

  void missing_notes() {
    std::vector<std::string> notes;
    if (const json* shard = member(report_, "shard"))
      notes.push_back("This is shard " + number_or(*shard, "index", "?") + " of " + number_or(*shard, "count", "?") +
                      " of an audit: it holds only the calculations dealt to that shard, whole "
                      "('distgrid-audit merge' joins the shards into the full report).");
    std::vector<std::string> left_out;
    for (const json& name : array_of(report_, "sections_missing"))
      if (name.is_string()) left_out.push_back(name.get<std::string>());
    const auto run_left_out = [&](std::string_view key) {
      return std::find(left_out.begin(), left_out.end(), key) != left_out.end();
    };
    for (const Section& section : kSections)
      if (!member(report_, section.key) || (std::string_view(section.key) == "calculations" &&
                                             array_of(report_, "calculations").empty()))
        notes.push_back(std::string("Not in this report: ") + section.what + " (\"" + section.key + "\")" +
                        (run_left_out(section.key) ? ": the run left it out." : "."));
    for (const std::string& name : left_out)
      if (std::none_of(std::begin(kSections), std::end(kSections), [&](const Section& s) { return name == s.key; }))
        notes.push_back("The run left out \"" + name + "\".");
    if (notes.empty()) return;
    html_ += "<div class=\"missing\" id=\"missing\"><strong>This report is partial; the page shows what it has.</strong><ul>";
    for (const std::string& n : notes) html_ += "<li>" + escape(n) + "</li>";
    html_ += "</ul></div>\n";
  }

  void contents() {
    html_ += "<nav class=\"toc\"><strong>Contents</strong><ol>"
             "<li><a href=\"#precision\">How precision is kept</a></li>"
             "<li><a href=\"#open-item\">Open item</a></li>"
             "<li><a href=\"#calculations\">Calculations the policy covers</a></li>";
    for (const FileGroup& f : files_)
      html_ += "<li><a href=\"#file-" + anchor(f.file) + "\"><code>" + escape(f.file) + "</code></a></li>";
    html_ += "<li><a href=\"#claims\">Claims</a></li>";
    if (options_.mutants) html_ += "<li><a href=\"#teeth\">Teeth of the gates</a></li>";
    if (options_.coverage) html_ += "<li><a href=\"#coverage\">Code the inputs reach</a></li>";
    html_ += "<li><a href=\"#comparison\">Float, double and narrower bricks</a></li>"
             "<li><a href=\"#refinement\">Volume error against h</a></li><li><a href=\"#in-detail\">In detail</a></li>"
             "<li><a href=\"#build\">Build</a></li></ol></nav>\n";
  }

  /// The largest value of a statistic over all entries of a storage, with the id holding it.
  std::pair<std::optional<double>, std::string> largest(const std::string& storage, std::string_view kind,
                                                        std::string_view unit) const {
    std::optional<double> best;
    std::string id;
    for (const json& entry : array_of(report_, "calculations")) {
      if (text_of(entry, "storage") != storage) continue;
      const json* stats = stats_of(entry, kind);
      const json* summary = stats ? member(*stats, unit) : nullptr;
      const std::optional<double> max = summary ? number_of(*summary, "max") : std::nullopt;
      if (max && (!best || *max > *best)) {
        best = max;
        id = text_of(entry, "id");
      }
    }
    return {best, id};
  }

  void precision_kept() {
    html_ += "<h2 id=\"precision\">How precision is kept</h2>\n";
    html_ += "<p>Every formula runs in 64-bit (<code>double</code>) arithmetic. Only the node values of a brick "
             "(and the values of a density map) are kept in the storage type, <code>float</code> or "
             "<code>double</code>, after being clamped to &plusmn;band&times;h, and whatever the grid hands back "
             "&mdash; a sample, a gradient, the volume, a contour mesh or an exported file &mdash; is computed from "
             "those stored values. "
             "The audit therefore measures three errors apart: the rounding of the 64-bit formula "
             "(arithmetic), what the brick type costs (storage) and the discretisation by h (method).</p>\n";
    const std::optional<double> band = number_of(settings(), "band");
    html_ += "<table><tr><th>storage</th><th>rounding bound of a stored value</th><th>largest storage error "
             "measured</th><th>largest arithmetic error measured</th><th>largest method error measured</th></tr>";
    for (const json& st : array_of(settings(), "storage")) {
      if (!st.is_string()) continue;
      const std::string storage = st.get<std::string>();
      // A value of magnitude at most band*h rounds by at most half an ulp of band*h: 2^-24 (float), 2^-53
      // (double), 2^-11 (half, above its subnormals) of it; a linear code by half its brick's step, at most
      // band*h / C for the largest code C.
      const auto [unit_roundoff, factor] =
          storage == "float" ? std::pair{std::ldexp(1.0, -24), std::string("2<sup>-24</sup>")}
          : storage == "half" ? std::pair{std::ldexp(1.0, -11), std::string("2<sup>-11</sup>, above binary16's subnormals")}
          : storage == "q16"  ? std::pair{1.0 / 65535, std::string("1/65535")}
          : storage == "q8"   ? std::pair{1.0 / 255, std::string("1/255")}
                              : std::pair{std::ldexp(1.0, -53), std::string("2<sup>-53</sup>")};
      const std::string bound = band ? number_text(*band * unit_roundoff) + " h (band &times; " + factor + ")"
                                     : "band not stated";
      const auto cell = [&](std::string_view kind) {
        const auto [value, id] = largest(storage, kind, "h");
        if (!value) return std::string("&mdash;");
        const json entry = {{"id", id}, {"storage", storage}};
        return number_text(*value) + " h" + changes_.note(entry, "errors/" + std::string(kind) + "/h/max") +
               " <span class=\"meta\">(" + escape(id) + ")</span>";
      };
      html_ += "<tr><td>" + escape(storage) + "</td><td class=\"num\">" + bound + "</td><td>" + cell("storage") +
               "</td><td>" + cell("arithmetic") + "</td><td>" + cell("method") + "</td></tr>";
    }
    html_ += "</table>\n<p class=\"meta\">Errors of distances in units of h, taken over the calculations that "
             "measure distances; a dash where none of this report does.</p>\n";
  }

  void open_item() {
    html_ += "<h2 id=\"open-item\">Open item</h2>\n";
    html_ += "<div class=\"open-item\"><p><strong>Float or double bricks.</strong> Float bricks halve the memory "
             "per brick; double bricks remove the storage rounding. The question is whether the storage "
             "error of float bricks matters beside the method's own error at the voxel sizes in use.</p>";
    const json* comparison = member(report_, "comparison");
    const json* verdict = comparison ? member(*comparison, "verdict") : nullptr;
    if (verdict) {
      html_ += "<p>Verdict from the measurements: " + badge(text_of(*verdict, "decision", "no decision"), "verdict") +
               " " + escape(text_of(*verdict, "summary")) + " <a href=\"#comparison\">The comparison</a>.</p>";
      const json* storages = member(*comparison, "storages");
      if (const json* smallest = storages ? member(*storages, "verdict") : nullptr)
        html_ += "<p>The smallest safe storage among the run's: " +
                 badge(text_of(*smallest, "decision", "no decision"), "verdict") + " " +
                 escape(text_of(*smallest, "summary")) + " <a href=\"#smallest-storage\">Each storage</a>.</p>";
    } else {
      html_ += "<p class=\"missing\">Not in this report: the comparison run that decides the open item.</p>";
      std::string evidence;
      for (const json& entry : array_of(report_, "calculations")) {
        if (text_of(entry, "storage") != "float") continue;
        const json* storage = stats_of(entry, "storage");
        const json* method = stats_of(entry, "method");
        const json* sh = storage ? member(*storage, "h") : nullptr;
        const json* mh = method ? member(*method, "h") : nullptr;
        if (!sh || !mh) continue;
        evidence += "<li>" + escape(text_of(entry, "id")) + ": float storage error up to " + number_or(*sh, "max") +
                    " h beside a method error up to " + number_or(*mh, "max") + " h.</li>";
      }
      if (!evidence.empty())
        html_ += "<p>What this report does measure:</p><ul>" + evidence + "</ul>";
    }
    html_ += "</div>\n";
  }

  std::string max_error_text(const json& entry) const {
    const json* stats = stats_of(entry, "error");
    if (!stats) return "&mdash;";
    const std::string unit = primary_unit(*stats);
    const json* summary = member(*stats, unit);
    return summary ? number_or(*summary, "max") + " " + escape(unit) + changes_.note(entry, "error/" + unit + "/max")
                   : "null";
  }

  void calculations_summary() {
    html_ += "<h2 id=\"calculations\">Calculations the policy covers</h2>\n";
    std::size_t count = 0;
    for (const FileGroup& f : files_) count += f.calculations.size();
    if (count == 0) {
      not_in_report("calculations");
      return;
    }
    html_ += "<p>" + std::to_string(count) + " calculation" + (count == 1 ? "" : "s") + " in " +
             std::to_string(files_.size()) + " source file" + (files_.size() == 1 ? "" : "s") +
             ". Each one's code is taken from the repository's source files at the moment this page is rendered, "
             "so what you read is what the audit measured. A row is marked as a finding where the measured "
             "precision class differs from the declared one.</p>\n";
    html_ += "<table><tr><th>calculation</th><th>title</th><th>storage</th><th>declared</th><th>measured</th>"
             "<th>largest error</th><th>inputs within budget (&ge; lower bound)</th><th>gate</th><th>tests</th></tr>";
    for (const FileGroup& f : files_)
      for (const CalculationGroup& c : f.calculations)
        for (const json* entry : c.entries) {
          const json* gate = member(*entry, "gate");
          const std::string status = gate ? text_of(*gate, "status", "?") : "?";
          html_ += std::string(is_finding(*entry) ? "<tr class=\"finding\">" : "<tr>") + "<td><a href=\"#calc-" +
                   anchor(c.id) + "\"><code>" + escape(c.id) + "</code></a></td><td>" +
                   escape(text_of(*entry, "title")) + "</td><td>" + escape(text_of(*entry, "storage")) + "</td><td>" +
                   escape(text_of(*entry, "declared")) + "</td><td>" + escape(text_of(*entry, "measured", "null")) +
                   (is_finding(*entry) ? " " + badge("finding: " + finding_direction(*entry), "finding") : "") +
                   "</td><td class=\"num\">" +
                   max_error_text(*entry) + "</td><td class=\"num\">" + confidence_cell(*entry) + "</td><td>" +
                   badge(status, status) + "</td><td>" +
                   tests_summary(*entry) + "</td></tr>";
        }
    html_ += "</table>\n";
  }

  static std::string tests_summary(const json& entry) {
    const json* properties = member(entry, "properties");
    if (!properties) return "not in this report";
    const std::size_t n = array_of(*properties, "tests").size();
    return n == 0 ? "<span class=\"flag\">none found</span>" : std::to_string(n);
  }

  void file_section(const FileGroup& f) {
    std::set<std::string> classes, tests;
    bool any_properties = false;
    for (const CalculationGroup& c : f.calculations)
      for (const json* entry : c.entries) {
        classes.insert(text_of(*entry, "declared"));
        if (const json* properties = member(*entry, "properties")) {
          any_properties = true;
          for (const json& t : array_of(*properties, "tests"))
            if (t.is_string()) tests.insert(t.get<std::string>());
        }
      }
    html_ += "<section class=\"file\" id=\"file-" + anchor(f.file) + "\">\n<header><h2><code>" + escape(f.file) +
             "</code></h2>";
    for (const std::string& c : classes) html_ += badge(c, "class");
    html_ += "<span class=\"meta\">" + std::to_string(f.calculations.size()) + " calculation" +
             (f.calculations.size() == 1 ? "" : "s") + "</span></header>\n";
    html_ += "<p><strong>Tests</strong> ";
    if (!any_properties) html_ += "not in this report";
    else if (tests.empty()) html_ += "<span class=\"flag\">None found by the review</span>";
    else {
      std::string list;
      for (const std::string& t : tests) list += (list.empty() ? "" : ", ") + ("<code>" + escape(t) + "</code>");
      html_ += list;
    }
    html_ += "</p>\n";
    for (const CalculationGroup& c : f.calculations) calculation(c);
    html_ += "</section>\n";
  }

  void calculation(const CalculationGroup& c) {
    const json& first = *c.entries.front();
    html_ += "<article class=\"calculation\" id=\"calc-" + anchor(c.id) + "\" data-calculation=\"" + escape(c.id) +
             "\">\n<h3>" + escape(text_of(first, "title", c.id)) + " <code class=\"meta\">" + escape(c.id) +
             "</code></h3>\n<p>Declared " + badge(text_of(first, "declared", "?"), "class");
    for (const json* entry : c.entries) {
      const bool finding = is_finding(*entry);
      html_ += " &middot; measured with " + escape(text_of(*entry, "storage")) + " bricks " +
               badge(text_of(*entry, "measured", "null"), finding ? "finding" : "class");
      if (finding) html_ += " <span class=\"flag\">finding: " + finding_direction(*entry) + "</span>";
      if (!member(*entry, "measured") && member(*entry, "measured_null_reason"))
        html_ += " (" + escape(text_of(*entry, "measured_null_reason")) + ")";
    }
    html_ += "</p>\n<p class=\"formula\">" + escape(text_of(first, "formula", "no formula in the report")) + "</p>\n";
    explanation(first);
    part_reasons(first, "parts_skipped", "Parts not audited by this calculation");
    part_reasons(first, "sign_untrusted", "Untrusted: results that depend on the inside of");
    estimated_references(first);
    source_code(first);
    properties(first);
    for (const json* entry : c.entries) storage_block(c.id, *entry);
    html_ += "</article>\n";
  }

  /// A flagged list of parts with reasons (parts_skipped, sign_untrusted); nothing when empty.
  void part_reasons(const json& entry, const char* key, const char* heading) {
    const json& parts = array_of(entry, key);
    if (parts.empty()) return;
    html_ += "<p class=\"note\"><span class=\"flag\">" + escape(heading) + "</span></p>\n<ul class=\"note\">";
    for (const json& p : parts)
      html_ += "<li><code>" + escape(text_of(p, "part", "?")) + "</code>" +
               (member(p, "generator") ? " (generator <code>" + escape(text_of(p, "generator", "?")) + "</code>)" : "") +
               ": " + escape(text_of(p, "reason", "?")) + "</li>";
    html_ += "</ul>\n";
  }

  /// Parts whose method error is against an estimate (details.by_part rows with
  /// method_estimated), flagged with the estimate and its uncertainty.
  void estimated_references(const json& entry) {
    const json* details = member(entry, "details");
    if (!details) return;
    std::string items;
    const auto is_true = [](const json* flag) { return flag && flag->is_boolean() && flag->get<bool>(); };
    for (const json& row : array_of(*details, "by_part")) {
      const std::string part = "<li><code>" + escape(text_of(row, "part", "?")) + "</code>: ";
      const json* estimate = member(row, "method_estimate");
      if (is_true(member(row, "method_estimated")) && estimate && estimate->is_object())  // grid.volume
        items += part + "method error against an estimated volume " + number_or(*estimate, "estimate", "?", 10) +
                 " &plusmn; " + number_or(*estimate, "uncertainty", "?", 3) + " (" +
                 escape(text_of(*estimate, "method", "?")) + ", order " +
                 number_or(*estimate, "order", "not observed", 3) + "), not an analytic volume</li>";
      else if (is_true(member(row, "method_estimated")) && estimate && estimate->is_string())  // the meshers
        items += part + "method error estimated: " + escape(estimate->get<std::string>()) + "</li>";
      if (const json* mesh = member(row, "mesh"); mesh && is_true(member(*mesh, "reference_volume_estimated")))
        items += part + "the mesh's volume is compared with an estimated volume " +
                 number_or(*mesh, "reference_volume", "?", 10) + " &plusmn; " +
                 number_or(*mesh, "reference_volume_uncertainty", "?", 3) + " (" +
                 escape(text_of(*mesh, "reference_volume_source", "?")) + ")</li>";
    }
    if (items.empty()) return;
    html_ += "<p class=\"note\"><span class=\"flag\">Estimated references</span></p>\n<ul class=\"note\">" + items +
             "</ul>\n";
  }

  void explanation(const json& entry) {
    const json* error = stats_of(entry, "error");
    html_ += "<p class=\"explain\">Computed by <code>" + escape(text_of(entry, "implementation", "?")) +
             "</code>. The audit checks it against " +
             escape(sentence(text_of(entry, "reference", "no reference stated"))) + " Inputs: " +
             escape(sentence(text_of(entry, "input_generators", "not stated"))) + " Measured: " +
             escape(sentence(error ? text_of(*error, "what", "not stated") : "not stated")) + "</p>\n";
  }

  void source_code(const json& entry) {
    for (const json& source : array_of(entry, "source")) {
      const CodeExcerpt code = sources_.excerpt(source);
      html_ += "<ul class=\"where\"><li><code>" + escape(text_of(source, "file")) + "</code></li><li><code>" +
               escape(text_of(source, "function")) + "</code></li><li>";
      if (code.first_line == 0) html_ += "lines not known";
      else if (code.first_line == code.last_line) html_ += "line " + std::to_string(code.first_line);
      else html_ += "lines " + std::to_string(code.first_line) + " to " + std::to_string(code.last_line);
      html_ += "</li></ul>\n";
      if (!code.note.empty()) html_ += "<p class=\"note\">" + escape(code.note) + "</p>\n";
      if (code.code.empty()) continue;
      html_ += "<pre class=\"code\"><code>";
      int line = code.first_line;
      std::string::size_type start = 0;
      while (start < code.code.size()) {
        const std::string::size_type end = code.code.find('\n', start);
        html_ += "<span class=\"ln\">" + std::to_string(line++) + "</span>" +
                 escape(std::string_view(code.code).substr(start, end - start)) + "\n";
        start = end + 1;
      }
      html_ += "</code></pre>\n";
    }
  }

  void properties(const json& entry) {
    html_ += "<p><strong>Property tests</strong> ";
    const json* properties = member(entry, "properties");
    if (!properties) {
      html_ += "not in this report.</p>\n";
      return;
    }
    const json& tests = array_of(*properties, "tests");
    if (tests.empty()) {
      html_ += "<span class=\"flag\">None found by the review</span>";
      if (member(*properties, "null_reason")) html_ += " (" + escape(text_of(*properties, "null_reason")) + ")";
      html_ += ".</p>\n";
      return;
    }
    std::string list;
    for (const json& t : tests) list += (list.empty() ? "" : ", ") + ("<code>" + generic_html(t) + "</code>");
    html_ += list + ".</p>\n";
  }

  void storage_block(const std::string& id, const json& entry) {
    const std::string storage = text_of(entry, "storage", "?");
    html_ += "<div class=\"storage-block\" data-storage=\"" + escape(storage) + "\">\n<h4>With " + escape(storage) +
             " bricks</h4>\n";
    const json* inputs = member(entry, "inputs");
    html_ += "<p>" + (inputs ? number_or(*inputs, "count", "?") : std::string("?")) + " inputs";
    if (const json* mismatches = member(entry, "mismatches"))
      html_ += "; " + generic_html(*mismatches) + " with a wrong answer" +
               (mismatches->is_number() && mismatches->get<double>() > 0 ? " <span class=\"flag\">(finding)</span>" : "") +
               changes_.note(entry, "mismatches");
    if (member(entry, "evaluations_per_second"))
      html_ += "; " + number_or(entry, "evaluations_per_second") + " evaluations per second";
    html_ += ".</p>\n";
    error_chart(id, storage, entry);
    statistics_table(entry);
    html_ += confidence_table(entry);
    decisions(entry);
    worst_input(id, storage, entry);
    gate(entry);
    if (inputs && !array_of(*inputs, "generators").empty()) {
      html_ += "<details><summary>Input generators</summary><table><tr><th>generator</th><th>how the inputs are "
               "drawn</th><th>count</th><th>fallbacks</th></tr>";
      for (const json& g : array_of(*inputs, "generators"))
        html_ += "<tr><td><code>" + escape(text_of(g, "name")) + "</code></td><td>" + escape(text_of(g, "description")) +
                 "</td><td class=\"num\">" + number_or(g, "count", "?") + "</td><td class=\"num\">" +
                 number_or(g, "fallbacks", "?") + "</td></tr>";
      html_ += "</table></details>\n";
    }
    if (const json* details = member(entry, "details"))
      html_ += "<details><summary>Details</summary>" + generic_html(*details) + "</details>\n";
    html_ += "</div>\n";
  }

  void error_chart(const std::string& id, const std::string& storage, const json& entry) {
    const json* error = stats_of(entry, "error");
    if (!error) return;
    const std::string unit = primary_unit(*error);
    std::vector<Bar> bars;
    for (const ErrorKind& kind : kErrorKinds) {
      const json* stats = stats_of(entry, kind.name);
      const json* summary = stats ? member(*stats, unit) : nullptr;
      if (!summary) continue;
      for (const char* statistic : {"max", "p99", "rms", "mean"})
        bars.push_back({std::string(kind.name == std::string_view("error") ? "total" : kind.name) + " " + statistic,
                        number_of(*summary, statistic), statistic});
    }
    // A log axis cannot show zero: when nothing erred, say so instead of drawing empty bars.
    if (std::all_of(bars.begin(), bars.end(), [](const Bar& b) { return b.value && *b.value == 0; })) {
      html_ += "<p class=\"no-chart\">Every error is 0 " + escape(unit) + ": no distribution to draw.</p>\n";
      return;
    }
    html_ += "<div class=\"charts\">" +
             log_bar_chart("Error distribution of " + id + " (" + storage + "), in " + unit, bars, unit) + "</div>\n";
  }

  void statistics_table(const json& entry) {
    html_ += "<table><tr><th>error</th><th>count</th><th>unit</th>";
    for (const char* s : kStatistics) html_ += std::string("<th>") + s + "</th>";
    html_ += "</tr>";
    std::string nulls;
    for (const ErrorKind& kind : kErrorKinds) {
      const json* stats = stats_of(entry, kind.name);
      if (!stats) {
        if (std::string_view(kind.name) != "error") nulls += std::string(nulls.empty() ? "" : ", ") + kind.name;
        continue;
      }
      bool first_row = true;
      for (const char* unit : kUnits) {
        const json* summary = member(*stats, unit);
        if (!summary) continue;
        html_ += "<tr><td>" + std::string(first_row ? kind.label : "") + "</td><td class=\"num\">" +
                 (first_row ? number_or(*stats, "count", "?") : "") + "</td><td>" + unit + "</td>";
        const std::string path = std::string_view(kind.name) == "error" ? "error" : std::string("errors/") + kind.name;
        for (const char* s : kStatistics)
          html_ += "<td class=\"num\">" + number_or(*summary, s) + changes_.note(entry, path + "/" + unit + "/" + s) +
                   "</td>";
        html_ += "</tr>";
        first_row = false;
      }
      if (member(*stats, "null_reason"))
        html_ += "<tr><td></td><td colspan=\"6\">" + escape(text_of(*stats, "null_reason")) + "</td></tr>";
    }
    html_ += "</table>\n";
    if (!nulls.empty()) {
      const json* separated = member(entry, "errors");
      html_ += "<p class=\"meta\">Not separated: " + escape(nulls) + (separated && member(*separated, "null_reason")
                                                                          ? " (" + escape(text_of(*separated, "null_reason")) + ")"
                                                                          : std::string()) +
               ".</p>\n";
    }
  }

  void decisions(const json& entry) {
    const json* decisions = member(entry, "decisions");
    if (!decisions) return;
    html_ += "<table><tr><th>decision</th><th>what</th><th>count</th><th>misclassified</th><th>smallest margin "
             "(ulps)</th><th>closest input</th></tr>";
    for (const json& d : array_of(entry, "decisions")) {
      const std::optional<double> wrong = number_of(d, "misclassified");
      std::string closest = "&mdash;";
      const json& kept = array_of(d, "closest");
      if (!kept.empty()) closest = input_text(kept.front()) + ": core " + escape(text_of(kept.front(), "core")) +
                                   ", exact " + escape(text_of(kept.front(), "exact"));
      html_ += std::string(wrong && *wrong > 0 ? "<tr class=\"finding\">" : "<tr>") + "<td><code>" +
               escape(text_of(d, "name")) + "</code></td><td>" + escape(text_of(d, "what")) + "</td><td class=\"num\">" +
               number_or(d, "count", "?") + "</td><td class=\"num\">" + number_or(d, "misclassified", "?") +
               changes_.note(entry, "decisions/" + text_of(d, "name") + "/misclassified") +
               "</td><td class=\"num\">" + number_or(d, "min_margin_ulps") + "</td><td>" + closest + "</td></tr>";
    }
    html_ += "</table>\n";
  }

  /// "generator g, index n, part p: x = 0x..., y = ..." for a kept input record.
  static std::string input_text(const json& record) {
    std::string out = "generator <code>" + escape(text_of(record, "generator", "?")) + "</code>, index " +
                      number_or(record, "index", "?");
    if (member(record, "part")) out += ", part " + escape(text_of(record, "part"));
    if (const json* input = member(record, "input"); input && input->is_object())
      for (const auto& [name, value] : input->items())
        out += ", " + escape(name) + " = <code>" + generic_html(value) + "</code>";
    return out;
  }

  void worst_input(const std::string& id, const std::string& storage, const json& entry) {
    const json* error = stats_of(entry, "error");
    const json& worst = error ? array_of(*error, "worst") : no_items();
    if (worst.empty()) return;
    const json& w = worst.front();
    html_ += "<p><strong>Worst input</strong> (seed " + number_or(w, "seed", "?") + ", " + input_text(w) +
             "): result <code>" + escape(text_of(w, "result")) + "</code>, reference <code>" +
             escape(text_of(w, "reference")) + "</code>";
    if (const json* e = member(w, "error")) {
      std::string parts;
      for (const char* unit : {"h", "relative", "ulps", "bits"})
        if (member(*e, unit)) parts += (parts.empty() ? "" : ", ") + number_or(*e, unit) + " " + unit;
      if (!parts.empty()) html_ += ", off by " + parts;
    }
    html_ += ". Replay: <code>" + escape(reports::replay_command({options_.report_name, id, storage})) + "</code></p>\n";
  }


  void gate(const json& entry) {
    const json* gate = member(entry, "gate");
    if (!gate) {
      html_ += "<p class=\"missing\">Not in this report: the gate of this entry.</p>\n";
      return;
    }
    const std::string status = text_of(*gate, "status", "?");
    html_ += "<p><strong>Gate</strong> " + badge(status, status) + "</p>\n";
    const json& checks = array_of(*gate, "checks");
    if (checks.empty()) return;
    html_ += "<table><tr><th>metric</th><th>measured</th><th>budget</th><th>status</th><th>why this budget</th></tr>";
    for (const json& check : checks) {
      const std::string s = text_of(check, "status", "?");
      html_ += std::string(s == "fail" ? "<tr class=\"finding\">" : "<tr>") + "<td><code>" +
               escape(text_of(check, "metric")) + "</code></td><td class=\"num\">" + number_or(check, "measured") +
               changes_.note_for_pointer(entry, text_of(check, "metric")) +
               "</td><td class=\"num\">" + number_or(check, "budget", "?") + model_of(check) + "</td><td>" + badge(s, s) +
               "</td><td>" + status_reason(check) + escape(text_of(check, "why")) + "</td></tr>";
    }
    html_ += "</table>\n";
  }

  void claims() {
    html_ += "<h2 id=\"claims\">Claims</h2>\n";
    const json* claims = member(report_, "claims");
    if (!claims || !claims->is_array()) {
      not_in_report("the claims (a run of every calculation states them)");
      return;
    }
    html_ += "<p>Each statement the policy makes, tested against the measurements. A refuted claim is a finding, "
             "shown with its counterexample.</p>\n";
    for (const json& claim : *claims) {
      const std::string verdict = text_of(claim, "verdict", "?");
      html_ += "<div class=\"claim\" id=\"claim-" + anchor(text_of(claim, "id")) + "\"><h4>" + badge(verdict, verdict) +
               " " + escape(text_of(claim, "statement", text_of(claim, "id"))) + "</h4><p>" +
               escape(text_of(claim, "evidence")) + "</p>";
      if (const json* numbers = member(claim, "numbers"); numbers && !numbers->empty())
        html_ += generic_html(*numbers);
      if (const json* counterexample = member(claim, "counterexample"))
        html_ += "<p class=\"finding-text\"><strong>Counterexample</strong></p>" + generic_html(*counterexample);
      std::string links;
      for (const json& id : array_of(claim, "calculations"))
        if (id.is_string())
          links += (links.empty() ? "" : ", ") +
                   ("<a href=\"#calc-" + anchor(id.get<std::string>()) + "\"><code>" + escape(id.get<std::string>()) +
                    "</code></a>");
      if (!links.empty()) html_ += "<p class=\"meta\">Calculations: " + links + "</p>";
      html_ += "</div>\n";
    }
  }

  void comparison() {
    html_ += "<h2 id=\"comparison\">Float, double and narrower bricks</h2>\n";
    const json* comparison = member(report_, "comparison");
    if (!comparison) {
      not_in_report("the storage comparison (a run of float and double at several h makes it)");
      return;
    }
    const json& rows = array_of(*comparison, "rows");
    // The storages with a column: float and double, then those of the run's half, q16 and q8.
    std::vector<std::string> storages{"float", "double"};
    for (const char* narrow : {"half", "q16", "q8"})
      if (std::any_of(rows.begin(), rows.end(), [&](const json& row) { return member(row, narrow) != nullptr; }))
        storages.push_back(narrow);
    html_ += "<p>For each quantity read back, the storage error of each brick type beside the method's own error "
             "at the same h, in units of h (relative for volumes). The ratio is storage over method: well below 1, "
             "the brick type does not matter beside the voxel size.</p>\n";
    // One chart per quantity: each storage's error, and the method error, per part and h.
    std::vector<std::string> quantities;
    for (const json& row : rows) {
      const std::string q = text_of(row, "quantity", "?");
      if (std::find(quantities.begin(), quantities.end(), q) == quantities.end()) quantities.push_back(q);
    }
    html_ += "<div class=\"charts\">";
    for (const std::string& q : quantities) {
      std::vector<Bar> bars;
      for (const json& row : rows) {
        if (text_of(row, "quantity", "?") != q) continue;
        const std::string where = text_of(row, "part", "?") + ", h " + number_or(row, "h", "?", 4);
        for (const std::string& storage : storages)
          if (const json* side = member(row, storage.c_str()))
            bars.push_back({where + " " + storage, number_of(*side, "storage_h"), storage});
        const json* method_from = member(row, "double");
        bars.push_back({where + " method", method_from ? number_of(*method_from, "method_h") : std::nullopt, "method"});
      }
      html_ += log_bar_chart("Storage error per brick type, and method error: " + q, bars, "h");
    }
    html_ += "</div>\n<table><tr><th>quantity</th><th>part</th><th>h</th><th>method</th>";
    for (const std::string& storage : storages)
      html_ += "<th>" + escape(storage) + " storage</th><th>" + escape(storage) + " ratio</th>";
    html_ += "</tr>";
    for (const json& row : rows) {
      const json* d = member(row, "double");
      html_ += "<tr><td>" + escape(text_of(row, "quantity")) + "</td><td>" + escape(text_of(row, "part")) +
               "</td><td class=\"num\">" + number_or(row, "h", "?", 4) + "</td><td class=\"num\">" +
               (d ? number_or(*d, "method_h") : std::string("&mdash;")) + "</td>";
      for (const std::string& storage : storages) {
        const json* side = member(row, storage.c_str());
        for (const char* key : {"storage_h", "ratio"})
          html_ += "<td class=\"num\">" + (side ? number_or(*side, key) : std::string("&mdash;")) + "</td>";
      }
      html_ += "</tr>";
    }
    html_ += "</table>\n";
    if (const json* memory = member(*comparison, "memory_bytes_per_brick"))
      html_ += "<p>Memory per stored brick: float " + number_or(*memory, "float", "?") + " bytes, double " +
               number_or(*memory, "double", "?") + " bytes.</p>\n";
    if (const json* signs = member(*comparison, "signs"))
      html_ += "<h4>Signs</h4>" + generic_html(*signs) + "\n";
    if (const json* verdict = member(*comparison, "verdict")) {
      html_ += "<h4>Verdict on the open item: " + badge(text_of(*verdict, "decision", "no decision"), "verdict") +
               "</h4><p>" + escape(text_of(*verdict, "summary")) + "</p>";
      if (const json* scope = member(*verdict, "scope")) html_ += "<p>Scope of the verdict:</p>" + generic_html(*scope);
      if (const json* per = member(*verdict, "per_part_and_h")) html_ += generic_html(*per);
      html_ += "\n";
    } else {
      not_in_report("the verdict on the open item");
    }
    storage_verdict(*comparison);
  }

  /// Each storage against double and the smallest that is safe.
  void storage_verdict(const json& comparison) {
    html_ += "<h3 id=\"smallest-storage\">The smallest safe storage</h3>\n";
    const json* storages = member(comparison, "storages");
    if (!storages) {
      not_in_report("each storage against double (a newer report has it)");
      return;
    }
    html_ += "<p>Each storage of the run against double bricks of the same parts: memory, node signs and both "
             "meshers' triangles at the run's h, and at every part and h of the refinement series the largest "
             "storage error of a sample (h) and of the volume (relative) over the method error.</p>\n"
             "<table><tr><th>storage</th><th>bytes per brick</th><th>bytes, all parts</th><th>node signs flipped</th>"
             "<th>meshes of the same topology</th><th>largest sample ratio</th><th>largest volume ratio</th></tr>";
    for (const json& s : array_of(*storages, "by_storage")) {
      std::size_t meshes = 0, unchanged = 0;
      for (const json& c : array_of(s, "contours"))
        for (const char* mesher : {"surface_nets", "marching_cubes"})
          if (const json* m = member(c, mesher)) {
            ++meshes;
            if (m->value("same_topology", false)) ++unchanged;
          }
      std::optional<double> sample, volume;
      for (const json& c : array_of(s, "per_part_and_h")) {
        for (auto [key, worst] : {std::pair{"sample", &sample}, std::pair{"volume", &volume}})
          if (const json* q = member(c, key))
            if (auto r = number_of(*q, "ratio")) *worst = std::max(worst->value_or(0.0), *r);
      }
      html_ += "<tr><td>" + escape(text_of(s, "storage")) + "</td><td class=\"num\">" +
               number_or(s, "memory_bytes_per_brick") + "</td><td class=\"num\">" + number_or(s, "memory_bytes") +
               "</td><td class=\"num\">" + number_or(s, "sign_flips") + " of " + number_or(s, "nodes_compared") +
               "</td><td class=\"num\">" + std::to_string(unchanged) + " of " + std::to_string(meshes) +
               "</td><td class=\"num\">" + (sample ? number_text(*sample) : std::string("&mdash;")) +
               "</td><td class=\"num\">" + (volume ? number_text(*volume) : std::string("&mdash;")) + "</td></tr>";
    }
    html_ += "</table>\n";
    const json* verdict = member(*storages, "verdict");
    if (!verdict) {
      not_in_report("the verdict on the smallest safe storage");
      return;
    }
    html_ += "<h4>Smallest safe storage: " + badge(text_of(*verdict, "decision", "no decision"), "verdict") +
             "</h4><p>" + escape(text_of(*verdict, "summary")) + "</p><p class=\"meta\">Rule: " +
             escape(text_of(*verdict, "rule")) + "</p>\n<table><tr><th>storage</th><th>bytes per brick</th>"
             "<th>safe</th><th>ruled out by (worst case per quantity)</th></tr>";
    for (const json& s : array_of(*verdict, "per_storage")) {
      std::string reasons;
      for (const json& r : array_of(s, "ruled_out_by"))
        reasons += (reasons.empty() ? "" : "<br>") + escape(text_of(r, "quantity")) + ": " + number_or(r, "measured") +
                   " (limit " + number_or(r, "limit") + "), worst: " + escape(text_of(r, "worst_at")) + "; " +
                   number_or(r, "cases") + " case(s)";
      html_ += "<tr><td>" + escape(text_of(s, "storage")) + "</td><td class=\"num\">" +
               number_or(s, "memory_bytes_per_brick") + "</td><td>" + (s.value("safe", false) ? "yes" : "no") +
               "</td><td>" + (reasons.empty() ? std::string("&mdash;") : reasons) + "</td></tr>";
    }
    html_ += "</table>\n";
  }

  void refinement() {
    html_ += "<h2 id=\"refinement\">Volume error against h</h2>\n";
    const json* refinement = member(report_, "refinement");
    if (!refinement) {
      not_in_report("the refinement study (the volume at several h)");
      return;
    }
    const json& hs = array_of(*refinement, "h");
    std::vector<Series> series;
    html_ += "<p>The method's relative volume error of each part at each h, with the power law "
             "error &asymp; c &middot; h<sup>order</sup> fitted to it. Order 2 is what a second-order rule gives "
             "on a curved surface.</p>\n<table><tr><th>part</th>";
    for (const json& h : hs) html_ += "<th>h = " + generic_html(h) + "</th>";
    html_ += "<th>fitted order</th><th>coefficient</th></tr>";
    for (const json& part : array_of(*refinement, "parts")) {
      Series s{text_of(part, "part", "?"), {}, number_of(part, "order"), number_of(part, "coefficient")};
      const json& errors = array_of(part, "volume_relative_error");
      html_ += "<tr><td>" + escape(s.name) + "</td>";
      for (std::size_t n = 0; n < hs.size(); ++n) {
        const bool have = n < errors.size() && errors[n].is_number() && hs[n].is_number();
        if (have) s.points.emplace_back(hs[n].get<double>(), std::fabs(errors[n].get<double>()));
        html_ += "<td class=\"num\">" + (have ? number_text(errors[n].get<double>()) : std::string("null")) + "</td>";
      }
      html_ += "<td class=\"num\">" + number_or(part, "order") + "</td><td class=\"num\">" +
               number_or(part, "coefficient") + "</td></tr>";
      series.push_back(std::move(s));
    }
    html_ += "</table>\n<div class=\"charts\">" +
             log_log_chart("Relative volume error against h (log-log)", "h", "|relative volume error|", series) +
             "</div>\n";
  }

  void in_detail() {
    const json& s = settings();
    html_ += "<h2 id=\"in-detail\">In detail</h2>\n<dl class=\"detail\">";
    html_ += "<dt>Method</dt><dd>Node (i, j, k) sits at (i&middot;h, j&middot;h, k&middot;h); a part is baked by "
             "evaluating its formula (or its mesh's signed distance) at the nodes of the bricks the plan keeps. A "
             "value between nodes is trilinear in its cell; the volume adds clamp(&frac12; &minus; d/h, 0, 1) per "
             "node. Each quantity is compared with a reference in " +
             escape(member(s, "reference") ? text_of(*member(s, "reference"), "type", "high precision") : "high precision") +
             " (" + (member(s, "reference") ? number_or(*member(s, "reference"), "bits", "?") : std::string("?")) +
             " bits) computed without the code it checks; decisions are compared with their exact answers.";
    if (member(s, "measured_class_rule"))
      html_ += " The measured class comes " + escape(sentence(text_of(s, "measured_class_rule")));
    html_ += "</dd>";
    if (const json* units = member(s, "units"); units && units->is_object()) {
      html_ += "<dt>Units</dt><dd><ul>";
      for (const auto& [name, meaning] : units->items())
        html_ += "<li><strong>" + escape(name) + "</strong>: " + generic_html(meaning) + "</li>";
      html_ += "</ul></dd>";
    }
    html_ += "<dt>Number types</dt><dd>Arithmetic in 64-bit <code>double</code>; node values in the storage type (";
    std::string storages;
    for (const json& st : array_of(s, "storage")) storages += (storages.empty() ? "" : ", ") + generic_html(st);
    html_ += (storages.empty() ? "not stated" : storages) + " in this report); brick keys are integers below "
             "2<sup>51</sup>, exact in a 64-bit integer and in a double. ";
    if (const json* build_info = member(report_, "build"); build_info && member(*build_info, "fp_contract"))
      html_ += "FMA contraction: " + escape(sentence(text_of(*build_info, "fp_contract")));
    html_ += "</dd>";
    html_ += "<dt>Tolerances</dt><dd>Band of " + number_or(s, "band", "?") + " voxels (values clamped to "
             "&plusmn;band&times;h); h = " + number_or(s, "h", "?", 6) + ". Far inputs are offset by " +
             generic_html(array_of(s, "far_offset_voxels")) + " voxels. Each gate budget states where it comes "
             "from next to its calculation.</dd>";
    html_ += "<dt>Limits</dt><dd>" + limits() + "</dd></dl>\n";
  }

  /// Limits read from the measurements: sampling range, findings, refuted claims, volume order.
  std::string limits() const {
    std::string out = "<ul>";
    bool any = false;
    const std::vector<std::string>& sampled = options_.sampling_range_calculations;
    for (const json& entry : array_of(report_, "calculations")) {
      if (std::find(sampled.begin(), sampled.end(), text_of(entry, "id")) == sampled.end()) continue;
      out += "<li>" + sampling_range(entry) + "</li>";
      any = true;
    }
    for (const json& entry : array_of(report_, "calculations"))
      if (is_finding(entry)) {
        out += "<li class=\"finding-text\"><code>" + escape(text_of(entry, "id")) + "</code> with " +
               escape(text_of(entry, "storage")) + " bricks measures " + escape(text_of(entry, "measured")) +
               ", not the declared " + escape(text_of(entry, "declared")) + " (" + finding_direction(entry) + ").</li>";
        any = true;
      }
    for (const json& claim : array_of(report_, "claims"))
      if (text_of(claim, "verdict") == "refuted") {
        out += "<li class=\"finding-text\">Refuted: " + escape(text_of(claim, "statement")) + " " +
               escape(text_of(claim, "evidence")) + "</li>";
        any = true;
      }
    if (const json* refinement = member(report_, "refinement"))
      for (const json& part : array_of(*refinement, "parts"))
        if (number_of(part, "order")) {
          out += "<li>The volume of " + escape(text_of(part, "part", "?")) + " converges with order " +
                 number_or(part, "order") + " in h over the h measured.</li>";
          any = true;
        }
    if (!any) out += "<li>None derived: this report has none of the measurements the limits come from.</li>";
    return out + "</ul>";
  }

  /// How far from the origin sampling stays within its budget: per input generator
  /// its largest total error (over the parts) against the budget of /error/h/max,
  /// and the distance the far generator's offset reaches.
  std::string sampling_range(const json& entry) const {
    const std::string storage = text_of(entry, "storage");
    const std::optional<double> budget = budget_for(entry, "/error/h/max");
    const json* details = member(entry, "details");
    const json& table = details ? array_of(*details, "by_part_and_generator") : no_items();
    if (table.empty()) return "Sampling with " + escape(storage) + " bricks: no per-generator table in this report.";
    std::vector<std::pair<std::string, std::optional<double>>> generators;
    for (const json& row : table) {
      const std::string g = text_of(row, "generator", "?");
      const json* max_h = member(row, "max_h");
      const std::optional<double> e = max_h ? number_of(*max_h, "error") : std::nullopt;
      auto it = std::find_if(generators.begin(), generators.end(), [&](const auto& p) { return p.first == g; });
      if (it == generators.end()) generators.emplace_back(g, e);
      else if (!e || !it->second) it->second = std::nullopt;  // a null error anywhere is not within budget
      else it->second = std::max(*it->second, *e);
    }
    const auto within = [&](const std::string& g) {
      const auto it = std::find_if(generators.begin(), generators.end(), [&](const auto& p) { return p.first == g; });
      return it != generators.end() && it->second && budget && *it->second <= *budget;
    };
    std::string out = "Sampling with " + escape(storage) + " bricks, largest total error of each input generator " +
                      (budget ? "against the budget of " + number_text(*budget) + " h" : std::string("(no budget in the report)")) +
                      ":<table><tr><th>generator</th><th>how the inputs are drawn</th><th>largest error (h)</th>"
                      "<th>within budget</th></tr>";
    const json* inputs = member(entry, "inputs");
    for (const auto& [g, e] : generators) {
      std::string description;
      for (const json& d : inputs ? array_of(*inputs, "generators") : no_items())
        if (text_of(d, "name") == g) description = text_of(d, "description");
      out += std::string(within(g) ? "<tr>" : "<tr class=\"finding\">") + "<td><code>" + escape(g) + "</code></td><td>" +
             escape(description) + "</td><td class=\"num\">" + (e ? number_text(*e) : std::string("null")) +
             "</td><td>" + (within(g) ? "yes" : "no") + "</td></tr>";
    }
    out += "</table>";
    // The far generator translates the part by far_offset_voxels, so its reach in voxels is that offset.
    double reach = 0;
    for (const json& v : array_of(settings(), "far_offset_voxels"))
      if (v.is_number()) reach = std::max(reach, std::fabs(v.get<double>()));
    if (reach > 0 && std::any_of(generators.begin(), generators.end(), [](const auto& p) { return p.first == "far"; }))
      out += within("far") ? "Sampling stays within its budget at |x|/h up to " + number_text(reach) +
                                 " (the far inputs, the part translated by the run's far offset)."
                           : "<span class=\"flag\">Sampling exceeds its budget at |x|/h about " + number_text(reach) +
                                 " (the far inputs).</span>";
    return out;
  }

  void build() {
    html_ += "<h2 id=\"build\">Build</h2>\n";
    const json* build_info = member(report_, "build");
    if (!build_info) {
      not_in_report("how the audited code was built");
      return;
    }
    html_ += generic_html(*build_info) + "\n";
    if (const json* gate = member(report_, "gate"))
      html_ += "<p>Gate of the whole report: " + badge(text_of(*gate, "status", "?"), text_of(*gate, "status", "?")) +
               " (budgets from <code>" + escape(budgets_name(text_of(*gate, "budgets"))) + "</code>).</p>\n";
  }

  /// The budgets file as a repository path when it lies in the source directory, else its file name.
  std::string budgets_name(const std::string& path) const {
    const std::string& root = options_.source_dir;
    if (!root.empty() && path.size() > root.size() + 1 && path.compare(0, root.size(), root) == 0 &&
        path[root.size()] == '/')
      return path.substr(root.size() + 1);
    return path.empty() || path.front() != '/' ? path : file_name_only(path);
  }
};

}  // namespace

json parse_report(std::string_view text, const std::string& name) {
  const json report = parse_json_text(text, name, ErrorCode::badfile);
  if (!report.is_object()) throw Error(ErrorCode::badfile, name + ": not a distgrid-audit report (not a JSON object)");
  const json* schema = member(report, "schema");
  if (!schema || !schema->is_string())
    throw Error(ErrorCode::badfile, name + ": not a distgrid-audit report (no \"schema\"; expected \"" +
                                        std::string(kReportSchema) + "\")");
  if (schema->get<std::string>() != kReportSchema)
    throw Error(ErrorCode::badfile, name + ": report schema \"" + schema->get<std::string>() +
                                        "\" is not the one this page renders (\"" + std::string(kReportSchema) + "\")");
  for (const char* key : {"calculations", "claims", "sections_missing"})
    if (report.contains(key) && !report[key].is_array())
      throw Error(ErrorCode::badfile, name + ": /" + key + " is not an array");
  for (const char* key : {"settings", "tool", "build", "gate", "comparison", "refinement", "shard"})
    if (report.contains(key) && !report[key].is_object())
      throw Error(ErrorCode::badfile, name + ": /" + key + " is not an object");
  const json& calculations = array_of(report, "calculations");
  for (std::size_t n = 0; n < calculations.size(); ++n)
    if (!calculations[n].is_object())
      throw Error(ErrorCode::badfile, name + ": /calculations/" + std::to_string(n) + " is not an object");
  return report;
}

std::string policy_page_html(const json& report, const PageOptions& options) {
  return PageWriter(report, options).write();
}

void render_policy_page(const std::string& report_path, const std::string& out_path, PageOptions options,
                        const PageFiles& files) {
  const json report = parse_report(read_file(report_path), report_path);
  options.report_name = file_name_only(report_path);
  json baseline;
  if (!files.baseline.empty()) {
    baseline = parse_report(read_file(files.baseline), files.baseline);
    options.baseline = &baseline;
    options.baseline_name = file_name_only(files.baseline);
  }
  json mutants;
  if (!files.mutants.empty()) {
    mutants = parse_mutants(read_file(files.mutants), files.mutants);
    options.mutants = &mutants;
    options.mutants_name = file_name_only(files.mutants);
  }
  json coverage;
  if (!files.coverage.empty()) {
    coverage = parse_coverage(read_file(files.coverage), files.coverage);
    options.coverage = &coverage;
    options.coverage_name = file_name_only(files.coverage);
  }
  replace_file(out_path, policy_page_html(report, options));
}

}  // namespace distgrid::render
