#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/audit/reference/density_probe.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "part_inputs.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation field_density_store() {
  return {
      .id = "field.density_store",
      .title = "Density map as stored",
      .declared = PrecisionClass::bits32_in_part,
      .sources = {{"core/src/field_json.cpp", "density"}},
      .formula = "each value of a density map is kept as S when the formula is compiled",
      .inputs = "values uniform in [0, 1], exactly at and a quarter ulp beside float rounding ties, below float's "
                "normal range, just below 1, and decimal fractions k / 1000",
      .implementation = "compile_field<S>, read back exactly at the cell centres of a probe map",
      .reference = "the given double value",
      .errors = "error: stored vs given, in ulps of the given value with its magnitude raised to 1 (the map's full "
                "scale). A stored value has no arithmetic or method to separate.",
      .run = &run,
      .replay = &replay,
  };
}

namespace {

constexpr std::string_view kId = "field.density_store";

enum class Stratum { uniform, float_ties, tiny, near_one, decimal };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::uniform, "uniform", "uniform in [0, 1] on the 2^-53 lattice"},
    {Stratum::float_ties, "float_ties",
     "exactly halfway between two adjacent floats in [2^-20, 1) (round-to-nearest-even decides), or a quarter "
     "float ulp either side of halfway"},
    {Stratum::tiny, "tiny", "below float's normal range, 2^-160 .. 2^-120: subnormal in float, or zero"},
    {Stratum::near_one, "near_one", "1 - k 2^-53, k in 1 .. 2^30: rounds to 1 or just below in float"},
    {Stratum::decimal, "decimal", "k / 1000 for k in 0 .. 1000, as a JSON file written in decimal gives them"},
};

/// Values per probe map: a 64 x 64 x 1 map.
constexpr std::int64_t kSide = 64;
constexpr std::size_t kRow = 64;
constexpr std::size_t kPerMap = kRow * kRow;

double generate_value(const StratumSpec& stratum, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, stratum.name, index);
  switch (stratum.kind) {
    case Stratum::uniform: return rng.unit();
    case Stratum::float_ties: {
      const int exponent = static_cast<int>(rng.integer(-20, -1));
      const auto mantissa = static_cast<double>(rng.integer(1 << 23, (1 << 24) - 1));
      const std::int64_t shift = rng.integer(-1, 1);  // a quarter ulp below, at, or above the tie
      const double tie = std::ldexp(mantissa + 0.5 + 0.25 * static_cast<double>(shift), exponent - 23);
      return std::min(tie, 1.0);
    }
    case Stratum::tiny: {
      const int exponent = static_cast<int>(rng.integer(-160, -120));
      return std::ldexp(1 + rng.unit(), exponent);
    }
    case Stratum::near_one: return 1 - static_cast<double>(rng.integer(1, std::int64_t{1} << 30)) * 0x1p-53;
    case Stratum::decimal: return static_cast<double>(rng.integer(0, 1000)) / 1000;
  }
  return 0;
}

/// The probe map of a block: 64 x 64 unit cells from lo = 0 (so p / 64 * 64 is
/// exact at every centre), the plane z = 0 inside its one z cell.
reference::DensityMapSpec unit_cell_map() {
  reference::DensityMapSpec map;
  map.cells = {kSide, kSide, 1};
  map.lo = {0, 0, -1};
  map.hi = {static_cast<double>(kSide), static_cast<double>(kSide), 1};
  map.v0 = 0;
  map.v1 = 1;
  return map;
}

/// The stored values of a block, read back through the probe.
template <class S>
std::vector<double> stored_values(const std::vector<double>& given) {
  const reference::DensityMapSpec map = unit_cell_map();
  std::vector<double> values = given;
  values.resize(kPerMap, 0.0);  // pad a short block
  const Field<S> probe = compile_field<S>(reference::density_probe_spec(map, values, 2));
  std::vector<double> out(given.size());
  for (std::size_t n = 0; n < given.size(); ++n) {
    const double i = static_cast<double>(n % kRow);
    const double j = static_cast<double>(n / kRow);
    out[n] = reference::probe_number(probe, {i + 0.5, j + 0.5, 0.0});
  }
  return out;
}

ErrorValue value_error(double stored, double given) {
  ErrorValue e;
  e.result = stored;
  e.reference = given;
  e.abs = std::fabs(stored - given);  // exact: both are doubles within a factor 2, or one is tiny
  e.ulps = error_in_ulps(e.abs, given, 1.0);
  return e;
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& s = context.settings();
  // This shard's share of each generator; a value is stored alone (replay
  // stores a block of one), so blocks may start anywhere.
  const InputRange range = context.shard_inputs(s.inputs);
  std::vector<std::vector<double>> given(std::size(kStrata));
  for (std::size_t si = 0; si < std::size(kStrata); ++si)
    for (std::size_t n = range.first; n < range.last; ++n) given[si].push_back(generate_value(kStrata[si], s.seed, n));
  std::vector<CalculationResult> out;
  for (Storage storage : s.storages) {
    CalculationResult r;
    r.storage = storage;
    r.error = ErrorStats(false, false);
    nlohmann::json table = nlohmann::json::array();
    for (std::size_t si = 0; si < std::size(kStrata); ++si) {
      const std::size_t blocks = (range.size() + kPerMap - 1) / kPerMap;
      std::vector<std::vector<double>> stored(blocks);
      context.progress().begin(std::string(kId) + " " + kStrata[si].name, blocks);
      parallel_for(blocks, context.threads(), context.progress(), [&](std::size_t b) {
        const auto first = given[si].begin() + static_cast<std::ptrdiff_t>(b * kPerMap);
        const auto last = given[si].begin() + static_cast<std::ptrdiff_t>(std::min(range.size(), (b + 1) * kPerMap));
        const std::vector<double> block(first, last);
        stored[b] = with_storage(storage, [&]<class S>() { return stored_values<FieldScalarOf<S>>(block); });
      });
      context.progress().end();
      double most = 0;
      std::size_t changed = 0;
      r.begin_unit(s.inputs);
      for (std::size_t k = 0; k < range.size(); ++k) {
        const std::size_t n = range.first + k;
        const double value = stored[k / kPerMap][k % kPerMap];
        const ErrorValue e = value_error(value, given[si][k]);
        changed += e.abs > 0 ? 1u : 0u;
        most = std::fmax(most, e.ulps);
        r.error.add(e, [&] {
          return InputRecord{s.seed, kStrata[si].name, n, "", {{"value", hex_float(given[si][k])}}};
        });
      }
      r.strata.push_back({kStrata[si].name, kStrata[si].description, range.size(), 0});
      table.push_back({{"generator", kStrata[si].name},
                       {"count", range.size()},
                       {"changed_by_storage", changed},
                       {"max_ulps_of_full_scale", finite_or_null(most)}});
    }
    r.details = {{"by_generator", table},
                 {"how_read", "through a shell of the plane z = 0 whose thickness is the map, at the cell centres of "
                              "unit cells, where the interpolation and the blend are exact"}};
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const InputRecord& in = request.input;
  (void)context;
  for (const StratumSpec& stratum : kStrata) {
    if (in.generator != stratum.name) continue;
    const double given = generate_value(stratum, in.seed, in.index);
    const double stored =
        with_storage(request.storage, [&]<class S>() { return stored_values<FieldScalarOf<S>>({given}); })[0];
    return {{"error", hex_float(stored), hex_float(given)}};
  }
  throw Error(ErrorCode::badarg, "replay: field.density_store has no generator \"" + in.generator + "\"");
}

}  // namespace

}  // namespace distgrid::audit::calcs
