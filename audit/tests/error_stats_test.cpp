#include "distgrid/audit/error_stats.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <algorithm>
#include <cstdlib>
#include <functional>
#include <limits>
#include <vector>

#include "distgrid/audit/input_rng.hpp"

namespace distgrid::audit {
namespace {

// Not the INFINITY and NAN macros: they are floats, and widening them warns.
constexpr double kInfinity = std::numeric_limits<double>::infinity();
constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

TEST(UlpOf, IsTheGapToTheNextLargerDouble) {
  EXPECT_EQ(ulp_of(1.0), 0x1p-52);
  EXPECT_EQ(ulp_of(-1.0), 0x1p-52);
  EXPECT_EQ(ulp_of(0.75), 0x1p-53);
  EXPECT_EQ(ulp_of(1.9999999999999998), 0x1p-52);
  EXPECT_EQ(ulp_of(3.0 / 64), 0x1p-57);
  EXPECT_EQ(ulp_of(std::numeric_limits<double>::max()), 0x1p971);
  for (double x : {0.1, 3.0, 1e300, 1e-300})
    EXPECT_EQ(ulp_of(x), std::nextafter(x, kInfinity) - x) << "x = " << x;
}

TEST(UlpOf, IsTheSmallestSubnormalAtZeroAndBelowTheNormals) {
  EXPECT_EQ(ulp_of(0.0), std::numeric_limits<double>::denorm_min());
  EXPECT_EQ(ulp_of(1e-310), std::numeric_limits<double>::denorm_min());
  EXPECT_TRUE(std::isnan(ulp_of(kInfinity)));
  EXPECT_TRUE(std::isnan(ulp_of(kNaN)));
}

TEST(ErrorInUlps, CountsInUlpsOfTheReferenceRaisedToTheFloor) {
  EXPECT_EQ(error_in_ulps(0x1p-52, 1.0, 0), 1.0);
  EXPECT_EQ(error_in_ulps(0x1p-50, -1.5, 0), 4.0);
  // Near zero a distance counts in ulps of band*h, not of the tiny reference.
  EXPECT_EQ(error_in_ulps(0x1p-57, 1e-20, 3.0 / 64), 1.0);
  EXPECT_EQ(error_in_ulps(0x1p-57, 0.0, 3.0 / 64), 1.0);
  EXPECT_EQ(error_in_ulps(0, 0.0, 0), 0.0);
}

TEST(BitsLost, IsLog2OfOnePlusUlps) {
  EXPECT_EQ(bits_lost(0), 0.0);
  EXPECT_DOUBLE_EQ(bits_lost(1), 1.0);
  EXPECT_DOUBLE_EQ(bits_lost(3), 2.0);
  EXPECT_DOUBLE_EQ(bits_lost(0x1p29 - 1), 29.0);
  EXPECT_EQ(bits_lost(kInfinity), kInfinity);
}

TEST(HexFloat, PrintsExactReplayableText) {
  EXPECT_EQ(hex_float(0.375), "0x1.8p-2");
  EXPECT_EQ(hex_float(-1.0), "-0x1p+0");
  EXPECT_EQ(hex_float(0.0), "0x0p+0");
  EXPECT_EQ(hex_float(1.0 / 64), "0x1p-6");
  InputRng rng(7, "test", "hex", 0);
  for (int n = 0; n < 1000; ++n) {
    const double x = std::ldexp(rng.uniform(-1, 1), static_cast<int>(rng.integer(-1000, 1000)));
    EXPECT_EQ(std::strtod(hex_float(x).c_str(), nullptr), x) << "seed 7, draw " << n << ": " << hex_float(x);
  }
}

TEST(PercentileNearestRank, TakesTheCeilRankInIntegers) {
  std::vector<double> v;
  for (int n = 100; n >= 1; --n) v.push_back(n);
  EXPECT_EQ(percentile_nearest_rank(v, 99), 99.0);
  EXPECT_EQ(percentile_nearest_rank(v, 100), 100.0);
  EXPECT_EQ(percentile_nearest_rank(v, 1), 1.0);
  for (int n = 101; n <= 150; ++n) v.push_back(n);
  EXPECT_EQ(percentile_nearest_rank(v, 99), 149.0);  // ceil(0.99 * 150) = 149
  EXPECT_EQ(percentile_nearest_rank({5.0}, 99), 5.0);
}

TEST(Summarize, GivesMaxMeanRmsAndP99) {
  const std::vector<double> v{3, 4};
  const Summary s = summarize(v);
  EXPECT_EQ(s.max, 4);
  EXPECT_EQ(s.mean, 3.5);
  EXPECT_DOUBLE_EQ(s.rms, std::sqrt(12.5));
  EXPECT_EQ(s.p99, 4);
}

TEST(Summarize, MakesMaxMeanAndRmsInfiniteWhenAValueIs) {
  const std::vector<double> v{1, kInfinity, 2};
  const Summary s = summarize(v);
  EXPECT_EQ(s.max, kInfinity);
  EXPECT_EQ(s.mean, kInfinity);
  EXPECT_EQ(s.rms, kInfinity);
}

ErrorValue distance(double h_units) {
  ErrorValue e;
  e.abs = h_units;
  e.h = h_units;
  e.ulps = h_units * 4;
  return e;
}

TEST(ErrorStats, KeepsTheFiveWorstInputsWorstFirstAndEarlierFirstOnTies) {
  ErrorStats stats(true, false);
  int records = 0;
  const double errors[] = {1, 5, 3, 5, 0, 7, 2, 6, 5, 1, 0};
  for (std::uint64_t n = 0; n < std::size(errors); ++n)
    stats.add(distance(errors[n]), [&] {
      ++records;
      return InputRecord{1, "g", n, "", {}};
    });
  ASSERT_EQ(stats.worst().size(), 5u);
  const std::uint64_t expected[] = {5, 7, 1, 3, 8};  // 7, 6, then the 5s in input order
  for (std::size_t k = 0; k < 5; ++k) EXPECT_EQ(stats.worst()[k].input.index, expected[k]) << "rank " << k;
#ifdef NDEBUG
  EXPECT_EQ(records, 9);  // the last two never enter the list, so no record is made
#else
  EXPECT_EQ(records, 11);  // a debug build makes every record to check its generator
#endif
  EXPECT_EQ(stats.count(), 11u);
  EXPECT_EQ(stats.h()->max, 7);
  EXPECT_EQ(stats.ulps()->max, 28);
  EXPECT_DOUBLE_EQ(stats.bits()->max, std::log2(29.0));
  EXPECT_FALSE(stats.relative().has_value());
}

TEST(ErrorStats, CountsANaNErrorAsNonFiniteAndInfinite) {
  ErrorStats stats(true, false);
  stats.add(distance(1), [] { return InputRecord{}; });
  stats.add(distance(kNaN), [] { return InputRecord{1, "nan", 1, "", {}}; });
  EXPECT_EQ(stats.non_finite(), 1u);
  EXPECT_EQ(stats.h()->max, kInfinity);
  EXPECT_EQ(stats.worst().front().input.generator, "nan");
}

TEST(ErrorStats, HasNoSummaryWithoutInputs) {
  const ErrorStats stats(false, true);
  EXPECT_FALSE(stats.ulps().has_value());
  EXPECT_FALSE(stats.relative().has_value());
  EXPECT_FALSE(stats.h().has_value());
}

TEST(InputRng, DrawsTheSameInputsForTheSameSeedGeneratorAndIndex) {
  InputRng a(42, "grid.sample", "band", 17), b(42, "grid.sample", "band", 17), c(42, "grid.sample", "band", 18),
      d(42, "grid.sample", "node", 17);
  const std::uint64_t first = a.next();
  EXPECT_EQ(first, b.next());
  EXPECT_NE(first, c.next());
  EXPECT_NE(first, d.next());
}

TEST(InputRng, StaysInItsRanges) {
  InputRng rng(3, "test", "ranges", 0);
  for (int n = 0; n < 10000; ++n) {
    const double u = rng.unit();
    ASSERT_GE(u, 0.0);
    ASSERT_LT(u, 1.0);
    const std::int64_t k = rng.integer(-65536, 65535);
    ASSERT_GE(k, -65536);
    ASSERT_LE(k, 65535);
    ASSERT_EQ(rng.integer(5, 5), 5);
  }
}


TEST(ExactSum, IsCorrectlyRoundedThroughCancellation) {
  ExactSum sum;
  for (double x : {1e308, 1.0, -1e308}) sum.add(x);
  EXPECT_EQ(sum.value(), 1.0);
  // A plain sum rounds 1 + 2^-53 to 1 (ties to even) and loses 2^-106 too;
  // the exact sum lies above the half-way point and rounds up.
  ExactSum halfway;
  for (double x : {1.0, 0x1p-53, 0x1p-106}) halfway.add(x);
  EXPECT_EQ(halfway.value(), 1.0 + 0x1p-52);
  ExactSum tenths;
  for (int n = 0; n < 10; ++n) tenths.add(0.1);
  EXPECT_EQ(tenths.value(), 1.0);  // the exact sum of ten 0.1 doubles rounds to 1
}

TEST(ExactSum, KeepsManyTinyValues) {
  ExactSum sum;
  const double tiny = std::numeric_limits<double>::denorm_min();
  for (int n = 0; n < (1 << 20); ++n) sum.add(tiny);
  EXPECT_EQ(sum.value(), 0x1p-1054);
  ExactSum beside_one;
  beside_one.add(1.0);
  for (int n = 0; n < 4096; ++n) beside_one.add(0x1p-60);  // 2^12 * 2^-60 = 2^-48: every one counts
  EXPECT_EQ(beside_one.value(), 1.0 + 0x1p-48);
}

TEST(ExactSum, DoesNotDependOnOrderOrSplit) {
  std::vector<double> values;
  for (std::uint64_t n = 0; n < 3000; ++n) {
    InputRng rng(7, "exact_sum", "mixed", n);
    const double magnitude = std::ldexp(1.0, static_cast<int>(rng.integer(-200, 200)));
    values.push_back((rng.unit() - 0.5) * magnitude);
  }
  ExactSum forward, backward, split[3];
  for (double v : values) forward.add(v);
  for (auto v = values.rbegin(); v != values.rend(); ++v) backward.add(*v);
  for (std::size_t n = 0; n < values.size(); ++n) split[n % 3].add(values[n]);
  ExactSum merged;
  for (const ExactSum& part : {split[2], split[0], split[1]}) merged.merge(part);
  EXPECT_EQ(forward.value(), backward.value());
  EXPECT_EQ(forward.value(), merged.value());
  // The partials reproduce the sum (as a shard report's hex-floats do).
  ExactSum again;
  for (double p : merged.parts()) again.add(p);
  EXPECT_EQ(again.value(), forward.value());
  ExactSum infinite;
  infinite.add(1.0);
  infinite.add(std::numeric_limits<double>::infinity());
  EXPECT_TRUE(std::isinf(infinite.value()));
}

TEST(SeriesState, ShardsKeepingOnlyTheLargestValuesGiveTheSingleRunsSummary) {
  EXPECT_EQ(p99_largest_needed(1), 1u);
  EXPECT_EQ(p99_largest_needed(100), 2u);   // rank 99 of 100
  EXPECT_EQ(p99_largest_needed(150), 2u);   // rank 149 of 150
  EXPECT_EQ(p99_largest_needed(1000), 11u); // rank 990 of 1000
  std::vector<double> values;
  for (std::uint64_t n = 0; n < 1000; ++n) values.push_back(InputRng(3, "series", "v", n).unit() * 10);
  values[17] = values[900] = values[901] = 42;  // ties across shards
  SeriesState single;
  for (double v : values) single.add(v);
  SeriesState merged;
  for (std::size_t shard = 0; shard < 3; ++shard) {
    SeriesState part;
    for (std::size_t n = values.size() * shard / 3; n < values.size() * (shard + 1) / 3; ++n) part.add(values[n]);
    // A shard report keeps only the largest values the whole run's p99 needs.
    std::sort(part.largest.begin(), part.largest.end(), std::greater<>());
    part.largest.resize(std::min(part.largest.size(), p99_largest_needed(values.size())));
    merged.merge(part);
  }
  const Summary a = summarize(single), b = summarize(merged);
  EXPECT_EQ(a.max, b.max);
  EXPECT_EQ(a.mean, b.mean);
  EXPECT_EQ(a.rms, b.rms);
  EXPECT_EQ(a.p99, b.p99);
  EXPECT_EQ(a.p99, percentile_nearest_rank(values, 99));
}

}  // namespace
}  // namespace distgrid::audit
