// distgrid: bake a grid from a formula, inspect it, sample it, measure its volume.
// Exit codes: 0 success, 1 failure (a typed error), 2 bad usage, 130 interrupted.
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include "commands.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/interrupt.hpp"
#include "distgrid/json_text.hpp"
#include "distgrid/memory_budget.hpp"
#include "grid_report.hpp"
#include "tool_output.hpp"

namespace {

using distgrid::Error;
using distgrid::ErrorCode;
using distgrid::command_line::Arguments;
using distgrid::command_line::parse_bytes;
using distgrid::command_line::parse_count;
using distgrid::command_line::parse_number;
using distgrid::command_line::Progress;
using distgrid::command_line::UsageError;
using distgrid::tools::table_number;

constexpr const char* kMainHelp = R"(usage: distgrid <command> [options]
       distgrid --version

Commands:
  bake     bake a grid from a formula spec, a built-in part or a triangle mesh
  info     what a .dgrid file holds and where it came from
  sample   value and gradient at a world point, or at many (--points)
  volume   enclosed volume of a grid
  contour  zero-level mesh of a grid to STL, OBJ or PLY, with its statistics

Run 'distgrid <command> --help' for a command's options.
Tables print numbers to 6 significant digits, with hex-float beside them where the
exact value matters; --json and data lines keep full precision. A run that takes
longer than a second shows its phases on a terminal.
Exit codes: 0 success, 1 failure (printed as 'distgrid: <code>: <message>'),
2 bad usage, 130 stopped by Ctrl-C or SIGTERM (no output written).
)";

constexpr const char* kBakeHelp = R"(usage: distgrid bake (--spec FILE | --part NAME) --h H --out FILE.dgrid [options]

  --spec FILE            formula spec in JSON (see docs/field-spec.md)
  --part NAME            a built-in part (list them with --list-parts)
  --h H                  voxel size, > 0 (numbers may be decimal or hex-float)
  --band B               band half-width in voxels, >= 1 (default 3)
  --storage NAME         brick storage: float (default), double, half (binary16), q16
                         or q8 (per-brick linear codes of 16 or 8 bits)
  --bbox X0,Y0,Z0,X1,Y1,Z1
                         clip the shape to this box: bake its intersection with
                         the box (so volume and contour are the clipped part's);
                         makes an unbounded formula (a lattice, a half-space) bakeable
  --threads N            worker threads (default: all; results do not depend on it)
  --max-memory SIZE      refuse (toolarge) before baking when the grid would need more
                         (e.g. 512M, 8G; default: 3/4 of physical memory)
  --out FILE             output .dgrid (written to a temporary file, then renamed)
  --list-parts           print the built-in parts and exit

A closed triangle mesh bakes with 'distgrid bake --mesh FILE ...' (STL, OBJ or PLY);
run 'distgrid bake --mesh --help' for its options.
)";

constexpr const char* kInfoHelp = R"(usage: distgrid info GRID.dgrid [--json]

Prints the storage and its size, h, band and band*h, the bound on the stored
values, the value range, the counts of stored, inside and absent bricks (absent:
within the brick extent), the extent, the world box, and where the grid came from
(spec, part or mesh, and the tool version that baked it).

  --json   all of it as one JSON object, numbers at full precision
)";

constexpr const char* kSampleHelp = R"(usage: distgrid sample GRID.dgrid X Y Z
       distgrid sample GRID.dgrid --points FILE [--gradient]

The trilinear value and the central-difference gradient at (X, Y, Z), to 6
significant digits with hex-float beside them, and a note when the value is
clamped (|value| = band*h: the surface is at least that far) or read from an
absent brick (outside the baked band, reads +band*h) or an inside brick (reads
-band*h).

  --points FILE  one point "X Y Z" per line (decimal or hex-float; blank lines and
                 lines starting with # are skipped), '-' for standard input; writes
                 one line per point: the value to 17 significant digits, the
                 gradient's three components with --gradient, then the marks:
                 'clamped', 'absent', 'inside' joined by commas, or '-' for none
  --gradient     with --points: also write each point's gradient
)";

constexpr const char* kVolumeHelp = R"(usage: distgrid volume GRID.dgrid

Prints the enclosed volume h^3 * sum clamp(1/2 - d/h, 0, 1), to 6 significant
digits and in hex-float.
)";

const std::vector<std::string> kCommands{"bake", "info", "sample", "volume", "contour", "help"};

/// The box of --bbox: six finite numbers, each lower bound below its upper one.
distgrid::Box parse_box(const std::string& text) {
  std::vector<double> v;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) v.push_back(parse_number(item, "--bbox"));
  if (v.size() != 6) throw UsageError{"--bbox expects six numbers X0,Y0,Z0,X1,Y1,Z1, got '" + text + "'"};
  const distgrid::Box box{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
  for (std::size_t a = 0; a < 3; ++a)
    if (!std::isfinite(box.lo[a]) || !std::isfinite(box.hi[a]) || !(box.lo[a] < box.hi[a]))
      throw Error(ErrorCode::badarg, "--bbox " + text + ": each bound must be finite and X0 < X1, Y0 < Y1, Z0 < Z1");
  return box;
}

/// The spec intersected with the box (the box node takes a centre and full sizes).
nlohmann::json clipped_spec(const nlohmann::json& spec, const distgrid::Box& box) {
  nlohmann::json centre = nlohmann::json::array(), size = nlohmann::json::array();
  for (std::size_t a = 0; a < 3; ++a) {
    centre.push_back((box.lo[a] + box.hi[a]) / 2);
    size.push_back(box.hi[a] - box.lo[a]);
  }
  return {{"type", "intersection"}, {"of", {spec, {{"type", "box"}, {"center", centre}, {"size", size}}}}};
}

/// The field of the spec, clipped when asked; errors name `source` and the JSON path
/// within the spec as written (it is compiled alone first).
template <class S>
distgrid::Field<S> compile_for_bake(const nlohmann::json& spec, const std::string& source,
                                    const std::optional<distgrid::Box>& clip) {
  auto compile = [&](const nlohmann::json& j) {
    try {
      return distgrid::compile_field<S>(j);
    } catch (const Error& e) {
      throw Error(e.code(), source + ": " + e.what());
    }
  };
  if (!clip) return compile(spec);
  compile(spec);
  return compile(clipped_spec(spec, *clip));
}

/// The built-in part, or Error(badarg) naming the known ones and the nearest.
const distgrid::DefaultPart& find_part(const std::string& name) {
  try {
    return distgrid::default_part(name);
  } catch (const Error& e) {
    std::vector<std::string> names;
    for (const distgrid::DefaultPart& part : distgrid::default_parts()) names.push_back(part.name);
    throw Error(e.code(), e.what() + distgrid::command_line::did_you_mean(name, names));
  }
}

template <class S>
int bake_and_save(const nlohmann::json& spec, const std::string& source, const std::optional<distgrid::Box>& clip,
                  distgrid::BakeSettings settings, const std::string& out, nlohmann::json origin,
                  Progress& progress) {
  const auto started = std::chrono::steady_clock::now();
  (void)distgrid::Grid<S>(settings.h, settings.band);  // the storage takes h and band (Half: its range), or badarg
  settings.brick_bytes = distgrid::kMaxBrickBytes<S>;
  const distgrid::Field<distgrid::FieldScalarOf<S>> field = compile_for_bake<distgrid::FieldScalarOf<S>>(spec, source, clip);
  progress.phase("planning");
  const distgrid::Plan plan = distgrid::plan_bricks(field, settings);
  progress.phase("baking", plan.near_keys.size(), "bricks");
  const distgrid::Grid<S> grid = distgrid::bake_planned_bricks<S>(
      field, plan, settings.threads, [&](std::size_t done, std::size_t) { progress.update(done); });
  progress.phase("writing");
  if (clip) origin["clip"] = {clip->lo[0], clip->lo[1], clip->lo[2], clip->hi[0], clip->hi[1], clip->hi[2]};
  distgrid::save_grid(grid, out, origin.dump());
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("baked %s%s: %zu bricks computed, %zu inside, %" PRId64 " considered\n", source.c_str(),
              clip ? " clipped to the --bbox box" : "", grid.stored_brick_count(), grid.inside_brick_count(),
              plan.bricks_considered);
  std::printf("storage %s, h %s, band %s, memory %s, %.3g s %s\n", std::string(distgrid::storage_name<S>()).c_str(),
              table_number(grid.h()).c_str(), table_number(grid.band()).c_str(),
              distgrid::format_bytes(grid.memory_bytes()).c_str(), seconds,
              distgrid::tools::threads_used(settings.threads).c_str());
  std::printf("wrote %s\n", out.c_str());
  return 0;
}

int run_bake(int argc, char** argv) {
  for (int n = 2; n < argc; ++n)
    if (std::string(argv[n]) == "--mesh") return distgrid::tools::run_bake_mesh(argc, argv);
  const Arguments args = Arguments::parse(
      argc, argv, {"--spec", "--part", "--h", "--band", "--storage", "--bbox", "--threads", "--max-memory", "--out"},
      {"--list-parts"});
  if (args.help) {
    std::fputs(kBakeHelp, stdout);
    return 0;
  }
  if (args.has_flag("--list-parts")) {
    for (const distgrid::DefaultPart& part : distgrid::default_parts())
      std::printf("%-12s volume %-9s (%s)  %s\n", part.name.c_str(), table_number(part.volume).c_str(),
                  part.volume_exact ? "exact" : "best known", part.description.c_str());
    return 0;
  }
  if (!args.positional.empty()) throw UsageError{"unexpected argument '" + args.positional.front() + "'"};
  const auto spec_file = args.get("--spec"), part_name = args.get("--part");
  if (spec_file.has_value() == part_name.has_value()) throw UsageError{"give exactly one of --spec FILE and --part NAME"};
  const auto h_text = args.get("--h");
  if (!h_text) throw UsageError{"--h H is required"};
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE.dgrid is required"};

  distgrid::BakeSettings settings;
  settings.h = parse_number(*h_text, "--h");
  if (auto band = args.get("--band")) settings.band = parse_number(*band, "--band");
  if (auto threads = args.get("--threads")) settings.threads = static_cast<unsigned>(parse_count(*threads, "--threads", 1, 1024));
  if (auto budget = args.get("--max-memory")) settings.max_memory_bytes = parse_bytes(*budget, "--max-memory");
  std::optional<distgrid::Box> clip;
  if (auto bbox = args.get("--bbox")) clip = parse_box(*bbox);
  const std::string storage = distgrid::tools::storage_option(args);
  distgrid::check_bake_settings(settings);
  distgrid::check_output_path(*out);

  Progress progress("distgrid");
  nlohmann::json spec, origin;
  std::string source;
  if (part_name) {
    const distgrid::DefaultPart& part = find_part(*part_name);
    spec = part.spec;
    source = "part " + part.name;
    origin = distgrid::tools::grid_origin("part", part.name);
  } else {
    progress.phase("reading");
    const std::string text = distgrid::read_file(*spec_file);
    spec = distgrid::parse_json_text(text, *spec_file, ErrorCode::badspec);
    source = *spec_file;
    origin = distgrid::tools::grid_origin("spec", *spec_file);
    origin["input_fnv1a"] = distgrid::tools::content_hash(text);
  }
  int status = 0;
  distgrid::with_storage_named(storage, [&]<class S>() {
    status = bake_and_save<S>(spec, source, clip, settings, *out, origin, progress);
  });
  return status;
}

std::string single_grid_argument(const Arguments& args, std::size_t extra) {
  if (args.positional.size() != 1 + extra)
    throw UsageError{"expected GRID.dgrid" + std::string(extra ? " and " + std::to_string(extra) + " numbers" : "")};
  return args.positional.front();
}

int run_info(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {}, {"--json"});
  if (args.help) {
    std::fputs(kInfoHelp, stdout);
    return 0;
  }
  const std::string path = single_grid_argument(args, 0);
  Progress progress("distgrid");
  progress.phase("reading");
  std::string origin;
  const distgrid::AnyGrid any = distgrid::load_grid(path, &origin);
  progress.phase("summary");
  const nlohmann::json summary = std::visit([&](const auto& grid) { return distgrid::tools::grid_summary(grid); }, any);
  progress.finish();
  nlohmann::json info = summary;
  info["file"] = path;
  info["origin"] = origin.empty() ? nlohmann::json(nullptr) : nlohmann::json::parse(origin, nullptr, false);
  if (!origin.empty() && info["origin"].is_discarded()) info["origin"] = origin;  // not JSON: kept as text
  if (args.has_flag("--json")) {
    std::printf("%s\n", info.dump(2).c_str());
    return 0;
  }
  std::fputs(distgrid::tools::describe_grid(info).c_str(), stdout);
  return 0;
}

/// One point per line "X Y Z"; Error(badfile) naming the line for anything else.
std::vector<std::array<double, 3>> read_points(const std::string& text, const std::string& source) {
  std::vector<std::array<double, 3>> points;
  std::istringstream lines(text);
  std::string line;
  for (std::size_t number = 1; std::getline(lines, line); ++number) {
    if (number % 65536 == 0) distgrid::throw_if_interrupted();
    std::istringstream words(line);
    std::vector<std::string> w;
    for (std::string word; words >> word;) w.push_back(word);
    if (w.empty() || w.front()[0] == '#') continue;
    const std::string where = source + ": line " + std::to_string(number);
    if (w.size() != 3) throw Error(ErrorCode::badfile, where + ": expected three numbers X Y Z, got " + std::to_string(w.size()) + " words");
    std::array<double, 3> p{};
    for (std::size_t a = 0; a < 3; ++a) {
      char* end = nullptr;
      p[a] = std::strtod(w[a].c_str(), &end);
      if (end != w[a].c_str() + w[a].size()) throw Error(ErrorCode::badfile, where + ": '" + w[a] + "' is not a number");
      if (!std::isfinite(p[a])) throw Error(ErrorCode::badfile, where + ": the point must be finite, got '" + w[a] + "'");
    }
    points.push_back(p);
  }
  return points;
}

int run_sample(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {"--points"}, {"--gradient"});
  if (args.help) {
    std::fputs(kSampleHelp, stdout);
    return 0;
  }
  if (const auto points_file = args.get("--points")) {
    const std::string path = single_grid_argument(args, 0);
    Progress progress("distgrid");
    progress.phase("reading");
    std::string text;
    if (*points_file == "-") {
      std::ostringstream all;
      all << std::cin.rdbuf();
      text = all.str();
    } else {
      text = distgrid::read_file(*points_file);
    }
    const auto points = read_points(text, *points_file == "-" ? "standard input" : *points_file);
    const distgrid::AnyGrid any = distgrid::load_grid(path);
    const bool gradient = args.has_flag("--gradient");
    progress.phase("sampling", points.size(), "points");
    std::visit([&](const auto& grid) { distgrid::tools::write_samples(grid, points, gradient, stdout); }, any);
    progress.finish();
    return 0;
  }
  if (args.has_flag("--gradient")) throw UsageError{"--gradient goes with --points (one point prints its gradient anyway)"};
  const std::string path = single_grid_argument(args, 3);
  const double x = parse_number(args.positional[1], "X"), y = parse_number(args.positional[2], "Y"),
               z = parse_number(args.positional[3], "Z");
  if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
    throw Error(ErrorCode::badarg, "the point (" + args.positional[1] + ", " + args.positional[2] + ", " +
                                       args.positional[3] + ") must be finite");
  const distgrid::AnyGrid any = distgrid::load_grid(path);
  std::visit([&](const auto& grid) { distgrid::tools::print_sample(grid, {x, y, z}, stdout); }, any);
  return 0;
}

int run_volume(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {});
  if (args.help) {
    std::fputs(kVolumeHelp, stdout);
    return 0;
  }
  const std::string path = single_grid_argument(args, 0);
  Progress progress("distgrid");
  progress.phase("reading");
  const distgrid::AnyGrid any = distgrid::load_grid(path);
  progress.phase("volume");
  const double volume = std::visit([](const auto& grid) { return grid.volume(); }, any);
  progress.finish();
  std::printf("volume    %s  (%s)\n", table_number(volume).c_str(), distgrid::tools::hex_number(volume).c_str());
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  return distgrid::command_line::run_tool("distgrid", [&] {
    if (argc < 2) throw UsageError{"no command given"};
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
      std::fputs(kMainHelp, stdout);
      return 0;
    }
    if (command == "--version") {
      std::printf("distgrid %s\n", distgrid::tools::kToolVersion);
      return 0;
    }
    if (command == "bake") return run_bake(argc, argv);
    if (command == "info") return run_info(argc, argv);
    if (command == "sample") return run_sample(argc, argv);
    if (command == "volume") return run_volume(argc, argv);
    if (command == "contour") return distgrid::tools::run_contour(argc, argv);
    std::vector<std::string> known = kCommands;
    known.emplace_back("--version");
    throw UsageError{"unknown command '" + command + "'" + distgrid::command_line::did_you_mean(command, known)};
  });
}
