#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "calculations.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/field_geometry.hpp"
#include "distgrid/audit/reference/side.hpp"
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
      .sources = {{"core/include/distgrid/field_kernels.hpp", "Field<S>::eval_node"},
                  {"core/src/field.cpp", "Field<S>::eval_batch"},
                  {"core/src/field.cpp", "Field<S>::batch_node"},
                  {"core/src/field.cpp", "Field<S>::batch_number"},
                  {"core/src/field_json.cpp", "shape"},
                  {"core/src/field_json.cpp", "rotation"},
                  {"core/src/field_json.cpp", "gyroid"}},
      .formula = "the formula's tree evaluated in double: primitives' exact distances, min / max for CSG, offsets and "
                 "shells, transforms of the point, the gyroid wall",
      .inputs = "per formula (the default parts, and probe formulas with each node type at the root, once per option, "
                "at a tenth of the inputs): uniform in the box, near the surface (|f| < h), on nodes in the band, the "
                "formula translated ~5e5 h from the origin, and special points of the geometry (centres, axes, cap "
                "rims, box edges and corners, the torus's centre and circles, gyroid points with G = 0) and points "
                "2^-k h from them",
      .implementation = "Field<S>::eval<double> and Field<S>::eval_batch",
      .reference = "the geometric reference (reference/field_geometry.hpp), read from the spec and written from each "
                   "node's definition in docs/field-spec.md in MPFR: nearest points of the shapes, inverse transforms "
                   "of the point, the documented formulas of CSG, offsets, shells, gyroids and number fields; a "
                   "membership test per node that does not go through the distance; the documented Lipschitz bound",
      .errors = "error: eval<double> vs the geometric reference, in h and in ulps of the reference with its magnitude "
                "raised to band h; arithmetic: vs Field<S>::eval<HighPrecision>, the same kernel in MPFR, at every "
                "fourth input (its rounding alone; a wrong formula leaves it unchanged). Decision sign: "
                "eval<double>'s sign vs the membership test, margin |f| in ulps of band h (inputs within 128 ulps in "
                "the details). Per node type in details.by_node; details.lipschitz: core's bound vs the documented "
                "one and the reference's steepest slope over it. mismatches: inputs where eval_batch's bits differ "
                "from eval<double>'s. No stored values or method.",
      .run = &run_stratified<FieldEval>,
      .replay = &replay_stratified<FieldEval>,
      .parts_taken = PartsTaken::formula,
  };
}

namespace {

using nlohmann::json;
using reference::FieldGeometry;

json vec(double x, double y, double z) { return json::array({x, y, z}); }

/// A probe: one node type at the root; `draw` bounds the points of a formula with no finite box.
struct Probe {
  std::string name, node;
  json spec;
  std::optional<Box> draw;
};

/// One probe per node type and option, over simple shapes that overlap.
std::vector<Probe> probe_formulas() {
  const json sphere = {{"type", "sphere"}, {"center", vec(0.021, -0.013, 0.008)}, {"radius", 0.45}};
  const json box = {{"type", "box"}, {"center", vec(0.011, 0.017, -0.009)}, {"size", vec(0.7, 0.5, 0.36)}};
  const json box_round = {{"type", "box"},
                          {"center", vec(-0.013, 0.007, 0.019)},
                          {"size", vec(0.6, 0.44, 0.5)},
                          {"round", 0.09}};
  const json cylinder = {{"type", "cylinder"}, {"start", vec(-0.31, -0.2, 0.12)}, {"end", vec(0.27, 0.22, -0.18)},
                         {"radius", 0.19}};
  const json torus = {{"type", "torus"}, {"center", vec(0.01, -0.02, 0.015)}, {"major_radius", 0.38},
                      {"minor_radius", 0.12}, {"axis", vec(0.3, -0.5, 0.8)}};
  const json capsule = {{"type", "capsule"}, {"start", vec(-0.4, -0.1, 0.05)}, {"end", vec(0.35, 0.2, -0.1)},
                        {"radius", 0.22}};
  const json map_signed = {{"type", "density"}, {"cells", {3, 2, 2}}, {"box", {-0.5, -0.4, -0.3, 0.5, 0.4, 0.3}},
                           {"data", {0, 0.25, 0.5, 0.75, 1, 0.5, 0.125, 0.375, 0.625, 0.875, 0.0625, 1}},
                           {"v0", -0.04}, {"v1", 0.09}};
  const json map_thickness = {{"type", "density"}, {"cells", {2, 1, 2}}, {"box", {-0.5, -0.5, -0.5, 0.5, 0.5, 0.5}},
                              {"data", {0, 0.5, 0.75, 1}}, {"v0", 0.03}, {"v1", 0.1}};
  const json map_cell = {{"type", "density"}, {"cells", {2, 2, 2}}, {"box", {-0.4, -0.35, -0.3, 0.4, 0.35, 0.3}},
                         {"data", {0, 0.25, 0.5, 1, 0.75, 0.5, 0.25, 0.125}}, {"v0", 0.3}, {"v1", 0.42}};
  const Box unbounded{{-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5}};
  return {
      {"probe:sphere", "sphere", sphere, std::nullopt},
      {"probe:box", "box", box, std::nullopt},
      {"probe:box_round", "box", box_round, std::nullopt},
      {"probe:cylinder", "cylinder", cylinder, std::nullopt},
      {"probe:torus", "torus", torus, std::nullopt},
      {"probe:torus_default_axis", "torus",
       {{"type", "torus"}, {"center", vec(-0.012, 0.009, 0.02)}, {"major_radius", 0.35}, {"minor_radius", 0.15}},
       std::nullopt},
      {"probe:capsule", "capsule", capsule, std::nullopt},
      {"probe:capsule_point", "capsule",
       {{"type", "capsule"}, {"start", vec(0.03, -0.02, 0.01)}, {"end", vec(0.03, -0.02, 0.01)}, {"radius", 0.3}},
       std::nullopt},
      {"probe:halfspace", "halfspace", {{"type", "halfspace"}, {"normal", vec(0.2, 0.3, 1)}, {"offset", 0.12}},
       unbounded},
      {"probe:halfspace_default_offset", "halfspace", {{"type", "halfspace"}, {"normal", vec(-1, 0.4, 0.25)}},
       unbounded},
      {"probe:union", "union", {{"type", "union"}, {"of", {sphere, box, capsule}}}, std::nullopt},
      {"probe:intersection", "intersection", {{"type", "intersection"}, {"of", {box_round, sphere, cylinder}}},
       std::nullopt},
      {"probe:difference", "difference", {{"type", "difference"}, {"from", box}, {"subtract", {cylinder, sphere}}},
       std::nullopt},
      {"probe:offset", "offset", {{"type", "offset"}, {"distance", 0.07}, {"shape", box}}, std::nullopt},
      {"probe:offset_density", "offset", {{"type", "offset"}, {"distance", map_signed}, {"shape", torus}},
       std::nullopt},
      {"probe:shell", "shell",
       {{"type", "shell"}, {"side", "center"}, {"thickness", {{"type", "constant"}, {"value", 0.06}}}, {"shape", capsule}},
       std::nullopt},
      {"probe:shell_inside", "shell",
       {{"type", "shell"}, {"side", "inside"}, {"thickness", map_thickness}, {"shape", sphere}}, std::nullopt},
      {"probe:shell_outside", "shell",
       {{"type", "shell"}, {"side", "outside"}, {"thickness", 0.05}, {"shape", box_round}}, std::nullopt},
      {"probe:translate", "translate", {{"type", "translate"}, {"by", vec(0.13, -0.07, 0.05)}, {"shape", cylinder}},
       std::nullopt},
      {"probe:rotate", "rotate", {{"type", "rotate"}, {"axis", vec(0.3, -1, 0.5)}, {"angle", 0.7}, {"shape", box}},
       std::nullopt},
      {"probe:rotate_quaternion", "rotate",
       {{"type", "rotate"}, {"quaternion", {0.8, -0.3, 0.4, 0.2}}, {"shape", cylinder}}, std::nullopt},
      {"probe:scale", "scale", {{"type", "scale"}, {"factor", 1.3}, {"shape", torus}}, std::nullopt},
      {"probe:gyroid", "gyroid",
       {{"type", "gyroid"}, {"cell", 0.35}, {"thickness", 0.05}, {"origin", vec(0.013, -0.02, 0.007)}}, unbounded},
      {"probe:gyroid_mapped_cell", "gyroid", {{"type", "gyroid"}, {"cell", map_cell}, {"thickness", map_thickness}},
       unbounded},
  };
}

/// The node types of docs/field-spec.md, in its order: the keys of details.by_node.
constexpr const char* kNodeTypes[] = {"sphere", "box",        "cylinder",  "torus",     "capsule",
                                      "halfspace", "union",   "intersection", "difference", "offset",
                                      "shell",  "translate",  "rotate",    "scale",     "gyroid"};

enum class Kind { uniform, near_surface, node, far, special };

/// Probe formulas draw a tenth of the parts' inputs per generator.
constexpr std::size_t kProbeInputsDivisor = 10;
/// The arithmetic error and the slope are measured at every fourth input (index
/// divisible by it): each costs another evaluation in MPFR.
constexpr std::uint64_t kSampledEvery = 4;

/// A sign is a decision the 64-bit formula can be held to only where the
/// reference's |f| exceeds its rounding: the error budget, 128 ulps of band h
/// (measured up to ~46). Closer inputs (special points on the surface, mostly)
/// are counted in details.sign_within_rounding instead.
constexpr double kSignRoundingUlps = 128;

using AnyField = std::variant<const Field<float>*, const Field<double>*>;

/// A formula as one run storage compiles it, with the reference that keeps
/// density values as that storage does (as given, or as float).
struct Compiled {
  AnyField field;
  const FieldGeometry* reference = nullptr;
};

/// One formula at one placement: the formula with its data in double (drawing),
/// the box points are drawn in, its special points, and the formula and its
/// reference for each run storage.
struct Formula {
  std::string name;
  std::string node;  ///< the probed node type; empty for a part
  Placement where = Placement::origin;
  const Field<double>* exact = nullptr;
  Box box;
  std::vector<Point> special;
  bool storage_matters = false;  ///< a density map: the storages' fields differ
  std::vector<Compiled> storages;  ///< in the order of the run's storages
};

json placed_spec(const json& spec, const RunSettings& s, Placement where) {
  if (where == Placement::origin) return spec;
  return {{"type", "translate"},
          {"by", vec(kFarOffsetVoxels[0] * s.h, kFarOffsetVoxels[1] * s.h, kFarOffsetVoxels[2] * s.h)},
          {"shape", spec}};
}

bool has_density_map(const json& spec) {
  if (spec.is_object()) {
    if (spec.value("type", "") == "density") return true;
    for (const auto& [key, value] : spec.items())
      if (has_density_map(value)) return true;
  } else if (spec.is_array()) {
    for (const json& item : spec)
      if (has_density_map(item)) return true;
  }
  return false;
}

Box draw_box(const Field<double>& field, const std::optional<Box>& given, const RunSettings& s, Placement where,
             const std::string& name) {
  Box box = field.bounds();
  if (given) {
    box = *given;
    if (where == Placement::far)
      for (std::size_t a = 0; a < 3; ++a) {
        box.lo[a] += kFarOffsetVoxels[a] * s.h;
        box.hi[a] += kFarOffsetVoxels[a] * s.h;
      }
  }
  if (!box.finite() || box.empty())
    throw Error(ErrorCode::nobox, "formula " + name + " has no finite box to draw points in");
  for (std::size_t a = 0; a < 3; ++a) {
    box.lo[a] -= (s.band + 1) * s.h;
    box.hi[a] += (s.band + 1) * s.h;
  }
  return box;
}

/// The references of one formula at one placement: density values as given, and as float keeps them.
struct References {
  FieldGeometry given, as_float;
};

/// A probe compiled at one placement for both storage types.
struct ProbeFields {
  Field<float> as_float;
  Field<double> as_double;
};

/// The point drawn, and whether it is one of the inputs the arithmetic error and
/// the slope are measured at (index divisible by kSampledEvery).
struct EvalInput {
  Point p{};
  bool sampled = false;
};

/// The sign decision and the slope of one input for one storage.
struct SignAndSlope {
  std::string core_sign, exact_sign;
  double margin_ulps = 0;
  std::optional<double> slope_ratio;  ///< at sampled inputs

  bool within_rounding() const { return !(margin_ulps > kSignRoundingUlps); }
  bool misclassified() const { return core_sign != exact_sign; }
};

/// A point a quarter voxel from p along the direction f grows fastest (central
/// differences of the core's double values; +x where they give no direction).
template <class S>
Point uphill(const Field<S>& field, const Point& p, double h) {
  const double step = h / 16;
  std::array<double, 3> g{};
  for (std::size_t a = 0; a < 3; ++a) {
    Point hi = p, lo = p;
    hi[a] += step;
    lo[a] -= step;
    g[a] = field.template eval<double>(hi[0], hi[1], hi[2]) - field.template eval<double>(lo[0], lo[1], lo[2]);
  }
  double length = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  if (!(length > 0) || !std::isfinite(length)) {
    g = {1, 0, 0};
    length = 1;
  }
  return {p[0] + g[0] / length * (h / 4), p[1] + g[1] / length * (h / 4), p[2] + g[2] / length * (h / 4)};
}

template <class S>
std::pair<StorageErrors, SignAndSlope> measure_storage(const Field<S>& field, const FieldGeometry& reference,
                                                       const EvalInput& in, double h, double band_width) {
  const Point& p = in.p;
  StorageErrors e;
  SignAndSlope m;
  const double core = field.template eval<double>(p[0], p[1], p[2]);
  const FieldGeometry::Evaluation truth = reference.evaluate_with_membership(p);
  e.error = distance_error(HighPrecision(core), truth.value, h, band_width);
  m.core_sign = std::string(reference::side_text(reference::side_of_sign(core)));
  m.exact_sign = std::string(reference::side_text(truth.membership));
  m.margin_ulps = error_in_ulps(std::fabs(to_double(truth.value)), to_double(truth.value), band_width);
  if (in.sampled) {
    const HighPrecision kernel =
        field.template eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
    e.arithmetic = distance_error(HighPrecision(core), kernel, h, band_width);
    const Point q = uphill(field, p, h);
    const HighPrecision run = sqrt((HighPrecision(q[0]) - p[0]) * (HighPrecision(q[0]) - p[0]) +
                                   (HighPrecision(q[1]) - p[1]) * (HighPrecision(q[1]) - p[1]) +
                                   (HighPrecision(q[2]) - p[2]) * (HighPrecision(q[2]) - p[2]));
    m.slope_ratio = to_double(abs(reference.value(q) - truth.value) / (reference.lipschitz_bound() * run));
  }
  return {std::move(e), std::move(m)};
}

/// Inputs where eval_batch's bits differ from eval<double>'s.
template <class S>
std::size_t batch_differences(const Field<S>& field, const std::vector<Point>& points) {
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

/// Largest values and counts of a group of inputs (a formula's generator, or a node type).
struct Tally {
  std::uint64_t count = 0, misclassified = 0, within_rounding = 0;
  double max_h = 0, max_ulps = 0, max_arithmetic_ulps = 0, max_slope_ratio = 0;
  double min_margin_ulps = std::numeric_limits<double>::infinity();

  void add(const StorageErrors& e, const SignAndSlope& m) {
    ++count;
    // A NaN error or ratio makes the maximum infinite (written as null).
    const auto most = [](double& into, double v) { into = std::isnan(v) ? std::numeric_limits<double>::infinity() : std::fmax(into, v); };
    most(max_h, e.error.h.value_or(0));
    most(max_ulps, e.error.ulps);
    if (e.arithmetic) most(max_arithmetic_ulps, e.arithmetic->ulps);
    if (m.slope_ratio) most(max_slope_ratio, *m.slope_ratio);
    if (m.within_rounding())
      ++within_rounding;
    else if (m.misclassified())
      ++misclassified;
    min_margin_ulps = std::fmin(min_margin_ulps, m.margin_ulps);
  }
  json to_json() const {
    return {{"count", count},
            {"max_h", finite_or_null(max_h)},
            {"max_ulps", finite_or_null(max_ulps)},
            {"max_arithmetic_ulps", finite_or_null(max_arithmetic_ulps)},
            {"misclassified_signs", misclassified},
            {"count_signs_within_rounding", within_rounding},
            {"min_margin_ulps", count == 0 ? json(nullptr) : finite_or_null(min_margin_ulps)},
            {"max_slope_ratio", finite_or_null(max_slope_ratio)}};
  }
};

/// Signs too close to the surface for the 64-bit formula to decide (kSignRoundingUlps).
struct WithinRounding {
  std::uint64_t count = 0, misclassified = 0;
  double max_misclassified_margin_ulps = 0;

  void add(const SignAndSlope& m) {
    ++count;
    if (!m.misclassified()) return;
    ++misclassified;
    max_misclassified_margin_ulps = std::fmax(max_misclassified_margin_ulps, m.margin_ulps);
  }
};

/// What one storage gathers over the run besides its statistics.
struct StorageTotals {
  std::map<std::string, Tally> by_node;
  WithinRounding within_rounding;
  json bounds = json::object();  ///< per formula at the origin: core's Lipschitz bound and the documented one
  double shortfall = 0;          ///< the largest (documented - core) / documented
};

struct FieldEval {
  static constexpr std::string_view id = "field.eval";
  static constexpr Generator<Kind> kGenerators[] = {
      {Kind::uniform, "uniform", "uniform in the formula's box widened by (band + 1) h"},
      {Kind::near_surface, "near_surface", "uniform in the box, kept where |f| < h: where the result cancels"},
      {Kind::node, "node", "a point with |f| < band h moved to its nearest node i h: what the bake evaluates"},
      {Kind::far, "far", "a point with |f| < band h of the formula translated by about 5e5 h per axis",
       Placement::far},
      {Kind::special, "special",
       "a special point of the geometry (centre, axis, cap rim, box edge or corner, torus centre and circles, gyroid "
       "points with G = 0), a quarter of them exactly, the others 2^-k h away (k in 0..40) in a random direction"},
  };
  using Subject = Formula;
  using Input = EvalInput;
  struct Outcome {
    std::vector<StorageErrors> by_storage;
    std::vector<SignAndSlope> signs;  // by storage
  };

  const RunSettings& settings;
  double h, band;
  std::vector<Probe> probes = probe_formulas();
  /// What the formulas' subjects point into: the probes compiled, the references built.
  std::vector<std::unique_ptr<ProbeFields>> probe_fields;
  std::vector<std::unique_ptr<References>> references;
  std::vector<StorageTotals> totals;  // by storage

  explicit FieldEval(RunContext& context)
      : settings(context.settings()),
        h(context.settings().h),
        band(context.settings().band),
        totals(context.settings().storages.size()) {}

  /// Fills the storages, references and special points of a formula whose name,
  /// node, placement, drawing field and box are set; `fields` gives its field for
  /// a storage type.
  template <class Fields>
  void complete(Formula& f, const json& spec, const Fields& fields) {
    try {
      const json placed = placed_spec(spec, settings, f.where);
      references.push_back(std::make_unique<References>(
          References{FieldGeometry(placed, reference::DensityValues::given),
                     FieldGeometry(placed, reference::DensityValues::float32)}));
    } catch (const std::invalid_argument& e) {
      throw Error(ErrorCode::badspec, "formula " + f.name + ": " + e.what());
    }
    const References& refs = *references.back();
    f.storage_matters = has_density_map(spec);
    f.special = refs.given.special_points();
    for (Storage storage : settings.storages)
      with_storage(storage, [&]<class S>() {
        // A grid in half, q16 or q8 is baked from the formula in double.
        using Scalar = FieldScalarOf<S>;
        f.storages.push_back({AnyField(&fields.template operator()<Scalar>()),
                              std::is_same_v<Scalar, float> ? &refs.as_float : &refs.given});
      });
  }

  /// Every formula of the run: the formula parts, then the probes.
  std::vector<PartUnit<Formula>> parts(RunContext& context) {
    std::vector<PartUnit<Formula>> units;
    for (std::size_t n = 0; n < context.formula_part_count(); ++n) {
      PartSubject* part = &context.part(n);
      units.push_back({part->part().name, [this, part](Placement where) {
                         Formula f;
                         f.name = part->part().name;
                         f.where = where;
                         f.exact = &part->field<double>(where);
                         f.box = draw_box(*f.exact, std::nullopt, settings, where, f.name);
                         complete(f, part->part().spec,
                                  [&]<class S>() -> const Field<S>& { return part->field<S>(where); });
                         return f;
                       }});
    }
    for (const Probe& probe : probes)
      units.push_back({probe.name, [this, &probe](Placement where) {
                         const json placed = placed_spec(probe.spec, settings, where);
                         probe_fields.push_back(std::make_unique<ProbeFields>(
                             ProbeFields{compile_field<float>(placed), compile_field<double>(placed)}));
                         const ProbeFields& compiled = *probe_fields.back();
                         Formula f;
                         f.name = probe.name;
                         f.node = probe.node;
                         f.where = where;
                         f.exact = &compiled.as_double;
                         f.box = draw_box(*f.exact, probe.draw, settings, where, f.name);
                         complete(f, probe.spec, [&]<class S>() -> const Field<S>& {
                           if constexpr (sizeof(S) == 4)
                             return compiled.as_float;
                           else
                             return compiled.as_double;
                         });
                         return f;
                       }});
    return units;
  }

  /// The parts draw the run's inputs per generator; the probes a tenth of them.
  std::size_t inputs_per_generator(const RunSettings& s, const Formula& f) const {
    return f.node.empty() ? s.inputs : std::max<std::size_t>(1, s.inputs / kProbeInputsDivisor);
  }

  void start(CalculationResult& r) const {
    r.error = ErrorStats(true, false);
    r.arithmetic = ErrorStats(true, false);
    r.mismatches = 0;
    r.decisions.emplace_back("sign",
                             "the sign of eval<double> (inside < 0, outside > 0, surface 0) vs the reference's "
                             "membership test of the geometry (squared distances against squared radii, set "
                             "operations on CSG operands, the wall's interval of the shape's value, |G| against the "
                             "gyroid wall), in high precision; margin: |f| of the reference in ulps of band h. Inputs "
                             "within 128 ulps of band h of the surface, the 64-bit formula's rounding allowance, are "
                             "counted in details.sign_within_rounding instead");
  }

  EvalInput generate(const Formula& formula, const Generator<Kind>& generator, std::uint64_t seed,
                     std::uint64_t index, bool& fallback) const {
    return {draw(formula, generator.kind, InputRng(seed, id, generator.name, index), fallback),
            index % kSampledEvery == 0};
  }

  Point draw(const Formula& formula, Kind kind, InputRng rng, bool& fallback) const {
    const double band_width = band * h;
    switch (kind) {
      case Kind::uniform: return draw_point(rng, formula.box);
      case Kind::near_surface:
        return draw_where(rng, *formula.exact, formula.box, 4000, fallback,
                          [&](double f) { return std::fabs(f) < h; });
      case Kind::node: {
        Point p = draw_where(rng, *formula.exact, formula.box, 2000, fallback,
                             [&](double f) { return std::fabs(f) < band_width; });
        for (double& x : p) x = nearest_multiple(x, h);
        return p;
      }
      case Kind::far:
        return draw_where(rng, *formula.exact, formula.box, 2000, fallback,
                          [&](double f) { return std::fabs(f) < band_width; });
      case Kind::special: {
        if (formula.special.empty()) return draw_point(rng, formula.box);
        const auto k = static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(formula.special.size()) - 1));
        Point p = formula.special[k];
        if (rng.integer(0, 3) == 0) return p;
        // A direction uniform on the sphere: a point uniform in the cube, kept inside the unit ball.
        std::array<double, 3> d{};
        double length2 = 0;
        do {
          for (double& c : d) c = rng.uniform(-1, 1);
          length2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
        } while (!(length2 > 1e-6 && length2 <= 1));
        const double step = std::ldexp(h, -static_cast<int>(rng.integer(0, 40))) / std::sqrt(length2);
        for (std::size_t a = 0; a < 3; ++a) p[a] += d[a] * step;
        return p;
      }
    }
    return {};
  }

  /// Per storage: eval<double> against the reference (error, sign, slope) and
  /// against the same kernel in MPFR (arithmetic). Without a density map every
  /// storage's field is the same, bit for bit: measured once.
  Outcome measure(const Formula& f, const EvalInput& in) const {
    Outcome out;
    for (const Compiled& c : f.storages) {
      if (!out.by_storage.empty() && !f.storage_matters) {
        out.by_storage.push_back(out.by_storage.front());
        out.signs.push_back(out.signs.front());
        continue;
      }
      auto [errors, sign] = std::visit(
          [&](const auto* field) { return measure_storage(*field, *c.reference, in, h, band * h); }, c.field);
      out.by_storage.push_back(std::move(errors));
      out.signs.push_back(std::move(sign));
    }
    return out;
  }

  InputValues record(const EvalInput& in) const { return point_values(in.p); }

  template <class MakeRecord>
  void add_decisions(CalculationResult& r, std::size_t storage, const Outcome& o, const MakeRecord& record) {
    const SignAndSlope& m = o.signs[storage];
    if (m.within_rounding())
      totals[storage].within_rounding.add(m);
    else
      r.decisions[0].add(m.core_sign, m.exact_sign, m.margin_ulps, record);
  }

  std::vector<ReplayValue> replay_decisions(const Outcome& o, std::size_t storage) const {
    return {{"sign", o.signs[storage].core_sign, o.signs[storage].exact_sign}};
  }

  /// Also counts, as mismatches, the inputs where eval_batch's bits differ from
  /// eval<double>'s; adds the inputs to their node type's tally, and notes the
  /// formula's Lipschitz bounds at the origin.
  json row(CalculationResult& r, std::size_t storage, const std::string& formula_name, const Formula& formula,
           std::span<const Sample<FieldEval>> samples, const ErrorMaxima&) {
    StorageTotals& total = totals[storage];
    std::vector<Point> points;
    Tally tally;
    for (const Sample<FieldEval>& sample : samples) {
      points.push_back(sample.input.p);
      const StorageErrors& e = sample.outcome.by_storage[storage];
      const SignAndSlope& m = sample.outcome.signs[storage];
      tally.add(e, m);
      if (!formula.node.empty()) total.by_node[formula.node].add(e, m);
    }
    const Compiled& compiled = formula.storages[storage];
    const std::size_t differ =
        std::visit([&](const auto* f) { return batch_differences(*f, points); }, compiled.field);
    *r.mismatches += differ;
    if (formula.where == Placement::origin && !total.bounds.contains(formula_name)) {
      const double core = std::visit([](const auto* f) { return f->lipschitz(); }, compiled.field);
      const double documented = to_double(compiled.reference->lipschitz_bound());
      total.shortfall = std::fmax(total.shortfall, (documented - core) / documented);
      total.bounds[formula_name] = {{"documented", finite_or_null(documented)}, {"core", finite_or_null(core)}};
    }
    json out = tally.to_json();
    out["formula"] = formula_name;
    out["node"] = formula.node.empty() ? json(nullptr) : json(formula.node);
    out["batch_differs"] = differ;
    return out;
  }

  json details(json table, std::size_t storage) const {
    const StorageTotals& total = totals[storage];
    json nodes = json::object();
    for (const char* type : kNodeTypes) {
      json formulas_of = json::array();
      for (const Probe& p : probes)
        if (p.node == type) formulas_of.push_back(p.name);
      const auto tally = total.by_node.find(type);
      json entry = tally == total.by_node.end() ? Tally().to_json() : tally->second.to_json();
      entry["formulas"] = formulas_of;
      nodes[type] = entry;
    }
    double slope = 0;  // null (infinite) when a row's is
    for (const json& row : table)
      slope = row["max_slope_ratio"].is_number() ? std::fmax(slope, row["max_slope_ratio"].get<double>())
                                                 : std::numeric_limits<double>::infinity();
    json probe_specs = json::object();
    for (const Probe& p : probes) probe_specs[p.name] = p.spec;
    return {
        {"by_formula_and_generator", std::move(table)},
        {"by_node", nodes},
        {"lipschitz",
         {{"by_formula", total.bounds},
          {"max_core_shortfall", finite_or_null(total.shortfall)},
          {"max_slope_ratio", finite_or_null(slope)},
          {"what",
           "documented: the bound docs/field-spec.md gives for the formula (real arithmetic, from the spec); core: "
           "Field::lipschitz(), the bound the plan uses; max_core_shortfall: the largest (documented - core) / "
           "documented, 0 when core's bound is never below the documented one; max_slope_ratio: the largest |f(q) "
           "- f(p)| / (L |q - p|) of the reference, q a quarter voxel from p along the gradient, at every fourth "
           "input"}}},
        {"sign_within_rounding",
         {{"count_inputs", total.within_rounding.count},
          {"misclassified", total.within_rounding.misclassified},
          {"max_misclassified_margin_ulps", finite_or_null(total.within_rounding.max_misclassified_margin_ulps)},
          {"rounding_ulps", kSignRoundingUlps},
          {"what", "inputs whose reference |f| is within rounding_ulps ulps of band h of zero (special points on the "
                   "surface, mostly): the sign there is the 64-bit formula's rounding, counted but not gated"}}},
        {"probe_formulas", probe_specs},
        {"null_means", "a NaN or infinite value, or no input (min_margin_ulps)"},
        {"mismatches_are", "inputs where eval_batch's bits differ from eval<double>'s"}};
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
