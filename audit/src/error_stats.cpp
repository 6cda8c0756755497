#include "distgrid/audit/error_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

namespace distgrid::audit {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

/// Neumaier's compensated sum, taken in order.
class CompensatedSum {
 public:
  void add(double x) noexcept {
    const double t = sum_ + x;
    carry_ += std::fabs(sum_) >= std::fabs(x) ? (sum_ - t) + x : (x - t) + sum_;
    sum_ = t;
  }
  double value() const noexcept { return sum_ + carry_; }

 private:
  double sum_ = 0, carry_ = 0;
};

}  // namespace

double ulp_of(double x) noexcept {
  const double a = std::fabs(x);
  if (!std::isfinite(a)) return std::numeric_limits<double>::quiet_NaN();
  if (a < std::numeric_limits<double>::min()) return std::numeric_limits<double>::denorm_min();
  int e = 0;
  (void)std::frexp(a, &e);  // a in [2^(e-1), 2^e)
  return std::ldexp(1.0, e - 53);
}

double error_in_ulps(double abs_error, double reference, double floor) noexcept {
  return abs_error / ulp_of(std::max(std::fabs(reference), floor));
}

double bits_lost(double ulps) noexcept { return std::log1p(ulps) / std::log(2.0); }

std::string hex_float(double x) {
  char text[40];
  std::snprintf(text, sizeof text, "%a", x);
  return text;
}

double percentile_nearest_rank(std::vector<double> values, unsigned percent) {
  const std::size_t n = values.size();
  const std::size_t rank = (percent * n + 99) / 100;  // ceil(percent * n / 100), >= 1
  auto at = values.begin() + static_cast<std::ptrdiff_t>(rank - 1);
  std::nth_element(values.begin(), at, values.end());
  return *at;
}

Summary summarize(std::span<const double> values) {
  Summary s;
  CompensatedSum sum, squares;
  bool infinite = false;
  for (double v : values) {
    s.max = std::max(s.max, v);
    if (std::isinf(v)) {
      infinite = true;
      continue;
    }
    sum.add(v);
    squares.add(v * v);
  }
  const auto n = static_cast<double>(values.size());
  s.mean = infinite ? kInfinity : sum.value() / n;
  s.rms = infinite ? kInfinity : std::sqrt(squares.value() / n);
  s.p99 = percentile_nearest_rank(std::vector<double>(values.begin(), values.end()), 99);
  return s;
}

ErrorStats::ErrorStats(bool in_h, bool relative) : in_h_(in_h), relative_on_(relative) {}

ErrorStats::RankUnit ErrorStats::rank_unit() const noexcept {
  return in_h_ ? RankUnit::h : relative_on_ ? RankUnit::relative : RankUnit::ulps;
}

double ErrorStats::rank_of(const ErrorValue& value) const noexcept {
  switch (rank_unit()) {
    case RankUnit::h: return *value.h;
    case RankUnit::relative: return *value.relative;
    case RankUnit::ulps: break;
  }
  return value.ulps;
}

bool ErrorStats::store(ErrorValue& value) {
  const bool finite = std::isfinite(value.abs) && std::isfinite(value.ulps) && std::isfinite(value.result) &&
                      (!in_h_ || std::isfinite(value.h.value())) &&
                      (!relative_on_ || std::isfinite(value.relative.value()));
  if (!finite) {
    ++non_finite_;
    value.abs = value.ulps = kInfinity;
    if (in_h_) value.h = kInfinity;
    if (relative_on_) value.relative = kInfinity;
  }
  ulps_.push_back(value.ulps);
  bits_.push_back(bits_lost(value.ulps));
  if (in_h_) h_.push_back(*value.h);
  if (relative_on_) relative_.push_back(*value.relative);
  return worst_.size() < kWorstKept || rank_of(value) > rank_of(worst_.back().error);
}

void ErrorStats::keep_worst(WorstInput entry) {
  const double rank = rank_of(entry.error);
  auto at = std::find_if(worst_.begin(), worst_.end(),
                         [&](const WorstInput& w) { return rank_of(w.error) < rank; });
  worst_.insert(at, std::move(entry));
  if (worst_.size() > kWorstKept) worst_.pop_back();
}

namespace {
std::optional<Summary> summary_of(const std::vector<double>& values, bool carried) {
  if (!carried || values.empty()) return std::nullopt;
  return summarize(values);
}
}  // namespace

std::optional<Summary> ErrorStats::h() const { return summary_of(h_, in_h_); }
std::optional<Summary> ErrorStats::ulps() const { return summary_of(ulps_, true); }
std::optional<Summary> ErrorStats::bits() const { return summary_of(bits_, true); }
std::optional<Summary> ErrorStats::relative() const { return summary_of(relative_, relative_on_); }

}  // namespace distgrid::audit
