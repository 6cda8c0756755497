// Claim: any monotone weight gives the corner pseudo-normal the same sign as the
// angle weight. A tetrahedron with a sharp, skewed apex v, one face at v fanned
// into 16 triangles (so a per-triangle weight counts it 16 times) is the mesh.
// Points p = v + t*u with u a positive combination of the exact face normals at v
// lie in v's normal cone, so v is their closest point and they are outside (the
// solid is convex). A weighting is wrong at p when (p - v).N < 0 (zero reads
// outside, as in core). Area weights are exact rationals (GMP); angle and uniform
// weights need acos and square roots, computed in 134-bit MPFR. Core's own corner
// normal (prepare_mesh) is checked the same way.
#include <array>
#include <cmath>
#include <limits>

#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/rational.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/closest_point.hpp"
#include "distgrid/mesh_prepare.hpp"

namespace distgrid::audit::claim_checks {

namespace {

using RVec = std::array<Rational, 3>;
using HVec = std::array<HighPrecision, 3>;

RVec rational(const Vec3& v) { return {Rational(v[0]), Rational(v[1]), Rational(v[2])}; }
HVec high(const RVec& v) { return {to_high_precision(v[0]), to_high_precision(v[1]), to_high_precision(v[2])}; }
RVec minus(const RVec& a, const RVec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
RVec cross(const RVec& u, const RVec& v) {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}
template <class V>
auto dot(const V& u, const V& v) {
  return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
}

constexpr int kFan = 16;

/// Corners: 0 apex v, 1 .. kFan+1 along the edge b1 b2 (b1 first), kFan+2 the third base corner b3.
TriangleMesh skewed_tetrahedron() {
  TriangleMesh mesh;
  mesh.positions.push_back({2, 0.5, 0.25});
  for (int k = 0; k <= kFan; ++k) mesh.positions.push_back({static_cast<double>(k) / kFan, 0, 0});
  mesh.positions.push_back({0, 1, 0});
  const auto b3 = static_cast<std::uint32_t>(kFan + 2);
  for (std::uint32_t k = 1; k <= kFan; ++k) {
    mesh.triangles.push_back({0, k + 1, k});  // the fanned face at v (y = 0 side)
    mesh.triangles.push_back({b3, k, k + 1});  // the base (z = 0), fanned from b3
  }
  mesh.triangles.push_back({0, 1, b3});
  mesh.triangles.push_back({0, b3, static_cast<std::uint32_t>(kFan + 1)});
  return mesh;
}

struct Weighted {
  HVec angle{}, uniform{};
  RVec area{};
};

}  // namespace

ClaimResult normals_any_monotone_weight(ClaimContext& context) {
  const TriangleMesh mesh = skewed_tetrahedron();
  const PreparedMesh prepared = prepare_mesh(mesh, "claim:skewed_tetrahedron");
  // The apex is the first corner used by the first triangle: welded index 0.
  const RVec v = rational(prepared.positions[0]);
  Weighted w;
  std::vector<RVec> face_normals;  // raw normals of the distinct faces at v (cone generators)
  for (const auto& tri : prepared.triangles) {
    int at = -1;
    for (int c = 0; c < 3; ++c)
      if (tri[static_cast<std::size_t>(c)] == 0) at = c;
    if (at < 0) continue;
    const RVec p = rational(prepared.positions[tri[static_cast<std::size_t>(at)]]);
    const RVec e1 = minus(rational(prepared.positions[tri[static_cast<std::size_t>((at + 1) % 3)]]), p);
    const RVec e2 = minus(rational(prepared.positions[tri[static_cast<std::size_t>((at + 2) % 3)]]), p);
    const RVec n = cross(e1, e2);
    const HVec nh = high(n), e1h = high(e1), e2h = high(e2);
    const HighPrecision length = sqrt(dot(nh, nh));
    const HighPrecision angle = acos(dot(e1h, e2h) / (sqrt(dot(e1h, e1h)) * sqrt(dot(e2h, e2h))));
    for (std::size_t a = 0; a < 3; ++a) {
      w.angle[a] += angle * nh[a] / length;
      w.uniform[a] += nh[a] / length;
      w.area[a] += n[a] / 2;
    }
    bool known = false;  // fanned triangles share their face's normal direction
    for (const RVec& f : face_normals) {
      const RVec c = cross(f, n);
      known = known || (c[0] == 0 && c[1] == 0 && c[2] == 0 && dot(f, n) > 0);
    }
    if (!known) face_normals.push_back(n);
  }
  const Vec3& core_normal = prepared.corner_normals[0];
  const HVec core_high = high(rational(core_normal));

  const std::size_t points = context.quick ? 2000 : 20000;
  const RunSettings& s = context.run.settings();
  std::size_t wrong_angle = 0, wrong_area = 0, wrong_uniform = 0, wrong_core = 0, not_closest = 0;
  nlohmann::json counterexample = nullptr;
  for (std::size_t n = 0; n < points; ++n) {
    InputRng rng(s.seed, "claim:normals.any_monotone_weight", "normal_cone", n);
    RVec u{0, 0, 0};
    for (const RVec& face : face_normals) {
      // Positive dyadic weights, cubed so directions near the cone's edges are drawn often.
      const double l = std::ldexp(static_cast<double>(rng.integer(1, 1 << 20)), -20);
      for (std::size_t a = 0; a < 3; ++a) u[a] += Rational(l * l * l) * face[a];
    }
    const HVec uh = high(u);
    const bool angle_wrong = dot(uh, w.angle) < 0, uniform_wrong = dot(uh, w.uniform) < 0,
               area_wrong = dot(u, w.area) < 0, core_wrong = dot(uh, core_high) < 0;
    wrong_angle += angle_wrong;
    wrong_uniform += uniform_wrong;
    wrong_area += area_wrong;
    wrong_core += core_wrong;
    // Core's closest point from p = v + u/64 (rounded to double) must be the apex.
    const Vec3 p{prepared.positions[0][0] + u[0].convert_to<double>() / 64,
                 prepared.positions[0][1] + u[1].convert_to<double>() / 64,
                 prepared.positions[0][2] + u[2].convert_to<double>() / 64};
    double best = std::numeric_limits<double>::infinity();
    Vec3 best_point{};
    for (const auto& tri : prepared.triangles) {
      const ClosestPoint c = closest_point_on_triangle(p, prepared.positions[tri[0]], prepared.positions[tri[1]],
                                                       prepared.positions[tri[2]]);
      if (c.distance_squared < best) {
        best = c.distance_squared;
        best_point = c.point;
      }
    }
    if (best_point != prepared.positions[0]) ++not_closest;
    if ((area_wrong || uniform_wrong) && counterexample.is_null()) {
      counterexample = {
          {"mesh", "tetrahedron with apex v = (2, 0.5, 0.25) over (0,0,0), (1,0,0), (0,1,0); the face (v, b1, b2) "
                   "and the base are fanned into 16 triangles each along b1 b2"},
          {"point", {hex_float(p[0]), hex_float(p[1]), hex_float(p[2])}},
          {"point_minus_apex_direction",
           {u[0].convert_to<double>(), u[1].convert_to<double>(), u[2].convert_to<double>()}},
          {"truth", "outside (p - v lies in v's normal cone of a convex solid)"},
          {"dot_angle_weighted", to_double(dot(uh, w.angle))},
          {"dot_area_weighted", dot(u, w.area).convert_to<double>()},
          {"dot_uniform_weighted", to_double(dot(uh, w.uniform))},
          {"reads_inside_with", nlohmann::json::array()}};
      if (area_wrong) counterexample["reads_inside_with"].push_back("area");
      if (uniform_wrong) counterexample["reads_inside_with"].push_back("uniform");
    }
  }
  ClaimResult r;
  r.numbers = {{"points", points},
               {"apex_closest_point_mismatches_core", not_closest},
               {"wrong_sign",
                {{"angle", wrong_angle}, {"area", wrong_area}, {"uniform", wrong_uniform}, {"core_corner_normal", wrong_core}}},
               {"normals_at_apex",
                {{"angle", {to_double(w.angle[0]), to_double(w.angle[1]), to_double(w.angle[2])}},
                 {"area", {w.area[0].convert_to<double>(), w.area[1].convert_to<double>(), w.area[2].convert_to<double>()}},
                 {"uniform", {to_double(w.uniform[0]), to_double(w.uniform[1]), to_double(w.uniform[2])}},
                 {"core", {core_normal[0], core_normal[1], core_normal[2]}}}},
               {"concave_case", "the mirror image (a tetrahedral cavity) flips every normal and the truth together, "
                                "so it gives the same counts"}};
  const std::string counts = "of " + std::to_string(points) + " points whose closest feature is the apex, the angle "
                             "weight reads " + std::to_string(wrong_angle) + " inside, core's corner normal " +
                             std::to_string(wrong_core) + ", area weights " + std::to_string(wrong_area) +
                             " and uniform weights " + std::to_string(wrong_uniform);
  if (wrong_area > 0 || wrong_uniform > 0) {
    r.verdict = Verdict::refuted;
    r.evidence = "Only the angle weight is safe: at a skewed tetrahedron's apex, " + counts +
                 " (all are outside). Area and triangle-count weights are monotone but give the wrong sign; the "
                 "angle weight's guarantee (Baerentzen and Aanaes) does not carry over.";
    r.counterexample = counterexample;
  } else {
    r.verdict = Verdict::inconclusive;
    r.evidence = "No separating point found: " + counts + ".";
  }
  if (wrong_angle > 0 || wrong_core > 0)
    r.evidence += " The angle weight itself failed, which contradicts its proof: a finding for mesh.normals.";
  return r;
}

}  // namespace distgrid::audit::claim_checks
