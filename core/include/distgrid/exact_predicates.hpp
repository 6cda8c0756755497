#pragma once
// Exact orientation predicates on double coordinates: the sign of a determinant of
// coordinate differences, never wrong by rounding.
//
// A double evaluation with a proven error bound (Shewchuk's first stage) decides
// almost every call. When it cannot, or when a difference is so large or small that
// a product could overflow or underflow, the determinant is computed exactly in
// integer arithmetic: every finite double is an integer times a power of two, so
// after scaling all coordinates by the smallest power of two among them the
// determinant is an integer, computed with a small arbitrary-precision integer.
#include "distgrid/vec3.hpp"

namespace distgrid {

/// Sign (+1, 0, -1) of ((b - a) x (c - a)) . (d - a): positive when d lies on the side
/// the normal of abc points to (abc counter-clockwise seen from d), zero when the four
/// points are coplanar. Exact for all finite coordinates.
int orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) noexcept;

/// Sign of component `axis` (0, 1 or 2) of (b - a) x (c - a): the orientation of abc
/// projected along that axis onto the plane of the two other axes, taken in cyclic
/// order ((y, z), (z, x) or (x, y)). Exact for all finite coordinates.
int orient2d(const Vec3& a, const Vec3& b, const Vec3& c, int axis) noexcept;

namespace detail {
/// The exact integer evaluations alone, without the floating-point filter (for tests).
int orient3d_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) noexcept;
int orient2d_exact(const Vec3& a, const Vec3& b, const Vec3& c, int axis) noexcept;
}  // namespace detail

}  // namespace distgrid
