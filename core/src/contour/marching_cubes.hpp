#pragma once
// Marching cubes: the vertex where a grid edge crosses zero, and the triangles of a
// cell, a fan over each loop of its case.
#include <array>
#include <cstddef>
#include <cstdint>

#include "distgrid/detail/contour_cases.hpp"
#include "node_block.hpp"

namespace distgrid::detail::meshing {

/// Marching cubes: the vertex where the grid edge from node n along `axis` crosses
/// zero, t = d0 / (d0 - d1) from the lower node; normal lerped between the ends'
/// central differences (times 2h; only the direction is used).
inline std::uint32_t add_edge_vertex(const Block& block, std::ptrdiff_t n, int axis, const Coord& global, double h,
                                     MeshOut& out) {
  const std::ptrdiff_t along_y = block.step(1), along_z = block.step(2);
  const double* lower = block.values.data() + n;
  const double* upper = lower + block.step(axis);
  const double d0 = *lower, d1 = *upper;
  const double t = d0 / (d0 - d1);
  Vec3 position{};
  for (std::size_t a = 0; a < 3; ++a)
    position[a] = (static_cast<double>(global[a]) + (static_cast<int>(a) == axis ? t : 0.0)) * h;
  Lanes g0, g1;
  central_difference(lower, along_y, along_z, g0);
  central_difference(upper, along_y, along_z, g1);
  const Lanes normal = g0 + (g1 - g0) * t;
  return out.add_vertex(position, unit_or_zero(normal));
}

/// Every loop of the 256 cases has a rotation whose fan puts no diagonal on a cell
/// face, so a fan from its first edge is all marching cubes needs.
static_assert([] {
  for (const CellCase& cell : kCellCases)
    for (std::size_t loop = 0; loop < cell.loop_count; ++loop)
      if (cell.loop_needs_centre[loop]) return false;
  return true;
}());

/// Marching cubes triangles of one cell: a fan over each loop of its case.
template <class VertexOfEdge>
[[gnu::always_inline]] inline void add_cell_triangles(unsigned pattern, VertexOfEdge&& vertex_of_edge, MeshOut& out,
                                                      std::size_t& split_cells) {
  const CellCase& cell = kCellCases[pattern];
  if (cell.loop_count > 1) ++split_cells;
  for (std::size_t loop = 0; loop < cell.loop_count; ++loop) {
    const std::size_t begin = cell.loop_begin[loop], size = cell.loop_size[loop];
    const std::uint32_t first = vertex_of_edge(cell.loop_edges[begin]);
    std::uint32_t previous = vertex_of_edge(cell.loop_edges[begin + 1]);
    for (std::size_t k = 2; k < size; ++k) {
      const std::uint32_t next = vertex_of_edge(cell.loop_edges[begin + k]);
      out.add_triangle(first, previous, next);
      previous = next;
    }
  }
}

}  // namespace distgrid::detail::meshing
