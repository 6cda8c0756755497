#pragma once
// The brick-wise scheme both contour meshers run on (see contour.hpp): which bricks
// are meshed, in which order, from which node values, and how vertex indices pass
// between bricks.
//
// A "cell brick" C holds the 512 cells whose lowest corner lies in
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
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <vector>

#include "distgrid/contour.hpp"
#include "distgrid/detail/contour_cases.hpp"
#include "distgrid/detail/lanes.hpp"
#include "distgrid/grid.hpp"
#include "manifold.hpp"
#include "node_block.hpp"
#include "surface_nets.hpp"

namespace distgrid::detail::meshing {

// Which signs occur among some nodes: bit set.
inline constexpr std::uint8_t kHasInside = 1, kHasOutside = 2;

/// Signs among a brick's nodes, and among its faces x = 0, y = 0, z = 0.
struct SignSets {
  std::uint8_t all = 0;
  std::array<std::uint8_t, 3> low_face{};
};
inline constexpr SignSets kOutsideSigns{kHasOutside, {kHasOutside, kHasOutside, kHasOutside}};
inline constexpr SignSets kInsideSigns{kHasInside, {kHasInside, kHasInside, kHasInside}};

/// Inside flags of a brick's 64 node rows: bit x of byte y + 8 z is set when node
/// (x, y, z) is inside.
using RowBits = std::array<std::uint8_t, 64>;
inline constexpr RowBits kAllOutsideRows{};
inline constexpr RowBits kAllInsideRows = [] {
  RowBits rows{};
  for (auto& row : rows) row = 0xff;
  return rows;
}();

/// Bit x set when flags[x] (each 0 or 1) is 1: one multiply moves bit 8x of the
/// little-endian word to bit 56 + x, with no carries into the top byte.
inline std::uint8_t pack_flags(const std::uint8_t* flags) noexcept {
  static_assert(std::endian::native == std::endian::little, "pack_flags reads eight flags as a little-endian word");
  std::uint64_t word = 0;
  std::memcpy(&word, flags, sizeof word);
  return static_cast<std::uint8_t>((word * 0x0102040810204080ULL) >> 56);
}

/// Per lane, bit x set when local cell x (corners at block bits x + 1 and x + 2) of a
/// row of cells changes sign, from the inside bits of its four node rows.
inline Bytes8 mixed_cells(const Words8& r00, const Words8& r10, const Words8& r01, const Words8& r11) noexcept {
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

inline Words8 load_words(const std::uint16_t* words) noexcept {
  Words8 loaded;
  std::memcpy(&loaded, words, sizeof loaded);
  return loaded;
}

inline Words8 widen_bytes(const std::uint8_t* bytes) noexcept {
  Bytes8 loaded;
  std::memcpy(&loaded, bytes, sizeof loaded);
  return __builtin_convertvector(loaded, Words8);
}

/// Eight values of a brick's scalar, operated on lane by lane.
template <class S>
struct EightValues;
template <>
struct EightValues<float> {
  using type = Floats8;
};
template <>
struct EightValues<double> {
  using type = Doubles8;
};

/// Stored slot of a brick of the lookup box, or one of these.
inline constexpr std::int32_t kAbsentBrick = -1, kInsideBrick = -2;

/// A brick of the lookup box. The signs ride along with the slot so the planning
/// scan reads them at fixed offsets from one array.
struct LookupEntry {
  std::int32_t slot;
  SignSets signs;
};
inline constexpr LookupEntry kAbsentEntry{kAbsentBrick, kOutsideSigns};

template <class S>
class BrickMesher {
 public:
  /// `reuse`: a result whose arrays' capacity the output takes over (contents
  /// dropped); `scratch`: working arrays, likewise.
  BrickMesher(const Grid<S>& grid, const ContourOptions& options, ContourResult&& reuse, ContourScratch& scratch);

  ContourResult run();

 private:
  /// Inside bits (stored_rows_) and sign sets (stored_signs_) of stored brick `slot`.
  void find_signs(std::size_t slot);
  /// find_signs for the stored bricks of x plane x of lookup_, with their signs
  /// copied into their entries. Each brick's values are requested from memory while
  /// the brick before it is read.
  void find_plane_signs(std::int64_t x);
  void build_lookup();

  /// Index in lookup_ (and position_grid_) of brick b, which must lie in the lookup box.
  std::size_t lookup_index(const Coord& b) const {
    return static_cast<std::size_t>((b[0] - lookup_lo_[0]) + lookup_steps_[1] * (b[1] - lookup_lo_[1]) +
                                    lookup_steps_[2] * (b[2] - lookup_lo_[2]));
  }

  /// Meshes the cell brick at position `at` of cell_bricks_ (all before it are done).
  void mesh_cell_brick(std::size_t at);
  /// The meshers' part of mesh_cell_brick, after the gather (surface_nets.cpp,
  /// marching_cubes.cpp).
  void surface_nets_brick(std::size_t at);
  void marching_cubes_brick(std::size_t at);

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
  void source_at(std::size_t at, Source& source) const;

  /// The source of brick b from the grid's own index, for grids without lookup_.
  Source source(const Coord& b) const;

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
  void plan_plane(std::int64_t x);

  /// Those cell bricks over the whole grid, in descending order, for grids without
  /// lookup_: enumerated from the bricks below every stored brick and every inside
  /// brick that touches an absent one, a superset of them.
  void plan_cell_bricks();

  /// The sources of the first `count` (9 or 27) bricks around cell brick c, at offsets
  /// d % 3 - 1, (d / 3) % 3 - 1, d / 9 - 1 (the first 9 are the layer below on z).
  void sources_around(const Coord& c, int count, std::array<Source, 27>& sources) const;

  /// Fills sources_ for cell brick c, whose gather comes after that of cell brick
  /// `before` (null: none). When c is the next one down the column, the 18 sources
  /// both share move up one layer and only the 9 below are looked up.
  void load_sources(const Coord& c, const Coord* before);

  /// From sources_ (those of cell brick c): inside bits of block rows at local -1..10 (row_bits_), which
  /// own cells change sign (mixed_), and the node values (block_) of the rows those
  /// cells' vertices read; the other rows of block_ keep stale values and are never
  /// read. Local 9 and 10 serve the manifold mode's look at the neighbours of cells at 8.
  void gather(const Coord& c);

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
  std::ptrdiff_t search_position(const Coord& c, int dx, int dy, int dz) const;

  static constexpr std::size_t table_index(int x, int y, int z) {
    return static_cast<std::size_t>(x + kTable * (y + kTable * z));
  }

  static std::ptrdiff_t table_stride(int axis) { return axis == 0 ? 1 : (axis == 1 ? kTable : kTable * kTable); }

  /// The saved shell (channels x kShellSize) of the cell brick at position `at`, which
  /// lies in the current x plane or the one above.
  const std::uint32_t* shell_of(std::size_t at, std::size_t channels) const;

  /// Copies, for each channel, entries at local 8 on some axis from the shells of the
  /// bricks above into table (channel-major, 9^3 each).
  void fill_from_above(std::size_t at, std::size_t channels, std::vector<std::uint32_t>& table) const;

  /// Saves the entries at local 0 on some axis, as whole faces x = 0, y = 0, z = 0.
  void save_shell(std::size_t at, std::size_t channels, const std::vector<std::uint32_t>& table);

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

}  // namespace distgrid::detail::meshing

namespace distgrid {

struct ContourScratch::Arrays {
  std::vector<detail::meshing::RowBits> stored_rows;
  std::vector<detail::meshing::SignSets> stored_signs;
  std::vector<detail::meshing::LookupEntry> lookup;
  std::vector<detail::meshing::Coord> cell_bricks;
  std::vector<std::int32_t> position_grid;
  std::array<std::vector<std::uint32_t>, 2> plane_shells;
};

}  // namespace distgrid
