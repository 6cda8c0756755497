#pragma once
// Node values exactly as a grid stores them, looked up without core's own
// lookup (Grid::node, brick_of, BrickIndex) nor its decoding (Storage<S>::decode):
// the grid's key lists are decoded with the reference decoding into the audit's
// own map, and each code with reference_decode.
#include <algorithm>
#include <array>
#include <cmath>
#include <concepts>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::audit::reference {

/// The value of a stored code, decoded here rather than by the core's decode:
/// float and double converted exactly; binary16 bits taken apart into sign,
/// exponent and significand and put together with ldexp; a linear code as
/// offset + code * step rounded once (fma), which the encoding makes exact.
inline double reference_decode(float code, DirectBrick) noexcept { return static_cast<double>(code); }
inline double reference_decode(double code, DirectBrick) noexcept { return code; }
inline double reference_decode(Binary16 code, DirectBrick) noexcept {
  const int exponent = (code.bits >> 10) & 0x1F;
  const int significand = code.bits & 0x3FF;
  const double magnitude = exponent == 0 ? std::ldexp(significand, -24)
                                         : std::ldexp(1024 + significand, exponent - 25);
  return (code.bits & 0x8000u) != 0 ? -magnitude : magnitude;
}
template <std::unsigned_integral Code>
double reference_decode(Code code, const LinearBrick& brick) noexcept {
  return std::fma(static_cast<double>(code), brick.step, brick.offset);
}

/// Half the spacing of a binary floating-point format with `digits` significand
/// bits and smallest normal 2^min_exponent around |stored| (frexp's exponent).
inline double half_spacing(double stored, int digits, int min_exponent) noexcept {
  int e = min_exponent + 1;  // 0 rounds from within the smallest spacing
  if (stored != 0) (void)std::frexp(stored, &e);  // |stored| in [2^(e-1), 2^e)
  return std::ldexp(0.5, std::max(e - 1, min_exponent) - digits + 1);
}

/// The most a node stored as `code` may differ from the value it was rounded
/// from, as the encodings promise it: half the spacing of float or binary16 at
/// the stored value (correct rounding), nothing for double (the reference
/// itself), half the brick's step for the linear codes. The negative subnormal
/// nearest zero also holds every negative value too small for the format (kept
/// inside rather than rounded to -0): the whole spacing there.
inline double reference_node_bound(float code, DirectBrick) noexcept {
  const double stored = static_cast<double>(code);
  return stored == -std::ldexp(1.0, -149) ? std::ldexp(1.0, -149) : half_spacing(stored, 24, -126);
}
inline double reference_node_bound(double, DirectBrick) noexcept { return 0; }
inline double reference_node_bound(Binary16 code, DirectBrick brick) noexcept {
  return code.bits == 0x8001u ? std::ldexp(1.0, -24) : half_spacing(reference_decode(code, brick), 11, -14);
}
template <std::unsigned_integral Code>
double reference_node_bound(Code, const LinearBrick& brick) noexcept {
  return brick.step / 2;
}

/// Node n of stored brick `slot` of the grid, decoded by reference_decode.
template <class S>
double stored_node_value(const Grid<S>& grid, std::size_t slot, std::size_t n) noexcept {
  return reference_decode(grid.brick_codes(slot)[n], grid.brick_parameters(slot));
}

template <class S>
class StoredNodes {
 public:
  /// The grid must outlive this reader. Reads +band*h where no brick is stored
  /// (absent, or no key at all) and -band*h in an inside brick, band*h being
  /// the double product, as the convention says.
  explicit StoredNodes(const Grid<S>& grid) : band_width_(grid.band() * grid.h()) {
    const auto& keys = grid.stored_keys();
    bricks_.reserve(keys.size() + grid.inside_keys().size());
    for (std::size_t slot = 0; slot < keys.size(); ++slot)
      bricks_.emplace(brick_of_stored_key(keys[slot]), Stored{grid.brick_codes(slot), grid.brick_parameters(slot)});
    for (std::int64_t key : grid.inside_keys()) bricks_.emplace(brick_of_stored_key(key), Stored{});
  }

  /// Value of node (i, j, k): its stored code decoded exactly to double.
  double value(std::int64_t i, std::int64_t j, std::int64_t k) const {
    const BrickTriple b{brick_of_node_exact(i), brick_of_node_exact(j), brick_of_node_exact(k)};
    const auto it = bricks_.find(b);
    if (it == bricks_.end()) return band_width_;
    if (it->second.codes == nullptr) return -band_width_;
    const std::int64_t n = (i - 8 * b[0]) + 8 * (j - 8 * b[1]) + 64 * (k - 8 * b[2]);
    return reference_decode(it->second.codes[n], it->second.brick);
  }

  /// The 9 x 9 x 9 node values from node 8 * c to node 8 * c + 8 on each axis
  /// (brick c's nodes and the first of the next brick's), x fastest: value(),
  /// with each of the eight bricks looked up once.
  void block(const BrickTriple& c, std::array<double, 729>& out) const {
    for (int corner = 0; corner < 8; ++corner) {
      const std::array<int, 3> upper{corner & 1, (corner >> 1) & 1, (corner >> 2) & 1};
      const auto it = bricks_.find({c[0] + upper[0], c[1] + upper[1], c[2] + upper[2]});
      const int x0 = 8 * upper[0], y0 = 8 * upper[1], z0 = 8 * upper[2];
      const int x1 = upper[0] != 0 ? 9 : 8, y1 = upper[1] != 0 ? 9 : 8, z1 = upper[2] != 0 ? 9 : 8;
      for (int z = z0; z < z1; ++z)
        for (int y = y0; y < y1; ++y)
          for (int x = x0; x < x1; ++x) {
            double& v = out[static_cast<std::size_t>(x + 9 * y + 81 * z)];
            if (it == bricks_.end()) {
              v = band_width_;
            } else if (it->second.codes == nullptr) {
              v = -band_width_;
            } else {
              const int n = (x - x0) + 8 * (y - y0) + 64 * (z - z0);
              v = reference_decode(it->second.codes[n], it->second.brick);
            }
          }
    }
  }

 private:
  struct Stored {
    const typename distgrid::Storage<S>::Code* codes = nullptr;  // nullptr: an inside brick
    typename distgrid::Storage<S>::Brick brick{};
  };
  struct TripleHash {
    std::size_t operator()(const BrickTriple& b) const noexcept {
      std::uint64_t h = 0;
      for (std::int64_t c : b) h = (h ^ static_cast<std::uint64_t>(c)) * 0x9E3779B97F4A7C15ull;
      return static_cast<std::size_t>(h ^ (h >> 31));
    }
  };
  double band_width_;
  std::unordered_map<BrickTriple, Stored, TripleHash> bricks_;
};

}  // namespace distgrid::audit::reference
