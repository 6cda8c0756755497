// `distgrid contour` end to end: bake, mesh with each mesher, read the file back.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>

#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_stats.hpp"
#include "support/scratch_dir.hpp"

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

}  // namespace
}  // namespace distgrid
