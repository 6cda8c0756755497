#pragma once
// Joining shard reports. Every calculation splits its inputs: it has an entry
// in every shard, each over a contiguous share of every generator's inputs,
// with "shard_data" (exact sums, the largest values p99 needs, the single-run
// order of kept inputs); merge joins them into the single run's entry. Shard 0 also computes the claims, the
// refinement series and the comparison (they need the run's parts, not its
// entries); merge takes them from shard 0 and recomputes the comparison's rows
// from every entry. Only the timing fields (run_seconds, per-calculation
// seconds and evaluations_per_second, settings.threads) may differ from a
// single run.
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace distgrid::audit {

/// The report one run with the shards' settings would have written, from
/// every shard of one split (each index 0..N-1 once, in any order). Throws
/// distgrid::Error(badarg) naming the shard (by `names`) when the reports are
/// not shards of one run: a missing or repeated index, different settings,
/// build or budgets, a calculation missing from a shard or without shard_data, details that cannot be joined,
/// a whole-run section (claims, refinement, comparison) in a shard other than
/// 0, or another section that differs between shards.
nlohmann::json merge_reports(const std::vector<nlohmann::json>& shards, const std::vector<std::string>& names);

}  // namespace distgrid::audit
