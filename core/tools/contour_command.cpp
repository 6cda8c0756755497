// `distgrid contour`: the zero-level mesh of a grid, written to STL, OBJ or PLY, with
// the mesh's statistics printed.
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>
#include <variant>

#include "commands.hpp"
#include "distgrid/command_line.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/detail/parallel.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/memory_budget.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_stats.hpp"
#include "distgrid/region_edge.hpp"
#include "tool_output.hpp"

namespace distgrid::tools {

namespace {

constexpr const char* kContourHelp = R"(usage: distgrid contour GRID.dgrid --out FILE.{stl,obj,ply} [options]

  --mesher NAME      surface-nets (default) or marching-cubes
  --manifold         surface nets: one vertex per piece of surface in a cell, so a
                     checkerboard face does not make a non-manifold vertex
  --format F         stl (binary, float32), stl-ascii, obj, ply (binary), ply-ascii;
                     default from the extension of --out
  --max-memory SIZE  refuse (toolarge) before meshing when the mesh, its statistics
                     and the file would need more (e.g. 512M, 8G; default: 3/4 of
                     physical memory)
  --threads N        worker threads (default: all; the mesh does not depend on it)
  --out FILE         the mesh (written to a temporary file, then renamed)

Prints vertices, triangles, edges, boundary edges, edges with more than two
triangles, non-manifold vertices, Euler characteristic, signed volume and area, and
in one line whether the mesh is a closed manifold and, when it is not, why: a
non-manifold mesh from surface nets names --manifold; a surface that reaches the
edge of the grid's baked region is closed there by the region, not by the shape.
)";

MeshFormat format_from_name(const std::string& name) {
  if (name == "stl") return MeshFormat::stl_binary;
  if (name == "stl-ascii") return MeshFormat::stl_ascii;
  if (name == "obj") return MeshFormat::obj;
  if (name == "ply") return MeshFormat::ply_binary;
  if (name == "ply-ascii") return MeshFormat::ply_ascii;
  throw command_line::UsageError{"--format expects stl, stl-ascii, obj, ply or ply-ascii, got '" + name + "'" +
                                 command_line::did_you_mean(name, {"stl", "stl-ascii", "obj", "ply", "ply-ascii"})};
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

/// Bytes a file of the format takes per triangle of a closed mesh (about two
/// triangles per vertex), at most.
double file_bytes_per_triangle(MeshFormat format) {
  switch (format) {
    case MeshFormat::stl_binary: return 50;
    case MeshFormat::stl_ascii: return 420;
    case MeshFormat::obj: return 50 + 40;
    case MeshFormat::ply_ascii: return 50 + 40;
    case MeshFormat::ply_binary: return 24 + 13;
  }
  return 420;
}

/// The contour reserves 48 vertices and 96 triangles per stored brick (a surface
/// crossing it); the estimate adds the normals, the statistics' edge list (three
/// 16-byte entries per triangle) and the file's bytes.
void check_contour_memory(std::size_t stored_bricks, MeshFormat format, std::uint64_t budget, const std::string& source) {
  const double vertices = 48.0 * static_cast<double>(stored_bricks), triangles = 2 * vertices;
  const double need = vertices * 48 + triangles * (12 + 3 * 16 + file_bytes_per_triangle(format));
  if (need <= static_cast<double>(budget)) return;
  throw Error(ErrorCode::toolarge,
              source + ": the contour of " + std::to_string(stored_bricks) + (stored_bricks == 1 ? " stored brick" : " stored bricks") + " (about " +
                  table_number(vertices) + " vertices and " + table_number(triangles) + " triangles) needs about " +
                  format_bytes(static_cast<std::uint64_t>(need)) + " with its statistics and file, over the memory budget of " +
                  format_bytes(budget) + " (raise it with --max-memory)");
}

/// The one line that says whether the mesh is a closed manifold and, if not, why.
std::string closed_line(const MeshStats& stats, const ContourOptions& options, std::size_t region_edges) {
  if (region_edges != 0)
    return "closed manifold no: the surface reaches the edge of the baked region at " + std::to_string(region_edges) +
           " grid edges and is closed there by the region, not by the shape";
  if (stats.closed_manifold()) return "closed manifold yes";
  std::string why;
  auto add = [&](std::size_t count, const char* what) {
    if (count != 0) why += (why.empty() ? "" : ", ") + std::to_string(count) + " " + what;
  };
  add(stats.boundary_edges, "boundary edges");
  add(stats.non_manifold_edges, "edges with more than two triangles");
  add(stats.misoriented_edges, "misoriented edges");
  add(stats.non_manifold_vertices, "non-manifold vertices");
  std::string line = "closed manifold no: " + why;
  const bool non_manifold = stats.non_manifold_edges != 0 || stats.non_manifold_vertices != 0;
  if (non_manifold && options.mesher == Mesher::surface_nets && !options.manifold)
    line += "; rerun with --manifold to split the vertices of cells with several pieces";
  return line;
}

template <class S>
int contour_and_write(const Grid<S>& grid, const std::string& source, const ContourOptions& options,
                      const std::string& out, MeshFormat format, std::uint64_t budget, command_line::Progress& progress) {
  check_contour_memory(grid.stored_brick_count(), format, budget, source);
  progress.phase("meshing");
  const auto started = std::chrono::steady_clock::now();
  const ContourResult result = contour(grid, options);
  const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
  progress.phase("statistics");
  const MeshStats stats = mesh_stats(result.mesh);
  const std::size_t region_edges = region_edge_crossings(grid);
  progress.phase("writing");
  write_mesh(result.mesh, out, format);
  progress.finish();
  std::printf("contour %s: %s%s, %zu bricks meshed, %u threads, %.3g ms\n", source.c_str(),
              std::string(mesher_name(options.mesher)).c_str(), options.manifold ? " (manifold)" : "", result.bricks_meshed,
              detail::resolve_thread_count(options.threads), ms);
  std::printf("vertices %zu\ntriangles %zu\nedges %zu\nboundary edges %zu\nedges with more than two triangles %zu\n",
              stats.vertices, stats.triangles, stats.edges, stats.boundary_edges, stats.non_manifold_edges);
  std::printf("misoriented edges %zu\nnon-manifold vertices %zu\ncells with several pieces %zu\ndegenerate triangles %zu\n",
              stats.misoriented_edges, stats.non_manifold_vertices, result.split_cells, stats.degenerate_triangles);
  std::printf("euler characteristic %lld\nsigned volume %s\narea %s\n%s\n", static_cast<long long>(stats.euler_characteristic),
              table_number(stats.signed_volume).c_str(), table_number(stats.area).c_str(),
              closed_line(stats, options, region_edges).c_str());
  std::printf("wrote %s (%s)\n", out.c_str(), format_label(format));
  return 0;
}

}  // namespace

int run_contour(int argc, char** argv) {
  const command_line::Arguments args =
      command_line::Arguments::parse(argc, argv, {"--mesher", "--out", "--format", "--threads", "--max-memory"}, {"--manifold"});
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
      throw command_line::UsageError{std::string("--mesher: ") + e.what() +
                                     command_line::did_you_mean(*mesher, {"surface-nets", "marching-cubes"})};
    }
  }
  options.manifold = args.has_flag("--manifold");
  if (auto threads = args.get("--threads")) options.threads = static_cast<unsigned>(command_line::parse_count(*threads, "--threads", 1, 1024));
  std::uint64_t budget = default_memory_budget();
  if (const auto text = args.get("--max-memory")) budget = command_line::parse_bytes(*text, "--max-memory");
  check_output_path(*out);
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
  command_line::Progress progress("distgrid");
  progress.phase("reading");
  const AnyGrid grid = load_grid(source);
  return std::visit([&](const auto& g) { return contour_and_write(g, source, options, *out, format, budget, progress); },
                    grid);
}

}  // namespace distgrid::tools
