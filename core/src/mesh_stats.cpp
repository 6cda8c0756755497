#include "distgrid/mesh_stats.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <numeric>
#include <string>
#include <vector>

#include "distgrid/error.hpp"
#include "distgrid/interrupt.hpp"

namespace distgrid {

namespace {

using Vec3 = std::array<double, 3>;

Vec3 minus(const Vec3& a, const Vec3& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
Vec3 cross(const Vec3& a, const Vec3& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}
double dot(const Vec3& a, const Vec3& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }

/// Union-find over triangle corners (3 per triangle).
class Corners {
 public:
  explicit Corners(std::size_t count) : parent_(count) { std::iota(parent_.begin(), parent_.end(), std::size_t{0}); }
  std::size_t root(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::size_t a, std::size_t b) {
    a = root(a);
    b = root(b);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  std::vector<std::size_t> parent_;
};

struct HalfEdge {
  std::uint32_t lo, hi;    // corner indices, lo < hi
  std::uint32_t triangle;  // which triangle
  bool forward;            // runs lo -> hi in the triangle
};

std::size_t corner_of(const std::array<std::uint32_t, 3>& t, std::uint32_t triangle, std::uint32_t vertex) {
  for (std::size_t k = 0; k < 3; ++k)
    if (t[k] == vertex) return 3 * static_cast<std::size_t>(triangle) + k;
  return 3 * static_cast<std::size_t>(triangle);
}

}  // namespace

MeshStats mesh_stats(const TriangleMesh& mesh) {
  MeshStats stats;
  stats.vertices = mesh.positions.size();
  stats.triangles = mesh.triangles.size();
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::uint32_t v : mesh.triangles[t])
      if (v >= mesh.positions.size())
        throw Error(ErrorCode::badmesh, "triangle " + std::to_string(t) + " refers to corner " + std::to_string(v) +
                                            " of " + std::to_string(mesh.positions.size()));

  std::vector<HalfEdge> half_edges;
  half_edges.reserve(3 * mesh.triangles.size());
  std::vector<char> used(mesh.positions.size(), 0);
  const Vec3 origin = mesh.positions.empty() ? Vec3{0, 0, 0} : mesh.positions.front();
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    if (t % 65536 == 0) throw_if_interrupted();
    const auto& tri = mesh.triangles[t];
    for (std::uint32_t v : tri) used[v] = 1;
    const Vec3 a = minus(mesh.positions[tri[0]], origin), b = minus(mesh.positions[tri[1]], origin),
               c = minus(mesh.positions[tri[2]], origin);
    const Vec3 n = cross(minus(b, a), minus(c, a));
    stats.area += 0.5 * std::sqrt(dot(n, n));
    stats.signed_volume += dot(a, cross(b, c)) / 6;
    const bool repeated = tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0];
    if (repeated || (n[0] == 0 && n[1] == 0 && n[2] == 0)) ++stats.degenerate_triangles;
    if (repeated) continue;  // no meaningful edges
    for (std::size_t k = 0; k < 3; ++k) {
      const std::uint32_t from = tri[k], to = tri[(k + 1) % 3];
      half_edges.push_back({std::min(from, to), std::max(from, to), static_cast<std::uint32_t>(t), from < to});
    }
  }
  std::sort(half_edges.begin(), half_edges.end(), [](const HalfEdge& x, const HalfEdge& y) {
    return x.lo != y.lo ? x.lo < y.lo : (x.hi != y.hi ? x.hi < y.hi : x.triangle < y.triangle);
  });

  Corners corners(3 * mesh.triangles.size());
  std::vector<char> on_bad_edge(mesh.positions.size(), 0);
  throw_if_interrupted();
  for (std::size_t begin = 0, groups = 0; begin < half_edges.size(); ++groups) {
    if (groups % 65536 == 0) throw_if_interrupted();
    std::size_t end = begin + 1;
    while (end < half_edges.size() && half_edges[end].lo == half_edges[begin].lo &&
           half_edges[end].hi == half_edges[begin].hi)
      ++end;
    ++stats.edges;
    const HalfEdge& first = half_edges[begin];
    const std::size_t count = end - begin;
    if (count == 1) ++stats.boundary_edges;
    if (count > 2) {
      ++stats.non_manifold_edges;
      on_bad_edge[first.lo] = on_bad_edge[first.hi] = 1;
    }
    if (count == 2) {
      const HalfEdge& second = half_edges[begin + 1];
      if (first.forward == second.forward) ++stats.misoriented_edges;
      // The two triangles are neighbours in the fans of both ends.
      for (std::uint32_t v : {first.lo, first.hi})
        corners.join(corner_of(mesh.triangles[first.triangle], first.triangle, v),
                     corner_of(mesh.triangles[second.triangle], second.triangle, v));
    }
    begin = end;
  }

  // Fans per vertex: distinct roots among its corners.
  std::vector<std::size_t> fan_root(mesh.positions.size(), SIZE_MAX);
  std::vector<char> several_fans(mesh.positions.size(), 0);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    if (t % 65536 == 0) throw_if_interrupted();
    const auto& tri = mesh.triangles[t];
    if (tri[0] == tri[1] || tri[1] == tri[2] || tri[2] == tri[0]) continue;
    for (std::size_t k = 0; k < 3; ++k) {
      const std::size_t root = corners.root(3 * t + k);
      std::size_t& seen = fan_root[tri[k]];
      if (seen == SIZE_MAX)
        seen = root;
      else if (seen != root)
        several_fans[tri[k]] = 1;
    }
  }
  std::size_t used_count = 0;
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    if (!used[v]) {
      ++stats.unused_vertices;
      continue;
    }
    ++used_count;
    if (several_fans[v] || on_bad_edge[v]) ++stats.non_manifold_vertices;
  }
  stats.euler_characteristic = static_cast<std::int64_t>(used_count) - static_cast<std::int64_t>(stats.edges) +
                               static_cast<std::int64_t>(stats.triangles);
  return stats;
}

}  // namespace distgrid
