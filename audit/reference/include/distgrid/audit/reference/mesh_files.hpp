#pragma once
// Readers of exported mesh files written from the file formats' layouts, not
// with core's readers: binary STL (80-byte header, uint32 count, per triangle
// twelve float32 and a uint16, little-endian), ASCII STL ("facet normal",
// "vertex" lines), OBJ ("v", "vn", "f" lines) and PLY (header, then ASCII or
// binary little-endian float64 vertex properties and uchar/uint face lists).
// Text numbers are parsed with strtod, which rounds correctly, so a number
// written with enough digits reads back to the double it was written from.
// Malformed input throws Error(badfile) naming the format and the position.
#include <array>
#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "distgrid/error.hpp"

namespace distgrid::audit::reference {

struct ParsedMesh {
  /// OBJ and PLY: one per vertex. STL: one per triangle corner, in file order.
  std::vector<std::array<double, 3>> positions;
  /// OBJ and PLY: vertex normals (may be empty). STL: one facet normal per triangle.
  std::vector<std::array<double, 3>> normals;
  /// OBJ and PLY: zero-based corner indices. STL: empty (corners are inline).
  std::vector<std::array<std::uint32_t, 3>> triangles;
};

/// Whether f is the float nearest x, ties to the even significand.
inline bool nearest_float(double x, float f) {
  const double err = std::fabs(static_cast<double>(f) - x);
  for (float g : {std::nextafter(f, -std::numeric_limits<float>::infinity()),
                  std::nextafter(f, std::numeric_limits<float>::infinity())}) {
    const double other = std::fabs(static_cast<double>(g) - x);
    if (other < err) return false;
    if (other == err) {
      std::uint32_t bits = 0;
      std::memcpy(&bits, &f, sizeof bits);
      if ((bits & 1u) != 0) return false;
    }
  }
  return true;
}

namespace mesh_files_detail {

[[noreturn]] inline void fail(const std::string& format, const std::string& what) {
  throw Error(ErrorCode::badfile, format + " reference reader: " + what);
}

template <class T>
T read_le(const std::string& bytes, std::size_t at, const char* format) {
  if (at + sizeof(T) > bytes.size()) fail(format, "file ends at byte " + std::to_string(bytes.size()));
  std::uint64_t value = 0;
  for (std::size_t b = 0; b < sizeof(T); ++b)
    value |= static_cast<std::uint64_t>(static_cast<unsigned char>(bytes[at + b])) << (8 * b);
  if constexpr (std::is_floating_point_v<T>) {
    using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;
    const auto bits = static_cast<Bits>(value);
    T out;
    std::memcpy(&out, &bits, sizeof out);
    return out;
  } else {
    return static_cast<T>(value);
  }
}

inline double number(const std::string& token, const char* format) {
  errno = 0;
  char* end = nullptr;
  const double v = std::strtod(token.c_str(), &end);
  if (token.empty() || end != token.c_str() + token.size()) fail(format, "not a number: '" + token + "'");
  return v;
}

inline std::array<double, 3> three_numbers(std::istringstream& in, const char* format) {
  std::array<double, 3> v{};
  for (double& x : v) {
    std::string token;
    if (!(in >> token)) fail(format, "fewer than three numbers");
    x = number(token, format);
  }
  return v;
}

}  // namespace mesh_files_detail

inline ParsedMesh parse_binary_stl(const std::string& bytes) {
  using namespace mesh_files_detail;
  constexpr const char* kFormat = "binary STL";
  ParsedMesh mesh;
  const auto count = read_le<std::uint32_t>(bytes, 80, kFormat);
  if (bytes.size() != 84 + 50 * static_cast<std::size_t>(count))
    fail(kFormat, std::to_string(bytes.size()) + " bytes for " + std::to_string(count) + " triangles");
  for (std::size_t t = 0; t < count; ++t) {
    const std::size_t at = 84 + 50 * t;
    std::array<std::array<double, 3>, 4> v{};
    for (std::size_t k = 0; k < 12; ++k) v[k / 3][k % 3] = static_cast<double>(read_le<float>(bytes, at + 4 * k, kFormat));
    mesh.normals.push_back(v[0]);
    for (std::size_t k = 1; k < 4; ++k) mesh.positions.push_back(v[k]);
  }
  return mesh;
}

inline ParsedMesh parse_ascii_stl(const std::string& text) {
  using namespace mesh_files_detail;
  constexpr const char* kFormat = "ASCII STL";
  ParsedMesh mesh;
  std::istringstream in(text);
  std::string word;
  while (in >> word) {
    if (word == "normal") mesh.normals.push_back(three_numbers(in, kFormat));
    if (word == "vertex") mesh.positions.push_back(three_numbers(in, kFormat));
  }
  if (mesh.positions.size() != 3 * mesh.normals.size()) fail(kFormat, "corners and facets do not match");
  return mesh;
}

inline ParsedMesh parse_obj(const std::string& text) {
  using namespace mesh_files_detail;
  constexpr const char* kFormat = "OBJ";
  ParsedMesh mesh;
  std::istringstream lines(text);
  std::string line;
  while (std::getline(lines, line)) {
    std::istringstream in(line);
    std::string word;
    if (!(in >> word)) continue;
    if (word == "v") mesh.positions.push_back(three_numbers(in, kFormat));
    if (word == "vn") mesh.normals.push_back(three_numbers(in, kFormat));
    if (word == "f") {
      std::array<std::uint32_t, 3> t{};
      for (std::uint32_t& index : t) {
        std::string token;
        if (!(in >> token)) fail(kFormat, "face with fewer than three corners: " + line);
        const unsigned long long one_based = std::strtoull(token.c_str(), nullptr, 10);  // stops at "//"
        if (one_based == 0 || one_based > UINT32_MAX) fail(kFormat, "bad corner index in: " + line);
        index = static_cast<std::uint32_t>(one_based - 1);
      }
      mesh.triangles.push_back(t);
    }
  }
  return mesh;
}

inline ParsedMesh parse_ply(const std::string& bytes) {
  using namespace mesh_files_detail;
  constexpr const char* kFormat = "PLY";
  const std::size_t header_end = bytes.find("end_header\n");
  if (bytes.rfind("ply\n", 0) != 0 || header_end == std::string::npos) fail(kFormat, "no PLY header");
  std::istringstream header(bytes.substr(0, header_end));
  std::string line, format;
  std::size_t vertices = 0, faces = 0, vertex_properties = 0;
  bool in_vertex = false;
  while (std::getline(header, line)) {
    std::istringstream in(line);
    std::string word;
    in >> word;
    if (word == "format") in >> format;
    if (word == "element") {
      std::string name;
      std::size_t count = 0;
      in >> name >> count;
      in_vertex = name == "vertex";
      (in_vertex ? vertices : faces) = count;
    }
    if (word == "property" && in_vertex) {
      std::string type;
      in >> type;
      if (type != "double") fail(kFormat, "vertex property of type " + type);
      ++vertex_properties;
    }
  }
  if (vertex_properties != 3 && vertex_properties != 6) fail(kFormat, "expected 3 or 6 vertex properties");
  ParsedMesh mesh;
  std::size_t at = header_end + std::strlen("end_header\n");
  if (format == "binary_little_endian") {
    for (std::size_t v = 0; v < vertices; ++v) {
      std::array<double, 6> values{};
      for (std::size_t k = 0; k < vertex_properties; ++k, at += 8) values[k] = read_le<double>(bytes, at, kFormat);
      mesh.positions.push_back({values[0], values[1], values[2]});
      if (vertex_properties == 6) mesh.normals.push_back({values[3], values[4], values[5]});
    }
    for (std::size_t f = 0; f < faces; ++f) {
      if (read_le<std::uint8_t>(bytes, at, kFormat) != 3) fail(kFormat, "face " + std::to_string(f) + " is no triangle");
      ++at;
      std::array<std::uint32_t, 3> t{};
      for (std::uint32_t& index : t) {
        index = read_le<std::uint32_t>(bytes, at, kFormat);
        at += 4;
      }
      mesh.triangles.push_back(t);
    }
    if (at != bytes.size()) fail(kFormat, "bytes after the last face");
  } else if (format == "ascii") {
    std::istringstream in(bytes.substr(at));
    for (std::size_t v = 0; v < vertices; ++v) {
      mesh.positions.push_back(three_numbers(in, kFormat));
      if (vertex_properties == 6) mesh.normals.push_back(three_numbers(in, kFormat));
    }
    for (std::size_t f = 0; f < faces; ++f) {
      std::size_t corners = 0;
      std::array<std::uint32_t, 3> t{};
      if (!(in >> corners >> t[0] >> t[1] >> t[2]) || corners != 3)
        fail(kFormat, "face " + std::to_string(f) + " is no triangle");
      mesh.triangles.push_back(t);
    }
  } else {
    fail(kFormat, "unknown format '" + format + "'");
  }
  return mesh;
}

}  // namespace distgrid::audit::reference
