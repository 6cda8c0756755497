#pragma once
// Baking a grid from a prepared closed triangle mesh.
//
// Bricks computed: those in the brick range of the mesh's box grown by band*h
// whose centre lies within band*h + 3.5*sqrt(3)*h of some triangle (exact test).
// Each node of a computed brick gets the distance to the nearest triangle, over
// every triangle that can come within band*h of it (all others are farther than
// the clamp), so every value inside the band is the exact minimum; its sign is
// that of (node - closest point) . pseudo-normal of the closest feature (a zero
// dot product reads outside). The nearest triangle is the one of smallest squared
// distance (a fixed branch-free formula), on an exact tie the lowest index, whatever
// order the triangles are tried in; its closest point and feature then come from
// closest_point_on_triangle. A node
// with no triangle within band*h takes the sign of a neighbour (no surface lies
// within one voxel of it); a computed brick with no such node, and every brick not
// computed, is classified by ray parity along +x, one ray per row of bricks,
// shifted by a few thousandths of a voxel and retried (three attempts in all)
// while the count is odd or the ray touches an edge or corner exactly.
//
// Threads split the triangles while finding each brick's triangles (the lists are
// then assembled in triangle order) and split the bricks while computing them; each
// brick is computed by the same code from the same list, so the grid is identical
// for any thread count.
#include <cstddef>
#include <cstdint>

#include "distgrid/bake.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/mesh_prepare.hpp"

namespace distgrid {

struct MeshBakeSettings {
  double h = 0;          ///< voxel size (world units), finite and > 0
  double band = 3;       ///< band half-width in voxels, finite and >= 1
  unsigned threads = 0;  ///< 0: all hardware threads
  /// The grid of the bricks to compute must fit, else Error(toolarge) before baking.
  std::uint64_t max_memory_bytes = default_memory_budget();
};

struct MeshBakeStats {
  std::size_t triangles = 0;            ///< triangles of non-zero area baked
  std::int64_t bricks_considered = 0;   ///< bricks in the range of the grown box
  std::size_t bricks_computed = 0;      ///< stored bricks
  std::size_t bricks_inside = 0;        ///< marked wholly inside by parity
  std::size_t brick_triangle_pairs = 0; ///< triangles listed per computed brick, summed
  std::size_t bricks_beyond_band = 0;   ///< computed bricks with no node in the band (signed by parity)
  std::size_t rows = 0;                 ///< rows of bricks cast a parity ray
  std::size_t rows_retried = 0;         ///< rows that needed a shifted ray
  /// Rows whose ray stayed odd or touched an edge or corner exactly on every attempt: left outside.
  std::size_t rows_unmarked = 0;
  bool trusted = true;                  ///< false when the mesh is not closed and consistent
};

/// Throws Error(badarg) for bad h or band and Error(toolarge) when the mesh's box
/// does not fit the key range or the bricks to compute exceed the memory budget. `stats`, when given, receives what the bake did.
template <class S>
Grid<S> bake_mesh(const PreparedMesh& mesh, const MeshBakeSettings& settings, const ProgressFn& progress = {},
                  MeshBakeStats* stats = nullptr);

extern template Grid<float> bake_mesh<float>(const PreparedMesh&, const MeshBakeSettings&, const ProgressFn&,
                                             MeshBakeStats*);
extern template Grid<double> bake_mesh<double>(const PreparedMesh&, const MeshBakeSettings&, const ProgressFn&,
                                               MeshBakeStats*);

}  // namespace distgrid
