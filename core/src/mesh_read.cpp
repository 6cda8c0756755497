// Mesh readers: STL (binary, ASCII), OBJ, PLY (ASCII, binary little-endian).
//
// The whole file is read into memory once; every parser works on that buffer with
// explicit bounds, so no read goes past it. Counts read from a file (STL triangle
// count, PLY element counts) are checked against the bytes that remain before
// anything is sized from them. Errors name the file and where: a line number for
// text formats, a record and byte offset for binary ones.
#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "distgrid/error.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/interrupt.hpp"
#include "distgrid/mesh_io.hpp"

namespace distgrid {
namespace {


[[noreturn]] void fail_at_line(ErrorCode code, const std::string& path, std::size_t line, const std::string& what) {
  throw Error(code, path + ": line " + std::to_string(line) + ": " + what);
}

[[noreturn]] void fail_at_byte(ErrorCode code, const std::string& path, std::size_t offset, const std::string& what) {
  throw Error(code, path + ": byte offset " + std::to_string(offset) + ": " + what);
}

/// Splits text into lines (LF or CRLF) and each line into whitespace-separated words.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  /// Next line's words; false at the end. line_number() is 1-based.
  bool next(std::vector<std::string_view>& words) {
    words.clear();
    if (at_ >= text_.size()) return false;
    const std::size_t end = std::min(text_.find('\n', at_), text_.size());
    std::string_view line = text_.substr(at_, end - at_);
    at_ = end + 1;
    if (++line_ % 65536 == 0) throw_if_interrupted();
    std::size_t i = 0;
    while (i < line.size()) {
      while (i < line.size() && is_space(line[i])) ++i;
      const std::size_t start = i;
      while (i < line.size() && !is_space(line[i])) ++i;
      if (i > start) words.push_back(line.substr(start, i - start));
    }
    return true;
  }
  std::size_t line_number() const noexcept { return line_; }
  std::size_t offset() const noexcept { return std::min(at_, text_.size()); }

 private:
  static bool is_space(char c) noexcept { return c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v'; }
  std::string_view text_;
  std::size_t at_ = 0;
  std::size_t line_ = 0;
};

bool parse_double(std::string_view word, double& out) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, out);
  if (ptr != end) return false;
  // Out of range: strtod gives +-inf (refused later as not finite) or the underflowed value.
  if (ec == std::errc::result_out_of_range) out = std::strtod(std::string(word).c_str(), nullptr);
  return ec == std::errc() || ec == std::errc::result_out_of_range;
}

bool parse_integer(std::string_view word, long long& out) {
  if (!word.empty() && word.front() == '+') word.remove_prefix(1);
  const char* end = word.data() + word.size();
  const auto [ptr, ec] = std::from_chars(word.data(), end, out);
  return ec == std::errc() && ptr == end;
}

double coordinate_at_line(std::string_view word, const std::string& path, std::size_t line) {
  double v = 0;
  if (!parse_double(word, v)) fail_at_line(ErrorCode::badfile, path, line, "expected a number, got '" + std::string(word) + "'");
  if (!std::isfinite(v)) fail_at_line(ErrorCode::badmesh, path, line, "coordinate '" + std::string(word) + "' is not finite");
  return v;
}

void add_fan(TriangleMesh& mesh, const std::vector<std::uint32_t>& polygon) {
  for (std::size_t n = 1; n + 1 < polygon.size(); ++n) mesh.triangles.push_back({polygon[0], polygon[n], polygon[n + 1]});
}

// --- STL ---------------------------------------------------------------------------

constexpr std::size_t kStlHeaderBytes = 84;   // 80-byte header + uint32 triangle count
constexpr std::size_t kStlRecordBytes = 50;   // normal, three corners (float32 each), uint16 attribute

std::uint32_t read_u32_le(const unsigned char* p) noexcept {
  return static_cast<std::uint32_t>(p[0]) | static_cast<std::uint32_t>(p[1]) << 8 |
         static_cast<std::uint32_t>(p[2]) << 16 | static_cast<std::uint32_t>(p[3]) << 24;
}

std::uint64_t read_u64_le(const unsigned char* p) noexcept {
  return static_cast<std::uint64_t>(read_u32_le(p)) | static_cast<std::uint64_t>(read_u32_le(p + 4)) << 32;
}

float read_f32_le(const unsigned char* p) noexcept {
  const std::uint32_t bits = read_u32_le(p);
  float v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

double read_f64_le(const unsigned char* p) noexcept {
  const std::uint64_t bits = read_u64_le(p);
  double v;
  std::memcpy(&v, &bits, sizeof v);
  return v;
}

/// True when the size is exactly what the binary header's triangle count promises.
bool looks_like_binary_stl(std::string_view bytes) {
  if (bytes.size() < kStlHeaderBytes) return false;
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t count = read_u32_le(p + 80);
  return bytes.size() - kStlHeaderBytes == count * kStlRecordBytes;
}

TriangleMesh read_binary_stl(std::string_view bytes, const std::string& path) {
  const auto* p = reinterpret_cast<const unsigned char*>(bytes.data());
  const std::uint64_t count = read_u32_le(p + 80);
  // looks_like_binary_stl checked count * 50 == remaining bytes, so the size below is backed by data.
  TriangleMesh mesh;
  mesh.positions.reserve(static_cast<std::size_t>(count) * 3);
  mesh.triangles.reserve(static_cast<std::size_t>(count));
  for (std::size_t t = 0; t < count; ++t) {
    if (t % 65536 == 0) throw_if_interrupted();
    const std::size_t record = kStlHeaderBytes + t * kStlRecordBytes;
    const std::uint32_t first = static_cast<std::uint32_t>(mesh.positions.size());
    for (std::size_t c = 0; c < 3; ++c) {
      std::array<double, 3> corner{};
      for (std::size_t a = 0; a < 3; ++a) {
        const std::size_t at = record + 12 + c * 12 + a * 4;
        corner[a] = static_cast<double>(read_f32_le(p + at));
        if (!std::isfinite(corner[a]))
          throw Error(ErrorCode::badmesh, path + ": triangle record " + std::to_string(t) + " (byte offset " +
                                              std::to_string(at) + "): coordinate is not finite");
      }
      mesh.positions.push_back(corner);
    }
    mesh.triangles.push_back({first, first + 1, first + 2});
  }
  return mesh;
}

TriangleMesh read_ascii_stl(std::string_view text, const std::string& path) {
  TriangleMesh mesh;
  LineReader lines(text);
  std::vector<std::string_view> w;
  std::vector<std::uint32_t> loop;
  bool in_loop = false, saw_end = false;
  while (lines.next(w)) {
    const std::size_t line = lines.line_number();
    if (w.empty()) continue;
    if (w[0] == "solid" || w[0] == "facet" || w[0] == "endfacet") continue;
    if (w[0] == "endsolid") {
      saw_end = true;
      continue;
    }
    if (w[0] == "outer") {
      if (in_loop) fail_at_line(ErrorCode::badfile, path, line, "'outer loop' inside a loop");
      in_loop = true;
      loop.clear();
    } else if (w[0] == "vertex") {
      if (!in_loop) fail_at_line(ErrorCode::badfile, path, line, "'vertex' outside 'outer loop'");
      if (w.size() != 4) fail_at_line(ErrorCode::badfile, path, line, "'vertex' needs three numbers");
      if (mesh.positions.size() >= std::numeric_limits<std::uint32_t>::max())
        fail_at_line(ErrorCode::badmesh, path, line, "too many corners");
      loop.push_back(static_cast<std::uint32_t>(mesh.positions.size()));
      mesh.positions.push_back({coordinate_at_line(w[1], path, line), coordinate_at_line(w[2], path, line),
                                coordinate_at_line(w[3], path, line)});
    } else if (w[0] == "endloop") {
      if (!in_loop) fail_at_line(ErrorCode::badfile, path, line, "'endloop' without 'outer loop'");
      if (loop.size() < 3) fail_at_line(ErrorCode::badmesh, path, line, "a facet needs at least three corners");
      add_fan(mesh, loop);
      in_loop = false;
    } else {
      fail_at_line(ErrorCode::badfile, path, line, "unexpected '" + std::string(w[0]) + "' in ASCII STL");
    }
  }
  if (in_loop || !saw_end)
    fail_at_line(ErrorCode::badfile, path, lines.line_number(), "file ends before 'endsolid' (truncated?)");
  return mesh;
}

// --- OBJ ---------------------------------------------------------------------------

TriangleMesh read_obj(std::string_view text, const std::string& path) {
  TriangleMesh mesh;
  LineReader lines(text);
  std::vector<std::string_view> w;
  std::vector<std::uint32_t> polygon;
  bool saw_statement = false;
  while (lines.next(w)) {
    const std::size_t line = lines.line_number();
    if (w.empty() || w[0].front() == '#') continue;
    if (w[0] == "v") {
      if (w.size() != 4 && w.size() != 5) fail_at_line(ErrorCode::badfile, path, line, "'v' needs three numbers (and an optional w)");
      if (mesh.positions.size() >= std::numeric_limits<std::uint32_t>::max())
        fail_at_line(ErrorCode::badmesh, path, line, "too many corners");
      mesh.positions.push_back({coordinate_at_line(w[1], path, line), coordinate_at_line(w[2], path, line),
                                coordinate_at_line(w[3], path, line)});
      saw_statement = true;
    } else if (w[0] == "f") {
      if (w.size() < 4) fail_at_line(ErrorCode::badmesh, path, line, "a face needs at least three corners");
      polygon.clear();
      const auto count = static_cast<long long>(mesh.positions.size());
      for (std::size_t n = 1; n < w.size(); ++n) {
        const std::string_view index_text = w[n].substr(0, w[n].find('/'));  // v, v/vt, v//vn, v/vt/vn
        long long index = 0;
        if (!parse_integer(index_text, index))
          fail_at_line(ErrorCode::badfile, path, line, "expected a corner index, got '" + std::string(w[n]) + "'");
        // 1-based; negative counts back from the last corner read so far.
        const long long zero_based = index > 0 ? index - 1 : count + index;
        if (index == 0 || zero_based < 0 || zero_based >= count)
          fail_at_line(ErrorCode::badmesh, path, line,
                       "corner index " + std::to_string(index) + " out of range (" + std::to_string(count) + " corners so far)");
        polygon.push_back(static_cast<std::uint32_t>(zero_based));
      }
      add_fan(mesh, polygon);
      saw_statement = true;
    } else if (w[0] == "vn" || w[0] == "vt" || w[0] == "vp" || w[0] == "o" || w[0] == "g" || w[0] == "s" ||
               w[0] == "usemtl" || w[0] == "mtllib" || w[0] == "l" || w[0] == "p") {
      saw_statement = true;  // carries nothing the bake needs
    } else {
      fail_at_line(ErrorCode::badfile, path, line, "unknown OBJ statement '" + std::string(w[0]) + "'");
    }
  }
  if (!saw_statement) throw Error(ErrorCode::badfile, path + ": not a mesh file (no STL, OBJ or PLY content)");
  return mesh;
}

// --- PLY ---------------------------------------------------------------------------

enum class PlyType { i8, u8, i16, u16, i32, u32, f32, f64 };

bool ply_type_of(std::string_view name, PlyType& type) {
  static constexpr std::array<std::pair<std::string_view, PlyType>, 16> kNames{{
      {"char", PlyType::i8},    {"int8", PlyType::i8},     {"uchar", PlyType::u8},   {"uint8", PlyType::u8},
      {"short", PlyType::i16},  {"int16", PlyType::i16},   {"ushort", PlyType::u16}, {"uint16", PlyType::u16},
      {"int", PlyType::i32},    {"int32", PlyType::i32},   {"uint", PlyType::u32},   {"uint32", PlyType::u32},
      {"float", PlyType::f32},  {"float32", PlyType::f32}, {"double", PlyType::f64}, {"float64", PlyType::f64},
  }};
  for (const auto& [n, t] : kNames)
    if (n == name) {
      type = t;
      return true;
    }
  return false;
}

std::size_t ply_size(PlyType type) noexcept {
  switch (type) {
    case PlyType::i8:
    case PlyType::u8: return 1;
    case PlyType::i16:
    case PlyType::u16: return 2;
    case PlyType::i32:
    case PlyType::u32:
    case PlyType::f32: return 4;
    case PlyType::f64: return 8;
  }
  return 1;
}

/// A binary value as a double (exact for every PLY type).
double ply_read(PlyType type, const unsigned char* p) noexcept {
  switch (type) {
    case PlyType::i8: return static_cast<double>(static_cast<std::int8_t>(p[0]));
    case PlyType::u8: return static_cast<double>(p[0]);
    case PlyType::i16: return static_cast<double>(static_cast<std::int16_t>(static_cast<std::uint16_t>(p[0] | p[1] << 8)));
    case PlyType::u16: return static_cast<double>(static_cast<std::uint16_t>(p[0] | p[1] << 8));
    case PlyType::i32: return static_cast<double>(static_cast<std::int32_t>(read_u32_le(p)));
    case PlyType::u32: return static_cast<double>(read_u32_le(p));
    case PlyType::f32: return static_cast<double>(read_f32_le(p));
    case PlyType::f64: return read_f64_le(p);
  }
  return 0;
}

struct PlyProperty {
  std::string name;
  PlyType type = PlyType::f32;
  bool is_list = false;
  PlyType count_type = PlyType::u8;
};

struct PlyElement {
  std::string name;
  std::uint64_t count = 0;
  std::vector<PlyProperty> properties;
};

TriangleMesh read_ply(std::string_view bytes, const std::string& path) {
  // Header: text lines up to and including "end_header".
  LineReader lines(bytes);
  std::vector<std::string_view> w;
  std::vector<PlyElement> elements;
  bool binary = false, saw_format = false, saw_end = false;
  while (lines.next(w)) {
    const std::size_t line = lines.line_number();
    if (w.empty()) continue;
    if (w[0] == "ply" || w[0] == "comment" || w[0] == "obj_info") continue;
    if (w[0] == "end_header") {
      saw_end = true;
      break;
    }
    if (w[0] == "format") {
      if (w.size() != 3) fail_at_line(ErrorCode::badfile, path, line, "malformed 'format' line");
      if (w[1] == "ascii") binary = false;
      else if (w[1] == "binary_little_endian") binary = true;
      else fail_at_line(ErrorCode::badfile, path, line, "unsupported PLY format '" + std::string(w[1]) + "'");
      saw_format = true;
    } else if (w[0] == "element") {
      long long count = 0;
      if (w.size() != 3 || !parse_integer(w[2], count) || count < 0)
        fail_at_line(ErrorCode::badfile, path, line, "malformed 'element' line");
      elements.push_back({std::string(w[1]), static_cast<std::uint64_t>(count), {}});
    } else if (w[0] == "property") {
      if (elements.empty()) fail_at_line(ErrorCode::badfile, path, line, "'property' before any 'element'");
      PlyProperty prop;
      if (w.size() == 5 && w[1] == "list") {
        prop.is_list = true;
        if (!ply_type_of(w[2], prop.count_type) || !ply_type_of(w[3], prop.type) || prop.count_type == PlyType::f32 ||
            prop.count_type == PlyType::f64)
          fail_at_line(ErrorCode::badfile, path, line, "malformed list property");
        prop.name = std::string(w[4]);
      } else if (w.size() == 3) {
        if (!ply_type_of(w[1], prop.type)) fail_at_line(ErrorCode::badfile, path, line, "unknown type '" + std::string(w[1]) + "'");
        prop.name = std::string(w[2]);
      } else {
        fail_at_line(ErrorCode::badfile, path, line, "malformed 'property' line");
      }
      elements.back().properties.push_back(prop);
    } else {
      fail_at_line(ErrorCode::badfile, path, line, "unexpected '" + std::string(w[0]) + "' in PLY header");
    }
  }
  if (!saw_end) throw Error(ErrorCode::badfile, path + ": PLY header has no 'end_header'");
  if (!saw_format) throw Error(ErrorCode::badfile, path + ": PLY header has no 'format' line");

  const std::size_t body_start = lines.offset();
  const std::size_t body_bytes = bytes.size() - body_start;
  TriangleMesh mesh;
  std::vector<std::uint32_t> polygon;
  std::uint64_t vertex_count = 0;
  bool saw_vertices = false;
  std::size_t at = body_start;  // binary bodies: the next byte to read
  for (const PlyElement& element : elements) {
    const bool is_vertex = element.name == "vertex", is_face = element.name == "face";
    std::array<int, 3> xyz{-1, -1, -1};
    int index_list = -1;
    std::size_t fixed_bytes = 0;  // smallest record size, for the count check
    for (std::size_t n = 0; n < element.properties.size(); ++n) {
      const PlyProperty& prop = element.properties[n];
      fixed_bytes += prop.is_list ? ply_size(prop.count_type) : ply_size(prop.type);
      if (is_vertex && !prop.is_list) {
        if (prop.name == "x") xyz[0] = static_cast<int>(n);
        if (prop.name == "y") xyz[1] = static_cast<int>(n);
        if (prop.name == "z") xyz[2] = static_cast<int>(n);
      }
      if (is_face && prop.is_list && (prop.name == "vertex_indices" || prop.name == "vertex_index")) index_list = static_cast<int>(n);
    }
    if (is_vertex && (xyz[0] < 0 || xyz[1] < 0 || xyz[2] < 0))
      throw Error(ErrorCode::badfile, path + ": PLY vertex element lacks x, y or z");
    if (is_face && index_list < 0) throw Error(ErrorCode::badfile, path + ": PLY face element lacks vertex_indices");
    // A record takes at least fixed_bytes in binary and two characters ("0\n") in text:
    // a count the remaining bytes cannot hold is refused before anything is sized from it.
    const std::size_t least = binary ? std::max<std::size_t>(fixed_bytes, 1) : 2;
    if (element.count > body_bytes / least)
      throw Error(ErrorCode::badfile, path + ": PLY element '" + element.name + "' claims " + std::to_string(element.count) +
                                          " records, more than the " + std::to_string(body_bytes) + " bytes after the header can hold");
    if (is_vertex) {
      if (element.count >= std::numeric_limits<std::uint32_t>::max())
        throw Error(ErrorCode::badmesh, path + ": too many corners");
      mesh.positions.reserve(static_cast<std::size_t>(element.count));
      vertex_count = element.count;
      saw_vertices = true;
    }
    if (is_face && !saw_vertices) throw Error(ErrorCode::badfile, path + ": PLY face element before the vertex element");

    for (std::uint64_t record = 0; record < element.count; ++record) {
      if (record % 65536 == 0) throw_if_interrupted();
      std::array<double, 3> corner{};
      polygon.clear();
      if (binary) {
        const std::size_t record_start = at;
        for (std::size_t n = 0; n < element.properties.size(); ++n) {
          const PlyProperty& prop = element.properties[n];
          const std::size_t value_bytes = ply_size(prop.type);
          if (prop.is_list) {
            const std::size_t count_bytes = ply_size(prop.count_type);
            if (bytes.size() - at < count_bytes)
              fail_at_byte(ErrorCode::badfile, path, at, "file ends inside " + element.name + " record " + std::to_string(record));
            const double count_value = ply_read(prop.count_type, reinterpret_cast<const unsigned char*>(bytes.data() + at));
            at += count_bytes;
            if (count_value < 0)
              fail_at_byte(ErrorCode::badfile, path, record_start, "negative list length in " + element.name + " record " + std::to_string(record));
            const auto count = static_cast<std::size_t>(count_value);
            if ((bytes.size() - at) / value_bytes < count)
              fail_at_byte(ErrorCode::badfile, path, at, "file ends inside " + element.name + " record " + std::to_string(record));
            if (static_cast<int>(n) == index_list) {
              for (std::size_t c = 0; c < count; ++c) {
                const double index = ply_read(prop.type, reinterpret_cast<const unsigned char*>(bytes.data() + at + c * value_bytes));
                if (!(index >= 0 && index < static_cast<double>(vertex_count)))
                  fail_at_byte(ErrorCode::badmesh, path, record_start,
                               "face record " + std::to_string(record) + ": corner index " + std::to_string(static_cast<long long>(index)) +
                                   " out of range (" + std::to_string(vertex_count) + " corners)");
                polygon.push_back(static_cast<std::uint32_t>(index));
              }
            }
            at += count * value_bytes;
          } else {
            if (bytes.size() - at < value_bytes)
              fail_at_byte(ErrorCode::badfile, path, at, "file ends inside " + element.name + " record " + std::to_string(record));
            const double value = ply_read(prop.type, reinterpret_cast<const unsigned char*>(bytes.data() + at));
            for (std::size_t a = 0; a < 3; ++a)
              if (static_cast<int>(n) == xyz[a]) {
                if (!std::isfinite(value))
                  fail_at_byte(ErrorCode::badmesh, path, at, "vertex record " + std::to_string(record) + ": coordinate is not finite");
                corner[a] = value;
              }
            at += value_bytes;
          }
        }
        if (is_face && polygon.size() < 3)
          fail_at_byte(ErrorCode::badmesh, path, record_start, "face record " + std::to_string(record) + " has fewer than three corners");
      } else {
        // Records are one per line; blank lines are skipped.
        do {
          if (!lines.next(w))
            throw Error(ErrorCode::badfile, path + ": file ends before " + element.name + " record " + std::to_string(record) + " (truncated?)");
        } while (w.empty());
        const std::size_t line = lines.line_number();
        const std::vector<std::string_view>& words = w;
        std::size_t word = 0;
        auto take = [&](const char* what) -> std::string_view {
          if (word >= words.size()) fail_at_line(ErrorCode::badfile, path, line, std::string("missing ") + what);
          return words[word++];
        };
        for (std::size_t n = 0; n < element.properties.size(); ++n) {
          const PlyProperty& prop = element.properties[n];
          if (prop.is_list) {
            long long count = 0;
            const std::string_view count_text = take("list length");
            if (!parse_integer(count_text, count) || count < 0)
              fail_at_line(ErrorCode::badfile, path, line, "bad list length '" + std::string(count_text) + "'");
            for (long long c = 0; c < count; ++c) {
              const std::string_view item = take("list item");
              if (static_cast<int>(n) == index_list) {
                long long index = 0;
                if (!parse_integer(item, index)) fail_at_line(ErrorCode::badfile, path, line, "bad corner index '" + std::string(item) + "'");
                if (index < 0 || static_cast<std::uint64_t>(index) >= vertex_count)
                  fail_at_line(ErrorCode::badmesh, path, line,
                               "corner index " + std::to_string(index) + " out of range (" + std::to_string(vertex_count) + " corners)");
                polygon.push_back(static_cast<std::uint32_t>(index));
              }
            }
          } else {
            const std::string_view item = take("value");
            double value = 0;
            if (!parse_double(item, value)) fail_at_line(ErrorCode::badfile, path, line, "expected a number, got '" + std::string(item) + "'");
            for (std::size_t a = 0; a < 3; ++a)
              if (static_cast<int>(n) == xyz[a]) corner[a] = coordinate_at_line(item, path, line);
          }
        }
        if (word != words.size()) fail_at_line(ErrorCode::badfile, path, line, "extra values in " + element.name + " record");
        if (is_face && polygon.size() < 3) fail_at_line(ErrorCode::badmesh, path, line, "a face needs at least three corners");
      }
      if (is_vertex) mesh.positions.push_back(corner);
      if (is_face) add_fan(mesh, polygon);
    }
  }
  if (!saw_vertices) throw Error(ErrorCode::badfile, path + ": PLY file has no vertex element");
  return mesh;
}

bool starts_with_word(std::string_view bytes, std::string_view word) {
  std::size_t i = 0;
  while (i < bytes.size() && (bytes[i] == ' ' || bytes[i] == '\t' || bytes[i] == '\r' || bytes[i] == '\n')) ++i;
  return bytes.substr(i, word.size()) == word;
}

}  // namespace

TriangleMesh read_mesh(const std::string& path) { return parse_mesh(read_file(path), path); }

TriangleMesh parse_mesh(std::string_view view, const std::string& path) {
  if (view.substr(0, 4) == "ply\n" || view.substr(0, 5) == "ply\r\n") return read_ply(view, path);
  // A binary STL whose header happens to start with "solid" is recognised by its size.
  if (looks_like_binary_stl(view)) return read_binary_stl(view, path);
  if (starts_with_word(view, "solid")) return read_ascii_stl(view, path);
  if (view.find('\0') != std::string_view::npos) {
    if (view.size() >= kStlHeaderBytes) {
      const std::uint64_t count = read_u32_le(reinterpret_cast<const unsigned char*>(view.data()) + 80);
      fail_at_byte(ErrorCode::badfile, path, 80,
                   "binary STL header promises " + std::to_string(count) + " triangles (" +
                       std::to_string(kStlHeaderBytes + count * kStlRecordBytes) + " bytes) but the file has " +
                       std::to_string(view.size()) + " bytes");
    }
    throw Error(ErrorCode::badfile, path + ": binary file too short for an STL header (" + std::to_string(view.size()) + " bytes)");
  }
  return read_obj(view, path);
}

}  // namespace distgrid
