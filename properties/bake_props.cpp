// Properties of the plan and the baked node values (bake.plan, bake.node_values),
// with the metamorphic relations of a bake: scaling by powers of two, whole-brick
// translations, axis permutations and mirrors, float against double storage.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <set>
#include <vector>

#include "distgrid/bake.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/plan.hpp"
#include "distgrid/properties/generators.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;

BakeSettings settings_for(double h, unsigned threads = 1) {
  BakeSettings s;
  s.h = h;
  s.band = 3;
  s.threads = threads;
  return s;
}

std::array<std::int64_t, 3> node_of(const BrickCoord& b, int n) {
  return {b.bx * 8 + (n & 7), b.by * 8 + ((n >> 3) & 7), b.bz * 8 + (n >> 6)};
}

double field_at_node(const Field<double>& f, const std::array<std::int64_t, 3>& node, double h) {
  return f.eval<double>(static_cast<double>(node[0]) * h, static_cast<double>(node[1]) * h,
                        static_cast<double>(node[2]) * h);
}

/// Every brick a grid stores or marks inside.
template <class S>
std::vector<BrickCoord> bricks_of(const Grid<S>& grid) {
  std::vector<BrickCoord> out;
  for (std::int64_t key : grid.stored_keys()) out.push_back(brick_of(key));
  for (std::int64_t key : grid.inside_keys()) out.push_back(brick_of(key));
  return out;
}

// ---- bake.plan ------------------------------------------------------------------

// A brick the plan skips reads +band*h and one it marks inside reads -band*h; so
// a skipped brick may hold no node with f < band*h, an inside one none with
// f > -band*h. Checked on random bricks of the range (and one brick beyond it)
// and on neighbours of computed bricks, where the ball test is closest to its edge.
DISTGRID_PROPERTY(BakePlan, neverSkipsOrFillsABrickHoldingANodeInTheBand, 60) {
  const double h = *power_of_two_h(-4, 0);
  const ShapeSpec shape = *csg_spec(h, 2);
  const Field<double> field = compile_field<double>(shape.spec);
  const Plan plan = plan_bricks(field, settings_for(h));
  RC_PRE(!plan.near_keys.empty());
  const std::set<std::int64_t> near(plan.near_keys.begin(), plan.near_keys.end());
  const std::set<std::int64_t> inside(plan.inside_keys.begin(), plan.inside_keys.end());
  const double band_width = 3 * h;
  std::vector<BrickCoord> probes;
  for (int n = 0; n < 12; ++n) {
    BrickCoord b{};
    b.bx = *rc::gen::inRange(plan.lo[0] - 1, plan.hi[0] + 2);
    b.by = *rc::gen::inRange(plan.lo[1] - 1, plan.hi[1] + 2);
    b.bz = *rc::gen::inRange(plan.lo[2] - 1, plan.hi[2] + 2);
    probes.push_back(b);
    BrickCoord next = brick_of(plan.near_keys[*rc::gen::inRange<std::size_t>(0, plan.near_keys.size())]);
    const int axis = *rc::gen::inRange(0, 3);
    const std::int64_t step = *rc::gen::element<std::int64_t>(-1, 1);
    (axis == 0 ? next.bx : axis == 1 ? next.by : next.bz) += step;
    probes.push_back(next);
  }
  for (const BrickCoord& b : probes) {
    const std::int64_t key = brick_key(b.bx, b.by, b.bz);
    if (near.count(key)) continue;
    const bool marked_inside = inside.count(key) != 0;
    for (int n = 0; n < kBrickNodes; ++n) {
      const double f = field_at_node(field, node_of(b, n), h);
      if (marked_inside)
        RC_ASSERT(f <= -band_width);
      else
        RC_ASSERT(f >= band_width);
    }
  }
}

DISTGRID_PROPERTY(BakePlan, keysAreSortedDistinctDisjointAndInTheRange, 100) {
  const double h = *power_of_two_h(-4, 0);
  const Field<double> field = compile_field<double>((*csg_spec(h, 2)).spec);
  const Plan plan = plan_bricks(field, settings_for(h));
  RC_ASSERT(std::adjacent_find(plan.near_keys.begin(), plan.near_keys.end(), std::greater_equal<>()) == plan.near_keys.end());
  RC_ASSERT(std::adjacent_find(plan.inside_keys.begin(), plan.inside_keys.end(), std::greater_equal<>()) ==
            plan.inside_keys.end());
  std::vector<std::int64_t> both;
  std::set_intersection(plan.near_keys.begin(), plan.near_keys.end(), plan.inside_keys.begin(), plan.inside_keys.end(),
                        std::back_inserter(both));
  RC_ASSERT(both.empty());
  for (const auto* keys : {&plan.near_keys, &plan.inside_keys})
    for (std::int64_t key : *keys) {
      const BrickCoord b = brick_of(key);
      RC_ASSERT(b.bx >= plan.lo[0] && b.bx <= plan.hi[0]);
      RC_ASSERT(b.by >= plan.lo[1] && b.by <= plan.hi[1]);
      RC_ASSERT(b.bz >= plan.lo[2] && b.bz <= plan.hi[2]);
    }
  // An empty shape (a disjoint intersection) considers no brick at all.
  if (plan.bricks_considered != 0)
    RC_ASSERT(plan.bricks_considered ==
              (plan.hi[0] - plan.lo[0] + 1) * (plan.hi[1] - plan.lo[1] + 1) * (plan.hi[2] - plan.lo[2] + 1));
  else
    RC_ASSERT(plan.near_keys.empty() && plan.inside_keys.empty());
}

DISTGRID_PROPERTY(BakePlan, refusesBadSettingsWithTypedErrors, 200) {
  const double h = *rc::gen::element(0.0, -0.0, -1.0, std::numeric_limits<double>::infinity(),
                                     std::numeric_limits<double>::quiet_NaN(), 1e-320, 0.125);
  const double band = *rc::gen::element(3.0, 0.5, std::numeric_limits<double>::quiet_NaN(), 1e308);
  const Field<double> field = compile_field<double>((*sphere_spec(0.125)).spec);
  BakeSettings s;
  s.h = h;
  s.band = band;
  const bool good_arguments = h == 0.125 && band >= 1 && std::isfinite(band);
  try {
    (void)plan_bricks(field, s);
    RC_ASSERT(good_arguments && band == 3.0);
  } catch (const Error& e) {
    // Bad h or band: badarg; a band so wide the range leaves the key space: toolarge.
    RC_ASSERT(e.code() == (good_arguments ? ErrorCode::toolarge : ErrorCode::badarg));
  }
}

// ---- bake.node_values -----------------------------------------------------------

template <class S>
void check_node_values_are_clamped_field_values(const nlohmann::json& spec, double h) {
  const Field<S> field = compile_field<S>(spec);
  const Grid<S> grid = bake(field, settings_for(h));
  const double band_width = 3 * h;
  for (std::size_t slot = 0; slot < grid.stored_keys().size(); ++slot) {
    const BrickCoord b = brick_of(grid.stored_keys()[slot]);
    for (int n = 0; n < kBrickNodes; n += 7) {
      const double f = field.template eval<double>(static_cast<double>(node_of(b, n)[0]) * h,
                                                   static_cast<double>(node_of(b, n)[1]) * h,
                                                   static_cast<double>(node_of(b, n)[2]) * h);
      const S expected = static_cast<S>(std::clamp(f, -band_width, band_width));
      RC_ASSERT(grid.brick_values(slot)[n] == expected);
    }
  }
}

DISTGRID_PROPERTY(BakeNodeValues, areTheClampedFieldValuesRoundedOnceToStorage, 60) {
  const double h = *power_of_two_h(-4, 0);
  const ShapeSpec shape = *csg_spec(h, 2);
  check_node_values_are_clamped_field_values<float>(shape.spec, h);
  check_node_values_are_clamped_field_values<double>(shape.spec, h);
}

DISTGRID_PROPERTY(BakeNodeValues, areTheSameForAnyThreadCount, 40) {
  const double h = *power_of_two_h(-4, 0);
  const Field<float> field = compile_field<float>((*csg_spec(h, 2)).spec);
  const Grid<float> one = bake(field, settings_for(h, 1)), two = bake(field, settings_for(h, 2));
  RC_ASSERT(one.stored_keys() == two.stored_keys());
  RC_ASSERT(one.inside_keys() == two.inside_keys());
  for (std::size_t slot = 0; slot < one.stored_keys().size(); ++slot)
    RC_ASSERT(std::memcmp(one.brick_values(slot), two.brick_values(slot), kBrickNodes * sizeof(float)) == 0);
}

// Rounding a double to float keeps its sign unless it underflows to zero, so
// float and double bricks agree on every node's side of the surface.
DISTGRID_PROPERTY(BakeNodeValues, floatAndDoubleAgreeOnEverySignAwayFromTheSurface, 60) {
  const double h = *power_of_two_h(-4, 0);
  const nlohmann::json spec = (*csg_spec(h, 2)).spec;
  const Grid<float> f = bake(compile_field<float>(spec), settings_for(h));
  const Grid<double> d = bake(compile_field<double>(spec), settings_for(h));
  RC_ASSERT(f.stored_keys() == d.stored_keys());
  RC_ASSERT(f.inside_keys() == d.inside_keys());
  for (std::size_t slot = 0; slot < f.stored_keys().size(); ++slot)
    for (int n = 0; n < kBrickNodes; ++n) {
      const double vd = d.brick_values(slot)[n];
      const double vf = static_cast<double>(f.brick_values(slot)[n]);
      if (std::fabs(vd) >= static_cast<double>(std::numeric_limits<float>::min())) RC_ASSERT((vf < 0) == (vd < 0));
      RC_ASSERT(std::fabs(vf - vd) <= std::fabs(vd) * 0x1p-24);
    }
}

// Scaling the part and h by 2^k together (k in [-3, 3]) gives the same plan, node
// values times 2^k and the volume times 8^k, bit for bit.
DISTGRID_PROPERTY(BakePlanAndBakeNodeValuesAndGridVolume, scalingPartAndHByAPowerOfTwoScalesEveryResult, 40) {
  const double h = *power_of_two_h(-3, 0);
  const nlohmann::json spec = (*csg_spec(h, 2)).spec;
  const double factor = power_of_two(*rc::gen::element(-3, -1, 1, 2, 3));
  const nlohmann::json big = scaled_spec(spec, factor);
  const Plan a = plan_bricks(compile_field<float>(spec), settings_for(h));
  const Plan b = plan_bricks(compile_field<float>(big), settings_for(h * factor));
  RC_ASSERT(a.near_keys == b.near_keys);
  RC_ASSERT(a.inside_keys == b.inside_keys);
  const Grid<float> ga = bake(compile_field<float>(spec), settings_for(h));
  const Grid<float> gb = bake(compile_field<float>(big), settings_for(h * factor));
  for (std::size_t slot = 0; slot < ga.stored_keys().size(); ++slot)
    for (int n = 0; n < kBrickNodes; ++n)
      RC_ASSERT(static_cast<double>(gb.brick_values(slot)[n]) == static_cast<double>(ga.brick_values(slot)[n]) * factor);
  RC_ASSERT(gb.volume() == ga.volume() * factor * factor * factor);
}

// Translating the part by whole bricks reads the same value at every moved node
// (the plan may differ only where every value is clamped).
DISTGRID_PROPERTY(BakePlanAndBakeNodeValues, translatingByWholeBricksOnlyRenamesKeys, 40) {
  const double h = *power_of_two_h(-4, 0);
  const nlohmann::json spec = (*csg_spec(h, 2)).spec;
  const std::array<std::int64_t, 3> t{*small_brick_coordinate(40), *small_brick_coordinate(40),
                                      *small_brick_coordinate(40)};
  const nlohmann::json moved{{"type", "translate"},
                             {"by", {static_cast<double>(8 * t[0]) * h, static_cast<double>(8 * t[1]) * h,
                                     static_cast<double>(8 * t[2]) * h}},
                             {"shape", spec}};
  const Grid<float> a = bake(compile_field<float>(spec), settings_for(h));
  const Grid<float> b = bake(compile_field<float>(moved), settings_for(h));
  std::vector<BrickCoord> bricks = bricks_of(a);
  for (const BrickCoord& m : bricks_of(b)) bricks.push_back({m.bx - t[0], m.by - t[1], m.bz - t[2]});
  for (const BrickCoord& br : bricks)
    for (int n = 0; n < kBrickNodes; n += 3) {
      const auto node = node_of(br, n);
      RC_ASSERT(b.node(node[0] + 8 * t[0], node[1] + 8 * t[1], node[2] + 8 * t[2]) == a.node(node[0], node[1], node[2]));
    }
}

// Permuting and mirroring the axes of a part of spheres and boxes permutes and
// mirrors its node values bit for bit; the volume is the same to rounding (its
// sum runs in key order, which the move reorders).
DISTGRID_PROPERTY(BakeNodeValuesAndGridVolume, permutingAndMirroringAxesMovesNodeValuesExactly, 40) {
  const double h = *power_of_two_h(-4, 0);
  const nlohmann::json spec = (*axis_symmetric_csg_spec(h, 2)).spec;
  std::array<int, 3> perm{0, 1, 2};
  const int permutation = *rc::gen::inRange(0, 6);
  for (int k = 0; k < permutation; ++k) std::next_permutation(perm.begin(), perm.end());
  const std::array<bool, 3> mirror{*rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<bool>(), *rc::gen::arbitrary<bool>()};
  const nlohmann::json moved = moved_axes_spec(spec, perm, mirror);
  RC_ASSERT(!moved.is_null());
  const Grid<double> a = bake(compile_field<double>(spec), settings_for(h));
  const Grid<double> b = bake(compile_field<double>(moved), settings_for(h));
  for (const BrickCoord& br : bricks_of(a))
    for (int n = 0; n < kBrickNodes; n += 5) {
      const auto p = node_of(br, n);
      std::array<std::int64_t, 3> q{};
      for (std::size_t k = 0; k < 3; ++k) {
        const std::int64_t v = p[static_cast<std::size_t>(perm[k])];
        q[k] = mirror[k] ? -v : v;
      }
      RC_ASSERT(b.node(q[0], q[1], q[2]) == a.node(p[0], p[1], p[2]));
    }
  RC_ASSERT(std::fabs(b.volume() - a.volume()) <= 1e-12 * a.volume());
}

}  // namespace
}  // namespace distgrid
