#pragma once
// The number type every reference computes in: MPFR with 40 decimal digits
// (134 significand bits), held on the stack so no value allocates. A double
// converts into it exactly, and a sum or product of a few doubles is exact or
// within 2^-133 of exact, so its rounding is invisible next to a double's 2^-53.
#include <limits>

#include <boost/multiprecision/mpfr.hpp>

namespace distgrid::audit {

using HighPrecision =
    boost::multiprecision::number<boost::multiprecision::mpfr_float_backend<40, boost::multiprecision::allocate_stack>,
                                  boost::multiprecision::et_off>;

/// Significand bits of HighPrecision, as the report states it.
inline constexpr int kReferenceBits = std::numeric_limits<HighPrecision>::digits;

/// Nearest double (round to nearest even), for printing and for units.
inline double to_double(const HighPrecision& x) { return x.convert_to<double>(); }

}  // namespace distgrid::audit
