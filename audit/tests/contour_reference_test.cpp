// The contour and export references, on cases worked out by hand.
#include <gtest/gtest.h>

#include <cstring>
#include <string>

#include "../calculations/contour_audit.hpp"
#include "distgrid/audit/reference/contour_vertex.hpp"
#include "distgrid/audit/reference/mesh_files.hpp"
#include "distgrid/audit/reference/mesh_topology.hpp"

namespace distgrid::audit::reference {
namespace {

CellValues cell(std::array<double, 8> d) {
  CellValues v;
  for (std::size_t c = 0; c < 8; ++c) v[c] = HighPrecision(d[c]);
  return v;
}

TEST(ReferenceContourVertex, EdgesJoinCornersThatDifferOnTheirAxisOnly) {
  for (const CellEdge& e : kCellEdges) {
    EXPECT_EQ(e.upper - e.lower, 1 << e.axis);
    EXPECT_EQ((e.lower >> e.axis) & 1, 0);
  }
}

TEST(ReferenceContourVertex, ZeroIsOutsideAndMinusZeroToo) {
  EXPECT_EQ(inside_pattern(std::array<double, 8>{0.0, -0.0, -1, 1, 1, 1, 1, 1}), 4u);
}

TEST(ReferenceContourVertex, PlaneAcrossXGivesTheCrossingOfEveryXEdge) {
  // d = x - 0.25 at x = 0 and 1: every x edge crosses at t = 0.25, the mean is (0.25, 0.5, 0.5).
  const CellValues d = cell({-0.25, 0.75, -0.25, 0.75, -0.25, 0.75, -0.25, 0.75});
  const unsigned inside = inside_pattern(d);
  EXPECT_EQ(inside, 0b01010101u);
  EXPECT_EQ(crossing_edges(inside), 0b1111u);  // the four x edges come first
  const auto v = surface_nets_vertex(d, crossing_edges(inside));
  ASSERT_TRUE(v);
  EXPECT_EQ((*v)[0], HighPrecision(0.25));
  EXPECT_EQ((*v)[1], HighPrecision(0.5));
  EXPECT_EQ((*v)[2], HighPrecision(0.5));
}

TEST(ReferenceContourVertex, OneInsideCornerAveragesItsThreeEdges) {
  // Corner 0 at -1, the rest at +3: each of its edges crosses at t = 1/4.
  const CellValues d = cell({-1, 3, 3, 3, 3, 3, 3, 3});
  const auto v = surface_nets_vertex(d, crossing_edges(inside_pattern(d)));
  ASSERT_TRUE(v);
  // Mean of (1/4, 0, 0), (0, 1/4, 0), (0, 0, 1/4): 1/12 on each axis.
  for (const HighPrecision& x : *v) EXPECT_LT(abs(x - HighPrecision(1) / 12), HighPrecision(1e-38));
  const auto world = world_point({2, -3, 0}, *v, 0.5);
  EXPECT_LT(abs(world[0] - (HighPrecision(2) + HighPrecision(1) / 12) / 2), HighPrecision(1e-38));
  EXPECT_LT(abs(world[1] - (HighPrecision(-3) + HighPrecision(1) / 12) / 2), HighPrecision(1e-38));
}

TEST(ReferenceContourVertex, EqualEndValuesHaveNoCrossing) {
  EXPECT_FALSE(edge_crossing(HighPrecision(1), HighPrecision(1)));
  EXPECT_EQ(*edge_crossing(HighPrecision(0), HighPrecision(-2)), HighPrecision(0));
  EXPECT_EQ(*edge_crossing(HighPrecision(-3), HighPrecision(1)), HighPrecision(0.75));
  EXPECT_FALSE(surface_nets_vertex(cell({1, 1, 1, 1, 1, 1, 1, 1}), 0));
}

TEST(ReferenceContourSites, CellVertexOnAFaceMayBelongToEitherCell) {
  using calcs::contour_audit::Site;
  using calcs::contour_audit::sites_near;
  const double h = 0.25;
  const auto inside = sites_near({0.3, 0.6, 0.9}, h, Mesher::surface_nets);
  ASSERT_EQ(inside.size(), 1u);
  EXPECT_EQ(inside[0], (Site{{1, 2, 3}, -1}));
  EXPECT_EQ(sites_near({0.5, 0.6, 0.9}, h, Mesher::surface_nets).size(), 2u);  // x / h = 2: cells 1 and 2
}

TEST(ReferenceContourSites, EdgeVertexNamesItsEdgeAndLoopCentresNone) {
  using calcs::contour_audit::Site;
  using calcs::contour_audit::sites_near;
  const double h = 0.25;
  const auto edge = sites_near({0.5, 0.6, 0.75}, h, Mesher::marching_cubes);
  ASSERT_EQ(edge.size(), 1u);
  EXPECT_EQ(edge[0], (Site{{2, 2, 3}, 1}));
  EXPECT_TRUE(sites_near({0.3, 0.6, 0.75}, h, Mesher::marching_cubes).empty());
  EXPECT_EQ(sites_near({0.5, 0.5, 0.75}, h, Mesher::marching_cubes).size(), 6u);  // on a node: six edges
}

TriangleMesh tetrahedron() {
  TriangleMesh m;
  m.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
  m.triangles = {{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};  // outward
  return m;
}

TEST(ReferenceMeshTopology, TetrahedronIsClosedWithVolumeOneSixth) {
  const MeshTopology t = mesh_topology(tetrahedron());
  EXPECT_TRUE(t.closed());
  EXPECT_EQ(t.edges, 6u);
  EXPECT_EQ(t.euler_characteristic, 2);
  EXPECT_DOUBLE_EQ(t.volume, 1.0 / 6);
}

TEST(ReferenceMeshTopology, CountsBoundaryFlippedAndNonManifoldEdges) {
  TriangleMesh open = tetrahedron();
  open.triangles.pop_back();
  EXPECT_EQ(mesh_topology(open).boundary_edges, 3u);
  TriangleMesh flipped = tetrahedron();
  flipped.triangles[3] = {1, 3, 2};
  EXPECT_EQ(mesh_topology(flipped).misoriented_edges, 3u);
  TriangleMesh fin = tetrahedron();
  fin.positions.push_back({1, 1, 1});
  fin.triangles.push_back({1, 2, 4});
  EXPECT_EQ(mesh_topology(fin).non_manifold_edges, 1u);
}

std::string le32(std::uint32_t v) {
  std::string s;
  for (int b = 0; b < 4; ++b) s += static_cast<char>((v >> (8 * b)) & 0xFFu);
  return s;
}

TEST(ReferenceMeshFiles, BinaryStlFromItsLayout) {
  std::string bytes(80, ' ');
  bytes += le32(1);
  // 0x3F800000 = 1.0f, 0x40400000 = 3.0f, 0xBF000000 = -0.5f.
  const std::uint32_t floats[12] = {0, 0, 0x3F800000, 0x3F800000, 0, 0, 0, 0x40400000, 0, 0, 0, 0xBF000000};
  for (std::uint32_t f : floats) bytes += le32(f);
  bytes += std::string(2, '\0');
  const ParsedMesh m = parse_binary_stl(bytes);
  ASSERT_EQ(m.positions.size(), 3u);
  EXPECT_EQ(m.normals[0][2], 1.0);
  EXPECT_EQ(m.positions[0][0], 1.0);
  EXPECT_EQ(m.positions[1][1], 3.0);
  EXPECT_EQ(m.positions[2][2], -0.5);
  EXPECT_THROW(parse_binary_stl(bytes.substr(0, 100)), Error);
}

TEST(ReferenceMeshFiles, TextFormatsKeepEveryDigitAndTheSignOfZero) {
  const ParsedMesh obj = parse_obj("# c\nv 0.10000000000000001 -0 1e-300\nvn 1 0 0\nf 1//1 1//1 1//1\n");
  ASSERT_EQ(obj.positions.size(), 1u);
  EXPECT_EQ(obj.positions[0][0], 0.1);
  EXPECT_TRUE(std::signbit(obj.positions[0][1]));
  EXPECT_EQ(obj.positions[0][2], 1e-300);
  EXPECT_EQ(obj.triangles[0], (std::array<std::uint32_t, 3>{0, 0, 0}));
  const ParsedMesh stl = parse_ascii_stl("solid s\nfacet normal 0 0 1\nouter loop\nvertex 1 2 3\nvertex 4 5 6\n"
                                         "vertex 7 8 9.5\nendloop\nendfacet\nendsolid s\n");
  ASSERT_EQ(stl.positions.size(), 3u);
  EXPECT_EQ(stl.positions[2][2], 9.5);
  const ParsedMesh ply = parse_ply("ply\nformat ascii 1.0\nelement vertex 1\nproperty double x\nproperty double y\n"
                                   "property double z\nelement face 1\nproperty list uchar uint vertex_indices\n"
                                   "end_header\n0.5 -2 3\n3 0 0 0\n");
  EXPECT_EQ(ply.positions[0][1], -2.0);
  EXPECT_THROW(parse_obj("v 1 2 x\n"), Error);
}

TEST(ReferenceMeshFiles, NearestFloatChecksBothNeighboursAndTiesToEven) {
  EXPECT_TRUE(nearest_float(0.1, 0.1f));
  EXPECT_FALSE(nearest_float(0.1, std::nextafter(0.1f, 1.0f)));
  // 1 + 2^-24 is halfway between 1 and 1 + 2^-23: the even one (1) is nearest.
  EXPECT_TRUE(nearest_float(1 + 0x1p-24, 1.0f));
  EXPECT_FALSE(nearest_float(1 + 0x1p-24, 1 + 0x1p-23f));
}

}  // namespace
}  // namespace distgrid::audit::reference
