#pragma once
// The one driver for stratified runs. A calculation supplies its generators
// (strata), the parts it draws from, an input generator, a measurement and what
// it records; run_stratified draws every generator over every part for this
// shard's share of the indices on the run's threads, adds each input's errors
// to the statistics of every storage the run holds, and writes one table row per
// part and generator. replay_stratified draws a recorded input again, checks it
// is the one the record holds, and measures it.
//
// A stratified calculation C provides:
//   static constexpr std::string_view id;
//   using Subject, Input, Outcome;   Outcome has `std::vector<StorageErrors> by_storage`
//   static constexpr Generator<Kind> kGenerators[];
//   explicit C(RunContext&);
//   std::vector<PartUnit<Subject>> parts(RunContext&);
//   std::size_t inputs_per_generator(const RunSettings&) const;   or, when the
//       count depends on the part, (const RunSettings&, const Subject&) const
//   void start(CalculationResult&) const;      the statistics and decisions it fills
//   Input generate(const Subject&, const Generator<Kind>&, std::uint64_t seed,
//                  std::uint64_t index, bool& fallback) const;
//   Outcome measure(const Subject&, const Input&) const;   every run storage
//   InputValues record(const Input&) const;   the input as text, for the report
//   nlohmann::json row(CalculationResult&, std::size_t storage, const std::string& part,
//                      const Subject&, std::span<const Sample<C>>, const ErrorMaxima&) const;
//   nlohmann::json details(nlohmann::json table) const;   or, with what the
//       calculation gathered per storage, details(nlohmann::json table, std::size_t storage)
// and may provide
//   std::string skip_reason(const Subject&, const Generator<Kind>&) const;   non-empty: the
//       generator is not drawn for that part, listed with the reason in parts_skipped
//   void add_decisions(CalculationResult&, std::size_t storage, const Outcome&, const MakeRecord&) const;
//   std::vector<ReplayValue> replay_decisions(const Outcome&, std::size_t storage) const;
// Storages are indexed by their position in the run's storages (RunSettings::storages).
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/stored_nodes.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/box.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field.hpp"
#include "distgrid/grid.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

/// An input's recorded values, as text (hex-float for doubles, decimal for integers).
using InputValues = std::vector<std::pair<std::string, std::string>>;

/// One input's errors for one storage; the optional ones where the calculation
/// separates them (CalculationResult::arithmetic and so on).
struct StorageErrors {
  ErrorValue error;
  std::optional<ErrorValue> arithmetic, storage, method;
};

/// What a measurement gives that separates no more than the errors: one entry per
/// run storage.
struct Measured {
  std::vector<StorageErrors> by_storage;
};

/// Starts a result whose error and separated errors (arithmetic, storage and,
/// when asked, method) are distances in h.
inline void start_errors_in_h(CalculationResult& r, bool with_method) {
  r.error = ErrorStats(true, false);
  r.arithmetic = r.storage_error = ErrorStats(true, false);
  if (with_method) r.method = ErrorStats(true, false);
}

/// The largest error in h of one part and generator, per separated error, and
/// the largest error in ulps.
struct ErrorMaxima {
  double error = 0, arithmetic = 0, storage = 0, method = 0, error_ulps = 0;
};

/// {"error": ..., "arithmetic": ..., ...}: the maxima in h of the errors the result separates.
nlohmann::json maxima_json(const ErrorMaxima& max, const CalculationResult& result);

/// A part a stratified calculation draws from: its name in records and tables,
/// and its subject at a placement, made on first use.
template <class Subject>
struct PartUnit {
  std::string name;
  std::function<Subject(Placement)> subject;
};

/// A drawn and measured input.
template <class Calc>
struct Sample {
  typename Calc::Input input{};
  bool fallback = false;
  typename Calc::Outcome outcome{};
};

/// A stored grid of one storage: the formula it was baked from, in the number
/// type the core bakes S from (nullptr for a mesh part), the grid and the
/// audit's own reader of its node values.
template <class S>
struct StoredGrid {
  using StorageType = S;
  const Field<FieldScalarOf<S>>* field = nullptr;
  const Grid<S>* grid = nullptr;
  reference::StoredNodes<S> nodes;
};
using AnyStoredGrid =
    std::variant<StoredGrid<float>, StoredGrid<double>, StoredGrid<Half>, StoredGrid<Q16>, StoredGrid<Q8>>;

/// A grid part at one placement as the run baked it.
struct BakedPart {
  std::string name;
  PartSubject* part = nullptr;
  const reference::ExactShape* exact = nullptr;  ///< what the grids approximate (PartSubject::shape)
  Box box;                                       ///< where points are drawn (PartSubject::draw_box)
  std::vector<AnyStoredGrid> storages;           ///< in the order of the run's storages
  /// A mesh part's double grid, where a calculation asked for it (baked_part_units):
  /// the core's double distance at every node before a narrower storage rounds it
  /// (a formula part's is its formula in double).
  std::optional<reference::StoredNodes<double>> mesh_doubles;
};

/// The run's grid parts as units whose subject is the part baked at a placement,
/// with a mesh part's double grid when `with_mesh_doubles`. A mesh part whose
/// sign cannot be trusted is marked so (RunContext::mark_untrusted).
std::vector<PartUnit<BakedPart>> baked_part_units(RunContext& context, bool with_mesh_doubles = false);

/// What the calculations drawing around the run's grid parts share: the run's
/// h and band, and the parts as baked.
struct OnBakedParts {
  using Subject = BakedPart;
  double h, band;
  explicit OnBakedParts(RunContext& context) : h(context.settings().h), band(context.settings().band) {}
  std::vector<PartUnit<BakedPart>> parts(RunContext& context) const { return baked_part_units(context); }
};

/// Error(badarg) unless `values` are the recorded input's values: a record is
/// replayed only when its generator draws it again.
void check_recorded_input(const ReplayRequest& request, const InputValues& values);

/// Position of the storage among the run's storages; Error(badarg) when the run does not hold it.
std::size_t storage_index(const RunContext& context, Storage storage);

/// The replay values of one storage's errors: error, then the separated ones measured.
std::vector<ReplayValue> replay_errors(const StorageErrors& errors);

/// The unit of this name; Error(badarg) otherwise.
template <class Subject>
const PartUnit<Subject>& unit_named(const std::vector<PartUnit<Subject>>& units, const std::string& name) {
  for (const PartUnit<Subject>& u : units)
    if (u.name == name) return u;
  throw Error(ErrorCode::badarg, "replay: the run has no part named \"" + name + "\"");
}

/// Inputs per generator drawn from one subject: the calculation's count for it,
/// or its one count for every part.
template <class Calc>
std::size_t inputs_of(const Calc& calc, const RunSettings& settings, const typename Calc::Subject& subject) {
  if constexpr (requires { calc.inputs_per_generator(settings, subject); })
    return calc.inputs_per_generator(settings, subject);
  else
    return calc.inputs_per_generator(settings);
}

template <class Calc>
std::vector<CalculationResult> run_stratified(RunContext& context) {
  const RunSettings& settings = context.settings();
  Calc calc(context);
  const std::size_t storages = settings.storages.size();
  std::vector<CalculationResult> results(storages);
  std::vector<nlohmann::json> tables(storages, nlohmann::json::array());
  for (std::size_t s = 0; s < storages; ++s) {
    results[s].storage = settings.storages[s];
    results[s].strata = strata_of(Calc::kGenerators);
    calc.start(results[s]);
  }
  for (const PartUnit<typename Calc::Subject>& part : calc.parts(context)) {
    std::optional<typename Calc::Subject> subjects[2];  // by Placement, made on first use
    for (std::size_t g = 0; g < std::size(Calc::kGenerators); ++g) {
      const auto& generator = Calc::kGenerators[g];
      auto& slot = subjects[static_cast<std::size_t>(generator.where)];
      if (!slot) slot.emplace(part.subject(generator.where));
      const typename Calc::Subject& subject = *slot;
      if constexpr (requires { calc.skip_reason(subject, generator); }) {
        std::string reason = calc.skip_reason(subject, generator);
        if (!reason.empty()) {
          context.skip_part(part.name, std::move(reason), std::string(generator.name));
          continue;
        }
      }
      const std::size_t count = inputs_of(calc, settings, subject);
      const InputRange range = context.shard_inputs(count);
      std::vector<Sample<Calc>> samples(range.size());
      context.progress().begin(std::string(Calc::id) + " " + part.name + " " + std::string(generator.name),
                               range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        Sample<Calc>& sample = samples[k];
        sample.input = calc.generate(subject, generator, settings.seed, range.first + k, sample.fallback);
        sample.outcome = calc.measure(subject, sample.input);
      });
      context.progress().end();
      for (std::size_t s = 0; s < storages; ++s) {
        CalculationResult& r = results[s];
        ErrorMaxima max;
        r.begin_unit(count);
        for (std::size_t k = 0; k < range.size(); ++k) {
          const Sample<Calc>& sample = samples[k];
          const StorageErrors& e = sample.outcome.by_storage[s];
          const auto record = [&] {
            return InputRecord{settings.seed, std::string(generator.name), range.first + k, part.name,
                               calc.record(sample.input)};
          };
          r.error.add(e.error, record);
          max.error = std::fmax(max.error, e.error.h.value_or(0));
          max.error_ulps = std::fmax(max.error_ulps, e.error.ulps);
          const auto add = [&](std::optional<ErrorStats>& stats, const std::optional<ErrorValue>& value, double& most) {
            if (!stats || !value) return;
            stats->add(*value, record);
            most = std::fmax(most, value->h.value_or(0));
          };
          add(r.arithmetic, e.arithmetic, max.arithmetic);
          add(r.storage_error, e.storage, max.storage);
          add(r.method, e.method, max.method);
          if constexpr (requires { calc.add_decisions(r, s, sample.outcome, record); })
            calc.add_decisions(r, s, sample.outcome, record);
          r.strata[g].fallbacks += sample.fallback ? 1 : 0;
        }
        r.strata[g].count += range.size();
        nlohmann::json row = calc.row(r, s, part.name, subject, std::span<const Sample<Calc>>(samples), max);
        row["generator"] = generator.name;
        row["count"] = range.size();
        tables[s].push_back(std::move(row));
      }
    }
  }
  for (std::size_t s = 0; s < storages; ++s) {
    if constexpr (requires { calc.details(nlohmann::json(), s); })
      results[s].details = calc.details(std::move(tables[s]), s);
    else
      results[s].details = calc.details(std::move(tables[s]));
  }
  return results;
}

template <class Calc>
std::vector<ReplayValue> replay_stratified(RunContext& context, const ReplayRequest& request) {
  const InputRecord& recorded = request.input;
  Calc calc(context);
  const auto& generator = generator_named(Calc::kGenerators, recorded.generator, Calc::id);
  const std::vector<PartUnit<typename Calc::Subject>> parts = calc.parts(context);
  const typename Calc::Subject subject = unit_named(parts, recorded.part).subject(generator.where);
  bool fallback = false;
  const typename Calc::Input input = calc.generate(subject, generator, recorded.seed, recorded.index, fallback);
  check_recorded_input(request, calc.record(input));
  const std::size_t storage = storage_index(context, request.storage);
  const typename Calc::Outcome outcome = calc.measure(subject, input);
  std::vector<ReplayValue> values = replay_errors(outcome.by_storage.at(storage));
  if constexpr (requires { calc.replay_decisions(outcome, storage); })
    for (ReplayValue& v : calc.replay_decisions(outcome, storage)) values.push_back(std::move(v));
  return values;
}

}  // namespace distgrid::audit::calcs
