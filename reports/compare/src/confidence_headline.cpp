#include "distgrid/reports/confidence_headline.hpp"

#include <cmath>
#include <cstdio>

#include "json_read.hpp"

namespace distgrid::reports {

using nlohmann::json;

namespace {

bool readable_share(const json& row) {
  return row.is_object() && row.value("count", json()).is_number_unsigned() &&
         row.value("within", json()).is_number_unsigned() && row.value("share", json()).is_number() &&
         row.value("lower_bound", json()).is_number();
}

}  // namespace

std::optional<ConfidenceHeadline> confidence_headline(const json& entry) {
  if (!entry.is_object() || !entry.contains("confidence") || !entry["confidence"].is_object()) return std::nullopt;
  const json& confidence = entry["confidence"];
  const json budgets = confidence.value("budgets", json::array());
  std::optional<ConfidenceHeadline> out;
  for (const json& row : budgets.is_array() ? budgets : json::array()) {
    if (!readable_share(row)) continue;
    const double bound = row["lower_bound"].get<double>();
    if (out && !(bound < out->lower_bound)) continue;
    ConfidenceHeadline h;
    h.metric = detail::text_of(row, "metric");
    h.level = confidence.value("level", json()).is_number() ? confidence["level"].get<double>() : 0;
    h.count = row["count"].get<std::uint64_t>();
    h.within = row["within"].get<std::uint64_t>();
    h.share = row["share"].get<double>();
    h.lower_bound = bound;
    bool any = false;
    for (const json& g : row.value("generators", json::array())) {
      if (!readable_share(g) || (any && !(g["lower_bound"].get<double>() < h.weakest_lower_bound))) continue;
      h.weakest_generator = detail::text_of(g, "name");
      h.weakest_count = g["count"].get<std::uint64_t>();
      h.weakest_lower_bound = g["lower_bound"].get<double>();
      any = true;
    }
    out = h;
  }
  return out;
}

std::string percent_text(double share) {
  if (!(share >= 0)) return "?";
  if (share >= 1) return "100%";
  char text[32];
  std::snprintf(text, sizeof text, "%.3f", std::floor(share * 1e5) / 1e3);
  std::string out = text;
  while (out.back() == '0') out.pop_back();
  if (out.back() == '.') out.pop_back();
  return out + "%";
}

std::string confidence_text(const ConfidenceHeadline& h) {
  return percent_text(h.share) + " within budget (>= " + percent_text(h.lower_bound) + " at " +
         percent_text(h.level) + " confidence, n = " + std::to_string(h.count) + ")";
}

}  // namespace distgrid::reports
