// The encoders: float's and binary16's sign rule, and the linear brick encodings
// (storage.hpp has the rules and why decoding is exact). Out of line, so that a
// change to an encoder rebuilds this file alone.
#include "distgrid/storage.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace distgrid {

namespace detail {

std::uint16_t half_bits_same_side(double v) noexcept {
  const std::uint16_t bits = half_bits(v);
  return bits == 0x8000u && v < 0 ? std::uint16_t{0x8001u} : bits;
}

namespace {

/// The points n * step, step = two_k * w (w a power of two), each exact: n * two_k is
/// an integer below 2^53 for every n a brick's values reach.
struct StepLattice {
  std::int64_t two_k;
  double w;
  double step;
  double at(std::int64_t n) const noexcept { return static_cast<double>(n * two_k) * w; }
  /// floor(v / step), exactly: the rounded quotient's floor, corrected by exact
  /// comparisons with the lattice points beside it.
  std::int64_t floor_of(double v) const noexcept {
    auto n = static_cast<std::int64_t>(std::floor(v / step));
    while (at(n + 1) <= v) ++n;
    while (at(n) > v) --n;
    return n;
  }
};

}  // namespace

template <class Code>
LinearBrick encode_linear(std::span<const double, kBrickNodes> exact, Code* codes) noexcept {
  double lo = exact[0], hi = exact[0];
  for (const double v : exact) {
    lo = v < lo ? v : lo;
    hi = v > hi ? v : hi;
  }
  if (!(lo < hi)) return {lo == 0 ? 0.0 : lo, 0.0};  // all equal: no codes (-0 reads +0)
  const int e = std::ilogb(std::max(std::fabs(lo), std::fabs(hi)));
  const double w = std::ldexp(1.0, std::max(e - 50, -1074));
  // |lo| / w and |hi| / w are below 2^51, and dividing by a power of two is exact.
  const auto lo_units = static_cast<std::int64_t>(std::floor(lo / w));
  const auto hi_units = static_cast<std::int64_t>(std::ceil(hi / w));
  constexpr std::int64_t kTwoLargest = 2 * std::int64_t{std::numeric_limits<Code>::max()};
  const std::int64_t k = (hi_units - lo_units + kTwoLargest - 1) / kTwoLargest;
  const StepLattice lattice{2 * k, w, static_cast<double>(2 * k) * w};
  const std::int64_t m = lattice.floor_of(lo);
  for (std::size_t n = 0; n < kBrickNodes; ++n) codes[n] = static_cast<Code>(lattice.floor_of(exact[n]) - m);
  return {static_cast<double>((2 * m + 1) * k) * w, lattice.step};
}

template LinearBrick encode_linear<std::uint16_t>(std::span<const double, kBrickNodes>, std::uint16_t*) noexcept;
template LinearBrick encode_linear<std::uint8_t>(std::span<const double, kBrickNodes>, std::uint8_t*) noexcept;

}  // namespace detail

Storage<float>::Code Storage<float>::encode_node(double v) noexcept {
  const float rounded = static_cast<float>(v);
  return rounded == 0 && v < 0 ? -std::numeric_limits<float>::denorm_min() : rounded;
}

Storage<Half>::Code Storage<Half>::encode_node(double v) noexcept { return {detail::half_bits_same_side(v)}; }

}  // namespace distgrid
