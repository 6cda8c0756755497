// Plan and bake: the brick range, conservative classification, node values,
// typed errors, and results that do not depend on the thread count.
#include "distgrid/bake.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <functional>
#include <limits>
#include <nlohmann/json.hpp>

#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"

namespace distgrid {
namespace {

nlohmann::json sphere_spec(double cx, double cy, double cz, double r) {
  return {{"type", "sphere"}, {"center", {cx, cy, cz}}, {"radius", r}};
}

template <class S>
class BakeTest : public ::testing::Test {};
using Storages = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BakeTest, Storages);

ErrorCode error_code_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const Error& e) {
    return e.code();
  }
  ADD_FAILURE() << "no error thrown";
  return ErrorCode::badarg;
}

TYPED_TEST(BakeTest, RefusesBadVoxelSizeBandAndBoxAsBadArg) {
  const Field<TypeParam> field = compile_field<TypeParam>(sphere_spec(0, 0, 0, 1));
  const double nan = std::numeric_limits<double>::quiet_NaN(), inf = std::numeric_limits<double>::infinity();
  for (double h : {0.0, -0.1, nan, inf})
    EXPECT_EQ(error_code_of([&] { (void)bake(field, BakeSettings{h, 3, std::nullopt, 1}); }), ErrorCode::badarg) << h;
  for (double band : {0.0, 0.99, nan, inf})
    EXPECT_EQ(error_code_of([&] { (void)bake(field, BakeSettings{0.1, band, std::nullopt, 1}); }), ErrorCode::badarg)
        << band;
  EXPECT_EQ(error_code_of([&] { (void)bake(field, BakeSettings{0.1, 3, Box{{0, 0, 0}, {nan, 1, 1}}, 1}); }),
            ErrorCode::badarg);
  EXPECT_EQ(error_code_of([&] { (void)bake(field, BakeSettings{0.1, 3, Box{{0, 0, 0}, {-1, 1, 1}}, 1}); }),
            ErrorCode::badarg);
}

TYPED_TEST(BakeTest, AFormulaWithoutAFiniteBoxNeedsOne) {
  const Field<TypeParam> plane = compile_field<TypeParam>(
      nlohmann::json{{"type", "halfspace"}, {"normal", {0, 0, 1}}, {"offset", 0.0}});
  EXPECT_EQ(error_code_of([&] { (void)plan_bricks(plane, BakeSettings{0.1, 3, std::nullopt, 1}); }), ErrorCode::nobox);
  const Plan plan = plan_bricks(plane, BakeSettings{0.125, 3, Box{{-1, -1, -1}, {1, 1, 1}}, 1});
  EXPECT_FALSE(plan.near_keys.empty());
  EXPECT_FALSE(plan.inside_keys.empty());
}

// Two spheres 0.4 band h apart: the intersection is empty and so is its box, but
// between the spheres f = max of the two distances stays below band h, and those
// nodes must hold f. Spheres 3 band h apart leave no node within the band.
TYPED_TEST(BakeTest, AnEmptyIntersectionKeepsTheNodesWithinItsBand) {
  const double h = 0.05, band = 3, bw = band * h;
  const auto apart = [&](double gap) {
    return compile_field<TypeParam>(nlohmann::json{
        {"type", "intersection"}, {"of", {sphere_spec(0, 0, 0, 1), sphere_spec(2 + gap, 0, 0, 1)}}});
  };
  const Field<TypeParam> near = apart(0.4 * bw);
  ASSERT_TRUE(near.bounds().empty());
  const Grid<TypeParam> grid = bake(near, BakeSettings{h, band, std::nullopt, 1});
  const double mid = (2 + 0.4 * bw) / 2;
  const double f = near.eval(std::round(mid / h) * h, 0.0, 0.0);
  ASSERT_LT(f, bw);
  EXPECT_NEAR(grid.sample(std::round(mid / h) * h, 0.0, 0.0), f, 1e-6);
  EXPECT_FALSE(grid.stored_keys().empty());

  const Plan none = plan_bricks(apart(3 * bw), BakeSettings{h, band, std::nullopt, 1});
  EXPECT_EQ(none.bricks_considered, 0);
  EXPECT_TRUE(none.near_keys.empty());
  EXPECT_TRUE(none.inside_keys.empty());
}

// A union with an empty slab (x <= 0 and x >= 0.1 h): the slab adds nothing to
// the shape's box, but its band f < band h is an unbounded plane, which no
// brick range holds: nobox, as for a formula without a finite box.
TYPED_TEST(BakeTest, AnUnboundedBandNeedsABox) {
  const double h = 0.05;
  const nlohmann::json slab{{"type", "intersection"},
                            {"of",
                             {{{"type", "halfspace"}, {"normal", {1, 0, 0}}, {"offset", 0.0}},
                              {{"type", "halfspace"}, {"normal", {-1, 0, 0}}, {"offset", -0.1 * h}}}}};
  const Field<TypeParam> field =
      compile_field<TypeParam>(nlohmann::json{{"type", "union"}, {"of", {sphere_spec(0, 0, 0, 1), slab}}});
  ASSERT_TRUE(field.bounds().finite());
  EXPECT_EQ(error_code_of([&] { (void)plan_bricks(field, BakeSettings{h, 3, std::nullopt, 1}); }), ErrorCode::nobox);
  const Plan clipped = plan_bricks(field, BakeSettings{h, 3, Box{{-1, -1, -1}, {1, 1, 1}}, 1});
  EXPECT_FALSE(clipped.near_keys.empty());
}

TYPED_TEST(BakeTest, RefusesPartsTooLargeForTheKeyRange) {
  const Field<TypeParam> far = compile_field<TypeParam>(sphere_spec(1e9, 0, 0, 1));
  EXPECT_EQ(error_code_of([&] { (void)plan_bricks(far, BakeSettings{0.01, 3, std::nullopt, 1}); }), ErrorCode::toolarge);
  const Field<TypeParam> wide = compile_field<TypeParam>(sphere_spec(0, 0, 0, 1));
  // 2 / (8 * 1e-5) = 25 000 bricks along each axis: more than 16 000.
  EXPECT_EQ(error_code_of([&] { (void)plan_bricks(wide, BakeSettings{1e-5, 3, std::nullopt, 1}); }), ErrorCode::toolarge);
  // 15 000 bricks per axis is allowed by the axis rule but the surface alone needs
  // more bricks than the plan accepts: refused quickly, not after an hour.
  EXPECT_EQ(error_code_of([&] { (void)plan_bricks(wide, BakeSettings{2.0 / 8 / 15000, 3, std::nullopt, 1}); }),
            ErrorCode::toolarge);
}

TYPED_TEST(BakeTest, BrickRangeIsTheFloorOfTheBoxOverEightH) {
  const auto r = plan_brick_range(Box{{-1 - 0.375, -0.375, 0.125}, {1 + 0.375, 0.625, 1.125}}, 0.125);
  // lo = floor((lo - 3h) / h / 8), hi = floor((hi + 3h) / h / 8)
  EXPECT_EQ(r[0], static_cast<std::int64_t>(std::floor((-1 - 0.375) / 0.125 / 8)));
  EXPECT_EQ(r[3], static_cast<std::int64_t>(std::floor((1 + 0.375) / 0.125 / 8)));
  EXPECT_EQ(r[1], -1);
  EXPECT_EQ(r[4], 0);
  EXPECT_EQ(r[2], 0);
  EXPECT_EQ(r[5], 1);
}

// Every node of every brick in the range: a node with |f| < band*h must be in a
// computed brick, and a node of a brick marked inside must have f <= -band*h.
TYPED_TEST(BakeTest, PlanNeverSkipsABrickHoldingANodeInTheBand) {
  for (const DefaultPart& part : default_parts()) {
    const Field<TypeParam> field = compile_field<TypeParam>(part.spec);
    const double h = 0.05, band = 3, bw = band * h;
    const Plan plan = plan_bricks(field, BakeSettings{h, band, std::nullopt, 1});
    const Grid<TypeParam> grid = bake_planned_bricks(field, plan, 1);
    std::size_t nodes_in_band = 0;
    // The range and one layer of bricks around it, which must lie wholly outside.
    for (std::int64_t bx = plan.lo[0] - 1; bx <= plan.hi[0] + 1; ++bx)
      for (std::int64_t by = plan.lo[1] - 1; by <= plan.hi[1] + 1; ++by)
        for (std::int64_t bz = plan.lo[2] - 1; bz <= plan.hi[2] + 1; ++bz) {
          const std::int64_t key = brick_key(bx, by, bz);
          const bool stored = grid.find_brick(key) != nullptr, inside = grid.is_inside(key);
          for (int n = 0; n < kBrickNodes; n += 7) {
            const double f = field.eval(static_cast<double>(bx * 8 + (n & 7)) * h,
                                        static_cast<double>(by * 8 + ((n >> 3) & 7)) * h,
                                        static_cast<double>(bz * 8 + (n >> 6)) * h);
            if (std::fabs(f) < bw) {
              ++nodes_in_band;
              ASSERT_TRUE(stored) << part.name << " brick " << bx << ' ' << by << ' ' << bz << " f = " << f;
            }
            if (inside) {
              ASSERT_LE(f, -bw) << part.name;
            }
            if (!stored && !inside) {
              ASSERT_GE(f, bw) << part.name;
            }
          }
        }
    EXPECT_GT(nodes_in_band, 100u) << part.name;
  }
}

TYPED_TEST(BakeTest, NodeValuesAreTheClampedFormulaStoredInTheScalar) {
  const Field<TypeParam> field = compile_field<TypeParam>(sphere_spec(0.0123, -0.0311, 0.0217, 0.9));
  const double h = 1.0 / 32, bw = 3 * h;
  const Grid<TypeParam> grid = bake(field, BakeSettings{h, 3, std::nullopt, 2});
  ASSERT_GT(grid.stored_brick_count(), 0u);
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); slot += 5) {
    const BrickCoord b = brick_of(grid.stored_keys()[slot]);
    const TypeParam* values = grid.brick_values(slot);
    for (int n = 0; n < kBrickNodes; ++n) {
      const double f = field.eval(static_cast<double>(b.bx * 8 + (n & 7)) * h,
                                  static_cast<double>(b.by * 8 + ((n >> 3) & 7)) * h,
                                  static_cast<double>(b.bz * 8 + (n >> 6)) * h);
      const double clamped = f > bw ? bw : (f < -bw ? -bw : f);
      ASSERT_EQ(values[n], static_cast<TypeParam>(clamped)) << "slot " << slot << " node " << n;
    }
  }
}

TYPED_TEST(BakeTest, ResultsAreIdenticalForAnyThreadCount) {
  const Field<TypeParam> field = compile_field<TypeParam>(default_part("bracket").spec);
  const Grid<TypeParam> one = bake(field, BakeSettings{1.0 / 40, 3, std::nullopt, 1});
  for (unsigned threads : {2u, 3u, 8u}) {
    const Grid<TypeParam> many = bake(field, BakeSettings{1.0 / 40, 3, std::nullopt, threads});
    ASSERT_EQ(one.stored_keys(), many.stored_keys());
    EXPECT_EQ(one.inside_keys(), many.inside_keys());
    EXPECT_EQ(std::memcmp(one.brick_values(0), many.brick_values(0),
                          one.stored_brick_count() * kBrickNodes * sizeof(TypeParam)),
              0);
    EXPECT_EQ(one.volume(), many.volume());
  }
}

TYPED_TEST(BakeTest, VolumeOfEachDefaultPartIsCloseToItsKnownVolume) {
  for (const DefaultPart& part : default_parts()) {
    const Field<TypeParam> field = compile_field<TypeParam>(part.spec);
    const Grid<TypeParam> grid = bake(field, BakeSettings{1.0 / 64, 3, std::nullopt, 0});
    // Second order in h for smooth surfaces; the gyroid's thin walls and the
    // bracket's edges make 1 % a safe bound at h = 1/64 (the audit measures the rest).
    EXPECT_NEAR(grid.volume(), part.volume, 0.01 * part.volume) << part.name;
  }
}

TYPED_TEST(BakeTest, ProgressIsReportedUpToTheTotal) {
  const Field<TypeParam> field = compile_field<TypeParam>(sphere_spec(0, 0, 0, 1));
  std::size_t last_done = 0, last_total = 0, calls = 0;
  const Grid<TypeParam> grid = bake(field, BakeSettings{1.0 / 32, 3, std::nullopt, 2}, [&](std::size_t d, std::size_t t) {
    EXPECT_GE(d, last_done);
    last_done = d;
    last_total = t;
    ++calls;
  });
  EXPECT_GT(calls, 0u);
  EXPECT_EQ(last_done, last_total);
  EXPECT_EQ(last_total, grid.stored_brick_count());
}

}  // namespace
}  // namespace distgrid
