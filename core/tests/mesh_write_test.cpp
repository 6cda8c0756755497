// Mesh exports: every format reads back (with read_mesh) to the same mesh — bit for
// bit where the format holds doubles, rounded to float32 in binary STL — and failed
// writes leave the target untouched.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "distgrid/bake.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/mesh_io.hpp"

namespace distgrid {
namespace {

namespace fs = std::filesystem;

/// A fresh directory per test under the system's temporary directory.
fs::path scratch_dir(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("distgrid_mesh_write_" + name + "_" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

std::string file_text(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// A contour of the sphere part: positions with full 53-bit mantissas, unit normals.
TriangleMesh sphere_mesh() {
  BakeSettings settings;
  settings.h = 1.0 / 8;
  settings.threads = 1;
  const Grid<double> grid = bake(compile_field<double>(default_part("sphere").spec), settings);
  return contour(grid).mesh;
}

TEST(MeshWrite, everyFormatReadsBackToTheSameMesh) {
  const TriangleMesh mesh = sphere_mesh();
  ASSERT_GT(mesh.triangles.size(), 100u);
  const fs::path dir = scratch_dir("roundtrip");
  struct Case {
    MeshFormat format;
    const char* name;
    bool indexed;  // false: STL, one corner per triangle corner
    bool float32;
  };
  for (const Case& c : {Case{MeshFormat::obj, "a.obj", true, false}, Case{MeshFormat::ply_ascii, "a.ply", true, false},
                        Case{MeshFormat::ply_binary, "b.ply", true, false},
                        Case{MeshFormat::stl_ascii, "a.stl", false, false},
                        Case{MeshFormat::stl_binary, "b.stl", false, true}}) {
    const std::string path = (dir / c.name).string();
    write_mesh(mesh, path, c.format);
    const TriangleMesh back = read_mesh(path);
    ASSERT_EQ(back.triangles.size(), mesh.triangles.size()) << c.name;
    if (c.indexed) {
      EXPECT_EQ(back.triangles, mesh.triangles) << c.name;
      EXPECT_EQ(back.positions, mesh.positions) << c.name;  // bit for bit (%.17g or float64)
      continue;
    }
    for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
      for (std::size_t k = 0; k < 3; ++k) {
        const auto& want = mesh.positions[mesh.triangles[t][k]];
        const auto& got = back.positions[back.triangles[t][k]];
        for (std::size_t a = 0; a < 3; ++a) {
          const double expected = c.float32 ? static_cast<double>(static_cast<float>(want[a])) : want[a];
          ASSERT_EQ(got[a], expected) << c.name << " triangle " << t << " corner " << k;
        }
      }
  }
  // Nothing but the five files (no temporary left behind).
  std::size_t files = 0;
  for (const auto& entry : fs::directory_iterator(dir)) files += entry.is_regular_file();
  EXPECT_EQ(files, 5u);
  fs::remove_all(dir);
}

TEST(MeshWrite, binaryStlHasTheSizeTheCountPromisesAndNoSolidHeader) {
  const TriangleMesh mesh = sphere_mesh();
  const fs::path dir = scratch_dir("stl");
  const fs::path path = dir / "s.stl";
  write_mesh(mesh, path.string(), MeshFormat::stl_binary);
  const std::string bytes = file_text(path);
  EXPECT_EQ(bytes.size(), 84 + 50 * mesh.triangles.size());
  EXPECT_NE(bytes.rfind("solid", 0), 0u);
  fs::remove_all(dir);
}

TEST(MeshWrite, normalsAreWrittenWhereTheFormatHasThem) {
  const TriangleMesh mesh = sphere_mesh();
  const fs::path dir = scratch_dir("normals");
  write_mesh(mesh, (dir / "n.obj").string(), MeshFormat::obj);
  write_mesh(mesh, (dir / "n.ply").string(), MeshFormat::ply_ascii);
  EXPECT_NE(file_text(dir / "n.obj").find("\nvn "), std::string::npos);
  EXPECT_NE(file_text(dir / "n.ply").find("property double nx"), std::string::npos);
  TriangleMesh bare = mesh;
  bare.normals.clear();
  write_mesh(bare, (dir / "bare.obj").string(), MeshFormat::obj);
  EXPECT_EQ(file_text(dir / "bare.obj").find("vn "), std::string::npos);
  fs::remove_all(dir);
}

TEST(MeshWrite, badMeshIsRefusedAndLeavesTheExistingFileAlone) {
  const fs::path dir = scratch_dir("bad");
  const fs::path path = dir / "keep.obj";
  { std::ofstream(path) << "previous contents\n"; }
  TriangleMesh bad;
  bad.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  bad.triangles = {{0, 1, 3}};
  try {
    write_mesh(bad, path.string(), MeshFormat::obj);
    FAIL() << "accepted an out-of-range corner";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badmesh);
    EXPECT_NE(std::string(e.what()).find("triangle 0"), std::string::npos) << e.what();
  }
  bad.triangles = {{0, 1, 2}};
  bad.positions[1][0] = std::nan("");
  EXPECT_THROW(write_mesh(bad, path.string(), MeshFormat::ply_binary), Error);
  EXPECT_EQ(file_text(path), "previous contents\n");
  fs::remove_all(dir);
}

TEST(MeshWrite, unwritablePathIsBadfileNamingIt) {
  TriangleMesh mesh;
  mesh.positions = {{0, 0, 0}, {1, 0, 0}, {0, 1, 0}};
  mesh.triangles = {{0, 1, 2}};
  const std::string path = "/nonexistent-distgrid-dir/x.stl";
  try {
    write_mesh(mesh, path, MeshFormat::stl_binary);
    FAIL() << "wrote into a missing directory";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badfile);
    EXPECT_NE(std::string(e.what()).find(path), std::string::npos) << e.what();
  }
}

TEST(MeshWrite, formatFollowsTheExtension) {
  EXPECT_EQ(mesh_format_for_path("a/b.stl"), MeshFormat::stl_binary);
  EXPECT_EQ(mesh_format_for_path("B.STL"), MeshFormat::stl_binary);
  EXPECT_EQ(mesh_format_for_path("x.obj"), MeshFormat::obj);
  EXPECT_EQ(mesh_format_for_path("x.ply"), MeshFormat::ply_binary);
  for (const char* path : {"x.off", "x", "dir.stl/x", "x.stl.gz"}) {
    try {
      (void)mesh_format_for_path(path);
      FAIL() << "accepted " << path;
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), ErrorCode::badarg) << path;
    }
  }
}

}  // namespace
}  // namespace distgrid
