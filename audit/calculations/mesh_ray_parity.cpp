#include <cmath>
#include <cstdint>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "mesh_support.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation mesh_ray_parity() {
  return {
      .id = "mesh.ray_parity",
      .title = "Inside or outside of far bricks by ray crossings",
      .declared = PrecisionClass::bits64,
      .sources = {{"core/src/mesh_bake.cpp", "ray_crossings"}, {"core/src/mesh_bake.cpp", "bake_mesh"}},
      .formula = "one ray along +x per row of bricks at (8 b + 3.5 + offset) h; a triangle counts when its three edge "
                 "functions share a strict sign; a ray touching an edge or corner, or with an odd count, is shifted "
                 "and retried (three attempts); a brick is inside when an odd number of crossings lie before its "
                 "centre",
      .inputs = "tetrahedra whose opposite edges lie exactly on a row's first ray, octahedra with two corners on it, "
                "random tetrahedra; baked at h = 1/8, band 1; every far brick of the mesh's range",
      .implementation = "bake_mesh (far bricks read back as stored)",
      .reference = "the side of each far brick's centre by the exact parity (rationals) of a ray perturbed "
                   "symbolically to (y + e, z + e^2), which never meets an edge or corner",
      .errors = "error: a far brick's value vs the exact -+band h. Decision parity: inside/outside vs the exact side, "
                "margin the first ray's distance to the nearest projected edge. No arithmetic / storage / method "
                "split: a far brick holds only the marker.",
      .run = &run,
      .replay = &replay,
  };
}

namespace {

using mesh_support::Point;
using reference::Rational;
constexpr std::string_view kId = "mesh.ray_parity";

/// Voxel size and band of the bakes: the meshes are built in voxels, so only
/// their size in voxels matters; the smallest band leaves the most far bricks.
constexpr double kH = 1.0 / 8;
constexpr double kBand = 1;
/// The core's first parity ray of row (by, bz), in voxels from the row's corner.
constexpr double kFirstRayY = 3.5 + 1.2345e-3, kFirstRayZ = 3.5 + 2.71828e-3;
/// A brick is far when its centre is this many voxels from every triangle:
/// beyond the core's reach (band + 3.5 sqrt(3)) plus one voxel of slack.
constexpr double kFarVoxels = kBand + 3.5 * 1.7320508075688772 + 1;

enum class Stratum { through_edges, through_corners, random };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::through_edges, "through_edges",
     "a tetrahedron whose two opposite edges cross the first ray of a row exactly (one in a plane y = const, one in "
     "z = const): the ray enters and leaves through edges"},
    {Stratum::through_corners, "through_corners",
     "an octahedron with its two x corners exactly on the first ray of a row: the ray enters and leaves through "
     "corners"},
    {Stratum::random, "random", "a random tetrahedron 40 to 120 voxels across"},
};

/// Meshes per generator: one per 200 inputs (each is a bake of 1000 to 3000 bricks).
std::size_t mesh_count(std::size_t inputs) { return std::max<std::size_t>(2, inputs / 200); }

struct Input {
  TriangleMesh mesh;
  std::int64_t row_y = 0, row_z = 0;  ///< the row whose first ray the mesh aims at
};

double first_ray(std::int64_t b, double offset) { return (static_cast<double>(b * 8) + offset) * kH; }

/// Input generator: the index-th mesh of a stratum.
Input generate_input(Stratum kind, const char* name, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, name, index);
  Input in;
  in.row_y = rng.integer(-4, 4);
  in.row_z = rng.integer(-4, 4);
  const double y0 = first_ray(in.row_y, kFirstRayY), z0 = first_ray(in.row_z, kFirstRayZ);
  const double xc = static_cast<double>(rng.integer(-32, 32)) * kH + rng.uniform(0, 8) * kH;
  const auto voxels = [&](double lo, double hi) { return rng.uniform(lo, hi) * kH; };
  auto& p = in.mesh.positions;
  switch (kind) {
    case Stratum::through_edges: {
      const double s1 = voxels(40, 56), s2 = voxels(40, 56);
      p = {{xc - s1, y0, z0 - voxels(48, 64)}, {xc - s1, y0, z0 + voxels(48, 64)},
           {xc + s2, y0 - voxels(48, 64), z0}, {xc + s2, y0 + voxels(48, 64), z0}};
      in.mesh.triangles = {{0, 1, 2}, {1, 0, 3}, {2, 3, 0}, {3, 2, 1}};
      break;
    }
    case Stratum::through_corners: {
      p = {{xc - voxels(32, 48), y0, z0}, {xc + voxels(32, 48), y0, z0}, {xc, y0 - voxels(32, 48), z0},
           {xc, y0 + voxels(32, 48), z0}, {xc, y0, z0 - voxels(32, 48)}, {xc, y0, z0 + voxels(32, 48)}};
      // Corners 0/1: -x/+x, 2/3: -y/+y, 4/5: -z/+z.
      in.mesh.triangles = {{1, 3, 5}, {1, 5, 2}, {1, 2, 4}, {1, 4, 3}, {0, 5, 3}, {0, 2, 5}, {0, 4, 2}, {0, 3, 4}};
      break;
    }
    case Stratum::random: {
      const Point centre{xc, y0 + voxels(-8, 8), z0 + voxels(-8, 8)};
      for (int c = 0; c < 4; ++c)
        p.push_back({centre[0] + voxels(-60, 60), centre[1] + voxels(-60, 60), centre[2] + voxels(-60, 60)});
      in.mesh.triangles = {{0, 1, 2}, {1, 0, 3}, {2, 3, 0}, {3, 2, 1}};
      break;
    }
  }
  return in;
}

/// At least the far bricks `measure` finds for a mesh (ErrorStats::begin_unit
/// needs at least the single run's adds): every brick of the corners' brick
/// range widened by one brick, as measure scans it.
std::size_t most_far_bricks(const Input& in) {
  std::size_t bricks = 1;
  for (std::size_t a = 0; a < 3; ++a) {
    double lo = in.mesh.positions[0][a], hi = lo;
    for (const Point& p : in.mesh.positions) {
      lo = std::fmin(lo, p[a]);
      hi = std::fmax(hi, p[a]);
    }
    const std::int64_t first = reference::brick_of_node_exact(static_cast<std::int64_t>(std::floor(lo / kH))) - 1;
    const std::int64_t last = reference::brick_of_node_exact(static_cast<std::int64_t>(std::ceil(hi / kH))) + 1;
    bricks *= static_cast<std::size_t>(last - first + 1);
  }
  return bricks;
}

struct BrickOutcome {
  std::array<std::int64_t, 3> brick{};
  std::array<std::string, 2> core;  ///< by Storage: "inside" / "outside"
  std::string exact;
  double margin_ulps = 0;
  std::array<ErrorValue, 2> error;  ///< by Storage: stored value vs exact -+band h
};

struct Outcome {
  std::vector<BrickOutcome> bricks;
  double row_margin_ulps = 0;
  bool refused = false;  ///< prepare_mesh refused the mesh (a flat random tetrahedron)
};

/// Smallest distance, in the (y, z) plane, from the point (y, z) to any projected
/// edge of the mesh, in high precision: 0 when the ray meets an edge or corner.
HighPrecision ray_gap(const std::vector<reference::TriangleCorners>& triangles, double y, double z) {
  HighPrecision best(-1);
  const HighPrecision qy(y), qz(z);
  for (const auto& t : triangles)
    for (std::size_t e = 0; e < 3; ++e) {
      const HighPrecision sy(t[e][1]), sz(t[e][2]), ey(t[(e + 1) % 3][1]), ez(t[(e + 1) % 3][2]);
      const HighPrecision dy = ey - sy, dz = ez - sz, py = qy - sy, pz = qz - sz;
      const HighPrecision length_squared = dy * dy + dz * dz;
      HighPrecision u = length_squared > 0 ? (py * dy + pz * dz) / length_squared : HighPrecision(0);
      u = u < 0 ? HighPrecision(0) : (u > 1 ? HighPrecision(1) : u);
      const HighPrecision wy = py - u * dy, wz = pz - u * dz;
      const HighPrecision gap = sqrt(wy * wy + wz * wz);
      if (best < 0 || gap < best) best = gap;
    }
  return best;
}

template <class S>
void read_core(const PreparedMesh& prepared, std::vector<BrickOutcome>& bricks) {
  MeshBakeSettings settings;
  settings.h = kH;
  settings.band = kBand;
  settings.threads = 1;  // the inputs run in parallel already
  const Grid<S> grid = bake_mesh<S>(prepared, settings);
  const reference::StoredNodes<S> nodes(grid);
  const auto s = static_cast<std::size_t>(storage_of<S>());
  const double band_width = kBand * kH;
  for (BrickOutcome& b : bricks) {
    // Every node of a far brick holds the brick's parity value; read the first.
    const double v = nodes.value(8 * b.brick[0], 8 * b.brick[1], 8 * b.brick[2]);
    b.core[s] = v < 0 ? "inside" : "outside";
    ErrorValue& e = b.error[s];
    const HighPrecision expected = (b.exact == "inside" ? -1 : 1) * HighPrecision(kBand) * HighPrecision(kH);
    e.abs = to_double(abs(HighPrecision(v) - expected));
    e.result = v;
    e.reference = to_double(expected);
    e.ulps = error_in_ulps(e.abs, e.reference, band_width);
    e.h = e.abs / kH;
  }
}

Outcome measure(const Input& in, bool want_float, bool want_double) {
  Outcome out;
  PreparedMesh prepared;
  try {
    prepared = prepare_mesh(in.mesh, "audit mesh");
  } catch (const Error&) {
    out.refused = true;
    return out;
  }
  std::vector<reference::TriangleCorners> triangles;
  Point lo = prepared.positions[0], hi = prepared.positions[0];
  for (const auto& t : prepared.triangles) {
    triangles.push_back({prepared.positions[t[0]], prepared.positions[t[1]], prepared.positions[t[2]]});
    for (std::uint32_t c : t)
      for (std::size_t a = 0; a < 3; ++a) {
        lo[a] = std::fmin(lo[a], prepared.positions[c][a]);
        hi[a] = std::fmax(hi[a], prepared.positions[c][a]);
      }
  }
  double coordinate_scale = 0;
  for (std::size_t a = 0; a < 3; ++a) coordinate_scale = std::fmax(coordinate_scale, std::fmax(std::fabs(lo[a]), std::fabs(hi[a])));
  out.row_margin_ulps =
      to_double(ray_gap(triangles, first_ray(in.row_y, kFirstRayY), first_ray(in.row_z, kFirstRayZ))) /
      ulp_of(coordinate_scale);

  // Far bricks in the mesh's brick range widened by one brick.
  std::array<std::int64_t, 3> first{}, last{};
  for (std::size_t a = 0; a < 3; ++a) {
    first[a] = reference::brick_of_node_exact(static_cast<std::int64_t>(std::floor(lo[a] / kH))) - 1;
    last[a] = reference::brick_of_node_exact(static_cast<std::int64_t>(std::ceil(hi[a] / kH))) + 1;
  }
  const double far_squared = (kFarVoxels * kH) * (kFarVoxels * kH);
  const Rational h(kH);
  for (std::int64_t by = first[1]; by <= last[1]; ++by)
    for (std::int64_t bz = first[2]; bz <= last[2]; ++bz) {
      // Per row: the exact crossings of the line through the brick centres, and the first ray's margin.
      const std::vector<Rational> crossings =
          reference::exact_crossings(h * Rational(16 * by + 7, 2), h * Rational(16 * bz + 7, 2), triangles);
      const double margin =
          to_double(ray_gap(triangles, first_ray(by, kFirstRayY), first_ray(bz, kFirstRayZ))) / ulp_of(coordinate_scale);
      for (std::int64_t bx = first[0]; bx <= last[0]; ++bx) {
        const Point centre{(static_cast<double>(bx * 8) + 3.5) * kH, (static_cast<double>(by * 8) + 3.5) * kH,
                           (static_cast<double>(bz * 8) + 3.5) * kH};
        bool far = true;
        for (const auto& t : triangles)
          far = far && reference::approximate_distance_squared(centre, t[0], t[1], t[2]) > far_squared;
        if (!far) continue;
        BrickOutcome b;
        b.brick = {bx, by, bz};
        b.exact = reference::side_text(reference::side_from_crossings(h * Rational(16 * bx + 7, 2), crossings));
        b.margin_ulps = margin;
        out.bricks.push_back(std::move(b));
      }
    }
  if (want_float) read_core<float>(prepared, out.bricks);
  if (want_double) read_core<double>(prepared, out.bricks);
  return out;
}

std::string corners_text(const TriangleMesh& mesh) {
  std::string text;
  for (const Point& p : mesh.positions) {
    if (!text.empty()) text += ' ';
    text += mesh_support::point_text(p);
  }
  return text;
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& settings = context.settings();
  const bool want_float = context.wants(Storage::float32), want_double = context.wants(Storage::float64);
  std::array<CalculationResult, 2> results;
  std::array<nlohmann::json, 2> tables{nlohmann::json::array(), nlohmann::json::array()};
  const char* what =
      "per far brick (centre more than band + 3.5 sqrt(3) + 1 voxels from every triangle): inside or outside as "
      "the bake marked it (by parity along +x) vs the exact side of the brick's centre (exact parity of a "
      "symbolically perturbed ray); margin: distance in the (y, z) plane from the row's first ray to the nearest "
      "projected edge or corner, in ulps of the mesh's largest coordinate (0: the first ray meets an edge or "
      "corner, which the core must retry)";
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    r.decisions.emplace_back("parity", what);
  }
  for (const StratumSpec& stratum : kStrata) {
    const std::size_t count = mesh_count(settings.inputs);
    const InputRange range = context.shard_inputs(count);
    std::vector<Input> inputs(range.size());
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      inputs[k] = generate_input(stratum.kind, stratum.name, settings.seed, range.first + k);
      outcomes[k] = measure(inputs[k], want_float, want_double);
    });
    context.progress().end();
    // Every shard bounds the single run's adds of this unit from all its meshes (drawing them is cheap).
    std::size_t most_adds = 0;
    for (std::size_t n = 0; n < count; ++n)
      most_adds += most_far_bricks(generate_input(stratum.kind, stratum.name, settings.seed, n));
    for (Storage storage : settings.storages) {
      const auto s = static_cast<std::size_t>(storage);
      CalculationResult& r = results[s];
      r.begin_unit(most_adds);
      std::size_t bricks = 0, inside = 0, wrong = 0, refused = 0, rows_at_zero = 0;
      for (std::size_t k = 0; k < range.size(); ++k) {
        const std::size_t n = range.first + k;
        const Outcome& o = outcomes[k];
        refused += o.refused ? 1u : 0u;
        rows_at_zero += !o.refused && o.row_margin_ulps == 0 ? 1u : 0u;
        for (const BrickOutcome& b : o.bricks) {
          auto record = [&] {
            return InputRecord{settings.seed,
                               stratum.name,
                               n,
                               {},
                               {{"brick", std::to_string(b.brick[0]) + "," + std::to_string(b.brick[1]) + "," +
                                              std::to_string(b.brick[2])},
                                {"corners", corners_text(inputs[k].mesh)}}};
          };
          ++bricks;
          inside += b.exact == "inside" ? 1u : 0u;
          wrong += b.core[s] != b.exact ? 1u : 0u;
          r.error.add(b.error[s], record);
          r.decisions[0].add(b.core[s], b.exact, b.margin_ulps, record);
        }
      }
      r.strata.push_back({stratum.name, std::string(stratum.description) + "; one input is one mesh", range.size(), refused});
      tables[s].push_back({{"generator", stratum.name},
                           {"meshes", range.size()},
                           {"meshes_refused", refused},
                           {"meshes_whose_first_ray_meets_an_edge_or_corner", rows_at_zero},
                           {"far_bricks", bricks},
                           {"far_bricks_inside", inside},
                           {"misclassified", wrong}});
    }
  }
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    results[s].storage = storage;
    results[s].details = {{"by_generator", tables[s]},
                          {"h", kH},
                          {"band", kBand},
                          {"error_means", "a far brick's stored value vs the exact -band h (inside) or +band h "
                                          "(outside): an absent or inside brick reads these exactly"}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay(RunContext&, const ReplayRequest& request) {
  const StratumSpec& stratum = generator_named(kStrata, request.input.generator, kId);
  const Input in = generate_input(stratum.kind, stratum.name, request.input.seed, request.input.index);
  const Outcome o = measure(in, request.storage == Storage::float32, request.storage == Storage::float64);
  const std::string& brick = replay_text(request, "brick");
  const auto s = static_cast<std::size_t>(request.storage);
  for (const BrickOutcome& b : o.bricks)
    if (std::to_string(b.brick[0]) + "," + std::to_string(b.brick[1]) + "," + std::to_string(b.brick[2]) == brick)
      return {{"error", hex_float(b.error[s].result), hex_float(b.error[s].reference)}, {"parity", b.core[s], b.exact}};
  throw Error(ErrorCode::badarg, "replay: mesh.ray_parity input has no far brick " + brick);
}

}  // namespace

}  // namespace distgrid::audit::calcs
