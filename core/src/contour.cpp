// Surface nets and marching cubes over the bricks of a Grid<S> (see contour.hpp).
//
// Brick-wise scheme. A "cell brick" C holds the 512 cells whose lowest corner lies in
// brick C. Cell bricks are visited in descending (bx, by, bz) order, so the cell
// bricks above C on every axis are done before C. Only cell bricks whose cell corners
// (local 0..8) have both signs are visited. C looks at nodes from local -1 to 10 on
// each axis (its cells' corners, 0..8, one more for the corner gradients, and one more
// for the manifold mode's look at the neighbours of cells at 8): first as one bit per
// node (inside or not, eight to a byte, kept per stored brick and found one x plane
// of bricks ahead of the meshing, so that the node values this reads are still cached
// for the gathers), from which whole rows of cells without a sign change are passed
// over; then, as double values in a dense block, only the node rows that the
// vertices of its sign-changing cells read. Then:
//  - surface nets: computes the vertices of its own cells (0..7), takes the vertices
//    of cells at local 8 from the bricks above, and makes the quads of the grid edges
//    it owns: along axis a the edges starting at local 0..7 on a and 1..8 on the two
//    other axes (so the four cells around each lie in 0..8);
//  - marching cubes: computes the vertices of the grid edges starting in its nodes
//    (0..7), takes those starting at local 8 from the bricks above, and makes the
//    triangles of its own cells.
// Each brick keeps the vertex indices of its lowest layer of cells or edges (local 0
// on some axis) for the bricks below it, until the x plane below its own is done;
// nothing else outlives the brick.
// Every grid edge and every cell is thus handled by exactly one brick, and every
// vertex is computed by one function of the node values around it, the same one the
// dense reference calls, so both give the same coordinates bit for bit.
#include "distgrid/contour.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "distgrid/detail/contour_cases.hpp"
#include "distgrid/error.hpp"
#include "distgrid/interrupt.hpp"

namespace distgrid {

Mesher mesher_from_name(std::string_view name) {
  if (name == "surface-nets") return Mesher::surface_nets;
  if (name == "marching-cubes") return Mesher::marching_cubes;
  throw Error(ErrorCode::badarg,
              "unknown mesher '" + std::string(name) + "' (known: surface-nets, marching-cubes)");
}

std::string_view mesher_name(Mesher mesher) noexcept {
  return mesher == Mesher::surface_nets ? "surface-nets" : "marching-cubes";
}

namespace {

using detail::CellCase;
using detail::kCellCases;
using detail::kEdgeCorners;
using Vec3 = std::array<double, 3>;
using Coord = std::array<std::int64_t, 3>;

constexpr int corner_offset(int corner, int axis) { return (corner >> axis) & 1; }

/// Node values of a box of nodes, x fastest, with their inside flags (value < 0).
struct Block {
  Coord origin{};            // global node index of local (0, 0, 0)
  std::array<int, 3> size{};
  std::vector<double> values;
  std::vector<std::uint8_t> inside;

  void resize(std::array<int, 3> s) {
    size = s;
    const auto n = static_cast<std::size_t>(s[0]) * static_cast<std::size_t>(s[1]) * static_cast<std::size_t>(s[2]);
    values.resize(n);
    inside.resize(n);
  }
  std::ptrdiff_t step(int axis) const noexcept {
    return axis == 0 ? 1 : (axis == 1 ? size[0] : static_cast<std::ptrdiff_t>(size[0]) * size[1]);
  }
  std::ptrdiff_t at(int x, int y, int z) const noexcept {
    return x + static_cast<std::ptrdiff_t>(size[0]) * (y + static_cast<std::ptrdiff_t>(size[1]) * z);
  }
  double value(std::ptrdiff_t n) const noexcept { return values[static_cast<std::size_t>(n)]; }
  bool is_inside(std::ptrdiff_t n) const noexcept { return inside[static_cast<std::size_t>(n)] != 0; }
  void finish_flags() {
    // Through local pointers, so the compiler sees no aliasing and vectorises.
    const double* v = values.data();
    std::uint8_t* flags = inside.data();
    const std::size_t count = values.size();
    for (std::size_t n = 0; n < count; ++n) flags[n] = v[n] < 0 ? 1 : 0;
  }
};

/// Offsets, within a block, of a cell's eight corners from its lowest corner.
std::array<std::ptrdiff_t, 8> corner_steps(const Block& block) {
  std::array<std::ptrdiff_t, 8> steps{};
  for (int c = 0; c < 8; ++c)
    steps[static_cast<std::size_t>(c)] = corner_offset(c, 0) * block.step(0) + corner_offset(c, 1) * block.step(1) +
                                         corner_offset(c, 2) * block.step(2);
  return steps;
}

unsigned cell_pattern(const Block& block, std::ptrdiff_t n, const std::array<std::ptrdiff_t, 8>& steps) noexcept {
  unsigned pattern = 0;
  for (unsigned c = 0; c < 8; ++c) pattern |= static_cast<unsigned>(block.inside[static_cast<std::size_t>(n + steps[c])]) << c;
  return pattern;
}

/// Four doubles operated on lane by lane (GCC vector extension): each lane does the
/// same IEEE operation as scalar code would, so results are bit for bit those of the
/// scalar sums; only the instruction count drops.
using Lanes = double __attribute__((vector_size(32)));

/// Lanes 0..2 of v divided by their length, or 0 when that is 0 or not finite.
Vec3 unit_or_zero(const Lanes& v) noexcept {
  const double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  if (!(length > 0) || !std::isfinite(length)) return {0, 0, 0};
  const Lanes unit = v / length;
  return {unit[0], unit[1], unit[2]};
}

/// The central difference at a block node along x, y, z (lanes 0..2), times 2h (only
/// its direction is used). (Through a reference: returning a vector by value would
/// tie the ABI to AVX.)
void central_difference(const double* node, std::ptrdiff_t along_y, std::ptrdiff_t along_z, Lanes& difference) noexcept {
  difference = Lanes{node[1], node[along_y], node[along_z], 0} - Lanes{node[-1], node[-along_y], node[-along_z], 0};
}

/// Calls visit(x) for each set bit x of bits, lowest first.
template <class Visit>
void for_each_bit(unsigned bits, Visit&& visit) {
  while (bits != 0) {
    visit(std::countr_zero(bits));
    bits &= bits - 1;
  }
}

/// Asks for the cache line `ahead` bytes past the end of `items` for writing. The
/// output outgrows the caches, and each new line written would otherwise be
/// fetched only when a store reaches it. (Integer arithmetic: the address may lie
/// past the allocation; a prefetch never faults.)
template <class T>
void prefetch_for_append(const std::vector<T>& items) noexcept {
  constexpr std::uintptr_t ahead = 512;
  __builtin_prefetch(reinterpret_cast<const void*>(reinterpret_cast<std::uintptr_t>(items.data() + items.size()) + ahead), 1);
}

/// Output being built, with the counters of ContourResult.
struct MeshOut {
  ContourResult result;
  std::uint32_t add_vertex(const Vec3& position, const Vec3& normal) {
    const std::size_t index = result.mesh.positions.size();
    if (index >= UINT32_MAX) too_many_vertices();
    prefetch_for_append(result.mesh.positions);
    prefetch_for_append(result.mesh.normals);
    result.mesh.positions.push_back(position);
    result.mesh.normals.push_back(normal);
    return static_cast<std::uint32_t>(index);
  }
  // Out of line, so the common path of add_vertex stays small enough to inline.
  [[noreturn, gnu::cold, gnu::noinline]] static void too_many_vertices() {
    throw Error(ErrorCode::toolarge, "contour: more vertices than 32-bit triangle indices can address");
  }
  void add_triangle(std::uint32_t a, std::uint32_t b, std::uint32_t c) {
    prefetch_for_append(result.mesh.triangles);
    result.mesh.triangles.push_back({a, b, c});
  }
};

/// Bit e set when edge e of a cell with inside pattern p crosses zero (its corners differ).
constexpr std::array<std::uint16_t, 256> kCrossingEdges = [] {
  std::array<std::uint16_t, 256> table{};
  for (unsigned p = 0; p < 256; ++p)
    for (std::size_t e = 0; e < 12; ++e)
      if (((p >> kEdgeCorners[e][0]) & 1u) != ((p >> kEdgeCorners[e][1]) & 1u))
        table[p] = static_cast<std::uint16_t>(table[p] | (1u << e));
  return table;
}();

/// 1 for the inside patterns whose cell surface has more than one piece (a small
/// table: the cell cases themselves are 37 bytes each).
constexpr std::array<std::uint8_t, 256> kSplitPatterns = [] {
  std::array<std::uint8_t, 256> split{};
  for (std::size_t p = 0; p < 256; ++p) split[p] = kCellCases[p].loop_count > 1 ? 1 : 0;
  return split;
}();

/// The bits of Lanes as four 64-bit integers, for masking lanes.
using LaneMask = std::int64_t __attribute__((vector_size(32)));

/// Eight bytes or eight 16-bit words operated on lane by lane (rows of inside bits).
using Bytes8 = std::uint8_t __attribute__((vector_size(8)));
using Words8 = std::uint16_t __attribute__((vector_size(16)));

Words8 load_words(const std::uint16_t* words) noexcept {
  Words8 loaded;
  std::memcpy(&loaded, words, sizeof loaded);
  return loaded;
}

Words8 widen_bytes(const std::uint8_t* bytes) noexcept {
  Bytes8 loaded;
  std::memcpy(&loaded, bytes, sizeof loaded);
  return __builtin_convertvector(loaded, Words8);
}

/// Lane masks that drop (0) or keep (1) every lane.
alignas(32) constexpr std::array<std::array<std::int64_t, 4>, 2> kKeepLanes{{{0, 0, 0, 0}, {-1, -1, -1, -1}}};

/// The offsets (0 or 1 on each axis, lane 3 unused) of each edge's lower corner within its cell.
constexpr std::array<std::array<double, 4>, 12> kEdgeStartLanes = [] {
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
std::uint32_t add_piece_vertex(const Block& block, std::ptrdiff_t n, unsigned pattern, const Coord& global,
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
std::uint32_t add_cell_vertices(const Block& block, std::ptrdiff_t n, unsigned pattern, const Coord& global, const CellCase& cell,
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

constexpr std::size_t kVertexLanes = 8;
/// One double per vertex lane, and the bits of such lanes for masking them.
using VertexLanes = double __attribute__((vector_size(8 * kVertexLanes)));
using VertexLaneMask = std::int64_t __attribute__((vector_size(8 * kVertexLanes)));
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
const CellCase& manifold_case(const Block& block, std::ptrdiff_t n, unsigned pattern,
                              const std::array<std::ptrdiff_t, 8>& steps) {
  return manifold_case(pattern, [&](int f) {
    return cell_pattern(block, n + ((f & 1) ? 1 : -1) * block.step(f / 2), steps);
  });
}

/// Marching cubes: the vertex where the grid edge from node n along `axis` crosses
/// zero, t = d0 / (d0 - d1) from the lower node; normal lerped between the ends'
/// central differences (times 2h; only the direction is used).
std::uint32_t add_edge_vertex(const Block& block, std::ptrdiff_t n, int axis, const Coord& global, double h,
                              MeshOut& out) {
  const std::ptrdiff_t along_y = block.step(1), along_z = block.step(2);
  const double* lower = block.values.data() + n;
  const double* upper = lower + block.step(axis);
  const double d0 = *lower, d1 = *upper;
  const double t = d0 / (d0 - d1);
  Vec3 position{};
  for (std::size_t a = 0; a < 3; ++a)
    position[a] = (static_cast<double>(global[a]) + (static_cast<int>(a) == axis ? t : 0.0)) * h;
  Lanes g0, g1;
  central_difference(lower, along_y, along_z, g0);
  central_difference(upper, along_y, along_z, g1);
  const Lanes normal = g0 + (g1 - g0) * t;
  return out.add_vertex(position, unit_or_zero(normal));
}

double squared_distance(const Vec3& p, const Vec3& q) noexcept {
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
constexpr std::array<std::array<std::array<std::uint8_t, 6>, 2>, 2> kQuadTriangles = [] {
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

/// The quad for a sign-changing grid edge from node p along `axis`. vertex_of(cell,
/// edge) gives the vertex of cell (offset (s, t) in (u, v) = (axis+1, axis+2) from
/// p - e_u - e_v) that belongs to that cell's edge id.
template <class VertexOf>
void add_edge_quad(int axis, bool lower_end_inside, VertexOf&& vertex_of, MeshOut& out) {
  const int u = (axis + 1) % 3, v = (axis + 2) % 3;
  std::array<std::uint32_t, 4> around{};  // cells (0,0), (1,0), (1,1), (0,1) in (u, v)
  constexpr int offsets[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
  for (std::size_t k = 0; k < 4; ++k) {
    const int s = offsets[k][0], t = offsets[k][1];
    // The edge sits at offsets (1 - s, 1 - t) on (u, v) from this cell's lowest corner.
    const int on_u = 1 - s, on_v = 1 - t;
    const int edge = u < v ? cell_edge(axis, on_u, on_v) : cell_edge(axis, on_v, on_u);
    around[k] = vertex_of(s, t, edge);
  }
  add_edge_quad(lower_end_inside, around, out);
}

// Which signs occur among some nodes: bit set.
constexpr std::uint8_t kHasInside = 1, kHasOutside = 2;

/// Signs among a brick's nodes, and among its faces x = 0, y = 0, z = 0.
struct SignSets {
  std::uint8_t all = 0;
  std::array<std::uint8_t, 3> low_face{};
};
constexpr SignSets kOutsideSigns{kHasOutside, {kHasOutside, kHasOutside, kHasOutside}};
constexpr SignSets kInsideSigns{kHasInside, {kHasInside, kHasInside, kHasInside}};

/// Inside flags of a brick's 64 node rows: bit x of byte y + 8 z is set when node
/// (x, y, z) is inside.
using RowBits = std::array<std::uint8_t, 64>;
constexpr RowBits kAllOutsideRows{};
constexpr RowBits kAllInsideRows = [] {
  RowBits rows{};
  for (auto& row : rows) row = 0xff;
  return rows;
}();

/// Bit x set when flags[x] (each 0 or 1) is 1: one multiply moves bit 8x of the
/// little-endian word to bit 56 + x, with no carries into the top byte.
std::uint8_t pack_flags(const std::uint8_t* flags) noexcept {
  static_assert(std::endian::native == std::endian::little, "pack_flags reads eight flags as a little-endian word");
  std::uint64_t word = 0;
  std::memcpy(&word, flags, sizeof word);
  return static_cast<std::uint8_t>((word * 0x0102040810204080ULL) >> 56);
}

/// Per lane, bit x set when local cell x (corners at block bits x + 1 and x + 2) of a
/// row of cells changes sign, from the inside bits of its four node rows.
Bytes8 mixed_cells(const Words8& r00, const Words8& r10, const Words8& r01, const Words8& r11) noexcept {
  const Words8 any = r00 | r10 | r01 | r11, all = r00 & r10 & r01 & r11;
  const Words8 some_inside = (any | (any >> 1)) >> 1, all_inside = (all & (all >> 1)) >> 1;
  return __builtin_convertvector(some_inside & ~all_inside & static_cast<std::uint16_t>(0xff), Bytes8);
}

/// Bit k set when lane k of eight (Bytes8 or Words8) is not zero.
template <class EightLanes>
std::uint8_t nonzero_lanes(const EightLanes& lanes) noexcept {
  const Bytes8 ones = __builtin_convertvector(lanes != 0, Bytes8) & 1;
  std::array<std::uint8_t, 8> flags{};
  std::memcpy(flags.data(), &ones, sizeof ones);
  return pack_flags(flags.data());
}

/// Eight doubles, and eight values of a brick's scalar, operated on lane by lane.
using Doubles8 = double __attribute__((vector_size(64)));
template <class S>
struct EightValues;
template <>
struct EightValues<float> {
  using type = float __attribute__((vector_size(32)));
};
template <>
struct EightValues<double> {
  using type = Doubles8;
};

/// Stored slot of a brick of the lookup box, or one of these.
constexpr std::int32_t kAbsentBrick = -1, kInsideBrick = -2;

/// A brick of the lookup box. The signs ride along with the slot so the planning
/// scan reads them at fixed offsets from one array.
struct LookupEntry {
  std::int32_t slot;
  SignSets signs;
};
constexpr LookupEntry kAbsentEntry{kAbsentBrick, kOutsideSigns};

}  // namespace

struct ContourScratch::Arrays {
  std::vector<RowBits> stored_rows;
  std::vector<SignSets> stored_signs;
  std::vector<LookupEntry> lookup;
  std::vector<Coord> cell_bricks;
  std::vector<std::int32_t> position_grid;
  std::array<std::vector<std::uint32_t>, 2> plane_shells;
};

ContourScratch::ContourScratch() = default;
ContourScratch::~ContourScratch() = default;
ContourScratch::ContourScratch(ContourScratch&&) noexcept = default;
ContourScratch& ContourScratch::operator=(ContourScratch&&) noexcept = default;

ContourScratch::Arrays& ContourScratch::arrays() {
  if (!arrays_) arrays_ = std::make_unique<Arrays>();
  return *arrays_;
}

namespace {

template <class S>
class BrickMesher {
 public:
  /// `reuse`: a result whose arrays' capacity the output takes over (contents
  /// dropped); `scratch`: working arrays, likewise.
  BrickMesher(const Grid<S>& grid, const ContourOptions& options, ContourResult&& reuse, ContourScratch& scratch)
      : grid_(grid),
        options_(options),
        stored_rows_(scratch.arrays().stored_rows),
        stored_signs_(scratch.arrays().stored_signs),
        lookup_(scratch.arrays().lookup),
        cell_bricks_(scratch.arrays().cell_bricks),
        position_grid_(scratch.arrays().position_grid),
        plane_shells_(scratch.arrays().plane_shells) {
    // Of the scratch arrays only capacity carries over: each is filled afresh by the
    // step that owns it (plane_shells_ entries are read only after this call's
    // bricks wrote them).
    out_.result.mesh.positions = std::move(reuse.mesh.positions);
    out_.result.mesh.normals = std::move(reuse.mesh.normals);
    out_.result.mesh.triangles = std::move(reuse.mesh.triangles);
    out_.result.mesh.positions.clear();
    out_.result.mesh.normals.clear();
    out_.result.mesh.triangles.clear();
    block_.resize({12, 12, 12});
    steps_ = corner_steps(block_);
    const std::size_t count = grid.stored_keys().size();
    stored_rows_.resize(count);
    stored_signs_.resize(count);
    build_lookup();
    // Inside bits and signs: here for every brick without lookup_; with it, run()
    // finds them one x plane at a time (find_plane_signs).
    if (lookup_.empty())
      for (std::size_t slot = 0; slot < count; ++slot) find_signs(slot);
  }

  /// Inside bits (stored_rows_) and sign sets (stored_signs_) of stored brick `slot`.
  void find_signs(std::size_t slot) {
    const S* values = grid_.brick_values(slot);
    // Flags first (branch-free, so it vectorises), then eight at a time into bits.
    std::array<std::uint8_t, kBrickNodes> flags;  // every entry written below
    for (int n = 0; n < kBrickNodes; ++n) flags[static_cast<std::size_t>(n)] = values[n] < 0 ? 1 : 0;
    RowBits& rows = stored_rows_[slot];
    for (std::size_t row = 0; row < 64; ++row) rows[row] = pack_flags(flags.data() + 8 * row);
    // Any and all of the inside bits over the brick and its faces x = 0 (bit 0 of
    // every row), y = 0 (rows 8 k) and z = 0 (rows 0..7); plain reductions, so the
    // one over all rows vectorises.
    unsigned any = 0, all = 0xff, any_y0 = 0, all_y0 = 0xff, any_z0 = 0, all_z0 = 0xff;
    for (std::size_t row = 0; row < 64; ++row) {
      any |= rows[row];
      all &= rows[row];
    }
    for (std::size_t k = 0; k < 8; ++k) {
      any_y0 |= rows[8 * k];
      all_y0 &= rows[8 * k];
      any_z0 |= rows[k];
      all_z0 &= rows[k];
    }
    const auto sets = [](unsigned some, unsigned every, unsigned full) {
      return static_cast<std::uint8_t>((some != 0 ? kHasInside : 0) | (every != full ? kHasOutside : 0));
    };
    stored_signs_[slot] = {sets(any, all, 0xff), {sets(any & 1u, all & 1u, 1), sets(any_y0, all_y0, 0xff), sets(any_z0, all_z0, 0xff)}};
  }

  /// find_signs for the stored bricks of x plane x of lookup_, with their signs
  /// copied into their entries. Each brick's values are requested from memory while
  /// the brick before it is read.
  void find_plane_signs(std::int64_t x) {
    const auto entries = static_cast<std::size_t>(lookup_size_[1] * lookup_size_[2]);
    const auto find = [&](LookupEntry& entry) {
      const auto slot = static_cast<std::size_t>(entry.slot);
      find_signs(slot);
      entry.signs = stored_signs_[slot];
    };
    LookupEntry* requested = nullptr;  // the stored brick whose values were requested last
    LookupEntry* entry = lookup_.data() + (x - lookup_lo_[0]);
    for (std::size_t k = 0; k < entries; ++k, entry += lookup_steps_[1]) {
      if (entry->slot < 0) continue;
      detail::prefetch_values(grid_.brick_values(static_cast<std::size_t>(entry->slot)), kBrickNodes);
      if (requested != nullptr) find(*requested);
      requested = entry;
    }
    if (requested != nullptr) find(*requested);
  }

  void build_lookup() {
    lookup_.clear();
    const auto& stored = grid_.stored_keys();
    const auto& inside = grid_.inside_keys();
    if (stored.empty() && inside.empty()) return;
    Coord lo{}, hi{};
    bool first = true;
    for (const auto* keys : {&stored, &inside})
      for (std::int64_t key : *keys) {
        const BrickCoord b = brick_of(key);
        const Coord bc{b.bx, b.by, b.bz};
        for (std::size_t a = 0; a < 3; ++a) {
          lo[a] = first ? bc[a] : std::min(lo[a], bc[a]);
          hi[a] = first ? bc[a] : std::max(hi[a], bc[a]);
        }
        first = false;
      }
    // Two more bricks below the extent and one above on each axis: cell bricks run from
    // lo - 1 to hi, and their gathers read one brick further each way.
    double cells = 1;
    for (std::size_t a = 0; a < 3; ++a) cells *= static_cast<double>(hi[a] - lo[a] + 4);
    if (cells > static_cast<double>(1 << 24) || stored.size() > static_cast<std::size_t>(INT32_MAX)) return;
    for (std::size_t a = 0; a < 3; ++a) {
      lookup_lo_[a] = lo[a] - 2;
      lookup_size_[a] = hi[a] - lo[a] + 4;
    }
    lookup_steps_ = {1, lookup_size_[0], lookup_size_[0] * lookup_size_[1]};
    for (int d = 1; d < 8; ++d)
      lookup_above_[static_cast<std::size_t>(d)] = corner_offset(d, 0) * lookup_steps_[0] + corner_offset(d, 1) * lookup_steps_[1] +
                                                   corner_offset(d, 2) * lookup_steps_[2];
    for (std::size_t d = 0; d < 27; ++d)
      lookup_around_[d] = static_cast<std::size_t>(d % 3) + static_cast<std::size_t>(lookup_steps_[1]) * ((d / 3) % 3) +
                          static_cast<std::size_t>(lookup_steps_[2]) * (d / 9);
    lookup_.assign(static_cast<std::size_t>(cells), kAbsentEntry);
    const auto index = [&](std::int64_t key) {
      const BrickCoord b = brick_of(key);
      return lookup_index({b.bx, b.by, b.bz});
    };
    for (std::size_t slot = 0; slot < stored.size(); ++slot)
      lookup_[index(stored[slot])] = {static_cast<std::int32_t>(slot), SignSets{}};  // signs: see find_plane_signs
    for (std::int64_t key : inside) lookup_[index(key)] = {kInsideBrick, kInsideSigns};
  }

  /// Index in lookup_ (and position_grid_) of brick b, which must lie in the lookup box.
  std::size_t lookup_index(const Coord& b) const {
    return static_cast<std::size_t>((b[0] - lookup_lo_[0]) + lookup_steps_[1] * (b[1] - lookup_lo_[1]) +
                                    lookup_steps_[2] * (b[2] - lookup_lo_[2]));
  }

  ContourResult run() {
    // A smooth surface makes about 6 vertices and 12 triangles per 8 x 8 face of a
    // brick it crosses; reserving that for every stored brick avoids most regrowth
    // of the output.
    const std::size_t expected_vertices = grid_.stored_keys().size() * 6 * 8;
    out_.result.mesh.positions.reserve(expected_vertices);
    out_.result.mesh.normals.reserve(expected_vertices);
    out_.result.mesh.triangles.reserve(2 * expected_vertices);
    cell_bricks_.clear();
    if (lookup_.empty()) {
      plan_cell_bricks();
      for (std::size_t at = 0; at < cell_bricks_.size(); ++at) {
        if (at % 256 == 0) throw_if_interrupted();
        mesh_cell_brick(at);
      }
      return std::move(out_.result);
    }
    // x planes of cell bricks from the top down. Plane x's cell bricks are chosen by
    // the signs of planes x and x + 1 and gather from planes x - 1 .. x + 1, so each
    // plane's signs are found just before their first use, one plane ahead, and the
    // node values that read brought in are still cached when the gathers read them.
    position_grid_.assign(lookup_.size(), -1);
    const std::int64_t top = lookup_lo_[0] + lookup_size_[0] - 2, bottom = lookup_lo_[0] + 1;
    find_plane_signs(top);
    for (std::int64_t x = top; x >= bottom; --x) {
      throw_if_interrupted();
      find_plane_signs(x - 1);
      const std::size_t first = cell_bricks_.size();
      plan_plane(x);
      for (std::size_t at = first; at < cell_bricks_.size(); ++at) mesh_cell_brick(at);
    }
    return std::move(out_.result);
  }

 private:
  /// Meshes the cell brick at position `at` of cell_bricks_ (all before it are done).
  void mesh_cell_brick(std::size_t at) {
    const std::size_t channels = options_.mesher == Mesher::surface_nets ? 1 : 3;
    if (at == 0 || cell_bricks_[at][0] != cell_bricks_[at - 1][0]) {
      // A new x plane: the one before becomes the plane above (or one further up, whose
      // shells no brick of this plane reads).
      std::swap(plane_shells_[0], plane_shells_[1]);
      plane_first_[1] = plane_first_[0];
      plane_first_[0] = at;
    }
    // Grown, never shrunk, and by doubling: the buffers are reused across planes and
    // their contents need no clearing (only entries a brick saved are read).
    const std::size_t shells_needed = (at - plane_first_[0] + 1) * channels * kShellSize;
    if (plane_shells_[0].size() < shells_needed) plane_shells_[0].resize(std::max(shells_needed, 2 * plane_shells_[0].size()));
    load_sources(cell_bricks_[at], at == 0 ? nullptr : &cell_bricks_[at - 1]);
    gather(cell_bricks_[at]);
    if (options_.mesher == Mesher::surface_nets)
      surface_nets_brick(at);
    else
      marching_cubes_brick(at);
    ++out_.result.bricks_meshed;
    out_.result.cells_visited += kBrickNodes;
  }

  // A shell: faces x = 0, y = 0, z = 0 of 8 x 8 entries each, slot p + 8 q for the
  // face's other two coordinates (p the lower axis).
  static constexpr std::size_t kShellSize = 3 * 64;
  static constexpr int kTable = 9;                   // local cells or edge starts 0..8

  struct Source {
    const S* values = nullptr;  // null: every node reads fill
    double fill = 0;
    SignSets signs;
    const RowBits* rows = &kAllOutsideRows;
  };
  /// Sets `source` to that of the brick at index `at` of lookup_, field by field: a
  /// whole Source built and then copied is read back wide from narrow stores, which
  /// stalls the copy.
  void source_at(std::size_t at, Source& source) const {
    const LookupEntry entry = lookup_[at];
    source.signs = entry.signs;
    if (entry.slot >= 0) {
      const auto slot = static_cast<std::size_t>(entry.slot);
      source.values = grid_.brick_values(slot);
      source.fill = 0;
      source.rows = &stored_rows_[slot];
      return;
    }
    const bool inside = entry.slot == kInsideBrick;
    source.values = nullptr;
    source.fill = inside ? -grid_.band_width() : grid_.band_width();
    source.rows = inside ? &kAllInsideRows : &kAllOutsideRows;
  }

  /// The source of brick b from the grid's own index, for grids without lookup_.
  Source source(const Coord& b) const {
    const Source absent{nullptr, grid_.band_width(), kOutsideSigns, &kAllOutsideRows};
    const auto stored = [&](std::size_t slot) {
      return Source{grid_.brick_values(slot), 0, stored_signs_[slot], &stored_rows_[slot]};
    };
    for (std::int64_t c : b)
      if (!brick_coord_in_range(c)) return absent;
    const std::int64_t key = brick_key(b[0], b[1], b[2]);
    if (const S* values = grid_.find_brick(key)) return stored(static_cast<std::size_t>(values - grid_.brick_values(0)) / kBrickNodes);
    if (grid_.is_inside(key)) return {nullptr, -grid_.band_width(), kInsideSigns, &kAllInsideRows};
    return absent;
  }

  /// Whether the cells of a cell brick change sign, from the signs of its brick
  /// and signs_above(d), those of the bricks at corner offsets d = 1..7 above it.
  template <class SignsAbove>
  static bool mixed_signs(std::uint8_t signs, SignsAbove&& signs_above) {
    for (int d = 1; d < 8 && signs != (kHasInside | kHasOutside); ++d) {
      // Nodes at local 8 on the axes in d lie on the lowest layer of that brick,
      // within its face normal to the first such axis.
      const int face = (d & 1) ? 0 : ((d & 2) ? 1 : 2);
      signs |= signs_above(d).low_face[static_cast<std::size_t>(face)];
    }
    return signs == (kHasInside | kHasOutside);
  }

  /// Appends the cell bricks of x plane x whose cells' corners (local 0..8: the
  /// brick and the lowest node layers of the bricks above) have both signs, in
  /// descending (y, z) order, to cell_bricks_ and position_grid_ (lookup_ grids).
  void plan_plane(std::int64_t x) {
    for (std::int64_t y = lookup_lo_[1] + lookup_size_[1] - 2; y > lookup_lo_[1]; --y)
      for (std::int64_t z = lookup_lo_[2] + lookup_size_[2] - 2; z > lookup_lo_[2]; --z) {
        const std::size_t index = lookup_index({x, y, z});
        const LookupEntry* here = lookup_.data() + index;
        if (!mixed_signs(here->signs.all, [&](int d) { return here[lookup_above_[static_cast<std::size_t>(d)]].signs; })) continue;
        position_grid_[index] = static_cast<std::int32_t>(cell_bricks_.size());
        cell_bricks_.push_back({x, y, z});
      }
  }

  /// Those cell bricks over the whole grid, in descending order, for grids without
  /// lookup_: enumerated from the bricks below every stored brick and every inside
  /// brick that touches an absent one, a superset of them.
  void plan_cell_bricks() {
    position_grid_.clear();  // bricks above are found by search_position
    std::vector<Coord> candidates;
    const auto add_below = [&](const BrickCoord& b) {
      for (int d = 0; d < 8; ++d)
        candidates.push_back({b.bx - corner_offset(d, 0), b.by - corner_offset(d, 1), b.bz - corner_offset(d, 2)});
    };
    for (std::int64_t key : grid_.stored_keys()) add_below(brick_of(key));
    for (std::int64_t key : grid_.inside_keys()) {
      const BrickCoord b = brick_of(key);
      bool touches_outside = false;
      for (int dz = -1; dz <= 1 && !touches_outside; ++dz)
        for (int dy = -1; dy <= 1 && !touches_outside; ++dy)
          for (int dx = -1; dx <= 1 && !touches_outside; ++dx)
            touches_outside = source({b.bx + dx, b.by + dy, b.bz + dz}).signs.all == kHasOutside;
      if (touches_outside) add_below(b);
    }
    std::sort(candidates.begin(), candidates.end(), std::greater<>());
    candidates.erase(std::unique(candidates.begin(), candidates.end()), candidates.end());
    for (const Coord& c : candidates) {
      const auto signs_above = [&](int d) {
        return source({c[0] + corner_offset(d, 0), c[1] + corner_offset(d, 1), c[2] + corner_offset(d, 2)}).signs;
      };
      if (mixed_signs(source(c).signs.all, signs_above)) cell_bricks_.push_back(c);
    }
  }

  /// The sources of the first `count` (9 or 27) bricks around cell brick c, at offsets
  /// d % 3 - 1, (d / 3) % 3 - 1, d / 9 - 1 (the first 9 are the layer below on z).
  void sources_around(const Coord& c, int count, std::array<Source, 27>& sources) const {
    if (!lookup_.empty()) {
      const std::size_t lowest = lookup_index({c[0] - 1, c[1] - 1, c[2] - 1});
      for (std::size_t d = 0; d < static_cast<std::size_t>(count); ++d) source_at(lowest + lookup_around_[d], sources[d]);
      return;
    }
    for (int d = 0; d < count; ++d)
      sources[static_cast<std::size_t>(d)] = source({c[0] + d % 3 - 1, c[1] + (d / 3) % 3 - 1, c[2] + d / 9 - 1});
  }

  /// Fills sources_ for cell brick c, whose gather comes after that of cell brick
  /// `before` (null: none). When c is the next one down the column, the 18 sources
  /// both share move up one layer and only the 9 below are looked up.
  void load_sources(const Coord& c, const Coord* before) {
    const bool next_down = before != nullptr && c[0] == (*before)[0] && c[1] == (*before)[1] && c[2] == (*before)[2] - 1;
    if (!next_down) {
      sources_around(c, 27, sources_);
      return;
    }
    std::copy_backward(sources_.begin(), sources_.begin() + 18, sources_.end());
    sources_around(c, 9, sources_);
  }

  /// From sources_ (those of cell brick c): inside bits of block rows at local -1..10 (row_bits_), which
  /// own cells change sign (mixed_), and the node values (block_) of the rows those
  /// cells' vertices read; the other rows of block_ keep stale values and are never
  /// read. Local 9 and 10 serve the manifold mode's look at the neighbours of cells at 8.
  void gather(const Coord& c) {
    for (std::size_t a = 0; a < 3; ++a) block_.origin[a] = c[a] * 8 - 1;
    // Block row (y, z) at local -1..10 takes node 7 of the brick below on x, nodes
    // 0..7 of the middle one and 0..2 of the one above, from the bricks at that row's
    // (y, z) brick offsets.
    const std::array<Source, 27>& sources = sources_;
    const auto brick_part = [](int block_index, int& node) {  // which brick offset (0..2), node within it
      if (block_index == 0) {
        node = 7;
        return 0;
      }
      if (block_index <= 8) {
        node = block_index - 1;
        return 1;
      }
      node = block_index - 9;
      return 2;
    };
    const auto combine = [](const std::uint8_t* below, const std::uint8_t* middle, const std::uint8_t* above) {
      const unsigned low = *below, mid = *middle, high = *above;
      return static_cast<std::uint16_t>((low >> 7) | (mid << 1) | ((high & 7u) << 9));
    };
    for (int z = 0; z < 12; ++z) {
      int node_z = 0;
      const int dz = brick_part(z, node_z);
      // The layer's sources at brick offsets (x, y) = 3 y + x; rows of node layer node_z.
      const Source* layer = &sources[static_cast<std::size_t>(9 * dz)];
      const auto rows = [&](int d, int node_y) {
        return layer[static_cast<std::size_t>(d)].rows->data() + node_y + 8 * node_z;
      };
      std::uint16_t* bits = row_bits_.data() + 12 * z;
      bits[0] = combine(rows(0, 7), rows(1, 7), rows(2, 7));
      // Block rows 1..8 from node rows 0..7 of the middle bricks, eight lanes at once.
      const Words8 middle_rows =
          (widen_bytes(rows(3, 0)) >> 7) | (widen_bytes(rows(4, 0)) << 1) | ((widen_bytes(rows(5, 0)) & 7) << 9);
      std::memcpy(bits + 1, &middle_rows, sizeof middle_rows);
      for (int y = 0; y < 3; ++y) bits[9 + y] = combine(rows(6, y), rows(7, y), rows(8, y));
    }
    // A cell's vertex reads its corners and their neighbours: block rows y..y+3 and
    // z..z+3 for own cell row (y, z). Bit y of needed[z]: block row (y, z) is read.
    std::array<unsigned, 12> needed{};
    std::uint64_t mixed_rows = 0;
    for (int z = 0; z < 8; ++z) {
      // Own cell rows y = 0..7 of layer z in eight lanes.
      const std::uint16_t* low = row_bits_.data() + 12 * (z + 1) + 1;  // block rows (1.., z + 1)
      const std::uint16_t* high = low + 12;                             // block rows (1.., z + 2)
      const Bytes8 mixed = mixed_cells(load_words(low), load_words(low + 1), load_words(high), load_words(high + 1));
      std::memcpy(mixed_.data() + 8 * z, &mixed, sizeof mixed);
      const unsigned rows_mixed = nonzero_lanes(mixed);  // bit y: own cell row (y, z) has a mixed cell
      mixed_rows |= std::uint64_t{rows_mixed} << (8 * z);
      const unsigned rows_read = rows_mixed | (rows_mixed << 1) | (rows_mixed << 2) | (rows_mixed << 3);
      for (int dz = 0; dz < 4; ++dz) needed[static_cast<std::size_t>(z + dz)] |= rows_read;
    }
    mixed_rows_ = mixed_rows;
    for (int z = 0; z < 12; ++z) {
      int node_z = 0;
      const int dz = brick_part(z, node_z);
      for_each_bit(needed[static_cast<std::size_t>(z)], [&](int y) {
        int node_y = 0;
        const int dy = brick_part(y, node_y);
        double* row = block_.values.data() + block_.at(0, y, z);
        const int row_offset = 8 * node_y + 64 * node_z;
        const Source* src = &sources[static_cast<std::size_t>(3 * dy + 9 * dz)];
        const double first = src[0].values ? static_cast<double>(src[0].values[row_offset + 7]) : src[0].fill;
        Doubles8 middle;
        if (src[1].values) {
          typename EightValues<S>::type loaded;
          std::memcpy(&loaded, src[1].values + row_offset, sizeof loaded);
          middle = __builtin_convertvector(loaded, Doubles8);
        } else {
          middle = Doubles8{} + src[1].fill;
        }
        std::array<double, 3> last{};
        for (std::size_t x = 0; x < 3; ++x)
          last[x] = src[2].values ? static_cast<double>(src[2].values[row_offset + static_cast<int>(x)]) : src[2].fill;
        row[0] = first;
        std::memcpy(row + 1, &middle, sizeof middle);
        std::memcpy(row + 9, last.data(), sizeof last);
      });
    }
  }

  /// Inside bits of block row (y, z), bit x for block x (local x - 1).
  unsigned block_row(int y, int z) const { return row_bits_[static_cast<std::size_t>(y + 12 * z)]; }

  /// Inside pattern of the cell at local (x, y, z), each in -1..9.
  unsigned pattern_at(int x, int y, int z) const {
    const auto pair = [&](int dy, int dz) { return (block_row(y + 1 + dy, z + 1 + dz) >> (x + 1)) & 3u; };
    return pair(0, 0) | (pair(1, 0) << 2) | (pair(0, 1) << 4) | (pair(1, 1) << 6);
  }

  /// manifold_case of the cell at local (x, y, z), each in 0..8.
  const CellCase& manifold_case_at(int x, int y, int z, unsigned pattern) const {
    return manifold_case(pattern, [&](int f) {
      std::array<int, 3> q{x, y, z};
      q[static_cast<std::size_t>(f / 2)] += (f & 1) ? 1 : -1;
      return pattern_at(q[0], q[1], q[2]);
    });
  }

  /// Position in cell_bricks_ of the brick at c + offset, or -1 when it was skipped;
  /// by search, for grids without position_grid_.
  std::ptrdiff_t search_position(const Coord& c, int dx, int dy, int dz) const {
    const Coord want{c[0] + dx, c[1] + dy, c[2] + dz};
    const auto it = std::lower_bound(cell_bricks_.begin(), cell_bricks_.end(), want, std::greater<>());
    if (it == cell_bricks_.end() || *it != want) return -1;
    return it - cell_bricks_.begin();
  }

  static constexpr std::size_t table_index(int x, int y, int z) {
    return static_cast<std::size_t>(x + kTable * (y + kTable * z));
  }

  static std::ptrdiff_t table_stride(int axis) { return axis == 0 ? 1 : (axis == 1 ? kTable : kTable * kTable); }

  /// The saved shell (channels x kShellSize) of the cell brick at position `at`, which
  /// lies in the current x plane or the one above.
  const std::uint32_t* shell_of(std::size_t at, std::size_t channels) const {
    const std::size_t plane = cell_bricks_[at][0] == cell_bricks_[plane_first_[0]][0] ? 0 : 1;
    return plane_shells_[plane].data() + (at - plane_first_[plane]) * channels * kShellSize;
  }

  /// Copies, for each channel, entries at local 8 on some axis from the shells of the
  /// bricks above into table (channel-major, 9^3 each).
  void fill_from_above(std::size_t at, std::size_t channels, std::vector<std::uint32_t>& table) const {
    const Coord& c = cell_bricks_[at];
    // With position_grid_, the bricks above are at fixed offsets from this one's entry.
    const std::int32_t* positions_here = position_grid_.empty() ? nullptr : position_grid_.data() + lookup_index(c);
    // One copy per offset d = 1..7, with d a constant so each copy's loops are fixed.
    const auto fill_from = [&]<int d>(std::integral_constant<int, d>) {
      const std::ptrdiff_t from = positions_here != nullptr
                                      ? positions_here[lookup_above_[d]]
                                      : search_position(c, corner_offset(d, 0), corner_offset(d, 1), corner_offset(d, 2));
      if (from < 0) return;  // no surface there: never read
      const std::uint32_t* shell = shell_of(static_cast<std::size_t>(from), channels);
      // Local 8 on the axes in d, 0..7 on the others; each is read from the face of the
      // first axis in d (local 0 there in the brick above).
      constexpr auto first = [](int axis) { return corner_offset(d, axis) ? 8 : 0; };
      constexpr auto last = [](int axis) { return corner_offset(d, axis) ? 8 : 7; };
      constexpr int face = (d & 1) ? 0 : ((d & 2) ? 1 : 2);
      for (std::size_t ch = 0; ch < channels; ++ch) {
        const std::uint32_t* from_face = shell + ch * kShellSize + 64 * static_cast<std::size_t>(face);
        std::uint32_t* to = table.data() + ch * 729;
        for (int z = first(2); z <= last(2); ++z)
          for (int y = first(1); y <= last(1); ++y) {
            if constexpr (face == 0) {  // x = 8: one entry, slot y + 8 z
              to[table_index(8, y, z)] = from_face[static_cast<std::size_t>((y & 7) + 8 * (z & 7))];
            } else {
              // x = 0..7, contiguous in both: slot x + 8 z on face y, x + 8 y on face z.
              const int row = 8 * (face == 1 ? (z & 7) : (y & 7));
              std::copy_n(from_face + row, 8, to + table_index(0, y, z));
            }
          }
      }
    };
    [&]<int... d>(std::integer_sequence<int, d...>) {
      (fill_from(std::integral_constant<int, d + 1>{}), ...);
    }(std::make_integer_sequence<int, 7>{});
  }

  /// Saves the entries at local 0 on some axis, as whole faces x = 0, y = 0, z = 0.
  void save_shell(std::size_t at, std::size_t channels, const std::vector<std::uint32_t>& table) {
    std::uint32_t* shell = plane_shells_[0].data() + (at - plane_first_[0]) * channels * kShellSize;
    for (std::size_t ch = 0; ch < channels; ++ch) {
      const std::uint32_t* from = table.data() + ch * 729;
      std::uint32_t* to = shell + ch * kShellSize;
      for (int q = 0; q < 8; ++q)
        for (int p = 0; p < 8; ++p) {
          const auto slot = static_cast<std::size_t>(p + 8 * q);
          to[slot] = from[table_index(0, p, q)];
          to[64 + slot] = from[table_index(p, 0, q)];
          to[128 + slot] = from[table_index(p, q, 0)];
        }
    }
  }

  /// Calls visit(x, y, z, n, pattern) for each of the brick's own cells whose
  /// corners change sign, in z, y, x order (cell local x, y, z; n its first corner in the block).
  template <class Visit>
  void for_each_mixed_cell(Visit&& visit) {
    for (std::uint64_t rows = mixed_rows_; rows != 0; rows &= rows - 1) {
      const int row = std::countr_zero(rows), y = row % 8, z = row / 8;
      for_each_bit(mixed_[static_cast<std::size_t>(row)],
                   [&](int x) { visit(x, y, z, block_.at(x + 1, y + 1, z + 1), pattern_at(x, y, z)); });
    }
  }

  void surface_nets_brick(std::size_t at) {
    const Coord& c = cell_bricks_[at];
    const bool split = options_.manifold;
    table_.resize(729);
    // Vertices of own cells (block local = cell local + 1).
    for_each_mixed_cell([&](int x, int y, int z, std::ptrdiff_t n, unsigned pattern) {
      const Coord global{c[0] * 8 + x, c[1] * 8 + y, c[2] * 8 + z};
      if (split) {
        const CellCase& cell = manifold_case_at(x, y, z, pattern);
        if (cell.loop_count > 1) ++out_.result.split_cells;
        table_[table_index(x, y, z)] = add_cell_vertices(block_, n, pattern, global, cell, split, grid_.h(), steps_, out_);
        return;
      }
      out_.result.split_cells += kSplitPatterns[pattern];
      cell_queue_.push(table_index(x, y, z), {n, pattern, global});
      if (cell_queue_.full()) cell_queue_.flush(block_, grid_.h(), out_, table_);
    });
    cell_queue_.flush(block_, grid_.h(), out_, table_);
    save_shell(at, 1, table_);
    fill_from_above(at, 1, table_);
    // Quads of owned edges: start at 0..7 along the axis, 1..8 on the other two.
    for (int axis = 0; axis < 3; ++axis) {
      const int u = (axis + 1) % 3, v = (axis + 2) % 3;
      std::array<int, 3> lo{1, 1, 1}, hi{8, 8, 8};
      lo[static_cast<std::size_t>(axis)] = 0;
      hi[static_cast<std::size_t>(axis)] = 7;
      // Table offsets of the cells (0, 0), (1, 0), (1, 1), (0, 1) in (u, v) around an
      // edge from p: cell (s, t) has its lowest corner at p - (1 - s) e_u - (1 - t) e_v.
      const std::ptrdiff_t along_u = table_stride(u), along_v = table_stride(v);
      const std::array<std::ptrdiff_t, 4> around{-along_u - along_v, -along_v, 0, -along_u};
      // Local x of the row's edges, as bits of a row's inside bits shifted down by one.
      const unsigned x_range = axis == 0 ? 0xffu : 0x1feu;
      // The sign-changing edges of the axis's 64 rows (y, z), without branches first; the
      // edges of a row join node rows (y, z) and the next one on the axis.
      std::array<std::uint16_t, 64> crossing{};
      std::uint64_t rows_crossing = 0;
      for (int layer = 0; layer < 8; ++layer) {  // rows y = lo[1] .. lo[1] + 7 of z = lo[2] + layer
        const std::uint16_t* here_rows = row_bits_.data() + 12 * (lo[2] + layer + 1) + lo[1] + 1;
        const Words8 here = load_words(here_rows);
        const Words8 next = axis == 0 ? here >> 1 : load_words(here_rows + (axis == 1 ? 1 : 12));
        const Words8 layer_crossing = ((here ^ next) >> 1) & static_cast<std::uint16_t>(x_range);
        std::memcpy(crossing.data() + 8 * layer, &layer_crossing, sizeof layer_crossing);
        rows_crossing |= std::uint64_t{nonzero_lanes(layer_crossing)} << (8 * layer);
      }
      // Then the quads, row by row in z, y order and x order within a row.
      for (std::uint64_t rows = rows_crossing; rows != 0; rows &= rows - 1) {
        const int row = std::countr_zero(rows), y = lo[1] + row % 8, z = lo[2] + row / 8;
        const unsigned here = block_row(y + 1, z + 1);
        for_each_bit(crossing[static_cast<std::size_t>(row)], [&](int x) {
          const bool lower_end_inside = ((here >> (x + 1)) & 1u) != 0;
          if (!split) {
            const std::uint32_t* edge = table_.data() + table_index(x, y, z);
            add_edge_quad(lower_end_inside, {edge[around[0]], edge[around[1]], edge[around[2]], edge[around[3]]}, out_);
            return;
          }
          const std::array<int, 3> p{x, y, z};
          add_edge_quad(
              axis, lower_end_inside,
              [&](int s, int t, int edge) {
                std::array<int, 3> q = p;
                q[static_cast<std::size_t>(u)] -= 1 - s;
                q[static_cast<std::size_t>(v)] -= 1 - t;
                const std::uint32_t base = table_[table_index(q[0], q[1], q[2])];
                const CellCase& cell = manifold_case_at(q[0], q[1], q[2], pattern_at(q[0], q[1], q[2]));
                return base + static_cast<std::uint32_t>(cell.piece_of_edge[static_cast<std::size_t>(edge)]);
              },
              out_);
        });
      }
    }
  }

  /// Offset in table_ (channel-major, 9^3 each) of each cell edge's vertex from the
  /// cell's entry: the edge's axis channel, at the edge's lower corner.
  static constexpr std::array<std::size_t, 12> kEdgeTableOffsets = [] {
    std::array<std::size_t, 12> offsets{};
    for (std::size_t e = 0; e < 12; ++e) {
      const int base = kEdgeCorners[e][0];
      offsets[e] = (e / 4) * 729 + table_index(corner_offset(base, 0), corner_offset(base, 1), corner_offset(base, 2));
    }
    return offsets;
  }();

  void marching_cubes_brick(std::size_t at) {
    const Coord& c = cell_bricks_[at];
    table_.resize(3 * 729);
    // Vertices of the edges starting at own nodes 0..7, in z, y, x, axis order.
    for (int z = 0; z < 8; ++z)
      for (int y = 0; y < 8; ++y) {
        const unsigned here = block_row(y + 1, z + 1);
        const std::array<unsigned, 3> changes{((here ^ (here >> 1)) >> 1) & 0xffu,
                                              ((here ^ block_row(y + 2, z + 1)) >> 1) & 0xffu,
                                              ((here ^ block_row(y + 1, z + 2)) >> 1) & 0xffu};
        for_each_bit(changes[0] | changes[1] | changes[2], [&](int x) {
          const std::ptrdiff_t n = block_.at(x + 1, y + 1, z + 1);
          const Coord global{c[0] * 8 + x, c[1] * 8 + y, c[2] * 8 + z};
          for (int axis = 0; axis < 3; ++axis)
            if ((changes[static_cast<std::size_t>(axis)] >> x) & 1u)
              table_[static_cast<std::size_t>(axis) * 729 + table_index(x, y, z)] =
                  add_edge_vertex(block_, n, axis, global, grid_.h(), out_);
        });
      }
    save_shell(at, 3, table_);
    fill_from_above(at, 3, table_);
    for_each_mixed_cell([&](int x, int y, int z, std::ptrdiff_t n, unsigned pattern) {
      add_cell_triangles(
          pattern,
          [&, cell = table_.data() + table_index(x, y, z)](int edge) {
            return cell[kEdgeTableOffsets[static_cast<std::size_t>(edge)]];
          },
          [&](int piece) {
            const Coord global{c[0] * 8 + x, c[1] * 8 + y, c[2] * 8 + z};
            return add_piece_vertex(block_, n, pattern, global, kCellCases[pattern], piece, grid_.h(), steps_, out_);
          });
    });
  }

 public:
  /// Marching cubes triangles of one cell: a fan over each loop of its case.
  template <class VertexOfEdge, class CentreOf>
  static void add_cell_triangles(unsigned pattern, VertexOfEdge&& vertex_of_edge, CentreOf&& centre_of, MeshOut& out,
                                 std::size_t& split_cells) {
    const CellCase& cell = kCellCases[pattern];
    if (cell.loop_count > 1) ++split_cells;
    for (std::size_t loop = 0; loop < cell.loop_count; ++loop) {
      const std::size_t begin = cell.loop_begin[loop], size = cell.loop_size[loop];
      if (cell.loop_needs_centre[loop]) {
        const std::uint32_t centre = centre_of(static_cast<int>(loop));
        for (std::size_t k = 0; k < size; ++k)
          out.add_triangle(centre, vertex_of_edge(cell.loop_edges[begin + k]),
                           vertex_of_edge(cell.loop_edges[begin + (k + 1) % size]));
        continue;
      }
      const std::uint32_t first = vertex_of_edge(cell.loop_edges[begin]);
      std::uint32_t previous = vertex_of_edge(cell.loop_edges[begin + 1]);
      for (std::size_t k = 2; k < size; ++k) {
        const std::uint32_t next = vertex_of_edge(cell.loop_edges[begin + k]);
        out.add_triangle(first, previous, next);
        previous = next;
      }
    }
  }

 private:
  template <class VertexOfEdge, class CentreOf>
  void add_cell_triangles(unsigned pattern, VertexOfEdge&& vertex_of_edge, CentreOf&& centre_of) {
    add_cell_triangles(pattern, vertex_of_edge, centre_of, out_, out_.result.split_cells);
  }

  const Grid<S>& grid_;
  ContourOptions options_;
  // The arrays below that grow with the grid live in the caller's scratch (see
  // ContourScratch::Arrays).
  std::vector<RowBits>& stored_rows_;  // per stored slot
  std::vector<SignSets>& stored_signs_;
  // Brick slots and signs over the bricks' extent, x fastest, when that box is small
  // enough; else empty and the grid's index is used.
  std::vector<LookupEntry>& lookup_;
  Coord lookup_lo_{}, lookup_size_{}, lookup_steps_{};
  std::array<std::ptrdiff_t, 8> lookup_above_{};  // lookup_ offset of the brick at corner offset d from a brick
  std::array<std::size_t, 27> lookup_around_{};    // lookup_ offset of source d (see sources_around) from source 0
  std::vector<Coord>& cell_bricks_;
  // With lookup_: position in cell_bricks_ (or -1) of each brick of the lookup box.
  std::vector<std::int32_t>& position_grid_;
  // Shells (vertex indices at local 0 on some axis, see save_shell) of the cell bricks
  // in the current x plane [0] and the plane before [1], by position - plane_first_;
  // bricks further up are never read again, so two planes' buffers are reused.
  std::array<std::vector<std::uint32_t>, 2>& plane_shells_;
  std::array<std::size_t, 2> plane_first_{};
  std::vector<std::uint32_t> table_;
  CellQueue cell_queue_;  // surface-nets vertices waiting for a full set of lanes
  std::array<Source, 27> sources_;  // of the brick being gathered, see load_sources
  Block block_;
  std::array<std::uint16_t, 144> row_bits_{};  // per block row (y + 12 z), see gather
  std::array<std::uint8_t, 64> mixed_{};       // per own cell row (y + 8 z), see gather
  std::uint64_t mixed_rows_ = 0;               // bit y + 8 z: mixed_[y + 8 z] != 0
  std::array<std::ptrdiff_t, 8> steps_{};
  MeshOut out_;
};

}  // namespace

template <class S>
ContourResult contour(const Grid<S>& grid, const ContourOptions& options) {
  ContourScratch scratch;
  return BrickMesher<S>(grid, options, ContourResult{}, scratch).run();
}

template <class S>
void contour(const Grid<S>& grid, const ContourOptions& options, ContourResult& result) {
  ContourScratch scratch;
  contour(grid, options, result, scratch);
}

template <class S>
void contour(const Grid<S>& grid, const ContourOptions& options, ContourResult& result, ContourScratch& scratch) {
  result = BrickMesher<S>(grid, options, std::move(result), scratch).run();
}

namespace detail {

const CellCase& cell_case_joined(unsigned pattern, unsigned join_faces) {
  static const std::vector<CellCase> table = [] {
    std::vector<CellCase> cases(256 * 64);
    for (unsigned p = 0; p < 256; ++p)
      for (unsigned mask = 0; mask < 64; ++mask)
        if ((mask & ~static_cast<unsigned>(kAmbiguousFaces[p])) == 0) cases[p * 64 + mask] = make_cell_case(p, mask);
    return cases;
  }();
  return table[pattern * 64 + (join_faces & kAmbiguousFaces[pattern])];
}

template <class S>
ContourResult contour_dense(const Grid<S>& grid, const ContourOptions& options) {
  MeshOut out;
  std::vector<std::int64_t> keys = grid.stored_keys();
  keys.insert(keys.end(), grid.inside_keys().begin(), grid.inside_keys().end());
  if (keys.empty()) return std::move(out.result);
  Coord lo{}, hi{};
  for (std::size_t n = 0; n < keys.size(); ++n) {
    const BrickCoord b = brick_of(keys[n]);
    const Coord bc{b.bx, b.by, b.bz};
    for (std::size_t a = 0; a < 3; ++a) {
      lo[a] = n == 0 ? bc[a] : std::min(lo[a], bc[a]);
      hi[a] = n == 0 ? bc[a] : std::max(hi[a], bc[a]);
    }
  }
  // Cells from (lo - 1) * 8 to (hi + 1) * 8 + 7; nodes one further on each side.
  Block block;
  std::array<int, 3> cells{};
  for (std::size_t a = 0; a < 3; ++a) {
    cells[a] = static_cast<int>((hi[a] - lo[a] + 3) * 8);
    block.origin[a] = (lo[a] - 1) * 8 - 1;
  }
  block.resize({cells[0] + 3, cells[1] + 3, cells[2] + 3});
  for (int z = 0; z < block.size[2]; ++z)
    for (int y = 0; y < block.size[1]; ++y)
      for (int x = 0; x < block.size[0]; ++x)
        block.values[static_cast<std::size_t>(block.at(x, y, z))] =
            grid.node(block.origin[0] + x, block.origin[1] + y, block.origin[2] + z);
  block.finish_flags();
  const auto steps = corner_steps(block);
  const auto cell_count = static_cast<std::size_t>(cells[0]) * static_cast<std::size_t>(cells[1]) * static_cast<std::size_t>(cells[2]);
  const auto cell_index = [&](int x, int y, int z) {
    return static_cast<std::size_t>(x) + static_cast<std::size_t>(cells[0]) * (static_cast<std::size_t>(y) + static_cast<std::size_t>(cells[1]) * static_cast<std::size_t>(z));
  };
  const auto global = [&](int x, int y, int z) { return Coord{block.origin[0] + 1 + x, block.origin[1] + 1 + y, block.origin[2] + 1 + z}; };
  out.result.cells_visited = cell_count;
  if (options.mesher == Mesher::surface_nets) {
    std::vector<std::uint32_t> vertex(cell_count, 0);
    for (int z = 0; z < cells[2]; ++z)
      for (int y = 0; y < cells[1]; ++y)
        for (int x = 0; x < cells[0]; ++x) {
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          const unsigned pattern = cell_pattern(block, n, steps);
          if (pattern == 0 || pattern == 255) continue;
          const CellCase& cell = options.manifold ? manifold_case(block, n, pattern, steps) : kCellCases[pattern];
          if (cell.loop_count > 1) ++out.result.split_cells;
          vertex[cell_index(x, y, z)] = add_cell_vertices(block, n, pattern, global(x, y, z), cell, options.manifold, grid.h(), steps, out);
        }
    for (int z = 0; z < cells[2]; ++z)
      for (int y = 0; y < cells[1]; ++y)
        for (int x = 0; x < cells[0]; ++x) {
          const std::array<int, 3> p{x, y, z};
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          for (int axis = 0; axis < 3; ++axis) {
            const int u = (axis + 1) % 3, v = (axis + 2) % 3;
            if (p[static_cast<std::size_t>(u)] == 0 || p[static_cast<std::size_t>(v)] == 0) continue;
            const bool here = block.is_inside(n);
            if (here == block.is_inside(n + block.step(axis))) continue;
            add_edge_quad(
                axis, here,
                [&](int s, int t, int edge) {
                  std::array<int, 3> q = p;
                  q[static_cast<std::size_t>(u)] -= 1 - s;
                  q[static_cast<std::size_t>(v)] -= 1 - t;
                  const std::uint32_t base = vertex[cell_index(q[0], q[1], q[2])];
                  if (!options.manifold) return base;
                  const std::ptrdiff_t m = block.at(q[0] + 1, q[1] + 1, q[2] + 1);
                  const CellCase& cell = manifold_case(block, m, cell_pattern(block, m, steps), steps);
                  return base + static_cast<std::uint32_t>(cell.piece_of_edge[static_cast<std::size_t>(edge)]);
                },
                out);
          }
        }
  } else {
    // Edge starts at nodes 0..cells (local to the cells) on each axis.
    const std::array<int, 3> nodes{cells[0] + 1, cells[1] + 1, cells[2] + 1};
    const auto edge_index = [&](int axis, int x, int y, int z) {
      return static_cast<std::size_t>(axis) * static_cast<std::size_t>(nodes[0]) * static_cast<std::size_t>(nodes[1]) * static_cast<std::size_t>(nodes[2]) +
             static_cast<std::size_t>(x) + static_cast<std::size_t>(nodes[0]) * (static_cast<std::size_t>(y) + static_cast<std::size_t>(nodes[1]) * static_cast<std::size_t>(z));
    };
    std::vector<std::uint32_t> vertex(3 * static_cast<std::size_t>(nodes[0]) * static_cast<std::size_t>(nodes[1]) * static_cast<std::size_t>(nodes[2]), 0);
    for (int z = 0; z < nodes[2]; ++z)
      for (int y = 0; y < nodes[1]; ++y)
        for (int x = 0; x < nodes[0]; ++x) {
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          const std::array<int, 3> p{x, y, z};
          for (int axis = 0; axis < 3; ++axis) {
            if (p[static_cast<std::size_t>(axis)] == nodes[static_cast<std::size_t>(axis)] - 1) continue;
            if (block.is_inside(n) == block.is_inside(n + block.step(axis))) continue;
            vertex[edge_index(axis, x, y, z)] = add_edge_vertex(block, n, axis, global(x, y, z), grid.h(), out);
          }
        }
    for (int z = 0; z < cells[2]; ++z)
      for (int y = 0; y < cells[1]; ++y)
        for (int x = 0; x < cells[0]; ++x) {
          const std::ptrdiff_t n = block.at(x + 1, y + 1, z + 1);
          const unsigned pattern = cell_pattern(block, n, steps);
          if (pattern == 0 || pattern == 255) continue;
          BrickMesher<S>::add_cell_triangles(
              pattern,
              [&](int edge) {
                const int base = kEdgeCorners[static_cast<std::size_t>(edge)][0];
                return vertex[edge_index(edge / 4, x + corner_offset(base, 0), y + corner_offset(base, 1), z + corner_offset(base, 2))];
              },
              [&](int piece) { return add_piece_vertex(block, n, pattern, global(x, y, z), kCellCases[pattern], piece, grid.h(), steps, out); },
              out, out.result.split_cells);
        }
  }
  return std::move(out.result);
}

template ContourResult contour_dense<float>(const Grid<float>&, const ContourOptions&);
template ContourResult contour_dense<double>(const Grid<double>&, const ContourOptions&);

}  // namespace detail

template ContourResult contour<float>(const Grid<float>&, const ContourOptions&);
template ContourResult contour<double>(const Grid<double>&, const ContourOptions&);
template void contour<float>(const Grid<float>&, const ContourOptions&, ContourResult&);
template void contour<double>(const Grid<double>&, const ContourOptions&, ContourResult&);
template void contour<float>(const Grid<float>&, const ContourOptions&, ContourResult&, ContourScratch&);
template void contour<double>(const Grid<double>&, const ContourOptions&, ContourResult&, ContourScratch&);

}  // namespace distgrid
