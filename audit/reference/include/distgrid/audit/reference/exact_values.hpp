#pragma once
// Exact distances: the part's own formula run in high precision, through core's
// Field::eval<T>, the same template the bake runs in double. That the template's
// formula is the documented one field.eval checks against the geometric
// reference (reference/field_geometry.hpp), which uses no core code.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/field.hpp"

namespace distgrid::audit::reference {

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
template <class S>
std::optional<HighPrecision> clearly_clamped(const Field<S>& field, double x, double y, double z, double h,
                                             double band) {
  const double rough = field.template eval<double>(x, y, z);
  if (!beyond_band(rough, band * h, std::fabs(x) + std::fabs(y) + std::fabs(z))) return std::nullopt;
  return clamp_to_band(HighPrecision(rough), h, band);
}

/// clamp(f(i*h, j*h, k*h), +-band*h): what a node would hold if nothing rounded.
/// The position i*h is an exact product (a double times a 64-bit integer fits).
template <class S>
HighPrecision exact_node_value(const Field<S>& field, std::int64_t i, std::int64_t j, std::int64_t k, double h,
                               double band) {
  if (const auto clamped = clearly_clamped(field, static_cast<double>(i) * h, static_cast<double>(j) * h,
                                           static_cast<double>(k) * h, h, band))
    return *clamped;
  const HighPrecision step(h);
  const HighPrecision v = field.template eval<HighPrecision>(HighPrecision(i) * step, HighPrecision(j) * step,
                                                             HighPrecision(k) * step);
  return clamp_to_band(v, h, band);
}

/// clamp(f(p), +-band*h) at a point given in doubles: the true value a clamped
/// distance grid approximates (outside the band the truth is clamped too).
template <class S>
HighPrecision exact_point_value(const Field<S>& field, const std::array<double, 3>& p, double h, double band) {
  if (const auto clamped = clearly_clamped(field, p[0], p[1], p[2], h, band)) return *clamped;
  const HighPrecision v =
      field.template eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
  return clamp_to_band(v, h, band);
}

}  // namespace distgrid::audit::reference
