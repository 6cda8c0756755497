// Baking from a mesh: exact distances in the band against a brute-force minimum,
// signs against independent inside tests (convex planes, winding number), volume
// converging at second order, parity rays through corners, thread independence.
#include "distgrid/mesh_bake.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <cstring>
#include <numbers>
#include <string>
#include <vector>

#include "distgrid/closest_point.hpp"
#include "distgrid/error.hpp"
#include "distgrid/mesh_parts.hpp"
#include "support/test_meshes.hpp"

namespace distgrid {
namespace {

template <class S>
class MeshBakeTest : public ::testing::Test {};
using Storages = ::testing::Types<float, double>;
TYPED_TEST_SUITE(MeshBakeTest, Storages);

/// Distance to the nearest triangle, by trying every one.
double brute_force_distance(const PreparedMesh& mesh, const Vec3& p) {
  double best = std::numeric_limits<double>::infinity();
  for (const auto& t : mesh.triangles)
    best = std::min(best, closest_point_on_triangle(p, mesh.positions[t[0]], mesh.positions[t[1]], mesh.positions[t[2]])
                              .distance_squared);
  return std::sqrt(best);
}

/// Generalised winding number (solid angles / 4 pi): about 1 inside a closed outward mesh, 0 outside.
double winding_number(const PreparedMesh& mesh, const Vec3& p) {
  double sum = 0;
  for (const auto& t : mesh.triangles) {
    const Vec3 a = detail::sub3(mesh.positions[t[0]], p), b = detail::sub3(mesh.positions[t[1]], p),
               c = detail::sub3(mesh.positions[t[2]], p);
    const double la = std::sqrt(detail::dot3(a, a)), lb = std::sqrt(detail::dot3(b, b)), lc = std::sqrt(detail::dot3(c, c));
    const double numerator = detail::dot3(a, detail::cross3(b, c));
    const double denominator = la * lb * lc + detail::dot3(a, b) * lc + detail::dot3(a, c) * lb + detail::dot3(b, c) * la;
    sum += 2 * std::atan2(numerator, denominator);
  }
  return sum / (4 * std::numbers::pi);
}

/// Inside a convex outward mesh: behind every face plane.
bool inside_convex(const PreparedMesh& mesh, const Vec3& p) {
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    if (detail::dot3(mesh.face_normals[t], detail::sub3(p, mesh.positions[mesh.triangles[t][0]])) >= 0) return false;
  return true;
}

struct Check {
  std::size_t nodes = 0, sign_errors = 0;
  double worst_in_h = 0;
};

/// Every `stride`-th node of the stored bricks against the brute-force distance and an inside test.
template <class S, class Inside>
Check check_nodes(const Grid<S>& grid, const PreparedMesh& mesh, std::size_t stride, Inside&& inside) {
  Check check;
  const double h = grid.h(), band = grid.band_width();
  const std::size_t total = grid.stored_brick_count() * kBrickNodes;
  for (std::size_t m = 0; m < total; m += stride) {
    const std::size_t slot = m / kBrickNodes, n = m % kBrickNodes;
    const BrickCoord b = brick_of(grid.stored_keys()[slot]);
    const Vec3 p{static_cast<double>(b.bx * 8 + static_cast<std::int64_t>(n & 7)) * h,
                 static_cast<double>(b.by * 8 + static_cast<std::int64_t>((n >> 3) & 7)) * h,
                 static_cast<double>(b.bz * 8 + static_cast<std::int64_t>(n >> 6)) * h};
    const double stored = static_cast<double>(grid.brick_values(slot)[n]);
    const double distance = brute_force_distance(mesh, p);
    ++check.nodes;
    if (distance < 1e-9 * h) continue;  // on the surface: no sign to check
    const bool is_inside = inside(p);
    const double expected = std::min(distance, band) * (is_inside ? -1 : 1);
    // Float storage rounds the value once: half an ulp of a float is 2^-24 relative.
    const double rounding = sizeof(S) == 4 ? std::abs(expected) * 0x1p-24 : 0;
    check.worst_in_h = std::max(check.worst_in_h, (std::abs(stored - expected) - rounding) / h);
    if ((stored < 0) != is_inside) ++check.sign_errors;
  }
  return check;
}

TYPED_TEST(MeshBakeTest, NodesInTheBandAreTheExactMinimumWithConvexSigns) {
  const MeshPart part = mesh_part("icosphere_1k");
  const PreparedMesh mesh = prepare_mesh(part.mesh, part.name);
  MeshBakeSettings settings;
  settings.h = 1.0 / 32;
  MeshBakeStats stats;
  const Grid<TypeParam> grid = bake_mesh<TypeParam>(mesh, settings, {}, &stats);
  EXPECT_EQ(stats.rows_unmarked, 0u);
  EXPECT_GT(stats.bricks_inside, 0u);
  const Check check = check_nodes(grid, mesh, 7, [&](const Vec3& p) { return inside_convex(mesh, p); });
  EXPECT_GT(check.nodes, 20000u);
  EXPECT_LE(check.worst_in_h, 1e-6);
  EXPECT_EQ(check.sign_errors, 0u);
}

TEST(MeshBake, TwentyThousandTriangleIcosphereIsExactAtOneOver128) {
  const MeshPart part = mesh_part("icosphere_20k");
  const PreparedMesh mesh = prepare_mesh(part.mesh, part.name);
  MeshBakeSettings settings;
  settings.h = 1.0 / 128;
  const Grid<double> grid = bake_mesh<double>(mesh, settings);
  const Check check = check_nodes(grid, mesh, 1999, [&](const Vec3& p) { return inside_convex(mesh, p); });
  EXPECT_GT(check.nodes, 1500u);
  EXPECT_LE(check.worst_in_h, 1e-6);
  EXPECT_EQ(check.sign_errors, 0u);
  // Second order: the volume rule's error over this surface stays well under h^2 per unit area.
  EXPECT_NEAR(grid.volume(), part.volume, 4 * std::numbers::pi * settings.h * settings.h);
}

TEST(MeshBake, ConcaveTorusSignsMatchTheWindingNumber) {
  const MeshPart part = mesh_part("torus_mesh");
  const PreparedMesh mesh = prepare_mesh(part.mesh, part.name);
  MeshBakeSettings settings;
  settings.h = 1.0 / 40;
  const Grid<double> grid = bake_mesh<double>(mesh, settings);
  const Check check = check_nodes(grid, mesh, 37, [&](const Vec3& p) { return winding_number(mesh, p) > 0.5; });
  EXPECT_GT(check.nodes, 4000u);
  EXPECT_LE(check.worst_in_h, 1e-6);
  EXPECT_EQ(check.sign_errors, 0u);
}

/// The boundary of a union of unit cubes (given by their lower corners) as a closed
/// outward mesh: a square (two triangles) wherever a cube has no neighbour.
TriangleMesh polycube(const std::vector<std::array<int, 3>>& cubes) {
  auto present = [&](std::array<int, 3> c) { return std::find(cubes.begin(), cubes.end(), c) != cubes.end(); };
  TriangleMesh mesh;
  for (const auto& cube : cubes)
    for (std::size_t a = 0; a < 3; ++a)
      for (int side : {-1, 1}) {
        std::array<int, 3> next = cube;
        next[a] += side;
        if (present(next)) continue;
        const std::size_t u = (a + 1) % 3, v = (a + 2) % 3;
        // Corners (0,0), (1,0), (1,1), (0,1) in (u, v) turn about +a; reversed for the -a side.
        std::array<std::array<int, 2>, 4> square{{{0, 0}, {1, 0}, {1, 1}, {0, 1}}};
        if (side < 0) std::swap(square[1], square[3]);
        const auto first = static_cast<std::uint32_t>(mesh.positions.size());
        for (const auto& uv : square) {
          Vec3 p{};
          p[a] = cube[a] + (side > 0 ? 1 : 0);
          p[u] = cube[u] + uv[0];
          p[v] = cube[v] + uv[1];
          mesh.positions.push_back(p);
        }
        mesh.triangles.push_back({first, first + 1, first + 2});
        mesh.triangles.push_back({first, first + 2, first + 3});
      }
  return mesh;
}

TEST(MeshBake, SignsAtConcaveEdgesAndCornersOfAPolycube) {
  // A 2x2x2 block with one cube missing: three concave edges meeting in a concave corner.
  std::vector<std::array<int, 3>> cubes;
  for (int x = 0; x < 2; ++x)
    for (int y = 0; y < 2; ++y)
      for (int z = 0; z < 2; ++z)
        if (x + y + z < 3) cubes.push_back({x, y, z});
  const PreparedMesh mesh = prepare_mesh(polycube(cubes), "polycube");
  ASSERT_TRUE(mesh.report.closed());
  ASSERT_FALSE(mesh.report.flipped);
  EXPECT_DOUBLE_EQ(mesh.report.signed_volume, 7.0);
  MeshBakeSettings settings;
  settings.h = 0.07;  // nodes near, not on, the faces and the concave edges
  const Grid<double> grid = bake_mesh<double>(mesh, settings);
  const Check check = check_nodes(grid, mesh, 1, [&](const Vec3& p) {
    const std::array<int, 3> cell{static_cast<int>(std::floor(p[0])), static_cast<int>(std::floor(p[1])),
                                  static_cast<int>(std::floor(p[2]))};
    return std::find(cubes.begin(), cubes.end(), cell) != cubes.end();
  });
  EXPECT_GT(check.nodes, 10000u);
  EXPECT_LE(check.worst_in_h, 1e-6);
  EXPECT_EQ(check.sign_errors, 0u);
}

TEST(MeshBake, SignsAtSharpEdgesAndCornersOfASlenderTetrahedron) {
  // Dihedral angles well below 90 degrees: outside an edge or corner, (p - closest)
  // can point away from one adjacent face's normal, so only the pseudo-normal is right.
  TriangleMesh tetrahedron;
  tetrahedron.positions = {{0, 0, 0}, {1, 0.1, 0.05}, {0.2, 0.35, 0.1}, {0.3, 0.1, 0.4}};
  tetrahedron.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  const PreparedMesh mesh = prepare_mesh(tetrahedron, "slender tetrahedron");
  MeshBakeSettings settings;
  settings.h = 0.02;
  const Grid<double> grid = bake_mesh<double>(mesh, settings);
  const Check check = check_nodes(grid, mesh, 1, [&](const Vec3& p) { return inside_convex(mesh, p); });
  EXPECT_GT(check.nodes, 10000u);
  EXPECT_LE(check.worst_in_h, 1e-6);
  EXPECT_EQ(check.sign_errors, 0u);
}

TEST(MeshBake, FarApartComponentsBakeLikeEachAlone) {
  // Two tetrahedra 100 apart at h = 1/16: 200^3 bricks in range, beyond the dense
  // brick map, so the hashed one is used. The offset is a whole number of bricks.
  TriangleMesh one;
  one.positions = {{0.1, 0.1, 0.1}, {0.6, 0.1, 0.1}, {0.1, 0.6, 0.1}, {0.1, 0.1, 0.6}};
  one.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  TriangleMesh two = one;
  for (std::uint32_t v = 0; v < 4; ++v) two.positions.push_back({one.positions[v][0] + 100, one.positions[v][1] + 100, one.positions[v][2] + 100});
  for (std::uint32_t t = 0; t < 4; ++t) two.triangles.push_back({one.triangles[t][0] + 4, one.triangles[t][1] + 4, one.triangles[t][2] + 4});
  MeshBakeSettings settings;
  settings.h = 1.0 / 16;
  const Grid<float> alone = bake_mesh<float>(prepare_mesh(one, "one"), settings);
  const Grid<float> both = bake_mesh<float>(prepare_mesh(two, "two"), settings);
  EXPECT_EQ(both.stored_brick_count(), 2 * alone.stored_brick_count());
  EXPECT_NEAR(both.volume(), 2 * alone.volume(), 1e-12);
  EXPECT_NEAR(alone.volume(), 0.125 / 6, 0.01);
}

TEST(MeshBake, AHollowBallBakesAsTheOuterBallLessItsCavity) {
  const TriangleMesh hollow = test_support::hollow_ball();
  const TriangleMesh outer{hollow.positions, {hollow.triangles.begin(), hollow.triangles.begin() + 1280}, {}};
  const TriangleMesh inner = test_support::reversed(
      TriangleMesh{hollow.positions, {hollow.triangles.begin() + 1280, hollow.triangles.end()}, {}});
  MeshBakeSettings settings;
  settings.h = 1.0 / 32;
  MeshBakeStats stats;
  const Grid<double> grid = bake_mesh<double>(prepare_mesh(hollow, "hollow"), settings, {}, &stats);
  EXPECT_TRUE(stats.trusted);
  const double outer_alone = bake_mesh<double>(prepare_mesh(outer, "outer"), settings).volume();
  const double inner_alone = bake_mesh<double>(prepare_mesh(inner, "inner"), settings).volume();
  // The shells lie farther apart than two bands, so each node sees one of them and the
  // cavity's nodes read the negated values of the inner ball's: the volumes subtract.
  EXPECT_NEAR(grid.volume(), outer_alone - inner_alone, 1e-9);
  EXPECT_NEAR(grid.volume(), polyhedral_volume(outer) - polyhedral_volume(inner), 0.01);
  const Vec3 centre{0.0123, -0.0311, 0.0217};
  EXPECT_EQ(grid.sample(centre[0], centre[1], centre[2]), grid.band_width());  // in the cavity: outside
  EXPECT_EQ(grid.sample(centre[0] + 0.75, centre[1], centre[2]), -grid.band_width());  // in the wall
  EXPECT_GT(grid.sample(centre[0] + 0.45, centre[1], centre[2]), 0);  // just inside the cavity's surface
}

TEST(MeshBakeEstimate, PredictsTheBricksPairsAndInsideBricksOfTheBake) {
  struct Case {
    std::string name;
    TriangleMesh mesh;
    double h;
  };
  const Case cases[] = {{"icosphere_20k", mesh_part("icosphere_20k").mesh, 1.0 / 32},
                        {"torus_mesh", mesh_part("torus_mesh").mesh, 1.0 / 64},
                        {"bunny", test_support::bunny_like(), 0.01},
                        {"icosphere_1k coarse", mesh_part("icosphere_1k").mesh, 0.25}};
  for (const Case& c : cases) {
    MeshBakeSettings settings;
    settings.h = c.h;
    MeshBakeStats stats;
    bake_mesh<float>(prepare_mesh(c.mesh, c.name), settings, {}, &stats);
    const MeshBakeEstimate e = estimate_mesh_bake(c.mesh.positions, c.mesh.triangles, c.h, 3, kMaxBrickBytes<float>);
    EXPECT_EQ(e.triangles, c.mesh.triangles.size()) << c.name;
    const auto ratio = [](std::uint64_t estimated, std::size_t actual) {
      return static_cast<double>(estimated) / static_cast<double>(actual);
    };
    EXPECT_NEAR(ratio(e.bricks, stats.bricks_computed), 1, 0.25) << c.name << ": " << e.bricks << " vs " << stats.bricks_computed;
    EXPECT_NEAR(ratio(e.pairs, stats.brick_triangle_pairs), 1, 0.3) << c.name << ": " << e.pairs << " vs " << stats.brick_triangle_pairs;
    if (stats.bricks_inside > 100) {
      EXPECT_NEAR(ratio(e.inside_bricks, stats.bricks_inside), 1, 0.3) << c.name << ": " << e.inside_bricks << " vs " << stats.bricks_inside;
    }
    EXPECT_GT(e.bytes, planned_grid_bytes(stats.bricks_computed, 0, kMaxBrickBytes<float>) / 2) << c.name;
  }
}

TEST(MeshBakeEstimate, RefusesABakeOverTheBudgetNamingItsNeedsAndSkipsUnusableTriangles) {
  const TriangleMesh sphere = mesh_part("icosphere_1k").mesh;
  MeshBakeSettings settings;
  settings.h = 1.0 / 64;
  const MeshBakeEstimate e = estimate_mesh_bake(sphere.positions, sphere.triangles, settings.h, 3, kMaxBrickBytes<float>);
  settings.max_memory_bytes = e.bytes - 1;
  try {
    bake_mesh<float>(prepare_mesh(sphere, "ball"), settings);
    ADD_FAILURE() << "no error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::toolarge);
    const std::string message = error.what();
    EXPECT_EQ(message.rfind("ball at h = 0.015625: about " + std::to_string(e.bricks) + " bricks to compute, ", 0), 0u)
        << message;
    EXPECT_NE(message.find(std::to_string(e.pairs) + " triangle-brick pairs (1280 triangles)"), std::string::npos) << message;
  }
  settings.max_memory_bytes = 2 * e.bytes;
  EXPECT_GT(bake_mesh<float>(prepare_mesh(sphere, "ball"), settings).stored_brick_count(), 0u);
  // Triangles with an index out of range or a corner that is not finite are left out.
  TriangleMesh bad = sphere;
  bad.triangles.push_back({0, 1, 99999});
  bad.positions.push_back({std::numeric_limits<double>::infinity(), 0, 0});
  bad.triangles.push_back({0, 1, static_cast<std::uint32_t>(bad.positions.size() - 1)});
  EXPECT_EQ(estimate_mesh_bake(bad.positions, bad.triangles, settings.h, 3, kMaxBrickBytes<float>).bytes, e.bytes);
}

TEST(MeshBake, VolumeConvergesAtSecondOrderInH) {
  const MeshPart part = mesh_part("torus_mesh");
  const PreparedMesh mesh = prepare_mesh(part.mesh, part.name);
  double previous_error = 0;
  for (double h : {1.0 / 16, 1.0 / 32, 1.0 / 64}) {
    MeshBakeSettings settings;
    settings.h = h;
    const double error = std::abs(bake_mesh<float>(mesh, settings).volume() - part.volume);
    // Halving h should cut a second-order error by about 4; allow down to 2.5 for the odd fluctuation.
    if (previous_error != 0) {
      EXPECT_LT(error, previous_error / 2.5) << "h = " << h;
    }
    previous_error = error;
  }
}

/// Bakes `mesh` with 1, 2 and 3 threads and expects the same grid and counts bit for bit.
void expect_same_for_any_thread_count(const PreparedMesh& mesh, double h) {
  MeshBakeSettings settings;
  settings.h = h;
  settings.threads = 1;
  MeshBakeStats one_stats;
  const Grid<float> one = bake_mesh<float>(mesh, settings, {}, &one_stats);
  ASSERT_GT(one.stored_brick_count(), 0u);
  for (unsigned threads : {2u, 3u}) {
    settings.threads = threads;
    MeshBakeStats stats;
    const Grid<float> other = bake_mesh<float>(mesh, settings, {}, &stats);
    ASSERT_EQ(one.stored_keys(), other.stored_keys()) << threads << " threads";
    ASSERT_EQ(one.inside_keys(), other.inside_keys()) << threads << " threads";
    EXPECT_EQ(std::memcmp(one.brick_values(0), other.brick_values(0), one.stored_brick_count() * kBrickNodes * sizeof(float)), 0)
        << threads << " threads";
    EXPECT_EQ(one_stats.brick_triangle_pairs, stats.brick_triangle_pairs) << threads << " threads";
    EXPECT_EQ(one_stats.rows, stats.rows) << threads << " threads";
    EXPECT_EQ(one_stats.rows_retried, stats.rows_retried) << threads << " threads";
    EXPECT_EQ(one_stats.bricks_beyond_band, stats.bricks_beyond_band) << threads << " threads";
  }
}

TEST(MeshBake, ResultsDoNotDependOnTheThreadCount) {
  const MeshPart part = mesh_part("torus_mesh");
  expect_same_for_any_thread_count(prepare_mesh(part.mesh, part.name), 1.0 / 48);
}

TEST(MeshBake, ResultsDoNotDependOnTheThreadCountWithAHashedBrickRange) {
  // Two 5 120-triangle spheres 200 apart: a brick range beyond the dense map, and
  // several chunks of triangles pairing with bricks.
  TriangleMesh both = icosphere(4, {0, 0, 0}, 1);
  const TriangleMesh far = icosphere(4, {200, 200, 200}, 1);
  const auto first = static_cast<std::uint32_t>(both.positions.size());
  both.positions.insert(both.positions.end(), far.positions.begin(), far.positions.end());
  for (const auto& t : far.triangles) both.triangles.push_back({t[0] + first, t[1] + first, t[2] + first});
  expect_same_for_any_thread_count(prepare_mesh(both, "two spheres"), 1.0 / 32);
}

TEST(MeshBake, ParityRayThroughCornersIsRetriedAndStillFindsInsideBricks) {
  // An octahedron whose two x corners lie exactly on the first parity ray of brick row (0, 0).
  const double h = 1.0 / 16, s = 2;
  const double y0 = (0.0 + 3.5 + 1.2345e-3) * h, z0 = (0.0 + 3.5 + 2.71828e-3) * h;
  TriangleMesh octahedron;
  octahedron.positions = {{-s, y0, z0}, {s, y0, z0}, {0, y0 - s, z0}, {0, y0 + s, z0}, {0, y0, z0 - s}, {0, y0, z0 + s}};
  // Corners 0/1: -x/+x, 2/3: -y/+y, 4/5: -z/+z; each face outward.
  octahedron.triangles = {{1, 3, 5}, {1, 5, 2}, {1, 2, 4}, {1, 4, 3}, {0, 5, 3}, {0, 2, 5}, {0, 4, 2}, {0, 3, 4}};
  const PreparedMesh mesh = prepare_mesh(octahedron, "octahedron");
  ASSERT_FALSE(mesh.report.flipped);
  MeshBakeSettings settings;
  settings.h = h;
  MeshBakeStats stats;
  const Grid<float> grid = bake_mesh<float>(mesh, settings, {}, &stats);
  EXPECT_GE(stats.rows_retried, 1u);
  EXPECT_EQ(stats.rows_unmarked, 0u);
  EXPECT_TRUE(grid.is_inside(brick_key(0, 0, 0)));
  EXPECT_TRUE(grid.is_inside(brick_key(-1, 0, 0)));
  EXPECT_NEAR(grid.volume(), 4 * s * s * s / 3, 0.02);
}

TEST(MeshBake, RefusesBadVoxelSizeAndBand) {
  const PreparedMesh mesh = prepare_mesh(mesh_part("icosphere_1k").mesh, "icosphere_1k");
  const double nan = std::numeric_limits<double>::quiet_NaN(), infinity = std::numeric_limits<double>::infinity();
  for (const auto& [h, band] : {std::pair{0.0, 3.0}, {-1.0, 3.0}, {nan, 3.0}, {0.1, 0.5}, {0.1, infinity}}) {
    MeshBakeSettings settings;
    settings.h = h;
    settings.band = band;
    try {
      bake_mesh<float>(mesh, settings);
      ADD_FAILURE() << "no error for h = " << h << ", band = " << band;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::badarg);
    }
  }
}

}  // namespace
}  // namespace distgrid
