#include "distgrid/audit/error_stats.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <stdexcept>

namespace distgrid::audit {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

}  // namespace

void ExactSum::add(double x) noexcept {
  if (!std::isfinite(x) || special_ != 0) {
    special_ += x;  // inf + -inf and NaN give NaN, as a plain sum would
    return;
  }
  // Shewchuk's grow-expansion: replace the partials by the non-overlapping
  // partials of their sum with x; each step's hi + lo is exact.
  std::size_t kept = 0;
  for (double y : partials_) {
    if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
    const double hi = x + y;
    const double lo = y - (hi - x);
    if (lo != 0) partials_[kept++] = lo;
    x = hi;
  }
  partials_.resize(kept);
  if (!std::isfinite(x)) {  // the exact sum overflows a double
    special_ = x;
    return;
  }
  partials_.push_back(x);
}

void ExactSum::merge(const ExactSum& other) noexcept {
  for (double p : other.parts()) add(p);
}

double ExactSum::value() const noexcept {
  if (special_ != 0) return special_;
  if (partials_.empty()) return 0;
  // Sum from the largest partial down until the rest cannot change the
  // result, then correct a half-way case the next partial decides (as
  // Python's math.fsum does): the result is the exact sum rounded once.
  std::size_t n = partials_.size() - 1;
  double hi = partials_[n], lo = 0;
  while (n > 0) {
    const double x = hi;
    const double y = partials_[--n];
    hi = x + y;
    lo = y - (hi - x);
    if (lo != 0) break;
  }
  if (n > 0 && ((lo < 0 && partials_[n - 1] < 0) || (lo > 0 && partials_[n - 1] > 0))) {
    const double y = lo * 2;
    const double x = hi + y;
    if (y == x - hi) hi = x;
  }
  return hi;
}

std::vector<double> ExactSum::parts() const {
  std::vector<double> out = partials_;
  if (special_ != 0) out.push_back(special_);
  return out;
}

std::size_t p99_largest_needed(std::uint64_t n) noexcept {
  if (n == 0) return 0;
  const std::uint64_t rank = (99 * n + 99) / 100;  // ceil(99 n / 100), >= 1
  return static_cast<std::size_t>(n - rank + 1);
}

void SeriesState::add(double value) {
  if (std::isnan(value)) value = kInfinity;
  ++count;
  max = std::max(max, value);
  largest.push_back(value);
  if (std::isinf(value)) {
    infinite = true;
    return;
  }
  sum.add(value);
  squares.add(value * value);
}

void SeriesState::merge(const SeriesState& other) {
  count += other.count;
  max = std::max(max, other.max);
  infinite = infinite || other.infinite;
  sum.merge(other.sum);
  squares.merge(other.squares);
  largest.insert(largest.end(), other.largest.begin(), other.largest.end());
}

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

Summary summarize(const SeriesState& state) {
  Summary s;
  const auto n = static_cast<double>(state.count);
  s.max = state.max;
  s.mean = state.infinite ? kInfinity : state.sum.value() / n;
  s.rms = state.infinite ? kInfinity : std::sqrt(state.squares.value() / n);
  // The k-th largest is the rank-th smallest of all values.
  std::vector<double> largest = state.largest;
  const auto k = static_cast<std::ptrdiff_t>(p99_largest_needed(state.count));
  std::nth_element(largest.begin(), largest.begin() + (k - 1), largest.end(), std::greater<>());
  s.p99 = largest[static_cast<std::size_t>(k - 1)];
  return s;
}

Summary summarize(std::span<const double> values) {
  SeriesState state;
  for (double v : values) state.add(v);
  return summarize(state);
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
  ulps_.add(value.ulps);
  bits_.add(bits_lost(value.ulps));
  if (in_h_) h_.add(*value.h);
  if (relative_on_) relative_.add(*value.relative);
  return worst_.size() < kWorstKept || rank_of(value) > rank_of(worst_.back().error);
}

void ErrorStats::note_unit_start(std::string generator) {
  unit_starts_.push_back({unit_, ulps_.count - 1, std::move(generator)});
}

void ErrorStats::check_unit_generator(const std::string& generator) const {
  if (generator != unit_starts_.back().generator)
    throw std::logic_error("generator unit " + std::to_string(unit_) + " of \"" + unit_starts_.back().generator +
                           "\" added an input of \"" + generator + "\"");
}

void ErrorStats::keep_worst(WorstInput entry) {
  entry.order = {unit_, entry.input.index};
  const double rank = rank_of(entry.error);
  auto at = std::find_if(worst_.begin(), worst_.end(),
                         [&](const WorstInput& w) { return rank_of(w.error) < rank; });
  worst_.insert(at, std::move(entry));
  if (worst_.size() > kWorstKept) worst_.pop_back();
}

namespace {
std::optional<Summary> summary_of(const SeriesState& values, bool carried) {
  if (!carried || values.count == 0) return std::nullopt;
  return summarize(values);
}
}  // namespace

std::optional<Summary> ErrorStats::h() const { return summary_of(h_, in_h_); }
std::optional<Summary> ErrorStats::ulps() const { return summary_of(ulps_, true); }
std::optional<Summary> ErrorStats::bits() const { return summary_of(bits_, true); }
std::optional<Summary> ErrorStats::relative() const { return summary_of(relative_, relative_on_); }

}  // namespace distgrid::audit
