#pragma once
// Node values exactly as a grid stores them, looked up without core's own
// lookup (Grid::node, brick_of, BrickIndex): the grid's key lists are decoded
// with the reference decoding into the audit's own map.
#include <array>
#include <cstddef>
#include <cstdint>
#include <unordered_map>

#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::audit::reference {

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
      bricks_.emplace(brick_of_stored_key(keys[slot]), grid.brick_values(slot));
    for (std::int64_t key : grid.inside_keys()) bricks_.emplace(brick_of_stored_key(key), nullptr);
  }

  /// Value of node (i, j, k), the stored S converted exactly to double.
  double value(std::int64_t i, std::int64_t j, std::int64_t k) const {
    const BrickTriple b{brick_of_node_exact(i), brick_of_node_exact(j), brick_of_node_exact(k)};
    const auto it = bricks_.find(b);
    if (it == bricks_.end()) return band_width_;
    if (it->second == nullptr) return -band_width_;
    const std::int64_t n = (i - 8 * b[0]) + 8 * (j - 8 * b[1]) + 64 * (k - 8 * b[2]);
    return static_cast<double>(it->second[n]);
  }


 private:
  struct TripleHash {
    std::size_t operator()(const BrickTriple& b) const noexcept {
      std::uint64_t h = 0;
      for (std::int64_t c : b) h = (h ^ static_cast<std::uint64_t>(c)) * 0x9E3779B97F4A7C15ull;
      return static_cast<std::size_t>(h ^ (h >> 31));
    }
  };
  double band_width_;
  std::unordered_map<BrickTriple, const S*, TripleHash> bricks_;
};

}  // namespace distgrid::audit::reference
