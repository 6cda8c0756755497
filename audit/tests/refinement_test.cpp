#include "distgrid/audit/refinement.hpp"

#include <cmath>
#include <limits>
#include <vector>

#include <gtest/gtest.h>

namespace distgrid::audit {
namespace {

const std::vector<double> kSeries{1.0 / 16, 1.0 / 32, 1.0 / 64, 1.0 / 128};

std::vector<double> power_law(double coefficient, double order, double sign = 1) {
  std::vector<double> e;
  for (double h : kSeries) e.push_back(sign * coefficient * std::pow(h, order));
  return e;
}

TEST(OrderFit, RecoversAnExactPowerLaw) {
  const OrderFit fit = fit_order(kSeries, power_law(0.25, 2));
  ASSERT_TRUE(fit.order && fit.coefficient && fit.max_log_residual);
  EXPECT_NEAR(*fit.order, 2, 1e-12);
  EXPECT_NEAR(*fit.coefficient, 0.25, 1e-12);
  EXPECT_LT(*fit.max_log_residual, 1e-12);
}

TEST(OrderFit, FitsTheMagnitudeOfNegativeErrors) {
  const OrderFit fit = fit_order(kSeries, power_law(1.5, 1, -1));
  ASSERT_TRUE(fit.order);
  EXPECT_NEAR(*fit.order, 1, 1e-12);
  EXPECT_NEAR(*fit.coefficient, 1.5, 1e-12);
}

TEST(OrderFit, IsTheLeastSquaresLineThroughScatteredPoints) {
  // log|e| = 0, 0, 2, 2 at log h = 0, 1, 2, 3 (h = 1, e, e^2, e^3): slope 0.8, intercept -0.2.
  const double e = std::exp(1.0);
  const std::vector<double> h{1, e, e * e, e * e * e}, error{1, 1, e * e, e * e};
  const OrderFit fit = fit_order(h, error);
  ASSERT_TRUE(fit.order);
  EXPECT_NEAR(*fit.order, 0.8, 1e-12);
  EXPECT_NEAR(*fit.coefficient, std::exp(-0.2), 1e-12);
  EXPECT_NEAR(*fit.max_log_residual, 0.6, 1e-12);
}

TEST(OrderFit, IsNullWithAReasonWhenItCannotBeFitted) {
  const std::vector<double> one{0.5}, two_equal{0.5, 0.5};
  EXPECT_FALSE(fit_order(one, one).order);
  EXPECT_FALSE(fit_order(two_equal, std::vector<double>{1e-3, 2e-3}).order);
  const OrderFit zero = fit_order(kSeries, std::vector<double>{1e-3, 0, 1e-5, 1e-6});
  EXPECT_FALSE(zero.order);
  EXPECT_NE(zero.null_reason.find("zero"), std::string::npos);
  EXPECT_FALSE(fit_order(kSeries, std::vector<double>{1e-3, std::numeric_limits<double>::quiet_NaN(), 1e-5, 1e-6}).order);
}

TEST(RefinementSeries, SurroundsTheRunsOwnHAndAQuickRunStopsThere) {
  EXPECT_EQ(default_refinement_series(1.0 / 64, false), (std::vector<double>{1.0 / 32, 1.0 / 64, 1.0 / 128}));
  EXPECT_EQ(default_refinement_series(1.0 / 64, true), (std::vector<double>{1.0 / 16, 1.0 / 32, 1.0 / 64}));
  EXPECT_EQ(default_refinement_series(0.0123, false), (std::vector<double>{0.0246, 0.0123, 0.00615}));
}

}  // namespace
}  // namespace distgrid::audit
