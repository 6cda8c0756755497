// Grid benchmarks on the default sphere (radius 1, off the lattice) at h = 1/128,
// band 3, for every storage (float, double, half, q16, q8; storage.hpp). The "threads" argument is 1 or every
// hardware thread; queries split their points into one contiguous share per thread.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <random>
#include <string>
#include <thread>
#include <variant>
#include <vector>

#include <unistd.h>

#include "distgrid/bake.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/grid_io.hpp"
#include "side_by_side.hpp"

namespace {

using namespace distgrid;

constexpr double kH = 1.0 / 128;
constexpr std::size_t kQueries = 1 << 20;
constexpr std::uint64_t kSeed = 20261201;

/// The sphere's formula in the scalar storage S bakes from.
template <class S>
const Field<FieldScalarOf<S>>& sphere_field() {
  static const Field<FieldScalarOf<S>> field = compile_field<FieldScalarOf<S>>(default_part("sphere").spec);
  return field;
}

template <class S>
const Grid<S>& sphere_grid() {
  static const Grid<S> grid = bake<S>(sphere_field<S>(), BakeSettings{kH, 3, std::nullopt, 0});
  return grid;
}

using bench::Point;

// Points inside stored bricks, in random order or sorted brick by brick.
template <class S>
std::vector<Point> query_points(bool brick_sorted) {
  return bench::query_points(sphere_grid<S>(), kQueries, brick_sorted, kSeed);
}

template <class S>
void BM_Bake(benchmark::State& state) {
  const Field<FieldScalarOf<S>>& field = sphere_field<S>();
  const auto threads = static_cast<unsigned>(state.range(0));
  std::size_t nodes = 0, bytes = 0;
  for (auto _ : state) {
    Grid<S> grid = bake<S>(field, BakeSettings{kH, 3, std::nullopt, threads});
    nodes = grid.stored_brick_count() * kBrickNodes;
    bytes = grid.memory_bytes();
    benchmark::DoNotOptimize(grid);
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * nodes));
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * bytes));
  state.counters["bricks"] = static_cast<double>(nodes / kBrickNodes);
  state.counters["bytes_per_brick"] = static_cast<double>(bytes) / static_cast<double>(nodes / kBrickNodes);
}

/// Runs body(share, begin, end) over [0, count) split into `threads` contiguous
/// shares, one std::thread each (the calling thread takes share 0).
template <class Body>
void split_over_threads(std::size_t count, unsigned threads, Body&& body) {
  std::vector<std::thread> workers;
  const std::size_t per_thread = (count + threads - 1) / threads;
  for (unsigned t = 1; t < threads; ++t)
    workers.emplace_back([&, t] { body(t, std::min(count, t * per_thread), std::min(count, (t + 1) * per_thread)); });
  body(0u, std::size_t{0}, std::min(count, per_thread));
  for (std::thread& w : workers) w.join();
}

// Arguments: brick_sorted (0 or 1), threads.
template <class S>
void BM_Sample(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  const std::vector<Point> points = query_points<S>(state.range(0) != 0);
  const auto threads = static_cast<unsigned>(state.range(1));
  std::vector<double> sums(threads);
  for (auto _ : state) {
    split_over_threads(points.size(), threads, [&](unsigned share, std::size_t begin, std::size_t end) {
      GridAccessor<S> accessor(grid);
      double sum = 0;
      for (std::size_t n = begin; n < end; ++n) sum += accessor.sample(points[n].x, points[n].y, points[n].z);
      sums[share] = sum;
    });
    benchmark::DoNotOptimize(sums.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * points.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * points.size() * sizeof(Point)));
}

// The same queries through Grid::sample_many on one thread (bucketed by brick).
template <class S>
void BM_SampleMany(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  const std::vector<Point> points = query_points<S>(state.range(0) != 0);
  std::vector<std::array<double, 3>> xyz;
  xyz.reserve(points.size());
  for (const Point& p : points) xyz.push_back({p.x, p.y, p.z});
  std::vector<double> out(points.size());
  for (auto _ : state) {
    grid.sample_many(xyz, out, 1);
    benchmark::DoNotOptimize(out.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * points.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * points.size() * sizeof(Point)));
}

// Arguments: brick_sorted (0 or 1), threads.
template <class S>
void BM_Gradient(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  const std::vector<Point> points = query_points<S>(state.range(0) != 0);
  const auto threads = static_cast<unsigned>(state.range(1));
  std::vector<double> sums(threads);
  for (auto _ : state) {
    split_over_threads(points.size(), threads, [&](unsigned share, std::size_t begin, std::size_t end) {
      GridAccessor<S> accessor(grid);
      double sum = 0;
      for (std::size_t n = begin; n < end; ++n) sum += accessor.gradient(points[n].x, points[n].y, points[n].z)[0];
      sums[share] = sum;
    });
    benchmark::DoNotOptimize(sums.data());
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * points.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * points.size() * sizeof(Point)));
}

template <class S>
void BM_Volume(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  for (auto _ : state) benchmark::DoNotOptimize(grid.volume());
  const std::size_t nodes = grid.stored_brick_count() * kBrickNodes;
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * nodes));
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * grid.brick_bytes()));
}

// Memory of the sphere's grid: per grid and per stored brick, and the bricks' codes
// and parameters alone (the time is that of reading the sizes).
template <class S>
void BM_Memory(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  for (auto _ : state) benchmark::DoNotOptimize(grid.memory_bytes());
  const auto bricks = static_cast<double>(grid.stored_brick_count());
  state.counters["bytes_per_grid"] = static_cast<double>(grid.memory_bytes());
  state.counters["bytes_per_brick"] = static_cast<double>(grid.memory_bytes()) / bricks;
  state.counters["brick_bytes_per_brick"] = static_cast<double>(grid.brick_bytes()) / bricks;
  state.counters["bound_h"] = grid.storage_bound() / kH;
}

// Save and load through a .dgrid file in the temporary directory (page cache, so
// this measures encoding, checksum and copying rather than the disk).
std::string grid_file_path(const char* storage) {
  return (std::filesystem::temp_directory_path() /
          ("distgrid_bench_" + std::to_string(::getpid()) + "_" + storage + ".dgrid")).string();
}

template <class S>
void BM_Save(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  const std::string path = grid_file_path(std::string(storage_name<S>()).c_str());
  for (auto _ : state) save_grid(grid, path);
  const auto bytes = std::filesystem::file_size(path);
  std::filesystem::remove(path);
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * grid.stored_brick_count() * kBrickNodes));
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::uintmax_t>(state.iterations()) * bytes));
}

template <class S>
void BM_Load(benchmark::State& state) {
  const Grid<S>& grid = sphere_grid<S>();
  const std::string path = grid_file_path(std::string(storage_name<S>()).c_str());
  save_grid(grid, path);
  const auto bytes = std::filesystem::file_size(path);
  for (auto _ : state) {
    AnyGrid loaded = load_grid(path);
    benchmark::DoNotOptimize(std::get<Grid<S>>(loaded).stored_brick_count());
  }
  std::filesystem::remove(path);
  state.SetItemsProcessed(static_cast<std::int64_t>(static_cast<std::size_t>(state.iterations()) * grid.stored_brick_count() * kBrickNodes));
  state.SetBytesProcessed(static_cast<std::int64_t>(static_cast<std::uintmax_t>(state.iterations()) * bytes));
}

const int kAllThreads = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));

BENCHMARK(BM_Bake<float>)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Bake<double>)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Bake<Half>)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Bake<Q16>)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Bake<Q8>)->ArgName("threads")->Arg(1)->Arg(kAllThreads)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Memory<float>)->Iterations(1);
BENCHMARK(BM_Memory<double>)->Iterations(1);
BENCHMARK(BM_Memory<Half>)->Iterations(1);
BENCHMARK(BM_Memory<Q16>)->Iterations(1);
BENCHMARK(BM_Memory<Q8>)->Iterations(1);
BENCHMARK(BM_Sample<float>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sample<double>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sample<Half>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sample<Q16>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Sample<Q8>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_SampleMany<float>)->ArgName("brick_sorted")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SampleMany<double>)->ArgName("brick_sorted")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SampleMany<Half>)->ArgName("brick_sorted")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SampleMany<Q16>)->ArgName("brick_sorted")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SampleMany<Q8>)->ArgName("brick_sorted")->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Gradient<float>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gradient<double>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gradient<Half>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gradient<Q16>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Gradient<Q8>)->ArgNames({"brick_sorted", "threads"})->ArgsProduct({{0, 1}, {1, kAllThreads}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Volume<float>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Volume<double>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Volume<Half>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Volume<Q16>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Volume<Q8>)->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Save<float>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Save<double>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Save<Half>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Save<Q16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Save<Q8>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Load<float>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Load<double>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Load<Half>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Load<Q16>)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(BM_Load<Q8>)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
