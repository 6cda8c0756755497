#include <algorithm>
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "mesh_support.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation mesh_edge_key() {
  return {
      .id = "mesh.edge_key",
      .title = "Edge key a * 2^32 + b",
      .declared = PrecisionClass::exact,
      .sources = {{"core/src/mesh_prepare.cpp", "edge_key"},
                  {"core/src/mesh_prepare.cpp", "prepare_mesh"}},
      .formula = "key = min(a, b) * 2^32 + max(a, b) in 64-bit unsigned integers; exact as a double only below 2^21 "
                 "welded corners",
      .inputs = "corner pairs uniform over 32 bits, below 2^21, within 8 of 2^21, within 8 of 2^32 - 1, equal; each "
                "with a second edge swapped or one corner away; the edge keys prepare_mesh lists for the run's first "
                "mesh part of at most 10 000 triangles and for defective meshes (inside out, a zero-area triangle, "
                "a hole, a fin, a triangle reversed, overlapping or misnested shells), allowed open or not (then "
                "they must be refused)",
      .implementation = "edge_key, PreparedMesh::edge_keys",
      .reference = "the key in 128-bit integers; keys converted to double and back for every corner pair near 2^21",
      .errors = "error: |core key - 128-bit key| in ulps of the key as a double; mismatches: wrong keys, keys of "
                "corners below 2^21 not exact as doubles, prepared keys not matching their triangles or not "
                "ascending. Decision order: two nearby keys' order vs the 128-bit order.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::mesh,
  };
}

namespace {

using reference::Int128;
constexpr std::string_view kId = "mesh.edge_key";
constexpr std::int64_t kCornerLimit = std::int64_t{1} << 21;  // the policy's limit for keys exact as doubles

enum class Stratum { uniform, small, around_limit, top, equal };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::uniform, "uniform", "both corners uniform over the 32-bit range"},
    {Stratum::small, "small", "both corners below 2^21 (where the key must be exact as a double too)"},
    {Stratum::around_limit, "around_limit", "both corners within 8 of 2^21"},
    {Stratum::top, "top", "both corners within 8 of 2^32 - 1"},
    {Stratum::equal, "equal", "a == b anywhere in the 32-bit range"},
};

struct EdgeInput {
  std::uint32_t a = 0, b = 0;
  /// A second edge near the first (swapped, or one corner moved by one), for the order decision.
  std::uint32_t a2 = 0, b2 = 0;
};

std::uint32_t corner_near(InputRng& rng, std::int64_t centre) {
  const std::int64_t v = centre + rng.integer(-8, 8);
  return static_cast<std::uint32_t>(std::clamp<std::int64_t>(v, 0, 0xFFFFFFFF));
}

/// Input generator: the index-th pair of edges of a stratum.
EdgeInput generate_input(const StratumSpec& stratum, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, stratum.name, index);
  EdgeInput in;
  switch (stratum.kind) {
    case Stratum::uniform:
    case Stratum::equal:
      in.a = static_cast<std::uint32_t>(rng.integer(0, 0xFFFFFFFF));
      in.b = stratum.kind == Stratum::equal ? in.a : static_cast<std::uint32_t>(rng.integer(0, 0xFFFFFFFF));
      break;
    case Stratum::small:
      in.a = static_cast<std::uint32_t>(rng.integer(0, kCornerLimit - 1));
      in.b = static_cast<std::uint32_t>(rng.integer(0, kCornerLimit - 1));
      break;
    case Stratum::around_limit:
      in.a = corner_near(rng, kCornerLimit);
      in.b = corner_near(rng, kCornerLimit);
      break;
    case Stratum::top:
      in.a = corner_near(rng, 0xFFFFFFFF);
      in.b = corner_near(rng, 0xFFFFFFFF);
      break;
  }
  in.a2 = in.a;
  in.b2 = in.b;
  switch (rng.integer(0, 2)) {
    case 0: std::swap(in.a2, in.b2); break;
    case 1: in.a2 = in.a2 == 0 ? 1 : in.a2 - 1; break;
    default: in.b2 = in.b2 == 0xFFFFFFFF ? in.b2 - 1 : in.b2 + 1; break;
  }
  return in;
}

/// Reference: the key in 128-bit integers from the definition.
Int128 exact_key(std::uint32_t a, std::uint32_t b) {
  const Int128 lo = a < b ? a : b, hi = a < b ? b : a;
  return lo * (Int128{1} << 32) + hi;
}

bool exact_as_double(Int128 key) { return static_cast<Int128>(static_cast<double>(key)) == key; }

struct Outcome {
  EdgeInput in;
  ErrorValue error;
  std::string mismatch;  ///< empty when the key is right
  std::string core_order, exact_order;
  double order_margin = 0;  ///< |exact key difference|: integer steps to the order's boundary
  bool double_exact = false;
};

const char* order_text(Int128 x, Int128 y) { return x < y ? "less" : (x == y ? "equal" : "greater"); }

Outcome measure(const EdgeInput& in) {
  Outcome out;
  out.in = in;
  const std::uint64_t core = distgrid::edge_key(in.a, in.b), core2 = distgrid::edge_key(in.a2, in.b2);
  const Int128 exact = exact_key(in.a, in.b), exact2 = exact_key(in.a2, in.b2);
  const Int128 difference = Int128{core} - exact;
  out.error.abs = static_cast<double>(difference < 0 ? -difference : difference);
  out.error.result = static_cast<double>(core);
  out.error.reference = static_cast<double>(exact);
  out.error.ulps = error_in_ulps(out.error.abs, out.error.reference, 0);
  out.double_exact = exact_as_double(exact);
  if (difference != 0) out.mismatch = "edge_key differs from the 128-bit key";
  else if (std::max(in.a, in.b) < kCornerLimit && !out.double_exact)
    out.mismatch = "a key of corners below 2^21 is not exact as a double";
  out.core_order = order_text(Int128{core}, Int128{core2});
  out.exact_order = order_text(exact, exact2);
  const Int128 gap = exact > exact2 ? exact - exact2 : exact2 - exact;
  out.order_margin = static_cast<double>(gap);
  return out;
}

/// The policy's limit checked exactly: for corner counts N around 2^21, whether
/// every key of corners below N is exact as a double. Keys grow with the smaller
/// corner, so only pairs with the smaller corner near N can be the first to fail;
/// all pairs with lo >= N - 64 are tried, and smaller keys are below 2^53 once the
/// largest tried one is.
nlohmann::json double_exact_limit() {
  nlohmann::json rows = nlohmann::json::array();
  std::int64_t first_inexact = -1;
  for (std::int64_t n = kCornerLimit - 2; n <= kCornerLimit + 3; ++n) {
    bool all_exact = true;
    std::string example;
    for (std::int64_t lo = std::max<std::int64_t>(0, n - 64); lo < n && all_exact; ++lo)
      for (std::int64_t hi = lo + 1; hi < n && all_exact; ++hi) {
        const Int128 key = exact_key(static_cast<std::uint32_t>(lo), static_cast<std::uint32_t>(hi));
        if (!exact_as_double(key)) {
          all_exact = false;
          example = std::to_string(lo) + " - " + std::to_string(hi);
        }
      }
    if (!all_exact && first_inexact < 0) first_inexact = n;
    nlohmann::json row = {{"corners", n}, {"every_key_exact_as_double", all_exact}};
    if (!all_exact) row["inexact_edge"] = example;
    rows.push_back(row);
  }
  return {{"by_corner_count", rows},
          {"first_corner_count_with_an_inexact_key", first_inexact},
          {"finding",
           "keys are exact as doubles for every corner count up to 2^21 + 1 (an edge needs two corners, so the "
           "largest key stays below 2^53); the first inexact key appears at 2^21 + 2 corners. The policy's 'only "
           "below 2^21' is a safe, one-corner-conservative statement of this limit."}};
}

/// A prepared mesh's edge keys against the reference keys of each triangle's sides.
struct PreparedKeys {
  std::size_t triangle_sides = 0, wrong = 0;
  bool ascending = true;
};

PreparedKeys check_prepared_keys(const PreparedMesh& mesh) {
  PreparedKeys out;
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::size_t side = 0; side < 3; ++side) {
      const std::uint64_t key = mesh.edge_keys[mesh.triangle_edges[t][side]];
      ++out.triangle_sides;
      if (Int128{key} != exact_key(mesh.triangles[t][side], mesh.triangles[t][(side + 1) % 3])) ++out.wrong;
    }
  for (std::size_t e = 1; e < mesh.edge_keys.size(); ++e)
    out.ascending = out.ascending && mesh.edge_keys[e - 1] < mesh.edge_keys[e];
  return out;
}

/// Edge keys as prepare_mesh lists them for the run's first mesh part small enough
/// for the exact references.
nlohmann::json prepared_mesh_keys(RunContext& context, std::uint64_t& mismatches) {
  const std::vector<const MeshSubject*> parts = context.mesh_parts_up_to(kExactReferenceTriangles);
  if (parts.empty())
    return {{"part", nullptr}, {"null_reason", mesh_support::mesh_parts_text(parts)}};
  const MeshPart& part = parts.front()->part;
  const PreparedKeys keys = check_prepared_keys(RunContext::prepare(*parts.front()));
  mismatches += keys.wrong + (keys.ascending ? 0u : 1u);
  return {{"part", part.name},
          {"triangle_sides", keys.triangle_sides},
          {"wrong_keys", keys.wrong},
          {"keys_strictly_ascending", keys.ascending}};
}

constexpr const char* kDefectiveGenerator = "defective_meshes";

/// The index-th mesh of kDefectiveGenerator: the defects of mesh_support::MeshDefect in turn.
TriangleMesh drawn_defective_mesh(std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, kDefectiveGenerator, index);
  return mesh_support::defective_mesh(rng, static_cast<mesh_support::MeshDefect>(index % mesh_support::kMeshDefects));
}

/// Edge keys as prepare_mesh lists them for defective meshes, a tenth of --inputs
/// of them, this shard's share: the corner order a flip swaps, the edges used once
/// or three times, zero-area triangles left out. Each defect's meshes come in
/// rounds allowed open and not (mesh_support::defective_round_allowed_open); a
/// mesh accepted with a wrong key or keys not strictly ascending, or accepted or
/// refused other than it must be (refusal_mismatch), is a mismatch.
nlohmann::json defective_mesh_keys(RunContext& context, std::uint64_t& mismatches) {
  const RunSettings& settings = context.settings();
  constexpr std::size_t kinds = mesh_support::kMeshDefects;
  const InputRange own = context.shard_inputs(std::max(2 * kinds, settings.inputs / 10));
  std::array<std::size_t, kinds> meshes{}, refused{}, wrong{};
  for (std::size_t n = own.first; n < own.last; ++n) {
    const auto defect = static_cast<mesh_support::MeshDefect>(n % kinds);
    const bool allow_open = mesh_support::defective_round_allowed_open(n, kinds);
    const std::optional<ErrorCode> must_refuse = allow_open ? std::nullopt : mesh_support::refusal_of(defect);
    std::string mismatch;
    try {
      const PreparedKeys keys =
          check_prepared_keys(prepare_mesh(drawn_defective_mesh(settings.seed, n), "audit mesh", allow_open));
      mismatch = mesh_support::refusal_mismatch(must_refuse, std::nullopt);
      if (keys.wrong != 0 || !keys.ascending) mismatch = "wrong keys";
    } catch (const Error& e) {
      ++refused[n % kinds];
      mismatch = mesh_support::refusal_mismatch(must_refuse, e.code());
    }
    ++meshes[n % kinds];
    wrong[n % kinds] += mismatch.empty() ? 0u : 1u;
  }
  nlohmann::json by_defect = nlohmann::json::object();
  for (std::size_t d = 0; d < kinds; ++d) {
    by_defect[mesh_support::kMeshDefectNames[d]] = {
        {"meshes", meshes[d]}, {"meshes_refused", refused[d]}, {"mismatches", wrong[d]}};
    mismatches += wrong[d];
  }
  return {{"generator", kDefectiveGenerator}, {"by_defect", by_defect}};
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& settings = context.settings();
  CalculationResult result;
  result.error = ErrorStats(false, false);
  std::uint64_t mismatches = 0;
  DecisionStats order("order",
                      "the order of two nearby edges' keys (less, equal, greater), as prepare_mesh sorts edges: "
                      "core keys vs 128-bit keys; margin: |key difference| in integer steps (0: the same edge)");
  nlohmann::json examples = nlohmann::json::array();
  nlohmann::json table = nlohmann::json::array();
  for (const StratumSpec& stratum : kStrata) {
    const std::size_t count = settings.inputs;
    const InputRange range = context.shard_inputs(count);
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      outcomes[k] = measure(generate_input(stratum, settings.seed, range.first + k));
    });
    context.progress().end();
    result.begin_unit(count);
    order.begin_unit();  // not in result.decisions yet
    std::size_t inexact_doubles = 0;
    for (std::size_t k = 0; k < range.size(); ++k) {
      const std::size_t n = range.first + k;
      const Outcome& o = outcomes[k];
      auto record = [&] {
        return InputRecord{settings.seed,
                           stratum.name,
                           n,
                           {},
                           {{"a", std::to_string(o.in.a)},
                            {"b", std::to_string(o.in.b)},
                            {"a2", std::to_string(o.in.a2)},
                            {"b2", std::to_string(o.in.b2)}}};
      };
      result.error.add(o.error, record);
      order.add(o.core_order, o.exact_order, o.order_margin, record);
      inexact_doubles += o.double_exact ? 0u : 1u;
      if (o.mismatch.empty()) continue;
      ++mismatches;
      if (examples.size() < ErrorStats::kWorstKept)
        examples.push_back({{"generator", stratum.name}, {"index", n}, {"a", o.in.a}, {"b", o.in.b}, {"what", o.mismatch}});
    }
    result.strata.push_back({stratum.name, stratum.description, range.size(), 0});
    table.push_back({{"generator", stratum.name}, {"count", range.size()}, {"keys_inexact_as_double", inexact_doubles}});
  }
  // Every shard writes the prepared mesh's details; only the shard that draws
  // this one input of its own counts its wrong keys, so merged shards count them once.
  std::uint64_t prepared_mismatches = 0;
  const nlohmann::json prepared = prepared_mesh_keys(context, prepared_mismatches);
  if (context.shard_inputs(1).size() == 1) mismatches += prepared_mismatches;
  const nlohmann::json defective = defective_mesh_keys(context, mismatches);
  result.mismatches = mismatches;
  result.decisions.push_back(std::move(order));
  result.details = {{"declared", "exact (limited): exact as a 64-bit integer for any 32-bit corners; exact as a "
                                 "double only below 2^21 welded corners"},
                    {"double_limit", double_exact_limit()},
                    {"by_generator", table},
                    {"prepared_mesh", prepared},
                    {"defective_meshes", defective},
                    {"mismatch_examples", examples}};
  return mesh_support::for_each_storage(result, settings);
}

std::vector<ReplayValue> replay(RunContext&, const ReplayRequest& request) {
  const StratumSpec& stratum = generator_named(kStrata, request.input.generator, kId);
  const Outcome o = measure(generate_input(stratum, request.input.seed, request.input.index));
  return {{"error", hex_float(o.error.result), hex_float(o.error.reference)}, {"order", o.core_order, o.exact_order}};
}

}  // namespace

}  // namespace distgrid::audit::calcs
