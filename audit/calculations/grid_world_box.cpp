#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "calculations.hpp"
#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/world_box.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/error.hpp"
#include "part_inputs.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation grid_world_box() {
  return {
      .id = "grid.world_box",
      .title = "Box of the stored bricks",
      .declared = PrecisionClass::bits64,
      .sources = {{"core/src/grid.cpp", "Grid<S>::world_box"}, {"core/src/grid.cpp", "Grid<S>::extent"}},
      .formula = "lo = b * 8 * h, hi = (b * 8 + 7) * h per axis over the extreme stored and inside bricks, in double",
      .inputs = "the run's baked parts (origin and far copy); grids of 0 to 4 random bricks (an empty grid has no "
                "box), of bricks on the key range's edges, and of random bricks at voxel sizes that are not powers of "
                "two",
      .implementation = "Grid<S>::world_box",
      .reference = "the extreme bricks of the decoded keys and the products 8 b h, (8 b + 7) h exact in high "
                   "precision",
      .errors = "error: the worst of the six coordinates, in ulps of the exact coordinate and in h. Nothing is stored "
                "or discretised: no arithmetic / storage / method split.",
      .run = &run,
      .replay = &replay,
      .parts_taken = PartsTaken::grid,
  };
}

namespace {

constexpr std::string_view kId = "grid.world_box";

enum class Stratum { random_bricks, range_edges, other_h };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::random_bricks, "random_bricks",
     "a grid of 0 to 4 bricks (stored or inside) anywhere in the key range; an empty grid has no box"},
    {Stratum::range_edges, "range_edges",
     "a grid of 1 to 4 bricks whose coordinates are the key range's edges -65536, -65535, -1, 0, 1, 65534, 65535"},
    {Stratum::other_h, "other_h",
     "as random_bricks, at h times a random factor in [1, 2) (not a power of two, so the products round)"},
};

constexpr std::int64_t kEdges[] = {-65536, -65535, -1, 0, 1, 65534, 65535};

/// A drawn grid: h, and the bricks, each stored or inside.
struct GridInput {
  double h = 0;
  std::vector<std::int64_t> stored, inside;
};

GridInput generate_input(const StratumSpec& stratum, double h, std::uint64_t seed, std::uint64_t index) {
  InputRng rng(seed, kId, stratum.name, index);
  GridInput in;
  in.h = stratum.kind == Stratum::other_h ? h * (1 + rng.unit()) : h;
  const std::int64_t bricks = rng.integer(stratum.kind == Stratum::random_bricks ? 0 : 1, 4);
  for (std::int64_t n = 0; n < bricks; ++n) {
    reference::BrickTriple b{};
    for (std::int64_t& c : b)
      c = stratum.kind == Stratum::range_edges ? kEdges[rng.integer(0, std::size(kEdges) - 1)]
                                               : rng.integer(-65536, 65535);
    const auto key = static_cast<std::int64_t>(*reference::brick_key_exact(b));
    const bool inside = rng.integer(0, 1) == 1;
    auto& list = inside ? in.inside : in.stored;
    if (std::find(in.stored.begin(), in.stored.end(), key) == in.stored.end() &&
        std::find(in.inside.begin(), in.inside.end(), key) == in.inside.end())
      list.push_back(key);
  }
  return in;
}

ErrorValue box_error(const std::optional<Box>& core, const std::optional<reference::ExactBox>& exact, double h,
                     bool& mismatch) {
  ErrorValue worst;
  worst.h = 0.0;
  mismatch = core.has_value() != exact.has_value();
  if (!core || !exact) return worst;
  for (std::size_t c = 0; c < 6; ++c) {
    const double result = c < 3 ? core->lo[c] : core->hi[c - 3];
    const HighPrecision& reference = c < 3 ? exact->lo[c] : exact->hi[c - 3];
    ErrorValue e;
    e.abs = to_double(abs(HighPrecision(result) - reference));
    e.h = e.abs / h;
    e.result = result;
    e.reference = to_double(reference);
    e.ulps = error_in_ulps(e.abs, e.reference, 0);
    if (c == 0 || e.ulps > worst.ulps) worst = e;
  }
  return worst;
}

template <class S>
ErrorValue measure_grid(const Grid<S>& grid, bool& mismatch) {
  return box_error(grid.world_box(), reference::exact_world_box(grid.stored_keys(), grid.inside_keys(), grid.h()),
                   grid.h(), mismatch);
}

template <class S>
ErrorValue measure_input(const GridInput& in, double band, bool& mismatch) {
  Grid<S> grid(in.h, band);
  std::array<double, kBrickNodes> outside{};
  outside.fill(grid.band_width());
  for (std::int64_t key : in.stored) grid.add_brick(key, outside);
  for (std::int64_t key : in.inside) grid.add_inside(key);
  return measure_grid(grid, mismatch);
}

InputRecord grid_record(std::uint64_t seed, const char* generator, std::uint64_t index, const GridInput& in) {
  InputRecord rec{seed, generator, index, "", {{"h", hex_float(in.h)}}};
  const auto list = [](const std::vector<std::int64_t>& keys) {
    std::string text;
    for (std::int64_t key : keys) {
      const reference::BrickTriple b = reference::brick_of_stored_key(key);
      if (!text.empty()) text += ' ';
      text += std::to_string(b[0]);
      text += ',';
      text += std::to_string(b[1]);
      text += ',';
      text += std::to_string(b[2]);
    }
    return text;
  };
  rec.values.emplace_back("stored_bricks", list(in.stored));
  rec.values.emplace_back("inside_bricks", list(in.inside));
  return rec;
}

struct Outcome {
  GridInput input;
  ErrorValue error;
  bool mismatch = false;
};


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& s = context.settings();
  std::vector<CalculationResult> out;
  for (Storage storage : s.storages) {
    CalculationResult r;
    r.storage = storage;
    r.error = ErrorStats(true, false);
    std::uint64_t mismatches = 0;
    nlohmann::json table = nlohmann::json::array();
    // The run's baked parts, at the origin and far away.
    StratumCount parts{"default_parts", "the grid of every grid part of the run (formula and mesh parts), at the origin and its far copy",
                       0, 0};
    // One unit of two inputs per part; a shard measures its share and writes a
    // neutral row (0 ulps, no mismatch) for the others, so merged rows match.
    const std::size_t grid_count = 2 * context.part_count();
    const InputRange grids = context.shard_inputs(grid_count);
    r.begin_unit(grid_count);
    for (std::size_t p = 0; p < context.part_count(); ++p) {
      PartSubject& part = context.part(p);
      for (Placement where : {Placement::origin, Placement::far}) {
        const std::size_t n = 2 * p + (where == Placement::origin ? 0 : 1);
        if (n < grids.first || n >= grids.last) {
          table.push_back({{"part", part.part().name},
                           {"placement", placement_name(where)},
                           {"max_ulps", 0.0},
                           {"box_missing_or_extra", false}});
          continue;
        }
        bool mismatch = false;
        const ErrorValue e = with_storage(storage, [&]<class S>() { return measure_grid(part.grid<S>(where), mismatch); });
        mismatches += mismatch ? 1u : 0u;
        r.error.add(e, [&] {
          return InputRecord{s.seed, "default_parts", n, part.part().name, {{"placement", placement_name(where)}}};
        });
        table.push_back({{"part", part.part().name},
                         {"placement", placement_name(where)},
                         {"max_ulps", finite_or_null(e.ulps)},
                         {"box_missing_or_extra", mismatch}});
        ++parts.count;
      }
    }
    r.strata.push_back(parts);
    for (const StratumSpec& stratum : kStrata) {
      const InputRange range = context.shard_inputs(s.inputs);
      std::vector<Outcome> outcomes(range.size());
      context.progress().begin(std::string(kId) + " " + stratum.name, range.size());
      parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
        Outcome& o = outcomes[k];
        o.input = generate_input(stratum, s.h, s.seed, range.first + k);
        o.error = with_storage(storage, [&]<class S>() { return measure_input<S>(o.input, s.band, o.mismatch); });
      });
      context.progress().end();
      double most = 0;
      r.begin_unit(s.inputs);
      for (std::size_t k = 0; k < range.size(); ++k) {
        const Outcome& o = outcomes[k];
        mismatches += o.mismatch ? 1u : 0u;
        r.error.add(o.error, [&] { return grid_record(s.seed, stratum.name, range.first + k, o.input); });
        most = std::fmax(most, o.error.ulps);
      }
      r.strata.push_back({stratum.name, stratum.description, range.size(), 0});
      table.push_back({{"generator", stratum.name}, {"count", range.size()}, {"max_ulps", finite_or_null(most)}});
    }
    r.details = {{"by_part_and_generator", table}, {"box_missing_or_extra", mismatches}};
    out.push_back(std::move(r));
  }
  return out;
}

std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request) {
  const RunSettings& s = context.settings();
  const InputRecord& in = request.input;
  bool mismatch = false;
  ErrorValue e;
  if (in.generator == "default_parts") {
    PartSubject& part = part_named(context, in.part);
    Placement where = Placement::origin;
    for (const auto& [key, value] : in.values)
      if (key == "placement") where = placement_named(value);
    e = with_storage(request.storage, [&]<class S>() { return measure_grid(part.grid<S>(where), mismatch); });
  } else {
    const StratumSpec* stratum = nullptr;
    for (const StratumSpec& st : kStrata)
      if (in.generator == st.name) stratum = &st;
    if (!stratum) throw Error(ErrorCode::badarg, "replay: grid.world_box has no generator \"" + in.generator + "\"");
    const GridInput input = generate_input(*stratum, s.h, in.seed, in.index);
    e = with_storage(request.storage, [&]<class S>() { return measure_input<S>(input, s.band, mismatch); });
  }
  return {{"error", hex_float(e.result), hex_float(e.reference)}};
}

}  // namespace

}  // namespace distgrid::audit::calcs
