#pragma once
// Grid<S>: a sparse lattice of signed distances in 8x8x8-node bricks.
//
// Node (i, j, k) sits at world (i*h, j*h, k*h). Values are clamped to
// +-band*h; an absent brick reads +band*h and a brick marked inside reads
// -band*h. A stored brick's values are held as the storage S encodes them
// (storage.hpp: float, double, Half, Q16, Q8); every read decodes them to double
// through Storage<S>, and all arithmetic on them is double.
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "distgrid/box.hpp"
#include "distgrid/brick_key.hpp"
#include "distgrid/detail/brick_allocator.hpp"
#include "distgrid/storage.hpp"

namespace distgrid {

/// Brick index range of the stored bricks (inclusive on both ends).
struct BrickExtent {
  std::array<std::int64_t, 3> lo{0, 0, 0};
  std::array<std::int64_t, 3> hi{0, 0, 0};
};

namespace detail {
/// Asks for the cache lines of `count` consecutive node codes from `codes` on, all
/// at once: bricks lie apart in memory, and the processor's own prefetcher would only
/// start on each after its first misses.
template <class Code>
void prefetch_values(const Code* codes, std::size_t count) noexcept {
  constexpr std::size_t kLine = 64;
  const char* bytes = reinterpret_cast<const char*>(codes);
  for (std::size_t offset = 0; offset < count * sizeof(Code); offset += kLine) __builtin_prefetch(bytes + offset);
}

/// Open-addressing map from brick key to slot. Slot kInsideSlot marks an inside brick.
class BrickIndex {
 public:
  static constexpr std::uint32_t kInsideSlot = 0xFFFFFFFEu;
  static constexpr std::uint32_t kNoSlot = 0xFFFFFFFFu;

  std::uint32_t find(std::int64_t key) const noexcept {
    if (size_ == 0) return kNoSlot;
    std::size_t at = hash(key);
    for (;;) {
      const Entry& e = entries_[at];
      if (e.key == key) return e.slot;
      if (e.key == kEmptyKey) return kNoSlot;
      at = (at + 1) & mask_;
    }
  }
  /// Inserts or overwrites. Returns false if the key was already present.
  bool insert(std::int64_t key, std::uint32_t slot);
  std::size_t size() const noexcept { return size_; }
  std::size_t memory_bytes() const noexcept { return entries_.capacity() * sizeof(Entry); }
  /// Starts loading the bucket where find(key) begins (a hint; no effect on results).
  void prefetch(std::int64_t key) const noexcept {
    if (size_ != 0) __builtin_prefetch(&entries_[hash(key)]);
  }
  void reserve(std::size_t count);

 private:
  struct Entry {
    std::int64_t key;
    std::uint32_t slot;
  };
  static constexpr std::int64_t kEmptyKey = -1;
  /// Bucket where the probe for key starts: the top bits of a Fibonacci product,
  /// the bits of it that depend on every bit of the key.
  std::size_t hash(std::int64_t key) const noexcept {
    return static_cast<std::size_t>((static_cast<std::uint64_t>(key) * 0x9E3779B97F4A7C15ull) >> shift_);
  }
  void grow();
  std::vector<Entry> entries_;
  std::size_t mask_ = 0;
  unsigned shift_ = 63;  // 64 - log2(entries_.size())
  std::size_t size_ = 0;
};
}  // namespace detail

template <class S>
class Grid {
  static_assert(BrickStorage<S>, "S must be a brick storage (storage.hpp)");

 public:
  using Scalar = S;  ///< the storage type
  using Model = StorageOf<S>;
  using Code = typename Model::Code;             ///< what one node stores
  using BrickParameters = typename Model::Brick;  ///< what one brick stores besides its codes
  static constexpr bool kDirect = Model::kDirect;  ///< codes are the values (float, double, Half)

  /// Throws Error(badarg) unless h is finite and > 0 and band is finite and >= 1, and
  /// (Half) band*h lies within binary16's range.
  Grid(double h, double band);

  double h() const noexcept { return h_; }
  double band() const noexcept { return band_; }
  double band_width() const noexcept { return band_width_; }

  // --- building -----------------------------------------------------------
  /// Reserves room for this many stored and inside bricks (one block of codes).
  void reserve(std::size_t stored_bricks, std::size_t inside_bricks = 0);
  /// Adds a stored brick holding these 512 values, encoded, and returns its slot.
  /// Throws Error(badarg) if the key is invalid or already present, or a value is not
  /// a number within +-band*h.
  std::size_t add_brick(std::int64_t key, std::span<const double, kBrickNodes> values);
  /// Adds a stored brick as already encoded (as brick_parameters and brick_codes read
  /// it back): `codes` holds 512 codes when Model::stores_codes(brick), none otherwise.
  /// Throws Error(badarg) if the key is invalid or present, or `codes` has another size.
  std::size_t add_encoded_brick(std::int64_t key, const BrickParameters& brick, std::span<const Code> codes);
  /// Adds a stored brick with room for its codes, and returns its slot; its values are
  /// then given by set_brick. Throws Error(badarg) if the key is invalid or present.
  std::size_t add_brick_room(std::int64_t key);
  /// Encodes 512 values (finite, within +-band*h) into the brick at `slot`, which
  /// add_brick_room added with pack() not called since. Bricks of distinct slots may
  /// be set from different threads at once.
  void set_brick(std::size_t slot, std::span<const double, kBrickNodes> values) noexcept;
  /// Gives back the room of the bricks that store no codes (a linear brick whose values
  /// are all equal). Reads give the same values before and after.
  void pack();
  /// Direct storages: adds a stored brick filled with +band*h and returns its 512 codes
  /// (the values), for the caller to write. Throws as add_brick_room.
  /// (The constrained members are defined here, not in grid.cpp: clang 14 cannot match
  /// a constrained member's out-of-line definition to its declaration, and it
  /// instantiates their bodies in `template class Grid<Q8>` too, so each body must
  /// compile for every storage.)
  Code* add_brick(std::int64_t key)
    requires kDirect
  {
    if constexpr (kDirect) {  // only encode_node needs it: the direct models alone have one
      Code* values = add_brick_for_overwrite(key);
      std::fill(values, values + kBrickNodes, Model::encode_node(band_width_));
      return values;
    } else {
      __builtin_unreachable();
    }
  }
  /// As add_brick(key), but the 512 values are left for the caller to write, every one.
  Code* add_brick_for_overwrite(std::int64_t key)
    requires kDirect
  {
    const std::size_t slot = add_brick_room(key);
    return codes_.data() + slot * kBrickNodes;
  }
  /// Marks a brick wholly inside. Throws Error(badarg) if invalid or present.
  void add_inside(std::int64_t key);

  // --- reading ------------------------------------------------------------
  /// Value at node (i, j, k) as a double (the stored code decoded, exactly).
  double node(std::int64_t i, std::int64_t j, std::int64_t k) const noexcept;
  /// Trilinear value at a world point: along x, then y, then z, each a + (b - a)*t.
  double sample(double x, double y, double z) const noexcept;
  /// out[n] = sample(points[n]) bit for bit, for many points in any order, on
  /// `threads` threads (0: all). Blocks of points are bucketed by brick and taken
  /// bucket by bucket, loading the next points' index buckets and node rows ahead,
  /// so scattered points share cached bricks and their memory latency overlaps.
  /// Precondition: equal sizes. Throws only Error(interrupted) (interrupt.hpp).
  void sample_many(std::span<const std::array<double, 3>> points, std::span<double> out, unsigned threads = 0) const;
  /// Central difference over one voxel: (sample(p + h/2) - sample(p - h/2)) / h per axis.
  std::array<double, 3> gradient(double x, double y, double z) const noexcept;
  /// out[n] = gradient(points[n]) bit for bit; otherwise as sample_many.
  void gradient_many(std::span<const std::array<double, 3>> points, std::span<std::array<double, 3>> out,
                     unsigned threads = 0) const;
  /// Enclosed volume h^3 * sum clamp(1/2 - d/h, 0, 1); see volume.cpp for the summation order.
  double volume() const;

  std::optional<BrickExtent> extent() const;
  /// World box of the stored nodes: lo = b*8*h, hi = (b*8 + 7)*h.
  std::optional<Box> world_box() const;

  std::size_t stored_brick_count() const noexcept { return keys_.size(); }
  std::size_t inside_brick_count() const noexcept { return inside_keys_.size(); }
  /// Bytes held by node codes, brick parameters, the key lists and the index.
  std::size_t memory_bytes() const noexcept;
  /// Bytes the stored bricks' codes and parameters take (Model::brick_bytes summed).
  std::size_t brick_bytes() const noexcept;
  /// The bound on |stored - exact| of every stored node whose exact value lies within
  /// +-band*h: Model::node_bound at band*h for the direct storages (the largest there
  /// is), the largest step / 2 of any brick for the linear ones.
  double storage_bound() const noexcept;

  /// Keys of stored bricks in insertion order; brick(n) belongs to stored_keys()[n].
  const std::vector<std::int64_t>& stored_keys() const noexcept { return keys_; }
  const std::vector<std::int64_t>& inside_keys() const noexcept { return inside_keys_; }
  /// Stored brick number `slot` as read: its codes and decoding parameters.
  BrickView<S> brick(std::size_t slot) const noexcept { return {brick_codes(slot), brick_parameters(slot)}; }
  /// The 512 codes of stored brick `slot` (a linear brick that stores none reads a
  /// shared block of zeros).
  const Code* brick_codes(std::size_t slot) const noexcept {
    if constexpr (kDirect) {
      return codes_.data() + slot * kBrickNodes;
    } else {
      const LinearEntry& e = linear_[slot];
      return e.brick.step == 0 ? detail::kZeroCodes<Code> : codes_.data() + std::size_t{e.block} * kBrickNodes;
    }
  }
  BrickParameters brick_parameters(std::size_t slot) const noexcept {
    if constexpr (kDirect) {
      static_cast<void>(slot);
      return {};
    } else {
      return linear_[slot].brick;
    }
  }
  /// Slot of the stored brick with this key; none when absent or inside.
  std::optional<std::size_t> find_slot(std::int64_t key) const noexcept {
    const std::uint32_t slot = index_.find(key);
    if (slot >= detail::BrickIndex::kInsideSlot) return std::nullopt;
    return slot;
  }
  /// Direct storages: the 512 values of stored brick `slot` (its codes).
  const Code* brick_values(std::size_t slot) const noexcept
    requires kDirect
  {
    return brick_codes(slot);
  }
  /// Direct storages: the values of the brick with this key; nullptr when absent or inside.
  const Code* find_brick(std::int64_t key) const noexcept
    requires kDirect
  {
    const std::uint32_t slot = index_.find(key);
    if (slot >= detail::BrickIndex::kInsideSlot) return nullptr;
    return brick_codes(slot);  // not brick_values: clang 14 would check its constraint for Q16 and Q8
  }
  bool is_inside(std::int64_t key) const noexcept {
    return index_.find(key) == detail::BrickIndex::kInsideSlot;
  }

 private:
  template <class>
  friend class GridAccessor;
  /// A linear brick: its parameters and the block of codes_ holding its codes (when
  /// its step is not 0).
  struct LinearEntry {
    LinearBrick brick;
    std::uint32_t block;
  };
  static constexpr std::uint32_t kNoBlock = 0xFFFFFFFFu;
  /// Registers a stored brick (key checks, index, keys) and returns its slot.
  std::size_t add_key(std::int64_t key);
  /// Appends room for one brick's codes and returns its block number.
  std::uint32_t add_block();
  /// Calls visit(accessor, n) for every n < count, bucketed by brick, on `threads` threads.
  template <class Visit>
  void visit_by_brick(std::span<const std::array<double, 3>> points, std::size_t count, unsigned threads,
                      Visit&& visit) const;
  double h_, band_, band_width_;
  std::vector<Code, detail::BrickAllocator<Code>> codes_;
  std::vector<LinearEntry> linear_;  // per slot, linear storages only
  std::vector<std::int64_t> keys_;
  std::vector<std::int64_t> inside_keys_;
  detail::BrickIndex index_;
};

/// Cached reader for many queries in a row (not thread-safe; one per thread).
/// Remembers the 3x3x3 bricks around the last brick it read from, so queries that
/// move through the grid in brick order skip the hash lookups, also where a
/// sample's corners straddle brick faces. Same results as Grid's own methods.
template <class S>
class GridAccessor {
 public:
  explicit GridAccessor(const Grid<S>& grid) noexcept : grid_(&grid) {}
  double node(std::int64_t i, std::int64_t j, std::int64_t k) noexcept;
  double sample(double x, double y, double z) noexcept;
  /// Bit for bit the three central differences of Grid::gradient; the six samples
  /// share their divisions, floors and brick lookups.
  std::array<double, 3> gradient(double x, double y, double z) noexcept;

 private:
  /// One brick of the 3x3x3 around the base, looked up on first use after the base moved.
  using Code = typename Grid<S>::Code;
  struct Cell {
    const Code* values = nullptr;  // nullptr: absent or inside, read `fill`
    [[no_unique_address]] typename Grid<S>::BrickParameters brick{};  // how `values` decode
    double fill = 0;
    std::uint32_t generation = 0;  // known while equal to generation_
    BrickView<S> view() const noexcept { return {values, brick}; }
  };
  // Cell index of the brick base + (dx, dy, dz), each -1, 0 or 1.
  static constexpr int cell_index(std::int64_t dx, std::int64_t dy, std::int64_t dz) noexcept {
    return static_cast<int>(13 + dx + 3 * dy + 9 * dz);
  }
  /// Makes (bx, by, bz) the base brick; the base brick itself is then always known.
  void move_to(std::int64_t bx, std::int64_t by, std::int64_t bz) noexcept;
  const Cell& cell(int index) noexcept;
  const Cell& look_up(int index) noexcept;
  /// Trilinear value with lower corner node (i, j, k) and fractions (u, v, w).
  /// Precondition: node (i, j, k) lies in the base brick.
  double sample_in_base(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v, double w) noexcept;
  /// As sample_in_base, where nodes i .. i + 1 (likewise j, k) lie within the base brick +-1.
  double sample_near_base(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v, double w) noexcept;
  double sample_after_move(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v, double w) noexcept;
  double sample_across_faces(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v, double w) noexcept;
  /// As sample_near_base, looking up whatever bricks the corners need.
  double sample_any_corners(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v, double w) noexcept;
  std::array<double, 3> gradient_by_samples(double x, double y, double z) noexcept;

  // No brick has this coordinate, so the first query always moves the base.
  static constexpr std::int64_t kNoBrick = kMinBrickCoord - 2;

  const Grid<S>* grid_;
  std::array<std::int64_t, 3> base_{kNoBrick, kNoBrick, kNoBrick};
  std::uint32_t queries_at_base_ = 0;  // samples served since the base last moved
  std::uint32_t generation_ = 1;       // moves of the base, so far
  std::array<Cell, 27> cells_{};       // index cell_index(dx, dy, dz)
};

extern template class Grid<float>;
extern template class Grid<double>;
extern template class Grid<Half>;
extern template class Grid<Q16>;
extern template class Grid<Q8>;
extern template class GridAccessor<float>;
extern template class GridAccessor<double>;
extern template class GridAccessor<Half>;
extern template class GridAccessor<Q16>;
extern template class GridAccessor<Q8>;

}  // namespace distgrid
