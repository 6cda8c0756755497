// The mesh references (reference/mesh.hpp) on cases worked out by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <numbers>

#include "distgrid/audit/reference/mesh.hpp"

namespace distgrid::audit::reference {
namespace {

// The right triangle a = 0, b = x, c = y in the plane z = 0.
const Point kA{0, 0, 0}, kB{1, 0, 0}, kC{0, 1, 0};

ExactClosestPoint closest(const Point& p) { return exact_closest_point(p, kA, kB, kC); }

void expect_point(const HighPoint& q, const Point& expected) {
  for (std::size_t a = 0; a < 3; ++a) EXPECT_EQ(to_double(q[a]), expected[a]) << "axis " << a;
}

TEST(ReferenceClosestPoint, FindsEachOfTheSevenFeatures) {
  struct Case {
    Point p, point;
    double distance_squared;
    Feature feature;
    double margin;
  };
  const Case cases[] = {
      {{0.25, 0.25, 1}, {0.25, 0.25, 0}, 1, Feature::face, 0.25},
      {{0.5, -1, 0}, {0.5, 0, 0}, 1, Feature::edge_ab, 0.5},
      {{2, 2, 0}, {0.5, 0.5, 0}, 4.5, Feature::edge_bc, std::numbers::sqrt2 / 2},  // the planes at b and c
      {{-1, 0.5, 0}, {0, 0.5, 0}, 1, Feature::edge_ca, 0.5},
      {{-1, -1, 2}, {0, 0, 0}, 6, Feature::corner_a, 1},
      {{2, -1, 0}, {1, 0, 0}, 2, Feature::corner_b, 1},
      {{0, 3, 0}, {0, 1, 0}, 4, Feature::corner_c, std::numbers::sqrt2},  // the plane at c across bc
  };
  for (const Case& c : cases) {
    const ExactClosestPoint got = closest(c.p);
    EXPECT_EQ(got.feature, c.feature) << feature_text(c.feature);
    expect_point(got.point, c.point);
    EXPECT_EQ(to_double(got.distance_squared), c.distance_squared);
    EXPECT_NEAR(to_double(got.margin), c.margin, 1e-15) << feature_text(c.feature);
  }
}

TEST(ReferenceClosestPoint, PutsRegionBoundariesOnTheLowerDimensionalFeature) {
  // On the plane through a perpendicular to ab: the closest point is a itself.
  const ExactClosestPoint corner = closest({0, -1, 0});
  EXPECT_EQ(corner.feature, Feature::corner_a);
  EXPECT_EQ(to_double(corner.margin), 0);
  // Above edge ab: the projection lies on the edge, so edge before face.
  const ExactClosestPoint edge = closest({0.5, 0, 3});
  EXPECT_EQ(edge.feature, Feature::edge_ab);
  expect_point(edge.point, {0.5, 0, 0});
  EXPECT_EQ(to_double(edge.margin), 0);
}

TEST(ReferenceClosestPoint, IsExactForPointsOneUlpOffTheFace) {
  const double above = std::nextafter(0.0, 1.0);
  const ExactClosestPoint got = closest({0.25, 0.25, above});
  EXPECT_EQ(got.feature, Feature::face);
  EXPECT_TRUE(got.distance_squared == HighPrecision(above) * HighPrecision(above));
  // The same point given as a rational (a node i h) gives the same answer.
  EXPECT_TRUE(exact_closest_point(to_rational({0.25, 0.25, above}), kA, kB, kC).distance_squared == got.distance_squared);
  const ExactClosestPoint outside = closest({0.5, -std::ldexp(1.0, -60), 0});
  EXPECT_EQ(outside.feature, Feature::edge_ab);
}

TEST(ReferenceClosestPoint, TreatsAZeroAreaTriangleAsTheSegmentItsCornersSpan) {
  // a = 0, b = x, c = 2x: the segment [0, 2] on x. Above b all three edges tie at
  // (1, 0, 0), the end of ab (corner b); ab is tested first.
  const Point c2{2, 0, 0};
  const ExactClosestPoint above_b = exact_closest_point(Point{1, 0, 1}, kA, kB, c2);
  EXPECT_EQ(above_b.feature, Feature::corner_b);
  expect_point(above_b.point, {1, 0, 0});
  EXPECT_EQ(to_double(above_b.distance_squared), 1);
  EXPECT_EQ(to_double(above_b.margin), 0);
  // Above 1.5: only edges bc and ca reach it; bc is tested first.
  const ExactClosestPoint beyond_b = exact_closest_point(Point{1.5, 3, 0}, kA, kB, c2);
  EXPECT_EQ(beyond_b.feature, Feature::edge_bc);
  expect_point(beyond_b.point, {1.5, 0, 0});
  EXPECT_EQ(to_double(beyond_b.distance_squared), 9);
  // Past c: the segment's end.
  const ExactClosestPoint past_c = exact_closest_point(Point{5, 0, 4}, kA, kB, c2);
  EXPECT_EQ(past_c.feature, Feature::corner_c);
  expect_point(past_c.point, {2, 0, 0});
  EXPECT_EQ(to_double(past_c.distance_squared), 25);
  // Three coincident corners: the point itself.
  const ExactClosestPoint point = exact_closest_point(Point{0, 3, 4}, kB, kB, kB);
  EXPECT_EQ(point.feature, Feature::corner_a);
  expect_point(point.point, {1, 0, 0});
  EXPECT_EQ(to_double(point.distance_squared), 26);
}

TEST(ReferenceClosestPoint, RefusesAPointThatIsNotDyadic) {
  EXPECT_THROW(exact_closest_point(RationalPoint{Rational(1, 3), 0, 0}, kA, kB, kC), std::invalid_argument);
}

TEST(ReferenceApproximateDistance, AgreesWithTheExactDistanceOnTheHandCases) {
  for (const Point& p : {Point{0.25, 0.25, 1}, Point{2, 2, 0}, Point{-1, -1, 2}, Point{0, 3, 0}})
    EXPECT_NEAR(approximate_distance_squared(p, kA, kB, kC), to_double(closest(p).distance_squared), 1e-15);
}

/// The unit cube [0, 1]^3 as 12 triangles; each square face is split along a
/// diagonal through its centre, so an axis ray through a face's centre meets an edge.
std::vector<TriangleCorners> unit_cube() {
  const auto v = [](int i) { return Point{double(i & 1), double((i >> 1) & 1), double((i >> 2) & 1)}; };
  const int quads[6][4] = {{0, 2, 6, 4}, {1, 5, 7, 3}, {0, 4, 5, 1}, {2, 3, 7, 6}, {0, 1, 3, 2}, {4, 6, 7, 5}};
  std::vector<TriangleCorners> out;
  for (const auto& q : quads) {
    out.push_back({v(q[0]), v(q[1]), v(q[2])});
    out.push_back({v(q[0]), v(q[2]), v(q[3])});
  }
  return out;
}

TEST(ReferenceExactSide, TellsInsideFromOutsideThroughEdgesAndCorners) {
  const std::vector<TriangleCorners> cube = unit_cube();
  const auto side = [&](const Point& p) { return exact_side(to_rational(p), cube); };
  EXPECT_EQ(side({0.5, 0.3, 0.7}), Side::inside);
  EXPECT_EQ(side({0.5, 0.5, 1.5}), Side::outside);
  // The ray meets the diagonal edges of the faces x = 0 and x = 1 at their centres.
  EXPECT_EQ(side({0.25, 0.5, 0.5}), Side::inside);
  EXPECT_EQ(side({-1, 0.5, 0.5}), Side::outside);
  // Rays along the cube's edges and through its corners.
  EXPECT_EQ(side({-1, 0, 0}), Side::outside);
  EXPECT_EQ(side({-1, 1, 1}), Side::outside);
}

TEST(ReferenceExactSide, ReportsAPointOnAFaceTheRayCrosses) {
  EXPECT_EQ(exact_side(to_rational({1, 0.25, 0.75}), unit_cube()), Side::surface);
}

TEST(ReferenceNormals, MatchTheCornerTetrahedronWorkedByHand) {
  const std::vector<Point> corners{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  const std::vector<std::array<std::uint32_t, 3>> triangles{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  const HighNormals n = high_precision_normals(corners, triangles);
  ASSERT_EQ(n.face.size(), 4u);
  EXPECT_EQ(to_double(n.face[0][2]), -1);
  EXPECT_NEAR(to_double(n.face[3][0]), 1 / std::sqrt(3.0), 2e-16);  // the double quotient rounds twice
  // Corner 0: three right angles against the normals -x, -y, -z.
  for (std::size_t a = 0; a < 3; ++a) EXPECT_NEAR(to_double(n.corner[0][a]), -std::numbers::pi / 2, 1e-15);
  // Edge 0-1 joins the faces z = 0 and y = 0.
  ASSERT_EQ(n.edges.size(), 6u);
  EXPECT_EQ(n.edges[0], (std::array<std::uint32_t, 2>{0, 1}));
  EXPECT_EQ(to_double(n.edge[0][0]), 0);
  EXPECT_EQ(to_double(n.edge[0][1]), -1);
  EXPECT_EQ(to_double(n.edge[0][2]), -1);
}

}  // namespace
}  // namespace distgrid::audit::reference
