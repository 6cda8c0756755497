// bake.node_values: the clamped signed distance a bake stores at a node, in
// float and double bricks.
//
// Implementation under test: bake (bake_brick) through the run's baked grids,
// read back with the audit's own key map (reference::StoredNodes). Per node
// (i, j, k), band h = band * h:
//   error       stored value vs clamp(f(i h, j h, k h), +-band h) in high precision, f the
//               part's formula with its data in double (Field<double>), positions exact;
//   arithmetic  the core's double before storage, clamp(Field<S>::eval<double>(i*h, ...)) with
//               the positions as the bake rounds them (bake_brick's path is bit for bit
//               eval<double>), vs the same formula Field<S> in high precision at exact i h;
//   storage     stored value vs that core double: the rounding into S.
// No method error: a node's value is the formula's value, with nothing discretised.
// For float bricks of a part with a density map, `error` also holds the map's own
// float rounding (audited as field.density_store), which neither split covers.
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "part_inputs.hpp"

namespace distgrid::audit::runs {

namespace {

constexpr std::string_view kId = "bake.node_values";
using Node = std::array<std::int64_t, 3>;

enum class Stratum { near_surface, band, band_edge, far };

struct StratumSpec {
  Stratum kind;
  const char* name;
  const char* description;
  Placement where;
};

constexpr StratumSpec kStrata[] = {
    {Stratum::near_surface, "near_surface", "a node with |f| < h: the values the contour and the volume read",
     Placement::origin},
    {Stratum::band, "band", "a node with |f| < band h", Placement::origin},
    {Stratum::band_edge, "band_edge", "a node with | |f| - band h | < h/8: on both sides of the clamp",
     Placement::origin},
    {Stratum::far, "far", "a node with |f| < band h of the part's copy translated by about 5e5 h per axis",
     Placement::far},
};

constexpr int kTries = 4000;

Node generate_node(const StratumSpec& stratum, const Field<double>& field, const Box& box, double h,
                   double band_width, std::uint64_t seed, std::uint64_t index, bool& fallback) {
  InputRng rng(seed, kId, stratum.name, index);
  const auto node_of = [&](const Point& p) {
    return Node{std::llround(p[0] / h), std::llround(p[1] / h), std::llround(p[2] / h)};
  };
  const auto value_at = [&](const Node& n) {
    return field.eval<double>(static_cast<double>(n[0]) * h, static_cast<double>(n[1]) * h,
                              static_cast<double>(n[2]) * h);
  };
  Node node{};
  for (int t = 0; t < kTries; ++t) {
    node = node_of(draw_point(rng, box));
    const double f = std::fabs(value_at(node));
    const bool ok = stratum.kind == Stratum::near_surface ? f < h
                    : stratum.kind == Stratum::band_edge  ? std::fabs(f - band_width) < h / 8
                                                          : f < band_width;
    if (ok) return node;
  }
  fallback = true;
  return node;
}

/// The subject of one placement: exact formula, and per storage the grid's
/// formula and its stored-node reader.
struct Subject {
  const Field<double>* exact = nullptr;
  const Field<float>* field_float = nullptr;
  const Field<double>* field_double = nullptr;
  std::optional<reference::StoredNodes<float>> nodes_float;
  std::optional<reference::StoredNodes<double>> nodes_double;
  Box box;
};

Subject make_subject(RunContext& context, PartSubject& part, Placement where) {
  const RunSettings& s = context.settings();
  Subject subject;
  subject.exact = &part.field<double>(where);
  if (context.wants(Storage::float32)) {
    subject.field_float = &part.field<float>(where);
    subject.nodes_float.emplace(part.grid<float>(where));
    subject.box = part_draw_box(*subject.exact, part.grid<float>(where), s.h, s.band, part.part().name);
  }
  if (context.wants(Storage::float64)) {
    subject.field_double = &part.field<double>(where);
    subject.nodes_double.emplace(part.grid<double>(where));
    subject.box = part_draw_box(*subject.exact, part.grid<double>(where), s.h, s.band, part.part().name);
  }
  return subject;
}

struct Outcome {
  Node node{};
  bool fallback = false;
  std::array<ErrorValue, 2> error, arithmetic, storage;  // by Storage
};

template <class S>
void measure_storage(const Field<S>& field, const reference::StoredNodes<S>& nodes, const Node& n,
                     const HighPrecision& exact, double h, double band, Outcome& out) {
  const double band_width = band * h;
  const double stored = nodes.value(n[0], n[1], n[2]);
  // The bake's double: positions rounded as the bake computes them, then the clamp.
  const double raw = field.template eval<double>(static_cast<double>(n[0]) * h, static_cast<double>(n[1]) * h,
                                                 static_cast<double>(n[2]) * h);
  const double core_double = std::min(std::max(raw, -band_width), band_width);
  const HighPrecision same_formula = reference::exact_node_value(field, n[0], n[1], n[2], h, band);
  const auto s = static_cast<std::size_t>(storage_of<S>());
  out.error[s] = distance_error(HighPrecision(stored), exact, h, band_width);
  out.arithmetic[s] = distance_error(HighPrecision(core_double), same_formula, h, band_width);
  out.storage[s] = distance_error(HighPrecision(stored), HighPrecision(core_double), h, band_width);
}

Outcome measure(const Subject& subject, const Node& n, double h, double band) {
  Outcome out;
  out.node = n;
  const HighPrecision exact = reference::exact_node_value(*subject.exact, n[0], n[1], n[2], h, band);
  if (subject.nodes_float) measure_storage(*subject.field_float, *subject.nodes_float, n, exact, h, band, out);
  if (subject.nodes_double) measure_storage(*subject.field_double, *subject.nodes_double, n, exact, h, band, out);
  return out;
}

InputRecord node_record(std::uint64_t seed, const char* generator, std::uint64_t index, const std::string& part,
                        const Node& n) {
  return {seed,
          generator,
          index,
          part,
          {{"i", std::to_string(n[0])}, {"j", std::to_string(n[1])}, {"k", std::to_string(n[2])}}};
}

std::vector<ReplayValue> replay_values(const Outcome& o, Storage storage) {
  const auto s = static_cast<std::size_t>(storage);
  const auto pair = [](const char* name, const ErrorValue& e) {
    return ReplayValue{name, hex_float(e.result), hex_float(e.reference)};
  };
  return {pair("error", o.error[s]), pair("arithmetic", o.arithmetic[s]), pair("storage", o.storage[s])};
}

}  // namespace

std::vector<CalculationResult> run_bake_node_values(RunContext& context) {
  const RunSettings& settings = context.settings();
  std::array<CalculationResult, 2> results;
  std::array<nlohmann::json, 2> tables{nlohmann::json::array(), nlohmann::json::array()};
  for (CalculationResult& r : results) {
    r.error = ErrorStats(true, false);
    r.arithmetic = r.storage_error = ErrorStats(true, false);
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
      const std::size_t count = settings.inputs;
      const InputRange range = context.shard_inputs(count);
      std::vector<Outcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + part.part().name + " " + stratum.name, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        bool fallback = false;
        const Node node = generate_node(stratum, *subject.exact, subject.box, settings.h, band_width, settings.seed,
                                        range.first + k, fallback);
        outcomes[k] = measure(subject, node, settings.h, settings.band);
        outcomes[k].fallback = fallback;
      });
      context.progress().end();
      for (Storage storage : settings.storages) {
        const auto s = static_cast<std::size_t>(storage);
        CalculationResult& r = results[s];
        double most_error = 0, most_arithmetic = 0, most_storage = 0;
        r.begin_unit(count);
        for (std::size_t k = 0; k < range.size(); ++k) {
          const std::size_t n = range.first + k;
          const Outcome& o = outcomes[k];
          const auto record = [&] { return node_record(settings.seed, stratum.name, n, part.part().name, o.node); };
          r.error.add(o.error[s], record);
          r.arithmetic->add(o.arithmetic[s], record);
          r.storage_error->add(o.storage[s], record);
          r.strata[si].fallbacks += o.fallback ? 1 : 0;
          most_error = std::fmax(most_error, *o.error[s].h);
          most_arithmetic = std::fmax(most_arithmetic, *o.arithmetic[s].h);
          most_storage = std::fmax(most_storage, *o.storage[s].h);
        }
        r.strata[si].count += range.size();
        tables[s].push_back({{"part", part.part().name},
                             {"generator", stratum.name},
                             {"count", range.size()},
                             {"max_h", {{"error", finite_or_null(most_error)},
                                        {"arithmetic", finite_or_null(most_arithmetic)},
                                        {"storage", finite_or_null(most_storage)}}}});
      }
    }
  }
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    results[s].storage = storage;
    results[s].details = {
        {"by_part_and_generator", tables[s]},
        {"method_null_reason",
         "a node value is the formula's own value at the node: nothing is discretised, so there is no method "
         "error"}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay_bake_node_values(RunContext& context, const ReplayRequest& request) {
  const RunSettings& s = context.settings();
  const InputRecord& in = request.input;
  for (const StratumSpec& stratum : kStrata) {
    if (in.generator != stratum.name) continue;
    PartSubject& part = part_named(context, in.part);
    const Subject subject = make_subject(context, part, stratum.where);
    bool fallback = false;
    const Node node =
        generate_node(stratum, *subject.exact, subject.box, s.h, s.band * s.h, in.seed, in.index, fallback);
    const Outcome o = measure(subject, node, s.h, s.band);
    if (!context.wants(request.storage))
      throw Error(ErrorCode::badarg, "replay: the run does not hold the requested storage");
    return replay_values(o, request.storage);
  }
  throw Error(ErrorCode::badarg, "replay: bake.node_values has no generator \"" + in.generator + "\"");
}

}  // namespace distgrid::audit::runs
