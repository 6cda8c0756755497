// The references themselves, on cases computed by hand.
#include <gtest/gtest.h>

#include <array>
#include <cmath>

#include <nlohmann/json.hpp>

#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/reference/trilinear.hpp"
#include "distgrid/audit/reference/volume.hpp"
#include "distgrid/field_json.hpp"

namespace distgrid::audit::reference {
namespace {

std::int64_t key_of(std::int64_t bx, std::int64_t by, std::int64_t bz) {
  return static_cast<std::int64_t>(*brick_key_exact({bx, by, bz}));
}

TEST(ReferenceBrickKey, MatchesKeysComputedByHand) {
  EXPECT_EQ(key_of(0, 0, 0), 1125908496842752);
  EXPECT_EQ(key_of(1, 2, 3), 1125925676974083);
  EXPECT_EQ(key_of(-1, 0, 65535), 1125891317039103);
  EXPECT_EQ(key_of(-65536, -65536, -65536), 0);
  EXPECT_EQ(key_of(65535, 65535, 65535), (std::int64_t{1} << 51) - 1);
}

TEST(ReferenceBrickKey, HasNoKeyBeyondTheRange) {
  EXPECT_FALSE(brick_key_exact({65536, 0, 0}));
  EXPECT_FALSE(brick_key_exact({0, -65537, 0}));
  EXPECT_FALSE(brick_key_exact({0, 0, std::numeric_limits<std::int64_t>::min()}));
  EXPECT_FALSE(brick_of_key_exact(-1));
  EXPECT_FALSE(brick_of_key_exact(Int128{1} << 51));
}

TEST(ReferenceBrickKey, DecodesItsOwnKeys) {
  for (const BrickTriple b : {BrickTriple{0, 0, 0}, BrickTriple{1, 2, 3}, BrickTriple{-1, 0, 65535},
                              BrickTriple{-65536, 65535, -65536}})
    EXPECT_EQ(*brick_of_key_exact(*brick_key_exact(b)), b);
}

TEST(ReferenceBrickKey, FloorsNodeIndicesTowardsMinusInfinity) {
  EXPECT_EQ(brick_of_node_exact(0), 0);
  EXPECT_EQ(brick_of_node_exact(7), 0);
  EXPECT_EQ(brick_of_node_exact(8), 1);
  EXPECT_EQ(brick_of_node_exact(-1), -1);
  EXPECT_EQ(brick_of_node_exact(-8), -1);
  EXPECT_EQ(brick_of_node_exact(-9), -2);
}

TEST(ReferenceTrilinear, ReproducesALinearFunctionExactly) {
  Corners c;
  for (std::size_t n = 0; n < 8; ++n) c[n] = HighPrecision(static_cast<double>(n));  // c = a + 2b + 4c
  EXPECT_EQ(trilinear(c, {HighPrecision(0.25), HighPrecision(0.5), HighPrecision(0.75)}), HighPrecision(4.25));
  EXPECT_EQ(trilinear(c, {HighPrecision(0), HighPrecision(0), HighPrecision(0)}), HighPrecision(0));
}

TEST(ReferenceTrilinear, WeighsTheFarCornerByUVW) {
  Corners c;
  c.fill(HighPrecision(0));
  c[7] = 1;
  EXPECT_EQ(trilinear(c, {HighPrecision(0.25), HighPrecision(0.5), HighPrecision(0.75)}), HighPrecision(0.09375));
}

TEST(ReferenceTrilinear, FindsTheCellBelowAPoint) {
  const Cell cell = cell_of({20.0 / 64, -0.5 / 64, 1e-300}, 1.0 / 64);
  EXPECT_EQ(cell.node, (std::array<std::int64_t, 3>{20, -1, 0}));
  EXPECT_EQ(cell.t[0], HighPrecision(0));
  EXPECT_EQ(cell.t[1], HighPrecision(0.5));
  EXPECT_GT(cell.t[2], HighPrecision(0));
}

TEST(ReferenceStoredNodes, ReadsStoredInsideAndAbsentBricks) {
  Grid<float> grid(0.25, 2);  // band*h = 0.5
  float* values = grid.add_brick(key_of(0, 0, 0));
  for (int n = 0; n < 512; ++n) values[n] = static_cast<float>(n) / 1024;
  grid.add_inside(key_of(1, 0, 0));
  const StoredNodes<float> nodes(grid);
  EXPECT_EQ(nodes.value(3, 2, 1), (3 + 8 * 2 + 64 * 1) / 1024.0);
  EXPECT_EQ(nodes.value(8, 0, 0), -0.5);
  EXPECT_EQ(nodes.value(-1, 0, 0), 0.5);
  EXPECT_EQ(nodes.value(0, 0, 8 * 131072), 0.5);  // no key there: absent, not an alias
}

TEST(ReferenceStoredNodes, ABlockReadsWhatEachNodeReads) {
  Grid<float> grid(0.25, 2);
  const std::array<std::array<int, 3>, 3> stored{{{0, 0, 0}, {1, 1, 0}, {0, 1, 1}}};
  for (const auto& [i, j, k] : stored) {
    float* values = grid.add_brick(key_of(i, j, k));
    for (int n = 0; n < 512; ++n) values[n] = static_cast<float>(n + 512 * (i + 2 * j + 4 * k)) / 4096;
  }
  grid.add_inside(key_of(1, 0, 0));
  grid.add_inside(key_of(1, 1, 1));
  const StoredNodes<float> nodes(grid);
  // Cell bricks around the stored ones, so each block mixes stored, inside and absent bricks.
  for (int cz = -1; cz <= 1; ++cz)
    for (int cy = -1; cy <= 1; ++cy)
      for (int cx = -1; cx <= 1; ++cx) {
        std::array<double, 729> block{};
        block.fill(std::nan(""));
        nodes.block({cx, cy, cz}, block);
        for (int z = 0; z < 9; ++z)
          for (int y = 0; y < 9; ++y)
            for (int x = 0; x < 9; ++x)
              ASSERT_EQ(block[static_cast<std::size_t>(x + 9 * y + 81 * z)],
                        nodes.value(8 * cx + x, 8 * cy + y, 8 * cz + z))
                  << "cell brick " << cx << " " << cy << " " << cz << ", node " << x << " " << y << " " << z;
      }
}

TEST(ReferenceVolume, CountsHalfAVoxelPerNodeOnTheSurfaceAndWholeInsideBricks) {
  Grid<double> grid(0.5, 2);
  double* values = grid.add_brick(key_of(0, 0, 0));
  for (int n = 0; n < 512; ++n) values[n] = 0;
  EXPECT_EQ(volume_from_stored(grid), HighPrecision(512 * 0.5 * 0.125));
  grid.add_inside(key_of(2, 0, 0));
  EXPECT_EQ(volume_from_stored(grid), HighPrecision(512 * 0.5 * 0.125 + 512 * 0.125));
}

TEST(ReferenceVolume, ClampsEachShareToZeroAndOne) {
  Grid<float> grid(0.5, 4);
  float* values = grid.add_brick(key_of(-3, 5, 0));
  for (int n = 0; n < 512; ++n) values[n] = n % 2 ? 1.0f : -1.0f;  // shares 0 and 1 after the clamp
  values[0] = -0.125f;                                                // share 0.75
  EXPECT_EQ(volume_from_stored(grid), HighPrecision((255 + 0.75) * 0.125));
  EXPECT_EQ(voxel_share(HighPrecision(0.1), 0.5), HighPrecision(0.5) - HighPrecision(0.1) / 0.5);
}

TEST(ReferenceExactValues, ClampTheFormulaToTheBand) {
  const Field<double> field =
      compile_field<double>(nlohmann::json{{"type", "sphere"}, {"center", {0, 0, 0}}, {"radius", 1.0}});
  const FormulaShape<double> sphere(field, true);
  EXPECT_EQ(exact_node_value(sphere, 4, 0, 0, 0.25, 2), HighPrecision(0));
  EXPECT_EQ(exact_node_value(sphere, 0, 3, 0, 0.25, 2), HighPrecision(-0.25));
  EXPECT_EQ(exact_node_value(sphere, 8, 0, 0, 0.25, 2), HighPrecision(0.5));  // f = 1 > band*h
  EXPECT_EQ(exact_node_value(sphere, 0, 0, 0, 0.25, 2), HighPrecision(-0.5));
  // (0.6, 0.8, 0) is on the sphere up to the doubles' own rounding of 0.6 and 0.8.
  EXPECT_LT(abs(exact_point_value(sphere, {0.6, 0.8, 0}, 0.25, 2)), HighPrecision(1e-16));
}

TEST(ReferenceVolume, FromExactNodeValuesOfAHalfSpaceIsComputedByHand) {
  // f = z - 0.3 over one brick at h = 1/8: a node of layer k has the share
  // clamp(1/2 - (k/8 - 0.3) * 8, 0, 1): 1 for k = 0 and 1, -1.5 + 8 * 0.3 = 0.9 for
  // k = 2 (0.3 as the double it is), 0 above. Each layer holds 64 nodes.
  const Field<double> field =
      compile_field<double>(nlohmann::json{{"type", "halfspace"}, {"normal", {0, 0, 1}}, {"offset", 0.3}});
  const FormulaShape<double> slab(field, true);
  Grid<double> grid(0.125, 3);
  grid.add_brick(key_of(0, 0, 0));
  const HighPrecision v = volume_from_node_values(grid, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return exact_node_value(slab, i, j, k, 0.125, 3);
  });
  const HighPrecision layer_shares = 2 + (HighPrecision(-1.5) + 8 * HighPrecision(0.3));
  EXPECT_EQ(v, 64 * layer_shares / 512);
}

}  // namespace
}  // namespace distgrid::audit::reference
