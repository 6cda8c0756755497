#pragma once
// Where a grid's surface is closed by the edge of the baked region rather than by the
// shape: absent bricks read +band*h by convention, so a node that reads inside (< 0)
// next to an absent brick makes the contour (contour.hpp) close the surface along
// the region's edge. A grid baked with its shape's whole band has no such node: a
// node next to an absent brick lies at least band*h - h >= 0 from the surface.
#include <cstddef>

#include "distgrid/grid.hpp"

namespace distgrid {

/// Grid edges from a node that reads inside (a stored value < 0, or any node of an
/// inside brick) to a node of an absent brick across a brick face.
template <class S>
std::size_t region_edge_crossings(const Grid<S>& grid);

extern template std::size_t region_edge_crossings<float>(const Grid<float>&);
extern template std::size_t region_edge_crossings<double>(const Grid<double>&);
extern template std::size_t region_edge_crossings<Half>(const Grid<Half>&);
extern template std::size_t region_edge_crossings<Q16>(const Grid<Q16>&);
extern template std::size_t region_edge_crossings<Q8>(const Grid<Q8>&);

}  // namespace distgrid
