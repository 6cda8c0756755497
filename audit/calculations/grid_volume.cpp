#include <array>
#include <bit>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <span>
#include <string>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/exact_values.hpp"
#include "distgrid/audit/reference/volume.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/error.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation grid_volume() {
  return {
      .id = "grid.volume",
      .title = "Enclosed volume",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/volume.cpp", "Grid<S>::volume"},
                  {"core/src/volume.cpp", "brick_volume_in_voxels"},
                  {"core/src/volume.cpp", "round_up_to_storage"},
                  {"core/src/volume.cpp", "brick_fraction_sum"}},
      .formula = "V = h^3 * sum over nodes of clamp(1/2 - d / h, 0, 1), an inside brick adding 512; summed in double "
                 "in ascending key order",
      .inputs = "each grid part (formula and mesh parts) baked at the run's h and band (one input per part), and "
                "the same bricks added to a grid in reverse order",
      .implementation = "Grid<S>::volume",
      .reference = "the same sum in high precision over the grid's own bricks (keys decoded by the reference; an "
                   "inside brick counts 512 as the plan classified it): from the stored values, and from exact node "
                   "values clamp(f(i h), +-band h) (a mesh part's f: the exact signed distance to its triangles); the part's "
                   "volume reference: analytic, best known, given, a mesh's polyhedral volume, or estimated",
      .errors = "error: the core's volume vs high precision from exact node values (arithmetic + storage), relative "
                "and in ulps of the reference. Method: high precision from exact node values vs the volume reference, "
                "relative (labelled method_estimated where it is an estimate). Mismatches: parts whose bricks added in "
                "reverse order (the path that sorts them) give a volume with other bits.",
      .run = &run,
      .replay = &replay,
      .concatenated_details = {"/by_part"},
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr std::string_view kId = "grid.volume";
constexpr const char* kGenerator = "default_part";

/// The implementation under test.
template <class S>
double implementation(const Grid<S>& grid) {
  return grid.volume();
}

ErrorValue volume_error(const HighPrecision& result, const HighPrecision& reference) {
  ErrorValue e;
  e.abs = to_double(abs(result - reference));
  e.result = to_double(result);
  e.reference = to_double(reference);
  e.relative = to_double(abs(result - reference) / abs(reference));
  e.ulps = error_in_ulps(e.abs, e.reference, 0);
  return e;
}

/// A node whose double value lies beyond +-h/2 by more than this many voxels
/// has an exact share of exactly 0 or 1: the double formula errs by about 1e-16
/// of the coordinates, ten orders of magnitude below the margin. Only the other
/// nodes (those near the surface) need the high-precision formula.
constexpr double kShareFilterMarginVoxels = 1e-6;
/// One in this many nodes the filter settles is evaluated in high precision
/// anyway, and a disagreement is counted (and the exact share used).
constexpr std::int64_t kShareFilterCheckEvery = 61;

/// Exact shares of one brick, and how the filter fared on it.
struct BrickExact {
  HighPrecision shares = 0;
  std::size_t evaluated = 0;   ///< nodes evaluated in high precision
  std::size_t checked = 0;     ///< of them, nodes the filter had settled
  std::size_t violations = 0;  ///< checked nodes whose exact share differed
};

BrickExact exact_brick(const reference::ExactShape& shape, std::int64_t key, double h, double band) {
  const reference::BrickTriple b = reference::brick_of_stored_key(key);
  const double settled = h / 2 + kShareFilterMarginVoxels * h;
  BrickExact out;
  std::array<double, 512> values;
  shape.approximate_brick(8 * b[0], 8 * b[1], 8 * b[2], h, values.data());
  for (std::int64_t n = 0; n < 512; ++n) {
    const std::int64_t i = 8 * b[0] + (n & 7), j = 8 * b[1] + ((n >> 3) & 7), k = 8 * b[2] + (n >> 6);
    const double rough = values[static_cast<std::size_t>(n)];
    const bool filtered = std::fabs(rough) >= settled;
    const bool check = filtered && (key + n) % kShareFilterCheckEvery == 0;
    if (filtered && !check) {
      out.shares += rough > 0 ? 0 : 1;
      continue;
    }
    const HighPrecision share = reference::voxel_share(reference::exact_node_value(shape, i, j, k, h, band), h);
    ++out.evaluated;
    if (check) {
      ++out.checked;
      if (share != HighPrecision(rough > 0 ? 0 : 1)) ++out.violations;
    }
    out.shares += share;
  }
  return out;
}

/// Exact shares of bricks, by key, shared by the storages of one part (their
/// grids hold the same bricks unless the formula's data differ).
struct ExactShares {
  std::map<std::int64_t, HighPrecision> by_key;
  std::size_t evaluated = 0, checked = 0, violations = 0;
};

template <class S>
void add_exact_shares(RunContext& context, const reference::ExactShape& shape, const Grid<S>& grid,
                      const std::string& label, ExactShares& known) {
  const RunSettings& s = context.settings();
  std::vector<std::int64_t> missing;
  for (std::int64_t key : grid.stored_keys())
    if (!known.by_key.count(key)) missing.push_back(key);
  std::vector<BrickExact> bricks(missing.size());
  context.progress().begin(label, missing.size());
  parallel_for(missing.size(), context.threads(), context.progress(),
               [&](std::size_t n) { bricks[n] = exact_brick(shape, missing[n], s.h, s.band); });
  context.progress().end();
  for (std::size_t n = 0; n < missing.size(); ++n) {
    known.by_key.emplace(missing[n], bricks[n].shares);
    known.evaluated += bricks[n].evaluated;
    known.checked += bricks[n].checked;
    known.violations += bricks[n].violations;
  }
}

struct PartVolumes {
  double core = 0;
  /// The core's volume of the same bricks added in reverse order (reordered_copy).
  double core_reordered = 0;
  HighPrecision from_stored, from_exact;
};

/// The grid's bricks, as encoded, added to a new grid in reverse order (stored
/// and inside bricks alike): the bakes add them in ascending key order, so only
/// such a grid takes volume()'s sorting path.
template <class S>
Grid<S> reordered_copy(const Grid<S>& grid) {
  Grid<S> copy(grid.h(), grid.band());
  copy.reserve(grid.stored_brick_count(), grid.inside_brick_count());
  const auto& keys = grid.stored_keys();
  for (std::size_t slot = keys.size(); slot-- > 0;) {
    const typename Grid<S>::BrickParameters brick = grid.brick_parameters(slot);
    const std::size_t codes = StorageOf<S>::stores_codes(brick) ? kBrickNodes : 0;
    copy.add_encoded_brick(keys[slot], brick, std::span(grid.brick_codes(slot), codes));
  }
  const auto& inside = grid.inside_keys();
  for (auto key = inside.rbegin(); key != inside.rend(); ++key) copy.add_inside(*key);
  return copy;
}

/// Whether the volume of the bricks added in reverse order has other bits: the
/// sum runs in key order whatever order the bricks were added in.
bool order_changes_bits(const PartVolumes& v) {
  return std::bit_cast<std::uint64_t>(v.core) != std::bit_cast<std::uint64_t>(v.core_reordered);
}

template <class S>
PartVolumes measure(RunContext& context, const Grid<S>& grid, const ExactShares& exact, const std::string& label) {
  const auto& keys = grid.stored_keys();
  std::vector<HighPrecision> stored(keys.size()), exact_sums(keys.size());
  context.progress().begin(label, keys.size());
  parallel_for(keys.size(), context.threads(), context.progress(), [&](std::size_t slot) {
    stored[slot] = reference::stored_brick_shares(grid, slot);
  });
  context.progress().end();
  for (std::size_t slot = 0; slot < keys.size(); ++slot) exact_sums[slot] = exact.by_key.at(keys[slot]);
  PartVolumes v;
  v.core = implementation(grid);
  v.core_reordered = implementation(reordered_copy(grid));
  v.from_stored = reference::volume_from_shares(stored, grid.inside_keys().size(), grid.h());
  v.from_exact = reference::volume_from_shares(exact_sums, grid.inside_keys().size(), grid.h());
  return v;
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& settings = context.settings();
  std::array<CalculationResult, kAllStorages.size()> results;
  std::array<nlohmann::json, kAllStorages.size()> tables;
  tables.fill(nlohmann::json::array());
  for (CalculationResult& r : results) {
    r.error = ErrorStats(false, true);
    r.arithmetic = r.storage_error = r.method = ErrorStats(false, true);
    r.strata.push_back({kGenerator, "each grid part of the run, baked at the run's h and band", 0, 0});
    r.mismatches = 0;
  }
  // A part is one indivisible input: a shard measures the parts in its share
  // of the part list (RunContext::shard_inputs), each a unit of one input, and
  // only those parts' rows (merge concatenates the rows in shard order).
  const InputRange owned = context.shard_inputs(context.part_count());
  for (std::size_t part_index = 0; part_index < context.part_count(); ++part_index) {
    if (part_index < owned.first || part_index >= owned.last) {
      for (CalculationResult& r : results) r.begin_unit(1);
      continue;
    }
    PartSubject& part = context.part(part_index);
    const DefaultPart& info = part.part();
    const reference::ExactShape& shape = part.shape(Placement::origin);
    if (part.mesh()) context.mark_untrusted(*part.mesh());
    ExactShares exact;
    const std::string label = std::string(kId) + " " + info.name + " exact nodes";
    for (Storage storage : settings.storages) {
      const auto s = static_cast<std::size_t>(storage);
      PartVolumes v;
      std::size_t stored_bricks = 0, inside_bricks = 0;
      auto run_storage = [&](const auto& grid) {
        add_exact_shares(context, shape, grid, label, exact);
        v = measure(context, grid, exact,
                    std::string(kId) + " " + info.name + " " + std::string(storage_name(storage)) + " stored nodes");
        stored_bricks = grid.stored_brick_count();
        inside_bricks = grid.inside_brick_count();
      };
      with_storage(storage, [&]<class S>() { run_storage(part.grid<S>(Placement::origin)); });

      CalculationResult& r = results[s];
      r.begin_unit(1);
      const HighPrecision core(v.core);
      auto record = [&] {
        return InputRecord{settings.seed, kGenerator, part_index, info.name,
                           {{"h", hex_float(settings.h)}, {"band", hex_float(settings.band)}}};
      };
      const ErrorValue error = volume_error(core, v.from_exact), arithmetic = volume_error(core, v.from_stored),
                       storage_error = volume_error(v.from_stored, v.from_exact);
      r.error.add(error, record);
      *r.mismatches += order_changes_bits(v) ? 1u : 0u;
      r.arithmetic->add(arithmetic, record);
      r.storage_error->add(storage_error, record);
      const VolumeReference& truth = part.volume_reference();
      const ErrorValue method = volume_error(v.from_exact, HighPrecision(truth.volume));
      r.method->add(method, record);
      const nlohmann::json method_relative = finite_or_null(*method.relative);
      r.strata[0].count += 1;
      tables[s].push_back(
          {{"part", info.name},
           {"stored_bricks", stored_bricks},
           {"inside_bricks", inside_bricks},
           {"core", finite_or_null(v.core)},
           {"core_hex", hex_float(v.core)},
           {"core_bricks_in_reverse_order_hex", hex_float(v.core_reordered)},
           {"from_stored", finite_or_null(to_double(v.from_stored))},
           {"from_exact_nodes", finite_or_null(to_double(v.from_exact))},
           {"analytic", truth.estimated ? nlohmann::json(nullptr) : finite_or_null(truth.volume)},
           {"analytic_exact", info.volume_exact},
           {"exact_nodes", {{"evaluated", exact.evaluated},
                            {"filter_checked", exact.checked},
                            {"filter_violations", exact.violations}}},
           {"analytic_uncertainty", finite_or_null(truth.estimated ? 0.0 : truth.uncertainty)},
           {"analytic_source", truth.estimated ? "no analytic volume: the method error is against an estimate "
                                                 "(method_estimate)"
                                               : truth.source},
           {"method_estimated", truth.estimated},
           {"method_estimate", truth.estimate ? volume_estimate_json(*truth.estimate) : nlohmann::json(nullptr)},
           {"relative", {{"error", finite_or_null(*error.relative)},
                         {"arithmetic", finite_or_null(*arithmetic.relative)},
                         {"storage", finite_or_null(*storage_error.relative)},
                         {"method", method_relative}}}});
    }
  }
  std::vector<CalculationResult> out;
  for (Storage storage : settings.storages) {
    const auto s = static_cast<std::size_t>(storage);
    results[s].storage = storage;
    results[s].details = {
        {"by_part", tables[s]},
        {"null_means", "a NaN or infinite value, or no analytic volume for the part"},
        {"exact_nodes",
         "only nodes whose double value is within h/2 + 1e-6 h of the surface are evaluated in high precision; "
         "the others share exactly 0 or 1. One in 61 of those is evaluated anyway (filter_checked) and a "
         "different share counted (filter_violations) and used."}};
    out.push_back(std::move(results[s]));
  }
  return out;
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const RunSettings& settings = context.settings();
  if (request.input.generator != kGenerator)
    throw Error(ErrorCode::badarg, "grid.volume has no generator \"" + request.input.generator + "\"");
  if (replay_double(request, "h") != settings.h || replay_double(request, "band") != settings.band)
    throw Error(ErrorCode::badarg, "the recorded h and band are not the report's settings");
  PartSubject* part = context.find_part(request.input.part);
  if (!part) throw Error(ErrorCode::badarg, "the run has no part \"" + request.input.part + "\"");
  const DefaultPart& info = part->part();
  const reference::ExactShape& shape = part->shape(Placement::origin);
  ExactShares exact;
  PartVolumes v;
  auto measure_grid = [&](const auto& grid) {
    add_exact_shares(context, shape, grid, std::string(kId) + " " + info.name + " exact nodes", exact);
    v = measure(context, grid, exact, std::string(kId) + " " + info.name + " stored nodes");
  };
  with_storage(request.storage, [&]<class S>() { measure_grid(part->grid<S>(Placement::origin)); });
  const auto value = [](const char* name, const ErrorValue& e) {
    return ReplayValue{name, hex_float(e.result), hex_float(e.reference)};
  };
  const HighPrecision core(v.core);
  std::vector<ReplayValue> values{value("error", volume_error(core, v.from_exact)),
                                  value("arithmetic", volume_error(core, v.from_stored)),
                                  value("storage", volume_error(v.from_stored, v.from_exact))};
  values.push_back(value("method", volume_error(v.from_exact, HighPrecision(part->volume_reference().volume))));
  return values;
}

}  // namespace

}  // namespace distgrid::audit::calcs
