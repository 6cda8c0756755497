#pragma once
// What both contour meshers read and write: node values of a box of nodes with their
// inside flags (value < 0), the cell corner helpers, the central difference a
// vertex normal blends, and the mesh being built.
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "distgrid/contour.hpp"
#include "distgrid/detail/lanes.hpp"
#include "distgrid/error.hpp"

namespace distgrid::detail::meshing {

using Vec3 = std::array<double, 3>;
using Coord = std::array<std::int64_t, 3>;

constexpr int corner_offset(int corner, int axis) { return (corner >> axis) & 1; }

/// Node values of a box of nodes, x fastest, with their inside flags (value < 0).
struct Block {
  Coord origin{};            // global node index of local (0, 0, 0)
  std::array<int, 3> size{};
  std::vector<double> values;
  std::vector<std::uint8_t> inside;

  void resize(std::array<int, 3> s) {
    size = s;
    const auto n = static_cast<std::size_t>(s[0]) * static_cast<std::size_t>(s[1]) * static_cast<std::size_t>(s[2]);
    values.resize(n);
    inside.resize(n);
  }
  std::ptrdiff_t step(int axis) const noexcept {
    return axis == 0 ? 1 : (axis == 1 ? size[0] : static_cast<std::ptrdiff_t>(size[0]) * size[1]);
  }
  std::ptrdiff_t at(int x, int y, int z) const noexcept {
    return x + static_cast<std::ptrdiff_t>(size[0]) * (y + static_cast<std::ptrdiff_t>(size[1]) * z);
  }
  double value(std::ptrdiff_t n) const noexcept { return values[static_cast<std::size_t>(n)]; }
  bool is_inside(std::ptrdiff_t n) const noexcept { return inside[static_cast<std::size_t>(n)] != 0; }
  void finish_flags() {
    // Through local pointers, so the compiler sees no aliasing and vectorises.
    const double* v = values.data();
    std::uint8_t* flags = inside.data();
    const std::size_t count = values.size();
    for (std::size_t n = 0; n < count; ++n) flags[n] = v[n] < 0 ? 1 : 0;
  }
};

/// Offsets, within a block, of a cell's eight corners from its lowest corner.
inline std::array<std::ptrdiff_t, 8> corner_steps(const Block& block) {
  std::array<std::ptrdiff_t, 8> steps{};
  for (int c = 0; c < 8; ++c)
    steps[static_cast<std::size_t>(c)] = corner_offset(c, 0) * block.step(0) + corner_offset(c, 1) * block.step(1) +
                                         corner_offset(c, 2) * block.step(2);
  return steps;
}

inline unsigned cell_pattern(const Block& block, std::ptrdiff_t n, const std::array<std::ptrdiff_t, 8>& steps) noexcept {
  unsigned pattern = 0;
  for (unsigned c = 0; c < 8; ++c) pattern |= static_cast<unsigned>(block.inside[static_cast<std::size_t>(n + steps[c])]) << c;
  return pattern;
}

/// Lanes 0..2 of v divided by their length, or 0 when that is 0 or not finite.
inline Vec3 unit_or_zero(const Lanes& v) noexcept {
  const double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(length > 0) || !std::isfinite(length)) return {0, 0, 0};
  const Lanes unit = v / length;
  return {unit[0], unit[1], unit[2]};
}

/// The central difference at a block node along x, y, z (lanes 0..2), times 2h (only
/// its direction is used). (Through a reference: returning a vector by value would
/// tie the ABI to AVX.)
inline void central_difference(const double* node, std::ptrdiff_t along_y, std::ptrdiff_t along_z, Lanes& difference) noexcept {
  difference = Lanes{node[1], node[along_y], node[along_z], 0} - Lanes{node[-1], node[-along_y], node[-along_z], 0};
}

/// Calls visit(x) for each set bit x of bits, lowest first.
template <class Visit>
void for_each_bit(unsigned bits, Visit&& visit) {
  while (bits != 0) {
    visit(std::countr_zero(bits));
    bits &= bits - 1;
  }
}

/// Asks for the cache line `ahead` bytes past the end of `items` for writing. The
/// output outgrows the caches, and each new line written would otherwise be
/// fetched only when a store reaches it. (Integer arithmetic: the address may lie
/// past the allocation; a prefetch never faults.)
template <class T>
void prefetch_for_append(const std::vector<T>& items) noexcept {
  constexpr std::uintptr_t ahead = 512;
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(items.data() + items.size()) + ahead), 1);
}

/// Output being built, with the counters of ContourResult.
struct MeshOut {
  ContourResult result;
  std::uint32_t add_vertex(const Vec3& position, const Vec3& normal) {
    const std::size_t index = result.mesh.positions.size();
    if (index >= UINT32_MAX) too_many_vertices();
    prefetch_for_append(result.mesh.positions);
    prefetch_for_append(result.mesh.normals);
    result.mesh.positions.push_back(position);
    result.mesh.normals.push_back(normal);
    return static_cast<std::uint32_t>(index);
  }
  // Out of line, so the common path of add_vertex stays small enough to inline.
  [[noreturn, gnu::cold, gnu::noinline]] static void too_many_vertices() {
    throw Error(ErrorCode::toolarge, "contour: more vertices than 32-bit triangle indices can address");
  }
  void add_triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    prefetch_for_append(result.mesh.triangles);
    result.mesh.triangles.push_back({a, b, c});
  }
};

}  // namespace distgrid::detail::meshing
