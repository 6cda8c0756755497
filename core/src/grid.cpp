#include "distgrid/grid.hpp"

#include <algorithm>
#include <cmath>
#include <string>

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
  size_ = 0;
  for (const Entry& e : old)
    if (e.key != kEmptyKey) insert(e.key, e.slot);
}

void BrickIndex::grow() { reserve(std::max<std::size_t>(16, size_ + 1)); }

bool BrickIndex::insert(std::int64_t key, std::uint32_t slot) {
  if ((size_ + 1) * 4 > entries_.size() * 3) grow();
  std::size_t at = hash(key) & mask_;
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
}

template <class S>
void Grid<S>::reserve(std::size_t stored_bricks, std::size_t inside_bricks) {
  values_.reserve(stored_bricks * kBrickNodes);
  keys_.reserve(stored_bricks);
  inside_keys_.reserve(inside_bricks);
  index_.reserve(stored_bricks + inside_bricks);
}

template <class S>
S* Grid<S>::add_brick(std::int64_t key) {
  S* values = add_brick_for_overwrite(key);
  std::fill(values, values + kBrickNodes, static_cast<S>(band_width_));
  return values;
}

template <class S>
S* Grid<S>::add_brick_for_overwrite(std::int64_t key) {
  if (!brick_key_valid(key)) throw Error(ErrorCode::badarg, describe_key(key));
  if (index_.find(key) != detail::BrickIndex::kNoSlot)
    throw Error(ErrorCode::badarg, describe_key(key) + " is already in the grid");
  const std::size_t slot = keys_.size();
  index_.insert(key, static_cast<std::uint32_t>(slot));
  keys_.push_back(key);
  values_.resize(values_.size() + kBrickNodes);
  return values_.data() + slot * kBrickNodes;
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
const S* Grid<S>::find_brick(std::int64_t key) const noexcept {
  const std::uint32_t slot = index_.find(key);
  if (slot >= detail::BrickIndex::kInsideSlot) return nullptr;
  return brick_values(slot);
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

// How far sample_many looks ahead: index buckets first, node rows later.
constexpr std::size_t kBucketLookahead = 32;
constexpr std::size_t kRowLookahead = 16;

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

}  // namespace

template <class S>
void Grid<S>::sample_many(std::span<const std::array<double, 3>> points, std::span<double> out) const noexcept {
  GridAccessor<S> accessor(*this);
  const std::size_t count = std::min(points.size(), out.size());
  std::array<std::int64_t, 3> node{};
  for (std::size_t n = 0; n < count; ++n) {
    if (n + kBucketLookahead < count && base_node(points[n + kBucketLookahead], h_, node))
      index_.prefetch(brick_key(brick_of_node(node[0]), brick_of_node(node[1]), brick_of_node(node[2])));
    if (n + kRowLookahead < count && base_node(points[n + kRowLookahead], h_, node)) {
      const std::uint32_t slot = index_.find(brick_key(brick_of_node(node[0]), brick_of_node(node[1]), brick_of_node(node[2])));
      if (slot < detail::BrickIndex::kInsideSlot) {
        const S* row = brick_values(slot) + (node[0] & 7) + 8 * (node[1] & 7) + 64 * (node[2] & 7);
        __builtin_prefetch(row);
        __builtin_prefetch(row + 8);
        __builtin_prefetch(row + 64);
        __builtin_prefetch(row + 72);
      }
    }
    out[n] = accessor.sample(points[n][0], points[n][1], points[n][2]);
  }
}

template <class S>
std::array<double, 3> Grid<S>::gradient(double x, double y, double z) const noexcept {
  GridAccessor<S> accessor(*this);
  return accessor.gradient(x, y, z);
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
  return values_.capacity() * sizeof(S) +
         (keys_.capacity() + inside_keys_.capacity()) * sizeof(std::int64_t) +
         index_.memory_bytes();
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
  if (has_base_ && base_[0] == bx && base_[1] == by && base_[2] == bz) return;
  base_ = {bx, by, bz};
  has_base_ = true;
  for (Neighbour& n : neighbours_) n.known = false;
  const bool streaming = queries_at_base_ > 1;
  queries_at_base_ = 0;
  if (!streaming) return;
  // Queries that move in brick order (the last brick served several) read much
  // of the new brick next, and the faces of its +x, +y, +z neighbours: fetch
  // those cache lines all at once rather than one miss after another.
  constexpr std::size_t kLine = 64;
  if (const S* values = look_up(0).values) {
    const char* bytes = reinterpret_cast<const char*>(values);
    for (std::size_t offset = 0; offset < kBrickNodes * sizeof(S); offset += kLine) __builtin_prefetch(bytes + offset);
  }
  if (const S* values = look_up(1).values)  // the i = 0 column of every row
    for (int row = 0; row < 64; ++row) __builtin_prefetch(values + 8 * row);
  if (const S* values = look_up(2).values)  // the j = 0 row of every plane
    for (int plane = 0; plane < 8; ++plane) __builtin_prefetch(values + 64 * plane);
  if (const S* values = look_up(4).values)  // the k = 0 plane
    for (std::size_t offset = 0; offset < 64 * sizeof(S); offset += kLine)
      __builtin_prefetch(reinterpret_cast<const char*>(values) + offset);
}

template <class S>
inline const typename GridAccessor<S>::Neighbour& GridAccessor<S>::neighbour(int index) noexcept {
  Neighbour& n = neighbours_[static_cast<std::size_t>(index)];
  if (n.known) return n;
  return look_up(index);
}

template <class S>
const typename GridAccessor<S>::Neighbour& GridAccessor<S>::look_up(int index) noexcept {
  Neighbour& n = neighbours_[static_cast<std::size_t>(index)];
  n.known = true;
  n.values = nullptr;
  n.fill = grid_->band_width_;
  const std::int64_t bx = base_[0] + (index & 1), by = base_[1] + ((index >> 1) & 1),
                     bz = base_[2] + (index >> 2);
  if (!brick_coord_in_range(bx) || !brick_coord_in_range(by) || !brick_coord_in_range(bz)) return n;
  const std::uint32_t slot = grid_->index_.find(brick_key(bx, by, bz));
  if (slot == detail::BrickIndex::kInsideSlot)
    n.fill = -grid_->band_width_;
  else if (slot != detail::BrickIndex::kNoSlot)
    n.values = grid_->brick_values(slot);
  return n;
}

template <class S>
double GridAccessor<S>::node(std::int64_t i, std::int64_t j, std::int64_t k) noexcept {
  if (!brick_coord_in_range(brick_of_node(i)) || !brick_coord_in_range(brick_of_node(j)) || !brick_coord_in_range(brick_of_node(k)))
    return grid_->band_width_;
  move_to(brick_of_node(i), brick_of_node(j), brick_of_node(k));
  const Neighbour& n = neighbour(0);
  return n.values ? static_cast<double>(n.values[(i & 7) + 8 * (j & 7) + 64 * (k & 7)]) : n.fill;
}

template <class S>
double GridAccessor<S>::sample(double x, double y, double z) noexcept {
  const double h = grid_->h_;
  const double fx = x / h, fy = y / h, fz = z / h;
  if (!(std::fabs(fx) < kNodeIndexLimit && std::fabs(fy) < kNodeIndexLimit &&
        std::fabs(fz) < kNodeIndexLimit)) {
    // Far outside every brick (or NaN): the value of an absent brick, or NaN for NaN.
    return (fx != fx || fy != fy || fz != fz) ? fx + fy + fz : grid_->band_width_;
  }
  const double flx = floor_exact(fx), fly = floor_exact(fy), flz = floor_exact(fz);
  const double u = fx - flx, v = fy - fly, w = fz - flz;
  const auto i = static_cast<std::int64_t>(flx);
  const auto j = static_cast<std::int64_t>(fly);
  const auto k = static_cast<std::int64_t>(flz);
  if (!brick_coord_in_range(brick_of_node(i)) || !brick_coord_in_range(brick_of_node(j)) || !brick_coord_in_range(brick_of_node(k)))
    return grid_->band_width_;  // every corner is beyond the key range (or one node short of it)
  move_to(brick_of_node(i), brick_of_node(j), brick_of_node(k));
  ++queries_at_base_;
  double c000, c100, c010, c110, c001, c101, c011, c111;
  if ((i & 7) != 7 && (j & 7) != 7 && (k & 7) != 7) {
    // Fast path: all eight corners lie in the base brick.
    const Neighbour& base = neighbour(0);
    if (!base.values) return base.fill;
    const S* p = base.values + (i & 7) + 8 * (j & 7) + 64 * (k & 7);
    c000 = static_cast<double>(p[0]);
    c100 = static_cast<double>(p[1]);
    c010 = static_cast<double>(p[8]);
    c110 = static_cast<double>(p[9]);
    c001 = static_cast<double>(p[64]);
    c101 = static_cast<double>(p[65]);
    c011 = static_cast<double>(p[72]);
    c111 = static_cast<double>(p[73]);
  } else {
    // Corners straddle brick faces: per axis, the local index of the two corners
    // and whether the second one lies in the next brick.
    const std::int64_t i0 = i & 7, j0 = j & 7, k0 = k & 7;
    const int sx = i0 == 7 ? 1 : 0, sy = j0 == 7 ? 2 : 0, sz = k0 == 7 ? 4 : 0;
    const std::int64_t i1 = (i0 + 1) & 7, j1 = (j0 + 1) & 7, k1 = (k0 + 1) & 7;
    const auto at = [this](int index, std::int64_t a, std::int64_t b, std::int64_t c) {
      const Neighbour& n = neighbour(index);
      return n.values ? static_cast<double>(n.values[a + 8 * b + 64 * c]) : n.fill;
    };
    c000 = at(0, i0, j0, k0);
    c100 = at(sx, i1, j0, k0);
    c010 = at(sy, i0, j1, k0);
    c110 = at(sx + sy, i1, j1, k0);
    c001 = at(sz, i0, j0, k1);
    c101 = at(sx + sz, i1, j0, k1);
    c011 = at(sy + sz, i0, j1, k1);
    c111 = at(sx + sy + sz, i1, j1, k1);
  }
  const double a0 = lerp(c000, c100, u), a1 = lerp(c010, c110, u);
  const double b0 = lerp(c001, c101, u), b1 = lerp(c011, c111, u);
  const double d0 = lerp(a0, a1, v), d1 = lerp(b0, b1, v);
  return lerp(d0, d1, w);
}

template <class S>
std::array<double, 3> GridAccessor<S>::gradient(double x, double y, double z) noexcept {
  const double e = grid_->h_ * 0.5;
  const double two_e = 2 * e;
  return {(sample(x + e, y, z) - sample(x - e, y, z)) / two_e,
          (sample(x, y + e, z) - sample(x, y - e, z)) / two_e,
          (sample(x, y, z + e) - sample(x, y, z - e)) / two_e};
}

template class Grid<float>;
template class Grid<double>;
template class GridAccessor<float>;
template class GridAccessor<double>;

}  // namespace distgrid
