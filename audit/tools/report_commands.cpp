#include "report_commands.hpp"

#include "option_values.hpp"

#include <cstdio>
#include <string>

#include "distgrid/audit/budget_proposal.hpp"
#include "distgrid/audit/ratchet.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/render/history_page.hpp"
#include "distgrid/reports/compare.hpp"

namespace distgrid::audit::tool {

using distgrid::command_line::Arguments;
using distgrid::command_line::Bound;
using distgrid::command_line::UsageError;

namespace {

constexpr const char* kCompareHelp = R"(usage: distgrid-audit compare BASE.json NEW.json [options]

  --tolerance-bits B          errors may grow or shrink by B bits (log2 of the
                              ratio of errors) and count as unchanged (default
                              0.5); calculations declared exact, decisions and
                              mismatches tolerate nothing
  --allow-different-settings  compare runs whose settings differ (every row then
                              says it compares unlike runs) instead of refusing
  --junit FILE                JUnit XML: a testcase per calculation and storage,
                              per claim and for the report's verdicts
  --markdown FILE             a short summary for a pull-request comment

For every calculation, storage and metric in both reports (each error's max,
p99, mean and RMS in each unit; decisions' misclassified counts; mismatches):
the change in bits (a count's in inputs), classified improved, unchanged or
regressed; calculations, metrics, claims and verdicts (gate, measured class,
float or double) that appeared, disappeared or changed. Reports whose settings
differ (schema, shard, storage, parts, h, band, seed, inputs, quick) are
refused with a badarg error naming the difference. Exit codes: 0 no
regression, 1 a regression, 2 bad usage (an unknown option, an option without
its value, not two reports) or no comparison made: an unreadable report
(badfile), unlike settings or an option value that cannot be used (badarg,
naming the option and the value, such as --tolerance-bits -1).
)";

constexpr const char* kHistoryHelp = R"(usage: distgrid-audit history REPORT.json... --out FILE.html

Writes the accuracy history: one HTML file (inline style and SVG, no script,
no network) with, per calculation, the max error and p99 of each storage over
the reports in the order of their recorded commit times, the budget as a line,
each report's gate status, and every change of a verdict or claim since the
last earlier report with the same settings, with the commit and date of each. Reports with the same
commit and settings are marked duplicates, reports whose settings differ from
the newest are marked unlike; all are shown. The page is written to a temporary
file, then renamed.
)";

constexpr const char* kBudgetsHelp = R"(usage: distgrid-audit budgets REPORT.json --out FILE [--budgets FILE] [--factor K]
       distgrid-audit budgets --ratchet BASE.json [options]

Proposing a budgets file for your own configuration (parts, h, band) from a
report of it:
  --out FILE           the proposed budgets file (required)
  --budgets FILE       the budgets to start from (default: the tool's audit/gates.json)
  --factor K           a budget set from a measurement is K x it, K >= 1 (default 4)
Error models and constants the report meets are kept as they are; a budget it
misses, or a constant that does not apply at its settings, becomes K x the
measurement, holding for the report's h and band, its "why" saying so and
what the starting budget said (a missed model is a finding to look into). An
entry without any budget gets its mismatches, decisions and /error/ulps/max.
Prints how many budgets were kept and how many set from measurements.

Tightening budgets a baseline beats (the ratchet):
  --ratchet BASE.json  tighten the budgets this report beats by more than the margin
  --budgets FILE       the budgets file (default: the tool's audit/gates.json)
  --margin BITS        headroom kept, in bits (default 1: a budget is lowered to
                       twice the baseline's measurement when it allows more)
  --out FILE           write the tightened budgets there (may be --budgets
                       itself); without it nothing is written

Prints the diff it makes (or would make): per budget lowered, its lines before
and after. A budget is lowered to the measurement times 2^margin rounded up
to two significant digits, and its "why" says from what and at which revision.
Budgets at 0, measurements of 0, error models, informational budgets and
metrics the report lacks are left alone. The baseline should be a full run: a
quick run's maxima are smaller.
)";

/// Reads a report, refusing anything that is not a distgrid-audit report.
nlohmann::json read_report(const std::string& path) {
  nlohmann::json report = read_json_file(path);
  const auto schema = report.is_object() ? report.find("schema") : report.end();
  if (schema == report.end() || *schema != kReportSchema)
    throw Error(ErrorCode::badfile, path + ": not a " + std::string(kReportSchema) + " report");
  return report;
}

}  // namespace

int compare_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--tolerance-bits", "--junit", "--markdown"},
                                          {"--allow-different-settings"});
  if (args.help) {
    std::fputs(kCompareHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 2) throw UsageError{"expected BASE.json NEW.json"};
  reports::CompareOptions options;
  options.allow_different_settings = args.has_flag("--allow-different-settings");
  const reports::OutputNames names{args.positional[0], args.positional[1]};
  const auto tolerance = args.get("--tolerance-bits");
  reports::Comparison comparison;
  nlohmann::json current;
  try {
    if (tolerance) options.tolerance_bits = number_value(*tolerance, "--tolerance-bits", 0, Bound::at_least);
    check_outputs(args, {"--junit", "--markdown"});
    const nlohmann::json base = read_report(names.base);
    current = read_report(names.current);
    comparison = reports::compare_reports(base, current, options);
  } catch (const Error& e) {
    // No comparison was made: not a regression (1), so CI can tell the two apart.
    std::fprintf(stderr, "distgrid-audit: %s: %s\n", std::string(error_code_name(e.code())).c_str(), e.what());
    return 2;
  } catch (const nlohmann::json::exception& e) {
    std::fprintf(stderr, "distgrid-audit: badfile: %s or %s is not a valid report: %s\n", names.base.c_str(),
                 names.current.c_str(), e.what());
    return 2;
  }
  std::fputs(reports::comparison_text(comparison, names).c_str(), stdout);
  if (auto junit = args.get("--junit")) replace_file(*junit, reports::comparison_junit(comparison));
  if (auto markdown = args.get("--markdown"))
    replace_file(*markdown, reports::comparison_markdown(comparison, current, names));
  return comparison.regressed() ? 1 : 0;
}

int history_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--out"});
  if (args.help) {
    std::fputs(kHistoryHelp, stdout);
    return 0;
  }
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE.html is required"};
  if (args.positional.empty()) throw UsageError{"expected one or more REPORT.json"};
  check_outputs(args, {"--out"});
  try {
    render::render_history_page(args.positional, *out);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::badfile, "a report is malformed: " + std::string(e.what()));
  }
  std::printf("wrote %s (%zu reports)\n", out->c_str(), args.positional.size());
  return 0;
}

int budgets_command(int argc, char** argv, const char* default_budgets) {
  const Arguments args = Arguments::parse(argc, argv, {"--ratchet", "--budgets", "--margin", "--out", "--factor"});
  if (args.help) {
    std::fputs(kBudgetsHelp, stdout);
    return 0;
  }
  const auto baseline_path = args.get("--ratchet");
  if (!baseline_path) {
    if (args.positional.size() != 1) throw UsageError{"expected one REPORT.json (or --ratchet BASE.json)"};
    if (args.get("--margin")) throw UsageError{"--margin belongs to --ratchet"};
    const auto out = args.get("--out");
    if (!out) throw UsageError{"--out FILE is required"};
    check_outputs(args, {"--out"});
    double factor = 4;
    if (auto f = args.get("--factor")) factor = number_value(*f, "--factor", 1, Bound::at_least);
    const std::string base_path = args.get("--budgets").value_or(default_budgets);
    const std::vector<Budget> base = load_budgets(base_path);
    const std::string& report_path = args.positional.front();
    const nlohmann::json report = read_report(report_path);
    BudgetProposal proposal;
    try {
      proposal = propose_budgets(report, base, factor);
    } catch (const Error& e) {
      throw Error(e.code(), report_path + ": " + e.what());
    }
    replace_file(*out, proposal.text);
    std::printf("budgets: %zu models and %zu constants kept from %s, %zu set to x%g the measurement of %s, %zu "
                "added for unbudgeted entries; wrote %s\n",
                proposal.kept_models, proposal.kept_constants, base_path.c_str(), proposal.from_measurement, factor,
                report_path.c_str(), proposal.added, out->c_str());
    return 0;
  }
  if (args.get("--factor")) throw UsageError{"--factor belongs to a proposal (budgets REPORT.json --out FILE)"};
  if (!args.positional.empty()) throw UsageError{"unexpected argument '" + args.positional.front() + "'"};
  check_outputs(args, {"--out"});
  double margin = 1;
  if (auto m = args.get("--margin")) margin = number_value(*m, "--margin", 0, Bound::at_least);
  const std::string budgets_path = args.get("--budgets").value_or(default_budgets);
  const nlohmann::json baseline = read_report(*baseline_path);
  const std::string before = read_file(budgets_path);
  Ratchet ratchet;
  try {
    ratchet = ratchet_budgets(budgets_path, baseline, margin);
  } catch (const nlohmann::json::exception& e) {
    throw Error(ErrorCode::badfile, *baseline_path + ": a malformed report: " + e.what());
  }
  std::fputs(ratchet_diff(before, ratchet).c_str(), stdout);
  const auto out = args.get("--out");
  if (out) replace_file(*out, ratchet.text);
  std::printf("budgets --ratchet: %zu of %zu budgets %s (margin %g bits; %zu not measured by %s)%s\n",
              ratchet.changes.size(), ratchet.budgets, out ? "lowered" : "would be lowered", margin,
              ratchet.not_measured, baseline_path->c_str(), out ? (", wrote " + *out).c_str() : "");
  return 0;
}

}  // namespace distgrid::audit::tool
