#pragma once
// Surface nets: the vertex of a cell (or of one piece of its surface) at the mean of
// its edge crossings, the same vertices eight cells side by side, and the quad
// around a sign-changing grid edge.
#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "distgrid/detail/contour_cases.hpp"
#include "distgrid/detail/lanes.hpp"
#include "node_block.hpp"

namespace distgrid::detail::meshing {

/// Bit e set when edge e of a cell with inside pattern p crosses zero (its corners differ).
inline constexpr std::array<std::uint16_t, 256> kCrossingEdges = [] {
  std::array<std::uint16_t, 256> table{};
  for (unsigned p = 0; p < 256; ++p)
    for (std::size_t e = 0; e < 12; ++e)
      if (((p >> kEdgeCorners[e][0]) & 1u) != ((p >> kEdgeCorners[e][1]) & 1u))
        table[p] = static_cast<std::uint16_t>(table[p] | (1u << e));
  return table;
}();

/// Lane masks that drop (0) or keep (1) every lane.
alignas(32) inline constexpr std::array<std::array<std::int64_t, 4>, 2> kKeepLanes{{{0, 0, 0, 0}, {-1, -1, -1, -1}}};

/// The offsets (0 or 1 on each axis, lane 3 unused) of each edge's lower corner within its cell.
inline constexpr std::array<std::array<double, 4>, 12> kEdgeStartLanes = [] {
  std::array<std::array<double, 4>, 12> starts{};
  for (std::size_t e = 0; e < 12; ++e)
    for (std::size_t axis = 0; axis < 3; ++axis)
      starts[e][axis] = corner_offset(kEdgeCorners[e][0], static_cast<int>(axis));
  return starts;
}();

/// The vertex of one piece of a cell's surface (piece < 0: of all its crossings), for
/// the cell with inside pattern `pattern` whose lowest corner is node n of the block
/// (global index `global`): at the mean of the piece's edge crossings (summed in
/// ascending edge order), with the normal blended from the corner gradients by the
/// vertex's trilinear weights (summed in corner order). Those operations and their
/// order fix the result. The code around them has no data-dependent branches: every
/// edge's crossing is computed and the edges outside the piece add +0, which leaves
/// each sum unchanged (a sum that starts at +0 is never -0, and x + +0 = x otherwise).
inline std::uint32_t add_piece_vertex(const Block& block, std::ptrdiff_t n, unsigned pattern, const Coord& global,
                                      const CellCase& cell, int piece, double h, const std::array<std::ptrdiff_t, 8>& steps,
                                      MeshOut& out) {
  const double* lowest = block.values.data() + n;
  const std::ptrdiff_t along_y = block.step(1), along_z = block.step(2);
  std::array<double, 8> d{};
  for (std::size_t c = 0; c < 8; ++c) d[c] = lowest[steps[c]];
  unsigned edges = kCrossingEdges[pattern];  // bit e: edge e crosses zero within the piece
  if (piece >= 0)
    for (std::size_t e = 0; e < 12; ++e)
      if (cell.piece_of_edge[e] != piece) edges &= ~(1u << e);
  // t = da / (da - db) of the four edges along each axis, whether they cross or not.
  std::array<Lanes, 3> t{};
  for (std::size_t axis = 0; axis < 3; ++axis) {
    Lanes da{}, db{};
    for (std::size_t k = 0; k < 4; ++k) {
      da[k] = d[static_cast<std::size_t>(kEdgeCorners[4 * axis + k][0])];
      db[k] = d[static_cast<std::size_t>(kEdgeCorners[4 * axis + k][1])];
    }
    t[axis] = da / (da - db);
  }
  Lanes sum{0, 0, 0, 0};
#pragma GCC unroll 12
  for (std::size_t e = 0; e < 12; ++e) {
    Lanes crossing{kEdgeStartLanes[e][0], kEdgeStartLanes[e][1], kEdgeStartLanes[e][2], 0};
    crossing[e / 4] = t[e / 4][e % 4];
    LaneMask keep;
    std::memcpy(&keep, kKeepLanes[(edges >> e) & 1u].data(), sizeof keep);
    // crossing & keep, bit by bit (memcpy, as std::bit_cast would return a vector by value).
    LaneMask kept_bits;
    std::memcpy(&kept_bits, &crossing, sizeof kept_bits);
    kept_bits &= keep;
    Lanes kept;
    std::memcpy(&kept, &kept_bits, sizeof kept);
    sum += kept;
  }
  const auto count = static_cast<double>(std::popcount(edges));
  const Lanes local = sum / count;
  const Lanes low = 1 - local;
  Lanes normal{0, 0, 0, 0};
#pragma GCC unroll 8
  for (int c = 0; c < 8; ++c) {
    const double weight = (corner_offset(c, 0) ? local[0] : low[0]) * (corner_offset(c, 1) ? local[1] : low[1]) *
                          (corner_offset(c, 2) ? local[2] : low[2]);
    Lanes g;
    central_difference(lowest + steps[static_cast<std::size_t>(c)], along_y, along_z, g);
    normal += weight * g;
  }
  const Lanes position =
      (Lanes{static_cast<double>(global[0]), static_cast<double>(global[1]), static_cast<double>(global[2]), 0} + local) * h;
  return out.add_vertex({position[0], position[1], position[2]}, unit_or_zero(normal));
}

/// Surface nets: one vertex for all of a cell's crossings, or one per piece when
/// split (consecutive indices, piece order). Returns the first.
inline std::uint32_t add_cell_vertices(const Block& block, std::ptrdiff_t n, unsigned pattern, const Coord& global, const CellCase& cell,
                                       bool split, double h, const std::array<std::ptrdiff_t, 8>& steps, MeshOut& out) {
  if (!split) return add_piece_vertex(block, n, pattern, global, cell, -1, h, steps, out);
  const std::uint32_t first = add_piece_vertex(block, n, pattern, global, cell, 0, h, steps, out);
  for (int piece = 1; piece < cell.loop_count; ++piece) add_piece_vertex(block, n, pattern, global, cell, piece, h, steps, out);
  return first;
}

// Surface-nets vertices in lanes. One vertex is a long chain of dependent operations
// (divisions, ordered sums, a square root); computing eight vertices side by side, one
// per lane (one 512-bit vector, or two or four narrower ones where the processor has
// no AVX-512), keeps the processor busy while each chain waits. Lane k performs exactly
// add_piece_vertex's IEEE operations in its order, so every vertex is the same bit for
// bit (the dense reference mesher, which the tests compare with, calls add_piece_vertex).

inline constexpr std::size_t kVertexLanes = 8;
/// One double per vertex lane, and the bits of such lanes for masking them.
using VertexLanes = Doubles8;
using VertexLaneMask = Doubles8Mask;
using LanePointers = std::array<const double*, kVertexLanes>;
using LaneVec3 = std::array<VertexLanes, 3>;

/// unit_or_zero per lane.
[[gnu::always_inline]] inline void lane_units_or_zero(const LaneVec3& v, LaneVec3& unit) noexcept {
  const VertexLanes squared = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
  VertexLanes length;
  for (std::size_t k = 0; k < kVertexLanes; ++k) length[k] = std::sqrt(squared[k]);
  const VertexLanes zero{}, largest = zero + std::numeric_limits<double>::max();
  const VertexLaneMask usable = (length > zero) & (length <= largest);
  for (std::size_t a = 0; a < 3; ++a) unit[a] = usable ? v[a] / length : zero;
}

/// Appends lanes 0..count-1 of positions and normals as vertices.
[[gnu::always_inline]] inline void add_lane_vertices(const LaneVec3& position, const LaneVec3& normal, std::size_t count, MeshOut& out) {
  for (std::size_t k = 0; k < count; ++k)
    out.add_vertex({position[0][k], position[1][k], position[2][k]}, {normal[0][k], normal[1][k], normal[2][k]});
}

/// Four consecutive nodes of a row in each lane: element i holds node i of every lane.
using RowLanes = std::array<VertexLanes, 4>;

/// Slot in a 4 x 4 array of RowLanes of the row at offsets dy, dz (each -1..2).
constexpr std::size_t row_slot(int dy, int dz) { return static_cast<std::size_t>((dy + 1) + 4 * (dz + 1)); }

// The transposes below are written out for eight lanes.
static_assert(kVertexLanes == 8);

/// Loads the four nodes from `offset` on of each lane's pointer (one load per lane)
/// and transposes them so that rows[i] holds node i of every lane. Lanes 0..3 and
/// 4..7 go through the same steps in the two halves of each vector.
[[gnu::always_inline]] inline void transpose_rows(const LanePointers& nodes, std::ptrdiff_t offset, RowLanes& rows) noexcept {
  std::array<Lanes, kVertexLanes> lane_rows{};  // four nodes each
  for (std::size_t k = 0; k < kVertexLanes; ++k) std::memcpy(&lane_rows[k], nodes[k] + offset, sizeof(Lanes));
  // halves[k]: lane k's nodes, then lane k + 4's.
  std::array<VertexLanes, 4> halves{};
  for (std::size_t k = 0; k < 4; ++k) halves[k] = __builtin_shufflevector(lane_rows[k], lane_rows[k + 4], 0, 1, 2, 3, 4, 5, 6, 7);
  const VertexLanes even01 = __builtin_shufflevector(halves[0], halves[1], 0, 8, 2, 10, 4, 12, 6, 14);
  const VertexLanes odd01 = __builtin_shufflevector(halves[0], halves[1], 1, 9, 3, 11, 5, 13, 7, 15);
  const VertexLanes even23 = __builtin_shufflevector(halves[2], halves[3], 0, 8, 2, 10, 4, 12, 6, 14);
  const VertexLanes odd23 = __builtin_shufflevector(halves[2], halves[3], 1, 9, 3, 11, 5, 13, 7, 15);
  rows[0] = __builtin_shufflevector(even01, even23, 0, 1, 8, 9, 4, 5, 12, 13);
  rows[1] = __builtin_shufflevector(odd01, odd23, 0, 1, 8, 9, 4, 5, 12, 13);
  rows[2] = __builtin_shufflevector(even01, even23, 2, 3, 10, 11, 6, 7, 14, 15);
  rows[3] = __builtin_shufflevector(odd01, odd23, 2, 3, 10, 11, 6, 7, 14, 15);
}

/// Loads nodes x = 0, 1 from `offset` on of each lane's pointer into rows[1] and
/// rows[2] (the entries of x = -1 and 2, rows[0] and rows[3], are left alone).
[[gnu::always_inline]] inline void transpose_row_middles(const LanePointers& nodes, std::ptrdiff_t offset, RowLanes& rows) noexcept {
  using Pair = double __attribute__((vector_size(16)));
  std::array<Pair, kVertexLanes> pairs{};
  for (std::size_t k = 0; k < kVertexLanes; ++k) std::memcpy(&pairs[k], nodes[k] + offset + 1, sizeof(Pair));
  // The pairs of the even lanes 0, 2, 4, 6 one after another, and of the odd lanes.
  const Lanes lanes02 = __builtin_shufflevector(pairs[0], pairs[2], 0, 1, 2, 3);
  const Lanes lanes46 = __builtin_shufflevector(pairs[4], pairs[6], 0, 1, 2, 3);
  const Lanes lanes13 = __builtin_shufflevector(pairs[1], pairs[3], 0, 1, 2, 3);
  const Lanes lanes57 = __builtin_shufflevector(pairs[5], pairs[7], 0, 1, 2, 3);
  const VertexLanes even = __builtin_shufflevector(lanes02, lanes46, 0, 1, 2, 3, 4, 5, 6, 7);
  const VertexLanes odd = __builtin_shufflevector(lanes13, lanes57, 0, 1, 2, 3, 4, 5, 6, 7);
  rows[1] = __builtin_shufflevector(even, odd, 0, 8, 2, 10, 4, 12, 6, 14);
  rows[2] = __builtin_shufflevector(even, odd, 1, 9, 3, 11, 5, 13, 7, 15);
}

/// A surface-nets cell whose vertex (for all its crossings) is to be made.
struct CellItem {
  std::ptrdiff_t node = 0;  // lowest corner in the block
  unsigned pattern = 0;
  Coord global{};
};

/// A set of cells' vertices halfway, one cell per lane: where each lies within its
/// cell, and the central differences at its corners that its normal blends.
struct LaneVertexParts {
  LaneVec3 local;
  std::array<LaneVec3, 8> gradient;  // by corner
};

/// First stage of add_piece_vertex(..., piece -1, ...) for a set of cells, one per lane:
/// the mean of the crossings (local) and the corner gradients.
[[gnu::always_inline]] inline void locate_lane_vertices(const Block& block, const std::array<CellItem, kVertexLanes>& cells,
                                                        LaneVertexParts& parts) noexcept {
  LanePointers lowest{};
  VertexLaneMask edges{};
  VertexLanes count_of_edges{};
  for (std::size_t k = 0; k < kVertexLanes; ++k) {
    lowest[k] = block.values.data() + cells[k].node;
    edges[k] = kCrossingEdges[cells[k].pattern];
    count_of_edges[k] = static_cast<double>(std::popcount(kCrossingEdges[cells[k].pattern]));
  }
  const std::ptrdiff_t along_y = block.step(1), along_z = block.step(2);
  // Nodes x = -1..2 (from each cell's lowest corner) of the node rows at y, z offsets
  // -1..2 that the corners and their central differences read, across the lanes.
  std::array<RowLanes, 16> rows{};
  // The rows around the cell's four corner rows serve only the central differences
  // across them, at x = 0 and 1.
  const auto load_row = [&](int dy, int dz) {
    transpose_rows(lowest, dy * along_y + dz * along_z - 1, rows[row_slot(dy, dz)]);
  };
  const auto load_row_middle = [&](int dy, int dz) {
    transpose_row_middles(lowest, dy * along_y + dz * along_z - 1, rows[row_slot(dy, dz)]);
  };
  for (int dz = 0; dz < 2; ++dz) {
    load_row_middle(-1, dz);
    load_row(0, dz);
    load_row(1, dz);
    load_row_middle(2, dz);
  }
  for (int dy = 0; dy < 2; ++dy) {
    load_row_middle(dy, -1);
    load_row_middle(dy, 2);
  }
  // Corner c's value, and x = -1..2 of its row.
  const auto corner_row = [&](std::size_t c, int dy, int dz) -> const RowLanes& {
    return rows[row_slot(corner_offset(static_cast<int>(c), 1) + dy, corner_offset(static_cast<int>(c), 2) + dz)];
  };
  std::array<VertexLanes, 8> d{};
  for (std::size_t c = 0; c < 8; ++c) d[c] = corner_row(c, 0, 0)[1 + static_cast<std::size_t>(c & 1)];
  const VertexLanes zero{}, one = zero + 1;
  // The mean of the crossings: per axis, the crossing edges' t (edges along it) and
  // lower-corner offsets (edges across it) in ascending edge order. Terms that are
  // +0 are left out; that leaves the sums unchanged (see add_piece_vertex).
  LaneVec3 sum{zero, zero, zero};
#pragma GCC unroll 12
  for (std::size_t e = 0; e < 12; ++e) {
    const VertexLanes da = d[static_cast<std::size_t>(kEdgeCorners[e][0])], db = d[static_cast<std::size_t>(kEdgeCorners[e][1])];
    const VertexLanes t = da / (da - db);
    const VertexLaneMask crosses = ((edges >> static_cast<std::int64_t>(e)) & 1) != 0;
    for (std::size_t a = 0; a < 3; ++a) {
      if (a == e / 4)
        sum[a] += crosses ? t : zero;
      else if (kEdgeStartLanes[e][a] != 0)
        sum[a] += crosses ? one : zero;
    }
  }
  for (std::size_t a = 0; a < 3; ++a) parts.local[a] = sum[a] / count_of_edges;
  // central_difference at each corner, from the transposed rows.
  for (std::size_t c = 0; c < 8; ++c) {
    const std::size_t x = 1 + (c & 1);
    parts.gradient[c] = {corner_row(c, 0, 0)[x + 1] - corner_row(c, 0, 0)[x - 1], corner_row(c, 1, 0)[x] - corner_row(c, -1, 0)[x],
                         corner_row(c, 0, 1)[x] - corner_row(c, 0, -1)[x]};
  }
}

/// Second stage: the normal blended from the corner gradients by the vertex's
/// trilinear weights, the position, and lanes 0..count-1 appended as vertices.
[[gnu::always_inline]] inline void finish_lane_vertices(const std::array<CellItem, kVertexLanes>& cells,
                                                        const LaneVertexParts& parts, std::size_t count, double h,
                                                        MeshOut& out) {
  const VertexLanes zero{};
  const LaneVec3& local = parts.local;
  LaneVec3 low{};
  for (std::size_t a = 0; a < 3; ++a) low[a] = 1 - local[a];
  LaneVec3 normal{zero, zero, zero};
#pragma GCC unroll 8
  for (std::size_t c = 0; c < 8; ++c) {
    const int corner = static_cast<int>(c);
    const VertexLanes weight = (corner_offset(corner, 0) ? local[0] : low[0]) * (corner_offset(corner, 1) ? local[1] : low[1]) *
                               (corner_offset(corner, 2) ? local[2] : low[2]);
    for (std::size_t a = 0; a < 3; ++a) normal[a] += weight * parts.gradient[c][a];
  }
  LaneVec3 position{}, unit{};
  for (std::size_t a = 0; a < 3; ++a) {
    VertexLanes origin{};
    for (std::size_t k = 0; k < kVertexLanes; ++k) origin[k] = static_cast<double>(cells[k].global[a]);
    position[a] = (origin + local[a]) * h;
  }
  lane_units_or_zero(normal, unit);
  add_lane_vertices(position, unit, count, out);
}

/// Surface-nets cells whose vertices are to be made, in the order they came, with
/// the table slot each one's vertex index goes to; made in sets of kVertexLanes
/// lanes once kSets sets are queued (or the brick ends). The first stage runs for
/// every set before the second, so the sets' chains of divisions overlap.
class CellQueue {
 public:
  void push(std::size_t slot, const CellItem& cell) noexcept {
    item(filled_) = cell;
    slots_[filled_] = slot;
    ++filled_;
  }
  bool full() const noexcept { return filled_ == kCapacity; }
  /// Appends the queued cells' vertices (block: their node values), in queue order,
  /// and writes each one's vertex index to table[slot]. Empties the queue.
  void flush(const Block& block, double h, MeshOut& out, std::vector<std::uint32_t>& table) {
    if (filled_ == 0) return;
    const std::size_t sets = (filled_ + kVertexLanes - 1) / kVertexLanes;
    // Lanes past the last cell repeat it (their results are dropped).
    for (std::size_t k = filled_; k < sets * kVertexLanes; ++k) item(k) = item(filled_ - 1);
    const auto first = static_cast<std::uint32_t>(out.result.mesh.positions.size());
    for (std::size_t set = 0; set < sets; ++set) locate_lane_vertices(block, items_[set], parts_[set]);
    for (std::size_t set = 0; set < sets; ++set)
      finish_lane_vertices(items_[set], parts_[set], std::min(kVertexLanes, filled_ - set * kVertexLanes), h, out);
    for (std::size_t k = 0; k < filled_; ++k) table[slots_[k]] = first + static_cast<std::uint32_t>(k);
    filled_ = 0;
  }

 private:
  static constexpr std::size_t kSets = 4, kCapacity = kSets * kVertexLanes;
  CellItem& item(std::size_t k) noexcept { return items_[k / kVertexLanes][k % kVertexLanes]; }
  std::array<std::array<CellItem, kVertexLanes>, kSets> items_{};  // by set and lane
  std::array<LaneVertexParts, kSets> parts_{};
  std::array<std::size_t, kCapacity> slots_{};
  std::size_t filled_ = 0;
};

inline double squared_distance(const Vec3& p, const Vec3& q) noexcept {
  const double x = p[0] - q[0], y = p[1] - q[1], z = p[2] - q[2];
  return x * x + y * y + z * z;
}

/// Id of the cell edge along `axis` whose lowest node is offset (s on the lower other
/// axis, t on the higher one) from the cell's lowest corner.
constexpr int cell_edge(int axis, int lower_offset, int higher_offset) { return 4 * axis + lower_offset + 2 * higher_offset; }

/// The corners (indices into `around` of add_edge_quad) of the two triangles of an
/// edge's quad, by [lower end inside][split along around[0]-around[2]].
/// The quad is around[0..3] when the lower end is inside, as (u, v, axis) is
/// right-handed and this order faces +axis, the outside; else the reverse order
/// around[0], [3], [2], [1]. Counter-clockwise quad q0..q3 becomes the triangles
/// (q0, q1, q2), (q0, q2, q3) when split along q0-q2, else (q1, q2, q3), (q1, q3, q0).
inline constexpr std::array<std::array<std::array<std::uint8_t, 6>, 2>, 2> kQuadTriangles = [] {
  std::array<std::array<std::array<std::uint8_t, 6>, 2>, 2> table{};
  for (std::size_t inside = 0; inside < 2; ++inside) {
    const std::array<std::uint8_t, 4> quad = inside ? std::array<std::uint8_t, 4>{0, 1, 2, 3} : std::array<std::uint8_t, 4>{0, 3, 2, 1};
    for (std::size_t along_02 = 0; along_02 < 2; ++along_02) {
      const std::size_t first = along_02 ? 0 : 1;
      const auto q = [&](std::size_t k) { return quad[(first + k) & 3]; };
      table[inside][along_02] = {q(0), q(1), q(2), q(0), q(2), q(3)};
    }
  }
  return table;
}();

/// The quad around a sign-changing grid edge along some axis from the vertices of
/// the cells (0, 0), (1, 0), (1, 1), (0, 1) around it in (u, v) = (axis + 1, axis + 2),
/// facing the outside, as two triangles split along the shorter diagonal (on a tie,
/// along around[0]-around[2]).
/// (Indexing by both choices, which are unpredictable: compilers turn selects on a
/// comparison into branches. Each index reads one whole element, so the loads take
/// their values straight from the stores of `around`.)
[[gnu::always_inline]] inline void add_edge_quad(bool lower_end_inside, const std::array<std::uint32_t, 4>& around,
                                                 MeshOut& out) {
  const auto& p = out.result.mesh.positions;
  const bool along_02 = squared_distance(p[around[0]], p[around[2]]) <= squared_distance(p[around[1]], p[around[3]]);
  const std::array<std::uint8_t, 6>& corner = kQuadTriangles[lower_end_inside ? 1 : 0][along_02 ? 1 : 0];
  out.add_triangle(around[corner[0]], around[corner[1]], around[corner[2]]);
  out.add_triangle(around[corner[3]], around[corner[4]], around[corner[5]]);
}

/// The vertices around a sign-changing grid edge from node p along `axis`, in
/// add_edge_quad's order: vertex_of(s, t, edge) gives the vertex of cell (offset
/// (s, t) in (u, v) = (axis+1, axis+2) from p - e_u - e_v) that belongs to that
/// cell's edge id.
template <class VertexOf>
inline auto edge_quad_vertices(int axis, VertexOf&& vertex_of) {
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  std::array<decltype(vertex_of(0, 0, 0)), 4> around{};  // cells (0,0), (1,0), (1,1), (0,1) in (u, v)
  constexpr int offsets[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  for (std::size_t k = 0; k < 4; ++k) {
    const int s = offsets[k][0], t = offsets[k][1];
    // The edge sits at offsets (1 - s, 1 - t) on (u, v) from this cell's lowest corner.
    const int on_u = 1 - s, on_v = 1 - t;
    const int edge = u < v ? cell_edge(axis, on_u, on_v) : cell_edge(axis, on_v, on_u);
    around[k] = vertex_of(s, t, edge);
  }
  return around;
}

/// The quad for a sign-changing grid edge from node p along `axis`, from the
/// vertices edge_quad_vertices finds.
template <class VertexOf>
inline void add_edge_quad(int axis, bool lower_end_inside, VertexOf&& vertex_of, MeshOut& out) {
  add_edge_quad(lower_end_inside, edge_quad_vertices(axis, vertex_of), out);
}

}  // namespace distgrid::detail::meshing
