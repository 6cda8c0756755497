#pragma once
// Closest point on a triangle to a point, and the feature (face, edge, corner) it
// lies on, by Voronoi regions of the triangle (after Ericson, Real-Time Collision
// Detection, 5.1.5). All arithmetic is double.
//
// Tie rule: the regions are tested in the fixed order corner a, corner b, edge ab,
// corner c, edge ca, edge bc, face; a point on the boundary between two regions
// belongs to the one tested first. The same inputs always give the same feature.
//
// No division can be by zero: each edge case divides by a sum of two non-negative
// terms and is taken only when that sum is positive; the face case projects on the
// plane with n = ab x ac and is taken only when n.n is positive and finite. Anything
// else (a zero-length edge, a zero-area or non-finite triangle) falls back to the
// nearest of the three edges as segments, so the function is total.
#include <array>
#include <cstdint>

#include "distgrid/vec3.hpp"

namespace distgrid {

enum class TriangleFeature : std::uint8_t { face, edge_ab, edge_bc, edge_ca, corner_a, corner_b, corner_c };

struct ClosestPoint {
  Vec3 point{0, 0, 0};
  double distance_squared = 0;  ///< |offset|^2
  TriangleFeature feature = TriangleFeature::face;
  /// p - point, computed from p's offsets to the corners (never from `point`'s
  /// world coordinates, which round by an ulp of |point|): the direction a sign
  /// test reads, as accurate far from the origin as near it.
  Vec3 offset{0, 0, 0};
};

namespace detail {
/// start + t*(end - start), with t = 0 and t = 1 giving the ends exactly.
inline Vec3 lerp3(const Vec3& start, const Vec3& end, double t) noexcept {
  if (t <= 0) return start;
  if (t >= 1) return end;
  return {start[0] + t * (end[0] - start[0]), start[1] + t * (end[1] - start[1]), start[2] + t * (end[2] - start[2])};
}
/// The closest point q and the squared length of p - q, that difference given
/// as computed from vectors relative to the triangle's corners: p - q from q's
/// world coordinates would round by an ulp of |q|, which far from the origin is
/// far more than the distance's own rounding.
inline ClosestPoint finish(const Vec3& q, const Vec3& p_minus_q, TriangleFeature feature) noexcept {
  return {q, dot3(p_minus_q, p_minus_q), feature, p_minus_q};
}
/// sp - t se: p's offset from the point s + t se of a segment or edge.
inline Vec3 offset_from(const Vec3& sp, const Vec3& se, double t) noexcept {
  return {sp[0] - t * se[0], sp[1] - t * se[1], sp[2] - t * se[2]};
}

/// Closest point on segment [s, e]; feature is the start corner, the edge or the end corner.
inline ClosestPoint closest_on_segment(const Vec3& p, const Vec3& s, const Vec3& e, TriangleFeature start_corner,
                                       TriangleFeature edge, TriangleFeature end_corner) noexcept {
  const Vec3 se = sub3(e, s), sp = sub3(p, s);
  const double along = dot3(se, sp), length_squared = dot3(se, se);
  if (!(along > 0) || !(length_squared > 0)) return finish(s, sp, start_corner);
  if (along >= length_squared) return finish(e, sub3(p, e), end_corner);
  const double t = along / length_squared;
  return finish(lerp3(s, e, t), offset_from(sp, se, t), edge);
}

/// Degenerate triangles: the nearest of the three edges (ties to ab, then bc, then ca).
inline ClosestPoint closest_on_boundary(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) noexcept {
  using F = TriangleFeature;
  ClosestPoint best = closest_on_segment(p, a, b, F::corner_a, F::edge_ab, F::corner_b);
  const ClosestPoint on_bc = closest_on_segment(p, b, c, F::corner_b, F::edge_bc, F::corner_c);
  if (on_bc.distance_squared < best.distance_squared) best = on_bc;
  const ClosestPoint on_ca = closest_on_segment(p, c, a, F::corner_c, F::edge_ca, F::corner_a);
  if (on_ca.distance_squared < best.distance_squared) best = on_ca;
  return best;
}
}  // namespace detail

/// Closest point of triangle (a, b, c) to p, its squared distance and its feature.
inline ClosestPoint closest_point_on_triangle(const Vec3& p, const Vec3& a, const Vec3& b, const Vec3& c) noexcept {
  using detail::dot3;
  using detail::finish;
  using detail::sub3;
  using F = TriangleFeature;
  const Vec3 ab = sub3(b, a), ac = sub3(c, a), ap = sub3(p, a);
  const double d1 = dot3(ab, ap), d2 = dot3(ac, ap);
  if (d1 <= 0 && d2 <= 0) return finish(a, ap, F::corner_a);

  const Vec3 bp = sub3(p, b);
  const double d3 = dot3(ab, bp), d4 = dot3(ac, bp);
  if (d3 >= 0 && d4 <= d3) return finish(b, bp, F::corner_b);

  const double vc = d1 * d4 - d3 * d2;
  if (vc <= 0 && d1 >= 0 && d3 <= 0) {
    const double denominator = d1 - d3;  // = |ab|^2 > 0 unless ab has zero length
    if (denominator > 0) {
      const double t = d1 / denominator;
      return finish(detail::lerp3(a, b, t), detail::offset_from(ap, ab, t), F::edge_ab);
    }
    return detail::closest_on_boundary(p, a, b, c);
  }

  const Vec3 cp = sub3(p, c);
  const double d5 = dot3(ab, cp), d6 = dot3(ac, cp);
  if (d6 >= 0 && d5 <= d6) return finish(c, cp, F::corner_c);

  const double vb = d5 * d2 - d1 * d6;
  if (vb <= 0 && d2 >= 0 && d6 <= 0) {
    const double denominator = d2 - d6;  // = |ac|^2
    if (denominator > 0) {
      const double t = d2 / denominator;
      return finish(detail::lerp3(a, c, t), detail::offset_from(ap, ac, t), F::edge_ca);
    }
    return detail::closest_on_boundary(p, a, b, c);
  }

  const double va = d3 * d6 - d5 * d4;
  const double towards_c = d4 - d3, towards_b = d5 - d6;
  if (va <= 0 && towards_c >= 0 && towards_b >= 0) {
    const double denominator = towards_c + towards_b;  // = |bc|^2
    if (denominator > 0) {
      const double t = towards_c / denominator;
      return finish(detail::lerp3(b, c, t), detail::offset_from(bp, sub3(c, b), t), F::edge_bc);
    }
    return detail::closest_on_boundary(p, a, b, c);
  }

  // Face: project p on the plane. Unlike the barycentric form, this does not lose
  // digits to va + vb + vc cancelling on thin triangles.
  const Vec3 n = detail::cross3(ab, ac);
  const double nn = dot3(n, n);
  if (!(nn > 0) || !(nn < 1e300)) return detail::closest_on_boundary(p, a, b, c);
  const double t = dot3(n, ap) / nn;
  return finish({p[0] - t * n[0], p[1] - t * n[1], p[2] - t * n[2]}, {t * n[0], t * n[1], t * n[2]}, F::face);
}

/// Lower-case name of a feature ("face", "edge_ab", ..., "corner_c").
inline const char* feature_name(TriangleFeature feature) noexcept {
  switch (feature) {
    case TriangleFeature::face: return "face";
    case TriangleFeature::edge_ab: return "edge_ab";
    case TriangleFeature::edge_bc: return "edge_bc";
    case TriangleFeature::edge_ca: return "edge_ca";
    case TriangleFeature::corner_a: return "corner_a";
    case TriangleFeature::corner_b: return "corner_b";
    case TriangleFeature::corner_c: return "corner_c";
  }
  return "face";
}

}  // namespace distgrid
