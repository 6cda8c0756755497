#include "distgrid/audit/report.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

#include "build_info.hpp"
#include "distgrid/audit/source_lines.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/json_text.hpp"

namespace distgrid::audit {

using nlohmann::json;

json finite_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json tool_json() { return {{"name", "distgrid-audit"}, {"version", build_info::kVersion}}; }

json build_json() {
  return {{"git_revision", build_info::kGitRevision},
          {"compiler", {{"id", build_info::kCompilerId}, {"version", build_info::kCompilerVersion}}},
          {"build_type", build_info::kBuildType},
          {"cxx_flags", build_info::kCxxFlags},
          {"build_type_flags", build_info::kBuildTypeFlags},
          {"options_flags", build_info::kOptionsFlags},
          {"core_flags", build_info::kCoreFlags},
          {"fp_contract", "off: -ffp-contract=off (distgrid::options), so no result depends on FMA contraction"}};
}

namespace {

json summary_json(const std::optional<Summary>& s) {
  if (!s) return {{"max", nullptr}, {"mean", nullptr}, {"rms", nullptr}, {"p99", nullptr}};
  return {{"max", finite_or_null(s->max)},
          {"mean", finite_or_null(s->mean)},
          {"rms", finite_or_null(s->rms)},
          {"p99", finite_or_null(s->p99)}};
}

json worst_json(const WorstInput& w, const ErrorStats& stats) {
  json input = json::object();
  for (const auto& [name, value] : w.input.values) input[name] = value;
  json error = {{"abs", finite_or_null(w.error.abs)},
                {"ulps", finite_or_null(w.error.ulps)},
                {"bits", finite_or_null(bits_lost(w.error.ulps))}};
  if (stats.has_h()) error["h"] = finite_or_null(*w.error.h);
  if (stats.has_relative()) error["relative"] = finite_or_null(*w.error.relative);
  json out = {{"seed", w.input.seed},
              {"generator", w.input.generator},
              {"index", w.input.index},
              {"input", input},
              {"result", hex_float(w.error.result)},
              {"reference", hex_float(w.error.reference)},
              {"error", error}};
  if (!w.input.part.empty()) out["part"] = w.input.part;
  return out;
}

json decision_stats_json(const DecisionStats& stats) {
  json closest = json::array();
  for (const DecisionInput& d : stats.closest()) {
    json input = json::object();
    for (const auto& [name, value] : d.input.values) input[name] = value;
    json item = {{"seed", d.input.seed},       {"generator", d.input.generator}, {"index", d.input.index},
                 {"input", input},             {"core", d.core},                 {"exact", d.exact},
                 {"margin_ulps", finite_or_null(d.margin_ulps)}};
    if (!d.input.part.empty()) item["part"] = d.input.part;
    closest.push_back(item);
  }
  return {{"name", stats.name()},
          {"what", stats.what()},
          {"count", stats.count()},
          {"misclassified", stats.misclassified()},
          {"min_margin_ulps", finite_or_null(stats.min_margin_ulps())},
          {"closest", closest}};
}

json source_json(const SourceRef& ref, const std::string& source_dir) {
  const ResolvedSource r = resolve_source(ref.file, ref.function, source_dir);
  json out = {{"file", r.file}, {"function", r.function}};
  if (r.lines) {
    out["first_line"] = r.lines->first;
    out["last_line"] = r.lines->last;
  } else {
    out["first_line"] = nullptr;
    out["last_line"] = nullptr;
    out["lines_null_reason"] = r.missing_reason;
  }
  return out;
}

}  // namespace

json error_stats_json(const ErrorStats& stats, const std::string& what) {
  json out = {{"what", what}, {"count", stats.count()}, {"non_finite", stats.non_finite()}};
  if (stats.has_h()) out["h"] = summary_json(stats.h());
  if (stats.has_relative()) out["relative"] = summary_json(stats.relative());
  out["ulps"] = summary_json(stats.ulps());
  out["bits"] = summary_json(stats.bits());
  json worst = json::array();
  for (const WorstInput& w : stats.worst()) worst.push_back(worst_json(w, stats));
  out["worst"] = worst;
  if (stats.count() == 0) out["null_reason"] = "no inputs";
  else if (stats.non_finite() > 0)
    out["null_reason"] = std::to_string(stats.non_finite()) +
                         " inputs gave a NaN or infinite result or error; they count as infinite";
  return out;
}

json calculation_json(const Calculation& calculation, const CalculationResult& result, const std::string& source_dir) {
  json sources = json::array();
  for (const SourceRef& ref : calculation.sources) sources.push_back(source_json(ref, source_dir));
  json generators = json::array();
  std::size_t count = 0;
  for (const StratumCount& s : result.strata) {
    generators.push_back(
        {{"name", s.name}, {"description", s.description}, {"count", s.count}, {"fallbacks", s.fallbacks}});
    count += s.count;
  }

  json entry = {{"id", calculation.id},
                {"storage", storage_name(result.storage)},
                {"title", calculation.title},
                {"declared", precision_name(calculation.declared)}};
  const std::optional<Summary> ulps = result.error.ulps();
  const std::uint64_t mismatches = result.mismatches.value_or(0);
  if (result.error.non_finite() > 0) {
    entry["measured"] = nullptr;
    entry["measured_null_reason"] = "some inputs gave a NaN or infinite result";
  } else if (!ulps && mismatches == 0) {
    entry["measured"] = nullptr;
    entry["measured_null_reason"] = "no inputs";
  } else {
    entry["measured"] = precision_name(measured_class(ulps ? ulps->max : 0, mismatches, calculation.declared));
  }
  entry["source"] = sources;
  entry["formula"] = calculation.formula;
  entry["implementation"] = calculation.implementation;
  entry["reference"] = calculation.reference;
  entry["input_generators"] = calculation.inputs;
  entry["inputs"] = {{"count", count}, {"generators", generators}};
  entry["error"] = error_stats_json(result.error, std::string(calculation.errors));
  json separated = json::object();
  const auto put = [&](const char* name, const std::optional<ErrorStats>& stats, const char* what) {
    separated[name] = stats ? error_stats_json(*stats, what) : json(nullptr);
  };
  put("arithmetic", result.arithmetic, "the core's result vs high precision from the same stored node values");
  put("storage", result.storage_error, "high precision from stored node values vs from exact node values f(i h)");
  put("method", result.method, "high precision from exact node values vs the true geometric quantity");
  if (!result.arithmetic || !result.storage_error || !result.method)
    separated["null_reason"] = "does not apply: the calculation has no stored values or no method to separate";
  entry["errors"] = separated;
  if (result.mismatches) entry["mismatches"] = *result.mismatches;
  if (!result.decisions.empty()) {
    json decisions = json::array();
    for (const DecisionStats& d : result.decisions) decisions.push_back(decision_stats_json(d));
    entry["decisions"] = decisions;
  }
  if (!result.details.is_null()) entry["details"] = result.details;
  return entry;
}

json findings_json(const json& entries) {
  json findings = json::array();
  std::vector<std::string> seen;
  for (const json& entry : entries) {
    const std::string id = entry.value("id", "");
    if (std::find(seen.begin(), seen.end(), id) != seen.end()) continue;
    seen.push_back(id);
    const json& properties = entry.value("properties", json::object());
    if (!properties.value("tests", json::array()).empty()) continue;
    findings.push_back({{"kind", "no_property_tests"},
                        {"id", id},
                        {"message", "no property test covers " + id + ": " +
                                        properties.value("null_reason", std::string("no tests listed"))}});
  }
  return findings;
}

std::string gate_status(const json& entries) {
  for (const json& entry : entries)
    if (entry.at("gate").value("status", "") != "pass") return "fail";
  return "pass";
}

void put_sections_missing(json& report) {
  json missing = json::array();
  for (const char* section : kWholeRunSections)
    if (!report.contains(section)) missing.push_back(section);
  if (missing.empty()) report.erase("sections_missing");
  else report["sections_missing"] = std::move(missing);
}

namespace {

void check_finite_at(const json& value, const std::string& pointer) {
  if (value.is_number_float() && !std::isfinite(value.get<double>()))
    throw std::logic_error("report value at " + (pointer.empty() ? "/" : pointer) + " is not finite");
  if (value.is_object())
    for (const auto& [key, item] : value.items()) check_finite_at(item, pointer + "/" + key);
  if (value.is_array())
    for (std::size_t n = 0; n < value.size(); ++n) check_finite_at(value[n], pointer + "/" + std::to_string(n));
}

}  // namespace

void check_all_finite(const json& document) { check_finite_at(document, ""); }

void write_json_file(const json& document, const std::string& path) {
  const std::string text = document.dump(2) + "\n";
  replace_file(path, text);
}

json read_json_file(const std::string& path) {
  return parse_json_text(read_file(path), path, ErrorCode::badfile);
}

}  // namespace distgrid::audit
