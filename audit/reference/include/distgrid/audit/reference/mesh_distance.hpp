#pragma once
// The exact signed distance to a closed triangle mesh: the reference of every
// grid baked from a mesh (its node values, samples, gradients, contours and
// volume), written from the mesh's triangles as read, without core's mesh code.
//
// The unsigned distance is the minimum over the triangles of the exact closest
// point's distance (exact_closest_point: rationals, then 134-bit MPFR). The
// candidates come from two uniform grids of cells: coarse cells at least one
// reach wide say whether any triangle lies within reach of a point at all (the
// 27 cells around it list every such triangle), and fine cells, searched in
// rings of growing radius, give the nearest triangles by the audit's own double
// distance, with a slack far wider than its rounding. The side: where the
// closest point lies inside a face, the sign of (p - a) . n for that face's
// normal, exactly (the segment from p to its closest point meets the surface
// only there, so p lies on the side its normal points to); otherwise, and for
// points beyond reach, the parity of the crossings of the ray along +x, each
// crossing decided in double where a forward error bound says the double
// answer is certain, and in rationals (exact_crossings) where it is not.
#include <array>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/reference/mesh.hpp"

namespace distgrid::audit::reference {

/// The dyadic rational a 134-bit value holds, exactly.
Rational to_rational(const HighPrecision& x);

class MeshDistance {
 public:
  /// `triangles`: the corners of every triangle, counter-clockwise seen from
  /// outside (or every one clockwise: the orientation is read from the sign of
  /// the enclosed volume). `reach` > 0: the distance up to which values are
  /// exact; beyond it only the side is (a grid clamps there).
  MeshDistance(std::vector<TriangleCorners> triangles, double reach);

  double reach() const noexcept { return reach_; }
  /// The box of the corners.
  const Point& lo() const noexcept { return lo_; }
  const Point& hi() const noexcept { return hi_; }

  /// The signed distance in double (negative inside): within about 1e-15 of
  /// the mesh's size where it is at most reach; beyond reach +-2 reach with
  /// the exact side. For drawing inputs and for telling that a value clamps.
  double approximate(const Point& p) const;
  /// The signed distance at a dyadic point, 134 bits (0 on the surface);
  /// beyond reach +-2 reach with the exact side.
  HighPrecision exact(const RationalPoint& q) const;
  /// approximate() at the 512 nodes (i0 + i) h, (j0 + j) h, (k0 + k) h of a
  /// brick (i, j, k in 0..7, x fastest), the triangles near the brick found once:
  /// the same values, for the price of far fewer cell visits.
  void approximate_brick(std::int64_t i0, std::int64_t j0, std::int64_t k0, double h, double* out) const;

 private:
  /// One uniform grid over three axes, each cell listing the triangles whose
  /// box meets it (compressed rows: a cell's run of triangle indices).
  struct Cells {
    Point origin{};
    double width = 1;
    std::array<std::int64_t, 3> count{1, 1, 1};
    std::vector<std::uint32_t> start, items;
    std::size_t index(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept {
      return static_cast<std::size_t>((z * count[1] + y) * count[0] + x);
    }
  };
  /// Lists every triangle in the cells its box meets, `width` wide over the box grown by reach.
  void fill_cells(Cells& cells, double width) const;
  /// The least double distance from p to a triangle, or infinity when no
  /// triangle is within reach; with `within`, every triangle whose double
  /// distance is at most that least plus `slack`, with it (a triangle once per
  /// fine cell it meets).
  double nearest(const Point& p, double slack, std::vector<std::pair<std::uint32_t, double>>* within) const;
  /// The side of q by ray parity; `rounded` is q in doubles, and q itself
  /// (nullptr when q is `rounded`) is read only where the doubles cannot decide.
  Side parity_side(const RationalPoint* q, const Point& rounded) const;

  std::vector<TriangleCorners> triangles_;
  /// Per triangle a ball holding it (centroid, radius rounded up): a lower bound
  /// on its distance that spares the exact one for triangles surely farther.
  std::vector<std::array<double, 4>> balls_;
  std::vector<bool> zero_area_;
  bool outward_ = true;  ///< the corners wind counter-clockwise seen from outside
  double reach_;
  double size_ = 0;      ///< the largest |coordinate| of the corners
  Point lo_{}, hi_{};
  Cells coarse_, fine_;
  // The ray grid: columns over (y, z) of the box, each listing the triangles
  // whose (y, z) box meets it.
  std::array<std::int64_t, 2> columns_{};
  std::array<double, 2> column_width_{};
  std::vector<std::uint32_t> column_start_, column_triangles_;
};

}  // namespace distgrid::audit::reference
