#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <type_traits>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/audit/reference/side.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "mesh_support.hpp"
#include "part_inputs.hpp"
#include "stratified.hpp"

namespace distgrid::audit::calcs {

namespace {
struct MeshNodeDistance;  // the measurement, below
}  // namespace

Calculation mesh_node_distance() {
  return {
      .id = "mesh.node_distance",
      .title = "Signed distance from a node to the mesh, stored",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/mesh_bake.cpp", "bake_mesh_brick"},
                  {"core/src/mesh_bake.cpp", "signed_distances"},
                  {"core/src/mesh_bake.cpp", "TriangleFrame"},
                  {"core/src/mesh_bake.cpp", "pseudo_normal"}},
      .formula = "d = min over triangles of |node - closest point| (a branch-free squared distance picks the "
                 "triangle, closest_point_on_triangle the point and feature), sign of (node - point) . pseudo-normal, "
                 "clamped to +-band h and stored as S",
      .inputs = "per mesh part of the run with at most 10 000 triangles, baked at twice the run's h: nodes near the surface, near "
                "+-band h, near mesh edges and corners, uniform in the box",
      .implementation = "bake_mesh (node values read back as stored)",
      .reference = "min over triangles of the exact closest point's distance (rationals; high-precision square root); "
                   "the node's side by exact ray parity",
      .errors = "error: stored vs exact clamped signed distance, in h and ulps of band h. Arithmetic: the core's "
                "double (the double grid's value) vs exact; storage: stored S vs the core's double; method: not "
                "applicable (see details). Decision sign: the node's sign vs the exact side.",
      .run = &run_stratified<MeshNodeDistance>,
      .replay = &replay_stratified<MeshNodeDistance>,
      .parts_taken = PartsTaken::mesh,
  };
}

namespace {

using reference::Rational;
using Node = std::array<std::int64_t, 3>;

enum class Kind { near_surface, near_band, near_edges_corners, random };

template <class S>
struct MeshGrid {
  std::unique_ptr<Grid<S>> grid;
  std::unique_ptr<reference::StoredNodes<S>> nodes;
};

/// One mesh part baked in double (the core's double unrounded) and in every
/// storage of the run, with the triangles the references use.
struct BakedMeshPart {
  std::string name;
  PreparedMesh prepared;
  std::vector<reference::TriangleCorners> triangles;
  Point lo{}, hi{};
  double h = 0, band = 0;
  MeshGrid<double> as_double;
  /// The run's storages in its order, each read through the audit's own decoding.
  std::vector<std::function<double(const Node&)>> stored;
};

template <class S>
MeshGrid<S> bake_stored(const PreparedMesh& mesh, const MeshBakeSettings& settings) {
  MeshGrid<S> baked;
  baked.grid = std::make_unique<Grid<S>>(bake_mesh<S>(mesh, settings));
  baked.nodes = std::make_unique<reference::StoredNodes<S>>(*baked.grid);
  return baked;
}

BakedMeshPart bake_subject(const MeshSubject& mesh, double h, double band, const std::vector<Storage>& storages) {
  BakedMeshPart subject;
  subject.name = mesh.part.name;
  subject.prepared = RunContext::prepare(mesh);
  subject.h = h;
  subject.band = band;
  const PreparedMesh& m = subject.prepared;
  subject.lo = subject.hi = m.positions[m.triangles[0][0]];
  for (const auto& t : m.triangles) {
    subject.triangles.push_back({m.positions[t[0]], m.positions[t[1]], m.positions[t[2]]});
    for (std::uint32_t c : t)
      for (std::size_t a = 0; a < 3; ++a) {
        subject.lo[a] = std::fmin(subject.lo[a], m.positions[c][a]);
        subject.hi[a] = std::fmax(subject.hi[a], m.positions[c][a]);
      }
  }
  MeshBakeSettings settings;
  settings.h = h;
  settings.band = band;
  settings.threads = 1;
  subject.as_double = bake_stored<double>(m, settings);
  for (Storage storage : storages)
    with_storage(storage, [&]<class S>() {
      if constexpr (std::is_same_v<S, double>) {  // the grid baked above (its nodes move with the subject)
        const reference::StoredNodes<double>* nodes = subject.as_double.nodes.get();
        subject.stored.emplace_back([nodes](const Node& n) { return nodes->value(n[0], n[1], n[2]); });
      } else {
        auto baked = std::make_shared<MeshGrid<S>>(bake_stored<S>(m, settings));
        subject.stored.emplace_back([baked](const Node& n) { return baked->nodes->value(n[0], n[1], n[2]); });
      }
    });
  return subject;
}

Point unit(const Point& v) {
  const double length = std::sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
  return {v[0] / length, v[1] / length, v[2] / length};
}

struct MeshNodeDistance {
  static constexpr std::string_view id = "mesh.node_distance";
  static constexpr Generator<Kind> kGenerators[] = {
      {Kind::near_surface, "near_surface",
       "the node nearest a random point of a random triangle moved up to h/2 along its normal"},
      {Kind::near_band, "near_band",
       "the node nearest a random point of a random triangle moved band h +- h/2 along its normal, either side"},
      {Kind::near_edges_corners, "near_edges_corners",
       "the node nearest a random mesh corner, or a random point of a random edge, moved up to 1.5 h in a random "
       "direction"},
      {Kind::random, "random", "a node uniform in the mesh's box widened by (band + 1) h"},
  };
  using Subject = BakedMeshPart;
  using Input = Node;
  struct Outcome {
    std::vector<StorageErrors> by_storage;
    std::vector<std::string> core_sign;  // by storage
    std::string exact_sign;
    double margin_ulps = 0;
  };

  const RunSettings& settings;
  /// The bake's h: twice the run's (a coarse grid keeps the bake and the references within the time budget).
  double h;

  explicit MeshNodeDistance(RunContext& context) : settings(context.settings()), h(2 * context.settings().h) {}

  /// The run's mesh parts small enough for the exact reference (kExactReferenceTriangles).
  std::vector<PartUnit<BakedMeshPart>> parts(RunContext& context) const {
    std::vector<PartUnit<BakedMeshPart>> units;
    for (const audit::MeshSubject* mesh : context.mesh_parts_up_to(kExactReferenceTriangles)) {
      context.mark_untrusted(*mesh);  // a node's sign is the mesh's inside, which an open mesh lacks
      units.push_back({mesh->part.name, [this, &context, mesh](Placement) {
                         context.progress().begin(std::string(id).append(" bake ").append(mesh->part.name), 1);
                         BakedMeshPart subject = bake_subject(*mesh, h, settings.band, settings.storages);
                         context.progress().advance(1);
                         context.progress().end();
                         return subject;
                       }});
    }
    return units;
  }

  /// Nodes per generator and part: one per 10 inputs.
  std::size_t inputs_per_generator(const RunSettings&) const { return std::max<std::size_t>(1, settings.inputs / 10); }

  void start(CalculationResult& r) const {
    start_errors_in_h(r, false);
    r.decisions.emplace_back("sign",
                             "the sign a node reads (inside < 0, outside > 0, surface 0) vs the exact side of the node "
                             "(exact parity of a perturbed ray; surface when the exact distance is 0); margin: the "
                             "exact distance in ulps of band h");
  }

  Node generate(const BakedMeshPart& subject, const Generator<Kind>& generator, std::uint64_t seed, std::uint64_t index,
                bool&) const {
    InputRng rng(seed, id, std::string(generator.name) + "/" + subject.name, index);
    Point p{};
    const auto random_triangle = [&]() -> const reference::TriangleCorners& {
      return subject.triangles[static_cast<std::size_t>(
          rng.integer(0, static_cast<std::int64_t>(subject.triangles.size()) - 1))];
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
    switch (generator.kind) {
      case Kind::near_surface:
      case Kind::near_band: {
        const reference::TriangleCorners& t = random_triangle();
        const Point q = on_triangle(t), n = normal_of(t);
        double offset = rng.uniform(-0.5, 0.5) * h;
        if (generator.kind == Kind::near_band) offset += (rng.integer(0, 1) == 0 ? -1 : 1) * subject.band * h;
        for (std::size_t a = 0; a < 3; ++a) p[a] = q[a] + offset * n[a];
        break;
      }
      case Kind::near_edges_corners: {
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
      case Kind::random:
        for (std::size_t a = 0; a < 3; ++a)
          p[a] = rng.uniform(subject.lo[a] - (subject.band + 1) * h, subject.hi[a] + (subject.band + 1) * h);
        break;
    }
    return {static_cast<std::int64_t>(std::nearbyint(p[0] / h)), static_cast<std::int64_t>(std::nearbyint(p[1] / h)),
            static_cast<std::int64_t>(std::nearbyint(p[2] / h))};
  }

  /// The stored value against the exact clamped signed distance: min over the
  /// triangles of the exact closest point's distance, candidates picked by the
  /// audit's own double distance with a slack far wider than its rounding (~1e-16
  /// of the mesh); the side by exact ray parity. Arithmetic: the core's double
  /// (the double grid's value) against exact; storage: stored against that double.
  Outcome measure(const BakedMeshPart& subject, const Node& node) const {
    Outcome out;
    const double band_width = subject.band * h;
    const Rational step(h);
    const reference::RationalPoint q{step * Rational(node[0]), step * Rational(node[1]), step * Rational(node[2])};
    const Point qd{q[0].convert_to<double>(), q[1].convert_to<double>(), q[2].convert_to<double>()};
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

    const double core_double = subject.as_double.nodes->value(node[0], node[1], node[2]);
    const ErrorValue arithmetic = distance_error(HighPrecision(core_double), exact, h, band_width);
    for (const auto& stored_value : subject.stored) {
      const double stored = stored_value(node);
      out.by_storage.push_back({distance_error(HighPrecision(stored), exact, h, band_width), arithmetic,
                                distance_error(HighPrecision(stored), HighPrecision(core_double), h, band_width),
                                std::nullopt});
      out.core_sign.emplace_back(reference::side_text(reference::side_of_sign(stored)));
    }
    return out;
  }

  InputValues record(const Node& n) const {
    return {{"i", std::to_string(n[0])}, {"j", std::to_string(n[1])}, {"k", std::to_string(n[2])}, {"h", hex_float(h)}};
  }

  template <class MakeRecord>
  void add_decisions(CalculationResult& r, std::size_t storage, const Outcome& o, const MakeRecord& record) const {
    r.decisions[0].add(o.core_sign[storage], o.exact_sign, o.margin_ulps, record);
  }

  std::vector<ReplayValue> replay_decisions(const Outcome& o, std::size_t storage) const {
    return {{"sign", o.core_sign[storage], o.exact_sign}};
  }

  nlohmann::json row(CalculationResult& r, std::size_t storage, const std::string& part, const BakedMeshPart&,
                     std::span<const Sample<MeshNodeDistance>> samples, const ErrorMaxima& max) const {
    std::size_t wrong = 0;
    for (const Sample<MeshNodeDistance>& sample : samples)
      wrong += sample.outcome.core_sign[storage] != sample.outcome.exact_sign ? 1u : 0u;
    return {{"part", part}, {"misclassified_signs", wrong}, {"max_h", maxima_json(max, r)}};
  }

  nlohmann::json details(nlohmann::json table) const {
    return {
        {"by_part_and_generator", std::move(table)},
        {"h", h},
        {"band", settings.band},
        {"method", "not applicable: a node stores the distance to the mesh itself, computed exactly up to rounding; "
                   "the mesh's departure from a smooth sphere or torus is the part's tessellation, and the "
                   "discretisation between nodes is grid.sample's method error"},
        {"arithmetic_means", "the core's double (read from the double grid, which stores it unrounded) vs the exact "
                             "clamped signed distance"},
        {"storage_means", "the stored value vs the core's double: 0 for double bricks, the storage's rounding for the others"}};
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
