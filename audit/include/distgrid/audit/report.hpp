#pragma once
// The JSON report (schema "distgrid-audit-report/1", reports/schema/report.schema.json):
// how the tool was built, the run's settings, and one entry per calculation and
// storage. No number in it is NaN or infinite: an undefined value is written as
// null with a sentence saying why.
#include <string>

#include <nlohmann/json.hpp>

#include "distgrid/audit/calculation.hpp"

namespace distgrid::audit {

inline constexpr const char* kReportSchema = "distgrid-audit-report/1";

/// A number, or null when it is NaN or infinite (the caller says why nearby).
nlohmann::json finite_or_null(double value);

/// {"name": "distgrid-audit", "version": ...}.
nlohmann::json tool_json();
/// Git revision, compiler, build type and flags.
nlohmann::json build_json();

/// One ErrorStats as {"count", "non_finite", "h"|"relative"|"ulps"|"bits": {max, mean, rms, p99}, "worst"}.
nlohmann::json error_stats_json(const ErrorStats& stats, const std::string& what);

/// The report entry of one calculation and storage (without its gate).
nlohmann::json calculation_json(const Calculation& calculation, const CalculationResult& result,
                                const std::string& source_dir);

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
