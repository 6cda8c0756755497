#pragma once
// Error statistics of one audited quantity over its inputs: max, mean, RMS and
// p99 in each unit the quantity reports, and its worst inputs, kept for replay.
//
// Every error is an absolute difference |result - reference|, expressed in
//   h         voxels: the error divided by h (distances);
//   ulps      units in the last place of the reference as a double (ulp_of),
//             with the reference's magnitude raised to a floor first (see
//             error_in_ulps);
//   bits      log2(1 + ulps): how many of a double's 53 bits the error spoils;
//   relative  the error divided by |reference| (volumes).
// Sums are exact (ExactSum) and p99 needs only the largest values, so the
// statistics of a run split into shards (a share of every generator's inputs
// each) merge into exactly those of the single run, for any thread count.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace distgrid::audit {

/// One unit in the last place of a double at |x|: the gap from |x| to the next
/// larger double, 2^(e-52) for |x| in [2^e, 2^(e+1)). Zero and subnormal |x|
/// give the smallest subnormal 2^-1074; NaN and infinities give NaN.
double ulp_of(double x) noexcept;

/// |error| in ulps of the reference, after raising the reference's magnitude to
/// at least `floor`: abs_error / ulp_of(max(|reference|, floor)).
/// Distances pass floor = band*h, the largest magnitude a node holds: the
/// trilinear formula's rounding is absolute at that scale, and without a floor a
/// result near (or at) zero would report cancellation rather than lost bits.
/// Volumes pass floor 0.
double error_in_ulps(double abs_error, double reference, double floor) noexcept;

/// Bits of a double spoiled by an error of this many ulps: log2(1 + ulps).
double bits_lost(double ulps) noexcept;

/// Exact, replayable text of a double as a C hex-float ("%a"): 0x1.8p-2.
std::string hex_float(double x);

/// Nearest-rank percentile: the ceil(percent*n/100)-th smallest of the values,
/// rank computed in integers. Preconditions: values not empty, percent in 1..100.
double percentile_nearest_rank(std::vector<double> values, unsigned percent);

/// The exact sum of doubles (Shewchuk's non-overlapping partials): value() is
/// the correctly rounded sum whatever the order of add and merge, so sums over
/// shards agree bit for bit with the single run's. An infinite or NaN addend,
/// or an overflow, makes value() that non-finite number.
class ExactSum {
 public:
  void add(double x) noexcept;
  void merge(const ExactSum& other) noexcept;
  double value() const noexcept;
  /// The partials, increasing in magnitude, with the non-finite addend (if any)
  /// last: adding them to an empty ExactSum gives the same value().
  std::vector<double> parts() const;

 private:
  std::vector<double> partials_;
  double special_ = 0;  // 0, or the infinity / NaN the sum became
};

/// How many of the largest values the nearest-rank p99 of n values needs:
/// the ceil(99 n / 100)-th smallest is the (n - rank + 1)-th largest.
std::size_t p99_largest_needed(std::uint64_t n) noexcept;

/// The mergeable state of one unit's values: their count, exact sums of the
/// values and their squares (each square rounded once), and the largest
/// values (every value in a run; a shard report keeps only p99_largest_needed
/// of the whole run's count). A NaN value is stored as infinite.
struct SeriesState {
  std::uint64_t count = 0;
  double max = 0;
  bool infinite = false;
  ExactSum sum, squares;
  std::vector<double> largest;

  void add(double value);
  void merge(const SeriesState& other);
};

struct Summary {
  double max = 0, mean = 0, rms = 0, p99 = 0;
};

/// max, mean (exact sum / n), root mean square and nearest-rank p99 (the
/// p99_largest_needed(count)-th of `largest`). An infinite value makes max,
/// mean and rms infinite. Precondition: count > 0 and `largest` holds at least
/// p99_largest_needed(count) values.
Summary summarize(const SeriesState& state);
/// The same for a list of values. Precondition: not empty, no NaN.
Summary summarize(std::span<const double> values);

/// Where an input came from, enough to draw it again: the run's seed, the
/// generator (stratum) and its index, the part, and the input values as text
/// (hex-float for doubles, decimal for integers).
struct InputRecord {
  std::uint64_t seed = 0;
  std::string generator;
  std::uint64_t index = 0;
  std::string part;  ///< empty when the input belongs to no part
  std::vector<std::pair<std::string, std::string>> values;
};

/// One input's error. `abs` is in the result's own units; `h` and `relative`
/// are present when the quantity reports them.
struct ErrorValue {
  double abs = 0;
  double ulps = 0;
  std::optional<double> h;
  std::optional<double> relative;
  double result = 0;     ///< the value checked, as a double
  double reference = 0;  ///< the reference it is checked against, rounded to double
};

/// Where a kept input stands in the single run's order of adds: its generator
/// unit (counted by ErrorStats::begin_unit) and its index there. A shard draws
/// a contiguous share of each unit in the same unit order, so kept inputs of
/// several shards rank as in the single run: ties keep the lower order first.
struct InputOrder {
  std::uint64_t unit = 0, index = 0;
  auto operator<=>(const InputOrder&) const = default;
};

/// The first add of a generator unit (ErrorStats::begin_unit): the unit's
/// number, the count of adds before it, and its inputs' generator.
struct UnitStart {
  std::uint64_t unit = 0;
  std::uint64_t first = 0;
  std::string generator;
};

/// A kept worst input: its error, the values compared and where it came from.
struct WorstInput {
  ErrorValue error;
  InputRecord input;
  InputOrder order;
};

class ErrorStats {
 public:
  static constexpr std::size_t kWorstKept = 5;

  /// `in_h` and `relative` say which optional units every added value carries.
  /// The worst inputs are ranked by h when present, else relative, else ulps.
  ErrorStats(bool in_h, bool relative);

  /// Adds one input's error. make_record() is called only when the input
  /// enters the worst list or is the first of its generator unit (whose
  /// generator it names, see unit_starts); a debug build calls it for every
  /// input to check its generator. A NaN error counts as non-finite and as
  /// infinite.
  template <class MakeRecord>
  void add(ErrorValue value, MakeRecord&& make_record) {
    const bool kept = store(value);
    if (starts_unit()) {
      InputRecord record = make_record();
      note_unit_start(record.generator);
      if (kept) keep_worst(WorstInput{value, std::move(record), {}});
      return;
    }
    if (kept) keep_worst(WorstInput{value, make_record(), {}});
#ifndef NDEBUG
    else check_unit_generator(make_record().generator);
#endif
  }

  /// Starts the next generator unit (one generator of one part, say), which
  /// has `run_inputs` inputs in the single run, whichever share of them this
  /// run adds. Inputs added later are ordered after every input of earlier
  /// units (WorstInput::order); within a unit by their record's index.
  void begin_unit(std::uint64_t run_inputs) noexcept {
    ++unit_;
    run_inputs_ += run_inputs;
  }
  /// Sum of begin_unit's run_inputs: at least the single run's count of adds.
  std::uint64_t run_inputs() const noexcept { return run_inputs_; }

  std::size_t count() const noexcept { return static_cast<std::size_t>(ulps_.count); }
  /// Inputs whose error (or result) was NaN or infinite.
  std::size_t non_finite() const noexcept { return non_finite_; }
  bool has_h() const noexcept { return in_h_; }
  bool has_relative() const noexcept { return relative_on_; }

  /// Summaries; nullopt when no input was added (or the unit is not carried).
  std::optional<Summary> h() const;
  std::optional<Summary> ulps() const;
  std::optional<Summary> bits() const;
  std::optional<Summary> relative() const;

  /// Up to kWorstKept inputs, worst first; ties keep the earlier input first.
  const std::vector<WorstInput>& worst() const noexcept { return worst_; }
  /// The unit's series (nullptr when the unit is not carried), for shard reports.
  const SeriesState* h_series() const noexcept { return in_h_ ? &h_ : nullptr; }
  const SeriesState& ulps_series() const noexcept { return ulps_; }
  const SeriesState& bits_series() const noexcept { return bits_; }
  const SeriesState* relative_series() const noexcept { return relative_on_ ? &relative_ : nullptr; }
  /// The value worst inputs are ranked by: h when carried, else relative, else ulps.
  double rank_of(const ErrorValue& value) const noexcept;
  /// Where each generator unit's adds start in the series (whose `largest`
  /// holds every value of a run in add order) and the generator its first
  /// input's record names; a unit holds one generator's inputs.
  const std::vector<UnitStart>& unit_starts() const noexcept { return unit_starts_; }

 private:
  /// Records the value in every series; returns true when it may enter the worst list.
  bool store(ErrorValue& value);
  void keep_worst(WorstInput entry);
  bool starts_unit() const noexcept { return unit_starts_.empty() || unit_starts_.back().unit != unit_; }
  void note_unit_start(std::string generator);
  /// Throws std::logic_error when an input's generator is not its unit's.
  void check_unit_generator(const std::string& generator) const;
  enum class RankUnit { h, relative, ulps };
  RankUnit rank_unit() const noexcept;

  bool in_h_, relative_on_;
  std::size_t non_finite_ = 0;
  std::uint64_t unit_ = 0, run_inputs_ = 0;
  SeriesState h_, ulps_, bits_, relative_;
  std::vector<WorstInput> worst_;
  std::vector<UnitStart> unit_starts_;
};

}  // namespace distgrid::audit
