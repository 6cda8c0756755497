// The exact orientation predicates: signs known by construction, agreement of the
// filtered and the integer paths, and inputs where rounding decides a naive formula.
#include "distgrid/exact_predicates.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <random>

namespace distgrid {
namespace {

/// The determinant for small integer coordinates, exactly in 64-bit integers.
int integer_orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) {
  auto i = [](double v) { return static_cast<std::int64_t>(v); };
  const std::int64_t ux = i(b[0]) - i(a[0]), uy = i(b[1]) - i(a[1]), uz = i(b[2]) - i(a[2]);
  const std::int64_t vx = i(c[0]) - i(a[0]), vy = i(c[1]) - i(a[1]), vz = i(c[2]) - i(a[2]);
  const std::int64_t wx = i(d[0]) - i(a[0]), wy = i(d[1]) - i(a[1]), wz = i(d[2]) - i(a[2]);
  const std::int64_t det = (uy * vz - uz * vy) * wx + (uz * vx - ux * vz) * wy + (ux * vy - uy * vx) * wz;
  return det > 0 ? 1 : (det < 0 ? -1 : 0);
}

Vec3 scaled(const Vec3& p, int power) {
  return {std::ldexp(p[0], power), std::ldexp(p[1], power), std::ldexp(p[2], power)};
}

TEST(ExactPredicates, Orient3dIsPositiveWhenTheTriangleIsCounterClockwiseSeenFromThePoint) {
  const Vec3 a{0, 0, 0}, b{1, 0, 0}, c{0, 1, 0};
  EXPECT_EQ(orient3d(a, b, c, {0.2, 0.3, 1}), 1);
  EXPECT_EQ(orient3d(a, b, c, {0.2, 0.3, -1}), -1);
  EXPECT_EQ(orient3d(a, b, c, {5, -7, 0}), 0);
  EXPECT_EQ(orient3d(b, a, c, {0.2, 0.3, 1}), -1);
  for (int axis = 0; axis < 3; ++axis) {
    // The normal of abc is +z: only its z component is non-zero.
    EXPECT_EQ(orient2d(a, b, c, axis), axis == 2 ? 1 : 0) << "axis " << axis;
    EXPECT_EQ(orient2d(a, c, b, axis), axis == 2 ? -1 : 0) << "axis " << axis;
  }
  EXPECT_EQ(orient2d({0, 0, 0}, {0, 1, 0}, {0, 0, 1}, 0), 1);  // (y, z) plane
  EXPECT_EQ(orient2d({0, 0, 0}, {0, 0, 1}, {1, 0, 0}, 1), 1);  // (z, x) plane
}

TEST(ExactPredicates, FilteredAndIntegerPathsAgreeWithIntegerArithmetic) {
  std::mt19937_64 rng(20261203);  // fixed seed
  std::uniform_int_distribution<int> coordinate(-1024, 1024), small(-3, 3);
  for (int n = 0; n < 20000; ++n) {
    std::array<Vec3, 4> p{};
    // Half the cases on a shared plane (d = a + s (b - a) + t (c - a)), so zero occurs.
    for (auto& q : p)
      for (double& x : q) x = coordinate(rng);
    if (n % 2 == 0)
      for (std::size_t k = 0; k < 3; ++k) {
        const int s = small(rng), t = small(rng);
        p[3][k] = p[0][k] + s * (p[1][k] - p[0][k]) + t * (p[2][k] - p[0][k]);
      }
    const int expected = integer_orient3d(p[0], p[1], p[2], p[3]);
    ASSERT_EQ(orient3d(p[0], p[1], p[2], p[3]), expected) << "case " << n;
    ASSERT_EQ(detail::orient3d_exact(p[0], p[1], p[2], p[3]), expected) << "case " << n;
    for (int axis = 0; axis < 3; ++axis)
      ASSERT_EQ(orient2d(p[0], p[1], p[2], axis), detail::orient2d_exact(p[0], p[1], p[2], axis)) << "case " << n;
  }
}

TEST(ExactPredicates, PointsWithinRoundingOfAPlaneGetTheirTrueSide) {
  // The vertical plane x = y through (12, 12, 0), (24, 24, 0), (12, 12, 1); points
  // (0.5 + i u, 0.5 + j u, 0.3) with u = 2^-53 lie on its side sign(i - j), yet a
  // double evaluation rounds most of them to the wrong side or to zero.
  const Vec3 a{12, 12, 0}, b{24, 24, 0}, c{12, 12, 1};
  const double u = 0x1p-53;
  int naive_wrong = 0;
  for (int i = 0; i < 64; ++i)
    for (int j = 0; j < 64; ++j) {
      const Vec3 d{0.5 + i * u, 0.5 + j * u, 0.3};
      const int expected = i > j ? 1 : (i < j ? -1 : 0);
      ASSERT_EQ(orient3d(a, b, c, d), expected) << i << ", " << j;
      // The same in the (x, y) projection: c2 lies on the line x = y, so abd turns by sign(j - i).
      ASSERT_EQ(orient2d(a, b, d, 2), -expected) << i << ", " << j;
      const double naive = 12 * (d[0] - 12) - 12 * (d[1] - 12);
      if ((naive > 0 ? 1 : (naive < 0 ? -1 : 0)) != expected) ++naive_wrong;
    }
  EXPECT_GT(naive_wrong, 0) << "the inputs should defeat a plain double evaluation";
}

TEST(ExactPredicates, HugeTinyAndSubnormalCoordinatesKeepTheirSigns) {
  const Vec3 a{0, 0, 0}, b{3, 1, 0}, c{1, 4, 0}, above{1, 1, 2}, on{5, 6, 0};
  for (int power : {-1070, -1040, -1000, -600, 0, 600, 900, 970}) {
    SCOPED_TRACE(power);
    EXPECT_EQ(orient3d(scaled(a, power), scaled(b, power), scaled(c, power), scaled(above, power)), 1);
    EXPECT_EQ(orient3d(scaled(a, power), scaled(b, power), scaled(c, power), scaled(on, power)), 0);
    EXPECT_EQ(orient3d(scaled(b, power), scaled(a, power), scaled(c, power), scaled(above, power)), -1);
    EXPECT_EQ(orient2d(scaled(a, power), scaled(b, power), scaled(c, power), 2), 1);
  }
  // A point a single subnormal step off a plane of large coordinates.
  const Vec3 p{1e300, 0, 0}, q{0, 1e300, 0}, r{-1e300, -1e300, 0};
  EXPECT_EQ(orient3d(p, q, r, {0, 0, 0x1p-1074}), 1);
  EXPECT_EQ(orient3d(p, q, r, {0, 0, -0x1p-1074}), -1);
  EXPECT_EQ(orient3d(p, q, r, {0, 0, 0}), 0);
}

TEST(ExactPredicates, SwappingTwoPointsNegatesTheSign) {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> x(-1, 1);
  for (int n = 0; n < 2000; ++n) {
    Vec3 a{x(rng), x(rng), x(rng)}, b{x(rng), x(rng), x(rng)}, c{x(rng), x(rng), x(rng)};
    // d near the plane abc, so both paths are exercised.
    const double s = x(rng), t = x(rng);
    Vec3 d{};
    for (std::size_t k = 0; k < 3; ++k) d[k] = a[k] + s * (b[k] - a[k]) + t * (c[k] - a[k]);
    const int o = orient3d(a, b, c, d);
    EXPECT_EQ(orient3d(b, a, c, d), -o) << "case " << n;
    EXPECT_EQ(orient3d(a, c, b, d), -o) << "case " << n;
    EXPECT_EQ(orient3d(b, c, a, d), o) << "case " << n;
    EXPECT_EQ(o, detail::orient3d_exact(a, b, c, d)) << "case " << n;
  }
}

}  // namespace
}  // namespace distgrid
