// The references of bake.plan, grid.world_box and field.density_value, on cases
// computed by hand.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/brick_range.hpp"
#include "distgrid/audit/reference/density_map.hpp"
#include "distgrid/audit/reference/world_box.hpp"

namespace distgrid::audit::reference {
namespace {

constexpr double kH = 1.0 / 64;  // 8 h = 1/8

double below(double x) { return std::nextafter(x, -std::numeric_limits<double>::infinity()); }
double above(double x) { return std::nextafter(x, std::numeric_limits<double>::infinity()); }

TEST(ExactBrickFloor, RoundsTowardsMinusInfinityOnBothSidesOfZero) {
  EXPECT_EQ(exact_brick_floor(0.0, kH), 0);
  EXPECT_EQ(exact_brick_floor(-0.0, kH), 0);
  EXPECT_EQ(exact_brick_floor(1e-300, kH), 0);
  EXPECT_EQ(exact_brick_floor(-1e-300, kH), -1);  // truncation would give 0
  EXPECT_EQ(exact_brick_floor(-0.125, kH), -1);
  EXPECT_EQ(exact_brick_floor(below(-0.125), kH), -2);
  EXPECT_EQ(exact_brick_floor(0.3, kH), 2);     // 0.3 / 0.125 = 2.4
  EXPECT_EQ(exact_brick_floor(-0.3, kH), -3);   // -2.4
}

TEST(ExactBrickFloor, PutsABrickFaceInTheBrickAboveIt) {
  EXPECT_EQ(exact_brick_floor(0.125, kH), 1);
  EXPECT_EQ(exact_brick_floor(below(0.125), kH), 0);
  EXPECT_EQ(exact_brick_floor(above(0.125), kH), 1);
  EXPECT_EQ(exact_brick_floor(8192.0, kH), 65536);  // 8192 / (1/8)
  EXPECT_EQ(exact_brick_floor(below(8192.0), kH), 65535);
}

TEST(ExactBrickFloor, SeesThroughTheRoundingOfXOverH) {
  // 4.0 / 0.1 rounds to 40 in double, so floor(4.0 / 0.1 / 8) = 5; but 0.1 as a
  // double is a little above 1/10, so 4.0 / (8 * 0.1) = 4.99999... and the floor is 4.
  EXPECT_EQ(std::floor(4.0 / 0.1 / 8), 5);
  EXPECT_EQ(exact_brick_floor(4.0, 0.1), 4);
  // 0.8 is exactly 8 times the double 0.1, so the face itself floors to 1.
  EXPECT_EQ(exact_brick_floor(0.8, 0.1), 1);
  EXPECT_EQ(exact_brick_floor(below(0.8), 0.1), 0);
}

TEST(ExactNodeIndex, RoundsUpAndDownToTheLattice) {
  EXPECT_EQ(exact_node_at_or_above(0.0, kH), 0);
  EXPECT_EQ(exact_node_at_or_below(0.0, kH), 0);
  EXPECT_EQ(exact_node_at_or_above(1e-300, kH), 1);
  EXPECT_EQ(exact_node_at_or_below(-1e-300, kH), -1);
  EXPECT_EQ(exact_node_at_or_above(-0.02, kH), -1);  // -1.28 h
  EXPECT_EQ(exact_node_at_or_below(-0.02, kH), -2);
  EXPECT_EQ(exact_node_at_or_above(4.0, 0.1), 40);  // 4.0 / 0.1 = 39.99999...
  EXPECT_EQ(exact_node_at_or_below(4.0, 0.1), 39);
}

TEST(ExactDistanceToBrickFace, MeasuresToTheNearerFace) {
  EXPECT_EQ(exact_distance_to_brick_face(0.125, kH), 0);
  EXPECT_EQ(exact_distance_to_brick_face(0.13, kH), 0.13 - 0.125);
  EXPECT_EQ(exact_distance_to_brick_face(0.24, kH), 0.25 - 0.24);
  EXPECT_EQ(exact_distance_to_brick_face(below(0.125), kH), 0.125 - below(0.125));
  EXPECT_EQ(exact_distance_to_brick_face(-0.01, kH), 0.01);
}

TEST(ExactWorldBox, SpansTheExtremeBricksOfBothKeyLists) {
  const auto key = [](std::int64_t x, std::int64_t y, std::int64_t z) {
    return static_cast<std::int64_t>(*brick_key_exact({x, y, z}));
  };
  EXPECT_FALSE(exact_world_box({}, {}, kH));
  const auto box = exact_world_box({key(1, -2, 0)}, {key(-3, 4, 0)}, kH);
  ASSERT_TRUE(box);
  EXPECT_EQ(to_double(box->lo[0]), -24 * kH);
  EXPECT_EQ(to_double(box->hi[0]), 15 * kH);
  EXPECT_EQ(to_double(box->lo[1]), -16 * kH);
  EXPECT_EQ(to_double(box->hi[1]), 39 * kH);
  EXPECT_EQ(to_double(box->lo[2]), 0.0);
  EXPECT_EQ(to_double(box->hi[2]), 7 * kH);
  // At h = 0.1 the reference keeps the product exact: 7 * 0.1 is not the double 0.7.
  const auto tenth = exact_world_box({key(0, 0, 0)}, {}, 0.1);
  EXPECT_EQ(tenth->hi[0], HighPrecision(7) * HighPrecision(0.1));
  EXPECT_NE(tenth->hi[0], HighPrecision(7 * 0.1));
}

TEST(DensityNumber, InterpolatesBetweenCentresAndHoldsTheEdges) {
  DensityMapSpec map;
  map.cells = {2, 1, 1};
  map.lo = {0, 0, 0};
  map.hi = {2, 1, 1};  // centres at x = 0.5 and 1.5
  map.v0 = 1;
  map.v1 = 3;  // v = 1 + 2 d
  const std::vector<HighPrecision> values{HighPrecision(0.25), HighPrecision(0.75)};
  const auto at = [&](double x) {
    return to_double(density_number(map, values, {HighPrecision(x), HighPrecision(0.3), HighPrecision(-5)}));
  };
  EXPECT_EQ(at(0.5), 1.5);
  EXPECT_EQ(at(1.5), 2.5);
  EXPECT_EQ(at(1.0), 2.0);
  EXPECT_EQ(at(1.25), 2.25);
  EXPECT_EQ(at(-7.0), 1.5);  // held at the first centre's value
  EXPECT_EQ(at(9.0), 2.5);
}

TEST(DensityNumber, IsTrilinearOnEveryAxis) {
  DensityMapSpec map;
  map.cells = {2, 2, 2};
  map.lo = {0, 0, 0};
  map.hi = {2, 2, 2};
  // d = x + 2 y + 4 z at the centres (0 or 1 per axis), so in between it is the same linear function.
  std::vector<HighPrecision> values;
  for (int n = 0; n < 8; ++n) values.emplace_back((n & 1) + 2 * ((n >> 1) & 1) + 4 * ((n >> 2) & 1));
  const auto d = density_number(map, values, {HighPrecision(0.75), HighPrecision(1.0), HighPrecision(1.25)});
  EXPECT_EQ(to_double(d), 0.25 + 2 * 0.5 + 4 * 0.75);
}

}  // namespace
}  // namespace distgrid::audit::reference
