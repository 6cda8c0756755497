#pragma once
// Exact values of what a grid approximates, behind one interface (ExactShape):
//   - a formula part: its own formula run in high precision, through core's
//     Field::eval<T>, the same template the bake runs in double. That the
//     template's formula is the documented one field.eval checks against the
//     geometric reference (reference/field_geometry.hpp), which uses no core code;
//   - a mesh part: the exact signed distance to its triangles (mesh_distance.hpp),
//     which uses no core code.
// The node and point values a grid's references read are these, clamped to the band.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/reference/mesh_distance.hpp"
#include "distgrid/box.hpp"
#include "distgrid/field.hpp"

namespace distgrid::audit::reference {

/// The function a grid stores samples of: f, negative inside.
class ExactShape {
 public:
  virtual ~ExactShape() = default;
  /// f at a point of doubles, in double: for drawing inputs and for telling that
  /// a value clamps (beyond_band). Within far less than 1e-9 of the band where
  /// |f| is near it.
  virtual double approximate(double x, double y, double z) const = 0;
  /// f at a point whose coordinates are exact dyadic numbers, in high precision.
  virtual HighPrecision exact(const HighPrecision& x, const HighPrecision& y, const HighPrecision& z) const = 0;
  /// A box holding every point where f < 0 (empty or infinite when not known).
  virtual Box bounds() const = 0;
  /// approximate() at the 512 nodes (i0 + i) h, (j0 + j) h, (k0 + k) h of a brick
  /// (x fastest), positions the exact products i h: the same values, batched.
  virtual void approximate_brick(std::int64_t i0, std::int64_t j0, std::int64_t k0, double h, double* out) const {
    for (std::int64_t n = 0; n < 512; ++n)
      out[n] = approximate(static_cast<double>(i0 + (n & 7)) * h, static_cast<double>(j0 + ((n >> 3) & 7)) * h,
                           static_cast<double>(k0 + (n >> 6)) * h);
  }
  /// A bound on |grad f|: 1 for a distance.
  virtual double lipschitz() const = 0;
  /// Whether |f(p)| is the Euclidean distance from p to the surface f = 0.
  virtual bool euclidean() const = 0;
};

/// A compiled formula; `euclidean` says whether it is a distance (see ExactShape).
template <class S>
class FormulaShape final : public ExactShape {
 public:
  FormulaShape(const Field<S>& field, bool euclidean) : field_(&field), euclidean_(euclidean) {}
  double approximate(double x, double y, double z) const override { return field_->template eval<double>(x, y, z); }
  HighPrecision exact(const HighPrecision& x, const HighPrecision& y, const HighPrecision& z) const override {
    return field_->template eval<HighPrecision>(x, y, z);
  }
  Box bounds() const override { return field_->bounds(); }
  double lipschitz() const override { return field_->lipschitz(); }
  bool euclidean() const override { return euclidean_; }

 private:
  const Field<S>* field_;
  bool euclidean_;
};

/// A closed triangle mesh: the exact signed distance, exact up to `reach`.
class MeshShape final : public ExactShape {
 public:
  MeshShape(std::vector<TriangleCorners> triangles, double reach) : distance_(std::move(triangles), reach) {}
  double approximate(double x, double y, double z) const override { return distance_.approximate({x, y, z}); }
  HighPrecision exact(const HighPrecision& x, const HighPrecision& y, const HighPrecision& z) const override {
    return distance_.exact({to_rational(x), to_rational(y), to_rational(z)});
  }
  Box bounds() const override {
    Box box;
    box.lo = distance_.lo();
    box.hi = distance_.hi();
    return box;
  }
  void approximate_brick(std::int64_t i0, std::int64_t j0, std::int64_t k0, double h, double* out) const override {
    distance_.approximate_brick(i0, j0, k0, h, out);
  }
  double lipschitz() const override { return 1; }
  bool euclidean() const override { return true; }
  const MeshDistance& distance() const noexcept { return distance_; }

 private:
  MeshDistance distance_;
};

/// clamp(v, -band*h, band*h) with band*h exact in high precision.
inline HighPrecision clamp_to_band(const HighPrecision& v, double h, double band) {
  const HighPrecision width = HighPrecision(band) * HighPrecision(h);
  return std::clamp(v, HighPrecision(-width), width);
}

/// Whether f's double value at coordinates of size `size` lies beyond +-width by
/// far more than its rounding (1e-9 of the width and the size): then f itself
/// does, and clamp(f) is exactly the bound, whichever precision computed f.
inline bool beyond_band(double f, double width, double size) {
  return std::fabs(f) > width + 1e-9 * (width + size);
}

/// clamp(f(x, y, z), +-band*h) from f's double value when that is beyond the band.
inline std::optional<HighPrecision> clearly_clamped(const ExactShape& shape, double x, double y, double z, double h,
                                                    double band) {
  const double rough = shape.approximate(x, y, z);
  if (!beyond_band(rough, band * h, std::fabs(x) + std::fabs(y) + std::fabs(z))) return std::nullopt;
  return clamp_to_band(HighPrecision(rough), h, band);
}

/// clamp(f(i*h, j*h, k*h), +-band*h): what a node would hold if nothing rounded.
/// The position i*h is an exact product (a double times a 64-bit integer fits).
inline HighPrecision exact_node_value(const ExactShape& shape, std::int64_t i, std::int64_t j, std::int64_t k,
                                      double h, double band) {
  if (const auto clamped = clearly_clamped(shape, static_cast<double>(i) * h, static_cast<double>(j) * h,
                                           static_cast<double>(k) * h, h, band))
    return *clamped;
  const HighPrecision step(h);
  return clamp_to_band(shape.exact(HighPrecision(i) * step, HighPrecision(j) * step, HighPrecision(k) * step), h, band);
}

/// clamp(f(p), +-band*h) at a point given in doubles: the true value a clamped
/// distance grid approximates (outside the band the truth is clamped too).
inline HighPrecision exact_point_value(const ExactShape& shape, const std::array<double, 3>& p, double h,
                                       double band) {
  if (const auto clamped = clearly_clamped(shape, p[0], p[1], p[2], h, band)) return *clamped;
  return clamp_to_band(shape.exact(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])), h, band);
}

}  // namespace distgrid::audit::reference

namespace distgrid::audit::reference {

/// An upper bound on the distance from p to the surface f = 0, for a shape
/// whose |f| is not that distance: the least distance from p to a zero of f
/// found along a line from p, the lines being the steepest descent (f's
/// gradient by a high-precision central difference with step 2^-32 h) and
/// the segments to each of `targets` where f has the other sign than at p.
/// Each zero is bracketed by a sign change and refined (Illinois' regula falsi
/// in 134 bits) until the bracket is below 2^-80 h. Null when no line meets a
/// sign change within `reach` (the gradient line) or its target.
std::optional<HighPrecision> distance_to_zero_bound(const ExactShape& shape, const std::array<HighPrecision, 3>& p,
                                                    const std::vector<std::array<HighPrecision, 3>>& targets,
                                                    double h, double reach);

}  // namespace distgrid::audit::reference
