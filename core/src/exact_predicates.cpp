#include "distgrid/exact_predicates.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>

namespace distgrid {
namespace {

/// A signed integer of up to kLimbs * 32 bits (sign and magnitude, magnitude in
/// little-endian 32-bit limbs). Big enough for the determinants here: a coordinate
/// scaled to an integer has at most 53 + 2098 bits (the span of double exponents),
/// a product of three differences at most 3 * 2152 bits.
class BigInt {
 public:
  static constexpr std::size_t kLimbs = 210;

  BigInt() = default;
  /// mantissa * 2^shift, negated when `negative`.
  static BigInt shifted(std::uint64_t mantissa, unsigned shift, bool negative) noexcept {
    BigInt r;
    const unsigned limb = shift / 32, bit = shift % 32;
    // The mantissa's two 32-bit halves shifted by bit < 32 each fit in 64 bits.
    std::uint64_t carry = (mantissa & 0xFFFFFFFFu) << bit;
    r.limbs_[limb] = static_cast<std::uint32_t>(carry);
    carry = (carry >> 32) + ((mantissa >> 32) << bit);
    r.limbs_[limb + 1] = static_cast<std::uint32_t>(carry);
    r.limbs_[limb + 2] = static_cast<std::uint32_t>(carry >> 32);
    r.size_ = limb + 3;
    r.trim();
    r.negative_ = negative && r.size_ != 0;
    return r;
  }
  int sign() const noexcept { return size_ == 0 ? 0 : (negative_ ? -1 : 1); }

  friend BigInt operator-(const BigInt& a, const BigInt& b) noexcept {
    BigInt negated = b;
    negated.negative_ = !b.negative_ && b.size_ != 0;
    return a + negated;
  }
  friend BigInt operator+(const BigInt& a, const BigInt& b) noexcept {
    if (a.negative_ == b.negative_) {
      BigInt r = add_magnitudes(a, b);
      r.negative_ = a.negative_ && r.size_ != 0;
      return r;
    }
    // Opposite signs: the larger magnitude minus the smaller, with the larger's sign.
    const bool a_larger = compare_magnitudes(a, b) >= 0;
    BigInt r = a_larger ? subtract_magnitudes(a, b) : subtract_magnitudes(b, a);
    r.negative_ = (a_larger ? a.negative_ : b.negative_) && r.size_ != 0;
    return r;
  }
  friend BigInt operator*(const BigInt& a, const BigInt& b) noexcept {
    BigInt r;
    if (a.size_ == 0 || b.size_ == 0) return r;
    r.size_ = std::min(a.size_ + b.size_, kLimbs);
    for (std::size_t i = 0; i < a.size_; ++i) {
      std::uint64_t carry = 0;
      for (std::size_t j = 0; j < b.size_ && i + j < kLimbs; ++j) {
        const std::uint64_t t = static_cast<std::uint64_t>(a.limbs_[i]) * b.limbs_[j] + r.limbs_[i + j] + carry;
        r.limbs_[i + j] = static_cast<std::uint32_t>(t);
        carry = t >> 32;
      }
      if (i + b.size_ < kLimbs) r.limbs_[i + b.size_] = static_cast<std::uint32_t>(carry);
    }
    r.trim();
    r.negative_ = (a.negative_ != b.negative_) && r.size_ != 0;
    return r;
  }

 private:
  void trim() noexcept {
    while (size_ > 0 && limbs_[size_ - 1] == 0) --size_;
  }
  static int compare_magnitudes(const BigInt& a, const BigInt& b) noexcept {
    if (a.size_ != b.size_) return a.size_ < b.size_ ? -1 : 1;
    for (std::size_t k = a.size_; k-- > 0;)
      if (a.limbs_[k] != b.limbs_[k]) return a.limbs_[k] < b.limbs_[k] ? -1 : 1;
    return 0;
  }
  static BigInt add_magnitudes(const BigInt& a, const BigInt& b) noexcept {
    BigInt r;
    const std::size_t n = std::max(a.size_, b.size_);
    std::uint64_t carry = 0;
    for (std::size_t k = 0; k < n; ++k) {
      const std::uint64_t t = static_cast<std::uint64_t>(a.limbs_[k]) + b.limbs_[k] + carry;
      r.limbs_[k] = static_cast<std::uint32_t>(t);
      carry = t >> 32;
    }
    r.size_ = n;
    if (carry != 0 && n < kLimbs) r.limbs_[r.size_++] = static_cast<std::uint32_t>(carry);
    r.trim();
    return r;
  }
  /// |a| - |b| for |a| >= |b|.
  static BigInt subtract_magnitudes(const BigInt& a, const BigInt& b) noexcept {
    BigInt r;
    std::int64_t borrow = 0;
    for (std::size_t k = 0; k < a.size_; ++k) {
      std::int64_t t = static_cast<std::int64_t>(a.limbs_[k]) - b.limbs_[k] - borrow;
      borrow = t < 0 ? 1 : 0;
      if (t < 0) t += std::int64_t{1} << 32;
      r.limbs_[k] = static_cast<std::uint32_t>(t);
    }
    r.size_ = a.size_;
    r.trim();
    return r;
  }

  std::array<std::uint32_t, kLimbs> limbs_{};
  std::size_t size_ = 0;
  bool negative_ = false;
};

/// A finite double as mantissa * 2^exponent with an integer mantissa below 2^53.
struct Dyadic {
  std::uint64_t mantissa = 0;
  int exponent = 0;
  bool negative = false;
};

Dyadic dyadic(double v) noexcept {
  Dyadic d;
  if (v == 0) return d;
  int e = 0;
  const double f = std::frexp(std::fabs(v), &e);  // v = f * 2^e, f in [0.5, 1)
  d.mantissa = static_cast<std::uint64_t>(std::ldexp(f, 53));
  d.exponent = e - 53;
  d.negative = v < 0;
  return d;
}

/// The coordinates as integers, all scaled by the same power of two.
template <std::size_t N>
std::array<BigInt, N> scaled_integers(const std::array<double, N>& values) noexcept {
  std::array<Dyadic, N> d{};
  int lowest = std::numeric_limits<int>::max();
  for (std::size_t n = 0; n < N; ++n) {
    d[n] = dyadic(values[n]);
    if (d[n].mantissa != 0) lowest = std::min(lowest, d[n].exponent);
  }
  std::array<BigInt, N> out{};
  for (std::size_t n = 0; n < N; ++n)
    if (d[n].mantissa != 0)
      out[n] = BigInt::shifted(d[n].mantissa, static_cast<unsigned>(d[n].exponent - lowest), d[n].negative);
  return out;
}

/// The other two axes of a projection along `axis`, in cyclic order.
constexpr std::array<std::array<int, 2>, 3> kPlaneAxes{{{1, 2}, {2, 0}, {0, 1}}};

constexpr double kEpsilon = std::numeric_limits<double>::epsilon() / 2;  // 2^-53, the unit roundoff
// Shewchuk's first-stage bounds (ccwerrboundA, o3derrboundA).
constexpr double kOrient2dBound = (3.0 + 16.0 * kEpsilon) * kEpsilon;
constexpr double kOrient3dBound = (7.0 + 56.0 * kEpsilon) * kEpsilon;

/// True when a rounded difference is zero or of a magnitude whose products of up to
/// three factors neither overflow nor underflow, so the first-stage bounds hold.
inline bool filter_safe(double difference) noexcept {
  const double m = std::fabs(difference);
  return m == 0 || (m >= 0x1p-300 && m <= 0x1p+300);
}

inline int sign_of(double v) noexcept { return v > 0 ? 1 : (v < 0 ? -1 : 0); }

}  // namespace

namespace detail {

int orient3d_exact(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) noexcept {
  const std::array<double, 12> values{a[0], a[1], a[2], b[0], b[1], b[2], c[0], c[1], c[2], d[0], d[1], d[2]};
  const std::array<BigInt, 12> v = scaled_integers(values);
  const BigInt ux = v[3] - v[0], uy = v[4] - v[1], uz = v[5] - v[2];
  const BigInt vx = v[6] - v[0], vy = v[7] - v[1], vz = v[8] - v[2];
  const BigInt wx = v[9] - v[0], wy = v[10] - v[1], wz = v[11] - v[2];
  const BigInt det = (uy * vz - uz * vy) * wx + (uz * vx - ux * vz) * wy + (ux * vy - uy * vx) * wz;
  return det.sign();
}

int orient2d_exact(const Vec3& a, const Vec3& b, const Vec3& c, int axis) noexcept {
  const auto [p, q] = kPlaneAxes[static_cast<std::size_t>(axis)];
  const auto P = static_cast<std::size_t>(p), Q = static_cast<std::size_t>(q);
  const std::array<double, 6> values{a[P], a[Q], b[P], b[Q], c[P], c[Q]};
  const std::array<BigInt, 6> v = scaled_integers(values);
  const BigInt det = (v[2] - v[0]) * (v[5] - v[1]) - (v[3] - v[1]) * (v[4] - v[0]);
  return det.sign();
}

}  // namespace detail

int orient3d(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& d) noexcept {
  // Differences from d, as in Shewchuk's orient3d, whose sign convention is the
  // opposite of this function's (hence the negation at the end).
  const double adx = a[0] - d[0], bdx = b[0] - d[0], cdx = c[0] - d[0];
  const double ady = a[1] - d[1], bdy = b[1] - d[1], cdy = c[1] - d[1];
  const double adz = a[2] - d[2], bdz = b[2] - d[2], cdz = c[2] - d[2];
  bool safe = true;
  for (double difference : {adx, bdx, cdx, ady, bdy, cdy, adz, bdz, cdz}) safe = safe && filter_safe(difference);
  if (safe) {
    const double bdxcdy = bdx * cdy, cdxbdy = cdx * bdy;
    const double cdxady = cdx * ady, adxcdy = adx * cdy;
    const double adxbdy = adx * bdy, bdxady = bdx * ady;
    const double det = adz * (bdxcdy - cdxbdy) + bdz * (cdxady - adxcdy) + cdz * (adxbdy - bdxady);
    const double permanent = (std::fabs(bdxcdy) + std::fabs(cdxbdy)) * std::fabs(adz) +
                             (std::fabs(cdxady) + std::fabs(adxcdy)) * std::fabs(bdz) +
                             (std::fabs(adxbdy) + std::fabs(bdxady)) * std::fabs(cdz);
    const double bound = kOrient3dBound * permanent;
    if (det > bound || -det > bound) return -sign_of(det);
  }
  return detail::orient3d_exact(a, b, c, d);
}

int orient2d(const Vec3& a, const Vec3& b, const Vec3& c, int axis) noexcept {
  const auto [p, q] = kPlaneAxes[static_cast<std::size_t>(axis)];
  const auto P = static_cast<std::size_t>(p), Q = static_cast<std::size_t>(q);
  const double acx = a[P] - c[P], bcx = b[P] - c[P], acy = a[Q] - c[Q], bcy = b[Q] - c[Q];
  if (filter_safe(acx) && filter_safe(bcx) && filter_safe(acy) && filter_safe(bcy)) {
    const double left = acx * bcy, right = acy * bcx;
    const double det = left - right;
    const double bound = kOrient2dBound * (std::fabs(left) + std::fabs(right));
    if (det > bound || -det > bound) return sign_of(det);
  }
  return detail::orient2d_exact(a, b, c, axis);
}

}  // namespace distgrid
