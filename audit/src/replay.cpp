#include "distgrid/audit/replay.hpp"

#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {

using nlohmann::json;

namespace {

const json& find_entry(const json& report, const ReplayOptions& options) {
  for (const json& entry : report.at("calculations")) {
    if (entry.value("id", "") != options.id) continue;
    if (options.storage && entry.value("storage", "") != storage_name(*options.storage)) continue;
    return entry;
  }
  if (options.storage)
    throw Error(ErrorCode::badarg, "--storage " + std::string(storage_name(*options.storage)) +
                                       ": the report has no entry for " + options.id + " " +
                                       std::string(storage_name(*options.storage)));
  throw Error(ErrorCode::badarg, "--calc " + options.id + ": the report has no entry for " + options.id);
}

/// The kept inputs of the quantity: a statistics' worst list or a decision's closest list.
const json& kept_inputs(const json& entry, const std::string& quantity, bool& decision) {
  decision = false;
  if (quantity == "error") return entry.at("error").at("worst");
  if (quantity == "arithmetic" || quantity == "storage" || quantity == "method") {
    const json& stats = entry.at("errors").at(quantity);
    if (stats.is_null())
      throw Error(ErrorCode::badarg, "--error " + quantity + ": " + entry["id"].get<std::string>() + " has no " +
                                         quantity + " error in this report");
    return stats.at("worst");
  }
  if (entry.contains("decisions"))
    for (const json& d : entry["decisions"])
      if (d.value("name", "") == quantity) {
        decision = true;
        return d.at("closest");
      }
  std::string names = "error, arithmetic, storage, method";
  if (entry.contains("decisions"))
    for (const json& d : entry["decisions"]) names += ", " + d.value("name", "?");
  throw Error(ErrorCode::badarg, "--error " + quantity + ": " + entry["id"].get<std::string>() +
                                     " has no error or decision of that name (" + names + ")");
}

InputRecord record_of(const json& kept) {
  InputRecord r;
  r.seed = kept.at("seed").get<std::uint64_t>();
  r.generator = kept.at("generator").get<std::string>();
  r.index = kept.at("index").get<std::uint64_t>();
  r.part = kept.value("part", "");
  for (const auto& [name, value] : kept.at("input").items()) r.values.emplace_back(name, value.get<std::string>());
  return r;
}

}  // namespace

ReplayOutcome replay_from_report(const json& report, const ReplayOptions& options, Progress& progress) {
  if (!report.is_object() || report.value("schema", "") != kReportSchema)
    throw Error(ErrorCode::badfile, std::string("not a ") + kReportSchema + " report");
  const Calculation* calculation = find_calculation(options.id);
  if (!calculation) throw Error(ErrorCode::badarg, "--calc " + options.id + ": no such calculation");
  if (!calculation->replay) throw Error(ErrorCode::badarg, "--calc " + options.id + ": cannot replay inputs");
  ReplayOutcome out;
  bool decision = false;
  json kept;
  try {
    const json& entry = find_entry(report, options);
    out.storage = *parse_storage(entry.at("storage").get<std::string>());
    const json& list = kept_inputs(entry, options.quantity, decision);
    if (options.rank < 1 || options.rank > list.size())
      throw Error(ErrorCode::badarg, "--rank " + std::to_string(options.rank) + ": the report keeps " +
                                         std::to_string(list.size()) + " inputs of " + options.id + " " +
                                         std::string(storage_name(out.storage)) + " " + options.quantity);
    kept = list[options.rank - 1];
    out.input = record_of(kept);
    out.report_result = kept.at(decision ? "core" : "result").get<std::string>();
    out.report_reference = kept.at(decision ? "exact" : "reference").get<std::string>();
  } catch (const json::exception& e) {
    throw Error(ErrorCode::badfile, std::string("the report is malformed: ") + e.what());
  }

  RunSettings settings = settings_from_report(report.at("settings"));
  settings.storages = {out.storage};
  settings.threads = options.threads;
  check_settings(settings);
  RunContext context(settings, progress);
  out.threads = context.threads();
  out.values = calculation->replay(context, ReplayRequest{out.storage, out.input});
  // An input may decide several things under one name (bake.plan: its box's six
  // limits, each a brick_range decision) while the kept record names only the
  // input: the pair equal to the report's is the one it kept, else the first.
  bool found = false;
  for (const ReplayValue& v : out.values) {
    if (v.name != options.quantity) continue;
    const bool equal = v.result == out.report_result && v.reference == out.report_reference;
    if (found && !equal) continue;
    found = true;
    out.result = v.result;
    out.reference = v.reference;
    if (equal) break;
  }
  if (!found) throw Error(ErrorCode::badarg, options.id + " recomputed no \"" + options.quantity + "\" for this input");
  const char* result_name = decision ? "core answer" : "result";
  const char* reference_name = decision ? "exact answer" : "reference";
  if (out.result != out.report_result)
    out.difference = std::string(result_name) + " " + out.result + " differs from the report's " + out.report_result;
  if (out.reference != out.report_reference)
    out.difference += (out.difference.empty() ? "" : "; ") + std::string(reference_name) + " " + out.reference +
                      " differs from the report's " + out.report_reference;
  return out;
}

}  // namespace distgrid::audit
