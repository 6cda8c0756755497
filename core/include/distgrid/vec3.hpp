#pragma once
// A point or direction in world coordinates, and the small vector operations
// the mesh code shares.
#include <array>

namespace distgrid {

using Vec3 = std::array<double, 3>;

namespace detail {
inline double dot3(const Vec3& u, const Vec3& v) noexcept { return u[0] * v[0] + u[1] * v[1] + u[2] * v[2]; }
inline Vec3 sub3(const Vec3& u, const Vec3& v) noexcept { return {u[0] - v[0], u[1] - v[1], u[2] - v[2]}; }
inline Vec3 cross3(const Vec3& u, const Vec3& v) noexcept {
  return {u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
}
}  // namespace detail

}  // namespace distgrid
