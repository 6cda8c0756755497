// Marching cubes over one cell brick: the vertices of the grid edges starting in its
// nodes and the triangles of its own cells.
#include <array>
#include <cstdint>

#include "brick_mesher.hpp"
#include "marching_cubes.hpp"
#include "surface_nets.hpp"

namespace distgrid::detail::meshing {

template <class S>
void BrickMesher<S>::marching_cubes_brick(std::size_t at) {
  /// Offset in table_ (channel-major, 9^3 each) of each cell edge's vertex from the
  /// cell's entry: the edge's axis channel, at the edge's lower corner.
  static constexpr std::array<std::size_t, 12> kEdgeTableOffsets = [] {
    std::array<std::size_t, 12> offsets{};
    for (std::size_t e = 0; e < 12; ++e) {
      const int base = kEdgeCorners[e][0];
      offsets[e] = (e / 4) * 729 + table_index(corner_offset(base, 0), corner_offset(base, 1), corner_offset(base, 2));
    }
    return offsets;
  }();
  const Coord& c = slab_->cell_bricks[at];
  MeshOut& out = *out_;
  table_.resize(3 * 729);
  // Vertices of the edges starting at own nodes 0..7, in z, y, x, axis order.
  for (int z = 0; z < 8; ++z)
    for (int y = 0; y < 8; ++y) {
      const unsigned here = block_row(y + 1, z + 1);
      const std::array<unsigned, 3> changes{((here ^ (here >> 1)) >> 1) & 0xffu,
                                            ((here ^ block_row(y + 2, z + 1)) >> 1) & 0xffu,
                                            ((here ^ block_row(y + 1, z + 2)) >> 1) & 0xffu};
      for_each_bit(changes[0] | changes[1] | changes[2], [&](int x) {
        const std::ptrdiff_t n = block_.at(x + 1, y + 1, z + 1);
        const Coord global{c[0] * 8 + x, c[1] * 8 + y, c[2] * 8 + z};
        for (int axis = 0; axis < 3; ++axis)
          if ((changes[static_cast<std::size_t>(axis)] >> x) & 1u)
            table_[static_cast<std::size_t>(axis) * 729 + table_index(x, y, z)] =
                add_edge_vertex(block_, n, axis, global, grid_.h(), out);
      });
    }
  save_shell(at, 3, table_);
  fill_from_above(at, 3, table_);
  for_each_mixed_cell([&](int x, int y, int z, std::ptrdiff_t, unsigned pattern) {
    if (x == 7 && defer_x8_) {  // edges at x = 8 belong to the slab above: triangles later
      keep_cell(c, x, y, z, pattern);
      return;
    }
    add_cell_triangles(
        pattern,
        [&, cell = table_.data() + table_index(x, y, z)](int edge) {
          return cell[kEdgeTableOffsets[static_cast<std::size_t>(edge)]];
        },
        out, out.result.split_cells);
  });
}

template <class S>
void BrickMesher<S>::keep_cell(const Coord& c, int x, int y, int z, unsigned pattern) {
  MeshOut& out = *out_;
  KeptCell kept{c, pattern, {}};
  const CellCase& cell = kCellCases[pattern];
  if (cell.loop_count > 1) ++out.result.split_cells;
  for_each_bit(kCrossingEdges[pattern], [&](int edge) {
    const int base = kEdgeCorners[static_cast<std::size_t>(edge)][0];
    kept.edges[static_cast<std::size_t>(edge)] = vertex_ref(static_cast<std::size_t>(edge / 4), x + corner_offset(base, 0),
                                                            y + corner_offset(base, 1), z + corner_offset(base, 2), 0);
  });
  slab_->cells.push_back(kept);
}

template void BrickMesher<float>::marching_cubes_brick(std::size_t);
template void BrickMesher<float>::keep_cell(const Coord&, int, int, int, unsigned);
template void BrickMesher<double>::marching_cubes_brick(std::size_t);
template void BrickMesher<double>::keep_cell(const Coord&, int, int, int, unsigned);
template void BrickMesher<Half>::marching_cubes_brick(std::size_t);
template void BrickMesher<Half>::keep_cell(const Coord&, int, int, int, unsigned);
template void BrickMesher<Q16>::marching_cubes_brick(std::size_t);
template void BrickMesher<Q16>::keep_cell(const Coord&, int, int, int, unsigned);
template void BrickMesher<Q8>::marching_cubes_brick(std::size_t);
template void BrickMesher<Q8>::keep_cell(const Coord&, int, int, int, unsigned);

}  // namespace distgrid::detail::meshing
