// The bad-input catalogue: every reader and command of both tools fed input
// that is malformed, truncated, non-finite, out of range, open, too large or
// of the wrong kind. Each row states the exit code, the typed error code and
// the words the message must contain to name the input and where in it the
// fault is; and that no output file was left behind.
#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <limits>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>
#include <ostream>
#include <string>
#include <vector>

#include "support/scratch_dir.hpp"
#include "support/test_meshes.hpp"

namespace {

namespace fs = std::filesystem;

// --- input builders ------------------------------------------------------------

/// Appends the value's bytes (little-endian on the hosts .dgrid supports).
template <class T>
void put(std::string& out, T value) {
  char bytes[sizeof(T)];
  std::memcpy(bytes, &value, sizeof(T));
  out.append(bytes, sizeof(T));
}
void put_u32(std::string& out, std::uint32_t v) { put(out, v); }
void put_f32(std::string& out, float v) { put(out, v); }

using Triangle = std::array<std::array<float, 3>, 3>;
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();
constexpr float kInfinity = std::numeric_limits<float>::infinity();

/// Binary STL: 80-byte header, the declared count, 50-byte records.
std::string binary_stl(const std::vector<Triangle>& triangles, std::uint32_t declared) {
  std::string out(80, ' ');
  put_u32(out, declared);
  for (const Triangle& t : triangles) {
    for (int k = 0; k < 3; ++k) put_f32(out, 0);
    for (const auto& corner : t)
      for (float x : corner) put_f32(out, x);
    out.append(2, '\0');
  }
  return out;
}

/// The closed, outward-oriented unit tetrahedron.
const std::vector<Triangle> kTetra{{{{0, 0, 0}, {0, 1, 0}, {1, 0, 0}}},
                                   {{{0, 0, 0}, {1, 0, 0}, {0, 0, 1}}},
                                   {{{0, 0, 0}, {0, 0, 1}, {0, 1, 0}}},
                                   {{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}};

const std::string kTetraVertices = "v 0 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\n";
const std::string kTetraObj = kTetraVertices + "f 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n";

std::string ply_header(const std::string& format, const std::string& vertex_count, const std::string& face_count) {
  return "ply\nformat " + format + " 1.0\nelement vertex " + vertex_count +
         "\nproperty float x\nproperty float y\nproperty float z\nelement face " + face_count +
         "\nproperty list uchar int vertex_indices\nend_header\n";
}

std::string binary_ply_tetra(std::size_t keep_bytes_of_body) {
  std::string body;
  for (const auto& v : std::vector<std::array<float, 3>>{{0, 0, 0}, {1, 0, 0}, {0, 1, 0}, {0, 0, 1}})
    for (float x : v) put_f32(body, x);
  for (const auto& f : std::vector<std::array<std::uint32_t, 3>>{{0, 2, 1}, {0, 1, 3}, {0, 3, 2}, {1, 2, 3}}) {
    body.push_back('\3');
    for (std::uint32_t i : f) put_u32(body, i);
  }
  return ply_header("binary_little_endian", "4", "4") + body.substr(0, keep_bytes_of_body);
}

std::string nested_unions(int depth) {
  std::string spec;
  for (int n = 0; n < depth; ++n) spec += R"({"type": "union", "of": [)";
  spec += R"({"type": "sphere", "center": [0, 0, 0], "radius": 1})";
  for (int n = 0; n < depth; ++n) spec += "]}";
  return spec;
}

const std::string kSphereSpec = R"({"type": "sphere", "center": [0, 0, 0], "radius": 1})";

// --- the catalogue --------------------------------------------------------------

enum class Tool { distgrid, audit };

struct BadInput {
  const char* name;
  const char* file;        ///< the input file's name in the scratch folder ("" when none)
  std::string content;     ///< its bytes
  Tool tool;
  const char* arguments;   ///< {in} is the input's path, {out} an output path, {dir} the folder
  int exit_code;
  const char* error_code;  ///< printed as '<tool>: <code>: '; "usage" for exit code 2
  std::vector<const char*> mentions;  ///< the message names these (besides the file, always checked)
};

std::string bytes_with_nul(const std::string& text) { return text + std::string(1, '\0') + "tail"; }

void put_u64(std::string& out, std::uint64_t v) { put(out, v); }
void put_f64(std::string& out, double v) { put(out, v); }

/// Closed meshes that bound no solid, as OBJ text: two overlapping bunny-like
/// shells, a shell through itself, and a ball inside a ball facing the same way.
std::string two_overlapping_shells() {
  using namespace distgrid::test_support;
  const distgrid::TriangleMesh bunny = bunny_like(3);
  return obj_text(joined(bunny, translated(bunny, {0.45, 0.1, 0})));
}
std::string self_intersecting_shell() { return distgrid::test_support::obj_text(distgrid::test_support::spindle_torus()); }
std::string nested_same_orientation() { return distgrid::test_support::obj_text(distgrid::test_support::hollow_ball(true)); }

/// What a .dgrid file (version 1, see core/src/grid_io.cpp) holds, to write it with faults.
struct DgridContent {
  std::uint32_t version = 1;
  double h = 0.125, band = 3;
  std::int64_t key = (std::int64_t{65536} * 131072 + 65536) * 131072 + 65536;  // brick (0, 0, 0)
  float node_value = 0.25f;
  std::uint64_t declared_stored = 1;
  bool valid_checksum = true;
};

std::string dgrid_bytes(const DgridContent& c) {
  std::string out("DGRID\r\n\x1a", 8);
  put_u32(out, c.version);
  put_u32(out, 4);
  put_f64(out, c.h);
  put_f64(out, c.band);
  put_u64(out, c.declared_stored);
  put_u64(out, 0);
  put_u64(out, static_cast<std::uint64_t>(c.key));
  for (int n = 0; n < 512; ++n) put_f32(out, c.node_value);
  std::uint64_t hash = 0xcbf29ce484222325ull;  // FNV-1a 64
  for (char byte : out) {
    hash ^= static_cast<unsigned char>(byte);
    hash *= 0x100000001b3ull;
  }
  put_u64(out, c.valid_checksum ? hash : hash ^ 1);
  return out;
}

DgridContent with(std::function<void(DgridContent&)> change) {
  DgridContent c;
  change(c);
  return c;
}

const std::vector<BadInput>& catalogue() {
  static const std::vector<BadInput> rows{
      // Binary STL
      {"stl_binary_truncated_record", "m.stl", binary_stl(kTetra, 4).substr(0, 84 + 50 * 3 + 20), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"byte offset 80", "4 triangles", "254 bytes"}},
      {"stl_binary_huge_count", "m.stl", binary_stl(kTetra, 0xFFFFFFFFu), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"byte offset 80", "4294967295"}},
      {"stl_binary_short_header", "m.stl", bytes_with_nul("abc"), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"too short"}},
      {"stl_binary_nan_corner", "m.stl",
       binary_stl({kTetra[0], kTetra[1], kTetra[2], Triangle{{{1, 0, 0}, {0, 1, 0}, {0, 0, kNaN}}}}, 4),
       Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"record 3", "byte offset 278", "not finite"}},
      {"stl_binary_infinite_corner", "m.stl",
       binary_stl({kTetra[0], kTetra[1], kTetra[2], Triangle{{{1, 0, 0}, {0, 1, 0}, {0, 0, kInfinity}}}}, 4), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"record 3", "byte offset 278", "not finite"}},
      // ASCII STL
      {"stl_ascii_truncated", "m.stl", "solid t\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 0\n",
       Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"line"}},
      {"stl_ascii_bad_number", "m.stl",
       "solid t\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex 1 0 x\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n",
       Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"line 5"}},
      {"stl_ascii_nan_corner", "m.stl",
       "solid t\nfacet normal 0 0 0\nouter loop\nvertex 0 0 0\nvertex nan 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid\n",
       Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line 5"}},
      // OBJ
      {"obj_index_out_of_range", "m.obj", kTetraVertices + "f 1 3 2\nf 1 2 9\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line 6", "9"}},
      {"obj_index_zero", "m.obj", kTetraVertices + "f 0 3 2\n", Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}",
       1, "badmesh", {"line 5"}},
      {"obj_negative_index_out_of_range", "m.obj", kTetraVertices + "f -1 -2 -7\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line 5"}},
      {"obj_vertex_with_two_coordinates", "m.obj", "v 0 0\n" + kTetraObj, Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"line 1"}},
      {"obj_infinite_vertex", "m.obj", "v inf 0 0\nv 1 0 0\nv 0 1 0\nv 0 0 1\nf 1 3 2\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
       Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line 1"}},
      {"obj_huge_coordinate_overflows", "m.obj", "v 1e400 0 0\n" + kTetraObj, Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line 1"}},
      {"obj_face_with_two_corners", "m.obj", kTetraVertices + "f 1 2\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line 5"}},
      {"mesh_empty_file", "m.obj", "", Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile",
       {"not a mesh file"}},
      {"mesh_only_comments", "m.obj", "# nothing here\n", Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1,
       "badfile", {"not a mesh file"}},
      {"mesh_single_triangle", "m.obj", "v 0 0 0\nv 1 0 0\nv 0 1 0\nf 1 2 3\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "openmesh", {"3 boundary"}},
      {"mesh_open_tetra", "m.obj", kTetraVertices + "f 1 3 2\nf 1 2 4\nf 1 4 3\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "openmesh", {"boundary", "edge"}},
      {"mesh_non_manifold_fin", "m.obj", kTetraObj + "v 2 2 2\nf 1 2 5\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "openmesh", {"non-manifold"}},
      {"mesh_duplicate_face_opposite_orientation", "m.obj", kTetraObj + "f 1 2 3\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "openmesh", {"non-manifold"}},
      {"mesh_inconsistent_orientation", "m.obj", kTetraVertices + "f 1 2 3\nf 1 2 4\nf 1 4 3\nf 2 3 4\n",
       Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "openmesh", {"orient"}},
      {"mesh_all_zero_area", "m.obj", "v 0 0 0\nv 1 0 0\nv 2 0 0\nf 1 2 3\nf 1 3 2\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"non-zero area"}},
      {"mesh_two_overlapping_shells", "m.obj", two_overlapping_shells(), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "selfintersect", {"pairs of triangles meet", "e.g. triangles "}},
      {"mesh_shell_through_itself", "m.obj", self_intersecting_shell(), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "selfintersect", {"bounds no solid", "e.g. triangles "}},
      {"mesh_shell_inside_a_shell_facing_the_same_way", "m.obj", nested_same_orientation(), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"1 shell faces the wrong way", "shell of triangle 1280"}},
      {"mesh_file_over_the_budget", "m.obj", kTetraObj, Tool::distgrid,
       "bake --mesh {in} --h 0.1 --max-memory 100 --out {out}", 1, "toolarge",
       {"reading its 64 B", "over the memory budget of 100 B"}},
      {"mesh_estimate_over_the_budget", "m.obj", two_overlapping_shells(), Tool::distgrid,
       "bake --mesh {in} --h 1e-5 --out {out}", 1, "toolarge", {"at h = 1e-05", "bricks to compute", "triangle-brick pairs"}},
      // PLY
      {"ply_binary_truncated", "m.ply", binary_ply_tetra(48 + 13 * 2), Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"byte"}},
      {"ply_huge_vertex_count", "m.ply", ply_header("binary_little_endian", "4000000000", "4") + "abc", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"4000000000"}},
      {"ply_no_end_header", "m.ply", "ply\nformat ascii 1.0\nelement vertex 3\nproperty float x\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badfile", {"end_header"}},
      {"ply_index_out_of_range", "m.ply", ply_header("ascii", "3", "1") + "0 0 0\n1 0 0\n0 1 0\n3 0 1 7\n",
       Tool::distgrid, "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line", "7"}},
      {"ply_ascii_nan", "m.ply", ply_header("ascii", "3", "1") + "0 0 0\nnan 0 0\n0 1 0\n3 0 1 2\n", Tool::distgrid,
       "bake --mesh {in} --h 0.1 --out {out}", 1, "badmesh", {"line"}},
      {"mesh_missing_file", "", "", Tool::distgrid, "bake --mesh {dir}/absent.stl --h 0.1 --out {out}", 1, "badfile",
       {"absent.stl", "cannot open"}},
      // Formula specs
      {"spec_malformed_json", "s.json", R"({"type": "sphere", "radius": )", Tool::distgrid,
       "bake --spec {in} --h 0.05 --out {out}", 1, "badspec", {"byte"}},
      {"spec_empty_file", "s.json", "", Tool::distgrid, "bake --spec {in} --h 0.05 --out {out}", 1, "badspec",
       {"JSON"}},
      {"spec_unknown_node", "s.json", R"({"type": "sphere2", "center": [0, 0, 0], "radius": 1})", Tool::distgrid,
       "bake --spec {in} --h 0.05 --out {out}", 1, "badspec", {"sphere2"}},
      {"spec_wrong_type", "s.json", R"({"type": "sphere", "center": [0, 0, 0], "radius": "one"})", Tool::distgrid,
       "bake --spec {in} --h 0.05 --out {out}", 1, "badspec", {"/radius"}},
      {"spec_negative_radius", "s.json",
       R"({"type": "union", "of": [{"type": "sphere", "center": [0, 0, 0], "radius": -1}]})", Tool::distgrid,
       "bake --spec {in} --h 0.05 --out {out}", 1, "badspec", {"/of/0/radius"}},
      {"spec_overflowing_number", "s.json", R"({"type": "sphere", "center": [0, 0, 1e999], "radius": 1})",
       Tool::distgrid, "bake --spec {in} --h 0.05 --out {out}", 1, "badspec", {"1e999"}},
      {"spec_absurd_depth", "s.json", nested_unions(5000), Tool::distgrid, "bake --spec {in} --h 0.05 --out {out}", 1,
       "badspec", {"nested deeper"}},
      {"spec_json_nesting_bomb", "s.json", std::string(100000, '[') + std::string(100000, ']'), Tool::distgrid,
       "bake --spec {in} --h 0.05 --out {out}", 1, "badspec", {"byte 512", "nested deeper than 512"}},
      {"spec_missing_file", "", "", Tool::distgrid, "bake --spec {dir}/absent.json --h 0.05 --out {out}", 1, "badfile",
       {"absent.json"}},
      // Voxel size, band and memory
      {"h_zero", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0 --out {out}", 1, "badarg", {"h = 0"}},
      {"h_negative", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h -0.1 --out {out}", 1, "badarg",
       {"h = -0.1"}},
      {"h_subnormal", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0x1p-1070 --out {out}", 1, "badarg",
       {"1 / h"}},
      {"h_huge", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 1e308 --out {out}", 1, "badarg",
       {"band * h"}},
      {"h_not_a_number", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h nan --out {out}", 1, "badarg",
       {"h = nan"}},
      {"band_below_one", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0.1 --band 0.5 --out {out}", 1,
       "badarg", {"band = 0.5"}},
      {"storage_unknown", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0.1 --storage q4 --out {out}", 1,
       "badarg", {"unknown storage 'q4'", "(did you mean q8"}},
      {"storage_half_beyond_its_range", "s.json", kSphereSpec, Tool::distgrid,
       "bake --spec {in} --h 4096 --band 16 --storage half --out {out}", 1, "badarg", {"65504"}},
      {"part_too_large_for_the_keys", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 1e-7 --out {out}",
       1, "toolarge", {"h"}},
      {"part_over_the_memory_budget", "s.json", kSphereSpec, Tool::distgrid,
       "bake --spec {in} --h 0.002 --max-memory 16M --out {out}", 1, "toolarge", {"memory budget", "16.0 MiB"}},
      {"mesh_over_the_memory_budget", "m.obj", kTetraObj, Tool::distgrid,
       "bake --mesh {in} --h 0.001 --max-memory 1M --out {out}", 1, "toolarge", {"memory budget"}},
      {"memory_budget_not_a_size", "s.json", kSphereSpec, Tool::distgrid,
       "bake --spec {in} --h 0.1 --max-memory lots --out {out}", 2, "usage", {"--max-memory"}},
      // Boxes, folders and misspellings
      {"bbox_empty", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0.1 --bbox 0,0,0,1,0,1 --out {out}", 1,
       "badarg", {"--bbox 0,0,0,1,0,1", "X0 < X1"}},
      {"bbox_not_finite", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0.1 --bbox 0,0,0,inf,1,1 --out {out}",
       1, "badarg", {"finite"}},
      {"bbox_five_numbers", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0.1 --bbox 0,0,0,1,1 --out {out}",
       2, "usage", {"six numbers"}},
      {"spec_is_a_folder", "", "", Tool::distgrid, "bake --spec {dir} --h 0.1 --out {out}", 1, "badarg",
       {"is a folder; a file was expected"}},
      {"mesh_is_a_folder", "", "", Tool::distgrid, "bake --mesh {dir} --h 0.1 --out {out}", 1, "badarg", {"is a folder"}},
      {"out_is_a_folder", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0.1 --out {dir}", 1, "badarg",
       {"is a folder; give the name of the file to write"}},
      {"out_ends_in_a_slash", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --h 0.1 --out {dir}/new/", 1,
       "badarg", {"is a folder"}},
      {"out_folder_missing", "", "", Tool::distgrid, "bake --spec {dir}/absent.json --h 0.1 --out {dir}/no/such.dgrid", 1,
       "badfile", {"no/such.dgrid: the folder", "does not exist"}},
      {"grid_is_a_folder", "", "", Tool::distgrid, "info {dir}", 1, "badarg", {"is a folder"}},
      {"option_misspelt", "s.json", kSphereSpec, Tool::distgrid, "bake --spec {in} --hh 0.1 --out {out}", 2, "usage",
       {"unknown option --hh (did you mean --h?)"}},
      {"option_value_left_out", "s.json", kSphereSpec, Tool::distgrid, "bake --spec --h 0.1 --out {out}", 2, "usage",
       {"--spec needs a value before --h"}},
      {"part_misspelt", "", "", Tool::distgrid, "bake --part spehre --h 0.1 --out {out}", 1, "badarg",
       {"unknown part \"spehre\"", "(did you mean sphere?)"}},
      {"command_misspelt", "", "", Tool::distgrid, "contuor {dir}/g.dgrid --out {out}", 2, "usage",
       {"unknown command 'contuor' (did you mean contour?)"}},
      {"audit_option_misspelt", "", "", Tool::audit, "run --quikc --out {out}", 2, "usage", {"(did you mean --quick?)"}},
      {"audit_command_misspelt", "", "", Tool::audit, "lsit", 2, "usage", {"(did you mean list?)"}},
      // .dgrid files
      {"dgrid_empty", "g.dgrid", "", Tool::distgrid, "info {in}", 1, "badfile", {"truncated"}},
      {"dgrid_bad_magic", "g.dgrid", std::string(64, 'x'), Tool::distgrid, "info {in}", 1, "badfile",
       {"magic at byte 0"}},
      {"dgrid_text_file", "g.dgrid", kTetraObj, Tool::distgrid, "sample {in} 0 0 0", 1, "badfile", {"byte"}},
      {"dgrid_truncated", "g.dgrid", dgrid_bytes({}).substr(0, 1000), Tool::distgrid, "info {in}", 1, "badfile",
       {"file size 1000", "truncated"}},
      {"dgrid_corrupt_byte", "g.dgrid", dgrid_bytes(with([](DgridContent& c) { c.valid_checksum = false; })),
       Tool::distgrid, "volume {in}", 1, "badfile", {"checksum at byte"}},
      {"dgrid_future_version", "g.dgrid", dgrid_bytes(with([](DgridContent& c) { c.version = 4; })), Tool::distgrid,
       "info {in}", 1, "badfile", {"version 4 at byte 8"}},
      {"dgrid_zero_h", "g.dgrid", dgrid_bytes(with([](DgridContent& c) { c.h = 0; })), Tool::distgrid, "info {in}",
       1, "badfile", {"byte 16"}},
      {"dgrid_nan_node_value", "g.dgrid", dgrid_bytes(with([](DgridContent& c) { c.node_value = kNaN; })),
       Tool::distgrid, "info {in}", 1, "badfile", {"node value", "at byte"}},
      {"dgrid_invalid_key", "g.dgrid", dgrid_bytes(with([](DgridContent& c) { c.key = -5; })), Tool::distgrid,
       "info {in}", 1, "badfile", {"invalid brick key -5 at byte 48"}},
      {"dgrid_huge_brick_count", "g.dgrid",
       dgrid_bytes(with([](DgridContent& c) { c.declared_stored = std::uint64_t{1} << 60; })), Tool::distgrid,
       "info {in}", 1, "badfile", {"bytes 32-47"}},
      {"sample_not_a_number", "g.dgrid", dgrid_bytes({}), Tool::distgrid, "sample {in} nan 0 0", 1, "badarg",
       {"(nan, 0, 0)", "finite"}},
      {"dgrid_origin_length_past_the_end", "g.dgrid", dgrid_bytes(with([](DgridContent& c) { c.version = 2; })),
       Tool::distgrid, "info {in}", 1, "badfile", {"origin length", "at byte 48"}},
      // Points to sample
      {"points_line_with_two_numbers", "p.txt", "0 0 0\n1 2\n", Tool::distgrid, "sample {dir}/p.txt --points {in}", 1,
       "badfile", {"line 2", "three numbers"}},
      {"points_not_a_number", "p.txt", "0 0 zero\n", Tool::distgrid, "sample {dir}/p.txt --points {in}", 1, "badfile",
       {"line 1", "'zero' is not a number"}},
      {"points_not_finite", "p.txt", "0 0 0\n\n1 inf 0\n", Tool::distgrid, "sample {dir}/p.txt --points {in}", 1,
       "badfile", {"line 3", "finite"}},
      {"points_is_a_folder", "", "", Tool::distgrid, "sample {dir}/g.dgrid --points {dir}", 1, "badarg", {"is a folder"}},
      {"gradient_without_points", "", "", Tool::distgrid, "sample {dir}/g.dgrid 0 0 0 --gradient", 2, "usage",
       {"--gradient goes with --points"}},
      {"contour_over_the_memory_budget", "g.dgrid", dgrid_bytes({}), Tool::distgrid,
       "contour {in} --max-memory 1K --out {dir}/out.stl", 1, "toolarge", {"the contour of 1 stored brick (about 48 vertices", "1.0 KiB"}},
      // Reports
      {"report_not_json", "r.json", "{\"schema\": ", Tool::audit, "gate {in}", 1, "badfile", {"not valid JSON at byte 12"}},
      {"report_wrong_schema", "r.json", R"({"schema": "something-else/7", "calculations": []})", Tool::audit,
       "gate {in}", 1, "badfile", {"schema"}},
      {"report_schema_not_a_string", "r.json", R"({"schema": 3.5, "calculations": []})", Tool::audit, "gate {in}", 1,
       "badfile", {"not a distgrid-audit-report/1 report"}},
      {"report_nesting_bomb", "r.json", std::string(100000, '{'), Tool::audit, "gate {in}", 1, "badfile",
       {"byte 512", "nested deeper"}},
      {"report_missing_file", "", "", Tool::audit, "gate {dir}/absent.json", 1, "badfile", {"absent.json"}},
      // compare makes no comparison (exit 2), history and the ratchet fail as gate does.
      {"report_not_json_compare", "r.json", "{\"schema\": ", Tool::audit, "compare {in} {in}", 2, "badfile",
       {"not valid JSON at byte 12"}},
      {"report_wrong_schema_history", "r.json", R"({"schema": "something-else/7", "calculations": []})", Tool::audit,
       "history {in} --out {out}", 1, "badfile", {"schema"}},
      {"report_nesting_bomb_ratchet", "r.json", std::string(100000, '{'), Tool::audit, "budgets --ratchet {in}", 1,
       "badfile", {"byte 512", "nested deeper"}},
  };
  return rows;
}

/// gtest prints a failing row by its name, not its bytes.
void PrintTo(const BadInput& row, std::ostream* out) { *out << row.name; }

using distgrid::test_support::CliResult;
using distgrid::test_support::run_command;

std::string replace_all(std::string text, const std::string& from, const std::string& to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
  return text;
}

class BadInputCatalogue : public ::testing::TestWithParam<BadInput> {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("distgrid_bad_input_" + std::string(GetParam().name));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }
  fs::path dir_;
};

TEST_P(BadInputCatalogue, FailsWithItsTypedErrorNamingTheInputAndLeavesNoOutput) {
  const BadInput& row = GetParam();
  const std::string input = row.file[0] ? (dir_ / row.file).string() : std::string();
  if (!input.empty()) std::ofstream(input, std::ios::binary) << row.content;
  const std::string output = (dir_ / "out.dgrid").string();
  std::string arguments = replace_all(row.arguments, "{in}", input);
  arguments = replace_all(arguments, "{out}", output);
  arguments = replace_all(arguments, "{dir}", dir_.string());
  const char* tool_path = row.tool == Tool::distgrid ? DISTGRID_CLI : DISTGRID_AUDIT_CLI;
  const char* tool_name = row.tool == Tool::distgrid ? "distgrid" : "distgrid-audit";

  const CliResult r = run_command(std::string(tool_path) + " " + arguments);
  SCOPED_TRACE(std::string(tool_name) + " " + arguments + "\n" + r.out);
  EXPECT_EQ(r.exit_code, row.exit_code);
  const std::string prefix = std::string(tool_name) + ": " + row.error_code + ": ";
  EXPECT_NE(r.out.find(prefix), std::string::npos) << "expected '" << prefix << "'";
  if (row.exit_code == 1) {
    // The message names the input file (or, for a bad argument, the input the argument applies to).
    const std::string named = row.file[0] ? std::string(row.file) : std::string();
    if (!named.empty() && std::string(row.error_code) != "badarg" && std::string(row.error_code) != "toolarge") {
      EXPECT_NE(r.out.find(named), std::string::npos) << "the message does not name " << named;
    }
  }
  for (const char* word : row.mentions) EXPECT_NE(r.out.find(word), std::string::npos) << "missing '" << word << "'";
  EXPECT_FALSE(fs::exists(output)) << "an output file was left behind";
  for (const auto& entry : fs::directory_iterator(dir_))
    EXPECT_EQ(entry.path().string().find(".tmp."), std::string::npos) << "temporary file left: " << entry.path();
}

INSTANTIATE_TEST_SUITE_P(Rows, BadInputCatalogue, ::testing::ValuesIn(catalogue()),
                         [](const ::testing::TestParamInfo<BadInput>& row) { return std::string(row.param.name); });

TEST(BadInputCatalogueSize, HoldsAtLeastFortyRows) { EXPECT_GE(catalogue().size(), 40u); }

}  // namespace
