#pragma once
// Reference enclosed volume, V = h^3 * sum over nodes of clamp(1/2 - d/h, 0, 1),
// in high precision. Nodes are enumerated from the grid's own key lists, keys
// decoded with the reference decoding; a brick wholly inside counts 512.
// Brick sums are separate functions so a caller may compute them in parallel.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::audit::reference {

/// One node's share of a voxel: clamp(1/2 - d/h, 0, 1).
inline HighPrecision voxel_share(const HighPrecision& d, double h) {
  const HighPrecision share = HighPrecision(0.5) - d / HighPrecision(h);
  return std::clamp(share, HighPrecision(0), HighPrecision(1));
}

/// Sum of the shares of a brick's 512 nodes, value(i, j, k) giving each node's
/// distance; (i, j, k) runs over 8*b + [0, 7] on each axis.
template <class NodeValue>
HighPrecision brick_shares(const BrickTriple& b, double h, NodeValue&& value) {
  HighPrecision sum = 0;
  for (std::int64_t k = 0; k < 8; ++k)
    for (std::int64_t j = 0; j < 8; ++j)
      for (std::int64_t i = 0; i < 8; ++i) sum += voxel_share(value(8 * b[0] + i, 8 * b[1] + j, 8 * b[2] + k), h);
  return sum;
}

/// Sum of the shares of the 512 values of stored brick `slot`, each decoded exactly.
template <class S>
HighPrecision stored_brick_shares(const Grid<S>& grid, std::size_t slot) {
  HighPrecision sum = 0;
  for (std::size_t n = 0; n < 512; ++n) sum += voxel_share(HighPrecision(stored_node_value(grid, slot, n)), grid.h());
  return sum;
}

/// h^3 * (sum of the stored bricks' shares + 512 per inside brick).
inline HighPrecision volume_from_shares(const std::vector<HighPrecision>& brick_sums, std::size_t inside_bricks,
                                        double h) {
  HighPrecision shares = HighPrecision(512) * HighPrecision(inside_bricks);
  for (const HighPrecision& s : brick_sums) shares += s;
  const HighPrecision step(h);
  return shares * step * step * step;
}

/// The volume from the node values as stored: the reference for the core's
/// arithmetic (single-threaded; the audit computes the same sums in parallel).
template <class S>
HighPrecision volume_from_stored(const Grid<S>& grid) {
  std::vector<HighPrecision> sums;
  for (std::size_t slot = 0; slot < grid.stored_keys().size(); ++slot)
    sums.push_back(stored_brick_shares(grid, slot));
  return volume_from_shares(sums, grid.inside_keys().size(), grid.h());
}

/// The volume from node values given by value(i, j, k) (for example exact
/// f(i*h)) over the grid's stored bricks, whose keys are decoded here.
template <class S, class NodeValue>
HighPrecision volume_from_node_values(const Grid<S>& grid, NodeValue&& value) {
  std::vector<HighPrecision> sums;
  for (std::int64_t key : grid.stored_keys()) sums.push_back(brick_shares(brick_of_stored_key(key), grid.h(), value));
  return volume_from_shares(sums, grid.inside_keys().size(), grid.h());
}

}  // namespace distgrid::audit::reference
