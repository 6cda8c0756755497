#pragma once
// Numbers for property inputs: dyadic lattices (exact in float and double) and the
// special values an interface must handle, drawn on purpose because RapidCheck's
// inRange is integer-only and its arbitrary double never gives +-0, infinities,
// NaN, node or brick-face coordinates.
#include <rapidcheck.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "distgrid/brick_key.hpp"

namespace distgrid::properties {

/// Any brick coordinate the key can hold, with the range edges drawn often.
inline rc::Gen<std::int64_t> brick_coordinate() {
  return rc::gen::weightedOneOf<std::int64_t>(
      {{3, rc::gen::inRange<std::int64_t>(kMinBrickCoord, kMaxBrickCoord + 1)},
       {1, rc::gen::elementOf(std::vector<std::int64_t>{kMinBrickCoord, kMinBrickCoord + 1, -1, 0, 1,
                                                        kMaxBrickCoord - 1, kMaxBrickCoord})}});
}

inline rc::Gen<BrickCoord> brick_coord() {
  return rc::gen::apply([](std::int64_t x, std::int64_t y, std::int64_t z) { return BrickCoord{x, y, z}; },
                        brick_coordinate(), brick_coordinate(), brick_coordinate());
}

/// A brick coordinate within `reach` bricks of the origin (shrinks towards 0).
inline rc::Gen<std::int64_t> small_brick_coordinate(std::int64_t reach) {
  return rc::gen::inRange<std::int64_t>(-reach, reach + 1);
}

/// A node index within `reach` nodes of the origin.
inline rc::Gen<std::int64_t> node_index(std::int64_t reach) {
  return rc::gen::inRange<std::int64_t>(-reach, reach + 1);
}

/// 2^e exactly.
inline double power_of_two(int e) { return std::ldexp(1.0, e); }

/// A dyadic number num / 2^bits with |num| < limit: exact in float when limit <= 2^24.
inline rc::Gen<double> dyadic(std::int64_t limit, int bits) {
  return rc::gen::map(rc::gen::inRange<std::int64_t>(-limit + 1, limit), [bits](std::int64_t num) {
    return static_cast<double>(num) / power_of_two(bits);
  });
}

/// A voxel size 2^e with e in [lowest, highest]: scaling by it is exact.
inline rc::Gen<double> power_of_two_h(int lowest, int highest) {
  return rc::gen::map(rc::gen::inRange(lowest, highest + 1), [](int e) { return power_of_two(e); });
}

/// Affine coefficients (c0, cx, cy, cz) on a coarse dyadic lattice, so that
/// c0 + cx*i + cy*j + cz*k is exact in float for node indices up to 2^10.
inline rc::Gen<std::array<double, 4>> affine_coefficients() {
  return rc::gen::apply([](double c0, double cx, double cy, double cz) { return std::array<double, 4>{c0, cx, cy, cz}; },
                        dyadic(256, 4), dyadic(64, 6), dyadic(64, 6), dyadic(64, 6));
}

/// A coordinate, in units of h, that is special for the grid: a node, a brick face
/// or corner, one ulp either side of a node, a point on a fine dyadic lattice
/// inside the cell, or +-0. `reach` bounds the node index.
inline rc::Gen<double> special_voxel_coordinate(std::int64_t reach) {
  const auto one_ulp = [](double v, bool up) {
    return std::nextafter(v, up ? std::numeric_limits<double>::infinity() : -std::numeric_limits<double>::infinity());
  };
  return rc::gen::weightedOneOf<double>(
      {{2, rc::gen::map(node_index(reach), [](std::int64_t i) { return static_cast<double>(i); })},
       {2, rc::gen::map(small_brick_coordinate(reach / 8), [](std::int64_t b) { return static_cast<double>(8 * b); })},
       {2, rc::gen::apply([one_ulp](std::int64_t i, bool up) { return one_ulp(static_cast<double>(i), up); },
                          node_index(reach), rc::gen::arbitrary<bool>())},
       {3, dyadic(reach * 1024, 10)},
       {1, rc::gen::element(0.0, -0.0)}});
}

/// A value of the band's edges and around them, for a grid of this h and band:
/// +-band*h, one ulp inside or outside, +-0 and +-h/2 (the volume's clamp edges).
inline rc::Gen<double> special_node_value(double h, double band) {
  const double edge = band * h;
  const double inf = std::numeric_limits<double>::infinity();
  return rc::gen::element(edge, -edge, std::nextafter(edge, 0.0), std::nextafter(-edge, 0.0),
                          std::nextafter(edge, inf), std::nextafter(-edge, -inf), 0.0, -0.0, 0.5 * h, -0.5 * h,
                          std::nextafter(0.5 * h, 0.0), std::nextafter(-0.5 * h, 0.0));
}

/// Coordinates no interface may choke on: +-0, +-infinity, NaN, huge, tiny.
inline rc::Gen<double> hostile_coordinate() {
  const double inf = std::numeric_limits<double>::infinity();
  return rc::gen::element(0.0, -0.0, inf, -inf, std::numeric_limits<double>::quiet_NaN(), 1e300, -1e300, 4.0e15,
                          -4.0e15, std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::min(),
                          1e9, -1e9);
}

/// A point far from the origin, |x|/h up to 2^30, on the lattice h/2^10.
inline rc::Gen<double> far_coordinate() {
  return rc::gen::map(rc::gen::inRange<std::int64_t>(-(std::int64_t{1} << 40), std::int64_t{1} << 40),
                      [](std::int64_t n) { return static_cast<double>(n) / 1024.0; });
}

}  // namespace distgrid::properties
