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
// then assembled in triangle order), split the bricks while computing them and the
// rows of bricks while casting the parity rays; each brick is computed by the same
// code from the same list and each row's crossings are sorted, so the grid is
// identical for any thread count.
//
// Before anything is allocated the memory is estimated from the triangles alone
// (estimate_mesh_bake) and checked against the budget; the pairs found and the
// bricks to compute are checked again as they become known. Every phase checks for
// an interrupt (interrupt.hpp) at least every few thousand triangles, one brick or
// one row of bricks, and reports its progress as "pairing" (triangles), "distances"
// (bricks) and "parity" (rows).
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

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
  bool trusted = true;                  ///< false when the mesh does not bound a solid (MeshReport::solid)
};

/// What a mesh bake is expected to need, from the triangles alone in one pass.
/// A triangle's expected count of brick centres within reach R = band*h +
/// 3.5*sqrt(3)*h is the volume of its R-neighbourhood (2RA + (pi/2)PR^2 + (4/3)pi R^3
/// for area A and perimeter P) over a brick's (8h)^3: exact on average over where the
/// lattice falls. The bricks to compute are those of the union, about 2R times the
/// area plus one ball, at most the pairs and the bricks of the range; the inside
/// bricks about the enclosed volume less the band's share (area times R) over a brick's.
struct MeshBakeEstimate {
  std::uint64_t triangles = 0;      ///< triangles counted (valid indices, finite corners)
  std::uint64_t pairs = 0;          ///< triangle-brick pairs the pairing would list
  std::uint64_t bricks = 0;         ///< bricks to compute
  std::uint64_t inside_bricks = 0;  ///< bricks parity would mark inside
  std::uint64_t bytes = 0;          ///< peak bytes: the grid, the pairs, the lists, per-triangle data, the parity rows
};

/// The estimate for these corners and triangles at voxel size h and band (in voxels),
/// a stored brick taking `brick_bytes` (kMaxBrickBytes<S>). Triangles with an index out of range or a
/// non-finite corner are left out (prepare_mesh refuses them).
MeshBakeEstimate estimate_mesh_bake(const std::vector<Vec3>& positions,
                                    const std::vector<std::array<std::uint32_t, 3>>& triangles, double h, double band,
                                    std::size_t brick_bytes);

/// Throws Error(toolarge) naming `what`, the estimated bricks, pairs and bytes and the
/// budget when estimate_mesh_bake's bytes exceed settings.max_memory_bytes.
void check_mesh_bake_memory(const std::vector<Vec3>& positions,
                            const std::vector<std::array<std::uint32_t, 3>>& triangles,
                            const MeshBakeSettings& settings, std::size_t brick_bytes, const std::string& what);

/// Throws Error(badarg) for bad h or band, Error(toolarge) when the mesh's box does
/// not fit the key range or the estimate, the pairs found or the bricks to compute
/// exceed the memory budget, and Error(interrupted) on an interrupt. `stats`, when
/// given, receives what the bake did.
template <class S>
Grid<S> bake_mesh(const PreparedMesh& mesh, const MeshBakeSettings& settings, const PhaseProgressFn& progress = {},
                  MeshBakeStats* stats = nullptr);

extern template Grid<float> bake_mesh<float>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&,
                                             MeshBakeStats*);
extern template Grid<double> bake_mesh<double>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&,
                                               MeshBakeStats*);
extern template Grid<Half> bake_mesh<Half>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&,
                                           MeshBakeStats*);
extern template Grid<Q16> bake_mesh<Q16>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&,
                                         MeshBakeStats*);
extern template Grid<Q8> bake_mesh<Q8>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&,
                                       MeshBakeStats*);

}  // namespace distgrid
