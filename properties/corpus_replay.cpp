// Replays one regression-corpus file (corpus/README.md): reads the case, runs the
// calculation it names and checks the relation it states. Exit 0 when the
// relation holds, 1 (with the numbers) when it does not, 2 for a malformed file.
#include <unistd.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <iostream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "distgrid/audit/high_precision.hpp"
#include "distgrid/audit/reference/brick_key.hpp"
#include "distgrid/audit/reference/density_map.hpp"
#include "distgrid/audit/reference/density_probe.hpp"
#include "distgrid/audit/reference/mesh.hpp"
#include "distgrid/audit/reference/mesh_files.hpp"
#include "distgrid/bake.hpp"
#include "distgrid/brick_key.hpp"
#include "distgrid/closest_point.hpp"
#include "distgrid/contour.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/file_io.hpp"
#include "distgrid/mesh_bake.hpp"
#include "distgrid/mesh_io.hpp"
#include "distgrid/mesh_parts.hpp"
#include "distgrid/mesh_prepare.hpp"
#include "distgrid/plan.hpp"
#include "harness/exact.hpp"

namespace distgrid {
namespace {

using audit::HighPrecision;
using audit::to_double;
using properties::exact;
using properties::Rational;

struct Failure {
  std::string what;
};

/// A JSON number, or a string holding one (hex-float keeps every bit).
double number_of(const nlohmann::json& v) {
  if (v.is_number()) return v.get<double>();
  const std::string text = v.get<std::string>();
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') throw Failure{"'" + text + "' is not a number"};
  return x;
}

double number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) throw Failure{std::string("missing input '") + key + "'"};
  return number_of(j.at(key));
}

Vec3 vec(const nlohmann::json& j, const char* key) {
  const nlohmann::json& v = j.at(key);
  return {number(v, "x"), number(v, "y"), number(v, "z")};
}

std::string hex(double v) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%a", v);
  return buf;
}

/// Failure unless |got - reference| <= allowed; the message gives both in units of `unit` (h, or 1).
void check_within(const char* what, double got, double reference, double allowed, double unit) {
  if (!(std::fabs(got - reference) <= allowed))
    throw Failure{std::string(what) + " " + hex(got) + " is " + hex(std::fabs(got - reference) / unit) +
                  (unit == 1 ? "" : " h") + " from the reference " + hex(reference) + " (allowed " +
                  hex(allowed / unit) + (unit == 1 ? ")" : " h)")};
}

/// floor(q) and ceil(q) of a rational, and floor(n / 8) of an integer.
std::int64_t floor_of(const Rational& q) {
  using Integer = boost::multiprecision::mpz_int;
  const Integer n = boost::multiprecision::numerator(q), d = boost::multiprecision::denominator(q);
  Integer quotient = n / d;  // truncated towards zero; d > 0
  if (quotient * d > n) quotient -= 1;
  return quotient.convert_to<std::int64_t>();
}
std::int64_t ceil_of(const Rational& q) { return -floor_of(-q); }
std::int64_t floor_div8(std::int64_t n) { return n >= 0 ? n / 8 : -((-n + 7) / 8); }

template <class S>
Grid<S> bake_part(const nlohmann::json& in) {
  BakeSettings settings;
  settings.h = number(in, "h");
  settings.band = number(in, "band");
  settings.threads = 1;
  return bake(compile_field<S>(default_part(in.at("part").get<std::string>()).spec), settings);
}

/// grid.key: the key of (bx, by, bz) is below 2^51, exact as a double, and inverts.
void key_round_trip(const nlohmann::json& in) {
  const auto bx = in.at("bx").get<std::int64_t>(), by = in.at("by").get<std::int64_t>(), bz = in.at("bz").get<std::int64_t>();
  const std::int64_t key = brick_key_checked(bx, by, bz);
  if (!(brick_of(key) == BrickCoord{bx, by, bz})) throw Failure{"brick_of(key) does not invert the key"};
  if (static_cast<std::int64_t>(static_cast<double>(key)) != key) throw Failure{"key is not exact as a double"};
}

/// grid.sample: the sample of the baked part at the point is within max_error_h * h
/// of the reference (high precision from exact node values).
template <class S>
void sample_within(const nlohmann::json& in, const nlohmann::json& expected) {
  const Grid<S> grid = bake_part<S>(in);
  const Vec3 p = vec(in, "point");
  const double got = grid.sample(p[0], p[1], p[2]);
  const double reference = number(expected, "reference"), allowed = number(expected, "max_error_h") * grid.h();
  if (!(std::fabs(got - reference) <= allowed))
    throw Failure{"sample " + hex(got) + " is " + hex(std::fabs(got - reference) / grid.h()) +
                  " h from the reference " + hex(reference) + " (allowed " + hex(allowed / grid.h()) + " h)"};
}

/// grid.volume: the volume of the baked part is within max_relative of the reference.
template <class S>
void volume_within(const nlohmann::json& in, const nlohmann::json& expected) {
  const double got = bake_part<S>(in).volume();
  const double reference = number(expected, "reference"), allowed = number(expected, "max_relative");
  const double relative = std::fabs(got - reference) / std::fabs(reference);
  if (!(relative <= allowed))
    throw Failure{"volume " + hex(got) + " is " + hex(relative) + " relative from " + hex(reference)};
}

/// mesh.closest_point: the closest point's squared distance is the exact minimum to
/// rounding, it lies on the triangle, and a corner feature returns the corner itself.
void closest_point_exact(const nlohmann::json& in) {
  const Vec3 p = vec(in, "p"), a = vec(in, "a"), b = vec(in, "b"), c = vec(in, "c");
  const ClosestPoint got = closest_point_on_triangle(p, a, b, c);
  const Rational exact_min = properties::exact_triangle_distance2(p, a, b, c);
  double scale = 1;
  for (const Vec3* v : {&a, &b, &c, &p})
    for (double x : *v) scale += std::fabs(x);
  const Rational tol(1e-12 * scale * scale);
  const Rational error = properties::exact_distance2(exact(p), exact(got.point)) - exact_min;
  if (error > tol || -error > tol)
    throw Failure{"closest point " + hex(got.point[0]) + " " + hex(got.point[1]) + " " + hex(got.point[2]) +
                  " (feature " + feature_name(got.feature) + ") is not the nearest point"};
  if (properties::exact_triangle_distance2(got.point, a, b, c) > tol)
    throw Failure{"closest point is off the triangle"};
  const Vec3* corner = got.feature == TriangleFeature::corner_a   ? &a
                       : got.feature == TriangleFeature::corner_b ? &b
                       : got.feature == TriangleFeature::corner_c ? &c
                                                                  : nullptr;
  if (corner && got.point != *corner) throw Failure{"a corner feature must return the corner exactly"};
}

/// bake.plan: the brick range of a box holds the bricks of the box's first and
/// last nodes on every axis (node indices ceil(lo / h) and floor(hi / h), exact).
void range_covers_nodes(const nlohmann::json& in) {
  const double h = number(in, "h");
  const Vec3 lo = vec(in, "lo"), hi = vec(in, "hi");
  const std::array<std::int64_t, 6> range = plan_brick_range(Box{lo, hi}, h);
  const Rational step(h);
  for (std::size_t a = 0; a < 3; ++a) {
    const Rational first = Rational(lo[a]) / step, last = Rational(hi[a]) / step;
    const std::int64_t first_node = ceil_of(first), last_node = floor_of(last);
    const std::int64_t first_brick = floor_div8(first_node), last_brick = floor_div8(last_node);
    if (first_brick < range[a] || last_brick > range[3 + a])
      throw Failure{"axis " + std::to_string(a) + ": bricks " + std::to_string(first_brick) + ".." +
                    std::to_string(last_brick) + " of the box's nodes are not all in the range " +
                    std::to_string(range[a]) + ".." + std::to_string(range[3 + a])};
  }
}

/// bake.node_values: the baked part's node value is within max_error_h * h of the reference.
template <class S>
void node_value_within(const nlohmann::json& in, const nlohmann::json& expected) {
  const Grid<S> grid = bake_part<S>(in);
  const nlohmann::json& node = in.at("node");
  const double got = grid.node(node.at("i").get<std::int64_t>(), node.at("j").get<std::int64_t>(),
                               node.at("k").get<std::int64_t>());
  check_within("node value", got, number(expected, "reference"), number(expected, "max_error_h") * grid.h(), grid.h());
}

/// grid.gradient: a component of the baked part's gradient at the point (the one the
/// audit found worst) is within max_error_h of the reference component.
template <class S>
void gradient_within(const nlohmann::json& in, const nlohmann::json& expected) {
  const Grid<S> grid = bake_part<S>(in);
  const Vec3 p = vec(in, "point");
  const std::array<double, 3> g = grid.gradient(p[0], p[1], p[2]);
  const double reference = number(expected, "reference");
  double nearest = g[0];
  for (double component : g)
    if (std::fabs(component - reference) < std::fabs(nearest - reference)) nearest = component;
  check_within("gradient component", nearest, reference, number(expected, "max_error_h"), 1);
}

/// grid.world_box: the box of these bricks is the exact products 8 b h and (8 b + 7) h,
/// each rounded once to the nearest double.
template <class S>
void world_box_exact(const nlohmann::json& in) {
  const double h = number(in, "h");
  Grid<S> grid(h, 3);
  std::array<std::int64_t, 3> lo{}, hi{};
  bool first = true;
  for (const char* list : {"stored_bricks", "inside_bricks"})
    for (const nlohmann::json& b : in.at(list)) {
      const std::array<std::int64_t, 3> brick{b.at(0).get<std::int64_t>(), b.at(1).get<std::int64_t>(),
                                              b.at(2).get<std::int64_t>()};
      const std::int64_t key = brick_key_checked(brick[0], brick[1], brick[2]);
      if (std::string(list) == "stored_bricks") std::fill_n(grid.add_brick_for_overwrite(key), kBrickNodes, S(0));
      else grid.add_inside(key);
      for (std::size_t a = 0; a < 3; ++a) {
        lo[a] = first ? brick[a] : std::min(lo[a], brick[a]);
        hi[a] = first ? brick[a] : std::max(hi[a], brick[a]);
      }
      first = false;
    }
  const std::optional<Box> box = grid.world_box();
  if (!box) throw Failure{"no world box"};
  const auto exact = [&](std::int64_t node) { return to_double(HighPrecision(node) * HighPrecision(h)); };
  for (std::size_t a = 0; a < 3; ++a)
    if (box->lo[a] != exact(8 * lo[a]) || box->hi[a] != exact(8 * hi[a] + 7))
      throw Failure{"axis " + std::to_string(a) + ": box " + hex(box->lo[a]) + " .. " + hex(box->hi[a]) +
                    ", exact products " + hex(exact(8 * lo[a])) + " .. " + hex(exact(8 * hi[a] + 7))};
}

/// The corners of the case, as written "(x, y, z)" with hex-float numbers.
std::vector<Vec3> corners_of(const nlohmann::json& list) {
  std::vector<Vec3> corners;
  for (const nlohmann::json& c : list) corners.push_back({number(c, "x"), number(c, "y"), number(c, "z")});
  return corners;
}

/// mesh.weld: two corners share a welded corner exactly when their coordinates are
/// equal as doubles, and a welded corner keeps its first position bit for bit.
void weld_exact(const nlohmann::json& in) {
  TriangleMesh mesh;
  mesh.positions = corners_of(in.at("corners"));
  if (mesh.positions.size() % 3 != 0) throw Failure{"expected whole triangles of corners"};
  for (std::uint32_t t = 0; 3 * t < mesh.positions.size(); ++t) mesh.triangles.push_back({3 * t, 3 * t + 1, 3 * t + 2});
  const TriangleMesh welded = weld_corners(mesh, "corpus");
  std::vector<std::uint32_t> of(mesh.positions.size());
  for (std::size_t t = 0; t < mesh.triangles.size(); ++t)
    for (std::size_t c = 0; c < 3; ++c) of[mesh.triangles[t][c]] = welded.triangles[t][c];
  for (std::size_t u = 0; u < of.size(); ++u) {
    if (std::memcmp(&welded.positions[of[u]], &mesh.positions[u], sizeof(Vec3)) != 0 &&
        welded.positions[of[u]] != mesh.positions[u])
      throw Failure{"corner " + std::to_string(u) + " moved when welded"};
    for (std::size_t v = u + 1; v < of.size(); ++v)
      if ((of[u] == of[v]) != (mesh.positions[u] == mesh.positions[v]))
        throw Failure{"corners " + std::to_string(u) + " and " + std::to_string(v) +
                      (of[u] == of[v] ? " merged though not equal" : " kept apart though equal")};
  }
}

/// mesh.normals: every unit face normal of the prepared mesh is within max_ulps (of
/// 1, the normal's length) of the high-precision reference.
void face_normals_within(const nlohmann::json& in, const nlohmann::json& expected) {
  TriangleMesh mesh;
  mesh.positions = corners_of(in.at("corners"));
  for (const nlohmann::json& t : in.at("triangles"))
    mesh.triangles.push_back({t.at(0).get<std::uint32_t>(), t.at(1).get<std::uint32_t>(), t.at(2).get<std::uint32_t>()});
  const PreparedMesh prepared = prepare_mesh(mesh, "corpus");
  const audit::reference::HighNormals reference =
      audit::reference::high_precision_normals(prepared.positions, prepared.triangles);
  const double allowed = number(expected, "max_ulps") * 0x1p-52;
  for (std::size_t f = 0; f < prepared.face_normals.size(); ++f) {
    HighPrecision squared = 0;
    for (std::size_t a = 0; a < 3; ++a) {
      const HighPrecision d = HighPrecision(prepared.face_normals[f][a]) - reference.face[f][a];
      squared += d * d;
    }
    const double error = to_double(sqrt(squared));
    if (!(error <= allowed))
      throw Failure{"face " + std::to_string(f) + " normal is " + hex(error / 0x1p-52) + " ulps from the reference"};
  }
}

/// mesh.node_distance: the node value of the built-in mesh part baked at h is within
/// max_error_h * h of the reference and has its sign.
template <class S>
void mesh_node_distance_within(const nlohmann::json& in, const nlohmann::json& expected) {
  MeshBakeSettings settings;
  settings.h = number(in, "h");
  settings.band = number(in, "band");
  settings.threads = 1;
  const MeshPart part = mesh_part(in.at("part").get<std::string>());
  const Grid<S> grid = bake_mesh<S>(prepare_mesh(part.mesh, part.name), settings);
  const nlohmann::json& node = in.at("node");
  const double got = grid.node(node.at("i").get<std::int64_t>(), node.at("j").get<std::int64_t>(),
                               node.at("k").get<std::int64_t>());
  const double reference = number(expected, "reference");
  if ((got < 0) != (reference < 0)) throw Failure{"node value " + hex(got) + " has not the sign of " + hex(reference)};
  check_within("node value", got, reference, number(expected, "max_error_h") * settings.h, settings.h);
}

/// mesh.ray_parity: every far brick of the baked mesh (centre beyond the band's reach
/// of every triangle) reads inside exactly when its centre is inside by exact parity.
template <class S>
void far_bricks_by_exact_parity(const nlohmann::json& in) {
  TriangleMesh mesh;
  mesh.positions = corners_of(in.at("corners"));
  for (const nlohmann::json& t : in.at("triangles"))
    mesh.triangles.push_back({t.at(0).get<std::uint32_t>(), t.at(1).get<std::uint32_t>(), t.at(2).get<std::uint32_t>()});
  MeshBakeSettings settings;
  settings.h = number(in, "h");
  settings.band = number(in, "band");
  settings.threads = 1;
  const PreparedMesh prepared = prepare_mesh(mesh, "corpus");
  const Grid<S> grid = bake_mesh<S>(prepared, settings);
  std::vector<audit::reference::TriangleCorners> triangles;
  for (const auto& t : prepared.triangles)
    triangles.push_back({prepared.positions[t[0]], prepared.positions[t[1]], prepared.positions[t[2]]});
  const double h = settings.h, reach = (settings.band + 3.5 * std::sqrt(3.0) + 1) * h;
  std::array<std::int64_t, 3> lo{}, hi{};
  for (std::size_t a = 0; a < 3; ++a) {
    double least = prepared.positions[0][a], most = least;
    for (const Vec3& p : prepared.positions) least = std::fmin(least, p[a]), most = std::fmax(most, p[a]);
    lo[a] = static_cast<std::int64_t>(std::floor(least / h / 8)) - 2;
    hi[a] = static_cast<std::int64_t>(std::floor(most / h / 8)) + 2;
  }
  std::size_t far = 0;
  for (std::int64_t bx = lo[0]; bx <= hi[0]; ++bx)
    for (std::int64_t by = lo[1]; by <= hi[1]; ++by)
      for (std::int64_t bz = lo[2]; bz <= hi[2]; ++bz) {
        const Vec3 centre{(static_cast<double>(8 * bx) + 3.5) * h, (static_cast<double>(8 * by) + 3.5) * h,
                          (static_cast<double>(8 * bz) + 3.5) * h};
        bool is_far = true;
        for (const auto& t : triangles)
          is_far = is_far && audit::reference::approximate_distance_squared(centre, t[0], t[1], t[2]) > reach * reach;
        if (!is_far) continue;
        ++far;
        const bool inside = audit::reference::exact_side(audit::reference::to_rational(centre), triangles) ==
                            audit::reference::Side::inside;
        if ((grid.node(8 * bx, 8 * by, 8 * bz) < 0) != inside)
          throw Failure{"far brick " + std::to_string(bx) + "," + std::to_string(by) + "," + std::to_string(bz) +
                        " reads " + (inside ? "outside" : "inside") + " against the exact parity"};
      }
  if (far == 0) throw Failure{"no far brick to check"};
}

/// The density map of a case: cells, box, values, v0 and v1.
audit::reference::DensityMapSpec density_map_of(const nlohmann::json& map, std::vector<double>& values) {
  audit::reference::DensityMapSpec spec;
  for (std::size_t a = 0; a < 3; ++a) {
    spec.cells[a] = map.at("cells").at(a).get<std::int64_t>();
    spec.lo[a] = number_of(map.at("box").at(a));
    spec.hi[a] = number_of(map.at("box").at(3 + a));
  }
  spec.v0 = number(map, "v0");
  spec.v1 = number(map, "v1");
  for (const nlohmann::json& v : map.at("values")) values.push_back(number_of(v));
  return spec;
}

/// field.density_store: a map value reads back, through the probe at its cell's
/// centre (a map of unit cells from 0, v0 = 0, v1 = 1), as the value rounded to S.
template <class S>
void density_stored(const nlohmann::json& in) {
  const double value = number(in, "value");
  audit::reference::DensityMapSpec map;
  map.cells = {2, 1, 1};
  map.lo = {0, 0, 0};
  map.hi = {2, 1, 1};
  const Field<S> probe = compile_field<S>(audit::reference::density_probe_spec(map, {value, 0.0}, 2));
  const double got = audit::reference::probe_number(probe, {0.5, 0.5, 0});
  const auto stored = static_cast<double>(static_cast<S>(value));
  if (std::memcmp(&got, &stored, sizeof got) != 0)
    throw Failure{"value " + hex(value) + " reads back as " + hex(got) + ", not as " + hex(stored)};
}

/// field.density_value: the map's number at a point of the probe's plane is within
/// max_error_h of the map's definition in high precision from the values as given.
template <class S>
void density_value_within(const nlohmann::json& in, const nlohmann::json& expected) {
  std::vector<double> values;
  const audit::reference::DensityMapSpec map = density_map_of(in.at("map"), values);
  const Vec3 p = vec(in, "point");
  std::size_t axis = 3;
  for (std::size_t a = 0; a < 3; ++a)
    if (p[a] == 0) axis = a;
  if (axis == 3) throw Failure{"the point must lie on a plane x, y or z = 0"};
  const Field<S> probe = compile_field<S>(audit::reference::density_probe_spec(map, values, axis));
  const double got = audit::reference::probe_number(probe, p);
  std::vector<HighPrecision> given(values.begin(), values.end());
  const double reference =
      to_double(audit::reference::density_number(map, given, {HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2])}));
  check_within("density number", got, reference, number(expected, "max_error"), 1);
}

/// field.eval: the formula (a built-in part or a spec) in double is within max_error
/// of the reference at the point, and eval_batch gives eval<double>'s bits.
template <class S>
void eval_within(const nlohmann::json& in, const nlohmann::json& expected) {
  const nlohmann::json spec = in.contains("spec") ? in.at("spec") : default_part(in.at("part").get<std::string>()).spec;
  const Field<S> field = compile_field<S>(spec);
  const Vec3 p = vec(in, "point");
  const double got = field.template eval<double>(p[0], p[1], p[2]);
  std::array<double, 1> x{p[0]}, y{p[1]}, z{p[2]}, batch{};
  FieldScratch scratch;
  field.eval_batch(x, y, z, batch, scratch);
  if (std::memcmp(&got, &batch[0], sizeof got) != 0)
    throw Failure{"eval_batch gives " + hex(batch[0]) + ", eval<double> " + hex(got)};
  check_within("formula value", got, number(expected, "reference"), number(expected, "max_error"), 1);
}

/// mesh.edge_key: the key of corners a and b is min * 2^32 + max (128-bit
/// reference), and as a double it is exact exactly when it is below 2^53.
void edge_key_exact(const nlohmann::json& in) {
  const auto a = in.at("a").get<std::uint32_t>(), b = in.at("b").get<std::uint32_t>();
  const std::uint64_t key = edge_key(a, b);
  using audit::reference::Int128;
  const Int128 reference = (Int128{std::min(a, b)} << 32) + std::max(a, b);
  if (Int128{key} != reference) throw Failure{"key " + std::to_string(key) + " is not min * 2^32 + max"};
  // Below 2^21 corners a key is below 2^53: exact as a double.
  if (std::max(a, b) < (1u << 21) && static_cast<std::uint64_t>(static_cast<double>(key)) != key)
    throw Failure{"key " + std::to_string(key) + " of corners below 2^21 is not exact as a double"};
}

/// contour.*: the core vertex of the baked part nearest the recorded vertex (within
/// h) has a coordinate within max_error_h * h of the reference coordinate.
template <class S>
void contour_vertex_within(const nlohmann::json& in, const nlohmann::json& expected) {
  const Grid<S> grid = bake_part<S>(in);
  ContourOptions options;
  options.mesher = mesher_from_name(in.at("mesher").get<std::string>());
  const ContourResult result = contour(grid, options);
  const Vec3 recorded = vec(in, "vertex");
  const Vec3* nearest = nullptr;
  double best = grid.h() * grid.h();
  for (const Vec3& v : result.mesh.positions) {
    const double dx = v[0] - recorded[0], dy = v[1] - recorded[1], dz = v[2] - recorded[2];
    if (dx * dx + dy * dy + dz * dz <= best) {
      best = dx * dx + dy * dy + dz * dz;
      nearest = &v;
    }
  }
  if (!nearest) throw Failure{"no core vertex within h of the recorded vertex"};
  const double reference = number(expected, "reference");
  double coordinate = (*nearest)[0];
  for (double c : *nearest)
    if (std::fabs(c - reference) < std::fabs(coordinate - reference)) coordinate = c;
  check_within("vertex coordinate", coordinate, reference, number(expected, "max_error_h") * grid.h(), grid.h());
}

/// export.*: one triangle of these corners written in the format reads back, by the
/// audit's own reader, as the same doubles (binary STL: the nearest floats).
void export_round_trip(const nlohmann::json& in) {
  TriangleMesh mesh;
  mesh.positions = corners_of(in.at("corners"));
  if (mesh.positions.size() != 3) throw Failure{"expected the three corners of one triangle"};
  mesh.triangles = {{0, 1, 2}};
  const std::string format_name = in.at("format").get<std::string>();
  const std::map<std::string, MeshFormat> formats{{"stl_binary", MeshFormat::stl_binary},
                                                  {"stl_ascii", MeshFormat::stl_ascii},
                                                  {"obj", MeshFormat::obj},
                                                  {"ply_ascii", MeshFormat::ply_ascii},
                                                  {"ply_binary", MeshFormat::ply_binary}};
  const auto format = formats.find(format_name);
  if (format == formats.end()) throw Failure{"unknown format '" + format_name + "'"};
  const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("distgrid-corpus-" + std::to_string(::getpid()) + "." + format_name);
  write_mesh(mesh, path.string(), format->second);
  const std::string bytes = read_file(path.string());
  std::filesystem::remove(path);
  namespace ref = audit::reference;
  const ref::ParsedMesh read = format->second == MeshFormat::stl_binary ? ref::parse_binary_stl(bytes)
                               : format->second == MeshFormat::stl_ascii ? ref::parse_ascii_stl(bytes)
                               : format->second == MeshFormat::obj       ? ref::parse_obj(bytes)
                                                                         : ref::parse_ply(bytes);
  if (read.positions.size() != 3) throw Failure{"read back " + std::to_string(read.positions.size()) + " corners"};
  for (std::size_t c = 0; c < 3; ++c)
    for (std::size_t a = 0; a < 3; ++a) {
      const double written = mesh.positions[c][a], got = read.positions[c][a];
      const double want = format->second == MeshFormat::stl_binary ? static_cast<double>(static_cast<float>(written)) : written;
      if (std::memcmp(&got, &want, sizeof got) != 0)
        throw Failure{"corner " + std::to_string(c) + " coordinate " + std::to_string(a) + ": wrote " + hex(written) +
                      ", read " + hex(got) + (want != written ? " (nearest float " + hex(want) + ")" : "")};
    }
}

void replay(const nlohmann::json& doc) {
  const std::string relation = doc.at("relation");
  const nlohmann::json& in = doc.at("inputs");
  const nlohmann::json expected = doc.value("expected", nlohmann::json::object());
  const bool is_float = in.value("storage", "double") == "float";
  if (relation == "key_round_trip") return key_round_trip(in);
  if (relation == "sample_within") return is_float ? sample_within<float>(in, expected) : sample_within<double>(in, expected);
  if (relation == "volume_within") return is_float ? volume_within<float>(in, expected) : volume_within<double>(in, expected);
  if (relation == "closest_point_exact") return closest_point_exact(in);
  if (relation == "range_covers_nodes") return range_covers_nodes(in);
  if (relation == "node_value_within")
    return is_float ? node_value_within<float>(in, expected) : node_value_within<double>(in, expected);
  if (relation == "gradient_within") return is_float ? gradient_within<float>(in, expected) : gradient_within<double>(in, expected);
  if (relation == "world_box_exact") return is_float ? world_box_exact<float>(in) : world_box_exact<double>(in);
  if (relation == "weld_exact") return weld_exact(in);
  if (relation == "face_normals_within") return face_normals_within(in, expected);
  if (relation == "mesh_node_distance_within")
    return is_float ? mesh_node_distance_within<float>(in, expected) : mesh_node_distance_within<double>(in, expected);
  if (relation == "far_bricks_by_exact_parity")
    return is_float ? far_bricks_by_exact_parity<float>(in) : far_bricks_by_exact_parity<double>(in);
  if (relation == "density_stored") return is_float ? density_stored<float>(in) : density_stored<double>(in);
  if (relation == "density_value_within")
    return is_float ? density_value_within<float>(in, expected) : density_value_within<double>(in, expected);
  if (relation == "eval_within") return is_float ? eval_within<float>(in, expected) : eval_within<double>(in, expected);
  if (relation == "edge_key_exact") return edge_key_exact(in);
  if (relation == "contour_vertex_within")
    return is_float ? contour_vertex_within<float>(in, expected) : contour_vertex_within<double>(in, expected);
  if (relation == "export_round_trip") return export_round_trip(in);
  throw Failure{"unknown relation '" + relation + "'"};
}

}  // namespace
}  // namespace distgrid

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: distgrid_corpus_replay CASE.json\n";
    return 2;
  }
  nlohmann::json doc;
  try {
    doc = nlohmann::json::parse(distgrid::read_file(argv[1]));
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 2;
  }
  try {
    distgrid::replay(doc);
  } catch (const distgrid::Failure& f) {
    std::cerr << argv[1] << ": " << doc.value("calc", "?") << ": " << f.what << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << argv[1] << ": " << e.what() << "\n";
    return 2;
  }
  std::cout << argv[1] << ": " << doc.value("calc", "?") << " " << doc.value("relation", "?") << " holds\n";
  return 0;
}
