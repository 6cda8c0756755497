#pragma once
// The audit's catalogue: every audited calculation is described once, by a
// descriptor defined in its own file audit/calculations/<id>.cpp beside its
// measurement, and listed in audit/calculations/registry.cpp: its id, title,
// declared precision, where its code lives, the formula, how its inputs are
// drawn, the core entry point under test, the independent reference, and what
// generic code (merge, the policy page) needs to know about it. Budgets are
// looked up by (id, storage) in gates.json.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/decision_stats.hpp"
#include "distgrid/audit/error_stats.hpp"
#include "distgrid/audit/storage.hpp"

namespace distgrid::audit {

class RunContext;

/// Precision classes of the policy page, plus `inexact` for a calculation that
/// should be exact and was measured not to be.
enum class PrecisionClass { exact, bits64, bits32_in_part, bits16_in_part, bits8_in_part, inexact };

/// "exact", "64-bit", "32-bit in part", "16-bit in part", "8-bit in part", "inexact".
std::string_view precision_name(PrecisionClass c) noexcept;

/// Largest error, in ulps of double (error_in_ulps), that still counts as 64-bit:
/// 1024 ulps, 10 of 53 bits spoiled. A value that went through a float keeps
/// at most 24 bits, about 2^28 ulps off; even a volume, whose sum averages the
/// roundings of many nodes, stays above 2^13 ulps. A 64-bit formula's own
/// rounding (including the double distance formula at |p| a few times band*h)
/// measures tens of ulps.
inline constexpr double kSixtyFourBitMaxUlps = 1024;

/// Measured class: exact when no input erred, inexact when an exact calculation
/// mismatched, 64-bit up to kSixtyFourBitMaxUlps, else the class of the narrowest
/// numbers the values went through: 32-bit in part for float and double bricks
/// (float in the chain), 16-bit for half and q16, 8-bit for q8 (`storage_bits`).
PrecisionClass measured_class(double max_ulps, std::uint64_t mismatches, PrecisionClass declared,
                              int storage_bits = 32) noexcept;

/// A function definition in our sources; the report resolves its line range.
struct SourceRef {
  std::string_view file;      ///< relative to the repository root
  std::string_view function;  ///< name as written at the definition, e.g. "Grid<S>::sample"
  /// Why the calculation's inputs leave part of the function unrun: the paths no
  /// input through the public interface reaches with a result worth comparing
  /// (scripts/coverage shows it beside the figures). Empty: every path is reachable.
  std::string_view unreached = {};
};

/// How many inputs one generator (stratum) drew, and how.
struct StratumCount {
  std::string name;
  std::string description;
  std::size_t count = 0;
  /// Inputs for which a rejection generator found no point meeting its
  /// condition and kept its last draw instead.
  std::size_t fallbacks = 0;
};

/// Everything measured for one calculation and one storage.
struct CalculationResult {
  Storage storage = Storage::float32;
  std::vector<StratumCount> strata;
  /// The core's result against the high-precision value from exact node values:
  /// all the number types cost (arithmetic + storage), not the method.
  ErrorStats error{false, false};
  /// Present where they apply; see docs/audit.md, "Errors".
  std::optional<ErrorStats> arithmetic, storage_error, method;
  /// Present for calculations declared exact: inputs with any wrong answer.
  std::optional<std::uint64_t> mismatches;
  /// The calculation's decisions against their exact answers (may be empty).
  std::vector<DecisionStats> decisions;
  /// Calculation-specific table (for example the volume of each part); may be null.
  nlohmann::json details;

  /// Starts the next generator unit of `run_inputs` inputs (in the single run)
  /// on every statistics: error, separated errors, decisions. A calculation
  /// that splits its inputs calls it before adding each unit's share, in the
  /// same unit order in every shard (ErrorStats::begin_unit).
  void begin_unit(std::uint64_t run_inputs) noexcept;
};

/// One recorded input to compute again: the storage it was measured for and
/// the record a report kept (seed, generator, index, part, values).
struct ReplayRequest {
  Storage storage = Storage::float32;
  InputRecord input;
};

/// One recomputed value pair of a replayed input, named like the report's
/// entry it reproduces: "error", "arithmetic", "storage", "method" (result and
/// reference as hex-float, as in the report's worst inputs) or a decision's
/// name (the core's and the exact answer, as in the decision's kept inputs).
struct ReplayValue {
  std::string name;
  std::string result;
  std::string reference;
};

/// The named value of a replayed input's record, as text. Throws
/// distgrid::Error(badarg) naming the value when the record lacks it.
const std::string& replay_text(const ReplayRequest& request, std::string_view name);
/// The named value read as a double (hex-float or decimal, exactly); badarg when not one.
double replay_double(const ReplayRequest& request, std::string_view name);
/// The named value read as a whole number; badarg when not one.
std::int64_t replay_integer(const ReplayRequest& request, std::string_view name);

/// The kind of the run's parts a calculation draws from: `grid`, the grids
/// baked from every part, formula or mesh (RunContext::part); `formula`, the
/// compiled formulas only, so every mesh part of the run is listed in the
/// entry's parts_skipped; `mesh`, the mesh parts' triangles. A calculation lists
/// there any other part it cannot use, with the reason (RunContext::skip_part).
enum class PartsTaken { none, formula, grid, mesh };

struct Calculation {
  std::string_view id;
  std::string_view title;
  PrecisionClass declared;
  std::vector<SourceRef> sources;
  std::string_view formula;
  std::string_view inputs;          ///< the input generators, in a sentence or two
  std::string_view implementation;  ///< the core entry points under test
  std::string_view reference;       ///< what the reference computes, without core
  std::string_view errors;          ///< what the error, and each separated error, compare
  /// Draws the inputs, runs implementation and reference, and returns one
  /// result per storage the run asks for.
  std::vector<CalculationResult> (*run)(RunContext& context);
  /// Recomputes one recorded input bit for bit from its record (drawing it
  /// again from seed, generator and index where the record's values are not
  /// enough). Throws distgrid::Error(badarg) for a record it cannot replay.
  std::vector<ReplayValue> (*replay)(RunContext& context, const ReplayRequest& request) = nullptr;
  /// Lists in `details` (JSON pointers) of a calculation that deals whole units
  /// (a part each) to the shards: each shard lists only its own units' rows, and
  /// merge concatenates the lists in shard order instead of joining them row by row.
  std::vector<std::string_view> concatenated_details = {};
  /// The policy page's limits say, from this calculation's per-generator table
  /// (details.by_part_and_generator), how far from the origin it stays within budget.
  bool page_sampling_range = false;
  PartsTaken parts_taken = PartsTaken::none;
};

/// The registry, in report order (audit/calculations/registry.cpp).
const std::vector<Calculation>& calculations();
/// nullptr when no calculation has this id.
const Calculation* find_calculation(std::string_view id);
/// The ids of the calculations with page_sampling_range, in report order.
std::vector<std::string> page_sampling_range_ids();

}  // namespace distgrid::audit
