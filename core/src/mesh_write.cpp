// Writing triangle meshes (see mesh_io.hpp). The whole file is formatted in memory,
// written to a temporary file beside the target and renamed over it, so a failed
// write never leaves a partial file under the target name.
//
// Numbers: text formats print doubles with 17 significant digits ("%.17g"), which
// reads back to the same double; binary PLY stores float64; binary STL stores float32
// by definition (positions are rounded to nearest, the 32-bit exchange step).

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <limits>
#include <string>
#include <type_traits>

#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/interrupt.hpp"
#include "distgrid/mesh_io.hpp"

namespace distgrid {

namespace {

using Vec3 = std::array<double, 3>;

void append_number(std::string& out, double v) {
  char buf[40];
  const int n = std::snprintf(buf, sizeof buf, "%.17g", v);
  out.append(buf, static_cast<std::size_t>(n));
}

void append_vec(std::string& out, const Vec3& v) {
  for (std::size_t a = 0; a < 3; ++a) {
    out += ' ';
    append_number(out, v[a]);
  }
}

template <class T>
void append_le(std::string& out, T value) {
  static_assert(std::is_integral_v<T> && std::is_unsigned_v<T>);
  for (std::size_t byte = 0; byte < sizeof(T); ++byte)
    out += static_cast<char>(static_cast<unsigned char>((value >> (8 * byte)) & 0xFFu));
}

void append_f32_le(std::string& out, double v) {
  const auto f = static_cast<float>(v);
  std::uint32_t bits = 0;
  std::memcpy(&bits, &f, sizeof bits);
  append_le(out, bits);
}

void append_f64_le(std::string& out, double v) {
  std::uint64_t bits = 0;
  std::memcpy(&bits, &v, sizeof bits);
  append_le(out, bits);
}

/// Unit normal of a triangle from its corners (zero for a degenerate one).
Vec3 face_normal(const TriangleMesh& mesh, const std::array<std::uint32_t, 3>& t) {
  const Vec3& a = mesh.positions[t[0]];
  const Vec3& b = mesh.positions[t[1]];
  const Vec3& c = mesh.positions[t[2]];
  const Vec3 u{b[0] - a[0], b[1] - a[1], b[2] - a[2]}, v{c[0] - a[0], c[1] - a[1], c[2] - a[2]};
  const Vec3 n{u[1] * v[2] - u[2] * v[1], u[2] * v[0] - u[0] * v[2], u[0] * v[1] - u[1] * v[0]};
  const double length = std::sqrt(n[0] * n[0] + n[1] * n[1] + n[2] * n[2]);
  if (!(length > 0) || !std::isfinite(length)) return {0, 0, 0};
  return {n[0] / length, n[1] / length, n[2] / length};
}

void check_mesh(const TriangleMesh& mesh, const std::string& path) {
  const std::string where = path + ": cannot write: ";
  for (std::size_t v = 0; v < mesh.positions.size(); ++v)
    for (double x : mesh.positions[v])
      if (!std::isfinite(x)) throw Error(ErrorCode::badmesh, where + "corner " + std::to_string(v) + " is not finite");
  if (!mesh.normals.empty() && mesh.normals.size() != mesh.positions.size())
    throw Error(ErrorCode::badmesh, where + std::to_string(mesh.normals.size()) + " normals for " +
                                        std::to_string(mesh.positions.size()) + " corners");
  for (std::size_t v = 0; v < mesh.normals.size(); ++v)
    for (double x : mesh.normals[v])
      if (!std::isfinite(x)) throw Error(ErrorCode::badmesh, where + "normal " + std::to_string(v) + " is not finite");
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::uint32_t i : mesh.triangles[t])
      if (i >= mesh.positions.size())
        throw Error(ErrorCode::badmesh, where + "triangle " + std::to_string(t) + " refers to corner " +
                                            std::to_string(i) + " of " + std::to_string(mesh.positions.size()));
}

/// Checks for an interrupt once every 65 536 calls: formatting a large mesh takes seconds.
class InterruptCheck {
 public:
  void operator()() {
    if (count_++ % 65536 == 0) throw_if_interrupted();
  }

 private:
  std::size_t count_ = 0;
};

std::string binary_stl(const TriangleMesh& mesh, const std::string& path) {
  if (mesh.triangles.size() > std::numeric_limits<std::uint32_t>::max())
    throw Error(ErrorCode::badmesh, path + ": cannot write: more triangles than binary STL can count");
  std::string out;
  out.reserve(84 + 50 * mesh.triangles.size());
  // The header must not start with "solid", or readers take the file for ASCII.
  std::string header = "binary STL written by distgrid";
  header.resize(80, ' ');
  out += header;
  append_le(out, static_cast<std::uint32_t>(mesh.triangles.size()));
  InterruptCheck check;
  for (const auto& t : mesh.triangles) {
    check();
    for (double x : face_normal(mesh, t)) append_f32_le(out, x);
    for (std::uint32_t corner : t)
      for (double x : mesh.positions[corner]) append_f32_le(out, x);
    append_le(out, std::uint16_t{0});
  }
  return out;
}

std::string ascii_stl(const TriangleMesh& mesh) {
  std::string out = "solid distgrid\n";
  InterruptCheck check;
  for (const auto& t : mesh.triangles) {
    check();
    out += "  facet normal";
    append_vec(out, face_normal(mesh, t));
    out += "\n    outer loop\n";
    for (std::uint32_t corner : t) {
      out += "      vertex";
      append_vec(out, mesh.positions[corner]);
      out += '\n';
    }
    out += "    endloop\n  endfacet\n";
  }
  out += "endsolid distgrid\n";
  return out;
}

std::string obj(const TriangleMesh& mesh) {
  std::string out = "# written by distgrid: corners, normals, counter-clockwise faces seen from outside\n";
  InterruptCheck check;
  for (const Vec3& p : mesh.positions) {
    out += 'v';
    append_vec(out, p);
    out += '\n';
    check();
  }
  for (const Vec3& n : mesh.normals) {
    check();
    out += "vn";
    append_vec(out, n);
    out += '\n';
  }
  const bool normals = !mesh.normals.empty();
  for (const auto& t : mesh.triangles) {
    check();
    out += 'f';
    for (std::uint32_t corner : t) {
      const std::string index = std::to_string(static_cast<std::uint64_t>(corner) + 1);
      out += ' ';
      out += index;
      if (normals) out += "//" + index;
    }
    out += '\n';
  }
  return out;
}

std::string ply(const TriangleMesh& mesh, bool binary) {
  const bool normals = !mesh.normals.empty();
  std::string out = "ply\nformat ";
  out += binary ? "binary_little_endian 1.0\n" : "ascii 1.0\n";
  out += "comment written by distgrid\nelement vertex " + std::to_string(mesh.positions.size()) + "\n";
  out += "property double x\nproperty double y\nproperty double z\n";
  if (normals) out += "property double nx\nproperty double ny\nproperty double nz\n";
  out += "element face " + std::to_string(mesh.triangles.size()) + "\n";
  out += "property list uchar uint vertex_indices\nend_header\n";
  InterruptCheck check;
  for (std::size_t v = 0; v < mesh.positions.size(); ++v) {
    check();
    if (binary) {
      for (double x : mesh.positions[v]) append_f64_le(out, x);
      if (normals)
        for (double x : mesh.normals[v]) append_f64_le(out, x);
    } else {
      std::string line;
      append_vec(line, mesh.positions[v]);
      if (normals) append_vec(line, mesh.normals[v]);
      out.append(line, 1, std::string::npos);  // without the leading space
      out += '\n';
    }
  }
  for (const auto& t : mesh.triangles) {
    check();
    if (binary) {
      out += static_cast<char>(3);
      for (std::uint32_t corner : t) append_le(out, corner);
    } else {
      out += "3 " + std::to_string(t[0]) + ' ' + std::to_string(t[1]) + ' ' + std::to_string(t[2]) + '\n';
    }
  }
  return out;
}


}  // namespace

void write_mesh(const TriangleMesh& mesh, const std::string& path, MeshFormat format) {
  check_mesh(mesh, path);
  switch (format) {
    case MeshFormat::stl_binary: return replace_file(path, binary_stl(mesh, path));
    case MeshFormat::stl_ascii: return replace_file(path, ascii_stl(mesh));
    case MeshFormat::obj: return replace_file(path, obj(mesh));
    case MeshFormat::ply_ascii: return replace_file(path, ply(mesh, false));
    case MeshFormat::ply_binary: return replace_file(path, ply(mesh, true));
  }
  throw Error(ErrorCode::badarg, path + ": unknown mesh format");
}

MeshFormat mesh_format_for_path(const std::string& path) {
  const std::size_t dot = path.find_last_of('.');
  const std::size_t slash = path.find_last_of('/');
  std::string extension;
  if (dot != std::string::npos && (slash == std::string::npos || dot > slash)) extension = path.substr(dot + 1);
  std::transform(extension.begin(), extension.end(), extension.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  if (extension == "stl") return MeshFormat::stl_binary;
  if (extension == "obj") return MeshFormat::obj;
  if (extension == "ply") return MeshFormat::ply_binary;
  throw Error(ErrorCode::badarg, path + ": unknown mesh extension '" + extension + "' (use .stl, .obj or .ply)");
}

}  // namespace distgrid
