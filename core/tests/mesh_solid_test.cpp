// Closed meshes that bound a solid and closed meshes that do not: the exact triangle
// contact test case by case, the search over a whole mesh, shell nesting, and what
// prepare_mesh then refuses.
#include "distgrid/mesh_solid.hpp"

#include <gtest/gtest.h>

#include <string>

#include "distgrid/error.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "support/test_meshes.hpp"

namespace distgrid {
namespace {

using test_support::bunny_like;
using test_support::hollow_ball;
using test_support::joined;
using test_support::reversed;
using test_support::spindle_torus;
using test_support::translated;

/// Two triangles given by their corners; corners equal in both get the same index.
bool meet(const std::array<Vec3, 3>& s, const std::array<Vec3, 3>& t) {
  std::vector<Vec3> positions;
  auto index = [&](const Vec3& p) {
    for (std::uint32_t i = 0; i < positions.size(); ++i)
      if (positions[i] == p) return i;
    positions.push_back(p);
    return static_cast<std::uint32_t>(positions.size() - 1);
  };
  const IndexedTriangle a{index(s[0]), index(s[1]), index(s[2])};
  const IndexedTriangle b{index(t[0]), index(t[1]), index(t[2])};
  const bool forward = triangles_meet(positions, a, b), backward = triangles_meet(positions, b, a);
  EXPECT_EQ(forward, backward) << "the test is not symmetric";
  return forward;
}

TEST(TrianglesMeet, DecidesEachKindOfContactExactly) {
  const std::array<Vec3, 3> base{{{0, 0, 0}, {2, 0, 0}, {0, 2, 0}}};
  // No corner in common.
  EXPECT_TRUE(meet(base, {{{0.5, 0.5, -1}, {0.5, 0.5, 1}, {3, 3, 1}}}));    // crossing
  EXPECT_FALSE(meet(base, {{{0.5, 0.5, 0.1}, {1, 0.5, 1}, {0.5, 1, 1}}}));  // above
  EXPECT_TRUE(meet(base, {{{0.5, 0.5, 0}, {1, 0.5, 1}, {0.5, 1, 1}}}));     // a corner on the face
  EXPECT_TRUE(meet(base, {{{1, 1, 0}, {3, 1, 0}, {1, 3, 0}}}));             // overlapping in one plane
  EXPECT_FALSE(meet(base, {{{3, 3, 0}, {5, 3, 0}, {3, 5, 0}}}));            // apart in one plane
  EXPECT_TRUE(meet(base, {{{1, 1, 0}, {3, 3, 0}, {1, 1, 1}}}));             // an edge on the hypotenuse
  EXPECT_FALSE(meet(base, {{{1, 1 + 0x1p-52, 0}, {3, 3, 0}, {1, 1 + 0x1p-52, 1}}}));  // one ulp beyond it
  // One corner in common.
  EXPECT_FALSE(meet(base, {{{0, 0, 0}, {-1, 0, 1}, {0, -1, 1}}}));  // a fan neighbour
  EXPECT_TRUE(meet(base, {{{0, 0, 0}, {1, 0.5, -1}, {0.5, 1, 1}}}));  // its far edge pierces the face
  EXPECT_TRUE(meet(base, {{{0, 0, 0}, {1, 1, 0}, {0, 1, 3}}}));       // an edge from the corner runs over the face
  EXPECT_TRUE(meet(base, {{{0, 0, 0}, {1, 0.2, 0}, {1, -1, 0}}}));    // in one plane, angles overlapping
  EXPECT_FALSE(meet(base, {{{0, 0, 0}, {1, -0.2, 0}, {1, -1, 0}}}));  // in one plane, angles apart
  EXPECT_TRUE(meet(base, {{{0, 0, 0}, {1, 0, 0}, {1, -1, 0}}}));      // sharing half an edge (a T-junction)
  // One edge in common.
  EXPECT_FALSE(meet(base, {{{0, 0, 0}, {2, 0, 0}, {1, -1, 0}}}));  // flat, opposite sides
  EXPECT_FALSE(meet(base, {{{0, 0, 0}, {2, 0, 0}, {1, 1, 1}}}));   // folded at an angle
  EXPECT_TRUE(meet(base, {{{0, 0, 0}, {2, 0, 0}, {1, 1, 0}}}));    // folded flat onto it
  // All three corners in common: left to the edge counts.
  EXPECT_FALSE(meet(base, {{{0, 0, 0}, {0, 2, 0}, {2, 0, 0}}}));
}

TEST(TriangleIntersections, FindsNoneInAClosedStarShapedMesh) {
  const TriangleMesh bunny = bunny_like();
  ASSERT_EQ(bunny.triangles.size(), 5120u);
  EXPECT_EQ(find_triangle_intersections(bunny.positions, bunny.triangles).pairs, 0u);
  const TriangleMesh sphere = mesh_part("icosphere_20k").mesh;
  EXPECT_EQ(find_triangle_intersections(sphere.positions, sphere.triangles).pairs, 0u);
}

TEST(TriangleIntersections, FindsOverlappingShellsAndAShellThroughItselfForAnyThreadCount) {
  const TriangleMesh bunny = bunny_like();
  const TriangleMesh two = joined(bunny, translated(bunny, {0.45, 0.1, 0}));
  const TriangleIntersections one_thread = find_triangle_intersections(two.positions, two.triangles, 1);
  const TriangleIntersections three = find_triangle_intersections(two.positions, two.triangles, 3);
  EXPECT_GT(one_thread.pairs, 20u);
  EXPECT_EQ(one_thread.pairs, three.pairs);
  EXPECT_EQ(one_thread.example, three.example);
  // The example pair has a triangle of each copy, and they do meet.
  EXPECT_LT(one_thread.example[0], 5120u);
  EXPECT_GE(one_thread.example[1], 5120u);
  EXPECT_TRUE(triangles_meet(two.positions, two.triangles[one_thread.example[0]], two.triangles[one_thread.example[1]]));
  const TriangleMesh spindle = spindle_torus();
  EXPECT_GT(find_triangle_intersections(spindle.positions, spindle.triangles).pairs, 0u);
}

TEST(TriangleIntersections, TestsGiantTrianglesAgainstSmallOnes) {
  // A large square (two triangles) through a finely meshed ball: the square's
  // triangles span more cells than any small one and go the brute-force way.
  TriangleMesh mesh = mesh_part("icosphere_1k").mesh;
  const auto n = static_cast<std::uint32_t>(mesh.positions.size());
  mesh.positions.insert(mesh.positions.end(), {{-50, -50, 0.01}, {50, -50, 0.01}, {50, 50, 0.01}, {-50, 50, 0.01}});
  mesh.triangles.push_back({n, n + 1, n + 2});
  mesh.triangles.push_back({n, n + 2, n + 3});
  const TriangleIntersections found = find_triangle_intersections(mesh.positions, mesh.triangles, 2);
  EXPECT_GT(found.pairs, 10u);
  EXPECT_GE(found.example[1], 1280u);
}

TEST(ShellNesting, AcceptsACavityAndRefusesAShellInsideAShellFacingTheSameWay) {
  const PreparedMesh hollow = prepare_mesh(hollow_ball(), "hollow");
  EXPECT_EQ(hollow.report.components, 2u);
  EXPECT_EQ(hollow.report.misnested_shells, 0u);
  EXPECT_TRUE(hollow.report.solid());
  try {
    prepare_mesh(hollow_ball(true), "nested");
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badmesh);
    const std::string message = e.what();
    EXPECT_NE(message.find("nested: 1 shell faces the wrong way"), std::string::npos) << message;
    EXPECT_NE(message.find("shell of triangle 1280"), std::string::npos) << message;  // the inner one
    EXPECT_NE(message.find("inside the shell of triangle 0"), std::string::npos) << message;
  }
  const PreparedMesh allowed = prepare_mesh(hollow_ball(true), "nested", true);
  EXPECT_EQ(allowed.report.misnested_shells, 1u);
  EXPECT_FALSE(allowed.report.solid());
  EXPECT_EQ(allowed.report.example_shell_triangle, 1280u);
  EXPECT_EQ(allowed.report.example_enclosing_triangle, 0u);
}

TEST(ShellNesting, RefusesAnInwardShellWithNothingAroundIt) {
  // A large outward ball beside a small inward one: the total volume is positive, so
  // no flip, but the small one would be an infinite solid with a hole.
  const TriangleMesh mesh =
      joined(icosphere(2, {0, 0, 0}, 1), reversed(icosphere(2, {5, 0, 0}, 0.5)));
  const PreparedMesh allowed = prepare_mesh(mesh, "apart", true);
  EXPECT_EQ(allowed.report.misnested_shells, 1u);
  EXPECT_EQ(allowed.report.example_enclosing_triangle, MeshReport::kNoTriangle);
  EXPECT_LT(allowed.report.example_shell_volume, 0);
}

TEST(PrepareMesh, RefusesIntersectingShellsNamingAPairOfTriangles) {
  const TriangleMesh bunny = bunny_like();
  for (const auto& [name, mesh] : {std::pair{std::string("two bunnies"), joined(bunny, translated(bunny, {0.45, 0.1, 0}))},
                                   std::pair{std::string("spindle"), spindle_torus()}}) {
    try {
      prepare_mesh(mesh, name);
      ADD_FAILURE() << name << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::selfintersect) << name;
      const std::string message = e.what();
      EXPECT_EQ(message.rfind(name + ": ", 0), 0u) << message;
      EXPECT_NE(message.find("pairs of triangles meet"), std::string::npos) << message;
      EXPECT_NE(message.find("e.g. triangles "), std::string::npos) << message;
    }
    const PreparedMesh allowed = prepare_mesh(mesh, name, true);
    EXPECT_TRUE(allowed.report.closed()) << name;
    EXPECT_GT(allowed.report.intersecting_pairs, 0u) << name;
    EXPECT_FALSE(allowed.report.solid()) << name;
    EXPECT_NE(describe(allowed.report).find("pairs of triangles meet (e.g. triangles"), std::string::npos);
  }
}

}  // namespace
}  // namespace distgrid
