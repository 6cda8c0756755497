// `distgrid contour` end to end: bake, mesh with each mesher, read the file back.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "distgrid/bake.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/grid_io.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_stats.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_meshes.hpp"

namespace distgrid {
namespace {

namespace fs = std::filesystem;
using distgrid::test_support::CliResult;
using distgrid::test_support::run_cli;

using ContourCli = distgrid::test_support::ScratchDirTest;

TEST_F(ContourCli, writesAClosedMeshWithEachMesherAndPrintsItsStatistics) {
  const std::string grid = path("torus.dgrid");
  ASSERT_EQ(run_cli("bake --part torus --h 0x1p-4 --storage double --threads 1 --out " + grid).exit_code, 0);
  for (const std::string& options : {std::string("--mesher surface-nets --out ") + path("a.obj"),
                                     std::string("--mesher marching-cubes --out ") + path("b.ply"),
                                     std::string("--manifold --format stl-ascii --out ") + path("c.stl")}) {
    const CliResult r = run_cli("contour " + grid + " " + options);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("euler characteristic 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("boundary edges 0"), std::string::npos) << r.out;
    EXPECT_NE(r.out.find("closed manifold yes"), std::string::npos) << r.out;
  }
  const MeshStats obj = mesh_stats(read_mesh(path("a.obj")));
  EXPECT_TRUE(obj.closed_manifold());
  EXPECT_EQ(obj.euler_characteristic, 0);
  EXPECT_GT(obj.signed_volume, 0);
  EXPECT_TRUE(mesh_stats(read_mesh(path("b.ply"))).closed_manifold());
  EXPECT_GT(mesh_stats(read_mesh(path("c.stl"))).triangles, 0u);
}

TEST_F(ContourCli, theMesherAndFormatOptionsChooseWhatIsWritten) {
  const std::string grid = path("torus.dgrid");
  ASSERT_EQ(run_cli("bake --part torus --h 0x1p-4 --out " + grid).exit_code, 0);
  const auto baked = std::get<Grid<float>>(load_grid(grid));
  ContourOptions marching;
  marching.mesher = Mesher::marching_cubes;
  const ContourResult expected = contour(baked, marching);
  ASSERT_NE(expected.mesh.positions, contour(baked, ContourOptions{}).mesh.positions);
  const CliResult r = run_cli("contour " + grid + " --mesher marching-cubes --format ply-ascii --out " + path("m.stl"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("marching-cubes"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("\nvertices " + std::to_string(expected.mesh.positions.size()) + "\n"), std::string::npos) << r.out;
  const TriangleMesh written = read_mesh(path("m.stl"));  // recognised by content, whatever the extension
  EXPECT_EQ(written.positions, expected.mesh.positions);  // ASCII PLY keeps 17 significant digits
  EXPECT_EQ(written.triangles, expected.mesh.triangles);
  std::ifstream file(path("m.stl"), std::ios::binary);
  std::string first_line;
  std::getline(file, first_line);
  EXPECT_EQ(first_line, "ply");
  std::getline(file, first_line);
  EXPECT_EQ(first_line, "format ascii 1.0");  // --format wins over the extension
}

TEST_F(ContourCli, threadsChangeNothingInTheFileAndAreUsed) {
  const std::string grid = path("sphere.dgrid");
  ASSERT_EQ(run_cli("bake --part sphere --h 0x1p-5 --threads 1 --out " + grid).exit_code, 0);
  std::string first;
  for (const char* threads : {"1", "3"}) {
    const std::string out = path(std::string("t") + threads + ".ply");
    const CliResult r = run_cli("contour " + grid + " --mesher marching-cubes --threads " + threads + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find(std::string(", ") + threads + " threads"), std::string::npos) << r.out;
    std::ifstream in(out, std::ios::binary);
    const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    ASSERT_FALSE(bytes.empty());
    if (first.empty()) first = bytes;
    else EXPECT_EQ(bytes, first) << "the file depends on the thread count";
  }
  EXPECT_EQ(run_cli("contour " + grid + " --threads 0 --out " + path("z.ply")).exit_code, 2);
  EXPECT_FALSE(fs::exists(path("z.ply")));
}

TEST_F(ContourCli, badUsageAndBadFilesGiveTheirExitCodes) {
  EXPECT_EQ(run_cli("contour").exit_code, 2);
  EXPECT_EQ(run_cli("contour g.dgrid").exit_code, 2);  // no --out
  EXPECT_EQ(run_cli("contour g.dgrid --out x.off").exit_code, 2);
  EXPECT_EQ(run_cli("contour g.dgrid --out x.stl --mesher dual").exit_code, 2);
  EXPECT_EQ(run_cli("contour g.dgrid --out x.stl --format vrml").exit_code, 2);
  const CliResult missing = run_cli("contour " + path("missing.dgrid") + " --out " + path("x.stl"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("distgrid: badfile:"), std::string::npos) << missing.out;
  EXPECT_FALSE(fs::exists(path("x.stl")));
  EXPECT_EQ(run_cli("contour --help").exit_code, 0);
}

TEST_F(ContourCli, aNonManifoldSurfaceNetSaysSoInOneLineAndNamesManifold) {
  // The bunny-like mesh at h = 0.01 has checkerboard cells: surface nets joins them.
  const std::string mesh = write("bunny.obj", test_support::obj_text(test_support::bunny_like())), grid = path("b.dgrid");
  ASSERT_EQ(run_cli("bake --mesh " + mesh + " --h 0.01 --out " + grid).exit_code, 0);
  const CliResult plain = run_cli("contour " + grid + " --out " + path("b.stl"));
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  EXPECT_NE(plain.out.find("closed manifold no: "), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("edges with more than two triangles"), std::string::npos) << plain.out;
  EXPECT_NE(plain.out.find("; rerun with --manifold"), std::string::npos) << plain.out;
  const CliResult manifold = run_cli("contour " + grid + " --manifold --out " + path("b.stl"));
  ASSERT_EQ(manifold.exit_code, 0) << manifold.out;
  EXPECT_NE(manifold.out.find("closed manifold yes"), std::string::npos) << manifold.out;
  EXPECT_EQ(manifold.out.find("--manifold"), std::string::npos) << manifold.out;
}

TEST_F(ContourCli, aSurfaceClosedByTheBakedRegionsEdgeIsNeverReportedClosed) {
  // A region inside the sphere (the library's BakeSettings::region, which does not
  // clip): the stored values are negative at the region's edge.
  BakeSettings settings;
  settings.h = 1.0 / 16;
  settings.region = Box{{-0.5, -0.5, -0.5}, {0.5, 0.5, 0.5}};
  const Grid<float> grid = bake(compile_field<float>(default_part("sphere").spec), settings);
  save_grid(grid, path("region.dgrid"));
  const CliResult r = run_cli("contour " + path("region.dgrid") + " --out " + path("r.stl"));
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("closed manifold no: the surface reaches the edge of the baked region at "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("closed there by the region, not by the shape"), std::string::npos) << r.out;
  // The whole sphere: no region edge.
  ASSERT_EQ(run_cli("bake --part sphere --h 0.0625 --out " + path("s.dgrid")).exit_code, 0);
  EXPECT_NE(run_cli("contour " + path("s.dgrid") + " --out " + path("s.stl")).out.find("closed manifold yes"), std::string::npos);
}

TEST_F(ContourCli, refusesAContourOverTheMemoryBudgetBeforeMeshing) {
  const std::string grid = path("t.dgrid");
  ASSERT_EQ(run_cli("bake --part torus --h 0.05 --out " + grid).exit_code, 0);
  const CliResult r = run_cli("contour " + grid + " --max-memory 64K --out " + path("t.stl"));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("distgrid: toolarge: " + grid + ": the contour of "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over the memory budget of 64.0 KiB"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("t.stl")));
  EXPECT_EQ(run_cli("contour " + grid + " --max-memory 1G --out " + path("t.stl")).exit_code, 0);
}

}  // namespace
}  // namespace distgrid
