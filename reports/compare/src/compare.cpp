#include "distgrid/reports/compare.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <utility>

#include "distgrid/error.hpp"
#include "json_read.hpp"

namespace distgrid::reports {

using nlohmann::json;
using detail::array_of;
using detail::member;
using detail::text_of;

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Settings that make two runs unlike, in the order differences are named.
constexpr const char* kLikeSettings[] = {"storage",    "parts", "spec_parts", "mesh_parts", "mesh_files",
                                         "h",          "h_series", "band",    "seed",       "inputs_per_generator_and_part",
                                         "quick"};

/// Statistics blocks of an entry, by the path rows name them with.
constexpr const char* kStatistics[] = {"error", "errors/arithmetic", "errors/storage", "errors/method"};
constexpr const char* kUnits[] = {"h", "relative", "ulps"};
constexpr const char* kSummaries[] = {"max", "p99", "mean", "rms"};

/// The statistics block at a path such as "errors/storage", or nullptr.
const json* statistics_at(const json& entry, std::string_view path) {
  if (path == "error") return member(entry, "error");
  const json* separated = member(entry, "errors");
  const json* block = separated ? member(*separated, std::string(path.substr(7))) : nullptr;
  return block && block->is_object() ? block : nullptr;
}

void check_report(const json& report, const char* which) {
  if (!report.is_object() || !member(report, "schema") || !report["schema"].is_string())
    throw Error(ErrorCode::badfile, std::string("the ") + which + " report is not a distgrid-audit report (no \"schema\")");
  if (const json* calculations = member(report, "calculations"); calculations && !calculations->is_array())
    throw Error(ErrorCode::badfile, std::string("the ") + which + " report's /calculations is not an array");
}

std::string shard_text(const json& report) {
  const json* shard = member(report, "shard");
  if (!shard) return "whole run";
  return "shard " + shard->value("index", json()).dump() + " of " + shard->value("count", json()).dump();
}

/// Where a verdict stands from best (0) to worst; -1 when not known.
int verdict_rank(const std::string& kind, const std::string& value) {
  static const std::map<std::string, std::vector<std::string>> kOrders{
      {"claim", {"verified", "inconclusive", "refuted"}},
      {"gate", {"pass", "no budget", "fail"}},
      {"report gate", {"pass", "fail"}},
      {"smallest safe storage", {"q8", "half", "q16", "float", "double"}},
      {"measured class", {"exact", "64-bit", "32-bit in part", "16-bit in part", "8-bit in part", "inexact", "null"}}};
  const auto order = kOrders.find(kind);
  if (order == kOrders.end()) return -1;
  const auto at = std::find(order->second.begin(), order->second.end(), value);
  return at == order->second.end() ? -1 : static_cast<int>(at - order->second.begin());
}

VerdictChange verdict_change(std::string kind, std::string subject, std::string base, std::string current) {
  const int b = verdict_rank(kind, base), c = verdict_rank(kind, current);
  const Change change = b < 0 || c < 0 ? Change::changed : c > b ? Change::regressed : Change::improved;
  return {std::move(kind), std::move(subject), std::move(base), std::move(current), change};
}

void add_verdict(std::vector<VerdictChange>& out, const std::string& kind, const std::string& subject,
                 const std::string& base, const std::string& current) {
  if (base != current) out.push_back(verdict_change(kind, subject, base, current));
}

std::optional<double> number(const json* value) {
  return value && value->is_number() ? std::optional<double>(value->get<double>()) : std::nullopt;
}

/// Fills delta and change of an error row (tolerance in bits).
void classify_error(MetricRow& row) {
  if (!row.in_base || !row.in_current) {
    row.change = row.in_base ? Change::disappeared : Change::appeared;
    return;
  }
  const double b = std::fabs(row.base.value_or(kInfinity)), c = std::fabs(row.current.value_or(kInfinity));
  if (b == c) row.delta = 0;
  else if (b == 0 || std::isinf(c)) row.delta = kInfinity;
  else if (c == 0 || std::isinf(b)) row.delta = -kInfinity;
  else row.delta = std::log2(c / b);
  row.change = row.delta > row.tolerance ? Change::regressed : row.delta < -row.tolerance ? Change::improved
                                                                                            : Change::unchanged;
}

void classify_count(MetricRow& row) {
  if (!row.in_base || !row.in_current) {
    row.change = row.in_base ? Change::disappeared : Change::appeared;
    return;
  }
  const double b = row.base.value_or(kInfinity), c = row.current.value_or(kInfinity);
  row.delta = b == c ? 0 : c - b;
  row.change = row.delta > 0 ? Change::regressed : row.delta < 0 ? Change::improved : Change::unchanged;
}

MetricRow make_row(const json& entry, std::string metric, bool count, const json* base, const json* current,
                   double tolerance, bool unlike) {
  MetricRow row;
  row.id = text_of(entry, "id");
  row.storage = text_of(entry, "storage");
  row.metric = std::move(metric);
  row.count = count;
  row.in_base = base != nullptr;
  row.in_current = current != nullptr;
  row.base = number(base);
  row.current = number(current);
  row.tolerance = count ? 0 : tolerance;
  row.unlike = unlike;
  if (count) classify_count(row);
  else classify_error(row);
  return row;
}

/// The rows of one calculation and storage; either side may be null (absent).
void compare_entries(const json* base, const json* current, double tolerance, bool unlike,
                     std::vector<MetricRow>& rows) {
  const json& named = current ? *current : *base;
  static const json none;
  const auto side = [&](const json* entry) -> const json& { return entry ? *entry : none; };
  for (const char* path : kStatistics) {
    const json* b = base ? statistics_at(*base, path) : nullptr;
    const json* c = current ? statistics_at(*current, path) : nullptr;
    for (const char* unit : kUnits) {
      const json* bu = b ? member(*b, unit) : nullptr;
      const json* cu = c ? member(*c, unit) : nullptr;
      if (!bu && !cu) continue;
      for (const char* summary : kSummaries) {
        const json* bs = bu ? member(*bu, summary) : nullptr;
        const json* cs = cu ? member(*cu, summary) : nullptr;
        if (bs || cs)
          rows.push_back(make_row(named, std::string(path) + "/" + unit + "/" + summary, false, bs, cs, tolerance, unlike));
      }
    }
  }
  // Decisions by name, in the current report's order, then those only the base has.
  std::vector<std::string> names;
  for (const json* entry : {current, base})
    for (const json& d : array_of(side(entry), "decisions"))
      if (std::find(names.begin(), names.end(), text_of(d, "name")) == names.end()) names.push_back(text_of(d, "name"));
  const auto decision = [](const json* entry, const std::string& name) -> const json* {
    if (!entry) return nullptr;
    for (const json& d : array_of(*entry, "decisions"))
      if (text_of(d, "name") == name) return member(d, "misclassified");
    return nullptr;
  };
  for (const std::string& name : names)
    rows.push_back(make_row(named, "decisions/" + name + "/misclassified", true, decision(base, name),
                            decision(current, name), 0, unlike));
  const json* bm = base ? member(*base, "mismatches") : nullptr;
  const json* cm = current ? member(*current, "mismatches") : nullptr;
  if (bm || cm) rows.push_back(make_row(named, "mismatches", true, bm, cm, 0, unlike));
}

std::string entry_key(const json& entry) { return text_of(entry, "id") + " " + text_of(entry, "storage"); }

std::string measured_of(const json& entry) {
  const json* measured = member(entry, "measured");
  return measured && measured->is_string() ? measured->get<std::string>() : "null";
}

std::string gate_of(const json& entry) {
  const json* gate = member(entry, "gate");
  return gate ? text_of(*gate, "status") : std::string();
}

}  // namespace

const char* change_name(Change change) noexcept {
  switch (change) {
    case Change::unchanged: return "unchanged";
    case Change::improved: return "improved";
    case Change::regressed: return "regressed";
    case Change::appeared: return "appeared";
    case Change::disappeared: return "disappeared";
    case Change::changed: return "changed";
  }
  return "?";
}

std::vector<SettingDifference> settings_differences(const json& base, const json& current) {
  std::vector<SettingDifference> out;
  const auto differ = [&](const std::string& key, const json* b, const json* c) {
    if (b && c && *b == *c) return;
    if (!b && !c) return;
    out.push_back({key, b ? b->dump() : "absent", c ? c->dump() : "absent"});
  };
  differ("schema", member(base, "schema"), member(current, "schema"));
  const std::string bs = shard_text(base), cs = shard_text(current);
  if (bs != cs) out.push_back({"shard", bs, cs});
  static const json none = json::object();
  const json* b = member(base, "settings");
  const json* c = member(current, "settings");
  for (const char* key : kLikeSettings) differ(key, member(b ? *b : none, key), member(c ? *c : none, key));
  return out;
}

std::string differences_text(const std::vector<SettingDifference>& differences) {
  const auto brief = [](const std::string& text) { return text.size() <= 60 ? text : text.substr(0, 57) + "..."; };
  std::string out;
  for (const SettingDifference& d : differences)
    out += (out.empty() ? "" : "; ") + d.key + " " + brief(d.base) + " vs " + brief(d.current);
  return out;
}

std::size_t Comparison::count(Change change) const noexcept {
  std::size_t n = 0;
  for (const MetricRow& r : rows) n += r.change == change ? 1 : 0;
  for (const VerdictChange& v : verdicts) n += v.change == change ? 1 : 0;
  return n;
}

bool Comparison::regressed() const noexcept { return count(Change::regressed) > 0; }

Comparison compare_reports(const json& base, const json& current, const CompareOptions& options) {
  check_report(base, "base");
  check_report(current, "new");
  Comparison out;
  out.unlike = settings_differences(base, current);
  if (!out.unlike.empty() && !options.allow_different_settings)
    throw Error(ErrorCode::badarg, "the reports' settings differ: " + differences_text(out.unlike) +
                                       " (--allow-different-settings compares unlike runs)");
  const bool unlike = !out.unlike.empty();

  std::map<std::string, const json*> base_entries;
  for (const json& entry : array_of(base, "calculations")) base_entries.emplace(entry_key(entry), &entry);
  std::map<std::string, bool> matched;
  for (const json& entry : array_of(current, "calculations")) {
    const std::string key = entry_key(entry);
    const auto at = base_entries.find(key);
    const json* b = at == base_entries.end() ? nullptr : at->second;
    const double tolerance = text_of(entry, "declared") == "exact" ? 0 : options.tolerance_bits;
    if (!b) {
      out.verdicts.push_back({"calculation", key, "", "present", Change::appeared});
      continue;
    }
    matched[key] = true;
    compare_entries(b, &entry, tolerance, unlike, out.rows);
    add_verdict(out.verdicts, "gate", key, gate_of(*b), gate_of(entry));
    add_verdict(out.verdicts, "measured class", key, measured_of(*b), measured_of(entry));
  }
  for (const json& entry : array_of(base, "calculations"))
    if (!matched.count(entry_key(entry)))
      out.verdicts.push_back({"calculation", entry_key(entry), "present", "", Change::disappeared});

  std::vector<std::string> claim_ids;
  for (const json* report : {&current, &base})
    for (const json& claim : array_of(*report, "claims"))
      if (std::find(claim_ids.begin(), claim_ids.end(), text_of(claim, "id")) == claim_ids.end())
        claim_ids.push_back(text_of(claim, "id"));
  const auto verdict_of = [](const json& report, const std::string& id) {
    for (const json& claim : array_of(report, "claims"))
      if (text_of(claim, "id") == id) return text_of(claim, "verdict");
    return std::string();
  };
  for (const std::string& id : claim_ids) {
    const std::string b = verdict_of(base, id), c = verdict_of(current, id);
    if (b.empty() || c.empty()) {
      if (b != c) out.verdicts.push_back({"claim", id, b, c, b.empty() ? Change::appeared : Change::disappeared});
      continue;
    }
    add_verdict(out.verdicts, "claim", id, b, c);
  }
  const auto open_item = [](const json& report) {
    const json* comparison = member(report, "comparison");
    const json* verdict = comparison ? member(*comparison, "verdict") : nullptr;
    return verdict ? text_of(*verdict, "decision") : std::string();
  };
  add_verdict(out.verdicts, "float or double", "open item", open_item(base), open_item(current));
  const auto smallest_storage = [](const json& report) {
    const json* comparison = member(report, "comparison");
    const json* storages = comparison ? member(*comparison, "storages") : nullptr;
    const json* verdict = storages ? member(*storages, "verdict") : nullptr;
    return verdict ? text_of(*verdict, "decision") : std::string();
  };
  const std::string base_smallest = smallest_storage(base), current_smallest = smallest_storage(current);
  if (!base_smallest.empty() || !current_smallest.empty())
    add_verdict(out.verdicts, "smallest safe storage", "storages", base_smallest, current_smallest);
  const json* bg = member(base, "gate");
  const json* cg = member(current, "gate");
  add_verdict(out.verdicts, "report gate", "report", bg ? text_of(*bg, "status") : "", cg ? text_of(*cg, "status") : "");
  return out;
}

GateSummary gate_summary(const json& report) {
  GateSummary out;
  const json* gate = member(report, "gate");
  out.status = gate && !text_of(*gate, "status").empty() ? text_of(*gate, "status") : "unknown";
  for (const json& entry : array_of(report, "calculations")) {
    ++out.entries;
    const json* entry_gate = member(entry, "gate");
    if (!entry_gate) continue;
    if (text_of(*entry_gate, "status") == "no budget") ++out.shortfalls;
    for (const json& check : array_of(*entry_gate, "checks"))
      if (text_of(check, "status") == "fail") ++out.shortfalls;
  }
  return out;
}

std::string report_revision(const json& report) {
  const json* build = member(report, "build");
  const std::string revision = build ? text_of(*build, "git_revision") : "";
  return revision.empty() ? "unknown" : revision;
}

std::string report_commit_time(const json& report) {
  const json* build = member(report, "build");
  const std::string time = build ? text_of(*build, "commit_time") : "";
  return time.empty() ? "unknown" : time;
}

std::string delta_text(const MetricRow& row) {
  if (!row.in_base) return "appeared";
  if (!row.in_current) return "disappeared";
  char text[48];
  if (row.count) {
    if (std::isinf(row.delta)) return row.delta > 0 ? "to null" : "from null";
    std::snprintf(text, sizeof text, "%+.0f", row.delta);
    return text;
  }
  if (std::isinf(row.delta)) {
    const double b = row.base.value_or(kInfinity), c = row.current.value_or(kInfinity);
    if (row.delta > 0) return b == 0 ? "from 0" : "to null";
    return c == 0 ? "to 0" : "from null";
  }
  std::snprintf(text, sizeof text, "%+.2f bits", row.delta);
  return text;
}

}  // namespace distgrid::reports
