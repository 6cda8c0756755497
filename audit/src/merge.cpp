#include "distgrid/audit/merge.hpp"

#include <algorithm>
#include <cstddef>
#include <iterator>
#include <set>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/comparison.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit {

using nlohmann::json;

namespace {

/// Sections merge_reports builds itself (the whole-run sections come from shard 0);
/// any other must be equal in every shard.
const std::set<std::string> kJoinedSections = [] {
  std::set<std::string> sections{"schema",   "tool", "build",       "settings", "calculations",
                                 "findings", "gate", "run_seconds", "shard",    "sections_missing"};
  sections.insert(std::begin(kWholeRunSections), std::end(kWholeRunSections));
  return sections;
}();

std::size_t registry_position(const std::string& id, const std::string& shard_name) {
  const std::vector<Calculation>& registry = calculations();
  for (std::size_t p = 0; p < registry.size(); ++p)
    if (registry[p].id == id) return p;
  throw Error(ErrorCode::badarg, shard_name + ": calculation \"" + id + "\" is not in this tool's registry");
}

/// The settings with the fields a shard may differ in removed.
json comparable_settings(json settings) {
  settings.erase("threads");
  settings.erase("inputs");
  return settings;
}

}  // namespace

json merge_reports(const std::vector<json>& shards, const std::vector<std::string>& names) {
  if (shards.empty()) throw Error(ErrorCode::badarg, "merge needs at least one shard report");
  const std::size_t count = shards.size();
  std::vector<bool> seen(count, false);
  for (std::size_t n = 0; n < count; ++n) {
    const json& r = shards[n];
    if (!r.is_object() || r.value("schema", "") != kReportSchema)
      throw Error(ErrorCode::badarg, names[n] + ": not a " + std::string(kReportSchema) + " report");
    if (!r.contains("shard"))
      throw Error(ErrorCode::badarg, names[n] + ": not a shard report (written without --shard I/N)");
    const std::size_t index = r["shard"].at("index").get<std::size_t>();
    if (r["shard"].at("count").get<std::size_t>() != count)
      throw Error(ErrorCode::badarg, names[n] + ": a shard of " + r["shard"]["count"].dump() + ", but " +
                                         std::to_string(count) + " reports were given");
    if (index >= count || seen[index])
      throw Error(ErrorCode::badarg, names[n] + ": shard index " + std::to_string(index) + " repeated or out of range");
    seen[index] = true;
    for (const char* section : {"tool", "build"})
      if (r[section] != shards[0][section])
        throw Error(ErrorCode::badarg, names[n] + ": /" + section + " differs from " + names[0]);
    if (comparable_settings(r["settings"]) != comparable_settings(shards[0]["settings"]))
      throw Error(ErrorCode::badarg, names[n] + ": /settings differ from " + names[0]);
    if (r["gate"].at("budgets") != shards[0]["gate"].at("budgets"))
      throw Error(ErrorCode::badarg, names[n] + ": gated against other budgets than " + names[0]);
    // Shard 0 computes the sections that need the whole run; no other shard may hold one.
    for (const char* section : kWholeRunSections)
      if (index != 0 && r.contains(section))
        throw Error(ErrorCode::badarg, names[n] + ": shard " + std::to_string(index) + " holds /" + section +
                                           ", which only shard 0 computes");
    for (const auto& [key, value] : r.items())
      if (!kJoinedSections.count(key) && (!shards[0].contains(key) || shards[0][key] != value))
        throw Error(ErrorCode::badarg, names[n] + ": section /" + key + " differs between shards");
  }

  // Entries grouped by calculation, in registry order; a calculation's entries
  // (one per storage) come from the one shard that ran it, in its order.
  struct Group {
    std::size_t position;
    std::size_t shard;
    std::vector<json> entries;
  };
  std::vector<Group> groups;
  json inputs = json::object();
  double seconds = 0;
  for (std::size_t n = 0; n < count; ++n) {
    for (const json& entry : shards[n]["calculations"]) {
      const std::string id = entry.at("id").get<std::string>();
      const std::size_t position = registry_position(id, names[n]);
      auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.position == position; });
      if (group == groups.end()) {
        groups.push_back({position, n, {}});
        group = std::prev(groups.end());
      } else if (group->shard != n) {
        throw Error(ErrorCode::badarg, "calculation " + id + " is in both " + names[group->shard] + " and " + names[n]);
      }
      group->entries.push_back(entry);
    }
    for (const auto& [id, generators] : shards[n]["settings"]["inputs"].items()) inputs[id] = generators;
    seconds += shards[n].at("run_seconds").get<double>();
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.position < b.position; });
  json entries = json::array();
  for (Group& g : groups)
    for (json& entry : g.entries) entries.push_back(std::move(entry));

  // A shard's gate status is its entries' and, in shard 0, its claims' status;
  // the single run fails exactly when one of the shards does.
  bool every_shard_passed = true;
  for (const json& r : shards) every_shard_passed = every_shard_passed && r["gate"].value("status", "") == "pass";

  const json& first = *std::find_if(shards.begin(), shards.end(),
                                    [](const json& r) { return r["shard"]["index"].get<std::size_t>() == 0; });
  json merged = shards[0];
  merged.erase("shard");
  for (const char* section : kWholeRunSections) {
    merged.erase(section);
    if (first.contains(section)) merged[section] = first[section];
  }
  merged["settings"]["inputs"] = inputs;
  if (merged.contains("comparison"))
    merged["comparison"]["rows"] = comparison_rows(entries, merged["settings"].at("h").get<double>());
  merged["calculations"] = entries;
  merged["findings"] = findings_json(entries);
  merged["gate"]["status"] = every_shard_passed && gate_status(entries) == "pass" ? "pass" : "fail";
  merged["run_seconds"] = seconds;
  put_sections_missing(merged);
  return merged;
}

}  // namespace distgrid::audit
