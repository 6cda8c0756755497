#pragma once
// Shared by the calculations that draw points around a part: rejection draws
// on the part's value, hex-float records, the error of a distance in h and in
// ulps of band h, and finding a part again when a recorded input is replayed.
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/box.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field.hpp"

namespace distgrid::audit::calcs {

using Point = std::array<double, 3>;

inline Point draw_point(InputRng& rng, const Box& box) {
  Point p;
  for (std::size_t a = 0; a < 3; ++a) p[a] = rng.uniform(box.lo[a], box.hi[a]);
  return p;
}

/// f at a point in double: a compiled formula's value, or a grid part's shape's approximation.
inline double value_in_double(const Field<double>& field, const Point& p) { return field.eval<double>(p[0], p[1], p[2]); }
inline double value_in_double(const reference::ExactShape& shape, const Point& p) {
  return shape.approximate(p[0], p[1], p[2]);
}

/// A box point where accept(f(p)) holds (f in double), from up to `tries`
/// draws; when none does, the last draw, and `fallback` is set.
template <class Function, class Accept>
Point draw_where(InputRng& rng, const Function& f, const Box& box, int tries, bool& fallback, Accept&& accept) {
  Point p{};
  for (int t = 0; t < tries; ++t) {
    p = draw_point(rng, box);
    if (accept(value_in_double(f, p))) return p;
  }
  fallback = true;
  return p;
}

inline double nearest_multiple(double x, double step) { return std::nearbyint(x / step) * step; }

/// p moved along one random axis by m 2^20 h, |m| in 1..4 or 1..953 (|x|/h up to
/// 1e9): beyond every brick key, by whole key periods (2^20 nodes = 2^17 bricks),
/// so a key computed without its range check would alias a stored brick; or, a
/// third of the time, by m 2^52 h, |m| in 1..953 (|x|/h of 4.5e15 to 4.3e18):
/// beyond the node index limit (4e15), where the core looks up no brick at all.
inline Point moved_beyond_key_range(InputRng& rng, Point p, double h) {
  // One draw per statement: the order of draws must not depend on the compiler.
  const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
  const std::int64_t reach = rng.integer(0, 2);
  const std::int64_t periods = rng.integer(1, reach == 0 ? 4 : 953);
  const std::int64_t sign = rng.integer(0, 1) == 0 ? -1 : 1;
  p[axis] += static_cast<double>(sign * periods) * (reach == 2 ? 0x1p52 : 0x1p20) * h;
  return p;
}

/// A point's recorded values: x, y, z in hex-float.
inline std::vector<std::pair<std::string, std::string>> point_values(const Point& p) {
  return {{"x", hex_float(p[0])}, {"y", hex_float(p[1])}, {"z", hex_float(p[2])}};
}

/// |result - reference| of a distance: in h, and in ulps of the reference with
/// its magnitude raised to `floor` (band h for distances, as grid.sample does).
inline ErrorValue distance_error(const HighPrecision& result, const HighPrecision& reference, double h,
                                 double floor) {
  ErrorValue e;
  e.abs = to_double(abs(result - reference));
  e.h = e.abs / h;
  e.result = to_double(result);
  e.reference = to_double(reference);
  e.ulps = error_in_ulps(e.abs, e.reference, floor);
  return e;
}

/// The run's grid part of this name; Error(badarg) when the run has none (replay).
inline PartSubject& part_named(RunContext& context, const std::string& name) {
  for (std::size_t n = 0; n < context.part_count(); ++n)
    if (context.part(n).part().name == name) return context.part(n);
  throw Error(ErrorCode::badarg, "replay: the run has no part named \"" + name + "\"");
}

/// Placement from a recorded name ("origin" or "far"); Error(badarg) otherwise.
inline Placement placement_named(const std::string& name) {
  if (name == "origin") return Placement::origin;
  if (name == "far") return Placement::far;
  throw Error(ErrorCode::badarg, "replay: unknown placement \"" + name + "\"");
}

inline const char* placement_name(Placement where) { return where == Placement::origin ? "origin" : "far"; }

}  // namespace distgrid::audit::calcs
