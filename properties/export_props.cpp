// Properties of the exports (export.stl, export.obj, export.ply): every format
// reads back what was written, to the bit where the format allows and to the
// float32 rounding in binary STL; bad meshes are refused without touching the file.
#include <array>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <limits>
#include <string>
#include <unistd.h>
#include <vector>

#include "distgrid/contour.hpp"
#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "distgrid/mesh_stats.hpp"
#include "distgrid/properties/generators.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;

/// A fresh file name in the temporary directory, removed when it goes out of scope.
class ScratchFile {
 public:
  explicit ScratchFile(const std::string& extension) {
    static std::atomic<int> counter{0};
    path_ = (std::filesystem::temp_directory_path() /
             ("distgrid-export-props-" + std::to_string(::getpid()) + "-" + std::to_string(counter++) + extension))
                .string();
  }
  ~ScratchFile() {
    std::error_code ignored;
    std::filesystem::remove(path_, ignored);
  }
  ScratchFile(const ScratchFile&) = delete;
  ScratchFile& operator=(const ScratchFile&) = delete;
  const std::string& path() const { return path_; }

 private:
  std::string path_;
};

/// Any finite double, with the awkward ones drawn on purpose.
rc::Gen<double> any_finite_double() {
  return rc::gen::weightedOneOf<double>(
      {{4, rc::gen::suchThat(rc::gen::arbitrary<double>(), [](double v) { return std::isfinite(v); })},
       {2, dyadic(1 << 20, 10)},
       {1, rc::gen::element(0.0, -0.0, std::numeric_limits<double>::denorm_min(), -std::numeric_limits<double>::min(),
                            std::numeric_limits<double>::max(), -std::numeric_limits<double>::max(), 0.1,
                            1.0 / 3.0)}});
}

/// Triangles over random corners (all corners used, indices in range).
rc::Gen<TriangleMesh> random_mesh(const rc::Gen<double>& coordinate) {
  return rc::gen::mapcat(rc::gen::inRange<std::size_t>(3, 40), [coordinate](std::size_t corners) {
    return rc::gen::apply(
        [corners](std::vector<std::array<double, 3>> positions, std::vector<std::array<std::uint32_t, 3>> extra) {
          TriangleMesh m;
          m.positions = std::move(positions);
          for (std::uint32_t v = 0; v + 2 < corners; v += 3) m.triangles.push_back({v, v + 1, v + 2});
          for (auto& t : extra) {
            for (auto& v : t) v %= static_cast<std::uint32_t>(corners);
            if (t[0] != t[1] && t[1] != t[2] && t[0] != t[2]) m.triangles.push_back(t);
          }
          return m;
        },
        rc::gen::container<std::vector<std::array<double, 3>>>(
            corners, rc::gen::apply([](double x, double y, double z) { return std::array<double, 3>{x, y, z}; },
                                    coordinate, coordinate, coordinate)),
        rc::gen::container<std::vector<std::array<std::uint32_t, 3>>>(rc::gen::arbitrary<std::array<std::uint32_t, 3>>()));
  });
}

/// Corner positions triangle by triangle (formats that store a soup).
std::vector<std::array<double, 3>> corners_in_order(const TriangleMesh& m) {
  std::vector<std::array<double, 3>> out;
  for (const auto& t : m.triangles)
    for (std::uint32_t v : t) out.push_back(m.positions[v]);
  return out;
}

bool same_bits(const std::array<double, 3>& a, const std::array<double, 3>& b) {
  return std::memcmp(a.data(), b.data(), sizeof a) == 0;
}

void check_indexed_round_trip(MeshFormat format, const char* extension) {
  const TriangleMesh mesh = *random_mesh(any_finite_double());
  const ScratchFile file(extension);
  write_mesh(mesh, file.path(), format);
  const TriangleMesh back = read_mesh(file.path());
  RC_ASSERT(back.triangles == mesh.triangles);
  RC_ASSERT(back.positions.size() == mesh.positions.size());
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) RC_ASSERT(same_bits(back.positions[v], mesh.positions[v]));
}

DISTGRID_PROPERTY(ExportObj, roundTripsEveryFiniteDoubleToTheBit, 200) { check_indexed_round_trip(MeshFormat::obj, ".obj"); }

DISTGRID_PROPERTY(ExportPly, binaryAndAsciiRoundTripEveryFiniteDoubleToTheBit, 200) {
  check_indexed_round_trip(MeshFormat::ply_binary, ".ply");
  check_indexed_round_trip(MeshFormat::ply_ascii, ".ply");
}

DISTGRID_PROPERTY(ExportStl, asciiRoundTripsEveryFiniteDoubleToTheBit, 200) {
  const TriangleMesh mesh = *random_mesh(any_finite_double());
  const ScratchFile file(".stl");
  write_mesh(mesh, file.path(), MeshFormat::stl_ascii);
  const auto expected = corners_in_order(mesh), got = corners_in_order(read_mesh(file.path()));
  RC_ASSERT(got.size() == expected.size());
  for (std::size_t c = 0; c < got.size(); ++c) RC_ASSERT(same_bits(got[c], expected[c]));
}

// Binary STL stores float32 by definition: each corner reads back as its three
// coordinates rounded to nearest float, no worse.
DISTGRID_PROPERTY(ExportStl, binaryRoundTripsToTheFloat32RoundingOfEveryCorner, 200) {
  const TriangleMesh mesh = *random_mesh(rc::gen::weightedOneOf<double>(
      {{3, rc::gen::map(rc::gen::arbitrary<float>(), [](float f) { return std::isfinite(f) ? static_cast<double>(f) * (1 + 0x1p-30) : 0.0; })},
       {2, dyadic(std::int64_t{1} << 40, 20)},
       {1, rc::gen::element(0.0, -0.0, 0.1, 1.0 / 3.0, 1e-40, 3.4e38)}}));
  const ScratchFile file(".stl");
  write_mesh(mesh, file.path(), MeshFormat::stl_binary);
  const auto expected = corners_in_order(mesh), got = corners_in_order(read_mesh(file.path()));
  RC_ASSERT(got.size() == expected.size());
  for (std::size_t c = 0; c < got.size(); ++c)
    for (std::size_t a = 0; a < 3; ++a)
      RC_ASSERT(got[c][a] == static_cast<double>(static_cast<float>(expected[c][a])));
}

// A closed contour mesh written in any format reads back, once welded, as a
// closed manifold with the same counts and (to float32 in binary STL) volume.
DISTGRID_PROPERTY(ExportStlAndExportObjAndExportPly, aClosedContourMeshReadsBackClosed, 30) {
  const Grid<float> grid = (*sphere_grid(0.125)).build<float>();
  ContourOptions options;
  options.mesher = *rc::gen::element(Mesher::surface_nets, Mesher::marching_cubes);
  options.manifold = true;
  const TriangleMesh mesh = contour(grid, options).mesh;
  const MeshStats before = mesh_stats(mesh);
  for (const auto& [format, extension] : {std::pair{MeshFormat::stl_binary, ".stl"}, std::pair{MeshFormat::stl_ascii, ".stl"},
                                          std::pair{MeshFormat::obj, ".obj"}, std::pair{MeshFormat::ply_binary, ".ply"},
                                          std::pair{MeshFormat::ply_ascii, ".ply"}}) {
    const ScratchFile file(extension);
    write_mesh(mesh, file.path(), format);
    const MeshStats after = mesh_stats(weld_corners(read_mesh(file.path()), file.path()));
    RC_ASSERT(after.closed_manifold());
    RC_ASSERT(after.triangles == before.triangles);
    RC_ASSERT(after.vertices == before.vertices);
    const double allowed = format == MeshFormat::stl_binary ? 1e-5 : 1e-12;
    RC_ASSERT(std::fabs(after.signed_volume - before.signed_volume) <= allowed * before.signed_volume);
  }
}

DISTGRID_PROPERTY(ExportStlAndExportObjAndExportPly, aBadMeshIsRefusedAndTheOldFileStays, 100) {
  TriangleMesh mesh = *random_mesh(dyadic(1 << 20, 10));
  const auto [format, extension] = *rc::gen::element(std::pair{MeshFormat::stl_binary, ".stl"}, std::pair{MeshFormat::stl_ascii, ".stl"},
                                                     std::pair{MeshFormat::obj, ".obj"}, std::pair{MeshFormat::ply_binary, ".ply"},
                                                     std::pair{MeshFormat::ply_ascii, ".ply"});
  const ScratchFile file(extension);
  write_mesh(mesh, file.path(), format);
  const std::string good = read_file(file.path());
  mesh.positions[*rc::gen::inRange<std::size_t>(0, mesh.positions.size())][*rc::gen::inRange<std::size_t>(0, 3)] =
      *rc::gen::element(std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                        std::numeric_limits<double>::quiet_NaN());
  try {
    write_mesh(mesh, file.path(), format);
    RC_FAIL("a mesh with a non-finite corner was written");
  } catch (const Error& e) {
    RC_ASSERT(e.code() == ErrorCode::badmesh);
  }
  RC_ASSERT(read_file(file.path()) == good);
}

}  // namespace
}  // namespace distgrid
