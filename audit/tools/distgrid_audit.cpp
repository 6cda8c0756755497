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
#include "distgrid/audit/gate.hpp"
#include "distgrid/audit/report.hpp"
#include "distgrid/audit/run.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"

namespace {

using distgrid::Error;
using distgrid::ErrorCode;
namespace audit = distgrid::audit;

/// A command line that cannot be understood: exit code 2.
struct UsageError {
  std::string message;
};

constexpr const char* kMainHelp = R"(usage: distgrid-audit <command> [options]

Commands:
  run    measure the calculations and write a JSON report
  gate   check a report against the precision budgets
  list   print the registered calculations and the default parts

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
audit/gates.json). Prints each check; exits 1 listing each calculation and
storage that missed a budget or has none, 0 when all pass.
)";

double parse_number(const std::string& text, const std::string& what) {
  char* end = nullptr;
  errno = 0;
  const double v = std::strtod(text.c_str(), &end);
  if (text.empty() || end != text.c_str() + text.size() || errno == ERANGE || !std::isfinite(v))
    throw UsageError{what + " expects a finite number, got '" + text + "'"};
  return v;
}

std::uint64_t parse_count(const std::string& text, const std::string& what, std::uint64_t lo, std::uint64_t hi) {
  char* end = nullptr;
  errno = 0;
  const unsigned long long v = std::strtoull(text.c_str(), &end, 10);
  if (text.empty() || text[0] == '-' || end != text.c_str() + text.size() || errno == ERANGE || v < lo || v > hi)
    throw UsageError{what + " expects a whole number in " + std::to_string(lo) + ".." + std::to_string(hi) +
                     ", got '" + text + "'"};
  return v;
}

/// --name value options (some repeatable), flags and positional arguments.
struct Arguments {
  std::vector<std::pair<std::string, std::string>> options;
  bool help = false;
  std::vector<std::string> positional;

  static Arguments parse(int argc, char** argv, const std::vector<std::string>& valued) {
    Arguments args;
    for (int n = 2; n < argc; ++n) {
      const std::string a = argv[n];
      if (a == "--help" || a == "-h") {
        args.help = true;
      } else if (a.rfind("--", 0) == 0) {
        bool known = false;
        for (const std::string& v : valued) known = known || a == v;
        if (!known) throw UsageError{"unknown option " + a};
        if (n + 1 >= argc) throw UsageError{a + " needs a value"};
        args.options.emplace_back(a, argv[++n]);
      } else {
        args.positional.push_back(a);
      }
    }
    return args;
  }
  std::vector<std::string> all(const std::string& name) const {
    std::vector<std::string> values;
    for (const auto& [key, value] : options)
      if (key == name) values.push_back(value);
    return values;
  }
  /// The value of an option given at most once.
  std::optional<std::string> get(const std::string& name) const {
    const std::vector<std::string> values = all(name);
    if (values.size() > 1) throw UsageError{name + " given twice"};
    if (values.empty()) return std::nullopt;
    return values.front();
  }
};

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
  if (auto h = args.get("--h")) settings.h = parse_number(*h, "--h");
  if (auto band = args.get("--band")) settings.band = parse_number(*band, "--band");
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
  std::printf("default parts:\n");
  for (const distgrid::DefaultPart& p : distgrid::default_parts())
    std::printf("  %-12s %s\n", p.name.c_str(), p.description.c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  try {
    if (argc < 2) throw UsageError{"no command given"};
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(kMainHelp, stdout);
      return 0;
    }
    if (command == "run") return run_command(argc, argv);
    if (command == "gate") return gate_command(argc, argv);
    if (command == "list") return list_command(argc, argv);
    throw UsageError{"unknown command '" + command + "'"};
  } catch (const UsageError& e) {
    std::fprintf(stderr, "distgrid-audit: usage: %s\nrun 'distgrid-audit --help' for the commands and options\n",
                 e.message.c_str());
    return 2;
  } catch (const Error& e) {
    std::fprintf(stderr, "distgrid-audit: %s: %s\n", std::string(distgrid::error_code_name(e.code())).c_str(),
                 e.what());
    return 1;
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "distgrid-audit: toolarge: out of memory\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "distgrid-audit: internal: %s\n", e.what());
    return 1;
  }
}
