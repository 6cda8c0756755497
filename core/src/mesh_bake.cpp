#include "distgrid/mesh_bake.hpp"

#include <algorithm>
#include <array>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <limits>
#include <numbers>
#include <string>
#include <unordered_map>
#include <vector>

#if defined(__AVX__) || defined(__BMI2__)
#include <immintrin.h>
#endif

#include "distgrid/closest_point.hpp"
#include "distgrid/detail/lanes.hpp"
#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"
#include "distgrid/interrupt.hpp"
#include "distgrid/memory_budget.hpp"
#include "distgrid/plan.hpp"

namespace distgrid {
namespace {

using detail::dot3;
using detail::LaneMask;
using detail::Lanes;
using detail::sub3;

/// The lanes of a comparison that hold, as bits 0 to 3 (one instruction with AVX).
inline unsigned lane_bits(const LaneMask& mask) noexcept {
#if defined(__AVX__)
  return static_cast<unsigned>(_mm256_movemask_pd(std::bit_cast<__m256d>(mask)));
#else
  return static_cast<unsigned>((mask[0] & 1) | (mask[1] & 2) | (mask[2] & 4) | (mask[3] & 8));
#endif
}

/// Bits 0, 4, 8, ..., 60 of x (the others zero) gathered into bits 0 to 15.
inline std::uint64_t nibble_bits(std::uint64_t x) noexcept {
#if defined(__BMI2__)
  return _pext_u64(x, 0x1111111111111111ull);
#else
  x = (x | x >> 3) & 0x0303030303030303ull;
  x = (x | x >> 6) & 0x000F000F000F000Full;
  x = (x | x >> 12) & 0x000000FF000000FFull;
  return (x | x >> 24) & 0xFFFFull;
#endif
}

/// A triangle's corners, a ball that holds it, and the parts of its distance frame
/// that cost a division or a square root, computed once per bake. The frame's edge
/// and inward vectors are products only and are rebuilt per brick (TriangleFrame):
/// storing them too would double this array (about 100 MB for 330 000 triangles).
struct TriangleData {
  Vec3 a, b, c;
  Vec3 centre;    ///< centroid
  double radius;  ///< largest corner distance from the centroid, rounded up
  Vec3 unit_normal;
  double inverse_ab, inverse_bc, inverse_ca;  ///< 1 / squared edge lengths
  bool usable;  ///< false when the normal under- or overflows or an edge has zero length

  TriangleData() = default;  // assigned before use
  TriangleData(const Vec3& corner_a, const Vec3& corner_b, const Vec3& corner_c) noexcept
      : a(corner_a), b(corner_b), c(corner_c) {
    double r2 = 0;
    for (std::size_t axis = 0; axis < 3; ++axis) centre[axis] = (a[axis] + b[axis] + c[axis]) / 3;
    for (const Vec3* corner : {&a, &b, &c}) {
      const Vec3 e = sub3(*corner, centre);
      r2 = std::max(r2, dot3(e, e));
    }
    radius = std::sqrt(r2) * (1 + 1e-12);
    const Vec3 ab = sub3(b, a), bc = sub3(c, b), ca = sub3(a, c);
    const Vec3 n = detail::cross3(ab, sub3(c, a));
    const double nn = dot3(n, n), lab = dot3(ab, ab), lbc = dot3(bc, bc), lca = dot3(ca, ca);
    usable = nn > 0 && nn < 1e300 && lab > 0 && lbc > 0 && lca > 0;
    const double length = std::sqrt(nn);
    // Zero when not usable, so the plane cull (a lower bound |plane distance|) passes.
    unit_normal = usable ? Vec3{n[0] / length, n[1] / length, n[2] / length} : Vec3{0, 0, 0};
    inverse_ab = 1 / lab;
    inverse_bc = 1 / lbc;
    inverse_ca = 1 / lca;
  }
};

/// Per brick of the range [lo, hi], how many triangles list it, and once they are all
/// counted its rank among the listed bricks in ascending key order: a dense array
/// when the range holds at most 2^22 bricks (16 MiB at most), a hash map beyond.
class BrickSlots {
 public:
  BrickSlots(const std::array<std::int64_t, 3>& lo, const std::array<std::int64_t, 3>& hi) {
    for (std::size_t a = 0; a < 3; ++a) size_[a] = hi[a] - lo[a] + 1;
    const std::int64_t cells = size_[0] * size_[1] * size_[2];
    if (cells <= (std::int64_t{1} << 22)) dense_.assign(static_cast<std::size_t>(cells), 0);
  }
  /// Index of a brick (coordinates relative to lo) in the range; ascending in (x, y, z)
  /// order, so in key order.
  std::int64_t cell(std::int64_t x, std::int64_t y, std::int64_t z) const noexcept {
    return (x * size_[1] + y) * size_[2] + z;
  }
  /// The brick (relative to lo) of a cell index.
  std::array<std::int64_t, 3> brick(std::int64_t cell) const noexcept {
    const std::int64_t z = cell % size_[2], xy = cell / size_[2];
    return {xy / size_[1], xy % size_[1], z};
  }
  bool dense() const noexcept { return !dense_.empty(); }
  /// Counts one more triangle for `cell`; several threads may count at once when dense().
  void count(std::int64_t cell) {
    if (dense()) std::atomic_ref<std::uint32_t>(dense_[static_cast<std::size_t>(cell)]).fetch_add(1, std::memory_order_relaxed);
    else ++hashed_[cell];
  }
  /// Replaces the counts by ranks and returns each rank's cell and count.
  std::vector<std::pair<std::int64_t, std::uint32_t>> rank() {
    std::vector<std::pair<std::int64_t, std::uint32_t>> listed;
    if (dense()) {
      for (std::size_t c = 0; c < dense_.size(); ++c)
        if (dense_[c] != 0) {
          listed.emplace_back(static_cast<std::int64_t>(c), dense_[c]);
          dense_[c] = static_cast<std::uint32_t>(listed.size() - 1);
        }
      return listed;
    }
    listed.assign(hashed_.begin(), hashed_.end());
    std::sort(listed.begin(), listed.end());
    for (std::size_t r = 0; r < listed.size(); ++r) hashed_[listed[r].first] = static_cast<std::uint32_t>(r);
    return listed;
  }
  /// The rank of a listed cell (after rank()).
  std::uint32_t rank_of(std::int64_t cell) const {
    return dense() ? dense_[static_cast<std::size_t>(cell)] : hashed_.at(cell);
  }

 private:
  std::array<std::int64_t, 3> size_{};
  std::vector<std::uint32_t> dense_;
  std::unordered_map<std::int64_t, std::uint32_t> hashed_;
};

/// Lists of items (triangles) per bin: bin b's items are items[start[b] .. start[b + 1]).
struct BinLists {
  std::vector<std::size_t> start;
  std::vector<std::uint32_t> items;

  /// Sizes the lists from count[b], the items of bin b.
  void size(const std::vector<std::size_t>& count) {
    start.assign(count.size() + 1, 0);
    for (std::size_t b = 0; b < count.size(); ++b) start[b + 1] = start[b] + count[b];
    items.assign(start.back(), 0);
  }
};

/// Buckets of the gap from a brick's centre to a triangle's ball, which order its triangles.
constexpr std::size_t kOrderBuckets = 128;

/// Per-thread arrays for one brick.
struct BrickScratch {
  std::array<double, kBrickNodes> best_d2{};
  /// An upper bound on the node's distance to the mesh (up to slack), at most band*h:
  /// a triangle farther than this from the node cannot change its value (it is not
  /// nearer, or the node is beyond the band either way).
  std::array<double, kBrickNodes> node_reach{};
  std::array<std::uint32_t, kBrickNodes> best_triangle{};
  std::vector<std::uint64_t> keyed;   // (bucket of the gap from the brick centre to the ball, triangle)
  std::vector<std::uint32_t> order;   // triangles by bucket, in list order within one
  std::array<std::uint32_t, kOrderBuckets + 1> bucket_start{};
  std::array<std::int8_t, kBrickNodes> sign{};  // +1, -1, or 0 while unknown
  std::array<std::uint16_t, kBrickNodes> queue{};
};

const Vec3& pseudo_normal(const PreparedMesh& mesh, std::uint32_t t, TriangleFeature feature) {
  const auto& tri = mesh.triangles[t];
  const auto& edges = mesh.triangle_edges[t];
  switch (feature) {
    case TriangleFeature::face: return mesh.face_normals[t];
    case TriangleFeature::edge_ab: return mesh.edge_normals[edges[0]];
    case TriangleFeature::edge_bc: return mesh.edge_normals[edges[1]];
    case TriangleFeature::edge_ca: return mesh.edge_normals[edges[2]];
    case TriangleFeature::corner_a: return mesh.corner_normals[tri[0]];
    case TriangleFeature::corner_b: return mesh.corner_normals[tri[1]];
    case TriangleFeature::corner_c: return mesh.corner_normals[tri[2]];
  }
  return mesh.face_normals[t];
}

/// The distance from p to triangle t, negative when (p - closest point) . the
/// pseudo-normal of the closest feature is negative: a node on the surface reads 0,
/// a zero or positive dot product reads outside. Flattened so the closest-point
/// arithmetic stays in registers.
[[gnu::flatten]] double signed_distance(const PreparedMesh& mesh, const std::vector<TriangleData>& data, std::uint32_t t,
                                        const Vec3& p) noexcept {
  const TriangleData& tri = data[t];
  const ClosestPoint q = closest_point_on_triangle(p, tri.a, tri.b, tri.c);
  const double along_normal = dot3(q.offset, pseudo_normal(mesh, t, q.feature));
  const double d = std::sqrt(q.distance_squared);
  return along_normal < 0 ? -d : d;
}

/// Square roots of four lanes (correctly rounded, as std::sqrt).
inline void sqrt_lanes(const Lanes& x, Lanes& root) noexcept {
#if defined(__AVX__)
  root = std::bit_cast<Lanes>(_mm256_sqrt_pd(std::bit_cast<__m256d>(x)));
#else
  for (std::size_t i = 0; i < 4; ++i) root[i] = std::sqrt(x[i]);
#endif
}

/// Three coordinates of four points, one point a lane.
struct LanePoints {
  Lanes x, y, z;
};

/// p's offset from the point start + t * edge of an edge, given p's offsets from
/// the edge's start (`from_start`) and end (`from_end`): from_start - t * edge, or
/// from_start where t <= 0 and from_end where t >= 1 (detail::offset_from per lane).
/// (Results through references: returning a vector by value would tie the ABI to AVX.)
inline void offset_lanes(const LanePoints& from_start, const LanePoints& edge, const Lanes& t,
                         const LanePoints& from_end, LanePoints& offset) noexcept {
  const Lanes zero{0, 0, 0, 0}, one{1, 1, 1, 1};
  const LaneMask at_start = t <= zero, at_end = t >= one;
  const Lanes x = from_start.x - t * edge.x, y = from_start.y - t * edge.y, z = from_start.z - t * edge.z;
  offset.x = at_start ? from_start.x : (at_end ? from_end.x : x);
  offset.y = at_start ? from_start.y : (at_end ? from_end.y : y);
  offset.z = at_start ? from_start.z : (at_end ? from_end.z : z);
}

/// signed_distance for four nodes (lane i: node p[i], triangle t[i]) at once:
/// closest_point_on_triangle with every region computed in lanes and the first
/// region whose test holds kept, in the function's order, so each lane gets the
/// bits of the scalar call. A lane whose test reaches the degenerate fallback
/// (an edge of zero length, a normal that under- or overflows) takes the scalar call.
std::array<double, 4> signed_distances(const PreparedMesh& mesh, const std::vector<TriangleData>& data,
                                       const std::array<std::uint32_t, 4>& t, const LanePoints& p) noexcept {
  LanePoints a{}, b{}, c{};
  for (std::size_t i = 0; i < 4; ++i) {
    const TriangleData& tri = data[t[i]];
    a.x[i] = tri.a[0], a.y[i] = tri.a[1], a.z[i] = tri.a[2];
    b.x[i] = tri.b[0], b.y[i] = tri.b[1], b.z[i] = tri.b[2];
    c.x[i] = tri.c[0], c.y[i] = tri.c[1], c.z[i] = tri.c[2];
  }
  const Lanes zero{0, 0, 0, 0};
  const Lanes abx = b.x - a.x, aby = b.y - a.y, abz = b.z - a.z;
  const Lanes acx = c.x - a.x, acy = c.y - a.y, acz = c.z - a.z;
  const Lanes apx = p.x - a.x, apy = p.y - a.y, apz = p.z - a.z;
  const Lanes d1 = abx * apx + aby * apy + abz * apz, d2 = acx * apx + acy * apy + acz * apz;
  const Lanes bpx = p.x - b.x, bpy = p.y - b.y, bpz = p.z - b.z;
  const Lanes d3 = abx * bpx + aby * bpy + abz * bpz, d4 = acx * bpx + acy * bpy + acz * bpz;
  const Lanes vc = d1 * d4 - d3 * d2;
  const Lanes cpx = p.x - c.x, cpy = p.y - c.y, cpz = p.z - c.z;
  const Lanes d5 = abx * cpx + aby * cpy + abz * cpz, d6 = acx * cpx + acy * cpy + acz * cpz;
  const Lanes vb = d5 * d2 - d1 * d6;
  const Lanes va = d3 * d6 - d5 * d4;
  const Lanes towards_c = d4 - d3, towards_b = d5 - d6;
  const Lanes denominator_ab = d1 - d3, denominator_ca = d2 - d6, denominator_bc = towards_c + towards_b;
  const Lanes nx = aby * acz - abz * acy, ny = abz * acx - abx * acz, nz = abx * acy - aby * acx;
  const Lanes nn = nx * nx + ny * ny + nz * nz;
  const Lanes huge{1e300, 1e300, 1e300, 1e300};

  // The regions in the scalar function's order; `taken` holds the lanes decided.
  const LaneMask in_a = (d1 <= zero) & (d2 <= zero);
  LaneMask taken = in_a;
  const LaneMask in_b = ~taken & (d3 >= zero) & (d4 <= d3);
  taken |= in_b;
  const LaneMask region_ab = ~taken & (vc <= zero) & (d1 >= zero) & (d3 <= zero);
  taken |= region_ab;
  const LaneMask in_c = ~taken & (d6 >= zero) & (d5 <= d6);
  taken |= in_c;
  const LaneMask region_ca = ~taken & (vb <= zero) & (d2 >= zero) & (d6 <= zero);
  taken |= region_ca;
  const LaneMask region_bc = ~taken & (va <= zero) & (towards_c >= zero) & (towards_b >= zero);
  taken |= region_bc;
  const LaneMask fallback = (region_ab & ~(denominator_ab > zero)) | (region_ca & ~(denominator_ca > zero)) |
                            (region_bc & ~(denominator_bc > zero)) | (~taken & ~((nn > zero) & (nn < huge)));

  // p minus its closest point, from p's offsets to the corners as
  // closest_point_on_triangle computes it (never from the point's world
  // coordinates, which round by an ulp of |p| far from the origin).
  LanePoints from_ab{}, from_ca{}, from_bc{};
  const LanePoints ap{apx, apy, apz}, bp{bpx, bpy, bpz}, cp{cpx, cpy, cpz};
  offset_lanes(ap, {abx, aby, abz}, d1 / denominator_ab, bp, from_ab);
  offset_lanes(ap, {acx, acy, acz}, d2 / denominator_ca, cp, from_ca);
  offset_lanes(bp, {c.x - b.x, c.y - b.y, c.z - b.z}, towards_c / denominator_bc, cp, from_bc);
  const Lanes along = (nx * apx + ny * apy + nz * apz) / nn;
  const LanePoints from_face{along * nx, along * ny, along * nz};
  auto choose = [&](Lanes& q, const Lanes& on_a, const Lanes& on_b, const Lanes& edge_ab, const Lanes& on_c,
                    const Lanes& edge_ca, const Lanes& edge_bc, const Lanes& face) {
    q = in_a ? on_a
             : (in_b ? on_b : (region_ab ? edge_ab : (in_c ? on_c : (region_ca ? edge_ca : (region_bc ? edge_bc : face)))));
  };
  Lanes dx, dy, dz;
  choose(dx, ap.x, bp.x, from_ab.x, cp.x, from_ca.x, from_bc.x, from_face.x);
  choose(dy, ap.y, bp.y, from_ab.y, cp.y, from_ca.y, from_bc.y, from_face.y);
  choose(dz, ap.z, bp.z, from_ab.z, cp.z, from_ca.z, from_bc.z, from_face.z);
  const Lanes distance_squared = dx * dx + dy * dy + dz * dz;

  std::array<double, 4> result{};
  for (std::size_t i = 0; i < 4; ++i) {
    if (fallback[i]) {
      result[i] = signed_distance(mesh, data, t[i], {p.x[i], p.y[i], p.z[i]});
      continue;
    }
    using F = TriangleFeature;
    const F feature = in_a[i] ? F::corner_a
                      : in_b[i] ? F::corner_b
                      : region_ab[i] ? F::edge_ab
                      : in_c[i] ? F::corner_c
                      : region_ca[i] ? F::edge_ca
                      : region_bc[i] ? F::edge_bc
                                     : F::face;
    const Vec3& normal = pseudo_normal(mesh, t[i], feature);
    const double along_normal = dx[i] * normal[0] + dy[i] * normal[1] + dz[i] * normal[2];
    const double d = std::sqrt(distance_squared[i]);
    result[i] = along_normal < 0 ? -d : d;
  }
  return result;
}

/// The rest of a usable triangle's frame: its edges and their inward normals n x edge
/// (n = ab x ac, positive towards the inside). Products only, rebuilt per brick.
struct TriangleFrame {
  Vec3 ab, bc, ca, inward_ab, inward_bc, inward_ca;

  explicit TriangleFrame(const TriangleData& t) noexcept : ab(sub3(t.b, t.a)), bc(sub3(t.c, t.b)), ca(sub3(t.a, t.c)) {
    const Vec3 n = detail::cross3(ab, sub3(t.c, t.a));
    inward_ab = detail::cross3(n, ab);
    inward_bc = detail::cross3(n, bc);
    inward_ca = detail::cross3(n, ca);
  }
};

/// Whether triangle t with squared distance d2 takes a node from the current best:
/// the smallest squared distance wins, an exact tie goes to the lower triangle index.
/// The winner is thus the same whatever order the triangles are tried in.
inline bool takes_node(double d2, std::uint32_t t, double best_d2, std::uint32_t best_triangle) noexcept {
  return d2 < best_d2 || (d2 == best_d2 && t < best_triangle);
}

/// The nearest-triangle step for four nodes of a row, at (x[i], y, z), and a usable
/// triangle, without branches on the region: the squared distance to the plane when
/// the node projects inside the triangle, else to the nearest of the three edges as
/// clamped segments (the first smallest of ab, bc, ca). The arithmetic per lane is
/// fixed, so a node gets the same bits whichever row, brick or lane computes it.
/// Called when one of the nodes has both the triangle's ball and its plane within
/// its reach, as the distance to a triangle is at least both; each lane then takes
/// its node when takes_node holds, with lane masks rather than branches.
/// `n` is the first node's index.
[[gnu::always_inline]] inline void nearest_in_half_row(const TriangleFrame& f, const TriangleData& tri, std::uint32_t t,
                                                       const Lanes& px, double y, double z, std::size_t n,
                                                       BrickScratch& scratch) noexcept {
  Lanes reach;
  std::memcpy(&reach, scratch.node_reach.data() + n, sizeof reach);
  const Lanes apx = px - tri.a[0];
  const double apy = y - tri.a[1], apz = z - tri.a[2];
  const Lanes plane = apx * tri.unit_normal[0] + apy * tri.unit_normal[1] + apz * tri.unit_normal[2];

  const Lanes zero{0, 0, 0, 0}, one{1, 1, 1, 1};
  const double bpy = y - tri.b[1], bpz = z - tri.b[2], cpy = y - tri.c[1], cpz = z - tri.c[2];
  const Lanes bpx = px - tri.b[0], cpx = px - tri.c[0];
  const Lanes side_ab = apx * f.inward_ab[0] + apy * f.inward_ab[1] + apz * f.inward_ab[2];
  const Lanes side_bc = bpx * f.inward_bc[0] + bpy * f.inward_bc[1] + bpz * f.inward_bc[2];
  const Lanes side_ca = cpx * f.inward_ca[0] + cpy * f.inward_ca[1] + cpz * f.inward_ca[2];
  const Lanes plane_squared = plane * plane;
  // Segment parameters clamped to [0, 1].
  Lanes s_ab = (apx * f.ab[0] + apy * f.ab[1] + apz * f.ab[2]) * tri.inverse_ab;
  Lanes s_bc = (bpx * f.bc[0] + bpy * f.bc[1] + bpz * f.bc[2]) * tri.inverse_bc;
  Lanes s_ca = (cpx * f.ca[0] + cpy * f.ca[1] + cpz * f.ca[2]) * tri.inverse_ca;
  s_ab = s_ab < zero ? zero : (s_ab > one ? one : s_ab);
  s_bc = s_bc < zero ? zero : (s_bc > one ? one : s_bc);
  s_ca = s_ca < zero ? zero : (s_ca > one ? one : s_ca);
  const Lanes wax = apx - s_ab * f.ab[0], way = apy - s_ab * f.ab[1], waz = apz - s_ab * f.ab[2];
  const Lanes wbx = bpx - s_bc * f.bc[0], wby = bpy - s_bc * f.bc[1], wbz = bpz - s_bc * f.bc[2];
  const Lanes wcx = cpx - s_ca * f.ca[0], wcy = cpy - s_ca * f.ca[1], wcz = cpz - s_ca * f.ca[2];
  const Lanes e_ab = wax * wax + way * way + waz * waz;
  const Lanes e_bc = wbx * wbx + wby * wby + wbz * wbz;
  const Lanes e_ca = wcx * wcx + wcy * wcy + wcz * wcz;
  Lanes edges = e_bc < e_ab ? e_bc : e_ab;
  edges = e_ca < edges ? e_ca : edges;
  const auto inside = (side_ab >= zero) & (side_bc >= zero) & (side_ca >= zero);
  const Lanes d2 = inside ? plane_squared : edges;
  Lanes best;
  std::memcpy(&best, scratch.best_d2.data() + n, sizeof best);
  std::uint32_t __attribute__((vector_size(16))) best_triangle;
  std::memcpy(&best_triangle, scratch.best_triangle.data() + n, sizeof best_triangle);
  const LaneMask old_triangle = __builtin_convertvector(best_triangle, LaneMask);
  const LaneMask take = (d2 < best) | ((d2 == best) & (static_cast<std::int64_t>(t) < old_triangle));
  Lanes distance;
  sqrt_lanes(d2, distance);
  const Lanes new_best = take ? d2 : best, new_reach = take ? (reach < distance ? reach : distance) : reach;
  const LaneMask new_triangle = take ? LaneMask{t, t, t, t} : old_triangle;
  best_triangle = __builtin_convertvector(new_triangle, decltype(best_triangle));
  std::memcpy(scratch.best_d2.data() + n, &new_best, sizeof new_best);
  std::memcpy(scratch.best_triangle.data() + n, &best_triangle, sizeof best_triangle);
  std::memcpy(scratch.node_reach.data() + n, &new_reach, sizeof new_reach);
}

/// Nodes next to a set of brick nodes (one word per layer k, bit 8j + i), not
/// counting the set itself.
inline std::array<std::uint64_t, 8> lattice_neighbours(const std::array<std::uint64_t, 8>& set) noexcept {
  constexpr std::uint64_t kFirstColumn = 0x0101010101010101ull, kLastColumn = 0x8080808080808080ull;
  std::array<std::uint64_t, 8> next{};
  for (std::size_t k = 0; k < 8; ++k) {
    const std::uint64_t layer = set[k];
    next[k] = ((layer << 1) & ~kFirstColumn) | ((layer >> 1) & ~kLastColumn) | (layer << 8) | (layer >> 8) |
              (k > 0 ? set[k - 1] : 0) | (k < 7 ? set[k + 1] : 0);
  }
  return next;
}

/// The breadth-first sign fill from the signed band nodes (sign +1 or -1, 0 beyond
/// the band), one wave of the search at a time as bit sets. When no node of a wave
/// is next to nodes of both signs of the previous wave, every node's sign is the one
/// the queue gives, whatever its order: writes the clamps and returns true. Returns
/// false, writing nothing, when a wave has such a node (the queue decides there).
bool fill_by_waves(const std::array<std::int8_t, kBrickNodes>& sign, double band_width, double* out) noexcept {
  std::array<std::uint64_t, 8> outside{}, inside{}, reached{};
  for (std::size_t n = 0; n < kBrickNodes; ++n) {
    const std::uint64_t bit = std::uint64_t{1} << (n & 63);
    if (sign[n] > 0) outside[n >> 6] |= bit;
    if (sign[n] < 0) inside[n >> 6] |= bit;
  }
  for (std::size_t k = 0; k < 8; ++k) reached[k] = outside[k] | inside[k];
  std::array<std::uint64_t, 8> wave_outside = outside, wave_inside = inside, fill_outside{}, fill_inside{};
  for (bool growing = true; growing;) {
    const std::array<std::uint64_t, 8> next_outside = lattice_neighbours(wave_outside);
    const std::array<std::uint64_t, 8> next_inside = lattice_neighbours(wave_inside);
    growing = false;
    for (std::size_t k = 0; k < 8; ++k) {
      wave_outside[k] = next_outside[k] & ~reached[k];
      wave_inside[k] = next_inside[k] & ~reached[k];
      if ((wave_outside[k] & wave_inside[k]) != 0) return false;
      reached[k] |= wave_outside[k] | wave_inside[k];
      fill_outside[k] |= wave_outside[k];
      fill_inside[k] |= wave_inside[k];
      growing = growing || (wave_outside[k] | wave_inside[k]) != 0;
    }
  }
  for (std::size_t k = 0; k < 8; ++k) {
    for (std::uint64_t bits = fill_outside[k]; bits != 0; bits &= bits - 1)
      out[64 * k + static_cast<std::size_t>(std::countr_zero(bits))] = band_width;
    for (std::uint64_t bits = fill_inside[k]; bits != 0; bits &= bits - 1)
      out[64 * k + static_cast<std::size_t>(std::countr_zero(bits))] = -band_width;
  }
  return true;
}

/// Computes one brick's 512 values, exact and clamped, from its triangle list. Returns
/// false when no node lies within band*h of the mesh (values not written).
///
/// Triangles are tried about nearest first (by buckets of the gap between the
/// brick's centre and the triangle's ball), so each node's best distance drops early
/// and the culls skip most of the rest. Per triangle, the rows and layers its ball
/// reaches are found first; every node of them is then tested, a row at a time and
/// without branches, against the ball and the plane with its own reach, and the half
/// rows holding one that passes are computed (all four lanes, also those that failed:
/// a lane takes its node only by the rule of takes_node, so extra lanes never change
/// the result). Each test
/// compares a lower bound on the distance with the reach plus `slack`, more than the
/// rounding of any distance here, so a skipped triangle's squared distance is
/// strictly above the node's best (or above band*h, where a node reads the clamp
/// whatever triangle is nearest). With the tie rule of takes_node, each node ends with
/// the triangle that trying all of them in index order gives. The loops' trip counts
/// depend on the triangle's position only, not on the reaches: branches on freshly
/// computed tests mispredict often and cost more than the work they skip.
bool bake_mesh_brick(const PreparedMesh& mesh, const std::vector<TriangleData>& data, const std::uint32_t* list,
                     std::size_t list_size, std::int64_t key, double h, double band_width, double slack, double* out,
                     BrickScratch& scratch) {
  const BrickCoord b = brick_of(key);
  const std::int64_t x0 = b.bx * 8, y0 = b.by * 8, z0 = b.bz * 8;
  const BrickNodePositions positions = brick_node_positions(key, h);
  const std::array<double, 8>&xs = positions.x, &ys = positions.y, &zs = positions.z;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  scratch.best_d2.fill(kInfinity);
  scratch.node_reach.fill(band_width);
  scratch.best_triangle.fill(0);
  const double band_squared = band_width * band_width;
  const double inverse_h = 1 / h;
  const Vec3 brick_centre{(static_cast<double>(x0) + 3.5) * h, (static_cast<double>(y0) + 3.5) * h,
                          (static_cast<double>(z0) + 3.5) * h};

  // Triangles whose ball or plane is farther than band*h from the brick's box of
  // nodes cannot change any node; the others are ordered.
  const std::array<const std::array<double, 8>*, 3> axes{&xs, &ys, &zs};
  scratch.keyed.clear();
  scratch.bucket_start.fill(0);
  // Gaps are at most band*h + 3.5*sqrt(3)*h (the brick lists no farther triangle).
  const double bucket_scale = static_cast<double>(kOrderBuckets) / (band_width + 8 * h);
  for (std::size_t l = 0; l < list_size; ++l) {
    const TriangleData& tri = data[list[l]];
    double box_gap_squared = 0, plane_low = 0, plane_high = 0;
    for (std::size_t a = 0; a < 3; ++a) {
      const double first = (*axes[a])[0], last = (*axes[a])[7];
      const double gap = std::max({first - tri.centre[a], tri.centre[a] - last, 0.0});
      box_gap_squared += gap * gap;
      // The plane is linear, so its extremes over the box are sums of per-axis extremes.
      const double at_first = (first - tri.a[a]) * tri.unit_normal[a], at_last = (last - tri.a[a]) * tri.unit_normal[a];
      plane_low += std::min(at_first, at_last);
      plane_high += std::max(at_first, at_last);
    }
    const double limit = band_width + tri.radius + slack;
    if (box_gap_squared > limit * limit || std::max(plane_low, -plane_high) > band_width + slack) continue;
    const Vec3 to_ball = sub3(tri.centre, brick_centre);
    // Nearer buckets first (a counting sort, without the branches of a comparison
    // sort); the order only sets how fast the reaches drop, never a value.
    const double scaled = std::max(std::sqrt(dot3(to_ball, to_ball)) - tri.radius, 0.0) * bucket_scale;
    const std::uint64_t bucket = scaled < kOrderBuckets - 1 ? static_cast<std::uint64_t>(scaled) : kOrderBuckets - 1;
    scratch.keyed.push_back(bucket << 32 | list[l]);
    ++scratch.bucket_start[bucket + 1];
  }
  for (std::size_t bucket = 1; bucket <= kOrderBuckets; ++bucket) scratch.bucket_start[bucket] += scratch.bucket_start[bucket - 1];
  scratch.order.resize(scratch.keyed.size());
  for (const std::uint64_t entry : scratch.keyed)
    scratch.order[scratch.bucket_start[entry >> 32]++] = static_cast<std::uint32_t>(entry);

  // Reaches start from upper bounds: a node is no farther from a triangle than from
  // its centroid (the node nearest each centroid gets that distance, plus slack for
  // rounding), and no farther than a lattice neighbour's bound plus one step (h with
  // a margin). Smaller reaches from the start let the culls skip more.
  for (const std::uint32_t t : scratch.order) {
    const TriangleData& tri = data[t];
    std::array<std::size_t, 3> at{};
    bool inside = true;
    for (std::size_t a = 0; a < 3; ++a) {
      const double offset = std::floor(tri.centre[a] * inverse_h + 0.5) - static_cast<double>(a == 0 ? x0 : (a == 1 ? y0 : z0));
      inside = inside && offset >= 0 && offset <= 7;
      at[a] = inside ? static_cast<std::size_t>(offset) : 0;
    }
    if (!inside) continue;
    const Vec3 to_centre = sub3({xs[at[0]], ys[at[1]], zs[at[2]]}, tri.centre);
    const std::size_t n = at[0] + 8 * at[1] + 64 * at[2];
    scratch.node_reach[n] = std::min(scratch.node_reach[n], std::sqrt(dot3(to_centre, to_centre)) + slack);
  }
  const double step = h * (1 + 1e-12) + slack;
  double* bound = scratch.node_reach.data();
  for (std::size_t line = 0; line < 64; ++line) {  // along x: rows of 8
    double* r = bound + 8 * line;
    for (std::size_t i = 1; i < 8; ++i) r[i] = std::min(r[i], r[i - 1] + step);
    for (std::size_t i = 7; i-- > 0;) r[i] = std::min(r[i], r[i + 1] + step);
  }
  for (std::size_t k = 0; k < 8; ++k) {  // along y: whole rows at once
    double* layer = bound + 64 * k;
    for (std::size_t j = 1; j < 8; ++j)
      for (std::size_t i = 0; i < 8; ++i) layer[8 * j + i] = std::min(layer[8 * j + i], layer[8 * j - 8 + i] + step);
    for (std::size_t j = 7; j-- > 0;)
      for (std::size_t i = 0; i < 8; ++i) layer[8 * j + i] = std::min(layer[8 * j + i], layer[8 * j + 8 + i] + step);
  }
  for (std::size_t n = 64; n < kBrickNodes; ++n) bound[n] = std::min(bound[n], bound[n - 64] + step);  // along z
  for (std::size_t n = kBrickNodes - 64; n-- > 0;) bound[n] = std::min(bound[n], bound[n + 64] + step);

  for (const std::uint32_t t : scratch.order) {
    const TriangleData& tri = data[t];
    const double ball = tri.radius + slack;
    const double reach = band_width + ball;
    const double reach_squared = reach * reach;
    // Per node of a row: squared x distance to the ball's centre and the plane's x
    // term; per row of a layer: the same in y; per row, the smallest x distance.
    const Vec3& normal = tri.unit_normal;
    std::array<Lanes, 2> dx2{}, plane_x{};
    for (std::size_t half = 0; half < 2; ++half) {
      Lanes x;
      std::memcpy(&x, xs.data() + 4 * half, sizeof x);
      const Lanes dx = x - tri.centre[0];
      dx2[half] = dx * dx;
      plane_x[half] = (x - tri.a[0]) * normal[0];
    }
    const double gap = std::max({xs[0] - tri.centre[0], tri.centre[0] - xs[7], 0.0});
    const double gap_x2 = gap * gap;
    // Rows and layers the ball may reach: a node's test below, with its reach at most
    // band*h and its x distance at least the row's smallest, rounds to no less than
    // these tests. Those that pass are contiguous (dy2 and dz2 fall, then rise), so
    // the loops below have one trip count per triangle.
    std::array<double, 8> dy2{}, plane_y{}, dz2{};
    unsigned rows = 0, layers = 0;
    for (std::size_t group = 0; group < 2; ++group) {
      Lanes y, z;
      std::memcpy(&y, ys.data() + 4 * group, sizeof y);
      std::memcpy(&z, zs.data() + 4 * group, sizeof z);
      const Lanes dy = y - tri.centre[1], dz = z - tri.centre[2];
      const Lanes group_dy2 = dy * dy, group_plane_y = (y - tri.a[1]) * normal[1], group_dz2 = dz * dz;
      std::memcpy(dy2.data() + 4 * group, &group_dy2, sizeof group_dy2);
      std::memcpy(plane_y.data() + 4 * group, &group_plane_y, sizeof group_plane_y);
      std::memcpy(dz2.data() + 4 * group, &group_dz2, sizeof group_dz2);
      rows |= lane_bits(group_dy2 + gap_x2 <= reach_squared) << (4 * group);
      layers |= lane_bits(gap_x2 + group_dz2 <= reach_squared) << (4 * group);
    }
    if (rows == 0 || layers == 0) continue;
    const auto row_first = static_cast<std::size_t>(std::countr_zero(rows));
    const auto row_end = static_cast<std::size_t>(32 - std::countl_zero(rows));
    const auto layer_first = static_cast<std::size_t>(std::countr_zero(layers));
    const auto layer_end = static_cast<std::size_t>(32 - std::countl_zero(layers));
    // Nodes of each layer (bit 8j + i) that have both the ball and the plane within
    // their reach, a row at a time without branches, and the half rows holding one
    // (bit 16k + 2j + half). A node's reach changes only when its own half row is
    // computed, so testing every layer first tests each node with the reach it has
    // when its half row comes.
    std::array<std::uint64_t, 8> near{};
    std::array<std::uint64_t, 2> candidates{};
#if defined(__AVX512F__)
    __m512d row_dx2, row_plane_x;
    std::memcpy(&row_dx2, dx2.data(), sizeof row_dx2);
    std::memcpy(&row_plane_x, plane_x.data(), sizeof row_plane_x);
#endif
    for (std::size_t k = layer_first; k < layer_end; ++k) {
      const double plane_z = (zs[k] - tri.a[2]) * normal[2];
      std::uint64_t layer = 0;
#if defined(__AVX512F__)
      for (std::size_t j = row_first; j < row_end; ++j) {
        const double yz2 = dy2[j] + dz2[k], plane_yz = plane_y[j] + plane_z;
        const __m512d node_reach = _mm512_loadu_pd(scratch.node_reach.data() + 64 * k + 8 * j);
        const __m512d limit = _mm512_add_pd(node_reach, _mm512_set1_pd(ball));
        const __m512d plane_limit = _mm512_add_pd(node_reach, _mm512_set1_pd(slack));
        const __m512d plane = _mm512_add_pd(row_plane_x, _mm512_set1_pd(plane_yz));
        __mmask8 within = _mm512_cmp_pd_mask(_mm512_add_pd(row_dx2, _mm512_set1_pd(yz2)), _mm512_mul_pd(limit, limit), _CMP_LE_OQ);
        within = _mm512_mask_cmp_pd_mask(within, plane, plane_limit, _CMP_LE_OQ);
        within = _mm512_mask_cmp_pd_mask(within, _mm512_sub_pd(_mm512_setzero_pd(), plane), plane_limit, _CMP_LE_OQ);
        layer |= std::uint64_t{within} << (8 * j);
      }
#else
      for (std::size_t j = row_first; j < row_end; ++j) {
        const double yz2 = dy2[j] + dz2[k], plane_yz = plane_y[j] + plane_z;
        for (std::size_t half = 0; half < 2; ++half) {
          Lanes node_reach;
          std::memcpy(&node_reach, scratch.node_reach.data() + 64 * k + 8 * j + 4 * half, sizeof node_reach);
          const Lanes limit = node_reach + ball, plane_limit = node_reach + slack;
          const Lanes plane = plane_x[half] + plane_yz;
          const LaneMask within = (dx2[half] + yz2 <= limit * limit) & (plane <= plane_limit) & (-plane <= plane_limit);
          layer |= std::uint64_t{lane_bits(within)} << (8 * j + 4 * half);
        }
      }
#endif
      near[k] = layer;
      const std::uint64_t any = layer | layer >> 1;
      candidates[k >> 2] |= nibble_bits((any | any >> 2) & 0x1111111111111111ull) << (16 * (k & 3));
    }
    if ((candidates[0] | candidates[1]) == 0) continue;
    const TriangleFrame frame(tri);
    for (std::size_t word = 0; word < 2; ++word)
      for (std::uint64_t bits = candidates[word]; bits != 0; bits &= bits - 1) {
        const std::size_t position = 64 * word + static_cast<std::size_t>(std::countr_zero(bits));
        const std::size_t k = position >> 4, j = (position >> 1) & 7, half = position & 1;
        const std::size_t n = 64 * k + 8 * j + 4 * half;
        if (tri.usable) {
          Lanes px;
          std::memcpy(&px, xs.data() + 4 * half, sizeof px);
          nearest_in_half_row(frame, tri, t, px, ys[j], zs[k], n, scratch);
          continue;
        }
        const auto within = static_cast<unsigned>(near[k] >> (n & 63)) & 0xFu;
        for (std::size_t i = 0; i < 4; ++i) {
          if (((within >> i) & 1u) == 0) continue;
          const double d2 = closest_point_on_triangle({xs[4 * half + i], ys[j], zs[k]}, tri.a, tri.b, tri.c).distance_squared;
          if (takes_node(d2, t, scratch.best_d2[n + i], scratch.best_triangle[n + i])) {
            scratch.best_d2[n + i] = d2;
            scratch.best_triangle[n + i] = t;
            scratch.node_reach[n + i] = std::min(std::sqrt(d2), scratch.node_reach[n + i]);
          }
        }
      }
  }

  // Nodes within the band: exact distance, sign from the closest feature's pseudo-normal.
  std::size_t queue_end = 0;
  bool outside_seen = false, inside_seen = false;
  for (std::size_t n = 0; n < kBrickNodes; ++n) {
    scratch.sign[n] = 0;
    if (scratch.best_d2[n] <= band_squared) scratch.queue[queue_end++] = static_cast<std::uint16_t>(n);
  }
  if (queue_end == 0) return false;
  for (std::size_t first = 0; first < queue_end; first += 4) {
    // Four nodes at a time; a short last group repeats its first node.
    std::array<std::uint32_t, 4> triangles{};
    LanePoints p{};
    for (std::size_t i = 0; i < 4; ++i) {
      const std::size_t n = scratch.queue[first + i < queue_end ? first + i : first];
      triangles[i] = scratch.best_triangle[n];
      p.x[i] = xs[n & 7], p.y[i] = ys[(n >> 3) & 7], p.z[i] = zs[n >> 6];
    }
    const std::array<double, 4> values = signed_distances(mesh, data, triangles, p);
    for (std::size_t i = 0; i < 4 && first + i < queue_end; ++i) {
      const std::size_t n = scratch.queue[first + i];
      const double v = values[i];
      const bool inside = std::signbit(v);  // -0 reads inside
      scratch.sign[n] = inside ? std::int8_t{-1} : std::int8_t{1};
      inside_seen = inside_seen || inside;
      outside_seen = outside_seen || !inside;
      out[n] = v < -band_width ? -band_width : (v > band_width ? band_width : v);
    }
  }
  if (queue_end == kBrickNodes) return true;
  if (!inside_seen || !outside_seen) {
    // One sign in the band: the breadth-first fill below would give it to every other node.
    const double clamp = inside_seen ? -band_width : band_width;
    for (std::size_t n = 0; n < kBrickNodes; ++n)
      if (scratch.sign[n] == 0) out[n] = clamp;
    return true;
  }

  // Nodes beyond the band: no surface lies within band*h >= h of them, so the segment
  // to any lattice neighbour does not cross it and they share its sign. Breadth-first
  // from the nodes in the band reaches every node of the brick; a node takes the sign
  // of the first node of the previous wave, in queue order, next to it.
  if (fill_by_waves(scratch.sign, band_width, out)) return true;
  for (std::size_t at = 0; at < queue_end; ++at) {
    const std::size_t n = scratch.queue[at];
    const std::size_t i = n & 7, j = (n >> 3) & 7, k = n >> 6;
    const std::int8_t s = scratch.sign[n];
    auto visit = [&](std::size_t m) {
      if (scratch.sign[m] != 0) return;
      scratch.sign[m] = s;
      out[m] = s < 0 ? -band_width : band_width;
      scratch.queue[queue_end++] = static_cast<std::uint16_t>(m);
    };
    if (i > 0) visit(n - 1);
    if (i < 7) visit(n + 1);
    if (j > 0) visit(n - 8);
    if (j < 7) visit(n + 8);
    if (k > 0) visit(n - 64);
    if (k < 7) visit(n + 64);
  }
  return true;
}

/// Crossings of the ray {(x, y, z) : x real} with the triangles listed, as x values.
/// Returns false when the ray touches a triangle's edge or corner exactly (an edge
/// function is 0 and the others do not disagree): such a ray is retried shifted.
/// A shared edge's function is computed from the same translated corners in both
/// triangles with the factors swapped, so it is exactly negated: a ray never counts
/// a crossing twice or misses it between two neighbours.
bool ray_crossings(const std::vector<TriangleData>& data, const std::uint32_t* list, std::size_t list_size, double y,
                   double z, std::vector<double>& xs) {
  xs.clear();
  bool clean = true;
  for (std::size_t l = 0; l < list_size; ++l) {
    const TriangleData& t = data[list[l]];
    const double ay = t.a[1] - y, az = t.a[2] - z, by = t.b[1] - y, bz = t.b[2] - z, cy = t.c[1] - y, cz = t.c[2] - z;
    const double w0 = by * cz - bz * cy, w1 = cy * az - cz * ay, w2 = ay * bz - az * by;
    // Counted only when all three edge functions have the same strict sign, so w0 + w1 + w2 != 0.
    if ((w0 > 0 && w1 > 0 && w2 > 0) || (w0 < 0 && w1 < 0 && w2 < 0))
      xs.push_back((w0 * t.a[0] + w1 * t.b[0] + w2 * t.c[0]) / (w0 + w1 + w2));
    else if ((w0 >= 0 && w1 >= 0 && w2 >= 0) || (w0 <= 0 && w1 <= 0 && w2 <= 0))
      clean = false;
  }
  return clean;
}

/// Offsets of the parity ray from the row's centre line, in voxels, per attempt.
constexpr std::array<std::array<double, 2>, 3> kRayOffsets{{{1.2345e-3, 2.71828e-3}, {-3.14159e-3, 1.41421e-3}, {5.7721e-3, -4.6692e-3}}};

// Bytes the bake holds besides the grid: per triangle its TriangleData and where its
// pairs end; per pair its cell while pairing and its list entry while the lists are
// filled; per brick its cell and count, list start, key, target and flags, a list
// cursor per thread while the lists are filled, and a hashed slot when the brick
// range is too wide for the dense map.
constexpr double kTriangleBytes = sizeof(TriangleData) + 4;
constexpr double kPairBytes = 8 + 4;
constexpr double kBrickBookkeepingBytes = 64 + 64;

/// Peak bytes of a bake with these counts (in double, so huge counts cannot wrap).
double mesh_bake_bytes(double triangles, double pairs, double bricks, double inside, std::size_t brick_bytes) {
  const double per_stored = static_cast<double>(planned_grid_bytes(1, 0, brick_bytes));
  const double per_inside = static_cast<double>(planned_grid_bytes(0, 1, brick_bytes));
  return triangles * kTriangleBytes + pairs * kPairBytes + bricks * (kBrickBookkeepingBytes + per_stored) +
         inside * per_inside;
}

/// x rounded up to a whole count, saturating at 2^64 - 1.
std::uint64_t saturated_count(double x) noexcept {
  if (!(x > 0)) return 0;
  if (x >= 0x1p64) return std::numeric_limits<std::uint64_t>::max();
  return static_cast<std::uint64_t>(std::ceil(x));
}

std::string h_text(double h) {
  char text[40];
  std::snprintf(text, sizeof text, "%.6g", h);
  return text;
}

[[noreturn]] void refuse_memory(const std::string& what, const std::string& need, double bytes, std::uint64_t budget) {
  throw Error(ErrorCode::toolarge, what + ": " + need + " need about " + format_bytes(saturated_count(bytes)) +
                                       ", over the memory budget of " + format_bytes(budget) +
                                       " (raise it with --max-memory, or use a larger h)");
}

/// Throws Error(toolarge) naming `what` and the estimate when its bytes exceed `budget`.
void check_estimate(const MeshBakeEstimate& e, const std::string& what, std::uint64_t budget) {
  if (e.bytes <= budget) return;
  refuse_memory(what,
                "about " + std::to_string(e.bricks) + " bricks to compute, " + std::to_string(e.inside_bricks) +
                    " inside and " + std::to_string(e.pairs) + " triangle-brick pairs (" + std::to_string(e.triangles) +
                    " triangles)",
                static_cast<double>(e.bytes), budget);
}

}  // namespace

MeshBakeEstimate estimate_mesh_bake(const std::vector<Vec3>& positions,
                                    const std::vector<std::array<std::uint32_t, 3>>& triangles, double h, double band,
                                    std::size_t brick_bytes) {
  MeshBakeEstimate estimate;
  const double reach = (band + kBrickBallRadiusVoxels) * h, brick = 8 * h;
  const double ball = 4 * std::numbers::pi / 3 * reach * reach * reach, brick_volume = brick * brick * brick;
  double pairs = 0, area = 0, volume = 0;
  Box box{};
  for (const auto& t : triangles) {
    if (t[0] >= positions.size() || t[1] >= positions.size() || t[2] >= positions.size()) continue;
    const Vec3 &a = positions[t[0]], &b = positions[t[1]], &c = positions[t[2]];
    const Vec3 ab = sub3(b, a), bc = sub3(c, b), ca = sub3(a, c);
    const Vec3 n = detail::cross3(ab, sub3(c, a));
    const double triangle_area = std::sqrt(dot3(n, n)) / 2;
    const double perimeter = std::sqrt(dot3(ab, ab)) + std::sqrt(dot3(bc, bc)) + std::sqrt(dot3(ca, ca));
    if (!std::isfinite(triangle_area) || !std::isfinite(perimeter)) continue;
    pairs += 2 * reach * triangle_area + std::numbers::pi / 2 * perimeter * reach * reach + ball;
    area += triangle_area;
    volume += dot3(a, detail::cross3(b, c)) / 6;
    if (estimate.triangles++ == 0) box = {a, a};
    for (std::size_t k = 0; k < 3; ++k) {
      box.lo[k] = std::min({box.lo[k], a[k], b[k], c[k]});
      box.hi[k] = std::max({box.hi[k], a[k], b[k], c[k]});
    }
  }
  if (estimate.triangles == 0 || !(brick_volume > 0)) return estimate;
  std::array<double, 3> span{};  // bricks of the range per axis
  for (std::size_t k = 0; k < 3; ++k)
    span[k] = std::floor((box.hi[k] + band * h) / brick) - std::floor((box.lo[k] - band * h) / brick) + 1;
  const double considered = span[0] * span[1] * span[2];
  pairs /= brick_volume;
  const double bricks = std::min({pairs, (2 * reach * area + ball) / brick_volume, considered});
  const double inside = std::min(std::max(0.0, std::fabs(volume) - area * reach) / brick_volume, considered);
  estimate.pairs = saturated_count(pairs);
  estimate.bricks = saturated_count(bricks);
  estimate.inside_bricks = saturated_count(inside);
  // Parity keeps where each row of bricks (along x) starts its triangle list.
  const double row_bytes = span[1] * span[2] * 8;
  estimate.bytes = saturated_count(
      mesh_bake_bytes(static_cast<double>(estimate.triangles), pairs, bricks, inside, brick_bytes) + row_bytes);
  return estimate;
}

void check_mesh_bake_memory(const std::vector<Vec3>& positions,
                            const std::vector<std::array<std::uint32_t, 3>>& triangles,
                            const MeshBakeSettings& settings, std::size_t brick_bytes, const std::string& what) {
  check_estimate(estimate_mesh_bake(positions, triangles, settings.h, settings.band, brick_bytes),
                 what + " at h = " + h_text(settings.h), settings.max_memory_bytes);
}

template <class S>
Grid<S> bake_mesh(const PreparedMesh& mesh, const MeshBakeSettings& settings, const PhaseProgressFn& progress,
                  MeshBakeStats* stats_out) {
  BakeSettings check;
  check.h = settings.h;
  check.band = settings.band;
  check_bake_settings(check);
  const double h = settings.h, band_width = settings.band * settings.h;
  MeshBakeStats stats;
  stats.triangles = mesh.triangles.size();
  stats.trusted = mesh.report.solid();
  Grid<S> grid(h, settings.band);
  if (mesh.triangles.empty()) {
    if (stats_out) *stats_out = stats;
    return grid;
  }
  const std::string what = mesh.source + " at h = " + h_text(h);
  // One pass over the triangles: checked now, its inside bricks used again once the pairs are known.
  const MeshBakeEstimate estimate = estimate_mesh_bake(mesh.positions, mesh.triangles, h, settings.band, kMaxBrickBytes<S>);
  check_estimate(estimate, what, settings.max_memory_bytes);
  auto report = [&](const char* phase, std::size_t done, std::size_t total) {
    if (progress) progress(phase, done, total);
  };

  // Triangle corners, balls and frames; the mesh box grown by band*h gives the brick range.
  std::vector<TriangleData> data(mesh.triangles.size());
  detail::parallel_chunks(data.size(), settings.threads, 4096, [&](std::size_t begin, std::size_t end) {
    for (std::size_t t = begin; t < end; ++t) {
      const auto& tri = mesh.triangles[t];
      data[t] = TriangleData(mesh.positions[tri[0]], mesh.positions[tri[1]], mesh.positions[tri[2]]);
    }
  }, [](std::size_t) {});
  Box box{{mesh.positions[mesh.triangles[0][0]]}, {mesh.positions[mesh.triangles[0][0]]}};
  for (const TriangleData& d : data) {
    for (std::size_t a = 0; a < 3; ++a) {
      box.lo[a] = std::min({box.lo[a], d.a[a], d.b[a], d.c[a]});
      box.hi[a] = std::max({box.hi[a], d.a[a], d.b[a], d.c[a]});
    }
  }
  Box padded = box;
  double scale = 0;  // largest coordinate magnitude of any node or corner considered
  for (std::size_t a = 0; a < 3; ++a) {
    padded.lo[a] -= band_width;
    padded.hi[a] += band_width;
    scale = std::max({scale, std::abs(padded.lo[a]), std::abs(padded.hi[a])});
  }
  // Rounding of a coordinate difference, a distance or a squared distance here is a
  // few ulps of `scale` (or of the distance, which is smaller): 1e-12 * scale is far
  // more, so culls that keep this much margin never drop a triangle they should keep.
  const double slack = 1e-12 * scale;
  const std::array<std::int64_t, 6> range = plan_brick_range(padded, h);
  const std::array<std::int64_t, 3> lo{range[0], range[1], range[2]}, hi{range[3], range[4], range[5]};
  stats.bricks_considered = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);

  // Bricks to compute and their triangles: a brick lists every triangle within
  // band*h + 3.5*sqrt(3)*h of its centre (so every triangle within band*h of a node).
  // Chunks of triangles find their bricks in parallel (counting them as they go);
  // the bricks are then ranked in key order and each brick's list is sorted, so
  // slots and lists do not depend on the thread count.
  const double brick_reach = (band_width + kBrickBallRadiusVoxels * h) * (1 + 1e-12);
  const double brick_reach_squared = brick_reach * brick_reach;
  BrickSlots slots(lo, hi);
  // Bricks b in [lo_b, hi_b] whose centre (8b + 3.5)h may lie within `half` of
  // `centre`; the bounds are rounded outwards (floor, ceil), so their rounding errors,
  // far below one brick, cannot drop one.
  const double inverse_brick = 1 / (8 * h);
  auto brick_centres_within = [&](double centre, double half, std::int64_t lo_b, std::int64_t hi_b) {
    return std::array<std::int64_t, 2>{
        std::max(lo_b, static_cast<std::int64_t>(std::floor((centre - half) * inverse_brick - 3.5 / 8))),
        std::min(hi_b, static_cast<std::int64_t>(std::ceil((centre + half) * inverse_brick - 3.5 / 8)))};
  };
  constexpr std::size_t kPairChunk = 4096;
  // Per chunk of triangles: the cells each triangle reaches, in triangle order, and
  // where each triangle's cells end (8 bytes a pair rather than 16 with the index).
  struct ChunkPairs {
    std::vector<std::int64_t> cells;
    std::vector<std::uint32_t> ends;
  };
  std::vector<ChunkPairs> chunk_pairs((data.size() + kPairChunk - 1) / kPairChunk);
  // Pairs found so far by all threads, checked against the budget as they grow.
  std::atomic<std::uint64_t> pairs_found{0};
  const double triangle_bytes = static_cast<double>(data.size()) * kTriangleBytes;
  detail::parallel_chunks(data.size(), settings.threads, kPairChunk, [&](std::size_t begin, std::size_t end) {
    ChunkPairs& found = chunk_pairs[begin / kPairChunk];
    for (std::size_t t = begin; t < end; ++t) {
      throw_if_interrupted();
      const std::size_t cells_before = found.cells.size();
      const TriangleData& d = data[t];
      // Bricks whose centres may lie within the ball's reach, axis by axis: the x
      // range of the ball, then per column the y and z ranges of its cross-sections.
      // The reach is widened by 1e-9 and the ranges rounded outwards, so rounding
      // never drops a brick; the tests below decide.
      const double ball_reach = (brick_reach + d.radius) * (1 + 1e-9);
      const double ball_reach_squared = ball_reach * ball_reach;
      const auto x_range = brick_centres_within(d.centre[0], ball_reach, lo[0], hi[0]);
      for (std::int64_t bx = x_range[0]; bx <= x_range[1]; ++bx) {
        const double cx = (static_cast<double>(bx * 8) + 3.5) * h;
        const double dx2 = (cx - d.centre[0]) * (cx - d.centre[0]);
        if (dx2 > ball_reach_squared) continue;
        const auto y_range = brick_centres_within(d.centre[1], std::sqrt(ball_reach_squared - dx2), lo[1], hi[1]);
        for (std::int64_t by = y_range[0]; by <= y_range[1]; ++by) {
          const double cy = (static_cast<double>(by * 8) + 3.5) * h;
          const double dxy2 = dx2 + (cy - d.centre[1]) * (cy - d.centre[1]);
          if (dxy2 > ball_reach_squared) continue;
          const auto z_range = brick_centres_within(d.centre[2], std::sqrt(ball_reach_squared - dxy2), lo[2], hi[2]);
          for (std::int64_t bz = z_range[0]; bz <= z_range[1]; ++bz) {
            const Vec3 centre{cx, cy, (static_cast<double>(bz * 8) + 3.5) * h};
            const Vec3 to_ball = sub3(centre, d.centre);
            const double centre_distance = std::sqrt(dot3(to_ball, to_ball));
            if (centre_distance - d.radius > brick_reach) continue;
            // The exact test decides only when the centroid, a point of the triangle, is
            // not well within reach (the triangle is then surely within it as well).
            const bool surely_within = centre_distance * (1 + 1e-12) + slack < brick_reach;
            if (!surely_within && closest_point_on_triangle(centre, d.a, d.b, d.c).distance_squared > brick_reach_squared)
              continue;
            const std::int64_t cell = slots.cell(bx - lo[0], by - lo[1], bz - lo[2]);
            found.cells.push_back(cell);
            if (slots.dense()) slots.count(cell);
          }
        }
      }
      found.ends.push_back(static_cast<std::uint32_t>(found.cells.size()));
      const std::uint64_t pairs = pairs_found += found.cells.size() - cells_before;
      if (triangle_bytes + static_cast<double>(pairs) * kPairBytes > static_cast<double>(settings.max_memory_bytes))
        refuse_memory(what, "more than " + std::to_string(pairs) + " triangle-brick pairs",
                      triangle_bytes + static_cast<double>(pairs) * kPairBytes, settings.max_memory_bytes);
    }
    found.cells.shrink_to_fit();  // all chunks are held at once: no growth slack
  }, [&](std::size_t done) { report("pairing", done, data.size()); });
  if (!slots.dense())
    for (const ChunkPairs& found : chunk_pairs) {
      throw_if_interrupted();
      for (std::int64_t cell : found.cells) slots.count(cell);
    }
  // Bricks in ascending key order; each brick's triangles in ascending order: each
  // chunk of triangles learns where its part of every brick's list begins (the pairs
  // of the chunks before it), then writes its pairs there, all chunks at once.
  const std::vector<std::pair<std::int64_t, std::uint32_t>> listed = slots.rank();
  BinLists brick_lists;
  {
    std::vector<std::size_t> count(listed.size());
    for (std::size_t r = 0; r < listed.size(); ++r) count[r] = listed[r].second;
    brick_lists.size(count);
  }
  struct ChunkBricks {
    std::vector<std::uint32_t> rank;       // the bricks the chunk's pairs list, by first appearance
    std::vector<std::size_t> first;        // pairs of that brick in the chunk, then where they begin
  };
  std::vector<ChunkBricks> chunk_bricks(chunk_pairs.size());
  const auto per_thread = [&](unsigned) { return std::vector<std::size_t>(listed.size(), ~std::size_t{0}); };
  detail::parallel_chunks_with_state(chunk_pairs.size(), settings.threads, 1, per_thread,
      [&](std::vector<std::size_t>& at, std::size_t begin, std::size_t end) {
        for (std::size_t c = begin; c < end; ++c) {
          ChunkBricks& bricks = chunk_bricks[c];
          for (std::int64_t& cell : chunk_pairs[c].cells) {
            const std::uint32_t r = slots.rank_of(cell);
            cell = r;
            if (at[r] == ~std::size_t{0}) {
              at[r] = bricks.rank.size();
              bricks.rank.push_back(r);
              bricks.first.push_back(0);
            }
            ++bricks.first[at[r]];
          }
          for (std::uint32_t r : bricks.rank) at[r] = ~std::size_t{0};
        }
      }, [](std::size_t) {}, [] {});
  {
    std::vector<std::size_t> filled(brick_lists.start.begin(), brick_lists.start.end() - 1);
    for (ChunkBricks& bricks : chunk_bricks) {
      throw_if_interrupted();
      for (std::size_t k = 0; k < bricks.rank.size(); ++k) {
        const std::size_t pairs = bricks.first[k];
        bricks.first[k] = filled[bricks.rank[k]];
        filled[bricks.rank[k]] += pairs;
      }
    }
  }
  detail::parallel_chunks_with_state(chunk_pairs.size(), settings.threads, 1, per_thread,
      [&](std::vector<std::size_t>& cursor, std::size_t begin, std::size_t end) {
        for (std::size_t c = begin; c < end; ++c) {
          const ChunkBricks& bricks = chunk_bricks[c];
          for (std::size_t k = 0; k < bricks.rank.size(); ++k) cursor[bricks.rank[k]] = bricks.first[k];
          ChunkPairs& found = chunk_pairs[c];
          for (std::size_t i = 0, at = 0; i < found.ends.size(); ++i)
            for (; at < found.ends[i]; ++at)
              brick_lists.items[cursor[static_cast<std::size_t>(found.cells[at])]++] = static_cast<std::uint32_t>(c * kPairChunk + i);
          found = {};
          chunk_bricks[c] = {};
        }
      }, [](std::size_t) {}, [] {});
  const std::vector<std::size_t>& list_start = brick_lists.start;
  std::vector<std::uint32_t>& lists = brick_lists.items;
  stats.brick_triangle_pairs = lists.size();
  std::vector<std::int64_t> near_keys(listed.size());
  for (std::size_t r = 0; r < listed.size(); ++r) {
    const std::array<std::int64_t, 3> b = slots.brick(listed[r].first);
    near_keys[r] = brick_key(lo[0] + b[0], lo[1] + b[1], lo[2] + b[2]);
  }

  const double need = mesh_bake_bytes(static_cast<double>(data.size()), static_cast<double>(lists.size()),
                                      static_cast<double>(near_keys.size()), static_cast<double>(estimate.inside_bricks),
                                      kMaxBrickBytes<S>);
  if (need > static_cast<double>(settings.max_memory_bytes))
    refuse_memory(what, std::to_string(near_keys.size()) + " bricks to compute, about " +
                            std::to_string(estimate.inside_bricks) + " inside and " + std::to_string(lists.size()) +
                            " triangle-brick pairs",
                  need, settings.max_memory_bytes);
  grid.reserve(near_keys.size());
  for (std::int64_t key : near_keys) grid.add_brick_room(key);  // slot r holds near_keys[r]
  // A brick's exact values, encoded into its slot by the storage once known.
  std::array<double, kBrickNodes> all_outside, all_inside;
  all_outside.fill(band_width);
  all_inside.fill(-band_width);
  std::vector<std::uint8_t> beyond_band(near_keys.size(), 0);
  const std::size_t total = near_keys.size();
  detail::parallel_chunks(
      total, settings.threads, 16,
      [&](std::size_t begin, std::size_t end) {
        BrickScratch scratch;
        std::array<double, kBrickNodes> values;  // written by bake_mesh_brick when it returns true
        for (std::size_t r = begin; r < end; ++r) {
          throw_if_interrupted();
          if (bake_mesh_brick(mesh, data, lists.data() + list_start[r], list_start[r + 1] - list_start[r], near_keys[r],
                              h, band_width, slack, values.data(), scratch))
            grid.set_brick(r, values);
          else
            beyond_band[r] = 1;
        }
      },
      [&](std::size_t done) { report("distances", done, total); });

  // Parity: one ray along +x per row (by, bz) of bricks, near the row's centre line;
  // each row lists the triangles near it, and rows are cast in parallel.
  const std::int64_t rows_y = hi[1] - lo[1] + 1, rows_z = hi[2] - lo[2] + 1;
  const double ray_margin = 0.01 * h;  // more than any ray offset
  auto rows_of = [&](const TriangleData& d, std::size_t a) {
    const double t_lo = std::min({d.a[a], d.b[a], d.c[a]}) - ray_margin;
    const double t_hi = std::max({d.a[a], d.b[a], d.c[a]}) + ray_margin;
    return std::array<std::int64_t, 2>{std::max(lo[a], static_cast<std::int64_t>(std::floor((t_lo / h - 3.5) / 8))),
                                       std::min(hi[a], static_cast<std::int64_t>(std::ceil((t_hi / h - 3.5) / 8)))};
  };
  const auto for_each_row = [&](std::size_t t, auto&& visit) {
    const auto ry = rows_of(data[t], 1), rz = rows_of(data[t], 2);
    for (std::int64_t by = ry[0]; by <= ry[1]; ++by)
      for (std::int64_t bz = rz[0]; bz <= rz[1]; ++bz) visit(static_cast<std::size_t>((by - lo[1]) * rows_z + (bz - lo[2])));
  };
  // The rows' lists are not sorted: a row's crossings are, so its result does not
  // depend on the order of its list.
  BinLists row_lists;
  {
    std::vector<std::size_t> count(static_cast<std::size_t>(rows_y * rows_z), 0);
    detail::parallel_chunks(data.size(), settings.threads, 4096, [&](std::size_t begin, std::size_t end) {
      for (std::size_t t = begin; t < end; ++t)
        for_each_row(t, [&](std::size_t row) { std::atomic_ref<std::size_t>(count[row]).fetch_add(1, std::memory_order_relaxed); });
    }, [](std::size_t) {});
    brick_lists = {};
    row_lists.size(count);
    std::vector<std::size_t>& cursor = count;
    std::copy(row_lists.start.begin(), row_lists.start.end() - 1, cursor.begin());
    detail::parallel_chunks(data.size(), settings.threads, 4096, [&](std::size_t begin, std::size_t end) {
      for (std::size_t t = begin; t < end; ++t)
        for_each_row(t, [&](std::size_t row) {
          row_lists.items[std::atomic_ref<std::size_t>(cursor[row]).fetch_add(1, std::memory_order_relaxed)] = static_cast<std::uint32_t>(t);
        });
    }, [](std::size_t) {});
  }
  // Computed bricks with no node in the band, for the fill below (each lies in one row).
  std::unordered_map<std::int64_t, std::size_t> beyond_band_rank;
  for (std::size_t r = 0; r < near_keys.size(); ++r)
    if (beyond_band[r]) beyond_band_rank.emplace(near_keys[r], r);
  stats.bricks_beyond_band = beyond_band_rank.size();
  std::vector<std::uint8_t> filled(near_keys.size(), 0);
  // Per chunk of rows: the inside bricks not computed, and the rows' counts.
  struct RowChunk {
    std::vector<std::int64_t> inside;
    std::size_t rows = 0, rows_retried = 0, rows_unmarked = 0;
  };
  constexpr std::size_t kRowChunk = 64;
  const auto row_count = static_cast<std::size_t>(rows_y * rows_z);
  std::vector<RowChunk> row_chunks((row_count + kRowChunk - 1) / kRowChunk);
  report("parity", 0, row_count);
  detail::parallel_chunks(row_count, settings.threads, kRowChunk, [&](std::size_t begin, std::size_t end) {
    RowChunk& chunk = row_chunks[begin / kRowChunk];
    std::vector<double> crossings;
    for (std::size_t row = begin; row < end; ++row) {
      throw_if_interrupted();
      const std::size_t count = row_lists.start[row + 1] - row_lists.start[row];
      if (count == 0) continue;  // no triangle near the row: all outside
      const std::int64_t by = lo[1] + static_cast<std::int64_t>(row) / rows_z, bz = lo[2] + static_cast<std::int64_t>(row) % rows_z;
      ++chunk.rows;
      bool even = false;
      for (std::size_t attempt = 0; attempt < kRayOffsets.size() && !even; ++attempt) {
        if (attempt > 0) ++chunk.rows_retried;
        const double y = (static_cast<double>(by * 8) + 3.5 + kRayOffsets[attempt][0]) * h;
        const double z = (static_cast<double>(bz * 8) + 3.5 + kRayOffsets[attempt][1]) * h;
        const bool clean = ray_crossings(data, row_lists.items.data() + row_lists.start[row], count, y, z, crossings);
        even = clean && crossings.size() % 2 == 0;
      }
      if (!even) {
        // Odd, or touching an edge or corner, on every attempt: its far bricks stay
        // outside, its beyond-band bricks read +band*h.
        ++chunk.rows_unmarked;
        crossings.clear();
      }
      std::sort(crossings.begin(), crossings.end());
      std::size_t before = 0;
      for (std::int64_t bx = lo[0]; bx <= hi[0]; ++bx) {
        const double centre_x = (static_cast<double>(bx * 8) + 3.5) * h;
        while (before < crossings.size() && crossings[before] < centre_x) ++before;
        const bool inside = before % 2 == 1;
        const std::int64_t key = brick_key(bx, by, bz);
        if (const auto at = beyond_band_rank.find(key); at != beyond_band_rank.end()) {
          grid.set_brick(at->second, inside ? all_inside : all_outside);
          filled[at->second] = 1;
        } else if (inside && !std::binary_search(near_keys.begin(), near_keys.end(), key)) {
          chunk.inside.push_back(key);
        }
      }
    }
  }, [&](std::size_t done) { report("parity", done, row_count); });
  std::vector<std::int64_t> inside_keys;
  for (const RowChunk& chunk : row_chunks) {
    inside_keys.insert(inside_keys.end(), chunk.inside.begin(), chunk.inside.end());
    stats.rows += chunk.rows;
    stats.rows_retried += chunk.rows_retried;
    stats.rows_unmarked += chunk.rows_unmarked;
  }
  // Beyond-band bricks in rows no triangle comes near are outside.
  for (const auto& [key, r] : beyond_band_rank)
    if (filled[r] == 0) grid.set_brick(r, all_outside);
  grid.pack();
  std::sort(inside_keys.begin(), inside_keys.end());
  for (std::int64_t key : inside_keys) grid.add_inside(key);
  stats.bricks_computed = near_keys.size();
  stats.bricks_inside = inside_keys.size();
  if (stats_out) *stats_out = stats;
  return grid;
}

template Grid<float> bake_mesh<float>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&, MeshBakeStats*);
template Grid<double> bake_mesh<double>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&,
                                        MeshBakeStats*);
template Grid<Half> bake_mesh<Half>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&, MeshBakeStats*);
template Grid<Q16> bake_mesh<Q16>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&, MeshBakeStats*);
template Grid<Q8> bake_mesh<Q8>(const PreparedMesh&, const MeshBakeSettings&, const PhaseProgressFn&, MeshBakeStats*);

}  // namespace distgrid
