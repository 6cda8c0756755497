#pragma once
// Counts of a triangle mesh's edges and its enclosed volume, computed here
// rather than with core's mesh_stats: an undirected edge used by one triangle
// is a boundary edge, by more than two non-manifold; an edge of two triangles
// that run it the same way is misoriented. The volume is the divergence-theorem
// sum of det(a, b, c) / 6 over the triangles, each term in double, summed with
// Neumaier compensation (the sum's rounding stays far below the discretisation
// this volume is compared with).
#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "distgrid/mesh.hpp"

namespace distgrid::audit::reference {

struct MeshTopology {
  std::size_t vertices_used = 0;
  std::size_t edges = 0;
  std::size_t boundary_edges = 0;
  std::size_t non_manifold_edges = 0;
  std::size_t misoriented_edges = 0;
  std::int64_t euler_characteristic = 0;  ///< used vertices - edges + triangles
  double volume = 0;

  bool closed() const noexcept { return boundary_edges == 0 && non_manifold_edges == 0 && misoriented_edges == 0; }
};

inline MeshTopology mesh_topology(const TriangleMesh& mesh) {
  MeshTopology t;
  // Each directed edge as (low, high, direction): sorting groups an edge's uses.
  std::vector<std::pair<std::uint64_t, int>> uses;
  uses.reserve(3 * mesh.triangles.size());
  std::vector<bool> used(mesh.positions.size(), false);
  double sum = 0, compensation = 0;
  for (const auto& tri : mesh.triangles) {
    for (std::size_t k = 0; k < 3; ++k) {
      const std::uint32_t a = tri[k], b = tri[(k + 1) % 3];
      used[a] = true;
      const std::uint64_t low = std::min(a, b), high = std::max(a, b);
      uses.emplace_back((low << 32) | high, a < b ? 1 : -1);
    }
    const auto& p = mesh.positions[tri[0]];
    const auto& q = mesh.positions[tri[1]];
    const auto& r = mesh.positions[tri[2]];
    const double det = p[0] * (q[1] * r[2] - q[2] * r[1]) - p[1] * (q[0] * r[2] - q[2] * r[0]) +
                       p[2] * (q[0] * r[1] - q[1] * r[0]);
    const double term = det / 6;
    const double next = sum + term;
    compensation += std::fabs(sum) >= std::fabs(term) ? (sum - next) + term : (term - next) + sum;
    sum = next;
  }
  t.volume = sum + compensation;
  std::sort(uses.begin(), uses.end());
  for (std::size_t n = 0; n < uses.size();) {
    std::size_t m = n;
    int direction_sum = 0;
    while (m < uses.size() && uses[m].first == uses[n].first) direction_sum += uses[m++].second;
    const std::size_t count = m - n;
    ++t.edges;
    if (count == 1) ++t.boundary_edges;
    if (count > 2) ++t.non_manifold_edges;
    if (count == 2 && direction_sum != 0) ++t.misoriented_edges;
    n = m;
  }
  t.vertices_used = static_cast<std::size_t>(std::count(used.begin(), used.end(), true));
  t.euler_characteristic = static_cast<std::int64_t>(t.vertices_used) - static_cast<std::int64_t>(t.edges) +
                           static_cast<std::int64_t>(mesh.triangles.size());
  return t;
}

}  // namespace distgrid::audit::reference
