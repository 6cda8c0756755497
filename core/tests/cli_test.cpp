// The distgrid command: exit codes, typed error lines, and each command end to end.
#include <gtest/gtest.h>

#include "support/scratch_dir.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

namespace {

namespace fs = std::filesystem;
using distgrid::test_support::CliResult;
using distgrid::test_support::run_cli;

using CliTest = distgrid::test_support::ScratchDirTest;

TEST_F(CliTest, BadUsageExitsWithTwo) {
  EXPECT_EQ(run_cli("").exit_code, 2);
  EXPECT_EQ(run_cli("frobnicate").exit_code, 2);
  EXPECT_EQ(run_cli("bake --part sphere --out x.dgrid").exit_code, 2);  // no --h
  EXPECT_EQ(run_cli("bake --part sphere --h abc --out x.dgrid").exit_code, 2);
  EXPECT_EQ(run_cli("bake --part sphere --h 0.1 --storage half --out x.dgrid").exit_code, 2);
  EXPECT_EQ(run_cli("bake --part sphere --spec s.json --h 0.1 --out x.dgrid").exit_code, 2);
  EXPECT_EQ(run_cli("bake --part sphere --h 0.1 --bbox 1,2,3 --out x.dgrid").exit_code, 2);
  EXPECT_EQ(run_cli("sample only_a_grid.dgrid").exit_code, 2);
  const CliResult r = run_cli("bake --wat");
  EXPECT_NE(r.out.find("distgrid: usage: unknown option --wat"), std::string::npos) << r.out;
}

TEST_F(CliTest, EveryCommandHasHelp) {
  for (const char* command : {"--help", "bake --help", "info --help", "sample --help", "volume --help"}) {
    const CliResult r = run_cli(command);
    EXPECT_EQ(r.exit_code, 0) << command;
    EXPECT_NE(r.out.find("usage: distgrid"), std::string::npos) << command;
  }
}

TEST_F(CliTest, TypedErrorsExitWithOneAndNameTheirCode) {
  const struct {
    std::string args, expected;
  } cases[] = {
      {"bake --part sphere --h 0 --out " + path("a.dgrid"), "distgrid: badarg: "},
      {"bake --part sphere --h nan --out " + path("a.dgrid"), "distgrid: badarg: "},
      {"bake --part sphere --h 0.1 --band 0.5 --out " + path("a.dgrid"), "distgrid: badarg: "},
      {"bake --part no_such_part --h 0.1 --out " + path("a.dgrid"), "distgrid: badarg: "},
      {"bake --part sphere --h 1e-7 --out " + path("a.dgrid"), "distgrid: toolarge: "},
      {"bake --spec " + path("missing.json") + " --h 0.1 --out " + path("a.dgrid"), "distgrid: badfile: "},
      {"bake --spec " + write("bad.json", "{\"type\": \"sphere\", ") + " --h 0.1 --out " + path("a.dgrid"),
       "distgrid: badspec: "},
      {"bake --spec " + write("plane.json", R"({"type": "halfspace", "normal": [0, 0, 1], "offset": 0})") +
           " --h 0.1 --out " + path("a.dgrid"),
       "distgrid: nobox: "},
      {"info " + path("missing.dgrid"), "distgrid: badfile: "},
      {"volume " + write("text.dgrid", "not a grid at all, just some text here........................"),
       "distgrid: badfile: "},
  };
  for (const auto& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 1) << c.args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind(c.expected, 0), 0u) << c.args << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(path("a.dgrid")));
}

TEST_F(CliTest, BakesASphereAndReadsItBack) {
  const std::string grid = path("sphere.dgrid");
  const CliResult bake = run_cli("bake --part sphere --h 0.0625 --storage double --threads 2 --out " + grid);
  ASSERT_EQ(bake.exit_code, 0) << bake.out;
  EXPECT_NE(bake.out.find("bricks computed"), std::string::npos);

  const CliResult info = run_cli("info " + grid);
  ASSERT_EQ(info.exit_code, 0) << info.out;
  EXPECT_NE(info.out.find("storage   double"), std::string::npos) << info.out;
  EXPECT_NE(info.out.find("h         0.0625"), std::string::npos) << info.out;

  const CliResult volume = run_cli("volume " + grid);
  ASSERT_EQ(volume.exit_code, 0) << volume.out;
  const double v = std::stod(volume.out.substr(volume.out.find_first_of("0123456789")));
  EXPECT_NEAR(v, 4.0 / 3.0 * M_PI, 0.01) << volume.out;

  // Well inside the sphere: clamped to -band*h; on the far side of the surface, positive.
  const CliResult inside = run_cli("sample " + grid + " 0 0 0");
  ASSERT_EQ(inside.exit_code, 0) << inside.out;
  EXPECT_NE(inside.out.find("value     -0.1875"), std::string::npos) << inside.out;
  const CliResult outside = run_cli("sample " + grid + " 0x1.1p+0 0 0");  // hex-float input
  ASSERT_EQ(outside.exit_code, 0) << outside.out;
  EXPECT_NE(outside.out.find("value     0.0"), std::string::npos) << outside.out;
}

TEST_F(CliTest, ResultsDoNotDependOnTheThreadCount) {
  ASSERT_EQ(run_cli("bake --part torus --h 0.05 --threads 1 --out " + path("one.dgrid")).exit_code, 0);
  ASSERT_EQ(run_cli("bake --part torus --h 0.05 --threads 3 --out " + path("three.dgrid")).exit_code, 0);
  std::ifstream a(path("one.dgrid"), std::ios::binary), b(path("three.dgrid"), std::ios::binary);
  const std::string bytes_a((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string bytes_b((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes_a.empty());
  EXPECT_EQ(bytes_a, bytes_b);
}

}  // namespace
