// field.density_value: the number that follows a density map (a wall
// thickness), in float and double storage.
//
// Implementation under test: the compiled formula's density number
// (detail::density_value through Field<S>::eval<double>), read exactly through
// the probe of density_probe.hpp on the planes x = 0, y = 0 and z = 0. The map:
// 5 x 4 x 3 cells over a box holding the origin, values drawn from the seed
// (some exact in float), v0 = 0.04, v1 = 0.12 (the default gyroid's wall).
// References (reference::density_number, in high precision, the cell width
// unrounded):
//   arithmetic  from the values as stored (rounded to S, as field.density_store checks);
//   storage     from the stored values vs from the given values;
// error: the core's number vs high precision from the given values. No method
// error: the interpolated map is the number's definition. In h (a thickness is a
// length) and in ulps of the reference with its magnitude raised to max(v0, v1).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "density_probe.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "part_inputs.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr std::string_view kId = "field.density_value";

reference::DensityMapSpec the_map() {
  reference::DensityMapSpec map;
  map.cells = {5, 4, 3};
  map.lo = {-0.7, -0.55, -0.35};
  map.hi = {0.9, 0.65, 0.45};
  map.v0 = 0.04;
  map.v1 = 0.12;
  return map;
}

/// The map's values: every fourth one a multiple of 1/16 (exact in float), the
/// others uniform in [0, 1]; drawn from the seed, so a seed fixes the map.
std::vector<double> map_values(std::uint64_t seed) {
  const reference::DensityMapSpec map = the_map();
  std::vector<double> values;
  const std::int64_t count = map.cells[0] * map.cells[1] * map.cells[2];
  for (std::int64_t n = 0; n < count; ++n) {
    InputRng rng(seed, kId, "map", static_cast<std::uint64_t>(n));
    values.push_back(n % 4 == 0 ? static_cast<double>(rng.integer(0, 16)) / 16 : rng.unit());
  }
  return values;
}

enum class Stratum { uniform, centres, cell_faces, outside };

struct StratumSpec {
  Stratum kind;
  const char* name;
  const char* description;
};

constexpr StratumSpec kStrata[] = {
    {Stratum::uniform, "uniform", "uniform over the map's box on the plane x, y or z = 0 (by index)"},
    {Stratum::centres, "centres",
     "a uniform point with each free coordinate moved to its nearest cell centre lo + (c + 1/2) w"},
    {Stratum::cell_faces, "cell_faces",
     "a uniform point with one free coordinate moved to a cell face lo + c w: half way between centres"},
    {Stratum::outside, "outside", "uniform over the box widened by one cell width per side: the held edge values"},
};

struct Probes {
  std::vector<double> given;
  reference::DensityMapSpec map;
  std::array<std::optional<Field<float>>, 3> as_float;
  std::array<std::optional<Field<double>>, 3> as_double;
};

Probes make_probes(const RunContext& context) {
  Probes p;
  p.map = the_map();
  p.given = map_values(context.settings().seed);
  for (std::size_t axis = 0; axis < 3; ++axis) {
    const nlohmann::json spec = density_probe_spec(p.map, p.given, axis);
    if (context.wants(Storage::float32)) p.as_float[axis].emplace(compile_field<float>(spec));
    if (context.wants(Storage::float64)) p.as_double[axis].emplace(compile_field<double>(spec));
  }
  return p;
}

/// A point on the plane p[index % 3] = 0.
Point generate_input(const StratumSpec& stratum, const reference::DensityMapSpec& map, std::uint64_t seed,
                     std::uint64_t index) {
  InputRng rng(seed, kId, stratum.name, index);
  const std::size_t axis = index % 3;
  Point p{};
  std::array<double, 3> width{};
  for (std::size_t a = 0; a < 3; ++a) width[a] = (map.hi[a] - map.lo[a]) / static_cast<double>(map.cells[a]);
  for (std::size_t a = 0; a < 3; ++a) {
    const double grow = stratum.kind == Stratum::outside ? width[a] : 0;
    p[a] = rng.uniform(map.lo[a] - grow, map.hi[a] + grow);
  }
  const std::size_t free_axis = (axis + 1 + static_cast<std::size_t>(rng.integer(0, 1))) % 3;
  for (std::size_t a = 0; a < 3; ++a) {
    if (a == axis) continue;
    if (stratum.kind == Stratum::centres)
      p[a] = map.lo[a] + (std::floor((p[a] - map.lo[a]) / width[a]) + 0.5) * width[a];
    if (stratum.kind == Stratum::cell_faces && a == free_axis)
      p[a] = map.lo[a] + std::nearbyint((p[a] - map.lo[a]) / width[a]) * width[a];
  }
  p[axis] = 0;
  return p;
}

struct Outcome {
  Point p{};
  std::array<ErrorValue, 2> error, arithmetic, storage;  // by Storage
};

template <class S>
void measure_storage(const Field<S>& probe, const Probes& probes, const Point& p, const HighPrecision& from_given,
                     double h, Outcome& out) {
  std::vector<HighPrecision> stored;
  for (double v : probes.given) stored.emplace_back(static_cast<double>(static_cast<S>(v)));
  const std::array<HighPrecision, 3> at{HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])};
  const HighPrecision from_stored = reference::density_number(probes.map, stored, at);
  const HighPrecision core(probe_number(probe, p));
  const double floor = std::max(std::fabs(probes.map.v0), std::fabs(probes.map.v1));
  const auto s = static_cast<std::size_t>(storage_of<S>());
  out.error[s] = distance_error(core, from_given, h, floor);
  out.arithmetic[s] = distance_error(core, from_stored, h, floor);
  out.storage[s] = distance_error(from_stored, from_given, h, floor);
}

Outcome measure(const Probes& probes, std::size_t axis, const Point& p, double h) {
  Outcome out;
  out.p = p;
  std::vector<HighPrecision> given(probes.given.begin(), probes.given.end());
  const HighPrecision from_given =
      reference::density_number(probes.map, given, {HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])});
  if (probes.as_float[axis]) measure_storage(*probes.as_float[axis], probes, p, from_given, h, out);
  if (probes.as_double[axis]) measure_storage(*probes.as_double[axis], probes, p, from_given, h, out);
  return out;
}

}  // namespace

std::vector<CalculationResult> run_field_density_value(RunContext& context) {
  const RunSettings& s = context.settings();
  const Probes probes = make_probes(context);
  std::array<CalculationResult, 2> results;
  std::array<nlohmann::json, 2> tables{nlohmann::json::array(), nlohmann::json::array()};
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    r.arithmetic = r.storage_error = ErrorStats(true, false);
  }
  for (const StratumSpec& stratum : kStrata) {
    const InputRange range = context.shard_inputs(s.inputs);
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      const std::size_t n = range.first + k;
      outcomes[k] = measure(probes, n % 3, generate_input(stratum, probes.map, s.seed, n), s.h);
    });
    context.progress().end();
    for (Storage storage : s.storages) {
      const auto st = static_cast<std::size_t>(storage);
      CalculationResult& r = results[st];
      double most_error = 0, most_arithmetic = 0, most_storage = 0;
      r.begin_unit(s.inputs);
      for (std::size_t k = 0; k < range.size(); ++k) {
        const std::size_t n = range.first + k;
        const Outcome& o = outcomes[k];
        const auto record = [&] {
          return InputRecord{s.seed, stratum.name, n, "", {{"x", hex_float(o.p[0])}, {"y", hex_float(o.p[1])},
                                                           {"z", hex_float(o.p[2])}}};
        };
        r.error.add(o.error[st], record);
        r.arithmetic->add(o.arithmetic[st], record);
        r.storage_error->add(o.storage[st], record);
        most_error = std::fmax(most_error, *o.error[st].h);
        most_arithmetic = std::fmax(most_arithmetic, *o.arithmetic[st].h);
        most_storage = std::fmax(most_storage, *o.storage[st].h);
      }
      r.strata.push_back({stratum.name, stratum.description, range.size(), 0});
      tables[st].push_back({{"generator", stratum.name},
                            {"count", range.size()},
                            {"max_h", {{"error", finite_or_null(most_error)},
                                       {"arithmetic", finite_or_null(most_arithmetic)},
                                       {"storage", finite_or_null(most_storage)}}}});
    }
  }
  std::vector<CalculationResult> out;
  for (Storage storage : s.storages) {
    const auto st = static_cast<std::size_t>(storage);
    results[st].storage = storage;
    const reference::DensityMapSpec map = probes.map;
    results[st].details = {
        {"by_generator", tables[st]},
        {"map", {{"cells", map.cells}, {"box", {map.lo[0], map.lo[1], map.lo[2], map.hi[0], map.hi[1], map.hi[2]}},
                 {"v0", map.v0}, {"v1", map.v1}, {"values", probes.given}}},
        {"method_null_reason", "the interpolated map is the number's definition: nothing is discretised"}};
    out.push_back(std::move(results[st]));
  }
  return out;
}

std::vector<ReplayValue> replay_field_density_value(RunContext& context, const ReplayRequest& request) {
  const RunSettings& s = context.settings();
  const InputRecord& in = request.input;
  if (!context.wants(request.storage))
    throw Error(ErrorCode::badarg, "replay: the run does not hold the requested storage");
  if (in.seed != s.seed)
    throw Error(ErrorCode::badarg, "replay: field.density_value's map is drawn from the run's seed; run with --seed " +
                                       std::to_string(in.seed));
  for (const StratumSpec& stratum : kStrata) {
    if (in.generator != stratum.name) continue;
    const Probes probes = make_probes(context);
    const Outcome o = measure(probes, in.index % 3, generate_input(stratum, probes.map, in.seed, in.index), s.h);
    const auto st = static_cast<std::size_t>(request.storage);
    const auto pair = [](const char* name, const ErrorValue& e) {
      return ReplayValue{name, hex_float(e.result), hex_float(e.reference)};
    };
    return {pair("error", o.error[st]), pair("arithmetic", o.arithmetic[st]), pair("storage", o.storage[st])};
  }
  throw Error(ErrorCode::badarg, "replay: field.density_value has no generator \"" + in.generator + "\"");
}

}  // namespace distgrid::audit::runs
