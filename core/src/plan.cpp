// Plan: the brick range from the box, then which bricks may hold nodes in the band.
//
// The brick range on each axis is floor((lo - band*h) / h / 8) .. floor((hi + band*h) / h / 8),
// widened where the formula's band reaches beyond its box grown by band*h.
// A brick is classified by the ball of radius 3.5*sqrt(3)*h around its centre
// ((b*8 + 3.5)*h per axis), which holds all its nodes. To keep the cost in
// proportion to the surface rather than the box, the range is walked as an
// octree of cubes of 2^L bricks, each classified by the ball around all of its
// nodes; a cube wholly outside is skipped and a cube wholly inside marks all its
// bricks inside. Every such ball holds the balls of its bricks, and
// classification is conservative, so a brick skipped or marked by a cube would
// read the same values had it been computed (all clamped to +-band*h).
#include "distgrid/plan.hpp"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "distgrid/brick_key.hpp"
#include "distgrid/error.hpp"
#include "distgrid/interrupt.hpp"

namespace distgrid {

namespace {

std::string number_text(double v) {
  std::ostringstream out;
  out.precision(17);
  out << v;
  return out.str();
}

// Bricks a plan may mark inside, and bricks it may compute, before it refuses
// the part as too large (memory: about 24 bytes per inside brick, 2 KiB (float)
// or 4 KiB (double) per computed brick: 4 Mi computed bricks are 8-16 GiB).
constexpr std::int64_t kMaxInsideBricks = std::int64_t{1} << 28;
constexpr std::int64_t kMaxNearBricks = std::int64_t{1} << 22;

template <class S>
struct PlanWalk {
  const Field<S>& field;
  double h, band_width;
  std::array<std::int64_t, 3> lo, hi;
  std::uint64_t max_memory_bytes;
  std::uint64_t brick_bytes;
  Plan& plan;

  // Called for every planned brick: the message is only formatted for a part over budget.
  void check_memory(std::uint64_t more_near, std::uint64_t more_inside) const {
    const std::uint64_t near = plan.near_keys.size() + more_near, inside = plan.inside_keys.size() + more_inside;
    if (planned_grid_bytes(near, inside, brick_bytes) <= max_memory_bytes) return;
    check_memory_budget(near, inside, brick_bytes, max_memory_bytes, "part at h = " + number_text(h));
  }

  void add_inside_range(const std::array<std::int64_t, 3>& a, const std::array<std::int64_t, 3>& b) {
    const std::int64_t count = (b[0] - a[0] + 1) * (b[1] - a[1] + 1) * (b[2] - a[2] + 1);
    if (static_cast<std::int64_t>(plan.inside_keys.size()) + count > kMaxInsideBricks)
      throw Error(ErrorCode::toolarge, "part too large: more than " + std::to_string(kMaxInsideBricks) +
                                           " bricks wholly inside (h = " + number_text(h) + ")");
    check_memory(0, static_cast<std::uint64_t>(count));
    for (std::int64_t x = a[0]; x <= b[0]; ++x)
      for (std::int64_t y = a[1]; y <= b[1]; ++y)
        for (std::int64_t z = a[2]; z <= b[2]; ++z) plan.inside_keys.push_back(brick_key(x, y, z));
  }

  // Cube of `size` bricks per axis starting at brick `at` (size a power of two).
  void visit(const std::array<std::int64_t, 3>& at, std::int64_t size) {
    throw_if_interrupted();
    std::array<std::int64_t, 3> a{}, b{};
    for (std::size_t k = 0; k < 3; ++k) {
      a[k] = std::max(at[k], lo[k]);
      b[k] = std::min(at[k] + size - 1, hi[k]);
      if (a[k] > b[k]) return;
    }
    // Ball around the cube's nodes: centre (at*8 + (8*size - 1)/2)*h, radius (8*size - 1)/2*sqrt(3)*h.
    const double half_span = (8.0 * static_cast<double>(size) - 1.0) / 2.0;
    const double r = half_span * 1.7320508075688772 * h;
    const BallClass cls = field.classify((static_cast<double>(at[0] * 8) + half_span) * h,
                                         (static_cast<double>(at[1] * 8) + half_span) * h,
                                         (static_cast<double>(at[2] * 8) + half_span) * h, r, band_width);
    if (cls == BallClass::outside) return;
    if (cls == BallClass::inside) {
      add_inside_range(a, b);
      return;
    }
    if (size == 1) {
      if (static_cast<std::int64_t>(plan.near_keys.size()) >= kMaxNearBricks)
        throw Error(ErrorCode::toolarge, "part too large: more than " + std::to_string(kMaxNearBricks) +
                                             " bricks to compute (h = " + number_text(h) + ")");
      check_memory(1, 0);
      plan.near_keys.push_back(brick_key(at[0], at[1], at[2]));
      return;
    }
    const std::int64_t half = size / 2;
    for (std::int64_t dx = 0; dx < 2; ++dx)
      for (std::int64_t dy = 0; dy < 2; ++dy)
        for (std::int64_t dz = 0; dz < 2; ++dz)
          visit({at[0] + dx * half, at[1] + dy * half, at[2] + dz * half}, half);
  }
};

}  // namespace

void check_bake_settings(const BakeSettings& settings) {
  if (!std::isfinite(settings.h) || !(settings.h > 0))
    throw Error(ErrorCode::badarg, "voxel size h = " + number_text(settings.h) + " must be finite and > 0");
  if (!std::isfinite(settings.band) || !(settings.band >= 1))
    throw Error(ErrorCode::badarg, "band = " + number_text(settings.band) + " must be finite and >= 1");
  if (!std::isfinite(settings.band * settings.h) || !std::isfinite(1.0 / settings.h))
    throw Error(ErrorCode::badarg, "band * h and 1 / h must be finite (h = " + number_text(settings.h) + ")");
  if (settings.region) {
    if (!settings.region->finite())
      throw Error(ErrorCode::badarg, "the region has a non-finite bound");
    if (settings.region->empty())
      throw Error(ErrorCode::badarg, "the region is empty (a lower bound exceeds its upper bound)");
  }
}

std::array<std::int64_t, 6> plan_brick_range(const Box& padded_box, double h) {
  std::array<std::int64_t, 6> range{};
  static const char* const kAxis[3] = {"x", "y", "z"};
  for (std::size_t a = 0; a < 3; ++a) {
    const double lo = std::floor(padded_box.lo[a] / h / 8);
    const double hi = std::floor(padded_box.hi[a] / h / 8);
    const auto out_of_range = [](double b) {
      return !(b >= static_cast<double>(kMinBrickCoord) && b <= static_cast<double>(kMaxBrickCoord));
    };
    if (out_of_range(lo) || out_of_range(hi))
      throw Error(ErrorCode::toolarge,
                  std::string("part too large for the grid: on ") + kAxis[a] + " the bricks run from " +
                      number_text(lo) + " to " + number_text(hi) + ", outside the key range [" +
                      std::to_string(kMinBrickCoord) + ", " + std::to_string(kMaxBrickCoord) + "]");
    if (hi - lo + 1 > static_cast<double>(kMaxBricksPerAxis))
      throw Error(ErrorCode::toolarge, std::string("part too large for the grid: ") +
                                           number_text(hi - lo + 1) + " bricks along " + kAxis[a] +
                                           " (at most " + std::to_string(kMaxBricksPerAxis) + ")");
    range[a] = static_cast<std::int64_t>(lo);
    range[a + 3] = static_cast<std::int64_t>(hi);
  }
  return range;
}

template <class S>
Plan plan_bricks(const Field<S>& field, const BakeSettings& settings) {
  check_bake_settings(settings);
  const Box box = settings.region ? *settings.region : field.bounds();
  if (!box.finite())
    throw Error(ErrorCode::nobox,
                "the formula has no finite box: intersect it with a box (in the spec, or with "
                "'distgrid bake --bbox X0,Y0,Z0,X1,Y1,Z1', which clips the shape to that box)");
  Plan plan;
  plan.h = settings.h;
  plan.band = settings.band;
  // Every point with f < band*h: the box grown by band*h, and without a given
  // box also the formula's own box of that set. The two differ for an
  // intersection, whose band can reach beyond its box grown by band*h, and is
  // not empty even where its box is (pieces closer than 2 band*h).
  const double band_width = settings.band * settings.h;
  const Box within = settings.region ? box : field.bounds_within(band_width);
  if (!within.finite())
    throw Error(ErrorCode::nobox,
                "the formula's band (f < band * h) has no finite box although its shape has one (a union with an "
                "empty unbounded piece): give a region ('distgrid bake --bbox X0,Y0,Z0,X1,Y1,Z1')");
  if (within.empty()) return plan;  // no point within the band: nothing to compute
  Box padded = within;
  for (std::size_t a = 0; a < 3 && !box.empty(); ++a) {
    padded.lo[a] = std::min(within.lo[a], box.lo[a] - band_width);
    padded.hi[a] = std::max(within.hi[a], box.hi[a] + band_width);
  }
  const std::array<std::int64_t, 6> range = plan_brick_range(padded, settings.h);
  plan.lo = {range[0], range[1], range[2]};
  plan.hi = {range[3], range[4], range[5]};
  plan.bricks_considered = (plan.hi[0] - plan.lo[0] + 1) * (plan.hi[1] - plan.lo[1] + 1) *
                           (plan.hi[2] - plan.lo[2] + 1);
  std::int64_t size = 1;
  for (std::size_t a = 0; a < 3; ++a)
    while (size < plan.hi[a] - plan.lo[a] + 1) size *= 2;
  const std::uint64_t brick_bytes = settings.brick_bytes != 0 ? settings.brick_bytes : kBrickNodes * sizeof(S);
  PlanWalk<S> walk{field,          settings.h,       settings.band * settings.h, plan.lo, plan.hi,
                   settings.max_memory_bytes, brick_bytes, plan};
  walk.visit(plan.lo, size);
  std::sort(plan.near_keys.begin(), plan.near_keys.end());
  std::sort(plan.inside_keys.begin(), plan.inside_keys.end());
  return plan;
}

template Plan plan_bricks<float>(const Field<float>&, const BakeSettings&);
template Plan plan_bricks<double>(const Field<double>&, const BakeSettings&);

}  // namespace distgrid
