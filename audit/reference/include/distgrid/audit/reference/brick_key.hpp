#pragma once
// Reference brick keys, written from the convention in docs/conventions.md and
// not from core/: key = ((bx + 65536) * 131072 + (by + 65536)) * 131072 + (bz + 65536).
// Everything is computed in 128-bit integers, so no input overflows, and the
// inverse reads base-131072 digits off the key.
#include <array>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>

namespace distgrid::audit::reference {

__extension__ using Int128 = __int128;

inline constexpr Int128 kKeyOffset = 65536;
inline constexpr Int128 kKeyBase = 131072;                             ///< 2^17
inline constexpr Int128 kKeyCount = kKeyBase * kKeyBase * kKeyBase;  ///< 2^51 keys

using BrickTriple = std::array<std::int64_t, 3>;

/// True when a brick coordinate has a key: -65536 <= b <= 65535.
constexpr bool brick_coordinate_has_key(std::int64_t b) noexcept {
  const Int128 shifted = Int128{b} + kKeyOffset;
  return shifted >= 0 && shifted < kKeyBase;
}

/// The key of a brick, exact for any coordinates; nullopt when one has no key.
constexpr std::optional<Int128> brick_key_exact(const BrickTriple& b) noexcept {
  for (std::int64_t c : b)
    if (!brick_coordinate_has_key(c)) return std::nullopt;
  Int128 key = 0;
  for (std::int64_t c : b) key = key * kKeyBase + (Int128{c} + kKeyOffset);
  return key;
}

/// The brick of a key, by its three base-2^17 digits; nullopt outside [0, 2^51).
constexpr std::optional<BrickTriple> brick_of_key_exact(Int128 key) noexcept {
  if (key < 0 || key >= kKeyCount) return std::nullopt;
  BrickTriple b{};
  for (int axis = 2; axis >= 0; --axis) {
    b[static_cast<std::size_t>(axis)] = static_cast<std::int64_t>(key % kKeyBase - kKeyOffset);
    key /= kKeyBase;
  }
  return b;
}

/// The brick a key held by a grid names; a key outside [0, 2^51) means a corrupt
/// grid and throws std::logic_error.
inline BrickTriple brick_of_stored_key(std::int64_t key) {
  const auto b = brick_of_key_exact(key);
  if (!b) throw std::logic_error("grid holds a brick key outside [0, 2^51): " + std::to_string(key));
  return *b;
}

/// Brick holding node index i on one axis: floor(i / 8), rounding towards -infinity.
constexpr std::int64_t brick_of_node_exact(std::int64_t i) noexcept {
  const std::int64_t q = i / 8;
  return (i % 8 != 0 && i < 0) ? q - 1 : q;
}

}  // namespace distgrid::audit::reference
