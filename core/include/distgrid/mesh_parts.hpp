#pragma once
// Built-in triangle meshes for tests, benchmarks and the default audit, each with
// the volume of the polyhedron itself (not of the smooth shape it approximates).
#include <string>
#include <string_view>
#include <vector>

#include "distgrid/mesh.hpp"
#include "distgrid/vec3.hpp"

namespace distgrid {

/// Icosahedron subdivided `level` times (20 * 4^level triangles), corners pushed
/// onto the sphere of this centre and radius; outward, counter-clockwise.
TriangleMesh icosphere(int level, const Vec3& centre, double radius);

/// Torus about the z axis through `centre`: `around` segments along the ring of
/// radius `major`, `across` segments around the tube of radius `minor`; 2 * around *
/// across triangles, corners on the smooth torus, outward.
TriangleMesh triangulated_torus(double major, double minor, int around, int across, const Vec3& centre);

/// Volume enclosed by a closed, outward mesh: sum of a.(b x c)/6 over triangles,
/// accumulated in long double; the only error is rounding (about 1e-16 relative).
double polyhedral_volume(const TriangleMesh& mesh);

struct MeshPart {
  std::string name;
  std::string description;
  TriangleMesh mesh;
  double volume = 0;  ///< polyhedral_volume(mesh)
};

/// Names of the built-in mesh parts: icosphere_1k, icosphere_20k, icosphere_330k, torus_mesh.
std::vector<std::string> mesh_part_names();
/// Builds a part; Error(badarg) naming the part and the known names.
MeshPart mesh_part(std::string_view name);

}  // namespace distgrid
