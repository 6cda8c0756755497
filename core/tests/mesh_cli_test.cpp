// `distgrid bake --mesh`: the report and statistics it prints, its typed errors and
// exit codes, and the grid it writes.
#include <gtest/gtest.h>

#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <variant>

#include <nlohmann/json.hpp>

#include "distgrid/grid_io.hpp"
#include "distgrid/mesh_parts.hpp"
#include "support/sanitizers.hpp"
#include "support/scratch_dir.hpp"
#include "support/test_meshes.hpp"

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

TEST_F(MeshCliTest, BandAndThreadsReachTheBake) {
  const std::string mesh = write("cube.obj", kCube), out = path("cube.dgrid");
  const CliResult r = run_cli("bake --mesh " + mesh + " --h 0.125 --band 4 --threads 3 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(" on 3 threads"), std::string::npos) << r.out;
  const auto g = std::get<distgrid::Grid<float>>(distgrid::load_grid(out));
  EXPECT_EQ(g.band(), 4.0);
  EXPECT_EQ(g.band_width(), 0.5);
}

TEST_F(MeshCliTest, StorageReachesTheBakeAndABadOneIsBadarg) {
  const std::string mesh = write("cube.obj", kCube), out = path("cube.dgrid");
  for (const char* storage : {"half", "q16", "q8"}) {
    const CliResult r = run_cli("bake --mesh " + mesh + " --h 0.0625 --storage " + storage + " --out " + out);
    ASSERT_EQ(r.exit_code, 0) << r.out;
    EXPECT_NE(r.out.find("storage " + std::string(storage) + ","), std::string::npos) << r.out;
    const distgrid::AnyGrid grid = distgrid::load_grid(out);
    std::visit([&](const auto& g) {
      EXPECT_EQ(distgrid::storage_name<typename std::decay_t<decltype(g)>::Scalar>(), storage);
      // Face nodes read 0 in the exact bake; every storage keeps the cube's volume to
      // within its rounding.
      EXPECT_NEAR(g.volume(), 4144.0 / 4096, 0.01) << storage;
    }, grid);
  }
  const CliResult bad = run_cli("bake --mesh " + mesh + " --h 0.0625 --storage int8 --out " + path("bad.dgrid"));
  EXPECT_EQ(bad.exit_code, 1) << bad.out;
  EXPECT_EQ(bad.out.rfind("distgrid: badarg: --storage: unknown storage 'int8'", 0), 0u) << bad.out;
  EXPECT_FALSE(fs::exists(path("bad.dgrid")));
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

using distgrid::test_support::bunny_like;
using distgrid::test_support::obj_text;

TEST_F(MeshCliTest, TwoOverlappingClosedShellsAreRefusedNamingAPairUnlessAllowed) {
  const distgrid::TriangleMesh bunny = bunny_like();
  const std::string mesh = write("two.obj", obj_text(distgrid::test_support::joined(
                                                bunny, distgrid::test_support::translated(bunny, {0.45, 0.1, 0})))),
                    out = path("two.dgrid");
  CliResult r = run_cli("bake --mesh " + mesh + " --h 0.05 --out " + out);
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("distgrid: selfintersect: " + mesh + ": "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("pairs of triangles meet"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(e\.g\. triangles [0-9]+ \[.*\] and [0-9]+ \[)"))) << r.out;
  EXPECT_FALSE(fs::exists(out));
  // Allowed: baked, with the report and a warning naming what cannot be trusted.
  r = run_cli("bake --mesh " + mesh + " --h 0.05 --allow-open --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("components 2"), std::string::npos) << r.out;
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(crossings  [0-9]+ pairs of triangles meet \(e\.g\. triangles)"))) << r.out;
  EXPECT_NE(r.out.find("warning    triangles meet in"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("the inside bricks and the volume\n           cannot be trusted"), std::string::npos) << r.out;
  const nlohmann::json info = nlohmann::json::parse(run_cli("info --json " + out).out);
  EXPECT_EQ(info["origin"]["from"], "mesh");
  EXPECT_EQ(info["origin"]["solid"], false);
  EXPECT_EQ(info["origin"]["triangles"], 10240);
  EXPECT_NE(run_cli("info " + out).out.find("not a solid (baked with --allow-open)"), std::string::npos);
}

TEST_F(MeshCliTest, AShellThroughItselfIsRefused) {
  const std::string mesh = write("spindle.obj", obj_text(distgrid::test_support::spindle_torus()));
  const CliResult r = run_cli("bake --mesh " + mesh + " --h 0.05 --out " + path("s.dgrid"));
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("distgrid: selfintersect: " + mesh), std::string::npos) << r.out;
  EXPECT_FALSE(fs::exists(path("s.dgrid")));
}

TEST_F(MeshCliTest, AHollowBallBakesAndShellsNestedTheSameWayAreRefused) {
  const distgrid::TriangleMesh hollow = distgrid::test_support::hollow_ball();
  const std::string mesh = write("hollow.obj", obj_text(hollow)), out = path("hollow.dgrid");
  const CliResult r = run_cli("bake --mesh " + mesh + " --h 0x1p-5 --out " + out);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find("components 2"), std::string::npos) << r.out;
  EXPECT_EQ(r.out.find("warning"), std::string::npos) << r.out;
  const CliResult volume = run_cli("volume " + out);
  const double v = std::stod(volume.out.substr(volume.out.find_first_of("0123456789")));
  const double outer = distgrid::polyhedral_volume(distgrid::icosphere(3, {0.0123, -0.0311, 0.0217}, 1));
  const double inner = distgrid::polyhedral_volume(distgrid::icosphere(3, {0.0123, -0.0311, 0.0217}, 0.5));
  EXPECT_NEAR(v, outer - inner, 0.01) << volume.out;
  const CliResult nested = run_cli("bake --mesh " + write("nested.obj", obj_text(distgrid::test_support::hollow_ball(true))) +
                                   " --h 0x1p-5 --out " + path("nested.dgrid"));
  EXPECT_EQ(nested.exit_code, 1) << nested.out;
  EXPECT_NE(nested.out.find("distgrid: badmesh: "), std::string::npos) << nested.out;
  EXPECT_NE(nested.out.find("1 shell faces the wrong way"), std::string::npos) << nested.out;
  EXPECT_FALSE(fs::exists(path("nested.dgrid")));
}

TEST_F(MeshCliTest, ABakeOverTheBudgetIsRefusedFromTheTrianglesBeforeAnyHeavyWork) {
  // Two overlapping bunnies at a voxel size needing hundreds of GiB: the estimate
  // refuses it (toolarge) before validation would find the crossings (selfintersect).
  const distgrid::TriangleMesh bunny = bunny_like();
  const std::string mesh = write("two.obj", obj_text(distgrid::test_support::joined(
                                                bunny, distgrid::test_support::translated(bunny, {0.45, 0.1, 0}))));
  const auto started = std::chrono::steady_clock::now();
  const CliResult r = run_cli("bake --mesh " + mesh + " --h 1e-4 --max-memory 8G --out " + path("x.dgrid"));
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  EXPECT_EQ(r.exit_code, 1) << r.out;
  EXPECT_NE(r.out.find("distgrid: toolarge: " + mesh + " at h = 0.0001: about "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("bricks to compute"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("triangle-brick pairs (10240 triangles) need about "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("over the memory budget of 8.0 GiB"), std::string::npos) << r.out;
  EXPECT_LT(seconds, 2 * distgrid::test_support::kSanitizerSlowdown) << "the refusal should come from the estimate, before any heavy work";
  EXPECT_FALSE(fs::exists(path("x.dgrid")));
  // The same budget passes a voxel size that fits (the flag is read, not ignored).
  EXPECT_EQ(run_cli("bake --mesh " + write("one.obj", obj_text(bunny)) + " --h 0.1 --max-memory 8G --out " +
                    path("x.dgrid")).exit_code, 0);
}

}  // namespace
