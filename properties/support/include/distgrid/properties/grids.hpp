#pragma once
// Grids for property inputs, described by their node values so the same case can
// be built with float and with double bricks. Values are dyadic multiples of h
// (exact in float), include the band's edges and +-0, and come from noise or from
// a smooth shape; bricks may be stored, marked inside or absent.
#include <rapidcheck.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <ostream>
#include <span>
#include <vector>

#include "distgrid/brick_key.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/properties/lattice.hpp"

namespace distgrid::properties {

struct GridCase {
  double h = 1, band = 3;
  std::vector<BrickCoord> stored;          ///< distinct, in insertion order
  std::vector<std::vector<double>> values;  ///< 512 per stored brick, within +-band*h
  std::vector<BrickCoord> inside;          ///< distinct, none of them stored

  /// The same case with every value rounded to float (so float and double bricks
  /// store the same numbers).
  GridCase rounded_to_float() const {
    GridCase g = *this;
    for (auto& brick : g.values)
      for (double& v : brick) v = static_cast<double>(static_cast<float>(v));
    return g;
  }
  /// The same case with every value rounded to a multiple of h / 2^bits (so sums
  /// of volume fractions are exact).
  GridCase snapped(int bits) const {
    GridCase g = *this;
    for (auto& brick : g.values)
      for (double& v : brick) v = std::round(v / h * power_of_two(bits)) / power_of_two(bits) * h;
    return g;
  }

  /// The grid of storage S holding these values, each brick encoded by the storage.
  template <class S>
  Grid<S> build() const {
    Grid<S> grid(h, band);
    for (std::size_t b = 0; b < stored.size(); ++b)
      grid.add_brick(brick_key(stored[b].bx, stored[b].by, stored[b].bz),
                     std::span<const double, kBrickNodes>(values[b].data(), kBrickNodes));
    for (const BrickCoord& b : inside) grid.add_inside(brick_key(b.bx, b.by, b.bz));
    return grid;
  }
};

inline std::ostream& operator<<(std::ostream& out, const GridCase& g) {
  out << "h=" << g.h << " band=" << g.band << " stored:";
  for (const BrickCoord& b : g.stored) out << " (" << b.bx << "," << b.by << "," << b.bz << ")";
  out << " inside:";
  for (const BrickCoord& b : g.inside) out << " (" << b.bx << "," << b.by << "," << b.bz << ")";
  return out;
}

namespace internal {

/// Distinct bricks of the cube [-reach, reach]^3, at least one.
inline rc::Gen<std::vector<BrickCoord>> brick_set(std::int64_t reach, std::size_t most) {
  const auto c = small_brick_coordinate(reach);
  return rc::gen::map(
      rc::gen::nonEmpty(rc::gen::container<std::vector<BrickCoord>>(
          rc::gen::apply([](std::int64_t x, std::int64_t y, std::int64_t z) { return BrickCoord{x, y, z}; }, c, c, c))),
      [most](std::vector<BrickCoord> bricks) {
        std::vector<BrickCoord> distinct;
        for (const BrickCoord& b : bricks)
          if (distinct.size() < most && std::find(distinct.begin(), distinct.end(), b) == distinct.end())
            distinct.push_back(b);
        return distinct;
      });
}

}  // namespace internal

/// Bricks of random node values: each value noise on the lattice h/2^20 within
/// the band, a band edge or +-0; up to `most` stored bricks and a few inside ones.
inline rc::Gen<GridCase> noise_grid(double h, std::size_t most = 4) {
  return rc::gen::mapcat(internal::brick_set(1, most + 2), [h, most](std::vector<BrickCoord> bricks) {
    const std::size_t stored = std::min(bricks.size(), most);
    const double band = 3;
    const auto value = rc::gen::weightedOneOf<double>(
        {{8, rc::gen::map(rc::gen::inRange<std::int64_t>(-(std::int64_t{3} << 20), (std::int64_t{3} << 20) + 1),
                          [h](std::int64_t n) { return static_cast<double>(n) * h / power_of_two(20); })},
         {1, special_node_value(h, band)}});
    return rc::gen::map(
        rc::gen::container<std::vector<std::vector<double>>>(stored, rc::gen::container<std::vector<double>>(kBrickNodes, value)),
        [h, band, bricks, stored](std::vector<std::vector<double>> values) {
          GridCase g;
          g.h = h;
          g.band = band;
          g.stored.assign(bricks.begin(), bricks.begin() + static_cast<std::ptrdiff_t>(stored));
          g.inside.assign(bricks.begin() + static_cast<std::ptrdiff_t>(stored), bricks.end());
          const double edge = band * h;
          for (auto& brick : values)
            for (double& v : brick) v = std::clamp(v, -edge, edge);
          g.values = std::move(values);
          return g;
        });
  });
}

/// The signed distance of a sphere (centre and radius dyadic, in voxels) stored
/// in every brick the sphere's band touches, values rounded to the lattice h/2^16:
/// a smooth closed surface with few bricks.
inline rc::Gen<GridCase> sphere_grid(double h) {
  const auto centre = dyadic(8 << 4, 4);
  return rc::gen::apply(
      [h](double cx, double cy, double cz, int radius_sixteenths) {
        GridCase g;
        g.h = h;
        g.band = 3;
        const double r = radius_sixteenths / 16.0;
        const double edge = g.band * h;
        const auto lo = static_cast<std::int64_t>(std::floor((std::min({cx, cy, cz}) - r - 4) / 8));
        const auto hi = static_cast<std::int64_t>(std::floor((std::max({cx, cy, cz}) + r + 4) / 8));
        for (std::int64_t bx = lo; bx <= hi; ++bx)
          for (std::int64_t by = lo; by <= hi; ++by)
            for (std::int64_t bz = lo; bz <= hi; ++bz) {
              std::vector<double> values(kBrickNodes);
              bool near = false, all_inside = true;
              for (int n = 0; n < kBrickNodes; ++n) {
                const double x = static_cast<double>(bx * 8 + (n & 7)) - cx;
                const double y = static_cast<double>(by * 8 + ((n >> 3) & 7)) - cy;
                const double z = static_cast<double>(bz * 8 + (n >> 6)) - cz;
                const double d = (std::sqrt(x * x + y * y + z * z) - r) * h;
                const double v = std::clamp(std::round(d / h * 65536) / 65536 * h, -edge, edge);
                near = near || std::fabs(v) < edge;
                all_inside = all_inside && v <= -edge;
                values[static_cast<std::size_t>(n)] = v;
              }
              if (near) {
                g.stored.push_back({bx, by, bz});
                g.values.push_back(std::move(values));
              } else if (all_inside) {
                g.inside.push_back({bx, by, bz});
              }
            }
        return g;
      },
      centre, centre, centre, rc::gen::inRange(3 * 16, 14 * 16));
}

}  // namespace distgrid::properties
