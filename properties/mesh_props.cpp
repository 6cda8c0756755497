// Properties of mesh preparation and the mesh bake (mesh.weld, mesh.edge_key,
// mesh.normals, mesh.closest_point, mesh.node_distance, mesh.ray_parity), checked
// against exact rationals and the generalised winding number.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <numbers>
#include <set>
#include <string>
#include <vector>

#include "distgrid/closest_point.hpp"
#include "distgrid/error.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "distgrid/properties/generators.hpp"
#include "harness/exact.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;

// ---- mesh.closest_point -----------------------------------------------------------

/// Rounding allowance for squared distances among these coordinates.
Rational tolerance2(const TriangleCase& t, const Vec3& p) {
  double scale = 1;
  for (const Vec3* v : {&t.a, &t.b, &t.c, &p})
    for (double x : *v) scale += std::fabs(x);
  return Rational(1e-12 * scale * scale);
}

Rational abs_rational(const Rational& r) { return r < 0 ? Rational(-r) : r; }

Vec3 point_near(const TriangleCase& t) {
  const Vec3 offset = *dyadic_point(6, 5);
  const int which = *rc::gen::inRange(0, 4);
  const Vec3& base = which == 0 ? t.a : which == 1 ? t.b : which == 2 ? t.c : Vec3{0, 0, 0};
  return {base[0] + offset[0], base[1] + offset[1], base[2] + offset[2]};
}

DISTGRID_PROPERTY(MeshClosestPoint, distanceIsTheExactMinimumUpToRounding, 1000) {
  const TriangleCase t = *triangle_case();
  const Vec3 p = point_near(t);
  const ClosestPoint got = closest_point_on_triangle(p, t.a, t.b, t.c);
  const Rational exact_min = exact_triangle_distance2(p, t.a, t.b, t.c);
  const Rational tol = tolerance2(t, p);
  RC_ASSERT(abs_rational(exact_distance2(exact(p), exact(got.point)) - exact_min) <= tol);
  RC_ASSERT(abs_rational(Rational(got.distance_squared) - exact_min) <= tol);
}

DISTGRID_PROPERTY(MeshClosestPoint, isNoFartherThanAnyCornerOrAnyPointOfAnEdge, 1000) {
  const TriangleCase t = *triangle_case();
  const Vec3 p = point_near(t);
  const RVec rp = exact(p);
  const Rational got = exact_distance2(rp, exact(closest_point_on_triangle(p, t.a, t.b, t.c).point));
  const Rational tol = tolerance2(t, p);
  for (const Vec3* corner : {&t.a, &t.b, &t.c}) RC_ASSERT(got <= exact_distance2(rp, exact(*corner)) + tol);
  const std::array<std::pair<const Vec3*, const Vec3*>, 3> edges{{{&t.a, &t.b}, {&t.b, &t.c}, {&t.c, &t.a}}};
  for (const auto& [s, e] : edges) {
    // The exact nearest point of the edge, and a random one.
    RC_ASSERT(got <= exact_distance2(rp, exact_closest_on_segment(rp, exact(*s), exact(*e))) + tol);
    const Rational along(*rc::gen::inRange(0, 1025), 1024);
    RC_ASSERT(got <= exact_distance2(rp, rlerp(exact(*s), exact(*e), along)) + tol);
  }
}

DISTGRID_PROPERTY(MeshClosestPoint, liesOnTheTriangle, 1000) {
  const TriangleCase t = *triangle_case();
  const Vec3 p = point_near(t);
  const Vec3 q = closest_point_on_triangle(p, t.a, t.b, t.c).point;
  const Rational tol = tolerance2(t, p);
  // Within rounding of the triangle: its exact distance to the triangle is ~0.
  RC_ASSERT(exact_triangle_distance2(q, t.a, t.b, t.c) <= tol);
}

// The feature names where the closest point is: a corner is returned exactly, an
// edge's point lies on that edge and the edge holds a closest point, a face's
// point is the plane projection and the plane's distance is the minimum.
DISTGRID_PROPERTY(MeshClosestPoint, featureAgreesWithTheRegionOfTheClosestPoint, 1000) {
  const TriangleCase t = *triangle_case();
  const Vec3 p = point_near(t);
  const ClosestPoint got = closest_point_on_triangle(p, t.a, t.b, t.c);
  const RVec rp = exact(p), ra = exact(t.a), rb = exact(t.b), rc = exact(t.c);
  const Rational exact_min = exact_triangle_distance2(p, t.a, t.b, t.c);
  const Rational tol = tolerance2(t, p);
  RC_TAG(feature_name(got.feature));
  const auto on_edge = [&](const RVec& s, const RVec& e) {
    RC_ASSERT(exact_distance2(exact(got.point), exact_closest_on_segment(exact(got.point), s, e)) <= tol);
    RC_ASSERT(abs_rational(exact_distance2(rp, exact_closest_on_segment(rp, s, e)) - exact_min) <= tol);
  };
  switch (got.feature) {
    case TriangleFeature::corner_a: RC_ASSERT(got.point == t.a); break;
    case TriangleFeature::corner_b: RC_ASSERT(got.point == t.b); break;
    case TriangleFeature::corner_c: RC_ASSERT(got.point == t.c); break;
    case TriangleFeature::edge_ab: on_edge(ra, rb); break;
    case TriangleFeature::edge_bc: on_edge(rb, rc); break;
    case TriangleFeature::edge_ca: on_edge(rc, ra); break;
    case TriangleFeature::face: {
      const RVec n = rcross(rsub(rb, ra), rsub(rc, ra));
      const Rational nn = rdot(n, n);
      RC_ASSERT(nn > 0);
      const Rational along = rdot(n, rsub(rp, ra));
      RC_ASSERT(abs_rational(along * along / nn - exact_min) <= tol);
      break;
    }
  }
  if (got.feature == TriangleFeature::corner_a || got.feature == TriangleFeature::corner_b ||
      got.feature == TriangleFeature::corner_c)
    RC_ASSERT(abs_rational(exact_distance2(rp, exact(got.point)) - exact_min) <= tol);
}

// Mirroring point and triangle through x = 0 mirrors the closest point bit for bit
// and keeps the feature: every product and sum is negated exactly.
DISTGRID_PROPERTY(MeshClosestPoint, mirroringMirrorsTheClosestPointExactly, 1000) {
  const TriangleCase t = *triangle_case();
  const Vec3 p = point_near(t);
  const auto m = [](Vec3 v) { return Vec3{-v[0], v[1], v[2]}; };
  const ClosestPoint a = closest_point_on_triangle(p, t.a, t.b, t.c);
  const ClosestPoint b = closest_point_on_triangle(m(p), m(t.a), m(t.b), m(t.c));
  RC_ASSERT(b.feature == a.feature);
  RC_ASSERT(b.point == m(a.point));
  RC_ASSERT(b.distance_squared == a.distance_squared);
}

DISTGRID_PROPERTY(MeshClosestPoint, cyclingTheCornersKeepsTheDistance, 1000) {
  const TriangleCase t = *triangle_case();
  const Vec3 p = point_near(t);
  const double a = closest_point_on_triangle(p, t.a, t.b, t.c).distance_squared;
  const double b = closest_point_on_triangle(p, t.b, t.c, t.a).distance_squared;
  RC_ASSERT(abs_rational(Rational(a) - Rational(b)) <= tolerance2(t, p));
}

// ---- mesh.weld and mesh.edge_key --------------------------------------------------

bool same_position(const Vec3& u, const Vec3& v) { return u[0] == v[0] && u[1] == v[1] && u[2] == v[2]; }

DISTGRID_PROPERTY(MeshWeld, mergesExactlyTheCornersWithEqualCoordinates, 200) {
  const MeshCase base = *closed_mesh(0.25);
  const TriangleMesh soup = *soup_with_near_duplicates(base.mesh);
  const TriangleMesh welded = weld_corners(soup, "soup");
  RC_ASSERT(welded.triangles.size() == soup.triangles.size());
  std::vector<std::pair<Vec3, std::uint32_t>> uses;
  for (std::size_t t = 0; t < soup.triangles.size(); ++t)
    for (std::size_t c = 0; c < 3; ++c) {
      const Vec3& original = soup.positions[soup.triangles[t][c]];
      RC_ASSERT(same_position(welded.positions[welded.triangles[t][c]], original));
      uses.push_back({original, welded.triangles[t][c]});
    }
  for (std::size_t i = 0; i < uses.size(); i += 3)
    for (std::size_t j = 0; j < uses.size(); ++j)
      RC_ASSERT((uses[i].second == uses[j].second) == same_position(uses[i].first, uses[j].first));
}

DISTGRID_PROPERTY(MeshWeld, isIdempotentAndNumbersCornersByFirstUse, 200) {
  const MeshCase base = *closed_mesh(0.25);
  const TriangleMesh soup = *soup_with_near_duplicates(base.mesh);
  const TriangleMesh once = weld_corners(soup, "soup");
  const TriangleMesh twice = weld_corners(once, "welded");
  RC_ASSERT(twice.triangles == once.triangles);
  RC_ASSERT(twice.positions.size() == once.positions.size());
  for (std::size_t v = 0; v < once.positions.size(); ++v) RC_ASSERT(same_position(twice.positions[v], once.positions[v]));
  std::uint32_t next = 0;
  for (const auto& tri : once.triangles)
    for (std::uint32_t v : tri) {
      RC_ASSERT(v <= next);
      if (v == next) ++next;
    }
  RC_ASSERT(next == once.positions.size());
}

DISTGRID_PROPERTY(MeshWeld, refusesNonFiniteCornersAndBadIndicesWithBadmesh, 200) {
  TriangleMesh m = (*closed_mesh(0.25)).mesh;
  const bool bad_index = *rc::gen::arbitrary<bool>();
  if (bad_index)
    m.triangles[*rc::gen::inRange<std::size_t>(0, m.triangles.size())][*rc::gen::inRange<std::size_t>(0, 3)] =
        static_cast<std::uint32_t>(m.positions.size() + *rc::gen::inRange<std::size_t>(0, 5));
  else
    m.positions[*rc::gen::inRange<std::size_t>(0, m.positions.size())][*rc::gen::inRange<std::size_t>(0, 3)] =
        *rc::gen::element(std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                          std::numeric_limits<double>::quiet_NaN());
  try {
    (void)weld_corners(m, "m.stl");
    RC_FAIL("weld accepted a bad mesh");
  } catch (const Error& e) {
    RC_ASSERT(e.code() == ErrorCode::badmesh);
    RC_ASSERT(std::string(e.what()).find("m.stl") != std::string::npos);
  }
}

DISTGRID_PROPERTY(MeshEdgeKey, isSymmetricAndSplitsBackIntoItsCorners, 2000) {
  const auto a = *rc::gen::arbitrary<std::uint32_t>(), b = *rc::gen::arbitrary<std::uint32_t>();
  const std::uint64_t key = edge_key(a, b);
  RC_ASSERT(edge_key(b, a) == key);
  RC_ASSERT((key >> 32) == std::min(a, b));
  RC_ASSERT((key & 0xFFFFFFFFu) == std::max(a, b));
  const auto c = *rc::gen::arbitrary<std::uint32_t>(), d = *rc::gen::arbitrary<std::uint32_t>();
  const bool less = std::pair(std::min(a, b), std::max(a, b)) < std::pair(std::min(c, d), std::max(c, d));
  RC_ASSERT((key < edge_key(c, d)) == less);
}

// As a double (what a JSON reader sees) an edge key is exact below 2^21 corners,
// and not in general above: the claim's limit.
DISTGRID_PROPERTY(MeshEdgeKey, isExactAsADoubleBelowTwoToThe21Corners, 2000) {
  const auto a = *rc::gen::inRange<std::uint32_t>(0, 1u << 21), b = *rc::gen::inRange<std::uint32_t>(0, 1u << 21);
  const std::uint64_t key = edge_key(a, b);
  RC_ASSERT(static_cast<std::uint64_t>(static_cast<double>(key)) == key);
  // An even corner index of 2^21 or more and the next one: the key is at least
  // 2^53 and odd, so no double holds it.
  const std::uint32_t big = 2 * *rc::gen::inRange<std::uint32_t>(1u << 20, 0x7FFFFFFFu);
  const std::uint64_t odd = edge_key(big, big + 1);
  RC_ASSERT(static_cast<std::uint64_t>(static_cast<double>(odd)) != odd);
}

DISTGRID_PROPERTY(MeshEdgeKeyAndMeshWeld, aClosedMeshHasEveryEdgeOnceWithTwoTriangles, 200) {
  const MeshCase base = *closed_mesh(0.25);
  const PreparedMesh prepared = prepare_mesh(*soup_with_near_duplicates(base.mesh), "soup", true);
  std::map<std::uint64_t, int> uses;
  for (const auto& tri : prepared.triangles)
    for (std::size_t s = 0; s < 3; ++s) ++uses[edge_key(tri[s], tri[(s + 1) % 3])];
  RC_ASSERT(prepared.edge_keys.size() == uses.size());
  std::size_t at = 0;
  for (const auto& [key, count] : uses) RC_ASSERT(prepared.edge_keys[at++] == key);
  // Nudged corners split edges apart; otherwise the soup welds back closed.
  const bool all_welded = prepared.positions.size() == base.mesh.positions.size();
  if (all_welded) {
    RC_ASSERT(prepared.report.closed());
    for (const auto& [key, count] : uses) RC_ASSERT(count == 2);
  }
}

// ---- mesh.normals -------------------------------------------------------------------

DISTGRID_PROPERTY(MeshNormals, faceNormalsAreUnitAndPerpendicularToTheirEdges, 200) {
  const MeshCase m = *closed_mesh(0.25);
  const PreparedMesh p = prepare_mesh(m.mesh, "m");
  for (std::size_t t = 0; t < p.triangles.size(); ++t) {
    const Vec3& n = p.face_normals[t];
    RC_ASSERT(std::fabs(detail::dot3(n, n) - 1) <= 1e-15);
    for (std::size_t s = 0; s < 3; ++s) {
      const Vec3 e = detail::sub3(p.positions[p.triangles[t][(s + 1) % 3]], p.positions[p.triangles[t][s]]);
      RC_ASSERT(std::fabs(detail::dot3(n, e)) <= 1e-14 * std::sqrt(detail::dot3(e, e)));
    }
  }
}

// On a convex solid every pseudo-normal (face, edge, corner) points away from an
// interior point.
DISTGRID_PROPERTY(MeshNormals, pseudoNormalsOfAConvexSolidPointOutward, 200) {
  const MeshCase m = *closed_mesh(0.25);
  const std::string& what = m.description;
  RC_PRE(what.rfind("box", 0) == 0 || what.rfind("tetrahedron", 0) == 0 || what.rfind("octahedron", 0) == 0 ||
         what.rfind("ico", 0) == 0);
  const PreparedMesh p = prepare_mesh(m.mesh, "m");
  Vec3 centre{0, 0, 0};
  for (const Vec3& v : p.positions)
    for (std::size_t a = 0; a < 3; ++a) centre[a] += v[a] / static_cast<double>(p.positions.size());
  for (std::size_t v = 0; v < p.positions.size(); ++v)
    RC_ASSERT(detail::dot3(p.corner_normals[v], detail::sub3(p.positions[v], centre)) > 0);
  for (std::size_t t = 0; t < p.triangles.size(); ++t)
    for (std::size_t s = 0; s < 3; ++s) {
      const Vec3 &u = p.positions[p.triangles[t][s]], &w = p.positions[p.triangles[t][(s + 1) % 3]];
      const Vec3 mid{(u[0] + w[0]) / 2, (u[1] + w[1]) / 2, (u[2] + w[2]) / 2};
      RC_ASSERT(detail::dot3(p.edge_normals[p.triangle_edges[t][s]], detail::sub3(mid, centre)) > 0);
      RC_ASSERT(detail::dot3(p.face_normals[t], detail::sub3(mid, centre)) > 0);
    }
}

// Corner normals weight each face by its angle there: at a corner of a flat
// region the weights sum to 2 pi, so the normal is 2 pi times the face normal.
DISTGRID_PROPERTY(MeshNormals, aFlatCornerHasTwoPiTimesTheFaceNormal, 200) {
  const MeshCase m = *closed_mesh(0.25);
  const PreparedMesh p = prepare_mesh(m.mesh, "m");
  std::vector<std::vector<std::size_t>> faces_of(p.positions.size());
  for (std::size_t t = 0; t < p.triangles.size(); ++t)
    for (std::uint32_t v : p.triangles[t]) faces_of[v].push_back(t);
  for (std::size_t v = 0; v < p.positions.size(); ++v) {
    const Vec3& n = p.face_normals[faces_of[v][0]];
    bool flat = true;
    for (std::size_t t : faces_of[v]) flat = flat && p.face_normals[t] == n;
    if (!flat) continue;
    for (std::size_t a = 0; a < 3; ++a) RC_ASSERT(std::fabs(p.corner_normals[v][a] - 2 * std::numbers::pi * n[a]) <= 1e-12);
  }
}

DISTGRID_PROPERTY(MeshNormals, prepareUndoesAReversedOrientation, 200) {
  const MeshCase m = *closed_mesh(0.25);
  TriangleMesh reversed = m.mesh;
  for (auto& t : reversed.triangles) std::swap(t[1], t[2]);
  const PreparedMesh a = prepare_mesh(m.mesh, "m"), b = prepare_mesh(reversed, "r");
  RC_ASSERT(!a.report.flipped);
  RC_ASSERT(b.report.flipped);
  // Corners are renumbered by first use, so compare triangle by triangle.
  RC_ASSERT(b.triangles.size() == a.triangles.size());
  RC_ASSERT(b.face_normals == a.face_normals);
  for (std::size_t t = 0; t < a.triangles.size(); ++t)
    for (std::size_t c = 0; c < 3; ++c) {
      RC_ASSERT(b.positions[b.triangles[t][c]] == a.positions[a.triangles[t][c]]);
      RC_ASSERT(b.corner_normals[b.triangles[t][c]] == a.corner_normals[a.triangles[t][c]]);
      RC_ASSERT(b.edge_normals[b.triangle_edges[t][c]] == a.edge_normals[a.triangle_edges[t][c]]);
    }
}

// ---- mesh.node_distance and mesh.ray_parity ---------------------------------------

MeshBakeSettings mesh_settings(double h, unsigned threads = 1) {
  MeshBakeSettings s;
  s.h = h;
  s.band = 3;
  s.threads = threads;
  return s;
}

std::array<std::int64_t, 3> node_of(const BrickCoord& b, int n) {
  return {b.bx * 8 + (n & 7), b.by * 8 + ((n >> 3) & 7), b.bz * 8 + (n >> 6)};
}

Vec3 position_of(const std::array<std::int64_t, 3>& node, double h) {
  return {static_cast<double>(node[0]) * h, static_cast<double>(node[1]) * h, static_cast<double>(node[2]) * h};
}

template <class S>
void check_band_values_are_exact_distances(const PreparedMesh& prepared, const TriangleMesh& mesh, double h) {
  const Grid<S> grid = bake_mesh<S>(prepared, mesh_settings(h));
  RC_ASSERT(!grid.stored_keys().empty());
  for (int probe = 0; probe < 12; ++probe) {
    const std::size_t slot = *rc::gen::inRange<std::size_t>(0, grid.stored_keys().size());
    const int n = *rc::gen::inRange(0, kBrickNodes);
    const double v = static_cast<double>(grid.brick_values(slot)[n]);
    if (std::fabs(v) >= 3 * h) continue;
    const double d = exact_distance_to_mesh(mesh, position_of(node_of(brick_of(grid.stored_keys()[slot]), n), h));
    const double storage = std::is_same_v<S, float> ? 0x1p-24 * d : 0.0;
    RC_ASSERT(std::fabs(std::fabs(v) - d) <= storage + 1e-12 * (1 + 16 * h));
  }
}

DISTGRID_PROPERTY(MeshNodeDistance, nodesInTheBandHoldTheExactDistanceToTheMesh, 60) {
  const double h = *power_of_two_h(-3, 0);
  const MeshCase m = *closed_mesh(h);
  const PreparedMesh prepared = prepare_mesh(m.mesh, "m");
  check_band_values_are_exact_distances<float>(prepared, m.mesh, h);
  check_band_values_are_exact_distances<double>(prepared, m.mesh, h);
}

// Away from the surface the sign of every node (stored, marked inside or absent)
// agrees with the generalised winding number of the closed mesh.
DISTGRID_PROPERTY(MeshNodeDistanceAndMeshRayParity, signsAgreeWithTheWindingNumber, 40) {
  const double h = *power_of_two_h(-3, 0);
  const MeshCase m = *closed_mesh(h);
  const Grid<float> grid = bake_mesh<float>(prepare_mesh(m.mesh, "m"), mesh_settings(h / 4));
  const auto box = grid.world_box();
  RC_ASSERT(box.has_value());
  for (int probe = 0; probe < 48; ++probe) {
    std::array<std::int64_t, 3> node{};
    for (std::size_t a = 0; a < 3; ++a)
      node[a] = *rc::gen::inRange(static_cast<std::int64_t>(std::llround(box->lo[a] / (h / 4))) - 8,
                                  static_cast<std::int64_t>(std::llround(box->hi[a] / (h / 4))) + 9);
    const Vec3 p = position_of(node, h / 4);
    const double v = grid.node(node[0], node[1], node[2]);
    if (estimated_distance_to_mesh(m.mesh, p) < 1e-6 * h) continue;
    RC_ASSERT((v < 0) == (winding_number(m.mesh, p) > 0.5));
  }
}

DISTGRID_PROPERTY(MeshRayParity, aFarBrickIsInsideExactlyWhenItsCentreIsInside, 40) {
  const double h = *power_of_two_h(-3, 0);
  const MeshCase m = *closed_mesh(h);
  const double fine = h / 4;
  const Grid<float> grid = bake_mesh<float>(prepare_mesh(m.mesh, "m"), mesh_settings(fine));
  const std::set<std::int64_t> stored(grid.stored_keys().begin(), grid.stored_keys().end());
  const std::set<std::int64_t> inside(grid.inside_keys().begin(), grid.inside_keys().end());
  const auto extent = grid.extent();
  RC_ASSERT(extent.has_value());
  std::size_t checked = 0;
  for (std::int64_t bx = extent->lo[0]; bx <= extent->hi[0]; ++bx)
    for (std::int64_t by = extent->lo[1]; by <= extent->hi[1]; ++by)
      for (std::int64_t bz = extent->lo[2]; bz <= extent->hi[2]; ++bz) {
        const std::int64_t key = brick_key(bx, by, bz);
        if (stored.count(key)) continue;
        const Vec3 centre{(static_cast<double>(8 * bx) + 3.5) * fine, (static_cast<double>(8 * by) + 3.5) * fine,
                          (static_cast<double>(8 * bz) + 3.5) * fine};
        RC_ASSERT(inside.count(key) == (winding_number(m.mesh, centre) > 0.5 ? 1u : 0u));
        ++checked;
      }
  RC_TAG(checked > 0 ? "far bricks" : "no far bricks");
}

// Reversing the prepared mesh (triangles and every pseudo-normal) flips the sign
// of every node in the band and keeps its distance.
DISTGRID_PROPERTY(MeshNormalsAndMeshNodeDistance, reversingTheOrientationFlipsEverySignInTheBand, 60) {
  const double h = *power_of_two_h(-3, 0);
  const MeshCase m = *closed_mesh(h);
  const PreparedMesh prepared = prepare_mesh(m.mesh, "m");
  PreparedMesh reversed = prepared;
  for (auto& t : reversed.triangles) std::swap(t[1], t[2]);
  for (auto& edges : reversed.triangle_edges) edges = {edges[2], edges[1], edges[0]};
  for (auto* normals : {&reversed.face_normals, &reversed.edge_normals, &reversed.corner_normals})
    for (Vec3& n : *normals) n = {-n[0], -n[1], -n[2]};
  const Grid<double> a = bake_mesh<double>(prepared, mesh_settings(h));
  const Grid<double> b = bake_mesh<double>(reversed, mesh_settings(h));
  RC_ASSERT(a.stored_keys() == b.stored_keys());
  std::size_t flipped = 0;
  for (std::size_t slot = 0; slot < a.stored_keys().size(); ++slot)
    for (int n = 0; n < kBrickNodes; ++n) {
      const double va = a.brick_values(slot)[n], vb = b.brick_values(slot)[n];
      if (std::fabs(va) >= 3 * h || std::fabs(va) <= 1e-9 * h) continue;
      // Same distance to rounding (an edge is walked from the other end), opposite side.
      RC_ASSERT((vb < 0) != (va < 0));
      RC_ASSERT(std::fabs(vb + va) <= 1e-12 * (1 + 16 * h));
      ++flipped;
    }
  RC_ASSERT(flipped > 0);
}

DISTGRID_PROPERTY(MeshNodeDistance, isTheSameForAnyThreadCount, 40) {
  const double h = *power_of_two_h(-3, 0);
  const MeshCase m = *closed_mesh(h);
  const PreparedMesh prepared = prepare_mesh(m.mesh, "m");
  const Grid<float> one = bake_mesh<float>(prepared, mesh_settings(h / 2, 1));
  const Grid<float> two = bake_mesh<float>(prepared, mesh_settings(h / 2, 2));
  RC_ASSERT(one.stored_keys() == two.stored_keys());
  RC_ASSERT(one.inside_keys() == two.inside_keys());
  for (std::size_t slot = 0; slot < one.stored_keys().size(); ++slot)
    RC_ASSERT(std::memcmp(one.brick_values(slot), two.brick_values(slot), kBrickNodes * sizeof(float)) == 0);
}

// A mesh on the lattice h/4 moved by whole bricks bakes to the same values under
// renamed keys, and the same bricks inside.
DISTGRID_PROPERTY(MeshNodeDistanceAndMeshRayParity, translatingByWholeBricksOnlyRenamesKeys, 40) {
  const double h = *power_of_two_h(-3, 0);
  const MeshCase m = *closed_mesh(h, true);
  for (const Vec3& v : m.mesh.positions)
    for (double x : v) RC_PRE(std::fmod(x / (h / 4), 1.0) == 0.0);
  const std::array<std::int64_t, 3> t{*small_brick_coordinate(30), *small_brick_coordinate(30),
                                      *small_brick_coordinate(30)};
  TriangleMesh moved = m.mesh;
  for (Vec3& v : moved.positions)
    for (std::size_t a = 0; a < 3; ++a) v[a] += static_cast<double>(8 * t[a]) * (h / 2);
  const Grid<float> a = bake_mesh<float>(prepare_mesh(m.mesh, "m"), mesh_settings(h / 2));
  const Grid<float> b = bake_mesh<float>(prepare_mesh(moved, "moved"), mesh_settings(h / 2));
  const auto shift = [&](std::int64_t key) {
    const BrickCoord c = brick_of(key);
    return brick_key(c.bx + t[0], c.by + t[1], c.bz + t[2]);
  };
  std::vector<std::int64_t> renamed;
  for (std::int64_t key : a.inside_keys()) renamed.push_back(shift(key));
  RC_ASSERT(renamed == b.inside_keys());
  RC_ASSERT(a.stored_keys().size() == b.stored_keys().size());
  for (std::size_t slot = 0; slot < a.stored_keys().size(); ++slot) {
    const float* other = b.find_brick(shift(a.stored_keys()[slot]));
    RC_ASSERT(other != nullptr);
    RC_ASSERT(std::memcmp(a.brick_values(slot), other, kBrickNodes * sizeof(float)) == 0);
  }
}

DISTGRID_PROPERTY(MeshWeldAndMeshNodeDistance, aWeldedSoupBakesLikeTheIndexedMesh, 40) {
  const double h = *power_of_two_h(-3, 0);
  const MeshCase m = *closed_mesh(h);
  TriangleMesh soup;
  for (const auto& tri : m.mesh.triangles) {
    const auto first = static_cast<std::uint32_t>(soup.positions.size());
    for (std::uint32_t v : tri) soup.positions.push_back(m.mesh.positions[v]);
    soup.triangles.push_back({first, first + 1, first + 2});
  }
  const Grid<float> a = bake_mesh<float>(prepare_mesh(m.mesh, "m"), mesh_settings(h));
  const Grid<float> b = bake_mesh<float>(prepare_mesh(soup, "soup"), mesh_settings(h));
  RC_ASSERT(a.stored_keys() == b.stored_keys());
  RC_ASSERT(a.inside_keys() == b.inside_keys());
  for (std::size_t slot = 0; slot < a.stored_keys().size(); ++slot)
    RC_ASSERT(std::memcmp(a.brick_values(slot), b.brick_values(slot), kBrickNodes * sizeof(float)) == 0);
}

}  // namespace
}  // namespace distgrid
