#pragma once
// Exact distances: the part's own formula run in high precision. The formula is
// the definition of the shape, so here (and only here) the reference calls core
// code: Field::eval<T>, the same template the bake runs in double.
#include <algorithm>
#include <array>
#include <cstdint>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/field.hpp"

namespace distgrid::audit::reference {

/// clamp(v, -band*h, band*h) with band*h exact in high precision.
inline HighPrecision clamp_to_band(const HighPrecision& v, double h, double band) {
  const HighPrecision width = HighPrecision(band) * HighPrecision(h);
  return std::clamp(v, HighPrecision(-width), width);
}

/// clamp(f(i*h, j*h, k*h), +-band*h): what a node would hold if nothing rounded.
/// The position i*h is an exact product (a double times a 64-bit integer fits).
template <class S>
HighPrecision exact_node_value(const Field<S>& field, std::int64_t i, std::int64_t j, std::int64_t k, double h,
                               double band) {
  const HighPrecision step(h);
  const HighPrecision v = field.template eval<HighPrecision>(HighPrecision(i) * step, HighPrecision(j) * step,
                                                             HighPrecision(k) * step);
  return clamp_to_band(v, h, band);
}

/// clamp(f(p), +-band*h) at a point given in doubles: the true value a clamped
/// distance grid approximates (outside the band the truth is clamped too).
template <class S>
HighPrecision exact_point_value(const Field<S>& field, const std::array<double, 3>& p, double h, double band) {
  const HighPrecision v =
      field.template eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
  return clamp_to_band(v, h, band);
}

}  // namespace distgrid::audit::reference
