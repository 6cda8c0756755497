// Digests of the calculations that take vector code paths (bake, mesh bake, volume,
// sampling, gradients, both meshers), for every storage, for the isa_paths test: the core library built
// for x86-64-v2, v3 and v4 must print the same lines. Exits 77 (skipped) when this
// processor cannot run the instruction set the probe was built for.
//
//   distgrid_isa_probe LEVEL    (LEVEL as passed to -march, e.g. x86-64-v3)
#include <array>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "distgrid/bake.hpp"
#include "distgrid/build_info.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/mesh_prepare.hpp"

namespace {

using namespace distgrid;

/// FNV-1a over bytes, so two builds compare by one number per calculation.
struct Digest {
  std::uint64_t value = 0xcbf29ce484222325ull;
  template <class T>
  void add(const std::vector<T>& items) {
    const auto* bytes = reinterpret_cast<const unsigned char*>(items.data());
    for (std::size_t b = 0; b < items.size() * sizeof(T); ++b) value = (value ^ bytes[b]) * 0x100000001b3ull;
  }
  void add(double x) { add(std::vector<double>{x}); }
};

/// Keys, codes and (q16, q8) each brick's offset and step.
template <class S>
void print_grid(const std::string& what, const Grid<S>& grid) {
  using Code = typename Grid<S>::Code;
  Digest d;
  d.add(grid.stored_keys());
  d.add(grid.inside_keys());
  for (std::size_t slot = 0; slot < grid.stored_brick_count(); ++slot) {
    d.add(std::vector<Code>(grid.brick_codes(slot), grid.brick_codes(slot) + kBrickNodes));
    if constexpr (!Grid<S>::kDirect) d.add(std::vector<double>{grid.brick_parameters(slot).offset, grid.brick_parameters(slot).step});
  }
  std::printf("%s grid %016llx\n", what.c_str(), static_cast<unsigned long long>(d.value));
}

template <class S>
void probe_part(const char* part, double h) {
  const std::string what = std::string(part) + " " + std::string(storage_name<S>());
  BakeSettings settings;
  settings.h = h;
  settings.threads = 2;
  const Grid<S> grid = bake<S>(compile_field<FieldScalarOf<S>>(default_part(part).spec), settings);
  print_grid(what, grid);
  Digest volume;
  volume.add(grid.volume());
  std::printf("%s volume %016llx\n", what.c_str(), static_cast<unsigned long long>(volume.value));
  const auto extent = grid.extent();
  std::mt19937_64 random(20261203);
  std::vector<std::array<double, 3>> points(20000);
  for (auto& p : points)
    for (std::size_t a = 0; a < 3; ++a)
      p[a] = std::uniform_real_distribution<double>(static_cast<double>(extent->lo[a]) * 8 * h,
                                                    static_cast<double>(extent->hi[a] + 1) * 8 * h)(random);
  std::vector<double> values(points.size());
  std::vector<std::array<double, 3>> gradients(points.size());
  grid.sample_many(points, values, 2);
  grid.gradient_many(points, gradients, 2);
  Digest samples, slopes;
  samples.add(values);
  slopes.add(gradients);
  std::printf("%s samples %016llx gradients %016llx\n", what.c_str(), static_cast<unsigned long long>(samples.value),
              static_cast<unsigned long long>(slopes.value));
  for (const auto& [name, options] : {std::pair<const char*, ContourOptions>{"surface nets", {Mesher::surface_nets, false, 2}},
                                      {"manifold surface nets", {Mesher::surface_nets, true, 2}},
                                      {"marching cubes", {Mesher::marching_cubes, false, 2}}}) {
    const ContourResult result = contour(grid, options);
    Digest d;
    d.add(result.mesh.positions);
    d.add(result.mesh.normals);
    d.add(result.mesh.triangles);
    std::printf("%s %s %016llx (%zu triangles)\n", what.c_str(), name, static_cast<unsigned long long>(d.value),
                result.mesh.triangles.size());
  }
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: distgrid_isa_probe LEVEL\n");
    return 2;
  }
  const std::string level = argv[1];
  __builtin_cpu_init();
  const bool runs = level == "x86-64-v2"   ? __builtin_cpu_supports("x86-64-v2")
                    : level == "x86-64-v3" ? __builtin_cpu_supports("x86-64-v3")
                    : level == "x86-64-v4" ? __builtin_cpu_supports("x86-64-v4")
                                           : false;
  if (!runs) {
    std::printf("this processor cannot run %s\n", level.c_str());
    return 77;
  }
  std::fprintf(stderr, "built for %s\n", build_instruction_set().c_str());
  for (const char* part : {"sphere", "torus", "bracket", "gyroid"}) {
    probe_part<float>(part, 1.0 / 40);
    probe_part<double>(part, 1.0 / 40);
    probe_part<Half>(part, 1.0 / 40);
    probe_part<Q16>(part, 1.0 / 40);
    probe_part<Q8>(part, 1.0 / 40);
  }
  const MeshPart torus = mesh_part("torus_mesh");
  MeshBakeSettings settings;
  settings.h = 1.0 / 40;
  settings.threads = 2;
  print_grid("torus_mesh float", bake_mesh<float>(prepare_mesh(torus.mesh, torus.name), settings));
  print_grid("torus_mesh double", bake_mesh<double>(prepare_mesh(torus.mesh, torus.name), settings));
  print_grid("torus_mesh half", bake_mesh<Half>(prepare_mesh(torus.mesh, torus.name), settings));
  print_grid("torus_mesh q16", bake_mesh<Q16>(prepare_mesh(torus.mesh, torus.name), settings));
  print_grid("torus_mesh q8", bake_mesh<Q8>(prepare_mesh(torus.mesh, torus.name), settings));
  return 0;
}
