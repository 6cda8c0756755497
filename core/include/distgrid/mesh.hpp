#pragma once
// An indexed triangle mesh in world coordinates (double).
#include <array>
#include <cstdint>
#include <vector>

namespace distgrid {

struct TriangleMesh {
  /// #V corner positions.
  std::vector<std::array<double, 3>> positions;
  /// #F triangles, indices into positions, counter-clockwise seen from outside.
  std::vector<std::array<std::uint32_t, 3>> triangles;
  /// Optional per-corner normals (#V of them, or empty).
  std::vector<std::array<double, 3>> normals;
};

}  // namespace distgrid
