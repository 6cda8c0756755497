#pragma once
// Exact and high-precision references for triangle meshes, written without
// core's mesh code:
//   - the closest point of a triangle in exact rationals, found by projecting
//     on the plane and, when the projection falls outside, minimising over the
//     three edges as clamped segments (not by Voronoi region tests), with the
//     feature it lies on and the distance to the nearest plane bounding that
//     feature's Voronoi region;
//   - which side of a closed mesh a point lies on, by the parity of crossings
//     of a ray along +x, decided exactly with the ray perturbed symbolically to
//     (y + e, z + e^2), so rays through edges and corners need no retry;
//   - face, edge and angle-weighted corner pseudo-normals in high precision.
#include <array>
#include <cstdint>
#include <string_view>
#include <vector>

#include <boost/multiprecision/gmp.hpp>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/reference/side.hpp"

namespace distgrid::audit::reference {

using Rational = boost::multiprecision::mpq_rational;
using Point = std::array<double, 3>;
using RationalPoint = std::array<Rational, 3>;
using HighPoint = std::array<HighPrecision, 3>;
using TriangleCorners = std::array<Point, 3>;

/// A double point as exact rationals.
RationalPoint to_rational(const Point& p);
/// A rational converted to high precision (one rounding to 134 bits).
HighPrecision to_high(const Rational& r);
HighPoint to_high(const RationalPoint& p);

/// Where on a triangle (a, b, c) a closest point lies; spelled as core spells it.
enum class Feature : std::uint8_t { face, edge_ab, edge_bc, edge_ca, corner_a, corner_b, corner_c };
/// "face", "edge_ab", "edge_bc", "edge_ca", "corner_a", "corner_b", "corner_c".
std::string_view feature_text(Feature f) noexcept;

struct ExactClosestPoint {
  /// The closest point and its squared distance, in high precision from exact
  /// integer quantities (relative rounding about 2^-134); a distance of exactly
  /// zero is exactly 0.
  HighPoint point;
  HighPrecision distance_squared;
  /// Exact: the feature whose relative interior holds the point: a corner when
  /// the point is a corner, an edge when it lies strictly between an edge's
  /// ends, else the face. On a region boundary the closest point is on both
  /// regions' shared lower-dimensional feature, so this is the tie rule "corner
  /// before edge before face".
  Feature feature = Feature::face;
  /// Euclidean distance from p to the nearest plane bounding the feature's
  /// Voronoi region (0 on a boundary), in high precision; 0 for a triangle of
  /// zero area, which has no regions of its own.
  HighPrecision margin;
};

/// Exact closest point of triangle (a, b, c) to p. Every sign is decided in
/// integers: the coordinates are dyadic, so scaled by a common power of two
/// they are integers. A triangle of zero area (ab x ac = 0 exactly: collinear
/// or coincident corners) is the segment its corners span: the closest point is
/// the nearest of its three edges' (unique, as the segment is convex), the
/// feature that edge's with ties to ab, then bc, then ca (the core's rule).
/// Throws std::invalid_argument when a coordinate of p is not dyadic.
ExactClosestPoint exact_closest_point(const Point& p, const Point& a, const Point& b, const Point& c);
ExactClosestPoint exact_closest_point(const RationalPoint& p, const Point& a, const Point& b, const Point& c);

/// Exact squared distance from p to triangle (a, b, c), zero-area triangles
/// included (the nearest of their edges), by the same projection and clamped
/// segments as exact_closest_point.
Rational exact_distance_squared(const Point& p, const Point& a, const Point& b, const Point& c);

/// Side of q with respect to the closed triangle mesh `triangles` (any
/// orientation), by the parity of the triangles the ray from q along +x
/// crosses, the ray perturbed to (y + e, z + e^2) for an infinitesimal e so it
/// never meets an edge or corner; `surface` when q lies on a crossed triangle
/// (the ray's start hits it). Every predicate is exact.
Side exact_side(const RationalPoint& q, const std::vector<TriangleCorners>& triangles);

/// The x of every crossing of the line {(x, y, z)}, perturbed as above, with
/// the triangles, exactly and unsorted: what exact_side counts, for a whole row.
std::vector<Rational> exact_crossings(const Rational& y, const Rational& z, const std::vector<TriangleCorners>& triangles);
/// Side of the point (x, y, z) from the crossings of its line: inside when an
/// odd number lie beyond x, surface when one is at x.
Side side_from_crossings(const Rational& x, const std::vector<Rational>& crossings);

/// Squared distance from p to triangle (a, b, c) in double, by the same
/// projection and clamped segments as exact_closest_point; used only to pick
/// candidate triangles before the exact minimum. Relative error a few 1e-16
/// of the triangle's scale for non-degenerate triangles; a zero-area triangle
/// gives the nearest edge.
double approximate_distance_squared(const Point& p, const Point& a, const Point& b, const Point& c) noexcept;

/// Pseudo-normals of a triangle mesh in high precision, from corners and
/// triangles: unit face normals (ab x ac)/|ab x ac|; per undirected edge the sum
/// of its triangles' unit normals; per corner the sum over its triangles of the
/// angle there (atan2(|e1 x e2|, e1 . e2), no cosine clamp needed) times the
/// unit normal. Edges are listed in ascending (min corner, max corner) order.
struct HighNormals {
  std::vector<HighPoint> face;
  std::vector<std::array<std::uint32_t, 2>> edges;
  std::vector<HighPoint> edge;
  std::vector<HighPoint> corner;
  /// Sums of the terms' lengths: triangles per edge, angles per corner (radians).
  std::vector<double> edge_terms, corner_terms;
};
HighNormals high_precision_normals(const std::vector<Point>& corners,
                                   const std::vector<std::array<std::uint32_t, 3>>& triangles);

}  // namespace distgrid::audit::reference
