// field.eval: the compiled formula itself, for float and double storage (the
// storage only decides the type a density map's values are kept in).
//
// Implementation under test: Field<S>::eval<double> and Field<S>::eval_batch
// (the bake's path). References, from reference/field_geometry.hpp (read from
// the spec and written from each node's geometry, not from core):
//   error       eval<double> vs the geometric reference in high precision (the
//               density values as the storage keeps them);
//   arithmetic  eval<double> vs Field<S>::eval<HighPrecision>, the same kernel
//               in MPFR (every fourth input): what the 64-bit formula's rounding
//               alone costs (a wrong formula leaves it unchanged; the error above
//               catches it);
//   sign        the sign of eval<double> vs the reference's membership test
//               (squared distances, set operations on the operands, the wall's
//               interval, |G| against the wall), margin |f| in ulps of band h;
//   slope       |f(q) - f(p)| / (L |q - p|) of the reference with q a quarter
//               voxel from p along the gradient (every fourth input), L the
//               documented Lipschitz bound; and core's bound (Field::lipschitz)
//               against it.
// Formulas: the run's parts, and probe formulas: each node type at the root of
// a small formula, once per option (box with and without round, torus with and
// without axis, a capsule on a point, a half-space with and without offset,
// number fields as numbers, constants and density maps, every shell side,
// rotations by axis and by quaternion, gyroids with a uniform and a mapped cell).
// Distances in h and in ulps of the reference with its magnitude raised to band
// h; `mismatches`: inputs where eval_batch does not return eval<double>'s bits.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <map>
#include <stdexcept>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/field_geometry.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "part_inputs.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr std::string_view kId = "field.eval";
using nlohmann::json;
using reference::FieldGeometry;
using reference::Membership;

json vec(double x, double y, double z) { return json::array({x, y, z}); }

/// A probe: one node type at the root; `draw` bounds the points of a formula with no finite box.
struct Probe {
  std::string name, node;
  json spec;
  std::optional<Box> draw;
};

/// One probe per node type and option, over simple shapes that overlap.
std::vector<Probe> probes() {
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

enum class Stratum { uniform, near_surface, node, far, special };

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
    {Stratum::special, "special",
     "a special point of the geometry (centre, axis, cap rim, box edge or corner, torus centre and circles, gyroid "
     "points with G = 0), a quarter of them exactly, the others 2^-k h away (k in 0..40) in a random direction",
     Placement::origin},
};

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

/// One formula at one placement, compiled for the storages the run wants, with
/// its references (density values as given, and as float stores them).
struct Formula {
  std::string name;
  std::string node;  ///< the probed node type; empty for a part
  json spec;
  const Field<double>* exact = nullptr;  // drawing
  const Field<float>* as_float = nullptr;
  const Field<double>* as_double = nullptr;
  const FieldGeometry* reference_given = nullptr;
  const FieldGeometry* reference_float = nullptr;
  bool storage_matters = false;  ///< a density map: float and double fields differ
  Box box;
  std::vector<Point> special;
};

/// Owns the probes' fields and every formula's references, at both placements.
struct Owned {
  std::vector<Probe> probes = runs::probes();
  std::vector<std::array<std::optional<Field<float>>, 2>> floats;
  std::vector<std::array<std::optional<Field<double>>, 2>> doubles;
  std::map<std::pair<std::string, int>, std::array<std::optional<FieldGeometry>, 2>> references;
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

/// Every formula of the run at a placement: the parts, then the probes.
std::vector<Formula> formulas_at(RunContext& context, Owned& owned, Placement where) {
  const RunSettings& s = context.settings();
  const auto w = static_cast<std::size_t>(where);
  std::vector<Formula> out;
  const auto attach_references = [&](Formula& f) {
    auto& refs = owned.references[{f.name, static_cast<int>(w)}];
    if (!refs[0]) {
      const json placed = placed_spec(f.spec, s, where);
      try {
        refs[0].emplace(placed, reference::DensityValues::given);
        refs[1].emplace(placed, reference::DensityValues::float32);
      } catch (const std::invalid_argument& e) {
        throw Error(ErrorCode::badspec, "formula " + f.name + ": " + e.what());
      }
    }
    f.reference_given = &*refs[0];
    f.reference_float = &*refs[1];
    f.storage_matters = has_density_map(f.spec);
    f.special = refs[0]->special_points();
  };
  for (std::size_t p = 0; p < context.part_count(); ++p) {
    PartSubject& part = context.part(p);
    Formula f;
    f.name = part.part().name;
    f.spec = part.part().spec;
    f.exact = &part.field<double>(where);
    if (context.wants(Storage::float32)) f.as_float = &part.field<float>(where);
    if (context.wants(Storage::float64)) f.as_double = &part.field<double>(where);
    f.box = draw_box(*f.exact, std::nullopt, s, where, f.name);
    attach_references(f);
    out.push_back(std::move(f));
  }
  if (owned.floats.empty()) {
    owned.floats.resize(owned.probes.size());
    owned.doubles.resize(owned.probes.size());
  }
  for (std::size_t n = 0; n < owned.probes.size(); ++n) {
    const Probe& probe = owned.probes[n];
    if (!owned.doubles[n][w]) {
      const json placed = placed_spec(probe.spec, s, where);
      owned.floats[n][w].emplace(compile_field<float>(placed));
      owned.doubles[n][w].emplace(compile_field<double>(placed));
    }
    Formula f;
    f.name = probe.name;
    f.node = probe.node;
    f.spec = probe.spec;
    f.exact = &*owned.doubles[n][w];
    if (context.wants(Storage::float32)) f.as_float = &*owned.floats[n][w];
    if (context.wants(Storage::float64)) f.as_double = f.exact;
    f.box = draw_box(*f.exact, probe.draw, s, where, f.name);
    attach_references(f);
    out.push_back(std::move(f));
  }
  return out;
}

std::size_t inputs_of(const Formula& f, const RunSettings& s) {
  return f.node.empty() ? s.inputs : std::max<std::size_t>(1, s.inputs / kProbeInputsDivisor);
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
    case Stratum::special: {
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

/// What one input measures for one storage.
struct Measured {
  ErrorValue error;
  std::optional<ErrorValue> arithmetic;  ///< at every kSampledEvery-th input
  std::string core_sign, exact_sign;
  double margin_ulps = 0;
  std::optional<double> slope_ratio;  ///< at every kSampledEvery-th input

  bool within_rounding() const { return !(margin_ulps > kSignRoundingUlps); }
  bool misclassified() const { return core_sign != exact_sign; }
};

struct Outcome {
  Point p{};
  bool fallback = false;
  std::array<Measured, 2> by_storage;  // by Storage
};

const char* sign_text(double v) { return v < 0 ? "inside" : (v > 0 ? "outside" : "surface"); }

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
Measured measure_storage(const Field<S>& field, const FieldGeometry& reference, const Point& p, double h,
                         double band_width, bool sampled) {
  Measured m;
  const double core = field.template eval<double>(p[0], p[1], p[2]);
  const FieldGeometry::Evaluation truth = reference.evaluate_with_membership(p);
  m.error = distance_error(HighPrecision(core), truth.value, h, band_width);
  m.core_sign = sign_text(core);
  m.exact_sign = std::string(reference::membership_text(truth.membership));
  m.margin_ulps = error_in_ulps(std::fabs(to_double(truth.value)), to_double(truth.value), band_width);
  if (sampled) {
    const HighPrecision kernel =
        field.template eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
    m.arithmetic = distance_error(HighPrecision(core), kernel, h, band_width);
    const Point q = uphill(field, p, h);
    const HighPrecision run = sqrt((HighPrecision(q[0]) - p[0]) * (HighPrecision(q[0]) - p[0]) +
                                   (HighPrecision(q[1]) - p[1]) * (HighPrecision(q[1]) - p[1]) +
                                   (HighPrecision(q[2]) - p[2]) * (HighPrecision(q[2]) - p[2]));
    m.slope_ratio = to_double(abs(reference.value(q) - truth.value) / (reference.lipschitz_bound() * run));
  }
  return m;
}

Outcome measure(const Formula& f, const Point& p, std::uint64_t index, double h, double band_width) {
  Outcome out;
  out.p = p;
  const bool sampled = index % kSampledEvery == 0;
  if (f.as_float) out.by_storage[0] = measure_storage(*f.as_float, *f.reference_float, p, h, band_width, sampled);
  if (f.as_double) {
    if (f.as_float && !f.storage_matters)
      out.by_storage[1] = out.by_storage[0];  // no density map: the same field, bit for bit
    else
      out.by_storage[1] = measure_storage(*f.as_double, *f.reference_given, p, h, band_width, sampled);
  }
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

/// Largest values and counts of a group of inputs (a formula's generator, or a node type).
struct Tally {
  std::uint64_t count = 0, misclassified = 0, within_rounding = 0;
  double max_h = 0, max_ulps = 0, max_arithmetic_ulps = 0, max_slope_ratio = 0;
  double min_margin_ulps = std::numeric_limits<double>::infinity();

  void add(const Measured& m) {
    ++count;
    // A NaN error or ratio makes the maximum infinite (written as null).
    const auto most = [](double& into, double v) { into = std::isnan(v) ? std::numeric_limits<double>::infinity() : std::fmax(into, v); };
    most(max_h, m.error.h.value_or(0));
    most(max_ulps, m.error.ulps);
    if (m.arithmetic) most(max_arithmetic_ulps, m.arithmetic->ulps);
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

  void add(const Measured& m) {
    ++count;
    if (!m.misclassified()) return;
    ++misclassified;
    max_misclassified_margin_ulps = std::fmax(max_misclassified_margin_ulps, m.margin_ulps);
  }
};

}  // namespace

std::vector<CalculationResult> run_field_eval(RunContext& context) {
  const RunSettings& settings = context.settings();
  const double band_width = settings.band * settings.h;
  Owned owned;
  std::array<std::vector<Formula>, 2> formulas{formulas_at(context, owned, Placement::origin),
                                               formulas_at(context, owned, Placement::far)};
  std::array<CalculationResult, 2> results;
  std::array<json, 2> tables{json::array(), json::array()};
  std::array<std::map<std::string, Tally>, 2> by_node;
  std::array<std::uint64_t, 2> batch_mismatches{0, 0};
  std::array<WithinRounding, 2> within_rounding;
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    r.arithmetic = ErrorStats(true, false);
    r.decisions.emplace_back("sign",
                             "the sign of eval<double> (inside < 0, outside > 0, surface 0) vs the reference's "
                             "membership test of the geometry (squared distances against squared radii, set "
                             "operations on CSG operands, the wall's interval of the shape's value, |G| against the "
                             "gyroid wall), in high precision; margin: |f| of the reference in ulps of band h. Inputs "
                             "within 128 ulps of band h of the surface, the 64-bit formula's rounding allowance, are "
                             "counted in details.sign_within_rounding instead");
    for (const StratumSpec& stratum : kStrata) r.strata.push_back({stratum.name, stratum.description, 0, 0});
  }
  for (std::size_t fi = 0; fi < formulas[0].size(); ++fi) {
    for (std::size_t si = 0; si < std::size(kStrata); ++si) {
      const StratumSpec& stratum = kStrata[si];
      const Formula& formula = formulas[static_cast<std::size_t>(stratum.where)][fi];
      const std::size_t count = inputs_of(formula, settings);
      const InputRange range = context.shard_inputs(count);
      std::vector<Outcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + formula.name + " " + stratum.name, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        bool fallback = false;
        const Point p =
            generate_input(stratum, formula, settings.h, band_width, settings.seed, range.first + k, fallback);
        outcomes[k] = measure(formula, p, range.first + k, settings.h, band_width);
        outcomes[k].fallback = fallback;
      });
      context.progress().end();
      for (Storage storage : settings.storages) {
        const auto s = static_cast<std::size_t>(storage);
        CalculationResult& r = results[s];
        const std::vector<std::size_t> differ = s == 0 ? batch_differences(*formula.as_float, outcomes)
                                                       : batch_differences(*formula.as_double, outcomes);
        batch_mismatches[s] += differ.size();
        Tally tally;
        r.begin_unit(count);
        for (std::size_t k = 0; k < range.size(); ++k) {
          const std::size_t n = range.first + k;
          const Outcome& o = outcomes[k];
          const Measured& m = o.by_storage[s];
          const auto record = [&] { return point_record(settings.seed, stratum.name, n, formula.name, o.p); };
          r.error.add(m.error, record);
          if (m.arithmetic) r.arithmetic->add(*m.arithmetic, record);
          if (m.within_rounding())
            within_rounding[s].add(m);
          else
            r.decisions[0].add(m.core_sign, m.exact_sign, m.margin_ulps, record);
          r.strata[si].fallbacks += o.fallback ? 1 : 0;
          tally.add(m);
          if (!formula.node.empty()) by_node[s][formula.node].add(m);
        }
        r.strata[si].count += range.size();
        json row = tally.to_json();
        row["formula"] = formula.name;
        row["node"] = formula.node.empty() ? json(nullptr) : json(formula.node);
        row["generator"] = stratum.name;
        row["batch_differs"] = differ.size();
        tables[s].push_back(row);
      }
    }
  }
  std::vector<CalculationResult> out;
  json probe_specs = json::object();
  for (const Probe& p : owned.probes) probe_specs[p.name] = p.spec;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    json nodes = json::object();
    for (const char* type : kNodeTypes) {
      json formulas_of = json::array();
      for (const Probe& p : owned.probes)
        if (p.node == type) formulas_of.push_back(p.name);
      json entry = by_node[s][type].to_json();
      entry["formulas"] = formulas_of;
      nodes[type] = entry;
    }
    // Bounds per formula (the placement at the origin): core's against the documented one.
    json bounds = json::object();
    double shortfall = 0;
    for (const Formula& f : formulas[0]) {
      const double core = s == 0 ? f.as_float->lipschitz() : f.as_double->lipschitz();
      const double documented = to_double((s == 0 ? f.reference_float : f.reference_given)->lipschitz_bound());
      shortfall = std::fmax(shortfall, (documented - core) / documented);
      bounds[f.name] = {{"documented", finite_or_null(documented)}, {"core", finite_or_null(core)}};
    }
    double slope = 0;  // null (infinite) when a row's is
    for (const json& row : tables[s])
      slope = row["max_slope_ratio"].is_number() ? std::fmax(slope, row["max_slope_ratio"].get<double>())
                                                 : std::numeric_limits<double>::infinity();
    results[s].storage = storage;
    results[s].mismatches = batch_mismatches[s];
    results[s].details = {
        {"by_formula_and_generator", tables[s]},
        {"by_node", nodes},
        {"lipschitz",
         {{"by_formula", bounds},
          {"max_core_shortfall", finite_or_null(shortfall)},
          {"max_slope_ratio", finite_or_null(slope)},
          {"what",
           "documented: the bound docs/field-spec.md gives for the formula (real arithmetic, from the spec); core: "
           "Field::lipschitz(), the bound the plan uses; max_core_shortfall: the largest (documented - core) / "
           "documented, 0 when core's bound is never below the documented one; max_slope_ratio: the largest |f(q) "
           "- f(p)| / (L |q - p|) of the reference, q a quarter voxel from p along the gradient, at every fourth "
           "input"}}},
        {"sign_within_rounding",
         {{"count_inputs", within_rounding[s].count},
          {"misclassified", within_rounding[s].misclassified},
          {"max_misclassified_margin_ulps", finite_or_null(within_rounding[s].max_misclassified_margin_ulps)},
          {"rounding_ulps", kSignRoundingUlps},
          {"what", "inputs whose reference |f| is within rounding_ulps ulps of band h of zero (special points on the "
                   "surface, mostly): the sign there is the 64-bit formula's rounding, counted but not gated"}}},
        {"probe_formulas", probe_specs},
        {"null_means", "a NaN or infinite value, or no input (min_margin_ulps)"},
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
  Owned owned;
  for (const StratumSpec& stratum : kStrata) {
    if (in.generator != stratum.name) continue;
    for (const Formula& f : formulas_at(context, owned, stratum.where)) {
      if (f.name != in.part) continue;
      bool fallback = false;
      const Point p = generate_input(stratum, f, s.h, s.band * s.h, in.seed, in.index, fallback);
      const Outcome o = measure(f, p, in.index, s.h, s.band * s.h);
      const Measured& m = o.by_storage[static_cast<std::size_t>(request.storage)];
      std::vector<ReplayValue> values{{"error", hex_float(m.error.result), hex_float(m.error.reference)},
                                      {"sign", m.core_sign, m.exact_sign}};
      if (m.arithmetic)
        values.push_back({"arithmetic", hex_float(m.arithmetic->result), hex_float(m.arithmetic->reference)});
      return values;
    }
    throw Error(ErrorCode::badarg, "replay: field.eval has no formula \"" + in.part + "\"");
  }
  throw Error(ErrorCode::badarg, "replay: field.eval has no generator \"" + in.generator + "\"");
}

}  // namespace distgrid::audit::runs
