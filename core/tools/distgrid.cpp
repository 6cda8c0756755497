// distgrid: bake a grid from a formula, inspect it, sample it, measure its volume.
// Exit codes: 0 success, 1 failure (a typed error), 2 bad usage.
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
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

namespace {

using distgrid::Error;
using distgrid::ErrorCode;
using distgrid::command_line::Arguments;
using distgrid::command_line::parse_bytes;
using distgrid::command_line::parse_count;
using distgrid::command_line::parse_number;
using distgrid::command_line::ProgressLine;
using distgrid::command_line::UsageError;

constexpr const char* kMainHelp = R"(usage: distgrid <command> [options]

Commands:
  bake     bake a grid from a formula spec or a built-in part
  info     print what a .dgrid file holds
  sample   value and gradient at a world point
  volume   enclosed volume of a grid
  contour  zero-level mesh of a grid to STL, OBJ or PLY, with its statistics

Run 'distgrid <command> --help' for a command's options.
Exit codes: 0 success, 1 failure (printed as 'distgrid: <code>: <message>'), 2 bad usage.
)";

constexpr const char* kBakeHelp = R"(usage: distgrid bake (--spec FILE | --part NAME) --h H --out FILE.dgrid [options]

  --spec FILE            formula spec in JSON (see docs/field-spec.md)
  --part NAME            a built-in part (list them with --list-parts)
  --h H                  voxel size, > 0 (numbers may be decimal or hex-float)
  --band B               band half-width in voxels, >= 1 (default 3)
  --storage float|double brick storage scalar (default float)
  --bbox X0,Y0,Z0,X1,Y1,Z1  box to bake instead of the formula's own
  --threads N            worker threads (default: all; results do not depend on it)
  --max-memory SIZE      refuse (toolarge) before baking when the grid would need more
                         (e.g. 512M, 8G; default: 3/4 of physical memory)
  --out FILE             output .dgrid (written to a temporary file, then renamed)
  --list-parts           print the built-in parts and exit

A closed triangle mesh bakes with 'distgrid bake --mesh FILE ...' (STL, OBJ or PLY);
run 'distgrid bake --mesh x --help' for its options.
)";

constexpr const char* kInfoHelp = R"(usage: distgrid info GRID.dgrid

Prints storage, h, band, brick counts, memory, brick extent and world box.
)";

constexpr const char* kSampleHelp = R"(usage: distgrid sample GRID.dgrid X Y Z

Prints the trilinear value and the central-difference gradient at (X, Y, Z),
in decimal (17 significant digits) and in hex-float.
)";

constexpr const char* kVolumeHelp = R"(usage: distgrid volume GRID.dgrid

Prints the enclosed volume h^3 * sum clamp(1/2 - d/h, 0, 1).
)";

std::string format_number(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.17g", v);
  return buf;
}

std::string format_hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}


template <class S>
int bake_and_save(const nlohmann::json* spec, const std::string& spec_text, const std::string& source,
                  const distgrid::BakeSettings& settings, const std::string& out) {
  const auto started = std::chrono::steady_clock::now();
  const distgrid::Field<S> field =
      spec ? distgrid::compile_field<S>(*spec) : distgrid::compile_field_text<S>(spec_text, source);
  const distgrid::Plan plan = distgrid::plan_bricks(field, settings);
  ProgressLine progress("baking bricks");
  const distgrid::Grid<S> grid = distgrid::bake_planned_bricks(
      field, plan, settings.threads, [&](std::size_t d, std::size_t t) { progress(d, t); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  distgrid::save_grid(grid, out);
  std::printf("baked %s: %zu bricks computed, %zu inside, %" PRId64 " considered\n", source.c_str(),
              grid.stored_brick_count(), grid.inside_brick_count(), plan.bricks_considered);
  std::printf("storage %s, h %s, band %s, memory %zu bytes, %.3f s\n", sizeof(S) == 4 ? "float" : "double",
              format_number(grid.h()).c_str(), format_number(grid.band()).c_str(), grid.memory_bytes(), seconds);
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
      std::printf("%-12s volume %s (%s)  %s\n", part.name.c_str(), format_number(part.volume).c_str(),
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
  if (auto bbox = args.get("--bbox")) {
    std::vector<double> v;
    std::stringstream in(*bbox);
    std::string item;
    while (std::getline(in, item, ',')) v.push_back(parse_number(item, "--bbox"));
    if (v.size() != 6) throw UsageError{"--bbox expects six numbers X0,Y0,Z0,X1,Y1,Z1"};
    settings.bbox = distgrid::Box{{v[0], v[1], v[2]}, {v[3], v[4], v[5]}};
  }
  const std::string storage = args.get("--storage").value_or("float");
  if (storage != "float" && storage != "double") throw UsageError{"--storage expects float or double, got '" + storage + "'"};

  std::string text, source;
  const nlohmann::json* spec = nullptr;
  if (part_name) {
    const distgrid::DefaultPart& part = distgrid::default_part(*part_name);
    spec = &part.spec;
    source = "part " + part.name;
  } else {
    text = distgrid::read_file(*spec_file);
    source = *spec_file;
  }
  return storage == "float" ? bake_and_save<float>(spec, text, source, settings, *out)
                            : bake_and_save<double>(spec, text, source, settings, *out);
}

std::string single_grid_argument(const Arguments& args, std::size_t extra) {
  if (args.positional.size() != 1 + extra)
    throw UsageError{"expected GRID.dgrid" + std::string(extra ? " and " + std::to_string(extra) + " numbers" : "")};
  return args.positional.front();
}

int run_info(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {});
  if (args.help) {
    std::fputs(kInfoHelp, stdout);
    return 0;
  }
  const std::string path = single_grid_argument(args, 0);
  const distgrid::AnyGrid any = distgrid::load_grid(path);
  std::visit(
      [&](const auto& grid) {
        using S = typename std::decay_t<decltype(grid)>::Scalar;
        std::printf("file      %s\n", path.c_str());
        std::printf("storage   %s\n", sizeof(S) == 4 ? "float" : "double");
        std::printf("h         %s\n", format_number(grid.h()).c_str());
        std::printf("band      %s (band*h = %s)\n", format_number(grid.band()).c_str(),
                    format_number(grid.band_width()).c_str());
        std::printf("bricks    %zu stored, %zu inside\n", grid.stored_brick_count(), grid.inside_brick_count());
        std::printf("memory    %zu bytes\n", grid.memory_bytes());
        if (const auto e = grid.extent()) {
          std::printf("extent    bricks [%" PRId64 ", %" PRId64 "] x [%" PRId64 ", %" PRId64 "] x [%" PRId64
                      ", %" PRId64 "]\n",
                      e->lo[0], e->hi[0], e->lo[1], e->hi[1], e->lo[2], e->hi[2]);
          const distgrid::Box b = *grid.world_box();
          std::printf("world box [%s, %s] x [%s, %s] x [%s, %s]\n", format_number(b.lo[0]).c_str(),
                      format_number(b.hi[0]).c_str(), format_number(b.lo[1]).c_str(),
                      format_number(b.hi[1]).c_str(), format_number(b.lo[2]).c_str(),
                      format_number(b.hi[2]).c_str());
        } else {
          std::printf("extent    empty\n");
        }
      },
      any);
  return 0;
}

int run_sample(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {});
  if (args.help) {
    std::fputs(kSampleHelp, stdout);
    return 0;
  }
  const std::string path = single_grid_argument(args, 3);
  const double x = parse_number(args.positional[1], "X"), y = parse_number(args.positional[2], "Y"),
               z = parse_number(args.positional[3], "Z");
  if (!std::isfinite(x) || !std::isfinite(y) || !std::isfinite(z))
    throw Error(ErrorCode::badarg, "the point (" + args.positional[1] + ", " + args.positional[2] + ", " +
                                       args.positional[3] + ") must be finite");
  const distgrid::AnyGrid any = distgrid::load_grid(path);
  std::visit(
      [&](const auto& grid) {
        const double value = grid.sample(x, y, z);
        const std::array<double, 3> g = grid.gradient(x, y, z);
        std::printf("value     %s  (%s)\n", format_number(value).c_str(), format_hex(value).c_str());
        std::printf("gradient  %s %s %s  (%s %s %s)\n", format_number(g[0]).c_str(), format_number(g[1]).c_str(),
                    format_number(g[2]).c_str(), format_hex(g[0]).c_str(), format_hex(g[1]).c_str(),
                    format_hex(g[2]).c_str());
      },
      any);
  return 0;
}

int run_volume(int argc, char** argv) {
  const Arguments args = Arguments::parse(argc, argv, {});
  if (args.help) {
    std::fputs(kVolumeHelp, stdout);
    return 0;
  }
  const std::string path = single_grid_argument(args, 0);
  const distgrid::AnyGrid any = distgrid::load_grid(path);
  const double volume = std::visit([](const auto& grid) { return grid.volume(); }, any);
  std::printf("volume    %s  (%s)\n", format_number(volume).c_str(), format_hex(volume).c_str());
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
    if (command == "bake") return run_bake(argc, argv);
    if (command == "info") return run_info(argc, argv);
    if (command == "sample") return run_sample(argc, argv);
    if (command == "volume") return run_volume(argc, argv);
    if (command == "contour") return distgrid::tools::run_contour(argc, argv);
    throw UsageError{"unknown command '" + command + "'"};
  });
}
