#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <string>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "part_inputs.hpp"
#include "stratified.hpp"

namespace distgrid::audit::calcs {

namespace {
struct BakeNodeValues;  // the measurement, below
}  // namespace

Calculation bake_node_values() {
  return {
      .id = "bake.node_values",
      .title = "Node values of a brick",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/bake.cpp", "bake_brick"}, {"core/include/distgrid/brick_key.hpp", "brick_node_positions"}},
      .formula = "value = clamp(f(i h, j h, k h), -band h, band h), f in double at the node positions (b * 8 + n) * "
                 "h, stored as S",
      .inputs = "per part: nodes with |f| < h, nodes in the band, nodes within h/8 of the clamp at +-band h, and band "
                "nodes of the part's copy translated ~5e5 h from the origin",
      .implementation = "bake (bake_brick) through the run's grids, read with the audit's own key map",
      .reference = "clamp(f(i h), +-band h) in high precision at exact positions: Field<double> for the error, "
                   "Field<S> (the formula with its data as stored) for the arithmetic",
      .errors = "error: stored value vs high precision (Field<double>), in h and in ulps of band h. arithmetic: the "
                "core's double before storage vs high precision of the same formula; storage: stored vs that double. "
                "No method error: a node value is the formula's value (null).",
      .run = &run_stratified<BakeNodeValues>,
      .replay = &replay_stratified<BakeNodeValues>,
      .parts_taken = PartsTaken::formula,
  };
}

namespace {

using Node = std::array<std::int64_t, 3>;

enum class Kind { near_surface, band, band_edge, far };

constexpr int kTries = 4000;

struct BakeNodeValues : OnBakedParts {
  static constexpr std::string_view id = "bake.node_values";
  static constexpr Generator<Kind> kGenerators[] = {
      {Kind::near_surface, "near_surface", "a node with |f| < h: the values the contour and the volume read"},
      {Kind::band, "band", "a node with |f| < band h"},
      {Kind::band_edge, "band_edge", "a node with | |f| - band h | < h/8: on both sides of the clamp"},
      {Kind::far, "far", "a node with |f| < band h of the part's copy translated by about 5e5 h per axis",
       Placement::far},
  };
  using Input = Node;
  using Outcome = Measured;

  using OnBakedParts::OnBakedParts;
  std::size_t inputs_per_generator(const RunSettings& settings) const { return settings.inputs; }
  void start(CalculationResult& r) const { start_errors_in_h(r, false); }

  Node generate(const BakedPart& part, const Generator<Kind>& generator, std::uint64_t seed, std::uint64_t index,
                bool& fallback) const {
    InputRng rng(seed, id, generator.name, index);
    const double band_width = band * h;
    const auto node_of = [&](const Point& p) {
      return Node{std::llround(p[0] / h), std::llround(p[1] / h), std::llround(p[2] / h)};
    };
    const auto value_at = [&](const Node& n) {
      return part.exact->eval<double>(static_cast<double>(n[0]) * h, static_cast<double>(n[1]) * h,
                                      static_cast<double>(n[2]) * h);
    };
    Node node{};
    for (int t = 0; t < kTries; ++t) {
      node = node_of(draw_point(rng, part.box));
      const double f = std::fabs(value_at(node));
      const bool ok = generator.kind == Kind::near_surface ? f < h
                      : generator.kind == Kind::band_edge  ? std::fabs(f - band_width) < h / 8
                                                           : f < band_width;
      if (ok) return node;
    }
    fallback = true;
    return node;
  }

  /// Per storage: the stored value against high precision of Field<double>, the
  /// bake's double (positions rounded as bake_brick rounds them, then the clamp)
  /// against Field<S> in high precision, and the stored value against that double.
  /// For float bricks of a part with a density map, `error` also holds the map's
  /// own float rounding (field.density_store), which neither split covers.
  Outcome measure(const BakedPart& part, const Node& n) const {
    const double band_width = band * h;
    const HighPrecision exact = reference::exact_node_value(*part.exact, n[0], n[1], n[2], h, band);
    Outcome out;
    for (const AnyStoredGrid& stored : part.storages)
      std::visit(
          [&](const auto& g) {
            const double value = g.nodes.value(n[0], n[1], n[2]);
            const double raw = g.field->template eval<double>(static_cast<double>(n[0]) * h,
                                                              static_cast<double>(n[1]) * h,
                                                              static_cast<double>(n[2]) * h);
            const double core_double = std::min(std::max(raw, -band_width), band_width);
            const HighPrecision same_formula = reference::exact_node_value(*g.field, n[0], n[1], n[2], h, band);
            out.by_storage.push_back({distance_error(HighPrecision(value), exact, h, band_width),
                                      distance_error(HighPrecision(core_double), same_formula, h, band_width),
                                      distance_error(HighPrecision(value), HighPrecision(core_double), h, band_width),
                                      std::nullopt});
          },
          stored);
    return out;
  }

  InputValues record(const Node& n) const {
    return {{"i", std::to_string(n[0])}, {"j", std::to_string(n[1])}, {"k", std::to_string(n[2])}};
  }

  nlohmann::json row(CalculationResult& r, std::size_t, const std::string& part, const BakedPart&,
                     std::span<const Sample<BakeNodeValues>>, const ErrorMaxima& max) const {
    return {{"part", part}, {"max_h", maxima_json(max, r)}};
  }

  nlohmann::json details(nlohmann::json table) const {
    return {{"by_part_and_generator", std::move(table)},
            {"method_null_reason",
             "a node value is the formula's own value at the node: nothing is discretised, so there is no method "
             "error"}};
  }
};

}  // namespace

}  // namespace distgrid::audit::calcs
