#include "distgrid/audit/merge.hpp"

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <iterator>
#include <limits>
#include <optional>
#include <set>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/comparison.hpp"
#include "distgrid/audit/confidence.hpp"
#include "distgrid/audit/gate.hpp"
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


/// Entry fields join_entries builds; every other field must be equal in every shard.
const std::set<std::string> kJoinedFields{"measured", "measured_null_reason", "inputs", "error", "errors",
                                          "mismatches", "decisions", "details", "gate", "confidence", "shard_data",
                                          "seconds", "evaluations_per_second",
                                          "evaluations_per_second_null_reason"};

/// A key as one JSON pointer token: "~" becomes "~0", "/" becomes "~1".
std::string pointer_token(const std::string& key) {
  std::string out;
  for (char c : key) out += c == '~' ? std::string("~0") : c == '/' ? std::string("~1") : std::string(1, c);
  return out;
}

[[noreturn]] void refuse(const std::string& shard, const std::string& where, const std::string& why) {
  throw Error(ErrorCode::badarg, shard + ": " + where + ": " + why);
}

const json& field_at(const json& value, const std::string& pointer, const std::string& shard) {
  const json::json_pointer at(pointer);
  if (!value.contains(at)) refuse(shard, pointer, "missing");
  return value.at(at);
}

/// A kept input's ranking number; null stands for an infinite value.
double number_or_infinity(const json& value) {
  return value.is_number() ? value.get<double>() : std::numeric_limits<double>::infinity();
}

/// Kept inputs (worst or closest) of every shard, each with its single-run
/// order (unit, index), ranked by `before` with ties on the lower order: the kept list
/// of the single run, since each shard kept its best under the same order.
template <class Before>
json merge_kept(const std::vector<const json*>& lists, const std::vector<const json*>& orders, std::size_t keep,
                const std::vector<std::string>& names, const std::string& where, Before&& before) {
  struct Kept {
    const json* item;
    InputOrder order;
  };
  std::vector<Kept> all;
  for (std::size_t i = 0; i < lists.size(); ++i) {
    if (!lists[i]->is_array() || !orders[i]->is_array() || lists[i]->size() != orders[i]->size())
      refuse(names[i], where, "the kept inputs and their /shard_data orders differ in number");
    for (std::size_t k = 0; k < lists[i]->size(); ++k) {
      const json& order = (*orders[i])[k];
      if (!order.is_array() || order.size() != 2 || !order[0].is_number_unsigned() || !order[1].is_number_unsigned())
        refuse(names[i], where, "a /shard_data order is not [unit, index]");
      all.push_back({&(*lists[i])[k], {order[0].get<std::uint64_t>(), order[1].get<std::uint64_t>()}});
    }
  }
  // Stable: inputs of one shard with the same order (several adds of one input) keep their order.
  std::stable_sort(all.begin(), all.end(), [&](const Kept& a, const Kept& b) {
    if (before(*a.item, *b.item)) return true;
    if (before(*b.item, *a.item)) return false;
    return a.order < b.order;
  });
  json out = json::array();
  for (std::size_t k = 0; k < all.size() && k < keep; ++k) out.push_back(*all[k].item);
  return out;
}

std::uint64_t sum_of(const std::vector<const json*>& parts, const std::string& pointer,
                     const std::vector<std::string>& names) {
  std::uint64_t total = 0;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const json& v = field_at(*parts[i], pointer, names[i]);
    if (!v.is_number_unsigned()) refuse(names[i], pointer, "expected a count");
    total += v.get<std::uint64_t>();
  }
  return total;
}

/// The statistics at `pointer` joined from every shard's entry and series.
json merge_error_stats(const std::vector<const json*>& parts, const std::string& pointer,
                       const std::vector<std::string>& names) {
  std::vector<const json*> stats, worst, orders;
  std::vector<const json*> data;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    stats.push_back(&field_at(*parts[i], pointer, names[i]));
    data.push_back(&field_at(*parts[i], "/shard_data/statistics/" + pointer_token(pointer), names[i]));
    worst.push_back(&field_at(*stats.back(), "/worst", names[i]));
    orders.push_back(&field_at(*data.back(), "/worst_order", names[i]));
    if ((*stats[i])["what"] != (*stats[0])["what"]) refuse(names[i], pointer + "/what", "differs between shards");
  }
  ErrorStatsSummaries s;
  s.count = static_cast<std::size_t>(sum_of(stats, "/count", names));
  s.non_finite = static_cast<std::size_t>(sum_of(stats, "/non_finite", names));
  s.has_h = stats[0]->contains("h");
  s.has_relative = stats[0]->contains("relative");
  const auto unit = [&](const char* name, std::optional<Summary>& out) {
    SeriesState merged;
    for (std::size_t i = 0; i < parts.size(); ++i) {
      const std::string where = pointer + " (/shard_data series " + name + ")";
      merged.merge(series_state_from_json(field_at(*data[i], std::string("/series/") + name, names[i]), where));
    }
    if (merged.count != s.count) refuse(names[0], pointer, std::string("the ") + name + " series do not add up to the count");
    if (merged.count == 0) return;
    if (merged.largest.size() < p99_largest_needed(merged.count))
      refuse(names[0], pointer, std::string("the shards kept too few ") + name + " values for the p99");
    out = summarize(merged);
  };
  if (s.has_h) unit("h", s.h);
  if (s.has_relative) unit("relative", s.relative);
  unit("ulps", s.ulps);
  unit("bits", s.bits);
  // Worst inputs rank by h when carried, else relative, else ulps (ErrorStats::rank_of).
  const std::string rank = s.has_h ? "h" : s.has_relative ? "relative" : "ulps";
  json kept = merge_kept(worst, orders, ErrorStats::kWorstKept, names, pointer + "/worst",
                         [&](const json& a, const json& b) {
                           return number_or_infinity(a["error"][rank]) > number_or_infinity(b["error"][rank]);
                         });
  return error_stats_json((*stats[0])["what"].get<std::string>(), s, std::move(kept));
}

json merge_decision(const std::vector<const json*>& parts, std::size_t d, const std::vector<std::string>& names) {
  const std::string pointer = "/decisions/" + std::to_string(d);
  std::vector<const json*> stats, closest, orders;
  double min_margin = std::numeric_limits<double>::infinity();
  for (std::size_t i = 0; i < parts.size(); ++i) {
    stats.push_back(&field_at(*parts[i], pointer, names[i]));
    for (const char* key : {"name", "what"})
      if ((*stats[i])[key] != (*stats[0])[key]) refuse(names[i], pointer + "/" + key, "differs between shards");
    closest.push_back(&field_at(*stats[i], "/closest", names[i]));
    orders.push_back(&field_at(*parts[i], "/shard_data/decisions/" + std::to_string(d) + "/closest_order", names[i]));
    if ((*stats[i]).value("count", std::uint64_t{0}) > 0)
      min_margin = std::min(min_margin, number_or_infinity((*stats[i])["min_margin_ulps"]));
  }
  const std::uint64_t total = sum_of(stats, "/count", names);
  const auto wrong = [](const json& k) { return k["core"] != k["exact"]; };
  json kept = merge_kept(closest, orders, DecisionStats::kClosestKept, names, pointer + "/closest",
                         [&](const json& a, const json& b) {
                           if (wrong(a) != wrong(b)) return wrong(a);
                           return number_or_infinity(a["margin_ulps"]) < number_or_infinity(b["margin_ulps"]);
                         });
  return decision_stats_json((*stats[0])["name"].get<std::string>(), (*stats[0])["what"].get<std::string>(), total,
                             sum_of(stats, "/misclassified", names), total == 0 ? 0.0 : min_margin, std::move(kept));
}

/// How a details number that differs between shards joins, by the name of
/// the nearest key above it: counts add, a key starting with "max" (or inside
/// one) takes the largest (null, an infinite value, wins), "min" the smallest.
enum class DetailRule { none, add, max, min };

DetailRule detail_rule(const std::vector<std::string>& keys) {
  for (auto key = keys.rbegin(); key != keys.rend(); ++key) {
    if (key->starts_with("by_")) return DetailRule::none;  // a table (by_corner_count), not a count
    if (*key == "count" || key->starts_with("count_") || key->ends_with("_count") || *key == "fallbacks" ||
        *key == "mismatches" || key->ends_with("_differs") || key->starts_with("misclassified") ||
        // field.density_store: inputs storage changed; grid.world_box: boxes wrong (a count, or a row's
        // flag); mesh.edge_key: inputs whose key is not exact as a double.
        *key == "changed_by_storage" || *key == "box_missing_or_extra" || *key == "keys_inexact_as_double" ||
        // mesh.weld: soups and their corner pairs.
        *key == "soups" || *key == "pairs" || *key == "identical_pairs" || *key == "pairs_one_ulp_apart" ||
        // mesh.normals and mesh.ray_parity: meshes drawn and refused.
        *key == "meshes" || *key == "meshes_refused" ||
        // mesh.closest_point: degenerate triangles skipped.
        *key == "zero_area_skipped" ||
        // mesh.ray_parity: each counts over the shard's meshes, so all add (its h and band are constants: equal).
        *key == "meshes_whose_first_ray_meets_an_edge_or_corner" || *key == "far_bricks" ||
        *key == "far_bricks_inside")
      return DetailRule::add;
    if (*key == "positions" || *key == "numbers_compared") return DetailRule::add;  // export.*
    if (*key == "audited" || *key == "without_core_vertex") return DetailRule::add;  // contour.*
    if (key->starts_with("max") || key->starts_with("largest")) return DetailRule::max;
    if (key->starts_with("min") || key->starts_with("smallest")) return DetailRule::min;
  }
  return DetailRule::none;
}

/// An example list (a details key ending in "examples"): each shard keeps the
/// first `keep` examples of its share, in order, so the single run's first
/// ones are among them. Every example names its "generator" and "index"; the
/// single run met them in the order of /inputs/generators (its outer loop),
/// then by index.
json merge_examples(const std::vector<const json*>& values, const std::string& pointer,
                    const std::vector<std::string>& names, const std::vector<std::string>& generators,
                    std::size_t keep) {
  struct Example {
    const json* item;
    std::size_t generator;
    std::uint64_t index;
  };
  std::vector<Example> all;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i]->is_array()) refuse(names[i], pointer, "an example list that is not a list");
    for (const json& item : *values[i]) {
      const auto g = item.is_object() && item.contains("generator")
                         ? std::find(generators.begin(), generators.end(), item["generator"])
                         : generators.end();
      if (g == generators.end() || !item.contains("index") || !item["index"].is_number_unsigned())
        refuse(names[i], pointer, "an example without a generator of the entry and an index");
      all.push_back({&item, static_cast<std::size_t>(g - generators.begin()), item["index"].get<std::uint64_t>()});
    }
  }
  std::stable_sort(all.begin(), all.end(), [](const Example& a, const Example& b) {
    return a.generator != b.generator ? a.generator < b.generator : a.index < b.index;
  });
  json out = json::array();
  for (std::size_t k = 0; k < all.size() && k < keep; ++k) out.push_back(*all[k].item);
  return out;
}

/// Counts by name (an object whose keys are the names a shard met): the union
/// of the names, each count adding over the shards that have it.
json merge_counts_by_name(const std::vector<const json*>& values, const std::string& pointer,
                          const std::vector<std::string>& names) {
  json out = json::object();
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (!values[i]->is_object()) refuse(names[i], pointer, "counts by name that are not an object");
    for (const auto& [name, count] : values[i]->items()) {
      if (!count.is_number_integer() || count.get<std::int64_t>() < 0)
        refuse(names[i], pointer + "/" + pointer_token(name), "a count that is not a whole number");
      out[name] = out.value(name, std::uint64_t{0}) + count.get<std::uint64_t>();
    }
  }
  return out;
}

/// Details joined from every shard: objects with the same keys and arrays of
/// the same length join item by item, example lists by merge_examples, counts
/// add, other equal values stay, other numbers join by detail_rule. Anything
/// else is refused, naming the shard and the pointer.
json merge_details(const std::vector<const json*>& values, const std::string& pointer, std::vector<std::string>& keys,
                   const std::vector<std::string>& names, const std::vector<std::string>& generators) {
  const json& first = *values[0];
  // mesh.closest_point's counts by exact feature: a shard names only the features its inputs met.
  if (!keys.empty() && keys.back() == "exact_features") return merge_counts_by_name(values, pointer, names);
  // Example lists are capped at ErrorStats::kWorstKept; mesh.normals lists every mismatch.
  if (!keys.empty() && keys.back().ends_with("examples"))
    return merge_examples(values, pointer, names, generators, ErrorStats::kWorstKept);
  if (!keys.empty() && keys.back() == "edge_list_mismatches")
    return merge_examples(values, pointer, names, generators, std::numeric_limits<std::size_t>::max());
  for (std::size_t i = 1; i < values.size(); ++i)
    if (values[i]->type() != first.type() && !(values[i]->is_null() || first.is_null()) &&
        !(values[i]->is_number() && first.is_number()))
      refuse(names[i], pointer, "the details differ in kind between shards");
  if (first.is_object()) {
    json out = json::object();
    for (const auto& [key, item] : first.items()) {
      std::vector<const json*> children;
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!values[i]->is_object() || !values[i]->contains(key) || values[i]->size() != first.size())
          refuse(names[i], pointer, "the details have other keys than in " + names[0]);
        children.push_back(&(*values[i])[key]);
      }
      keys.push_back(key);
      out[key] = merge_details(children, pointer + "/" + pointer_token(key), keys, names, generators);
      keys.pop_back();
    }
    return out;
  }
  if (first.is_array()) {
    json out = json::array();
    for (std::size_t k = 0; k < first.size(); ++k) {
      std::vector<const json*> children;
      for (std::size_t i = 0; i < values.size(); ++i) {
        if (!values[i]->is_array() || values[i]->size() != first.size())
          refuse(names[i], pointer, "the details' lists differ in length between shards");
        children.push_back(&(*values[i])[k]);
      }
      out.push_back(merge_details(children, pointer + "/" + std::to_string(k), keys, names, generators));
    }
    return out;
  }
  // Counts add even when the shards drew equally many; other equal values stay.
  const DetailRule rule = detail_rule(keys);
  if (rule != DetailRule::add && std::all_of(values.begin(), values.end(), [&](const json* v) { return *v == first; }))
    return first;
  if (rule == DetailRule::add && std::all_of(values.begin(), values.end(), [](const json* v) { return v->is_boolean(); }))
    // A count-like flag (one input's): true when any shard's is.
    return std::any_of(values.begin(), values.end(), [](const json* v) { return v->get<bool>(); });
  if (rule == DetailRule::add) {
    std::uint64_t total = 0;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (!values[i]->is_number_unsigned()) refuse(names[i], pointer, "a count that is not a whole number");
      total += values[i]->get<std::uint64_t>();
    }
    return total;
  }
  if (rule == DetailRule::max || rule == DetailRule::min) {
    // null stands for NaN or infinity (see the details' null_means).
    double best = rule == DetailRule::max ? -std::numeric_limits<double>::infinity()
                                          : std::numeric_limits<double>::infinity();
    bool any_null = false;
    for (std::size_t i = 0; i < values.size(); ++i) {
      if (values[i]->is_null()) {
        any_null = true;
        continue;
      }
      if (!values[i]->is_number()) refuse(names[i], pointer, "expected a number");
      const double v = values[i]->get<double>();
      best = rule == DetailRule::max ? std::max(best, v) : std::min(best, v);
    }
    if ((any_null && rule == DetailRule::max) || !std::isfinite(best)) return nullptr;
    const auto at = std::find_if(values.begin(), values.end(), [&](const json* v) { return v->is_number() && v->get<double>() == best; });
    return **at;  // keeps the shard's own JSON number (integer or float)
  }
  for (std::size_t i = 1; i < values.size(); ++i)
    if (*values[i] != first) refuse(names[i], pointer, "differs between shards and has no merge rule");
  return first;
}

/// One calculation and storage joined from the entry of every shard, in shard
/// index order (`names` likewise): counts add, statistics and decisions merge
/// exactly, details by merge_details, and the measured class and gate are
/// computed again from the joined numbers.
json join_entries(const Calculation& calculation, const json& settings, const std::vector<const json*>& parts,
                  const std::vector<std::string>& names) {
  const json& first = *parts[0];
  const std::string where = "/calculations/" + std::string(calculation.id) + " " + first.value("storage", "");
  for (std::size_t i = 1; i < parts.size(); ++i)
    for (const auto& [key, value] : parts[i]->items())
      if (!kJoinedFields.count(key) && (!first.contains(key) || first[key] != value))
        refuse(names[i], where + "/" + key, "differs between shards");
  json out = first;
  out.erase("shard_data");

  out["inputs"]["count"] = sum_of(parts, "/inputs/count", names);
  json& generators = out["inputs"]["generators"];
  for (std::size_t g = 0; g < generators.size(); ++g)
    for (const char* key : {"count", "fallbacks"})
      generators[g][key] = sum_of(parts, "/inputs/generators/" + std::to_string(g) + "/" + key, names);

  for (const auto& [pointer, data] : first.at("shard_data").at("statistics").items())
    out[json::json_pointer(pointer)] = merge_error_stats(parts, pointer, names);
  if (first.contains("decisions"))
    for (std::size_t d = 0; d < first["decisions"].size(); ++d) out["decisions"][d] = merge_decision(parts, d, names);
  if (first.contains("mismatches")) out["mismatches"] = sum_of(parts, "/mismatches", names);
  if (first.contains("details")) {
    // A calculation that deals whole units (a part each) to the shards lists in
    // each shard only its own units' rows; concatenated in shard order, they are
    // the single run's rows, since every shard owns a contiguous share of the units.
    std::vector<json> copies;
    json lists = json::object();
    for (std::size_t i = 0; i < parts.size(); ++i) {
      copies.push_back(field_at(*parts[i], "/details", names[i]));
      for (const std::string_view view : calculation.concatenated_details) {
        const std::string pointer(view);
        const json::json_pointer at(pointer);
        if (!copies.back().contains(at) || !copies.back()[at].is_array())
          refuse(names[i], where + "/details" + pointer, "expected a list");
        json& list = copies.back()[at];
        json& joined = lists[pointer];
        if (joined.is_null()) joined = json::array();
        for (json& row : list) joined.push_back(std::move(row));
        list = json::array();
      }
    }
    std::vector<const json*> details;
    for (const json& copy : copies) details.push_back(&copy);
    std::vector<std::string> keys, generator_names;
    for (const json& generator : generators) generator_names.push_back(generator.at("name"));
    out["details"] = merge_details(details, where + "/details", keys, names, generator_names);
    for (const auto& [pointer, joined] : lists.items()) out["details"][json::json_pointer(pointer)] = joined;
  }

  const json& error = out["error"];
  const std::optional<double> max_ulps =
      error["ulps"]["max"].is_number() ? std::optional<double>(error["ulps"]["max"].get<double>()) : std::nullopt;
  put_measured(out, calculation.declared, error["non_finite"].get<std::size_t>(), max_ulps,
               out.value("mismatches", std::uint64_t{0}));

  // The budgets a shard gated against are in its checks; gate the joined entry again.
  out["gate"] = gate_json(check_entry(out, budgets_from_checks(first), settings));
  if (first.contains("confidence")) out["confidence"] = merge_confidence(parts, names);
  return out;
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

  // Entries grouped by calculation, in registry order. Every calculation splits
  // its inputs, so its entries (one per storage) are in every shard, joined by
  // join_entries.
  struct Group {
    std::size_t position;
    std::vector<std::vector<json>> by_shard;  // [shard index] -> entries in order
  };
  std::vector<Group> groups;
  json inputs = json::object();
  double seconds = 0;
  std::vector<std::size_t> index_of(count);
  for (std::size_t n = 0; n < count; ++n) index_of[n] = shards[n]["shard"]["index"].get<std::size_t>();
  for (std::size_t n = 0; n < count; ++n) {
    for (const json& entry : shards[n]["calculations"]) {
      const std::string id = entry.at("id").get<std::string>();
      const std::size_t position = registry_position(id, names[n]);
      if (!entry.contains("shard_data"))
        throw Error(ErrorCode::badarg, names[n] + ": calculation " + id +
                                           " splits its inputs, but its entry has no /shard_data");
      auto group = std::find_if(groups.begin(), groups.end(), [&](const Group& g) { return g.position == position; });
      if (group == groups.end()) {
        groups.push_back({position, std::vector<std::vector<json>>(count)});
        group = std::prev(groups.end());
      }
      group->by_shard[index_of[n]].push_back(entry);
    }
    for (const auto& [id, generators] : shards[n]["settings"]["inputs"].items()) {
      if (!inputs.contains(id) || !generators.is_object()) {
        inputs[id] = generators;
        continue;
      }
      for (const auto& [generator, drawn] : generators.items())
        inputs[id][generator] = inputs[id].value(generator, std::uint64_t{0}) + drawn.get<std::uint64_t>();
    }
    seconds += shards[n].at("run_seconds").get<double>();
  }
  std::sort(groups.begin(), groups.end(), [](const Group& a, const Group& b) { return a.position < b.position; });
  json entries = json::array();
  for (Group& g : groups) {
    const Calculation& calculation = calculations()[g.position];
    std::size_t entries_per_shard = 0;  // one per storage, in every shard
    for (const std::vector<json>& held : g.by_shard) entries_per_shard = std::max(entries_per_shard, held.size());
    const auto shard_name = [&](std::size_t index) {
      return names[static_cast<std::size_t>(std::find(index_of.begin(), index_of.end(), index) - index_of.begin())];
    };
    std::vector<std::string> ordered_names;
    for (std::size_t i = 0; i < count; ++i) {
      ordered_names.push_back(shard_name(i));
      if (g.by_shard[i].size() != entries_per_shard)
        throw Error(ErrorCode::badarg, ordered_names.back() + ": calculation " + std::string(calculation.id) +
                                           " splits its inputs, so every shard must hold its entries");
    }
    std::size_t evaluations = 0;
    double calculation_seconds = 0;
    for (std::size_t i = 0; i < count; ++i) calculation_seconds += g.by_shard[i].front().value("seconds", 0.0);
    json joined = json::array();
    for (std::size_t e = 0; e < g.by_shard[0].size(); ++e) {
      std::vector<const json*> parts;
      for (std::size_t i = 0; i < count; ++i) parts.push_back(&g.by_shard[i][e]);
      joined.push_back(join_entries(calculation, shards[0]["settings"], parts, ordered_names));
      evaluations += joined.back()["inputs"].at("count").get<std::size_t>();
    }
    for (json& entry : joined) {
      put_timing(entry, calculation_seconds, evaluations);
      entries.push_back(std::move(entry));
    }
  }

  // A shard's gate status is its whole entries' and, in shard 0, its claims'
  // status (run_audit leaves out the split entries, gated here once joined);
  // the single run fails exactly when a shard or a joined entry does.
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
  if (merged.contains("comparison")) {
    json& comparison = merged["comparison"];
    comparison["rows"] = comparison_rows(entries, merged["settings"].at("h").get<double>());
    if (comparison.contains("storages"))
      comparison["storages"]["verdict"] = storage_verdict(
          comparison["storages"], comparison["rows"],
          comparison.value("verdict", json::object()).value("scope", json::object()));
  }
  merged["calculations"] = entries;
  merged["findings"] = findings_json(entries);
  merged["gate"]["status"] = every_shard_passed && gate_status(entries) == "pass" ? "pass" : "fail";
  merged["run_seconds"] = seconds;
  put_sections_missing(merged);
  return merged;
}

}  // namespace distgrid::audit
