#pragma once
// Test support: grids whose stored nodes hold a given function of the node index.
#include <algorithm>
#include <array>
#include <cstdint>

#include "distgrid/brick_key.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::test_support {

/// A grid with every brick of the cube [b0, b1]^3 stored, node (i, j, k) holding
/// f(i, j, k) clamped to +-band*h, as the storage S encodes it.
template <class S, class F>
Grid<S> grid_from_nodes(double h, double band, std::int64_t b0, std::int64_t b1, F f) {
  Grid<S> grid(h, band);
  const double bw = grid.band_width();
  for (std::int64_t bx = b0; bx <= b1; ++bx)
    for (std::int64_t by = b0; by <= b1; ++by)
      for (std::int64_t bz = b0; bz <= b1; ++bz) {
        std::array<double, kBrickNodes> values;
        for (int n = 0; n < kBrickNodes; ++n) {
          const double v = f(bx * 8 + (n & 7), by * 8 + ((n >> 3) & 7), bz * 8 + (n >> 6));
          values[static_cast<std::size_t>(n)] = std::clamp(v, -bw, bw);
        }
        grid.add_brick(brick_key(bx, by, bz), values);  // encoded by the storage
      }
  return grid;
}

}  // namespace distgrid::test_support
