#pragma once
// Small helpers shared by the mesh calculations (mesh_*.cpp).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstddef>
#include <cstring>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit::calcs::mesh_support {

using Point = std::array<double, 3>;

/// "(x, y, z)" in hex-float, exact and replayable.
inline std::string point_text(const Point& p) {
  std::string text = "(";
  for (std::size_t a = 0; a < 3; ++a) {
    text += hex_float(p[a]);
    text += a < 2 ? ", " : ")";
  }
  return text;
}

/// Number of doubles strictly between x and y plus one (0 when x == y, so -0
/// and +0 are 0 apart): how many one-ulp steps separate them.
inline double ulp_steps(double x, double y) noexcept {
  const auto ordered = [](double v) {
    std::int64_t bits = 0;
    const double positive_zero = v + 0.0;  // -0 + 0 is +0
    std::memcpy(&bits, &positive_zero, sizeof bits);
    return bits < 0 ? -(bits & 0x7FFFFFFFFFFFFFFF) : bits;
  };
  const std::int64_t a = ordered(x), b = ordered(y);
  return a > b ? static_cast<double>(static_cast<std::uint64_t>(a) - static_cast<std::uint64_t>(b))
               : static_cast<double>(static_cast<std::uint64_t>(b) - static_cast<std::uint64_t>(a));
}

/// "the built-in meshes icosphere_1k and torus_mesh (inputs 0 and 1)": the mesh
/// parts by name, in order, and which input each one is.
inline std::string mesh_parts_text(const std::vector<const MeshSubject*>& parts) {
  if (parts.empty()) return "no mesh part of the run (none has at most " + std::to_string(kExactReferenceTriangles) +
                            " triangles)";
  bool built_in = true;
  std::string names;
  for (std::size_t n = 0; n < parts.size(); ++n) {
    built_in = built_in && parts[n]->source == "built-in";
    names += (n == 0 ? "" : (n + 1 == parts.size() ? " and " : ", ")) + parts[n]->part.name;
  }
  const std::string inputs = parts.size() == 1   ? "input 0"
                             : parts.size() == 2 ? "inputs 0 and 1"
                                                 : "inputs 0 to " + std::to_string(parts.size() - 1);
  return std::string(built_in ? "the built-in " : "the ") + (parts.size() == 1 ? "mesh " : "meshes ") + names + " (" +
         inputs + ")";
}

/// A storage-independent result copied once per storage the run asks for.
inline std::vector<CalculationResult> for_each_storage(const CalculationResult& result, const RunSettings& settings) {
  std::vector<CalculationResult> out;
  for (Storage s : settings.storages) {
    out.push_back(result);
    out.back().storage = s;
  }
  return out;
}

/// Index of a generator by name in a table of specs with a `name` member;
/// Error(badarg) naming the calculation when unknown.
template <class Spec, std::size_t N>
std::size_t stratum_index(const Spec (&strata)[N], std::string_view generator, std::string_view calculation) {
  for (std::size_t s = 0; s < N; ++s)
    if (generator == strata[s].name) return s;
  throw Error(ErrorCode::badarg,
              "replay: " + std::string(calculation) + " has no generator \"" + std::string(generator) + "\"");
}

/// A closed bipyramid: 3 to 8 corners drawn around the z axis (radius 0.5 to 1,
/// height within 0.1), apexes 0.3 to 1.5 above and below. Its triangles face
/// outward when the corners wind counter-clockwise about the axis; corners on a
/// narrow arc at different radii can wind the other way, and the mesh is then
/// inside out (prepare_mesh turns it).
inline TriangleMesh random_bipyramid(InputRng& rng) {
  const auto k = static_cast<std::uint32_t>(rng.integer(3, 8));
  std::vector<double> angles(k);
  for (double& a : angles) a = rng.uniform(0, 2 * 3.141592653589793);
  std::sort(angles.begin(), angles.end());
  TriangleMesh mesh;
  for (double a : angles) {
    const double r = rng.uniform(0.5, 1);
    mesh.positions.push_back({r * std::cos(a), r * std::sin(a), rng.uniform(-0.1, 0.1)});
  }
  mesh.positions.push_back({0, 0, rng.uniform(0.3, 1.5)});
  mesh.positions.push_back({0, 0, -rng.uniform(0.3, 1.5)});
  for (std::uint32_t i = 0; i < k; ++i) {
    mesh.triangles.push_back({i, (i + 1) % k, k});
    mesh.triangles.push_back({(i + 1) % k, i, k + 1});
  }
  return mesh;
}

/// What is wrong with a mesh prepare_mesh must take as it comes: turned inside
/// out (closed, every triangle reversed) or holding a triangle of zero area (a
/// repeated corner), both still a solid; open: a triangle missing (boundary
/// edges), a fin on an edge (a third triangle on it: non-manifold), one triangle
/// reversed (inconsistently oriented edges); closed but bounding no solid: two
/// shells that overlap (self-intersecting) or a shell inside another facing the
/// same way (misnested: a cavity must face inward).
enum class MeshDefect { inside_out, zero_area, hole, fin, one_reversed, self_intersecting, misnested };
inline constexpr const char* kMeshDefectNames[] = {"inside_out", "zero_area",         "hole",     "fin",
                                                   "one_reversed", "self_intersecting", "misnested"};
inline constexpr std::size_t kMeshDefects = std::size(kMeshDefectNames);

/// The error prepare_mesh must refuse a mesh with this defect with when it is
/// not allowed open; none for the defects that leave a solid.
inline std::optional<ErrorCode> refusal_of(MeshDefect defect) {
  switch (defect) {
    case MeshDefect::inside_out:
    case MeshDefect::zero_area:
      return std::nullopt;
    case MeshDefect::hole:
    case MeshDefect::fin:
    case MeshDefect::one_reversed:
      return ErrorCode::openmesh;
    case MeshDefect::self_intersecting:
      return ErrorCode::selfintersect;
    case MeshDefect::misnested:
      return ErrorCode::badmesh;
  }
  return std::nullopt;
}

/// Defective meshes are prepared in rounds of one per defect: the even rounds
/// allowed open (as --allow-open), the odd ones not, where prepare_mesh must
/// refuse them (refusal_of).
inline bool defective_round_allowed_open(std::uint64_t index, std::size_t defects) {
  return index / defects % 2 == 0;
}

/// What is wrong with prepare_mesh's answer to a mesh it must refuse with
/// `must_refuse` (none: it may accept it) when it refused it with `refused_with`
/// (none: it accepted it); empty when nothing is. A mesh it may accept can still
/// be refused (a drawn bipyramid that crosses itself): counted, not wrong.
inline std::string refusal_mismatch(std::optional<ErrorCode> must_refuse, std::optional<ErrorCode> refused_with) {
  if (!must_refuse || refused_with == must_refuse) return {};
  if (!refused_with)
    return "prepare_mesh accepted a mesh it must refuse with " + std::string(error_code_name(*must_refuse));
  return "prepare_mesh refused the mesh with " + std::string(error_code_name(*refused_with)) + ", not " +
         std::string(error_code_name(*must_refuse));
}

/// Appends an octahedron of `radius` around `centre`, outward facing.
inline void add_octahedron(TriangleMesh& mesh, const Point& centre, double radius) {
  const auto base = static_cast<std::uint32_t>(mesh.positions.size());
  for (std::size_t a = 0; a < 3; ++a)
    for (const double side : {radius, -radius}) {
      Point p = centre;
      p[a] += side;
      mesh.positions.push_back(p);
    }
  // Corners base + 2a (+ along axis a) and base + 2a + 1 (-); a face per octant.
  for (std::uint32_t octant = 0; octant < 8; ++octant) {
    const std::uint32_t x = base + (octant & 1u), y = base + 2 + (octant >> 1 & 1u), z = base + 4 + (octant >> 2 & 1u);
    const bool even = ((octant & 1u) + (octant >> 1 & 1u) + (octant >> 2 & 1u)) % 2 == 0;
    mesh.triangles.push_back(even ? std::array<std::uint32_t, 3>{x, y, z} : std::array<std::uint32_t, 3>{x, z, y});
  }
}

/// A drawn mesh with the defect: a bipyramid (random_bipyramid) with a drawn
/// triangle removed, reversed, grown a fin or added a zero-area twin, or
/// reversed whole; for the two shell defects, octahedra of drawn size and offset.
inline TriangleMesh defective_mesh(InputRng& rng, MeshDefect defect) {
  if (defect == MeshDefect::self_intersecting || defect == MeshDefect::misnested) {
    TriangleMesh mesh;
    const double radius = rng.uniform(0.5, 1);
    add_octahedron(mesh, {0, 0, 0}, radius);
    const bool inside = defect == MeshDefect::misnested;
    const double offset = inside ? 0 : radius * rng.uniform(0.3, 1.2);
    add_octahedron(mesh, {offset, offset * rng.uniform(0, 0.5), 0}, radius * (inside ? rng.uniform(0.2, 0.6) : 1));
    return mesh;
  }
  TriangleMesh mesh = random_bipyramid(rng);
  const auto pick = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(mesh.triangles.size()) - 1));
  const std::array<std::uint32_t, 3> picked = mesh.triangles[pick];
  switch (defect) {
    case MeshDefect::inside_out:
      for (auto& t : mesh.triangles) std::swap(t[1], t[2]);
      break;
    case MeshDefect::zero_area:
      mesh.triangles.push_back({picked[0], picked[0], picked[1]});
      break;
    case MeshDefect::hole:
      mesh.triangles.erase(mesh.triangles.begin() + static_cast<std::ptrdiff_t>(pick));
      break;
    case MeshDefect::fin: {
      // A new corner off the picked triangle's first edge, making a third triangle on it.
      const Point& a = mesh.positions[picked[0]];
      const Point& b = mesh.positions[picked[1]];
      mesh.positions.push_back({(a[0] + b[0]) * 0.75, (a[1] + b[1]) * 0.75, (a[2] + b[2]) * 0.5 + rng.uniform(0.1, 0.4)});
      mesh.triangles.push_back({picked[1], picked[0], static_cast<std::uint32_t>(mesh.positions.size() - 1)});
      break;
    }
    case MeshDefect::one_reversed:
      std::swap(mesh.triangles[pick][1], mesh.triangles[pick][2]);
      break;
    case MeshDefect::self_intersecting:
    case MeshDefect::misnested:
      break;
  }
  return mesh;
}

/// A recorded whole number that must not be negative; Error(badarg) otherwise.
inline std::uint64_t recorded_unsigned(const ReplayRequest& request, std::string_view name) {
  const std::int64_t value = replay_integer(request, name);
  if (value < 0)
    throw Error(ErrorCode::badarg, "replay: value '" + std::string(name) + "' is negative: " + replay_text(request, name));
  return static_cast<std::uint64_t>(value);
}

}  // namespace distgrid::audit::calcs::mesh_support
