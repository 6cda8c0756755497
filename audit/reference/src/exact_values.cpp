#include "distgrid/audit/reference/exact_values.hpp"

#include <cstddef>

namespace distgrid::audit::reference {

namespace {

using HighPoint3 = std::array<HighPrecision, 3>;

HighPoint3 along(const HighPoint3& p, const HighPoint3& direction, const HighPrecision& t) {
  return {p[0] + t * direction[0], p[1] + t * direction[1], p[2] + t * direction[2]};
}

HighPrecision value_at(const ExactShape& shape, const HighPoint3& p) { return shape.exact(p[0], p[1], p[2]); }

/// The zero of g(t) = f(p + t d) in [lo, hi], where g(lo) and g(hi) differ in
/// sign, to within `tolerance` in t: Illinois' regula falsi.
HighPrecision refine_zero(const ExactShape& shape, const HighPoint3& p, const HighPoint3& d, HighPrecision lo,
                          HighPrecision g_lo, HighPrecision hi, HighPrecision g_hi, const HighPrecision& tolerance) {
  int kept_side = 0;  // which end stayed twice in a row
  for (int iteration = 0; iteration < 400 && hi - lo > tolerance; ++iteration) {
    HighPrecision t = (lo * g_hi - hi * g_lo) / (g_hi - g_lo);
    if (!(t > lo && t < hi)) t = (lo + hi) / 2;
    const HighPrecision g = value_at(shape, along(p, d, t));
    if (g == 0) return t;
    if ((g < 0) == (g_lo < 0)) {
      lo = t;
      g_lo = g;
      if (kept_side == 1) g_hi /= 2;
      kept_side = 1;
    } else {
      hi = t;
      g_hi = g;
      if (kept_side == -1) g_lo /= 2;
      kept_side = -1;
    }
  }
  return hi;  // the end of the bracket on the far side: an upper bound on the zero's distance
}

}  // namespace

std::optional<HighPrecision> distance_to_zero_bound(const ExactShape& shape, const HighPoint3& p,
                                                    const std::vector<HighPoint3>& targets, double h, double reach) {
  const HighPrecision f = value_at(shape, p);
  if (f == 0) return HighPrecision(0);
  const bool negative = f < 0;
  const HighPrecision tolerance = HighPrecision(h) * HighPrecision(0x1p-80);
  std::optional<HighPrecision> best;
  const auto consider = [&](const HighPrecision& distance) {
    if (!best || distance < *best) best = distance;
  };
  // The segments to targets of the other sign: a zero lies on each.
  for (const HighPoint3& target : targets) {
    const HighPrecision g = value_at(shape, target);
    if (g == 0) {
      HighPoint3 d{target[0] - p[0], target[1] - p[1], target[2] - p[2]};
      consider(sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]));
      continue;
    }
    if ((g < 0) == negative) continue;
    HighPoint3 d{target[0] - p[0], target[1] - p[1], target[2] - p[2]};
    const HighPrecision length = sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
    for (HighPrecision& c : d) c /= length;
    consider(refine_zero(shape, p, d, HighPrecision(0), f, length, g, tolerance));
  }
  // Steepest descent of |f|: a step of |f| / |grad f| (Newton's) and doublings of it up to reach.
  const HighPrecision step = HighPrecision(h) * HighPrecision(0x1p-32);
  HighPoint3 gradient;
  for (std::size_t a = 0; a < 3; ++a) {
    HighPoint3 lo = p, hi = p;
    lo[a] -= step;
    hi[a] += step;
    gradient[a] = (value_at(shape, hi) - value_at(shape, lo)) / (2 * step);
  }
  const HighPrecision norm = sqrt(gradient[0] * gradient[0] + gradient[1] * gradient[1] + gradient[2] * gradient[2]);
  if (norm > 0) {
    HighPoint3 d;
    for (std::size_t a = 0; a < 3; ++a) d[a] = (negative ? gradient[a] : -gradient[a]) / norm;
    HighPrecision lo = 0, g_lo = f, t = abs(f) / norm;
    const HighPrecision limit = best ? std::min(*best, HighPrecision(reach)) : HighPrecision(reach);
    while (t <= limit * 2) {
      const HighPrecision at = std::min(t, limit);
      const HighPrecision g = value_at(shape, along(p, d, at));
      if (g == 0 || (g < 0) != negative) {
        consider(g == 0 ? at : refine_zero(shape, p, d, lo, g_lo, at, g, tolerance));
        break;
      }
      if (at == limit) break;
      lo = at;
      g_lo = g;
      t *= 2;
    }
  }
  return best;
}

}  // namespace distgrid::audit::reference
