#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/trilinear.hpp"
#include "part_inputs.hpp"
#include "stratified.hpp"

namespace distgrid::audit::calcs {

namespace {
struct GridGradient;  // the measurement, below
}  // namespace

Calculation grid_gradient() {
  return {
      .id = "grid.gradient",
      .title = "Gradient at a point",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/grid.cpp", "GridAccessor<S>::gradient"},
                  {"core/src/grid.cpp", "GridAccessor<S>::gradient_by_samples"},
                  {"core/src/grid.cpp", "GridAccessor<S>::sample_near_base"},
                  {"core/src/grid.cpp", "Grid<S>::gradient"},
                  {"core/src/grid.cpp", "Grid<S>::gradient_many"}},
      .formula = "g = (sample(p + h/2) - sample(p - h/2)) / h per axis, in double, each sample trilinear from the "
                 "stored values",
      .inputs = "per part: band points; band points on nodes; half a voxel off a node on one axis; on a brick face; "
                "at the band's edge; the part's copy ~5e5 h from the origin; band points moved beyond the key range "
                "(|x|/h up to 4.3e18); inputs / 4 per generator and part (each "
                "costs about 26 high-precision formula evaluations). Each input is drawn from (seed, generator, "
                "index).",
      .implementation = "Grid<S>::gradient, and Grid<S>::gradient_many for the same point (twice, one thread); the "
                        "one farther from the stored values' central difference is measured",
      .reference = "the central difference in high precision with exact sample points p +- h/2 and the reference "
                   "trilinear, from the stored values and from exact node values clamp(f(i h), +-band h) (f a mesh part's "
                   "exact signed distance, or the formula); the true "
                   "gradient of clamp(f, +-band h) by a high-precision central difference with step 2^-32 h",
      .errors = "error: the core's gradient vs high precision from exact node values, the worst component; in h (a "
                "gradient's error is the error of the two samples' difference in units of h) and in ulps of the "
                "component with its magnitude raised to 1. Method: exact node values vs the true gradient.",
      .run = &run_stratified<GridGradient>,
      .replay = &replay_stratified<GridGradient>,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

enum class Kind { band, node, half_voxel, brick_face, band_edge, far, beyond_range };

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
std::array<HighPrecision, 3> true_gradient(const reference::ExactShape& shape, const Point& p, double h, double band) {
  const double reach = shape.lipschitz() * h * 0x1p-32;
  if (reference::beyond_band(shape.approximate(p[0], p[1], p[2]), band * h + reach,
                             std::fabs(p[0]) + std::fabs(p[1]) + std::fabs(p[2])))
    return {0, 0, 0};
  const HighPrecision step = HighPrecision(h) * HighPrecision(0x1p-32);
  std::array<HighPrecision, 3> g;
  for (std::size_t a = 0; a < 3; ++a) {
    std::array<HighPrecision, 3> lo{HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])}, hi = lo;
    lo[a] -= step;
    hi[a] += step;
    const HighPrecision f_hi = reference::clamp_to_band(shape.exact(hi[0], hi[1], hi[2]), h, band);
    const HighPrecision f_lo = reference::clamp_to_band(shape.exact(lo[0], lo[1], lo[2]), h, band);
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

struct GridGradient : OnBakedParts {
  static constexpr std::string_view id = "grid.gradient";
  static constexpr Generator<Kind> kGenerators[] = {
      {Kind::band, "band", "uniform in the box, kept where |f| < band h"},
      {Kind::node, "node", "a band point moved to its nearest node: both samples sit on cell faces"},
      {Kind::half_voxel, "half_voxel",
       "a band point moved half a voxel off a node on one random axis: on that axis both samples land on nodes"},
      {Kind::brick_face, "brick_face",
       "a band point with one random axis moved to the nearest multiple of 8 h: the samples straddle a brick face"},
      {Kind::band_edge, "band_edge", "uniform in the box, kept where | |f| - band h | < h/8 (the clamp's bend)"},
      {Kind::far, "far", "a band point of the part's copy translated by about 5e5 h per axis", Placement::far},
      {Kind::beyond_range, "beyond_range",
       "a band point moved along one axis by m * 2^20 h, |m| in 1..4 or 1..953 (|x|/h up to 1e9), or by m * 2^52 h "
       "(|x|/h up to 4.3e18, beyond the node index limit 4e15): beyond every brick key, where the gradient takes "
       "its six plain samples and an unchecked key would alias a stored brick"},
  };
  using Input = Point;
  using Outcome = Measured;

  /// Each input costs about 26 high-precision formula evaluations (20 exact node
  /// values, 6 for the true gradient), so a generator draws inputs / 4 per part.
  std::size_t per_generator;

  explicit GridGradient(RunContext& context)
      : OnBakedParts(context), per_generator(std::max<std::size_t>(1, context.settings().inputs / 4)) {}
  std::size_t inputs_per_generator(const RunSettings&) const { return per_generator; }
  void start(CalculationResult& r) const { start_errors_in_h(r, true); }

  Point generate(const BakedPart& part, const Generator<Kind>& generator, std::uint64_t seed, std::uint64_t index,
                 bool& fallback) const {
    InputRng rng(seed, id, generator.name, index);
    const double band_width = band * h;
    if (generator.kind == Kind::band_edge)
      return draw_where(rng, *part.exact, part.box, 20000, fallback,
                        [&](double f) { return std::fabs(std::fabs(f) - band_width) < h / 8; });
    Point p = draw_where(rng, *part.exact, part.box, 2000, fallback, [&](double f) { return std::fabs(f) < band_width; });
    switch (generator.kind) {
      case Kind::beyond_range: return moved_beyond_key_range(rng, p, h);
      case Kind::node:
        for (double& x : p) x = nearest_multiple(x, h);
        break;
      case Kind::half_voxel: {
        const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
        p[axis] = std::floor(p[axis] / h) * h + h / 2;
        break;
      }
      case Kind::brick_face: {
        const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
        p[axis] = nearest_multiple(p[axis], 8 * h);
        break;
      }
      default: break;
    }
    return p;
  }

  /// Per storage: Grid<S>::gradient against the high-precision central difference
  /// of the stored and of the exact node values; the method against the true gradient.
  Outcome measure(const BakedPart& part, const Point& p) const {
    NodeMemo exact([&](std::int64_t i, std::int64_t j, std::int64_t k) {
      return reference::exact_node_value(*part.exact, i, j, k, h, band);
    });
    const std::array<HighPrecision, 3> from_exact = central_difference(p, h, exact);
    const ErrorValue method = gradient_error(from_exact, true_gradient(*part.exact, p, h, band));
    Outcome out;
    for (const AnyStoredGrid& stored : part.storages)
      std::visit(
          [&](const auto& g) {
            NodeMemo stored_nodes(
                [&](std::int64_t i, std::int64_t j, std::int64_t k) { return HighPrecision(g.nodes.value(i, j, k)); });
            const std::array<HighPrecision, 3> from_stored = central_difference(p, h, stored_nodes);
            // The point alone (a fresh accessor), then twice through gradient_many (the batch path; the
            // second query finds the first one's bricks looked up). Both must be right; the one farther
            // from the stored values' central difference is measured.
            const std::array<double, 3> alone = g.grid->gradient(p[0], p[1], p[2]);
            const std::array<Point, 2> twice{p, p};
            std::array<std::array<double, 3>, 2> again{};
            g.grid->gradient_many(twice, again, 1);
            const auto distance_to_stored = [&](const std::array<double, 3>& v) {
              HighPrecision worst(0);
              for (std::size_t a = 0; a < 3; ++a) {
                const HighPrecision off = abs(HighPrecision(v[a]) - from_stored[a]);
                if (off > worst) worst = off;
              }
              return worst;
            };
            const std::array<double, 3> core = distance_to_stored(again[1]) > distance_to_stored(alone) ? again[1] : alone;
            const std::array<HighPrecision, 3> result{HighPrecision(core[0]), HighPrecision(core[1]),
                                                      HighPrecision(core[2])};
            out.by_storage.push_back({gradient_error(result, from_exact), gradient_error(result, from_stored),
                                      gradient_error(from_stored, from_exact), method});
          },
          stored);
    return out;
  }

  InputValues record(const Point& p) const { return point_values(p); }

  nlohmann::json row(CalculationResult& r, std::size_t, const std::string& part, const BakedPart&,
                     std::span<const Sample<GridGradient>>, const ErrorMaxima& max) const {
    return {{"part", part}, {"max", maxima_json(max, r)}};
  }

  nlohmann::json details(nlohmann::json table) const {
    return {{"by_part_and_generator", std::move(table)},
            {"inputs_per_generator_and_part", per_generator},
            {"units", "max: the largest component error of the gradient (distance per distance), "
                      "equal to the error of the two samples' difference in units of h"}};
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
