// Mesh bake benchmarks: the 20 480- and 327 680-triangle icospheres (radius 1, off
// the lattice) at h = 1/128, band 3, float and double bricks, one thread and every hardware thread. Welding and
// normals are prepared outside the timed loop; items are nodes of computed bricks.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <string>
#include <thread>

#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_parts.hpp"

namespace {

using namespace distgrid;

constexpr double kH = 1.0 / 128;

const PreparedMesh& prepared(const std::string& name) {
  static const PreparedMesh icosphere_20k = prepare_mesh(mesh_part("icosphere_20k").mesh, "icosphere_20k");
  static const PreparedMesh icosphere_330k = prepare_mesh(mesh_part("icosphere_330k").mesh, "icosphere_330k");
  return name == "icosphere_20k" ? icosphere_20k : icosphere_330k;
}

template <class S>
void BM_bake_mesh(benchmark::State& state, const std::string& name) {
  const PreparedMesh& mesh = prepared(name);
  MeshBakeSettings settings;
  settings.h = kH;
  settings.threads = static_cast<unsigned>(state.range(0));
  std::size_t nodes = 0;
  for (auto _ : state) {
    MeshBakeStats stats;
    Grid<S> grid = bake_mesh<S>(mesh, settings, {}, &stats);
    nodes = stats.bricks_computed * kBrickNodes;
    benchmark::DoNotOptimize(grid.stored_brick_count());
  }
  state.SetItemsProcessed(state.iterations() * static_cast<std::int64_t>(nodes));
  state.counters["nodes"] = static_cast<double>(nodes);
  state.counters["triangles"] = static_cast<double>(mesh.triangles.size());
  state.SetBytesProcessed(state.iterations() * static_cast<std::int64_t>(nodes * sizeof(S)));
}

template <class S>
void BM_bake_mesh_icosphere_20k(benchmark::State& state) {
  BM_bake_mesh<S>(state, "icosphere_20k");
}
template <class S>
void BM_bake_mesh_icosphere_330k(benchmark::State& state) {
  BM_bake_mesh<S>(state, "icosphere_330k");
}

const int kAllThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

BENCHMARK_TEMPLATE(BM_bake_mesh_icosphere_20k, float)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_bake_mesh_icosphere_20k, double)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_bake_mesh_icosphere_330k, float)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_TEMPLATE(BM_bake_mesh_icosphere_330k, double)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
