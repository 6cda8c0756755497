// Peer benchmark: the same work through OpenVDB and through distgrid, back to back
// in one process, with the ratio ours / OpenVDB and the accuracy of each side.
//
//   peer_openvdb [--threads N] [--repetitions R] [--points P] [--background-load] [--out FILE.json]
//
// Work: the sphere of radius 1 (centre off the lattice, as the default part) at
// h = 1/128, band 3, float values on both sides. Both sides use the same thread
// count: --threads 1 (the default) caps TBB at one thread and gives our calls one
// thread; --threads 0 lets both use every core. Queries (sampling, gradient) run
// on the calling thread on both sides. Every timing is the median of R repetitions,
// ours and OpenVDB alternating, so a change of machine load hits both sides alike;
// with one thread it is the process's CPU time, with more the wall time.
// --background-load runs a standard competing workload while both sides are timed:
// a child process streaming through 256 MB on the last core (this process is kept
// on the first one when it runs one thread).
// Under `valgrind --tool=callgrind --instr-atstart=no` the first repetition of each
// side is counted and dumped as "<row id>/ours" or "<row id>/openvdb" (instruction
// counts independent of machine load); natively these requests cost nothing.
#include <openvdb/openvdb.h>
#include <openvdb/tools/Interpolation.h>
#include <openvdb/tools/LevelSetMeasure.h>
#include <openvdb/tools/LevelSetSphere.h>
#include <openvdb/tools/MeshToVolume.h>
#include <openvdb/tools/VolumeToMesh.h>
#include <sched.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <tbb/blocked_range.h>
#include <tbb/global_control.h>
#include <tbb/parallel_for.h>
#include <unistd.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <ctime>
#include <fstream>
#include <iostream>
#include <memory>
#include <numbers>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/bake.hpp"
#include "distgrid/build_info.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/mesh_stats.hpp"
#include "side_by_side.hpp"

namespace {

using namespace distgrid;

constexpr double kH = 1.0 / 128;
constexpr double kBand = 3;
constexpr double kRadius = 1;
constexpr std::uint64_t kSeed = 20261201;

struct Options {
  unsigned threads = 1;
  int repetitions = 5;
  std::size_t points = 10'000'000;
  bool background_load = false;
  std::string out;
};

Options parse(int argc, char** argv) {
  Options o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool has_value = a + 1 < argc;
    if (arg == "--threads" && has_value) {
      o.threads = static_cast<unsigned>(std::stoul(argv[++a]));
    } else if (arg == "--repetitions" && has_value) {
      o.repetitions = std::max(1, std::stoi(argv[++a]));
    } else if (arg == "--points" && has_value) {
      o.points = std::max<std::size_t>(1000, std::stoull(argv[++a]));
    } else if (arg == "--background-load") {
      o.background_load = true;
    } else if (arg == "--out" && has_value) {
      o.out = argv[++a];
    } else {
      std::cerr << "usage: peer_openvdb [--threads N (0: all)] [--repetitions R] [--points P] [--background-load] "
                   "[--out FILE.json]\n";
      std::exit(2);
    }
  }
  return o;
}

/// Results of timed loops are written here so the compiler keeps the loops.
volatile double sink = 0;

/// Whether timings are the process's CPU time (one thread) or wall time (all threads,
/// where CPU time would add the threads up): see side_by_side.hpp.
bool g_cpu_time = true;

/// median_times of side_by_side.hpp, ours against OpenVDB, timed as g_cpu_time says.
template <class Ours, class Theirs>
std::array<double, 2> median_times(const std::string& id, int repetitions, Ours&& ours, Theirs&& theirs) {
  return bench::median_times(id, repetitions, g_cpu_time, ours, theirs);
}

/// Bytes the background load streams through (well beyond any last-level cache).
constexpr std::size_t kBackgroundBytes = std::size_t{256} << 20;

/// Starts the competing workload: a child process on the last core that reads and
/// writes 256 MB in a loop until it is killed (or this process ends). With one
/// thread, this process is kept on the first core. Returns the child's id.
pid_t start_background_load(bool pin_self) {
  const long cores = sysconf(_SC_NPROCESSORS_ONLN);
  const auto last = static_cast<std::size_t>(std::max(1L, cores) - 1);
  if (pin_self && last > 0) {
    cpu_set_t first;
    CPU_ZERO(&first);
    CPU_SET(0, &first);
    sched_setaffinity(0, sizeof first, &first);
  }
  const pid_t child = fork();
  if (child != 0) return child;
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  cpu_set_t own;
  CPU_ZERO(&own);
  CPU_SET(last, &own);
  sched_setaffinity(0, sizeof own, &own);
  std::vector<std::uint64_t> data(kBackgroundBytes / sizeof(std::uint64_t), 1);
  for (std::uint64_t pass = 0;; ++pass)
    for (std::uint64_t& word : data) word = word * 3 + pass;
}

/// Stops the competing workload; returns the processor seconds it used (0 without one),
/// so a run records that the load really ran beside it.
double stop_background_load(pid_t child) {
  if (child <= 0) return 0;
  kill(child, SIGKILL);
  struct rusage usage {};
  wait4(child, nullptr, 0, &usage);
  return static_cast<double>(usage.ru_utime.tv_sec + usage.ru_stime.tv_sec) +
         1e-6 * static_cast<double>(usage.ru_utime.tv_usec + usage.ru_stime.tv_usec);
}

// --- the sphere and exact distances ------------------------------------------

Vec3 sphere_centre() {
  const nlohmann::json& c = default_part("sphere").spec.at("center");
  return {c[0].get<double>(), c[1].get<double>(), c[2].get<double>()};
}

/// Distance to the sphere of radius 1 about `centre`, in long double (exact to far
/// below a double's rounding at these magnitudes).
double sphere_distance(const Vec3& centre, double x, double y, double z) {
  const long double dx = static_cast<long double>(x) - centre[0], dy = static_cast<long double>(y) - centre[1],
                    dz = static_cast<long double>(z) - centre[2];
  return static_cast<double>(std::sqrt(dx * dx + dy * dy + dz * dz) - static_cast<long double>(kRadius));
}

/// Worst |stored - exact| / h over the nodes inside the band, and how many there were.
struct BandError {
  double max_h = 0;
  std::size_t nodes = 0;
};

template <class Exact>
BandError our_band_error(const Grid<float>& grid, Exact&& exact) {
  BandError e;
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    const BrickNodePositions at = brick_node_positions(grid.stored_keys()[slot], grid.h());
    const float* v = grid.brick_values(slot);
    for (std::size_t n = 0; n < kBrickNodes; ++n) {
      const double value = static_cast<double>(v[n]);
      if (!(std::fabs(value) < grid.band_width())) continue;
      ++e.nodes;
      e.max_h = std::max(e.max_h, std::fabs(value - exact(at.x[n & 7], at.y[(n >> 3) & 7], at.z[n >> 6])) / grid.h());
    }
  }
  return e;
}

/// Over OpenVDB's active voxels whose value lies inside the band.
template <class Exact>
BandError vdb_band_error(const openvdb::FloatGrid& grid, Exact&& exact) {
  BandError e;
  const double band_width = kBand * kH;
  for (auto it = grid.cbeginValueOn(); it; ++it) {
    const auto value = static_cast<double>(*it);
    if (!(std::fabs(value) < band_width)) continue;
    const openvdb::Vec3d p = grid.indexToWorld(it.getCoord());
    ++e.nodes;
    e.max_h = std::max(e.max_h, std::fabs(value - exact(p[0], p[1], p[2])) / kH);
  }
  return e;
}

// --- exact distance to a triangle mesh (brute force, long double) -------------
// Written here, apart from core's closest point, so the check is independent of
// the code it checks.

using LVec = std::array<long double, 3>;

LVec lsub(const LVec& a, const LVec& b) { return {a[0] - b[0], a[1] - b[1], a[2] - b[2]}; }
long double ldot(const LVec& a, const LVec& b) { return a[0] * b[0] + a[1] * b[1] + a[2] * b[2]; }
LVec lcross(const LVec& a, const LVec& b) {
  return {a[1] * b[2] - a[2] * b[1], a[2] * b[0] - a[0] * b[2], a[0] * b[1] - a[1] * b[0]};
}

long double segment_distance_squared(const LVec& p, const LVec& a, const LVec& b) {
  const LVec ab = lsub(b, a), ap = lsub(p, a);
  const long double len2 = ldot(ab, ab);
  const long double t = len2 > 0 ? std::clamp(ldot(ap, ab) / len2, 0.0L, 1.0L) : 0.0L;
  const LVec d{ap[0] - t * ab[0], ap[1] - t * ab[1], ap[2] - t * ab[2]};
  return ldot(d, d);
}

/// Squared distance from p to triangle abc: the plane distance when p projects
/// inside (all three edge tests agree), else the nearest of the three edges.
long double triangle_distance_squared(const LVec& p, const LVec& a, const LVec& b, const LVec& c) {
  const LVec n = lcross(lsub(b, a), lsub(c, a));
  const long double nn = ldot(n, n);
  if (nn > 0) {
    const bool inside = ldot(lcross(lsub(b, a), lsub(p, a)), n) >= 0 && ldot(lcross(lsub(c, b), lsub(p, b)), n) >= 0 &&
                        ldot(lcross(lsub(a, c), lsub(p, c)), n) >= 0;
    if (inside) {
      const long double s = ldot(lsub(p, a), n);
      return s * s / nn;
    }
  }
  return std::min({segment_distance_squared(p, a, b), segment_distance_squared(p, b, c),
                   segment_distance_squared(p, c, a)});
}

struct ExactMesh {
  std::vector<std::array<LVec, 3>> corners;
  std::vector<std::array<double, 6>> boxes;  // lo xyz, hi xyz
};

ExactMesh exact_mesh(const std::vector<Vec3>& positions, const std::vector<std::array<std::uint32_t, 3>>& triangles) {
  ExactMesh m;
  for (const auto& t : triangles) {
    std::array<LVec, 3> c{};
    std::array<double, 6> box{1e300, 1e300, 1e300, -1e300, -1e300, -1e300};
    for (std::size_t k = 0; k < 3; ++k) {
      const Vec3& p = positions[t[k]];
      for (std::size_t a = 0; a < 3; ++a) {
        c[k][a] = p[a];
        box[a] = std::min(box[a], p[a]);
        box[3 + a] = std::max(box[3 + a], p[a]);
      }
    }
    m.corners.push_back(c);
    m.boxes.push_back(box);
  }
  return m;
}

/// Unsigned distance from p to the mesh (triangles whose box is farther than the
/// best so far are skipped; the answer is the exact minimum either way).
double mesh_distance(const ExactMesh& m, double x, double y, double z) {
  const LVec p{x, y, z};
  long double best = 1e300L;
  for (std::size_t t = 0; t < m.corners.size(); ++t) {
    const auto& b = m.boxes[t];
    const double gx = std::max({b[0] - x, x - b[3], 0.0}), gy = std::max({b[1] - y, y - b[4], 0.0}),
                 gz = std::max({b[2] - z, z - b[5], 0.0});
    if (static_cast<long double>(gx * gx + gy * gy + gz * gz) > best * (1 + 1e-9L)) continue;
    best = std::min(best, triangle_distance_squared(p, m.corners[t][0], m.corners[t][1], m.corners[t][2]));
  }
  return static_cast<double>(std::sqrt(best));
}

/// Worst |stored - signed exact distance| / h over `count` band nodes drawn at
/// random (fixed seed) from the given list of (x, y, z, stored value).
double sampled_mesh_error(const std::vector<std::array<double, 4>>& band_nodes, const ExactMesh& mesh,
                          std::size_t count) {
  std::mt19937_64 rng(kSeed);
  std::uniform_int_distribution<std::size_t> pick(0, band_nodes.size() - 1);
  double worst = 0;
  for (std::size_t n = 0; n < count && !band_nodes.empty(); ++n) {
    const auto& node = band_nodes[pick(rng)];
    const double d = mesh_distance(mesh, node[0], node[1], node[2]);
    // The sign is taken from the stored value: a sign error shows as an error of 2|d|.
    const double exact = node[3] < 0 ? -d : d;
    const double error_if_sign_right = std::fabs(node[3] - exact);
    const double error_if_sign_wrong = std::fabs(node[3] + exact);
    worst = std::max(worst, std::min(error_if_sign_right, error_if_sign_wrong) / kH);
  }
  return worst;
}

/// Nodes strictly inside the band, with world positions.
std::vector<std::array<double, 4>> our_band_nodes(const Grid<float>& grid) {
  std::vector<std::array<double, 4>> nodes;
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    const BrickNodePositions at = brick_node_positions(grid.stored_keys()[slot], grid.h());
    const float* v = grid.brick_values(slot);
    for (std::size_t n = 0; n < kBrickNodes; ++n)
      if (std::fabs(static_cast<double>(v[n])) < grid.band_width())
        nodes.push_back({at.x[n & 7], at.y[(n >> 3) & 7], at.z[n >> 6], static_cast<double>(v[n])});
  }
  return nodes;
}

std::vector<std::array<double, 4>> vdb_band_nodes(const openvdb::FloatGrid& grid) {
  std::vector<std::array<double, 4>> nodes;
  for (auto it = grid.cbeginValueOn(); it; ++it) {
    const auto value = static_cast<double>(*it);
    if (!(std::fabs(value) < kBand * kH)) continue;
    const openvdb::Vec3d p = grid.indexToWorld(it.getCoord());
    nodes.push_back({p[0], p[1], p[2], value});
  }
  return nodes;
}

// --- query points ---------------------------------------------------------------

using bench::Point;

/// bench::query_points with this benchmark's seed.
std::vector<Point> query_points(const Grid<float>& grid, std::size_t count, bool brick_sorted) {
  return bench::query_points(grid, count, brick_sorted, kSeed);
}

using VdbSampler = openvdb::tools::GridSampler<openvdb::FloatGrid::ConstAccessor, openvdb::tools::BoxSampler>;

// --- report -------------------------------------------------------------------

struct Row {
  Row(std::string row_id, std::string row_operation) : id(std::move(row_id)), operation(std::move(row_operation)) {}
  std::string id, operation;
  double ours_s = 0, openvdb_s = 0;
  std::optional<double> target;
  std::size_t items = 0;
  nlohmann::json ours_accuracy = nullptr, openvdb_accuracy = nullptr;
  std::string accuracy_unit;
  std::string note;
  nlohmann::json extra = nlohmann::json::object();
};

nlohmann::json to_json(const Row& r) {
  nlohmann::json j{{"id", r.id},           {"operation", r.operation},
                   {"ours_seconds", r.ours_s}, {"openvdb_seconds", r.openvdb_s},
                   {"ratio", r.ours_s / r.openvdb_s}, {"items", r.items},
                   {"ours_accuracy", r.ours_accuracy}, {"openvdb_accuracy", r.openvdb_accuracy},
                   {"accuracy_unit", r.accuracy_unit}, {"note", r.note}};
  j["target"] = r.target ? nlohmann::json(*r.target) : nlohmann::json(nullptr);
  j.update(r.extra);
  return j;
}

void print(const Row& r) {
  const double ratio = r.ours_s / r.openvdb_s;
  std::printf("%-34s ours %10.3f ms  OpenVDB %10.3f ms  ratio %6.3f", r.operation.c_str(), r.ours_s * 1e3,
              r.openvdb_s * 1e3, ratio);
  if (r.target) std::printf("  target <= %.2f %s", *r.target, ratio <= *r.target ? "met" : "MISSED");
  std::printf("\n");
  std::fflush(stdout);
}

double mesh_volume_error(const TriangleMesh& mesh, double exact) {
  return std::fabs(mesh_stats(mesh).signed_volume - exact) / exact;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  openvdb::initialize();
  // One thread for TBB when asked; otherwise TBB's default (every core).
  std::unique_ptr<tbb::global_control> tbb_threads;
  if (options.threads != 0)
    tbb_threads = std::make_unique<tbb::global_control>(tbb::global_control::max_allowed_parallelism, options.threads);
  const unsigned threads_used = options.threads == 0 ? std::max(1u, std::thread::hardware_concurrency()) : options.threads;
  const int reps = options.repetitions;
  g_cpu_time = threads_used == 1;
  const pid_t background = options.background_load ? start_background_load(threads_used == 1) : 0;

  const Vec3 centre = sphere_centre();
  // OpenVDB takes a float centre; its accuracy is measured against that sphere.
  const openvdb::Vec3f vdb_centre(static_cast<float>(centre[0]), static_cast<float>(centre[1]),
                                  static_cast<float>(centre[2]));
  const Vec3 vdb_centre_d{static_cast<double>(vdb_centre[0]), static_cast<double>(vdb_centre[1]),
                          static_cast<double>(vdb_centre[2])};
  const Field<float> field = compile_field<float>(default_part("sphere").spec);
  const BakeSettings bake_settings{kH, kBand, std::nullopt, options.threads};
  const double exact_volume = 4.0 / 3.0 * std::numbers::pi * kRadius * kRadius * kRadius;

  std::vector<Row> rows;
  std::printf("peer_openvdb: OpenVDB %s, %u thread(s), median of %d, sphere r = 1, h = 1/128, band 3, float, %s, "
              "code path %s\n",
              openvdb::getLibraryAbiVersionString(), threads_used, reps,
              options.background_load ? "background load (256 MB stream on the last core)" : "no background load",
              build_instruction_set().c_str());

  // Sphere creation.
  std::optional<Grid<float>> ours;
  openvdb::FloatGrid::Ptr vdb;
  {
    Row r{"sphere_create", "sphere level set creation"};
    r.target = 0.3;
    const auto t = median_times(
        r.id, reps, [&] { ours.emplace(bake(field, bake_settings)); },
        [&] {
          vdb = openvdb::tools::createLevelSetSphere<openvdb::FloatGrid>(static_cast<float>(kRadius), vdb_centre,
                                                                          static_cast<float>(kH),
                                                                          static_cast<float>(kBand));
        });
    r.ours_s = t[0];
    r.openvdb_s = t[1];
    const BandError oe = our_band_error(*ours, [&](double x, double y, double z) { return sphere_distance(centre, x, y, z); });
    const BandError ve = vdb_band_error(*vdb, [&](double x, double y, double z) { return sphere_distance(vdb_centre_d, x, y, z); });
    r.items = oe.nodes;
    r.ours_accuracy = {{"max_error_h", oe.max_h}, {"band_nodes", oe.nodes}};
    r.openvdb_accuracy = {{"max_error_h", ve.max_h}, {"band_nodes", ve.nodes}};
    r.accuracy_unit = "max |stored - exact distance| / h over every node inside the band";
    print(r);
    rows.push_back(r);
  }
  const Grid<float>& grid = *ours;
  // Calls visit(sampler, n) for n < count over a TBB parallel_for, a sampler (with its
  // own accessor) per range; with TBB capped at one thread, on this thread only.
  const auto vdb_parallel_points = [&](std::size_t count, auto&& visit) {
    tbb::parallel_for(tbb::blocked_range<std::size_t>(0, count, 16384), [&](const tbb::blocked_range<std::size_t>& range) {
      openvdb::FloatGrid::ConstAccessor accessor = vdb->getConstAccessor();
      VdbSampler sampler(accessor, vdb->transform());
      for (std::size_t n = range.begin(); n < range.end(); ++n) visit(sampler, n);
    });
  };

  // Memory per grid.
  {
    Row r{"memory", "memory per grid (bytes)"};
    r.target = 0.95;
    r.ours_s = static_cast<double>(grid.memory_bytes());
    r.openvdb_s = static_cast<double>(vdb->memUsage());
    r.items = grid.stored_brick_count();
    r.note = "values are bytes, not seconds";
    r.ours_accuracy = {{"stored_bricks", grid.stored_brick_count()}};
    r.openvdb_accuracy = {{"leaf_nodes", vdb->tree().leafCount()}, {"active_voxels", vdb->activeVoxelCount()}};
    std::printf("%-34s ours %10.0f B   OpenVDB %10.0f B   ratio %6.3f  target <= 0.95 %s\n", r.operation.c_str(),
                r.ours_s, r.openvdb_s, r.ours_s / r.openvdb_s, r.ours_s / r.openvdb_s <= 0.95 ? "met" : "MISSED");
    rows.push_back(r);
  }

  // Trilinear sampling, random order and brick-sorted order.
  for (const bool sorted : {false, true}) {
    const std::vector<Point> points = query_points(grid, options.points, sorted);
    Row r{sorted ? "sample_sorted" : "sample_random",
          std::string("trilinear sample, ") + (sorted ? "brick-sorted" : "random order")};
    r.target = 0.3;
    r.items = points.size();
    double ours_sum = 0, vdb_sum = 0;
    const auto t = median_times(
        r.id, reps,
        [&] {
          GridAccessor<float> accessor(grid);
          double sum = 0;
          for (const Point& p : points) sum += accessor.sample(p.x, p.y, p.z);
          ours_sum = sum;
        },
        [&] {
          openvdb::FloatGrid::ConstAccessor accessor = vdb->getConstAccessor();
          VdbSampler sampler(accessor, vdb->transform());
          double sum = 0;
          for (const Point& p : points) sum += static_cast<double>(sampler.wsSample(openvdb::Vec3d(p.x, p.y, p.z)));
          vdb_sum = sum;
        });
    r.ours_s = t[0];
    r.openvdb_s = t[1];
    // Accuracy: worst |sample - exact| / h at points at least h inside the band's
    // edge (where neither side is clamped), over the first million points.
    GridAccessor<float> accessor(grid);
    openvdb::FloatGrid::ConstAccessor vdb_accessor = vdb->getConstAccessor();
    VdbSampler sampler(vdb_accessor, vdb->transform());
    double ours_worst = 0, vdb_worst = 0;
    for (std::size_t n = 0; n < std::min<std::size_t>(points.size(), 1'000'000); ++n) {
      const Point& p = points[n];
      const double exact = sphere_distance(centre, p.x, p.y, p.z);
      if (!(std::fabs(exact) < (kBand - 1) * kH)) continue;
      ours_worst = std::max(ours_worst, std::fabs(accessor.sample(p.x, p.y, p.z) - exact) / kH);
      const double vdb_exact = sphere_distance(vdb_centre_d, p.x, p.y, p.z);
      vdb_worst = std::max(vdb_worst,
                           std::fabs(static_cast<double>(sampler.wsSample(openvdb::Vec3d(p.x, p.y, p.z))) - vdb_exact) / kH);
    }
    r.ours_accuracy = {{"max_error_h", ours_worst}};
    r.openvdb_accuracy = {{"max_error_h", vdb_worst}};
    r.accuracy_unit = "max |sample - exact distance| / h where |exact| < 2h";
    r.note = "checksums " + std::to_string(ours_sum) + " / " + std::to_string(vdb_sum);
    print(r);
    rows.push_back(r);
    // Our batch entry point on the same points, against OpenVDB's sampler over a TBB
    // parallel_for (one accessor per range; a single range with one thread).
    std::vector<std::array<double, 3>> xyz;
    xyz.reserve(points.size());
    for (const Point& p : points) xyz.push_back({p.x, p.y, p.z});
    std::vector<double> ours_out(points.size()), vdb_out(points.size());
    Row m{sorted ? "sample_sorted_many" : "sample_random_many",
          std::string("trilinear sample, ") + (sorted ? "brick-sorted" : "random order") + ", sample_many"};
    m.target = sorted ? 0.25 : 0.3;
    m.items = points.size();
    const auto tm = median_times(
        m.id, reps, [&] { grid.sample_many(xyz, ours_out, options.threads); },
        [&] {
          vdb_parallel_points(points.size(), [&](VdbSampler& vdb_sampler, std::size_t n) {
            vdb_out[n] = static_cast<double>(vdb_sampler.wsSample(openvdb::Vec3d(points[n].x, points[n].y, points[n].z)));
          });
        });
    m.ours_s = tm[0];
    m.openvdb_s = tm[1];
    m.ours_accuracy = r.ours_accuracy;
    m.openvdb_accuracy = r.openvdb_accuracy;
    m.accuracy_unit = r.accuracy_unit;
    m.note = "ours through Grid::sample_many, OpenVDB's sampler over tbb::parallel_for";
    print(m);
    rows.push_back(m);
  }

  // The batch gradient at the brick-sorted points of the gradient row below.
  {
    const std::vector<Point> points = query_points(grid, options.points / 5, true);
    std::vector<std::array<double, 3>> xyz;
    xyz.reserve(points.size());
    for (const Point& p : points) xyz.push_back({p.x, p.y, p.z});
    std::vector<std::array<double, 3>> ours_out(points.size()), vdb_out(points.size());
    Row r{"gradient_many", "six-sample gradient, brick-sorted, gradient_many"};
    r.target = 0.25;
    r.items = points.size();
    const double e = kH / 2;
    const auto t = median_times(
        r.id, reps, [&] { grid.gradient_many(xyz, ours_out, options.threads); },
        [&] {
          vdb_parallel_points(points.size(), [&](VdbSampler& s, std::size_t n) {
            const Point& p = points[n];
            vdb_out[n] = {(static_cast<double>(s.wsSample(openvdb::Vec3d(p.x + e, p.y, p.z))) -
                           static_cast<double>(s.wsSample(openvdb::Vec3d(p.x - e, p.y, p.z)))) / kH,
                          (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y + e, p.z))) -
                           static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y - e, p.z)))) / kH,
                          (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y, p.z + e))) -
                           static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y, p.z - e)))) / kH};
          });
        });
    r.ours_s = t[0];
    r.openvdb_s = t[1];
    r.note = "ours through Grid::gradient_many, OpenVDB's sampler over tbb::parallel_for; accuracy as in gradient";
    print(r);
    rows.push_back(r);
  }

  // Six-sample gradient (central differences over one voxel) at brick-sorted points.
  {
    const std::vector<Point> points = query_points(grid, options.points / 5, true);
    Row r{"gradient", "six-sample gradient, brick-sorted"};
    r.target = 0.5;
    r.items = points.size();
    const double e = kH / 2;
    const auto t = median_times(
        r.id, reps,
        [&] {
          GridAccessor<float> accessor(grid);
          double sum = 0;
          for (const Point& p : points) {
            const std::array<double, 3> g = accessor.gradient(p.x, p.y, p.z);
            sum += g[0] + g[1] + g[2];
          }
          sink = sum;
        },
        [&] {
          openvdb::FloatGrid::ConstAccessor accessor = vdb->getConstAccessor();
          VdbSampler s(accessor, vdb->transform());
          double sum = 0;
          for (const Point& p : points) {
            const double gx = (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x + e, p.y, p.z))) -
                               static_cast<double>(s.wsSample(openvdb::Vec3d(p.x - e, p.y, p.z)))) / kH;
            const double gy = (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y + e, p.z))) -
                               static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y - e, p.z)))) / kH;
            const double gz = (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y, p.z + e))) -
                               static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y, p.z - e)))) / kH;
            sum += gx + gy + gz;
          }
          sink = sum;
        });
    r.ours_s = t[0];
    r.openvdb_s = t[1];
    // Accuracy: worst |gradient - exact unit normal| where |exact| < 2h.
    GridAccessor<float> accessor(grid);
    openvdb::FloatGrid::ConstAccessor vdb_accessor = vdb->getConstAccessor();
    VdbSampler s(vdb_accessor, vdb->transform());
    double ours_worst = 0, vdb_worst = 0;
    for (const Point& p : points) {
      if (!(std::fabs(sphere_distance(centre, p.x, p.y, p.z)) < (kBand - 1) * kH)) continue;
      const std::array<double, 3> g = accessor.gradient(p.x, p.y, p.z);
      const Vec3 d{p.x - centre[0], p.y - centre[1], p.z - centre[2]};
      const double len = std::sqrt(d[0] * d[0] + d[1] * d[1] + d[2] * d[2]);
      const double gvx = (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x + e, p.y, p.z))) -
                          static_cast<double>(s.wsSample(openvdb::Vec3d(p.x - e, p.y, p.z)))) / kH;
      const double gvy = (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y + e, p.z))) -
                          static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y - e, p.z)))) / kH;
      const double gvz = (static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y, p.z + e))) -
                          static_cast<double>(s.wsSample(openvdb::Vec3d(p.x, p.y, p.z - e)))) / kH;
      double ours_err = 0, vdb_err = 0;
      const std::array<double, 3> gv{gvx, gvy, gvz};
      for (std::size_t a = 0; a < 3; ++a) {
        ours_err = std::max(ours_err, std::fabs(g[a] - d[a] / len));
        vdb_err = std::max(vdb_err, std::fabs(gv[a] - d[a] / len));
      }
      ours_worst = std::max(ours_worst, ours_err);
      vdb_worst = std::max(vdb_worst, vdb_err);
    }
    r.ours_accuracy = {{"max_component_error", ours_worst}};
    r.openvdb_accuracy = {{"max_component_error", vdb_worst}};
    r.accuracy_unit = "max |gradient component - exact normal component| where |exact| < 2h";
    print(r);
    rows.push_back(r);
  }

  // Enclosed volume.
  {
    Row r{"volume", "enclosed volume"};
    r.target = 0.05;
    r.items = grid.stored_brick_count() * kBrickNodes;
    double ours_volume = 0, vdb_volume = 0;
    const auto t = median_times(
        r.id, reps, [&] { ours_volume = grid.volume(); },
        [&] { vdb_volume = openvdb::tools::levelSetVolume(*vdb, true); });
    r.ours_s = t[0];
    r.openvdb_s = t[1];
    r.ours_accuracy = {{"relative_error", std::fabs(ours_volume - exact_volume) / exact_volume}};
    r.openvdb_accuracy = {{"relative_error", std::fabs(vdb_volume - exact_volume) / exact_volume}};
    r.accuracy_unit = "|volume - 4/3 pi| / (4/3 pi)";
    print(r);
    rows.push_back(r);
  }

  // Contour: surface nets (and marching cubes) against volumeToMesh.
  for (const Mesher mesher : {Mesher::surface_nets, Mesher::marching_cubes}) {
    Row r{mesher == Mesher::surface_nets ? "contour_surface_nets" : "contour_marching_cubes",
          std::string("contour, ") + std::string(mesher_name(mesher))};
    r.target = 0.15;
    TriangleMesh our_mesh;
    std::vector<openvdb::Vec3s> vdb_points;
    std::vector<openvdb::Vec3I> vdb_triangles;
    std::vector<openvdb::Vec4I> vdb_quads;
    const auto t = median_times(
        r.id, reps, [&] { our_mesh = contour(grid, ContourOptions{mesher, false}).mesh; },
        [&] {
          vdb_points.clear();
          vdb_triangles.clear();
          vdb_quads.clear();
          openvdb::tools::volumeToMesh(*vdb, vdb_points, vdb_triangles, vdb_quads, 0.0);
        });
    r.ours_s = t[0];
    r.openvdb_s = t[1];
    TriangleMesh theirs;
    for (const auto& p : vdb_points)
      theirs.positions.push_back({static_cast<double>(p[0]), static_cast<double>(p[1]), static_cast<double>(p[2])});
    for (const auto& tri : vdb_triangles) theirs.triangles.push_back({tri[0], tri[1], tri[2]});
    for (const auto& q : vdb_quads) {
      theirs.triangles.push_back({q[0], q[1], q[2]});
      theirs.triangles.push_back({q[0], q[2], q[3]});
    }
    // OpenVDB winds its faces the other way round; the magnitude is what counts.
    const double vdb_volume = std::fabs(mesh_stats(theirs).signed_volume);
    r.items = our_mesh.triangles.size();
    r.ours_accuracy = {{"relative_volume_error", mesh_volume_error(our_mesh, exact_volume)},
                       {"triangles", our_mesh.triangles.size()}};
    r.openvdb_accuracy = {{"relative_volume_error", std::fabs(vdb_volume - exact_volume) / exact_volume},
                          {"triangles", theirs.triangles.size()}};
    r.accuracy_unit = "|mesh volume - 4/3 pi| / (4/3 pi)";
    print(r);
    rows.push_back(r);
  }

  // Mesh to distance on the icospheres.
  for (const char* name : {"icosphere_20k", "icosphere_330k"}) {
    const MeshPart part = mesh_part(name);
    const openvdb::math::Transform::Ptr xform = openvdb::math::Transform::createLinearTransform(kH);
    std::vector<openvdb::Vec3s> points;
    std::vector<openvdb::Vec3I> triangles;
    for (const auto& p : part.mesh.positions)
      points.emplace_back(static_cast<float>(p[0]), static_cast<float>(p[1]), static_cast<float>(p[2]));
    for (const auto& t : part.mesh.triangles) triangles.emplace_back(t[0], t[1], t[2]);
    MeshBakeSettings settings;
    settings.h = kH;
    settings.band = kBand;
    settings.threads = options.threads;
    Row r{std::string("mesh_to_distance_") + (name[10] == '2' ? "20k" : "330k"),
          std::string("mesh to distance, ") + std::to_string(part.mesh.triangles.size()) + " triangles"};
    r.target = threads_used > 1 ? 0.15 : 0.25;
    r.items = part.mesh.triangles.size();
    std::optional<Grid<float>> our_grid;
    openvdb::FloatGrid::Ptr vdb_grid;
    const auto t = median_times(
        r.id, reps,
        [&] {
          const PreparedMesh prepared = prepare_mesh(part.mesh, name);
          our_grid.emplace(bake_mesh<float>(prepared, settings));
        },
        [&] { vdb_grid = openvdb::tools::meshToLevelSet<openvdb::FloatGrid>(*xform, points, triangles, static_cast<float>(kBand)); });
    r.ours_s = t[0];
    r.openvdb_s = t[1];
    // The share of welding and validation, which OpenVDB does not do.
    const auto prepare = median_times(
        r.id + "_prepare", reps, [&] { sink = static_cast<double>(prepare_mesh(part.mesh, name).triangles.size()); }, [] {});
    r.extra = {{"ours_prepare_seconds", prepare[0]}, {"ours_bake_only_ratio", (t[0] - prepare[0]) / t[1]}};
    if (threads_used > 1) {
      // Our bake alone (the mesh prepared once) on one thread against every thread.
      const PreparedMesh prepared = prepare_mesh(part.mesh, name);
      MeshBakeSettings one = settings;
      one.threads = 1;
      const auto speedup = median_times(
          r.id + "_one_thread", reps, [&] { our_grid.emplace(bake_mesh<float>(prepared, one)); },
          [&] { our_grid.emplace(bake_mesh<float>(prepared, settings)); });
      r.extra["ours_bake_one_thread_seconds"] = speedup[0];
      r.extra["ours_bake_all_threads_seconds"] = speedup[1];
      r.extra["ours_bake_speedup"] = speedup[0] / speedup[1];
    }
    // Each side against the exact distance to the mesh it was given (OpenVDB's
    // corners are floats), at 1000 band nodes drawn from each grid.
    std::vector<Vec3> vdb_positions;
    for (const auto& p : points)
      vdb_positions.push_back({static_cast<double>(p[0]), static_cast<double>(p[1]), static_cast<double>(p[2])});
    const ExactMesh ours_exact = exact_mesh(part.mesh.positions, part.mesh.triangles);
    const ExactMesh vdb_exact = exact_mesh(vdb_positions, part.mesh.triangles);
    const auto our_nodes = our_band_nodes(*our_grid);
    const auto vdb_nodes = vdb_band_nodes(*vdb_grid);
    constexpr std::size_t kChecked = 1000;
    r.ours_accuracy = {{"max_error_h", sampled_mesh_error(our_nodes, ours_exact, kChecked)},
                       {"band_nodes", our_nodes.size()}, {"checked", kChecked}};
    r.openvdb_accuracy = {{"max_error_h", sampled_mesh_error(vdb_nodes, vdb_exact, kChecked)},
                          {"band_nodes", vdb_nodes.size()}, {"checked", kChecked}};
    r.accuracy_unit = "max |stored - exact distance to the mesh| / h at 1000 random band nodes";
    r.note = "ours includes welding, validation and pseudo-normals (prepare_mesh)";
    print(r);
    rows.push_back(r);
  }

  nlohmann::json report{{"benchmark", "peer_openvdb"},
                        {"openvdb_version", openvdb::getLibraryAbiVersionString()},
                        {"threads", threads_used},
                        {"background_load", options.background_load},
                        {"instruction_set", build_instruction_set()},
                        {"repetitions", reps},
                        {"points", options.points},
                        {"h", kH},
                        {"band", kBand},
                        {"storage", "float"},
                        {"timing", std::string(g_cpu_time ? "process CPU time" : "wall time") +
                                       ", median of the repetitions, ours and OpenVDB alternating"},
                        {"rows", nlohmann::json::array()}};
  report["background_load_cpu_seconds"] = stop_background_load(background);
  for (const Row& r : rows) report["rows"].push_back(to_json(r));
  return bench::write_report(report, options.out, "peer_openvdb") ? 0 : 1;
}
