// The brick-wise scheme: lookup box, inside bits and signs, the order of cell
// bricks, the gather of node values and the shells that pass vertex indices on.
#include "brick_mesher.hpp"

#include <algorithm>
#include <functional>
#include <limits>
#include <memory>
#include <mutex>
#include <optional>
#include <utility>

#include "distgrid/brick_key.hpp"
#include "distgrid/detail/parallel.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/interrupt.hpp"
#include "marching_cubes.hpp"

namespace distgrid::detail::meshing {

namespace {

/// The scratch's per-thread shell buffers, one pair for each thread the call may use;
/// grown here, before any mesher holds a reference to one.
std::array<std::vector<std::uint32_t>, 2>& first_plane_shells(ContourScratch::Arrays& arrays, unsigned threads) {
  if (arrays.plane_shells.size() < threads) arrays.plane_shells.resize(threads);
  return arrays.plane_shells.front();
}

}  // namespace

template <class S>
BrickMesher<S>::BrickMesher(const Grid<S>& grid, const ContourOptions& options, ContourResult&& reuse, ContourScratch& scratch)
    : grid_(grid),
      options_(options),
      stored_rows_(scratch.arrays().stored_rows),
      stored_signs_(scratch.arrays().stored_signs),
      lookup_(scratch.arrays().lookup),
      planned_bricks_(scratch.arrays().planned_bricks),
      position_grid_(scratch.arrays().position_grid),
      slabs_(scratch.arrays().slabs),
      result_(&out_storage_),
      arrays_(&scratch.arrays()),
      plane_shells_(first_plane_shells(scratch.arrays(), resolve_thread_count(options.threads))) {
  // Of the scratch arrays only capacity carries over: each is filled afresh by the
  // step that owns it (plane_shells_ entries are read only after this call's
  // bricks wrote them).
  out_storage_.result.mesh.positions = std::move(reuse.mesh.positions);
  out_storage_.result.mesh.normals = std::move(reuse.mesh.normals);
  out_storage_.result.mesh.triangles = std::move(reuse.mesh.triangles);
  out_storage_.result.mesh.positions.clear();
  out_storage_.result.mesh.normals.clear();
  out_storage_.result.mesh.triangles.clear();
  block_.resize({12, 12, 12});
  steps_ = corner_steps(block_);
  const std::size_t count = grid.stored_keys().size();
  stored_rows_.resize(count);
  stored_signs_.resize(count);
  build_lookup();
  // Inside bits and signs: here for every brick without lookup_; with it, they are
  // found one x plane at a time (find_plane_signs).
  if (lookup_.empty())
    parallel_chunks(count, options_.threads, 256, [&](std::size_t begin, std::size_t end) {
      for (std::size_t slot = begin; slot < end; ++slot) find_signs(slot);
    }, [](std::size_t) {});
}

template <class S>
BrickMesher<S>::BrickMesher(const BrickMesher& first, std::array<std::vector<std::uint32_t>, 2>& plane_shells)
    : grid_(first.grid_),
      options_(first.options_),
      stored_rows_(first.stored_rows_),
      stored_signs_(first.stored_signs_),
      lookup_(first.lookup_),
      lookup_lo_(first.lookup_lo_),
      lookup_size_(first.lookup_size_),
      lookup_steps_(first.lookup_steps_),
      lookup_above_(first.lookup_above_),
      lookup_around_(first.lookup_around_),
      planned_bricks_(first.planned_bricks_),
      position_grid_(first.position_grid_),
      slabs_(first.slabs_),
      top_x_(first.top_x_),
      bottom_x_(first.bottom_x_),
      slab_planes_(first.slab_planes_),
      slab_count_(first.slab_count_),
      result_(first.result_),
      arrays_(first.arrays_),
      plane_shells_(plane_shells) {
  block_.resize({12, 12, 12});
  steps_ = corner_steps(block_);
}

template <class S>
void BrickMesher<S>::find_signs(std::size_t slot) {
  const BrickView<S> values = grid_.brick(slot);
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

template <class S>
void BrickMesher<S>::find_plane_signs(std::int64_t x) {
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
    detail::prefetch_values(grid_.brick_codes(static_cast<std::size_t>(entry->slot)), kBrickNodes);
    if (requested != nullptr) find(*requested);
    requested = entry;
  }
  if (requested != nullptr) find(*requested);
}

template <class S>
void BrickMesher<S>::build_lookup() {
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

template <class S>
void BrickMesher<S>::plan_slabs() {
  slab_count_ = 0;
  if (lookup_.empty()) {
    plan_cell_bricks();
    if (planned_bricks_.empty()) return;
    top_x_ = planned_bricks_.front()[0];
    bottom_x_ = planned_bricks_.back()[0];
  } else {
    if (grid_.stored_keys().empty() && grid_.inside_keys().empty()) return;
    top_x_ = lookup_lo_[0] + lookup_size_[0] - 2;
    bottom_x_ = lookup_lo_[0] + 1;
  }
  // About kSlabs slabs of whole planes: enough for every thread of a usual machine to
  // find work while the slabs' borders stay a small part of the work.
  constexpr std::int64_t kSlabs = 16;
  const std::int64_t planes = top_x_ - bottom_x_ + 1;
  slab_planes_ = (planes + kSlabs - 1) / kSlabs;
  slab_count_ = static_cast<std::size_t>((planes + slab_planes_ - 1) / slab_planes_);
  if (slabs_.size() < slab_count_) slabs_.resize(slab_count_);
  for (std::size_t s = 0; s < slab_count_; ++s) {
    SlabOutput& slab = slabs_[s];
    slab.cell_bricks.clear();
    slab.bottom_faces.clear();
    slab.quads.clear();
    slab.cells.clear();
    slab.index_base = 0;
    slab.out.result.mesh.positions.clear();
    slab.out.result.mesh.normals.clear();
    slab.out.result.mesh.triangles.clear();
    slab.out.result.bricks_meshed = slab.out.result.cells_visited = slab.out.result.split_cells = 0;
  }
  if (lookup_.empty()) {
    // Each slab takes the planned bricks of its planes.
    auto from = planned_bricks_.begin();
    for (std::size_t s = 0; s < slab_count_; ++s) {
      const auto to = std::find_if(from, planned_bricks_.end(), [&](const Coord& c) { return c[0] < slab_bottom(s); });
      slabs_[s].cell_bricks.assign(from, to);
      from = to;
    }
  } else {
    position_grid_.assign(lookup_.size(), -1);
  }
}

template <class S>
bool BrickMesher<S>::shared_sign_plane(std::int64_t x) const {
  if (x > top_x_ || x < bottom_x_) return false;
  const auto s = static_cast<std::size_t>((top_x_ - x) / slab_planes_);
  return (s > 0 && x == slab_top(s)) || (s + 1 < slab_count_ && x == slab_bottom(s));
}

template <class S>
ContourResult BrickMesher<S>::run() {
  // A smooth surface makes about 6 vertices and 12 triangles per 8 x 8 face of a
  // brick it crosses; reserving that for every stored brick avoids most regrowth
  // of the output.
  const std::size_t expected_vertices = grid_.stored_keys().size() * 6 * 8;
  MeshOut& result = *result_;
  result.result.mesh.positions.reserve(expected_vertices);
  result.result.mesh.normals.reserve(expected_vertices);
  result.result.mesh.triangles.reserve(2 * expected_vertices);
  plan_slabs();
  const unsigned threads = std::min<unsigned>(resolve_thread_count(options_.threads), static_cast<unsigned>(slab_count_));
  if (threads <= 1) {
    // In slab order straight into the result; each plane's signs found just before
    // their first use, one plane ahead, so that the node values this reads are still
    // cached when the gathers read them.
    for (std::size_t s = 0; s < slab_count_; ++s) mesh_slab(s, true, true);
  } else {
    if (!lookup_.empty()) {
      std::vector<std::int64_t> shared;
      for (std::int64_t x = top_x_ + 1; x >= bottom_x_ - 1; --x)
        if (shared_sign_plane(x)) shared.push_back(x);
      parallel_chunks(shared.size(), threads, 1, [&](std::size_t begin, std::size_t end) {
        for (std::size_t k = begin; k < end; ++k) find_plane_signs(shared[k]);
      }, [](std::size_t) {});
    }
    // Slabs go to any thread. A slab that every slab before it has joined the result
    // when its thread takes it up goes straight into the result (no other thread
    // touches the result until it is done); any other is meshed into its own output
    // and appended once every slab before it has joined. Either way the same bits.
    std::vector<std::unique_ptr<BrickMesher>> more(threads);
    std::mutex joining;
    std::vector<char> finished(slab_count_, 0), into_result(slab_count_, 0);
    std::size_t joined = 0;  // slabs 0 .. joined - 1 are in the result
    parallel_chunks_with_state(
        slab_count_, threads, 1,
        [&](unsigned worker) {
          if (worker == 0) return this;
          more[worker].reset(new BrickMesher(*this, arrays_->plane_shells[worker]));
          return more[worker].get();
        },
        [&](BrickMesher* mesher, std::size_t begin, std::size_t end) {
          for (std::size_t s = begin; s < end; ++s) {
            bool direct = false;
            {
              const std::lock_guard<std::mutex> lock(joining);
              direct = joined == s;
              into_result[s] = direct ? 1 : 0;
            }
            mesher->mesh_slab(s, direct, false);
            const std::lock_guard<std::mutex> lock(joining);
            finished[s] = 1;
            for (; joined < slab_count_ && finished[joined] != 0; ++joined)
              if (into_result[joined] == 0) append_slab(slabs_[joined]);
          }
        },
        [](std::size_t) {}, [] {});
  }
  finish_kept();
  return std::move(result.result);
}

template <class S>
void BrickMesher<S>::mesh_slab(std::size_t s, bool into_result, bool all_signs) {
  SlabOutput& slab = slabs_[s];
  slab_ = &slab;
  out_ = into_result ? result_ : &slab.out;
  const std::int64_t top = slab_top(s), bottom = slab_bottom(s);
  kept_plane_ = s > 0 ? top : kNoPlane;
  if (!lookup_.empty()) {
    if (s == 0) find_plane_signs(top);
    for (std::int64_t x = top; x >= bottom; --x) {
      throw_if_interrupted();
      if (all_signs || !shared_sign_plane(x - 1)) find_plane_signs(x - 1);
      const std::size_t first = slab.cell_bricks.size();
      plan_plane(x);
      for (std::size_t at = first; at < slab.cell_bricks.size(); ++at) mesh_cell_brick(at);
    }
  } else {
    for (std::size_t at = 0; at < slab.cell_bricks.size(); ++at) {
      if (at % 256 == 0) throw_if_interrupted();
      mesh_cell_brick(at);
    }
  }
  // The x = 0 faces of the bottom plane's bricks, which the next slab's kept items read.
  if (s + 1 < slab_count_ && !slab.cell_bricks.empty() && slab.cell_bricks.back()[0] == bottom) {
    const std::size_t ch = channels();
    slab.bottom_first = plane_first_[0];
    const std::size_t bricks = slab.cell_bricks.size() - slab.bottom_first;
    for (std::size_t k = 0; k < bricks * ch; ++k) {
      const std::uint32_t* face = plane_shells_[0].data() + k * kShellSize;
      slab.bottom_faces.insert(slab.bottom_faces.end(), face, face + 64);
    }
  }
  slab.index_base = 0;  // into the result: its indices are the result's; else set by append_slab
}

template <class S>
void BrickMesher<S>::append_slab(SlabOutput& slab) {
  ContourResult& to = result_->result;
  const ContourResult& from = slab.out.result;
  const std::size_t base = to.mesh.positions.size();
  if (base + from.mesh.positions.size() > UINT32_MAX) MeshOut::too_many_vertices();
  slab.index_base = static_cast<std::uint32_t>(base);
  to.mesh.positions.insert(to.mesh.positions.end(), from.mesh.positions.begin(), from.mesh.positions.end());
  to.mesh.normals.insert(to.mesh.normals.end(), from.mesh.normals.begin(), from.mesh.normals.end());
  const std::size_t first_triangle = to.mesh.triangles.size();
  to.mesh.triangles.insert(to.mesh.triangles.end(), from.mesh.triangles.begin(), from.mesh.triangles.end());
  const auto shift = static_cast<std::uint32_t>(base);
  for (auto t = to.mesh.triangles.begin() + static_cast<std::ptrdiff_t>(first_triangle); t != to.mesh.triangles.end(); ++t)
    for (std::uint32_t& corner : *t) corner += shift;
  to.bricks_meshed += from.bricks_meshed;
  to.cells_visited += from.cells_visited;
  to.split_cells += from.split_cells;
}

template <class S>
std::uint32_t BrickMesher<S>::resolve(std::size_t s, const Coord& brick, const VertexRef& ref) const {
  if (!ref.from_above()) return slabs_[s].index_base + ref.index();
  // The brick above is a cell brick of the slab above's bottom plane: its cell at
  // local x = 0 holds a sign change (the kept item needs its vertex), so it was meshed.
  const SlabOutput& above = slabs_[s - 1];
  const Coord want{brick[0] + 1, brick[1] + ref.dy(), brick[2] + ref.dz()};
  std::size_t position = 0;
  if (!position_grid_.empty()) {
    position = static_cast<std::size_t>(position_grid_[lookup_index(want)]);
  } else {
    const auto& bricks = above.cell_bricks;
    position = static_cast<std::size_t>(std::lower_bound(bricks.begin(), bricks.end(), want, std::greater<>()) - bricks.begin());
  }
  return above.index_base + above.bottom_faces[(position - above.bottom_first) * channels() * 64 + ref.entry()] + ref.piece();
}

template <class S>
void BrickMesher<S>::finish_kept() {
  MeshOut& out = *result_;
  std::size_t counted_already = 0;  // split cells were counted when the cells were kept
  for (std::size_t s = 0; s < slab_count_; ++s) {
    const SlabOutput& slab = slabs_[s];
    for (const KeptQuad& quad : slab.quads) {
      const auto vertex = [&](std::size_t k) { return resolve(s, quad.brick, quad.around[k]); };
      add_edge_quad(quad.lower_end_inside, {vertex(0), vertex(1), vertex(2), vertex(3)}, out);
    }
    for (const KeptCell& cell : slab.cells)
      add_cell_triangles(
          cell.pattern, [&](int edge) { return resolve(s, cell.brick, cell.edges[static_cast<std::size_t>(edge)]); },
          out, counted_already);
  }
}

template <class S>
void BrickMesher<S>::mesh_cell_brick(std::size_t at) {
  const std::vector<Coord>& cell_bricks = slab_->cell_bricks;
  const std::size_t ch = channels();
  if (at == 0 || cell_bricks[at][0] != cell_bricks[at - 1][0]) {
    // A new x plane: the one before becomes the plane above (or one further up, whose
    // shells no brick of this plane reads).
    std::swap(plane_shells_[0], plane_shells_[1]);
    plane_first_[1] = plane_first_[0];
    plane_first_[0] = at;
  }
  // Grown, never shrunk, and by doubling: the buffers are reused across planes and
  // their contents need no clearing (only entries a brick saved are read).
  const std::size_t shells_needed = (at - plane_first_[0] + 1) * ch * kShellSize;
  if (plane_shells_[0].size() < shells_needed) plane_shells_[0].resize(std::max(shells_needed, 2 * plane_shells_[0].size()));
  defer_x8_ = cell_bricks[at][0] == kept_plane_;
  load_sources(cell_bricks[at], at == 0 ? nullptr : &cell_bricks[at - 1]);
  gather(cell_bricks[at]);
  if (options_.mesher == Mesher::surface_nets)
    surface_nets_brick(at);
  else
    marching_cubes_brick(at);
  ++out_->result.bricks_meshed;
  out_->result.cells_visited += kBrickNodes;
}

template <class S>
void BrickMesher<S>::source_at(std::size_t at, Source& source) const {
  const LookupEntry entry = lookup_[at];
  source.signs = entry.signs;
  if (entry.slot >= 0) {
    const auto slot = static_cast<std::size_t>(entry.slot);
    source.values = grid_.brick_codes(slot);
    source.brick = grid_.brick_parameters(slot);
    source.fill = 0;
    source.rows = &stored_rows_[slot];
    return;
  }
  const bool inside = entry.slot == kInsideBrick;
  source.values = nullptr;
  source.fill = inside ? -grid_.band_width() : grid_.band_width();
  source.rows = inside ? &kAllInsideRows : &kAllOutsideRows;
}

template <class S>
auto BrickMesher<S>::source(const Coord& b) const -> Source {
  const Source absent{nullptr, {}, grid_.band_width(), kOutsideSigns, &kAllOutsideRows};
  const auto stored = [&](std::size_t slot) {
    return Source{grid_.brick_codes(slot), grid_.brick_parameters(slot), 0, stored_signs_[slot], &stored_rows_[slot]};
  };
  for (std::int64_t c : b)
    if (!brick_coord_in_range(c)) return absent;
  const std::int64_t key = brick_key(b[0], b[1], b[2]);
  if (const std::optional<std::size_t> slot = grid_.find_slot(key)) return stored(*slot);
  if (grid_.is_inside(key)) return {nullptr, {}, -grid_.band_width(), kInsideSigns, &kAllInsideRows};
  return absent;
}

template <class S>
void BrickMesher<S>::plan_plane(std::int64_t x) {
  for (std::int64_t y = lookup_lo_[1] + lookup_size_[1] - 2; y > lookup_lo_[1]; --y)
    for (std::int64_t z = lookup_lo_[2] + lookup_size_[2] - 2; z > lookup_lo_[2]; --z) {
      const std::size_t index = lookup_index({x, y, z});
      const LookupEntry* here = lookup_.data() + index;
      if (!mixed_signs(here->signs.all, [&](int d) { return here[lookup_above_[static_cast<std::size_t>(d)]].signs; })) continue;
      position_grid_[index] = static_cast<std::int32_t>(slab_->cell_bricks.size());
      slab_->cell_bricks.push_back({x, y, z});
    }
}

template <class S>
void BrickMesher<S>::plan_cell_bricks() {
  position_grid_.clear();  // bricks above are found by search_position
  planned_bricks_.clear();
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
    if (mixed_signs(source(c).signs.all, signs_above)) planned_bricks_.push_back(c);
  }
}

template <class S>
void BrickMesher<S>::sources_around(const Coord& c, int count, std::array<Source, 27>& sources) const {
  if (!lookup_.empty()) {
    const std::size_t lowest = lookup_index({c[0] - 1, c[1] - 1, c[2] - 1});
    for (std::size_t d = 0; d < static_cast<std::size_t>(count); ++d) source_at(lowest + lookup_around_[d], sources[d]);
    return;
  }
  for (int d = 0; d < count; ++d)
    sources[static_cast<std::size_t>(d)] = source({c[0] + d % 3 - 1, c[1] + (d / 3) % 3 - 1, c[2] + d / 9 - 1});
}

template <class S>
void BrickMesher<S>::load_sources(const Coord& c, const Coord* before) {
  const bool next_down = before != nullptr && c[0] == (*before)[0] && c[1] == (*before)[1] && c[2] == (*before)[2] - 1;
  if (!next_down) {
    sources_around(c, 27, sources_);
    return;
  }
  std::copy_backward(sources_.begin(), sources_.begin() + 18, sources_.end());
  sources_around(c, 9, sources_);
}

template <class S>
void BrickMesher<S>::gather(const Coord& c) {
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
      const auto node = [](const Source& from, int n) { return BrickView<S>{from.values, from.brick}[n]; };
      const double first = src[0].values ? node(src[0], row_offset + 7) : src[0].fill;
      Doubles8 middle;
      if (src[1].values)
        detail::decode_eight<S>(src[1].values + row_offset, src[1].brick, middle);
      else
        middle = Doubles8{} + src[1].fill;
      std::array<double, 3> last{};
      for (std::size_t x = 0; x < 3; ++x)
        last[x] = src[2].values ? node(src[2], row_offset + static_cast<int>(x)) : src[2].fill;
      row[0] = first;
      std::memcpy(row + 1, &middle, sizeof middle);
      std::memcpy(row + 9, last.data(), sizeof last);
    });
  }
}

template <class S>
std::ptrdiff_t BrickMesher<S>::search_position(const Coord& c, int dx, int dy, int dz) const {
  const Coord want{c[0] + dx, c[1] + dy, c[2] + dz};
  const std::vector<Coord>& cell_bricks = slab_->cell_bricks;
  const auto it = std::lower_bound(cell_bricks.begin(), cell_bricks.end(), want, std::greater<>());
  if (it == cell_bricks.end() || *it != want) return -1;
  return it - cell_bricks.begin();
}

template <class S>
const std::uint32_t* BrickMesher<S>::shell_of(std::size_t at, std::size_t channels) const {
  const std::size_t plane = slab_->cell_bricks[at][0] == slab_->cell_bricks[plane_first_[0]][0] ? 0 : 1;
  return plane_shells_[plane].data() + (at - plane_first_[plane]) * channels * kShellSize;
}

template <class S>
void BrickMesher<S>::fill_from_above(std::size_t at, std::size_t channels, std::vector<std::uint32_t>& table) const {
  const Coord& c = slab_->cell_bricks[at];
  // With position_grid_, the bricks above are at fixed offsets from this one's entry.
  const std::int32_t* positions_here = position_grid_.empty() ? nullptr : position_grid_.data() + lookup_index(c);
  // One copy per offset d = 1..7, with d a constant so each copy's loops are fixed.
  const auto fill_from = [&]<int d>(std::integral_constant<int, d>) {
    if (corner_offset(d, 0) != 0 && defer_x8_) return;  // in the slab above: see vertex_ref
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

template <class S>
void BrickMesher<S>::save_shell(std::size_t at, std::size_t channels, const std::vector<std::uint32_t>& table) {
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

template class BrickMesher<float>;
template class BrickMesher<double>;
template class BrickMesher<Half>;
template class BrickMesher<Q16>;
template class BrickMesher<Q8>;

}  // namespace distgrid::detail::meshing
