// grid.gradient: the central difference over one voxel, in float and double bricks.
//
// Implementation under test: Grid<S>::gradient, per axis
// (sample(p + h/2) - sample(p - h/2)) / h. References, all in high precision with
// the sample points p +- h/2 and the division exact (reference::trilinear at the
// cells found in high precision):
//   arithmetic  the difference of trilinear values from the stored node values;
//   storage     the same from exact node values clamp(f(i h), +-band h) (Field<double>);
//   method      the true gradient of clamp(f, +-band h) at p, by a central difference in
//               high precision with the step 2^-32 h (the formulas have no analytic
//               gradient in core; at 134 bits the step costs about 2^-90 and its
//               truncation about 2^-64 relative, both far below any error measured).
// A gradient is a distance per distance: its error is the error of the two
// samples' difference in units of h, which the report gives as `h`; ulps are
// those of the reference component with its magnitude raised to 1 (a distance's
// gradient has length 1). Each input reports the component with the largest error.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/reference/trilinear.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "part_inputs.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr std::string_view kId = "grid.gradient";

/// Each input costs about 26 high-precision formula evaluations (20 exact node
/// values, 6 for the true gradient), so a generator draws inputs / 4 per part.
constexpr std::size_t kInputsDivisor = 4;

std::size_t inputs_per_generator(const RunSettings& s) { return std::max<std::size_t>(1, s.inputs / kInputsDivisor); }

enum class Stratum { band, node, half_voxel, brick_face, band_edge, far };

struct StratumSpec {
  Stratum kind;
  const char* name;
  const char* description;
  Placement where;
};

constexpr StratumSpec kStrata[] = {
    {Stratum::band, "band", "uniform in the box, kept where |f| < band h", Placement::origin},
    {Stratum::node, "node", "a band point moved to its nearest node: both samples sit on cell faces",
     Placement::origin},
    {Stratum::half_voxel, "half_voxel",
     "a band point moved half a voxel off a node on one random axis: on that axis both samples land on nodes",
     Placement::origin},
    {Stratum::brick_face, "brick_face",
     "a band point with one random axis moved to the nearest multiple of 8 h: the samples straddle a brick face",
     Placement::origin},
    {Stratum::band_edge, "band_edge", "uniform in the box, kept where | |f| - band h | < h/8 (the clamp's bend)",
     Placement::origin},
    {Stratum::far, "far", "a band point of the part's copy translated by about 5e5 h per axis", Placement::far},
};

Point generate_input(const StratumSpec& stratum, const Field<double>& field, const Box& box, double h,
                     double band_width, std::uint64_t seed, std::uint64_t index, bool& fallback) {
  InputRng rng(seed, kId, stratum.name, index);
  const auto in_band = [&](double f) { return std::fabs(f) < band_width; };
  if (stratum.kind == Stratum::band_edge)
    return draw_where(rng, field, box, 20000, fallback,
                      [&](double f) { return std::fabs(std::fabs(f) - band_width) < h / 8; });
  Point p = draw_where(rng, field, box, 2000, fallback, in_band);
  switch (stratum.kind) {
    case Stratum::node:
      for (double& x : p) x = nearest_multiple(x, h);
      break;
    case Stratum::half_voxel: {
      const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
      p[axis] = std::floor(p[axis] / h) * h + h / 2;
      break;
    }
    case Stratum::brick_face: {
      const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
      p[axis] = nearest_multiple(p[axis], 8 * h);
      break;
    }
    default: break;
  }
  return p;
}

/// Node values looked up once per input: the six sample cells share most nodes.
template <class Value>
class NodeMemo {
 public:
  explicit NodeMemo(Value value) : value_(std::move(value)) {}
  const HighPrecision& operator()(std::int64_t i, std::int64_t j, std::int64_t k) {
    const std::array<std::int64_t, 3> n{i, j, k};
    for (const auto& [node, v] : seen_)
      if (node == n) return v;
    seen_.emplace_back(n, value_(i, j, k));
    return seen_.back().second;
  }

 private:
  Value value_;
  std::vector<std::pair<std::array<std::int64_t, 3>, HighPrecision>> seen_;
};

/// Central difference over one voxel in high precision from node values.
template <class Values>
std::array<HighPrecision, 3> central_difference(const Point& p, double h, Values& values) {
  const HighPrecision half = HighPrecision(h) / 2;
  std::array<HighPrecision, 3> g;
  for (std::size_t a = 0; a < 3; ++a) {
    std::array<HighPrecision, 3> lo{HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])}, hi = lo;
    lo[a] -= half;
    hi[a] += half;
    const auto at = [&](const std::array<HighPrecision, 3>& q) {
      const reference::Cell cell = reference::cell_of_high_precision(q, h);
      reference::Corners c;
      for (std::int64_t n = 0; n < 8; ++n)
        c[static_cast<std::size_t>(n)] =
            values(cell.node[0] + (n & 1), cell.node[1] + ((n >> 1) & 1), cell.node[2] + ((n >> 2) & 1));
      return reference::trilinear(c, cell.t);
    };
    g[a] = (at(hi) - at(lo)) / HighPrecision(h);
  }
  return g;
}

/// Gradient of clamp(f, +-band h) at p by a high-precision central difference.
/// Zero without it where f's double value at p is beyond the band by more than
/// the difference's reach (L times the step) and its rounding: every sample clamps.
std::array<HighPrecision, 3> true_gradient(const Field<double>& field, const Point& p, double h, double band) {
  const double reach = field.lipschitz() * h * 0x1p-32;
  if (reference::beyond_band(field.eval<double>(p[0], p[1], p[2]), band * h + reach,
                             std::fabs(p[0]) + std::fabs(p[1]) + std::fabs(p[2])))
    return {0, 0, 0};
  const HighPrecision step = HighPrecision(h) * HighPrecision(0x1p-32);
  std::array<HighPrecision, 3> g;
  for (std::size_t a = 0; a < 3; ++a) {
    std::array<HighPrecision, 3> lo{HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])}, hi = lo;
    lo[a] -= step;
    hi[a] += step;
    const HighPrecision f_hi = reference::clamp_to_band(field.eval<HighPrecision>(hi[0], hi[1], hi[2]), h, band);
    const HighPrecision f_lo = reference::clamp_to_band(field.eval<HighPrecision>(lo[0], lo[1], lo[2]), h, band);
    g[a] = (f_hi - f_lo) / (2 * step);
  }
  return g;
}

/// The component with the largest error: |result - reference| in h (see the file comment).
ErrorValue gradient_error(const std::array<HighPrecision, 3>& result, const std::array<HighPrecision, 3>& reference) {
  ErrorValue worst;
  worst.h = 0.0;
  for (std::size_t a = 0; a < 3; ++a) {
    ErrorValue e;
    e.abs = to_double(abs(result[a] - reference[a]));
    e.h = e.abs;
    e.result = to_double(result[a]);
    e.reference = to_double(reference[a]);
    e.ulps = error_in_ulps(e.abs, e.reference, 1.0);
    if (a == 0 || e.abs > worst.abs) worst = e;
  }
  return worst;
}

struct Subject {
  const Field<double>* field = nullptr;
  const Grid<float>* grid_float = nullptr;
  const Grid<double>* grid_double = nullptr;
  std::optional<reference::StoredNodes<float>> nodes_float;
  std::optional<reference::StoredNodes<double>> nodes_double;
  Box box;
};

Subject make_subject(RunContext& context, PartSubject& part, Placement where) {
  const RunSettings& s = context.settings();
  Subject subject;
  subject.field = &part.field<double>(where);
  if (context.wants(Storage::float32)) {
    subject.grid_float = &part.grid<float>(where);
    subject.nodes_float.emplace(*subject.grid_float);
    subject.box = part_draw_box(*subject.field, *subject.grid_float, s.h, s.band, part.part().name);
  }
  if (context.wants(Storage::float64)) {
    subject.grid_double = &part.grid<double>(where);
    subject.nodes_double.emplace(*subject.grid_double);
    subject.box = part_draw_box(*subject.field, *subject.grid_double, s.h, s.band, part.part().name);
  }
  return subject;
}

struct Outcome {
  Point p{};
  bool fallback = false;
  ErrorValue method;
  std::array<ErrorValue, 2> error, arithmetic, storage;  // by Storage
};

template <class S>
void measure_storage(const Grid<S>& grid, const reference::StoredNodes<S>& nodes, const Point& p,
                     const std::array<HighPrecision, 3>& from_exact, Outcome& out) {
  const std::array<double, 3> core = grid.gradient(p[0], p[1], p[2]);
  const std::array<HighPrecision, 3> result{HighPrecision(core[0]), HighPrecision(core[1]), HighPrecision(core[2])};
  NodeMemo stored([&](std::int64_t i, std::int64_t j, std::int64_t k) { return HighPrecision(nodes.value(i, j, k)); });
  const std::array<HighPrecision, 3> from_stored = central_difference(p, grid.h(), stored);
  const auto s = static_cast<std::size_t>(storage_of<S>());
  out.error[s] = gradient_error(result, from_exact);
  out.arithmetic[s] = gradient_error(result, from_stored);
  out.storage[s] = gradient_error(from_stored, from_exact);
}

Outcome measure(const Subject& subject, const Point& p, double h, double band) {
  Outcome out;
  out.p = p;
  NodeMemo exact([&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return reference::exact_node_value(*subject.field, i, j, k, h, band);
  });
  const std::array<HighPrecision, 3> from_exact = central_difference(p, h, exact);
  out.method = gradient_error(from_exact, true_gradient(*subject.field, p, h, band));
  if (subject.nodes_float) measure_storage(*subject.grid_float, *subject.nodes_float, p, from_exact, out);
  if (subject.nodes_double) measure_storage(*subject.grid_double, *subject.nodes_double, p, from_exact, out);
  return out;
}

InputRecord point_record(std::uint64_t seed, const char* generator, std::uint64_t index, const std::string& part,
                         const Point& p) {
  return {seed, generator, index, part, {{"x", hex_float(p[0])}, {"y", hex_float(p[1])}, {"z", hex_float(p[2])}}};
}

}  // namespace

std::vector<CalculationResult> run_grid_gradient(RunContext& context) {
  const RunSettings& settings = context.settings();
  std::array<CalculationResult, 2> results;
  std::array<nlohmann::json, 2> tables{nlohmann::json::array(), nlohmann::json::array()};
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    r.arithmetic = r.storage_error = r.method = ErrorStats(true, false);
    for (const StratumSpec& stratum : kStrata) r.strata.push_back({stratum.name, stratum.description, 0, 0});
  }
  const double band_width = settings.band * settings.h;
  for (std::size_t part_index = 0; part_index < context.part_count(); ++part_index) {
    PartSubject& part = context.part(part_index);
    std::optional<Subject> subjects[2];
    for (std::size_t si = 0; si < std::size(kStrata); ++si) {
      const StratumSpec& stratum = kStrata[si];
      auto& slot = subjects[static_cast<std::size_t>(stratum.where)];
      if (!slot) slot = make_subject(context, part, stratum.where);
      const Subject& subject = *slot;
      const std::size_t count = inputs_per_generator(settings);
      const InputRange range = context.shard_inputs(count);
      std::vector<Outcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + part.part().name + " " + stratum.name, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        bool fallback = false;
        const Point p = generate_input(stratum, *subject.field, subject.box, settings.h, band_width, settings.seed,
                                       range.first + k, fallback);
        outcomes[k] = measure(subject, p, settings.h, settings.band);
        outcomes[k].fallback = fallback;
      });
      context.progress().end();
      for (Storage storage : settings.storages) {
        const auto s = static_cast<std::size_t>(storage);
        CalculationResult& r = results[s];
        double most_error = 0, most_arithmetic = 0, most_storage = 0, most_method = 0;
        r.begin_unit(count);
        for (std::size_t k = 0; k < range.size(); ++k) {
          const std::size_t n = range.first + k;
          const Outcome& o = outcomes[k];
          const auto record = [&] { return point_record(settings.seed, stratum.name, n, part.part().name, o.p); };
          r.error.add(o.error[s], record);
          r.arithmetic->add(o.arithmetic[s], record);
          r.storage_error->add(o.storage[s], record);
          r.method->add(o.method, record);
          r.strata[si].fallbacks += o.fallback ? 1 : 0;
          most_error = std::fmax(most_error, *o.error[s].h);
          most_arithmetic = std::fmax(most_arithmetic, *o.arithmetic[s].h);
          most_storage = std::fmax(most_storage, *o.storage[s].h);
          most_method = std::fmax(most_method, *o.method.h);
        }
        r.strata[si].count += range.size();
        tables[s].push_back({{"part", part.part().name},
                             {"generator", stratum.name},
                             {"count", range.size()},
                             {"max", {{"error", finite_or_null(most_error)},
                                      {"arithmetic", finite_or_null(most_arithmetic)},
                                      {"storage", finite_or_null(most_storage)},
                                      {"method", finite_or_null(most_method)}}}});
      }
    }
  }
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    results[s].storage = storage;
    results[s].details = {{"by_part_and_generator", tables[s]},
                          {"inputs_per_generator_and_part", inputs_per_generator(settings)},
                          {"units", "max: the largest component error of the gradient (distance per distance), "
                                    "equal to the error of the two samples' difference in units of h"}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay_grid_gradient(RunContext& context, const ReplayRequest& request) {
  const RunSettings& s = context.settings();
  const InputRecord& in = request.input;
  for (const StratumSpec& stratum : kStrata) {
    if (in.generator != stratum.name) continue;
    if (!context.wants(request.storage))
      throw Error(ErrorCode::badarg, "replay: the run does not hold the requested storage");
    PartSubject& part = part_named(context, in.part);
    const Subject subject = make_subject(context, part, stratum.where);
    bool fallback = false;
    const Point p =
        generate_input(stratum, *subject.field, subject.box, s.h, s.band * s.h, in.seed, in.index, fallback);
    const Outcome o = measure(subject, p, s.h, s.band);
    const auto st = static_cast<std::size_t>(request.storage);
    const auto pair = [](const char* name, const ErrorValue& e) {
      return ReplayValue{name, hex_float(e.result), hex_float(e.reference)};
    };
    return {pair("error", o.error[st]), pair("arithmetic", o.arithmetic[st]), pair("storage", o.storage[st]),
            pair("method", o.method)};
  }
  throw Error(ErrorCode::badarg, "replay: grid.gradient has no generator \"" + in.generator + "\"");
}

}  // namespace distgrid::audit::runs
