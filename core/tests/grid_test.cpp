#include "distgrid/grid.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <random>
#include <vector>

#include "distgrid/error.hpp"
#include "support/node_grids.hpp"

namespace distgrid {
namespace {

constexpr double kH = 0.125;

// Every node of the bricks [b0, b1]^3 holds f(i, j, k), clamped to the band; h = kH.
template <class S, class F>
Grid<S> grid_from_nodes(double band, std::int64_t b0, std::int64_t b1, F f) {
  return test_support::grid_from_nodes<S>(kH, band, b0, b1, f);
}

// An affine field with dyadic coefficients: exact in float over the nodes used here.
double affine(std::int64_t i, std::int64_t j, std::int64_t k) {
  return 0.25 * static_cast<double>(i) - 0.5 * static_cast<double>(j) + 0.125 * static_cast<double>(k) + 0.75;
}

template <class S>
class GridTest : public ::testing::Test {};
using Storages = ::testing::Types<float, double>;
TYPED_TEST_SUITE(GridTest, Storages);

TYPED_TEST(GridTest, RefusesBadVoxelSizeAndBandAsBadArg) {
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double h : {0.0, -1.0, nan, inf, 1e-320}) {
    try {
      Grid<TypeParam> grid(h, 3);
      FAIL() << "accepted h = " << h;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::badarg) << h;
    }
  }
  for (double band : {0.5, 0.0, -3.0, nan, inf}) {
    EXPECT_THROW((Grid<TypeParam>(kH, band)), Error) << band;
  }
}

TYPED_TEST(GridTest, AbsentBricksReadPlusBandAndInsideBricksMinusBand) {
  Grid<TypeParam> grid(kH, 3);
  grid.add_inside(brick_key(0, 0, 0));
  EXPECT_EQ(grid.node(3, 3, 3), -3 * kH);
  EXPECT_EQ(grid.node(8, 0, 0), 3 * kH);
  EXPECT_EQ(grid.node(-1, 0, 0), 3 * kH);
  EXPECT_EQ(grid.sample(0.3, 0.3, 0.3), -3 * kH);
  EXPECT_EQ(grid.sample(-5.0, 2.0, 1.0), 3 * kH);
  EXPECT_TRUE(grid.is_inside(brick_key(0, 0, 0)));
  EXPECT_EQ(grid.find_brick(brick_key(0, 0, 0)), nullptr);
}

TYPED_TEST(GridTest, SamplingAtANodeReturnsTheStoredValue) {
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(1000, -1, 1, affine);
  for (std::int64_t i = -8; i < 16; i += 3)
    for (std::int64_t j = -8; j < 16; j += 5)
      for (std::int64_t k = -8; k < 16; k += 7) {
        const double x = static_cast<double>(i) * kH, y = static_cast<double>(j) * kH,
                     z = static_cast<double>(k) * kH;
        EXPECT_EQ(grid.sample(x, y, z), grid.node(i, j, k)) << i << ' ' << j << ' ' << k;
        EXPECT_EQ(grid.node(i, j, k), affine(i, j, k));
      }
}

TYPED_TEST(GridTest, SamplingReproducesAnAffineFieldStoredExactly) {
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(1000, -1, 1, affine);
  // Dyadic points (multiples of h/64): the trilinear arithmetic is exact on them.
  for (int n = 0; n < 2000; ++n) {
    const double x = kH * (-7.5 + 0.015625 * (n % 1409));
    const double y = kH * (-7.0 + 0.03125 * (n % 701));
    const double z = kH * (-6.0 + 0.0625 * (n % 331));
    const double expected = 0.25 * (x / kH) - 0.5 * (y / kH) + 0.125 * (z / kH) + 0.75;
    EXPECT_EQ(grid.sample(x, y, z), expected) << x << ' ' << y << ' ' << z;
  }
}

TYPED_TEST(GridTest, GradientOfAnAffineFieldIsExact) {
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(1000, -1, 1, affine);
  for (double x : {-0.5, 0.0, 0.3125, 0.9375})
    for (double y : {-0.25, 0.5})
      for (double z : {-0.75, 0.0625, 1.0}) {
        const std::array<double, 3> g = grid.gradient(x, y, z);
        EXPECT_EQ(g[0], 0.25 / kH);
        EXPECT_EQ(g[1], -0.5 / kH);
        EXPECT_EQ(g[2], 0.125 / kH);
      }
}

TYPED_TEST(GridTest, SamplingIsContinuousAcrossBrickFaces) {
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(
      3, -1, 1, [](std::int64_t i, std::int64_t j, std::int64_t k) {
        return 0.01 * static_cast<double>(i * i - 2 * j * k) + 0.003 * static_cast<double>(k);
      });
  const double face = 8 * kH;  // x = 8h is the face between bricks 0 and 1
  for (double y : {0.1, 0.37, 0.6})
    for (double z : {-0.2, 0.45}) {
      const double below = grid.sample(std::nextafter(face, 0.0), y, z);
      const double on = grid.sample(face, y, z);
      const double above = grid.sample(std::nextafter(face, 1.0), y, z);
      EXPECT_NEAR(below, on, 1e-12);
      EXPECT_NEAR(above, on, 1e-12);
    }
}

TYPED_TEST(GridTest, AccessorAgreesWithTheGridBitForBit) {
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(
      2, -1, 0, [](std::int64_t i, std::int64_t j, std::int64_t k) {
        return 0.07 * static_cast<double>(i) + 0.011 * static_cast<double>(j * k) - 0.2;
      });
  GridAccessor<TypeParam> accessor(grid);
  for (int n = 0; n < 3000; ++n) {
    const double x = -1.3 + 0.00091 * n, y = -1.1 + 0.00077 * n, z = 0.2 - 0.00043 * n;
    EXPECT_EQ(accessor.sample(x, y, z), grid.sample(x, y, z));
    EXPECT_EQ(accessor.gradient(x, y, z), grid.gradient(x, y, z));
  }
}

// Node value by the definition, read through find_brick and is_inside only.
template <class S>
double node_by_definition(const Grid<S>& grid, std::int64_t i, std::int64_t j, std::int64_t k) {
  const std::int64_t key = brick_key(brick_of_node(i), brick_of_node(j), brick_of_node(k));
  if (const S* values = grid.find_brick(key)) return static_cast<double>(values[(i & 7) + 8 * (j & 7) + 64 * (k & 7)]);
  return grid.is_inside(key) ? -grid.band_width() : grid.band_width();
}

// Trilinear sample by the definition (x/h, floor, then along x, y, z, each a + (b - a)*t)
// for points well inside the key range, and not -0.0.
template <class S>
double sample_by_definition(const Grid<S>& grid, double x, double y, double z) {
  const double fx = x / grid.h(), fy = y / grid.h(), fz = z / grid.h();
  const double lx = std::floor(fx), ly = std::floor(fy), lz = std::floor(fz);
  const double u = fx - lx, v = fy - ly, w = fz - lz;
  const auto i = static_cast<std::int64_t>(lx), j = static_cast<std::int64_t>(ly), k = static_cast<std::int64_t>(lz);
  const auto c = [&](std::int64_t di, std::int64_t dj, std::int64_t dk) {
    return node_by_definition(grid, i + di, j + dj, k + dk);
  };
  const auto lerp = [](double a, double b, double t) { return a + (b - a) * t; };
  const double a0 = lerp(c(0, 0, 0), c(1, 0, 0), u), a1 = lerp(c(0, 1, 0), c(1, 1, 0), u);
  const double b0 = lerp(c(0, 0, 1), c(1, 0, 1), u), b1 = lerp(c(0, 1, 1), c(1, 1, 1), u);
  return lerp(lerp(a0, a1, v), lerp(b0, b1, v), w);
}

TYPED_TEST(GridTest, AccessorSampleAndGradientFollowTheirDefinitionBitForBit) {
  // Stored bricks [-1, 0]^3 with values of both signs cut by the band, two inside
  // bricks and absent bricks around them; points anywhere in [-2, 2]^3 bricks, on
  // brick faces and one ulp either side, at nodes and in between, in random order
  // and in brick order (the accessor's cache sees both).
  Grid<TypeParam> grid = grid_from_nodes<TypeParam>(
      1.5, -1, 0, [](std::int64_t i, std::int64_t j, std::int64_t k) {
        return 0.017 * static_cast<double>(i * j) - 0.031 * static_cast<double>(k) + 0.003 * static_cast<double>(i) - 0.01;
      });
  grid.add_inside(brick_key(1, 0, 0));
  grid.add_inside(brick_key(-1, 1, -1));
  std::mt19937_64 rng(8);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  std::uniform_int_distribution<int> kind(0, 4);
  std::vector<std::array<double, 3>> points;
  for (int n = 0; n < 30000; ++n) {
    std::array<double, 3> p{};
    for (double& c : p) {
      const double node = std::floor(-16 + 32 * unit(rng));
      const double face = std::floor(node / 8) * 8 * kH;
      switch (kind(rng)) {
        case 0: c = face; break;
        case 1: c = std::nextafter(face, -1.0); break;
        case 2: c = std::nextafter(face, 1.0); break;
        case 3: c = node * kH; break;
        default: c = (node + unit(rng)) * kH;
      }
      if (c == 0) c = 0.0;  // not -0.0, whose fraction's sign the definition above does not fix
    }
    points.push_back(p);
  }
  const double e = kH * 0.5;
  for (const bool sorted : {false, true}) {
    if (sorted)
      std::sort(points.begin(), points.end(), [](const auto& a, const auto& b) {
        const auto brick = [](const std::array<double, 3>& p) {
          return std::array<double, 3>{std::floor(p[2] / (8 * kH)), std::floor(p[1] / (8 * kH)), std::floor(p[0] / (8 * kH))};
        };
        return brick(a) < brick(b);
      });
    GridAccessor<TypeParam> accessor(grid);
    for (const auto& [x, y, z] : points) {
      const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
      ASSERT_EQ(bits(accessor.sample(x, y, z)), bits(sample_by_definition(grid, x, y, z))) << x << ' ' << y << ' ' << z;
      const std::array<double, 3> expected{
          (sample_by_definition(grid, x + e, y, z) - sample_by_definition(grid, x - e, y, z)) / (2 * e),
          (sample_by_definition(grid, x, y + e, z) - sample_by_definition(grid, x, y - e, z)) / (2 * e),
          (sample_by_definition(grid, x, y, z + e) - sample_by_definition(grid, x, y, z - e)) / (2 * e)};
      const std::array<double, 3> g = accessor.gradient(x, y, z);
      for (std::size_t a = 0; a < 3; ++a) ASSERT_EQ(bits(g[a]), bits(expected[a])) << a << ": " << x << ' ' << y << ' ' << z;
    }
  }
}

TYPED_TEST(GridTest, BatchCallsAgreeWithSingleCallsBitForBitOnAnyThreadCount) {
  Grid<TypeParam> grid = grid_from_nodes<TypeParam>(
      2, -2, 1, [](std::int64_t i, std::int64_t j, std::int64_t k) {
        return 0.013 * static_cast<double>(i * j) - 0.021 * static_cast<double>(k) + 0.05;
      });
  grid.add_inside(brick_key(3, 3, 3));
  // Random order over stored, inside and absent bricks, more points than two blocks
  // of the batch calls, and points with no base node (far, infinite, NaN).
  const std::uint64_t seed = 20261203;
  std::mt19937_64 random(seed);
  std::uniform_real_distribution<double> coordinate(-2.2, 3.9);
  std::vector<std::array<double, 3>> points;
  for (int n = 0; n < 140000; ++n) points.push_back({coordinate(random), coordinate(random), coordinate(random)});
  points.insert(points.begin() + 131000, {1e300, 0, 0});
  points.push_back({0, -std::numeric_limits<double>::infinity(), 0});
  points.push_back({std::numeric_limits<double>::quiet_NaN(), 0.5, 0.5});
  // The same points sorted by brick as well (taken without bucketing), the far ones last.
  std::vector<std::array<double, 3>> sorted = points;
  const auto brick_of_point = [](const std::array<double, 3>& p) {
    return std::array<double, 3>{std::floor(p[0] / (8 * kH)), std::floor(p[1] / (8 * kH)), std::floor(p[2] / (8 * kH))};
  };
  std::stable_sort(sorted.begin(), sorted.end() - 2, [&](const auto& a, const auto& b) { return brick_of_point(a) < brick_of_point(b); });
  const auto bits = [](double v) { return std::bit_cast<std::uint64_t>(v); };
  for (const std::vector<std::array<double, 3>>* set : {&points, &sorted}) {
    const char* order = set == &points ? "random order" : "brick order";
    for (unsigned threads : {1u, 2u, 3u}) {
      std::vector<double> values(set->size());
      std::vector<std::array<double, 3>> gradients(set->size());
      grid.sample_many(*set, values, threads);
      grid.gradient_many(*set, gradients, threads);
      for (std::size_t n = 0; n < set->size(); ++n) {
        const auto& p = (*set)[n];
        ASSERT_EQ(bits(values[n]), bits(grid.sample(p[0], p[1], p[2])))
            << "seed " << seed << ", " << order << ", point " << n << ", " << threads << " threads";
        const std::array<double, 3> g = grid.gradient(p[0], p[1], p[2]);
        for (std::size_t a = 0; a < 3; ++a)
          ASSERT_EQ(bits(gradients[n][a]), bits(g[a]))
              << "seed " << seed << ", " << order << ", point " << n << ", axis " << a << ", " << threads << " threads";
      }
    }
  }
}

TYPED_TEST(GridTest, FarAndNonFinitePointsReadTheAbsentValue) {
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(3, 0, 0, affine);
  const double bw = grid.band_width();
  EXPECT_EQ(grid.sample(1e300, 0, 0), bw);
  EXPECT_EQ(grid.sample(0, -1e18, 0), bw);
  EXPECT_EQ(grid.sample(0, 0, std::numeric_limits<double>::infinity()), bw);
  EXPECT_TRUE(std::isnan(grid.sample(std::numeric_limits<double>::quiet_NaN(), 0, 0)));
  // Beyond the key range on one axis: no brick there.
  EXPECT_EQ(grid.node(std::int64_t{1} << 40, 0, 0), bw);
}

TYPED_TEST(GridTest, VolumeOfAFlatSurfaceIsExact) {
  // 2 x 2 columns of bricks: bz = 0 inside, bz = 1 stored with d = (k - 12.25) h.
  Grid<TypeParam> grid(kH, 3);
  for (std::int64_t bx = 0; bx < 2; ++bx)
    for (std::int64_t by = 0; by < 2; ++by) {
      grid.add_inside(brick_key(bx, by, 0));
      TypeParam* values = grid.add_brick(brick_key(bx, by, 1));
      for (int n = 0; n < kBrickNodes; ++n) {
        const double d = (8.0 + (n >> 6) - 12.25) * kH;
        values[n] = static_cast<TypeParam>(std::clamp(d, -3 * kH, 3 * kH));
      }
    }
  // Per column: 8 inside nodes, 4 nodes at d <= -1.25h, then 0.75 of one node.
  EXPECT_EQ(grid.volume(), 16.0 * 16.0 * 12.75 * kH * kH * kH);
}

TYPED_TEST(GridTest, ExtentAndWorldBoxCoverStoredAndInsideBricks) {
  Grid<TypeParam> grid(kH, 3);
  EXPECT_FALSE(grid.extent().has_value());
  EXPECT_FALSE(grid.world_box().has_value());
  grid.add_brick(brick_key(-2, 0, 5));
  grid.add_inside(brick_key(3, -1, 4));
  const BrickExtent e = *grid.extent();
  EXPECT_EQ(e.lo, (std::array<std::int64_t, 3>{-2, -1, 4}));
  EXPECT_EQ(e.hi, (std::array<std::int64_t, 3>{3, 0, 5}));
  const Box box = *grid.world_box();
  EXPECT_EQ(box.lo, (std::array<double, 3>{-16 * kH, -8 * kH, 32 * kH}));
  EXPECT_EQ(box.hi, (std::array<double, 3>{31 * kH, 7 * kH, 47 * kH}));
}

TYPED_TEST(GridTest, RefusesDuplicateAndInvalidKeys) {
  Grid<TypeParam> grid(kH, 3);
  grid.add_brick(brick_key(1, 2, 3));
  EXPECT_THROW(grid.add_brick(brick_key(1, 2, 3)), Error);
  EXPECT_THROW(grid.add_inside(brick_key(1, 2, 3)), Error);
  EXPECT_THROW(grid.add_brick(-5), Error);
  EXPECT_THROW(grid.add_inside(std::int64_t{1} << 52), Error);
  EXPECT_EQ(grid.stored_brick_count(), 1u);
}

TYPED_TEST(GridTest, IndexFindsEveryBrickAfterManyInsertions) {
  Grid<TypeParam> grid(kH, 3);
  for (std::int64_t n = 0; n < 5000; ++n) grid.add_brick(brick_key(n % 17 - 8, n / 17 % 19, n / 323));
  for (std::int64_t n = 0; n < 5000; ++n) {
    const TypeParam* values = grid.find_brick(brick_key(n % 17 - 8, n / 17 % 19, n / 323));
    ASSERT_NE(values, nullptr) << n;
    EXPECT_EQ(values, grid.brick_values(static_cast<std::size_t>(n)));
  }
  EXPECT_EQ(grid.find_brick(brick_key(100, 100, 100)), nullptr);
}

TEST(GridMemory, FloatBricksTakeAtMost2Point2KibEachIncludingTheIndex) {
  Grid<float> grid(kH, 3);
  const std::size_t count = 4000;
  grid.reserve(count);
  for (std::size_t n = 0; n < count; ++n) grid.add_brick(brick_key(static_cast<std::int64_t>(n % 50), static_cast<std::int64_t>(n / 50), 0));
  const double per_brick = static_cast<double>(grid.memory_bytes()) / static_cast<double>(count);
  EXPECT_LE(per_brick, 2.2 * 1024) << per_brick;
  EXPECT_GE(per_brick, 2048.0);
}

}  // namespace
}  // namespace distgrid
