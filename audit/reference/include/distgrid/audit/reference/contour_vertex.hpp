#pragma once
// Reference contour vertices, written from the definitions rather than from
// core's mesher: a node is inside when its value is < 0 (+0 and -0 outside);
// an edge whose ends differ in that sign crosses zero where the linear
// interpolant of its two end values does, t = d_lo / (d_lo - d_hi) from the
// lower end; a surface-nets vertex is the mean of all its cell's crossing
// points; a marching-cubes vertex is the crossing point of its edge.
// Corner c of a cell sits at offset (c & 1, (c >> 1) & 1, (c >> 2) & 1).
#include <array>
#include <cstdint>
#include <optional>

#include "distgrid/audit/high_precision.hpp"

namespace distgrid::audit::reference {

using CellValues = std::array<HighPrecision, 8>;
using LocalPoint = std::array<HighPrecision, 3>;

/// The twelve cell edges as (lower corner, upper corner): the corners whose
/// offsets differ only on `axis`, lower one first.
struct CellEdge {
  int lower, upper, axis;
};
inline constexpr std::array<CellEdge, 12> kCellEdges = [] {
  std::array<CellEdge, 12> edges{};
  std::size_t n = 0;
  for (int axis = 0; axis < 3; ++axis)
    for (int c = 0; c < 8; ++c)
      if (((c >> axis) & 1) == 0) edges[n++] = CellEdge{c, c | (1 << axis), axis};
  return edges;
}();

/// Bit c set when corner c is inside (value < 0). The sign of a stored double
/// is exact, so this is the exact answer for stored values.
inline unsigned inside_pattern(const std::array<double, 8>& values) noexcept {
  unsigned pattern = 0;
  for (unsigned c = 0; c < 8; ++c) pattern |= (values[c] < 0 ? 1u : 0u) << c;
  return pattern;
}
inline unsigned inside_pattern(const CellValues& values) {
  unsigned pattern = 0;
  for (unsigned c = 0; c < 8; ++c) pattern |= (values[c] < 0 ? 1u : 0u) << c;
  return pattern;
}

/// Bit e set when edge e of kCellEdges joins an inside and an outside corner.
inline unsigned crossing_edges(unsigned inside) noexcept {
  unsigned edges = 0;
  for (unsigned e = 0; e < 12; ++e) {
    const bool lower = ((inside >> kCellEdges[e].lower) & 1u) != 0;
    const bool upper = ((inside >> kCellEdges[e].upper) & 1u) != 0;
    if (lower != upper) edges |= 1u << e;
  }
  return edges;
}

/// Where zero falls between d_lower (at 0) and d_upper (at 1); nullopt when
/// the two are equal (no single crossing).
inline std::optional<HighPrecision> edge_crossing(const HighPrecision& d_lower, const HighPrecision& d_upper) {
  if (d_lower == d_upper) return std::nullopt;
  return HighPrecision(d_lower / (d_lower - d_upper));
}

/// Mean of the crossing points of the edges in `edges` (a crossing_edges mask,
/// possibly taken from other values' signs), in cell-local coordinates;
/// nullopt for an empty mask or an edge with equal end values.
inline std::optional<LocalPoint> surface_nets_vertex(const CellValues& d, unsigned edges) {
  LocalPoint sum{HighPrecision(0), HighPrecision(0), HighPrecision(0)};
  int count = 0;
  for (unsigned e = 0; e < 12; ++e) {
    if (((edges >> e) & 1u) == 0) continue;
    const CellEdge& edge = kCellEdges[e];
    const auto t = edge_crossing(d[static_cast<std::size_t>(edge.lower)], d[static_cast<std::size_t>(edge.upper)]);
    if (!t) return std::nullopt;
    for (int a = 0; a < 3; ++a)
      sum[static_cast<std::size_t>(a)] += a == edge.axis ? *t : HighPrecision((edge.lower >> a) & 1);
    ++count;
  }
  if (count == 0) return std::nullopt;
  for (HighPrecision& s : sum) s /= count;
  return sum;
}

/// World position (i + local) * h of a cell-local point, i the cell's lowest node.
inline LocalPoint world_point(const std::array<std::int64_t, 3>& node, const LocalPoint& local, double h) {
  LocalPoint p;
  for (std::size_t a = 0; a < 3; ++a) p[a] = (HighPrecision(node[a]) + local[a]) * HighPrecision(h);
  return p;
}

}  // namespace distgrid::audit::reference
