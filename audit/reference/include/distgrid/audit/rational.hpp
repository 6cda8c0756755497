#pragma once
// Exact rationals for the audit's decisions and claims: GMP through
// Boost.Multiprecision, with expression templates off so `auto` never holds a
// reference to a temporary. A double converts into it exactly.
#include <boost/multiprecision/gmp.hpp>

#include "distgrid/audit/high_precision.hpp"

namespace distgrid::audit {

using Rational = boost::multiprecision::number<boost::multiprecision::gmp_rational, boost::multiprecision::et_off>;

/// The nearest HighPrecision value (exact when numerator and denominator fit its 134 bits).
inline HighPrecision to_high_precision(const Rational& q) {
  return HighPrecision(numerator(q).str()) / HighPrecision(denominator(q).str());
}

}  // namespace distgrid::audit
