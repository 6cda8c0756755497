#pragma once
// The numerical-accuracy policy page: one self-contained HTML file (inline CSS
// and SVG, the report embedded as JSON, no script, no network) rendered from a
// distgrid-audit report and the sources it names. It reads only the report and
// our sources; it never runs a calculation.
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

namespace distgrid::render {

/// The report schema the page understands.
inline constexpr std::string_view kReportSchema = "distgrid-audit-report/1";

struct PageOptions {
  /// Repository root the report's source files are relative to; their code is read from here.
  std::string source_dir;
  /// How the page names the report (its file name, never a machine path).
  std::string report_name = "report.json";
  /// Calculations whose per-generator table (details.by_part_and_generator) the
  /// limits read for how far from the origin they stay within budget; the audit
  /// fills this from its registry.
  std::vector<std::string> sampling_range_calculations;
  /// A baseline report: every figure then shows its change against it.
  const nlohmann::json* baseline = nullptr;
  std::string baseline_name;
  /// What scripts/mutants wrote (distgrid-mutants/1): the page then shows the
  /// gates' teeth, each mutant and, for every budget, the mutants that trip it.
  const nlohmann::json* mutants = nullptr;
  std::string mutants_name;
  /// What scripts/coverage wrote (distgrid-coverage/1): the page then shows, per
  /// calculation, the lines and branches of its cited code its inputs reach.
  const nlohmann::json* coverage = nullptr;
  std::string coverage_name;
};

/// The files a page is rendered from besides the report; an empty path is not read.
struct PageFiles {
  std::string baseline;  ///< a report to show every figure's change against
  std::string mutants;   ///< scripts/mutants' result
  std::string coverage;  ///< scripts/coverage's result
};

/// The report in `text`, checked to be a JSON object of schema kReportSchema
/// whose "calculations" (if present) is an array. Throws Error(badfile) whose
/// message starts with `name`.
nlohmann::json parse_report(std::string_view text, const std::string& name);

/// The page's HTML. Deterministic: the same report and sources give the same bytes.
/// Sections the report lacks are rendered as notes saying so.
std::string policy_page_html(const nlohmann::json& report, const PageOptions& options);

/// Reads `report_path` (and each file of `files` that is not empty), renders it
/// and writes `out_path` through a temporary file and a rename; the page names
/// the files by their names. Throws Error(badfile) naming the file at fault.
void render_policy_page(const std::string& report_path, const std::string& out_path, PageOptions options,
                        const PageFiles& files = {});

}  // namespace distgrid::render
