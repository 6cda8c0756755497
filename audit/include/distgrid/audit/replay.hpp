#pragma once
// Replaying one kept input of a report: the run's context is rebuilt from the
// report's settings (h, band, seed, parts), the calculation recomputes the
// input from its record, and the recomputed pair is compared, bit for bit as
// text, with the pair the report holds. Where the input decides several things
// under the quantity's name (bake.plan's six box limits, each a brick_range
// decision), the pair compared is the one equal to the report's, if any.
#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/progress.hpp"

namespace distgrid::audit {

struct ReplayOptions {
  std::string id;                  ///< calculation id
  std::optional<Storage> storage;  ///< default: the report's first entry of the id
  std::size_t rank = 1;            ///< 1: the worst (or closest) kept input
  /// "error", "arithmetic", "storage", "method", or a decision's name.
  std::string quantity = "error";
  unsigned threads = 0;
};

struct ReplayOutcome {
  Storage storage = Storage::float32;
  InputRecord input;
  /// The pair in the report: result and reference (a decision: core and exact).
  std::string report_result, report_reference;
  /// The recomputed pair of the same quantity.
  std::string result, reference;
  /// Every pair the calculation recomputed for the input.
  std::vector<ReplayValue> values;
  /// Empty when both pairs are equal; else a sentence naming the difference.
  std::string difference;
  /// Worker threads the run was rebuilt with (ReplayOptions::threads, 0 resolved).
  unsigned threads = 0;
};

/// Throws distgrid::Error(badarg) naming the option (--calc, --storage, --error,
/// --rank) when the report has no such calculation, storage, quantity or rank, or
/// the calculation cannot replay, and
/// Error(badfile) when the report is malformed.
ReplayOutcome replay_from_report(const nlohmann::json& report, const ReplayOptions& options, Progress& progress);

}  // namespace distgrid::audit
