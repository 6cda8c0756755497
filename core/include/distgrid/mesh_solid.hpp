#pragma once
// Whether a closed mesh bounds a solid: no two triangles meet except in the corners
// and edges they share, and shells nested inside one another alternate in
// orientation (a shell inside an odd number of others faces inward). Both tests use
// the exact predicates of exact_predicates.hpp, so no rounding can hide or invent an
// intersection.
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "distgrid/vec3.hpp"

namespace distgrid {

using IndexedTriangle = std::array<std::uint32_t, 3>;

/// Whether the closed segment [p, q] and the closed triangle abc have a point in common.
bool segment_meets_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) noexcept;

/// Whether triangles s and t (corner indices into `positions`, welded, both of
/// non-zero area) have a point in common besides the corners and the edge they
/// share: crossing, touching, or overlapping in one plane. Triangles with the same
/// three corners give false (the edge counts see them).
bool triangles_meet(const std::vector<Vec3>& positions, const IndexedTriangle& s, const IndexedTriangle& t) noexcept;

struct TriangleIntersections {
  std::size_t pairs = 0;                      ///< pairs of triangles for which triangles_meet holds
  std::array<std::uint32_t, 2> example{0, 0};  ///< the first such pair in (lower, higher) index order
};

/// Every pair of triangles that meet: candidates from a uniform grid of cells about
/// twice the median triangle's extent (a pair is tested once, in the cell holding
/// the low corner of the overlap of their boxes), each decided by triangles_meet.
/// Checks for an interrupt between chunks of cells; the result does not depend on
/// the thread count (0: all hardware threads).
TriangleIntersections find_triangle_intersections(const std::vector<Vec3>& positions,
                                                  const std::vector<IndexedTriangle>& triangles, unsigned threads = 0);

struct ShellNesting {
  std::size_t shells = 0;
  /// Shells whose orientation is not the one their depth asks for: outward (positive
  /// volume) inside an even number of other shells, inward inside an odd number.
  std::size_t misnested = 0;
  std::uint32_t example_triangle = 0;  ///< a triangle of the first misnested shell
  /// A triangle of the innermost shell around it, or kNoTriangle when none is.
  std::uint32_t example_enclosing_triangle = kNoTriangle;
  double example_volume = 0;  ///< signed volume of the example shell

  static constexpr std::uint32_t kNoTriangle = 0xFFFFFFFFu;
};

/// Nesting of the shells (triangles of one component each, `component[t]` in
/// [0, components)) of a closed, consistently oriented mesh whose triangles do not
/// meet: the depth of each shell is the number of others around one of its corners
/// (exact ray parity, retried along other rays when a ray grazes an edge or corner).
ShellNesting check_shell_nesting(const std::vector<Vec3>& positions, const std::vector<IndexedTriangle>& triangles,
                                 const std::vector<std::uint32_t>& component, std::size_t components);

}  // namespace distgrid
