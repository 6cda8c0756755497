// `distgrid contour`: the zero-level mesh of a grid, written to STL, OBJ or PLY, with
// the mesh's statistics printed.
#include <chrono>
#include <optional>
#include <cstdio>
#include <string>
#include <variant>

#include "commands.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_stats.hpp"

namespace distgrid::tools {

namespace {

constexpr const char* kContourHelp = R"(usage: distgrid contour GRID.dgrid --out FILE.{stl,obj,ply} [options]

  --mesher NAME     surface-nets (default) or marching-cubes
  --manifold        surface nets: one vertex per piece of surface in a cell, so a
                    checkerboard face does not make a non-manifold vertex
  --format F        stl (binary, float32), stl-ascii, obj, ply (binary), ply-ascii;
                    default from the extension of --out
  --threads N       worker threads (default: all; the mesh does not depend on it)
  --out FILE        the mesh (written to a temporary file, then renamed)

Prints vertices, triangles, edges, boundary edges, edges with more than two
triangles, non-manifold vertices, Euler characteristic, signed volume and area.
)";

MeshFormat format_from_name(const std::string& name) {
  if (name == "stl") return MeshFormat::stl_binary;
  if (name == "stl-ascii") return MeshFormat::stl_ascii;
  if (name == "obj") return MeshFormat::obj;
  if (name == "ply") return MeshFormat::ply_binary;
  if (name == "ply-ascii") return MeshFormat::ply_ascii;
  throw command_line::UsageError{"--format expects stl, stl-ascii, obj, ply or ply-ascii, got '" + name + "'"};
}

const char* format_label(MeshFormat format) {
  switch (format) {
    case MeshFormat::stl_binary: return "binary STL, float32";
    case MeshFormat::stl_ascii: return "ASCII STL";
    case MeshFormat::obj: return "OBJ";
    case MeshFormat::ply_ascii: return "ASCII PLY";
    case MeshFormat::ply_binary: return "binary little-endian PLY";
  }
  return "?";
}

template <class S>
int contour_and_write(const Grid<S>& grid, const std::string& source, const ContourOptions& options,
                      const std::string& out, MeshFormat format) {
  command_line::ProgressLine progress("meshing");
  const auto started = std::chrono::steady_clock::now();
  const ContourResult result = contour(grid, options);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  progress(1, 1);
  const MeshStats stats = mesh_stats(result.mesh);
  write_mesh(result.mesh, out, format);
  std::printf("contour %s: %s%s, %zu bricks meshed, %u threads, %.1f ms\n", source.c_str(),
              std::string(mesher_name(options.mesher)).c_str(), options.manifold ? " (manifold)" : "", result.bricks_meshed,
              detail::resolve_thread_count(options.threads), ms);
  std::printf("vertices %zu\ntriangles %zu\nedges %zu\nboundary edges %zu\nedges with more than two triangles %zu\n",
              stats.vertices, stats.triangles, stats.edges, stats.boundary_edges, stats.non_manifold_edges);
  std::printf("misoriented edges %zu\nnon-manifold vertices %zu\ncells with several pieces %zu\ndegenerate triangles %zu\n",
              stats.misoriented_edges, stats.non_manifold_vertices, result.split_cells, stats.degenerate_triangles);
  std::printf("euler characteristic %lld\nsigned volume %.17g\narea %.17g\nclosed manifold %s\n",
              static_cast<long long>(stats.euler_characteristic), stats.signed_volume, stats.area,
              stats.closed_manifold() ? "yes" : "no");
  std::printf("wrote %s (%s)\n", out.c_str(), format_label(format));
  return 0;
}

}  // namespace

int run_contour(int argc, char** argv) {
  const command_line::Arguments args =
      command_line::Arguments::parse(argc, argv, {"--mesher", "--out", "--format", "--threads"}, {"--manifold"});
  if (args.help) {
    std::fputs(kContourHelp, stdout);
    return 0;
  }
  if (args.positional.size() != 1) throw command_line::UsageError{"contour expects one GRID.dgrid"};
  const std::optional<std::string> out = args.get("--out");
  if (!out) throw command_line::UsageError{"contour needs --out FILE"};
  ContourOptions options;
  if (const auto mesher = args.get("--mesher")) {
    try {
      options.mesher = mesher_from_name(*mesher);
    } catch (const Error& e) {
      throw command_line::UsageError{std::string("--mesher: ") + e.what()};
    }
  }
  options.manifold = args.has_flag("--manifold");
  if (auto threads = args.get("--threads")) options.threads = static_cast<unsigned>(command_line::parse_count(*threads, "--threads", 1, 1024));
  MeshFormat format{};
  if (const auto name = args.get("--format")) {
    format = format_from_name(*name);
  } else {
    try {
      format = mesh_format_for_path(*out);
    } catch (const Error& e) {
      throw command_line::UsageError{std::string("--out: ") + e.what()};
    }
  }
  const std::string& source = args.positional.front();
  const AnyGrid grid = load_grid(source);
  return std::visit([&](const auto& g) { return contour_and_write(g, source, options, *out, format); }, grid);
}

}  // namespace distgrid::tools
