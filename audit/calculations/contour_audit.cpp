#include "contour_audit.hpp"

#include <algorithm>
#include <type_traits>
#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <unordered_map>
#include <unordered_set>
#include <vector>
#include <nlohmann/json.hpp>
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/contour_vertex.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/mesh_topology.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit::calcs::contour_audit {

namespace {

/// One site near the surface: crossing or not, and its margin.
struct Candidate {
  Site site;
  bool crossing = false;
  double margin_ulps = 0;  ///< smallest |corner value| in ulps of band h (0: a node on zero)
  unsigned classes = 0;
};

/// The core's mesh and its match to the exact sites.
struct Prepared {
  ContourResult core;
  std::vector<Candidate> candidates;  ///< in cell-brick order, then z, y, x, axis
  std::vector<std::int64_t> vertex_of;  ///< per candidate: the core vertex matched to it, or -1
  /// Core vertices matched to no crossing site (or to one already taken).
  std::vector<std::size_t> unmatched_core;
};

/// Node coordinates fit 20 bits each after the shift (|i| < 2^19 nodes: every
/// brick key's range), so a site packs into 62 bits.
std::uint64_t site_key(const Site& s) {
  std::uint64_t key = static_cast<std::uint64_t>(s.axis + 1);
  for (std::int64_t c : s.node) key = (key << 20) | static_cast<std::uint64_t>(c + (std::int64_t{1} << 19));
  return key;
}

bool is_edge_mesher(Mesher mesher) { return mesher == Mesher::marching_cubes; }

/// Enumerates the sites near the surface from the stored values: every cell or
/// edge whose lowest node lies in a cell brick next to a stored or inside brick,
/// kept when it crosses or a corner is within h of zero.
template <class S>
std::vector<Candidate> enumerate_sites(const Grid<S>& grid, const reference::StoredNodes<S>& nodes, Mesher mesher,
                                       unsigned threads, Progress& progress, const std::string& label) {
  const double h = grid.h(), band_width = grid.band() * grid.h();
  std::vector<reference::BrickTriple> cell_bricks;
  for (const auto* keys : {&grid.stored_keys(), &grid.inside_keys()})
    for (std::int64_t key : *keys) {
      const reference::BrickTriple b = reference::brick_of_stored_key(key);
      for (int off = 0; off < 8; ++off)
        cell_bricks.push_back({b[0] - (off & 1), b[1] - ((off >> 1) & 1), b[2] - ((off >> 2) & 1)});
    }
  std::sort(cell_bricks.begin(), cell_bricks.end());
  cell_bricks.erase(std::unique(cell_bricks.begin(), cell_bricks.end()), cell_bricks.end());
  const double unit = ulp_of(band_width);
  std::vector<std::vector<Candidate>> per_brick(cell_bricks.size());
  progress.begin(label, cell_bricks.size());
  parallel_for(cell_bricks.size(), threads, progress, [&](std::size_t at) {
    const reference::BrickTriple& c = cell_bricks[at];
    std::array<double, 729> v{};
    const auto local = [](int x, int y, int z) { return static_cast<std::size_t>(x + 9 * y + 81 * z); };
    nodes.block(c, v);
    std::vector<Candidate>& out = per_brick[at];
    for (int z = 0; z < 8; ++z)
      for (int y = 0; y < 8; ++y)
        for (int x = 0; x < 8; ++x) {
          const Node node{8 * c[0] + x, 8 * c[1] + y, 8 * c[2] + z};
          const std::array<int, 3> p{x, y, z};
          if (!is_edge_mesher(mesher)) {
            std::array<double, 8> d{};
            for (int k = 0; k < 8; ++k)
              d[static_cast<std::size_t>(k)] = v[local(x + (k & 1), y + ((k >> 1) & 1), z + ((k >> 2) & 1))];
            double smallest = std::fabs(d[0]);
            for (double value : d) smallest = std::fmin(smallest, std::fabs(value));
            const unsigned inside = reference::inside_pattern(d);
            const bool crossing = inside != 0 && inside != 255;
            if (!crossing && !(smallest < h)) continue;
            Candidate cand{{node, -1}, crossing, smallest / unit, 0};
            if (smallest < h / 64) cand.classes |= kNearNode;
            if (x == 7 || y == 7 || z == 7) cand.classes |= kBrickBorder;
            const unsigned edges = reference::crossing_edges(inside);
            for (unsigned e = 0; e < 12; ++e) {
              const auto& edge = reference::kCellEdges[e];
              if (((edges >> e) & 1u) != 0 &&
                  std::fabs(d[static_cast<std::size_t>(edge.lower)] - d[static_cast<std::size_t>(edge.upper)]) < h / 4)
                cand.classes |= kIllConditioned;
            }
            for (int axis = 0; axis < 3 && crossing; ++axis)
              for (int side = 0; side < 2; ++side) {
                // The face's corners (u, v) = (0,0), (1,0), (0,1), (1,1) on the other two axes.
                const int u = (axis + 1) % 3, w = (axis + 2) % 3;
                std::array<bool, 4> in{};
                for (int k = 0; k < 4; ++k) {
                  const int corner = (side << axis) | ((k & 1) << u) | (((k >> 1) & 1) << w);
                  in[static_cast<std::size_t>(k)] = ((inside >> corner) & 1u) != 0;
                }
                if (in[0] == in[3] && in[1] == in[2] && in[0] != in[1]) cand.classes |= kAmbiguousFace;
              }
            out.push_back(cand);
          } else {
            const double d0 = v[local(x, y, z)];
            for (int axis = 0; axis < 3; ++axis) {
              const double d1 = v[local(x + (axis == 0), y + (axis == 1), z + (axis == 2))];
              const bool crossing = (d0 < 0) != (d1 < 0);
              const double smallest = std::fmin(std::fabs(d0), std::fabs(d1));
              if (!crossing && !(smallest < h)) continue;
              Candidate cand{{node, axis}, crossing, smallest / unit, 0};
              if (smallest < h / 64) cand.classes |= kNearNode;
              if (p[static_cast<std::size_t>(axis)] == 7) cand.classes |= kBrickBorder;
              if (crossing && std::fabs(d0 - d1) < h / 4) cand.classes |= kIllConditioned;
              out.push_back(cand);
            }
          }
        }
  });
  progress.end();
  std::vector<Candidate> all;
  for (auto& part : per_brick) all.insert(all.end(), part.begin(), part.end());
  return all;
}

/// How far x / h may be from the core's i + t: the rounding of i + t, of the
/// product by h and of the quotient, a few ulps of q (never more: a larger slack
/// would take a crossing near a node for one on it).
double position_slack(double q) { return 8 * ulp_of(std::fmax(1.0, std::fabs(q))); }

/// floor(q) and floor of q nudged either way, so a vertex on a cell face (or
/// rounded onto it) may belong to either cell: 1 or 2 values.
std::vector<std::int64_t> floors_near(double q) {
  const double slack = position_slack(q);
  const auto lo = static_cast<std::int64_t>(std::floor(q - slack));
  const auto hi = static_cast<std::int64_t>(std::floor(q + slack));
  return lo == hi ? std::vector<std::int64_t>{lo} : std::vector<std::int64_t>{lo, hi};
}

}  // namespace

std::vector<Site> sites_near(const std::array<double, 3>& p, double h, Mesher mesher) {
  std::array<double, 3> q{};
  for (std::size_t a = 0; a < 3; ++a) q[a] = p[a] / h;
  std::vector<Site> sites;
  if (!is_edge_mesher(mesher)) {
    const auto fx = floors_near(q[0]), fy = floors_near(q[1]), fz = floors_near(q[2]);
    for (std::int64_t k : fz)
      for (std::int64_t j : fy)
        for (std::int64_t i : fx) sites.push_back({{i, j, k}, -1});
    return sites;
  }
  std::array<bool, 3> on_node{};
  int on_count = 0;
  for (std::size_t a = 0; a < 3; ++a) {
    on_node[a] = std::fabs(q[a] - std::nearbyint(q[a])) <= position_slack(q[a]);
    on_count += on_node[a] ? 1 : 0;
  }
  if (on_count < 2) return sites;
  for (int axis = 0; axis < 3; ++axis) {
    const auto along = static_cast<std::size_t>(axis);
    if (on_count == 2 && on_node[along]) continue;  // the edge runs along the one off-node axis
    Node base{};
    for (std::size_t a = 0; a < 3; ++a) base[a] = static_cast<std::int64_t>(std::nearbyint(q[a]));
    // On a node (q integral on this axis too) the edge may start or end there: two starts.
    for (std::int64_t start : floors_near(q[along])) {
      Node n = base;
      n[along] = start;
      sites.push_back({n, axis});
    }
  }
  return sites;
}

namespace {

/// Where the audit expects the vertex of a crossing site, in world units and
/// double arithmetic, from the stored values by the definitions in
/// contour_vertex.hpp: only to tell apart the sites a core vertex may belong to.
template <class S>
std::array<double, 3> expected_vertex(const Site& site, const reference::StoredNodes<S>& nodes, double h) {
  const auto value = [&](int corner) {
    return nodes.value(site.node[0] + (corner & 1), site.node[1] + ((corner >> 1) & 1),
                       site.node[2] + ((corner >> 2) & 1));
  };
  std::array<double, 3> local{};
  if (site.axis >= 0) {
    const double lower = value(0), upper = value(1 << site.axis);
    local[static_cast<std::size_t>(site.axis)] = lower / (lower - upper);
  } else {
    std::array<double, 8> d{};
    for (int c = 0; c < 8; ++c) d[static_cast<std::size_t>(c)] = value(c);
    const unsigned edges = reference::crossing_edges(reference::inside_pattern(d));
    int count = 0;
    for (unsigned e = 0; e < 12; ++e) {
      if (((edges >> e) & 1u) == 0) continue;
      const reference::CellEdge& edge = reference::kCellEdges[e];
      const double lower = d[static_cast<std::size_t>(edge.lower)], upper = d[static_cast<std::size_t>(edge.upper)];
      for (int a = 0; a < 3; ++a)
        local[static_cast<std::size_t>(a)] += a == edge.axis ? lower / (lower - upper) : (edge.lower >> a) & 1;
      ++count;
    }
    for (double& x : local) x /= count;
  }
  std::array<double, 3> world{};
  for (std::size_t a = 0; a < 3; ++a) world[a] = (static_cast<double>(site.node[a]) + local[a]) * h;
  return world;
}

/// Runs the core mesher and matches its vertices to the crossing sites. A
/// vertex may belong to any crossing site around its position (several where
/// it lies on a cell face or a node); where such sets overlap — a node whose
/// stored value is zero puts the vertices of several sites on the same point —
/// the pairs are matched nearest first: each (vertex, site) pair in order of
/// the distance from the vertex to the site's expected vertex (ties by vertex,
/// then site), kept when both are still free.
template <class S>
Prepared prepare(const Grid<S>& grid, const reference::StoredNodes<S>& nodes, Mesher mesher, unsigned threads,
                 Progress& progress, const std::string& label) {
  Prepared out;
  ContourOptions options;
  options.mesher = mesher;
  out.core = contour(grid, options);
  out.candidates = enumerate_sites(grid, nodes, mesher, threads, progress, label);
  std::unordered_map<std::uint64_t, std::size_t> crossing_index;
  for (std::size_t n = 0; n < out.candidates.size(); ++n)
    if (out.candidates[n].crossing) crossing_index.emplace(site_key(out.candidates[n].site), n);
  out.vertex_of.assign(out.candidates.size(), -1);
  const auto& positions = out.core.mesh.positions;
  struct Pair {
    double distance;
    std::size_t vertex, candidate;
  };
  std::vector<Pair> pairs;
  std::vector<bool> vertex_taken(positions.size(), false);
  for (std::size_t v = 0; v < positions.size(); ++v) {
    const std::vector<Site> sites = sites_near(positions[v], grid.h(), mesher);
    std::size_t options_found = 0;
    for (const Site& s : sites) {
      const auto it = crossing_index.find(site_key(s));
      if (it == crossing_index.end()) continue;
      const std::array<double, 3> expected = expected_vertex(s, nodes, grid.h());
      double distance = 0;
      for (std::size_t a = 0; a < 3; ++a) distance = std::hypot(distance, positions[v][a] - expected[a]);
      // A non-finite vertex (a broken mesher) is matched last, and still measured.
      pairs.push_back({std::isnan(distance) ? HUGE_VAL : distance, v, it->second});
      ++options_found;
    }
    if (options_found == 0) {
      out.unmatched_core.push_back(v);
      vertex_taken[v] = true;
    }
  }
  std::sort(pairs.begin(), pairs.end(), [](const Pair& a, const Pair& b) {
    return std::tie(a.distance, a.vertex, a.candidate) < std::tie(b.distance, b.vertex, b.candidate);
  });
  for (const Pair& p : pairs)
    if (!vertex_taken[p.vertex] && out.vertex_of[p.candidate] < 0) {
      out.vertex_of[p.candidate] = static_cast<std::int64_t>(p.vertex);
      vertex_taken[p.vertex] = true;
    }
  for (std::size_t v = 0; v < positions.size(); ++v)
    if (!vertex_taken[v]) out.unmatched_core.push_back(v);
  std::sort(out.unmatched_core.begin(), out.unmatched_core.end());
  return out;
}

/// One audited vertex.
struct Outcome {
  bool matched = false;    ///< the core made a vertex for the site
  bool sign_flip = false;  ///< exact node values change sign differently from the stored ones
  std::size_t candidate = 0;
  std::array<double, 3> core{};
  ErrorValue error, arithmetic, storage;
  std::optional<ErrorValue> method;
  /// storage in h over what the storage may move the vertex (storage_bound_h).
  double storage_over_bound = 0;
  bool method_estimated = false;  ///< method is an upper bound (the shape is not a distance)
  /// |core unit normal - reference unit normal|, about the angle between them in
  /// radians; none where the reference direction is ill-conditioned.
  std::optional<double> normal;
};

/// Where a reference blend of corner gradients shorter than this fraction of the
/// sum of its terms' magnitudes has no direction worth comparing (the core's
/// rounding of the terms could turn it).
constexpr double kNormalConditioning = 1e-6;

/// The vertex's normal as the meshers define it, from the same stored values in high
/// precision: surface nets blend the central differences at the cell's eight corners
/// by the vertex's trilinear weights; marching cubes lerp those at the edge's ends by
/// t. Returns the distance of the core's unit normal from the reference's.
template <class S>
std::optional<double> normal_error(const std::array<double, 3>& core, const Site& site, const reference::LocalPoint& local,
                                   const reference::StoredNodes<S>& nodes) {
  using G = std::array<HighPrecision, 3>;
  const auto difference = [&](const Node& q) {
    G g;
    for (std::size_t a = 0; a < 3; ++a) {
      Node plus = q, minus = q;
      ++plus[a];
      --minus[a];
      g[a] = HighPrecision(nodes.value(plus[0], plus[1], plus[2])) - HighPrecision(nodes.value(minus[0], minus[1], minus[2]));
    }
    return g;
  };
  G n{HighPrecision(0), HighPrecision(0), HighPrecision(0)};
  HighPrecision scale(0);
  const auto add = [&](const HighPrecision& w, const G& g) {
    for (std::size_t a = 0; a < 3; ++a) {
      n[a] += w * g[a];
      scale += abs(w * g[a]);
    }
  };
  if (site.axis < 0) {
    for (int c = 0; c < 8; ++c) {
      HighPrecision w(1);
      Node corner = site.node;
      for (std::size_t a = 0; a < 3; ++a) {
        const bool upper = ((c >> a) & 1) != 0;
        corner[a] += upper ? 1 : 0;
        w *= upper ? local[a] : HighPrecision(1) - local[a];
      }
      add(w, difference(corner));
    }
  } else {
    const auto axis = static_cast<std::size_t>(site.axis);
    Node upper = site.node;
    ++upper[axis];
    add(HighPrecision(1) - local[axis], difference(site.node));
    add(local[axis], difference(upper));
  }
  const HighPrecision length = sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(length > kNormalConditioning * scale)) return std::nullopt;
  HighPrecision sum(0);
  for (std::size_t a = 0; a < 3; ++a) {
    const HighPrecision d = HighPrecision(core[a]) - n[a] / length;
    sum += d * d;
  }
  return to_double(sqrt(sum));
}

ErrorValue point_error(const std::array<HighPrecision, 3>& result, const std::array<HighPrecision, 3>& reference,
                              double h) {
  double sum = 0, largest = 0;
  for (std::size_t a = 0; a < 3; ++a) {
    const double d = to_double(abs(result[a] - reference[a]));
    sum += d * d;
    largest = std::fmax(largest, std::fabs(to_double(reference[a])));
  }
  ErrorValue e;
  e.abs = std::sqrt(sum);
  e.h = e.abs / h;
  // Ulps of the largest coordinate, raised to one cell: a position near the
  // origin still carries the rounding of a cell-sized offset.
  e.ulps = error_in_ulps(e.abs, largest, h);
  std::size_t worst = 0;
  double worst_d = -1;
  for (std::size_t a = 0; a < 3; ++a) {
    const double d = to_double(abs(result[a] - reference[a]));
    if (d > worst_d) {
      worst_d = d;
      worst = a;
    }
  }
  e.result = to_double(result[worst]);
  e.reference = to_double(reference[worst]);
  return e;
}

/// The most, in h, that node errors of at most `node_error` (world units) can
/// move the vertex of a site whose stored values are `stored` (8 corners, or an
/// edge's 2): a crossing at t = a / (a - b) on an edge whose values a, b have
/// opposite signs moves to (a + da) / (a + da - b - db), and with |da|, |db| <= e
/// and the signs kept, |dt| = |a db - b da| / (|a - b| |a' - b'|) <= e / (|a'| + |b'|)
/// (|a| + |b| = |a - b|), never more than the edge (1). A surface-nets vertex, the
/// mean of its crossings, moves by at most its crossings' largest move.
double storage_bound_h(const reference::CellValues& stored, int axis, double node_error) {
  HighPrecision least = -1;
  const auto edge = [&](const HighPrecision& a, const HighPrecision& b) {
    if ((a < 0) == (b < 0)) return;
    const HighPrecision sum = abs(a) + abs(b);
    if (least < 0 || sum < least) least = sum;
  };
  if (axis >= 0) {
    edge(stored[0], stored[1]);
  } else {
    for (const reference::CellEdge& e : reference::kCellEdges)
      edge(stored[static_cast<std::size_t>(e.lower)], stored[static_cast<std::size_t>(e.upper)]);
  }
  if (least <= 0) return 1;
  return std::fmin(1.0, to_double(HighPrecision(node_error) / least));
}

/// Errors of the core's vertex for one crossing site (see the calculation's
/// `errors` text). The exact-value vertex uses the stored values' crossing
/// edges, so both references describe the same vertex; a site whose exact
/// values change sign elsewhere is flagged and measured for arithmetic only.
template <class S>
Outcome measure(const Prepared& prepared, std::size_t candidate, const reference::ExactShape& shape, const Grid<S>& grid,
                const reference::StoredNodes<S>& nodes) {
  Outcome out;
  out.candidate = candidate;
  const Site& site = prepared.candidates[candidate].site;
  const std::int64_t v = prepared.vertex_of[candidate];
  if (v < 0) return out;
  out.matched = true;
  out.core = prepared.core.mesh.positions[static_cast<std::size_t>(v)];
  const double h = grid.h(), band = grid.band();
  // Corner k at offset (k & 1, k >> 1 & 1, k >> 2 & 1) of a cell; an edge uses corners 0 and 1 << axis.
  const std::array<int, 8> corners =
      site.axis < 0 ? std::array<int, 8>{0, 1, 2, 3, 4, 5, 6, 7} : std::array<int, 8>{0, 1 << site.axis};
  const std::size_t used = site.axis < 0 ? 8 : 2;
  reference::CellValues stored{}, exact{};
  for (std::size_t k = 0; k < used; ++k) {
    const int c = corners[k];
    const std::int64_t i = site.node[0] + (c & 1), j = site.node[1] + ((c >> 1) & 1), l = site.node[2] + ((c >> 2) & 1);
    stored[k] = HighPrecision(nodes.value(i, j, l));
    exact[k] = reference::exact_node_value(shape, i, j, l, h, band);
  }
  std::optional<reference::LocalPoint> from_stored, from_exact;
  if (site.axis < 0) {
    const unsigned edges = reference::crossing_edges(reference::inside_pattern(stored));
    from_stored = reference::surface_nets_vertex(stored, edges);
    from_exact = reference::surface_nets_vertex(exact, edges);
    out.sign_flip = reference::inside_pattern(exact) != reference::inside_pattern(stored);
  } else {
    const auto local = [&](const HighPrecision& t) {
      reference::LocalPoint p{HighPrecision(0), HighPrecision(0), HighPrecision(0)};
      p[static_cast<std::size_t>(site.axis)] = t;
      return p;
    };
    if (auto t = reference::edge_crossing(stored[0], stored[1])) from_stored = local(*t);
    if (auto t = reference::edge_crossing(exact[0], exact[1])) from_exact = local(*t);
    out.sign_flip = (exact[0] < 0) != (stored[0] < 0) || (exact[1] < 0) != (stored[1] < 0);
  }
  if (!from_stored) throw std::logic_error("contour audit: a crossing site without a crossing");
  out.normal = normal_error(prepared.core.mesh.normals[static_cast<std::size_t>(v)], site, *from_stored, nodes);
  std::array<HighPrecision, 3> core_hp{HighPrecision(out.core[0]), HighPrecision(out.core[1]), HighPrecision(out.core[2])};
  const auto stored_world = reference::world_point(site.node, *from_stored, h);
  out.arithmetic = point_error(core_hp, stored_world, h);
  if (out.sign_flip || !from_exact) return out;
  const auto exact_world = reference::world_point(site.node, *from_exact, h);
  out.error = point_error(core_hp, exact_world, h);
  out.storage = point_error(stored_world, exact_world, h);
  const double node_error = storage_unit_roundoff(storage_of<S>(), band * h) * band * h;
  const double bound = storage_bound_h(stored, site.axis, node_error);
  out.storage_over_bound = *out.storage.h == 0 ? 0 : *out.storage.h / bound;
  // Method: how far the vertex from exact values lies from the surface: |f| for
  // a distance; otherwise an upper bound, the nearest zero of f found along the
  // steepest descent or towards a corner of the other sign (at most the cell's
  // diagonal away), labelled as estimated.
  double largest = 0;
  for (const HighPrecision& x : exact_world) largest = std::fmax(largest, std::fabs(to_double(x)));
  std::optional<HighPrecision> distance;
  if (shape.euclidean()) {
    distance = abs(shape.exact(exact_world[0], exact_world[1], exact_world[2]));
  } else {
    std::vector<std::array<HighPrecision, 3>> targets;
    for (std::size_t k = 0; k < used; ++k) {
      const int c = corners[k];
      const HighPrecision step(h);
      targets.push_back({HighPrecision(site.node[0] + (c & 1)) * step, HighPrecision(site.node[1] + ((c >> 1) & 1)) * step,
                         HighPrecision(site.node[2] + ((c >> 2) & 1)) * step});
    }
    distance = reference::distance_to_zero_bound(shape, exact_world, targets, h, 2 * h);
    out.method_estimated = true;
  }
  if (distance) {
    ErrorValue m;
    m.abs = to_double(*distance);
    m.h = m.abs / h;
    m.ulps = error_in_ulps(m.abs, largest, h);  // as a position error: ulps of the vertex's coordinates
    m.result = m.abs;
    m.reference = 0;
    out.method = m;
  }
  return out;
}

/// "i j k" or "i j k axis".
std::string site_text(const Site& s) {
  std::string text = std::to_string(s.node[0]) + ' ' + std::to_string(s.node[1]) + ' ' + std::to_string(s.node[2]);
  if (s.axis >= 0) text += ' ' + std::to_string(s.axis);
  return text;
}

/// The crossing sites a stratum draws from (all crossing sites when its class
/// is 0 or when none has the class: a fallback).
std::vector<std::size_t> stratum_sites(const Prepared& prepared, unsigned site_class, bool& fallback) {
  std::vector<std::size_t> all, in_class;
  for (std::size_t n = 0; n < prepared.candidates.size(); ++n) {
    const Candidate& c = prepared.candidates[n];
    if (!c.crossing) continue;
    all.push_back(n);
    if ((c.classes & site_class) != 0) in_class.push_back(n);
  }
  fallback = site_class != 0 && in_class.empty();
  return site_class == 0 || fallback ? all : in_class;
}

/// Audited vertices per stratum and part: a tenth of the run's inputs, so the
/// cost scales with --inputs (every site's crossing decision is checked anyway).
std::size_t vertices_per_stratum(std::size_t inputs) { return std::max<std::size_t>(1, inputs / 10); }

/// The index-th draw of a stratum: a crossing site chosen uniformly from its list.
std::size_t draw_site(std::uint64_t seed, std::string_view id, const char* stratum, std::uint64_t index,
                             const std::vector<std::size_t>& sites) {
  InputRng rng(seed, id, stratum, index);
  return sites[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(sites.size()) - 1))];
}

const char* decision_name(Mesher mesher) { return is_edge_mesher(mesher) ? "edge_crossing" : "cell_crossing"; }

/// Per storage and placement of one part: the grid, its stored-node reader and the prepared match.
template <class S>
struct PartRun {
  const Grid<S>* grid;
  reference::StoredNodes<S> nodes;
  Prepared prepared;
  PartRun(RunContext& context, PartSubject& part, Placement where, std::string_view id, Mesher mesher)
      : grid(&part.grid<S>(where)),
        nodes(*grid),
        prepared(prepare(*grid, nodes, mesher, context.threads(), context.progress(),
                         std::string(id) + " " + part.part().name + " sites")) {}
};

/// Surface nets' quads: around every sign-changing grid edge, the vertices of the
/// four cells (u, v) = (0, 0), (1, 0), (1, 1), (0, 1) around it (u, v the next two
/// axes) make a quad, cut into two triangles along its shorter diagonal (on a tie
/// either). Compares the mesh's diagonal with the one the matched vertices' positions
/// call for, the squared lengths in long double; quads within 1e-12 of a tie are not
/// counted. Returns {quads compared, quads split along the longer diagonal}.
template <class S>
std::array<std::size_t, 2> check_quad_splits(const Prepared& prepared, const reference::StoredNodes<S>& nodes) {
  std::unordered_map<std::uint64_t, std::size_t> cell_index;
  for (std::size_t n = 0; n < prepared.candidates.size(); ++n)
    if (prepared.candidates[n].crossing) cell_index.emplace(site_key(prepared.candidates[n].site), n);
  const auto& mesh = prepared.core.mesh;
  // Vertices at the same point (cells whose crossings all lie on a node or a
  // face with zero stored values) are told apart by no geometry, so the match
  // may pair them either way: edges are compared between their points, each
  // named by its lowest vertex.
  std::vector<std::uint64_t> point_of(mesh.positions.size());
  {
    std::map<std::array<double, 3>, std::uint64_t> first_at;
    for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
      const auto& p = mesh.positions[v];
      const bool finite = std::isfinite(p[0]) && std::isfinite(p[1]) && std::isfinite(p[2]);
      point_of[v] = finite ? first_at.emplace(p, v).first->second : v;
    }
  }
  std::unordered_set<std::uint64_t> mesh_edges;
  const auto edge = [&](std::uint64_t a, std::uint64_t b) {
    a = point_of[a];
    b = point_of[b];
    return a < b ? (a << 32 | b) : (b << 32 | a);
  };
  for (const auto& t : mesh.triangles)
    for (std::size_t k = 0; k < 3; ++k) mesh_edges.insert(edge(t[k], t[(k + 1) % 3]));
  const auto squared = [&](std::int64_t a, std::int64_t b) {
    long double sum = 0;
    for (std::size_t k = 0; k < 3; ++k) {
      const long double d = static_cast<long double>(mesh.positions[static_cast<std::size_t>(a)][k]) -
                            static_cast<long double>(mesh.positions[static_cast<std::size_t>(b)][k]);
      sum += d * d;
    }
    return sum;
  };
  std::size_t compared = 0, longer = 0;
  for (const Candidate& c : prepared.candidates) {
    if (!c.crossing) continue;
    const Node& p = c.site.node;
    for (int axis = 0; axis < 3; ++axis) {
      Node q = p;
      ++q[static_cast<std::size_t>(axis)];
      if ((nodes.value(p[0], p[1], p[2]) < 0) == (nodes.value(q[0], q[1], q[2]) < 0)) continue;
      // This cell is (1, 1) of the edge from its lowest corner along the axis.
      const auto u = static_cast<std::size_t>((axis + 1) % 3), v = static_cast<std::size_t>((axis + 2) % 3);
      constexpr int kAround[4][2] = {{0, 0}, {1, 0}, {1, 1}, {0, 1}};
      std::array<std::int64_t, 4> vertex{};
      bool all = true;
      for (std::size_t k = 0; k < 4 && all; ++k) {
        Node cell = p;
        cell[u] -= 1 - kAround[k][0];
        cell[v] -= 1 - kAround[k][1];
        const auto it = cell_index.find(site_key({cell, -1}));
        vertex[k] = it == cell_index.end() ? -1 : prepared.vertex_of[it->second];
        all = vertex[k] >= 0;
      }
      if (!all) continue;  // a missing vertex is counted by the crossing decision
      const long double d02 = squared(vertex[0], vertex[2]), d13 = squared(vertex[1], vertex[3]);
      if (std::fabs(d02 - d13) <= 1e-12L * (d02 + d13)) continue;
      ++compared;
      const bool along_02 = d02 < d13;
      const std::uint64_t want = along_02 ? edge(static_cast<std::uint64_t>(vertex[0]), static_cast<std::uint64_t>(vertex[2]))
                                          : edge(static_cast<std::uint64_t>(vertex[1]), static_cast<std::uint64_t>(vertex[3]));
      if (!mesh_edges.contains(want)) ++longer;
    }
  }
  return {compared, longer};
}

/// The decision's generator name for a placement ("cell_crossing", "cell_crossing_far").
std::string decision_generator(Mesher mesher, Placement where) {
  return std::string(decision_name(mesher)) + (where == Placement::far ? "_far" : "");
}

/// Adds the crossing decisions of one placement: every site's, in site order,
/// then the core vertices at no crossing site, each list a unit of which this
/// shard adds its share (RunContext::shard_inputs). Returns, for the whole
/// placement, {crossing sites, crossing sites without a core vertex}.
std::array<std::size_t, 2> add_decisions(const Prepared& prepared, Mesher mesher, Placement where,
                                                const RunContext& context, const std::string& part_name,
                                                DecisionStats& decision) {
  const std::uint64_t seed = context.settings().seed;
  const std::string generator = decision_generator(mesher, where);
  std::size_t crossing_sites = 0, missing = 0;
  for (std::size_t n = 0; n < prepared.candidates.size(); ++n) {
    const Candidate& c = prepared.candidates[n];
    if (!c.crossing) continue;
    ++crossing_sites;
    if (prepared.vertex_of[n] < 0) ++missing;
  }
  decision.begin_unit();
  const InputRange sites = context.shard_inputs(prepared.candidates.size());
  for (std::size_t n = sites.first; n < sites.last; ++n) {
    const Candidate& c = prepared.candidates[n];
    const bool core_has = prepared.vertex_of[n] >= 0;
    decision.add(core_has ? "crossing" : "no crossing", c.crossing ? "crossing" : "no crossing", c.margin_ulps,
                 [&] { return InputRecord{seed, generator, n, part_name, {{"site", site_text(c.site)}}}; });
  }
  decision.begin_unit();
  const InputRange unmatched = context.shard_inputs(prepared.unmatched_core.size());
  for (std::size_t u = unmatched.first; u < unmatched.last; ++u) {
    const std::size_t v = prepared.unmatched_core[u];
    const auto& p = prepared.core.mesh.positions[v];
    decision.add("crossing", "no crossing (or already taken)", 0, [&] {
      return InputRecord{seed, generator + "_core_vertex", v, part_name,
                         {{"x", hex_float(p[0])}, {"y", hex_float(p[1])}, {"z", hex_float(p[2])}}};
    });
  }
  return {crossing_sites, missing};
}

template <class S>
void run_storage(const Spec& spec, RunContext& context, PartSubject& part, CalculationResult& r, nlohmann::json& table,
                 nlohmann::json& summary) {
  const RunSettings& settings = context.settings();
  const bool method_estimated = !part.shape(Placement::origin).euclidean();
  const std::string& part_name = part.part().name;
  if (part.mesh()) context.mark_untrusted(*part.mesh());
  std::optional<PartRun<S>> runs[2];  // by Placement, made when a stratum first needs one
  const auto run_at = [&](Placement where) -> const PartRun<S>& {
    auto& slot = runs[static_cast<std::size_t>(where)];
    if (!slot) slot.emplace(context, part, where, spec.id, spec.mesher);
    return *slot;
  };
  const PartRun<S>& origin = run_at(Placement::origin);
  const auto [crossing_sites, missing] =
      add_decisions(origin.prepared, spec.mesher, Placement::origin, context, part_name, r.decisions[0]);

  nlohmann::json per_stratum = nlohmann::json::array();
  double max_error = 0, max_arithmetic = 0, max_storage = 0, max_method = 0, max_normal = 0;
  double max_storage_over_bound = 0;
  std::size_t normals_compared = 0;
  std::size_t sign_flips = 0;
  for (std::size_t si = 0; si < spec.stratum_count; ++si) {
    const Stratum& stratum = spec.strata[si];
    const bool first_use = !runs[static_cast<std::size_t>(stratum.where)];
    const PartRun<S>& run = run_at(stratum.where);
    const Prepared& prepared = run.prepared;
    if (first_use)  // the far copy's decisions count too
      add_decisions(prepared, spec.mesher, stratum.where, context, part_name, r.decisions[0]);
    const reference::ExactShape& shape = part.shape(stratum.where);
    bool fallback = false;
    const std::vector<std::size_t> sites = stratum_sites(prepared, stratum.site_class, fallback);
    // Every shard prepares the whole part (sites, match, topology); the drawn
    // vertices, the high-precision work, are split.
    const std::size_t count = sites.empty() ? 0 : vertices_per_stratum(settings.inputs);
    const InputRange range = context.shard_inputs(count);
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(spec.id) + " " + part_name + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      outcomes[k] = measure(prepared, draw_site(settings.seed, spec.id, stratum.name, range.first + k, sites), shape,
                            *run.grid, run.nodes);
    });
    context.progress().end();
    r.begin_unit(count);
    std::size_t flips = 0, unmatched = 0;
    for (std::size_t k = 0; k < range.size(); ++k) {
      const std::size_t n = range.first + k;
      const Outcome& o = outcomes[k];
      if (!o.matched) {
        ++unmatched;  // counted by the decision above
        continue;
      }
      const auto record = [&] {
        InputRecord rec{settings.seed, stratum.name, n, part_name, {}};
        rec.values = {{"site", site_text(prepared.candidates[o.candidate].site)},
                      {"x", hex_float(o.core[0])},
                      {"y", hex_float(o.core[1])},
                      {"z", hex_float(o.core[2])}};
        return rec;
      };
      if (o.normal) {
        ++normals_compared;
        max_normal = std::fmax(max_normal, *o.normal);
      }
      r.arithmetic->add(o.arithmetic, record);
      max_arithmetic = std::fmax(max_arithmetic, *o.arithmetic.h);
      if (o.sign_flip) {
        ++flips;
        continue;
      }
      r.error.add(o.error, record);
      r.storage_error->add(o.storage, record);
      max_error = std::fmax(max_error, *o.error.h);
      max_storage = std::fmax(max_storage, *o.storage.h);
      max_storage_over_bound = std::fmax(max_storage_over_bound, o.storage_over_bound);
      if (o.method) {
        r.method->add(*o.method, record);
        max_method = std::fmax(max_method, *o.method->h);
      }
    }
    sign_flips += flips;
    r.strata[si].count += range.size();
    r.strata[si].fallbacks += fallback ? range.size() : 0;
    per_stratum.push_back({{"generator", stratum.name},
                           {"sites_in_class", sites.size()},
                           {"audited", range.size()},
                           {"without_core_vertex", unmatched},
                           {"exact_sign_differs", flips}});
  }

  const Prepared& prepared = origin.prepared;
  const reference::MeshTopology topo = reference::mesh_topology(prepared.core.mesh);
  const bool has_quads = !is_edge_mesher(spec.mesher);
  const std::array<std::size_t, 2> quads =
      has_quads ? check_quad_splits(prepared, origin.nodes) : std::array<std::size_t, 2>{0, 0};
  const VolumeReference& truth = part.volume_reference();
  const double relative = std::fabs(topo.volume - truth.volume) / truth.volume;
  table.push_back(
      {{"part", part_name},
       {"crossing_sites", crossing_sites},
       {"sites_checked", prepared.candidates.size()},
       {"core_vertices", prepared.core.mesh.positions.size()},
       {"core_triangles", prepared.core.mesh.triangles.size()},
       {"crossing_sites_without_core_vertex", missing},
       {"core_vertices_at_no_crossing_site", prepared.unmatched_core.size()},
       {"exact_sign_differs", sign_flips},
       {"normals_compared_count", normals_compared},
       {"max_normal_error", finite_or_null(max_normal)},
       {"by_generator", per_stratum},
       {"max_h", {{"error", finite_or_null(max_error)},
                  {"arithmetic", finite_or_null(max_arithmetic)},
                  {"storage", finite_or_null(max_storage)},
                  {"method", finite_or_null(max_method)}}},
       {"method_estimated", method_estimated},
       {"mesh", {{"closed", topo.closed()},
                 {"boundary_edges", topo.boundary_edges},
                 {"non_manifold_edges", topo.non_manifold_edges},
                 {"misoriented_edges", topo.misoriented_edges},
                 {"euler_characteristic", topo.euler_characteristic},
                 {"volume", finite_or_null(topo.volume)},
                 {"reference_volume", finite_or_null(truth.volume)},
                 {"reference_volume_uncertainty", finite_or_null(truth.uncertainty)},
                 {"reference_volume_source", truth.source},
                 {"reference_volume_estimated", truth.estimated},
                 {"volume_relative_error", finite_or_null(relative)}}}});
  if (has_quads) {
    table.back()["quads_compared"] = quads[0];
    table.back()["quads_split_on_the_longer_diagonal"] = quads[1];
    summary["quads_split_on_the_longer_diagonal"] =
        summary.value("quads_split_on_the_longer_diagonal", std::size_t{0}) + quads[1];
  }
  if (method_estimated)
    table.back()["method_estimate"] =
        "the part's formula is not a Euclidean distance (CSG or lattice), so |f(vertex)| is not the vertex's "
        "distance to the surface: the method error is an upper bound, the distance to the nearest zero of f found "
        "along the steepest descent or towards a cell corner of the other sign";
  summary["boundary_edges"] = summary.value("boundary_edges", std::size_t{0}) + topo.boundary_edges;
  summary["non_manifold_edges"] = summary.value("non_manifold_edges", std::size_t{0}) + topo.non_manifold_edges;
  summary["misoriented_edges"] = summary.value("misoriented_edges", std::size_t{0}) + topo.misoriented_edges;
  summary["exact_sign_differs"] = summary.value("exact_sign_differs", std::size_t{0}) + sign_flips;
  // A double grid's node errors are the 64-bit formula's, which the bound on
  // storage rounding does not cover: /errors/storage gates them against its model.
  if constexpr (!std::is_same_v<S, double>) {
    table.back()["max_storage_over_bound"] = finite_or_null(max_storage_over_bound);
    summary["max_storage_over_bound"] =
        std::fmax(summary.value("max_storage_over_bound", 0.0),
                  std::isfinite(max_storage_over_bound) ? max_storage_over_bound : 2.0);
  }
  summary["max_normal_error"] = std::fmax(summary.value("max_normal_error", 0.0), std::isfinite(max_normal) ? max_normal : 2.0);
  summary["volume_relative_error_max"] =
      std::fmax(summary.value("volume_relative_error_max", 0.0), std::isfinite(relative) ? relative : 1.0);
}

/// Recomputes one recorded vertex (a stratum draw) or one site decision.
template <class S>
std::vector<ReplayValue> replay_storage(const Spec& spec, RunContext& context, const ReplayRequest& request) {
  const InputRecord& in = request.input;
  PartSubject* part = nullptr;
  for (std::size_t p = 0; p < context.part_count(); ++p)
    if (context.part(p).part().name == in.part) part = &context.part(p);
  const std::string id(spec.id);
  if (part == nullptr) throw Error(ErrorCode::badarg, id + ": replay: no part named '" + in.part + "' in this run");
  for (Placement where : {Placement::origin, Placement::far}) {
    if (in.generator != decision_generator(spec.mesher, where)) continue;
    const PartRun<S> run(context, *part, where, spec.id, spec.mesher);
    if (in.index >= run.prepared.candidates.size())
      throw Error(ErrorCode::badarg, id + ": replay: site index " + std::to_string(in.index) + " out of range");
    return {{in.generator, run.prepared.vertex_of[in.index] >= 0 ? "crossing" : "no crossing",
             run.prepared.candidates[in.index].crossing ? "crossing" : "no crossing"}};
  }
  for (std::size_t si = 0; si < spec.stratum_count; ++si) {
    const Stratum& stratum = spec.strata[si];
    if (in.generator != stratum.name) continue;
    const PartRun<S> run(context, *part, stratum.where, spec.id, spec.mesher);
    const Prepared& prepared = run.prepared;
    bool fallback = false;
    const std::vector<std::size_t> sites = stratum_sites(prepared, stratum.site_class, fallback);
    if (sites.empty()) throw Error(ErrorCode::badarg, id + ": replay: no crossing sites");
    const Outcome o = measure(prepared, draw_site(in.seed, spec.id, stratum.name, in.index, sites),
                              part->shape(stratum.where), *run.grid, run.nodes);
    const std::string site = site_text(prepared.candidates[o.candidate].site);
    if (!o.matched) return {{"vertex", "none", site}};
    std::vector<ReplayValue> values{
        {"vertex", hex_float(o.core[0]) + ' ' + hex_float(o.core[1]) + ' ' + hex_float(o.core[2]), site},
        {"arithmetic", hex_float(o.arithmetic.result), hex_float(o.arithmetic.reference)}};
    if (o.sign_flip) return values;
    values.push_back({"error", hex_float(o.error.result), hex_float(o.error.reference)});
    values.push_back({"storage", hex_float(o.storage.result), hex_float(o.storage.reference)});
    if (o.method) values.push_back({"method", hex_float(o.method->result), hex_float(o.method->reference)});
    return values;
  }
  throw Error(ErrorCode::badarg, id + ": replay: unknown generator '" + in.generator + "'");
}

}  // namespace

std::vector<CalculationResult> run(const Spec& spec, RunContext& context) {
  const RunSettings& settings = context.settings();
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    CalculationResult r;
    r.storage = storage;
    r.error = ErrorStats(true, false);
    r.arithmetic = r.storage_error = r.method = ErrorStats(true, false);
    for (std::size_t si = 0; si < spec.stratum_count; ++si)
      r.strata.push_back({spec.strata[si].name, spec.strata[si].description, 0, 0});
    r.decisions.emplace_back(
        decision_name(spec.mesher),
        std::string(is_edge_mesher(spec.mesher) ? "each grid edge" : "each cell") +
            " near the surface (crossing, or a corner within h of zero), at the origin and in the far copy: does "
            "the core make a vertex for it, "
            "against the exact answer from the stored values' signs (value < 0 inside); margin: the smallest "
            "|corner value| in ulps of band h. Core vertices at no crossing site count as misclassified.");
    nlohmann::json table = nlohmann::json::array(), summary = nlohmann::json::object();
    for (std::size_t p = 0; p < context.part_count(); ++p) {
      with_storage(storage, [&]<class S>() { run_storage<S>(spec, context, context.part(p), r, table, summary); });
    }
    r.details = {{"by_part", table},
                 {"summary", summary},
                 {"vertices_audited_per_generator_and_part", vertices_per_stratum(settings.inputs)},
                 {"null_means", "a NaN or infinite value"}};
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ReplayValue> replay(const Spec& spec, RunContext& context, const ReplayRequest& request) {
  return with_storage(request.storage, [&]<class S>() { return replay_storage<S>(spec, context, request); });
}

}  // namespace distgrid::audit::calcs::contour_audit
