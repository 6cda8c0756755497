// Closest point on a triangle: each Voronoi region, the tie rule on region
// boundaries, and thin, needle and degenerate triangles against a brute-force search.
#include "distgrid/closest_point.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>

namespace distgrid {
namespace {

using F = TriangleFeature;
const Vec3 kA{0, 0, 0}, kB{4, 0, 0}, kC{0, 4, 0};

ClosestPoint at(double x, double y, double z) { return closest_point_on_triangle({x, y, z}, kA, kB, kC); }

TEST(ClosestPoint, EachRegionGivesItsFeatureAndPoint) {
  struct Case {
    Vec3 p;
    F feature;
    Vec3 point;
  };
  const Case cases[] = {
      {{1, 1, 2}, F::face, {1, 1, 0}},      {{1, 1, -3}, F::face, {1, 1, 0}},
      {{-1, -1, 1}, F::corner_a, kA},       {{6, -1, 0}, F::corner_b, kB},     {{-1, 6, 2}, F::corner_c, kC},
      {{2, -3, 1}, F::edge_ab, {2, 0, 0}},  {{-2, 3, 0}, F::edge_ca, {0, 3, 0}}, {{3, 3, 0}, F::edge_bc, {2, 2, 0}},
  };
  for (const Case& c : cases) {
    const ClosestPoint q = closest_point_on_triangle(c.p, kA, kB, kC);
    EXPECT_EQ(q.feature, c.feature) << feature_name(q.feature);
    for (std::size_t a = 0; a < 3; ++a) EXPECT_DOUBLE_EQ(q.point[a], c.point[a]);
    const Vec3 d = detail::sub3(c.p, c.point);
    EXPECT_DOUBLE_EQ(q.distance_squared, detail::dot3(d, d));
  }
}

TEST(ClosestPoint, BoundariesGoToTheRegionTestedFirst) {
  // On the line between corner a's and edge ab's regions (x = 0, y < 0): corner a.
  EXPECT_EQ(at(0, -2, 0).feature, F::corner_a);
  // Between corner b and edge ab (x = 4, y < 0): corner b.
  EXPECT_EQ(at(4, -2, 0).feature, F::corner_b);
  // Exactly on a corner, an edge, inside the face.
  EXPECT_EQ(at(0, 0, 0).feature, F::corner_a);
  EXPECT_EQ(at(2, 0, 0).feature, F::edge_ab);
  EXPECT_EQ(at(1, 1, 0).feature, F::face);
  // The same inputs always give the same answer.
  EXPECT_EQ(at(0, -2, 0).feature, at(0, -2, 0).feature);
}

/// Brute force: the minimum over a fine barycentric lattice and the three edges sampled densely.
double brute_distance_squared(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  double best = std::numeric_limits<double>::infinity();
  auto consider = [&](double u, double v) {
    const Vec3 q{a[0] + u * (b[0] - a[0]) + v * (c[0] - a[0]), a[1] + u * (b[1] - a[1]) + v * (c[1] - a[1]),
                 a[2] + u * (b[2] - a[2]) + v * (c[2] - a[2])};
    const Vec3 d = detail::sub3(p, q);
    best = std::min(best, detail::dot3(d, d));
  };
  const int n = 400;
  for (int i = 0; i <= n; ++i)
    for (int j = 0; i + j <= n; ++j) consider(double(i) / n, double(j) / n);
  return best;
}

TEST(ClosestPoint, AgreesWithBruteForceOnThinNeedleAndOrdinaryTriangles) {
  std::mt19937_64 rng(12345);
  std::uniform_real_distribution<double> u(-2, 2);
  const std::array<std::array<Vec3, 3>, 4> triangles{{
      {{{0, 0, 0}, {1, 0.2, 0.1}, {0.3, 1, -0.2}}},          // ordinary
      {{{0, 0, 0}, {1, 0, 0}, {0.5, 1e-7, 0}}},              // sliver: one tiny height
      {{{0, 0, 0}, {1e-6, 0, 0}, {0, 1, 1}}},                // needle: one tiny edge
      {{{-1, -1, 0}, {1, 1, 1e-9}, {0.999999, 1, 0}}},       // long thin
  }};
  for (const auto& t : triangles)
    for (int n = 0; n < 60; ++n) {
      const Vec3 p{u(rng), u(rng), u(rng)};
      const ClosestPoint q = closest_point_on_triangle(p, t[0], t[1], t[2]);
      ASSERT_TRUE(std::isfinite(q.distance_squared));
      const double brute = brute_distance_squared(p, t[0], t[1], t[2]);
      // Never farther than the lattice search, and the lattice is within its spacing of the true point.
      EXPECT_LE(q.distance_squared, brute * (1 + 1e-12) + 1e-300);
      EXPECT_GE(std::sqrt(q.distance_squared), std::sqrt(brute) - 0.02);
    }
}

TEST(ClosestPoint, SliverFaceDistanceIsThePlaneDistance) {
  // Height 1e-9 over a unit base: the face case must not divide by a cancelled zero.
  const Vec3 a{0, 0, 0}, b{1, 0, 0}, c{0.5, 1e-9, 0};
  const ClosestPoint q = closest_point_on_triangle({0.5, 0.5e-9, 3}, a, b, c);
  // The region tests round on so thin a triangle and may name edge ab, whose points
  // lie within 1e-9 of the face's: the distance is what must hold, to the last bits.
  EXPECT_TRUE(q.feature == F::face || q.feature == F::edge_ab) << feature_name(q.feature);
  EXPECT_DOUBLE_EQ(q.distance_squared, 9.0);
}

TEST(ClosestPoint, ZeroLengthEdgeAndPointTrianglesAreFinite) {
  // a == b: the triangle is the segment a-c.
  const Vec3 a{0, 0, 0}, c{0, 2, 0};
  ClosestPoint q = closest_point_on_triangle({1, 1, 0}, a, a, c);
  EXPECT_TRUE(std::isfinite(q.distance_squared));
  EXPECT_DOUBLE_EQ(q.distance_squared, 1.0);
  EXPECT_DOUBLE_EQ(q.point[1], 1.0);
  // All three corners equal: the distance to that point.
  q = closest_point_on_triangle({3, 4, 0}, a, a, a);
  EXPECT_DOUBLE_EQ(q.distance_squared, 25.0);
  // Collinear corners: the nearest point on the segment.
  q = closest_point_on_triangle({1, 5, 0}, {0, 0, 0}, {0, 1, 0}, {0, 3, 0});
  EXPECT_DOUBLE_EQ(q.distance_squared, 5.0);
}

}  // namespace
}  // namespace distgrid
