// `distgrid bake --mesh FILE ...`: read, weld and validate a triangle mesh, bake it,
// print the validation report and the bake's statistics, save the grid.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <string>

#include "commands.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/memory_budget.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "tool_output.hpp"

namespace distgrid::tools {
namespace {

using command_line::Arguments;
using command_line::parse_bytes;
using command_line::parse_count;
using command_line::parse_number;
using command_line::Progress;
using command_line::UsageError;

constexpr const char* kBakeMeshHelp = R"(usage: distgrid bake --mesh FILE (--h H | --voxels-per-diagonal N) --out FILE.dgrid [options]

  --mesh FILE              closed triangle mesh: STL (binary or ASCII), OBJ or PLY,
                           recognised by content
  --h H                    voxel size, > 0 (decimal or hex-float)
  --voxels-per-diagonal N  voxel size = diagonal of the mesh's box / N
  --band B                 band half-width in voxels, >= 1 (default 3)
  --storage NAME           brick storage: float (default), double, half (binary16),
                           q16 or q8 (per-brick linear codes of 16 or 8 bits)
  --allow-open             bake a mesh that bounds no solid anyway: open,
                           non-manifold or inconsistently oriented (openmesh),
                           with triangles that cross or touch (selfintersect), or
                           with shells nested the wrong way (badmesh); the output
                           says which of its results cannot be trusted
  --threads N              worker threads (default: all; results do not depend on it)
  --max-memory SIZE        refuse (toolarge) when the bake would need more, estimated
                           from the triangles before any heavy work and checked again
                           as the pairs and bricks are found (e.g. 512M, 8G; default:
                           3/4 of physical memory)
  --out FILE               output .dgrid (written to a temporary file, then renamed)

Prints the mesh's validation report and the bake's statistics.
)";

/// What cannot be trusted in a grid baked from a mesh that bounds no solid.
void print_warnings(const MeshReport& report, const MeshBakeStats& stats) {
  if (!report.closed())
    std::printf("warning    the mesh is not closed and consistently oriented: signs near the offending edges,\n"
                "           the inside bricks found by ray parity and the volume cannot be trusted\n");
  if (report.intersecting_pairs != 0)
    std::printf("warning    triangles meet in %zu pairs (e.g. triangles %u and %u): the mesh bounds no solid; signs\n"
                "           where its shells overlap or pass through themselves, the inside bricks and the volume\n"
                "           cannot be trusted\n",
                report.intersecting_pairs, report.example_pair[0], report.example_pair[1]);
  if (report.misnested_shells != 0)
    std::printf("warning    shells facing the wrong way for the nesting: %zu (e.g. the shell of triangle %u); the\n"
                "           space they bound reads with the wrong sign; signs there, the inside bricks and the\n"
                "           volume cannot be trusted\n",
                report.misnested_shells, report.example_shell_triangle);
  if (stats.rows_unmarked != 0)
    std::printf("warning    %zu rows kept an odd crossing count; their far bricks were left outside\n", stats.rows_unmarked);
}

template <class S>
void bake_and_save(const PreparedMesh& mesh, const MeshBakeSettings& settings, const std::string& out,
                   const std::string& origin, Progress& progress) {
  const auto started = std::chrono::steady_clock::now();
  MeshBakeStats stats;
  // The units bake_mesh's phases count (mesh_bake.hpp).
  const auto on_phase = [&](const char* phase, std::size_t done, std::size_t total) {
    const std::string name = phase;
    progress(phase, done, total, name == "pairing" ? "triangles" : name == "distances" ? "bricks" : "rows");
  };
  const Grid<S> grid = bake_mesh<S>(mesh, settings, on_phase, &stats);
  progress.phase("writing");
  save_grid(grid, out, origin);
  progress.finish();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  std::printf("bake       h %s, band %s, storage %s, %zu triangles\n", table_number(settings.h).c_str(),
              table_number(settings.band).c_str(), std::string(storage_name<S>()).c_str(), stats.triangles);
  std::printf("bricks     %zu computed (%zu with no node in the band), %zu inside, %" PRId64 " considered\n",
              stats.bricks_computed, stats.bricks_beyond_band, stats.bricks_inside, stats.bricks_considered);
  std::printf("rows       %zu parity rays, %zu retried, %zu unmarked\n", stats.rows, stats.rows_retried, stats.rows_unmarked);
  std::printf("time       %.3g s %s, memory %s\n", seconds, threads_used(settings.threads).c_str(),
              format_bytes(grid.memory_bytes()).c_str());
  print_warnings(mesh.report, stats);
  std::printf("wrote %s\n", out.c_str());
}

/// A mesh file is held whole while it is parsed into at most about twice its size
/// (binary STL: 50 bytes a triangle become 84): refuse before reading a file whose
/// bytes and mesh would not fit.
void check_reading_memory(const std::string& path, std::uint64_t budget) {
  std::error_code error;
  const auto size = std::filesystem::file_size(path, error);
  if (error || static_cast<double>(size) * 3 <= static_cast<double>(budget)) return;
  throw Error(ErrorCode::toolarge, path + ": reading its " + format_bytes(size) + " and the mesh they hold needs about " +
                                       format_bytes(size * 3) + ", over the memory budget of " + format_bytes(budget) +
                                       " (raise it with --max-memory)");
}

/// Diagonal of the box of the corners the triangles use (0 when there are none).
double used_diagonal(const TriangleMesh& mesh) {
  bool any = false;
  Vec3 lo{}, hi{};
  for (const auto& t : mesh.triangles)
    for (std::uint32_t c : t) {
      if (c >= mesh.positions.size()) continue;
      const Vec3& p = mesh.positions[c];
      for (std::size_t a = 0; a < 3; ++a) {
        lo[a] = any ? std::min(lo[a], p[a]) : p[a];
        hi[a] = any ? std::max(hi[a], p[a]) : p[a];
      }
      any = true;
    }
  const Vec3 extent = detail::sub3(hi, lo);
  return std::sqrt(detail::dot3(extent, extent));
}

}  // namespace

int run_bake_mesh(int argc, char** argv) {
  const Arguments args = Arguments::parse(
      argc, argv, {"--mesh", "--h", "--voxels-per-diagonal", "--band", "--storage", "--threads", "--max-memory", "--out"}, {"--allow-open"});
  if (args.help) {
    std::fputs(kBakeMeshHelp, stdout);
    return 0;
  }
  if (!args.positional.empty()) throw UsageError{"unexpected argument '" + args.positional.front() + "'"};
  const auto mesh_file = args.get("--mesh");
  if (!mesh_file) throw UsageError{"--mesh FILE is required"};
  const auto h_text = args.get("--h"), per_diagonal = args.get("--voxels-per-diagonal");
  if (h_text.has_value() == per_diagonal.has_value()) throw UsageError{"give exactly one of --h H and --voxels-per-diagonal N"};
  const auto out = args.get("--out");
  if (!out) throw UsageError{"--out FILE.dgrid is required"};
  const std::string storage = storage_option(args);

  MeshBakeSettings settings;
  if (h_text) settings.h = parse_number(*h_text, "--h");
  const unsigned long long voxels = per_diagonal ? parse_count(*per_diagonal, "--voxels-per-diagonal", 1, 1000000) : 0;
  if (auto band = args.get("--band")) settings.band = parse_number(*band, "--band");
  if (auto threads = args.get("--threads")) settings.threads = static_cast<unsigned>(parse_count(*threads, "--threads", 1, 1024));
  if (auto budget = args.get("--max-memory")) settings.max_memory_bytes = parse_bytes(*budget, "--max-memory");
  check_output_path(*out);
  const bool allow_open = args.has_flag("--allow-open");

  Progress progress("distgrid");
  progress.phase("reading");
  check_reading_memory(*mesh_file, settings.max_memory_bytes);
  const std::string bytes = read_file(*mesh_file);
  const TriangleMesh input = parse_mesh(bytes, *mesh_file);
  if (voxels != 0) settings.h = used_diagonal(input) / static_cast<double>(voxels);
  BakeSettings check;
  check.h = settings.h;
  check.band = settings.band;
  check_bake_settings(check);
  // The storage takes h and band (Half: its range), and the memory estimate needs only
  // the triangles: refuse before welding and validation.
  std::size_t brick_bytes = 0;
  with_storage_named(storage, [&]<class S>() {
    (void)Grid<S>(settings.h, settings.band);
    brick_bytes = kMaxBrickBytes<S>;
  });
  check_mesh_bake_memory(input.positions, input.triangles, settings, brick_bytes, *mesh_file);
  progress.phase("validating");
  const PreparedMesh mesh = prepare_mesh(input, *mesh_file, allow_open, settings.threads);
  progress.finish();
  std::fputs(describe(mesh.report).c_str(), stdout);
  std::fflush(stdout);

  nlohmann::json origin = grid_origin("mesh", *mesh_file);
  origin["input_fnv1a"] = content_hash(bytes);
  origin["triangles"] = mesh.triangles.size();
  origin["solid"] = mesh.report.solid();
  with_storage_named(storage, [&]<class S>() { bake_and_save<S>(mesh, settings, *out, origin.dump(), progress); });
  return 0;
}

}  // namespace distgrid::tools
