// distgrid-audit: measure the precision of distgrid's calculations against
// high-precision references, write the JSON report, and gate it against budgets.
// Exit codes: 0 success (gate: every budget met), 1 failure (gate: a budget
// missed, or a typed error 'distgrid-audit: <code>: <message>'), 2 bad usage.
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/claim_gate.hpp"
#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/gate.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/render/policy_page.hpp"

namespace {

using distgrid::Error;
using distgrid::ErrorCode;
namespace audit = distgrid::audit;
using distgrid::command_line::Arguments;
using distgrid::command_line::parse_count;
using distgrid::command_line::parse_number;
using distgrid::command_line::UsageError;

constexpr const char* kMainHelp = R"(usage: distgrid-audit <command> [options]

Commands:
  run    measure the calculations and write a JSON report
  gate   check a report against the precision budgets
  list   print the registered calculations, claims and default parts
  render write the policy page (one self-contained HTML file) from a report

Run 'distgrid-audit <command> --help' for a command's options.
Exit codes: 0 success (gate: all budgets met), 1 a budget missed or a failure
(printed as 'distgrid-audit: <code>: <message>'), 2 bad usage.
)";

constexpr const char* kRunHelp = R"(usage: distgrid-audit run --out FILE [options]

  --storage float|double|both  brick storage to audit (default both)
  --part NAME        a default part (repeatable; default: all of them)
  --calc ID          a calculation id (repeatable; default: all of them)
  --h H              voxel size (default 1/64; decimal or hex-float)
  --band B           band half-width in voxels, >= 1 (default 3)
  --seed S           input seed, below 2^53 (default 20261201)
  --inputs N         inputs per generator and part (default 10000)
  --threads N        worker threads (default: all; results do not depend on it)
  --budgets FILE     gates file for the report's gate statuses (default: audit/gates.json)
  --source-dir DIR   repository root, to find the sources' line ranges (default: this build's)
  --out FILE         the report (written to a temporary file, then renamed)

Every input is drawn from (seed, calculation, generator, index): a run with
fewer inputs audits the first inputs of a larger one.
)";

constexpr const char* kGateHelp = R"(usage: distgrid-audit gate REPORT.json [--budgets FILE]

Checks every calculation of the report against its budgets (default:
audit/gates.json), and every claim the gates file records as verified against
the report's verdict. Prints each check; exits 1 listing each calculation and
storage that missed a budget or has none and each recorded claim now refuted,
0 when all pass.
)";

constexpr const char* kRenderHelp = R"(usage: distgrid-audit render REPORT.json --out FILE.html [--source-dir DIR]

Writes the numerical-accuracy policy page: one HTML file with inline style and
charts and the report embedded, that opens offline. The code of each
calculation is read from the sources under DIR (default: this build's
repository root). A report that lacks sections renders what it has and says
what is missing; a file that is not a distgrid-audit report fails with badfile.
The page is written to a temporary file, then renamed.
)";

/// A finite number in decimal or hex-float.
double parse_finite(const std::string& text, const std::string& what) {
  const double v = parse_number(text, what);
  if (!std::isfinite(v)) throw UsageError{what + " expects a finite number, got '" + text + "'"};
  return v;
}

int run_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(
      argc, argv,
      {"--storage", "--part", "--calc", "--h", "--band", "--seed", "--inputs", "--threads", "--budgets",
       "--source-dir", "--out"});
  if (args.help) {
    std::fputs(kRunHelp, stdout);
    return 0;
  }
  if (!args.positional.empty()) throw UsageError{"unexpected argument '" + args.positional.front() + "'"};
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE is required"};

  audit::RunSettings settings;
  if (auto storage = args.get("--storage")) {
    if (*storage == "both") settings.storages = {audit::Storage::float32, audit::Storage::float64};
    else if (auto s = audit::parse_storage(*storage)) settings.storages = {*s};
    else throw UsageError{"--storage expects float, double or both, got '" + *storage + "'"};
  }
  settings.parts = args.all("--part");
  for (const std::string& name : settings.parts) {
    bool known = false;
    for (const distgrid::DefaultPart& p : distgrid::default_parts()) known = known || p.name == name;
    if (!known) throw UsageError{"--part: unknown part '" + name + "' (see 'list')"};
  }
  settings.calculations = args.all("--calc");
  for (const std::string& id : settings.calculations)
    if (!audit::find_calculation(id)) throw UsageError{"--calc: unknown calculation '" + id + "' (see 'list')"};
  if (auto h = args.get("--h")) settings.h = parse_finite(*h, "--h");
  if (auto band = args.get("--band")) settings.band = parse_finite(*band, "--band");
  if (!(settings.h > 0)) throw UsageError{"--h must be > 0"};
  if (!(settings.band >= 1)) throw UsageError{"--band must be >= 1"};
  if (auto seed = args.get("--seed")) settings.seed = parse_count(*seed, "--seed", 0, (std::uint64_t{1} << 53) - 1);
  if (auto inputs = args.get("--inputs")) settings.inputs = parse_count(*inputs, "--inputs", 1, 100000000);
  if (auto threads = args.get("--threads"))
    settings.threads = static_cast<unsigned>(parse_count(*threads, "--threads", 1, 1024));
  settings.budgets_path = args.get("--budgets").value_or(DISTGRID_AUDIT_GATES);
  settings.source_dir = args.get("--source-dir").value_or(DISTGRID_SOURCE_DIR);

  audit::Progress progress;
  const nlohmann::json report = audit::run_audit(settings, progress);
  audit::write_json_file(report, *out);
  for (const nlohmann::json& entry : report["calculations"]) {
    const nlohmann::json& e = entry["error"];
    const std::string unit = e.contains("h") ? "h" : e.contains("relative") ? "relative" : "ulps";
    const nlohmann::json& max = e[unit]["max"];
    std::printf("%-12s %-6s measured %-15s declared %-15s max error %s %s, gate %s\n",
                entry["id"].get<std::string>().c_str(), entry["storage"].get<std::string>().c_str(),
                entry["measured"].is_null() ? "-" : entry["measured"].get<std::string>().c_str(),
                entry["declared"].get<std::string>().c_str(), max.is_null() ? "null" : max.dump().c_str(),
                unit.c_str(), entry["gate"]["status"].get<std::string>().c_str());
  }
  if (report.contains("claims"))
    for (const nlohmann::json& claim : report["claims"])
      std::printf("claim %-42s %s\n", claim["id"].get<std::string>().c_str(), claim["verdict"].get<std::string>().c_str());
  if (report.contains("comparison"))
    std::printf("float or double: %s\n", report["comparison"]["verdict"]["decision"].get<std::string>().c_str());
  std::printf("wrote %s (%.1f s)\n", out->c_str(), report["run_seconds"].get<double>());
  return 0;
}

int gate_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--budgets"});
  if (args.help) {
    std::fputs(kGateHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1) throw UsageError{"expected one REPORT.json"};
  const std::string report_path = args.positional.front();
  const std::string budgets_path = args.get("--budgets").value_or(DISTGRID_AUDIT_GATES);
  const std::vector<audit::Budget> budgets = audit::load_budgets(budgets_path);
  const nlohmann::json report = audit::read_json_file(report_path);
  std::vector<audit::GateFailure> failures;
  try {
    failures = audit::check_report(report, budgets);
  } catch (const Error& e) {
    throw Error(e.code(), report_path + ": " + e.what());
  }
  for (audit::GateFailure& f : audit::check_claims(report, audit::load_claim_gates(budgets_path)))
    failures.push_back(std::move(f));
  std::size_t entries = report["calculations"].size();
  for (const audit::GateFailure& f : failures)
    std::printf("FAIL %s %s: %s\n", f.id.c_str(), f.storage.c_str(), f.message.c_str());
  if (failures.empty()) {
    std::printf("gate: all budgets met for %zu calculation entries of %s (budgets %s)\n", entries,
                report_path.c_str(), budgets_path.c_str());
    return 0;
  }
  std::printf("gate: %zu budget(s) missed in %s (budgets %s)\n", failures.size(), report_path.c_str(),
              budgets_path.c_str());
  return 1;
}

int render_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--out", "--source-dir"});
  if (args.help) {
    std::fputs(kRenderHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1) throw UsageError{"expected one REPORT.json"};
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE.html is required"};
  distgrid::render::render_policy_page(args.positional.front(), *out,
                                       args.get("--source-dir").value_or(DISTGRID_SOURCE_DIR));
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

int list_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {});
  if (args.help || !args.positional.empty()) {
    if (!args.help) throw UsageError{"list takes no arguments"};
    std::fputs("usage: distgrid-audit list\n", stdout);
    return 0;
  }
  std::printf("calculations:\n");
  for (const audit::Calculation& c : audit::calculations())
    std::printf("  %-12s %-15s %s\n", std::string(c.id).c_str(), std::string(audit::precision_name(c.declared)).c_str(),
                std::string(c.title).c_str());
  std::printf("claims:\n");
  for (const audit::Claim& c : audit::claims())
    std::printf("  %-42s %s\n", std::string(c.id).c_str(), std::string(c.statement).c_str());
  std::printf("default parts:\n");
  for (const distgrid::DefaultPart& p : distgrid::default_parts())
    std::printf("  %-12s %s\n", p.name.c_str(), p.description.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return distgrid::command_line::run_tool("distgrid-audit", [&] {
    if (argc < 2) throw UsageError{"no command given"};
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(kMainHelp, stdout);
      return 0;
    }
    if (command == "run") return run_command(argc, argv);
    if (command == "gate") return gate_command(argc, argv);
    if (command == "list") return list_command(argc, argv);
    if (command == "render") return render_command(argc, argv);
    throw UsageError{"unknown command '" + command + "'"};
  });
}
