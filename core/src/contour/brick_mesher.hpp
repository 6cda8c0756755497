#pragma once
// The brick-wise scheme both contour meshers run on (see contour.hpp): which bricks
// are meshed, in which order, from which node values, how vertex indices pass
// between bricks, and how the work is shared between threads.
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
//
// Threads: the x planes of cell bricks are cut into slabs of consecutive planes, by
// the grid's extent alone (never by the thread count), and each slab is meshed by one
// thread into an output of its own. The quads (surface nets) and cells (marching
// cubes) of a slab's top plane that need vertices of the slab above, those at local
// x = 8, are kept aside and made once every slab is done. The output is the slabs'
// vertices and triangles in slab order, then the kept-aside triangles in slab order:
// the same bits for any thread count. One thread meshes the slabs in order straight
// into the result; with more, each slab's output is appended to the result as soon as
// every slab before it is.
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
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

/// Stored slot of a brick of the lookup box, or one of these.
inline constexpr std::int32_t kAbsentBrick = -1, kInsideBrick = -2;

/// A brick of the lookup box. The signs ride along with the slot so the planning
/// scan reads them at fixed offsets from one array.
struct LookupEntry {
  std::int32_t slot;
  SignSets signs;
};
inline constexpr LookupEntry kAbsentEntry{kAbsentBrick, kOutsideSigns};

/// A vertex that a kept-aside quad or cell (see the top) refers to: one of its own
/// slab's (its index in the slab's output), or one that the slab above computed:
/// entry `entry` (channel * 64 + slot) of the x = 0 face saved by the cell brick at
/// offset (1, dy, dz) from the kept item's brick, plus `piece`.
class VertexRef {
 public:
  VertexRef() noexcept = default;  // own vertex 0
  static VertexRef own(std::uint32_t index) noexcept { return VertexRef{index}; }
  static VertexRef above(int dy, int dz, std::uint32_t entry, std::uint32_t piece) noexcept {
    return VertexRef{kAbove | entry | static_cast<std::uint64_t>(dy) << 8 | static_cast<std::uint64_t>(dz) << 9 |
                     std::uint64_t{piece} << 10};
  }
  bool from_above() const noexcept { return (bits_ & kAbove) != 0; }
  std::uint32_t index() const noexcept { return static_cast<std::uint32_t>(bits_); }  // own
  std::size_t entry() const noexcept { return bits_ & 0xff; }
  int dy() const noexcept { return static_cast<int>((bits_ >> 8) & 1); }
  int dz() const noexcept { return static_cast<int>((bits_ >> 9) & 1); }
  std::uint32_t piece() const noexcept { return static_cast<std::uint32_t>(bits_ >> 10) & 3u; }

 private:
  static constexpr std::uint64_t kAbove = std::uint64_t{1} << 32;
  explicit VertexRef(std::uint64_t bits) noexcept : bits_(bits) {}
  std::uint64_t bits_ = 0;
};

/// A surface-nets quad of a slab's top plane (cell brick `brick`), made once the slab
/// above is done.
struct KeptQuad {
  Coord brick{};
  bool lower_end_inside = false;
  std::array<VertexRef, 4> around{};
};

/// A marching-cubes cell of a slab's top plane (cell brick `brick`): its triangles
/// are made once the slab above is done, from its crossing edges' vertices.
struct KeptCell {
  Coord brick{};
  unsigned pattern = 0;
  std::array<VertexRef, 12> edges{};  // of the crossing edges (others unused)
};

/// What meshing one slab leaves behind.
struct SlabOutput {
  std::vector<Coord> cell_bricks;  // in meshing order
  /// The vertices and triangles, with indices of this slab's own (unless the slab
  /// was meshed straight into the result, where they are the result's).
  MeshOut out;
  /// Added to the slab's own vertex indices to give the result's (set when appended).
  std::uint32_t index_base = 0;
  /// The x = 0 faces (channels x 64 entries each) of the cell bricks of the slab's
  /// bottom plane, from position bottom_first of cell_bricks on.
  std::vector<std::uint32_t> bottom_faces;
  std::size_t bottom_first = 0;
  std::vector<KeptQuad> quads;
  std::vector<KeptCell> cells;
};

template <class S>
class BrickMesher {
 public:
  /// `reuse`: a result whose arrays' capacity the output takes over (contents
  /// dropped); `scratch`: working arrays, likewise.
  BrickMesher(const Grid<S>& grid, const ContourOptions& options, ContourResult&& reuse, ContourScratch& scratch);

  ContourResult run();

 private:
  /// A mesher for one more thread: the same grid, options and shared arrays, with
  /// working arrays of its own (plane_shells: one of the scratch's per-thread pairs).
  BrickMesher(const BrickMesher& first, std::array<std::vector<std::uint32_t>, 2>& plane_shells);

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

  // --- slabs ----------------------------------------------------------------
  /// Cuts the x planes of cell bricks (top_x_ down to bottom_x_) into slabs.
  void plan_slabs();
  std::int64_t slab_top(std::size_t s) const { return top_x_ - static_cast<std::int64_t>(s) * slab_planes_; }
  std::int64_t slab_bottom(std::size_t s) const { return std::max(bottom_x_, slab_top(s) - slab_planes_ + 1); }
  /// With several threads, the planes whose signs two slabs read (a slab's top plane
  /// and the one above it, except for the first slab) are found before any slab
  /// starts; every other plane by the one slab that reads it.
  bool shared_sign_plane(std::int64_t x) const;
  /// Meshes slab s into slab.out (or, with `into_result`, into the result). `all_signs`:
  /// also find the signs of the planes shared_sign_plane names (one thread).
  void mesh_slab(std::size_t s, bool into_result, bool all_signs);
  /// Appends slab s's vertices and triangles to the result.
  void append_slab(SlabOutput& slab);
  /// The result's index of vertex `ref` of an item slab s kept aside from cell brick `brick`.
  std::uint32_t resolve(std::size_t s, const Coord& brick, const VertexRef& ref) const;
  /// Makes the kept-aside quads and cells of every slab, in slab order.
  void finish_kept();

  /// Meshes the cell brick at position `at` of the slab's cell_bricks (all before it are done).
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
    const typename Grid<S>::Code* values = nullptr;  // null: every node reads fill
    [[no_unique_address]] typename Grid<S>::BrickParameters brick{};  // how `values` decode
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
  /// descending (y, z) order, to the slab's cell_bricks and position_grid_ (lookup_ grids).
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

  /// Position in the slab's cell_bricks of the brick at c + offset, or -1 when it was
  /// skipped; by search, for grids without position_grid_.
  std::ptrdiff_t search_position(const Coord& c, int dx, int dy, int dz) const;

  static constexpr std::size_t table_index(int x, int y, int z) {
    return static_cast<std::size_t>(x + kTable * (y + kTable * z));
  }

  static std::ptrdiff_t table_stride(int axis) { return axis == 0 ? 1 : (axis == 1 ? kTable : kTable * kTable); }

  /// Surface nets: cell (s, t) around the edge from table position p along `axis`
  /// (see edge_quad_vertices).
  static std::array<int, 3> quad_cell(int axis, std::array<int, 3> p, int s, int t) {
    p[static_cast<std::size_t>((axis + 1) % 3)] -= 1 - s;
    p[static_cast<std::size_t>((axis + 2) % 3)] -= 1 - t;
    return p;
  }
  /// Manifold surface nets: the piece of cell q's surface that its edge `edge` belongs to.
  std::uint32_t piece_of_edge(const std::array<int, 3>& q, int edge) const;
  /// Keeps aside the quad of the edge from p along `axis` of cell brick c (at x = 8
  /// while defer_x8_), or the triangles of marching-cubes cell (x, y, z) (at x = 7).
  /// Out of line: rare, and kept out of the loops that inline the common case.
  [[gnu::noinline]] void keep_quad(const Coord& c, int axis, const std::array<int, 3>& p, bool lower_end_inside);
  [[gnu::noinline]] void keep_cell(const Coord& c, int x, int y, int z, unsigned pattern);
  /// The vertex (entry of channel `channel`) of table position (x, y, z), plus
  /// `piece`: from table_, or at x = 8 of a brick that keeps items aside (defer_x8_),
  /// from the face saved by the brick above.
  VertexRef vertex_ref(std::size_t channel, int x, int y, int z, std::uint32_t piece) const;

  /// The saved shell (channels x kShellSize) of the cell brick at position `at`, which
  /// lies in the current x plane or the one above.
  const std::uint32_t* shell_of(std::size_t at, std::size_t channels) const;

  /// Copies, for each channel, entries at local 8 on some axis from the shells of the
  /// bricks above into table (channel-major, 9^3 each). Leaves out those of the slab
  /// above (at x = 8) while defer_x8_.
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

  std::size_t channels() const { return options_.mesher == Mesher::surface_nets ? 1 : 3; }

  const Grid<S>& grid_;
  ContourOptions options_;
  // The arrays below that grow with the grid live in the caller's scratch (see
  // ContourScratch::Arrays) and are shared by every thread's mesher.
  std::vector<RowBits>& stored_rows_;  // per stored slot
  std::vector<SignSets>& stored_signs_;
  // Brick slots and signs over the bricks' extent, x fastest, when that box is small
  // enough; else empty and the grid's index is used.
  std::vector<LookupEntry>& lookup_;
  Coord lookup_lo_{}, lookup_size_{}, lookup_steps_{};
  std::array<std::ptrdiff_t, 8> lookup_above_{};  // lookup_ offset of the brick at corner offset d from a brick
  std::array<std::size_t, 27> lookup_around_{};    // lookup_ offset of source d (see sources_around) from source 0
  // Grids without lookup_: every cell brick to mesh, in descending order.
  std::vector<Coord>& planned_bricks_;
  // With lookup_: position in its slab's cell_bricks (or -1) of each brick of the lookup box.
  std::vector<std::int32_t>& position_grid_;
  std::vector<SlabOutput>& slabs_;
  // x planes of cell bricks from top_x_ down to bottom_x_, slab_planes_ to a slab.
  std::int64_t top_x_ = 0, bottom_x_ = 0, slab_planes_ = 1;
  std::size_t slab_count_ = 0;
  MeshOut* result_;  // the output of the call: out_storage_ of the first mesher
  ContourScratch::Arrays* arrays_;

  // This thread's working arrays and the slab it meshes.
  SlabOutput* slab_ = nullptr;
  MeshOut* out_ = nullptr;  // where the slab's vertices and triangles go
  // Bricks of this x plane keep aside what needs the slab above (its top plane, but
  // for the first slab).
  static constexpr std::int64_t kNoPlane = std::numeric_limits<std::int64_t>::max();
  std::int64_t kept_plane_ = kNoPlane;
  bool defer_x8_ = false;  // the brick being meshed lies in kept_plane_
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
  MeshOut out_storage_;  // the first mesher's: the result
};

}  // namespace distgrid::detail::meshing

namespace distgrid {

struct ContourScratch::Arrays {
  std::vector<detail::meshing::RowBits> stored_rows;
  std::vector<detail::meshing::SignSets> stored_signs;
  std::vector<detail::meshing::LookupEntry> lookup;
  std::vector<detail::meshing::Coord> planned_bricks;
  std::vector<std::int32_t> position_grid;
  std::vector<detail::meshing::SlabOutput> slabs;
  std::vector<std::array<std::vector<std::uint32_t>, 2>> plane_shells;  // per thread
};

}  // namespace distgrid
