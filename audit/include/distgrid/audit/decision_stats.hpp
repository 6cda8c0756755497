#pragma once
// Statistics of one decision a calculation takes (a branch that a rounding
// could flip: a brick kept or skipped, a Voronoi region, a sign, a ray
// crossing, two corners welded or not). The core's answer is compared with the
// exact answer (exact rationals or integers), and every input's distance to
// the decision boundary is kept as a margin, so a reader sees both whether the
// core ever chose wrongly and how close the inputs came to making it.
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "distgrid/audit/error_stats.hpp"

namespace distgrid::audit {

/// One kept input of a decision: what the core and the exact reference
/// answered, and its margin.
struct DecisionInput {
  std::string core;   ///< the core's answer, as text ("inside", "edge 1", "keep")
  std::string exact;  ///< the exact answer, same vocabulary
  /// Distance of the decided quantity from the boundary in ulps of that
  /// quantity as a double (0: on the boundary; the decision is a tie there).
  double margin_ulps = 0;
  InputRecord input;
  InputOrder order;  ///< see ErrorStats::begin_unit
};

class DecisionStats {
 public:
  static constexpr std::size_t kClosestKept = 5;

  /// `name` is short and stable ("region", "sign", "brick"); `what` is a
  /// sentence: the decision, the exact reference and the margin's quantity.
  DecisionStats(std::string name, std::string what);

  /// Adds one input. make_record() is called only when the input is kept
  /// (misclassified inputs first, then the smallest margins; ties keep the
  /// earlier input first) or is the first of its generator unit (whose
  /// generator it names, see units); a debug build calls it for every input
  /// to check its generator. A NaN margin counts as 0.
  template <class MakeRecord>
  void add(std::string core, std::string exact, double margin_ulps, MakeRecord&& make_record) {
    const bool wrong = core != exact;
    const bool kept = count_and_check(wrong, margin_ulps);
    if (units_.empty() || units_.back().unit != unit_) {
      InputRecord record = make_record();
      units_.push_back({unit_, record.generator, 0, 0});
      tally_unit(wrong);
      if (kept) keep(DecisionInput{std::move(core), std::move(exact), margin_ulps, std::move(record), {}}, wrong);
      return;
    }
    tally_unit(wrong);
    if (kept) keep(DecisionInput{std::move(core), std::move(exact), margin_ulps, make_record(), {}}, wrong);
#ifndef NDEBUG
    else check_unit_generator(make_record().generator);
#endif
  }

  /// The inputs of one generator unit: its generator (named by its first
  /// input's record), how many it added and how many were misclassified.
  struct UnitTally {
    std::uint64_t unit = 0;
    std::string generator;
    std::uint64_t count = 0, misclassified = 0;
  };

  /// Starts the next generator unit, as ErrorStats::begin_unit does.
  void begin_unit() noexcept { ++unit_; }

  const std::string& name() const noexcept { return name_; }
  const std::string& what() const noexcept { return what_; }
  std::uint64_t count() const noexcept { return count_; }
  std::uint64_t misclassified() const noexcept { return misclassified_; }
  /// Smallest margin among all inputs (0 when none were added).
  double min_margin_ulps() const noexcept { return count_ == 0 ? 0 : min_margin_; }
  /// Up to kClosestKept inputs: misclassified first, then by margin.
  const std::vector<DecisionInput>& closest() const noexcept { return closest_; }
  /// Every generator unit that added inputs, in add order.
  const std::vector<UnitTally>& units() const noexcept { return units_; }

 private:
  /// Counts the input; true when it would enter the kept list.
  bool count_and_check(bool wrong, double& margin_ulps) noexcept;
  void keep(DecisionInput entry, bool wrong);
  /// Throws std::logic_error when an input's generator is not its unit's.
  void check_unit_generator(const std::string& generator) const;
  void tally_unit(bool wrong) noexcept {
    ++units_.back().count;
    if (wrong) ++units_.back().misclassified;
  }

  std::string name_, what_;
  std::uint64_t count_ = 0, misclassified_ = 0, unit_ = 0;
  double min_margin_ = 0;
  std::vector<DecisionInput> closest_;
  std::vector<UnitTally> units_;
};

}  // namespace distgrid::audit
