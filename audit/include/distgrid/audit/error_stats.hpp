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
// Statistics are computed from every stored value in the order added, so they
// are the same on every run and for any thread count.
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

struct Summary {
  double max = 0, mean = 0, rms = 0, p99 = 0;
};

/// max, mean, root mean square and nearest-rank p99. The sums are compensated
/// (Neumaier) and taken in order. An infinite value makes max, mean and rms
/// infinite. Precondition: values is not empty and holds no NaN.
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

/// A kept worst input: its error, the values compared and where it came from.
struct WorstInput {
  ErrorValue error;
  InputRecord input;
};

class ErrorStats {
 public:
  static constexpr std::size_t kWorstKept = 5;

  /// `in_h` and `relative` say which optional units every added value carries.
  /// The worst inputs are ranked by h when present, else relative, else ulps.
  ErrorStats(bool in_h, bool relative);

  /// Adds one input's error. make_record() is called only when the input
  /// enters the worst list. A NaN error counts as non-finite and as infinite.
  template <class MakeRecord>
  void add(ErrorValue value, MakeRecord&& make_record) {
    if (!store(value)) return;
    keep_worst(WorstInput{value, make_record()});
  }

  std::size_t count() const noexcept { return ulps_.size(); }
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

 private:
  /// Records the value in every series; returns true when it may enter the worst list.
  bool store(ErrorValue& value);
  void keep_worst(WorstInput entry);
  enum class RankUnit { h, relative, ulps };
  RankUnit rank_unit() const noexcept;
  double rank_of(const ErrorValue& value) const noexcept;

  bool in_h_, relative_on_;
  std::size_t non_finite_ = 0;
  std::vector<double> h_, ulps_, bits_, relative_;
  std::vector<WorstInput> worst_;
};

}  // namespace distgrid::audit
