// Welding, the validation report, openmesh errors, and the pseudo-normals.
#include "distgrid/mesh_prepare.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

#include "distgrid/error.hpp"
#include "distgrid/mesh_parts.hpp"

namespace distgrid {
namespace {

TriangleMesh tetrahedron() {
  TriangleMesh m;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  m.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};
  return m;
}

/// The same tetrahedron as a triangle soup: every triangle has its own corners.
TriangleMesh soup(const TriangleMesh& m) {
  TriangleMesh out;
  for (const auto& t : m.triangles) {
    const auto first = static_cast<std::uint32_t>(out.positions.size());
    for (std::uint32_t c : t) out.positions.push_back(m.positions[c]);
    out.triangles.push_back({first, first + 1, first + 2});
  }
  return out;
}

ErrorCode code_of(const TriangleMesh& m, std::string* message = nullptr) {
  try {
    prepare_mesh(m, "test mesh");
  } catch (const Error& e) {
    if (message) *message = e.what();
    return e.code();
  }
  ADD_FAILURE() << "no error";
  return ErrorCode::badarg;
}

TEST(MeshPrepare, WeldsExactlyEqualCornersWithMinusZeroEqualToZero) {
  TriangleMesh m = soup(tetrahedron());
  for (auto& p : m.positions)
    for (double& x : p)
      if (x == 0 && (&p - m.positions.data()) % 2 == 1) x = -0.0;
  const PreparedMesh prepared = prepare_mesh(m, "soup");
  EXPECT_EQ(prepared.report.corners_read, 12u);
  EXPECT_EQ(prepared.report.corners_welded, 4u);
  EXPECT_TRUE(prepared.report.closed());
  EXPECT_EQ(prepared.report.components, 1u);
  EXPECT_DOUBLE_EQ(prepared.report.signed_volume, 1.0 / 6);
}

TEST(MeshPrepare, DoesNotWeldCornersThatDifferInTheLastBit) {
  TriangleMesh m = soup(tetrahedron());
  m.positions[0][0] = std::nextafter(0.0, 1.0);
  std::string message;
  EXPECT_EQ(code_of(m, &message), ErrorCode::openmesh);
  EXPECT_NE(message.find("boundary"), std::string::npos) << message;
  EXPECT_NE(message.find("test mesh"), std::string::npos) << message;
}

TEST(MeshPrepare, ReportsBoundaryNonManifoldAndInconsistentEdges) {
  TriangleMesh open = tetrahedron();
  open.triangles.pop_back();
  const PreparedMesh p_open = prepare_mesh(open, "open", true);
  EXPECT_EQ(p_open.report.boundary_edges, 3u);
  EXPECT_EQ(p_open.report.example_edge_kind, "boundary");

  TriangleMesh flipped = tetrahedron();
  std::swap(flipped.triangles[3][1], flipped.triangles[3][2]);
  const PreparedMesh p_flipped = prepare_mesh(flipped, "flipped", true);
  EXPECT_EQ(p_flipped.report.inconsistent_edges, 3u);
  EXPECT_EQ(code_of(flipped), ErrorCode::openmesh);

  TriangleMesh fin = tetrahedron();
  fin.positions.push_back({0.5, 0.5, -1});
  fin.triangles.push_back({0, 1, 4});  // a third triangle on edge 0-1
  const PreparedMesh p_fin = prepare_mesh(fin, "fin", true);
  EXPECT_EQ(p_fin.report.nonmanifold_edges, 1u);
  EXPECT_EQ(code_of(fin), ErrorCode::openmesh);

  TriangleMesh two = tetrahedron();
  for (std::uint32_t v = 0; v < 4; ++v) two.positions.push_back({two.positions[v][0] + 5, two.positions[v][1], two.positions[v][2]});
  for (std::size_t t = 0; t < 4; ++t) two.triangles.push_back({two.triangles[t][0] + 4, two.triangles[t][1] + 4, two.triangles[t][2] + 4});
  EXPECT_EQ(prepare_mesh(two, "two").report.components, 2u);
}

TEST(MeshPrepare, SkipsZeroAreaTrianglesAndRefusesBadInput) {
  TriangleMesh m = tetrahedron();
  m.triangles.push_back({0, 0, 1});
  m.positions.push_back({2, 0, 0});
  m.triangles.push_back({0, 1, 4});  // collinear corners: exactly zero cross product
  const PreparedMesh p = prepare_mesh(m, "slivers");
  EXPECT_EQ(p.report.zero_area_triangles, 2u);
  EXPECT_EQ(p.triangles.size(), 4u);

  TriangleMesh bad_index = tetrahedron();
  bad_index.triangles[0][1] = 9;
  EXPECT_EQ(code_of(bad_index), ErrorCode::badmesh);
  TriangleMesh not_finite = tetrahedron();
  not_finite.positions[2][1] = std::numeric_limits<double>::quiet_NaN();
  EXPECT_EQ(code_of(not_finite), ErrorCode::badmesh);
  TriangleMesh nothing;
  EXPECT_EQ(code_of(nothing), ErrorCode::badmesh);
}

TEST(MeshPrepare, InwardMeshesAreReversed) {
  TriangleMesh m = tetrahedron();
  for (auto& t : m.triangles) std::swap(t[1], t[2]);
  const PreparedMesh p = prepare_mesh(m, "inward");
  EXPECT_TRUE(p.report.flipped);
  EXPECT_DOUBLE_EQ(p.report.signed_volume, -1.0 / 6);
  EXPECT_LT(p.face_normals[0][2], 0);  // the face on z = 0 points down again
}

TEST(MeshPrepare, PseudoNormalsAreAngleWeightedAndEdgeSums) {
  const PreparedMesh p = prepare_mesh(tetrahedron(), "tet");
  // Welding numbers corners by first use; find them by position.
  auto corner_at = [&](const Vec3& x) {
    return static_cast<std::uint32_t>(std::find(p.positions.begin(), p.positions.end(), x) - p.positions.begin());
  };
  const std::uint32_t origin = corner_at({0, 0, 0}), on_x = corner_at({1, 0, 0});
  // The origin sees three right angles, one on each coordinate plane: N = -(pi/2)(1, 1, 1).
  for (double c : p.corner_normals[origin]) EXPECT_NEAR(c, -std::numbers::pi / 2, 1e-15);
  // Edge origin - (1, 0, 0) joins the faces on z = 0 and y = 0: N = (0, -1, -1).
  const auto at = std::find(p.edge_keys.begin(), p.edge_keys.end(), edge_key(origin, on_x));
  ASSERT_NE(at, p.edge_keys.end());
  const Vec3& n = p.edge_normals[static_cast<std::size_t>(at - p.edge_keys.begin())];
  EXPECT_DOUBLE_EQ(n[0], 0);
  EXPECT_DOUBLE_EQ(n[1], -1);
  EXPECT_DOUBLE_EQ(n[2], -1);
  EXPECT_EQ(edge_key(7, 3), (std::uint64_t{3} << 32) + 7);
  EXPECT_EQ(edge_key(0xFFFFFFFFu, 0xFFFFFFFEu), 0xFFFFFFFEFFFFFFFFull);
}

TEST(MeshPrepare, BuiltInPartsAreClosedWithPositiveVolume) {
  for (const std::string name : {"icosphere_1k", "torus_mesh"}) {
    const MeshPart part = mesh_part(name);
    const PreparedMesh p = prepare_mesh(part.mesh, name);
    EXPECT_TRUE(p.report.closed()) << name;
    EXPECT_FALSE(p.report.flipped) << name;
    EXPECT_EQ(p.report.components, 1u) << name;
    EXPECT_NEAR(p.report.signed_volume, part.volume, 1e-12) << name;
  }
  EXPECT_EQ(mesh_part("icosphere_1k").mesh.triangles.size(), 1280u);
  EXPECT_EQ(mesh_part("icosphere_20k").mesh.triangles.size(), 20480u);
  // A fine torus approaches 2 pi^2 R r^2 from below.
  const double smooth = 2 * std::numbers::pi * std::numbers::pi * 0.7 * 0.25 * 0.25;
  EXPECT_LT(mesh_part("torus_mesh").volume, smooth);
  EXPECT_GT(mesh_part("torus_mesh").volume, 0.99 * smooth);
}

}  // namespace
}  // namespace distgrid
