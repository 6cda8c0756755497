#pragma once
// The per-point kernels of a compiled formula (Field<S>, field_nodes.hpp): the
// primitives' distances, the density maps' values and the tree's evaluation.
// eval<T>() and eval_batch() share them, so for T = double they perform the same
// operations in the same order and agree bit for bit. Kernels use unqualified
// math calls (after `using std::sqrt;` ...) so Boost.Multiprecision types are
// found by ADL; every double constant enters as T(c).
//
// Included only where an eval_node<T> is instantiated: core/src/field.cpp for
// double, and the audit's one high-precision instantiation.
#include <cmath>
#include <cstddef>
#include <type_traits>
#include <variant>

#include "distgrid/field_nodes.hpp"

namespace distgrid {

namespace detail {

template <class T>
T min_of(const T& a, const T& b) {
  return a < b ? a : b;
}
template <class T>
T max_of(const T& a, const T& b) {
  return a > b ? a : b;
}
/// max(v, 0), exact below 8e307, written without a branch: a select followed by v*v lets GCC's
/// PRE move the product into one arm, which blocks vectorisation unless FP traps
/// are ignored. NaN stays NaN.
template <class T>
T positive_part(const T& v) {
  using std::abs;
  return (v + abs(v)) * T(0.5);
}

template <class T>
struct CellCoord {
  std::ptrdiff_t index;  ///< lower cell centre of the interpolation interval
  T frac;                ///< 0 at that centre, 1 at the next
};

/// Position along one axis in cell-centre units, clamped to the outermost centres.
template <class T>
CellCoord<T> cell_coord(const T& p, double lo, double width, std::ptrdiff_t n) {
  if (n == 1) return {0, T(0)};
  using std::floor;
  const T u = (p - T(lo)) / T(width) * T(static_cast<double>(n)) - T(0.5);
  const T top = T(static_cast<double>(n - 1));
  const T c = !(u > T(0)) ? T(0) : (u > top ? top : u);  // NaN goes to 0: no bad index
  std::ptrdiff_t i = static_cast<std::ptrdiff_t>(floor(c));
  if (i > n - 2) i = n - 2;
  return {i, c - T(static_cast<double>(i))};
}

template <class T, class S>
T density_value(const DensityMap<S>& map, const T& x, const T& y, const T& z) {
  const std::ptrdiff_t nx = map.cells[0], ny = map.cells[1], nz = map.cells[2];
  const CellCoord<T> cx = cell_coord(x, map.lo[0], map.width[0], nx);
  const CellCoord<T> cy = cell_coord(y, map.lo[1], map.width[1], ny);
  const CellCoord<T> cz = cell_coord(z, map.lo[2], map.width[2], nz);
  const std::ptrdiff_t i0 = cx.index, i1 = nx > 1 ? i0 + 1 : i0;
  const std::ptrdiff_t j0 = cy.index, j1 = ny > 1 ? j0 + 1 : j0;
  const std::ptrdiff_t k0 = cz.index, k1 = nz > 1 ? k0 + 1 : k0;
  const auto at = [&](std::ptrdiff_t i, std::ptrdiff_t j, std::ptrdiff_t k) {
    return T(static_cast<double>(map.data[static_cast<std::size_t>(i + nx * (j + ny * k))]));
  };
  const T gx = T(1) - cx.frac, gy = T(1) - cy.frac, gz = T(1) - cz.frac;
  const T d00 = at(i0, j0, k0) * gx + at(i1, j0, k0) * cx.frac;
  const T d10 = at(i0, j1, k0) * gx + at(i1, j1, k0) * cx.frac;
  const T d01 = at(i0, j0, k1) * gx + at(i1, j0, k1) * cx.frac;
  const T d11 = at(i0, j1, k1) * gx + at(i1, j1, k1) * cx.frac;
  const T density = (d00 * gy + d10 * cy.frac) * gz + (d01 * gy + d11 * cy.frac) * cz.frac;
  return T(map.v0) + (T(map.v1) - T(map.v0)) * density;
}

// ---- per-point kernels (shared by eval<T> and eval_batch) -----------------------

template <class T>
T distance(const SphereNode& s, const T& x, const T& y, const T& z) {
  using std::sqrt;
  const T dx = x - T(s.center[0]), dy = y - T(s.center[1]), dz = z - T(s.center[2]);
  return sqrt(dx * dx + dy * dy + dz * dz) - T(s.radius);
}

template <class T>
T distance(const BoxNode& b, const T& x, const T& y, const T& z) {
  using std::abs;
  using std::sqrt;
  const T qx = abs(x - T(b.center[0])) - T(b.inner_half[0]);
  const T qy = abs(y - T(b.center[1])) - T(b.inner_half[1]);
  const T qz = abs(z - T(b.center[2])) - T(b.inner_half[2]);
  const T ox = positive_part(qx), oy = positive_part(qy), oz = positive_part(qz);
  const T outside = sqrt(ox * ox + oy * oy + oz * oz);
  const T inside = min_of(max_of(qx, max_of(qy, qz)), T(0));
  return outside + inside - T(b.round);
}

template <class T>
T distance(const CylinderNode& c, const T& x, const T& y, const T& z) {
  using std::abs;
  using std::sqrt;
  const T px = x - T(c.center[0]), py = y - T(c.center[1]), pz = z - T(c.center[2]);
  const T t = px * T(c.axis[0]) + py * T(c.axis[1]) + pz * T(c.axis[2]);
  const T wx = px - t * T(c.axis[0]), wy = py - t * T(c.axis[1]), wz = pz - t * T(c.axis[2]);
  const T radial = sqrt(wx * wx + wy * wy + wz * wz) - T(c.radius);
  const T axial = abs(t) - T(c.half_length);
  const T ra = positive_part(radial), aa = positive_part(axial);
  return sqrt(ra * ra + aa * aa) + min_of(max_of(radial, axial), T(0));
}

template <class T>
T distance(const TorusNode& s, const T& x, const T& y, const T& z) {
  using std::sqrt;
  const T px = x - T(s.center[0]), py = y - T(s.center[1]), pz = z - T(s.center[2]);
  const T t = px * T(s.axis[0]) + py * T(s.axis[1]) + pz * T(s.axis[2]);
  const T wx = px - t * T(s.axis[0]), wy = py - t * T(s.axis[1]), wz = pz - t * T(s.axis[2]);
  const T ring = sqrt(wx * wx + wy * wy + wz * wz) - T(s.major);
  return sqrt(ring * ring + t * t) - T(s.minor);
}

template <class T>
T distance(const CapsuleNode& c, const T& x, const T& y, const T& z) {
  using std::sqrt;
  const T px = x - T(c.start[0]), py = y - T(c.start[1]), pz = z - T(c.start[2]);
  // Clamping the projection to [0, |along|^2] before scaling (rather than the ratio
  // to [0, 1]) keeps a runtime bound in the select, which GCC leaves vectorisable.
  const T projection = px * T(c.along[0]) + py * T(c.along[1]) + pz * T(c.along[2]);
  const T u = min_of(max_of(projection, T(0)), T(c.length2)) * T(c.inv_length2);
  const T dx = px - T(c.along[0]) * u, dy = py - T(c.along[1]) * u, dz = pz - T(c.along[2]) * u;
  return sqrt(dx * dx + dy * dy + dz * dz) - T(c.radius);
}

template <class T>
T distance(const HalfSpaceNode& h, const T& x, const T& y, const T& z) {
  return x * T(h.unit_normal[0]) + y * T(h.unit_normal[1]) + z * T(h.unit_normal[2]) - T(h.offset);
}

template <class T>
T gyroid_phase(const GyroidNode& g, const T& p, const T& cell, std::size_t a) {
  if (g.uniform_cell) return (p - T(g.origin[a])) * T(g.phase_per_length);
  const T lo = T(g.hold_lo[a]), hi = T(g.hold_hi[a]);
  const T q = p < lo ? lo : (p > hi ? hi : p);
  return T(kTwoPi) * ((q - T(g.origin[a])) / cell + (p - q) / T(g.cell_max));
}

/// Gyroid wall value at (x, y, z) given the cell size and thickness there.
template <class T>
T gyroid_value(const GyroidNode& g, const T& x, const T& y, const T& z, const T& cell, const T& thickness) {
  using std::abs;
  using std::cos;
  using std::sin;
  const T px = gyroid_phase(g, x, cell, 0), py = gyroid_phase(g, y, cell, 1), pz = gyroid_phase(g, z, cell, 2);
  const T value = sin(px) * cos(py) + sin(py) * cos(pz) + sin(pz) * cos(px);
  if (g.uniform_cell) return abs(value) * T(g.distance_per_value) - thickness * T(0.5);
  return abs(value) * (cell * T(kGyroidDistancePerCell)) - thickness * T(0.5);
}

}  // namespace detail

template <class S>
template <class T>
T Field<S>::number(std::uint32_t id, const T& x, const T& y, const T& z) const {
  const detail::NumberField<S>& n = numbers_[id];
  if (n.constant) return T(n.value);
  return detail::density_value(n.map, x, y, z);
}

template <class S>
template <class T>
T Field<S>::eval_node(detail::NodeId id, const T& x, const T& y, const T& z) const {
  using namespace detail;
  return std::visit(
      [&](const auto& node) -> T {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, UnionNode>) {
          T result = eval_node<T>(node.children[0], x, y, z);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            const T v = eval_node<T>(node.children[c], x, y, z);
            result = v < result ? v : result;
          }
          return result;
        } else if constexpr (std::is_same_v<N, IntersectionNode>) {
          T result = eval_node<T>(node.children[0], x, y, z);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            const T v = eval_node<T>(node.children[c], x, y, z);
            result = v > result ? v : result;
          }
          return result;
        } else if constexpr (std::is_same_v<N, DifferenceNode>) {
          T result = eval_node<T>(node.from, x, y, z);
          for (const NodeId s : node.subtract) {
            const T v = -eval_node<T>(s, x, y, z);
            result = v > result ? v : result;
          }
          return result;
        } else if constexpr (std::is_same_v<N, OffsetNode>) {
          const T g = eval_node<T>(node.child, x, y, z);
          return g - number<T>(node.distance, x, y, z);
        } else if constexpr (std::is_same_v<N, ShellNode>) {
          using std::abs;
          const T g = eval_node<T>(node.child, x, y, z);
          const T t = number<T>(node.thickness, x, y, z);
          if (node.side == ShellSide::center) return abs(g) - t * T(0.5);
          if (node.side == ShellSide::inside) {
            const T a = -g - t;
            return a > g ? a : g;
          }
          const T a = g - t, b = -g;
          return a > b ? a : b;
        } else if constexpr (std::is_same_v<N, TranslateNode>) {
          return eval_node<T>(node.child, x - T(node.by[0]), y - T(node.by[1]), z - T(node.by[2]));
        } else if constexpr (std::is_same_v<N, RotateNode>) {
          const auto& m = node.to_child;
          const T rx = T(m[0]) * x + T(m[1]) * y + T(m[2]) * z;
          const T ry = T(m[3]) * x + T(m[4]) * y + T(m[5]) * z;
          const T rz = T(m[6]) * x + T(m[7]) * y + T(m[8]) * z;
          return eval_node<T>(node.child, rx, ry, rz);
        } else if constexpr (std::is_same_v<N, ScaleNode>) {
          const T s = T(node.factor);
          return s * eval_node<T>(node.child, x / s, y / s, z / s);
        } else if constexpr (std::is_same_v<N, GyroidNode>) {
          const T cell = number<T>(node.cell, x, y, z);
          const T thickness = number<T>(node.thickness, x, y, z);
          return gyroid_value(node, x, y, z, cell, thickness);
        } else {
          return distance(node, x, y, z);
        }
      },
      nodes_[id].shape);
}

}  // namespace distgrid
