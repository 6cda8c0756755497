// The Field members that are not templates on the arithmetic type: the batch
// evaluator the bake calls, ball classification (the plan's Lipschitz test) and
// bounds. Formulas are compiled from JSON in field_json.cpp.
#include "distgrid/field.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <variant>

#include "distgrid/error.hpp"
#include "distgrid/field_kernels.hpp"

namespace distgrid {

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

Box infinite_box() { return Box{{-kInfinity, -kInfinity, -kInfinity}, {kInfinity, kInfinity, kInfinity}}; }

Box centered_box(const detail::Vec3& c, const detail::Vec3& half) {
  return Box{{c[0] - half[0], c[1] - half[1], c[2] - half[2]}, {c[0] + half[0], c[1] + half[1], c[2] + half[2]}};
}

}  // namespace

// ---- batch evaluation -----------------------------------------------------------

namespace {

// Per-point loops over restrict pointers, so GCC vectorises them (sqrt included,
// as the project compiles with -fno-math-errno).
template <class Kernel>
void for_points(std::size_t n, const double* __restrict x, const double* __restrict y, const double* __restrict z,
                double* __restrict out, const Kernel& kernel) {
  for (std::size_t i = 0; i < n; ++i) out[i] = kernel(x[i], y[i], z[i]);
}

void min_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i] < out[i] ? v[i] : out[i];
}
void max_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = v[i] > out[i] ? v[i] : out[i];
}
void max_negated_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) {
    const double w = -v[i];
    out[i] = w > out[i] ? w : out[i];
  }
}
void subtract_into(double* __restrict out, const double* __restrict v, std::size_t n) {
  for (std::size_t i = 0; i < n; ++i) out[i] = out[i] - v[i];
}
void shell_into(double* __restrict out, const double* __restrict t, std::size_t n, detail::ShellSide side) {
  if (side == detail::ShellSide::center) {
    for (std::size_t i = 0; i < n; ++i) out[i] = std::abs(out[i]) - t[i] * 0.5;
  } else if (side == detail::ShellSide::inside) {
    for (std::size_t i = 0; i < n; ++i) {
      const double g = out[i], a = -g - t[i];
      out[i] = a > g ? a : g;
    }
  } else {
    for (std::size_t i = 0; i < n; ++i) {
      const double g = out[i], a = g - t[i], b = -g;
      out[i] = a > b ? a : b;
    }
  }
}

bool overlaps(const double* a, std::size_t na, const double* b, std::size_t nb) {
  const std::less<const double*> less;
  return na > 0 && nb > 0 && less(a, b + nb) && less(b, a + na);
}

}  // namespace

template <class S>
void Field<S>::eval_batch(std::span<const double> x, std::span<const double> y, std::span<const double> z,
                          std::span<double> out, FieldScratch& scratch) const {
  const std::size_t n = x.size();
  if (y.size() != n || z.size() != n || out.size() != n)
    throw Error(ErrorCode::badarg, "eval_batch: x, y, z and out must have the same length");
  if (overlaps(out.data(), n, x.data(), n) || overlaps(out.data(), n, y.data(), n) ||
      overlaps(out.data(), n, z.data(), n))
    throw Error(ErrorCode::badarg, "eval_batch: out must not overlap x, y or z");
  const std::size_t need = nodes_[root_].scratch_blocks * kFieldBatchPoints;
  if (scratch.buffers.size() < need) scratch.buffers.resize(need);
  for (std::size_t begin = 0; begin < n; begin += kFieldBatchPoints) {
    const std::size_t count = std::min(kFieldBatchPoints, n - begin);
    batch_node(root_, x.data() + begin, y.data() + begin, z.data() + begin, out.data() + begin, count,
               scratch.buffers.data());
  }
}

template <class S>
void Field<S>::batch_number(std::uint32_t id, const double* x, const double* y, const double* z, double* out,
                            std::size_t n) const {
  const detail::NumberField<S>& number_field = numbers_[id];
  if (number_field.constant) {
    std::fill(out, out + n, number_field.value);
    return;
  }
  for (std::size_t i = 0; i < n; ++i) out[i] = detail::density_value(number_field.map, x[i], y[i], z[i]);
}

// Each node writes its n values into `out`; `scratch` is free memory (blocks of
// kFieldBatchPoints doubles, as many as the node's scratch_blocks) used as a stack.
template <class S>
void Field<S>::batch_node(detail::NodeId id, const double* x, const double* y, const double* z, double* out,
                          std::size_t n, double* scratch) const {
  using namespace detail;
  constexpr std::size_t B = kFieldBatchPoints;
  std::visit(
      [&](const auto& node) {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, UnionNode> || std::is_same_v<N, IntersectionNode>) {
          batch_node(node.children[0], x, y, z, out, n, scratch);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            batch_node(node.children[c], x, y, z, scratch, n, scratch + B);
            if constexpr (std::is_same_v<N, UnionNode>)
              min_into(out, scratch, n);
            else
              max_into(out, scratch, n);
          }
        } else if constexpr (std::is_same_v<N, DifferenceNode>) {
          batch_node(node.from, x, y, z, out, n, scratch);
          for (const NodeId s : node.subtract) {
            batch_node(s, x, y, z, scratch, n, scratch + B);
            max_negated_into(out, scratch, n);
          }
        } else if constexpr (std::is_same_v<N, OffsetNode>) {
          batch_node(node.child, x, y, z, out, n, scratch);
          batch_number(node.distance, x, y, z, scratch, n);
          subtract_into(out, scratch, n);
        } else if constexpr (std::is_same_v<N, ShellNode>) {
          batch_node(node.child, x, y, z, out, n, scratch);
          batch_number(node.thickness, x, y, z, scratch, n);
          shell_into(out, scratch, n, node.side);
        } else if constexpr (std::is_same_v<N, TranslateNode>) {
          double* __restrict tx = scratch;
          double* __restrict ty = scratch + B;
          double* __restrict tz = scratch + 2 * B;
          const double bx = node.by[0], by = node.by[1], bz = node.by[2];
          for (std::size_t i = 0; i < n; ++i) {
            tx[i] = x[i] - bx;
            ty[i] = y[i] - by;
            tz[i] = z[i] - bz;
          }
          batch_node(node.child, tx, ty, tz, out, n, scratch + 3 * B);
        } else if constexpr (std::is_same_v<N, RotateNode>) {
          double* __restrict tx = scratch;
          double* __restrict ty = scratch + B;
          double* __restrict tz = scratch + 2 * B;
          const std::array<double, 9> m = node.to_child;
          for (std::size_t i = 0; i < n; ++i) {
            tx[i] = m[0] * x[i] + m[1] * y[i] + m[2] * z[i];
            ty[i] = m[3] * x[i] + m[4] * y[i] + m[5] * z[i];
            tz[i] = m[6] * x[i] + m[7] * y[i] + m[8] * z[i];
          }
          batch_node(node.child, tx, ty, tz, out, n, scratch + 3 * B);
        } else if constexpr (std::is_same_v<N, ScaleNode>) {
          double* __restrict tx = scratch;
          double* __restrict ty = scratch + B;
          double* __restrict tz = scratch + 2 * B;
          const double s = node.factor;
          for (std::size_t i = 0; i < n; ++i) {
            tx[i] = x[i] / s;
            ty[i] = y[i] / s;
            tz[i] = z[i] / s;
          }
          batch_node(node.child, tx, ty, tz, out, n, scratch + 3 * B);
          for (std::size_t i = 0; i < n; ++i) out[i] = s * out[i];
        } else if constexpr (std::is_same_v<N, GyroidNode>) {
          double* cell = scratch;
          double* thickness = scratch + B;
          batch_number(node.cell, x, y, z, cell, n);
          batch_number(node.thickness, x, y, z, thickness, n);
          for (std::size_t i = 0; i < n; ++i) out[i] = gyroid_value(node, x[i], y[i], z[i], cell[i], thickness[i]);
        } else {
          const N local = node;  // parameters in registers, not re-read through `out`
          for_points(n, x, y, z, out, [local](double px, double py, double pz) { return distance(local, px, py, pz); });
        }
      },
      nodes_[id].shape);
}

// ---- ball classification ----------------------------------------------------------

namespace {

// Lipschitz test on f(c): outside when f(c) - L r >= above, inside when f(c) + L r <= below.
// `slack` = 1e-9 x (|f(c)| + L r + L |coordinates| + |below| + |above|) covers the
// rounding of f(c) and of the transformed centre: a few dozen double operations err
// by well under 1e-13 of those magnitudes.
BallClass lipschitz_test(double f, double lipschitz, double r, double magnitude, double below, double above) {
  const double reach = lipschitz * r;
  const double slack =
      1e-9 * (std::abs(f) + reach + lipschitz * magnitude + std::abs(below) + std::abs(above));
  if (f - reach - slack >= above) return BallClass::outside;
  if (f + reach + slack <= below) return BallClass::inside;
  return BallClass::near;
}

}  // namespace

template <class S>
BallClass Field<S>::classify(double cx, double cy, double cz, double r, double band_width) const {
  if (!(r >= 0) || !(band_width >= 0) || !std::isfinite(band_width)) return BallClass::near;
  const double magnitude = std::abs(cx) + std::abs(cy) + std::abs(cz) + r;
  if (!std::isfinite(magnitude)) return BallClass::near;
  return classify_node(root_, cx, cy, cz, r, magnitude, -band_width, band_width);
}

template <class S>
BallClass Field<S>::classify_node(detail::NodeId id, double cx, double cy, double cz, double r, double magnitude,
                                  double below, double above) const {
  using namespace detail;
  const Node& self = nodes_[id];
  const auto own_test = [&] {
    return lipschitz_test(eval_node<double>(id, cx, cy, cz), self.lipschitz, r, magnitude, below, above);
  };
  return std::visit(
      [&](const auto& node) -> BallClass {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, UnionNode>) {
          // min: outside when every child is, inside when any child is.
          bool all_outside = true;
          for (const NodeId c : node.children) {
            const BallClass k = classify_node(c, cx, cy, cz, r, magnitude, below, above);
            if (k == BallClass::inside) return BallClass::inside;
            all_outside = all_outside && k == BallClass::outside;
          }
          return all_outside ? BallClass::outside : BallClass::near;
        } else if constexpr (std::is_same_v<N, IntersectionNode>) {
          // max: outside when any child is, inside when every child is.
          bool all_inside = true;
          for (const NodeId c : node.children) {
            const BallClass k = classify_node(c, cx, cy, cz, r, magnitude, below, above);
            if (k == BallClass::outside) return BallClass::outside;
            all_inside = all_inside && k == BallClass::inside;
          }
          return all_inside ? BallClass::inside : BallClass::near;
        } else if constexpr (std::is_same_v<N, DifferenceNode>) {
          // max(from, -s): a subtracted child is tested against the mirrored band.
          const BallClass from = classify_node(node.from, cx, cy, cz, r, magnitude, below, above);
          if (from == BallClass::outside) return BallClass::outside;
          bool all_clear = true;
          for (const NodeId s : node.subtract) {
            const BallClass k = classify_node(s, cx, cy, cz, r, magnitude, -above, -below);
            if (k == BallClass::inside) return BallClass::outside;  // s <= -above: -s >= above
            all_clear = all_clear && k == BallClass::outside;       // s >= -below: -s <= below
          }
          return from == BallClass::inside && all_clear ? BallClass::inside : BallClass::near;
        } else if constexpr (std::is_same_v<N, OffsetNode>) {
          // g - d with d in [min, max]: g >= above + max or g <= below + min decides.
          const NumberField<S>& d = numbers_[node.distance];
          return classify_node(node.child, cx, cy, cz, r, magnitude, below + d.min, above + d.max);
        } else if constexpr (std::is_same_v<N, ShellNode>) {
          // The wall is at least `above` away when g >= above + a or g <= -above - b.
          const double t = numbers_[node.thickness].max;
          const double a = node.side == ShellSide::center ? t / 2 : (node.side == ShellSide::outside ? t : 0);
          const double b = node.side == ShellSide::center ? t / 2 : (node.side == ShellSide::inside ? t : 0);
          const double low = -above - b, high = above + a;
          if (low >= high) return BallClass::outside;  // the two half-lines cover every value
          const BallClass k = classify_node(node.child, cx, cy, cz, r, magnitude, low, high);
          if (k != BallClass::near) return BallClass::outside;
          return own_test();
        } else if constexpr (std::is_same_v<N, TranslateNode>) {
          return classify_node(node.child, cx - node.by[0], cy - node.by[1], cz - node.by[2], r,
                               magnitude + std::abs(node.by[0]) + std::abs(node.by[1]) + std::abs(node.by[2]),
                               below, above);
        } else if constexpr (std::is_same_v<N, RotateNode>) {
          const auto& m = node.to_child;
          return classify_node(node.child, m[0] * cx + m[1] * cy + m[2] * cz, m[3] * cx + m[4] * cy + m[5] * cz,
                               m[6] * cx + m[7] * cy + m[8] * cz, r, 2 * magnitude, below, above);
        } else if constexpr (std::is_same_v<N, ScaleNode>) {
          // f = s g(p / s): f >= above exactly where g >= above / s.
          const double s = node.factor;
          return classify_node(node.child, cx / s, cy / s, cz / s, r / s, magnitude / s, below / s, above / s);
        } else {
          return own_test();  // primitives and the gyroid
        }
      },
      self.shape);
}

// ---- bounds -------------------------------------------------------------------------

template <class S>
Box Field<S>::bounds_within(double level) const {
  if (std::isnan(level)) throw Error(ErrorCode::badarg, "bounds_within: level is not a number");
  return bounds_node(root_, level);
}

// Box holding {f <= level}. Exact distances grow their box by the level; CSG and
// offsets pass the level on (a union's set is the union of its children's, ...).
template <class S>
Box Field<S>::bounds_node(detail::NodeId id, double level) const {
  using namespace detail;
  const double e = std::max(level, 0.0);
  return std::visit(
      [&](const auto& node) -> Box {
        using N = std::decay_t<decltype(node)>;
        if constexpr (std::is_same_v<N, SphereNode>) {
          const double k = node.radius + e;
          return centered_box(node.center, {k, k, k});
        } else if constexpr (std::is_same_v<N, BoxNode>) {
          const double k = node.round + e;
          return centered_box(node.center, {node.inner_half[0] + k, node.inner_half[1] + k, node.inner_half[2] + k});
        } else if constexpr (std::is_same_v<N, CylinderNode>) {
          Vec3 half{};
          for (std::size_t a = 0; a < 3; ++a) half[a] = node.half_length * std::abs(node.axis[a]) + node.radius + e;
          return centered_box(node.center, half);
        } else if constexpr (std::is_same_v<N, TorusNode>) {
          Vec3 half{};
          for (std::size_t a = 0; a < 3; ++a)
            half[a] = (std::abs(node.axis[a]) == 1 ? 0 : node.major) + node.minor + e;
          return centered_box(node.center, half);
        } else if constexpr (std::is_same_v<N, CapsuleNode>) {
          Box b;
          for (std::size_t a = 0; a < 3; ++a) {
            const double end = node.start[a] + node.along[a];
            b.lo[a] = std::min(node.start[a], end) - (node.radius + e);
            b.hi[a] = std::max(node.start[a], end) + (node.radius + e);
          }
          return b;
        } else if constexpr (std::is_same_v<N, HalfSpaceNode>) {
          Box b = infinite_box();
          for (std::size_t a = 0; a < 3; ++a) {
            if (node.unit_normal[a] == 1) b.hi[a] = node.offset + e;
            if (node.unit_normal[a] == -1) b.lo[a] = -(node.offset + e);
          }
          return b;
        } else if constexpr (std::is_same_v<N, UnionNode>) {
          Box hull = bounds_node(node.children[0], level);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            const Box b = bounds_node(node.children[c], level);
            if (b.empty()) continue;
            if (hull.empty()) {
              hull = b;
              continue;
            }
            for (std::size_t a = 0; a < 3; ++a) {
              hull.lo[a] = std::min(hull.lo[a], b.lo[a]);
              hull.hi[a] = std::max(hull.hi[a], b.hi[a]);
            }
          }
          return hull;
        } else if constexpr (std::is_same_v<N, IntersectionNode>) {
          Box common = bounds_node(node.children[0], level);
          for (std::size_t c = 1; c < node.children.size(); ++c) {
            const Box b = bounds_node(node.children[c], level);
            for (std::size_t a = 0; a < 3; ++a) {
              common.lo[a] = std::max(common.lo[a], b.lo[a]);
              common.hi[a] = std::min(common.hi[a], b.hi[a]);
            }
          }
          return common;
        } else if constexpr (std::is_same_v<N, DifferenceNode>) {
          return bounds_node(node.from, level);
        } else if constexpr (std::is_same_v<N, OffsetNode>) {
          return bounds_node(node.child, level + numbers_[node.distance].max);
        } else if constexpr (std::is_same_v<N, ShellNode>) {
          const double t = numbers_[node.thickness].max;
          const double grow = node.side == ShellSide::center ? t / 2 : (node.side == ShellSide::outside ? t : 0);
          return bounds_node(node.child, level + grow);
        } else if constexpr (std::is_same_v<N, TranslateNode>) {
          Box b = bounds_node(node.child, level);
          for (std::size_t a = 0; a < 3; ++a) {
            b.lo[a] += node.by[a];
            b.hi[a] += node.by[a];
          }
          return b;
        } else if constexpr (std::is_same_v<N, RotateNode>) {
          const Box b = bounds_node(node.child, level);
          if (b.empty()) return b;
          if (!b.finite()) return infinite_box();
          // Corners mapped back by M^T (M = to_child is orthogonal up to rounding);
          // the widening covers M^T differing from M^-1 by a few ulps.
          Box out{{kInfinity, kInfinity, kInfinity}, {-kInfinity, -kInfinity, -kInfinity}};
          const auto& m = node.to_child;
          double size = 0;
          for (int corner = 0; corner < 8; ++corner) {
            const Vec3 q{(corner & 1) ? b.hi[0] : b.lo[0], (corner & 2) ? b.hi[1] : b.lo[1],
                         (corner & 4) ? b.hi[2] : b.lo[2]};
            for (std::size_t a = 0; a < 3; ++a) {
              const double p = m[a] * q[0] + m[3 + a] * q[1] + m[6 + a] * q[2];
              out.lo[a] = std::min(out.lo[a], p);
              out.hi[a] = std::max(out.hi[a], p);
              size = std::max(size, std::abs(q[a]));
            }
          }
          for (std::size_t a = 0; a < 3; ++a) {
            out.lo[a] -= 1e-12 * size;
            out.hi[a] += 1e-12 * size;
          }
          return out;
        } else if constexpr (std::is_same_v<N, ScaleNode>) {
          Box b = bounds_node(node.child, level / node.factor);
          for (std::size_t a = 0; a < 3; ++a) {
            b.lo[a] *= node.factor;
            b.hi[a] *= node.factor;
          }
          return b;
        } else {
          return infinite_box();  // a lattice fills space
        }
      },
      nodes_[id].shape);
}

template class Field<float>;
template class Field<double>;
// eval<double>: the kernels are instantiated here only (field_kernels.hpp).
template double Field<float>::eval_node<double>(detail::NodeId, const double&, const double&, const double&) const;
template double Field<double>::eval_node<double>(detail::NodeId, const double&, const double&, const double&) const;

}  // namespace distgrid
