// Properties of compiled formulas and density maps (field.eval,
// field.density_store, field.density_value).
#include <algorithm>
#include <array>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <string>
#include <vector>


#include "distgrid/audit/high_precision.hpp"
#include "distgrid/error.hpp"
#include "distgrid/field_json.hpp"
#include "distgrid/properties/generators.hpp"
#include "harness/property.hpp"

namespace distgrid {
namespace {

using namespace properties;
using audit::HighPrecision;

Vec3 point_in_voxels(double h, int reach) {
  return {*dyadic(std::int64_t{reach} << 8, 8) * h, *dyadic(std::int64_t{reach} << 8, 8) * h,
          *dyadic(std::int64_t{reach} << 8, 8) * h};
}

template <class S>
double eval_at(const Field<S>& f, const Vec3& p) {
  return f.template eval<double>(p[0], p[1], p[2]);
}

// ---- field.eval -----------------------------------------------------------------

DISTGRID_PROPERTY(FieldEval, unionIsTheMinimumAndIntersectionTheMaximumOfItsShapes, 200) {
  const double h = 0.125;
  const ShapeSpec a = *csg_spec(h, 1), b = *csg_spec(h, 1);
  const Field<double> fa = compile_field<double>(a.spec), fb = compile_field<double>(b.spec);
  const Field<double> u = compile_field<double>({{"type", "union"}, {"of", {a.spec, b.spec}}});
  const Field<double> i = compile_field<double>({{"type", "intersection"}, {"of", {a.spec, b.spec}}});
  const Field<double> d = compile_field<double>({{"type", "difference"}, {"from", a.spec}, {"subtract", {b.spec}}});
  for (int n = 0; n < 16; ++n) {
    const Vec3 p = point_in_voxels(h, 24);
    const double va = eval_at(fa, p), vb = eval_at(fb, p);
    RC_ASSERT(eval_at(u, p) == std::min(va, vb));
    RC_ASSERT(eval_at(i, p) == std::max(va, vb));
    RC_ASSERT(eval_at(d, p) == std::max(va, -vb));
  }
}

DISTGRID_PROPERTY(FieldEval, translatingAShapeTranslatesItsFieldExactly, 200) {
  const double h = 0.125;
  const ShapeSpec a = *csg_spec(h, 2);
  const Vec3 by = point_in_voxels(h, 16);
  const Field<double> f = compile_field<double>(a.spec);
  const Field<double> moved = compile_field<double>({{"type", "translate"}, {"by", by}, {"shape", a.spec}});
  for (int n = 0; n < 16; ++n) {
    const Vec3 p = point_in_voxels(h, 24);
    RC_ASSERT(eval_at(moved, {p[0] + by[0], p[1] + by[1], p[2] + by[2]}) == eval_at(f, p));
  }
}

// The primitives are exact distances: in double they stay within a few ulps (of
// the value, or of the shape's size near the surface) of the same formula in
// the references' high precision (134 bits).
DISTGRID_PROPERTY(FieldEval, primitivesInDoubleAreWithinAFewUlpsOfHighPrecision, 300) {
  const double h = 0.125;
  const ShapeSpec a = *primitive_spec(h);
  const Field<double> f = compile_field<double>(a.spec);
  for (int n = 0; n < 16; ++n) {
    const Vec3 p = point_in_voxels(h, 24);
    const double got = eval_at(f, p);
    const HighPrecision ref = f.eval<HighPrecision>(HighPrecision(p[0]), HighPrecision(p[1]), HighPrecision(p[2]));
    const double scale = std::max({std::fabs(got), std::fabs(p[0]) + std::fabs(p[1]) + std::fabs(p[2]), 4.0});
    RC_ASSERT(std::fabs(got - ref.convert_to<double>()) <= 16 * std::numeric_limits<double>::epsilon() * scale);
  }
}

DISTGRID_PROPERTY(FieldEval, isNeverSteeperThanItsLipschitzBound, 200) {
  const double h = 0.125;
  const ShapeSpec a = *csg_spec(h, 2);
  const Field<double> f = compile_field<double>(a.spec);
  for (int n = 0; n < 16; ++n) {
    const Vec3 p = point_in_voxels(h, 24), q = point_in_voxels(h, 24);
    const double distance = std::hypot(p[0] - q[0], p[1] - q[1], p[2] - q[2]);
    const double change = std::fabs(eval_at(f, p) - eval_at(f, q));
    RC_ASSERT(change <= f.lipschitz() * distance * (1 + 1e-9) + 1e-12);
  }
}

// classify() may answer outside or inside only when no point of the ball is in
// the band: the plan's safety rests on it.
DISTGRID_PROPERTY(FieldEvalAndBakePlan, ballClassificationIsConservative, 200) {
  const double h = 0.125;
  const ShapeSpec a = *csg_spec(h, 2);
  const Field<double> f = compile_field<double>(a.spec);
  const Vec3 c = point_in_voxels(h, 24);
  const double r = *rc::gen::inRange(1, 64) * h / 4, band_width = 3 * h;
  const BallClass cls = f.classify(c[0], c[1], c[2], r, band_width);
  RC_TAG(cls == BallClass::near ? "near" : "decided");
  if (cls == BallClass::near) return;
  for (int n = 0; n < 32; ++n) {
    Vec3 u = point_in_voxels(1.0 / 8, 8);
    const double length = std::hypot(u[0], u[1], u[2]);
    if (length > 1) u = {u[0] / length, u[1] / length, u[2] / length};
    const Vec3 p{c[0] + r * u[0] * (1 - 1e-12), c[1] + r * u[1] * (1 - 1e-12), c[2] + r * u[2] * (1 - 1e-12)};
    const double v = eval_at(f, p);
    if (cls == BallClass::outside) RC_ASSERT(v >= band_width);
    if (cls == BallClass::inside) RC_ASSERT(v <= -band_width);
  }
}

DISTGRID_PROPERTY(FieldEval, batchEvaluationEqualsPointwiseBitForBit, 100) {
  const double h = 0.125;
  const Field<double> f = compile_field<double>((*csg_spec(h, 2)).spec);
  const std::size_t count = *rc::gen::inRange<std::size_t>(1, 1200);
  std::vector<double> x(count), y(count), z(count), out(count);
  for (std::size_t n = 0; n < count; ++n) {
    const Vec3 p = point_in_voxels(h, 24);
    x[n] = p[0];
    y[n] = p[1];
    z[n] = p[2];
  }
  x[0] = *hostile_coordinate();
  FieldScratch scratch;
  f.eval_batch(x, y, z, out, scratch);
  for (std::size_t n = 0; n < count; ++n) {
    const double one = f.eval<double>(x[n], y[n], z[n]);
    RC_ASSERT((std::isnan(one) && std::isnan(out[n])) || std::memcmp(&one, &out[n], sizeof one) == 0);
  }
}

DISTGRID_PROPERTY(FieldEval, boundsHoldEveryPointInsideTheShape, 200) {
  const double h = 0.125;
  const Field<double> f = compile_field<double>((*csg_spec(h, 2)).spec);
  const double level = *rc::gen::inRange(0, 16) * h / 4;
  const Box box = f.bounds_within(level);
  for (int n = 0; n < 32; ++n) {
    const Vec3 p = point_in_voxels(h, 24);
    if (eval_at(f, p) > level) continue;
    for (std::size_t a = 0; a < 3; ++a) {
      RC_ASSERT(box.lo[a] <= p[a]);
      RC_ASSERT(p[a] <= box.hi[a]);
    }
  }
}

// ---- field.density_store / field.density_value ---------------------------------

// offset(halfspace z <= 0, number): at z = 0 the field is exactly -number, so a
// point's number can be read back through eval.
nlohmann::json number_probe(const nlohmann::json& number) {
  return {{"type", "offset"}, {"distance", number}, {"shape", {{"type", "halfspace"}, {"normal", {0, 0, 1}}}}};
}

template <class S>
double number_at(const Field<S>& probe, double x, double y) {
  return -probe.template eval<double>(x, y, 0.0);
}

/// Centre of cell (i, j) of the map (cells on z: one).
std::array<double, 2> cell_centre(const nlohmann::json& map, int i, int j) {
  const auto& box = map["box"];
  const double x0 = box[0], y0 = box[1], x1 = box[3], y1 = box[4];
  const int nx = map["cells"][0], ny = map["cells"][1];
  return {x0 + (i + 0.5) * (x1 - x0) / nx, y0 + (j + 0.5) * (y1 - y0) / ny};
}

nlohmann::json flat_map(nlohmann::json map) {
  const int nx = map["cells"][0], ny = map["cells"][1];
  map["cells"][2] = 1;
  auto data = map["data"].get<std::vector<double>>();
  data.resize(static_cast<std::size_t>(nx * ny));
  map["data"] = data;
  return map;
}

DISTGRID_PROPERTY(FieldDensityStore, aCellCentreReadsTheValueRoundedOnceToStorage, 300) {
  const nlohmann::json map = flat_map(*density_map(0, 1));
  const Field<float> f = compile_field<float>(number_probe(map));
  const Field<double> d = compile_field<double>(number_probe(map));
  const int nx = map["cells"][0], ny = map["cells"][1];
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) {
      const double stored = map["data"][static_cast<std::size_t>(i + nx * j)];
      const auto c = cell_centre(map, i, j);
      RC_ASSERT(number_at(f, c[0], c[1]) == static_cast<double>(static_cast<float>(stored)));
      RC_ASSERT(number_at(d, c[0], c[1]) == stored);
    }
}

DISTGRID_PROPERTY(FieldDensityStore, aFloatMapIsWithinHalfAFloatUlpOfTheDoubleMapEverywhere, 300) {
  const double v0 = *dyadic(64, 4), v1 = *dyadic(64, 4);
  const nlohmann::json map = *density_map(v0, v1);
  const Field<float> f = compile_field<float>(number_probe(map));
  const Field<double> d = compile_field<double>(number_probe(map));
  for (int n = 0; n < 16; ++n) {
    const double x = *dyadic(4 << 10, 8), y = *dyadic(4 << 10, 8);
    // Each stored value moves by at most 2^-25 (values in [0, 1]); the blend
    // weights sum to 1, so the number moves by at most |v1 - v0| * 2^-25 plus rounding.
    const double bound = std::fabs(v1 - v0) * 0x1p-25 + 1e-14 * (std::fabs(v0) + std::fabs(v1));
    RC_ASSERT(std::fabs(number_at(f, x, y) - number_at(d, x, y)) <= bound);
  }
}

DISTGRID_PROPERTY(FieldDensityStore, valuesOutsideZeroToOneOrAWrongCountAreRefusedNamingThePath, 200) {
  nlohmann::json map = *density_map(0, 1);
  const int fault = *rc::gen::inRange(0, 4);
  const auto count = map["data"].size();
  const std::size_t at = *rc::gen::inRange<std::size_t>(0, count);
  if (fault == 0) map["data"][at] = 1 + *rc::gen::inRange(1, 100) / 64.0;
  if (fault == 1) map["data"][at] = -*rc::gen::inRange(1, 100) / 64.0;
  if (fault == 2) map["data"].push_back(0.5);
  if (fault == 3) map["data"][at] = "nan";
  try {
    (void)compile_field<float>(number_probe(map));
    RC_FAIL("a bad density map compiled");
  } catch (const Error& e) {
    RC_ASSERT(e.code() == ErrorCode::badspec);
    RC_ASSERT(std::string(e.what()).find("/distance/data") != std::string::npos);
  }
}

DISTGRID_PROPERTY(FieldDensityValue, staysBetweenV0AndV1Everywhere, 300) {
  const double v0 = *dyadic(64, 4), v1 = *dyadic(64, 4);
  const nlohmann::json map = *density_map(v0, v1);
  const Field<float> f = compile_field<float>(number_probe(map));
  for (int n = 0; n < 16; ++n) {
    const double x = *rc::gen::weightedOneOf<double>({{3, dyadic(8 << 10, 8)}, {1, far_coordinate()},
                                                      {1, rc::gen::element(1e300, -1e300, 0.0, -0.0)}});
    const double y = *dyadic(8 << 10, 8);
    const double v = number_at(f, x, y);
    RC_ASSERT(v >= std::min(v0, v1));
    RC_ASSERT(v <= std::max(v0, v1));
  }
}

DISTGRID_PROPERTY(FieldDensityValue, holdsTheEdgeValueBeyondTheOutermostCellCentres, 300) {
  const nlohmann::json map = flat_map(*density_map(*dyadic(64, 4), *dyadic(64, 4)));
  const Field<double> f = compile_field<double>(number_probe(map));
  const int nx = map["cells"][0], ny = map["cells"][1];
  const int i = *rc::gen::element(0, nx - 1), j = *rc::gen::inRange(0, ny);
  const auto c = cell_centre(map, i, j);
  const double beyond = (i == 0 ? -1 : 1) * *rc::gen::inRange(1, 1 << 20) / 256.0;
  RC_ASSERT(number_at(f, c[0] + beyond, c[1]) == number_at(f, c[0], c[1]));
}

// Trilinear interpolation reproduces a map whose values are affine in the cell
// index: the number at a dyadic point inside the centres is that affine function.
DISTGRID_PROPERTY(FieldDensityValue, reproducesAnAffineMapExactly, 300) {
  nlohmann::json map = flat_map(*density_map(0, 1));
  const int nx = map["cells"][0], ny = map["cells"][1];
  const double a = *rc::gen::inRange(0, 9) / 64.0, bx = *rc::gen::inRange(0, 9) / 64.0,
               by = *rc::gen::inRange(0, 9) / 64.0;
  std::vector<double> data(static_cast<std::size_t>(nx * ny));
  for (int j = 0; j < ny; ++j)
    for (int i = 0; i < nx; ++i) data[static_cast<std::size_t>(i + nx * j)] = a + bx * i + by * j;
  map["data"] = data;
  const Field<float> f = compile_field<float>(number_probe(map));
  const auto c0 = cell_centre(map, 0, 0), c1 = cell_centre(map, nx - 1, ny - 1);
  for (int n = 0; n < 8; ++n) {
    const double s = *rc::gen::inRange(0, 257) / 256.0, t = *rc::gen::inRange(0, 257) / 256.0;
    const double x = c0[0] + s * (c1[0] - c0[0]), y = c0[1] + t * (c1[1] - c0[1]);
    const double expected = a + bx * s * (nx - 1) + by * t * (ny - 1);
    RC_ASSERT(number_at(f, x, y) == expected);
  }
}

// The profile is v0 + (v1 - v0) * density, with the density read from the same
// map: so the number for (v0, v1) follows from the number for (0, 1) exactly.
DISTGRID_PROPERTY(FieldDensityValue, followsTheProfileOfTheUnitMap, 300) {
  const double v0 = *dyadic(64, 4), v1 = *dyadic(64, 4);
  nlohmann::json map = *density_map(v0, v1);
  nlohmann::json unit = map;
  unit["v0"] = 0;
  unit["v1"] = 1;
  const Field<float> f = compile_field<float>(number_probe(map)), u = compile_field<float>(number_probe(unit));
  for (int n = 0; n < 16; ++n) {
    const double x = *dyadic(8 << 10, 8), y = *dyadic(8 << 10, 8);
    RC_ASSERT(number_at(f, x, y) == v0 + (v1 - v0) * number_at(u, x, y));
  }
}

}  // namespace
}  // namespace distgrid
