#pragma once
// Reference density map, written from docs/field-spec.md and not from core/: a
// box [lo, hi] split into n cells per axis, one value per cell centre (x
// fastest), trilinear between centres, the edge value held beyond the outermost
// centres (per axis; an axis with one cell is constant), then v0 + (v1 - v0) * d.
// Everything in high precision, the cell width exact ((hi - lo) / n unrounded).
#include <algorithm>
#include <array>
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
inline HighPrecision density_number(const DensityMapSpec& map, const std::vector<HighPrecision>& values,
                                    const std::array<HighPrecision, 3>& p) {
  std::array<std::int64_t, 3> lower{};
  std::array<HighPrecision, 3> frac;
  for (std::size_t a = 0; a < 3; ++a) {
    const std::int64_t n = map.cells[a];
    frac[a] = 0;
    if (n == 1) continue;
    // Position in cell-centre units: centre c sits at lo + (c + 1/2) (hi - lo) / n.
    const HighPrecision u =
        (p[a] - HighPrecision(map.lo[a])) * HighPrecision(n) / (HighPrecision(map.hi[a]) - HighPrecision(map.lo[a])) -
        HighPrecision(0.5);
    const HighPrecision held = std::clamp(u, HighPrecision(0), HighPrecision(n - 1));
    lower[a] = std::min(floor(held).convert_to<std::int64_t>(), n - 2);
    frac[a] = held - HighPrecision(lower[a]);
  }
  const auto at = [&](std::int64_t i, std::int64_t j, std::int64_t k) -> const HighPrecision& {
    return values[static_cast<std::size_t>(i + map.cells[0] * (j + map.cells[1] * k))];
  };
  HighPrecision d = 0;
  for (int corner = 0; corner < 8; ++corner) {
    std::array<std::int64_t, 3> index{};
    HighPrecision weight = 1;
    bool used = true;
    for (std::size_t a = 0; a < 3; ++a) {
      const bool upper = (corner >> a) & 1;
      if (map.cells[a] == 1 && upper) used = false;  // one cell: a single centre on this axis
      index[a] = lower[a] + (upper ? 1 : 0);
      if (map.cells[a] > 1) weight *= upper ? frac[a] : HighPrecision(1) - frac[a];
    }
    if (used) d += weight * at(index[0], index[1], index[2]);
  }
  return HighPrecision(map.v0) + (HighPrecision(map.v1) - HighPrecision(map.v0)) * d;
}

}  // namespace distgrid::audit::reference
