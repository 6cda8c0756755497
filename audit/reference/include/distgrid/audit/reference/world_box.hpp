#pragma once
// Reference world box of a grid's bricks: the extreme brick coordinates of the
// stored and inside keys (decoded by the reference), then lo = 8 b h and
// hi = (8 b + 7) h per axis, exact in high precision (a 20-bit integer times a
// double needs at most 73 bits). Written from docs/conventions.md, not from
// core/.
#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <vector>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/reference/brick_key.hpp"

namespace distgrid::audit::reference {

struct ExactBox {
  std::array<HighPrecision, 3> lo, hi;
};

/// nullopt when there are no keys.
inline std::optional<ExactBox> exact_world_box(const std::vector<std::int64_t>& stored,
                                               const std::vector<std::int64_t>& inside, double h) {
  std::optional<BrickTriple> lo, hi;
  for (const auto* keys : {&stored, &inside})
    for (std::int64_t key : *keys) {
      const BrickTriple b = brick_of_stored_key(key);
      if (!lo) lo = hi = b;
      for (std::size_t a = 0; a < 3; ++a) {
        (*lo)[a] = std::min((*lo)[a], b[a]);
        (*hi)[a] = std::max((*hi)[a], b[a]);
      }
    }
  if (!lo) return std::nullopt;
  ExactBox box;
  const HighPrecision step(h);
  for (std::size_t a = 0; a < 3; ++a) {
    box.lo[a] = HighPrecision(8 * (*lo)[a]) * step;
    box.hi[a] = HighPrecision(8 * (*hi)[a] + 7) * step;
  }
  return box;
}

}  // namespace distgrid::audit::reference
