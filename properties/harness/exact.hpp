#pragma once
// Exact and independent checks the properties compare the core against: squared
// distances and regions in exact rationals (every double is a rational), from the
// audit's reference library where it has them, and the generalised winding number
// of a closed mesh. None of this calls the code it checks.
#include <array>
#include <cmath>
#include <numbers>
#include <vector>

#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/mesh.hpp"
#include "distgrid/vec3.hpp"

namespace distgrid::properties {

using Rational = audit::reference::Rational;
using RVec = std::array<Rational, 3>;

inline RVec exact(const Vec3& v) { return {Rational(v[0]), Rational(v[1]), Rational(v[2])}; }
inline RVec rsub(const RVec& a, const RVec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
inline Rational rdot(const RVec& a, const RVec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
inline RVec rcross(const RVec& u, const RVec& v) {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}
inline RVec rlerp(const RVec& s, const RVec& e, const Rational& t) {
  return {s[0] + t * (e[0] - s[0]), s[1] + t * (e[1] - s[1]), s[2] + t * (e[2] - s[2])};
}

/// Closest point of segment [s, e] to p, in T (exact for Rational).
template <class T>
std::array<T, 3> closest_on_segment_in(const std::array<T, 3>& p, const std::array<T, 3>& s, const std::array<T, 3>& e) {
  const auto sub = [](const std::array<T, 3>& u, const std::array<T, 3>& v) {
    return std::array<T, 3>{u[0] - v[0], u[1] - v[1], u[2] - v[2]};
  };
  const auto dot = [](const std::array<T, 3>& u, const std::array<T, 3>& v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; };
  const std::array<T, 3> se = sub(e, s);
  const T length2 = dot(se, se);
  if (length2 == 0) return s;
  T t = dot(sub(p, s), se) / length2;
  if (t < 0) t = 0;
  if (t > 1) t = 1;
  return {s[0] + t * se[0], s[1] + t * se[1], s[2] + t * se[2]};
}

inline RVec exact_closest_on_segment(const RVec& p, const RVec& s, const RVec& e) { return closest_on_segment_in(p, s, e); }

/// Exact squared distance from p to the triangle (a, b, c), degenerate ones included.
inline Rational exact_triangle_distance2(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) {
  return audit::reference::exact_distance_squared(p, a, b, c);
}

inline Rational exact_distance2(const RVec& p, const RVec& q) {
  const RVec d = rsub(p, q);
  return rdot(d, d);
}

/// Generalised winding number of a closed, outward mesh at p (1 inside, 0 outside),
/// as the sum of the triangles' signed solid angles over 4 pi (Van Oosterom and
/// Strackee). Accurate to many digits when p is not close to the surface.
inline double winding_number(const TriangleMesh& mesh, const Vec3& p) {
  long double total = 0;
  for (const auto& t : mesh.triangles) {
    std::array<std::array<long double, 3>, 3> r{};
    std::array<long double, 3> length{};
    for (std::size_t c = 0; c < 3; ++c) {
      for (std::size_t a = 0; a < 3; ++a) {
        r[c][a] = static_cast<long double>(mesh.positions[t[c]][a]) - static_cast<long double>(p[a]);
      }
      length[c] = std::sqrt(r[c][0] * r[c][0] + r[c][1] * r[c][1] + r[c][2] * r[c][2]);
    }
    const auto dot = [](const std::array<long double, 3>& u, const std::array<long double, 3>& v) {
      return u[0] * v[0] + u[1] * v[1] + u[2] * v[2];
    };
    const std::array<long double, 3> bc{r[1][1] * r[2][2] - r[1][2] * r[2][1], r[1][2] * r[2][0] - r[1][0] * r[2][2],
                                        r[1][0] * r[2][1] - r[1][1] * r[2][0]};
    const long double numerator = dot(r[0], bc);
    const long double denominator = length[0] * length[1] * length[2] + dot(r[0], r[1]) * length[2] +
                                    dot(r[0], r[2]) * length[1] + dot(r[1], r[2]) * length[0];
    total += 2 * std::atan2(numerator, denominator);
  }
  return static_cast<double>(total / (4 * std::numbers::pi_v<long double>));
}

/// Distance from p to the nearest triangle of the mesh: the exact squared minimum
/// over all triangles, rounded once to double, then a correctly rounded sqrt.
inline double exact_distance_to_mesh(const TriangleMesh& mesh, const Vec3& p) {
  Rational best = -1;
  for (const auto& t : mesh.triangles) {
    const Rational d2 =
        exact_triangle_distance2(p, mesh.positions[t[0]], mesh.positions[t[1]], mesh.positions[t[2]]);
    if (best < 0 || d2 < best) best = d2;
  }
  return std::sqrt(best.convert_to<double>());
}

/// Distance from p to the nearest triangle in double: an independent estimate,
/// good to a few 1e-16 of the mesh, for telling points near the surface from the rest.
inline double estimated_distance_to_mesh(const TriangleMesh& mesh, const Vec3& p) {
  double best = -1;
  for (const auto& t : mesh.triangles) {
    const double d2 = audit::reference::approximate_distance_squared(p, mesh.positions[t[0]], mesh.positions[t[1]],
                                                                     mesh.positions[t[2]]);
    if (best < 0 || d2 < best) best = d2;
  }
  return std::sqrt(best);
}

}  // namespace distgrid::properties
