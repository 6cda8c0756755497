// `distgrid bake --mesh`: the report and statistics it prints, its typed errors and
// exit codes, and the grid it writes.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "distgrid/grid_io.hpp"
#include "support/scratch_dir.hpp"

namespace {

namespace fs = std::filesystem;
using distgrid::test_support::CliResult;
using distgrid::test_support::run_cli;

using MeshCliTest = distgrid::test_support::ScratchDirTest;

const char* kCube =
    "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0 0 1\nv 1 0 1\nv 1 1 1\nv 0 1 1\n"
    "f 1 4 3 2\nf 5 6 7 8\nf 1 2 6 5\nf 2 3 7 6\nf 3 4 8 7\nf 4 1 5 8\n";

TEST_F(MeshCliTest, BakesAClosedMeshAndPrintsReportAndStatistics) {
  const std::string mesh = write("cube.obj", kCube), out = path("cube.dgrid");
  const CliResult r = run_cli("bake --mesh " + mesh + " --h 0.0625 --storage double --threads 2 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("corners    8 read, 8 after welding"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("triangles  12 read"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("0 boundary, 0 non-manifold, 0 inconsistently oriented"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("unmarked"), std::string::npos) << r.out;
  const distgrid::AnyGrid grid = distgrid::load_grid(out);
  // The unit cube's faces lie on nodes (h = 1/16): its 15^3 inner nodes count 1 and
  // every node on a face, edge or corner reads 0 and counts 1/2, so the volume rule
  // gives exactly (15^3 + (6 * 15^2 + 12 * 15 + 8) / 2) / 16^3 = 4144 / 4096.
  EXPECT_EQ(std::get<distgrid::Grid<double>>(grid).volume(), 4144.0 / 4096);
}

TEST_F(MeshCliTest, VoxelsPerDiagonalSetsH) {
  const std::string mesh = write("cube.obj", kCube), out = path("cube.dgrid");
  const CliResult r = run_cli("bake --mesh " + mesh + " --voxels-per-diagonal 10 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  const distgrid::AnyGrid grid = distgrid::load_grid(out);
  EXPECT_DOUBLE_EQ(std::get<distgrid::Grid<float>>(grid).h(), std::sqrt(3.0) / 10);
}

TEST_F(MeshCliTest, OpenMeshesFailUnlessAllowed) {
  std::string open = kCube;
  open.resize(open.rfind("f 4 1 5 8"));
  const std::string mesh = write("open.obj", open), out = path("open.dgrid");
  CliResult r = run_cli("bake --mesh " + mesh + " --h 0.125 --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("distgrid: openmesh: " + mesh + ": 4 boundary"), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(out));
  r = run_cli("bake --mesh " + mesh + " --h 0.125 --allow-open --out " + out);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("cannot be trusted"), std::string::npos) << r.out;
}

TEST_F(MeshCliTest, BadFilesAndBadUsage) {
  const std::string bad = write("bad.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 7\n");
  CliResult r = run_cli("bake --mesh " + bad + " --h 0.1 --out " + path("x.dgrid"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("distgrid: badmesh: " + bad + ": line 4"), std::string::npos) << r.out;
  r = run_cli("bake --mesh " + path("absent.stl") + " --h 0.1 --out " + path("x.dgrid"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("distgrid: badfile:"), std::string::npos) << r.out;
  const std::string mesh = write("cube.obj", kCube);
  EXPECT_EQ(run_cli("bake --mesh " + mesh + " --out " + path("x.dgrid")).exit_code, 2);  // no h
  EXPECT_EQ(run_cli("bake --mesh " + mesh + " --h 0.1 --voxels-per-diagonal 9 --out " + path("x.dgrid")).exit_code, 2);
  EXPECT_EQ(run_cli("bake --mesh " + mesh + " --h 0.1").exit_code, 2);  // no out
  r = run_cli("bake --mesh " + mesh + " --h -1 --out " + path("x.dgrid"));
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_NE(r.out.find("distgrid: badarg:"), std::string::npos) << r.out;
  EXPECT_EQ(run_cli("bake --mesh " + mesh + " --help").exit_code, 0);
}

}  // namespace
