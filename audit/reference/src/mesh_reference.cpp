#include "distgrid/audit/reference/mesh.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <stdexcept>
#include <utility>

namespace distgrid::audit::reference {

namespace {

/// Sign of w + e*dy + e^2*dz for an infinitesimal e > 0: the first non-zero term.
int perturbed_sign(const Rational& w, const Rational& dy, const Rational& dz) {
  if (w != 0) return w > 0 ? 1 : -1;
  if (dy != 0) return dy > 0 ? 1 : -1;
  if (dz != 0) return dz > 0 ? 1 : -1;
  return 0;
}

double ddot(const Point& u, const Point& v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; }
Point dsub(const Point& u, const Point& v) { return {u[0] - v[0], u[1] - v[1], u[2] - v[2]}; }
Point dcross(const Point& u, const Point& v) {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}
double segment_distance_squared(const Point& p, const Point& s, const Point& e) {
  const Point se = dsub(e, s), sp = dsub(p, s);
  const double along = ddot(se, sp), length_squared = ddot(se, se);
  double t = 0;
  if (along > 0 && length_squared > 0) t = along >= length_squared ? 1 : along / length_squared;
  const Point d{sp[0] - t * se[0], sp[1] - t * se[1], sp[2] - t * se[2]};
  return ddot(d, d);
}

HighPoint high_sub(const HighPoint& u, const HighPoint& v) { return {u[0] - v[0], u[1] - v[1], u[2] - v[2]}; }
HighPrecision high_dot(const HighPoint& u, const HighPoint& v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; }
HighPoint high_cross(const HighPoint& u, const HighPoint& v) {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}
HighPoint to_high_point(const Point& p) { return {HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])}; }

}  // namespace

RationalPoint to_rational(const Point& p) { return {Rational(p[0]), Rational(p[1]), Rational(p[2])}; }

HighPrecision to_high(const Rational& r) {
  return HighPrecision(boost::multiprecision::numerator(r)) / HighPrecision(boost::multiprecision::denominator(r));
}

HighPoint to_high(const RationalPoint& p) { return {to_high(p[0]), to_high(p[1]), to_high(p[2])}; }

std::string_view feature_text(Feature f) noexcept {
  switch (f) {
    case Feature::face: return "face";
    case Feature::edge_ab: return "edge_ab";
    case Feature::edge_bc: return "edge_bc";
    case Feature::edge_ca: return "edge_ca";
    case Feature::corner_a: return "corner_a";
    case Feature::corner_b: return "corner_b";
    case Feature::corner_c: return "corner_c";
  }
  return "face";
}

namespace {

using Integer = boost::multiprecision::mpz_int;
using IntegerPoint = std::array<Integer, 3>;

/// A dyadic number mantissa * 2^exponent.
struct Dyadic {
  Integer mantissa;
  int exponent = 0;
};

Dyadic dyadic_of(double x) {
  if (x == 0) return {Integer(0), 0};
  int e = 0;
  const double m = std::ldexp(std::frexp(x, &e), 53);  // an integer below 2^53 in magnitude
  return {Integer(static_cast<std::int64_t>(m)), e - 53};
}

Dyadic dyadic_of(const Rational& r) {
  const Integer denominator = boost::multiprecision::denominator(r);
  const std::size_t bits = boost::multiprecision::msb(denominator);
  if (Integer(1) << bits != denominator) throw std::invalid_argument("exact_closest_point: a coordinate is not dyadic");
  return {boost::multiprecision::numerator(r), -static_cast<int>(bits)};
}

IntegerPoint isub(const IntegerPoint& u, const IntegerPoint& v) { return {u[0] - v[0], u[1] - v[1], u[2] - v[2]}; }
Integer idot(const IntegerPoint& u, const IntegerPoint& v) { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; }
IntegerPoint icross(const IntegerPoint& u, const IntegerPoint& v) {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}

/// x * 2^-scale in high precision (one rounding).
HighPrecision high_scaled(const Integer& x, int scale) { return ldexp(HighPrecision(x), -scale); }

/// The closest point of segment [s, e] to p: where it lies, and its squared
/// distance as an exact fraction numerator / denominator (denominator > 0).
struct SegmentPoint {
  Integer along, length_squared;  ///< (e - s) . (p - s) and |e - s|^2
  Integer numerator, denominator;
  Feature feature;
};

SegmentPoint closest_on_segment(const IntegerPoint& p, const IntegerPoint& s, const IntegerPoint& e, Feature start,
                                Feature edge, Feature end) {
  const IntegerPoint se = isub(e, s), sp = isub(p, s);
  SegmentPoint out;
  out.along = idot(se, sp);
  out.length_squared = idot(se, se);
  if (out.along <= 0) {
    out.feature = start;
    out.numerator = idot(sp, sp);
    out.denominator = 1;
  } else if (out.along >= out.length_squared) {
    const IntegerPoint ep = isub(p, e);
    out.feature = end;
    out.numerator = idot(ep, ep);
    out.denominator = 1;
  } else {
    // |sp|^2 - along^2 / |se|^2, over |se|^2.
    out.feature = edge;
    out.numerator = idot(sp, sp) * out.length_squared - out.along * out.along;
    out.denominator = out.length_squared;
  }
  return out;
}

/// The closest points of edges ab, bc and ca to p, and which is nearest (a tie
/// between two edges is their shared corner, reported the same by both).
struct EdgePoints {
  std::array<SegmentPoint, 3> on;
  std::size_t best = 0;
};

EdgePoints nearest_edge(const IntegerPoint& p, const IntegerPoint& a, const IntegerPoint& b, const IntegerPoint& c) {
  EdgePoints out{{closest_on_segment(p, a, b, Feature::corner_a, Feature::edge_ab, Feature::corner_b),
                  closest_on_segment(p, b, c, Feature::corner_b, Feature::edge_bc, Feature::corner_c),
                  closest_on_segment(p, c, a, Feature::corner_c, Feature::edge_ca, Feature::corner_a)}};
  for (std::size_t e = 1; e < 3; ++e)
    if (out.on[e].numerator * out.on[out.best].denominator < out.on[out.best].numerator * out.on[e].denominator)
      out.best = e;
  return out;
}

/// p, a, b, c scaled by one power of two into integers: value = integer * 2^-scale.
struct ScaledPoints {
  std::array<IntegerPoint, 4> v;
  int scale = 0;
};

ScaledPoints scaled_points(const std::array<Dyadic, 12>& coordinates) {
  int least = 0;
  bool any = false;
  for (const Dyadic& d : coordinates)
    if (d.mantissa != 0) {
      least = any ? std::min(least, d.exponent) : d.exponent;
      any = true;
    }
  ScaledPoints out;
  out.scale = -least;
  for (std::size_t n = 0; n < 12; ++n)
    out.v[n / 3][n % 3] = coordinates[n].mantissa << static_cast<unsigned>(coordinates[n].exponent - least);
  return out;
}

std::array<Dyadic, 12> dyadic_coordinates(const Point& p, const Point& a, const Point& b, const Point& c) {
  std::array<Dyadic, 12> coordinates;
  for (std::size_t axis = 0; axis < 3; ++axis) {
    coordinates[axis] = dyadic_of(p[axis]);
    coordinates[3 + axis] = dyadic_of(a[axis]);
    coordinates[6 + axis] = dyadic_of(b[axis]);
    coordinates[9 + axis] = dyadic_of(c[axis]);
  }
  return coordinates;
}

ExactClosestPoint closest_point_of(const std::array<Dyadic, 12>& coordinates) {
  const ScaledPoints scaled = scaled_points(coordinates);
  const int scale = scaled.scale;
  const IntegerPoint &p = scaled.v[0], &a = scaled.v[1], &b = scaled.v[2], &c = scaled.v[3];

  const IntegerPoint ab = isub(b, a), ac = isub(c, a), bc = isub(c, b), ap = isub(p, a);
  const IntegerPoint n = icross(ab, ac);
  const Integer nn = idot(n, n);
  // Barycentric weights of p's projection on the plane, times n.n: the signed
  // distances of p to the planes through each edge that contain n, times |n| |edge|.
  const Integer weight_c = idot(n, icross(ab, ap));
  const Integer weight_b = idot(n, icross(ap, ac));
  const Integer weight_a = nn - weight_b - weight_c;
  // Lengths in high precision, in units of 2^-scale (|n| in units of 2^-2 scale).
  const HighPrecision length_n = sqrt(HighPrecision(nn)), length_ab = sqrt(HighPrecision(idot(ab, ab))),
                      length_bc = sqrt(HighPrecision(idot(bc, bc))), length_ca = sqrt(HighPrecision(idot(ac, ac)));
  const auto plane_gap = [&](const Integer& weight, const HighPrecision& edge_length) {
    return ldexp(abs(HighPrecision(weight)) / (length_n * edge_length), -scale);
  };
  const auto perpendicular_gap = [&](const Integer& along, const HighPrecision& edge_length) {
    return ldexp(abs(HighPrecision(along)) / edge_length, -scale);
  };
  const auto to_point = [&](const IntegerPoint& q) {
    return HighPoint{high_scaled(q[0], scale), high_scaled(q[1], scale), high_scaled(q[2], scale)};
  };

  ExactClosestPoint out;
  // A zero-area triangle (nn = 0, every weight 0) is a segment or a point: its
  // closest point is the nearest of its edges', the same point whichever edge
  // ties; it has no Voronoi regions of its own, so the margin is 0.
  if (nn != 0 && weight_a > 0 && weight_b > 0 && weight_c > 0) {
    // p - t n with t = (n . ap) / n.n; squared distance (n . ap)^2 / n.n.
    const Integer along_normal = idot(n, ap);
    const HighPrecision t = HighPrecision(along_normal) / HighPrecision(nn);
    for (std::size_t axis = 0; axis < 3; ++axis)
      out.point[axis] = high_scaled(p[axis], scale) - ldexp(t * HighPrecision(n[axis]), -scale);
    out.distance_squared = ldexp(HighPrecision(along_normal * along_normal) / HighPrecision(nn), -2 * scale);
    out.feature = Feature::face;
    out.margin = std::min({plane_gap(weight_a, length_bc), plane_gap(weight_b, length_ca), plane_gap(weight_c, length_ab)});
    return out;
  }
  // The projection is outside (or on the border): the closest point lies on an
  // edge. The closest point of a triangle is unique, so a tie between two edges
  // is their shared corner, reported the same by both.
  const EdgePoints edges = nearest_edge(p, a, b, c);
  const std::array<SegmentPoint, 3>& on = edges.on;
  const std::size_t best = edges.best;
  const SegmentPoint& won = on[best];
  out.feature = won.feature;
  out.distance_squared = ldexp(HighPrecision(won.numerator) / HighPrecision(won.denominator), -2 * scale);
  const IntegerPoint* start = best == 0 ? &a : (best == 1 ? &b : &c);
  const IntegerPoint* end = best == 0 ? &b : (best == 1 ? &c : &a);
  if (won.feature != Feature::edge_ab && won.feature != Feature::edge_bc && won.feature != Feature::edge_ca) {
    out.point = to_point(won.feature == Feature::corner_a ? a : (won.feature == Feature::corner_b ? b : c));
  } else {
    const HighPrecision t = HighPrecision(won.along) / HighPrecision(won.length_squared);
    for (std::size_t axis = 0; axis < 3; ++axis)
      out.point[axis] = high_scaled((*start)[axis], scale) + t * high_scaled((*end)[axis] - (*start)[axis], scale);
  }
  if (nn == 0) {
    out.margin = 0;
    return out;
  }
  // Distance to the planes bounding the feature's Voronoi region.
  const IntegerPoint bp = isub(p, b), cp = isub(p, c);
  switch (out.feature) {
    case Feature::edge_ab:
      out.margin = std::min({perpendicular_gap(on[0].along, length_ab),
                             perpendicular_gap(on[0].length_squared - on[0].along, length_ab), plane_gap(weight_c, length_ab)});
      break;
    case Feature::edge_bc:
      out.margin = std::min({perpendicular_gap(on[1].along, length_bc),
                             perpendicular_gap(on[1].length_squared - on[1].along, length_bc), plane_gap(weight_a, length_bc)});
      break;
    case Feature::edge_ca:
      out.margin = std::min({perpendicular_gap(on[2].along, length_ca),
                             perpendicular_gap(on[2].length_squared - on[2].along, length_ca), plane_gap(weight_b, length_ca)});
      break;
    case Feature::corner_a:
      out.margin = std::min(perpendicular_gap(idot(ab, ap), length_ab), perpendicular_gap(idot(ac, ap), length_ca));
      break;
    case Feature::corner_b:
      out.margin = std::min(perpendicular_gap(idot(ab, bp), length_ab), perpendicular_gap(idot(bc, bp), length_bc));
      break;
    case Feature::corner_c:
      out.margin = std::min(perpendicular_gap(idot(ac, cp), length_ca), perpendicular_gap(idot(bc, cp), length_bc));
      break;
    case Feature::face: break;
  }
  return out;
}

}  // namespace

ExactClosestPoint exact_closest_point(const Point& p, const Point& a, const Point& b, const Point& c) {
  return closest_point_of(dyadic_coordinates(p, a, b, c));
}

Rational exact_distance_squared(const Point& p_in, const Point& a_in, const Point& b_in, const Point& c_in) {
  const ScaledPoints scaled = scaled_points(dyadic_coordinates(p_in, a_in, b_in, c_in));
  const IntegerPoint &p = scaled.v[0], &a = scaled.v[1], &b = scaled.v[2], &c = scaled.v[3];
  const IntegerPoint ab = isub(b, a), ac = isub(c, a), ap = isub(p, a);
  const IntegerPoint n = icross(ab, ac);
  const Integer nn = idot(n, n);
  const Integer weight_c = idot(n, icross(ab, ap)), weight_b = idot(n, icross(ap, ac));
  Integer numerator, denominator;
  if (nn != 0 && weight_b > 0 && weight_c > 0 && nn - weight_b - weight_c > 0) {
    const Integer along_normal = idot(n, ap);
    numerator = along_normal * along_normal;
    denominator = nn;
  } else {
    // On an edge (or a zero-area triangle's nearest edge).
    const EdgePoints edges = nearest_edge(p, a, b, c);
    numerator = edges.on[edges.best].numerator;
    denominator = edges.on[edges.best].denominator;
  }
  // Squared lengths carry 2^-2 scale.
  const int twice = 2 * scaled.scale;
  if (twice >= 0) denominator <<= static_cast<unsigned>(twice);
  else numerator <<= static_cast<unsigned>(-twice);
  return Rational(numerator, denominator);
}

ExactClosestPoint exact_closest_point(const RationalPoint& p, const Point& a, const Point& b, const Point& c) {
  std::array<Dyadic, 12> coordinates = dyadic_coordinates({0, 0, 0}, a, b, c);
  for (std::size_t axis = 0; axis < 3; ++axis) coordinates[axis] = dyadic_of(p[axis]);
  return closest_point_of(coordinates);
}

std::vector<Rational> exact_crossings(const Rational& y, const Rational& z, const std::vector<TriangleCorners>& triangles) {
  // Doubles just below and above y and z: a triangle whose box misses them
  // cannot meet the ray (double comparisons are exact).
  const Rational at[3] = {Rational(0), y, z};
  std::array<double, 3> lo{}, hi{};
  for (std::size_t axis = 1; axis < 3; ++axis) {
    const double rounded = at[axis].convert_to<double>();
    lo[axis] = std::nextafter(rounded, -std::numeric_limits<double>::infinity());
    hi[axis] = std::nextafter(rounded, std::numeric_limits<double>::infinity());
  }
  std::vector<Rational> crossings;
  for (const TriangleCorners& t : triangles) {
    bool misses = false;
    for (std::size_t axis = 1; axis < 3 && !misses; ++axis) {
      const double t_lo = std::min({t[0][axis], t[1][axis], t[2][axis]});
      const double t_hi = std::max({t[0][axis], t[1][axis], t[2][axis]});
      misses = t_hi < lo[axis] || t_lo > hi[axis];
    }
    if (misses) continue;
    // Corners relative to the ray in (y, z); edge functions of the projected triangle.
    std::array<std::array<Rational, 2>, 3> r;
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t axis = 0; axis < 2; ++axis) r[c][axis] = Rational(t[c][axis + 1]) - at[axis + 1];
    const auto& A = r[0];
    const auto& B = r[1];
    const auto& C = r[2];
    const Rational w0 = B[0] * C[1] - B[1] * C[0], w1 = C[0] * A[1] - C[1] * A[0], w2 = A[0] * B[1] - A[1] * B[0];
    // Moving the ray by (dy, dz) adds dy (Bz - Cz) + dz (Cy - By) to w0, and so on.
    const int s0 = perturbed_sign(w0, B[1] - C[1], C[0] - B[0]);
    const int s1 = perturbed_sign(w1, C[1] - A[1], A[0] - C[0]);
    const int s2 = perturbed_sign(w2, A[1] - B[1], B[0] - A[0]);
    if (s0 == 0 || s0 != s1 || s1 != s2) continue;
    // All three agree, so the projected area w0 + w1 + w2 is not zero.
    crossings.push_back((w0 * Rational(t[0][0]) + w1 * Rational(t[1][0]) + w2 * Rational(t[2][0])) / (w0 + w1 + w2));
  }
  return crossings;
}

Side side_from_crossings(const Rational& x, const std::vector<Rational>& crossings) {
  std::size_t beyond = 0;
  for (const Rational& c : crossings) {
    if (c == x) return Side::surface;
    if (c > x) ++beyond;
  }
  return beyond % 2 == 1 ? Side::inside : Side::outside;
}

Side exact_side(const RationalPoint& q, const std::vector<TriangleCorners>& triangles) {
  return side_from_crossings(q[0], exact_crossings(q[1], q[2], triangles));
}

double approximate_distance_squared(const Point& p, const Point& a, const Point& b, const Point& c) noexcept {
  const Point ab = dsub(b, a), ac = dsub(c, a), ap = dsub(p, a);
  const Point n = dcross(ab, ac);
  const double nn = ddot(n, n);
  if (nn > 0 && std::isfinite(nn)) {
    const double weight_c = ddot(n, dcross(ab, ap)), weight_b = ddot(n, dcross(ap, ac));
    const double weight_a = nn - weight_b - weight_c;
    if (weight_a > 0 && weight_b > 0 && weight_c > 0) {
      const double t = ddot(n, ap) / nn;
      return t * t * nn;
    }
  }
  return std::min({segment_distance_squared(p, a, b), segment_distance_squared(p, b, c),
                   segment_distance_squared(p, c, a)});
}

HighNormals high_precision_normals(const std::vector<Point>& corners,
                                   const std::vector<std::array<std::uint32_t, 3>>& triangles) {
  HighNormals out;
  out.face.reserve(triangles.size());
  out.corner.assign(corners.size(), {HighPrecision(0), HighPrecision(0), HighPrecision(0)});
  out.corner_terms.assign(corners.size(), 0);
  std::map<std::array<std::uint32_t, 2>, std::vector<std::size_t>> edge_triangles;
  for (std::size_t t = 0; t < triangles.size(); ++t) {
    const auto& tri = triangles[t];
    std::array<HighPoint, 3> v;
    for (std::size_t c = 0; c < 3; ++c) v[c] = to_high_point(corners[tri[c]]);
    const HighPoint n = high_cross(high_sub(v[1], v[0]), high_sub(v[2], v[0]));
    const HighPrecision length = sqrt(high_dot(n, n));
    const HighPoint unit{n[0] / length, n[1] / length, n[2] / length};
    out.face.push_back(unit);
    for (std::size_t c = 0; c < 3; ++c) {
      const HighPoint e1 = high_sub(v[(c + 1) % 3], v[c]), e2 = high_sub(v[(c + 2) % 3], v[c]);
      const HighPoint e1xe2 = high_cross(e1, e2);
      const HighPrecision angle = atan2(sqrt(high_dot(e1xe2, e1xe2)), high_dot(e1, e2));
      for (std::size_t axis = 0; axis < 3; ++axis) out.corner[tri[c]][axis] += angle * unit[axis];
      out.corner_terms[tri[c]] += to_double(angle);
      const std::uint32_t from = tri[c], to = tri[(c + 1) % 3];
      edge_triangles[{std::min(from, to), std::max(from, to)}].push_back(t);
    }
  }
  for (const auto& [edge, users] : edge_triangles) {
    HighPoint sum{HighPrecision(0), HighPrecision(0), HighPrecision(0)};
    for (std::size_t t : users)
      for (std::size_t axis = 0; axis < 3; ++axis) sum[axis] += out.face[t][axis];
    out.edges.push_back(edge);
    out.edge.push_back(sum);
    out.edge_terms.push_back(static_cast<double>(users.size()));
  }
  return out;
}

}  // namespace distgrid::audit::reference
