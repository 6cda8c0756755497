// The exact signed distance to a mesh (reference/mesh_distance.hpp) against a
// brute force over every triangle with the exact side by ray parity, at points
// chosen to meet every path: faces, edges and corners closest, rays through
// edges and corners, points beyond reach, a far copy, a mesh given clockwise.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <random>
#include <vector>

#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/audit/reference/mesh_distance.hpp"

namespace distgrid::audit::reference {
namespace {

/// An axis-aligned box of 12 triangles, counter-clockwise seen from outside.
std::vector<TriangleCorners> box(const Point& lo, const Point& hi) {
  const auto corner = [&](int n) { return Point{n & 1 ? hi[0] : lo[0], n & 2 ? hi[1] : lo[1], n & 4 ? hi[2] : lo[2]}; };
  const int faces[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  std::vector<TriangleCorners> out;
  for (const auto& f : faces) {
    out.push_back({corner(f[0]), corner(f[1]), corner(f[2])});
    out.push_back({corner(f[0]), corner(f[2]), corner(f[3])});
  }
  return out;
}

/// Signed distance by brute force: every triangle's exact distance, exact side by parity.
HighPrecision brute_force(const std::vector<TriangleCorners>& triangles, const Point& p) {
  Rational best = -1;
  for (const TriangleCorners& t : triangles) {
    const Rational d = exact_distance_squared(p, t[0], t[1], t[2]);
    if (best < 0 || d < best) best = d;
  }
  const HighPrecision distance = sqrt(to_high(best));
  const Side side = exact_side(to_rational(p), triangles);
  return side == Side::inside ? HighPrecision(-distance) : distance;
}

void expect_matches(const MeshDistance& distance, const std::vector<TriangleCorners>& triangles, const Point& p) {
  const HighPrecision truth = brute_force(triangles, p);
  const HighPrecision got = distance.exact(to_rational(p));
  if (abs(truth) <= HighPrecision(distance.reach())) {
    EXPECT_LT(to_double(abs(got - truth)), 1e-30) << p[0] << " " << p[1] << " " << p[2];
    EXPECT_NEAR(distance.approximate(p), to_double(truth), 1e-14) << p[0] << " " << p[1] << " " << p[2];
  } else {  // beyond reach: only the side, as +-2 reach
    EXPECT_EQ(to_double(got), truth < 0 ? -2 * distance.reach() : 2 * distance.reach());
    EXPECT_EQ(distance.approximate(p), truth < 0 ? -2 * distance.reach() : 2 * distance.reach());
  }
}

TEST(ReferenceMeshDistance, EqualsTheBruteForceNearFacesEdgesAndCorners) {
  const std::vector<TriangleCorners> mesh = box({-0.5, -0.25, -0.125}, {0.5, 0.25, 0.375});
  const MeshDistance distance(mesh, 0.25);
  std::mt19937_64 rng(20261204);
  std::uniform_real_distribution<double> u(-0.8, 0.8);
  for (int n = 0; n < 400; ++n) expect_matches(distance, mesh, {u(rng), u(rng), u(rng)});
  // On the lattice of 1/16: rays along +x through the box's edges and corners.
  for (int i = -12; i <= 12; i += 3)
    for (int j = -8; j <= 8; ++j)
      for (int k = -4; k <= 8; ++k) expect_matches(distance, mesh, {i / 16.0, j / 16.0, k / 16.0});
  EXPECT_TRUE(distance.exact(to_rational(Point{0.5, 0, 0})) == 0);  // on a face
  EXPECT_EQ(distance.approximate({5, 0, 0}), 0.5);                           // beyond the box: outside
}

TEST(ReferenceMeshDistance, GivesABricksNodesTheSameBitsAsOneAtATime) {
  const std::vector<TriangleCorners> mesh = box({-0.5, -0.25, -0.125}, {0.5, 0.25, 0.375});
  const MeshDistance distance(mesh, 0.25);
  const double h = 1.0 / 16;
  std::array<double, 512> batch{};
  for (const std::array<std::int64_t, 3> brick : {std::array<std::int64_t, 3>{-8, -8, -8}, {0, -4, -2}, {4, 0, 0},
                                                  {40, 40, 40}, {-3, -5, -1}}) {
    distance.approximate_brick(brick[0], brick[1], brick[2], h, batch.data());
    for (std::int64_t n = 0; n < 512; ++n) {
      const Point p{static_cast<double>(brick[0] + (n & 7)) * h, static_cast<double>(brick[1] + ((n >> 3) & 7)) * h,
                    static_cast<double>(brick[2] + (n >> 6)) * h};
      ASSERT_EQ(batch[static_cast<std::size_t>(n)], distance.approximate(p)) << "node " << n;
    }
  }
}

TEST(ReferenceMeshDistance, KeepsEveryDigitFarFromTheOrigin) {
  const Point offset{7812.505859375, -7812.509765625, 7812.486328125};
  std::vector<TriangleCorners> mesh = box({-0.5, -0.25, -0.125}, {0.5, 0.25, 0.375});
  for (TriangleCorners& t : mesh)
    for (Point& c : t)
      for (std::size_t a = 0; a < 3; ++a) c[a] += offset[a];
  const MeshDistance distance(mesh, 0.25);
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> u(-0.7, 0.7);
  for (int n = 0; n < 200; ++n) expect_matches(distance, mesh, {offset[0] + u(rng), offset[1] + u(rng), offset[2] + u(rng)});
}

TEST(ReferenceMeshDistance, ReadsTheOrientationFromTheVolume) {
  std::vector<TriangleCorners> mesh = box({-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5});
  for (TriangleCorners& t : mesh) std::swap(t[1], t[2]);  // clockwise seen from outside
  const MeshDistance distance(mesh, 0.25);
  EXPECT_TRUE(distance.exact(to_rational(Point{0.375, 0, 0})) == -0.125);  // face closest, inside
  EXPECT_TRUE(distance.exact(to_rational(Point{0.625, 0, 0})) == 0.125);   // outside
  EXPECT_TRUE(distance.exact(to_rational(Point{0, 0, 0})) == -0.5);        // beyond reach: -2 reach
}

TEST(ReferenceMeshDistance, TakesCoordinatesBeyondDoublesExactly) {
  const std::vector<TriangleCorners> mesh = box({-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5});
  const MeshDistance distance(mesh, 0.25);
  // x = 0.5 + 2^-80 lies just outside the face x = 0.5: a positive distance of 2^-80.
  const HighPrecision x = HighPrecision(0.5) + ldexp(HighPrecision(1), -80);
  const RationalPoint q{to_rational(x), Rational(0.125), Rational(0.0625)};
  EXPECT_TRUE(distance.exact(q) == ldexp(HighPrecision(1), -80));
  EXPECT_TRUE(to_rational(x) - Rational(0.5) == to_rational(ldexp(HighPrecision(1), -80)));
}

}  // namespace
}  // namespace distgrid::audit::reference
