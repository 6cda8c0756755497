#pragma once
// Test support: meshes that are closed but may or may not bound a solid, built from
// the library's icosphere and torus. Not a test file (the test glob takes only
// *_test.cpp); the hardening tests include it too.
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <string>

#include "distgrid/mesh.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/vec3.hpp"

namespace distgrid::test_support {

/// A closed, non-convex mesh of 20 * 4^level triangles (5 120 at level 4): an
/// icosphere whose corners are moved along their rays from `centre` to a bumpy radius
/// with two ears. The radius stays positive, so the surface is star-shaped about the
/// centre and each triangle stays in the cone of its three rays: no two triangles meet
/// beyond their shared corners and edges.
inline TriangleMesh bunny_like(int level = 4, const Vec3& centre = {0, 0, 0}, double scale = 1) {
  TriangleMesh mesh = icosphere(level, {0, 0, 0}, 1);
  const Vec3 ears[2] = {{-0.35, 0.25, 0.9}, {0.35, 0.25, 0.9}};
  for (Vec3& p : mesh.positions) {
    double r = 1 + 0.18 * std::sin(3 * p[0] + 1) * std::cos(2 * p[1]) + 0.1 * std::cos(4 * p[2]);
    for (const Vec3& ear : ears) {
      const Vec3 d = detail::sub3(p, ear);
      r += 0.7 * std::exp(-detail::dot3(d, d) / 0.03);
    }
    for (std::size_t a = 0; a < 3; ++a) p[a] = centre[a] + scale * r * p[a];
  }
  return mesh;
}

/// Both meshes in one (the second's corners numbered after the first's).
inline TriangleMesh joined(const TriangleMesh& a, const TriangleMesh& b) {
  TriangleMesh out = a;
  out.normals.clear();
  const auto offset = static_cast<std::uint32_t>(a.positions.size());
  out.positions.insert(out.positions.end(), b.positions.begin(), b.positions.end());
  for (const auto& t : b.triangles) out.triangles.push_back({t[0] + offset, t[1] + offset, t[2] + offset});
  return out;
}

inline TriangleMesh translated(TriangleMesh mesh, const Vec3& offset) {
  for (Vec3& p : mesh.positions)
    for (std::size_t a = 0; a < 3; ++a) p[a] += offset[a];
  return mesh;
}

/// Every triangle's orientation reversed (a shell facing inward).
inline TriangleMesh reversed(TriangleMesh mesh) {
  for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
  return mesh;
}

/// A spindle torus (tube radius above the ring radius): one closed, consistently
/// oriented shell that passes through itself around the axis.
inline TriangleMesh spindle_torus() { return triangulated_torus(0.3, 0.5, 48, 24, {0.01, -0.02, 0.03}); }

/// A hollow ball: an outward icosphere of radius 1 around a reversed one of radius
/// 1/2 (a cavity), or with `same_orientation` both outward (no solid).
inline TriangleMesh hollow_ball(bool same_orientation = false) {
  const Vec3 centre{0.0123, -0.0311, 0.0217};
  const TriangleMesh inner = icosphere(3, centre, 0.5);
  return joined(icosphere(3, centre, 1), same_orientation ? inner : reversed(inner));
}

/// The mesh as OBJ text with 17 significant digits, so it reads back exactly.
inline std::string obj_text(const TriangleMesh& mesh) {
  std::string text;
  char line[128];
  for (const Vec3& p : mesh.positions) {
    std::snprintf(line, sizeof line, "v %.17g %.17g %.17g\n", p[0], p[1], p[2]);
    text += line;
  }
  for (const auto& t : mesh.triangles) {
    std::snprintf(line, sizeof line, "f %u %u %u\n", t[0] + 1, t[1] + 1, t[2] + 1);
    text += line;
  }
  return text;
}

}  // namespace distgrid::test_support
