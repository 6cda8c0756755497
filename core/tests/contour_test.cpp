// Contour meshes: closed, outward, seamless across bricks (brick-wise output equals
// the dense reference bit for bit), right topology, converging volume, and the
// awkward inputs (exact zeros, -0, brick corners, thin slabs, noise).
#include "distgrid/contour.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <numbers>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "distgrid/detail/contour_cases.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/mesh_stats.hpp"
#include "support/node_grids.hpp"

namespace distgrid {
namespace {

template <class S>
Grid<S> bake_part(const std::string& name, double h) {
  const Field<S> field = compile_field<S>(default_part(name).spec);
  BakeSettings settings;
  settings.h = h;
  settings.threads = 1;
  return bake(field, settings);
}

/// Stored bricks b0..b1 on each axis with node values f(i, j, k), clamped to the band.
template <class S, class F>
Grid<S> grid_from_nodes(double h, std::int64_t b0, std::int64_t b1, F f) {
  return test_support::grid_from_nodes<S>(h, 3, b0, b1, f);
}

/// Triangles as their corners' positions and normals, each rotated to start at its
/// smallest corner (keeping the orientation), sorted: equal meshes give equal lists.
std::vector<std::array<std::uint64_t, 18>> canonical(const TriangleMesh& mesh) {
  std::vector<std::array<std::uint64_t, 18>> out;
  for (const auto& t : mesh.triangles) {
    std::array<std::array<std::uint64_t, 6>, 3> corners{};
    for (std::size_t k = 0; k < 3; ++k)
      for (std::size_t a = 0; a < 3; ++a) {
        corners[k][a] = std::bit_cast<std::uint64_t>(mesh.positions[t[k]][a]);
        corners[k][3 + a] = std::bit_cast<std::uint64_t>(mesh.normals[t[k]][a]);
      }
    const auto first = static_cast<std::size_t>(std::min_element(corners.begin(), corners.end()) - corners.begin());
    std::array<std::uint64_t, 18> row{};
    for (std::size_t k = 0; k < 3; ++k)
      std::copy(corners[(first + k) % 3].begin(), corners[(first + k) % 3].end(), row.begin() + static_cast<std::ptrdiff_t>(6 * k));
    out.push_back(row);
  }
  std::sort(out.begin(), out.end());
  return out;
}

/// Every check that holds for any grid: brick-wise equals dense, no corner is shared
/// by two vertices, and (where asked) closed, manifold, outward.
template <class S>
MeshStats check_mesh(const Grid<S>& grid, const ContourOptions& options, bool expect_closed, const std::string& what) {
  const ContourResult bricks = contour(grid, options);
  const ContourResult dense = detail::contour_dense(grid, options);
  EXPECT_EQ(bricks.mesh.positions.size(), dense.mesh.positions.size()) << what;
  EXPECT_EQ(bricks.mesh.triangles.size(), dense.mesh.triangles.size()) << what;
  EXPECT_TRUE(canonical(bricks.mesh) == canonical(dense.mesh)) << what << ": brick-wise mesh differs from dense";
  EXPECT_EQ(bricks.split_cells, dense.split_cells) << what;
  const MeshStats stats = mesh_stats(bricks.mesh);
  EXPECT_EQ(stats.unused_vertices, 0u) << what;
  if (expect_closed) {
    EXPECT_TRUE(stats.closed_manifold())
        << what << ": boundary " << stats.boundary_edges << ", >2 " << stats.non_manifold_edges << ", misoriented "
        << stats.misoriented_edges << ", non-manifold vertices " << stats.non_manifold_vertices;
    if (!bricks.mesh.triangles.empty()) {
      EXPECT_GT(stats.signed_volume, 0) << what;
    }
  }
  return stats;
}

template <class S>
class ContourTest : public ::testing::Test {};
using Storages = ::testing::Types<float, double>;
TYPED_TEST_SUITE(ContourTest, Storages);

const ContourOptions kSurfaceNets{Mesher::surface_nets, false};
const ContourOptions kManifoldNets{Mesher::surface_nets, true};
const ContourOptions kMarchingCubes{Mesher::marching_cubes, false};

TEST(CellCases, everyCrossingEdgeLiesOnExactlyOneLoopWhicheverWayAmbiguousFacesAreRead) {
  for (unsigned index = 0; index < 256 * 64; ++index) {
    const unsigned pattern = index / 64, join = index % 64;
    const detail::CellCase& cell = join == 0 ? detail::kCellCases[pattern] : detail::cell_case_joined(pattern, join);
    std::array<int, 12> seen{};
    for (std::size_t loop = 0; loop < cell.loop_count; ++loop) {
      EXPECT_GE(cell.loop_size[loop], 3) << pattern;
      for (std::size_t k = 0; k < cell.loop_size[loop]; ++k) ++seen[cell.loop_edges[cell.loop_begin[loop] + k]];
    }
    for (std::size_t e = 0; e < 12; ++e) {
      const bool crosses = ((pattern >> detail::kEdgeCorners[e][0]) & 1u) != ((pattern >> detail::kEdgeCorners[e][1]) & 1u);
      EXPECT_EQ(seen[e], crosses ? 1 : 0) << "pattern " << pattern << " join " << join << " edge " << e;
      EXPECT_EQ(cell.piece_of_edge[e] >= 0, crosses) << pattern;
    }
  }
  // One corner: a triangle. Two diagonal corners of a face: cut off separately.
  EXPECT_EQ(detail::kCellCases[0b1].loop_count, 1);
  EXPECT_EQ(detail::kCellCases[0b1].loop_size[0], 3);
  EXPECT_EQ(detail::kCellCases[0b1001].loop_count, 2);
  // Read the other way (face -z joined), the same two corners make one piece.
  EXPECT_EQ(detail::cell_case_joined(0b1001, 1u << 4).loop_count, 1);
}

TEST(Mesher, namesRoundTripAndUnknownIsBadarg) {
  for (Mesher m : {Mesher::surface_nets, Mesher::marching_cubes}) EXPECT_EQ(mesher_from_name(mesher_name(m)), m);
  try {
    (void)mesher_from_name("dual-contouring");
    FAIL() << "accepted";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badarg);
    EXPECT_NE(std::string(e.what()).find("dual-contouring"), std::string::npos);
  }
}

TYPED_TEST(ContourTest, emptyGridGivesEmptyMesh) {
  Grid<TypeParam> grid(0.125, 3);
  EXPECT_TRUE(contour(grid).mesh.triangles.empty());
  EXPECT_TRUE(contour(grid, kMarchingCubes).mesh.triangles.empty());
}

/// Stored bricks b and c, each holding a small ball.
template <class S>
Grid<S> two_balls(double h, const std::array<std::int64_t, 3>& b, const std::array<std::int64_t, 3>& c) {
  Grid<S> grid(h, 3);
  for (const auto& at : {b, c}) {
    S* values = grid.add_brick(brick_key(at[0], at[1], at[2]));
    for (int n = 0; n < kBrickNodes; ++n) {
      const double x = (n & 7) - 3.5, y = ((n >> 3) & 7) - 3.25, z = (n >> 6) - 3.75;
      values[n] = static_cast<S>(std::min((std::sqrt(x * x + y * y + z * z) - 2.6) * h, 3 * h));
    }
  }
  return grid;
}

void expect_same_result(const ContourResult& a, const ContourResult& b, const std::string& what) {
  SCOPED_TRACE(what);
  EXPECT_EQ(a.mesh.positions, b.mesh.positions);
  EXPECT_EQ(a.mesh.normals, b.mesh.normals);
  EXPECT_EQ(a.mesh.triangles, b.mesh.triangles);
  EXPECT_EQ(a.bricks_meshed, b.bricks_meshed);
  EXPECT_EQ(a.cells_visited, b.cells_visited);
  EXPECT_EQ(a.split_cells, b.split_cells);
}

TYPED_TEST(ContourTest, aScratchReusedAcrossGridsGivesTheFreshResult) {
  // Grids with and without the brick lookup box, larger before smaller, both
  // storages and an empty grid, through one scratch and one result.
  const Grid<TypeParam> sphere = bake_part<TypeParam>("sphere", 1.0 / 16);
  const Grid<TypeParam> far = two_balls<TypeParam>(0.125, {-60000, 0, 0}, {60000, 200, 3});
  const Grid<TypeParam> torus = bake_part<TypeParam>("torus", 1.0 / 16);
  const Grid<TypeParam> empty(0.125, 3);
  const Grid<float> torus_float = bake_part<float>("torus", 1.0 / 16);
  const Grid<double> sphere_double = bake_part<double>("sphere", 1.0 / 16);
  ContourScratch scratch;
  ContourResult reused;
  for (const ContourOptions& options : {kSurfaceNets, kManifoldNets, kMarchingCubes}) {
    const std::string mode = std::string(mesher_name(options.mesher)) + (options.manifold ? " manifold" : "");
    for (const auto& [grid, name] : {std::pair{&sphere, "sphere"}, {&far, "far apart"}, {&torus, "torus"}, {&empty, "empty"},
                                     {&sphere, "sphere again"}}) {
      contour(*grid, options, reused, scratch);
      expect_same_result(reused, contour(*grid, options), mode + ", " + name);
    }
    contour(torus_float, options, reused, scratch);
    expect_same_result(reused, contour(torus_float, options), mode + ", float torus");
    contour(sphere_double, options, reused, scratch);
    expect_same_result(reused, contour(sphere_double, options), mode + ", double sphere");
    // A scratch moved from starts afresh; the one moved to carries on.
    ContourScratch moved = std::move(scratch);
    contour(torus, options, reused, scratch);
    expect_same_result(reused, contour(torus, options), mode + ", torus, moved-from scratch");
    contour(sphere, options, reused, moved);
    expect_same_result(reused, contour(sphere, options), mode + ", sphere, moved-to scratch");
  }
}

TYPED_TEST(ContourTest, everyThreadCountGivesTheSameOutputBitForBit) {
  // The default parts at two h (at the finer one each slab spans several x planes of
  // bricks), bricks far apart (no lookup box) and noise with inside bricks: one, two
  // and three threads, fresh and through one reused result and scratch, give the same
  // positions, normals, triangles in the same order, and the same counters.
  std::vector<std::pair<std::string, Grid<TypeParam>>> grids;
  for (const char* part : {"sphere", "torus", "rotated_box", "bracket", "gyroid"})
    for (double h : {1.0 / 16, 1.0 / 61}) grids.emplace_back(std::string(part) + " h " + std::to_string(h), bake_part<TypeParam>(part, h));
  grids.emplace_back("far apart", two_balls<TypeParam>(0.125, {-60000, 0, 0}, {60000, 200, 3}));
  std::mt19937_64 random(20261201);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const double h = 0.125;
  Grid<TypeParam> noise = grid_from_nodes<TypeParam>(h, -2, 1, [&](std::int64_t, std::int64_t, std::int64_t) { return uniform(random) * h; });
  noise.add_inside(brick_key(2, 0, 0));
  noise.add_inside(brick_key(-3, 1, -1));
  grids.emplace_back("noise", std::move(noise));
  ContourScratch scratch;
  ContourResult reused;
  for (const auto& [name, grid] : grids)
    for (ContourOptions options : {kSurfaceNets, kManifoldNets, kMarchingCubes}) {
      const std::string what = name + ", " + std::string(mesher_name(options.mesher)) + (options.manifold ? " manifold" : "");
      options.threads = 1;
      const ContourResult one = contour(grid, options);
      ASSERT_FALSE(one.mesh.triangles.empty()) << what;
      for (unsigned threads : {2u, 3u}) {
        options.threads = threads;
        expect_same_result(contour(grid, options), one, what + ", " + std::to_string(threads) + " threads");
        contour(grid, options, reused, scratch);
        expect_same_result(reused, one, what + ", " + std::to_string(threads) + " threads, reused");
      }
      options.threads = 1;
      contour(grid, options, reused, scratch);
      expect_same_result(reused, one, what + ", 1 thread, reused");
    }
}

TYPED_TEST(ContourTest, meshingIntoAReusedResultGivesTheFreshResult) {
  // The result passed in holds another grid's larger mesh and other counters; all of
  // it is replaced, in every mode, and an empty grid empties it.
  const Grid<TypeParam> torus = bake_part<TypeParam>("torus", 1.0 / 16);
  const Grid<TypeParam> sphere = bake_part<TypeParam>("sphere", 1.0 / 16);
  for (const ContourOptions& options : {kSurfaceNets, kManifoldNets, kMarchingCubes}) {
    ContourResult reused = contour(sphere, options);
    const ContourResult fresh = contour(torus, options);
    ASSERT_LT(fresh.mesh.positions.size(), reused.mesh.positions.size());
    contour(torus, options, reused);
    expect_same_result(reused, fresh, "torus after sphere");
    contour(Grid<TypeParam>(0.125, 3), options, reused);
    EXPECT_TRUE(reused.mesh.positions.empty() && reused.mesh.normals.empty() && reused.mesh.triangles.empty());
    EXPECT_EQ(reused.bricks_meshed, 0u);
  }
}

TYPED_TEST(ContourTest, defaultPartsAreClosedOutwardSeamlessWithTheRightTopology) {
  struct Case {
    const char* part;
    double h;
    std::int64_t euler;  // 1 = do not check (a lattice's genus is not fixed here)
  };
  for (const Case& c : {Case{"sphere", 1.0 / 16, 2}, Case{"torus", 1.0 / 32, 0}, Case{"rotated_box", 1.0 / 16, 2},
                        Case{"bracket", 1.0 / 16, -2}}) {
    const Grid<TypeParam> grid = bake_part<TypeParam>(c.part, c.h);
    for (const ContourOptions& options : {kSurfaceNets, kManifoldNets, kMarchingCubes}) {
      const std::string what = std::string(c.part) + " " + std::string(mesher_name(options.mesher)) +
                               (options.manifold ? " manifold" : "");
      // Plain surface nets are closed and manifold unless a cell holds two pieces of
      // surface; then the shared vertex must be reported as non-manifold.
      const bool split = contour(grid, options).split_cells > 0;
      const bool plain_nets = options.mesher == Mesher::surface_nets && !options.manifold;
      const MeshStats stats = check_mesh(grid, options, !(plain_nets && split), what);
      if (plain_nets && split) {
        EXPECT_GT(stats.non_manifold_vertices, 0u) << what;
        EXPECT_EQ(stats.boundary_edges, 0u) << what;
        continue;
      }
      EXPECT_EQ(stats.euler_characteristic, c.euler) << what;
      EXPECT_EQ(stats.degenerate_triangles, 0u) << what;
      const double volume = default_part(c.part).volume;
      EXPECT_NEAR(stats.signed_volume, volume, 0.05 * volume) << what;
    }
  }
}

TYPED_TEST(ContourTest, gyroidIsSeamlessAndClosedInManifoldMode) {
  const Grid<TypeParam> grid = bake_part<TypeParam>("gyroid", 1.0 / 32);
  check_mesh(grid, kManifoldNets, true, "gyroid manifold nets");
  check_mesh(grid, kMarchingCubes, true, "gyroid marching cubes");
  check_mesh(grid, kSurfaceNets, false, "gyroid surface nets");
}

TYPED_TEST(ContourTest, surfaceNetsVerticesLieInSignChangingCells) {
  const Grid<TypeParam> grid = bake_part<TypeParam>("torus", 1.0 / 16);
  const double h = grid.h();
  const ContourResult result = contour(grid);
  ASSERT_FALSE(result.mesh.positions.empty());
  for (const auto& p : result.mesh.positions) {
    // The cell is floor(p / h), or the one below on an axis where p sits on a node plane.
    bool found = false;
    std::array<std::int64_t, 3> base{};
    for (std::size_t a = 0; a < 3; ++a) base[a] = static_cast<std::int64_t>(std::floor(p[a] / h));
    for (int d = 0; d < 8 && !found; ++d) {
      std::array<std::int64_t, 3> cell{base[0] - (d & 1), base[1] - ((d >> 1) & 1), base[2] - ((d >> 2) & 1)};
      bool inside_box = true;
      for (std::size_t a = 0; a < 3; ++a)
        inside_box &= static_cast<double>(cell[a]) * h <= p[a] && p[a] <= static_cast<double>(cell[a] + 1) * h;
      if (!inside_box) continue;
      int inside_corners = 0;
      for (int c = 0; c < 8; ++c)
        inside_corners += grid.node(cell[0] + (c & 1), cell[1] + ((c >> 1) & 1), cell[2] + ((c >> 2) & 1)) < 0;
      found = inside_corners > 0 && inside_corners < 8;
    }
    EXPECT_TRUE(found) << p[0] << " " << p[1] << " " << p[2];
  }
}

TYPED_TEST(ContourTest, sphereVolumeConvergesAtSecondOrder) {
  const double exact = default_part("sphere").volume;
  for (const ContourOptions& options : {kSurfaceNets, kMarchingCubes}) {
    std::vector<double> errors;
    for (double h : {1.0 / 8, 1.0 / 16, 1.0 / 32}) {
      const Grid<TypeParam> grid = bake_part<TypeParam>("sphere", h);
      errors.push_back(std::abs(mesh_stats(contour(grid, options).mesh).signed_volume - exact));
    }
    // Second order: the error quarters as h halves; allow for the irregular lattice.
    EXPECT_LT(errors[1], errors[0] / 2.8) << mesher_name(options.mesher);
    EXPECT_LT(errors[2], errors[1] / 2.8) << mesher_name(options.mesher);
  }
}

TYPED_TEST(ContourTest, planeThroughNodesAndBrickFacesGivesAFlatClosedBox) {
  // A cube whose faces lie exactly on node planes at brick faces: values 0 on the
  // faces (outside by the rule), a box of 16 x 16 x 16 voxels from node 0 to 16.
  const double h = 0.125;
  const auto box = [h](std::int64_t i, std::int64_t j, std::int64_t k) {
    const double dx = std::max(static_cast<double>(-i), static_cast<double>(i - 16));
    const double dy = std::max(static_cast<double>(-j), static_cast<double>(j - 16));
    const double dz = std::max(static_cast<double>(-k), static_cast<double>(k - 16));
    return std::max({dx, dy, dz}) * h;
  };
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(h, -1, 2, box);
  for (const ContourOptions& options : {kSurfaceNets, kManifoldNets, kMarchingCubes}) {
    const MeshStats stats = check_mesh(grid, options, true, "box on brick faces");
    EXPECT_EQ(stats.euler_characteristic, 2);
    // Nodes at value 0 count as outside, so the inside is nodes 1..15: the crossings sit
    // on the zero nodes and the mesh is the cube from 1 to 16 voxels... except where
    // the faces meet; at least the volume must lie between the two node boxes.
    EXPECT_GT(stats.signed_volume, std::pow(14 * h, 3));
    EXPECT_LE(stats.signed_volume, std::pow(16 * h, 3));
  }
}

TYPED_TEST(ContourTest, minusZeroAndPlusZeroAreBothOutside) {
  const double h = 0.25;
  for (double zero : {0.0, -0.0}) {
    // A ball of one inside node at the origin with its six neighbours at +-0.
    const auto f = [h, zero](std::int64_t i, std::int64_t j, std::int64_t k) {
      const std::int64_t r = std::abs(i) + std::abs(j) + std::abs(k);
      return r == 0 ? -h : (r == 1 ? zero : h);
    };
    const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(h, -1, 0, f);
    const ContourResult sn = contour(grid);
    const ContourResult mc = contour(grid, kMarchingCubes);
    // Only the origin is inside: marching cubes crosses its six edges at the zero nodes.
    EXPECT_EQ(mc.mesh.positions.size(), 6u) << zero;
    EXPECT_EQ(mc.mesh.triangles.size(), 8u) << zero;
    for (const auto& p : mc.mesh.positions) EXPECT_DOUBLE_EQ(std::abs(p[0]) + std::abs(p[1]) + std::abs(p[2]), h);
    EXPECT_EQ(sn.mesh.positions.size(), 8u) << zero;
    check_mesh(grid, kSurfaceNets, true, "zeros sn");
    check_mesh(grid, kMarchingCubes, true, "zeros mc");
  }
}

TYPED_TEST(ContourTest, thinSlabOneNodeThickIsTwoClosedSheets) {
  const double h = 0.125;
  // Inside only on the node plane k = 3, within a square: the slab is thinner than a voxel.
  const auto f = [h](std::int64_t i, std::int64_t j, std::int64_t k) {
    const bool in_square = i >= 2 && i <= 12 && j >= 2 && j <= 12;
    return (k == 3 && in_square) ? -0.25 * h : 0.75 * h;
  };
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(h, 0, 1, f);
  for (const ContourOptions& options : {kSurfaceNets, kManifoldNets, kMarchingCubes}) {
    const MeshStats stats = check_mesh(grid, options, true, "thin slab");
    EXPECT_EQ(stats.euler_characteristic, 2);
    EXPECT_EQ(stats.degenerate_triangles, 0u);
  }
}

TYPED_TEST(ContourTest, insideBrickNextToAbsentBricksIsEnclosed) {
  Grid<TypeParam> grid(0.125, 3);
  grid.add_inside(brick_key(2, -1, 0));
  for (const ContourOptions& options : {kSurfaceNets, kManifoldNets, kMarchingCubes}) {
    const MeshStats stats = check_mesh(grid, options, true, "lone inside brick");
    EXPECT_EQ(stats.euler_characteristic, 2);
  }
  // Next to a stored brick of positive values as well: still one closed surface.
  TypeParam* values = grid.add_brick(brick_key(3, -1, 0));
  for (int n = 0; n < kBrickNodes; ++n) values[n] = static_cast<TypeParam>(0.01 * (n % 7) + 0.001);
  for (const ContourOptions& options : {kSurfaceNets, kManifoldNets, kMarchingCubes})
    EXPECT_EQ(check_mesh(grid, options, true, "inside brick and stored brick").euler_characteristic, 2);
}

TYPED_TEST(ContourTest, noiseMakesNonManifoldNetsThatTheManifoldModeSplits) {
  std::mt19937_64 random(20261201);
  std::uniform_real_distribution<double> uniform(-1, 1);
  const double h = 0.125;
  const auto noise = [&](std::int64_t, std::int64_t, std::int64_t) { return uniform(random) * h; };
  const Grid<TypeParam> grid = grid_from_nodes<TypeParam>(h, -1, 0, noise);
  const MeshStats plain = check_mesh(grid, kSurfaceNets, false, "noise nets");
  EXPECT_GT(contour(grid).split_cells, 0u);
  EXPECT_GT(plain.non_manifold_vertices, 0u);
  const MeshStats split = check_mesh(grid, kManifoldNets, true, "noise manifold nets");
  EXPECT_EQ(split.non_manifold_vertices, 0u);
  EXPECT_GT(split.vertices, plain.vertices);
  check_mesh(grid, kMarchingCubes, true, "noise marching cubes");
}

TYPED_TEST(ContourTest, randomSparseGridsAreSeamlessAndClosed) {
  // Random layouts of stored, inside and absent bricks in a 4 x 4 x 4 block, stored
  // bricks holding a smooth field plus noise: brick-wise equals dense, and marching
  // cubes and manifold nets are closed and manifold wherever the bricks meet.
  const double h = 0.125;
  for (std::uint64_t seed = 1; seed <= 6; ++seed) {
    std::mt19937_64 random(seed);
    std::uniform_int_distribution<int> kind(0, 3);
    std::uniform_real_distribution<double> uniform(-1, 1);
    Grid<TypeParam> grid(h, 3);
    const double wobble = seed % 2 == 0 ? 0.1 : 1.5;  // smooth or rough
    for (std::int64_t bz = -2; bz < 2; ++bz)
      for (std::int64_t by = -2; by < 2; ++by)
        for (std::int64_t bx = -2; bx < 2; ++bx) {
          const int k = kind(random);
          if (k == 0) continue;  // absent
          if (k == 1) {
            grid.add_inside(brick_key(bx, by, bz));
            continue;
          }
          TypeParam* values = grid.add_brick(brick_key(bx, by, bz));
          for (int n = 0; n < kBrickNodes; ++n) {
            const double x = static_cast<double>(bx * 8 + (n & 7)), y = static_cast<double>(by * 8 + ((n >> 3) & 7)),
                         z = static_cast<double>(bz * 8 + (n >> 6));
            const double smooth = (std::sqrt(x * x + y * y + z * z) - 12) * h;
            values[n] = static_cast<TypeParam>(std::clamp(smooth + wobble * h * uniform(random), -3 * h, 3 * h));
          }
        }
    const std::string what = "seed " + std::to_string(seed);
    check_mesh(grid, kSurfaceNets, false, what + " nets");
    check_mesh(grid, kManifoldNets, true, what + " manifold nets");
    check_mesh(grid, kMarchingCubes, true, what + " marching cubes");
  }
}

TYPED_TEST(ContourTest, bricksFarApartMeshLikeBricksCloseTogether) {
  // Bricks spread over more than 2^24 brick positions take the path without a dense
  // brick table; each holds a small ball, so the mesh is two spheres either way.
  const double h = 0.125;
  const Grid<TypeParam> near = two_balls<TypeParam>(h, {0, 0, 0}, {2, 0, 0});
  const Grid<TypeParam> far = two_balls<TypeParam>(h, {-60000, 0, 0}, {60000, 200, 3});
  for (const ContourOptions& options : {kSurfaceNets, kMarchingCubes}) {
    const MeshStats a = mesh_stats(contour(near, options).mesh);
    const MeshStats b = mesh_stats(contour(far, options).mesh);
    EXPECT_TRUE(a.closed_manifold() && b.closed_manifold());
    EXPECT_EQ(a.euler_characteristic, 4);
    EXPECT_EQ(b.euler_characteristic, 4);
    EXPECT_EQ(a.vertices, b.vertices);
    EXPECT_EQ(a.triangles, b.triangles);
    EXPECT_NEAR(a.area, b.area, 1e-9 * a.area);
  }
}

TYPED_TEST(ContourTest, facesPointOutwardsAlongTheGradient) {
  const Grid<TypeParam> grid = bake_part<TypeParam>("sphere", 1.0 / 16);
  for (const ContourOptions& options : {kSurfaceNets, kMarchingCubes}) {
    const ContourResult result = contour(grid, options);
    std::size_t agree = 0;
    for (const auto& t : result.mesh.triangles) {
      const auto& a = result.mesh.positions[t[0]];
      const auto& b = result.mesh.positions[t[1]];
      const auto& c = result.mesh.positions[t[2]];
      const std::array<double, 3> u{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
      const std::array<double, 3> n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
      const auto& vn = result.mesh.normals[t[0]];
      agree += n[0] * vn[0] + n[1] * vn[1] + n[2] * vn[2] > 0;
      // Vertex normals are unit vectors.
      EXPECT_NEAR(std::hypot(vn[0], vn[1], vn[2]), 1.0, 1e-12);
    }
    EXPECT_EQ(agree, result.mesh.triangles.size()) << mesher_name(options.mesher);
  }
}

}  // namespace
}  // namespace distgrid
