// Properties of brick keys and grid sampling (grid.key, grid.sample).
#include <gtest/gtest.h>
#include <rapidcheck/gtest.h>

#include <array>
#include <cstdint>
#include <vector>

#include "distgrid/brick_key.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/properties/generators.hpp"

namespace distgrid {
namespace {

using properties::affine_coefficients;
using properties::brick_coord;
using properties::dyadic;
using properties::node_index;

RC_GTEST_PROP(BrickKey, roundTripsForEveryBrickInRange, ()) {
  const BrickCoord b = *brick_coord();
  const std::int64_t key = brick_key(b.bx, b.by, b.bz);
  RC_ASSERT(brick_key_valid(key));
  RC_ASSERT(brick_of(key) == b);
}

RC_GTEST_PROP(BrickKey, isExactAsADouble, ()) {
  const BrickCoord b = *brick_coord();
  const std::int64_t key = brick_key(b.bx, b.by, b.bz);
  const double as_double = static_cast<double>(key);
  RC_ASSERT(as_double < 2251799813685248.0);  // 2^51
  RC_ASSERT(static_cast<std::int64_t>(as_double) == key);
}

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
void check_sample_at_node_returns_stored_value() {
  const auto c = *affine_coefficients();
  const double h = *rc::gen::elementOf(std::vector<double>{0.5, 0.125, 1.0 / 128, 3.0});
  const Grid<S> grid = affine_grid<S>(c, h);
  const std::int64_t i = *node_index(8), j = *node_index(8), k = *node_index(8);
  RC_ASSERT(grid.sample(static_cast<double>(i) * h, static_cast<double>(j) * h, static_cast<double>(k) * h) ==
            grid.node(i, j, k));
}

RC_GTEST_PROP(GridSample, atANodeReturnsTheStoredValueFloat, ()) { check_sample_at_node_returns_stored_value<float>(); }
RC_GTEST_PROP(GridSample, atANodeReturnsTheStoredValueDouble, ()) { check_sample_at_node_returns_stored_value<double>(); }

template <class S>
void check_affine_field_is_reproduced() {
  const auto c = *affine_coefficients();
  const double h = *rc::gen::elementOf(std::vector<double>{0.5, 0.125, 0.25});
  const Grid<S> grid = affine_grid<S>(c, h);
  // Points inside the 3x3x3 block, on a lattice of h/64: the lerps are exact there.
  const double fx = *dyadic(8 * 64, 6), fy = *dyadic(8 * 64, 6), fz = *dyadic(8 * 64, 6);
  const double expected = c[0] + c[1] * fx + c[2] * fy + c[3] * fz;
  RC_ASSERT(grid.sample(fx * h, fy * h, fz * h) == expected);
}

RC_GTEST_PROP(GridSample, reproducesAnAffineFieldStoredExactlyFloat, ()) { check_affine_field_is_reproduced<float>(); }
RC_GTEST_PROP(GridSample, reproducesAnAffineFieldStoredExactlyDouble, ()) { check_affine_field_is_reproduced<double>(); }

}  // namespace
}  // namespace distgrid
