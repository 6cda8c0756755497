#pragma once
// What the side-by-side benchmarks (peer_openvdb, peer_nanovdb, bench_storage) share:
// timing two sides alternately, the median of the repetitions, and query points
// spread over a grid's stored bricks.
//
// Timings are the process's CPU time when one thread works (robust against other
// processes on a shared machine: time spent waiting for a core is not counted), the
// wall time otherwise. Under `valgrind --tool=callgrind --instr-atstart=no` the
// first repetition of each side is counted and dumped as "<id>/<side>"; natively
// these requests cost nothing.
#if __has_include(<valgrind/callgrind.h>)
#include <valgrind/callgrind.h>
#else
#define CALLGRIND_ZERO_STATS
#define CALLGRIND_START_INSTRUMENTATION
#define CALLGRIND_STOP_INSTRUMENTATION
#define CALLGRIND_DUMP_STATS_AT(label) static_cast<void>(label)
#endif

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <iostream>
#include <random>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/brick_key.hpp"
#include "distgrid/grid.hpp"

namespace distgrid::bench {

using Clock = std::chrono::steady_clock;

inline double seconds_since(Clock::time_point start) {
  return std::chrono::duration<double>(Clock::now() - start).count();
}

inline double process_cpu_seconds() {
  timespec t{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
  return static_cast<double>(t.tv_sec) + 1e-9 * static_cast<double>(t.tv_nsec);
}

/// Median seconds over R repetitions of first() and second(), run alternately, each
/// timed as CPU time (`cpu_time`) or wall time. The first repetition of each side is
/// the one callgrind counts, dumped as id/<first_side> and id/<second_side>.
template <class First, class Second>
std::array<double, 2> median_times(const std::string& id, int repetitions, bool cpu_time, First&& first,
                                   Second&& second, const std::string& first_side = "ours",
                                   const std::string& second_side = "openvdb") {
  std::array<std::vector<double>, 2> times;
  const auto time = [cpu_time](auto&& work, bool counted, const std::string& label) {
    if (counted) {
      CALLGRIND_ZERO_STATS;
      CALLGRIND_START_INSTRUMENTATION;
    }
    const Clock::time_point wall = Clock::now();
    const double cpu = process_cpu_seconds();
    work();
    const double seconds = cpu_time ? process_cpu_seconds() - cpu : seconds_since(wall);
    if (counted) {
      CALLGRIND_STOP_INSTRUMENTATION;
      CALLGRIND_DUMP_STATS_AT(label.c_str());
    }
    return seconds;
  };
  for (int r = 0; r < repetitions; ++r) {
    times[0].push_back(time(first, r == 0, id + "/" + first_side));
    times[1].push_back(time(second, r == 0, id + "/" + second_side));
  }
  std::array<double, 2> median{};
  for (std::size_t side = 0; side < 2; ++side) {
    std::vector<double>& t = times[side];
    std::sort(t.begin(), t.end());
    median[side] = t.size() % 2 == 1 ? t[t.size() / 2] : (t[t.size() / 2 - 1] + t[t.size() / 2]) / 2;
  }
  return median;
}

struct Point {
  double x, y, z;
};

/// `count` points spread evenly over the stored bricks of `grid` (uniform inside
/// each), brick by brick in ascending key order, or shuffled; fixed seed.
template <class S>
std::vector<Point> query_points(const Grid<S>& grid, std::size_t count, bool brick_sorted, std::uint64_t seed) {
  const double h = grid.h();
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> offset(0.0, 8.0);
  std::vector<std::int64_t> keys = grid.stored_keys();
  std::sort(keys.begin(), keys.end());
  std::vector<Point> points;
  points.reserve(count);
  const std::size_t per_brick = count / keys.size() + 1;
  for (std::int64_t key : keys) {
    const BrickCoord b = brick_of(key);
    for (std::size_t n = 0; n < per_brick && points.size() < count; ++n)
      points.push_back({(static_cast<double>(b.bx * 8) + offset(rng)) * h,
                        (static_cast<double>(b.by * 8) + offset(rng)) * h,
                        (static_cast<double>(b.bz * 8) + offset(rng)) * h});
  }
  if (!brick_sorted) std::shuffle(points.begin(), points.end(), rng);
  return points;
}

/// The sum of the samples at the points, through one accessor (in the points' order).
template <class S>
double sample_sum(const Grid<S>& grid, const std::vector<Point>& points) {
  GridAccessor<S> accessor(grid);
  double sum = 0;
  for (const Point& p : points) sum += accessor.sample(p.x, p.y, p.z);
  return sum;
}

/// The options of bench_storage and peer_nanovdb: --repetitions R, --points P,
/// --out FILE.json.
struct RunOptions {
  int repetitions = 5;
  std::size_t points = 2'000'000;
  std::string out;
};

/// Those options from the command line; any other argument prints the usage line
/// (`usage`, after "usage: ") and exits 2.
inline RunOptions parse_run_options(int argc, char** argv, const std::string& usage) {
  RunOptions o;
  for (int a = 1; a < argc; ++a) {
    const std::string arg = argv[a];
    const bool has_value = a + 1 < argc;
    if (arg == "--repetitions" && has_value) {
      o.repetitions = std::max(1, std::stoi(argv[++a]));
    } else if (arg == "--points" && has_value) {
      o.points = std::max<std::size_t>(1000, std::stoull(argv[++a]));
    } else if (arg == "--out" && has_value) {
      o.out = argv[++a];
    } else {
      std::cerr << "usage: " << usage << "\n";
      std::exit(2);
    }
  }
  return o;
}

/// Writes the report to `path` (nothing when it is empty); false, with a message
/// naming `tool`, when it cannot be written.
inline bool write_report(const nlohmann::json& report, const std::string& path, const std::string& tool) {
  if (path.empty()) return true;
  std::ofstream out(path);
  out << report.dump(2) << "\n";
  if (out) return true;
  std::cerr << tool << ": cannot write " << path << "\n";
  return false;
}

}  // namespace distgrid::bench
