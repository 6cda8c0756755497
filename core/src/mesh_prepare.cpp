#include "distgrid/mesh_prepare.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <numeric>
#include <string>

#include "distgrid/error.hpp"
#include "distgrid/interrupt.hpp"
#include "distgrid/mesh_solid.hpp"

namespace distgrid {

std::uint64_t edge_key(std::uint32_t a, std::uint32_t b) noexcept {
  const std::uint32_t lo = a < b ? a : b, hi = a < b ? b : a;
  return static_cast<std::uint64_t>(lo) << 32 | hi;
}

namespace {

using detail::cross3;
using detail::dot3;
using detail::sub3;

struct PositionBits {
  std::array<std::uint64_t, 3> bits;
  friend bool operator==(const PositionBits&, const PositionBits&) = default;
};

/// Hash of a position's bits, well mixed in every bit (splitmix64's finaliser), so
/// that masking off the low bits suits lattice coordinates whose low mantissa bits
/// are all zero.
std::uint64_t position_hash(const PositionBits& p) noexcept {
  std::uint64_t h = 0x9E3779B97F4A7C15ull;
  for (std::uint64_t b : p.bits) {
    h ^= b;
    h ^= h >> 30;
    h *= 0xBF58476D1CE4E5B9ull;
    h ^= h >> 27;
    h *= 0x94D049BB133111EBull;
    h ^= h >> 31;
  }
  return h;
}

/// Bit pattern with -0 mapped to +0, so the two weld together; equal finite doubles have equal bits otherwise.
PositionBits bits_of(const Vec3& p) noexcept {
  PositionBits out{};
  for (std::size_t a = 0; a < 3; ++a) {
    const double v = p[a] + 0.0;  // -0 + 0 is +0
    std::memcpy(&out.bits[a], &v, sizeof v);
  }
  return out;
}

std::string corner_text(const PreparedMesh& mesh, std::uint32_t corner) {
  const Vec3& p = mesh.positions[corner];
  char buf[160];
  std::snprintf(buf, sizeof buf, "%u (%.17g, %.17g, %.17g)", corner, p[0], p[1], p[2]);
  return buf;
}

/// "1 shell", "2 shells".
std::string count_text(std::size_t n, const char* one, const char* many) {
  return std::to_string(n) + " " + (n == 1 ? one : many);
}

/// "12 [(x, y, z), (x, y, z), (x, y, z)]": a triangle by its number as read, and its corners.
std::string triangle_text(const PreparedMesh& mesh, std::uint32_t prepared) {
  std::string text = std::to_string(mesh.input_triangles[prepared]) + " [";
  for (std::size_t c = 0; c < 3; ++c) {
    const Vec3& p = mesh.positions[mesh.triangles[prepared][c]];
    char buf[96];
    std::snprintf(buf, sizeof buf, "%s(%.6g, %.6g, %.6g)", c == 0 ? "" : ", ", p[0], p[1], p[2]);
    text += buf;
  }
  return text + "]";
}

std::uint32_t find_root(std::vector<std::uint32_t>& parent, std::uint32_t x) {
  while (parent[x] != x) {
    parent[x] = parent[parent[x]];
    x = parent[x];
  }
  return x;
}

Vec3 unit(const Vec3& v) noexcept {
  const double length = std::sqrt(dot3(v, v));
  return {v[0] / length, v[1] / length, v[2] / length};
}

}  // namespace

TriangleMesh weld_corners(const TriangleMesh& mesh, const std::string& source) {
  for (std::size_t v = 0; v < mesh.positions.size(); ++v)
    for (double c : mesh.positions[v])
      if (!std::isfinite(c)) throw Error(ErrorCode::badmesh, source + ": corner " + std::to_string(v) + " is not finite");
  TriangleMesh out;
  out.triangles.reserve(mesh.triangles.size());
  // Open addressing with linear probing, at most half full: welded corner per slot.
  // Node-based hash maps spend most of their time allocating for large meshes.
  constexpr std::uint32_t kNone = 0xFFFFFFFFu;
  const std::size_t capacity = std::bit_ceil(std::max<std::size_t>(16, 2 * mesh.positions.size()));
  std::vector<std::uint32_t> table(capacity, kNone);
  std::vector<PositionBits> welded_bits;
  std::vector<std::uint32_t> remap(mesh.positions.size(), kNone);
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t) {
    if (t % 65536 == 0) throw_if_interrupted();
    std::array<std::uint32_t, 3> tri{};
    for (std::size_t c = 0; c < 3; ++c) {
      const std::uint32_t v = mesh.triangles[t][c];
      if (v >= mesh.positions.size())
        throw Error(ErrorCode::badmesh, source + ": triangle " + std::to_string(t) + " uses corner " + std::to_string(v) +
                                            " of " + std::to_string(mesh.positions.size()));
      if (remap[v] == kNone) {
        const PositionBits key = bits_of(mesh.positions[v]);
        std::size_t slot = position_hash(key) & (capacity - 1);
        while (table[slot] != kNone && !(welded_bits[table[slot]] == key)) slot = (slot + 1) & (capacity - 1);
        if (table[slot] == kNone) {
          table[slot] = static_cast<std::uint32_t>(out.positions.size());
          out.positions.push_back(mesh.positions[v]);
          welded_bits.push_back(key);
        }
        remap[v] = table[slot];
      }
      tri[c] = remap[v];
    }
    out.triangles.push_back(tri);
  }
  return out;
}

PreparedMesh prepare_mesh(const TriangleMesh& input, const std::string& source, bool allow_open, unsigned threads) {
  PreparedMesh mesh;
  mesh.source = source;
  MeshReport& report = mesh.report;
  report.corners_read = input.positions.size();
  report.triangles_read = input.triangles.size();
  TriangleMesh welded = weld_corners(input, source);
  mesh.positions = std::move(welded.positions);
  report.corners_welded = mesh.positions.size();

  // Zero-area triangles (including repeated corners) are skipped: they carry no normal.
  std::vector<Vec3> raw_normals;
  for (std::size_t t = 0; t < welded.triangles.size(); ++t) {
    if (t % 65536 == 0) throw_if_interrupted();
    const auto& tri = welded.triangles[t];
    const Vec3& a = mesh.positions[tri[0]];
    const Vec3 n = cross3(sub3(mesh.positions[tri[1]], a), sub3(mesh.positions[tri[2]], a));
    if (n[0] == 0 && n[1] == 0 && n[2] == 0) {
      ++report.zero_area_triangles;
      continue;
    }
    mesh.triangles.push_back(tri);
    mesh.input_triangles.push_back(static_cast<std::uint32_t>(t));
    raw_normals.push_back(n);
  }
  if (mesh.triangles.empty()) throw Error(ErrorCode::badmesh, source + ": no triangle of non-zero area");

  for (const auto& tri : mesh.triangles) {
    const Vec3 &a = mesh.positions[tri[0]], &b = mesh.positions[tri[1]], &c = mesh.positions[tri[2]];
    report.signed_volume += dot3(a, cross3(b, c)) / 6;
  }
  if (report.signed_volume < 0) {
    report.flipped = true;
    for (auto& tri : mesh.triangles) std::swap(tri[1], tri[2]);
    for (auto& n : raw_normals) n = {-n[0], -n[1], -n[2]};
  }
  mesh.face_normals.reserve(raw_normals.size());
  for (const Vec3& n : raw_normals) mesh.face_normals.push_back(unit(n));

  // Edges: sorted (key, triangle * 3 + side) so grouping, normals and the example are deterministic.
  struct EdgeUse {
    std::uint64_t key;
    std::uint32_t slot;  // triangle * 3 + side (0: ab, 1: bc, 2: ca)
  };
  const std::size_t triangle_count = mesh.triangles.size();
  std::vector<EdgeUse> uses;
  uses.reserve(triangle_count * 3);
  for (std::size_t t = 0; t < triangle_count; ++t)
    for (std::uint32_t side = 0; side < 3; ++side) {
      const auto& tri = mesh.triangles[t];
      uses.push_back({edge_key(tri[side], tri[(side + 1) % 3]), static_cast<std::uint32_t>(t * 3 + side)});
    }
  // Ascending (key, slot): uses are made in slot order, so two stable counting sorts,
  // by the larger corner and then by the smaller, give it in linear time.
  {
    std::vector<EdgeUse> sorted(uses.size());
    std::vector<std::size_t> start(mesh.positions.size() + 1);
    for (const unsigned shift : {0u, 32u}) {
      std::fill(start.begin(), start.end(), 0);
      for (const EdgeUse& u : uses) ++start[((u.key >> shift) & 0xFFFFFFFFu) + 1];
      for (std::size_t c = 1; c < start.size(); ++c) start[c] += start[c - 1];
      for (const EdgeUse& u : uses) sorted[start[(u.key >> shift) & 0xFFFFFFFFu]++] = u;
      uses.swap(sorted);
    }
  }
  mesh.triangle_edges.assign(triangle_count, {0, 0, 0});
  std::vector<std::uint32_t> parent(triangle_count);
  std::iota(parent.begin(), parent.end(), 0u);
  auto note_example = [&](std::uint64_t key, const char* kind) {
    if (!report.example_edge_kind.empty()) return;
    report.example_edge = {static_cast<std::uint32_t>(key >> 32), static_cast<std::uint32_t>(key & 0xFFFFFFFFu)};
    report.example_edge_kind = kind;
  };
  std::size_t groups = 0;
  for (std::size_t begin = 0; begin < uses.size();) {
    if (groups++ % 65536 == 0) throw_if_interrupted();
    std::size_t end = begin + 1;
    while (end < uses.size() && uses[end].key == uses[begin].key) ++end;
    const std::uint64_t key = uses[begin].key;
    const auto id = static_cast<std::uint32_t>(mesh.edge_keys.size());
    mesh.edge_keys.push_back(key);
    Vec3 normal{0, 0, 0};
    for (std::size_t u = begin; u < end; ++u) {
      const std::uint32_t t = uses[u].slot / 3, side = uses[u].slot % 3;
      mesh.triangle_edges[t][side] = id;
      for (std::size_t a = 0; a < 3; ++a) normal[a] += mesh.face_normals[t][a];
      const std::uint32_t root_a = find_root(parent, uses[begin].slot / 3), root_b = find_root(parent, t);
      parent[std::max(root_a, root_b)] = std::min(root_a, root_b);
    }
    mesh.edge_normals.push_back(normal);
    const std::size_t count = end - begin;
    if (count == 1) {
      ++report.boundary_edges;
      note_example(key, "boundary");
    } else if (count > 2) {
      ++report.nonmanifold_edges;
      note_example(key, "non-manifold");
    } else {
      // Consistent neighbours traverse the shared edge in opposite directions.
      const auto& t0 = mesh.triangles[uses[begin].slot / 3];
      const auto& t1 = mesh.triangles[uses[begin + 1].slot / 3];
      const std::uint32_t s0 = uses[begin].slot % 3, s1 = uses[begin + 1].slot % 3;
      if (t0[s0] == t1[s1]) {
        ++report.inconsistent_edges;
        note_example(key, "inconsistent");
      }
    }
    begin = end;
  }
  // Components numbered in order of their first triangle.
  std::vector<std::uint32_t> component(triangle_count);
  for (std::uint32_t t = 0; t < triangle_count; ++t) {
    const std::uint32_t root = find_root(parent, t);
    component[t] = root == t ? static_cast<std::uint32_t>(report.components++) : component[root];
  }

  if (!report.closed() && !allow_open) {
    const std::string example = corner_text(mesh, report.example_edge[0]) + " - " + corner_text(mesh, report.example_edge[1]);
    throw Error(ErrorCode::openmesh, source + ": " + std::to_string(report.boundary_edges) + " boundary, " +
                                         std::to_string(report.nonmanifold_edges) + " non-manifold and " +
                                         std::to_string(report.inconsistent_edges) +
                                         " inconsistently oriented edges; e.g. " + report.example_edge_kind + " edge " + example);
  }

  const TriangleIntersections crossings = find_triangle_intersections(mesh.positions, mesh.triangles, threads);
  report.intersecting_pairs = crossings.pairs;
  if (crossings.pairs != 0) {
    report.example_pair = {mesh.input_triangles[crossings.example[0]], mesh.input_triangles[crossings.example[1]]};
    if (!allow_open)
      throw Error(ErrorCode::selfintersect,
                  source + ": " + count_text(crossings.pairs, "pair of triangles meets", "pairs of triangles meet") +
                      " beyond their shared corners and edges (shells that overlap or touch, "
                      "or a shell through itself), so the mesh bounds no solid; e.g. triangles " +
                      triangle_text(mesh, crossings.example[0]) + " and " + triangle_text(mesh, crossings.example[1]));
  } else if (report.closed()) {
    const ShellNesting nesting = check_shell_nesting(mesh.positions, mesh.triangles, component, report.components);
    report.misnested_shells = nesting.misnested;
    if (nesting.misnested != 0) {
      report.example_shell_triangle = mesh.input_triangles[nesting.example_triangle];
      report.example_shell_volume = nesting.example_volume;
      if (nesting.example_enclosing_triangle != ShellNesting::kNoTriangle)
        report.example_enclosing_triangle = mesh.input_triangles[nesting.example_enclosing_triangle];
      if (!allow_open) {
        const bool outward = nesting.example_volume > 0;
        const std::string around =
            nesting.example_enclosing_triangle == ShellNesting::kNoTriangle
                ? std::string("no other shell lies around it")
                : "it lies inside the shell of triangle " + triangle_text(mesh, nesting.example_enclosing_triangle);
        char volume[64];
        std::snprintf(volume, sizeof volume, "%.6g", nesting.example_volume);
        throw Error(ErrorCode::badmesh,
                    source + ": " + count_text(nesting.misnested, "shell faces", "shells face") +
                        " the wrong way for the nesting, so the mesh bounds no solid; e.g. the shell of "
                        "triangle " + triangle_text(mesh, nesting.example_triangle) + " (signed volume " + volume +
                        ") faces " + (outward ? "outward" : "inward") + " but " + around +
                        (outward ? " with the same orientation: reverse its triangles to make it a cavity"
                                 : ": reverse its triangles"));
      }
    }
  }

  // Corner pseudo-normals: each incident triangle's unit normal weighted by its angle there.
  mesh.corner_normals.assign(mesh.positions.size(), {0, 0, 0});
  for (std::size_t t = 0; t < triangle_count; ++t) {
    if (t % 65536 == 0) throw_if_interrupted();
    const auto& tri = mesh.triangles[t];
    for (std::size_t c = 0; c < 3; ++c) {
      const Vec3& p = mesh.positions[tri[c]];
      const Vec3 e1 = sub3(mesh.positions[tri[(c + 1) % 3]], p), e2 = sub3(mesh.positions[tri[(c + 2) % 3]], p);
      const double l1 = std::sqrt(dot3(e1, e1)), l2 = std::sqrt(dot3(e2, e2));
      // Non-zero area implies both edges are non-zero; the clamp keeps acos defined after rounding.
      const double cosine = std::clamp(dot3(e1, e2) / (l1 * l2), -1.0, 1.0);
      const double angle = std::acos(cosine);
      for (std::size_t a = 0; a < 3; ++a) mesh.corner_normals[tri[c]][a] += angle * mesh.face_normals[t][a];
    }
  }
  return mesh;
}

std::string describe(const MeshReport& r) {
  char buf[1024];
  std::snprintf(buf, sizeof buf,
                "corners    %zu read, %zu after welding\n"
                "triangles  %zu read, %zu of zero area (skipped)\n"
                "edges      %zu boundary, %zu non-manifold, %zu inconsistently oriented\n"
                "components %zu\n"
                "volume     %.6g (signed, as read)%s\n",
                r.corners_read, r.corners_welded, r.triangles_read, r.zero_area_triangles, r.boundary_edges,
                r.nonmanifold_edges, r.inconsistent_edges, r.components, r.signed_volume,
                r.flipped ? "; negative, so every triangle was reversed" : "");
  std::string text = buf;
  if (!r.example_edge_kind.empty())
    text += "example    " + r.example_edge_kind + " edge between corners " + std::to_string(r.example_edge[0]) + " and " +
            std::to_string(r.example_edge[1]) + "\n";
  text += "crossings  " + count_text(r.intersecting_pairs, "pair of triangles meets", "pairs of triangles meet");
  if (r.intersecting_pairs != 0)
    text += " (e.g. triangles " + std::to_string(r.example_pair[0]) + " and " + std::to_string(r.example_pair[1]) + ")";
  text += "\n";
  if (r.misnested_shells != 0) {
    text += "nesting    " + count_text(r.misnested_shells, "shell faces", "shells face") +
            " the wrong way (e.g. the shell of triangle " +
            std::to_string(r.example_shell_triangle);
    if (r.example_enclosing_triangle != MeshReport::kNoTriangle)
      text += ", inside the shell of triangle " + std::to_string(r.example_enclosing_triangle);
    text += ")\n";
  }
  return text;
}

}  // namespace distgrid
