#pragma once
// Preparing a triangle mesh for the bake: welding, validation, pseudo-normals.
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "distgrid/mesh.hpp"
#include "distgrid/vec3.hpp"

namespace distgrid {

/// Undirected edge key min(a, b) * 2^32 + max(a, b): exact as a 64-bit integer for
/// any 32-bit corner indices (as a double it would be exact only below 2^21 corners).
std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) noexcept;

/// Merges corners whose three coordinates are equal (no tolerance; -0 equals +0).
/// Welded corners are numbered in order of first use by the triangles; corners no
/// triangle uses are dropped. Normals are dropped. Throws Error(badmesh) for an
/// index out of range or a non-finite coordinate.
TriangleMesh weld_corners(const TriangleMesh& mesh, const std::string& source);

/// What prepare_mesh found. Edge counts are over triangles of non-zero area.
struct MeshReport {
  std::size_t corners_read = 0;
  std::size_t corners_welded = 0;
  std::size_t triangles_read = 0;
  std::size_t zero_area_triangles = 0;   ///< skipped: all three cross-product components are 0
  std::size_t boundary_edges = 0;        ///< used by one triangle
  std::size_t nonmanifold_edges = 0;     ///< used by more than two triangles
  std::size_t inconsistent_edges = 0;    ///< two triangles traverse it in the same direction
  std::size_t components = 0;            ///< triangles connected through shared edges
  double signed_volume = 0;              ///< sum of a.(b x c)/6, as read (before any flip)
  bool flipped = false;                  ///< signed volume < 0: every triangle reversed
  /// One offending edge (welded corner indices) when the mesh is not closed and consistent.
  std::array<std::uint32_t, 2> example_edge{0, 0};
  std::string example_edge_kind;  ///< "boundary", "non-manifold", "inconsistent" or empty
  /// Pairs of triangles that meet beyond the corners and edge they share (exact test:
  /// shells that cross or touch, a shell through itself, faces folded onto each other).
  std::size_t intersecting_pairs = 0;
  /// One such pair, as triangle numbers of the mesh as read (from 0).
  std::array<std::uint32_t, 2> example_pair{0, 0};
  /// Closed shells whose orientation is wrong for their depth: outward inside another
  /// outward shell, or inward with no shell around it. Checked only for a closed mesh
  /// whose triangles do not meet.
  std::size_t misnested_shells = 0;
  std::uint32_t example_shell_triangle = 0;  ///< a triangle (as read) of one such shell
  /// A triangle (as read) of the innermost shell around it; kNoTriangle when none.
  std::uint32_t example_enclosing_triangle = kNoTriangle;
  double example_shell_volume = 0;  ///< signed volume of that shell, after any flip

  static constexpr std::uint32_t kNoTriangle = 0xFFFFFFFFu;

  bool closed() const noexcept { return boundary_edges == 0 && nonmanifold_edges == 0 && inconsistent_edges == 0; }
  /// Closed, with no intersecting triangles and every shell nested with the right orientation.
  bool solid() const noexcept { return closed() && intersecting_pairs == 0 && misnested_shells == 0; }
};

/// A welded mesh with the normals the signs come from.
struct PreparedMesh {
  std::string source;                                 ///< file name or part name, for messages
  std::vector<Vec3> positions;                        ///< welded corners
  std::vector<std::array<std::uint32_t, 3>> triangles;  ///< non-zero area only, oriented outward
  std::vector<Vec3> face_normals;                     ///< unit, one per triangle
  std::vector<std::array<std::uint32_t, 3>> triangle_edges;  ///< edge ids of ab, bc, ca
  std::vector<std::uint64_t> edge_keys;               ///< per edge id, ascending
  std::vector<Vec3> edge_normals;                     ///< sum of the unit normals of the edge's triangles
  std::vector<Vec3> corner_normals;                   ///< sum of angle * unit face normal (Baerentzen-Aanaes)
  std::vector<std::uint32_t> input_triangles;          ///< per triangle, its number in the mesh as read
  MeshReport report;
};

/// Welds, validates and computes pseudo-normals. Throws Error(badmesh) for bad
/// indices or coordinates or when no triangle has non-zero area. Unless allow_open,
/// also throws Error(openmesh) (naming the counts and one example edge) for an open,
/// non-manifold or inconsistently oriented mesh, Error(selfintersect) (naming one
/// pair of triangles) when triangles meet beyond shared corners and edges
/// (mesh_solid.hpp), and Error(badmesh) (naming a triangle of the shell) when a shell
/// is nested with the wrong orientation. Checks for an interrupt between steps and
/// every 65 536 triangles; `threads` (0: all) only splits the intersection test.
PreparedMesh prepare_mesh(const TriangleMesh& mesh, const std::string& source, bool allow_open = false,
                          unsigned threads = 0);

/// The report as lines of text, for the command line.
std::string describe(const MeshReport& report);

}  // namespace distgrid
