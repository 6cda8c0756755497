#pragma once
// Reference density map, written from docs/field-spec.md and not from core/: a
// box [lo, hi] split into n cells per axis, one value per cell centre (x
// fastest), trilinear between centres, the edge value held beyond the outermost
// centres (per axis; an axis with one cell is constant), then v0 + (v1 - v0) * d.
// Everything in the number type T (high precision for audits), the cell width
// unrounded in it ((hi - lo) / n).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "distgrid/audit/high_precision.hpp"

namespace distgrid::audit::reference {

struct DensityMapSpec {
  std::array<std::int64_t, 3> cells{1, 1, 1};
  std::array<double, 3> lo{0, 0, 0}, hi{1, 1, 1};
  double v0 = 0, v1 = 1;
};

/// The value at p from the map's values (nx*ny*nz of them, x fastest).
template <class T>
T density_number(const DensityMapSpec& map, const std::vector<T>& values, const std::array<T, 3>& p) {
  using std::floor;
  std::array<std::int64_t, 3> lower{};
  std::array<T, 3> frac;
  for (std::size_t a = 0; a < 3; ++a) {
    const std::int64_t n = map.cells[a];
    frac[a] = 0;
    if (n == 1) continue;
    // Position in cell-centre units: centre c sits at lo + (c + 1/2) (hi - lo) / n.
    const T u = (p[a] - T(map.lo[a])) * T(static_cast<double>(n)) / (T(map.hi[a]) - T(map.lo[a])) - T(0.5);
    const T held = std::clamp(u, T(0), T(static_cast<double>(n - 1)));
    lower[a] = std::min(static_cast<std::int64_t>(floor(held)), n - 2);
    frac[a] = held - T(static_cast<double>(lower[a]));
  }
  const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) -> const T& {
    return values[static_cast<std::size_t>(i + map.cells[0] * (j + map.cells[1] * k))];
  };
  T d = 0;
  for (int corner = 0; corner < 8; ++corner) {
    std::array<std::int64_t, 3> index{};
    T weight = 1;
    bool used = true;
    for (std::size_t a = 0; a < 3; ++a) {
      const bool upper = (corner >> a) & 1;
      if (map.cells[a] == 1 && upper) used = false;  // one cell: a single centre on this axis
      index[a] = lower[a] + (upper ? 1 : 0);
      if (map.cells[a] > 1) weight *= upper ? frac[a] : T(1) - frac[a];
    }
    if (used) d += weight * at(index[0], index[1], index[2]);
  }
  return T(map.v0) + (T(map.v1) - T(map.v0)) * d;
}

}  // namespace distgrid::audit::reference
