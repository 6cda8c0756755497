#include "distgrid/mesh_bake.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <limits>
#include <unordered_map>
#include <vector>

#include "distgrid/closest_point.hpp"
#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"
#include "distgrid/plan.hpp"

namespace distgrid {
namespace {

using detail::dot3;
using detail::sub3;

/// Four doubles operated on together (GCC/Clang vector extension).
using Lanes = double __attribute__((vector_size(32)));

/// A triangle's corners and a ball that holds it, stored together for locality.
struct TriangleData {
  Vec3 a, b, c;
  Vec3 centre;    ///< centroid
  double radius;  ///< largest corner distance from the centroid, rounded up
};

/// Map from a brick of the range [lo, hi] to its slot: a dense array when the range
/// holds at most 2^22 bricks (16 MiB at most), a hash map beyond.
class BrickSlots {
 public:
  static constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  BrickSlots(const std::array<std::int64_t, 3>& lo, const std::array<std::int64_t, 3>& hi) {
    for (std::size_t a = 0; a < 3; ++a) size_[a] = hi[a] - lo[a] + 1;
    const std::int64_t cells = size_[0] * size_[1] * size_[2];
    if (cells <= (std::int64_t{1} << 22)) dense_.assign(static_cast<std::size_t>(cells), kNone);
  }
  /// Slot of a brick (coordinates relative to lo); kNone until the caller sets it.
  std::uint32_t& at(std::int64_t x, std::int64_t y, std::int64_t z) {
    const std::int64_t cell = (x * size_[1] + y) * size_[2] + z;
    if (!dense_.empty()) return dense_[static_cast<std::size_t>(cell)];
    return hashed_.try_emplace(cell, kNone).first->second;
  }

 private:
  std::array<std::int64_t, 3> size_{};
  std::vector<std::uint32_t> dense_;
  std::unordered_map<std::int64_t, std::uint32_t> hashed_;
};

/// Per-thread arrays for one brick.
struct BrickScratch {
  std::array<double, kBrickNodes> best_d2{};
  std::array<double, kBrickNodes> best_root{};  // sqrt(best_d2), for the ball cull
  std::array<std::uint32_t, kBrickNodes> best_triangle{};
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

/// Squared distance from a point to a triangle without branches on the region:
/// the plane distance when the point projects inside, else the nearest of the three
/// edges as clamped segments. Used to find each node's nearest triangle; the winner's
/// closest point and feature then come from closest_point_on_triangle. Set up once
/// per (brick, triangle); `usable` is false when the normal under- or overflows.
struct TriangleFrame {
  Vec3 a, b, c, ab, bc, ca;
  double inverse_ab, inverse_bc, inverse_ca;  // 1 / squared edge lengths
  Vec3 inward_ab, inward_bc, inward_ca;       // n x edge: positive towards the inside
  Vec3 unit_normal;
  bool usable = false;

  explicit TriangleFrame(const TriangleData& t) noexcept
      : a(t.a), b(t.b), c(t.c), ab(sub3(t.b, t.a)), bc(sub3(t.c, t.b)), ca(sub3(t.a, t.c)) {
    const Vec3 n = detail::cross3(ab, sub3(c, a));
    const double nn = dot3(n, n), lab = dot3(ab, ab), lbc = dot3(bc, bc), lca = dot3(ca, ca);
    usable = nn > 0 && nn < 1e300 && lab > 0 && lbc > 0 && lca > 0;
    const double length = std::sqrt(nn);
    unit_normal = {n[0] / length, n[1] / length, n[2] / length};
    inverse_ab = 1 / lab;
    inverse_bc = 1 / lbc;
    inverse_ca = 1 / lca;
    inward_ab = detail::cross3(n, ab);
    inward_bc = detail::cross3(n, bc);
    inward_ca = detail::cross3(n, ca);
  }
  static double segment_squared(const Vec3& p, const Vec3& start, const Vec3& edge, double inverse_length) noexcept {
    const Vec3 sp = sub3(p, start);
    double t = dot3(sp, edge) * inverse_length;
    t = t < 0 ? 0 : (t > 1 ? 1 : t);
    const Vec3 w{sp[0] - t * edge[0], sp[1] - t * edge[1], sp[2] - t * edge[2]};
    return dot3(w, w);
  }
  double distance_squared(const Vec3& p) const noexcept {
    const Vec3 ap = sub3(p, a), bp = sub3(p, b), cp = sub3(p, c);
    const bool inside = dot3(ap, inward_ab) >= 0 && dot3(bp, inward_bc) >= 0 && dot3(cp, inward_ca) >= 0;
    const double plane = dot3(ap, unit_normal);
    const double edges = std::min({segment_squared(p, a, ab, inverse_ab), segment_squared(p, b, bc, inverse_bc),
                                   segment_squared(p, c, ca, inverse_ca)});
    return inside ? plane * plane : edges;
  }
};

/// The nearest-triangle step for one row of 8 nodes at (xs[i], y, z). A node tries
/// the triangle when its distance to the triangle's ball centre is within `reach`
/// and within its best distance so far plus the ball's radius (rounded up, so ties
/// are still tried); the triangle takes the node when its squared distance, the
/// same arithmetic as TriangleFrame::distance_squared, is strictly smaller (on a tie
/// the lower triangle index, listed first, keeps it). Every lane is computed and the
/// tests select, without branches, so the loop vectorises; each node ends with
/// exactly what a node-by-node test gives.
void nearest_in_row(const TriangleFrame& f, const TriangleData& tri, std::uint32_t t, const std::array<double, 8>& xs,
                    double y, double z, double dyz2, double reach_squared, std::size_t row, BrickScratch& scratch) noexcept {
  // Local copies: the compiler cannot otherwise tell the frame from the scratch arrays.
  const double cx = tri.centre[0], radius = tri.radius;
  const double ax = f.a[0], ay = f.a[1], az = f.a[2], bx = f.b[0], by = f.b[1], bz = f.b[2];
  const double qx = f.c[0], qy = f.c[1], qz = f.c[2];
  const double abx = f.ab[0], aby = f.ab[1], abz = f.ab[2], bcx = f.bc[0], bcy = f.bc[1], bcz = f.bc[2];
  const double cax = f.ca[0], cay = f.ca[1], caz = f.ca[2];
  const double iab = f.inverse_ab, ibc = f.inverse_bc, ica = f.inverse_ca;
  const double nabx = f.inward_ab[0], naby = f.inward_ab[1], nabz = f.inward_ab[2];
  const double nbcx = f.inward_bc[0], nbcy = f.inward_bc[1], nbcz = f.inward_bc[2];
  const double ncax = f.inward_ca[0], ncay = f.inward_ca[1], ncaz = f.inward_ca[2];
  const double nx = f.unit_normal[0], ny = f.unit_normal[1], nz = f.unit_normal[2];
  double* best_d2 = scratch.best_d2.data() + row;
  double* best_root = scratch.best_root.data() + row;
  std::uint32_t* best_triangle = scratch.best_triangle.data() + row;

  std::array<bool, 8> tries{};
  bool any = false;
  for (std::size_t i = 0; i < 8; ++i) {
    const double dx = xs[i] - cx;
    const double to_centre_squared = dx * dx + dyz2;
    const double bound = (best_root[i] + radius) * (1 + 1e-12);
    tries[i] = !(to_centre_squared > reach_squared) & !(to_centre_squared > bound * bound);
    any |= tries[i];
  }
  if (!any) return;
  // Squared distances of all eight nodes, four lanes at a time (GCC/Clang vector
  // extension; plain SSE2 pairs where AVX is not enabled). Each lane does the
  // arithmetic of TriangleFrame::distance_squared in the same order, so the same bits.
  const double apy = y - ay, apz = z - az, bpy = y - by, bpz = z - bz, cpy = y - qy, cpz = z - qz;
  const Lanes zero{0, 0, 0, 0}, one{1, 1, 1, 1};
  std::array<double, 8> d2{};
  for (std::size_t half = 0; half < 8; half += 4) {
    Lanes px;
    std::memcpy(&px, xs.data() + half, sizeof px);
    const Lanes apx = px - ax, bpx = px - bx, cpx = px - qx;
    const Lanes side_ab = apx * nabx + apy * naby + apz * nabz;
    const Lanes side_bc = bpx * nbcx + bpy * nbcy + bpz * nbcz;
    const Lanes side_ca = cpx * ncax + cpy * ncay + cpz * ncaz;
    const Lanes plane = apx * nx + apy * ny + apz * nz;
    // Segment parameters clamped to [0, 1], as TriangleFrame::segment_squared.
    Lanes s_ab = (apx * abx + apy * aby + apz * abz) * iab;
    Lanes s_bc = (bpx * bcx + bpy * bcy + bpz * bcz) * ibc;
    Lanes s_ca = (cpx * cax + cpy * cay + cpz * caz) * ica;
    s_ab = s_ab < zero ? zero : (s_ab > one ? one : s_ab);
    s_bc = s_bc < zero ? zero : (s_bc > one ? one : s_bc);
    s_ca = s_ca < zero ? zero : (s_ca > one ? one : s_ca);
    const Lanes wax = apx - s_ab * abx, way = apy - s_ab * aby, waz = apz - s_ab * abz;
    const Lanes wbx = bpx - s_bc * bcx, wby = bpy - s_bc * bcy, wbz = bpz - s_bc * bcz;
    const Lanes wcx = cpx - s_ca * cax, wcy = cpy - s_ca * cay, wcz = cpz - s_ca * caz;
    const Lanes e_ab = wax * wax + way * way + waz * waz;
    const Lanes e_bc = wbx * wbx + wby * wby + wbz * wbz;
    const Lanes e_ca = wcx * wcx + wcy * wcy + wcz * wcz;
    // The first smallest of (ab, bc, ca), as std::min({...}).
    Lanes edges = e_bc < e_ab ? e_bc : e_ab;
    edges = e_ca < edges ? e_ca : edges;
    const auto inside = (side_ab >= zero) & (side_bc >= zero) & (side_ca >= zero);
    const Lanes d = inside ? plane * plane : edges;
    std::memcpy(d2.data() + half, &d, sizeof d);
  }
  for (std::size_t i = 0; i < 8; ++i) {
    if (tries[i] && d2[i] < best_d2[i]) {
      best_d2[i] = d2[i];
      best_root[i] = std::sqrt(d2[i]);
      best_triangle[i] = t;
    }
  }
}

/// Nodes [first, end) of a brick (first node index `origin` on this axis) whose
/// coordinate may lie within `half` of `centre`, widened by one node each way because
/// multiplying by 1/h may round across a node.
std::array<std::size_t, 2> node_range(double centre, double half, double inverse_h, std::int64_t origin) noexcept {
  const double lo = std::ceil((centre - half) * inverse_h) - static_cast<double>(origin) - 1;
  const double hi = std::floor((centre + half) * inverse_h) - static_cast<double>(origin) + 1;
  const std::size_t first = lo <= 0 ? 0 : (lo >= 8 ? 8 : static_cast<std::size_t>(lo));
  const std::size_t end = hi < 0 ? 0 : (hi >= 7 ? 8 : static_cast<std::size_t>(hi) + 1);
  return {first, end};
}

/// Computes one brick's 512 values from its triangle list (ascending indices).
/// Returns false when no node lies within band*h of the mesh (values not written).
template <class S>
bool bake_mesh_brick(const PreparedMesh& mesh, const std::vector<TriangleData>& data, const std::uint32_t* list,
                     std::size_t list_size, std::int64_t key, double h, double band_width, S* out,
                     BrickScratch& scratch) {
  const BrickCoord b = brick_of(key);
  const std::int64_t x0 = b.bx * 8, y0 = b.by * 8, z0 = b.bz * 8;
  const BrickNodePositions positions = brick_node_positions(key, h);
  const std::array<double, 8>&xs = positions.x, &ys = positions.y, &zs = positions.z;
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  scratch.best_d2.fill(kInfinity);
  scratch.best_root.fill(kInfinity);
  const double band_squared = band_width * band_width;
  const double inverse_h = 1 / h;

  for (std::size_t l = 0; l < list_size; ++l) {
    const std::uint32_t t = list[l];
    const TriangleData& tri = data[t];
    // Nodes farther than band*h from the triangle's ball cannot take a value from it
    // inside the band; the reach is rounded up so the cull never drops a node it should not.
    const double reach = (band_width + tri.radius) * (1 + 1e-12);
    const double reach_squared = reach * reach;
    const TriangleFrame frame(tri);
    // Rows and layers of the brick the ball reaches, widened by one against rounding;
    // the squared tests below decide exactly.
    const std::array<std::size_t, 2> k_range = node_range(tri.centre[2], reach, inverse_h, z0);
    const std::array<std::size_t, 2> j_range = node_range(tri.centre[1], reach, inverse_h, y0);
    const std::array<std::size_t, 2> i_range = node_range(tri.centre[0], reach, inverse_h, x0);
    for (std::size_t k = k_range[0]; k < k_range[1]; ++k) {
      const double dz = zs[k] - tri.centre[2];
      const double dz2 = dz * dz;
      if (dz2 > reach_squared) continue;
      for (std::size_t j = j_range[0]; j < j_range[1]; ++j) {
        const double dy = ys[j] - tri.centre[1];
        const double dyz2 = dy * dy + dz2;
        if (dyz2 > reach_squared) continue;
        const std::size_t row = 8 * j + 64 * k;
        if (frame.usable) {
          nearest_in_row(frame, tri, t, xs, ys[j], zs[k], dyz2, reach_squared, row, scratch);
          continue;
        }
        for (std::size_t i = i_range[0]; i < i_range[1]; ++i) {
          const double dx = xs[i] - tri.centre[0];
          const double to_centre_squared = dx * dx + dyz2;
          if (to_centre_squared > reach_squared) continue;
          const double bound = (scratch.best_root[row + i] + tri.radius) * (1 + 1e-12);
          if (to_centre_squared > bound * bound) continue;
          const Vec3 p{xs[i], ys[j], zs[k]};
          const double d2 = closest_point_on_triangle(p, tri.a, tri.b, tri.c).distance_squared;
          // Strictly less: on a tie the lower triangle index (listed first) keeps the node.
          if (d2 < scratch.best_d2[row + i]) {
            scratch.best_d2[row + i] = d2;
            scratch.best_root[row + i] = std::sqrt(d2);
            scratch.best_triangle[row + i] = t;
          }
        }
      }
    }
  }

  // Nodes within the band: exact distance, sign from the closest feature's pseudo-normal.
  std::size_t queue_end = 0;
  for (std::size_t n = 0; n < kBrickNodes; ++n) {
    scratch.sign[n] = 0;
    if (!(scratch.best_d2[n] <= band_squared)) continue;
    const std::uint32_t t = scratch.best_triangle[n];
    const TriangleData& tri = data[t];
    const Vec3 p{xs[n & 7], ys[(n >> 3) & 7], zs[n >> 6]};
    const ClosestPoint q = closest_point_on_triangle(p, tri.a, tri.b, tri.c);
    const double along_normal = dot3(sub3(p, q.point), pseudo_normal(mesh, t, q.feature));
    // A node on the surface reads 0; a positive or zero dot product reads outside.
    const double d = std::sqrt(q.distance_squared);
    scratch.sign[n] = along_normal < 0 ? std::int8_t{-1} : std::int8_t{1};
    const double v = along_normal < 0 ? -d : d;
    out[n] = static_cast<S>(v < -band_width ? -band_width : (v > band_width ? band_width : v));
    scratch.queue[queue_end++] = static_cast<std::uint16_t>(n);
  }
  if (queue_end == 0) return false;

  // Nodes beyond the band: no surface lies within band*h >= h of them, so the segment
  // to any lattice neighbour does not cross it and they share its sign. Breadth-first
  // from the nodes in the band reaches every node of the brick.
  for (std::size_t at = 0; at < queue_end; ++at) {
    const std::size_t n = scratch.queue[at];
    const std::size_t i = n & 7, j = (n >> 3) & 7, k = n >> 6;
    const std::int8_t s = scratch.sign[n];
    auto visit = [&](std::size_t m) {
      if (scratch.sign[m] != 0) return;
      scratch.sign[m] = s;
      out[m] = static_cast<S>(s < 0 ? -band_width : band_width);
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

}  // namespace

template <class S>
Grid<S> bake_mesh(const PreparedMesh& mesh, const MeshBakeSettings& settings, const ProgressFn& progress,
                  MeshBakeStats* stats_out) {
  BakeSettings check;
  check.h = settings.h;
  check.band = settings.band;
  check_bake_settings(check);
  const double h = settings.h, band_width = settings.band * settings.h;
  MeshBakeStats stats;
  stats.triangles = mesh.triangles.size();
  stats.trusted = mesh.report.closed();
  Grid<S> grid(h, settings.band);
  if (mesh.triangles.empty()) {
    if (stats_out) *stats_out = stats;
    return grid;
  }

  // Triangle corners and balls; the mesh box grown by band*h gives the brick range.
  std::vector<TriangleData> data(mesh.triangles.size());
  Box box{{mesh.positions[mesh.triangles[0][0]]}, {mesh.positions[mesh.triangles[0][0]]}};
  for (std::size_t t = 0; t < data.size(); ++t) {
    TriangleData& d = data[t];
    d.a = mesh.positions[mesh.triangles[t][0]];
    d.b = mesh.positions[mesh.triangles[t][1]];
    d.c = mesh.positions[mesh.triangles[t][2]];
    double r2 = 0;
    for (std::size_t a = 0; a < 3; ++a) {
      d.centre[a] = (d.a[a] + d.b[a] + d.c[a]) / 3;
      box.lo[a] = std::min({box.lo[a], d.a[a], d.b[a], d.c[a]});
      box.hi[a] = std::max({box.hi[a], d.a[a], d.b[a], d.c[a]});
    }
    for (const Vec3* corner : {&d.a, &d.b, &d.c}) {
      const Vec3 e = sub3(*corner, d.centre);
      r2 = std::max(r2, dot3(e, e));
    }
    d.radius = std::sqrt(r2) * (1 + 1e-12);
  }
  Box padded = box;
  for (std::size_t a = 0; a < 3; ++a) {
    padded.lo[a] -= band_width;
    padded.hi[a] += band_width;
  }
  const std::array<std::int64_t, 6> range = plan_brick_range(padded, h);
  const std::array<std::int64_t, 3> lo{range[0], range[1], range[2]}, hi{range[3], range[4], range[5]};
  stats.bricks_considered = (hi[0] - lo[0] + 1) * (hi[1] - lo[1] + 1) * (hi[2] - lo[2] + 1);

  // Bricks to compute and their triangles: a brick lists every triangle within
  // band*h + 3.5*sqrt(3)*h of its centre (so every triangle within band*h of a node).
  const double brick_reach = (band_width + kBrickBallRadiusVoxels * h) * (1 + 1e-12);
  const double brick_reach_squared = brick_reach * brick_reach;
  BrickSlots slots(lo, hi);
  std::vector<std::int64_t> slot_keys;
  std::vector<std::array<std::uint32_t, 2>> pairs;  // (slot, triangle), triangles ascending
  for (std::size_t t = 0; t < data.size(); ++t) {
    const TriangleData& d = data[t];
    std::array<std::int64_t, 3> b_lo{}, b_hi{};
    for (std::size_t a = 0; a < 3; ++a) {
      const double t_lo = std::min({d.a[a], d.b[a], d.c[a]}) - brick_reach;
      const double t_hi = std::max({d.a[a], d.b[a], d.c[a]}) + brick_reach;
      // Brick centres (8b + 3.5)h inside [t_lo, t_hi], widened by one brick against rounding.
      b_lo[a] = std::max(lo[a], static_cast<std::int64_t>(std::floor((t_lo / h - 3.5) / 8)));
      b_hi[a] = std::min(hi[a], static_cast<std::int64_t>(std::ceil((t_hi / h - 3.5) / 8)));
    }
    for (std::int64_t bx = b_lo[0]; bx <= b_hi[0]; ++bx)
      for (std::int64_t by = b_lo[1]; by <= b_hi[1]; ++by)
        for (std::int64_t bz = b_lo[2]; bz <= b_hi[2]; ++bz) {
          const Vec3 centre{(static_cast<double>(bx * 8) + 3.5) * h, (static_cast<double>(by * 8) + 3.5) * h,
                            (static_cast<double>(bz * 8) + 3.5) * h};
          const Vec3 to_ball = sub3(centre, d.centre);
          const double ball_gap = std::sqrt(dot3(to_ball, to_ball)) - d.radius;
          if (ball_gap > brick_reach) continue;
          if (closest_point_on_triangle(centre, d.a, d.b, d.c).distance_squared > brick_reach_squared) continue;
          std::uint32_t& slot = slots.at(bx - lo[0], by - lo[1], bz - lo[2]);
          if (slot == BrickSlots::kNone) {
            slot = static_cast<std::uint32_t>(slot_keys.size());
            slot_keys.push_back(brick_key(bx, by, bz));
          }
          pairs.push_back({slot, static_cast<std::uint32_t>(t)});
        }
  }
  // Bricks in ascending key order; each brick's triangles in a contiguous run (counting sort).
  std::vector<std::uint32_t> order(slot_keys.size());
  for (std::uint32_t s = 0; s < order.size(); ++s) order[s] = s;
  std::sort(order.begin(), order.end(), [&](std::uint32_t x, std::uint32_t y) { return slot_keys[x] < slot_keys[y]; });
  std::vector<std::uint32_t> rank(order.size());
  for (std::uint32_t r = 0; r < order.size(); ++r) rank[order[r]] = r;
  std::vector<std::size_t> list_start(order.size() + 1, 0);
  for (const auto& p : pairs) ++list_start[rank[p[0]] + 1];
  for (std::size_t r = 0; r < order.size(); ++r) list_start[r + 1] += list_start[r];
  std::vector<std::uint32_t> lists(pairs.size());
  {
    std::vector<std::size_t> fill(list_start.begin(), list_start.end() - 1);
    for (const auto& p : pairs) lists[fill[rank[p[0]]]++] = p[1];
  }
  pairs = {};
  stats.brick_triangle_pairs = lists.size();
  std::vector<std::int64_t> near_keys(order.size());
  for (std::size_t r = 0; r < order.size(); ++r) near_keys[r] = slot_keys[order[r]];

  check_memory_budget(near_keys.size(), 0, sizeof(S), settings.max_memory_bytes,
                      "mesh at h = " + std::to_string(h));
  grid.reserve(near_keys.size());
  std::vector<S*> targets;
  targets.reserve(near_keys.size());
  for (std::int64_t key : near_keys) targets.push_back(grid.add_brick_for_overwrite(key));
  std::vector<std::uint8_t> beyond_band(near_keys.size(), 0);
  const std::size_t total = near_keys.size();
  detail::parallel_chunks(
      total, settings.threads, 16,
      [&](std::size_t begin, std::size_t end) {
        BrickScratch scratch;
        for (std::size_t r = begin; r < end; ++r)
          if (!bake_mesh_brick(mesh, data, lists.data() + list_start[r], list_start[r + 1] - list_start[r], near_keys[r],
                               h, band_width, targets[r], scratch))
            beyond_band[r] = 1;
      },
      [&](std::size_t done) {
        if (progress) progress(done, total);
      });

  // Parity: one ray along +x per row (by, bz) of bricks, near the row's centre line.
  const std::int64_t rows_y = hi[1] - lo[1] + 1, rows_z = hi[2] - lo[2] + 1;
  const double ray_margin = 0.01 * h;  // more than any ray offset
  std::vector<std::size_t> row_start(static_cast<std::size_t>(rows_y * rows_z) + 1, 0);
  auto rows_of = [&](const TriangleData& d, std::size_t a) {
    const double t_lo = std::min({d.a[a], d.b[a], d.c[a]}) - ray_margin;
    const double t_hi = std::max({d.a[a], d.b[a], d.c[a]}) + ray_margin;
    return std::array<std::int64_t, 2>{std::max(lo[a], static_cast<std::int64_t>(std::floor((t_lo / h - 3.5) / 8))),
                                       std::min(hi[a], static_cast<std::int64_t>(std::ceil((t_hi / h - 3.5) / 8)))};
  };
  for (int pass = 0; pass < 2; ++pass) {
    std::vector<std::size_t> fill;
    if (pass == 1) {
      for (std::size_t r = 0; r + 1 < row_start.size(); ++r) row_start[r + 1] += row_start[r];
      fill.assign(row_start.begin(), row_start.end() - 1);
      lists.assign(row_start.back(), 0);
    }
    for (std::size_t t = 0; t < data.size(); ++t) {
      const auto ry = rows_of(data[t], 1), rz = rows_of(data[t], 2);
      for (std::int64_t by = ry[0]; by <= ry[1]; ++by)
        for (std::int64_t bz = rz[0]; bz <= rz[1]; ++bz) {
          const auto row = static_cast<std::size_t>((by - lo[1]) * rows_z + (bz - lo[2]));
          if (pass == 0) ++row_start[row + 1];
          else lists[fill[row]++] = static_cast<std::uint32_t>(t);
        }
    }
  }
  // Computed bricks of each row with no node in the band, by row, for the fill below.
  std::unordered_map<std::int64_t, std::size_t> beyond_band_rank;
  for (std::size_t r = 0; r < near_keys.size(); ++r)
    if (beyond_band[r]) beyond_band_rank.emplace(near_keys[r], r);
  stats.bricks_beyond_band = beyond_band_rank.size();
  std::vector<double> crossings;
  std::vector<std::int64_t> inside_keys;
  for (std::int64_t by = lo[1]; by <= hi[1]; ++by)
    for (std::int64_t bz = lo[2]; bz <= hi[2]; ++bz) {
      const auto row = static_cast<std::size_t>((by - lo[1]) * rows_z + (bz - lo[2]));
      const std::size_t count = row_start[row + 1] - row_start[row];
      if (count == 0) continue;  // no triangle near the row: all outside
      ++stats.rows;
      bool even = false;
      for (std::size_t attempt = 0; attempt < kRayOffsets.size() && !even; ++attempt) {
        if (attempt > 0) ++stats.rows_retried;
        const double y = (static_cast<double>(by * 8) + 3.5 + kRayOffsets[attempt][0]) * h;
        const double z = (static_cast<double>(bz * 8) + 3.5 + kRayOffsets[attempt][1]) * h;
        const bool clean = ray_crossings(data, lists.data() + row_start[row], count, y, z, crossings);
        even = clean && crossings.size() % 2 == 0;
      }
      if (!even) {
        // Odd, or touching an edge or corner, on every attempt: its far bricks stay
        // outside, its beyond-band bricks read +band*h.
        ++stats.rows_unmarked;
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
          std::fill_n(targets[at->second], kBrickNodes, static_cast<S>(inside ? -band_width : band_width));
          beyond_band_rank.erase(at);
        } else if (inside && !std::binary_search(near_keys.begin(), near_keys.end(), key)) {
          inside_keys.push_back(key);
        }
      }
    }
  // Beyond-band bricks in rows no triangle comes near are outside.
  for (const auto& [key, r] : beyond_band_rank) std::fill_n(targets[r], kBrickNodes, static_cast<S>(band_width));
  std::sort(inside_keys.begin(), inside_keys.end());
  for (std::int64_t key : inside_keys) grid.add_inside(key);
  stats.bricks_computed = near_keys.size();
  stats.bricks_inside = inside_keys.size();
  if (stats_out) *stats_out = stats;
  return grid;
}

template Grid<float> bake_mesh<float>(const PreparedMesh&, const MeshBakeSettings&, const ProgressFn&, MeshBakeStats*);
template Grid<double> bake_mesh<double>(const PreparedMesh&, const MeshBakeSettings&, const ProgressFn&, MeshBakeStats*);

}  // namespace distgrid
