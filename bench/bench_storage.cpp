// Storages side by side: each storage against float on the same work in one run,
// the two alternating, as the ratio storage / float of the medians.
//
//   bench_storage [--repetitions R] [--points P] [--out FILE.json]
//
// Work: the default sphere (radius 1, centre off the lattice) at h = 1/128, band 3,
// one thread (process CPU time, see side_by_side.hpp). Per storage: bytes per grid
// and per stored brick (targets: q8 at most 0.3 of float's grid, q16 at most 0.55),
// the bake, trilinear samples in random and brick-sorted order, the gradient
// (brick-sorted), the enclosed volume (targets for q16 and q8: at most 1.3 times
// float's time for sampling and volume) and the surface-nets contour.
#include <algorithm>
#include <array>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/bake.hpp"
#include "distgrid/build_info.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "side_by_side.hpp"

namespace {

using namespace distgrid;
using bench::Point;

constexpr double kH = 1.0 / 128;
constexpr double kBand = 3;
constexpr std::uint64_t kSeed = 20261201;

using Options = bench::RunOptions;

volatile double sink = 0;

template <class S>
Grid<S> sphere(unsigned threads) {
  static const Field<FieldScalarOf<S>> field = compile_field<FieldScalarOf<S>>(default_part("sphere").spec);
  return bake<S>(field, BakeSettings{kH, kBand, std::nullopt, threads});
}

template <class S>
double gradient_sum(const Grid<S>& grid, const std::vector<Point>& points) {
  GridAccessor<S> accessor(grid);
  double sum = 0;
  for (const Point& p : points) {
    const std::array<double, 3> g = accessor.gradient(p.x, p.y, p.z);
    sum += g[0] + g[1] + g[2];
  }
  return sum;
}

struct Row {
  Row(std::string row_storage, std::string row_id, std::string row_operation)
      : storage(std::move(row_storage)), id(std::move(row_id)), operation(std::move(row_operation)) {}
  std::string storage, id, operation;
  double value = 0, float_value = 0;  // seconds, or bytes for the memory rows
  std::optional<double> target;
  nlohmann::json extra = nlohmann::json::object();
  double ratio() const { return value / float_value; }
};

void print(const Row& r, const char* unit) {
  std::printf("%-6s %-34s %12.4g %s  float %12.4g %s  ratio %6.3f", r.storage.c_str(), r.operation.c_str(),
              r.value, unit, r.float_value, unit, r.ratio());
  if (r.target) std::printf("  target <= %.2f %s", *r.target, r.ratio() <= *r.target ? "met" : "MISSED");
  std::printf("\n");
  std::fflush(stdout);
}

/// The rows of storage S against float: memory, bake, sampling, gradient, volume, contour.
template <class S>
void compare(const Options& o, const Grid<float>& f, std::vector<Row>& rows) {
  const std::string name(storage_name<S>());
  const bool linear = !Grid<S>::kDirect;
  const Grid<S> grid = sphere<S>(1);
  const double float_bytes = static_cast<double>(f.memory_bytes());
  {
    Row r{name, "memory_grid", "memory per grid (bytes)"};
    r.value = static_cast<double>(grid.memory_bytes());
    r.float_value = float_bytes;
    if (std::is_same_v<S, Q8>) r.target = 0.3;
    if (std::is_same_v<S, Q16>) r.target = 0.55;
    r.extra = {{"stored_bricks", grid.stored_brick_count()},
               {"bytes_per_stored_brick", r.value / static_cast<double>(grid.stored_brick_count())},
               {"float_bytes_per_stored_brick", float_bytes / static_cast<double>(f.stored_brick_count())},
               {"brick_bytes_per_stored_brick",
                static_cast<double>(grid.brick_bytes()) / static_cast<double>(grid.stored_brick_count())},
               {"storage_bound_h", grid.storage_bound() / kH}};
    print(r, "B ");
    rows.push_back(r);
  }
  const auto timed = [&](const char* id, const std::string& operation, std::optional<double> target, auto&& ours,
                         auto&& theirs) {
    Row r{name, id, operation};
    const auto t = bench::median_times(name + "/" + id, o.repetitions, true, ours, theirs, name, "float");
    r.value = t[0];
    r.float_value = t[1];
    r.target = target;
    print(r, "s ");
    rows.push_back(r);
  };
  timed("bake", "bake", std::nullopt, [&] { sink = static_cast<double>(sphere<S>(1).stored_brick_count()); },
        [&] { sink = static_cast<double>(sphere<float>(1).stored_brick_count()); });
  const std::optional<double> read_target = linear ? std::optional<double>(1.3) : std::nullopt;
  for (const bool sorted : {false, true}) {
    const std::vector<Point> points = bench::query_points(f, o.points, sorted, kSeed);
    timed(sorted ? "sample_sorted" : "sample_random",
          std::string("trilinear sample, ") + (sorted ? "brick-sorted" : "random order"), read_target,
          [&] { sink = bench::sample_sum(grid, points); }, [&] { sink = bench::sample_sum(f, points); });
  }
  const std::vector<Point> gradient_points = bench::query_points(f, o.points / 5, true, kSeed);
  timed("gradient", "six-sample gradient, brick-sorted", std::nullopt, [&] { sink = gradient_sum(grid, gradient_points); },
        [&] { sink = gradient_sum(f, gradient_points); });
  timed("volume", "enclosed volume", read_target, [&] { sink = grid.volume(); }, [&] { sink = f.volume(); });
  ContourResult ours_mesh, float_mesh;
  ContourScratch ours_scratch, float_scratch;
  const ContourOptions options{Mesher::surface_nets, false, 1};
  contour(grid, options, ours_mesh, ours_scratch);  // first calls fault in the arrays' pages
  contour(f, options, float_mesh, float_scratch);
  timed("contour", "contour, surface-nets", std::nullopt, [&] { contour(grid, options, ours_mesh, ours_scratch); },
        [&] { contour(f, options, float_mesh, float_scratch); });
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = bench::parse_run_options(argc, argv, "bench_storage [--repetitions R] [--points P] [--out FILE.json]");
  std::printf("bench_storage: sphere r = 1, h = 1/128, band 3, one thread, median of %d, %zu points, code path %s\n",
              options.repetitions, options.points, build_instruction_set().c_str());
  const Grid<float> f = sphere<float>(1);
  std::vector<Row> rows;
  compare<double>(options, f, rows);
  compare<Half>(options, f, rows);
  compare<Q16>(options, f, rows);
  compare<Q8>(options, f, rows);
  nlohmann::json report{{"benchmark", "bench_storage"},     {"h", kH},
                        {"band", kBand},                    {"threads", 1},
                        {"repetitions", options.repetitions}, {"points", options.points},
                        {"instruction_set", build_instruction_set()},
                        {"timing", "process CPU time, median of the repetitions, each storage and float alternating"},
                        {"rows", nlohmann::json::array()}};
  for (const Row& r : rows) {
    nlohmann::json j{{"storage", r.storage}, {"id", r.id},         {"operation", r.operation},
                     {"value", r.value},     {"float_value", r.float_value}, {"ratio", r.ratio()}};
    j["target"] = r.target ? nlohmann::json(*r.target) : nlohmann::json(nullptr);
    j["met"] = r.target ? nlohmann::json(r.ratio() <= *r.target) : nlohmann::json(nullptr);
    j.update(r.extra);
    report["rows"].push_back(j);
  }
  return bench::write_report(report, options.out, "bench_storage") ? 0 : 1;
}
