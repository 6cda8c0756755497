#pragma once
// Reference trilinear interpolation in high precision, written as the weighted
// sum of the eight corners (not as core's chain of a + (b - a)*t), so a slip in
// either formulation shows up as a difference.
#include <array>
#include <cstdint>

#include <boost/multiprecision/mpfr.hpp>

#include "distgrid/audit/high_precision.hpp"

namespace distgrid::audit::reference {

/// The lattice cell holding a point: lower node (i, j, k) = floor(p / h) and the
/// fractions t = p / h - (i, j, k) in [0, 1), all in high precision.
struct Cell {
  std::array<std::int64_t, 3> node{};
  std::array<HighPrecision, 3> t{};
};

/// The same for a point given in high precision (a point no double holds,
/// such as p + h/2 at any h). Precondition: |p / h| < 2^62 on every axis, h > 0.
inline Cell cell_of_high_precision(const std::array<HighPrecision, 3>& p, double h) {
  Cell cell;
  const HighPrecision step(h);
  for (std::size_t a = 0; a < 3; ++a) {
    const HighPrecision q = p[a] / step;
    const HighPrecision lower = floor(q);
    cell.node[a] = lower.convert_to<std::int64_t>();
    cell.t[a] = q - lower;
  }
  return cell;
}

/// Precondition: |p / h| < 2^62 on every axis, h > 0.
inline Cell cell_of(const std::array<double, 3>& p, double h) {
  Cell cell;
  const HighPrecision step(h);
  for (std::size_t a = 0; a < 3; ++a) {
    const HighPrecision q = HighPrecision(p[a]) / step;
    const HighPrecision lower = floor(q);
    cell.node[a] = lower.convert_to<std::int64_t>();
    cell.t[a] = q - lower;
  }
  return cell;
}

/// Corner values of a cell: c[a + 2b + 4c] belongs to node (i + a, j + b, k + c).
using Corners = std::array<HighPrecision, 8>;

/// Reads the eight corners of a cell from value(i, j, k).
template <class NodeValue>
Corners corners_of(const Cell& cell, NodeValue&& value) {
  Corners c;
  for (std::int64_t n = 0; n < 8; ++n)
    c[static_cast<std::size_t>(n)] =
        value(cell.node[0] + (n & 1), cell.node[1] + ((n >> 1) & 1), cell.node[2] + ((n >> 2) & 1));
  return c;
}

/// sum over corners of c * (1 - u or u) * (1 - v or v) * (1 - w or w).
inline HighPrecision trilinear(const Corners& c, const std::array<HighPrecision, 3>& t) {
  HighPrecision sum = 0;
  for (std::size_t n = 0; n < 8; ++n) {
    HighPrecision weight = 1;
    for (std::size_t a = 0; a < 3; ++a) weight *= ((n >> a) & 1) ? t[a] : HighPrecision(1) - t[a];
    sum += weight * c[n];
  }
  return sum;
}

}  // namespace distgrid::audit::reference
