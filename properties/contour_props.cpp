// Properties of the contour meshers (contour.surface_nets, contour.marching_cubes):
// counts fixed by the signs, brick-wise equal to dense, closed and outward, and the
// metamorphic relations (scaling, whole-brick translation, mirroring, storage).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <numbers>
#include <vector>

#include "distgrid/contour.hpp"
#include "distgrid/mesh_stats.hpp"
#include "distgrid/properties/generators.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;
using Triangle = std::array<Vec3, 3>;

/// The mesh's triangles as corner positions, each rotated to start at its least
/// corner (keeping its orientation), sorted: equal for meshes that differ only in
/// the order of vertices and triangles.
std::vector<Triangle> triangle_set(const TriangleMesh& mesh) {
  std::vector<Triangle> out;
  for (const auto& t : mesh.triangles) {
    Triangle tri{mesh.positions[t[0]], mesh.positions[t[1]], mesh.positions[t[2]]};
    const auto least = std::min_element(tri.begin(), tri.end()) - tri.begin();
    std::rotate(tri.begin(), tri.begin() + least, tri.end());
    out.push_back(tri);
  }
  std::sort(out.begin(), out.end());
  return out;
}

ContourOptions options_for(Mesher mesher, bool manifold = false) {
  ContourOptions o;
  o.mesher = mesher;
  o.manifold = manifold;
  return o;
}

rc::Gen<GridCase> contour_grid() {
  return rc::gen::weightedOneOf<GridCase>({{2, noise_grid(0.25, 3)}, {1, sphere_grid(0.125)}});
}

/// Nodes of every brick a grid stores or marks inside and of their neighbours: all
/// nodes whose value may differ from +band*h, and the nodes next to them.
struct NodeRange {
  std::array<std::int64_t, 3> lo{}, hi{};
};

template <class S>
NodeRange node_range(const Grid<S>& grid) {
  const auto e = grid.extent();
  NodeRange r;
  for (std::size_t a = 0; a < 3; ++a) {
    r.lo[a] = 8 * (e->lo[a] - 1);
    r.hi[a] = 8 * (e->hi[a] + 2) - 1;
  }
  return r;
}

struct SignCounts {
  std::size_t edges = 0;  ///< grid edges whose ends lie on opposite sides
  std::size_t cells = 0;  ///< cells whose corners are not all on one side
};

template <class S>
SignCounts sign_counts(const Grid<S>& grid) {
  const NodeRange r = node_range(grid);
  SignCounts c;
  const auto inside = [&](std::int64_t i, std::int64_t j, std::int64_t k) { return grid.node(i, j, k) < 0; };
  for (std::int64_t k = r.lo[2]; k < r.hi[2]; ++k)
    for (std::int64_t j = r.lo[1]; j < r.hi[1]; ++j)
      for (std::int64_t i = r.lo[0]; i < r.hi[0]; ++i) {
        const bool here = inside(i, j, k);
        c.edges += static_cast<std::size_t>((here != inside(i + 1, j, k)) + (here != inside(i, j + 1, k)) +
                                            (here != inside(i, j, k + 1)));
        int count = 0;
        for (int n = 0; n < 8; ++n) count += inside(i + (n & 1), j + ((n >> 1) & 1), k + (n >> 2));
        c.cells += count != 0 && count != 8;
      }
  return c;
}

DISTGRID_PROPERTY(ContourSurfaceNets, brickWiseEqualsDenseInBothModes, 60) {
  const Grid<float> grid = (*contour_grid()).build<float>();
  for (const bool manifold : {false, true}) {
    const ContourOptions o = options_for(Mesher::surface_nets, manifold);
    RC_ASSERT(triangle_set(contour(grid, o).mesh) == triangle_set(detail::contour_dense(grid, o).mesh));
  }
}

DISTGRID_PROPERTY(ContourMarchingCubes, brickWiseEqualsDense, 60) {
  const Grid<float> grid = (*contour_grid()).build<float>();
  const ContourOptions o = options_for(Mesher::marching_cubes);
  RC_ASSERT(triangle_set(contour(grid, o).mesh) == triangle_set(detail::contour_dense(grid, o).mesh));
}

DISTGRID_PROPERTY(ContourSurfaceNets, hasAVertexPerSignChangingCellAndTwoTrianglesPerSignChangingEdge, 60) {
  const Grid<float> grid = (*contour_grid()).build<float>();
  const ContourResult result = contour(grid, options_for(Mesher::surface_nets));
  const SignCounts counts = sign_counts(grid);
  RC_ASSERT(result.mesh.positions.size() == counts.cells);
  RC_ASSERT(result.mesh.triangles.size() == 2 * counts.edges);
}

DISTGRID_PROPERTY(ContourMarchingCubes, hasAVertexPerSignChangingEdge, 60) {
  const Grid<float> grid = (*contour_grid()).build<float>();
  const ContourResult result = contour(grid, options_for(Mesher::marching_cubes));
  RC_ASSERT(result.mesh.positions.size() == sign_counts(grid).edges);
}

DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, meshesAreClosedAndManifoldWherePromised, 60) {
  const Grid<float> grid = (*contour_grid()).build<float>();
  const MeshStats plain = mesh_stats(contour(grid, options_for(Mesher::surface_nets)).mesh);
  RC_ASSERT(plain.boundary_edges == 0u);
  RC_ASSERT(plain.misoriented_edges == 0u);
  RC_ASSERT(mesh_stats(contour(grid, options_for(Mesher::surface_nets, true)).mesh).closed_manifold());
  RC_ASSERT(mesh_stats(contour(grid, options_for(Mesher::marching_cubes)).mesh).closed_manifold());
}

// Around a sphere the faces point away from its centre and the enclosed volume is
// close to the ball's.
DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, facesOfASpherePointOutward, 40) {
  const GridCase g = *sphere_grid(0.125);
  const Grid<double> grid = g.build<double>();
  for (const Mesher mesher : {Mesher::surface_nets, Mesher::marching_cubes}) {
    const TriangleMesh mesh = contour(grid, options_for(mesher)).mesh;
    RC_ASSERT(!mesh.triangles.empty());
    // The centre: the mean of the vertices of a closed surface of a ball.
    Vec3 centre{0, 0, 0};
    for (const Vec3& p : mesh.positions)
      for (std::size_t a = 0; a < 3; ++a) centre[a] += p[a] / static_cast<double>(mesh.positions.size());
    std::size_t outward = 0;
    for (const auto& t : mesh.triangles) {
      const Vec3 &a = mesh.positions[t[0]], &b = mesh.positions[t[1]], &c = mesh.positions[t[2]];
      const Vec3 n = detail::cross3(detail::sub3(b, a), detail::sub3(c, a));
      const Vec3 mid{(a[0] + b[0] + c[0]) / 3 - centre[0], (a[1] + b[1] + c[1]) / 3 - centre[1],
                     (a[2] + b[2] + c[2]) / 3 - centre[2]};
      outward += detail::dot3(n, mid) > 0;
    }
    RC_ASSERT(outward >= mesh.triangles.size() * 95 / 100);
    const MeshStats stats = mesh_stats(mesh);
    RC_ASSERT(stats.signed_volume > 0);
    RC_ASSERT(std::fabs(stats.signed_volume - grid.volume()) <= 0.2 * grid.volume());
  }
}

DISTGRID_PROPERTY(ContourMarchingCubes, verticesLieOnGridEdgesWhereTheInterpolatedValueIsZero, 60) {
  const GridCase g = *contour_grid();
  const Grid<double> grid = g.build<double>();
  const TriangleMesh mesh = contour(grid, options_for(Mesher::marching_cubes)).mesh;
  for (const Vec3& p : mesh.positions) {
    int off_lattice = 0;
    for (double x : p) off_lattice += std::floor(x / g.h) != x / g.h;
    RC_ASSERT(off_lattice <= 1);
    RC_ASSERT(std::fabs(grid.sample(p[0], p[1], p[2])) <= 1e-12 * g.h * 64);
  }
}

DISTGRID_PROPERTY(ContourSurfaceNets, verticesLieInSignChangingCells, 60) {
  const GridCase g = *contour_grid();
  const Grid<double> grid = g.build<double>();
  const TriangleMesh mesh = contour(grid, options_for(Mesher::surface_nets)).mesh;
  for (const Vec3& p : mesh.positions) {
    // Candidate cells: the one holding p, and the one below on an axis where p is on a node plane.
    std::array<std::array<std::int64_t, 2>, 3> candidates{};
    for (std::size_t a = 0; a < 3; ++a) {
      const double u = p[a] / g.h;
      const auto cell = static_cast<std::int64_t>(std::floor(u));
      candidates[a] = {cell, u == std::floor(u) ? cell - 1 : cell};
    }
    bool found = false;
    for (int choice = 0; choice < 8 && !found; ++choice) {
      const auto pick = [choice](int bit) { return static_cast<std::size_t>((choice >> bit) & 1); };
      const std::int64_t i = candidates[0][pick(0)], j = candidates[1][pick(1)], k = candidates[2][pick(2)];
      int count = 0;
      for (int n = 0; n < 8; ++n) count += grid.node(i + (n & 1), j + ((n >> 1) & 1), k + (n >> 2)) < 0;
      found = count != 0 && count != 8;
    }
    RC_ASSERT(found);
  }
}

// Doubling h and every value doubles every position bit for bit; the triangles
// are the same.
DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, scalingHAndValuesByTwoScalesEveryPositionExactly, 60) {
  const GridCase g = *contour_grid();
  GridCase big = g;
  big.h = 2 * g.h;
  for (auto& brick : big.values)
    for (double& v : brick) v *= 2;
  for (const Mesher mesher : {Mesher::surface_nets, Mesher::marching_cubes}) {
    const TriangleMesh a = contour(g.build<float>(), options_for(mesher)).mesh;
    const TriangleMesh b = contour(big.build<float>(), options_for(mesher)).mesh;
    RC_ASSERT(a.triangles == b.triangles);
    RC_ASSERT(a.positions.size() == b.positions.size());
    for (std::size_t v = 0; v < a.positions.size(); ++v)
      for (std::size_t k = 0; k < 3; ++k) RC_ASSERT(b.positions[v][k] == 2 * a.positions[v][k]);
  }
}

// Moving every brick by whole bricks moves the mesh: the same vertices in the same
// order, moved by 8*h*t up to the rounding of (node + t) * h, and as many
// triangles (a quad whose diagonals tie to rounding may split the other way).
DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, translatingByWholeBricksMovesTheMesh, 60) {
  const GridCase g = *contour_grid();
  const std::array<std::int64_t, 3> t{*small_brick_coordinate(500), *small_brick_coordinate(500),
                                      *small_brick_coordinate(500)};
  GridCase moved = g;
  for (auto* list : {&moved.stored, &moved.inside})
    for (BrickCoord& b : *list) b = {b.bx + t[0], b.by + t[1], b.bz + t[2]};
  for (const Mesher mesher : {Mesher::surface_nets, Mesher::marching_cubes}) {
    const TriangleMesh a = contour(g.build<float>(), options_for(mesher)).mesh;
    const TriangleMesh b = contour(moved.build<float>(), options_for(mesher)).mesh;
    RC_ASSERT(a.triangles.size() == b.triangles.size());
    RC_ASSERT(a.positions.size() == b.positions.size());
    for (std::size_t v = 0; v < a.positions.size(); ++v)
      for (std::size_t k = 0; k < 3; ++k) {
        const double shift = static_cast<double>(8 * t[k]) * g.h;
        RC_ASSERT(std::fabs(b.positions[v][k] - (a.positions[v][k] + shift)) <= 1e-12 * (std::fabs(shift) + 8));
      }
  }
}

// Mirroring the grid mirrors the surface: as many vertices and triangles, faces
// still outward, and nearly the same volume and area (a polygon in a cell, or a
// quad whose diagonals tie, may be split the other way, which moves both a little).
DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, mirroringKeepsVolumeAndArea, 60) {
  const GridCase g = *contour_grid();
  GridCase mirrored = g;
  for (std::size_t b = 0; b < g.stored.size(); ++b) {
    mirrored.stored[b].by = -g.stored[b].by - 1;
    for (int n = 0; n < kBrickNodes; ++n)
      mirrored.values[b][static_cast<std::size_t>(n ^ 56)] = g.values[b][static_cast<std::size_t>(n)];
  }
  for (auto& b : mirrored.inside) b.by = -b.by - 1;
  for (const Mesher mesher : {Mesher::surface_nets, Mesher::marching_cubes}) {
    const MeshStats a = mesh_stats(contour(g.build<float>(), options_for(mesher)).mesh);
    const MeshStats b = mesh_stats(contour(mirrored.build<float>(), options_for(mesher)).mesh);
    RC_ASSERT(b.triangles == a.triangles);
    RC_ASSERT(b.vertices == a.vertices);
    RC_ASSERT((b.signed_volume > 0) == (a.signed_volume > 0));
    RC_ASSERT(std::fabs(b.signed_volume - a.signed_volume) <= 0.05 * g.h * a.area + 1e-9);
    RC_ASSERT(std::fabs(b.area - a.area) <= 0.05 * a.area + 1e-9);
  }
}

DISTGRID_PROPERTY(ContourSurfaceNetsAndContourMarchingCubes, floatAndDoubleBricksOfFloatValuesGiveTheSameMesh, 60) {
  const GridCase g = (*contour_grid()).rounded_to_float();
  for (const Mesher mesher : {Mesher::surface_nets, Mesher::marching_cubes}) {
    const TriangleMesh a = contour(g.build<float>(), options_for(mesher)).mesh;
    const TriangleMesh b = contour(g.build<double>(), options_for(mesher)).mesh;
    RC_ASSERT(a.triangles == b.triangles);
    RC_ASSERT(a.positions == b.positions);
  }
}

}  // namespace
}  // namespace distgrid
