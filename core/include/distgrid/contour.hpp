#pragma once
// Contour meshes of a grid's zero level: surface nets and marching cubes, one
// interface chosen by name.
//
// A node counts as inside when its value is < 0 (so +0 and -0 are both outside);
// both meshers use this one rule. Cells are the unit cubes between nodes; a cell
// whose corners are not all on one side holds part of the surface. Values of absent
// and inside bricks (+-band*h) take part like stored ones, so the surface is also
// closed where stored bricks meet absent or inside ones.
//
// Meshing runs brick by brick. Every grid edge belongs to exactly one brick, and the
// vertex of a cell (surface nets) or of an edge (marching cubes) is computed once,
// from the same values, so the output holds the same triangles, with the same
// coordinates bit for bit, as meshing the whole region in one piece
// (detail::contour_dense) — only the order of vertices and triangles differs. Slabs
// of bricks are meshed on several threads; the order of the output depends on the
// grid alone, never on the thread count.
//
// Faces point to the outside (increasing distance): triangles are counter-clockwise
// seen from where the distance is positive. Arithmetic is double; positions are
// world coordinates (i + t) * h with t in [0, 1] inside the cell or on the edge.
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "distgrid/grid.hpp"
#include "distgrid/mesh.hpp"

namespace distgrid {

enum class Mesher { surface_nets, marching_cubes };

/// "surface-nets" or "marching-cubes"; Error(badarg) naming the text otherwise.
Mesher mesher_from_name(std::string_view name);
std::string_view mesher_name(Mesher mesher) noexcept;

struct ContourOptions {
  Mesher mesher = Mesher::surface_nets;
  /// Surface nets only: a cell whose surface falls into several separate pieces (a
  /// checkerboard face) gets one vertex per piece instead of one in all, so the mesh
  /// is manifold (as OpenVDB's mesher splits them). Where two neighbouring cells both
  /// join the inside corners of their shared checkerboard face through their own
  /// interiors, that face is read as joined, so no pair of vertices is linked twice.
  /// Marching cubes output is manifold either way.
  bool manifold = false;
  /// Threads to mesh with (0: all hardware threads). The output is the same, bit for
  /// bit and in the same order, for any count.
  unsigned threads = 0;
};

struct ContourResult {
  TriangleMesh mesh;              ///< positions, triangles and unit vertex normals
  std::size_t bricks_meshed = 0;  ///< bricks whose cells were visited (not skipped by sign)
  std::size_t cells_visited = 0;  ///< 512 per meshed brick
  /// Cells whose surface has more than one piece; in surface nets without the
  /// manifold mode each such cell makes a non-manifold vertex.
  std::size_t split_cells = 0;
};

/// Working arrays of the brick-wise mesher (the bricks' sign bits, a brick lookup
/// box, the vertex indices shared between bricks, and with several threads each
/// slab's output before it joins the result), about 1 MB for a sphere of radius 1 at
/// h = 1/128 on one thread. Passed to contour() again, they keep their capacity, so a caller
/// that meshes repeatedly neither reallocates them nor faults in fresh pages for
/// them. Their contents never carry over from one call to the next; one scratch
/// serves grids of every storage alike, but only one call at a time.
class ContourScratch {
 public:
  ContourScratch();
  ~ContourScratch();
  ContourScratch(ContourScratch&&) noexcept;
  ContourScratch& operator=(ContourScratch&&) noexcept;

  struct Arrays;  // defined where the mesher is
  /// Created on first use (also after this scratch was moved from).
  Arrays& arrays();

 private:
  std::unique_ptr<Arrays> arrays_;
};

/// Contour of the zero level; an empty grid gives an empty mesh. Throws
/// Error(toolarge) past 2^32 - 1 vertices (the index type), Error(interrupted) on an
/// interrupt (interrupt.hpp, checked every x plane or 256 bricks), else only std::bad_alloc. Ambiguous cell faces (two inside corners on a diagonal) are read
/// the same way from both cells: the inside corners are separated.
template <class S>
ContourResult contour(const Grid<S>& grid, const ContourOptions& options = {});
/// The same contour written into `result`, whose previous contents are replaced but
/// whose arrays keep their capacity: a caller that meshes repeatedly avoids
/// reallocating the output and faulting in fresh pages for it on every call.
template <class S>
void contour(const Grid<S>& grid, const ContourOptions& options, ContourResult& result);
/// The same, also reusing the working arrays of an earlier call (see ContourScratch).
template <class S>
void contour(const Grid<S>& grid, const ContourOptions& options, ContourResult& result, ContourScratch& scratch);

namespace detail {
/// The same mesh computed in one piece over every cell from brick extent lo - 1 to
/// hi + 1, reading grid.node() (slow; the reference the brick-wise mesher is tested
/// against).
template <class S>
ContourResult contour_dense(const Grid<S>& grid, const ContourOptions& options = {});
}  // namespace detail

extern template ContourResult contour<float>(const Grid<float>&, const ContourOptions&);
extern template ContourResult contour<double>(const Grid<double>&, const ContourOptions&);
extern template ContourResult contour<Half>(const Grid<Half>&, const ContourOptions&);
extern template ContourResult contour<Q16>(const Grid<Q16>&, const ContourOptions&);
extern template ContourResult contour<Q8>(const Grid<Q8>&, const ContourOptions&);
extern template void contour<float>(const Grid<float>&, const ContourOptions&, ContourResult&);
extern template void contour<double>(const Grid<double>&, const ContourOptions&, ContourResult&);
extern template void contour<Half>(const Grid<Half>&, const ContourOptions&, ContourResult&);
extern template void contour<Q16>(const Grid<Q16>&, const ContourOptions&, ContourResult&);
extern template void contour<Q8>(const Grid<Q8>&, const ContourOptions&, ContourResult&);
extern template void contour<float>(const Grid<float>&, const ContourOptions&, ContourResult&, ContourScratch&);
extern template void contour<double>(const Grid<double>&, const ContourOptions&, ContourResult&, ContourScratch&);
extern template void contour<Half>(const Grid<Half>&, const ContourOptions&, ContourResult&, ContourScratch&);
extern template void contour<Q16>(const Grid<Q16>&, const ContourOptions&, ContourResult&, ContourScratch&);
extern template void contour<Q8>(const Grid<Q8>&, const ContourOptions&, ContourResult&, ContourScratch&);

}  // namespace distgrid
