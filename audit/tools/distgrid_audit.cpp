// distgrid-audit: measure the precision of distgrid's calculations against
// high-precision references, write the JSON report, and gate it against budgets.
// Exit codes: 0 success (gate: every budget met), 1 failure (gate: a budget
// missed, or a typed error 'distgrid-audit: <code>: <message>', badarg for an
// option value that cannot be used), 2 bad usage (an unknown option, a missing
// value or argument).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include "distgrid/audit/calculation.hpp"
#include "distgrid/audit/claim_gate.hpp"
#include "distgrid/audit/claims.hpp"
#include "distgrid/audit/gate.hpp"
#include "distgrid/audit/merge.hpp"
#include "distgrid/audit/replay.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/render/policy_page.hpp"
#include "distgrid/reports/confidence_headline.hpp"
#include "distgrid/reports/replay_command.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "../src/build_info.hpp"
#include "option_values.hpp"
#include "report_commands.hpp"

namespace {

using distgrid::Error;
using distgrid::ErrorCode;
namespace audit = distgrid::audit;
using distgrid::command_line::Arguments;
using distgrid::command_line::Bound;
using distgrid::command_line::UsageError;
using audit::tool::check_folder;
using audit::tool::check_outputs;
using audit::tool::count_value;
using audit::tool::number_value;

// The data directory, DISTGRID_AUDIT_DATA_DIR relative to this executable (not to
// the working directory): installed, share/distgrid beside bin/.
std::filesystem::path data_dir() {
  std::error_code ec;
  const std::filesystem::path exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return (exe.parent_path() / DISTGRID_AUDIT_DATA_DIR).lexically_normal();
}

std::string default_budgets() { return (data_dir() / "audit" / "gates.json").string(); }

// Empty (the report and the page then say the code was not found) when the data
// directory holds no sources.
std::string default_source_dir() {
  const std::filesystem::path dir = data_dir();
  std::error_code ec;
  return std::filesystem::is_directory(dir / "core", ec) ? dir.string() : std::string();
}

constexpr const char* kMainHelp = R"(usage: distgrid-audit <command> [options]
       distgrid-audit --version

Commands:
  run     measure the calculations and write a JSON report
  gate    check a report against the precision budgets
  replay  recompute one kept input of a report bit for bit
  merge   join the shard reports of a split run into one report
  render  write the policy page (one self-contained HTML file) from a report
  compare compare a report with a baseline report: precision gained or lost, in bits
  history write the accuracy history page from several reports
  budgets propose budgets for a report's settings, or tighten them (--ratchet)
  list    print the registered calculations, claims and default parts

Run 'distgrid-audit <command> --help' for a command's options.
The default budgets (audit/gates.json) and the sources a report cites (core/)
are read from the tool's data directory, )" DISTGRID_AUDIT_DATA_DIR R"( relative to
the executable: installed, a copy of them; in a build tree, the source tree.
Exit codes: 0 success (gate: all budgets met; replay: reproduced; compare: no
regression), 1 a budget missed, a replay that differs, a regression, or a
typed error printed as 'distgrid-audit: <code>: <message>' (badarg: an option
value that cannot be used, such as --h 0 or --storage floot, named with its
option; badfile: a file that cannot be read or written, or is not what it
should be), 2 bad usage: an unknown command or option, an option without its
value, a missing argument (compare: also when no comparison could be made,
a bad option value included).
)";

constexpr const char* kRunHelp = R"(usage: distgrid-audit run --out FILE [options]

  --storage LIST     brick storages to audit: a comma-separated list of float,
                     double, half, q16, q8, or both (float,double, the
                     default) or all (the five)
  --quick            a quick audit: 1000 inputs per generator and part, the
                     first inputs of a default run (CTest gates it)
  --only IDS         calculation ids, comma-separated (default: all of them)
  --calc ID          a calculation id (repeatable; joins --only)
  --part NAME        a default formula part or a built-in mesh part (repeatable;
                     formula and mesh parts are chosen separately: a kind with
                     no name given keeps all its defaults)
  --spec FILE        a user's formula part from a JSON spec (repeatable; the
                     default formula parts are then left out unless named)
  --mesh FILE        a user's mesh part, STL, OBJ or PLY (repeatable; the
                     built-in meshes are then left out unless named); the mesh
                     calculations audit it, and each calculation lists the parts
                     it did not audit, with the reason, in parts_skipped
  --allow-open       accept an open, non-manifold or inconsistently oriented
                     --mesh (refused with openmesh otherwise); every result that
                     depends on its inside is then marked sign_untrusted
  --reference-volume NAME=V  the known volume of spec part NAME (repeatable):
                     the reference of its method error; without one the
                     method error of a spec part's volume is estimated by
                     Richardson extrapolation (bakes at h, h/2, h/4), labelled
  --h H[,H...]       voxel size, or a refinement series whose first value is
                     the h every calculation bakes at (default 1/64; decimal
                     or hex-float)
  --band B           band half-width in voxels, >= 1 (default 3)
  --seed S           input seed, below 2^53 (default 20261201)
  --inputs N         inputs per generator and part (default 10000; --quick 1000)
  --shard I/N        run shard I of N (0 <= I < N): every calculation on its
                     I-th contiguous share of each generator's inputs; shard 0
                     also runs the claims, refinement series and comparison;
                     join with 'merge'
  --threads N        worker threads (default: all; results do not depend on it)
  --properties FILE  'ctest --show-only=json-v1' output: the property tests
                     (labels property and calc:<id>) that cover each calculation
  --budgets FILE     gates file for the report's gate statuses (default: the
                     tool's audit/gates.json, see 'distgrid-audit --help')
  --source-dir DIR   repository root, to find the sources' line ranges (default:
                     the tool's copy of the sources)
  --out FILE         the report (written to a temporary file, then renamed)

Every input is drawn from (seed, calculation, generator, index): a run with
fewer inputs audits the first inputs of a larger one. Prints a summary table;
a progress line goes to stderr while it is a terminal.
)";

constexpr const char* kGateHelp = R"(usage: distgrid-audit gate REPORT.json [--budgets FILE] [--junit FILE] [--json FILE] [--strict]

Checks every calculation of the report against its budgets (default: the
tool's audit/gates.json), and every claim the gates file records as verified against
the report's verdict. A budget is a number or an error model evaluated at the
report's settings (h, band, storage, |x|/h, ...). Prints every shortfall with the
worst input behind it and the 'distgrid-audit replay' command that recomputes
that input, then every budget that is informational (not a gate) or not
applicable at the report's settings (a measured constant outside the settings
it holds for); exits 1 when a calculation and storage missed a budget or has
none, or a recorded claim is now refuted, or on a typed error (badfile for a
report or budgets file that cannot be read or is not one); 0 when all pass.
  --junit FILE  also write JUnit XML: one testcase per calculation and storage
  --json FILE   also write the verdict as JSON: every failure by id, storage and
                metric, and every budget of the gates file (what scripts/mutants
                reads)
  --strict      a budget not applicable at these settings fails too
)";

constexpr const char* kListHelp = R"(usage: distgrid-audit list [--ids]

Prints the registered calculations (id, declared class, title), the claims, the
default parts and the built-in mesh parts.

  --ids   only the calculation ids, one per line, in report order (what the
          properties' CMake labels and the docs' table check read)
)";

constexpr const char* kRenderHelp = R"(usage: distgrid-audit render REPORT.json --out FILE.html [--source-dir DIR]
                             [--baseline BASE.json] [--mutants MUTANTS.json]
                             [--coverage COVERAGE.json]

Writes the numerical-accuracy policy page: one HTML file with inline style and
charts and the report embedded, that opens offline. The code of each
calculation is read from the sources under DIR (default: the tool's copy of
the sources). With --baseline, every figure shows its change against that
report (in bits; a count's in inputs, as 'compare' classifies it) and the
banner at the top counts the regressions. With --mutants (what scripts/mutants
writes, build/mutants/mutants.json) the page shows the gates' teeth: each
mutant caught or not at each h, and for every budget the mutants that trip it
or "not shown to have teeth". With --coverage (what scripts/coverage writes,
build/coverage/coverage.json) the page shows, per calculation and cited
function, the lines and branch outcomes its own quick audit reaches, against
the targets. A report that lacks sections renders
what it has and says what is missing; a file that is not a distgrid-audit
report fails with badfile. The page is written to a temporary file, then renamed.
)";
constexpr const char* kReplayHelp = R"(usage: distgrid-audit replay REPORT.json --calc ID [options]

  --storage S             the entry to replay: float, double, half, q16 or q8
                          (default: the report's first for ID)
  --rank N                the N-th worst kept input (default 1)
  --error Q               error (default), arithmetic, storage, method, or a
                          decision's name (its closest inputs)
  --threads N             worker threads for baking (results do not depend on it)

Rebuilds the run from the report's settings (h, band, seed, parts), recomputes
the input, prints it in hex-float with the recomputed result and reference
next to the report's, and exits 0 when they are equal bit for bit, 1 naming
the difference otherwise, or on a typed error (badarg naming the option for a
--calc, --storage, --rank or --error the report does not have).
)";

constexpr const char* kMergeHelp = R"(usage: distgrid-audit merge SHARD.json... --out FILE

Joins the reports of every shard of one split run (--shard I/N, each I once)
into the report a single run would have written (timing fields aside).
)";

/// Error(badarg): `option` was given `value`, which is none of `known` (named, with
/// the nearest as a "did you mean").
[[noreturn]] void unknown_value(const std::string& option, const std::string& value, const std::string& what,
                                const std::vector<std::string>& known, const std::string& see) {
  throw Error(ErrorCode::badarg, option + " '" + value + "': no such " + what +
                                     distgrid::command_line::did_you_mean(value, known) + "; " + see);
}

std::vector<std::string> calculation_ids() {
  std::vector<std::string> ids;
  for (const audit::Calculation& c : audit::calculations()) ids.emplace_back(c.id);
  return ids;
}

/// Error(badarg) unless `id` (given with `option`) is a registered calculation.
void check_calculation_id(const std::string& option, const std::string& id) {
  if (!audit::find_calculation(id))
    unknown_value(option, id, "calculation", calculation_ids(), "'distgrid-audit list --ids' names them");
}

std::vector<std::string> split_list(const std::string& text, char separator);

/// The storages given with --storage: one name, or where `many` a comma-separated
/// list of names, `both` (float and double) or `all` (the five); each once.
std::vector<audit::Storage> storage_value(const std::string& text, bool many) {
  std::vector<std::string> names;
  for (audit::Storage s : audit::kAllStorages) names.emplace_back(audit::storage_name(s));
  if (many && text == "both") return {audit::Storage::float32, audit::Storage::float64};
  if (many && text == "all") return {audit::kAllStorages.begin(), audit::kAllStorages.end()};
  std::vector<audit::Storage> storages;
  for (const std::string& name : many ? split_list(text, ',') : std::vector<std::string>{text}) {
    const std::optional<audit::Storage> s = audit::parse_storage(name);
    if (!s)
      unknown_value("--storage", name, "storage", names,
                    many ? "give float, double, half, q16 or q8, a comma-separated list of them, both or all"
                         : "give one of float, double, half, q16 and q8");
    if (std::find(storages.begin(), storages.end(), *s) != storages.end())
      throw Error(ErrorCode::badarg, "--storage names " + name + " twice");
    storages.push_back(*s);
  }
  return storages;
}

std::vector<std::string> split_list(const std::string& text, char separator) {
  std::vector<std::string> items;
  std::string::size_type start = 0;
  for (;;) {
    const std::string::size_type end = text.find(separator, start);
    items.push_back(text.substr(start, end == std::string::npos ? std::string::npos : end - start));
    if (end == std::string::npos) return items;
    start = end + 1;
  }
}

bool is_mesh_part(const std::string& name) {
  for (const std::string& m : distgrid::mesh_part_names())
    if (m == name) return true;
  return false;
}

audit::SpecPart read_spec_part(const std::string& file) {
  const std::string text = distgrid::read_file(file);
  (void)distgrid::compile_field_text<double>(text, file);  // badspec naming the file and the JSON path
  return {std::filesystem::path(file).stem().string(), file, nlohmann::json::parse(text)};
}

audit::Shard parse_shard(const std::string& text) {
  const std::vector<std::string> parts = split_list(text, '/');
  const std::string expected = "--shard expects I/N with 0 <= I < N <= 1024, got '" + text + "'";
  audit::Shard shard;
  try {
    if (parts.size() != 2) throw Error(ErrorCode::badarg, expected);
    shard.count = static_cast<unsigned>(count_value(parts[1], "--shard", 1, 1024));
    shard.index = static_cast<unsigned>(count_value(parts[0], "--shard", 0, shard.count - 1));
  } catch (const Error&) {
    throw Error(ErrorCode::badarg, expected);
  }
  return shard;
}

/// "100% >=99.97%" for an entry's headline share within budget, "-" without one.
std::string within_budget_text(const nlohmann::json& entry, bool weakest) {
  const std::optional<distgrid::reports::ConfidenceHeadline> h = distgrid::reports::confidence_headline(entry);
  if (!h) return "-";
  if (weakest) return h->weakest_generator + " >=" + distgrid::reports::percent_text(h->weakest_lower_bound);
  return distgrid::reports::percent_text(h->share) + " >=" + distgrid::reports::percent_text(h->lower_bound);
}

/// The summary table at the end of a run: one row per calculation and storage,
/// with the share of inputs within budget and its 95 % lower bound (overall
/// and for the weakest input generator) beside the maximum.
void print_summary(const nlohmann::json& report) {
  std::printf("%-24s %-7s %-15s %-15s %-26s %-20s %-28s %s\n", "calculation", "storage", "declared", "measured",
              "max error", "within budget (95%)", "weakest generator (95%)", "gate");
  for (const nlohmann::json& entry : report["calculations"]) {
    const nlohmann::json& e = entry["error"];
    const std::string unit = e.contains("h") ? "h" : e.contains("relative") ? "relative" : "ulps";
    const nlohmann::json& max = e[unit]["max"];
    char max_number[32] = "null";  // a table: 6 significant digits; the report keeps them all
    if (max.is_number()) std::snprintf(max_number, sizeof max_number, "%.6g", max.get<double>());
    const std::string max_text = std::string(max_number) + " " + unit;
    std::printf("%-24s %-7s %-15s %-15s %-26s %-20s %-28s %s\n", entry["id"].get<std::string>().c_str(),
                entry["storage"].get<std::string>().c_str(), entry["declared"].get<std::string>().c_str(),
                entry["measured"].is_null() ? "-" : entry["measured"].get<std::string>().c_str(), max_text.c_str(),
                within_budget_text(entry, false).c_str(), within_budget_text(entry, true).c_str(),
                entry["gate"]["status"].get<std::string>().c_str());
  }
  for (const nlohmann::json& finding : report["findings"])
    std::printf("finding: %s\n", finding["message"].get<std::string>().c_str());
}

int run_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(
      argc, argv,
      {"--storage", "--part", "--calc", "--only", "--spec", "--mesh", "--h", "--band", "--seed", "--inputs",
       "--shard", "--threads", "--properties", "--budgets", "--source-dir", "--out", "--reference-volume"},
      {"--quick", "--allow-open"});
  if (args.help) {
    std::fputs(kRunHelp, stdout);
    return 0;
  }
  if (!args.positional.empty()) throw UsageError{"unexpected argument '" + args.positional.front() + "'"};
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE is required"};
  check_outputs(args, {"--out"});

  // Every value is checked here, before any file is read or any work done: one
  // that cannot be used is badarg naming the option and the value.
  audit::RunSettings settings;
  if (auto storage = args.get("--storage")) settings.storages = storage_value(*storage, true);
  std::vector<std::string> part_names;
  for (const distgrid::DefaultPart& p : distgrid::default_parts()) part_names.push_back(p.name);
  for (const std::string& name : distgrid::mesh_part_names()) part_names.push_back(name);
  for (const std::string& name : args.all("--part")) {
    bool formula = false;
    for (const distgrid::DefaultPart& p : distgrid::default_parts()) formula = formula || p.name == name;
    if (formula) settings.parts.push_back(name);
    else if (is_mesh_part(name)) settings.mesh_parts.push_back(name);
    else unknown_value("--part", name, "part", part_names, "'distgrid-audit list' names them");
  }
  for (const std::string& given : args.all("--reference-volume")) {
    const std::string::size_type equals = given.find('=');
    if (equals == std::string::npos || equals == 0)
      throw Error(ErrorCode::badarg, "--reference-volume expects NAME=V, got '" + given + "'");
    const std::string name = given.substr(0, equals);
    const double volume = number_value(given.substr(equals + 1), "--reference-volume " + name, 0, Bound::above);
    settings.reference_volumes.emplace_back(name, volume);
  }
  for (const std::string& id : args.all("--calc")) {
    check_calculation_id("--calc", id);
    settings.calculations.push_back(id);
  }
  if (auto only = args.get("--only"))
    for (const std::string& id : split_list(*only, ',')) {
      check_calculation_id("--only", id);
      settings.calculations.push_back(id);
    }
  if (auto h = args.get("--h")) {
    for (const std::string& value : split_list(*h, ','))
      settings.h_series.push_back(
          number_value(value, value == *h ? "--h" : "--h " + *h + ": each value", 0, Bound::above));
    settings.h = settings.h_series.front();
  }
  if (auto band = args.get("--band")) settings.band = number_value(*band, "--band", 1, Bound::at_least);
  if (auto seed = args.get("--seed")) settings.seed = count_value(*seed, "--seed", 0, (std::uint64_t{1} << 53) - 1);
  settings.quick = args.has_flag("--quick");
  if (settings.quick) settings.inputs = audit::kQuickInputs;
  if (auto inputs = args.get("--inputs")) settings.inputs = count_value(*inputs, "--inputs", 1, 100000000);
  if (auto shard = args.get("--shard")) settings.shard = parse_shard(*shard);
  if (auto threads = args.get("--threads"))
    settings.threads = static_cast<unsigned>(count_value(*threads, "--threads", 1, 1024));
  settings.properties_path = args.get("--properties").value_or("");
  settings.budgets_path = args.get("--budgets").value_or(default_budgets());
  if (auto source_dir = args.get("--source-dir")) check_folder("--source-dir", *source_dir);
  settings.source_dir = args.get("--source-dir").value_or(default_source_dir());
  settings.allow_open = args.has_flag("--allow-open");
  for (const std::string& file : args.all("--spec")) settings.spec_parts.push_back(read_spec_part(file));
  settings.mesh_files = args.all("--mesh");
  audit::check_settings(settings);  // --reference-volume of a part no --spec gave, two parts of one name, ...
  for (const std::string& file : settings.mesh_files)
    // badfile, badmesh or openmesh naming the file now, not after the formula calculations.
    (void)distgrid::prepare_mesh(distgrid::read_mesh(file), file, settings.allow_open);

  audit::Progress progress;
  const nlohmann::json report = audit::run_audit(settings, progress);
  audit::write_json_file(report, *out);
  print_summary(report);
  if (report.contains("claims"))
    for (const nlohmann::json& claim : report["claims"])
      std::printf("claim %-42s %s\n", claim["id"].get<std::string>().c_str(), claim["verdict"].get<std::string>().c_str());
  if (report.contains("comparison"))
    std::printf("float or double: %s\n", report["comparison"]["verdict"]["decision"].get<std::string>().c_str());
  if (report.contains("comparison") && report["comparison"].contains("storages"))
    std::printf("smallest safe storage: %s\n",
                report["comparison"]["storages"]["verdict"]["decision"].get<std::string>().c_str());
  std::printf("wrote %s (%.1f s)\n", out->c_str(), report["run_seconds"].get<double>());
  return 0;
}

int gate_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--budgets", "--junit", "--json"}, {"--strict"});
  if (args.help) {
    std::fputs(kGateHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1) throw UsageError{"expected one REPORT.json"};
  check_outputs(args, {"--junit", "--json"});
  const std::string report_path = args.positional.front();
  const std::string budgets_path = args.get("--budgets").value_or(default_budgets());
  const std::vector<audit::Budget> budgets = audit::load_budgets(budgets_path);
  const nlohmann::json report = audit::read_json_file(report_path);
  std::vector<audit::GateFailure> failures, notes;
  try {
    failures = audit::check_report(report, budgets, args.has_flag("--strict"));
    notes = audit::gate_notes(report, budgets);
  } catch (const Error& e) {
    throw Error(e.code(), report_path + ": " + e.what());
  }
  for (audit::GateFailure& f : audit::check_claims(report, audit::load_claim_gates(budgets_path)))
    failures.push_back(std::move(f));
  if (auto junit = args.get("--junit")) distgrid::replace_file(*junit, audit::junit_xml(report, failures));
  if (auto json_out = args.get("--json"))
    distgrid::replace_file(*json_out, audit::gate_result_json(failures, budgets).dump(1) + "\n");
  std::size_t entries = report["calculations"].size();
  for (const audit::GateFailure& f : failures) {
    std::printf("FAIL %s %s: %s\n", f.id.c_str(), f.storage.c_str(), f.message.c_str());
    if (!f.worst.empty()) std::printf("  worst: %s\n", f.worst.c_str());
    const audit::Calculation* calculation = audit::find_calculation(f.id);
    if (!f.worst.empty() && !f.replay_error.empty() && calculation && calculation->replay)
      std::printf("  replay: %s\n",
                  distgrid::reports::replay_command({report_path, f.id, f.storage, 1, f.replay_error}).c_str());
  }
  for (const audit::GateFailure& n : notes)
    std::printf("NOTE %s %s: %s\n", n.id.c_str(), n.storage.c_str(), n.message.c_str());
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
  const Arguments args =
      Arguments::parse(argc, argv, {"--out", "--source-dir", "--baseline", "--mutants", "--coverage"});
  if (args.help) {
    std::fputs(kRenderHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1) throw UsageError{"expected one REPORT.json"};
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE.html is required"};
  check_outputs(args, {"--out"});
  if (auto source_dir = args.get("--source-dir")) check_folder("--source-dir", *source_dir);
  distgrid::render::PageOptions options;
  options.source_dir = args.get("--source-dir").value_or(default_source_dir());
  options.sampling_range_calculations = audit::page_sampling_range_ids();
  distgrid::render::render_policy_page(args.positional.front(), *out, options,
                                       {args.get("--baseline").value_or(""), args.get("--mutants").value_or(""),
                                        args.get("--coverage").value_or("")});
  std::printf("wrote %s\n", out->c_str());
  return 0;
}

int replay_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--calc", "--storage", "--rank", "--error", "--threads"});
  if (args.help) {
    std::fputs(kReplayHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1) throw UsageError{"expected one REPORT.json"};
  audit::ReplayOptions options;
  const auto id = args.get("--calc");
  if (!id) throw UsageError{"--calc ID is required"};
  check_calculation_id("--calc", *id);
  options.id = *id;
  if (auto storage = args.get("--storage")) options.storage = storage_value(*storage, false).front();
  if (auto rank = args.get("--rank")) options.rank = count_value(*rank, "--rank", 1, 1000000);
  options.quantity = args.get("--error").value_or("error");
  if (auto threads = args.get("--threads"))
    options.threads = static_cast<unsigned>(count_value(*threads, "--threads", 1, 1024));
  const std::string report_path = args.positional.front();
  const nlohmann::json report = audit::read_json_file(report_path);
  audit::Progress progress;
  audit::ReplayOutcome outcome;
  try {
    outcome = audit::replay_from_report(report, options, progress);
  } catch (const Error& e) {
    throw Error(e.code(), report_path + ": " + e.what());
  }
  const audit::InputRecord& in = outcome.input;
  std::printf("replay %s %s %s, rank %zu of %s (rebuilt with %u thread%s)\n", options.id.c_str(),
              std::string(audit::storage_name(outcome.storage)).c_str(), options.quantity.c_str(), options.rank,
              report_path.c_str(), outcome.threads, outcome.threads == 1 ? "" : "s");
  std::printf("input: seed %llu, generator %s, index %llu%s%s\n", static_cast<unsigned long long>(in.seed),
              in.generator.c_str(), static_cast<unsigned long long>(in.index), in.part.empty() ? "" : ", part ",
              in.part.c_str());
  for (const auto& [name, value] : in.values) std::printf("  %s = %s\n", name.c_str(), value.c_str());
  std::printf("%-12s %-28s %s\n", "", "result", "reference");
  std::printf("%-12s %-28s %s\n", "report", outcome.report_result.c_str(), outcome.report_reference.c_str());
  std::printf("%-12s %-28s %s\n", "recomputed", outcome.result.c_str(), outcome.reference.c_str());
  for (const audit::ReplayValue& v : outcome.values)
    if (v.name != options.quantity)
      std::printf("  also recomputed %s: %s vs %s\n", v.name.c_str(), v.result.c_str(), v.reference.c_str());
  if (outcome.difference.empty()) {
    std::printf("replay: reproduced bit for bit\n");
    return 0;
  }
  std::printf("replay: differs: %s\n", outcome.difference.c_str());
  return 1;
}

int merge_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--out"});
  if (args.help) {
    std::fputs(kMergeHelp, stdout);
    return 0;
  }
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE is required"};
  if (args.positional.empty()) throw UsageError{"expected the shard reports"};
  check_outputs(args, {"--out"});
  std::vector<nlohmann::json> shards;
  for (const std::string& path : args.positional) shards.push_back(audit::read_json_file(path));
  const nlohmann::json merged = audit::merge_reports(shards, args.positional);
  audit::write_json_file(merged, *out);
  std::printf("merged %zu shard reports into %s (%zu calculation entries, gate %s)\n", shards.size(), out->c_str(),
              merged["calculations"].size(), merged["gate"]["status"].get<std::string>().c_str());
  return 0;
}

int list_command(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {}, {"--ids"});
  if (args.help || !args.positional.empty()) {
    if (!args.help) throw UsageError{"list takes no arguments"};
    std::fputs(kListHelp, stdout);
    return 0;
  }
  if (args.has_flag("--ids")) {
    for (const audit::Calculation& c : audit::calculations()) std::printf("%s\n", std::string(c.id).c_str());
    return 0;
  }
  // Each section's columns as wide as their longest entry.
  auto width = [](const auto& items, auto field) {
    int w = 0;
    for (const auto& item : items) w = std::max(w, static_cast<int>(std::string(field(item)).size()));
    return w;
  };
  const auto& calculations = audit::calculations();
  const int id_width = width(calculations, [](const audit::Calculation& c) { return c.id; });
  const int class_width =
      width(calculations, [](const audit::Calculation& c) { return audit::precision_name(c.declared); });
  std::printf("calculations:\n");
  for (const audit::Calculation& c : calculations)
    std::printf("  %-*s  %-*s  %s\n", id_width, std::string(c.id).c_str(), class_width,
                std::string(audit::precision_name(c.declared)).c_str(), std::string(c.title).c_str());
  std::printf("claims:\n");
  const int claim_width = width(audit::claims(), [](const audit::Claim& c) { return c.id; });
  for (const audit::Claim& c : audit::claims())
    std::printf("  %-*s  %s\n", claim_width, std::string(c.id).c_str(), std::string(c.statement).c_str());
  std::printf("default parts:\n");
  const int part_width = width(distgrid::default_parts(), [](const distgrid::DefaultPart& p) { return p.name; });
  for (const distgrid::DefaultPart& p : distgrid::default_parts())
    std::printf("  %-*s  %s\n", part_width, p.name.c_str(), p.description.c_str());
  std::printf("built-in mesh parts:\n");
  for (const std::string& name : distgrid::mesh_part_names()) std::printf("  %s\n", name.c_str());
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
    if (command == "--version") {
      std::printf("distgrid-audit %s (git %s)\n", audit::build_info::kVersion, audit::build_info::kGitRevision);
      return 0;
    }
    if (command == "run") return run_command(argc, argv);
    if (command == "gate") return gate_command(argc, argv);
    if (command == "replay") return replay_command(argc, argv);
    if (command == "merge") return merge_command(argc, argv);
    if (command == "list") return list_command(argc, argv);
    if (command == "render") return render_command(argc, argv);
    if (command == "compare") return audit::tool::compare_command(argc, argv);
    if (command == "history") return audit::tool::history_command(argc, argv);
    if (command == "budgets") return audit::tool::budgets_command(argc, argv, default_budgets().c_str());
    throw UsageError{"unknown command '" + command + "'" +
                     distgrid::command_line::did_you_mean(command, {"run", "gate", "replay", "merge", "list", "render",
                                                                    "compare", "history", "budgets", "help", "--version"})};
  });
}
