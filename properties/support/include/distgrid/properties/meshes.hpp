#pragma once
// Triangles and triangle meshes for property inputs: single triangles of every
// awkward kind (slivers, needles, near-coincident and coincident corners, corners
// on lattice nodes and brick faces), and closed meshes, convex (boxes, tetrahedra,
// octahedra, icospheres) and not (tori, L- and U-shaped polycubes). Corners are
// dyadic multiples of h unless a kind says otherwise, so rigid moves by whole
// voxels and scaling by powers of two are exact. Everything shrinks through its
// parameters towards fewer, rounder, smaller shapes.
#include <rapidcheck.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <map>
#include <ostream>
#include <string>
#include <vector>

#include "distgrid/mesh.hpp"
#include "distgrid/vec3.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/properties/lattice.hpp"

namespace distgrid::properties {

/// A triangle (corners a, b, c) and how it was made.
struct TriangleCase {
  std::string kind;
  Vec3 a{}, b{}, c{};
};

inline std::ostream& operator<<(std::ostream& out, const Vec3& v) {
  char buf[96];
  std::snprintf(buf, sizeof buf, "(%a, %a, %a)", v[0], v[1], v[2]);
  return out << buf;
}

inline std::ostream& operator<<(std::ostream& out, const TriangleCase& t) {
  return out << t.kind << " a=" << t.a << " b=" << t.b << " c=" << t.c;
}

/// A point near the origin on the lattice 2^-bits, |coordinate| < reach.
inline rc::Gen<Vec3> dyadic_point(int reach, int bits) {
  const auto c = dyadic(std::int64_t{reach} << bits, bits);
  return rc::gen::apply([](double x, double y, double z) { return Vec3{x, y, z}; }, c, c, c);
}

/// Triangles of every kind the closest-point and sign code must survive.
inline rc::Gen<TriangleCase> triangle_case() {
  const auto p = dyadic_point(4, 6);
  const auto tiny = rc::gen::map(rc::gen::inRange(1, 40), [](int e) { return power_of_two(-e); });
  return rc::gen::weightedOneOf<TriangleCase>(
      {{4, rc::gen::apply([](Vec3 a, Vec3 b, Vec3 c) { return TriangleCase{"generic", a, b, c}; }, p, p, p)},
       {2, rc::gen::apply(
               [](Vec3 a, Vec3 b, double along, double off) {
                 // c close to the line ab: a sliver.
                 Vec3 c{};
                 for (std::size_t k = 0; k < 3; ++k) c[k] = a[k] + along * (b[k] - a[k]);
                 c[2] += off;
                 return TriangleCase{"sliver", a, b, c};
               },
               p, p, dyadic(64, 4), tiny)},
       {2, rc::gen::apply(
               [](Vec3 a, Vec3 c, double off) {
                 Vec3 b = a;  // one very short edge: a needle
                 b[0] += off;
                 return TriangleCase{"needle", a, b, c};
               },
               p, p, tiny)},
       {1, rc::gen::apply(
               [](Vec3 a, Vec3 c, int axis) {
                 Vec3 b = a;  // corners one ulp apart
                 b[static_cast<std::size_t>(axis)] =
                     std::nextafter(a[static_cast<std::size_t>(axis)], std::numeric_limits<double>::infinity());
                 return TriangleCase{"near-coincident", a, b, c};
               },
               p, p, rc::gen::inRange(0, 3))},
       {1, rc::gen::apply(
               [](Vec3 a, Vec3 b, int which) {
                 // Zero area: a repeated corner, or three collinear corners.
                 Vec3 c = a;
                 if (which == 1)
                   for (std::size_t k = 0; k < 3; ++k) c[k] = 2 * b[k] - a[k];
                 return TriangleCase{which == 0 ? "repeated-corner" : "collinear", a, b, c};
               },
               p, p, rc::gen::inRange(0, 2))},
       {1, rc::gen::apply(
               [](std::int64_t i0, std::int64_t j0, std::int64_t k0, std::int64_t di, std::int64_t dj) {
                 // Corners on lattice nodes and brick faces (multiples of 8 in voxels, h = 1).
                 const auto d = [](std::int64_t v) { return static_cast<double>(v); };
                 return TriangleCase{"lattice", {d(8 * i0), d(8 * j0), d(k0)}, {d(8 * i0 + di), d(8 * j0), d(k0)},
                                     {d(8 * i0), d(8 * j0 + dj), d(k0 + 1)}};
               },
               node_index(2), node_index(2), node_index(16), rc::gen::inRange<std::int64_t>(1, 17),
               rc::gen::inRange<std::int64_t>(1, 17))}});
}

/// A closed mesh and how it was made (for counterexamples).
struct MeshCase {
  std::string description;
  TriangleMesh mesh;
};

inline std::ostream& operator<<(std::ostream& out, const MeshCase& m) {
  return out << m.description << " (" << m.mesh.positions.size() << " corners, " << m.mesh.triangles.size()
             << " triangles)";
}

/// Axis-aligned box [lo, hi] as 12 outward triangles.
inline TriangleMesh box_mesh(const Vec3& lo, const Vec3& hi) {
  TriangleMesh m;
  for (int n = 0; n < 8; ++n)
    m.positions.push_back({(n & 1) ? hi[0] : lo[0], (n & 2) ? hi[1] : lo[1], (n & 4) ? hi[2] : lo[2]});
  // Quads counter-clockwise from outside, each split in two.
  const std::uint32_t quads[6][4] = {{0, 2, 3, 1}, {4, 5, 7, 6}, {0, 1, 5, 4}, {2, 6, 7, 3}, {0, 4, 6, 2}, {1, 3, 7, 5}};
  for (const auto& q : quads) {
    m.triangles.push_back({q[0], q[1], q[2]});
    m.triangles.push_back({q[0], q[2], q[3]});
  }
  return m;
}

/// Surface of a union of unit cubes (cells), scaled by `size` and moved by `offset`:
/// one outward quad per face between a filled and an empty cell. Manifold when no
/// two cells touch only along an edge or a corner.
inline TriangleMesh polycube_mesh(const std::vector<std::array<int, 3>>& cells, double size, const Vec3& offset) {
  TriangleMesh m;
  std::map<std::array<int, 3>, std::uint32_t> corner_index;
  const auto filled = [&](std::array<int, 3> c) {
    for (const auto& d : cells)
      if (d == c) return true;
    return false;
  };
  const auto corner = [&](std::array<int, 3> c) {
    const auto [at, inserted] = corner_index.try_emplace(c, static_cast<std::uint32_t>(m.positions.size()));
    if (inserted)
      m.positions.push_back({offset[0] + c[0] * size, offset[1] + c[1] * size, offset[2] + c[2] * size});
    return at->second;
  };
  for (const auto& c : cells)
    for (int axis = 0; axis < 3; ++axis)
      for (int side = 0; side < 2; ++side) {
        std::array<int, 3> n = c;
        n[static_cast<std::size_t>(axis)] += side ? 1 : -1;
        if (filled(n)) continue;
        const int u = (axis + 1) % 3, v = (axis + 2) % 3;
        std::array<int, 3> base = c;
        base[static_cast<std::size_t>(axis)] += side;
        std::array<std::array<int, 3>, 4> q{base, base, base, base};
        q[1][static_cast<std::size_t>(u)] += 1;
        q[2][static_cast<std::size_t>(u)] += 1;
        q[2][static_cast<std::size_t>(v)] += 1;
        q[3][static_cast<std::size_t>(v)] += 1;
        // (u, v, axis) is right-handed: counter-clockwise seen from +axis.
        std::array<std::uint32_t, 4> id{corner(q[0]), corner(q[1]), corner(q[2]), corner(q[3])};
        if (!side) id = {id[0], id[3], id[2], id[1]};
        m.triangles.push_back({id[0], id[1], id[2]});
        m.triangles.push_back({id[0], id[2], id[3]});
      }
  return m;
}

/// An L (two arms) or U (three arms) of cubes, arms 1..4 cells long, extruded 1..3 cells.
inline std::vector<std::array<int, 3>> bent_cells(int arm_x, int arm_y, int depth, bool u_shape) {
  std::vector<std::array<int, 3>> cells;
  for (int z = 0; z < depth; ++z) {
    for (int x = 0; x <= arm_x; ++x) cells.push_back({x, 0, z});
    for (int y = 1; y <= arm_y; ++y) cells.push_back({0, y, z});
    if (u_shape)
      for (int y = 1; y <= arm_y; ++y) cells.push_back({arm_x, y, z});
  }
  return cells;
}

/// Closed meshes within about `reach` voxels of the origin for voxel size h:
/// convex (box, tetrahedron, octahedron, icosphere) and non-convex (torus, L and U
/// polycubes); `on_lattice` puts every corner on lattice nodes, some on brick faces.
inline rc::Gen<MeshCase> closed_mesh(double h, bool on_lattice = false) {
  const auto voxels = [h](int lo, int hi) {
    return rc::gen::map(rc::gen::inRange(lo * 4, hi * 4 + 1), [h](int n) { return n * h / 4; });
  };
  const auto offset = rc::gen::apply(
      [h, on_lattice](int x, int y, int z) {
        const double unit = on_lattice ? 8 * h : h / 4;
        return Vec3{x * unit, y * unit, z * unit};
      },
      rc::gen::inRange(-4, 5), rc::gen::inRange(-4, 5), rc::gen::inRange(-4, 5));
  const auto describe = [](const char* what, const Vec3& at, double size) {
    char buf[160];
    std::snprintf(buf, sizeof buf, "%s at (%a, %a, %a) size %a", what, at[0], at[1], at[2], size);
    return std::string(buf);
  };
  const auto lattice_size = [h, voxels, on_lattice](int lo, int hi) {
    return on_lattice ? rc::gen::map(rc::gen::inRange(lo, hi + 1), [h](int n) { return n * h; }) : voxels(lo, hi);
  };
  return rc::gen::weightedOneOf<MeshCase>(
      {{2, rc::gen::apply(
               [describe](Vec3 at, double sx, double sy, double sz) {
                 return MeshCase{describe("box", at, sx), box_mesh(at, {at[0] + sx, at[1] + sy, at[2] + sz})};
               },
               offset, lattice_size(2, 14), lattice_size(2, 14), lattice_size(2, 14))},
       {2, rc::gen::apply(
               [describe](Vec3 at, double sx, double sy, double sz, Vec3 shear) {
                 // Corners at, at + X, at + Y, at + Z with det(X, Y, Z) = sx*sy*sz > 0.
                 TriangleMesh m;
                 m.positions = {at,
                                {at[0] + sx, at[1], at[2]},
                                {at[0] + shear[0], at[1] + sy, at[2]},
                                {at[0] + shear[1], at[1] + shear[2], at[2] + sz}};
                 m.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
                 return MeshCase{describe("tetrahedron", at, sx), m};
               },
               offset, lattice_size(2, 14), lattice_size(2, 14), lattice_size(2, 14),
               rc::gen::apply([h](int x, int y, int z) { return Vec3{x * h, y * h, z * h}; }, rc::gen::inRange(-6, 7),
                              rc::gen::inRange(-6, 7), rc::gen::inRange(-6, 7)))},
       {1, rc::gen::apply(
               [describe](Vec3 at, double rx, double ry, double rz) {
                 TriangleMesh m;
                 m.positions = {{at[0] + rx, at[1], at[2]}, {at[0] - rx, at[1], at[2]}, {at[0], at[1] + ry, at[2]},
                                {at[0], at[1] - ry, at[2]}, {at[0], at[1], at[2] + rz}, {at[0], at[1], at[2] - rz}};
                 m.triangles = {{0, 2, 4}, {2, 1, 4}, {1, 3, 4}, {3, 0, 4}, {2, 0, 5}, {1, 2, 5}, {3, 1, 5}, {0, 3, 5}};
                 return MeshCase{describe("octahedron", at, rx), m};
               },
               offset, lattice_size(2, 10), lattice_size(2, 10), lattice_size(2, 10))},
       {1, rc::gen::apply(
               [describe](Vec3 at, double radius, int level) {
                 return MeshCase{describe(level == 0 ? "icosahedron" : "icosphere", at, radius), icosphere(level, at, radius)};
               },
               offset, voxels(3, 10), rc::gen::inRange(0, 2))},
       {1, rc::gen::apply(
               [describe](Vec3 at, double minor, double extra, int around, int across) {
                 return MeshCase{describe("torus", at, minor), triangulated_torus(minor + extra, minor, around, across, at)};
               },
               offset, voxels(2, 4), voxels(1, 5), rc::gen::inRange(5, 12), rc::gen::inRange(3, 7))},
       {2, rc::gen::apply(
               [describe](Vec3 at, double size, int arm_x, int arm_y, int depth, bool u_shape) {
                 return MeshCase{describe(u_shape ? "U polycube" : "L polycube", at, size),
                                 polycube_mesh(bent_cells(arm_x, arm_y, depth, u_shape), size, at)};
               },
               offset, lattice_size(2, 5), rc::gen::inRange(1, 4), rc::gen::inRange(1, 4), rc::gen::inRange(1, 3),
               rc::gen::arbitrary<bool>())}});
}

/// A mesh with welding work to do: the triangles of `base` given as a soup (three
/// corners each), some corners repeated as -0 for +0, and near-coincident copies one
/// ulp away that must stay separate.
inline rc::Gen<TriangleMesh> soup_with_near_duplicates(const TriangleMesh& base) {
  return rc::gen::apply(
      [base](std::vector<int> nudges) {
        TriangleMesh soup;
        for (std::size_t t = 0; t < base.triangles.size(); ++t) {
          std::array<std::uint32_t, 3> tri{};
          for (std::size_t c = 0; c < 3; ++c) {
            Vec3 p = base.positions[base.triangles[t][c]];
            const int nudge = nudges[(3 * t + c) % nudges.size()];
            for (double& v : p)
              if (v == 0 && nudge == 1) v = -0.0;
            if (nudge == 2) p[0] = std::nextafter(p[0], std::numeric_limits<double>::infinity());
            tri[c] = static_cast<std::uint32_t>(soup.positions.size());
            soup.positions.push_back(p);
          }
          soup.triangles.push_back(tri);
        }
        return soup;
      },
      rc::gen::nonEmpty(rc::gen::container<std::vector<int>>(rc::gen::weightedOneOf<int>(
          {{6, rc::gen::just(0)}, {2, rc::gen::just(1)}, {1, rc::gen::just(2)}}))));
}

}  // namespace distgrid::properties
