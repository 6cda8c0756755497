#include "distgrid/audit/report.hpp"


#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <stdexcept>

#include "build_info.hpp"
#include "distgrid/audit/storage.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/json_text.hpp"
#include "distgrid/source_lines.hpp"

namespace distgrid::audit {

using nlohmann::json;

json finite_or_null(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

json tool_json() { return {{"name", "distgrid-audit"}, {"version", build_info::kVersion}}; }

json build_json() {
  return {{"git_revision", build_info::kGitRevision},
          {"commit_time", build_info::kGitCommitTime},
          {"compiler", {{"id", build_info::kCompilerId}, {"version", build_info::kCompilerVersion}}},
          {"build_type", build_info::kBuildType},
          {"cxx_flags", build_info::kCxxFlags},
          {"build_type_flags", build_info::kBuildTypeFlags},
          {"options_flags", build_info::kOptionsFlags},
          {"core_flags", build_info::kCoreFlags},
          {"fp_contract", "off: -ffp-contract=off (distgrid::options), so no result depends on FMA contraction"}};
}

json decision_stats_json(const std::string& name, const std::string& what, std::uint64_t count,
                         std::uint64_t misclassified, double min_margin_ulps, json closest) {
  return {{"name", name},
          {"what", what},
          {"count", count},
          {"misclassified", misclassified},
          {"min_margin_ulps", finite_or_null(min_margin_ulps)},
          {"closest", std::move(closest)}};
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
  return audit::decision_stats_json(stats.name(), stats.what(), stats.count(), stats.misclassified(),
                             stats.min_margin_ulps(), std::move(closest));
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
  if (!ref.unreached.empty()) out["unreached_because"] = ref.unreached;
  return out;
}

}  // namespace

json error_stats_json(const std::string& what, const ErrorStatsSummaries& s, json worst) {
  json out = {{"what", what}, {"count", s.count}, {"non_finite", s.non_finite}};
  if (s.has_h) out["h"] = summary_json(s.h);
  if (s.has_relative) out["relative"] = summary_json(s.relative);
  out["ulps"] = summary_json(s.ulps);
  out["bits"] = summary_json(s.bits);
  out["worst"] = std::move(worst);
  if (s.count == 0) out["null_reason"] = "no inputs";
  else if (s.non_finite > 0)
    out["null_reason"] = std::to_string(s.non_finite) +
                         " inputs gave a NaN or infinite result or error; they count as infinite";
  return out;
}

json error_stats_json(const ErrorStats& stats, const std::string& what) {
  json worst = json::array();
  for (const WorstInput& w : stats.worst()) worst.push_back(worst_json(w, stats));
  const ErrorStatsSummaries s{stats.count(), stats.non_finite(), stats.has_h(),   stats.has_relative(),
                              stats.h(),     stats.relative(),   stats.ulps(),    stats.bits()};
  return error_stats_json(what, s, std::move(worst));
}

void put_measured(json& entry, PrecisionClass declared, std::size_t non_finite, std::optional<double> max_ulps,
                  std::uint64_t mismatches) {
  if (non_finite > 0) {
    entry["measured"] = nullptr;
    entry["measured_null_reason"] = "some inputs gave a NaN or infinite result";
  } else if (!max_ulps && mismatches == 0) {
    entry["measured"] = nullptr;
    entry["measured_null_reason"] = "no inputs";
  } else {
    entry.erase("measured_null_reason");
    const std::optional<Storage> storage = parse_storage(entry.value("storage", ""));
    entry["measured"] = precision_name(
        measured_class(max_ulps.value_or(0), mismatches, declared, storage ? narrowest_bits(*storage) : 32));
  }
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
  put_measured(entry, calculation.declared, result.error.non_finite(),
               ulps ? std::optional<double>(ulps->max) : std::nullopt, result.mismatches.value_or(0));
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

namespace {

json hex_list(const std::vector<double>& values) {
  json out = json::array();
  for (double v : values) out.push_back(hex_float(v));
  return out;
}

double hex_from_json(const json& value, const std::string& where) {
  if (!value.is_string()) throw Error(ErrorCode::badarg, where + ": expected a hex-float string");
  const std::string text = value.get<std::string>();
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);  // %a text is exact; subnormals included
  if (text.empty() || end != text.c_str() + text.size())
    throw Error(ErrorCode::badarg, where + ": not a number: " + text);
  return v;
}

std::vector<double> hex_list_from_json(const json& value, const std::string& where) {
  if (!value.is_array()) throw Error(ErrorCode::badarg, where + ": expected an array");
  std::vector<double> out;
  for (std::size_t n = 0; n < value.size(); ++n) out.push_back(hex_from_json(value[n], where + "/" + std::to_string(n)));
  return out;
}

json error_stats_shard_json(const ErrorStats& stats) {
  json order = json::array();
  for (const WorstInput& w : stats.worst()) order.push_back({w.order.unit, w.order.index});
  json series = json::object();
  const std::uint64_t run_count = stats.run_inputs();
  if (const SeriesState* h = stats.h_series()) series["h"] = series_state_json(*h, run_count);
  if (const SeriesState* r = stats.relative_series()) series["relative"] = series_state_json(*r, run_count);
  series["ulps"] = series_state_json(stats.ulps_series(), run_count);
  series["bits"] = series_state_json(stats.bits_series(), run_count);
  return {{"run_inputs", run_count}, {"worst_order", order}, {"series", series}};
}

}  // namespace

json series_state_json(const SeriesState& state, std::uint64_t run_count) {
  std::vector<double> largest = state.largest;
  const std::size_t keep = std::min(largest.size(), p99_largest_needed(run_count));
  std::partial_sort(largest.begin(), largest.begin() + static_cast<std::ptrdiff_t>(keep), largest.end(),
                    std::greater<>());
  largest.resize(keep);
  return {{"count", state.count},
          {"max", hex_float(state.max)},
          {"infinite", state.infinite},
          {"sum", hex_list(state.sum.parts())},
          {"squares", hex_list(state.squares.parts())},
          {"largest", hex_list(largest)}};
}

SeriesState series_state_from_json(const json& value, const std::string& where) {
  if (!value.is_object() || !value.contains("count") || !value["count"].is_number_unsigned() ||
      !value.contains("infinite") || !value["infinite"].is_boolean())
    throw Error(ErrorCode::badarg, where + ": malformed series (count, max, infinite, sum, squares, largest)");
  SeriesState state;
  state.count = value["count"].get<std::uint64_t>();
  state.max = hex_from_json(value.value("max", json()), where + "/max");
  state.infinite = value["infinite"].get<bool>();
  for (double p : hex_list_from_json(value.value("sum", json()), where + "/sum")) state.sum.add(p);
  for (double p : hex_list_from_json(value.value("squares", json()), where + "/squares")) state.squares.add(p);
  state.largest = hex_list_from_json(value.value("largest", json()), where + "/largest");
  return state;
}

json shard_data_json(const CalculationResult& result) {
  json statistics = {{"/error", error_stats_shard_json(result.error)}};
  const auto put = [&](const char* pointer, const std::optional<ErrorStats>& stats) {
    if (stats) statistics[pointer] = error_stats_shard_json(*stats);
  };
  put("/errors/arithmetic", result.arithmetic);
  put("/errors/storage", result.storage_error);
  put("/errors/method", result.method);
  json decisions = json::array();
  for (const DecisionStats& d : result.decisions) {
    json order = json::array();
    for (const DecisionInput& kept : d.closest()) order.push_back({kept.order.unit, kept.order.index});
    decisions.push_back({{"closest_order", order}});
  }
  return {{"statistics", statistics}, {"decisions", decisions}};
}

void put_timing(json& entry, double seconds, std::size_t evaluations) {
  entry["seconds"] = seconds;
  if (seconds > 0) {
    entry["evaluations_per_second"] = static_cast<double>(evaluations) / seconds;
    entry.erase("evaluations_per_second_null_reason");
  } else {
    entry["evaluations_per_second"] = nullptr;
    entry["evaluations_per_second_null_reason"] = "the run took no measurable time";
  }
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
