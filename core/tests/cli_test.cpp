// The distgrid command: exit codes, typed error lines, and each command end to end.
#include <gtest/gtest.h>

#include "support/scratch_dir.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <sstream>
#include <string>
#include <variant>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/bake.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/grid_io.hpp"

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
  EXPECT_EQ(run_cli("bake --part sphere --spec s.json --h 0.1 --out x.dgrid").exit_code, 2);
  EXPECT_EQ(run_cli("bake --part sphere --h 0.1 --bbox 1,2,3 --out x.dgrid").exit_code, 2);
  EXPECT_EQ(run_cli("sample only_a_grid.dgrid").exit_code, 2);
  const CliResult r = run_cli("bake --wat");
  EXPECT_NE(r.out.find("distgrid: usage: unknown option --wat"), std::string::npos) << r.out;
}

TEST_F(CliTest, EveryCommandHasHelp) {
  for (const char* command : {"--help", "bake --help", "info --help", "sample --help", "volume --help",
                              "contour --help"}) {
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
      {"bake --part sphere --h 0.1 --storage q4 --out " + path("a.dgrid"), "distgrid: badarg: --storage: unknown storage 'q4'"},
      {"bake --part sphere --h 0.1 --storage Float --out " + path("a.dgrid"), "distgrid: badarg: --storage: "},
      {"bake --part sphere --h 4000 --band 20 --storage half --out " + path("a.dgrid"), "distgrid: badarg: "},
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

TEST_F(CliTest, EveryStorageBakesAndInfoPrintsItAndItsBound) {
  // Each --storage reaches the file (its id, read back as that grid) and info names it
  // with its bound; the volumes differ by at most the storage's rounding.
  const struct {
    const char* name;
    const char* bound_rule;
  } storages[] = {{"float", "half a float ulp at band*h"},
                  {"double", "exactly as computed (double)"},
                  {"half", "half a binary16 ulp at band*h"},
                  {"q16", "half the largest step of any brick"},
                  {"q8", "half the largest step of any brick"}};
  double double_volume = 0;
  for (const auto& s : storages) {
    const std::string grid = path(std::string(s.name) + ".dgrid");
    const CliResult bake = run_cli("bake --part sphere --h 0.0625 --storage " + std::string(s.name) + " --out " + grid);
    ASSERT_EQ(bake.exit_code, 0) << bake.out;
    EXPECT_NE(bake.out.find("storage " + std::string(s.name) + ","), std::string::npos) << bake.out;
    const CliResult info = run_cli("info " + grid);
    ASSERT_EQ(info.exit_code, 0) << info.out;
    EXPECT_NE(info.out.find("storage   " + std::string(s.name) + ","), std::string::npos) << info.out;
    EXPECT_NE(info.out.find(s.bound_rule), std::string::npos) << info.out;
    const CliResult json = run_cli("info --json " + grid);
    ASSERT_EQ(json.exit_code, 0) << json.out;
    const nlohmann::json summary = nlohmann::json::parse(json.out);
    EXPECT_EQ(summary["storage"], s.name);
    const double bound = summary["stored_value_bound"]["rounding"].get<double>();
    const distgrid::AnyGrid loaded = distgrid::load_grid(grid);
    std::visit([&](const auto& g) {
      EXPECT_EQ(distgrid::storage_name<typename std::decay_t<decltype(g)>::Scalar>(), s.name);
      EXPECT_EQ(g.storage_bound(), bound);
      if (std::string(s.name) == "double") double_volume = g.volume();
    }, loaded);
    if (std::string(s.name) == "double") EXPECT_EQ(bound, 0.0);
    else EXPECT_GT(bound, 0.0) << s.name;
  }
  // The smaller storages' files are smaller.
  EXPECT_LT(fs::file_size(path("q8.dgrid")), fs::file_size(path("q16.dgrid")));
  EXPECT_LT(fs::file_size(path("q16.dgrid")), fs::file_size(path("float.dgrid")));
  EXPECT_LT(fs::file_size(path("half.dgrid")), fs::file_size(path("float.dgrid")));
  EXPECT_GT(double_volume, 4.0);
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
  const CliResult one = run_cli("bake --part torus --h 0.05 --threads 1 --out " + path("one.dgrid"));
  ASSERT_EQ(one.exit_code, 0) << one.out;
  EXPECT_NE(one.out.find(" s on 1 thread\n"), std::string::npos) << one.out;
  const CliResult three = run_cli("bake --part torus --h 0.05 --threads 3 --out " + path("three.dgrid"));
  ASSERT_EQ(three.exit_code, 0) << three.out;
  EXPECT_NE(three.out.find(" s on 3 threads\n"), std::string::npos) << three.out;
  std::ifstream a(path("one.dgrid"), std::ios::binary), b(path("three.dgrid"), std::ios::binary);
  const std::string bytes_a((std::istreambuf_iterator<char>(a)), std::istreambuf_iterator<char>());
  const std::string bytes_b((std::istreambuf_iterator<char>(b)), std::istreambuf_iterator<char>());
  EXPECT_FALSE(bytes_a.empty());
  EXPECT_EQ(bytes_a, bytes_b);
}

TEST_F(CliTest, ListPartsNamesEveryBuiltInPart) {
  const CliResult r = run_cli("bake --list-parts");
  ASSERT_EQ(r.exit_code, 0) << r.out;
  for (const distgrid::DefaultPart& part : distgrid::default_parts())
    EXPECT_TRUE(std::regex_search(r.out, std::regex("(^|\n)" + part.name + " +volume "))) << part.name << "\n" << r.out;
}

TEST_F(CliTest, BandAndThreadsReachTheBake) {
  // The band is stored in the grid; the thread count is printed as used (results do not depend on it).
  const std::string grid = path("s.dgrid");
  const CliResult r = run_cli("bake --part sphere --h 0.125 --band 5 --threads 3 --out " + grid);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NE(r.out.find(" on 3 threads"), std::string::npos) << r.out;
  const auto g = std::get<distgrid::Grid<float>>(distgrid::load_grid(grid));
  EXPECT_EQ(g.band(), 5.0);
  EXPECT_EQ(g.band_width(), 5 * 0.125);
}

TEST_F(CliTest, AnOptionFollowedByAnotherOptionSaysItsValueIsMissing) {
  const CliResult r = run_cli("bake --spec --h 0.1 --out x.dgrid");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.out.find("distgrid: usage: --spec needs a value before --h"), std::string::npos) << r.out;
}

TEST_F(CliTest, VersionNamesTheReleaseAndTheGitRevision) {
  const CliResult r = run_cli("--version");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_TRUE(std::regex_search(r.out, std::regex(R"(^distgrid [0-9]+\.[0-9]+\.[0-9]+ \(git [0-9a-z]+\)\n$)"))) << r.out;
}

TEST_F(CliTest, HelpWorksAfterAnySubcommandAndMode) {
  // Also where an option expects its value: --help is never taken for one.
  for (const char* command : {"bake --mesh --help", "bake --mesh m.stl --help", "bake --spec --help", "bake --part x --h",
                              "info --json --help", "sample g.dgrid --points --help", "contour g.dgrid --out --help",
                              "bake --no-such-option --help", "volume --help extra words"}) {
    const std::string args = std::string(command) + (std::string(command).find("--help") == std::string::npos ? " --help" : "");
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 0) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("usage: distgrid"), std::string::npos) << args << "\n" << r.out;
  }
  EXPECT_NE(run_cli("bake --mesh --help").out.find("--voxels-per-diagonal"), std::string::npos);  // the mesh mode's help
}

TEST_F(CliTest, AMisspeltOptionOrCommandNamesTheNearestWithinTwoEdits) {
  const struct {
    std::string args, suggestion;
  } cases[] = {
      {"bake --part sphere --bnad 3 --h 0.1 --out x.dgrid", "unknown option --bnad (did you mean --band?)"},
      {"bake --mesh m.stl --voxel-per-diagonal 9 --out x.dgrid", "(did you mean --voxels-per-diagonal?)"},
      {"contour g.dgrid --out x.stl --maniflod", "(did you mean --manifold?)"},
      {"sample g.dgrid --point p.txt", "(did you mean --points?)"},
      {"smaple g.dgrid 0 0 0", "unknown command 'smaple' (did you mean sample?)"},
      {"--verison", "(did you mean --version?)"},
  };
  for (const auto& c : cases) {
    const CliResult r = run_cli(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_NE(r.out.find(c.suggestion), std::string::npos) << c.args << "\n" << r.out;
  }
  // Nothing within two edits: no suggestion.
  const CliResult far = run_cli("bake --part sphere --xyzzy 1 --h 0.1 --out x.dgrid");
  EXPECT_EQ(far.exit_code, 2);
  EXPECT_NE(far.out.find("unknown option --xyzzy"), std::string::npos) << far.out;
  EXPECT_EQ(far.out.find("did you mean"), std::string::npos) << far.out;
}

TEST_F(CliTest, AFolderWhereAFileIsExpectedIsABadArgumentSayingSo) {
  std::filesystem::create_directories(path("folder"));
  const std::string folder = path("folder"), spec = write("s.json", R"({"type": "sphere", "center": [0, 0, 0], "radius": 1})");
  ASSERT_EQ(run_cli("bake --spec " + spec + " --h 0.25 --out " + path("g.dgrid")).exit_code, 0);
  for (const std::string& args :
       {"bake --spec " + folder + " --h 0.1 --out " + path("x.dgrid"), "bake --spec " + spec + " --h 0.1 --out " + folder,
        "bake --spec " + spec + " --h 0.1 --out " + folder + "/", "bake --mesh " + folder + " --h 0.1 --out " + path("x.dgrid"),
        "info " + folder, "contour " + path("g.dgrid") + " --out " + folder,
        "sample " + path("g.dgrid") + " --points " + folder}) {
    const CliResult r = run_cli(args);
    EXPECT_EQ(r.exit_code, 1) << args << "\n" << r.out;
    EXPECT_EQ(r.out.rfind("distgrid: badarg: " + folder, 0), 0u) << args << "\n" << r.out;
    EXPECT_NE(r.out.find("is a folder"), std::string::npos) << args << "\n" << r.out;
  }
  EXPECT_FALSE(fs::exists(path("x.dgrid")));
  const CliResult missing = run_cli("bake --spec " + spec + " --h 0.1 --out " + path("no/such/folder/x.dgrid"));
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("distgrid: badfile: "), std::string::npos) << missing.out;
  EXPECT_NE(missing.out.find("does not exist"), std::string::npos) << missing.out;
}

double volume_of(const std::string& grid) {
  const CliResult r = run_cli("volume " + grid);
  EXPECT_EQ(r.exit_code, 0) << r.out;
  return std::stod(r.out.substr(r.out.find_first_of("-0123456789")));
}

TEST_F(CliTest, BboxClipsTheShapeToTheBox) {
  // A box inside the unit sphere: the clipped part is the box itself, closed by the box.
  const std::string inner = path("inner.dgrid");
  const CliResult r = run_cli("bake --part sphere --h 0x1p-5 --bbox -0.5,-0.5,-0.5,0.5,0.5,0.5 --out " + inner);
  ASSERT_EQ(r.exit_code, 0) << r.out;
  EXPECT_NEAR(volume_of(inner), 1.0, 0.01);
  const CliResult contour = run_cli("contour " + inner + " --out " + path("inner.stl"));
  EXPECT_NE(contour.out.find("closed manifold yes"), std::string::npos) << contour.out;
  // The same as intersecting with the box in the spec, bit for bit.
  nlohmann::json sphere = distgrid::default_part("sphere").spec;
  const std::string clipped_by_hand =
      write("clipped.json", nlohmann::json{{"type", "intersection"},
                                           {"of", {sphere, {{"type", "box"}, {"center", {0, 0, 0}}, {"size", {1, 1, 1}}}}}}
                                .dump());
  ASSERT_EQ(run_cli("bake --spec " + clipped_by_hand + " --h 0x1p-5 --out " + path("by_hand.dgrid")).exit_code, 0);
  const auto a = std::get<distgrid::Grid<float>>(distgrid::load_grid(inner));
  const auto b = std::get<distgrid::Grid<float>>(distgrid::load_grid(path("by_hand.dgrid")));
  ASSERT_EQ(a.stored_keys(), b.stored_keys());
  EXPECT_EQ(std::memcmp(a.brick_values(0), b.brick_values(0), a.stored_brick_count() * 512 * sizeof(float)), 0);
  // An unbounded lattice: refused without a box, baked with one; the box is not just
  // a region (a region would give the lattice's walls, unclosed, a volume of its own).
  const std::string gyroid = write("gyroid.json", R"({"type": "gyroid", "cell": 0.5, "thickness": 0.05})");
  const CliResult unbounded = run_cli("bake --spec " + gyroid + " --h 0.05 --out " + path("g.dgrid"));
  EXPECT_EQ(unbounded.exit_code, 1);
  EXPECT_NE(unbounded.out.find("distgrid: nobox: "), std::string::npos) << unbounded.out;
  EXPECT_NE(unbounded.out.find("--bbox"), std::string::npos) << unbounded.out;
  EXPECT_NE(unbounded.out.find("clips"), std::string::npos) << unbounded.out;
  ASSERT_EQ(run_cli("bake --spec " + gyroid + " --h 0.02 --bbox -0.5,-0.5,-0.5,0.5,0.5,0.5 --out " + path("g.dgrid")).exit_code, 0);
  const double clipped = volume_of(path("g.dgrid"));
  EXPECT_GT(clipped, 0.1);
  EXPECT_LT(clipped, 0.9);  // a share of the unit cube, not more
  const CliResult walls = run_cli("contour " + path("g.dgrid") + " --out " + path("g.stl"));
  EXPECT_EQ(walls.exit_code, 0) << walls.out;
  EXPECT_EQ(walls.out.find("edge of the baked region"), std::string::npos) << walls.out;
}

TEST_F(CliTest, InfoPrintsEverythingAndJsonHoldsItAtFullPrecision) {
  const std::string grid = path("s.dgrid");
  ASSERT_EQ(run_cli("bake --part sphere --h 0.1 --out " + grid).exit_code, 0);
  const CliResult table = run_cli("info " + grid);
  ASSERT_EQ(table.exit_code, 0) << table.out;
  for (const char* expected : {"origin    part sphere, by distgrid ", "storage   float, ", "h         0.1\n",
                               "band      3 (band*h = 0.3)", "values    stored within +-0.3, each rounded by at most ",
                               "range     -0.3 to 0.3", " stored, ", " inside, ", " absent within the extent", "extent    bricks [",
                               "world box ["})
    EXPECT_NE(table.out.find(expected), std::string::npos) << "missing '" << expected << "' in\n" << table.out;
  const CliResult json_run = run_cli("info " + grid + " --json");
  ASSERT_EQ(json_run.exit_code, 0) << json_run.out;
  const nlohmann::json info = nlohmann::json::parse(json_run.out);  // --json ignored: a table, which does not parse
  const auto g = std::get<distgrid::Grid<float>>(distgrid::load_grid(grid));
  EXPECT_EQ(info["h"].get<double>(), 0.1);  // full precision: 0.1 exactly as the double read
  EXPECT_EQ(info["band_width"].get<double>(), g.band_width());
  EXPECT_EQ(info["bricks"]["stored"].get<std::size_t>(), g.stored_brick_count());
  EXPECT_EQ(info["bricks"]["inside"].get<std::size_t>(), g.inside_brick_count());
  EXPECT_EQ(info["value_range"][0].get<double>(), static_cast<double>(static_cast<float>(-g.band_width())));
  EXPECT_EQ(info["stored_value_bound"]["rounding"].get<double>(), 0x1p-26);  // half a float ulp at 0.3
  EXPECT_EQ(info["origin"]["from"], "part");
  EXPECT_EQ(info["origin"]["input"], "sphere");
  EXPECT_EQ(info["origin"]["tool"].get<std::string>().rfind("distgrid 0.", 0), 0u);
  EXPECT_EQ(info["file"], grid);
  // A spec names its file and its content's hash.
  const std::string spec = write("s.json", R"({"type": "sphere", "center": [0, 0, 0], "radius": 1})");
  ASSERT_EQ(run_cli("bake --spec " + spec + " --h 0.25 --storage double --out " + grid).exit_code, 0);
  const nlohmann::json spec_info = nlohmann::json::parse(run_cli("info --json " + grid).out);
  EXPECT_EQ(spec_info["origin"]["from"], "spec");
  EXPECT_EQ(spec_info["origin"]["input"], spec);
  EXPECT_EQ(spec_info["origin"]["input_fnv1a"].get<std::string>().size(), 16u);
  EXPECT_EQ(spec_info["stored_value_bound"]["rounding"].get<double>(), 0.0);  // double: stored as computed
}

TEST_F(CliTest, SampleMarksClampedAbsentAndInsideValues) {
  const std::string grid = path("s.dgrid");
  ASSERT_EQ(run_cli("bake --part sphere --h 0.0625 --out " + grid).exit_code, 0);
  const CliResult deep = run_cli("sample " + grid + " 0 0 0");
  EXPECT_NE(deep.out.find("value     -0.1875"), std::string::npos) << deep.out;
  EXPECT_NE(deep.out.find("note      clamped: |value| = band*h = 0.1875"), std::string::npos) << deep.out;
  EXPECT_NE(deep.out.find("inside brick"), std::string::npos) << deep.out;
  const CliResult far = run_cli("sample " + grid + " 3 0 0");
  EXPECT_NE(far.out.find("clamped"), std::string::npos) << far.out;
  EXPECT_NE(far.out.find("absent brick"), std::string::npos) << far.out;
  const CliResult near = run_cli("sample " + grid + " 0.99 0 0");  // within the band: no note
  EXPECT_EQ(near.out.find("note"), std::string::npos) << near.out;
  // In a stored brick, all eight nodes clamped: float storage holds 0.3 as 0.300000012 (h = 0.1).
  const std::string coarse = path("c.dgrid");
  ASSERT_EQ(run_cli("bake --part sphere --h 0.1 --out " + coarse).exit_code, 0);
  const auto g = std::get<distgrid::Grid<float>>(distgrid::load_grid(coarse));
  ASSERT_EQ(g.sample(0.45, 0.05, 0.05), -static_cast<double>(static_cast<float>(0.3)));
  ASSERT_NE(static_cast<double>(static_cast<float>(0.3)), g.band_width());
  const CliResult stored = run_cli("sample " + coarse + " 0.45 0.05 0.05");
  EXPECT_NE(stored.out.find("note      clamped"), std::string::npos) << stored.out;
  EXPECT_EQ(stored.out.find("brick"), std::string::npos) << stored.out;  // neither absent nor inside
  const CliResult stored_points = run_cli("sample " + coarse + " --points " + write("one.txt", "0.45 0.05 0.05\n"));
  EXPECT_NE(stored_points.out.find(" clamped\n"), std::string::npos) << stored_points.out;
}

TEST_F(CliTest, SamplePointsWritesOneLinePerPointFromTheBatchSampler) {
  const std::string grid = path("s.dgrid");
  ASSERT_EQ(run_cli("bake --part sphere --h 0.0625 --storage double --out " + grid).exit_code, 0);
  const std::vector<std::array<double, 3>> points{{0, 0, 0}, {0.99, 0.01, -0.02}, {3, 0, 0}, {0x1.1p+0, 0, 0}, {-0.5, 0.6, 0.4}};
  const std::string file = write("p.txt", "# x y z\n0 0 0\n0.99 0.01 -0.02\n\n3 0 0\n0x1.1p+0 0 0\n-0.5 0.6 0.4\n");
  const auto g = std::get<distgrid::Grid<double>>(distgrid::load_grid(grid));
  auto lines_of = [](const std::string& text) {
    std::vector<std::string> lines;
    std::istringstream in(text);
    for (std::string line; std::getline(in, line);) lines.push_back(line);
    return lines;
  };
  const CliResult plain = run_cli("sample " + grid + " --points " + file);
  ASSERT_EQ(plain.exit_code, 0) << plain.out;
  const std::vector<std::string> lines = lines_of(plain.out);
  ASSERT_EQ(lines.size(), points.size()) << plain.out;
  const char* marks[] = {"clamped,inside", "-", "clamped,absent", "-", "-"};
  for (std::size_t n = 0; n < points.size(); ++n) {
    std::istringstream words(lines[n]);
    std::string value, mark;
    words >> value >> mark;
    EXPECT_EQ(std::strtod(value.c_str(), nullptr), g.sample(points[n][0], points[n][1], points[n][2])) << lines[n];
    EXPECT_EQ(mark, marks[n]) << lines[n];
  }
  // --gradient adds the three components; '-' reads standard input.
  const CliResult with_gradient = run_cli("sample " + grid + " --points - --gradient < " + file);
  ASSERT_EQ(with_gradient.exit_code, 0) << with_gradient.out;
  const std::vector<std::string> gradient_lines = lines_of(with_gradient.out);
  ASSERT_EQ(gradient_lines.size(), points.size());
  for (std::size_t n = 0; n < points.size(); ++n) {
    std::istringstream words(gradient_lines[n]);
    double value = 0;
    std::array<double, 3> gradient{};
    std::string mark;
    words >> value >> gradient[0] >> gradient[1] >> gradient[2] >> mark;
    EXPECT_EQ(gradient, g.gradient(points[n][0], points[n][1], points[n][2])) << gradient_lines[n];
    EXPECT_EQ(mark, marks[n]) << gradient_lines[n];
  }
  const CliResult bad = run_cli("sample " + grid + " --points " + write("bad.txt", "0 0 0\n1 2\n"));
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("distgrid: badfile: " + path("bad.txt") + ": line 2"), std::string::npos) << bad.out;
}

TEST_F(CliTest, TablesPrintSixSignificantDigits) {
  const std::string grid = path("s.dgrid");
  const CliResult bake = run_cli("bake --part sphere --h 0.1 --out " + grid);
  EXPECT_NE(bake.out.find("h 0.1,"), std::string::npos) << bake.out;  // not 0.10000000000000001
  const CliResult volume = run_cli("volume " + grid);
  // "volume    4.18xyz  (0x1....p+2)": at most six significant digits before the hex-float.
  EXPECT_TRUE(std::regex_search(volume.out, std::regex(R"(^volume    [0-9]\.[0-9]{1,5}  \(0x)"))) << volume.out;
  const CliResult sample = run_cli("sample " + grid + " 0.95 0.1 0");
  EXPECT_TRUE(std::regex_search(sample.out, std::regex(R"(^value     -?[0-9.e-]{1,12}  \(-?0x)"))) << sample.out;
}

}  // namespace
