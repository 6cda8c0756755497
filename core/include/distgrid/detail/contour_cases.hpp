#pragma once
// The pieces of surface inside one cell, for each of the 256 inside/outside patterns
// of its corners. Internal to the contour meshers (core/src/contour/) and their tests.
//
// Corner c sits at (c & 1, (c >> 1) & 1, (c >> 2) & 1); bit c of a case is set when
// corner c is inside. Edge 4a + s + 2t runs along axis a from the corner whose
// offsets on the other two axes (lower axis first) are (s, t).
//
// On each cell face the crossing points are joined into segments; where a face is
// ambiguous (its two inside corners lie on a diagonal) the segments cut off each
// inside corner on its own. That depends only on the face's four signs, so both cells
// sharing a face join its points the same way and the surface closes. The segments
// of a cell form closed loops, one per piece of surface; each loop is ordered
// counter-clockwise seen from the outside (the positive side). The manifold surface
// nets may read chosen ambiguous faces the other way (cell_case_joined); they decide
// each face from both cells' values, so the two cells again agree.
#include <array>
#include <cstddef>
#include <cstdint>

namespace distgrid::detail {

struct CellCase {
  std::uint8_t loop_count = 0;
  std::array<std::uint8_t, 4> loop_begin{};  ///< into loop_edges
  std::array<std::uint8_t, 4> loop_size{};
  std::array<std::uint8_t, 12> loop_edges{};  ///< the loops' edges, one after another
  std::array<std::int8_t, 12> piece_of_edge{};  ///< loop holding each edge; -1 if no crossing
  /// Marching cubes cuts a loop into a fan from its first edge, so the loop is
  /// rotated to start where no fan diagonal joins two crossings on one cell face
  /// (the neighbour cell may have the same diagonal, and the edge would then have
  /// four triangles). True where no rotation does: such a loop would need a vertex
  /// of its own inside the cell. No loop of kCellCases is one (marching_cubes.hpp).
  std::array<bool, 4> loop_needs_centre{};
};

/// The corners an edge joins, lower corner first.
inline constexpr std::array<std::array<int, 2>, 12> kEdgeCorners{{
    {0, 1}, {2, 3}, {4, 5}, {6, 7},  // along x
    {0, 2}, {1, 3}, {4, 6}, {5, 7},  // along y
    {0, 4}, {1, 5}, {2, 6}, {3, 7},  // along z
}};

constexpr int edge_joining(int a, int b) {
  for (int e = 0; e < 12; ++e)
    if ((kEdgeCorners[static_cast<std::size_t>(e)][0] == a && kEdgeCorners[static_cast<std::size_t>(e)][1] == b) ||
        (kEdgeCorners[static_cast<std::size_t>(e)][0] == b && kEdgeCorners[static_cast<std::size_t>(e)][1] == a))
      return e;
  return -1;
}

/// Corners of each face (-x, +x, -y, +y, -z, +z), counter-clockwise seen from outside the cell.
inline constexpr int kFaceCorners[6][4] = {{0, 4, 6, 2}, {1, 3, 7, 5}, {0, 1, 5, 4},
                                           {2, 6, 7, 3}, {0, 2, 3, 1}, {4, 5, 7, 6}};

constexpr bool edges_share_face(int e1, int e2) {
  for (const auto& face : kFaceCorners) {
    int found = 0;
    for (int e : {e1, e2}) {
      bool a = false, b = false;
      for (int c : face) {
        a |= c == kEdgeCorners[static_cast<std::size_t>(e)][0];
        b |= c == kEdgeCorners[static_cast<std::size_t>(e)][1];
      }
      found += a && b;
    }
    if (found == 2) return true;
  }
  return false;
}

/// True when face f's corners alternate inside, outside, inside, outside.
constexpr bool face_ambiguous(unsigned pattern, int f) {
  const auto in = [pattern](int c) { return ((pattern >> c) & 1u) != 0; };
  const int* q = kFaceCorners[f];
  return in(q[0]) == in(q[2]) && in(q[1]) == in(q[3]) && in(q[0]) != in(q[1]);
}

/// For an ambiguous face f: are its two inside corners joined by a path of inside
/// corners along the cell's edges?
constexpr bool inside_diagonal_joined(unsigned pattern, int f) {
  if (!face_ambiguous(pattern, f)) return false;
  const int* q = kFaceCorners[f];
  const int from = ((pattern >> q[0]) & 1u) ? q[0] : q[1];
  const int to = ((pattern >> q[0]) & 1u) ? q[2] : q[3];
  unsigned reached = 1u << from;
  for (int round = 0; round < 8; ++round)
    for (const auto& e : kEdgeCorners) {
      const bool both_inside = ((pattern >> e[0]) & 1u) && ((pattern >> e[1]) & 1u);
      if (both_inside && (((reached >> e[0]) | (reached >> e[1])) & 1u)) reached |= (1u << e[0]) | (1u << e[1]);
    }
  return ((reached >> to) & 1u) != 0;
}

/// Loops of a cell. Bit f of join_faces (used on ambiguous faces only) joins the face's
/// two inside corners across it, cutting off its outside corners instead.
constexpr CellCase make_cell_case(unsigned pattern, unsigned join_faces = 0) {
  constexpr auto& faces = kFaceCorners;
  const auto inside = [pattern](int c) { return ((pattern >> c) & 1u) != 0; };
  // next[e]: the edge whose crossing follows e's on its loop.
  std::array<int, 12> next{};
  for (int& n : next) n = -1;
  for (int f = 0; f < 6; ++f) {
    const auto& face = faces[f];
    const bool join = ((join_faces >> f) & 1u) != 0 && face_ambiguous(pattern, f);
    for (int i = 0; i < 4; ++i) {
      const int a = face[i], b = face[(i + 1) % 4];
      if (inside(a) || !inside(b)) continue;  // want an entry: outside a, inside b
      if (join) {
        // The segment goes round the outside corner a, to the exit just before it.
        next[static_cast<std::size_t>(edge_joining(a, b))] = edge_joining(face[(i + 3) % 4], a);
        continue;
      }
      // The inside run that starts here ends at the first exit going on round the face.
      int j = (i + 1) % 4;
      while (inside(face[(j + 1) % 4])) j = (j + 1) % 4;
      // Seen from outside the cell, entry -> exit has the inside on the right; seen
      // from the positive side of the surface that is counter-clockwise.
      next[static_cast<std::size_t>(edge_joining(a, b))] = edge_joining(face[j], face[(j + 1) % 4]);
    }
  }
  CellCase result{};
  for (auto& p : result.piece_of_edge) p = -1;
  int written = 0;
  for (int start = 0; start < 12; ++start) {
    if (next[static_cast<std::size_t>(start)] < 0 || result.piece_of_edge[static_cast<std::size_t>(start)] >= 0)
      continue;
    const int loop = result.loop_count++;
    result.loop_begin[static_cast<std::size_t>(loop)] = static_cast<std::uint8_t>(written);
    int e = start;
    do {
      result.piece_of_edge[static_cast<std::size_t>(e)] = static_cast<std::int8_t>(loop);
      result.loop_edges[static_cast<std::size_t>(written++)] = static_cast<std::uint8_t>(e);
      e = next[static_cast<std::size_t>(e)];
    } while (e != start);
    const auto begin = static_cast<std::size_t>(result.loop_begin[static_cast<std::size_t>(loop)]);
    const auto size = static_cast<std::size_t>(written) - begin;
    result.loop_size[static_cast<std::size_t>(loop)] = static_cast<std::uint8_t>(size);
    // Rotate the loop so that a fan from its first edge has no diagonal on a face.
    bool found = false;
    for (std::size_t rotation = 0; rotation < size && !found; ++rotation) {
      bool good = true;
      for (std::size_t k = 2; k + 1 < size; ++k)
        good = good && !edges_share_face(result.loop_edges[begin + rotation],
                                         result.loop_edges[begin + (rotation + k) % size]);
      if (!good) continue;
      std::array<std::uint8_t, 12> rotated{};
      for (std::size_t k = 0; k < size; ++k) rotated[k] = result.loop_edges[begin + (rotation + k) % size];
      for (std::size_t k = 0; k < size; ++k) result.loop_edges[begin + k] = rotated[k];
      found = true;
    }
    result.loop_needs_centre[static_cast<std::size_t>(loop)] = !found;
  }
  return result;
}

constexpr std::array<CellCase, 256> make_cell_cases() {
  std::array<CellCase, 256> cases{};
  for (unsigned p = 0; p < 256; ++p) cases[p] = make_cell_case(p);
  return cases;
}

inline constexpr std::array<CellCase, 256> kCellCases = make_cell_cases();

/// Bit f set when face f is ambiguous and its inside corners are joined inside the cell.
inline constexpr std::array<std::uint8_t, 256> kJoinedInsideDiagonals = [] {
  std::array<std::uint8_t, 256> table{};
  for (unsigned p = 0; p < 256; ++p)
    for (int f = 0; f < 6; ++f)
      if (inside_diagonal_joined(p, f)) table[p] = static_cast<std::uint8_t>(table[p] | (1u << f));
  return table;
}();

/// Bit f set when face f is ambiguous.
inline constexpr std::array<std::uint8_t, 256> kAmbiguousFaces = [] {
  std::array<std::uint8_t, 256> table{};
  for (unsigned p = 0; p < 256; ++p)
    for (int f = 0; f < 6; ++f)
      if (face_ambiguous(p, f)) table[p] = static_cast<std::uint8_t>(table[p] | (1u << f));
  return table;
}();

/// make_cell_case(pattern, join_faces) for every pattern and every subset of its
/// ambiguous faces, built on first use (thread-safe).
const CellCase& cell_case_joined(unsigned pattern, unsigned join_faces);

}  // namespace distgrid::detail
