// What a project using the installed package relies on: a formula baked, read back
// and meshed, a grid saved and loaded, and a typed error for a bad spec. Each check
// prints what it measured and fails the run when it is off.
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <numbers>
#include <string>
#include <variant>

#include "distgrid/bake.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/grid.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/mesh_stats.hpp"

namespace {

int failures = 0;

void check(bool ok, const char* what, double measured) {
  std::printf("%-48s %.17g %s\n", what, measured, ok ? "ok" : "FAILED");
  if (!ok) ++failures;
}

}  // namespace

int main() {
  const auto field = distgrid::compile_field_text<float>(
      R"({"type": "sphere", "center": [0, 0, 0], "radius": 1})", "sphere.json");
  distgrid::BakeSettings settings;
  settings.h = 1.0 / 32;
  const distgrid::Grid<float> grid = distgrid::bake(field, settings);

  // On a node within the band the stored value is the distance rounded to float:
  // 30/32 - 1 = -0.0625 exactly.
  check(grid.sample(0.9375, 0, 0) == -0.0625, "sample on the node (30 h, 0, 0)", grid.sample(0.9375, 0, 0));
  const auto g = grid.gradient(0.0123, 0.98, 0.02);
  const double norm = std::sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  check(std::abs(norm - 1) < 0.05, "gradient length near the surface", norm);
  const double exact_volume = 4 * std::numbers::pi / 3;
  const double volume = grid.volume();
  check(std::abs(volume / exact_volume - 1) < 1e-3, "volume / (4 pi / 3)", volume / exact_volume);

  const distgrid::ContourResult contour = distgrid::contour(grid);
  const distgrid::MeshStats stats = distgrid::mesh_stats(contour.mesh);
  check(stats.triangles > 0 && stats.boundary_edges == 0 && stats.euler_characteristic == 2,
        "contour: closed, Euler characteristic", static_cast<double>(stats.euler_characteristic));

  const std::string path = (std::filesystem::temp_directory_path() / "distgrid-consumer-sphere.dgrid").string();
  distgrid::save_grid(grid, path);
  const distgrid::AnyGrid loaded = distgrid::load_grid(path);
  std::filesystem::remove(path);
  const bool is_float = std::holds_alternative<distgrid::Grid<float>>(loaded);
  check(is_float && std::get<distgrid::Grid<float>>(loaded).volume() == volume, "saved and loaded: the same volume",
        is_float ? std::get<distgrid::Grid<float>>(loaded).volume() : -1.0);

  bool typed = false;
  try {
    distgrid::compile_field_text<double>(R"({"type": "sphere", "center": [0, 0, 0], "radius": -1})", "bad.json");
  } catch (const distgrid::Error& e) {
    typed = e.code() == distgrid::ErrorCode::badspec && std::string(e.what()).find("/radius") != std::string::npos;
    std::printf("bad spec: %s: %s\n", std::string(distgrid::error_code_name(e.code())).c_str(), e.what());
  }
  check(typed, "a bad spec is badspec naming /radius", typed ? 1 : 0);
  return failures == 0 ? 0 : 1;
}
