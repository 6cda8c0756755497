#include "distgrid/region_edge.hpp"

#include <array>

namespace distgrid {

template <class S>
std::size_t region_edge_crossings(const Grid<S>& grid) {
  // The six face neighbours, and per face the 64 nodes on it (index n = i + 8j + 64k).
  static constexpr std::array<std::array<int, 3>, 6> kSteps{{{-1, 0, 0}, {1, 0, 0}, {0, -1, 0}, {0, 1, 0}, {0, 0, -1}, {0, 0, 1}}};
  auto face_node = [](std::size_t face, int u, int v) {
    const int axis = static_cast<int>(face / 2), side = face % 2 == 0 ? 0 : 7;
    const int i = axis == 0 ? side : u, j = axis == 1 ? side : (axis == 0 ? u : v), k = axis == 2 ? side : v;
    return static_cast<std::size_t>(i + 8 * j + 64 * k);
  };
  auto absent_beside = [&](std::int64_t key, std::size_t face) {
    const BrickCoord b = brick_of(key);
    const std::int64_t x = b.bx + kSteps[face][0], y = b.by + kSteps[face][1], z = b.bz + kSteps[face][2];
    if (!brick_coord_in_range(x) || !brick_coord_in_range(y) || !brick_coord_in_range(z)) return true;
    const std::int64_t neighbour = brick_key(x, y, z);
    return !grid.find_slot(neighbour) && !grid.is_inside(neighbour);
  };
  std::size_t crossings = 0;
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    const BrickView<S> values = grid.brick(slot);
    for (std::size_t face = 0; face < 6; ++face) {
      if (!absent_beside(grid.stored_keys()[slot], face)) continue;
      for (int u = 0; u < 8; ++u)
        for (int v = 0; v < 8; ++v) if (values[face_node(face, u, v)] < 0) ++crossings;
    }
  }
  for (std::int64_t key : grid.inside_keys())
    for (std::size_t face = 0; face < 6; ++face)
      if (absent_beside(key, face)) crossings += 64;
  return crossings;
}

template std::size_t region_edge_crossings<float>(const Grid<float>&);
template std::size_t region_edge_crossings<double>(const Grid<double>&);
template std::size_t region_edge_crossings<Half>(const Grid<Half>&);
template std::size_t region_edge_crossings<Q16>(const Grid<Q16>&);
template std::size_t region_edge_crossings<Q8>(const Grid<Q8>&);

}  // namespace distgrid
