#pragma once
// Exact brick ranges and node indices for a coordinate x and a voxel size h,
// both doubles, computed in exact rationals (GMP through Boost.Multiprecision):
// no rounding can move a limit across a brick face. Written from the
// convention in docs/conventions.md (brick b holds nodes 8b .. 8b + 7, node i at i h),
// not from core/.
#include <cstdint>

#include <boost/multiprecision/gmp.hpp>

namespace distgrid::audit::reference {

using Rational = boost::multiprecision::mpq_rational;
using Integer = boost::multiprecision::mpz_int;

/// floor(n / d) for d > 0 (Integer division truncates towards zero).
inline Integer floor_quotient(const Integer& n, const Integer& d) {
  Integer q = n / d;
  if (q * d != n && n < 0) q -= 1;
  return q;
}

/// floor(x / (steps * h)) exactly. Preconditions: x and h finite, h > 0,
/// steps > 0, and the result fits in 64 bits.
inline std::int64_t exact_floor_of_ratio(double x, double h, std::int64_t steps) {
  const Rational q = Rational(x) / (Rational(h) * Rational(steps));
  return floor_quotient(numerator(q), denominator(q)).convert_to<std::int64_t>();
}

/// The brick whose span [8 b h, 8 (b + 1) h) holds x: floor(x / (8 h)).
inline std::int64_t exact_brick_floor(double x, double h) { return exact_floor_of_ratio(x, h, 8); }

/// First node index at or above x: ceil(x / h).
inline std::int64_t exact_node_at_or_above(double x, double h) { return -exact_floor_of_ratio(-x, h, 1); }

/// Last node index at or below x: floor(x / h).
inline std::int64_t exact_node_at_or_below(double x, double h) { return exact_floor_of_ratio(x, h, 1); }

/// |x - 8 k h| for the brick face 8 k h nearest to x, exactly, rounded to double.
inline double exact_distance_to_brick_face(double x, double h) {
  const Rational width = Rational(h) * 8;
  const Rational q = Rational(x) / width;
  const Integer below = floor_quotient(numerator(q), denominator(q));
  const Rational to_lower = Rational(x) - Rational(below) * width;
  const Rational to_upper = Rational(below + 1) * width - Rational(x);
  return (to_lower < to_upper ? to_lower : to_upper).convert_to<double>();
}

}  // namespace distgrid::audit::reference
