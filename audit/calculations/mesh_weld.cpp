#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "mesh_support.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation mesh_weld() {
  return {
      .id = "mesh.weld",
      .title = "Merge corners at identical positions",
      .declared = PrecisionClass::bits64,
      .sources = {{"core/src/mesh_prepare.cpp", "weld_corners"}, {"core/src/mesh_prepare.cpp", "bits_of"}},
      .formula = "two corners merge when their three coordinates are equal as doubles (no tolerance; -0 equals +0); "
                 "welded corners keep the first position bit for bit",
      .inputs = "triangle soups of 12 to 30 corners copied from a few base positions: equal copies and copies one ulp "
                "away, zeros of both signs and the smallest subnormal, base positions far from the origin, "
                "independent random corners with exact repeats; runs of 4 to 10 consecutive triangles of each of "
                "the run's mesh parts, each triangle with its own copies of its corners",
      .implementation = "weld_corners",
      .reference = "for every pair of corners, IEEE equality of the three coordinates (an exact comparison)",
      .errors = "error: |welded position - input position| in ulps (must be 0). Decision weld: merged vs equal, per "
                "pair, margin the ulp distance between the positions. No stored values: no arithmetic / storage / "
                "method split.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::mesh,
  };
}

namespace {

using mesh_support::Point;
constexpr std::string_view kId = "mesh.weld";

enum class Stratum { near_coincident, signed_zero, far, random, part_triangles };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::near_coincident, "near_coincident",
     "corners copied from 3 to 6 base positions in [-1, 1]^3: equal copies, and copies one ulp away on one to "
     "three axes (either direction)"},
    {Stratum::signed_zero, "signed_zero",
     "base positions with zero coordinates; copies with the zeros' signs flipped (-0 vs +0), equal copies, and "
     "copies one ulp from zero (the smallest subnormal)"},
    {Stratum::far, "far",
     "near-coincident copies of base positions of magnitude 2^20 to 2^30 (an ulp of 2^-32 to 2^-22)"},
    {Stratum::random, "random", "independent uniform corners in [-1, 1]^3, half of them exact repeats of earlier ones"},
    {Stratum::part_triangles, "part_triangles",
     "per mesh part of the run: 4 to 10 consecutive triangles from a random start, each with its own copies of its "
     "corners as the mesh gives them (neighbours share corners exactly)"},
};

/// Soups per generator: one per 10 inputs, each with 12 to 30 corners (66 to 435 pairs).
std::size_t soup_count(std::size_t inputs) { return std::max<std::size_t>(1, inputs / 10); }

/// Triangles of a soup at most: a soup adds at most 3 kMostTriangles corner errors.
constexpr std::int64_t kMostTriangles = 10;

/// The part_triangles input: a run of consecutive triangles of a mesh part as a soup.
TriangleMesh part_soup(const MeshSubject& mesh, const char* name, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, std::string(name) + "/" + mesh.part.name, index);
  const TriangleMesh& part = mesh.part.mesh;
  const auto size = static_cast<std::int64_t>(part.triangles.size());
  const std::int64_t triangles = std::min<std::int64_t>(rng.integer(4, kMostTriangles), size);
  const std::int64_t first = rng.integer(0, size - triangles);
  TriangleMesh soup;
  for (std::int64_t t = first; t < first + triangles; ++t) {
    for (std::uint32_t c : part.triangles[static_cast<std::size_t>(t)]) soup.positions.push_back(part.positions[c]);
    const auto base = static_cast<std::uint32_t>(soup.positions.size() - 3);
    soup.triangles.push_back({base, base + 1, base + 2});
  }
  return soup;
}

/// Input generator: the index-th soup of a stratum, one corner per triangle corner.
TriangleMesh generate_input(Stratum kind, const char* name, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, name, index);
  const auto triangles = static_cast<std::size_t>(rng.integer(4, kMostTriangles));
  const auto bases = static_cast<std::size_t>(rng.integer(3, 6));
  std::vector<Point> base(bases);
  for (Point& p : base) {
    for (double& x : p) x = rng.uniform(-1, 1);
    if (kind == Stratum::signed_zero)
      for (double& x : p) x = rng.integer(0, 1) == 0 ? 0.0 : x;
    if (kind == Stratum::far) {
      const double scale = std::ldexp(1.0, static_cast<int>(rng.integer(20, 30)));
      for (double& x : p) x *= scale;
    }
  }
  constexpr double kInfinity = std::numeric_limits<double>::infinity();
  TriangleMesh soup;
  for (std::size_t c = 0; c < 3 * triangles; ++c) {
    Point p;
    if (kind == Stratum::random) {
      const bool repeat = !soup.positions.empty() && rng.integer(0, 1) == 0;
      if (repeat) {
        p = soup.positions[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(soup.positions.size()) - 1))];
      } else {
        for (double& x : p) x = rng.uniform(-1, 1);
      }
    } else {
      p = base[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(bases) - 1))];
      const std::int64_t variant = rng.integer(0, 2);  // 0: equal, 1: one ulp off, 2: zeros' signs flipped
      for (double& x : p) {
        const bool touch = rng.integer(0, 1) == 1;
        if (!touch) continue;
        if (variant == 1) x = std::nextafter(x, rng.integer(0, 1) == 0 ? -kInfinity : kInfinity);
        else if (variant == 2 && x == 0) x = -x;
      }
    }
    soup.positions.push_back(p);
  }
  for (std::uint32_t t = 0; t < triangles; ++t) soup.triangles.push_back({3 * t, 3 * t + 1, 3 * t + 2});
  return soup;
}

/// Exact reference: equal as doubles on all three axes.
bool same_position(const Point& p, const Point& q) { return p[0] == q[0] && p[1] == q[1] && p[2] == q[2]; }

struct PairOutcome {
  std::uint32_t u = 0, v = 0;
  bool core_merged = false, exact_merged = false;
  double margin_ulps = 0;  ///< largest ulp distance over the three axes
};

struct Outcome {
  std::vector<PairOutcome> pairs;
  std::vector<ErrorValue> corner_errors;  ///< welded position vs its input, per input corner
};

/// The implementation under test: the welded corner of every input corner.
std::vector<std::uint32_t> implementation(const TriangleMesh& soup, TriangleMesh& welded) {
  welded = weld_corners(soup, "audit soup");
  std::vector<std::uint32_t> welded_of(soup.positions.size());
  for (std::size_t t = 0; t < soup.triangles.size(); ++t)
    for (std::size_t c = 0; c < 3; ++c) welded_of[soup.triangles[t][c]] = welded.triangles[t][c];
  return welded_of;
}

Outcome measure(const TriangleMesh& soup) {
  Outcome out;
  TriangleMesh welded;
  const std::vector<std::uint32_t> welded_of = implementation(soup, welded);
  const auto n = static_cast<std::uint32_t>(soup.positions.size());
  for (std::uint32_t u = 0; u < n; ++u) {
    const Point& in = soup.positions[u];
    const Point& kept = welded.positions[welded_of[u]];
    ErrorValue e;
    double scale = 0;
    for (std::size_t a = 0; a < 3; ++a) {
      e.abs = std::fmax(e.abs, std::fabs(kept[a] - in[a]));
      scale = std::fmax(scale, std::fabs(in[a]));
    }
    e.result = e.abs;
    e.reference = 0;
    e.ulps = error_in_ulps(e.abs, scale, 0);
    out.corner_errors.push_back(e);
    for (std::uint32_t v = u + 1; v < n; ++v) {
      PairOutcome pair{u, v, welded_of[u] == welded_of[v], same_position(in, soup.positions[v]), 0};
      for (std::size_t a = 0; a < 3; ++a)
        pair.margin_ulps = std::fmax(pair.margin_ulps, mesh_support::ulp_steps(in[a], soup.positions[v][a]));
      out.pairs.push_back(pair);
    }
  }
  return out;
}

const char* merged_text(bool merged) { return merged ? "merged" : "separate"; }


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& settings = context.settings();
  CalculationResult result;
  result.error = ErrorStats(false, false);
  DecisionStats decision("weld",
                         "per pair of corners of a soup: merged by weld_corners vs equal as doubles on all three axes; "
                         "margin: the largest ulp distance between the two positions over the axes (0: identical "
                         "positions, which must merge; 1: one ulp apart, which must not)");
  nlohmann::json table = nlohmann::json::array();
  double smallest_distinct_margin = std::numeric_limits<double>::infinity();
  std::vector<std::pair<const StratumSpec*, const MeshSubject*>> units;
  for (const StratumSpec& stratum : kStrata) {
    if (stratum.kind != Stratum::part_triangles) units.emplace_back(&stratum, nullptr);
    else
      for (std::size_t m = 0; m < context.mesh_part_count(); ++m) units.emplace_back(&stratum, &context.mesh_part(m));
  }
  std::size_t part_soups = 0;
  for (const auto& unit : units) {
    const StratumSpec& stratum = *unit.first;
    const MeshSubject* const mesh = unit.second;  // a name of its own: lambdas capture it (clang 14)
    const std::string part = mesh ? mesh->part.name : std::string();
    const std::size_t count = soup_count(settings.inputs);
    const InputRange range = context.shard_inputs(count);
    std::vector<TriangleMesh> soups(range.size());
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      soups[k] = mesh ? part_soup(*mesh, stratum.name, settings.seed, range.first + k)
                      : generate_input(stratum.kind, stratum.name, settings.seed, range.first + k);
      outcomes[k] = measure(soups[k]);
    });
    context.progress().end();
    // The single run adds at most this many corner errors in the unit (enough for its p99).
    result.error.begin_unit(count * 3 * static_cast<std::size_t>(kMostTriangles));
    decision.begin_unit();
    std::size_t pairs = 0, merged = 0, one_ulp = 0, wrong = 0;
    for (std::size_t k = 0; k < range.size(); ++k) {
      const std::size_t n = range.first + k;
      const TriangleMesh& soup = soups[k];
      for (std::size_t u = 0; u < outcomes[k].corner_errors.size(); ++u)
        result.error.add(outcomes[k].corner_errors[u], [&] {
          return InputRecord{settings.seed, stratum.name, n, part,
                             {{"corner", std::to_string(u)}, {"position", mesh_support::point_text(soup.positions[u])}}};
        });
      for (const PairOutcome& p : outcomes[k].pairs) {
        ++pairs;
        merged += p.exact_merged ? 1u : 0u;
        one_ulp += p.margin_ulps == 1 ? 1u : 0u;
        if (!p.exact_merged) smallest_distinct_margin = std::fmin(smallest_distinct_margin, p.margin_ulps);
        wrong += p.core_merged != p.exact_merged ? 1u : 0u;
        decision.add(merged_text(p.core_merged), merged_text(p.exact_merged), p.margin_ulps, [&] {
          return InputRecord{settings.seed,
                             stratum.name,
                             n,
                             part,
                             {{"u", std::to_string(p.u)},
                              {"v", std::to_string(p.v)},
                              {"position_u", mesh_support::point_text(soup.positions[p.u])},
                              {"position_v", mesh_support::point_text(soup.positions[p.v])}}};
        });
      }
    }
    if (mesh) {
      part_soups += range.size();
    } else {
      result.strata.push_back({stratum.name, std::string(stratum.description) + "; one input is one soup", range.size(), 0});
    }
    table.push_back({{"generator", stratum.name},
                     {"part", mesh ? nlohmann::json(part) : nlohmann::json(nullptr)},
                     {"soups", range.size()},
                     {"pairs", pairs},
                     {"identical_pairs", merged},
                     {"pairs_one_ulp_apart", one_ulp},
                     {"misclassified", wrong}});
  }
  for (const StratumSpec& stratum : kStrata)
    if (stratum.kind == Stratum::part_triangles)
      result.strata.push_back({stratum.name, std::string(stratum.description) + "; one input is one soup", part_soups, 0});
  result.decisions.push_back(std::move(decision));
  result.details = {{"by_generator", table},
                    {"smallest_margin_of_distinct_pairs_ulps", finite_or_null(smallest_distinct_margin)},
                    {"error_means", "largest |welded position - input position| over the axes, in ulps of the "
                                    "input's largest coordinate: welding must keep a position bit for bit"}};
  return mesh_support::for_each_storage(result, settings);
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const StratumSpec& stratum = generator_named(kStrata, request.input.generator, kId);
  const TriangleMesh soup =
      stratum.kind == Stratum::part_triangles
          ? part_soup(context.mesh_part_named(request.input.part), stratum.name, request.input.seed, request.input.index)
          : generate_input(stratum.kind, stratum.name, request.input.seed, request.input.index);
  const Outcome outcome = measure(soup);
  std::vector<ReplayValue> values;
  for (const auto& [name, value] : request.input.values) {
    if (name == "corner") {
      const std::uint64_t u = mesh_support::recorded_unsigned(request, "corner");
      if (u >= outcome.corner_errors.size()) throw Error(ErrorCode::badarg, "replay: mesh.weld corner out of range");
      values.push_back({"error", hex_float(outcome.corner_errors[u].abs), hex_float(0)});
    }
    if (name == "u") {
      const std::uint64_t u = mesh_support::recorded_unsigned(request, "u");
      const std::uint64_t v = mesh_support::recorded_unsigned(request, "v");
      for (const PairOutcome& p : outcome.pairs)
        if (p.u == u && p.v == v) values.push_back({"weld", merged_text(p.core_merged), merged_text(p.exact_merged)});
      if (values.empty()) throw Error(ErrorCode::badarg, "replay: mesh.weld has no such corner pair");
    }
  }
  return values;
}

}  // namespace

}  // namespace distgrid::audit::calcs
