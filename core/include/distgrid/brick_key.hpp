#pragma once
// Brick keys: one whole number naming a brick of 8x8x8 nodes.
//   key = ((bx + 65536) * 131072 + (by + 65536)) * 131072 + (bz + 65536)
// Each shifted coordinate lies in [0, 131071] (17 bits), so a key is below 2^51
// and is exact both as int64 and as an IEEE double.
#include <array>
#include <cstddef>
#include <cstdint>

namespace distgrid {

inline constexpr std::int64_t kBrickKeyOffset = 65536;
inline constexpr std::int64_t kBrickKeyStride = 131072;
/// Smallest and largest brick coordinate a key can hold, on every axis.
inline constexpr std::int64_t kMinBrickCoord = -kBrickKeyOffset;
inline constexpr std::int64_t kMaxBrickCoord = kBrickKeyStride - kBrickKeyOffset - 1;
/// A part may span at most this many bricks along one axis.
inline constexpr std::int64_t kMaxBricksPerAxis = 16000;

inline constexpr int kBrickSide = 8;
inline constexpr int kBrickNodes = 512;  ///< node n = i + 8*j + 64*k, x fastest

struct BrickCoord {
  std::int64_t bx = 0, by = 0, bz = 0;
  friend constexpr bool operator==(const BrickCoord&, const BrickCoord&) = default;
};

constexpr bool brick_coord_in_range(std::int64_t b) noexcept {
  return b >= kMinBrickCoord && b <= kMaxBrickCoord;
}

/// Key of a brick. Precondition: every coordinate in range (see brick_key_checked).
constexpr std::int64_t brick_key(std::int64_t bx, std::int64_t by, std::int64_t bz) noexcept {
  return ((bx + kBrickKeyOffset) * kBrickKeyStride + (by + kBrickKeyOffset)) * kBrickKeyStride +
         (bz + kBrickKeyOffset);
}

/// Key of a brick; throws Error(toolarge) when a coordinate is out of range.
std::int64_t brick_key_checked(std::int64_t bx, std::int64_t by, std::int64_t bz);

/// Inverse of brick_key, by remainders and exact divisions. Precondition: a valid key.
constexpr BrickCoord brick_of(std::int64_t key) noexcept {
  const std::int64_t z = key % kBrickKeyStride;
  const std::int64_t rest = key / kBrickKeyStride;
  const std::int64_t y = rest % kBrickKeyStride;
  const std::int64_t x = rest / kBrickKeyStride;
  return {x - kBrickKeyOffset, y - kBrickKeyOffset, z - kBrickKeyOffset};
}

/// True when key is one that brick_key can produce.
constexpr bool brick_key_valid(std::int64_t key) noexcept {
  return key >= 0 && key < kBrickKeyStride * kBrickKeyStride * kBrickKeyStride;
}

/// World coordinates of a brick's node columns, rows and planes: x[i] = (8*bx + i)*h
/// (the integer index is exact as a double, then one rounding), likewise y, z.
struct BrickNodePositions {
  std::array<double, 8> x{}, y{}, z{};
};

constexpr BrickNodePositions brick_node_positions(std::int64_t key, double h) noexcept {
  const BrickCoord b = brick_of(key);
  BrickNodePositions p;
  for (std::size_t n = 0; n < 8; ++n) {
    const auto offset = static_cast<std::int64_t>(n);
    p.x[n] = static_cast<double>(b.bx * 8 + offset) * h;
    p.y[n] = static_cast<double>(b.by * 8 + offset) * h;
    p.z[n] = static_cast<double>(b.bz * 8 + offset) * h;
  }
  return p;
}

/// Brick holding node index i on one axis (floor division by 8).
constexpr std::int64_t brick_of_node(std::int64_t i) noexcept { return i >> 3; }

}  // namespace distgrid
