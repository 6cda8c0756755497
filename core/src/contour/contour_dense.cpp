// detail::contour_dense: the whole region meshed in one piece, the reference the
// brick-wise mesher is tested against. It places every vertex with the same
// functions as the brick-wise mesher.
#include <algorithm>
#include <array>
#include <cstdint>
#include <vector>

#include "distgrid/brick_key.hpp"
#include "distgrid/contour.hpp"
#include "manifold.hpp"
#include "marching_cubes.hpp"
#include "node_block.hpp"
#include "surface_nets.hpp"

namespace distgrid::detail {

using meshing::add_cell_triangles;
using meshing::add_cell_vertices;
using meshing::add_edge_quad;
using meshing::add_edge_vertex;
using meshing::add_piece_vertex;
using meshing::Block;
using meshing::cell_pattern;
using meshing::Coord;
using meshing::corner_offset;
using meshing::corner_steps;
using meshing::manifold_case;
using meshing::MeshOut;

template <class S>
ContourResult contour_dense(const Grid<S>& grid, const ContourOptions& options) {
  MeshOut out;
  std::vector<std::int64_t> keys = grid.stored_keys();
  keys.insert(keys.end(), grid.inside_keys().begin(), grid.inside_keys().end());
  if (keys.empty()) return std::move(out.result);
  Coord lo{}, hi{};
  for (std::size_t n = 0; n < keys.size(); ++n) {
    const BrickCoord b = brick_of(keys[n]);
    const Coord bc{b.bx, b.by, b.bz};
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = n == 0 ? bc[a] : std::min(lo[a], bc[a]);
      hi[a] = n == 0 ? bc[a] : std::max(hi[a], bc[a]);
    }
  }
  // Cells from (lo - 1) * 8 to (hi + 1) * 8 + 7; nodes one further on each side.
  Block block;
  std::array<int, 3> cells{};
  for (std::size_t a = 0; a < 3; ++a) {
    cells[a] = static_cast<int>((hi[a] - lo[a] + 3) * 8);
    block.origin[a] = (lo[a] - 1) * 8 - 1;
  }
  block.resize({cells[0] + 3, cells[1] + 3, cells[2] + 3});
  for (int z = 0; z < block.size[2]; ++z)
    for (int y = 0; y < block.size[1]; ++y)
      for (int x = 0; x < block.size[0]; ++x)
        block.values[static_cast<std::size_t>(block.at(x, y, z))] =
            grid.node(block.origin[0] + x, block.origin[1] + y, block.origin[2] + z);
  block.finish_flags();
  const auto steps = corner_steps(block);
  const auto cell_count = static_cast<std::size_t>(cells[0]) * static_cast<std::size_t>(cells[1]) * static_cast<std::size_t>(cells[2]);
  const auto cell_index = [&](int x, int y, int z) {
    return static_cast<std::size_t>(x) + static_cast<std::size_t>(cells[0]) * (static_cast<std::size_t>(y) + static_cast<std::size_t>(cells[1]) * static_cast<std::size_t>(z));
  };
  const auto global = [&](int x, int y, int z) { return Coord{block.origin[0] + 1 + x, block.origin[1] + 1 + y, block.origin[2] + 1 + z}; };
  out.result.cells_visited = cell_count;
  if (options.mesher == Mesher::surface_nets) {
    std::vector<std::uint32_t> vertex(cell_count, 0);
    for (int z = 0; z < cells[2]; ++z)
      for (int y = 0; y < cells[1]; ++y)
        for (int x = 0; x < cells[0]; ++x) {
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          const unsigned pattern = cell_pattern(block, n, steps);
          if (pattern == 0 || pattern == 255) continue;
          const CellCase& cell = options.manifold ? manifold_case(block, n, pattern, steps) : kCellCases[pattern];
          if (cell.loop_count > 1) ++out.result.split_cells;
          vertex[cell_index(x, y, z)] = add_cell_vertices(block, n, pattern, global(x, y, z), cell, options.manifold, grid.h(), steps, out);
        }
    for (int z = 0; z < cells[2]; ++z)
      for (int y = 0; y < cells[1]; ++y)
        for (int x = 0; x < cells[0]; ++x) {
          const std::array<int, 3> p{x, y, z};
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          for (int axis = 0; axis < 3; ++axis) {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            if (p[static_cast<std::size_t>(u)] == 0 || p[static_cast<std::size_t>(v)] == 0) continue;
            const bool here = block.is_inside(n);
            if (here == block.is_inside(n + block.step(axis))) continue;
            add_edge_quad(
                axis, here,
                [&](int s, int t, int edge) {
                  std::array<int, 3> q = p;
                  q[static_cast<std::size_t>(u)] -= 1 - s;
                  q[static_cast<std::size_t>(v)] -= 1 - t;
                  const std::uint32_t base = vertex[cell_index(q[0], q[1], q[2])];
                  if (!options.manifold) return base;
                  const std::ptrdiff_t m = block.at(q[0] + 1, q[1] + 1, q[2] + 1);
                  const CellCase& cell = manifold_case(block, m, cell_pattern(block, m, steps), steps);
                  return base + static_cast<std::uint32_t>(cell.piece_of_edge[static_cast<std::size_t>(edge)]);
                },
                out);
          }
        }
  } else {
    // Edge starts at nodes 0..cells (local to the cells) on each axis.
    const std::array<int, 3> nodes{cells[0] + 1, cells[1] + 1, cells[2] + 1};
    const auto edge_index = [&](int axis, int x, int y, int z) {
      return static_cast<std::size_t>(axis) * static_cast<std::size_t>(nodes[0]) * static_cast<std::size_t>(nodes[1]) * static_cast<std::size_t>(nodes[2]) +
             static_cast<std::size_t>(x) + static_cast<std::size_t>(nodes[0]) * (static_cast<std::size_t>(y) + static_cast<std::size_t>(nodes[1]) * static_cast<std::size_t>(z));
    };
    std::vector<std::uint32_t> vertex(3 * static_cast<std::size_t>(nodes[0]) * static_cast<std::size_t>(nodes[1]) * static_cast<std::size_t>(nodes[2]), 0);
    for (int z = 0; z < nodes[2]; ++z)
      for (int y = 0; y < nodes[1]; ++y)
        for (int x = 0; x < nodes[0]; ++x) {
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          const std::array<int, 3> p{x, y, z};
          for (int axis = 0; axis < 3; ++axis) {
            if (p[static_cast<std::size_t>(axis)] == nodes[static_cast<std::size_t>(axis)] - 1) continue;
            if (block.is_inside(n) == block.is_inside(n + block.step(axis))) continue;
            vertex[edge_index(axis, x, y, z)] = add_edge_vertex(block, n, axis, global(x, y, z), grid.h(), out);
          }
        }
    for (int z = 0; z < cells[2]; ++z)
      for (int y = 0; y < cells[1]; ++y)
        for (int x = 0; x < cells[0]; ++x) {
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          const unsigned pattern = cell_pattern(block, n, steps);
          if (pattern == 0 || pattern == 255) continue;
          add_cell_triangles(
              pattern,
              [&](int edge) {
                const int base = kEdgeCorners[static_cast<std::size_t>(edge)][0];
                return vertex[edge_index(edge / 4, x + corner_offset(base, 0), y + corner_offset(base, 1), z + corner_offset(base, 2))];
              },
              out, out.result.split_cells);
        }
  }
  return std::move(out.result);
}

template ContourResult contour_dense<float>(const Grid<float>&, const ContourOptions&);
template ContourResult contour_dense<double>(const Grid<double>&, const ContourOptions&);
template ContourResult contour_dense<Half>(const Grid<Half>&, const ContourOptions&);
template ContourResult contour_dense<Q16>(const Grid<Q16>&, const ContourOptions&);
template ContourResult contour_dense<Q8>(const Grid<Q8>&, const ContourOptions&);

}  // namespace distgrid::detail
