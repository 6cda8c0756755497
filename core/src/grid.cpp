#include "distgrid/grid.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <string>

#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"

namespace distgrid {

namespace detail {

void BrickIndex::reserve(std::size_t count) {
  std::size_t want = 16;
  while (want * 3 < count * 4) want *= 2;  // load factor at most 3/4
  if (want <= entries_.size()) return;
  std::vector<Entry> old = std::move(entries_);
  entries_.assign(want, Entry{kEmptyKey, kNoSlot});
  mask_ = want - 1;
  shift_ = static_cast<unsigned>(64 - std::countr_zero(want));
  size_ = 0;
  for (const Entry& e : old)
    if (e.key != kEmptyKey) insert(e.key, e.slot);
}

void BrickIndex::grow() { reserve(std::max<std::size_t>(16, size_ + 1)); }

bool BrickIndex::insert(std::int64_t key, std::uint32_t slot) {
  if ((size_ + 1) * 4 > entries_.size() * 3) grow();
  std::size_t at = hash(key);
  for (;;) {
    Entry& e = entries_[at];
    if (e.key == key) {
      e.slot = slot;
      return false;
    }
    if (e.key == kEmptyKey) {
      e = Entry{key, slot};
      ++size_;
      return true;
    }
    at = (at + 1) & mask_;
  }
}

}  // namespace detail

namespace {

std::string describe_key(std::int64_t key) {
  if (!brick_key_valid(key)) return "key " + std::to_string(key) + " (not a valid brick key)";
  const BrickCoord b = brick_of(key);
  return "brick (" + std::to_string(b.bx) + ", " + std::to_string(b.by) + ", " +
         std::to_string(b.bz) + ")";
}

}  // namespace

template <class S>
Grid<S>::Grid(double h, double band) : h_(h), band_(band), band_width_(band * h) {
  if (!std::isfinite(h) || !(h > 0))
    throw Error(ErrorCode::badarg, "voxel size h = " + std::to_string(h) + " must be finite and > 0");
  if (!std::isfinite(band) || !(band >= 1))
    throw Error(ErrorCode::badarg, "band = " + std::to_string(band) + " must be finite and >= 1");
  if (!std::isfinite(band_width_) || !std::isfinite(1.0 / h))
    throw Error(ErrorCode::badarg, "band * h and 1 / h must be finite (h = " + std::to_string(h) + ")");
  if constexpr (std::is_same_v<S, Half>) {
    if (!(Model::decode(Model::encode_node(band_width_), {}) <= Model::kLargest))
      throw Error(ErrorCode::badarg, "band * h = " + std::to_string(band_width_) +
                                         " is beyond half storage's range (binary16 holds at most 65504)");
  }
}

template <class S>
void Grid<S>::reserve(std::size_t stored_bricks, std::size_t inside_bricks) {
  codes_.reserve(stored_bricks * kBrickNodes);
  if constexpr (!kDirect) linear_.reserve(stored_bricks);
  keys_.reserve(stored_bricks);
  inside_keys_.reserve(inside_bricks);
  index_.reserve(stored_bricks + inside_bricks);
}

template <class S>
std::size_t Grid<S>::add_key(std::int64_t key) {
  if (!brick_key_valid(key)) throw Error(ErrorCode::badarg, describe_key(key));
  if (index_.find(key) != detail::BrickIndex::kNoSlot)
    throw Error(ErrorCode::badarg, describe_key(key) + " is already in the grid");
  const std::size_t slot = keys_.size();
  index_.insert(key, static_cast<std::uint32_t>(slot));
  keys_.push_back(key);
  return slot;
}

template <class S>
std::uint32_t Grid<S>::add_block() {
  const std::size_t block = codes_.size() / kBrickNodes;
  codes_.resize(codes_.size() + kBrickNodes);
  return static_cast<std::uint32_t>(block);
}

template <class S>
std::size_t Grid<S>::add_brick_room(std::int64_t key) {
  const std::size_t slot = add_key(key);
  const std::uint32_t block = add_block();
  if constexpr (!kDirect) linear_.push_back({LinearBrick{}, block});
  return slot;
}

template <class S>
void Grid<S>::set_brick(std::size_t slot, std::span<const double, kBrickNodes> values) noexcept {
  if constexpr (kDirect) {
    Model::encode(values, codes_.data() + slot * kBrickNodes);
  } else {
    LinearEntry& e = linear_[slot];
    e.brick = Model::encode(values, codes_.data() + std::size_t{e.block} * kBrickNodes);
  }
}

template <class S>
void Grid<S>::pack() {
  if constexpr (!kDirect) {
    std::uint32_t kept = 0;
    for (LinearEntry& e : linear_) {
      if (e.brick.step == 0) {
        e.block = kNoBlock;
        continue;
      }
      if (e.block != kept)
        std::copy_n(codes_.data() + std::size_t{e.block} * kBrickNodes, kBrickNodes,
                    codes_.data() + std::size_t{kept} * kBrickNodes);
      e.block = kept++;
    }
    codes_.resize(std::size_t{kept} * kBrickNodes);
    codes_.shrink_to_fit();
  }
}

template <class S>
std::size_t Grid<S>::add_brick(std::int64_t key, std::span<const double, kBrickNodes> values) {
  for (std::size_t n = 0; n < kBrickNodes; ++n)
    if (!(std::fabs(values[n]) <= band_width_))
      throw Error(ErrorCode::badarg, "value " + std::to_string(values[n]) + " of node " + std::to_string(n) + " of " +
                                         describe_key(key) + " is not a number within +-band*h");
  if constexpr (kDirect) {
    const std::size_t slot = add_brick_room(key);
    set_brick(slot, values);
    return slot;
  } else {
    std::array<Code, kBrickNodes> codes;  // written by encode when the brick stores codes
    const LinearBrick brick = Model::encode(values, codes.data());
    return add_encoded_brick(key, brick, Model::stores_codes(brick) ? std::span<const Code>(codes) : std::span<const Code>());
  }
}

template <class S>
std::size_t Grid<S>::add_encoded_brick(std::int64_t key, const BrickParameters& brick, std::span<const Code> codes) {
  const std::size_t want = Model::stores_codes(brick) ? kBrickNodes : 0;
  if (codes.size() != want)
    throw Error(ErrorCode::badarg, describe_key(key) + ": " + std::to_string(codes.size()) + " codes given, " +
                                       std::to_string(want) + " expected");
  const std::size_t slot = add_key(key);
  std::uint32_t block = kNoBlock;
  if (want != 0) {
    block = add_block();
    std::copy(codes.begin(), codes.end(), codes_.data() + std::size_t{block} * kBrickNodes);
  }
  if constexpr (!kDirect) linear_.push_back({brick, block});
  return slot;
}

template <class S>
void Grid<S>::add_inside(std::int64_t key) {
  if (!brick_key_valid(key)) throw Error(ErrorCode::badarg, describe_key(key));
  if (index_.find(key) != detail::BrickIndex::kNoSlot)
    throw Error(ErrorCode::badarg, describe_key(key) + " is already in the grid");
  index_.insert(key, detail::BrickIndex::kInsideSlot);
  inside_keys_.push_back(key);
}

template <class S>
double Grid<S>::node(std::int64_t i, std::int64_t j, std::int64_t k) const noexcept {
  GridAccessor<S> accessor(*this);
  return accessor.node(i, j, k);
}

template <class S>
double Grid<S>::sample(double x, double y, double z) const noexcept {
  GridAccessor<S> accessor(*this);
  return accessor.sample(x, y, z);
}

namespace {

// How far the batch calls look ahead: index buckets first, node rows later.
constexpr std::size_t kBucketLookahead = 32;
constexpr std::size_t kRowLookahead = 16;
// Points a thread buckets at a time (scattered points over a part's few thousand
// bricks then share a brick with several others).
constexpr std::size_t kBatchBlock = 131072;
// A point's bucket: its base node's brick, 10 bits per axis (x, y, z from the top),
// so a block is taken brick by brick in key order; kFarBucket for points
// with no base node (not finite or far outside the key range).
constexpr std::uint32_t kFarBucket = 0xFFFFFFFFu;
constexpr unsigned kRadixBits = 11;  // three passes cover 32 bits

// Node index (floor of p / h) on each axis, when p is finite and near enough to
// the key range to matter; false otherwise.
bool base_node(const std::array<double, 3>& p, double h, std::array<std::int64_t, 3>& node) noexcept {
  for (std::size_t a = 0; a < 3; ++a) {
    const double f = p[a] / h;
    if (!(std::fabs(f) < 4.0e15)) return false;
    node[a] = static_cast<std::int64_t>(std::floor(f));
    if (!brick_coord_in_range(brick_of_node(node[a]))) return false;
  }
  return true;
}

std::uint32_t bucket_of(const std::array<double, 3>& p, double h) noexcept {
  std::array<std::int64_t, 3> node{};
  if (!base_node(p, h, node)) return kFarBucket;
  // Offset by 512, so bricks -512 .. 511 keep their key order.
  const auto bits = [](std::int64_t n) { return static_cast<std::uint32_t>(brick_of_node(n) + 512) & 0x3FFu; };
  return (bits(node[0]) << 20) | (bits(node[1]) << 10) | bits(node[2]);
}

// A thread's working arrays for bucketing one block: (bucket, point) pairs, sorted.
struct BatchScratch {
  std::vector<std::uint64_t> pairs, spare;
};

// Sorts (bucket << 32 | point) pairs by bucket, keeping the points' order within a
// bucket (least significant digit first, 11 bits a pass).
void sort_by_bucket(BatchScratch& scratch) {
  std::vector<std::uint64_t>& a = scratch.pairs;
  std::vector<std::uint64_t>& b = scratch.spare;
  b.resize(a.size());
  constexpr std::size_t kDigits = std::size_t{1} << kRadixBits;
  for (unsigned shift = 32; shift < 64; shift += kRadixBits) {
    std::array<std::size_t, kDigits + 1> start{};
    for (std::uint64_t pair : a) ++start[((pair >> shift) & (kDigits - 1)) + 1];
    for (std::size_t d = 0; d < kDigits; ++d) start[d + 1] += start[d];
    for (std::uint64_t pair : a) b[start[(pair >> shift) & (kDigits - 1)]++] = pair;
    a.swap(b);
  }
}

}  // namespace

template <class S>
template <class Visit>
void Grid<S>::visit_by_brick(std::span<const std::array<double, 3>> points, std::size_t count, unsigned threads,
                             Visit&& visit) const {
  // Starts loading the index bucket and node rows of points[n] (by brick, ahead).
  const auto prefetch = [&](std::size_t n, bool rows) {
    std::array<std::int64_t, 3> node{};
    if (!base_node(points[n], h_, node)) return;
    const std::int64_t key = brick_key(brick_of_node(node[0]), brick_of_node(node[1]), brick_of_node(node[2]));
    if (!rows) {
      index_.prefetch(key);
      return;
    }
    const std::uint32_t slot = index_.find(key);
    if (slot < detail::BrickIndex::kInsideSlot) {
      const Code* row = brick_codes(slot) + (node[0] & 7) + 8 * (node[1] & 7) + 64 * (node[2] & 7);
      __builtin_prefetch(row);
      __builtin_prefetch(row + 8);
      __builtin_prefetch(row + 64);
      __builtin_prefetch(row + 72);
    }
  };
  const auto make_state = [](unsigned) { return BatchScratch{}; };
  detail::parallel_chunks_with_state(count, threads, kBatchBlock, make_state,
      [&](BatchScratch& scratch, std::size_t begin, std::size_t end) {
        GridAccessor<S> accessor(*this);
        const std::size_t size = end - begin;
        scratch.pairs.resize(size);
        bool in_order = true;  // input sorted by brick already: no sort needed
        for (std::size_t i = 0; i < size; ++i) {
          scratch.pairs[i] = (std::uint64_t{bucket_of(points[begin + i], h_)} << 32) | i;
          in_order = in_order && (i == 0 || scratch.pairs[i] >= scratch.pairs[i - 1]);
        }
        if (!in_order) sort_by_bucket(scratch);
        const auto point_at = [&](std::size_t i) { return begin + static_cast<std::uint32_t>(scratch.pairs[i]); };
        for (std::size_t i = 0; i < size; ++i) {
          if (i + kBucketLookahead < size) prefetch(point_at(i + kBucketLookahead), false);
          if (i + kRowLookahead < size) prefetch(point_at(i + kRowLookahead), true);
          visit(accessor, point_at(i));
        }
      }, [](std::size_t) {}, [] {});
}

template <class S>
void Grid<S>::sample_many(std::span<const std::array<double, 3>> points, std::span<double> out, unsigned threads) const {
  visit_by_brick(points, std::min(points.size(), out.size()), threads, [&](GridAccessor<S>& accessor, std::size_t n) {
    out[n] = accessor.sample(points[n][0], points[n][1], points[n][2]);
  });
}

template <class S>
std::array<double, 3> Grid<S>::gradient(double x, double y, double z) const noexcept {
  GridAccessor<S> accessor(*this);
  return accessor.gradient(x, y, z);
}

template <class S>
void Grid<S>::gradient_many(std::span<const std::array<double, 3>> points, std::span<std::array<double, 3>> out,
                            unsigned threads) const {
  visit_by_brick(points, std::min(points.size(), out.size()), threads, [&](GridAccessor<S>& accessor, std::size_t n) {
    out[n] = accessor.gradient(points[n][0], points[n][1], points[n][2]);
  });
}

template <class S>
std::optional<BrickExtent> Grid<S>::extent() const {
  if (keys_.empty() && inside_keys_.empty()) return std::nullopt;
  BrickExtent e;
  bool first = true;
  auto widen = [&](std::int64_t key) {
    const BrickCoord b = brick_of(key);
    const std::array<std::int64_t, 3> c{b.bx, b.by, b.bz};
    for (int a = 0; a < 3; ++a) {
      const auto ua = static_cast<std::size_t>(a);
      e.lo[ua] = first ? c[ua] : std::min(e.lo[ua], c[ua]);
      e.hi[ua] = first ? c[ua] : std::max(e.hi[ua], c[ua]);
    }
    first = false;
  };
  for (std::int64_t key : keys_) widen(key);
  for (std::int64_t key : inside_keys_) widen(key);
  return e;
}

template <class S>
std::optional<Box> Grid<S>::world_box() const {
  const std::optional<BrickExtent> e = extent();
  if (!e) return std::nullopt;
  Box box;
  for (std::size_t a = 0; a < 3; ++a) {
    box.lo[a] = static_cast<double>(e->lo[a] * 8) * h_;
    box.hi[a] = static_cast<double>(e->hi[a] * 8 + 7) * h_;
  }
  return box;
}

template <class S>
std::size_t Grid<S>::memory_bytes() const noexcept {
  return codes_.capacity() * sizeof(Code) + linear_.capacity() * sizeof(LinearEntry) +
         (keys_.capacity() + inside_keys_.capacity()) * sizeof(std::int64_t) +
         index_.memory_bytes();
}

template <class S>
std::size_t Grid<S>::brick_bytes() const noexcept {
  if constexpr (kDirect) {
    return keys_.size() * Model::brick_bytes({});
  } else {
    std::size_t bytes = 0;
    for (const LinearEntry& e : linear_) bytes += Model::brick_bytes(e.brick);
    return bytes;
  }
}

template <class S>
double Grid<S>::storage_bound() const noexcept {
  if constexpr (kDirect) {
    return Model::node_bound({}, Model::decode(Model::encode_node(band_width_), {}));
  } else {
    double bound = 0;
    for (const LinearEntry& e : linear_) bound = std::max(bound, Model::node_bound(e.brick, 0));
    return bound;
  }
}

// ---------------------------------------------------------------------------

namespace {

inline double lerp(double a, double b, double t) noexcept { return a + (b - a) * t; }

// Exact floor for |v| < 2^62, without a library call on any x86-64 level.
inline double floor_exact(double v) noexcept {
  const auto t = static_cast<double>(static_cast<std::int64_t>(v));  // truncates towards zero
  return t > v ? t - 1.0 : t;
}

// Node indices beyond this magnitude are outside every brick; clamping keeps the
// conversion from double defined for any finite or infinite input.
constexpr double kNodeIndexLimit = 4.0e15;

}  // namespace

template <class S>
void GridAccessor<S>::move_to(std::int64_t bx, std::int64_t by, std::int64_t bz) noexcept {
  if (base_[0] == bx && base_[1] == by && base_[2] == bz) return;
  base_ = {bx, by, bz};
  if (++generation_ == 0) {  // wrapped: forget every cell explicitly once
    for (Cell& c : cells_) c.generation = 0;
    generation_ = 1;
  }
  // The base brick's coordinates are in the key range (every caller checks).
  Cell& centre = cells_[static_cast<std::size_t>(cell_index(0, 0, 0))];
  centre.generation = generation_;
  centre.values = nullptr;
  centre.fill = grid_->band_width_;
  const std::uint32_t slot = grid_->index_.find(brick_key(bx, by, bz));
  if (slot == detail::BrickIndex::kInsideSlot) {
    centre.fill = -grid_->band_width_;
  } else if (slot != detail::BrickIndex::kNoSlot) {
    centre.values = grid_->brick_codes(slot);
    centre.brick = grid_->brick_parameters(slot);
  }
  const bool streaming = queries_at_base_ > 1;
  queries_at_base_ = 0;
  if (!streaming) return;
  // Queries that move in brick order (the last brick served several) read much
  // of the new brick next, and the faces of its +x, +y, +z neighbours: fetch
  // those cache lines all at once rather than one miss after another.
  if (const Code* values = centre.values) detail::prefetch_values(values, kBrickNodes);
  if (const Code* values = look_up(cell_index(1, 0, 0)).values)  // the i = 0 column of every row
    for (int row = 0; row < 64; ++row) __builtin_prefetch(values + 8 * row);
  if (const Code* values = look_up(cell_index(0, 1, 0)).values)  // the j = 0 row of every plane
    for (int plane = 0; plane < 8; ++plane) __builtin_prefetch(values + 64 * plane);
  if (const Code* values = look_up(cell_index(0, 0, 1)).values) detail::prefetch_values(values, 64);  // the k = 0 plane
}

template <class S>
inline const typename GridAccessor<S>::Cell& GridAccessor<S>::cell(int index) noexcept {
  const Cell& c = cells_[static_cast<std::size_t>(index)];
  if (c.generation == generation_) return c;
  return look_up(index);
}

template <class S>
const typename GridAccessor<S>::Cell& GridAccessor<S>::look_up(int index) noexcept {
  Cell& c = cells_[static_cast<std::size_t>(index)];
  c.generation = generation_;
  c.values = nullptr;
  c.fill = grid_->band_width_;
  // Brick offsets of each cell index, without dividing by 3 and 9.
  static constexpr auto kStep = [] {
    std::array<std::array<std::int8_t, 3>, 27> step{};
    for (int n = 0; n < 27; ++n)
      step[static_cast<std::size_t>(n)] = {static_cast<std::int8_t>(n % 3 - 1), static_cast<std::int8_t>(n / 3 % 3 - 1),
                                           static_cast<std::int8_t>(n / 9 - 1)};
    return step;
  }();
  const auto& step = kStep[static_cast<std::size_t>(index)];
  const std::int64_t bx = base_[0] + step[0], by = base_[1] + step[1], bz = base_[2] + step[2];
  if (!brick_coord_in_range(bx) || !brick_coord_in_range(by) || !brick_coord_in_range(bz)) return c;
  const std::uint32_t slot = grid_->index_.find(brick_key(bx, by, bz));
  if (slot == detail::BrickIndex::kInsideSlot) {
    c.fill = -grid_->band_width_;
  } else if (slot != detail::BrickIndex::kNoSlot) {
    c.values = grid_->brick_codes(slot);
    c.brick = grid_->brick_parameters(slot);
  }
  return c;
}

template <class S>
double GridAccessor<S>::node(std::int64_t i, std::int64_t j, std::int64_t k) noexcept {
  if (!brick_coord_in_range(brick_of_node(i)) || !brick_coord_in_range(brick_of_node(j)) || !brick_coord_in_range(brick_of_node(k)))
    return grid_->band_width_;
  move_to(brick_of_node(i), brick_of_node(j), brick_of_node(k));
  const Cell& c = cells_[static_cast<std::size_t>(cell_index(0, 0, 0))];
  return c.values ? c.view()[(i & 7) + 8 * (j & 7) + 64 * (k & 7)] : c.fill;
}

namespace {

// The trilinear interpolation every sample uses: along x, then y, then z.
inline double trilinear(double c000, double c100, double c010, double c110, double c001, double c101, double c011,
                        double c111, double u, double v, double w) noexcept {
  const double a0 = lerp(c000, c100, u), a1 = lerp(c010, c110, u);
  const double b0 = lerp(c001, c101, u), b1 = lerp(c011, c111, u);
  const double d0 = lerp(a0, a1, v), d1 = lerp(b0, b1, v);
  return lerp(d0, d1, w);
}

// Trilinear value from the eight nodes at p, p + 1, p + 8, ... p + 73 of one brick,
// each decoded with the brick's parameters (loaded once, with the brick).
template <class S>
inline double trilinear_in_brick(const BrickView<S>& p, double u, double v, double w) noexcept {
  return trilinear(p[0], p[1], p[8], p[9], p[64], p[65], p[72], p[73], u, v, w);
}

// Node index and fraction of one coordinate already divided by h: the floor, and
// the coordinate minus that floor. Precondition: |f| < kNodeIndexLimit.
struct AxisPosition {
  std::int64_t node;
  double fraction;
};

inline AxisPosition axis_position(double f) noexcept {
  const double floor_f = floor_exact(f);
  return {static_cast<std::int64_t>(floor_f), f - floor_f};
}

}  // namespace

template <class S>
double GridAccessor<S>::sample(double x, double y, double z) noexcept {
  const double h = grid_->h_;
  const double fx = x / h, fy = y / h, fz = z / h;
  if (!(std::fabs(fx) < kNodeIndexLimit && std::fabs(fy) < kNodeIndexLimit &&
        std::fabs(fz) < kNodeIndexLimit)) {
    // Far outside every brick (or NaN): the value of an absent brick, or NaN for NaN.
    return (fx != fx || fy != fy || fz != fz) ? fx + fy + fz : grid_->band_width_;
  }
  const AxisPosition px = axis_position(fx), py = axis_position(fy), pz = axis_position(fz);
  const std::int64_t bx = brick_of_node(px.node), by = brick_of_node(py.node), bz = brick_of_node(pz.node);
  if (!brick_coord_in_range(bx) || !brick_coord_in_range(by) || !brick_coord_in_range(bz))
    return grid_->band_width_;  // every corner is beyond the key range (or one node short of it)
  // Each branch ends in a tail call, so the common path (same base brick, corners
  // inside it) runs without saving registers around a call.
  if (((bx ^ base_[0]) | (by ^ base_[1]) | (bz ^ base_[2])) != 0)
    return sample_after_move(px.node, py.node, pz.node, px.fraction, py.fraction, pz.fraction);
  ++queries_at_base_;
  return sample_in_base(px.node, py.node, pz.node, px.fraction, py.fraction, pz.fraction);
}

template <class S>
double GridAccessor<S>::sample_after_move(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v,
                                          double w) noexcept {
  move_to(brick_of_node(i), brick_of_node(j), brick_of_node(k));
  ++queries_at_base_;
  return sample_in_base(i, j, k, u, v, w);
}

template <class S>
inline double GridAccessor<S>::sample_in_base(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v,
                                              double w) noexcept {
  if ((i & 7) == 7 || (j & 7) == 7 || (k & 7) == 7) return sample_across_faces(i, j, k, u, v, w);
  // All eight corners lie in the base brick, which move_to always looked up.
  const Cell& c = cells_[static_cast<std::size_t>(cell_index(0, 0, 0))];
  if (!c.values) return c.fill;
  return trilinear_in_brick(c.view().from((i & 7) + 8 * (j & 7) + 64 * (k & 7)), u, v, w);
}

template <class S>
inline double GridAccessor<S>::sample_near_base(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v,
                                                double w) noexcept {
  const std::int64_t bx = brick_of_node(i), by = brick_of_node(j), bz = brick_of_node(k);
  if (((bx ^ brick_of_node(i + 1)) | (by ^ brick_of_node(j + 1)) | (bz ^ brick_of_node(k + 1))) != 0)
    return sample_across_faces(i, j, k, u, v, w);
  // All eight corners lie in one brick.
  const Cell& c = cells_[static_cast<std::size_t>(cell_index(bx - base_[0], by - base_[1], bz - base_[2]))];
  if (c.generation != generation_) return sample_any_corners(i, j, k, u, v, w);  // not looked up yet
  if (!c.values) return c.fill;
  return trilinear_in_brick(c.view().from((i & 7) + 8 * (j & 7) + 64 * (k & 7)), u, v, w);
}

template <class S>
double GridAccessor<S>::sample_across_faces(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v,
                                            double w) noexcept {
  // One face crossed (the usual case) between two stored bricks already looked up:
  // four corners in each, at the same offsets from one node in each. No call on
  // this path, so no registers are saved; anything else takes the general path.
  const bool cross_x = (i & 7) == 7, cross_y = (j & 7) == 7, cross_z = (k & 7) == 7;
  if (cross_x + cross_y + cross_z == 1) {
    const int first = cell_index(brick_of_node(i) - base_[0], brick_of_node(j) - base_[1], brick_of_node(k) - base_[2]);
    const Cell& low = cells_[static_cast<std::size_t>(first)];
    const Cell& high = cells_[static_cast<std::size_t>(first + (cross_x ? 1 : cross_y ? 3 : 9))];
    if (low.generation == generation_ && high.generation == generation_ && low.values && high.values) {
      const std::int64_t x0 = i & 7, y0 = 8 * (j & 7), z0 = 64 * (k & 7);
      const BrickView<S> p = low.view().from(x0 + y0 + z0);
      const BrickView<S> q = high.view().from(cross_x ? y0 + z0 : cross_y ? x0 + z0 : x0 + y0);
      const auto d = [](const BrickView<S>& r, int offset) { return r[offset]; };
      if (cross_x) return trilinear(d(p, 0), d(q, 0), d(p, 8), d(q, 8), d(p, 64), d(q, 64), d(p, 72), d(q, 72), u, v, w);
      if (cross_y) return trilinear(d(p, 0), d(p, 1), d(q, 0), d(q, 1), d(p, 64), d(p, 65), d(q, 64), d(q, 65), u, v, w);
      return trilinear(d(p, 0), d(p, 1), d(p, 8), d(p, 9), d(q, 0), d(q, 1), d(q, 8), d(q, 9), u, v, w);
    }
  }
  return sample_any_corners(i, j, k, u, v, w);
}

template <class S>
double GridAccessor<S>::sample_any_corners(std::int64_t i, std::int64_t j, std::int64_t k, double u, double v,
                                           double w) noexcept {
  // The lower corner's cell, and per axis the cell step to the upper corner (0 or
  // 1, 3, 9 where it lies in the next brick) and both corners' offsets.
  const int first = cell_index(brick_of_node(i) - base_[0], brick_of_node(j) - base_[1], brick_of_node(k) - base_[2]);
  const int sx = (i & 7) == 7 ? 1 : 0, sy = (j & 7) == 7 ? 3 : 0, sz = (k & 7) == 7 ? 9 : 0;
  const std::int64_t x0 = i & 7, x1 = (i + 1) & 7, y0 = 8 * (j & 7), y1 = 8 * ((j + 1) & 7), z0 = 64 * (k & 7),
                     z1 = 64 * ((k + 1) & 7);
  const auto at = [](const Cell& n, std::int64_t offset) {
    return n.values ? n.view()[offset] : n.fill;
  };
  const double c000 = at(cell(first), x0 + y0 + z0);
  const double c100 = at(cell(first + sx), x1 + y0 + z0);
  const double c010 = at(cell(first + sy), x0 + y1 + z0);
  const double c110 = at(cell(first + sx + sy), x1 + y1 + z0);
  const double c001 = at(cell(first + sz), x0 + y0 + z1);
  const double c101 = at(cell(first + sx + sz), x1 + y0 + z1);
  const double c011 = at(cell(first + sy + sz), x0 + y1 + z1);
  const double c111 = at(cell(first + sx + sy + sz), x1 + y1 + z1);
  return trilinear(c000, c100, c010, c110, c001, c101, c011, c111, u, v, w);
}

template <class S>
std::array<double, 3> GridAccessor<S>::gradient_by_samples(double x, double y, double z) noexcept {
  const double e = grid_->h_ * 0.5;
  const double two_e = 2 * e;
  return {(sample(x + e, y, z) - sample(x - e, y, z)) / two_e,
          (sample(x, y + e, z) - sample(x, y - e, z)) / two_e,
          (sample(x, y, z + e) - sample(x, y, z - e)) / two_e};
}

template <class S>
std::array<double, 3> GridAccessor<S>::gradient(double x, double y, double z) noexcept {
  const double h = grid_->h_;
  const double e = h * 0.5;
  const double two_e = 2 * e;
  // Per axis the coordinate divided by h at p - e, p and p + e, exactly as the six
  // samples of gradient_by_samples divide it; the centre one is shared by four.
  const double fxm = (x - e) / h, fx = x / h, fxp = (x + e) / h;
  const double fym = (y - e) / h, fy = y / h, fyp = (y + e) / h;
  const double fzm = (z - e) / h, fz = z / h, fzp = (z + e) / h;
  // Far points and NaN take the plain path (so do the edges of the key range, below).
  const auto near = [](double f) { return std::fabs(f) < kNodeIndexLimit; };
  if (!(near(fxm) && near(fx) && near(fxp) && near(fym) && near(fy) && near(fyp) && near(fzm) && near(fz) &&
        near(fzp)))
    return gradient_by_samples(x, y, z);
  const AxisPosition xm = axis_position(fxm), xc = axis_position(fx), xp = axis_position(fxp);
  const AxisPosition ym = axis_position(fym), yc = axis_position(fy), yp = axis_position(fyp);
  const AxisPosition zm = axis_position(fzm), zc = axis_position(fz), zp = axis_position(fzp);
  const std::int64_t bx = brick_of_node(xc.node), by = brick_of_node(yc.node), bz = brick_of_node(zc.node);
  // Every sample's corners must lie within the centre brick +-1, and every sample's
  // own brick in the key range (else sample() reads it as absent).
  const auto fits = [](const AxisPosition& m, const AxisPosition& p, std::int64_t b) {
    return brick_of_node(m.node) >= b - 1 && brick_of_node(p.node + 1) <= b + 1 &&
           brick_coord_in_range(brick_of_node(m.node)) && brick_coord_in_range(brick_of_node(p.node));
  };
  if (!(fits(xm, xp, bx) && fits(ym, yp, by) && fits(zm, zp, bz))) return gradient_by_samples(x, y, z);
  move_to(bx, by, bz);
  queries_at_base_ += 6;
  return {(sample_near_base(xp.node, yc.node, zc.node, xp.fraction, yc.fraction, zc.fraction) -
           sample_near_base(xm.node, yc.node, zc.node, xm.fraction, yc.fraction, zc.fraction)) / two_e,
          (sample_near_base(xc.node, yp.node, zc.node, xc.fraction, yp.fraction, zc.fraction) -
           sample_near_base(xc.node, ym.node, zc.node, xc.fraction, ym.fraction, zc.fraction)) / two_e,
          (sample_near_base(xc.node, yc.node, zp.node, xc.fraction, yc.fraction, zp.fraction) -
           sample_near_base(xc.node, yc.node, zm.node, xc.fraction, yc.fraction, zm.fraction)) / two_e};
}

template class Grid<float>;
template class Grid<double>;
template class Grid<Half>;
template class Grid<Q16>;
template class Grid<Q8>;
template class GridAccessor<float>;
template class GridAccessor<double>;
template class GridAccessor<Half>;
template class GridAccessor<Q16>;
template class GridAccessor<Q8>;

}  // namespace distgrid
