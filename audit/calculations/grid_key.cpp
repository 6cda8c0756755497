#include <cstdint>
#include <limits>
#include <optional>
#include <string>

#include "calculations.hpp"
#include "distgrid/audit/input_rng.hpp"
#include "distgrid/audit/parallel.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/brick_key.hpp"
#include "distgrid/error.hpp"
#include "generator.hpp"

namespace distgrid::audit::calcs {

namespace {
std::vector<CalculationResult> run(RunContext& context);
std::vector<ReplayValue> replay(RunContext& context, const ReplayRequest& request);
}  // namespace

Calculation grid_key() {
  return {
      .id = "grid.key",
      .title = "Brick key and its inverse",
      .declared = PrecisionClass::exact,
      .sources = {{"core/include/distgrid/brick_key.hpp", "brick_key"},
                  {"core/include/distgrid/brick_key.hpp", "brick_of"},
                  {"core/src/brick_key.cpp", "brick_key_checked"}},
      .formula = "key = ((bx + 65536) * 131072 + (by + 65536)) * 131072 + (bz + 65536), each shifted coordinate in "
                 "[0, 131071]; the inverse takes remainders and exact quotients by 131072",
      .inputs = "all 343 combinations of the range edges -65536, -65535, -1, 0, 1, 65534, 65535; uniform coordinates "
                "over the key range; coordinates beyond it, which must be refused",
      .implementation = "brick_key, brick_of, brick_key_valid, brick_key_checked",
      .reference = "the key in 128-bit integers and its three base-2^17 digits, from the convention in docs/conventions.md",
      .errors = "error: the larger of |brick_key - reference key| and |brick_key_checked - reference key| in ulps of the "
                "key as a double, for inputs with a key; mismatches: "
                "inputs with any wrong answer (key, inverse, validity, range refusal, key not exact as a double below "
                "2^51). An integer is right or wrong, so no arithmetic / storage / method split.",
      .run = &run,
      .replay = &replay,
  };
}

namespace {

using reference::BrickTriple;
using reference::Int128;

constexpr std::string_view kId = "grid.key";

/// The range edges of a brick coordinate: both ends, their neighbours, and around 0.
constexpr std::int64_t kEdges[] = {-65536, -65535, -1, 0, 1, 65534, 65535};
constexpr std::size_t kEdgeCount = std::size(kEdges);
/// Coordinates with no key: just beyond each end, and far beyond (to int64's ends).
constexpr std::int64_t kBeyond[] = {-65537, 65536, -(std::int64_t{1} << 40), std::int64_t{1} << 40,
                                    std::numeric_limits<std::int64_t>::min(),
                                    std::numeric_limits<std::int64_t>::max()};

enum class Stratum { range_edges, uniform, beyond_range };

using StratumSpec = Generator<Stratum>;

constexpr StratumSpec kStrata[] = {
    {Stratum::range_edges, "range_edges",
     "every combination of -65536, -65535, -1, 0, 1, 65534, 65535 on the three axes (343 inputs)"},
    {Stratum::uniform, "uniform", "coordinates uniform over [-65536, 65535]; 20 per --inputs"},
    {Stratum::beyond_range, "beyond_range",
     "one to three coordinates without a key (-65537, 65536, +-2^40, int64 min and max), the others "
     "uniform in range: brick_key_checked must refuse them with toolarge"},
};

std::size_t stratum_count(Stratum kind, std::size_t inputs) {
  switch (kind) {
    case Stratum::range_edges: return kEdgeCount * kEdgeCount * kEdgeCount;
    case Stratum::uniform: return 20 * inputs;
    case Stratum::beyond_range: return inputs;
  }
  return 0;
}

/// Input generator: the index-th brick of a stratum.
BrickTriple generate_input(Stratum kind, std::uint64_t seed, std::uint64_t index) {
  if (kind == Stratum::range_edges) {
    return {kEdges[index / (kEdgeCount * kEdgeCount)], kEdges[(index / kEdgeCount) % kEdgeCount],
            kEdges[index % kEdgeCount]};
  }
  InputRng rng(seed, kId, kind == Stratum::uniform ? "uniform" : "beyond_range", index);
  BrickTriple b{};
  for (std::int64_t& c : b) c = rng.integer(-65536, 65535);
  if (kind == Stratum::beyond_range) {
    const auto axes = rng.integer(1, 7);  // a non-empty subset of the axes
    for (std::size_t a = 0; a < 3; ++a)
      if ((axes >> a) & 1) b[a] = kBeyond[static_cast<std::size_t>(rng.integer(0, static_cast<std::int64_t>(std::size(kBeyond)) - 1))];
  }
  return b;
}

/// What the implementation under test answers for one brick.
struct CoreAnswer {
  std::int64_t key = 0;
  BrickCoord inverse;
  bool valid = false;
  std::optional<std::int64_t> checked_key;  ///< what brick_key_checked returned, when it did not throw
  bool refused = false;                      ///< brick_key_checked threw Error(toolarge)
};

CoreAnswer implementation(const BrickTriple& b, bool in_range) {
  CoreAnswer a;
  if (in_range) {
    a.key = distgrid::brick_key(b[0], b[1], b[2]);
    a.inverse = distgrid::brick_of(a.key);
    a.valid = distgrid::brick_key_valid(a.key);
  }
  try {
    a.checked_key = distgrid::brick_key_checked(b[0], b[1], b[2]);
  } catch (const Error& e) {
    a.refused = e.code() == ErrorCode::toolarge;
  }
  return a;
}

struct Outcome {
  BrickTriple input{};
  bool has_key = false;
  ErrorValue error;
  std::string mismatch;  ///< empty when every answer is right
};

Int128 abs_int128(Int128 v) { return v < 0 ? -v : v; }

Outcome check(const BrickTriple& b) {
  Outcome out;
  out.input = b;
  const std::optional<Int128> expected = reference::brick_key_exact(b);
  out.has_key = expected.has_value();
  const CoreAnswer core = implementation(b, out.has_key);
  if (!expected) {
    if (!core.refused) out.mismatch = "brick_key_checked did not refuse a brick without a key";
    return out;
  }
  const Int128 difference = Int128{core.key} - *expected;
  const auto as_double = static_cast<double>(core.key);
  // The error is the worse of the two keys the core gives: brick_key's and brick_key_checked's.
  const std::int64_t worse_key =
      core.checked_key && abs_int128(Int128{*core.checked_key} - *expected) > abs_int128(difference) ? *core.checked_key
                                                                                                  : core.key;
  out.error.abs = static_cast<double>(abs_int128(Int128{worse_key} - *expected));
  out.error.result = static_cast<double>(worse_key);
  out.error.reference = static_cast<double>(*expected);
  out.error.ulps = error_in_ulps(out.error.abs, out.error.reference, 0);
  const std::optional<BrickTriple> decoded = reference::brick_of_key_exact(core.key);
  if (difference != 0) out.mismatch = "brick_key differs from the 128-bit key";
  else if (BrickTriple{core.inverse.bx, core.inverse.by, core.inverse.bz} != b) out.mismatch = "brick_of does not invert brick_key";
  else if (!decoded || *decoded != b) out.mismatch = "the reference decoding does not give the brick back";
  else if (!core.valid) out.mismatch = "brick_key_valid rejects a key brick_key made";
  else if (core.checked_key != core.key) out.mismatch = "brick_key_checked differs from brick_key";
  else if (static_cast<Int128>(as_double) != *expected || as_double >= 0x1p51)
    out.mismatch = "the key is not exact as a double below 2^51";
  return out;
}


std::vector<CalculationResult> run(RunContext& context) {
  const RunSettings& settings = context.settings();
  CalculationResult result;
  result.error = ErrorStats(false, false);
  std::uint64_t mismatches = 0;
  nlohmann::json examples = nlohmann::json::array();
  for (const StratumSpec& stratum : kStrata) {
    const std::size_t count = stratum_count(stratum.kind, settings.inputs);
    const InputRange range = context.shard_inputs(count);
    std::vector<Outcome> outcomes(range.size());
    context.progress().begin(std::string(kId) + " " + stratum.name, range.size());
    parallel_for(range.size(), context.threads(), context.progress(), [&](std::size_t k) {
      outcomes[k] = check(generate_input(stratum.kind, settings.seed, range.first + k));
    });
    context.progress().end();
    result.begin_unit(count);
    for (std::size_t k = 0; k < range.size(); ++k) {
      const std::size_t n = range.first + k;
      const Outcome& o = outcomes[k];
      auto record = [&] {
        InputRecord r{settings.seed, stratum.name, n, {}, {}};
        const char* names[] = {"bx", "by", "bz"};
        for (std::size_t a = 0; a < 3; ++a) r.values.emplace_back(names[a], std::to_string(o.input[a]));
        return r;
      };
      if (o.has_key) result.error.add(o.error, record);
      if (o.mismatch.empty()) continue;
      ++mismatches;
      if (examples.size() < ErrorStats::kWorstKept) {
        const InputRecord r = record();
        nlohmann::json input = nlohmann::json::object();
        for (const auto& [name, value] : r.values) input[name] = value;
        examples.push_back({{"generator", r.generator}, {"index", r.index}, {"input", input}, {"what", o.mismatch}});
      }
    }
    result.strata.push_back({stratum.name, stratum.description, range.size()});
  }
  result.mismatches = mismatches;
  result.details = {{"mismatch_examples", examples}};

  // Keys do not depend on the storage scalar: the same result stands for each.
  std::vector<CalculationResult> results;
  for (Storage s : settings.storages) {
    results.push_back(result);
    results.back().storage = s;
  }
  return results;
}

std::vector<ReplayValue> replay(RunContext& /*context*/, const ReplayRequest& request) {
  const StratumSpec* stratum = nullptr;
  for (const StratumSpec& s : kStrata)
    if (request.input.generator == s.name) stratum = &s;
  if (!stratum) throw Error(ErrorCode::badarg, "grid.key has no generator \"" + request.input.generator + "\"");
  const BrickTriple b{replay_integer(request, "bx"), replay_integer(request, "by"), replay_integer(request, "bz")};
  const bool past_the_edges = stratum->kind == Stratum::range_edges && request.input.index >= kEdgeCount * kEdgeCount * kEdgeCount;
  if (past_the_edges || generate_input(stratum->kind, request.input.seed, request.input.index) != b)
    throw Error(ErrorCode::badarg, "the recorded brick is not the one generator " + request.input.generator +
                                       " draws at index " + std::to_string(request.input.index));
  const Outcome o = check(b);
  if (!o.has_key) throw Error(ErrorCode::badarg, "the recorded brick has no key, so no error was recorded for it");
  // Keys do not depend on the storage: one value for either.
  return {{"error", hex_float(o.error.result), hex_float(o.error.reference)}};
}

}  // namespace

}  // namespace distgrid::audit::calcs
