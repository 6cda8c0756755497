// Enclosed volume: V = h^3 * sum over nodes of clamp(1/2 - d/h, 0, 1).
//
// Summation order (fixed, so the result is the same for any thread count and
// any build): within a brick, eight running sums, one per x offset i = n mod 8,
// combined as ((s0 + s1) + (s2 + s3)) + ((s4 + s5) + (s6 + s7)); brick sums are
// then added one after another in ascending key order, an inside brick adding
// 512. The eight lanes keep the inner loop vectorisable and shorten each running
// sum 8-fold. All arithmetic is double; node values are decoded from the
// storage exactly, a brick's decoding parameters loaded once for its 512 nodes.
//
// Two shortcuts that leave every bit unchanged:
// - a brick whose values are all >= h/2 adds 0 and one whose values are all
//   <= -h/2 adds 512 (d/h is correctly rounded and monotone in d, so the clamp
//   gives exactly 0 or 1 at every node); float and double count their codes, the
//   linear storages read it off the brick's offset and step;
// - when h is a power of two, 1/h is exact and d * (1/h) == d / h, so the
//   division becomes a multiplication.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <type_traits>
#include <vector>

#include "distgrid/grid.hpp"

namespace distgrid {

namespace {

bool is_power_of_two(double h) noexcept {
  int exponent = 0;
  return std::frexp(h, &exponent) == 0.5 && std::isnormal(1.0 / h) && std::isnormal(h);
}

// The values the shortcut compares with: for float and double the codes themselves,
// against h/2 rounded up to the storage (round_up_to_storage); for the others the
// decoded doubles, against h/2 itself.
template <class S>
constexpr bool kCompareCodes = std::is_same_v<S, float> || std::is_same_v<S, double>;
template <class S>
using Threshold = std::conditional_t<kCompareCodes<S>, S, double>;

template <class S, bool kMultiply>
double brick_fraction_sum(const BrickView<S>& values, double h, double inv_h) noexcept {
  if constexpr (kCompareCodes<S>) {
    double lane[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    for (int row = 0; row < kBrickNodes / 8; ++row) {
      const BrickView<S> r = values.from(row * 8);
      for (int l = 0; l < 8; ++l) {
        const double d = r[l];
        const double f = 0.5 - (kMultiply ? d * inv_h : d / h);
        const double at_least_zero = f < 0 ? 0.0 : f;  // written so it compiles to max/min
        lane[l] += at_least_zero > 1 ? 1.0 : at_least_zero;
      }
    }
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  } else {
    // The same running sums with a row's eight nodes decoded as one vector
    // (detail::decode_eight): lane l does lane l's operations above.
    detail::Doubles8 lane{};
    for (int row = 0; row < kBrickNodes / 8; ++row) {
      detail::Doubles8 d;
      detail::decode_eight<S>(values.codes + row * 8, values.brick, d);
      const detail::Doubles8 f = 0.5 - (kMultiply ? d * inv_h : d / h);
      const detail::Doubles8 at_least_zero = f < 0 ? detail::Doubles8{} : f;
      lane += at_least_zero > 1 ? detail::Doubles8{} + 1.0 : at_least_zero;
    }
    return ((lane[0] + lane[1]) + (lane[2] + lane[3])) + ((lane[4] + lane[5]) + (lane[6] + lane[7]));
  }
}

// The smallest and largest value a brick reads, or bounds that hold every one: a
// linear brick's offset and offset + C * step (its codes' range, decoding monotone);
// a half brick's smallest and largest codes in the order of their values (the sign
// and magnitude bits turned into one unsigned key), decoded.
template <class S>
std::array<double, 2> value_range(const BrickView<S>& values) noexcept {
  if constexpr (!Storage<S>::kDirect) {
    return {values.brick.offset,
            Storage<S>::decode(static_cast<typename Storage<S>::Code>(Storage<S>::kLargestCode), values.brick)};
  } else {
    // key = bits ^ 0xFFFF for a negative half (larger magnitudes first), bits ^ 0x8000
    // for a positive one: unsigned keys in the order of the values (-0 just below +0).
    const auto flip = [](std::uint16_t v) { return static_cast<std::uint16_t>(((v >> 15) * 0x7FFFu) | 0x8000u); };
    std::uint16_t lo = 0xFFFF, hi = 0;
    for (int n = 0; n < kBrickNodes; ++n) {
      const auto bits = std::bit_cast<std::uint16_t>(values.codes[n]);
      const auto key = static_cast<std::uint16_t>(bits ^ flip(bits));
      lo = key < lo ? key : lo;
      hi = key > hi ? key : hi;
    }
    const auto unkey = [](std::uint16_t key) {
      return detail::half_value(static_cast<std::uint16_t>(key ^ (key < 0x8000 ? 0xFFFFu : 0x8000u)));
    };
    return {unkey(lo), unkey(hi)};
  }
}

template <class S>
double brick_volume_in_voxels(const BrickView<S>& values, Threshold<S> half, double h, double inv_h,
                              bool multiply) noexcept {
  if constexpr (kCompareCodes<S>) {
    // Counting in S (rather than a min/max reduction in double) keeps this pass vectorised.
    int below_half = 0, above_minus_half = 0;
    for (int n = 0; n < kBrickNodes; ++n) {
      const Threshold<S> d = values.codes[n];
      below_half += static_cast<int>(d < half);
      above_minus_half += static_cast<int>(d > -half);
    }
    if (below_half == 0) return 0.0;
    if (above_minus_half == 0) return double{kBrickNodes};
  } else {
    // The same shortcuts from the range the brick's values lie in.
    const std::array<double, 2> range = value_range(values);
    if (range[0] >= half) return 0.0;
    if (range[1] <= -half) return double{kBrickNodes};
  }
  return multiply ? brick_fraction_sum<S, true>(values, h, inv_h) : brick_fraction_sum<S, false>(values, h, inv_h);
}

// Smallest S not below v (v >= 0): for any S value d, d < v exactly when d < result.
// Storages compared decoded take v itself.
template <class S>
Threshold<S> round_up_to_storage(double v) noexcept {
  if constexpr (kCompareCodes<S>) {
    S t = static_cast<S>(v);
    if (static_cast<double>(t) < v) t = std::nextafter(t, std::numeric_limits<S>::infinity());
    return t;
  } else {
    return v;
  }
}

}  // namespace

template <class S>
double Grid<S>::volume() const {
  struct Entry {
    std::int64_t key;
    std::int64_t slot;  // -1: inside brick
  };
  std::vector<Entry> order;
  order.reserve(keys_.size() + inside_keys_.size());
  if (std::is_sorted(keys_.begin(), keys_.end()) && std::is_sorted(inside_keys_.begin(), inside_keys_.end())) {
    // Bakes add bricks in ascending key order: merging the two lists gives the
    // sorted order in one pass (keys are distinct, so it is the same order).
    std::size_t s = 0;
    for (std::int64_t key : inside_keys_) {
      for (; s < keys_.size() && keys_[s] < key; ++s) order.push_back({keys_[s], static_cast<std::int64_t>(s)});
      order.push_back({key, -1});
    }
    for (; s < keys_.size(); ++s) order.push_back({keys_[s], static_cast<std::int64_t>(s)});
  } else {
    for (std::size_t s = 0; s < keys_.size(); ++s) order.push_back({keys_[s], static_cast<std::int64_t>(s)});
    for (std::int64_t key : inside_keys_) order.push_back({key, -1});
    std::sort(order.begin(), order.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  }

  const bool multiply = is_power_of_two(h_);
  const Threshold<S> half = round_up_to_storage<S>(0.5 * h_);
  const double inv_h = 1.0 / h_;
  double total = 0;
  for (const Entry& e : order) {
    total += e.slot < 0 ? double{kBrickNodes}
                        : brick_volume_in_voxels(brick(static_cast<std::size_t>(e.slot)), half, h_, inv_h, multiply);
  }
  return total * (h_ * h_ * h_);
}

template double Grid<float>::volume() const;
template double Grid<double>::volume() const;
template double Grid<Half>::volume() const;
template double Grid<Q16>::volume() const;
template double Grid<Q8>::volume() const;

}  // namespace distgrid
