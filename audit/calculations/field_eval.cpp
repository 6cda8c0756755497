#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/field_json.hpp"
#include "part_inputs.hpp"
#include "stratified.hpp"

namespace distgrid::audit::calcs {

namespace {
struct FieldEval;  // the measurement, below
}  // namespace

Calculation field_eval() {
  return {
      .id = "field.eval",
      .title = "The compiled formula",
      .declared = PrecisionClass::bits64,
      .sources = {{"core/include/distgrid/field_nodes.hpp", "Field<S>::eval_node"},
                  {"core/src/field.cpp", "Field<S>::eval_batch"}},
      .formula = "the formula's tree evaluated in double: primitives' exact distances, min / max for CSG, offsets and "
                 "shells, transforms of the point, the gyroid wall",
      .inputs = "per formula (the default parts and two of the audit's own: a shell of scaled CSG, a uniform gyroid "
                "in a rotated torus): uniform in the box, near the surface (|f| < h), on nodes in the band, and the "
                "formula translated ~5e5 h from the origin",
      .implementation = "Field<S>::eval<double> and Field<S>::eval_batch",
      .reference = "Field<S>::eval<HighPrecision>: the same formula and data in MPFR (the formula is its own "
                   "definition)",
      .errors = "error: eval<double> vs high precision, in h and in ulps of the reference with its magnitude raised "
                "to band h; mismatches: inputs where eval_batch's bits differ from eval<double>'s. No stored values "
                "or method: no split.",
      .run = &run_stratified<FieldEval>,
      .replay = &replay_stratified<FieldEval>,
  };
}

namespace {

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

enum class Kind { uniform, near_surface, node, far };

using AnyField = std::variant<const Field<float>*, const Field<double>*>;

/// One formula at one placement: the formula with its data in double (drawing
/// and the reference), the box points are drawn in, and the formula as each run
/// storage compiles it.
struct Formula {
  std::string name;
  const Field<double>* exact = nullptr;
  Box box;
  std::vector<AnyField> storages;
};

/// One of the audit's own formulas, compiled at a placement for each storage type.
struct OwnFormula {
  Field<float> as_float;
  Field<double> as_double;
};

/// Inputs (by index) where eval_batch's bits differ from eval<double>'s.
template <class S>
std::size_t batch_differences(const Field<S>& field, std::span<const Point> points) {
  std::vector<double> x, y, z, batch(points.size());
  for (const Point& p : points) {
    x.push_back(p[0]);
    y.push_back(p[1]);
    z.push_back(p[2]);
  }
  FieldScratch scratch;
  field.eval_batch(x, y, z, batch, scratch);
  std::size_t differ = 0;
  for (std::size_t n = 0; n < points.size(); ++n) {
    const double one = field.template eval<double>(x[n], y[n], z[n]);
    if (std::memcmp(&one, &batch[n], sizeof(double)) != 0) ++differ;
  }
  return differ;
}

struct FieldEval {
  static constexpr std::string_view id = "field.eval";
  static constexpr Generator<Kind> kGenerators[] = {
      {Kind::uniform, "uniform", "uniform in the formula's box widened by (band + 1) h"},
      {Kind::near_surface, "near_surface", "uniform in the box, kept where |f| < h: where the result cancels"},
      {Kind::node, "node", "a point with |f| < band h moved to its nearest node i h: what the bake evaluates"},
      {Kind::far, "far", "a point with |f| < band h of the formula translated by about 5e5 h per axis",
       Placement::far},
  };
  using Subject = Formula;
  using Input = Point;
  using Outcome = Measured;

  const RunSettings& settings;
  double h, band;
  /// The audit's own formulas (the nodes no default part uses), by formula and placement.
  std::vector<std::array<std::unique_ptr<OwnFormula>, 2>> own;

  explicit FieldEval(RunContext& context)
      : settings(context.settings()), h(context.settings().h), band(context.settings().band) {
    for (const auto& [name, spec] : own_formulas()) {
      own.emplace_back();
      for (Placement where : {Placement::origin, Placement::far}) {
        json placed = spec;
        if (where == Placement::far)
          placed = {{"type", "translate"},
                    {"by", vec(kFarOffsetVoxels[0] * h, kFarOffsetVoxels[1] * h, kFarOffsetVoxels[2] * h)},
                    {"shape", spec}};
        own.back()[static_cast<std::size_t>(where)] =
            std::make_unique<OwnFormula>(OwnFormula{compile_field<float>(placed), compile_field<double>(placed)});
      }
    }
  }

  /// The formula's box widened by (band + 1) h; Error(nobox) without a finite box.
  Box widened_bounds(const Field<double>& field, const std::string& name) const {
    Box box = field.bounds();
    if (!box.finite() || box.empty())
      throw Error(ErrorCode::nobox, "formula " + name + " has no finite box to draw points in");
    for (std::size_t a = 0; a < 3; ++a) {
      box.lo[a] -= (band + 1) * h;
      box.hi[a] += (band + 1) * h;
    }
    return box;
  }

  /// Every formula of the run: the default parts, then the audit's own.
  std::vector<PartUnit<Formula>> parts(RunContext& context) const {
    std::vector<PartUnit<Formula>> units;
    for (std::size_t n = 0; n < context.part_count(); ++n) {
      PartSubject* part = &context.part(n);
      units.push_back({part->part().name, [this, part](Placement where) {
                         Formula f{part->part().name, &part->field<double>(where), {}, {}};
                         for (Storage storage : settings.storages)
                           with_storage_scalar(storage, [&]<class S>() { f.storages.push_back(&part->field<S>(where)); });
                         f.box = widened_bounds(*f.exact, f.name);
                         return f;
                       }});
    }
    const auto formulas = own_formulas();
    for (std::size_t n = 0; n < own.size(); ++n)
      units.push_back({formulas[n].first, [this, n, name = formulas[n].first](Placement where) {
                         const OwnFormula& compiled = *own[n][static_cast<std::size_t>(where)];
                         Formula f{name, &compiled.as_double, {}, {}};
                         for (Storage storage : settings.storages)
                           f.storages.push_back(storage == Storage::float32 ? AnyField(&compiled.as_float)
                                                                            : AnyField(&compiled.as_double));
                         f.box = widened_bounds(*f.exact, f.name);
                         return f;
                       }});
    return units;
  }

  std::size_t inputs_per_generator(const RunSettings&) const { return settings.inputs; }
  void start(CalculationResult& r) const {
    r.error = ErrorStats(true, false);
    r.mismatches = 0;
  }

  Point generate(const Formula& formula, const Generator<Kind>& generator, std::uint64_t seed, std::uint64_t index,
                 bool& fallback) const {
    InputRng rng(seed, id, generator.name, index);
    const double band_width = band * h;
    switch (generator.kind) {
      case Kind::uniform: return draw_point(rng, formula.box);
      case Kind::near_surface:
        return draw_where(rng, *formula.exact, formula.box, 4000, fallback, [&](double f) { return std::fabs(f) < h; });
      case Kind::node: {
        Point p = draw_where(rng, *formula.exact, formula.box, 2000, fallback,
                             [&](double f) { return std::fabs(f) < band_width; });
        for (double& x : p) x = nearest_multiple(x, h);
        return p;
      }
      case Kind::far:
        return draw_where(rng, *formula.exact, formula.box, 2000, fallback,
                          [&](double f) { return std::fabs(f) < band_width; });
    }
    return {};
  }

  /// Per storage: Field<S>::eval<double> against the same formula and data in high precision.
  Outcome measure(const Formula& formula, const Point& p) const {
    Outcome out;
    for (const AnyField& field : formula.storages)
      std::visit(
          [&](const auto* f) {
            const double core = f->template eval<double>(p[0], p[1], p[2]);
            const HighPrecision exact =
                f->template eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
            out.by_storage.push_back({distance_error(HighPrecision(core), exact, h, band * h), std::nullopt, std::nullopt,
                                      std::nullopt});
          },
          field);
    return out;
  }

  InputValues record(const Point& p) const { return point_values(p); }

  /// Also counts, as mismatches, the inputs where eval_batch's bits differ from eval<double>'s.
  json row(CalculationResult& r, std::size_t storage, const std::string& formula_name, const Formula& formula,
           std::span<const Sample<FieldEval>> samples, const ErrorMaxima& max) const {
    std::vector<Point> points;
    for (const Sample<FieldEval>& sample : samples) points.push_back(sample.input);
    const std::size_t differ =
        std::visit([&](const auto* f) { return batch_differences(*f, points); }, formula.storages[storage]);
    *r.mismatches += differ;
    return {{"formula", formula_name},
            {"max_h", finite_or_null(max.error)},
            {"max_ulps", finite_or_null(max.error_ulps)},
            {"batch_differs", differ}};
  }

  json details(json table) const {
    json own_specs = json::object();
    for (const auto& [name, spec] : own_formulas()) own_specs[name] = spec;
    return {{"by_formula_and_generator", std::move(table)},
            {"own_formulas", own_specs},
            {"mismatches_are", "inputs where eval_batch's bits differ from eval<double>'s"}};
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
