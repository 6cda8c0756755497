// `distgrid bake --mesh FILE ...`: read, weld and validate a triangle mesh, bake it,
// print the validation report and the bake's statistics, save the grid.
#include <algorithm>
#include <chrono>
#include <cinttypes>
#include <cmath>
#include <cstdio>
#include <string>

#include "commands.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/error.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_prepare.hpp"

namespace distgrid::tools {
namespace {

using command_line::Arguments;
using command_line::parse_bytes;
using command_line::parse_count;
using command_line::parse_number;
using command_line::ProgressLine;
using command_line::UsageError;

constexpr const char* kBakeMeshHelp = R"(usage: distgrid bake --mesh FILE (--h H | --voxels-per-diagonal N) --out FILE.dgrid [options]

  --mesh FILE              closed triangle mesh: STL (binary or ASCII), OBJ or PLY,
                           recognised by content
  --h H                    voxel size, > 0 (decimal or hex-float)
  --voxels-per-diagonal N  voxel size = diagonal of the mesh's box / N
  --band B                 band half-width in voxels, >= 1 (default 3)
  --storage float|double   brick storage scalar (default float)
  --allow-open             bake an open, non-manifold or inconsistently oriented
                           mesh anyway (its signs and inside bricks are not trusted)
  --threads N              worker threads (default: all; results do not depend on it)
  --max-memory SIZE        refuse (toolarge) before baking when the grid would need more
                           (e.g. 512M, 8G; default: 3/4 of physical memory)
  --out FILE               output .dgrid (written to a temporary file, then renamed)

Prints the mesh's validation report and the bake's statistics.
)";

template <class S>
void bake_and_save(const PreparedMesh& mesh, const MeshBakeSettings& settings, const std::string& out) {
  const auto started = std::chrono::steady_clock::now();
  ProgressLine progress("baking bricks");
  MeshBakeStats stats;
  const Grid<S> grid = bake_mesh<S>(mesh, settings, [&](std::size_t d, std::size_t t) { progress(d, t); }, &stats);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  save_grid(grid, out);
  std::printf("bake       h %.17g, band %.17g, storage %s, %zu triangles\n", settings.h, settings.band,
              sizeof(S) == 4 ? "float" : "double", stats.triangles);
  std::printf("bricks     %zu computed (%zu with no node in the band), %zu inside, %" PRId64 " considered\n",
              stats.bricks_computed, stats.bricks_beyond_band, stats.bricks_inside, stats.bricks_considered);
  std::printf("rows       %zu parity rays, %zu retried, %zu unmarked\n", stats.rows, stats.rows_retried, stats.rows_unmarked);
  std::printf("time       %.3f s, memory %zu bytes\n", seconds, grid.memory_bytes());
  if (!stats.trusted)
    std::printf("warning    the mesh is not closed and consistently oriented: signs near the offending edges\n"
                "           and the inside bricks found by ray parity cannot be trusted\n");
  if (stats.rows_unmarked != 0)
    std::printf("warning    %zu rows kept an odd crossing count; their far bricks were left outside\n", stats.rows_unmarked);
  std::printf("wrote %s\n", out.c_str());
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
  const std::string storage = args.get("--storage").value_or("float");
  if (storage != "float" && storage != "double") throw UsageError{"--storage expects float or double, got '" + storage + "'"};

  MeshBakeSettings settings;
  if (h_text) settings.h = parse_number(*h_text, "--h");
  const unsigned long long voxels = per_diagonal ? parse_count(*per_diagonal, "--voxels-per-diagonal", 1, 1000000) : 0;
  if (auto band = args.get("--band")) settings.band = parse_number(*band, "--band");
  if (auto threads = args.get("--threads")) settings.threads = static_cast<unsigned>(parse_count(*threads, "--threads", 1, 1024));
  if (auto budget = args.get("--max-memory")) settings.max_memory_bytes = parse_bytes(*budget, "--max-memory");

  const PreparedMesh mesh = prepare_mesh(read_mesh(*mesh_file), *mesh_file, args.has_flag("--allow-open"));
  std::fputs(describe(mesh.report).c_str(), stdout);
  if (voxels != 0) {
    Vec3 lo = mesh.positions.front(), hi = lo;
    for (const Vec3& p : mesh.positions)
      for (std::size_t a = 0; a < 3; ++a) {
        lo[a] = std::min(lo[a], p[a]);
        hi[a] = std::max(hi[a], p[a]);
      }
    const Vec3 extent = detail::sub3(hi, lo);
    settings.h = std::sqrt(detail::dot3(extent, extent)) / static_cast<double>(voxels);
  }
  if (storage == "float")
    bake_and_save<float>(mesh, settings, *out);
  else
    bake_and_save<double>(mesh, settings, *out);
  return 0;
}

}  // namespace distgrid::tools
