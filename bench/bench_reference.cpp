// Reference evaluations per second: the audit's high-precision (MPFR, 134-bit)
// references on the default sphere at h = 1/128, band 3, float and double grids:
// the sphere formula at a point, a trilinear sample from the grid's stored values
// (the audit's own node lookup and weighted-sum interpolation), and one brick's
// volume shares. One thread; the audit divides its inputs over threads.
#include <benchmark/benchmark.h>

#include <array>
#include <cstdint>
#include <random>
#include <vector>

#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/reference/trilinear.hpp"
#include "distgrid/audit/reference/volume.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"

namespace {

using namespace distgrid;
namespace ref = distgrid::audit::reference;

constexpr double kH = 1.0 / 128;
constexpr double kBand = 3;
constexpr std::uint64_t kSeed = 20261201;
constexpr std::size_t kPoints = 4096;

template <class S>
const Field<S>& sphere_field() {
  static const Field<S> field = compile_field<S>(default_part("sphere").spec);
  return field;
}

template <class S>
const Grid<S>& sphere_grid() {
  static const Grid<S> grid = bake(sphere_field<S>(), BakeSettings{kH, kBand, std::nullopt, 0});
  return grid;
}

/// Points in the band's shell (radius 1 +- 3h about the sphere's centre region).
std::vector<std::array<double, 3>> shell_points() {
  std::mt19937_64 rng(kSeed);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::uniform_real_distribution<double> radius(1 - kBand * kH, 1 + kBand * kH);
  std::vector<std::array<double, 3>> points;
  for (std::size_t n = 0; n < kPoints; ++n) {
    const double x = normal(rng), y = normal(rng), z = normal(rng);
    const double scale = radius(rng) / std::sqrt(x * x + y * y + z * z);
    points.push_back({x * scale, y * scale, z * scale});
  }
  return points;
}

template <class S>
void BM_ReferenceSphereFormula(benchmark::State& state) {
  const ref::FormulaShape<S> sphere(sphere_field<S>(), true);
  const auto points = shell_points();
  std::size_t n = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ref::exact_point_value(sphere, points[n], kH, kBand));
    n = (n + 1) % points.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

template <class S>
void BM_ReferenceTrilinear(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  const ref::StoredNodes<S> nodes(grid);
  const auto points = shell_points();
  std::size_t n = 0;
  for (auto _ : state) {
    const ref::Cell cell = ref::cell_of(points[n], kH);
    const ref::Corners corners =
        ref::corners_of(cell, [&](std::int64_t i, std::int64_t j, std::int64_t k) { return audit::HighPrecision(nodes.value(i, j, k)); });
    benchmark::DoNotOptimize(ref::trilinear(corners, cell.t));
    n = (n + 1) % points.size();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

template <class S>
void BM_ReferenceBrickVolume(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  std::size_t slot = 0;
  for (auto _ : state) {
    benchmark::DoNotOptimize(ref::stored_brick_shares(grid, slot));
    slot = (slot + 1) % grid.stored_brick_count();
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()) * kBrickNodes);
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations()) * kBrickNodes * static_cast<std::int64_t>(sizeof(S)));
}

BENCHMARK(BM_ReferenceSphereFormula<float>);
BENCHMARK(BM_ReferenceSphereFormula<double>);
BENCHMARK(BM_ReferenceTrilinear<float>);
BENCHMARK(BM_ReferenceTrilinear<double>);
BENCHMARK(BM_ReferenceBrickVolume<float>)->Unit(benchmark::kMicrosecond);
BENCHMARK(BM_ReferenceBrickVolume<double>)->Unit(benchmark::kMicrosecond);

}  // namespace

BENCHMARK_MAIN();
