// Properties of brick keys, sampling, gradients, the world box and the volume
// (grid.key, grid.sample, grid.gradient, grid.world_box, grid.volume).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <tuple>
#include <vector>

#include "distgrid/brick_key.hpp"
#include "distgrid/error.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/properties/generators.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;

// ---- grid.key -------------------------------------------------------------------

DISTGRID_PROPERTY(GridKey, roundTripsForEveryBrickInRange, 2000) {
  const BrickCoord b = *brick_coord();
  const std::int64_t key = brick_key(b.bx, b.by, b.bz);
  RC_ASSERT(brick_key_valid(key));
  RC_ASSERT(brick_of(key) == b);
  RC_ASSERT(brick_key_checked(b.bx, b.by, b.bz) == key);
}

DISTGRID_PROPERTY(GridKey, isExactAsADoubleBelowTwoToThe51, 2000) {
  const BrickCoord b = *brick_coord();
  const std::int64_t key = brick_key(b.bx, b.by, b.bz);
  const auto as_double = static_cast<double>(key);
  RC_ASSERT(as_double < 2251799813685248.0);  // 2^51
  RC_ASSERT(static_cast<std::int64_t>(as_double) == key);
}

DISTGRID_PROPERTY(GridKey, ordersBricksLexicographically, 2000) {
  const BrickCoord a = *brick_coord(), b = *brick_coord();
  const bool less = std::tie(a.bx, a.by, a.bz) < std::tie(b.bx, b.by, b.bz);
  RC_ASSERT((brick_key(a.bx, a.by, a.bz) < brick_key(b.bx, b.by, b.bz)) == less);
}

DISTGRID_PROPERTY(GridKey, refusesCoordinatesOutsideTheRangeWithToolarge, 500) {
  const std::int64_t beyond = *rc::gen::element(kMinBrickCoord - 1, kMaxBrickCoord + 1, std::int64_t{1} << 40,
                                               -(std::int64_t{1} << 40));
  const int axis = *rc::gen::inRange(0, 3);
  std::array<std::int64_t, 3> c{*brick_coordinate(), *brick_coordinate(), *brick_coordinate()};
  c[static_cast<std::size_t>(axis)] = beyond;
  try {
    (void)brick_key_checked(c[0], c[1], c[2]);
    RC_FAIL("no error for an out-of-range brick");
  } catch (const Error& e) {
    RC_ASSERT(e.code() == ErrorCode::toolarge);
  }
}

DISTGRID_PROPERTY(GridKey, nodeToBrickIsFloorDivisionAndPositionsAreExact, 2000) {
  const std::int64_t i = *rc::gen::inRange<std::int64_t>(8 * kMinBrickCoord, 8 * kMaxBrickCoord + 8);
  const std::int64_t b = brick_of_node(i);
  RC_ASSERT(8 * b <= i);
  RC_ASSERT(i < 8 * b + 8);
  const BrickCoord c = *brick_coord();
  const double h = *power_of_two_h(-12, 4);
  const BrickNodePositions at = brick_node_positions(brick_key(c.bx, c.by, c.bz), h);
  for (std::size_t n = 0; n < 8; ++n) {
    const auto offset = static_cast<std::int64_t>(n);
    RC_ASSERT(at.x[n] == static_cast<double>(8 * c.bx + offset) * h);
    RC_ASSERT(at.y[n] == static_cast<double>(8 * c.by + offset) * h);
    RC_ASSERT(at.z[n] == static_cast<double>(8 * c.bz + offset) * h);
  }
}

// ---- grid.sample ----------------------------------------------------------------

// A grid of 3x3x3 bricks around the origin holding c0 + cx*i + cy*j + cz*k.
template <class S>
Grid<S> affine_grid(const std::array<double, 4>& c, double h) {
  Grid<S> grid(h, 1e6);  // a band wide enough that nothing is clamped
  for (std::int64_t bx = -1; bx <= 1; ++bx)
    for (std::int64_t by = -1; by <= 1; ++by)
      for (std::int64_t bz = -1; bz <= 1; ++bz) {
        S* values = grid.add_brick(brick_key(bx, by, bz));
        for (int n = 0; n < kBrickNodes; ++n) {
          const auto i = static_cast<double>(bx * 8 + (n & 7)), j = static_cast<double>(by * 8 + ((n >> 3) & 7)),
                     k = static_cast<double>(bz * 8 + (n >> 6));
          values[n] = static_cast<S>(c[0] + c[1] * i + c[2] * j + c[3] * k);
        }
      }
  return grid;
}

template <class S>
void check_sample_at_node_returns_stored_value(const GridCase& g) {
  const Grid<S> grid = g.build<S>();
  for (int n = 0; n < 32; ++n) {
    const std::int64_t i = *node_index(16), j = *node_index(16), k = *node_index(16);
    const double x = static_cast<double>(i) * g.h, y = static_cast<double>(j) * g.h, z = static_cast<double>(k) * g.h;
    RC_ASSERT(grid.sample(x, y, z) == grid.node(i, j, k));
  }
}

DISTGRID_PROPERTY(GridSample, atANodeReturnsTheStoredValue, 100) {
  const GridCase g = *noise_grid(*power_of_two_h(-8, 2));
  check_sample_at_node_returns_stored_value<float>(g);
  check_sample_at_node_returns_stored_value<double>(g);
}

template <class S>
void check_affine_field_is_reproduced(const std::array<double, 4>& c, double h) {
  const Grid<S> grid = affine_grid<S>(c, h);
  // Points inside the 3x3x3 block, on a lattice of h/64: the lerps are exact there.
  for (int n = 0; n < 16; ++n) {
    const double fx = *dyadic(8 * 64, 6), fy = *dyadic(8 * 64, 6), fz = *dyadic(8 * 64, 6);
    const double expected = c[0] + c[1] * fx + c[2] * fy + c[3] * fz;
    RC_ASSERT(grid.sample(fx * h, fy * h, fz * h) == expected);
  }
}

DISTGRID_PROPERTY(GridSample, reproducesAnAffineFieldStoredExactly, 200) {
  const auto c = *affine_coefficients();
  const double h = *power_of_two_h(-8, 3);
  check_affine_field_is_reproduced<float>(c, h);
  check_affine_field_is_reproduced<double>(c, h);
}

// At any double point (not only lattice points) the sample of an exactly stored
// affine field is that field to within the rounding of x/h and the lerps.
DISTGRID_PROPERTY(GridSample, reproducesAnAffineFieldAtAnyPointToRounding, 200) {
  const auto c = *affine_coefficients();
  const double h = *power_of_two_h(-8, 3);
  const Grid<double> grid = affine_grid<double>(c, h);
  const auto coordinate = rc::gen::map(rc::gen::arbitrary<std::uint64_t>(), [](std::uint64_t bits) {
    return -8.0 + 16.0 * static_cast<double>(bits >> 11) * 0x1p-53;  // uniform in [-8, 8) voxels
  });
  const double scale = std::fabs(c[0]) + 16 * (std::fabs(c[1]) + std::fabs(c[2]) + std::fabs(c[3]));
  for (int n = 0; n < 16; ++n) {
    const double fx = *coordinate, fy = *coordinate, fz = *coordinate;
    const double expected = c[0] + c[1] * fx + c[2] * fy + c[3] * fz;
    RC_ASSERT(std::fabs(grid.sample(fx * h, fy * h, fz * h) - expected) <= 64 * std::numeric_limits<double>::epsilon() * scale);
  }
}

// On a brick face the sample depends only on the face's nodes: changing the
// nodes on either side (in another brick) leaves it unchanged, and points one ulp
// off the face read within the slope times one ulp of it (continuity).
DISTGRID_PROPERTY(GridSample, isContinuousAcrossBrickFaces, 200) {
  const GridCase g = *noise_grid(*power_of_two_h(-6, 1), 8);
  const Grid<double> grid = g.build<double>();
  const int axis = *rc::gen::inRange(0, 3);
  std::array<double, 3> p{*dyadic(16 * 1024, 10), *dyadic(16 * 1024, 10), *dyadic(16 * 1024, 10)};
  const auto a = static_cast<std::size_t>(axis);
  p[a] = static_cast<double>(8 * *small_brick_coordinate(1));
  std::array<double, 3> world{p[0] * g.h, p[1] * g.h, p[2] * g.h};
  const double on_face = grid.sample(world[0], world[1], world[2]);
  double largest = 0;
  for (const auto& brick : g.values)
    for (double v : brick) largest = std::max(largest, std::fabs(v));
  largest = std::max(largest, g.band * g.h);
  for (const bool up : {false, true}) {
    std::array<double, 3> off = world;
    off[a] = std::nextafter(world[a], (up ? 1 : -1) * std::numeric_limits<double>::infinity());
    const double step = std::fabs(off[a] - world[a]) / g.h;
    const double jump = std::fabs(grid.sample(off[0], off[1], off[2]) - on_face);
    // Slope at most 2*largest per voxel along the axis, plus the rounding of the lerps.
    RC_ASSERT(jump <= 2 * largest * step + 8 * std::numeric_limits<double>::epsilon() * largest);
  }
  // The same on-face point with the nodes off the face replaced reads the same bits.
  GridCase changed = g;
  for (std::size_t b = 0; b < changed.stored.size(); ++b)
    for (int n = 0; n < kBrickNodes; ++n) {
      const std::array<std::int64_t, 3> node{changed.stored[b].bx * 8 + (n & 7), changed.stored[b].by * 8 + ((n >> 3) & 7),
                                             changed.stored[b].bz * 8 + (n >> 6)};
      if (static_cast<double>(node[a]) != p[a]) changed.values[b][static_cast<std::size_t>(n)] *= -0.5;
    }
  RC_ASSERT(changed.build<double>().sample(world[0], world[1], world[2]) == on_face);
}

template <class S>
void check_sample_within_corner_range(const GridCase& g) {
  const Grid<S> grid = g.build<S>();
  for (int n = 0; n < 16; ++n) {
    const double fx = *special_voxel_coordinate(16), fy = *special_voxel_coordinate(16), fz = *special_voxel_coordinate(16);
    const double s = grid.sample(fx * g.h, fy * g.h, fz * g.h);
    const auto i = static_cast<std::int64_t>(std::floor(fx)), j = static_cast<std::int64_t>(std::floor(fy)),
               k = static_cast<std::int64_t>(std::floor(fz));
    double lo = std::numeric_limits<double>::infinity(), hi = -std::numeric_limits<double>::infinity();
    for (int c = 0; c < 8; ++c) {
      const double v = grid.node(i + (c & 1), j + ((c >> 1) & 1), k + (c >> 2));
      lo = std::min(lo, v);
      hi = std::max(hi, v);
    }
    const double slack = 4 * std::numeric_limits<double>::epsilon() * std::max(std::fabs(lo), std::fabs(hi));
    RC_ASSERT(s >= lo - slack);
    RC_ASSERT(s <= hi + slack);
  }
}

DISTGRID_PROPERTY(GridSample, staysWithinTheRangeOfTheCellCorners, 150) {
  const GridCase g = *noise_grid(*power_of_two_h(-8, 2));
  check_sample_within_corner_range<float>(g);
  check_sample_within_corner_range<double>(g);
}

DISTGRID_PROPERTY(GridSample, readsTheBandEdgeAwayFromBricksAndSurvivesHostileCoordinates, 300) {
  const GridCase g = *noise_grid(*power_of_two_h(-8, 2), 2);
  const Grid<float> grid = g.build<float>();
  const double x = *hostile_coordinate(), y = *hostile_coordinate(), z = *far_coordinate();
  const double s = grid.sample(x, y, z);
  if (std::isnan(x) || std::isnan(y)) {
    RC_ASSERT(std::isnan(s));
  } else if (std::fabs(x) >= 1e9 || std::fabs(y) >= 1e9 || std::fabs(z / g.h) > 64) {
    RC_ASSERT(s == grid.band_width());
  } else {
    RC_ASSERT(std::fabs(s) <= grid.band_width());
  }
}

DISTGRID_PROPERTY(GridSample, sampleManyEqualsSampleBitForBit, 100) {
  const GridCase g = *noise_grid(*power_of_two_h(-8, 2));
  const Grid<float> grid = g.build<float>();
  std::vector<std::array<double, 3>> points(64);
  for (auto& p : points)
    p = {*special_voxel_coordinate(16) * g.h, *special_voxel_coordinate(16) * g.h, *special_voxel_coordinate(16) * g.h};
  std::vector<double> out(points.size());
  grid.sample_many(points, out);
  for (std::size_t n = 0; n < points.size(); ++n) {
    const double one = grid.sample(points[n][0], points[n][1], points[n][2]);
    RC_ASSERT(std::memcmp(&one, &out[n], sizeof one) == 0);
  }
}

// Storage only rounds node values: values that are floats read the same from
// float and double bricks, bit for bit, at any point.
DISTGRID_PROPERTY(GridSampleAndGridGradient, floatAndDoubleBricksAgreeOnFloatValues, 100) {
  const GridCase g = (*noise_grid(*power_of_two_h(-8, 2))).rounded_to_float();
  const Grid<float> f = g.build<float>();
  const Grid<double> d = g.build<double>();
  for (int n = 0; n < 16; ++n) {
    const double x = *special_voxel_coordinate(16) * g.h, y = *special_voxel_coordinate(16) * g.h,
                 z = *special_voxel_coordinate(16) * g.h;
    RC_ASSERT(f.sample(x, y, z) == d.sample(x, y, z));
    RC_ASSERT(f.gradient(x, y, z) == d.gradient(x, y, z));
  }
}

// ---- grid.gradient --------------------------------------------------------------

DISTGRID_PROPERTY(GridGradient, isExactForAnAffineField, 200) {
  const auto c = *affine_coefficients();
  const double h = *power_of_two_h(-8, 3);
  const Grid<float> grid = affine_grid<float>(c, h);
  for (int n = 0; n < 16; ++n) {
    const double fx = *dyadic(7 * 64, 6), fy = *dyadic(7 * 64, 6), fz = *dyadic(7 * 64, 6);
    const std::array<double, 3> g = grid.gradient(fx * h, fy * h, fz * h);
    RC_ASSERT(g[0] == c[1] / h);
    RC_ASSERT(g[1] == c[2] / h);
    RC_ASSERT(g[2] == c[3] / h);
  }
}

// At a node, the central difference over one voxel of the trilinear interpolant
// of a quadratic is the quadratic's exact derivative (a one-sided one is off by
// the second difference).
DISTGRID_PROPERTY(GridGradient, isTheExactDerivativeOfAQuadraticAtNodes, 200) {
  const double h = *power_of_two_h(-6, 2);
  const double a = *dyadic(64, 8), b = *dyadic(64, 8);
  const int axis = *rc::gen::inRange(0, 3);
  Grid<double> grid(h, 1e9);
  for (std::int64_t bx = -1; bx <= 1; ++bx)
    for (std::int64_t by = -1; by <= 1; ++by)
      for (std::int64_t bz = -1; bz <= 1; ++bz) {
        double* values = grid.add_brick(brick_key(bx, by, bz));
        for (int n = 0; n < kBrickNodes; ++n) {
          const std::array<std::int64_t, 3> ijk{bx * 8 + (n & 7), by * 8 + ((n >> 3) & 7), bz * 8 + (n >> 6)};
          const auto u = static_cast<double>(ijk[static_cast<std::size_t>(axis)]);
          values[n] = (a * u * u + b * u) * h;
        }
      }
  for (int n = 0; n < 8; ++n) {
    const std::array<std::int64_t, 3> ijk{*node_index(7), *node_index(7), *node_index(7)};
    const std::array<double, 3> g = grid.gradient(static_cast<double>(ijk[0]) * h, static_cast<double>(ijk[1]) * h,
                                                  static_cast<double>(ijk[2]) * h);
    const auto u = static_cast<double>(ijk[static_cast<std::size_t>(axis)]);
    for (std::size_t k = 0; k < 3; ++k) RC_ASSERT(g[k] == (static_cast<int>(k) == axis ? 2 * a * u + b : 0.0));
  }
}

// Mirroring the node values through the origin's node plane negates the gradient's
// mirrored component at the mirrored point, bit for bit.
DISTGRID_PROPERTY(GridGradient, mirroringTheGridNegatesTheMirroredComponent, 150) {
  const GridCase g = *noise_grid(*power_of_two_h(-8, 2), 6);
  GridCase mirrored = g;
  for (std::size_t b = 0; b < g.stored.size(); ++b) {
    mirrored.stored[b].bx = -g.stored[b].bx - 1;  // node i maps to -1 - i: brick b to -1 - b
    for (int n = 0; n < kBrickNodes; ++n) mirrored.values[b][static_cast<std::size_t>(n ^ 7)] = g.values[b][static_cast<std::size_t>(n)];
  }
  for (auto& b : mirrored.inside) b.bx = -b.bx - 1;
  const Grid<float> a = g.build<float>(), m = mirrored.build<float>();
  for (int n = 0; n < 16; ++n) {
    const double x = *dyadic(16 * 64, 6), y = *dyadic(16 * 64, 6), z = *dyadic(16 * 64, 6);
    const std::array<double, 3> ga = a.gradient(x * g.h, y * g.h, z * g.h);
    const std::array<double, 3> gm = m.gradient((-1 - x) * g.h, y * g.h, z * g.h);
    RC_ASSERT(gm[0] == -ga[0]);
    RC_ASSERT(gm[1] == ga[1]);
    RC_ASSERT(gm[2] == ga[2]);
  }
}

DISTGRID_PROPERTY(GridGradient, isTheCentralDifferenceOfTwoSamples, 150) {
  const GridCase g = *noise_grid(*power_of_two_h(-8, 2));
  const Grid<float> grid = g.build<float>();
  for (int n = 0; n < 16; ++n) {
    const double x = *special_voxel_coordinate(16) * g.h, y = *special_voxel_coordinate(16) * g.h,
                 z = *special_voxel_coordinate(16) * g.h;
    const std::array<double, 3> got = grid.gradient(x, y, z);
    const double e = g.h / 2;
    RC_ASSERT(got[0] == (grid.sample(x + e, y, z) - grid.sample(x - e, y, z)) / g.h);
    RC_ASSERT(got[1] == (grid.sample(x, y + e, z) - grid.sample(x, y - e, z)) / g.h);
    RC_ASSERT(got[2] == (grid.sample(x, y, z + e) - grid.sample(x, y, z - e)) / g.h);
  }
}

// ---- grid.world_box ---------------------------------------------------------------

DISTGRID_PROPERTY(GridWorldBox, holdsEveryBrickNodeAndTouchesTheOutermostBricks, 300) {
  const GridCase g = *noise_grid(*power_of_two_h(-10, 3), 1);
  const double h = g.h;
  const Grid<float> grid = g.build<float>();
  const auto box = grid.world_box();
  RC_ASSERT(box.has_value());
  std::vector<BrickCoord> all = g.stored;
  all.insert(all.end(), g.inside.begin(), g.inside.end());
  std::array<bool, 6> touched{};
  for (const BrickCoord& b : all) {
    const std::array<std::int64_t, 3> c{b.bx, b.by, b.bz};
    for (std::size_t a = 0; a < 3; ++a) {
      const double lo = static_cast<double>(8 * c[a]) * h, hi = static_cast<double>(8 * c[a] + 7) * h;
      RC_ASSERT(box->lo[a] <= lo);
      RC_ASSERT(hi <= box->hi[a]);
      touched[a] = touched[a] || box->lo[a] == lo;
      touched[a + 3] = touched[a + 3] || box->hi[a] == hi;
    }
  }
  for (bool t : touched) RC_ASSERT(t);
}

DISTGRID_PROPERTY(GridWorldBox, translatingByWholeBricksMovesItByWholeBricks, 300) {
  const GridCase g = *noise_grid(*power_of_two_h(-10, 3), 1);
  const std::array<std::int64_t, 3> t{*small_brick_coordinate(1000), *small_brick_coordinate(1000),
                                      *small_brick_coordinate(1000)};
  GridCase moved = g;
  for (auto* list : {&moved.stored, &moved.inside})
    for (BrickCoord& b : *list) b = {b.bx + t[0], b.by + t[1], b.bz + t[2]};
  const auto a = g.build<double>().world_box(), b = moved.build<double>().world_box();
  for (std::size_t k = 0; k < 3; ++k) {
    RC_ASSERT(b->lo[k] == a->lo[k] + static_cast<double>(8 * t[k]) * g.h);
    RC_ASSERT(b->hi[k] == a->hi[k] + static_cast<double>(8 * t[k]) * g.h);
  }
  RC_ASSERT(!Grid<float>(g.h, 3).world_box().has_value());
}

DISTGRID_PROPERTY(GridWorldBox, isExactAtTheEdgesOfTheKeyRange, 300) {
  const BrickCoord b = *brick_coord();
  const double h = *power_of_two_h(-20, 10);
  Grid<float> grid(h, 3);
  grid.add_inside(brick_key(b.bx, b.by, b.bz));
  const auto box = grid.world_box();
  RC_ASSERT(box->lo[0] / h == static_cast<double>(8 * b.bx));
  RC_ASSERT(box->hi[1] / h == static_cast<double>(8 * b.by + 7));
  RC_ASSERT(box->hi[2] / h == static_cast<double>(8 * b.bz + 7));
}

// ---- grid.volume ------------------------------------------------------------------

/// h^-3 * volume in units of 2^-21: the exact sum of clamp(1/2 - d/h, 0, 1) over
/// stored nodes plus 512 per inside brick, in integers (values are multiples of
/// h/2^20, so every fraction is a multiple of 2^-21).
std::int64_t exact_volume_in_units(const GridCase& g) {
  std::int64_t total = static_cast<std::int64_t>(g.inside.size()) * kBrickNodes * (std::int64_t{1} << 21);
  for (const auto& brick : g.values)
    for (double v : brick) {
      const auto d = static_cast<std::int64_t>(std::llround(v / g.h * power_of_two(21)));  // d/h in 2^-21 units
      total += std::clamp<std::int64_t>((std::int64_t{1} << 20) - d, 0, std::int64_t{1} << 21);
    }
  return total;
}

DISTGRID_PROPERTY(GridVolume, equalsTheExactSumOfNodeFractions, 150) {
  const GridCase g = (*noise_grid(*power_of_two_h(-8, 2), 6)).snapped(20);
  const double expected = static_cast<double>(exact_volume_in_units(g)) / power_of_two(21) * g.h * g.h * g.h;
  RC_ASSERT(g.build<float>().volume() == expected);
  RC_ASSERT(g.build<double>().volume() == expected);
}

DISTGRID_PROPERTY(GridVolume, isAdditiveOverDisjointBrickSets, 100) {
  const GridCase g = (*noise_grid(*power_of_two_h(-8, 2), 6)).snapped(20);
  GridCase first = g, second = g;
  const std::size_t split = *rc::gen::inRange<std::size_t>(0, g.stored.size() + 1);
  first.stored.resize(split);
  first.values.resize(split);
  second.stored.erase(second.stored.begin(), second.stored.begin() + static_cast<std::ptrdiff_t>(split));
  second.values.erase(second.values.begin(), second.values.begin() + static_cast<std::ptrdiff_t>(split));
  second.inside.clear();
  // Exact: every partial sum is a multiple of 2^-21 h^3 well below 2^53 units.
  RC_ASSERT(g.build<double>().volume() == first.build<double>().volume() + second.build<double>().volume());
}

DISTGRID_PROPERTY(GridVolume, doesNotDependOnBrickInsertionOrder, 100) {
  GridCase g = *noise_grid(*power_of_two_h(-8, 2), 6);
  const double before = g.build<float>().volume();
  std::reverse(g.stored.begin(), g.stored.end());
  std::reverse(g.values.begin(), g.values.end());
  std::reverse(g.inside.begin(), g.inside.end());
  RC_ASSERT(g.build<float>().volume() == before);
}

DISTGRID_PROPERTY(GridVolume, neverDecreasesWhenANodeValueDecreases, 150) {
  GridCase g = (*noise_grid(*power_of_two_h(-8, 2), 3)).snapped(20);
  const double before = g.build<double>().volume();
  const std::size_t b = *rc::gen::inRange<std::size_t>(0, g.stored.size());
  const auto n = static_cast<std::size_t>(*rc::gen::inRange(0, kBrickNodes));
  const double lowered = std::max(g.values[b][n] - *rc::gen::inRange(1, 64) * g.h / 16, -g.band * g.h);
  const bool crosses_half = g.values[b][n] > -g.h / 2 && lowered < g.h / 2;
  g.values[b][n] = lowered;
  const double after = g.build<double>().volume();
  RC_ASSERT(after >= before);
  if (crosses_half) RC_ASSERT(after > before);
}

}  // namespace
}  // namespace distgrid
