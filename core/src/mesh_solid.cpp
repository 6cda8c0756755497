#include "distgrid/mesh_solid.hpp"

#include <algorithm>
#include <cmath>
#include <mutex>
#include <optional>

#include "distgrid/box.hpp"
#include "distgrid/detail/parallel.hpp"
#include "distgrid/exact_predicates.hpp"
#include "distgrid/interrupt.hpp"

namespace distgrid {
namespace {

/// An axis along which abc projects to a triangle of non-zero area, or -1 when the
/// three points are collinear (exactly).
int projection_axis(const Vec3& a, const Vec3& b, const Vec3& c) noexcept {
  for (int axis = 0; axis < 3; ++axis)
    if (orient2d(a, b, c, axis) != 0) return axis;
  return -1;
}

/// For points collinear in the projection: whether r lies on the closed segment [p, q].
bool on_segment(const Vec3& p, const Vec3& q, const Vec3& r, int axis) noexcept {
  for (int other = 0; other < 3; ++other) {
    if (other == axis) continue;
    const auto k = static_cast<std::size_t>(other);
    if (r[k] < std::min(p[k], q[k]) || r[k] > std::max(p[k], q[k])) return false;
  }
  return true;
}

/// Whether the closed segments [p, q] and [r, s] meet, projected along `axis`.
bool segments_meet_2d(const Vec3& p, const Vec3& q, const Vec3& r, const Vec3& s, int axis) noexcept {
  const int d1 = orient2d(p, q, r, axis), d2 = orient2d(p, q, s, axis);
  const int d3 = orient2d(r, s, p, axis), d4 = orient2d(r, s, q, axis);
  if (d1 * d2 < 0 && d3 * d4 < 0) return true;
  return (d1 == 0 && on_segment(p, q, r, axis)) || (d2 == 0 && on_segment(p, q, s, axis)) ||
         (d3 == 0 && on_segment(r, s, p, axis)) || (d4 == 0 && on_segment(r, s, q, axis));
}

/// Whether x lies in the closed triangle abc, all four in one plane, projected along `axis`.
bool in_triangle_2d(const Vec3& x, const Vec3& a, const Vec3& b, const Vec3& c, int axis) noexcept {
  const int s = orient2d(a, b, c, axis);
  const int o1 = orient2d(a, b, x, axis), o2 = orient2d(b, c, x, axis), o3 = orient2d(c, a, x, axis);
  return (o1 == 0 || o1 == s) && (o2 == 0 || o2 == s) && (o3 == 0 || o3 == s);
}

bool coplanar_segment_meets_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) noexcept {
  const int axis = projection_axis(a, b, c);
  if (axis < 0) return false;
  return in_triangle_2d(p, a, b, c, axis) || in_triangle_2d(q, a, b, c, axis) ||
         segments_meet_2d(p, q, a, b, axis) || segments_meet_2d(p, q, b, c, axis) || segments_meet_2d(p, q, c, a, axis);
}

/// For x in the plane of the triangle (v, a, b): whether the direction x - v lies in
/// the triangle's closed angle at v, so the segment [v, x] enters the triangle.
bool enters_corner(const Vec3& v, const Vec3& a, const Vec3& b, const Vec3& x) noexcept {
  const int axis = projection_axis(v, a, b);
  if (axis < 0) return false;
  const int s = orient2d(v, a, b, axis);
  const int o1 = orient2d(v, a, x, axis), o2 = orient2d(v, x, b, axis);
  return (o1 == 0 || o1 == s) && (o2 == 0 || o2 == s);
}

/// Whether the points p and q lie strictly on one side of the plane abc.
bool strictly_one_side(const Vec3& a, const Vec3& b, const Vec3& c, const Vec3& p, const Vec3& q) noexcept {
  const int op = orient3d(a, b, c, p);
  return op != 0 && op == orient3d(a, b, c, q);
}

}  // namespace

bool segment_meets_triangle(const Vec3& p, const Vec3& q, const Vec3& a, const Vec3& b, const Vec3& c) noexcept {
  const int sp = orient3d(a, b, c, p), sq = orient3d(a, b, c, q);
  if (sp * sq > 0) return false;
  if (sp == 0 && sq == 0) return coplanar_segment_meets_triangle(p, q, a, b, c);
  // The line pq crosses the plane within [p, q]; it meets the closed triangle when
  // the three edge orientations seen along it do not disagree.
  const int e0 = orient3d(p, q, a, b), e1 = orient3d(p, q, b, c), e2 = orient3d(p, q, c, a);
  const bool positive = e0 > 0 || e1 > 0 || e2 > 0, negative = e0 < 0 || e1 < 0 || e2 < 0;
  return !(positive && negative);
}

bool triangles_meet(const std::vector<Vec3>& positions, const IndexedTriangle& s, const IndexedTriangle& t) noexcept {
  std::size_t shared = 0, s_at = 0, t_at = 0;
  std::array<bool, 3> s_shared{}, t_shared{};
  for (std::size_t i = 0; i < 3; ++i)
    for (std::size_t j = 0; j < 3; ++j)
      if (s[i] == t[j]) {
        ++shared;
        s_shared[i] = t_shared[j] = true;
        s_at = i;
        t_at = j;
      }
  if (shared == 3) return false;
  if (shared == 2) {
    // One edge (u, v) in common: they meet beyond it only folded onto each other, in
    // one plane with the third corners on the same side of the edge.
    std::size_t a_at = 0, b_at = 0;
    for (std::size_t i = 0; i < 3; ++i) {
      if (!s_shared[i]) a_at = i;
      if (!t_shared[i]) b_at = i;
    }
    const Vec3 &u = positions[s[(a_at + 1) % 3]], &v = positions[s[(a_at + 2) % 3]];
    const Vec3 &a = positions[s[a_at]], &b = positions[t[b_at]];
    if (orient3d(u, v, a, b) != 0) return false;
    const int axis = projection_axis(u, v, a);
    return axis >= 0 && orient2d(u, v, a, axis) == orient2d(u, v, b, axis);
  }
  if (shared == 1) {
    const Vec3 &v = positions[s[s_at]], &a1 = positions[s[(s_at + 1) % 3]], &b1 = positions[s[(s_at + 2) % 3]];
    const Vec3 &w = positions[t[t_at]], &a2 = positions[t[(t_at + 1) % 3]], &b2 = positions[t[(t_at + 2) % 3]];
    // Either triangle apart from the shared corner strictly on one side of the
    // other's plane: the shared corner is all they have in common.
    if (strictly_one_side(w, a2, b2, a1, b1) || strictly_one_side(v, a1, b1, a2, b2)) return false;
    // Otherwise their common part, if more than the corner, is a segment from it whose
    // far end lies on an edge of one of them: an opposite edge meeting the other
    // triangle, or an edge from the corner lying in the other's plane and entering it.
    if (segment_meets_triangle(a1, b1, w, a2, b2) || segment_meets_triangle(a2, b2, v, a1, b1)) return true;
    for (const Vec3* x : {&a1, &b1})
      if (orient3d(w, a2, b2, *x) == 0 && enters_corner(w, a2, b2, *x)) return true;
    for (const Vec3* x : {&a2, &b2})
      if (orient3d(v, a1, b1, *x) == 0 && enters_corner(v, a1, b1, *x)) return true;
    return false;
  }
  const Vec3 &p0 = positions[s[0]], &p1 = positions[s[1]], &p2 = positions[s[2]];
  const Vec3 &q0 = positions[t[0]], &q1 = positions[t[1]], &q2 = positions[t[2]];
  // One triangle strictly on one side of the other's plane: apart.
  const int o0 = orient3d(p0, p1, p2, q0);
  if (o0 != 0 && o0 == orient3d(p0, p1, p2, q1) && o0 == orient3d(p0, p1, p2, q2)) return false;
  const int o1 = orient3d(q0, q1, q2, p0);
  if (o1 != 0 && o1 == orient3d(q0, q1, q2, p1) && o1 == orient3d(q0, q1, q2, p2)) return false;
  // Two triangles that meet have a common point on an edge of one of them.
  return segment_meets_triangle(p0, p1, q0, q1, q2) || segment_meets_triangle(p1, p2, q0, q1, q2) ||
         segment_meets_triangle(p2, p0, q0, q1, q2) || segment_meets_triangle(q0, q1, p0, p1, p2) ||
         segment_meets_triangle(q1, q2, p0, p1, p2) || segment_meets_triangle(q2, q0, p0, p1, p2);
}

namespace {

bool boxes_overlap(const Box& a, const Box& b) noexcept {
  for (std::size_t k = 0; k < 3; ++k)
    if (a.hi[k] < b.lo[k] || b.hi[k] < a.lo[k]) return false;
  return true;
}

/// Keeps the count and the first pair in (lower, higher) order.
struct PairTally {
  std::size_t pairs = 0;
  std::array<std::uint32_t, 2> first{0xFFFFFFFFu, 0xFFFFFFFFu};

  void add(std::uint32_t a, std::uint32_t b) noexcept {
    ++pairs;
    const std::array<std::uint32_t, 2> pair{std::min(a, b), std::max(a, b)};
    if (pair < first) first = pair;
  }
  void merge(const PairTally& other) noexcept {
    pairs += other.pairs;
    if (other.first < first) first = other.first;
  }
};

/// A triangle whose box spans more cells than this is tested against every other
/// triangle whose box it overlaps instead of being entered in its cells.
constexpr std::uint64_t kMaxCellsPerTriangle = 512;
constexpr std::int64_t kCellsPerAxis = std::int64_t{1} << 20;
/// Cell edge over the median triangle's extent: smaller cells hold fewer pairs to
/// look at, at the cost of entering each triangle in more of them.
constexpr double kCellPerExtent = 2;

}  // namespace

TriangleIntersections find_triangle_intersections(const std::vector<Vec3>& positions,
                                                  const std::vector<IndexedTriangle>& triangles, unsigned threads) {
  TriangleIntersections result;
  const std::size_t count = triangles.size();
  if (count < 2) return result;
  std::vector<Box> bounds(count);
  std::vector<double> extents(count);
  Box all{positions[triangles[0][0]], positions[triangles[0][0]]};
  for (std::size_t t = 0; t < count; ++t) {
    Box& b = bounds[t];
    b.lo = b.hi = positions[triangles[t][0]];
    for (std::size_t c = 1; c < 3; ++c)
      for (std::size_t k = 0; k < 3; ++k) {
        b.lo[k] = std::min(b.lo[k], positions[triangles[t][c]][k]);
        b.hi[k] = std::max(b.hi[k], positions[triangles[t][c]][k]);
      }
    extents[t] = std::max({b.hi[0] - b.lo[0], b.hi[1] - b.lo[1], b.hi[2] - b.lo[2]});
    for (std::size_t k = 0; k < 3; ++k) {
      all.lo[k] = std::min(all.lo[k], b.lo[k]);
      all.hi[k] = std::max(all.hi[k], b.hi[k]);
    }
  }
  std::nth_element(extents.begin(), extents.begin() + static_cast<std::ptrdiff_t>(count / 2), extents.end());
  const double span = std::max({all.hi[0] - all.lo[0], all.hi[1] - all.lo[1], all.hi[2] - all.lo[2]});
  double cell = kCellPerExtent * extents[count / 2];
  if (!(cell > 0) || !std::isfinite(cell)) cell = span > 0 ? span : 1;
  cell = std::max(cell, span / static_cast<double>(kCellsPerAxis / 2));
  // Cell of a coordinate: monotone in it, so the cell of the low corner of two boxes'
  // overlap lies in the cell ranges of both boxes.
  auto cell_of = [&](double x, std::size_t k) {
    const double f = std::floor((x - all.lo[k]) / cell);
    return static_cast<std::int64_t>(std::clamp(f, 0.0, static_cast<double>(kCellsPerAxis - 1)));
  };
  auto key_of = [](std::int64_t x, std::int64_t y, std::int64_t z) {
    return static_cast<std::uint64_t>(x) << 40 | static_cast<std::uint64_t>(y) << 20 | static_cast<std::uint64_t>(z);
  };

  struct Entry {
    std::uint64_t key;
    std::uint32_t triangle;
  };
  std::vector<Entry> entries;
  entries.reserve(count * 4);
  std::vector<std::uint32_t> large;
  std::vector<std::uint8_t> is_large(count, 0);
  // Each triangle's lowest cell: as cell_of is monotone, the cell of the low corner
  // of two boxes' overlap is the larger of their lowest cells on each axis.
  std::vector<std::array<std::int64_t, 3>> lowest_cell(count);
  for (std::size_t t = 0; t < count; ++t) {
    if (t % 65536 == 0) throw_if_interrupted();
    std::array<std::int64_t, 3>& lo = lowest_cell[t];
    std::array<std::int64_t, 3> hi{};
    std::uint64_t cells = 1;
    for (std::size_t k = 0; k < 3; ++k) {
      lo[k] = cell_of(bounds[t].lo[k], k);
      hi[k] = cell_of(bounds[t].hi[k], k);
      cells *= static_cast<std::uint64_t>(hi[k] - lo[k] + 1);
    }
    if (cells > kMaxCellsPerTriangle) {
      large.push_back(static_cast<std::uint32_t>(t));
      is_large[t] = 1;
      continue;
    }
    for (std::int64_t x = lo[0]; x <= hi[0]; ++x)
      for (std::int64_t y = lo[1]; y <= hi[1]; ++y)
        for (std::int64_t z = lo[2]; z <= hi[2]; ++z) entries.push_back({key_of(x, y, z), static_cast<std::uint32_t>(t)});
  }
  // Only the cells' contents matter, not their order within a cell.
  std::sort(entries.begin(), entries.end(), [](const Entry& a, const Entry& b) { return a.key < b.key; });
  std::vector<std::size_t> run_start;
  for (std::size_t e = 0; e < entries.size(); ++e)
    if (e == 0 || entries[e].key != entries[e - 1].key) run_start.push_back(e);
  run_start.push_back(entries.size());

  PairTally total;
  std::mutex mutex;
  const std::size_t runs = run_start.size() - 1;
  detail::parallel_chunks(runs, threads, 256, [&](std::size_t begin, std::size_t end) {
    PairTally local;
    for (std::size_t r = begin; r < end; ++r) {
      const std::uint64_t key = entries[run_start[r]].key;
      for (std::size_t i = run_start[r]; i < run_start[r + 1]; ++i) {
        if (interrupt_requested()) return;  // parallel_chunks throws before the next chunk
        const std::uint32_t a = entries[i].triangle;
        for (std::size_t j = i + 1; j < run_start[r + 1]; ++j) {
          const std::uint32_t b = entries[j].triangle;
          if (!boxes_overlap(bounds[a], bounds[b])) continue;
          const auto &la = lowest_cell[a], &lb = lowest_cell[b];
          const std::uint64_t owner =
              key_of(std::max(la[0], lb[0]), std::max(la[1], lb[1]), std::max(la[2], lb[2]));
          if (owner != key) continue;  // the pair is tested in its owner cell
          if (triangles_meet(positions, triangles[a], triangles[b])) local.add(a, b);
        }
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    total.merge(local);
  }, [](std::size_t) {});
  throw_if_interrupted();
  // Triangles too large for the cells: against every other whose box they overlap.
  detail::parallel_chunks(large.size(), threads, 1, [&](std::size_t begin, std::size_t end) {
    PairTally local;
    for (std::size_t l = begin; l < end; ++l) {
      const std::uint32_t a = large[l];
      for (std::uint32_t b = 0; b < count; ++b) {
        if (b % 65536 == 0 && interrupt_requested()) return;
        if (b == a || (is_large[b] && b < a) || !boxes_overlap(bounds[a], bounds[b])) continue;
        if (triangles_meet(positions, triangles[a], triangles[b])) local.add(a, b);
      }
    }
    std::lock_guard<std::mutex> lock(mutex);
    total.merge(local);
  }, [](std::size_t) {});
  throw_if_interrupted();
  result.pairs = total.pairs;
  if (total.pairs != 0) result.example = total.first;
  return result;
}

namespace {

/// Directions of the parity rays, as offsets across the ray per unit along +x.
constexpr std::array<std::array<double, 2>, 6> kRaySlopes{
    {{0.3183098861837907, 0.1741883681838889}, {-0.2718281828459045, 0.4142135623730950},
     {0.5772156649015329, -0.3678794411714423}, {-0.6931471805599453, -0.2360679774997897},
     {0.1414213562373095, 0.7071067811865476}, {-0.4472135954999579, 0.6180339887498949}}};

/// Whether p lies inside the closed shell of `shell` (triangles' indices), by the
/// parity of the crossings of a segment from p to beyond the shell's box. Empty
/// when every ray tried grazes an edge or a corner (exactly).
std::optional<bool> inside_shell(const Vec3& p, const std::vector<Vec3>& positions,
                                 const std::vector<IndexedTriangle>& triangles, const std::vector<std::uint32_t>& shell,
                                 const Box& box) {
  const double reach = (box.hi[0] - box.lo[0]) + (box.hi[1] - box.lo[1]) + (box.hi[2] - box.lo[2]) + 1;
  for (const auto& slope : kRaySlopes) {
    // q beyond the box along x, so no triangle of the shell holds it.
    const double along = box.hi[0] - p[0] + reach;
    const Vec3 q{p[0] + along, p[1] + slope[0] * along, p[2] + slope[1] * along};
    if (!(q[0] > box.hi[0])) return std::nullopt;  // too far out to step beyond: undecided
    bool grazed = false;
    std::size_t crossings = 0;
    for (std::uint32_t t : shell) {
      const Vec3 &a = positions[triangles[t][0]], &b = positions[triangles[t][1]], &c = positions[triangles[t][2]];
      const int sp = orient3d(a, b, c, p), sq = orient3d(a, b, c, q);
      if (sp * sq >= 0) {
        // Not strictly through the plane: the segment meets the triangle only if it
        // lies in the plane (q itself is outside the box, so never on the triangle).
        if (sp == 0 && sq == 0 && coplanar_segment_meets_triangle(p, q, a, b, c)) grazed = true;
        if (grazed) break;
        continue;
      }
      const int e0 = orient3d(p, q, a, b), e1 = orient3d(p, q, b, c), e2 = orient3d(p, q, c, a);
      if (e0 == e1 && e1 == e2) {
        ++crossings;
      } else if (!((e0 > 0 || e1 > 0 || e2 > 0) && (e0 < 0 || e1 < 0 || e2 < 0))) {
        grazed = true;  // through an edge or a corner: try another ray
        break;
      }
    }
    if (!grazed) return crossings % 2 == 1;
  }
  return std::nullopt;
}

}  // namespace

ShellNesting check_shell_nesting(const std::vector<Vec3>& positions, const std::vector<IndexedTriangle>& triangles,
                                 const std::vector<std::uint32_t>& component, std::size_t components) {
  ShellNesting result;
  result.shells = components;
  if (components < 1) return result;
  std::vector<std::vector<std::uint32_t>> shells(components);
  std::vector<double> volume(components, 0);
  std::vector<Box> box(components);
  std::vector<bool> has_box(components, false);
  constexpr std::uint32_t kShared = 0xFFFFFFFEu, kUnused = 0xFFFFFFFFu;
  std::vector<std::uint32_t> corner_shell(positions.size(), kUnused);
  for (std::uint32_t t = 0; t < triangles.size(); ++t) {
    const std::uint32_t c = component[t];
    shells[c].push_back(t);
    const Vec3 &a = positions[triangles[t][0]], &b = positions[triangles[t][1]], &d = positions[triangles[t][2]];
    volume[c] += detail::dot3(a, detail::cross3(b, d)) / 6;
    for (std::uint32_t corner : triangles[t]) {
      std::uint32_t& owner = corner_shell[corner];
      owner = owner == kUnused || owner == c ? c : kShared;
      const Vec3& p = positions[corner];
      if (!has_box[c]) box[c] = {p, p};
      has_box[c] = true;
      for (std::size_t k = 0; k < 3; ++k) {
        box[c].lo[k] = std::min(box[c].lo[k], p[k]);
        box[c].hi[k] = std::max(box[c].hi[k], p[k]);
      }
    }
  }
  auto box_volume = [&](std::size_t c) {
    return (box[c].hi[0] - box[c].lo[0]) * (box[c].hi[1] - box[c].lo[1]) * (box[c].hi[2] - box[c].lo[2]);
  };
  auto box_holds = [](const Box& b, const Vec3& p) {
    for (std::size_t k = 0; k < 3; ++k)
      if (p[k] < b.lo[k] || p[k] > b.hi[k]) return false;
    return true;
  };
  for (std::size_t c = 0; c < components; ++c) {
    throw_if_interrupted();
    // A corner of this shell alone, so it lies on no other shell.
    std::optional<Vec3> probe;
    for (std::uint32_t t : shells[c]) {
      for (std::uint32_t corner : triangles[t])
        if (corner_shell[corner] == c) {
          probe = positions[corner];
          break;
        }
      if (probe) break;
    }
    if (!probe) continue;
    std::size_t depth = 0;
    std::optional<std::size_t> innermost;
    bool undecided = false;
    for (std::size_t other = 0; other < components && !undecided; ++other) {
      if (other == c || !box_holds(box[other], *probe)) continue;
      const std::optional<bool> inside = inside_shell(*probe, positions, triangles, shells[other], box[other]);
      if (!inside) undecided = true;
      if (inside.value_or(false)) {
        ++depth;
        if (!innermost || box_volume(other) < box_volume(*innermost)) innermost = other;
      }
    }
    if (undecided) continue;
    const bool outward = volume[c] > 0;
    if (outward == (depth % 2 == 0)) continue;
    if (result.misnested++ == 0) {
      result.example_triangle = shells[c].front();
      result.example_volume = volume[c];
      if (innermost) result.example_enclosing_triangle = shells[*innermost].front();
    }
  }
  return result;
}

}  // namespace distgrid
