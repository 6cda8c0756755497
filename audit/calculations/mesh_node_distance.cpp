// mesh.node_distance: the signed distance a mesh bake stores at a node.
//
// Implementation under test: bake_mesh (core/src/mesh_bake.cpp) on the built-in
// mesh parts icosphere_1k and torus_mesh, read back node by node. References,
// independent of core's mesh code:
//   distance  min over triangles of the exact closest point's distance
//             (rationals, square root in high precision), candidates picked by
//             the audit's own double distance with a wide slack;
//   sign      exact parity of a symbolically perturbed ray (reference::exact_side).
// Errors: arithmetic = the core's double (what a double grid stores) vs the
// exact clamped distance; storage = the stored S vs that double; method: none,
// since a node's value is the distance to the mesh itself, with no
// discretisation (the mesh's own departure from the smooth sphere or torus is
// the part's tessellation, not distgrid's method; grid.sample measures the
// method between nodes).
#include <cmath>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "part_inputs.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "mesh_support.hpp"

namespace distgrid::audit::runs {

namespace {

using mesh_support::Point;
using reference::Rational;
constexpr std::string_view kId = "mesh.node_distance";
constexpr const char* kParts[] = {"icosphere_1k", "torus_mesh"};

enum class Stratum { near_surface, near_band, near_edges_corners, random };

struct StratumSpec {
  Stratum kind;
  const char* name;
  const char* description;
};

constexpr StratumSpec kStrata[] = {
    {Stratum::near_surface, "near_surface", "the node nearest a random point of a random triangle moved up to h/2 along its normal"},
    {Stratum::near_band, "near_band",
     "the node nearest a random point of a random triangle moved band h +- h/2 along its normal, either side"},
    {Stratum::near_edges_corners, "near_edges_corners",
     "the node nearest a random mesh corner, or a random point of a random edge, moved up to 1.5 h in a random direction"},
    {Stratum::random, "random", "a node uniform in the mesh's box widened by (band + 1) h"},
};

/// Nodes per generator and part: one per 10 inputs.
std::size_t node_count(std::size_t inputs) { return std::max<std::size_t>(1, inputs / 10); }

/// One mesh part baked in both storages, with the triangles the references use.
struct Subject {
  std::string name;
  PreparedMesh prepared;
  std::vector<reference::TriangleCorners> triangles;
  Point lo{}, hi{};
  double h = 0, band = 0;
  std::unique_ptr<Grid<float>> grid_float;
  std::unique_ptr<Grid<double>> grid_double;
  std::unique_ptr<reference::StoredNodes<float>> nodes_float;
  std::unique_ptr<reference::StoredNodes<double>> nodes_double;
};

/// The bake's h: twice the run's (a coarse grid keeps the bake and the references within the time budget).
double bake_h(const RunSettings& settings) { return 2 * settings.h; }

std::unique_ptr<Subject> make_subject(const char* part_name, double h, double band) {
  auto subject = std::make_unique<Subject>();
  const MeshPart part = mesh_part(part_name);
  subject->name = part.name;
  subject->prepared = prepare_mesh(part.mesh, part.name);
  subject->h = h;
  subject->band = band;
  const PreparedMesh& m = subject->prepared;
  subject->lo = subject->hi = m.positions[m.triangles[0][0]];
  for (const auto& t : m.triangles) {
    subject->triangles.push_back({m.positions[t[0]], m.positions[t[1]], m.positions[t[2]]});
    for (std::uint32_t c : t)
      for (std::size_t a = 0; a < 3; ++a) {
        subject->lo[a] = std::fmin(subject->lo[a], m.positions[c][a]);
        subject->hi[a] = std::fmax(subject->hi[a], m.positions[c][a]);
      }
  }
  MeshBakeSettings settings;
  settings.h = h;
  settings.band = band;
  settings.threads = 1;
  subject->grid_float = std::make_unique<Grid<float>>(bake_mesh<float>(m, settings));
  subject->grid_double = std::make_unique<Grid<double>>(bake_mesh<double>(m, settings));
  subject->nodes_float = std::make_unique<reference::StoredNodes<float>>(*subject->grid_float);
  subject->nodes_double = std::make_unique<reference::StoredNodes<double>>(*subject->grid_double);
  return subject;
}

using Node = std::array<std::int64_t, 3>;

Point unit(const Point& v) {
  const double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return {v[0] / length, v[1] / length, v[2] / length};
}

/// Input generator: the index-th node of a stratum for one part.
Node generate_input(const Subject& subject, const StratumSpec& stratum, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, std::string(stratum.name) + "/" + subject.name, index);
  const double h = subject.h;
  Point p{};
  const auto random_triangle = [&]() -> const reference::TriangleCorners& {
    return subject.triangles[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(subject.triangles.size()) - 1))];
  };
  const auto on_triangle = [&](const reference::TriangleCorners& t) {
    double u = rng.unit(), v = rng.unit();
    if (u + v > 1) {
      u = 1 - u;
      v = 1 - v;
    }
    Point q;
    for (std::size_t a = 0; a < 3; ++a) q[a] = t[0][a] + u * (t[1][a] - t[0][a]) + v * (t[2][a] - t[0][a]);
    return q;
  };
  const auto normal_of = [](const reference::TriangleCorners& t) {
    const Point ab{t[1][0] - t[0][0], t[1][1] - t[0][1], t[1][2] - t[0][2]};
    const Point ac{t[2][0] - t[0][0], t[2][1] - t[0][1], t[2][2] - t[0][2]};
    return unit({ab[1] * ac[2] - ab[2] * ac[1], ab[2] * ac[0] - ab[0] * ac[2], ab[0] * ac[1] - ab[1] * ac[0]});
  };
  switch (stratum.kind) {
    case Stratum::near_surface:
    case Stratum::near_band: {
      const reference::TriangleCorners& t = random_triangle();
      const Point q = on_triangle(t), n = normal_of(t);
      double offset = rng.uniform(-0.5, 0.5) * h;
      if (stratum.kind == Stratum::near_band) offset += (rng.integer(0, 1) == 0 ? -1 : 1) * subject.band * h;
      for (std::size_t a = 0; a < 3; ++a) p[a] = q[a] + offset * n[a];
      break;
    }
    case Stratum::near_edges_corners: {
      const reference::TriangleCorners& t = random_triangle();
      const auto e = static_cast<std::size_t>(rng.integer(0, 2));
      const double along = rng.integer(0, 1) == 0 ? 0 : rng.unit();  // a corner, or a point of the edge
      Point direction{rng.uniform(-1, 1), rng.uniform(-1, 1), rng.uniform(-1, 1)};
      direction = unit(direction);
      const double r = rng.uniform(0, 1.5) * h;
      for (std::size_t a = 0; a < 3; ++a)
        p[a] = t[e][a] + along * (t[(e + 1) % 3][a] - t[e][a]) + r * direction[a];
      break;
    }
    case Stratum::random:
      for (std::size_t a = 0; a < 3; ++a)
        p[a] = rng.uniform(subject.lo[a] - (subject.band + 1) * h, subject.hi[a] + (subject.band + 1) * h);
      break;
  }
  return {static_cast<std::int64_t>(std::nearbyint(p[0] / h)), static_cast<std::int64_t>(std::nearbyint(p[1] / h)),
          static_cast<std::int64_t>(std::nearbyint(p[2] / h))};
}

struct Outcome {
  Node node{};
  ErrorValue arithmetic;
  std::array<ErrorValue, 2> error, storage;  // by Storage
  std::array<std::string, 2> core_sign;      // by Storage
  std::string exact_sign;
  double margin_ulps = 0;
  std::size_t candidates = 0;
};

const char* sign_text(double v) { return v < 0 ? "inside" : (v > 0 ? "outside" : "surface"); }

Outcome measure(const Subject& subject, const Node& node) {
  Outcome out;
  out.node = node;
  const double h = subject.h, band_width = subject.band * h;
  const Rational step(h);
  const reference::RationalPoint q{step * Rational(node[0]), step * Rational(node[1]), step * Rational(node[2])};
  const Point qd{q[0].convert_to<double>(), q[1].convert_to<double>(), q[2].convert_to<double>()};

  // Candidates: triangles whose double distance is within a slack of the
  // smallest, far wider than that distance's rounding (~1e-16 of the mesh).
  std::vector<double> approximate(subject.triangles.size());
  double least = std::numeric_limits<double>::infinity();
  for (std::size_t t = 0; t < subject.triangles.size(); ++t) {
    const auto& tri = subject.triangles[t];
    approximate[t] = std::sqrt(reference::approximate_distance_squared(qd, tri[0], tri[1], tri[2]));
    least = std::fmin(least, approximate[t]);
  }
  const double cutoff = least + 1e-9 * (1 + least);
  HighPrecision best(-1);
  for (std::size_t t = 0; t < subject.triangles.size(); ++t) {
    if (approximate[t] > cutoff) continue;
    ++out.candidates;
    const auto& tri = subject.triangles[t];
    const HighPrecision d2 = reference::exact_closest_point(q, tri[0], tri[1], tri[2]).distance_squared;
    if (best < 0 || d2 < best) best = d2;
  }
  const HighPrecision distance = sqrt(best);
  const reference::Side side = best == 0 ? reference::Side::surface : reference::exact_side(q, subject.triangles);
  out.exact_sign = reference::side_text(side);
  const HighPrecision width = HighPrecision(subject.band) * HighPrecision(h);
  HighPrecision exact = side == reference::Side::inside ? HighPrecision(-distance) : distance;
  exact = exact < -width ? HighPrecision(-width) : (exact > width ? width : exact);
  out.margin_ulps = error_in_ulps(to_double(distance), to_double(distance), band_width);

  const double core_double = subject.nodes_double->value(node[0], node[1], node[2]);
  const double core_float = subject.nodes_float->value(node[0], node[1], node[2]);
  out.arithmetic = distance_error(HighPrecision(core_double), exact, h, band_width);
  for (Storage s : {Storage::float32, Storage::float64}) {
    const double stored = s == Storage::float32 ? core_float : core_double;
    const auto i = static_cast<std::size_t>(s);
    out.error[i] = distance_error(HighPrecision(stored), exact, h, band_width);
    out.storage[i] = distance_error(HighPrecision(stored), HighPrecision(core_double), h, band_width);
    out.core_sign[i] = sign_text(stored);
  }
  return out;
}

}  // namespace

std::vector<CalculationResult> run_mesh_node_distance(RunContext& context) {
  const RunSettings& settings = context.settings();
  const double h = bake_h(settings);
  std::array<CalculationResult, 2> results;
  std::array<nlohmann::json, 2> tables{nlohmann::json::array(), nlohmann::json::array()};
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    r.arithmetic = r.storage_error = ErrorStats(true, false);
    r.decisions.emplace_back("sign",
                             "the sign a node reads (inside < 0, outside > 0, surface 0) vs the exact side of the node "
                             "(exact parity of a perturbed ray; surface when the exact distance is 0); margin: the "
                             "exact distance in ulps of band h");
    for (const StratumSpec& stratum : kStrata) r.strata.push_back({stratum.name, stratum.description, 0, 0});
  }
  for (const char* part_name : kParts) {
    context.progress().begin(std::string(kId) + " bake " + part_name, 1);
    const std::unique_ptr<Subject> subject = make_subject(part_name, h, settings.band);
    context.progress().advance(1);
    context.progress().end();
    for (std::size_t si = 0; si < std::size(kStrata); ++si) {
      const StratumSpec& stratum = kStrata[si];
      const std::size_t count = node_count(settings.inputs);
      const InputRange range = context.shard_inputs(count);
      std::vector<Outcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + part_name + " " + stratum.name, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        outcomes[k] = measure(*subject, generate_input(*subject, stratum, settings.seed, range.first + k));
      });
      context.progress().end();
      for (Storage storage : settings.storages) {
        const auto s = static_cast<std::size_t>(storage);
        CalculationResult& r = results[s];
        double most_error = 0, most_arithmetic = 0, most_storage = 0;
        std::size_t wrong = 0;
        r.begin_unit(count);
        for (std::size_t k = 0; k < range.size(); ++k) {
          const std::size_t n = range.first + k;
          const Outcome& o = outcomes[k];
          auto record = [&] {
            return InputRecord{settings.seed,
                               stratum.name,
                               n,
                               part_name,
                               {{"i", std::to_string(o.node[0])},
                                {"j", std::to_string(o.node[1])},
                                {"k", std::to_string(o.node[2])},
                                {"h", hex_float(h)}}};
          };
          r.error.add(o.error[s], record);
          r.arithmetic->add(o.arithmetic, record);
          r.storage_error->add(o.storage[s], record);
          r.decisions[0].add(o.core_sign[s], o.exact_sign, o.margin_ulps, record);
          wrong += o.core_sign[s] != o.exact_sign ? 1u : 0u;
          most_error = std::fmax(most_error, *o.error[s].h);
          most_arithmetic = std::fmax(most_arithmetic, *o.arithmetic.h);
          most_storage = std::fmax(most_storage, *o.storage[s].h);
        }
        r.strata[si].count += range.size();
        tables[s].push_back({{"part", part_name},
                             {"generator", stratum.name},
                             {"count", range.size()},
                             {"misclassified_signs", wrong},
                             {"max_h", {{"error", finite_or_null(most_error)},
                                        {"arithmetic", finite_or_null(most_arithmetic)},
                                        {"storage", finite_or_null(most_storage)}}}});
      }
    }
  }
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    results[s].storage = storage;
    results[s].details = {
        {"by_part_and_generator", tables[s]},
        {"h", h},
        {"band", settings.band},
        {"method", "not applicable: a node stores the distance to the mesh itself, computed exactly up to rounding; "
                   "the mesh's departure from a smooth sphere or torus is the part's tessellation, and the "
                   "discretisation between nodes is grid.sample's method error"},
        {"arithmetic_means", "the core's double (read from the double grid, which stores it unrounded) vs the exact "
                             "clamped signed distance"},
        {"storage_means", "the stored value vs the core's double: 0 for double bricks, the float rounding for float"}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay_mesh_node_distance(RunContext& context, const ReplayRequest& request) {
  const StratumSpec& stratum = kStrata[mesh_support::stratum_index(kStrata, request.input.generator, kId)];
  const char* part_name = nullptr;
  for (const char* p : kParts)
    if (request.input.part == p) part_name = p;
  if (!part_name) throw Error(ErrorCode::badarg, "replay: mesh.node_distance has no part '" + request.input.part + "'");
  const std::unique_ptr<Subject> subject = make_subject(part_name, bake_h(context.settings()), context.settings().band);
  const Outcome o = measure(*subject, generate_input(*subject, stratum, request.input.seed, request.input.index));
  const auto s = static_cast<std::size_t>(request.storage);
  return {{"error", hex_float(o.error[s].result), hex_float(o.error[s].reference)},
          {"arithmetic", hex_float(o.arithmetic.result), hex_float(o.arithmetic.reference)},
          {"storage", hex_float(o.storage[s].result), hex_float(o.storage[s].reference)},
          {"sign", o.core_sign[s], o.exact_sign}};
}

}  // namespace distgrid::audit::runs
