#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <utility>
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
                "random tetrahedra, baked at h = 1/8, band 1; each of the run's mesh parts of at most 10 000 "
                "triangles, baked at the run's h, band 1; every far brick of the mesh's range",
      .implementation = "bake_mesh (far bricks read back as stored)",
      .reference = "the side of each far brick's centre by the exact parity (rationals) of a ray perturbed "
                   "symbolically to (y + e, z + e^2), which never meets an edge or corner",
      .errors = "error: a far brick's value vs the exact -+band h. Decision parity: inside/outside vs the exact side, "
                "margin the first ray's distance to the nearest projected edge. No arithmetic / storage / method "
                "split: a far brick holds only the marker.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::mesh,
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

enum class Stratum { through_edges, through_corners, random, parts };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::through_edges, "through_edges",
     "a tetrahedron whose two opposite edges cross the first ray of a row exactly (one in a plane y = const, one in "
     "z = const): the ray enters and leaves through edges"},
    {Stratum::through_corners, "through_corners",
     "an octahedron with its two x corners exactly on the first ray of a row: the ray enters and leaves through "
     "corners"},
    {Stratum::random, "random", "a random tetrahedron 40 to 120 voxels across"},
    {Stratum::parts, "parts",
     "each mesh part of the run with at most 10 000 triangles (one input each), baked at the run's h with band 1"},
};

/// Meshes per generator: one per 200 inputs (each is a bake of 1000 to 3000 bricks).
std::size_t mesh_count(std::size_t inputs) { return std::max<std::size_t>(2, inputs / 200); }

struct Input {
  TriangleMesh mesh;
  std::int64_t row_y = 0, row_z = 0;  ///< the row whose first ray the mesh aims at
  double h = kH;                      ///< the bake's voxel size
  const MeshSubject* part = nullptr;  ///< a run's mesh part (Stratum::parts)
};

double first_ray(std::int64_t b, double offset, double h = kH) { return (static_cast<double>(b * 8) + offset) * h; }

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
    case Stratum::parts:  // drawn by part_input
      break;
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

/// The parts input: a run's mesh part, baked at the run's h.
Input part_input(const MeshSubject& mesh, double h) {
  Input in;
  in.mesh = mesh.part.mesh;
  in.h = h;
  in.part = &mesh;
  return in;
}

/// At least the far bricks `measure` finds for a mesh (ErrorStats::begin_unit
/// needs at least the single run's adds): every brick of the corners' brick
/// range widened by one brick, as measure scans it.
std::size_t most_far_bricks(const Input& in) {
  const double h = in.h;  // the input's own voxel size
  std::size_t bricks = 1;
  for (std::size_t a = 0; a < 3; ++a) {
    double lo = in.mesh.positions[0][a], hi = lo;
    for (const Point& p : in.mesh.positions) {
      lo = std::fmin(lo, p[a]);
      hi = std::fmax(hi, p[a]);
    }
    const std::int64_t first = reference::brick_of_node_exact(static_cast<std::int64_t>(std::floor(lo / h))) - 1;
    const std::int64_t last = reference::brick_of_node_exact(static_cast<std::int64_t>(std::ceil(hi / h))) + 1;
    bricks *= static_cast<std::size_t>(last - first + 1);
  }
  return bricks;
}

struct BrickOutcome {
  std::array<std::int64_t, 3> brick{};
  std::array<std::string, kAllStorages.size()> core;  ///< by Storage: "inside" / "outside"
  std::string exact;
  double margin_ulps = 0;
  std::array<ErrorValue, kAllStorages.size()> error;  ///< by Storage: stored value vs exact -+band h
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

/// ray_gap for a large mesh: the same value, with the high-precision distance
/// taken only for edges whose double distance is within 1e-9 of the smallest.
HighPrecision ray_gap_of_part(const std::vector<reference::TriangleCorners>& triangles, double y, double z) {
  std::vector<double> gaps;
  double least = std::numeric_limits<double>::infinity();
  for (const auto& t : triangles)
    for (std::size_t e = 0; e < 3; ++e) {
      const double dy = t[(e + 1) % 3][1] - t[e][1], dz = t[(e + 1) % 3][2] - t[e][2];
      const double py = y - t[e][1], pz = z - t[e][2];
      const double length_squared = dy * dy + dz * dz;
      double u = length_squared > 0 ? (py * dy + pz * dz) / length_squared : 0;
      u = std::fmin(1, std::fmax(0, u));
      gaps.push_back(std::hypot(py - u * dy, pz - u * dz));
      least = std::fmin(least, gaps.back());
    }
  std::vector<reference::TriangleCorners> near;
  for (std::size_t t = 0; t < triangles.size(); ++t)
    for (std::size_t e = 0; e < 3; ++e)
      if (gaps[3 * t + e] <= least + 1e-9 * (1 + least)) {
        near.push_back(triangles[t]);
        break;
      }
  return ray_gap(near, y, z);
}

template <class S>
void read_core(const PreparedMesh& prepared, std::vector<BrickOutcome>& bricks, double bake_h) {
  MeshBakeSettings settings;
  settings.h = bake_h;
  settings.band = kBand;
  settings.threads = 1;  // the inputs run in parallel already
  const Grid<S> grid = bake_mesh<S>(prepared, settings);
  const reference::StoredNodes<S> nodes(grid);
  const auto s = static_cast<std::size_t>(storage_of<S>());
  const double band_width = kBand * bake_h;
  for (BrickOutcome& b : bricks) {
    // Every node of a far brick holds the brick's parity value; read the first.
    const double v = nodes.value(8 * b.brick[0], 8 * b.brick[1], 8 * b.brick[2]);
    b.core[s] = v < 0 ? "inside" : "outside";
    ErrorValue& e = b.error[s];
    const HighPrecision expected = (b.exact == "inside" ? -1 : 1) * HighPrecision(kBand) * HighPrecision(bake_h);
    e.abs = to_double(abs(HighPrecision(v) - expected));
    e.result = v;
    e.reference = to_double(expected);
    e.ulps = error_in_ulps(e.abs, e.reference, band_width);
    e.h = e.abs / bake_h;
  }
}

Outcome measure(const Input& in, const std::vector<Storage>& storages) {
  Outcome out;
  const double bake_h = in.h;
  PreparedMesh prepared;
  try {
    prepared = in.part ? RunContext::prepare(*in.part) : prepare_mesh(in.mesh, "audit mesh");
  } catch (const Error&) {
    if (in.part) throw;  // a run's part was prepared when the run read it
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
  const auto gap_of = [&](double y, double z) {
    return in.part ? ray_gap_of_part(triangles, y, z) : ray_gap(triangles, y, z);
  };
  out.row_margin_ulps =
      to_double(gap_of(first_ray(in.row_y, kFirstRayY, bake_h), first_ray(in.row_z, kFirstRayZ, bake_h))) /
      ulp_of(coordinate_scale);

  // Far bricks in the mesh's brick range widened by one brick.
  std::array<std::int64_t, 3> first{}, last{};
  for (std::size_t a = 0; a < 3; ++a) {
    first[a] = reference::brick_of_node_exact(static_cast<std::int64_t>(std::floor(lo[a] / bake_h))) - 1;
    last[a] = reference::brick_of_node_exact(static_cast<std::int64_t>(std::ceil(hi[a] / bake_h))) + 1;
  }
  const double far_squared = (kFarVoxels * bake_h) * (kFarVoxels * bake_h);
  const Rational h(bake_h);
  for (std::int64_t by = first[1]; by <= last[1]; ++by)
    for (std::int64_t bz = first[2]; bz <= last[2]; ++bz) {
      // Per row: the exact crossings of the line through the brick centres, and the first ray's margin.
      const std::vector<Rational> crossings =
          reference::exact_crossings(h * Rational(16 * by + 7, 2), h * Rational(16 * bz + 7, 2), triangles);
      const double margin =
          to_double(gap_of(first_ray(by, kFirstRayY, bake_h), first_ray(bz, kFirstRayZ, bake_h))) / ulp_of(coordinate_scale);
      for (std::int64_t bx = first[0]; bx <= last[0]; ++bx) {
        const Point centre{(static_cast<double>(bx * 8) + 3.5) * bake_h, (static_cast<double>(by * 8) + 3.5) * bake_h,
                           (static_cast<double>(bz * 8) + 3.5) * bake_h};
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
  for (Storage storage : storages)
    with_storage(storage, [&]<class S>() { read_core<S>(prepared, out.bricks, bake_h); });
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
  std::array<CalculationResult, kAllStorages.size()> results;
  std::array<nlohmann::json, kAllStorages.size()> tables;
  tables.fill(nlohmann::json::array());
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
  // One unit per generator, and for `parts` one per mesh part (one input each).
  std::vector<std::pair<const StratumSpec*, const MeshSubject*>> units;
  for (const StratumSpec& stratum : kStrata) {
    if (stratum.kind != Stratum::parts) {
      units.emplace_back(&stratum, nullptr);
      continue;
    }
    for (const MeshSubject* mesh : context.mesh_parts_up_to(kExactReferenceTriangles)) {
      context.mark_untrusted(*mesh);  // parity is the mesh's inside, which an open mesh lacks
      units.emplace_back(&stratum, mesh);
    }
  }
  std::array<std::size_t, kAllStorages.size()> part_meshes{}, part_refused{};
  for (const auto& unit : units) {
    const StratumSpec& stratum = *unit.first;
    const MeshSubject* const mesh = unit.second;  // a name of its own: lambdas capture it (clang 14)
    const std::size_t count = mesh ? 1 : mesh_count(settings.inputs);
    const InputRange range = context.shard_inputs(count);
    std::vector<Input> inputs(range.size());
    std::vector<Outcome> outcomes(range.size());
    const auto draw = [&](std::size_t n) {
      return mesh ? part_input(*mesh, settings.h) : generate_input(stratum.kind, stratum.name, settings.seed, n);
    };
    context.progress().begin(std::string(kId) + " " + stratum.name + (mesh ? " " + mesh->part.name : std::string()),
                             range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      inputs[k] = draw(range.first + k);
      outcomes[k] = measure(inputs[k], settings.storages);
    });
    context.progress().end();
    // Every shard bounds the single run's adds of this unit from all its meshes (drawing them is cheap).
    std::size_t most_adds = 0;
    for (std::size_t n = 0; n < count; ++n) most_adds += most_far_bricks(draw(n));
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
            const std::string brick =
                std::to_string(b.brick[0]) + "," + std::to_string(b.brick[1]) + "," + std::to_string(b.brick[2]);
            if (mesh)
              return InputRecord{settings.seed, stratum.name, n, mesh->part.name,
                                 {{"brick", brick}, {"h", hex_float(settings.h)}}};
            return InputRecord{
                settings.seed, stratum.name, n, {}, {{"brick", brick}, {"corners", corners_text(inputs[k].mesh)}}};
          };
          ++bricks;
          inside += b.exact == "inside" ? 1u : 0u;
          wrong += b.core[s] != b.exact ? 1u : 0u;
          r.error.add(b.error[s], record);
          r.decisions[0].add(b.core[s], b.exact, b.margin_ulps, record);
        }
      }
      if (mesh) {
        part_meshes[s] += range.size();
        part_refused[s] += refused;
      } else {
        r.strata.push_back({stratum.name, std::string(stratum.description) + "; one input is one mesh", range.size(), refused});
      }
      tables[s].push_back({{"generator", stratum.name},
                           {"part", mesh ? nlohmann::json(mesh->part.name) : nlohmann::json(nullptr)},
                           {"h", mesh ? settings.h : kH},
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
    for (const StratumSpec& stratum : kStrata)
      if (stratum.kind == Stratum::parts)
        results[s].strata.push_back({stratum.name, std::string(stratum.description) + "; one input is one mesh",
                                     part_meshes[s], part_refused[s]});
    results[s].storage = storage;
    results[s].details = {{"by_generator", tables[s]},
                          {"h", kH},
                          {"h_of_parts", settings.h},
                          {"band", kBand},
                          {"error_means", "a far brick's stored value vs the exact -band h (inside) or +band h "
                                          "(outside): an absent or inside brick reads these exactly"}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const StratumSpec& stratum = generator_named(kStrata, request.input.generator, kId);
  const Input in = stratum.kind == Stratum::parts
                       ? part_input(context.mesh_part_named(request.input.part), context.settings().h)
                       : generate_input(stratum.kind, stratum.name, request.input.seed, request.input.index);
  const Outcome o = measure(in, {request.storage});
  const std::string& brick = replay_text(request, "brick");
  const auto s = static_cast<std::size_t>(request.storage);
  for (const BrickOutcome& b : o.bricks)
    if (std::to_string(b.brick[0]) + "," + std::to_string(b.brick[1]) + "," + std::to_string(b.brick[2]) == brick)
      return {{"error", hex_float(b.error[s].result), hex_float(b.error[s].reference)}, {"parity", b.core[s], b.exact}};
  throw Error(ErrorCode::badarg, "replay: mesh.ray_parity input has no far brick " + brick);
}

}  // namespace

}  // namespace distgrid::audit::calcs
