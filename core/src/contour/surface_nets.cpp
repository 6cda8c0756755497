// Surface nets over one cell brick: the vertices of its own cells (eight side by
// side, or one per piece in the manifold mode) and the quads of the grid edges it owns.
#include <array>
#include <bit>
#include <cstdint>
#include <cstring>

#include "brick_mesher.hpp"
#include "manifold.hpp"
#include "surface_nets.hpp"

namespace distgrid::detail::meshing {

template <class S>
void BrickMesher<S>::surface_nets_brick(std::size_t at) {
  const Coord& c = slab_->cell_bricks[at];
  const bool split = options_.manifold;
  MeshOut& out = *out_;
  table_.resize(729);
  // Vertices of own cells (block local = cell local + 1).
  for_each_mixed_cell([&](int x, int y, int z, std::ptrdiff_t n, unsigned pattern) {
    const Coord global{c[0] * 8 + x, c[1] * 8 + y, c[2] * 8 + z};
    if (split) {
      const CellCase& cell = manifold_case_at(x, y, z, pattern);
      if (cell.loop_count > 1) ++out.result.split_cells;
      table_[table_index(x, y, z)] = add_cell_vertices(block_, n, pattern, global, cell, split, grid_.h(), steps_, out);
      return;
    }
    out.result.split_cells += kSplitPatterns[pattern];
    cell_queue_.push(table_index(x, y, z), {n, pattern, global});
    if (cell_queue_.full()) cell_queue_.flush(block_, grid_.h(), out, table_);
  });
  cell_queue_.flush(block_, grid_.h(), out, table_);
  save_shell(at, 1, table_);
  fill_from_above(at, 1, table_);
  // Quads of owned edges: start at 0..7 along the axis, 1..8 on the other two.
  for (int axis = 0; axis < 3; ++axis) {
    const int u = (axis + 1) % 3, v = (axis + 2) % 3;
    std::array<int, 3> lo{1, 1, 1}, hi{8, 8, 8};
    lo[static_cast<std::size_t>(axis)] = 0;
    hi[static_cast<std::size_t>(axis)] = 7;
    // Table offsets of the cells (0, 0), (1, 0), (1, 1), (0, 1) in (u, v) around an
    // edge from p: cell (s, t) has its lowest corner at p - (1 - s) e_u - (1 - t) e_v.
    const std::ptrdiff_t along_u = table_stride(u), along_v = table_stride(v);
    const std::array<std::ptrdiff_t, 4> around{-along_u - along_v, -along_v, 0, -along_u};
    // Local x of the row's edges, as bits of a row's inside bits shifted down by one.
    const unsigned x_range = axis == 0 ? 0xffu : 0x1feu;
    // The sign-changing edges of the axis's 64 rows (y, z), without branches first; the
    // edges of a row join node rows (y, z) and the next one on the axis.
    std::array<std::uint16_t, 64> crossing{};
    std::uint64_t rows_crossing = 0;
    for (int layer = 0; layer < 8; ++layer) {  // rows y = lo[1] .. lo[1] + 7 of z = lo[2] + layer
      const std::uint16_t* here_rows = row_bits_.data() + 12 * (lo[2] + layer + 1) + lo[1] + 1;
      const Words8 here = load_words(here_rows);
      const Words8 next = axis == 0 ? here >> 1 : load_words(here_rows + (axis == 1 ? 1 : 12));
      const Words8 layer_crossing = ((here ^ next) >> 1) & static_cast<std::uint16_t>(x_range);
      std::memcpy(crossing.data() + 8 * layer, &layer_crossing, sizeof layer_crossing);
      rows_crossing |= std::uint64_t{nonzero_lanes(layer_crossing)} << (8 * layer);
    }
    // Then the quads, row by row in z, y order and x order within a row.
    for (std::uint64_t rows = rows_crossing; rows != 0; rows &= rows - 1) {
      const int row = std::countr_zero(rows), y = lo[1] + row % 8, z = lo[2] + row / 8;
      const unsigned here = block_row(y + 1, z + 1);
      for_each_bit(crossing[static_cast<std::size_t>(row)], [&](int x) {
        const bool lower_end_inside = ((here >> (x + 1)) & 1u) != 0;
        if (x == 8 && defer_x8_) {  // cells at x = 8 belong to the slab above (axes y and z only)
          keep_quad(c, axis, {x, y, z}, lower_end_inside);
          return;
        }
        if (!split) {
          const std::uint32_t* edge = table_.data() + table_index(x, y, z);
          add_edge_quad(lower_end_inside, {edge[around[0]], edge[around[1]], edge[around[2]], edge[around[3]]}, out);
          return;
        }
        add_edge_quad(
            axis, lower_end_inside,
            [&](int s, int t, int edge) {
              const std::array<int, 3> q = quad_cell(axis, {x, y, z}, s, t);
              return table_[table_index(q[0], q[1], q[2])] + piece_of_edge(q, edge);
            },
            out);
      });
    }
  }
}

template <class S>
std::uint32_t BrickMesher<S>::piece_of_edge(const std::array<int, 3>& q, int edge) const {
  const CellCase& cell = manifold_case_at(q[0], q[1], q[2], pattern_at(q[0], q[1], q[2]));
  return static_cast<std::uint32_t>(cell.piece_of_edge[static_cast<std::size_t>(edge)]);
}

template <class S>
void BrickMesher<S>::keep_quad(const Coord& c, int axis, const std::array<int, 3>& p, bool lower_end_inside) {
  slab_->quads.push_back({c, lower_end_inside, edge_quad_vertices(axis, [&](int s, int t, int edge) {
                            const std::array<int, 3> q = quad_cell(axis, p, s, t);
                            return vertex_ref(0, q[0], q[1], q[2], options_.manifold ? piece_of_edge(q, edge) : 0);
                          })});
}

template <class S>
VertexRef BrickMesher<S>::vertex_ref(std::size_t channel, int x, int y, int z, std::uint32_t piece) const {
  if (x == 8 && defer_x8_)
    return VertexRef::above(y >> 3, z >> 3, static_cast<std::uint32_t>(channel * 64) + static_cast<std::uint32_t>((y & 7) + 8 * (z & 7)),
                            piece);
  return VertexRef::own(table_[channel * 729 + table_index(x, y, z)] + piece);
}

template void BrickMesher<float>::surface_nets_brick(std::size_t);
template void BrickMesher<float>::keep_quad(const Coord&, int, const std::array<int, 3>&, bool);
template VertexRef BrickMesher<float>::vertex_ref(std::size_t, int, int, int, std::uint32_t) const;
template void BrickMesher<double>::surface_nets_brick(std::size_t);
template void BrickMesher<double>::keep_quad(const Coord&, int, const std::array<int, 3>&, bool);
template VertexRef BrickMesher<double>::vertex_ref(std::size_t, int, int, int, std::uint32_t) const;
template void BrickMesher<Half>::surface_nets_brick(std::size_t);
template void BrickMesher<Half>::keep_quad(const Coord&, int, const std::array<int, 3>&, bool);
template VertexRef BrickMesher<Half>::vertex_ref(std::size_t, int, int, int, std::uint32_t) const;
template void BrickMesher<Q16>::surface_nets_brick(std::size_t);
template void BrickMesher<Q16>::keep_quad(const Coord&, int, const std::array<int, 3>&, bool);
template VertexRef BrickMesher<Q16>::vertex_ref(std::size_t, int, int, int, std::uint32_t) const;
template void BrickMesher<Q8>::surface_nets_brick(std::size_t);
template void BrickMesher<Q8>::keep_quad(const Coord&, int, const std::array<int, 3>&, bool);
template VertexRef BrickMesher<Q8>::vertex_ref(std::size_t, int, int, int, std::uint32_t) const;

}  // namespace distgrid::detail::meshing
