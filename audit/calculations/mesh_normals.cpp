#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "mesh_support.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation mesh_normals() {
  return {
      .id = "mesh.normals",
      .title = "Face, edge and angle-weighted corner pseudo-normals",
      .declared = PrecisionClass::bits64,
      .sources = {{"core/src/mesh_prepare.cpp", "prepare_mesh"}, {"core/src/mesh_prepare.cpp", "unit"}},
      .formula = "face: (ab x ac) / |ab x ac|; edge: the sum of its triangles' unit normals; corner: the sum over its "
                 "triangles of acos(clamp(e1 . e2 / (|e1| |e2|), -1, 1)) times the unit normal (Baerentzen-Aanaes)",
      .inputs = "each mesh part of the run with at most 10 000 triangles; random bipyramids, as drawn and inside "
                "out; defective meshes (a zero-area triangle, a hole, a fin, a triangle reversed, overlapping or "
                "misnested shells), allowed open or not (then they must be refused); tetrahedra with a sliver face "
                "(angles near 0 and pi) and with needle faces (an edge 2^-10 .. 2^-45 long)",
      .implementation = "prepare_mesh (face_normals, edge_normals, corner_normals)",
      .reference = "the same normals in high precision from the prepared corners and triangles, angles by atan2",
      .errors = "error: |core vector - high-precision vector| in ulps of the reference's length; per kind (face, "
                "edge, corner) the largest ulps and angle in the details. No stored values: no arithmetic / storage / "
                "method split.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::mesh,
  };
}

namespace {

using mesh_support::Point;
constexpr std::string_view kId = "mesh.normals";

enum class Stratum { parts, bipyramid, sliver, needle, inside_out, defective };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::parts, "parts", nullptr},  // described by mesh_parts_text
    {Stratum::bipyramid, "bipyramid", "a bipyramid over 3 to 8 random corners around the z axis, apexes 0.3 to 1.5 up and down"},
    {Stratum::sliver, "sliver",
     "a tetrahedron whose fourth corner lies 2^-k (k in 10..45) from the middle of edge ab, inside and above: "
     "face abd is a sliver with angles near 0 at a and b and near pi at d"},
    {Stratum::needle, "needle",
     "a tetrahedron whose fourth corner lies 2^-k (k in 10..45) from corner a: three faces are needles with an "
     "angle near 0 at the far corner"},
    {Stratum::inside_out, "inside_out",
     "a bipyramid as drawn by 'bipyramid' with every triangle reversed: prepare_mesh must turn it outward"},
    {Stratum::defective, "defective",
     "in turn: a bipyramid as drawn by 'bipyramid' with a zero-area triangle added (a repeated corner), a "
     "triangle removed (boundary edges), a fin (a third triangle on an edge: non-manifold) or one triangle "
     "reversed (inconsistently oriented edges); two overlapping octahedra (self-intersecting); an octahedron "
     "inside another facing the same way (misnested). Each defect's first round allowed open (measured), "
     "the next given as a closed mesh: prepare_mesh must refuse all but the zero-area one with its error "
     "(openmesh, selfintersect, badmesh), and a mesh it accepts is measured"},
};

/// The defect of the index-th input of 'defective' (every MeshDefect but inside_out, in turn).
mesh_support::MeshDefect defect_of(std::uint64_t index) {
  return static_cast<mesh_support::MeshDefect>(1 + index % (mesh_support::kMeshDefects - 1));
}

/// The run's mesh parts the "parts" generator measures, one input each. The
/// normals of a mesh accepted with --allow-open are marked untrusted: their
/// direction is the orientation the mesh does not consistently have.
std::vector<const MeshSubject*> audited_parts(RunContext& context) {
  std::vector<const MeshSubject*> parts = context.mesh_parts_up_to(kExactReferenceTriangles);
  for (const MeshSubject* mesh : parts) context.mark_untrusted(*mesh);
  return parts;
}

/// Whether the index-th input of a stratum is allowed open: a defective mesh of
/// a round that allows it, or a run's mesh part accepted with --allow-open.
bool open_input(const StratumSpec& stratum, std::uint64_t index, const std::vector<const MeshSubject*>& parts) {
  if (stratum.kind == Stratum::defective)
    return mesh_support::defective_round_allowed_open(index, mesh_support::kMeshDefects - 1);
  return stratum.kind == Stratum::parts && index < parts.size() && !parts[index]->sign_untrusted.empty();
}

/// The error prepare_mesh must refuse the index-th input of a stratum with; none
/// where it must accept it.
std::optional<ErrorCode> refusal_expected(const StratumSpec& stratum, std::uint64_t index,
                                          const std::vector<const MeshSubject*>& parts) {
  if (stratum.kind != Stratum::defective || open_input(stratum, index, parts)) return std::nullopt;
  return mesh_support::refusal_of(defect_of(index));
}

std::size_t mesh_count(const StratumSpec& stratum, std::size_t inputs, std::size_t parts) {
  return stratum.kind == Stratum::parts ? parts : std::max<std::size_t>(1, inputs / 10);
}

Point random_point(InputRng& rng, double lo, double hi) { return {rng.uniform(lo, hi), rng.uniform(lo, hi), rng.uniform(lo, hi)}; }

/// Input generator: the index-th mesh of a stratum.
TriangleMesh generate_input(const StratumSpec& stratum, std::uint64_t seed, std::uint64_t index,
                            const std::vector<const MeshSubject*>& parts) {
  if (stratum.kind == Stratum::parts) {
    if (index >= parts.size()) throw Error(ErrorCode::badarg, "replay: the run has no mesh part " + std::to_string(index));
    return parts[index]->part.mesh;
  }
  InputRng rng(seed, kId, stratum.name, index);
  TriangleMesh mesh;
  if (stratum.kind == Stratum::bipyramid) return mesh_support::random_bipyramid(rng);
  if (stratum.kind == Stratum::inside_out) return mesh_support::defective_mesh(rng, mesh_support::MeshDefect::inside_out);
  if (stratum.kind == Stratum::defective) return mesh_support::defective_mesh(rng, defect_of(index));
  // A tetrahedron a, b, c on z = 0 and a fourth corner d placed to make slivers or needles.
  const Point a{-1, rng.uniform(-0.3, 0.3), 0}, b{1, rng.uniform(-0.3, 0.3), 0}, c{rng.uniform(-0.5, 0.5), rng.uniform(1, 2), 0};
  const double tiny = std::ldexp(1.0, -static_cast<int>(rng.integer(10, 45)));
  Point d;
  if (stratum.kind == Stratum::sliver) {
    d = {(a[0] + b[0]) / 2, (a[1] + b[1]) / 2 + tiny, tiny * rng.uniform(0.5, 2)};
  } else {
    const Point towards = random_point(rng, 0.2, 1);
    d = {a[0] + tiny * towards[0], a[1] + tiny * towards[1], tiny * towards[2]};
  }
  mesh.positions = {a, b, c, d};
  mesh.triangles = {{0, 1, 2}, {1, 0, 3}, {2, 3, 0}, {3, 2, 1}};
  return mesh;
}

/// At least the errors the single run adds for a stratum's `count` meshes
/// (ErrorStats::begin_unit): a face per triangle, at most three edges and
/// three corners per triangle.
std::size_t most_errors(const StratumSpec& stratum, std::size_t count, const std::vector<const MeshSubject*>& parts) {
  if (stratum.kind != Stratum::parts) {
    // A bipyramid has at most 16 triangles; a fin adds one; two octahedra have 16.
    const std::size_t triangles = stratum.kind == Stratum::bipyramid || stratum.kind == Stratum::inside_out ? 16
                                  : stratum.kind == Stratum::defective                                     ? 17
                                                                                                           : 4;
    return count * 7 * triangles;
  }
  std::size_t most = 0;
  for (std::size_t n = 0; n < count; ++n) most += 7 * parts[n]->part.mesh.triangles.size();
  return most;
}

enum Kind { kFace, kEdge, kCorner, kKinds };
constexpr const char* kKindNames[kKinds] = {"face", "edge", "corner"};

struct VectorError {
  ErrorValue error;
  double angle = 0;  ///< radians between the core's and the reference's vector
  Kind kind = kFace;
  std::size_t item = 0;  ///< triangle, edge or corner index
};

struct Outcome {
  std::vector<VectorError> errors;
  bool refused = false;
  /// Edges listed differently from the reference, a closed mesh left inside out, or
  /// a mesh accepted or refused other than it must be.
  std::string mismatch;
};

/// `terms` is the sum of the lengths of the terms the vector sums (1 for a face,
/// the number of triangles for an edge, the sum of the angles for a corner):
/// errors are in ulps of at least that, as a sum that cancels cannot be asked
/// for more digits than its terms carry (like distances' floor of band h).
VectorError compare(const Vec3& core, const reference::HighPoint& exact, double terms, Kind kind, std::size_t item) {
  VectorError out;
  out.kind = kind;
  out.item = item;
  HighPrecision squared(0), norm_squared(0), largest(-1);
  reference::HighPoint c{HighPrecision(core[0]), HighPrecision(core[1]), HighPrecision(core[2])};
  for (std::size_t a = 0; a < 3; ++a) {
    const HighPrecision d = c[a] - exact[a];
    squared += d * d;
    norm_squared += exact[a] * exact[a];
    if (abs(d) > largest) {
      largest = abs(d);
      out.error.result = core[a];
      out.error.reference = to_double(exact[a]);
    }
  }
  out.error.abs = to_double(sqrt(squared));
  out.error.ulps = error_in_ulps(out.error.abs, to_double(sqrt(norm_squared)), terms);
  const reference::HighPoint cross{c[1] * exact[2] - c[2] * exact[1], c[2] * exact[0] - c[0] * exact[2],
                                   c[0] * exact[1] - c[1] * exact[0]};
  out.angle = to_double(atan2(sqrt(cross[0] * cross[0] + cross[1] * cross[1] + cross[2] * cross[2]),
                              c[0] * exact[0] + c[1] * exact[1] + c[2] * exact[2]));
  return out;
}

/// Whether the prepared triangles enclose a positive volume, in exact rationals
/// (the sum of det(a, b, c) / 6): prepare_mesh must turn a closed mesh outward.
bool faces_outward(const PreparedMesh& mesh) {
  reference::Rational six_volume = 0;
  for (const auto& t : mesh.triangles) {
    const reference::RationalPoint a = reference::to_rational(mesh.positions[t[0]]),
                                   b = reference::to_rational(mesh.positions[t[1]]),
                                   c = reference::to_rational(mesh.positions[t[2]]);
    six_volume += a[0] * (b[1] * c[2] - b[2] * c[1]) + a[1] * (b[2] * c[0] - b[0] * c[2]) +
                  a[2] * (b[0] * c[1] - b[1] * c[0]);
  }
  return six_volume > 0;
}

/// `allow_open`: a defective mesh allowed open, or a run's mesh part accepted with
/// --allow-open; `must_refuse`: the error prepare_mesh must refuse the mesh with.
Outcome measure(const TriangleMesh& mesh, bool allow_open, std::optional<ErrorCode> must_refuse) {
  Outcome out;
  PreparedMesh prepared;
  try {
    prepared = prepare_mesh(mesh, "audit mesh", allow_open);
  } catch (const Error& e) {
    out.refused = true;
    out.mismatch = mesh_support::refusal_mismatch(must_refuse, e.code());
    return out;
  }
  out.mismatch = mesh_support::refusal_mismatch(must_refuse, std::nullopt);
  if (!out.mismatch.empty()) return out;
  if (!allow_open && !faces_outward(prepared)) {
    out.mismatch = "prepare_mesh leaves the closed mesh inside out (its exact signed volume is not positive)";
    return out;
  }
  const reference::HighNormals exact = reference::high_precision_normals(prepared.positions, prepared.triangles);
  for (std::size_t t = 0; t < prepared.triangles.size(); ++t)
    out.errors.push_back(compare(prepared.face_normals[t], exact.face[t], 1, kFace, t));
  if (exact.edges.size() != prepared.edge_keys.size()) {
    out.mismatch = "prepare_mesh lists " + std::to_string(prepared.edge_keys.size()) + " edges, the reference " +
                   std::to_string(exact.edges.size());
    return out;
  }
  for (std::size_t e = 0; e < exact.edges.size(); ++e) {
    const std::uint64_t key = std::uint64_t{exact.edges[e][0]} << 32 | exact.edges[e][1];
    if (prepared.edge_keys[e] != key) {
      out.mismatch = "edge " + std::to_string(e) + " has a different key";
      return out;
    }
    out.errors.push_back(compare(prepared.edge_normals[e], exact.edge[e], exact.edge_terms[e], kEdge, e));
  }
  for (std::size_t v = 0; v < prepared.positions.size(); ++v)
    out.errors.push_back(compare(prepared.corner_normals[v], exact.corner[v], exact.corner_terms[v], kCorner, v));
  return out;
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& settings = context.settings();
  CalculationResult result;
  result.error = ErrorStats(false, false);
  std::array<double, kKinds> most_ulps{}, most_angle{};
  std::array<std::size_t, kKinds> counted{};
  nlohmann::json table = nlohmann::json::array();
  nlohmann::json mismatches = nlohmann::json::array();
  const std::vector<const MeshSubject*> parts = audited_parts(context);
  for (const StratumSpec& stratum : kStrata) {
    const std::size_t count = mesh_count(stratum, settings.inputs, parts.size());
    const InputRange range = context.shard_inputs(count);
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      outcomes[k] = measure(generate_input(stratum, settings.seed, range.first + k, parts),
                            open_input(stratum, range.first + k, parts), refusal_expected(stratum, range.first + k, parts));
    });
    context.progress().end();
    result.begin_unit(most_errors(stratum, count, parts));
    std::size_t refused = 0;
    std::array<double, kKinds> stratum_ulps{};
    for (std::size_t k = 0; k < range.size(); ++k) {
      const std::size_t n = range.first + k;
      const Outcome& o = outcomes[k];
      refused += o.refused ? 1u : 0u;
      if (!o.mismatch.empty()) mismatches.push_back({{"generator", stratum.name}, {"index", n}, {"what", o.mismatch}});
      for (const VectorError& e : o.errors) {
        result.error.add(e.error, [&] {
          return InputRecord{settings.seed,
                             stratum.name,
                             n,
                             {},
                             {{"kind", kKindNames[e.kind]}, {"item", std::to_string(e.item)}}};
        });
        most_ulps[e.kind] = std::fmax(most_ulps[e.kind], e.error.ulps);
        most_angle[e.kind] = std::fmax(most_angle[e.kind], e.angle);
        stratum_ulps[e.kind] = std::fmax(stratum_ulps[e.kind], e.error.ulps);
        ++counted[e.kind];
      }
    }
    const std::string description = stratum.kind == Stratum::parts ? mesh_support::mesh_parts_text(parts) : stratum.description;
    result.strata.push_back({stratum.name, description + "; one input is one mesh", range.size(), refused});
    nlohmann::json part_names = nlohmann::json::array();
    if (stratum.kind == Stratum::parts)
      for (const MeshSubject* mesh : parts) part_names.push_back(mesh->part.name);
    table.push_back({{"generator", stratum.name},
                     {"parts", part_names},
                     {"meshes", range.size()},
                     {"meshes_refused", refused},
                     {"max_ulps", {{"face", finite_or_null(stratum_ulps[kFace])},
                                   {"edge", finite_or_null(stratum_ulps[kEdge])},
                                   {"corner", finite_or_null(stratum_ulps[kCorner])}}}});
  }
  nlohmann::json kinds = nlohmann::json::object();
  for (int k = 0; k < kKinds; ++k)
    kinds[kKindNames[k]] = {{"count", counted[static_cast<std::size_t>(k)]},
                            {"max_ulps", finite_or_null(most_ulps[static_cast<std::size_t>(k)])},
                            {"max_angle_radians", finite_or_null(most_angle[static_cast<std::size_t>(k)])}};
  result.mismatches = mismatches.size();
  result.details = {{"by_kind", kinds},
                    {"by_generator", table},
                    {"edge_list_mismatches", mismatches},
                    {"error_means", "|core vector - high-precision vector| (Euclidean) in ulps of the larger of "
                                    "the reference's length and the sum of its terms' lengths (1 for a face, the "
                                    "triangles at an edge, the angles at a corner); the angle between them is in "
                                    "by_kind"},
                    {"sign", "no decision of its own: the sign these normals give a node is mesh.node_distance's "
                             "decision"}};
  return mesh_support::for_each_storage(result, settings);
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const StratumSpec& stratum = generator_named(kStrata, request.input.generator, kId);
  const std::vector<const MeshSubject*> parts = audited_parts(context);
  const Outcome o = measure(generate_input(stratum, request.input.seed, request.input.index, parts),
                            open_input(stratum, request.input.index, parts),
                            refusal_expected(stratum, request.input.index, parts));
  const std::string& kind = replay_text(request, "kind");
  const std::uint64_t item = mesh_support::recorded_unsigned(request, "item");
  for (const VectorError& e : o.errors)
    if (kKindNames[e.kind] == kind && e.item == item)
      return {{"error", hex_float(e.error.result), hex_float(e.error.reference)}};
  throw Error(ErrorCode::badarg, "replay: mesh.normals input has no " + kind + " " + std::to_string(item));
}

}  // namespace

}  // namespace distgrid::audit::calcs
