// Contour benchmarks on the default sphere (radius 1, off the lattice) at h = 1/128,
// band 3, every storage, one thread. "ns per cell" counts the 512 cells of
// every computed (stored) brick, the figure the issue budgets.
#include <benchmark/benchmark.h>

#include <optional>

#include "distgrid/bake.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"

namespace {

using namespace distgrid;

constexpr double kH = 1.0 / 128;

template <class S>
const Grid<S>& sphere_grid() {
  static const Grid<S> grid =
      bake<S>(compile_field<FieldScalarOf<S>>(default_part("sphere").spec), BakeSettings{kH, 3, std::nullopt, 0});
  return grid;
}

template <class S>
void BM_contour(benchmark::State& state, Mesher mesher, bool manifold) {
  const Grid<S>& grid = sphere_grid<S>();
  const ContourOptions options{mesher, manifold};
  std::size_t triangles = 0, bricks_meshed = 0;
  // One result and one scratch reused across iterations, as a caller meshing
  // repeatedly would. One untimed call first: the first call into a fresh result
  // and scratch also faults in their pages (about 10 ms more on the sphere), which
  // such a caller pays once, and short runs of a few timed calls would be dominated
  // by it.
  ContourResult result;
  ContourScratch scratch;
  contour(grid, options, result, scratch);
  for (auto _ : state) {
    contour(grid, options, result, scratch);
    triangles = result.mesh.triangles.size();
    bricks_meshed = result.bricks_meshed;
    benchmark::DoNotOptimize(result.mesh.positions.data());
  }
  const auto cells = static_cast<double>(grid.stored_brick_count()) * kBrickNodes;
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * static_cast<std::int64_t>(cells));
  state.counters["ns_per_cell"] =
      benchmark::Counter(cells, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
  state.counters["triangles"] = static_cast<double>(triangles);
  // Cell bricks the mesher visited (those whose cells change sign), for scale.
  state.counters["bricks_meshed"] = static_cast<double>(bricks_meshed);
}

template <class S>
void BM_surface_nets(benchmark::State& state) {
  BM_contour<S>(state, Mesher::surface_nets, false);
}
template <class S>
void BM_surface_nets_manifold(benchmark::State& state) {
  BM_contour<S>(state, Mesher::surface_nets, true);
}
template <class S>
void BM_marching_cubes(benchmark::State& state) {
  BM_contour<S>(state, Mesher::marching_cubes, false);
}

// ns_per_cell is shown in seconds per cell (e.g. "4.1n" = 4.1 ns).
BENCHMARK_TEMPLATE(BM_surface_nets, float)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_surface_nets, double)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_surface_nets, Half)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_surface_nets, Q16)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_surface_nets, Q8)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_surface_nets_manifold, float)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_marching_cubes, float)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_marching_cubes, double)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_marching_cubes, Half)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_marching_cubes, Q16)->Unit(benchmark::kMillisecond);
BENCHMARK_TEMPLATE(BM_marching_cubes, Q8)->Unit(benchmark::kMillisecond);

}  // namespace
BENCHMARK_MAIN();
