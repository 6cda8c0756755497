// Mesh readers: every format reads the same tetrahedron, the format is found by
// content, and a table of malformed files each gives its typed error and location.
#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <string>
#include <vector>

#include "distgrid/error.hpp"
#include "distgrid/mesh_io.hpp"
#include "support/scratch_dir.hpp"

namespace distgrid {
namespace {

namespace fs = std::filesystem;

using MeshReadTest = distgrid::test_support::ScratchDirTest;

void put_u32(std::string& out, std::uint32_t v) {
  for (int b = 0; b < 4; ++b) out.push_back(static_cast<char>((v >> (8 * b)) & 0xFF));
}
void put_f32(std::string& out, float v) {
  std::uint32_t bits;
  std::memcpy(&bits, &v, 4);
  put_u32(out, bits);
}
void put_f64(std::string& out, double v) {
  std::uint64_t bits;
  std::memcpy(&bits, &v, 8);
  put_u32(out, static_cast<std::uint32_t>(bits));
  put_u32(out, static_cast<std::uint32_t>(bits >> 32));
}

// The unit tetrahedron, outward: corners 0 (0,0,0), 1 (1,0,0), 2 (0,1,0), 3 (0,0,1).
const std::vector<std::array<double, 3>> kTetCorners{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}};
const std::vector<std::array<std::uint32_t, 3>> kTetFaces{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}};

std::string binary_stl(const std::string& header_start, std::uint32_t claimed, std::size_t records) {
  std::string out = header_start;
  out.resize(80, ' ');
  put_u32(out, claimed);
  for (std::size_t t = 0; t < records; ++t) {
    const auto& f = kTetFaces[t % 4];
    for (int n = 0; n < 3; ++n) put_f32(out, 0);
    for (std::uint32_t c : f)
      for (double x : kTetCorners[c]) put_f32(out, static_cast<float>(x));
    out += std::string(2, '\0');
  }
  return out;
}

std::string ascii_stl() {
  std::string out = "solid tet\n";
  for (const auto& f : kTetFaces) {
    out += " facet normal 0 0 0\n  outer loop\n";
    for (std::uint32_t c : f)
      out += "   vertex " + std::to_string(kTetCorners[c][0]) + " " + std::to_string(kTetCorners[c][1]) + " " +
             std::to_string(kTetCorners[c][2]) + "\n";
    out += "  endloop\n endfacet\n";
  }
  return out + "endsolid tet\n";
}

std::string ply_header(const std::string& format, std::size_t vertices, std::size_t faces, const std::string& type) {
  return "ply\nformat " + format + " 1.0\ncomment test\nelement vertex " + std::to_string(vertices) + "\nproperty " + type +
         " x\nproperty " + type + " y\nproperty " + type + " z\nelement face " + std::to_string(faces) +
         "\nproperty list uchar int vertex_indices\nend_header\n";
}

std::string binary_ply(bool doubles) {
  std::string out = ply_header("binary_little_endian", 4, 4, doubles ? "double" : "float");
  for (const auto& p : kTetCorners)
    for (double x : p) doubles ? put_f64(out, x) : put_f32(out, static_cast<float>(x));
  for (const auto& f : kTetFaces) {
    out.push_back(3);
    for (std::uint32_t c : f) put_u32(out, c);
  }
  return out;
}

std::string ascii_ply() {
  std::string out = ply_header("ascii", 4, 4, "float");
  for (const auto& p : kTetCorners) out += std::to_string(p[0]) + " " + std::to_string(p[1]) + " " + std::to_string(p[2]) + "\n";
  for (const auto& f : kTetFaces) out += "3 " + std::to_string(f[0]) + " " + std::to_string(f[1]) + " " + std::to_string(f[2]) + "\n";
  return out;
}

/// Triangles as corner positions, so meshes with and without shared corners compare.
std::vector<std::array<double, 9>> soup(const TriangleMesh& mesh) {
  std::vector<std::array<double, 9>> out;
  for (const auto& t : mesh.triangles) {
    std::array<double, 9> s{};
    for (std::size_t c = 0; c < 3; ++c)
      for (std::size_t a = 0; a < 3; ++a) s[c * 3 + a] = mesh.positions[t[c]][a];
    out.push_back(s);
  }
  return out;
}

std::vector<std::array<double, 9>> tet_soup() {
  TriangleMesh tet;
  tet.positions = kTetCorners;
  tet.triangles = kTetFaces;
  return soup(tet);
}

TEST_F(MeshReadTest, EveryFormatReadsTheSameTetrahedron) {
  const std::vector<std::pair<std::string, std::string>> files{
      {"tet_binary.stl", binary_stl("binary tet", 4, 4)},
      {"tet_ascii.stl", ascii_stl()},
      {"tet.obj", "# tet\nv 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1/1 2/2 4/4\nf 1//1 4//4 3//3\nf -3 -2 -1\n"},
      {"tet_ascii.ply", ascii_ply()},
      {"tet_float.ply", binary_ply(false)},
      {"tet_double.ply", binary_ply(true)},
  };
  for (const auto& [name, bytes] : files) {
    const TriangleMesh mesh = read_mesh(write(name, bytes));
    EXPECT_EQ(soup(mesh), tet_soup()) << name;
  }
}

TEST_F(MeshReadTest, FormatIsChosenByContentNotByName) {
  // A binary STL whose header starts with "solid", saved as .obj: its size matches the count.
  const TriangleMesh mesh = read_mesh(write("lying.obj", binary_stl("solid but binary", 4, 4)));
  EXPECT_EQ(soup(mesh), tet_soup());
  EXPECT_EQ(soup(read_mesh(write("ply_named.stl", ascii_ply()))), tet_soup());
}

TEST_F(MeshReadTest, ObjPolygonsAreFanSplit) {
  const TriangleMesh mesh = read_mesh(write("quad.obj", "v 0 0 0\nv 1 0 0\nv 1 1 0\nv 0 1 0\nv 0.5 1.5 0\nf 1 2 3 5 4\n"));
  ASSERT_EQ(mesh.triangles.size(), 3u);
  EXPECT_EQ(mesh.triangles[0], (std::array<std::uint32_t, 3>{0, 1, 2}));
  EXPECT_EQ(mesh.triangles[1], (std::array<std::uint32_t, 3>{0, 2, 4}));
  EXPECT_EQ(mesh.triangles[2], (std::array<std::uint32_t, 3>{0, 4, 3}));
}

TEST_F(MeshReadTest, DoublePrecisionPlyKeepsEveryBit) {
  std::string out = ply_header("binary_little_endian", 3, 1, "double");
  const double x = 0.1, y = 1.0 / 3, z = -0x1.fffffffffffffp-3;
  for (double v : {x, y, z, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0}) put_f64(out, v);
  out.push_back(3);
  for (std::uint32_t c : {0u, 1u, 2u}) put_u32(out, c);
  const TriangleMesh mesh = read_mesh(write("bits.ply", out));
  EXPECT_EQ(mesh.positions[0], (std::array<double, 3>{x, y, z}));
}

struct Malformed {
  const char* name;
  std::string bytes;
  ErrorCode code;
  const char* where;  // must appear in the message
};

TEST_F(MeshReadTest, MalformedFilesGiveTypedErrorsNamingWhere) {
  std::string ply_bad_index = ply_header("binary_little_endian", 4, 1, "float");
  for (int n = 0; n < 12; ++n) put_f32(ply_bad_index, 0);
  ply_bad_index.push_back(3);
  for (std::uint32_t c : {0u, 1u, 9u}) put_u32(ply_bad_index, c);
  std::string ply_truncated = binary_ply(false);
  ply_truncated.resize(ply_truncated.size() - 3);
  std::string ply_nan = ply_header("ascii", 3, 1, "float") + "0 0 0\n1 nan 0\n0 1 0\n3 0 1 2\n";
  std::string stl_nan = binary_stl("x", 1, 0);
  for (int n = 0; n < 3; ++n) put_f32(stl_nan, 0);
  put_f32(stl_nan, std::numeric_limits<float>::infinity());
  for (int n = 0; n < 8; ++n) put_f32(stl_nan, 0);
  stl_nan += std::string(2, '\0');

  const std::vector<Malformed> table{
      {"stl_count_exceeds_size.stl", binary_stl("x", 1000000, 4), ErrorCode::badfile, "byte offset 80"},
      {"stl_count_huge.stl", binary_stl("x", 0xFFFFFFFFu, 1), ErrorCode::badfile, "byte offset 80"},
      {"stl_short_header.stl", std::string("abc\0def", 7), ErrorCode::badfile, "too short"},
      {"stl_infinite.stl", stl_nan, ErrorCode::badmesh, "triangle record 0"},
      {"stl_ascii_truncated.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n", ErrorCode::badfile, "truncated"},
      {"stl_ascii_bad_number.stl", "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 x 0\n", ErrorCode::badfile, "line 5"},
      {"stl_ascii_two_corners.stl", "solid t\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nendloop\nendsolid\n", ErrorCode::badmesh, "line 5"},
      {"obj_index_out_of_range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 4\n", ErrorCode::badmesh, "line 4"},
      {"obj_negative_out_of_range.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf -1 -2 -4\n", ErrorCode::badmesh, "line 4"},
      {"obj_index_zero.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 0 1 2\n", ErrorCode::badmesh, "line 4"},
      {"obj_two_corners.obj", "v 0 0 0\nv 1 0 0\nf 1 2\n", ErrorCode::badmesh, "line 3"},
      {"obj_not_finite.obj", "v 0 0 0\nv 1e999 0 0\n", ErrorCode::badmesh, "line 2"},
      {"obj_bad_number.obj", "v 0 0 zero\n", ErrorCode::badfile, "line 1"},
      {"obj_unknown.obj", "v 0 0 0\nfrobnicate 1\n", ErrorCode::badfile, "line 2"},
      {"empty.obj", "", ErrorCode::badfile, "not a mesh"},
      {"ply_no_end_header.ply", "ply\nformat ascii 1.0\nelement vertex 3\n", ErrorCode::badfile, "end_header"},
      {"ply_big_endian.ply", "ply\nformat binary_big_endian 1.0\nend_header\n", ErrorCode::badfile, "line 2"},
      {"ply_count_too_large.ply", ply_header("binary_little_endian", 4000000000u, 1, "float") + "xyz", ErrorCode::badfile,
       "claims 4000000000"},
      {"ply_index_out_of_range.ply", ply_bad_index, ErrorCode::badmesh, "face record 0"},
      {"ply_truncated.ply", ply_truncated, ErrorCode::badfile, "byte offset"},
      {"ply_ascii_not_finite.ply", ply_nan, ErrorCode::badmesh, "line 12"},
      {"ply_ascii_truncated.ply", ply_header("ascii", 3, 1, "float") + "0 0 0\n1 0 0\n", ErrorCode::badfile, "truncated"},
      {"ply_ascii_extra.ply", ply_header("ascii", 3, 1, "float") + "0 0 0 7\n1 0 0\n0 1 0\n3 0 1 2\n", ErrorCode::badfile, "line 11"},
  };
  for (const Malformed& m : table) {
    const std::string path = write(m.name, m.bytes);
    try {
      read_mesh(path);
      ADD_FAILURE() << m.name << ": no error";
    } catch (const Error& e) {
      EXPECT_EQ(e.code(), m.code) << m.name << ": " << e.what();
      const std::string message = e.what();
      EXPECT_NE(message.find(path), std::string::npos) << m.name << ": " << message;
      EXPECT_NE(message.find(m.where), std::string::npos) << m.name << ": " << message;
    }
  }
}

TEST_F(MeshReadTest, MissingFileIsBadFile) {
  try {
    read_mesh((dir_ / "absent.stl").string());
    ADD_FAILURE() << "no error";
  } catch (const Error& e) {
    EXPECT_EQ(e.code(), ErrorCode::badfile);
  }
}

}  // namespace
}  // namespace distgrid
