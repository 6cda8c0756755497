// Replays one regression-corpus file (corpus/README.md): reads the case, runs the
// calculation it names and checks the relation it states. Exit 0 when the
// relation holds, 1 (with the numbers) when it does not, 2 for a malformed file.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

#include <nlohmann/json.hpp>

#include "distgrid/bake.hpp"
#include "distgrid/brick_key.hpp"
#include "distgrid/closest_point.hpp"
#include "distgrid/default_parts.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/file_io.hpp"
#include "harness/exact.hpp"

namespace distgrid {
namespace {

using properties::exact;
using properties::Rational;

struct Failure {
  std::string what;
};

double number(const nlohmann::json& j, const char* key) {
  if (!j.contains(key)) throw Failure{std::string("missing input '") + key + "'"};
  const nlohmann::json& v = j.at(key);
  if (v.is_number()) return v.get<double>();
  const std::string text = v.get<std::string>();
  char* end = nullptr;
  const double x = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') throw Failure{"'" + text + "' is not a number"};
  return x;
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
  const Rational exact_min = properties::exact_triangle_distance2(exact(p), exact(a), exact(b), exact(c));
  double scale = 1;
  for (const Vec3* v : {&a, &b, &c, &p})
    for (double x : *v) scale += std::fabs(x);
  const Rational tol(1e-12 * scale * scale);
  const Rational error = properties::exact_distance2(exact(p), exact(got.point)) - exact_min;
  if (error > tol || -error > tol)
    throw Failure{"closest point " + hex(got.point[0]) + " " + hex(got.point[1]) + " " + hex(got.point[2]) +
                  " (feature " + feature_name(got.feature) + ") is not the nearest point"};
  if (properties::exact_triangle_distance2(exact(got.point), exact(a), exact(b), exact(c)) > tol)
    throw Failure{"closest point is off the triangle"};
  const Vec3* corner = got.feature == TriangleFeature::corner_a   ? &a
                       : got.feature == TriangleFeature::corner_b ? &b
                       : got.feature == TriangleFeature::corner_c ? &c
                                                                  : nullptr;
  if (corner && got.point != *corner) throw Failure{"a corner feature must return the corner exactly"};
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
