#pragma once
// The manifold mode of surface nets: which cells' surfaces fall into several pieces,
// and how a checkerboard face shared by two such cells is read so that both agree.
#include <array>
#include <cstddef>
#include <cstdint>

#include "distgrid/detail/contour_cases.hpp"
#include "node_block.hpp"

namespace distgrid::detail::meshing {

/// 1 for the inside patterns whose cell surface has more than one piece (a small
/// table: the cell cases themselves are 37 bytes each).
inline constexpr std::array<std::uint8_t, 256> kSplitPatterns = [] {
  std::array<std::uint8_t, 256> split{};
  for (std::size_t p = 0; p < 256; ++p) split[p] = kCellCases[p].loop_count > 1 ? 1 : 0;
  return split;
}();

/// The pieces of a cell (inside pattern `pattern`) as the manifold mode reads them;
/// pattern_across(f) is the pattern of the neighbour cell across face f (-x, +x, -y,
/// +y, -z, +z). With the plain face rule (inside corners of an ambiguous face
/// separated), a cell whose inside corners on that face are joined through its own
/// interior has one piece touching the face twice; if the neighbour across the face
/// does too, the two pieces' vertices would be joined by four quads (a tube through
/// the face that one vertex per piece cannot form). Such a face is read the other
/// way, joining its inside corners; both cells decide from the same signs, so they agree.
template <class PatternAcross>
const CellCase& manifold_case(unsigned pattern, PatternAcross&& pattern_across) {
  const unsigned candidates = detail::kJoinedInsideDiagonals[pattern];
  if (candidates == 0) return kCellCases[pattern];
  unsigned join = 0;
  for (int f = 0; f < 6; ++f) {
    if (((candidates >> f) & 1u) == 0) continue;
    if ((unsigned{detail::kJoinedInsideDiagonals[pattern_across(f)]} >> (f ^ 1)) & 1u) join |= 1u << f;
  }
  return join == 0 ? kCellCases[pattern] : detail::cell_case_joined(pattern, join);
}

/// manifold_case for the cell whose lowest corner is block node n.
inline const CellCase& manifold_case(const Block& block, std::ptrdiff_t n, unsigned pattern,
                                     const std::array<std::ptrdiff_t, 8>& steps) {
  return manifold_case(pattern, [&](int f) {
    return cell_pattern(block, n + ((f & 1) ? 1 : -1) * block.step(f / 2), steps);
  });
}

}  // namespace distgrid::detail::meshing
