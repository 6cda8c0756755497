#pragma once
// Counts and measures of a triangle mesh: is it closed, manifold, consistently
// oriented, and how large is it.
#include <cstddef>
#include <cstdint>

#include "distgrid/mesh.hpp"

namespace distgrid {

struct MeshStats {
  std::size_t vertices = 0;   ///< positions.size()
  std::size_t triangles = 0;  ///< triangles.size()
  std::size_t edges = 0;      ///< distinct undirected edges (pairs of corner indices)
  std::size_t boundary_edges = 0;        ///< edges of exactly one triangle
  std::size_t non_manifold_edges = 0;    ///< edges of more than two triangles
  /// Edges of two triangles that run the same way in both (an orientation flip).
  std::size_t misoriented_edges = 0;
  /// Vertices whose triangles do not form one fan (joined through shared edges),
  /// or that lie on a non-manifold edge.
  std::size_t non_manifold_vertices = 0;
  std::size_t unused_vertices = 0;       ///< vertices of no triangle
  /// Triangles with a repeated corner index or zero area (computed exactly zero).
  std::size_t degenerate_triangles = 0;
  /// V - E + F over the used vertices (2 for a sphere, 0 for a torus).
  std::int64_t euler_characteristic = 0;
  /// Sum of signed tetrahedron volumes against the first vertex; positive for a
  /// closed mesh whose faces point outwards.
  double signed_volume = 0;
  double area = 0;

  /// Closed, manifold and consistently oriented.
  bool closed_manifold() const noexcept {
    return boundary_edges == 0 && non_manifold_edges == 0 && misoriented_edges == 0 && non_manifold_vertices == 0;
  }
};

/// Throws Error(badmesh) naming the triangle when an index is out of range.
MeshStats mesh_stats(const TriangleMesh& mesh);

}  // namespace distgrid
