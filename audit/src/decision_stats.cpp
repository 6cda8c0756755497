#include "distgrid/audit/decision_stats.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace distgrid::audit {

DecisionStats::DecisionStats(std::string name, std::string what) : name_(std::move(name)), what_(std::move(what)) {}

namespace {
/// Kept order: misclassified before correct, then smaller margin first.
bool ranks_before(bool wrong_a, double margin_a, bool wrong_b, double margin_b) noexcept {
  if (wrong_a != wrong_b) return wrong_a;
  return margin_a < margin_b;
}
}  // namespace

bool DecisionStats::count_and_check(bool wrong, double& margin_ulps) noexcept {
  if (std::isnan(margin_ulps)) margin_ulps = 0;
  margin_ulps = std::fabs(margin_ulps);
  min_margin_ = count_ == 0 ? margin_ulps : std::min(min_margin_, margin_ulps);
  ++count_;
  if (wrong) ++misclassified_;
  if (closest_.size() < kClosestKept) return true;
  const DecisionInput& last = closest_.back();
  return ranks_before(wrong, margin_ulps, last.core != last.exact, last.margin_ulps);
}

void DecisionStats::check_unit_generator(const std::string& generator) const {
  if (generator != units_.back().generator)
    throw std::logic_error("decision " + name_ + ": generator unit " + std::to_string(unit_) + " of \"" +
                           units_.back().generator + "\" added an input of \"" + generator + "\"");
}

void DecisionStats::keep(DecisionInput entry, bool wrong) {
  entry.order = {unit_, entry.input.index};
  auto at = std::find_if(closest_.begin(), closest_.end(), [&](const DecisionInput& d) {
    return ranks_before(wrong, entry.margin_ulps, d.core != d.exact, d.margin_ulps);
  });
  closest_.insert(at, std::move(entry));
  if (closest_.size() > kClosestKept) closest_.pop_back();
}

}  // namespace distgrid::audit
