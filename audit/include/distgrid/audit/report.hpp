#pragma once
// The JSON report (schema "distgrid-audit-report/1", reports/schema/report.schema.json):
// how the tool was built, the run's settings, and one entry per calculation and
// storage. No number in it is NaN or infinite: an undefined value is written as
// null with a sentence saying why.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "distgrid/audit/calculation.hpp"

namespace distgrid::audit {

inline constexpr const char* kReportSchema = "distgrid-audit-report/1";

/// A number, or null when it is NaN or infinite (the caller says why nearby).
nlohmann::json finite_or_null(double value);

/// {"name": "distgrid-audit", "version": ...}.
nlohmann::json tool_json();
/// Git revision and its commit time, compiler, build type and flags.
nlohmann::json build_json();

/// One ErrorStats as {"count", "non_finite", "h"|"relative"|"ulps"|"bits": {max, mean, rms, p99}, "worst"}.
nlohmann::json error_stats_json(const ErrorStats& stats, const std::string& what);

/// What error_stats_json writes besides the worst inputs, so merge can write
/// merged statistics the same way.
struct ErrorStatsSummaries {
  std::size_t count = 0, non_finite = 0;
  bool has_h = false, has_relative = false;
  std::optional<Summary> h, relative, ulps, bits;
};
nlohmann::json error_stats_json(const std::string& what, const ErrorStatsSummaries& summaries, nlohmann::json worst);

/// One decision's statistics as {"name", "what", "count", "misclassified", "min_margin_ulps", "closest"}.
nlohmann::json decision_stats_json(const std::string& name, const std::string& what, std::uint64_t count,
                                   std::uint64_t misclassified, double min_margin_ulps, nlohmann::json closest);

/// Sets the entry's "measured" class (or null with "measured_null_reason")
/// from its error statistics and mismatches.
void put_measured(nlohmann::json& entry, PrecisionClass declared, std::size_t non_finite,
                  std::optional<double> max_ulps, std::uint64_t mismatches);

/// A shard report entry's "shard_data": what merge needs besides the entry to
/// join the shards' statistics exactly. "statistics" maps the JSON pointer of
/// each ErrorStats in the entry ("/error", "/errors/arithmetic", ...) to
/// {"run_inputs", "worst_order": [[unit, index]...], "series": {unit:
/// series_state_json}}; "decisions" lists {"closest_order"} in the entry's order.
nlohmann::json shard_data_json(const CalculationResult& result);

/// A SeriesState as {"count", "max", "infinite", "sum", "squares", "largest"},
/// doubles as hex-floats, keeping the p99_largest_needed(run_count) largest
/// values (run_count: the single run's count of adds).
nlohmann::json series_state_json(const SeriesState& state, std::uint64_t run_count);
/// The SeriesState a series_state_json wrote. Throws distgrid::Error(badarg)
/// naming `where` when malformed.
SeriesState series_state_from_json(const nlohmann::json& value, const std::string& where);

/// The report entry of one calculation and storage (without its gate).
nlohmann::json calculation_json(const Calculation& calculation, const CalculationResult& result,
                                const std::string& source_dir);

/// The calculation's wall time in seconds (both storages; the first
/// calculation to use a part also pays for baking it) and its inputs per second
/// over every entry of it: the report's timing fields.
void put_timing(nlohmann::json& entry, double seconds, std::size_t evaluations);

/// Findings over the calculation entries, one per calculation id: each
/// calculation no property test is known to cover ({"kind", "id", "message"}).
nlohmann::json findings_json(const nlohmann::json& entries);

/// "pass" when every entry's gate passed, else "fail".
std::string gate_status(const nlohmann::json& entries);

/// Top-level sections a run of every calculation with both storages writes
/// ("claims", "refinement", "comparison"), in that order.
inline constexpr const char* kWholeRunSections[] = {"claims", "refinement", "comparison"};

/// Sets "sections_missing" to the kWholeRunSections the report lacks (a run
/// with --only, one storage, or a shard other than 0), or removes it when none is.
void put_sections_missing(nlohmann::json& report);

/// Throws std::logic_error naming the JSON pointer of the first NaN or infinite number.
void check_all_finite(const nlohmann::json& document);

/// Writes the document to a temporary file beside `path`, then renames it over
/// `path`, so a failed write never leaves a partial report. Throws
/// distgrid::Error(badfile) naming the path.
void write_json_file(const nlohmann::json& document, const std::string& path);

/// Throws distgrid::Error(badfile) naming the path when missing or not JSON.
nlohmann::json read_json_file(const std::string& path);

}  // namespace distgrid::audit
