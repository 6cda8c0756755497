#pragma once
// RapidCheck generators shared by the property tests (no tests here).
//
// Coordinates are built on dyadic lattices (integer / 2^k) so they are exact in
// float and double; RapidCheck's inRange is integer-only and its arbitrary
// double never yields the special values, so those are added on purpose.
#include <rapidcheck.h>

#include <array>
#include <cstdint>
#include <iterator>
#include <vector>

#include "distgrid/brick_key.hpp"

namespace distgrid::properties {

/// Any brick coordinate the key can hold, with the range edges drawn often.
inline rc::Gen<std::int64_t> brick_coordinate() {
  const std::int64_t edges[] = {kMinBrickCoord, kMinBrickCoord + 1, -1, 0, 1, kMaxBrickCoord - 1,
                                kMaxBrickCoord};
  return rc::gen::weightedOneOf<std::int64_t>(
      {{3, rc::gen::inRange<std::int64_t>(kMinBrickCoord, kMaxBrickCoord + 1)},
       {1, rc::gen::elementOf(std::vector<std::int64_t>(std::begin(edges), std::end(edges)))}});
}

inline rc::Gen<BrickCoord> brick_coord() {
  return rc::gen::apply([](std::int64_t x, std::int64_t y, std::int64_t z) { return BrickCoord{x, y, z}; },
                        brick_coordinate(), brick_coordinate(), brick_coordinate());
}

/// A node index within `reach` nodes of the origin.
inline rc::Gen<std::int64_t> node_index(std::int64_t reach) {
  return rc::gen::inRange<std::int64_t>(-reach, reach + 1);
}

/// A dyadic number num / 2^bits with |num| < limit: exact in float when limit <= 2^24.
inline rc::Gen<double> dyadic(std::int64_t limit, int bits) {
  return rc::gen::map(rc::gen::inRange<std::int64_t>(-limit + 1, limit), [bits](std::int64_t num) {
    return static_cast<double>(num) / static_cast<double>(std::int64_t{1} << bits);
  });
}

/// Affine coefficients (c0, cx, cy, cz) on a coarse dyadic lattice, so that
/// c0 + cx*i + cy*j + cz*k is exact in float for node indices up to 2^10.
inline rc::Gen<std::array<double, 4>> affine_coefficients() {
  return rc::gen::apply([](double c0, double cx, double cy, double cz) { return std::array<double, 4>{c0, cx, cy, cz}; },
                        dyadic(256, 4), dyadic(64, 6), dyadic(64, 6), dyadic(64, 6));
}

}  // namespace distgrid::properties
