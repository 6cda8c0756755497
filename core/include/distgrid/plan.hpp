#pragma once
// Which bricks of the lattice a bake computes, and which are wholly inside.
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "distgrid/box.hpp"
#include "distgrid/field.hpp"
#include "distgrid/memory_budget.hpp"

namespace distgrid {

struct BakeSettings {
  double h = 0;                ///< voxel size (world units), finite and > 0
  double band = 3;             ///< band half-width in voxels, finite and >= 1
  /// The region to bake instead of the formula's own box; the shape is not clipped
  /// to it, so a shape reaching beyond it is cut off by the region's edge, where a
  /// contour closes it (region_edge.hpp). To clip, intersect the formula with a box.
  std::optional<Box> region;
  unsigned threads = 0;        ///< 0: all hardware threads
  /// The planned grid (planned_grid_bytes) must fit, else Error(toolarge) before baking.
  std::uint64_t max_memory_bytes = default_memory_budget();
  /// Bytes of one stored brick's codes and parameters in the grid's storage, for that
  /// check (bake sets it from its storage); 0: 512 values of the formula's scalar.
  std::uint64_t brick_bytes = 0;
};

/// Radius, in voxels, of the ball around a brick centre that holds all its nodes.
inline constexpr double kBrickBallRadiusVoxels = 3.5 * 1.7320508075688772;

struct Plan {
  double h = 0, band = 0;
  std::array<std::int64_t, 3> lo{0, 0, 0}, hi{0, 0, 0};  ///< brick range considered
  std::int64_t bricks_considered = 0;
  std::vector<std::int64_t> near_keys;    ///< bricks to compute, ascending keys
  std::vector<std::int64_t> inside_keys;  ///< bricks wholly inside, ascending keys
};

/// The plan covers every point with f < band*h: the box (the settings' region, or
/// the field's bounds()) grown by band*h and, without a region, the field's
/// bounds_within(band*h), which an intersection can reach beyond its own box
/// (pieces closer than 2 band*h have an empty box and nodes within the band).
/// Throws Error(badarg) for bad h or band, Error(nobox) when neither the field
/// nor the settings give a finite box or, without a region, the band has none
/// (a union with an empty unbounded piece), Error(toolarge) when the brick range is
/// outside the key range or wider than kMaxBricksPerAxis on an axis.
/// plan_bricks also throws Error(toolarge) as soon as the planned bricks
/// exceed settings.max_memory_bytes.
void check_bake_settings(const BakeSettings& settings);
/// Brick range {lo x, y, z, hi x, y, z} = floor(padded_box / h / 8); Error(toolarge)
/// outside the key range or wider than kMaxBricksPerAxis.
std::array<std::int64_t, 6> plan_brick_range(const Box& padded_box, double h);

template <class S>
Plan plan_bricks(const Field<S>& field, const BakeSettings& settings);

extern template Plan plan_bricks<float>(const Field<float>&, const BakeSettings&);
extern template Plan plan_bricks<double>(const Field<double>&, const BakeSettings&);

}  // namespace distgrid
