// field.eval: the compiled formula itself, for float and double storage (the
// storage only decides the type a density map's values are kept in).
//
// Implementation under test: Field<S>::eval<double> and Field<S>::eval_batch
// (the bake's path). Reference: Field<S>::eval<HighPrecision>, the same formula
// with the same data in MPFR (the formula is its own definition; DESIGN.md
// allows this one call into core). Formulas: the run's default parts (CSG,
// rotation, translation, offset, gyroid with a density map) and two of the
// audit's own that the parts lack: a centred shell of a scaled intersection of a
// union (capsule, rotated cylinder) with a half-space, and a uniform gyroid cut
// by a rotated torus. Errors in h and in ulps of the reference with its magnitude
// raised to band h, as for every distance. `mismatches`: inputs where eval_batch
// does not return eval<double>'s bits.
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "part_inputs.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr std::string_view kId = "field.eval";
using nlohmann::json;

json vec(double x, double y, double z) { return json::array({x, y, z}); }

/// The audit's own formulas, for the nodes no default part uses.
std::vector<std::pair<std::string, json>> own_formulas() {
  const json capsule = {{"type", "capsule"}, {"start", vec(-0.4, -0.1, 0.05)}, {"end", vec(0.35, 0.2, -0.1)},
                        {"radius", 0.22}};
  const json cylinder = {{"type", "rotate"},
                         {"axis", vec(0.3, -1, 0.5)},
                         {"angle", 0.7},
                         {"shape",
                          {{"type", "cylinder"}, {"start", vec(0.1, -0.5, 0)}, {"end", vec(0.1, 0.45, 0.1)},
                           {"radius", 0.17}}}};
  const json cut = {{"type", "halfspace"}, {"normal", vec(0.2, 0.3, 1)}, {"offset", 0.12}};
  const json shell = {
      {"type", "shell"},
      {"thickness", 0.06},
      {"shape",
       {{"type", "scale"},
        {"factor", 1.3},
        {"shape", {{"type", "intersection"}, {"of", json::array({{{"type", "union"}, {"of", json::array({capsule, cylinder})}}, cut})}}}}}};
  const json torus = {{"type", "rotate"},
                      {"axis", vec(1, 1, 0)},
                      {"angle", 0.4},
                      {"shape",
                       {{"type", "torus"}, {"center", vec(0.01, 0.02, -0.03)}, {"major_radius", 0.6},
                        {"minor_radius", 0.3}}}};
  const json gyroid = {{"type", "intersection"},
                       {"of", json::array({torus, {{"type", "gyroid"}, {"cell", 0.35}, {"thickness", 0.05},
                                                   {"origin", vec(0.013, -0.02, 0.007)}}})}};
  return {{"shell_csg", shell}, {"gyroid_uniform", gyroid}};
}

enum class Stratum { uniform, near_surface, node, far };

struct StratumSpec {
  Stratum kind;
  const char* name;
  const char* description;
  Placement where;
};

constexpr StratumSpec kStrata[] = {
    {Stratum::uniform, "uniform", "uniform in the formula's box widened by (band + 1) h", Placement::origin},
    {Stratum::near_surface, "near_surface", "uniform in the box, kept where |f| < h: where the result cancels",
     Placement::origin},
    {Stratum::node, "node", "a point with |f| < band h moved to its nearest node i h: what the bake evaluates",
     Placement::origin},
    {Stratum::far, "far", "a point with |f| < band h of the formula translated by about 5e5 h per axis",
     Placement::far},
};

/// One formula at one placement, compiled for the storages the run wants.
struct Formula {
  std::string name;
  const Field<double>* exact = nullptr;  // drawing
  const Field<float>* as_float = nullptr;
  const Field<double>* as_double = nullptr;
  Box box;
};

/// Owns the audit's own formulas, compiled at both placements.
struct OwnFormulas {
  std::vector<std::string> names;
  std::vector<std::array<std::optional<Field<float>>, 2>> floats;
  std::vector<std::array<std::optional<Field<double>>, 2>> doubles;
};

OwnFormulas compile_own(const RunSettings& s) {
  OwnFormulas out;
  for (const auto& [name, spec] : own_formulas()) {
    out.names.push_back(name);
    out.floats.emplace_back();
    out.doubles.emplace_back();
    for (Placement where : {Placement::origin, Placement::far}) {
      json placed = spec;
      if (where == Placement::far)
        placed = {{"type", "translate"},
                  {"by", vec(kFarOffsetVoxels[0] * s.h, kFarOffsetVoxels[1] * s.h, kFarOffsetVoxels[2] * s.h)},
                  {"shape", spec}};
      const auto w = static_cast<std::size_t>(where);
      out.floats.back()[w].emplace(compile_field<float>(placed));
      out.doubles.back()[w].emplace(compile_field<double>(placed));
    }
  }
  return out;
}

Box widened_bounds(const Field<double>& field, const RunSettings& s, const std::string& name) {
  Box box = field.bounds();
  if (!box.finite() || box.empty())
    throw Error(ErrorCode::nobox, "formula " + name + " has no finite box to draw points in");
  for (std::size_t a = 0; a < 3; ++a) {
    box.lo[a] -= (s.band + 1) * s.h;
    box.hi[a] += (s.band + 1) * s.h;
  }
  return box;
}

/// Every formula of the run at a placement: the default parts, then the audit's own.
std::vector<Formula> formulas_at(RunContext& context, OwnFormulas& own, Placement where) {
  const RunSettings& s = context.settings();
  std::vector<Formula> out;
  for (std::size_t p = 0; p < context.part_count(); ++p) {
    PartSubject& part = context.part(p);
    Formula f{part.part().name, &part.field<double>(where), nullptr, nullptr, {}};
    if (context.wants(Storage::float32)) f.as_float = &part.field<float>(where);
    if (context.wants(Storage::float64)) f.as_double = &part.field<double>(where);
    f.box = widened_bounds(*f.exact, s, f.name);
    out.push_back(f);
  }
  const auto w = static_cast<std::size_t>(where);
  for (std::size_t n = 0; n < own.names.size(); ++n) {
    Formula f{own.names[n], &*own.doubles[n][w], &*own.floats[n][w], &*own.doubles[n][w], {}};
    f.box = widened_bounds(*f.exact, s, f.name);
    out.push_back(f);
  }
  return out;
}

Point generate_input(const StratumSpec& stratum, const Formula& formula, double h, double band_width,
                     std::uint64_t seed, std::uint64_t index, bool& fallback) {
  InputRng rng(seed, kId, stratum.name, index);
  switch (stratum.kind) {
    case Stratum::uniform: return draw_point(rng, formula.box);
    case Stratum::near_surface:
      return draw_where(rng, *formula.exact, formula.box, 4000, fallback, [&](double f) { return std::fabs(f) < h; });
    case Stratum::node: {
      Point p = draw_where(rng, *formula.exact, formula.box, 2000, fallback,
                           [&](double f) { return std::fabs(f) < band_width; });
      for (double& x : p) x = nearest_multiple(x, h);
      return p;
    }
    case Stratum::far:
      return draw_where(rng, *formula.exact, formula.box, 2000, fallback,
                        [&](double f) { return std::fabs(f) < band_width; });
  }
  return {};
}

struct Outcome {
  Point p{};
  bool fallback = false;
  std::array<ErrorValue, 2> error;  // by Storage
};

template <class S>
ErrorValue measure_storage(const Field<S>& field, const Point& p, double h, double band_width) {
  const double core = field.template eval<double>(p[0], p[1], p[2]);
  const HighPrecision exact =
      field.template eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
  return distance_error(HighPrecision(core), exact, h, band_width);
}

Outcome measure(const Formula& f, const Point& p, double h, double band_width) {
  Outcome out;
  out.p = p;
  if (f.as_float) out.error[0] = measure_storage(*f.as_float, p, h, band_width);
  if (f.as_double) out.error[1] = measure_storage(*f.as_double, p, h, band_width);
  return out;
}

/// Inputs (by index) where eval_batch's bits differ from eval<double>'s.
template <class S>
std::vector<std::size_t> batch_differences(const Field<S>& field, const std::vector<Outcome>& outcomes) {
  std::vector<double> x, y, z, batch(outcomes.size());
  for (const Outcome& o : outcomes) {
    x.push_back(o.p[0]);
    y.push_back(o.p[1]);
    z.push_back(o.p[2]);
  }
  FieldScratch scratch;
  field.eval_batch(x, y, z, batch, scratch);
  std::vector<std::size_t> differ;
  for (std::size_t n = 0; n < outcomes.size(); ++n) {
    const double one = field.template eval<double>(x[n], y[n], z[n]);
    if (std::memcmp(&one, &batch[n], sizeof(double)) != 0) differ.push_back(n);
  }
  return differ;
}

InputRecord point_record(std::uint64_t seed, const char* generator, std::uint64_t index, const std::string& formula,
                         const Point& p) {
  return {seed, generator, index, formula, {{"x", hex_float(p[0])}, {"y", hex_float(p[1])}, {"z", hex_float(p[2])}}};
}

}  // namespace

std::vector<CalculationResult> run_field_eval(RunContext& context) {
  const RunSettings& settings = context.settings();
  const double band_width = settings.band * settings.h;
  OwnFormulas own = compile_own(settings);
  std::array<std::vector<Formula>, 2> formulas{formulas_at(context, own, Placement::origin),
                                               formulas_at(context, own, Placement::far)};
  std::array<CalculationResult, 2> results;
  std::array<json, 2> tables{json::array(), json::array()};
  std::array<std::uint64_t, 2> batch_mismatches{0, 0};
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    for (const StratumSpec& stratum : kStrata) r.strata.push_back({stratum.name, stratum.description, 0, 0});
  }
  for (std::size_t fi = 0; fi < formulas[0].size(); ++fi) {
    for (std::size_t si = 0; si < std::size(kStrata); ++si) {
      const StratumSpec& stratum = kStrata[si];
      const Formula& formula = formulas[static_cast<std::size_t>(stratum.where)][fi];
      const std::size_t count = settings.inputs;
      const InputRange range = context.shard_inputs(count);
      std::vector<Outcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + formula.name + " " + stratum.name, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        bool fallback = false;
        const Point p =
            generate_input(stratum, formula, settings.h, band_width, settings.seed, range.first + k, fallback);
        outcomes[k] = measure(formula, p, settings.h, band_width);
        outcomes[k].fallback = fallback;
      });
      context.progress().end();
      for (Storage storage : settings.storages) {
        const auto s = static_cast<std::size_t>(storage);
        CalculationResult& r = results[s];
        const std::vector<std::size_t> differ = s == 0 ? batch_differences(*formula.as_float, outcomes)
                                                       : batch_differences(*formula.as_double, outcomes);
        batch_mismatches[s] += differ.size();
        double most_h = 0, most_ulps = 0;
        r.begin_unit(count);
        for (std::size_t k = 0; k < range.size(); ++k) {
          const std::size_t n = range.first + k;
          const Outcome& o = outcomes[k];
          r.error.add(o.error[s], [&] { return point_record(settings.seed, stratum.name, n, formula.name, o.p); });
          r.strata[si].fallbacks += o.fallback ? 1 : 0;
          most_h = std::fmax(most_h, *o.error[s].h);
          most_ulps = std::fmax(most_ulps, o.error[s].ulps);
        }
        r.strata[si].count += range.size();
        tables[s].push_back({{"formula", formula.name},
                             {"generator", stratum.name},
                             {"count", range.size()},
                             {"max_h", finite_or_null(most_h)},
                             {"max_ulps", finite_or_null(most_ulps)},
                             {"batch_differs", differ.size()}});
      }
    }
  }
  std::vector<CalculationResult> out;
  json own_specs = json::object();
  for (const auto& [name, spec] : own_formulas()) own_specs[name] = spec;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    results[s].storage = storage;
    results[s].mismatches = batch_mismatches[s];
    results[s].details = {{"by_formula_and_generator", tables[s]},
                          {"own_formulas", own_specs},
                          {"mismatches_are", "inputs where eval_batch's bits differ from eval<double>'s"}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay_field_eval(RunContext& context, const ReplayRequest& request) {
  const RunSettings& s = context.settings();
  const InputRecord& in = request.input;
  if (!context.wants(request.storage))
    throw Error(ErrorCode::badarg, "replay: the run does not hold the requested storage");
  OwnFormulas own = compile_own(s);
  for (const StratumSpec& stratum : kStrata) {
    if (in.generator != stratum.name) continue;
    for (const Formula& f : formulas_at(context, own, stratum.where)) {
      if (f.name != in.part) continue;
      bool fallback = false;
      const Point p = generate_input(stratum, f, s.h, s.band * s.h, in.seed, in.index, fallback);
      const Outcome o = measure(f, p, s.h, s.band * s.h);
      const ErrorValue& e = o.error[static_cast<std::size_t>(request.storage)];
      return {{"error", hex_float(e.result), hex_float(e.reference)}};
    }
    throw Error(ErrorCode::badarg, "replay: field.eval has no formula \"" + in.part + "\"");
  }
  throw Error(ErrorCode::badarg, "replay: field.eval has no generator \"" + in.generator + "\"");
}

}  // namespace distgrid::audit::runs
