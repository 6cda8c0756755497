#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/trilinear.hpp"
#include "part_inputs.hpp"
#include "stratified.hpp"

namespace distgrid::audit::calcs {

namespace {
struct GridSample;  // the measurement, below
}  // namespace

Calculation grid_sample() {
  return {
      .id = "grid.sample",
      .title = "Value at a point",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/grid.cpp", "GridAccessor<S>::sample",
                   "the outcome for a NaN coordinate, which returns NaN: no reference value to compare with (the "
                   "grid tests check that a NaN point samples to NaN)"},
                  {"core/src/grid.cpp", "floor_exact"},
                  {"core/src/grid.cpp", "GridAccessor<S>::sample_after_move"},
                  {"core/src/grid.cpp", "GridAccessor<S>::sample_in_base"},
                  {"core/src/grid.cpp", "GridAccessor<S>::sample_across_faces"},
                  {"core/src/grid.cpp", "GridAccessor<S>::sample_any_corners"},
                  {"core/src/grid.cpp", "GridAccessor<S>::look_up"},
                  {"core/src/grid.cpp", "Grid<S>::sample"},
                  {"core/src/grid.cpp", "Grid<S>::sample_many"}},
      .formula = "i = floor(x / h), u = x / h - i on each axis; over the cell's eight nodes a + (b - a) * t along x, "
                 "then y, then z, in double; a node reads its stored S value, +band h in an absent brick, -band h in "
                 "an inside brick",
      .inputs = "per part: uniform in the box; in the band; on nodes; on brick faces; on brick corners; at the band's "
                "edge; a copy of the part translated ~5e5 h from the origin; points beyond the key range (|x|/h up to "
                "4.3e18). Each input is drawn from (seed, generator, index).",
      .implementation = "Grid<S>::sample",
      .reference = "trilinear interpolation as a weighted sum of the eight corners in high precision, at the cell and "
                   "fractions found from the point in high precision; corners from the stored values (read through "
                   "the audit's own key map) or from exact node values clamp(f(i h), +-band h), f the part's formula "
                   "in high precision (a mesh part's: the exact signed distance to its triangles); the true value "
                   "clamp(f(p), +-band h)",
      .errors = "error: the core's sample vs high precision from exact node values (arithmetic + storage), in h and "
                "in ulps of the reference (magnitude raised to band h). Method: against clamp(f(p), +-band h), since "
                "beyond the band a grid stores only the clamp.",
      .run = &run_stratified<GridSample>,
      .replay = &replay_stratified<GridSample>,
      .page_sampling_range = true,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

enum class Kind { uniform, band, node, brick_face, brick_corner, band_edge, far, beyond_range };

constexpr int kBandTries = 2000;
constexpr int kBandEdgeTries = 20000;

struct GridSample : OnBakedParts {
  static constexpr std::string_view id = "grid.sample";
  static constexpr Generator<Kind> kGenerators[] = {
      {Kind::uniform, "uniform", "uniform in the part's box widened by (band + 1) h"},
      {Kind::band, "band", "uniform in the box, kept where |f| < band h (the stored band)"},
      {Kind::node, "node", "a band point moved to its nearest node i h: u = v = w = 0"},
      {Kind::brick_face, "brick_face",
       "a band point with one random axis moved to the nearest multiple of 8 h (a brick face)"},
      {Kind::brick_corner, "brick_corner", "a band point with every axis moved to the nearest multiple of 8 h"},
      {Kind::band_edge, "band_edge", "uniform in the box, kept where | |f| - band h | < h/8 (the clamp's edge)"},
      {Kind::far, "far",
       "a band point of the part translated by about 5e5 h per axis (|x|/h up to ~5.2e5, near the end of "
       "the key range)",
       Placement::far},
      {Kind::beyond_range, "beyond_range",
       "a band point moved along one axis by m * 2^20 h, |m| in 1..4 or 1..953 (|x|/h up to 1e9): no brick "
       "has a key there, and an unchecked key would alias a stored brick; or by m * 2^52 h (|x|/h up to 4.3e18): "
       "beyond the node index limit 4e15, where no brick is looked up"},
  };
  using Input = Point;
  using Outcome = Measured;

  using OnBakedParts::OnBakedParts;
  std::size_t inputs_per_generator(const RunSettings& settings) const { return settings.inputs; }
  void start(CalculationResult& r) const { start_errors_in_h(r, true); }

  Point generate(const BakedPart& part, const Generator<Kind>& generator, std::uint64_t seed, std::uint64_t index,
                 bool& fallback) const {
    InputRng rng(seed, id, generator.name, index);
    const double band_width = band * h;
    const auto in_band = [&](double f) { return std::fabs(f) < band_width; };
    const auto band_point = [&] { return draw_where(rng, *part.exact, part.box, kBandTries, fallback, in_band); };
    switch (generator.kind) {
      case Kind::uniform: return draw_point(rng, part.box);
      case Kind::band:
      case Kind::far: return band_point();
      case Kind::node: {
        Point p = band_point();
        for (double& x : p) x = nearest_multiple(x, h);
        return p;
      }
      case Kind::brick_face: {
        Point p = band_point();
        const auto axis = static_cast<std::size_t>(rng.integer(0, 2));
        p[axis] = nearest_multiple(p[axis], 8 * h);
        return p;
      }
      case Kind::brick_corner: {
        Point p = band_point();
        for (double& x : p) x = nearest_multiple(x, 8 * h);
        return p;
      }
      case Kind::band_edge:
        return draw_where(rng, *part.exact, part.box, kBandEdgeTries, fallback,
                          [&](double f) { return std::fabs(std::fabs(f) - band_width) < h / 8; });
      case Kind::beyond_range: return moved_beyond_key_range(rng, band_point(), h);
    }
    return {};
  }

  /// Per storage: Grid<S>::sample against the trilinear of the stored and of the exact node values.
  Outcome measure(const BakedPart& part, const Point& p) const {
    const double band_width = band * h;
    const reference::Cell cell = reference::cell_of(p, h);
    const reference::Corners exact = reference::corners_of(cell, [&](std::int64_t i, std::int64_t j, std::int64_t k) {
      return reference::exact_node_value(*part.exact, i, j, k, h, band);
    });
    const HighPrecision from_exact = reference::trilinear(exact, cell.t);
    const ErrorValue method =
        distance_error(from_exact, reference::exact_point_value(*part.exact, p, h, band), h, band_width);
    Outcome out;
    for (const AnyStoredGrid& stored : part.storages)
      std::visit(
          [&](const auto& g) {
            const reference::Corners corners = reference::corners_of(
                cell, [&](std::int64_t i, std::int64_t j, std::int64_t k) { return HighPrecision(g.nodes.value(i, j, k)); });
            const HighPrecision from_stored = reference::trilinear(corners, cell.t);
            // The point alone (a fresh accessor: its base brick looked up, a cell across a brick face on
            // the general path), then twice through sample_many: the second query finds the neighbour
            // bricks looked up and takes the accessor's fast path for a cell across one brick face.
            // Both must be right; the one farther from the stored values' trilinear is measured.
            const HighPrecision alone(g.grid->sample(p[0], p[1], p[2]));
            const std::array<Point, 2> twice{p, p};
            std::array<double, 2> again{};
            g.grid->sample_many(twice, again, 1);
            const HighPrecision core =
                abs(HighPrecision(again[1]) - from_stored) > abs(alone - from_stored) ? HighPrecision(again[1]) : alone;
            out.by_storage.push_back({distance_error(core, from_exact, h, band_width),
                                      distance_error(core, from_stored, h, band_width),
                                      distance_error(from_stored, from_exact, h, band_width), method});
          },
          stored);
    return out;
  }

  InputValues record(const Point& p) const { return point_values(p); }

  nlohmann::json row(CalculationResult& r, std::size_t, const std::string& part, const BakedPart&,
                     std::span<const Sample<GridSample>>, const ErrorMaxima& max) const {
    return {{"part", part}, {"max_h", maxima_json(max, r)}};
  }

  nlohmann::json details(nlohmann::json table) const {
    return {{"by_part_and_generator", std::move(table)},
            {"null_means", "a NaN or infinite error (see non_finite in the statistics)"}};
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
