#include "distgrid/mesh_parts.hpp"

#include <array>
#include <cmath>
#include <numbers>
#include <unordered_map>

#include "distgrid/error.hpp"
#include "distgrid/mesh_prepare.hpp"

namespace distgrid {

TriangleMesh icosphere(int level, const Vec3& centre, double radius) {
  // The icosahedron's corners are cyclic permutations of (0, +-1, +-phi).
  const double phi = std::numbers::phi;
  std::vector<Vec3> unit = {{-1, phi, 0}, {1, phi, 0},  {-1, -phi, 0}, {1, -phi, 0}, {0, -1, phi}, {0, 1, phi},
                            {0, -1, -phi}, {0, 1, -phi}, {phi, 0, -1},  {phi, 0, 1},  {-phi, 0, -1}, {-phi, 0, 1}};
  std::vector<std::array<std::uint32_t, 3>> faces = {
      {0, 11, 5}, {0, 5, 1},  {0, 1, 7},   {0, 7, 10}, {0, 10, 11}, {1, 5, 9}, {5, 11, 4}, {11, 10, 2}, {10, 7, 6}, {7, 1, 8},
      {3, 9, 4},  {3, 4, 2},  {3, 2, 6},   {3, 6, 8},  {3, 8, 9},   {4, 9, 5}, {2, 4, 11}, {6, 2, 10},  {8, 6, 7},  {9, 8, 1}};
  auto normalise = [](Vec3 v) {
    const double length = std::sqrt(detail::dot3(v, v));
    return Vec3{v[0] / length, v[1] / length, v[2] / length};
  };
  for (Vec3& v : unit) v = normalise(v);
  for (int l = 0; l < level; ++l) {
    std::unordered_map<std::uint64_t, std::uint32_t> midpoints;
    auto midpoint = [&](std::uint32_t a, std::uint32_t b) {
      const auto [at, inserted] = midpoints.try_emplace(edge_key(a, b), static_cast<std::uint32_t>(unit.size()));
      if (inserted)
        unit.push_back(normalise({unit[a][0] + unit[b][0], unit[a][1] + unit[b][1], unit[a][2] + unit[b][2]}));
      return at->second;
    };
    std::vector<std::array<std::uint32_t, 3>> finer;
    finer.reserve(faces.size() * 4);
    for (const auto& f : faces) {
      const std::uint32_t ab = midpoint(f[0], f[1]), bc = midpoint(f[1], f[2]), ca = midpoint(f[2], f[0]);
      finer.push_back({f[0], ab, ca});
      finer.push_back({f[1], bc, ab});
      finer.push_back({f[2], ca, bc});
      finer.push_back({ab, bc, ca});
    }
    faces = std::move(finer);
  }
  TriangleMesh mesh;
  mesh.positions.reserve(unit.size());
  for (const Vec3& u : unit)
    mesh.positions.push_back({centre[0] + radius * u[0], centre[1] + radius * u[1], centre[2] + radius * u[2]});
  mesh.triangles = std::move(faces);
  return mesh;
}

TriangleMesh triangulated_torus(double major, double minor, int around, int across, const Vec3& centre) {
  TriangleMesh mesh;
  const auto nu = static_cast<std::uint32_t>(around), nv = static_cast<std::uint32_t>(across);
  for (std::uint32_t u = 0; u < nu; ++u)
    for (std::uint32_t v = 0; v < nv; ++v) {
      const double a = 2 * std::numbers::pi * u / nu, b = 2 * std::numbers::pi * v / nv;
      const double ring = major + minor * std::cos(b);
      mesh.positions.push_back({centre[0] + ring * std::cos(a), centre[1] + ring * std::sin(a), centre[2] + minor * std::sin(b)});
    }
  auto corner = [&](std::uint32_t u, std::uint32_t v) { return (u % nu) * nv + (v % nv); };
  for (std::uint32_t u = 0; u < nu; ++u)
    for (std::uint32_t v = 0; v < nv; ++v) {
      // Quad (u, v)-(u+1, v)-(u+1, v+1)-(u, v+1) is counter-clockwise seen from outside.
      mesh.triangles.push_back({corner(u, v), corner(u + 1, v), corner(u + 1, v + 1)});
      mesh.triangles.push_back({corner(u, v), corner(u + 1, v + 1), corner(u, v + 1)});
    }
  return mesh;
}

double polyhedral_volume(const TriangleMesh& mesh) {
  long double sum = 0;
  for (const auto& t : mesh.triangles) {
    // Each coordinate widened once, so every product below is a long double product.
    std::array<std::array<long double, 3>, 3> p{};
    for (std::size_t corner = 0; corner < 3; ++corner)
      for (std::size_t axis = 0; axis < 3; ++axis)
        p[corner][axis] = static_cast<long double>(mesh.positions[t[corner]][axis]);
    const auto &a = p[0], &b = p[1], &c = p[2];
    sum += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
           a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return static_cast<double>(sum / 6);
}

namespace {
// Off the lattice, like the formula sphere part, so no node sits on a symmetry plane.
constexpr Vec3 kPartCentre{0.0123, -0.0311, 0.0217};
}  // namespace

std::vector<std::string> mesh_part_names() { return {"icosphere_1k", "icosphere_20k", "icosphere_330k", "torus_mesh"}; }

MeshPart mesh_part(std::string_view name) {
  MeshPart part;
  part.name = std::string(name);
  if (name == "icosphere_1k" || name == "icosphere_20k" || name == "icosphere_330k") {
    const int level = name == "icosphere_1k" ? 3 : (name == "icosphere_20k" ? 5 : 7);
    part.mesh = icosphere(level, kPartCentre, 1);
    part.description = "icosphere of radius 1, level " + std::to_string(level) + " (" +
                       std::to_string(part.mesh.triangles.size()) + " triangles)";
  } else if (name == "torus_mesh") {
    part.mesh = triangulated_torus(0.7, 0.25, 96, 32, kPartCentre);
    part.description = "torus R = 0.7, r = 0.25 about z, 96 x 32 segments (6144 triangles)";
  } else {
    std::string known;
    for (const std::string& n : mesh_part_names()) known += (known.empty() ? "" : ", ") + n;
    throw Error(ErrorCode::badarg, "unknown mesh part '" + std::string(name) + "' (known: " + known + ")");
  }
  part.volume = polyhedral_volume(part.mesh);
  return part;
}

}  // namespace distgrid
