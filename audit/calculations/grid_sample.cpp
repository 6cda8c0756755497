// grid.sample: the trilinear value at a point, in float and double bricks.
//
// Implementation under test: Grid<S>::sample. References, all in high precision
// at the cell found from the point in high precision:
//   arithmetic  trilinear of the node values as stored (reference::StoredNodes);
//   storage     trilinear of the exact node values clamp(f(i*h), +-band*h);
//   method      the true value clamp(f(p), +-band*h) (clamped too: beyond the
//               band a grid can only say "at least band*h").
// Exact values use the part's formula with its data in double (Field<double>).
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "calculations.hpp"
#include "part_inputs.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/reference/trilinear.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr std::string_view kId = "grid.sample";

enum class Stratum { uniform, band, node, brick_face, brick_corner, band_edge, far, beyond_range };

struct StratumSpec {
  Stratum kind;
  const char* name;
  const char* description;
  Placement where;
};

constexpr StratumSpec kStrata[] = {
    {Stratum::uniform, "uniform", "uniform in the part's box widened by (band + 1) h", Placement::origin},
    {Stratum::band, "band", "uniform in the box, kept where |f| < band h (the stored band)", Placement::origin},
    {Stratum::node, "node", "a band point moved to its nearest node i h: u = v = w = 0", Placement::origin},
    {Stratum::brick_face, "brick_face",
     "a band point with one random axis moved to the nearest multiple of 8 h (a brick face)", Placement::origin},
    {Stratum::brick_corner, "brick_corner", "a band point with every axis moved to the nearest multiple of 8 h",
     Placement::origin},
    {Stratum::band_edge, "band_edge", "uniform in the box, kept where | |f| - band h | < h/8 (the clamp's edge)",
     Placement::origin},
    {Stratum::far, "far",
     "a band point of the part translated by about 5e5 h per axis (|x|/h up to ~5.2e5, near the end of "
     "the key range)",
     Placement::far},
    {Stratum::beyond_range, "beyond_range",
     "a band point moved by m * 2^20 h along one axis, |m| in 1..4 or 1..953 (|x|/h up to 1e9): no brick "
     "has a key there, and an unchecked key would alias a stored brick",
     Placement::origin},
};

constexpr int kBandTries = 2000;
constexpr int kBandEdgeTries = 20000;

struct DrawContext {
  const Field<double>& field;
  Box box;
  double h, band_width;
  std::uint64_t seed;
};

/// A box point where accept(f(p)) holds, from up to `tries` draws; when none
/// does, the last draw, and `fallback` is set.
template <class Accept>
Point draw_where(InputRng& rng, const DrawContext& c, int tries, bool& fallback, Accept&& accept) {
  Point p{};
  for (int t = 0; t < tries; ++t) {
    p = draw_point(rng, c.box);
    if (accept(c.field.eval<double>(p[0], p[1], p[2]))) return p;
  }
  fallback = true;
  return p;
}

/// Input generator: the index-th point of a stratum.
Point generate_input(const StratumSpec& stratum, const DrawContext& c, std::uint64_t index, bool& fallback) {
  InputRng rng(c.seed, kId, stratum.name, index);
  const auto in_band = [&](double f) { return std::fabs(f) < c.band_width; };
  switch (stratum.kind) {
    case Stratum::uniform: return draw_point(rng, c.box);
    case Stratum::band:
    case Stratum::far: return draw_where(rng, c, kBandTries, fallback, in_band);
    case Stratum::node: {
      Point p = draw_where(rng, c, kBandTries, fallback, in_band);
      for (double& x : p) x = nearest_multiple(x, c.h);
      return p;
    }
    case Stratum::brick_face: {
      Point p = draw_where(rng, c, kBandTries, fallback, in_band);
      const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
      p[axis] = nearest_multiple(p[axis], 8 * c.h);
      return p;
    }
    case Stratum::brick_corner: {
      Point p = draw_where(rng, c, kBandTries, fallback, in_band);
      for (double& x : p) x = nearest_multiple(x, 8 * c.h);
      return p;
    }
    case Stratum::band_edge:
      return draw_where(rng, c, kBandEdgeTries, fallback,
                        [&](double f) { return std::fabs(std::fabs(f) - c.band_width) < c.h / 8; });
    case Stratum::beyond_range: {
      Point p = draw_where(rng, c, kBandTries, fallback, in_band);
      const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
      // One draw per statement: the order of draws must not depend on the compiler.
      const std::int64_t top = rng.integer(0, 1) == 0 ? 4 : 953;
      const std::int64_t periods = rng.integer(1, top);
      const std::int64_t sign = rng.integer(0, 1) == 0 ? -1 : 1;
      p[axis] += static_cast<double>(sign * periods) * 0x1p20 * c.h;  // 2^20 nodes = 2^17 bricks: one key period
      return p;
    }
  }
  return {};
}

/// The implementation under test.
template <class S>
double implementation(const Grid<S>& grid, const Point& p) {
  return grid.sample(p[0], p[1], p[2]);
}

/// One placement of one part: the exact formula and, per storage, the grid and
/// the reference reader of its stored nodes.
struct Subject {
  const Field<double>* field = nullptr;
  const Grid<float>* grid_float = nullptr;
  const Grid<double>* grid_double = nullptr;
  std::optional<reference::StoredNodes<float>> nodes_float;
  std::optional<reference::StoredNodes<double>> nodes_double;
  Box box;
};

struct Outcome {
  Point p{};
  bool fallback = false;
  ErrorValue method;
  std::array<ErrorValue, 2> error, arithmetic, storage;  // by Storage
};

template <class S>
void measure_storage(const Grid<S>& grid, const reference::StoredNodes<S>& nodes, const reference::Cell& cell,
                     const HighPrecision& from_exact, double band_width, Outcome& out) {
  const double h = grid.h();
  const HighPrecision core(implementation(grid, out.p));
  const reference::Corners stored = reference::corners_of(
      cell, [&](std::int64_t i, std::int64_t j, std::int64_t k) { return HighPrecision(nodes.value(i, j, k)); });
  const HighPrecision from_stored = reference::trilinear(stored, cell.t);
  const auto s = static_cast<std::size_t>(storage_of<S>());
  out.error[s] = distance_error(core, from_exact, h, band_width);
  out.arithmetic[s] = distance_error(core, from_stored, h, band_width);
  out.storage[s] = distance_error(from_stored, from_exact, h, band_width);
}

Outcome measure(const Subject& subject, const Point& p, double h, double band) {
  Outcome out;
  out.p = p;
  const double band_width = band * h;
  const reference::Cell cell = reference::cell_of(p, h);
  const reference::Corners exact = reference::corners_of(cell, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
    return reference::exact_node_value(*subject.field, i, j, k, h, band);
  });
  const HighPrecision from_exact = reference::trilinear(exact, cell.t);
  const HighPrecision truth = reference::exact_point_value(*subject.field, p, h, band);
  out.method = distance_error(from_exact, truth, h, band_width);
  if (subject.nodes_float) measure_storage(*subject.grid_float, *subject.nodes_float, cell, from_exact, band_width, out);
  if (subject.nodes_double)
    measure_storage(*subject.grid_double, *subject.nodes_double, cell, from_exact, band_width, out);
  return out;
}

Subject make_subject(RunContext& context, PartSubject& part, Placement where) {
  const RunSettings& s = context.settings();
  Subject subject;
  subject.field = &part.field<double>(where);
  std::optional<Box> world;
  if (context.wants(Storage::float32)) {
    subject.grid_float = &part.grid<float>(where);
    subject.nodes_float.emplace(*subject.grid_float);
    world = subject.grid_float->world_box();
  }
  if (context.wants(Storage::float64)) {
    subject.grid_double = &part.grid<double>(where);
    subject.nodes_double.emplace(*subject.grid_double);
    world = subject.grid_double->world_box();
  }
  const Box bounds = subject.field->bounds();
  if (bounds.finite() && !bounds.empty()) {
    subject.box = bounds;
    const double pad = (s.band + 1) * s.h;
    for (std::size_t a = 0; a < 3; ++a) {
      subject.box.lo[a] -= pad;
      subject.box.hi[a] += pad;
    }
  } else if (world) {
    subject.box = *world;  // a formula without a finite box: where the bricks are
  } else {
    throw Error(ErrorCode::nobox, "part " + part.part().name + " has no finite box and no stored bricks to sample");
  }
  return subject;
}

/// Largest error in h over some outcomes, for the per-part table.
struct StratumMax {
  double error = 0, arithmetic = 0, storage = 0, method = 0;
};

}  // namespace

std::vector<CalculationResult> run_grid_sample(RunContext& context) {
  const RunSettings& settings = context.settings();
  std::array<CalculationResult, 2> results;
  std::array<nlohmann::json, 2> tables{nlohmann::json::array(), nlohmann::json::array()};
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    r.arithmetic = r.storage_error = r.method = ErrorStats(true, false);
    for (const StratumSpec& stratum : kStrata) r.strata.push_back({stratum.name, stratum.description, 0, 0});
  }
  for (std::size_t part_index = 0; part_index < context.part_count(); ++part_index) {
    PartSubject& part = context.part(part_index);
    std::optional<Subject> subjects[2];
    for (std::size_t si = 0; si < std::size(kStrata); ++si) {
      const StratumSpec& stratum = kStrata[si];
      auto& subject_slot = subjects[static_cast<std::size_t>(stratum.where)];
      if (!subject_slot) subject_slot = make_subject(context, part, stratum.where);
      const Subject& subject = *subject_slot;
      const DrawContext draw{*subject.field, subject.box, settings.h, settings.band * settings.h, settings.seed};

      const std::size_t count = settings.inputs;
      const InputRange range = context.shard_inputs(count);
      std::vector<Outcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + part.part().name + " " + stratum.name, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        bool fallback = false;
        const Point p = generate_input(stratum, draw, range.first + k, fallback);
        outcomes[k] = measure(subject, p, settings.h, settings.band);
        outcomes[k].fallback = fallback;
      });
      context.progress().end();

      for (Storage storage : settings.storages) {
        const auto s = static_cast<std::size_t>(storage);
        CalculationResult& r = results[s];
        StratumMax most;
        r.begin_unit(count);
        for (std::size_t k = 0; k < range.size(); ++k) {
          const std::size_t n = range.first + k;
          const Outcome& o = outcomes[k];
          auto record = [&] {
            InputRecord rec{settings.seed, stratum.name, n, part.part().name, {}};
            rec.values = {{"x", hex_float(o.p[0])}, {"y", hex_float(o.p[1])}, {"z", hex_float(o.p[2])}};
            return rec;
          };
          r.error.add(o.error[s], record);
          r.arithmetic->add(o.arithmetic[s], record);
          r.storage_error->add(o.storage[s], record);
          r.method->add(o.method, record);
          r.strata[si].fallbacks += o.fallback ? 1 : 0;
          most.error = std::fmax(most.error, *o.error[s].h);
          most.arithmetic = std::fmax(most.arithmetic, *o.arithmetic[s].h);
          most.storage = std::fmax(most.storage, *o.storage[s].h);
          most.method = std::fmax(most.method, *o.method.h);
        }
        r.strata[si].count += range.size();
        tables[s].push_back({{"part", part.part().name},
                             {"generator", stratum.name},
                             {"count", range.size()},
                             {"max_h", {{"error", finite_or_null(most.error)},
                                        {"arithmetic", finite_or_null(most.arithmetic)},
                                        {"storage", finite_or_null(most.storage)},
                                        {"method", finite_or_null(most.method)}}}});
      }
    }
  }
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    results[s].storage = storage;
    results[s].details = {{"by_part_and_generator", tables[s]},
                          {"null_means", "a NaN or infinite error (see non_finite in the statistics)"}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay_grid_sample(RunContext& context, const ReplayRequest& request) {
  const RunSettings& settings = context.settings();
  const StratumSpec* stratum = nullptr;
  for (const StratumSpec& s : kStrata)
    if (request.input.generator == s.name) stratum = &s;
  if (!stratum) throw Error(ErrorCode::badarg, "grid.sample has no generator \"" + request.input.generator + "\"");
  PartSubject* part = context.find_part(request.input.part);
  if (!part) throw Error(ErrorCode::badarg, "the run has no part \"" + request.input.part + "\"");
  const Subject subject = make_subject(context, *part, stratum->where);
  const Point p{replay_double(request, "x"), replay_double(request, "y"), replay_double(request, "z")};
  // The record must be the input its (seed, generator, index) draws.
  const DrawContext draw{*subject.field, subject.box, settings.h, settings.band * settings.h, request.input.seed};
  bool fallback = false;
  if (generate_input(*stratum, draw, request.input.index, fallback) != p)
    throw Error(ErrorCode::badarg, "the recorded point is not the one generator " + request.input.generator + " draws at index " +
                                       std::to_string(request.input.index));
  const Outcome o = measure(subject, p, settings.h, settings.band);
  const auto s = static_cast<std::size_t>(request.storage);
  const auto value = [](const char* name, const ErrorValue& e) {
    return ReplayValue{name, hex_float(e.result), hex_float(e.reference)};
  };
  return {value("error", o.error[s]), value("arithmetic", o.arithmetic[s]), value("storage", o.storage[s]),
          value("method", o.method)};
}

}  // namespace distgrid::audit::runs
